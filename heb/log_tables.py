"""Log-probability tables of the Dirichlet smoothers, computed from a table's sums.

:class:`TableSums` holds the sums of a :class:`~heb.counts.CountTable` every smoother
needs; :func:`dirichlet_log_theta` turns counts, concentrations m_cf and a prior mean into
log theta = log((N_cfv + m_cf t_v) / (N_cf + m_cf)), reading only the positive cells when
the table is mostly zeros (large K, few rows). The result is a :class:`SeenColumnLog`:
unseen categories' columns are 0 (absent evidence) and are not stored.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from heb.counts import CountTable, block_starts

__all__ = [
    "PriorSummary",
    "SeenColumnLog",
    "SeenPrior",
    "TableSums",
    "dirichlet_log_theta",
    "dirichlet_theta",
    "log_seen",
    "prior_at_cells",
    "prior_at_seen",
    "prior_at_starts",
    "dense_prior",
    "prior_summary",
]


class SeenColumnLog:
    """A (C, V) log table whose columns are 0 except for the seen ones, stored as those.

    Parameters
    ----------
    values : ndarray (C, S)
        The seen columns, or the whole (C, V) table when ``columns`` is None.
    columns : ndarray (S,) of int or None
        Their column numbers, ascending.
    width : int
        V, the width of the whole table.
    """

    def __init__(self, values: np.ndarray, columns: np.ndarray | None, width: int):
        self.values = values
        self.columns = columns
        self.width = width

    def dense(self) -> np.ndarray:
        """The whole (C, V) table."""
        if self.columns is None:
            return self.values
        out = np.zeros((self.values.shape[0], self.width))
        out[:, self.columns] = self.values
        return out

    def position(self, column: np.ndarray) -> np.ndarray:
        """Column numbers 0..V (V: absent evidence) as indices into ``values`` (S: 0)."""
        if self.columns is None:
            return column
        # 32-bit positions where they fit: half the memory of the (V + 1,) lookup
        kind = np.int32 if self.columns.size < 2**31 - 1 else np.int64
        where = np.full(self.width + 1, self.columns.size, dtype=kind)
        where[self.columns] = np.arange(self.columns.size, dtype=kind)
        return where.take(column)


def log_seen(theta: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """log theta, in place (theta is a temporary), with unseen columns set to 0."""
    with np.errstate(divide="ignore"):
        out = np.log(theta, out=theta)
    if not seen.all():
        out[:, ~seen] = 0.0
    return out


def dirichlet_theta(table, n_cf, m_cf, prior):
    """(N_cfv + m_cf t_v) / (N_cf + m_cf), m_cf broadcast over the feature's columns.

    The per-pair values reach a feature's columns by a broadcast when every feature has
    the same K (the (C, V) table seen as (C, F, K)), else by ``np.repeat``: one new (C, V)
    array beside the result, not two (C, V) gathers (10^6 cells: 9 ms before, 2-4 ms).
    """
    k = table.n_categories
    n_classes, width = table.counts.shape
    denominator = m_cf + n_cf
    if k.size and np.all(k == k[0]):
        blocks = (n_classes, k.size, int(k[0]))
        theta = np.multiply(m_cf[:, :, None], np.reshape(prior, blocks[1:]))
        theta += table.counts.reshape(blocks)
        theta /= denominator[:, :, None]
        return theta.reshape(n_classes, width)
    theta = np.repeat(m_cf, k, axis=1)
    theta *= prior
    theta += table.counts
    theta /= np.repeat(denominator, k, axis=1)
    return theta


class PriorSummary(NamedTuple):
    """Per-feature facts of a prior mean over a table's columns, each shape (F,)."""

    maximum: np.ndarray  #: the largest t_v of the feature
    minimum: np.ndarray  #: the smallest t_v (0 if a category has prior mean 0)
    positive: np.ndarray  #: how many categories have t_v > 0


def prior_summary(prior: np.ndarray, table: CountTable) -> PriorSummary:
    """The :class:`PriorSummary` of a (V,) prior mean, read from the whole array."""
    starts, k = table.offsets[:-1], table.n_categories
    if k.size and np.all(k == k[0]):  # one K: per feature row (reduceat over bools casts)
        rows = prior.reshape(k.size, k[0])
        return PriorSummary(rows.max(axis=1), rows.min(axis=1), np.count_nonzero(rows > 0, 1))
    positive = np.add.reduceat(prior > 0, starts)
    return PriorSummary(
        np.maximum.reduceat(prior, starts), np.minimum.reduceat(prior, starts), positive
    )


