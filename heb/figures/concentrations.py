"""Figures of the learned concentrations: the class x feature heatmap, the paper's Figure 5.

Both read a concentration table (``NaiveBayes.concentrations_``: one row per (class,
feature) pair) and mark each pair's state: fitted by Type-II ML, clamped at either end,
or the small-class fallback m = K_f.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from heb.figures.style import (
    CLAMP_COLORS,
    FONT_SIZE,
    INK,
    NEUTRAL_COLOR,
    escape,
    escape_all,
    log_axis,
    style,
)
from heb.text import shorten

__all__ = [
    "CLAMP_STATES",
    "MAX_TICK_LABEL",
    "PAPER_SLOPE",
    "MAX_STRIP_XS",
    "concentration_heatmap",
    "concentration_scatters",
    "strip_positions",
    "aode_concentration_heatmap",
]

CLAMP_STATES = {  # state -> (legend label, colour, marker symbol)
    "none": ("fitted by Type-II ML", CLAMP_COLORS["none"], "circle"),
    "high": ("clamped at m_max", CLAMP_COLORS["high"], "triangle-up"),
    "low": ("clamped at m_min", CLAMP_COLORS["low"], "triangle-down"),
    "fallback": ("fallback m = K_f (N_c < N0)", CLAMP_COLORS["fallback"], "square"),
}
#: characters of a feature's label under the heatmap at most (its hover names it whole)
MAX_TICK_LABEL = 30
#: the log-log slope the paper's Figure 5 expects in each scatter (m, then rho)
PAPER_SLOPE = (1.0, 1.0)

_DIAG_REQUIRED = ("class", "feature", "N_c", "K_f", "m", "rho", "clamped")


def _check_required(columns: Mapping) -> None:
    """Refuse a table without a NaiveBayes table's columns in one sentence (an AODE's or
    TAN's, per (parent, child) pair, is drawn by :func:`aode_concentration_heatmap`)."""
    missing = [name for name in _DIAG_REQUIRED if name not in columns]
    if missing and {"parent", "child"} <= set(columns):
        raise ValueError(
            "This concentration table is per (parent, child) pair, an AODE's or TAN's: "
            "draw one class of it with aode_concentration_heatmap(table, class_name)."
        )
    if missing:
        raise ValueError(f"The concentration table lacks column(s) {', '.join(missing)}.")


def _diag_arrays(diag) -> dict[str, np.ndarray]:
    """The columns of a concentration table as equal-length arrays, clamp state as text."""
    if diag is None:
        raise ValueError("This model has no learned concentrations (use HEB-U or HEB-M).")
    if isinstance(diag, pd.DataFrame):
        columns = {name: diag[name].to_numpy() for name in diag.columns}
    elif isinstance(diag, Mapping):
        columns = {name: np.asarray(value) for name, value in diag.items()}
    else:
        raise TypeError("The concentration table must be a dict of arrays or a DataFrame.")
    _check_required(columns)
    lengths = {np.shape(columns[name]) for name in columns}
    if len(lengths) != 1 or len(next(iter(lengths))) != 1:
        raise ValueError("The concentration table's columns must be 1-D and equally long.")
    if len(columns["m"]) == 0:
        raise ValueError("The concentration table is empty.")
    clamped = columns["clamped"]
    if clamped.dtype.kind in "iub":
        clamped = np.array(["low", "none", "high"])[np.sign(clamped.astype(int)) + 1]
    columns["clamped"] = clamped.astype(str)
    for name in ("N_c", "K_f", "m", "rho"):
        columns[name] = columns[name].astype(np.float64)
    for name in ("class", "feature"):
        columns[name] = columns[name].astype(np.int64)
    fallback = columns.get("fallback")
    columns["fallback"] = (
        np.zeros(len(clamped), dtype=bool) if fallback is None else fallback.astype(bool)
    )
    columns["state"] = np.where(columns["fallback"], "fallback", columns["clamped"])
    return columns


