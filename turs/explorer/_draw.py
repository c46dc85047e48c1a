"""The explorer's data, coverage and lineage pictures (matplotlib object API, PNG bytes).

Every ``*_figure`` function returns a :class:`~matplotlib.figure.Figure` drawn with the
project's readable defaults (``turs.style``: 11 pt text or more, which is 15 px at the
explorer's 100 dpi) and the project's class colours; :func:`png` turns it into PNG bytes.

* :func:`data_figure`: any two of the user's columns, numeric or categorical (jittered strips),
  each rule's region where it restricts them, the selected rule or candidate filled and the
  rows it covers drawn solid (thesis Fig. 3.1); labels never overlap (:func:`place_labels`).
* :func:`coverage_figure`: rows x rules, grouped by cover pattern (which rules cover a row):
  the rules of each group, its size, and its union estimate (Eq. 3.5) as a class bar.
* :func:`lineage_figure`: one rule search, beam iteration by beam iteration: every candidate
  of the main beam by its ``r`` (Eq. 3.21), the growths the local test rejected, and the path
  from the empty rule to the chosen rule with the literal added at each step.
"""
from __future__ import annotations

import functools
import io
import textwrap

import matplotlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .. import style
from ._explain import conditions_text, iteration_of

DPI = 100  # the explorer shows PNGs at their pixel size: 11 pt text is 15 px
#: 590 px wide: the picture and the beam table side by side at 1280 px; 410 px high: with the
#: controls above it, the whole picture on a 1280x720 screen
DATA_FIGSIZE = (5.9, 4.1)
COVERAGE_FIGSIZE = (5.9, 4.5)
LINEAGE_FIGSIZE = (5.9, 4.8)  # taller when the literals added on the path need more lines
LINE_INCHES = 11 * 1.2 / 72  # a line of 11 pt text
CLASS_COLORS = style.class_colors()
MAX_PATTERNS = 10  # groups of the coverage picture; the rest are summed in one line
MAX_REJECTED = 8  # rejected growths drawn per beam iteration in the lineage picture (the best ones)
PATH_COLOR = style.BETTER


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes at :data:`DPI` (light compression: stepping must stay fast)."""
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.parse_math": False}):  # ticks made while drawing, too
        fig.savefig(buf, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def svg(fig: Figure) -> bytes:
    """The figure as SVG bytes, its text kept as text (editable on a slide), as drawn on screen."""
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with matplotlib.rc_context({"text.parse_math": False, "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", dpi=DPI)
    return buf.getvalue()


def _figure(size) -> Figure:
    fig = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def styled(draw):
    """Run a drawing function under the project's matplotlib defaults (``turs.style``): every
    text it creates (ticks and legends included) gets the readable sizes."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        # text from the data is drawn as it is: "$" never starts matplotlib's mathtext (a column
        # named "$\\frac$" would break the drawing)
        with style.rc_context(), matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)
    return wrapper


def wrapped(text, width: int) -> str:
    """``text`` on lines of at most ``width`` characters, broken between words only (a longer
    word keeps its own line): nothing of it is cut off."""
    return textwrap.fill(str(text), width, break_long_words=False, break_on_hyphens=False) or str(text)


TITLE_WIDTH = 56  # characters on a title line of a 590 px picture (12 pt)
TITLE_LINE = 0.045  # a title line's height, as a share of a 4.5 in figure


def set_title(ax, title: str, width: int = TITLE_WIDTH) -> None:
    """The axes' title, wrapped (:func:`wrapped`); the axes shrink from the top by one line for each
    line past the first, so that the title stays inside the picture."""
    text = wrapped(title, width)
    extra = text.count("\n")
    if extra:
        x0, y0, w, h = ax.get_position().bounds
        ax.set_position((x0, y0, w, h - TITLE_LINE * 4.5 / ax.figure.get_figheight() * extra))
    ax.set_title(text, loc="left")


