"""One scan of the data into per-fold value histograms, and per-fold CountTables from them.

:func:`describe` reads the column types and decides each feature's kind as SPEC section 1
does in memory (text -> categorical, integer columns with an ID-like name -> categorical,
other numbers, dates and time stamps -> numeric, binned by quantiles; the engines' views
hold dates and time stamps as seconds since 1970, as the in-memory reader reads them).
:func:`count_histograms` runs the one
GROUPING SETS query of :mod:`heb.scale.sql`; :meth:`Histograms.fit_fold` then turns the
training histogram of fold k (total minus fold k: counts add) into the encodings and the
:class:`~heb.counts.CountTable` the in-memory path would build from the same rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.counts import CountTable
from heb.data import DataError, is_id_like_name
from heb.data.dataset import check_class_count, quote
from heb.data.parquet import nullable_integer_types
from heb.scale.encoding import FeatureValues, FoldEncoding, fit_fold
from heb.scale.memory import release_freed_memory
from heb.scale.sql import VIEW, feature_alias, histogram_query, target_values_query
from heb.text import and_list

__all__ = [
    "Columns",
    "describe",
    "Histograms",
    "FittedFold",
    "count_histograms",
    "unencodable_columns",
    "unencodable_text",
]


@dataclass(frozen=True)
class Columns:
    """The target and the features with their kinds, decided from the engine's types.

    Attributes
    ----------
    target : str
    features : tuple of str
    kinds : tuple of {"categorical", "numeric"}
    numeric_values : tuple of bool
        Whether a feature's values are numbers (True) or text.
    integers : tuple of bool
        Whether a categorical feature's values are integers, kept exact (not floats, so IDs
        beyond 2**53 stay distinct, as in memory); empty means none.
    """

    target: str
    features: tuple[str, ...]
    kinds: tuple[str, ...]
    numeric_values: tuple[bool, ...]
    integers: tuple[bool, ...] = ()


def unencodable_columns(columns, target: str, left_out: Sequence[str] = ()) -> list[str]:
    """The feature columns of ``columns`` ((name, engine family) pairs, the engine's
    :meth:`columns`) of a type no scan can encode (nested values, a time of day), but
    the ``target`` and those ``left_out``, in order."""
    return [
        name
        for name, family in columns
        if family == "other" and name != target and name not in left_out
    ]


def unencodable_text(columns: Sequence[str], way_out: str = "") -> str:
    """The one sentence on ``columns`` (at least one) of a type no scan can encode;
    ``way_out`` follows "leave it out" (" with --drop day", " (the button below)")."""
    one = len(columns) == 1
    it = "it" if one else "them"
    subject = (
        f"Column {columns[0]!r} has"
        if one
        else f"Columns {and_list([repr(c) for c in columns])} have"
    )
    return (
        f"{subject} a type the large-data path cannot encode (only text, booleans, "
        f"numbers, dates and time stamps); leave {it} out{way_out} or convert {it}."
    )


def whole_numbers(engine, column: str) -> bool:
    """Whether a float column holds whole numbers only (an integer column stored as floats).

    As in memory (``is_integer_like``), NaN and infinities are left out and at least one
    finite value is needed. Floats of magnitude 2**52 or more are whole and never reach
    ``floor``, nor do NaN and infinities: Spark's ``floor`` is a 64-bit integer, 0 for NaN
    and an overflow error for an infinity.
    """
    q = engine.dialect.quote(column)
    small = f"CASE WHEN abs({q}) < 4503599627370496 THEN {q} END"  # NULL: never a fraction
    finite = f"CASE WHEN abs({q}) < CAST('Infinity' AS DOUBLE) THEN 1 END"  # NaN sorts last
    sql = (
        f"SELECT sum(CASE WHEN {small} <> floor({small}) THEN 1 ELSE 0 END) AS frac, "
        f"count({finite}) AS n FROM {VIEW}"
    )
    frac, n = engine.table(sql).to_pylist()[0].values()
    return bool(n) and not frac


def describe(
    engine, target: str, features: Sequence[str] | None = None, categorical=None
) -> Columns:
    """Kinds of the features of the registered source (all columns but the target by default).

    Raises
    ------
    DataError
        No source is registered, the target or a feature is not a column, the target is
        also a feature, a feature is named twice, no feature is left, or a feature has a
        type the engine path cannot bin (nested values, a time of day).
    """
    if engine.source is None:  # else every column would be "no column" of an empty source
        raise DataError(
            "No file is registered with the engine; call engine.register(open_source(path)) first."
        )
    families = dict(engine.columns())
    if target not in families:
        raise DataError(f"There is no column {target!r} to use as the target.")
    names = [c for c in families if c != target] if features is None else list(features)
    absent = [c for c in names if c not in families]
    if absent:
        raise DataError(f"There is no column {absent[0]!r} in {engine.source.label!r}.")
    if not names:
        raise DataError("There is no feature column besides the target.")
    if target in names:  # it would be counted as its own feature: a perfect leak
        raise DataError(
            f"The target {target!r} cannot also be a feature; leave it out of features."
        )
    twice = next((c for i, c in enumerate(names) if c in names[:i]), None)
    if twice is not None:
        raise DataError(f"The feature {twice!r} is named twice in features.")
    declared = {str(c) for c in (categorical or [])}
    kinds, numeric, integers = [], [], []
    for name in names:
        family = families[name]
        if family == "null":  # no value in any row: dropped by every fold, as in memory
            family = "text"
        if family == "other":
            raise DataError(unencodable_text([name]))
        id_like = is_id_like_name(name) and (
            family == "integer" or (family == "float" and whole_numbers(engine, name))
        )
        categorical_kind = name in declared or family == "text" or id_like
        kinds.append("categorical" if categorical_kind else "numeric")
        numeric.append(family != "text")
        integers.append(categorical_kind and family == "integer")
    return Columns(target, tuple(names), tuple(kinds), tuple(numeric), tuple(integers))


@dataclass
class FittedFold:
    """Encodings and counts of one training fold.

    Attributes
    ----------
    fold : int
    features : ndarray of int
        Indices (into ``Columns.features``) of the features kept (observed in training).
    encodings : list of FoldEncoding
        One per kept feature.
    table : CountTable
        The training counts, classes in the order of ``Histograms.classes``.
    """

    fold: int
    features: np.ndarray
    encodings: list[FoldEncoding]
    table: CountTable


@dataclass
class Histograms:
    """Per-fold value histograms of every feature, from one scan.

    Attributes
    ----------
    columns : Columns
    classes : ndarray (C,)
        The target's distinct values, sorted (as :func:`heb.preprocess.encode_target`).
    n_folds, seed : int
    values : list of FeatureValues
    fold_class_counts : ndarray (n_folds, C)
        Rows per fold and class.
    """

    columns: Columns
    classes: np.ndarray
    n_folds: int
    seed: int
    values: list[FeatureValues]
    fold_class_counts: np.ndarray

    @property
    def n_rows(self) -> int:
        """Rows with a target."""
        return int(self.fold_class_counts.sum())

    def fit_fold(self, fold: int | None, n_bins: int = 10, missing: str = "impute") -> FittedFold:
        """Encodings and CountTable of the rows outside ``fold`` (``None``: every row)."""
        C = self.classes.size
        kept, encodings, blocks = [], [], []
        class_counts = None
        for index, values in enumerate(self.values):
            train = values.counts(C)
            if fold is not None:
                train = train - values.counts(C, fold)
            if class_counts is None:
                class_counts = train.sum(axis=1)  # every row has one slot per feature
            encoding = fit_fold(values, train, missing=missing, n_bins=n_bins)
            if encoding is None:
                continue  # empty in every training row: dropped, as in memory
            kept.append(index)
            encodings.append(encoding)
            code = encoding.train_code
            counted = (code >= 0) & (code < encoding.n_categories)
            k = encoding.n_categories
            flat = (np.arange(C)[:, None] * k + code[counted]).ravel()
            block = np.bincount(flat, weights=train[:, counted].ravel(), minlength=C * k)
            blocks.append(block.reshape(C, k))
        if not kept:
            raise DataError("No usable feature column is left: every feature is empty in training.")
        counts = np.concatenate(blocks, axis=1)
        offsets = np.concatenate(([0], np.cumsum([e.n_categories for e in encodings])))
        table = CountTable(class_counts.astype(np.float64), counts, offsets.astype(np.int64))
        return FittedFold(-1 if fold is None else fold, np.array(kept), encodings, table)

    def test_codes(self, fitted: FittedFold, frame: pd.DataFrame) -> np.ndarray:
        """Scoring codes (n, F_kept) of a batch of raw rows for ``fitted``'s models."""
        out = np.empty((len(frame), fitted.features.size), dtype=np.int64)
        for j, (index, encoding) in enumerate(zip(fitted.features, fitted.encodings, strict=True)):
            values = self.values[index]
            out[:, j] = encoding.codes(values, frame[values.name])
        return out


