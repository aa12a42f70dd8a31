"""Per-class diagnostics of out-of-fold predictions: confusion matrix, precision / recall,
one-vs-rest reliability and ROC curves (what Orange and Weka's Explorer show per class).

Inputs are class indices ``y`` (n,) and probability rows ``proba`` (n, C), as
:class:`heb.evaluate.CVResult` holds them per method. The numbers are one vectorised pass
each; the figures draw them in the projector style of :mod:`heb.figures.style`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from heb.figures.style import (
    CLASS_PALETTE,
    NEUTRAL_COLOR,
    SYMBOLS,
    escape,
    escape_all,
    method_color,
    method_label,
    style,
)
from heb.metrics import check_rows, class_reliability, confusion_counts

__all__ = [
    "MAX_CLASS_CURVES",
    "confusion_counts",
    "class_scores",
    "confusion_scores",
    "class_reliability",
    "roc_curve",
    "confusion_figure",
    "class_reliability_figure",
    "drawn_classes",
    "roc_figure",
]

#: one-vs-rest curves drawn at most (the classes with the most rows); the rest are in the CSV
MAX_CLASS_CURVES = len(CLASS_PALETTE)


def class_scores(y, proba, class_names: Sequence[str]) -> pd.DataFrame:
    """Per class: rows (support), predicted, precision, recall and F1 (0 where undefined)."""
    return confusion_scores(confusion_counts(y, proba), class_names)


def confusion_scores(matrix: np.ndarray, class_names: Sequence[str]) -> pd.DataFrame:
    """:func:`class_scores` from the confusion counts (C, C), true class per row."""
    matrix = np.asarray(matrix)
    hits = np.diag(matrix).astype(np.float64)
    support, predicted = matrix.sum(axis=1), matrix.sum(axis=0)
    precision = np.divide(hits, predicted, out=np.zeros_like(hits), where=predicted > 0)
    recall = np.divide(hits, support, out=np.zeros_like(hits), where=support > 0)
    total = precision + recall
    f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(hits), where=total > 0)
    return pd.DataFrame(
        {
            "class": [str(name) for name in class_names],
            "rows": support,
            "predicted": predicted,
            "precision": precision,
            "recall": recall,
            "F1": f1,
        }
    )


def roc_curve(
    y, proba, positive: int, drop_intermediate: bool = True
) -> dict[str, np.ndarray | float]:
    """One-vs-rest ROC of class ``positive``: false / true positive rates and the AUC.

    One point per distinct score (ties move both rates at once, so the AUC counts a tie
    as 1/2, as :func:`heb.metrics.auc_ovr`); with ``drop_intermediate`` the points on a
    straight stretch are left out (as scikit-learn does; the curve and its area are the
    same, the figure far lighter). A class without positive or negative rows gives the
    diagonal and AUC 0.5.
    """
    y, proba = check_rows(y, proba)
    score = proba[:, positive]
    is_pos = (y == positive).astype(np.float64)
    order = np.argsort(-score, kind="stable")
    score, is_pos = score[order], is_pos[order]
    last_of_tie = np.r_[np.flatnonzero(np.diff(score) != 0), score.size - 1] if score.size else []
    tp = np.cumsum(is_pos)[last_of_tie]
    fp = np.cumsum(1.0 - is_pos)[last_of_tie]
    if drop_intermediate and tp.size > 2:
        keep = np.r_[True, np.logical_or(np.diff(fp, 2), np.diff(tp, 2)), True]
        tp, fp = tp[keep], fp[keep]
    n_pos, n_neg = is_pos.sum(), score.size - is_pos.sum()
    if n_pos == 0 or n_neg == 0:
        return {"fpr": np.array([0.0, 1.0]), "tpr": np.array([0.0, 1.0]), "auc": 0.5}
    fpr = np.r_[0.0, fp / n_neg]
    tpr = np.r_[0.0, tp / n_pos]
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    return {"fpr": fpr, "tpr": tpr, "auc": auc}


# --------------------------------------------------------------------------- figures
_CONFUSION_SCALE = "Blues"


def _luminance(rgb: str) -> float:
    """WCAG relative luminance of plotly's ``rgb(r,g,b)``."""
    channels = [float(v) / 255 for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _cell_counts(matrix: np.ndarray, share: np.ndarray, names: list[str]) -> go.Scatter:
    """Each cell's row count as text, black or white, whichever stands out more from the
    cell's blue (at least 4.5:1 on every blue): plotly's own choice for a heatmap's text,
    white below a brightness of 128 and dark grey above, was 2.9:1 on a cell about 60 %
    of its row (dark grey on a middle blue)."""
    fills = sample_colorscale(_CONFUSION_SCALE, np.clip(share, 0, 1).ravel().tolist())
    inks = ["#000000" if _luminance(fill) > 0.18 else "#ffffff" for fill in fills]
    rows, cols = np.indices(matrix.shape)
    return go.Scatter(
        x=[names[c] for c in cols.ravel()],
        y=[names[r] for r in rows.ravel()],
        mode="text",
        text=[f"{int(n):,d}" for n in matrix.ravel()],  # 4,261 as the tables write it
        textfont={"color": inks},
        hoverinfo="skip",
        showlegend=False,
    )


def confusion_figure(matrix: np.ndarray, class_names: Sequence[str], title: str) -> go.Figure:
    """Heatmap of a confusion matrix: colour = share of the true class's rows, text = rows."""
    matrix = np.asarray(matrix)
    names = escape_all(class_names)
    support = matrix.sum(axis=1, keepdims=True)
    share = np.divide(matrix, support, out=np.zeros(matrix.shape), where=support > 0)
    small = len(names) <= 12
    fig = go.Figure(
        go.Heatmap(
            z=share,
            x=names,
            y=names,
            customdata=matrix,
            colorscale=_CONFUSION_SCALE,
            zmin=0,
            zmax=1,
            # a slim bar under a one-word title: the two-line title's width came out of
            # the matrix, whose cells then held 9 px digits at four classes
            colorbar={"title": {"text": "share", "side": "top"}, "thickness": 14, "ypad": 24},
            hovertemplate="true %{y}<br>predicted %{x}<br>rows %{customdata:,d}"
            "<br>share %{z:.3f}<extra></extra>",
        )
    )
    if small:
        fig.add_trace(_cell_counts(matrix, share, names))
    fig.update_xaxes(title_text="predicted class", type="category", automargin=True)
    fig.update_yaxes(
        title_text="true class", type="category", autorange="reversed", automargin=True
    )
    # 240 px beside the rows: the title, the axis titles and a colour bar that stays
    # readable with two classes (the app keeps a band at the top for the modebar); 40 px a
    # class keeps a cell's count in readable type
    return style(fig, title, 240 + 40 * min(len(names), 25), grow_with_legend=False)


def _diagonal(name: str) -> go.Scatter:
    """The dashed grey line y = x (perfect calibration, or a chance ROC)."""
    return go.Scatter(
        x=[0, 1],
        y=[0, 1],
        mode="lines",
        name=name,
        line={"color": NEUTRAL_COLOR, "dash": "dash", "width": 2},
        hoverinfo="skip",
    )


def drawn_classes(curves: list[dict], limit: int = MAX_CLASS_CURVES) -> np.ndarray:
    """Indices of the classes :func:`class_reliability_figure` draws: the ``limit`` with
    the most positive rows (their order kept)."""
    positives = np.array([float(np.sum(c["accuracy"] * c["count"])) for c in curves])
    keep = np.sort(np.argsort(-positives, kind="stable")[:limit])
    return keep


def class_reliability_figure(
    curves: list[dict], class_names: Sequence[str], title: str, limit: int = MAX_CLASS_CURVES
) -> go.Figure:
    """One-vs-rest reliability, one line per class (the ``limit`` classes with most rows).

    Points are sized by their rows; bins of fewer than 5 rows are left out of the line.
    """
    fig = go.Figure(_diagonal("perfect calibration"))
    for slot, c in enumerate(drawn_classes(curves, limit)):
        curve = curves[c]
        keep = curve["count"] >= 5
        label = escape(class_names[c])
        rows = curve["count"][keep]
        fig.add_trace(
            go.Scatter(
                x=curve["confidence"][keep],
                y=curve["accuracy"][keep],
                customdata=rows,
                mode="lines+markers",
                name=f"{label} (ECE {curve['ece']:.3f})",
                line={"color": CLASS_PALETTE[slot % len(CLASS_PALETTE)], "width": 3},
                marker={
                    "size": 6 + 14 * np.sqrt(rows / max(rows.max(initial=1), 1)),
                    "symbol": SYMBOLS[slot % len(SYMBOLS)],
                },
                hovertemplate=f"{label}<br>predicted P %{{x:.3f}}<br>observed share %{{y:.3f}}"
                "<br>rows %{customdata}<extra></extra>",
            )
        )
    fig.update_xaxes(range=[0, 1], title_text="predicted probability of the class")
    fig.update_yaxes(range=[0, 1.02], title_text="observed share of the class")
    return style(fig, title, 460)


def roc_figure(curves: Mapping[str, dict], title: str) -> go.Figure:
    """ROC curves (one per method, as :func:`roc_curve` gives them) and the chance diagonal."""
    fig = go.Figure(_diagonal("chance"))
    for index, (name, curve) in enumerate(curves.items()):
        label = escape(method_label(name))
        fig.add_trace(
            go.Scatter(
                x=curve["fpr"],
                y=curve["tpr"],
                mode="lines",
                name=f"{label} (AUC {curve['auc']:.3f})",
                line={"color": method_color(name), "width": 3, "dash": ("solid", "dot")[index % 2]},
                hovertemplate=f"{label}<br>false positive rate %{{x:.3f}}"
                "<br>true positive rate %{y:.3f}<extra></extra>",
            )
        )
    fig.update_xaxes(range=[0, 1], title_text="false positive rate")
    fig.update_yaxes(range=[0, 1.02], title_text="true positive rate")
    return style(fig, title, 460)
