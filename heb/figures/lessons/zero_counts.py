"""Figures of lesson 1: word probabilities with their zeros, and where products underflow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.lessons.parts import class_color, curve, hover_bar, lesson_style
from heb.figures.style import FONT_SIZE, NEUTRAL_COLOR, TRUTH_COLOR

__all__ = ["SMALLEST_FLOAT", "SMALLEST_FLOAT_HTML", "zero_counts_figure", "underflow_figure"]

#: the smallest positive float64 (a subnormal): products below it become exactly 0
SMALLEST_FLOAT = 5e-324

#: its value as the page's text writes it (4.9 × 10⁻³²⁴), the power a superscript: the
#: figure said "≈ 10^-323.3" beside the text's "about 4.9 × 10⁻³²⁴" (an instructor's trial)
_MANTISSA, _EXPONENT = f"{SMALLEST_FLOAT:.1e}".split("e")
SMALLEST_FLOAT_HTML = f"{_MANTISSA} × 10<sup>−{abs(int(_EXPONENT))}</sup>"


#: the mark of the message's words on the x axis
MESSAGE_MARK = "●"


def zero_counts_figure(
    vocabulary: Sequence[str],
    classes: Sequence[str],
    theta: np.ndarray,
    message: Sequence[str],
    alpha: float,
) -> tuple[go.Figure, pd.DataFrame]:
    """P(word | class) for every word, the message's words marked, zeros labelled."""
    in_message = set(message)
    # a mark that reads the same turned: the tick labels turn with the width, and "▶"
    # then read ▼ or ▲ beside the axis title's "▶"
    labels = [f"<b>{MESSAGE_MARK} {w}</b>" if w in in_message else w for w in vocabulary]
    fig = go.Figure()
    for c, name in enumerate(classes):
        fig.add_trace(
            hover_bar(
                f"P(word | {name})",
                labels,
                theta[c],
                class_color(c),
                aside=name,
                text=np.where(theta[c] == 0, "0", ""),
                textposition="outside",
                # bold: 20 px bold is large text (WCAG: 3:1), which the orange of the second
                # class (3.9:1 on white) reaches; plain 20 px would need 4.5:1
                textfont={"size": FONT_SIZE + 4, "color": class_color(c), "weight": "bold"},
            )
        )
    rule = "no smoothing (α = 0)" if alpha == 0 else f"pseudo-count α = {alpha:g}"
    fig.update_layout(
        barmode="group",
        yaxis_title="P(word | class)",
        xaxis_title=f"{MESSAGE_MARK} = in the message",
    )
    data = pd.DataFrame(
        {"word": list(vocabulary), "in_message": [w in in_message for w in vocabulary]}
    )
    for c, name in enumerate(classes):
        data[f"P(word | {name})"] = theta[c]
    data["alpha"] = alpha
    return lesson_style(fig, f"P(word | class), {rule}"), data  # one line on a phone


def _length_label(n_words: int, longest: float) -> dict:
    """The label of the grey line at the e-mail's length (a downloaded PNG has no sentence
    under it saying what the line is), where the falling log-likelihood lines leave room:
    to the line's right at the top (where they have fallen), to its left near the axis's
    end, and lower down for a short e-mail (the lines start at the top left)."""
    right = n_words <= 0.6 * longest
    low = n_words <= 0.15 * longest
    return {
        "text": f"this e-mail: {n_words:,} words",
        "x": n_words,
        "xref": "x",
        "xanchor": "left" if right else "right",
        "xshift": 4 if right else -4,
        "y": 0.45 if low else 1,
        "yref": "y domain",
        "yanchor": "middle" if low else "top",
        "showarrow": False,
    }


def underflow_figure(
    curve_data: Mapping, classes: Sequence[str], n_words: int | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """log10 P(message, class) against message length, with where float64 products hit 0.

    Vetoed classes (a zero factor, log 0 = -inf) have no line and are named in a note;
    ``n_words`` marks the length the page reports on.
    """
    lengths = curve_data["n_words"]
    fig = go.Figure()
    vetoed = []
    data = pd.DataFrame({"words": lengths})
    for c, name in enumerate(classes):
        color = class_color(c)
        if curve_data["vetoed"][c]:
            vetoed.append(name)
            continue
        hover = "%{x} words: 10<sup>%{y:.1f}</sup><extra></extra>"
        # short names: two legend items a row in the presenter's 1280 px figure column (at
        # 41 characters they took a row each, and four rows left the plot 110 px)
        exact = f"{name}, exact (logs)"
        log10_likelihood = curve_data["log10_likelihood"][c]
        data[f"log10 P(message, {name})"] = log10_likelihood
        data[f"direct product of {name} is 0"] = curve_data["underflow"][c]
        fig.add_trace(curve(exact, lengths, log10_likelihood, color, 4, hovertemplate=hover))
        lost = np.flatnonzero(curve_data["underflow"][c])
        if lost.size:
            first = lost[0]
            fig.add_trace(
                go.Scatter(
                    name=f"{name}: float64 product hits 0",
                    x=[lengths[first]],
                    y=[log10_likelihood[first]],
                    mode="markers",
                    marker={"color": color, "symbol": "x", "size": 16, "line": {"width": 2}},
                    hovertemplate="%{x} words: the direct product is exactly 0<extra></extra>",
                )
            )
    fig.add_hline(
        y=np.log10(SMALLEST_FLOAT),
        line_dash="dash",
        line_color=TRUTH_COLOR,
        annotation_text=f"smallest float64 ≈ {SMALLEST_FLOAT_HTML}",
        # under the line: over it, at the top right, the e-mail's length label of a long
        # e-mail ran into it in the presenter's shorter figure
        annotation_position="bottom right",
    )
    if n_words is not None:
        fig.add_vline(x=n_words, line_color=NEUTRAL_COLOR, line_width=2)
        fig.add_annotation(**_length_label(n_words, float(lengths[-1])))
    if vetoed:
        fig.add_annotation(
            x=0.02,
            y=0.04,
            xref="paper",
            yref="paper",
            xanchor="left",
            yanchor="bottom",
            showarrow=False,
            text=", ".join(vetoed) + ": a zero factor, log 0 = −∞ (no line)",
            bgcolor="white",  # the e-mail's length line ran through "log 0 = −∞"
        )
    if len(vetoed) == len(classes):
        # no line to scale the axes: plotly's default 0..6 words, -1..4 hid the e-mail's
        # length and the float64 line
        fig.update_xaxes(range=[0, float(lengths[-1])])
        fig.update_yaxes(range=[1.25 * np.log10(SMALLEST_FLOAT), 0])
    fig.update_layout(
        xaxis_title="words in the message",
        yaxis_title="log10 P(c) · Π P(w | c)",
    )
    title = "Products of many small numbers underflow; sums of logs do not"
    return lesson_style(fig, title, 420), data
