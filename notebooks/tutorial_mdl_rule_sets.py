# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A 90-minute class: learning truly unordered rule sets with MDL
#
# A class on Yang (2024), thesis chapter 3 ("Probabilistic Truly Unordered Rule Sets", TURS),
# that a teacher can run as it is. Eight sections; each has a short explanation, a figure (and,
# for the teacher, a live explorer) and an **exercise** whose answer is checked by an `assert`.
#
# **The 90-minute path.** Minutes per section, for a class that reads the text, looks at the
# figures and does the *core* exercises in class; the *homework* exercises and the cells marked
# *Optional depth* are for after the class.
#
# | § | topic | data | minutes | exercise |
# |---|---|---|---|---|
# | 0 | the plan, the two model codes | | 3 | |
# | 1 | code lengths by hand: a rule's literals, the class labels with the NML regret | 12 rows | 15 | 1 (core) |
# | 2 | unordered rules against a rule list, and the union estimate | 24 rows | 10 | 2 (core) |
# | 3 | the MDL score of a rule set and its parts | 24 rows | 10 | 3 (core) |
# | 4 | one beam-search step by hand | simulated, 1,000 rows | 12 | 4 (core) |
# | 5 | diverse patience | same | 7 | 5 (core) |
# | 6 | the local test, with a rejected growth | simulated (thesis §3.6.7), 1,000 rows | 10 | 6 (homework) |
# | 7 | the overlap blockade and the auxiliary beam | simulated (Fig. 3.1), 1,000 rows | 12 | 7 (homework) |
# | 8 | reading a fitted model on real data | breast cancer (scikit-learn) | 11 | 8 (core) |
# | | total | | 90 | 6 core, 2 homework |
#
# **How the exercises work.** Each exercise cell sets `answer_k = None`; replace `None` with your
# code. The cell after it checks your answer to 4 significant digits with an `assert` whose
# message says how the expected value is computed; the value itself is not on the screen (the
# check compares digests, with `ANSWER_KEY` and `matches_key` from the set-up cell below). Every
# input an exercise needs (a cut point, class counts, a formula) is given in its text or in the
# cell before it.
#
# **The search pages.** Each fitted model below has a one-file HTML page that steps through its
# search (beams, scores, local tests) in any browser, without Python. In the class kit
# (`make class`) they sit next to this notebook: `pages/blockade.html` (§4-§5),
# `pages/local_testing.html` (§6), `pages/blockade_from_M.html` (§7),
# `pages/blockade_from_M_seed2.html` (§7) and `pages/breast_cancer.html` (§8).
#
# **Two model codes.** `turs` codes the model and keeps the search's books, by default, as the
# authors' implementation did in the runs behind the thesis' tables (`model_encoding="turs2"`,
# `search="turs2"`); the thesis text is one switch away (`"thesis"`). The two model codes give the
# same rule a different number of bits (`docs/spec-notes.md`). **§1 uses the thesis' model code**,
# because its formulas are the ones printed in the thesis; **from §1's last cell on, every score
# is the default (authors') code**, the one `TURSClassifier` fits with. The data and regret
# parts are the same in both.

# %% tags=["parameters"]
profile = "quick"  # the class takes about a minute, so both profiles run it whole
out_dir = None  # where figures and tables go; None: <repo>/build/figures (quick) or <repo>/figures (paper)
results_dir = None  # reserved; unused by this notebook
show_solutions = True  # the teacher's source: run the solution cells (the students' notebook has none)
live = False  # True (in Jupyter, for the teacher): also open the interactive explorer in §4-§8

# %%
import hashlib
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from turs import Condition, TURSClassifier, mdl_score, style  # noqa: E402
from turs.datasets import (  # noqa: E402
    OVERLAP_BLOCKADE_RULES, load_bundled, make_local_testing_data, make_overlap_blockade_data)
from turs.reproduce import output_dir  # noqa: E402

style.apply()
if out_dir is None:  # run in the repository: its figures folder
    OUT = output_dir(out_dir, profile)
else:  # e.g. the class kit's figures/ next to the notebook: no repository needed (turs from the wheel)
    OUT = Path(out_dir).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
pd.set_option("display.max_colwidth", None)
pd.set_option("display.width", 160)
ANSWERS = {}  # exercise -> the answer checked (written to a table at the end)


# Each exercise's answer as a digest of its 4 significant digits: a check compares digests, so the
# value it expects is nowhere on the screen. The teacher's notebook checks each answer against turs
# too; after a change that moves an answer, `python tools/make_class.py --answer-key` prints the key.
ANSWER_KEY = {1: "707d202422ea566d", 2: "b4af4e0d40391d3a", 3: "ac2ece0f24b2c578", 4: "6692002c9b85dbe3",
              5: "83e689e51a82d220", 6: "bac19aa5e006c47f", 7: "73473905d22cc414", 8: "ff3f24f8dfed36ad"}


def answer_digest(value) -> str:
    """The first 16 hex digits of the SHA-256 of a number written to 4 significant digits."""
    return hashlib.sha256(f"{float(value):.4g}".encode()).hexdigest()[:16]


def matches_key(k: int, value) -> bool:
    """Whether `value` is exercise k's answer to 4 significant digits. A value within a relative
    1e-8 of the answer matches even where the two round to different digits."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return False
    return any(answer_digest(value * (1 + eps)) == ANSWER_KEY[k] for eps in (0.0, -1e-8, 1e-8))


def close(a, b, tol=1e-6) -> bool:
    return a is not None and abs(float(a) - float(b)) < tol


def show_figure(fig, stem: str) -> None:
    """Save with turs.style (refuses text under 11 pt) and show the PNG in the notebook."""
    style.save(fig, OUT, stem, formats=("png",))
    plt.close(fig)
    display(Image(filename=str(OUT / f"{stem}.png")))


# %% [markdown]
# Helpers written straight from the definitions, slow but obviously right, for the hand
# computations:
#
# * the **ML code length** of labels with counts $n_1, \dots, n_C$ coded with the distribution
#   estimated from counts $m_1, \dots, m_C$: $-\sum_c n_c \log_2 (m_c / \sum m)$;
# * the **regret** $\mathcal{R}(n, 2) = \sum_{k=0}^{n} \binom{n}{k} (k/n)^k ((n-k)/n)^{n-k}$
#   (Eq. 3.11: the sum over all label sequences of their maximised likelihood), and for more
#   classes the recurrence $\mathcal{R}(n, K+2) = \mathcal{R}(n, K+1) + \frac{n}{K} \mathcal{R}(n, K)$
#   (Kontkanen and Myllymäki 2007) from $\mathcal{R}(n, 1) = 1$;
# * the **NML code length** $-\log_2 P^{NML}_S$ of the labels of a rule $S$ (Eq. 3.10): their sum;
# * **Rissanen's universal code** of a positive integer $k$ (for the number of rules and, in
#   the authors' code, of literals): $L_{univ}(k) = \log_2 c_0 + \log_2 k + \log_2 \log_2 k + \dots$,
#   the positive terms, $c_0 = 2.865064$.
#
# The cell checks them against `turs`: the regret of $n$ labels is the regret part of
# `mdl_score` of the empty rule set (one else-rule).


# %%
def ml_bits(counts, model_counts=None) -> float:
    """-sum_c n_c log2(m_c / sum m), with 0 log 0 = 0; model_counts default to counts."""
    counts = np.asarray(counts, dtype=float)
    m = counts if model_counts is None else np.asarray(model_counts, dtype=float)
    nz = counts > 0
    return float(-(counts[nz] * np.log2(m[nz] / m.sum())).sum())


def regret2_bruteforce(n: int) -> float:
    """log2 R(n, 2) by summing over the number k of ones (Eq. 3.11), in logs so large n do not overflow."""
    if n == 0:
        return 0.0
    k = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_terms = (math.lgamma(n + 1) - np.array([math.lgamma(i + 1) + math.lgamma(n - i + 1) for i in k])
                     + np.nan_to_num(k * np.log(k / n)) + np.nan_to_num((n - k) * np.log((n - k) / n)))
    top = log_terms.max()
    return float((top + math.log(np.exp(log_terms - top).sum())) / math.log(2))


def regret_bits(n: int, n_classes: int) -> float:
    """log2 R(n, K) for K classes: R(n, 1) = 1, R(n, 2) by brute force, then the recurrence."""
    if n == 0 or n_classes == 1:
        return 0.0
    r_prev, r = 1.0, 2.0 ** regret2_bruteforce(n)  # R(n, 1), R(n, 2)
    for K in range(1, n_classes - 1):
        r_prev, r = r, r + n / K * r_prev
    return math.log2(r)


def nml_bits(counts) -> float:
    """-log2 P^NML of labels with these class counts (Eq. 3.10): ML code length + log2 regret."""
    counts = np.asarray(counts)
    return ml_bits(counts) + regret_bits(int(counts.sum()), len(counts))


def l_univ(k: int) -> float:
    """Rissanen's universal code length of the integer k >= 1, in bits."""
    total, term = math.log2(2.865064), math.log2(k)
    while term > 0:
        total, term = total + term, math.log2(term)
    return total


