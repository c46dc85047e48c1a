"""How the browser tests start Debian's Chromium (``bash .ci/install-browser.sh``): its path,
the flags it needs on a machine whose network is closed, the projector-size viewport, and the
folder the tests' screenshots go to (under ``build/``, not tracked)."""
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1280, "height": 720}
ARTIFACTS = REPO / "build" / "test-artifacts"
