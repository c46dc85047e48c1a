"""Why the search did what it did, in numbers and in words (no widgets here).

Everything is read from the trace fields of ``docs/trace.md``: candidate ``id`` / ``parent_id``,
the search's ``lineage``, ``chosen`` and ``runner_up`` with their ``mdl_change`` by part,
``local_test_bits`` / ``aux_local_test_bits`` of every growth, and ``stop`` / ``fit_stop``.
A trace written before those fields existed still works: what it lacks is said, not guessed.

* :func:`lineage_rows`: how the chosen rule grew from the empty rule, one row per literal, with
  the main beam at that depth and its best other candidate (the loser) and the margin in ``r``.
* :func:`why_rule`: the chosen rule against the runner-up, the MDL change by part.
* :func:`rejected_rows`: growths the local tests rejected at one beam iteration, both sides.
* :func:`search_stop_text`, :func:`fit_stop_text`: the stop reasons in words.
"""
from __future__ import annotations

import math
import re

_ID = re.compile(r"^r(\d+)-i(\d+)-(\d+)$")

#: The MDL parts of ``mdl_change`` (``turs.mdl.MDLBreakdown`` names) and what each one is.
PARTS = [
    ("model_bits", "model code L(M)", "the code of the rules themselves (Eq. 3.18)"),
    ("data_bits", "data code", "the labels given the rules, -log2 of the likelihood (Eq. 3.6)"),
    ("regret_bits", "regret", "the NML regret of one more class distribution (Eq. 3.12)"),
]


def iteration_of(candidate_id) -> int | None:
    """The beam iteration a candidate was grown in (from its id ``r{k}-i{t}-{n}``); None for the empty rule."""
    m = _ID.match(str(candidate_id or ""))
    return int(m.group(2)) if m else None


def conditions_text(candidate) -> str:
    if candidate is None:
        return "(none)"
    return " AND ".join(candidate.get("conditions") or []) or "(the empty rule: every row)"


def _r(c):
    v = None if c is None else c.get("r")
    return -math.inf if v is None else float(v)


# ------------------------------------------------------------------------ lineage
def lineage_rows(trace, k: int) -> list[dict]:
    """The chosen rule of search ``k`` from the empty rule on, one dict per step.

    Keys: ``depth`` (0 for the empty rule), ``id``, ``added`` (the literal added, as text),
    ``conditions``, ``coverage``, ``r``, ``iteration`` (the beam iteration it was grown in),
    ``beam_size`` (the main beam of that iteration), ``rank`` (its place in that beam by ``r``,
    1 = best; None when the reduction kept it only in the auxiliary beam), ``loser`` (the best
    other candidate of that main beam, or None), ``margin`` (``r`` of this step minus the
    loser's; negative when the step was not the best of its beam but its descendants won),
    ``n_rejected`` (growths the main local test rejected in that iteration).
    Empty when the trace has no lineage (written before ``lineage`` existed, or no rule).
    """
    s = trace.searches[k]
    if not s.get("lineage"):
        return []
    nodes = trace.lineage(k)
    rows = []
    for depth, c in enumerate(nodes):
        it = iteration_of(c.get("id"))
        row = {"depth": depth, "id": c.get("id"), "added": c.get("added_condition"),
               "conditions": conditions_text(c) if depth else "(every row)", "coverage": c.get("coverage"),
               "r": c.get("r"), "iteration": it, "beam_size": None, "rank": None, "loser": None,
               "margin": None, "n_rejected": None}
        if it is not None and it < len(s["iterations"]):
            iteration = s["iterations"][it]
            beam = iteration["main_beam"]
            row["beam_size"] = iteration.get("main_beam_size", len(beam))
            order = sorted(beam, key=lambda x: -_r(x))
            ids = [x.get("id") for x in order]
            if c.get("id") in ids:
                row["rank"] = ids.index(c.get("id")) + 1
            others = [x for x in order if x.get("id") != c.get("id")]
            if others:
                row["loser"] = others[0]
                if c.get("r") is not None and others[0].get("r") is not None:
                    row["margin"] = float(c["r"]) - float(others[0]["r"])
            row["n_rejected"] = iteration.get("n_rejected_by_local_test", len(iteration["rejected_by_local_test"]))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- why
