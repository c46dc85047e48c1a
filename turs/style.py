"""One look for every figure of the project: algorithm and class styles, readable defaults.

* :func:`algorithm_style` (``"turs"``, ``"c45"``, a thesis label such as ``"C45"``, ...): the
  fixed colour, marker and line style of an algorithm, the same in every figure and panel;
  every algorithm has a colour of its own (the thesis' algorithms Okabe & Ito's eight,
  colour-blind safe; the others :data:`EXTRA_COLORS`). :func:`algorithm_order`: the one order
  in which every figure and table lists the algorithms.
* :func:`class_style` / :func:`class_colors`: up to 12 classes (Okabe-Ito, then markers).
* :data:`BETTER`, :data:`WORSE`, :data:`NEUTRAL`: the colours of "this setting helps / hurts"
  bars (blue / orange, never red / green).
* :func:`apply` / :func:`rc_context`: matplotlib defaults readable when projected (fonts of
  11 pt or more at the saved size, 150 dpi), and :func:`save`, which refuses a figure with a
  smaller font or wider than 2,000 px (pass ``max_width_px=None`` for a multi-panel print page).

Colours are compared with :func:`color_distance`: the smallest CIEDE2000 difference (Sharma,
Wu & Dalal 2005) between the two colours as seen with normal vision and with simulated
protanopia, deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009, severity 1).
Two styles are told apart when that distance is at least :data:`MIN_COLOR_DISTANCE` or when
both their markers and their line styles differ (``tests/test_style.py`` checks every pair).

>>> from turs import style
>>> style.apply()                                        # doctest: +SKIP
>>> s = style.algorithm_style("cn2")
>>> ax.plot(x, y, **s.line())                            # doctest: +SKIP
>>> style.save(fig, out_dir, "fig3_7_runtime")           # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["ALGORITHM_STYLES", "BETTER", "EXTRA_COLORS", "MIN_ALGORITHM_COLOR_DISTANCE", "CANDIDATE", "CLASS_STYLES", "HIGHLIGHT", "RULE", "MIN_COLOR_DISTANCE", "MIN_DPI", "MIN_FONT_PT",
           "MAX_WIDTH_PX", "NEUTRAL", "OKABE_ITO", "RC", "Style", "WORSE", "algorithm_order", "algorithm_style", "apply",
           "check_fonts", "class_colors", "class_style", "color_distance", "delta_e2000", "png_size_and_dpi",
           "rc_context", "save", "simulate_cvd"]

#: Okabe & Ito (2008), "Color Universal Design": eight colours told apart by people with any
#: common colour-vision deficiency.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
_OI = OKABE_ITO

#: Bars and points that say "the setting helps" / "hurts" / "no change": blue and orange.
BETTER, WORSE, NEUTRAL = _OI["blue"], _OI["orange"], "#999999"
#: Rule pictures (Fig. 3.1, the explorer): rules already in the set, the candidate rule or
#: literal being grown, and the current step.
RULE, CANDIDATE, HIGHLIGHT = "#555555", _OI["reddish purple"], _OI["orange"]

MIN_FONT_PT = 11.0      # every visible text, at the saved size
MIN_DPI = 150           # saved figures
MAX_WIDTH_PX = 2000     # unless a multi-panel page meant for print
MIN_COLOR_DISTANCE = 10.0  # CIEDE2000, worst of normal / protan / deutan / tritan vision


@dataclass(frozen=True)
class Style:
    """How one algorithm (or class) is drawn: ``label`` for legends, ``color``, ``marker``,
    ``linestyle`` (where lines are drawn) and ``linewidth``; ``edgecolor`` outlines light markers."""

    label: str
    color: str
    marker: str
    linestyle: object = "-"
    linewidth: float = 1.8
    edgecolor: str | None = None

    def line(self, **overrides) -> dict:
        """Keyword arguments for ``ax.plot`` / ``ax.step``: colour, line style, width, marker, label."""
        kw = {"color": self.color, "linestyle": self.linestyle, "linewidth": self.linewidth,
              "marker": self.marker, "label": self.label}
        if self.edgecolor:
            kw["markeredgecolor"] = self.edgecolor
        kw.update(overrides)
        return kw

    def points(self, **overrides) -> dict:
        """Keyword arguments for ``ax.scatter``: colour, marker, label (and an edge for light colours)."""
        kw = {"color": self.color, "marker": self.marker, "label": self.label}
        if self.edgecolor:
            kw["edgecolors"] = self.edgecolor
        kw.update(overrides)
        return kw


def _s(label, colour, marker, linestyle="-", linewidth=1.8, edge=None) -> Style:
    return Style(label, _OI[colour], marker, linestyle, linewidth, edge)


_YELLOW_EDGE = "#6b6b00"  # a dark outline: Okabe-Ito yellow alone is faint on white

#: Colours beyond Okabe-Ito's eight, one per algorithm drawn beside them: picked greedily from a
#: grid of sRGB colours (CIELAB lightness 27-72, so none is near-white or near-black) to be as
#: far as possible, by :func:`color_distance`, from the eight and from each other. The first four
#: (for the thesis' DRS and IDS and the seed papers' learners that Figs. 3.2-3.4 draw beside the
#: thesis' algorithms) are at least :data:`MIN_COLOR_DISTANCE` from every other colour here; every
#: pair of the fourteen and the eight is at least :data:`MIN_ALGORITHM_COLOR_DISTANCE` apart.
EXTRA_COLORS = {
    "dark red": "#881100", "dark slate": "#224466", "strong blue": "#0000DD", "olive brown": "#776644",
    "lavender": "#8877FF", "light green": "#99BB77", "rust": "#BB3300", "dark grey": "#555555",
    "rose grey": "#BBAAAA", "slate": "#556677", "dark brown": "#663333", "grey": "#777777",
    "purple": "#663399", "violet": "#7722FF",
}
_EX = EXTRA_COLORS
#: The smallest :func:`color_distance` between two algorithms' colours (every viewer); where it
#: is below :data:`MIN_COLOR_DISTANCE` the two differ in marker and line style as well.
MIN_ALGORITHM_COLOR_DISTANCE = 8.5


def _x(label, colour, marker, linestyle="-", linewidth=1.8) -> Style:
    return Style(label, _EX[colour], marker, linestyle, linewidth)


#: benchmark name -> style, in the one order every figure and table uses
#: (:func:`algorithm_order`): TURS, the thesis' competitors as the thesis' Table 3.3 has them
#: (ours first: the ones the harness runs), the seed papers' learners beyond the thesis, then
#: the authors' implementation and TURS' variants. Every algorithm has a colour of its own: the
#: thesis' algorithms and OneR the eight Okabe-Ito colours, the others :data:`EXTRA_COLORS`.
ALGORITHM_STYLES: dict[str, Style] = {
    # TURS (bold black, as the thesis draws it) and the thesis' competitors
    "turs": _s("TURS", "black", "o", "-", 3.0),
    "cart": _s("CART", "orange", "s"),
    "c45": _s("C45", "sky blue", "^"),
    "ripper": _s("RIPPER", "bluish green", "D"),
    "cn2": _s("CN2", "blue", "v"),
    "classy": _s("CLASSY", "vermillion", "P"),
    "brs": _s("BRS", "reddish purple", "X"),
    "drs": _x("DRS", "dark red", ">", "--"),
    "ids": _x("IDS", "dark slate", "<", "--"),
    # beyond the thesis: the seed papers' learners and other rule learners
    "submodular": _x("Submodular", "strong blue", "d", "--"),
    "lire": _x("LIRE", "olive brown", "H", "--"),
    "lire-rulefit": _x("RuleFit (LIRE's)", "rust", "8", ":"),
    "rulefit": _x("RuleFit", "lavender", "*", "--"),
    "brl": _x("BRL", "light green", "p", "--"),
    "oner": _s("OneR", "yellow", "h", "-", 1.8, _YELLOW_EDGE),
    # the authors' implementation and our TURS variants (ablations): dotted / dash-dot lines
    "turs2": _x("TURS2 (authors' code)", "dark grey", "s", ":", 2.0),
    "turs-noaux": _x("TURS without auxiliary beam", "slate", "o", "-.", 2.0),
    "turs-nopatience": _x("TURS without diverse patience", "rose grey", "o", "-.", 2.0),
    "turs-nolocaltest": _x("TURS without local test", "dark brown", "s", "-.", 2.0),
    "turs-thesis": _x("TURS, thesis text", "grey", "P", ":", 2.0),
    "turs-turs2code": _x("TURS, thesis search + authors' model code", "purple", "^", ":", 2.0),
    "turs-turs2": _x("TURS, thesis search + authors' local test", "violet", "<", ":", 2.0),
}

#: Other names of the same algorithm (drawn the same way).
ALIASES = {"turs-reference": "turs", "reference": "turs2", "c4.5": "c45", "j48": "c45", "jrip": "ripper"}

_BY_LABEL = {s.label.lower(): name for name, s in ALGORITHM_STYLES.items()}


def algorithm_style(name: str) -> Style:
    """The style of a benchmark name (``"c45"``), an alias (``"turs-reference"``) or a label
    (``"C45"``, ``"RuleFit"``, ``"TURS2"``); case does not matter."""
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key in ALGORITHM_STYLES:
        return ALGORITHM_STYLES[key]
    if key in _BY_LABEL:
        return ALGORITHM_STYLES[_BY_LABEL[key]]
    if key.split(" ")[0] in ALGORITHM_STYLES:  # "TURS2 (authors' code, cyaux)"
        return ALGORITHM_STYLES[key.split(" ")[0]]
    known = ", ".join(sorted(ALGORITHM_STYLES))
    raise KeyError(f"No style for algorithm {name!r}. Known: {known}. Add it to turs.style.ALGORITHM_STYLES "
                   "with a colour, marker and line style that keep it apart from the others.")


def _algorithm_key(name: str) -> str | None:
    try:
        style = algorithm_style(name)
    except KeyError:
        return None
    return next(k for k, s in ALGORITHM_STYLES.items() if s is style)


def algorithm_order(names) -> list:
    """``names`` (benchmark names, aliases or labels, as :func:`algorithm_style` takes them) in the
    one order of :data:`ALGORITHM_STYLES`; names without a style keep their order, at the end.

    >>> algorithm_order(["TURS", "CN2", "BRS", "C45", "xgboost", "CART"])
    ['TURS', 'CART', 'C45', 'CN2', 'BRS', 'xgboost']
    """
    rank = {k: i for i, k in enumerate(ALGORITHM_STYLES)}
    names = list(names)
    keys = [_algorithm_key(n) for n in names]
    known = sorted((rank[k], i) for i, k in enumerate(keys) if k is not None)
    return [names[i] for _, i in known] + [n for n, k in zip(names, keys) if k is None]


# ------------------------------------------------------------------------------- classes
_CLASS_ORDER = ["blue", "orange", "bluish green", "reddish purple", "sky blue", "vermillion", "yellow", "black"]
#: Up to 12 classes: the eight Okabe-Ito colours with circles, then four of them again with
#: other markers (a class beyond 12 cycles).
CLASS_STYLES: list[Style] = (
    [Style(f"class {i}", _OI[c], "o", edgecolor=_YELLOW_EDGE if c == "yellow" else None)
     for i, c in enumerate(_CLASS_ORDER)]
    + [Style(f"class {8 + i}", _OI[c], m) for i, (c, m) in
       enumerate(zip(["blue", "orange", "bluish green", "reddish purple"], ["s", "^", "D", "v"]))]
)


def class_style(i: int) -> Style:
    """The style of the ``i``-th class (0-based; cycles after 12)."""
    return CLASS_STYLES[int(i) % len(CLASS_STYLES)]


def class_colors(n: int = len(CLASS_STYLES)) -> list[str]:
    """The colours of the first ``n`` classes."""
    return [class_style(i).color for i in range(n)]


# ------------------------------------------------------------------------------- colour science
#: Machado et al. (2009) simulation matrices, severity 1.0, on linear RGB.
CVD_MATRICES = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
_SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                         [0.0193339, 0.1191920, 0.9503041]])
_D65 = np.array([0.95047, 1.0, 1.08883])


def _linear_rgb(color) -> np.ndarray:
    from matplotlib.colors import to_rgb

    c = np.asarray(to_rgb(color), dtype=float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def simulate_cvd(color, kind: str) -> np.ndarray:
    """Linear RGB of ``color`` as seen with ``kind`` in ``"normal"`` or :data:`CVD_MATRICES`."""
    rgb = _linear_rgb(color)
    if kind == "normal":
        return rgb
    if kind not in CVD_MATRICES:
        raise ValueError(f"kind must be 'normal' or one of {sorted(CVD_MATRICES)}. Got {kind!r}.")
    return np.clip(CVD_MATRICES[kind] @ rgb, 0.0, 1.0)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = _SRGB_TO_XYZ @ linear_rgb / _D65
    eps = (6 / 29) ** 3
    f = np.where(xyz > eps, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu & Dalal 2005, Eq. 1-22)."""
    L1, a1, b1 = map(float, lab1)
    L2, a2, b2 = map(float, lab2)
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_l, d_c = L2 - L1, c2p - c1p
    d_h = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh) / 2)
    l_bar, cp_bar = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * np.cos(np.radians(h_bar - 30)) + 0.24 * np.cos(np.radians(2 * h_bar))
         + 0.32 * np.cos(np.radians(3 * h_bar + 6)) - 0.20 * np.cos(np.radians(4 * h_bar - 63)))
    d_theta = 30 * np.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25.0 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -np.sin(np.radians(2 * d_theta)) * r_c
    return float(np.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h)))


