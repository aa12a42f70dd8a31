"""Targets and folds: class codes, the paper's 20,000-row subsample, a safe fold count.

:func:`encode_target` codes labels ``0..C-1`` (labels of mixed kinds by the one rule of
:func:`heb.data.dataset.labels_as_text`); :func:`stratified_subsample` is the paper's
20,000-row cap (seed 42); :func:`safe_n_splits` picks a fold count every class allows;
:func:`stratified_folds` gives scikit-learn's shuffled ``StratifiedKFold`` folds from class
codes without its sorts of every row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.data.dataset import DataError, is_mixed_labels, labels_as_text

__all__ = [
    "CountsByFold",
    "encode_target",
    "fold_numbers",
    "fold_position",
    "few_rows_note",
    "rows_by_class",
    "safe_n_splits",
    "single_row_note",
    "stratified_folds",
    "stratified_subsample",
    "subsample_rows",
]


def encode_target(y) -> tuple[np.ndarray, np.ndarray]:
    """Class indices ``0..C-1`` and the sorted class labels.

    Raises
    ------
    DataError
        If the target has missing values.
    """
    values = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if values.ndim != 1:
        raise ValueError(f"The target must be one-dimensional, got shape {values.shape}.")
    if pd.isna(values).any():
        raise DataError("The target has missing values; drop those rows first.")
    if is_mixed_labels(values):
        values = labels_as_text(values)
    # hashed, then only the few classes sorted: np.unique sorted every row, and on text
    # labels (Python objects) that held the GIL for seconds on an upload of 2 million rows
    index, classes = pd.factorize(values, sort=True)
    return index.astype(np.int64), np.asarray(classes, dtype=values.dtype)


def subsample_rows(y, max_rows: int = 20000, seed: int = 42) -> np.ndarray | None:
    """The rows :func:`stratified_subsample` keeps, ascending; None when it keeps them all.

    Each class gets ``round(n_c max_rows / n)`` rows (largest remainders, at least one row
    for every class), drawn by a permutation seeded with ``seed``.
    """
    n_rows = len(y)
    if n_rows <= max_rows:
        return None
    y_idx, classes = encode_target(y)
    if max_rows < classes.size:
        raise ValueError(f"max_rows must be at least the number of classes ({classes.size}).")
    counts = np.bincount(y_idx, minlength=classes.size)
    exact = counts * (max_rows / n_rows)
    alloc = np.floor(exact).astype(np.int64)
    leftover = max_rows - int(alloc.sum())
    alloc[np.argsort(-(exact - alloc), kind="stable")[:leftover]] += 1
    short = (alloc == 0) & (counts > 0)
    alloc[short] = 1
    for _ in range(int(short.sum())):  # give the rows back from the largest classes
        alloc[np.argmax(alloc)] -= 1
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n_rows)
    order = perm[np.argsort(y_idx[perm], kind="stable")]
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    rank = np.arange(n_rows) - starts
    return np.sort(order[rank < alloc[y_idx[order]]])


def stratified_subsample(X, y, max_rows: int = 20000, seed: int = 42):
    """At most ``max_rows`` rows, class proportions kept (paper protocol: 20,000, seed 42).

    Each class gets ``round(n_c max_rows / n)`` rows (largest remainders, at least one row
    for every class); rows keep their original order (:func:`subsample_rows` says which).
    Identity when ``n <= max_rows``.

    Returns
    -------
    X, y : the subsample, of the input's types (DataFrames / Series with a fresh index).
    """
    if len(X) != len(y):
        raise ValueError("X and y have different numbers of rows.")
    keep = subsample_rows(y, max_rows=max_rows, seed=seed)
    if keep is None:
        return X, y
    return _take_rows(X, keep), _take_rows(y, keep)


def _take_rows(values, rows: np.ndarray):
    """``values``' rows at ``rows``: a frame or series with a fresh index, else an array."""
    if isinstance(values, pd.DataFrame | pd.Series):
        return values.iloc[rows].reset_index(drop=True)
    return np.asarray(values)[rows]


