"""A run's prepared folds (the dataset's codes, one encoding and count table per fold),
kept in a bounded store.

Preparing folds (encoding fitted on each training fold, counting) is what a what-if
change must not repeat, so the last few runs' folds stay in memory. The store is shared
by the app's session threads: every access holds a lock, and it is bounded both by the
number of runs and by the bytes of their arrays (least recently used first out).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.counts import CountTable
from heb.data import Dataset, Preprocessor, encode_target, safe_n_splits, subsample_rows
from heb.data.encoding import DatasetCodes, FoldEncoding, class_totals, encode_columns
from heb.data.folds import stratified_folds
from heb.evaluate.settings import RunSettings

__all__ = [
    "Fold",
    "PreparedFolds",
    "FoldStore",
    "prepare_folds",
    "reference_folds",
    "ReferenceFold",
    "FOLD_STORE",
    "evaluated_data",
    "evaluated_rows",
    "evaluated_subsample",
    "places_in_table",
    "subsample_note",
    "is_subsample_note",
]

#: the seed of the stratified subsample (fixed, so a subsample is the same in every run)
SUBSAMPLE_SEED = 42


@dataclass(frozen=True)
class Fold:
    """One fold: its test rows, its fitted encoding and the training counts.

    Only the test rows are kept: the training rows are the others, and the codes are read
    from the dataset's one :class:`~heb.data.encoding.DatasetCodes` through the fold's
    lookup tables when asked for, so the store holds one copy of the data, not one per
    fold.
    """

    codes: DatasetCodes
    encoding: FoldEncoding
    test_index: np.ndarray
    y: np.ndarray  # every evaluated row's class (shared by the folds)
    table: CountTable
    count_time: float  # encoding the fold and counting its training rows

    @property
    def train_index(self) -> np.ndarray:
        """The training rows, ascending."""
        train = np.ones(self.y.size, dtype=bool)
        train[self.test_index] = False
        return np.flatnonzero(train)

    @property
    def y_train(self) -> np.ndarray:
        """The training rows' classes."""
        return self.y[self.train_index]

    @property
    def train_codes(self) -> np.ndarray:
        """The training rows' codes, missing values imputed (``Preprocessor.fit_transform``)."""
        return self.encoding.transform(self.codes, self.train_index, impute=True)

    @property
    def test_codes(self) -> np.ndarray:
        """The test rows' codes (``Preprocessor.transform``)."""
        return self.encoding.transform(self.codes, self.test_index)

    @property
    def nbytes(self) -> int:
        """Bytes of the fold's own arrays (the shared codes and classes count once, by the
        run)."""
        return self.test_index.nbytes + self.table.counts.nbytes + self.encoding.nbytes


@dataclass(frozen=True)
class PreparedFolds:
    """The evaluated rows' classes, the folds actually used and notices for the user."""

    y: np.ndarray
    classes: np.ndarray
    n_splits: int
    notes: tuple[str, ...]
    folds: tuple[Fold | ReferenceFold, ...]
    codes: DatasetCodes | None = None
    rows: np.ndarray | None = None  # the evaluated rows' places in the table (None: 0..n-1)

    @property
    def nbytes(self) -> int:
        """Bytes of every array held."""
        shared = 0 if self.codes is None else self.codes.nbytes
        shared += 0 if self.rows is None else self.rows.nbytes
        return self.y.nbytes + shared + sum(fold.nbytes for fold in self.folds)


@dataclass(frozen=True)
class _Split:
    """The evaluated rows (after the subsample), their classes and the folds' rows."""

    X: pd.DataFrame
    y: np.ndarray
    classes: np.ndarray
    n_splits: int
    notes: tuple[str, ...]
    folds: list[tuple[np.ndarray, np.ndarray]]
    rows: np.ndarray | None


def evaluated_subsample(dataset: Dataset, max_rows: int | None) -> np.ndarray | None:
    """The dataset's rows a run with ``max_rows`` evaluates (the stratified subsample,
    seed :data:`SUBSAMPLE_SEED`); None for all."""
    if not max_rows or len(dataset.y) <= max_rows:
        return None
    return subsample_rows(dataset.y, max_rows=max_rows, seed=SUBSAMPLE_SEED)


