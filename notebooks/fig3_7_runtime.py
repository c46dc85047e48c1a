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
# adapter's `fit` only; JIT warm-up excluded; `fit_seconds` of the records). The thesis plots the
# rule-set methods only (TURS, CN2, BRS, DRS, IDS) and finds TURS "competitive among all rule
# set methods except for CN2", which is faster and scales better.
#
# The figure shows the rule learners we ran (TURS, CN2, BRS when run, and the rule lists RIPPER
# and CLASSY; no trees), one row per dataset, **datasets ordered by size** (rows, smallest at the
# top), fit time on a **log scale labelled in seconds**; one point per algorithm and dataset (no
# lines: neighbouring datasets are unrelated), in the algorithm's colour and marker of every
# figure (`turs.style`). The table and `fig3_7_runtime.csv` keep every algorithm, trees included.
# **TURS2** (black hollow squares): the authors' public TURS implementation with the thesis' dual
# beam (variant `cyaux`, and `cy5aux` for chess and mammography) measured on this machine type,
# from `../shared/anchors/reference_turs2_runs.csv` or its copy in `data/results/`; on the quick
# profile only iris and wine have such a time (the same data as `sklearn-iris`, `sklearn-wine`).
# The thesis' own times are only in its figure (no table), so they are not redrawn. Machines
# differ and other work may run at the same time: compare ratios of 10x or more, not small ones.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (TURS_DATA_DIR)
algorithms = None  # None: turs.reproduce.THESIS_ALGORITHMS; add "brs" for the paper profile (slow)
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

from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from turs import style  # noqa: E402
from turs.datasets import REGISTRY  # noqa: E402
from turs.reproduce import (  # noqa: E402
    THESIS_NAMES, benchmark_setup, failures, label, markdown, mean_table, reference_runs, save_figure,
)

OUT, frame, ALGOS, EXTRA, QUICK = benchmark_setup(profile, algorithms, folds=folds, results_dir=results_dir,
                                                 out_dir=out_dir)
failures(frame)

# %%
RULE_LEARNERS = style.algorithm_order(["TURS", "CN2", "BRS", "RIPPER", "CLASSY", "OneR", "BRL", "RuleFit"])  # no trees
seconds = mean_table(frame, "fit_seconds")

runs = reference_runs()
turs2 = pd.Series(dtype=float, name="TURS2")
if runs is not None:
    source = runs.attrs["path"]  # a filtered frame need not keep its attrs
    runs = runs[runs["variant"].isin(["cyaux", "cy5aux"]) & (runs["status"] == "ok")]
    turs2 = runs.dropna(subset=["thesis_name"]).groupby("thesis_name")["fit_seconds"].mean().rename("TURS2")
    print(f"TURS2 reference times for {len(turs2)} thesis datasets from {source}")
else:
    print("no TURS2 reference times: neither ../shared/anchors/reference_turs2_runs.csv nor its copy exists")
to_thesis = (lambda d: THESIS_NAMES.get(d)) if QUICK else (lambda d: d)
seconds["TURS2"] = [turs2.get(to_thesis(d), np.nan) for d in seconds.index]
seconds.to_csv(OUT / "fig3_7_runtime.csv")
display(Markdown(f"**Mean fit seconds ({profile} profile)**\n\n" + markdown(seconds, digits=2)))

# %%
# Rows of each dataset: from the records (train + test), else the registry's thesis size.
sizes = (frame["n_train"] + frame["n_test"]).groupby(frame["dataset"]).max()
rows = pd.Series({d: sizes.get(d, np.nan) if pd.notna(sizes.get(d, np.nan))
                  else getattr(REGISTRY.get(d), "thesis_rows", np.nan) for d in seconds.index}, dtype=float)
order = rows.sort_values(kind="stable").index  # smallest first (NaN last)
shown = [a for a in RULE_LEARNERS if a in seconds and seconds[a].notna().any()]
if seconds["TURS2"].notna().any():
    shown.append("TURS2")
n_data = len(order)
fig, ax = plt.subplots(figsize=(9.0, max(3.0, 0.3 * n_data + 1.2) + 0.3 * ((len(shown) + 1) // 2) + 0.6),
                       layout="constrained")
y = np.arange(n_data)
offsets = np.linspace(-0.28, 0.28, len(shown)) if len(shown) > 1 else [0.0]
for off, alg in zip(offsets, shown):
    st = style.algorithm_style(alg)
    values = seconds.loc[order, alg]
    have = values.notna().to_numpy()
    name = "TURS2, authors' code" if alg == "TURS2" else alg
    kw = st.points(label=f"{name} ({int(have.sum())} of {n_data} datasets)")
    if alg == "TURS2":
        kw.pop("color")
        kw.update(facecolors="none", edgecolors=st.color, linewidths=1.5)
    ax.scatter(values[have], y[have] + off, s=64 if alg == "TURS" else 40, zorder=3 if alg == "TURS" else 2, **kw)
ax.set_xscale("log")
ax.xaxis.set_major_locator(LogLocator(base=10, numticks=30))  # every power of ten
ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} s"))
ax.set_yticks(y)
ax.set_yticklabels([f"{d} ({int(rows[d]):,})" if pd.notna(rows[d]) else d for d in order])
ax.set_ylim(n_data - 0.5, -0.5)  # the smallest dataset on top
ax.set_xlabel("mean fit time per fold (seconds, log scale)")
ax.set_ylabel("dataset (rows), smallest first")
ax.grid(axis="x", which="major", alpha=0.4)
ax.grid(axis="y", alpha=0.15)
fig.legend(loc="outside lower center", ncol=2, frameon=False)
ax.set_title(f"Figure 3.7: fit time of the rule learners (ours, {profile} profile{': bundled data' if QUICK else ''})")
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
