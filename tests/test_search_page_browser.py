"""The search page (turs.explorer.search_page) in headless Chromium, opened from file:// with the
network blocked (marker ``browser``).

Every request that is not a file:// one is aborted and recorded, and each test checks that none
was attempted. Pages are written to a temporary folder: the overlap-blockade simulation (a
teaching dataset), the same gzip-compressed, and a table whose column names, levels and labels
hold markup. Tested: stepping with the buttons and the keys (the same keys as the app), the
picture following the selected candidate (its box on its columns, the rows it covers), a deep
link, predict-then-reveal with its score kept in the browser, the local test with both sides, the
notebook iframe (``srcdoc``), no script from the data (a dialog listener), no text under 14 px and
no sideways scrolling at 1280x720. What the page teaches, on wine, iris, breast cancer and the
blockade (several at 1280x720 and 1400x900): the reveal (the winner marked, r worked out for the
pick and the winner), a near-tie too close to call, PageDown revealing then stepping, the
selected row in view, axes that hold still, every beam candidate drawn, tables sorted as
captioned, why a row gets its probabilities, the SVG export, and extreme columns. Screenshots go
to build/test-artifacts/search_page_*.png.

Without /usr/bin/chromium (or playwright) the tests are skipped, saying why, unless
TURS_REQUIRE_BROWSER=1, where that is a failure. Where Debian's Firefox is installed
(``apt-get install firefox-esr``; optional), one more test steps a compressed page in it over
WebDriver BiDi with its network off (screenshot ``search_page_firefox.png``).
"""
import base64
import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs import TURSClassifier
from turs.datasets import load_bundled

from test_search_page import HOSTILE, hostile_data

from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, REPO, VIEWPORT

MIN_TEXT_PX = 14

pytestmark = pytest.mark.browser


def _missing(reason: str):
    if os.environ.get("TURS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"TURS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    from turs.explorer import search_page

    out = tmp_path_factory.mktemp("pages")
    X, y = load_bundled("sim-overlap-blockade")
    model = TURSClassifier(record_trace=True).fit(X, y)
    Xh, yh = hostile_data()
    hostile = TURSClassifier(record_trace=True).fit(Xh, yh)
    page = search_page(model, X, y, out / "blockade.html", title="overlap blockade")
    search_page(model, X, y, out / "blockade-gz.html", title="overlap blockade (gzip)", compress=True)
    search_page(hostile, Xh, yh, out / "hostile.html", title=HOSTILE[1])
    Xw, yw = load_bundled("sklearn-wine")
    wine = TURSClassifier(record_trace=True).fit(Xw, yw)
    search_page(wine, Xw, yw, out / "wine.html", title="wine")
    Xi, yi = load_bundled("sklearn-iris")
    iris = TURSClassifier(record_trace=True).fit(Xi, yi)
    search_page(iris, Xi, yi, out / "iris.html", title="iris")
    Xb, yb = load_bundled("sklearn-breast-cancer")
    cancer = TURSClassifier(record_trace=True).fit(Xb, yb)
    search_page(cancer, Xb, yb, out / "cancer.html", title="breast cancer")
    search_page(model, X, y, out / "blockade-none.html", title="overlap blockade, no rows", points="none")
    Xe, ye = edge_data()
    edge = TURSClassifier(record_trace=True).fit(Xe, ye)
    search_page(edge, Xe, ye, out / "edge.html", title="edge")
    (out / "notebook.html").write_text("<!DOCTYPE html><html><body><h1>notebook export</h1>"
                                       f"{page._repr_html_()}</body></html>", encoding="utf-8")
    return {"dir": out, "model": model, "X": X, "y": y, "hostile": hostile, "wine": wine, "Xw": Xw, "yw": yw,
            "iris": iris, "edge": edge, "Xe": Xe, "cancer": cancer, "Xb": Xb}


LONG_NAME = "x" * 10_000


def edge_data(n=300, seed=1):
    """A column spanning the whole double range and a column with a 10,000-character name."""
    rng = np.random.default_rng(seed)
    wide = rng.uniform(-1, 1, n) * 1.7e308
    x = rng.uniform(0, 1, n)
    y = pd.Series(np.where((x > 0.5) ^ (rng.random(n) < 0.1), "a", "b"), name="label")
    return pd.DataFrame({"wide": wide, LONG_NAME: x}), y


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} is missing (install it with: bash .ci/install-browser.sh)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the Python package 'playwright' is missing (pip install -e '.[dev]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Offline:
    """A fresh browser context at 1280x720 where every non-file:// request is aborted and kept,
    with the page's dialogs (dismissed) and errors kept."""

    def __init__(self, browser, viewport=VIEWPORT):
        self.context = browser.new_context(viewport=viewport, accept_downloads=True)
        self.requests, self.dialogs, self.errors = [], [], []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route):
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path, fragment=""):
        self.page.goto(Path(path).as_uri() + fragment)
        self.page.wait_for_selector(".tp-bar", timeout=15_000)
        return self.page

    def close(self):
        assert self.requests == [], f"the page tried the network: {self.requests}"
        assert self.errors == [], self.errors
        self.context.close()


@pytest.fixture
def offline(browser):
    o = Offline(browser)
    yield o
    o.close()


SIZES = [VIEWPORT, {"width": 1400, "height": 900}]


