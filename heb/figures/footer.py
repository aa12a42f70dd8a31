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
    margin = out.layout.margin
    top = margin.t if margin.t is not None else 100
    bottom = (margin.b if margin.b is not None else 80) + FOOTER_HEIGHT
    plot_height = max(height - top - bottom + FOOTER_HEIGHT, 1)
    out.add_annotation(
        text=escape(text),
        x=0,
        xref="paper",
        xanchor="left",
        # paper units: the plot area is 0..1, the figure's bottom edge lies ``bottom`` px below
        y=-(bottom - 6) / plot_height,
        yref="paper",
        yanchor="bottom",
        showarrow=False,
        font={"size": 11, "color": NEUTRAL_COLOR},
        align="left",
    )
    out.update_layout(height=height + FOOTER_HEIGHT, margin={"b": bottom})
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
