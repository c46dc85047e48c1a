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
# # The seed papers' learners, re-implemented and checked against their papers
#
# Beyond the thesis. Two of the project's source documents describe rule learners that
# cannot be installed; `turs.competitors` has them written from the papers' equations
# (`docs/competitors.md` gives every derivation and choice):
#
# * **submodular** (`SubmodularRuleSetClassifier`): Yang et al., *Learning Interpretable Decision
#   Rule Sets: A Submodular Optimization Approach*, NeurIPS 2021 (seed 004): a DNF rule set
#   learnt by distorted greedy submodular maximisation, each rule by an iterative refinement of a
#   difference of submodular functions (or an exact branch-and-bound);
# * **lire** (`LIREClassifier`): Kanamori, *Learning Locally Interpretable Rule Ensemble*,
#   ECML-PKDD 2023 (seed 002): a rule ensemble whose predictions each need few rules, with
#   **lire-rulefit**, its baseline (RuleFit as that paper defines it, on the same rules).
#
# Checked here, side by side with the papers' numbers (`data/paper/table_seed*.csv`):
#
# 1. seed 004, Tables 1, 2 and 5 on the datasets the project has (10-fold CV in the paper
#    profile): accuracy, rules, literals, overlap, run time;
# 2. seed 004, Table 6: the relative gap between iterative refinement and branch-and-bound;
# 3. seed 002's claims on the nearest data the project has: LIRE's accuracy within 1 point of
#    RuleFit's with a lower local support (its Figs. 2 and 5), and local support falling as
#    lambda grows for small gamma (its Fig. 3);
# 4. the local explanation size of every learner run here, beside its total literals.
#
# The quick profile runs on bundled data in about two minutes (the numbers are then not the
# papers' datasets); the paper profile needs `TURS_DATA_DIR`.

# %% tags=["parameters"]
profile = "quick"  # "quick": bundled data, a few folds; "paper": the datasets of the issue (needs TURS_DATA_DIR)
results_dir = None  # benchmark records; None: <repo>/results/<profile> (shared with the other notebooks)
out_dir = None  # figures and tables; None: <repo>/figures (paper profile) or <repo>/build/figures (quick)
n_jobs = 2  # worker processes for the tasks still missing
timeout = 3600.0  # seconds per task
seed004_algorithms = "submodular,cart,ripper"  # the paper's Table 1 columns the project has (BRS: add "brs", slow)
seed002_algorithms = "lire,lire-rulefit,rulefit"
bnb_max_nodes = 20000  # branch-and-bound node budget per subproblem (Table 6); more: slower, more finished
lambda_sweep = "0,0.1,0.5,1,2,5"  # seed 002's Fig. 3 (paper profile; quick: 0,1,4)
gamma_sweep = "0.0005,0.001"

# %%
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.display import Image, Markdown, display  # noqa: E402

from turs import style  # noqa: E402
from turs.bench import make_tasks, record_path, run, summarize  # noqa: E402
from turs.bench.profiles import load_dataset  # noqa: E402
from turs.bench.tasks import split  # noqa: E402
from turs.competitors import submodular as sm  # noqa: E402
from turs.competitors.lire import LIREClassifier  # noqa: E402
from turs.bench import register_seed_datasets  # noqa: E402
from turs.reproduce import (  # noqa: E402
    committed_record, compute_enabled, datasets_at_hand, failures, get_results, markdown, output_dir, parse_list,
    repo_root, save_figure, use_shared_datasets,
)
from turs.datasets import paper_table  # noqa: E402

style.apply()
warnings.filterwarnings("ignore", message=".*IProgress.*")  # tqdm.auto without ipywidgets: a text bar
OUT = output_dir(out_dir, profile)
PAPER = profile == "paper"
use_shared_datasets()
register_seed_datasets()  # seed-heart, seed-campaign
COMPUTE = compute_enabled()
#: the tables of the paper run, committed: what COMPUTE=0 redraws from without its records or datasets
COMMITTED = committed_record(f"seed_learners_{profile}")


