"""Figures of the Compare page: per-method metric bars and per-fold boxes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.style import escape, method_color, method_label, metric_title, style

__all__ = ["metric_bars", "fold_boxes"]


def metric_bars(summary: pd.DataFrame, metric: str, title: str | None = None) -> go.Figure:
    """Per-method mean of a metric with error bars of its standard deviation over folds.

    Parameters
    ----------
    summary : DataFrame
        Columns ``method``, ``<metric>_mean`` and ``<metric>_std`` (one row per method,
        drawn in the frame's order).
    metric : str
        e.g. ``"accuracy"``, ``"log_loss"``.
    title : str, optional

    Returns
    -------
    go.Figure
    """
    mean_col, std_col = f"{metric}_mean", f"{metric}_std"
    missing = [c for c in ("method", mean_col, std_col) if c not in summary.columns]
    if missing:
        raise ValueError(f"The summary lacks column(s) {', '.join(missing)}.")
    if summary.empty:
        raise ValueError("The summary has no rows.")
    methods = [str(m) for m in summary["method"]]
    labels = [escape(method_label(m)) for m in methods]
    means = summary[mean_col].to_numpy(dtype=np.float64)
    stds = np.nan_to_num(summary[std_col].to_numpy(dtype=np.float64), nan=0.0)
    metric_label = metric_title(metric)
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=means,
            error_y={"type": "data", "array": stds, "visible": True, "thickness": 2, "width": 8},
            marker={"color": [method_color(m) for m in methods]},
            customdata=stds,
            hovertemplate=f"%{{x}}<br>{metric_label} %{{y:.4f}} ± %{{customdata:.4f}}"
            "<extra></extra>",
            name=metric_label,
        )
    )
    fig.update_yaxes(title_text=f"{metric_label} (mean ± sd over folds)")
    fig.update_xaxes(title_text="method")
    style(fig, title if title is not None else f"{metric_label} per method", 480)
    fig.update_layout(showlegend=False)
    return fig


def fold_boxes(
    folds: pd.DataFrame, methods: Sequence[str], metric: str, title: str | None = None
) -> go.Figure:
    """Per-fold values of one metric: a box with its points per method.

    Parameters
    ----------
    folds : DataFrame
        One row per (method, fold), with columns ``method`` and ``metric``.
    methods : sequence of str
        The methods, in drawing order.
    metric : str
        e.g. ``"accuracy"``.
    title : str, optional
    """
    if metric not in folds.columns:
        raise ValueError(f"The folds lack the column {metric!r}.")
    metric_label = metric_title(metric)
    fig = go.Figure()
    for method in methods:
        fig.add_trace(
            go.Box(
                y=folds.loc[folds["method"] == method, metric].to_numpy(dtype=np.float64),
                name=escape(method_label(method)),
                boxpoints="all",
                jitter=0.3,
                marker_color=method_color(method),
                showlegend=False,
            )
        )
    fig.update_yaxes(title_text=metric_label)
    style(fig, title if title is not None else f"{metric_label} per fold", 520)
    return fig