class SeenPrior:
    """A (V,) prior mean known on a table's seen columns only: never a V-long array.

    Outside the seen columns the prior is 0, except over the features never observed,
    where it is uniform 1/K_f (:func:`heb.smoothing.prior_mean`). The Dirichlet rules read
    it at the seen columns, the positive cells and the features' first columns only
    (:func:`prior_at_seen`, :func:`prior_at_cells`, :func:`prior_at_starts`).

    Parameters
    ----------
    values : ndarray (S,)
        The prior mean at each seen column (``TableSums.seen_cols``), in order.
    starts : ndarray (F,)
        The prior mean at each feature's first column.
    uniform : ndarray (F,) of bool
        The features never observed (uniform prior mean over their columns).
    table : CountTable
        The table whose columns these are.
    """

    def __init__(self, values, starts, uniform, table: CountTable):
        self.values, self.starts, self.uniform, self.table = values, starts, uniform, table
        #: the prior at the positive cells' columns, once :func:`prior_at_cells` took it
        self.at_cells: np.ndarray | None = None

    def dense(self, seen_cols: np.ndarray) -> np.ndarray:
        """The whole (V,) prior mean (``seen_cols``: the seen columns of ``values``)."""
        k = self.table.n_categories
        prior = np.zeros(self.table.counts.shape[1])
        prior[seen_cols] = self.values
        if self.uniform.any():
            prior = np.where(np.repeat(self.uniform, k), np.repeat(1.0 / k, k), prior)
        return prior


def dense_prior(prior, totals: TableSums) -> np.ndarray:
    """``prior`` over all V columns (a :class:`SeenPrior` is expanded)."""
    return prior.dense(totals.seen_cols) if isinstance(prior, SeenPrior) else prior


def prior_at_seen(prior, totals: TableSums) -> np.ndarray:
    """The prior mean at each seen column (a new array only where it must be)."""
    if isinstance(prior, SeenPrior):
        return prior.values
    return prior if totals.all_seen else prior.take(totals.seen_cols)


def prior_at_cells(prior, totals: TableSums) -> np.ndarray:
    """The prior mean at the column of each positive cell (not to be modified)."""
    if isinstance(prior, SeenPrior):  # read by the solver and the log table: taken once
        if prior.at_cells is None:
            prior.at_cells = prior.values.take(totals.cell_seen_position())
        return prior.at_cells
    return prior.take(totals.cell_columns()[1])


def prior_at_starts(prior, table: CountTable) -> np.ndarray:
    """The prior mean at each feature's first column, shape (F,)."""
    return prior.starts if isinstance(prior, SeenPrior) else prior[table.offsets[:-1]]


#: a few-row table's seen columns come from merging its cells' columns when the columns
#: outnumber the cells this many times (else from a V-long mask)
_MERGE_COLUMNS_BELOW = 8


