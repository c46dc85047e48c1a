"""turs.style: one colour-blind-safe style per algorithm and class, and readable saved figures.

The measure: :func:`turs.style.color_distance`, the smallest CIEDE2000 difference between two
colours over normal vision and simulated protanopia, deuteranopia and tritanopia (Machado et
al. 2009). Two styles count as distinct when that distance is at least 10 (well above the
~2.3 of a just-noticeable difference) or when both their markers and their line styles differ.
"""
from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from turs import style  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def distinct(a: style.Style, b: style.Style) -> bool:
    return (style.color_distance(a.color, b.color) >= style.MIN_COLOR_DISTANCE
            or (a.marker != b.marker and a.linestyle != b.linestyle))


# ------------------------------------------------------------------ colour science
@pytest.mark.parametrize("lab1, lab2, expected", [
    # Sharma, Wu & Dalal (2005), Table 1, pairs 1, 7, 17, 18, 19, 20
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
])
def test_ciede2000_reference_values(lab1, lab2, expected):
    assert style.delta_e2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert style.delta_e2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)


def test_cvd_simulation_keeps_greys_and_merges_red_with_green():
    for kind, matrix in style.CVD_MATRICES.items():
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=2e-6, err_msg=kind)  # greys stay grey
        np.testing.assert_allclose(style.simulate_cvd("#808080", kind), style.simulate_cvd("#808080", "normal"),
                                   atol=1e-5)
    # matplotlib's red and green: far apart with normal vision, nearly one colour for a deuteranope
    red, green = "#d62728", "#2ca02c"
    normal = style.delta_e2000(style._lab(style.simulate_cvd(red, "normal")),
                               style._lab(style.simulate_cvd(green, "normal")))
    assert normal > 60
    assert style.color_distance(red, green) < 5 < style.MIN_COLOR_DISTANCE
    assert style.color_distance("#000000", "#000000") == 0.0
    with pytest.raises(ValueError, match="kind must be"):
        style.simulate_cvd(red, "achromatopsia")


def test_okabe_ito_colours_are_apart_for_every_viewer():
    colours = list(style.OKABE_ITO.values())
    distances = [style.color_distance(a, b) for a, b in itertools.combinations(colours, 2)]
    assert len(colours) == 8 and min(distances) >= style.MIN_COLOR_DISTANCE
    assert min(distances) == pytest.approx(10.87, abs=0.01)  # orange vs reddish purple, tritanopia


def test_better_and_worse_are_not_red_and_green():
    assert style.color_distance(style.BETTER, style.WORSE) > 40
    for c in (style.BETTER, style.WORSE):
        assert style.color_distance(c, style.NEUTRAL) >= style.MIN_COLOR_DISTANCE


# ------------------------------------------------------------------ algorithms
def registered_names() -> set[str]:
    from turs.bench import list_algorithms
    from turs.competitors import COMPETITORS
    from turs.reproduce import LABELS

    thesis = pd.read_csv(REPO / "data" / "paper" / "table3_3_roc_auc.csv").columns[1:]
    return set(list_algorithms()) | set(COMPETITORS) | set(LABELS.values()) | set(thesis) | {"turs2", "TURS2"}


def test_every_registered_algorithm_has_a_style():
    names = registered_names()
    assert {"turs", "cart", "c45", "ripper", "cn2", "classy", "brs", "brl", "rulefit", "oner", "turs-noaux",
            "turs-nopatience", "turs-nolocaltest", "turs-thesis", "turs-turs2code", "DRS", "IDS"} <= names
    for name in names:
        assert isinstance(style.algorithm_style(name), style.Style), name
    # the benchmark name, the thesis label and the competitor name give one style
    assert style.algorithm_style("c45") is style.algorithm_style("C45")
    assert style.algorithm_style("RuleFit") is style.algorithm_style("rulefit")
    assert style.algorithm_style("turs-reference") is style.algorithm_style("turs")
    assert style.algorithm_style("TURS2 (authors' code, cyaux)") is style.algorithm_style("turs2")
    for room in ("submodular", "lire"):
        assert room in style.ALGORITHM_STYLES
    with pytest.raises(KeyError, match="No style for algorithm 'xgboost'"):
        style.algorithm_style("xgboost")


