"""Shared plumbing of the notebooks that reproduce thesis §3.6 (Tables 3.3-3.5, Figs. 3.2-3.4, 3.7).

Every benchmark notebook calls :func:`get_results`, which runs the :mod:`turs.bench` tasks that
have no record yet in a results folder shared by all notebooks (so a profile is computed once)
and returns the harness' own summary (:func:`turs.bench.summarize`), one row per
(dataset, fold, algorithm). :func:`mean_table` turns it into one number per dataset and
algorithm; a cell whose folds did not all finish with status ``ok`` is NaN (shown as "—") and
:func:`failures` says why, so nothing is dropped silently.

>>> from turs.reproduce import get_results, mean_table      # doctest: +SKIP
>>> frame = get_results("quick", "turs,cart")                 # doctest: +SKIP
>>> mean_table(frame, "roc_auc")                             # doctest: +SKIP
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import NamedTuple

import pandas as pd

__all__ = ["BEYOND_THESIS", "BEYOND_THESIS_NOTE", "BenchmarkSetup", "LABELS", "QUICK_SKIP", "REFERENCE_RUNS_COPY",
           "THESIS_ALGORITHMS", "THESIS_NAMES", "benchmark_order", "benchmark_setup", "committed_record",
           "committed_table", "compute_enabled", "datasets_at_hand", "failures", "figures_dir", "get_results",
           "label", "markdown", "mean_table", "output_dir", "parse_list", "read_committed", "reference_runs",
           "repo_root", "save_figure", "thesis_table", "use_shared_datasets"]

#: Benchmark algorithm name -> the thesis' column name (Tables 3.3 and 3.5); other algorithms
#: (the seed papers' learners, TURS' ablations) take their label from :mod:`turs.style`.
LABELS = {"turs": "TURS", "cart": "CART", "c45": "C45", "ripper": "RIPPER", "cn2": "CN2",
          "classy": "CLASSY", "brs": "BRS", "brl": "BRL", "rulefit": "RuleFit", "oner": "OneR"}


#: The thesis' algorithms the harness runs: the benchmark notebooks' default ``algorithms``
#: (BRS too on the paper profile: two classes only, ~260 s per fold).
THESIS_ALGORITHMS = "turs,cart,c45,ripper,cn2,classy"

#: The seed papers' learners that Figs. 3.2-3.4 draw as extra rows, marked as beyond
#: the thesis: the thesis' statements are checked on its own algorithms only, and the extra rows
#: are measured against them (e.g. the gap to the best of the thesis' algorithms).
BEYOND_THESIS = "submodular,lire"
#: The footnote of a figure with such rows (their labels end in "*").
BEYOND_THESIS_NOTE = "* beyond the thesis: the seed papers' learners, re-implemented (two classes only)"


#: Bundled (quick-profile) dataset -> the thesis dataset with the same data (UCI iris and wine).
#: ``sklearn-breast-cancer`` is not mapped: it is the 569-row UCI WDBC, the thesis' ``wdbc`` is
#: ADBench's 367-row version.
THESIS_NAMES = {"sklearn-iris": "iris", "sklearn-wine": "wine"}


#: (algorithm, dataset) pairs the quick profile does not run by default, and why. They show as
#: status ``"skipped"`` ("—" in the tables) unless a record already exists.
QUICK_SKIP = {
    ("cn2", "sim-local-testing"): "Orange's CN2 takes ~130 s per fold on this 2,000 x 50 binary dataset "
                                  "(the rest of the quick profile takes ~3 min); pass skip={} to run it",
}


def label(algorithm: str) -> str:
    """The thesis' name of a benchmark algorithm (``"c45"`` -> ``"C45"``), else its label in
    :data:`turs.style.ALGORITHM_STYLES` (``"lire"`` -> ``"LIRE"``); unknown names unchanged."""
    if algorithm in LABELS:
        return LABELS[algorithm]
    from .style import ALGORITHM_STYLES

    style = ALGORITHM_STYLES.get(algorithm)
    return style.label if style is not None else algorithm


def parse_list(value, cast=str) -> list | None:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]`` (items passed through ``cast``); ``None`` stays ``None``.

    papermill passes a tuple parameter such as ``(0, 1)`` as the text ``"(0, 1)"``: brackets
    and quotes around the items are dropped.
    """
    if value is None:
        return None
    if isinstance(value, (str, int)):
        value = str(value).strip("()[] ").split(",")
    items = (str(v).strip().strip("'\"") for v in value)
    return [cast(v) for v in items if v]


