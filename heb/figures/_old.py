"""Plotly figure builders from results (layer 4: no streamlit, no formulas of the method).

Every builder returns a ``plotly.graph_objects.Figure`` styled for a projector: base font
16 px, white background, the legend above the plot, and one fixed colour per method
(:func:`method_color`) so a method looks the same on every page. :func:`to_image_bytes`
exports PNG / SVG through kaleido and Debian's Chromium.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

__all__ = [
    "FONT_SIZE",
    "METHOD_COLORS",
    "frame_title_and_legend",
    "legend_rows",
    "title_height",
    "method_color",
    "method_label",
    "reliability_diagram",
    "cd_diagram",
    "concentration_heatmap",
    "concentration_scatters",
    "l1_error_figure",
    "metric_bars",
    "fold_boxes",
    "rows_per_category_heatmap",
    "to_image_bytes",
]

#: base font size in pixels (readable on a projector)
FONT_SIZE = 16
#: one colour per known method; HEB variants warm, fixed-prior smoothers cool
METHOD_COLORS = {
    "Laplace": "#1f77b4",
    "Lidstone": "#17becf",
    "KT": "#8c564b",
    "m-estimate": "#9467bd",
    "TE": "#7f7f7f",
    "HEB-U": "#ff7f0e",
    "HEB-M": "#d62728",
    "HEB-M+GR": "#8b0a1a",
    "Laplace+GR": "#0b3a6e",
    "AODE": "#2ca02c",
    "HEB-AODE": "#e377c2",
}
_ALIASES = {name.lower(): name for name in METHOD_COLORS} | {
    "mestimate": "m-estimate",
    "m-est": "m-estimate",
    "hebu": "HEB-U",
    "hebm": "HEB-M",
    "heb-m-gr": "HEB-M+GR",
    "laplace-gr": "Laplace+GR",
    "hebaode": "HEB-AODE",
}
#: colours for names outside the fixed palette (picked by a stable hash of the name)
_EXTRA_COLORS = (
    "#bcbd22",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#7b4173",
    "#3182bd",
    "#e6550d",
    "#31a354",
    "#756bb1",
    "#636363",
)
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "pentagon")
_INK = "#222222"
_CLAMP_STATES = {  # state -> (legend label, colour, marker symbol)
    "none": ("fitted by Type-II ML", "#1f77b4", "circle"),
    "high": ("clamped at m_max", "#d62728", "triangle-up"),
    "low": ("clamped at m_min", "#ff7f0e", "triangle-down"),
    "fallback": ("fallback m = K_f (N_c < N0)", "#7f7f7f", "square"),
}
_METRIC_LABELS = {
    "accuracy": "Accuracy",
    "f1_macro": "F1 (macro)",
    "log_loss": "Log-loss",
    "brier": "Brier score",
    "auc": "AUC",
    "ece": "ECE (top-1, 10 bins)",
    "fit_time": "Fit time (s)",
}


# --------------------------------------------------------------------- style
def method_label(name: str) -> str:
    """The display name of a method (``"heb-m"`` -> ``"HEB-M"``); unknown names unchanged."""
    return _ALIASES.get(str(name).strip().lower().replace(" ", ""), str(name))


def method_color(name: str) -> str:
    """The fixed colour of a method, the same in every figure.

    Known methods (any case: ``"heb-m"``, ``"HEB-M"``) get their palette colour; any
    other name gets a colour chosen by a stable hash of the name.
    """
    label = method_label(name)
    if label in METHOD_COLORS:
        return METHOD_COLORS[label]
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return _EXTRA_COLORS[digest[0] % len(_EXTRA_COLORS)]


def legend_rows(fig: go.Figure, width: float = 700.0) -> int:
    """Rough number of rows a horizontal legend takes at ``width`` pixels (0: no legend)."""
    names = [
        str(trace.name or "")
        for trace in fig.data
        if trace.showlegend is True or (trace.showlegend is None and trace.type != "heatmap")
    ]
    if fig.layout.showlegend is False or (len(names) < 2 and fig.layout.showlegend is not True):
        return 0
    total, rows = 0.0, 1
    for name in names:
        item = 50 + 0.55 * FONT_SIZE * len(name)
        if total + item > width and total > 0:
            rows, total = rows + 1, 0.0
        total += item
    return rows


def _log_axis(values: np.ndarray) -> dict:
    """Log-axis settings: one labelled tick per decade when the data span several."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return {"type": "log"}
    plain = values.min() >= 1e-3 and values.max() <= 1e5  # 0.001 ... 100000 read fine
    axis = {"type": "log", "exponentformat": "none" if plain else "power"}
    if np.log10(values.max() / values.min()) >= 1.2:
        return axis | {"dtick": 1}
    return axis | {"nticks": 6}


