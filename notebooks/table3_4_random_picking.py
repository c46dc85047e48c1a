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
# # Table 3.4: are the rule sets truly unordered? (random picking)
#
# Yang (2024), thesis §3.6.3. A test instance covered by several rules normally gets the class
# distribution of their union (TURS) or a combination (CN2). **Random picking** (RP) instead
# gives it the training class distribution of *one* of those rules, drawn uniformly (10 draws
# per fold, averaged). If the rules of an overlap agree, as TURS' MDL criterion requires, RP
# costs (almost) nothing: the thesis finds TURS-RP within 0.01 of TURS on every dataset, while
# CN2's AUC drops by up to ~0.05. `%overlap` is the percentage of test instances covered by more
# than one rule.
#
# `diff` = AUC minus RP AUC, as in the thesis (positive: random picking is worse).
# Only TURS and CN2 are rule sets with overlaps among the algorithms run here.

# %% tags=["parameters"]
profile = "quick"  # "quick": the 5 bundled datasets; "paper": the 30 thesis datasets (TURS_DATA_DIR)
algorithms = None  # None: turs.reproduce.THESIS_ALGORITHMS; add "brs" for the paper profile (slow)
folds = None  # e.g. "0,1"; None: the profile's 5 folds
results_dir = None  # the benchmark records; None: <repo>/results/<profile>
out_dir = None  # None: <repo>/figures (paper profile) or <repo>/build/figures

# %%
import pandas as pd
from IPython.display import Markdown, display

from turs.reproduce import (
    benchmark_setup, failures, label, markdown, mean_table, thesis_table,
)

OUT, frame, ALGOS, EXTRA, QUICK = benchmark_setup(profile, algorithms, folds=folds, results_dir=results_dir,
                                                 out_dir=out_dir)
failures(frame)

# %%
COLS = {}
for alg in ("TURS", "CN2"):
    if alg not in ALGOS:
        continue
    COLS[alg] = mean_table(frame, "roc_auc")[alg]
    COLS[f"{alg}_RP"] = mean_table(frame, "roc_auc_rp")[alg]
    COLS[f"{alg}_diff"] = COLS[alg] - COLS[f"{alg}_RP"]
    COLS[f"{alg}_overlap_pct"] = mean_table(frame, "overlap_pct")[alg]
table = pd.DataFrame(COLS)
table.to_csv(OUT / "table3_4_random_picking.csv")
display(Markdown(f"**Ours ({profile} profile{': bundled data' if QUICK else ''})**\n\n" + markdown(table)))

# %%
thesis = thesis_table("table3_4_random_picking")
display(Markdown("**Thesis, Table 3.4**\n\n" + markdown(thesis)))


# %%
def describe(t: pd.DataFrame, who: str) -> str:
    parts = []
    for alg in ("TURS", "CN2"):
        if f"{alg}_diff" not in t or t[f"{alg}_diff"].notna().sum() == 0:
            parts.append(f"{alg}: no results")
            continue
        d = t[f"{alg}_diff"].dropna()
        parts.append(f"{alg} - {alg}-RP is within 0.01 on {int((d.abs() < 0.01).sum())} of {len(d)} datasets "
                     f"(largest {d.abs().max():.3f} on {d.abs().idxmax()}), mean overlap "
                     f"{t[f'{alg}_overlap_pct'].mean():.0f}%")
    return f"{who}: " + "; ".join(parts)


summary = describe(table, f"Ours ({profile} profile)") + ". " + describe(thesis, "Thesis") + "."
if "TURS_diff" in table and "CN2_diff" in table:
    both = table[["TURS_diff", "CN2_diff"]].dropna()
    summary += (f" Random picking hurts CN2 more than TURS on {int((both['CN2_diff'] > both['TURS_diff']).sum())} "
                f"of {len(both)} datasets (thesis: {int((thesis['CN2_diff'] > thesis['TURS_diff']).sum())} of "
                f"{len(thesis)}).")
missing = failures(frame)
missing = missing[missing["algorithm"].isin(["turs", "cn2"])]
if len(missing):
    summary += " Missing: " + "; ".join(f"{label(r.algorithm)} on {r.dataset} ({r.status})" for r in missing.itertuples()) + "."
print(summary)
_ = (OUT / "table3_4_summary.txt").write_text(summary + "\n", encoding="utf-8")
