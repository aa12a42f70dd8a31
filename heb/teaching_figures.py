"""Plotly figures of the six classroom lessons (layer 4: no streamlit, no formulas).

Every builder takes the outputs of :mod:`heb.teaching` and returns a
``plotly.graph_objects.Figure`` styled for a projector (large type, a legend above the
plot, white background). Method colours come from :func:`heb.figures.method_color`, so a
method looks the same on every page; reliability diagrams and the l1-error figure are
:mod:`heb.figures`' own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from heb.figures import (
    METHOD_COLORS,
    frame_title_and_legend,
    l1_error_figure,
    legend_rows,
    method_color,
    method_label,
    reliability_diagram,
)
from heb.teaching import format_m

__all__ = [
    "FONT_SIZE",
    "style",
    "readable",
    "zero_counts_figure",
    "underflow_figure",
    "dirichlet_figure",
    "alpha_sweep_figure",
    "evidence_figure",
    "pmf_bars_figure",
    "heldout_figure",
    "theorem1_figure",
    "reduction_figure",
    "vertex_figure",
    "double_counting_figure",
    "reliability_figure",
    "calibration_bars_figure",
    "pmf_error_figure",
    "posterior_scatter_figure",
    "true_calibration_figure",
]

#: base font size in pixels: readable from the back of a classroom
FONT_SIZE = 16
#: colours of the things that are not methods (none of them a method's colour)
TRUTH_COLOR = "#222222"
PRIOR_COLOR = "#9e9e9e"  # neutral marks: shading, reference lines, minor bars
PRIOR_MEAN_COLOR = "#525252"  # the prior mean t: dark grey, apart from unsmoothed
UNSMOOTHED_COLOR = "#c7c7c7"  # n / N: light grey
WHATIF_COLOR = "#009e73"  # the slider's setting: bluish green, no method has it
CLASS_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")
#: curves that are not methods (e.g. "1 copy", "4 copies"), in order of appearance
SERIES_COLORS = ("#3b3b98", "#e6550d", "#009e73", "#b8860b", "#cc79a7", "#555555")
#: the smallest positive float64 (a subnormal): products below it become exactly 0
SMALLEST_FLOAT = 5e-324


def style(fig: go.Figure, title: str, height: int = 460) -> go.Figure:
    """Projector styling: large type, title then legend on top (never overlapping), light grid.

    ``height`` is the figure's height with a one-row legend; each further row the legend
    is expected to wrap onto (at a lesson column's width) adds its own height.
    ``<br>`` in ``title`` breaks it over lines (for narrow columns).
    """
    fig.update_layout(
        font={"size": FONT_SIZE},
        template="plotly_white",
        margin={"l": 70, "r": 30, "b": 60},
        hoverlabel={"font": {"size": FONT_SIZE}},
    )
    extra_rows = max(0, legend_rows(fig) - 1)
    frame_title_and_legend(fig, title, height + 28 * extra_rows)
    return readable(fig)


def readable(fig: go.Figure) -> go.Figure:
    """Explicit tick, axis-title and note sizes (Streamlit's chart theme shrinks them)."""
    axis_fonts = {"tickfont": {"size": FONT_SIZE - 1}, "title_font": {"size": FONT_SIZE}}
    fig.update_xaxes(**axis_fonts)
    fig.update_yaxes(**axis_fonts)
    fig.update_annotations(font_size=FONT_SIZE - 1)
    fig.update_layout(legend_font_size=FONT_SIZE - 1)
    return fig


def _color(name: str) -> str:
    fixed = {
        "true p*": TRUTH_COLOR,
        "truth": TRUTH_COLOR,
        "prior mean": PRIOR_MEAN_COLOR,
        "unsmoothed": UNSMOOTHED_COLOR,
        "HEB": method_color("HEB-M"),
    }
    if name in fixed:
        return fixed[name]
    if name.startswith("what-if"):
        return WHATIF_COLOR
    return method_color(name)


def _class_color(c: int) -> str:
    """The colour of class ``c`` (the palette repeats after four classes)."""
    return CLASS_COLORS[c % len(CLASS_COLORS)]


def _curve(
    name: str,
    x: ArrayLike,
    y: ArrayLike,
    color: str,
    width: float | None = 3,
    dash: str | None = None,
    mode: str = "lines",
    **extra,
) -> go.Scatter:
    """A line trace (``mode`` may add markers); ``extra`` are further ``go.Scatter`` keys."""
    line = {"color": color, "width": width, "dash": dash}
    line = {key: value for key, value in line.items() if value is not None}
    return go.Scatter(name=name, x=x, y=y, mode=mode, line=line, **extra)


def _point(name: str, x: float, y: float, color: str, symbol: str) -> go.Scatter:
    """One large marker outlined in white (a chosen m on a curve against m)."""
    marker = {
        "size": 15,
        "color": color,
        "symbol": symbol,
        "line": {"width": 1.5, "color": "white"},
    }
    return go.Scatter(name=name, x=[x], y=[y], mode="markers", marker=marker)


def _hover_bar(
    name: str, x: ArrayLike, y: ArrayLike, color: str, aside: str | None = None, **extra
) -> go.Bar:
    """A bar trace whose hover reads ``x: y`` with ``aside`` (default: the name) beside it."""
    hover = "%{x}: %{y:.4f}<extra>" + (name if aside is None else aside) + "</extra>"
    return go.Bar(name=name, x=x, y=y, marker_color=color, hovertemplate=hover, **extra)


def _valued_bar(name: str, x: ArrayLike, y: ArrayLike, color: str | list[str]) -> go.Bar:
    """A bar trace with each value printed above its bar (3 decimals)."""
    text = [f"{v:.3f}" for v in y]
    return go.Bar(name=name, x=x, y=y, marker_color=color, text=text, textposition="outside")


def _log_m_axes(fig: go.Figure, y_title: str) -> None:
    """x: the concentration m on a log axis; y: ``y_title``."""
    fig.update_xaxes(type="log", title="concentration m (log scale)")
    fig.update_yaxes(title=y_title)


# ------------------------------------------------------------------ lesson 1
def zero_counts_figure(
    vocabulary: Sequence[str],
    classes: Sequence[str],
    theta: np.ndarray,
    message: Sequence[str],
    alpha: float,
) -> go.Figure:
    """P(word | class) for every word, the message's words marked, zeros labelled."""
    in_message = set(message)
    labels = [f"<b>▶ {w}</b>" if w in in_message else w for w in vocabulary]
    fig = go.Figure()
    for c, name in enumerate(classes):
        fig.add_trace(
            _hover_bar(
                f"P(word | {name})",
                labels,
                theta[c],
                _class_color(c),
                aside=name,
                text=np.where(theta[c] == 0, "0", ""),
                textposition="outside",
                textfont={"size": FONT_SIZE + 4, "color": _class_color(c)},
            )
        )
    rule = "no smoothing (α = 0)" if alpha == 0 else f"pseudo-count α = {alpha:g}"
    fig.update_layout(
        barmode="group", yaxis_title="P(word | class)", xaxis_title="▶ = in the message"
    )
    return style(fig, f"Word probabilities per class, {rule}")


def underflow_figure(
    curve: Mapping, classes: Sequence[str], n_words: int | None = None
) -> go.Figure:
    """log10 P(message, class) against message length, with where float64 products hit 0.

    Vetoed classes (a zero factor, log 0 = -inf) have no line and are named in a note;
    ``n_words`` marks the length the page reports on.
    """
    lengths = curve["n_words"]
    fig = go.Figure()
    vetoed = []
    for c, name in enumerate(classes):
        color = _class_color(c)
        if curve["vetoed"][c]:
            vetoed.append(name)
            continue
        hover = "%{x} words: 10^%{y:.1f}<extra></extra>"
        exact = f"{name}: exact, from logs"
        log10_likelihood = curve["log10_likelihood"][c]
        fig.add_trace(_curve(exact, lengths, log10_likelihood, color, 4, hovertemplate=hover))
        lost = np.flatnonzero(curve["underflow"][c])
        if lost.size:
            first = lost[0]
            fig.add_trace(
                go.Scatter(
                    name=f"{name}: the float64 product is 0 from here",
                    x=[lengths[first]],
                    y=[curve["log10_likelihood"][c][first]],
                    mode="markers",
                    marker={"color": color, "symbol": "x", "size": 16, "line": {"width": 2}},
                    hovertemplate="%{x} words: the direct product is exactly 0<extra></extra>",
                )
            )
    fig.add_hline(
        y=np.log10(SMALLEST_FLOAT),
        line_dash="dash",
        line_color=TRUTH_COLOR,
        annotation_text="smallest float64 ≈ 10^-323.3",
        annotation_position="top right",
    )
    if n_words is not None:
        fig.add_vline(x=n_words, line_color=PRIOR_COLOR, line_width=2)
    if vetoed:
        fig.add_annotation(
            x=0.98,
            y=0.95,
            xref="paper",
            yref="paper",
            xanchor="right",
            showarrow=False,
            text=", ".join(vetoed) + ": a zero factor, log 0 = −∞ (no line)",
        )
    fig.update_layout(
        xaxis_title="words in the message",
        yaxis_title="log10 of P(class) × Π P(word | class)",
    )
    return style(fig, "Products of many small numbers underflow; sums of logs do not", 420)


# ------------------------------------------------------------------ lesson 2
def dirichlet_figure(
    p_true: np.ndarray, counts: np.ndarray, posterior: np.ndarray, alpha: float
) -> go.Figure:
    """True PMF, unsmoothed estimate and the Dirichlet(alpha) posterior mean, by category."""
    K = p_true.size
    N = counts.sum()
    x = np.arange(1, K + 1)
    fig = go.Figure()
    fig.add_trace(go.Bar(name="true p*", x=x, y=p_true, marker_color=TRUTH_COLOR, opacity=0.85))
    mle = counts / N if N > 0 else np.full(K, 1.0 / K)
    fig.add_trace(go.Bar(name="unsmoothed n / N", x=x, y=mle, marker_color=UNSMOOTHED_COLOR))
    fig.add_trace(
        go.Bar(name=f"posterior mean, α = {alpha:g}", x=x, y=posterior, marker_color=WHATIF_COLOR)
    )
    fig.add_hline(
        y=1.0 / K,
        line_dash="dot",
        line_color=PRIOR_MEAN_COLOR,
        annotation_text="prior mean 1/K",
        annotation_position="top right",
    )
    fig.update_layout(
        barmode="group",
        bargap=0.15,
        xaxis_title="category (sorted by true probability)",
        yaxis_title="probability",
    )
    return style(fig, f"K = {K} categories, N = {int(N)} observations", 400)


def alpha_sweep_figure(sweep: Mapping, alpha: float, named: Mapping[str, float]) -> go.Figure:
    """Expected l1 error and l1 bias against alpha (log axis), named rules marked."""
    fig = go.Figure()
    fig.add_trace(_curve("expected l1 error", sweep["alpha"], sweep["expected_l1"], WHATIF_COLOR))
    bias = _curve("l1 bias of the mean", sweep["alpha"], sweep["bias_l1"], TRUTH_COLOR, 2, "dash")
    fig.add_trace(bias)
    fig.add_hline(
        y=sweep["unsmoothed_l1"],
        line_dash="dot",
        line_color=UNSMOOTHED_COLOR,
        annotation_text="unsmoothed",
        annotation_position="bottom right",
    )
    marks = dict(named)
    x = np.log(sweep["alpha"])
    marks_y = np.interp(np.log(list(marks.values())), x, sweep["expected_l1"])
    fig.add_trace(
        go.Scatter(
            name="named rules",
            x=list(marks.values()),
            y=marks_y,
            mode="markers+text",
            text=list(marks),
            textposition="top left",  # above the rising curve, left of the α line
            textfont={"size": FONT_SIZE - 1, "color": [method_color(n) for n in marks]},
            marker={"size": 12, "color": [method_color(n) for n in marks]},
            showlegend=False,
        )
    )
    fig.add_vline(x=alpha, line_color=WHATIF_COLOR, line_dash="dot")
    fig.update_xaxes(type="log", dtick=1, title="pseudo-count α (log scale)")
    fig.update_yaxes(title="l1 distance to the true PMF", rangemode="tozero")
    return style(fig, "Smaller α: less bias, more variance", 380)


# ------------------------------------------------------------------ lesson 3
def evidence_figure(curve, m_whatif: float | None = None) -> go.Figure:
    """l(m) against m (log axis), the clamp shaded, HEB's m, Laplace's K and the what-if m."""
    fig = go.Figure()
    hover = "m = %{x:.3g}<br>l(m) = %{y:.3f}<extra></extra>"
    heb = method_color("HEB-M")
    fig.add_trace(_curve("evidence l(m)", curve.m, curve.log_evidence, heb, hovertemplate=hover))
    for lo, hi in ((curve.m.min(), curve.m_min), (curve.m_max, curve.m.max())):
        fig.add_vrect(x0=lo, x1=hi, fillcolor=PRIOR_COLOR, opacity=0.18, line_width=0)
    for edge, anchor in ((curve.m_min, "right"), (curve.m_max, "left")):
        fig.add_annotation(
            x=np.log10(edge),
            y=1,
            yref="paper",
            text="clamp",
            showarrow=False,
            xanchor=anchor,
            font={"color": PRIOR_COLOR},
        )
    points = [
        ("HEB's m", curve.m_hat, method_color("HEB-M"), "circle"),
        ("m = K (Laplace)", float(curve.n_categories), method_color("Laplace"), "square"),
    ]
    if m_whatif is not None:
        points.append(("what-if m", m_whatif, WHATIF_COLOR, "diamond"))
    for name, m, color, symbol in points:
        fig.add_trace(_point(f"{name} = {format_m(m)}", m, curve.log_evidence_at(m), color, symbol))
    _log_m_axes(fig, "log evidence l(m)")
    return style(fig, "Type-II ML: the m that makes these counts most probable", 420)


def pmf_bars_figure(pmfs: Mapping[str, np.ndarray], category_labels: Sequence[str]) -> go.Figure:
    """Grouped bars of several PMFs of one pair (unsmoothed, Laplace, HEB, prior, what-if)."""
    fig = go.Figure()
    for name, values in pmfs.items():
        fig.add_trace(_hover_bar(name, list(category_labels), values, _color(name)))
    fig.update_layout(barmode="group", xaxis_title="category", yaxis_title="probability")
    return style(fig, "The smoothed PMF of this pair", 400)


def heldout_figure(heldout: Mapping, marks: Mapping[str, tuple[float, float]]) -> go.Figure:
    """Held-out log-loss against m (log axis); ``marks`` name -> (m, log-loss)."""
    fig = go.Figure()
    hover = "m = %{x:.3g}<br>log-loss = %{y:.4f}<extra></extra>"
    m_grid, losses = heldout["m"], heldout["log_loss"]
    fig.add_trace(_curve("held-out log-loss", m_grid, losses, TRUTH_COLOR, hovertemplate=hover))
    colors = {"HEB's m": method_color("HEB-M"), "m = K (Laplace)": method_color("Laplace")}
    symbols = {"HEB's m": "circle", "m = K (Laplace)": "square"}
    first = [name for name in colors if name in marks]  # the evidence figure's legend order
    for name in first + [name for name in marks if name not in colors]:
        m, loss = marks[name]
        color, symbol = colors.get(name, WHATIF_COLOR), symbols.get(name, "diamond")
        fig.add_trace(_point(f"{name}: {loss:.4f}", m, loss, color, symbol))
    _log_m_axes(fig, "log-loss on held-out rows (nats)")
    title = f"{heldout['n_folds']}-fold held-out log-loss of this pair's {heldout['n_rows']:,} rows"
    return style(fig, title, 400)


# ------------------------------------------------------------------ lesson 4
def theorem1_figure(grid: pd.DataFrame, point: pd.DataFrame | None = None) -> go.Figure:
    """The paper's Figure 2 (:func:`heb.figures.l1_error_figure`) plus the chosen (K, N)."""
    fig = l1_error_figure(
        grid[["K", "N", "smoother", "mean", "std"]], title="Mean l1 error against K/N (log-log)"
    )
    if point is not None and len(point):
        for row in point.itertuples(index=False):
            fig.add_trace(
                go.Scatter(
                    name=f"your K/N: {row.label}",
                    x=[row.K_over_N],
                    y=[row.mean],
                    mode="markers",
                    marker={
                        "size": 16,
                        "symbol": "star",
                        "color": method_color(row.label),
                        "line": {"width": 1, "color": TRUTH_COLOR},
                    },
                    showlegend=False,
                    hovertemplate=f"K = {row.K}, N = {row.N}<br>{row.label}: "
                    "%{y:.3f}<extra></extra>",
                )
            )
    return readable(fig)


def reduction_figure(reduction: pd.DataFrame) -> go.Figure:
    """HEB-U's l1 error reduction over Laplace per K/N (from ``theorem1_reduction``).

    One bar per distinct K/N (settings sharing a ratio are averaged), on a categorical
    axis; bars from K/N = 0.1 on, where the paper reports the separation, are coloured.
    """
    by_ratio = reduction.groupby("K_over_N", as_index=False)["reduction"].mean()
    percent = 100 * by_ratio["reduction"].to_numpy()
    wide = by_ratio["K_over_N"].to_numpy() >= 0.1
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            name="HEB-U below Laplace (%)",
            x=[f"{r:g}" for r in by_ratio["K_over_N"]],
            y=percent,
            marker_color=np.where(wide, method_color("HEB-U"), PRIOR_COLOR).tolist(),
            text=[f"{v:.0f}" for v in percent],
            textposition="outside",
            textfont={"size": FONT_SIZE - 3},
            constraintext="none",
            cliponaxis=False,
            hovertemplate="K/N = %{x}: %{y:.1f}%<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color=TRUTH_COLOR)
    fig.update_xaxes(type="category", title="K / N")
    fig.update_yaxes(title="l1 error reduction (%)")
    fig.update_layout(showlegend=False)
    return style(fig, "HEB-U's l1 error<br>below Laplace's (%)", 400)


def vertex_figure(vertex: pd.DataFrame) -> go.Figure:
    """Corollary 1: Laplace's and HEB's l1 error at p* = e1 against K/N (log-log)."""
    fig = go.Figure()
    for name, column, method in (
        ("Laplace: 2(K−1)/(N+K)", "laplace_l1", "Laplace"),
        ("HEB-U: m = m_min", "heb_l1", "HEB-U"),
    ):
        x, y = vertex["K_over_N"], vertex[column]
        fig.add_trace(_curve(name, x, y, method_color(method), mode="lines+markers"))
    fig.update_xaxes(type="log", title="K / N")
    fig.update_yaxes(type="log", title="l1 error at p* = e₁", exponentformat="power")
    N = int(vertex["N"].iloc[0])
    style(fig, f"Corollary 1: all {N} draws<br>in one category", 400)
    fig.update_layout(
        legend={
            "orientation": "v",
            "x": 0.98,
            "xref": "paper",
            "xanchor": "right",
            "y": 0.5,
            "yref": "paper",
            "yanchor": "middle",
            "bgcolor": "rgba(255,255,255,0.85)",
        }
    )
    return fig


# ------------------------------------------------------------------ lesson 5
def double_counting_figure(sweep: Mapping, chosen: int) -> go.Figure:
    """Log-odds scale and ECE against the number of copies of one feature."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14)
    k = sweep["copies"]
    one_copy = k * sweep["log_odds_scale"][0]
    fig.add_trace(_curve("k × one copy", k, one_copy, PRIOR_COLOR, 10, opacity=0.5), row=1, col=1)
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
    ece = _curve(
        "ECE (top-1)", k, sweep["ece"], WHATIF_COLOR, mode="lines+markers", marker={"size": 9}
    )
    fig.add_trace(ece, row=1, col=2)
    for col in (1, 2):
        fig.add_vline(x=chosen, line_dash="dash", line_color=TRUTH_COLOR, row=1, col=col)
    fig.update_xaxes(title="copies k of the feature", dtick=1)
    fig.update_yaxes(title="the feature's |log-odds| (nats)", row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title="calibration error (ECE)", row=1, col=2, rangemode="tozero")
    return style(fig, "Duplicating a feature: the same evidence counted k times", 400)


def series_colors(names: Sequence[str]) -> dict[str, str]:
    """A colour per name: a method's own colour, else the next unused of ``SERIES_COLORS``."""
    known = {name: method_color(name) for name in names if method_label(name) in METHOD_COLORS}
    spare = iter(c for c in SERIES_COLORS if c not in set(known.values()))
    return {name: known.get(name) or next(spare, method_color(name)) for name in names}


def reliability_figure(curves: Mapping[str, Mapping], title: str) -> go.Figure:
    """A reliability diagram (:func:`heb.figures.reliability_diagram`), projector-sized.

    Curves named after a method keep its colour; the others (``"1 copy"``,
    ``"Laplace + temperature"``) get distinct colours from ``SERIES_COLORS``.
    """
    fig = reliability_diagram(dict(curves), title=title, colors=series_colors(list(curves)))
    return readable(fig)


def calibration_bars_figure(table: pd.DataFrame, metric: str = "ece") -> go.Figure:
    """Grouped bars: upstream model on x, post-hoc calibration as colour."""
    names = {"ece": "ECE (top-1)", "log_loss": "log-loss", "brier": "Brier", "accuracy": "accuracy"}
    fig = go.Figure()
    shades = {
        "none": TRUTH_COLOR,
        "Platt": "#6baed6",
        "isotonic": "#31a354",
        "temperature": "#e6550d",
    }
    for post, part in table.groupby("calibration", sort=False):
        name = "no post-hoc" if post == "none" else post
        color = shades.get(post, PRIOR_COLOR)
        fig.add_trace(_valued_bar(name, part["model"], part[metric], color))
    fig.update_layout(barmode="group", yaxis_title=names.get(metric, metric), xaxis_title="model")
    fig.update_yaxes(rangemode="tozero")
    return style(
        fig,
        f"{names.get(metric, metric)} on the test rows (lower is better)"
        if metric != "accuracy"
        else "accuracy on the test rows",
        420,
    )


# ------------------------------------------------------------------ lesson 6
def pmf_error_figure(errors: pd.DataFrame) -> go.Figure:
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
                marker={"color": method_color(label), "size": 5},
                line={"color": method_color(label)},
            )
        )
    fig.update_layout(showlegend=False, yaxis_title="‖θ̂ − θ‖₁ per (class, feature)")
    fig.update_yaxes(rangemode="tozero")
    return style(fig, "Exact l1 error of each estimated PMF (dashed: mean)", 440)


