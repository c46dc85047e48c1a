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
# # Figure 3.2: gap to the best ROC-AUC
#
# Yang (2024), thesis §3.6.2. For every dataset, each algorithm's mean test ROC-AUC minus the
# best mean ROC-AUC on that dataset (so 0 is best, more negative is worse); one box per
# algorithm over the datasets. The thesis finds TURS' gaps much smaller and more stable than its
# competitors'.
#
# Left panel: ours, from `turs.bench` (`turs.reproduce.get_results`). Right panel: the same
# computation on the thesis' Table 3.3 (all 31 datasets, DRS and IDS included). With
# `profile = "quick"` our datasets are the five bundled ones, not the thesis'. An algorithm
# whose folds did not all finish on a dataset is left out of that dataset (it has no AUC there),
# and the number of datasets behind each box is printed under its name. Each algorithm has the
# colour and marker of `turs.style`, the same in both panels and in every figure.
#
# **Beyond the thesis**: the seed papers' learners (`beyond_thesis`: the submodular
# rule sets of seed 004 and LIRE of seed 002, re-implemented in `turs.competitors`) are extra
# boxes on the right of the left panel, their labels marked "*". They handle two classes only,
# so they have fewer datasets. The best AUC of a dataset is taken over the thesis' algorithms,
# so their boxes do not move the others; an extra learner above that best has a positive gap.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (TURS_DATA_DIR)
algorithms = None  # None: turs.reproduce.THESIS_ALGORITHMS; add "brs" for the paper profile (slow)
beyond_thesis = "submodular,lire"  # extra rows marked "*" (two-class datasets only); "" for none
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # the benchmark records; None: <repo>/results/<profile>
out_dir = None  # None: <repo>/figures (paper profile) or <repo>/build/figures

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402

from turs import style  # noqa: E402
from turs.reproduce import (  # noqa: E402
    BEYOND_THESIS_NOTE, benchmark_setup, failures, label, mean_table, save_figure, thesis_table,
)

OUT, frame, ALGOS, EXTRA, QUICK = benchmark_setup(profile, algorithms, beyond_thesis, folds=folds, results_dir=results_dir,
                                                 out_dir=out_dir)
failures(frame)

# %%
auc = mean_table(frame, "roc_auc")
thesis = thesis_table("table3_3_roc_auc")


def gaps(aucs: pd.DataFrame) -> pd.DataFrame:
    """AUC minus the best AUC of the dataset among the thesis' algorithms in the table (the
    extra rows beyond the thesis are measured against that best too, so they can be above 0)."""
    return aucs.sub(aucs.drop(columns=EXTRA, errors="ignore").max(axis=1), axis=0)


ours_gap, thesis_gap = gaps(auc), gaps(thesis)
ours_gap.to_csv(OUT / "fig3_2_gap_to_best.csv")
ours_gap


# %%
def boxes(ax, gap: pd.DataFrame, title: str):
    """One box per algorithm over the datasets, with every dataset as a point in the algorithm's
    colour and marker (turs.style: the same in both panels and in every figure)."""
    cols = list(gap.columns)
    extra = [c in EXTRA for c in cols]
    data = [gap[c].dropna().to_numpy() for c in cols]
    positions = [i for i, d in enumerate(data) if len(d)]
    ax.boxplot([data[i] for i in positions], positions=positions, widths=0.6,
               medianprops={"color": "black", "linewidth": 2}, showfliers=False)
    for i, (c, d) in enumerate(zip(cols, data)):  # the points too: with few datasets a box hides them
        if len(d):
            jitter = np.random.default_rng(i).uniform(-0.14, 0.14, len(d))
            ax.scatter(i + jitter, d, s=22, alpha=0.75, zorder=3, linewidths=0.4,
                       **style.algorithm_style(c).points(label=None, edgecolors="white"))
        else:
            ax.text(i, 0, "—", ha="center", va="bottom")
    ax.set_xticks(range(len(cols)))
    if any(extra):  # more names than fit side by side: slanted, with the count in brackets
        ax.set_xticklabels([f"{c}{'*' if e else ''} ({len(d)})" for c, d, e in zip(cols, data, extra)],
                           rotation=30, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticklabels([f"{c}\n{len(d)}" for c, d in zip(cols, data)])
    for tick, c, e in zip(ax.get_xticklabels(), cols, extra):
        if c == "TURS":
            tick.set_fontweight("bold")
        if e:
            tick.set_fontstyle("italic")
    if any(extra):  # a line between the thesis' algorithms and the extra rows
        ax.axvline(extra.index(True) - 0.5, color="0.4", linestyle=":", linewidth=1.2)
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)