def color_distance(c1, c2) -> float:
    """The smallest CIEDE2000 difference of two matplotlib colours over normal vision and
    simulated protanopia, deuteranopia and tritanopia: how far apart they look to the viewer
    who sees them closest. Okabe-Ito's colours are at least 10.9 apart; red #d62728 and
    green #2ca02c are 4.6 apart (deuteranopia)."""
    return min(delta_e2000(_lab(simulate_cvd(c1, k)), _lab(simulate_cvd(c2, k)))
               for k in ("normal", *CVD_MATRICES))


# ------------------------------------------------------------------------------- matplotlib
#: rcParams of every figure: 11-pt text at the saved size, 150 dpi, Okabe-Ito colour cycle.
RC = {
    "font.size": 11.0,
    "axes.titlesize": 12.0,
    "axes.labelsize": 11.0,
    "xtick.labelsize": 11.0,
    "ytick.labelsize": 11.0,
    "legend.fontsize": 11.0,
    "legend.title_fontsize": 11.0,
    "figure.titlesize": 13.0,
    "figure.dpi": 100,
    "savefig.dpi": MIN_DPI,
    "lines.linewidth": 1.8,
    "lines.markersize": 6.0,
    "axes.prop_cycle": None,  # filled in by _rc(): a cycler needs matplotlib
}


