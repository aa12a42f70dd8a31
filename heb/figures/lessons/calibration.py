"""Figures of lesson 5: double counting a feature, and the remedies side by side."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from heb import registry
from heb.figures.lessons.parts import curve, hover_bar, lesson_style, series_colors
from heb.figures.reliability import (
    confidence_axis_start,
    reliability_frame,
    reliability_points,
)
from heb.figures.style import (
    NEUTRAL_COLOR,
    POST_HOC_COLORS,
    TRUTH_COLOR,
    WHATIF_COLOR,
    WHATIF_TEXT_COLOR,
    method_color,
    metric_title,
)

__all__ = ["double_counting_figure", "reliability_figure", "calibration_bars_figure"]


def double_counting_figure(sweep: Mapping, chosen: int) -> tuple[go.Figure, pd.DataFrame]:
    """Log-odds scale (left axis) and ECE (right axis) against the number of copies of one
    feature, on one plot (two side-by-side plots drew twice the axes and lines). With more
    than two classes there is no one log-odds: the scale is the spread (max - min over
    classes) of the copies' log-likelihoods, and the labels say so."""
    fig = go.Figure()
    k = sweep["copies"]
    binary = sweep.get("n_classes", 2) == 2
    scale = "|log-odds|" if binary else "log-likelihood spread over classes"
    one_copy = k * sweep["log_odds_scale"][0]
    fig.add_trace(curve("k × one copy", k, one_copy, NEUTRAL_COLOR, 10, opacity=0.5))
    fig.add_trace(
        go.Scatter(
            name=f"mean {scale} (left)",
            x=k,
            y=sweep["log_odds_scale"],
            mode="markers",
            marker={"color": method_color("Laplace"), "size": 11},
        )
    )
    ece = curve(
        "ECE (right)",
        k,
        sweep["ece"],
        WHATIF_COLOR,
        mode="lines+markers",
        marker={"size": 9},
        yaxis="y2",
    )
    fig.add_trace(ece)
    # named: a presenter's class asked what the bare dashed line was. The points rise with
    # k, so the label goes where they are low: above on the right of a small k, below on
    # the left of a large one
    fig.add_vline(
        x=chosen,
        line_dash="dash",
        line_color=TRUTH_COLOR,
        annotation_text=f"your k = {chosen}",
        annotation_position="top right" if chosen <= k.max() / 2 else "bottom left",
    )
    fig.update_xaxes(title="copies k of the feature", dtick=1)
    fig.update_yaxes(
        # short titles and legend names: on a presenter's 1280 x 720 step a two-line title,
        # a three-row legend and an axis title taller than the plot left it 95 px
        title="|log-odds| (nats)" if binary else "spread (nats)",
        rangemode="tozero",
    )
    fig.update_layout(
        yaxis2={
            "title": {"text": "ECE, top-1", "font": {"color": WHATIF_TEXT_COLOR}},
            "overlaying": "y",
            "side": "right",
            "rangemode": "tozero",
            "showgrid": False,
            # its own round ticks: plotly.js syncs an overlaying axis's ticks to the left
            # axis's grid by default, which labelled the ECE 0, 0.071, 0.142; at most four,
            # as the left axis's (five crowded a presenter's 1280 x 720 plot)
            "tickmode": "auto",
            "nticks": 4,
            "tickfont": {"color": WHATIF_TEXT_COLOR},
            # up to 3 decimals, trailing zeros cut: ".2f" printed a 0.015 step as 0.01, 0.03
            "tickformat": ".3~f",
            "automargin": True,
        }
    )
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
    title = "k copies: one evidence counted k times"
    lesson_style(fig, title, 400)
    fig.update_layout(margin_r=80)  # room for the right axis's labels
    return fig, data


def reliability_figure(curves: Mapping[str, Mapping], title: str) -> tuple[go.Figure, pd.DataFrame]:
    """A reliability diagram on one plot: the points of :func:`heb.figures.reliability_diagram`
    (each sized by its bin's rows, the rows in its hover and the CSV) without its second
    plot of bars (a second plot and a bar trace per curve made each redraw dearer, and
    building the whole diagram to keep its first row cost the server as much again).

    Curves named after a method keep its colour; the others (``"1 copy"``,
    ``"Laplace + temperature"``) get distinct colours from ``SERIES_COLORS``.
    """
    fig = go.Figure(reliability_points(dict(curves), colors=series_colors(list(curves))))
    start = confidence_axis_start(curves)  # 0, or 0.5 on two classes (a margin beside it)
    fig.update_xaxes(
        title="confidence (top-1 probability; point size: rows)",
        range=[start - 0.02 if start else 0.0, 1.02],
    )
    fig.update_yaxes(title="accuracy", range=[0, 1.02])
    return lesson_style(fig, title, 440), reliability_frame(curves)


def calibration_bars_figure(
    table: pd.DataFrame, metric: str = "ece"
) -> tuple[go.Figure, pd.DataFrame]:
    """Grouped bars: upstream model on x, post-hoc calibration as colour."""
    name = metric_title(metric)
    fig = go.Figure()
    for post, part in table.groupby("calibration", sort=False):
        label = "no post-hoc" if post == "none" else post
        color = POST_HOC_COLORS.get(post, NEUTRAL_COLOR)
        fig.add_trace(hover_bar(label, part["model"], part[metric], color))
    # the metric named once, on its axis, and no "model" under the models' names: on a
    # presenter's 1280 x 720 step the two-line title and that axis title left the bars 100 px
    fig.update_layout(barmode="group", yaxis_title=name)
    fig.update_yaxes(rangemode="tozero")
    direction = "higher" if registry.metric(metric).higher_is_better else "lower"
    title = f"Remedies, test rows ({direction} is better)"
    return lesson_style(fig, title, 420), table
