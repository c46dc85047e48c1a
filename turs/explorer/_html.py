"""The explorer's HTML: style sheet, beam tables and the explanation panels (strings), and
:func:`shows_errors`, which puts a widget callback's exception on the page as such a string.

Text is at least 14 px (tables, panels and the widgets' own labels, through the
``--jp-widgets-font-size`` variable), so it can be read from the back of a room at 1280x720.
"""
from __future__ import annotations

import functools
import html
import logging
import math
import re

from .. import style
from . import _explain

FONT_PX = 15
TAB_PADDING_PX = 6  # inside the tabs (ipywidgets: 15 px): the width goes to the picture and the tables
#: The panels beside the picture (Beam, Why, ..., Point) are at most the data picture's height
#: (410 px at 100 dpi, ``_draw.DATA_FIGSIZE``) plus the tab's padding, and scroll inside: a beam of
#: ten two-literal candidates (about 650 px) pushed the table's end and the page below the first screen.
PANEL_MAX_PX = 410 + 2 * TAB_PADDING_PX
#: The selected row's outline: the candidate colour of the pictures (``turs.style.CANDIDATE``).
SELECTED = style.CANDIDATE

CSS = f"""
<style>
.turs-app, .turs-explorer {{--jp-widgets-font-size: {FONT_PX}px; --jp-widgets-inline-height: 30px;
  --jp-widgets-inline-label-width: 110px; font-size: {FONT_PX}px; font-family: 'DejaVu Sans', sans-serif;}}
.turs-app .widget-label, .turs-explorer .widget-label, .turs-app .widget-readout, .turs-explorer .widget-readout,
.turs-app button, .turs-explorer button, .turs-app select, .turs-explorer select, .turs-app input,
.turs-explorer input, .turs-app .p-TabBar-tab, .turs-app .lm-TabBar-tab, .turs-explorer .lm-TabBar-tab
  {{font-size: {FONT_PX}px !important;}}
.turs-explorer .lm-TabBar-tab, .turs-app .lm-TabBar-tab {{min-width: 0; flex: 0 1 auto; padding: 0 10px;}}
.turs-app .turs-tabs > .widget-tab-contents, .turs-explorer .turs-figures > .widget-tab-contents,
.turs-explorer .turs-panels > .widget-tab-contents {{padding: {TAB_PADDING_PX}px;}}
.turs-explorer img.widget-image {{align-self: flex-start; flex: none; width: auto; max-width: none;}}
.turs-explorer .turs-wide, .turs-explorer .turs-wide .widget-html-content {{min-width: 0; max-width: 100%;}}
.turs-side .widget-inline-hbox, .turs-side .widget-hbox, .turs-side .jupyter-button {{max-width: calc(100% - 4px);}}
.turs-explorer table.turs-table {{border-collapse: collapse; font-size: {FONT_PX - 1}px;}}
.turs-explorer table.turs-table th, .turs-explorer table.turs-table td {{
  border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: right; white-space: nowrap;}}
.turs-explorer table.turs-table th {{white-space: normal; vertical-align: bottom; line-height: 1.25;}}
.turs-explorer .turs-nowrap {{white-space: nowrap;}}
.turs-explorer table.turs-table td.turs-counts {{white-space: normal;}}
.turs-explorer table.turs-table td.turs-cond {{text-align: left; white-space: normal; min-width: 180px;
  max-width: 420px;}}
.turs-explorer table.turs-table tr.turs-chosen td {{background: #fff3c4;}}
.turs-explorer table.turs-table tr.turs-selected td {{border-top: 3px solid {SELECTED}; border-bottom: 3px solid {SELECTED};}}
.turs-explorer table.turs-table tr.turs-selected td:first-child {{border-left: 3px solid {SELECTED};}}
.turs-explorer table.turs-table tr.turs-selected td:last-child {{border-right: 3px solid {SELECTED};}}
.turs-explorer table.turs-table caption {{text-align: left; font-weight: bold; padding: 4px 0;}}
.turs-explorer .turs-scroll {{overflow-x: auto; max-width: 100%;}}
.turs-explorer pre.turs-pre {{font-size: {FONT_PX - 1}px; margin: 0; white-space: pre-wrap; line-height: 1.35;
  word-break: normal; overflow-wrap: break-word; font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace;}}
.turs-explorer .turs-fail {{color: #b35900; font-weight: bold;}}
.turs-explorer .turs-pass {{color: #0072B2;}}
.turs-explorer .turs-note {{color: #555; font-size: {FONT_PX - 1}px; line-height: 1.35;}}
.turs-explorer .turs-panel {{line-height: 1.4; white-space: normal; overflow-wrap: break-word;}}
.turs-explorer .turs-panels .widget-html {{width: calc(100% - 4px);}}
.turs-explorer .turs-panels > .widget-tab-contents {{max-height: {PANEL_MAX_PX}px; overflow-y: auto;}}
.turs-explorer .turs-panels .widget-html-content {{width: 100%;}}
.turs-explorer .turs-panel table.turs-table td.turs-cond {{min-width: 120px;}}
.turs-explorer .turs-panel table.turs-table td {{padding: 2px 4px;}}
.turs-explorer .turs-panel p {{margin: 4px 0 8px 0;}}
.turs-explorer table.turs-fit-table {{width: 100%; table-layout: fixed;}}
.turs-explorer table.turs-fit-table td.turs-cond {{min-width: 0; max-width: none; overflow-wrap: anywhere;}}
.turs-explorer table.turs-fit-table td, .turs-explorer table.turs-fit-table th {{padding: 2px 3px;}}
.turs-explorer .turs-error {{color: #b35900; font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace;
  font-size: {FONT_PX - 1}px; white-space: pre-wrap; word-break: normal; overflow-wrap: break-word; margin: 0;
  line-height: 1.35;}}
.turs-explorer .turs-status-text {{line-height: 1.45;}}
.turs-explorer code {{font-size: {FONT_PX - 1}px; background: #f3f3f3; padding: 0 2px;}}
.turs-explorer tr.turs-test-head td {{white-space: normal;}}
.turs-explorer table.turs-lineage-table td {{white-space: normal; overflow-wrap: anywhere; text-align: left;}}
/* six panel tabs in the ~350 px beside the picture at 1280 px */
.turs-explorer .turs-panels .lm-TabBar-tab {{flex: 0 0 auto !important; padding: 0 5px !important;
  max-width: none; min-width: 0 !important;}}
.turs-app button:disabled, .turs-explorer button:disabled {{opacity: 0.4 !important; filter: grayscale(1);
  cursor: not-allowed;}}
.turs-app :focus-visible, .turs-explorer :focus-visible, .turs-explorer .noUi-handle:focus {{
  outline: 3px solid {SELECTED} !important; outline-offset: 2px;}}
.turs-explorer .turs-headline {{margin: 2px 0;}}
.turs-explorer .turs-why-prediction table.turs-table td.turs-cond {{white-space: normal; overflow-wrap: anywhere;
  text-align: left;}}
.turs-explorer .turs-why-prediction .turs-pstep {{margin: 6px 0; padding: 2px 4px; border-left: 4px solid #ddd;}}
.turs-explorer .turs-why-prediction .turs-predict-answer {{margin: 4px 0; padding: 2px 4px; background: #eef4fa;}}
.turs-explorer .turs-why-prediction .turs-current-step {{border-left-color: {SELECTED}; background: #f6eef3;}}
.turs-explorer .turs-svg-link {{margin-left: 8px; white-space: nowrap;}}
.turs-explorer .turs-play {{width: auto !important; flex: 0 0 auto; margin-right: 8px;}}
.turs-explorer .turs-play button {{width: auto !important; min-width: 64px; padding: 0 6px;}}
.turs-explorer .turs-play button i.fa {{display: none;}}
.turs-explorer .turs-play button:has(i.fa-play)::after {{content: "\\25B6  play";}}
.turs-explorer .turs-play button:has(i.fa-pause)::after {{content: "\\275A\\275A  pause";}}
.turs-explorer .turs-play button:has(i.fa-stop)::after {{content: "\\25A0  stop";}}
.turs-explorer .turs-play button:has(i.fa-retweet)::after {{content: "\\21BB  repeat";}}
</style>
"""