def benchmark_order(algorithms) -> list[str]:
    """Benchmark names (``"lire,cn2,turs"`` or a list) in the one order of every figure and table,
    :func:`turs.style.algorithm_order` (``["turs", "cn2", "lire"]``)."""
    from .style import algorithm_order

    return algorithm_order(parse_list(algorithms) or [])


def compute_enabled() -> bool:
    """False when the environment says ``TURS_REPRODUCE_COMPUTE=0`` (``make reproduce COMPUTE=0``):
    the notebooks then run no benchmark task and fit nothing, and redraw from the records in
    the results folder or, where there is none, from the committed ones (:func:`committed_record`)."""
    return os.environ.get("TURS_REPRODUCE_COMPUTE", "1") != "0"


def use_shared_datasets() -> None:
    """Set ``TURS_DATA_DIR`` to ``../shared/datasets`` beside the repository when it is not set
    and that folder exists, as the Makefile does (the harness' workers inherit it)."""
    shared = repo_root().parent / "shared" / "datasets"
    if "TURS_DATA_DIR" not in os.environ and shared.is_dir():
        os.environ["TURS_DATA_DIR"] = str(shared)


def datasets_at_hand(names) -> bool:
    """True when every dataset of ``names`` can be loaded without the network: bundled, or its
    file found (and verified) in ``TURS_DATA_DIR`` or the cache folder."""
    from .datasets import dataset_path, get_info

    for name in parse_list(names) or []:
        if name.startswith(("sklearn-", "sim-")):
            continue  # bundled (scikit-learn's copies, simulated)
        try:
            get_info(name)
        except ValueError:
            return False
        try:
            dataset_path(name, download=False)
        except (FileNotFoundError, ValueError):
            return False
    return True


def committed_record(name: str, repo=None) -> Path:
    """A committed record of a study the notebooks redraw with ``TURS_REPRODUCE_COMPUTE=0``:
    ``<repo>/data/results/<name>`` (it may not exist)."""
    repo = Path(repo) if repo is not None else repo_root()
    return repo / "data" / "results" / name


def repo_root() -> Path:
    """The repository root: the first folder above this package (then above the current
    directory) holding a ``pyproject.toml`` with ``name = "turs"``."""
    starts = [Path(__file__).resolve().parent, Path.cwd().resolve()]
    for start in starts:
        for folder in (start, *start.parents):
            pyproject = folder / "pyproject.toml"
            if pyproject.is_file() and 'name = "turs"' in pyproject.read_text(encoding="utf-8"):
                return folder
    raise FileNotFoundError(
        f"Cannot find the turs repository (a pyproject.toml with name = \"turs\") above {starts[0]} "
        f"or {starts[1]}. Pass results_dir and out_dir explicitly."
    )


def figures_dir(profile: str = "quick", repo=None) -> Path:
    """Where a profile's figures go by default: ``<repo>/figures`` for ``"paper"`` (the committed
    figures), ``<repo>/build/figures`` for ``"quick"`` and ``<repo>/build/figures/<profile>`` for
    any other profile (``build/`` is ignored by git, so a quick run never changes the tree)."""
    repo = Path(repo) if repo is not None else repo_root()
    if profile == "paper":
        return repo / "figures"
    return repo / "build" / "figures" if profile == "quick" else repo / "build" / "figures" / str(profile)


