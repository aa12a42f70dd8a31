"""Encode a dataset's columns once, then each training fold's codes in a few numpy steps.

:class:`Preprocessor <heb.data.preprocess.Preprocessor>` reads the raw frame again for
every fold; on a million rows most of a cross-validation went into that. Here every
column is dictionary-encoded once (:func:`encode_columns`): each row holds an index into
the column's sorted distinct values, with two more indices for a missing value and for one
that is present but unreadable as a number (an infinity). A training fold is then fitted
from those indices alone (:meth:`DatasetCodes.fit`), and gives exactly the codes, the
categories' number and the counts a ``Preprocessor`` fitted on the same rows gives
(SPEC section 1):

- categorical: the fold's categories are the distinct values with a training row, so a
  lookup table maps a global index to its rank among them; any other value is unseen;
- numeric: the cut points come from the training rows' floats (``quantile_cuts``) and a
  value's bin from ``np.searchsorted``;
- missing values take the training mode / median bin (training rows only) or a category
  of their own, as the ``Preprocessor`` does.

:meth:`DatasetCodes.fit_fold` also counts the fold's training rows, by subtraction from
the whole dataset's counts (:func:`class_totals`) where a column has few distinct values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.counts import CountTable, category_offsets
from heb.data.binning import quantile_cuts, ranked_quantile_edges, training_value_cuts
from heb.data.dataset import DataError, is_id_like_name, is_text_dtype
from heb.data.folds import CountsByFold, fold_numbers, rows_by_class
from heb.data.preprocess import integer_values, number_kind, numeric_values, text_values
from heb.data.sorted_floats import SortedByClass, SortedByFold, bin_codes, ranked_median

__all__ = ["ColumnCodes", "DatasetCodes", "FoldEncoding", "class_totals", "encode_columns"]

_MISSING_MODES = ("impute", "category")


@dataclass(frozen=True)
class ColumnCodes:
    """One column as indices into its sorted distinct values.

    Attributes
    ----------
    name : str
        Column name.
    role : {"categorical", "numeric", "id-float"}
        ``"id-float"``: floats under an ID-like name, categorical in a fold whose training
        values are all whole numbers (``is_integer_like``), numeric otherwise.
    index : ndarray of shape (n,), int32, or None
        ``0..G-1`` the rank of the row's value, ``G`` missing, ``G + 1`` present but not a
        usable number (categorical columns read as floats: an infinity). None for a
        numeric column, which keeps its floats.
    n_values : int
        G, the number of distinct values indexed (0 for a numeric column).
    values : ndarray or None
        The sorted distinct floats (G,) of an indexed number-valued column, the row floats
        (n,) of a numeric column (NaN where missing), None for labels.
    labels : ndarray or None
        The sorted distinct labels (G,) of a column coded from its labels (what a category
        rule such as a ZIP prefix reads); None otherwise.
    """

    name: str
    role: str
    index: np.ndarray | None
    n_values: int
    values: np.ndarray | None = None
    labels: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held."""
        arrays = [a for a in (self.index, self.values) if a is not None]
        return sum(a.nbytes for a in arrays)

    def floats(self, rows: np.ndarray) -> np.ndarray:
        """The rows' numbers, NaN where missing or infinite (``numeric_values``)."""
        if self.index is None:
            return self.values[rows]
        return np.append(self.values, [np.nan, np.nan])[self.index[rows]]


