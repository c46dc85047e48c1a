"""Run tasks in a child process that can be killed: the per-task time limit really stops the work.

Every worker (a joblib/loky process, a Dask worker thread, or the main process with
``n_jobs=1``) keeps one long-lived child Python process (``python -m turs.bench._sandbox``)
and sends it one task at a time over a pipe. The child imports the libraries once and reuses
them, so a task costs no interpreter start-up. When a task exceeds its time limit, the child's
whole process group is killed (``SIGKILL``: numba kernels and external programs such as a Java
or R learner stop too), the task is recorded as ``"timeout"``, and the next task starts a new
child. A child that dies (segfault, out of memory) makes its task an ``"error"`` with the exit
code and the end of its output.

The child gets this process's ``sys.path`` (through ``PYTHONPATH``), so an adapter or dataset
loader defined in any module importable here is importable there; payloads are serialised with
cloudpickle, so classes defined in ``__main__`` travel by value. A child exits when its pipe
closes or its parent process dies. POSIX only (pipes passed as file descriptors, process groups).
"""
from __future__ import annotations

import atexit
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from multiprocessing.connection import Connection

__all__ = ["run_isolated", "shutdown"]

STARTUP_TIMEOUT = 300.0  # seconds for a new child to import its libraries
_LOG_TAIL = 2000  # characters of a dead child's output quoted in the error message

_LOCAL = threading.local()
_ALL: list["_Sandbox"] = []
_ALL_LOCK = threading.Lock()


def _dumps(obj) -> bytes:
    try:
        from joblib.externals import cloudpickle
    except ImportError:  # pragma: no cover - joblib comes with scikit-learn
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


class _Sandbox:
    """One child process and the two pipes to it."""

    def __init__(self):
        self.proc = None
        self.to_child = None
        self.from_child = None
        self.log = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, startup_timeout: float = STARTUP_TIMEOUT) -> None:
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        env = dict(os.environ)
        paths = [p if p else os.getcwd() for p in sys.path]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        self.log = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "turs.bench._child", str(task_r), str(result_w)],
                pass_fds=(task_r, result_w), stdin=subprocess.DEVNULL, stdout=self.log,
                stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )
        finally:
            os.close(task_r)
            os.close(result_w)
        self.to_child = Connection(task_w, readable=False)
        self.from_child = Connection(result_r, writable=False)
        with _ALL_LOCK:
            _ALL.append(self)
        if not self.from_child.poll(startup_timeout):
            self.kill()
            raise RuntimeError(f"The task process did not start within {startup_timeout:g} s.")
        try:
            self.from_child.recv_bytes()
        except (EOFError, OSError):
            code = self.kill()
            raise RuntimeError(
                f"The task process exited at start-up (exit code {code}). Its output:\n{self.log_tail()}"
            ) from None

    def log_tail(self) -> str:
        if self.log is None:
            return ""
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - _LOG_TAIL))
            return self.log.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def run(self, data: bytes, timeout: float | None, orphan_check: bool = False):
        """Send one payload; ``("ok", record)``, ``("timeout", None)``, ``("died", (code, tail))``
        or, with ``orphan_check``, ``("orphaned", None)`` when this process's parent exits
        during the task (a joblib worker whose main process was killed: stop the work now)."""
        if not self.alive():
            self.close()
            self.start()
        parent = os.getppid()
        try:
            self.to_child.send_bytes(data)
        except OSError:
            code = self.kill()
            return "died", (code, self.log_tail())
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            step = left if not orphan_check else (1.0 if left is None else min(1.0, left))
            if self.from_child.poll(step):
                break
            if end is not None and time.monotonic() >= end:
                self.kill()
                return "timeout", None
            if orphan_check and os.getppid() != parent:
                self.kill()
                return "orphaned", None
        try:
            return "ok", pickle.loads(self.from_child.recv_bytes())
        except (EOFError, OSError):
            code = self.kill()
            return "died", (code, self.log_tail())

    def kill(self):
        """Kill the child's process group; returns its exit code."""
        code = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self.proc.kill()
            code = self.proc.wait()
        self._close_pipes()
        return code

    def close(self, wait: float = 5.0) -> None:
        """Ask the child to exit (close its pipe); kill it if it does not within ``wait`` s."""
        self._close_pipes()
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.wait(wait)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None
        with _ALL_LOCK:
            if self in _ALL:
                _ALL.remove(self)

    def _close_pipes(self):
        for conn in (self.to_child, self.from_child):
            if conn is not None:
                try:
                    conn.close()
                except OSError:
                    pass
        self.to_child = self.from_child = None