for n_check, K_check in ((1, 2), (2, 2), (5, 2), (20, 2), (20, 3), (7, 5)):
    labels_check = np.arange(n_check) % K_check  # every class present
    empty_set = mdl_score([], pd.DataFrame({"x": np.zeros(n_check)}), labels_check, classes=list(range(K_check)))
    assert abs(regret_bits(n_check, K_check) - empty_set.regret_bits) < 1e-9
print("log2 R(n, K) from the definitions equals turs' for the n and K tried, e.g. "
      f"log2 R(5, 2) = {regret2_bruteforce(5):.4f} bits")

# %% [markdown]
# ## 1. Code lengths by hand
#
# TURS picks the rule set $M$ with the smallest **MDL score** (Eq. 3.20)
#
# $$L(D, M) = \underbrace{-\log_2 P_{M,\hat\theta}(y \mid x)}_{\text{data}}
#   + \underbrace{\sum_{S \in M \cup \{\text{else}\}} \log_2 \mathcal{R}(|S|, |\mathcal{Y}|)}_{\text{regret}}
#   + \underbrace{L(M)}_{\text{model}} .$$
#
# We compute every term by hand for twelve rows, three numeric features, a binary label and one
# rule `x1 >= 5.5 AND x2 < 5.5`.
#
# **The rule's literals.** $L(S)$ (Eq. 3.13-3.17) codes how many literals the rule has, which
# columns they use, and for each literal its form, operator and cut point among the
# $K_{value}$ candidate cut points that split the rows the earlier literals reach. The
# candidate cut points of a column are quantile mid-points: sort its 12 values (repeats
# included) and cut half-way across evenly spaced gaps, or *just above* the value when two
# neighbours are equal (so `x < cut` reads `x <= value`). Two gaps can fall in the same run of
# equal values and give the same cut twice; the list keeps both, as the reference
# implementation does, and since a cut point is coded as a position in that list, a repeated
# cut takes two positions and counts twice in $K_{value}$. *Variant:* the hand computation
# follows the thesis' model code (`model_encoding="thesis"`); the default code (the authors')
# is compared right after.
#
# **The labels.** Each rule (and the else-rule) codes the labels of its rows with the NML
# distribution: the ML code length plus the regret $\log_2 \mathcal{R}(n, |\mathcal{Y}|)$, the
# price of estimating the class distribution from the same $n$ labels.

# %%
tiny = pd.DataFrame({
    "x1": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    "x2": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8],
    "x3": [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5],
}).astype(float)
y_tiny = np.array([0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0])
RULE = [Condition("x1", low=5.5), Condition("x2", high=5.5)]
tiny.assign(y=y_tiny)


# %%
def cuts_of(values, n_cut_points=20) -> np.ndarray:
    s = np.sort(np.asarray(values, dtype=float))
    gaps = [(a + b) / 2 if a < b else np.nextafter(a, np.inf) for a, b in zip(s[:-1], s[1:])]
    n_cuts = min(len(np.unique(s)) - 1, n_cut_points)
    if len(gaps) <= n_cuts:
        return np.array(gaps)
    positions = np.linspace(0, len(gaps) - 1, n_cuts + 2).astype(int)[1:-1]  # evenly spaced, ends dropped
    return np.array(gaps)[positions]


def k_value(column: str, reached: np.ndarray) -> int:
    """Cut points of `column` that split the rows reached so far into two non-empty parts."""
    x = tiny.loc[reached, column].to_numpy()
    c = cuts_of(tiny[column])
    return int(((c > x.min()) & (c <= x.max())).sum())


def cut_text(c: float) -> str:
    """A cut point as a reader says it: '4.5', or 'just above 5' for the float right above 5."""
    below = float(np.nextafter(c, -np.inf))
    return f"just above {below:g}" if below == round(below, 6) and c != round(c, 6) else f"{c:g}"


cuts_x2 = [cut_text(c) for c in cuts_of(tiny["x2"])]
print("cut points of x2:", ", ".join(cuts_x2))
K_col = tiny.shape[1]
k = len(RULE)
steps = [("L_num_literal", f"log2 K_col = log2 {K_col}", math.log2(K_col)),
         ("L_which_vars", f"log2 binom(K_col, k) = log2 binom({K_col}, {k})", math.log2(math.comb(K_col, k)))]
reached = np.ones(len(tiny), dtype=bool)
for cond in RULE:
    kv = k_value(cond.column, reached)
    # one cut: 1 bit for the form (one or two cuts), 1 bit for the operator, log2 K_value for the cut
    steps.append((f"L_value_op({cond})",
                  f"L_form + L_operator + log2 K_value = 1 + 1 + log2 {kv}  (K_value on {reached.sum()} rows)",
                  2 + math.log2(kv)))
    reached &= cond.mask(tiny[cond.column].to_numpy())
L_S = sum(b for *_, b in steps)
steps.append(("L(S)", "sum of the above (Eq. 3.17)", L_S))
L_univ = l_univ(1)
steps.append(("L(M)", f"L_univ(K=1) + L(S) - log2 1! = {L_univ:.4f} + {L_S:.4f} - 0", L_univ + L_S))
covered = reached  # the rows the whole rule covers
rule_counts = np.bincount(y_tiny[covered], minlength=2)
else_counts = np.bincount(y_tiny[~covered], minlength=2)
data = ml_bits(rule_counts) + ml_bits(else_counts)
steps.append(("data NLL", f"ML code of the rule's labels {rule_counts.tolist()} and the else-rule's "
              f"{else_counts.tolist()}", data))
regret = regret2_bruteforce(int(covered.sum())) + regret2_bruteforce(int((~covered).sum()))
steps.append(("regret", f"log2 R({covered.sum()}, 2) + log2 R({(~covered).sum()}, 2)", regret))
total = data + regret + L_univ + L_S
steps.append(("total", "data NLL + regret + L(M)  (Eq. 3.20)", total))
steps_table = pd.DataFrame(steps, columns=["part", "formula", "bits"])
steps_table.to_csv(OUT / "tutorial_mdl_rule_sets_rule_steps.csv", index=False)
for part, formula, bits in steps:
    print(f"{part:<32} {bits:8.4f}   {formula}")

# %% [markdown]
# The same numbers from `turs.mdl_score` with the thesis' model code. Then **the switch to the
# default model code (the authors'), used from here to the end**: it charges $L_{univ}(k)$
# instead of $\log_2 K_{col}$ for the number of literals and no bits for a literal's form and
# operator, so this rule costs $\log_2 K_{col} - L_{univ}(2) + 2 \times 2$ bits less. That is the
# only difference: the data and regret parts do not depend on the model code.

# %%
bd = mdl_score([RULE], tiny, y_tiny, model_encoding="thesis")
print(bd)
bd_default = mdl_score([RULE], tiny, y_tiny)
print(f"\nL(S) of the rule: thesis code {bd.rule_model_bits[0]:.4f} bits, default (authors') code "
      f"{bd_default.rule_model_bits[0]:.4f} bits: every model part from here on is the default code's.")
assert close(bd.data_bits + bd.regret_bits, bd_default.data_bits + bd_default.regret_bits, 1e-12)
assert close(bd.rule_model_bits[0] - bd_default.rule_model_bits[0],
             math.log2(K_col) - l_univ(2) + 4, 1e-9)
assert close(bd.rule_model_bits[0], L_S, 1e-9) and close(bd.model_bits, L_univ + L_S, 1e-9)
assert close(bd.data_bits, data, 1e-9) and close(bd.regret_bits, regret, 1e-9) and close(bd.total, total, 1e-9)
print(f"By hand: {total:.4f} bits; mdl_score: {bd.total:.4f} bits. They agree.")

