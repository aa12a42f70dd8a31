"""Tests of heb.figures: figure structure (traces, shapes, annotations, axes) and export."""

from __future__ import annotations

import json
import math
import re
from itertools import pairwise

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heb.figures import (
    MIN_BIN_ROWS,
    TITLE_PAD,
    cd_diagram,
    concentration_heatmap,
    concentration_scatters,
    fold_boxes,
    frame_title_and_legend,
    l1_error_figure,
    method_color,
    method_label,
    metric_bars,
    reliability_diagram,
    rows_per_category_heatmap,
    title_height,
    to_image_bytes,
)
from heb.figures.style import NEUTRAL_COLOR
from heb.registry import METHODS
from tests.peers import require_chromium

# ------------------------------------------------------------------- colours
#: each method's colour, read from the registry (the one place colours are written)
METHOD_COLORS = {name: entry.colour for name, entry in METHODS.items()}


def test_known_methods_have_distinct_fixed_colours_in_any_case():
    assert len(set(METHOD_COLORS.values())) == len(METHOD_COLORS) >= 11
    for name, color in METHOD_COLORS.items():
        assert method_color(name) == color
        assert method_color(name.lower()) == color
    assert method_label("heb-m") == "HEB-M" and method_label("m-estimate") == "m-estimate"
    assert method_label("heb-m+gr") == "HEB-M+GR" and method_label("kt") == "KT"
    assert method_color("laplace") == METHODS["Laplace"].colour == "#1f77b4"


def test_unknown_method_colour_is_stable_and_unknown_label_unchanged():
    assert method_color("HEB-M + temperature") == method_color("HEB-M + temperature")
    assert method_color("HEB-M + temperature").startswith("#")
    assert method_label("my method") == "my method"


# --------------------------------------------------------------- reliability
def make_curve(count, confidence, accuracy, ece=0.034, n_bins=None):
    n_bins = n_bins or len(count)
    return {
        "edges": np.linspace(0, 1, n_bins + 1),
        "count": np.asarray(count),
        "confidence": np.asarray(confidence, dtype=float),
        "accuracy": np.asarray(accuracy, dtype=float),
        "ece": ece,
    }


def test_reliability_diagram_skips_empty_bins_and_names_the_ece():
    curves = {
        "HEB-M": make_curve([0, 0, 3, 5, 10], [0, 0, 0.5, 0.7, 0.9], [0, 0, 0.4, 0.75, 0.88]),
        "laplace": make_curve([1, 0, 2, 0, 7], [0.1, 0, 0.5, 0, 0.95], [0, 0, 1, 0, 0.8], 0.1234),
    }
    fig = reliability_diagram(curves, title="Calibration")
    # per method: its curve, its bins of fewer than MIN_BIN_ROWS rows, its bars; then per
    # method the symbols over its bars
    assert [trace.type for trace in fig.data] == (
        ["scatter"] + ["scatter", "scatter", "bar"] * 2 + ["scatter"] * 2
    )
    diagonal, heb_curve, heb_small, heb_bars, laplace_curve, laplace_small, laplace_bars = fig.data[
        :7
    ]
    np.testing.assert_array_equal(diagonal.x, [0, 1])
    np.testing.assert_array_equal(diagonal.y, [0, 1])
    # empty bins are nowhere; bins under MIN_BIN_ROWS rows are off the curve
    assert MIN_BIN_ROWS == 5
    np.testing.assert_allclose(heb_curve.x, [0.7, 0.9])
    np.testing.assert_allclose(heb_curve.y, [0.75, 0.88])
    np.testing.assert_allclose(heb_small.x, [0.5])
    np.testing.assert_allclose(heb_small.y, [0.4])
    np.testing.assert_allclose(laplace_curve.x, [0.95])
    np.testing.assert_allclose(laplace_small.x, [0.1, 0.5])
    np.testing.assert_array_equal(laplace_small.customdata, [1, 2])  # rows, in the hover
    assert heb_curve.name == "HEB-M (ECE 0.034)"
    assert laplace_curve.name == "Laplace (ECE 0.123)"
    assert heb_curve.line.color == METHOD_COLORS["HEB-M"] == heb_bars.marker.color
    assert laplace_bars.marker.color == METHOD_COLORS["Laplace"]
    # small bins: grey hollow points in the method's legend group, not a legend entry
    for small, curve in ((heb_small, heb_curve), (laplace_small, laplace_curve)):
        assert small.marker.color == NEUTRAL_COLOR != curve.line.color
        assert small.marker.symbol.endswith("-open") and not curve.marker.symbol.endswith("-open")
        assert small.mode == "markers" and not small.showlegend
        assert small.legendgroup == curve.legendgroup
        # a point at accuracy 0 or 1 is drawn whole, not cut by the plot's edge
        assert small.cliponaxis is False and curve.cliponaxis is False
    # points grow with their rows: the largest bin of the diagram is the largest point
    sizes = np.concatenate([heb_small.marker.size, heb_curve.marker.size])
    assert np.all(np.diff(sizes) > 0) and sizes[-1] > max(laplace_curve.marker.size)
    # bars: all B bins at their centres, beneath on the second row with a shared x axis
    np.testing.assert_allclose(heb_bars.x, [0.1, 0.3, 0.5, 0.7, 0.9])
    np.testing.assert_array_equal(heb_bars.y, [0, 0, 3, 5, 10])
    assert heb_curve.xaxis == "x" and heb_curve.yaxis == "y"
    assert heb_bars.xaxis == "x2" and heb_bars.yaxis == "y2"
    assert fig.layout.xaxis.matches == "x2" or fig.layout.xaxis2.matches == "x"
    assert not heb_bars.showlegend
    assert fig.layout.title.text == "Calibration"
    assert fig.layout.font.size >= 14


def test_reliability_diagram_without_ece_names_the_methods_alone():
    curves = {"HEB-M": make_curve([6, 9], [0.6, 0.9], [0.5, 0.9], 0.2)}
    fig = reliability_diagram(curves, show_ece=False)
    assert [trace.name for trace in fig.data if trace.showlegend is not False] == [
        "perfect calibration",
        "HEB-M",
    ]


