"""The search trace (docs/trace.md): ids and parents, both sides of the local tests, stop
reasons, the MDL change by part, the compact mode; for both searches."""
import json
import math

import numpy as np
import pytest

from turs import TURSClassifier
from turs.datasets import load_bundled, make_overlap_blockade_data
from turs.search import SearchData, SearchSettings, learn_rule_set
from turs.search.record import FIT_STOPS, SEARCH_STOPS
from turs.trace import SearchTrace, candidate_describer, trace_mode

SEARCH_VARIANTS = {"turs2": {}, "thesis": {"search": "thesis", "model_encoding": "thesis"}}


@pytest.fixture(scope="module", params=list(SEARCH_VARIANTS))
def local_testing_fit(request):
    """The default fit (and the thesis') on the bundled local-testing data (thesis Section 3.6.7)."""
    X, y = load_bundled("sim-local-testing")
    model = TURSClassifier(record_trace=True, **SEARCH_VARIANTS[request.param]).fit(X, y)
    return request.param, model, X, np.asarray(y)


def _all_candidates(search):
    """Every candidate dict of one rule search, with the list it is in."""
    yield "empty_rule", search["empty_rule"]
    for it in search["iterations"]:
        for key in ("main_beam", "aux_beam", "rejected_by_local_test", "aux_rejected_by_local_test"):
            for c in it.get(key, []):
                yield key, c


def test_every_candidate_has_an_id_and_its_parent_resolves(local_testing_fit):
    name, model, _, _ = local_testing_fit
    trace = model.trace_
    seen = {}
    for k, search in enumerate(trace.searches):
        by_id = trace.candidates(k)
        assert search["empty_rule"]["id"] == f"r{k}-empty" and search["empty_rule"]["parent_id"] is None
        for key, c in _all_candidates(search):
            # one id per growth: the same id in two lists is the same candidate
            if c["id"] in seen:
                assert seen[c["id"]] == c["literals"]
            seen[c["id"]] = c["literals"]
            if key == "empty_rule":
                continue
            assert c["id"].startswith(f"r{k}-i")
            parent = by_id[c["parent_id"]]  # resolves within the search
            # the child is the parent with the added literal (new, or replacing the parent's one)
            j = c["added_literal"][0]
            want = [lit for lit in parent["literals"] if lit[0] != j] + [c["added_literal"]]
            assert sorted(map(tuple, c["literals"])) == sorted(map(tuple, want))
            assert c["refined"] == any(lit[0] == j for lit in parent["literals"])
            assert c["coverage"] < parent["coverage"]
            assert c["added_condition"] in c["conditions"]
        if search["chosen"] is not None:
            lineage = trace.lineage(k)
            assert lineage[0]["id"] == f"r{k}-empty" and lineage[-1]["id"] == search["chosen"]["id"]
            for parent, child in zip(lineage, lineage[1:]):
                assert child["parent_id"] == parent["id"]
            assert len(lineage) == len(search["chosen"]["literals"]) + 1  # no refinement on 0/1 columns
    assert len(seen) >= 10, name


def test_local_test_sides_are_recorded_and_decide(local_testing_fit):
    """Both sides of both tests for every recorded growth; the kernel's decision is exactly
    "without the split > with it"; rejected growths are recorded, under both searches."""
    name, model, _, _ = local_testing_fit
    rejected = 0
    for search in model.trace_.searches:
        for key, c in _all_candidates(search):
            if key == "empty_rule":
                assert c["local_test_bits"] is None
                continue
            for test, flag in (("local_test_bits", "local_test"), ("aux_local_test_bits", "aux_local_test")):
                bits = c[test]
                assert bits["passed"] == c[flag] == (bits["bits_without_split"] > bits["bits_with_split"])
            if key == "main_beam":
                assert c["local_test_bits"]["passed"]
            if key == "rejected_by_local_test":
                lt = c["local_test_bits"]
                assert not lt["passed"] and lt["bits_with_split"] >= lt["bits_without_split"]
                rejected += 1
            if key == "aux_rejected_by_local_test":
                assert not c["aux_local_test_bits"]["passed"]
    assert rejected >= 1, f"no growth rejected by the local test under search={name}"


