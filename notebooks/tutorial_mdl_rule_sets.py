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
# # Tutorial: the MDL score of a truly unordered rule set
#
# A teaching companion to Yang (2024), thesis chapter 3, §3.3-3.5. TURS picks the rule set
# $M$ that minimises the **MDL score** (Eq. 3.20)
#
# $$L(D, M) = \underbrace{-\log_2 P_{M,\hat\theta}(y \mid x)}_{\text{data}}
#   + \underbrace{\sum_{S \in M \cup \{\text{else}\}} \log_2 \mathcal{R}(|S|, |\mathcal{Y}|)}_{\text{regret}}
#   + \underbrace{L(M)}_{\text{model}} .$$
#
# We take it apart on tiny datasets, and check every hand computation against
# `turs.mdl_score`:
#
# * (a) the code length of one rule, step by step;
# * (b) the NML regret and its BIC-like growth (Proposition 2);
# * (c) the likelihood of two overlapping rules (Eq. 3.5);
# * (d) the local test of the search as a depth-one tree (Eq. 3.22);
# * (e) a real fit on iris.

# %% tags=["parameters"]
profile = "quick"  # the tutorial takes seconds, so both profiles run it whole
out_dir = None  # where figures and tables go; None: <repo>/figures
results_dir = None  # reserved; unused by this notebook

# %%
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402

from turs import Condition, TURSClassifier, mdl_score  # noqa: E402
from turs._core.codes import log2_comb, universal_integer_code  # noqa: E402
from turs._core.regret import log2_regret  # noqa: E402
from turs.datasets import load_bundled  # noqa: E402
from turs.reproduce import output_dir  # noqa: E402

OUT = output_dir(out_dir)


def close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


# %% [markdown]
# Two helpers written straight from the definitions, slow but obviously right:
#
# * the **ML code length** of labels with counts $n_1, \dots, n_C$ coded with the distribution
#   estimated from counts $m_1, \dots, m_C$: $-\sum_c n_c \log_2 (m_c / \sum m)$;
# * the **regret** $\mathcal{R}(n, 2) = \sum_{k=0}^{n} \binom{n}{k} (k/n)^k ((n-k)/n)^{n-k}$
#   (Eq. 3.11: sum over all label sequences of their maximised likelihood).


# %%
def ml_bits(counts, model_counts=None) -> float:
    """-sum_c n_c log2(m_c / sum m), with 0 log 0 = 0; model_counts default to counts."""
    counts = np.asarray(counts, dtype=float)
    m = counts if model_counts is None else np.asarray(model_counts, dtype=float)
    nz = counts > 0
    return float(-(counts[nz] * np.log2(m[nz] / m.sum())).sum())


def regret2_bruteforce(n: int) -> float:
    """log2 R(n, 2) by summing over the number k of ones (Eq. 3.11)."""
    if n == 0:
        return 0.0
    total = sum(math.comb(n, k) * (k / n) ** k * ((n - k) / n) ** (n - k) for k in range(n + 1))
    return math.log2(total)


for n_check in (1, 2, 5, 20):
    assert abs(regret2_bruteforce(n_check) - log2_regret(n_check, 2)) < 1e-9
print("log2 R(n, 2) by brute force equals turs' for n = 1, 2, 5, 20, e.g. "
      f"log2 R(5, 2) = {regret2_bruteforce(5):.4f} bits")

# %% [markdown]
# ## (a) The code length of one rule, step by step
#
# Twelve rows, three numeric features, a binary label, and one rule
# `x1 >= 5.5 AND x2 < 5.5`. The candidate cut points of a column are quantile mid-points: sort
# the column's 12 values (repeats included), take the `distinct - 1` gaps between neighbours at
# evenly spaced positions, and cut half-way across each gap, or just above the value when the
# two neighbours are equal. `x1` has 12 distinct values, so all 11 gaps are used; `x2` repeats
# 1, 3 and 5, so two of its 7 cuts sit just above 5 and the gap between 6 and 8 is not offered.

