"""Figures of lesson 7: the ZIP-like tree, a sparse code's estimates, each level's concentration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.lessons.parts import (
    LESSON_TITLE_LINE,
    class_color,
    hover_bar,
    lesson_style,
    readable,
    series_color,
)
from heb.figures.style import (
    FONT_SIZE,
    INK,
    TRUTH_COLOR,
    escape,
    frame_title_and_legend,
    log_axis,
    title_height,
    wrap_title,
)

__all__ = ["concentration_figure", "leaf_figure", "prefix_figure", "tree_figure"]

_OTHER = "#d9d9d9"
#: HEB-H's purple a shade darker: plotly's white labels on its #6b6ecf were 4.4:1 (4.6:1)
_PATH = "#676ace"
#: the labels on the path's inner wedges and on the others (both over 4.5:1, WCAG's body
#: text); plotly draws a leaf at 0.7 opacity, so the path's code has the dark label (5.6:1)
_PATH_TEXT, _OTHER_TEXT = "#ffffff", INK
#: plotly's default opacity of a sunburst's leaves
_LEAF_OPACITY = 0.7
#: a probability on hover: three significant figures, plain decimals down to 1e-6
#: (``.4f`` read HEB-M's 0.00003 as 0.0000)
_PROBABILITY = ".3~g"
#: the sunburst's own height (pixels, below its title): the whole tree, three rings, in a
#: lesson's figure column
TREE_HEIGHT = 500
#: the smallest label (pixels) a wedge of the tree shows: plotly shrinks a label to fit its
#: wedge, and at 1280 x 720 the thin codes' labels were 6 - 9 px, prefixes 41 and 42's and
#: region 4's 9 - 10 px, unreadable; a wedge whose label would be smaller shows none
#: (its name is in its hover, and a click on its region or prefix zooms it in)
TREE_LABEL_MIN_PX = 13


def tree_figure(out: dict) -> tuple[go.Figure, pd.DataFrame]:
    """Sunburst region -> prefix -> code sized by class 0's true PMF; the sparse code's path
    coloured. Every prefix shows its codes: with the sparse code's prefix alone, the code
    ring was empty around the rest of the circle and the tree drew at two thirds of the
    size (drawing all 224 sectors takes 65 ms in chromium here, 20 ms for 34). A wedge too
    thin for a label of :data:`TREE_LABEL_MIN_PX` shows none (its name is on hover)."""
    labels, (to_prefix, to_region) = out["labels"], out["levels"]
    theta0, leaf = out["theta"][0], out["leaf"]
    n_prefix, n_region = to_region.size, int(to_region.max()) + 1
    prefix_mass = np.bincount(to_prefix, theta0, n_prefix)
    region_mass = np.bincount(to_region, prefix_mass, n_region)
    region_names = [f"region {labels[int(np.flatnonzero(to_prefix == p)[0])][0]}" for p in
                    np.unique(to_region, return_index=True)[1]]  # fmt: skip
    prefix_names = [f"prefix {labels[int(np.flatnonzero(to_prefix == p)[0])][:2]}" for p in
                    range(n_prefix)]  # fmt: skip
    ids = region_names + prefix_names + list(labels)
    parents = [""] * n_region + [region_names[r] for r in to_region]
    parents += [prefix_names[p] for p in to_prefix]
    values = np.concatenate([region_mass, prefix_mass, theta0])
    on_path = {
        labels[leaf],
        prefix_names[to_prefix[leaf]],
        region_names[to_region[to_prefix[leaf]]],
    }
    leaves = set(labels)
    code = escape(labels[leaf])
    title = f"The tree, sized by class 0's true PMF;<br>code {code}'s path in colour"
    fig = go.Figure(
        go.Sunburst(
            ids=ids,
            labels=ids,
            parents=parents,
            values=values,
            branchvalues="total",
            marker={
                "colors": [_PATH if name in on_path else _OTHER for name in ids],
                "line": {"color": "white", "width": 0.5},
            },
            insidetextfont={
                "color": [
                    _PATH_TEXT if name in on_path and name not in leaves else _OTHER_TEXT
                    for name in ids
                ]
            },
            hovertemplate=f"%{{label}}: true P = %{{value:{_PROBABILITY}}}<extra></extra>",
            maxdepth=3,
            leaf={"opacity": _LEAF_OPACITY},
        )
    )
    # on one line the title ran past a lesson column's right edge ("...code 1409's pat");
    # a sunburst has no legend: lesson_style's legend rows do not apply
    wrapped = wrap_title(title, LESSON_TITLE_LINE)
    frame_title_and_legend(fig, wrapped, TREE_HEIGHT + title_height(wrapped), FONT_SIZE)
    fig.update_layout(
        margin={"l": 0, "r": 0, "b": 0},
        font={"size": FONT_SIZE},
        # decided as drawn, so a phone hides more and a zoomed-in branch labels its wedges
        uniformtext={"minsize": TREE_LABEL_MIN_PX, "mode": "hide"},
    )
    data = pd.DataFrame({"node": ids, "parent": parents, "true P (class 0)": values})
    return readable(fig), data


def leaf_figure(leaf_table: pd.DataFrame, label: str) -> tuple[go.Figure, pd.DataFrame]:
    """The sparse code's estimate per class under each smoother, the truth as a bar of its
    own; the values on hover (printed on eight narrow bars they ran together)."""
    fig = go.Figure()
    classes = [f"class {c}" for c in leaf_table["class"].unique()]
    truth = leaf_table.drop_duplicates("class")["truth"].to_numpy()
    fig.add_trace(hover_bar("truth", classes, truth, TRUTH_COLOR, value_format=_PROBABILITY))
    for name, part in leaf_table.groupby("smoother", sort=False):
        fig.add_trace(
            hover_bar(
                escape(name),
                classes,
                part["estimate"],
                series_color(name),
                value_format=_PROBABILITY,
            )
        )
    fig.update_layout(barmode="group", yaxis_title=f"P(code {escape(label)} | class)")
    fig.update_yaxes(rangemode="tozero")
    return lesson_style(fig, f"Code {escape(label)}: estimate against the truth", 440), leaf_table


def prefix_figure(prefix_table: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """Class 0's codes of the sparse code's prefix: truth and each smoother's estimate."""
    fig = go.Figure()
    codes = [escape(c) for c in prefix_table["code"]]
    # each code's class-0 rows on the axis and in the hover: the presenter mode shows no
    # table (the title said "rows ... in the table" there too)
    rows = prefix_table.iloc[:, 1].to_numpy()
    ticks = [
        f"{c}<br>{int(n)} {'row' if int(n) == 1 else 'rows'}"
        for c, n in zip(codes, rows, strict=True)
    ]
    hover = "%{x}: %{y:" + _PROBABILITY + "}<extra>%{fullData.name}</extra>"
    fig.add_trace(
        go.Bar(name="truth", x=codes, y=prefix_table["truth"], marker_color=_OTHER,
               marker_line={"color": TRUTH_COLOR, "width": 1}, hovertemplate=hover)
    )  # fmt: skip
    for name in prefix_table.columns[3:]:
        fig.add_trace(
            go.Scatter(
                name=escape(name),
                x=codes,
                y=prefix_table[name],
                hovertemplate=hover,
                mode="markers+lines",
                marker={"size": 10, "color": series_color(name)},
                line={"color": series_color(name), "width": 2},
            )
        )
    fig.update_layout(xaxis_title="code, and its rows of class 0")
    fig.update_xaxes(tickmode="array", tickvals=codes, ticktext=ticks)
    fig.update_yaxes(title="P(code | class 0)", rangemode="tozero")
    return lesson_style(fig, "The code's siblings (same prefix), class 0", 420), prefix_table


