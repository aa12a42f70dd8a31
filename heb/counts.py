"""Sufficient statistics of categorical Naive Bayes: class counts and N_cfv tables.

Fitting is counting. A :class:`CountTable` holds, for C classes and F features with
K_f categories each, the class counts N_c and every N_cfv, the latter flattened over
features into one (C, V) matrix with V = sum_f K_f and feature f occupying the columns
``offsets[f]:offsets[f + 1]``. Two tables of the same classes add (``partial_fit``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "CountTable",
    "as_codes",
    "block_starts",
    "categories_of",
    "category_offsets",
    "column_max",
    "MAX_TABLE_CELLS",
]

#: Refuse count tables larger than this many cells (C * sum K_f): raw IDs passed as codes.
MAX_TABLE_CELLS = 200_000_000
#: cells per row block of :func:`column_max`
_MAX_BLOCK = 8192
#: a few-row table's positive cells come from sorting its codes when the cells outnumber
#: the codes this many times, else from scanning the table (10^4 rows of 100 Zipf codes
#: over 10 classes: as quick either way at 3,000 categories, 20 % quicker sorted at 10,000)
_SORT_CELLS_BELOW = 4


def _integer_codes(arr: np.ndarray) -> np.ndarray:
    """:func:`as_codes` of an integer array: int64, negative codes as -1 (no copy when
    there are none), a uint64 code past :data:`MAX_TABLE_CELLS` as that bound."""
    if arr.dtype == np.uint64 and arr.size and arr.max() > MAX_TABLE_CELLS:
        arr = np.minimum(arr, MAX_TABLE_CELLS)  # past int64 it would wrap to missing
    codes = arr.astype(np.int64, copy=False)
    if not codes.size or codes.min() >= 0:  # nothing missing: no copy
        return codes
    return np.maximum(codes, -1)


def as_codes(X, *, name: str = "X") -> np.ndarray:
    """Validate a 2-D array of integer category codes; negative, NaN, None or NA is missing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Integer codes (any integer dtype, or floats holding whole numbers / NaN).
    name : str
        Name used in error messages.

    Returns
    -------
    numpy.ndarray of int64, missing values as -1.
        A uint64 or float code above :data:`MAX_TABLE_CELLS` (no table can hold it: a
        uint64 hash past int64) becomes that bound, not a wrapped negative (missing)
        value: too large to fit, unseen when scored.
    """
    arr = np.asarray(X)
    if arr.dtype == object or arr.dtype.kind in "USb":
        if arr.dtype.kind == "b":
            arr = arr.astype(np.int64)
        else:
            arr = _as_floats(arr, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of category codes, got {arr.ndim}-D.")
    if arr.dtype.kind in "iu":
        return _integer_codes(arr)
    if arr.dtype.kind != "f":
        raise ValueError(f"{name} has unsupported dtype {arr.dtype}.")
    missing = ~np.isfinite(arr)
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains infinite values; category codes must be integers.")
    filled = np.where(missing, -1.0, arr)
    if not np.array_equal(filled, np.round(filled)):
        raise ValueError(
            f"{name} must hold integer category codes, but it contains fractional values. "
            "Bin or encode numeric columns first (heb.data.Preprocessor)."
        )
    return np.clip(filled, -1, MAX_TABLE_CELLS).astype(np.int64)


def _as_floats(arr: np.ndarray, name: str) -> np.ndarray:
    """An object or text array as float64; None and pandas' NA (the missing value of a
    nullable integer column, which ``float`` refuses) become NaN (missing). Text that is
    no number is a one-sentence ValueError; another object keeps ``float``'s TypeError
    (scikit-learn's estimator checks expect it)."""
    try:
        try:
            return arr.astype(np.float64)
        except TypeError as exc:  # pandas' NA, or an object that is no number
            missing = _is_missing_object(arr).astype(bool)
            if not missing.any():
                raise exc from None
            return np.where(missing, np.nan, arr).astype(np.float64)
    except ValueError as exc:
        raise ValueError(
            f"{name} must hold integer category codes; found non-numeric values. "
            "Encode raw columns first (heb.data.Preprocessor)."
        ) from exc


#: elementwise: None, or pandas' NA (told by its type's name: the engine imports no pandas)
_is_missing_object = np.frompyfunc(
    lambda value: value is None or type(value).__name__ == "NAType", 1, 1
)


def categories_of(codes: np.ndarray) -> np.ndarray:
    """K_f = max code + 1 per feature (at least 1) of 2-D codes; a code past any table's
    size (int64's largest, whose + 1 would wrap K_f to 1) counts as that size, which a
    count table then refuses as too large."""
    return np.maximum(np.minimum(column_max(codes), MAX_TABLE_CELLS) + 1, 1)


def column_max(codes: np.ndarray) -> np.ndarray:
    """The largest code of each column of a 2-D array (-1 for no rows).

    Blocked so that numpy reduces long contiguous rows: ``codes.max(axis=0)`` over a few
    columns is several times slower than a full reduction.
    """
    n_rows, n_features = codes.shape
    block = max(1, _MAX_BLOCK // max(n_features, 1))
    head = n_rows - n_rows % block
    if head == 0 or not codes.flags.c_contiguous:
        return codes.max(axis=0, initial=-1)
    most = codes[:head].reshape(head // block, block * n_features).max(axis=0)
    out = most.reshape(block, n_features).max(axis=0)
    if head < n_rows:
        out = np.maximum(out, codes[head:].max(axis=0))
    return out


def block_starts(n_classes: int, width: int, offsets: np.ndarray) -> np.ndarray:
    """Flat indices where each (class, feature) block of a (C, V) table starts, and C * V.

    Shape (C * F + 1,), ascending, in row-major (class, feature) order.
    """
    starts = (np.arange(n_classes, dtype=np.int64)[:, None] * width + offsets[:-1]).ravel()
    return np.append(starts, n_classes * width)


def category_offsets(n_categories) -> np.ndarray:
    """Offsets of consecutive blocks of ``n_categories[f]`` columns, shape (F + 1,), int64.

    Block f occupies ``offsets[f]:offsets[f + 1]``; ``offsets[-1]`` is the total width.
    """
    return np.concatenate(([0], np.cumsum(n_categories))).astype(np.int64)


def _sorted_cells(flat: np.ndarray, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct flat cells below ``n_cells`` of ``flat``, ascending, and their counts.

    A sort, not ``np.unique`` (which may hash, slower here); 32-bit keys sort 2x faster.
    """
    narrow = np.int32 if n_cells < np.iinfo(np.int32).max else np.int64
    flat = np.sort(flat.astype(narrow))
    flat = flat[: np.searchsorted(flat, n_cells)]
    first = np.flatnonzero(np.concatenate((flat[:1] >= 0, flat[1:] != flat[:-1])))
    cells = flat.take(first).astype(np.int64)
    return cells, np.diff(np.append(first, flat.size)).astype(np.float64)


@dataclass(frozen=True)
class CountTable:
    """Class counts and per-feature class-conditional category counts.

    Attributes
    ----------
    class_counts : ndarray of shape (C,)
        N_c, training rows per class.
    counts : ndarray of shape (C, V)
        N_cfv for every feature, concatenated over features (V = sum_f K_f).
    offsets : ndarray of shape (F + 1,)
        Feature f occupies columns ``offsets[f]:offsets[f + 1]`` of ``counts``.
    """

    class_counts: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray

    # ---------------------------------------------------------------- building
    @classmethod
    def from_codes(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        n_categories: np.ndarray | None = None,
        *,
        codes_below_k: bool = False,
        weights: np.ndarray | None = None,
    ) -> CountTable:
        """Count integer codes in one vectorised pass.

        Parameters
        ----------
        X : ndarray of shape (n, F), int
            Category codes from :func:`as_codes`; negative codes are missing and not counted.
        y : ndarray of shape (n,), int
            Class indices in ``0..n_classes - 1``.
        n_classes : int
            Number of classes C.
        n_categories : ndarray of shape (F,), optional
            K_f; default ``max code + 1`` per feature (at least 1). Codes ``>= K_f`` are
            not counted.
        codes_below_k : bool
            The caller guarantees no code is ``>= K_f`` (K_f from these codes' maximum):
            the per-feature maximum is then not computed again.
        weights : ndarray of shape (n,), optional
            Each row counts this much (finite, >= 0) instead of 1, in N_c and N_cfv: a
            whole-number weight gives the counts of the row repeated that many times.
        """
        X = np.asarray(X, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        n_rows, n_features = X.shape
        # K_f = max code + 1 (here or by the caller): no code is too large
        codes_fit = n_categories is None or codes_below_k
        if n_categories is None:
            n_categories = categories_of(X)
        n_categories = np.maximum(np.asarray(n_categories, dtype=np.int64), 1)
        offsets = category_offsets(n_categories)
        width = int(offsets[-1])
        if n_classes * width > MAX_TABLE_CELLS:
            raise ValueError(
                f"The category codes are too large: the count table would need at least "
                f"{n_classes * width:,} cells. Re-encode each feature's categories as "
                "0..K-1 (heb.data.Preprocessor does this)."
            )
        # one bincount over combined (class, feature, code) indices, built in place; codes
        # outside 0..K_f-1 go to one extra bin that is dropped
        n_cells = n_classes * width
        flat = X + offsets[:-1]
        flat += (y * width)[:, None]
        complete = not (  # every row has a counted code in every feature
            n_rows and (X.min() < 0 or not (codes_fit or np.all(column_max(X) < n_categories)))
        )
        if not complete:
            flat[(X < 0) | (X >= n_categories)] = n_cells
        flat = flat.ravel()
        sparse = flat.size < n_cells
        cells = None
        if weights is not None:  # one weight per row, repeated over its features
            weights = np.asarray(weights, dtype=np.float64)
            per_code = np.broadcast_to(weights[:, None], X.shape).ravel()
            counts = np.bincount(flat, weights=per_code, minlength=n_cells + 1)
        elif sparse and _SORT_CELLS_BELOW * flat.size < n_cells:
            # far fewer codes than cells: the positive cells and their counts from one
            # sort of the codes, written into a zero table (no bincount pass over it)
            cells, cell_counts = _sorted_cells(flat, n_cells)
            counts = np.zeros(n_cells)
            counts[cells] = cell_counts
        elif sparse:
            # few rows, many cells: count straight into float64, no (C, V) conversion pass
            counts = np.bincount(flat, weights=np.ones(flat.size), minlength=n_cells + 1)
        else:
            counts = np.bincount(flat, minlength=n_cells + 1).astype(np.float64)
        counts = counts[:n_cells].reshape(n_classes, width)
        class_counts = np.bincount(y, weights, minlength=n_classes).astype(np.float64)
        table = cls(class_counts, counts, offsets)
        if sparse:
            # a large table of few rows: its sums and positive cells come from the rows,
            # not from reading the mostly-zero table, which is made read-only so that
            # they cannot go stale
            if cells is None:  # one scan of the table (a bool scan: 2x nonzero of floats)
                cells = np.flatnonzero(counts > 0)
                cell_counts = counts.ravel().take(cells)
            # no code left out: N_cf = N_c for every feature, no sum over the cells
            n_cf = np.repeat(class_counts[:, None], n_features, axis=1) if complete else None
            table._keep_sums(cells, cell_counts, n_cf)
        return table

    def _keep_sums(
        self, cells: np.ndarray, cell_counts: np.ndarray, n_cf: np.ndarray | None = None
    ) -> None:
        """Store the positive cells (flat, ascending), their counts, and N_cf (summed from
        them unless given)."""
        C, width = self.counts.shape
        if n_cf is None:
            # cells are row-major, so each (class, feature) block is one run of them
            bounds = np.searchsorted(cells, block_starts(C, width, self.offsets))
            cumulative = np.concatenate(([0.0], np.cumsum(cell_counts)))
            n_cf = np.diff(cumulative.take(bounds)).reshape(C, self.n_features)
        self.counts.flags.writeable = False
        # N_fv (a V-long array) is counted from the cells on first use
        object.__setattr__(self, "_sums", [None, n_cf, cells, cell_counts])

    def _kept_category_totals(self) -> np.ndarray:
        """N_fv of a table that keeps its sums, counted from its positive cells once."""
        sums = self._sums
        if sums[0] is None:
            width = self.counts.shape[1]
            sums[0] = np.bincount(sums[2] % width, weights=sums[3], minlength=width)
        return sums[0]

    def positive_cells(self) -> np.ndarray:
        """Flat (row-major) indices of the positive counts of ``counts``, ascending."""
        sums = getattr(self, "_sums", None)
        if sums is not None:
            return sums[2]
        return np.flatnonzero(self.counts > 0)

    def positive_counts(self, cells: np.ndarray) -> np.ndarray:
        """The counts of ``cells`` (from :meth:`positive_cells`), without a gather when kept."""
        sums = getattr(self, "_sums", None)
        if sums is not None and cells is sums[2]:
            return sums[3]
        return self.counts.ravel().take(cells)

    @classmethod
    def empty(cls, n_classes: int, n_categories: np.ndarray) -> CountTable:
        """An all-zero table of the given shape."""
        n_categories = np.maximum(np.asarray(n_categories, dtype=np.int64), 1)
        offsets = category_offsets(n_categories)
        return cls(np.zeros(n_classes), np.zeros((n_classes, int(offsets[-1]))), offsets)

    # ---------------------------------------------------------------- shape
    @property
    def n_classes(self) -> int:
        """Number of classes C."""
        return self.counts.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features F."""
        return self.offsets.size - 1

    @property
    def n_categories(self) -> np.ndarray:
        """K_f per feature."""
        return np.diff(self.offsets)

    @property
    def n_samples(self) -> float:
        """S, the number of counted rows."""
        return float(self.class_counts.sum())

    @property
    def feature_of_column(self) -> np.ndarray:
        """For each of the V columns, the feature it belongs to."""
        return np.repeat(np.arange(self.n_features), self.n_categories)

    # ---------------------------------------------------------------- sums
    def class_feature_totals(self) -> np.ndarray:
        """N_cf = sum_v N_cfv, rows of class c where feature f is observed; shape (C, F)."""
        sums = getattr(self, "_sums", None)
        if sums is not None:
            return sums[1].copy()
        return np.add.reduceat(self.counts, self.offsets[:-1], axis=1)

    def rows_per_category(self) -> np.ndarray:
        """N_cf / K_f, the average training rows per category of each pair; shape (C, F).

        Below a handful, the prior mean (the smoother's choice) dominates the estimate.
        """
        return self.class_feature_totals() / self.n_categories[None, :]

    def category_totals(self) -> np.ndarray:
        """N_fv = sum_c N_cfv, shape (V,)."""
        if getattr(self, "_sums", None) is not None:
            return self._kept_category_totals().copy()
        return self.counts.sum(axis=0)

    def feature_totals(self) -> np.ndarray:
        """S_f, rows where feature f is observed, shape (F,)."""
        return self.class_feature_totals().sum(axis=0)

    # ---------------------------------------------------------------- merging
    def widen(self, n_categories: np.ndarray) -> CountTable:
        """The same counts in a table with at least ``n_categories`` columns per feature."""
        new_k = np.maximum(self.n_categories, np.asarray(n_categories, dtype=np.int64))
        if np.array_equal(new_k, self.n_categories):
            return self
        wider = CountTable.empty(self.n_classes, new_k)
        cols = wider.offsets[self.feature_of_column] + (
            np.arange(self.counts.shape[1]) - self.offsets[self.feature_of_column]
        )
        wider.counts[:, cols] = self.counts
        wider.class_counts[:] = self.class_counts
        return wider

    def __add__(self, other: CountTable) -> CountTable:
        if not isinstance(other, CountTable):
            return NotImplemented
        if other.n_classes != self.n_classes or other.n_features != self.n_features:
            raise ValueError("Count tables of different classes or features cannot be merged.")
        k = np.maximum(self.n_categories, other.n_categories)
        a, b = self.widen(k), other.widen(k)
        return CountTable(a.class_counts + b.class_counts, a.counts + b.counts, a.offsets)
