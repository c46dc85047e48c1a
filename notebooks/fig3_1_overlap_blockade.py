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
# # Figure 3.1: the "overlap blockade" and the auxiliary beam
#
# Yang (2024), thesis §3.5.2 ("Auxiliary beam with a complementary score").
#
# Rules in a truly unordered rule set may overlap; an instance covered by several rules is
# coded with the class distribution of the *union* of their covers (Eq. 3.5). So when a new
# rule is grown one literal at a time, existing rules can form a **blockade**: every single
# literal that starts the right rule also overlaps an existing rule with a very different
# class distribution, which spoils the likelihood and so the learning speed score
#
# $$r(S) = \frac{L(D, M) - L(D, M \cup \{S\})}{|M \cup \{S\}| - |M|} \quad (3.21).$$
#
# The **complementary score** ignores the overlap: it scores the hypothetical rule
# $S \setminus M$ that covers only the instances of $S$ no rule of $M$ covers,
#
# $$R(S) = \frac{L(D, M) - L(D, M \cup \{S \setminus M\})}{|M \cup \{S \setminus M\}| - |M|} \quad (3.24),$$
#
# and the auxiliary beam keeps the literals with the best $R$.
#
# **The data** (`turs.datasets.make_overlap_blockade_data`): $X_1, X_2 \sim U[0, 2)$;
# $P(Y=1) = 0.9$ in the left block ($X_1 < 1, X_2 < 1.4$) and the top block
# ($X_1 \ge 0.6, X_2 \ge 0.8$), $0.1$ in the bottom-right block ($X_1 \ge 1, X_2 < 0.8$), $0.5$
# elsewhere. $M$ is the two-rule set {left block, top block}; we want a rule for the
# bottom-right block. We score, with `turs.mdl_score`, every single literal the search could
# start with (both operators at every candidate cut point, plus the thesis' $X_1 > 1$ and
# $X_2 < 0.8$) and the two-literal target rule.

# %% tags=["parameters"]
profile = "quick"  # the notebook takes seconds, so both profiles run it whole
n = 1000  # rows of simulated data
seed = 0  # seed of make_overlap_blockade_data
out_dir = None  # where figures and tables go; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
results_dir = None  # reserved for per-run results; unused by this notebook

# %%

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from turs import Condition, TURSClassifier, mdl_score  # noqa: E402
from turs._core.regret import log2_regret  # noqa: E402
from turs.datasets import OVERLAP_BLOCKADE_RULES, make_overlap_blockade_data  # noqa: E402
from turs.encoding import FeatureEncoder  # noqa: E402


from turs import style  # noqa: E402
from turs.reproduce import output_dir, save_figure  # noqa: E402

style.apply()
OUT = output_dir(out_dir, profile)

# %% [markdown]
# ## The data and the rule set $M$

# %%
X, y = make_overlap_blockade_data(n=n, seed=seed)
DOMAIN = (0.0, 2.0)


def box_to_rule(box: dict) -> list:
    """A ground-truth box {feature: (low, high)} as a list of Conditions (domain edges dropped)."""
    conds = []
    for col, (low, high) in box.items():
        low = None if low <= DOMAIN[0] else low
        high = None if high >= DOMAIN[1] else high
        conds.append(Condition(col, low=low, high=high))
    return conds


LEFT, TOP, TARGET_BOX = OVERLAP_BLOCKADE_RULES
M = [box_to_rule(LEFT), box_to_rule(TOP)]
TARGET = box_to_rule(TARGET_BOX)  # X1 >= 1 AND X2 < 0.8
encoder = FeatureEncoder(n_cut_points=20).fit(X)  # one encoder: the same cut points for every score
base = mdl_score(M, X, y, encoder=encoder)
print("M =", [" AND ".join(map(str, r)) for r in M])
print(base)

# %% [markdown]
# ## $r$ and $R$ of every candidate
#
# $r$ comes straight from `mdl_score` on $M \cup \{S\}$. For $R$ the rule $S \setminus M$ is
# generally not a conjunction of literals, so we build its score by hand from the parts of
# `mdl_score(M + [S])`: the model part $L(M \cup \{S\})$ is kept (the search pays for the
# literals of $S$), the instances $M$ covers keep their code, and $S \setminus M$ and the new
# else-rule each code their labels with their own ML distribution plus their NML regret
# (Eq. 3.10-3.12). This is what `turs` computes inside the search.

