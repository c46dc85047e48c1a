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
# # Preferred variables: S-CLASSY's evaluation, for TURS
#
# Papagianni and van Leeuwen's S-CLASSY (seed 003, `data/paper/README.md`)
# learns MDL rule lists that try a domain expert's *preferred variables* first. TURS does the same
# for unordered rule sets with `TURSClassifier(preferred_features=[...])` (`docs/guided.md`;
# the mapping of the algorithm in `docs/spec-notes.md`). Here we follow the paper's Section 5 on
# the datasets the study shares with it:
#
# * preferred sets simulated from a random forest's entropy importance on the whole data, once:
#   **top-K**, **bottom-K** and **random-K**, `K = ceil(0.1 m)` source variables;
# * 10-fold cross-validation; each set with `preferred_fallback=True` (TURS' default: when no
#   preferred rule is accepted, the ordinary search runs) and `False` (S-CLASSY's Algorithm 1 as
#   printed: the ordinary search only when no preferred search finds any candidate, else the end of
#   the fit), beside TURS without preferences;
# * measured: relative compression `L% = 1 - L(D, M) / L(D, {})`, fit seconds, test AUC
#   (one-vs-rest weighted by class frequency, as the paper), overfitting `|AUC_train - AUC_test|`
#   (of the means over folds), rules and mean rule length, `f@1` (per preferred variable the share
#   of folds whose first rule uses it; mean and maximum over the set) and the position of the first
#   rule with a preferred variable, in the order the search added the rules.
#
# S-CLASSY ran on discretised LUCS-KDD versions of these datasets (and its numbers come from rule
# *lists*), so we compare patterns and directions, not absolute values. The quick profile runs
# the bundled iris and wine on 3 of the 10 folds (about a minute); `PROFILE=paper` runs the 8
# datasets on all 10 folds.
#
# With `TURS_REPRODUCE_COMPUTE=0` (`make reproduce PROFILE=paper COMPUTE=0`) nothing is fitted:
# the tables and the figure come from the records in the results folder when the datasets and
# every record are at hand, else from the committed means of the paper run
# (`data/results/preferred_variables_paper.csv`), which need no dataset.

# %% tags=["parameters"]
profile = "quick"  # "quick": bundled iris and wine, folds 0-2 of 10; "paper": the 8 datasets, 10 folds (TURS_DATA_DIR)
results_dir = None  # benchmark records; None: <repo>/results/<profile>
out_dir = None  # figures and tables; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
datasets = None  # comma-separated project dataset names; None: the profile's
folds = None  # comma-separated folds of 10; None: the profile's
n_jobs = 2  # worker processes for the tasks still missing
timeout = 3600.0  # seconds per task
forest_seed = 0  # the random forest's and the random-K draw's seed

# %%
import json
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, Markdown, display  # noqa: E402

from turs import TURSClassifier, style  # noqa: E402
from turs.bench import make_tasks, record_path, run  # noqa: E402
from turs.bench import preferred as pv  # noqa: E402
from turs.bench.metrics import weighted_roc_auc  # noqa: E402
from turs.bench.profiles import load_dataset  # noqa: E402
from turs.bench.runner import read_record  # noqa: E402
from turs.bench.tasks import split  # noqa: E402
from turs.datasets import paper_table  # noqa: E402
from turs.reproduce import (  # noqa: E402
    committed_record, compute_enabled, datasets_at_hand, markdown, output_dir, parse_list, repo_root, save_figure,
    use_shared_datasets,
)

style.apply()
warnings.filterwarnings("ignore", message=".*IProgress.*")
OUT = output_dir(out_dir, profile)
PAPER = profile == "paper"
use_shared_datasets()
COMPUTE = compute_enabled()
RESULTS = repo_root() / "results" / profile if results_dir is None else results_dir
pv.register()

#: project dataset -> S-CLASSY's name (its Tables 1-3)
SCLASSY = {"iris": "Iris", "tic-tac-toe": "Tic-tac-toe", "wine": "Wine", "ionosphere": "Ionosphere",
           "waveform": "Waveform", "pendigits": "Pen digits", "heartcleveland": "Heart", "diabetes": "Pima Indians",
           "sklearn-iris": "Iris", "sklearn-wine": "Wine"}
DATASETS = parse_list(datasets) or (["iris", "tic-tac-toe", "wine", "ionosphere", "waveform", "pendigits",
                                     "heartcleveland", "diabetes"] if PAPER else ["sklearn-iris", "sklearn-wine"])
N_FOLDS = 10
FOLDS = parse_list(folds, int) or (list(range(N_FOLDS)) if PAPER else [0, 1, 2])
#: the settings, in table order: (name, preferred set or None, preferred_fallback)
SETTINGS = [("none", None, True)] + [(f"{s}{'' if fb else ' printed'}", s, fb)
                                     for s in ("top", "random", "bottom") for fb in (True, False)]
