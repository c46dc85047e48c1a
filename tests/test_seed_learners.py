"""The seed papers' learners re-implemented from their equations: submodular rule sets (seed 004)
and LIRE (seed 002). Slow, obviously-correct twins written from the papers' formulas check the
fast code on seeded random data; the estimators pass scikit-learn's checks.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from turs.competitors import submodular as sm
from turs.competitors import submodular_solvers as sms
from turs.competitors._rules import Condition, Conjunction


# ------------------------------------------------------------------------------ twins
def naive_cover(Z, rule):
    """Rows where every literal of ``rule`` holds, one row at a time."""
    return np.array([all(Z[i, j] for j in rule) for i in range(Z.shape[0])], dtype=bool)


def naive_loss(Z, positive, rules, b0, b1, b2, lam):
    """L(S) as the slide writes it: FP per rule, FN, overlap, complexity."""
    covs = [naive_cover(Z, r) for r in rules]
    union = np.zeros(len(positive), bool)
    for c in covs:
        union |= c
    fp = sum(int(np.sum(c & ~positive)) for c in covs)
    fn = int(np.sum(positive & ~union))
    overlap = sum(int(np.sum(c & positive)) for c in covs) - int(np.sum(union & positive))
    return b0 * fp + b1 * fn + b2 * overlap + lam * sum(len(r) for r in rules)


def brute_force_subproblem(Z, w, lam, max_len):
    """max over all rules of at most ``max_len`` literals of v(R), by enumeration."""
    best = (float(w.sum()), ())
    for k in range(1, max_len + 1):
        for rule in itertools.combinations(range(Z.shape[1]), k):
            v = float(w[naive_cover(Z, rule)].sum() - lam * k)
            if v > best[0] + 1e-9:
                best = (v, rule)
    return best


def random_instance(seed, n=60, d=8):
    rng = np.random.default_rng(seed)
    Z = rng.random((n, d)) < rng.uniform(0.3, 0.8, d)
    positive = rng.random(n) < 0.5
    w = np.where(positive, rng.uniform(0.2, 1.0), -1.0) * rng.uniform(0.5, 1.5, n)
    return Z, positive, w


# ------------------------------------------------------------------------------ binarisation
def test_threshold_literals_count_as_table_1():
    """10 columns with many values -> 9 thresholds x 2 directions each (magic: 180); a 0/1
    column -> x = 1 and x = 0; a constant column -> nothing."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 10))
    assert len(sm.threshold_literals(X, 9)) == 180
    X2 = np.column_stack([rng.integers(0, 2, 50), np.ones(50), rng.integers(0, 3, 50)]).astype(float)
    lits = sm.threshold_literals(X2, 9, ["b", "c", "t"])
    assert [str(c) for c in lits] == ["b <= 0", "b > 0", "t <= 0", "t <= 1", "t > 0", "t > 1"]
    Z = sm.literal_matrix(X2, lits)
    for j, c in enumerate(lits):
        np.testing.assert_array_equal(Z[:, j], c.holds(X2))


# ------------------------------------------------------------------------------ objective
@pytest.mark.parametrize("seed", range(4))
def test_objective_is_the_slide_loss_rearranged(seed):
    """L(S) = b1 |X+| - V(S) for random rule sets (the slide's "reorganize" step)."""
    Z, positive, _ = random_instance(seed)
    rng = np.random.default_rng(seed)
    rules = [list(rng.choice(Z.shape[1], rng.integers(1, 4), replace=False)) for _ in range(3)]
    b0, b1, b2, lam = 1.3, 0.9, 0.2, 0.7
    V = sm.objective_value(Z, positive, rules, b0, b1, b2, lam)
    assert b1 * positive.sum() - V == pytest.approx(naive_loss(Z, positive, rules, b0, b1, b2, lam))


@pytest.mark.parametrize("seed", range(4))
def test_rule_value_matches_the_twin(seed):
    Z, _, w = random_instance(seed)
    for rule in ([], [0], [1, 3], [2, 4, 5]):
        assert sm.rule_value(Z, w, 0.4, rule) == pytest.approx(
            float(w[naive_cover(Z, rule)].sum() - 0.4 * len(rule)))


