"""DRS and IDS: the thesis' own numbers, always labelled ``source="reported"``.

Neither DRS (Zhang and Gionis 2020) nor the IDS implementation the thesis used (Filip and
Kliegr 2019) is installable from PyPI or Debian, so the benchmark does not run them. The
thesis' results are carried instead, from its Table 3.3 (mean 5-fold test ROC-AUC) and
Table 3.5 (total literals), as transcribed in ``data/paper``. A missing cell ("—" in the
thesis: DRS failed on three wide datasets, IDS hit the 10-hour limit on one) is NaN.

Any other algorithm of those tables can be asked for too (``reported_results(["C45"])``), e.g.
to put the thesis' numbers beside a fresh run.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["REPORTED_ALGORITHMS", "reported_results"]

#: Algorithms whose results only exist as reported in the thesis.
REPORTED_ALGORITHMS = ("DRS", "IDS")


def reported_results(algorithms=REPORTED_ALGORITHMS) -> pd.DataFrame:
    """The thesis' numbers as one row per (dataset, algorithm).

    Columns: ``dataset``, ``algorithm``, ``roc_auc`` (Table 3.3), ``n_literals`` (Table 3.5),
    ``source`` (always ``"reported"``), ``table`` (where the numbers come from).
    """
    from ..datasets import paper_table

    auc = paper_table("table3_3_roc_auc").set_index("dataset")
    lits = paper_table("table3_5_total_literals").set_index("dataset")
    algorithms = list(algorithms)
    unknown = [a for a in algorithms if a not in auc.columns or a not in lits.columns]
    if unknown:
        raise ValueError(f"No reported results for {unknown}. Tables 3.3/3.5 have: {', '.join(auc.columns)}.")
    rows = []
    for alg in algorithms:
        for ds in auc.index:
            rows.append({
                "dataset": ds,
                "algorithm": alg,
                "roc_auc": float(auc.at[ds, alg]),
                "n_literals": float(lits.at[ds, alg]) if ds in lits.index else float("nan"),
                "source": "reported",
                "table": "thesis Tables 3.3 (ROC-AUC) and 3.5 (literals)",
            })
    return pd.DataFrame(rows)