COLOURS = {"none": "black", "top": "blue", "top printed": "sky blue", "random": "bluish green",
           "random printed": "yellow", "bottom": "vermillion", "bottom printed": "orange"}
#: the committed means of the paper run: what COMPUTE=0 redraws from without the datasets or records
COMMITTED = committed_record(f"preferred_variables_{profile}.csv")
FROM_RECORDS = COMPUTE or datasets_at_hand(DATASETS) or not COMMITTED.is_file()
t0 = time.perf_counter()

# %% [markdown]
# ## The preferred sets
#
# A random forest (500 trees, entropy criterion, seed `forest_seed`) on the whole dataset ranks the
# variables; K = ceil(0.1 m). The study's files hold categorical variables already one-hot
# encoded (`x4=o`, `Pregnancies=3`): their columns are summed into their variable, and a preferred
# variable is given to TURS as all its columns (`preferred_features` names columns: each level
# column then leaves the preferred set on its own when a rule uses it, where S-CLASSY drops the
# whole variable).

# %%
data = {d: load_dataset(d) for d in DATASETS} if FROM_RECORDS else {}
SETS = {}
rows = []
for d in data:
    X, y = data[d]
    ranking = pv.forest_ranking(X, np.asarray(y), random_state=forest_seed)
    SETS[d] = pv.preferred_sets(ranking, random_state=forest_seed)
    rows.append({"dataset": d, "m": len(ranking), "K": len(SETS[d]["top"]), **{k: ", ".join(v) for k, v in SETS[d].items()}})
if rows:
    sets_table = pd.DataFrame(rows).set_index("dataset")
    display(Markdown(markdown(sets_table)))
    sets_table.to_csv(OUT / "preferred_variables_sets.csv")
else:
    print(f"COMPUTE=0 and the datasets are not at hand: the tables below are the committed means {COMMITTED}")

# %% [markdown]
# ## The runs
#
# One harness task per dataset, fold and setting (`turs-preferred`: TURS with the defaults plus the
# setting; its record keeps `L(D, {})`, the train AUC and the model file). Records already in the
# results folder are reused.

# %%
tasks = {}
for d in SETS:
    for name, which, fallback in SETTINGS:
        settings = ({} if which is None else
                    {"preferred_features": pv.columns_of(SETS[d][which], data[d][0]), "preferred_fallback": fallback})
        tasks[d, name] = make_tasks([d], [pv.ALGORITHM], folds=FOLDS, settings=settings, n_folds=N_FOLDS)
all_tasks = [t for ts in tasks.values() for t in ts]
if not COMPUTE and COMMITTED.is_file() and not all(record_path(RESULTS, t.id).is_file() for t in all_tasks):
    FROM_RECORDS = False  # COMPUTE=0 and records missing: the committed means
    tasks, all_tasks = {}, []
run(all_tasks if COMPUTE else [], RESULTS, n_jobs=n_jobs, timeout=timeout, progress=True, probe_first=True)

per_fold = []
for (d, name), ts in tasks.items():
    X, y = data[d]
    y = np.asarray(y)
    for t in ts:
        rec = read_record(record_path(RESULTS, t.id))
        row = {"dataset": d, "setting": name, "fold": t.fold, "status": rec["status"] if rec else "missing"}
        if rec and rec["status"] == "ok":
            ex = rec["extra"]
            model = TURSClassifier.from_json(json.dumps(ex["model"]))
            _, test = split(y, t.fold, t.n_folds)
            proba = model.predict_proba(X.iloc[test].reset_index(drop=True))
            srcs = pv.rule_sources(model)
            row.update(L_pct=1 - ex["mdl_score"] / ex["mdl_empty"], seconds=rec["fit_seconds"],
                       auc_test=weighted_roc_auc(y[test], proba, model.classes_), auc_train=ex["train_auc_weighted"],
                       n_rules=len(model.rules_),
                       rule_length=np.mean([len(r) for r in model.rules_]) if model.rules_ else 0.0,
                       sources=srcs)
        per_fold.append(row)
per_fold = pd.DataFrame(per_fold, columns=["dataset", "setting", "fold", "status", "n_rules"] if not per_fold else None)
bad = per_fold[per_fold["status"] != "ok"]
if len(bad):
    display(Markdown(f"**{len(bad)} task(s) without an ok record** (left out of the means):"))
    display(bad[["dataset", "setting", "fold", "status"]])