#: (header, key, format) of the beam tables
COLUMNS = [
    ("#", None, None),
    ("conditions", "conditions", None),
    ("coverage", "coverage", "{:d}"),
    ("outside rule set", "coverage_uncovered", "{:d}"),
    ("r (Eq. 3.21)", "r", "{:.4g}"),
    ("R (Eq. 3.24)", "R", "{:.4g}"),
    ("bucket", None, None),
    ("local test", None, None),
    ("MDL after", "mdl_after", "{:.2f}"),
    ("class counts", "class_counts", None),
    ("chosen", "chosen", None),
]


logger = logging.getLogger("turs.explorer")


def esc(text) -> str:
    """``text`` (anything, as ``str``) escaped for HTML text and attribute values. Escape once, where
    the string becomes HTML: an escaped string passed here again shows its ``&amp;`` on the page."""
    return html.escape(str(text))


def error_html(exc: BaseException, doing: str = "") -> str:
    """An exception as the page shows it: ``doing: Type: message`` in the failure style."""
    head = f"{doing}: " if doing else ""
    return (f"<div class='turs-fail turs-callback-error'>{esc(head)}{esc(type(exc).__name__)}: "
            f"{esc(exc)}</div>")


def shows_errors(doing: str):
    """Decorator of a widget callback method: an exception it raises goes to the page, through the
    instance's ``_show_error(exc, doing)``, and to the ``turs.explorer`` log, instead of vanishing
    into the kernel's log (ipywidgets swallows what a callback raises)."""
    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every error reaches the page
                logger.exception("%s failed", doing)
                self._show_error(exc, doing)
                return None
        return wrapper
    return decorate


