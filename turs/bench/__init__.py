"""`turs.bench`: the benchmark of thesis Section 3.6, resumable and parallel.

One task is (dataset, fold, algorithm, settings); each finished task is one JSON record in the
results directory, so a run that is stopped resumes where it was. Tasks run in worker processes
(joblib/loky, or a Dask cluster), each in a child process that is killed when it exceeds the time
limit. The same metric code (:mod:`turs.metrics`) serves every algorithm through the
:class:`~turs.adapter.Adapter` interface.

>>> from turs.bench import make_tasks, run, summarize, compare     # doctest: +SKIP
>>> tasks = make_tasks(["sklearn-iris", "sklearn-wine"], ["turs", "cart"], folds=[0, 1])
>>> result = run(tasks, "results/", n_jobs=2, timeout=600)
>>> summarize("results/").groupby("algorithm")["roc_auc"].mean()

Command line: ``python -m turs.bench run|summarize|compare|list`` (see docs/benchmark.md).
"""
from .adapters import Adapter, CARTAdapter, ExtractedRule, TURSAdapter
from .algorithms import Algorithm, get_algorithm, list_algorithms, register_algorithm, unregister_algorithm
from .profiles import (PROFILES, Profile, get_profile, load_dataset, register_dataset, register_seed_datasets,
                       unregister_dataset)
from .runner import RunResult, read_records, record_path, run, write_record
from .summary import Comparison, compare, summarize, write_table
from .tasks import RECORD_FIELDS, STATUSES, VOLATILE_FIELDS, Task, make_tasks

__all__ = [
    "Adapter",
    "Algorithm",
    "CARTAdapter",
    "Comparison",
    "ExtractedRule",
    "PROFILES",
    "Profile",
    "RECORD_FIELDS",
    "RunResult",
    "STATUSES",
    "TURSAdapter",
    "Task",
    "VOLATILE_FIELDS",
    "compare",
    "get_algorithm",
    "get_profile",
    "list_algorithms",
    "load_dataset",
    "make_tasks",
    "read_records",
    "record_path",
    "register_algorithm",
    "register_dataset",
    "register_seed_datasets",
    "run",
    "summarize",
    "unregister_algorithm",
    "unregister_dataset",
    "write_record",
    "write_table",
]
