"""A footer on an exported figure: which data and settings it shows."""

from __future__ import annotations

import plotly.graph_objects as go

from heb.figures.style import NEUTRAL_TEXT_COLOR, escape

__all__ = ["FOOTER_LINE_HEIGHT", "FOOTER_LINE_CHARS", "footer_lines", "with_footer"]

#: pixels per footer line, and the most characters on one line (it wraps at " · ")
FOOTER_LINE_HEIGHT = 16
FOOTER_LINE_CHARS = 80
_SEPARATOR = " · "


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


def with_footer(fig: go.Figure, text: str) -> go.Figure:
    """A copy of ``fig`` with ``text`` (escaped, wrapped) in small grey type under it.

    The figure grows by the footer's height, so the plot keeps its size; the footer starts
    at the figure's left edge. The figure on screen is left unchanged.
    """
    out = go.Figure(fig)
    if not text:
        return out
    lines = footer_lines(text)
    extra = FOOTER_LINE_HEIGHT * len(lines) + 10
    height = out.layout.height or 450
    margin = out.layout.margin
    top = margin.t if margin.t is not None else 100
    left = margin.l if margin.l is not None else 80
    bottom = (margin.b if margin.b is not None else 80) + extra
    plot_height = max(height - top - bottom + extra, 1)
    out.add_annotation(
        text="<br>".join(escape(line) for line in lines),
        x=0,
        xref="paper",
        xanchor="left",
        xshift=-(left - 10),  # from the plot's left edge back to the figure's
        # paper units: the plot area is 0..1, the figure's bottom edge lies ``bottom`` px below
        y=-(bottom - 6) / plot_height,
        yref="paper",
        yanchor="bottom",
        showarrow=False,
        font={"size": 11, "color": NEUTRAL_TEXT_COLOR},
        align="left",
    )
    out.update_layout(height=height + extra, margin={"b": bottom})
    return out