@pytest.fixture(params=SIZES, ids=["1280x720", "1400x900"])
def sized(browser, request):
    """An Offline context at each projector size."""
    o = Offline(browser, request.param)
    o.size = request.param
    yield o
    o.close()


def where(page) -> str:
    return page.inner_text(".tp-where")


def shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"search_page_{name}.png"))


# ----------------------------------------------------------------------- stepping
def test_buttons_and_keys_step_through_searches_and_iterations(pages, offline):
    trace = pages["model"].trace_
    n_it = [max(len(s["iterations"]), 1) for s in trace.searches]
    K = len(n_it)
    page = offline.open(pages["dir"] / "blockade.html")
    assert where(page) == f"rule search 1 of {K} \u00b7 beam iteration 1 of {n_it[0]}"
    shot(page, "first_step")
    page.click(".tp-next")
    assert where(page).endswith(f"iteration 2 of {n_it[0]}")
    page.keyboard.press("ArrowRight")
    assert where(page).endswith(f"iteration 3 of {n_it[0]}")
    assert "search=1&iteration=3" in page.evaluate("location.hash")
    page.keyboard.press("ArrowLeft")
    assert where(page).endswith(f"iteration 2 of {n_it[0]}")
    page.keyboard.press("PageDown")
    assert where(page) == f"rule search 2 of {K} \u00b7 beam iteration 1 of {n_it[1]}"
    page.keyboard.press("PageUp")
    assert where(page).startswith("rule search 1 of")
    page.keyboard.press("End")
    assert where(page) == f"rule search {K} of {K} \u00b7 beam iteration {n_it[-1]} of {n_it[-1]}"
    assert page.inner_text(".tp-fit-stop") == _fit_stop_text(trace)  # the last step says why the fit stopped
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert where(page).startswith(f"rule search {K} of")
    page.keyboard.press("Home")
    assert where(page) == f"rule search 1 of {K} \u00b7 beam iteration 1 of {n_it[0]}"
    page.click(".tp-next-search")
    assert where(page).startswith("rule search 2 of")
    # the main beam's table is the trace's, sorted by r as its caption says
    beam = trace.searches[1]["iterations"][0]["main_beam"]
    beam = sorted(beam, key=lambda c: -(c["r"] if c["r"] is not None else -np.inf))
    rows = page.locator(".tp-beam-main tbody tr")
    assert rows.count() == len(beam)
    assert [rows.nth(i).get_attribute("data-id") for i in range(len(beam))] == [c["id"] for c in beam]
    r_cells = page.locator(".tp-beam-main tbody tr td:nth-child(6)").all_inner_texts()
    assert [float(t) for t in r_cells] == pytest.approx([c["r"] for c in beam], rel=1e-3)


def _fit_stop_text(trace):
    from turs.explorer._explain import fit_stop_text
    return fit_stop_text(trace)


def test_picture_follows_the_selected_candidate(pages, offline):
    trace = pages["model"].trace_
    page = offline.open(pages["dir"] / "blockade.html", "#search=1&iteration=2")
    beam = trace.searches[0]["iterations"][1]["main_beam"]
    for i in (0, len(beam) - 1):
        page.click(f".tp-beam-main tbody tr[data-index='{i}']")
        c = beam[i]
        # every training row is on the page, so the rows drawn as covered are the candidate's cover
        assert int(page.get_attribute("svg.tp-plot", "data-covered")) == c["coverage"]
        names = {pages["X"].columns[int(j)] for j, _, _ in c["literals"]}
        axes = {page.eval_on_selector(".tp-axis-x", "e => e.selectedOptions[0].textContent"),
                page.eval_on_selector(".tp-axis-y", "e => e.selectedOptions[0].textContent")}
        assert names <= axes
        assert page.inner_text(".tp-selected-box").startswith("Selected: " + " AND ".join(c["conditions"]))
    assert page.locator("svg.tp-plot rect[stroke='#CC79A7']").count() >= 1
    shot(page, "selected_candidate")


def test_a_deep_link_opens_that_step_and_candidate(pages, offline):
    trace = pages["model"].trace_
    k, it, cand = 2, 3, 5
    assert len(trace.searches[k - 1]["iterations"]) >= it
    page = offline.open(pages["dir"] / "blockade.html", f"#search={k}&iteration={it}&candidate={cand}")
    assert where(page).startswith(f"rule search {k} of") and f"beam iteration {it} of" in where(page)
    chosen = page.locator(".tp-beam-main tbody tr[aria-selected='true']")
    assert chosen.count() == 1
    assert chosen.get_attribute("data-id") == trace.searches[k - 1]["iterations"][it - 1]["main_beam"][cand - 1]["id"]
    # a link typed later (hashchange) moves too
    page.evaluate("location.hash = '#search=1&iteration=2&candidate=1'")
    page.wait_for_function("document.querySelector('.tp-where').textContent.includes('iteration 2 of')")
    assert page.locator(".tp-beam-main tbody tr[aria-selected='true']").get_attribute("data-id") == \
        trace.searches[0]["iterations"][1]["main_beam"][0]["id"]


