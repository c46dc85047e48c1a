"""The competitor adapters (turs.competitors): fit, probabilities, rules agree with predictions.

A competitor whose library is not installed is skipped with the reason (pytest -ra prints it),
unless TURS_REQUIRE_COMPETITORS=1 (CI), where that is a failure. Install them with
`bash .ci/install-competitors.sh`.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import turs.competitors as comp
from turs.bench.adapters import CARTAdapter
from turs.datasets import load_bundled

REQUIRE = os.environ.get("TURS_REQUIRE_COMPETITORS") == "1"

# small settings so the suite stays fast; the benchmark uses the libraries' defaults
FAST = {
    "BRS": {"n_cuts": 2, "num_iterations": 100, "num_chains": 1, "n_rules": 200},
    "BRL": {"n_cuts": 2, "max_iter": 500, "n_chains": 2},
    "RuleFit": {"n_estimators": 20},
    # 9 decile cuts (the default) put none in threshold_data's gap (0.4, 0.6): 19 do
    "submodular": {"lam": 1.0, "positive_class": None, "n_thresholds": 19},
    "lire": {"n_estimators": 20, "gamma": 0.003},
    "lire-rulefit": {"n_estimators": 20, "gamma": 0.003},
}


def need(name: str) -> None:
    reason = comp.available()[name]
    if reason is None:
        return
    msg = f"{name} not installed: {reason}"
    if REQUIRE:
        pytest.fail(f"TURS_REQUIRE_COMPETITORS=1 but {msg}")
    pytest.skip(msg)


def make(name: str, **params):
    need(name)
    return comp.COMPETITORS[name](**{**FAST.get(name, {}), **params})


# ---------------------------------------------------------------- data


def threshold_data(n=60, seed=0):
    """y depends on x0 alone with a gap around 0.5: every learner should make one cut there.

    Labels are strings whose first appearance ('pos') is not classes_[0] ('neg'), and 'neg' is
    the minority, so a class-order mix-up anywhere shows as wrong predictions.
    """
    rng = np.random.default_rng(seed)
    n_pos = n * 2 // 3
    x0 = np.concatenate([rng.uniform(0.6, 1.0, n_pos), rng.uniform(0.0, 0.4, n - n_pos)])
    X = pd.DataFrame({"x0": x0, "x1": rng.uniform(0, 1, n), "x2": rng.integers(0, 2, n).astype(float)})
    y = np.where(x0 > 0.5, "pos", "neg")
    return X, y


def staircase_data(n=90, seed=1):
    """Three classes by two cuts: A if x0 <= .5; else B if x1 <= .5; else C (a 3-leaf tree, 5 literals)."""
    rng = np.random.default_rng(seed)
    x0 = np.concatenate([rng.uniform(0, 0.4, n // 3), rng.uniform(0.6, 1, 2 * n // 3)])
    x1 = np.concatenate([rng.uniform(0, 1, n // 3), rng.uniform(0, 0.4, n // 3), rng.uniform(0.6, 1, n // 3)])
    y = np.array(["A"] * (n // 3) + ["B"] * (n // 3) + ["C"] * (n // 3))
    return pd.DataFrame({"x0": x0, "x1": x1}), y


def iris_subset():
    X, y = load_bundled("sklearn-iris")
    return X.iloc[::2].reset_index(drop=True), np.asarray(y)[::2]


def noisy_binary(n=80, seed=3):
    """Overlapping classes, so that rule models have several rules and overlaps."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    logit = 2 * X["a"] - 1.5 * X["b"] + 0.5 * rng.normal(size=n)
    y = np.where(logit > 0, 1, 0)
    return X, y


ALL = list(comp.COMPETITORS)
MULTICLASS = [n for n in ALL if not comp.COMPETITORS[n].binary_only]


def check_proba(adapter, X):
    P = adapter.predict_proba(X)
    assert P.shape == (len(X), len(adapter.classes_))
    assert np.all(P >= 0) and np.all(P <= 1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)
    if adapter.hard_predictions:
        assert set(np.unique(P)) <= {0.0, 1.0}
    return P


