"""Control of a long fit: Ctrl-C, a time budget and a live progress line.

numba's jitted loops do not see signals. When SIGINT arrives while a kernel runs, Python's
default handler raises ``KeyboardInterrupt`` as soon as the interpreter runs again, which can be
inside numba's dispatcher, and a parallel kernel then ends with ``SystemError: ... returned a
result with an exception set``. During a fit, :func:`fit_control` therefore installs a SIGINT
handler that only records the request; the search calls :func:`checkpoint` between kernel calls
(each kernel call's work is bounded), and there the request becomes a ``KeyboardInterrupt``
raised from plain Python. The estimator restores its previous state when the fit ends with
any exception, so a stopped fit leaves no half-fitted model.

``checkpoint`` also refreshes the progress line at most once per ``refresh`` seconds (rules
found, MDL score, elapsed time) and tells the rule-set loop when the time budget is spent.
Outside a fit (no active control) it costs one attribute lookup.
"""
from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager

__all__ = ["FitControl", "checkpoint", "fit_control", "active"]

_local = threading.local()


class FitControl:
    """State of one running fit: the interrupt request, the deadline and the progress bar.

    Parameters
    ----------
    max_time : float or None
        Seconds after which :meth:`time_is_up` is true (the rule-set loop then stops adding
        rules); ``None``: no limit.
    bar : tqdm or None
        The progress bar; its postfix shows rules, MDL score and elapsed seconds.
    refresh : float
        Least seconds between two refreshes of the bar from :func:`checkpoint`.
    """

    def __init__(self, max_time: float | None = None, bar=None, refresh: float = 1.0):
        self.start = time.monotonic()
        self.max_time = max_time
        self.bar = bar
        self.refresh = refresh
        self.interrupted = False
        self.timed_out = False
        self.n_rules = 0
        self.mdl = None
        self.coverage = None
        self._last_refresh = 0.0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def time_is_up(self) -> bool:
        """Whether the fit has used its ``max_time`` (sticky once true)."""
        if self.max_time is not None and not self.timed_out and self.elapsed >= self.max_time:
            self.timed_out = True
        return self.timed_out

    def rule_set(self, n_rules: int, mdl: float, coverage: int | None = None) -> None:
        """Record the current rule set (after each rule search) and refresh the bar."""
        self.n_rules, self.mdl, self.coverage = int(n_rules), float(mdl), coverage
        self._show(force=True)

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` when Ctrl-C was pressed; refresh the bar when due."""
        if self.interrupted:
            raise KeyboardInterrupt("the TURS fit was interrupted; the estimator is left as it was before fit")
        self._show(force=False)

    def _show(self, force: bool) -> None:
        if self.bar is None:
            return
        now = time.monotonic()
        if not force and now - self._last_refresh < self.refresh:
            return
        self._last_refresh = now
        self.bar.n = self.n_rules
        post = {"rules": self.n_rules}
        if self.mdl is not None:
            post["mdl"] = f"{self.mdl:.1f}"
        if self.coverage is not None:
            post["coverage"] = int(self.coverage)
        post["elapsed"] = f"{self.elapsed:.0f}s"
        self.bar.set_postfix(**post)  # keywords only: tqdm and the explorer's worker bar both take them
        self.bar.refresh()


def active() -> FitControl | None:
    """The control of the fit running in this thread, if any."""
    return getattr(_local, "control", None)


class _InterruptOnly:
    """A fit's control as seen from a helper thread of the fit: :func:`checkpoint` raises on a
    pending Ctrl-C, and leaves the progress bar to the fit's own thread."""

    def __init__(self, control: FitControl):
        self.control = control

    def check(self) -> None:
        if self.control.interrupted:
            raise KeyboardInterrupt("the TURS fit was interrupted; the estimator is left as it was before fit")


def run_for_fit(control: FitControl | None, func, *args, **kwargs):
    """``func(*args, **kwargs)`` in a helper thread of a fit under ``control`` (None: no fit):
    its :func:`checkpoint` calls see the fit's Ctrl-C, so the helper stops at its next kernel
    call too."""
    outer = getattr(_local, "control", None)
    _local.control = _InterruptOnly(control) if control is not None else None
    try:
        return func(*args, **kwargs)
    finally:
        _local.control = outer


def checkpoint() -> None:
    """Called by the search between kernel calls: a pending Ctrl-C becomes ``KeyboardInterrupt``
    here, and the progress bar is refreshed when due. No-op outside a fit."""
    control = getattr(_local, "control", None)
    if control is not None:
        control.check()


@contextmanager
def fit_control(max_time: float | None = None, bar=None, refresh: float = 1.0):
    """Run a fit under a :class:`FitControl` (nested fits reuse the outer one's signal handler).

    In the main thread, SIGINT only sets the control's ``interrupted`` flag while the fit runs
    (a second Ctrl-C while the flag is still pending raises at once, as a way out); the
    previous handler is restored afterwards and a request still pending then raises
    ``KeyboardInterrupt``. In other threads signals are not delivered, and nothing is installed.
    """
    control = FitControl(max_time, bar, refresh)
    outer = getattr(_local, "control", None)
    _local.control = control
    installed = False
    previous = None
    if threading.current_thread() is threading.main_thread() and outer is None:
        def on_sigint(signum, frame):
            if control.interrupted:  # pressed twice: do not wait for the next checkpoint
                raise KeyboardInterrupt
            control.interrupted = True

        try:
            previous = signal.signal(signal.SIGINT, on_sigint)
            installed = True
        except (ValueError, OSError):  # e.g. embedded interpreters without signal support
            installed = False
    try:
        yield control
        control.check()  # a Ctrl-C during the last kernel call
    finally:
        _local.control = outer
        if installed:
            signal.signal(signal.SIGINT, previous)
