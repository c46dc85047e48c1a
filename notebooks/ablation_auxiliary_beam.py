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
# # Ablation beyond the thesis: the auxiliary beam
#
# Yang (2024), thesis §3.5.2 ("auxiliary beam"). Besides the main beam, ranked by the
# learning-speed score (Eq. 3.21) on all the instances a rule covers, TURS keeps an
# **auxiliary beam** ranked by a complementary score computed only on the instances the rule set
# does not cover yet ($S \setminus M$), so that rules already in the rule set do not block new
# ones. The thesis motivates it but has no ablation for it; this notebook adds one.
#
# **The study**: on every dataset and fold of the profile, fit TURS with the thesis settings
# (benchmark algorithm `turs`) and without the auxiliary beam (`turs-noaux`,
# `use_auxiliary_beam=False`), through the resumable benchmark harness (`turs.bench`, see
# `docs/benchmark.md`); tasks that already have a record in `results_dir` are not rerun. We
# compare two things per dataset, averaged over the folds:
#
# * the **test ROC-AUC** (higher is better), and
# * the **MDL score** of the learned rule set on its training fold (Eq. 3.20, bits; lower is
#   better), the quantity the search tries to minimise; it is the harness column `mdl_score`
#   (the record's `extra`).
#
# **The reference implementation** (the authors' public TURS code, measured on this machine
# type, `../shared/anchors/reference_turs2_runs.csv`) was run with the auxiliary beam on
# (variant `cyaux`) and off (`cy`); its final MDL score per training fold (`total_cl_bits`) is
# compared in the same way, as a separate panel and table. Without `../shared` the copy of its
# columns in `data/results/reference_turs2_runs.csv` is used.

# %% tags=["parameters"]
profile = "quick"  # benchmark profile: "quick" (5 bundled datasets) or "paper" (30 thesis datasets)
results_dir = None  # harness records (resumable); None: <repo>/results/<profile>
out_dir = None  # where the figure and tables go; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
folds = None  # folds to use, e.g. "0,1" or [0, 1]; None: the profile's (all 5)
datasets = None  # datasets to use, e.g. "sklearn-iris,sklearn-wine"; None: the profile's
n_jobs = 2  # worker processes of the harness
timeout = 600  # seconds per task before the harness kills it (recorded as "timeout")
reference_csv = None  # the reference implementation's runs; None: ../shared/anchors/reference_turs2_runs.csv, else its copy in data/results; "": skip

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402

from turs import style  # noqa: E402
from turs.reproduce import benchmark_setup, failures, reference_runs, save_figure  # noqa: E402

# %% [markdown]
# ## Run the missing tasks
#
# One task per (dataset, fold, algorithm) through `turs.reproduce.get_results`; finished tasks
# are skipped, so rerunning the notebook costs nothing.

# %%
AUX, NOAUX = "turs", "turs-noaux"
OUT, frame, _, _, _ = benchmark_setup(profile, [AUX, NOAUX], folds=folds, results_dir=results_dir,
                                      out_dir=out_dir, n_jobs=n_jobs, datasets=datasets, timeout=timeout)
print(f"profile {profile!r}: {len(frame.attrs['datasets'])} dataset(s), folds {frame.attrs['folds']}")

# %% [markdown]
# ## Per-dataset ROC-AUC and MDL score with and without the auxiliary beam
#
# From the harness summary (`turs.bench.summarize`) of these tasks' records (default settings).
# A fold counts only when both algorithms finished it (`status == "ok"`). Differences are
# *with − without* the auxiliary beam: `auc_diff > 0` means the auxiliary beam raised the test
# ROC-AUC, `mdl_diff < 0` that it found a rule set with a lower (better) MDL score;
# `mdl_diff_pct` is `mdl_diff` in percent of the score without it.

# %%
not_ok = failures(frame)
if len(not_ok):
    print("these tasks did not finish and are left out:")
    print(not_ok.to_string(index=False))
ok = frame[frame["status"] == "ok"].copy()
ok["mdl_score"] = pd.to_numeric(ok["mdl_score"], errors="coerce")
wide = ok.pivot_table(index=["dataset", "fold"], columns="algorithm", values=["roc_auc", "mdl_score", "n_rules"])
wide = wide.dropna(subset=[("roc_auc", AUX), ("roc_auc", NOAUX), ("mdl_score", AUX), ("mdl_score", NOAUX)])
means = wide.groupby("dataset").mean()
table = pd.DataFrame({
    "n_folds": wide.groupby("dataset").size(),
    "auc_aux": means[("roc_auc", AUX)],
    "auc_noaux": means[("roc_auc", NOAUX)],
    "mdl_aux": means[("mdl_score", AUX)],
    "mdl_noaux": means[("mdl_score", NOAUX)],
    "n_rules_aux": means[("n_rules", AUX)],
    "n_rules_noaux": means[("n_rules", NOAUX)],
})
table["auc_diff"] = table["auc_aux"] - table["auc_noaux"]
table["mdl_diff"] = table["mdl_aux"] - table["mdl_noaux"]
table["mdl_diff_pct"] = 100 * table["mdl_diff"] / table["mdl_noaux"]
table["aux_raises_auc"] = table["auc_diff"] > 0
table["aux_lowers_mdl"] = table["mdl_diff"] < 0
table = table.sort_values(["mdl_diff_pct", "auc_diff"], kind="stable").reset_index()
table.to_csv(OUT / "ablation_auxiliary_beam.csv", index=False)
table

