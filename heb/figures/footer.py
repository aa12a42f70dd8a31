"""A footer on an exported figure: which data and settings it shows."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from heb.figures.style import CHAR_EM, NEUTRAL_TEXT_COLOR, escape

__all__ = ["FOOTER_LINE_HEIGHT", "FOOTER_LINE_CHARS", "footer_lines", "with_footer"]

#: pixels per footer line, and the most characters on one line (it wraps at " · ")
FOOTER_LINE_HEIGHT = 16
FOOTER_LINE_CHARS = 80
_SEPARATOR = " · "
#: plotly's sizes where a figure leaves them unset: width, left / right margin, font
_PLOTLY_WIDTH, _PLOTLY_SIDE_MARGIN, _PLOTLY_FONT = 700, 80, 12


def _list_lines(part: str, width: int) -> list[str]:
    """A part longer than ``width`` (a list of methods) broken after its commas; a word
    longer than the line keeps its own line."""
    lines: list[str] = []
    for item in part.split(", "):
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += ", " + item
        else:
            if lines:
                lines[-1] += ","
            lines.append(item)
    return lines


def footer_lines(text: str, width: int = FOOTER_LINE_CHARS) -> list[str]:
    """``text`` broken at its ``" · "`` separators into lines of at most ``width`` characters
    (a longer single part is broken after its commas; it was cut off at the figure's edge)."""
    lines: list[str] = []
    for part in text.split(_SEPARATOR):
        if lines and len(lines[-1]) + len(_SEPARATOR) + len(part) <= width:
            lines[-1] += _SEPARATOR + part
        elif len(part) > width:
            lines += _list_lines(part, width)
        else:
            lines.append(part)
    return lines


def _text_values(values) -> list[str]:
    """The text coordinates of a trace (category labels); none where they are numbers."""
    if values is None:
        return []
    items = list(values)
    return [str(v) for v in items] if items and all(isinstance(v, str) for v in items) else []


def _bottom_label_room(fig: go.Figure) -> int:
    """Pixels the tick labels of ``fig``'s bottom axes that grow the margin to fit them
    (``automargin``) may take beyond one row of type: their longest label at the angle
    plotly turns it to (``tickangle``, else 0, 30 or 90 degrees, the first at which the
    labels do not run together).

    The footer is placed from the bottom margin the figure asks for; labels that grew the
    margin beyond it pushed the plot up and the footer with it, over the labels (a
    heatmap's column names turned 30 degrees ran through it).
    """
    layout = fig.layout
    margin = layout.margin
    width = layout.width or _PLOTLY_WIDTH
    left = margin.l if margin.l is not None else _PLOTLY_SIDE_MARGIN
    right = margin.r if margin.r is not None else _PLOTLY_SIDE_MARGIN
    plot_width = max(width - left - right, 1)
    room = 0
    for name in layout:
        if not name.startswith("xaxis"):
            continue
        axis = layout[name]
        if not axis.automargin or axis.side == "top" or axis.visible is False:
            continue
        ref = "x" + name[len("xaxis") :]
        labels = [str(t) for t in axis.ticktext] if axis.ticktext is not None else []
        if not labels:
            for trace in fig.data:
                if (getattr(trace, "xaxis", None) or "x") == ref:
                    labels += _text_values(getattr(trace, "x", None))
        if not labels:
            continue
        size = axis.tickfont.size or layout.font.size or _PLOTLY_FONT
        longest = CHAR_EM * size * max(map(len, labels))
        if isinstance(axis.tickangle, int | float):
            angle = abs(float(axis.tickangle))
        else:  # plotly's autotickangles: 0, else 30, else 90 degrees
            spacing = plot_width / len(dict.fromkeys(labels))
            angle = 0.0 if longest <= spacing else 30.0 if spacing >= 2 * size else 90.0
        radians = math.radians(angle)
        extent = longest * math.sin(radians) + size * math.cos(radians)
        room = max(room, math.ceil(extent - size))
    return room


def with_footer(fig: go.Figure, text: str) -> go.Figure:
    """A copy of ``fig`` with ``text`` (escaped, wrapped) in small grey type under it.

    The figure grows by the footer's height (and the room its bottom axis's labels may
    take: :func:`_bottom_label_room`), so the plot keeps its size; the footer starts at the
    figure's left edge, that many pixels under the plot's bottom edge. The figure on
    screen is left unchanged.
    """
    out = go.Figure(fig)
    if not text:
        return out
    lines = footer_lines(text)
    height = out.layout.height or 450
    margin = out.layout.margin
    left = margin.l if margin.l is not None else 80
    bottom = margin.b if margin.b is not None else 80  # plotly's default where unset
    room = _bottom_label_room(out)
    labels = bottom + room  # the plot's bottom edge to its axis labels' reach
    extra = room + FOOTER_LINE_HEIGHT * len(lines) + 10
    out.add_annotation(
        text="<br>".join(escape(line) for line in lines),
        x=0,
        xref="paper",
        xanchor="left",
        xshift=-(left - 10),  # from the plot's left edge back to the figure's
        # pixels under the plot's bottom edge, past its axis's labels and title: placed
        # from the plot's height (a share of it), the footer rose into the labels where a
        # legend had pushed the plot down or the labels had grown the margin
        y=0,
        yref="paper",
        yanchor="top",
        yshift=-(labels + 2),
        showarrow=False,
        font={"size": 11, "color": NEUTRAL_TEXT_COLOR},
        align="left",
    )
    # a title or legend placed in container units (a share of the height) keeps its pixels
    # from the top: scaled with the taller figure, the legend slid down into the plot
    kept = {}
    for name in ("title", "legend"):
        part = out.layout[name]
        if part.yref == "container" and part.y is not None:
            kept[name] = {"y": 1.0 - (1.0 - part.y) * height / (height + extra)}
    out.update_layout(height=height + extra, margin={"b": bottom + extra}, **kept)
    return out
