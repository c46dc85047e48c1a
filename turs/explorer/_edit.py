"""The explorer's **Edit rules** tab: type a rule, see the MDL change it makes; remove a rule;
continue the search from the edited rules.

A student types a rule (``x1 >= 1.0 AND x2 < 0.8``, the text :func:`turs.parse_rule` reads)
and presses Enter or **Try**: the rule is added to the working rule set with
``model.with_rule(text)``, which re-estimates the rule set and scores it exactly (Eq. 3.20),
and the tab shows the MDL score before and after and the change by part (model code ``L(M)``,
data code, regret), the rule's cover on the data (the rows it covers drawn solid), and the
rule set with the typed rules marked *yours*. A syntax error, an unknown column or level, or
a rule that covers no row shows the library's own message. **Remove** takes the chosen rule
out (``model.without_rule(i)``) with the same MDL display; **Continue the search from these
rules** re-fits with ``fit(initial_rules=...)`` in the explorer's worker process (cancellable);
**Reset** goes back to the fitted rules.
"""
from __future__ import annotations

import ipywidgets as W

from .. import style
from ..rules import quote_name
from . import _draw, _html
from ._view import exact_literals

#: The parts of the MDL score the tab shows: (label, MDLBreakdown attribute, meaning).
PARTS = [("MDL score", "total", "the code length of the labels given the data, plus the rules' own (Eq. 3.20)"),
         ("model code L(M)", "model_bits", "bits to send the rules themselves (Eq. 3.13-3.16)"),
         ("data code", "data_bits", "-log2 of the labels' likelihood under the union estimates (Eq. 3.5)"),
         ("regret", "regret_bits", "the NML regret of each rule's and the else-rule's labels (Eq. 3.10)")]


def mdl_change(before, after) -> dict:
    """``{part: {"before", "after", "change"}}`` of two fitted models' MDL scores (bits), the
    parts of :data:`PARTS`; ``change`` is ``after - before`` (negative: the edit shortens the code)."""
    out = {}
    for _, key, _ in PARTS:
        b, a = getattr(before.mdl_breakdown_, key), getattr(after.mdl_breakdown_, key)
        out[key] = {"before": float(b), "after": float(a), "change": float(a) - float(b)}
    return out


def change_html(title: str, change: dict, removing: bool = False) -> str:
    """The MDL change of one edit (adding a rule, or ``removing`` one) as a table and a sentence."""
    rows = []
    for label, key, meaning in PARTS:
        c = change[key]
        colour = style.BETTER if c["change"] < 0 else style.WORSE if c["change"] > 0 else "inherit"
        bold = " style='font-weight:bold'" if key == "total" else ""
        rows.append(f"<tr{bold} class='turs-part-{key}' title='{_html.esc(meaning)}'><td style='text-align:left'>"
                    f"{label}</td><td>{c['before']:.2f}</td><td>{c['after']:.2f}</td>"
                    f"<td style='color:{colour}'>{c['change']:+.2f}</td></tr>")
    verdict = edit_verdict(change["total"]["change"], removing)
    return (f"<div class='turs-panel turs-rule-change'><b>{_html.esc(title)}</b>"
            "<table class='turs-table'><thead><tr><th style='text-align:left'>bits</th><th>before</th>"
            f"<th>after</th><th>change</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p>{_html.esc(verdict)}</p></div>")


def edit_verdict(d: float, removing: bool = False) -> str:
    """The MDL change ``d`` (bits, after - before) of an edit in words. The search only adds rules,
    so only an added rule is said to be one the search would (or would not) accept."""
    if removing:
        if d > 0:
            return (f"The MDL score goes up by {d:.2f} bits: the rule paid for itself (without it the code is "
                    "longer).")
        return (f"The MDL score goes down by {-d:.2f} bits: the code is shorter without this rule. The search "
                "only adds rules; it never removes one.")
    if d < 0:
        return (f"The MDL score goes down by {-d:.2f} bits: with this rule the code is shorter; the search "
                "accepts a rule that does this.")
    return (f"The MDL score goes up by {d:.2f} bits: with this rule the code is longer; the search would not "
            "accept it.")