def test_predict_then_reveal_keeps_the_score(pages, offline):
    trace = pages["model"].trace_
    it = trace.searches[0]["iterations"][2]
    beam = it["main_beam"]
    r = [c["r"] if c["r"] is not None else -np.inf for c in beam]
    wrong = int(np.argmin(r))
    assert r[wrong] < max(r)
    page = offline.open(pages["dir"] / "blockade.html", "#search=1&iteration=3")
    page.keyboard.press("p")
    assert page.locator(".tp-predict .tp-q").inner_text().startswith("Which candidate")
    assert set(page.locator(".tp-beam-main tbody tr td:nth-child(6)").all_inner_texts()) == {"?"}  # r hidden
    assert page.locator(".tp-beam-main tr.tp-chosen").count() == 0
    page.click(".tp-tab-why")
    assert "answer the question" in page.inner_text(".tp-panel")
    page.click(f".tp-beam-main tbody tr[data-index='{wrong}']")
    shot(page, "predict_question")
    page.click(".tp-lock")
    assert page.inner_text(".tp-score") == "score: 0 of 1"
    # then: does a growth pass the local test? answer what the trace says
    q = page.inner_text(".tp-predict .tp-q")
    assert q.startswith("Does this growth pass")
    growth = page.inner_text(".tp-predict").split("Growth: ")[1].split(" (adds")[0]
    pool = [c for c in beam + it["rejected_by_local_test"] if c.get("local_test_bits")]
    passed = {" AND ".join(c["conditions"]): c["local_test_bits"]["passed"] for c in pool}[growth]
    page.click(".tp-answer-pass" if passed else ".tp-answer-fail")
    assert page.inner_text(".tp-score") == "score: 1 of 2"
    assert "not this time" in page.inner_text(".tp-predict") and "right" in page.inner_text(".tp-predict")
    assert page.locator(".tp-beam-main tbody tr td:nth-child(6)").first.inner_text() != "?"  # revealed
    shot(page, "predict_revealed")
    # the score stays in this browser (localStorage): a reload keeps it
    page.reload()
    page.wait_for_selector(".tp-bar")
    page.keyboard.press("p")
    assert page.inner_text(".tp-score") == "score: 1 of 2"


def test_local_test_shows_both_sides_of_every_recorded_growth(pages, offline):
    trace = pages["model"].trace_
    it = trace.searches[0]["iterations"][2]
    page = offline.open(pages["dir"] / "blockade.html", "#search=1&iteration=3")
    page.click(".tp-tab-test")
    recorded = [(c, "local_test_bits") for c in it["main_beam"] + it["rejected_by_local_test"]] + \
        [(c, "aux_local_test_bits") for c in it["aux_beam"] + it["aux_rejected_by_local_test"]]
    recorded = [(c, key) for c, key in recorded if c.get(key)]
    rows = page.locator(".tp-test-table tbody tr")
    assert rows.count() == len(recorded)
    without = [float(t) for t in page.locator(".tp-test-table tbody tr td:nth-child(5)").all_inner_texts()]
    assert sorted(without) == pytest.approx(sorted(c[k]["bits_without_split"] for c, k in recorded), abs=0.006)
    verdicts = page.locator(".tp-test-table tbody tr td:nth-child(8)").all_inner_texts()
    assert verdicts.count("fail") == sum(not c[k]["passed"] for c, k in recorded) > 0
    assert verdicts.count("pass") == sum(c[k]["passed"] for c, k in recorded) > 0
    counts = page.inner_text(".tp-counts")
    assert (f"{len(it['rejected_by_local_test'])} of {it['n_rejected_by_local_test']:,} (main test)" in counts)
    page.click(".tp-test-table th:nth-child(7)")  # sort by with - without
    excess = [float(t.replace("+", "")) for t in page.locator(".tp-test-table tbody tr td:nth-child(7)").all_inner_texts()]
    assert excess == sorted(excess)
    shot(page, "local_test")


def test_final_rule_set_and_stop_reasons(pages, offline):
    model = pages["model"]
    page = offline.open(pages["dir"] / "blockade.html")
    page.click(".tp-tab-rules")
    assert page.inner_text(".tp-final") == str(model)
    assert page.locator(".tp-patterns tbody tr").count() >= 2
    page.click(".tp-tab-stops")
    assert page.locator(".tp-stops tbody tr").count() == len(model.trace_.searches)
    shot(page, "rule_set")


def test_gzip_page_reads_back_and_steps(pages, offline):
    page = offline.open(pages["dir"] / "blockade-gz.html")
    page.keyboard.press("ArrowRight")
    assert "iteration 2 of" in where(page)
    page.click(".tp-tab-about")
    assert "gzip-compressed" in page.inner_text(".tp-panel")


def test_notebook_iframe_steps(pages, offline):
    o = offline
    o.page.goto((pages["dir"] / "notebook.html").as_uri())
    frame = o.page.frame_locator("iframe.turs-search-page")
    frame.locator(".tp-bar").wait_for(timeout=15_000)
    assert frame.locator(".tp-where").inner_text().startswith("rule search 1 of")
    frame.locator(".tp-next").click()
    assert "iteration 2 of" in frame.locator(".tp-where").inner_text()
    frame.locator(".tp-predict-toggle").check()  # a sandboxed frame has no storage: the score is kept in memory
    frame.locator(".tp-tab-about").click()
    assert "until it is closed" in frame.locator(".tp-panel").inner_text()


