"""turs.explorer.search_page: a recorded search as one self-contained HTML page (no browser here;
tests/test_search_page_browser.py drives the page in Chromium).

What is checked: the page imports and builds without ipywidgets; its Content-Security-Policy
allows exactly its own script and style by hash and nothing from outside; the embedded JSON holds
no ``<`` whatever the data hold; the recording goes in whole (every number, compressed or not);
the union estimate of each overlap pattern is ``predict_proba`` of its rows; ``points`` carries
all, a sample or none of the rows and says so; the notebook iframe holds the page; each bundled
teaching dataset's page is at most 3 MB; the class colours are those of ``turs.style``.
"""
import base64
import gzip
import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs import TURSClassifier, style
from turs.datasets import BUNDLED, load_bundled
from turs.explorer.page import SearchPage, player_script, search_page
from turs.explorer.page._payload import json_safe

REPO = Path(__file__).resolve().parent.parent
MAX_PAGE_BYTES = 3_000_000
HOSTILE = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "<!--", "a&amp;b"]


@pytest.fixture(scope="module")
def blockade():
    X, y = load_bundled("sim-overlap-blockade")
    return TURSClassifier(record_trace=True).fit(X, y), X, y


def hostile_data(n=400, seed=0):
    """Column names, levels and labels holding markup; the label depends on both columns."""
    rng = np.random.default_rng(seed)
    level = rng.choice([HOSTILE[0], HOSTILE[1], "plain"], n)
    x = rng.uniform(0, 1, n)
    p = np.where((level == HOSTILE[0]) & (x > 0.4), 0.9, 0.1)
    y = pd.Series(np.where(rng.random(n) < p, "<b>yes</b>", "no <script>"), name="label")
    return pd.DataFrame({HOSTILE[0]: x, HOSTILE[1]: level}), y


def embedded(page: SearchPage) -> dict:
    """The JSON the page carries (read back as the player reads it)."""
    m = re.search(r'<script type="application/json" id="turs-data">(.*?)</script>', page.html, re.S)
    if m:
        return json.loads(m.group(1))
    m = re.search(r'<script type="application/octet-stream" id="turs-data-gz">(.*?)</script>', page.html, re.S)
    return json.loads(gzip.decompress(base64.b64decode(m.group(1))))


def _sha(text):
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


