"""Figures of lesson 2: the Dirichlet posterior mean, and its error over alpha.

No text annotations sit inside these plots (the prior mean, the unsmoothed estimate and
the named rules are legend entries), so nothing overlaps whatever K, N and alpha are.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.lessons.parts import curve, lesson_style
from heb.figures.style import (
    PRIOR_MEAN_COLOR,
    TRUTH_COLOR,
    UNSMOOTHED_COLOR,
    WHATIF_COLOR,
    method_color,
)

__all__ = ["dirichlet_figure", "alpha_sweep_figure"]

#: room (decades of alpha) left of the smallest and right of the largest alpha: the first
#: x tick label (0.001) then sits clear of the y axis's 0 instead of touching it
ALPHA_AXIS_PAD = 0.2


def dirichlet_figure(
    p_true: np.ndarray, counts: np.ndarray, posterior: np.ndarray, alpha: float
) -> tuple[go.Figure, pd.DataFrame]:
    """True PMF, unsmoothed estimate and the Dirichlet(alpha) posterior mean, by category.

    The estimates are bars; the truth is a step line over them, level across each
    category's width, so it shows at K = 200 as at K = 2.

    With N = 0 there is no unsmoothed estimate (n / N is 0 / 0): its bars are left out.
    """
    K = p_true.size
    N = counts.sum()
    x = np.arange(1, K + 1)
    data = pd.DataFrame({"category": x, "p_true": p_true, "count": counts, "posterior": posterior})
    fig = go.Figure()
    if N > 0:
        data["unsmoothed"] = counts / N
        fig.add_trace(
            go.Bar(name="unsmoothed n / N", x=x, y=counts / N, marker_color=UNSMOOTHED_COLOR)
        )
    fig.add_trace(
        go.Bar(name=f"posterior mean, α = {alpha:g}", x=x, y=posterior, marker_color=WHATIF_COLOR)
    )
    prior = curve("prior mean 1/K", [0.5, K + 0.5], [1 / K, 1 / K], PRIOR_MEAN_COLOR, 2, "dot")
    fig.add_trace(prior)
    # the truth outlines each category's whole width, drawn over the estimates' bars: as a
    # third bar it was a sliver among 600 at K = 200, not to be seen
    edges = np.concatenate([[0.5], x, [K + 0.5]])
    outline = np.concatenate([p_true[:1], p_true, p_true[-1:]])
    truth = curve("true p*", edges, outline, TRUTH_COLOR, 2, line_shape="hvh", legendrank=1)
    fig.add_trace(truth)
    fig.update_layout(
        barmode="group",
        bargap=0.15,
        xaxis_title="category (sorted by true probability)",
        yaxis_title="probability",
    )
    # whole categories only (plotly's own ticks read 0.5, 1, 1.5, 2, 2.5 at K = 2), at
    # most about ten of them
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10**9) if s * 10 >= K)
    fig.update_xaxes(tick0=0, dtick=step, range=[0.5, K + 0.5])
    title = f"K = {K} categories, N = {int(N)} observations"
    if N == 0:
        title += ": the estimate is the prior mean"
    return lesson_style(fig, title, 400), data


def alpha_sweep_figure(
    sweep: Mapping, alpha: float, named: Mapping[str, float], best: float | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """Expected l1 error and l1 bias against alpha (log axis), named rules marked.

    ``best`` is the alpha of least expected error, ``None`` when every alpha gives the
    same estimate (N = 0): the title then says so instead of naming a trade-off.
    """
    alphas = np.asarray(sweep["alpha"], dtype=np.float64)
    fig = go.Figure()
    fig.add_trace(curve("expected l1 error", alphas, sweep["expected_l1"], WHATIF_COLOR))
    fig.add_trace(curve("l1 bias of the mean", alphas, sweep["bias_l1"], TRUTH_COLOR, 2, "dash"))
    if best is not None:
        unsmoothed = [sweep["unsmoothed_l1"]] * 2
        ends = [alphas.min(), alphas.max()]
        fig.add_trace(curve("unsmoothed n / N", ends, unsmoothed, UNSMOOTHED_COLOR, 3, "dot"))
    marks_y = np.interp(np.log(list(named.values())), np.log(alphas), sweep["expected_l1"])
    for (name, value), y in zip(named.items(), marks_y, strict=True):
        fig.add_trace(
            go.Scatter(
                name=f"{name}: α = {value:g}",
                x=[value],
                y=[y],
                mode="markers",
                marker={
                    "size": 13,
                    "color": method_color(name),
                    "line": {"width": 1.5, "color": "white"},
                },
            )
        )
    fig.add_vline(x=alpha, line_color=WHATIF_COLOR, line_dash="dot")
    ends = np.log10([alphas.min(), alphas.max()])
    fig.update_xaxes(
        type="log",
        dtick=1,
        range=[ends[0] - ALPHA_AXIS_PAD, ends[1] + ALPHA_AXIS_PAD],
        title="pseudo-count α (log scale)",
    )
    fig.update_yaxes(title="l1 distance to the true PMF", rangemode="tozero")
    title = (
        "Smaller α: less bias, more variance"
        if best is not None
        else "N = 0: every α gives the same estimate, 1/K"
    )
    data = pd.DataFrame(
        {
            "alpha": alphas,
            "expected_l1": sweep["expected_l1"],
            "bias_l1": sweep["bias_l1"],
            "unsmoothed_l1": sweep["unsmoothed_l1"],
        }
    )
    return lesson_style(fig, title, 380), data
