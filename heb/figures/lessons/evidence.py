"""Figures of lesson 3: the evidence curve l(m), the smoothed PMFs, the held-out check.

"Laplace" is always (n + 1) / (N + K) with the uniform prior mean: on the evidence curve
it is marked only when the lesson's prior mean is uniform (with the pooled marginal, m = K
on that curve is not Laplace), and on the held-out figure it sits on its own uniform-t
curve unless the lesson's t is uniform too; the HEB series carries its smoother's name
(HEB-M / HEB-U).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.lessons.parts import (
    curve,
    hover_bar,
    lesson_style,
    log_m_axes,
    point,
    series_color,
)
from heb.figures.style import (
    NEUTRAL_COLOR,
    NEUTRAL_TEXT_COLOR,
    TRUTH_COLOR,
    WHATIF_COLOR,
    escape_all,
    method_color,
)
from heb.lessons.common import M_MAX, M_MIN, format_m
from heb.lessons.evidence import LAPLACE, EvidenceCurve, format_loss

__all__ = ["evidence_figure", "pmf_bars_figure", "heldout_figure"]

_SYMBOLS = {"heb": "circle", LAPLACE: "square", "what-if m": "diamond"}


#: the share of a figure's y range left empty above its highest line, for the "clamp"
#: labels: at the top of the plot they crossed a line drawn there (the held-out figure's
#: log K, an evidence curve rising to m_max)
_LABEL_ROOM = 0.25


def _shade_clamp(
    fig: go.Figure, m_grid: np.ndarray, m_min: float, m_max: float, drawn: Sequence[float]
) -> None:
    """Grey the m outside the clamp [m_min, m_max], each side labelled "clamp".

    The labels sit at the top of the plot, in room made above the highest of the values
    ``drawn`` (every y of the figure's lines and points), so no line runs through them.
    """
    for lo, hi in ((float(np.min(m_grid)), m_min), (m_max, float(np.max(m_grid)))):
        fig.add_vrect(x0=lo, x1=hi, fillcolor=NEUTRAL_COLOR, opacity=0.18, line_width=0)
    for edge, anchor in ((m_min, "right"), (m_max, "left")):
        fig.add_annotation(
            x=np.log10(edge),
            y=1,
            yref="paper",
            yanchor="top",
            text="clamp",
            showarrow=False,
            xanchor=anchor,
            font={"color": NEUTRAL_TEXT_COLOR},
        )
    values = np.asarray(drawn, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size:
        low, high = float(values.min()), float(values.max())
        span = high - low if high > low else max(abs(high), 1.0)
        fig.update_yaxes(range=[low - 0.04 * span, high + _LABEL_ROOM * span])


def evidence_figure(
    evidence: EvidenceCurve, heb: str, uniform_prior: bool, m_whatif: float | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """l(m) against m (log axis), the clamp shaded, HEB's m, the what-if m (and Laplace's K).

    Laplace's m = K is marked only when ``uniform_prior``: only then is it a point of this
    curve.
    """
    fig = go.Figure()
    hover = "m = %{x:.3g}<br>l(m) = %{y:.3f}<extra></extra>"
    color = method_color(heb)
    values = np.asarray(evidence.log_evidence, dtype=np.float64)
    flat = bool(evidence.flat)
    if flat:  # l(m) does not depend on m: its rounding noise drew a zig-zag of 1e-15
        values = np.full_like(values, values[0])
    fig.add_trace(curve("evidence l(m)", evidence.m, values, color, hovertemplate=hover))
    points = [(f"{heb}'s m", evidence.m_hat, color, _SYMBOLS["heb"])]
    if uniform_prior:
        K = float(evidence.n_categories)
        points.append((f"{LAPLACE}: m = K", K, method_color(LAPLACE), _SYMBOLS[LAPLACE]))
    if m_whatif is not None:
        points.append(("what-if m", m_whatif, WHATIF_COLOR, _SYMBOLS["what-if m"]))
    heights = [evidence.log_evidence_at(m) for _, m, _, _ in points]
    for (name, m, mark_color, symbol), height in zip(points, heights, strict=True):
        fig.add_trace(point(f"{name} = {format_m(m)}", m, height, mark_color, symbol))
    _shade_clamp(fig, evidence.m, evidence.m_min, evidence.m_max, [*values, *heights])
    log_m_axes(fig, "log evidence l(m)")
    if flat:  # plotly's range about a constant had ticks of 13 digits
        fig.update_yaxes(range=[values[0] - 1.0, values[0] + 1.0], tickformat=".2f")
    data = pd.DataFrame({"m": evidence.m, "log_evidence": values})
    title = "Type-II ML: the m that makes these counts most probable"
    return lesson_style(fig, title, 420), data


def pmf_bars_figure(
    pmfs: Mapping[str, np.ndarray], category_labels: Sequence[str]
) -> tuple[go.Figure, pd.DataFrame]:
    """Grouped bars of several PMFs of one pair (unsmoothed, Laplace, HEB, prior, what-if).

    Category labels are user data (a dataset's values): escaped.
    """
    labels = escape_all(category_labels)
    fig = go.Figure()
    for name, values in pmfs.items():
        fig.add_trace(hover_bar(name, labels, values, series_color(name)))
    fig.update_layout(barmode="group", xaxis_title="category", yaxis_title="probability")
    fig.update_xaxes(type="category")
    data = pd.DataFrame({"category": [str(label) for label in category_labels]})
    for name, values in pmfs.items():
        data[name] = values
    return lesson_style(fig, "The smoothed PMF of this pair", 400), data


def heldout_figure(
    heldout: Mapping,
    marks: Mapping[str, tuple[float, float]],
    heb: str,
    uniform_curve: Mapping | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """Held-out log-loss against m (log axis), a uniform guess's log K, marked m values.

    ``marks`` maps a name (``"<heb>'s m"``, ``"Laplace"``, ``"what-if m"``) to
    (m, held-out log-loss); Laplace is scored with its own uniform prior mean. Each mark
    sits on the curve of its prior mean: with ``uniform_curve`` (Laplace's held-out curve,
    the uniform t, when the lesson's t is not uniform) Laplace is drawn on that dashed
    curve, not on ``heldout``'s; without it the lesson's t is uniform and Laplace is the
    point m = K of ``heldout``.
    """
    fig = go.Figure()
    hover = "m = %{x:.3g}<br>log-loss = %{y:.4f}<extra></extra>"
    m_grid, losses = heldout["m"], heldout["log_loss"]
    # each curve named in the legend (a new user could not tell the solid from the dashed)
    fig.add_trace(curve(f"held-out, {heb}'s t", m_grid, losses, TRUTH_COLOR, hovertemplate=hover))
    data = pd.DataFrame({"m": m_grid, "heldout_log_loss": losses})
    if uniform_curve is not None:
        fig.add_trace(
            curve(
                "held-out, uniform t",
                uniform_curve["m"],
                uniform_curve["log_loss"],
                method_color(LAPLACE),
                2,
                "dash",
                hovertemplate=f"{LAPLACE}'s uniform t<br>" + hover,
            )
        )
        data["heldout_log_loss_uniform_t"] = uniform_curve["log_loss"]
    guess = heldout["uniform_log_loss"]
    ends = [float(np.min(m_grid)), float(np.max(m_grid))]
    fig.add_trace(
        curve(f"uniform guess: log K = {guess:.2f}", ends, [guess, guess], NEUTRAL_COLOR, 2, "dot")
    )
    styles = {
        f"{heb}'s m": (method_color(heb), _SYMBOLS["heb"]),
        LAPLACE: (method_color(LAPLACE), _SYMBOLS[LAPLACE]),
    }
    first = [name for name in styles if name in marks]  # the evidence figure's legend order
    for name in first + [name for name in marks if name not in styles]:
        m, loss = marks[name]
        color, symbol = styles.get(name, (WHATIF_COLOR, _SYMBOLS["what-if m"]))
        shown = f"{LAPLACE}, m = K" if name == LAPLACE else name
        # no legend group for Laplace's point and dashed curve: a group stacks its entries
        # in one column, a legend row more on a presenter's short plot
        # "loss" said: "HEB-M's m: 1.7957" read as a value of m
        fig.add_trace(point(f"{shown}: loss {format_loss(loss)}", m, loss, color, symbol))
    # the clamp greyed as on the evidence curve: the text's lowest point is inside it
    drawn = [losses, [guess], [loss for _, loss in marks.values()]]
    if uniform_curve is not None:
        drawn.append(uniform_curve["log_loss"])
    _shade_clamp(fig, m_grid, M_MIN, M_MAX, np.concatenate([np.ravel(d) for d in drawn]))
    # a y title short enough for a presenter's short plot (the longer one ran off it)
    log_m_axes(fig, "held-out log-loss (nats)")
    # one title line and short legend names: on a presenter's 1280 x 720 step a two-line
    # title and a four-row legend left the plot 97 px
    title = f"Held-out check: {heldout['n_folds']} folds, {heldout['n_rows']:,} rows"
    lesson_style(fig, title, 400)
    # legend symbols at one size, no gap between groups: each made the legend's rows taller
    # (a narrow column wraps it one entry a row)
    return fig.update_layout(legend_itemsizing="constant", legend_tracegroupgap=0), data