def why_rule(search: dict) -> dict:
    """The chosen rule against the runner-up: ``parts`` (rows of part, chosen, runner-up, both
    in bits, None where unknown), ``sentences`` (the same in words) and ``chosen`` / ``runner_up``."""
    chosen, runner = search.get("chosen"), search.get("runner_up")
    out = {"chosen": chosen, "runner_up": runner, "parts": [], "sentences": []}
    if chosen is None:
        out["sentences"].append("This rule search found no candidate at all.")
        return out
    cm = chosen.get("mdl_change")
    rm = runner.get("mdl_change") if runner else None
    for key, name, meaning in PARTS + [("total", "total", "the whole MDL score L(D, M) (Eq. 3.20)")]:
        out["parts"].append({"part": name, "key": key, "meaning": meaning,
                             "chosen": None if cm is None else cm.get(key),
                             "runner_up": None if rm is None else rm.get(key)})
    words = out["sentences"]
    verdict = "was added to the rule set" if search.get("accepted") else "was not added"
    words.append(f"The search returned \u201c{conditions_text(chosen)}\u201d (r = {_fmt(chosen.get('r'))}); it {verdict}.")
    if cm is None:
        words.append("This trace does not record the MDL change by part (record it again with this version of turs).")
    else:
        words.append(_change_words("Adding it", cm, chosen))
    if runner is not None:
        margin = _r(chosen) - _r(runner)
        words.append(f"The runner-up \u201c{conditions_text(runner)}\u201d has r = {_fmt(runner.get('r'))}: "
                     f"it lost by {margin:.3g} in r, the score the search ranks by (Eq. 3.21).")
        flipped = complement_condition(chosen, runner)
        if flipped is not None:
            words.append(f"The runner-up is the other side of the same cut ({flipped[0]} against {flipped[1]}): it "
                         "covers the rows the chosen rule leaves out of its parent. "
                         + ("The two score the same r (a tie): by r the data cannot tell them apart, and "
                            "which one is kept is the search's tie rule, not a lesson." if abs(margin) < 1e-9 else
                            "Both sides of a cut are always candidates; the search keeps the side whose rows "
                            "are learned faster (higher r)."))
        if rm is not None and cm is not None:
            words.append(f"Added instead, it would change the MDL score by {rm['total']:+.1f} bits "
                         f"(the chosen rule: {cm['total']:+.1f} bits).")
    elif search.get("chosen") is not None:
        words.append("There was no runner-up: every other final candidate had the same literals.")
    return out


_SIDES = ((" < ", " >= "), (" >= ", " < "), (" = ", " != "), (" != ", " = "))


def complement_condition(a: dict, b: dict):
    """``(condition of a, condition of b)`` when the candidates differ in one condition only and
    those two are the two sides of one cut (``X1 < 0.5`` / ``X1 >= 0.5``, ``c = u`` / ``c != u``);
    else None."""
    ca, cb = list(a.get("conditions") or []), list(b.get("conditions") or [])
    if len(ca) != len(cb) or not ca:
        return None
    only_a = [c for c in ca if c not in cb]
    only_b = [c for c in cb if c not in ca]
    if len(only_a) != 1 or len(only_b) != 1:
        return None
    for one, other in _SIDES:
        head, sep, value = only_a[0].rpartition(one)
        if sep and only_b[0] == f"{head}{other}{value}" and one.strip() not in head:
            return only_a[0], only_b[0]
    return None


def _change_words(subject: str, change: dict, cand: dict) -> str:
    n_lit = len(cand.get("literals") or [])
    data = change["data_bits"]
    parts = [
        f"{subject} changes the MDL score by {change['total']:+.1f} bits:",
        f"the data code by {data:+.1f} bits ({'the labels of the rows it covers are cheaper to send with its own class distribution' if data < 0 else 'the labels cost more with it'}),",
        f"the regret by {change['regret_bits']:+.1f} bits (one more class distribution to pay for),",
        f"and the model code by {change['model_bits']:+.1f} bits (the rule's {n_lit} literal{'s' if n_lit != 1 else ''}).",
    ]
    return " ".join(parts)


def _fmt(v, spec=".3g"):
    return "undefined" if v is None else format(float(v), spec)


# ----------------------------------------------------------------------- rejected
def _growth_rows(trace, k: int, it: int, sources, limit: int | None, measured_only: bool) -> list[dict]:
    """The rows of :func:`rejected_rows` and :func:`passed_rows`: for each ``(test, list key, bits
    key, score)`` of ``sources``, the growths listed under that key at iteration ``it`` of search
    ``k`` (at most ``limit`` of each), with both sides of their local test; ``measured_only``
    leaves out growths whose test the trace did not record."""
    s = trace.searches[k]
    if it >= len(s["iterations"]):
        return []
    iteration = s["iterations"][it]
    by_id = trace.candidates(k) if s.get("empty_rule") else {}
    rows = []
    for test, key, bits_key, score in sources:
        for c in iteration.get(key, [])[:limit]:
            bits = c.get(bits_key) or {}
            w, wo = bits.get("bits_with_split"), bits.get("bits_without_split")
            if measured_only and (w is None or wo is None):
                continue
            parent = by_id.get(c.get("parent_id"))
            rows.append({"test": test, "id": c.get("id"), "conditions": conditions_text(c),
                         "parent": None if parent is None else (conditions_text(parent) if parent.get("conditions")
                                                                else "(empty rule)"),
                         "added": c.get("added_condition"), "score": c.get(score), "with": w, "without": wo,
                         "excess": None if w is None or wo is None else w - wo, "literals": c.get("literals")})
            if measured_only:
                rows[-1]["passed"] = bool(bits.get("passed", True))
    return rows