def _ranked(raw_codes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices into the sorted distinct ``labels`` (-1 -> their number G), and those labels."""
    order = np.sort(pd.unique(labels))  # the Preprocessor's order: np.sort of the distinct
    rank = pd.Index(order).get_indexer(labels)
    lookup = np.append(rank, order.size).astype(np.int32)  # -1 picks the appended G
    return lookup[raw_codes], order  # int32 straight from the gather


def _label_codes(column: pd.Series, numeric: str) -> tuple[np.ndarray, np.ndarray]:
    """Indices of a categorical column coded from its text or exact integer labels."""
    if numeric == "integer":
        raw, uniques = pd.factorize(column, use_na_sentinel=True)
        labels = integer_values(pd.Series(uniques))
        return _ranked(raw, labels)
    raw, uniques = pd.factorize(column, use_na_sentinel=True)
    uniques = pd.Series(uniques)
    if pd.api.types.is_object_dtype(column.dtype) and not all(isinstance(v, str) for v in uniques):
        # 1, 1.0 and True hash alike but read "1", "1.0", "True": factorize the labels
        raw, label_uniques = pd.factorize(text_values(column), use_na_sentinel=True)
        return _ranked(raw, np.asarray(label_uniques, dtype=object))
    return _ranked(raw, text_values(uniques))


def _float_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Indices into the sorted distinct finite floats; ``G`` missing, ``G + 1`` infinite."""
    values = numeric_values(column)
    finite = ~np.isnan(values)
    distinct, inverse = np.unique(values[finite], return_inverse=True)
    G = distinct.size
    index = np.full(values.size, G, dtype=np.int32)
    index[finite] = inverse
    index[~finite & column.notna().to_numpy()] = G + 1
    return index, distinct


def _role(name: str, column: pd.Series, declared: set) -> str:
    if name in declared or is_text_dtype(column.dtype):
        return "categorical"
    if is_id_like_name(name) and not pd.api.types.is_bool_dtype(column.dtype):
        if pd.api.types.is_integer_dtype(column.dtype):
            return "categorical"
        if pd.api.types.is_float_dtype(column.dtype):
            return "id-float"
    return "numeric"


def encode_columns(X: pd.DataFrame, categorical=None) -> DatasetCodes:
    """Every column of ``X`` as :class:`ColumnCodes`, read once.

    Parameters
    ----------
    X : DataFrame
        The feature columns (names made strings, as the ``Preprocessor`` does).
    categorical : list of str, optional
        Columns declared categorical.
    """
    if X.shape[0] == 0:
        raise DataError("There are no rows: a table needs at least one row.")
    names = [str(c) for c in X.columns]
    if len(set(names)) != len(names):
        raise DataError("Two columns have the same name; give each column a unique name.")
    declared = {str(c) for c in (categorical or [])}
    columns = []
    for position, name in enumerate(names):
        column = X.iloc[:, position]
        role = _role(name, column, declared)
        numeric = number_kind(column)
        if role == "categorical" and numeric != "float":
            index, labels = _label_codes(column, numeric)
            columns.append(ColumnCodes(name, role, index, labels.size, labels=labels))
        elif role == "numeric":
            columns.append(ColumnCodes(name, role, None, 0, numeric_values(column)))
        else:
            index, distinct = _float_codes(column)
            columns.append(ColumnCodes(name, role, index, distinct.size, distinct))
    return DatasetCodes(tuple(columns), X.shape[0])


def class_totals(
    codes: DatasetCodes, y: np.ndarray, n_classes: int, tests: list | None = None
) -> list:
    """Per column, what counting a fold by subtraction needs, or None.

    An indexed column of a few distinct values gets its :class:`CountsByFold` (class by
    index per fold's test rows, in one pass, when those counts are fewer than the rows;
    else over every row only); a numeric column a :class:`SortedByFold` of its floats.
    ``tests``: the folds' test rows, which partition the rows (each fold's test floats
    are then sorted within each class once, here); default one group of every row.
    """
    limit = max(1, codes.n_rows // 4)
    tests = (np.arange(codes.n_rows),) if tests is None else tuple(tests)
    fold_of_row = fold_numbers(tests, codes.n_rows)
    every_row = (np.arange(codes.n_rows),)  # one group: each fold's test rows counted later
    groups = None
    out: list = []
    for column in codes.columns:
        if column.index is None:
            if groups is None:  # each fold's test rows ordered by class, once
                groups = []
                for test in tests:
                    order, bounds = rows_by_class(y[test], n_classes)
                    groups.append((test[order], bounds))
            out.append(SortedByFold.of(column.values, tests, groups))
            continue
        width = column.n_values + 2
        if n_classes * width > limit:
            out.append(None)
        elif len(tests) * n_classes * width <= codes.n_rows:
            out.append(CountsByFold.of(column.index, y, fold_of_row, tests, n_classes, width))
        else:
            out.append(CountsByFold.of(column.index, y, 0, every_row, n_classes, width))
    return out


@dataclass(frozen=True)
class _FittedColumn:
    """One kept column of a fold: its lookup (categorical) or cut points (numeric)."""

    position: int
    n: int
    fill: int
    imputed: bool
    table: np.ndarray | None = None  # categorical: global index (G + 2 slots) -> fold code
    cuts: np.ndarray | None = None  # numeric: interior bin edges

    def codes(
        self, column: ColumnCodes, rows: np.ndarray, impute: bool, out: np.ndarray
    ) -> np.ndarray:
        """The fold codes of ``rows`` (training rows imputed when ``impute``), written into
        ``out`` (len(rows),)."""
        missing_code = self.fill if impute or not self.imputed else -1
        if self.table is not None:
            table = self.table.copy()
            table[column.n_values] = missing_code
            return np.take(table, column.index[rows], out=out, mode="clip")  # no buffer
        values = column.floats(rows)
        out[:] = bin_codes(self.cuts, values)
        out[np.isnan(values)] = missing_code
        return out

    def collapse(self, by_index: np.ndarray) -> np.ndarray:
        """(C, n) training counts of a categorical column from its (C, G + 2) counts by
        global index (the missing slot of the table holds the fill: training rows are
        imputed)."""
        counted = self.table < self.n
        C = by_index.shape[0]
        flat = (np.arange(C)[:, None] * self.n + self.table[None, counted]).ravel()
        weights = by_index[:, counted].ravel().astype(np.float64)
        return np.bincount(flat, weights=weights, minlength=C * self.n).reshape(C, self.n)


def _count_codes(code: np.ndarray, y: np.ndarray, n_classes: int, n: int) -> np.ndarray:
    """(C, n) counts of ``code`` by class; codes outside ``0..n-1`` are not counted."""
    flat = y * n + code
    flat[(code < 0) | (code >= n)] = n_classes * n
    return np.bincount(flat, minlength=n_classes * n + 1)[:-1].reshape(n_classes, n)


@dataclass(frozen=True)
class FoldEncoding:
    """A training fold's encoding of a :class:`DatasetCodes`, as a fitted ``Preprocessor``.

    Attributes
    ----------
    feature_names_out_ : list of str
        Kept columns (a column with no value in any training row is dropped).
    n_categories_ : ndarray of int
        K_f per kept column.
    """

    feature_names_out_: list
    n_categories_: np.ndarray
    fitted: tuple[_FittedColumn, ...]

    @property
    def nbytes(self) -> int:
        """Bytes of the lookup tables and cut points held."""
        arrays = [f.table if f.table is not None else f.cuts for f in self.fitted]
        return sum(a.nbytes for a in arrays)

    def transform(self, codes: DatasetCodes, rows: np.ndarray, impute: bool = False) -> np.ndarray:
        """Codes of ``rows``, shape (len(rows), F): ``Preprocessor.transform`` (or, with
        ``impute``, ``fit_transform`` on the training rows).

        Column-major: each column is written in one contiguous pass, and scoring reads
        the codes a column at a time.
        """
        out = np.empty((len(self.fitted), len(rows)), dtype=np.int64).T
        for j, fitted in enumerate(self.fitted):
            fitted.codes(codes.columns[fitted.position], rows, impute, out[:, j])
        return out


@dataclass(frozen=True)
class DatasetCodes:
    """Every column of a dataset as :class:`ColumnCodes` (from :func:`encode_columns`)."""

    columns: tuple[ColumnCodes, ...]
    n_rows: int

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held."""
        return sum(column.nbytes for column in self.columns)

    def fit(self, train: np.ndarray, n_bins: int = 10, missing: str = "impute") -> FoldEncoding:
        """The encoding a ``Preprocessor(n_bins, missing)`` fitted on rows ``train`` learns."""
        return self.fit_fold(train, None, None, 0, n_bins, missing)[0]

    def fit_fold(
        self,
        train: np.ndarray,
        test: np.ndarray | None,
        y: np.ndarray | None,
        n_classes: int,
        n_bins: int = 10,
        missing: str = "impute",
        totals: list | None = None,
    ) -> tuple[FoldEncoding, CountTable | None]:
        """The fold's encoding and, given ``y``, the :class:`CountTable` of its imputed
        training codes (``CountTable.from_codes``'s counts).

        Columns with ``totals`` (:func:`class_totals`) are counted as every row minus the
        ``test`` rows; the others from the training rows.
        """
        if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 2:
            raise ValueError(f"n_bins must be a whole number of at least 2, got {n_bins!r}.")
        if missing not in _MISSING_MODES:
            raise ValueError(f"missing must be 'impute' or 'category', got {missing!r}.")
        counting = y is not None
        if not counting or totals is None:
            totals = [None] * len(self.columns)
        rows = _FoldRows.of(train, test, y, n_classes, totals, self.columns)
        names, fitted, blocks = [], [], []
        for position, (column, total) in enumerate(zip(self.columns, totals, strict=True)):
            item, block = rows.fit(position, column, total, n_bins, missing)
            if item is not None:
                names.append(column.name)
                fitted.append(item)
                blocks.append(block)
        if not fitted:
            raise DataError(
                "No usable feature column is left: every feature is empty in the training rows."
            )
        n_categories = np.array([f.n for f in fitted], dtype=np.int64)
        encoding = FoldEncoding(names, n_categories, tuple(fitted))
        if y is None:
            return encoding, None
        offsets = category_offsets(n_categories)
        counts = np.concatenate(blocks, axis=1).astype(np.float64)
        class_counts = rows.class_counts(y).astype(np.float64)
        return encoding, CountTable(class_counts, counts, offsets)


@dataclass(frozen=True)
class _FoldRows:
    """A fold's rows and their classes as counting needs them: the training rows' classes
    only when a column is counted from them, the test rows ordered by class when a
    numeric column is counted by subtraction and the test rows are not one of its folds."""

    train: np.ndarray
    test: np.ndarray | None
    n_classes: int
    y_train: np.ndarray | None = None
    y_test: np.ndarray | None = None
    test_by_class: np.ndarray | None = None
    test_bounds: np.ndarray | None = None

    @classmethod
    def of(cls, train, test, y, n_classes: int, totals: list, columns) -> _FoldRows:
        """What the fold's columns need (``y`` None: nothing is counted)."""
        if y is None:
            return cls(train, test, n_classes)
        y_test = None if test is None else y[test]
        by_rows = [t is None or c.role == "id-float" for t, c in zip(totals, columns, strict=True)]
        y_train = y[train] if any(by_rows) else None
        test_by_class = test_bounds = None
        if any(isinstance(t, SortedByFold) and t.fold_of(test) is None for t in totals):
            order, test_bounds = rows_by_class(y_test, n_classes)
            test_by_class = test[order]
        return cls(train, test, n_classes, y_train, y_test, test_by_class, test_bounds)

    def class_counts(self, y: np.ndarray) -> np.ndarray:
        """The training rows per class (every row's minus the test rows' when the training
        rows' classes were not needed)."""
        if self.y_train is None:
            in_test = np.bincount(self.y_test, minlength=self.n_classes)
            return np.bincount(y, minlength=self.n_classes) - in_test
        return np.bincount(self.y_train, minlength=self.n_classes)

    def fit(self, position: int, column: ColumnCodes, total, n_bins: int, missing: str):
        """One column's fitted encoding and (C, n) training counts (``total`` its
        :func:`class_totals` entry); (None, None) if dropped."""
        if isinstance(total, SortedByFold):
            in_test = total.fold_of(self.test)
            if in_test is None:  # not one of the folds: its test floats sorted here
                in_test = SortedByClass.of(column.values, self.test_by_class, self.test_bounds)
            return _fit_sorted(position, in_test, total, n_bins, missing)
        by_index = None
        if total is not None:
            by_index = total.training(self.test, self.y_test, column.index)
        return _fit_column(
            position, column, self.train, self.y_train, self.n_classes, n_bins, missing, by_index
        )


def _fit_column(
    position: int,
    column: ColumnCodes,
    train: np.ndarray,
    y_train: np.ndarray | None,
    n_classes: int,
    n_bins: int,
    missing: str,
    by_index: np.ndarray | None,
) -> tuple[_FittedColumn | None, np.ndarray | None]:
    """One column's fitted encoding and (C, n) training counts; (None, None) if dropped."""
    if column.index is None:
        return _fit_floats(position, column.floats(train), y_train, n_classes, n_bins, missing)
    G = column.n_values
    if by_index is not None:
        seen = by_index.sum(axis=0)
    else:
        seen = np.bincount(column.index[train], minlength=G + 2)
    present = seen[:G] > 0
    if not present.any():
        return None, None  # no value in any training row: dropped
    if column.role == "id-float" and not (column.values[present] % 1 == 0).all():
        return _fit_floats(position, column.floats(train), y_train, n_classes, n_bins, missing)
    # a missing category when training has missing rows; infinities (slot G + 1) are
    # unseen at every step, so they never make one (it would hold no training row)
    item = _fit_categorical(position, seen[:G], present, bool(seen[G]), missing)
    if by_index is not None:
        return item, item.collapse(by_index)
    if y_train is None:
        return item, None
    return item, _count_codes(item.table[column.index[train]], y_train, n_classes, item.n)


def _fit_floats(
    position: int,
    values: np.ndarray,
    y_train: np.ndarray | None,
    n_classes: int,
    n_bins: int,
    missing: str,
) -> tuple[_FittedColumn | None, np.ndarray | None]:
    """A numeric column's quantile bins (``Preprocessor._fit_numeric``) and counts."""
    absent = np.isnan(values)
    observed = values[~absent]
    if observed.size == 0:
        return None, None
    cuts = quantile_cuts(observed, n_bins)
    n = cuts.size + 1
    if missing == "category":
        fill, n = n, n + bool(absent.any())
    else:
        fill = int(np.searchsorted(cuts, float(np.median(observed)), side="right"))
    item = _FittedColumn(position, n, fill, missing == "impute", cuts=cuts)
    if y_train is None:
        return item, None
    code = np.full(values.size, fill, dtype=np.int64)
    code[~absent] = np.searchsorted(cuts, observed, side="right")
    return item, _count_codes(code, y_train, n_classes, n)


def _fit_sorted(
    position: int, in_test: SortedByClass, total: SortedByFold, n_bins: int, missing: str
) -> tuple[_FittedColumn | None, np.ndarray | None]:
    """:func:`_fit_floats` from every row's sorted floats and the test rows' alone
    (``in_test``, sorted within each class): the training quantiles and median from order
    statistics, the training counts as every row's minus the test rows'."""
    n_observed = total.sorted_all.size - in_test.sorted_values.size
    if n_observed == 0:
        return None, None
    order_statistic = total.training_order_statistic(in_test)
    cuts = training_value_cuts(total, in_test, n_bins)
    if cuts is not None:  # one bin per training value
        merged_counts = total.bin_counts(cuts) - in_test.bin_counts(cuts)
    else:
        edges = ranked_quantile_edges(order_statistic, n_observed, n_bins)
        by_bin = total.bin_counts(edges) - in_test.bin_counts(edges)
        keep = by_bin.sum(axis=0) > 0  # an empty bin merges into its right-hand neighbour,
        keep[-1] = True  # adding nothing to it
        cuts, merged_counts = edges[keep[:-1]], by_bin[:, keep]
    n = cuts.size + 1
    merged = merged_counts.astype(np.float64)
    absent = total.missing - in_test.missing
    if missing == "category":
        fill = n
        if absent.any():
            n += 1
            merged = np.column_stack((merged, absent))
    else:
        fill = int(np.searchsorted(cuts, ranked_median(order_statistic, n_observed), side="right"))
        merged[:, fill] += absent
    return _FittedColumn(position, n, fill, missing == "impute", cuts=cuts), merged


def _fit_categorical(
    position: int, seen: np.ndarray, present: np.ndarray, any_missing: bool, missing: str
) -> _FittedColumn:
    n_seen = int(present.sum())
    if missing == "category":
        fill, n = n_seen, n_seen + any_missing
        unseen = n if fill < n else fill
    else:
        fill, n, unseen = int(np.argmax(seen[present])), n_seen, n_seen
    table = np.empty(seen.size + 2, dtype=np.int64)
    table[: seen.size] = np.where(present, np.cumsum(present) - 1, unseen)
    table[seen.size] = fill
    table[seen.size + 1] = unseen  # present but unreadable as a number
    return _FittedColumn(position, n, fill, missing == "impute", table=table)
