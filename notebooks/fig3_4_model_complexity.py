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
# # Figure 3.4 and Table 3.5: model complexity
#
# Yang (2024), thesis §3.6.5. Complexity is the **total number of literals** of a model: the sum
# of its rule lengths (a tree: of its root-to-leaf path lengths; the default/else rule counts 0).
#
# * **Table 3.5**: mean total literals over the folds. A model whose mean ROC-AUC is more than
#   0.1 below TURS' on that dataset is "substantially worse" and shown in small font; the
#   smallest count among the others is in **bold**.
# * **Figure 3.4**: per dataset and algorithm, the **comparative complexity** = the smallest total
#   literals on that dataset (among the models not substantially worse) divided by the model's
#   own; 1 is the simplest model, larger is simpler. ECDF over the datasets per algorithm,
#   excluding the substantially worse models; curves to the bottom right are simpler. The thesis
#   finds TURS "at the most bottom-right, dominating the other competitors", and the simplest
#   model on 13 of 31 datasets.
#
# Left panel: ours; right panel: the same computation on the thesis' Tables 3.3 and 3.5. One
# legend serves both panels: an algorithm has the same colour and line (`turs.style`) in both.
#
# **Beyond the thesis**: the seed papers' learners (`beyond_thesis`: submodular rule
# sets, seed 004; LIRE, seed 002) are extra curves, dashed and marked "*"; they handle two
# classes only. The fewest literals of a dataset is taken over the thesis' algorithms, so the
# thesis' curves do not move; an extra learner simpler than all of them scores above 1.
#
# **Local explanation size** (beyond the thesis, after Fig. 3.4): a model's total literals say how much
# there is to read in the whole model; a user explaining one prediction reads less. Defined the
# same way for every learner (`turs.bench.metrics.explanation_matrix`): TURS and other rule sets,
# the rules covering the row, or the else rule when none does; DNF rule sets (submodular), the
# satisfied rules or the default; rule lists (RIPPER, CN2, CLASSY), the firing rule and every rule
# before it (their negations are part of the explanation); trees, the one root-to-leaf path;
# LIRE, its satisfied non-zero-weight rules (its local support). Mean over the test rows, then
# over the folds.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (TURS_DATA_DIR)
algorithms = None  # None: turs.reproduce.THESIS_ALGORITHMS; add "brs" for the paper profile (slow)
beyond_thesis = "submodular,lire"  # extra curves marked "*" (two-class datasets only); "" for none
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # the benchmark records; None: <repo>/results/<profile>
out_dir = None  # None: <repo>/figures (paper profile) or <repo>/build/figures

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, Markdown, display  # noqa: E402

from turs import style  # noqa: E402
from turs.reproduce import (  # noqa: E402
    BEYOND_THESIS_NOTE, benchmark_setup, failures, label, markdown, mean_table, save_figure,
    thesis_table,
)

OUT, frame, ALGOS, EXTRA, QUICK = benchmark_setup(profile, algorithms, beyond_thesis, folds=folds, results_dir=results_dir,
                                                 out_dir=out_dir)
failures(frame)

# %%
EXCLUDE_BELOW = 0.1  # AUC more than this below TURS' -> "substantially worse"


def complexity(aucs: pd.DataFrame, lits: pd.DataFrame):
    """(kept, comparative score): kept is False for the models > 0.1 AUC below TURS (or without
    results); score = min kept literals of the dataset among the thesis' algorithms / own
    literals (NaN where not kept; above 1 for an extra row simpler than all of them)."""
    aucs = aucs.reindex(index=lits.index, columns=lits.columns)
    kept = aucs.ge(aucs["TURS"] - EXCLUDE_BELOW, axis=0) & lits.notna()
    smallest = lits.where(kept).drop(columns=EXTRA, errors="ignore").min(axis=1)
    score = pd.DataFrame(np.where(lits > 0, smallest.to_numpy()[:, None] / lits.where(lits > 0), 1.0),
                         index=lits.index, columns=lits.columns).where(kept)
    return kept, score


literals = mean_table(frame, "n_literals")
auc = mean_table(frame, "roc_auc")
kept, score = complexity(auc, literals)
th_auc, th_lits = thesis_table("table3_3_roc_auc"), thesis_table("table3_5_total_literals")
th_kept, th_score = complexity(th_auc, th_lits)

table = literals.copy()
for alg in literals.columns:
    table[f"{alg}_substantially_worse"] = ~kept[alg] & literals[alg].notna()
table.to_csv(OUT / "table3_5_total_literals.csv")
score.to_csv(OUT / "fig3_4_model_complexity.csv")


