"""``SearchExplorer``: an ipywidgets app that steps through a recorded TURS search and explains it."""
from __future__ import annotations

import time

import ipywidgets as W

from . import _draw, _explain, _html, _keys
from ._data import DataView
from ._pictures import FIGURES, PicturesMixin
from ._predict import PredictionMixin
from ._view import TraceView, resolve_trace

MAX_REJECTED_CHOICES = 12
#: A control as wide as its box: 100% less its 2 px margins (100% would stick out, and scroll)
FULL_WIDTH = "calc(100% - 4px)"
#: The picture tabs' width: a picture at its pixel size (its text as large as the page's), the
#: tab's padding and border around it
FIGURE_TAB_PX = round(_draw.DATA_FIGSIZE[0] * _draw.DPI) + 2 * _html.TAB_PADDING_PX + 8


class SearchExplorer(PredictionMixin, PicturesMixin, W.VBox):
    """Step through the search trace of a fitted ``TURSClassifier`` and see why it chose its rules.

    ``SearchExplorer(model_or_trace, X=None, y=None)`` shows, for each rule search (Algorithm 3)
    and each of its beam iterations (Algorithm 4): the main beam (learning speed score ``r``,
    Eq. 3.21) and the auxiliary beam (``R``, Eq. 3.24); the growths the local tests rejected
    with both sides of the test (Eq. 3.22, 3.25); how the chosen rule grew from the empty rule
    (its lineage, the beam at each depth and the candidates that lost, by how much); why it won
    against the runner-up (the MDL change by part); why each search and the fit stopped; and four
    pictures: the data on any two columns with the rules' regions, the rows x rules coverage
    with the union estimate (Eq. 3.5), the lineage, and the MDL score against coverage (Fig. 3.6).
    Selecting a candidate or rule highlights its cover in every picture and its row in the tables.
    It reads the trace only and never re-runs the search.

    Parameters
    ----------
    model_or_trace : TURSClassifier fitted with ``record_trace=True``, or a ``SearchTrace``
        (or its ``to_dict()`` / ``to_json()``).
    X, y : the training data, optional
        Needed for the data and coverage pictures; ``X`` with the columns the model was fitted on.
    max_points : int, default 5000
        At most this many rows are drawn (a fixed random sample, said on screen); every count
        uses all rows.
    keyboard : bool, default True
        The arrow keys step beam iterations, PageUp/PageDown rule searches, Home/End go to the
        first and last step (``KEYS``), wherever the page has the focus except in a text box or
        a list (``_keys``: a page-wide listener shown with the explorer, and, with the mouse over
        the pictures, ipyevents).

    Python API (indices as in the trace: from 0)
    -------------------------------------------
    ``show(rule_index, iteration, selection)``, ``step_forward()``, ``step_back()``,
    ``handle_key(key)``, ``select(selection)``, ``rule_index``, ``iteration``, ``selected``
    (``("main"|"aux"|"rejected"|"rule"|"lineage", index)``), ``selected_candidate()``,
    ``main_table()``, ``aux_table()`` (DataFrames), ``rule_boxes()``,
    ``candidate_box()``, ``current_boxes()``, ``covered_mask()``, ``coverage_patterns()``,
    ``ruleset_text()``, ``figure_titles`` (the title of each picture as last drawn),
    ``redraw_seconds`` (wall time of each redraw); why a prediction (``_predict``):
    ``prediction(row)``, ``explain_point(row, step)``, ``clear_point()``, ``point_pixel(row)``,
    ``row_at_pixel(x, y)`` (a click on the Data picture does these), ``svg()`` (the picture shown,
    for slides). On screen, candidates are numbered from 1 (``main #1``), as on the one-file page.

    Widgets carry CSS classes: ``turs-explorer`` (the app), ``turs-rule-step``,
    ``turs-beam-step``, ``turs-step``, ``turs-play``, ``turs-prev``, ``turs-next``,
    ``turs-status``, ``turs-selection`` (``turs-candidate``), ``turs-x-feature``,
    ``turs-y-feature``, ``turs-figures`` (the picture tabs), ``turs-plot`` (data),
    ``turs-coverage-plot``, ``turs-lineage-plot``, ``turs-mdl-plot``, ``turs-why``,
    ``turs-lineage``, ``turs-rejected-table``, ``turs-main-table``, ``turs-aux-table``,
    ``turs-ruleset``, ``turs-final-model``, ``turs-fit-stop``, ``turs-draw-note``, ``turs-summary``,
    ``turs-prediction`` (the Point panel), ``turs-prediction-step``, ``turs-prediction-clear``,
    ``turs-svg`` (the SVG button), ``turs-svg-download`` (its link).
    """

    def __init__(self, model_or_trace, X=None, y=None, *, max_points: int = 5000, cache_size: int = 256,
                 keyboard: bool = True):
        trace, model = resolve_trace(model_or_trace)
        super().__init__()
        self.view = TraceView(trace, model, X, y)
        if self.view.n_searches == 0:
            raise ValueError("The search trace has no rule search; there is nothing to explore.")
        self.data = DataView(self.view, X) if self.view.has_data else None
        self.max_points = int(max_points)
        self._init_pictures(cache_size)
        self.redraw_seconds: list[float] = []
        self.figure_titles: dict = {}
        self._busy = False
        self.draw_error = None  # the last drawing's error text, or None
        self._k, self._it = 0, 0
        self.point, self.point_step = None, 1  # the row whose prediction is explained (None: none)
        self._data_geometry = None
        self.selected = self._default_selection(0, 0)
        self._build(keyboard)
        self._follow_selection()
        self._redraw()

    # ------------------------------------------------------------------ layout
    def _build(self, keyboard: bool):
        v = self.view
        n_steps = len(v.steps)
        wide = {"description_width": "initial"}
        self.rule_step = W.IntSlider(value=1, min=1, max=max(v.n_searches, 1), description="rule search",
                                     continuous_update=False, style=wide, layout=W.Layout(width="260px"))
        self.beam_step = W.IntSlider(value=1, min=1, max=max(v.n_iterations(0), 1), description="beam iteration",
                                     continuous_update=False, style=wide, layout=W.Layout(width="280px"))
        # the step through all searches, numbered from 1 as rule searches and beam iterations are
        # (it read "step 0" beside "beam iteration 1")
        self.step = W.IntSlider(value=1, min=1, max=max(n_steps, 1), description="step",
                                continuous_update=False, style=wide, layout=W.Layout(width="300px"))
        # ipywidgets 8's Play: one play/pause button (its icon says which), stop (back to step 0), no repeat
        self.play = W.Play(value=1, min=1, max=max(n_steps, 1), interval=1500, description="play",
                           show_repeat=False)
        W.link((self.play, "value"), (self.step, "value"))
        self.prev_button = W.Button(description="\u25c0 previous", layout=W.Layout(width="110px"),
                                    tooltip="previous beam iteration (\u2190)")
        self.next_button = W.Button(description="next \u25b6", layout=W.Layout(width="90px"),
                                    tooltip="next beam iteration (\u2192)")
        self.status = W.HTML()
        if self.data is not None:
            cols = self.data.columns
            kinds = self.data.kinds
            options = [(f"{c} ({'categories' if kinds[c] == 'categorical' else 'numbers'})", c) for c in cols]
            fx, fy = self.data.default_columns([c["literals"] for c in v.accepted_before(v.n_searches)])
        else:
            names = v.feature_names
            options = [(names[j], names[j]) for j in v.numeric_columns] or [(n, n) for n in names]
            fx, fy = (options[0][1], options[min(1, len(options) - 1)][1])
        narrow = {"description_width": "18px"}  # the column's name gets the width, not the label
        self.x_feature = W.Dropdown(options=options, value=fx, description="x", style=narrow,
                                    layout=W.Layout(width="210px", flex="0 0 auto"))
        self.y_feature = W.Dropdown(options=options, value=fy, description="y", style=narrow,
                                    layout=W.Layout(width="210px", flex="0 0 auto"))
        self.candidate = W.Dropdown(options=[], description="selected", layout=W.Layout(flex="1 1 auto", width="auto"),
                                    style={"description_width": "70px"})
        self.plot, self.coverage_plot = W.Image(format="png"), W.Image(format="png")
        self.lineage_plot, self.mdl_plot = W.Image(format="png"), W.Image(format="png")
        self.draw_note = W.HTML()
        self._build_prediction()
        self.why_html, self.lineage_html, self.rejected_html = W.HTML(), W.HTML(), W.HTML()
        self.main_html, self.aux_html, self.ruleset = W.HTML(), W.HTML(), W.HTML()
        self.final_model = W.HTML(_html.pre(v.final_text()))
        self.fit_stop = W.HTML(f"<div class='turs-note'>{_html.esc(_explain.fit_stop_text(v.trace))}</div>")
        parts = {
            "turs-rule-step": self.rule_step, "turs-beam-step": self.beam_step, "turs-step": self.step,
            "turs-play": self.play, "turs-prev": self.prev_button, "turs-next": self.next_button,
            "turs-status": self.status, "turs-x-feature": self.x_feature, "turs-y-feature": self.y_feature,
            "turs-candidate": self.candidate, "turs-plot": self.plot, "turs-coverage-plot": self.coverage_plot,
            "turs-lineage-plot": self.lineage_plot, "turs-mdl-plot": self.mdl_plot,
            "turs-main-table": self.main_html, "turs-aux-table": self.aux_html, "turs-why": self.why_html,
            "turs-lineage": self.lineage_html, "turs-rejected-table": self.rejected_html,
            "turs-ruleset": self.ruleset, "turs-final-model": self.final_model, "turs-fit-stop": self.fit_stop,
            "turs-draw-note": self.draw_note,
        }
        for cls, w in parts.items():
            w.add_class(cls)
        self.candidate.add_class("turs-selection")
        self.main_html.add_class("turs-wide")  # as wide as the app, never wider (its columns wrap)
        self.aux_html.add_class("turs-wide")
        self.plot.add_class("turs-scatter-plot")
        data_tab = W.VBox([self.plot, self.draw_note])  # its axes: beside the selection, above the tabs
        self.figures = W.Tab(children=[data_tab, self.coverage_plot, self.lineage_plot, self.mdl_plot],
                             titles=("Data", "Rows \u00d7 rules", "Lineage", "MDL score"),
                             layout=W.Layout(width=f"{FIGURE_TAB_PX}px", min_width=f"{FIGURE_TAB_PX}px"))
        self.figures.add_class("turs-figures")
        self.local_order = W.Dropdown(options=list(_html.LOCAL_TEST_ORDERS), description="order by",
                                      style={"description_width": "70px"}, layout=W.Layout(width=FULL_WIDTH))
        self.local_order.add_class("turs-local-order")
        self.local_order.observe(self._on_feature, "value")
        local_tab = W.VBox([self.local_order, self.rejected_html])
        self.beam_html = W.HTML()  # the main beam beside the picture (its columns to read a step by)
        self.beam_html.add_class("turs-beam-panel")
        prediction_tab = W.VBox([W.HBox([self.prediction_step, self.prediction_clear],
                                        layout=W.Layout(flex_flow="row wrap")), self.prediction_html])
        self.panels = W.Tab(children=[self.beam_html, self.why_html, self.lineage_html, local_tab, self.ruleset,
                                      prediction_tab],
                            titles=("Beam", "Why", "Lineage", "Local test", "Rules", "Point"),
                            layout=W.Layout(flex="1 1 320px", min_width="320px"))
        self.panels.add_class("turs-panels")
        self.keys_note = W.HTML()
        self._events, self.key_buttons = None, W.Box(layout=W.Layout(display="none"))
        if keyboard:
            self._events = _keys.key_events(self.figures, self._on_key)
            self.key_buttons = _keys.key_buttons(self._on_key)
            self.keys_note.value = ("<span class='turs-note'>keys: \u2190 \u2192 beam iteration, PageUp / PageDown "
                                    "rule search, Home / End (not while typing in a box)</span>")
        accepted = len(v.accepted_before(v.n_searches)) - len(v.given)
        n_given = len(v.given)
        given = "" if not n_given else (f" The fit started from {n_given} given rule{'s' if n_given != 1 else ''} "
                                        f"({'R1' if n_given == 1 else f'R1-R{n_given}'}).")
        self.headline = W.HTML("<div class='turs-headline'><b>TURS search explorer</b>: "
                               f"{v.n_searches} rule searches, {n_steps} beam iterations in all; {accepted} rule"
                               f"{'s' if accepted != 1 else ''} accepted.{given}</div>")
        self.headline.add_class("turs-summary")
        # the projector layout: at 1280x720 the picture and the beam table beside it are on the first
        # screen; the play controls, the full beam tables and the final model are below them
        self.children = [
            W.HTML(_html.CSS),
            W.HBox([self.rule_step, self.beam_step, self.prev_button, self.next_button, self.svg_button,
                    self.svg_link], layout=W.Layout(flex_flow="row wrap", align_items="center")),
            self.status,
            W.HBox([self.candidate, self.x_feature, self.y_feature], layout=W.Layout(width=FULL_WIDTH)),
            W.HBox([self.figures, self.panels], layout=W.Layout(flex_flow="row wrap", align_items="flex-start")),
            W.HBox([self.play, self.step, self.keys_note], layout=W.Layout(flex_flow="row wrap")),
            self.headline,
            self.fit_stop,
            self.main_html, self.aux_html,
            W.Accordion(children=[self.final_model], titles=("Final model (str(model))",)),
            self.key_buttons,
        ]
        self.add_class("turs-explorer")
        self.add_class(_keys.ROOT_CLASS)
        self.rule_step.observe(self._on_rule, "value")
        self.beam_step.observe(self._on_beam, "value")
        self.step.observe(self._on_step, "value")
        self.prev_button.on_click(self._on_prev)
        self.next_button.on_click(self._on_next)
        self.candidate.observe(self._on_candidate, "value")
        self.x_feature.observe(self._on_feature, "value")
        self.y_feature.observe(self._on_feature, "value")
        self.figures.observe(self._on_feature, "selected_index")

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
        (a selection as in :meth:`select`; default: the best of the main beam)."""
        v = self.view
        if not 0 <= rule_index < v.n_searches:
            raise ValueError(f"rule_index must be in [0, {v.n_searches - 1}]. Got {rule_index}.")
        n_it = max(v.n_iterations(rule_index), 1)
        if not 0 <= iteration < n_it:
            raise ValueError(f"iteration must be in [0, {n_it - 1}] for rule search {rule_index}. Got {iteration}.")
        self._k, self._it = int(rule_index), int(iteration)
        self.selected = candidate if candidate is not None else self._default_selection(self._k, self._it)
        self.point = None
        self._sync_controls()
        self._follow_selection()
        self._redraw()

    def _default_selection(self, k: int, iteration: int):
        """The best of the main beam (else of the auxiliary beam); at an iteration whose beams are
        empty (the search's last, say) the rule the search returned: the last step of its lineage."""
        default = self.view.default_candidate(k, iteration)
        if default is None and self.view.search(k).get("lineage"):
            n = len(self.view.trace.lineage(k))
            if n > 1:
                return ("lineage", n - 1)
        return default

    def select(self, selection):
        """Select ``("main"|"aux"|"rejected", i)`` (a candidate of this step), ``("rule", i)`` (rule
        ``i`` of the rule set before this search) or ``("lineage", d)`` (step ``d`` of the chosen
        rule's lineage); every picture and table follows."""
        if selection not in self.selection_options().values():
            raise ValueError(f"{selection!r} is not a selection of this step; choose one of "
                             f"{list(self.selection_options().values())[:8]}...")
        self.selected = tuple(selection)
        self.point = None
        self._follow_selection()
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

    def handle_key(self, key):
        """What a key does (ipyevents sends ``{"key": ...}``): see :data:`turs.explorer._keys.KEYS`. Returns
        whether it was used."""
        if isinstance(key, dict):
            key = key.get("key")
        v = self.view
        if key == "ArrowRight":
            self.step_forward()
        elif key == "ArrowLeft":
            self.step_back()
        elif key == "PageDown" and self._k + 1 < v.n_searches:
            self.show(self._k + 1, 0)
        elif key == "PageUp" and self._k > 0:
            self.show(self._k - 1, 0)
        elif key == "Home":
            self.show(0, 0)
        elif key == "End":
            self.show(*v.steps[-1])
        else:
            return False
        return True

    @_html.shows_errors("stepping back")
    def _on_prev(self, _=None):
        self.step_back()

    @_html.shows_errors("stepping forward")
    def _on_next(self, _=None):
        self.step_forward()

    @_html.shows_errors("handling a key")
    def _on_key(self, key):
        self.handle_key(key)

    #: The index of the Prediction panel among the panel tabs.
    PREDICTION_TAB = 5

    def _ipython_display_(self, **kwargs):
        """Shown with the page-wide key listener (``_keys.SCRIPT``)."""
        _keys.display_with_keys(self)

    def _show_error(self, exc, doing: str = ""):
        """A callback's exception, shown in the status line and instead of the picture (never a
        picture of another step under this step's status)."""
        self.draw_error = f"{type(exc).__name__}: {exc}"
        self.status.value = _html.error_html(exc, doing)
        for image in (self.plot, self.coverage_plot, self.lineage_plot, self.mdl_plot):
            image.value = b""
        self.draw_note.value = _html.error_html(exc, doing)

    @_html.shows_errors("showing the rule search")
    def _on_rule(self, change):
        if not self._busy:
            self.show(change["new"] - 1, 0)

    @_html.shows_errors("showing the beam iteration")
    def _on_beam(self, change):
        if not self._busy:
            self.show(self._k, change["new"] - 1)

    @_html.shows_errors("showing the step")
    def _on_step(self, change):
        if not self._busy:
            self.show(*self.view.steps[change["new"] - 1])

    @_html.shows_errors("selecting")
    def _on_candidate(self, change):
        if not self._busy and change["new"] is not None and change["new"] != self.selected:
            self.selected = change["new"]
            self.point = None
            self._follow_selection()
            self._redraw()

    @_html.shows_errors("drawing")
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
            self.step.value = v.step_of(self._k, self._it) + 1
        finally:
            self._busy = False

    # ------------------------------------------------------------- the axes
    def selection_columns(self) -> list:
        """The (user's) columns the selection has conditions on, in the order of its conditions,
        each once; those the picture can use (a column of the axis lists)."""
        c = self.selected_candidate()
        if c is None:
            return []
        drawable = set(self.x_feature.options[i][1] for i in range(len(self.x_feature.options)))
        out = []
        for lit in c["literals"]:
            j = int(lit[0])
            col = self.data.encoded[j][0] if self.data is not None else self.view.feature_names[j]
            if col in drawable and col not in out:
                out.append(col)
        return out

    def _follow_selection(self):
        """Put the selection's columns on the axes (a new selection only: a user's own choice of
        axes stays until the next one). Its first two columns, unless both axes already show
        columns it uses; one column: on x, unless an axis shows it already."""
        used = self.selection_columns()
        shown = (self.x_feature.value, self.y_feature.value)
        if not used or (len(used) == 1 and used[0] in shown) or (len(used) > 1 and set(shown) <= set(used)
                                                                  and shown[0] != shown[1]):
            return
        if len(used) > 1:
            x, y = used[0], used[1]
        else:
            x, y = used[0], shown[1] if shown[1] != used[0] else shown[0]
        self._busy = True
        try:
            self.x_feature.value, self.y_feature.value = x, y
        finally:
            self._busy = False

    def hidden_conditions(self) -> list:
        """The selection's conditions on columns that are on neither axis (the picture cannot show
        them: its box spans those columns' whole range)."""
        c = self.selected_candidate()
        if c is None:
            return []
        shown = {self.x_feature.value, self.y_feature.value}
        out = []
        for lit, text in zip(c["literals"], c["conditions"]):
            j = int(lit[0])
            col = self.data.encoded[j][0] if self.data is not None else self.view.feature_names[j]
            if col not in shown:
                out.append(text)
        return out

    # ------------------------------------------------------------- data access
    def selection_options(self) -> dict:
        """Label -> selection of everything that can be selected at this step."""
        v, k, it = self.view, self._k, self._it
        opts = {}
        for which, cap in (("main", None), ("aux", None), ("rejected", MAX_REJECTED_CHOICES)):
            for i, c in enumerate(v.candidates(k, it, which)[:cap]):
                opts[f"{which} #{i + 1}: {' AND '.join(c['conditions'])}"] = (which, i)
        for i, c in enumerate(v.accepted_before(k)):
            opts[f"rule R{i + 1}{' (given)' if c.get('given') else ''}: {' AND '.join(c['conditions'])}"] = ("rule", i)
        for d, c in (enumerate(v.trace.lineage(k)[1:], start=1) if v.search(k).get("lineage") else ()):
            opts[f"lineage step {d}: {' AND '.join(c['conditions'])}"] = ("lineage", d)
        return opts

    def selected_candidate(self):
        """The selected candidate's dict (a rule of the set, a lineage step or a beam member), or None."""
        if self.selected is None:
            return None
        which, i = self.selected
        if which == "rule":
            rules = self.view.accepted_before(self._k)
            return rules[i] if i < len(rules) else None
        if which == "lineage":
            nodes = self.view.trace.lineage(self._k) if self.view.search(self._k).get("lineage") else []
            return nodes[i] if i < len(nodes) else None
        cands = self.view.candidates(self._k, self._it, which)
        return cands[i] if i < len(cands) else None

    def _selection_label(self) -> str:
        if self.selected is None:
            return ""
        which, i = self.selected
        if which == "lineage" and i == len(self.view.trace.lineage(self._k)) - 1:
            return "chosen rule"  # the lineage's last step: the rule the search returned
        return {"rule": f"R{i + 1}", "lineage": f"step {i}", "main": f"cand #{i + 1}", "aux": f"aux #{i + 1}",
                "rejected": f"rejected #{i + 1}"}.get(which, which)

    def main_table(self):
        """The main beam at the current step (DataFrame; ``chosen`` marks the search's final rule)."""
        return self.view.table(self._k, self._it, "main")

    def aux_table(self):
        """The auxiliary beam at the current step."""
        return self.view.table(self._k, self._it, "aux")

    def _boxes(self, literals) -> tuple:
        x, y = self.x_feature.value, self.y_feature.value
        if self.data is not None:
            return self.data.region(literals, x, y)[0]
        names = self.view.feature_names
        return self.view.box(literals, names.index(x), names.index(y))

    def rule_boxes(self) -> list:
        """``(x0, x1, y0, y1)`` of each rule accepted before the current search on the plotted
        columns (a categorical column: its first run of kept levels)."""
        return [self._boxes(c["literals"]) for c in self.view.accepted_before(self._k)]

    def candidate_box(self):
        """``(x0, x1, y0, y1)`` of the selection, or None."""
        c = self.selected_candidate()
        return None if c is None else self._boxes(c["literals"])

    def current_boxes(self) -> list:
        """The rules so far (in order), then the selection's box (if any)."""
        box = self.candidate_box()
        return self.rule_boxes() + ([box] if box is not None else [])

    def covered_mask(self):
        """Which rows of ``X`` the selection covers (None without data or selection)."""
        c = self.selected_candidate()
        return None if c is None or not self.view.has_data else self.view.cover_mask(c["literals"])

    def ruleset_text(self) -> str:
        """The rule set before the current search, as the estimator prints it."""
        return self.view.ruleset_text(self._k)

    def _redraw(self):
        t0 = time.perf_counter()
        self._sync_prediction_controls()
        self.svg_link.value = ""  # a link to another picture's SVG would mislead
        v, k, it = self.view, self._k, self._it
        kind = FIGURES[self.figures.selected_index or 0]
        try:
            png, title, geometry = self._figure(kind)
            if kind == "data":
                self._data_geometry = geometry
            self.draw_error = None
        except Exception as exc:  # noqa: BLE001 - the page says so; the tables still follow the step
            _html.logger.exception("drawing the %s picture failed", kind)
            png, title = b"", ""
            self.draw_error = f"{type(exc).__name__}: {exc}"
        self.figure_titles[kind] = title
        opts = [(label, sel) for label, sel in self.selection_options().items()]
        note = ""
        if self.data is not None:
            _, note = self.data.draw_rows(self.max_points)
        self._busy = True
        try:
            if list(self.candidate.options) != opts:
                self.candidate.options = opts
            self.candidate.value = self.selected if self.selected in [o[1] for o in opts] else None
            self.status.value = _html.status_html(v, k, it)
            sel = self.selected if self.selected and self.selected[0] in ("main", "aux") else None
            self.main_html.value = _html.beam_table(
                v, k, it, "main", sel, "Main beam (learning speed score r, Eq. 3.21; patience bucket Eq. 3.23)")
            self.aux_html.value = _html.beam_table(
                v, k, it, "aux", sel, "Auxiliary beam (complementary score R, Eq. 3.24; bucket of |S' \\ M|)")
            self.beam_html.value = ("<div class='turs-panel'>" + _html.beam_table(
                v, k, it, "main", sel, "Main beam", compact=True) + "<div class='turs-note'>all columns and the "
                "auxiliary beam: below</div></div>")
            self.why_html.value = _html.why_panel(v.search(k), k)
            self.lineage_html.value = _html.lineage_panel(v.trace, k)
            self.rejected_html.value = _html.rejected_panel(v.trace, k, it, order=self.local_order.value)
            self.ruleset.value = _html.pre(v.ruleset_text(k))
            hidden = self.hidden_conditions()
            if hidden:
                note = ((note + "; ") if note else "") + (
                    f"{self._selection_label()} also has {len(hidden)} condition{'s' if len(hidden) != 1 else ''} "
                    f"the picture cannot show (not on these axes): {' AND '.join(hidden)}")
            self.draw_note.value = f"<div class='turs-note'>{_html.esc(note)}</div>" if note else ""
            if self.draw_error is not None:
                self.draw_note.value += (f"<div class='turs-fail turs-draw-error'>The picture cannot be drawn: "
                                         f"{_html.esc(self.draw_error)}</div>")
            getattr(self, {"data": "plot", "coverage": "coverage_plot", "lineage": "lineage_plot",
                           "mdl": "mdl_plot"}[kind]).value = png
        finally:
            self._busy = False
        self.redraw_seconds.append(time.perf_counter() - t0)