def check_rules_partition(adapter, X, P):
    """Rule lists and trees: the masks partition the rows, and a rule gives one distribution."""
    rules = adapter.rules()
    M = np.column_stack([r.mask(X) for r in rules])
    assert M.dtype == bool and M.shape == (len(X), len(rules))
    np.testing.assert_array_equal(M.sum(axis=1), 1)  # each row is used by exactly one rule
    for r, m in zip(rules, M.T):
        if m.any():
            np.testing.assert_allclose(P[m], np.broadcast_to(P[m][0], P[m].shape), atol=1e-12,
                                       err_msg=r.text)
    defaults = [r for r in rules if r.is_default]
    assert all(r.n_literals == 0 for r in defaults)
    return rules


# ---------------------------------------------------------------- every adapter


@pytest.mark.parametrize("name", ALL)
def test_fit_predicts_training_labels_in_classes_order(name):
    """On cleanly separable data every learner predicts its training labels (class order mapped back)."""
    X, y = threshold_data()
    a = make(name).fit(X, y)
    assert list(a.classes_) == ["neg", "pos"]
    P = check_proba(a, X)
    assert np.mean(a.classes_[P.argmax(axis=1)] == y) >= 0.95
    assert a.fit_seconds_ > 0
    assert a.n_literals() == sum(r.n_literals for r in a.rules())


@pytest.mark.parametrize("name", MULTICLASS)
def test_multiclass_iris(name):
    X, y = iris_subset()
    a = make(name).fit(X, y)
    P = check_proba(a, X)
    assert np.mean(a.classes_[P.argmax(axis=1)] == y) >= 0.9
    for r in a.rules():
        assert r.mask(X).shape == (len(X),)
        assert isinstance(r.text, str) and r.text


@pytest.mark.parametrize("name", ["C45", "RIPPER", "OneR", "CLASSY"])
@pytest.mark.parametrize("data", ["iris", "noisy"])
def test_rule_masks_give_the_predicted_distribution(name, data):
    X, y = iris_subset() if data == "iris" else noisy_binary()
    a = make(name).fit(X, y)
    P = check_proba(a, X)
    check_rules_partition(a, X, P)
    # also on rows not seen in training
    Xt = X + np.random.default_rng(5).normal(scale=0.3, size=X.shape)
    check_rules_partition(a, Xt, a.predict_proba(Xt))


def test_brl_rule_masks_give_the_predicted_distribution():
    X, y = noisy_binary()
    a = make("BRL").fit(X, y)
    P = check_proba(a, X)
    rules = check_rules_partition(a, X, P)
    # the rule text carries P(positive); it matches predict_proba on its rows
    for r in rules:
        m = r.mask(X)
        if m.any():
            theta = float(r.text.rsplit("=", 1)[1])
            assert P[m][0, 1] == pytest.approx(theta, abs=5e-3)


def test_classy_rules_reproduce_library_probabilities():
    X, y = iris_subset()
    a = make("CLASSY").fit(X, y)
    np.testing.assert_allclose(a.predict_proba_from_rules(X), a.predict_proba(X), atol=1e-12)


# ---------------------------------------------------------------- literal counts by construction


@pytest.mark.parametrize("name, literals", [("C45", 2), ("RIPPER", 1), ("OneR", 2), ("CLASSY", 1)])
def test_literals_single_cut(name, literals):
    """One cut on x0: a tree has 2 leaves of depth 1 (2 literals); RIPPER and CLASSY one
    one-literal rule plus the default rule; OneR two one-literal intervals."""
    X, y = threshold_data()
    a = make(name).fit(X, y)
    assert a.n_literals() == literals, [r.text for r in a.rules()]


def test_cart_literals_single_cut():
    X, y = threshold_data()
    assert CARTAdapter().fit(X, y).n_literals() == 2


def test_c45_literals_staircase():
    """Leaves at depths 1, 2, 2: 5 literals, and the leaves say which conditions they hold."""
    X, y = staircase_data()
    a = make("C45").fit(X, y)
    rules = a.rules()
    assert sorted(r.n_literals for r in rules) == [1, 2, 2]
    assert a.n_literals() == 5
    assert any(r.text.startswith("IF x0 <= 0.") for r in rules)
    check_rules_partition(a, X, a.predict_proba(X))


# ---------------------------------------------------------------- CN2 (unordered rule set)