def test_algorithm_styles_are_pairwise_distinct():
    styles = style.ALGORITHM_STYLES
    assert len(styles) >= 20
    clashes = [(a, b) for (a, sa), (b, sb) in itertools.combinations(styles.items(), 2) if not distinct(sa, sb)]
    assert not clashes
    # the thesis' seven algorithms and OneR take the eight Okabe-Ito colours, TURS black
    eight = [styles[a].color for a in ("turs", "cart", "c45", "ripper", "cn2", "classy", "brs", "oner")]
    assert sorted(eight) == sorted(style.OKABE_ITO.values())
    assert styles["turs"].color == "#000000" and styles["turs"].linewidth > styles["cart"].linewidth
    labels = [s.label for s in styles.values()]
    assert len(set(labels)) == len(labels)


def harness_algorithms() -> dict[str, str]:
    """Every algorithm the harness knows, and the thesis' and the authors' implementation's, as
    benchmark name -> the key of its style (aliases such as ``turs-reference`` are one algorithm
    with their target)."""
    names = registered_names()
    return {n: next(k for k, s in style.ALGORITHM_STYLES.items() if s is style.algorithm_style(n)) for n in names}


def test_every_algorithm_has_a_colour_of_its_own():
    keys = set(harness_algorithms().values())
    assert len(keys) >= 21  # 19 harness algorithms (turs-reference is TURS), DRS and IDS, TURS2
    colours = {k: style.ALGORITHM_STYLES[k].color.lower() for k in keys}
    assert len(set(colours.values())) == len(colours), colours
    close = [(a, b, round(style.color_distance(colours[a], colours[b]), 2))
             for a, b in itertools.combinations(sorted(keys), 2)
             if style.color_distance(colours[a], colours[b]) < style.MIN_ALGORITHM_COLOR_DISTANCE]
    assert not close
    # the algorithms Figs. 3.2-3.4 draw side by side are apart for every viewer
    side_by_side = ["turs", "cart", "c45", "ripper", "cn2", "classy", "brs", "drs", "ids", "submodular", "lire"]
    worst = min(style.color_distance(colours[a], colours[b]) for a, b in itertools.combinations(side_by_side, 2))
    assert worst >= style.MIN_COLOR_DISTANCE
    # the pair that shared a colour in Fig. 3.2
    assert style.algorithm_style("LIRE").color != style.algorithm_style("BRS").color


def test_one_order_of_the_algorithms():
    order = list(style.ALGORITHM_STYLES)
    assert order[:9] == ["turs", "cart", "c45", "ripper", "cn2", "classy", "brs", "drs", "ids"]
    # the thesis' Table 3.3 order and ours give the same order; labels, names and aliases mix
    thesis = ["BRS", "C45", "CART", "CLASSY", "RIPPER", "CN2", "DRS", "IDS", "TURS"]
    ours = ["turs", "cart", "c45", "ripper", "cn2", "classy", "submodular", "lire"]
    assert style.algorithm_order(thesis) == ["TURS", "CART", "C45", "RIPPER", "CN2", "CLASSY", "BRS", "DRS", "IDS"]
    assert style.algorithm_order(ours[::-1]) == ours
    assert style.algorithm_order(["c4.5", "xgboost", "TURS", "turs2"]) == ["TURS", "c4.5", "turs2", "xgboost"]
    everything = list(harness_algorithms())
    ranked = style.algorithm_order(everything)
    assert sorted(ranked) == sorted(everything)
    rank = {k: i for i, k in enumerate(order)}
    keys = harness_algorithms()
    positions = [rank[keys[n]] for n in ranked]
    assert positions == sorted(positions)


