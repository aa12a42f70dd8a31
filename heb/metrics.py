"""Classification metrics of one test fold, from class indices and probability rows.

``y`` holds class indices ``0..C-1`` (shape ``(n,)``) and ``proba`` the ``(n, C)``
posterior matrix in the order of ``classes_`` (SPEC section 5). Every metric is one
vectorised pass; :func:`all_metrics` validates once and computes them all, which is
what the cross-validation loop calls per fold.

Conventions
-----------
- The predicted class is ``argmax(proba)``; a tie between columns goes to the lowest
  class index (as :func:`numpy.argmax`).
- F1-macro averages over all C columns; a class with no true and no predicted row
  scores 0 (scikit-learn's ``labels=range(C), zero_division=0``).
- Log-loss clips the probability of the true class to ``[1e-15, 1]`` (SPEC) and does
  not renormalise rows (neither does scikit-learn 1.9, which clips to machine epsilon).
- Brier is the mean over classes of the one-vs-rest mean squared error: scikit-learn's
  multiclass ``brier_score_loss`` divided by C; for C = 2 it equals the usual binary
  Brier score ``brier_score_loss(y, proba[:, 1])``.
- AUC is the macro one-vs-rest Mann-Whitney AUC (ties count 1/2) over the classes that
  have both positive and negative rows in the fold; for C = 2 it is the binary AUC of
  column 1. When no class qualifies (one row, or all rows of one class) it is 0.5,
  the AUC of an uninformative ranking, so the output is never NaN.
- ECE is the top-1 expected calibration error over ``n_bins`` bins; uniform bins are
  ``[(b-1)/B, b/B)`` with the last bin closed.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "LOG_LOSS_EPS",
    "accuracy",
    "all_metrics",
    "auc_ovr",
    "brier",
    "brier_rows",
    "check_rows",
    "class_reliability",
    "confusion_counts",
    "ece_top1",
    "f1_macro",
    "log_loss",
    "log_loss_rows",
    "reliability",
    "reliability_curve",
    "reliability_from_sums",
    "top1",
    "uniform_bins",
]

#: probabilities of the true class are clipped to [LOG_LOSS_EPS, 1] in the log-loss
LOG_LOSS_EPS = 1e-15
#: slack allowed on [0, 1] bounds and on row sums, for floating-point round-off
_RANGE_TOL = 1e-9
_ROW_SUM_TOL = 1e-6
_STRATEGIES = ("uniform", "quantile")


def _validate(y: np.ndarray, proba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # noqa: C901 -- a flat list of input checks
    """Check and convert ``y`` to int64 (n,) and ``proba`` to float64 (n, C)."""
    proba = np.asarray(proba)
    if proba.dtype == object or not (np.issubdtype(proba.dtype, np.number) or proba.dtype == bool):
        raise ValueError(f"proba must be a numeric array, got dtype {proba.dtype}.")
    proba = proba.astype(np.float64, copy=False)
    if proba.ndim != 2:
        raise ValueError(f"proba must be a 2-D (rows, classes) array, got {proba.ndim}-D.")
    n, n_classes = proba.shape
    if n == 0:
        raise ValueError("proba has no rows; a metric needs at least one test row.")
    if n_classes < 2:
        raise ValueError(f"proba must have at least 2 class columns, got {n_classes}.")
    low, high = float(proba.min()), float(proba.max())  # NaN if any value is NaN
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError("proba contains NaN or infinite values.")
    if low < -_RANGE_TOL or high > 1 + _RANGE_TOL:
        raise ValueError(f"Probabilities must lie in [0, 1]; got values in [{low}, {high}].")
    if low < 0.0 or high > 1.0:  # round-off beyond [0, 1]: clipped (a copy only then)
        proba = np.clip(proba, 0.0, 1.0)
    row_sums = proba.sum(axis=1)
    bad = np.flatnonzero(np.abs(row_sums - 1.0) > _ROW_SUM_TOL)
    if bad.size:
        raise ValueError(
            f"Each row of proba must sum to 1; row {bad[0]} sums to {row_sums[bad[0]]}."
        )

    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class indices, got {y.ndim}-D.")
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} rows but proba has {n}; they must match.")
    return _class_indices(y, n_classes), proba


def _class_indices(y: np.ndarray, n_classes: int) -> np.ndarray:
    """``y`` (1-D) as int64 class indices in 0..C-1, or a one-sentence ValueError (labels,
    fractions and out-of-range indices are refused, never cast)."""
    if y.dtype == bool or np.issubdtype(y.dtype, np.integer):
        y_int = y.astype(np.int64)
    elif np.issubdtype(y.dtype, np.floating):
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("y must hold whole-number class indices 0..C-1.")
        y_int = y.astype(np.int64)
    else:
        raise ValueError(
            f"y must hold integer class indices, got dtype {y.dtype}. For labels, pass "
            "np.searchsorted(model.classes_, y): each label's column in predict_proba."
        )
    if y_int.size and (y_int.min() < 0 or y_int.max() >= n_classes):
        raise ValueError(
            f"y must hold class indices in 0..{n_classes - 1} (0..C-1, the columns of proba); "
            f"got values in {y_int.min()}..{y_int.max()}."
        )
    return y_int


def _validate_bins(n_bins: int, strategy: str) -> int:
    """Check the binning arguments of the calibration metrics."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}.")
    return int(n_bins)