# ----------------------------------------------------------------------- packaging
@pytest.mark.subprocess
def test_search_page_imports_and_builds_without_ipywidgets():
    code = ("import sys; sys.modules['ipywidgets'] = None\n"  # makes `import ipywidgets` fail
            "from turs import TURSClassifier\nfrom turs.datasets import load_bundled\n"
            "from turs.explorer import search_page\n"
            "X, y = load_bundled('sklearn-iris')\n"
            "page = search_page(TURSClassifier(record_trace=True).fit(X, y), X, y)\n"
            "print(page.size > 0, sorted(m for m, v in sys.modules.items() if m.startswith('ipywidgets') and v is not None))\n"
            "try:\n    from turs.explorer import explore\nexcept ImportError as e:\n    print('ERR', e)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "True []"
    assert lines[1].startswith("ERR") and "pip install 'turs[explorer]'" in lines[1]


@pytest.mark.subprocess
def test_importing_the_page_does_not_import_ipywidgets():
    code = "import sys, turs.explorer.page; print(sorted(m for m in sys.modules if m.startswith('ipywidgets')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_player_files_are_package_data():
    text = (REPO / "pyproject.toml").read_text()
    assert "explorer/page/*.js" in text and "explorer/page/*.css" in text
    assert player_script().startswith("(function () {")  # both scripts are found as package resources


# ----------------------------------------------------------------------- the page's safety
def test_csp_allows_only_the_pages_own_script_and_style(blockade):
    page = search_page(*blockade)
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page.html).group(1)
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    scripts = re.findall(r"<script>(.*?)</script>", page.html, re.S)  # executable: no type attribute
    styles = re.findall(r"<style>(.*?)</style>", page.html, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == f"'{_sha(scripts[0])}'"
    assert directives["style-src"] == f"'{_sha(styles[0])}'"
    assert directives["connect-src"] == "'none'"
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    # nothing on the page names anything outside it
    assert not re.search(r"\b(src|href|action)\s*=", page.html.split("<script")[0])
    text = page.html.replace('"http://www.w3.org/2000/svg"', "")  # the SVG namespace is a name, not a request
    assert "http://" not in text and "https://" not in text and "//cdn" not in text


def test_markup_in_names_levels_and_labels_never_reaches_the_page_as_markup():
    X, y = hostile_data()
    model = TURSClassifier(record_trace=True).fit(X, y)
    assert any(HOSTILE[1] in str(r) or HOSTILE[0] in str(r) for r in model.rules_)  # the rules use them
    page = search_page(model, X, y, title=HOSTILE[1])
    data_block = re.search(r'<script type="application/json" id="turs-data">(.*?)</script>', page.html, re.S).group(1)
    assert "<" not in data_block and ">" not in data_block and "&" not in data_block
    outside = page.html.replace(data_block, "")
    for text in HOSTILE[:3]:
        assert text not in outside
    assert f"<title>{html.escape(HOSTILE[1])}</title>" in page.html
    data = json.loads(data_block)  # the texts come back exactly
    assert data["title"] == HOSTILE[1]
    assert [c["name"] for c in data["columns"]] == [HOSTILE[0], HOSTILE[1]]
    assert set(data["classes"]) == {"<b>yes</b>", "no <script>"}
    # the player never writes markup from data
    js = player_script()
    assert "innerHTML" not in js and "outerHTML" not in js and "insertAdjacentHTML" not in js
    assert "document.write" not in js and "eval(" not in js


# ----------------------------------------------------------------------- what the page carries
def test_the_recording_goes_in_whole_plain_or_compressed(blockade):
    model, X, y = blockade
    want = json_safe(model.trace_.to_dict())
    plain = search_page(model, X, y, compress=False)
    packed = search_page(model, X, y, compress=True)
    assert not plain.compressed and packed.compressed
    assert embedded(plain)["trace"] == want
    assert embedded(packed)["trace"] == want
    assert packed.size < plain.size


def test_union_estimate_of_each_overlap_pattern_is_predict_proba():
    X, y = load_bundled("sklearn-breast-cancer")  # its three rules overlap on about 160 rows
    model = TURSClassifier(record_trace=True).fit(X, y)
    final = embedded(search_page(model, X, y))["final"]
    assert final["text"] == str(model)
    covers = model.apply(X)
    proba = model.predict_proba(X)
    assert sum(p["n"] for p in final["patterns"]) == len(X)
    for p in final["patterns"]:
        key = np.zeros(len(model.rules_), dtype=bool)
        key[p["pattern"]] = True
        rows = (covers == key).all(axis=1)
        assert rows.sum() == p["n"]
        assert np.allclose(proba[rows], p["proba"])
        assert p["counts"] == np.bincount(pd.Index(model.classes_).get_indexer(y[rows]), minlength=2).tolist()
    several = int((covers.sum(axis=1) >= 2).sum())
    assert final["overlap"]["several"] == several > 0


def test_points_all_sample_none_carry_what_the_page_says(blockade):
    model, X, y = blockade
    n = len(X)
    all_rows = embedded(search_page(model, X, y))["points"]
    assert all_rows["n_shown"] == n and all_rows["values"][0] == X.iloc[:, 0].tolist()
    assert f"all {n:,} training rows" in all_rows["note"]
    thinned = embedded(search_page(model, X, y, max_points=300))["points"]
    assert thinned["n_shown"] == 300 and "300 of the 1,000" in thinned["note"]
    sample = embedded(search_page(model, X, y, points="sample", max_points=50))
    pts = sample["points"]
    assert pts["n_shown"] == 50 and "points='sample'" in pts["note"] and pts["note"] in sample["left_out"]
    # each sampled row is a training row, with its label
    table = {(a, b): c for a, b, c in zip(X.iloc[:, 0], X.iloc[:, 1], pd.Index(model.classes_).get_indexer(y))}
    for a, b, c in zip(pts["values"][0], pts["values"][1], pts["class"]):
        assert table[(a, b)] == c
    none = embedded(search_page(model, X, y, points="none"))
    assert none["points"]["n_shown"] == 0 and none["points"]["values"] == [[], []]
    assert "no training rows" in none["points"]["note"] and none["left_out"]
    full = embedded(search_page(model, X, y))
    assert none["final"]["patterns"] == full["final"]["patterns"]  # estimates use every row, whatever is drawn


def test_bad_arguments_say_the_fix(blockade):
    model, X, y = blockade
    with pytest.raises(ValueError, match="points must be one of"):
        search_page(model, X, y, points="some")
    with pytest.raises(ValueError, match="max_points must be an int >= 1. Got 0"):
        search_page(model, X, y, max_points=0)
    with pytest.raises(ValueError, match="record_trace=True"):
        search_page(TURSClassifier().fit(X, y), X, y)


def test_save_and_notebook_iframe(blockade, tmp_path):
    model, X, y = blockade
    page = search_page(model, X, y, tmp_path / "p" / "search.html", title="blockade")
    assert (tmp_path / "p" / "search.html").read_text(encoding="utf-8") == page.html
    frame = page._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame).group(1)
    assert html.unescape(srcdoc) == page.html