def committed(stem: str) -> pd.DataFrame:
    return pd.read_csv(COMMITTED / f"{stem}.csv", index_col=None if stem == "seed002_fig3_lambda_sweep" else 0)
RESULTS = repo_root() / "results" / profile if results_dir is None else results_dir

#: the paper's dataset -> the project's (seed 004's Table 1 names)
SEED004 = {"tic-tac-toe": "tic-tac-toe", "ionosphere": "ionosphere", "banknote": "backnote", "pima": "diabetes",
           "magic": "magic", "WDBC": "sklearn-breast-cancer", "heart": "seed-heart"}
if not PAPER:
    SEED004 = {"WDBC": "sklearn-breast-cancer"}
N_FOLDS_004 = 10 if PAPER else 5
FOLDS_004 = None if PAPER else [0, 1]
SEED002 = ["seed-campaign", "seed-heart", "diabetes"] if PAPER else ["sklearn-breast-cancer"]
LABEL = {"submodular": "Submodular", "cart": "CART", "ripper": "RIPPER", "brs": "BRS", "lire": "LIRE",
         "lire-rulefit": "RuleFit (LIRE's)", "rulefit": "RuleFit (imodels)", "turs": "TURS"}


def bench(datasets, algorithms, n_folds, folds=None) -> pd.DataFrame:
    """The records of ``n_folds``-fold CV (missing tasks computed unless COMPUTE=0, when they are
    rows with status "skipped"): turs.reproduce.get_results runs the profiles' 5 folds only."""
    algorithms = parse_list(algorithms)
    if n_folds == 5 and profile in ("quick", "paper"):
        return get_results(profile, algorithms, results_dir=RESULTS, n_jobs=n_jobs, datasets=list(datasets),
                           folds=folds, timeout=timeout, skip={})
    tasks = make_tasks(list(datasets), algorithms, folds=folds, n_folds=n_folds)
    todo = tasks if COMPUTE else []
    run(todo, RESULTS, n_jobs=n_jobs, timeout=timeout, progress=True, probe_first=True)
    frame = summarize(RESULTS)
    frame = frame[frame["task_id"].isin({t.id for t in tasks})]
    missing = [{"dataset": t.dataset, "fold": t.fold, "algorithm": t.algorithm, "settings": "{}",
                "status": "skipped", "message": "no record and TURS_REPRODUCE_COMPUTE=0"}
               for t in tasks if not record_path(RESULTS, t.id).is_file()]
    if missing:
        frame = pd.concat([frame, pd.DataFrame(missing)], ignore_index=True)
    return frame.reset_index(drop=True)


def means(frame, metric, algorithms, datasets) -> pd.DataFrame:
    """Mean over the folds per dataset x algorithm; NaN unless every fold is "ok"."""
    frame = frame.copy()
    frame[metric] = pd.to_numeric(frame[metric], errors="coerce")
    g = frame.groupby(["dataset", "algorithm"])
    ok = g["status"].agg(lambda s: bool((s == "ok").all()))
    return g[metric].mean().where(ok).unstack("algorithm").reindex(index=list(datasets), columns=list(algorithms))


def astyle(alg):
    try:
        return style.algorithm_style(alg)
    except KeyError:
        return None


t0 = time.perf_counter()
r004 = bench(SEED004.values(), seed004_algorithms, N_FOLDS_004, FOLDS_004)
display(failures(r004))
FROM_RECORDS = COMPUTE or not COMMITTED.is_dir() or (
    datasets_at_hand([*SEED004.values(), *SEED002]) and not (r004["status"] == "skipped").any())
if not FROM_RECORDS:
    print(f"TURS_REPRODUCE_COMPUTE=0 without the records or datasets: the tables are the committed ones in {COMMITTED}; "
          "nothing is fitted")

# %% [markdown]
# ## 1. Seed 004, Table 1: accuracy (%)
#
# Mean test accuracy over the folds (the paper: 10-fold CV); in brackets the paper's numbers
# for the same dataset. The target of the issue: our submodular learner within 2 points of the
# paper's on at least 5 of the 7 datasets.