def _sandbox() -> _Sandbox:
    sb = getattr(_LOCAL, "sandbox", None)
    if sb is None:
        sb = _LOCAL.sandbox = _Sandbox()
    return sb


def shutdown() -> None:
    """End every child process this process started (also run at exit)."""
    with _ALL_LOCK:
        boxes = list(_ALL)
    for sb in boxes:
        sb.close(wait=2.0)
    if hasattr(_LOCAL, "sandbox"):
        del _LOCAL.sandbox


atexit.register(shutdown)


def run_isolated(payload: dict, timeout: float | None = None, startup_timeout: float = STARTUP_TIMEOUT,
                 orphan_check: bool = False) -> dict:
    """Run one task (``payload``: the keyword arguments of :func:`turs.bench.tasks.execute`) in
    this worker's child process, with at most ``timeout`` seconds (``None``: no limit).

    ``orphan_check`` (for joblib workers): when this process's parent, the main process, exits
    during the task, kill the task and end this worker process. Returns the task's record; never
    raises.
    """
    from .tasks import base_record, finalize, _now

    task = payload["task"]
    t0 = time.perf_counter()
    status, value = "died", (None, "")
    try:
        data = _dumps(payload)
        sb = _sandbox()
        if not sb.alive():
            sb.close()
            sb.start(startup_timeout)
        status, value = sb.run(data, timeout, orphan_check)
    except Exception as exc:
        rec = base_record(task, payload.get("params"))
        rec.update(status="error", message=f"Could not run the task: {type(exc).__name__}: {exc}",
                   traceback=traceback.format_exc())
        rec["finished_at"] = _now()
        return finalize(rec)
    if status == "ok" and isinstance(value, dict):
        return value
    rec = base_record(task, payload.get("params"))
    if status == "ok":  # the child could not read the payload
        _, message, trace = value
        rec.update(status="error", traceback=trace, message=(
            f"The task process could not read the task ({message}); is the module that defines "
            "the algorithm or dataset importable there?"))
    if status == "orphaned":  # nobody is left to receive the record: end this worker too
        os._exit(1)
    if status == "timeout":
        rec.update(status="timeout", message=(
            f"The task exceeded the time limit of {timeout:g} s; its process was killed. "
            "Rerun with a larger --timeout (and --rerun-failed) to finish it."))
    else:
        code, tail = value
        rec.update(status="error", message=(
            f"The task's process died (exit code {code}; a negative code is the signal). "
            f"Its last output:\n{tail}"))
    rec["wall_seconds"] = time.perf_counter() - t0
    rec["finished_at"] = _now()
    return finalize(rec)


# ---------------------------------------------------------------------------------- the child
def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)


def _child_main(task_fd: int, result_fd: int) -> None:
    tasks_in = Connection(task_fd, writable=False)
    results_out = Connection(result_fd, readable=False)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    from . import tasks  # noqa: F401 - import the libraries before saying "ready"
    import sklearn.metrics  # noqa: F401
    import sklearn.model_selection  # noqa: F401

    results_out.send_bytes(pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            data = tasks_in.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            payload = pickle.loads(data)
        except BaseException as exc:  # e.g. the payload names a module this process cannot import
            record = ("unreadable", f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            record = tasks.execute(**payload)
        results_out.send_bytes(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
