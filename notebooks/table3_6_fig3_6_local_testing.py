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
# # Table 3.6 and Figure 3.6: ablation of the MDL-based local test
#
# Yang (2024), thesis §3.6.7 ("Ablation study 2: MDL-based local testing").
#
# When TURS grows a rule, the **local test** (Eq. 3.22, 3.25) checks whether the instances the
# rule would leave out still hold enough "potential" to be covered by future rules; a growth
# step that fails it is not taken. The thesis argues that without this look-ahead the greedy
# search ends in an inferior minimum of the MDL score (Eq. 3.20), even on a very simple problem.
#
# **The data** (`turs.datasets.make_local_testing_data`): 50 binary features,
# $X_1 \sim \mathrm{Ber}(0.2)$, $X_2,\dots,X_{50} \sim \mathrm{Ber}(0.5)$, and a binary target with
# $Y \mid X_1 = 1 \sim \mathrm{Ber}(0.7)$, $Y \mid X_1 = 0 \sim \mathrm{Ber}(0.95)$. The true model is
# one rule with one literal on $X_1$; the other 49 features are noise.
#
# **The study**: simulate a training set of 5,000 rows 100 times; on each, fit `TURSClassifier`
# with the thesis defaults, once with the local test and once without
# (`use_local_test=False`), and evaluate on an independent test sample of the same size.
#
# * **Table 3.6**: mean (± sd) over the datasets of the number of rules, the rule length, the
#   test ROC-AUC, the MDL score and the train/test probability difference, next to the thesis'.
# * **Figure 3.6**: on the first dataset, the MDL score of the rule set against its coverage
#   after each added rule, with and without the local test.

# %% tags=["parameters"]
profile = "quick"  # the full study takes minutes, so both profiles run it whole
n_datasets = 100  # simulated training sets (thesis: 100)
n = 5000  # rows per training set (thesis: 5,000)
n_test = 5000  # rows per independent test set
seed = 0  # training set i uses seed + i, its test set seed + 10_000 + i
out_dir = None  # where figures and tables go; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
results_dir = None  # reserved for per-run results; unused by this notebook

# %%
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, display  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

with warnings.catch_warnings():  # without ipywidgets tqdm.auto falls back to a text bar; no need to warn
    warnings.simplefilter("ignore")
    from tqdm.auto import tqdm  # noqa: E402

from turs import TURSClassifier, style  # noqa: E402
from turs.datasets import make_local_testing_data, paper_table  # noqa: E402
from turs.reproduce import committed_record, compute_enabled, markdown, output_dir, save_figure  # noqa: E402

style.apply()
OUT = output_dir(out_dir, profile)
#: The committed runs of the study with the default parameters (one row per dataset and setting)
#: and the two rule-set trajectories of Fig. 3.6: with TURS_REPRODUCE_COMPUTE=0 (make reproduce
#: COMPUTE=0) the table and the figure are redrawn from them, without a fit.
RUNS, TRAJECTORIES = committed_record("local_testing_runs.csv"), committed_record("local_testing_trajectories.csv")
DEFAULTS = (n_datasets, n, n_test, seed) == (100, 5000, 5000, 0)
COMPUTE = compute_enabled() or not (DEFAULTS and RUNS.is_file() and TRAJECTORIES.is_file())
if not COMPUTE:
    print(f"TURS_REPRODUCE_COMPUTE=0: no fit; the runs and trajectories are the committed {RUNS.name} and {TRAJECTORIES.name}")

# %% [markdown]
# ## The measures
#
# For each fitted rule set:
#
# | column | meaning |
# |---|---|
# | `n_rules` | number of rules (the else-rule not counted) |
# | `rule_length` | mean number of literals per rule |
# | `roc_auc` | ROC-AUC of `predict_proba` on the independent test set |
# | `mdl_score` | the MDL score (Eq. 3.20, bits) of the rule set on its training data, `mdl_score_`; lower is better |
# | `train_test_prob_diff` | the $g$ score of §3.6.4 (Eq. 3.26), see below |
# | `ground_truth` | the model is exactly one rule with exactly one literal, on `X1` |
#
# **The $g$ score.** For every rule $S_j$, *including the else-rule*, let $p_j$ be its class
# distribution on the training data (its whole cover, overlaps included; for the else-rule the
# uncovered training rows) and $q_j$ the class distribution of the test rows it covers (same
# convention). Its difference is $\frac1C\sum_c |p_{jc} - q_{jc}|$; $g$ averages these over the
# rules, weighted by the rules' training coverage $|S_j|$ (Eq. 3.26 with the weights
# normalised). A rule that covers no test row has no $q_j$ and is skipped.


