"""Figures of lesson 5: double counting a feature, and the remedies side by side."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from heb import registry
from heb.figures.lessons.parts import curve, lesson_style, readable, series_colors, valued_bar
from heb.figures.reliability import reliability_diagram, reliability_frame
from heb.figures.style import (
    NEUTRAL_COLOR,
    POST_HOC_COLORS,
    TRUTH_COLOR,
    WHATIF_COLOR,
    method_color,
    metric_title,
)

__all__ = ["double_counting_figure", "reliability_figure", "calibration_bars_figure"]


def double_counting_figure(sweep: Mapping, chosen: int) -> tuple[go.Figure, pd.DataFrame]:
    """Log-odds scale and ECE against the number of copies of one feature."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14)
    k = sweep["copies"]
    one_copy = k * sweep["log_odds_scale"][0]
    fig.add_trace(curve("k × one copy", k, one_copy, NEUTRAL_COLOR, 10, opacity=0.5), row=1, col=1)
    fig.add_trace(
        go.Scatter(
            name="mean |log-odds| of the copies",
            x=k,
            y=sweep["log_odds_scale"],
            mode="markers",
            marker={"color": method_color("Laplace"), "size": 11},
        ),
        row=1,
        col=1,
    )
    ece = curve(
        "ECE (top-1)", k, sweep["ece"], WHATIF_COLOR, mode="lines+markers", marker={"size": 9}
    )
    fig.add_trace(ece, row=1, col=2)
    for col in (1, 2):
        fig.add_vline(x=chosen, line_dash="dash", line_color=TRUTH_COLOR, row=1, col=col)
    fig.update_xaxes(title="copies k of the feature", dtick=1)
    fig.update_yaxes(title="the feature's |log-odds| (nats)", row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title="calibration error (ECE)", row=1, col=2, rangemode="tozero")
    columns = (
        "copies",
        "log_odds_scale",
        "ece",
        "log_loss",
        "accuracy",
        "brier",
        "mean_confidence",
    )
    data = pd.DataFrame({name: sweep[name] for name in columns})
    title = "Duplicating a feature: the same evidence counted k times"
    return lesson_style(fig, title, 400), data


def reliability_figure(curves: Mapping[str, Mapping], title: str) -> tuple[go.Figure, pd.DataFrame]:
    """A reliability diagram (:func:`heb.figures.reliability_diagram`), projector-sized.

    Curves named after a method keep its colour; the others (``"1 copy"``,
    ``"Laplace + temperature"``) get distinct colours from ``SERIES_COLORS``.
    """
    fig = reliability_diagram(dict(curves), title=title, colors=series_colors(list(curves)))
    return readable(fig), reliability_frame(curves)


def calibration_bars_figure(
    table: pd.DataFrame, metric: str = "ece"
) -> tuple[go.Figure, pd.DataFrame]:
    """Grouped bars: upstream model on x, post-hoc calibration as colour."""
    name = metric_title(metric)
    fig = go.Figure()
    for post, part in table.groupby("calibration", sort=False):
        label = "no post-hoc" if post == "none" else post
        color = POST_HOC_COLORS.get(post, NEUTRAL_COLOR)
        fig.add_trace(valued_bar(label, part["model"], part[metric], color))
    fig.update_layout(barmode="group", yaxis_title=name, xaxis_title="model")
    fig.update_yaxes(rangemode="tozero")
    direction = "higher" if registry.metric(metric).higher_is_better else "lower"
    title = f"{name} on the test rows ({direction} is better)"
    return lesson_style(fig, title, 420), table