def test_reliability_diagram_lists_a_method_whose_bins_are_all_small():
    curves = {"HEB-M": make_curve([2, 0, 3], [0.4, 0, 0.9], [0.5, 0, 1.0])}
    _, curve, small, _, _ = reliability_diagram(curves).data
    # no point on its curve, yet a legend entry (plotly lists no trace of zero points)
    assert curve.showlegend is not False and list(curve.x) == [None]
    np.testing.assert_allclose(small.x, [0.4, 0.9])


def test_each_bar_of_rows_per_bin_carries_its_methods_symbol():
    """The rows-per-bin bars told the methods apart by colour and order only (HEB-M's red
    and AODE's green bars side by side look alike to a red-green colour-blind reader);
    each bar now carries, just over its top, the marker symbol of its method's points and
    legend entry, in a distinct symbol per method, and the hover still gives its rows."""
    names = ["Laplace", "KT", "HEB-U", "HEB-M", "AODE"]
    curves = {
        name: make_curve([0, 3 + i, 40 - i, 900 + 50 * i], [0, 0.4, 0.6, 0.9], [0, 0.5, 0.6, 0.85])
        for i, name in enumerate(names)
    }
    fig = reliability_diagram(curves)
    bars = [t for t in fig.data if t.type == "bar"]
    tips = [t for t in fig.data if t.type == "scatter" and t.xaxis == "x2"]
    assert len({tip.marker.symbol for tip in tips}) == len(names)  # told apart without colour
    tallest = 900 + 50 * (len(names) - 1)
    points = [t for t in fig.data[1:] if t.type == "scatter" and t.xaxis == "x"]
    lines = [t for t in points if t.showlegend is not False]
    assert len(lines) == len(bars) == len(tips) == len(names)
    for name, line, bar, tip in zip(names, lines, bars, tips, strict=True):
        assert tip.marker.symbol == line.marker.symbol  # the symbol of its points and legend
        assert tip.marker.color == bar.marker.color == line.line.color == method_color(name)
        assert tip.legendgroup == bar.legendgroup == line.legendgroup and not tip.showlegend
        held = np.asarray(bar.y) > 0
        left = np.asarray(bar.x) + np.asarray(bar.offset)
        # one symbol per bar holding rows, at its centre, just over its top
        np.testing.assert_allclose(tip.x, (left + np.asarray(bar.width) / 2)[held])
        over = np.asarray(tip.y) - np.asarray(bar.y)[held]
        assert np.all(over > 0) and np.all(over < 0.1 * tallest)
        np.testing.assert_array_equal(np.asarray(tip.customdata)[:, 1], np.asarray(bar.y)[held])
        assert "customdata[1]" in tip.hovertemplate and tip.yaxis == bar.yaxis == "y2"
    # a bin's bars side by side inside the bin, none over another
    lefts = np.array([np.asarray(bar.x) + np.asarray(bar.offset) for bar in bars])
    widths = np.array([np.asarray(bar.width) for bar in bars])
    np.testing.assert_allclose(lefts[1:], lefts[:-1] + widths[:-1])
    assert np.all(lefts[0] >= np.linspace(0, 1, 5)[:-1])
    assert np.all(lefts[-1] + widths[-1] <= np.linspace(0, 1, 5)[1:])


def test_reliability_diagram_refuses_bad_curves():
    with pytest.raises(ValueError, match="at least one"):
        reliability_diagram({})
    with pytest.raises(ValueError, match="lacks ece"):
        reliability_diagram(
            {"A": {k: v for k, v in make_curve([1], [0.5], [1]).items() if k != "ece"}}
        )
    bad = make_curve([1, 2], [0.5, 0.6], [1, 1])
    bad["edges"] = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="B\\+1 edges"):
        reliability_diagram({"A": bad})


def test_reliability_points_are_the_diagrams_first_row():
    """The lessons draw the points alone: the same traces as the diagram's first row."""
    from plotly.utils import PlotlyJSONEncoder

    from heb.figures.reliability import reliability_points

    curves = {
        "HEB-M": make_curve([0, 2, 3, 5, 10], [0, 0.3, 0.5, 0.7, 0.9], [0, 0.1, 0.4, 0.75, 0.88]),
        "1 copy": make_curve([1, 6, 2, 9, 7], [0.1, 0.3, 0.5, 0.7, 0.95], [0, 0.5, 1, 0.6, 0.8]),
    }
    colors = {"1 copy": "#123456"}
    points = reliability_points(curves, colors)
    diagram = reliability_diagram(curves, colors=colors)
    first_row = [t for t in diagram.data if t.type == "scatter" and t.xaxis in (None, "x")]
    assert len(points) == len(first_row) == 5  # diagonal; HEB-M curve and small bins; 1 copy
    for mine, theirs in zip(points, first_row, strict=True):
        theirs = theirs.to_plotly_json()
        for axis in ("xaxis", "yaxis"):  # the diagram's subplot names its axes
            theirs.pop(axis, None)
        as_text = [json.dumps(t, cls=PlotlyJSONEncoder, sort_keys=True) for t in (mine, theirs)]
        assert as_text[0] == as_text[1]


