"""A numeric column's floats sorted once, so each training fold's bins come by subtraction.

:class:`SortedByFold` holds a column's finite floats sorted (all rows, and each fold's
test rows within each class): a bin's count of a class over every row is the folds' binary
searches summed, and a training fold's order statistics (its quantile edges, its median)
come from the sorted floats and the fold's test floats alone. :func:`bin_codes` is
``np.searchsorted(cuts, values, side="right")``, quicker for the few cut points of quantile bins.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from heb.data.folds import fold_position

__all__ = [
    "SortedByClass",
    "SortedByFold",
    "bin_codes",
    "order_statistics_without",
    "ranked_median",
]


@dataclass(frozen=True)
class SortedByClass:
    """A numeric column's finite floats of some rows (a fold's test rows) sorted within
    each class, and their missing count per class: a bin's count of class c is two binary
    searches."""

    sorted_values: np.ndarray  # class 0's floats sorted, then class 1's, ...
    starts: np.ndarray  # (C + 1,) where each class's run starts
    missing: np.ndarray  # (C,) rows of class c without a value

    @classmethod
    def of(cls, values: np.ndarray, by_class: np.ndarray, bounds: np.ndarray) -> SortedByClass:
        """The floats ``values[by_class]`` (NaN missing) sorted within each class:
        ``by_class`` rows ordered by class, ``bounds`` (C + 1,) where each class's rows
        start in it."""
        grouped = values[by_class]
        sizes = np.zeros(bounds.size - 1, dtype=np.int64)
        for c, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):  # few classes
            run = grouped[a:b]
            run.sort()  # in place, NaN last
            sizes[c] = np.searchsorted(run, np.nan)  # numpy orders NaN last here too
        if sizes.sum() < grouped.size:
            grouped = grouped[~np.isnan(grouped)]
        starts = np.concatenate(([0], np.cumsum(sizes)))
        return cls(grouped, starts, np.diff(bounds) - sizes)

    @property
    def runs(self) -> list[np.ndarray]:
        """Each class's sorted finite floats."""
        return [
            self.sorted_values[a:b] for a, b in zip(self.starts[:-1], self.starts[1:], strict=True)
        ]

    def bin_counts(self, cuts: np.ndarray) -> np.ndarray:
        """(C, len(cuts) + 1) rows of each class in each ``searchsorted(cuts, side="right")``
        bin."""
        C = self.missing.size
        bounds = np.empty((C, cuts.size + 2), dtype=np.int64)
        bounds[:, 0], bounds[:, -1] = self.starts[:-1], self.starts[1:]
        for c, run in enumerate(self.runs):  # C binary searches of len(cuts) values
            bounds[c, 1:-1] = self.starts[c] + np.searchsorted(run, cuts, side="left")
        return np.diff(bounds, axis=1)


@dataclass(frozen=True)
class SortedByFold:
    """A numeric column's floats of every row, for counting training folds by
    subtraction: every finite float sorted once, and each fold's test floats sorted
    within each class (:class:`SortedByClass`). The folds' test rows partition the rows,
    so every row's count of a (class, bin) is the folds' counts summed (no sort of every
    row by class), and a training fold's order statistics come from ``sorted_all`` and
    its test floats alone (:meth:`training_order_statistic`)."""

    sorted_all: np.ndarray  # every finite float, sorted
    tests: tuple[np.ndarray, ...]  # each fold's test rows (partitioning the rows)
    folds: tuple[SortedByClass, ...]  # each fold's test floats sorted within each class

    @classmethod
    def of(cls, values: np.ndarray, tests: tuple, groups: list) -> SortedByFold:
        """``values`` (NaN missing) of folds with test rows ``tests``, each grouped by class
        as ``groups[i] = (rows ordered by class, (C + 1,) class starts)``."""
        folds = tuple(SortedByClass.of(values, rows, bounds) for rows, bounds in groups)
        n_finite = sum(fold.sorted_values.size for fold in folds)
        return cls(np.sort(values)[:n_finite], tests, folds)  # NaN sorted last

    @property
    def missing(self) -> np.ndarray:
        """(C,) rows of each class without a value."""
        return sum(fold.missing for fold in self.folds)

    @functools.cached_property
    def distinct(self) -> np.ndarray:
        """The distinct finite floats, ascending (once per column, not once per fold)."""
        ordered = self.sorted_all
        return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if ordered.size else ordered

    def bin_counts(self, cuts: np.ndarray) -> np.ndarray:
        """(C, len(cuts) + 1) rows of each class in each ``searchsorted(cuts, side="right")``
        bin, summed over the folds."""
        return sum(fold.bin_counts(cuts) for fold in self.folds)

    def fold_of(self, test: np.ndarray) -> SortedByClass | None:
        """The sorted test floats of the fold whose test rows are ``test``, if one is."""
        position = fold_position(self.tests, test)
        return None if position is None else self.folds[position]

    def training_order_statistic(self, test: np.ndarray | SortedByClass) -> Callable:
        """``ranks -> values`` of every finite float but the test rows': their (finite)
        floats, or their :class:`SortedByClass`."""
        removed = test.runs if isinstance(test, SortedByClass) else [np.sort(test)]
        return order_statistics_without(self.sorted_all, removed)