def _rc() -> dict:
    from cycler import cycler

    rc = dict(RC)
    rc["axes.prop_cycle"] = cycler(color=[_OI[c] for c in _CLASS_ORDER])
    return rc


def apply() -> None:
    """Set the project's matplotlib defaults (:data:`RC`) for the rest of the session."""
    import matplotlib

    matplotlib.rcParams.update(_rc())


@contextlib.contextmanager
def rc_context():
    """The project's matplotlib defaults inside a ``with`` block only."""
    import matplotlib

    with matplotlib.rc_context(_rc()):
        yield


def check_fonts(fig, min_pt: float = MIN_FONT_PT) -> None:
    """Raise ``ValueError`` listing every visible text of ``fig`` smaller than ``min_pt`` points
    (tick labels, legends, titles, annotations); the figure is drawn once to lay them out."""
    from matplotlib.text import Text

    fig.canvas.draw()
    small = sorted({(round(t.get_fontsize(), 1), t.get_text()[:40]) for t in fig.findobj(Text)
                    if t.get_visible() and t.get_text().strip() and t.get_fontsize() < min_pt - 1e-9})
    if small:
        shown = "; ".join(f"{text!r} at {pt} pt" for pt, text in small[:8])
        raise ValueError(f"{len(small)} text(s) of the figure are smaller than {min_pt:g} pt at the saved size: "
                         f"{shown}. Use turs.style.apply() and drop the explicit fontsize=, or make the figure "
                         "smaller so the text is relatively larger.")


