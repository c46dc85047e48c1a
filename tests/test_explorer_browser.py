"""The explorer notebook served by Voila and driven in headless Chromium (marker ``browser``).

notebooks/explorer.py is converted to .ipynb (jupytext) in a temporary folder and served by
Voila on 127.0.0.1 and a free port; Python playwright drives Debian's Chromium
(/usr/bin/chromium, installed by .ci/install-browser.sh; never ``playwright install``) at
1280x720, the size of a projected screen, with every request that does not go to 127.0.0.1
aborted. One page is shared by the tests of this module, in order (each one needs what the
previous one left: a fit to re-fit, two fits to compare): every picture and panel tab fitting
1280x720 and 1400x900 (no sideways scrolling, text >= 14 px, nothing cut), the keys stepping
with the mouse away from the pictures, a rejected growth on screen with both sides of the local
test (reached with the arrow keys over the pictures), a re-fit without the local test that
changes the rules, Compare with two fits, a categorical dataset's data view, and a typed rule
in the Edit rules tab that changes the MDL shown. Each test saves a screenshot of the screen to
build/test-artifacts/explorer_*.png.

Without /usr/bin/chromium (or playwright, voila, jupytext) the tests are skipped, saying why,
unless TURS_REQUIRE_BROWSER=1, where that is a failure.
"""
import importlib.util
import os
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pytest

from _browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, REPO, VIEWPORT

MIN_TEXT_PX = 14

FIT_TIMEOUT = 240_000  # ms: a re-fit on the shared 2-core machine under load

pytestmark = pytest.mark.browser


