"""Record a fit's growth-kernel calls, then replay them against versions of the kernel.

Whole fits on the 2-core machine vary by 10-20% from one fresh process to the next, more than
most kernel changes gain; replaying the same recorded calls against two kernels in one process,
alternating, measures a change to a few percent, and checks that both give the same arrays
(``docs/performance.md``, "How a change is measured").

    # every 5th kernel call of magic's fold-0 fit (one scoring thread, the separate calls)
    python tools/replay_kernel.py record magic build/magic.calls --every 5
    # the committed kernel against a working copy, best and median of 5 passes each
    git show HEAD:turs/_core/growth.py > /tmp/kernel_head.py
    python tools/replay_kernel.py replay build/magic.calls /tmp/kernel_head.py turs/_core/growth.py

``tools/profile_scale.py N --keep K`` writes a recording of the same form: the chunk calls of
the K slowest growth-kernel calls of the noisy generator's fit (``noisy_N_w10.calls``).

A kernel version is a copy of ``turs/_core/growth.py`` (its relative imports are
rewritten to ``turs``'s). Every call is replayed on the serial kernel unless ``--as-recorded``.
The recordings are large (magic, every 5th call: 1.3 GB) and stay out of the repository.

``fit-costs`` refits the cost model that picks the union build per feature
(``ROWS_PREFIX_COST`` .. ``BITS_RANK_COST`` in ``turs/_config.py``): every feature of
the recorded calls that leave the choice to the model is timed alone with each build forced, and
the differences between the builds are fitted by non-negative least squares to what each build
does (an instrumented copy of the kernel reports it):

    python tools/replay_kernel.py fit-costs build/avila.calls build/magic.calls build/wave.calls build/n20.calls
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import pickle
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from profile_scale import fold0  # noqa: E402


def _written_in_place(kernel) -> list:
    """The positions of the chunk kernel's arguments it writes: ``need`` and its outputs
    (``out`` to the end), read from its signature."""
    names = list(inspect.signature(kernel.py_func).parameters)
    return [names.index("need"), *range(names.index("out"), len(names))]


def _copy(value):
    """A deep copy of an argument: an array, or a record (named tuple) of arrays and scalars."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_copy(v) for v in value))
    return value


def _fresh(args, written, at=None) -> list:
    """A recorded call's arguments with fresh copies of those the kernel writes (``written``)
    and some replaced (``at``: position -> value)."""
    args = list(args)
    for i in written:
        args[i] = _copy(args[i])
    for i, value in (at or {}).items():
        args[i] = value
    return args


def record(data: str, out: str, every: int) -> None:
    """Fit fold 0 of ``data`` and pickle the arguments of every ``every``-th chunk call."""
    import turs
    import turs._core.growth as gk
    import turs.search.growths as growths
    from turs import _config

    turs.warmup()
    _config.ONE_CALL_PER_BASE = False  # every base through the chunk kernels, with plain arrays
    _config.SCORING_THREADS = 1
    calls, seen = [], [0]

    def recording(kernel, tag):
        def call(*args):
            seen[0] += 1
            if seen[0] % every == 0:
                calls.append((tag, [_copy(a) for a in args]))
            return kernel(*args)
        return call

    serial = recording(gk._grow_chunk_serial, "serial")
    gk._grow_chunk_serial = growths._grow_chunk_serial = serial
    gk._grow_chunk_parallel = recording(gk._grow_chunk_parallel, "parallel")
    X, y = fold0(data)
    start = time.perf_counter()
    model = turs.TURSClassifier().fit(X, y)
    print(f"{data}: fit {time.perf_counter() - start:.2f} s, {len(model.rules_)} rules, "
          f"{seen[0]} kernel calls, {len(calls)} recorded -> {out}")
    with open(out, "wb") as f:
        pickle.dump(calls, f, protocol=5)