# %% [markdown]
# **The regret grows like $\frac{|\mathcal{Y}|-1}{2} \log_2 n$** (Proposition 2), the BIC
# penalty, up to a bounded term: a rule that covers more rows pays more for its estimate, but
# less per row.

# %%
ns = np.unique(np.round(np.logspace(0, 4, 40)).astype(int))
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for i, K in enumerate((2, 3, 5)):
    s = style.class_style(i)
    reg = np.array([regret_bits(int(m), K) for m in ns])
    ax.plot(ns, reg, color=s.color, linewidth=2.5, label=f"log2 R(n, {K})")
    ax.plot(ns, (K - 1) / 2 * np.log2(ns), color=s.color, linestyle="--", label=f"({K}-1)/2 log2 n")
ax.set_xscale("log")
ax.set_xlabel("n, rows coded by the rule")
ax.set_ylabel("bits")
ax.set_title("NML regret (solid) and the BIC term (dashed)")
ax.legend(ncol=2, loc="upper left")
ax.grid(alpha=0.3)
show_figure(fig, "tutorial_mdl_rule_sets_regret")

# %% [markdown]
# ### Exercise 1 (core)
# The rows the rule covers are `covered` (a boolean mask). Compute the **NML code length of their
# labels** in bits (Eq. 3.10): the ML code length of the labels with the rule's own class
# distribution plus $\log_2 \mathcal{R}(n, 2)$ for the $n$ rows it covers. `ml_bits` takes
# **class counts**, not labels: count the covered rows' labels with
# `np.bincount(y_tiny[covered], minlength=2)`, pass the counts to `ml_bits`, and add
# `regret2_bruteforce(n)`.

# %%
answer_1 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    counts_1 = np.bincount(y_tiny[covered], minlength=2)
    answer_1 = ml_bits(counts_1) + regret2_bruteforce(int(counts_1.sum()))

# %% tags=["check"]
assert answer_1 is not None, "Exercise 1: set answer_1 to the NML code length of the covered rows' labels."
assert matches_key(1, answer_1), (
    "Exercise 1: answer_1 plus the else-rule's NML code length should be the data and regret bits of "
    "mdl_score. Did you pass the class counts of the covered rows (np.bincount) to ml_bits, not their "
    "labels, and add the regret of the 4 rows the rule covers?")
ANSWERS["1: NML bits of the covered labels"] = answer_1
print(f"Right: {answer_1:.4f} bits for {covered.sum()} labels.")

# %% tags=["teacher"]
# The teacher's cross-check: the answer plus the else-rule's NML code length is mdl_score's data and regret.
else_part = ml_bits(else_counts) + regret_bits(int((~covered).sum()), 2)
assert close(answer_1 + else_part, bd.data_bits + bd.regret_bits, 1e-9)

# %% [markdown]
# ## 2. Why unordered rules, and the union estimate
#
# A **rule list** (a decision list: RIPPER, CN2 in its ordered mode, CLASSY) is an ordered set of
# rules that may overlap, read in order, first match wins: `IF A THEN ... ELSE IF B THEN ...`.
# Rule B speaks only for the rows A left over, its probabilities are estimated on `B and not A`,
# and an expert who reads B alone reads it wrong. (The paths of a decision tree are neither: they
# never overlap, so they need no order.)
# In a **truly unordered rule set** every rule is a stand-alone statement, with probabilities
# estimated on all the rows it covers. Where rules overlap, a row covered by A and B is coded
# with the class distribution of the **union** of their covers (Eq. 3.5): order plays no role.
#
# Rules `A: x < 12` and `B: 8 <= x < 20` on 24 rows overlap on `8 <= x < 12`. The labels of
# each region are printed below; compute the union estimate yourself (Exercise 2) before the
# table and the figure compare the probability of `y = 1` that each model gives in each region
# with the frequency observed there, for the unordered set and the rule list in both orders.

# %%
x_ov = pd.DataFrame({"x": np.arange(24, dtype=float)})
A = [Condition("x", high=12.0)]
B = [Condition("x", low=8.0, high=20.0)]
labels = {
    #            A only (0-7)           overlap (8-11)  B only (12-19)          else (20-23)
    "agree":    [1, 1, 1, 0, 1, 1, 1, 1] + [1, 1, 1, 1] + [1, 1, 1, 0, 1, 1, 1, 1] + [0, 1, 0, 0],
    "disagree": [1, 1, 1, 0, 1, 1, 1, 1] + [1, 1, 1, 1] + [0, 0, 0, 1, 0, 0, 0, 0] + [0, 1, 0, 0],
}
y_ov = np.array(labels["disagree"])
xv = x_ov["x"].to_numpy()
in_A, in_B = A[0].mask(xv), B[0].mask(xv)
REGIONS = {"A only": in_A & ~in_B, "A and B": in_A & in_B, "B only": in_B & ~in_A, "else": ~in_A & ~in_B}


def p1(mask) -> float:
    return float(y_ov[mask].mean())


for region, mask in REGIONS.items():
    print(f"{region:<8} x = {xv[mask].min():.0f}-{xv[mask].max():.0f}: y = {' '.join(map(str, y_ov[mask]))}")

# %% [markdown]
# ### Exercise 2 (core)
# Compute, by counting labels, the probability of `y = 1` that the unordered set {A, B} gives a
# row **in the overlap** (`y_ov`, `in_A`, `in_B`). After the check, A and B typed into a
# `TURSClassifier` (`with_rule`) show the probabilities each rule has on its own.

# %%
answer_2 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    union = in_A | in_B
    answer_2 = y_ov[union].sum() / union.sum()

# %% tags=["check"]
assert answer_2 is not None, "Exercise 2: set answer_2 to P(y = 1) for a row covered by both A and B."
assert matches_key(2, answer_2), (
    "Exercise 2: answer_2 should be the share of y = 1 among the rows covered by A or B (their union), "
    "which is what TURS predicts for x = 10.")
ANSWERS["2: union estimate P(y=1) in the overlap"] = answer_2
print(f"Right: P(y = 1 | x = 10) = {answer_2:.3f}.")

# %%
hand_made = TURSClassifier(max_rules=0).fit(x_ov, y_ov).with_rule("x < 12").with_rule("8 <= x < 20")
print("A and B typed into a TURSClassifier (with_rule), each with the probabilities of its own cover:")
print(hand_made)

# %% tags=["teacher"]
# The teacher's cross-check: the answer is what the model predicts for x = 10.
p_model = hand_made.predict_proba(pd.DataFrame({"x": [10.0]}))[0, list(hand_made.classes_).index(1)]
assert close(answer_2, p_model, 1e-9)

# %%
unordered = {"A only": p1(in_A), "A and B": p1(in_A | in_B), "B only": p1(in_B), "else": p1(~in_A & ~in_B)}
list_ab = {"A only": p1(in_A), "A and B": p1(in_A), "B only": p1(in_B & ~in_A), "else": p1(~in_A & ~in_B)}
list_ba = {"A only": p1(in_A & ~in_B), "A and B": p1(in_B), "B only": p1(in_B), "else": p1(~in_A & ~in_B)}
observed = {g: p1(m) for g, m in REGIONS.items()}
union_table = pd.DataFrame({"rows": {g: int(m.sum()) for g, m in REGIONS.items()}, "observed": observed,
                            "unordered set (union)": unordered, "list A then B": list_ab,
                            "list B then A": list_ba})
gap = (union_table["unordered set (union)"] - union_table["observed"]).abs()
print("farthest from the observed frequency, unordered set:", ", ".join(
    f"{g} {union_table.loc[g, 'unordered set (union)']:.2f} against {union_table.loc[g, 'observed']:.3g}"
    for g in gap.sort_values(ascending=False).index[:2]))
print("list A then B: at most", f"{(union_table['list A then B'] - union_table['observed']).abs().max():.2f}",
      "from the observed frequencies")
union_table.round(3)

# %%
fig, ax = plt.subplots(figsize=(8.5, 4.2))
series = [("observed", style.NEUTRAL, ""), ("unordered set (union)", style.OKABE_ITO["black"], ""),
          ("list A then B", style.OKABE_ITO["blue"], "//"), ("list B then A", style.OKABE_ITO["orange"], "\\\\")]