def test_stop_reasons_for_every_search_and_the_fit(local_testing_fit):
    """On this data the test stops the growth of X1 (thesis Table 3.6): the first search ends
    when every growth is rejected, and that last iteration is in the trace."""
    name, model, _, _ = local_testing_fit
    trace = model.trace_
    stops = trace.stop_reasons()
    assert len(stops) == trace.n_searches == len(model.rules_) + 1
    assert stops.search_stop.isin(SEARCH_STOPS).all()
    assert trace.fit_stop["reason"] in FIT_STOPS
    assert stops.fit_stop.notna().sum() == 1 and stops.fit_stop.iloc[-1] == trace.fit_stop["reason"]
    first = trace.searches[0]
    assert first["stop"]["reason"] == "all_growths_rejected"
    last = first["iterations"][-1]
    assert first["stop"]["iteration"] == last["iteration"] == len(first["iterations"]) - 1
    assert last["main_beam"] == [] and last["aux_beam"] == []
    assert last["n_rejected_by_local_test"] > 0 and len(last["rejected_by_local_test"]) >= 1
    # the single true rule on X1, and why nothing followed it
    assert [c["conditions"] for c in trace.lineage(0)[1:]] == [["X1 >= 0.5"]]
    fit = trace.fit_stop
    if fit["reason"] == "rule_not_accepted":
        assert fit["criterion"] == {"turs2": "r_positive", "thesis": "mdl_decreases"}[name]
        if name == "thesis":
            assert fit["mdl_change"]["total"] >= 0
        else:
            assert fit["r"] is None or fit["r"] <= 0
    else:
        assert fit == {"reason": "no_candidate", "search_stop": trace.searches[-1]["stop"]["reason"]}


def _log2_nml(counts):
    """-log2 P_NML(y) of one local model (Eq. 3.10): the ML code length plus log2 of the
    multinomial regret, here two classes, summed term by term (Eq. 3.11) in log space."""
    n = int(sum(counts))
    ml = -sum(c * math.log2(c / n) for c in counts if c > 0)
    if n == 0:
        return ml
    terms = []
    for h in range(n + 1):
        t = math.lgamma(n + 1) - math.lgamma(h + 1) - math.lgamma(n - h + 1)
        if 0 < h < n:
            t += h * math.log(h / n) + (n - h) * math.log((n - h) / n)
        terms.append(t)
    top = max(terms)
    return ml + (top + math.log(sum(math.exp(t - top) for t in terms))) / math.log(2)


def _universal(k):
    """Rissanen's universal code of k >= 1 (log2 2.865064 + log2 k + log2 log2 k + ...), 0 for 0."""
    if k == 0:
        return 0.0
    bits, x = math.log2(2.865064), float(k)
    while True:
        x = math.log2(x)
        if x < 1e-5:
            return bits
        bits += x


def test_local_test_bits_recomputed_from_eq_3_22(local_testing_fit):
    """For the recorded rejected growths of the first search, both sides of Eq. 3.22 from the
    class counts alone: the base as one NML model against S' and S minus S' as two, plus
    L_split. All 50 columns are 0/1: the thesis' L_split is log2 50 (the variable; no bits for
    the threshold of a binary column); the authors' adds 1 bit and L(k+1) - L(k)."""
    name, model, _, _ = local_testing_fit
    search = model.trace_.searches[0]
    by_id = model.trace_.candidates(0)
    checked = rejected = 0
    for it in search["iterations"]:
        rejected += len(it["rejected_by_local_test"])
        for c in it["rejected_by_local_test"] + it["main_beam"]:
            parent = by_id[c["parent_id"]]
            k = len(parent["literals"])
            l_split = math.log2(50) + (0.0 if name == "thesis" else 1.0 + _universal(k + 1) - _universal(k))
            rest = [p - q for p, q in zip(parent["class_counts"], c["class_counts"])]
            without = _log2_nml(parent["class_counts"])
            with_split = _log2_nml(c["class_counts"]) + _log2_nml(rest) + l_split
            assert c["local_test_bits"]["bits_without_split"] == pytest.approx(without, rel=1e-9)
            assert c["local_test_bits"]["bits_with_split"] == pytest.approx(with_split, rel=1e-9)
            checked += 1
    assert checked >= 3 and rejected >= 1
    # one growth by hand: X1 >= 0.5 from the empty rule passes by about 236 bits (turs2: 235.6)
    x1 = next(c for c in search["iterations"][0]["main_beam"] if c["conditions"] == ["X1 >= 0.5"])
    gain = x1["local_test_bits"]["bits_without_split"] - x1["local_test_bits"]["bits_with_split"]
    assert gain == pytest.approx({"thesis": 238.1, "turs2": 235.6}[name], abs=0.1)