# %% [markdown]
# ## The table (means over the folds)
#
# `overfit` is `|mean AUC_train - mean AUC_test|` as the paper defines it; `f@1` and `max f@1` use
# the setting's preferred set, and for `none` the top-K set (as the paper's BCLASSY columns);
# `first pos` is the mean position of the first rule with a preferred variable, over the folds
# that have one (`used` of them).

# %%
def summarise(group: pd.DataFrame, preferred) -> dict:
    ok = group[group["status"] == "ok"]
    srcs = list(ok["sources"])
    f1, f1max = pv.first_rule_frequency(srcs, preferred)
    pos = [p for p in pv.first_positions(srcs, preferred) if p is not None]
    return {"folds": len(ok), "L%": ok["L_pct"].mean(), "seconds": ok["seconds"].mean(),
            "AUC test": ok["auc_test"].mean(), "overfit": abs(ok["auc_train"].mean() - ok["auc_test"].mean()),
            "rules": ok["n_rules"].mean(), "rule length": ok["rule_length"].mean(), "f@1": f1, "max f@1": f1max,
            "first pos": np.mean(pos) if pos else np.nan, "used": len(pos)}


rows = []
for d in DATASETS if FROM_RECORDS else []:
    for name, which, _ in SETTINGS:
        g = per_fold[(per_fold["dataset"] == d) & (per_fold["setting"] == name)]
        rows.append({"dataset": d, "setting": name, **summarise(g, SETS[d][which or "top"])})
table = (pd.DataFrame(rows).set_index(["dataset", "setting"]) if FROM_RECORDS
         else pd.read_csv(COMMITTED, index_col=["dataset", "setting"]).loc[DATASETS])
display(Markdown(markdown(table.reset_index(), digits=3)))
table.to_csv(OUT / "preferred_variables.csv")

# %% [markdown]
# ## Beside S-CLASSY's Tables 1-3
#
# S-CLASSY's own numbers for the same datasets (its discretised versions; `data/paper/
# table_seed003_*.csv`): test AUC of bottom/random/top and of its baseline BCLASSY, L% of top and
# BCLASSY, f@1 of top and BCLASSY, and the number of rules; ours in the same layout (with the
# fallback; the printed variant in the last columns).

# %%
t1 = paper_table("table_seed003_1_datasets_compression").set_index("dataset")
t2 = paper_table("table_seed003_2_auc_overfitting_f1").set_index("dataset")
t3 = paper_table("table_seed003_3_rules").set_index("dataset")
side = []
for d in DATASETS:
    p = SCLASSY.get(d)
    ours = table.loc[d]
    row = {"dataset": d, "S-CLASSY name": p}
    # (our measure, our setting, the paper's table and column, its tag): S-CLASSY's number
    # beside ours where the paper has the dataset
    for measure, setting, t, col, tag in [
            ("AUC test", "bottom", t2, "auc_SCLASSY_bottom", "S-CL"),
            ("AUC test", "random", t2, "auc_SCLASSY_random", "S-CL"),
            ("AUC test", "top", t2, "auc_SCLASSY_top", "S-CL"),
            ("AUC test", "none", t2, "auc_BCLASSY", "BCL"),
            ("L%", "top", t1, "L_pct_SCLASSY", "S-CL"),
            ("L%", "none", t1, "L_pct_BCLASSY", "BCL"),
            ("f@1", "top", t2, "mean_f1_SCLASSY_top", "S-CL"),
            ("f@1", "none", t2, "mean_f1_BCLASSY_top", "BCL"),
            ("rules", "bottom", t3, "n_rules_SCLASSY_bottom", "S-CL")]:
        name = f"{'AUC' if measure == 'AUC test' else measure} {setting}"
        row[name] = ours.loc[setting, measure]
        row[f"{name} [{tag}]"] = t.loc[p, col] if p in t.index else np.nan
    row["rules bottom printed"] = ours.loc["bottom printed", "rules"]
    row["AUC bottom printed"] = ours.loc["bottom printed", "AUC test"]
    side.append(row)
side = pd.DataFrame(side).set_index("dataset")
display(Markdown(markdown(side.reset_index(), digits=2)))
side.to_csv(OUT / "preferred_variables_vs_sclassy.csv")

# %% [markdown]
# ## The figure
#
# Per dataset, each setting's difference to TURS without preferences in relative compression
# (left) and test AUC (middle), and f@1 (right; `none` measured with the top-K set). One colour per
# setting (Okabe-Ito); a bar at zero is a setting that changed nothing. "fallback" is
# `preferred_fallback=True` (the default), "no fallback" S-CLASSY's Algorithm 1 as printed.

# %%
def legend_label(setting: str) -> str:
    """The legend's words for a setting: "top printed" -> "top-K, no fallback" (S-CLASSY as printed)."""
    if setting == "none":
        return "no preferences"
    kind, _, printed = setting.partition(" ")
    return f"{kind}-K" + (", no fallback" if printed else ", fallback")


