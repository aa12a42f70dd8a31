"""Mutation-found gaps in the out-of-fold rows (commit 7634fb6, ``tests/test_oof_rows.py``).

Each test pins a behaviour the commit's own tests left free: the subsample's edges, the
fingerprint of the kept rows, ``evaluated_rows`` of a whole table, the reference folds'
rows, :attr:`PreparedFolds.nbytes` and the rows a cached run reports.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from heb.data import Dataset, stratified_subsample, subsample_rows
from heb.data.dataset import finalize
from heb.evaluate import ResultCache, RunSettings, cross_validate
from heb.evaluate.cv import cached_cross_validation
from heb.evaluate.folds import (
    evaluated_rows,
    evaluated_subsample,
    prepare_folds,
    reference_folds,
)
from heb.evaluate.report import oof_frame

N_ROWS = 300
MISSING_TARGET = (1, 2, 150, 299)


def _table() -> pd.DataFrame:
    """A table whose ``serial`` is each row's place, the targets of a few rows missing."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame(
        {
            "serial": np.arange(N_ROWS),
            "colour": rng.choice(["red", "green", "blue"], N_ROWS),
            "label": rng.choice(["yes", "no"], N_ROWS, p=[0.6, 0.4]),
        }
    )
    frame.loc[list(MISSING_TARGET), "label"] = None
    return frame


@pytest.fixture(scope="module")
def gappy() -> Dataset:
    """The table with its rows without a target dropped (``source_rows`` set)."""
    return finalize(_table(), "label", name="gappy", source="test", declared=["colour"])


@pytest.fixture(scope="module")
def whole() -> Dataset:
    """A table with a target in every row (``source_rows`` None)."""
    table = _table().dropna(subset=["label"]).reset_index(drop=True)
    return finalize(table, "label", name="whole", source="test", declared=["colour"])


def _drop_stored_rows(cache: ResultCache, dataset: Dataset, run: RunSettings) -> None:
    """Make the cache's entry for ``run`` look like one written before rows were stored."""
    key = run.replace(fingerprint=dataset.fingerprint()).data_key()
    meta = cache.get_json(key)
    cache.put_json(key, {name: value for name, value in meta.items() if name != "rows"})


# ------------------------------------------------------------------ heb.data.folds
def test_subsample_rows_keeps_everything_at_exactly_max_rows() -> None:
    """``n == max_rows`` is no subsample: None, and the inputs themselves come back."""
    y = pd.Series(list("ab") * 15)
    X = pd.DataFrame({"x": np.arange(30)})
    assert subsample_rows(y, max_rows=30) is None
    X_out, y_out = stratified_subsample(X, y, max_rows=30)
    assert X_out is X and y_out is y
    assert subsample_rows(y, max_rows=29).size == 29


@pytest.mark.parametrize("max_rows", [5, 100])
def test_stratified_subsample_refuses_x_and_y_of_different_lengths(max_rows: int) -> None:
    """X and y of different lengths are refused, subsampled or not (no silent mismatch)."""
    y = pd.Series(list("ab") * 20)
    with pytest.raises(ValueError, match="different numbers of rows"):
        stratified_subsample(np.arange(39), y, max_rows=max_rows)
    with pytest.raises(ValueError, match="different numbers of rows"):
        stratified_subsample(np.arange(41), y, max_rows=max_rows)


def test_stratified_subsample_takes_rows_by_position_not_by_label() -> None:
    """A frame with a shuffled index is subsampled by position, to a fresh index."""
    n_rows = 60
    labels = np.random.default_rng(5).permutation(n_rows)  # an index that is not 0..n-1
    X = pd.DataFrame({"x": np.arange(n_rows) * 10}, index=labels)
    y = pd.Series(list("abc") * 20, index=labels)
    rows = subsample_rows(y, max_rows=20, seed=3)
    X_sub, y_sub = stratified_subsample(X, y, max_rows=20, seed=3)
    np.testing.assert_array_equal(X_sub["x"], np.arange(n_rows)[rows] * 10)
    np.testing.assert_array_equal(y_sub, y.to_numpy()[rows])
    assert X_sub.index.equals(pd.RangeIndex(20)) and y_sub.index.equals(pd.RangeIndex(20))


