"""The search page (turs.explorer.search_page) in headless Chromium, opened from file:// with the
network blocked (marker ``browser``).

Every request that is not a file:// one is aborted and recorded, and each test checks that none
was attempted. Pages are written to a temporary folder: the overlap-blockade simulation (a
teaching dataset), the same gzip-compressed, and a table whose column names, levels and labels
hold markup. Tested: stepping with the buttons and the keys (the same keys as the app), the
picture following the selected candidate (its box on its columns, the rows it covers), a deep
link, predict-then-reveal with its score kept in the browser, the local test with both sides, the
notebook iframe (``srcdoc``), no script from the data (a dialog listener), no text under 14 px and
no sideways scrolling at 1280x720. Screenshots go to build/test-artifacts/search_page_*.png.

Without /usr/bin/chromium (or playwright) the tests are skipped, saying why, unless
TURS_REQUIRE_BROWSER=1, where that is a failure. Where Debian's Firefox is installed
(``apt-get install firefox-esr``; optional), one more test steps a compressed page in it over
WebDriver BiDi with its network off (screenshot ``search_page_firefox.png``).
"""
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
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
    (out / "notebook.html").write_text("<!DOCTYPE html><html><body><h1>notebook export</h1>"
                                       f"{page._repr_html_()}</body></html>", encoding="utf-8")
    return {"dir": out, "model": model, "X": X, "y": y, "hostile": hostile}


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

    def __init__(self, browser):
        self.context = browser.new_context(viewport=VIEWPORT)
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
    # the main beam's table is the trace's, with its r
    beam = trace.searches[1]["iterations"][0]["main_beam"]
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
        page.click(f".tp-beam-main tbody tr:nth-child({i + 1})")
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
    page.click(f".tp-beam-main tbody tr:nth-child({wrong + 1})")
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
            if (e instanceof SVGElement) px *= e.getScreenCTM().a;
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