def _holds(whole, part) -> bool:
    """Whether the plotly JSON ``whole`` has every value of ``part`` (dicts compared key by
    key, anything else equal)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(_holds(whole.get(k), v) for k, v in part.items())
    return whole == part


def test_lesson_figures_look_like_plotly_white_without_its_weight():
    """Lesson figures use plotly_white's layout through the light template (the full one
    cost ~0.1 s of server time per figure and ~4 kB of defaults for every trace type),
    with the projector sizes on top, for every axis and note (subplots included)."""
    import plotly.io as pio

    from heb.figures.lessons.parts import lesson_style, readable
    from heb.figures.style import FONT_SIZE

    fig = lesson_style(go.Figure(go.Scatter(x=[0, 1], y=[1, 2])), "Title")
    white = pio.templates["plotly_white"]
    layout = fig.layout.template.layout.to_plotly_json()
    white_layout = white.layout.to_plotly_json()
    for key in ("font", "hoverlabel", "xaxis", "yaxis", "legend", "annotationdefaults"):
        white_layout.pop(key, None)  # the sizes are set there: the rest is plotly_white's
    assert _holds(layout, white_layout)
    white_axis = white.layout.xaxis.to_plotly_json()
    assert white_axis.pop("automargin") is True  # plotly_white's, off here (see below)
    assert _holds(layout["xaxis"], white_axis)
    assert layout["font"]["size"] == FONT_SIZE
    for axis, standoff in (("xaxis", 6), ("yaxis", 8)):
        assert layout[axis]["tickfont"]["size"] == FONT_SIZE - 1
        assert layout[axis]["title"]["font"]["size"] == FONT_SIZE
        assert layout[axis]["ticklabelstandoff"] == standoff
    assert layout["annotationdefaults"]["font"]["size"] == FONT_SIZE - 1
    assert fig.layout.template.data.scatter == white.data.scatter
    assert not fig.layout.template.data.contour  # no defaults for traces never drawn
    # one assignment styles what the figure holds: readable on a figure with its own look
    other = readable(go.Figure(go.Bar(x=["a"], y=[1])).update_layout(margin={"l": 5}))
    assert other.layout.template == fig.layout.template and other.layout.margin.l == 5


def test_lesson_axes_fit_their_labels_only_where_fixed_margins_cannot():
    """Numeric axes keep the fixed margins (automargin off: a second layout pass, ~40 % of
    the browser's drawing of a lesson figure); text, category and right-hand axes fit."""
    from heb.figures.lessons.parts import LESSON_MARGIN, lesson_style

    numeric = lesson_style(go.Figure(go.Scatter(x=[1, 2], y=[-1000, 0])), "T")
    assert numeric.layout.template.layout.xaxis.automargin is False
    assert numeric.layout.template.layout.yaxis.automargin is False
    assert numeric.layout.xaxis.automargin is None and numeric.layout.yaxis.automargin is None
    assert numeric.layout.margin.l == LESSON_MARGIN["l"]
    words = lesson_style(go.Figure(go.Bar(x=np.array(["free", "unsubscribe"]), y=[1, 2])), "T")
    assert words.layout.xaxis.automargin is True and words.layout.yaxis.automargin is None
    sideways = lesson_style(go.Figure(go.Bar(y=["a", "b"], x=[1, 2], orientation="h")), "T")
    assert sideways.layout.yaxis.automargin is True and sideways.layout.xaxis.automargin is None
    codes = go.Figure(go.Scatter(x=[1400, 1401], y=[1, 2])).update_xaxes(type="category")
    assert lesson_style(codes, "T").layout.xaxis.automargin is True
    twin = go.Figure([go.Scatter(x=[1, 2], y=[1, 2]), go.Scatter(x=[1, 2], y=[3, 4], yaxis="y2")])
    twin.update_layout(yaxis2={"overlaying": "y", "side": "right"})
    styled = lesson_style(twin, "T")
    assert styled.layout.yaxis2.automargin is True and styled.layout.yaxis.automargin is None


def test_app_figures_fit_only_their_text_axes_to_the_labels():
    """style() gives every figure fixed margins, numeric axes without automargin (the
    browser's second layout pass) and text axes with it, in one update_layout."""
    from heb.figures.style import FIXED_MARGIN_TEMPLATE, style

    boxes = style(
        go.Figure(go.Box(x=np.array(["Laplace", "HEB-M"] * 3), y=np.arange(6.0))), "T", 400
    )
    assert boxes.layout.template == FIXED_MARGIN_TEMPLATE
    assert FIXED_MARGIN_TEMPLATE.layout.xaxis.automargin is False
    assert FIXED_MARGIN_TEMPLATE.layout.yaxis.automargin is False
    assert boxes.layout.xaxis.automargin is True and boxes.layout.yaxis.automargin is None
    assert (boxes.layout.margin.l, boxes.layout.margin.b) == (80, 70)
    named = go.Figure(go.Heatmap(z=[[1, 2]], x=[0, 1], y=[0]))
    named.update_xaxes(tickvals=[0, 1], ticktext=["a long feature name", "another"])
    assert style(named, "T", 300).layout.xaxis.automargin is True


def test_reliability_diagram_takes_colours_for_curves_that_are_not_methods():
    curves = {name: make_curve([2, 30], [0.6, 0.9], [0.5, 0.9]) for name in ("1 copy", "HEB-M")}
    fig = reliability_diagram(curves, colors={"1 copy": "#3b3b98"})
    _, copy_curve, copy_small, copy_bars, heb_curve, heb_small, heb_bars, copy_tips, heb_tips = (
        fig.data
    )
    assert copy_curve.line.color == copy_bars.marker.color == copy_tips.marker.color == "#3b3b98"
    # left out: its method colour
    assert heb_curve.line.color == heb_bars.marker.color == heb_tips.marker.color
    assert heb_tips.marker.color == METHOD_COLORS["HEB-M"]
    assert copy_small.marker.color == heb_small.marker.color == NEUTRAL_COLOR  # too few rows


# ------------------------------------------------------- title over legend
def legend_top_px(fig: go.Figure) -> float:
    """Where the top of a container-referenced legend sits, in pixels from the top."""
    assert fig.layout.legend.yref == "container" and fig.layout.legend.yanchor == "top"
    return (1 - fig.layout.legend.y) * fig.layout.height


@pytest.mark.parametrize("n_methods", [1, 2, 7, 8])
def test_reliability_legend_sits_right_under_the_title_at_any_number_of_methods(n_methods):
    names = list(METHOD_COLORS)[:n_methods]
    curves = {name: make_curve([2, 3], [0.6, 0.9], [0.5, 0.9]) for name in names}
    fig = reliability_diagram(curves, title="Reliability diagram")
    title = fig.layout.title
    assert (title.yref, title.yanchor, title.y, title.pad.t) == ("container", "top", 1, TITLE_PAD)
    assert fig.layout.height == 520  # fixed: pages may not resize it and shift the legend
    block = title_height("Reliability diagram")
    assert block <= legend_top_px(fig) <= block + 8  # under the title, no gap between them
    # the top margin leaves the title's room; plotly grows it down to the legend's last row
    assert block < fig.layout.margin.t < block + 30


def test_multi_line_title_keeps_its_first_line_in_place_and_reserves_every_line():
    one = frame_title_and_legend(go.Figure(), "A title", 400)
    two = frame_title_and_legend(go.Figure(), "A title<br>on two lines", 400)
    line = (title_height("a<br>b") - title_height("a")) / 400
    # plotly centres multi-line titles on their anchor: the anchor moves half a line down
    assert two.layout.title.y == pytest.approx(1 - line / 2, abs=1e-3)
    assert two.layout.margin.t - one.layout.margin.t == pytest.approx(line * 400, abs=1)
    assert legend_top_px(two) - legend_top_px(one) == pytest.approx(line * 400, abs=1)
    assert frame_title_and_legend(go.Figure(), "", 300).layout.margin.t < TITLE_PAD + 10


def svg_geometry(svg: str) -> dict[str, float]:
    """Pixel rows of a plotly SVG: title top, legend top and bottom, first plot's top."""
    title = re.search(r'class="gtitle"[^>]*? y="([\d.]+)"', svg)
    legend = re.search(
        r'class="legend"[^>]*translate\([\d.]+,([\d.]+)\)"><rect class="bg"[^>]*'
        r'height="([\d.]+)"',
        svg,
    )
    grid = re.search(r'class="xgrid crisp"[^>]*d="M[\d.]+,([\d.]+)v', svg)
    assert title and legend and grid, "the SVG lacks a title, a legend or a grid"
    top = float(legend[1])
    return {
        "title_top": float(title[1]),
        "legend_top": top,
        "legend_bottom": top + float(legend[2]),
        "plot_top": float(grid[1]),
    }


def test_rendered_reliability_diagram_stacks_title_legend_and_plot_without_overlap():
    require_chromium()  # static export; a skip here, a failure in CI
    names = list(METHOD_COLORS)[:7]
    curves = {name: make_curve([2, 3], [0.6, 0.9], [0.5, 0.9], 0.1) for name in names}
    fig = reliability_diagram(curves)
    for width, min_rows in ((1100, 2), (560, 3)):  # the compare page; a lesson column
        box = svg_geometry(to_image_bytes(fig, fmt="svg", width=width).decode())
        title_bottom = box["title_top"] + 1.3 * 20  # one line of 20 px type
        assert box["title_top"] >= TITLE_PAD - 1  # not clipped at the top
        assert title_bottom <= box["legend_top"] <= title_bottom + 10
        # the legend wraps onto several rows, all above the plot, which follows closely
        assert box["legend_bottom"] - box["legend_top"] > 25 * min_rows
        assert box["legend_bottom"] <= box["plot_top"] <= box["legend_bottom"] + 30


# ---------------------------------------------------------------- CD diagram
def group_bars(fig: go.Figure) -> list:
    return [shape for shape in fig.layout.shapes if (shape.name or "").startswith("group")]


def annotation_texts(fig: go.Figure) -> list[str]:
    return [note.text for note in fig.layout.annotations]


def assert_bars_do_not_overlap(bars) -> None:
    by_level: dict[float, list[tuple[float, float]]] = {}
    for bar in bars:
        assert bar.y0 == bar.y1 and bar.x0 < bar.x1
        by_level.setdefault(bar.y0, []).append((bar.x0, bar.x1))
    for spans in by_level.values():
        spans.sort()
        for (_, end), (start, _) in pairwise(spans):
            assert end < start


RANKS = {"HEB-M": 2.1, "HEB-U": 2.9, "Laplace": 4.3, "KT": 4.0, "Lidstone": 5.2, "TE": 5.9}


def test_cd_diagram_all_methods_different_has_no_bars():
    fig = cd_diagram(RANKS, 0.5, groups=[])
    assert group_bars(fig) == []
    assert "CD = 0.50" in annotation_texts(fig)
    assert len(fig.data) == len(RANKS)  # one elbow per method
    assert all(trace.type == "scatter" for trace in fig.data)


def test_cd_diagram_all_methods_same_has_one_bar_over_the_whole_range():
    fig = cd_diagram(RANKS, 5.0, groups=[tuple(RANKS)])
    (bar,) = group_bars(fig)
    assert bar.x0 < min(RANKS.values()) and bar.x1 > max(RANKS.values())
    assert bar.y0 < 0  # below the axis


def test_cd_diagram_overlapping_groups_are_stacked_not_overlapping():
    groups = [("HEB-M", "HEB-U"), ("HEB-U", "KT", "Laplace"), ("KT", "Laplace", "Lidstone")]
    fig = cd_diagram(RANKS, 1.62, groups=groups, title="Accuracy")
    bars = group_bars(fig)
    assert len(bars) == 3
    assert_bars_do_not_overlap(bars)
    assert len({bar.y0 for bar in bars}) >= 2  # overlapping groups need two levels
    first = next(bar for bar in bars if "HEB-M" in bar.name)
    assert math.isclose(first.x0 + 0.05, 2.1) and math.isclose(first.x1 - 0.05, 2.9)


def test_cd_diagram_layout_follows_demsar():
    fig = cd_diagram(RANKS, 1.62, groups=[])
    texts = annotation_texts(fig)
    assert "CD = 1.62" in texts
    assert [t for t in texts if t.isdigit()] == [str(i) for i in range(1, len(RANKS) + 1)]
    axis = next(shape for shape in fig.layout.shapes if shape.name == "axis")
    assert (axis.x0, axis.x1, axis.y0, axis.y1) == (1, len(RANKS), 0, 0)
    cd_bar = [shape for shape in fig.layout.shapes if shape.name == "cd"]
    horizontal = next(shape for shape in cd_bar if shape.y0 == shape.y1)
    assert horizontal.y0 > 0 and math.isclose(horizontal.x1 - horizontal.x0, 1.62)
    labels = {note.text: note for note in fig.layout.annotations if "(" in note.text}
    left = {text for text, note in labels.items() if note.xanchor == "right"}
    right = {text for text, note in labels.items() if note.xanchor == "left"}
    assert left == {"HEB-M (2.10)", "HEB-U (2.90)", "KT (4.00)"}
    assert right == {"(4.30) Laplace", "(5.20) Lidstone", "(5.90) TE"}
    # each elbow runs from its rank on the axis down to its label row
    for trace in fig.data:
        rank = RANKS[trace.name]
        assert trace.x[0] == trace.x[1] == rank and trace.y[0] == 0 and trace.y[1] < 0
        assert trace.line.color == method_color(trace.name)
    # best method on the top row of the left side, worst on the top row of the right side
    by_name = {trace.name: trace for trace in fig.data}
    assert by_name["HEB-M"].y[1] > by_name["HEB-U"].y[1] > by_name["KT"].y[1]
    assert by_name["TE"].y[1] > by_name["Lidstone"].y[1] > by_name["Laplace"].y[1]


def test_cd_diagram_computes_groups_with_heb_stats():
    fig = cd_diagram({"A": 1.0, "B": 2.0, "C": 3.0}, 0.5)
    assert group_bars(fig) == []
    fig = cd_diagram({"A": 1.0, "B": 2.0, "C": 3.0}, 5.0)
    assert [bar.name for bar in group_bars(fig)] == ["group: A, B, C"]
    fig = cd_diagram({"A": 1.0, "B": 1.5, "C": 2.5, "D": 3.0}, 1.2)
    names = sorted(bar.name for bar in group_bars(fig))
    assert names == ["group: A, B", "group: B, C", "group: C, D"]
    assert_bars_do_not_overlap(group_bars(fig))


def test_cd_diagram_refuses_bad_input():
    with pytest.raises(ValueError, match="two methods"):
        cd_diagram({"A": 1.0}, 1.0)
    with pytest.raises(ValueError, match="critical difference"):
        cd_diagram(RANKS, float("nan"))
    with pytest.raises(ValueError, match="between 1 and"):
        cd_diagram({"A": 1.0, "B": 2.5}, 1.0)
    with pytest.raises(ValueError, match="without a rank"):
        cd_diagram(RANKS, 1.0, groups=[("HEB-M", "nobody")])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=8),
    st.floats(0.1, 4),
)
def test_cd_bars_never_overlap(fractions, cd):
    ranks = [1 + u * (len(fractions) - 1) for u in fractions]
    names = [f"M{i}" for i in range(len(ranks))]
    order = np.argsort(ranks, kind="stable")
    groups = []  # every window of methods within cd of its first, as Nemenyi would give
    for start in range(len(order)):
        members = [names[j] for j in order[start:] if ranks[j] - ranks[order[start]] <= cd]
        if len(members) >= 2:
            groups.append(tuple(members))
    fig = cd_diagram(dict(zip(names, ranks, strict=True)), cd, groups=groups)
    assert len(group_bars(fig)) == len(groups)
    assert_bars_do_not_overlap(group_bars(fig))