width = 0.2
for i, (name, color, hatch) in enumerate(series):
    ax.bar(np.arange(4) + (i - 1.5) * width, union_table[name], width, color=color, hatch=hatch,
           edgecolor="white", label=name)
ax.set_xticks(np.arange(4), [f"{g}\n({n} rows)" for g, n in union_table["rows"].items()])
ax.set_ylabel("P(y = 1)")
ax.set_ylim(0, 1.35)
ax.legend(ncol=2, loc="upper right")
ax.set_title("Probability of y = 1 per region: unordered set and rule lists")
show_figure(fig, "tutorial_mdl_rule_sets_union")

# %% [markdown]
# In the overlap the two lists disagree with each other (one copies A, the other B): the
# prediction depends on an order that has no meaning in the data. The unordered set pools A
# and B, and each of its rules keeps the probability of its whole cover, so it can be read alone.
#
# **But look at the black bars: here the union estimate is the worst of the three.** These
# labels were chosen so that A and B *disagree* (A mostly `1`, B outside the overlap mostly
# `0`). Pooling two covers that disagree gives the overlap a probability that fits neither
# (the cell below prints it), and rule B, estimated on all its rows, overlap included, is wrong
# for the rows only B covers. The list "A then B" fits these labels because it estimates B on
# `B and not A`. That is no accident, and it is what §3 measures: the MDL score charges the
# union estimate's misfit to the data part, and **on these labels MDL rejects {A, B}** for a
# smaller rule set. A rule set that TURS learns keeps an overlap only where its rules' classes
# agree, and there the pooled estimate is the better one (more rows, the same distribution).

# %% [markdown]
# ## 3. The MDL score of a rule set and its parts
#
# *Model code: the default (the authors'), as everywhere from here on.*
#
# `mdl_score(rules, X, y)` gives the score and its parts: **data** ($-\log_2$ of the ML
# likelihood), **regret** (one per rule and the else-rule) and **model** $L(M) = L_{univ}(K)
# + \sum_i L(S_i) - \log_2 K!$ (Eq. 3.18; the $-\log_2 K!$ because the order of the rules
# carries no information).

# %% [markdown]
# ### Exercise 3 (core)
# `b3 = mdl_score([A, B], x_ov, y_ov)` gives `b3.rule_model_bits` ($L(S)$ of each rule). Compute
# the model part $L(M)$ of the two-rule set from them with Eq. 3.18 and `l_univ` (Rissanen's
# universal code, defined at the top).

# %%
b3 = mdl_score([A, B], x_ov, y_ov)
answer_3 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    answer_3 = l_univ(2) + sum(b3.rule_model_bits) - math.log2(math.factorial(2))

# %% tags=["check"]
assert answer_3 is not None, "Exercise 3: set answer_3 to L(M) of the rule set {A, B}, in bits."
assert matches_key(3, answer_3), (
    "Exercise 3: answer_3 should be L_univ(K) plus the rules' L(S) minus log2 K! for K = 2 rules "
    "(Eq. 3.18).")
ANSWERS["3: L(M) of {A, B}"] = answer_3
print(f"Right: L(M) = {answer_3:.4f} bits.")

# %% tags=["teacher"]
# The teacher's cross-check: the answer is mdl_score's model part.
assert close(answer_3, b3.model_bits, 1e-9)

# %% [markdown]
# Below, four rule sets on two labelings: the one of §2, where A and B
# **disagree** (A mostly `1`, B mostly `0`), and one where they **agree** (both mostly `1`;
# only the 8 rows of `B only` differ). On 24 rows a rule must save more bits on the labels than its
# literals cost: look at which rule set wins on each labeling, and at how much the data part of
# {A, B} grows when the rules disagree (the overlap is coded with the pooled estimate).

# %%
RULE_SETS = {"{}": [], "{A}": [A], "{B}": [B], "{A, B}": [A, B]}
PARTS = [("data_bits", "data", style.OKABE_ITO["blue"], ""), ("regret_bits", "regret", style.OKABE_ITO["sky blue"], "//"),
         ("model_bits", "model", style.OKABE_ITO["orange"], "..")]
part_rows = []
for lab, yl in labels.items():
    for name, rs in RULE_SETS.items():
        b = mdl_score(rs, x_ov, np.array(yl))
        part_rows.append({"labels": lab, "rule set": name, "data_bits": b.data_bits, "regret_bits": b.regret_bits,
                          "model_bits": b.model_bits, "total": b.total})
parts_table = pd.DataFrame(part_rows)
parts_table.to_csv(OUT / "tutorial_mdl_rule_sets_parts.csv", index=False)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
for ax, lab in zip(axes, labels):
    t = parts_table[parts_table["labels"] == lab].set_index("rule set")
    bottom = np.zeros(len(t))
    for col, name, color, hatch in PARTS:
        ax.bar(t.index, t[col], bottom=bottom, color=color, hatch=hatch, edgecolor="white", label=name)
        bottom += t[col].to_numpy()
    for i, v in enumerate(t["total"]):
        ax.text(i, v + 0.5, f"{v:.1f}", ha="center", va="bottom")
    best = t["total"].idxmin()
    ax.set_title(f"labels: A and B {lab} (best: {best})")
    ax.set_xlabel("rule set")
axes[0].set_ylabel("MDL score, bits")
axes[0].set_ylim(0, parts_table["total"].max() * 1.18)
fig.legend(handles=axes[1].get_legend_handles_labels()[0], loc="upper center", ncol=3,
           bbox_to_anchor=(0.5, 1.08))
show_figure(fig, "tutorial_mdl_rule_sets_parts")
best_of = parts_table.loc[parts_table.groupby("labels")["total"].idxmin(), ["labels", "rule set"]]
print("smallest MDL score:", ", ".join(f"{lab} labels: {rs}" for lab, rs in best_of.itertuples(index=False)))
scores_disagree = parts_table[parts_table["labels"] == "disagree"].set_index("rule set")["total"]
assert scores_disagree.idxmin() != "{A, B}", "§2 says that MDL rejects {A, B} on the disagreeing labels"
print(f"disagreeing labels: {{A, B}} scores {scores_disagree['{A, B}']:.2f} bits, "
      f"{scores_disagree.idxmin()} {scores_disagree.min():.2f} bits: MDL rejects the overlap whose rules disagree")
ab = parts_table[parts_table["rule set"] == "{A, B}"].set_index("labels")
print(f"data part of {{A, B}}: {ab.loc['agree', 'data_bits']:.2f} bits when A and B agree, "
      f"{ab.loc['disagree', 'data_bits']:.2f} when they disagree")
parts_table.round(2)

# %% [markdown]
# ## 4. One beam-search step by hand
#
# TURS adds one rule at a time (Algorithm 3). Each rule grows from the empty rule one literal
# at a time in a beam search (Algorithm 4), and a growth $S$ is scored by its **learning speed**
#
# $$r(S) = \frac{L(D, M) - L(D, M \cup \{S\})}{|M \cup \{S\}| - |M|} \quad (3.21),$$
#
# the bits saved per newly covered row. We take the first step on the simulated data of
# Fig. 3.1 (`make_overlap_blockade_data`: `P(y=1)` is 0.9 in two overlapping blocks and 0.1 in
# the bottom-right corner) with $M$ empty: we score **every** single literal that the search can
# start with (each candidate cut point, both operators) with `mdl_score`, and compare with the
# search's own first beam from its trace (`record_trace=True`, `docs/trace.md`). *Variant:*
# default model code and search (`"turs2"`); for a literal grown from the empty rule the
# search's score is the exact $r$ (the variants differ for refined literals only).

# %%
X_b, y_b = make_overlap_blockade_data(n=1000, seed=0)
model_b = TURSClassifier(record_trace=True).fit(X_b, y_b)
trace_b = model_b.trace_
print(model_b)
enc_b = model_b.encoder_
L_empty = mdl_score([], X_b, y_b, encoder=enc_b).total


def single_literals(trace) -> list:
    """Every single literal a search can start with: each cut point, both operators."""
    return [Condition(name, high=float(c)) for name, cuts in zip(trace.feature_names, trace.cuts) for c in cuts] + \
           [Condition(name, low=float(c)) for name, cuts in zip(trace.feature_names, trace.cuts) for c in cuts]


rows_b = []
for cond in single_literals(trace_b):
    after = mdl_score([[cond]], X_b, y_b, encoder=enc_b)
    rows_b.append({"literal": str(cond), "coverage": after.coverage, "r": (L_empty - after.total) / after.coverage})