# ------------------------------------------------------------------ heb.data.dataset
def test_the_fingerprint_hashes_every_kept_rows_place() -> None:
    """The same values from rows at other places differ in the fingerprint, even when
    only a later row's place differs."""
    X = pd.DataFrame({"x": ["a", "b", "a", "b"]})
    y = pd.Series(["p", "q", "p", "q"], name="label")

    def fingerprint(rows) -> str:
        return Dataset("d", X, y, ["x"], "t", source_rows=rows).fingerprint()

    first, later = fingerprint(np.array([0, 1, 2, 3])), fingerprint(np.array([0, 1, 2, 5]))
    assert first != later
    assert fingerprint(None) not in (first, later)
    assert fingerprint([0, 1, 2, 5]) == later  # a list hashes as the array does


# ------------------------------------------------------------------ heb.evaluate.folds
def test_evaluated_rows_of_a_whole_table_are_its_row_numbers(whole: Dataset) -> None:
    """No dropped rows and no subsample: rows 0..n-1 (an array, never None)."""
    n_rows = len(whole.y)
    for max_rows in (None, 0, n_rows, n_rows + 1):
        rows = evaluated_rows(whole, max_rows)
        assert rows is not None and rows.dtype == np.int64
        np.testing.assert_array_equal(rows, np.arange(n_rows))


def test_a_max_rows_of_zero_means_no_subsample(gappy: Dataset) -> None:
    """``max_rows=0`` is "no cap" (as in RunSettings), not a cap of zero rows."""
    assert evaluated_subsample(gappy, 0) is None
    np.testing.assert_array_equal(evaluated_rows(gappy, 0), gappy.source_rows)


def test_the_reference_folds_carry_the_same_rows(gappy: Dataset) -> None:
    """The per-fold-preprocessor reference folds name the same table rows as the app's."""
    run = RunSettings(n_splits=3, max_rows=120)
    prepared, reference = prepare_folds(gappy, run), reference_folds(gappy, run)
    assert reference.rows is not None
    np.testing.assert_array_equal(reference.rows, prepared.rows)
    np.testing.assert_array_equal(reference.rows, evaluated_rows(gappy, 120))


def test_prepared_folds_count_the_bytes_of_their_rows_and_codes(gappy: Dataset) -> None:
    """``nbytes`` (the fold store's budget) counts the rows and the shared codes both."""
    prepared = prepare_folds(gappy, RunSettings(n_splits=3))
    assert prepared.rows is not None and prepared.codes is not None
    without_rows = dataclasses.replace(prepared, rows=None)
    without_codes = dataclasses.replace(prepared, codes=None)
    assert prepared.nbytes - without_rows.nbytes == prepared.rows.nbytes
    assert prepared.nbytes - without_codes.nbytes == prepared.codes.nbytes


# ------------------------------------------------------------------ heb.evaluate.cv
def test_an_older_cache_entry_of_a_whole_table_reports_no_rows(whole: Dataset, tmp_path) -> None:
    """Found again from the dataset, rows 0..n-1 are reported as None (row = 0..n-1)."""
    cache = ResultCache(tmp_path / "results")
    run = RunSettings(n_splits=3, max_rows=None)
    computed = cross_validate(whole, ["Laplace"], settings=run, cache=cache)
    assert computed.rows is None
    _drop_stored_rows(cache, whole, run)
    older = cached_cross_validation(whole, ["Laplace"], settings=run, cache=cache)
    assert older is not None and older.rows is None
    assert oof_frame(older)["row"].tolist() == list(range(len(whole.y)))


def test_a_cached_run_reports_the_rows_stored_with_it(gappy: Dataset, tmp_path) -> None:
    """The rows stored with a cached run name its stored arrays' order: they are the ones
    reported, not rows worked out again from today's dataset."""
    cache = ResultCache(tmp_path / "results")
    run = RunSettings(n_splits=3, max_rows=120)
    computed = cross_validate(gappy, ["Laplace"], settings=run, cache=cache)
    key = run.replace(fingerprint=gappy.fingerprint()).data_key()
    meta = cache.get_json(key)
    stored = [row + 1000 for row in meta["rows"]]  # not what a recomputation gives
    cache.put_json(key, {**meta, "rows": stored})
    for again in (
        cached_cross_validation(gappy, ["Laplace"], settings=run, cache=cache),
        cross_validate(gappy, ["Laplace"], settings=run, cache=cache),
    ):
        assert again.cached == ["Laplace"]
        np.testing.assert_array_equal(again.rows, stored)
        np.testing.assert_array_equal(oof_frame(again)["row"], stored)
    np.testing.assert_array_equal(computed.rows + 1000, stored)