class RuleEditor(W.VBox):
    """The Edit rules tab of an :class:`~turs.explorer.Explorer` (``app``).

    Python API: ``try_rule(text)`` (returns the edited model, or None with :attr:`error` set),
    ``remove(i)`` (0-based), ``continue_search(wait=False)`` (the app's worker-process re-fit
    from these rules), ``reset()``; :attr:`model` (the working rule set, a fitted
    ``TURSClassifier``), :attr:`base` (the fit it started from), :attr:`yours` (per rule: typed
    here), :attr:`change` (the last edit's :func:`mdl_change`), :attr:`error` (the last error text).
    """

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.base = self.model = None
        self.yours: list[bool] = []
        self.change = None
        self.error = None
        self.highlight = None  # index of the rule to fill in the picture
        self._tried = None
        L = W.Layout
        self.text = W.Text(placeholder="X1 >= 1.0 AND X2 < 0.8", continuous_update=False,
                           description="rule", style={"description_width": "40px"}, layout=L(flex="1 1 auto"))
        self.try_button = W.Button(description="Try", button_style="primary", layout=L(width="80px"),
                                   tooltip="add the rule and show the MDL change (or press Enter)")
        self.message = W.HTML()
        self.result = W.HTML("<div class='turs-note'>Type a rule and press Enter or Try: the rule is added to the "
                             "rule set below and scored exactly.</div>")
        self.rules_html = W.HTML()
        self.choice = W.Dropdown(options=[], description="rule", style={"description_width": "40px"},
                                 layout=L(width="calc(100% - 4px)"))  # 100% less its margins
        self.remove_button = W.Button(description="Remove this rule", layout=L(width="48%"))
        self.reset_button = W.Button(description="Reset", layout=L(width="48%"),
                                     tooltip="back to the fitted rules")
        self.continue_button = W.Button(description="Continue the search from these rules", button_style="success",
                                        layout=L(width="calc(100% - 4px)"), tooltip="fit(initial_rules=...) in the worker")
        self.x_feature = W.Dropdown(description="x", style={"description_width": "18px"}, layout=L(width="290px"))
        self.y_feature = W.Dropdown(description="y", style={"description_width": "18px"}, layout=L(width="290px"))
        self.plot = W.Image(format="png")
        for cls, w in {"turs-rule-text": self.text, "turs-try-rule": self.try_button,
                       "turs-rule-message": self.message, "turs-rule-result": self.result,
                       "turs-edit-rules": self.rules_html, "turs-edit-choice": self.choice,
                       "turs-remove-rule": self.remove_button, "turs-reset-edits": self.reset_button,
                       "turs-continue-search": self.continue_button, "turs-edit-plot": self.plot,
                       "turs-edit-x": self.x_feature, "turs-edit-y": self.y_feature}.items():
            w.add_class(cls)
        side = W.VBox([self.message, self.result, self.rules_html, self.choice,
                       W.HBox([self.remove_button, self.reset_button]), self.continue_button],
                      layout=L(flex="1 1 300px", min_width="300px"))
        picture = W.VBox([W.HBox([self.x_feature, self.y_feature]), self.plot], layout=L(width="596px"))
        self.children = [W.HTML("<div class='turs-note'>Type a rule on the data's columns (<code>=</code> / "
                                "<code>!=</code> a level for a categorical column, <code>a &lt;= x &lt; b</code> "
                                "for a numeric one; <code>AND</code> between conditions).</div>"),
                         W.HBox([self.text, self.try_button]),
                         W.HBox([picture, side], layout=L(flex_flow="row wrap", align_items="flex-start"))]
        self.add_class("turs-explorer")
        self.add_class("turs-rule-editor")
        self.text.observe(self._on_text, "value")
        self.try_button.on_click(self._on_try)
        self.remove_button.on_click(self._on_remove)
        self.reset_button.on_click(self._on_reset)
        self.continue_button.on_click(self._on_continue)
        self.choice.observe(self._on_choice, "value")
        self._quiet = False
        self.x_feature.observe(self._on_axes, "value")
        self.y_feature.observe(self._on_axes, "value")

    # ------------------------------------------------------------- callbacks
    @_html.shows_errors("trying the rule")
    def _on_text(self, change):
        if change["new"].strip():
            self.try_rule(change["new"])

    @_html.shows_errors("trying the rule")
    def _on_try(self, _=None):
        self.try_rule(self.text.value)

    @_html.shows_errors("removing the rule")
    def _on_remove(self, _=None):
        if self.choice.value is not None:
            self.remove(self.choice.value)

    @_html.shows_errors("resetting")
    def _on_reset(self, _=None):
        self.reset()

    @_html.shows_errors("continuing the search")
    def _on_continue(self, _=None):
        self.continue_search()

    @_html.shows_errors("drawing")
    def _on_axes(self, _=None):
        if not self._quiet:
            self._draw()

    def _show_error(self, exc, doing: str = ""):
        """A callback's exception, shown above the result (the picture is cleared: never a stale one)."""
        self.error = f"{type(exc).__name__}: {exc}"
        self.message.value = _html.error_html(exc, doing)
        self.plot.value = b""

    # ---------------------------------------------------------------- state
    def set_base(self, model):
        """Start editing from a new fit (the app calls this after each fit)."""
        self.base = self.model = model
        self.yours = [False] * len(model.rules_)
        self.change, self.error, self.highlight, self._tried = None, None, None, None
        data = self._data()
        if data is not None:
            options = [(f"{c} ({'categories' if data.kinds[c] == 'categorical' else 'numbers'})", c)
                       for c in data.columns]
            ex = self.app.explorer
            self._quiet = True
            try:
                for w, value in ((self.x_feature, ex.x_feature.value), (self.y_feature, ex.y_feature.value)):
                    if list(w.options) != options:
                        w.options = options
                    w.value = value
            finally:
                self._quiet = False
            # the example in the empty box is a rule on this data's columns (a student types it as shown)
            self.text.placeholder = example_rule(data, ex.x_feature.value, ex.y_feature.value)
        self.message.value = ""
        self.result.value = ("<div class='turs-note'>Type a rule and press Enter or Try: the rule is added to the "
                             "rule set below and scored exactly.</div>")
        self._show()

    def _data(self):
        ex = self.app.explorer
        return None if ex is None else ex.data

    def _train(self, model) -> dict:
        """The training data for an edit: none for a model that holds its rows (fitted or edited
        in this process), the app's training split for one that came back from the worker."""
        if getattr(model, "_train_rows_", None) is not None:
            return {}
        return {"X": self.app.X_train, "y": self.app.y_train}

    def _fail(self, exc):
        self.error = str(exc)
        self.message.value = (f"<div class='turs-panel'><b>This rule cannot be used:</b>"
                              f"<pre class='turs-error'>{_html.esc(exc)}</pre></div>")

    # ---------------------------------------------------------------- edits
    def try_rule(self, text: str):
        """Add the rule ``text`` to the working rule set; show the MDL change. Returns the new
        model, or None (the error is shown and kept in :attr:`error`)."""
        text = str(text).strip()
        if self.model is None or not text or (text, len(self.yours)) == self._tried:
            return None  # Enter then a click on Try (or a blur) would add it twice
        self._tried = (text, len(self.yours))
        before = self.model
        try:
            after = before.with_rule(text, **self._train(before))
        except ValueError as exc:
            self._fail(exc)
            return None
        self.error = None
        self.message.value = ""
        self.model = after
        self.yours.append(True)
        self.highlight = len(after.rules_) - 1
        self.change = mdl_change(before, after)
        self._tried = (text, len(self.yours))
        self.result.value = change_html(f"Adding yours, R{len(after.rules_)}: {after.rules_[-1].condition_text()}",
                                        self.change)
        self._axes_for(after._literals_[-1])
        self._show()
        return after

    def _axes_for(self, literals):
        """Draw the columns the rule uses: its first two (one: on x, unless already drawn)."""
        data = self._data()
        if data is None:
            return
        used = []
        for j, _, _ in literals:
            col = data.encoded[int(j)][0]
            if col in data.kinds and col not in used:
                used.append(col)
        shown = (self.x_feature.value, self.y_feature.value)
        if not used or set(used[:2]) <= set(shown):
            return
        x, y = (used[0], used[1]) if len(used) > 1 else (used[0], shown[1] if shown[1] != used[0] else shown[0])
        self._quiet = True
        try:
            self.x_feature.value, self.y_feature.value = x, y
        finally:
            self._quiet = False

    def remove(self, i: int):
        """Take rule ``i`` (0-based) out of the working rule set; show the MDL change."""
        before = self.model
        try:
            after = before.without_rule(int(i), **self._train(before))
        except ValueError as exc:
            self._fail(exc)
            return None
        removed = before.rules_[int(i)].condition_text()
        self.error, self.message.value, self._tried = None, "", None
        self.model = after
        del self.yours[int(i)]
        self.highlight = None
        self.change = mdl_change(before, after)
        self.renamed = renamed_after_removal(int(i), len(before.rules_))
        self.result.value = change_html(f"Removing R{int(i) + 1}: {removed}", self.change, removing=True)
        if self.renamed:
            self.result.value += f"<div class='turs-note turs-renamed'>{_html.esc(self.renamed)}</div>"
        self._show()
        return after

    renamed = ""  # what the last removal renamed (the rules after it move up one number)

    def reset(self):
        """Back to the fitted rules."""
        if self.base is not None:
            self.set_base(self.base)

    def continue_search(self, wait: bool = False):
        """Re-fit with the app's settings from the working rules (``fit(initial_rules=...)``), in
        the worker process (Cancel stops it); returns the app's FitJob."""
        if self.model is None:
            return None
        rules = list(self.model.rules_)
        if not rules:
            self._fail(ValueError("There is no rule to start from; type one, or press Re-fit to search from "
                                  "the empty rule set."))
            return None
        self.message.value = (f"<div class='turs-note'>searching on from {len(rules)} rule"
                              f"{'s' if len(rules) != 1 else ''} (progress on the left)\u2026</div>")
        return self.app.refit(wait=wait, initial_rules=rules)

    # ---------------------------------------------------------------- showing
    @_html.shows_errors("selecting the rule")
    def _on_choice(self, change):
        if not self._quiet and change["new"] is not None and change["new"] != self.highlight:
            self.highlight = change["new"]
            self._draw()

    def _show(self):
        m = self.model
        lines = []
        for i, r in enumerate(m.rules_):
            tag = " <span class='turs-yours'>yours</span>" if self.yours[i] else ""
            cls = " class='turs-chosen'" if i == self.highlight else ""
            lines.append(f"<tr{cls}><td style='text-align:left'>R{i + 1}{tag}</td>"
                         f"<td class='turs-cond'>{_html.esc(r.condition_text())}</td>"
                         f"<td>{_html.esc(', '.join(f'{p:.2f}' for p in r.probabilities))}</td>"
                         f"<td>{r.coverage}</td></tr>")
        classes = ", ".join(str(c) for c in m.classes_)
        self.rules_html.value = (
            f"<div class='turs-panel'><b>Rule set: {len(m.rules_)} rule{'s' if len(m.rules_) != 1 else ''}, "
            f"MDL score {m.mdl_score_:.2f} bits</b>"
            "<div class='turs-scroll'><table class='turs-table'><thead><tr><th>rule</th>"
            f"<th style='text-align:left'>conditions</th><th>P({_html.esc(classes)})</th><th>n</th></tr></thead>"
            f"<tbody>{''.join(lines)}</tbody></table></div>"
            "<style>.turs-yours {background: #fff3c4; padding: 0 3px; font-weight: bold;}</style></div>")
        options = [(f"R{i + 1}{' (yours)' if self.yours[i] else ''}: {r.condition_text()}", i)
                   for i, r in enumerate(m.rules_)]
        self._quiet = True
        try:
            self.choice.options = options
            self.choice.value = self.highlight if self.highlight is not None and options else None
        finally:
            self._quiet = False
        self.remove_button.disabled = not options
        self._draw()

    def _draw(self):
        data = self._data()
        if data is None or self.model is None or self.x_feature.value is None:
            self.plot.value = b""
            return
        lits = [exact_literals(lits) for lits in self.model._literals_]
        k = self.highlight
        rules = [(f"R{i + 1}", lits[i]) for i in range(len(lits)) if i != k]
        selected = None if k is None or k >= len(lits) else (f"R{k + 1}" + (" yours" if self.yours[k] else ""),
                                                              lits[k])
        title = (f"edited rule set, {selected[0]} filled" if selected else "edited rule set")
        self.plot.value = _draw.png(_draw.data_figure(data, self.x_feature.value, self.y_feature.value, rules,
                                                      selected, max_points=self.app.max_points, title=title))