def test_markup_from_the_data_runs_no_script(pages, offline):
    page = offline.open(pages["dir"] / "hostile.html")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    for tab in ("why", "lineage", "test", "rules", "stops", "about"):
        page.click(f".tp-tab-{tab}")
    page.click(".tp-beam-main tbody tr:nth-child(1)")
    page.wait_for_timeout(300)
    assert offline.dialogs == []
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert page.evaluate("document.scripts.length") == 2  # the data block and the player
    assert page.inner_text(".tp-title") == HOSTILE[1]
    options = page.locator(".tp-axis-x option").all_inner_texts()
    assert options == [HOSTILE[0], HOSTILE[1]]
    assert "<b>yes</b>" in page.inner_text(".tp-legend")
    shot(page, "hostile_data")


def test_readable_at_1280x720(pages, offline):
    page = offline.open(pages["dir"] / "blockade.html", "#search=1&iteration=3")
    for tab in ("why", "lineage", "test", "rules", "stops", "about"):
        page.click(f".tp-tab-{tab}")
        small = page.evaluate("""(min) => {
          const out = [];
          for (const e of document.querySelectorAll('#turs-app *')) {
            const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
            if (!own || !e.getClientRects().length) continue;
            let px = parseFloat(getComputedStyle(e).fontSize);
            if (e instanceof SVGElement) { const m = e.getScreenCTM(); px *= Math.hypot(m.a, m.b); }  // rotated text too
            if (px < min - 0.01) out.push(e.tagName + ' ' + px.toFixed(1) + ' ' + e.textContent.slice(0, 30));
          }
          return out;
        }""", MIN_TEXT_PX)
        assert small == [], f"tab {tab}: {small[:5]}"
        assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"], tab
    # the picture and the main beam are on screen together without scrolling
    for sel in ("svg.tp-plot", ".tp-beam-main"):
        box = page.locator(sel).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"] and box["y"] < VIEWPORT["height"]


# ----------------------------------------------------------------------- Firefox
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
# Firefox with every network protocol sent to a closed port: the network is off for the page
FIREFOX_PREFS = """user_pref("network.proxy.type", 1);
user_pref("network.proxy.http", "127.0.0.1"); user_pref("network.proxy.http_port", 9);
user_pref("network.proxy.ssl", "127.0.0.1"); user_pref("network.proxy.ssl_port", 9);
user_pref("network.proxy.socks", "127.0.0.1"); user_pref("network.proxy.socks_port", 9);
user_pref("network.dns.disabled", true);
user_pref("browser.shell.checkDefaultBrowser", false);
"""


class FirefoxBiDi:
    """Debian's Firefox driven over WebDriver BiDi (its own protocol; no geckodriver, and
    playwright's Firefox is a patched build we do not install): navigate, evaluate, screenshot,
    and keep the URL of every request the page's context sends."""

    def __init__(self, profile: Path):
        import websocket  # websocket-client (installed with the explorer extra's Jupyter server)

        (profile / "user.js").write_text(FIREFOX_PREFS)
        port = _free_port()
        self.proc = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(profile), f"--remote-debugging-port={port}",
             "--window-size=1280,720", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=dict(os.environ, HOME=str(profile)), start_new_session=True)
        self.ws, self.n, self.requests = None, 0, []
        deadline = time.monotonic() + 60
        while self.ws is None:
            try:  # Firefox refuses a WebSocket with an Origin header
                self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/session", timeout=30,
                                                      suppress_origin=True)
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.close()
                    raise
                time.sleep(0.3)
        self.cmd("session.new", capabilities={})
        self.context = self.cmd("browsingContext.getTree")["contexts"][0]["context"]
        self.cmd("session.subscribe", events=["network.beforeRequestSent"], contexts=[self.context])

    def cmd(self, method, **params):
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("method") == "network.beforeRequestSent":
                self.requests.append(m["params"]["request"]["url"])
            elif m.get("id") == self.n:
                if m.get("type") == "error":
                    raise RuntimeError(f"{method}: {m.get('error')}: {m.get('message')}")
                return m["result"]

    def eval(self, expression):
        r = self.cmd("script.evaluate", expression=expression, target={"context": self.context}, awaitPromise=True)
        if r.get("type") == "exception":
            raise RuntimeError(r["exceptionDetails"]["text"])
        return r["result"].get("value")

    def close(self):
        if self.ws is not None:
            self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


WAIT_FOR_APP = ("new Promise(done => { const t0 = Date.now(); (function wait() {"
                " const e = document.querySelector('.tp-where'); if (e) done(e.textContent);"
                " else if (Date.now() - t0 > 15000) done('no app: ' + document.body.innerText.slice(0, 300));"
                " else setTimeout(wait, 50); })(); })")


def _key(key):
    return f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', bubbles: true}}))"