# %%
A004 = parse_list(seed004_algorithms)
t1 = paper_table("table_seed004_1_accuracy").set_index("dataset")
acc = 100 * means(r004, "accuracy", A004, SEED004.values())
side = pd.DataFrame(index=pd.Index(list(SEED004), name="paper dataset"))
side["project dataset"] = list(SEED004.values())
for a in A004:
    side[LABEL.get(a, a)] = acc[a].to_numpy()
    paper_col = {"submodular": "Ours", "cart": "CART", "ripper": "RIPPER", "brs": "BRS"}.get(a)
    if paper_col:
        side[f"paper {paper_col}"] = t1.loc[list(SEED004), paper_col].to_numpy()
side["submodular - paper"] = side["Submodular"] - side["paper Ours"]
if not FROM_RECORDS:
    side = committed("seed004_table1_accuracy")
within = side["submodular - paper"].abs() <= 2.0
display(Markdown(markdown(side, digits=1)))
n_within = int(within.sum())
display(Markdown(f"Submodular within 2 points of the paper's accuracy on **{n_within} of {int(side['Submodular'].notna().sum())}** "
                 f"datasets with all folds finished ({', '.join(side.index[within]) or 'none'})."))
side.to_csv(OUT / "seed004_table1_accuracy.csv")

# %% [markdown]
# ## Seed 004, Table 2: rules, literals, overlap; Table 5: run time
#
# Rules and literals of the learnt model and the percentage of test rows covered by more than
# one rule (our overlap measure; the paper does not define its own), beside the paper's "Ours".
# Run time: our mean fit seconds per fold (the validation grid included) on a shared 2-core
# machine, beside Table 5's seconds for the same dataset (the paper's hardware is not stated).

# %%
t2 = paper_table("table_seed004_2_interpretability").set_index("dataset")
t5 = paper_table("table_seed004_5_runtime_seconds").set_index("dataset")
sub = "submodular"
tab2 = pd.DataFrame(index=pd.Index(list(SEED004), name="paper dataset"))
for metric, col, digits in (("n_rules", "rules_Ours", 1), ("n_literals", "literals_Ours", 1),
                            ("overlap_pct", "overlap_pct_Ours", 1)):
    tab2[metric] = means(r004, metric, [sub], SEED004.values())[sub].to_numpy()
    tab2[f"paper {col}"] = t2.loc[list(SEED004), col].to_numpy()
tab2["fit_seconds"] = means(r004, "fit_seconds", [sub], SEED004.values())[sub].to_numpy()
tab2["paper seconds (Table 5)"] = t5.loc[list(SEED004), "Ours"].to_numpy()
for a in A004:
    if a != sub:
        tab2[f"{LABEL.get(a, a)} seconds"] = means(r004, "fit_seconds", [a], SEED004.values())[a].to_numpy()
tab2["paper RIPPER seconds"] = t5.loc[list(SEED004), "RIPPER"].to_numpy()
if not FROM_RECORDS:
    tab2 = committed("seed004_table2_table5")
display(Markdown(markdown(tab2, digits=2)))
tab2.to_csv(OUT / "seed004_table2_table5.csv")

# %% [markdown]
# ## 2. Seed 004, Table 6: iterative refinement against branch-and-bound
#
# On the training part of fold 0, with the settings the validation chose there (K, lambda and the
# positive class of the fold-0 record), the distorted greedy is run twice: every subproblem by
# iterative refinement, and by branch-and-bound (started from the refinement's rule, with
# `bnb_max_nodes` nodes per subproblem). Relative gap as Table 6 prints it,
# `(V(S_bnb) - V(S_approx)) / V(S_approx)`; "finished" says whether every branch-and-bound call
# proved its optimum. Datasets by number of binary features; the quick profile uses the bundled
# 2-feature overlap-blockade data.