# ------------------------------------------------------------------------------ subproblem
@pytest.mark.parametrize("seed", range(6))
def test_branch_and_bound_is_exact(seed):
    Z, _, w = random_instance(seed, d=7)
    D = sms._Data(Z)
    rule, value, finished = sm.solve_bnb(D, w, 0.5)
    best_v, _ = brute_force_subproblem(Z, w, 0.5, 7)
    assert finished
    assert value == pytest.approx(best_v)
    assert sm.rule_value(Z, w, 0.5, rule) == pytest.approx(value)


def test_branch_and_bound_prunes_a_feature_twice_but_stays_exact():
    """Two thresholds on one feature in one direction are never both needed (groups)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    lits = sm.threshold_literals(X, 3)
    Z = sm.literal_matrix(X, lits)
    w = np.where(X[:, 0] + X[:, 1] > 0.3, 1.0, -1.0)
    rule, value, finished = sm.solve_bnb(sms._Data(Z, sm.literal_groups(lits)), w, 0.3)
    plain, plain_v, _ = sm.solve_bnb(sms._Data(Z), w, 0.3)
    assert finished and value == pytest.approx(plain_v)
    assert len(set(sm.literal_groups(lits)[rule])) == len(rule)


@pytest.mark.parametrize("seed", range(6))
def test_refinement_never_below_its_greedy_start_nor_above_the_optimum(seed):
    Z, _, w = random_instance(seed, d=8)
    D = sms._Data(Z)
    greedy = sm.rule_value(Z, w, 0.5, sms._greedy_grow(D, w, 0.5, None))
    rule, value, steps = sm.solve_refine(D, w, 0.5)
    best_v, _ = brute_force_subproblem(Z, w, 0.5, 8)
    assert greedy - 1e-9 <= value <= best_v + 1e-9
    assert sm.rule_value(Z, w, 0.5, rule) == pytest.approx(value)
    assert steps >= 1


def test_refinement_exchanges_a_literal_greedy_cannot():
    """Literal a is pure but covers 6 of 10 positives; b and c cover all positives and 5
    negatives each, b AND c no negative. Greedy stops at {a} (v = 6 - lam); the chain through
    {a} - a = {} with a moved last credits b and c with 5 negatives each, and the cut takes both."""
    n_pos, lam = 10, 0.1
    Z = np.zeros((20, 3), dtype=bool)
    Z[:6, 0] = True  # a
    Z[:15, 1] = True  # b: all positives, negatives 10-14
    Z[:10, 2] = Z[15:, 2] = True  # c: all positives, negatives 15-19
    w = np.r_[np.ones(n_pos), -np.ones(10)]
    D = sms._Data(Z)
    assert sms._greedy_grow(D, w, lam, None) == [0]
    rule, value, steps = sm.solve_refine(D, w, lam, n_seeds=0)  # no bottom-up start: the chains do it
    assert sorted(rule) == [1, 2] and value == pytest.approx(10 - 2 * lam) and steps == 2
    assert brute_force_subproblem(Z, w, lam, 3)[0] == pytest.approx(value)


@pytest.mark.parametrize("seed", range(5))
def test_max_closure_enumeration_and_cut_agree_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    m, r = 6, 25
    profit = rng.uniform(0.5, 3.0, m)
    cost = rng.uniform(0.1, 1.0, r)
    E = rng.random((m, r)) < 0.25

    def score(mask):
        return float(profit[mask].sum() - cost[E[mask].any(axis=0)].sum())

    best = max(score(np.array(bits, bool)) for bits in itertools.product([0, 1], repeat=m))
    by_enum = sm.max_closure(profit, cost, E, enumerate_below=13)
    by_cut = sm.max_closure(profit, cost, E, enumerate_below=0)
    assert score(by_enum) == pytest.approx(best)
    assert score(by_cut) == pytest.approx(best, abs=1e-6)


# ------------------------------------------------------------------------------ greedy
def test_distorted_greedy_weights_and_stop():
    """One pure rule explains the positives: step 1 (factor (1 - 1/2)^1 = .5) already adds it,
    step 2 finds nothing with v > 0 (covered positives weigh -b2)."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
    positive = np.array([False, False, False, True, True, True])
    lits = sm.threshold_literals(X, 9)
    Z = sm.literal_matrix(X, lits)
    rules, trace = sm.distorted_greedy(Z, positive, 1.0, 1.0, 0.5, 0.25, K=2, groups=sm.literal_groups(lits))
    assert [str(lits[j]) for j in rules[0]] == ["x0 > 0"]
    # v_1 = 3 * (.5 * 1.5 - .5) - .25 = .5
    assert trace[0]["value"] == pytest.approx(0.5) and trace[0]["added"]
    assert not trace[1]["added"] and len(rules) == 1
    assert sm.objective_value(Z, positive, rules, 1.0, 1.0, 0.5, 0.25) == pytest.approx(3 * 1.5 - 3 * 0.5 - 0.25)