def test_the_figures_list_the_algorithms_in_the_one_order():
    """The tables behind the figures: ours (turs.reproduce.mean_table, whatever order the
    algorithms were asked in) and the thesis' (turs.reproduce.thesis_table) in the one order."""
    from turs.reproduce import benchmark_order, mean_table, thesis_table

    for name in ("table3_3_roc_auc", "table3_5_total_literals"):
        columns = list(thesis_table(name).columns)
        assert columns == style.algorithm_order(columns) and columns[0] == "TURS"
    frame = pd.DataFrame({"dataset": ["d"] * 4, "fold": [0] * 4, "algorithm": ["lire", "cn2", "turs", "brs"],
                          "status": ["ok"] * 4, "roc_auc": [0.5, 0.6, 0.7, 0.8]})
    table = mean_table(frame, "roc_auc", algorithms="lire,cn2,turs,brs")
    assert list(table.columns) == ["TURS", "CN2", "BRS", "LIRE"]
    assert table.loc["d"].tolist() == [0.7, 0.6, 0.8, 0.5]
    assert benchmark_order("lire,cn2,turs") == ["turs", "cn2", "lire"]


def test_the_check_catches_a_red_green_pair():
    red = style.Style("A", "#d62728", "o", "-")
    green = style.Style("B", "#2ca02c", "s", "-")
    assert not distinct(red, green)  # same line style, colours merge for a deuteranope
    assert distinct(red, style.Style("B", "#2ca02c", "s", "--"))


def test_class_palette_has_twelve_distinct_classes():
    assert len(style.CLASS_STYLES) == 12
    assert all(distinct(a, b) or a.marker != b.marker
               for a, b in itertools.combinations(style.CLASS_STYLES, 2))
    # colour alone: the first eight are all apart; the first two are blue and orange
    assert all(style.color_distance(a, b) >= style.MIN_COLOR_DISTANCE
               for a, b in itertools.combinations(style.class_colors(8), 2))
    assert style.class_colors(2) == [style.OKABE_ITO["blue"], style.OKABE_ITO["orange"]]
    assert style.class_style(12) == style.class_style(0)


def test_explorer_uses_the_style():
    """The explorer's pictures (turs/explorer/_render.py and its drawing helpers) take their dpi
    and colours from turs.style."""
    from turs.explorer import _render

    modules = [_render]
    if importlib.util.find_spec("turs.explorer._draw") is not None:
        from turs.explorer import _draw

        modules.append(_draw)
    assert all(m.DPI >= 100 for m in modules if hasattr(m, "DPI"))
    class_colors = [m.CLASS_COLORS for m in modules if hasattr(m, "CLASS_COLORS")]
    assert class_colors and all(c == style.class_colors() for c in class_colors)
    assert _render.CANDIDATE_COLOR == style.CANDIDATE and _render.CURRENT_COLOR == style.HIGHLIGHT
    for c in (style.CANDIDATE, style.HIGHLIGHT, style.RULE):
        assert style.color_distance(c, _render.TRAJECTORY_COLOR) >= style.MIN_COLOR_DISTANCE


# ------------------------------------------------------------------ saved figures
def test_apply_sets_readable_defaults():
    with style.rc_context():
        rc = matplotlib.rcParams
        for key in ("font.size", "axes.labelsize", "xtick.labelsize", "ytick.labelsize", "legend.fontsize",
                    "axes.titlesize"):
            assert float(rc[key]) >= style.MIN_FONT_PT, key
        assert rc["savefig.dpi"] >= 150
        assert rc["axes.prop_cycle"].by_key()["color"][:2] == style.class_colors(2)


