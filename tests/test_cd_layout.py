"""The critical-difference diagram reads from 2 to 20 methods: no label, tick number or
CD note overlaps another, none is cut at the figure's edge, and the method labels sit in
the margins (clear of the axis, the bars and the other leader lines), at the exported
figure's own width and at the narrower widths of the app's column.

The geometry is that plotly draws: annotation boxes from their anchors, the margins and
the axis ranges, a character taken as :data:`heb.figures.cd.CD_CHAR_EM` em wide (Verdana's
average; the fonts plotly falls back to are narrower)."""

from __future__ import annotations

import html
from itertools import combinations

import numpy as np
import pytest

from heb import registry
from heb.figures import cd_diagram
from heb.figures.cd import CD_CHAR_EM
from heb.figures.style import FONT_SIZE

#: the app moves a figure's plot down by up to this much, below its modebar
MODEBAR_DROP = 32


def _names(k: int) -> list[str]:
    """``k`` method names, the registry's longest first (the hardest to place)."""
    names = sorted(registry.METHODS, key=len, reverse=True)
    extra = [f"ExtraLongMethodName{i}" for i in range(max(0, k - len(names)))]
    return (names + extra)[:k]


def _ranks(k: int, seed: int, spread: float) -> dict[str, float]:
    """Average ranks of ``k`` methods over 12 datasets: ``spread`` 1 for methods that
    differ, near 0 for ranks bunched in the middle."""
    rng = np.random.default_rng(seed)
    skill = np.arange(k) * spread + rng.normal(0, 1, (12, k))
    ranks = np.argsort(np.argsort(skill, axis=1), axis=1) + 1.0
    return dict(zip(_names(k), ranks.mean(axis=0), strict=True))


def _boxes(fig, width: float, drop: float = 0) -> list[tuple[str, float, float, float, float]]:
    """(text, left, right, top, bottom) of every annotation in pixels of the figure."""
    layout = fig.layout
    height, margin = layout.height, layout.margin
    left, right, top, bottom = margin.l, margin.r, margin.t + drop, margin.b
    (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
    plot_w, plot_h = width - left - right, height - top - bottom
    assert plot_w > 0 and plot_h > 0
    out = []
    for note in layout.annotations:
        font = note.font.size or FONT_SIZE
        text = html.unescape(note.text)
        w, h = len(text) * CD_CHAR_EM * font, 1.25 * font
        cx = left + (note.x - x0) / (x1 - x0) * plot_w + (note.xshift or 0)
        cy = top + (y1 - note.y) / (y1 - y0) * plot_h
        lo = {"right": cx - w, "left": cx}.get(note.xanchor, cx - w / 2)
        hi = {"bottom": cy - h, "top": cy}.get(note.yanchor, cy - h / 2)
        out.append((text, lo, lo + w, hi, hi + h))
    return out


def _check(fig, width: float, drop: float) -> None:
    boxes = _boxes(fig, width, drop)
    layout = fig.layout
    (x0, x1), k = layout.xaxis.range, len(fig.data)
    plot_w = width - layout.margin.l - layout.margin.r

    def px(rank: float) -> float:
        return layout.margin.l + (rank - x0) / (x1 - x0) * plot_w

    # every line (axis, bars, leaders' vertical parts) lies between the first and the last
    # rank: a label left of the leftmost leader end or right of the rightmost is clear
    left_end = min(trace.x[2] for trace in fig.data)
    right_end = max(trace.x[2] for trace in fig.data)
    assert left_end < 1 and right_end > k
    for text, lo, hi, top, bottom in boxes:
        assert 0 <= lo and hi <= width, f"{text!r} is cut at the edge ({lo:.0f}..{hi:.0f})"
        assert 0 <= top and bottom <= layout.height, f"{text!r} is cut at the top or bottom"
        if text.endswith(")") and not text.startswith("CD"):
            assert hi <= px(left_end), f"{text!r} reaches into the lines"
        elif text.startswith("("):
            assert lo >= px(right_end), f"{text!r} reaches into the lines"
    for (a, a_lo, a_hi, a_top, a_bottom), (b, b_lo, b_hi, b_top, b_bottom) in combinations(
        boxes, 2
    ):
        apart = a_hi <= b_lo or b_hi <= a_lo or a_bottom <= b_top or b_bottom <= a_top
        assert apart, f"{a!r} overlaps {b!r} at {width} px"


@pytest.mark.parametrize("k", range(2, 21))
@pytest.mark.parametrize("spread", [1.0, 0.05])
def test_cd_labels_never_overlap_from_2_to_20_methods(k, spread):
    ranks = _ranks(k, seed=k, spread=spread)
    fig = cd_diagram(ranks, cd=2.0, title="Accuracy: average ranks (CD = 2.00)")
    own = fig.layout.width
    assert 700 <= own <= 1400  # the exported figure's width
    for width in (own, 700, 1100):
        for drop in (0, MODEBAR_DROP):
            _check(fig, width, drop)


def test_the_export_gives_a_long_axis_room_and_the_height_grows_with_the_methods():
    """17 methods: wider than plotly's 700 px default, so each rank has its 40 px; the
    height grows with the label rows; past 10 methods the labels are a little smaller."""
    figs = {k: cd_diagram(_ranks(k, seed=1, spread=1.0), cd=2.0) for k in (4, 10, 17, 20)}
    assert figs[4].layout.width == 700
    heights = [figs[k].layout.height for k in (4, 10, 17, 20)]
    assert heights == sorted(heights) and heights[0] < heights[-1]
    layout = figs[17].layout
    x0, x1 = layout.xaxis.range
    plot_w = layout.width - layout.margin.l - layout.margin.r
    assert plot_w / (x1 - x0) >= 40
    sizes = {note.font.size for note in layout.annotations}
    assert sizes == {FONT_SIZE - 2}
    assert {note.font.size for note in figs[4].layout.annotations} == {FONT_SIZE}
    numbers = [note.text for note in layout.annotations if note.text.isdigit()]
    assert numbers == [str(i) for i in range(1, 18, 2)]  # every other rank numbered