# %%
tiny = pd.DataFrame({
    "x1": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    "x2": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8],
    "x3": [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5],
}).astype(float)
y_tiny = np.array([0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0])
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


print("cut points of x2:", [f"{c:.17g}" if c != round(c, 6) else c for c in cuts_of(tiny["x2"])])


def k_value(column: str, reached: np.ndarray) -> int:
    """Cut points of `column` that split the rows reached so far into two non-empty parts."""
    x = tiny.loc[reached, column].to_numpy()
    c = cuts_of(tiny[column])
    return int(((c > x.min()) & (c <= x.max())).sum())


K_col = tiny.shape[1]
k = len(RULE)
steps = []
L_num_literal = math.log2(K_col)
steps.append(("L_num_literal", f"log2 K_col = log2 {K_col}", L_num_literal))
L_which_vars = log2_comb(K_col, k)
steps.append(("L_which_vars", f"log2 binom(K_col, k) = log2 binom({K_col}, {k})", L_which_vars))
reached = np.ones(len(tiny), dtype=bool)
for cond in RULE:
    kv = k_value(cond.column, reached)
    # one cut: 1 bit for the form (one or two cuts), 1 bit for the operator, log2 K_value for the cut
    bits = 1 + 1 + math.log2(kv)
    steps.append((f"L_value_op({cond})",
                  f"L_form + L_operator + log2 K_value = 1 + 1 + log2 {kv}  (K_value on {reached.sum()} rows)",
                  bits))
    reached &= cond.mask(tiny[cond.column].to_numpy())
L_S = sum(b for *_, b in steps)
steps.append(("L(S)", "sum of the above (Eq. 3.17)", L_S))
L_univ = universal_integer_code(1)
steps.append(("L(M)", f"L_univ(K=1) + L(S) - log2 1! = {L_univ:.4f} + {L_S:.4f} - 0", L_univ + L_S))

covered = reached  # the rows the whole rule covers
rule_counts = np.bincount(y_tiny[covered], minlength=2)
else_counts = np.bincount(y_tiny[~covered], minlength=2)
data = ml_bits(rule_counts) + ml_bits(else_counts)
steps.append(("data NLL", f"-log2 P(y | rule counts {rule_counts.tolist()}) - log2 P(y | else counts "
              f"{else_counts.tolist()})", data))
regret = regret2_bruteforce(int(covered.sum())) + regret2_bruteforce(int((~covered).sum()))
steps.append(("regret", f"log2 R({covered.sum()}, 2) + log2 R({(~covered).sum()}, 2)", regret))
total = data + regret + L_univ + L_S
steps.append(("total", "data NLL + regret + L(M)  (Eq. 3.20)", total))

steps_table = pd.DataFrame(steps, columns=["part", "formula", "bits"])
steps_table.to_csv(OUT / "tutorial_mdl_rule_sets_rule_steps.csv", index=False)
for part, formula, bits in steps:
    print(f"{part:<32} {bits:8.4f}   {formula}")

# %% [markdown]
# The same numbers from `turs.mdl_score` with the model code as the thesis writes it
# (`model_encoding="thesis"`, Eq. 3.13-3.17). `TURSClassifier` and `mdl_score` code the model, by
# default, as the authors' implementation did in the experiments behind the thesis' tables
# (`model_encoding="turs2"`): `L_univ(k)` instead of `log2 K_col` for the number of literals, and
# no bits for a literal's form and operator. For this rule that is
# `log2 K_col - L_univ(2) + 2 x 2` bits less.

# %%
bd = mdl_score([RULE], tiny, y_tiny, model_encoding="thesis")
print(bd)
bd_default = mdl_score([RULE], tiny, y_tiny)
print(f"default (authors' implementation) model code of the rule: {bd_default.rule_model_bits[0]:.4f} bits")
assert close(bd.rule_model_bits[0] - bd_default.rule_model_bits[0],
             math.log2(K_col) - universal_integer_code(2) + 4)
