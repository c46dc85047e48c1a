"""Why this prediction (``PredictionMixin``): click a point of the data picture and see, step by
step, how the fitted rule set gives it its class probabilities (thesis Eq. 3.5).

1. the rules of the final rule set that cover the row, each with its own cover's class counts;
2. the union of their covers: its training rows and their class counts
   (:func:`turs.union_estimate.union_counts` over the cover patterns of the training rows,
   :func:`turs.union_estimate.pattern_counts`), drawn solid;
3. the probabilities: each class's count divided by the union's rows; a row no rule covers gets
   the else-rule's (the rows no rule covers). These are ``model.predict_proba`` of the row.

Each step is a data picture (the row a star); every picture exports as SVG (``svg()``). The
mixin reads the explorer's ``view``, ``data``, ``max_points``, ``_rule_covers`` (via
``_covers_before``), ``_data_geometry`` and its axes.
"""
from __future__ import annotations

import base64

import ipywidgets as W
import numpy as np

from .. import union_estimate
from . import _draw, _html

#: How far (in pixels of the picture) a click may be from a drawn point to pick it.
PICK_RADIUS_PX = 12
STEPS = ("1 rules", "2 union", "3 probabilities")


class PredictionMixin:
    """The *Prediction* panel of a :class:`~turs.explorer.SearchExplorer` (see the module's docstring)."""

    def _build_prediction(self):
        self.prediction_html = W.HTML(
            "<div class='turs-panel turs-note'>Click a point of the Data picture: this panel shows why the "
            "fitted rule set predicts what it does for that row, step by step.</div>")
        self.prediction_html.add_class("turs-prediction")
        self.prediction_step = W.ToggleButtons(options=[(label, i + 1) for i, label in enumerate(STEPS)], value=1,
                                               style={"button_width": "auto"}, layout=W.Layout(display="none"))
        self.prediction_step.add_class("turs-prediction-step")
        self.prediction_step.observe(self._on_prediction_step, "value")
        self.prediction_clear = W.Button(description="back to the search", layout=W.Layout(width="auto",
                                                                                           display="none"))
        self.prediction_clear.add_class("turs-prediction-clear")
        self.prediction_clear.on_click(self._on_prediction_clear)
        self.svg_button = W.Button(description="SVG", layout=W.Layout(width="auto"),
                                   tooltip="the picture shown, as an SVG file for slides (its text stays text)")
        self.svg_button.add_class("turs-svg")
        self.svg_button.on_click(self._on_svg)
        self.svg_link = W.HTML()
        self.svg_link.add_class("turs-svg-download")
        self._click_events = None
        try:
            from ipyevents import Event
        except ImportError:  # pragma: no cover - ipyevents is in the explorer extra
            return
        self._click_events = Event(source=self.plot, watched_events=["click"])
        self._click_events.on_dom_event(self._on_plot_click)

    # ------------------------------------------------------------------ API
    def prediction(self, row: int | None = None) -> dict:
        """Why the fitted rule set predicts what it does for training row ``row`` (default: the
        clicked one): ``rules`` (indices of the covering rules, from 0), ``rule_labels`` (R1...),
        ``rule_counts`` (each rule's own class counts), ``union_mask`` (the rows of the union of
        their covers; the rows no rule covers when none does), ``counts`` (its class counts),
        ``n`` (its rows), ``proba`` (the probabilities: ``counts / n``, the else-rule's
        probabilities when no rule covers the row) and ``model_proba`` (``model.predict_proba``
        of the row, computed, to check ``proba`` against; None without a model or data)."""
        row = self.point if row is None else int(row)
        v = self.view
        if row is None or not v.has_data:
            raise ValueError("No row to explain: click a point of the Data picture, or pass row= (a training "
                             "row index, from 0).")
        if not 0 <= row < len(v.y_codes):
            raise ValueError(f"row must be in [0, {len(v.y_codes) - 1}] (a training row). Got {row}.")
        covers = self._covers_before(v.n_searches)
        n_classes = len(v.classes)
        rules = [int(i) for i in np.flatnonzero(covers[row])]
        patterns, counts = union_estimate.pattern_counts(covers, v.y_codes, n_classes)
        rule_counts = [np.bincount(v.y_codes[covers[:, i]], minlength=n_classes) for i in rules]
        if rules:
            query = np.zeros((1, covers.shape[1]), dtype=bool)
            query[0, rules] = True
            union = union_estimate.union_counts(query, patterns, counts)[0].astype(np.int64)
            mask = covers[:, rules].any(axis=1)
            proba = union / union.sum()
        else:
            mask = ~covers.any(axis=1)
            union = np.bincount(v.y_codes[mask], minlength=n_classes).astype(np.int64)
            else_rule = getattr(v.model, "else_rule_", None)
            proba = (np.asarray(else_rule.probabilities, dtype=float) if else_rule is not None
                     else union / max(union.sum(), 1))
        model_proba = None
        if v.model is not None and self.data is not None and hasattr(v.model, "predict_proba"):
            model_proba = np.asarray(v.model.predict_proba(self.data.df.iloc[[row]]), dtype=float)[0]
        return {"row": row, "rules": rules, "rule_labels": [f"R{i + 1}" for i in rules], "rule_counts": rule_counts,
                "union_mask": mask, "counts": union, "n": int(union.sum()), "proba": proba,
                "model_proba": model_proba, "label": v.classes[int(v.y_codes[row])]}

    def explain_point(self, row: int, step: int = 1):
        """Explain training row ``row``'s prediction (the Prediction panel, the Data picture at
        ``step`` 1-3), as a click on its point does."""
        self.prediction(row)  # checks the row
        self.point, self.point_step = int(row), int(step)
        self._show_prediction()

    def clear_point(self):
        """Back to the search's pictures."""
        self.point = None
        self._show_prediction()

    def point_pixel(self, row: int) -> tuple[float, float]:
        """Where training row ``row`` is drawn in the Data picture as last drawn (pixels of the
        PNG from its top-left corner; the picture is shown at its pixel size)."""
        g = self._data_geometry
        if g is None or self.data is None:
            raise ValueError("The Data picture has not been drawn; show its tab first.")
        rows = np.array([int(row)])
        px, py = _draw.data_to_pixel(g, self.data.positions(self.x_feature.value, rows),
                                     self.data.positions(self.y_feature.value, rows))
        return float(px[0]), float(py[0])

    def row_at_pixel(self, x: float, y: float):
        """The drawn row nearest to pixel ``(x, y)`` of the Data picture (within
        :data:`PICK_RADIUS_PX`), or None."""
        g = self._data_geometry
        if g is None or self.data is None:
            return None
        rows, _ = self.data.draw_rows(self.max_points)
        px, py = _draw.data_to_pixel(g, self.data.positions(self.x_feature.value, rows),
                                     self.data.positions(self.y_feature.value, rows))
        d2 = (px - x) ** 2 + (py - y) ** 2
        best = int(np.argmin(d2)) if len(d2) else None
        if best is None or d2[best] > PICK_RADIUS_PX ** 2:
            return None
        return int(rows[best])

    # -------------------------------------------------------------- widgets
    @_html.shows_errors("picking the point")
    def _on_plot_click(self, event):
        x, y = event.get("dataX", event.get("relativeX")), event.get("dataY", event.get("relativeY"))
        if x is None or y is None:
            return
        row = self.row_at_pixel(float(x), float(y))
        if row is None:
            self.prediction_html.value = ("<div class='turs-panel turs-note'>No point there: click on a point of "
                                          "the Data picture.</div>")
            self.panels.selected_index = self.PREDICTION_TAB
            return
        self.explain_point(row, 1)

    @_html.shows_errors("showing the step")
    def _on_prediction_step(self, change):
        if not self._busy and self.point is not None:
            self.point_step = int(change["new"])
            self._show_prediction()

    @_html.shows_errors("going back to the search")
    def _on_prediction_clear(self, _=None):
        self.clear_point()

    @_html.shows_errors("making the SVG")
    def _on_svg(self, _=None):
        self.svg_link.value = svg_link(self.svg(), self._svg_name())

    def _svg_name(self) -> str:
        from ._pictures import FIGURES

        kind = FIGURES[self.figures.selected_index or 0]
        where = f"search{self._k + 1}-iteration{self._it + 1}"
        if kind == "data" and self.point is not None:
            return f"turs-prediction-row{self.point}-step{self.point_step}.svg"
        return f"turs-{kind}-{where}.svg"

    def _sync_prediction_controls(self):
        """The step buttons are shown while a point is explained (a step of the search hides them)."""
        shown = self.point is not None
        self.prediction_step.layout.display = "flex" if shown else "none"
        self.prediction_clear.layout.display = "inline-flex" if shown else "none"

    def _show_prediction(self):
        """The panel and the picture after the point or its step changed."""
        self.svg_link.value = ""
        shown = self.point is not None
        self._sync_prediction_controls()
        if shown:
            self._busy = True
            try:
                self.prediction_step.value = self.point_step
            finally:
                self._busy = False
            self.prediction_html.value = prediction_html(self, self.prediction())
            self.panels.selected_index = self.PREDICTION_TAB
            self.figures.selected_index = 0
        else:
            self.prediction_html.value = ("<div class='turs-panel turs-note'>Click a point of the Data picture: "
                                          "this panel shows why the fitted rule set predicts what it does for "
                                          "that row, step by step.</div>")
        self._redraw()