# %%
Xv = X.to_numpy()
cols = {"X1": 0, "X2": 1}
classes = np.unique(y)


def covers(rule) -> np.ndarray:
    m = np.ones(len(Xv), dtype=bool)
    for c in rule:
        m &= c.mask(Xv[:, cols[c.column]])
    return m


def nml_bits(mask: np.ndarray) -> float:
    """-log2 P^NML of the labels in `mask` coded as one rule (Eq. 3.10): ML code + log2 regret."""
    counts = np.array([(y[mask] == c).sum() for c in classes], dtype=float)
    nz = counts[counts > 0]
    nll = float(-(nz * np.log2(nz / nz.sum())).sum()) if nz.size else 0.0
    return nll + log2_regret(int(mask.sum()), len(classes))


covered_by_M = np.logical_or.reduce([covers(r) for r in M])


def scores(rule) -> dict:
    after = mdl_score(M + [rule], X, y, encoder=encoder)
    new = covers(rule) & ~covered_by_M  # S \ M
    n_new = int(new.sum())
    # L(D, M + S\M): M's covered instances as in L(D, M); S\M and the remaining else-rule as
    # two NML-coded groups; the model part of M + S.
    data_covered_M = base.data_bits + base.regret_bits - nml_bits(~covered_by_M)
    aux_total = data_covered_M + nml_bits(new) + nml_bits(~covered_by_M & ~new) + after.model_bits
    return {
        "coverage": int(covers(rule).sum()),
        "new_coverage": n_new,
        "overlap_with_M": int((covers(rule) & covered_by_M).sum()),
        "new_in_target": float((new & covers(TARGET)).sum() / n_new) if n_new else np.nan,
        "mdl_after": after.total,
        "mdl_after_aux": aux_total,
        "r": (base.total - after.total) / n_new if n_new else np.nan,
        "R": (base.total - aux_total) / n_new if n_new else np.nan,
    }


# the data code of M's covered instances is the same whether M's else-rule is split or not
assert abs((base.data_bits + base.regret_bits - nml_bits(~covered_by_M)) + nml_bits(~covered_by_M)
           + base.model_bits - base.total) < 1e-9

rows = []
for col in ("X1", "X2"):
    for cut in encoder.columns_[cols[col]].cuts:
        for cond in (Condition(col, low=float(cut)), Condition(col, high=float(cut))):
            rows.append({"candidate": str(cond), "kind": "literal", "rule": [cond]})
BLOCKED = [c for c in TARGET]  # the thesis' X1 > 1 and X2 < 0.8
for cond in BLOCKED:
    rows.append({"candidate": str(cond), "kind": "blocked literal", "rule": [cond]})
rows.append({"candidate": " AND ".join(map(str, TARGET)), "kind": "target rule", "rule": TARGET})

