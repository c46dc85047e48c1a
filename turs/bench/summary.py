"""Tidy tables from the result records, and the comparison of TURS with the thesis' tables."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .runner import read_records
from .tasks import RECORD_FIELDS

__all__ = ["EXPORT_COLUMNS", "Comparison", "compare", "export_tasks", "summarize", "write_table"]

#: Acceptance thresholds of the reproduction check (TURS against the thesis' tables).
AUC_TOLERANCE = 0.02
RP_TOLERANCE = 0.01
LITERALS_FACTOR = 1.5

_NESTED = ("extra", "rules", "warnings", "classes", "traceback", "settings", "params")


def summarize(results: str | os.PathLike | list) -> pd.DataFrame:
    """One row per task record: identity, status, metrics, timings and the flattened ``extra``.

    ``results`` is a results directory or a list of records. ``settings`` and ``params`` are
    JSON strings (``"{}"`` for none), ``classes`` is ``"|"``-joined; rule texts and tracebacks
    stay in the JSON records. ``extra`` keys become columns unless a record field has the name.
    """
    records = read_records(results) if not isinstance(results, list) else results
    rows = []
    for rec in records:
        row = {k: rec.get(k) for k in RECORD_FIELDS if k not in _NESTED}
        row["settings"] = json.dumps(rec.get("settings") or {}, sort_keys=True)
        row["params"] = json.dumps(rec.get("params") or {}, sort_keys=True)
        row["classes"] = "|".join(str(c) for c in rec.get("classes") or [])
        row["n_warnings"] = len(rec.get("warnings") or [])
        for k, v in (rec.get("extra") or {}).items():
            if k not in row and k not in _NESTED:
                row[k] = v
        rows.append(row)
    columns = [k for k in RECORD_FIELDS if k not in ("extra", "rules", "warnings", "traceback")] + ["n_warnings"]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=columns)
    extra_cols = [c for c in frame.columns if c not in columns]
    frame = frame[[c for c in columns if c in frame.columns] + sorted(extra_cols)]
    for col in ("roc_auc", "roc_auc_rp", "overlap_pct", "g", "n_literals", "n_rules", "accuracy", "local_rules",
                "local_literals", "fit_seconds", "predict_seconds", "wall_seconds"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    return frame.sort_values(["dataset", "algorithm", "settings", "fold"], kind="stable").reset_index(drop=True)


def write_table(frame: pd.DataFrame, out: str | os.PathLike, parquet: bool = True) -> list[Path]:
    """Write ``frame`` as CSV to ``out`` and, when pyarrow is installed and ``parquet``, next to
    it as ``.parquet``. Returns the paths written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    written = [out]
    if parquet:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            return written
        pq = out.with_suffix(".parquet")
        frame.to_parquet(pq, index=False)
        written.append(pq)
    return written


#: The columns of a committed per-task table (:func:`export_tasks`): what the notebooks read.
EXPORT_COLUMNS = ["dataset", "fold", "algorithm", "status", "message", "n_train", "n_test", "roc_auc", "roc_auc_rp",
                  "overlap_pct", "g", "n_rules", "n_literals", "fit_seconds", "mdl_score", "mdl_data_bits",
                  "mdl_regret_bits", "mdl_model_bits", "accuracy", "local_rules", "local_literals"]