def places_in_table(dataset: Dataset, keep: np.ndarray | None) -> np.ndarray | None:
    """The places among the loaded table's data rows of the dataset's rows ``keep`` (all
    when None); None when those are 0..n-1."""
    if keep is None:
        return dataset.source_rows
    return keep if dataset.source_rows is None else np.asarray(dataset.source_rows)[keep]


def evaluated_data(
    dataset: Dataset, max_rows: int | None
) -> tuple[pd.DataFrame, pd.Series, np.ndarray | None]:
    """The features and target of the rows a run with ``max_rows`` evaluates (fresh
    indexes), and their places in the table (:func:`places_in_table`)."""
    X, y = dataset.X, dataset.y
    keep = evaluated_subsample(dataset, max_rows)
    if keep is not None:
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    return X, y, places_in_table(dataset, keep)


def evaluated_rows(dataset: Dataset, max_rows: int | None) -> np.ndarray:
    """Each row a run with ``max_rows`` evaluates, as its place among the loaded table's
    data rows (0 = the first): rows without a target and the subsample's left-out rows
    are skipped. The order of a run's ``y`` and out-of-fold probabilities."""
    rows = places_in_table(dataset, evaluated_subsample(dataset, max_rows))
    return np.arange(len(dataset.y)) if rows is None else np.asarray(rows, dtype=np.int64)