def svg_link(svg: bytes, name: str) -> str:
    """A download link of an SVG file (a data URL: no server route needed)."""
    data = base64.b64encode(svg).decode("ascii")
    return (f"<a class='turs-svg-link' download='{_html.esc(name)}' title='{_html.esc(name)}' "
            f"href='data:image/svg+xml;base64,{data}'>save SVG</a> <span class='turs-note'>"
            f"({len(svg) / 1024:.0f} kB)</span>")


def prediction_html(ex, e: dict) -> str:
    """The three steps in words and numbers (the panel beside the picture)."""
    v = ex.view
    classes = [str(c) for c in v.classes]
    row = e["row"]
    values = ", ".join(f"{_html.esc(c)} = {_html.esc(_value(ex.data.df[c].iloc[row]))}" for c in
                       (ex.x_feature.value, ex.y_feature.value))
    final = v.accepted_before(v.n_searches)
    out = [f"<div class='turs-panel turs-why-prediction'><b>Why this prediction</b> "
           f"<span class='turs-note'>(the fitted rule set, {len(final)} rules)</span>",
           f"<div>the star: training row {row} (rows numbered from 0), {values}; its class in the data: "
           f"<b>{_html.esc(e['label'])}</b></div>"]
    best = int(np.argmax(e["proba"]))
    # the answer first (on a projector the steps below it may run past the first screen)
    out.append(f"<div class='turs-predict-answer'>The rule set predicts <b>{_html.esc(classes[best])}</b> "
               f"with P = {e['proba'][best]:.2f}; the steps say why.</div>")
    head = "".join(f"<th>{_html.esc(c)}</th>" for c in classes)
    step = e.get("step", ex.point_step)
    mark = lambda s: " turs-current-step" if s == step else ""  # noqa: E731 - one line
    # step 1
    out.append(f"<div class='turs-pstep{mark(1)}'><b>1. The rules that cover it</b>")
    if e["rules"]:
        rows = "".join(f"<tr class='turs-predict-rule'><td style='text-align:left'>R{i + 1}</td><td class='turs-cond'>"
                       f"{_html.esc(' AND '.join(final[i]['conditions']))}</td>"
                       + "".join(f"<td>{int(n)}</td>" for n in counts) + "</tr>"
                       for i, counts in zip(e["rules"], e["rule_counts"]))
        out.append(f"<table class='turs-table turs-predict-rules'><thead><tr><th>rule</th><th>conditions</th>{head}"
                   f"</tr></thead><tbody>{rows}</tbody></table>")
    else:
        out.append("<div>none: the else-rule predicts for it (the rows no rule covers).</div>")
    out.append("</div>")
    # step 2
    what = (f"the union of the covers of {', '.join(e['rule_labels'])}" if len(e["rules"]) > 1 else
            f"the cover of {e['rule_labels'][0]}" if e["rules"] else "the rows no rule covers")
    out.append(f"<div class='turs-pstep{mark(2)}'><b>2. Its rows: {what}</b> (Eq. 3.5)"
               f"<table class='turs-table turs-predict-union'><thead><tr><th></th>{head}<th>all</th></tr></thead>"
               f"<tbody><tr class='turs-predict-counts'><td>rows</td>"
               + "".join(f"<td>{int(n)}</td>" for n in e["counts"]) + f"<td>{e['n']}</td></tr></tbody></table></div>")
    # step 3
    if e["rules"]:
        how = "each class's rows divided by the union's"
    else:
        how = "the else-rule's class distribution"
    cells = "".join(f"<td>{p:.2f}</td>" for p in e["proba"])
    out.append(f"<div class='turs-pstep{mark(3)}'><b>3. The probabilities</b>: {how}"
               f"<table class='turs-table turs-predict-proba-table'><thead><tr><th></th>{head}</tr></thead><tbody>"
               f"<tr class='turs-predict-proba'><td>P</td>{cells}</tr></tbody></table>"
               f"<div class='turs-note turs-predict-check'>the model predicts <b>{_html.esc(classes[best])}</b> "
               f"({_proba_check(e)})</div></div>")
    out.append("</div>")
    return "".join(out)


def _proba_check(e: dict) -> str:
    """What ``model.predict_proba`` of the row gives, beside the probabilities worked out here."""
    got = e.get("model_proba")
    if got is None:
        return "no fitted model to check against"
    if np.allclose(got, e["proba"], atol=5e-3):
        return "model.predict_proba gives the same"
    return "model.predict_proba gives " + ", ".join(f"{p:.2f}" for p in got) + ": NOT the same (the steps above do not hold for this row)"


def _value(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4g}"
    return str(v)