def concentration_figure(concentrations: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """HEB-H's learned m at each level per class (log scale), the true concentration beside."""
    fig = go.Figure()
    for c, part in concentrations.groupby("class", sort=True):
        fig.add_trace(
            go.Scatter(
                name=f"learned m, class {c}",
                x=part["level"],
                y=part["learned m"],
                mode="markers+lines",
                marker={"size": 13, "color": class_color(int(c))},
                line={"color": class_color(int(c)), "width": 2},
            )
        )
    truth = concentrations.drop_duplicates("level")
    if truth["true concentration"].notna().any():
        fig.add_trace(
            go.Scatter(
                name="true concentration",
                x=truth["level"],
                y=truth["true concentration"],
                mode="markers",
                marker={"size": 16, "color": TRUTH_COLOR, "symbol": "diamond-open",
                        "line": {"width": 3}},
            )
        )  # fmt: skip
    fig.update_xaxes(title="level (from the root down)")
    # one labelled tick per decade: plotly's own labels 2 and 5 in every decade as well
    shown = concentrations[["learned m", "true concentration"]].to_numpy(dtype=float).ravel()
    # short: on a scaled presenter step (1280 x 720) the plot is 119 px tall, and
    # "concentration m (log scale)" ran up into the figure's title and legend
    fig.update_yaxes(title="m (log scale)", **log_axis(shown))
    return lesson_style(fig, "The concentration learned at each level", 420), concentrations
