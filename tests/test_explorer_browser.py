"""The explorer notebook served by Voila and driven in headless Chromium (marker ``browser``).

notebooks/explorer.py is converted to .ipynb (jupytext) in a temporary folder and served by
Voila on 127.0.0.1 and a free port; Python playwright drives Debian's Chromium
(/usr/bin/chromium, installed by .ci/install-browser.sh; never ``playwright install``) with every
request that does not go to 127.0.0.1 aborted. The test moves the beam-iteration slider of the
first explorer with the keyboard, waits until its status text, main-beam table and scatter plot
change, and saves screenshots before and after to build/test-artifacts/.

Without /usr/bin/chromium (or playwright, voila, jupytext) the test is skipped, saying why,
unless TURS_REQUIRE_BROWSER=1, where that is a failure.
"""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "build" / "test-artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]

pytestmark = pytest.mark.browser


def _missing(reason: str):
    if os.environ.get("TURS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"TURS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, timeout: float) -> None:
    """Wait for Voila's TCP port (a GET of / would start a kernel)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"voila exited with code {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"voila did not listen on 127.0.0.1:{port} within {timeout} s")


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to Voila by its PID, wait up to 15 s, then kill its own process group."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the kernel it started, if still there
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait(timeout=15)


@pytest.fixture
def voila_url(tmp_path):
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} is missing (install it with: bash .ci/install-browser.sh)")
    for module in ("playwright", "voila", "jupytext"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"the Python package {module!r} is missing (pip install -e '.[dev,notebooks,explorer]')")
    import jupytext

    notebook = tmp_path / "explorer.ipynb"
    jupytext.write(jupytext.read(REPO / "notebooks" / "explorer.py"), notebook)
    port = _free_port()
    log = open(tmp_path / "voila.log", "w")
    env = dict(os.environ, MPLBACKEND="Agg")
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / "build" / "numba_cache"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
         "--Voila.ip=127.0.0.1", "--VoilaConfiguration.extension_denylist=jupyterlab-jupytext"],
        cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        _wait_for_port(port, proc, timeout=30)
        yield f"http://127.0.0.1:{port}/"
    except BaseException:
        log.flush()
        print((tmp_path / "voila.log").read_text()[-5000:])
        raise
    finally:
        _stop(proc)
        log.close()


def test_beam_slider_redraws_tables_and_plot(voila_url):
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
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.route("**/*", only_loopback)
            page.goto(voila_url, timeout=45_000)
            app = page.locator(".turs-explorer").first
            handle = app.locator(".turs-beam-step .noUi-handle")
            handle.wait_for(state="visible", timeout=45_000)
            status = app.locator(".turs-status")
            main = app.locator(".turs-main-table")
            plot = app.locator("img.turs-plot")
            page.wait_for_function("el => el.src && el.src.length > 0", arg=plot.element_handle(), timeout=15_000)
            before = {"status": status.inner_text(), "main": main.inner_text(), "plot": plot.get_attribute("src")}
            assert "beam iteration 1 of" in before["status"]
            assert "Main beam" in before["main"]
            app.screenshot(path=str(ARTIFACTS / "explorer_before.png"))

            handle.focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                "([el, old]) => el.innerText.includes('beam iteration 2 of') && el.innerText !== old",
                arg=[status.element_handle(), before["status"]], timeout=15_000)
            page.wait_for_function("([el, old]) => el.src && el.src !== old",
                                   arg=[plot.element_handle(), before["plot"]], timeout=15_000)
            page.wait_for_function("([el, old]) => el.innerText !== old",
                                   arg=[main.element_handle(), before["main"]], timeout=15_000)
            after = {"status": status.inner_text(), "main": main.inner_text(), "plot": plot.get_attribute("src")}
            app.screenshot(path=str(ARTIFACTS / "explorer_after.png"))
        finally:
            browser.close()
    assert after["status"] != before["status"] and after["main"] != before["main"]
    assert after["plot"] != before["plot"]
    assert (ARTIFACTS / "explorer_before.png").stat().st_size > 10_000
    assert (ARTIFACTS / "explorer_after.png").stat().st_size > 10_000
    print(f"aborted {len(blocked)} request(s) not to 127.0.0.1: {sorted(set(blocked))[:5]}")
