"""Record a fit's growth-kernel calls, then replay them against versions of the kernel.

Whole fits on the 2-core machine vary by 10-20% from one fresh process to the next, more than
most kernel changes gain; replaying the same recorded calls against two kernels in one process,
alternating, measures a change to a few percent, and checks that both give the same arrays
(``docs/performance.md``, tenth stop).

    # every 5th kernel call of magic's fold-0 fit (one scoring thread, the separate calls)
    python tools/replay_kernel.py record magic build/magic.calls --every 5
    # the committed kernel against a working copy, best and median of 5 passes each
    git show HEAD:turs/_core/growth_kernel.py > /tmp/kernel_head.py
    python tools/replay_kernel.py replay build/magic.calls /tmp/kernel_head.py turs/_core/growth_kernel.py

A kernel version is a copy of ``turs/_core/growth_kernel.py`` (its relative imports are
rewritten to ``turs``'s). Every call is replayed on the serial kernel unless ``--as-recorded``.
The recordings are large (magic, every 5th call: 1.3 GB) and stay out of the repository.
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import pickle
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from profile_scale import fold0  # noqa: E402


def _written_in_place(kernel) -> list:
    """The positions of the chunk kernel's arguments it writes: ``need`` and its outputs
    (``valid`` to the end), read from its signature."""
    names = list(inspect.signature(kernel.py_func).parameters)
    return [names.index("need"), *range(names.index("valid"), len(names))]


def record(data: str, out: str, every: int) -> None:
    """Fit fold 0 of ``data`` and pickle the arguments of every ``every``-th chunk call."""
    import turs
    import turs._core.growth_kernel as gk
    import turs.search.beam as beam
    import turs.search.growths as growths

    turs.warmup()
    growths.ONE_CALL_PER_BASE = False  # every base through the chunk kernels, with plain arrays
    beam.SCORING_THREADS = 1
    calls, seen = [], [0]

    def recording(kernel, tag):
        def call(*args):
            seen[0] += 1
            if seen[0] % every == 0:
                calls.append((tag, [a.copy() if isinstance(a, np.ndarray) else a for a in args]))
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
        args = list(args)
        for i in written:
            args[i] = args[i].copy()
        kernel = module._grow_chunk_parallel if as_recorded and tag == "parallel" else module._grow_chunk_serial
        start = time.perf_counter()
        kernel(*args)
        seconds += time.perf_counter() - start
        if keep:
            outputs.append([args[i] for i in written])
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record a fit's kernel calls")
    rec.add_argument("data", help="a registered dataset (fold 0) or noisy:N")
    rec.add_argument("out")
    rec.add_argument("--every", type=int, default=5)
    rep = sub.add_parser("replay", help="replay recorded calls against kernel versions")
    rep.add_argument("recording")
    rep.add_argument("kernels", nargs="+", help="copies of turs/_core/growth_kernel.py")
    rep.add_argument("--repeats", type=int, default=5)
    rep.add_argument("--as-recorded", action="store_true",
                     help="the parallel kernel for the calls the fit made to it")
    a = ap.parse_args(argv)
    if a.command == "record":
        record(a.data, a.out, a.every)
    else:
        replay(a.recording, a.kernels, a.repeats, a.as_recorded)


if __name__ == "__main__":
    main()