def _missing(reason: str):
    if os.environ.get("TURS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"TURS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _load_serve_explorer():
    """tools/serve_explorer.py (not a package): the test starts, waits for and stops Voila as
    `make explorer` does."""
    spec = importlib.util.spec_from_file_location("serve_explorer", REPO / "tools" / "serve_explorer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve = _load_serve_explorer()


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} is missing (install it with: bash .ci/install-browser.sh)")
    for module in ("playwright", "voila", "jupytext"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"the Python package {module!r} is missing (pip install -e '.[dev,notebooks,explorer]')")
    tmp_path = tmp_path_factory.mktemp("voila")
    notebook = serve.convert(REPO / "notebooks" / "explorer.py", tmp_path / "explorer.ipynb")
    port = serve.free_port()
    log = open(tmp_path / "voila.log", "w")
    env = serve.server_env(notebook, pool=0)
    # the server `make explorer` runs (its upload size, IOPub wait), without a pre-started pool: the
    # page's own kernel is the only one (a pool would run the notebook again beside the tests)
    proc = subprocess.Popen(serve.voila_command(notebook, port, pool=0), cwd=tmp_path, stdout=log,
                            stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        if not serve.wait_for_port(port, proc, timeout=30):  # (a GET of / would start a kernel)
            raise RuntimeError(f"voila did not listen on 127.0.0.1:{port} within 30 s "
                               f"(exit code {proc.poll()})")
        yield f"http://127.0.0.1:{port}/"
    except BaseException:
        log.flush()
        print((tmp_path / "voila.log").read_text()[-5000:])
        raise
    finally:
        serve.stop(proc)
        log.close()


@pytest.fixture(scope="module")
def page(voila_url):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    blocked = []

    def only_loopback(route):
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            pg = browser.new_page(viewport=VIEWPORT)
            pg.dialogs = []  # any alert() a hostile upload would run (none may)
            pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
            pg.route("**/*", only_loopback)
            pg.goto(voila_url, timeout=FIT_TIMEOUT)  # Voila runs the notebook (two fits) before "load"
            pg.locator(".turs-explorer .turs-beam-step .noUi-handle").first.wait_for(state="visible", timeout=120_000)
            yield pg
        finally:
            browser.close()
    print(f"aborted {len(blocked)} request(s) not to 127.0.0.1: {sorted(set(blocked))[:5]}")


def _first_app(selector: str) -> str:
    """JavaScript for the first app's element ``selector`` (null while its view is being replaced:
    then a bare querySelector would find the second app's)."""
    return (f"(() => {{ const a = document.querySelectorAll('.turs-app')[0]; "
            f"return a ? a.querySelector('{selector}') : null; }})()")


def _wait_new_text(pg, selector: str, old: str, timeout=FIT_TIMEOUT):
    """Wait until the first app's ``selector`` shows a text other than ``old``."""
    pg.wait_for_function(f"old => {{ const el = {_first_app(selector)}; return el && el.textContent !== old; }}",
                         arg=old, timeout=timeout)


def _shot(pg, name):
    path = ARTIFACTS / f"explorer_{name}.png"
    pg.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
    return path


def _tab(pg, container, title):
    pg.locator(f"{container} .lm-TabBar-tab", has_text=title).first.click()


# JavaScript: what of the first app scrolls sideways, sticks out of the window, has text under
# MIN_TEXT_PX, a header or rule text broken inside a word, or a list too narrow for its choice
LAYOUT_PROBLEMS = r"""(minPx) => {
  const app = document.querySelectorAll('.turs-app')[0];
  const out = [];
  const name = (el) => el.tagName + '.' + el.className.toString().split(' ').filter(c => c.startsWith('turs-'))
    .join('.') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  const shown = (el) => el.getClientRects().length > 0;
  for (const el of [app, ...app.querySelectorAll('*')]) {
    if (!shown(el)) continue;
    const style = getComputedStyle(el);
    if (['auto', 'scroll', 'hidden'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
      out.push('scrolls sideways: ' + name(el) + ' ' + el.scrollWidth + ' > ' + el.clientWidth);
    if (el.getBoundingClientRect().right > window.innerWidth + 0.5)
      out.push('past the window: ' + name(el));
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && parseFloat(style.fontSize) < minPx - 0.01) out.push('small text: ' + name(el) + ' ' + style.fontSize);
  }
  // words on one line: headers, rule text, the why panel's sentences, the printed rule sets
  for (const el of app.querySelectorAll('th, td.turs-cond, .turs-why p, pre')) {
    if (!shown(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const re = /\S+/g;
      for (let m = re.exec(n.textContent); m; m = re.exec(n.textContent)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) out.push('word broken: "' + m[0] + '" in ' + name(el));
      }
    }
  }
  // a list shows its whole choice (the text measured in the list's font, the arrow beside it)
  const ctx = document.createElement('canvas').getContext('2d');
  for (const sel of app.querySelectorAll('select')) {
    if (!shown(sel) || sel.selectedIndex < 0 || sel.size > 1) continue;
    const style = getComputedStyle(sel);
    ctx.font = style.fontSize + ' ' + style.fontFamily;
    const text = sel.options[sel.selectedIndex].text;
    if (ctx.measureText(text).width > sel.clientWidth - 24) out.push('list cut: "' + text + '"');
  }
  // every picture at (at least) its pixel size: its text is as large as drawn
  for (const img of app.querySelectorAll('img')) {
    if (shown(img) && img.naturalWidth && img.getBoundingClientRect().width < img.naturalWidth - 0.5)
      out.push('picture shrunk: ' + img.getBoundingClientRect().width + ' of ' + img.naturalWidth + ' px');
  }
  if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page scrolls sideways');
  return out;
}"""
SCROLLS = """(sel) => { const el = document.querySelectorAll('.turs-app')[0].querySelector(sel);
  return [el.scrollWidth, el.clientWidth]; }"""


def _layout_problems(pg, where: str) -> list:
    return [f"{where}: {p}" for p in pg.evaluate(LAYOUT_PROBLEMS, MIN_TEXT_PX)]


@pytest.mark.parametrize("size", [VIEWPORT, {"width": 1400, "height": 900}], ids=["1280x720", "1400x900"])
def test_every_tab_fits_a_projector(page, size):
    """At 1280x720 (and 1400x900) nothing of the app scrolls sideways (the picture, the beam table
    beside it and the full one below, the why panel), nothing sticks out of the window, every text
    is >= 14 px, the pictures are shown at their pixel size (their text: >= 14 px at that size,
    test_explorer.test_pictures_are_readable_at_100_dpi), no header or rule text is broken inside a
    word and every list shows its whole choice; in each picture tab and each panel tab."""
    pg = page
    pg.set_viewport_size(size)
    try:
        problems = []
        for figure in ("Data", "Rows \u00d7 rules", "Lineage", "MDL score"):
            _tab(pg, ".turs-figures", figure)
            pg.wait_for_function("() => Array.from(document.querySelectorAll('.turs-app')[0].querySelectorAll("
                                 "'.turs-figures img')).some(i => i.getClientRects().length && i.naturalWidth > 0)",
                                 timeout=30_000)
            for panel in ("Beam", "Why", "Lineage", "Local test", "Rules"):
                _tab(pg, ".turs-panels", panel)
                pg.wait_for_timeout(150)
                problems += _layout_problems(pg, f"{figure} / {panel}")
                if panel == "Why":
                    sw, cw = pg.evaluate(SCROLLS, ".turs-why")
                    assert 0 < sw <= cw, ("why panel", sw, cw)
            for sel in (".turs-figures", ".turs-main-table", ".turs-aux-table", ".turs-panels"):
                sw, cw = pg.evaluate(SCROLLS, sel)
                assert 0 < sw <= cw, (sel, sw, cw)
        _tab(pg, ".turs-figures", "Data")
        _tab(pg, ".turs-panels", "Beam")
        for tab in ("Compare", "Edit rules", "Search"):  # the app's other tabs
            _tab(pg, ".turs-tabs", tab)
            pg.wait_for_timeout(500)
            problems += _layout_problems(pg, tab)
        assert problems == [], problems[:12]
        pg.locator(".turs-status").first.evaluate("el => el.scrollIntoView({block: 'start'})")
        pg.wait_for_timeout(300)
        _shot(pg, f"0_app_{size['width']}x{size['height']}")
        pg.locator(".turs-main-table").first.evaluate("el => el.scrollIntoView({block: 'start'})")
        _shot(pg, f"0_beam_tables_{size['width']}x{size['height']}")
    finally:
        pg.set_viewport_size(VIEWPORT)


# JavaScript: the top and bottom of the first app's data picture and of the beam table beside it,
# with the page scrolled to its top (Voila's page scrolls the window or its cells' box)
FIRST_SCREEN = """() => {
  window.scrollTo(0, 0);
  for (const el of document.querySelectorAll('*')) { if (el.scrollTop > 0) el.scrollTop = 0; }
  const app = document.querySelectorAll('.turs-app')[0];
  const box = (sel) => { const r = app.querySelector(sel).getBoundingClientRect(); return [r.top, r.bottom]; };
  return {picture: box('img.turs-plot'), beam: box('.turs-beam-panel')};
}"""


@pytest.mark.parametrize("size", [VIEWPORT, {"width": 1400, "height": 900}], ids=["1280x720", "1400x900"])
def test_the_first_screen_shows_the_picture_and_the_beam_table(page, size):
    """The projector layout: the page as it opens (at its top) shows the first app's whole data
    picture and the whole beam table beside it; the notebook's prose is folded away in a closed
    "About this page" block."""
    pg = page
    pg.set_viewport_size(size)
    try:
        _tab(pg, ".turs-figures", "Data")
        _tab(pg, ".turs-panels", "Beam")
        pg.wait_for_timeout(300)
        boxes = pg.evaluate(FIRST_SCREEN)
        pg.wait_for_timeout(200)
        for name, (top, bottom) in boxes.items():
            assert 0 <= top < bottom <= size["height"], (name, boxes)
        # iteration 2: ten candidates of two literals (about 650 px of table) stay beside the picture,
        # the panel scrolls inside (its end, and the page below it, ran past the first screen)
        pg.locator(".turs-status").first.click()
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                             ".innerText.includes('beam iteration 2 of 8')", timeout=30_000)
        pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelectorAll("
                             "'.turs-beam-panel tbody tr').length >= 10", timeout=30_000)
        pg.evaluate(FIRST_SCREEN)
        top, bottom, scroll, client = pg.evaluate(
            "() => { const el = document.querySelectorAll('.turs-app')[0].querySelector('.turs-panels > "
            ".widget-tab-contents'); const r = el.getBoundingClientRect(); "
            "return [r.top, r.bottom, el.scrollHeight, el.clientHeight]; }")
        assert 0 <= top < bottom <= size["height"], (top, bottom, scroll, client)
        _shot(pg, f"0_first_screen_iteration2_{size['width']}x{size['height']}")
        pg.keyboard.press("Home")
        pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                             ".innerText.includes('beam iteration 1 of 8')", timeout=30_000)
        about = pg.locator("details.turs-about")
        assert about.count() == 1 and about.first.evaluate("el => !el.open")
        assert "About this page" in about.first.locator("summary").inner_text()
        _shot(pg, f"0_first_screen_{size['width']}x{size['height']}")
    finally:
        pg.set_viewport_size(VIEWPORT)


