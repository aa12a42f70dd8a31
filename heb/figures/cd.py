"""The critical-difference diagram (Demšar 2006) of average ranks over datasets."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from heb.figures.style import (
    FONT_SIZE,
    INK,
    escape,
    method_color,
    method_label,
    style,
    title_height,
)

__all__ = ["cd_diagram"]

#: where the CD bracket sits above the rank axis (data units)
_CD_Y = 1.05
#: vertical layout of the group bars and the label rows below the axis (data units)
_BAR_TOP, _BAR_STEP, _ROW_STEP = -0.45, 0.32, 0.55


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
    names = [str(name) for name in avg_ranks]
    ranks = np.asarray([float(avg_ranks[name]) for name in avg_ranks], dtype=np.float64)
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


def _axis_shapes(low: float, high: float, cd: float, ticks: np.ndarray) -> list[dict]:
    """The rank axis with its ticks, and the CD bracket above it."""
    shapes = [_line(low, high, 0, 0, "axis")]
    for tick in ticks:
        size = 0.2 if float(tick).is_integer() else 0.11
        shapes.append(_line(tick, tick, 0, size, "tick"))
    shapes += [
        _line(low, low + cd, _CD_Y, _CD_Y, "cd"),
        _line(low, low, _CD_Y - 0.1, _CD_Y + 0.1, "cd"),
        _line(low + cd, low + cd, _CD_Y - 0.1, _CD_Y + 0.1, "cd"),
    ]
    return shapes


def cd_diagram(
    avg_ranks: Mapping[str, float],
    cd: float,
    groups: Sequence[Sequence[str]] | None = None,
    title: str = "",
) -> go.Figure:
    """Critical-difference diagram (Demšar 2006) of average ranks.

    Parameters
    ----------
    avg_ranks : dict of str to float
        Average rank of each method (1 = best).
    cd : float
        Nemenyi critical difference, drawn as a bracket above the axis.
    groups : list of tuple of str, optional
        Methods not significantly different, one thick bar each (single methods get no
        bar). Default: :func:`heb.stats.nemenyi_groups` of the ranks and ``cd``.
    title : str

    Returns
    -------
    go.Figure
        A rank axis from 1 (left) to k; the better half of the methods labelled on the
        left, the rest on the right, each joined to its rank by an elbow line; group bars
        stacked below the axis so that no two overlap.
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

    low, high = 1.0, float(k)
    pad = 0.12 * (high - low) + 0.2
    x_left, x_right = low - pad, high + pad
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
    first_row = _BAR_TOP - _BAR_STEP * n_levels - 0.2
    n_left = math.ceil(k / 2)
    bottom = first_row - _ROW_STEP * (max(n_left, k - n_left) - 1) - 0.4

    ticks = np.arange(low, high + 0.25, 0.5)
    shapes = _axis_shapes(low, high, cd, ticks)
    for (start, end, group), level in zip(spans, levels, strict=True):
        y = _BAR_TOP - _BAR_STEP * level
        name = "group: " + ", ".join(str(m) for m in group)
        shapes.append(_line(start - 0.05, end + 0.05, y, y, name, width=7))
    fig = go.Figure()
    fig.update_layout(shapes=shapes)
    annotations = [
        {"x": tick, "y": 0.26, "text": str(int(tick)), "yanchor": "bottom", "showarrow": False}
        for tick in ticks
        if float(tick).is_integer()
    ]
    annotations.append(
        {
            "x": low + cd / 2,
            "y": _CD_Y + 0.14,
            "text": f"CD = {cd:.2f}",
            "yanchor": "bottom",
            "showarrow": False,
        }
    )
    longest = 0
    for position, index in enumerate(np.argsort(ranks, kind="stable")):
        name, rank = names[index], float(ranks[index])
        on_left = position < n_left
        y = first_row - _ROW_STEP * (position if on_left else k - 1 - position)
        end = x_left + 0.05 if on_left else x_right - 0.05
        shown = escape(method_label(name))
        label = f"{shown} ({rank:.2f})" if on_left else f"({rank:.2f}) {shown}"
        longest = max(longest, len(method_label(name)) + 7)
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
            )
        )
        annotations.append(
            {
                "x": end - 0.04 if on_left else end + 0.04,
                "y": y,
                "text": label,
                "xanchor": "right" if on_left else "left",
                "yanchor": "middle",
                "showarrow": False,
            }
        )
    for note in annotations:
        note.update(xref="x", yref="y")
    fig.update_layout(annotations=annotations)
    fig.update_xaxes(visible=False, range=[x_left - 0.1, max(x_right, low + cd) + 0.1])
    fig.update_yaxes(visible=False, range=[bottom, _CD_Y + 0.55])
    label_px = 16 + int(0.6 * FONT_SIZE * longest)
    style(fig, title, int(70 * (_CD_Y + 0.55 - bottom)) + title_height(title) + 60)
    fig.update_layout(
        showlegend=False,
        margin={"l": label_px, "r": label_px, "b": 10},
        plot_bgcolor="white",
    )
    return fig
