"""The critical-difference diagram (Demšar 2006) of average ranks over datasets.

Its layout is worked out in pixels, so that it reads from 2 to 20 methods: the y axis
counts one unit per pixel of the plot (the rank axis at 0, the CD bracket above, the group
bars and the label rows below), the labels sit in margins sized for their text, and the
figure's own width (that of an exported PNG or SVG) gives the axis room for its ranks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from heb.figures.style import (
    CHAR_EM,
    FONT_SIZE,
    INK,
    PLOT_GAP,
    escape,
    method_color,
    method_label,
    style,
    title_height,
)

__all__ = ["CD_CHAR_EM", "cd_diagram", "cd_label_font", "cd_min_width"]

#: the width of one character of a label, in em, for the margins that hold the labels
CD_CHAR_EM = CHAR_EM
#: pixels of the plot per rank of the exported figure's axis, at least (its width follows)
_PX_PER_RANK = 40
#: pixels per rank a narrow screen keeps (:func:`cd_min_width`): the rank numbers stay
#: apart, and the whole diagram fits a 1024 px window with the sidebar open (535 px)
_MIN_PX_PER_RANK = 30
#: the exported figure's width: plotly's default at least, and at most this
_MIN_WIDTH, _MAX_WIDTH = 700, 1400
#: heights above the axis (pixels): major and minor ticks, the CD bracket, the plot's top
_TICK_PX, _MINOR_TICK_PX, _CD_PX, _WHISKER_PX, _TOP_PX = 9, 5, 62, 6, 100
#: below the axis: the first group bar, the step between bar levels, the bars' gap to the
#: first label row (pixels)
_BAR_TOP_PX, _BAR_STEP_PX, _BAR_GAP_PX = 22, 12, 18
#: pixels between a leader line's end and its label, and the label and the figure's edge
_LABEL_GAP_PX, _EDGE_PX = 6, 12
#: more methods than this get tick labels on every other rank (labels are smaller from 9:
#: :func:`cd_label_font`)
_MANY_METHODS = 10


def cd_label_font(k: int) -> int:
    """Font size (pixels) of the method labels and tick labels for ``k`` methods."""
    return FONT_SIZE if k <= 8 else FONT_SIZE - 2


def _group_levels(spans: Sequence[tuple[float, float]], gap: float) -> list[int]:
    """Greedy levels for bars drawn in order: a bar goes on the first level it fits."""
    level_ends: list[float] = []
    levels = []
    for start, end in spans:
        for level, last_end in enumerate(level_ends):
            if start > last_end + gap:
                level_ends[level] = end
                levels.append(level)
                break
        else:
            level_ends.append(end)
            levels.append(len(level_ends) - 1)
    return levels


def _checked_ranks(
    avg_ranks: Mapping[str, float], cd: float
) -> tuple[list[str], np.ndarray, float]:
    if not hasattr(avg_ranks, "items"):
        raise ValueError(
            "avg_ranks must map each method to its average rank (a dict, or the Series "
            f"benchmark_tables(...)['avg_ranks']), got a {type(avg_ranks).__name__}."
        )
    if "avg_ranks" in avg_ranks and "cd" in avg_ranks:
        raise ValueError(
            "avg_ranks is the whole dict of benchmark_tables; pass its parts: "
            "cd_diagram(tables['avg_ranks'], tables['cd'], tables['groups'])."
        )
    # items(), not iteration: a pandas Series iterates its values, not its method names
    pairs = list(avg_ranks.items())
    names = [str(name) for name, _ in pairs]
    ranks = np.asarray([float(rank) for _, rank in pairs], dtype=np.float64)
    k = len(names)
    if k < 2:
        raise ValueError("A critical-difference diagram needs at least two methods.")
    if not np.all(np.isfinite(ranks)):
        raise ValueError("Average ranks must be finite numbers.")
    if ranks.min() < 1 - 1e-9 or ranks.max() > k + 1e-9:
        raise ValueError(f"Average ranks must lie between 1 and the number of methods ({k}).")
    cd = float(cd)
    if not (math.isfinite(cd) and cd >= 0):
        raise ValueError(f"The critical difference must be a finite non-negative number, got {cd}.")
    return names, ranks, cd


def _line(x0: float, x1: float, y0: float, y1: float, name: str, width: float = 2) -> dict:
    return {
        "type": "line",
        "x0": x0,
        "x1": x1,
        "y0": y0,
        "y1": y1,
        "name": name,
        "line": {"width": width, "color": INK},
        "xref": "x",
        "yref": "y",
        "layer": "above",
    }


def _axis_shapes(low: float, high: float, cd: float, labelled: np.ndarray) -> list[dict]:
    """The rank axis with its ticks (long where labelled), and the CD bracket above it."""
    shapes = [_line(low, high, 0, 0, "axis")]
    step = 1.0 if high - low >= _MANY_METHODS else 0.5
    for tick in np.arange(low, high + step / 2, step):
        size = _TICK_PX if np.isclose(labelled, tick).any() else _MINOR_TICK_PX
        shapes.append(_line(tick, tick, 0, size, "tick"))
    shapes += [
        _line(low, low + cd, _CD_PX, _CD_PX, "cd"),
        _line(low, low, _CD_PX - _WHISKER_PX, _CD_PX + _WHISKER_PX, "cd"),
        _line(low + cd, low + cd, _CD_PX - _WHISKER_PX, _CD_PX + _WHISKER_PX, "cd"),
    ]
    return shapes


def _text_px(text: str, font: int) -> int:
    """A generous width of one line of plain text (pixels)."""
    return math.ceil(CD_CHAR_EM * font * len(text))


def cd_diagram(
    avg_ranks: Mapping[str, float],
    cd: float,
    groups: Sequence[Sequence[str]] | None = None,
    title: str = "",
    font_scale: float = 1.0,
) -> go.Figure:
    """Critical-difference diagram (Demšar 2006) of average ranks.

    Parameters
    ----------
    avg_ranks : dict of str to float, or pandas Series
        Average rank of each method (1 = best), such as ``benchmark_tables(...)["avg_ranks"]``.
    cd : float
        Nemenyi critical difference, drawn as a bracket above the axis.
    groups : list of tuple of str, optional
        Methods not significantly different, one thick bar each (single methods get no
        bar). Default: :func:`heb.stats.nemenyi_groups` of the ranks and ``cd``.
    title : str
    font_scale : float
        Times :func:`cd_label_font` for the labels, the rank numbers and the CD (the
        presenter mode's larger type); the label rows and margins grow with them.

    Returns
    -------
    go.Figure
        A rank axis from 1 (left) to k; the better half of the methods labelled on the
        left, the rest on the right, each label on a row of its own in a margin sized for
        the longest label of its side and joined to its rank by an elbow (leader) line;
        group bars stacked below the axis so that no two overlap. The height grows with
        the label rows; the width (an export's) gives the axis at least 40 pixels a rank.
        From 9 methods the labels are 2 px smaller; past 10 only every other rank is
        numbered.
    """
    names, ranks, cd = _checked_ranks(avg_ranks, cd)
    k = len(names)
    if groups is None:
        from heb.stats import nemenyi_groups  # the engine's test, only needed here

        groups = [tuple(names[i] for i in group) for group in nemenyi_groups(ranks, cd)]
    rank_of = dict(zip(names, ranks, strict=True))
    unknown = {str(member) for group in groups for member in group} - set(rank_of)
    if unknown:
        raise ValueError(f"Groups name methods without a rank: {', '.join(sorted(unknown))}.")

    if not (math.isfinite(font_scale) and 0.5 <= font_scale <= 3):
        raise ValueError(f"font_scale must lie between 0.5 and 3, got {font_scale}.")
    font = round(cd_label_font(k) * font_scale)
    row_px = 2 * font  # label rows: twice the type size apart
    low, high = 1.0, float(k)
    stub = 0.05 * (high - low) + 0.3  # leaders reach this far past the axis (ranks)
    x_left, x_right = low - stub, high + stub
    x_high = max(x_right, low + cd + 0.1)  # a CD longer than the axis is drawn whole
    spans = sorted(
        (
            (min(rank_of[str(m)] for m in group), max(rank_of[str(m)] for m in group), group)
            for group in groups
            if len(set(group)) >= 2
        ),
        key=lambda span: (span[0], span[1]),
    )
    levels = _group_levels([(s, e) for s, e, _ in spans], gap=0.1)
    n_levels = max(levels) + 1 if levels else 0
    first_row = -(_BAR_TOP_PX + _BAR_STEP_PX * max(n_levels - 1, 0) + _BAR_GAP_PX + font / 2)
    n_left = math.ceil(k / 2)
    bottom = first_row - row_px * (max(n_left, k - n_left) - 1) - font

    step = 2 if k > _MANY_METHODS else 1
    labelled = np.arange(low, high + 0.5, step)
    shapes = _axis_shapes(low, high, cd, labelled)
    for (start, end, group), level in zip(spans, levels, strict=True):
        y = -(_BAR_TOP_PX + _BAR_STEP_PX * level)
        name = "group: " + ", ".join(str(m) for m in group)
        shapes.append(_line(start - 0.05, end + 0.05, y, y, name, width=6))
    fig = go.Figure()
    fig.update_layout(shapes=shapes)
    annotations = [
        {
            "x": tick,
            "y": _TICK_PX + 3,
            "text": str(int(tick)),
            "yanchor": "bottom",
            "font": {"size": font},
        }
        for tick in labelled
    ]
    annotations.append(
        {
            "x": low + cd / 2,
            "y": _CD_PX + _WHISKER_PX + 2,
            "text": f"CD = {cd:.2f}",
            "yanchor": "bottom",
            "font": {"size": font},
        }
    )
    widths = {True: 0, False: 0}  # the longest label of each side (pixels)
    for position, index in enumerate(np.argsort(ranks, kind="stable")):
        name, rank = names[index], float(ranks[index])
        on_left = position < n_left
        y = first_row - row_px * (position if on_left else k - 1 - position)
        end = x_left if on_left else x_right
        plain = method_label(name)
        label = f"{plain} ({rank:.2f})" if on_left else f"({rank:.2f}) {plain}"
        widths[on_left] = max(widths[on_left], _text_px(label, font))
        shown = escape(plain)
        fig.add_trace(
            go.Scatter(
                x=[rank, rank, end],
                y=[0, y, y],
                mode="lines+markers",
                name=shown,
                line={"color": method_color(name), "width": 2.5},
                marker={"size": [10, 0, 0], "color": method_color(name)},
                showlegend=False,
                hovertemplate=f"{shown}: mean rank {rank:.3f}<extra></extra>",
                cliponaxis=False,
            )
        )
        annotations.append(
            {
                "x": end,
                "y": y,
                "text": escape(label),
                "xanchor": "right" if on_left else "left",
                "xshift": -_LABEL_GAP_PX if on_left else _LABEL_GAP_PX,
                "yanchor": "middle",
                "font": {"size": font},
            }
        )
    for note in annotations:
        note.update(xref="x", yref="y", showarrow=False)
    # a right label left of the plot's right edge (the CD bracket longer than the axis)
    # needs that much less margin
    margin_l = _EDGE_PX + _LABEL_GAP_PX + widths[True]
    margin_r = _EDGE_PX + _LABEL_GAP_PX + widths[False]
    plot_px = math.ceil(_PX_PER_RANK * (x_high - x_left))
    width = min(max(_MIN_WIDTH, margin_l + margin_r + plot_px), _MAX_WIDTH)
    top = title_height(title) + PLOT_GAP
    margin_b = 10
    fig.update_layout(annotations=annotations)
    fig.update_xaxes(visible=False, range=[x_left, x_high], fixedrange=True)
    fig.update_yaxes(visible=False, range=[bottom, _TOP_PX], fixedrange=True)
    style(fig, title, top + math.ceil(_TOP_PX - bottom) + margin_b, grow_with_legend=False)
    fig.update_layout(
        showlegend=False,
        width=width,
        margin={"l": margin_l, "r": margin_r, "b": margin_b},
        plot_bgcolor="white",
    )
    return fig


def cd_min_width(fig: go.Figure) -> int:
    """The narrowest width (pixels) at which a :func:`cd_diagram` stays readable: its label
    margins and 30 px per rank of its axis.

    Its margins are fixed pixels sized for the labels; a phone's 356 px column squeezed the
    rank axis to 26 px, the numbers 1 to 5 printed over each other. A page draws it at
    least this wide and lets a narrower column scroll.
    """
    low, high = fig.layout.xaxis.range
    margin = fig.layout.margin
    return math.ceil(margin.l + margin.r + _MIN_PX_PER_RANK * (high - low))