def test_the_play_buttons_show_glyphs_the_page_has(page):
    """Every character of the play buttons' labels is drawn from a font (the pause sign U+23F8 was
    a missing-glyph box): drawn on a canvas in the buttons' font, no character looks like the
    box of a character no font has (U+E000, a private-use one)."""
    pg = page
    missing = pg.evaluate(r"""() => {
      const app = document.querySelectorAll('.turs-app')[0];
      const out = [];
      const draw = (ch, font) => {
        const c = document.createElement('canvas'); c.width = 40; c.height = 40;
        const ctx = c.getContext('2d'); ctx.font = font; ctx.fillText(ch, 4, 30);
        return Array.from(ctx.getImageData(0, 0, 40, 40).data).join(',');
      };
      for (const b of app.querySelectorAll('.turs-play button')) {
        const after = getComputedStyle(b, '::after');
        const text = after.content.replace(/^"|"$/g, '');
        const font = after.fontSize + ' ' + after.fontFamily;
        const box = draw('\uE000', font);
        for (const ch of text) {
          if (ch.trim() && draw(ch, font) === box) out.push(text + ': U+' + ch.codePointAt(0).toString(16));
        }
      }
      return out;
    }""")
    assert missing == []
    # the button labelled pause pauses: the search stays at its step (ipywidgets 8's stop button,
    # beside it, sends the search back to step 0)
    play = pg.locator(".turs-app").first.locator(".turs-play button:visible")  # (repeat: hidden)
    step = pg.locator(".turs-app").first.locator(".turs-step .widget-readout").first
    label = "b => getComputedStyle(b, '::after').content"
    assert play.count() == 2 and "play" in play.nth(0).evaluate(label) and "stop" in play.nth(1).evaluate(label)
    assert step.inner_text().strip() == "1"  # beam iteration 1 is step 1
    play.nth(0).click()
    pg.wait_for_function("el => parseInt(el.innerText) >= 3", arg=step.element_handle(), timeout=60_000)
    assert "pause" in play.nth(0).evaluate(label)
    play.nth(0).click()
    pg.wait_for_timeout(500)
    paused = int(step.inner_text())
    pg.wait_for_timeout(3500)  # more than two intervals of 1.5 s
    assert int(step.inner_text()) == paused >= 3 and "play" in play.nth(0).evaluate(label)
    pg.locator(".turs-play").first.scroll_into_view_if_needed()
    _shot(pg, "0_play_buttons")
    play.nth(1).click()  # stop: back to the first step
    pg.wait_for_function("el => el.innerText.trim() === '1'", arg=step.element_handle(), timeout=30_000)


def test_the_last_iteration_draws_the_chosen_rule(page):
    """Rule search 1's last beam iteration (8 of 8: its beams are empty) selects the rule the
    search returned (the last step of its lineage), so the picture draws it."""
    pg = page
    plot = pg.locator("img.turs-plot").first
    before = plot.get_attribute("src")
    pg.locator(".turs-status").first.click()
    for _ in range(7):
        pg.keyboard.press("ArrowRight")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('beam iteration 8 of 8')", timeout=60_000)
    pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), before],
                         timeout=30_000)
    chosen = pg.locator(".turs-selection select").first.evaluate(
        "el => el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : null")
    status = pg.locator(".turs-status").first.inner_text()
    rule = status.split("chosen rule of this search:")[1].splitlines()[0].strip()
    assert chosen is not None and chosen.replace("\xa0", " ").startswith("lineage step"), chosen
    assert chosen.replace("\xa0", " ").endswith(rule), (chosen, rule)
    pg.evaluate(FIRST_SCREEN)
    _shot(pg, "0_last_iteration")
    pg.keyboard.press("Home")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('beam iteration 1 of 8')", timeout=30_000)