# ------------------------------------------------------------------------------ estimator
def test_predict_proba_is_the_training_frequency_of_covered_rows():
    X, y = load_breast_cancer(return_X_y=True)
    m = sm.SubmodularRuleSetClassifier(lam=3.0, positive_class=1).fit(X, y)
    cov = m.apply(X).any(axis=1)
    assert m.covered_proba_ == pytest.approx((np.sum(y[cov] == 1) + 1) / (cov.sum() + 2))
    P = m.predict_proba(X)
    np.testing.assert_allclose(P[cov, 1], m.covered_proba_)
    np.testing.assert_allclose(P[~cov, 1], m.uncovered_proba_)
    # the printed rules are the ones apply() evaluates
    assert str(m).count("\nOR (") == len(m.rules_) - 1
    for r, col in zip(m.rules_, m.apply(X).T):
        np.testing.assert_array_equal(r.covers(X), col)


def test_dataframe_names_appear_in_the_rules():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    m = sm.SubmodularRuleSetClassifier(lam=3.0, positive_class=None).fit(X, y)
    assert any("worst" in str(r) or "mean" in str(r) for r in m.rules_)


@pytest.mark.slow
def test_breast_cancer_three_fold_accuracy():
    """The submodular rule set reaches >= 0.90 mean 3-fold accuracy with the default settings."""
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    acc = cross_val_score(sm.SubmodularRuleSetClassifier(), X, y, cv=cv)
    assert acc.mean() >= 0.90, acc