def safe_n_splits(y, n_splits: int = 10, *, rare: str = "reduce") -> tuple[int, str | None]:
    """The number of stratified folds the target allows, and a notice for the user.

    Parameters
    ----------
    y : array-like
        The target (no missing values).
    n_splits : int, default 10
        The folds wanted.
    rare : {"reduce", "keep"}
        ``"reduce"``: as many folds as the smallest class has rows (at least 2), so every
        class is in every fold. ``"keep"``: ``n_splits`` folds whenever the largest class
        allows it (scikit-learn's rule); a smaller class is then missing from some folds,
        which the engine handles (N_c = 0, SPEC section 1).

    A class with a single row is left out of the minimum in both modes: it is kept in the
    data, tested once while absent from that training fold, and the notice says so.

    Returns
    -------
    (folds, notice) : the fold count and one or two sentences, or ``None``.

    Raises
    ------
    DataError
        Fewer than two classes, or no class with two rows.
    """
    if rare not in ("reduce", "keep"):
        raise ValueError(f"rare must be 'reduce' or 'keep', got {rare!r}.")
    if int(n_splits) < 2:
        raise ValueError("n_splits must be at least 2.")
    y_idx, classes = encode_target(y)
    if classes.size < 2:
        raise DataError("Cross-validation needs at least two classes in the target.")
    counts = np.bincount(y_idx, minlength=classes.size)
    splittable = counts >= 2
    if not splittable.any():
        raise DataError(
            "Every class has a single row, so there is nothing to cross-validate; a classifier "
            "needs several rows per class."
        )
    smallest = int(counts[splittable].min())
    label = classes[splittable][np.argmin(counts[splittable])]
    notices = []
    if rare == "reduce":
        folds = int(min(n_splits, max(2, smallest)))
        if folds < n_splits:
            notices.append(
                f"The smallest class ('{label}') has only {smallest} rows, so {folds}-fold "
                f"cross-validation is used instead of {n_splits}-fold."
            )
    else:
        folds = int(min(n_splits, counts.max()))
        if folds < n_splits:
            notices.append(
                f"The largest class has only {counts.max()} rows, so {folds}-fold "
                f"cross-validation is used instead of {n_splits}-fold."
            )
        elif smallest < folds:
            notices.append(few_rows_note(label, smallest, folds, smallest))
    singles = classes[~splittable]
    if singles.size:
        notices.append(single_row_note(singles))
    return folds, " ".join(notices) or None


def few_rows_note(label, rows: int, n_folds: int, tested: int) -> str:
    """The note on the smallest class, of ``rows`` rows, fewer than the ``n_folds`` folds,
    tested in only ``tested`` of them (in memory and on an engine)."""
    return (
        f"The smallest class ('{label}') has only {rows} rows, fewer than the {n_folds} "
        f"folds, so it is tested in only {tested} of them."
    )


def single_row_note(labels) -> str:
    """The note on classes of a single row (``labels``, at least one), in memory and on an
    engine: each is tested once, in the fold whose training rows lack it."""
    labels = list(labels)
    shown = ", ".join(f"'{c}'" for c in labels[:5]) + (" ..." if len(labels) > 5 else "")
    plural = len(labels) > 1
    return (
        f"Class{'es' * plural} {shown} ha{'ve' if plural else 's'} a single row, so "
        f"{'they are' if plural else 'it is'} only tested in a fold whose training rows "
        f"lack {'them' if plural else 'it'}."
    )