# %%
def g_score(model: TURSClassifier, X_test, y_test) -> float:
    """Train/test probability difference g (thesis Eq. 3.26), the else-rule included."""
    classes = model.classes_
    C = len(classes)
    y_codes = np.searchsorted(classes, y_test)
    covers = model.apply(X_test)  # (n_test, K)
    parts = [(r.coverage, r.probabilities, covers[:, j]) for j, r in enumerate(model.rules_)]
    uncovered = ~covers.any(axis=1) if covers.shape[1] else np.ones(len(y_codes), dtype=bool)
    parts.append((model.else_rule_.coverage, model.else_rule_.probabilities, uncovered))
    weights, diffs = [], []
    for train_coverage, p_train, test_mask in parts:
        if train_coverage == 0 or not test_mask.any():
            continue
        p_test = np.bincount(y_codes[test_mask], minlength=C) / test_mask.sum()
        weights.append(train_coverage)
        diffs.append(np.mean(np.abs(p_train - p_test)))
    return float(np.average(diffs, weights=weights)) if weights else float("nan")


def is_ground_truth(model: TURSClassifier) -> bool:
    """Exactly one rule, with exactly one literal, on X1."""
    return len(model.rules_) == 1 and len(model.rules_[0]) == 1 and model.rules_[0].conditions[0].column == "X1"


def measure(model: TURSClassifier, X_test, y_test) -> dict:
    lengths = [len(r) for r in model.rules_]
    return {
        "n_rules": len(model.rules_),
        "rule_length": float(np.mean(lengths)) if lengths else float("nan"),
        "roc_auc": roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]),
        "mdl_score": model.mdl_score_,
        "train_test_prob_diff": g_score(model, X_test, y_test),
        "ground_truth": is_ground_truth(model),
    }


# %% [markdown]
# ## Fit with and without the local test on every simulated dataset

# %%
SETTINGS = {"Yes": True, "No": False}  # thesis' "Local testing" column -> use_local_test

rows = []
fit_seconds = {name: 0.0 for name in SETTINGS}
start = time.perf_counter()
for i in tqdm(range(n_datasets if COMPUTE else 0), desc="simulated datasets"):
    X_train, y_train = make_local_testing_data(n=n, seed=seed + i)
    X_test, y_test = make_local_testing_data(n=n_test, seed=seed + 10_000 + i)
    for name, use_local_test in SETTINGS.items():
        t0 = time.perf_counter()
        model = TURSClassifier(use_local_test=use_local_test).fit(X_train, y_train)
        fit_seconds[name] += time.perf_counter() - t0
        rows.append({"dataset": i, "local_testing": name, **measure(model, X_test, y_test)})
elapsed = time.perf_counter() - start
results = pd.DataFrame(rows) if COMPUTE else pd.read_csv(RUNS)
results.to_csv(OUT / "local_testing_runs.csv", index=False)  # data/results/local_testing_runs.csv is a copy
if COMPUTE:
    print(
        f"{n_datasets} datasets x {len(SETTINGS)} settings in {elapsed:.1f} s "
        f"(fitting: {fit_seconds['Yes']:.1f} s with the local test, {fit_seconds['No']:.1f} s without)"
    )
results.head(10)

# %% [markdown]
# ## Table 3.6
#
# Mean and standard deviation (sample sd, ddof = 1) over the datasets, per setting; the
# `thesis_*` columns are the thesis' Table 3.6 (`data/paper/table3_6_simulated_local_testing.csv`).
# Written as `table3_6_local_testing.csv` and, ours beside the thesis', `table3_6_local_testing.md`.
# `ground_truth_found` counts the datasets on which the true one-rule model was learned.

# %%
MEASURES = ["n_rules", "rule_length", "roc_auc", "mdl_score", "train_test_prob_diff"]
ORDER = ["No", "Yes"]  # the thesis' row order

