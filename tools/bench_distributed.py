#!/usr/bin/env python
"""Fit time and memory of ``DaskTURSClassifier`` on a table made on the workers
(``make bench-distributed``).

The table: ``rows`` rows of ``features`` standard-normal float64 columns, made partition by
partition ON the workers (``dd.from_map``; partition ``i`` from ``numpy.random.default_rng([seed,
i])``, so the client never holds it), and the class ``1`` where ``(x0 > 0.5 and x1 < 1) or x2 >
1.2``, flipped at random for 10% of the rows. A ``LocalCluster`` of ``--workers`` worker
processes, one thread each, ``--memory`` each.

Reported: the fit's wall time, each worker's peak resident set (``ru_maxrss``, read by
``client.run`` after the fit: the worker's whole life) and the client's peak beyond what it
held before the fit (``VmHWM`` reset through ``/proc/self/clear_refs``), the rules and the MDL
score. ``--compare`` (small tables only) also fits ``TURSClassifier`` on the same rows in this
process and says whether the models are the same.

    .venv/bin/python tools/bench_distributed.py --rows 2000000 --partitions 8 --compare
    .venv/bin/python tools/bench_distributed.py --rows 50000000 --partitions 100 --memory 5GiB

A line per run is appended to ``build/bench_distributed/results.jsonl`` (with the commit and the
1-minute load before and after).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "bench_distributed"


class MakePartition:
    """Partition ``i`` of the table (module docstring): features and the class, made from the seed."""

    def __init__(self, rows: int, partitions: int, features: int, seed: int):
        self.rows, self.partitions, self.features, self.seed = rows, partitions, features, seed

    def size(self, i: int) -> int:
        base, extra = divmod(self.rows, self.partitions)
        return base + (1 if i < extra else 0)

    def __call__(self, i: int) -> pd.DataFrame:
        rng = np.random.default_rng([self.seed, i])
        m = self.size(i)
        X = rng.standard_normal((m, self.features))
        y = ((X[:, 0] > 0.5) & (X[:, 1] < 1.0)) | (X[:, 2] > 1.2)
        y ^= rng.random(m) < 0.10
        df = pd.DataFrame(X, columns=[f"x{j}" for j in range(self.features)])
        df["label"] = y.astype(np.int8)
        return df


def _vm(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _worker_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _warm() -> float:
    import turs

    return turs.warmup()


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--partitions", type=int, default=8)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory", default="5GiB", help="memory limit per worker")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compare", action="store_true", help="also fit TURSClassifier on the same rows here")
    args = p.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("turs.dask").setLevel(logging.INFO)  # the stages' times

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from turs import TURSClassifier
    from turs.dask import DaskTURSClassifier

    load_before = os.getloadavg()[0]
    make = MakePartition(args.rows, args.partitions, args.features, args.seed)
    meta = make(0).iloc[:0]
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, memory_limit=args.memory,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        t = time.perf_counter()
        client.run(_warm)
        warm = time.perf_counter() - t
        ddf = dd.from_map(make, range(args.partitions), meta=meta, enforce_metadata=False)
        features = [c for c in meta.columns if c != "label"]
        _reset_peak()
        client_before = _vm("VmRSS")
        t = time.perf_counter()
        model = DaskTURSClassifier().fit(ddf[features], ddf["label"])
        fit_s = time.perf_counter() - t
        client_peak = _vm("VmHWM") - client_before
        workers = client.run(_worker_peak)
    row = {"rows": args.rows, "partitions": args.partitions, "features": args.features, "workers": args.workers,
           "memory_limit": args.memory, "fit_s": round(fit_s, 1), "warmup_s": round(warm, 1),
           "worker_peak_mb": {w: round(v / 2**20) for w, v in workers.items()},
           "client_peak_beyond_mb": round(client_peak / 2**20), "rules": len(model.rules_),
           "mdl_score": model.mdl_score_, "commit": _commit(), "load_before": load_before,
           "load_after": os.getloadavg()[0]}
    print(model)
    if args.compare:
        full = pd.concat([make(i) for i in range(args.partitions)], ignore_index=True)
        t = time.perf_counter()
        local = TURSClassifier().fit(full[features], full["label"])
        row["local_fit_s"] = round(time.perf_counter() - t, 1)
        row["same_model"] = bool(str(local) == str(model) and local.mdl_score_ == model.mdl_score_)
    print(json.dumps(row, indent=1))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "results.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    sys.exit(main())