# ------------------------------------------------------------------------- labels
def place_labels(ax, items, fontsize=11.0) -> list:
    """Put one label per region without overlaps: ``items`` are ``(text, (x0, x1, y0, y1),
    color)`` in data coordinates (the axes limits already set). Each label tries the region's
    four inside corners, then steps down from its top-left corner by its own height; a label
    that fits nowhere is left out. Returns the texts of the labels left out (say them elsewhere)."""
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    to_px = ax.transData.transform
    placed, left_out = [], []

    def free(b):
        return (b[0] >= frame.x0 - 1 and b[2] <= frame.x1 + 1 and b[1] >= frame.y0 - 1 and b[3] <= frame.y1 + 1
                and not any(b[0] < p[2] and p[0] < b[2] and b[1] < p[3] and p[1] < b[3] for p in placed))

    for text, (x0, x1, y0, y1), color in items:
        t = ax.text(x0, y1, text, fontsize=fontsize, color=color, zorder=5, ha="left", va="top",
                    bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none", alpha=0.85))
        ext = t.get_window_extent(renderer)  # the size does not depend on where it goes
        w, h = ext.width, ext.height
        (lx, by), (rx, ty) = to_px((x0, y0)), to_px((x1, y1))
        spots = [(lx, ty, "left", "top"), (rx, ty, "right", "top"), (lx, by, "left", "bottom"),
                 (rx, by, "right", "bottom")] + [(lx, ty - step * (h + 2), "left", "top") for step in range(1, 9)]
        for px, py, ha, va in spots:
            left = px if ha == "left" else px - w
            bottom = py - h if va == "top" else py
            box = (left, bottom, left + w, bottom + h)
            if free(box):
                placed.append(box)
                t.set_position(ax.transData.inverted().transform((px, py)))
                t.set_ha(ha)
                t.set_va(va)
                break
        else:
            t.remove()
            left_out.append(text)
    return left_out


# --------------------------------------------------------------------------- data
@styled
def data_figure(dv, x: str, y: str, rules, selected=None, *, max_points: int = 5000, title: str = "",
                point=None, solid=None, solid_label: str = "", proba=None) -> Figure:
    """The data on the user's columns ``x``, ``y`` with rule regions.

    ``rules``: ``(label, literals)`` of the rules to outline (dashed grey); ``selected``:
    ``(label, literals)`` of the rule or candidate to fill (its covered rows drawn solid), or None.
    Rules that restrict neither column are named in the figure, not drawn (they span it all).
    Why a prediction: ``point`` (a row index) is marked with a star; ``solid`` (a bool mask of
    all rows) is drawn solid instead of the selection's cover and named ``solid_label``;
    ``proba`` (``(counts, probabilities)`` per class) adds the class counts and probabilities
    as bars beside the picture.
    The figure's ``turs_geometry`` says where its axes are in the PNG (:func:`axes_geometry`),
    so that a click on the picture can be mapped back to the data.
    """
    fig = _figure(DATA_FIGSIZE)
    ax = fig.add_axes((0.13, 0.14, 0.62, 0.73))
    view = dv.view
    rows, _ = dv.draw_rows(max_points)
    px, py = dv.positions(x, rows), dv.positions(y, rows)
    yc = view.y_codes[rows]
    if solid is not None:
        covered = np.asarray(solid, dtype=bool)[rows]
    else:
        covered = (view.cover_mask(selected[1])[rows] if selected is not None else np.zeros(len(rows), bool))
    for c, cls in enumerate(view.classes):
        col = CLASS_COLORS[c % len(CLASS_COLORS)]
        out, inn = (yc == c) & ~covered, (yc == c) & covered
        ax.scatter(px[out], py[out], s=8, color=col, alpha=0.25, lw=0)
        ax.scatter(px[inn], py[inn], s=16, color=col, alpha=0.95, edgecolors="black", linewidths=0.3)
        ax.scatter([], [], s=40, color=col, label=wrapped(cls, 11))
    for column, lim in ((x, ax.set_xlim), (y, ax.set_ylim)):
        lo, hi = dv.axis_range(column)
        pad = (hi - lo) * 0.03 if hi > lo else 0.5
        lim(lo - pad, hi + pad)
    items, unrestricted = [], []
    for label, literals in rules:
        if not (dv.restricts(literals, x) or dv.restricts(literals, y)):
            unrestricted.append(label)
            continue
        rects = dv.region(literals, x, y)
        for x0, x1, y0, y1 in rects:
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec=style.RULE, lw=1.5, ls="--"))
        if rects:
            items.append((label, rects[0], style.RULE))
    if selected is not None:
        label, literals = selected
        rects = dv.region(literals, x, y) if (dv.restricts(literals, x) or dv.restricts(literals, y)) else []
        for x0, x1, y0, y1 in rects:
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc=style.CANDIDATE, alpha=0.10, lw=0))
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec=style.CANDIDATE, lw=2.6))
        if rects:
            items.insert(0, (label, rects[0], style.CANDIDATE))
    for column, axis, set_ticks in ((x, ax.xaxis, ax.set_xticks), (y, ax.yaxis, ax.set_yticks)):
        if dv.is_categorical(column):
            levels = [wrapped(v, 10) for v in dv.levels[column]]
            set_ticks(range(len(levels)), levels)
            if axis is ax.xaxis and len(levels) > 4:
                for t in ax.get_xticklabels():
                    t.set_rotation(30)
                    t.set_ha("right")
    ax.set_xlabel(wrapped(x, 40))
    ax.set_ylabel(wrapped(y, 30))
    if title:
        set_title(ax, title)
    keep_left_inside(ax)
    if point is not None:
        at = np.array([dv.positions(x, np.array([point]))[0], dv.positions(y, np.array([point]))[0]])
        ax.scatter([at[0]], [at[1]], s=260, marker="*", color=style.CANDIDATE, edgecolors="black", linewidths=1.0,
                   zorder=7)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), title="class", frameon=False, handletextpad=0.2,
              handlelength=1.0)
    notes = []
    left_out = place_labels(ax, items)
    if left_out:
        notes.append("not labelled: " + ", ".join(left_out))
    if unrestricted:
        notes.append("span everything: " + ", ".join(unrestricted))
    if solid is not None:
        notes.insert(0, f"solid: {solid_label}" if solid_label else "solid: the rows of the union")
    elif selected is not None:
        notes.insert(0, f"solid: rows {selected[0]} covers")
    if proba is not None:
        _proba_bars(fig, view.classes, *proba)
    elif notes:
        fig.text(0.77, 0.13, "\n".join(_wrap(n, 16) for n in notes), fontsize=11, va="bottom", ha="left",
                 color="#333333")
    fig.turs_geometry = axes_geometry(ax)
    return fig


