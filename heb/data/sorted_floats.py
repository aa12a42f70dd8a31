"""A numeric column's floats sorted once, so each training fold's bins come by subtraction.

:class:`SortedByClass` holds a column's finite floats sorted (all rows, and within each
class): a bin's count of a class over every row is two binary searches, and a training
fold's order statistics (its quantile edges, its median) come from the sorted floats and
the fold's test floats alone. :func:`bin_codes` is ``np.searchsorted(cuts, values,
side="right")``, quicker for the few cut points of quantile bins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from heb.data.preprocess import order_statistics_without

__all__ = ["SortedByClass", "bin_codes", "ranked_median"]


@dataclass(frozen=True)
class SortedByClass:
    """A numeric column's finite floats sorted (all rows, and within each class), and its
    missing count per class: a bin's count of class c over every row is two binary
    searches, and a training fold's order statistics come from the sorted floats and the
    fold's test floats alone (:meth:`training_order_statistic`)."""

    sorted_values: np.ndarray  # class 0's floats sorted, then class 1's, ...
    starts: np.ndarray  # (C + 1,) where each class's run starts
    missing: np.ndarray  # (C,) rows of class c without a value
    sorted_all: np.ndarray  # every finite float, sorted

    def bin_counts(self, cuts: np.ndarray) -> np.ndarray:
        """(C, len(cuts) + 1) rows of each class in each ``searchsorted(cuts, side="right")``
        bin."""
        C = self.missing.size
        bounds = np.empty((C, cuts.size + 2), dtype=np.int64)
        bounds[:, 0], bounds[:, -1] = self.starts[:-1], self.starts[1:]
        for c in range(C):  # C binary searches of len(cuts) values; classes are few
            run = self.sorted_values[self.starts[c] : self.starts[c + 1]]
            bounds[c, 1:-1] = self.starts[c] + np.searchsorted(run, cuts, side="left")
        return np.diff(bounds, axis=1)

    def training_order_statistic(self, test_values: np.ndarray) -> Callable:
        """``ranks -> values`` of every finite float but the (finite) ``test_values``."""
        return order_statistics_without(self.sorted_all, test_values)


#: up to this many cut points, a value's bin is counted by comparisons, not a binary search
_FEW_CUTS = 16


def bin_codes(cuts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(cuts, values, side="right")`` for sorted ``cuts`` (a missing value
    gets some code: callers overwrite it). Few cuts: the number of cuts each value reaches,
    one comparison pass per cut (several times quicker than a binary search per value)."""
    if cuts.size > _FEW_CUTS:
        return np.searchsorted(cuts, values, side="right")
    codes = np.zeros(values.size, dtype=np.int64)
    for cut in cuts:  # at most _FEW_CUTS passes
        codes += values >= cut
    return codes


def ranked_median(order_statistic: Callable, n_observed: int) -> float:
    """``np.median`` of floats known by their order statistics: ``np.mean`` of the middle
    one or two values, as ``np.median`` takes it."""
    middle = n_observed // 2
    return float(np.mean(order_statistic(np.arange(middle - 1 + n_observed % 2, middle + 1))))