def export_tasks(results: str | os.PathLike | list | pd.DataFrame, algorithms=None, datasets=None, folds=None,
                 message_chars: int = 200) -> pd.DataFrame:
    """The compact per-task table of a results folder, to be committed (see ``docs/benchmark.md``).

    One row per record of the 5-fold CV with default settings (``settings == "{}"``; records of
    other ``n_folds`` are left out), restricted to ``algorithms``, ``datasets`` and ``folds`` when
    given, columns :data:`EXPORT_COLUMNS` (the MDL columns are empty except
    for TURS variants; ``message`` only for records whose status is not ``ok``, on one line and
    cut to ``message_chars``), sorted by dataset, algorithm and fold. Write it with
    ``frame.to_csv(path, index=False, float_format="%.6g")`` (6 significant digits).
    """
    frame = results if isinstance(results, pd.DataFrame) else summarize(results)
    from .tasks import N_FOLDS

    n_folds = pd.to_numeric(frame["n_folds"], errors="coerce").fillna(N_FOLDS) if "n_folds" in frame else N_FOLDS
    frame = frame[(frame["settings"] == "{}") & (n_folds == N_FOLDS)]
    if folds is not None:
        frame = frame[frame["fold"].isin([int(f) for f in folds])]
    if algorithms is not None:
        frame = frame[frame["algorithm"].isin(list(algorithms))]
    if datasets is not None:
        frame = frame[frame["dataset"].isin(list(datasets))]
    frame = frame.reindex(columns=EXPORT_COLUMNS).copy()
    if frame.duplicated(["dataset", "fold", "algorithm"]).any():
        dup = frame[frame.duplicated(["dataset", "fold", "algorithm"], keep=False)].iloc[0]
        raise ValueError(f"Two records with default settings for ({dup['dataset']}, fold {dup['fold']}, "
                         f"{dup['algorithm']}): a per-task table needs one. Remove the stale record.")
    ok = frame["status"] == "ok"
    text = frame["message"].fillna("").astype(str).str.replace(r"\s+", " ", regex=True).str.strip()
    frame["message"] = text.str.slice(0, message_chars).where(~ok, "")
    for col in EXPORT_COLUMNS[5:]:
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    frame["fold"] = frame["fold"].astype(int)
    return frame.sort_values(["dataset", "algorithm", "fold"], kind="stable").reset_index(drop=True)


@dataclass
class Comparison:
    """Our per-dataset means next to the thesis' numbers, and the acceptance lines."""

    table: pd.DataFrame
    lines: list
    passed: dict


def _thesis() -> pd.DataFrame:
    from ..datasets import paper_table

    auc = paper_table("table3_3_roc_auc").set_index("dataset")["TURS"].rename("thesis_auc")
    rp = paper_table("table3_4_random_picking").set_index("dataset")
    lit = paper_table("table3_5_total_literals").set_index("dataset")["TURS"].rename("thesis_literals")
    return pd.concat([
        auc,
        (-rp["TURS_diff"]).rename("thesis_rp_minus_turs"),
        rp["TURS_overlap_pct"].rename("thesis_overlap_pct"),
        lit,
    ], axis=1)