def rows_by_class(y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions ordered by class code ``y`` (``0..n_classes-1``; ascending within a
    class), and (C + 1,) where each class starts among them. The codes are sorted as 8- or
    16-bit integers, which numpy sorts by radix, several times quicker than int64."""
    small = np.int8 if n_classes <= 127 else np.int16 if n_classes <= 32767 else np.int64
    order = np.argsort(y.astype(small), kind="stable")
    return order, np.concatenate(([0], np.cumsum(np.bincount(y, minlength=n_classes))))


def stratified_folds(
    y: np.ndarray, n_splits: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) rows of each fold, exactly as
    ``StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(X, y)`` gives them.

    ``y`` holds class codes ``0..C-1``, every class present (:func:`encode_target`'s).
    scikit-learn numbers the classes by first appearance, deals the rows sorted by that
    number round robin to the folds (so ``allocation[i, k]``, class k's rows in fold i,
    follows from the class counts), shuffles each class's fold numbers with one
    ``RandomState(seed)`` in that order, and gives them to the class's rows in row order.
    Here the rows are grouped by a radix sort of the codes instead of its sorts of every
    row and a boolean mask per class and per fold.

    Raises
    ------
    ValueError
        If ``n_splits`` exceeds every class's rows, or a class code has no row.
    """
    y = np.asarray(y)
    n_classes = int(y.max()) + 1
    order, bounds = rows_by_class(y, n_classes)
    counts = np.diff(bounds)
    if (counts == 0).any():
        raise ValueError("Every class code 0..C-1 needs a row.")
    if n_splits > counts.max():
        raise ValueError(
            f"n_splits={n_splits} cannot be greater than the number of members in each class."
        )
    appearance = np.argsort(order[bounds[:-1]])  # class codes by their first row
    ends = np.cumsum(counts[appearance])
    fold = np.arange(n_splits)[:, None]

    def dealt(end: np.ndarray) -> np.ndarray:  # per fold i, the rows p < end with p % n == i
        return (end - fold + n_splits - 1) // n_splits

    allocation = dealt(ends) - dealt(ends - counts[appearance])
    rng = np.random.RandomState(seed)
    shuffled = [np.empty(0, dtype=np.int64)] * n_classes
    for k, code in enumerate(appearance):  # the random stream runs class by class
        fold_numbers = np.arange(n_splits).repeat(allocation[:, k])
        rng.shuffle(fold_numbers)
        shuffled[code] = fold_numbers
    fold_of_row = np.empty(y.size, dtype=np.int64)
    fold_of_row[order] = np.concatenate(shuffled)
    by_fold, fold_bounds = rows_by_class(fold_of_row, n_splits)
    tests = np.split(by_fold, fold_bounds[1:-1])
    return [(np.flatnonzero(fold_of_row != i), test) for i, test in enumerate(tests)]


def fold_numbers(tests: tuple, n_rows: int) -> np.ndarray:
    """(n_rows,) each row's fold, from the folds' test rows ``tests``, which must partition
    the rows."""
    fold_of_row = np.full(n_rows, -1, dtype=np.int64)
    for position, test in enumerate(tests):
        fold_of_row[test] = position
    if sum(test.size for test in tests) != n_rows or (fold_of_row < 0).any():
        raise ValueError("The folds' test rows must partition the rows, each row in one fold.")
    return fold_of_row


def fold_position(tests: tuple, test: np.ndarray) -> int | None:
    """Which of the folds' test rows ``tests`` equal ``test``, or None."""
    for position, rows in enumerate(tests):  # a few folds; the same array first
        if rows is test:
            return position
    for position, rows in enumerate(tests):
        if rows.size == test.size and np.array_equal(rows, test):
            return position
    return None


@dataclass(frozen=True)
class CountsByFold:
    """An indexed column's (F, C, W) counts of each fold's test rows by class and index,
    counted in one pass over every row: a training fold's counts are every row's (their
    sum over the folds) minus its test rows'."""

    tests: tuple[np.ndarray, ...]  # each fold's test rows (partitioning the rows)
    in_test: np.ndarray  # (F, C, W)
    total: np.ndarray  # (C, W)

    @classmethod
    def of(
        cls, index: np.ndarray, y: np.ndarray, fold_of_row: np.ndarray, tests: tuple, C: int, W: int
    ):
        """Counts of ``index`` (``0..W-1``) by fold (``fold_of_row``) and class ``y``."""
        flat = (fold_of_row * C + y) * W + index
        in_test = np.bincount(flat, minlength=len(tests) * C * W).reshape(len(tests), C, W)
        return cls(tests, in_test, in_test.sum(axis=0))

    def training(self, test: np.ndarray, y_test: np.ndarray, index: np.ndarray) -> np.ndarray:
        """(C, W) counts of every row but ``test`` (``y_test`` their classes, ``index`` the
        column's index of every row)."""
        position = fold_position(self.tests, test)
        if position is not None:
            return self.total - self.in_test[position]
        W = self.total.shape[1]
        in_test = np.bincount(y_test * W + index[test], minlength=self.total.size)
        return self.total - in_test.reshape(self.total.shape)
