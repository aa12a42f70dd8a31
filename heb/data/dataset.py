"""The Dataset every loader returns, DataError, and the checks and notes shared by loaders."""

from __future__ import annotations

import hashlib
import io
import json
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from heb.data.column_notes import kept_notes, left_out_note
from heb.data.names import columns_phrase, join_names, quote
from heb.text import case_variant_clause

#: upload size limit (bytes), also applied to the unpacked size of a gzip file
DEFAULT_MAX_BYTES = 200 * 2**20
#: widest table accepted
MAX_COLUMNS = 10_000
#: most cells (rows x columns) a loaded table may have: counted before a file is parsed,
#: so a small file that would expand into a huge table is refused before it is expanded
MAX_CELLS = 20_000_000
#: most classes a target may have
MAX_CLASSES = 100
#: a float target with more distinct non-integer values than this looks continuous
CONTINUOUS_TARGET_VALUES = 20
#: cell texts read as missing in uploaded text tables ("na" and "none" are not: they can be
#: real answers); "<NA>" is how pandas writes a missing value of its nullable types
NA_TOKENS = ("", "?", "NA", "N/A", "n/a", "<NA>", "NaN", "nan", "null", "NULL", "#N/A")

_ID_LIKE = re.compile(r"id|hash|url|impression", re.IGNORECASE)


class DataError(ValueError):
    """A data problem a user can fix; ``str(exc)`` is one sentence for the app to show."""


# ---------------------------------------------------------------------------- Dataset
@dataclass
class Dataset:
    """A classification dataset ready for preprocessing.

    Attributes
    ----------
    name : str
    X : DataFrame
        Feature columns only.
    y : Series
        The target; rows with a missing target are already dropped.
    categorical : list of str
        Columns declared categorical (OpenML metadata, the manifest, text / category /
        bool dtype, or an integer column with an ID-like name).
    source : str
        Where it came from: ``"builtin:zip-codes"``, ``"shared:car"``, ``"openml:2"``,
        ``"upload:my.csv"``.
    notes : list of str
        Notices for the user, one sentence each.
    target : str
        Name of the target column.
    description : str
        One line about the dataset (built-ins), else empty.
    truth : dict or None
        The generating parameters of a synthetic dataset.
    source_rows : ndarray or None
        Each row's position among the loaded table's data rows (0 = the first), where
        rows were dropped (a missing target); None when the rows are the table's own.
    amounts : list of str
        The feature columns an upload wrote with thousands separators (``852``,
        ``1,275``) and the readers read as numbers: amounts, which the app's note on
        whole-number columns that may be codes leaves out.
    """

    name: str
    X: pd.DataFrame = field(repr=False)  # a notebook's repr of the whole table was pages long
    y: pd.Series = field(repr=False)
    categorical: list[str]
    source: str
    notes: list[str] = field(default_factory=list)
    target: str = ""
    description: str = ""
    truth: dict | None = field(default=None, repr=False, compare=False)
    source_rows: np.ndarray | None = field(default=None, repr=False, compare=False)
    amounts: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def n_classes(self) -> int:
        """Number of distinct target values."""
        return int(self.y.nunique())

    @property
    def classes(self) -> np.ndarray:
        """The sorted class labels."""
        return np.unique(np.asarray(self.y))

    def fingerprint(self) -> str:
        """sha256 hex of the data: values of X and y, column names, dtypes, categorical list.

        Stable across processes (pandas' row hashes use a fixed key); used as a cache key.
        """
        digest = hashlib.sha256()
        header = {
            "columns": [str(c) for c in self.X.columns],
            "dtypes": [str(d) for d in self.X.dtypes],
            "target": str(self.target),
            "y_dtype": str(self.y.dtype),
            "categorical": sorted(str(c) for c in self.categorical),
            "shape": list(self.X.shape),
        }
        digest.update(json.dumps(header, sort_keys=True).encode())
        if self.X.shape[1]:
            digest.update(pd.util.hash_pandas_object(self.X, index=False).to_numpy().tobytes())
        digest.update(pd.util.hash_pandas_object(self.y, index=False).to_numpy().tobytes())
        if self.source_rows is not None:
            digest.update(np.asarray(self.source_rows, dtype=np.int64).tobytes())
        return digest.hexdigest()


# ---------------------------------------------------------------------------- helpers
def is_id_like_name(name) -> bool:
    """True when a column name contains ``id``, ``hash``, ``url`` or ``impression``."""
    return bool(_ID_LIKE.search(str(name)))