def _encode_target(y_raw: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``encode_target`` of the distinct labels only (hashed first), then of every row.

    Object labels that are not all text go the direct way: hashing would merge 1, 1.0 and
    True, which ``encode_target`` reads as different labels.
    """
    codes, uniques = pd.factorize(y_raw, use_na_sentinel=False)  # NaN stays a label
    uniques = np.asarray(uniques)
    if uniques.dtype == object and not all(isinstance(v, str) for v in uniques):
        return encode_target(y_raw)
    index, classes = encode_target(uniques)
    return index[codes], classes


def _stand_in_target(y: np.ndarray, classes: np.ndarray, n_splits: int) -> np.ndarray:
    """Labels with each class count capped at ``n_splits + 1``: ``safe_n_splits`` gives the
    same folds and notice as for every row (its rules compare counts with ``n_splits``
    and quote only counts below it), without sorting a million labels."""
    counts = np.minimum(np.bincount(y, minlength=classes.size), int(n_splits) + 1)
    return np.repeat(classes, counts)


_SUBSAMPLE_NOTE_START = "Used a stratified subsample of "


def subsample_note(kept: int, total: int) -> str:
    """The run's note that only ``kept`` of the ``total`` rows were evaluated (``max_rows``)."""
    return f"{_SUBSAMPLE_NOTE_START}{kept:,} of {total:,} rows."


def is_subsample_note(note: str) -> bool:
    """Whether a run's note is :func:`subsample_note`'s (a caller that says it otherwise)."""
    return note.startswith(_SUBSAMPLE_NOTE_START)


def _split(dataset: Dataset, settings: RunSettings) -> _Split:
    """Subsample, then split stratified and shuffled (the fewer folds a rare class allows)."""
    notes: list[str] = []
    X, y_raw, rows = evaluated_data(dataset, settings.max_rows)
    if len(X) < len(dataset.X):
        notes.append(subsample_note(len(X), len(dataset.X)))
    y, classes = _encode_target(y_raw)
    k, notice = safe_n_splits(
        _stand_in_target(y, classes, settings.n_splits), settings.n_splits, rare="keep"
    )
    if notice:
        notes.append(notice)
    folds = stratified_folds(y, k, settings.seed)  # StratifiedKFold's, shuffled
    return _Split(X, y, classes, k, tuple(notes), folds, rows)


def prepare_folds(
    dataset: Dataset,
    settings: RunSettings,
    progress: Callable[[float, str], None] | None = None,
) -> PreparedFolds:
    """Subsample, split (stratified, shuffled), encode per training fold and count.

    The columns are read once (:func:`~heb.data.encoding.encode_columns`); each fold's
    encoding and counts then come from those codes, equal to a ``Preprocessor`` fitted on
    the fold's training rows and ``CountTable.from_codes`` of its codes. ``progress(0.0,
    message)`` is called before each fold (raise from it to stop).
    """
    report = progress or (lambda fraction, message: None)
    split = _split(dataset, settings)
    y, C = split.y, split.classes.size
    codes = encode_columns(split.X, categorical=dataset.categorical)
    totals = class_totals(codes, y, C, [test for _, test in split.folds])
    folds = []
    for index, (train, test) in enumerate(split.folds):
        report(0.0, f"Preparing fold {index + 1} of {split.n_splits}")
        start = time.perf_counter()
        encoding, table = codes.fit_fold(
            train, test, y, C, n_bins=settings.n_bins, missing=settings.missing, totals=totals
        )
        count_time = time.perf_counter() - start
        folds.append(Fold(codes, encoding, test, y, table, count_time))
    return PreparedFolds(
        y, split.classes, split.n_splits, split.notes, tuple(folds), codes, split.rows
    )


@dataclass(frozen=True)
class ReferenceFold:
    """A fold of :func:`reference_folds`: the codes a fold's own ``Preprocessor`` gives."""

    train_codes: np.ndarray
    test_codes: np.ndarray
    y_train: np.ndarray
    test_index: np.ndarray
    table: CountTable
    count_time: float


def reference_folds(dataset: Dataset, settings: RunSettings) -> PreparedFolds:
    """The same folds as :func:`prepare_folds`, each read from the raw frame by a
    ``Preprocessor`` fitted on its training rows (the slow, direct path: the reference the
    tests and ``benchmarks/cv_speed.py`` hold the encoding to)."""
    split = _split(dataset, settings)
    folds = []
    for train, test in split.folds:
        pre = Preprocessor(
            n_bins=settings.n_bins, missing=settings.missing, categorical=dataset.categorical
        )
        train_codes = pre.fit_transform(split.X.iloc[train])
        test_codes = pre.transform(split.X.iloc[test])
        start = time.perf_counter()
        table = CountTable.from_codes(
            train_codes, split.y[train], split.classes.size, n_categories=pre.n_categories_
        )
        count_time = time.perf_counter() - start
        folds.append(
            ReferenceFold(train_codes, test_codes, split.y[train], test, table, count_time)
        )
    return PreparedFolds(
        split.y, split.classes, split.n_splits, split.notes, tuple(folds), rows=split.rows
    )


class FoldStore:
    """A thread-safe, bounded, least-recently-used store of prepared folds by key.

    Parameters
    ----------
    max_entries : int
        Runs kept at most.
    max_bytes : int
        Bytes of arrays kept at most; a run larger than this is returned, not kept.
    """

    def __init__(self, max_entries: int = 4, max_bytes: int = 1 << 30):
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("A fold store needs room for at least one entry and one byte.")
        self.max_entries, self.max_bytes = int(max_entries), int(max_bytes)
        self._entries: OrderedDict[str, PreparedFolds] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Bytes held now."""
        with self._lock:
            return self._bytes

    def get(self, key: str) -> PreparedFolds | None:
        """The folds stored under ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: str, prepared: PreparedFolds) -> None:
        """Keep ``prepared`` under ``key``, dropping the least recently used beyond the bounds."""
        size = prepared.nbytes
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            if size > self.max_bytes:
                return
            self._entries[key] = prepared
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= dropped.nbytes

    def get_or_build(self, key: str, build: Callable[[], PreparedFolds]) -> PreparedFolds:
        """The stored folds, or ``build()``'s (built outside the lock, then stored)."""
        found = self.get(key)
        if found is None:
            found = build()
            self.put(key, found)
        return found

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


#: the process-wide store the CV protocol reads (shared by the app's sessions)
FOLD_STORE = FoldStore()
