#!/usr/bin/env python
"""Fit time and memory of a default ``TURSClassifier()`` from one to ten million rows
(``make bench-scale``).

The data: ``make_classification(n_samples=12_500_000, n_features=20, n_informative=8,
n_redundant=4, flip_y=0.05, class_sep=0.8, random_state=0)``, generated once into
``build/bench_scale/data`` as ``X.npy`` (float64) and ``y.npy``; the first ``n`` rows train,
the last 2,500,000 test, for every ``n``.

Per ``n``, a fresh process for the fit: it reads the first ``n`` rows into memory (from the
memory-mapped ``.npy``), imports ``turs``, runs ``turs.warmup()``, resets the peak resident set
(``/proc/self/clear_refs``), fits, and reports the fit time and the peak RSS beyond what the
process held when the fit started (the input, the interpreter, the compiled kernels). The fitted
model is written as JSON; a second fresh process reads it and the 2.5M test rows, resets the
peak, and reports ``predict_proba``'s time and peak RSS beyond its input, and the test AUC.

``--stages`` also splits the fit's peak by stage: the fit's steps are wrapped where the
estimator calls them, and at each step's start and end the peak since the last boundary
(``VmHWM``) is read and reset; a segment between two steps is reported as "between".

    .venv/bin/python tools/bench_scale.py 1000000 --stages            # one size, with stages
    .venv/bin/python tools/bench_scale.py 1000000 2000000 4000000 10000000 --plot figures/bench_scale.png
    .venv/bin/python tools/bench_scale.py --plot figures/bench_scale.png --only-plot

Rows are appended to ``build/bench_scale/results.jsonl`` (with the commit, the 1-minute load
before and after, and the stage table when asked); ``--plot`` draws time and memory against
rows on log-log axes with the fitted slopes from the latest row of each size.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "bench_scale"
N_TOTAL = 12_500_000
N_TEST = 2_500_000


# ------------------------------------------------------------------------------- memory
def _status() -> dict:
    """``VmRSS`` and ``VmHWM`` of this process, in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, val = line.split(":")
                out[key] = int(val.split()[0]) * 1024
    return out


