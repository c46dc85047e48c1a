"""The growth kernel's output of a base rule, kept for the later rule searches of a fit.

Every rule search starts again from the empty rule, and many of its bases (literal sets) were
bases of the search before. The growth kernel's output for a base (the counts of each
growth, and ``delta``, the change of the data code on the rows ``M`` covers) depends on ``M``
only through the overlap groups of the base's rows and their unions. A rule added since
covers no row of the base leaves both unchanged: the base's rows keep their groups (each
pattern gets a 0 for the new rule), each group keeps its rules and so its union, and the
groups keep their order (``turs.mdl.overlap_groups`` sorts the patterns as bytes, and the new
rule's bit comes after the others), so ``delta`` is summed in the same order, to the bit. The
local tests that choose which growths the kernel counts at once read the base's counts on
``S`` and on ``S \\ M``, also unchanged. Everything after the kernel (the scores with ``M``'s
totals) is computed again.

Measured before building (cProfile-free timing of ``score_growths``): such bases took 18% of
the scoring time on magic and 17% on avila, 6% on the noisy 20k set, where new rules overlap
most rows.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

CACHE_BYTES = 64 * 2**20
"""Memory the kept kernel outputs may hold; beyond it the cache starts again empty."""


class KernelReuse:
    """Kernel outputs per ``(literals, search, deferred)`` of one fit's training data, each with
    the number of rules ``M`` had when it was counted. Valid for a later ``M`` that extends that
    one when none of the rules added since covers a row of the base. Safe to call from the
    scoring threads."""

    def __init__(self, cache_bytes: int | None = None):
        self.cache_bytes = CACHE_BYTES if cache_bytes is None else cache_bytes
        self._entries: dict = {}  # key -> [rules of M when counted, outputs, bytes]
        self._rules: list = []  # the rules of M, in the order they were added
        self._state = None  # weak reference to the last state checked against _rules
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _sync(self, state) -> None:
        """Follow ``state``'s rules: an extension of the known ones keeps the entries (each is
        checked against the rules added after it), anything else empties the cache."""
        if self._state is not None and self._state() is state:
            return
        with self._lock:
            rules = state.rules
            known = self._rules
            if len(rules) < len(known) or any(rules[i] is not known[i] for i in range(len(known))):
                self._entries.clear()
                self._bytes = 0
            self._rules = list(rules)
            self._state = weakref.ref(state)

    def get(self, key, rows: np.ndarray, state):
        """The outputs stored for ``key`` if still valid for ``state``, else None."""
        self._sync(state)
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        k0, outputs, _ = entry
        K = len(state.rules)
        if k0 > K or (k0 < K and state.covers[rows, k0:K].any()):
            self.misses += 1
            return None
        entry[0] = K  # checked up to here: the next check starts from K
        self.hits += 1
        return outputs

    def put(self, key, state, outputs: tuple) -> None:
        """Keep ``outputs`` (arrays, not written afterwards) for ``key``, counted with ``state``."""
        nbytes = sum(a.nbytes for a in outputs if isinstance(a, np.ndarray))
        with self._lock:
            if self._bytes + nbytes > self.cache_bytes:
                self._entries.clear()
                self._bytes = 0
            old = self._entries.get(key)
            if old is not None:
                self._bytes -= old[2]
            self._entries[key] = [len(state.rules), outputs, nbytes]
            self._bytes += nbytes
