"""AODE's joint counts per training fold from one scan of pair histograms.

Each feature is grouped by a value that every fold's code is a function of: a categorical
feature by its raw value, a numeric feature by its *fine bin* (the number of cuts <= the
value over the union of all folds' cuts, so each fold's bin is a function of it). One
GROUPING SETS scan counts (fold, class, a_i, a_j) for every unordered pair i < j some
fold's caps allow in either direction (SPEC section 4); fold k's joint counts are the
rows of the other folds, mapped to fold k's codes and laid out as
:class:`heb.joint_counts.JointCounts` (sorted non-zero keys), exactly what
``JointCounts.from_codes`` builds from the training codes in memory.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.data.parquet import nullable_integer_types
from heb.joint_counts import JointCounts
from heb.scale.counting import FittedFold, Histograms, class_codes
from heb.scale.sql import bin_expression, pair_histogram_query

__all__ = ["count_joints"]


def _fine_cuts(fitted: list[FittedFold], feature: int) -> np.ndarray:
    cuts = [
        enc.cuts
        for fold in fitted
        for index, enc in zip(fold.features, fold.encodings, strict=True)
        if index == feature
    ]
    return np.unique(np.concatenate(cuts)) if cuts else np.zeros(0)


def _fold_mapper(histograms: Histograms, fold: FittedFold, fine: dict[int, np.ndarray]):
    """For fold ``fold``: a function (feature, grouped values) -> training codes (or -1)."""
    position = {int(f): j for j, f in enumerate(fold.features)}

    def codes(feature: int, grouped: pd.Series) -> np.ndarray:
        if feature not in position:
            return np.full(len(grouped), -1, dtype=np.int64)
        encoding = fold.encodings[position[feature]]
        if encoding.cuts is None:
            slots = histograms.values[feature].slots_of(grouped)
            return encoding.train_code[slots]
        union = fine[feature]
        bins = grouped.to_numpy(dtype=np.float64, na_value=np.nan)
        missing = np.isnan(bins)
        if union.size == 0:  # a single bin in every fold
            return np.where(missing, encoding.train_code[-1], 0)
        lower = union[np.clip(bins[~missing].astype(np.int64) - 1, 0, None)]
        out = np.full(len(grouped), encoding.train_code[-1], dtype=np.int64)
        inner = np.searchsorted(encoding.cuts, lower, side="right")
        out[~missing] = np.where(bins[~missing] == 0, 0, inner)
        return out

    return codes


def _allowed_pairs(fitted: list[FittedFold], n_classes: int, caps: list[tuple]) -> list:
    """Global pairs i < j held (in either direction) by some fold's layout under some cap."""
    pairs = set()
    for fold in fitted:
        for cap in caps:
            parent, child, _ = JointCounts.layout(fold.table.n_categories, n_classes, *cap)
            i, j = fold.features[parent], fold.features[child]
            pairs.update(zip(np.minimum(i, j).tolist(), np.maximum(i, j).tolist(), strict=True))
    return sorted(pairs)