def _table_names(diag, names: Sequence | None, what: str) -> Sequence | None:
    """``names``, else those a :func:`heb.diagnostics.concentration_table` frame holds in
    its ``<what> name`` column, by index (None when it has none)."""
    column = f"{what} name"
    if names is not None or not isinstance(diag, pd.DataFrame) or column not in diag:
        return names
    index = diag[what].to_numpy(dtype=np.int64)
    found = np.full(int(index.max(initial=-1)) + 1, "", dtype=object)
    found[index] = diag[column].astype(str).to_numpy()
    return list(found)


def _names_for(indices: np.ndarray, names: Sequence | None, what: str) -> np.ndarray:
    """Display names (escaped) for index codes (vectorised lookup)."""
    if names is None:
        return np.char.add(f"{what} ", indices.astype(str)).astype(object)
    lookup = np.asarray(escape_all(names), dtype=object)
    if indices.min() < 0 or indices.max() >= lookup.size:
        raise ValueError(
            f"The concentration table has {what} index {int(indices.max())} but only "
            f"{lookup.size} {what} names were given."
        )
    return lookup[indices]


def concentration_heatmap(
    diag,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    value: str = "m",
    class_title: str = "class",
) -> go.Figure:
    """Heatmap class x feature of the learned concentrations.

    Parameters
    ----------
    diag : dict of ndarray or DataFrame
        ``NaiveBayes.concentrations_``: one row per (class, feature) pair with class,
        feature, N_c, K_f, m, rho, clamped (and iterations, fallback).
    feature_names, class_names : sequence of str, optional
        Needed with ``concentrations_``; default the ``feature name`` and ``class name``
        columns of a :func:`heb.diagnostics.concentration_table` frame.
    value : {"m", "rho", "iterations"}
        Colour by log10 m, by the shrinkage rho = m / (N_c + m), or by iterations.
    class_title : str
        The class axis's title: the target's name where known (a feature may be called
        ``class``).

    Returns
    -------
    go.Figure
        The heatmap (hover: N_c, K_f, m, rho, clamp state) with ▲ / ▼ markers on pairs
        clamped at m_max / m_min.
    """
    choices = {"m": "log10 m", "rho": "rho", "iterations": "iterations"}
    if value not in choices:
        raise ValueError(f"value must be one of {', '.join(choices)}, got {value!r}.")
    columns = _diag_arrays(diag)
    feature_names = _table_names(diag, feature_names, "feature")
    class_names = _table_names(diag, class_names, "class")
    if feature_names is None or class_names is None:
        raise ValueError(
            "Give feature_names and class_names, or pass concentration_table(model), "
            "whose frame names them."
        )
    if value == "iterations" and "iterations" not in columns:
        raise ValueError("The concentration table has no iterations column.")
    cls, feat = columns["class"], columns["feature"]
    class_labels = _names_for(cls, class_names, "class")
    feature_labels = _names_for(feat, feature_names, "feature")
    n_classes, n_features = len(class_names), len(feature_names)
    if value == "m":
        shown = np.log10(np.maximum(columns["m"], 1e-300))
        zmin, zmax = min(-2.0, float(shown.min())), max(4.0, float(shown.max()))
    elif value == "rho":
        shown, zmin, zmax = columns["rho"], 0.0, 1.0
    else:
        shown = columns["iterations"].astype(np.float64)
        zmin, zmax = 0.0, max(1.0, float(shown.max()))
    grid = np.full((n_classes, n_features), np.nan)
    grid[cls, feat] = shown
    states = list(CLAMP_STATES)
    state_text = np.array([CLAMP_STATES[state][0] for state in states], dtype=object)
    state_index = np.select([columns["state"] == state for state in states], range(len(states)))
    hover = np.full((n_classes, n_features, 7), None, dtype=object)
    hover[cls, feat, 0] = class_labels
    hover[cls, feat, 1] = feature_labels
    hover[cls, feat, 2] = columns["N_c"]
    hover[cls, feat, 3] = columns["K_f"]
    hover[cls, feat, 4] = columns["m"]
    hover[cls, feat, 5] = columns["rho"]
    hover[cls, feat, 6] = state_text[state_index]
    fig = go.Figure(
        go.Heatmap(
            z=grid,
            x=np.arange(n_features),
            y=np.arange(n_classes),
            customdata=hover,
            zmin=zmin,
            zmax=zmax,
            colorscale="Viridis",
            colorbar={"title": {"text": choices[value]}, "ticklabelposition": "outside bottom"},
            xgap=1,
            ygap=1,
            hovertemplate="class %{customdata[0]}<br>feature %{customdata[1]}<br>"
            "N_c = %{customdata[2]:.0f}, K_f = %{customdata[3]:.0f}<br>"
            "m = %{customdata[4]:.4g}, rho = %{customdata[5]:.3f}<br>"
            "%{customdata[6]}<extra></extra>",
            name=choices[value],
        )
    )
    width = int(min(1800, max(700, 300 + 32 * n_features)))
    cell_px = (width - 300) / max(n_features, 1)
    marker_size = float(np.clip(0.5 * cell_px, 6, 13))
    marks = (("high", "triangle-up"), ("low", "triangle-down"), ("fallback", "square"))
    for state, symbol in marks:
        mask = columns["state"] == state
        if mask.any():
            fig.add_trace(
                go.Scatter(
                    x=feat[mask],
                    y=cls[mask],
                    mode="markers",
                    name=CLAMP_STATES[state][0],
                    marker={
                        "symbol": symbol,
                        "size": marker_size * (0.75 if state == "fallback" else 1.0),
                        "color": NEUTRAL_COLOR if state == "fallback" else "white",
                        "line": {"color": INK, "width": 1.5},
                    },
                    hoverinfo="skip",
                )
            )
    fig.update_layout(showlegend=len(fig.data) > 1)
    many = n_features > 20
    # up to 8 features plotly turns the labels only where they would run together (a
    # narrow window: "user_idstore_id" at 1024 px with the sidebar open)
    angle = {"tickangle": -60 if many else -45} if n_features > 8 else {}
    fig.update_xaxes(
        tickmode="array",
        tickvals=np.arange(n_features),
        # a long name is cut (the hover has it whole): plotly hid a 250-character
        # column's label, leaving its column of cells unnamed
        ticktext=escape_all([shorten(str(name), MAX_TICK_LABEL) for name in feature_names]),
        title_text="feature",
        showgrid=False,
        zeroline=False,
        **angle,
        # FONT_SIZE - 1: the app's tick size, which explorer.display's styling once imposed
        # on every axis; it now keeps a figure's larger size, and these labels stay as drawn
        tickfont={"size": FONT_SIZE - 3 if many else FONT_SIZE - 1},
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=np.arange(n_classes),
        ticktext=escape_all(class_names),
        title_text=escape(class_title),
        ticklabelstandoff=6,
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        tickfont={"size": FONT_SIZE - 3 if n_classes > 20 else FONT_SIZE - 1},
    )
    title = {
        "m": "log10 of the learned concentration m",
        "rho": "Shrinkage rho = m / (N_c + m)",
        "iterations": "Fixed-point iterations",
    }[value]
    style(fig, title, int(min(1000, 300 + 36 * n_classes)))
    fig.update_layout(width=width)
    return fig


