"""turs.bench runner: the CLI end to end, resume and --force, time limit, errors, Dask = joblib.

One small experiment (2 bundled datasets x 2 folds x [turs, cart]) runs once through the real
command line (a subprocess, 2 joblib workers); the other tests reuse its records.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import turs.bench as tb
from turs.bench import Adapter, Task, make_tasks, register_algorithm, run, unregister_algorithm
from turs.bench.__main__ import main
from turs.bench.tasks import VOLATILE_FIELDS

DATASETS = ["sklearn-iris", "sklearn-wine"]
ALGORITHMS = ["turs", "cart"]
FOLDS = [0, 1]
N_TASKS = len(DATASETS) * len(ALGORITHMS) * len(FOLDS)


@pytest.fixture(scope="module")
def cli_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "results"
    cmd = [sys.executable, "-m", "turs.bench", "run", "--algorithms", ",".join(ALGORITHMS),
           "--datasets", ",".join(DATASETS), "--folds", ",".join(map(str, FOLDS)), "--out", str(out),
           "--n-jobs", "2", "--timeout", "300", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p or os.getcwd() for p in sys.path))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert f"ran {N_TASKS} task(s), skipped 0" in proc.stdout
    return out


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(out.glob("*.json"))}


@pytest.mark.subprocess
def test_cli_run_writes_one_ok_record_per_task(cli_results):
    recs = _records(cli_results)
    assert len(recs) == N_TASKS
    assert not list(cli_results.glob(".*"))  # no temporary file left
    for rec in recs.values():
        assert rec["status"] == "ok", rec["message"]
        assert 0.5 < rec["roc_auc"] <= 1
        assert rec["n_train"] + rec["n_test"] in (150, 178)
        assert rec["n_literals"] >= 1 and rec["n_rules"] >= 1 and 0 <= rec["g"] <= 1
    turs = recs["sklearn-iris__turs__fold0"]
    assert turs["roc_auc_rp"] is not None and turs["overlap_pct"] is not None
    assert turs["extra"]["mdl_score"] == pytest.approx(turs["extra"]["mdl_data_bits"] + turs["extra"]["mdl_regret_bits"]
                                                      + turs["extra"]["mdl_model_bits"])
    assert turs["n_literals"] == sum(r["n_literals"] for r in turs["rules"])
    cart = recs["sklearn-iris__cart__fold0"]
    assert cart["roc_auc_rp"] is None and cart["overlap_pct"] is None


@pytest.mark.subprocess
def test_same_split_as_the_reference_code(cli_results):
    from sklearn.model_selection import StratifiedKFold

    from turs.datasets import load_bundled

    X, y = load_bundled("sklearn-wine")
    train, test = list(StratifiedKFold(5, shuffle=True, random_state=2).split(X, y))[1]
    from turs.bench.adapters import CARTAdapter

    cart = CARTAdapter().fit(X.iloc[train], y.to_numpy()[train])
    auc = tb.metrics.roc_auc(y.to_numpy()[test], cart.predict_proba(X.iloc[test]), cart.classes_)
    assert _records(cli_results)["sklearn-wine__cart__fold1"]["roc_auc"] == pytest.approx(auc)


@pytest.mark.subprocess
def test_summarize_writes_a_tidy_table(cli_results, tmp_path):
    assert main(["summarize", "--results", str(cli_results), "--out", str(tmp_path / "s.csv")]) == 0
    frame = pd.read_csv(tmp_path / "s.csv")
    assert len(frame) == N_TASKS
    assert {"dataset", "fold", "algorithm", "status", "roc_auc", "roc_auc_rp", "g", "n_literals",
            "fit_seconds", "mdl_score"} <= set(frame.columns)
    if (tmp_path / "s.parquet").exists():
        assert len(pd.read_parquet(tmp_path / "s.parquet")) == N_TASKS


@pytest.mark.subprocess
def test_resume_recomputes_only_missing_records_and_force_all(cli_results, tmp_path, capsys):
    out = tmp_path / "results"
    shutil.copytree(cli_results, out)
    args = ["run", "--algorithms", ",".join(ALGORITHMS), "--datasets", ",".join(DATASETS),
            "--folds", "0,1", "--out", str(out), "--n-jobs", "1", "--no-progress"]
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")}

    assert main(args) == 0
    assert f"ran 0 task(s), skipped {N_TASKS}" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")} == mtimes

    victim = out / "sklearn-wine__turs__fold1.json"
    before = json.loads(victim.read_text())
    victim.unlink()
    assert main(args) == 0
    assert f"ran 1 task(s), skipped {N_TASKS - 1}" in capsys.readouterr().out
    after = {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")}
    assert [n for n in after if after[n] != mtimes[n]] == [victim.name]
    again = json.loads(victim.read_text())
    assert {k: v for k, v in again.items() if k not in VOLATILE_FIELDS} == {
        k: v for k, v in before.items() if k not in VOLATILE_FIELDS}

    assert main(args + ["--force"]) == 0
    assert f"ran {N_TASKS} task(s), skipped 0" in capsys.readouterr().out
    assert all(p.stat().st_mtime_ns != mtimes[p.name] for p in out.glob("*.json"))


# ------------------------------------------------------------------ timeout, error, not installed
class SlowAdapter(Adapter):
    """Fits forever, writing a heartbeat file every 0.05 s (to see that the work really stops)."""

    name = "slow"

    def _fit(self, X, y):
        path = Path(self.params["heartbeat"])
        while True:
            path.write_text(str(time.time()))
            time.sleep(0.05)


class FailingAdapter(Adapter):
    name = "failing"

    def _fit(self, X, y):
        raise ValueError("boom: the failing adapter cannot fit")


class UninstalledAdapter(Adapter):
    """Like the competitor adapters: checks its library when constructed."""

    name = "uninstalled"

    def __init__(self, **params):
        raise ImportError("UninstalledAdapter needs the package 'foo-learn': pip install foo-learn")


@pytest.fixture
def test_algorithms():
    register_algorithm("test-slow", SlowAdapter, replace=True)
    register_algorithm("test-failing", FailingAdapter, replace=True)
    register_algorithm("test-missing", FailingAdapter, requires=("surely_not_an_installed_module",),
                       install_hint="pip install surely-not", replace=True)
    register_algorithm("test-uninstalled", UninstalledAdapter, replace=True)
    yield
    for name in ("test-slow", "test-failing", "test-missing", "test-uninstalled"):
        unregister_algorithm(name)


@pytest.mark.subprocess
def test_timeout_kills_the_task_and_records_it(test_algorithms, tmp_path):
    beat = tmp_path / "heartbeat"
    task = Task("sklearn-iris", 0, "test-slow", {"heartbeat": str(beat)})
    result = run([task], tmp_path / "out", n_jobs=1, timeout=1.0, progress=False)
    rec = result.records[0]
    assert rec["status"] == "timeout" and "time limit of 1 s" in rec["message"]
    assert json.loads((tmp_path / "out" / f"{task.id}.json").read_text())["status"] == "timeout"
    last = beat.read_text()
    time.sleep(0.5)
    assert beat.read_text() == last  # the work stopped


@pytest.mark.subprocess
def test_probe_first_skips_the_folds_of_a_timed_out_dataset(test_algorithms, tmp_path):
    beat = tmp_path / "heartbeat"
    slow = [Task("sklearn-iris", f, "test-slow", {"heartbeat": str(beat)}) for f in (0, 1, 2)]
    fast = [Task("sklearn-iris", f, "cart") for f in (0, 1)]
    # a limit the CART folds meet with room to spare on a loaded machine; the slow folds never end
    result = run(slow + fast, tmp_path, n_jobs=1, timeout=10.0, probe_first=True, progress=False)
    by_id = {r["task_id"]: r for r in result.records}
    assert by_id[slow[0].id]["status"] == "timeout"
    for t in slow[1:]:
        rec = by_id[t.id]
        assert rec["status"] == "skipped"
        assert "fold 0 of sklearn-iris with test-slow exceeded the time limit" in rec["message"]
        assert json.loads((tmp_path / f"{t.id}.json").read_text())["status"] == "skipped"
    assert [by_id[t.id]["status"] for t in fast] == ["ok", "ok"]  # other groups run as usual
    # a later run keeps the skipped records, --rerun-failed retries them (and the probe)
    again = run(slow, tmp_path, n_jobs=1, timeout=1.0, probe_first=True, progress=False)
    assert again.ran == [] and sorted(again.skipped) == sorted(t.id for t in slow)


@pytest.mark.subprocess
def test_error_is_recorded_with_message_and_traceback(test_algorithms, tmp_path):
    tasks = [Task("sklearn-iris", 0, "test-failing"), Task("sklearn-iris", 0, "test-missing"),
             Task("sklearn-iris", 0, "test-uninstalled"), Task("sklearn-iris", 1, "cart")]
    result = run(tasks, tmp_path, n_jobs=1, timeout=120, progress=False)
    failing, missing, uninstalled, cart = result.records
    assert uninstalled["status"] == "not_installed" and "pip install foo-learn" in uninstalled["message"]
    assert failing["status"] == "error"
    assert failing["message"] == "ValueError: boom: the failing adapter cannot fit"
    assert "_fit" in failing["traceback"] and "boom" in failing["traceback"]
    assert missing["status"] == "not_installed"
    assert "surely_not_an_installed_module" in missing["message"] and "pip install surely-not" in missing["message"]
    assert cart["status"] == "ok"  # one failure does not stop the others
    # --rerun-failed recomputes the two failures only
    again = run(tasks, tmp_path, n_jobs=1, timeout=120, rerun_failed=True, progress=False)
    assert sorted(again.ran) == sorted(t.id for t in tasks[:3])


def test_unknown_names_fail_before_running(tmp_path, capsys):
    with pytest.raises(ValueError, match="Unknown algorithm 'nope'"):
        make_tasks(["sklearn-iris"], ["nope"])
    with pytest.raises(ValueError, match="Did you mean 'iris'"):
        make_tasks(["irs"], ["turs"])
    assert main(["run", "--algorithms", "nope", "--out", str(tmp_path)]) == 2
    assert "Unknown algorithm" in capsys.readouterr().err


def test_compare_against_the_thesis_tables(tmp_path):
    # fake records for two thesis datasets: iris matches Table 3.3 (0.981), wine is 0.05 off
    for ds, auc, lit in (("iris", 0.981, 10.0), ("wine", 0.902, 5.0)):
        for fold in range(5):
            rec = tb.tasks.base_record(Task(ds, fold, "turs"))
            rec.update(status="ok", roc_auc=auc, roc_auc_rp=auc - 0.002, overlap_pct=5.0, n_literals=lit,
                       n_rules=3, g=0.05, fit_seconds=1.0)
            tb.write_record(tmp_path, rec)
    rec = tb.tasks.base_record(Task("car", 0, "turs"))
    rec.update(status="timeout")
    tb.write_record(tmp_path, rec)
    comp = tb.compare(tmp_path)
    table = comp.table.set_index("dataset")
    assert table.loc["iris", "auc_diff"] == pytest.approx(0.0)
    assert table.loc["wine", "auc_diff"] == pytest.approx(0.902 - 0.952)
    assert table.loc["iris", "rp_minus_turs"] == pytest.approx(-0.002)
    assert table.loc["car", "n_folds"] == 0 and table.loc["car", "not_ok"] == "timeout: 1"
    assert table.loc["wine", "literals_ratio"] == pytest.approx(5.0 / 4.6)
    text = "\n".join(comp.lines)
    assert "AUC within 0.02 of the thesis on 1 of 2 datasets (outside: wine)" in text
    assert "TURS-RP minus TURS within 0.01 on every dataset: yes" in text
    assert main(["compare", "--results", str(tmp_path), "--out", str(tmp_path / "cmp.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "cmp.csv")) == 3


# ------------------------------------------------------------------------------------ Dask
@pytest.mark.subprocess
def test_dask_local_cluster_gives_the_joblib_results(cli_results, tmp_path):
    try:
        from distributed import LocalCluster
    except ImportError:
        msg = "dask.distributed is not installed (pip install 'dask[distributed]'): Dask test skipped"
        print(msg)
        pytest.skip(msg)
    tasks = make_tasks(DATASETS, ALGORITHMS, FOLDS)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        result = run(tasks, tmp_path, backend="dask", scheduler=cluster.scheduler_address, timeout=300, progress=False)
    assert sorted(result.ran) == sorted(t.id for t in tasks)
    local = _records(cli_results)
    dask = _records(tmp_path)
    assert local.keys() == dask.keys()
    for key in local:
        a = {k: v for k, v in local[key].items() if k not in VOLATILE_FIELDS}
        b = {k: v for k, v in dask[key].items() if k not in VOLATILE_FIELDS}
        assert a == b, key