def output_dir(out_dir=None, profile: str = "quick") -> Path:
    """Where a notebook writes its figures and tables: ``out_dir``, or :func:`figures_dir` of
    ``profile`` when None; created, and printed with the repository it belongs to."""
    repo = repo_root()
    out = Path(out_dir).resolve() if out_dir is not None else figures_dir(profile, repo)
    out.mkdir(parents=True, exist_ok=True)
    print(f"repository: {repo}\nwriting to: {out}")
    return out


def committed_table(profile: str, repo=None) -> Path:
    """The committed per-task results of ``profile``: ``<repo>/data/results/<profile>_profile_tasks.csv``
    (written by ``tools/export_paper_results.py``; it may not exist)."""
    repo = Path(repo) if repo is not None else repo_root()
    return repo / "data" / "results" / f"{profile}_profile_tasks.csv"


def read_committed(path) -> pd.DataFrame:
    """A committed per-task table as rows of :func:`turs.bench.summarize` (default settings)."""
    table = pd.read_csv(path, dtype={"message": str}, keep_default_na=True)
    missing = {"dataset", "fold", "algorithm", "status"} - set(table.columns)
    if missing:
        raise ValueError(f"{path} is not a per-task results table: it has no column(s) {sorted(missing)}. "
                         "Rewrite it with tools/export_paper_results.py.")
    table["settings"] = "{}"
    table["message"] = table.get("message", pd.Series("", index=table.index)).fillna("")
    table["fold"] = table["fold"].astype(int)
    return table


