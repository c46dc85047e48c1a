"""The thesis' tables (Yang 2024, ch. 3, Tables 3.2-3.6) as transcribed in ``data/paper/``."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["paper_table", "list_paper_tables", "PAPER_DIR"]

#: ``data/paper`` of the repository (the repository root is the parent of the ``turs`` package).
PAPER_DIR = Path(__file__).resolve().parents[2] / "data" / "paper"


def list_paper_tables() -> list[str]:
    """Names accepted by :func:`paper_table` (file names without ``.csv``)."""
    return sorted(p.stem for p in PAPER_DIR.glob("table*.csv"))


def paper_table(name: str) -> pd.DataFrame:
    """A thesis table as a DataFrame, e.g. ``paper_table("table3_3_roc_auc")``.

    Numbers are as printed in the thesis; an empty cell ("—" in the thesis) is NaN. The first
    column names the row (the dataset, or for Table 3.6 whether local testing was used).
    ``".csv"`` at the end of ``name`` is accepted.
    """
    stem = name[:-4] if name.endswith(".csv") else name
    path = PAPER_DIR / f"{stem}.csv"
    if not path.is_file():
        known = list_paper_tables()
        if not known:
            raise FileNotFoundError(
                f"No thesis tables found in {PAPER_DIR}; paper_table needs the repository's "
                "data/paper folder (it is not part of an installed wheel). Use a checkout of "
                "the repository."
            )
        raise ValueError(f"Unknown thesis table {name!r}. Choose one of: {', '.join(known)}.")
    return pd.read_csv(path)