def test_firefox_steps_a_compressed_page_offline(pages, tmp_path):
    if FIREFOX is None:
        pytest.skip("Firefox is not installed (optional: apt-get install firefox-esr)")
    pytest.importorskip("websocket", reason="websocket-client is missing (it comes with the explorer extra)")
    trace = pages["model"].trace_
    ff = FirefoxBiDi(tmp_path)
    try:
        url = (pages["dir"] / "blockade-gz.html").as_uri() + "#search=2&iteration=3&candidate=5"
        ff.cmd("browsingContext.navigate", context=ff.context, url=url, wait="complete")
        assert ff.eval(WAIT_FOR_APP).startswith("rule search 2 of")  # gzip read back by DecompressionStream
        assert "beam iteration 3 of" in ff.eval("document.querySelector('.tp-where').textContent")
        assert ff.eval("document.querySelector(\".tp-beam-main tr[aria-selected='true']\").dataset.id") == \
            trace.searches[1]["iterations"][2]["main_beam"][4]["id"]
        ff.eval(_key("ArrowRight"))
        assert "beam iteration 4 of" in ff.eval("document.querySelector('.tp-where').textContent")
        ff.eval(_key("PageUp"))
        assert ff.eval("document.querySelector('.tp-where').textContent").startswith("rule search 1 of")
        ff.eval(_key("p"))
        assert ff.eval("document.querySelector('.tp-predict .tp-q').textContent").startswith("Which candidate")
        assert ff.eval("document.querySelectorAll('svg.tp-plot circle').length") == len(pages["X"])
        shot = ff.cmd("browsingContext.captureScreenshot", context=ff.context)["data"]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "search_page_firefox.png").write_bytes(base64.b64decode(shot))
        assert [u for u in ff.requests if not u.startswith("file://")] == []
    finally:
        ff.close()


# ----------------------------------------------------------------------- teaching: the reveal
def _order_by_r(beam):
    return sorted(range(len(beam)), key=lambda i: (-(beam[i]["r"] if beam[i]["r"] is not None else -np.inf), i))


def _worked(before, c):
    """r worked out as the page writes it: (L before - L after) / rows newly covered = r."""
    return f"({before:.2f} \u2212 {c['mdl_after']:.2f}) / {c['coverage_uncovered']} = "


def test_the_reveal_marks_the_winner_and_works_out_r(pages, sized):
    s = pages["wine"].trace_.searches[0]
    beam = s["iterations"][1]["main_beam"]
    order = _order_by_r(beam)
    winner, pick = order[0], order[-1]
    assert beam[winner]["r"] > 1.005 * beam[order[1]]["r"]  # no near-tie: the page asks
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=2")
    page.keyboard.press("p")
    page.click(f".tp-beam-main tbody tr[data-index='{pick}']")
    page.click(".tp-lock")
    # the iteration's winner is marked as such (not only the rule the search returned)
    assert page.locator(".tp-beam-main tr.tp-winner").count() == 1
    assert page.locator(".tp-beam-main tr.tp-winner").get_attribute("data-id") == beam[winner]["id"]
    # the pick and the winner side by side, r worked out from their numbers
    compare = page.inner_text(".tp-compare")
    assert f"your pick #{pick + 1}" in compare and f"the winner #{winner + 1}" in compare
    for c in (beam[pick], beam[winner]):
        assert _worked(s["mdl_before"], c) + f"{c['r']:.4g}" in compare
    assert "bits without the split" not in compare  # the local-test question is still open
    page.click(".tp-answer-pass")
    compare = page.inner_text(".tp-compare")
    for c in (beam[pick], beam[winner]):  # then both sides of the local test, for both
        b = c["local_test_bits"]
        assert f"{b['bits_without_split']:.2f} bits without the split" in compare and f"{b['bits_with_split']:.2f} with it" in compare
    # r = (L before - L after) / rows newly covered is the recorded r
    for c in beam:
        assert (s["mdl_before"] - c["mdl_after"]) / c["coverage_uncovered"] == pytest.approx(c["r"], rel=1e-9)
    box = page.locator(".tp-compare").bounding_box()
    assert box["y"] + box["height"] <= sized.size["height"]  # on screen without scrolling
    shot(page, f"reveal_{sized.size['width']}")


def test_a_near_tie_is_too_close_to_call(pages, sized):
    beam = pages["wine"].trace_.searches[0]["iterations"][0]["main_beam"]
    order = _order_by_r(beam)
    a, b = beam[order[0]]["r"], beam[order[1]]["r"]
    assert abs(a - b) < 0.005 * max(abs(a), abs(b))  # wine's first question: 1.764 against 1.763
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=1")
    page.keyboard.press("p")
    text = page.inner_text(".tp-close-call")
    assert text.startswith("Too close to call")
    assert f"#{order[0] + 1} and #{order[1] + 1}" in page.inner_text(".tp-predict")
    assert page.locator(".tp-lock").count() == 0  # no prediction asked
    before = pages["wine"].trace_.searches[0]["mdl_before"]
    compare = page.inner_text(".tp-compare")  # both worked out: the difference is in the third decimal
    assert _worked(before, beam[order[0]]) + "1.764" in compare and _worked(before, beam[order[1]]) + "1.763" in compare
    assert not page.inner_text(".tp-predict .tp-q:not(.tp-close-call)").startswith("Which candidate")
    shot(page, f"close_call_{sized.size['width']}")


def test_growing_from_a_non_winner_is_said_and_lineage_explained(pages, sized):
    s = pages["wine"].trace_.searches[0]
    beam = s["iterations"][0]["main_beam"]
    winner = _order_by_r(beam)[0]
    on = [i for i, c in enumerate(beam) if c["id"] in s["lineage"]]
    assert on and on[0] != winner  # the returned rule grew from #4, not from the winner #3
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=1")
    note = page.inner_text(".tp-lineage-note")
    assert f"grows from #{on[0] + 1}" in note and f"winner #{winner + 1}" in note and "diverse patience" in note
    marks = page.locator(".tp-marks")
    assert "lineage: the candidates it grew from" in marks.inner_text()
    assert marks.bounding_box()["y"] + marks.bounding_box()["height"] <= sized.size["height"]  # above the fold


