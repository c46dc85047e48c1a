"""The rows of a fit on Dask: each partition binned once on its worker and kept there as a
:class:`~turs.search.row_store.LocalRows` (bins, class codes, overlap group ids), the sample
drawn from the partitions' smallest hash keys, and :class:`DaskRows`, the
:class:`~turs.search.row_store.RowStore` over them: each question of the sampled search is
answered by every partition's own ``LocalRows`` and the integer answers summed (min/max for the
extremes) on the client, exact in any order.
"""
from __future__ import annotations

import copy
import logging
import threading

import numpy as np

from ..rules import PRINT_DIGITS, _exact_bound, _fmt, cut_of_bound
from ..search.row_store import CandidateCounts, RowStore
from .statistics import _light_frame

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------ bins, digits
class _Part:
    """One partition as a worker keeps it: its rows as a :class:`LocalRows` (the (d, m) uint8 bins,
    class codes, overlap group ids, first global index), ``version`` the number of rules
    added to its groups, and ``below``: per numeric column, per threshold asked for, how many of
    its values lie below it (for the print digits of the cut points; small)."""

    def __init__(self, rows, first, below):
        self.rows, self.first, self.below, self.version = rows, int(first), below, 0
        self.lock = threading.Lock()

    @property
    def m(self) -> int:
        return self.rows.n

    def __getstate__(self):
        # a copy (Dask moving or spilling the partition) never sees groups half moved by a
        # rule, and its version is that of its groups; the covers' cache stays behind
        with self.lock:
            rows = copy.copy(self.rows)
            rows.group_ids = self.rows.group_ids.copy()
            rows._cache, rows._cache_bytes = {}, 0
            return {"rows": rows, "first": self.first, "below": self.below, "version": self.version}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()


def _bin_partition(x_part, y_part, first, encoder, classes, thresholds):
    from ..search.row_store import LocalRows

    frame = _light_frame(x_part)
    m = len(frame)
    d = len(encoder.columns_)
    bins = encoder.bins_of(frame) if m else np.zeros((d, 0), np.uint8)
    y = np.searchsorted(classes, np.asarray(y_part).ravel()).astype(np.int64)
    below = {}
    for j, t in thresholds.items():
        xs = np.sort(encoder.column(frame, j)) if m else np.empty(0)
        below[j] = np.searchsorted(xs, t, side="left")
    del frame, x_part  # the floats go; the bins stay
    rows = LocalRows(bins, y, encoder.n_bins_, encoder.binary_, len(classes), first_row=int(first))
    return _Part(rows, first, below)


def _digits_queries(encoder):
    """Per numeric column, the thresholds whose counts below decide the print digits of its cuts
    (:func:`turs.rules.print_digits`: the cut and each bound printed with 6 to 17 digits, read back)."""
    out = {}
    for j, col in enumerate(encoder.columns_):
        if col.kind != "numeric" or not col.cuts:
            continue
        ts = []
        for c in sorted(set(float(v) for v in col.cuts)):
            op, value = _exact_bound(float(c), ">=", ">")
            ts.append(c)
            ts.extend(cut_of_bound(op, float(_fmt(value, digits))) for digits in range(PRINT_DIGITS, 18))
        out[j] = np.asarray(ts, dtype=float)
    return out


def _digits_table(encoder, queries, belows) -> dict:
    """``print_digits_table(encoder, all rows)`` from the partitions' counts below the thresholds."""
    out = {}
    per = 18 - PRINT_DIGITS + 1
    for j, ts in queries.items():
        total = sum(b[j] for b in belows).reshape(-1, per)  # only the equality of counts matters:
        # a partition's count differs iff a value lies between the two thresholds, so the sums
        # are equal iff every partition's are
        differs = np.zeros((total.shape[0], per - 1), dtype=bool)
        for b in belows:
            bb = b[j].reshape(-1, per)
            differs |= bb[:, 1:] != bb[:, :1]
        cuts = ts.reshape(-1, per)[:, 0]
        for c, row in zip(cuts, differs):
            ok = np.flatnonzero(~row)
            digits = PRINT_DIGITS + int(ok[0]) if len(ok) else 17
            if digits != PRINT_DIGITS:
                out[(j, float(c))] = digits
    return out