assert close(bd.rule_model_bits[0], L_S)
assert close(bd.model_bits, L_univ + L_S)
assert close(bd.data_bits, data)
assert close(bd.regret_bits, regret)
assert close(bd.total, total)
print(f"\nBy hand: {total:.4f} bits; mdl_score: {bd.total:.4f} bits. They agree.")

# %% [markdown]
# ## (b) The regret grows like $\frac{|\mathcal{Y}|-1}{2} \log_2 n$
#
# The regret $\log_2 \mathcal{R}(n, K)$ is the price of estimating a $K$-class distribution
# from the $n$ instances it codes. Proposition 2: it grows like $\frac{K-1}{2} \log_2 n$, the
# BIC penalty, up to a bounded term. Right panel: the difference tends to the constant
# $\log_2 \frac{\sqrt{\pi}}{\Gamma(K/2)} - \frac{K-1}{2}\log_2 2$ (Szpankowski's expansion).

# %%
ns = np.unique(np.round(np.logspace(0, 5, 60)).astype(int))
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
regret_rows = []
for K, color in zip((2, 3, 5), ("tab:blue", "tab:orange", "tab:green")):
    reg = np.array([log2_regret(int(m), K) for m in ns])
    bic = (K - 1) / 2 * np.log2(ns)
    limit = math.log2(math.sqrt(math.pi) / math.gamma(K / 2)) - (K - 1) / 2
    ax.plot(ns, reg, color=color, label=f"log2 R(n, {K})")
    ax.plot(ns, bic, color=color, linestyle="--", label=f"({K}-1)/2 log2 n")
    ax2.plot(ns, reg - bic, color=color, label=f"K = {K}")
    ax2.axhline(limit, color=color, linestyle=":", linewidth=1)
    regret_rows += [{"K": K, "n": int(m), "log2_regret": r, "bic": b} for m, r, b in zip(ns, reg, bic)]
    print(f"K = {K}: log2 R(100000, {K}) = {reg[-1]:.3f} bits, BIC term {bic[-1]:.3f}, "
          f"difference {reg[-1] - bic[-1]:.3f} (limit {limit:.3f})")
for a in (ax, ax2):
    a.set_xscale("log")
    a.set_xlabel("n (instances coded by the rule)")
    a.grid(alpha=0.3)
ax.set_ylabel("bits")
ax.set_title("NML regret and the BIC line")
ax.legend(fontsize=8, ncol=2)
ax2.set_ylabel("log2 R(n, K) - (K-1)/2 log2 n  (bits)")
ax2.set_title("The difference stays bounded (dotted: its limit)")
ax2.legend(fontsize=8)
fig.tight_layout()
fig.savefig(OUT / "tutorial_mdl_rule_sets_regret.png", dpi=150)
plt.close(fig)
pd.DataFrame(regret_rows).to_csv(OUT / "tutorial_mdl_rule_sets_regret.csv", index=False)
display(Image(filename=str(OUT / "tutorial_mdl_rule_sets_regret.png")))

# %% [markdown]
# ## (c) Two overlapping rules: agreeing vs disagreeing
#
# An instance covered by several rules is coded with the class distribution of the **union**
# of their covers (Eq. 3.5). Rules `A: x < 12` and `B: 8 <= x < 20` on 24 rows overlap on
# `8 <= x < 12`. Two labelings that differ only outside the overlap, on `B only`: in the
# first, A and B both mostly say `1` (they **agree**); in the second, B mostly says `0` (they
# **disagree**). The four instances in the overlap have the same labels, `1 1 1 1`, in both.

