"""The explorer's two figures, drawn with matplotlib's object API (no pyplot state) to PNG bytes.

* :func:`mdl_png`: the rule set's coverage against its MDL score after each accepted rule
  (thesis Fig. 3.6), with the current rule search and the selected candidate highlighted.
* :func:`scatter_png`: two features of the data coloured by class, the boxes of the rules
  accepted before the current search and the selected candidate's box, with the instances the
  candidate covers drawn solid (thesis Fig. 3.1).
"""
from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .. import style

FIGSIZE = (5.4, 4.2)
DPI = 100
MARGINS = dict(left=0.14, right=0.97, bottom=0.12, top=0.88)
SCATTER_FIGSIZE = (6.6, 4.2)  # room on the right for the class legend, outside the boxes
SCATTER_MARGINS = dict(left=0.12, right=0.78, bottom=0.12, top=0.88)
# the colours of the figures (turs.style): rules, candidate, current step, TURS' trajectory, classes
RULE_COLOR = style.RULE
CANDIDATE_COLOR = style.CANDIDATE
CURRENT_COLOR = style.HIGHLIGHT
TRAJECTORY_COLOR = style.algorithm_style("turs").color
CLASS_COLORS = style.class_colors()


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    # fixed margins (no tight_layout, which draws the figure once more) and light compression:
    # a redraw is two of these, and stepping must stay well under a second
    fig.savefig(buf, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def mdl_png(view, k: int, candidate: dict | None) -> bytes:
    """Fig. 3.6 for the whole search, rule search ``k`` highlighted, ``candidate``'s would-be point."""
    traj = view.trajectory()
    fig = Figure(figsize=FIGSIZE)
    ax = fig.add_subplot()
    ax.plot(traj["coverage"], traj["mdl"], "-o", color=TRAJECTORY_COLOR, ms=4, lw=1.2, label="rule set after each rule")
    for _, row in traj.iterrows():
        if len(traj) <= 12 or row["n_rules"] % 5 == 0:
            ax.annotate(str(int(row["n_rules"])), (row["coverage"], row["mdl"]), textcoords="offset points",
                        xytext=(3, 4), fontsize=7, color=TRAJECTORY_COLOR)
    s = view.search(k)
    x0, y0 = view.coverage_before(k), view.mdl_before(k)
    ax.plot([x0], [y0], "o", ms=10, mfc="none", mec=CURRENT_COLOR, mew=2, label=f"before rule search {k + 1}")
    if s["accepted"]:
        ax.annotate("", (s["coverage_after"], s["mdl_after"]), (x0, y0),
                    arrowprops=dict(arrowstyle="->", color=CURRENT_COLOR, lw=2))
    elif s["chosen"] is not None and s["chosen"]["mdl_after"] is not None:
        c = s["chosen"]
        x1, y1 = x0 + c["coverage_uncovered"], c["mdl_after"]
        ax.annotate("", (x1, y1), (x0, y0),
                    arrowprops=dict(arrowstyle="->", color=CURRENT_COLOR, lw=1.5, ls="--"))
        ax.plot([x1], [y1], "x", color=CURRENT_COLOR, ms=8, mew=2, label="best rule: rejected (MDL rises)")
    if candidate is not None and candidate["mdl_after"] is not None:
        ax.plot([x0 + candidate["coverage_uncovered"]], [candidate["mdl_after"]], "D", color=CANDIDATE_COLOR,
                ms=6, label="selected candidate added")
    ax.set_xlabel("coverage of the rule set (training instances)")
    ax.set_ylabel("MDL score (bits)")
    n_acc = len(traj) - 1
    ax.set_title(f"MDL score vs coverage (Fig. 3.6): rule search {k + 1} of {view.n_searches}, "
                 f"{n_acc} rules accepted", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)
    fig.subplots_adjust(**MARGINS)
    return _png(fig)


def scatter_png(view, k: int, candidate: dict | None, fx: int, fy: int, label: str = "",
                max_points: int = 5000) -> bytes:
    """Fig. 3.1-style scatter of columns ``fx``, ``fy`` with rule and candidate boxes."""
    fig = Figure(figsize=SCATTER_FIGSIZE)
    ax = fig.add_subplot()
    names = view.feature_names
    rules = view.accepted_before(k)
    xr, yr = view.data_range(fx), view.data_range(fy)
    title = f"rule search {k + 1}: {len(rules)} rules so far"
    if view.has_data:
        X, y = view.X_encoded, view.y_codes
        covered = view.cover_mask(candidate["literals"]) if candidate is not None else np.zeros(len(y), bool)
        idx = np.arange(len(y))
        if len(idx) > max_points:  # a fixed, evenly spaced subsample keeps the picture stable
            idx = idx[np.linspace(0, len(idx) - 1, max_points).astype(int)]
        for c, cls in enumerate(view.classes):
            col = CLASS_COLORS[c % len(CLASS_COLORS)]
            out = idx[(y[idx] == c) & ~covered[idx]]
            inn = idx[(y[idx] == c) & covered[idx]]
            ax.scatter(X[out, fx], X[out, fy], s=7, color=col, alpha=0.22, lw=0)
            ax.scatter(X[inn, fx], X[inn, fy], s=14, color=col, alpha=0.95, edgecolors="black",
                       linewidths=0.3, label=f"{cls}")
        if candidate is not None:
            title += f"; candidate covers {int(covered.sum())}"
    else:
        ax.text(0.5, 0.5, "pass X and y to SearchExplorer\nto see the data", ha="center", va="center",
                transform=ax.transAxes, color="#888888")
    for i, c in enumerate(rules):
        x0, x1, y0, y1 = view.box(c["literals"], fx, fy)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec=RULE_COLOR, lw=1.3, ls="--"))
        ax.text(x0, y1, f" R{i + 1}", va="top", ha="left", fontsize=8, color=RULE_COLOR)
    if candidate is not None:
        x0, x1, y0, y1 = view.box(candidate["literals"], fx, fy)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=True, fc=CANDIDATE_COLOR, alpha=0.08, lw=0))
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ec=CANDIDATE_COLOR, lw=2.2))
    for lim, (lo, hi) in ((ax.set_xlim, xr), (ax.set_ylim, yr)):
        pad = (hi - lo) * 0.04 if hi > lo else 0.5
        lim(lo - pad, hi + pad)
    ax.set_xlabel(names[fx])
    ax.set_ylabel(names[fy])
    ax.set_title(title + ("\n" + _short(label, 70) if label else ""), fontsize=9)
    if view.has_data:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="class\n(solid: covered\nby the candidate)",
                  title_fontsize=7, markerscale=1.2, frameon=False)
    fig.subplots_adjust(**SCATTER_MARGINS)
    return _png(fig)


