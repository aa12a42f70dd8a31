"""A footer line on an exported figure: which data and settings it shows."""

from __future__ import annotations

import plotly.graph_objects as go

from heb.figures.style import NEUTRAL_COLOR, escape

__all__ = ["FOOTER_HEIGHT", "with_footer"]

#: pixels the footer adds below the figure
FOOTER_HEIGHT = 34


def with_footer(fig: go.Figure, text: str) -> go.Figure:
    """A copy of ``fig`` with ``text`` (escaped) in small grey type under the plot.

    The figure grows by :data:`FOOTER_HEIGHT` pixels, so the plot keeps its size; the
    figure on screen is left unchanged.
    """
    out = go.Figure(fig)
    if not text:
        return out
    height = out.layout.height or 450
    bottom = out.layout.margin.b if out.layout.margin.b is not None else 80
    out.add_annotation(
        text=escape(text),
        x=0,
        xref="paper",
        xanchor="left",
        y=0,
        yref="container",
        yanchor="bottom",
        showarrow=False,
        font={"size": 11, "color": NEUTRAL_COLOR},
        align="left",
    )
    out.update_layout(height=height + FOOTER_HEIGHT, margin={"b": bottom + FOOTER_HEIGHT})
    return out