def _part_below(part: _Part):
    return part.below


# ------------------------------------------------------------------------------------ sample
def _smallest_keys(part: _Part, quota, seed: int):
    from ..search.sample_keys import partition_smallest

    return partition_smallest(part.rows.y, part.first + np.arange(part.m, dtype=np.int64), quota, seed)


def _take(part: _Part, rows: np.ndarray):
    """The bins and class codes of the sorted global ``rows`` that lie in ``part``."""
    a, b = np.searchsorted(rows, [part.first, part.first + part.m])
    local = rows[a:b] - part.first
    return part.rows.bins[:, local], part.rows.y[local]


def _each(client, func, parts, *args, where=None) -> list:
    """``func(part, *args)`` for every partition's future; the answers in order. ``where``: per
    partition the worker to run it on when it can (where its groups were last moved: a copy
    of a partition on another worker is behind, and would replay the rules). One task per
    partition, positional arguments: ``client.map`` with keyword arrays named the same in two
    calls trips the scheduler."""
    return client.gather([client.submit(func, part, *args, pure=False, **_near(None if where is None else where[i]))
                          for i, part in enumerate(parts)])


def _near(worker) -> dict:
    """``client.submit`` keywords: run on ``worker`` if it can, else anywhere."""
    return {} if worker is None else {"workers": [worker], "allow_other_workers": True}


def gather_sample(client, parts, class_counts, size: int, seed: int = 0, where=None):
    """``(rows, bins, y)``: the first ``size`` rows of the hash order (``sample_keys``), rows sorted."""
    from ..search.sample_keys import class_quota, merge_prefix

    size = min(int(size), int(np.sum(class_counts)))
    quota = class_quota(class_counts, size)
    smallest = _each(client, _smallest_keys, parts, quota, seed, where=where)
    rows = np.sort(merge_prefix(smallest, class_counts, size))
    taken = _each(client, _take, parts, rows, where=where)
    bins = np.ascontiguousarray(np.concatenate([t[0] for t in taken], axis=1)).astype(np.uint8, copy=False)
    y = np.concatenate([t[1] for t in taken]).astype(np.int64)
    return rows, bins, y


# ---------------------------------------------------------------------------------- the store
class _Stale:
    """A partition's answer when its groups are behind the client's (a worker lost it and Dask
    made it again from the input, or a copy of it was made on another worker)."""

    def __init__(self, version: int):
        self.version = version


def _summary(part: _Part):
    r = part.rows
    return r.n, r.class_counts, r.bin_min, r.bin_max


def _ask(part: _Part, version: int, method: str, args: tuple, replay):
    """``part.rows.<method>(*args)`` on a partition whose groups are at ``version`` rules; a
    partition behind replays ``replay = (from version, [add_rule arguments, ...])`` first, or
    answers :class:`_Stale` when it has none that fits."""
    with part.lock:
        if part.version != version:
            if replay is None or replay[0] != part.version:
                return _Stale(part.version)
            for step in replay[1]:
                part.rows.add_rule(*step)
                part.version += 1
        if method == "add_rule":
            part.rows.add_rule(*args)
            part.version += 1
            return None
        return getattr(part.rows, method)(*args)