def get_results(profile: str, algorithms, results_dir=None, n_jobs: int = 2, folds=None, datasets=None,
                timeout: float | None = 600.0, progress: bool = True, skip=None, table=None,
                n_folds: int | None = None) -> pd.DataFrame:
    """Run the missing benchmark tasks of ``profile`` and return their summary.

    Parameters
    ----------
    profile : {"quick", "paper"}
        The :mod:`turs.bench` profile (its datasets and folds are the defaults).
    algorithms : str or list of str
        Benchmark names, e.g. ``"turs,cart,c45"``.
    results_dir : path-like, optional
        Where the records are (and new ones go); default ``<repo>/results/<profile>``.
    n_jobs, timeout, progress
        Passed to :func:`turs.bench.run` (a tqdm bar over the tasks still to run); with
        ``progress``, a line with the results folder and the records per status is printed.
    folds, datasets : str or list, optional
        Subsets of the profile's folds / datasets (``"0,1"``).
    skip : dict, optional
        ``{(algorithm, dataset): reason}`` not to run; default :data:`QUICK_SKIP` for the quick
        profile, none otherwise. A skipped task that already has a record uses it; otherwise it
        gets a row with status ``"skipped"`` and the reason as ``message``.

    n_folds : int, optional
        Folds of the cross-validation, default 5 (the thesis'; the profile's folds). With another
        value (e.g. 10, the seed papers' protocol) ``folds`` defaults to all of them and only
        records of that ``n_folds`` are returned; the committed table (5-fold) is not used.
    table : path-like, optional
        The committed per-task table used with ``TURS_REPRODUCE_COMPUTE=0``; default
        :func:`committed_table` of ``profile`` (``data/results/paper_profile_tasks.csv``).

    With the environment variable ``TURS_REPRODUCE_COMPUTE=0`` (``make reproduce COMPUTE=0``)
    nothing is computed: a task without a record takes its row from the committed table when it
    has one (so the paper figures redraw on a fresh clone without any dataset), else it gets a
    row with status ``"skipped"``.

    Returns
    -------
    DataFrame
        :func:`turs.bench.summarize` of the records, restricted to the requested datasets,
        folds and algorithms with default settings: one row per task, every status kept.
    """
    from .bench import get_profile, make_tasks, record_path, run, summarize
    from .bench.tasks import N_FOLDS

    use_shared_datasets()  # the thesis datasets live outside the repository (docs/datasets.md)
    prof = get_profile(profile)
    algorithms = parse_list(algorithms)
    datasets = parse_list(datasets) or list(prof.datasets)
    n_folds = N_FOLDS if n_folds is None else int(n_folds)
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2. Got {n_folds}.")
    if folds is not None:
        folds = parse_list(folds, int)
    else:
        folds = list(prof.folds) if n_folds == N_FOLDS else list(range(n_folds))
    bad = [f for f in folds if not 0 <= f < n_folds]
    if bad:
        raise ValueError(f"folds {bad} are outside 0..{n_folds - 1} of {n_folds}-fold CV; pass folds in that range.")
    out = Path(results_dir) if results_dir is not None else repo_root() / "results" / profile
    skip = dict(QUICK_SKIP if profile == "quick" else {}) if skip is None else dict(skip)
    tasks = make_tasks(datasets, algorithms, folds=folds, n_folds=n_folds)
    committed = pd.DataFrame()
    if not compute_enabled():
        table = Path(table) if table is not None else committed_table(profile)
        use_table = table.is_file() and n_folds == N_FOLDS  # the committed table holds 5-fold records only
        absent = [t for t in tasks if not record_path(out, t.id).is_file()]
        if absent and use_table:
            rows = read_committed(table).set_index(["dataset", "fold", "algorithm"], drop=False)
            wanted = [(t.dataset, int(t.fold), t.algorithm) for t in absent]
            committed = rows.loc[[k for k in wanted if k in rows.index]].reset_index(drop=True)
            committed["source"] = str(table)
        have = set(zip(committed.get("dataset", []), committed.get("fold", []), committed.get("algorithm", [])))
        reason = (f"no record in {out}{f' nor in {table.name}' if use_table else ''} and "
                  "TURS_REPRODUCE_COMPUTE=0 (run `make experiments` or drop COMPUTE=0)")
        skip = {**skip, **{(t.algorithm, t.dataset): reason for t in absent
                           if (t.algorithm, t.dataset) not in skip and (t.dataset, int(t.fold), t.algorithm) not in have}}
        from_table = have
    else:
        from_table = set()
    todo = [t for t in tasks if (t.dataset, int(t.fold), t.algorithm) not in from_table
            and ((t.algorithm, t.dataset) not in skip or record_path(out, t.id).is_file())]
    run(todo, out, n_jobs=n_jobs, timeout=timeout, progress=progress, probe_first=True)
    frame = summarize(out) if out.is_dir() else summarize([])
    rec_folds = pd.to_numeric(frame["n_folds"], errors="coerce").fillna(N_FOLDS) if "n_folds" in frame else N_FOLDS
    keep = (frame["dataset"].isin(datasets) & frame["algorithm"].isin(algorithms)
            & frame["fold"].isin(folds) & (frame["settings"] == "{}") & (rec_folds == n_folds))
    frame = frame[keep]
    skipped = [{"dataset": t.dataset, "fold": int(t.fold), "algorithm": t.algorithm, "settings": "{}",
                "status": "skipped", "message": skip[(t.algorithm, t.dataset)]}
               for t in tasks if t not in todo and (t.dataset, int(t.fold), t.algorithm) not in from_table]
    parts = [p for p in (frame, committed, pd.DataFrame(skipped)) if len(p)]
    if len(parts) > 1:
        frame = pd.concat(parts, ignore_index=True)
    elif parts:
        frame = parts[0]
    frame = frame.sort_values(["dataset", "algorithm", "fold"], kind="stable").reset_index(drop=True)
    frame.attrs.update(profile=profile, datasets=datasets, folds=folds, algorithms=algorithms,
                       results_dir=str(out), from_committed_table=len(committed))
    if progress:
        print(f"results: {out}\n{len(frame)} task records: {frame['status'].value_counts().to_dict()}")
        if len(committed):
            print(f"{len(committed)} of them from the committed table {committed['source'].iloc[0]} "
                  f"(no record in {out})")
    return frame


