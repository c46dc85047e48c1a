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
# # Figure 3.5: ablation of the diverse-patience beam search
#
# Yang (2024), thesis §3.6.6 ("Ablation study 1: diverse patience beam search").
#
# When TURS grows a rule, its beam keeps the best growth candidates **per coverage-ratio
# bucket** (how much of its parent rule's coverage a candidate keeps, §3.5.2): some "patient"
# candidates that shrink the coverage a little, some "greedy" ones that shrink it a lot. The
# ablation replaces this with a plain beam, the top-$W$ candidates by the learning-speed score
# (Eq. 3.21) whatever their coverage, in both the main and the auxiliary beam.
#
# **The study**: on every dataset and fold of the profile, fit TURS with the thesis settings
# (benchmark algorithm `turs`) and without diverse patience (`turs-nopatience`,
# `use_patience=False`), through the resumable benchmark harness (`turs.bench`, see
# `docs/benchmark.md`): tasks that already have a record in `results_dir` are not rerun.
#
# **Figure 3.5**: per dataset, the mean test ROC-AUC over the folds *with* minus *without*
# diverse patience, datasets sorted by that difference. The thesis reports that diverse patience
# improves the ROC-AUC on 25 of its 31 datasets.

# %% tags=["parameters"]
profile = "quick"  # benchmark profile: "quick" (5 bundled datasets) or "paper" (30 thesis datasets)
results_dir = None  # harness records (resumable); None: <repo>/results/<profile>
out_dir = None  # where the figure and table go; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
folds = None  # folds to use, e.g. "0,1" or [0, 1]; None: the profile's (all 5)
datasets = None  # datasets to use, e.g. "sklearn-iris,sklearn-wine"; None: the profile's
n_jobs = 2  # worker processes of the harness
timeout = 600  # seconds per task before the harness kills it (recorded as "timeout")

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402

from turs import style  # noqa: E402
from turs.reproduce import benchmark_setup, failures, save_figure  # noqa: E402

# %% [markdown]
# ## Run the missing tasks
#
# TURS with and without diverse patience, one harness task per dataset and fold
# (`turs.reproduce.benchmark_setup`); a task with a record is not run again.

# %%
WITH, WITHOUT = "turs", "turs-nopatience"
OUT, frame, _, _, _ = benchmark_setup(profile, [WITH, WITHOUT], folds=folds, results_dir=results_dir,
                                      out_dir=out_dir, n_jobs=n_jobs, datasets=datasets, timeout=timeout)
print(f"profile {profile!r}: {len(frame.attrs['datasets'])} dataset(s), folds {frame.attrs['folds']}")

# %% [markdown]
# ## Per-dataset ROC-AUC with and without diverse patience
#
# From the harness summary (`turs.bench.summarize`) of these tasks' records (default
# settings). A fold counts only when both algorithms finished it (`status == "ok"`), so the two
# means are over the same folds. `auc_diff` = mean AUC with − mean AUC without; `helps` is
# `auc_diff > 0`.

# %%
not_ok = failures(frame)
if len(not_ok):
    print("these tasks did not finish and are left out:")
    print(not_ok.to_string(index=False))
auc = frame[frame["status"] == "ok"].pivot_table(index=["dataset", "fold"], columns="algorithm", values="roc_auc")
auc = auc.reindex(columns=[WITH, WITHOUT]).dropna()  # paired folds only
auc["diff"] = auc[WITH] - auc[WITHOUT]

grouped = auc.groupby("dataset")
table = pd.DataFrame({
    "n_folds": grouped.size(),
    "auc_with_patience": grouped[WITH].mean(),
    "auc_without_patience": grouped[WITHOUT].mean(),
})
table["auc_diff"] = table["auc_with_patience"] - table["auc_without_patience"]
table["folds_better"] = grouped["diff"].apply(lambda d: int((d > 0).sum()))
table["folds_worse"] = grouped["diff"].apply(lambda d: int((d < 0).sum()))
table["helps"] = table["auc_diff"] > 0
table = table.sort_values(["auc_diff", "auc_with_patience"], kind="stable").reset_index()
table.to_csv(OUT / "fig3_5_diverse_patience.csv", index=False)
table

# %%
THESIS_HELPS, THESIS_N = 25, 31  # thesis §3.6.6: "better on 25 out of 31 datasets"
n = len(table)
helps = int(table["helps"].sum())
hurts = int((table["auc_diff"] < 0).sum())
ties = n - helps - hurts
best, worst = table.iloc[-1], table.iloc[0]
summary = (
    f"With diverse patience the mean test ROC-AUC is higher on {helps} of {n} datasets "
    f"({100 * helps / n:.0f}%), lower on {hurts} and equal on {ties}; "
    f"the thesis reports higher on {THESIS_HELPS} of {THESIS_N} ({100 * THESIS_HELPS / THESIS_N:.0f}%). "
    f"Mean difference (with - without) {table['auc_diff'].mean():+.4f}, median {table['auc_diff'].median():+.4f}; "
    f"largest gain {best['auc_diff']:+.4f} on {best['dataset']}, largest loss {worst['auc_diff']:+.4f} on {worst['dataset']}. "
    f"Profile {profile!r}, {int(table['n_folds'].sum())} paired folds."
) if n else "No dataset has a fold finished by both algorithms."
print(summary)
_ = (OUT / "fig3_5_diverse_patience_summary.txt").write_text(summary + "\n", encoding="utf-8")

# %% [markdown]
# ## Figure 3.5
#
# The large points are the per-dataset differences of the mean ROC-AUC (as in the thesis), in
# the colour and marker of TURS in every figure (`turs.style`); the small grey dots are the
# per-fold differences. Points, not a line: neighbouring datasets are unrelated. Above zero,
# diverse patience helps.

# %%
fig, ax = plt.subplots(figsize=(min(12.5, max(6.4, 0.34 * n + 2.5)), 5.2))
x = np.arange(n)
position = dict(zip(table["dataset"], x))
per_fold = auc.reset_index()
ax.scatter(per_fold["dataset"].map(position), per_fold["diff"], s=14, color=style.NEUTRAL, zorder=2,
           label="one fold")
ax.scatter(x, table["auc_diff"], s=48, zorder=3,
           **style.algorithm_style("turs").points(label="mean over the folds"))
ax.axhline(0.0, color="black", linewidth=0.8)
ax.set_xticks(x)
ax.set_xticklabels(table["dataset"], rotation=60, ha="right")
ax.set_xlim(-0.6, n - 0.4)
ax.set_xlabel("dataset (sorted by the mean difference)")
ax.set_ylabel("test ROC-AUC with − without\ndiverse patience")
ax.set_title(f"Figure 3.5: diverse patience helps on {helps} of {n} datasets (thesis: {THESIS_HELPS} of {THESIS_N})")
ax.grid(axis="y", alpha=0.3)
ax.legend(loc="upper left")
fig.tight_layout()
save_figure(fig, OUT, "fig3_5_diverse_patience")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_5_diverse_patience.png")))

# %%
print("written:", *(str(OUT / f) for f in ("fig3_5_diverse_patience.csv", "fig3_5_diverse_patience_summary.txt",
                                            "fig3_5_diverse_patience.png", "fig3_5_diverse_patience.pdf")), sep="\n  ")