def _distinct_columns(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of the positive cells, ascending, and each cell's position
    among them.

    The cells are row-major, so their columns are one ascending run per class: a stable
    sort (timsort) merges the runs, with no V-long mask, scan or search.
    """
    order = np.argsort(column, kind="stable")
    ordered = column.take(order)
    new = np.empty(ordered.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    position = np.empty(ordered.size, dtype=np.int64)
    position[order] = np.cumsum(new) - 1
    return ordered[new], position


class TableSums:
    """The sums of a count table every smoother needs, each computed once per ``smooth``.

    When most categories are unseen (large K, few rows), the per-pair totals and the
    positive cells are read from the seen columns only, never from the whole (C, V) table.
    ``uniform_prior`` (set by :func:`smooth`) says the prior mean is 1/K_f, constant over
    each feature's columns.
    """

    def __init__(self, table: CountTable):
        self.table = table
        self.uniform_prior = False
        #: the prior's :class:`PriorSummary` where :func:`heb.smoothing.smooth` knows it
        self.prior_summary: PriorSummary | None = None
        sums = getattr(table, "_sums", None)  # counted from the rows: read, never copied
        self._seen_counts = None
        self._positive = None
        self._cell_pair = None
        self._pair_runs = None
        self._cell_columns = None
        self._cell_seen_position = None
        if sums is None:
            self._n_fv = table.category_totals()
            self.seen = self._n_fv > 0
            self.seen_cols = np.flatnonzero(self.seen)
        else:  # seen columns from the positive cells; N_fv only if a smoother reads it
            self._n_fv = None
            self._positive = table.positive_cells()
            column = self.cell_columns()[1]
            self.seen = np.zeros(table.counts.shape[1], dtype=bool)
            if _MERGE_COLUMNS_BELOW * column.size < self.seen.size:
                self.seen_cols, self._cell_seen_position = _distinct_columns(column)
                self.seen[self.seen_cols] = True
            else:  # many cells: a V-long mask (positions by a cumulative count, later)
                self.seen[column] = True
                self.seen_cols = np.flatnonzero(self.seen)
        self.all_seen = self.seen_cols.size == self.seen.size
        if sums is not None:
            self.n_cf = sums[1]
        elif 2 * self.seen_cols.size < self.seen.size:
            self._seen_counts = table.counts[:, self.seen_cols]
            # a zero column closes the last segment, so features without a seen column sum to 0
            padded = np.concatenate((self._seen_counts, np.zeros((table.n_classes, 1))), axis=1)
            starts = np.searchsorted(self.seen_cols, table.offsets[:-1])
            empty = starts == np.append(starts[1:], self.seen_cols.size)
            sums = np.add.reduceat(padded, starts, axis=1)
            self.n_cf = np.where(empty[None, :], 0.0, sums)
        else:
            self.n_cf = table.class_feature_totals()

    @property
    def n_fv(self) -> np.ndarray:
        """N_fv, shape (V,) (not to be modified)."""
        if self._n_fv is None:
            self._n_fv = self.table._kept_category_totals()
        return self._n_fv

    @property
    def positive_cells(self) -> np.ndarray:
        """Flat (row-major) indices of the positive counts, ascending."""
        if self._positive is None:
            if self._seen_counts is None:
                self._positive = self.table.positive_cells()
            else:
                c, j = np.nonzero(self._seen_counts > 0)
                self._positive = c * self.seen.size + self.seen_cols[j]
        return self._positive

    @property
    def positive_counts(self) -> np.ndarray:
        """The counts of :attr:`positive_cells`."""
        return self.table.positive_counts(self.positive_cells)

    @property
    def pair_runs(self) -> np.ndarray:
        """How many of :attr:`positive_cells` each (class, feature) pair holds, shape
        (C * F,). The cells are row-major, so each pair's cells are one run: the runs'
        ends come from a search of the C * F block starts among the cells."""
        if self._pair_runs is None:
            C, V = self.table.counts.shape
            starts = block_starts(C, V, self.table.offsets)
            self._pair_runs = np.diff(np.searchsorted(self.positive_cells, starts))
        return self._pair_runs

    def at_cells(self, per_pair: np.ndarray) -> np.ndarray:
        """A per-pair (C, F) array's value at each of :attr:`positive_cells`: a repeat over
        the pairs' runs, not a gather."""
        return np.repeat(per_pair.ravel(), self.pair_runs)

    @property
    def cell_pair(self) -> np.ndarray:
        """The (class, feature) pair, ``c * F + f``, of each of :attr:`positive_cells`."""
        if self._cell_pair is None:
            self._cell_pair = self.at_cells(np.arange(self.table.n_classes * self.table.n_features))
        return self._cell_pair

    def cell_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Class and column of each of :attr:`positive_cells`."""
        if self._cell_columns is None:
            C, V = self.table.counts.shape
            per_class = self.pair_runs.reshape(C, -1).sum(axis=1)
            c = np.repeat(np.arange(C), per_class)
            column = c * V
            np.subtract(self.positive_cells, column, out=column)
            self._cell_columns = (c, column)
        return self._cell_columns

    def seen_position(self, column: np.ndarray) -> np.ndarray:
        """The position of each given (seen) column among :attr:`seen_cols`."""
        if 8 * column.size < self.seen.size:
            return np.searchsorted(self.seen_cols, column)
        position = np.cumsum(self.seen, dtype=np.int32 if self.seen.size < 2**31 else np.int64)
        position -= 1
        return position.take(column)

    def cell_seen_position(self) -> np.ndarray:
        """:meth:`seen_position` of the column of each positive cell, computed once."""
        if self._cell_seen_position is None:
            self._cell_seen_position = self.seen_position(self.cell_columns()[1])
        return self._cell_seen_position

    def seen_marginal(self) -> tuple[SeenPrior, PriorSummary]:
        """The marginal prior mean N_fv / S_f and its summary, from the seen columns.

        For a table that keeps its sums (few rows, many cells): N_fv is summed over the
        positive cells of the seen columns only, never as a V-long count, and the prior is
        a :class:`SeenPrior` (no V-long array). A feature never observed gets the uniform
        mean 1/K_f. Equal to :func:`heb.smoothing.prior_mean` (integer counts sum exactly
        in any order).
        """
        table = self.table
        k, cols = table.n_categories, self.seen_cols
        n_seen = np.bincount(self.cell_seen_position(), self.positive_counts, cols.size)
        # the seen columns are ascending, so each feature's are one run of them
        bounds = np.searchsorted(cols, table.offsets)
        per_feature = np.diff(bounds)
        s_f = self.n_cf.sum(axis=0)  # whole counts: the same sum in any order
        values = n_seen / np.repeat(s_f, per_feature)
        maximum, minimum = np.zeros(k.size), np.zeros(k.size)
        seen = np.flatnonzero(per_feature)
        first_all = bounds[:-1]
        first = first_all.take(seen)
        if seen.size:
            maximum[seen] = np.maximum.reduceat(values, first)
            full = per_feature == k  # every category seen: the minimum is a seen one's
            minimum[seen] = np.where(full[seen], np.minimum.reduceat(values, first), 0.0)
        # the prior at each feature's first column: a seen one's value, else 0
        at = np.minimum(first_all, max(cols.size - 1, 0))
        starts = np.zeros(k.size)
        if cols.size:
            starts = np.where(cols.take(at) == table.offsets[:-1], values.take(at), 0.0)
        positive = per_feature
        never = s_f == 0
        if never.any():  # the uniform mean over a feature never observed
            maximum[never] = minimum[never] = starts[never] = 1.0 / k[never]
            positive = np.where(never, k, per_feature)
        return SeenPrior(values, starts, never, table), PriorSummary(maximum, minimum, positive)

    def seen_uniform(self) -> tuple[SeenPrior, PriorSummary]:
        """The uniform prior mean 1/K_f at the seen columns, as :meth:`seen_marginal`."""
        k = self.table.n_categories
        uniform = 1.0 / k
        values = np.repeat(uniform, np.diff(np.searchsorted(self.seen_cols, self.table.offsets)))
        prior = SeenPrior(values, uniform, np.zeros(k.size, dtype=bool), self.table)
        return prior, PriorSummary(uniform, uniform.copy(), k)

    def sparse(self) -> bool:
        """Whether the positive cells fill under a quarter of the (C, V) table: counted
        where they are known (the table kept them, or a smoother read them), else bounded
        by the counted codes (10^4 rows of 100 Zipf codes over 3,000 categories fill 12 %
        of the cells, but their codes would fill all: the dense formula took twice as
        long). Either path gives the same log theta (within a few ulps)."""
        if self._positive is not None:
            return 4 * self._positive.size < self.table.counts.size
        return 4 * self.n_cf.sum() < self.table.counts.size


def dirichlet_log_theta(totals: TableSums, m_cf: np.ndarray, prior: np.ndarray | SeenPrior):
    """log theta of :func:`dirichlet_theta`, unseen columns 0, from the positive cells only.

    A zero count in a seen column has theta = m_cf t_v / (N_cf + m_cf): one value per
    (class, feature) pair when the feature's prior mean is uniform (the same floating-point
    operations as the dense formula), else log t_v + log(m_cf / (N_cf + m_cf)) (equal to the
    dense value within a few ulps). Positive counts use the dense formula cell by cell.
    Falls back to the dense formula when the counts are not sparse. ``prior`` is the (V,)
    prior mean or a :class:`SeenPrior` (the same values, on the seen columns only).
    """
    table = totals.table
    n_cf = totals.n_cf
    if not totals.sparse():
        dense_theta = dirichlet_theta(table, n_cf, m_cf, dense_prior(prior, totals))
        dense = log_seen(dense_theta, totals.seen)
        return SeenColumnLog(dense, None, dense.shape[1])
    V = table.counts.shape[1]
    k = table.n_categories
    denom = n_cf + m_cf
    if totals.uniform_prior:
        constant = np.ones(k.size, dtype=bool)
    else:
        summary = totals.prior_summary or prior_summary(prior, table)
        constant = summary.maximum == summary.minimum
    at_starts = prior_at_starts(prior, table)
    with np.errstate(divide="ignore"):
        zero_value = np.where(constant, np.log(m_cf * at_starts / denom), np.log(m_cf / denom))
    c, v = totals.cell_columns()
    if totals.all_seen:
        columns, j, per_feature = None, v, k
    else:
        columns, j = totals.seen_cols, totals.cell_seen_position()
        per_feature = np.diff(np.searchsorted(columns, table.offsets))
    out = np.repeat(zero_value, per_feature, axis=1)
    if not constant.all():  # + log t_v in the columns of features of a varying prior
        with np.errstate(divide="ignore"):
            log_t = np.log(prior_at_seen(prior, totals))
        if constant.any():
            log_t[np.repeat(constant, per_feature)] = 0.0
        out += log_t
    if totals.uniform_prior:  # m_cf t_v with t_v = 1/K_f: one product per pair
        theta = totals.at_cells(m_cf * at_starts)
    else:
        theta = totals.at_cells(m_cf)
        theta *= prior_at_cells(prior, totals)
    theta += totals.positive_counts
    theta /= totals.at_cells(denom)  # N_cf + m_cf
    out[c, j] = np.log(theta, out=theta)
    return SeenColumnLog(out, columns, V)