grouped = results.groupby("local_testing")
ours = pd.DataFrame(index=pd.Index(ORDER, name="local_testing"))
ours["n_datasets"] = grouped.size().reindex(ORDER)
ours["ground_truth_found"] = grouped["ground_truth"].sum().reindex(ORDER).astype(int)
for m in MEASURES:
    ours[f"{m}_mean"] = grouped[m].mean().reindex(ORDER)
    ours[f"{m}_sd"] = grouped[m].std(ddof=1).reindex(ORDER)

thesis = paper_table("table3_6_simulated_local_testing").set_index("local_testing").reindex(ORDER)
thesis = thesis[[f"{m}_{s}" for m in MEASURES for s in ("mean", "sd")]].add_prefix("thesis_")
table = ours.join(thesis)
table.to_csv(OUT / "table3_6_local_testing.csv")


def mean_sd(mean: float, sd: float, digits: int) -> str:
    return f"{mean:.{digits}f} (± {sd:.{digits}f})"


DIGITS = {"n_rules": 2, "rule_length": 3, "roc_auc": 3, "mdl_score": 1, "train_test_prob_diff": 3}
shown = pd.DataFrame(
    {
        (m, who): [mean_sd(table.loc[s, f"{pre}{m}_mean"], table.loc[s, f"{pre}{m}_sd"], DIGITS[m]) for s in ORDER]
        for m in MEASURES
        for who, pre in (("ours", ""), ("thesis", "thesis_"))
    },
    index=pd.Index(ORDER, name="local testing"),
)
shown[("ground truth found", "ours")] = [f"{table.loc[s, 'ground_truth_found']} of {table.loc[s, 'n_datasets']}" for s in ORDER]
shown[("ground truth found", "thesis")] = ["—", f"all {100}"]  # §3.6.7: "learns the ground truth every time"

# The same table as Markdown, one row per measure, ours beside the thesis': table3_6_local_testing.md
NAMES = {"n_rules": "number of rules", "rule_length": "rule length (literals)", "roc_auc": "test ROC-AUC",
         "mdl_score": "MDL score (bits, training data)", "train_test_prob_diff": "train/test probability difference g",
         "ground truth found": "ground truth found (one rule on X1)"}
view = pd.DataFrame(
    {f"{'with' if s == 'Yes' else 'without'} local test, {who}": [shown.loc[s, (m, who)] for m in [*MEASURES, "ground truth found"]]
     for s in ("Yes", "No") for who in ("ours", "thesis")},
    index=pd.Index([NAMES[m] for m in [*MEASURES, "ground truth found"]], name="measure (mean ± sd)"),
)
md = (f"# Table 3.6: the local test on simulated data (ours beside the thesis)\n\n"
      f"{n_datasets} simulated training sets of {n:,} rows (thesis: 100 sets of 5,000), test sets of {n_test:,} rows; "
      f"mean (± sd) over the datasets. Thesis numbers: `data/paper/table3_6_simulated_local_testing.csv`. "
      f"Written by `notebooks/table3_6_fig3_6_local_testing.py` (profile {profile!r}).\n\n" + markdown(view) + "\n")
_ = (OUT / "table3_6_local_testing.md").write_text(md, encoding="utf-8")
shown

# %%
yes, no = table.loc["Yes"], table.loc["No"]
thesis_n = 100  # repetitions in the thesis' Table 3.6
summary = (
    f"With the local test the ground truth (one rule, one literal, on X1) was found on "
    f"{int(yes.ground_truth_found)} of {int(yes.n_datasets)} datasets (thesis: all {thesis_n}), without it on "
    f"{int(no.ground_truth_found)} of {int(no.n_datasets)}. "
    f"Mean MDL score {yes.mdl_score_mean:.1f} bits with the local test (thesis {yes.thesis_mdl_score_mean:.1f}), "
    f"{no.mdl_score_mean:.1f} without (thesis {no.thesis_mdl_score_mean:.1f}); the MDL score is "
    f"{'larger' if no.mdl_score_mean > yes.mdl_score_mean else 'not larger'} without the local test. "
    f"Rules: {yes.n_rules_mean:.2f} with vs {no.n_rules_mean:.2f} without "
    f"(thesis {yes.thesis_n_rules_mean:g} vs {no.thesis_n_rules_mean:g}); "
    f"rule length {yes.rule_length_mean:.3f} vs {no.rule_length_mean:.3f} "
    f"(thesis {yes.thesis_rule_length_mean:g} vs {no.thesis_rule_length_mean:g}); "
    f"test ROC-AUC {yes.roc_auc_mean:.3f} vs {no.roc_auc_mean:.3f} "
    f"(thesis {yes.thesis_roc_auc_mean:g} vs {no.thesis_roc_auc_mean:g}); "
    f"train/test probability difference g {yes.train_test_prob_diff_mean:.3f} vs {no.train_test_prob_diff_mean:.3f} "
    f"(thesis {yes.thesis_train_test_prob_diff_mean:g} vs {no.thesis_train_test_prob_diff_mean:g}). "
    f"Training sets of {n} rows, test sets of {n_test} rows."
)
print(summary)
_ = (OUT / "table3_6_summary.txt").write_text(summary + "\n", encoding="utf-8")