def test_cn2_rule_set_and_random_picking():
    X, y = noisy_binary(120)
    a = make("CN2").fit(X, y)
    P = check_proba(a, X)
    rules = a.rules()
    body, default = rules[:-1], rules[-1]
    assert default.is_default and default.n_literals == 0
    assert all(r.n_literals >= 1 for r in body)
    C = np.column_stack([r.mask(X) for r in body])
    np.testing.assert_array_equal(default.mask(X), ~C.any(axis=1))
    probs = np.array([np.asarray(r.probabilities)[a.class_order_] for r in a.rules_])
    hits = C.sum(axis=1)
    assert (hits > 1).any(), "the test data should make CN2 rules overlap"
    one = hits == 1
    np.testing.assert_allclose(P[one], probs[C[one].argmax(axis=1)], atol=1e-12)
    R = a.predict_proba_random(X, np.random.default_rng(0))
    np.testing.assert_allclose(R[hits <= 1], P[hits <= 1], atol=1e-12)
    for i in np.flatnonzero(hits > 1):
        assert any(np.allclose(R[i], probs[j]) for j in np.flatnonzero(C[i]))
    # seeded: the same generator state gives the same picks
    np.testing.assert_array_equal(R, a.predict_proba_random(X, np.random.default_rng(0)))


# ---------------------------------------------------------------- BRS (binary, hard predictions)


def test_brs_rules_predict_positive_class():
    X, y = threshold_data()
    a = make("BRS").fit(X, y)
    P = check_proba(a, X)
    assert a.classes_[a.positive_index_] == "neg"  # the minority class
    rules = a.rules()
    covered = np.column_stack([r.mask(X) for r in rules[:-1]]).any(axis=1) if len(rules) > 1 \
        else np.zeros(len(X), bool)
    np.testing.assert_array_equal(P[:, a.positive_index_] == 1, covered)
    np.testing.assert_array_equal(rules[-1].mask(X), ~covered)


def test_binary_only_learner_refuses_three_classes():
    X, y = iris_subset()
    with pytest.raises(ValueError, match="two classes only"):
        make("BRS").fit(X, y)


# ---------------------------------------------------------------- Weka JVM


def test_weka_jvm_starts_once_and_serves_several_models():
    need("C45")
    from turs.competitors import weka

    X, y = threshold_data()
    first = make("C45").fit(X, y)
    assert weka.jvm_running()
    make("RIPPER").fit(X, y)
    weka.start_jvm()  # a second start is a no-op
    np.testing.assert_allclose(first.predict_proba(X), first.predict_proba(X))


# ---------------------------------------------------------------- no library / registration


def test_missing_library_raises_import_error_with_hint(monkeypatch):
    import turs.competitors._common as common

    monkeypatch.setattr(common.importlib.util, "find_spec", lambda name: None)
    for name, cls in comp.COMPETITORS.items():
        if not cls.requires:  # written in turs (the seed papers' learners): nothing to install
            cls()
            assert comp.available()[name] is None
            continue
        with pytest.raises(ImportError, match="install-competitors.sh"):
            cls()
        assert comp.available()[name] is not None


def test_register_all_registers_every_competitor():
    seen = {}
    comp.register_all(lambda name, factory: seen.setdefault(name, factory))
    assert seen == comp.COMPETITORS
    assert {"BRS", "C45", "CLASSY", "RIPPER", "CN2", "submodular", "lire"} <= set(seen)
    from turs.bench import get_algorithm

    assert get_algorithm("submodular").factory is comp.SubmodularAdapter
    assert get_algorithm("lire").factory is comp.LIREAdapter


