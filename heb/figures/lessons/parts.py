"""What the lesson figures share: projector styling and small trace builders."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from numpy.typing import ArrayLike

from heb import registry
from heb.figures.style import (
    CLASS_PALETTE,
    FONT_SIZE,
    LIGHT_TEMPLATE,
    PRIOR_MEAN_COLOR,
    SERIES_COLORS,
    TRUTH_COLOR,
    UNSMOOTHED_COLOR,
    WHATIF_COLOR,
    frame_title_and_legend,
    legend_rows,
    method_color,
    method_label,
)

__all__ = [
    "lesson_style",
    "readable",
    "series_color",
    "series_colors",
    "class_color",
    "curve",
    "point",
    "hover_bar",
    "log_m_axes",
]


def lesson_style(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    """Projector styling: large type, title then legend on top (never overlapping), light grid.

    ``height`` is the figure's height with a one-row legend; each further row the legend
    is expected to wrap onto (at a lesson column's width) adds its own height.
    ``<br>`` in ``title`` breaks it over lines (for narrow columns).
    """
    # plotly_white's look through its light copy: the full template cost ~0.1 s of server
    # time per figure (a lesson control builds one or two) and ~4 kB of defaults sent
    fig.update_layout(
        font={"size": FONT_SIZE},
        template=LIGHT_TEMPLATE,
        margin={"l": 70, "r": 30, "b": 60},
        hoverlabel={"font": {"size": FONT_SIZE}},
    )
    extra_rows = max(0, legend_rows(fig) - 1)
    frame_title_and_legend(fig, title, height + 28 * extra_rows)
    return readable(fig)


def readable(fig: go.Figure) -> go.Figure:
    """Explicit tick, axis-title and note sizes (Streamlit's chart theme shrinks them), and
    tick labels standing off their axes, so an x and a y label at a corner never touch."""
    axis_fonts = {"tickfont": {"size": FONT_SIZE - 1}, "title_font": {"size": FONT_SIZE}}
    fig.update_xaxes(**axis_fonts, ticklabelstandoff=6)
    fig.update_yaxes(**axis_fonts, ticklabelstandoff=8)
    fig.update_annotations(font_size=FONT_SIZE - 1)
    fig.update_layout(legend_font_size=FONT_SIZE - 1)
    return fig


def series_color(name: str) -> str:
    """The colour of a lesson series: fixed for the non-methods, else the method's own."""
    fixed = {
        "true p*": TRUTH_COLOR,
        "truth": TRUTH_COLOR,
        "prior mean": PRIOR_MEAN_COLOR,
        "unsmoothed": UNSMOOTHED_COLOR,
    }
    if name in fixed:
        return fixed[name]
    if name.startswith("what-if"):
        return WHATIF_COLOR
    return method_color(name)


def series_colors(names: Sequence[str]) -> dict[str, str]:
    """A colour per name: a method's own colour, else the next unused of ``SERIES_COLORS``."""
    known = {name: method_color(name) for name in names if method_label(name) in registry.METHODS}
    spare = iter(c for c in SERIES_COLORS if c not in set(known.values()))
    return {name: known.get(name) or next(spare, method_color(name)) for name in names}


def class_color(c: int) -> str:
    """The colour of class ``c``."""
    return CLASS_PALETTE[c % len(CLASS_PALETTE)]


def curve(
    name: str,
    x: ArrayLike,
    y: ArrayLike,
    color: str,
    width: float | None = 3,
    dash: str | None = None,
    mode: str = "lines",
    **extra,
) -> go.Scatter:
    """A line trace (``mode`` may add markers); ``extra`` are further ``go.Scatter`` keys."""
    line = {"color": color, "width": width, "dash": dash}
    line = {key: value for key, value in line.items() if value is not None}
    return go.Scatter(name=name, x=x, y=y, mode=mode, line=line, **extra)


def point(name: str, x: float, y: float, color: str, symbol: str) -> go.Scatter:
    """One large marker outlined in white (a chosen m on a curve against m)."""
    marker = {
        "size": 15,
        "color": color,
        "symbol": symbol,
        "line": {"width": 1.5, "color": "white"},
    }
    return go.Scatter(name=name, x=[x], y=[y], mode="markers", marker=marker)


def hover_bar(
    name: str, x: ArrayLike, y: ArrayLike, color: str, aside: str | None = None, **extra
) -> go.Bar:
    """A bar trace whose hover reads ``x: y`` with ``aside`` (default: the name) beside it.

    Values go in the hover, not printed on the bars: a printed value doubled a bar
    chart's drawing time and, on narrow grouped bars, ran into its neighbour's."""
    hover = "%{x}: %{y:.4f}<extra>" + (name if aside is None else aside) + "</extra>"
    return go.Bar(name=name, x=x, y=y, marker_color=color, hovertemplate=hover, **extra)


def log_m_axes(fig: go.Figure, y_title: str) -> None:
    """x: the concentration m on a log axis; y: ``y_title``."""
    fig.update_xaxes(type="log", title="concentration m (log scale)")
    fig.update_yaxes(title=y_title)