table = pd.DataFrame([{**{k: v for k, v in row.items() if k != "rule"}, **scores(row["rule"])} for row in rows])
single = table["kind"] != "target rule"
table.loc[single, "rank_r"] = table.loc[single, "r"].rank(ascending=False, method="min")
table.loc[single, "rank_R"] = table.loc[single, "R"].rank(ascending=False, method="min")
# Would the beams keep it? Patience buckets (Eq. 3.23) of a first literal grown from the empty
# rule, beam width W = 10: the main beam buckets by |S| / n, the auxiliary beam by |S \ M| / |else|;
# each beam keeps the best candidate per bucket (ties kept here; the local test is not applied).
W = 10
n_else = int((~covered_by_M).sum())
table.loc[single, "bucket_r"] = np.minimum(W * table.loc[single, "coverage"] // n, W - 1)
table.loc[single, "bucket_R"] = np.minimum(W * table.loc[single, "new_coverage"] // n_else, W - 1)
for score_col, bucket_col, beam_col in (("r", "bucket_r", "in_main_beam"), ("R", "bucket_R", "in_aux_beam")):
    best = table[single].groupby(bucket_col)[score_col].transform("max")
    table.loc[single, beam_col] = np.isclose(table.loc[single, score_col], best, rtol=0, atol=1e-12)
table.to_csv(OUT / "fig3_1_overlap_blockade_scores.csv", index=False)
n_single = int(single.sum())
shown = table[table["kind"] != "literal"].copy()
top = table[single].sort_values("r", ascending=False).head(3)
pd.concat([shown, top]).round(3)

# %%
blocked = table[table["kind"] == "blocked literal"].set_index("candidate")
target = table[table["kind"] == "target rule"].iloc[0]
better = bool((blocked["rank_R"] < blocked["rank_r"]).all())
leader = table[single].sort_values("R", ascending=False).iloc[0]
leader_new = covers(rows[int(leader.name)]["rule"]) & ~covered_by_M
corner = (Xv[:, 0] < TOP["X1"][0]) & (Xv[:, 1] >= LEFT["X2"][1])  # the top-left corner M leaves uncovered
leader_corner = (leader_new & corner).sum() / leader_new.sum()


def kept_for_target(beam_col: str) -> int:
    kept = table[beam_col].fillna(False).astype(bool)
    return int((kept & (table["new_in_target"] >= 0.9)).sum())


def beams(row) -> str:
    kept = [b for b, col in (("main", "in_main_beam"), ("auxiliary", "in_aux_beam")) if row[col]]
    return f"kept by the {' and the '.join(kept)} beam" if kept else "kept by neither beam"
parts = [
    f"{name}: rank {int(row.rank_r)} by r ({row.r:.3f} bits/instance, {row.overlap_with_M} of its "
    f"{row.coverage} instances overlap M) and rank {int(row.rank_R)} by R ({row.R:.3f}), {beams(row)}"
    for name, row in blocked.iterrows()
]
summary = (
    f"Among the {n_single} single literals that can start the new rule, {'; '.join(parts)}. "
    f"So the auxiliary beam (R) {'ranks both blocked literals higher' if better else 'does not rank both blocked literals higher'} "
    f"than the main beam (r) does. The literals ranked above them by R, led by {leader.candidate} "
    f"(R = {leader.R:.3f}, {leader_corner:.0%} of its new instances in the top-left corner), carve out "
    f"the other region M leaves uncovered. With beam width {W} and patience buckets, "
    f"the main beam keeps {kept_for_target('in_main_beam')} and the auxiliary beam "
    f"{kept_for_target('in_aux_beam')} literal(s) whose new instances lie at least 90% in the bottom-right block "
    f"({', '.join(table.loc[table['in_aux_beam'].fillna(False).astype(bool) & (table['new_in_target'] >= 0.9), 'candidate']) or 'none'} "
    f"in the auxiliary beam). "
    f"The target rule {target.candidate} itself has r = {target.r:.3f} and R = {target.R:.3f} "
    f"(it overlaps M on {target.overlap_with_M} instances). "
    f"Data: n = {n}, seed = {seed}; M = left and top blocks, L(D, M) = {base.total:.1f} bits."
)
print(summary)
_ = (OUT / "fig3_1_overlap_blockade_summary.txt").write_text(summary + "\n", encoding="utf-8")

# %% [markdown]
# ## Figure 3.1
#
# Left: the data (blue $Y = 0$, orange $Y = 1$: the class colours of `turs.style`, as in the
# explorer) and the two rules of $M$ (black outlines). Right: the candidate literals $X_1 > 1$
# and $X_2 < 0.8$ (purple lines) that start a rule for the bottom-right instances; the hatched
# areas are the overlaps each creates with $M$.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 5.6), sharey=True)
CLASS_COLOR = {c: style.class_style(i).color for i, c in enumerate(classes)}  # y = 0 blue, y = 1 orange
colors = [CLASS_COLOR[v] for v in y]
PURPLE = style.CANDIDATE


def draw_box(ax, box, **kw):
    (x0, x1), (y0, y1) = box.get("X1", DOMAIN), box.get("X2", DOMAIN)
    ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, **kw))


for ax in axes:
    ax.scatter(X["X1"], X["X2"], c=colors, s=6, alpha=0.6, linewidths=0)
    for box in (LEFT, TOP):
        draw_box(ax, box, edgecolor="black", linewidth=2)
    ax.set_xlim(*DOMAIN)
    ax.set_ylim(*DOMAIN)
    ax.set_aspect("equal")
    ax.set_xlabel("$X_1$")
axes[0].set_ylabel("$X_2$")
axes[0].set_title("Rule set M: two rules")
axes[0].legend(handles=[Line2D([], [], marker="o", linestyle="", color=CLASS_COLOR[v], label=f"Y = {v}")
                        for v in classes],
               loc="upper left", framealpha=0.9)