@pytest.mark.parametrize("variant", list(SEARCH_VARIANTS))
def test_mdl_parts_add_up_and_match_the_public_breakdown(variant):
    """For each accepted rule the change of each part is what adding it does to the rule set's
    parts; the parts add up to the change; the parts before the first rule plus every accepted
    change are the fitted model's ``mdl_breakdown_`` (computed by ``turs.mdl.score_literals``)."""
    X, y = make_overlap_blockade_data(n=600, seed=3)
    model = TURSClassifier(record_trace=True, beam_width=5, **SEARCH_VARIANTS[variant]).fit(X, y)
    trace = model.trace_
    assert len(model.rules_) >= 2
    parts = dict(trace.searches[0]["mdl_parts_before"])
    assert parts["total"] == pytest.approx(trace.initial_mdl, rel=1e-12)
    names = ("data_bits", "regret_bits", "model_bits")
    for s in trace.searches:
        for role in ("chosen", "runner_up"):
            change = s[role]["mdl_change"]
            assert sum(change[p] for p in names) == pytest.approx(change["total"], abs=1e-8)
            assert s["mdl_before"] + change["total"] == pytest.approx(s[role]["mdl_after"], rel=1e-9)
        assert s["runner_up"]["id"] != s["chosen"]["id"]
        assert sorted(map(tuple, s["runner_up"]["literals"])) != sorted(map(tuple, s["chosen"]["literals"]))
        assert s["runner_up"]["r"] <= s["chosen"]["r"]
        if s["accepted"]:
            for p in names + ("total",):
                parts[p] += s["chosen"]["mdl_change"][p]
            assert s["mdl_after"] == pytest.approx(parts["total"], rel=1e-12)
    b = model.mdl_breakdown_
    assert (parts["data_bits"], parts["regret_bits"], parts["model_bits"], parts["total"]) == pytest.approx(
        (b.data_bits, b.regret_bits, b.model_bits, b.total), rel=1e-9)
    table = trace.mdl_parts(0)
    assert list(table.role) == ["chosen", "runner_up"]


def _learn(model, X, y, trace, describe=True):
    """The model's search again, through learn_rule_set, with a trace mode of our choice."""
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model.model_encoding)
    settings = SearchSettings(model.beam_width, search=model.search, k_stop=model.k_stop)
    return learn_rule_set(data, settings, None, candidate_describer(enc) if describe else None, trace=trace)