# %%
GAP_DATASETS = dict(SEED004) if PAPER else {"overlap-blockade": "sim-overlap-blockade"}
rows = []
for paper_name, ds in GAP_DATASETS.items() if FROM_RECORDS else []:
    rec = r004[(r004["dataset"] == ds) & (r004["algorithm"] == sub) & (r004["fold"] == 0) & (r004["status"] == "ok")]
    X, y = load_dataset(ds)
    y = np.asarray(y)
    train, _ = split(y, 0, N_FOLDS_004)
    Xtr, ytr = X.iloc[train].to_numpy(float), y[train]
    if len(rec):
        K, lam = int(rec["K"].iloc[0]), float(rec["lam"].iloc[0])
        pos = ytr == np.array(rec["positive_class"].iloc[0], dtype=ytr.dtype)
    else:  # no record (e.g. the quick profile's overlap data): the validation on this training set
        m = sm.SubmodularRuleSetClassifier().fit(Xtr, ytr)
        K, lam, pos = m.best_params_["K"], m.best_params_["lam"], ytr == m.positive_class_
    lits = sm.threshold_literals(Xtr)
    Z = sm.literal_matrix(Xtr, lits)
    out = {"paper dataset": paper_name, "binary features": Z.shape[1], "K": K, "lam": round(lam, 3)}
    for solver in ("refine", "bnb"):
        t = time.perf_counter()
        rules, trace = sm.distorted_greedy(Z, pos, 1.0, 1.0, 0.1, lam, K, solver, None, int(bnb_max_nodes),
                                           sm.literal_groups(lits), 0)
        out[f"V_{solver}"] = sm.objective_value(Z, pos, rules, 1.0, 1.0, 0.1, lam)
        out[f"{solver} seconds"] = time.perf_counter() - t
        if solver == "bnb":
            out["finished"] = all(s["bnb_finished"] for s in trace)
    out["relative gap"] = (out["V_bnb"] - out["V_refine"]) / abs(out["V_refine"])
    rows.append(out)
if FROM_RECORDS:
    gap = pd.DataFrame(rows).set_index("paper dataset").sort_values("binary features")
    t6 = paper_table("table_seed004_6_approximation_gap").set_index("dataset")
    gap["paper features"] = [t6["features"].get(d, np.nan) for d in gap.index]
    gap["paper gap"] = [t6["relative_gap"].get(d, np.nan) for d in gap.index]
else:
    gap = committed("seed004_table6_gap")
display(Markdown(markdown(gap, digits=4)))
done = gap[gap["finished"]]
display(Markdown(f"Branch-and-bound finished on {len(done)} of {len(gap)} datasets; there the largest |gap| is "
                 f"**{done['relative gap'].abs().max():.4f}** (target < 0.05)." if len(done) else
                 "Branch-and-bound finished on no dataset within the node budget."))
gap.to_csv(OUT / "seed004_table6_gap.csv")

# %% [markdown]
# ## 3. Seed 002: LIRE against RuleFit
#
# Seed 002's data (Adult, Bank with 4,521 rows, Heart with 1,025 rows, FICO, COMPAS) is not in the
# project; its nearest: `seed-campaign` (the full bank-marketing data, 41,188 rows), `seed-heart`
# (Cleveland, 303 rows, binarised) and `diabetes` (pima). 5-fold CV of the harness; LIRE's gamma
# chosen on a hold-out by AUC from {0.001, ..., 0.005} with lambda = 2 gamma (the paper's
# Table 3); RuleFit as the paper defines it (`lire-rulefit`, L1 logistic on LIRE's rules) and
# imodels' RuleFit (the harness' `rulefit`, with linear terms). Local support: the mean number
# of non-zero-weight rules a test row satisfies (imodels' linear terms count, as every row needs them).
# The claims: LIRE's accuracy within 1 point of RuleFit's, with a lower local support.

# %%
A002 = parse_list(seed002_algorithms)
r002 = get_results(profile, A002, results_dir=RESULTS, n_jobs=n_jobs, datasets=SEED002, timeout=timeout, skip={},
                   folds=None if PAPER else [0, 1])