class DaskRows(RowStore):
    """A :class:`~turs.search.row_store.RowStore` over partitions held by Dask workers (each a
    ``LocalRows``): a call runs the same method on every partition and the client sums the
    counts and takes the min/max of the extremes, exact in any order. The groups' history
    (the rules added) stays on the client, so a partition made again after a worker was lost
    replays it before answering."""

    def __init__(self, client, parts, n_bins, binary, n_classes: int):
        self.client, self.parts = client, list(parts)
        self.n_bins = np.asarray(n_bins, dtype=np.int64)
        self.binary = np.asarray(binary, dtype=bool)
        self.d, self.n_classes = len(self.n_bins), int(n_classes)
        summaries = _each(client, _summary, self.parts)
        who = client.who_has(self.parts)
        self.where = [sorted(who.get(f.key, ()))[0] if who.get(f.key) else None for f in self.parts]
        sizes = np.array([s[0] for s in summaries], dtype=np.int64)
        self.n = int(sizes.sum())
        self.class_counts = np.sum([s[1] for s in summaries], axis=0).astype(np.int64)
        live = [s for s in summaries if s[0] > 0]
        self.bin_min = (np.min([s[2] for s in live], axis=0) if live else np.zeros(self.d)).astype(np.int64)
        self.bin_max = (np.max([s[3] for s in live], axis=0) if live else np.zeros(self.d)).astype(np.int64)
        self.version, self.history = 0, []
        self.replays = 0  # partitions that replayed the rules after Dask made them again

    def _call(self, method: str, *args) -> list:
        client = self.client
        out = _each(client, _ask, self.parts, self.version, method, args, None, where=self.where)
        for _ in range(3):
            if method == "add_rule":  # a partition one rule ahead added it before its answer was lost
                out = [None if isinstance(r, _Stale) and r.version == self.version + 1 else r for r in out]
            stale = [i for i, r in enumerate(out) if isinstance(r, _Stale)]
            if not stale:
                return out
            self.replays += len(stale)
            log.info("%d partitions made again by Dask replay the %d rules added", len(stale), self.version)
            again = [client.submit(_ask, self.parts[i], self.version, method, args,
                                   (out[i].version, self.history[out[i].version:]), pure=False,
                                   **_near(self.where[i])) for i in stale]
            for i, r in zip(stale, client.gather(again)):
                out[i] = r
        raise RuntimeError("Partitions of the Dask row store stayed behind the fit's rule set after replays; "
                           "the workers are losing data faster than the fit can replay it.")

    def sample(self, size: int, seed: int = 0):
        return gather_sample(self.client, self.parts, self.class_counts, size, seed, where=self.where)

    def candidate_counts(self, candidates, n_groups: int) -> list:
        candidates = [tuple(tuple(int(v) for v in lit) for lit in c) for c in candidates]
        answers = self._call("candidate_counts", candidates, int(n_groups))
        out = []
        C = self.n_classes
        for q, lits in enumerate(candidates):
            parts = [a[q] for a in answers]
            coverage = int(sum(p.coverage for p in parts))
            ext = np.stack([p.extremes for p in parts]) if parts else np.full((0, len(lits), 2), -1)
            reached = ext[:, :, 1] >= 0
            lo = np.where(reached, ext[:, :, 0], np.iinfo(np.int64).max).min(axis=0) if parts else None
            hi = np.where(reached, ext[:, :, 1], -1).max(axis=0) if parts else None
            extremes = np.full((len(lits), 2), -1, dtype=np.int64)
            any_row = reached.any(axis=0) if parts else np.zeros(len(lits), bool)
            extremes[any_row, 0] = lo[any_row]
            extremes[any_row, 1] = hi[any_row]
            present_all = np.concatenate([p.present for p in parts]) if parts else np.zeros(0, np.int64)
            present, inv = np.unique(present_all, return_inverse=True)
            in_group = np.zeros((len(present), C), dtype=np.int64)
            if len(present_all):
                np.add.at(in_group, inv, np.concatenate([p.in_group for p in parts]))
            outside = np.sum([p.outside for p in parts], axis=0).astype(np.int64) if parts else np.zeros(C, np.int64)
            out.append(CandidateCounts(coverage, extremes, present.astype(np.int64), in_group, outside))
        return out

    def add_rule(self, literals, new_group, renumber) -> None:
        step = (tuple(tuple(int(v) for v in lit) for lit in literals), np.asarray(new_group, dtype=np.int32),
                None if renumber is None else np.asarray(renumber, dtype=np.int32))
        self._call("add_rule", *step)
        self.history.append(step)
        self.version += 1

    def close(self) -> None:
        """Drop the partitions (the workers free them; no round trip, so that it also works
        while a Ctrl-C unwinds the fit)."""
        parts, self.parts = self.parts, []
        if parts:
            self.client.cancel(parts)