# ------------------------------------------------------------- concentrations
def diagnostics(n_classes: int = 2, n_features: int = 3) -> dict[str, np.ndarray]:
    pairs = n_classes * n_features
    m = np.geomspace(0.01, 1e4, pairs)
    n_c = np.repeat(np.linspace(5, 200, n_classes), n_features)
    clamped = np.array(["none"] * pairs, dtype="<U4")
    clamped[0], clamped[-1] = "low", "high"
    fallback = np.zeros(pairs, dtype=bool)
    fallback[1] = True
    return {
        "class": np.repeat(np.arange(n_classes), n_features),
        "feature": np.tile(np.arange(n_features), n_classes),
        "N_c": n_c,
        "K_f": np.tile(np.arange(2, 2 + n_features), n_classes),
        "m": m,
        "rho": m / (n_c + m),
        "iterations": np.arange(pairs),
        "converged": np.ones(pairs, dtype=bool),
        "clamped": clamped,
        "log_evidence": -np.arange(pairs, dtype=float),
        "fallback": fallback,
    }


@pytest.mark.parametrize("as_frame", [False, True])
def test_concentration_heatmap_grid_hover_and_clamp_marks(as_frame):
    diag = diagnostics()
    fig = concentration_heatmap(
        pd.DataFrame(diag) if as_frame else diag, ["colour", "size", "shape"], ["yes", "no"]
    )
    heat = fig.data[0]
    assert heat.type == "heatmap"
    np.testing.assert_allclose(np.asarray(heat.z), np.log10(diag["m"]).reshape(2, 3))
    assert list(fig.layout.xaxis.ticktext) == ["colour", "size", "shape"]
    assert list(fig.layout.yaxis.ticktext) == ["yes", "no"]
    custom = np.asarray(heat.customdata)
    assert custom.shape == (2, 3, 7)
    assert tuple(custom[1, 2, :2]) == ("no", "shape")
    assert custom[1, 2, 2] == 200 and custom[1, 2, 3] == 4
    assert custom[1, 2, 6] == "clamped at m_max" and custom[0, 1, 6].startswith("fallback")
    for field in ("N_c", "K_f", "m =", "rho"):
        assert field in heat.hovertemplate
    marks = {trace.marker.symbol: trace for trace in fig.data[1:]}
    assert set(marks) == {"triangle-up", "triangle-down", "square"}
    assert (list(marks["triangle-up"].x), list(marks["triangle-up"].y)) == ([2], [1])
    assert (list(marks["triangle-down"].x), list(marks["triangle-down"].y)) == ([0], [0])
    assert (list(marks["square"].x), list(marks["square"].y)) == ([1], [0])  # fallback pair
    assert fig.layout.showlegend


