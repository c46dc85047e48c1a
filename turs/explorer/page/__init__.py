"""A recorded search as one self-contained HTML file: step through it in any browser, offline.

>>> page = search_page(TURSClassifier(record_trace=True).fit(X, y), X, y, "search.html")  # doctest: +SKIP
>>> page            # in a notebook: the page in an iframe (its ``srcdoc``)            # doctest: +SKIP

The page is the trace as JSON plus a small player (``model.js``, ``player.js``, ``player.css``,
shipped with the package) written into one file: no server, no Python, no network. Its Content-Security-Policy
allows only its own script and style, by their SHA-256 hashes, and nothing from outside; every
text from the data reaches the page as JSON (``<`` written ``\\u003c``) and is inserted with
``textContent``. No widgets are imported here. See ``docs/explorer-page.md``.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import warnings
from importlib import resources
from pathlib import Path

from ._payload import PAGE_FORMAT, build_payload, check_points

__all__ = ["SearchPage", "search_page", "PAGE_FORMAT"]

#: JSON larger than this (bytes) is embedded gzip-compressed, read by the browser's DecompressionStream.
COMPRESS_ABOVE = 1_500_000
#: A page larger than this (bytes) says so on the page and warns: the bundled teaching datasets' pages stay under it.
LARGE_PAGE = 3_000_000
#: The height of the notebook iframe (px).
IFRAME_HEIGHT = 760


def _asset(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


#: The player's files, in the order they are concatenated: the recording and DOM helpers, the
#: data picture, the beam tables, predict-then-reveal, why a row gets its prediction, and the
#: navigation and panels (which starts the page).
SCRIPTS = ("model.js", "picture.js", "tables.js", "reveal.js", "prediction.js", "player.js")


def player_script() -> str:
    """The page's one script: the files of :data:`SCRIPTS` inside one strict-mode function, so
    they share its names and nothing leaks to the page's globals."""
    return '(function () {\n"use strict";\n' + "".join(_asset(name) for name in SCRIPTS) + "})();\n"


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def script_json(obj) -> str:
    """``obj`` as JSON safe inside ``<script type="application/json">``: ASCII only, and ``<``,
    ``>``, ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026`` so that no ``</script>`` or
    ``<!--`` can end or change the element, whatever the data hold."""
    text = json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class SearchPage:
    """One search page: :attr:`html` (the whole file), :meth:`save`, and ``_repr_html_`` (an
    iframe whose ``srcdoc`` is the page, so a notebook exported to HTML still steps).

    :attr:`size` is the page in bytes, :attr:`json_bytes` the embedded JSON before compression,
    :attr:`compressed` whether it was gzip-compressed, :attr:`left_out` what the page says it
    does not carry."""

    def __init__(self, html_text: str, *, json_bytes: int, compressed: bool, left_out: list, title: str):
        self.html = html_text
        self.json_bytes = json_bytes
        self.compressed = compressed
        self.left_out = list(left_out)
        self.title = title

    @property
    def size(self) -> int:
        return len(self.html.encode("utf-8"))

    def save(self, path) -> Path:
        """Write the page to ``path`` (UTF-8); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.html, encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        # the iframe keeps scripts (allow-scripts) but gets an opaque origin: no access to the notebook
        return (f'<iframe class="turs-search-page" title="{html.escape(self.title)}" sandbox="allow-scripts" '
                f'style="width: 100%; height: {IFRAME_HEIGHT}px; border: 1px solid #ccc;" '
                f'srcdoc="{html.escape(self.html, quote=True)}"></iframe>')

    def __repr__(self) -> str:
        return (f"SearchPage({self.title!r}, {self.size:,} bytes"
                f"{', gzip-compressed recording' if self.compressed else ''})")


def search_page(model, X=None, y=None, path=None, *, points: str = "all", max_points: int | None = None,
                title: str | None = None, compress: bool | None = None) -> SearchPage:
    """A fitted model's recorded search as one self-contained HTML page.

    Parameters
    ----------
    model : TURSClassifier fitted with ``record_trace=True`` (or ``"compact"``)
    X, y : the training data (optional; without them the page has no picture of the rows)
    path : where to write the page (optional)
    points : ``"all"`` (default), ``"sample"`` or ``"none"``
        Which training rows the page carries for its picture: all of them (a fixed random
        sample of ``max_points`` when there are more), a fixed random sample of ``max_points``
        (for data that should not leave in full), or none. The page says which.
    max_points : int, default 5000 for ``"all"``, 500 for ``"sample"``
    title : the page's title (default: names the data: the label's name, the table's size and the rule count)
    compress : gzip the embedded recording (default: when its JSON is over 1.5 MB); the browser
        reads it back with ``DecompressionStream``, and the page says it was compressed.

    Returns
    -------
    SearchPage
    """
    points, max_points = check_points(points, max_points)
    if title is None:
        title = default_title(model, X, y)
    payload = build_payload(model, X, y, points=points, max_points=max_points, title=str(title))
    out = _write(payload, compress, str(title))
    if out.size > LARGE_PAGE:
        # say so on the page (About, and under the picture) and to the caller; the recording is never cut
        payload["left_out"].append(
            f"This page is {out.size / 1e6:.1f} MB, over the {LARGE_PAGE / 1e6:.0f} MB a page of a teaching dataset stays under: "
            "the recording of a large search is kept whole. For a class, fit on fewer rows or pass points='sample'.")
        out = _write(payload, compress, str(title))
        warnings.warn(f"search_page: the page is {out.size / 1e6:.1f} MB (over {LARGE_PAGE / 1e6:.0f} MB): the recording of "
                      f"{len(payload['trace']['searches'])} rule searches is kept whole; the page says so.", stacklevel=2)
    if path is not None:
        out.save(path)
    return out


def default_title(model, X, y) -> str:
    """A title that names the data: the label's name (a Series' name), the table's size and the rule count."""
    n = len(getattr(model, "rules_", []))
    rules = f"{n} rule{'s' if n != 1 else ''}"
    name = getattr(y, "name", None)
    what = f"“{name}”" if name is not None else "the labels"
    shape = getattr(X, "shape", None)
    size = f" from {shape[0]:,} rows × {shape[1]:,} column{'s' if shape[1] != 1 else ''}" if shape is not None and len(shape) == 2 else ""
    return f"TURS search for {what}{size}: {rules}"