def test_candidates_are_numbered_from_one(page):
    """The beam table beside the picture and the selection list number candidates from 1, as the
    one-file search page does."""
    pg = page
    app = pg.locator(".turs-app").first
    assert _where(pg) == "Rule search 1 of 3, beam iteration 1 of 8"
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelectorAll("
                         "'.turs-beam-panel tbody tr').length > 1", timeout=30_000)  # (redrawn after the status)
    firsts = app.locator(".turs-beam-panel tbody tr").evaluate_all(
        "rows => rows.map(r => r.querySelector('td').innerText.replace(/\\s*\\u2605/, ''))")
    assert firsts == [str(i) for i in range(1, len(firsts) + 1)], firsts
    options = app.locator(".turs-selection select").first.evaluate("el => Array.from(el.options).map(o => o.text)")
    mains = [o.split(":")[0] for o in options if o.startswith("main #")]
    assert mains == [f"main #{i}" for i in range(1, len(mains) + 1)], mains


@pytest.mark.parametrize("size", [VIEWPORT, {"width": 1400, "height": 900}], ids=["1280x720", "1400x900"])
def test_a_clicked_point_explains_its_prediction(page, size):
    """Click a point a rule covers in the data picture: the Prediction panel names the rules
    that cover it, the class counts of the union of their covers and the probabilities, which are
    the fitted model's predict_proba of that row (the same fit made here); step 3's picture
    downloads as SVG. The page goes back to the search afterwards."""
    import base64

    import numpy as np

    from turs.explorer._studio import Explorer

    pg = page
    pg.set_viewport_size(size)
    try:
        here = Explorer(dataset="sim-overlap-blockade")  # the page's first app, made here
        model, ex = here.fits[-1]["model"], here.explorer
        X = here.X_train
        covers = model.apply(X)
        row = int(np.flatnonzero(covers.sum(axis=1) >= 1)[0])
        x, y = ex.point_pixel(row)
        want = model.predict_proba(X.iloc[[row]])[0]
        union = covers[:, covers[row]].any(axis=1)
        _tab(pg, ".turs-figures", "Data")
        pg.evaluate(FIRST_SCREEN)
        plot = pg.locator("img.turs-plot").first
        before = plot.get_attribute("src")
        plot.click(position={"x": x, "y": y})
        panel = pg.locator(".turs-prediction").first
        pg.wait_for_function("el => el.innerText.includes('Why this prediction')", arg=panel.element_handle(),
                             timeout=30_000)
        pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), before],
                             timeout=30_000)
        text = panel.inner_text()
        assert f"training row {row} " in text, text
        rules = [t.split("\t")[0].strip() for t in
                 pg.locator(".turs-prediction tr.turs-predict-rule").all_inner_texts()]
        assert rules == [f"R{i + 1}" for i in np.flatnonzero(covers[row])]
        counts = pg.locator(".turs-prediction tr.turs-predict-counts td").all_inner_texts()
        assert [int(c) for c in counts[1:]] == [int((union & (here.y_train.to_numpy() == c)).sum())
                                                for c in model.classes_] + [int(union.sum())]
        proba = pg.locator(".turs-prediction tr.turs-predict-proba td").all_inner_texts()
        assert [float(p) for p in proba[1:]] == pytest.approx(list(want), abs=0.005)
        pg.evaluate(FIRST_SCREEN)
        # the answer is on the first screen (the steps' last line, the prediction, ran past 720 px)
        answer = pg.locator(".turs-prediction .turs-predict-answer").first
        assert f"predicts {model.classes_[int(np.argmax(want))]} with P = {want.max():.2f}" in answer.inner_text()
        top, bottom = answer.evaluate("el => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; }")
        assert 0 <= top < bottom <= size["height"], (top, bottom)
        assert "model.predict_proba gives the same" in text
        _shot(pg, f"10a_prediction_step1_{size['width']}x{size['height']}")
        src = plot.get_attribute("src")
        pg.locator(".turs-prediction-step button", has_text="3 probabilities").first.click()
        pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), src],
                             timeout=30_000)
        pg.locator("button.turs-svg").first.click()
        link = pg.locator("a.turs-svg-link").first
        link.wait_for(state="visible", timeout=30_000)
        svg = base64.b64decode(link.get_attribute("href").split(",", 1)[1]).decode()
        assert "<svg" in svg and "why this prediction, step 3 of 3" in svg
        assert f"{want[int(np.argmax(want))]:.2f}" in svg  # the probabilities, as text
        (ARTIFACTS / f"explorer_prediction_step3_{size['width']}.svg").write_text(svg)
        pg.evaluate(FIRST_SCREEN)
        _shot(pg, f"10b_prediction_step3_{size['width']}x{size['height']}")
        pg.locator("button.turs-prediction-clear").first.click()
        pg.wait_for_function("el => el.getClientRects().length === 0",
                             arg=pg.locator(".turs-prediction-step").first.element_handle(), timeout=30_000)
        _tab(pg, ".turs-panels", "Beam")
    finally:
        pg.set_viewport_size(VIEWPORT)


