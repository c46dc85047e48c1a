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
# # Figure 3.7: runtime
#
# Yang (2024), thesis §3.6.8. Mean fit time in seconds over the folds per dataset (the
# adapter's `fit` only; JIT warm-up excluded; `fit_seconds` of the records), log10 y axis. The
# thesis plots the rule-set methods only (TURS, CN2, BRS, DRS, IDS) and finds TURS "competitive
# among all rule set methods except for CN2", which is faster and scales better.
#
# Solid lines: the rule-set methods we ran (TURS, CN2, BRS when run). Thin dashed lines: the
# rule lists and trees (for context; the thesis leaves them out as highly optimised).
# **TURS2** (grey squares): the authors' public TURS implementation with the thesis' dual beam
# (variant `cyaux`, and `cy5aux` for chess and mammography) measured on this machine type, from
# `../shared/anchors/reference_turs2_runs.csv` (skipped when the file is absent); on the quick
# profile only iris and wine have such a time (the same data as `sklearn-iris`, `sklearn-wine`).
# The thesis' own times are only in its figure (no table), so they are not redrawn. Machines
# differ and other work may run at the same time: compare ratios of 10x or more, not small ones.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (needs TURS_DATA_DIR)
algorithms = "turs,cart,c45,ripper,cn2,classy"  # add "brs" for the paper profile (binary data only, ~260 s/fold)
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # shared benchmark records; None: <repo>/results/<profile>
out_dir = None  # where figures and tables go; None: <repo>/figures
n_jobs = 2  # worker processes for the tasks still missing

# %%
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, Markdown, display  # noqa: E402

from turs.reproduce import (  # noqa: E402
    THESIS_NAMES, failures, get_results, label, markdown, mean_table, output_dir, reference_runs, save_figure,
)

warnings.filterwarnings("ignore", message=".*IProgress.*")  # tqdm.auto without ipywidgets: a text bar
OUT = output_dir(out_dir)
frame = get_results(profile, algorithms, results_dir=results_dir, n_jobs=n_jobs, folds=folds)
ALGOS = [label(a) for a in frame.attrs["algorithms"]]
QUICK = profile != "paper"  # the bundled datasets are not the thesis' ones
failures(frame)

# %%
RULE_SETS = ["TURS", "CN2", "BRS"]
seconds = mean_table(frame, "fit_seconds")

runs = reference_runs()
turs2 = pd.Series(dtype=float, name="TURS2")
if runs is not None:
    runs = runs[runs["variant"].isin(["cyaux", "cy5aux"]) & (runs["status"] == "ok")]
    turs2 = runs.dropna(subset=["thesis_name"]).groupby("thesis_name")["fit_seconds"].mean().rename("TURS2")
    print(f"TURS2 reference times for {len(turs2)} thesis datasets from {runs.attrs['path']}")
else:
    print("no TURS2 reference times: ../shared/anchors/reference_turs2_runs.csv does not exist")
to_thesis = (lambda d: THESIS_NAMES.get(d)) if QUICK else (lambda d: d)
seconds["TURS2"] = [turs2.get(to_thesis(d), np.nan) for d in seconds.index]
seconds.to_csv(OUT / "fig3_7_runtime.csv")
display(Markdown(f"**Mean fit seconds ({profile} profile)**\n\n" + markdown(seconds, digits=2)))

# %%
fig, ax = plt.subplots(figsize=(max(6.4, 0.45 * len(seconds) + 3), 4.6))
x = np.arange(len(seconds))
colors = plt.get_cmap("tab10")
for i, alg in enumerate(c for c in seconds.columns if c != "TURS2"):
    y = np.log10(seconds[alg])
    rule_set = alg in RULE_SETS
    ax.plot(x, y, marker="o" if rule_set else ".", linestyle="-" if rule_set else "--",
            linewidth=3 if alg == "TURS" else (1.6 if rule_set else 0.9),
            color="black" if alg == "TURS" else colors(i), alpha=1 if rule_set else 0.6,
            label=alg + ("" if seconds[alg].notna().any() else " (—)"))
if seconds["TURS2"].notna().any():
    ax.plot(x, np.log10(seconds["TURS2"]), marker="s", linestyle="none", markersize=8, color="grey",
            label="TURS2 (authors' code, cyaux)")
ax.set_xticks(x)
ax.set_xticklabels(seconds.index, rotation=60, ha="right", fontsize=8)
ax.set_ylabel("log10(mean fit seconds)")
ax.set_title(f"Figure 3.7: runtime (ours, {profile} profile{': bundled data' if QUICK else ''})")
ax.grid(alpha=0.3)
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
save_figure(fig, OUT, "fig3_7_runtime")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_7_runtime.png")))

# %%
parts = []
if "TURS" in seconds and "CN2" in seconds:
    both = seconds[["TURS", "CN2"]].dropna()
    ratio = both["TURS"] / both["CN2"]
    faster = int((ratio > 1).sum())
    parts.append(f"CN2 is faster than TURS on {faster} of {len(both)} datasets "
                 f"(median TURS/CN2 time ratio {ratio.median():.2f}); "
                 + ("as in the thesis, CN2 is faster in general" if faster > len(both) / 2 else
                    "unlike the thesis, where CN2 is faster in general, TURS is faster on most datasets here"))
if seconds["TURS2"].notna().any() and "TURS" in seconds:
    both = seconds[["TURS", "TURS2"]].dropna()
    r = both["TURS2"] / both["TURS"]
    parts.append(f"on the {len(both)} dataset(s) with a TURS2 reference time, TURS2 / ours is "
                 f"{r.min():.1f}x to {r.max():.1f}x (median {r.median():.1f}x)")
fastest = seconds.drop(columns="TURS2").mean().dropna().sort_values()
parts.append("mean fit seconds over datasets: " + ", ".join(f"{a} {v:.2f}" for a, v in fastest.items()))
summary = f"Ours ({profile} profile): " + "; ".join(parts) + "."
missing = failures(frame)
if len(missing):
    summary += " Missing: " + "; ".join(f"{label(r.algorithm)} on {r.dataset} ({r.status})" for r in missing.itertuples()) + "."
print(summary)
_ = (OUT / "fig3_7_summary.txt").write_text(summary + "\n", encoding="utf-8")
