"""Reliability diagrams: top-1 accuracy against confidence, with the rows per bin."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from heb.figures.style import (
    NEUTRAL_COLOR,
    SYMBOLS,
    count_axis,
    escape,
    method_color,
    method_label,
    style,
)

__all__ = [
    "CONFIDENCE_AXIS_FROM_ZERO",
    "MIN_BIN_ROWS",
    "RELIABILITY_HEIGHT",
    "accuracy_axis_start",
    "confidence_axis_start",
    "reliability_diagram",
    "reliability_frame",
    "reliability_points",
]

#: the reliability diagram's whole height in pixels, whatever its legend
RELIABILITY_HEIGHT = 520
#: a bin with fewer rows is drawn as a grey hollow point off the curve (too few to judge)
MIN_BIN_ROWS = 5
#: the confidence axis starts at 0 unless every row's confidence is at least this (on two
#: classes the top-1 probability is at least 0.5, and an axis from 0 left half the plot empty)
CONFIDENCE_AXIS_FROM_ZERO = 0.3
#: marker diameters (pixels) of the smallest and the largest bin of a diagram
_MARKER_PX = (6.0, 22.0)
_CURVE_KEYS = ("edges", "count", "confidence", "accuracy", "ece")


def _check_curves(curves) -> None:
    """Refuse anything but a mapping of curve names to curves, in one sentence: a
    ``CVResult``, one curve alone or an array of probabilities failed deep inside."""
    how = (
        "give a dict of method name to curve, such as {'HEB-M': result.reliability('HEB-M')} "
        "or {'HEB-M': heb.metrics.reliability(y, proba)}"
    )
    if not isinstance(curves, Mapping):
        raise ValueError(f"curves must be a dict, got a {type(curves).__name__}: {how}.")
    if set(_CURVE_KEYS) <= set(curves):
        raise ValueError(f"curves is one reliability curve, not a dict of them: {how}.")


def _check_curve(name: str, curve: Mapping) -> dict[str, np.ndarray]:
    if not isinstance(curve, Mapping):
        raise ValueError(
            f"Reliability curve {name!r} is a {type(curve).__name__}, not the dict that "
            "heb.metrics.reliability(y, proba) gives."
        )
    missing = set(_CURVE_KEYS) - set(curve)
    if missing:
        raise ValueError(f"Reliability curve {name!r} lacks {', '.join(sorted(missing))}.")
    edges, count, confidence, accuracy = (
        np.asarray(curve[key], dtype=np.float64) for key in _CURVE_KEYS[:4]
    )
    n_bins = count.size
    if edges.shape != (n_bins + 1,) or confidence.shape != (n_bins,) or accuracy.shape != (n_bins,):
        raise ValueError(
            f"Reliability curve {name!r} needs B+1 edges and B counts, confidences and accuracies."
        )
    ece = float(curve["ece"])
    if not math.isfinite(ece):
        raise ValueError(f"Reliability curve {name!r} has a non-finite ECE.")
    return {
        "edges": edges,
        "count": count,
        "confidence": confidence,
        "accuracy": accuracy,
        "ece": ece,
    }


def confidence_axis_start(curves: Mapping[str, Mapping]) -> float:
    """Where a reliability diagram's confidence axis starts: the lowest edge of a bin that
    holds rows, in any curve, at most 0.5; 0 when that edge is below
    :data:`CONFIDENCE_AXIS_FROM_ZERO` (or no bin holds rows). Top-1 confidences are at least
    1 / C, so on two classes the axis starts at 0.5, however sure the model is."""
    lows = []
    for curve in curves.values():
        held = np.asarray(curve["count"]) > 0
        if held.any():
            lows.append(float(np.asarray(curve["edges"], dtype=np.float64)[:-1][held].min()))
    start = min(min(lows, default=0.0), 0.5)  # never past 0.5, where two classes start
    return start if start >= CONFIDENCE_AXIS_FROM_ZERO else 0.0


def accuracy_axis_start(curves: Mapping[str, Mapping], confidence_start: float) -> float:
    """Where a reliability diagram's accuracy axis starts: where its confidence axis does
    (``confidence_start``), so that the diagonal of perfect calibration keeps its corners
    and the plot no empty band, unless a drawn point lies lower; then at the tenth below
    that point (every point stays in view, the small bins' too)."""
    lows = []
    for curve in curves.values():
        accuracy = np.asarray(curve["accuracy"], dtype=np.float64)
        drawn = (np.asarray(curve["count"]) > 0) & np.isfinite(accuracy)
        drawn &= np.isfinite(np.asarray(curve["confidence"], dtype=np.float64))
        if drawn.any():
            lows.append(float(accuracy[drawn].min()))
    lowest = min(lows, default=confidence_start)
    if lowest >= confidence_start:
        return float(confidence_start)
    return max(0.0, math.floor(round(10 * lowest, 9)) / 10)


def reliability_frame(curves: Mapping[str, Mapping]) -> pd.DataFrame:
    """The numbers of a reliability diagram, one row per (curve, bin).

    Columns: method, bin_low, bin_high, rows, confidence, accuracy, ece.
    """
    _check_curves(curves)
    parts = []
    for name, curve in curves.items():
        checked = _check_curve(name, curve)
        edges = checked["edges"]
        parts.append(
            pd.DataFrame(
                {
                    "method": method_label(name),
                    "bin_low": edges[:-1],
                    "bin_high": edges[1:],
                    "rows": checked["count"],
                    "confidence": checked["confidence"],
                    "accuracy": checked["accuracy"],
                    "ece": checked["ece"],
                }
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _marker_sizes(count: np.ndarray, largest: float) -> np.ndarray:
    """Marker diameters growing with the square root of the rows in each bin."""
    low, high = _MARKER_PX
    return low + (high - low) * np.sqrt(count / max(largest, 1.0))


def reliability_points(
    curves: Mapping[str, Mapping],
    colors: Mapping[str, str] | None = None,
    show_ece: bool = True,
) -> list[go.Scatter]:
    """The points of a reliability diagram (its first row), for a figure of their own.

    The diagonal of perfect calibration, then per curve its accuracy against mean
    confidence, each point sized by its rows (also in its hover); bins of fewer than
    :data:`MIN_BIN_ROWS` rows are grey hollow points off the curve. ``curves``, ``colors``
    and ``show_ece`` as in :func:`reliability_diagram`.
    """
    diagonal, per_curve = _point_traces(_checked(curves), colors, show_ece)
    return [diagonal, *(trace for traces in per_curve for trace in traces)]


def _checked(curves: Mapping[str, Mapping]) -> dict[str, dict[str, np.ndarray]]:
    """Every curve checked (:func:`_check_curve`); at least one is needed."""
    _check_curves(curves)
    if not curves:
        raise ValueError("Give at least one method's reliability curve.")
    return {name: _check_curve(name, curve) for name, curve in curves.items()}


def _point_traces(
    checked: Mapping[str, dict], colors: Mapping[str, str] | None, show_ece: bool
) -> tuple[go.Scatter, list[list[go.Scatter]]]:
    """The diagonal, and per checked curve its points (one trace, two with small bins)."""
    diagonal = go.Scatter(
        x=[0.0, 1.0],
        y=[0.0, 1.0],
        mode="lines",
        name="perfect calibration",
        line={"color": NEUTRAL_COLOR, "dash": "dash", "width": 2},
        hoverinfo="skip",
    )
    per_curve: list[list[go.Scatter]] = []
    largest = max(float(curve["count"].max(initial=0.0)) for curve in checked.values())
    for index, (name, curve) in enumerate(checked.items()):
        color = (colors or {}).get(name) or method_color(name)
        label = escape(method_label(name))
        filled = (curve["count"] > 0) & np.isfinite(curve["confidence"])
        filled &= np.isfinite(curve["accuracy"])
        per_curve.append([])
        for few, trace_name, line in (
            (False, f"{label} (ECE {curve['ece']:.3f})" if show_ece else label, color),
            (True, f"{label}: bins of fewer than {MIN_BIN_ROWS} rows", NEUTRAL_COLOR),
        ):
            keep = filled & ((curve["count"] < MIN_BIN_ROWS) == few)
            if few and not keep.any():
                continue
            x, y, rows = curve["confidence"][keep], curve["accuracy"][keep], curve["count"][keep]
            sizes = _marker_sizes(rows, largest)
            if not keep.any():  # every bin is small: plotly lists a trace of no point nowhere
                x = y = rows = [None]
                sizes = _MARKER_PX[0]
            per_curve[-1].append(
                go.Scatter(
                    x=x,
                    y=y,
                    customdata=rows,
                    mode="markers" if few else "lines+markers",
                    cliponaxis=False,  # a point at accuracy 0 or 1 is drawn whole
                    name=trace_name,
                    legendgroup=label,
                    showlegend=not few,
                    line={"color": line, "width": 3},
                    marker={
                        "size": sizes,
                        "symbol": SYMBOLS[index % len(SYMBOLS)] + ("-open" if few else ""),
                        "color": line,
                    },
                    hovertemplate=f"{trace_name}<br>confidence %{{x:.3f}}<br>"
                    "accuracy %{y:.3f}<br>rows %{customdata:.0f}<extra></extra>",
                )
            )
    return diagonal, per_curve


def reliability_diagram(
    curves: Mapping[str, Mapping],
    title: str = "Reliability diagram",
    colors: Mapping[str, str] | None = None,
    show_ece: bool = True,
) -> go.Figure:
    """Top-1 reliability curves of several methods, with the rows per bin beneath.

    Parameters
    ----------
    curves : dict of str to dict
        Per method, the output of :func:`heb.metrics.reliability`: ``edges`` (B+1,),
        ``count``, ``confidence``, ``accuracy`` (B,) and ``ece``. Empty bins are skipped.
    title : str
    colors : dict of str to str, optional
        Colour per curve name; default (and for names left out) :func:`method_color`.
    show_ece : bool
        Name each curve's ECE in the legend; leave it out where another ECE (say a mean
        over folds) is shown beside the figure, so one place shows one definition.

    Returns
    -------
    go.Figure
        Row 1: accuracy vs mean confidence per method and the diagonal of perfect
        calibration (the accuracy axis starts where the confidence axis does, lower only
        to show a point below it: :func:`accuracy_axis_start`), each point sized by its
        rows (also in its hover); bins of fewer than :data:`MIN_BIN_ROWS` rows are grey
        hollow points off the curve. Row 2: grouped bars of the bin counts (shared x axis),
        each topped by its method's marker symbol of row 1 and the legend (after every
        curve's traces, one scatter per method: :func:`_count_bars`).
    """
    checked = _checked(curves)
    diagonal, per_curve = _point_traces(checked, colors, show_ece)
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.72, 0.28], vertical_spacing=0.05
    )
    fig.add_trace(diagonal, row=1, col=1)
    tips, tallest = [], max(float(curve["count"].max(initial=0.0)) for curve in checked.values())
    for index, (points, (name, curve)) in enumerate(zip(per_curve, checked.items(), strict=True)):
        fig.add_traces(points, rows=1, cols=1)
        bars, tip = _count_bars(name, curve, index, len(checked), tallest, colors)
        fig.add_trace(bars, row=2, col=1)
        tips.append(tip)
    # the symbols over the bars last: each method's traces above keep their places
    fig.add_traces(tips, rows=2, cols=1)
    fig.update_layout(barmode="overlay")  # each bar placed by its own offset
    start = confidence_axis_start(checked)
    fig.update_xaxes(range=[start, 1], row=1, col=1)
    fig.update_xaxes(range=[start, 1], title_text="confidence (top-1 probability)", row=2, col=1)
    low = accuracy_axis_start(checked, start)
    fig.update_yaxes(range=[low - 0.02, 1.02], title_text="accuracy", row=1, col=1)
    counts = np.concatenate([np.ravel(curve["count"]) for curve in checked.values()] or [[]])
    fig.update_yaxes(title_text="rows", **count_axis(counts), row=2, col=1)
    return style(fig, title, RELIABILITY_HEIGHT, grow_with_legend=False)


#: the share of a bin's width its group of bars takes (the rest is the gap between bins)
_GROUP_SHARE = 0.85
#: diameter (pixels) of the symbol over each bar of the rows per bin
_TIP_PX = 10
#: how far over its bar the symbol's centre is, as a share of the tallest bar (about half
#: the symbol in the 95 px of the bars' plot)
_TIP_LIFT = 0.06


def _count_bars(
    name: str,
    curve: Mapping,
    index: int,
    n_curves: int,
    tallest: float,
    colors: Mapping[str, str] | None,
) -> tuple[go.Bar, go.Scatter]:
    """One curve's rows per bin: its bars (the ``index``-th of ``n_curves`` in each bin's
    group) and, just over each bar holding rows, the curve's marker symbol of the first row
    (lifted by :data:`_TIP_LIFT` of ``tallest``, the most rows of any bin of the figure).

    The bars alone told the methods apart by colour and order only (red and green bars side
    by side look alike to a red-green colour-blind reader); the symbol is the one of the
    method's points and legend entry, so each bar names its method without colour. The
    bars are placed by their own ``offset`` and ``width`` (plotly's grouping leaves their
    positions unknown to the figure), so that each symbol sits at its bar's centre.
    """
    color = (colors or {}).get(name) or method_color(name)
    label = escape(method_label(name))
    edges = curve["edges"]
    centre, bin_width = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
    width = bin_width * _GROUP_SHARE / n_curves
    offset = -bin_width * _GROUP_SHARE / 2 + index * width
    bars = go.Bar(
        x=centre,
        y=curve["count"],
        width=width,
        offset=offset,
        name=label,
        legendgroup=label,
        showlegend=False,
        marker={"color": color},
        hovertemplate=f"{label}<br>bin centre %{{x:.2f}}<br>rows %{{y:.0f}}<extra></extra>",
    )
    held = curve["count"] > 0
    rows = curve["count"][held]
    tip = go.Scatter(
        x=(centre + offset + width / 2)[held],
        # just over the bar, not half inside it (where its own colour hid half of it)
        y=rows + _TIP_LIFT * tallest,
        customdata=np.column_stack([centre[held], rows]),
        mode="markers",
        cliponaxis=False,  # the tallest bar's symbol is drawn whole
        name=label,
        legendgroup=label,
        showlegend=False,
        marker={
            "symbol": SYMBOLS[index % len(SYMBOLS)],
            "size": _TIP_PX,
            "color": color,
            "line": {"color": "white", "width": 1},
        },
        hovertemplate=f"{label}<br>bin centre %{{customdata[0]:.2f}}<br>"
        "rows %{customdata[1]:.0f}<extra></extra>",
    )
    return bars, tip