def renamed_after_removal(i: int, n_rules: int) -> str:
    """What taking rule ``i`` (from 0) out of ``n_rules`` renames, in words: the rules after it
    are numbered one less (rules are numbered by their place in the rule set), "" when it was the last."""
    moved = [(j + 1, j) for j in range(i + 1, n_rules)]
    if not moved:
        return ""
    if len(moved) <= 3:
        names = ", ".join(f"R{a} is now R{b}" for a, b in moved)
    else:
        names = f"R{moved[0][0]}\u2013R{moved[-1][0]} are now R{moved[0][1]}\u2013R{moved[-1][1]}"
    return f"The rules after R{i + 1} moved up one number: {names}."


def example_rule(data, x: str, y: str) -> str:
    """A rule on columns ``x`` and ``y`` of ``data`` (a :class:`~turs.explorer._data.DataView`),
    as typed in the Edit rules tab: a numeric column split at its median (3 significant digits),
    a categorical one equal to its first level. The box shows it as its example, so that typing
    what the box shows gives a rule the data has, not an unknown column."""
    import numpy as np

    parts = []
    for column, op in ((x, ">="), (y, "<")):
        if column is None or column not in data.kinds or (column == x and op == "<"):
            continue
        if data.kinds[column] == "categorical":
            parts.append(f"{quote_name(column)} = {quote_name(data.levels[column][0])}")
        else:
            values = data.df[column].to_numpy(dtype=float)
            values = values[np.isfinite(values)]
            if len(values):
                parts.append(f"{quote_name(column)} {op} {float(f'{np.median(values):.3g}'):g}")
    return " AND ".join(parts) or "X1 >= 1.0 AND X2 < 0.8"