def posterior_scatter_figure(
    true_posterior: np.ndarray,
    posteriors: Mapping[str, np.ndarray],
    labels: Sequence[str],
    max_points: int = 1500,
) -> go.Figure:
    """Estimated against true P(class 1 | x) (every class when C > 2), on the diagonal."""
    n = true_posterior.shape[0]
    keep = np.random.default_rng(0).permutation(n)[: min(n, max_points)]
    columns = [1] if true_posterior.shape[1] == 2 else list(range(true_posterior.shape[1]))
    x = true_posterior[np.ix_(keep, columns)].ravel()
    fig = go.Figure()
    for label in labels:
        fig.add_trace(
            go.Scattergl(
                name=label,
                x=x,
                y=posteriors[label][np.ix_(keep, columns)].ravel(),
                mode="markers",
                marker={"color": method_color(label), "size": 5, "opacity": 0.45},
            )
        )
    fig.add_trace(_curve("perfect", [0, 1], [0, 1], TRUTH_COLOR, width=None, dash="dash"))
    what = "P(class 1 | x)" if len(columns) == 1 else "P(c | x), every class"
    fig.update_xaxes(title=f"true {what}", range=[-0.02, 1.02], constrain="domain")
    fig.update_yaxes(
        title=f"estimated {what}", range=[-0.02, 1.02], scaleanchor="x", constrain="domain"
    )
    return style(fig, "Estimated against true posteriors (test rows)", 520)


def true_calibration_figure(summary: pd.DataFrame) -> go.Figure:
    """True calibration error (no label noise) next to the ECE measured from labels."""
    fig = go.Figure()
    colors = [method_color(n) for n in summary["label"]]
    truth = _valued_bar(
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
    return style(fig, "Calibration error, known exactly", 420)