def show(lits: pd.DataFrame, keep: pd.DataFrame, title: str):
    smallest = lits.where(keep).drop(columns=EXTRA, errors="ignore").min(axis=1)
    cells = lits.apply(lambda col: col.map(lambda v: "—" if pd.isna(v) else f"{v:.1f}"))
    for alg in lits.columns:
        for ds in lits.index:
            if pd.isna(lits.loc[ds, alg]):
                continue
            if not keep.loc[ds, alg]:
                cells.loc[ds, alg] = f"<small>{cells.loc[ds, alg]}</small>"
            elif lits.loc[ds, alg] == smallest[ds] and alg not in EXTRA:
                cells.loc[ds, alg] = f"**{cells.loc[ds, alg]}**"
    cells.columns = [f"{c}*" if c in EXTRA else c for c in cells.columns]
    display(Markdown(f"**{title}** (small: ROC-AUC more than {EXCLUDE_BELOW} below TURS'; bold: "
                     "fewest literals among the others" + ("; *: beyond the thesis" if EXTRA else "")
                     + ")\n\n" + markdown(cells)))


show(literals, kept, f"Table 3.5, ours ({profile} profile{': bundled data' if QUICK else ''})")
show(th_lits, th_kept, "Table 3.5, thesis")


# %%
def ecdf(ax, scores: pd.DataFrame, title: str) -> dict:
    """ECDF per algorithm, drawn with its turs.style; returns {algorithm: datasets behind it}."""
    counts = {}
    for alg in scores.columns:
        v = np.sort(scores[alg].dropna().to_numpy())
        counts[alg] = len(v)
        if len(v) == 0:
            continue
        y = np.arange(1, len(v) + 1) / len(v)
        ax.step(np.concatenate([[0], v, [max(1, v[-1])]]), np.concatenate([[0], y, [1]]), where="post",
                **style.algorithm_style(alg).line(marker=None), zorder=3 if alg == "TURS" else 2)
    ax.set_xlabel("comparative complexity\n(fewest literals on the dataset / own literals)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return counts


fig, axes = plt.subplots(1, 2, figsize=(12.5, 6.4), sharey=True)
n_ours = ecdf(axes[0], score, f"ours ({profile} profile{': bundled data' if QUICK else ''})")
n_thesis = ecdf(axes[1], th_score, "thesis (Tables 3.3 + 3.5)")
axes[0].set_ylabel("fraction of datasets with\ncomparative complexity at most x")
# one legend for both panels (an algorithm has the same colour and line in both), with the
# number of datasets behind each curve in ours / the thesis
order = ["TURS"] + [a for a in dict.fromkeys([*score.columns, *th_score.columns]) if a != "TURS" and a not in EXTRA]
order += EXTRA  # the extra rows last
handles = [plt.Line2D([], [], **style.algorithm_style(a).line(
    marker=None, label=f"{a}{'*' if a in EXTRA else ''} ({n_ours.get(a, '—') or '—'} / {n_thesis.get(a, '—') or '—'})"))
    for a in order]
fig.legend(handles=handles, loc="lower center", ncol=min(5, len(handles)), frameon=False,
           title="algorithm (datasets: ours / thesis)", bbox_to_anchor=(0.5, 0.045 if EXTRA else 0.0))
fig.suptitle(f"Figure 3.4: comparative model complexity (models > {EXCLUDE_BELOW} AUC below TURS excluded)")
if EXTRA:
    fig.text(0.01, 0.01, BEYOND_THESIS_NOTE, style="italic")
fig.tight_layout(rect=(0, 0.05 + 0.055 * ((len(handles) + 4) // 5) + (0.045 if EXTRA else 0), 1, 1))
save_figure(fig, OUT, "fig3_4_model_complexity")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_4_model_complexity.png")))


# %%
def describe(lits, keep, scores, who):
    lits, keep, scores = (t.drop(columns=EXTRA, errors="ignore") for t in (lits, keep, scores))
    smallest = lits.where(keep).min(axis=1)
    has = lits["TURS"].notna()
    simplest = int((lits["TURS"][has] == smallest[has]).sum())
    med = scores.median().dropna().sort_values(ascending=False)
    return (f"{who}: TURS is the simplest model (not substantially worse) on {simplest} of {int(has.sum())} "
            f"datasets; median comparative complexity " + ", ".join(f"{a} {v:.2f}" for a, v in med.items()))


summary = (describe(literals, kept, score, f"Ours ({profile} profile)") + ". "
           + describe(th_lits, th_kept, th_score, "Thesis") + ". "
           + ("As in the thesis, TURS has the largest median score (simplest models)."
              if score.drop(columns=EXTRA, errors="ignore").median().idxmax() == "TURS" else
              f"Unlike the thesis, {score.drop(columns=EXTRA, errors='ignore').median().idxmax()} has a larger "
              "median score than TURS here."))
for alg in EXTRA:  # beyond the thesis: against TURS on the datasets both have
    both = literals[[alg, "TURS"]].dropna()
    summary += (f" Beyond the thesis, {alg}: median {both[alg].median():.1f} literals on its {len(both)} (two-class) "
                f"datasets, where TURS has {both['TURS'].median():.1f}; fewer than TURS on "
                f"{int((both[alg] < both['TURS']).sum())} of them." if len(both) else
                f" Beyond the thesis, {alg}: no dataset with results.")
excluded = [(ds, a) for ds in kept.index for a in kept.columns if not kept.loc[ds, a] and pd.notna(literals.loc[ds, a])]
if excluded:
    summary += " Excluded as substantially worse: " + ", ".join(f"{a} on {ds}" for ds, a in excluded) + "."
missing = failures(frame[~frame["status"].eq("not_applicable")])  # two-class learners on multi-class data
if len(missing):
    summary += " Missing: " + "; ".join(f"{label(r.algorithm)} on {r.dataset} ({r.status})" for r in missing.itertuples()) + "."
print(summary)
_ = (OUT / "fig3_4_summary.txt").write_text(summary + "\n", encoding="utf-8")


# %% [markdown]
# ## Local explanation size: what one reads to explain one prediction
#
# Left: rules, right: literals (a rule list's earlier rules count with all their literals, a
# tree's path with its depth). One box per algorithm over the datasets, every dataset a point;
# the number under a name is its datasets. Lower is less to read.

# %%
local_rules = mean_table(frame, "local_rules")
local_literals = mean_table(frame, "local_literals")
local = pd.concat({"local_rules": local_rules, "local_literals": local_literals}, names=["metric", "dataset"])
local.to_csv(OUT / "fig3_4_local_explanation.csv")


def local_boxes(ax, table: pd.DataFrame, ylabel: str):
    cols = [c for c in table.columns]
    data = [table[c].dropna().to_numpy() for c in cols]
    positions = [i for i, d in enumerate(data) if len(d)]
    if positions:
        ax.boxplot([data[i] for i in positions], positions=positions, widths=0.6,
                   medianprops={"color": "black", "linewidth": 2}, showfliers=False)
    for i, (c, d) in enumerate(zip(cols, data)):
        if len(d):
            jitter = np.random.default_rng(i).uniform(-0.14, 0.14, len(d))
            ax.scatter(i + jitter, d, s=22, alpha=0.75, zorder=3, linewidths=0.4,
                       **style.algorithm_style(c).points(label=None, edgecolors="white"))
        else:
            ax.text(i, 0, "—", ha="center", va="bottom")
    ax.set_xticks(range(len(cols)))
    if len(cols) > 5:  # more names than fit side by side: slanted, with the count in brackets
        ax.set_xticklabels([f"{c}{'*' if c in EXTRA else ''} ({len(d)})" for c, d in zip(cols, data)],
                           rotation=30, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticklabels([f"{c}{'*' if c in EXTRA else ''}\n{len(d)}" for c, d in zip(cols, data)])
    for tick, c in zip(ax.get_xticklabels(), cols):
        if c == "TURS":
            tick.set_fontweight("bold")
        if c in EXTRA:
            tick.set_fontstyle("italic")
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3, which="both")


fig, axes = plt.subplots(1, 2, figsize=(12.5, 5.2))
local_boxes(axes[0], local_rules, "rules read to explain one prediction\n(mean over test rows; log scale)")
local_boxes(axes[1], local_literals, "literals read to explain one prediction\n(mean over test rows; log scale)")
fig.suptitle(f"Local explanation size ({profile} profile{': bundled data' if QUICK else ''}), "
             "beside Figure 3.4's whole-model complexity")
if EXTRA:
    fig.text(0.01, 0.01, BEYOND_THESIS_NOTE, style="italic")
fig.tight_layout(rect=(0, 0.04 if EXTRA else 0, 1, 1))
save_figure(fig, OUT, "fig3_4_local_explanation")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_4_local_explanation.png")))

# %%
med_rules, med_lits = local_rules.median().dropna(), local_literals.median().dropna()
local_summary = ("Local explanation size, median over the datasets (rules / literals to read for one prediction): "
                 + ", ".join(f"{a}{'*' if a in EXTRA else ''} {med_rules[a]:.2f} / {med_lits.get(a, np.nan):.1f} "
                             f"({int(local_rules[a].notna().sum())} datasets)" for a in med_rules.sort_values().index)
                 + ".")
if "TURS" in med_rules:
    fewer = [a for a in med_rules.index if a != "TURS" and med_lits.get(a, np.inf) < med_lits.get("TURS", np.nan)]
    local_summary += (" Fewer literals to read than TURS (median): " + ", ".join(fewer) + "." if fewer
                      else " No learner needs fewer literals than TURS to explain a prediction (median).")
print(local_summary)
_ = (OUT / "fig3_4_local_explanation.txt").write_text(local_summary + "\n", encoding="utf-8")