first_step = pd.DataFrame(rows_b).drop_duplicates("literal").set_index("literal")
beam0 = trace_b.beams(0, 0, "main")
beam0["literal"] = [c[0] for c in beam0["conditions"]]
beam0["r by hand"] = first_step.loc[beam0["literal"], "r"].to_numpy()
assert np.allclose(beam0["r"], beam0["r by hand"], atol=1e-9, rtol=0)
print(f"L(D, {{}}) = {L_empty:.2f} bits. {len(first_step)} single literals; the first beam (width "
      f"{model_b.beam_width}) from the trace, with r recomputed by hand (they agree):")
beam0[["literal", "coverage", "r", "r by hand", "bucket"]].round(4)

# %% [markdown]
# The best first literal cuts the bottom strip off: the bottom-right block (mostly `0`) makes the
# strip's class distribution far from the rest. The next iterations grow each beam member by
# one more literal, and the rule search returns the best $r$ seen.
#
# *Search page* (class kit): [pages/blockade.html](pages/blockade.html) steps through this whole
# search, beam by beam.

# %%
best_lit = beam0.sort_values("r", ascending=False).iloc[0]
cut = float(best_lit["literal"].split("<")[1])
classes_b = np.unique(y_b)
fig, ax = plt.subplots(figsize=(6.2, 5.6))
for i, c in enumerate(classes_b):
    m = y_b == c
    ax.scatter(X_b["X1"][m], X_b["X2"][m], s=14, alpha=0.8, linewidths=0, color=style.class_style(i).color,
               label=f"y = {c}")