def _where(pg) -> str:
    return pg.evaluate("() => { const t = document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                       ".innerText; return t.match(/Rule search \\d+ of \\d+/)[0] + ', ' + "
                       "t.match(/beam iteration \\d+ of \\d+/)[0]; }")


def test_keys_step_without_the_mouse(page):
    """The mouse never over the pictures: on load, the arrow keys, PageDown and Home step the
    first explorer; after a click on the app (its status line, a tab) too; typed into a number
    box or pressed on a list, they do not step."""
    pg = page
    pg.mouse.move(2, 2)  # nowhere near the pictures
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")
    assert _where(pg) == "Rule search 1 of 3, beam iteration 1 of 8"
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('beam iteration 2 of 8')", timeout=30_000)
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('Rule search 2 of 3')", timeout=30_000)
    assert _where(pg).endswith("beam iteration 1 of 5")
    pg.keyboard.press("Home")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('Rule search 1 of 3')", timeout=30_000)
    assert _where(pg) == "Rule search 1 of 3, beam iteration 1 of 8"
    # the second explorer on the page (the blockade from given rules) did not move
    second = pg.locator(".turs-app").nth(1).locator(".turs-status").first.inner_text()
    assert "Rule search 1 of" in second and "beam iteration 1 of" in second
    # typing in a number box: the caret moves, the step does not
    box = pg.locator(".turs-app").first.locator(".turs-max-rules input").first
    box.click()
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowLeft")
    pg.keyboard.press("End")
    pg.wait_for_timeout(1500)
    assert _where(pg) == "Rule search 1 of 3, beam iteration 1 of 8"
    # a click on a panel's tab (which takes no focus) ends the typing: the keys step again
    _tab(pg, ".turs-panels", "Why")
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('beam iteration 2 of 8')", timeout=30_000)
    # on a list, the arrows choose in the list
    pg.locator(".turs-app").first.locator(".turs-selection select").first.focus()
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_timeout(1500)
    assert _where(pg).endswith("beam iteration 2 of 8")
    # a click on the status line, then back to the first step for the next test
    pg.locator(".turs-status").first.click()
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_function("() => document.querySelectorAll('.turs-app')[0].querySelector('.turs-status')"
                         ".innerText.includes('beam iteration 1 of 8')", timeout=30_000)
    _tab(pg, ".turs-panels", "Beam")
    _shot(pg, "0_keys")


def test_rejected_growth_on_screen_with_both_sides(page):
    """sim-overlap-blockade (the page's first dataset), default settings: the arrow keys step to an
    iteration where the local test rejected growths; the Local test panel lists them with both
    sides in bits."""
    pg = page
    status = pg.locator(".turs-status").first
    assert "beam iteration 1 of" in status.inner_text()
    # the note a page shows while its app is missing is hidden once the app is there
    assert pg.locator(".turs-wait-note").count() == 1 and not pg.locator(".turs-wait-note").is_visible()
    plot = pg.locator("img.turs-plot").first
    before = plot.get_attribute("src")
    pg.locator(".turs-figures").first.hover()  # keys step while the mouse is over the pictures
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("el => el.innerText.includes('beam iteration 2 of')", arg=status.element_handle(),
                         timeout=30_000)
    pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), before],
                         timeout=30_000)
    _tab(pg, ".turs-panels", "Local test")
    rows = pg.locator(".turs-rejected-table .turs-rejected-row")
    rows.first.wait_for(state="visible", timeout=15_000)
    text = pg.locator(".turs-rejected-table").first.inner_text()
    assert "bits without split" in text and "bits with split" in text
    cells = rows.first.locator("td").all_inner_texts()
    without, with_split, cost = float(cells[1]), float(cells[2]), float(cells[3])
    assert with_split >= without and cost == pytest.approx(with_split - without, abs=0.02)
    status.evaluate("el => el.scrollIntoView({block: 'start'})")  # the step, then the table below it
    _shot(pg, "1_rejected_growth")
    for title in ("Lineage", "Why", "Beam"):  # the panels beside the picture, for the eye
        _tab(pg, ".turs-panels", title)
        pg.wait_for_timeout(300)
        _shot(pg, f"1_{title.lower()}_panel")


def test_refit_without_the_local_test_changes_the_rules(page):
    """sim-local-testing (chosen in the dataset list, which fits it), then without the local test:
    more rules, grown on the noise columns (thesis Table 3.6)."""
    pg = page
    first = pg.locator(".turs-app").first.locator(".turs-final-model").first.text_content()
    pg.locator(".turs-dataset select").first.select_option("sim-local-testing")
    _wait_new_text(pg, ".turs-final-model", first)
    _wait_text(pg, ".turs-app .turs-progress-text", "fitted in")
    before = pg.locator(".turs-app").first.locator(".turs-final-model").first.text_content()  # (not visible)
    assert "X1" in before
    pg.locator(".turs-use-local-test input[type=checkbox]").first.uncheck()
    pg.locator("button.turs-refit").first.click()
    progress = pg.locator(".turs-progress-text").first
    pg.wait_for_function("el => el.innerText.includes('fitting')", arg=progress.element_handle(), timeout=30_000)
    _shot(pg, "2a_refit_running")  # the page answers while the worker fits
    pg.wait_for_function("el => el.innerText.includes('fitted in')", arg=progress.element_handle(),
                         timeout=FIT_TIMEOUT)
    _wait_new_text(pg, ".turs-final-model", before, timeout=30_000)  # the new fit's SearchExplorer replaced the old one
    after = pg.locator(".turs-app").first.locator(".turs-final-model").first.text_content()
    assert "TURS rule set" in before and "TURS rule set" in after
    assert after.count("IF ") > before.count("IF ")  # thesis Table 3.6: without the test, more (noise) rules
    _shot(pg, "2b_refit_done")