def test_concentration_heatmap_other_values_and_no_marks():
    diag = diagnostics()
    diag["clamped"] = np.zeros(6, dtype=int)  # the engine's -1/0/1 coding is accepted too
    diag["fallback"][:] = False
    fig = concentration_heatmap(diag, ["a", "b", "c"], ["x", "y"], value="rho")
    np.testing.assert_allclose(np.asarray(fig.data[0].z).ravel(), diag["rho"])
    assert len(fig.data) == 1  # nothing clamped, nothing marked
    fig = concentration_heatmap(diag, ["a", "b", "c"], ["x", "y"], value="iterations")
    np.testing.assert_array_equal(np.asarray(fig.data[0].z).ravel(), np.arange(6))
    with pytest.raises(ValueError, match="value must be"):
        concentration_heatmap(diag, ["a", "b", "c"], ["x", "y"], value="K")
    with pytest.raises(ValueError, match="names were given"):
        concentration_heatmap(diag, ["a", "b"], ["x", "y"])
    with pytest.raises(ValueError, match="no learned concentrations"):
        concentration_heatmap(None, ["a"], ["x"])


def test_concentration_heatmap_of_a_fitted_model():
    from heb.nb import NaiveBayes

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 3))
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 3
    diag = NaiveBayes(smoother="heb-m").fit(X, y).concentrations_
    fig = concentration_heatmap(diag, ["f0", "f1", "f2"], ["c0", "c1", "c2"])
    assert np.asarray(fig.data[0].z).shape == (3, 3)
    assert np.isfinite(np.asarray(fig.data[0].z)).all()
    m_fig, rho_fig = concentration_scatters(diag, ["f0", "f1", "f2"])
    assert sum(len(t.x) for t in m_fig.data if t.mode == "markers") == 9