#: the reliability diagram's whole height in pixels, whatever its legend
RELIABILITY_HEIGHT = 520
#: pixels above the title, and between the title (or legend) and the plot
TITLE_PAD = 12
PLOT_GAP = 14


def title_height(title: str, font_size: int = FONT_SIZE + 4) -> int:
    """Pixels the title block takes at the top of a figure (0 without a title)."""
    if not title:
        return 0
    lines = 1 + title.lower().count("<br>")
    return TITLE_PAD + int(round(1.3 * font_size * lines))


def frame_title_and_legend(
    fig: go.Figure, title: str, height: int, font_size: int = FONT_SIZE
) -> go.Figure:
    """Title at the figure's top left, the legend right under it, the plot under both.

    The title and a horizontal legend are placed in container (pixel) coordinates, so
    they never overlap whatever the width: plotly reserves the top margin down to the
    legend's last row, however many rows it wraps onto, and adds no gap above it.
    ``height`` is the whole figure's height in pixels.
    """
    top = title_height(title, font_size + 4)
    # plotly centres a multi-line title on its anchor: move it down by the extra half
    lines = 1 + title.lower().count("<br>") if title else 1
    shift = 0.5 * (lines - 1) * 1.3 * (font_size + 4)
    fig.update_layout(
        height=height,
        title={
            "text": title,
            "font": {"size": font_size + 4},
            "x": 0.0,
            "xref": "container",
            "xanchor": "left",
            "y": 1.0 - shift / height,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": TITLE_PAD, "l": 10},
            "automargin": False,
        },
        legend={
            "orientation": "h",
            "x": 0.0,
            "xref": "paper",
            "xanchor": "left",
            "y": 1.0 - (top + 4) / height,
            "yref": "container",
            "yanchor": "top",
            "font": {"size": font_size - 1},
        },
        margin={"t": top + PLOT_GAP},
    )
    return fig


def _style(fig: go.Figure, title: str, height: int, grow_with_legend: bool = True) -> go.Figure:
    """Projector styling; ``height`` is the figure's height without the legend rows.

    With ``grow_with_legend=False`` the height is the whole figure's and a legend that
    wraps takes its rows from the plot.
    """
    rows = legend_rows(fig) if grow_with_legend else 0
    fig.update_layout(
        template="plotly_white",
        font={"size": FONT_SIZE, "color": _INK},
        margin={"l": 80, "r": 30, "b": 70},
        hoverlabel={"font": {"size": FONT_SIZE - 2}},
    )
    return frame_title_and_legend(fig, title, height + 30 * rows)


# ---------------------------------------------------------------- reliability
def _check_curve(name: str, curve: Mapping) -> dict[str, np.ndarray]:
    missing = {"edges", "count", "confidence", "accuracy", "ece"} - set(curve)
    if missing:
        raise ValueError(f"Reliability curve {name!r} lacks {', '.join(sorted(missing))}.")
    edges = np.asarray(curve["edges"], dtype=np.float64)
    count = np.asarray(curve["count"], dtype=np.float64)
    confidence = np.asarray(curve["confidence"], dtype=np.float64)
    accuracy = np.asarray(curve["accuracy"], dtype=np.float64)
    n_bins = count.size
    if edges.shape != (n_bins + 1,) or confidence.shape != (n_bins,) or accuracy.shape != (n_bins,):
        raise ValueError(
            f"Reliability curve {name!r} needs B+1 edges and B counts, confidences and accuracies."
        )
    ece = float(curve["ece"])
    if not math.isfinite(ece):
        raise ValueError(f"Reliability curve {name!r} has a non-finite ECE.")
    return {
        "edges": edges,
        "count": count,
        "confidence": confidence,
        "accuracy": accuracy,
        "ece": ece,
    }