def rejected_rows(trace, k: int, it: int, limit: int | None = None) -> list[dict]:
    """Growths the local tests rejected at iteration ``it`` of search ``k`` (main test first),
    best first: ``test`` (``"main"`` Eq. 3.22 / ``"aux"`` Eq. 3.25), ``id``, ``conditions``,
    ``parent`` (the parent's conditions), ``added``, ``r`` / ``R``, ``without`` and ``with``
    (both sides of the test in bits, None when the trace lacks them) and ``excess``
    (``with - without``: by how many bits the split fails to pay for itself)."""
    return _growth_rows(trace, k, it, (("main", "rejected_by_local_test", "local_test_bits", "r"),
                                       ("aux", "aux_rejected_by_local_test", "aux_local_test_bits", "R")),
                        limit, measured_only=False)


def passed_rows(trace, k: int, it: int) -> list[dict]:
    """The growths in the beams at iteration ``it`` of search ``k`` that passed their local test,
    with both sides (as :func:`rejected_rows`; ``excess`` is negative: the bits the split saves).
    The empty rule's first growths have no parent's test recorded and are left out."""
    return _growth_rows(trace, k, it, (("main", "main_beam", "local_test_bits", "r"),
                                       ("aux", "aux_beam", "aux_local_test_bits", "R")),
                        None, measured_only=True)


def n_rejected(trace, k: int, it: int) -> tuple[int, int]:
    """How many growths the main and the auxiliary local test rejected at one iteration."""
    s = trace.searches[k]
    if it >= len(s["iterations"]):
        return 0, 0
    i = s["iterations"][it]
    return (i.get("n_rejected_by_local_test", len(i.get("rejected_by_local_test", []))),
            i.get("n_aux_rejected_by_local_test", len(i.get("aux_rejected_by_local_test", []))))


# --------------------------------------------------------------------------- stops
_SEARCH_STOP = {
    "all_growths_rejected": "every growth of the beam was rejected by the local test (Eq. 3.22, 3.25)",
    "beam_empty": "no growth covered new rows, so the beams were empty",
    "no_improvement_k_stop": "{worse_in_a_row} iterations in a row found no better candidate (k_stop = {k_stop})",
    "max_iterations": "it reached the limit of beam iterations",
}


def search_stop_text(search: dict) -> str:
    """Why one rule search stopped, in words (``stop`` of the trace)."""
    stop = search.get("stop") or {}
    reason = stop.get("reason")
    if reason is None:
        return "stop reason not recorded in this trace"
    text = _SEARCH_STOP.get(reason, reason).format(**{"worse_in_a_row": "k_stop", "k_stop": "?", **stop})
    at = stop.get("iteration")
    return f"stopped at beam iteration {at + 1}: {text}" if at is not None else f"stopped: {text}"


def fit_stop_text(trace) -> str:
    """Why the whole fit stopped, in words (``fit_stop`` on the last search)."""
    stop = trace.fit_stop if hasattr(trace, "fit_stop") else None
    if not stop:
        return "The trace does not record why the fit stopped."
    reason = stop.get("reason")
    last = len(trace.searches)
    if reason == "rule_not_accepted":
        change = (stop.get("mdl_change") or {}).get("total")
        change_text = f"would change the MDL score by {change:+.1f} bits" if change is not None else ""
        if stop.get("criterion") == "r_positive":
            why = f"its r = {_fmt(stop.get('r'))} is not positive (the default search accepts r > 0)"
        else:
            why = "the MDL score must decrease"
        return f"The fit stopped after rule search {last}: its best rule {change_text}; {why}.".replace(" ;", ";")
    if reason == "no_candidate":
        return (f"The fit stopped after rule search {last}: it found no candidate "
                f"({_SEARCH_STOP.get(stop.get('search_stop'), stop.get('search_stop') or 'no reason recorded')}).")
    if reason == "max_rules":
        return f"The fit stopped: max_rules = {stop.get('max_rules')} rules were accepted."
    return f"The fit stopped: {reason}."