class BenchmarkSetup(NamedTuple):
    """What a benchmark notebook works with (:func:`benchmark_setup`)."""

    out: Path              #: where its figures and tables go
    frame: pd.DataFrame    #: :func:`get_results` of the algorithms and the extra rows
    algorithms: list       #: their labels, in the one order (the extra rows included)
    extra: list            #: the labels of the rows beyond the thesis
    quick: bool            #: not the paper profile: the bundled datasets, not the thesis'


def benchmark_setup(profile: str, algorithms=None, beyond_thesis="", *, folds=None, results_dir=None, out_dir=None,
                    n_jobs: int = 2, datasets=None, timeout: float | None = 600.0) -> BenchmarkSetup:
    """The setup every benchmark notebook shares, from its parameters cell.

    Sets the project's figure style (:func:`turs.style.apply`), silences tqdm's note that
    ipywidgets is missing (the bar falls back to text), picks the output folder
    (:func:`output_dir`) and reads, or runs, the benchmark tasks (:func:`get_results`).

    Parameters
    ----------
    profile : {"quick", "paper"}
        "quick": the bundled datasets; "paper": the thesis' datasets (``TURS_DATA_DIR``).
    algorithms : str or list, optional
        Benchmark names; default :data:`THESIS_ALGORITHMS`.
    beyond_thesis : str or list
        Extra rows beyond the thesis, marked "*" in the figures (e.g. :data:`BEYOND_THESIS`).
    folds, datasets : optional
        Subsets of the profile's (``"0,1"``); None: all of them.
    results_dir, out_dir : path-like, optional
        The records (default ``<repo>/results/<profile>``) and the figures' folder (default
        :func:`figures_dir` of the profile).
    n_jobs, timeout
        Worker processes and seconds per task for the tasks still missing.
    """
    from . import style

    style.apply()
    warnings.filterwarnings("ignore", message=".*IProgress.*")  # tqdm.auto without ipywidgets: a text bar
    out = output_dir(out_dir, profile)
    names = parse_list(algorithms) or parse_list(THESIS_ALGORITHMS)
    extra = [a for a in parse_list(beyond_thesis) or [] if a not in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = get_results(profile, names + extra, results_dir=results_dir, n_jobs=n_jobs, folds=folds,
                            datasets=datasets, timeout=timeout)
    return BenchmarkSetup(out, frame, [label(a) for a in benchmark_order(frame.attrs["algorithms"])],
                          [label(a) for a in extra], profile != "paper")


def mean_table(frame: pd.DataFrame, metric: str, algorithms=None, datasets=None) -> pd.DataFrame:
    """Mean of ``metric`` over the folds, datasets x algorithms (thesis labels as columns, in the
    one order of :func:`benchmark_order`).

    A cell is NaN unless every fold of that (dataset, algorithm) in ``frame`` has status ``ok``
    (and the metric is defined): a partial mean would not be comparable with the others.
    """
    algorithms = benchmark_order(parse_list(algorithms) or frame.attrs.get("algorithms")
                                 or sorted(frame["algorithm"].unique()))
    datasets = parse_list(datasets) or frame.attrs.get("datasets") or sorted(frame["dataset"].unique())
    grouped = frame.groupby(["dataset", "algorithm"])
    all_ok = grouped["status"].agg(lambda s: bool((s == "ok").all()))
    means = grouped[metric].mean().where(all_ok)
    table = means.unstack("algorithm").reindex(index=datasets, columns=algorithms)
    table.columns = [label(a) for a in table.columns]
    table.index.name = "dataset"
    return table


def failures(frame: pd.DataFrame) -> pd.DataFrame:
    """The tasks whose status is not ``ok``: dataset, algorithm, status and the folds, one row each
    (dataset, algorithm, status), with the first message."""
    bad = frame[frame["status"] != "ok"]
    if bad.empty:
        return pd.DataFrame(columns=["dataset", "algorithm", "status", "folds", "message"])
    return (bad.groupby(["dataset", "algorithm", "status"])
            .agg(folds=("fold", lambda f: ",".join(str(int(v)) for v in sorted(f))),
                 message=("message", lambda m: str(m.iloc[0])[:160]))
            .reset_index())


#: The compact copy of ``../shared/anchors/reference_turs2_runs.csv`` in the repository.
REFERENCE_RUNS_COPY = Path("data") / "results" / "reference_turs2_runs.csv"


def reference_runs(path=None) -> pd.DataFrame | None:
    """The runs of the authors' implementation (TURS2) measured on this machine type, with a
    column ``thesis_name``: our registry name of the dataset, matched on the suite and the file
    name (``uci/HeartCleveland`` -> ``heartcleveland``, ``adbench/glass.npz`` -> ``glass-2``), NaN
    outside the study.

    Read from ``path``; by default from ``../shared/anchors/reference_turs2_runs.csv`` beside the
    repository, or, when that is absent (a fresh clone), from its compact copy in the repository
    (:data:`REFERENCE_RUNS_COPY`, the columns the notebooks use). None when neither exists.
    ``attrs["path"]`` says which file was read."""
    from .datasets import REGISTRY

    if path is None:
        shared = repo_root().parent / "shared" / "anchors" / "reference_turs2_runs.csv"
        path = shared if shared.is_file() else repo_root() / REFERENCE_RUNS_COPY
    path = Path(path)
    if not path.is_file():
        return None
    runs = pd.read_csv(path)
    by_file = {(i.collection, Path(i.file).stem.lower()): i.name for i in REGISTRY.values()}
    runs["thesis_name"] = [by_file.get((suite, Path(d).stem.lower()))
                           for suite, d in zip(runs["suite"], runs["dataset"])]
    runs.attrs["path"] = str(path)
    return runs


def thesis_table(name: str) -> pd.DataFrame:
    """A thesis table from ``data/paper`` (e.g. ``"table3_3_roc_auc"``), indexed by its first column;
    a table whose columns are all algorithms has them in the one order of every figure
    (:func:`turs.style.algorithm_order`: TURS first, not the thesis' BRS first)."""
    from .datasets import paper_table
    from .style import ALGORITHM_STYLES, algorithm_order

    table = paper_table(name)
    table = table.set_index(table.columns[0])
    labels = {s.label.lower() for s in ALGORITHM_STYLES.values()}
    if {str(c).lower() for c in table.columns} <= labels:  # a table of algorithms
        table = table[algorithm_order(table.columns)]
    return table


def save_figure(fig, out_dir, stem: str, dpi: int = 150, max_width_px: int | None = 2000) -> list[Path]:
    """Write ``fig`` as ``<out_dir>/<stem>.png`` and ``.pdf`` through :func:`turs.style.save`
    (which refuses text under 11 pt and a PNG wider than ``max_width_px``); returns the paths."""
    from .style import save

    return save(fig, out_dir, stem, formats=("png", "pdf"), dpi=dpi, max_width_px=max_width_px)


def markdown(table: pd.DataFrame, bold=None, digits: int = 3, extra=None) -> str:
    """``table`` as a Markdown table: numbers with ``digits`` decimals, NaN as "—", cells where
    the boolean frame ``bold`` is true in bold, and ``extra`` (a frame of strings) appended to
    the cells where it is not empty."""
    def cell(row, col):
        value = table.loc[row, col]
        if isinstance(value, str):
            text = value
        elif pd.isna(value):
            text = "—"
        else:
            text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
        if bold is not None and col in bold.columns and row in bold.index and bool(bold.loc[row, col]):
            text = f"**{text}**"
        if extra is not None and col in extra.columns and row in extra.index and extra.loc[row, col]:
            text = f"{text} {extra.loc[row, col]}"
        return text

    name = table.index.name or ""
    lines = ["| " + " | ".join([name, *map(str, table.columns)]) + " |",
             "|" + "---|" * (len(table.columns) + 1)]
    for row in table.index:
        lines.append("| " + " | ".join([str(row), *(cell(row, c) for c in table.columns)]) + " |")
    return "\n".join(lines)
