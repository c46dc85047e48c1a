"""``SearchExplorer``: an ipywidgets app that steps through a recorded TURS search."""
from __future__ import annotations

import html
import math
import time
from collections import OrderedDict

import ipywidgets as W

from ..trace import SearchTrace
from . import _render
from ._view import TraceView

_CSS = """
<style>
.turs-explorer table.turs-table {border-collapse: collapse; font-size: 12px; font-family: sans-serif;}
.turs-explorer table.turs-table th, .turs-explorer table.turs-table td {
  border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: right; white-space: nowrap;}
.turs-explorer table.turs-table td.turs-cond {text-align: left; white-space: normal; max-width: 420px;}
.turs-explorer table.turs-table tr.turs-chosen td {background: #fff3c4;}
.turs-explorer table.turs-table tr.turs-selected td {border-top: 2px solid #d62728; border-bottom: 2px solid #d62728;}
.turs-explorer table.turs-table tr.turs-selected td:first-child {border-left: 2px solid #d62728;}
.turs-explorer table.turs-table tr.turs-selected td:last-child {border-right: 2px solid #d62728;}
.turs-explorer table.turs-table caption {text-align: left; font-weight: bold; padding: 4px 0;}
.turs-explorer pre.turs-pre {font-size: 12px; margin: 0; white-space: pre-wrap;
  font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace;}
.turs-explorer .turs-fail {color: #b00020;}
</style>
"""

_COLUMNS = [  # (header, key, format) of the beam tables
    ("#", None, None),
    ("conditions", "conditions", None),
    ("coverage", "coverage", "{:d}"),
    ("outside rule set", "coverage_uncovered", "{:d}"),
    ("r (Eq. 3.21)", "r", "{:.4g}"),
    ("R (Eq. 3.24)", "R", "{:.4g}"),
    ("bucket", None, None),
    ("local test", None, None),
    ("MDL after", "mdl_after", "{:.2f}"),
    ("class counts", "class_counts", None),
    ("chosen", "chosen", None),
]