# ---------------------------------------------------------------- kernels (validated input)


def _accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean(pred == y))


def _f1_macro(y: np.ndarray, pred: np.ndarray, n_classes: int) -> float:
    true_count = np.bincount(y, minlength=n_classes)
    pred_count = np.bincount(pred, minlength=n_classes)
    true_pos = np.bincount(y[pred == y], minlength=n_classes)
    denominator = true_count + pred_count
    f1 = np.divide(
        2.0 * true_pos,
        denominator,
        out=np.zeros(n_classes, dtype=np.float64),
        where=denominator > 0,
    )
    return float(np.mean(f1))


def log_loss_rows(y: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """Each row's log-loss term (n,): -log of its true class's probability, clipped at
    :data:`LOG_LOSS_EPS`. No validation (checked arrays)."""
    return -np.log(np.clip(proba[np.arange(y.shape[0]), y], LOG_LOSS_EPS, 1.0))


def brier_rows(y: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """Each row's Brier term (n,): its squared error against the one-hot truth, averaged
    over the classes. No validation (checked arrays)."""
    residual = proba.copy()
    residual[np.arange(y.shape[0]), y] -= 1.0
    return np.square(residual, out=residual).mean(axis=1)


def _log_loss(y: np.ndarray, proba: np.ndarray) -> float:
    return float(np.mean(log_loss_rows(y, proba)))


def _brier(y: np.ndarray, proba: np.ndarray) -> float:
    return float(np.mean(brier_rows(y, proba)))


def _mann_whitney_twice_u(positive: np.ndarray, negative: np.ndarray) -> int:
    """Twice the Mann-Whitney U of two score samples: each (positive, negative) pair
    counts 2 when the positive scores higher, 1 when they tie (an exact integer).

    One sort of each sample; per positive score, the negatives below it and those not
    above it are two binary searches of sorted keys into the sorted negatives.
    """
    positive, negative = np.sort(positive), np.sort(negative)
    below = np.searchsorted(negative, positive, side="left")
    not_above = np.searchsorted(negative, positive, side="right")
    return int(below.sum() + not_above.sum())


def _auc_ovr(y: np.ndarray, proba: np.ndarray) -> float:
    n, n_classes = proba.shape
    n_pos = np.bincount(y, minlength=n_classes)
    scored = np.flatnonzero((n_pos > 0) & (n_pos < n))
    if n_classes == 2:
        scored = scored[scored == 1]  # the binary AUC is column 1's
    if scored.size == 0:
        return 0.5
    u = np.empty(scored.size)
    for i, c in enumerate(scored):  # one sort per scored class; classes are few
        column = proba[:, c]
        positive = y == c
        u[i] = _mann_whitney_twice_u(column[positive], column[~positive]) / 2.0
    n_pos = n_pos[scored]
    auc = u / (n_pos * (n - n_pos))
    return float(np.mean(auc))


def reliability_curve(
    correct: np.ndarray, confidence: np.ndarray, n_bins: int, strategy: str
) -> dict[str, np.ndarray | float]:
    """:func:`reliability` from per-row correctness (n,) and top-1 confidence (n,).

    No validation: for callers that already hold checked arrays (one pass per fold).
    """
    if strategy == "uniform":
        edges = np.arange(n_bins + 1, dtype=np.float64) / n_bins
        bin_index = uniform_bins(confidence, n_bins)
    else:
        edges = np.quantile(confidence, np.linspace(0.0, 1.0, n_bins + 1))
        bin_index = np.searchsorted(edges[1:-1], confidence, side="right")
    return reliability_from_sums(
        edges,
        np.bincount(bin_index, minlength=n_bins),
        np.bincount(bin_index, weights=confidence, minlength=n_bins),
        np.bincount(bin_index, weights=correct.astype(np.float64), minlength=n_bins),
    )


def uniform_bins(confidence: np.ndarray, n_bins: int) -> np.ndarray:
    """Each confidence's bin among ``n_bins`` uniform bins ``[(b-1)/B, b/B)``, the last
    one closed (a confidence on an inner edge goes to the upper bin)."""
    edges = np.arange(n_bins + 1, dtype=np.float64) / n_bins
    return np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)


def reliability_from_sums(
    edges: np.ndarray, count: np.ndarray, confidence_sum: np.ndarray, correct_sum: np.ndarray
) -> dict[str, np.ndarray | float]:
    """:func:`reliability` from per-bin sums, which add over folds and batches.

    Parameters
    ----------
    edges : ndarray (B+1,)
        The bins' edges.
    count, confidence_sum, correct_sum : ndarray (B,)
        Per bin: its rows, the sum of their top-1 probabilities, and how many are right.

    Returns
    -------
    dict
        As :func:`reliability`. Raises ``ValueError`` when the bins hold no row.
    """
    count = np.asarray(count)
    total = float(count.sum())
    if total <= 0:
        raise ValueError("A reliability diagram needs at least one row.")
    occupied = count > 0
    safe_count = np.maximum(count, 1)
    return {
        "edges": np.asarray(edges, dtype=np.float64),
        "count": np.rint(count).astype(np.int64),
        "confidence": np.where(occupied, confidence_sum / safe_count, 0.0),
        "accuracy": np.where(occupied, correct_sum / safe_count, 0.0),
        "ece": float(np.sum(np.abs(correct_sum - confidence_sum)) / total),
    }


def top1(y: np.ndarray, proba: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted class, its probability (confidence) and whether it is right."""
    pred = np.argmax(proba, axis=1)
    confidence = proba[np.arange(y.shape[0]), pred]
    return pred, confidence, pred == y


# ---------------------------------------------------------------- public API


def accuracy(y: np.ndarray, proba: np.ndarray) -> float:
    """Share of rows whose most probable class is the true class.

    Parameters
    ----------
    y : ndarray (n,) of int
        True class indices 0..C-1.
    proba : ndarray (n, C)
        Probability rows (each sums to 1).

    Returns
    -------
    float
        Accuracy in [0, 1].
    """
    y, proba = _validate(y, proba)
    return _accuracy(y, np.argmax(proba, axis=1))


def f1_macro(y: np.ndarray, proba: np.ndarray) -> float:
    """Macro F1 over all C classes (columns of ``proba``) of the argmax prediction.

    A class with no true and no predicted row scores 0 and still counts in the mean,
    as scikit-learn's ``f1_score(labels=range(C), average="macro", zero_division=0)``.
    """
    y, proba = _validate(y, proba)
    return _f1_macro(y, np.argmax(proba, axis=1), proba.shape[1])


def log_loss(y: np.ndarray, proba: np.ndarray) -> float:
    """Mean negative log-probability of the true class, clipped to ``[1e-15, 1]``."""
    y, proba = _validate(y, proba)
    return _log_loss(y, proba)


def brier(y: np.ndarray, proba: np.ndarray) -> float:
    """Mean over classes of the one-vs-rest mean squared error.

    Equals ``sum_c (1[y = c] - p_c)^2 / C`` averaged over rows: for C = 2 the usual
    binary Brier score, for C > 2 scikit-learn's multiclass Brier score divided by C.
    """
    y, proba = _validate(y, proba)
    return _brier(y, proba)


def auc_ovr(y: np.ndarray, proba: np.ndarray) -> float:
    """Macro one-vs-rest ROC AUC by the rank (Mann-Whitney) formula, ties counting 1/2.

    Classes without both positive and negative rows in ``y`` are skipped; for C = 2 the
    result is the binary AUC of column 1. Returns 0.5 when no class can be scored
    (a single row, or every row of one class).
    """
    y, proba = _validate(y, proba)
    return _auc_ovr(y, proba)


def reliability(
    y: np.ndarray, proba: np.ndarray, n_bins: int = 10, strategy: str = "uniform"
) -> dict[str, np.ndarray | float]:
    """Top-1 reliability diagram: per-bin count, mean confidence and accuracy.

    Parameters
    ----------
    y, proba
        True class indices (n,) and probability rows (n, C).
    n_bins : int
        Number of bins B.
    strategy : {"uniform", "quantile"}
        ``"uniform"``: bins ``[(b-1)/B, b/B)``, the last one closed. ``"quantile"``:
        edges at the quantiles of the top-1 confidences (equal-mass bins; a confidence
        equal to an inner edge goes to the upper bin, tied edges leave bins empty).

    Returns
    -------
    dict
        ``"edges"`` (B+1,), ``"count"`` (B,) int, ``"confidence"`` (B,) and
        ``"accuracy"`` (B,) means per bin (0.0 in empty bins, which are kept with
        count 0), and ``"ece"`` = sum_b count_b / n * |accuracy_b - confidence_b|.
    """
    y, proba = _validate(y, proba)
    n_bins = _validate_bins(n_bins, strategy)
    _, confidence, correct = top1(y, proba)
    return reliability_curve(correct, confidence, n_bins, strategy)


def ece_top1(
    y: np.ndarray, proba: np.ndarray, n_bins: int = 10, strategy: str = "uniform"
) -> float:
    """Top-1 expected calibration error; binning as in :func:`reliability`."""
    return float(reliability(y, proba, n_bins=n_bins, strategy=strategy)["ece"])


def all_metrics(y: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """The six built-in fold metrics at once (validated once), by registry name.

    ``ece`` uses 10 uniform bins (SPEC section 5).
    """
    y, proba = _validate(y, proba)
    pred, confidence, correct = top1(y, proba)
    return {
        "accuracy": _accuracy(y, pred),
        "f1_macro": _f1_macro(y, pred, proba.shape[1]),
        "log_loss": _log_loss(y, proba),
        "brier": _brier(y, proba),
        "auc": _auc_ovr(y, proba),
        "ece": float(reliability_curve(correct, confidence, 10, "uniform")["ece"]),
    }


# ---------------------------------------------------------------- per class


def check_rows(y, proba) -> tuple[np.ndarray, np.ndarray]:
    """``y`` (n,) as class indices and ``proba`` (n, C) as finite floats, or a ValueError
    (looser than the fold metrics' check: rows need not sum to 1; ``y`` is checked as
    theirs: labels and fractional indices are refused, not cast)."""
    y = np.asarray(y)
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2 or y.shape != (proba.shape[0],):
        raise ValueError("Need class indices y (n,) and probability rows proba (n, C).")
    y = _class_indices(y, proba.shape[1])
    if not np.all(np.isfinite(proba)):
        raise ValueError("Probabilities must be finite.")
    return y, proba


def confusion_counts(y, proba) -> np.ndarray:
    """Rows per (true class, predicted class), shape (C, C); the prediction is the argmax."""
    y, proba = check_rows(y, proba)
    C = proba.shape[1]
    pred = np.argmax(proba, axis=1)
    return np.bincount(y * C + pred, minlength=C * C).reshape(C, C)


def class_reliability(y, proba, n_bins: int = 10) -> list[dict]:
    """One-vs-rest reliability of every class: P(class c) binned against the share of c.

    Each entry is :func:`reliability_curve`'s output for "is class c" against
    the predicted probability of c (10 equal-width bins), so its ``ece`` is that class's
    one-vs-rest calibration error.
    """
    y, proba = check_rows(y, proba)
    return [
        reliability_curve(y == c, proba[:, c], n_bins, "uniform") for c in range(proba.shape[1])
    ]