def keep_left_inside(ax, margin_px: float = 3.0) -> None:
    """Narrow the axes from the left until the y axis (its tick labels and title) lies inside the
    figure: a long wrapped title or long category names would be cut off at the picture's edge."""
    renderer = ax.figure.canvas.get_renderer()
    left = ax.yaxis.get_tightbbox(renderer).x0
    if left < margin_px:
        x0, y0, w, h = ax.get_position().bounds
        shift = (margin_px - left) / ax.figure.bbox.width
        ax.set_position((x0 + shift, y0, max(w - shift, 0.2), h))


def axes_geometry(ax) -> dict:
    """Where ``ax`` is in the figure's PNG: ``box`` (left, top, right, bottom) in pixels from the
    top-left corner, and its data limits ``xlim``, ``ylim`` (linear axes)."""
    bbox = ax.get_window_extent(ax.figure.canvas.get_renderer())
    height = ax.figure.bbox.height
    return {"box": (float(bbox.x0), float(height - bbox.y1), float(bbox.x1), float(height - bbox.y0)),
            "xlim": tuple(map(float, ax.get_xlim())), "ylim": tuple(map(float, ax.get_ylim()))}


def data_to_pixel(geometry: dict, xs, ys) -> tuple[np.ndarray, np.ndarray]:
    """Data coordinates -> pixels of the PNG (from its top-left corner), by :func:`axes_geometry`."""
    left, top, right, bottom = geometry["box"]
    (x0, x1), (y0, y1) = geometry["xlim"], geometry["ylim"]
    px = left + (np.asarray(xs, dtype=float) - x0) / (x1 - x0) * (right - left)
    py = bottom - (np.asarray(ys, dtype=float) - y0) / (y1 - y0) * (bottom - top)
    return px, py