#: the fewest distinct x values a log-log line is fitted through (two give a slope that
#: only joins two clouds: the rho scatter of a two-class dataset has two x values)
MIN_FIT_XS = 3


def _fit_line(x: np.ndarray, y: np.ndarray, paper: float) -> go.Scatter:
    """Least-squares line in log-log space; with fewer than :data:`MIN_FIT_XS` distinct x
    values, a legend entry saying why there is none."""
    distinct = np.unique(x).size
    if distinct < MIN_FIT_XS:
        return go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            # short: a legend entry wider than the figure was cut ("a line nee")
            name=f"no slope fitted: {distinct} distinct x (needs {MIN_FIT_XS}); paper: {paper:g}",
            line={"color": INK, "dash": "dash", "width": 2},
            hoverinfo="skip",
        )
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    grid = np.geomspace(x.min(), x.max(), 30)
    return go.Scatter(
        x=grid,
        y=np.exp(intercept) * grid**slope,
        mode="lines",
        name=f"log-log fit to fitted pairs: slope {slope:.2f} (paper: {paper:g})",
        line={"color": INK, "dash": "dash", "width": 2},
        hoverinfo="skip",
    )


#: at most this many distinct x values make a scatter a strip plot: each value's points
#: spread sideways (jitter) so that they do not hide one another
MAX_STRIP_XS = 5
#: the jitter's half-width, as a share of the log gap between neighbouring x values, and
#: in decades around a single x value
_STRIP_SHARE, _STRIP_SINGLE = 0.22, 0.04