def load_kernel(path: str, index: int):
    """A copy of the growth kernel module from ``path``, importable beside ``turs``'s own."""
    source = Path(path).read_text().replace("from .._config import", "from turs._config import")
    source = source.replace("from .. import _config", "from turs import _config")
    source = re.sub(r"^from \.(\w)", r"from turs._core.\1", source, flags=re.M)  # its sibling modules
    folder = Path(tempfile.mkdtemp(prefix="turs_kernel_"))
    file = folder / f"kernel_version_{index}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(module, calls, as_recorded, keep=False):
    seconds, outputs = 0.0, []
    written = _written_in_place(module._grow_chunk_serial)
    for tag, args in calls:
        args = _fresh(args, written)
        kernel = module._grow_chunk_parallel if as_recorded and tag == "parallel" else module._grow_chunk_serial
        start = time.perf_counter()
        kernel(*args)
        seconds += time.perf_counter() - start
        if keep:
            outputs.append([a for i in written for a in (args[i] if hasattr(args[i], "_fields") else (args[i],))])
    return seconds, outputs


def replay(recording: str, kernels: list[str], repeats: int, as_recorded: bool) -> None:
    with open(recording, "rb") as f:
        calls = pickle.load(f)
    modules = [load_kernel(path, i) for i, path in enumerate(kernels)]
    first = [_run(m, calls, as_recorded, keep=True)[1] for m in modules]  # compiles, and the outputs
    times = [[] for _ in modules]
    for _ in range(repeats):
        for i, module in enumerate(modules):
            times[i].append(_run(module, calls, as_recorded)[0])
    print(f"{len(calls)} calls, best and median of {repeats} passes")
    for path, t, out in zip(kernels, times, first):
        same = all(all(np.array_equal(a, b) for a, b in zip(x, z)) for x, z in zip(first[0], out))
        print(f"{path}: best {min(t):.3f} s, median {np.median(t):.3f} s, "
              f"{'same arrays as the first' if same else 'DIFFERENT arrays from the first'}")


_COMPONENTS = """        stats[f, 0] = 1
        stats[f, 1] = row_adds
        stats[f, 2] = G * nbk * C
        stats[f, 3] = n_used * G * C
        stats[f, 4] = C * min(m_covered, G * n_used) * row_adds / max(m_covered, 1)
        stats[f, 5] = rule_adds
        stats[f, 6] = (n_rules + group_rules) * n_words
        stats[f, 7] = G * nbk * n_classes_covered
"""
# each build's terms (columns of the components above) and the names of their constants
_TERMS = {"rows": ([1, 2], [None, "ROWS_PREFIX_COST"]),
          "bins": ([0, 4], ["BINS_FIXED_COST", "BINS_SCATTER_COST"]),
          "bits": ([0, 5, 6, 7], ["BITS_FIXED_COST", "BITS_RULE_COST", "BITS_WORD_COST", "BITS_RANK_COST"])}


def _instrumented_kernel(path: str):
    """A copy of the kernel whose chunk function also writes, per feature that reaches the union
    build, what each build would do (``_COMPONENTS``) into an extra last argument ``stats``."""
    source = Path(path).read_text()
    head, anchor = "need_tested, tests, out):", "        use = path\n"
    if source.count(head) != 1 or source.count(anchor) != 1:
        raise SystemExit(f"{path}: the kernel no longer has the lines fit-costs instruments ({head!r}, {anchor!r})")
    source = source.replace(head, "need_tested, tests, out, stats):").replace(anchor, _COMPONENTS + anchor)
    copy = Path(tempfile.mkdtemp(prefix="turs_kernel_")) / "instrumented.py"
    copy.write_text(source)
    return load_kernel(str(copy), 99)


def _feature_timings(module, calls, repeats):
    """Per feature of the calls that leave the build to the model: its components and its time
    alone (``f_start = f``, ``f_stop = f + 1``) with each build forced, best of ``repeats``."""
    kernel = module._grow_chunk_serial
    names = list(inspect.signature(kernel.py_func).parameters)
    i_path, i_start, i_stop, i_inputs = (names.index(n) for n in ("path", "f_start", "f_stop", "inputs"))
    written = _written_in_place(kernel)[:-1]  # the outputs, without ``stats``
    X, T = [], []
    for _, args in calls:
        if args[i_path] != module.PATH_AUTO:
            continue
        d = args[i_inputs].bins.shape[0]
        stats = np.zeros((d, 8))
        kernel(*_fresh(args, written), stats)
        for f in np.flatnonzero(stats[:, 0]):
            times = []
            for build in (module.PATH_ROWS, module.PATH_BINS, module.PATH_BITS):
                best = np.inf
                for _ in range(repeats):
                    a = _fresh(args, written, {i_path: build, i_start: int(f), i_stop: int(f) + 1})
                    start = time.perf_counter()
                    kernel(*a, np.zeros((d, 8)))
                    best = min(best, time.perf_counter() - start)
                times.append(best)
            X.append(stats[f])
            T.append(times)
    return np.array(X), np.array(T)


