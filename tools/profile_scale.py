#!/usr/bin/env python
"""Where the time of a TURS fit goes as n grows: the scaling study's noisy generator
(``tools/bench_speed.py``, ``noisy_data``) at the given training sizes, fold 0 of
StratifiedKFold(5, shuffle=True, random_state=2), default ``TURSClassifier()``, JIT warm.

Every base is scored by the separate kernel calls (``_grow_candidates`` then
``_finish_growths``, as with ``turs._config.ONE_CALL_PER_BASE`` off; the same numbers).
Every growth-kernel call is timed and described from its ``GrowthInputs`` and
``OverlapLists`` (rows ``m`` of the base cover, overlap groups ``P`` present in the cover,
valid slots, the additions of the union build and of the per-slot group loop); ``RuleSetState``
builds (``G``, the rule set's overlap groups), the scoring kernel and the per-base bookkeeping
are timed too. Writes one JSON per size to ``--out`` and prints a summary; ``--keep N`` also
writes the chunk-kernel calls of the N slowest growth-kernel calls as a recording
``tools/replay_kernel.py replay`` takes.

    .venv/bin/python tools/profile_scale.py 5000 10000 --out build/profile_scale
    .venv/bin/python tools/profile_scale.py 20000 --threads 1 --keep 20   # + .../noisy_20000_w10.calls
    git show HEAD:turs/_core/growth.py > /tmp/kernel_head.py
    .venv/bin/python tools/replay_kernel.py replay build/profile_scale/noisy_20000_w10.calls \
        /tmp/kernel_head.py turs/_core/growth.py
    .venv/bin/python tools/profile_scale.py 20000 --wall magic avila   # wall time by kind of iteration
"""
from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import pickle
import time
from collections import defaultdict
from pathlib import Path

import numpy as np


