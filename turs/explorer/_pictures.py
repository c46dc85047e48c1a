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

    def _figure(self, kind: str):
        """``(png, title)`` of one picture for the current state; cached by everything it draws."""
        v, k, it = self.view, self._k, self._it
        cand = self.selected_candidate()
        sel_key = None if cand is None else (self.selected, tuple(map(tuple, cand["literals"])), cand.get("id"))
        label = self._selection_label()
        where = f"rule search {k + 1}, iteration {it + 1}"
        if kind == "data":
            x, y = self.x_feature.value, self.y_feature.value
            title = f"{where}" + (f", {label}" if label else "")
            if self.data is None:
                return self._cached(("data", title, sel_key, x, y), lambda: (_render.nodata_png(title), title))
            rules = [(f"R{i + 1}", c["literals"]) for i, c in enumerate(v.accepted_before(k))
                     if self.selected != ("rule", i)]
            sel = None if cand is None else (label, cand["literals"])
            return self._cached(("data", title, sel_key, x, y), lambda: (_draw.png(_draw.data_figure(
                self.data, x, y, rules, sel, max_points=self.max_points, title=title)), title))
        if kind == "coverage":
            if self.data is None:
                return self._cached(("coverage", where), lambda: (_render.nodata_png(where), where))
            covers, labels, highlight = self._coverage_columns()
            summary = overlap_summary(covers)
            title = (f"{where}: {summary['several']:,} rows in 2+ rules, {summary['none']:,} in none"
                     + (f" (sel = {label})" if label and labels and labels[-1] == "sel" else ""))
            return self._cached(("coverage", title, sel_key), lambda: (_draw.png(_draw.coverage_figure(
                cover_patterns(covers, v.y_codes, len(v.classes)), labels, v.classes, highlight, title)), title))
        if kind == "lineage":
            title = f"rule search {k + 1}: how the chosen rule grew"
            sel_id = cand.get("id") if cand is not None else None
            return self._cached(("lineage", title, sel_id), lambda: (_draw.png(_draw.lineage_figure(
                v.trace, k, sel_id, title)), title))
        title = f"MDL score vs coverage: {where}"
        point = cand if self.selected is not None and self.selected[0] in ("main", "aux", "rejected") else None
        return self._cached(("mdl", title, sel_key), lambda: (_render.mdl_png(v, k, point, title), title))

