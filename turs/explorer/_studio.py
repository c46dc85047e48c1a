"""``Explorer`` / ``explore(X, y)``: choose data and settings, re-fit without freezing, compare.

One screen, as in TensorFlow Playground: the data and the settings a class discusses on the
left (dataset, CSV upload, beam width, diverse patience, local test, auxiliary beam, search,
model encoding, maximum rules), a **Re-fit** button with a progress bar and a **Cancel** that
stops the fit (it runs in a worker process, see ``_fit``), and on the right the
:class:`~turs.explorer.SearchExplorer` of the current fit, a side-by-side **Compare** of any
two fits (rules, MDL score and its parts, train and test ROC-AUC, literals), and **Edit rules**
(``_edit``): type a rule and see the MDL change it makes, remove one, continue the search from
the edited rules.

Data: with ``test_size > 0`` a stratified, seeded share of the rows is held out for the test
ROC-AUC; the fit and every picture use the rest. Large data are subsampled for drawing only.
"""
from __future__ import annotations

import io
import threading

import ipywidgets as W
import numpy as np
import pandas as pd

from .._validation import _check_y
from . import _html, _keys
from ._app import SearchExplorer
from ._edit import RuleEditor
from ._fit import FitJob

#: The settings the controls set (``TURSClassifier`` parameters) and their defaults.
SETTINGS = {"beam_width": 10, "use_patience": True, "use_local_test": True, "use_auxiliary_beam": True,
            "search": "turs2", "model_encoding": "turs2", "max_rules": None}
DEMO = "sim-mixed (categorical demo)"
YOURS = "your data"