def compare(results: str | os.PathLike | list | pd.DataFrame, algorithm: str = "turs", min_folds: int = 5) -> Comparison:
    """Compare our results for ``algorithm`` (default settings) with Tables 3.3-3.5 (column TURS).

    Per thesis dataset that has records: the number of folds that finished (``n_folds``) and the
    statuses of those that did not, our mean test ROC-AUC, the thesis', their difference
    (ours - thesis) and whether it is within 0.02; our mean random-picking AUC and
    ``rp_minus_turs`` (TURS-RP minus TURS, per-fold means) with the thesis' value and whether
    ours is within 0.01; %overlap; our mean total literals, the thesis' and the ratio
    ours / thesis; mean number of rules, ``g`` and fit seconds.

    The acceptance lines count only datasets with at least ``min_folds`` finished folds.
    """
    frame = results if isinstance(results, pd.DataFrame) else summarize(results)
    frame = frame[(frame["algorithm"] == algorithm) & (frame["settings"] == "{}")]
    thesis = _thesis()
    frame = frame[frame["dataset"].isin(thesis.index)]
    ok = frame[frame["status"] == "ok"]
    ours = ok.groupby("dataset").agg(
        n_folds=("fold", "nunique"), auc=("roc_auc", "mean"), auc_rp=("roc_auc_rp", "mean"),
        overlap_pct=("overlap_pct", "mean"), n_literals=("n_literals", "mean"),
        n_rules=("n_rules", "mean"), g=("g", "mean"), fit_seconds=("fit_seconds", "mean"),
    )
    failed = frame[frame["status"] != "ok"].groupby("dataset")["status"].agg(
        lambda s: ", ".join(f"{k}: {v}" for k, v in s.value_counts().sort_index().items()))
    datasets = sorted(set(frame["dataset"]), key=lambda d: list(thesis.index).index(d))
    table = pd.DataFrame(index=pd.Index(datasets, name="dataset"))
    table = table.join(ours).join(failed.rename("not_ok")).join(thesis)
    table["n_folds"] = table["n_folds"].fillna(0).astype(int)
    table["not_ok"] = table["not_ok"].fillna("")
    table["auc_diff"] = table["auc"] - table["thesis_auc"]
    table[f"auc_within_{AUC_TOLERANCE}"] = table["auc_diff"].abs() <= AUC_TOLERANCE + 1e-12
    table["rp_minus_turs"] = table["auc_rp"] - table["auc"]
    table[f"rp_within_{RP_TOLERANCE}"] = table["rp_minus_turs"].abs() < RP_TOLERANCE
    table["literals_ratio"] = table["n_literals"] / table["thesis_literals"]
    table = table[[
        "n_folds", "not_ok", "auc", "thesis_auc", "auc_diff", f"auc_within_{AUC_TOLERANCE}",
        "auc_rp", "rp_minus_turs", "thesis_rp_minus_turs", f"rp_within_{RP_TOLERANCE}",
        "overlap_pct", "thesis_overlap_pct", "n_literals", "thesis_literals", "literals_ratio",
        "n_rules", "g", "fit_seconds",
    ]].reset_index()
    return _acceptance(table, algorithm, min_folds)


def _acceptance(table: pd.DataFrame, algorithm: str, min_folds: int) -> Comparison:
    full = table[table["n_folds"] >= min_folds]
    n = len(full)
    lines = [f"{algorithm} vs thesis (TURS column): {n} dataset(s) with >= {min_folds} finished folds "
             f"(of {len(table)} with records; the thesis has 31)"]
    passed = {}
    if n == 0:
        lines.append("no dataset has enough finished folds to compare")
        return Comparison(table, lines, passed)
    within = full[f"auc_within_{AUC_TOLERANCE}"]
    lines.append(f"AUC within {AUC_TOLERANCE} of the thesis on {int(within.sum())} of {n} datasets"
                 + (f" (outside: {', '.join(full.loc[~within, 'dataset'])})" if (~within).any() else ""))
    lines.append(f"mean |AUC diff| = {full['auc_diff'].abs().mean():.4f}; mean AUC diff (ours - thesis) = "
                 f"{full['auc_diff'].mean():+.4f}")
    rp_ok = full[f"rp_within_{RP_TOLERANCE}"]
    passed["rp_every_dataset"] = bool(rp_ok.all())
    worst = full.loc[full["rp_minus_turs"].abs().idxmax()]
    lines.append(f"TURS-RP minus TURS within {RP_TOLERANCE} on every dataset: "
                 f"{'yes' if rp_ok.all() else 'no'} ({int(rp_ok.sum())} of {n}; largest |diff| "
                 f"{abs(worst['rp_minus_turs']):.4f} on {worst['dataset']})")
    ratio = full["literals_ratio"]
    factor = np.maximum(ratio, 1.0 / ratio)
    med = float(ratio.median())
    passed["literals_median"] = bool(1.0 / LITERALS_FACTOR <= med <= LITERALS_FACTOR)
    lines.append(f"total literals within {LITERALS_FACTOR}x of the thesis on the median dataset: "
                 f"{'yes' if passed['literals_median'] else 'no'} (median ratio ours/thesis {med:.2f}; "
                 f"{int((factor <= LITERALS_FACTOR).sum())} of {n} datasets within {LITERALS_FACTOR}x)")
    passed["auc_within"] = int(within.sum())
    passed["n"] = n
    return Comparison(table, lines, passed)