def _fit(data, bucket):
    """The constants (seconds per unit) fitted to the differences between the builds' times,
    with the per-bucket build's term per (group, bucket, class) fixed at ``bucket`` s."""
    from scipy.optimize import nnls
    rows, bins, bits = (_TERMS[b][0] for b in ("rows", "bins", "bits"))
    A, b = [], []
    for X, T in data:
        Xr, Xb, Xt = X[:, rows], X[:, bins], X[:, bits]
        fixed = bucket * X[:, 3]
        zr, zb, zt = np.zeros_like(Xr), np.zeros_like(Xb), np.zeros_like(Xt)
        A += [np.hstack([Xr, -Xb, zt]), np.hstack([Xr, zb, -Xt]), np.hstack([zr, Xb, -Xt])]
        b += [T[:, 0] - T[:, 1] + fixed, T[:, 0] - T[:, 2], T[:, 1] - T[:, 2] - fixed]
    theta = nnls(np.vstack(A), np.concatenate(b))[0]
    return np.split(theta, [len(rows), len(rows) + len(bins)])


def fit_costs(recordings: list[str], kernel_path: str, repeats: int, bucket_units: float) -> None:
    module = _instrumented_kernel(kernel_path)
    data = []
    for rec in recordings:
        with open(rec, "rb") as f:
            X, T = _feature_timings(module, pickle.load(f), repeats)
        data.append((X, T))
        print(f"{rec}: {len(X)} features; alone, rows / bins / bits {T[:, 0].sum():.3f} / {T[:, 1].sum():.3f} / "
              f"{T[:, 2].sum():.3f} s, the fastest of each {T.min(axis=1).sum():.3f} s")
    unit = _fit(data, 0.0)[0][0]  # seconds per list entry of the per-row build: the model's unit
    theta = _fit(data, bucket_units * unit)
    unit = theta[0][0]
    print(f"BINS_BUCKET_COST = {bucket_units} (fixed)")
    for build, coef in zip(("rows", "bins", "bits"), theta):
        for name, value in zip(_TERMS[build][1], coef):
            if name:
                print(f"{name} = {value / unit:.3g}")
    for rec, (X, T) in zip(recordings, data):
        cost = [X[:, _TERMS[b][0]] @ c for b, c in zip(("rows", "bins", "bits"), theta)]
        cost[1] = cost[1] + bucket_units * unit * X[:, 3]
        pick = np.argmin(np.c_[tuple(cost)], axis=1)
        print(f"{rec}: the fitted model's choice {T[np.arange(len(T)), pick].sum():.3f} s (alone, per feature)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record a fit's kernel calls")
    rec.add_argument("data", help="a registered dataset (fold 0) or noisy:N")
    rec.add_argument("out")
    rec.add_argument("--every", type=int, default=5)
    rep = sub.add_parser("replay", help="replay recorded calls against kernel versions")
    rep.add_argument("recording")
    rep.add_argument("kernels", nargs="+", help="copies of turs/_core/growth.py")
    rep.add_argument("--repeats", type=int, default=5)
    rep.add_argument("--as-recorded", action="store_true",
                     help="the parallel kernel for the calls the fit made to it")
    fit = sub.add_parser("fit-costs", help="refit the union build's cost model on recorded calls")
    fit.add_argument("recordings", nargs="+")
    fit.add_argument("--kernel", default=str(Path(__file__).resolve().parent.parent / "turs/_core/growth.py"))
    fit.add_argument("--repeats", type=int, default=3)
    fit.add_argument("--bucket-cost", type=float, default=0.5,
                     help="BINS_BUCKET_COST, fixed: the fit cannot tell it from the others")
    a = ap.parse_args(argv)
    if a.command == "record":
        record(a.data, a.out, a.every)
    elif a.command == "replay":
        replay(a.recording, a.kernels, a.repeats, a.as_recorded)
    else:
        fit_costs(a.recordings, a.kernel, a.repeats, a.bucket_cost)


if __name__ == "__main__":
    main()