def reliability_diagram(
    curves: Mapping[str, Mapping],
    title: str = "Reliability diagram",
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """Top-1 reliability curves of several methods, with the rows per bin beneath.

    Parameters
    ----------
    curves : dict of str to dict
        Per method, the output of :func:`heb.metrics.reliability`: ``edges`` (B+1,),
        ``count``, ``confidence``, ``accuracy`` (B,) and ``ece``. Empty bins are skipped.
    title : str
    colors : dict of str to str, optional
        Colour per curve name; default (and for names left out) :func:`method_color`.

    Returns
    -------
    go.Figure
        Row 1: accuracy vs mean confidence per method and the diagonal of perfect
        calibration; row 2: grouped bars of the bin counts (shared x axis).
    """
    if not curves:
        raise ValueError("Give at least one method's reliability curve.")
    checked = {name: _check_curve(name, curve) for name, curve in curves.items()}
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.72, 0.28], vertical_spacing=0.05
    )
    fig.add_trace(
        go.Scatter(
            x=[0.0, 1.0],
            y=[0.0, 1.0],
            mode="lines",
            name="perfect calibration",
            line={"color": "#9e9e9e", "dash": "dash", "width": 2},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    for index, (name, curve) in enumerate(checked.items()):
        color = (colors or {}).get(name) or method_color(name)
        keep = (curve["count"] > 0) & np.isfinite(curve["confidence"])
        keep &= np.isfinite(curve["accuracy"])
        fig.add_trace(
            go.Scatter(
                x=curve["confidence"][keep],
                y=curve["accuracy"][keep],
                customdata=curve["count"][keep],
                mode="lines+markers",
                name=f"{method_label(name)} (ECE {curve['ece']:.3f})",
                legendgroup=name,
                line={"color": color, "width": 3},
                marker={"size": 9, "symbol": _SYMBOLS[index % len(_SYMBOLS)]},
                hovertemplate=f"{method_label(name)}<br>confidence %{{x:.3f}}<br>"
                "accuracy %{y:.3f}<br>rows %{customdata:.0f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        edges = curve["edges"]
        fig.add_trace(
            go.Bar(
                x=(edges[:-1] + edges[1:]) / 2,
                y=curve["count"],
                name=method_label(name),
                legendgroup=name,
                showlegend=False,
                marker={"color": color},
                hovertemplate=f"{method_label(name)}<br>bin centre %{{x:.2f}}<br>"
                "rows %{y:.0f}<extra></extra>",
            ),
            row=2,
            col=1,
        )
    fig.update_layout(barmode="group", bargap=0.15)
    fig.update_xaxes(range=[0, 1], row=1, col=1)
    fig.update_xaxes(range=[0, 1], title_text="confidence (top-1 probability)", row=2, col=1)
    fig.update_yaxes(range=[0, 1.02], title_text="accuracy", row=1, col=1)
    fig.update_yaxes(title_text="rows", rangemode="tozero", row=2, col=1)
    return _style(fig, title, RELIABILITY_HEIGHT, grow_with_legend=False)


# ----------------------------------------------------------------- CD diagram
def _group_levels(spans: Sequence[tuple[float, float]], gap: float) -> list[int]:
    """Greedy levels for bars drawn in order: a bar goes on the first level it fits."""
    level_ends: list[float] = []
    levels = []
    for start, end in spans:
        for level, last_end in enumerate(level_ends):
            if start > last_end + gap:
                level_ends[level] = end
                levels.append(level)
                break
        else:
            level_ends.append(end)
            levels.append(len(level_ends) - 1)
    return levels


def cd_diagram(
    avg_ranks: Mapping[str, float],
    cd: float,
    groups: Sequence[Sequence[str]] | None = None,
    title: str = "",
) -> go.Figure:
    """Critical-difference diagram (Demšar 2006) of average ranks.

    Parameters
    ----------
    avg_ranks : dict of str to float
        Average rank of each method (1 = best).
    cd : float
        Nemenyi critical difference, drawn as a bracket above the axis.
    groups : list of tuple of str, optional
        Methods not significantly different, one thick bar each (single methods get no
        bar). Default: :func:`heb.stats.nemenyi_groups` of the ranks and ``cd``.
    title : str

    Returns
    -------
    go.Figure
        A rank axis from 1 (left) to k; the better half of the methods labelled on the
        left, the rest on the right, each joined to its rank by an elbow line; group bars
        stacked below the axis so that no two overlap.
    """
    names = [str(name) for name in avg_ranks]
    ranks = np.asarray([float(avg_ranks[name]) for name in avg_ranks], dtype=np.float64)
    k = len(names)
    if k < 2:
        raise ValueError("A critical-difference diagram needs at least two methods.")
    if not np.all(np.isfinite(ranks)):
        raise ValueError("Average ranks must be finite numbers.")
    if ranks.min() < 1 - 1e-9 or ranks.max() > k + 1e-9:
        raise ValueError(f"Average ranks must lie between 1 and the number of methods ({k}).")
    cd = float(cd)
    if not (math.isfinite(cd) and cd >= 0):
        raise ValueError(f"The critical difference must be a finite non-negative number, got {cd}.")
    if groups is None:
        from heb.stats import nemenyi_groups  # lazy: layer 1, only needed here

        groups = [tuple(names[i] for i in group) for group in nemenyi_groups(ranks, cd)]
    rank_of = dict(zip(names, ranks, strict=True))
    unknown = {str(member) for group in groups for member in group} - set(rank_of)
    if unknown:
        raise ValueError(f"Groups name methods without a rank: {', '.join(sorted(unknown))}.")

    order = np.argsort(ranks, kind="stable")
    n_left = math.ceil(k / 2)
    low, high = 1.0, float(k)
    pad = 0.12 * (high - low) + 0.2
    x_left, x_right = low - pad, high + pad
    spans = sorted(
        (
            (min(rank_of[str(m)] for m in group), max(rank_of[str(m)] for m in group), group)
            for group in groups
            if len(set(group)) >= 2
        ),
        key=lambda span: (span[0], span[1]),
    )
    levels = _group_levels([(s, e) for s, e, _ in spans], gap=0.1)
    n_levels = max(levels) + 1 if levels else 0
    bar_y = [-0.45 - 0.32 * level for level in levels]
    first_row = -0.45 - 0.32 * n_levels - 0.2
    row_step = 0.55
    n_rows = max(n_left, k - n_left)
    bottom = first_row - row_step * (n_rows - 1) - 0.4
    cd_y = 1.05

    fig = go.Figure()
    shapes = [
        {"type": "line", "x0": low, "x1": high, "y0": 0, "y1": 0, "name": "axis"},
    ]
    ticks = np.arange(low, high + 0.25, 0.5)
    for tick in ticks:
        size = 0.2 if float(tick).is_integer() else 0.11
        shapes.append({"type": "line", "x0": tick, "x1": tick, "y0": 0, "y1": size, "name": "tick"})
    shapes += [
        {"type": "line", "x0": low, "x1": low + cd, "y0": cd_y, "y1": cd_y, "name": "cd"},
        {"type": "line", "x0": low, "x1": low, "y0": cd_y - 0.1, "y1": cd_y + 0.1, "name": "cd"},
        {
            "type": "line",
            "x0": low + cd,
            "x1": low + cd,
            "y0": cd_y - 0.1,
            "y1": cd_y + 0.1,
            "name": "cd",
        },
    ]
    for (start, end, group), y in zip(spans, bar_y, strict=True):
        shapes.append(
            {
                "type": "line",
                "x0": start - 0.05,
                "x1": end + 0.05,
                "y0": y,
                "y1": y,
                "name": "group: " + ", ".join(str(m) for m in group),
                "line": {"width": 7, "color": _INK},
            }
        )
    for shape in shapes:
        shape.setdefault("line", {"width": 2, "color": _INK})
        shape.update(xref="x", yref="y", layer="above")
    fig.update_layout(shapes=shapes)

    annotations = [
        {"x": tick, "y": 0.26, "text": str(int(tick)), "yanchor": "bottom", "showarrow": False}
        for tick in ticks
        if float(tick).is_integer()
    ]
    annotations.append(
        {
            "x": low + cd / 2,
            "y": cd_y + 0.14,
            "text": f"CD = {cd:.2f}",
            "yanchor": "bottom",
            "showarrow": False,
        }
    )
    longest = 0
    for position, index in enumerate(order):
        name, rank = names[index], float(ranks[index])
        on_left = position < n_left
        row = position if on_left else k - 1 - position
        y = first_row - row_step * row
        end = x_left + 0.05 if on_left else x_right - 0.05
        label = (
            f"{method_label(name)} ({rank:.2f})"
            if on_left
            else f"({rank:.2f}) {method_label(name)}"
        )
        longest = max(longest, len(label))
        fig.add_trace(
            go.Scatter(
                x=[rank, rank, end],
                y=[0, y, y],
                mode="lines+markers",
                name=method_label(name),
                line={"color": method_color(name), "width": 2.5},
                marker={"size": [10, 0, 0], "color": method_color(name)},
                showlegend=False,
                hovertemplate=f"{method_label(name)}: mean rank {rank:.3f}<extra></extra>",
            )
        )
        annotations.append(
            {
                "x": end - 0.04 if on_left else end + 0.04,
                "y": y,
                "text": label,
                "xanchor": "right" if on_left else "left",
                "yanchor": "middle",
                "showarrow": False,
            }
        )
    for note in annotations:
        note.update(xref="x", yref="y")
    fig.update_layout(annotations=annotations)
    fig.update_xaxes(visible=False, range=[x_left - 0.1, max(x_right, low + cd) + 0.1])
    fig.update_yaxes(visible=False, range=[bottom, cd_y + 0.55])
    label_px = 16 + int(0.6 * FONT_SIZE * longest)
    _style(fig, title, int(70 * (cd_y + 0.55 - bottom)) + title_height(title) + 60)
    fig.update_layout(
        showlegend=False,
        margin={"l": label_px, "r": label_px, "b": 10},
        plot_bgcolor="white",
    )
    return fig


# ------------------------------------------------------------ concentrations
_DIAG_REQUIRED = ("class", "feature", "N_c", "K_f", "m", "rho", "clamped")


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
    missing = [name for name in _DIAG_REQUIRED if name not in columns]
    if missing:
        raise ValueError(f"The concentration table lacks column(s) {', '.join(missing)}.")
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


def _names_for(indices: np.ndarray, names: Sequence | None, what: str) -> np.ndarray:
    """Display names for index codes (vectorised lookup)."""
    if names is None:
        return np.char.add(f"{what} ", indices.astype(str)).astype(object)
    lookup = np.asarray([str(name) for name in names], dtype=object)
    if indices.min() < 0 or indices.max() >= lookup.size:
        raise ValueError(
            f"The concentration table has {what} index {int(indices.max())} but only "
            f"{lookup.size} {what} names were given."
        )
    return lookup[indices]


def concentration_heatmap(
    diag, feature_names: Sequence[str], class_names: Sequence[str], value: str = "m"
) -> go.Figure:
    """Heatmap class x feature of the learned concentrations.

    Parameters
    ----------
    diag : dict of ndarray or DataFrame
        ``NaiveBayes.concentrations_``: one row per (class, feature) pair with class,
        feature, N_c, K_f, m, rho, clamped (and iterations, fallback).
    feature_names, class_names : sequence of str
    value : {"m", "rho", "iterations"}
        Colour by log10 m, by the shrinkage rho = m / (N_c + m), or by iterations.

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
    states = list(_CLAMP_STATES)
    state_text = np.array([_CLAMP_STATES[state][0] for state in states], dtype=object)
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
                    name=_CLAMP_STATES[state][0],
                    marker={
                        "symbol": symbol,
                        "size": marker_size * (0.75 if state == "fallback" else 1.0),
                        "color": "#d9d9d9" if state == "fallback" else "white",
                        "line": {"color": _INK, "width": 1.5},
                    },
                    hoverinfo="skip",
                )
            )
    fig.update_layout(showlegend=len(fig.data) > 1)
    many = n_features > 20
    fig.update_xaxes(
        tickmode="array",
        tickvals=np.arange(n_features),
        ticktext=[str(name) for name in feature_names],
        title_text="feature",
        showgrid=False,
        zeroline=False,
        tickangle=(-60 if many else -45) if n_features > 8 else 0,
        tickfont={"size": FONT_SIZE - 3 if many else FONT_SIZE},
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=np.arange(n_classes),
        ticktext=[str(name) for name in class_names],
        title_text="class",
        ticklabelstandoff=6,
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        tickfont={"size": FONT_SIZE - 3 if n_classes > 20 else FONT_SIZE},
    )
    title = {
        "m": "log10 of the learned concentration m",
        "rho": "Shrinkage rho = m / (N_c + m)",
        "iterations": "Fixed-point iterations",
    }[value]
    _style(fig, title, int(min(1000, 300 + 36 * n_classes)))
    fig.update_layout(width=width)
    return fig


def _fit_line(x: np.ndarray, y: np.ndarray) -> go.Scatter | None:
    """Least-squares line in log-log space, or ``None`` with too few distinct points."""
    if x.size < 3 or np.ptp(np.log(x)) == 0:
        return None
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    grid = np.geomspace(x.min(), x.max(), 30)
    return go.Scatter(
        x=grid,
        y=np.exp(intercept) * grid**slope,
        mode="lines",
        name=f"log-log fit to fitted pairs: slope {slope:.2f}",
        line={"color": _INK, "dash": "dash", "width": 2},
        hoverinfo="skip",
    )


def concentration_scatters(
    diag, feature_names: Sequence[str], class_names: Sequence[str] | None = None
) -> tuple[go.Figure, go.Figure]:
    """The paper's Figure 5: how the learned m and rho scale with the data.

    Parameters
    ----------
    diag : dict of ndarray or DataFrame
        ``NaiveBayes.concentrations_`` (see :func:`concentration_heatmap`).
    feature_names : sequence of str
    class_names : sequence of str, optional
        Names used in the hover (default ``class 0``, ``class 1``, ...).

    Returns
    -------
    (go.Figure, go.Figure)
        m against sqrt(N_c) log(K_f), and rho against 1 / sqrt(N_c), both log-log,
        coloured by state (fitted, clamped high / low, small-class fallback), with a
        log-log least-squares line through the fitted pairs. Pairs that cannot sit on a
        log axis (N_c = 0, or K_f = 1 in the first plot) are left out and counted.
    """
    columns = _diag_arrays(diag)
    class_labels = _names_for(columns["class"], class_names, "class")
    feature_labels = _names_for(columns["feature"], feature_names, "feature")
    n_c, k_f = columns["N_c"], columns["K_f"]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale_m = np.sqrt(np.maximum(n_c, 0)) * np.log(np.maximum(k_f, 1))
        scale_rho = np.where(n_c > 0, 1 / np.sqrt(np.maximum(n_c, 1e-300)), 0.0)
    custom = np.stack(
        [class_labels, feature_labels, n_c.astype(object), k_f.astype(object)], axis=1
    )
    hover = (
        "class %{customdata[0]}, feature %{customdata[1]}<br>"
        "N_c = %{customdata[2]:.0f}, K_f = %{customdata[3]:.0f}<br>"
    )
    specs = [
        (
            scale_m,
            columns["m"],
            "sqrt(N_c) · ln(K_f)",
            "learned concentration m",
            "m grows like sqrt(N_c) · ln(K_f)",
            "m = %{y:.4g}",
            "N_c = 0 or K_f = 1",
        ),
        (
            scale_rho,
            columns["rho"],
            "1 / sqrt(N_c)",
            "shrinkage rho = m / (N_c + m)",
            "rho shrinks like 1 / sqrt(N_c)",
            "rho = %{y:.3f}",
            "N_c = 0",
        ),
    ]
    figures = []
    for x, y, x_title, y_title, title, y_hover, why in specs:
        fig = go.Figure()
        placeable = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
        for state, (label, color, symbol) in _CLAMP_STATES.items():
            mask = placeable & (columns["state"] == state)
            if not mask.any():
                continue
            fig.add_trace(
                go.Scatter(
                    x=x[mask],
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
        line = _fit_line(x[fitted], y[fitted])
        if line is not None:
            fig.add_trace(line)
        left_out = int((~placeable).sum())
        if left_out:
            x_title += (
                f"<br><span style='font-size:{FONT_SIZE - 3}px'>({left_out} pair(s) with "
                f"{why} cannot sit on a log axis: not shown)</span>"
            )
        fig.update_xaxes(title_text=x_title, **_log_axis(x[placeable]))
        fig.update_yaxes(title_text=y_title, **_log_axis(y[placeable]))
        _style(fig, title, 520)
        if left_out:
            fig.update_layout(margin={"b": 95})
        figures.append(fig)
    return figures[0], figures[1]


# -------------------------------------------------------------- l1 error study
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
        label = method_label(smoother)
        fig.add_trace(
            go.Scatter(
                x=part["ratio"].to_numpy(),
                y=part["mean"].to_numpy(),
                customdata=part["settings"].to_numpy(),
                mode="lines+markers",
                name=label,
                line={"color": method_color(smoother), "width": 3},
                marker={"size": 10, "symbol": _SYMBOLS[index % len(_SYMBOLS)]},
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
            line={"color": _INK, "dash": "dash", "width": 2},
            hoverinfo="skip",
        )
    )
    fig.update_xaxes(title_text="K / N (categories per training row)", **_log_axis(grid))
    fig.update_yaxes(
        title_text="mean ℓ1 error",
        **_log_axis(np.concatenate([averaged["mean"].to_numpy(), np.sqrt(grid)])),
    )
    return _style(fig, title, 520)


# ---------------------------------------------------------------- metric bars
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
    labels = [method_label(m) for m in methods]
    means = summary[mean_col].to_numpy(dtype=np.float64)
    stds = np.nan_to_num(summary[std_col].to_numpy(dtype=np.float64), nan=0.0)
    metric_label = _METRIC_LABELS.get(metric, metric)
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
    _style(fig, title if title is not None else f"{metric_label} per method", 480)
    fig.update_layout(showlegend=False)
    return fig


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
    fig = go.Figure(
        go.Heatmap(
            z=per_cell,
            x=[str(f) for f in feature_names],
            y=[str(c) for c in class_names],
            zmin=0,
            zmax=4 * sparse_cell,
            colorscale="RdYlBu",
            colorbar={"title": {"text": "N_c / K_f", "side": "top"}, "ypad": 20},
            hovertemplate="feature %{x}<br>class %{y}<br>rows per category %{z:.2f}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="feature")
    fig.update_yaxes(title_text="class", type="category", ticklabelstandoff=8)
    height = max(320, 60 * len(class_names) + 220)
    return _style(fig, "Rows per category, N_c / K_f (red: few, the prior decides)", height)


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
    metric_label = _METRIC_LABELS.get(metric, metric)
    fig = go.Figure()
    for method in methods:
        fig.add_trace(
            go.Box(
                y=folds.loc[folds["method"] == method, metric].to_numpy(dtype=np.float64),
                name=method_label(method),
                boxpoints="all",
                jitter=0.3,
                marker_color=method_color(method),
                showlegend=False,
            )
        )
    fig.update_yaxes(title_text=metric_label)
    _style(fig, title if title is not None else f"{metric_label} per fold", 520)
    return fig


# -------------------------------------------------------------------- export
def to_image_bytes(
    fig: go.Figure,
    fmt: str = "png",
    width: int | None = None,
    height: int | None = None,
    scale: float = 2,
) -> bytes:
    """Render a figure to PNG or SVG bytes through kaleido and Chromium.

    Parameters
    ----------
    fig : go.Figure
    fmt : {"png", "svg"}
    width, height : int, optional
        Pixels; default the figure's own size (plotly's 700 x 500 when unset).
    scale : float
        Resolution multiplier for PNG.

    Raises
    ------
    RuntimeError
        When kaleido or a Chromium browser is unavailable; offer an HTML download then.
    """
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be 'png' or 'svg', got {fmt!r}.")
    try:
        import kaleido  # noqa: F401  (plotly uses it; imported here to fail clearly)
    except ImportError as exc:
        raise RuntimeError(
            "Static export needs Chromium and the kaleido package, which is not installed; "
            "download the interactive HTML instead."
        ) from exc
    try:
        return fig.to_image(format=fmt, width=width, height=height, scale=scale)
    except Exception as exc:  # kaleido / choreographer raise many types when no browser
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        raise RuntimeError(
            "Static export needs Chromium (set BROWSER_PATH to its binary) and kaleido; "
            f"download the interactive HTML instead. ({type(exc).__name__}: {reason})"
        ) from exc
