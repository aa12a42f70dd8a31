"""SPEC section 1 encoding fitted from an engine's value histograms, identical to in memory.

The engine returns, per feature, how many rows of each (fold, class) hold each raw value.
Everything :class:`heb.preprocess.Preprocessor` fits on a training fold is a function of
that histogram: the training histogram is the total minus the fold (counts add), the
categories are its non-empty values in sorted order, the mode, the quantile edges and the
median are weighted order statistics (computed here with numpy's own formulas, so the
edges equal ``np.quantile`` of the expanded rows bit for bit), and the empty-bin merge
needs only the per-bin counts. Raw values become the same processed values as in memory
through the preprocessing helpers themselves (``_numeric_values`` / ``_text_values``).

Each feature's distinct raw values are *slots*: ``0..D-1`` the distinct processed values,
``D`` a missing value, ``D + 1`` a value that reads as missing but is not (an infinity in
a numeric column). A fitted fold maps every slot to its code, for counting (training rows
imputed) and for scoring (missing is absent evidence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.data.binning import value_cuts
from heb.data.preprocess import integer_values as _integer_values
from heb.data.preprocess import numeric_values as _numeric_values
from heb.data.preprocess import text_values as _text_values

__all__ = [
    "FeatureValues",
    "FoldEncoding",
    "weighted_quantile",
    "weighted_median",
    "fit_fold",
]


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(np.repeat(values, weights), q)`` without expanding the rows.

    ``values`` sorted and distinct, ``weights`` positive whole counts. Uses numpy's linear
    method step by step (virtual index, bounds, ``_lerp``), so the result is bit-identical.
    """
    n = int(round(float(weights.sum())))
    q = np.asarray(q, dtype=np.float64)
    virtual = (n - 1) * q
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n - 1
    previous[above] = n - 1
    following[above] = n - 1
    below = virtual < 0
    previous[below] = 0
    following[below] = 0
    cum = np.cumsum(weights)
    a = values[np.searchsorted(cum, previous, side="right")]
    b = values[np.searchsorted(cum, following, side="right")]
    gamma = np.where(above, virtual + 1.0, virtual - previous)  # numpy's gamma at the top
    diff = b - a
    out = a + diff * gamma
    upper = gamma >= 0.5
    out[upper] = (b - diff * (1 - gamma))[upper]
    return out


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """``np.median(np.repeat(values, weights))`` (mean of the two middle values when even)."""
    n = int(round(float(weights.sum())))
    cum = np.cumsum(weights)
    half = n // 2
    if n % 2:
        return float(values[np.searchsorted(cum, half, side="right")])
    low, high = values[np.searchsorted(cum, [half - 1, half], side="right")]
    return float(np.mean(np.array([low, high])))


def _machine_integers(keys: pd.Index) -> pd.Index:
    """Python-int keys as an int64 (or uint64) index, 8 bytes a key instead of an object."""
    values = keys.to_numpy()
    for dtype in (np.int64, np.uint64):
        try:
            return pd.Index(values.astype(dtype))
        except (OverflowError, TypeError, ValueError):
            continue
    return keys