def test_compare_shows_two_fits(page):
    pg = page
    _tab(pg, ".turs-tabs", "Compare")
    panel = pg.locator(".turs-compare-panel").first
    panel.wait_for(state="visible", timeout=15_000)
    text = panel.inner_text()
    assert "use_local_test" in text and "test ROC-AUC" in text and "MDL score" in text
    assert text.count("TURS rule set") == 2
    panel.scroll_into_view_if_needed()
    _shot(pg, "3_compare")
    _tab(pg, ".turs-tabs", "Search")


def test_categorical_dataset_draws_its_view(page):
    pg = page
    plot = pg.locator("img.turs-plot").first
    before = plot.get_attribute("src")
    pg.locator(".turs-use-local-test input[type=checkbox]").first.check()
    pg.locator(".turs-dataset select").first.select_option("sim-mixed (categorical demo)")
    # the progress line still says "fitted in" from the previous fit: wait for the new fit's explorer
    # (its axes, on the demo's categorical columns), as long as a fit may take, then for the picture
    pg.wait_for_function("() => Array.from(document.querySelectorAll('.turs-app')[0].querySelectorAll("
                         "'.turs-x-feature select, .turs-y-feature select')).some(el => el.selectedIndex >= 0 && "
                         "el.options[el.selectedIndex].text.includes('(categories)'))", timeout=FIT_TIMEOUT)
    pg.wait_for_function(f"old => {{ const el = {_first_app('img.turs-plot')}; "
                         "return el && el.src && el.src !== old && el.naturalWidth > 0; }", arg=before,
                         timeout=30_000)
    progress = pg.locator(".turs-progress-text").first
    pg.wait_for_function("el => el.innerText.includes('fitted in')", arg=progress.element_handle(),
                         timeout=30_000)
    x_text = pg.locator(".turs-x-feature select").first.evaluate("el => el.options[el.selectedIndex].text")
    y_text = pg.locator(".turs-y-feature select").first.evaluate("el => el.options[el.selectedIndex].text")
    assert "(categories)" in x_text + y_text, (x_text, y_text)
    assert "4 columns (2 categorical)" in pg.locator(".turs-data-text").first.inner_text()
    pg.locator("img.turs-plot").first.scroll_into_view_if_needed()
    _shot(pg, "4_categorical_data")


def test_typed_rule_changes_the_mdl_shown(page):
    """On the categorical demo (the previous test's fit, default settings): type a rule in the
    Edit rules tab and press Enter; the MDL change shown is ``with_rule(rule).mdl_score_ -
    mdl_score_`` of the same fit made here, the rule is listed as yours and drawn; a rule on a
    level that does not exist shows the library's message, not a traceback."""
    from turs.explorer._studio import DEMO, Explorer

    pg = page
    text = "colour = blue AND weight >= 11"
    app = Explorer(dataset=DEMO)  # the page's fit, made here: the same data, split and settings
    model = app.fits[-1]["model"]
    want = model.with_rule(text, X=app.X_train, y=app.y_train)
    _tab(pg, ".turs-tabs", "Edit rules")
    box = pg.locator(".turs-rule-text input").first
    box.wait_for(state="visible", timeout=15_000)
    plot = pg.locator("img.turs-edit-plot").first
    before_src = plot.get_attribute("src")
    box.fill(text)
    box.press("Enter")
    result = pg.locator(".turs-rule-result").first
    pg.wait_for_function("el => el.innerText.includes('MDL score') && el.innerText.includes('yours')",
                         arg=result.element_handle(), timeout=30_000)
    row = pg.locator(".turs-rule-result tr.turs-part-total td").all_inner_texts()
    before, after, change = float(row[1]), float(row[2]), float(row[3])
    assert before == pytest.approx(model.mdl_score_, abs=0.006)
    assert after == pytest.approx(want.mdl_score_, abs=0.006)
    assert change == pytest.approx(want.mdl_score_ - model.mdl_score_, abs=0.006)
    for key, attr in (("model_bits", "model_bits"), ("data_bits", "data_bits"), ("regret_bits", "regret_bits")):
        cells = pg.locator(f".turs-rule-result tr.turs-part-{key} td").all_inner_texts()
        assert float(cells[3]) == pytest.approx(getattr(want.mdl_breakdown_, attr)
                                                - getattr(model.mdl_breakdown_, attr), abs=0.006)
    listed = pg.locator(".turs-edit-rules").first  # redrawn after the result table: wait for it
    pg.wait_for_function("el => el.innerText.includes('yours')", arg=listed.element_handle(), timeout=30_000)
    rules = listed.inner_text()
    assert "yours" in rules and text in rules and f"{len(model.rules_) + 1} rules" in rules
    pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), before_src],
                         timeout=30_000)
    pg.locator(".turs-rule-editor").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    _shot(pg, "5a_typed_rule")
    box.fill("colour = purple")
    box.press("Enter")
    message = pg.locator(".turs-rule-message").first
    pg.wait_for_function("el => el.innerText.includes('purple')", arg=message.element_handle(), timeout=30_000)
    shown = message.inner_text()
    assert "uses the level 'purple' of the column 'colour', which it does not have" in shown
    assert "Traceback" not in shown
    pg.locator(".turs-rule-editor").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    _shot(pg, "5b_typed_rule_error")
    # removing R1 renumbers the rules after it: the tab says so
    n_rules = len(model.rules_) + 1
    pg.locator(".turs-edit-choice select").first.select_option(index=0)
    pg.wait_for_timeout(500)
    shown = plot.get_attribute("src")
    pg.locator("button.turs-remove-rule").first.click()
    pg.wait_for_function("el => el.innerText.includes('Removing R1')", arg=result.element_handle(), timeout=30_000)
    pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), shown],
                         timeout=30_000)  # the picture without it
    said = pg.locator(".turs-rule-result").first.inner_text()
    assert "The rules after R1 moved up one number: R2 is now R1" in said, said
    assert n_rules >= 2
    pg.locator(".turs-rule-editor").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    _shot(pg, "5c_removed_rule_renumbered")