def test_pagedown_reveals_then_steps_in_predict_mode(pages, sized):
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=2")
    page.keyboard.press("p")
    assert page.locator(".tp-lock").count() == 1
    page.keyboard.press("PageDown")  # a presenter's remote: reveal the candidate question
    assert page.locator(".tp-compare").count() == 1 and "revealed without a guess" in page.inner_text(".tp-predict")
    # the winner is selected, so the picture draws its box
    winner = _order_by_r(pages["wine"].trace_.searches[0]["iterations"][1]["main_beam"])[0]
    assert page.get_attribute(".tp-beam-main tr[aria-selected='true']", "data-index") == str(winner)
    assert page.locator("svg.tp-plot rect[stroke-width='3.5']").count() == 1
    assert where(page).endswith("iteration 2 of 7")
    page.keyboard.press("PageDown")  # reveal the local-test question
    assert page.locator(".tp-test-reveal").count() == 1
    page.keyboard.press("PageDown")  # nothing left to reveal: step
    assert "beam iteration 3 of" in where(page)
    page.keyboard.press("PageUp")
    assert "beam iteration 2 of" in where(page)
    assert page.inner_text(".tp-score") == "score: 0 of 0"  # revealing is not answering


# ----------------------------------------------------------------------- teaching: the picture
def test_the_selected_row_is_always_in_view(pages, sized):
    trace = pages["wine"].trace_
    for frag, k, it in (("#search=2&iteration=3&candidate=5", 1, 2), ("#search=1&iteration=4", 0, 3)):
        page = sized.open(pages["dir"] / "wine.html", frag)
        beam = trace.searches[k]["iterations"][it]["main_beam"]
        last = _order_by_r(beam)[-1]  # the lowest r: the bottom row of a table sorted by r
        page.click(f".tp-beam-main tbody tr[data-index='{last}']")
        for link in (frag, f"#search={k + 1}&iteration={it + 1}&candidate={last + 1}"):
            page.evaluate(f"location.hash = '{link}'")
            page.wait_for_timeout(100)
            row = page.locator(".tp-beam-main tbody tr[aria-selected='true']")
            assert row.count() == 1
            r, b = row.bounding_box(), page.locator(".tp-beam-main").locator("xpath=..").bounding_box()
            assert r["y"] >= b["y"] - 1 and r["y"] + r["height"] <= b["y"] + b["height"] + 1, link
            assert r["y"] + r["height"] <= sized.size["height"]
            # the title saying how the table is ordered stays above the box, not scrolled away
            cap = page.locator(".tp-caption-main").bounding_box()
            assert cap["y"] >= 0 and cap["y"] + cap["height"] <= b["y"] + 1, link
            assert "sorted by r, highest first" in page.inner_text(".tp-caption-main")
    shot(page, f"selected_in_view_{sized.size['width']}")


def test_two_column_axes_hold_still(pages, sized):
    page = sized.open(pages["dir"] / "blockade.html", "#search=1&iteration=1")
    def axes():
        return (page.eval_on_selector(".tp-axis-x", "e => e.selectedOptions[0].textContent"),
                page.eval_on_selector(".tp-axis-y", "e => e.selectedOptions[0].textContent"))
    n = len(pages["model"].trace_.searches[0]["iterations"])
    for _ in range(n):
        assert axes() == ("X1", "X2"), where(page)
        page.keyboard.press("ArrowRight")
    page.click(".tp-beam-main tbody tr:nth-child(3)")
    assert axes() == ("X1", "X2")


def test_pinned_axes_hold_still(pages, offline):
    trace = pages["wine"].trace_
    page = offline.open(pages["dir"] / "wine.html", "#search=1&iteration=2")
    page.select_option(".tp-axis-x", label="alcohol")
    page.select_option(".tp-axis-y", label="hue")
    page.check(".tp-pin-axes")
    beam = trace.searches[0]["iterations"][1]["main_beam"]
    for i in range(len(beam)):
        page.click(f".tp-beam-main tbody tr[data-index='{i}']")
        assert page.eval_on_selector(".tp-axis-x", "e => e.selectedOptions[0].textContent") == "alcohol"
        assert page.eval_on_selector(".tp-axis-y", "e => e.selectedOptions[0].textContent") == "hue"
        assert int(page.get_attribute("svg.tp-plot", "data-covered")) == beam[i]["coverage"]


def test_every_candidate_of_the_beam_is_drawn_faintly(pages, offline):
    beam = pages["model"].trace_.searches[0]["iterations"][1]["main_beam"]
    page = offline.open(pages["dir"] / "blockade.html", "#search=1&iteration=2&candidate=1")
    # two columns: each other candidate is one thin box, the selected one bold
    assert page.locator("svg.tp-plot rect.tp-beam-region").count() == len(beam) - 1
    assert page.locator("svg.tp-plot rect[stroke-width='3.5']").count() == 1
    shot(page, "beam_drawn")