ax = axes[1]
x_cut, y_cut = TARGET_BOX["X1"][0], TARGET_BOX["X2"][1]
ax.axvline(x_cut, color=PURPLE, linewidth=2.5)
ax.axhline(y_cut, color=PURPLE, linewidth=2.5)
# the overlaps: X1 >= 1 with the top block, X2 < 0.8 with the left block
ax.add_patch(Rectangle((x_cut, TOP["X2"][0]), DOMAIN[1] - x_cut, DOMAIN[1] - TOP["X2"][0],
                       facecolor="none", edgecolor=PURPLE, hatch="//", linewidth=0, alpha=0.6))
ax.add_patch(Rectangle((DOMAIN[0], DOMAIN[0]), LEFT["X1"][1], y_cut,
                       facecolor="none", edgecolor=PURPLE, hatch="\\\\", linewidth=0, alpha=0.6))
draw_box(ax, TARGET_BOX, edgecolor=PURPLE, linewidth=1.5, linestyle="--")
for name, xy in ((str(BLOCKED[0]), (x_cut + 0.03, 1.9)), (str(BLOCKED[1]), (0.03, y_cut + 0.03))):
    row = blocked.loc[name]
    ax.annotate(f"{name}\nr = {row.r:.3f}, R = {row.R:.3f}", xy, color=PURPLE,
                va="top" if xy[1] > 1 else "bottom",
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
ax.set_title("Growing a rule for the bottom-right instances")
fig.tight_layout()
save_figure(fig, OUT, "fig3_1_overlap_blockade")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_1_overlap_blockade.png")))

# %% [markdown]
# ## The blockade in the search: start from $M$ and watch both beams
#
# The scores above are computed by hand. Here the search itself runs into the blockade:
# `TURSClassifier(record_trace=True).fit(X, y, initial_rules=M)` starts from the two rules of
# $M$ (exactly, not moved to cut points) and searches for the next rule. The trace records, for
# its first beam iteration (growing from the empty rule), both beams: the **main beam** keeps
# the candidates with the best learning speed score $r$ (Eq. 3.21), the **auxiliary beam** those
# with the best complementary score $R$ (Eq. 3.24). For each candidate we count its *new* rows
# (the rows $M$ leaves uncovered) and the share of them in the bottom-right block.

# %%
M_TEXT = [" AND ".join(map(str, r)) for r in M]  # "X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"
started = TURSClassifier(record_trace=True).fit(X, y, initial_rules=M_TEXT)
trace = started.trace_
assert [r.condition_text() for r in started.rules_[:2]] == M_TEXT
assert abs(trace.searches[0]["mdl_before"] - base.total) < 1e-6  # the search starts from L(D, M)
target_rows = covers(TARGET)


def trace_cover(literals) -> np.ndarray:
    """Rows a trace candidate covers: its literals are bin ranges [lo, hi) of the trace's cuts."""
    m = np.ones(len(Xv), dtype=bool)
    for j, lo, hi in literals:
        b = np.searchsorted(np.asarray(trace.cuts[j], dtype=float), Xv[:, j], side="right")
        m &= (b >= lo) & (b < hi)
    return m


ITERATION = 0  # the first beam iteration: the literals a new rule starts with
beam_rows = []
for beam, key, score in (("main", "main_beam", "r"), ("auxiliary", "aux_beam", "R")):
    for c in trace.searches[0]["iterations"][ITERATION][key]:
        new = trace_cover(c["literals"]) & ~covered_by_M
        assert int(new.sum()) == c["coverage_uncovered"]  # the trace counts the same rows
        beam_rows.append({"beam": beam, "candidate": " AND ".join(c["conditions"]), "score": score,
                          "value": c[score], "r": c["r"], "R": c["R"], "coverage": c["coverage"],
                          "new_coverage": c["coverage_uncovered"],
                          "new_in_target": float((new & target_rows).sum() / new.sum()) if new.any() else np.nan})
beams_table = pd.DataFrame(beam_rows)
beams_table.to_csv(OUT / "fig3_1_overlap_blockade_beams.csv", index=False)
beams_table.round(3)

# %%
in_target = beams_table["new_in_target"] >= 0.9
main_t = beams_table[(beams_table["beam"] == "main") & in_target]
aux_t = beams_table[(beams_table["beam"] == "auxiliary") & in_target]
# the blockade: the main beam's candidates inside the block all look harmful (r < 0) ...
assert len(main_t) and (main_t["r"] < 0).all()
# ... while the auxiliary beam keeps one with a positive R
assert (aux_t["R"] > 0).any()
best_aux = aux_t.sort_values("R", ascending=False).iloc[0]
no_aux = TURSClassifier(use_auxiliary_beam=False).fit(X, y, initial_rules=M_TEXT)
chosen = [s["chosen"] for s in trace.searches if s["chosen"]]
search_text = (
    f"Started from M, rule search 1, beam iteration {ITERATION + 1}: the main beam keeps {len(main_t)} "
    f"candidate(s) whose new rows lie at least 90% in the bottom-right block, all with r < 0 (best "
    f"{main_t['r'].max():.3f} bits per row: each overlaps M, whose class distribution is the opposite, so "
    f"adding it looks like making the code longer); the auxiliary beam keeps {len(aux_t)}, led by "
    f"{best_aux.candidate} with R = {best_aux.R:.3f} > 0 (r = {best_aux.r:.3f}) on its "
    f"{int(best_aux.new_coverage)} new rows, {best_aux.new_in_target:.0%} of them in the block. "
    f"What the search then does: rule search 1 returns {' AND '.join(chosen[0]['conditions'])} (the top-left "
    f"corner M leaves uncovered; r = {chosen[0]['r']:.3f}, R = {chosen[0]['R']:.3f}); after it the else-rule "
    f"holds mostly the bottom-right "
    f"block, so a rule for the block no longer shortens the code (rule search 2 returns "
    f"{' AND '.join(chosen[1]['conditions']) if len(chosen) > 1 else 'nothing'}, "
    f"{'accepted' if len(trace.searches) > 1 and trace.searches[1]['accepted'] else 'not accepted'}). "
    f"Without the auxiliary beam the fit is "
    f"{'the same' if str(no_aux) == str(started) else 'different'}: "
    f"{len(no_aux.rules_)} rules, MDL {no_aux.mdl_score_:.2f} bits, against {started.mdl_score_:.2f} with it."
)
print(search_text)
with open(OUT / "fig3_1_overlap_blockade_summary.txt", "a", encoding="utf-8") as f:
    f.write(search_text + "\n")
print(started)

# %% [markdown]
# ### The two beams at that iteration
#
# Each bar is one candidate kept by the beam, scored as that beam scores it ($r$ for the main
# beam, $R$ for the auxiliary beam); purple bars are the candidates whose new rows lie at least
# 90% in the bottom-right block. Left of zero: the candidate would make the code longer.

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 5.4))
PANELS = (("main", "main beam: r (Eq. 3.21)"), ("auxiliary", "auxiliary beam: R (Eq. 3.24)"))
for ax, (beam, label) in zip(axes, PANELS):
    t = beams_table[beams_table["beam"] == beam].reset_index(drop=True)
    colours = [PURPLE if v >= 0.9 else style.RULE for v in t["new_in_target"].fillna(0)]
    ax.barh(range(len(t)), t["value"], color=colours)
    ax.set_yticks(range(len(t)), t["candidate"])
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=1)
    ax.set_xlabel("bits per new row")
    ax.set_title(label, loc="left")