class SearchExplorer(W.VBox):
    """Step through the search trace of a fitted ``TURSClassifier`` (thesis §3.5).

    ``SearchExplorer(model_or_trace, X=None, y=None)`` shows, for each rule search and each of its
    beam iterations, the main beam (learning speed score ``r``, Eq. 3.21) and the auxiliary beam
    (complementary score ``R``, Eq. 3.24) with coverage, coverage outside the current rule set,
    patience bucket (Eq. 3.23) and local-test outcome (Eq. 3.22, 3.25); the MDL trajectory
    (Fig. 3.6) with the current search highlighted; the data (when ``X``, ``y`` are given) with
    the boxes of the rules so far and of a selected candidate (Fig. 3.1); and the rule set before
    the current search. It reads the trace only and never re-runs the search.

    Parameters
    ----------
    model_or_trace : TURSClassifier fitted with ``record_trace=True``, or a ``SearchTrace``
        (or its ``to_dict()`` / ``to_json()``).
    X, y : the training data, optional
        Needed for the scatter plot; ``X`` with the columns the model was fitted on.
    max_points : int, default 5000
        At most this many instances are drawn in the scatter plot.

    Python API (indices as in the trace: from 0)
    -------------------------------------------
    ``show(rule_index, iteration)``, ``step_forward()``, ``step_back()``, ``rule_index``,
    ``iteration``, ``selected`` (``("main"|"aux", index)``), ``main_table()``, ``aux_table()``,
    ``rejected_table()`` (DataFrames), ``current_boxes()``, ``rule_boxes()``, ``candidate_box()``,
    ``covered_mask()``, ``ruleset_text()``, ``redraw_seconds`` (wall time of each redraw).

    Widgets carry CSS classes: ``turs-explorer`` (the app), ``turs-rule-step``,
    ``turs-beam-step``, ``turs-step``, ``turs-play``, ``turs-prev``, ``turs-next``,
    ``turs-status``, ``turs-main-table``, ``turs-aux-table``, ``turs-rejected-table``,
    ``turs-mdl-plot``, ``turs-plot`` (the scatter plot), ``turs-x-feature``, ``turs-y-feature``,
    ``turs-candidate``, ``turs-ruleset``, ``turs-final-model``.
    """

    def __init__(self, model_or_trace, X=None, y=None, *, max_points: int = 5000, cache_size: int = 512):
        trace, model = _resolve(model_or_trace)
        super().__init__()
        self.view = TraceView(trace, model, X, y)
        if self.view.n_searches == 0:
            raise ValueError("The search trace has no rule search; there is nothing to explore.")
        self.max_points = int(max_points)
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = int(cache_size)
        self.redraw_seconds: list[float] = []
        self._busy = False
        self._k, self._it = 0, 0
        self.selected = self.view.default_candidate(0, 0)
        self._build()
        self._redraw()

    # ------------------------------------------------------------------ layout
    def _build(self):
        v = self.view
        n_steps = len(v.steps)
        self.rule_step = W.IntSlider(value=1, min=1, max=max(v.n_searches, 1), description="rule search",
                                     continuous_update=False, style={"description_width": "90px"},
                                     layout=W.Layout(width="360px"))
        self.beam_step = W.IntSlider(value=1, min=1, max=max(v.n_iterations(0), 1), description="beam iteration",
                                     continuous_update=False, style={"description_width": "100px"},
                                     layout=W.Layout(width="360px"))
        self.step = W.IntSlider(value=0, min=0, max=max(n_steps - 1, 0), description="step",
                                continuous_update=False, style={"description_width": "40px"},
                                layout=W.Layout(width="420px"))
        self.play = W.Play(value=0, min=0, max=max(n_steps - 1, 0), interval=1500, description="play")
        W.link((self.play, "value"), (self.step, "value"))
        self.prev_button = W.Button(description="\u25c0 previous", layout=W.Layout(width="110px"),
                                    tooltip="previous beam iteration")
        self.next_button = W.Button(description="next \u25b6", layout=W.Layout(width="110px"),
                                    tooltip="next beam iteration")
        self.status = W.HTML()
        feats = [(name, j) for j, name in enumerate(v.feature_names)]
        feats = [f for f in feats if f[1] in v.numeric_columns] + [f for f in feats if f[1] not in v.numeric_columns]
        fx, fy = v.default_features()
        self.x_feature = W.Dropdown(options=feats, value=fx, description="x", layout=W.Layout(width="260px"))
        self.y_feature = W.Dropdown(options=feats, value=fy, description="y", layout=W.Layout(width="260px"))
        self.candidate = W.Dropdown(options=[], description="candidate", layout=W.Layout(width="540px"),
                                    style={"description_width": "70px"})
        self.mdl_plot = W.Image(format="png")
        self.plot = W.Image(format="png")
        self.main_html, self.aux_html, self.rejected_html = W.HTML(), W.HTML(), W.HTML()
        self.ruleset = W.HTML()
        self.final_model = W.HTML(_pre(v.final_text()))
        parts = {
            "turs-rule-step": self.rule_step, "turs-beam-step": self.beam_step, "turs-step": self.step,
            "turs-play": self.play, "turs-prev": self.prev_button, "turs-next": self.next_button,
            "turs-status": self.status, "turs-x-feature": self.x_feature, "turs-y-feature": self.y_feature,
            "turs-candidate": self.candidate, "turs-mdl-plot": self.mdl_plot, "turs-plot": self.plot,
            "turs-main-table": self.main_html, "turs-aux-table": self.aux_html,
            "turs-rejected-table": self.rejected_html, "turs-ruleset": self.ruleset,
            "turs-final-model": self.final_model,
        }
        for cls, w in parts.items():
            w.add_class(cls)
        self.plot.add_class("turs-scatter-plot")
        final_box = W.Accordion(children=[self.final_model], titles=("Final model (str(model))",))
        rejected_box = W.Accordion(children=[self.rejected_html],
                                   titles=("Best candidates rejected by the local test (Eq. 3.22)",))
        self.children = [
            W.HTML(_CSS + f"<h3 style='margin:4px 0'>TURS search explorer</h3>"
                   f"<div>{v.n_searches} rule searches, {n_steps} beam iterations in all; "
                   f"{len(v.accepted_before(v.n_searches))} rules accepted.</div>"),
            W.HBox([self.rule_step, self.beam_step]),
            W.HBox([self.play, self.prev_button, self.next_button, self.step]),
            self.status,
            W.HBox([W.VBox([self.mdl_plot]),
                    W.VBox([W.HBox([self.x_feature, self.y_feature]), self.plot])]),
            self.candidate,
            self.main_html, self.aux_html, rejected_box,
            W.HTML("<b>Rule set before this rule search</b> (as the estimator prints it)"),
            self.ruleset, final_box,
        ]
        self.add_class("turs-explorer")
        self.rule_step.observe(self._on_rule, "value")
        self.beam_step.observe(self._on_beam, "value")
        self.step.observe(self._on_step, "value")
        self.prev_button.on_click(lambda _: self.step_back())
        self.next_button.on_click(lambda _: self.step_forward())
        self.candidate.observe(self._on_candidate, "value")
        self.x_feature.observe(self._on_feature, "value")
        self.y_feature.observe(self._on_feature, "value")

    # ----------------------------------------------------------- navigation API
    @property
    def rule_index(self) -> int:
        """The rule search shown (from 0, as ``trace.searches``)."""
        return self._k

    @property
    def iteration(self) -> int:
        """The beam iteration shown (from 0, as ``search["iterations"]``)."""
        return self._it

    def show(self, rule_index: int, iteration: int = 0, candidate=None):
        """Show beam iteration ``iteration`` of rule search ``rule_index``; select ``candidate``
        (``("main"|"aux", index)``; default: the best of the main beam)."""
        v = self.view
        if not 0 <= rule_index < v.n_searches:
            raise ValueError(f"rule_index must be in [0, {v.n_searches - 1}]. Got {rule_index}.")
        n_it = max(v.n_iterations(rule_index), 1)
        if not 0 <= iteration < n_it:
            raise ValueError(f"iteration must be in [0, {n_it - 1}] for rule search {rule_index}. Got {iteration}.")
        self._k, self._it = int(rule_index), int(iteration)
        self.selected = candidate if candidate is not None else v.default_candidate(self._k, self._it)
        self._sync_controls()
        self._redraw()

    def step_forward(self):
        """The next beam iteration (across rule searches)."""
        s = self.view.step_of(self._k, self._it)
        if s + 1 < len(self.view.steps):
            self.show(*self.view.steps[s + 1])

    def step_back(self):
        s = self.view.step_of(self._k, self._it)
        if s > 0:
            self.show(*self.view.steps[s - 1])

    def _on_rule(self, change):
        if not self._busy:
            self.show(change["new"] - 1, 0)

    def _on_beam(self, change):
        if not self._busy:
            self.show(self._k, change["new"] - 1)

    def _on_step(self, change):
        if not self._busy:
            self.show(*self.view.steps[change["new"]])

    def _on_candidate(self, change):
        if not self._busy and change["new"] is not None and change["new"] != self.selected:
            self.selected = change["new"]
            self._redraw()

    def _on_feature(self, change):
        if not self._busy:
            self._redraw()

    def _sync_controls(self):
        v = self.view
        self._busy = True
        try:
            n_it = max(v.n_iterations(self._k), 1)
            self.rule_step.value = self._k + 1
            if self.beam_step.max != n_it:
                if self.beam_step.value > n_it:
                    self.beam_step.value = 1
                self.beam_step.max = n_it
            self.beam_step.value = self._it + 1
            self.step.value = v.step_of(self._k, self._it)
        finally:
            self._busy = False

    # ------------------------------------------------------------- data access
    def _candidate_dict(self):
        if self.selected is None:
            return None
        which, i = self.selected
        cands = self.view.candidates(self._k, self._it, which)
        return cands[i] if i < len(cands) else None

    def main_table(self):
        """The main beam at the current step (DataFrame; ``chosen`` marks the search's final rule)."""
        return self.view.table(self._k, self._it, "main")

    def aux_table(self):
        """The auxiliary beam at the current step."""
        return self.view.table(self._k, self._it, "aux")

    def rejected_table(self):
        """The best candidates the local test rejected at the current step."""
        return self.view.table(self._k, self._it, "rejected")

    def rule_boxes(self) -> list:
        """``(x0, x1, y0, y1)`` of each rule accepted before the current search, on the plotted features."""
        fx, fy = self.x_feature.value, self.y_feature.value
        return [self.view.box(c["literals"], fx, fy) for c in self.view.accepted_before(self._k)]

    def candidate_box(self):
        """``(x0, x1, y0, y1)`` of the selected candidate, or None."""
        c = self._candidate_dict()
        return None if c is None else self.view.box(c["literals"], self.x_feature.value, self.y_feature.value)

    def current_boxes(self) -> list:
        """The plotted boxes: the rules so far (in order), then the selected candidate's (if any)."""
        box = self.candidate_box()
        return self.rule_boxes() + ([box] if box is not None else [])

    def covered_mask(self):
        """Which rows of ``X`` the selected candidate covers (None without data or candidate)."""
        c = self._candidate_dict()
        return None if c is None or not self.view.has_data else self.view.cover_mask(c["literals"])

    def ruleset_text(self) -> str:
        """The rule set before the current search, as the estimator prints it."""
        return self.view.ruleset_text(self._k)

    # ------------------------------------------------------------------ drawing
    def _cached(self, key, make):
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        value = make()
        self._cache[key] = value
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return value

    def _redraw(self):
        t0 = time.perf_counter()
        v, k, it = self.view, self._k, self._it
        cand = self._candidate_dict()
        ckey = None if cand is None else (self.selected[0], tuple(map(tuple, cand["literals"])))
        fx, fy = self.x_feature.value, self.y_feature.value
        label = f"{self.selected[0]} #{self.selected[1]}: " + " AND ".join(cand["conditions"]) if cand else ""
        mdl_png = self._cached(("mdl", k, ckey), lambda: _render.mdl_png(v, k, cand))
        scatter_png = self._cached(("scatter", k, ckey, fx, fy),
                                   lambda: _render.scatter_png(v, k, cand, fx, fy, label, self.max_points))
        s = v.search(k)
        n_it = v.n_iterations(k)
        verdict = ("accepted" if s["accepted"] else "rejected: adding its best rule would not lower the MDL score"
                   if s["chosen"] else "no candidate")
        chosen = " AND ".join(s["chosen"]["conditions"]) if s["chosen"] else "(none)"
        status = (f"<div class='turs-status-text'><b>Rule search {k + 1} of {v.n_searches}</b> ({verdict}) "
                  f"&middot; <b>beam iteration {it + 1} of {max(n_it, 1)}</b>"
                  f"{'' if n_it else ' (the beams were empty)'} &middot; MDL before: {s['mdl_before']:.2f} bits"
                  f"<br>chosen rule of this search: <code>{html.escape(chosen)}</code></div>")
        opts = []
        for which in ("main", "aux"):
            for i, c in enumerate(v.candidates(k, it, which)):
                text = " AND ".join(c["conditions"])
                opts.append((f"{which} #{i}: {text}", (which, i)))
        self._busy = True
        try:
            if list(self.candidate.options) != opts:
                self.candidate.options = opts
            self.candidate.value = self.selected if self.selected in [o[1] for o in opts] else None
            self.status.value = status
            self.main_html.value = _table_html(v, k, it, "main", self.selected,
                                               "Main beam (learning speed score r, Eq. 3.21; patience bucket Eq. 3.23)")
            self.aux_html.value = _table_html(v, k, it, "aux", self.selected,
                                              "Auxiliary beam (complementary score R, Eq. 3.24; bucket of |S' \\ M|)")
            self.rejected_html.value = _table_html(v, k, it, "rejected", None,
                                                   "Rejected by the local test")
            self.ruleset.value = _pre(v.ruleset_text(k))
            self.mdl_plot.value = mdl_png
            self.plot.value = scatter_png
        finally:
            self._busy = False
        self.redraw_seconds.append(time.perf_counter() - t0)


