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

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (needs TURS_DATA_DIR)
algorithms = "turs,cart,c45,ripper,cn2,classy"  # add "brs" for the paper profile (binary data only, ~260 s/fold)
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # shared benchmark records; None: <repo>/results/<profile>
out_dir = None  # where figures and tables go; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
n_jobs = 2  # worker processes for the tasks still missing

# %%
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402

from turs import style  # noqa: E402
from turs.reproduce import (  # noqa: E402
    failures, get_results, label, mean_table, output_dir, save_figure, thesis_table,
)

style.apply()
warnings.filterwarnings("ignore", message=".*IProgress.*")  # tqdm.auto without ipywidgets: a text bar
OUT = output_dir(out_dir, profile)
frame = get_results(profile, algorithms, results_dir=results_dir, n_jobs=n_jobs, folds=folds)
ALGOS = [label(a) for a in frame.attrs["algorithms"]]
QUICK = profile != "paper"  # the bundled datasets are not the thesis' ones
failures(frame)

# %%
auc = mean_table(frame, "roc_auc")
thesis = thesis_table("table3_3_roc_auc")


def gaps(aucs: pd.DataFrame) -> pd.DataFrame:
    """AUC minus the best AUC of the dataset (among the algorithms in the table)."""
    return aucs.sub(aucs.max(axis=1), axis=0)


ours_gap, thesis_gap = gaps(auc), gaps(thesis)
ours_gap.to_csv(OUT / "fig3_2_gap_to_best.csv")
ours_gap


# %%
def boxes(ax, gap: pd.DataFrame, title: str):
    """One box per algorithm over the datasets, with every dataset as a point in the algorithm's
    colour and marker (turs.style: the same in both panels and in every figure)."""
    cols = list(gap.columns)
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
    ax.set_xticklabels([f"{c}\n{len(d)}" for c, d in zip(cols, data)])
    for tick, c in zip(ax.get_xticklabels(), cols):
        if c == "TURS":
            tick.set_fontweight("bold")
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
fig.tight_layout()
save_figure(fig, OUT, "fig3_2_gap_to_best")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_2_gap_to_best.png")))

# %%
def describe(gap: pd.DataFrame, who: str) -> str:
    med = gap.median().dropna().sort_values(ascending=False)
    mean = gap.mean().dropna()
    rank = list(med.index).index("TURS") + 1 if "TURS" in med else None
    others = med.drop("TURS", errors="ignore")
    return (f"{who}: TURS' median gap to the best is {med.get('TURS', np.nan):.3f} (mean {mean.get('TURS', np.nan):.3f}, "
            f"worst {gap['TURS'].min():.3f}), rank {rank} of {len(med)} by median"
            + (f"; the best other median is {others.iloc[0]:.3f} ({others.index[0]})" if len(others) else ""))


ours_s = describe(ours_gap, f"Ours ({profile} profile, {ours_gap['TURS'].notna().sum()} datasets)")
thesis_s = describe(thesis_gap, "Thesis (31 datasets, 9 algorithms)")
worst_ours = ours_gap.min().idxmin()
summary = (f"{ours_s}. {thesis_s}. The algorithm with the largest gap is {worst_ours} in ours "
           f"({ours_gap.min().min():.3f}) and {thesis_gap.min().idxmin()} in the thesis "
           f"({thesis_gap.min().min():.3f}). "
           + ("As in the thesis, TURS has the smallest median gap to the best." if
              ours_gap.median().idxmax() == "TURS" else
              "Unlike the thesis, TURS does not have the smallest median gap here."))
missing = failures(frame)
if len(missing):
    summary += " Missing: " + "; ".join(f"{label(r.algorithm)} on {r.dataset} ({r.status})" for r in missing.itertuples()) + "."
print(summary)
_ = (OUT / "fig3_2_summary.txt").write_text(summary + "\n", encoding="utf-8")