display(failures(r002))
t002 = {}
for metric in ("accuracy", "roc_auc", "n_rules", "local_rules", "local_literals", "fit_seconds"):
    t002[metric] = means(r002, metric, A002, SEED002)
claim = pd.DataFrame(index=pd.Index(SEED002, name="dataset"))
for a in A002:
    claim[f"{LABEL[a]} accuracy %"] = 100 * t002["accuracy"][a]
    claim[f"{LABEL[a]} local support"] = t002["local_rules"][a]
    claim[f"{LABEL[a]} support"] = t002["n_rules"][a]
for base in [a for a in A002 if a != "lire"]:
    claim[f"LIRE - {LABEL[base]} (points)"] = 100 * (t002["accuracy"]["lire"] - t002["accuracy"][base])
    claim[f"LIRE within 1 point and sparser locally than {LABEL[base]}"] = (
        (claim[f"LIRE - {LABEL[base]} (points)"] >= -1.0) & (t002["local_rules"]["lire"] < t002["local_rules"][base]))
if not FROM_RECORDS:
    claim = committed("seed002_lire_vs_rulefit")
display(Markdown(markdown(claim, digits=2)))
claim.to_csv(OUT / "seed002_lire_vs_rulefit.csv")
t4 = paper_table("table_seed002_4_runtime_seconds").set_index("dataset")
display(Markdown("Fit seconds per fold (ours) and the paper's Table 4 for its Bank and Heart:\n\n"
                 + markdown(t002["fit_seconds"].rename(columns=LABEL), digits=2) + "\n\n"
                 + markdown(t4.loc[["Bank", "Heart"], ["LIRE", "RuleFit"]], digits=3)))

# %% [markdown]
# ## Seed 002, Fig. 3: local support as lambda grows
#
# Direct fits (not the harness): 5-fold CV on `diabetes` and `seed-heart` (quick profile: the
# bundled breast-cancer data, 2 folds), gamma fixed, lambda swept. The paper: for small gamma the
# local support falls as lambda grows, accuracy barely moves.

# %%
lams = [float(v) for v in parse_list(lambda_sweep)] if PAPER else [0.0, 1.0, 4.0]
gams = [float(v) for v in parse_list(gamma_sweep)] if PAPER else [0.001]
sweep_data = ["diabetes", "seed-heart"] if PAPER else ["sklearn-breast-cancer"]
n_sweep_folds = 5 if PAPER else 2
sweep = []
for ds in sweep_data if FROM_RECORDS else []:
    X, y = load_dataset(ds)
    X, y = X.to_numpy(float), np.asarray(y)
    for k in range(n_sweep_folds):
        tr, te = split(y, k, 5)
        for g in gams:
            for lam_ in lams:
                m = LIREClassifier(gamma=g, lam=lam_).fit(X[tr], y[tr])
                sweep.append({"dataset": ds, "fold": k, "gamma": g, "lam": lam_, "accuracy": m.score(X[te], y[te]),
                              "local support": m.local_support(X[te]).mean(), "support": len(m.rules_)})
sweep = pd.DataFrame(sweep)
curve = (sweep.groupby(["dataset", "gamma", "lam"])[["accuracy", "local support", "support"]].mean().reset_index()
         if FROM_RECORDS else committed("seed002_fig3_lambda_sweep"))
curve.to_csv(OUT / "seed002_fig3_lambda_sweep.csv", index=False)
fig, axes = plt.subplots(1, 2, figsize=(11, 5.0))
sweep_colours = dict(zip(sweep_data, [style.OKABE_ITO["blue"], style.OKABE_ITO["vermillion"]]))
for (ds, g), part in curve.groupby(["dataset", "gamma"]):
    line = {"color": sweep_colours[ds], "linestyle": "-" if g == min(gams) else "--", "marker": "o",
            "label": f"{ds}, gamma = {g:g}"}
    axes[0].plot(part["lam"], part["local support"], **line)
    axes[1].plot(part["lam"], 100 * part["accuracy"], **line)
