"""Figures of the Dataset page: rows per class, one feature's counts, rows per category."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.style import (
    BAR_COLOR,
    CLASS_PALETTE,
    NEUTRAL_COLOR,
    count_axis,
    escape,
    escape_all,
    style,
)
from heb.text import short_labels

__all__ = [
    "MAX_CATEGORY_LABEL",
    "MAX_CLASS_SERIES",
    "class_balance_figure",
    "feature_counts_figure",
    "rows_per_category_heatmap",
]

#: classes drawn as their own bars; the rest are summed into one "other classes" series
MAX_CLASS_SERIES = 6


def class_balance_figure(class_names: Sequence[str], class_counts: np.ndarray) -> go.Figure:
    """Rows per class N_c, one labelled bar each."""
    counts = np.asarray(class_counts, dtype=np.int64)
    fig = go.Figure(
        go.Bar(
            x=escape_all(class_names),
            y=counts,
            marker_color=BAR_COLOR,
            text=counts,
            texttemplate="%{y:,}",  # 2,270 as the tables write it
            textposition="outside",
            cliponaxis=False,
            hovertemplate="class %{x}<br>rows %{y:,}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="class", type="category")
    fig.update_yaxes(title_text="rows N_c", rangemode="tozero")
    style(fig, "Rows per class", 380)
    return fig.update_layout(showlegend=False)


def class_series(counts: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The classes of a counts table drawn in their own colour and those summed as one.

    ``counts`` has a ``category`` and a ``total`` column and one column per class. The
    :data:`MAX_CLASS_SERIES` largest classes (most rows, largest first; ties in column
    order) are their own series, the rest one "other classes" series; a rest of one class
    is shown as itself.
    """
    classes = [c for c in counts.columns if c not in ("category", "total")]
    sizes = counts[classes].sum(axis=0).to_numpy()
    order = [classes[i] for i in np.argsort(-sizes, kind="stable")]
    own, rest = order[:MAX_CLASS_SERIES], order[MAX_CLASS_SERIES:]
    if len(rest) == 1:
        return order, []
    return own, rest


#: characters of a category's label under the bars at most
MAX_CATEGORY_LABEL = 30


def feature_counts_figure(
    counts: pd.DataFrame, feature_name: str, top_categories: int = 30
) -> go.Figure:
    """One feature's counts N_cfv per class, grouped bars of its most frequent categories.

    Parameters
    ----------
    counts : DataFrame
        Column ``category`` (the values), one column per class (its name is the class),
        and ``total``; one row per category.
    feature_name : str
    top_categories : int
        The categories with the most rows that are drawn.

    Many classes do not make a longer legend: the :data:`MAX_CLASS_SERIES` largest
    classes get their own colour and the others are summed into "other classes".
    """
    if "category" not in counts.columns or "total" not in counts.columns:
        raise ValueError("The counts need a 'category' and a 'total' column.")
    classes = [c for c in counts.columns if c not in ("category", "total")]
    if not classes:
        raise ValueError("The counts need one column per class.")
    n_categories = len(counts)
    shown = counts.nlargest(top_categories, "total") if n_categories > top_categories else counts
    own, rest = class_series(counts)
    # long categories are cut on the axis (a 300-character comment, turned, took the whole
    # 420 px and left the bars 30 px), whole in the hover
    full = [str(value) for value in shown["category"]]
    x = escape_all(short_labels(full, MAX_CATEGORY_LABEL))
    whole = escape_all(full)
    fig = go.Figure()
    for index, name in enumerate(own):
        fig.add_trace(
            go.Bar(
                x=x,
                y=shown[name],
                customdata=whole,
                name=escape(name),
                marker_color=CLASS_PALETTE[index % len(CLASS_PALETTE)],
                hovertemplate="%{customdata}: %{y:,} rows<extra>" + escape(name) + "</extra>",
            )
        )
    if rest:
        fig.add_trace(
            go.Bar(
                x=x,
                y=shown[rest].sum(axis=1),
                customdata=whole,
                name=f"{len(rest)} other classes",
                marker_color=NEUTRAL_COLOR,
                hovertemplate="%{customdata}: %{y:,} rows<extra>other classes</extra>",
            )
        )
    # the legend lists the traces in order (a stack's would read bottom-up), as the table
    fig.update_layout(
        barmode="group" if len(fig.data) <= 4 else "stack", legend_traceorder="normal"
    )
    fig.update_xaxes(title_text="category", type="category")
    stacked = shown[classes].sum(axis=1) if fig.layout.barmode == "stack" else shown[classes]
    fig.update_yaxes(title_text="rows", **count_axis(np.ravel(stacked)))
    title = f"{escape(feature_name)}: counts per class"
    if n_categories > top_categories:
        title += f"<br>(the {top_categories} most frequent of {n_categories:,} categories)"
    style(fig, title, 420)
    return fig.update_layout(showlegend=True)


#: the rows-per-category heatmap's least plot height (pixels), and the longest feature
#: name it makes room for below the plot (longer ones are cut to it)
_MIN_HEATMAP_PX, _MAX_LABEL_CHARS = 160, 30


def rows_per_category_heatmap(
    per_cell: np.ndarray,
    feature_names: Sequence[str],
    class_names: Sequence[str],
    sparse_cell: float = 5.0,
) -> go.Figure:
    """Heatmap of N_c / K_f per (class, feature): red where few rows inform each category.

    Parameters
    ----------
    per_cell : ndarray (C, F)
        ``CountTable.rows_per_category()``.
    feature_names, class_names : sequence of str
    sparse_cell : float
        The colour scale spans 0 to 4 x this value (red below it).
    """
    # a name longer than the room made below is cut (kept apart from the others, whole in
    # the hover): plotly's automargin gave a 250-character name the plot's height too
    names = [str(name) for name in feature_names]
    whole = np.tile(np.asarray(escape_all(names), dtype=object), (len(class_names), 1))
    fig = go.Figure(
        go.Heatmap(
            z=per_cell,
            x=escape_all(short_labels(names, _MAX_LABEL_CHARS)),
            y=escape_all(class_names),
            customdata=whole,
            zmin=0,
            zmax=4 * sparse_cell,
            colorscale="RdYlBu",
            colorbar={"title": {"text": "N_c / K_f", "side": "top"}, "ypad": 20},
            hovertemplate="feature %{customdata}<br>class %{y}<br>"
            "rows per category %{z:.2f}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="feature", type="category")
    fig.update_yaxes(title_text="class", type="category", ticklabelstandoff=8)
    # the plot keeps at least 160 px (its colour bar's five labels ran together in 90 px)
    # whatever the turned feature names below it take: about 7 px a character
    longest = max((len(str(name)) for name in feature_names), default=0)
    names_px = 7 * min(longest, _MAX_LABEL_CHARS)
    height = 130 + max(_MIN_HEATMAP_PX, 60 * len(class_names)) + names_px
    return style(fig, "Rows per category, N_c / K_f (red: few, the prior decides)", height)
