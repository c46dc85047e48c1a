"""Fit a ``TURSClassifier`` in a worker process that can be cancelled (the explorer's Re-fit).

Why a process: the search spends its time inside numba kernels, which see neither signals nor
flags until they return, so a thread cannot be stopped (its result could only be dropped while
it keeps a core busy). A process is stopped for real: :meth:`FitJob.cancel` terminates it.
The page never waits: :meth:`FitJob.poll` only reads what the worker has sent.

Processes come from a ``forkserver`` (POSIX; ``spawn`` elsewhere) that imported ``turs`` once,
so a re-fit starts in well under a second and never forks the kernel's own threads. The worker
reports progress (rules accepted so far, the MDL score) through the estimator's progress bar
(``verbose=1`` uses ``tqdm.auto.tqdm``, replaced in the worker by a bar that sends its state).
"""
from __future__ import annotations

import multiprocessing as mp
import time

_CONTEXT = None


def _context():
    global _CONTEXT
    if _CONTEXT is None:
        if "forkserver" in mp.get_all_start_methods():
            _CONTEXT = mp.get_context("forkserver")
            _CONTEXT.set_forkserver_preload(["turs", "turs.explorer._fit"])
        else:  # pragma: no cover - Windows
            _CONTEXT = mp.get_context("spawn")
    return _CONTEXT


class _Bar:
    """Stands in for ``tqdm`` in the worker: sends ``("progress", rules, postfix)``."""

    conn = None

    def __init__(self, *args, **kwargs):
        self.n = 0
        self.postfix = {}

    def set_postfix(self, **kw):
        self.postfix = {k: str(v) for k, v in kw.items()}

    def refresh(self):
        if _Bar.conn is not None:
            _Bar.conn.send(("progress", int(self.n), dict(self.postfix)))

    def close(self):
        pass


def _work(conn, X, y, settings, initial_rules=None):
    """The worker: fit (from ``initial_rules`` when given), send ``("done", model)`` or ``("error", text)``."""
    try:
        import tqdm.auto

        from turs import TURSClassifier

        _Bar.conn = conn
        tqdm.auto.tqdm = _Bar
        params = dict(settings, record_trace=settings.get("record_trace", True), verbose=1)
        model = TURSClassifier(**params).fit(X, y, **({"initial_rules": initial_rules} if initial_rules else {}))
        conn.send(("done", model))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the page
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class FitJob:
    """One fit in a worker process. ``FitJob(X, y, settings).start()``, then :meth:`poll`
    until :attr:`state` is ``"done"`` (:attr:`model`), ``"error"`` (:attr:`error`) or
    ``"cancelled"``; :meth:`cancel` stops it at once. ``initial_rules``: the search starts from
    these rules (``fit(initial_rules=...)``: text or ``turs.Rule`` objects)."""

    def __init__(self, X, y, settings: dict, initial_rules=None):
        self.X, self.y, self.settings = X, y, dict(settings)
        self.initial_rules = list(initial_rules) if initial_rules else None
        self.state = "new"
        self.model = None
        self.error = None
        self.rules = 0
        self.postfix: dict = {}
        self.started = None
        self.seconds = None
        self._proc = None
        self._conn = None

    def start(self) -> "FitJob":
        ctx = _context()
        parent, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_work, args=(child, self.X, self.y, self.settings, self.initial_rules),
                                 daemon=True)
        self.started = time.perf_counter()
        self._proc.start()
        child.close()
        self._conn = parent
        self.state = "running"
        return self

    @property
    def elapsed(self) -> float:
        return 0.0 if self.started is None else (self.seconds or time.perf_counter() - self.started)

    def poll(self) -> str:
        """Read what the worker sent (never blocks); returns :attr:`state`."""
        if self.state != "running":
            return self.state
        try:
            while self._conn.poll():
                msg = self._conn.recv()
                if msg[0] == "progress":
                    self.rules, self.postfix = msg[1], msg[2]
                elif msg[0] == "done":
                    self.model, self.state = msg[1], "done"
                elif msg[0] == "error":
                    self.error, self.state = msg[1], "error"
        except (EOFError, OSError):
            if self.state == "running":
                self.error, self.state = f"the worker process ended (exit code {self._proc.exitcode})", "error"
        if self.state != "running":
            self.seconds = time.perf_counter() - self.started
            self._proc.join(timeout=5)
        elif not self._proc.is_alive() and not self._conn.poll():
            self.error, self.state = f"the worker process ended (exit code {self._proc.exitcode})", "error"
        return self.state

    def wait(self, timeout: float | None = None, interval: float = 0.05) -> str:
        """Poll until the fit ends (or ``timeout`` seconds pass); returns :attr:`state`."""
        end = None if timeout is None else time.perf_counter() + timeout
        while self.poll() == "running" and (end is None or time.perf_counter() < end):
            time.sleep(interval)
        return self.state

    def cancel(self) -> None:
        """Stop the worker now (SIGTERM, then SIGKILL after 2 s); the fit's result is lost."""
        if self._proc is not None and self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(timeout=2)
            if self._proc.is_alive():  # pragma: no cover - SIGTERM ends a numba kernel too
                self._proc.kill()
                self._proc.join(timeout=2)
        if self.state == "running":
            self.state = "cancelled"
            self.seconds = time.perf_counter() - self.started

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()