def _write(payload: dict, compress, title: str) -> SearchPage:
    raw = json.dumps(payload, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    compressed = (len(raw) > COMPRESS_ABOVE) if compress is None else bool(compress)
    if compressed:
        blob = base64.b64encode(gzip.compress(raw.encode("ascii"), compresslevel=9, mtime=0)).decode("ascii")
        data_tag = f'<script type="application/octet-stream" id="turs-data-gz">{blob}</script>'
    else:
        data_tag = f'<script type="application/json" id="turs-data">{script_json(payload)}</script>'
    js, css = player_script(), _asset("player.css")
    csp = ("default-src 'none'; "
           f"script-src '{_sha256(js)}'; style-src '{_sha256(css)}'; img-src data:; "
           "connect-src 'none'; font-src 'none'; object-src 'none'; media-src 'none'; frame-src 'none'; "
           "worker-src 'none'; base-uri 'none'; form-action 'none'")
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<meta name=\"generator\" content=\"turs {PAGE_FORMAT}\">\n"
        f"<title>{html.escape(str(title))}</title>\n<style>{css}</style>\n</head>\n<body>\n"
        '<noscript><p>This page steps through a recorded TURS rule search; it needs JavaScript '
        '(nothing is loaded from the network).</p></noscript>\n'
        '<div id="turs-app" aria-live="polite"><p id="turs-loading">Loading the recorded search…</p></div>\n'
        f"{data_tag}\n<script>{js}</script>\n</body>\n</html>\n"
    )
    return SearchPage(page, json_bytes=len(raw), compressed=compressed, left_out=payload["left_out"], title=title)