ax.axhspan(0, cut, color=style.CANDIDATE, alpha=0.15)
ax.axhline(cut, color=style.CANDIDATE, linewidth=2.5)
ax.text(0.03, cut + 0.06, f"{best_lit['literal']}: r = {best_lit['r']:.3f} bits/row", color=style.CANDIDATE, va="bottom",
        bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none"})
ax.set_xlim(0, 2)
ax.set_ylim(0, 2)
ax.set_aspect("equal")
ax.set_xlabel("X1")
ax.set_ylabel("X2")
ax.legend(loc="upper right", framealpha=0.95)
ax.set_title("The best first literal (purple)")
show_figure(fig, "tutorial_mdl_rule_sets_first_step")

# %% [markdown]
# ### Exercise 4 (core)
# Compute $r$ of the one-literal rule `X2 < 0.652117` from `mdl_score` and `L_empty`, with the
# encoder `enc_b`. The first beam above does not keep this literal: compare its $r$ with theirs
# (§5 says why). Its exact cut point is `cut_4` below (printed to 6 digits it reads 0.652117;
# the rule is `Condition("X2", high=cut_4)`).

# %%
cut_4 = 0.6521173378673106  # the exact cut point of X2 < 0.652117 (one of trace_b.cuts)
answer_4 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    after_4 = mdl_score([[Condition("X2", high=cut_4)]], X_b, y_b, encoder=enc_b)
    answer_4 = (L_empty - after_4.total) / after_4.coverage

# %% tags=["check"]
assert answer_4 is not None, "Exercise 4: set answer_4 to r of the rule X2 < 0.652117."
assert matches_key(4, answer_4), (
    "Exercise 4: answer_4 should be (L(D, {}) - L(D, {S})) / |S| for S = X2 < 0.652117, the bits the rule "
    "saves per row it covers.")
ANSWERS["4: r of X2 < 0.652117"] = answer_4
print(f"Right: r = {answer_4:.4f} bits per row, more than {(beam0['r'] < answer_4).sum()} of the "
      f"{len(beam0)} literals the beam keeps.")

# %% tags=["teacher"]
# The teacher's cross-check: the answer is the r of this literal in the table of every single literal.
assert close(answer_4, first_step.loc["X2 < 0.652117", "r"], 1e-9)

# %% tags=["teacher"]
if live:  # the search step by step, with every beam and the local tests (needs the explorer extra)
    from turs.explorer import SearchExplorer

    display(SearchExplorer(model_b, X_b, y_b))

# %% [markdown]
# ## 5. Diverse patience
#
# A beam of the $W$ best $r$ fills up with near copies: growths that cover almost the same rows.
# **Diverse patience** (Eq. 3.23) splits the growths of a base $S$ by the share
# $|S'|/|S|$ of its rows they keep into $W$ buckets and keeps the best of each bucket, so the
# beam holds small, medium and large rules, and a literal that pays off only later (a large
# first step) is not lost. *Variant:* the default search (`"turs2"`) numbers the buckets
# $0, \dots, W-1$ with bucket $w$ holding $w/W < |S'|/|S| \le (w+1)/W$ (right-closed); the
# thesis' search closes them on the left ($w/W \le |S'|/|S| < (w+1)/W$).
#
# Below, every single literal's $r$ against its coverage, the bucket edges, and the first
# beams with and without patience (`use_patience=False`).

# %%
model_np = TURSClassifier(record_trace=True, use_patience=False).fit(X_b, y_b)
beam0_np = model_np.trace_.beams(0, 0, "main")
lit_np = [c[0] for c in beam0_np["conditions"]]
W = model_b.beam_width
fig, ax = plt.subplots(figsize=(8.5, 4.6))
ax.scatter(first_step["coverage"], first_step["r"], s=22, color=style.NEUTRAL, label="every single literal")
for w in range(1, W):
    ax.axvline(w * len(y_b) / W, color=style.NEUTRAL, linestyle=":", linewidth=1)
ax.scatter(first_step.loc[beam0["literal"], "coverage"], first_step.loc[beam0["literal"], "r"], s=140,
           facecolors="none", edgecolors=style.OKABE_ITO["blue"], linewidths=2.2, label="beam with patience")
ax.scatter(first_step.loc[lit_np, "coverage"], first_step.loc[lit_np, "r"], s=70, marker="x",
           color=style.OKABE_ITO["orange"], linewidths=2.2, label="beam without patience")
ax.axhline(0, color="black", linewidth=0.8)
ax.set_xlabel(f"coverage |S'| of the literal (dotted: bucket edges, W = {W})")
ax.set_ylabel("r, bits per row")
ax.set_title("First beam: one literal per bucket with diverse patience")
ax.legend(loc="upper left", framealpha=0.95, bbox_to_anchor=(0, -0.2), ncol=3)
show_figure(fig, "tutorial_mdl_rule_sets_patience")
spread = pd.DataFrame({"with patience": beam0["coverage"].describe()[["min", "max"]],
                       "without patience": beam0_np["coverage"].describe()[["min", "max"]]})
print("coverage of the first beam's literals:")
spread

# %% [markdown]
# ### Exercise 5 (core)
# Without patience the beam keeps the $W$ literals with the best $r$ (`W` = 10), whatever their
# coverage. Compute from `first_step` (every single literal, with its coverage and $r$) the
# smallest $r$ in that beam: the bar a literal must clear to get in. Then look at §4's table of
# the beam with patience: which of its literals are below the bar, and which buckets do they fill?

# %%
answer_5 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    answer_5 = first_step["r"].nlargest(W).min()

# %% tags=["check"]
assert answer_5 is not None, "Exercise 5: set answer_5 to the smallest r in the beam without patience."
assert matches_key(5, answer_5), (
    "Exercise 5: answer_5 should be the W-th largest r among all the single literals of first_step "
    "(W = 10), the smallest r a beam without patience keeps.")
ANSWERS["5: smallest r in the beam without patience"] = answer_5
below = beam0[beam0["r"] < answer_5]
print(f"Right: r = {answer_5:.4f} bits per row. Below it, kept by patience: "
      + ", ".join(f"{lit} (bucket {w})" for lit, w in zip(below["literal"], below["bucket"])) + ".")

# %% tags=["teacher"]
# The teacher's cross-check: the answer is the smallest r in the first beam of the search without patience.
assert close(answer_5, beam0_np["r"].min(), 1e-9)

# %% [markdown]
# ## 6. The local test, with a rejected growth
#
# A growth $S \to S'$ sets aside the rows $S_l = S \setminus S'$ for later rules. The **local test**
# (Eq. 3.22) keeps the growth only if a depth-one tree with leaves $S'$ and $S_l$ codes the labels
# of $S$ in fewer bits than $S$ alone:
#
# $$-\log_2 P^{NML}_S > -\log_2 P^{NML}_{S'} - \log_2 P^{NML}_{S_l} + L_{split}.$$
#
# *Variant:* the default search (`"turs2"`) charges the authors'
# $L_{split} = \log_2 K_{col} + \log_2 (\text{cut points of } X) + 2 + L_{univ}(k+1) - L_{univ}(k)$,
# with 1 bit instead of $\log_2 1 + 2$ for a column with a single cut point (a binary column),
# $k$ the base's literals; the thesis' search charges $\log_2 K_{col} + \log_2 K_{value}$.
#
# The data of the thesis' local-testing study (§3.6.7, `make_local_testing_data`): 50 binary
# features, only `X1` matters (`P(y=1)` is 0.7 if `X1 = 1`, 0.95 otherwise), the other 49 are
# noise. After `X1 >= 0.5`, a noise literal can still raise $r$ on this sample; the local test
# stops it. *Search page* (class kit): [pages/local_testing.html](pages/local_testing.html).

# %%
X_l, y_l = make_local_testing_data(n=1000, seed=0)
model_l = TURSClassifier(record_trace=True).fit(X_l, y_l)
trace_l = model_l.trace_
print(model_l)
rejected = trace_l.beams(0, 1, "rejected")
rejected["without split"] = [b["bits_without_split"] for b in rejected["local_test_bits"]]
rejected["rule"] = [" AND ".join(c) for c in rejected["conditions"]]
base_l = trace_l.beams(0, 0, "main").iloc[0]
print(f"\nthe chosen first literal {base_l['conditions'][0]}: r = {base_l['r']:.4f}. Growths of the second "
      "iteration that the local test rejected\n(best r first), with the bits of the test's left side; "
      "its right side, with the split, is Exercise 6:")
assert rejected.iloc[0]["r"] > base_l["r"], "the text above says a noise literal raises r on this sample"
shown_l = rejected.iloc[0]  # the best r among the rejected growths
rejected[["rule", "coverage", "class_counts", "r", "without split"]].head(5).round(3)

# %% [markdown]
# ### Exercise 6 (homework)
# Compute, in bits, the **right side** of the local test (the side "with split") for the rejected
# growth `shown_l`: $-\log_2 P^{NML}_{S'} - \log_2 P^{NML}_{S_l} + L_{split}$. The inputs are
# below: the class counts of the base $S$ = `X1 >= 0.5` and of the growth $S'$ (the rows of
# $S_l = S \setminus S'$ are those of $S$ that $S'$ does not keep), and the default search's
# $L_{split}$ for a binary column grown from a base of $k = 1$ literal among $K_{col} = 50$
# columns: $L_{split} = \log_2 K_{col} + 1 + L_{univ}(k+1) - L_{univ}(k)$. Use `nml_bits` and `l_univ`.

# %%
counts_S = np.array(base_l["class_counts"])  # class counts of S (X1 >= 0.5)
counts_S_prime = np.array(shown_l["class_counts"])  # class counts of S' (the rejected growth)
print(f"S: {counts_S.tolist()}, S': {counts_S_prime.tolist()}")
answer_6 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    split_6 = math.log2(50) + 1 + l_univ(2) - l_univ(1)
    answer_6 = nml_bits(counts_S_prime) + nml_bits(counts_S - counts_S_prime) + split_6

# %% tags=["check"]
assert answer_6 is not None, "Exercise 6: set answer_6 to the 'with split' side of the local test, in bits."
assert matches_key(6, answer_6), (
    "Exercise 6: answer_6 should be -log2 P_NML(S') - log2 P_NML(S_l) + L_split; "
    "check S_l = S minus S' (class counts) and L_split = log2 K_col + 1 + L_univ(2) - L_univ(1).")
ANSWERS["6: local test, with split"] = answer_6
print(f"Right: {answer_6:.3f} bits with the split, against {shown_l['without split']:.3f} without: rejected.")

# %% tags=["teacher"]
# The teacher's cross-check: the answer is the right side the search recorded for this growth.
assert close(answer_6, shown_l["local_test_bits"]["bits_with_split"], 1e-6)

# %% [markdown]
# The two sides of the local test as bars: the growth of Exercise 6, rejected, and the first
# literal `X1 >= 0.5` grown from the empty rule, kept.

# %%
S_l_counts = np.array(base_l["class_counts"]) - np.array(shown_l["class_counts"])
kept_l = trace_l.beams(0, 0, "main").iloc[0]  # X1 >= 0.5 from the empty rule: it passed
bars = {
    f"grow {shown_l['rule']}\n(rejected)": (shown_l["local_test_bits"], base_l["class_counts"],
                                            shown_l["class_counts"], S_l_counts, 1),
    f"grow {kept_l['conditions'][0]} from the empty rule\n(kept)": (
        kept_l["local_test_bits"], np.bincount(y_l, minlength=2), kept_l["class_counts"],
        np.bincount(y_l, minlength=2) - np.array(kept_l["class_counts"]), 0),
}
fig, axes = plt.subplots(2, 1, figsize=(9, 5.4))
for ax, (title, (bits, s_counts, s1_counts, sl_counts, k_base)) in zip(axes, bars.items()):
    l_split = math.log2(X_l.shape[1]) + 1 + l_univ(k_base + 1) - \
        (l_univ(k_base) if k_base else 0)
    pieces = [nml_bits(s1_counts), nml_bits(sl_counts), l_split]
    assert close(sum(pieces), bits["bits_with_split"], 1e-6) and close(nml_bits(s_counts), bits["bits_without_split"], 1e-6)
    ax.barh(1, bits["bits_without_split"], color=style.NEUTRAL)
    left = 0.0
    for piece, color, hatch in zip(pieces, (style.OKABE_ITO["blue"], style.OKABE_ITO["sky blue"], style.OKABE_ITO["orange"]),
                                   ("", "//", "..")):
        ax.barh(0, piece, left=left, color=color, hatch=hatch, edgecolor="white")
        left += piece
    ax.set_yticks([1, 0], ["S alone", "S', S_l, split"])
    ax.set_title(f"{title}: {bits['bits_without_split']:.1f} vs {bits['bits_with_split']:.1f} bits", loc="left")
    ax.set_xlim(0, max(bits["bits_without_split"], bits["bits_with_split"]) * 1.05)
axes[-1].set_xlabel("bits")
fig.legend(handles=[Patch(color=style.NEUTRAL, label="-log2 P_NML(S)"),
                    Patch(facecolor=style.OKABE_ITO["blue"], label="-log2 P_NML(S')"),
                    Patch(facecolor=style.OKABE_ITO["sky blue"], hatch="//", edgecolor="white", label="-log2 P_NML(S_l)"),
                    Patch(facecolor=style.OKABE_ITO["orange"], hatch="..", edgecolor="white", label="L_split")],
           loc="lower center", ncol=4, bbox_to_anchor=(0.5, -0.06))
fig.tight_layout(rect=(0, 0.05, 1, 1))
show_figure(fig, "tutorial_mdl_rule_sets_local_test")

# %% [markdown]
# *Optional depth.* Without the test (`use_local_test=False`) the noise literal gets in:

# %%
print(TURSClassifier(use_local_test=False).fit(X_l, y_l))

# %% [markdown]
# ## 7. The overlap blockade and the auxiliary beam
#
# Rules may overlap, and an overlap is coded with the pooled (union) estimate. So existing rules
# can **block** a new one: every literal that starts it also overlaps a rule of $M$ with a very
# different class distribution, and its $r$ is low or negative. The **auxiliary beam** (§3.5.2)
# ranks growths by the complementary score $R$ (Eq. 3.24): $r$ of the hypothetical rule
# $S \setminus M$ that covers only the rows no rule of $M$ covers, so the overlap costs nothing.
#
# Same data as §4, but the search starts from $M$ = {left block, top block} (the thesis' Fig. 3.1;
# `fit(initial_rules=...)`). The rule the thesis looks for is the bottom-right block
# `X1 >= 1 AND X2 < 0.8`; we score every single literal with $r$ and $R$ (computed from
# `mdl_score` as in `notebooks/fig3_1_overlap_blockade.py`) and mark what each beam keeps.
# *Variant:* default search (`"turs2"`).

# %%
M_TEXT = ["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"]
model_m = TURSClassifier(record_trace=True).fit(X_b, y_b, initial_rules=M_TEXT)
trace_m = model_m.trace_
enc_m = model_m.encoder_
M = [model_m.rules_[0], model_m.rules_[1]]
Xv_b = X_b.to_numpy()


def covers(rule) -> np.ndarray:
    conds = rule.conditions if hasattr(rule, "conditions") else rule
    m = np.ones(len(Xv_b), dtype=bool)
    for c in conds:
        m &= c.mask(X_b[c.column].to_numpy())
    return m


in_M = covers(M[0]) | covers(M[1])
base_m = mdl_score(M, X_b, y_b, encoder=enc_m)


def r_and_R(rule) -> tuple:
    """r (Eq. 3.21) from mdl_score; R (Eq. 3.24): M's rows keep their code, S \\ M and the rest of the
    else-rule are coded as two NML groups, and the model part is that of M + S."""
    after = mdl_score(M + [rule], X_b, y_b, encoder=enc_m)
    new = covers(rule) & ~in_M
    counts = lambda mask: np.bincount(y_b[mask], minlength=2)  # noqa: E731
    covered_part = base_m.data_bits + base_m.regret_bits - nml_bits(counts(~in_M))
    aux_total = covered_part + nml_bits(counts(new)) + nml_bits(counts(~in_M & ~new)) + after.model_bits
    n_new = int(new.sum())
    return (base_m.total - after.total) / n_new, (base_m.total - aux_total) / n_new


# %% [markdown]
# ### Exercise 7 (homework)
# Before the scores of every literal below: compute $r$ of the literal `X1 >= 1` given $M$
# (Eq. 3.21), the bits `mdl_score` saves when it is added to `M` (use `encoder=enc_m`), per row it
# newly covers (`covers`, `in_M`). Is it negative?

# %%
answer_7 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    lit_7 = [Condition("X1", low=1.0)]
    after_7 = mdl_score(M + [lit_7], X_b, y_b, encoder=enc_m)
    answer_7 = (base_m.total - after_7.total) / (covers(lit_7) & ~in_M).sum()

# %% tags=["check"]
assert answer_7 is not None, "Exercise 7: set answer_7 to r of X1 >= 1 given M."
assert matches_key(7, answer_7), (
    "Exercise 7: answer_7 should be (L(D, M) - L(D, M + S)) divided by the rows S covers that M does not.")
ANSWERS["7: r of X1 >= 1 given M"] = answer_7
print(f"Right: r = {answer_7:.4f} bits per row.")

# %%
rows_m = []
for cond in single_literals(trace_m) + [Condition("X1", low=1.0), Condition("X2", high=0.8)]:
    if (covers([cond]) & ~in_M).sum() >= 2:
        r_val, R_val = r_and_R([cond])
        rows_m.append({"literal": str(cond), "r": r_val, "R": R_val})
scores_m = pd.DataFrame(rows_m).drop_duplicates("literal").set_index("literal")
main_m, aux_m = trace_m.beams(0, 0, "main"), trace_m.beams(0, 0, "aux")
for beam in (main_m, aux_m):
    lits = [c[0] for c in beam["conditions"]]
    assert np.allclose(beam["r"], scores_m.loc[lits, "r"], atol=1e-9, rtol=0)
    assert np.allclose(beam["R"], scores_m.loc[lits, "R"], atol=1e-9, rtol=0)
print("r and R by hand equal the trace's for both first beams.")
assert (scores_m["r"] < 0).all(), "the text below says that every single literal has a negative r given M"
scores_m.loc[["X1 >= 1", "X2 < 0.8"]].round(3)

# %% tags=["teacher"]
# The teacher's cross-check: Exercise 7's answer is r of X1 >= 1 in the table above.
assert close(answer_7, scores_m.loc["X1 >= 1", "r"], 1e-9)

# %%
fig, ax = plt.subplots(figsize=(8.5, 5.2))
ax.scatter(scores_m["r"], scores_m["R"], s=22, color=style.NEUTRAL, label="every single literal")
for beam, color, marker, name in ((main_m, style.OKABE_ITO["blue"], "o", "main beam (best r per bucket)"),
                                  (aux_m, style.OKABE_ITO["orange"], "s", "auxiliary beam (best R per bucket)")):
    lits = [c[0] for c in beam["conditions"]]
    ax.scatter(scores_m.loc[lits, "r"], scores_m.loc[lits, "R"], s=140, facecolors="none", edgecolors=color,
               marker=marker, linewidths=2.2, label=name)
for lit, dy in (("X1 >= 1", 0.05), ("X2 < 0.8", -0.09)):
    ax.annotate(f"{lit} (blocked)", (scores_m.loc[lit, "r"], scores_m.loc[lit, "R"]), color=style.CANDIDATE,
                xytext=(scores_m.loc[lit, "r"] + 0.1, scores_m.loc[lit, "R"] + dy),
                arrowprops={"arrowstyle": "->", "color": style.CANDIDATE})
ax.axvline(0, color="black", linewidth=0.8)
ax.axhline(0, color="black", linewidth=0.8)
ax.set_xlabel("r: learning speed with the overlap (bits/row)")
ax.set_ylabel("R: complementary score (bits/row)")
ax.set_title("First step of a third rule, given M: r against R")
ax.legend(loc="upper left", bbox_to_anchor=(0, -0.16), ncol=2, framealpha=0.95)
show_figure(fig, "tutorial_mdl_rule_sets_blockade")

# %% [markdown]
# Every literal has a negative $r$: with $M$ in place no first step looks good to the main beam.
# The two blocked literals are not the worst of them (the cell below prints where they rank),
# but neither is good enough for a beam of the best $r$ per bucket. $R$ ranks many literals
# positive, so the auxiliary beam keeps growing rules into the rows no rule of $M$ covers.

# %%
rank_r = scores_m["r"].rank(ascending=False).astype(int)
for lit in ("X1 >= 1", "X2 < 0.8"):
    print(f"{lit}: r = {scores_m.loc[lit, 'r']:.3f}, rank {rank_r[lit]} of {len(scores_m)} literals by r "
          f"(the worst r is {scores_m['r'].min():.3f}); in the main beam: "
          f"{lit in [c[0] for c in main_m['conditions']]}")

# %% [markdown]
# **Does the auxiliary beam change the fit?** Measured, not assumed: we fit from $M$ with and
# without it (`use_auxiliary_beam=False`), on this sample and on another sample of the same
# simulation (`seed=2`).

# %%
model_noaux = TURSClassifier(use_auxiliary_beam=False).fit(X_b, y_b, initial_rules=M_TEXT)
same_seed0 = [str(r) for r in model_m.rules_] == [str(r) for r in model_noaux.rules_]
print(f"seed 0: the two fits give {'the same' if same_seed0 else 'different'} rule sets "
      f"({model_m.mdl_score_:.2f} and {model_noaux.mdl_score_:.2f} bits)")
X_7, y_7 = make_overlap_blockade_data(n=1000, seed=2)
model_aux_7 = TURSClassifier(record_trace=True).fit(X_7, y_7, initial_rules=M_TEXT)
model_noaux_7 = TURSClassifier(use_auxiliary_beam=False).fit(X_7, y_7, initial_rules=M_TEXT)
print("\nseed 2, with the auxiliary beam:\n", model_aux_7, "\n\nseed 2, without:\n", model_noaux_7, sep="")
gain_7 = model_noaux_7.mdl_score_ - model_aux_7.mdl_score_
print(f"\nthe auxiliary beam's fit is {gain_7:.2f} bits shorter")

# %% [markdown]
# On seed 0 the two fits are the same: the bottom-right block stays with the else-rule, whose
# estimate there is already right (`P(0)` about 0.9), so the blockade costs nothing. (Why? Look at
# which rows the else-rule covers once $M$ is there.) On seed 2 they differ: with the auxiliary
# beam the fit finds a fourth rule for the top-left corner, disjoint from every other rule, and
# its score is lower. The trace says how: in the search for that rule, the auxiliary beam keeps
# the first literal that the main beam drops. *Search pages* (class kit):
# [pages/blockade_from_M.html](pages/blockade_from_M.html) (seed 0) and
# [pages/blockade_from_M_seed2.html](pages/blockade_from_M_seed2.html) (seed 2).

# %%
search_7 = len(model_aux_7.rules_) - 3  # the rule search that found the last rule (searches start after M)
lineage_7 = model_aux_7.trace_.lineage(search_7)  # from the empty rule to the chosen rule
first_7, final_7 = lineage_7[1], lineage_7[-1]
main_7 = [c[0] for c in model_aux_7.trace_.beams(search_7, 0, "main")["conditions"]]
aux_7 = [c[0] for c in model_aux_7.trace_.beams(search_7, 0, "aux")["conditions"]]
print(f"rule {len(model_aux_7.rules_)}: {' AND '.join(final_7['conditions'])}, r = {final_7['r']:.3f}")
print(f"its first literal {first_7['conditions'][0]}: r = {first_7['r']:.3f}, R = {first_7['R']:.3f}; "
      f"main local test passed: {first_7['local_test']}, auxiliary local test passed: {first_7['aux_local_test']}")
print(f"in the main beam of the first iteration: {first_7['conditions'][0] in main_7}; "
      f"in the auxiliary beam: {first_7['conditions'][0] in aux_7}")

# %% [markdown]
# The first literal has a negative $r$ and fails the main beam's local test: the main beam
# cannot keep it. Its $R$ is positive, so the auxiliary beam keeps it, and one more literal
# makes it a rule that is disjoint from $M$ (so $r = R$) and pays for itself.
#
# *Optional depth.* The auxiliary beam widens the search; it does not promise a shorter code.
# On seed 3 of the same simulation the fit without it ends lower:

# %%
X_7b, y_7b = make_overlap_blockade_data(n=1000, seed=3)
score_aux_7b = TURSClassifier().fit(X_7b, y_7b, initial_rules=M_TEXT).mdl_score_
score_noaux_7b = TURSClassifier(use_auxiliary_beam=False).fit(X_7b, y_7b, initial_rules=M_TEXT).mdl_score_
print(f"seed 3: {score_aux_7b:.2f} bits with the auxiliary beam, {score_noaux_7b:.2f} without")
pd.DataFrame([{"sample": "seed 0", "with_aux": model_m.mdl_score_, "without_aux": model_noaux.mdl_score_,
               "same_rules": same_seed0},
              {"sample": "seed 2", "with_aux": model_aux_7.mdl_score_, "without_aux": model_noaux_7.mdl_score_,
               "same_rules": [str(r) for r in model_aux_7.rules_] == [str(r) for r in model_noaux_7.rules_]},
              {"sample": "seed 3", "with_aux": score_aux_7b, "without_aux": score_noaux_7b, "same_rules": None}]
             ).to_csv(OUT / "tutorial_mdl_rule_sets_auxiliary.csv", index=False)

# %% tags=["teacher"]
if live:  # step through the search from M with both beams
    from turs.explorer import SearchExplorer

    display(SearchExplorer(model_m, X_b, y_b))

# %% [markdown]
# ## 8. Reading a fitted model on real data
#
# The Wisconsin breast cancer data (569 tumours, 30 measurements; scikit-learn's copy). `print(model)`
# lists the rules, each with the class probabilities of its own cover; rows covered by no rule
# get the else-rule's. Rows covered by several rules get the union estimate of §2, and
# `explain()` says which rules cover a row and why it gets its probabilities.
# *Search page* (class kit): [pages/breast_cancer.html](pages/breast_cancer.html).

# %%
X_c, y_c = load_bundled("sklearn-breast-cancer")
model_c = TURSClassifier().fit(X_c, y_c)
print(model_c)
print()
print(model_c.mdl_breakdown_)
assert close(mdl_score(model_c.rules_, X_c, y_c).total, model_c.mdl_score_, 1e-9)
pd.DataFrame([{"dataset": "sklearn-breast-cancer", "n_rules": len(model_c.rules_), **{
    key: getattr(model_c.mdl_breakdown_, key) for key in ("total", "data_bits", "regret_bits", "model_bits")}}]
).to_csv(OUT / "tutorial_mdl_rule_sets_real.csv", index=False)

# %% [markdown]
# ### Exercise 8 (core)
# `cover_c = model_c.apply(X_c)` says which rules cover each row (a row per tumour, a column per
# rule). Take the first row covered by rules 1 **and** 2 (`row_8` below; other rules may cover it
# too). Compute by counting training labels (`cover_c`, `y_c`) the probability of `malignant`
# that the model gives it. The figure and the table after the check show it for every group of rows.

# %%
cover_c = model_c.apply(X_c)
row_8 = int(np.flatnonzero(cover_c[:, 0] & cover_c[:, 1])[0])
answer_8 = None  # your code here

# %% tags=["solution"] jupyter={"source_hidden": true}
if show_solutions:
    rules_8 = np.flatnonzero(cover_c[row_8])  # every rule that covers the row
    union_8 = cover_c[:, rules_8].any(axis=1)
    answer_8 = (y_c[union_8] == "malignant").mean()

# %% tags=["check"]
assert answer_8 is not None, "Exercise 8: set answer_8 to P(malignant) of row_8."
assert matches_key(8, answer_8), (
    "Exercise 8: answer_8 should be the share of malignant tumours in the union of the covers of ALL the "
    "rules that cover row_8 (look at cover_c[row_8]), which is what predict_proba gives.")
ANSWERS["8: P(malignant) of a row in an overlap"] = answer_8
print(f"Right: P(malignant) = {answer_8:.4f} for row {row_8}, covered by rules "
      f"{', '.join(str(j + 1) for j in np.flatnonzero(cover_c[row_8]))}.")

# %% tags=["teacher"]
# The teacher's cross-check: the answer is what predict_proba gives the row.
malignant_8 = list(model_c.classes_).index("malignant")
assert close(answer_8, model_c.predict_proba(X_c.iloc[[row_8]])[0, malignant_8], 1e-9)

# %%
pattern = ["+".join(str(j + 1) for j in np.flatnonzero(row)) or "else" for row in cover_c]
malignant = list(model_c.classes_).index("malignant")
proba_c = model_c.predict_proba(X_c)[:, malignant]
groups_c = (pd.DataFrame({"rules": pattern, "P(malignant)": proba_c, "malignant": y_c == "malignant"})
            .groupby("rules").agg(rows=("malignant", "size"), predicted=("P(malignant)", "first"),
                                  observed=("malignant", "mean")).sort_values("rows"))
fig, ax = plt.subplots(figsize=(8.5, 4.4))
yy = np.arange(len(groups_c))
ax.barh(yy + 0.2, groups_c["predicted"], 0.4, color=style.OKABE_ITO["black"], label="predicted (union estimate)")
ax.barh(yy - 0.2, groups_c["observed"], 0.4, color=style.NEUTRAL, label="observed in the group")
ax.set_yticks(yy, [f"rule{'s' if '+' in g else ''} {g}  ({n} rows)" if g != "else" else f"no rule  ({n} rows)"
                   for g, n in groups_c["rows"].items()])
ax.set_xlabel("P(malignant)")
ax.set_xlim(0, 1.05)
ax.legend(loc="upper left", bbox_to_anchor=(0, -0.16), ncol=2)
ax.set_title("Rows grouped by the rules that cover them")
show_figure(fig, "tutorial_mdl_rule_sets_real")
groups_c.round(3)

# %%
first_of = {g: int(np.flatnonzero(np.array(pattern) == g)[0]) for g in groups_c.index}
picks = [first_of[g] for g in sorted(first_of, key=lambda g: -g.count("+"))][:3]
explained = model_c.explain(X_c.iloc[picks])
explained.index = picks
explained

# %% tags=["teacher"]
if live:  # the app: datasets, settings, re-fit and compare
    from turs.explorer import explore

    display(explore(X_c, y_c))

# %% [markdown]
# ## What to take home
#
# * The score is a code length: labels (ML + regret) plus the model (literals, cut points).
# * Unordered rules are read one by one; overlaps use the union of the covers.
# * The search grows rules literal by literal by bits saved per row ($r$), keeps a diverse beam
#   (patience), refuses splits that do not pay locally (local test), and looks past existing
#   rules (auxiliary beam, $R$).

# %%
answers = pd.DataFrame({"exercise": list(ANSWERS), "answer": [float(v) for v in ANSWERS.values()]})
answers.to_csv(OUT / "tutorial_mdl_rule_sets_answers.csv", index=False)
print(f"{len(answers)} of 8 exercises answered and checked.")
print("written:", *sorted(str(p) for p in OUT.glob("tutorial_mdl_rule_sets_*")), sep="\n  ")