def test_bad_parameters_are_named():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="The 'K' parameter of SubmodularRuleSetClassifier must be an int >= 1 or 'auto'. Got 0 instead"):
        sm.SubmodularRuleSetClassifier(K=0).fit(X, y)
    with pytest.raises(ValueError, match="'cv' parameter"):
        sm.SubmodularRuleSetClassifier(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        sm.SubmodularRuleSetClassifier().fit(X[:30], np.arange(30) % 3)


@parametrize_with_checks([sm.SubmodularRuleSetClassifier(lam=1.0, positive_class=None)])
def test_sklearn_checks(estimator, check):
    check(estimator)


def test_value_objects():
    c = Condition(1, "<=", 2.5, "age")
    assert str(c) == "age <= 2.5" and str(c.negated()) == "age > 2.5"
    r = Conjunction((c, Condition(0, ">", 0.0)))
    X = np.array([[1.0, 2.0], [0.0, 2.0], [1.0, 3.0]])
    np.testing.assert_array_equal(r.covers(X), [True, False, False])
    assert str(Conjunction()) == "TRUE" and len(r) == 2
    with pytest.raises(ValueError, match="op must be"):
        Condition(0, "<", 1.0)


# ============================================================================== LIRE (seed 002)
from turs.competitors import lire as lr  # noqa: E402


def naive_G(R, y, alpha, b, gamma, lam, s=0.0):
    """Problem 2 term by term: (1/N) sum exp(-y f) + gamma |supp| + lam (1/N) sum |lsupp| / |supp|."""
    N = R.shape[1]
    supp = [m for m in range(len(alpha)) if alpha[m] != 0]
    loss = 0.0
    local = 0.0
    for n in range(N):
        f = b + sum(alpha[m] * R[m, n] for m in range(len(alpha)))
        loss += np.exp(-y[n] * f) / N
        local += sum(1 for m in supp if R[m, n]) / N
    omega = local / len(supp) if supp else 0.0
    smooth = s * sum(np.exp(alpha[m]) + np.exp(-alpha[m]) - 2 for m in supp)
    return loss + smooth + gamma * len(supp) + lam * omega


def lire_instance(seed, M=8, N=40):
    rng = np.random.default_rng(seed)
    R = (rng.random((M, N)) < rng.uniform(0.2, 0.7, (M, 1))).astype(np.float32)
    y = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    alpha = np.where(rng.random(M) < 0.5, rng.normal(size=M), 0.0)
    return R, y, alpha


@pytest.mark.parametrize("seed", range(4))
def test_lire_objective_matches_the_twin(seed):
    R, y, alpha = lire_instance(seed)
    for s in (0.0, 0.01):
        assert lr.lire_objective(R, y, alpha, 0.3, 0.01, 0.5, s) == pytest.approx(naive_G(R, y, alpha, 0.3, 0.01, 0.5, s))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_theorem_1_is_the_coordinate_minimiser(seed):
    """For a rule m outside the support, Theorem 1's weight minimises G over alpha_m (checked on a
    fine grid), for the paper's loss (s = 0) and the smoothed one."""
    R, y, alpha = lire_instance(seed)
    m = int(np.flatnonzero(alpha == 0)[0])
    b, gamma, lam = 0.2, 0.002, 0.3
    N = R.shape[1]
    supp = np.flatnonzero(alpha)
    p = R.mean(axis=1)
    C = gamma + lam * (p[m] - (p[supp].mean() if len(supp) else 0.0)) / (1 + len(supp))
    w = np.exp(-y * (b + alpha @ R)) / N
    e_pos, e_neg = w[(R[m] > 0) & (y > 0)].sum(), w[(R[m] > 0) & (y < 0)].sum()
    for s in (0.0, 0.01):
        with np.errstate(divide="ignore"):
            a, dec = lr._theorem1(e_pos, e_neg, C, s)
        if s == 0.0 and min(e_pos, e_neg) == 0.0:  # a rule covering one class: the paper's weight is infinite
            assert not np.isfinite(a)
            continue
        grid = np.linspace(-4, 4, 8001)
        values = []
        for g in grid:
            al = alpha.copy()
            al[m] = g
            values.append(naive_G(R, y, al, b, gamma, lam, s))
        best = grid[int(np.argmin(values))]
        G0 = naive_G(R, y, alpha, b, gamma, lam, s)
        if a == 0.0:
            assert min(values) >= G0 - 1e-9  # no weight beats leaving the rule out
        else:
            assert abs(float(a) - best) < 2e-3
            assert G0 - (dec - C) == pytest.approx(min(values), abs=1e-6)


def test_lemma_1_local_regulariser_increment():
    """Omega_L(alpha + a e_m) - Omega_L(alpha) = (p_m - Omega_L(alpha)) / (1 + |supp|)."""
    R, y, alpha = lire_instance(5)
    m = int(np.flatnonzero(alpha == 0)[0])
    supp = np.flatnonzero(alpha)
    omega = lr.lire_objective(R, y, alpha, 0.0, 0.0, 1.0) - lr.lire_objective(R, y, alpha, 0.0, 0.0, 0.0)
    al = alpha.copy()
    al[m] = 0.7
    omega2 = lr.lire_objective(R, y, al, 0.0, 0.0, 1.0) - lr.lire_objective(R, y, al, 0.0, 0.0, 0.0)
    assert omega2 - omega == pytest.approx((R[m].mean() - omega) / (1 + len(supp)))


@pytest.mark.parametrize("seed", range(3))
def test_algorithm_1_lowers_the_objective(seed):
    rng = np.random.default_rng(seed)
    R = (rng.random((30, 200)) < 0.3).astype(np.float32)
    y = np.where(R[0] + R[1] - R[2] + 0.3 * rng.normal(size=200) > 0.5, 1.0, -1.0)
    alpha0 = np.where(rng.random(30) < 0.6, 0.1, 0.0)
    s = 0.5 / 200
    for gamma, lam in [(0.001, 0.0), (0.002, 0.5)]:
        alpha, b, it = lr.fit_weights(R, y, alpha0, 0.0, gamma, lam, max_iter=200)
        assert lr.lire_objective(R, y, alpha, b, gamma, lam, s) < lr.lire_objective(R, y, alpha0, 0.0, gamma, lam, s)
        assert it < 200  # converged: the support stopped changing


def test_extracted_rules_are_the_tree_nodes():
    from sklearn.ensemble import RandomForestClassifier

    X, y = load_breast_cancer(return_X_y=True)
    rf = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    rules = lr.extract_rules(rf)
    covers = {np.packbits(r.covers(X)).tobytes() for r in rules}
    for est in rf.estimators_:
        paths = est.decision_path(X.astype(np.float32)).toarray().astype(bool)
        for node in range(1, est.tree_.node_count):
            assert np.packbits(paths[:, node]).tobytes() in covers
    assert all(1 <= len(r) <= 3 for r in rules)


def test_local_support_and_decision_function():
    X, y = load_breast_cancer(return_X_y=True)
    m = lr.LIREClassifier(gamma=0.003, lam=0.5, n_estimators=20).fit(X, y)
    A = np.column_stack([r.covers(X) for r in m.rules_])
    np.testing.assert_array_equal(m.local_support(X), A.sum(axis=1))
    np.testing.assert_allclose(m.decision_function(X), m.intercept_ + A @ m.coef_)
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], 1 / (1 + np.exp(-2 * m.decision_function(X))))
    assert np.all(m.coef_ != 0) and m.n_iter_ >= 1 and m.n_candidates_ > len(m.rules_)
    assert str(m).splitlines()[1].startswith(f"{m.coef_[0]:+.4g}  IF ")