def is_integer_like(column: pd.Series) -> bool:
    """Integer dtype, or floats holding only whole numbers (an integer column stored as
    floats, e.g. by parquet or because missing values turned it into floats)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return False
    if pd.api.types.is_integer_dtype(column.dtype):
        return True
    if not pd.api.types.is_float_dtype(column.dtype):
        return False
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = np.isfinite(values)
    return bool(finite.any() and np.all(values[finite] % 1 == 0))


def id_like_columns(frame: pd.DataFrame) -> list[str]:
    """Integer columns whose name looks like an identifier (categorical by SPEC section 1)."""
    return [c for c in frame.columns if is_id_like_name(c) and is_integer_like(frame[c])]


def is_text_dtype(dtype) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def column_names(names) -> list[str]:
    """Column names given as a list (or any iterable) or as one name, as a list of text.

    ``categorical="zip"`` is the column zip, not the columns z, i and p.
    """
    if names is None:
        return []
    if isinstance(names, str) or not isinstance(names, Iterable):
        names = [names]
    return [str(name) for name in names]


def read_csv_strict(text: str, n_columns: int, **options) -> pd.DataFrame:
    """``pandas.read_csv`` of ``text`` into columns ``0..n_columns-1``, where a first data
    row longer than that raises ``pandas.errors.ParserWarning`` instead of losing its extra
    values (pandas drops them with only a warning when ``index_col=False``).

    The parser reads the text's UTF-8 bytes: pandas encodes a text buffer to UTF-8 as it
    reads anyway, and a ``StringIO`` of the text first held a copy of four bytes a
    character (0.2 s and 240 MB for a 59 MB file). A file whose parser chunks type a
    column differently (``1.50`` text beside an ``x``, 1.5 in the next chunk: one value
    two categories, and a ``DtypeWarning``) is read again in one piece."""
    data, names = text.encode("utf-8"), list(range(n_columns))
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        warnings.simplefilter("error", pd.errors.DtypeWarning)
        read = lambda **more: pd.read_csv(  # noqa: E731
            io.BytesIO(data), encoding="utf-8", header=None, names=names, index_col=False, **more
        )
        try:
            return read(**options)
        except pd.errors.DtypeWarning:
            return read(**options, low_memory=False)


class TooManyCells(DataError):
    """A table over the in-memory cell limit (:data:`MAX_CELLS`): one an engine can count
    (``python -m heb bench FILE --engine duckdb``), though the app cannot load it."""


def check_cells(n_rows: int, n_columns: int, max_cells: int = MAX_CELLS) -> None:
    """Refuse a table of more than ``max_cells`` cells (rows x columns) before it is built."""
    if n_rows * n_columns > max_cells:
        raise TooManyCells(
            f"The table would have {n_rows:,} rows x {n_columns:,} columns, more than the "
            f"{max_cells:,} cells this app loads; use a sample of the rows."
        )


def default_target(columns: Iterable) -> str:
    """The default target: the last column, whatever its name (Weka's and ARFF's rule; a
    feature that happens to be called ``class`` stays a feature)."""
    columns = [str(c) for c in columns]
    if not columns:
        raise DataError("The table has no columns.")
    return columns[-1]


def unique_names(names: Sequence, notes: list[str]) -> list[str]:
    """Column names as unique, non-empty strings; renames reported in ``notes``."""
    out = []
    blank = []
    for i, name in enumerate(names):
        text = "" if name is None or (isinstance(name, float) and np.isnan(name)) else str(name)
        text = text.strip()
        if not text:
            text = f"column_{i + 1}"
            blank.append(text)
        out.append(text)
    if blank:
        notes.append(f"Columns without a name were named {join_names(blank)}.")
    seen: dict[str, int] = {}
    renamed = []
    for i, name in enumerate(out):
        if name in seen:
            seen[name] += 1
            new = f"{name} ({seen[name]})"
            while new in seen:
                seen[name] += 1
                new = f"{name} ({seen[name]})"
            seen[new] = 1
            out[i] = new
            renamed.append((name, new))
        else:
            seen[name] = 1
    if renamed:
        notes.append(
            f"Column name {quote(renamed[0][0])} appears more than once, so the repeats were "
            f"renamed ({', '.join(repr(new) for _, new in renamed[:5])})."
        )
    return out


def is_mixed_labels(values: np.ndarray) -> bool:
    """True when an object array mixes kinds of value (numbers, booleans, text)."""
    return values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) in (
        "mixed",
        "mixed-integer",
        "mixed-integer-float",
    )


def labels_as_text(values: np.ndarray) -> np.ndarray:
    """The one rule for labels of mixed kinds: each label is its text, and a whole number
    is written as an integer.

    ``[1, True, 1.0, '1']`` become ``['1', 'True', '1', '1']``: the two classes ``'1'``
    and ``'True'``. :attr:`Dataset.n_classes`, :func:`heb.data.encode_target` and
    cross-validation all see these labels.
    """
    text = pd.Series(np.asarray(values, dtype=object)).astype(str)
    return text.str.replace(r"^([+-]?[0-9]+)\.0+$", r"\1", regex=True).to_numpy(dtype=object)


def _clean_target(y: pd.Series, target: str) -> pd.Series:
    """Whole-number float targets become integers; category targets plain values; targets
    mixing kinds of value become text (:func:`labels_as_text`)."""
    if isinstance(y.dtype, pd.CategoricalDtype):
        y = y.astype(y.cat.categories.dtype)
    if is_mixed_labels(y.to_numpy()):
        return pd.Series(labels_as_text(y.to_numpy()), index=y.index, name=y.name, dtype=object)
    if pd.api.types.is_float_dtype(y.dtype):
        values = y.to_numpy(dtype=np.float64)
        if np.all(np.isfinite(values)) and np.all(values % 1 == 0):
            return y.astype(np.int64)
        if np.isinf(values).any():
            raise DataError(f"The target column {quote(target)} holds infinite values.")
    return y


def _checked_target(
    frame: pd.DataFrame, target: str, notes: list[str]
) -> tuple[pd.DataFrame, pd.Series, np.ndarray | None]:
    """Rows with a target (the dropped ones noted), the cleaned target and the kept rows'
    positions (None when none was dropped), refused when the target has fewer than two
    classes, looks continuous, or has too many classes."""
    y = frame[target]
    missing = y.isna().to_numpy()
    kept = None
    if missing.all():
        raise DataError(f"The target column {quote(target)} has no values.")
    if missing.any():
        kept = np.flatnonzero(~missing)
        empty = frame.isna().all(axis=1).to_numpy()  # ',,' or 'NA,NA' (a spreadsheet's export)
        frame = frame.loc[~missing]
        for count, what in ((int(empty.sum()), "empty"), (int((missing & ~empty).sum()), "")):
            if count:
                rows = f"{count} row{'s' * (count != 1)}"
                notes.append(
                    f"Dropped {rows} with no value in any column (empty cells or "
                    "missing-value markers only)."
                    if what
                    else f"Dropped {rows} with a missing target."
                )
        y = frame[target]
    if frame.shape[0] < 2:
        raise DataError("The table has a single data row; a classifier needs at least two.")
    y = _clean_target(y.reset_index(drop=True), target)
    n_values = int(y.nunique())
    if n_values < 2:
        raise DataError(
            f"The target {quote(target)} has only one class ({quote(y.iloc[0])}); a "
            "classifier needs at least two classes."
        )
    check_class_count(target, n_values, pd.api.types.is_float_dtype(y.dtype))
    return frame, y, kept


def check_class_count(target: str, n_values: int, decimal: bool) -> None:
    """Refuse a target of ``n_values`` different values (``decimal``: stored as floats)
    that reads as a measurement rather than classes, or has more than :data:`MAX_CLASSES`
    (a DataError in one sentence; in memory and on the large-data engines alike)."""
    if decimal and n_values > CONTINUOUS_TARGET_VALUES:
        raise DataError(
            f"The target {quote(target)} has {n_values:,} different decimal values, so it "
            "looks like a measurement rather than classes; pick a column with a few classes."
        )
    if n_values > MAX_CLASSES:
        raise DataError(
            f"The target {quote(target)} has {n_values:,} different values, more than the "
            f"{MAX_CLASSES} classes HEB Explorer handles; pick a column with fewer classes."
        )


def finalize(
    frame: pd.DataFrame,
    target: str | None,
    *,
    name: str,
    source: str,
    declared: Iterable[str] = (),
    drop: Iterable[str] = (),
    notes: list[str] | None = None,
    description: str = "",
    truth: dict | None = None,
    amounts: Iterable[str] = (),
) -> Dataset:
    """Checks shared by every loader: target, classes, column notes; builds the Dataset."""
    notes = list(notes or [])
    if frame.shape[1] == 0:
        raise DataError("The table has no columns.")
    frame = frame.copy(deep=False)
    frame.columns = unique_names(list(frame.columns), notes)
    if frame.shape[0] == 0:
        raise DataError("The table has a header but no data rows.")
    target = default_target(frame.columns) if target is None else str(target)
    if target not in frame.columns:
        raise DataError(
            f"There is no column named {quote(target)}"
            f"{case_variant_clause(target, list(frame.columns))}; the columns are "
            f"{join_names(list(frame.columns))}."
        )
    drop = [c for c in drop if c in frame.columns and c != target]
    if drop:
        frame = frame.drop(columns=drop)
        notes = kept_notes(notes, drop)  # said again for the columns kept
        notes.append(left_out_note(drop))
    if frame.shape[1] < 2:
        raise DataError(
            f"The table has no feature columns besides the target {quote(target)}; a "
            "classifier needs at least one."
        )
    frame, y, source_rows = _checked_target(frame, target, notes)
    y.name = target
    X = frame.drop(columns=[target]).reset_index(drop=True)
    X, column_notes = _column_notes(X)
    notes.extend(column_notes)
    declared = {str(c) for c in declared}
    categorical = [c for c, dtype in X.dtypes.items() if c in declared or is_text_dtype(dtype)]
    categorical += [c for c in id_like_columns(X) if c not in categorical]
    unique_per_row = one_value_per_row(X, categorical)
    if unique_per_row:
        notes.append(per_row_note(unique_per_row))
    return Dataset(
        name=name,
        X=X,
        y=y,
        categorical=categorical,
        source=source,
        notes=notes,
        target=target,
        description=description,
        truth=truth,
        source_rows=source_rows,
        amounts=[str(c) for c in amounts if c in X.columns],
    )


def per_row_note(columns: Sequence[str]) -> str:
    """The note on categorical ``columns`` of a value per row (in memory and large files)."""
    return f"{columns_phrase(columns)} " + (
        "have one value per row: kept as high-cardinality features."
        if len(columns) > 1
        else "has one value per row: kept as a high-cardinality feature."
    )


def one_value_per_row(X: pd.DataFrame, categorical: Iterable[str]) -> list[str]:
    """The ``categorical`` columns of ``X`` with a different value in every row (of at
    least 10 rows): row identifiers, most likely, which a note names."""
    if X.shape[0] < 10:
        return []
    return [c for c in categorical if c in X.columns and X[c].nunique() == X.shape[0]]


def _distinct_counts(X: pd.DataFrame, floats: list) -> pd.Series:
    """Distinct values per column, capped at 2 for the float columns (enough to tell empty
    and constant ones apart), which are counted in one vectorised pass."""
    float_set = set(floats)
    others = [c for c in X.columns if c not in float_set]
    counts = X[others].nunique(dropna=True) if others else pd.Series(dtype=np.int64)
    if floats:
        values = X[floats].to_numpy(dtype=np.float64, na_value=np.nan)
        present = ~np.isnan(values)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-missing columns
            spread = np.nanmax(values, axis=0) > np.nanmin(values, axis=0)
        capped = np.where(present.any(axis=0), 1 + spread, 0)
        counts = pd.concat([counts, pd.Series(capped, index=floats)])
    return counts.reindex(X.columns)


def few_values_notes(columns, n_distinct) -> list[str]:
    """The notes on the features empty in every row (left out) and those of a single
    value (kept), from each column's count of distinct non-missing values: one wording
    for an upload in memory and a large file counted by an engine
    (:func:`heb.scale.summarise_source`)."""
    n_distinct = np.asarray(n_distinct)
    names = np.array([str(c) for c in columns], dtype=object)
    notes = []
    empty = list(names[n_distinct == 0])
    if empty:
        notes.append(
            f"{columns_phrase(empty)} {'are' if len(empty) > 1 else 'is'} empty in every row "
            "and will be left out."
        )
    constant = list(names[n_distinct == 1])
    if constant:
        notes.append(
            f"{columns_phrase(constant)} {'have' if len(constant) > 1 else 'has'} a single "
            f"value, so {'they' if len(constant) > 1 else 'it'} cannot help the prediction (kept)."
        )
    return notes


def _column_notes(X: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Infinite numbers become missing; empty, constant and wide tables are reported."""
    notes = []
    numeric = [c for c, dtype in X.dtypes.items() if pd.api.types.is_float_dtype(dtype)]
    if numeric:
        values = X[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        infinite = np.isinf(values)
        if infinite.any():
            columns = [numeric[i] for i in np.flatnonzero(infinite.any(axis=0))]
            X = X.copy()
            X[columns] = X[columns].replace([np.inf, -np.inf], np.nan)
            notes.append(
                f"{int(infinite.sum())} infinite value"
                f"{'s' * int(infinite.sum() != 1)} in {join_names(columns)} "
                f"{'are' if infinite.sum() != 1 else 'is'} treated as missing."
            )
    n_distinct = _distinct_counts(X, numeric)
    notes.extend(few_values_notes(n_distinct.index, n_distinct.to_numpy()))
    if X.shape[1] > 1000:
        notes.append(f"The table has {X.shape[1]:,} feature columns; fitting may take a while.")
    return X, notes