def png_size_and_dpi(path) -> tuple[int, int, float | None]:
    """(width px, height px, dpi or None) of a PNG file, from its IHDR and pHYs chunks."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file (its first bytes are {data[:8]!r}).")
    width, height = struct.unpack(">II", data[16:24])
    dpi, pos = None, 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            ppu_x, _, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            dpi = ppu_x * 0.0254 if unit == 1 else None
            break
        if kind == b"IDAT":
            break
        pos += 12 + length
    return width, height, dpi


def save(fig, out_dir, stem: str, formats=("png", "pdf"), dpi: int = MIN_DPI,
         max_width_px: int | None = MAX_WIDTH_PX, min_font_pt: float = MIN_FONT_PT) -> list[Path]:
    """Write ``fig`` as ``<out_dir>/<stem>.<format>`` for each format (tight bounding box).

    Refuses (``ValueError``, nothing written) a figure with a visible text smaller than
    ``min_font_pt`` or a dpi below :data:`MIN_DPI`; after writing, a PNG wider than
    ``max_width_px`` is removed and refused (``None``: no limit, for a multi-panel print page).
    """
    if dpi < MIN_DPI:
        raise ValueError(f"dpi={dpi} is below the project's minimum of {MIN_DPI} for saved figures.")
    check_fonts(fig, min_font_pt)
    out = Path(os.fspath(out_dir))
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.{fmt}" for fmt in formats]
    for path in paths:
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
    png = out / f"{stem}.png"
    if max_width_px is not None and png in paths:
        width, _, _ = png_size_and_dpi(png)
        if width > max_width_px:
            for path in paths:
                path.unlink(missing_ok=True)
            raise ValueError(f"{png.name} is {width} px wide at {dpi} dpi; figures are at most {max_width_px} px "
                             f"({max_width_px / dpi:.1f} in) wide. Make the figure narrower, or pass "
                             "max_width_px=None for a multi-panel page meant for print.")
    return paths