def strip_positions(x: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
    """Where a scatter on a log x axis draws its points when they share few x values.

    Parameters
    ----------
    x : ndarray
        Positive x values of the points.
    seed : int
        The jitter's seed (the figure is the same on every draw).

    Returns
    -------
    (ndarray, ndarray) or None
        The drawn x (each point moved sideways within a band around its value, narrower
        than the gap to the next value: the columns never meet) and the distinct values
        (the axis's ticks); None when the x values are more than :data:`MAX_STRIP_XS` or
        no two points share one (nothing hides).
    """
    x = np.asarray(x, dtype=np.float64)
    values = np.unique(x)
    if values.size > MAX_STRIP_XS or values.size == x.size:
        return None
    logs = np.log10(values)
    gaps = np.diff(logs)
    half = _STRIP_SHARE * gaps.min() if gaps.size else _STRIP_SINGLE
    offsets = np.random.default_rng(seed).uniform(-half, half, x.size)
    return x * 10.0**offsets, values


def _strip_axis(values: np.ndarray, drawn: np.ndarray) -> dict:
    """A log x axis with one labelled tick per distinct value, the bands in view."""
    logs = np.log10(drawn)
    pad = 0.15 * max(float(logs.max() - logs.min()), 0.1)
    return {
        "type": "log",
        "tickmode": "array",
        "tickvals": values,
        "ticktext": [f"{value:.3g}" for value in values],
        "range": [float(logs.min()) - pad, float(logs.max()) + pad],
    }


def concentration_scatters(
    diag, feature_names: Sequence[str] | None = None, class_names: Sequence[str] | None = None
) -> tuple[go.Figure, go.Figure]:
    """The paper's Figure 5: how the learned m and rho scale with the data.

    Parameters
    ----------
    diag : dict of ndarray or DataFrame
        ``NaiveBayes.concentrations_`` (see :func:`concentration_heatmap`).
    feature_names, class_names : sequence of str, optional
        Names used in the hover: default a :func:`heb.diagnostics.concentration_table`
        frame's own, else ``feature 0``, ``class 0``, ...

    Returns
    -------
    (go.Figure, go.Figure)
        m against sqrt(N_c) log(K_f), and rho against 1 / sqrt(N_c), both log-log,
        coloured by state (fitted, clamped high / low, small-class fallback), with a
        log-log least-squares line through the fitted pairs. Pairs that cannot sit on a
        log axis (N_c = 0, or K_f = 1 in the first plot) are left out and counted.
    """
    columns = _diag_arrays(diag)
    class_names = _table_names(diag, class_names, "class")
    feature_names = _table_names(diag, feature_names, "feature")
    class_labels = _names_for(columns["class"], class_names, "class")
    feature_labels = _names_for(columns["feature"], feature_names, "feature")
    n_c, k_f = columns["N_c"], columns["K_f"]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale_m = np.sqrt(np.maximum(n_c, 0)) * np.log(np.maximum(k_f, 1))
        scale_rho = np.where(n_c > 0, 1 / np.sqrt(np.maximum(n_c, 1e-300)), 0.0)
    hover = (
        "class %{customdata[0]}, feature %{customdata[1]}<br>"
        "N_c = %{customdata[2]:.0f}, K_f = %{customdata[3]:.0f}<br>"
        "x = %{customdata[4]:.4g}, "
    )
    specs = [
        (
            scale_m,
            columns["m"],
            "sqrt(N_c) · ln(K_f)",
            "learned concentration m",
            "Learned m against sqrt(N_c) · ln(K_f)",
            "m = %{y:.4g}",
            "N_c = 0 or K_f = 1",
        ),
        (
            scale_rho,
            columns["rho"],
            "1 / sqrt(N_c)",
            "shrinkage rho = m / (N_c + m)",
            "Shrinkage rho against 1 / sqrt(N_c)",
            "rho = %{y:.3f}",
            "N_c = 0",
        ),
    ]
    figures = []
    for (x, y, x_title, y_title, title, y_hover, why), paper in zip(
        specs, PAPER_SLOPE, strict=True
    ):
        fig = go.Figure()
        placeable = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
        custom = np.stack(
            [class_labels, feature_labels, n_c.astype(object), k_f.astype(object), x], axis=1
        )
        drawn = x.copy()
        strip = strip_positions(x[placeable]) if placeable.any() else None
        if strip is not None:
            drawn[placeable] = strip[0]
        for state, (label, color, symbol) in CLAMP_STATES.items():
            mask = placeable & (columns["state"] == state)
            if not mask.any():
                continue
            fig.add_trace(
                go.Scatter(
                    x=drawn[mask],
                    y=y[mask],
                    customdata=custom[mask],
                    mode="markers",
                    name=f"{label} ({int(mask.sum())})",
                    marker={
                        "color": color,
                        "symbol": symbol,
                        "size": 9,
                        "opacity": 0.75,
                        "line": {"width": 0.5, "color": "white"},
                    },
                    hovertemplate=hover + y_hover + f"<br>{label}<extra></extra>",
                )
            )
        fitted = placeable & (columns["state"] == "none")
        fig.add_trace(_fit_line(x[fitted], y[fitted], paper))
        notes = []
        if strip is not None:
            notes.append("points spread sideways; hover: exact x")  # a half-width figure
        left_out = int((~placeable).sum())
        if left_out:
            notes.append(f"{left_out} pair(s) with {why} cannot sit on a log axis: not shown")
        for note in notes:
            x_title += f"<br><span style='font-size:{FONT_SIZE - 3}px'>({note})</span>"
        x_axis = log_axis(x[placeable]) if strip is None else _strip_axis(strip[1], strip[0])
        fig.update_xaxes(title_text=x_title, **x_axis)
        fig.update_yaxes(title_text=y_title, **log_axis(y[placeable]))
        style(fig, title, 520 + 20 * len(notes))
        if notes:
            fig.update_layout(margin={"b": 75 + 20 * len(notes)})
        figures.append(fig)
    return figures[0], figures[1]


def aode_concentration_heatmap(grid: pd.DataFrame, class_name: str) -> go.Figure:
    """HEB-AODE's learned m per (super-parent, child) of one class.

    Parameters
    ----------
    grid : DataFrame
        m values, super-parent feature names as the index and child names as columns;
        or a HEB-AODE model's :func:`heb.diagnostics.concentration_table`, whose rows of
        class ``class_name`` give that grid.
    class_name : str
    """
    if {"class name", "parent name", "child name", "m"} <= set(grid.columns):
        grid = _class_grid(grid, class_name)
    fig = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(dtype=np.float64),
            x=escape_all(grid.columns),
            y=escape_all(grid.index),
            colorscale="Viridis",
            colorbar={"title": {"text": "m"}},
            hovertemplate="parent %{y}<br>child %{x}<br>m %{z:.3g}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="child feature", type="category")
    fig.update_yaxes(title_text="super-parent feature", type="category")
    title = f"HEB-AODE: m per (parent, child), class {escape_all([class_name])[0]}"
    return style(fig, title, max(380, 28 * len(grid) + 160))


def _class_grid(table: pd.DataFrame, class_name) -> pd.DataFrame:
    """One class's m of a HEB-AODE concentration table as (super-parent x child): the
    table itself failed in plotly with "could not convert string to float: 'high'"."""
    names = table["class name"].astype(str)
    chosen = table[names == str(class_name)]
    if chosen.empty:
        classes = ", ".join(repr(c) for c in dict.fromkeys(names))
        raise ValueError(f"The table has no class {str(class_name)!r}; its classes are {classes}.")
    return chosen.pivot_table(
        index="parent name", columns="child name", values="m", aggfunc="first"
    )
