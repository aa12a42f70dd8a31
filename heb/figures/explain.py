"""The nomogram of one prediction: each feature's log-odds contribution under each smoother."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.explain import Explanation, decisive_features
from heb.figures.style import (
    CHAR_EM,
    FONT_SIZE,
    NEUTRAL_COLOR,
    escape,
    method_color,
    method_label,
    style,
)
from heb.text import short_labels, shorten

__all__ = [
    "MAX_FEATURE_BARS",
    "PRIOR_ROW",
    "contribution_figure",
    "contribution_frame",
    "contribution_min_width",
]

#: features drawn at most (those with the largest contribution); the rest are summed
MAX_FEATURE_BARS = 15
PRIOR_ROW = "(prior: class frequencies)"
#: pixels of the x axis title's second line
AXIS_TITLE_LINE = 22
#: characters of the favoured class's name on the x axis title at most (quoted: 20 in all)
MAX_FAVOURED = 18
#: pixels the bars keep at least
_MIN_BARS_PX = 200
#: characters of a bar's label ("feature = value") at most, the full text in its hover: a
#: 300-character category took the whole chart's width and squeezed the bars to a strip;
#: the name and the value get half each, so a long name leaves its value in sight
MAX_BAR_LABEL = 60


def contribution_frame(
    explanations: Mapping[str, Explanation],
    feature_names: Sequence[str],
    values: Sequence[str],
    row: int = 0,
) -> pd.DataFrame:
    """One row per feature (and the prior first): its value and contribution per model.

    Columns: ``feature``, ``value``, one column per model (nats of log-odds of the target
    against the reference class), ``spread`` (max - min over the models), ``absent``.
    """
    first = next(iter(explanations.values()))
    frame = pd.DataFrame(
        {"feature": list(map(str, feature_names)), "value": list(map(str, values))}
    )
    for name, explanation in explanations.items():
        frame[name] = explanation.contributions[row]
    frame["spread"] = decisive_features(explanations, row)
    frame["absent"] = first.absent[row]
    prior = {name: e.prior for name, e in explanations.items()}
    spread = max(prior.values()) - min(prior.values())
    head = pd.DataFrame(
        [{"feature": PRIOR_ROW, "value": "", **prior, "spread": spread, "absent": False}]
    )
    return pd.concat([head, frame], ignore_index=True)


def _shown_rows(frame: pd.DataFrame, models: Sequence[str], limit: int) -> pd.DataFrame:
    """The prior, the ``limit`` features of largest |contribution|, the rest summed."""
    prior, features = frame.iloc[:1], frame.iloc[1:]
    size = features[list(models)].abs().max(axis=1).to_numpy()
    order = np.argsort(-size, kind="stable")
    top = features.iloc[order[:limit]]
    rest = features.iloc[order[limit:]]
    parts = [prior, top]
    if len(rest):
        summed = {name: float(rest[name].sum()) for name in models}
        label = f"({len(rest)} other features)"
        parts.append(pd.DataFrame([{"feature": label, "value": "", **summed}]))
    return pd.concat(parts, ignore_index=True)


def contribution_figure(
    frame: pd.DataFrame,
    models: Sequence[str],
    title: str,
    limit: int = MAX_FEATURE_BARS,
    target_name: str | None = None,
) -> go.Figure:
    """Grouped horizontal bars: per feature, its contribution under each model.

    Positive bars favour the target class (named ``target_name`` on the x axis, quoted
    and cut to a short line; "the target class" without it), negative ones the
    reference class.
    """
    shown = _shown_rows(frame, models, limit)
    full = [f"{f} = {v}" if v else f for f, v in zip(shown["feature"], shown["value"], strict=True)]
    cut = [
        _bar_label(f, v) if v else shorten(f, MAX_BAR_LABEL)
        for f, v in zip(shown["feature"], shown["value"], strict=True)
    ]
    labels = [escape(label) for label in short_labels(cut, MAX_BAR_LABEL + 3)]
    fig = go.Figure()
    for name in models:
        label = escape(method_label(name))
        fig.add_trace(
            go.Bar(
                x=shown[name],
                y=labels,
                customdata=[escape(text) for text in full],
                orientation="h",
                name=label,
                marker={"color": method_color(name)},
                hovertemplate=f"{label}<br>%{{customdata}}<br>%{{x:+.3f}} nats<extra></extra>",
            )
        )
    fig.add_vline(x=0, line={"color": NEUTRAL_COLOR, "width": 1})
    fig.update_layout(barmode="group", bargap=0.25)
    fig.update_yaxes(autorange="reversed", automargin=True)
    # two lines: on one the title ran past a 535 px chart (1024 px with the sidebar open)
    fig.update_xaxes(
        title_text=f"log-odds contribution (nats)<br>+ favours {_favoured(target_name)}"
    )
    style(fig, title, 160 + len(shown) * (14 + 9 * len(models)) + AXIS_TITLE_LINE)
    return fig.update_layout(margin={"b": fig.layout.margin.b + AXIS_TITLE_LINE})


def _favoured(target_name: str | None) -> str:
    """The class a positive bar favours, for the axis: its name quoted, so that a class
    named "other" or "the rest" reads as a name ("+ favours other" read as "favours the
    other class", B), and cut to keep the line within 30 characters."""
    if target_name is None:
        return "the target class"
    name = (
        target_name if len(target_name) <= MAX_FAVOURED else target_name[: MAX_FAVOURED - 1] + "…"
    )
    return f"'{escape(name)}'"


def _bar_label(feature: str, value: str) -> str:
    """The bar label "feature = value": at most :data:`MAX_BAR_LABEL` characters besides " = ": each
    side gets half, and the room a short side leaves goes to the other. A zoned time
    stamp's bin ("[2024-10-17 15:47:33, 2024-11-24 05:35:03) UTC", 46 characters) beside
    "event_time" was cut at 30, losing its end and the zone its times are written in."""
    half = MAX_BAR_LABEL // 2
    name = shorten(feature, MAX_BAR_LABEL - min(len(value), half))
    return f"{name} = {shorten(value, MAX_BAR_LABEL - len(name))}"


def contribution_min_width(fig: go.Figure) -> int:
    """Pixels a :func:`contribution_figure` needs to show its bars: its longest bar label
    (the y axis's margin grows to hold it) and at least 200 px of bars (the legend runs
    above them, wrapping).

    Narrower (a phone's 356 px), the labels took the width and left the bars a strip of
    60 px; a page draws the figure at least this wide and lets it scroll sideways.
    """
    labels = [html.unescape(str(label)) for trace in fig.data for label in trace.y]
    chars = max(map(len, labels), default=0)
    return math.ceil(CHAR_EM * FONT_SIZE * chars) + _MIN_BARS_PX