fig, axes = plt.subplots(1, 2, figsize=(12.5, 5.2), sharey=True,
                         gridspec_kw={"width_ratios": [max(len(ours_gap.columns), 4), len(thesis_gap.columns)]})
boxes(axes[0], ours_gap, f"ours ({profile} profile{': bundled data' if QUICK else ''})")
boxes(axes[1], thesis_gap, "thesis (Table 3.3)")
axes[0].set_ylabel("ROC-AUC minus the best ROC-AUC\nof the dataset (0 = best)")
axes[0].set_xlabel("algorithm and number of datasets")
axes[1].set_xlabel("algorithm and number of datasets")
fig.suptitle("Figure 3.2: gap to the best ROC-AUC per dataset")
if EXTRA:
    fig.text(0.01, 0.01, BEYOND_THESIS_NOTE + ";\ntheir gap is to the best of the thesis' algorithms", style="italic")
fig.tight_layout(rect=(0, 0.08 if EXTRA else 0, 1, 1))
save_figure(fig, OUT, "fig3_2_gap_to_best")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_2_gap_to_best.png")))

# %%
def describe(gap: pd.DataFrame, who: str) -> str:
    gap = gap.drop(columns=EXTRA, errors="ignore")  # the thesis' statement is about its algorithms
    med = gap.median().dropna().sort_values(ascending=False)
    mean = gap.mean().dropna()
    rank = list(med.index).index("TURS") + 1 if "TURS" in med else None
    others = med.drop("TURS", errors="ignore")
    return (f"{who}: TURS' median gap to the best is {med.get('TURS', np.nan):.3f} (mean {mean.get('TURS', np.nan):.3f}, "
            f"worst {gap['TURS'].min():.3f}), rank {rank} of {len(med)} by median"
            + (f"; the best other median is {others.iloc[0]:.3f} ({others.index[0]})" if len(others) else ""))


ours_s = describe(ours_gap, f"Ours ({profile} profile, {ours_gap['TURS'].notna().sum()} datasets)")
thesis_s = describe(thesis_gap, "Thesis (31 datasets, 9 algorithms)")
thesis_algos = ours_gap.drop(columns=EXTRA, errors="ignore")
worst_ours = thesis_algos.min().idxmin()
summary = (f"{ours_s}. {thesis_s}. The algorithm with the largest gap is {worst_ours} in ours "
           f"({thesis_algos.min().min():.3f}) and {thesis_gap.min().idxmin()} in the thesis "
           f"({thesis_gap.min().min():.3f}). "
           + ("As in the thesis, TURS has the smallest median gap to the best." if
              thesis_algos.median().idxmax() == "TURS" else
              "Unlike the thesis, TURS does not have the smallest median gap here."))
for alg in EXTRA:  # beyond the thesis: against TURS on the datasets both have
    both = ours_gap[[alg, "TURS"]].dropna()
    if len(both):
        summary += (f" Beyond the thesis, {alg}: median gap {both[alg].median():.3f} on its {len(both)} "
                    f"(two-class) datasets, where TURS' is {both['TURS'].median():.3f}; above TURS on "
                    f"{int((both[alg] > both['TURS']).sum())} of them.")
    else:
        summary += f" Beyond the thesis, {alg}: no dataset with results."
missing = failures(frame[~frame["status"].eq("not_applicable")])  # two-class learners on multi-class data
if len(missing):
    summary += " Missing: " + "; ".join(f"{label(r.algorithm)} on {r.dataset} ({r.status})" for r in missing.itertuples()) + "."
print(summary)
_ = (OUT / "fig3_2_summary.txt").write_text(summary + "\n", encoding="utf-8")