def mixed_demo(n: int = 800, seed: int = 0):
    """A small simulated table with a categorical, a two-level and two numeric columns."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "yellow"], n)
    size = rng.choice(["small", "large"], n)
    weight = np.round(rng.normal(10, 3, n), 2)
    age = rng.integers(0, 5, n)
    p = np.where((colour == "red") | ((colour == "blue") & (weight > 11)), 0.85, 0.15)
    p = np.where(size == "large", 0.5 * p, p)
    y = pd.Series(np.where(rng.random(n) < p, "yes", "no"), name="label")
    return pd.DataFrame({"colour": colour, "size": size, "weight": weight, "age": age}), y


def available_datasets() -> list[str]:
    """The bundled datasets, the demo, and the thesis datasets found under ``TURS_DATA_DIR``
    (or the cache folder); nothing is downloaded."""
    from turs.datasets import BUNDLED, dataset_path, list_datasets

    names = list(BUNDLED) + [DEMO]
    for name in list_datasets():
        try:
            dataset_path(name, verify=False, download=False)
        except (FileNotFoundError, ValueError, OSError):
            continue
        names.append(name)
    return names


def load_dataset(name: str):
    """``(X, y)`` of a name of :func:`available_datasets` (categorical columns kept as categories)."""
    from turs.datasets import BUNDLED, load, load_bundled

    if name == DEMO:
        return mixed_demo()
    if name in BUNDLED:
        return load_bundled(name)
    return load(name, preprocess=False, download=False)


#: Uploads larger than this are refused at once (``explore(X, y)`` reads any size); the server
#: (``tools/serve_explorer.py``) takes websocket messages up to :data:`SERVER_MAX_UPLOAD_MB`.
MAX_UPLOAD_MB = 64
SERVER_MAX_UPLOAD_MB = 200
DELIMITERS = ",;\t"


def decode_csv(content: bytes, name: str = "the CSV") -> tuple[str, str]:
    """``(text, note)`` of an uploaded file: UTF-8 (with or without a byte-order mark), else read as
    Latin-1 (every byte is a character there) with a note saying so and how to save it as UTF-8."""
    raw = bytes(content)
    try:
        return raw.decode("utf-8-sig"), ""
    except UnicodeDecodeError as exc:
        return raw.decode("latin-1"), (
            f"{name} is not UTF-8 (byte 0x{raw[exc.start]:02x} at position {exc.start:,}): read as Latin-1 "
            "(Western European). If names look wrong, save it as UTF-8 (Excel: Save As, 'CSV UTF-8'; "
            "LibreOffice: Save As, Character set 'Unicode (UTF-8)') and upload it again.")


def sniff_delimiter(text: str) -> str:
    """The delimiter of a CSV text: comma, semicolon or tab, whichever splits the first lines into
    the same number (> 1) of fields most often (comma when none does)."""
    import csv

    lines = [line for line in text[:65536].splitlines()[:50] if line.strip()]
    best, best_score = ",", (0, 0)
    for d in DELIMITERS:
        widths = [len(row) for row in csv.reader(lines, delimiter=d)]
        if not widths or max(widths) < 2:
            continue
        common = max(set(widths), key=widths.count)
        score = (widths.count(common), common)
        if common > 1 and score > best_score:
            best, best_score = d, score
    return best


def read_csv(content: bytes, label: str | None = None, name: str = "The CSV"):
    """``(table, label column, notes)`` of an uploaded CSV: the delimiter (comma, semicolon, tab)
    is detected, a file that is not UTF-8 is read as Latin-1 with a note; the label defaults to
    the last column. Raises ``ValueError`` saying what is wrong and the fix."""
    size_mb = len(content) / 2**20
    if size_mb > MAX_UPLOAD_MB:
        raise ValueError(f"{name} is {size_mb:.0f} MB; uploads here are limited to {MAX_UPLOAD_MB} MB. In a "
                         "notebook, read it yourself and call turs.explorer.explore(X, y), which takes any size.")
    text, note = decode_csv(content, name)
    delimiter = sniff_delimiter(text)
    try:
        df = pd.read_csv(io.StringIO(text), sep=delimiter)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ValueError(f"{name} cannot be read as a table ({exc}). Save it as CSV with commas, semicolons "
                         "or tabs between the values.") from None
    if df.shape[1] < 2:
        raise ValueError(f"{name} has {df.shape[1]} column ({list(map(str, df.columns))[:1]}); it needs at "
                         "least one feature and a label column, with commas, semicolons or tabs between "
                         "the values.")
    if len(df) < 2:
        raise ValueError(f"{name} has {len(df)} data row(s); it needs at least two.")
    df.columns = [str(c) for c in df.columns]
    label = df.columns[-1] if label is None else label
    if label not in df.columns:
        raise ValueError(f"{name} has no column {label!r}; its columns are {list(df.columns)}.")
    notes = [note] if note else []
    if delimiter != ",":
        notes.append(f"values separated by {'tabs' if delimiter == chr(9) else 'semicolons'}")
    return df, label, notes


def check_label(df: pd.DataFrame, label: str, name: str = "The CSV"):
    """Raise ``ValueError`` if the label column cannot be learned: missing values, one class."""
    missing = df[label].isna().to_numpy()
    if missing.any():
        rows = ", ".join(str(i + 2) for i in np.flatnonzero(missing)[:5])  # line numbers, header is line 1
        raise ValueError(f"The label column {label!r} of {name} has {int(missing.sum())} missing value(s) "
                         f"(lines {rows}{', ...' if missing.sum() > 5 else ''}). Fill them in or delete those "
                         "rows, or choose another label column.")
    if df[label].nunique() < 2:
        raise ValueError(f"The label column {label!r} of {name} has one value ({df[label].iloc[0]!r}); "
                         "choose a column with at least two classes.")


def fit_summary(model, X_train, y_train, X_test=None, y_test=None) -> dict:
    """What Compare shows of one fit: rules, literals, MDL score and parts, train and test ROC-AUC."""
    from turs.metrics import roc_auc

    b = model.mdl_breakdown_
    out = {"rules": len(model.rules_), "literals": sum(len(r.conditions) for r in model.rules_),
           "mdl": b.total, "model_bits": b.model_bits, "data_bits": b.data_bits, "regret_bits": b.regret_bits,
           "train_auc": roc_auc(np.asarray(y_train), model.predict_proba(X_train), model.classes_),
           "test_auc": None, "text": str(model)}
    if X_test is not None and len(X_test):
        out["test_auc"] = roc_auc(np.asarray(y_test), model.predict_proba(X_test), model.classes_)
    return out


class Explorer(W.HBox):
    """The whole explorer: data and settings, Re-fit (cancellable), the search explorer, Compare.

    Parameters
    ----------
    X, y : optional
        Data to start with (a DataFrame and labels); otherwise ``dataset``.
    dataset : str, default ``"sim-overlap-blockade"`` (two columns, 17 beam iterations to step through)
        A name of :func:`available_datasets`, when ``X`` is not given.
    test_size : float, default 0.3
        Share of the rows held out (stratified, ``random_state``) for the test ROC-AUC; 0: none.
    fit : bool, default True
        Fit at once (in this process) with the settings; else wait for Re-fit.
    initial_rules : list, optional
        Rules (text or ``turs.Rule``) the first fit starts from (``fit(initial_rules=...)``):
        the searches go on around them (the overlap blockade of Fig. 3.1, say).
    **settings : ``TURSClassifier`` parameters of :data:`SETTINGS` (others are passed on too).

    Python API: ``load(name)``, ``refit(wait=False)``, ``cancel()``, ``job`` (the running
    :class:`~turs.explorer._fit.FitJob`), ``fits`` (every finished fit: name, settings, model,
    summary), ``compare(a, b)`` (indices into ``fits``), ``explorer`` (the current SearchExplorer),
    ``editor`` (the Edit rules tab: ``editor.try_rule(text)``, ``remove(i)``, ``continue_search()``).
    """

    def __init__(self, X=None, y=None, *, dataset: str = "sim-overlap-blockade", test_size: float = 0.3,
                 random_state: int = 0, fit: bool = True, max_points: int = 5000, initial_rules=None, **settings):
        super().__init__()
        self.test_size, self.random_state, self.max_points = float(test_size), int(random_state), int(max_points)
        self.extra = {k: v for k, v in settings.items() if k not in SETTINGS}
        self.fits: list[dict] = []
        self.job = None
        self.explorer = None
        self._lock = threading.RLock()
        self._watcher = None
        self._build({**SETTINGS, **{k: v for k, v in settings.items() if k in SETTINGS}})
        if X is not None:
            self._set_data(YOURS, X, y)
        else:
            self._set_data(dataset, *load_dataset(dataset))
        if fit:
            from turs import TURSClassifier

            given = {"initial_rules": list(initial_rules)} if initial_rules else {}
            model = TURSClassifier(record_trace=True, **self.settings()).fit(self.X_train, self.y_train, **given)
            self._install(model, self.settings(), len(initial_rules or ()))

    # ------------------------------------------------------------------ layout
    def _build(self, s):
        L = W.Layout
        wide = {"description_width": "100px"}
        names = available_datasets()
        # no description: the whole width of the side panel shows the dataset's name
        self.dataset = W.Dropdown(options=names, layout=L(width="100%"), tooltip="dataset")
        self.upload = W.FileUpload(accept=".csv", multiple=False, description="CSV\u2026", layout=L(width="110px"))
        self.label_column = W.Dropdown(options=[], description="label", style={"description_width": "50px"},
                                       layout=L(width="140px"))
        self.use_csv = W.Button(description="use CSV", layout=L(width="100%"), disabled=True,
                                tooltip="fit the uploaded file (on once a file is read)")
        self.csv_text = W.HTML("")
        self._csv = None
        self.beam_width = W.IntSlider(value=s["beam_width"], min=1, max=30, description="beam width", style=wide,
                                      continuous_update=False, layout=L(width="100%"))
        self.use_patience = W.Checkbox(value=s["use_patience"], description="diverse patience", indent=False)
        self.use_local_test = W.Checkbox(value=s["use_local_test"], description="local test", indent=False)
        self.use_auxiliary_beam = W.Checkbox(value=s["use_auxiliary_beam"], description="auxiliary beam",
                                             indent=False)
        self.search = W.Dropdown(options=["turs2", "thesis"], value=s["search"], description="search", style=wide,
                                 layout=L(width="100%"))
        self.model_encoding = W.Dropdown(options=["turs2", "thesis"], value=s["model_encoding"],
                                         description="model code", style=wide, layout=L(width="100%"))
        self.max_rules = W.BoundedIntText(value=s["max_rules"] or 0, min=0, max=500, description="max rules",
                                          tooltip="0: no limit", style=wide, layout=L(width="100%"))
        self.refit_button = W.Button(description="Re-fit", button_style="primary", layout=L(width="48%"))
        self.cancel_button = W.Button(description="Cancel", button_style="warning", disabled=True,
                                      layout=L(width="48%"))
        self.progress = W.FloatProgress(value=0, min=0, max=1, layout=L(width="100%"))
        self.progress_text = W.HTML("")
        self.data_text = W.HTML("")
        self.rule_box = W.Button(description="Type a rule / edit\u2026", layout=L(width="100%"),
                                 tooltip="the Edit rules tab: type a rule and see the MDL change it makes")
        self.rule_box.add_class("turs-open-edit")
        self.editor = RuleEditor(self)
        self.compare_a = W.Dropdown(options=[], description="A", style={"description_width": "20px"},
                                    layout=L(width="48%"))
        self.compare_b = W.Dropdown(options=[], description="B", style={"description_width": "20px"},
                                    layout=L(width="48%"))
        self.compare_html = W.HTML("<div class='turs-explorer'>Re-fit with other settings to compare two fits.</div>")
        self.search_area = W.VBox([W.HTML("fitting\u2026")])
        self.tabs = W.Tab(children=[self.search_area, W.VBox([W.HBox([self.compare_a, self.compare_b]),
                                                               self.compare_html]), self.editor],
                          titles=("Search", "Compare", "Edit rules"), layout=L(flex="1 1 auto", min_width="0"))
        side = W.VBox([
            W.HTML(_html.CSS + "<b>Data</b> (dataset)"), self.dataset, W.HBox([self.upload, self.label_column]), self.use_csv,
            self.csv_text, self.data_text, W.HTML("<b>Settings</b>"), self.beam_width, self.use_patience,
            self.use_local_test,
            self.use_auxiliary_beam, self.search, self.model_encoding, self.max_rules,
            W.HBox([self.refit_button, self.cancel_button]), self.progress, self.progress_text, self.rule_box,
        ], layout=L(width="262px", min_width="262px"))
        side.add_class("turs-explorer")
        side.add_class("turs-side")
        self.children = [side, self.tabs]
        self.add_class("turs-app")
        for name, w in {"turs-dataset": self.dataset, "turs-upload": self.upload, "turs-label": self.label_column,
                        "turs-use-csv": self.use_csv, "turs-beam-width": self.beam_width,
                        "turs-use-patience": self.use_patience, "turs-use-local-test": self.use_local_test,
                        "turs-use-aux": self.use_auxiliary_beam, "turs-search": self.search,
                        "turs-model-encoding": self.model_encoding, "turs-max-rules": self.max_rules,
                        "turs-refit": self.refit_button, "turs-cancel": self.cancel_button,
                        "turs-progress": self.progress, "turs-progress-text": self.progress_text,
                        "turs-compare": self.compare_html, "turs-tabs": self.tabs,
                        "turs-data-text": self.data_text, "turs-csv-text": self.csv_text}.items():
            w.add_class(name)
        self.dataset.observe(self._on_dataset, "value")
        self.upload.observe(self._on_upload, "value")
        self.use_csv.on_click(self._on_use_csv)
        self.refit_button.on_click(self._on_refit)
        self.cancel_button.on_click(self._on_cancel)
        self.compare_a.observe(self._on_compare, "value")
        self.compare_b.observe(self._on_compare, "value")
        self.rule_box.on_click(lambda _: setattr(self.tabs, "selected_index", 2))

    def _ipython_display_(self, **kwargs):
        """Shown with the page-wide key listener of the search explorer (``_keys.SCRIPT``)."""
        _keys.display_with_keys(self)

    def settings(self) -> dict:
        """The ``TURSClassifier`` parameters the controls show."""
        return {"beam_width": self.beam_width.value, "use_patience": self.use_patience.value,
                "use_local_test": self.use_local_test.value, "use_auxiliary_beam": self.use_auxiliary_beam.value,
                "search": self.search.value, "model_encoding": self.model_encoding.value,
                "max_rules": self.max_rules.value or None, **self.extra}

    # -------------------------------------------------------------------- data
    def _set_data(self, name, X, y):
        from sklearn.model_selection import train_test_split

        X = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        # the estimator's label checks, before the split (whose own message names no row and no fix)
        labels = _check_y(np.asarray(y).ravel(), len(X), "explore")
        y = pd.Series(labels, index=X.index, name=getattr(y, "name", None) or "label")
        self.data_name = name
        counts = y.value_counts()
        if self.test_size > 0 and counts.min() >= 2 and len(y) * self.test_size >= len(counts):
            tr, te = train_test_split(np.arange(len(y)), test_size=self.test_size, random_state=self.random_state,
                                      stratify=y.to_numpy())
            tr, te = np.sort(tr), np.sort(te)
        else:
            tr, te = np.arange(len(y)), np.arange(0)
        self.X_train, self.y_train = X.iloc[tr].reset_index(drop=True), y.iloc[tr].reset_index(drop=True)
        self.X_test, self.y_test = X.iloc[te].reset_index(drop=True), y.iloc[te].reset_index(drop=True)
        # a new entry in the list resets the dropdown to its first entry, which would load (and
        # fit) that dataset over this one: the dropdown is not listened to while it changes
        self.dataset.unobserve(self._on_dataset, "value")
        try:
            if name not in self.dataset.options:
                self.dataset.options = list(self.dataset.options) + [name]
            self.dataset.value = name
        finally:
            self.dataset.observe(self._on_dataset, "value")
        n_cat = sum(not pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]) for c in X.columns)
        self.data_text.value = (f"<div class='turs-note'>{len(X):,} rows ({len(tr):,} to fit, {len(te):,} held out "
                                f"for the test AUC), {X.shape[1]} columns ({n_cat} categorical), "
                                f"{len(counts)} classes</div>")

    def load(self, name: str, fit: bool = True):
        """Switch to a dataset of :func:`available_datasets` and (by default) re-fit on it."""
        self._set_data(name, *load_dataset(name))
        if fit:
            self.refit()

    @_html.shows_errors("loading the dataset")
    def _on_dataset(self, change):
        if change["new"] not in (YOURS,) and not str(change["new"]).startswith("upload: "):
            self.load(change["new"])

    @_html.shows_errors("reading the upload")
    def _on_upload(self, change):
        files = change["new"]
        if not files:
            return
        f = files[0] if isinstance(files, (list, tuple)) else next(iter(files.values()))
        content = f["content"] if isinstance(f, dict) else f.content
        name = str((f.get("name") if isinstance(f, dict) else getattr(f, "name", None)) or "upload")
        # until this file parses, "use CSV" must not fit an earlier upload
        self._csv = None
        self.use_csv.disabled = True
        self.label_column.options = []
        self.csv_text.value = ""
        try:
            df, label, notes = read_csv(content, name=repr(name))
        except ValueError as exc:
            self.csv_text.value = (f"<div class='turs-fail'>{_html.esc(exc)}</div><div class='turs-note'>"
                                   "\u201cuse CSV\u201d stays off until a file is read.</div>")
            return
        self._csv = (name, df)
        self.label_column.options = list(df.columns)
        self.label_column.value = label
        self.use_csv.disabled = False
        self.csv_text.value = (f"<div class='turs-note'>{_html.esc(name)}: {len(df):,} rows, {df.shape[1]} columns"
                               + "".join(f"; {_html.esc(n)}" for n in notes)
                               + ". Choose the label, then \u201cuse CSV\u201d.</div>")

    @_html.shows_errors("using the CSV")
    def _on_use_csv(self, _=None):
        self._use_csv()

    def _use_csv(self):
        if self._csv is None:
            raise ValueError("No CSV has been read: choose a file with \u201cCSV\u2026\u201d first.")
        name, df = self._csv
        label = self.label_column.value
        check_label(df, label, repr(name))
        self._set_data(f"upload: {name}", df.drop(columns=[label]), df[label])
        self.refit()

    def _show_error(self, exc, doing: str = ""):
        """A callback's exception, shown under the Re-fit button."""
        self.progress.bar_style = "danger"
        self.progress_text.value = _html.error_html(exc, doing)

    # -------------------------------------------------------------------- fits
    def refit(self, wait: bool = False, initial_rules=None):
        """Fit with the controls' settings in a worker process; the page stays responsive and
        shows the progress. ``wait=True`` blocks until it ends (for scripts and tests).
        ``initial_rules``: the search starts from these rules (the Edit tab's Continue)."""
        with self._lock:
            if self.job is not None and self.job.state == "running":
                self.job.cancel()
            settings = self.settings()
            self.job = FitJob(self.X_train, self.y_train, settings, initial_rules).start()
            self.refit_button.disabled, self.cancel_button.disabled = True, False
            self.progress.value, self.progress.bar_style = 0.05, "info"
            self.progress_text.value = "fitting\u2026"
            job = self.job
        if wait:
            job.wait()
            self._after(job, settings)
        else:
            self._watcher = threading.Thread(target=self._watch, args=(job, settings), daemon=True)
            self._watcher.start()
        return job

    @_html.shows_errors("re-fitting")
    def _on_refit(self, _=None):
        self.refit()

    @_html.shows_errors("cancelling")
    def _on_cancel(self, _=None):
        self.cancel()

    @_html.shows_errors("comparing")
    def _on_compare(self, _=None):
        self._show_compare()

    @_html.shows_errors("showing the fit")
    def _watch(self, job, settings):
        while job.poll() == "running":
            with self._lock:
                if job is self.job:
                    self.progress.value = min(0.95, 0.05 + 0.9 * (1 - 1 / (1 + job.elapsed / 5)))
                    mdl = job.postfix.get("mdl")
                    self.progress_text.value = (f"fitting\u2026 {job.elapsed:.1f} s, {job.rules} "
                                                f"rule{'s' if job.rules != 1 else ''} so far"
                                                + (f", MDL {mdl} bits" if mdl else ""))
            threading.Event().wait(0.2)
        self._after(job, settings)

    def _after(self, job, settings):
        with self._lock:
            if job is not self.job:
                return
            self.refit_button.disabled, self.cancel_button.disabled = False, True
            if job.state == "done":
                # "fitted" only once the fit is on screen (Search, Compare, Edit): a view that cannot be
                # shown leaves its error here instead
                self.progress_text.value = "showing the fit\u2026"
                self._install(job.model, settings, len(job.initial_rules or ()))
                self.progress.value, self.progress.bar_style = 1.0, "success"
                n = len(job.model.rules_)
                self.progress_text.value = f"fitted in {job.seconds:.1f} s: {n} rule{'s' if n != 1 else ''}"
            elif job.state == "cancelled":
                self.progress.value, self.progress.bar_style = 0.0, "warning"
                self.progress_text.value = f"cancelled after {job.seconds:.1f} s (the worker was stopped)"
            else:
                self.progress.bar_style = "danger"
                self.progress_text.value = f"<span class='turs-fail'>fit failed: {_html.esc(job.error)}</span>"

    def cancel(self):
        """Stop the running fit (its worker process is terminated); the current fit stays."""
        with self._lock:
            job = self.job
        if job is not None and job.state == "running":
            job.cancel()
            self._after(job, None)

    def _install(self, model, settings, n_given: int = 0):
        summary = fit_summary(model, self.X_train, self.y_train, self.X_test, self.y_test)
        changed = {k: v for k, v in settings.items() if SETTINGS.get(k, object()) != v}
        name = (f"fit {len(self.fits) + 1}: {self.data_name}, "
                + (", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults")
                + (f", from {n_given} given rule{'s' if n_given != 1 else ''}" if n_given else ""))
        self.fits.append({"name": name, "settings": dict(settings), "model": model, "summary": summary,
                          "data": self.data_name})
        # the previous fit's view goes first: a view that cannot be built leaves its error, not a stale view
        self.explorer = None
        self.search_area.children = [W.HTML("showing the fit\u2026")]
        try:
            self.explorer = SearchExplorer(model, self.X_train, self.y_train, max_points=self.max_points)
            self.search_area.children = [self.explorer]
            self.editor.set_base(model)
        except Exception as exc:
            self.search_area.children = [W.HTML(_html.error_html(exc, f"showing {name}"))]
            self._show_error(exc, f"the fit is done but cannot be shown ({name})")
            raise
        options = [(f["name"], i) for i, f in enumerate(self.fits)]
        self.compare_a.options, self.compare_b.options = options, options
        self.compare_a.value = max(len(self.fits) - 2, 0)
        self.compare_b.value = len(self.fits) - 1
        self._show_compare()

    def compare(self, a: int, b: int) -> str:
        """The Compare panel of fits ``a`` and ``b`` (indices into :attr:`fits`) as HTML."""
        fa, fb = self.fits[a], self.fits[b]
        rows = []
        labels = [("rules", "rules", "{:d}"), ("literals", "literals", "{:d}"), ("MDL score (bits)", "mdl", "{:.2f}"),
                  ("\u2003model code L(M)", "model_bits", "{:.2f}"), ("\u2003data code", "data_bits", "{:.2f}"),
                  ("\u2003regret", "regret_bits", "{:.2f}"), ("train ROC-AUC", "train_auc", "{:.3f}"),
                  ("test ROC-AUC", "test_auc", "{:.3f}")]
        for label, key, spec in labels:
            rows.append((label, _html.fmt(fa["summary"][key], spec), _html.fmt(fb["summary"][key], spec)))
        same = []
        for key in ["data"] + sorted(set(fa["settings"]) | set(fb["settings"])):
            va, vb = (fa[key], fb[key]) if key == "data" else (fa["settings"].get(key), fb["settings"].get(key))
            if va != vb:
                rows.append((key, va, vb))
            else:
                same.append(f"{key}={va}")
        body = "".join(f"<tr{' class=turs-differs' if str(va) != str(vb) else ''}><td style='text-align:left'>"
                       f"{_html.esc(k)}</td><td>{_html.esc(va)}</td><td>{_html.esc(vb)}</td></tr>"
                       for k, va, vb in rows)
        return (f"<div class='turs-explorer turs-compare-panel'><table class='turs-table'><thead><tr><th></th>"
                f"<th>A: {_html.esc(fa['name'])}</th><th>B: {_html.esc(fb['name'])}</th></tr></thead>"
                f"<tbody>{body}</tbody></table><style>.turs-differs td {{font-weight: bold;}} .turs-compare-panel "
                f"table.turs-table th, .turs-compare-panel table.turs-table td {{white-space: normal; "
                f"overflow-wrap: break-word;}} .turs-compare-panel pre.turs-pre {{word-break: normal; "
                f"overflow-wrap: break-word;}}</style>"
                f"<div class='turs-note'>the same in both: {_html.esc(', '.join(same))}</div>"
                f"<div style='display:flex; gap:12px'><div style='flex:1; min-width:0'><b>A</b>"
                f"{_html.pre(fa['summary']['text'])}</div><div style='flex:1; min-width:0'><b>B</b>"
                f"{_html.pre(fb['summary']['text'])}</div></div></div>")

    def _show_compare(self):
        if self.compare_a.value is None or self.compare_b.value is None:
            return
        self.compare_html.value = self.compare(self.compare_a.value, self.compare_b.value)


def explore(X=None, y=None, **settings) -> Explorer:
    """The explorer on a DataFrame ``X`` and labels ``y`` (or ``dataset=...``), fitted with
    ``settings`` (``TURSClassifier`` parameters; ``test_size``, ``random_state``, ``max_points``
    as in :class:`Explorer`). Display the result in Jupyter.

    >>> from turs.explorer import explore                    # doctest: +SKIP
    >>> explore(X, y, beam_width=5, use_local_test=False)     # doctest: +SKIP
    """
    return Explorer(X, y, **settings)
