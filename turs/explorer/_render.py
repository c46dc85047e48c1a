"""The explorer's MDL picture (thesis Fig. 3.6), drawn with matplotlib's object API to PNG bytes.

:func:`mdl_png`: the rule set's coverage against its MDL score after each accepted rule, with the
current rule search and the selected candidate's would-be point highlighted (not for a search
that ran on a sample: its candidates' scores are the sample's). The data, coverage
and lineage pictures are in ``_draw``; both use the project's style (``turs.style``) at 100 dpi.
"""
from __future__ import annotations

from .. import style
from ._draw import _figure, png, set_title, styled

FIGSIZE = (5.9, 4.5)
DPI = 100
CURRENT_COLOR = style.HIGHLIGHT
CANDIDATE_COLOR = style.CANDIDATE
TRAJECTORY_COLOR = style.algorithm_style("turs").color


def mdl_png(view, k: int, candidate: dict | None, title: str = "") -> bytes:
    """:func:`mdl_figure` as PNG bytes."""
    return png(mdl_figure(view, k, candidate, title))


@styled
def mdl_figure(view, k: int, candidate: dict | None, title: str = ""):
    """Fig. 3.6 for the whole search, rule search ``k`` highlighted, ``candidate``'s would-be point."""
    traj = view.trajectory()
    fig = _figure(FIGSIZE)
    ax = fig.add_axes((0.15, 0.13, 0.8, 0.74))
    ax.plot(traj["coverage"], traj["mdl"], "-o", color=TRAJECTORY_COLOR, ms=5, lw=1.6, label="after each rule")
    for _, row in traj.iterrows():
        if len(traj) <= 12 or row["n_rules"] % 5 == 0:
            ax.annotate(str(int(row["n_rules"])), (row["coverage"], row["mdl"]), textcoords="offset points",
                        xytext=(4, 5), fontsize=11, color=TRAJECTORY_COLOR)
    s = view.search(k)
    x0, y0 = view.coverage_before(k), view.mdl_before(k)
    ax.plot([x0], [y0], "o", ms=12, mfc="none", mec=CURRENT_COLOR, mew=2.4, label=f"before search {k + 1}")
    sampled = bool(s.get("sample_rows"))  # candidates' numbers on a sample: not on these axes
    if s["accepted"]:
        ax.annotate("", (s["coverage_after"], s["mdl_after"]), (x0, y0),
                    arrowprops=dict(arrowstyle="->", color=CURRENT_COLOR, lw=2.4))
    elif not sampled and s["chosen"] is not None and s["chosen"]["mdl_after"] is not None:
        c = s["chosen"]
        x1, y1 = x0 + c["coverage_uncovered"], c["mdl_after"]
        ax.annotate("", (x1, y1), (x0, y0), arrowprops=dict(arrowstyle="->", color=CURRENT_COLOR, lw=2, ls="--"))
        ax.plot([x1], [y1], "x", color=CURRENT_COLOR, ms=10, mew=2.4, label="best rule: not accepted")
    if sampled:
        ax.text(0.98, 0.02, f"candidates scored on a {int(s['sample_rows']):,}-row sample: not drawn",
                ha="right", va="bottom", transform=ax.transAxes, fontsize=11, color="#555555")
    elif candidate is not None and candidate.get("mdl_after") is not None:
        ax.plot([x0 + candidate["coverage_uncovered"]], [candidate["mdl_after"]], "D", color=CANDIDATE_COLOR,
                ms=8, label="selected, if added")
    ax.set_xlabel("rows covered by the rule set")
    ax.set_ylabel("MDL score (bits)")
    set_title(ax, title or f"MDL score vs coverage, rule search {k + 1}")
    ax.legend(loc="best", framealpha=0.9)
    ax.grid(alpha=0.3)
    return fig


def nodata_png(title: str) -> bytes:
    """:func:`nodata_figure` as PNG bytes."""
    return png(nodata_figure(title))


@styled
def nodata_figure(title: str):
    """A placeholder picture saying that the data are needed."""
    fig = _figure(FIGSIZE)
    ax = fig.add_axes((0.05, 0.05, 0.9, 0.82))
    ax.set_axis_off()
    set_title(ax, title)
    ax.text(0.5, 0.5, "pass X and y to the explorer\nto see the data", ha="center", va="center",
            transform=ax.transAxes, color="#666666", fontsize=14)
    return fig