@pytest.mark.parametrize("name", BUNDLED)
def test_each_bundled_teaching_page_is_at_most_3_mb(name, tmp_path):
    X, y = load_bundled(name)
    page = search_page(TURSClassifier(record_trace=True).fit(X, y), X, y, tmp_path / f"{name}.html")
    assert (tmp_path / f"{name}.html").stat().st_size == page.size <= MAX_PAGE_BYTES
    assert embedded(page)["points"]["n_shown"] == min(len(X), 5000)


def test_class_colours_are_those_of_turs_style():
    js = player_script()
    css = (REPO / "turs" / "explorer" / "page" / "player.css").read_text()
    colours = re.search(r"var COLORS = \[(.*?)\];", js).group(1)
    want = [c.upper() for c in style.class_colors(8)]
    assert [c.strip(' "').upper() for c in colours.split(",")] == want
    swatches = dict(re.findall(r"\.tp-sw-(\d) \{ background: (#[0-9A-Fa-f]{6}); \}", css))
    assert [swatches[str(i)].upper() for i in range(8)] == want
    assert f'CAND = "{style.CANDIDATE}"' in js and f'RULE = "{style.RULE}"' in js


# ----------------------------------------------------------------------- titles, size, why this prediction
def test_default_title_names_the_data(blockade):
    model, X, y = blockade
    page = search_page(model, X, y)
    assert page.title == f"TURS search for \u201cY\u201d from 1,000 rows \u00d7 2 columns: {len(model.rules_)} rules"
    assert f"<title>{html.escape(page.title)}</title>" in page.html


def test_a_page_over_the_size_limit_says_so_and_warns(blockade, monkeypatch):
    import turs.explorer.page as page_module

    monkeypatch.setattr(page_module, "LARGE_PAGE", 100_000)  # the blockade page is about 0.6 MB
    with pytest.warns(UserWarning, match=r"search_page: the page is 0\.\d MB \(over 0 MB\)"):
        page = search_page(*blockade)
    note = [t for t in page.left_out if "over the" in t]
    assert len(note) == 1 and note[0].startswith(f"This page is {page.size / 1e6:.1f} MB")
    assert note[0] in embedded(page)["left_out"]


def test_the_page_carries_what_why_this_prediction_adds_up(blockade):
    model, X, y = blockade
    data = embedded(search_page(model, X, y))
    patterns, rows = data["final"]["patterns"], data["points"]["pattern"]
    assert len(rows) == len(X)
    proba = model.predict_proba(X)
    for i in range(0, len(X), 37):  # each row's pattern, its union's counts and the model's probabilities
        p = patterns[rows[i]]
        union = np.array(p["union"], dtype=float)
        assert proba[i] == pytest.approx(union / union.sum())
    # the union of a pattern's covers, by brute force over the rows
    covers = np.zeros((len(X), len(model.rules_)), dtype=bool)
    for i in range(len(X)):
        covers[i, patterns[rows[i]]["pattern"]] = True
    codes = np.searchsorted(model.classes_, y)
    for p in patterns:
        if p["pattern"]:
            inside = covers[:, p["pattern"]].any(axis=1)
            assert p["union"] == np.bincount(codes[inside], minlength=len(model.classes_)).tolist()
    assert data["final"]["rule_counts"] == [np.bincount(codes[covers[:, k]], minlength=2).tolist()
                                           for k in range(len(model.rules_))]