def test_concentration_scatters_axes_states_and_hover():
    diag = diagnostics(3, 4)
    diag["K_f"][5] = 1  # ln(1) = 0 cannot sit on a log axis
    m_fig, rho_fig = concentration_scatters(diag, ["a", "b", "c", "d"], ["p", "q", "r"])
    for fig in (m_fig, rho_fig):
        assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
        points = [trace for trace in fig.data if trace.mode == "markers"]
        names = " | ".join(trace.name for trace in points)
        for state in ("fitted", "m_max", "m_min", "fallback"):
            assert state in names
        for trace in points:
            assert "class %{customdata[0]}, feature %{customdata[1]}" in trace.hovertemplate
            assert np.all(np.asarray(trace.x) > 0) and np.all(np.asarray(trace.y) > 0)
    fitted = next(trace for trace in m_fig.data if trace.name.startswith("fitted"))
    shown = {(row[0], row[1]) for row in fitted.customdata}
    assert ("q", "b") not in shown  # the K_f = 1 pair is left out of the m plot...
    assert "(1 pair(s) with N_c = 0 or K_f = 1" in m_fig.layout.xaxis.title.text
    assert "not shown" not in rho_fig.layout.xaxis.title.text
    in_rho = next(trace for trace in rho_fig.data if trace.name.startswith("fitted"))
    assert ("q", "b") in {(row[0], row[1]) for row in in_rho.customdata}  # ...not of rho's
    expected_x = np.sqrt(diag["N_c"]) * np.log(diag["K_f"])
    chosen = (diag["clamped"] == "none") & ~diag["fallback"] & (expected_x > 0)
    np.testing.assert_allclose(np.sort(fitted.x), np.sort(expected_x[chosen]))
    fit_lines = [trace for trace in m_fig.data if trace.mode == "lines"]
    assert len(fit_lines) == 1 and fit_lines[0].line.dash == "dash"


def test_concentration_scatters_fit_no_slope_through_two_x_values():
    """Two classes give the rho scatter two x values (1/sqrt(N_c)): a 'slope' there only
    joins two clouds (a new user read -0.62 against the paper's +1); the legend says why
    there is no line. The m scatter (x also varies with K_f) keeps its fit."""
    diag = diagnostics(2, 6)
    m_fig, rho_fig = concentration_scatters(diag, [f"f{j}" for j in range(6)], ["p", "q"])
    rho_lines = [trace for trace in rho_fig.data if trace.mode == "lines"]
    assert len(rho_lines) == 1 and "no slope fitted" in rho_lines[0].name
    assert "2 distinct x (needs 3)" in rho_lines[0].name
    assert len(rho_lines[0].name) <= 50  # a longer entry was cut at the figure's edge
    m_lines = [trace for trace in m_fig.data if trace.mode == "lines"]
    assert len(m_lines) == 1 and m_lines[0].name.startswith("log-log fit to fitted pairs")


# ------------------------------------------------------------------ l1 error
def l1_rows() -> list[dict]:
    rows = []
    for K, N in [(10, 200), (50, 1000), (10, 50), (100, 50), (50, 200)]:
        for smoother, factor in [("laplace", 1.0), ("heb-u", 0.8)]:
            rows.append({"K": K, "N": N, "smoother": smoother, "mean": factor * K / N, "std": 0.1})
    return rows


