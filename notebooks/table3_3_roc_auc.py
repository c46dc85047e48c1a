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
# # Table 3.3: ROC-AUC of TURS and its competitors
#
# Yang (2024), thesis §3.6.2. Mean test ROC-AUC over the 5 stratified folds
# (`StratifiedKFold(5, shuffle=True, random_state=2)`) per dataset and algorithm; macro
# one-vs-rest for multi-class data. The best AUC of each dataset is in **bold**, and TURS'
# gap to the best is in brackets, as in the thesis. The numbers come from `turs.bench`
# (`turs.reproduce.get_results`), computed once per profile and shared by all notebooks.
#
# A cell is "—" when not every fold finished with status `ok` (error, timeout, not installed,
# not applicable): the list of such tasks is printed below. DRS and IDS cannot be installed;
# only the thesis' numbers exist for them.
#
# With `profile = "quick"` the datasets are the five bundled ones, which differ from the thesis'
# (iris and wine are the same data as the thesis' iris and wine), so our table and the thesis'
# are shown one after the other. BRS is left out by default: it is for binary data only and
# takes minutes per fold.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (TURS_DATA_DIR)
algorithms = None  # None: turs.reproduce.THESIS_ALGORITHMS; add "brs" for the paper profile (slow)
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # the benchmark records; None: <repo>/results/<profile>
out_dir = None  # None: <repo>/figures (paper profile) or <repo>/build/figures

# %%
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from turs.reproduce import (
    THESIS_NAMES, benchmark_setup, failures, label, markdown, mean_table, thesis_table,
)

OUT, frame, ALGOS, EXTRA, QUICK = benchmark_setup(profile, algorithms, folds=folds, results_dir=results_dir,
                                                 out_dir=out_dir)
failures(frame)

# %% [markdown]
# ## Our table

# %%
auc = mean_table(frame, "roc_auc")
best = auc.max(axis=1)
table = auc.copy()
table["best"] = best
table["TURS_gap_to_best"] = auc["TURS"] - best if "TURS" in auc else np.nan
table.to_csv(OUT / "table3_3_roc_auc.csv")


def show(aucs: pd.DataFrame, title: str):
    """Bold the best of each row, TURS' gap to the best in brackets."""
    top = aucs.max(axis=1)
    bold = aucs.eq(top, axis=0)
    extra = pd.DataFrame("", index=aucs.index, columns=aucs.columns)
    if "TURS" in aucs:
        gap = aucs["TURS"] - top
        extra["TURS"] = [f"({g:.3f})" if pd.notna(g) and g < 0 else "" for g in gap]
    display(Markdown(f"**{title}**\n\n" + markdown(aucs, bold=bold, extra=extra)))


show(auc, f"Ours ({profile} profile{': bundled data' if QUICK else ''})")

# %% [markdown]
# ## The thesis' Table 3.3

# %%
thesis = thesis_table("table3_3_roc_auc")
show(thesis, "Thesis, Table 3.3")

# %% [markdown]
# ## Agreement with the thesis

# %%
def summary_of(aucs: pd.DataFrame, who: str) -> str:
    top = aucs.max(axis=1)
    gap = (aucs["TURS"] - top).dropna()
    n_best = int((gap >= -1e-12).sum())
    within = int((gap >= -0.01).sum())
    return (f"{who}: TURS has the best AUC on {n_best} of {len(gap)} datasets, is within 0.01 of the best "
            f"on {within}, and its mean gap to the best is {gap.mean():.3f} (worst {gap.min():.3f})")


sentences = [summary_of(auc, f"Ours ({profile} profile)"), summary_of(thesis, "Thesis")]
if QUICK:
    pairs = [(ours, th) for ours, th in THESIS_NAMES.items() if ours in auc.index and th in thesis.index]
else:
    pairs = [(d, d) for d in auc.index if d in thesis.index]
diffs = pd.DataFrame({
    a: [auc.loc[o, a] - thesis.loc[t, a] for o, t in pairs] for a in ALGOS if a in thesis.columns
}, index=[o for o, _ in pairs])
if len(diffs):
    close = diffs.abs().le(0.02) | diffs.isna()
    per_alg = ", ".join(
        f"{a} {int(diffs[a].abs().le(0.02).sum())}/{int(diffs[a].notna().sum())}" for a in diffs.columns
    )
    worst = diffs.abs().stack().idxmax()  # (dataset, algorithm)
    sentences.append(
        f"On the {len(pairs)} dataset(s) shared with the thesis ({', '.join(t for _, t in pairs)}), our AUC is "
        f"within 0.02 of the thesis' for: {per_alg}; the largest difference is "
        f"{diffs.loc[worst]:+.3f} ({worst[1]} on {worst[0]})"
    )
    if QUICK and not close.all().all():
        sentences[-1] += " (the bundled copies' row order, hence the folds, may differ from the thesis' files)"
missing = failures(frame)
if len(missing):
    sentences.append("Missing (—): " + "; ".join(
        f"{label(r.algorithm)} on {r.dataset} ({r.status}, folds {r.folds})" for r in missing.itertuples()))
summary = ". ".join(sentences) + "."
print(summary)
_ = (OUT / "table3_3_summary.txt").write_text(summary + "\n", encoding="utf-8")
diffs