def pre(text: str) -> str:
    return f"<pre class='turs-pre'>{esc(text)}</pre>"


def fmt(v, spec="{:.3g}"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "&ndash;"
    return spec.format(v)


#: The beam table beside the picture (the panel is about 330 px wide at 1280 px): the columns a
#: step is read by; the full table is below
COMPACT = ("#", "conditions", "coverage", "r (Eq. 3.21)", "local test")  # the chosen one: a star in "#"
#: The compact table's short headers (the full one is the header's tooltip)
COMPACT_HEADS = {"coverage": "rows", "r (Eq. 3.21)": "r", "local test": "test"}


def header_html(text: str) -> str:
    """A column header that wraps between words but never inside a bracket: "r (Eq. 3.21)" wraps
    to "r" over "(Eq. 3.21)" (the header's text stays the same)."""
    return re.sub(r"\((.*?)\)", lambda m: f"<span class='turs-nowrap'>({m.group(1)})</span>", esc(text))


def beam_table(view, k, it, which, selected, caption, compact: bool = False) -> str:
    """One beam at one step: a row per candidate; the search's final rule marked (by its id).
    ``compact``: the columns of :data:`COMPACT` only."""
    df = view.table(k, it, which)
    columns = [c for c in COLUMNS if c[0] in COMPACT] if compact else COLUMNS
    bucket_key, test_key = ("aux_bucket", "aux_local_test") if which == "aux" else ("bucket", "local_test")
    short_head = COMPACT_HEADS if compact else {}
    head = "".join(f"<th title='{esc(h)}'>{header_html(short_head.get(h, h))}</th>" for h, _, _ in columns)
    rows = []
    for i, row in enumerate(df.itertuples(index=False)):
        r = row._asdict()
        cells = []
        for h, key, spec in columns:
            if h == "#":
                cells.append(f"<td>{i + 1}{' &#9733;' if compact and r['chosen'] else ''}</td>")
            elif key == "conditions":
                cells.append(f"<td class='turs-cond'>{esc(r['conditions'])}</td>")
            elif h == "bucket":
                cells.append(f"<td>{r[bucket_key]}</td>")
            elif h == "local test":
                ok = bool(r[test_key])
                cells.append(f"<td class='{'turs-pass' if ok else 'turs-fail'}'>{'pass' if ok else 'fail'}</td>")
            elif key == "chosen":
                cells.append(f"<td>{'&#9733; chosen' if r['chosen'] else ''}</td>")
            elif key == "class_counts":
                cells.append(f"<td class='turs-counts'>{esc(', '.join(str(x) for x in r['class_counts']))}</td>")
            else:
                cells.append(f"<td>{fmt(r[key], spec)}</td>")
        classes = (["turs-chosen"] if r["chosen"] else []) + (["turs-selected"] if selected == (which, i) else [])
        rows.append(f"<tr class='{' '.join(classes)}' data-index='{i}'>" + "".join(cells) + "</tr>")
    body = "".join(rows) if rows else f"<tr><td colspan='{len(columns)}'>(empty)</td></tr>"
    return (f"<div class='turs-scroll'><table class='turs-table turs-{which}{' turs-compact' if compact else ''}'>"
            f"<caption>{esc(caption)} &middot; "
            f"{len(df)} candidates</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


# -------------------------------------------------------------------- panels
def why_panel(search: dict, k: int) -> str:
    """The chosen rule against the runner-up: a table of the MDL change by part and sentences."""
    why = _explain.why_rule(search)
    out = [f"<div class='turs-panel turs-why'><b>Why this rule (rule search {k + 1})</b>"]
    if why["parts"] and any(p["chosen"] is not None for p in why["parts"]):
        out.append("<table class='turs-table'><thead><tr><th>MDL change (bits)</th><th>chosen</th>"
                   "<th>runner-up</th></tr></thead><tbody>")
        for p in why["parts"]:
            bold = " style='font-weight:bold'" if p["key"] == "total" else ""
            out.append(f"<tr{bold} title='{esc(p['meaning'])}'><td style='text-align:left'>{esc(p['part'])}</td>"
                       f"<td>{fmt(p['chosen'], '{:+.1f}')}</td><td>{fmt(p['runner_up'], '{:+.1f}')}</td></tr>")
        out.append("</tbody></table>")
    out.extend(f"<p>{esc(s)}</p>" for s in why["sentences"])
    out.append(f"<p class='turs-note'>{esc(_explain.search_stop_text(search))}.</p></div>")
    return "".join(out)


def lineage_panel(trace, k: int) -> str:
    """How the chosen rule grew: one row per literal, with the beam it was in and the best loser."""
    rows = _explain.lineage_rows(trace, k)
    if not rows:
        return ("<div class='turs-panel'>This trace has no lineage (record it again with this version of turs "
                "to see how the rule grew).</div>")
    # three columns, the last one stacked, so that the table fits the ~330 px panel beside the
    # picture at 1280 px without scrolling sideways
    out = [f"<div class='turs-panel turs-lineage'><b>How the rule of search {k + 1} grew from the empty rule</b>"
           "<div class='turs-scroll'><table class='turs-table turs-lineage-table'><thead><tr><th>step</th>"
           "<th>literal added</th><th>how it won</th></tr></thead><tbody>"]
    for r in rows:
        if r["depth"] == 0:
            out.append(f"<tr><td>0</td><td class='turs-cond'>(empty rule)</td><td>{r['coverage']} rows</td></tr>")
            continue
        rank = f"{r['rank']} of {r['beam_size']} in the beam" if r["rank"] else f"aux beam ({r['beam_size']} in main)"
        loser = r["loser"]
        loser_text = "&ndash;" if loser is None else esc(_explain.conditions_text(loser))
        margin = "&ndash;" if r["margin"] is None else f"{r['margin']:+.3g}"
        out.append(f"<tr><td>{r['depth']}</td><td class='turs-cond'>{esc(r['added'] or r['conditions'])}</td>"
                   f"<td>{r['coverage']} rows, r {fmt(r['r'])}, {rank}; best other: {loser_text}, lost by "
                   f"{margin}; {fmt(r['n_rejected'], '{:d}')} rejected</td></tr>")
    out.append("</tbody></table></div><p class='turs-note'>\u201clost by\u201d: this step's r minus the best "
               "other candidate's in the same main beam (negative: another candidate was ahead then, but this "
               "one's growths won later). \u201crejected\u201d: growths the local test rejected in that iteration."
               "</p></div>")
    return "".join(out)


#: How the Local test panel can order its rows: label -> (row key, descending)
LOCAL_TEST_ORDERS = {"r / R (the search's order)": ("score", True),
                     "split costs (+) / saves (-)": ("excess", False),
                     "bits without split": ("without", True), "bits with split": ("with", True)}


def _ordered(rows, order):
    key, descending = LOCAL_TEST_ORDERS.get(order, ("score", True))
    known = [r for r in rows if r.get(key) is not None]
    unknown = [r for r in rows if r.get(key) is None]
    return sorted(known, key=lambda r: r[key], reverse=descending) + unknown


def rejected_panel(trace, k: int, it: int, limit: int = 12, order: str | None = None) -> str:
    """The local tests at one iteration, with both sides of the test (Eq. 3.22, 3.25): the
    growths they rejected (the trace keeps the best of them: "k of N" says how many) and the
    growths in the beams, which passed. ``order``: a key of :data:`LOCAL_TEST_ORDERS`."""
    n_main, n_aux = _explain.n_rejected(trace, k, it)
    rows = _explain.rejected_rows(trace, k, it)
    passed = _explain.passed_rows(trace, k, it)
    counts = {"main": n_main, "aux": n_aux}
    listed = {t: sum(r["test"] == t for r in rows) for t in counts}

    def of(test):
        n, m = counts[test], min(listed[test], limit)
        return f"{n}" if m >= n else f"{n} (the best {m} of {n} listed)"

    out = [f"<div class='turs-panel turs-rejected'><b>Local test at beam iteration {it + 1}</b>: the main beam's "
           f"test (Eq. 3.22) rejected {of('main')} growth{'s' if n_main != 1 else ''}, the auxiliary beam's "
           f"(Eq. 3.25) {of('aux')}. A growth passes when sending the parent's labels as one block costs more "
           "than splitting them (the split must pay for itself): <i>without</i> &gt; <i>with</i>."]
    if not rows and not passed:
        out.append("<p>No growth was tested here.</p></div>")
        return "".join(out)
    # fixed column widths: the panel beside the 590 px picture is about 330 px wide at 1280 px,
    # and the last column (what the split costs) must stay on screen
    out.append("<div class='turs-scroll'><table class='turs-table turs-fit-table'><colgroup>"
               "<col style='width:40%'><col style='width:20%'><col style='width:20%'><col style='width:20%'>"
               "</colgroup><thead><tr><th style='text-align:left'>growth</th>"
               "<th>bits without split</th><th>bits with split</th><th>split costs</th>"
               "</tr></thead><tbody>")
    for test, eq in (("main", "3.22"), ("aux", "3.25")):
        shown = _ordered([r for r in rows if r["test"] == test], order)
        if shown:
            out.append(f"<tr class='turs-test-head'><td colspan='4' style='text-align:left'><i>rejected by the "
                       f"{test} beam's test (Eq. {eq}): {min(len(shown), limit)} of {counts[test]}</i></td></tr>")
        for r in shown[:limit]:
            grown = f"grown from: {r['parent']}" if r["parent"] else ""
            out.append(f"<tr class='turs-rejected-row turs-test-{test}'><td class='turs-cond' title='{esc(grown)}'>"
                       f"{esc(r['conditions'])}</td><td>{fmt(r['without'], '{:.2f}')}</td>"
                       f"<td>{fmt(r['with'], '{:.2f}')}</td><td class='turs-fail'>{fmt(r['excess'], '{:+.2f}')}</td></tr>")
        if len(shown) > limit:
            out.append(f"<tr><td colspan='4' style='text-align:left'>&hellip; {len(shown) - limit} more recorded "
                       f"for the {test} test</td></tr>")
    for test, eq, beam in (("main", "3.22", "main beam"), ("aux", "3.25", "auxiliary beam")):
        shown = _ordered([r for r in passed if r["test"] == test], order)
        if shown:
            out.append(f"<tr class='turs-test-head'><td colspan='4' style='text-align:left'><i>passed the {test} "
                       f"beam's test (Eq. {eq}): the {len(shown)} growth{'s' if len(shown) != 1 else ''} in the "
                       f"{beam}</i></td></tr>")
        for r in shown[:limit]:
            grown = f"grown from: {r['parent']}" if r["parent"] else ""
            out.append(f"<tr class='turs-passed-row turs-test-{test}'><td class='turs-cond' title='{esc(grown)}'>"
                       f"{esc(r['conditions'])}</td><td>{fmt(r['without'], '{:.2f}')}</td>"
                       f"<td>{fmt(r['with'], '{:.2f}')}</td>"
                       f"<td class='turs-pass'>{fmt(r['excess'], '{:+.2f}')}</td></tr>")
        if len(shown) > limit:
            out.append(f"<tr><td colspan='4' style='text-align:left'>&hellip; {len(shown) - limit} more in the "
                       f"{beam}</td></tr>")
    out.append("</tbody></table></div></div>")
    return "".join(out)


def sample_note(view, k: int) -> str:
    """What a sampled rule search's numbers are (``""`` for a search on all rows)."""
    rows = view.search(k).get("sample_rows")
    if not rows:
        return ""
    return (f"This search ran on a stratified sample of {int(rows):,} of {int(view.trace.n_train):,} training "
            "rows: its candidates' counts and scores are the sample's. The rule set's MDL scores are on all "
            "rows, where the chosen rule was confirmed (TURSClassifier(exact=True) searches all rows).")


def status_html(view, k: int, it: int) -> str:
    s = view.search(k)
    n_it = view.n_iterations(k)
    verdict = ("accepted" if s["accepted"] else "not accepted" if s["chosen"] else "no candidate")
    chosen = " AND ".join(s["chosen"]["conditions"]) if s["chosen"] else "(none)"
    sampled = sample_note(view, k)
    return (f"<div class='turs-status-text'><b>Rule search {k + 1} of {view.n_searches}</b> ({verdict}) &middot; "
            f"<b>beam iteration {it + 1} of {max(n_it, 1)}</b>{'' if n_it else ' (the beams were empty)'} &middot; "
            f"MDL before: {s['mdl_before']:.2f} bits<br>chosen rule of this search: <code>{esc(chosen)}</code>"
            f"<br><span class='turs-note'>{esc(_explain.search_stop_text(s))}</span>"
            + (f"<br><span class='turs-note turs-sampled'>{esc(sampled)}</span>" if sampled else "") + "</div>")
