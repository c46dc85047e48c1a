"""Command line of the benchmark: ``python -m turs.bench run|summarize|compare|list``.

Examples::

    python -m turs.bench run --profile quick --algorithms turs,cart --out results/
    python -m turs.bench run --profile paper --algorithms turs --timeout 300 --out results/
    python -m turs.bench run --profile paper --algorithms submodular --n-folds 10 --datasets magic --out results/
    python -m turs.bench run --backend dask --scheduler tcp://127.0.0.1:8786 --out results/
    python -m turs.bench summarize --results results/ --out results/summary.csv
    python -m turs.bench compare --results results/ --out figures/turs_vs_thesis.csv
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from .algorithms import list_algorithms
from .profiles import PROFILES, get_profile, register_seed_datasets
from .runner import BACKENDS, run
from .summary import compare, summarize, write_table
from .tasks import N_FOLDS, make_tasks


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m turs.bench", description="The TURS benchmark (thesis Section 3.6).")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run tasks; finished tasks (one JSON record each) are skipped")
    r.add_argument("--profile", choices=sorted(PROFILES), default="quick",
                   help="datasets and folds: quick (bundled data) or paper (30 thesis datasets); default quick")
    r.add_argument("--algorithms", default="turs", help="comma-separated registry names (default: turs); see `list`")
    r.add_argument("--datasets", default=None, help="comma-separated dataset names (default: the profile's)")
    r.add_argument("--folds", default=None,
                   help="comma-separated folds in 0..N_FOLDS-1 (default: the profile's, or all with --n-folds)")
    r.add_argument("--n-folds", type=int, default=None,
                   help="folds of the stratified cross-validation (default 5, the thesis'; e.g. 10 for the seed "
                        "papers' protocol); its records are kept apart from the 5-fold ones")
    r.add_argument("--out", default="results", help="results directory (default: results)")
    r.add_argument("--n-jobs", type=int, default=2, help="worker processes for the joblib backend (default 2)")
    r.add_argument("--timeout", type=float, default=600.0, help="seconds per task, 0 for none (default 600)")
    r.add_argument("--probe-first", action="store_true",
                   help="run fold 0 of every dataset first; when it times out, record the other folds as "
                        "'skipped' instead of running them")
    r.add_argument("--force", action="store_true", help="recompute tasks that have a record")
    r.add_argument("--rerun-failed", action="store_true", help="recompute tasks whose record is not 'ok'")
    r.add_argument("--backend", choices=BACKENDS, default="joblib")
    r.add_argument("--scheduler", default=None, help="Dask scheduler address for --backend dask")
    r.add_argument("--settings", default=None,
                   help='JSON object of algorithm parameters, e.g. \'{"beam_width": 5}\' (part of the task id)')
    r.add_argument("--data-dir", default=None, help="the thesis datasets' folder (sets TURS_DATA_DIR)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")

    s = sub.add_parser("summarize", help="one tidy row per record: CSV (and parquet when pyarrow is installed)")
    s.add_argument("--results", default="results", help="results directory (default: results)")
    s.add_argument("--out", default=None, help="CSV path (default: RESULTS/summary.csv)")

    c = sub.add_parser("compare", help="compare TURS results with the thesis' Tables 3.3-3.5")
    c.add_argument("--results", default="results", help="results directory (default: results)")
    c.add_argument("--out", default=None, help="CSV path (default: RESULTS/turs_vs_thesis.csv)")
    c.add_argument("--algorithm", default="turs", help="registry name whose results are compared (default: turs)")
    c.add_argument("--min-folds", type=int, default=5, help="finished folds a dataset needs to count (default 5)")

    sub.add_parser("list", help="registered algorithms and the profiles' datasets")
    return p


def _cmd_run(args) -> int:
    if args.data_dir:
        os.environ["TURS_DATA_DIR"] = str(Path(args.data_dir).expanduser().resolve())
    if args.backend == "dask" and not args.scheduler:
        print("error: --backend dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)", file=sys.stderr)
        return 2
    register_seed_datasets()  # the seed papers' variants (seed-heart, seed-campaign) by name
    profile = get_profile(args.profile)
    datasets = _csv(args.datasets) if args.datasets else list(profile.datasets)
    n_folds = N_FOLDS if args.n_folds is None else args.n_folds
    if n_folds < 2:
        print(f"error: --n-folds must be at least 2. Got {n_folds}.", file=sys.stderr)
        return 2
    if args.folds:
        folds = [int(f) for f in _csv(args.folds)]
    else:
        folds = list(profile.folds) if n_folds == N_FOLDS else list(range(n_folds))
    bad = [f for f in folds if not 0 <= f < n_folds]
    if bad:
        print(f"error: --folds {args.folds} names fold(s) {bad} outside 0..{n_folds - 1} of {n_folds}-fold CV; "
              f"pass folds in that range or a larger --n-folds.", file=sys.stderr)
        return 2
    settings = json.loads(args.settings) if args.settings else {}
    if not isinstance(settings, dict):
        print(f"error: --settings must be a JSON object. Got {args.settings!r}.", file=sys.stderr)
        return 2
    tasks = make_tasks(datasets, _csv(args.algorithms), folds, settings, n_folds=n_folds)
    result = run(tasks, args.out, n_jobs=args.n_jobs, timeout=args.timeout or None, force=args.force,
                 rerun_failed=args.rerun_failed, backend=args.backend, scheduler=args.scheduler,
                 progress=not args.no_progress, probe_first=args.probe_first)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.counts.items())) or "none"
    print(f"ran {len(result.ran)} task(s), skipped {len(result.skipped)} with a record in {args.out}; "
          f"records by status: {counts}")
    return 0


def _cmd_summarize(args) -> int:
    frame = summarize(args.results)
    out = args.out or str(Path(args.results) / "summary.csv")
    paths = write_table(frame, out)
    print(f"{len(frame)} record(s) -> {', '.join(map(str, paths))}")
    return 0


def _cmd_compare(args) -> int:
    import pandas as pd

    comp = compare(args.results, algorithm=args.algorithm, min_folds=args.min_folds)
    out = args.out or str(Path(args.results) / "turs_vs_thesis.csv")
    write_table(comp.table, out, parquet=False)
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 100,
                           "display.float_format", "{:.3f}".format):
        cols = ["dataset", "n_folds", "not_ok", "auc", "thesis_auc", "auc_diff", "rp_minus_turs",
                "overlap_pct", "thesis_overlap_pct", "n_literals", "thesis_literals", "literals_ratio"]
        print(comp.table[cols].to_string(index=False))
    print()
    for line in comp.lines:
        print(line)
    print(f"table -> {out}")
    return 0


def _cmd_list(args) -> int:
    print("algorithms:")
    for name, algo in sorted(list_algorithms().items()):
        req = f" (needs {', '.join(algo.requires)})" if algo.requires else ""
        print(f"  {name:20s} {algo.description}{req}")
    print("profiles:")
    for prof in PROFILES.values():
        print(f"  {prof.name}: {prof.description}; folds {','.join(map(str, prof.folds))}")
        print(f"    {', '.join(prof.datasets)}")
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return {"run": _cmd_run, "summarize": _cmd_summarize, "compare": _cmd_compare, "list": _cmd_list}[args.command](args)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