@pytest.mark.subprocess
def test_importing_turs_loads_no_competitor_library():
    code = (
        "import sys, turs, turs.competitors, turs.competitors.weka\n"
        "heavy = {'weka', 'jpype', 'Orange', 'rulelist', 'imodels', 'mlxtend', 'gmpy2'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- reported DRS / IDS


def test_reported_results_are_the_thesis_numbers():
    df = comp.reported_results()
    assert set(df["algorithm"]) == {"DRS", "IDS"}
    assert (df["source"] == "reported").all()
    assert df.groupby("algorithm").size().to_dict() == {"DRS": 31, "IDS": 31}
    row = df.set_index(["dataset", "algorithm"])
    assert row.loc[("iris", "DRS"), "roc_auc"] == 0.954
    assert row.loc[("iris", "IDS"), "roc_auc"] == 0.810
    assert row.loc[("iris", "IDS"), "n_literals"] == 10.4
    assert row.loc[("car", "DRS"), "n_literals"] == 307.6
    assert np.isnan(row.loc[("backdoor", "DRS"), "roc_auc"])  # "—" in Table 3.3
    assert np.isnan(row.loc[("musk", "DRS"), "roc_auc"])
    with pytest.raises(ValueError, match="No reported results"):
        comp.reported_results(["XYZ"])


def test_brs_upstream_clean_move_fix_is_applied():
    need("BRS")
    from turs.competitors.imodels_ import _brs_class

    assert _brs_class()._propose.__code__.co_filename.startswith("<patched")


def test_install_script_and_competitors_extra_agree():
    """The packages .ci/install-competitors.sh installs with their dependencies are the
    `competitors` extra of pyproject.toml (Orange3, orange-canvas-core and rulelist are
    --no-deps installs, so they cannot be in the extra)."""
    import re
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")
    repo = Path(__file__).resolve().parent.parent
    script = (repo / ".ci" / "install-competitors.sh").read_text()
    block = re.search(r"^NORMAL=\((.*?)^\)", script, re.S | re.M).group(1)
    in_script = {re.sub(r"[-_.]+", "-", m).lower()
                 for m in re.findall(r'"([A-Za-z0-9][A-Za-z0-9._-]*)', block)}
    extra = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    listed = extra.get("competitors", [])
    if not listed:
        pytest.skip("pyproject.toml's `competitors` extra is still empty")
    in_extra = {re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", r).group(0)).lower() for r in listed}
    assert in_script == in_extra
    assert {"python-weka-wrapper3", "imodels"} <= in_script


# ---------------------------------------------------------------- local explanations


@pytest.mark.parametrize("name", ALL)
def test_every_prediction_has_an_explanation_of_its_kind(name):
    """explain(): a rule set's rows are explained by their covering rules or the default; a rule
    list's by a prefix ending at the rule used for the row; a partition's by its own rule; an
    additive model's by its covering rules."""
    X, y = noisy_binary()
    a = make(name).fit(X, y)
    rules = a.rules()
    masks = np.column_stack([r.mask(X) for r in rules])
    E = a.explain(X)
    assert E.shape == masks.shape and E.dtype == bool
    mode = a.explanation_mode()
    default = np.array([r.is_default for r in rules])
    if mode == "leaf":
        np.testing.assert_array_equal(E, masks)
        np.testing.assert_array_equal(E.sum(axis=1), 1)
    elif mode in ("covering", "additive"):
        np.testing.assert_array_equal(E[:, ~default], masks[:, ~default])
        if default.any():
            np.testing.assert_array_equal(E[:, default].any(axis=1), ~masks[:, ~default].any(axis=1))
    else:  # prefix: per row, the explained rules of each list are a prefix ending where the row is used
        assert mode == "prefix"
        for i in range(len(X)):
            last = np.flatnonzero(E[i])[-1]
            assert masks[i, last]
            assert E[i, : last + 1].all() or default.sum() > 1  # one list: a contiguous prefix


def test_seed_learners_rules_give_their_predictions():
    X, y = threshold_data()
    a = make("submodular").fit(X, y)
    P = a.predict_proba(X)
    rules = a.rules()
    covered = np.column_stack([r.mask(X) for r in rules[:-1]]).any(axis=1)
    pos = list(a.classes_).index(a.model_.positive_class_)
    np.testing.assert_allclose(P[covered, pos], a.model_.covered_proba_)
    np.testing.assert_array_equal(rules[-1].mask(X), ~covered)
    b = make("lire").fit(X, y)
    E = b.explain(X)
    np.testing.assert_array_equal(E.sum(axis=1), b.model_.local_support(X))
    f = b.model_.intercept_ + E.astype(float) @ b.model_.coef_
    np.testing.assert_allclose(b.predict_proba(X)[:, 1], 1 / (1 + np.exp(-2 * f)))
