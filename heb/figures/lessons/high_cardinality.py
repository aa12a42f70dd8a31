"""Figures of lesson 4: the paper's Figure 2 with your (K, N), HEB-U's reduction, Corollary 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.l1_study import l1_error_figure
from heb.figures.lessons.parts import curve, lesson_style, readable
from heb.figures.style import FONT_SIZE, INK, NEUTRAL_COLOR, TRUTH_COLOR, escape, method_color
from heb.lessons.high_cardinality import SEPARATION

__all__ = [
    "SEPARATION",
    "VERTEX_AXIS_TITLE_SIZE",
    "VERTEX_TICK_SIZE",
    "theorem1_figure",
    "reduction_figure",
    "vertex_figure",
]

#: the Corollary 1 figure's axis titles and y tick labels (pixels): a step above the
#: lesson template's (16 and 15), which read small on a projector in its half-column plot
VERTEX_AXIS_TITLE_SIZE = FONT_SIZE + 2
VERTEX_TICK_SIZE = FONT_SIZE


def theorem1_figure(
    grid: pd.DataFrame, chosen: pd.DataFrame | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """The paper's Figure 2 (:func:`heb.figures.l1_error_figure`) plus the chosen (K, N)."""
    fig = l1_error_figure(
        grid[["K", "N", "smoother", "mean", "std"]], title="Mean l1 error against K/N (log-log)"
    )
    if chosen is not None and len(chosen):
        labels = [escape(label) for label in chosen["label"]]
        fig.add_trace(  # one trace for every smoother's star (a trace each cost a redraw)
            go.Scatter(
                name="your K/N",
                x=chosen["K_over_N"].to_numpy(),
                y=chosen["mean"].to_numpy(),
                customdata=np.column_stack([chosen["K"], chosen["N"], labels]),
                mode="markers",
                marker={
                    "size": 16,
                    "symbol": "star",
                    "color": [method_color(label) for label in chosen["label"]],
                    "line": {"width": 1, "color": TRUTH_COLOR},
                },
                showlegend=False,
                hovertemplate="K = %{customdata[0]}, N = %{customdata[1]}<br>"
                "%{customdata[2]}: %{y:.3f}<extra></extra>",
            )
        )
    data = (
        grid if chosen is None else pd.concat([grid.assign(yours=False), chosen.assign(yours=True)])
    )
    return readable(fig), data.reset_index(drop=True)


def reduction_figure(reduction: pd.DataFrame, height: int = 400) -> tuple[go.Figure, pd.DataFrame]:
    """HEB-U's l1 error reduction over Laplace per K/N (from ``theorem1_reduction``).

    One bar per distinct K/N (settings sharing a ratio are averaged), on a categorical
    axis; bars from K/N = :data:`SEPARATION` on, where the paper reports the separation,
    are coloured, and the legend says which colour is which (a new user could not tell).
    Each value is in its bar's hover (printed on twelve narrow bars, they touched).
    ``height`` with a one-row legend (:func:`lesson_style`).
    """
    by_ratio = reduction.groupby("K_over_N", as_index=False)["reduction"].mean()
    percent = 100 * by_ratio["reduction"].to_numpy()
    ratios = by_ratio["K_over_N"].to_numpy()
    labels = np.array([f"{r:g}" for r in ratios])
    fig = go.Figure()
    for name, wide, color in (
        (f"K/N < {SEPARATION:g}", False, NEUTRAL_COLOR),
        (f"K/N ≥ {SEPARATION:g}", True, method_color("HEB-U")),
    ):
        chosen = (ratios >= SEPARATION) == wide
        fig.add_trace(
            go.Bar(
                name=name,
                x=labels[chosen].tolist(),
                y=percent[chosen],
                marker_color=color,
                hovertemplate="K/N = %{x}: %{y:.1f}%<extra></extra>",
            )
        )
    fig.add_hline(y=0, line_color=TRUTH_COLOR)
    # one category per ratio in K/N order, each bar centred on its own (one trace has it)
    fig.update_xaxes(
        type="category", title="K / N", categoryorder="array", categoryarray=labels.tolist()
    )
    fig.update_yaxes(title="l1 error reduction (%)")
    fig.update_layout(barmode="overlay", showlegend=True)
    data = by_ratio.assign(reduction_percent=percent)
    return lesson_style(fig, "HEB-U's l1 error<br>below Laplace's (%)", height), data


def vertex_figure(vertex: pd.DataFrame, height: int = 400) -> tuple[go.Figure, pd.DataFrame]:
    """Corollary 1: Laplace's and HEB's l1 error at p* = e1 against K/N (log-log), the
    legend above the plot (never over its ticks); ``height`` with a one-row legend."""
    fig = go.Figure()
    for name, column, method in (
        ("Laplace: 2(K−1)/(N+K)", "laplace_l1", "Laplace"),
        ("HEB-U: m = m_min", "heb_l1", "HEB-U"),
    ):
        x, y = vertex["K_over_N"], vertex[column]
        fig.add_trace(
            curve(name, x, y, method_color(method), mode="lines+markers", marker={"size": 8})
        )
    # on a projector the half-column plot's axis titles and ticks read small: larger
    # titles and y ticks in the ink colour; the K/N ticks keep the lesson size, since at
    # 16 px "0.01" met "0.1" in the 241 px wide plot of a 1024 px presenter screen
    title = {"title_font": {"size": VERTEX_AXIS_TITLE_SIZE, "color": INK}}
    fig.update_xaxes(type="log", title="K / N", tickfont={"color": INK}, **title)
    # one label per decade: a tall presenter plot added 2 and 5 in every decade
    fig.update_yaxes(
        type="log",
        title="l1 error at p* = e₁",
        exponentformat="power",
        dtick=1,
        tickfont={"size": VERTEX_TICK_SIZE, "color": INK},
        **title,
    )
    N = int(vertex["N"].iloc[0])
    # the legend above the plot, as on every lesson figure: inside it, it covered a tick label
    # short lines: the figure is half a column wide ("all 5000 draws" lost its last letter)
    lesson_style(fig, f"Corollary 1: all {N:,}<br>draws in one category", height)
    return fig, vertex