def test_local_support_falls_as_lambda_grows():
    """The paper's Fig. 3 trend for small gamma."""
    X, y = load_breast_cancer(return_X_y=True)
    local = [lr.LIREClassifier(gamma=0.001, lam=lam, n_estimators=30).fit(X, y).local_support(X).mean()
             for lam in (0.0, 1.0, 4.0)]
    assert local[0] > local[1] > local[2], local


@pytest.mark.slow
def test_lire_breast_cancer_three_fold_accuracy():
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    acc = cross_val_score(lr.LIREClassifier(), X, y, cv=cv)
    assert acc.mean() >= 0.90, acc


def test_lire_bad_parameters_are_named():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="The 'solver' parameter of LIREClassifier must be 'cdls' or 'l1'"):
        lr.LIREClassifier(solver="x").fit(X, y)
    with pytest.raises(ValueError, match="'gamma' parameter of LIREClassifier must be a float >= 0"):
        lr.LIREClassifier(gamma=-1.0).fit(X, y)


@parametrize_with_checks([lr.LIREClassifier(gamma=0.01, lam=0.02, n_estimators=10),
                          lr.LIREClassifier(gamma=0.01, n_estimators=10, solver="l1")])
def test_lire_sklearn_checks(estimator, check):
    check(estimator)


# ============================================================================== the notebook
@pytest.mark.subprocess
def test_notebook_quick_profile(tmp_path):
    """notebooks/seed_learners.py runs on bundled data, writes its tables and figures to the
    given folder only, and its Table 1 is the harness' own mean accuracy of the records."""
    pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
    from _notebook_helpers import assert_readable_png, changed, run_notebook, tree_snapshot
    from turs.bench import summarize

    before = tree_snapshot()
    out, res = tmp_path / "out", tmp_path / "results"
    run_notebook("seed_learners", out, {"results_dir": repr(str(res))}, timeout=900)
    assert not changed(before, tree_snapshot())
    for name in ("seed004_table1_accuracy.csv", "seed004_table2_table5.csv", "seed004_table6_gap.csv",
                 "seed002_lire_vs_rulefit.csv", "seed002_fig3_lambda_sweep.csv", "seed_learners_local_explanation.csv"):
        assert (out / name).is_file(), name
    for name in ("seed002_fig3_lambda_sweep.png", "seed_learners_local_explanation.png"):
        assert_readable_png(out / name)
    frame = summarize(res)
    mine = frame[(frame["algorithm"] == "submodular") & (frame["dataset"] == "sklearn-breast-cancer")]
    table1 = pd.read_csv(out / "seed004_table1_accuracy.csv", index_col=0)
    assert table1.loc["WDBC", "Submodular"] == pytest.approx(100 * mine["accuracy"].astype(float).mean())
    assert table1.loc["WDBC", "paper Ours"] == 94.0
    gap = pd.read_csv(out / "seed004_table6_gap.csv", index_col=0)
    assert gap["finished"].all() and (gap["relative gap"].abs() < 0.05).all()


def test_estimators_are_importable_from_turs_competitors():
    """The seed learners' estimators are importable from ``turs.competitors``."""
    import turs.competitors as comp

    assert comp.SubmodularRuleSetClassifier is sm.SubmodularRuleSetClassifier
    assert comp.LIREClassifier is lr.LIREClassifier
    assert {"SubmodularRuleSetClassifier", "LIREClassifier"} <= set(comp.__all__)