for ax, ylabel in zip(axes, ("mean local support\n(rules read per test row)", "test accuracy (%)")):
    ax.set_xscale("symlog", linthresh=0.1)  # lambda = 0 has a place on the axis
    ax.set_xticks(lams, [f"{v:g}" for v in lams])
    ax.set(xlabel="lambda (local-interpretability weight)", ylabel=ylabel)
    ax.grid(alpha=0.3)
fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2, frameon=False)
fig.suptitle("LIRE: local support and accuracy against lambda (seed 002, Fig. 3)")
fig.tight_layout(rect=(0, 0.13 if len(gams) * len(sweep_data) > 2 else 0.08, 1, 1))
save_figure(fig, OUT, "seed002_fig3_lambda_sweep")
plt.close(fig)
display(Image(str(OUT / "seed002_fig3_lambda_sweep.png")))
falls = curve.groupby(["dataset", "gamma"])["local support"].apply(lambda s: bool(s.iloc[-1] < s.iloc[0]))
display(Markdown(f"Local support lower at the largest lambda than at lambda = 0: {int(falls.sum())} of {len(falls)} curves."))

# %% [markdown]
# ## 4. Local explanation size beside total literals
#
# Left: the total literals of the model (Fig. 3.4's measure of complexity). Right: the mean number
# of literals one must read to explain one prediction: the covering rules
# or the default for rule sets, the rule used and every rule before it for rule lists, the path for
# trees, the satisfied non-zero-weight rules for RuleFit and LIRE. One point per dataset.

# %%
if FROM_RECORDS:
    both = pd.concat([r004, r002], ignore_index=True)
    algs = list(dict.fromkeys(A004 + A002))
    dsets = list(dict.fromkeys(list(SEED004.values()) + SEED002))
    tot = means(both, "n_literals", algs, dsets)
    loc = means(both, "local_literals", algs, dsets)
    locr = means(both, "local_rules", algs, dsets)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.6), sharex=True)
    xs = np.arange(len(dsets))
    PAPER_NAME = {v: k for k, v in SEED004.items()}  # the papers' names are shorter (WDBC, pima)
    for j, a in enumerate(algs):
        st = astyle(a)
        kw = {"marker": st.marker, "color": st.color} if st is not None else {"marker": "o"}
        off = (j - (len(algs) - 1) / 2) * 0.08
        axes[0].scatter(xs + off, tot[a], label=LABEL.get(a, a), **kw)
        axes[1].scatter(xs + off, loc[a], **kw)
    for ax, title, values in zip(axes, ("total literals (model)", "literals read per prediction"), (tot, loc)):
        ax.set_yscale("symlog", linthresh=1)  # 0 literals (an empty model) has a place on the axis
        ax.set_ylim(0, 2.5 * max(float(np.nanmax(values.to_numpy(float), initial=1.0)), 1.0))
        ax.set_xticks(xs, [PAPER_NAME.get(d, d) for d in dsets], rotation=30, ha="right", rotation_mode="anchor")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=min(len(algs), 3), frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.05 * ((len(algs) + 2) // 3), 1, 1))
    save_figure(fig, OUT, "seed_learners_local_explanation")
    plt.close(fig)
    display(Image(str(OUT / "seed_learners_local_explanation.png")))
    sizes = pd.concat({"total literals": tot, "local literals": loc, "local rules": locr}, axis=1)
    sizes.columns = [f"{what}: {LABEL.get(a, a)}" for what, a in sizes.columns]
    sizes.to_csv(OUT / "seed_learners_local_explanation.csv")
    display(Markdown(markdown(sizes, digits=2)))
else:  # the per-dataset sizes of the paper run are not among the committed tables
    print("COMPUTE=0 without the records: the local explanation figure is not redrawn (its committed PNG stays)")
print(f"notebook ran in {time.perf_counter() - t0:.0f} s")
