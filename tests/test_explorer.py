"""turs.explorer.SearchExplorer: widget-level tests (no browser).

The sliders, buttons, play and dropdowns are set as a user would; the tables (their HTML and the
DataFrames the explorer exposes), the plotted boxes, the covered instances and the printed rule
set are checked against the recorded trace and, independently, against the fitted model
(its thresholds, its rules, ``str(model)``).
"""
import math
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs import SearchTrace, TURSClassifier, _config
from turs.datasets import load_bundled, make_overlap_blockade_data

REPO = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------- packaging
@pytest.mark.subprocess
def test_import_turs_does_not_import_ipywidgets():
    code = ("import sys, turs, turs.datasets; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'turs.explorer', 'voila')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.subprocess
def test_explorer_without_ipywidgets_says_how_to_install():
    # turs.explorer itself imports without ipywidgets (its one-file search page needs none);
    # the app's names need the widgets and say how to install them.
    code = ("import sys; sys.modules['ipywidgets'] = None\n"  # makes `import ipywidgets` fail
            "try:\n    from turs.explorer import explore\nexcept ImportError as e:\n    print('ERR', e)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ERR"), done.stdout
    assert "pip install 'turs[explorer]'" in done.stdout


try:
    import ipywidgets as W

    from turs.explorer import SearchExplorer
except ImportError:  # the two tests above still run
    W = SearchExplorer = None
needs_widgets = pytest.mark.skipif(W is None, reason="ipywidgets is not installed (pip install -e '.[explorer]')")


# ------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def blockade():
    X, y = make_overlap_blockade_data(1000, 0)
    return TURSClassifier(record_trace=True).fit(X, y), X, y


@pytest.fixture(scope="module")
def iris():
    X, y = load_bundled("sklearn-iris")
    return TURSClassifier(record_trace=True).fit(X, y), X, y


@pytest.fixture(scope="module")
def blockade_explorer(blockade):
    """One explorer for the tests that only set its controls: its figure cache spans them."""
    model, X, y = blockade
    return SearchExplorer(model, X, y)


def many_boxes(n=5000, g=8, seed=1):
    """An 8 x 8 grid of cells with P(Y=1) in {0.02, 0.5, 0.98}: many small boxes, 30 rules."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, g, size=(n, 2))
    p_cell = rng.choice([0.02, 0.5, 0.98], size=(g, g))
    cell = np.floor(X).astype(int)
    y = (rng.random(n) < p_cell[cell[:, 0], cell[:, 1]]).astype(int)
    return pd.DataFrame(X, columns=["a", "b"]), y


@pytest.fixture(scope="module")
def thirty_rules():
    X, y = many_boxes()
    model = TURSClassifier(record_trace=True, max_rules=30, n_cut_points=16).fit(X, y)
    assert len(model.rules_) == 30, "the grid data should give 30 rules; regenerate the fixture on purpose"
    return model, X, y


# ------------------------------------------------------------------------- helpers
class TableParser(HTMLParser):
    """Rows of the explorer's HTML tables: list of (tr class, [cell texts])."""

    def __init__(self):
        super().__init__()
        self.header, self.rows, self._row, self._cell, self._in_head = [], [], None, None, False

    def handle_starttag(self, tag, attrs):
        if tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = (dict(attrs).get("class", ""), [])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._row is not None:
            self._row[1].append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (self.header if self._in_head else self.rows).append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def table_rows(html_text):
    """Every body row of the HTML: (tr class, [cell texts])."""
    p = TableParser()
    p.feed(html_text)
    return p.rows


def parse_table(html_text):
    p = TableParser()
    p.feed(html_text)
    if not p.header:  # no table (e.g. "No growth was rejected here.")
        return [], []
    header = p.header[0][1]
    rows = [(cls, dict(zip(header, cells))) for cls, cells in p.rows if len(cells) == len(header)]
    return header, rows


def expected_box(model, X, literals, fx, fy):
    """The box from the model's own thresholds (``encoder_.thresholds``), unbounded sides at the data range."""
    Xe = model.encoder_.transform(X)
    out = []
    for j in (fx, fy):
        low, high = -math.inf, math.inf
        for col, a, b in literals:
            if col == j:
                _, lo_t, hi_t = model.encoder_.thresholds(col, a, b)
                low = lo_t if lo_t is not None else low
                high = hi_t if hi_t is not None else high
        out += [low if math.isfinite(low) else Xe[:, j].min(), high if math.isfinite(high) else Xe[:, j].max()]
    return tuple(out)


def all_steps(explorer):
    return list(explorer.view.steps)


# --------------------------------------------------------------------------- tests
@needs_widgets
def test_widgets_carry_css_classes(blockade):
    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    expected = {
        "turs-rule-step": W.IntSlider, "turs-beam-step": W.IntSlider, "turs-step": W.IntSlider,
        "turs-play": W.Play, "turs-prev": W.Button, "turs-next": W.Button, "turs-main-table": W.HTML,
        "turs-aux-table": W.HTML, "turs-rejected-table": W.HTML, "turs-plot": W.Image,
        "turs-mdl-plot": W.Image, "turs-x-feature": W.Dropdown, "turs-y-feature": W.Dropdown,
        "turs-candidate": W.Dropdown, "turs-ruleset": W.HTML, "turs-status": W.HTML,
        "turs-final-model": W.HTML,
    }
    found = {}

    def walk(w):
        for cls in getattr(w, "_dom_classes", ()):
            found.setdefault(cls, []).append(w)
        for child in getattr(w, "children", ()):
            walk(child)

    expected.update({"turs-coverage-plot": W.Image, "turs-lineage-plot": W.Image, "turs-why": W.HTML,
                     "turs-lineage": W.HTML, "turs-figures": W.Tab, "turs-fit-stop": W.HTML,
                     "turs-draw-note": W.HTML})
    walk(e)
    assert "turs-explorer" in e._dom_classes
    for cls, kind in expected.items():
        assert len(found.get(cls, [])) == 1, cls
        assert isinstance(found[cls][0], kind), cls
    assert e.plot.value[:8] == b"\x89PNG\r\n\x1a\n"  # the data tab is drawn at once, the others when opened
    assert e.mdl_plot.value == b""
    e.figures.selected_index = 3
    assert e.mdl_plot.value[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
@needs_widgets
def test_tables_match_the_trace_at_every_step(blockade, blockade_explorer):
    model, X, y = blockade
    trace = model.trace_
    e = blockade_explorer
    n_rows_seen = 0
    for k, search in enumerate(trace.searches):
        e.rule_step.value = k + 1  # 1-based sliders
        assert (e.rule_index, e.iteration) == (k, 0)
        assert e.beam_step.max == len(search["iterations"])
        marked = {"main": 0, "aux": 0}
        for it, iteration in enumerate(search["iterations"]):
            e.beam_step.value = it + 1
            assert (e.rule_index, e.iteration) == (k, it)
            assert e.step.value == e.view.step_of(k, it) + 1  # numbered from 1, as the iterations
            assert f"beam iteration {it + 1} of {len(search['iterations'])}" in e.status.value
            for which, key, html_widget, bucket, test in (
                    ("main", "main_beam", e.main_html, "bucket", "local_test"),
                    ("aux", "aux_beam", e.aux_html, "aux_bucket", "aux_local_test")):
                cands = iteration[key]
                df = e.main_table() if which == "main" else e.aux_table()
                ref = trace.beams(k, it, which)
                assert len(df) == len(cands) == len(ref)
                header, rows = parse_table(html_widget.value)
                assert len(rows) == len(cands)
                for i, (c, (cls, row)) in enumerate(zip(cands, rows)):
                    assert df["conditions"][i] == " AND ".join(c["conditions"]) == row["conditions"]
                    assert int(row["coverage"]) == c["coverage"] == df["coverage"][i] == ref["coverage"][i]
                    assert int(row["outside rule set"]) == c["coverage_uncovered"] == df["coverage_uncovered"][i]
                    assert float(row["r (Eq. 3.21)"]) == pytest.approx(c["r"], rel=1e-3)
                    assert float(row["R (Eq. 3.24)"]) == pytest.approx(c["R"], rel=1e-3)
                    assert df["r"][i] == c["r"] and df["R"][i] == c["R"]
                    assert int(row["bucket"]) == c[bucket]
                    assert row["local test"] == ("pass" if c[test] else "fail")
                    is_chosen = c["id"] == search["chosen"]["id"]  # one growth, not its literals
                    assert df["chosen"][i] == is_chosen
                    assert ("turs-chosen" in cls) == is_chosen == (row["chosen"] == "\u2605 chosen")
                    n_rows_seen += 1
            # the local-test panel: the rejected growths of this iteration, both sides of the test
            _, rejected = parse_table(e.rejected_html.value)
            for test, key, bits in (("main", "rejected_by_local_test", "local_test_bits"),
                                    ("aux", "aux_rejected_by_local_test", "aux_local_test_bits")):
                shown = [r for cls, r in rejected if f"turs-test-{test}" in cls and "turs-rejected-row" in cls]
                recorded = iteration[key]
                assert len(shown) == min(len(recorded), 12)
                for r, c in zip(shown, recorded):
                    assert r["growth"] == " AND ".join(c["conditions"])
                    assert float(r["bits without split"]) == pytest.approx(c[bits]["bits_without_split"], abs=0.006)
                    assert float(r["bits with split"]) == pytest.approx(c[bits]["bits_with_split"], abs=0.006)
                    # rejected: the split does not pay for itself (Eq. 3.22 / 3.25)
                    assert c[bits]["bits_with_split"] >= c[bits]["bits_without_split"]
                    assert float(r["split costs"]) >= 0
            marked["main"] += int(e.main_table()["chosen"].sum())
            marked["aux"] += int(e.aux_table()["chosen"].sum())
        # the chosen rule is one growth of one iteration (in the main beam, the auxiliary beam or
        # both): one star per beam at most, never a second candidate with the same literals
        assert 1 <= marked["main"] + marked["aux"] and marked["main"] <= 1 and marked["aux"] <= 1
    assert n_rows_seen > 50


@pytest.mark.slow
@needs_widgets
def test_boxes_and_covers_match_the_literals(blockade, blockade_explorer):
    model, X, y = blockade
    trace = model.trace_
    e = blockade_explorer
    assert (e.x_feature.value, e.y_feature.value) == ("X1", "X2")  # the first two numeric columns
    fx, fy = trace.feature_names.index("X1"), trace.feature_names.index("X2")
    yv = np.asarray(y)
    checked = 0
    for k, search in enumerate(trace.searches):
        rules_before = model.rules_[:k]
        for it, iteration in enumerate(search["iterations"]):
            e.show(k, it)
            if not iteration["main_beam"]:  # the last iteration: every growth rejected, empty beams
                # the picture shows the rule the search returned: the last step of its lineage
                assert not iteration["aux_beam"] and search["stop"]["iteration"] == it
                assert e.selected == ("lineage", len(search["lineage"]) - 1)
                continue
            # default selection: the best of the main beam
            best = max(range(len(iteration["main_beam"])), key=lambda i: iteration["main_beam"][i]["r"])
            assert e.selected == ("main", best)
            for which, key in (("main", "main_beam"), ("aux", "aux_beam")):
                for i, c in enumerate(iteration[key]):
                    if i in (0, len(iteration[key]) - 1):  # through the dropdown (each one a redraw)
                        e.candidate.value = (which, i)
                        assert e.selected == (which, i)
                        boxes, mask = e.current_boxes(), e.covered_mask()
                        assert len(boxes) == len(rules_before) + 1
                        box = boxes[-1]
                    else:  # the rest through the same functions, without drawing
                        box = e.view.box(c["literals"], fx, fy)
                        mask = e.view.cover_mask(c["literals"])
                    assert box == pytest.approx(expected_box(model, X, c["literals"], fx, fy))
                    assert mask.sum() == c["coverage"]
                    assert list(np.bincount(yv[mask], minlength=2)) == c["class_counts"]
                    checked += 1
            # the rules so far, from the model's own conditions
            for box, rule in zip(e.rule_boxes(), rules_before):
                lim = {cond.column: (cond.low, cond.high) for cond in rule.conditions}
                for (lo, hi), name, j in zip((box[:2], box[2:]), ("X1", "X2"), (fx, fy)):
                    low, high = lim.get(name, (None, None))
                    xj = X[name].to_numpy()
                    assert lo == pytest.approx(low if low is not None else xj.min())
                    assert hi == pytest.approx(high if high is not None else xj.max())
    assert checked > 50


@needs_widgets
def test_candidate_selection_changes_plot_and_marks_the_row(blockade, blockade_explorer):
    model, X, y = blockade
    e = blockade_explorer
    e.show(1, 1)  # rule search 2: the auxiliary beam is not empty
    assert len(e.aux_table()) > 0
    before = (e.plot.value, e.candidate_box())
    e.candidate.value = ("aux", len(e.aux_table()) - 1)
    assert (e.plot.value, e.candidate_box()) != before
    _, rows = parse_table(e.aux_html.value)
    assert ["turs-selected" in cls for cls, _ in rows] == [i == len(rows) - 1 for i in range(len(rows))]
    _, main_rows = parse_table(e.main_html.value)
    assert not any("turs-selected" in cls for cls, _ in main_rows)
    # the selected row is outlined in the pictures' candidate colour (turs.style), not a colour of its own
    from turs import style
    from turs.explorer import _html

    outline = re.findall(r"tr\.turs-selected td[^{]*\{([^}]*)\}", _html.CSS)
    assert len(outline) == 3 and all(f"3px solid {style.CANDIDATE}" in rule for rule in outline)


@needs_widgets
def test_feature_dropdowns_move_the_boxes(iris):
    model, X, y = iris
    e = SearchExplorer(model, X, y)
    # the two columns the rules use most (ties: the data's order)
    uses = pd.Series([c.column for r in model.rules_ for c in r.conditions]).value_counts()
    order = sorted(X.columns, key=lambda c: (-uses.get(c, 0), list(X.columns).index(c)))
    assert (e.x_feature.value, e.y_feature.value) == tuple(order[:2])
    e.show(len(model.trace_.searches) - 1, 0)
    e.x_feature.value = "petal length (cm)"
    e.y_feature.value = "petal width (cm)"
    boxes = e.rule_boxes()
    assert len(boxes) == len(model.rules_)
    for box, rule in zip(boxes, model.rules_):
        lim = {c.column: (c.low, c.high) for c in rule.conditions}
        lo, hi = lim.get("petal length (cm)", (None, None))  # a rule without it spans the data
        assert box[0] == pytest.approx(lo if lo is not None else X["petal length (cm)"].min())
        assert box[1] == pytest.approx(hi if hi is not None else X["petal length (cm)"].max())


@needs_widgets
def test_navigation_buttons_play_and_global_step(blockade, blockade_explorer):
    model, X, y = blockade
    e = blockade_explorer
    e.show(0, 0)
    steps = all_steps(e)
    assert len(steps) == sum(len(s["iterations"]) for s in model.trace_.searches)
    assert e.play.max == e.step.max == len(steps) and e.play.min == e.step.min == 1
    for s in range(1, len(steps)):
        e.next_button.click()
        assert (e.rule_index, e.iteration) == steps[s]
        assert (e.rule_step.value, e.beam_step.value) == (steps[s][0] + 1, steps[s][1] + 1)
        assert e.step.value == e.play.value == s + 1
    e.next_button.click()  # past the end: stays
    assert (e.rule_index, e.iteration) == steps[-1]
    e.prev_button.click()
    assert (e.rule_index, e.iteration) == steps[-2]
    e.play.value = 4  # what the Play widget does in the browser
    assert e.step.value == 4 and (e.rule_index, e.iteration) == steps[3]
    e.step.value = 1
    assert e.play.value == 1 and (e.rule_index, e.iteration) == (0, 0)


@needs_widgets
def test_rule_set_text_is_printed_as_the_estimator_prints_it(blockade, iris):
    for model, X, y in (blockade, iris):
        e = SearchExplorer(model, X, y)
        final = str(model).splitlines()
        K = len(model.rules_)
        for k in range(len(model.trace_.searches)):
            e.rule_step.value = k + 1
            text = e.ruleset_text()
            assert e.ruleset.value.startswith("<pre") and "TURS rule set" in e.ruleset.value
            lines = text.splitlines()
            assert lines[0].startswith(f"TURS rule set: {k if k <= K else K} rules")
            assert lines[1:1 + min(k, K)] == final[1:1 + min(k, K)]  # the same rule lines
            assert lines[-1].lstrip().startswith("ELSE")
            if k >= K:
                assert text == str(model)
        # the else-rule of the empty rule set is the training class distribution
        e.rule_step.value = 1
        counts = pd.Series(np.asarray(y)).value_counts().reindex(model.classes_).to_numpy()
        assert f"(n={counts.sum()})" in e.ruleset_text().splitlines()[-1]
        assert e.final_model.value.count("IF ") == K


@needs_widgets
def test_explorer_from_a_trace_alone(blockade, blockade_explorer):
    model, X, y = blockade
    trace = SearchTrace.from_json(model.trace_.to_json())
    e = SearchExplorer(trace, X, y)
    ref = blockade_explorer
    for k in range(trace.n_searches):
        for it in range(len(trace.searches[k]["iterations"])):
            for which in ("main", "aux", "rejected"):
                pd.testing.assert_frame_equal(e.view.table(k, it, which), ref.view.table(k, it, which))
        e.rule_step.value = ref.rule_step.value = k + 1
        assert np.allclose(e.current_boxes(), ref.current_boxes())
        assert e.ruleset_text().splitlines()[1:] == ref.ruleset_text().splitlines()[1:]
        assert e.status.value == ref.status.value and e.main_html.value == ref.main_html.value
    # and without data: tables still there, boxes clipped to the cut range, the plot says why it is empty
    bare = SearchExplorer(trace)
    bare.show(1, 1)
    ref.show(1, 1)
    pd.testing.assert_frame_equal(bare.main_table(), ref.main_table())
    beam = trace.searches[1]["iterations"][1]["main_beam"]
    literals = max(beam, key=lambda c: c["r"])["literals"]  # the default: best r, first on ties
    expected = []
    for j in (0, 1):
        cuts = trace.cuts[j]
        pad = 0.1 * (cuts[-1] - cuts[0])
        low, high = cuts[0] - pad, cuts[-1] + pad  # no data: unbounded sides end 10% past the cuts
        for col, a, b in literals:
            if col == j:
                low = cuts[a - 1] if a > 0 else low
                high = cuts[b - 1] if b < len(cuts) + 1 else high
        expected += [low, high]
    assert bare.candidate_box() == pytest.approx(tuple(expected))
    assert bare.covered_mask() is None
    assert bare.plot.value[:4] == b"\x89PNG"
    assert "ELSE (n=" in bare.ruleset_text()


@needs_widgets
def test_input_errors(blockade):
    model, X, y = blockade
    with pytest.raises(ValueError, match="record_trace=True"):
        SearchExplorer(TURSClassifier().fit(X, y))
    with pytest.raises(ValueError, match="not fitted"):
        SearchExplorer(TURSClassifier(record_trace=True))
    with pytest.raises(TypeError, match="SearchTrace"):
        SearchExplorer(42)
    with pytest.raises(ValueError, match="both X and y"):
        SearchExplorer(model, X)
    e = SearchExplorer(model, X, y)
    with pytest.raises(ValueError, match="rule_index"):
        e.show(99, 0)
    with pytest.raises(ValueError, match="iteration"):
        e.show(0, 99)


@pytest.mark.slow
@needs_widgets
def test_stepping_a_30_rule_trace_draws_each_step_once(thirty_rules):
    """Stepping through a long trace: every step shows its own search and iteration, is drawn once
    (a new picture each time, one redraw recorded per step) and revisiting it is served from the
    figure cache (the same picture, no new drawing). How long a redraw takes is measured by
    ``tools/bench_explorer_redraw.py``, not here."""
    model, X, y = thirty_rules
    trace = model.trace_
    assert trace.n_searches >= 30
    e = SearchExplorer(model, X, y)
    steps = all_steps(e)
    assert len(steps) > 200
    picks = list(range(1, 25)) + list(range(len(steps) - 25, len(steps)))
    pictures = set()
    for s in picks:
        n_redraws, n_cached = len(e.redraw_seconds), len(e._cache)
        e.step.value = s + 1
        assert (e.rule_index, e.iteration) == steps[s]
        assert len(e.redraw_seconds) == n_redraws + 1 and e.redraw_seconds[-1] > 0
        assert len(e._cache) == min(n_cached + 1, e._cache_size)  # one new picture: this step's
        assert e.draw_error is None and e.plot.value not in pictures
        pictures.add(e.plot.value)
    # revisiting a step is served from the figure cache: the same picture, nothing drawn
    first = e._figure("data")
    e.step.value = picks[0] + 1
    n_cached = len(e._cache)
    again = e._figure("data")
    assert len(e._cache) == n_cached and again[0] is e._cache[next(reversed(e._cache))][0]
    assert first[0] is not again[0]
    # the rule set of the last search lists 29 rules, the plot 29 boxes + the candidate's
    e.show(29, 0)
    assert len(e.rule_boxes()) == 29 and len(e.current_boxes()) == 30


# ------------------------------------------------- explanations, any data, readable
@pytest.mark.slow
@needs_widgets
def test_figure_titles_follow_the_step_not_the_cache(blockade):
    """show(0, 3) then show(0, 6) drew the old title: the cache was keyed by the literals only."""
    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    n_it = len(model.trace_.searches[0]["iterations"])
    assert n_it >= 7
    for tab, kind in enumerate(("data", "coverage", "lineage", "mdl")):
        e.figures.selected_index = tab
        e.show(0, 3)
        first = (e.figure_titles[kind], bytes(getattr(e, _IMAGE[kind]).value))
        e.show(0, 6)
        title, png = e.figure_titles[kind], bytes(getattr(e, _IMAGE[kind]).value)
        if kind == "lineage":  # one picture per rule search
            assert title == first[0] == "rule search 1: how the chosen rule grew"
        else:
            assert "iteration 7" in title and "iteration 4" in first[0], (kind, title)
            assert png != first[1]
    # every cached picture carries the title it was drawn with, and that title is in its key
    for key, (png, title, *_) in e._cache.items():
        assert title in key


_IMAGE = {"data": "plot", "coverage": "coverage_plot", "lineage": "lineage_plot", "mdl": "mdl_plot"}


@pytest.mark.slow
@needs_widgets
def test_keys_step_iterations_and_rule_searches(blockade):
    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    steps = list(e.view.steps)
    assert e.handle_key("ArrowRight") and (e.rule_index, e.iteration) == steps[1]
    assert e.handle_key({"key": "ArrowLeft", "type": "keydown"}) and (e.rule_index, e.iteration) == steps[0]
    assert e.handle_key("PageDown") and (e.rule_index, e.iteration) == (1, 0)
    assert (e.rule_step.value, e.beam_step.value) == (2, 1)
    assert e.handle_key("PageUp") and (e.rule_index, e.iteration) == (0, 0)
    e.handle_key("PageUp")  # at the first search: stays
    assert (e.rule_index, e.iteration) == (0, 0)
    assert e.handle_key("End") and (e.rule_index, e.iteration) == steps[-1]
    assert not e.handle_key("a") and (e.rule_index, e.iteration) == steps[-1]
    assert e._events is not None and e._events.watched_events == ["keydown"]
    # the hidden buttons the page-wide listener clicks: one per key, each doing what its key does
    from turs.explorer import _keys

    buttons = {c._dom_classes[0][len(_keys.BUTTON_CLASS):]: c for c in e.key_buttons.children}
    assert set(buttons) == set(_keys.KEYS) and e.key_buttons.layout.display == "none"
    buttons["Home"].click()
    assert (e.rule_index, e.iteration) == steps[0]
    buttons["ArrowRight"].click()
    assert (e.rule_index, e.iteration) == steps[1]
    buttons["PageDown"].click()
    assert (e.rule_index, e.iteration) == (1, 0)
    buttons["End"].click()
    assert (e.rule_index, e.iteration) == steps[-1]
    script = _keys.script()
    assert all(f'"{key}"' in script for key in _keys.KEYS) and f".{_keys.ROOT_CLASS}" in script
    assert _keys.ROOT_CLASS in e._dom_classes
    assert "turs-key-" not in "".join(c for w in (e, e.figures) for c in w._dom_classes)
    quiet = SearchExplorer(model, X, y, keyboard=False)  # no keys: no listener, no buttons
    assert quiet._events is None and quiet.key_buttons.children == ()


@needs_widgets
def test_why_lineage_and_stop_panels_give_the_trace_numbers(blockade):
    from turs.explorer import _explain

    model, X, y = blockade
    trace = model.trace_
    e = SearchExplorer(model, X, y)
    for k, s in enumerate(trace.searches):
        e.show(k, 0)
        # why this rule: the MDL change by part of the chosen rule and of the runner-up
        header, rows = parse_table(e.why_html.value)
        table = {r["MDL change (bits)"]: r for _, r in rows}
        for key, name in (("model_bits", "model code L(M)"), ("data_bits", "data code"),
                          ("regret_bits", "regret"), ("total", "total")):
            assert float(table[name]["chosen"]) == pytest.approx(s["chosen"]["mdl_change"][key], abs=0.051)
            assert float(table[name]["runner-up"]) == pytest.approx(s["runner_up"]["mdl_change"][key], abs=0.051)
        parts = s["chosen"]["mdl_change"]
        assert parts["total"] == pytest.approx(parts["model_bits"] + parts["data_bits"] + parts["regret_bits"])
        assert s["mdl_before"] + parts["total"] == pytest.approx(s["chosen"]["mdl_after"])
        margin = s["chosen"]["r"] - s["runner_up"]["r"]
        assert f"lost by {margin:.3g} in r" in html_text(e.why_html.value)
        # lineage: from the empty rule to the chosen rule, each step's loser is the best other candidate
        rows = _explain.lineage_rows(trace, k)
        assert rows[0]["id"] == f"r{k}-empty" and rows[-1]["id"] == s["chosen"]["id"]
        for r in rows[1:]:
            beam = s["iterations"][r["iteration"]]["main_beam"]
            others = [c for c in beam if c["id"] != r["id"]]
            best = max(others, key=lambda c: c["r"])
            assert r["loser"]["id"] == best["id"] or r["loser"]["r"] == best["r"]
            if r["rank"] is not None:
                assert r["margin"] == pytest.approx(r["r"] - best["r"])
                assert r["rank"] == 1 + sum(c["r"] > r["r"] for c in beam)
        _, lin = parse_table(e.lineage_html.value)
        assert [row["literal added"] for _, row in lin[1:]] == [r["added"] for r in rows[1:]]
        # stop reasons in words, for the search and the fit
        assert "stopped at beam iteration" in e.status.value
    stop = trace.fit_stop
    assert stop["reason"] in ("rule_not_accepted", "no_candidate", "max_rules")
    text = html_text(e.fit_stop.value)
    assert text.startswith("The fit stopped")
    if stop["reason"] == "rule_not_accepted":
        assert f"{stop['mdl_change']['total']:+.1f} bits" in text


def html_text(value: str) -> str:
    import html as _h
    import re

    return _h.unescape(re.sub(r"<[^>]+>", "", value))


@needs_widgets
def test_selecting_a_rule_highlights_it_everywhere(blockade):
    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    k = len(model.rules_)  # the last search: every accepted rule is in the set before it
    e.show(k, 0)
    e.select(("rule", 1))
    assert e.candidate.value == ("rule", 1)
    assert e.covered_mask().sum() == model.rules_[1].coverage
    np.testing.assert_array_equal(e.covered_mask(), model.apply(X)[:, 1])
    assert e.figure_titles["data"].endswith("R2")
    e.figures.selected_index = 1
    patterns = e.coverage_patterns()
    # the rows x rules view groups the same rows as the model's covers (no extra column for a rule)
    want = pd.Series([tuple(np.flatnonzero(r)) for r in model.apply(X)]).value_counts()
    assert dict(zip(patterns["pattern"], patterns["n"])) == want.to_dict()
    # a candidate gets its own column
    e.select(("main", 0))
    covers, labels, highlight = e._coverage_columns()
    assert labels[-1] == "sel" and highlight == len(labels) - 1
    np.testing.assert_array_equal(covers[:, -1], e.covered_mask())
    with pytest.raises(ValueError, match="not a selection"):
        e.select(("rule", 99))


def test_union_estimate_shown_is_predict_proba(blockade, thirty_rules):
    from turs.explorer._data import cover_patterns

    for model, X, y in (blockade, thirty_rules):
        covers = model.apply(X)
        codes = np.searchsorted(model.classes_, np.asarray(y))
        patterns = cover_patterns(covers, codes, len(model.classes_))
        assert patterns["n"].sum() == len(X)
        proba = model.predict_proba(X)
        keys = [tuple(np.flatnonzero(r)) for r in covers]
        by_pattern = dict(zip(patterns["pattern"], patterns["proba"]))
        for i in range(0, len(X), 7):
            np.testing.assert_allclose(by_pattern[keys[i]], proba[i], rtol=1e-12)
        assert any(len(p) >= 2 for p in patterns["pattern"]) or model is blockade[0]


def mixed_data(n=600, seed=3):
    """A categorical, a two-level, a numeric and a 0/1 column; the label depends on all but the last."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "yellow"], n)
    size = rng.choice(["small", "large"], n)
    weight = rng.normal(10, 3, n)
    flag = rng.integers(0, 2, n)
    p = np.where((colour == "red") | ((colour == "blue") & (weight > 11)), 0.9, 0.15)
    p = np.where(size == "large", p * 0.8, p)
    y = np.where(rng.random(n) < p, "yes", "no")
    X = pd.DataFrame({"colour": colour, "size": size, "weight": weight, "flag": flag})
    return X, y


@pytest.mark.parametrize("with_model", [True, False])
def test_region_drawn_is_the_rule_on_any_column(with_model):
    """The drawn region of a rule (intervals on numeric columns, kept levels on categorical
    ones) holds exactly the rows the rule covers: the region equals the rule's thresholds."""
    from turs.explorer._data import DataView
    from turs.explorer._view import TraceView

    X, y = mixed_data()
    model = TURSClassifier(record_trace=True).fit(X, y)
    assert any(c.is_onehot for r in model.rules_ for c in r.conditions), "want a rule on a category"
    view = TraceView(model.trace_ if not with_model else model.trace_, model if with_model else None, X, y)
    dv = DataView(view, X)
    assert dv.kinds == {"colour": "categorical", "size": "categorical", "weight": "numeric", "flag": "numeric"}
    covers = model.apply(X)
    for i, lits in enumerate(c["literals"] for c in view.accepted_before(view.n_searches)):
        inside = np.ones(len(X), dtype=bool)
        for col in dv.columns:
            if dv.is_categorical(col):
                kept = [dv.levels[col][j] for j in dv.allowed_levels(lits, col)]
                inside &= X[col].astype(str).isin([str(v) for v in kept]).to_numpy()
            else:
                low, high = dv.interval(lits, col)
                inside &= (X[col].to_numpy() >= low) & (X[col].to_numpy() < high)
        np.testing.assert_array_equal(inside, covers[:, i])
        # the numeric thresholds are the printed rule's
        for cond in model.rules_[i].conditions:
            if not cond.is_onehot:
                low, high = dv.interval(lits, cond.column)
                assert low == (cond.low if cond.low is not None else -math.inf)
                assert high == (cond.high if cond.high is not None else math.inf)
    # drawn positions: a level's rows sit in its strip, jittered less than half a strip
    pos = dv.positions("colour")
    codes = dv.level_codes("colour")
    assert (np.abs(pos - codes) <= 0.32).all() and (codes >= 0).all()
    assert dv.spans([[model.encoder_.names_.index("colour=red") if with_model else
                      view.feature_names.index("colour=red"), 1, 2]], "colour") == [
        (dv.levels["colour"].index("red") - 0.5, dv.levels["colour"].index("red") + 0.5)]


def test_pictures_are_readable_at_100_dpi(blockade, thirty_rules):
    """Every text of every picture is at least 14 px at 100 dpi (10.1 pt), no two rule labels overlap."""
    from turs import style
    from turs.explorer import _draw
    from turs.explorer._data import DataView, cover_patterns
    from turs.explorer._view import TraceView

    min_pt = 14 * 72 / _draw.DPI
    for model, X, y in (blockade, thirty_rules):
        view = TraceView(model.trace_, model, X, y)
        dv = DataView(view, X)
        rules = [(f"R{i + 1}", c["literals"]) for i, c in enumerate(view.accepted_before(view.n_searches))]
        x, yc = dv.default_columns()
        figs = [_draw.data_figure(dv, x, yc, rules, rules[0], title="t"),
                _draw.coverage_figure(cover_patterns(model.apply(X), view.y_codes, 2), [r for r, _ in rules],
                                      view.classes, 0, "t"),
                _draw.lineage_figure(view.trace, 0, None, "t")]
        for fig in figs:
            style.check_fonts(fig, min_pt)
        fig = figs[0]
        fig.canvas.draw()
        ax = fig.axes[0]
        labels = [t for t in ax.texts if t.get_text().startswith(("R", "cand"))]
        boxes = [t.get_window_extent() for t in labels]
        assert len(labels) >= min(len(rules), 3)
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                assert not boxes[i].overlaps(boxes[j]), (labels[i].get_text(), labels[j].get_text())
    assert _draw.DPI >= 100


@needs_widgets
def test_pictures_cut_off_no_text():
    """Long column names, class names and titles: every text of the four pictures is whole (no
    "\u2026"; long ones are wrapped between words) and lies inside the picture; the app's titles
    are drawn in full."""
    from matplotlib.text import Text

    from turs.explorer import _draw, _render
    from turs.explorer._data import DataView, cover_patterns

    X, y = make_overlap_blockade_data(600, 0)
    X = X.rename(columns={"X1": "systolic blood pressure at admission", "X2": "number of previous visits"})
    y = np.where(np.asarray(y) == 1, "readmitted within thirty days", "not readmitted")
    model = TURSClassifier(record_trace=True, max_rules=3).fit(X, y)
    e = SearchExplorer(model, X, y)
    e.show(1, 1, ("main", 0))
    titles = {}
    for tab, kind in enumerate(("data", "coverage", "lineage", "mdl")):
        e.figures.selected_index = tab
        titles[kind] = e.figure_titles[kind]
    assert len(titles["coverage"]) > 66  # longer than a title line: the picture must wrap it
    view, dv = e.view, DataView(e.view, X)
    cand = e.selected_candidate()
    rules = [(f"R{i + 1}", c["literals"]) for i, c in enumerate(view.accepted_before(1))]
    x, yc = e.x_feature.value, e.y_feature.value
    covers, labels, highlight = e._coverage_columns()
    figs = {"data": _draw.data_figure(dv, x, yc, rules, ("cand #0", cand["literals"]), title=titles["data"]),
            "coverage": _draw.coverage_figure(cover_patterns(covers, view.y_codes, 2), labels, view.classes,
                                              highlight, titles["coverage"]),
            "lineage": _draw.lineage_figure(view.trace, 1, cand.get("id"), titles["lineage"])}
    captured = {}
    real_png = _render.png
    _render.png = lambda fig: captured.setdefault("mdl", fig) and real_png(fig)
    try:
        _render.mdl_png(view, 1, cand, titles["mdl"])
    finally:
        _render.png = real_png
    figs["mdl"] = captured["mdl"]
    for kind, fig in figs.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        width, height = fig.bbox.width, fig.bbox.height
        texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
        whole = " ".join(" ".join(t.get_text().split()) for t in texts)
        assert "\u2026" not in whole, (kind, whole)
        assert " ".join(titles[kind].split()) in whole, (kind, titles[kind])
        for name in ("systolic blood pressure at admission", "readmitted within thirty days"):
            if kind == "data" or (kind == "coverage" and "readmitted" in name):
                assert name in whole, (kind, name)
        # everything drawn (texts, legends, tick labels in view) lies inside the picture
        box = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1, \
            (kind, tuple(box.extents), (width, height))


def test_large_data_are_subsampled_for_drawing_only():
    from turs.explorer._data import DataView
    from turs.explorer._view import TraceView

    X, y = make_overlap_blockade_data(12000, 1)
    model = TURSClassifier(record_trace=True, max_rules=1).fit(X, y)
    dv = DataView(TraceView(model.trace_, model, X, y), X)
    rows, note = dv.draw_rows(5000)
    assert len(rows) == 5000 and len(np.unique(rows)) == 5000 and "5,000 of 12,000" in note
    assert dv.draw_rows(20000) == (pytest.approx(np.arange(12000)), "") or len(dv.draw_rows(20000)[0]) == 12000
    assert model.trace_.n_train == 12000  # the fit saw every row


def test_a_sampled_search_says_its_numbers_are_the_samples(monkeypatch):
    """Above the sampled search's threshold the trace holds the sample's search: the status line
    says so with both row counts, and the MDL picture draws no candidate on the all-rows axes
    (a candidate's score on the sample is on another scale); a search on all rows says nothing."""
    from matplotlib.axes import Axes

    from turs.explorer import _html, _render
    from turs.explorer._view import TraceView

    X, y = make_overlap_blockade_data(n=1200, seed=4)
    exact = TURSClassifier(beam_width=5, record_trace=True).fit(X, y)
    monkeypatch.setattr(_config, "SAMPLED_MIN_ROWS", 1000)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_ROWS", 600)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_MAX", 600)
    model = TURSClassifier(beam_width=5, record_trace=True).fit(X, y)
    view, plain = TraceView(model.trace_, model, X, y), TraceView(exact.trace_, exact, X, y)
    assert view.search(0)["sample_rows"] == 600
    text = _html.status_html(view, 0, 0)
    assert "stratified sample of 600 of 1,200 training rows" in text
    assert "sample" not in _html.status_html(plain, 0, 0)
    drawn = []
    real_plot = Axes.plot

    def plot(self, *args, **kwargs):
        drawn.append(kwargs.get("label"))
        return real_plot(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "plot", plot)
    last = view.n_searches - 1  # the search whose rule was not accepted: its best is not drawn either
    candidate = view.candidates(last, 0)[0] if view.n_iterations(last) else None
    _render.mdl_png(view, last, candidate)
    assert "selected, if added" not in drawn and "best rule: not accepted" not in drawn
    drawn.clear()
    k = plain.n_searches - 1
    _render.mdl_png(plain, k, plain.candidates(k, 0)[0] if plain.n_iterations(k) else None)
    assert "selected, if added" in drawn


# ------------------------------------------------- the Data picture follows the selection
@pytest.mark.slow
@needs_widgets
def test_the_data_picture_follows_the_selected_candidate():
    """Selecting a candidate puts its columns on the axes (so its box is drawn there); a manual
    choice of axes stays until the next selection; conditions off the axes are named."""
    X, y = load_bundled("sklearn-breast-cancer")
    model = TURSClassifier(record_trace=True, beam_width=5).fit(X, y)
    e = SearchExplorer(model, X, y)
    names = list(X.columns)
    seen = {1: 0, 2: 0, 3: 0}  # candidates checked on one column, two, more
    for k, it in e.view.steps:
        if min(seen.values()) >= 3:
            break
        for which in ("main", "aux"):
            for i, c in enumerate(e.view.candidates(k, it, which)):
                cols = []
                for j, _, _ in c["literals"]:
                    if names[int(j)] not in cols:
                        cols.append(names[int(j)])
                if seen[min(len(cols), 3)] >= 3:
                    continue
                seen[min(len(cols), 3)] += 1
                if (e.rule_index, e.iteration) != (k, it):
                    e.show(k, it)
                e.select((which, i))
                shown = [e.x_feature.value, e.y_feature.value]
                if len(cols) == 1:
                    assert cols[0] in shown
                else:
                    assert set(shown) <= set(cols) and shown[0] != shown[1]
                # the box drawn is the candidate's interval on each axis
                box = e.candidate_box()
                for col, (lo, hi) in zip(shown, [box[:2], box[2:]]):
                    low, high = e.data.interval(c["literals"], col)
                    if np.isfinite(low):
                        assert lo == pytest.approx(low)
                    if np.isfinite(high):
                        assert hi == pytest.approx(high)
                hidden = e.hidden_conditions()
                assert len(hidden) == sum(names[int(j)] not in shown for j, _, _ in c["literals"])
                assert bool(hidden) == (len(cols) > 2)
                if hidden:
                    assert "cannot show" in e.draw_note.value and _html_esc(hidden[0]) in e.draw_note.value
    assert min(seen.values()) >= 3, seen
    # a manual choice of axes stays until the next selection
    e.show(0, 0)
    e.select(("main", 0))
    manual = [c for c in names if c not in (e.x_feature.value, e.y_feature.value)][:2]
    e.x_feature.value, e.y_feature.value = manual
    assert [e.x_feature.value, e.y_feature.value] == manual
    e._redraw()
    assert [e.x_feature.value, e.y_feature.value] == manual
    e.select(("main", 1))
    assert e.x_feature.value in e.selection_columns()


def _html_esc(text):
    import html

    return html.escape(text)


def test_a_runner_up_on_the_other_side_of_the_cut_is_explained():
    from turs.explorer._explain import complement_condition, why_rule

    assert complement_condition({"conditions": ["X1 < 0.5"]}, {"conditions": ["X1 >= 0.5"]}) == ("X1 < 0.5",
                                                                                                 "X1 >= 0.5")
    assert complement_condition({"conditions": ["c = u", "X2 < 2"]}, {"conditions": ["X2 < 2", "c != u"]}) == \
        ("c = u", "c != u")
    assert complement_condition({"conditions": ["X1 < 0.5"]}, {"conditions": ["X1 >= 0.6"]}) is None
    assert complement_condition({"conditions": ["X1 < 0.5"]}, {"conditions": ["X2 >= 0.5"]}) is None
    assert complement_condition({"conditions": ["0.5 <= X1 < 2"]}, {"conditions": ["0.5 <= X1 >= 2"]}) is None
    search = {"chosen": {"conditions": ["X1 < 0.5"], "r": 0.25, "literals": [[0, 0, 1]]},
              "runner_up": {"conditions": ["X1 >= 0.5"], "r": 0.25, "literals": [[0, 1, 2]]}, "accepted": True}
    text = " ".join(why_rule(search)["sentences"])
    assert "other side of the same cut (X1 < 0.5 against X1 >= 0.5)" in text and "a tie" in text
    search["runner_up"]["r"] = 0.2
    text = " ".join(why_rule(search)["sentences"])
    assert "other side of the same cut" in text and "a tie" not in text and "higher r" in text


def test_removing_a_rule_never_says_the_search_would_take_it():
    from turs.explorer._edit import edit_verdict

    assert edit_verdict(-3.0, removing=True) == ("The MDL score goes down by 3.00 bits: the code is shorter without "
                                                 "this rule. The search only adds rules; it never removes one.")
    assert "paid for itself" in edit_verdict(2.5, removing=True)
    assert "the search accepts a rule that does this" in edit_verdict(-1.0)
    assert "would not accept it" in edit_verdict(1.0)
    assert all("would take" not in edit_verdict(d, r) for d in (-1, 1) for r in (True, False))


@needs_widgets
def test_the_local_test_panel_shows_both_sides_of_every_recorded_growth(blockade):
    """Passed growths (the beams) and rejected ones, each with both sides of Eq. 3.22 / 3.25 as
    the trace records them; "k of N" where the trace kept only the best rejected growths; the
    order control sorts the rows."""
    from turs.explorer import _html

    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    trace = model.trace_
    k, it = 0, 1
    e.show(k, it)
    iteration = trace.searches[k]["iterations"][it]
    n_main = iteration["n_rejected_by_local_test"]
    kept = len(iteration["rejected_by_local_test"])
    assert n_main > kept > 0  # the trace keeps the best beam_width of them
    panel = e.rejected_html.value
    assert f"rejected {n_main} (the best {min(kept, 12)} of {n_main} listed)" in panel
    assert f"rejected by the main beam's test (Eq. 3.22): {min(kept, 12)} of {n_main}" in panel
    rows = table_rows(panel)
    passed = [cells for cls, cells in rows if "turs-passed-row" in cls and "turs-test-main" in cls]
    beam = [c for c in iteration["main_beam"] if c.get("local_test_bits")]
    assert len(passed) == len(beam) > 0
    shown = sorted((float(cells[1]), float(cells[2])) for cells in passed)
    recorded = sorted((round(c["local_test_bits"]["bits_without_split"], 2), round(c["local_test_bits"]
                                                                                  ["bits_with_split"], 2))
                      for c in beam)
    assert shown == recorded and all(c["local_test_bits"]["passed"] for c in beam)
    for cells in passed:
        without, with_split, saved = float(cells[1]), float(cells[2]), float(cells[3])
        assert without > with_split and saved == pytest.approx(with_split - without, abs=0.011)
    rejected = [cells for cls, cells in rows if "turs-rejected-row" in cls and "turs-test-main" in cls]
    assert all(float(c[2]) >= float(c[1]) for c in rejected)
    e.local_order.value = "split costs (+) / saves (-)"
    rows = table_rows(e.rejected_html.value)
    costs = [float(cells[3]) for cls, cells in rows if "turs-rejected-row" in cls and "turs-test-main" in cls]
    assert costs == sorted(costs) and len(costs) == len(rejected)
    assert list(_html.LOCAL_TEST_ORDERS)[0] in e.local_order.options


@needs_widgets
def test_the_beam_beside_the_picture_is_the_main_beam(blockade):
    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    e.show(0, 1)
    e.select(("main", 2))
    header, rows = parse_table(e.beam_html.value)
    assert header == ["#", "conditions", "rows", "r", "test"]  # short headers: the panel is narrow
    df = e.main_table()
    assert [r["conditions"] for _, r in rows] == list(df["conditions"])
    assert [int(r["rows"]) for _, r in rows] == list(df["coverage"])
    assert [cls for cls, _ in rows].index(next(c for c, _ in rows if "turs-selected" in c)) == 2
    assert e.panels.titles[0] == "Beam"


# ------------------------------------------------------ projector, prediction, fixes
def test_candidates_are_numbered_from_one_on_screen(blockade):
    """The app numbers candidates as the one-file page does (from 1); the selections (the API) keep
    the trace's indices (from 0)."""
    from turs.explorer import SearchExplorer, _html

    model, X, y = blockade
    e = SearchExplorer(model, X, y)
    opts = e.selection_options()
    n_main = len(e.view.candidates(0, 0, "main"))
    assert [label.split(":")[0] for label, sel in opts.items() if sel[0] == "main"] == \
        [f"main #{i}" for i in range(1, n_main + 1)]
    assert opts[next(label for label, sel in opts.items() if sel == ("main", 0))].__eq__(("main", 0))
    e.select(("main", 2))
    assert e._selection_label() == "cand #3" and e.figure_titles["data"].endswith("cand #3")
    table = _html.beam_table(e.view, 0, 0, "main", None, "Main beam", compact=True)
    firsts = re.findall(r"<tr class='[^']*' data-index='\d+'><td>(\d+)", table)
    assert firsts == [str(i) for i in range(1, n_main + 1)]


def test_an_iteration_with_empty_beams_shows_the_chosen_rule(blockade):
    """At a search's last iteration, whose beams are empty, the picture draws the rule the search
    returned (the last step of its lineage), not nothing."""
    model, X, y = blockade
    from turs.explorer import SearchExplorer

    e = SearchExplorer(model, X, y)
    k = next(k for k in range(e.view.n_searches) if e.view.n_iterations(k)
             and not e.view.candidates(k, e.view.n_iterations(k) - 1, "main")
             and not e.view.candidates(k, e.view.n_iterations(k) - 1, "aux"))
    last = e.view.n_iterations(k) - 1
    e.show(k, last)
    lineage = e.view.trace.lineage(k)
    assert e.selected == ("lineage", len(lineage) - 1)
    chosen = e.view.search(k)["chosen"]
    assert list(e.selected_candidate()["conditions"]) == list(chosen["conditions"])
    assert e.candidate.value == e.selected  # the list shows it too
    assert e.figure_titles["data"].endswith("chosen rule")  # and the picture names it so
    assert e.candidate_box() is not None and e.covered_mask().sum() == chosen["coverage"]


def test_a_clicked_point_gets_the_models_probabilities(blockade):
    """Why this prediction: the covering rules, the union of their covers (its class counts by
    brute force over the rows) and the probabilities are model.predict_proba of the row; the
    pixel the point is drawn at maps back to it; each step's picture exports as SVG."""
    from turs.explorer import SearchExplorer

    _, X, y = blockade
    # from the two overlapping rules of Fig. 3.1: rows covered by two rules, and by none
    model = TURSClassifier(record_trace=True).fit(X, y, initial_rules=["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"])
    e = SearchExplorer(model, X, y)
    covers = model.apply(X)
    yc = e.view.y_codes
    several = np.flatnonzero(covers.sum(axis=1) >= 2)
    none = np.flatnonzero(covers.sum(axis=1) == 0)
    assert len(several)
    for row in [int(several[0])] + [int(r) for r in none[:1]]:  # (a row no rule covers, when there is one)
        p = e.prediction(row)
        assert p["rules"] == [int(i) for i in np.flatnonzero(covers[row])]
        union = covers[:, p["rules"]].any(axis=1) if p["rules"] else ~covers.any(axis=1)
        assert p["n"] == union.sum() and list(p["counts"]) == list(np.bincount(yc[union], minlength=2))
        np.testing.assert_allclose(p["proba"], model.predict_proba(X.iloc[[row]])[0], atol=1e-12)
    row = int(several[0])
    px, py = e.point_pixel(row)
    assert 0 < px < 590 and 0 < py < 450
    assert e.row_at_pixel(px, py) == row or np.allclose(X.iloc[e.row_at_pixel(px, py)], X.iloc[row], atol=0.02)
    assert e.row_at_pixel(2, 2) is None  # the picture's corner: no point there
    e.explain_point(row)
    assert e.point == row and e.panels.selected_index == e.PREDICTION_TAB
    assert "why this prediction, step 1 of 3" in e.figure_titles["data"]
    html = e.prediction_html.value
    want = model.predict_proba(X.iloc[[row]])[0]
    assert "".join(f"<td>{v:.2f}</td>" for v in want) in html
    np.testing.assert_allclose(e.prediction(row)["model_proba"], want)  # computed, not claimed
    assert "model.predict_proba gives the same" in html
    best = model.classes_[int(np.argmax(want))]
    # the answer comes before the steps (it is on the first screen at 1280x720)
    assert html.index("turs-predict-answer") < html.index("1. The rules that cover it")
    assert f"The rule set predicts <b>{best}</b> with P = {want.max():.2f}" in html
    # each step's picture: no rows are solid at step 1, so no "solid:" note (it said "solid: the rows of
    # the union" over faded points); step 2 names the union's rows; step 3 has the bars instead
    x, y = e.x_feature.value, e.y_feature.value
    for step in (1, 2, 3):
        e.prediction_step.value = step
        assert f"step {step} of 3" in e.figure_titles["data"]
        texts = [t.get_text() for t in e._prediction_picture(x, y)[2]().texts]
        n = int(e.prediction(row)["n"])
        assert any(f"the {n:,} rows of the union".replace(" ", "") in t.replace("\n", "").replace(" ", "")
                   for t in texts) == (step == 2), (step, texts)
        assert any("solid" in t for t in texts) == (step == 2), (step, texts)
    # a model whose probabilities differ from the steps' is said to differ, not said to agree
    from turs.explorer._predict import _proba_check

    assert "NOT the same" in _proba_check({"proba": np.array([0.5, 0.5]), "model_proba": np.array([0.9, 0.1])})
    svg = e.svg().decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "why this prediction, step 3 of 3" in svg
    e._on_svg()
    assert "data:image/svg+xml;base64," in e.svg_link.value and "step3.svg" in e.svg_link.value
    e.step_forward()  # stepping the search ends the explanation
    assert e.point is None and "why this prediction" not in e.figure_titles["data"]
    with pytest.raises(ValueError, match="row must be in"):
        e.prediction(len(X))


def test_the_y_axis_title_stays_inside_the_picture():
    """Long category names on the y axis (the Edit rules tab draws the categorical demo): the axis
    title and the tick labels lie inside the figure."""
    from turs.explorer import _draw
    from turs.explorer._data import DataView
    from turs.explorer._view import TraceView

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({"weight": rng.normal(10, 3, n),
                      "colour of the car": rng.choice(["very light yellow", "dark bluish green", "red"], n)})
    y = (X["weight"] > 10).astype(int)
    model = TURSClassifier(record_trace=True).fit(X, y)
    view = TraceView(model.trace_, model, X, y)
    dv = DataView(view, X)
    fig = _draw.data_figure(dv, "weight", "colour of the car", [], None, title="edited rule set")
    _draw.png(fig)
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    assert ax.yaxis.label.get_window_extent(renderer).x0 >= 0
    assert ax.yaxis.get_tightbbox(renderer).x0 >= 0


def test_the_panels_beside_the_picture_are_no_taller_than_it():
    from turs.explorer import _draw, _html

    assert _html.PANEL_MAX_PX == round(_draw.DATA_FIGSIZE[1] * _draw.DPI) + 2 * _html.TAB_PADDING_PX
    assert f".turs-panels > .widget-tab-contents {{max-height: {_html.PANEL_MAX_PX}px; overflow-y: auto;}}" in _html.CSS


def test_the_pause_button_uses_a_glyph_the_fonts_have():
    """The play buttons' labels are CSS text; every character has a glyph in DejaVu Sans (the
    page's font here; U+23F8, the pause sign, has none in it)."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    from turs.explorer import _html

    # each label follows the button's icon (ipywidgets 8's Play has one play/pause button whose icon
    # changes, then stop: labels by position called the stop button "pause", which went back to step 0)
    by_icon = dict(re.findall(r'turs-play button:has\(i\.fa-([a-z]+)\)::after \{\{?content: "([^"]*)"', _html.CSS))
    assert {icon: label.split()[-1] for icon, label in by_icon.items()} == {
        "play": "play", "pause": "pause", "stop": "stop", "retweet": "repeat"}
    labels = list(by_icon.values())
    font = FT2Font(font_manager.findfont("DejaVu Sans"))
    for label in labels:
        text = re.sub(r"\\\\?([0-9A-Fa-f]{4})", lambda m: chr(int(m.group(1), 16)), label)
        missing = [f"U+{ord(c):04X}" for c in text if c.strip() and font.get_char_index(ord(c)) == 0]
        assert missing == [], (label, missing)