# %%
x_ov = pd.DataFrame({"x": np.arange(24, dtype=float)})
A = [Condition("x", high=12.0)]
B = [Condition("x", low=8.0, high=20.0)]
labels = {
    #            A only (0-7)           overlap (8-11)  B only (12-19)          else (20-23)
    "agree":    [1, 1, 1, 0, 1, 1, 1, 1] + [1, 1, 1, 1] + [1, 1, 1, 0, 1, 1, 1, 1] + [0, 1, 0, 0],
    "disagree": [1, 1, 1, 0, 1, 1, 1, 1] + [1, 1, 1, 1] + [0, 0, 0, 1, 0, 0, 0, 0] + [0, 1, 0, 0],
}
xv = x_ov["x"].to_numpy()
in_A, in_B = A[0].mask(xv), B[0].mask(xv)
groups = {"A only": in_A & ~in_B, "overlap A and B": in_A & in_B, "B only": in_B & ~in_A, "else": ~in_A & ~in_B}
overlap_rows = []
for name, yl in labels.items():
    yl = np.array(yl)
    count = lambda m: np.bincount(yl[m], minlength=2)  # noqa: E731
    model_of = {"A only": count(in_A), "overlap A and B": count(in_A | in_B), "B only": count(in_B),
                "else": count(groups["else"])}
    parts = {g: ml_bits(count(m), model_of[g]) for g, m in groups.items()}
    bd_ov = mdl_score([A, B], x_ov, yl)
    assert close(sum(parts.values()), bd_ov.data_bits)
    ov = groups["overlap A and B"]
    overlap_rows.append({
        "labels": name, "P(1 | A)": count(in_A)[1] / in_A.sum(), "P(1 | B)": count(in_B)[1] / in_B.sum(),
        "P(1 | A or B)": model_of["overlap A and B"][1] / (in_A | in_B).sum(),
        "overlap_bits": parts["overlap A and B"], "overlap_bits_per_instance": parts["overlap A and B"] / ov.sum(),
        "data_bits": bd_ov.data_bits, "mdl_score": bd_ov.total,
    })
overlap_table = pd.DataFrame(overlap_rows).set_index("labels")
overlap_table.to_csv(OUT / "tutorial_mdl_rule_sets_overlap.csv")
overlap_table.round(3)

# %%
agree, disagree = overlap_table.loc["agree"], overlap_table.loc["disagree"]
print(
    f"The 4 instances in the overlap cost {agree.overlap_bits:.2f} bits when A and B agree "
    f"(union estimate P(1) = {agree['P(1 | A or B)']:.2f}) and {disagree.overlap_bits:.2f} bits when they "
    f"disagree (union estimate P(1) = {disagree['P(1 | A or B)']:.2f}): "
    f"{disagree.overlap_bits / agree.overlap_bits:.1f} times as much, for the same four labels. Whole data code length "
    f"{agree.data_bits:.2f} vs {disagree.data_bits:.2f} bits (checked against mdl_score). Overlaps are "
    "allowed, but they are only cheap where the rules tell the same story."
)
fig, ax = plt.subplots(figsize=(5.5, 3.6))
ax.bar(overlap_table.index, overlap_table["overlap_bits_per_instance"], color=["tab:green", "tab:red"])
for i, v in enumerate(overlap_table["overlap_bits_per_instance"]):
    ax.text(i, v, f"{v:.2f}", ha="center", va="bottom")
ax.set_ylim(0, 1.15 * overlap_table["overlap_bits_per_instance"].max())
ax.set_ylabel("bits per instance in the overlap")
ax.set_title("Data code length of the overlap of A and B")
fig.tight_layout()
fig.savefig(OUT / "tutorial_mdl_rule_sets_overlap.png", dpi=150)
plt.close(fig)
display(Image(filename=str(OUT / "tutorial_mdl_rule_sets_overlap.png")))

