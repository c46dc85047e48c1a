#!/usr/bin/env python3
"""Write the committed tables the paper-profile figures are redrawn from (no dataset needed).

    python tools/export_paper_results.py                  # results/paper -> data/results/
    python tools/export_paper_results.py --results results/paper --algorithms turs,cart
    python tools/export_paper_results.py --algorithms submodular,lire --merge        # add learners
    python tools/export_paper_results.py --results results/paper-local --fill local_rules,local_literals
    python tools/export_paper_results.py --studies figures       # after a computed paper run of the notebooks

1. ``data/results/paper_profile_tasks.csv``: one row per (dataset, fold, algorithm) of the paper
   run's records with default settings (``turs.bench.summary.export_tasks``): status, the
   metrics the notebooks read, fit seconds, sizes and, for TURS variants, the MDL score and its
   parts; numbers to 6 significant digits.
2. ``data/results/reference_turs2_runs.csv``: the columns of
   ``../shared/anchors/reference_turs2_runs.csv`` (the authors' implementation measured on this
   machine type) that Fig. 3.7 and the auxiliary-beam notebook use; skipped when that file is
   absent.
3. With ``--studies FOLDER`` (a computed ``make reproduce PROFILE=paper``'s output, ``figures/``),
   instead: the tables of the studies whose notebooks run their own tasks or fits, copied into
   ``data/results/`` (:data:`STUDY_TABLES`): the preferred-variables means, the seed learners'
   tables, the local-testing study's 200 runs and its Fig. 3.6 trajectories. Their notebooks read
   them with ``TURS_REPRODUCE_COMPUTE=0`` when their records or datasets are not at hand.

``turs.reproduce.get_results`` reads (1) with ``TURS_REPRODUCE_COMPUTE=0`` for every task that
has no record in the results folder, and ``turs.reproduce.reference_runs`` reads (2) when
``../shared`` is absent, so ``make reproduce PROFILE=paper COMPUTE=0`` works on a fresh clone.
``--merge`` keeps the committed rows of the algorithms the folder has no record of (a run of
two new learners does not drop the others); ``--fill COLUMNS`` changes nothing but the empty
cells of those columns in the committed rows, from records of the same (dataset, fold,
algorithm): a metric added to the harness after the paper run, without replacing its fit times
(measured under another load).

Exit status: 0 on success, 2 when the results folder has no record.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parent.parent
#: The reference runs' columns the notebooks read (and the sizes, for context).
REFERENCE_COLUMNS = ["variant", "suite", "dataset", "fold", "n_train", "n_test", "status", "fit_seconds",
                     "roc_auc_test", "num_rules", "total_literals", "total_cl_bits"]


#: A study notebook's output file -> its committed copy under data/results/ (what the notebook
#: reads with TURS_REPRODUCE_COMPUTE=0).
STUDY_TABLES = {
    "preferred_variables.csv": "preferred_variables_paper.csv",
    **{f"{stem}.csv": f"seed_learners_paper/{stem}.csv" for stem in (
        "seed004_table1_accuracy", "seed004_table2_table5", "seed004_table6_gap", "seed002_lire_vs_rulefit",
        "seed002_fig3_lambda_sweep")},
    "local_testing_runs.csv": "local_testing_runs.csv",
    "local_testing_trajectories.csv": "local_testing_trajectories.csv",
}


def export_studies(folder: Path, data_results: Path) -> list[str]:
    """Copy the :data:`STUDY_TABLES` found in ``folder`` into ``data_results``, byte for byte;
    returns the copies written."""
    written = []
    for name, target in STUDY_TABLES.items():
        source = folder / name
        if source.is_file():
            out = data_results / target
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(source.read_bytes())
            written.append(target)
    return written


def export_reference(source: Path, out: Path) -> pd.DataFrame:
    runs = pd.read_csv(source)
    missing = [c for c in REFERENCE_COLUMNS if c not in runs.columns]
    if missing:
        raise ValueError(f"{source} has no column(s) {missing}; expected the anchors' reference_turs2_runs.csv.")
    runs = runs[REFERENCE_COLUMNS]
    out.parent.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out, index=False, float_format="%.6g")
    return runs


def combine(committed: pd.DataFrame, new: pd.DataFrame, fill: str | None = None) -> pd.DataFrame:
    """The committed table with ``new``'s rows: every algorithm of ``new`` replaces its committed
    rows (``fill=None``), or only the empty cells of the ``fill`` columns are filled in."""
    key = ["dataset", "fold", "algorithm"]
    if fill:
        columns = [c.strip() for c in fill.split(",") if c.strip()]
        unknown = [c for c in columns if c not in committed.columns]
        if unknown:
            raise SystemExit(f"export: --fill {unknown}: not a column of the committed table ({list(committed.columns)})")
        out = committed.set_index(key)
        fresh = new[new["status"] == "ok"].set_index(key)[columns].reindex(out.index)
        out[columns] = out[columns].fillna(fresh)
        return out.reset_index()[committed.columns]
    kept = committed[~committed["algorithm"].isin(new["algorithm"].unique())]
    out = pd.concat([kept, new[committed.columns]], ignore_index=True)
    return out.sort_values(["dataset", "algorithm", "fold"], kind="stable").reset_index(drop=True)


def main(argv=None) -> int:
    from turs.bench import get_profile
    from turs.bench.summary import export_tasks

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=Path, default=REPO / "results" / "paper", help="records folder (default results/paper)")
    ap.add_argument("--out", type=Path, default=REPO / "data" / "results" / "paper_profile_tasks.csv")
    ap.add_argument("--algorithms", default=None, help="comma-separated names to keep (default: every one with records)")
    ap.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "anchors" / "reference_turs2_runs.csv")
    ap.add_argument("--reference-out", type=Path, default=REPO / "data" / "results" / "reference_turs2_runs.csv")
    ap.add_argument("--merge", action="store_true",
                    help="keep the committed rows of the algorithms without records in --results")
    ap.add_argument("--fill", default=None,
                    help="comma-separated columns: only fill their empty cells in the committed rows")
    ap.add_argument("--studies", type=Path, default=None, metavar="FOLDER",
                    help="copy the study tables of a computed paper run's output FOLDER into data/results/ instead")
    args = ap.parse_args(argv)

    if args.studies is not None:
        written = export_studies(args.studies, REPO / "data" / "results")
        print(f"{len(written)} study table(s) from {args.studies} -> data/results/: {', '.join(written) or 'none'}")
        return 0 if written else 2
    if not args.results.is_dir() or not any(args.results.glob("*.json")):
        print(f"export: {args.results} holds no task record (*.json); run `make experiments PROFILE=paper` "
              "or pass --results.", file=sys.stderr)
        return 2
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()] if args.algorithms else None
    profile = get_profile("paper")  # other datasets or 10-fold records in the folder are left out
    table = export_tasks(args.results, algorithms=algorithms, datasets=profile.datasets, folds=profile.folds)
    if (args.merge or args.fill) and args.out.is_file():
        table = combine(pd.read_csv(args.out), table, fill=args.fill)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False, float_format="%.6g")
    counts = table.groupby("algorithm")["status"].value_counts().unstack(fill_value=0)
    print(f"{len(table)} task rows ({table['dataset'].nunique()} datasets) -> {args.out} "
          f"({args.out.stat().st_size / 1024:.0f} KB)")
    print(counts.to_string())
    if args.reference.is_file():
        runs = export_reference(args.reference, args.reference_out)
        print(f"{len(runs)} reference runs -> {args.reference_out} ({args.reference_out.stat().st_size / 1024:.0f} KB)")
    else:
        print(f"{args.reference} is absent: {args.reference_out} left as it is")
    return 0


if __name__ == "__main__":
    sys.exit(main())