# ---------------------------------------------------------------------------- helpers
def _resolve(obj):
    """``(trace, model_or_None)`` from a fitted model, a SearchTrace, its dict or its JSON."""
    if isinstance(obj, SearchTrace):
        return obj, None
    if isinstance(obj, dict):
        return SearchTrace.from_dict(obj), None
    if isinstance(obj, str):
        return SearchTrace.from_json(obj), None
    if hasattr(obj, "get_params") and hasattr(obj, "record_trace"):
        if not hasattr(obj, "rules_"):
            raise ValueError("This TURSClassifier is not fitted yet; fit it with record_trace=True first.")
        if getattr(obj, "trace_", None) is None:
            raise ValueError("This TURSClassifier was fitted without a search trace; refit it with "
                             "TURSClassifier(record_trace=True, ...) to explore its search.")
        return obj.trace_, obj
    raise TypeError(f"SearchExplorer needs a fitted TURSClassifier or a SearchTrace. Got {type(obj).__name__}.")


def _pre(text: str) -> str:
    return f"<pre class='turs-pre'>{html.escape(text)}</pre>"


def _fmt(v, fmt):
    if fmt is None:
        return html.escape(str(v))
    if isinstance(v, float) and math.isnan(v):
        return "&ndash;"
    return fmt.format(v)