def test_compact_trace_keeps_the_decisions_with_fewer_candidates(local_testing_fit):
    name, model, X, y = local_testing_fit
    state_full, full = _learn(model, X, y, "full")
    state_compact, compact = _learn(model, X, y, "compact")
    assert [r.key for r in state_full.rules] == [r.key for r in state_compact.rules]
    # the full trace through learn_rule_set is the estimator's
    assert json.dumps(full) == json.dumps(model.trace_.searches)
    n_full = n_compact = 0
    for f, c in zip(full, compact):
        assert c["trace_mode"] == "compact" and f["trace_mode"] == "full"
        for key in ("chosen", "runner_up", "lineage", "stop", "accepted", "empty_rule"):
            assert c[key] == f[key], key
        assert c.get("fit_stop") == f.get("fit_stop")
        assert len(c["iterations"]) == len(f["iterations"])
        ids = {d["id"] for _, d in _all_candidates(c)}
        for _, d in _all_candidates(c):
            assert d["parent_id"] is None or d["parent_id"] in ids
        for fi, ci in zip(f["iterations"], c["iterations"]):
            assert (ci["best_r"], ci["best_R"], ci["main_beam_size"]) == (fi["best_r"], fi["best_R"],
                                                                           fi["main_beam_size"])
            if fi["main_beam"]:  # the iteration's best is kept
                best = max(fi["main_beam"], key=lambda d: d["r"])
                assert best in ci["main_beam"]
            assert len(ci["rejected_by_local_test"]) == min(len(fi["rejected_by_local_test"]), 1)
        n_full += sum(1 for _ in _all_candidates(f))
        n_compact += sum(1 for _ in _all_candidates(c))
    assert n_compact < n_full
    assert len(json.dumps(compact)) < len(json.dumps(full))


def test_describe_protocol_and_numbers_only():
    """Any ``describe`` callable still works; without one the candidates carry their numbers."""
    X, y = make_overlap_blockade_data(n=400, seed=1)
    model = TURSClassifier(beam_width=4).fit(X, y)
    _, plain = _learn(model, X, np.asarray(y), "full", describe=False)
    c = plain[0]["chosen"]
    assert "conditions" not in c and c["added_condition"] is None and c["literals"]
    assert c["local_test_bits"]["passed"] is True
    # the conditions of describe_candidate are the fitted rules'
    _, searches = _learn(model, X, np.asarray(y), "compact")
    accepted = [s["chosen"]["conditions"] for s in searches if s["accepted"]]
    assert accepted == [[str(cond) for cond in r.conditions] for r in model.rules_]


def test_trace_json_format_and_modes():
    X, y = make_overlap_blockade_data(n=400, seed=1)
    trace = TURSClassifier(beam_width=4, record_trace=True).fit(X, y).trace_
    d = json.loads(trace.to_json())
    assert d["format"] == "turs-trace/1"
    again = SearchTrace.from_json(trace.to_json())
    assert again.to_dict() == d and again.mode == "full"
    with pytest.raises(ValueError, match="turs-trace/1"):
        SearchTrace.from_dict({**d, "format": "turs-trace/0"})
    ids = [c["id"] for s in d["searches"] for _, c in _all_candidates(s)]
    # an id names one growth: repeated only where one candidate sits in two lists
    by_id = {}
    for s in d["searches"]:
        for _, c in _all_candidates(s):
            assert by_id.setdefault(c["id"], c["literals"]) == c["literals"]
    assert len(set(ids)) > 20
    k, t = next((k, t) for k, s in enumerate(trace.searches) for t, it in enumerate(s["iterations"])
                if it["rejected_by_local_test"])
    rejected = trace.beams(k, t, "rejected")
    assert list(rejected.columns[:2]) == ["conditions", "literals"] and "chosen" in rejected
    assert (~rejected.local_test).all() and len(rejected) <= 4  # at most beam_width of them
    with pytest.raises(ValueError, match="which must be one of"):
        trace.beams(0, 0, "nope")
    assert (trace_mode(False), trace_mode(True), trace_mode("compact"), trace_mode("full")) == (
        None, "full", "compact", "full")
    with pytest.raises(ValueError, match="'record_trace' parameter of TURSClassifier must be a bool, 'full' or"):
        trace_mode("short")


def test_the_estimator_records_a_compact_trace_when_asked():
    X, y = load_bundled("sim-local-testing")
    full = TURSClassifier(record_trace=True).fit(X, y).trace_
    compact = TURSClassifier(record_trace="compact").fit(X, y).trace_
    assert full.mode == "full" and compact.mode == "compact"
    assert len(compact.to_json()) < len(full.to_json())