# %% [markdown]
# ## The reference implementation: `cyaux` (auxiliary beam on) vs `cy` (off)
#
# Reference dataset names are mapped to ours through the data registry (`HeartCleveland` ->
# `heartcleveland`; an ADBench file `glass.npz` -> `glass-2`). Where a dataset was rerun with all
# five folds (variants `cy5aux`/`cy5`), those runs are used. Only folds finished by both
# variants count; MDL score = `total_cl_bits` (data + model code length, bits, training fold).

# %%
ref_path = None
if reference_csv is None:
    runs = reference_runs()
elif reference_csv:
    runs = reference_runs(reference_csv)
    if runs is None:
        print(f"{reference_csv} does not exist; the reference comparison is skipped.")
else:
    runs = None

reference = pd.DataFrame()
if runs is not None:
    ref_path = runs.attrs["path"]
    runs = runs[(runs["status"] == "ok") & runs["variant"].isin(["cy", "cyaux", "cy5", "cy5aux"])].copy()
    runs["aux"] = runs["variant"].str.endswith("aux")
    runs["five"] = runs["variant"].str.startswith("cy5")
    rows = []
    for name, runs_d in runs.groupby("dataset"):
        if runs_d["five"].all() or (runs_d.loc[runs_d["five"], "aux"].nunique() == 2):
            runs_d = runs_d[runs_d["five"]]  # the complete 5-fold rerun of both variants
        else:
            runs_d = runs_d[~runs_d["five"]]
        pair = runs_d.pivot_table(index="fold", columns="aux", values=["total_cl_bits", "roc_auc_test"]).dropna()
        if pair.empty or pair["total_cl_bits"].shape[1] < 2:
            continue  # only one variant finished (e.g. pendigits, waveform)
        m = pair.mean()
        rows.append({
            "dataset": runs_d["thesis_name"].fillna(name).iloc[0], "reference_name": name,
            "variants": "/".join(sorted(runs_d["variant"].unique())), "n_folds": len(pair),
            "mdl_aux": m[("total_cl_bits", True)], "mdl_noaux": m[("total_cl_bits", False)],
            "auc_aux": m[("roc_auc_test", True)], "auc_noaux": m[("roc_auc_test", False)],
        })
    reference = pd.DataFrame(rows)
    reference["mdl_diff"] = reference["mdl_aux"] - reference["mdl_noaux"]
    reference["mdl_diff_pct"] = 100 * reference["mdl_diff"] / reference["mdl_noaux"]
    reference["auc_diff"] = reference["auc_aux"] - reference["auc_noaux"]
    ours_pct = table.set_index("dataset")["mdl_diff_pct"]
    reference["ours_mdl_diff_pct"] = reference["dataset"].map(ours_pct)  # on the datasets we ran too
    reference = reference.sort_values(["mdl_diff_pct", "dataset"], kind="stable").reset_index(drop=True)
    reference.to_csv(OUT / "ablation_auxiliary_beam_reference.csv", index=False)
    print(f"reference runs: {ref_path}")
else:
    print("No reference runs (../shared/anchors/reference_turs2_runs.csv nor data/results/); that comparison is skipped.")
reference

# %%
def count(diff: pd.Series, better) -> tuple[int, int, int]:
    """(better, worse, equal) datasets; `better` is np.less or np.greater against 0."""
    b = int(better(diff, 0).sum())
    e = int((diff.abs() < 1e-9).sum())
    return b, len(diff) - b - e, e


n = len(table)
if n:
    mdl_b, mdl_w, mdl_e = count(table["mdl_diff"], np.less)
    auc_b, auc_w, auc_e = count(table["auc_diff"], np.greater)
    summary = (
        f"With the auxiliary beam the mean training MDL score is lower on {mdl_b} of {n} datasets, "
        f"higher on {mdl_w} and equal on {mdl_e} (mean change {table['mdl_diff_pct'].mean():+.2f}%, "
        f"median {table['mdl_diff_pct'].median():+.2f}%); the mean test ROC-AUC is higher on {auc_b} of {n}, "
        f"lower on {auc_w} and equal on {auc_e} (mean difference {table['auc_diff'].mean():+.4f}). "
        f"Profile {profile!r}, {int(table['n_folds'].sum())} paired folds."
    )