fig, axes = plt.subplots(1, 3, figsize=(13, 0.55 * len(DATASETS) * len(SETTINGS) / 4 + 3), sharey=True)
names = [n for n, _, _ in SETTINGS]
height = 0.8 / len(names)
ypos = np.arange(len(DATASETS))
for k, n in enumerate(names):
    colour = style.OKABE_ITO[COLOURS[n]]
    edge = "#444444" if COLOURS[n] == "yellow" else colour
    off = ypos - 0.4 + (k + 0.5) * height
    dl = [table.loc[(d, n), "L%"] - table.loc[(d, "none"), "L%"] for d in DATASETS]
    da = [table.loc[(d, n), "AUC test"] - table.loc[(d, "none"), "AUC test"] for d in DATASETS]
    f1 = [table.loc[(d, n), "f@1"] for d in DATASETS]
    for ax, vals in zip(axes, (dl, da, f1)):
        ax.barh(off, vals, height=height, color=colour, edgecolor=edge, label=legend_label(n))
for ax, title in zip(axes, ("compression L%,\nminus without preferences", "test AUC,\nminus without preferences",
                            "f@1: a preferred variable\nin the first rule (share of folds)")):
    ax.axvline(0, color="#888888", linewidth=1)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))  # tick labels apart when projected
    ax.set_title(title)
axes[0].set_yticks(ypos)
axes[0].set_yticklabels(DATASETS)
axes[0].invert_yaxis()
axes[2].set_xlim(0, 1.05)
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=11, frameon=False)
fig.tight_layout(rect=(0, 0.04 + 0.5 / fig.get_size_inches()[1], 1, 1))
save_figure(fig, OUT, "preferred_variables")
plt.close(fig)
display(Image(str(OUT / "preferred_variables.png")))

# %% [markdown]
# ## What S-CLASSY found, and what TURS shows here
#
# S-CLASSY's findings (its Section 5.1): top-K within noise of no preference on compression and
# AUC; bottom-K worse, often an empty rule list (AUC 0.5); f@1 rising with top-K. The checks
# below read them off the table above (differences of at most 0.01 count as "within noise").

# %%
def verdicts() -> pd.DataFrame:
    out = []
    for d in DATASETS:
        t = table.loc[d]
        out.append({
            "dataset": d,
            "top: |dL%| <= 0.01": abs(t.loc["top", "L%"] - t.loc["none", "L%"]) <= 0.01,
            "top: |dAUC| <= 0.01": abs(t.loc["top", "AUC test"] - t.loc["none", "AUC test"]) <= 0.01,
            "bottom: AUC lower": t.loc["bottom", "AUC test"] < t.loc["none", "AUC test"] - 0.01,
            "bottom printed: AUC lower": t.loc["bottom printed", "AUC test"] < t.loc["none", "AUC test"] - 0.01,
            # per fold: not in the committed means
            "bottom printed: folds with no rule": int(((per_fold["dataset"] == d) & (per_fold["setting"] == "bottom printed")
                                                       & (per_fold["n_rules"] == 0)).sum()) if FROM_RECORDS else np.nan,
            "top: f@1 up": t.loc["top", "f@1"] > t.loc["none", "f@1"],
            "printed = fallback (top)": bool(np.isclose(t.loc["top", "L%"], t.loc["top printed", "L%"])),
        })
    return pd.DataFrame(out).set_index("dataset")


v = verdicts()
display(Markdown(markdown(v.astype(object).reset_index())))
v.to_csv(OUT / "preferred_variables_findings.csv")
n = len(v)
display(Markdown(
    f"* top-K within 0.01 of no preference: L% on **{int(v.iloc[:, 0].sum())} of {n}** datasets, AUC on "
    f"**{int(v.iloc[:, 1].sum())} of {n}**;\n"
    f"* bottom-K lowers test AUC by more than 0.01 with the fallback on **{int(v.iloc[:, 2].sum())} of {n}**, "
    f"as printed on **{int(v.iloc[:, 3].sum())} of {n}**; folds where the printed variant learnt no rule: "
    f"**{int(v.iloc[:, 4].sum()) if FROM_RECORDS else '— (the committed means have no folds)'}**;\n"
    f"* f@1 higher with top-K than without preferences on **{int(v.iloc[:, 5].sum())} of {n}**;\n"
    f"* the printed variant equals the fallback for top-K (same L%) on **{int(v.iloc[:, 6].sum())} of {n}**.\n\n"
    f"Profile `{profile}`, {len(FOLDS)} of {N_FOLDS} folds, {time.perf_counter() - t0:.0f} s."))