def test_l1_error_figure_lines_sorted_by_ratio_with_shared_ratios_averaged():
    fig = l1_error_figure(l1_rows())
    lines = [trace for trace in fig.data if trace.mode == "lines+markers"]
    assert [trace.name for trace in lines] == ["Laplace", "HEB-U"]
    assert lines[0].line.color == METHOD_COLORS["Laplace"]
    np.testing.assert_allclose(lines[0].x, [0.05, 0.2, 0.25, 2.0])  # 10/200 = 50/1000
    np.testing.assert_allclose(lines[1].y, 0.8 * np.array([0.05, 0.2, 0.25, 2.0]))
    assert "K = 10, N = 200; K = 50, N = 1000" in lines[0].customdata[0]
    (reference,) = [trace for trace in fig.data if trace.mode == "lines"]
    assert reference.line.dash == "dash"
    np.testing.assert_allclose(reference.y, np.sqrt(reference.x))
    assert reference.x[0] == pytest.approx(0.05) and reference.x[-1] == pytest.approx(2.0)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_l1_error_figure_accepts_the_study_and_refuses_bad_rows():
    from heb.synthetic import l1_error_study

    rows = l1_error_study(K_values=(10, 50), N_values=(50, 200), reps=5)
    fig = l1_error_figure(pd.DataFrame(rows))
    assert len(fig.data) == 4 + 1
    with pytest.raises(ValueError, match="K, N, smoother and mean"):
        l1_error_figure([])
    with pytest.raises(ValueError, match="positive"):
        l1_error_figure([{"K": 0, "N": 5, "smoother": "kt", "mean": 0.1}])


# --------------------------------------------------------------- metric bars
def test_metric_bars_means_error_bars_and_colours():
    summary = pd.DataFrame(
        {
            "method": ["Laplace", "heb-m", "new idea"],
            "log_loss_mean": [0.5, 0.4, 0.45],
            "log_loss_std": [0.05, 0.02, np.nan],
        }
    )
    fig = metric_bars(summary, "log_loss")
    (bar,) = fig.data
    assert bar.type == "bar"
    assert list(bar.x) == ["Laplace", "HEB-M", "new idea"]
    np.testing.assert_allclose(bar.y, [0.5, 0.4, 0.45])
    np.testing.assert_allclose(bar.error_y.array, [0.05, 0.02, 0.0])
    assert list(bar.marker.color)[:2] == [METHOD_COLORS["Laplace"], METHOD_COLORS["HEB-M"]]
    assert "Log-loss" in fig.layout.yaxis.title.text
    with pytest.raises(ValueError, match="accuracy_mean"):
        metric_bars(summary, "accuracy")


# -------------------------------------------------------------------- export
def test_to_image_bytes_refuses_unknown_format():
    with pytest.raises(ValueError, match="png"):
        to_image_bytes(go.Figure(), fmt="jpeg")


def test_to_image_bytes_reports_a_missing_browser(monkeypatch):
    def no_browser(*args, **kwargs):
        raise FileNotFoundError("chromium not found")

    monkeypatch.setattr(go.Figure, "to_image", no_browser)
    with pytest.raises(RuntimeError, match="Static export needs Chromium"):
        to_image_bytes(go.Figure(), fmt="png")


def test_export_png_and_svg(tmp_path):
    require_chromium()  # static export; a skip here, a failure in CI
    fig = cd_diagram(RANKS, 1.62, groups=[("HEB-M", "HEB-U"), ("HEB-U", "KT", "Laplace")])
    png = to_image_bytes(fig, fmt="png", scale=1)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(png[16:20], "big")
    assert width == 700  # plotly's default width at scale 1
    svg = to_image_bytes(fig, fmt="svg")
    assert svg.lstrip().startswith(b"<svg") and b"CD = 1.62" in svg
    (tmp_path / "cd.png").write_bytes(png)


def test_fold_boxes_one_box_per_method_in_order():
    folds = pd.DataFrame(
        {
            "method": ["Laplace"] * 3 + ["HEB-M"] * 3,
            "fold": [0, 1, 2] * 2,
            "accuracy": [0.8, 0.82, 0.81, 0.85, 0.86, 0.84],
        }
    )
    fig = fold_boxes(folds, ["HEB-M", "Laplace"], "accuracy")
    assert [trace.type for trace in fig.data] == ["box", "box"]
    assert [trace.name for trace in fig.data] == ["HEB-M", "Laplace"]
    np.testing.assert_allclose(fig.data[0].y, [0.85, 0.86, 0.84])
    assert fig.data[0].marker.color == method_color("HEB-M")
    with pytest.raises(ValueError, match="lack the column"):
        fold_boxes(folds, ["HEB-M"], "brier")


def test_rows_per_category_heatmap_from_a_count_table():
    from heb.counts import CountTable

    X = np.array([[0, 0], [1, 0], [2, 1], [0, 1]])
    table = CountTable.from_codes(X, np.array([0, 0, 1, 1]), 2)
    per_cell = table.rows_per_category()
    np.testing.assert_allclose(per_cell, [[2 / 3, 2 / 2], [2 / 3, 2 / 2]])
    fig = rows_per_category_heatmap(per_cell, ["a", "b"], ["no", "yes"], sparse_cell=5)
    assert fig.data[0].type == "heatmap"
    np.testing.assert_allclose(np.asarray(fig.data[0].z), per_cell)
    assert fig.data[0].zmax == 20 and list(fig.data[0].y) == ["no", "yes"]


def test_rows_per_category_heatmap_keeps_room_for_two_classes_and_turned_names():
    """With two classes and ten long feature names the plot was about 90 px tall and its
    colour bar's labels ran together: the figure grows with the names turned below it."""
    names = [f"feature_number_{i}" for i in range(10)]  # 16 characters
    short = rows_per_category_heatmap(np.ones((2, 10)), [f"f{i}" for i in range(10)], ["a", "b"])
    long = rows_per_category_heatmap(np.ones((2, 10)), names, ["a", "b"])
    assert long.layout.height - short.layout.height == 7 * (16 - 2)
    assert short.layout.height >= 130 + 160


# ---------------------------------------------------------- user text escaped
EVIL = '<a href="https://evil.example/">x</a><b>y</b><img src=z>'