def reset_peak() -> int:
    """Reset the peak RSS to the current RSS (``/proc/self/clear_refs``); returns the RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status()["VmRSS"]


class Stages:
    """The peak RSS of each stage of a fit: every boundary reads the peak since the previous
    boundary, charges it to the segment that just ended, and resets it."""

    def __init__(self, base: int):
        self.base = base
        self.rows: list = []  # (label, peak beyond base, rss beyond base at its end, seconds)
        self.current = "between"
        self.t = time.perf_counter()

    def boundary(self, next_label: str) -> None:
        st = _status()
        now = time.perf_counter()
        self.rows.append((self.current, st["VmHWM"] - self.base, st["VmRSS"] - self.base, now - self.t))
        reset_peak()
        self.current, self.t = next_label, now

    def wrap(self, owner, name: str, label: str) -> None:
        fn = getattr(owner, name, None)
        if fn is None:
            return
        stages = self

        def wrapped(*args, **kwargs):
            outer = stages.current
            stages.boundary(label)
            try:
                return fn(*args, **kwargs)
            finally:
                stages.boundary(outer if outer != label else "between")
        setattr(owner, name, wrapped)

    def table(self) -> list:
        """Per label: the largest peak and the last RSS beyond the base, calls and seconds."""
        out: dict = {}
        for label, peak, rss, sec in self.rows:
            row = out.setdefault(label, {"stage": label, "peak_mb": 0.0, "rss_end_mb": 0.0, "calls": 0, "s": 0.0})
            row["peak_mb"] = max(row["peak_mb"], peak / 2**20)
            row["rss_end_mb"] = rss / 2**20
            row["calls"] += 1
            row["s"] += sec
        return list(out.values())


def install_stages(stages: Stages) -> None:
    """Wrap the fit's steps where ``turs.learn`` (the fit, step by step) calls them (a step it
    does not call is simply not reported)."""
    import turs.learn as learn
    from turs.encoding import FeatureEncoder
    from turs.search.sampled import SampledSearch

    steps = [(FeatureEncoder, "fit", "encode: cut points"), (FeatureEncoder, "transform", "encode: float table"),
             (FeatureEncoder, "bins", "encode: bins"), (FeatureEncoder, "bins_of", "encode: bins"),
             (learn, "print_digits_table", "encode: print digits"), (learn, "SearchData", "search data"),
             (learn, "LocalRows", "row store"), (SampledSearch, "full_state", "M on all rows (initial)"),
             (learn, "learn_rule_set", "rule search"), (learn, "score_pattern_counts", "after search: MDL score"),
             (learn, "packed_covers", "after search: training covers"),
             (learn, "fitted_counts", "after search: counts, covers, MDL score")]
    for owner, name, label in steps:
        stages.wrap(owner, name, label)


# ----------------------------------------------------------------------------- the data
def data_dir() -> Path:
    d = CACHE / "data"
    if not (d / "X.npy").exists():
        from sklearn.datasets import make_classification

        d.mkdir(parents=True, exist_ok=True)
        X, y = make_classification(n_samples=N_TOTAL, n_features=20, n_informative=8, n_redundant=4,
                                   flip_y=0.05, class_sep=0.8, random_state=0)
        np.save(d / "y.npy", y.astype(np.int64))
        np.save(d / "X.tmp.npy", X)
        os.replace(d / "X.tmp.npy", d / "X.npy")
    return d


def _load(rows: slice):
    d = data_dir()
    X = np.array(np.load(d / "X.npy", mmap_mode="r")[rows])
    y = np.array(np.load(d / "y.npy", mmap_mode="r")[rows])
    return X, y


# --------------------------------------------------------------------- one measurement
def _one_fit(n: int, stages_on: bool, model_path: Path) -> dict:
    X, y = _load(slice(0, n))
    import turs
    from turs import TURSClassifier

    turs.warmup()
    base = reset_peak()
    stages = Stages(base) if stages_on else None
    if stages is not None:
        install_stages(stages)
    t0 = time.perf_counter()
    m = TURSClassifier().fit(X, y)
    fit_s = time.perf_counter() - t0
    if stages is not None:
        stages.boundary("after the fit")
        peak = max(r[1] for r in stages.rows) + base
    else:
        peak = _status()["VmHWM"]
    model_path.write_text(m.to_json())
    out = {"n": n, "fit_s": fit_s, "fit_peak_mb": (peak - base) / 2**20, "rules": len(m.rules_),
           "mdl": float(m.mdl_score_), "sampled_from_rule": m.sampled_from_rule_,
           "input_mb": X.nbytes / 2**20 + y.nbytes / 2**20}
    if stages is not None:
        out["stages"] = stages.table()
    return out


def _one_predict(model_path: Path) -> dict:
    X, y = _load(slice(N_TOTAL - N_TEST, N_TOTAL))
    from sklearn.metrics import roc_auc_score

    from turs import TURSClassifier

    m = TURSClassifier.from_json(model_path.read_text())
    m.predict_proba(X[:1000])  # the first call's imports
    base = reset_peak()
    t0 = time.perf_counter()
    p = m.predict_proba(X)
    s = time.perf_counter() - t0
    peak = _status()["VmHWM"]
    return {"predict_s": s, "predict_peak_mb": (peak - base) / 2**20, "test_auc": float(roc_auc_score(y, p[:, 1]))}


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "turs"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() + ("+" if dirty.stdout.strip() else "")
    except OSError:
        return "?"


def run(n: int, stages_on: bool) -> dict:
    """Fit and predict at ``n`` rows, each in a fresh process; the row written to results.jsonl."""
    data_dir()
    CACHE.mkdir(parents=True, exist_ok=True)
    model_path = CACHE / f"model_{n}.json"
    load_before = os.getloadavg()[0]
    row = {"commit": _commit(), "load_before": load_before}
    for args in (["--child-fit", str(n)] + (["--stages"] if stages_on else []), ["--child-predict", str(n)]):
        res = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
        if res.returncode != 0:
            print(json.dumps(row), file=sys.stderr)  # what was measured before the failure
            raise RuntimeError(f"{args} failed:\n{res.stderr[-4000:]}")
        row.update(json.loads(res.stdout.strip().splitlines()[-1]))
    row["load_after"] = os.getloadavg()[0]
    with open(CACHE / "results.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")
    return row


def show(row: dict) -> None:
    print(f"n={row['n']:,} commit {row['commit']} load {row['load_before']:.1f}-{row['load_after']:.1f}: "
          f"fit {row['fit_s']:.1f} s, peak beyond input {row['fit_peak_mb']:.0f} MB "
          f"({row['fit_peak_mb'] * 2**20 / row['n']:.0f} B/row), {row['rules']} rules, MDL {row['mdl']:.1f}, "
          f"test AUC {row['test_auc']:.4f}; predict 2.5M rows {row['predict_s']:.1f} s, "
          f"peak {row['predict_peak_mb']:.0f} MB")
    for st in row.get("stages", []):
        print(f"    {st['stage']:<32} peak {st['peak_mb']:8.0f} MB   RSS at end {st['rss_end_mb']:8.0f} MB   "
              f"{st['calls']:>3} calls {st['s']:7.1f} s")


def plot(path: Path) -> None:
    """Time and peak memory against rows, log-log, with the fitted slopes (latest row per n)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {}
    for line in open(CACHE / "results.jsonl"):
        r = json.loads(line)
        rows[r["n"]] = r
    ns = np.array(sorted(rows), dtype=float)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, label in ((axes[0], "fit_s", "fit time (s)"), (axes[1], "fit_peak_mb", "peak RSS beyond input (MB)")):
        v = np.array([rows[int(n)][key] for n in ns])
        ax.loglog(ns, v, "o-", color="#0072B2")
        if len(ns) >= 2:
            slope = np.polyfit(np.log(ns), np.log(v), 1)[0]
            ax.set_title(f"{label}: slope {slope:.2f}")
        else:
            ax.set_title(label)
        ax.set_xlabel("training rows")
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="*", type=int, help="training rows (default 1M 2M 4M 10M)")
    ap.add_argument("--stages", action="store_true", help="split the fit's peak RSS by stage")
    ap.add_argument("--plot", type=Path, help="draw time and memory against rows to this file")
    ap.add_argument("--only-plot", action="store_true", help="draw the plot from results.jsonl and stop")
    ap.add_argument("--child-fit", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-predict", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child_fit:
        print(json.dumps(_one_fit(a.child_fit, a.stages, CACHE / f"model_{a.child_fit}.json")))
        return
    if a.child_predict:
        print(json.dumps(_one_predict(CACHE / f"model_{a.child_predict}.json")))
        return
    if not a.only_plot:
        for n in a.n or [1_000_000, 2_000_000, 4_000_000, 10_000_000]:
            show(run(n, a.stages))
    if a.plot:
        plot(a.plot)


if __name__ == "__main__":
    main()