axes[1].legend(handles=[Rectangle((0, 0), 1, 1, color=PURPLE, label="new rows ≥ 90% in the block"),
                        Rectangle((0, 0), 1, 1, color=style.RULE, label="elsewhere")],
               loc="lower right", framealpha=0.9)
fig.suptitle(f"Started from M: rule search 1, beam iteration {ITERATION + 1}", x=0.01, ha="left")
fig.tight_layout()
save_figure(fig, OUT, "fig3_1_overlap_blockade_beams")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_1_overlap_blockade_beams.png")))

# %% [markdown]
# ## What TURS learns from scratch
#
# The blockade needs $M$ to be there first. On this data a fit from the empty rule set (where
# nothing blocks) finds the bottom-right rule first; the figure is about the situation in which
# the rules of $M$ came first.

# %%
model = TURSClassifier().fit(X, y)
print(model)

# %%
print("written:", *(str(OUT / f) for f in ("fig3_1_overlap_blockade.png", "fig3_1_overlap_blockade.pdf",
                                            "fig3_1_overlap_blockade_scores.csv",
                                            "fig3_1_overlap_blockade_summary.txt",
                                            "fig3_1_overlap_blockade_beams.png", "fig3_1_overlap_blockade_beams.pdf",
                                            "fig3_1_overlap_blockade_beams.csv")), sep="\n  ")