def _target_zone(engine, target: str) -> str | None:
    """The time zone of a parquet target of zoned time stamps, as the files declare it
    (the in-memory reader's classes are written in it; the engines' results hold the
    stamps in their session's zone), else None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = engine.source
    if source is None or source.format != "parquet" or target in source.partition_keys:
        return None
    schema = pq.read_schema(source.files[0])
    kind = schema.field(target).type if schema.get_field_index(target) >= 0 else None
    return kind.tz if kind is not None and pa.types.is_timestamp(kind) else None


def _classes_of(y_raw, zone: str | None) -> np.ndarray:
    """The target values of a result column as the in-memory reader holds them: a zoned
    time stamp as a pandas Timestamp in the file's ``zone`` (``'2024-03-01 00:00:00+01:00'``,
    not the UTC ``'2024-02-29T23:00:00'``)."""
    import pyarrow as pa

    if zone is None or not pa.types.is_timestamp(y_raw.type):
        return y_raw.to_numpy()
    return y_raw.cast(pa.timestamp(y_raw.type.unit, tz=zone)).to_pandas().to_numpy()


def _split_sets(batches, columns: Columns, zone: str | None = None):
    """Per feature: (raw values Series, fold, y, n) of its grouping set's rows; the
    target of zoned time stamps in its ``zone`` (:func:`_classes_of`).

    The result streams in record batches; each batch keeps only every set's own value
    column, so the wide, mostly-NULL result is never held whole.
    """
    import pyarrow as pa

    exact = nullable_integer_types().get  # integers with NULLs stay exact, not float64
    parts: dict[int, list] = {i: [] for i in range(len(columns.features))}
    for batch in batches:
        set_id = batch.column("__heb_set").to_numpy()
        fold = batch.column("__heb_fold").to_numpy().astype(np.int16)  # as FeatureValues keeps it
        y_raw = batch.column("__heb_y")
        n = batch.column("__heb_n").to_numpy()
        for index in np.unique(set_id):
            rows = np.flatnonzero(set_id == index)
            take = pa.array(rows)
            value = batch.column(feature_alias(index)).take(take)
            parts[int(index)].append((value, fold[rows], y_raw.take(take), n[rows]))
    for index, name in enumerate(columns.features):
        pieces = parts.pop(index)
        if not pieces:  # as in memory: "there are no rows" did not say which column
            raise DataError(f"The target column {quote(columns.target)} has no values.")
        raw = pa.chunked_array([p[0] for p in pieces]).to_pandas(types_mapper=exact)
        y_raw = _classes_of(pa.chunked_array([p[2] for p in pieces]), zone)
        fold = np.concatenate([p[1] for p in pieces])
        yield index, name, raw, fold, y_raw, np.concatenate([p[3] for p in pieces])


def check_target_values(engine, target: str) -> None:
    """Raise :class:`~heb.data.DataError` for a target of no value, of one, or of too many.

    Refuse a target of too many values (an ID, a measurement) before the counting query,
    from a scan of its column alone: counted by (fold, class, value), such a target made
    the query's result as large as the rows x the features before it was refused (a
    20,000-row, 300-column CSV took 21.6 s to say its last column had 18,123 values)."""
    row = engine.table(target_values_query(engine.dialect, target)).to_pylist()[0]
    n_values = int(row["__heb_n"])
    if n_values < 2:  # refused here too: before, only after the whole counting query
        _refuse_one_class(target, [] if n_values == 0 else [row["__heb_min"]])
    check_class_count(target, n_values, dict(engine.columns())[target] == "float")


def _refuse_one_class(target: str, classes) -> None:
    """The DataError of a target with no value or a single one (``classes``), as in
    memory for no value."""
    if len(classes) == 0:
        raise DataError(f"The target column {quote(target)} has no values.")
    raise DataError(  # the in-memory sentence (heb.data.dataset), word for word
        f"The target {quote(target)} has only one class ({quote(classes[0])}); a classifier "
        "needs at least two classes."
    )


def class_codes(class_index: pd.Index, y) -> np.ndarray:
    """Each label's position in ``class_index`` (-1 if absent). A date target's classes
    are datetime64 (the histograms' Arrow dates) while a batch read through pandas holds
    ``datetime.date`` objects, which pandas 3 matches to them only with a deprecation
    warning and pandas 4 will not match at all (every row's class -1)."""
    y = np.asarray(y)
    if isinstance(class_index, pd.DatetimeIndex) and y.dtype == object:
        y = pd.to_datetime(pd.Series(y, dtype=object)).to_numpy()
    return class_index.get_indexer(y)


def count_histograms(engine, columns: Columns, n_folds: int = 10, seed: int = 42) -> Histograms:
    """Run the counting query once and split it into per-feature slot histograms.

    Raises
    ------
    DataError
        The target has fewer than two distinct values, reads as a measurement (many
        decimals) or has more classes than :data:`heb.data.dataset.MAX_CLASSES`.
    """
    check_target_values(engine, columns.target)
    sql = histogram_query(engine.dialect, columns.target, columns.features, n_folds, seed)
    parts = _split_sets(engine.batches(sql), columns, _target_zone(engine, columns.target))
    first = next(parts)
    classes = np.unique(first[4])  # the first feature's set holds every row
    if classes.size < 2:
        _refuse_one_class(columns.target, classes)
    check_class_count(columns.target, int(classes.size), classes.dtype.kind == "f")
    class_index = pd.Index(classes)
    values = []
    fold_class = np.zeros((n_folds, classes.size))
    integers = columns.integers or (False,) * len(columns.features)
    for index, name, raw, fold, y_raw, n in itertools.chain([first], parts):
        y = class_codes(class_index, y_raw)
        kind, numeric = columns.kinds[index], columns.numeric_values[index]
        values.append(
            FeatureValues.from_histogram(
                name, kind, numeric, raw, fold, y, n, integers=integers[index]
            )
        )
        if index == 0:
            np.add.at(fold_class, (fold, y), n)
    release_freed_memory()  # the result batches: hundreds of MB at 10^7 rows
    return Histograms(columns, classes, n_folds, seed, values, fold_class)