def noisy(n_train: int):
    """The noisy generator: ``n_train`` training rows of fold 0 and the test rows."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import StratifiedKFold

    X, y = make_classification(n_samples=int(n_train * 1.25), n_features=20, n_informative=8, n_redundant=4,
                               flip_y=0.05, class_sep=0.8, random_state=0)
    tr, te = next(StratifiedKFold(5, shuffle=True, random_state=2).split(X, y))
    return X[tr], y[tr], X[te], y[te]


def fold0(name: str):
    """The training rows of fold 0: ``noisy:N`` (the noisy generator, N training rows) or a
    registered dataset (``turs.datasets.load``)."""
    if name.startswith("noisy:"):
        X, y, _, _ = noisy(int(name.split(":")[1]))
        return X, y
    from sklearn.model_selection import StratifiedKFold

    from turs.datasets import load

    X, y = load(name)
    y = np.asarray(y)
    tr, _ = next(StratifiedKFold(5, shuffle=True, random_state=2).split(X, y))
    return X.iloc[tr], y[tr]


def _kept_chunk(tag, args, need, at):
    """A chunk-kernel call as ``tools/replay_kernel.py`` replays it (``(tag, arguments)``): the
    base's arrays and the overlap lists copied (the search may reuse them), the data's arrays
    shared (one copy in the recording), ``need`` as the call found it and fresh outputs.
    ``at``: the positions of the arguments ``inputs``, ``lists``, ``need`` and ``out``."""
    args = list(args)
    i_inputs, i_lists, i_need, i_out = at
    inputs = args[i_inputs]
    args[i_inputs] = inputs._replace(rows=inputs.rows.copy(), lo=inputs.lo.copy(), hi=inputs.hi.copy(),
                                     group_local=inputs.group_local.copy())
    args[i_lists] = type(args[i_lists])(*(v.copy() if isinstance(v, np.ndarray) else v for v in args[i_lists]))
    args[i_need] = need
    args[i_out] = type(args[i_out])(*(np.zeros_like(v) for v in args[i_out]))
    return tag, args


def profile(n_train: int, max_rules=None, keep_args=0, args_out=None, beam_width=10, threads=None) -> dict:
    """Fit the noisy generator's ``n_train`` rows with every base scored by the separate kernel
    calls (``turs._config.ONE_CALL_PER_BASE`` off, no kernel calls shared between threads:
    ``SPLIT_MIN_WORK`` infinite; the same numbers), timing and describing each call of
    ``_grow_candidates`` from its records (``GrowthInputs``, ``OverlapLists``).
    ``keep_args``: the chunk-kernel calls of the ``keep_args`` slowest of them are pickled to
    ``args_out`` in ``tools/replay_kernel.py``'s format (``replay_kernel.py replay args_out ...``).
    ``threads``: ``turs._config.SCORING_THREADS`` for the fit (None: as it is). With two, a call's
    wall time ``t`` includes its waits for the other thread's Python (the interpreter lock) and
    the phases are summed over both threads; ``cpu`` is the calling thread's CPU time (the
    serial kernel's work, not the ``prange`` kernel's worker threads)."""
    import threading

    import turs
    import turs._core.growth as gk
    import turs.search.growths as growths
    import turs.search.scoring as scoring
    import turs.search.state as state_mod
    from sklearn.metrics import roc_auc_score
    from turs import _config

    turs.warmup()
    calls = []
    kept = []  # (seconds, call index, chunk calls) of the slowest calls, for replay
    phase = defaultdict(float)
    covers = {}  # md5 of a base cover -> its rows
    lock = threading.Lock()  # the bases of an iteration may be scored in two threads
    chunk_log = threading.local()  # the chunk-kernel calls of this thread's current call (keep_args)
    kernel = growths._grow_candidates
    names = list(inspect.signature(gk._grow_chunk_impl).parameters)
    at = tuple(names.index(name) for name in ("inputs", "lists", "need", "out"))

    def grow(inputs, lists, n_cuts=None, **kw):
        chunk_log.calls = []
        t, cpu = time.perf_counter(), time.thread_time()
        out = kernel(inputs, lists, n_cuts, **kw)
        dt, cpu = time.perf_counter() - t, time.thread_time() - cpu
        rows, lo, hi, gl = inputs.rows, inputs.lo, inputs.hi, inputs.group_local
        P = lists.union_counts.shape[0]
        cov = gl >= 0
        Jc = gl[cov]
        nbr_len = np.diff(lists.nbr_ptr) if lists.has_nbr else np.zeros(P, dtype=np.int64)
        sub_len = np.diff(lists.sub_ptr) if lists.has_sub else np.zeros(P, dtype=np.int64)
        row_adds = int(nbr_len[Jc].sum() + sub_len[Jc].sum()) if P else 0
        need = kw.get("need")
        h = hashlib.md5(rows.tobytes()).hexdigest()
        call = {"t": dt, "cpu": cpu, "K": int(lists.n_rules), "cover": h, "m": int(rows.shape[0]),
                "m_cov": int(cov.sum()), "P": int(P), "slots": int(out.valid.sum()), "tested": None if need is None else int(need.sum()),
                "d_active": int(((hi - lo) >= 2).sum()), "row_adds": row_adds,
                "pairs": int(lists.nbr_idx.shape[0]), "subs": int(lists.sub_idx.shape[0]), "chunks": None}
        with lock:
            if keep_args:
                call["chunks"] = len(chunk_log.calls)
                if len(kept) < keep_args or dt > kept[0][0]:
                    kept.append((dt, len(calls), [_kept_chunk(*c, at) for c in chunk_log.calls]))
                    kept.sort(key=lambda k: k[0])
                    del kept[:-keep_args]
            covers.setdefault(h, rows.copy())
            calls.append(call)
        return out

    def logged(chunk, tag):
        """``chunk`` (a chunk kernel), noting its arguments and the ``need`` it was given."""
        def call(*args):
            chunk_log.calls.append((tag, args, args[at[2]].copy()))
            return chunk(*args)
        return call

    def timed(name, func):
        """``func``, adding its time to ``phase[name]``."""
        def wrapper(*a, **k):
            t = time.perf_counter()
            out = func(*a, **k)
            dt = time.perf_counter() - t
            with lock:
                phase[name] += dt
            return out
        return wrapper

    fin = growths._finish_growths
    loc = growths._localize_groups
    serial, parallel = gk._grow_chunk_serial, gk._grow_chunk_parallel

    init = state_mod.RuleSetState.__init__
    states = []

    def state_init(self, data, rules, *args, **kwargs):
        t = time.perf_counter()
        init(self, data, rules, *args, **kwargs)
        dt = time.perf_counter() - t
        phase["RuleSetState"] += dt
        states.append({"t": dt, "K": self.K, "G": int(len(self.group_masks)),
                       "pairs": int(self.nbr_idx.shape[0]) if self.nbr_idx is not None else 0})

    sg = growths.score_growths

    growths._grow_candidates = grow
    growths._finish_growths = timed("finish_growths", fin)
    growths._localize_groups = timed("localize_groups", loc)
    if keep_args:  # the search's explicit serial kernel and _grow_candidates' choice of the two
        growths._grow_chunk_serial = gk._grow_chunk_serial = logged(serial, "serial")
        gk._grow_chunk_parallel = logged(parallel, "parallel")
    state_mod.RuleSetState.__init__ = state_init
    scoring.score_growths = timed("score_growths (all)", sg)
    split, one_call, n_threads = _config.SPLIT_MIN_WORK, _config.ONE_CALL_PER_BASE, _config.SCORING_THREADS
    if threads is not None:
        _config.SCORING_THREADS = threads
    _config.SPLIT_MIN_WORK = float("inf")  # every base through score_growths, timed above
    _config.ONE_CALL_PER_BASE = False  # and through the chunk kernels timed above (same numbers)
    try:
        X, y, Xt, yt = noisy(n_train)
        t = time.perf_counter()
        m = turs.TURSClassifier(max_rules=max_rules, beam_width=beam_width).fit(X, y)
        fit_s = time.perf_counter() - t
    finally:
        growths._grow_candidates = kernel
        growths._finish_growths = fin
        growths._localize_groups = loc
        growths._grow_chunk_serial = gk._grow_chunk_serial = serial
        gk._grow_chunk_parallel = parallel
        state_mod.RuleSetState.__init__ = init
        scoring.score_growths = sg
        _config.SPLIT_MIN_WORK, _config.ONE_CALL_PER_BASE, _config.SCORING_THREADS = split, one_call, n_threads
    if args_out is not None and kept:
        kept.sort(key=lambda k: k[1])  # in the fit's order
        with open(args_out, "wb") as f:
            pickle.dump([c for _, _, chunks in kept for c in chunks], f, protocol=5)
    auc = roc_auc_score(yt, m.predict_proba(Xt)[:, 1])
    phase["grow_candidates"] = sum(c["t"] for c in calls)
    cov = m.apply(X) if hasattr(m, "apply") else None
    reuse = reusable_calls(calls, covers, cov)
    for c in calls:
        del c["cover"]
    return {"n": n_train, "beam_width": beam_width, "threads": _config.SCORING_THREADS if threads is None else threads,
            "reuse": reuse, "fit_s": fit_s, "rules": len(m.rules_),
            "auc": float(auc), "mdl": float(m.mdl_score_), "phases": dict(phase), "calls": calls, "states": states,
            "kept": [{"call": i, "t": dt, "chunks": len(chunks)} for dt, i, chunks in kept],
            "rows_in_2plus": float((np.asarray(cov).sum(axis=1) >= 2).mean()) if cov is not None else None}


def reusable_calls(calls, covers, cover) -> dict:
    """Kernel seconds of the calls whose base cover was grown before: in the same rule search
    (``within``), or in an earlier one (``earlier``), and of those the ones whose cover no rule
    added since touches (``disjoint``: their kernel output would be the same, so a cache could
    return it). ``covers``: md5 -> rows; ``cover``: (n, K) bool, the final rules' covers in the
    order they were added."""
    first_seen = {}
    out = {"kernel_s": 0.0, "within_s": 0.0, "earlier_s": 0.0, "disjoint_s": 0.0}
    for c in calls:
        out["kernel_s"] += c["t"]
        K, h = c["K"], c["cover"]
        seen = first_seen.get(h)
        if seen is not None and seen[0] == K:
            out["within_s"] += c["t"]
        elif seen is not None:
            out["earlier_s"] += c["t"]
            if cover is not None and not cover[covers[h]][:, seen[0]:K].any():
                out["disjoint_s"] += c["t"]
        if seen is None or seen[0] < K:
            first_seen[h] = (K,)
    return out


def summary(res: dict) -> str:
    c = res["calls"]
    t = np.array([x["t"] for x in c])
    cpu = np.array([x.get("cpu", np.nan) for x in c])
    P = np.array([x["P"] for x in c])
    m = np.array([x["m"] for x in c])
    ra = np.array([x["row_adds"] for x in c], dtype=float)
    sl = np.array([x["slots"] for x in c], dtype=float)
    da = np.array([x["d_active"] for x in c], dtype=float)
    tested = [x["tested"] for x in c if x.get("tested") is not None]
    last = res["states"][-1]
    lines = [f"n={res['n']}, beam width {res.get('beam_width', 10)}: fit {res['fit_s']:.1f} s, {res['rules']} rules, G at end {last['G']}, "
             f"pairs {last['pairs']}, AUC {res['auc']:.3f}, rows in >= 2 rules {res['rows_in_2plus']}",
             f"  phases (s; scoring threads {res.get('threads', '?')}, their times summed): "
             + ", ".join(f"{k} {v:.2f}" for k, v in sorted(res["phases"].items())),
             f"  kernel calls {len(c)}, mean {t.mean() * 1e3:.2f} ms, median {np.median(t) * 1e3:.2f} ms, "
             f"max {t.max() * 1e3:.1f} ms (wall), CPU of the calling thread {cpu.sum():.2f} s; local tests first in {len(tested)} (mean slots that pass one "
             f"{np.mean(tested) if tested else 0:.0f})",
             f"  per call mean: m {m.mean():.0f}, P {P.mean():.0f} (max {P.max()}), valid slots {sl.mean():.0f}, "
             f"union-build adds per feature {ra.mean():.3g} (total x d_active {(ra * da).sum():.3g}), "
             f"slot x P {(sl * P).mean():.3g} (total {(sl * P).sum():.3g}), "
             f"cum_g cells d*P*nb*C ~ {(da * P * 21 * 2).mean():.3g}"]
    r = res.get("reuse")
    if r:
        lines.append(f"  kernel s {r['kernel_s']:.2f}: base cover grown before in the same search {r['within_s']:.2f}, "
                     f"in an earlier search {r['earlier_s']:.2f} (untouched by the rules added since: "
                     f"{r['disjoint_s']:.2f})")
    return "\n".join(lines)


def wall_by_iteration(X, y) -> dict:
    """Where a default fit's wall time goes, by kind of beam iteration: the iterations whose
    bases the scoring threads share (``threaded_s``, and ``busy``: the bases' summed time over
    twice that wall time), those scored in this thread because their rows x cut points are
    below ``turs._config.THREADS_MIN_WORK`` (``small_s``; from ``SPLIT_MIN_WORK`` on their kernel calls are
    shared, and those bases' own time is not in ``bases_s``) or they have one base
    (``one_base_s``), the rest of the rule searches (the beams' reduction and bookkeeping) and
    the fit outside the searches. Times only those calls, so the fit runs at its own speed; JIT warm."""
    import resource
    import threading

    import turs
    import turs.search.beam as beam
    import turs.search.scoring as scoring

    turs.warmup()
    acc = defaultdict(float)
    lock = threading.Lock()
    score_bases, base_proposals, search_rule = beam.score_bases, scoring.base_proposals, beam.search_rule

    def proposals(*a, **k):
        t = time.perf_counter()
        out = base_proposals(*a, **k)
        with lock:
            acc["bases_s"] += time.perf_counter() - t
        return out

    def bases(grown, state, *a, **k):
        if len(grown) < 2:
            kind = "one_base"
        else:
            kind = "threaded" if scoring.in_threads(grown, state) else "small"
        before = acc["bases_s"]
        t = time.perf_counter()
        out = score_bases(grown, state, *a, **k)
        acc[kind + "_s"] += time.perf_counter() - t
        acc[kind + "_n"] += 1
        if kind == "threaded":
            acc["threaded_bases_s"] += acc["bases_s"] - before
        return out

    def search(*a, **k):
        t = time.perf_counter()
        out = search_rule(*a, **k)
        acc["searches_s"] += time.perf_counter() - t
        return out

    beam.score_bases, scoring.base_proposals, beam.search_rule = bases, proposals, search
    try:
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t = time.perf_counter()
        m = turs.TURSClassifier().fit(X, y)
        fit_s = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        beam.score_bases, scoring.base_proposals, beam.search_rule = score_bases, base_proposals, search_rule
    cpu_s = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    scored = acc["threaded_s"] + acc["small_s"] + acc["one_base_s"]
    return {"fit_s": fit_s, "cpu_s": cpu_s, "rules": len(m.rules_),
            "threaded_s": acc["threaded_s"], "threaded_n": int(acc["threaded_n"]),
            "busy": acc["threaded_bases_s"] / (2 * acc["threaded_s"]) if acc["threaded_s"] else float("nan"),
            "small_s": acc["small_s"], "small_n": int(acc["small_n"]),
            "one_base_s": acc["one_base_s"], "one_base_n": int(acc["one_base_n"]),
            "rest_of_searches_s": acc["searches_s"] - scored, "outside_searches_s": fit_s - acc["searches_s"]}


def wall_summary(name: str, w: dict) -> str:
    return (f"{name}: fit {w['fit_s']:.2f} s (CPU {w['cpu_s']:.2f} s, {w['rules']} rules); iterations in two "
            f"threads {w['threaded_s']:.2f} s ({w['threaded_n']}, busy {w['busy']:.2f}); in this thread: small bases "
            f"{w['small_s']:.2f} s ({w['small_n']}), one base {w['one_base_s']:.2f} s ({w['one_base_n']}); rest of "
            f"the searches {w['rest_of_searches_s']:.2f} s; outside them {w['outside_searches_s']:.2f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, help="training rows of the noisy generator")
    ap.add_argument("--wall", nargs="*", metavar="DATA", default=None,
                    help="only the fit's wall time by kind of beam iteration (wall_by_iteration), for the "
                         "given sizes and for these registered datasets (fold 0)")
    ap.add_argument("--out", default="build/profile_scale")
    ap.add_argument("--max-rules", type=int, default=None)
    ap.add_argument("--beam-width", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None,
                    help="scoring threads of the fit (default: turs._config.SCORING_THREADS); 1: no call waits "
                         "for another thread's Python, so its wall time is its own")
    ap.add_argument("--keep", type=int, default=0, metavar="N",
                    help="save the chunk-kernel calls of the N slowest growth-kernel calls (a recording for "
                         "tools/replay_kernel.py replay)")
    a = ap.parse_args()
    if a.wall is not None:
        for n in a.sizes:
            X, y, _, _ = noisy(n)
            print(wall_summary(f"noisy {n}", wall_by_iteration(X, y)), flush=True)
        for name in a.wall:
            print(wall_summary(name, wall_by_iteration(*fold0(name))), flush=True)
        return
    if not a.sizes:
        ap.error("give the training sizes to profile (or --wall with sizes or dataset names)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for n in a.sizes:
        stem = out / f"noisy_{n}_w{a.beam_width}"
        res = profile(n, a.max_rules, a.keep, stem.with_suffix(".calls"), a.beam_width, a.threads)
        stem.with_suffix(".json").write_text(json.dumps(res))
        print(summary(res), flush=True)
        if res["kept"]:
            print(f"  the {len(res['kept'])} slowest calls' {sum(k['chunks'] for k in res['kept'])} chunk-kernel "
                  f"calls -> {stem.with_suffix('.calls')}", flush=True)


if __name__ == "__main__":
    main()