# ----------------------------------------------------------------------- teaching: the tables
def test_tables_are_ordered_as_their_captions_say_and_sortable(pages, sized):
    beam = pages["wine"].trace_.searches[0]["iterations"][0]["main_beam"]
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=1")
    assert "sorted by r, highest first" in page.inner_text(".tp-caption-main")
    r = [float(t) for t in page.locator(".tp-beam-main tbody td:nth-child(6)").all_inner_texts()]
    assert r == sorted(r, reverse=True) and r[:2] == pytest.approx([1.764, 1.763], abs=6e-4)
    # the number on screen is the candidate's in the recorded beam, from 1, and the link's
    nums = [int(t) for t in page.locator(".tp-beam-main tbody td:nth-child(1)").all_inner_texts()]
    ids = page.locator(".tp-beam-main tbody tr").evaluate_all("rows => rows.map(r => r.dataset.id)")
    assert [beam[n - 1]["id"] for n in nums] == ids
    page.click(".tp-beam-main th[data-key='cov']")
    assert "sorted by |S|" in page.inner_text(".tp-caption-main")
    cov = [int(t) for t in page.locator(".tp-beam-main tbody td:nth-child(4)").all_inner_texts()]
    assert cov == sorted(cov, reverse=True)
    page.click(".tp-beam-main th[data-key='cov']")
    cov = [int(t) for t in page.locator(".tp-beam-main tbody td:nth-child(4)").all_inner_texts()]
    assert cov == sorted(cov)
    page.click(".tp-beam-main th[data-key='#']")
    assert "by #, as the beam recorded them" in page.inner_text(".tp-caption-main")
    nums = [int(t) for t in page.locator(".tp-beam-main tbody td:nth-child(1)").all_inner_texts()]
    assert nums == list(range(1, len(beam) + 1))


def test_r_is_defined_on_screen_with_the_selected_rows_numbers(pages, sized):
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=1")
    line = page.inner_text(".tp-r-line")
    assert "(286.50 \u2212 210.65) / 43 = 1.764" in line and line.startswith("r of #3")


def test_tables_speak_plain_words(pages, offline):
    page = offline.open(pages["dir"] / "wine.html", "#search=1&iteration=2")
    text = page.inner_text("#turs-app")
    for jargon in ("per bucket", "aux b", "lost by (r)"):
        assert jargon not in text
    columns = page.inner_text(".tp-columns")
    assert "diverse patience" in columns
    # every column heading a student reads on the projector is said in words, R and classes too
    assert "R: the auxiliary beam's score" in columns and "classes: its rows of each class, class_0 / class_1 / class_2." in columns
    page.click(".tp-tab-lineage")
    margins = page.locator(".tp-lineage-table tbody td:nth-child(8)").all_inner_texts()
    assert any(m.startswith("behind by") for m in margins) and "lineage" in page.inner_text(".tp-panel")
    assert "the chain of candidates it grew from" in page.inner_text(".tp-panel")


# ----------------------------------------------------------------------- smaller things
def test_smaller_things(pages, sized):
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=1")
    page.click(".tp-tab-test")
    assert "Why none of the 124 rejected growths is listed" in page.inner_text(".tp-none-recorded")
    page.click(".tp-tab-about")
    assert "3 rule searches" in page.inner_text(".tp-panel")
    # blockade: the chosen rule and the runner-up have the same model code up to 1e-15: 0.00, never -0.00
    page = sized.open(pages["dir"] / "blockade.html", "#search=1&iteration=1")
    assert "-0.00" not in page.inner_text(".tp-why-table") and "\u22120.00" not in page.inner_text(".tp-why-table")
    # iris: the runner-up is the chosen rule plus a condition that removes no row
    page = sized.open(pages["dir"] / "iris.html", "#search=1&iteration=1")
    assert "plus \u201cpetal width (cm) < 1.05\u201d, which removes no row" in page.inner_text(".tp-runner-up-extra")


def test_categorical_levels_are_drawn_one_way(pages, offline):
    page = offline.open(pages["dir"] / "hostile.html")
    page.select_option(".tp-axis-x", index=1)  # the categorical column: two long levels and "plain"
    levels = [HOSTILE[0], HOSTILE[1], "plain"]
    drawn = page.locator("svg.tp-plot text").evaluate_all("ts => ts.map(t => [t.textContent, t.getAttribute('class')])")
    drawn = [(t, c) for t, c in drawn if t in levels and c not in ("tp-xlabel", "tp-ylabel")]  # the column's name is a level too
    assert {t for t, _ in drawn} == set(levels)
    assert {c for _, c in drawn} == {"tp-level"}  # all along their strips, none under the axis


def test_extreme_columns_draw(pages, sized):
    page = sized.open(pages["dir"] / "edge.html")
    page.select_option(".tp-axis-x", label="wide")
    cx = page.locator("svg.tp-plot g.tp-points circle").evaluate_all("cs => cs.map(c => c.getAttribute('cx') + ',' + c.getAttribute('cy'))")
    assert len(cx) == len(pages["Xe"]) and not any("NaN" in v for v in cx)
    xs = [float(v.split(",")[0]) for v in cx]
    assert max(xs) - min(xs) > 200  # spread across the picture, not piled up
    ticks = page.locator("svg.tp-plot text").evaluate_all("ts => ts.map(t => t.textContent)")
    wide = pages["Xe"]["wide"]
    assert f"{wide.max():.4g}" in ticks and f"{wide.min():.4g}" in ticks  # the data's ends, 4 digits
    assert max(len(t) for t in ticks if t[:1] in "-0123456789") <= 10
    assert page.evaluate("document.documentElement.scrollWidth") <= sized.size["width"]
    shot(page, f"extreme_columns_{sized.size['width']}")