#: up to this many cut points, a value's bin is counted by comparisons, not a binary search
_FEW_CUTS = 16


def bin_codes(cuts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(cuts, values, side="right")`` for sorted ``cuts`` (a missing value
    gets some code: callers overwrite it). Few cuts: the number of cuts each value reaches,
    one comparison pass per cut into 8-bit counts (several times quicker than a binary
    search per value); the codes are then int8, else int64."""
    if cuts.size > _FEW_CUTS:
        return np.searchsorted(cuts, values, side="right")
    codes = np.zeros(values.size, dtype=np.int8)
    reached = np.empty(values.size, dtype=bool)
    for cut in cuts:  # at most _FEW_CUTS passes
        np.greater_equal(values, cut, out=reached)
        codes += reached.view(np.int8)
    return codes


def ranked_median(order_statistic: Callable, n_observed: int) -> float:
    """``np.median`` of floats known by their order statistics: ``np.mean`` of the middle
    one or two values, as ``np.median`` takes it."""
    middle = n_observed // 2
    return float(np.mean(order_statistic(np.arange(middle - 1 + n_observed % 2, middle + 1))))


def order_statistics_without(
    sorted_values: np.ndarray, removed: list[np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """``ranks -> values``: the order statistics of the sorted floats ``sorted_values``
    with the multiset ``removed`` (sorted runs of finite floats, part of them) taken out,
    without sorting the rest.

    Rank ``k``'s value ``x`` is the first sorted float with ``A(x) - R(x) > k`` (all floats
    up to ``x`` minus the removed ones). ``x = sorted_values[k]`` is a lower bound, and so
    is ``x = sorted_values[k + R(x)]`` for a lower bound ``x`` (reaching ``k + 1`` kept
    floats takes at least ``k + 1 + R(x)`` floats); a fixed point is the answer. A step
    passes the removed floats newly counted, so when a fraction ``f`` is removed (a test
    fold, ``f <= 1/2``) the steps shrink by ``f`` and a few suffice, each a binary search
    of the ranks alone: far cheaper than bisecting over every float.
    """

    def removed_up_to(x: np.ndarray) -> np.ndarray:
        return sum(np.searchsorted(run, x, side="right") for run in removed)

    found: dict[int, float] = {}  # rank -> value (the median's ranks are quantiles' too)

    def order_statistic(ranks: np.ndarray) -> np.ndarray:
        if all(rank in found for rank in ranks.tolist()):
            return np.array([found[rank] for rank in ranks.tolist()], dtype=sorted_values.dtype)
        position = ranks.astype(np.intp)
        while True:  # at most one step per removed float, a few when f is small
            following = ranks + removed_up_to(sorted_values[position])
            if np.array_equal(following, position):
                values = sorted_values[position]
                found.update(zip(ranks.tolist(), values.tolist(), strict=True))
                return values
            position = following

    return order_statistic
