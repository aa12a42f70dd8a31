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
    "TableSums",
    "dirichlet_log_theta",
    "dirichlet_theta",
    "log_seen",
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
    """(N_cfv + m_cf t_v) / (N_cf + m_cf), m_cf broadcast over the feature's columns."""
    col_f = table.feature_of_column
    m_col = m_cf[:, col_f]
    theta = m_col * prior
    theta += table.counts
    m_col += n_cf[:, col_f]
    theta /= m_col
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
        self._cell_columns = None
        self._cell_seen_position = None
        if sums is None:
            self._n_fv = table.category_totals()
            self.seen = self._n_fv > 0
        else:  # seen columns from the positive cells; N_fv only if a smoother reads it
            self._n_fv = None
            self._positive = table.positive_cells()
            self.seen = np.zeros(table.counts.shape[1], dtype=bool)
            self.seen[self.cell_columns()[1]] = True
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
    def cell_pair(self) -> np.ndarray:
        """The (class, feature) pair, ``c * F + f``, of each of :attr:`positive_cells`.

        The cells are row-major, so each pair's cells are one run: the runs' ends come from
        a search of the C * F block starts among the cells, never of each cell.
        """
        if self._cell_pair is None:
            table = self.table
            C, V = table.counts.shape
            bounds = np.searchsorted(self.positive_cells, block_starts(C, V, table.offsets))
            self._cell_pair = np.repeat(np.arange(C * table.n_features), np.diff(bounds))
        return self._cell_pair

    def cell_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Class and column of each of :attr:`positive_cells`."""
        if self._cell_columns is None:
            C, V = self.table.counts.shape
            c = self.cell_pair // self.table.n_features
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

    def feature_of(self, column: np.ndarray) -> np.ndarray:
        """The feature of each of the given columns."""
        return np.searchsorted(self.table.offsets, column, side="right") - 1

    def seen_marginal(self) -> tuple[np.ndarray, PriorSummary]:
        """The marginal prior mean N_fv / S_f (V,) and its summary, from the seen columns.

        For a table that keeps its sums (few rows, many cells): N_fv is summed over the
        positive cells of the seen columns only, never as a V-long count, and the (V,)
        prior is zero outside them (untouched pages of one zero-filled array). A feature
        never observed gets the uniform mean 1/K_f. Equal to
        :func:`heb.smoothing.prior_mean` (integer counts sum exactly in any order).
        """
        table = self.table
        k, width, cols = table.n_categories, self.seen.size, self.seen_cols
        n_seen = np.bincount(self.cell_seen_position(), self.positive_counts, cols.size)
        feature = self.feature_of(cols)
        s_f = np.bincount(feature, n_seen, k.size)
        prior = np.zeros(width)
        values = n_seen / s_f.take(feature)
        prior[cols] = values
        per_feature = np.bincount(feature, minlength=k.size)
        maximum, minimum = np.zeros(k.size), np.zeros(k.size)
        seen = np.flatnonzero(per_feature)
        first = np.searchsorted(cols, table.offsets[:-1]).take(seen)
        if seen.size:
            maximum[seen] = np.maximum.reduceat(values, first)
            full = per_feature == k  # every category seen: the minimum is a seen one's
            minimum[seen] = np.where(full[seen], np.minimum.reduceat(values, first), 0.0)
        positive = per_feature
        never = s_f == 0
        if never.any():  # the uniform mean over a feature never observed
            prior = np.where(np.repeat(never, k), np.repeat(1.0 / k, k), prior)
            maximum[never] = minimum[never] = 1.0 / k[never]
            positive = np.where(never, k, per_feature)
        return prior, PriorSummary(maximum, minimum, positive)

    def sparse(self) -> bool:
        """Whether the positive counts fill under a quarter of the (C, V) table."""
        return 4 * self.n_cf.sum() < self.table.counts.size


def dirichlet_log_theta(totals: TableSums, m_cf: np.ndarray, prior: np.ndarray):
    """log theta of :func:`dirichlet_theta`, unseen columns 0, from the positive cells only.

    A zero count in a seen column has theta = m_cf t_v / (N_cf + m_cf): one value per
    (class, feature) pair when the feature's prior mean is uniform (the same floating-point
    operations as the dense formula), else log t_v + log(m_cf / (N_cf + m_cf)) (equal to the
    dense value within a few ulps). Positive counts use the dense formula cell by cell.
    Falls back to the dense formula when the counts are not sparse.
    """
    table = totals.table
    n_cf = totals.n_cf
    if not totals.sparse():
        dense = log_seen(dirichlet_theta(table, n_cf, m_cf, prior), totals.seen)
        return SeenColumnLog(dense, None, dense.shape[1])
    V = table.counts.shape[1]
    starts, k = table.offsets[:-1], table.n_categories
    denom = n_cf + m_cf
    if totals.uniform_prior:
        constant = np.ones(k.size, dtype=bool)
    else:
        summary = totals.prior_summary or prior_summary(prior, table)
        constant = summary.maximum == summary.minimum
    with np.errstate(divide="ignore"):
        zero_value = np.where(constant, np.log(m_cf * prior[starts] / denom), np.log(m_cf / denom))
    c, v = totals.cell_columns()
    if totals.all_seen:
        columns, j, per_feature = None, v, k
    else:
        columns, j = totals.seen_cols, totals.cell_seen_position()
        per_feature = np.diff(np.searchsorted(columns, table.offsets))
    out = np.repeat(zero_value, per_feature, axis=1)
    if not constant.all():  # + log t_v in the columns of features of a varying prior
        with np.errstate(divide="ignore"):
            log_t = np.log(prior if columns is None else prior.take(columns))
        log_t[np.repeat(constant, per_feature)] = 0.0
        out += log_t
    pair = totals.cell_pair
    if totals.uniform_prior:  # m_cf t_v with t_v = 1/K_f: one product per pair
        theta = (m_cf * prior[starts]).ravel().take(pair)
    else:
        theta = m_cf.ravel().take(pair)
        theta *= prior.take(v)
    theta += totals.positive_counts
    theta /= denom.ravel().take(pair)  # N_cf + m_cf
    out[c, j] = np.log(theta, out=theta)
    return SeenColumnLog(out, columns, V)