# ----------------------------------------------------------------------- why this prediction
def test_why_this_prediction_adds_up_a_clicked_row(pages, sized):
    model, X = pages["cancer"], pages["Xb"]
    proba = model.predict_proba(X)
    page = sized.open(pages["dir"] / "cancer.html", "#search=4&iteration=1")
    row_pattern, pats = page.evaluate("(() => { const d = JSON.parse(document.getElementById('turs-data').textContent);"
                                      " return [d.points.pattern, d.final.patterns]; })()")
    row = next(i for i, p in enumerate(row_pattern) if len(pats[p]["pattern"]) == 3)  # a row three rules cover
    page.locator("svg.tp-plot g.tp-points circle").nth(row).click(force=True)
    text = page.inner_text(".tp-why-point")
    assert text.startswith(f"Row {row + 1} of the picture")
    p = pats[row_pattern[row]]
    assert "The rules that cover it: R1 (" in text and "R2 (" in text and "R3 (" in text
    # the union of the three covers, counted once: the sum of the patterns sharing a rule with it
    union = [sum(q["counts"][j] for q in pats if q["pattern"]) for j in range(len(model.classes_))]
    assert p["union"] == union
    assert f"= {sum(union)} rows, [{', '.join(map(str, union))}]" in text
    for j, name in enumerate(model.classes_):
        assert f"P({name}) = {union[j]} / {sum(union)} = {proba[row, j]:.3f}" in text
    # the predicted class is named as a class, not read as a number ("the largest: 1")
    assert f"The prediction is the class with the largest share: \u201c{model.classes_[proba[row].argmax()]}\u201d." in text
    shot(page, f"why_prediction_{sized.size['width']}")


def test_why_this_prediction_without_rows(pages, offline):
    page = offline.open(pages["dir"] / "blockade-none.html")
    page.click(".tp-tab-predict")
    assert "no training rows" in page.inner_text(".tp-panel") and "pick an overlap pattern" in page.inner_text(".tp-panel")
    page.click(".tp-pattern-pick tbody tr:nth-child(1)")
    assert "The probabilities are the class shares" in page.inner_text(".tp-why-point")


def test_the_picture_exports_as_svg(pages, sized):
    page = sized.open(pages["dir"] / "blockade.html", "#search=1&iteration=2&candidate=1")
    with page.expect_download() as got:
        page.click(".tp-export-svg")
    path = got.value.path()
    text = Path(path).read_text()
    assert text.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in text
    assert text.count("<circle") >= len(pages["X"]) and "tp-beam-region" in text
    # it carries its own legend (one swatch and name per class) and says which step and rule it shows
    classes = [str(c) for c in np.unique(pages["y"])]
    assert re.findall(r'<text[^>]*class="tp-export-legend"[^>]*>([^<]*)</text>', text) == classes
    rule = " AND ".join(pages["model"].trace_.searches[0]["iterations"][1]["main_beam"][0]["conditions"])
    assert f"search 1, iteration 2: {rule}" in html.unescape(text)


def test_the_local_test_reveal_says_the_beam_keeps_only_growths_that_pass(pages, offline):
    # every main-beam growth passed the test: the reveal says so, or why a failed one is in no beam
    seen = set()
    for name in ("wine.html", "blockade.html"):
        page = offline.open(pages["dir"] / name, "#search=1&iteration=1")
        page.keyboard.press("p")
        for _ in range(12):
            while page.locator(".tp-test-reveal").count() == 0 and page.locator(".tp-answer-pass, .tp-lock").count():
                page.keyboard.press("PageDown")
            if page.locator(".tp-test-reveal").count():
                text = page.inner_text(".tp-test-reveal")
                growth = text.split("Both sides for ", 1)[1].split(": ", 1)[0]
                main = page.locator(".tp-beam-main tbody td.tp-cond").all_inner_texts()
                passed = "passes." in text
                # (a rule can be both: grown from one parent it passed, from another it failed)
                if "the beam only keeps growths that pass it" in text:
                    assert passed and growth in main, text
                    seen.add("beam")
                else:
                    assert not passed and "It is in no main beam" in text, text
                    seen.add("dropped")
            page.keyboard.press("ArrowRight")
    assert seen == {"beam", "dropped"}


def test_the_picture_stays_in_view_beside_the_question_and_its_reveal(pages, sized):
    # predict mode on a projector: the question and the reveal sit beside the picture, not above it
    page = sized.open(pages["dir"] / "wine.html", "#search=1&iteration=2")
    page.keyboard.press("p")
    for state in ("question", "reveal"):
        plot, box = page.locator("svg.tp-plot").bounding_box(), page.locator(".tp-predict").bounding_box()
        assert plot["y"] >= 0 and plot["y"] + plot["height"] <= sized.size["height"], (state, plot)
        assert box["x"] >= plot["x"] + plot["width"], (state, box, plot)
        page.keyboard.press("PageDown")  # reveal without a guess
    assert page.locator(".tp-compare").count() == 1
    shot(page, f"reveal_beside_picture_{sized.size['width']}")