def _table_html(view, k, it, which, selected, caption) -> str:
    df = view.table(k, it, which)
    bucket_key, test_key = ("aux_bucket", "aux_local_test") if which == "aux" else ("bucket", "local_test")
    head = "".join(f"<th>{html.escape(h)}</th>" for h, _, _ in _COLUMNS)
    rows = []
    for i, row in enumerate(df.itertuples(index=False)):
        r = row._asdict()
        cells = []
        for h, key, fmt in _COLUMNS:
            if h == "#":
                cells.append(f"<td>{i}</td>")
            elif key == "conditions":
                cells.append(f"<td class='turs-cond'>{html.escape(r['conditions'])}</td>")
            elif h == "bucket":
                cells.append(f"<td>{r[bucket_key]}</td>")
            elif h == "local test":
                ok = bool(r[test_key])
                cells.append(f"<td class='{'turs-pass' if ok else 'turs-fail'}'>{'pass' if ok else 'fail'}</td>")
            elif key == "chosen":
                cells.append(f"<td>{'&#9733; chosen' if r['chosen'] else ''}</td>")
            elif key == "class_counts":
                cells.append(f"<td>{html.escape(', '.join(str(x) for x in r['class_counts']))}</td>")
            else:
                cells.append(f"<td>{_fmt(r[key], fmt)}</td>")
        classes = []
        if r["chosen"]:
            classes.append("turs-chosen")
        if selected == (which, i):
            classes.append("turs-selected")
        rows.append(f"<tr class='{' '.join(classes)}' data-index='{i}'>" + "".join(cells) + "</tr>")
    body = "".join(rows) if rows else f"<tr><td colspan='{len(_COLUMNS)}'>(empty)</td></tr>"
    n = len(df)
    return (f"<table class='turs-table turs-{which}'><caption>{html.escape(caption)} &middot; {n} candidates"
            f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