# %% [markdown]
# ## (d) The local test: a depth-one decision tree (Eq. 3.22)
#
# While growing a rule $S$ into $S' = S \wedge \text{literal}$, the left-out part
# $S_l = S \setminus S'$ is set aside for future rules. The growth is kept only if splitting
# pays off locally, i.e. if a depth-one tree with leaves $S'$ and $S_l$ codes the labels of
# $S$ in fewer bits than $S$ alone:
#
# $$-\log_2 P^{NML}_S > -\log_2 P^{NML}_{S'} - \log_2 P^{NML}_{S_l} + L_{split},$$
#
# with $-\log_2 P^{NML}_S$ = ML code length + $\log_2 \mathcal{R}(|S|, |\mathcal{Y}|)$ (Eq. 3.10)
# and $L_{split} = \log_2 K_{col} + \log_2 K_{value}$ (which variable, which cut). We take
# $S$ = `x1 >= 5.5` from (a) and two candidate splits.


# %%
def nml(mask: np.ndarray) -> float:
    return ml_bits(np.bincount(y_tiny[mask], minlength=2)) + regret2_bruteforce(int(mask.sum()))


S = Condition("x1", low=5.5).mask(tiny["x1"].to_numpy())
for literal in (Condition("x2", high=5.5), Condition("x3", high=4.5)):
    S_prime = S & literal.mask(tiny[literal.column].to_numpy())
    S_left = S & ~S_prime
    l_split = math.log2(K_col) + math.log2(k_value(literal.column, S))
    lhs = nml(S)
    rhs = nml(S_prime) + nml(S_left) + l_split
    print(f"grow 'x1 >= 5.5' by '{literal}':  S has labels {y_tiny[S].tolist()}, "
          f"S' {y_tiny[S_prime].tolist()}, S_l {y_tiny[S_left].tolist()}")
    print(f"  left side   -log2 P_S^NML                              = {lhs:.3f} bits")
    print(f"  right side  -log2 P_S'^NML - log2 P_Sl^NML + L_split   = {nml(S_prime):.3f} + {nml(S_left):.3f} "
          f"+ {l_split:.3f} = {rhs:.3f} bits")
    print(f"  -> the local test {'PASSES: the growth is kept' if lhs > rhs else 'FAILS: the growth is dropped'}\n")

# %% [markdown]
# ## (e) A real fit: iris
#
# `TURSClassifier` searches for the rule set with the smallest MDL score. `print(model)` shows
# the rules; `mdl_breakdown_` the parts of the score; `explain()` why a row gets its
# probabilities (overlapping rules use the union of their covers).

# %%
X_iris, y_iris = load_bundled("sklearn-iris")
model = TURSClassifier().fit(X_iris, y_iris)
print(model)
print()
print(model.mdl_breakdown_)
assert close(mdl_score(model.rules_, X_iris, y_iris).total, model.mdl_score_)
pd.DataFrame([{"dataset": "sklearn-iris", "n_rules": len(model.rules_), **{
    k: getattr(model.mdl_breakdown_, k) for k in ("total", "data_bits", "regret_bits", "model_bits")}}]
).to_csv(OUT / "tutorial_mdl_rule_sets_iris.csv", index=False)

# %%
covers = model.apply(X_iris)
n_cover = covers.sum(axis=1)
# three rows: covered by several rules (if any), by each rule alone, by none -- the first three found
candidates = [n_cover >= 2] + [covers[:, j] & (n_cover == 1) for j in range(covers.shape[1])] + [n_cover == 0]
picks = [int(np.flatnonzero(c)[0]) for c in candidates if c.any()][:3]
explained = model.explain(X_iris.iloc[picks])
explained.index = picks
pd.set_option("display.max_colwidth", None)
explained

# %%
print("written:", *(str(OUT / f) for f in (
    "tutorial_mdl_rule_sets_rule_steps.csv", "tutorial_mdl_rule_sets_regret.png",
    "tutorial_mdl_rule_sets_regret.csv", "tutorial_mdl_rule_sets_overlap.png",
    "tutorial_mdl_rule_sets_overlap.csv", "tutorial_mdl_rule_sets_iris.csv")), sep="\n  ")
