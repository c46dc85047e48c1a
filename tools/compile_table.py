#!/usr/bin/env python
"""What a first fit spends in numba's compiler: per jitted function and per signature.

Each case runs in a fresh process whose ``NUMBA_CACHE_DIR`` is a new empty folder (``--cache
DIR`` keeps one instead, e.g. to time a second, warm process on it). The child listens to
numba's ``numba:compile`` events (``numba.core.event``): one event per (function, signature)
compiled, nested when a kernel's type inference compiles a kernel it calls. A row's ``incl``
is the event's seconds, ``excl`` the same minus the events nested in it (the function's own
share); loading from and saving to the cache happen outside the events and show in the gap
between the fit's seconds and the events' sum.

    python tools/compile_table.py                       # iris (the README's example), then noisy 20k
    python tools/compile_table.py --cases iris --json out.json
    python tools/compile_table.py --cases iris,noisy20k --warm   # each case then again on its cache

Cases: ``iris`` (``import turs`` + ``TURSClassifier().fit`` on sklearn's iris), ``warmup``
(``turs.warmup()``), ``noisy20k`` (the scaling study's noisy generator at 20,000 training rows,
default ``TURSClassifier()``); ``iris+noisy20k`` fits both in one process.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _child(case: str) -> dict:
    from numba.core import event

    stack, rows = [], []

    class Timer(event.Listener):
        def on_start(self, ev):
            stack.append([time.perf_counter(), 0.0, time.thread_time(), 0.0])

        def on_end(self, ev):
            t0, nested, c0, cnested = stack.pop()
            dt, cpu = time.perf_counter() - t0, time.thread_time() - c0
            if stack:
                stack[-1][1] += dt
                stack[-1][3] += cpu
            d = ev.data["dispatcher"]
            rows.append({"function": f"{d.py_func.__module__}.{d.py_func.__qualname__}",
                         "parallel": bool(d.targetoptions.get("parallel")),
                         "args": ", ".join(str(a) for a in ev.data["args"]),
                         "incl": dt, "excl": dt - nested, "cpu_incl": cpu, "cpu_excl": cpu - cnested,
                         "depth": len(stack)})

    event.register("numba:compile", Timer())
    out = {"case": case, "steps": []}
    t, c = time.perf_counter(), time.process_time()
    import turs  # noqa: F401

    out["steps"].append(("import turs", time.perf_counter() - t, time.process_time() - c))
    for part in case.split("+"):
        t, c = time.perf_counter(), time.process_time()
        if part == "iris":
            from sklearn.datasets import load_iris

            X, y = load_iris(return_X_y=True, as_frame=True)
            turs.TURSClassifier().fit(X, y)
        elif part == "warmup":
            turs.warmup()
        elif part.startswith("noisy"):
            sys.path.insert(0, str(ROOT / "tools"))
            from bench_speed import noisy_data
            from sklearn.model_selection import StratifiedKFold

            n = int(part[len("noisy"):].replace("k", "000"))
            X, y = noisy_data(n)
            tr, _ = next(StratifiedKFold(5, shuffle=True, random_state=2).split(X, y))
            turs.TURSClassifier().fit(X.iloc[tr], y[tr])
        else:
            raise SystemExit(f"unknown case part {part!r}: use iris, warmup or noisyNk")
        out["steps"].append((part, time.perf_counter() - t, time.process_time() - c))
    out["compiles"] = rows
    return out


def run(case: str, cache: str | None) -> dict:
    tmp = None
    if cache is None:
        tmp = tempfile.TemporaryDirectory(prefix="turs-numba-cache-")
        cache = tmp.name
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", case], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["process_s"] = wall
    res["cache"] = cache
    res["_tmp"] = tmp
    return res


def summary(res: dict, top: int) -> str:
    rows = res["compiles"]
    lines = [f"## {res['case']} (process {res['process_s']:.1f} s; "
             + ", ".join(f"{k} {v:.2f} s (CPU {c:.2f} s)" for k, v, c in res["steps"])
             + f"; {len(rows)} specializations compiled, {sum(r['excl'] for r in rows):.1f} s in numba:compile, "
             + f"CPU {sum(r['cpu_excl'] for r in rows):.1f} s)"]
    byfn = {}
    for r in rows:
        f = byfn.setdefault(r["function"], {"n": 0, "excl": 0.0, "cpu": 0.0, "par": r["parallel"]})
        f["n"] += 1
        f["excl"] += r["excl"]
        f["cpu"] += r["cpu_excl"]
    lines.append("| function | specializations | own compile s (wall) | own compile s (CPU) |")
    lines.append("|---|---|---|---|")
    for name, f in sorted(byfn.items(), key=lambda kv: -kv[1]["cpu"])[:top]:
        lines.append(f"| `{name.replace('turs.', '')}`{' (parallel)' if f['par'] else ''} | {f['n']} | {f['excl']:.2f} "
                     f"| {f['cpu']:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="iris,noisy20k")
    ap.add_argument("--cache", default=None, help="use this NUMBA_CACHE_DIR (default: a new empty one per case)")
    ap.add_argument("--warm", action="store_true", help="run each case again in a new process on its cache")
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument("--json", default=None, help="write every compile event here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(_child(a.child)))
        return
    results = []
    load = os.getloadavg()[0]
    print(f"load {load:.2f} (1 min) at start")
    for case in a.cases.split(","):
        res = run(case, a.cache)
        print(summary(res, a.top), flush=True)
        results.append(res)
        if a.warm:
            again = run(case, res["cache"])
            again["case"] += " (warm)"
            print(summary(again, a.top), flush=True)
            results.append(again)
        if res["_tmp"] is not None:
            res["_tmp"].cleanup()
    print(f"load {os.getloadavg()[0]:.2f} (1 min) at end")
    if a.json:
        for r in results:
            r.pop("_tmp", None)
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
