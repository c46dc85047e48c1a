"""The explorer's four pictures of the step and selection shown (``PicturesMixin``), cached.

:class:`~turs.explorer.SearchExplorer` draws through this mixin: the data on two columns with
the rules' regions, the rows x rules coverage with the union estimate (Eq. 3.5), the chosen
rule's lineage, and the MDL score against coverage (Fig. 3.6). Each picture is kept (PNG bytes
and title) under a key of everything it draws, the oldest dropped past ``cache_size``, so that
stepping back and forth redraws nothing. The mixin reads the explorer's ``view``, ``data``,
``max_points``, ``_k``, ``_it``, ``selected``, ``selected_candidate()``, ``_selection_label()``
and its axes (``x_feature``, ``y_feature``).
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from . import _draw, _render
from ._data import cover_patterns, overlap_summary

FIGURES = ("data", "coverage", "lineage", "mdl")  # the picture tabs, in order


class PicturesMixin:
    """The pictures of a :class:`~turs.explorer.SearchExplorer` (see the module's docstring)."""

    def _init_pictures(self, cache_size: int):
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = int(cache_size)
        self._rule_covers = None

    def _covers_before(self, k: int) -> np.ndarray:
        if self._rule_covers is None:
            rules = self.view.accepted_before(self.view.n_searches)
            self._rule_covers = np.stack([self.view.cover_mask(c["literals"]) for c in rules], axis=1) \
                if rules else np.zeros((len(self.view.y_codes), 0), dtype=bool)
        return self._rule_covers[:, :len(self.view.accepted_before(k))]

    def coverage_patterns(self):
        """The rows x rules view's groups (``_data.cover_patterns``): the rules before this search,
        plus the selected candidate as the last column when it is not one of them. None without data."""
        if not self.view.has_data:
            return None
        covers, _, _ = self._coverage_columns()
        return cover_patterns(covers, self.view.y_codes, len(self.view.classes))

    def _coverage_columns(self):
        covers = self._covers_before(self._k)
        labels = [f"R{i + 1}" for i in range(covers.shape[1])]
        highlight = None
        c = self.selected_candidate()
        if c is not None and self.selected[0] == "rule":
            highlight = self.selected[1]
        elif c is not None:
            covers = np.column_stack([covers, self.view.cover_mask(c["literals"])])
            labels.append("sel")
            highlight = len(labels) - 1
        return covers, labels, highlight

    def _cached(self, key, make):
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        value = make()
        self._cache[key] = value
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return value

    def _prediction_picture(self, x, y):
        """``(key, title, make)`` of the data picture of the clicked row's prediction at step
        :attr:`point_step`: 1 the rules that cover it, 2 the union of their covers drawn solid,
        3 the union's class counts and the probabilities they give."""
        e = self.prediction()
        step = self.point_step
        names = ", ".join(e["rule_labels"]) or "no rule"
        title = (f"why this prediction, step {step} of 3: "
                 + {1: f"the rules that cover the star ({names})",
                    2: f"the union of their covers ({e['n']:,} rows)",
                    3: "class counts of the union \u2192 probabilities"}[step])
        if not e["rules"]:
            title = f"why this prediction, step {step} of 3: no rule covers the star (the else-rule's rows)"
        final = self.view.accepted_before(self.view.n_searches)
        rules = [(f"R{i + 1}", final[i]["literals"]) for i in e["rules"]]
        solid = e["union_mask"] if step >= 2 else None  # step 1: no rows solid, and no "solid:" note
        label = (f"the {e['n']:,} rows of the union" if e["rules"] else f"the {e['n']:,} rows no rule covers")
        proba = (e["counts"], e["proba"]) if step == 3 else None
        return (("data-point", self.point, step, x, y), title, lambda: _draw.data_figure(
            self.data, x, y, rules, None, max_points=self.max_points, title=title, point=self.point, solid=solid,
            solid_label=label if step >= 2 else "", proba=proba))

    def _picture(self, kind: str):
        """``(cache key, title, make)`` of one picture for the current state: ``make()`` draws it
        (a matplotlib Figure); the key holds everything it draws."""
        v, k, it = self.view, self._k, self._it
        cand = self.selected_candidate()
        sel_key = None if cand is None else (self.selected, tuple(map(tuple, cand["literals"])), cand.get("id"))
        label = self._selection_label()
        where = f"rule search {k + 1}, iteration {it + 1}"
        if kind == "data":
            x, y = self.x_feature.value, self.y_feature.value
            title = f"{where}" + (f", {label}" if label else "")
            if self.data is None:
                return ("data", title, sel_key, x, y), title, lambda: _render.nodata_figure(title)
            if self.point is not None:
                return self._prediction_picture(x, y)
            rules = [(f"R{i + 1}", c["literals"]) for i, c in enumerate(v.accepted_before(k))
                     if self.selected != ("rule", i)]
            sel = None if cand is None else (label, cand["literals"])
            return ("data", title, sel_key, x, y), title, lambda: _draw.data_figure(
                self.data, x, y, rules, sel, max_points=self.max_points, title=title)
        if kind == "coverage":
            if self.data is None:
                return ("coverage", where), where, lambda: _render.nodata_figure(where)
            covers, labels, highlight = self._coverage_columns()
            summary = overlap_summary(covers)
            title = (f"{where}: {summary['several']:,} rows in 2+ rules, {summary['none']:,} in none"
                     + (f" (sel = {label})" if label and labels and labels[-1] == "sel" else ""))
            return ("coverage", title, sel_key), title, lambda: _draw.coverage_figure(
                cover_patterns(covers, v.y_codes, len(v.classes)), labels, v.classes, highlight, title)
        if kind == "lineage":
            title = f"rule search {k + 1}: how the chosen rule grew"
            sel_id = cand.get("id") if cand is not None else None
            return ("lineage", title, sel_id), title, lambda: _draw.lineage_figure(v.trace, k, sel_id, title)
        title = f"MDL score vs coverage: {where}"
        point = cand if self.selected is not None and self.selected[0] in ("main", "aux", "rejected") else None
        return ("mdl", title, sel_key), title, lambda: _render.mdl_figure(v, k, point, title)

    def _figure(self, kind: str):
        """``(png, title, geometry)`` of one picture for the current state, cached by everything it
        draws; ``geometry``: where a data picture's axes are in the PNG (``_draw.axes_geometry``),
        to map a click back to a row (None for the other pictures)."""
        key, title, make = self._picture(kind)

        def draw():
            fig = make()
            return _draw.png(fig), title, getattr(fig, "turs_geometry", None)
        return self._cached(key, draw)

    def svg(self, kind: str | None = None) -> bytes:
        """The picture of the current tab (or ``kind`` of ``FIGURES``) as SVG, for slides: its text
        kept as text (editable), drawn as the PNG on screen."""
        kind = kind or FIGURES[self.figures.selected_index or 0]
        _, _, make = self._picture(kind)
        return _draw.svg(make())