def plotly_strings(value) -> list[str]:
    """Every string inside a figure's JSON form (text, names, ticks, custom data)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in plotly_strings(item)]
    if isinstance(value, (list, tuple, np.ndarray)):
        return [s for item in value for s in plotly_strings(item)]
    return []


def assert_shown_as_text(fig: go.Figure) -> None:
    strings = plotly_strings(fig.to_plotly_json())
    assert not [s for s in strings if "<a " in s or "<b>y" in s or "<img" in s]
    assert any("&lt;a href=" in s and "&lt;b&gt;y&lt;/b&gt;" in s for s in strings)


def test_user_text_in_labels_is_escaped_not_rendered():
    from heb.figures import (
        aode_concentration_heatmap,
        class_balance_figure,
        feature_counts_figure,
    )
    from heb.figures.lessons.evidence import pmf_bars_figure

    names = [EVIL, "plain"]
    diag = diagnostics(2, 2)
    counts = pd.DataFrame({"category": [EVIL, "b"], EVIL: [3, 1], "no": [0, 2], "total": [3, 3]})
    grid = pd.DataFrame([[1.0, 2.0]], index=[EVIL], columns=["c", EVIL])
    figures = [
        rows_per_category_heatmap(np.ones((2, 2)), names, ["yes", EVIL]),
        concentration_heatmap(diag, names, ["yes", EVIL]),
        *concentration_scatters(diag, names, ["yes", EVIL]),
        class_balance_figure([EVIL, "no"], np.array([3, 4])),
        feature_counts_figure(counts, EVIL),
        aode_concentration_heatmap(grid, EVIL),
        cd_diagram({EVIL: 1.0, "Laplace": 2.0}, 0.5),
        reliability_diagram({EVIL: make_curve([2, 3], [0.6, 0.9], [0.5, 0.9])}),
        metric_bars(
            pd.DataFrame({"method": [EVIL], "accuracy_mean": [0.5], "accuracy_std": [0.1]}),
            "accuracy",
        ),
        pmf_bars_figure({"Laplace": np.array([0.5, 0.5])}, [EVIL, "b"])[0],
    ]
    for fig in figures:
        assert_shown_as_text(fig)


def test_feature_counts_figure_groups_many_classes_into_other():
    from heb.figures import feature_counts_figure
    from heb.figures.dataset import MAX_CLASS_SERIES

    rng = np.random.default_rng(0)
    classes = [f"c{i}" for i in range(21)]
    block = rng.integers(0, 9, size=(40, 21))
    counts = pd.DataFrame(block, columns=classes)
    counts.insert(0, "category", [f"v{i}" for i in range(40)])
    counts["total"] = block.sum(axis=1)
    fig = feature_counts_figure(counts, "zip", top_categories=30)
    assert len(fig.data) == MAX_CLASS_SERIES + 1  # the largest classes, then "other"
    other = fig.data[-1]
    assert other.name == f"{21 - MAX_CLASS_SERIES} other classes"
    shown = counts.nlargest(30, "total")
    largest = [classes[i] for i in np.argsort(-block.sum(axis=0), kind="stable")]
    rest = largest[MAX_CLASS_SERIES:]
    np.testing.assert_array_equal(other.y, shown[rest].sum(axis=1))
    colours = [trace.marker.color for trace in fig.data]
    assert len(set(colours)) == len(colours)  # no colour repeats
    assert "30 most frequent of 40" in fig.layout.title.text
    assert fig.layout.legend.yref == "container"  # under the title, never over it


def test_axes_of_few_rows_tick_whole_numbers():
    """An ID column's counts of one had their rows axis ticked 0.2, 0.4, 0.6, 0.8."""
    from heb.figures import feature_counts_figure
    from heb.figures.style import count_axis

    assert count_axis([0, 1, 5]) == {"rangemode": "tozero", "dtick": 1}
    assert count_axis([0, 6]) == {"rangemode": "tozero"}  # plotly's own ticks are whole
    assert count_axis([]) == {"rangemode": "tozero", "dtick": 1}
    ids = pd.DataFrame({"category": ["a", "b"], "x": [1, 0], "y": [0, 1], "total": [1, 1]})
    assert feature_counts_figure(ids, "id").layout.yaxis.dtick == 1
    many = ids.assign(x=[40, 0], total=[40, 1])
    assert feature_counts_figure(many, "id").layout.yaxis.dtick is None
    # many classes stack: the axis reads the stacked heights (3 of one row each: 3 < 6)
    five = pd.DataFrame({f"c{i}": [1] for i in range(5)}).assign(category=["v"], total=[5])
    assert feature_counts_figure(five, "v").layout.yaxis.dtick == 1
    six = pd.DataFrame({f"c{i}": [2] for i in range(5)}).assign(category=["v"], total=[10])
    assert feature_counts_figure(six, "v").layout.yaxis.dtick is None
    small = reliability_diagram({"HEB-M": make_curve([1, 2], [0.6, 0.9], [0.5, 0.9])})
    assert small.layout.yaxis2.dtick == 1 and small.layout.yaxis.dtick is None
    big = reliability_diagram({"HEB-M": make_curve([10, 20], [0.6, 0.9], [0.5, 0.9])})
    assert big.layout.yaxis2.dtick is None


def test_a_log_axis_within_a_decade_or_so_names_whole_numbers():
    """Figure 5's x axis over 30 ... 300 read "3 4 5 6 7 8 9 100 2 3" (plotly's digit
    labels): ticks of its own at 1, 2, 5 of each decade, or at every digit within one."""
    from heb.figures.style import log_axis

    assert log_axis(np.array([30.0, 300.0]))["tickvals"] == [50.0, 100.0, 200.0]
    assert log_axis(np.array([35.0, 60.0]))["tickvals"] == [30.0, 40.0, 50.0, 60.0, 70.0]
    assert log_axis(np.array([0.2, 0.9]))["tickvals"] == pytest.approx([0.2, 0.5, 1.0])
    assert log_axis(np.array([10.0, 1e4]))["dtick"] == 1  # several decades: one a decade
    assert "tickvals" not in log_axis(np.array([30.0, 31.0]))  # too narrow: plotly's own


def test_class_balance_bars_label_counts_with_separators():
    from heb.figures.dataset import class_balance_figure

    fig = class_balance_figure(["no", "yes"], np.array([2270, 312]))
    assert fig.data[0].texttemplate == "%{y:,}"  # 2,270, as the tables write it
