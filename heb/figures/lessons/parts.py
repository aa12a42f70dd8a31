"""What the lesson figures share: projector styling and small trace builders."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from numpy.typing import ArrayLike

from heb import registry
from heb.figures.style import (
    CLASS_PALETTE,
    FIXED_MARGIN_TEMPLATE,
    FONT_SIZE,
    PRIOR_MEAN_COLOR,
    SERIES_COLORS,
    TRUTH_COLOR,
    UNSMOOTHED_COLOR,
    WHATIF_COLOR,
    label_fitted_axes,
    legend_rows,
    method_color,
    method_label,
    title_and_legend_layout,
    title_height,
    wrap_title,
)

__all__ = [
    "LESSON_MARGIN",
    "LESSON_TITLE_LINE",
    "LESSON_TEMPLATE",
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


#: the fixed margins of a lesson figure (pixels): room for the widest numeric tick labels
#: (``-1000``, ``0.035``, ``10^-5``) and an axis title, at the projector sizes
LESSON_MARGIN = {"l": 90, "r": 30, "b": 75}
#: characters per title line: a lesson's figure column is about 480 px wide in a 1280 px
#: window with the sidebar open (a projector's usual width), about 10 px per character
LESSON_TITLE_LINE = 44


def _lesson_template() -> go.layout.Template:
    """plotly_white's light look with the projector sizes of every lesson figure: large
    type, explicit tick, axis-title, note and legend sizes (Streamlit's chart theme shrinks
    them), tick labels standing off their axes (an x and a y label at a corner never
    touch). A template applies them to every axis and note of a figure, subplots and notes
    added later included, in one assignment (setting each on the figure cost ~10 ms).

    Axes do not grow the margins to fit their labels (``automargin`` off): that second
    layout pass was ~40 % of the browser's time to draw a lesson figure, so of every
    slider step. The fixed :data:`LESSON_MARGIN` holds numeric labels; an axis of text
    labels (categories, words, codes of any length) or on the right keeps automargin
    (:func:`heb.figures.style.label_fitted_axes`).
    """
    template = go.layout.Template(FIXED_MARGIN_TEMPLATE)  # its axes: no automargin
    axis = {"tickfont": {"size": FONT_SIZE - 1}, "title": {"font": {"size": FONT_SIZE}}}
    template.layout.update(
        font={"size": FONT_SIZE},
        hoverlabel={"font": {"size": FONT_SIZE}},
        xaxis={**axis, "ticklabelstandoff": 6},
        yaxis={**axis, "ticklabelstandoff": 8},
        annotationdefaults={"font": {"size": FONT_SIZE - 1}},
        legend={"font": {"size": FONT_SIZE - 1}},
    )
    return template


LESSON_TEMPLATE = _lesson_template()


def lesson_style(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    """Projector styling: large type, title then legend on top (never overlapping), light grid.

    ``height`` is the figure's height with a one-row legend; each further row the legend
    is expected to wrap onto (at a lesson column's width) adds its own height.
    ``<br>`` in ``title`` breaks it over lines (for narrow columns); a line longer than
    :data:`LESSON_TITLE_LINE` characters is broken at spaces, and the figure grows by the
    lines added.
    """
    wrapped = wrap_title(title, LESSON_TITLE_LINE)
    height += title_height(wrapped) - title_height(title)
    title = wrapped
    # one update_layout: the template carries the sizes (:data:`LESSON_TEMPLATE`), and
    # the margins, title, legend and the axes fitted to their labels go in the same call
    extra_rows = max(0, legend_rows(fig) - 1)
    layout = title_and_legend_layout(title, height + 28 * extra_rows)
    layout["margin"] |= LESSON_MARGIN
    return fig.update_layout(template=LESSON_TEMPLATE, **layout, **label_fitted_axes(fig))


def readable(fig: go.Figure) -> go.Figure:
    """The lesson figures' sizes (:data:`LESSON_TEMPLATE`) on a figure styled otherwise."""
    return fig.update_layout(template=LESSON_TEMPLATE, **label_fitted_axes(fig))


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
    name: str,
    x: ArrayLike,
    y: ArrayLike,
    color: str,
    aside: str | None = None,
    value_format: str = ".4f",
    **extra,
) -> go.Bar:
    """A bar trace whose hover reads ``x: y`` with ``aside`` (default: the name) beside it,
    ``y`` in the d3 format ``value_format``.

    Values go in the hover, not printed on the bars: a printed value doubled a bar
    chart's drawing time and, on narrow grouped bars, ran into its neighbour's."""
    hover = f"%{{x}}: %{{y:{value_format}}}<extra>" + (name if aside is None else aside)
    hover += "</extra>"
    return go.Bar(name=name, x=x, y=y, marker_color=color, hovertemplate=hover, **extra)


def log_m_axes(fig: go.Figure, y_title: str) -> None:
    """x: the concentration m on a log axis; y: ``y_title``."""
    fig.update_xaxes(type="log", title="concentration m (log scale)")
    fig.update_yaxes(title=y_title)
