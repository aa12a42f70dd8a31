"""Figures of lesson 6: exact PMF errors, estimated against true posteriors, true calibration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.lessons.parts import curve, hover_bar, lesson_style
from heb.figures.style import TRUTH_COLOR, method_color

__all__ = [
    "BOX_POINT_MARKER",
    "SCATTER_MARKER",
    "pmf_error_figure",
    "posterior_scatter_figure",
    "true_calibration_figure",
]

#: markers per smoother in the posterior scatter
MAX_SCATTER_POINTS = 600
#: the posterior scatter's markers: on a projector the old 5 px dots at opacity 0.45 were
#: a faint haze; larger, mostly opaque dots with a thin white outline stay apart where
#: they crowd (HEB-M's band over Laplace's cloud)
SCATTER_MARKER = {"size": 7, "opacity": 0.8, "line": {"width": 0.5, "color": "white"}}
#: each PMF's dot in the error boxes: outlined in white, so the dots inside a box (drawn
#: in the box's own colour over its half-transparent fill) stand out from it
BOX_POINT_MARKER = {"size": 7, "opacity": 1.0, "line": {"width": 1, "color": "white"}}


def pmf_error_figure(errors: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """Exact l1 error of every estimated class-conditional PMF, one box per smoother."""
    fig = go.Figure()
    for label, part in errors.groupby("label", sort=False):
        fig.add_trace(
            go.Box(
                name=label,
                y=part["l1"],
                boxmean=True,
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker={"color": method_color(label), **BOX_POINT_MARKER},
                line={"color": method_color(label), "width": 2},
            )
        )
    # a short y title, "per (class, feature)" in the figure's title: on a scaled presenter
    # step (1280 x 720) the plot is 111 px tall and the longer title, centred on it, ran
    # up into the figure's title
    fig.update_layout(showlegend=False, yaxis_title="‖θ̂ − θ‖₁")
    fig.update_yaxes(rangemode="tozero")
    title = "Exact l1 error per PMF (dashed: mean)"  # one line on a phone
    return lesson_style(fig, title, 440), errors


def posterior_scatter_figure(
    true_posterior: np.ndarray,
    posteriors: Mapping[str, np.ndarray],
    labels: Sequence[str],
    max_points: int = MAX_SCATTER_POINTS,
) -> tuple[go.Figure, pd.DataFrame]:
    """Estimated against true P(class 1 | x) (every class when C > 2), on the diagonal.

    A seeded sample of the test rows, at most ``max_points`` points per smoother, drawn as
    SVG markers: in headless Chromium WebGL alone took about 0.45 s to start, and the whole
    figure drew in 0.2 - 0.35 s as SVG against 0.48 - 0.54 s as WebGL with 1,500 points.
    """
    n = true_posterior.shape[0]
    columns = [1] if true_posterior.shape[1] == 2 else list(range(true_posterior.shape[1]))
    rows = max(1, max_points // len(columns))
    keep = np.random.default_rng(0).permutation(n)[: min(n, rows)]
    x = true_posterior[np.ix_(keep, columns)].ravel()
    data = pd.DataFrame({"true": x})
    fig = go.Figure()
    for label in labels:
        y = posteriors[label][np.ix_(keep, columns)].ravel()
        data[label] = y
        fig.add_trace(
            go.Scatter(
                name=label,
                x=x,
                y=y,
                mode="markers",
                marker={"color": method_color(label), **SCATTER_MARKER},
            )
        )
    fig.add_trace(curve("perfect", [0, 1], [0, 1], TRUTH_COLOR, width=None, dash="dash"))
    what = "P(class 1 | x)" if len(columns) == 1 else "P(c | x), every class"
    fig.update_xaxes(title=f"true {what}", range=[-0.02, 1.02], constrain="domain")
    # "estimated" alone (the x title names the probability): on a scaled presenter step
    # (1280 x 720) the square plot is 160 px tall, and "estimated P(class 1 | x)" met the legend
    fig.update_yaxes(title="estimated", range=[-0.02, 1.02], scaleanchor="x", constrain="domain")
    return lesson_style(fig, "Estimated vs true posteriors, test rows", 520), data


def true_calibration_figure(summary: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """True calibration error (no label noise) next to the ECE measured from labels."""
    fig = go.Figure()
    colors = [method_color(n) for n in summary["label"]]
    truth = hover_bar(
        "true ECE (from the true P(right | x))", summary["label"], summary["true_ece"], colors
    )
    fig.add_trace(truth)
    fig.add_trace(
        go.Scatter(
            name="ECE measured from labels",
            x=summary["label"],
            y=summary["sample_ece"],
            mode="markers",
            marker={
                "symbol": "line-ew-open",
                "size": 34,
                "color": TRUTH_COLOR,
                "line": {"width": 3},
            },
        )
    )
    fig.update_layout(yaxis_title="top-1 ECE", showlegend=True)
    fig.update_yaxes(rangemode="tozero")
    data = summary[["label", "true_ece", "sample_ece"]]
    return lesson_style(fig, "Calibration error, known exactly", 420), data
