#!/usr/bin/env python
"""Our TURS against the authors' implementation (TURS2) on the folds it finished: `make reference-check`.

The anchors (``../shared/anchors/reference_turs2_runs.csv``, variants ``cyaux`` / ``cy5aux``:
auxiliary beam on, the thesis setting) give, per (dataset, fold) of
``StratifiedKFold(5, shuffle=True, random_state=2)``, the reference's training MDL score
(``total_cl_bits``), test ROC-AUC, rules and literals. This script reads harness records
(``python -m turs.bench run``) of one or more TURS variants and writes, per dataset, our mean
test ROC-AUC beside the reference's, the mean ratio of our MDL score to the reference's, the
number of folds where ours is at most 1% above, and the rule and literal counts.

The ratio is only meaningful for a variant that codes the model as the reference does:
``turs`` (the defaults: ``model_encoding="turs2"`` and the reference's beam bookkeeping,
``search="turs2"``) and ``turs-turs2code`` (that code with the thesis' search). The thesis code
(``turs-thesis``) charges 2 bits more per numeric literal, 1 per binary one, and ``log2 K_col``
instead of ``L_univ(k)`` per rule.

    python tools/compare_reference.py --results results/reference --algorithms turs,turs-thesis
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = ROOT.parent / "shared" / "anchors" / "reference_turs2_runs.csv"
#: The datasets with all 5 folds of the reference with the auxiliary beam on.
DATASETS = ["iris", "glass-2", "glass", "wine", "heartcleveland", "backnote", "diabetes", "tic-tac-toe",
            "car", "wdbc", "ionosphere", "contracept", "vehicle", "vowels", "thyroid", "mammography", "chess"]


def reference_table(anchors: Path = ANCHORS):
    from turs.reproduce import reference_runs

    ref = reference_runs(anchors)
    if ref is None:
        raise FileNotFoundError(f"The reference runs are not at {anchors}; pass --anchors PATH.")
    ref = ref[ref["variant"].isin(["cyaux", "cy5aux"]) & (ref["status"] == "ok")]
    ref = ref.drop(columns="dataset").rename(columns={"thesis_name": "dataset"})
    return ref[["dataset", "fold", "roc_auc_test", "total_cl_bits", "num_rules", "total_literals"]].rename(
        columns={"roc_auc_test": "ref_auc", "total_cl_bits": "ref_mdl", "num_rules": "ref_rules",
                 "total_literals": "ref_literals"})


def compare(results: Path, algorithms: list[str], anchors: Path = ANCHORS):
    """(per-fold table, per-dataset table) of our records against the reference's."""
    from turs.bench import summarize

    frame = summarize(results)
    frame = frame[frame["algorithm"].isin(algorithms) & (frame["status"] == "ok") & (frame["settings"] == "{}")]
    ours = frame[["dataset", "fold", "algorithm", "roc_auc", "mdl_score", "n_rules", "n_literals", "fit_seconds"]]
    folds = ours.merge(reference_table(anchors), on=["dataset", "fold"], how="inner")
    folds["mdl_ratio"] = folds["mdl_score"] / folds["ref_mdl"]
    folds["within_1pct"] = folds["mdl_ratio"] <= 1.01
    folds["exact"] = (folds["mdl_score"] - folds["ref_mdl"]).abs() <= 1e-6
    per = folds.groupby(["algorithm", "dataset"]).agg(
        folds=("fold", "size"), roc_auc=("roc_auc", "mean"), ref_auc=("ref_auc", "mean"),
        mdl_ratio=("mdl_ratio", "mean"), folds_within_1pct=("within_1pct", "sum"), folds_exact=("exact", "sum"),
        rules=("n_rules", "mean"), ref_rules=("ref_rules", "mean"),
        literals=("n_literals", "mean"), ref_literals=("ref_literals", "mean")).reset_index()
    per["auc_diff"] = per["roc_auc"] - per["ref_auc"]
    return folds, per


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default=str(ROOT / "results" / "reference"))
    p.add_argument("--algorithms", default="turs,turs-thesis,turs-turs2code")
    p.add_argument("--anchors", default=str(ANCHORS))
    p.add_argument("--out", default=str(ROOT / "figures" / "turs_vs_reference.csv"))
    a = p.parse_args(argv)
    algorithms = [s.strip() for s in a.algorithms.split(",") if s.strip()]
    try:
        folds, per = compare(Path(a.results), algorithms, Path(a.anchors))
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if per.empty:
        print(f"error: no finished records of {algorithms} on the reference's datasets in {a.results}; "
              "run `make reference-check`", file=sys.stderr)
        return 2
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    per.round(4).to_csv(a.out, index=False)
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for alg, tab in per.groupby("algorithm"):
            f = folds[folds["algorithm"] == alg]
            print(f"\n{alg}: MDL <= 1.01 x reference on {int(f['within_1pct'].sum())} of {len(f)} folds "
                  f"(equal to 1e-6 on {int(f['exact'].sum())}); "
                  f"test ROC-AUC within 0.02 of the reference on {int((tab['auc_diff'].abs() <= 0.02).sum())} "
                  f"of {len(tab)} datasets (mean |diff| {tab['auc_diff'].abs().mean():.4f})")
            print(tab.drop(columns="algorithm").round(3).to_string(index=False))
    print(f"\nsaved {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
