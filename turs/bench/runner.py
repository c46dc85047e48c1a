"""Run benchmark tasks in parallel (joblib processes or a Dask cluster) with resumable results.

Each finished task is written at once to ``OUT/<task id>.json`` by the main process (a temporary
file, then ``os.replace``), so a run that is killed keeps every finished task, never leaves a
half-written record, and a rerun computes only what is missing. Workers only compute: a Dask
cluster needs no file system shared with the main process.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ._sandbox import run_isolated
from .algorithms import get_algorithm
from .profiles import dataset_loader
from .tasks import Task, base_record, dumps, finalize

__all__ = ["RunResult", "read_records", "record_path", "run", "write_record"]

logger = logging.getLogger(__name__)

BACKENDS = ("joblib", "dask")


@dataclass
class RunResult:
    """What :func:`run` did.

    Attributes
    ----------
    records : list of dict
        One record per distinct task, in the order of the tasks given (finished earlier or now).
    ran : list of str
        Ids of the tasks computed by this run.
    skipped : list of str
        Ids of the tasks whose record already existed and was kept.
    """

    records: list = field(default_factory=list)
    ran: list = field(default_factory=list)
    skipped: list = field(default_factory=list)

    @property
    def counts(self) -> dict:
        """Number of records per status."""
        return dict(Counter(r["status"] for r in self.records))


def record_path(out: str | os.PathLike, task: Task | str) -> Path:
    """``out/<task id>.json``."""
    task_id = task.id if isinstance(task, Task) else str(task)
    return Path(out) / f"{task_id}.json"


def write_record(out: str | os.PathLike, record: dict) -> Path:
    """Write ``record`` atomically (temporary file in ``out``, then ``os.replace``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    final = out / f"{record['task_id']}.json"
    tmp = out / f".{record['task_id']}.{os.getpid()}.{threading.get_ident()}.{uuid.uuid4().hex[:6]}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(dumps(record))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()
    return final


def read_record(path: str | os.PathLike) -> dict | None:
    """A record file's content, or ``None`` when it cannot be read as a record."""
    try:
        with open(path, encoding="utf-8") as fh:
            rec = json.load(fh)
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and "task_id" in rec and "status" in rec else None


def read_records(results: str | os.PathLike) -> list[dict]:
    """Every record in a results directory (``*.json`` not starting with a dot), sorted by task id."""
    results = Path(results)
    if not results.is_dir():
        raise FileNotFoundError(f"Results directory {str(results)!r} does not exist; run `python -m turs.bench run --out {results}` first.")
    records = []
    for path in sorted(results.glob("*.json")):
        if path.name.startswith("."):
            continue
        rec = read_record(path)
        if rec is None:
            logger.warning("Skipping %s: not a benchmark record", path)
            continue
        records.append(rec)
    return records


def _remove_stale_temporaries(out: Path, age: float = 3600.0) -> None:
    """Delete temporary record files left by a run killed while writing (older than ``age`` s)."""
    now = time.time()
    for tmp in out.glob(".*.tmp"):
        try:
            if now - tmp.stat().st_mtime > age:
                tmp.unlink()
        except OSError:
            pass


def _payload(task: Task) -> dict:
    algo = get_algorithm(task.algorithm)
    return {
        "task": task,
        "factory": algo.factory,
        "params": {**algo.params, **task.settings},
        "loader": dataset_loader(task.dataset),
        "requires": algo.requires,
        "install_hint": algo.install_hint,
    }


def run(
    tasks: Iterable[Task],
    out: str | os.PathLike,
    *,
    n_jobs: int = 2,
    timeout: float | None = 600.0,
    force: bool = False,
    rerun_failed: bool = False,
    backend: str = "joblib",
    scheduler=None,
    progress: bool = True,
    probe_first: bool = False,
) -> RunResult:
    """Run the tasks that have no record in ``out`` yet and write one record per task.

    Parameters
    ----------
    tasks : iterable of Task
        See :func:`turs.bench.make_tasks`. Duplicates are run once.
    out : path-like
        Results directory (created).
    n_jobs : int, default 2
        Worker processes for ``backend="joblib"`` (1: run in this process's own child).
    timeout : float or None, default 600
        Seconds per task (data loading, fit and metrics; not the start of a worker). A task
        that exceeds it is killed and recorded as ``"timeout"``. ``None`` or ``<= 0``: no limit.
    force : bool, default False
        Recompute every task, replacing existing records.
    rerun_failed : bool, default False
        Recompute the tasks whose record's status is not ``"ok"`` (e.g. after raising the time
        limit); finished ``"ok"`` records are kept.
    backend : {"joblib", "dask"}
        ``"joblib"``: loky worker processes on this machine. ``"dask"``: a Dask cluster;
        ``scheduler`` is its address (``"tcp://host:8786"``), a ``distributed.Client`` or a
        cluster object. Each Dask worker thread runs one task at a time.
    progress : bool, default True
        A tqdm bar over the tasks to run.
    probe_first : bool, default False
        Run the lowest fold of every (dataset, algorithm, settings) first. When that probe
        times out, the group's other folds are not run: each gets a record with status
        ``"skipped"`` that names the probe and the limit (``rerun_failed=True`` with a larger
        ``timeout`` runs them later). This bounds a benchmark's wall time on datasets where an
        algorithm cannot finish.

    Returns
    -------
    RunResult
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}. Got {backend!r}.")
    if backend == "dask" and scheduler is None:
        raise ValueError("backend='dask' needs scheduler: a Dask scheduler address such as "
                         "'tcp://127.0.0.1:8786', a distributed.Client or a cluster object.")
    if not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be an int >= 1 (or -1 for all cores). Got {n_jobs!r}.")
    if timeout is not None and timeout <= 0:
        timeout = None
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(out)

    unique: dict[str, Task] = {}
    for t in tasks:
        unique.setdefault(t.id, t)
    result = RunResult()
    done: dict[str, dict] = {}
    todo: list[Task] = []
    for task_id, task in unique.items():
        rec = None if force else read_record(record_path(out, task_id))
        if rec is not None and not (rerun_failed and rec.get("status") != "ok"):
            done[task_id] = rec
            result.skipped.append(task_id)
        else:
            todo.append(task)
    payloads = [_payload(t) for t in todo]  # unknown algorithms fail here, before any work
    if result.skipped:
        logger.info("%d of %d tasks already have a record in %s; skipped", len(result.skipped), len(unique), out)

    from tqdm.auto import tqdm

    bar = tqdm(total=len(todo), desc="turs.bench", unit="task", disable=not progress or not todo)
    counts: Counter = Counter()

    def emit(rec: dict) -> None:
        write_record(out, rec)
        done[rec["task_id"]] = rec
        result.ran.append(rec["task_id"])
        counts[rec["status"]] += 1
        bar.set_postfix(counts, refresh=False)
        bar.update(1)
        if rec["status"] != "ok":
            logger.warning("%s: %s %s", rec["task_id"], rec["status"], rec.get("message", "").splitlines()[0] if rec.get("message") else "")

    def execute(batch: list[dict]) -> None:
        if not batch:
            pass
        elif backend == "dask":
            _run_dask(batch, timeout, scheduler, emit)
        elif n_jobs == 1:
            for p in batch:
                emit(run_isolated(p, timeout))
        else:
            _run_joblib(batch, timeout, n_jobs, emit)

    try:
        if not probe_first:
            execute(payloads)
        else:
            probes, rest, probe_of = _split_probes(payloads, done)
            execute(probes)
            runnable = []
            for p in rest:
                probe = done.get(probe_of[p["task"].id].id)
                if probe is not None and probe.get("status") == "timeout":
                    rec = base_record(p["task"], p["params"])
                    rec.update(status="skipped", message=(
                        f"not run: fold {probe['fold']} of {p['task'].dataset} with {p['task'].algorithm} "
                        f"exceeded the time limit ({probe.get('message') or 'timeout'}); rerun with "
                        f"--rerun-failed and a larger --timeout to compute it"))
                    emit(finalize(rec))
                else:
                    runnable.append(p)
            execute(runnable)
    finally:
        bar.close()
    result.records = [done[i] for i in unique if i in done]
    return result


def _group(dataset, algorithm, settings, n_folds) -> tuple:
    return (dataset, algorithm, json.dumps(settings or {}, sort_keys=True), n_folds)


def _split_probes(payloads: list[dict], done: dict) -> tuple[list[dict], list[dict], dict]:
    """The payloads of each (dataset, algorithm, settings) group's lowest fold, the rest, and
    the probe task of every group (its lowest fold among the payloads and the records)."""
    lowest: dict[tuple, int] = {}
    for p in payloads:
        t = p["task"]
        g = _group(t.dataset, t.algorithm, t.settings, t.n_folds)
        lowest[g] = min(lowest.get(g, t.fold), t.fold)
    for rec in done.values():
        g = _group(rec["dataset"], rec["algorithm"], rec.get("settings"), rec.get("n_folds"))
        if g in lowest:
            lowest[g] = min(lowest[g], rec["fold"])
    probe_of, probes, rest = {}, [], []
    for p in payloads:
        t = p["task"]
        fold = lowest[_group(t.dataset, t.algorithm, t.settings, t.n_folds)]
        probe_of[t.id] = Task(t.dataset, fold, t.algorithm, t.settings, t.n_folds)
        (probes if t.fold == fold else rest).append(p)
    return probes, rest, probe_of


def _run_joblib(payloads, timeout, n_jobs, emit: Callable[[dict], None]) -> None:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered", pre_dispatch="n_jobs")
    for rec in parallel(delayed(run_isolated)(p, timeout, orphan_check=True) for p in payloads):
        emit(rec)


def _run_dask(payloads, timeout, scheduler, emit: Callable[[dict], None]) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:
        raise ImportError(
            "backend='dask' needs dask.distributed, which is not installed: pip install 'dask[distributed]'"
        ) from exc
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = {}
        for p in payloads:
            key = f"turs-bench-{p['task'].id}-{uuid.uuid4().hex[:8]}"
            futures[client.submit(run_isolated, p, timeout, key=key, pure=False)] = p
        for fut in as_completed(futures):
            p = futures[fut]
            try:
                rec = fut.result()
            except Exception as exc:  # the worker died or the scheduler lost the task
                rec = base_record(p["task"], p["params"])
                rec.update(status="error", message=f"Dask could not run the task: {type(exc).__name__}: {exc}")
                rec = finalize(rec)
            emit(rec)
            fut.release()
    finally:
        if own:
            client.close()

