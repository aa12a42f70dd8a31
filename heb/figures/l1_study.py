"""The paper's Figure 2: mean l1 error of each smoother against K / N (synthetic study)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.style import INK, SYMBOLS, escape, log_axis, method_color, method_label, style

__all__ = ["l1_error_figure"]


def l1_error_figure(
    rows: Sequence[Mapping] | pd.DataFrame, title: str = "Mean ℓ1 error against K / N"
) -> go.Figure:
    """The paper's Figure 2: mean l1 error of each smoother against K / N, log-log.

    Parameters
    ----------
    rows : list of dict or DataFrame
        :func:`heb.synthetic.l1_error_study` output: keys K, N, smoother, mean, std.
    title : str

    Returns
    -------
    go.Figure
        One line per smoother through its errors sorted by K / N (settings with the same
        K / N are averaged; the hover lists them), and the dashed sqrt(K / N) reference.
    """
    frame = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows)
    missing = {"K", "N", "smoother", "mean"} - set(frame.columns)
    if frame.empty or missing:
        raise ValueError(
            "l1_error_figure needs rows with K, N, smoother and mean "
            "(the output of heb.synthetic.l1_error_study)."
        )
    if (frame["K"] <= 0).any() or (frame["N"] <= 0).any():
        raise ValueError("K and N must be positive.")
    frame = frame.assign(ratio=frame["K"] / frame["N"])
    frame["setting"] = "K = " + frame["K"].astype(str) + ", N = " + frame["N"].astype(str)
    averaged = (
        frame.groupby(["smoother", "ratio"], sort=False)
        .agg(mean=("mean", "mean"), settings=("setting", "; ".join))
        .reset_index()
        .sort_values("ratio", kind="stable")
    )
    fig = go.Figure()
    for index, smoother in enumerate(frame["smoother"].unique()):
        part = averaged[averaged["smoother"] == smoother]
        label = escape(method_label(smoother))
        fig.add_trace(
            go.Scatter(
                x=part["ratio"].to_numpy(),
                y=part["mean"].to_numpy(),
                customdata=part["settings"].to_numpy(),
                mode="lines+markers",
                name=label,
                line={"color": method_color(smoother), "width": 3},
                marker={"size": 10, "symbol": SYMBOLS[index % len(SYMBOLS)]},
                hovertemplate=f"{label}<br>K/N = %{{x:.3g}}<br>mean ℓ1 error %{{y:.3f}}"
                "<br>%{customdata}<extra></extra>",
            )
        )
    grid = np.geomspace(frame["ratio"].min(), frame["ratio"].max(), 50)
    fig.add_trace(
        go.Scatter(
            x=grid,
            y=np.sqrt(grid),
            mode="lines",
            name="√(K/N) reference",
            line={"color": INK, "dash": "dash", "width": 2},
            hoverinfo="skip",
        )
    )
    fig.update_xaxes(title_text="K / N (categories per training row)", **log_axis(grid))
    fig.update_yaxes(
        title_text="mean ℓ1 error",
        **log_axis(np.concatenate([averaged["mean"].to_numpy(), np.sqrt(grid)])),
    )
    return style(fig, title, 520)