def _proba_bars(fig, classes, counts, probabilities) -> None:
    """The union's class counts and the probabilities they give, as bars at the picture's right:
    each bar says ``p = count/n``."""
    ax = fig.add_axes((0.77, 0.14, 0.21, 0.36))
    n = int(np.sum(counts))
    ys = np.arange(len(classes))[::-1]
    for c, (yv, count, p) in enumerate(zip(ys, counts, probabilities)):
        # the bar in the lower half of its row, its words above it: never over the bar's colour
        ax.barh(yv - 0.2, p, color=CLASS_COLORS[c % len(CLASS_COLORS)], height=0.35)
        words = f"{p:.2f} = {int(count)}/{n}"  # 14 characters fit the bars' width at 10 pt
        ax.text(0, yv + 0.2, words, va="center", ha="left", fontsize=max(8.0, min(10.0, 140 / len(words))),
                color="black")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, len(classes) - 0.4)
    ax.set_yticks([])
    ax.set_xticks([0, 1])
    ax.set_title("P(class)", fontsize=11, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _wrap(text: str, width: int) -> str:
    words, lines, cur = text.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "\n".join(lines)


# ----------------------------------------------------------------------- coverage
@styled
def coverage_figure(patterns, rule_labels, classes, highlight=None, title: str = "") -> Figure:
    """Rows x rules grouped by cover pattern (``_data.cover_patterns``): a dot per rule of the
    group, the group's size, and its union estimate as a bar of class probabilities.
    ``highlight``: index of a rule column to mark (the selected rule or candidate). Only the
    rules of the groups shown (and the highlighted one) get a column."""
    fig = _figure(COVERAGE_FIGSIZE)
    shown = patterns.iloc[:MAX_PATTERNS]
    rest = patterns.iloc[MAX_PATTERNS:]
    used = sorted({i for p in shown["pattern"] for i in p} | ({highlight} if highlight is not None else set()))
    col = {rule: x for x, rule in enumerate(used)}
    K = max(len(used), 1)
    n_rows = len(shown) + (1 if len(rest) else 0)
    left_w = min(0.06 + 0.05 * K, 0.4)
    # the title's lines, then the class legend, then the axes (a longer title pushes them down)
    title = wrapped(title, TITLE_WIDTH + 6) if title else ""
    legend_top = 0.93 - TITLE_LINE * title.count("\n")
    handles = [Patch(color=CLASS_COLORS[c % len(CLASS_COLORS)], label=wrapped(name, 10)) for c, name in enumerate(classes)]
    for ncol in range(min(4, len(handles)), 0, -1):  # as many columns as fit in the picture's width
        legend = fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.3 + left_w, legend_top),
                            ncol=ncol, frameon=False, title=None, handlelength=1.0, columnspacing=0.8)
        box = legend.get_window_extent(fig.canvas.get_renderer())
        if box.x1 <= fig.bbox.width or ncol == 1:
            break
        legend.remove()
    legend_h = box.height / fig.bbox.height
    top, bottom = legend_top - legend_h - 0.02, 0.16
    ax_dots = fig.add_axes((0.03, bottom, left_w, top - bottom))
    ax_n = fig.add_axes((0.05 + left_w, bottom, 0.2, top - bottom), sharey=ax_dots)
    ax_p = fig.add_axes((0.3 + left_w, bottom, 0.52 - left_w, top - bottom), sharey=ax_dots)
    ys = np.arange(n_rows)[::-1]
    if highlight is not None:
        ax_dots.axvspan(col[highlight] - 0.5, col[highlight] + 0.5, color=style.CANDIDATE, alpha=0.2, lw=0)
    grey, dark, links = [], [], []
    lefts = np.zeros(len(shown))
    for yv, members in zip(ys, shown["pattern"]):
        xs = [col[m] for m in members]
        if xs:
            grey.extend((x, yv) for x in range(len(used)) if x not in xs)
            dark.extend((x, yv) for x in xs)
            links.append([(min(xs), yv), (max(xs), yv)])
        else:
            ax_dots.text((len(used) - 1) / 2, yv, "no rule", ha="center", va="center", fontsize=11)
    if grey:
        ax_dots.scatter(*zip(*grey), s=30, color="#dddddd", zorder=1)
    if dark:
        ax_dots.scatter(*zip(*dark), s=50, color="#333333", zorder=3)
    ax_dots.add_collection(LineCollection(links, colors="#333333", linewidths=1.8, zorder=2))
    ys_shown = ys[:len(shown)]
    ax_n.barh(ys_shown, shown["n"], color="#999999", height=0.7)
    for yv, n in zip(ys_shown, shown["n"]):
        ax_n.text(n, yv, f" {n:,}", va="center", ha="left", fontsize=11)
    proba = np.array(shown["proba"].tolist(), dtype=float)
    for c in range(proba.shape[1]):
        p = np.nan_to_num(proba[:, c])
        ax_p.barh(ys_shown, p, left=lefts, color=CLASS_COLORS[c % len(CLASS_COLORS)], height=0.7, lw=0)
        lefts += p
    for yv, pr in zip(ys_shown, proba):
        if np.isfinite(pr).any():
            best = int(np.nanargmax(pr))
            # the likeliest class's probability in its colour (the legend names the class)
            ax_p.text(1.02, yv, f"{pr[best]:.2f}", va="center", ha="left", fontsize=11, fontweight="bold",
                      color=CLASS_COLORS[best % len(CLASS_COLORS)])
    if len(rest):
        yv = ys[-1]
        ax_dots.text((len(used) - 1) / 2, yv, f"+{len(rest)} groups", ha="center", va="center", fontsize=11)
        ax_n.barh(yv, rest["n"].sum(), color="#cccccc", height=0.7)
        ax_n.text(rest["n"].sum(), yv, f" {rest['n'].sum():,}", va="center", ha="left", fontsize=11)
    ax_dots.set_xlim(-0.6, K - 0.4)
    ax_dots.set_ylim(-0.6, n_rows - 0.4)
    ax_dots.set_xticks(range(len(used)), [rule_labels[r] for r in used], rotation=90 if K > 5 else 0)
    ax_dots.set_yticks([])
    ax_dots.set_xlabel("rules")
    for a in (ax_dots, ax_n, ax_p):
        for side in ("top", "right"):
            a.spines[side].set_visible(False)
    ax_n.tick_params(labelleft=False)
    ax_n.set_xlabel("rows")
    ax_n.set_xlim(0, max(patterns["n"].max(), 1) * 1.7)
    ax_n.set_xticks([])
    ax_p.tick_params(labelleft=False)
    ax_p.set_xlim(0, 1)
    ax_p.set_xticks([0, 1])
    ax_p.set_xlabel("union estimate")
    if title:
        fig.text(0.03, 0.97, title, fontsize=12, va="top", ha="left")
    return fig