def _integer_slots(raw: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """Keys and slots of an integer column's histogram values, on machine integers.

    The same keys (first-appearance order, int64 where they fit) and slots as processing
    the values as exact Python ints (:func:`heb.data.preprocess.integer_values`), without
    the object array: at 10^7 histogram rows that took about 80 bytes a row.
    """
    missing = raw.isna().to_numpy()
    unsigned = pd.api.types.is_unsigned_integer_dtype(raw.dtype)
    numbers = raw.to_numpy(dtype=np.uint64 if unsigned else np.int64, na_value=0)
    keys = pd.unique(numbers[~missing])
    if unsigned and (not keys.size or int(keys.max()) < 2**63):
        keys = keys.astype(np.int64)  # as _machine_integers: int64 first
        numbers = numbers.astype(np.int64)
    keys = pd.Index(keys)
    slot = keys.get_indexer(numbers)
    slot[missing] = len(keys)
    return keys, slot


@dataclass
class FeatureValues:
    """One feature's distinct raw values as slots, and their rows per (fold, class).

    Attributes
    ----------
    name : str
    kind : {"categorical", "numeric"}
    keys : pd.Index
        The D distinct processed values (exact integers for categorical integer columns,
        floats for other numbers, strings otherwise), slot order.
    numeric_values : bool
        Whether values are processed as numbers (``_numeric_values``) or text.
    fold, y, slot, n : ndarray
        The histogram: ``n`` rows of fold ``fold`` and class ``y`` hold slot ``slot``.
    integers : bool
        Whether a categorical column's values are integers, kept exact (``integer_values``,
        as in memory: IDs beyond 2**53 stay distinct).
    """

    name: str
    kind: str
    keys: pd.Index
    numeric_values: bool
    fold: np.ndarray
    y: np.ndarray
    slot: np.ndarray
    n: np.ndarray
    integers: bool = False

    @classmethod
    def from_histogram(
        cls,
        name: str,
        kind: str,
        numeric_values: bool,
        raw: pd.Series,
        fold,
        y,
        n,
        integers: bool = False,
    ) -> FeatureValues:
        """Slots from the raw values of the histogram rows (one row per fold, class, value)."""
        integers = bool(integers and kind == "categorical")
        if integers and pd.api.types.is_integer_dtype(raw.dtype):
            keys, slot = _integer_slots(raw)
        else:
            processed = cls._process(raw, numeric_values, integers)
            missing = np.asarray(pd.isna(processed))
            keys = pd.Index(pd.unique(processed[~missing]))
            if integers:
                keys = _machine_integers(keys)
            slot = keys.get_indexer(processed)
            unread = np.where(slot < 0, len(keys) + 1, slot)
            slot = np.where(raw.isna().to_numpy(), len(keys), unread)
        compact = (  # histograms can hold tens of millions of rows: small integer types
            np.asarray(fold, dtype=np.int16),
            np.asarray(y, dtype=np.int32),
            np.asarray(slot, dtype=np.int32),
            np.asarray(n, dtype=np.float64),
        )
        return cls(name, kind, keys, numeric_values, *compact, integers=integers)

    @staticmethod
    def _process(raw: pd.Series, numeric_values: bool, integers: bool = False) -> np.ndarray:
        """Processed values as in memory (``Preprocessor``): exact integers (a batch whose
        integers arrive as floats, e.g. with NULLs from Spark, is read as floats, as
        ``Preprocessor`` does), numbers or text."""
        if integers and pd.api.types.is_integer_dtype(raw.dtype):
            return _integer_values(raw)
        return _numeric_values(raw) if numeric_values else _text_values(raw)

    def dictionary_only(self) -> FeatureValues:
        """A copy without the histogram (what scoring needs: name, kind and keys)."""
        empty = np.zeros(0, dtype=np.int64)
        return FeatureValues(
            self.name,
            self.kind,
            self.keys,
            self.numeric_values,
            empty,
            empty,
            empty,
            empty,
            integers=self.integers,
        )

    @property
    def n_slots(self) -> int:
        """D + 2."""
        return len(self.keys) + 2

    def counts(self, n_classes: int, fold: int | None = None) -> np.ndarray:
        """Rows per (class, slot), shape (C, D + 2): all folds, or one fold."""
        keep = slice(None) if fold is None else self.fold == fold
        flat = self.y[keep].astype(np.int64) * self.n_slots + self.slot[keep]
        return np.bincount(flat, weights=self.n[keep], minlength=n_classes * self.n_slots).reshape(
            n_classes, self.n_slots
        )

    def slots_of(self, raw: pd.Series) -> np.ndarray:
        """The slot of each raw value of a batch of rows."""
        processed = self._process(raw, self.numeric_values, self.integers)
        slot = self._lookup(processed)
        missing = raw.isna().to_numpy()
        return np.where(missing, len(self.keys), np.where(slot < 0, len(self.keys) + 1, slot))

    def slots_of_arrow(self, array) -> np.ndarray:
        """:meth:`slots_of` of an Arrow array, processing each distinct value once.

        The values are dictionary-encoded (Arrow's hash pass), the dictionary goes through
        :meth:`slots_of` (processing is value by value, so each row gets its value's slot)
        and nulls become the missing slot.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        encoded = array if pa.types.is_dictionary(array.type) else pc.dictionary_encode(array)
        by_entry = np.append(self.slots_of(encoded.dictionary.to_pandas()), len(self.keys))
        index = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        return by_entry[index]  # -1 (a null) takes the appended missing slot

    def row_keys(self, raw: pd.Series) -> np.ndarray:
        """What a fold needs to code a batch: slots (categorical) or numbers (numeric)."""
        if self.kind == "numeric":
            return _numeric_values(raw)
        return self.slots_of(raw)

    def _lookup(self, processed: np.ndarray) -> np.ndarray:
        """Slot of each processed value, -1 when absent (numbers: binary search of sorted keys)."""
        if not self.numeric_values or self.integers or not len(self.keys):
            return self.keys.get_indexer(processed)
        if getattr(self, "_sorted", None) is None:
            numbers = self.keys.to_numpy(dtype=np.float64)
            order = np.argsort(numbers, kind="stable")
            self._sorted = (numbers[order], order)
        keys, order = self._sorted
        pos = np.minimum(np.searchsorted(keys, processed), keys.size - 1)
        return np.where(keys[pos] == processed, order[pos], -1)


@dataclass
class FoldEncoding:
    """One feature fitted on one training fold: every slot's code, as Preprocessor's.

    Attributes
    ----------
    n_categories : int
        K_f (with the "(missing)" category when ``missing="category"`` added one).
    train_code : ndarray (D + 2,)
        Code of each slot in training rows (missing imputed); ``>= K`` or ``< 0`` is not counted.
    test_code : ndarray (D + 2,)
        Code of each slot at scoring time (missing is absent evidence, -1, when imputing).
    cuts : ndarray or None
        Numeric features: the bin cuts (a row's code is the number of cuts <= its value).
    """

    n_categories: int
    train_code: np.ndarray
    test_code: np.ndarray
    cuts: np.ndarray | None = None

    def codes(self, values: FeatureValues, raw: pd.Series) -> np.ndarray:
        """Scoring codes of a batch of raw values."""
        return self.codes_of(values.row_keys(raw))

    def codes_of(self, row_keys: np.ndarray) -> np.ndarray:
        """Scoring codes from :meth:`FeatureValues.row_keys` (slots, or numbers if binned)."""
        if self.cuts is None:
            return self.test_code[row_keys]
        codes = np.searchsorted(self.cuts, row_keys, side="right")
        return np.where(np.isnan(row_keys), self.test_code[-1], codes)


def _categorical(values: FeatureValues, weight: np.ndarray, missing: str) -> FoldEncoding | None:
    d = len(values.keys)
    observed = weight[:d] > 0
    if not observed.any():
        return None
    categories = np.sort(values.keys.to_numpy()[observed])
    code = pd.Index(categories).get_indexer(values.keys)
    n_seen = categories.size
    if missing == "category":  # a category of its own for missing rows, if training has
        fill = n_seen  # any (not for infinities: unseen, so the category had no row)
        n = n_seen + (weight[d] > 0)
    else:
        mode = np.bincount(code[observed], weights=weight[:d][observed], minlength=n_seen)
        fill = int(np.argmax(mode))
        n = n_seen
    unseen = n if fill < n else fill
    known = np.where(code < 0, unseen, code)
    test_fill = -1 if missing == "impute" else fill
    train_code = np.concatenate([known, [fill, unseen]])
    test_code = np.concatenate([known, [test_fill, unseen]])
    return FoldEncoding(int(n), train_code, test_code)


def _numeric(
    values: FeatureValues, weight: np.ndarray, missing: str, n_bins: int
) -> FoldEncoding | None:
    d = len(values.keys)
    observed = weight[:d] > 0
    if not observed.any():
        return None
    numbers = values.keys.to_numpy(dtype=np.float64)
    order = np.argsort(numbers[observed], kind="stable")
    sorted_values = numbers[observed][order]
    sorted_weights = weight[:d][observed][order]
    cuts = value_cuts(sorted_values, n_bins)  # the training values, when they are few
    if cuts is None:
        q = np.linspace(0.0, 1.0, n_bins + 1)
        cuts = np.unique(weighted_quantile(sorted_values, sorted_weights, q))[1:-1]
        bins = np.searchsorted(cuts, sorted_values, side="right")
        per_bin = np.bincount(bins, weights=sorted_weights, minlength=cuts.size + 1)
        cuts = cuts[per_bin[:-1] > 0]  # an empty bin merges into its right-hand neighbour
    n_bins_kept = cuts.size + 1
    if missing == "category":
        fill = n_bins_kept
        n = n_bins_kept + (weight[d] + weight[d + 1] > 0)
        test_fill = fill
    else:
        fill = int(np.searchsorted(cuts, weighted_median(sorted_values, sorted_weights), "right"))
        n = n_bins_kept
        test_fill = -1
    known = np.searchsorted(cuts, numbers, side="right")
    train_code = np.concatenate([known, [fill, fill]])
    test_code = np.concatenate([known, [test_fill, test_fill]])
    return FoldEncoding(int(n), train_code, test_code, cuts)


def fit_fold(
    values: FeatureValues, train_counts: np.ndarray, missing: str = "impute", n_bins: int = 10
) -> FoldEncoding | None:
    """Fit one feature on a training histogram (C, D + 2); None when it has no observed value.

    Parameters
    ----------
    values : FeatureValues
    train_counts : ndarray (C, D + 2)
        Training rows per (class, slot): total minus the test fold.
    missing : {"impute", "category"}
        As :class:`heb.preprocess.Preprocessor`.
    n_bins : int
        Quantile bins of a numeric feature.
    """
    weight = train_counts.sum(axis=0)
    if values.kind == "numeric":
        return _numeric(values, weight, missing, n_bins)
    return _categorical(values, weight, missing)