def test_blockade_explorer_starts_from_the_two_given_rules(page):
    """The notebook's second explorer: sim-overlap-blockade started from M (Fig. 3.1); rule search
    1 starts after the two given rules, and its auxiliary beam keeps X2 < 0.652117, a literal
    whose new rows all lie in the bottom-right block; selected, the picture fills its cover."""
    pg = page
    app = pg.locator(".turs-app").nth(1)
    app.scroll_into_view_if_needed()
    rules = app.locator(".turs-selection select").first.evaluate(
        "el => Array.from(el.options).map(o => o.text)")
    rules = [t.replace("\xa0", " ") for t in rules]  # the widget shows spaces as no-break spaces
    assert any(t.startswith("rule R1 (given): X1 < 1 AND X2 < 1.4") for t in rules), rules
    assert any(t.startswith("rule R2 (given): X1 >= 0.6 AND X2 >= 0.8") for t in rules), rules
    aux = app.locator(".turs-aux-table").first.inner_text()
    assert "X2 < 0.652117" in aux
    assert "MDL before: 612.90 bits" in app.locator(".turs-status").first.inner_text()
    # select that auxiliary-beam candidate: the picture fills its cover, next to the given R1, R2
    index = next(i for i, t in enumerate(rules) if t.startswith("aux") and t.endswith(": X2 < 0.652117"))
    plot = app.locator("img.turs-plot").first
    before = plot.get_attribute("src")
    app.locator(".turs-selection select").first.select_option(index=index)
    pg.wait_for_function("([el, old]) => el.src && el.src !== old", arg=[plot.element_handle(), before],
                         timeout=30_000)
    app.locator(".turs-status").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    _shot(pg, "6_blockade_from_given_rules")


# ------------------------------------------------------------------------------ uploads
def _upload(pg, name: str, content: bytes):
    """Choose a file in the app's "CSV…" picker, as a user does (no file on disk needed)."""
    with pg.expect_file_chooser() as chooser:  # the widget's <input type=file> is not in the page
        pg.locator(".turs-app").first.locator("button.turs-upload").first.click()
    chooser.value.set_files(files=[{"name": name, "mimeType": "text/csv", "buffer": content}])


def _wait_text(pg, selector: str, text: str, timeout=60_000):
    pg.wait_for_function("([sel, t]) => { const el = document.querySelector(sel); "
                         "return el && el.innerText.includes(t); }", arg=[selector, text], timeout=timeout)


def _use_csv_and_wait(pg, label: str):
    app = pg.locator(".turs-app").first
    app.locator(".turs-label select").first.select_option(label)
    before = app.locator(".turs-final-model").first.text_content()
    assert app.locator("button.turs-use-csv").first.is_enabled()
    app.locator("button.turs-use-csv").first.click()
    _wait_new_text(pg, ".turs-final-model", before)
    _wait_text(pg, ".turs-app .turs-progress-text", "fitted in")
    return app


def test_the_uploaded_csv_is_what_gets_fitted_and_shown(page):
    """300 rows, a column name with a space, one categorical column: the rules, the data text,
    Compare's data row and the picture's axes all use the file's columns (the dataset list once
    reloaded its first entry and fitted that instead)."""
    from test_explorer_app import patients_csv

    pg = page
    _tab(pg, ".turs-tabs", "Search")
    _upload(pg, "my_patients.csv", patients_csv())
    _wait_text(pg, ".turs-app .turs-csv-text", "300 rows, 5 columns")
    app = _use_csv_and_wait(pg, "outcome")
    columns = ["patient age", "smoker", "blood pressure", "visits"]
    rules = app.locator(".turs-final-model").first.text_content()
    conditions = [line for line in rules.splitlines() if "IF " in line]
    assert conditions and all(any(c in line for c in columns) for line in conditions), rules
    assert "petal" not in rules and "colour" not in rules and "X1" not in rules
    assert "300 rows" in app.locator(".turs-data-text").first.inner_text()
    assert "4 columns (1 categorical)" in app.locator(".turs-data-text").first.inner_text()
    assert "upload: my_patients.csv" in app.locator(".turs-dataset select").first.evaluate(
        "el => el.options[el.selectedIndex].text").replace("\xa0", " ")  # the widget shows no-break spaces
    axes = [app.locator(f".turs-{a}-feature select").first.evaluate("el => el.options[el.selectedIndex].text")
            for a in ("x", "y")]
    assert all(any(a.replace("\xa0", " ").startswith(c) for c in columns) for a in axes), axes
    ruleset = app.locator(".turs-ruleset").first.text_content()
    assert "petal" not in ruleset
    _tab(pg, ".turs-tabs", "Compare")
    _wait_text(pg, ".turs-app .turs-compare-panel", "upload: my_patients.csv", timeout=30_000)
    compare = app.locator(".turs-compare-panel").first.inner_text()
    row = [line for line in compare.splitlines() if line.startswith("data")]
    assert row and "upload: my_patients.csv" in row[0], compare
    _shot(pg, "7a_upload_compare")
    _tab(pg, ".turs-tabs", "Search")
    app.locator("img.turs-plot").first.scroll_into_view_if_needed()
    _shot(pg, "7b_upload_fitted")