def _pair_of_rows(pairs: list, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """Index into ``pairs`` of each result row, from its set's (i + j + 2, (i+1)^2 + (j+1)^2)."""
    first, second = np.asarray(pairs, dtype=np.int64).T + 1
    stride = 2 * int(second.max()) ** 2 + 1  # above every sum of squares
    keys = (first + second) * stride + first**2 + second**2
    order = np.argsort(keys)
    wanted = np.asarray(s1, dtype=np.int64) * stride + np.asarray(s2, dtype=np.int64)
    at = np.minimum(np.searchsorted(keys[order], wanted), keys.size - 1)
    if not np.array_equal(keys[order][at], wanted):
        raise ValueError("The pair histogram holds a grouping set of no requested pair.")
    return order[at]


def count_joints(
    engine, histograms: Histograms, fitted: list[FittedFold], caps: list[tuple]
) -> dict:
    """JointCounts per (caps, fold) from one pair-histogram scan.

    ``caps`` lists :attr:`heb.joint_counts.JointCounts.caps` tuples (parent cardinality, joint
    cells, pairs), as :func:`heb.scale.cv.caps_of_methods` returns them.
    """
    C = histograms.classes.size
    columns = histograms.columns
    pairs = _allowed_pairs(fitted, C, caps)
    out: dict = {}
    if not pairs:
        for cap in caps:
            for fold in fitted:
                out[(cap, fold.fold)] = _layout_counts(fold, C, cap, [])
        return out
    fine = {f: _fine_cuts(fitted, f) for f, kind in enumerate(columns.kinds) if kind == "numeric"}
    expressions = [
        bin_expression(engine.dialect, name, fine[f]) if f in fine else engine.dialect.quote(name)
        for f, name in enumerate(columns.features)
    ]
    sql = pair_histogram_query(
        engine.dialect, columns.target, expressions, pairs, histograms.n_folds, histograms.seed
    )
    table = engine.table(sql)
    pair_of_row = _pair_of_rows(
        pairs, table.column("__heb_s1").to_numpy(), table.column("__heb_s2").to_numpy()
    )
    fold_of_row = table.column("__heb_fold").to_numpy()
    # through pandas, as the counting and scoring read it: a zoned stamp keeps its zone
    y_of_row = class_codes(
        pd.Index(histograms.classes), table.column("__heb_y").to_pandas().to_numpy()
    )
    n_of_row = table.column("__heb_n").to_numpy().astype(np.float64)
    exact = nullable_integer_types().get  # integers with NULLs stay exact, not float64
    grouped = {}
    for p, (i, j) in enumerate(pairs):
        rows = np.flatnonzero(pair_of_row == p)
        grouped[p] = (
            rows,
            table.column(f"__heb_a{i}").take(rows).to_pandas(types_mapper=exact),
            table.column(f"__heb_a{j}").take(rows).to_pandas(types_mapper=exact),
        )
    for fold in fitted:
        mapper = _fold_mapper(histograms, fold, fine)
        pieces = []
        for p, (i, j) in enumerate(pairs):
            rows, a_i, a_j = grouped[p]
            train = fold_of_row[rows] != fold.fold
            u, v = mapper(i, a_i[train]), mapper(j, a_j[train])
            pieces.append((i, j, u, v, y_of_row[rows][train], n_of_row[rows][train]))
        for cap in caps:
            out[(cap, fold.fold)] = _layout_counts(fold, C, cap, pieces)
    return out


def _layout_counts(fold: FittedFold, n_classes: int, cap: tuple, pieces) -> JointCounts:
    """Place the mapped pair counts into fold ``fold``'s JointCounts layout under ``cap``."""
    k = np.maximum(fold.table.n_categories, 1)  # as JointCounts.from_codes lays them out
    parent, child, offsets = JointCounts.layout(k, n_classes, *cap)
    local = {int(f): j for j, f in enumerate(fold.features)}
    slot = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(parent, child, strict=True))}
    keys, counts = [], []
    # each unordered pair's counts serve both directions (i as parent, and j as parent)
    directed = [(i, j, u, v, y, n) for i, j, u, v, y, n in pieces]
    directed += [(j, i, v, u, y, n) for i, j, u, v, y, n in pieces]
    for i, j, u, v, y, n in directed:
        if i not in local or j not in local or (local[i], local[j]) not in slot:
            continue
        p, ki, kj = slot[(local[i], local[j])], k[local[i]], k[local[j]]
        ok = (u >= 0) & (u < ki) & (v >= 0) & (v < kj)
        keys.append(((offsets[p] + u[ok] * kj + v[ok]) * n_classes + y[ok]).astype(np.int64))
        counts.append(n[ok])
    all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    unique, inverse = np.unique(all_keys, return_inverse=True)
    summed = np.bincount(inverse, weights=np.concatenate(counts) if counts else None)
    nonzero = summed > 0
    max_parent_cardinality, max_joint_cells, max_pairs = cap
    return JointCounts(
        n_classes=n_classes,
        n_categories=k,
        max_parent_cardinality=max_parent_cardinality,
        max_joint_cells=max_joint_cells,
        max_pairs=max_pairs,
        parent=parent,
        child=child,
        offsets=offsets,
        keys=unique[nonzero],
        counts=summed[nonzero].astype(np.float64),
    )
