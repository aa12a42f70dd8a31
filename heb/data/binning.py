"""Numeric columns' bins (SPEC section 1): quantile cut points of the training floats,
or one bin per value where a column has few values.

The bins of value ``v`` are ``searchsorted(cuts, v, side="right")``: ``(-inf, c_1)``,
``[c_1, c_2)``, ..., ``[c_k, inf)``. Every path that fits bins (the in-memory
:class:`~heb.data.preprocess.Preprocessor`, the fold codes of :mod:`heb.data.encoding` and the
engine path of :mod:`heb.scale.encoding`) uses these functions, so their codes agree.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from heb.data.sorted_floats import SortedByClass, SortedByFold

__all__ = [
    "MAX_BINS",
    "check_n_bins",
    "one_bin_message",
    "quantile_cuts",
    "quantile_edges",
    "ranked_quantile_edges",
    "training_value_cuts",
    "value_cuts",
]

#: most quantile bins of a numeric column: more only costs memory (``n_bins + 1`` edges
#: are computed), since a column never has more bins than distinct training values
MAX_BINS = 1000


def check_n_bins(n_bins) -> int:
    """``n_bins`` as an int in [2, :data:`MAX_BINS`], or a one-sentence ValueError."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer):
        raise ValueError(f"n_bins must be a whole number of at least 2, got {n_bins!r}.")
    if not 2 <= n_bins <= MAX_BINS:
        raise ValueError(f"n_bins must be between 2 and {MAX_BINS:,}, got {n_bins:,}.")
    return int(n_bins)


def quantile_edges(observed: np.ndarray, n_bins: int) -> np.ndarray:
    """The unique interior quantiles of the observed training floats (empty bins kept)."""
    n_bins = check_n_bins(n_bins)  # before allocating n_bins + 1 edges
    return np.unique(np.quantile(observed, np.linspace(0.0, 1.0, n_bins + 1)))[1:-1]


def ranked_quantile_edges(
    order_statistic: Callable[[np.ndarray], np.ndarray], n_observed: int, n_bins: int
) -> np.ndarray:
    """:func:`quantile_edges` of ``n_observed`` floats known by their order statistics.

    ``order_statistic(ranks)`` returns the values of 0-based ranks in ascending order (the
    sorted floats at those positions). The interpolation is ``np.quantile``'s "linear"
    rule step for step (virtual index ``(n - 1) q``, its floor and the next rank, the same
    two-sided lerp), so the edges are bit-identical without partitioning the floats.
    """
    n_bins = check_n_bins(n_bins)
    q = np.linspace(0.0, 1.0, n_bins + 1)
    virtual = (n_observed - 1) * q
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n_observed - 1
    previous[above] = following[above] = n_observed - 1  # numpy's -1: the last value
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = virtual - np.where(above, -1, previous)  # as numpy, from its -1 index
    low, high = np.split(order_statistic(np.concatenate((previous, following))), 2)
    span = high - low
    edges = low + span * gamma
    np.subtract(high, span * (1 - gamma), out=edges, where=gamma >= 0.5)
    return np.unique(edges)[1:-1]


def value_cuts(distinct: np.ndarray, n_bins: int) -> np.ndarray | None:
    """One bin per value where a numeric column has at most ``n_bins`` distinct training
    floats (sorted ``distinct``): the cuts at every value but the smallest; else None.

    Quantiles cannot separate such a column's values: a 0/1 flag with 16 % ones has the
    quantiles 0, ..., 0, 1, 1, whose interior is empty, and was read as one category.
    """
    n_bins = check_n_bins(n_bins)
    return distinct[1:] if distinct.size <= n_bins else None


def quantile_cuts(observed: np.ndarray, n_bins: int) -> np.ndarray:
    """Interior bin edges of the observed training floats: unique quantiles, no empty bin;
    one bin per value where there are at most ``n_bins`` values (:func:`value_cuts`).

    A bin that holds no observed value (ties can make one) merges into its right-hand
    neighbour, so every bin ``searchsorted(cuts, value, side="right")`` gives is counted.
    """
    by_value = value_cuts(np.unique(observed), n_bins)
    if by_value is not None:
        return by_value
    cuts = quantile_edges(observed, n_bins)
    codes = np.searchsorted(cuts, observed, side="right")
    counts = np.bincount(codes, minlength=cuts.size + 1)
    return cuts[counts[:-1] > 0]


def training_value_cuts(
    total: SortedByFold, in_test: SortedByClass, n_bins: int
) -> np.ndarray | None:
    """:func:`value_cuts` of the training floats (every row's but ``in_test``'s), found
    without sorting them: None at once where even the values absent from the test rows
    outnumber ``n_bins``."""
    distinct = total.distinct
    if distinct.size - np.unique(in_test.sorted_values).size > n_bins:
        return None
    per_value = total.bin_counts(distinct[1:]) - in_test.bin_counts(distinct[1:])
    return value_cuts(distinct[per_value.sum(axis=0) > 0], n_bins)


def one_bin_message(name, observed: np.ndarray, n_bins: int) -> str:
    """Why a numeric column of several values is one bin (its quantiles all tie), for a
    warning as scikit-learn's ``KBinsDiscretizer`` gives of the bins it removes: a count
    that is 0 in 92 % of the rows (adult's capital-gain) becomes a constant that tells the
    model nothing."""
    values, counts = np.unique(observed, return_counts=True)
    top = int(np.argmax(counts))
    common = values[top]
    common = str(int(common)) if common.is_integer() and abs(common) < 1e15 else f"{common:.6g}"
    return (
        f"Column {name!r} holds {values.size:,} different numbers, but "
        f"{counts[top] / observed.size:.0%} of its training rows hold {common}, so its "
        f"{n_bins} quantile bins tie into one and it tells the model nothing; pass "
        f"categorical=[{name!r}] to count its values one by one."
    )