# %% [markdown]
# ## Figure 3.6: the MDL score while rules are added
#
# On the first simulated dataset, both settings are refitted with `record_trace=True`.
# Each point is the rule set after one more rule was added, starting at the empty rule set
# (coverage 0, the MDL score of the else-rule alone): the x-axis is the number of training
# instances covered by at least one rule (the else-rule excluded), the y-axis the MDL score of
# the rule set. The learning-speed score (Eq. 3.21) picks, at each step, the next point with the
# steepest descent; the thesis observes that without the local test the first steps are steeper
# but the search ends at a worse (higher) score.

# %%
trajectories = {}
if COMPUTE:
    X_train, y_train = make_local_testing_data(n=n, seed=seed)
    for name, use_local_test in SETTINGS.items():
        model = TURSClassifier(use_local_test=use_local_test, record_trace=True).fit(X_train, y_train)
        trajectories[name] = model.trace_.mdl_trajectory()
        print(f"local test {name}:\n{model}\n")
else:
    committed = pd.read_csv(TRAJECTORIES)
    trajectories = {name: part.drop(columns="local_testing").reset_index(drop=True)
                    for name, part in committed.groupby("local_testing", sort=False)}
pd.concat(trajectories, names=["local_testing", None]).reset_index(level=0).to_csv(
    OUT / "local_testing_trajectories.csv", index=False)  # data/results/local_testing_trajectories.csv is a copy

STYLE = {  # turs.style: TURS and its no-local-test ablation, as in every figure
    "Yes": style.algorithm_style("turs").line(label="with the local test (TURS)", linewidth=2.2),
    "No": style.algorithm_style("turs-nolocaltest").line(label="without the local test"),
}
fig, ax = plt.subplots(figsize=(7.5, 5.2))
for name in ("Yes", "No"):
    traj = trajectories[name]
    ax.plot(traj["coverage"], traj["mdl"], markersize=6, **STYLE[name])
    last = traj.iloc[-1]
    ax.annotate(
        f"{int(last['n_rules'])} rule{'s' if last['n_rules'] != 1 else ''}: {last['mdl']:.1f}",
        (last["coverage"], last["mdl"]), textcoords="offset points", xytext=(6, 4),
        color=STYLE[name]["color"],
    )
ax.set_xlabel("coverage of the rule set\n(training instances covered by a rule)")
ax.set_ylabel("MDL-based score (bits)")
ax.set_title(f"Figure 3.6: adding rules with and without the local test\n(first simulated dataset, n = {n})")
x_max = max(traj["coverage"].max() for traj in trajectories.values())
ax.set_xlim(-0.03 * x_max, 1.25 * x_max)  # room on the right for the end labels
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
save_figure(fig, OUT, "fig3_6_local_testing")
plt.close(fig)
display(Image(filename=str(OUT / "fig3_6_local_testing.png")))

# %%
for name in ("Yes", "No"):
    print(f"local test {name}:")
    print(trajectories[name].to_string(index=False), "\n")
print("written:", *(str(OUT / f) for f in ("table3_6_local_testing.csv", "table3_6_local_testing.md", "table3_6_summary.txt",
                                            "fig3_6_local_testing.png", "fig3_6_local_testing.pdf")), sep="\n  ")