# ------------------------------------------------------------------------ lineage
@styled
def lineage_figure(trace, k: int, selected_id=None, title: str = "") -> Figure:
    """Search ``k``: each main-beam candidate by ``r`` at its iteration (grey), the growths the
    local test rejected (x), the chosen rule's path from the empty rule (thick, with the
    literal added at each step) and the selected candidate (ringed)."""
    s = trace.searches[k]
    by_id = trace.candidates(k) if s.get("empty_rule") else {}
    steps = [c for c in [by_id.get(i) for i in s.get("lineage") or []][1:] if c is not None]
    # the literals added on the path, whole (wrapped), in two columns past four: the picture grows
    # downwards by what they need past the room below the legend
    lines = [wrapped(f"{i + 1}: {c.get('added_condition') or conditions_text(c)}", 24) for i, c in enumerate(steps)]
    half = (len(lines) + 1) // 2 if len(lines) > 4 else len(lines)
    columns = [chunk for chunk in (lines[:half], lines[half:]) if chunk]
    n_lines = max((sum(t.count("\n") + 1 for t in chunk) for chunk in columns), default=0)
    width, height = LINEAGE_FIGSIZE
    below = 0.19 * height  # inches under the literals' heading
    extra = max(0.0, n_lines * LINE_INCHES + 0.1 - below)
    fig = _figure((width, height + extra))
    H = height + extra
    ax = fig.add_axes((0.13, (0.4 * height + extra) / H, 0.83, 0.53 * height / H))
    pos = {}
    edges = []
    rejected_labelled = False
    for t, it in enumerate(s["iterations"]):
        for c in it["main_beam"]:
            if c.get("r") is not None:
                pos[c.get("id")] = (t + 1, c["r"])
        rs = [c["r"] for c in it["main_beam"] if c.get("r") is not None]
        ax.scatter([t + 1] * len(rs), rs, s=28, color="#888888", zorder=2,
                   label="main beam (r, Eq. 3.21)" if t == 0 else None)
        rej = [c["r"] for c in it.get("rejected_by_local_test", [])[:MAX_REJECTED] if c.get("r") is not None]
        ax.scatter([t + 1] * len(rej), rej, s=40, marker="x", color=style.WORSE, lw=1.6, zorder=2,
                   label=None if (not rej or rejected_labelled) else "rejected by the local test")
        rejected_labelled = rejected_labelled or bool(rej)
        for c in it["main_beam"]:
            parent = by_id.get(c.get("parent_id"))
            if parent is not None and parent.get("id") in pos and c.get("id") in pos:
                edges.append([pos[parent["id"]], pos[c["id"]]])
    ax.add_collection(LineCollection(edges, colors="#cccccc", linewidths=0.8, zorder=1))
    path = [(0, 0.0)] + [pos.get(c.get("id"), (_iter_x(c), c.get("r") or 0.0)) for c in steps]
    if len(path) > 1:
        xs, ys = zip(*path)
        ax.plot(xs, ys, "-o", color=PATH_COLOR, lw=3, ms=9, zorder=4, label="path to the chosen rule")
        ax.scatter([], [], s=28, color="#888888")  # keeps the legend order stable
        for i, (xv, yv) in enumerate(path[1:]):
            ax.annotate(str(i + 1), (xv, yv), textcoords="offset points", xytext=(0, 9), ha="center",
                        fontsize=11, fontweight="bold", color=PATH_COLOR, zorder=6)
        for col, chunk in enumerate(columns):
            fig.text(0.52 + 0.25 * col, (below + extra) / H, "\n".join(chunk), va="top", ha="left", fontsize=11,
                     color=PATH_COLOR)
        fig.text(0.52, (below + extra) / H + 0.01, "literals added on the path", va="bottom", ha="left", fontsize=11,
                 color=PATH_COLOR, fontweight="bold")
    ax.scatter([0], [0], s=60, color="#333333", zorder=5)
    ax.annotate("empty\nrule", (0, 0), textcoords="offset points", xytext=(0, -12), ha="center", va="top",
                fontsize=11)
    if selected_id is not None and selected_id in pos:
        ax.scatter(*pos[selected_id], s=220, facecolors="none", edgecolors=style.CANDIDATE, lw=2.4, zorder=6,
                   label="selected")
    # the y range of the beams and the path; rejected growths far below are counted, not drawn
    kept = [v for _, v in pos.values()] + [v for _, v in path]
    lo, hi = min(kept), max(kept)
    span = max(hi - lo, 0.2)
    low_limit = lo - 0.5 * span
    n_below = sum(1 for it in s["iterations"] for c in it.get("rejected_by_local_test", [])[:MAX_REJECTED]
                  if c.get("r") is not None and c["r"] < low_limit)
    ax.set_ylim(low_limit, hi + 0.45 * span)
    if n_below:
        title = f"{title} ({n_below} rejected below)" if title else f"{n_below} rejected growths below"
    n_it = len(s["iterations"])
    ax.set_xlim(-0.4, n_it + 0.6)
    ax.set_xticks(range(0, n_it + 1))
    ax.set_xlabel("beam iteration (number of literals grown)")
    ax.set_ylabel("learning speed score r")
    ax.axhline(0, color="#bbbbbb", lw=0.8, zorder=0)
    ax.grid(alpha=0.25)
    ax.legend(loc="upper left", bbox_to_anchor=(-0.14, -0.2), ncol=1, fontsize=11, frameon=False,
              handletextpad=0.3, borderaxespad=0.0, labelspacing=0.25)
    if title:
        set_title(ax, title)
    return fig


def _iter_x(c) -> int:
    it = iteration_of(c.get("id")) if c is not None else None
    return 0 if it is None else it + 1