@pytest.mark.slow
def test_save_writes_150_dpi_and_refuses_small_text_and_wide_figures(tmp_path):
    with style.rc_context():
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([1, 2, 3], [1, 4, 9], **style.algorithm_style("turs").line())
        ax.set_xlabel("x")
        ax.legend()
        png, pdf = style.save(fig, tmp_path, "ok")
        width, height, dpi = style.png_size_and_dpi(png)
        assert round(dpi) == 150 and 600 < width <= 6 * 150 and height <= 4 * 150
        assert pdf.read_bytes()[:5] == b"%PDF-"

        ax.set_title("tiny", fontsize=8)
        with pytest.raises(ValueError, match=r"'tiny' at 8.0 pt"):
            style.save(fig, tmp_path, "small")
        assert not (tmp_path / "small.png").exists()
        plt.close(fig)

        wide, ax = plt.subplots(figsize=(20, 3))
        ax.plot([0, 1], [0, 1])
        with pytest.raises(ValueError, match=r"wide.png is 2\d{3} px wide"):
            style.save(wide, tmp_path, "wide")
        assert not (tmp_path / "wide.png").exists() and not (tmp_path / "wide.pdf").exists()
        paths = style.save(wide, tmp_path, "print_page", formats=("png",), max_width_px=None)
        assert style.png_size_and_dpi(paths[0])[0] > 2000
        with pytest.raises(ValueError, match="dpi=72 is below"):
            style.save(wide, tmp_path, "low", dpi=72)
        plt.close(wide)


def test_png_size_and_dpi_rejects_other_files(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"GIF89a" + bytes(30))
    with pytest.raises(ValueError, match="not a PNG"):
        style.png_size_and_dpi(path)


@pytest.mark.slow
def test_scaling_plot_of_bench_speed_follows_the_style(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_speed", REPO / "tools" / "bench_speed.py")
    bench_speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_speed)
    # rows as bench_speed.scaling() writes them: noisy sizes and datasets per learner, the musk
    # d-study, and a learner that timed out
    df = pd.DataFrame({
        "study": ["n"] * 8 + ["d"] * 3,
        "data": ["noisy 10000", "noisy 20000", "noisy 50000", "noisy 10000", "noisy 20000", "magic", "magic",
                 "noisy 50000", "musk", "musk", "musk"],
        "algo": ["turs"] * 3 + ["cart"] * 2 + ["turs", "ripper", "cart"] + ["turs"] * 3,
        "n": [10000, 20000, 50000, 10000, 20000, 15216, 15216, None, 5000, 5000, 5000],
        "d": [20] * 5 + [10, 10, 20, 10, 20, 40],
        "fit_s": [3.0, 7.0, 20.0, 0.3, 0.7, 2.0, 30.0, None, 0.2, 0.3, 0.5],
        "search_median_s": [0.05, 0.1, 0.25, None, None, 0.04, None, None, None, None, None],
        "rules": [30, 45, 70, None, None, 60, None, None, 5, 5, 6],
        "status": ["ok"] * 7 + ["timeout after 600 s"] + ["ok"] * 3,
    })
    # where the full fit timed out, a max_time fit measures the first searches (scaling())
    budget = pd.DataFrame({"study": ["n"], "data": ["noisy 50000"], "algo": ["turs-budget"], "n": [40000],
                           "d": [20], "fit_s": [130.0], "budget_s": [120.0], "searches": [9],
                           "search_median_s": [4.0], "rules": [8], "peak_rss_mb": [900.0], "status": ["ok"]})
    # above the sampled search's threshold: TURS fits with searches on a sample (drawn apart)
    big = pd.DataFrame({"study": ["n", "n", "n"], "data": ["noisy 100000", "noisy 1000000", "cover"],
                        "algo": ["turs"] * 3, "n": [100000, 1000000, 228838], "d": [20, 20, 54],
                        "fit_s": [100.0, 300.0, 40.0], "search_median_s": [0.5, 0.6, 0.3], "rules": [80, 50, 60],
                        "sampled": [True, True, True], "status": ["ok"] * 3})
    df = pd.concat([df, budget, big], ignore_index=True)
    with style.rc_context():
        bench_speed.plot_scaling(df, tmp_path)
    width, _, dpi = style.png_size_and_dpi(tmp_path / "scaling.png")
    assert round(dpi) >= 150 and width <= style.MAX_WIDTH_PX
    width, _, dpi = style.png_size_and_dpi(tmp_path / "scaling_d.png")  # the musk d-study
    assert round(dpi) >= 150 and width <= style.MAX_WIDTH_PX