else:
    summary = "No dataset has a fold finished by both algorithms."
if len(reference):
    r = len(reference)
    ref_b, ref_w, ref_e = count(reference["mdl_diff"], np.less)
    rauc_b, rauc_w, rauc_e = count(reference["auc_diff"], np.greater)
    summary += (
        f" In the reference implementation (cyaux vs cy) the auxiliary beam lowers the MDL score on "
        f"{ref_b} of {r} datasets, raises it on {ref_w} and leaves it equal on {ref_e} "
        f"(mean change {reference['mdl_diff_pct'].mean():+.2f}%); it raises the test ROC-AUC on {rauc_b} of {r}, "
        f"lowers it on {rauc_w} and leaves it equal on {rauc_e}."
    )
    both = reference.dropna(subset=["ours_mdl_diff_pct"])
    if len(both):
        same = int((np.sign(both["ours_mdl_diff_pct"].round(9)) == np.sign(both["mdl_diff_pct"].round(9))).sum())
        summary += f" On the {len(both)} dataset(s) in both, the sign of the MDL change agrees on {same}."
print(summary)
_ = (OUT / "ablation_auxiliary_beam_summary.txt").write_text(summary + "\n", encoding="utf-8")

# %% [markdown]
# ## Figure
#
# Left and middle: our implementation, datasets sorted by the relative MDL change (largest
# decrease on top). Blue bars: the auxiliary beam is better (a higher test ROC-AUC, a lower
# training MDL score); orange: it is worse; grey: no change (blue/orange: `turs.style`, readable
# with any colour vision). Right (when the reference runs are there): the same MDL change for the
# authors' implementation, with ours as a black dot on the datasets we ran too.

# %%
panels = 3 if len(reference) else 2
height = max(4.0, 0.3 * max(n, len(reference)) + 2.4)
fig, axes = plt.subplots(1, panels, figsize=(4.3 * panels, height), squeeze=False)
axes = axes[0]
y = np.arange(n)


def bars(ax, values, labels, title, xlabel, good):
    colours = [style.BETTER if g else (style.WORSE if abs(v) > 1e-12 else style.NEUTRAL) for v, g in zip(values, good)]
    ax.barh(np.arange(len(values)), values, color=colours, height=0.7)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.use_sticky_edges = False  # leave room on both sides of zero even when all bars share a sign
    ax.margins(x=0.08)
    ax.set_yticks(np.arange(len(values)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(values) - 0.4, -0.6)  # the first row of the table on top
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


bars(axes[0], table["auc_diff"], table["dataset"],
     f"test ROC-AUC:\nhigher on {int(table['aux_raises_auc'].sum())} of {n}",
     "test ROC-AUC, with − without\nthe auxiliary beam", table["aux_raises_auc"])
bars(axes[1], table["mdl_diff_pct"], table["dataset"],
     f"training MDL score:\nlower on {int(table['aux_lowers_mdl'].sum())} of {n}",
     "training MDL score, with vs without\nthe auxiliary beam (% change)", table["aux_lowers_mdl"])
axes[1].tick_params(labelleft=False)
if len(reference):
    ax = axes[2]
    bars(ax, reference["mdl_diff_pct"], reference["dataset"],
         f"authors' implementation, MDL:\nlower on {int((reference['mdl_diff'] < 0).sum())} of {len(reference)}",
         "training MDL score, with vs without\nthe auxiliary beam (% change)", reference["mdl_diff"] < 0)
    has = reference["ours_mdl_diff_pct"].notna()
    if has.any():
        ax.scatter(reference.loc[has, "ours_mdl_diff_pct"], np.flatnonzero(has), color="black", s=20,
                   zorder=3, label="ours")
        ax.legend(loc="lower left")
fig.suptitle(f"The auxiliary beam on vs off ({profile} profile); blue: the auxiliary beam is better, "
             "orange: worse")
fig.tight_layout()
save_figure(fig, OUT, "ablation_auxiliary_beam")
plt.close(fig)
display(Image(filename=str(OUT / "ablation_auxiliary_beam.png")))

# %%
written = ["ablation_auxiliary_beam.csv", "ablation_auxiliary_beam_summary.txt",
           "ablation_auxiliary_beam.png", "ablation_auxiliary_beam.pdf"]
if len(reference):
    written.insert(1, "ablation_auxiliary_beam_reference.csv")
print("written:", *(str(OUT / f) for f in written), sep="\n  ")