def test_a_hostile_upload_runs_no_script(page):
    """A file name and column names and values holding markup: no dialog fires, no <img> is
    injected, and the names are shown as text."""
    import numpy as np
    import pandas as pd

    pg = page
    rng = np.random.default_rng(3)
    n = 200
    bad_img, bad_script = "<img src=x onerror=alert(1)>", "<script>alert(2)</script>"
    x = rng.normal(size=n)
    frame = pd.DataFrame({bad_img: x, bad_script: rng.choice([bad_img, bad_script, "a&b"], n),
                          "label": np.where(x > 0, bad_img, "plain")})
    name = "x&<img src=x onerror=alert(9)>.csv"
    _upload(pg, name, frame.to_csv(index=False).encode())
    _wait_text(pg, ".turs-app .turs-csv-text", "200 rows, 3 columns")
    assert name in pg.locator(".turs-app .turs-csv-text").first.inner_text()
    app = _use_csv_and_wait(pg, "label")
    for title in ("Compare", "Edit rules", "Search"):
        _tab(pg, ".turs-tabs", title)
        pg.wait_for_timeout(500)
    for title in ("Why", "Lineage", "Local test", "Rules"):
        _tab(pg, ".turs-panels", title)
    pg.wait_for_timeout(1000)
    assert pg.dialogs == []
    injected = pg.evaluate("() => Array.from(document.querySelectorAll('img[src=\"x\"], img[onerror], "
                           "[onerror], [onload]')).map(el => el.outerHTML.slice(0, 200))")
    assert injected == []
    assert pg.evaluate("() => Array.from(document.scripts).filter(s => s.textContent.includes('alert(')).length") == 0
    _tab(pg, ".turs-tabs", "Compare")
    compare = app.locator(".turs-compare-panel").first.inner_text()
    assert f"upload: {name}" in compare  # shown once escaped: as text, no &amp;
    rules = app.locator(".turs-final-model").first.text_content()
    assert bad_img in rules or bad_script in rules
    _shot(pg, "8_hostile_upload")
    _tab(pg, ".turs-tabs", "Search")


def test_bad_uploads_say_why_and_turn_use_csv_off(page):
    """After a good file: a one-column file, then a label with gaps, then a semicolon file in
    Latin-1 (read, with the note), and a file over tornado's old 10 MB websocket limit (taken)."""
    pg = page
    app = pg.locator(".turs-app").first
    use = app.locator("button.turs-use-csv").first
    _upload(pg, "one.csv", b"only\n1\n2\n3\n")
    _wait_text(pg, ".turs-app .turs-csv-text", "needs at least one feature and a label column")
    assert not use.is_enabled()
    _upload(pg, "holes.csv", b"a,b,y\n1,2,yes\n2,3,\n3,4,no\n4,5,yes\n5,1,no\n")
    _wait_text(pg, ".turs-app .turs-csv-text", "5 rows, 3 columns")
    app.locator(".turs-label select").first.select_option("y")
    use.click()
    _wait_text(pg, ".turs-app .turs-progress-text", "missing value(s) (lines 3)")
    _shot(pg, "9a_label_with_gaps")
    green = "gr\u00fcn"
    latin = "gr\u00f6\u00dfe;farbe;klasse\n" + "".join(f"{i}.5;{green if i % 2 else 'rot'};{'ab'[i % 2]}\n"
                                                          for i in range(40))
    _upload(pg, "latin.csv", latin.encode("latin-1"))
    _wait_text(pg, ".turs-app .turs-csv-text", "40 rows, 3 columns")
    text = app.locator(".turs-csv-text").first.inner_text()
    assert "not UTF-8" in text and "semicolons" in text and use.is_enabled()
    options = app.locator(".turs-label select").first.evaluate("el => Array.from(el.options).map(o => o.text)")
    assert "gr\u00f6\u00dfe" in options
    # over the old limit: 12 MB in one websocket message (it vanished; the page reconnected)
    rows = 450_000
    big = "a,b,c,d,e,f,g,h,label\n" + "12,34,56,78,90,12,34,56,yes\n" * (rows // 2) \
        + "21,43,65,87,9,21,43,65,no\n" * (rows // 2)
    assert len(big) > 10.5 * 2**20
    _upload(pg, "big.csv", big.encode())
    _wait_text(pg, ".turs-app .turs-csv-text", f"{rows:,} rows, 9 columns", timeout=120_000)
    assert use.is_enabled()
    _shot(pg, "9b_large_upload_read")
