"""The out-of-fold predictions name each row by its place in the loaded table.

Rows without a target are dropped by the loader and a large table is subsampled before
cross-validation; the ``row`` column of the out-of-fold CSV must still point at the
table's own rows, through the engine, the result cache and the app's worker process.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import cv_worker
from heb.data import stratified_subsample, subsample_rows
from heb.data.dataset import finalize
from heb.evaluate import ResultCache, RunSettings, cross_validate
from heb.evaluate.cv import cached_cross_validation
from heb.evaluate.folds import evaluated_rows
from heb.evaluate.report import oof_frame

N_ROWS = 600
MISSING_TARGET = (3, 4, 100, 377, 599)


def _table() -> pd.DataFrame:
    """A table whose feature ``serial`` is each row's own place, some targets missing."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "serial": np.arange(N_ROWS),
            "colour": rng.choice(["red", "green", "blue"], N_ROWS),
            "label": rng.choice(["yes", "no", "maybe"], N_ROWS, p=[0.5, 0.3, 0.2]),
        }
    )
    frame.loc[list(MISSING_TARGET), "label"] = None
    return frame


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return _table()


@pytest.fixture(scope="module")
def dataset(table):
    return finalize(table, "label", name="rows", source="test", declared=["colour"])


def test_the_loader_keeps_the_places_of_the_rows_it_keeps(table, dataset):
    kept = np.setdiff1d(np.arange(N_ROWS), MISSING_TARGET)
    np.testing.assert_array_equal(dataset.source_rows, kept)
    np.testing.assert_array_equal(dataset.X["serial"], kept)
    whole = finalize(table.dropna(subset=["label"]), "label", name="r", source="t")
    assert whole.source_rows is None  # nothing dropped: the rows are the table's own
    # the same values from other rows of a table are another dataset (its cache entries)
    assert whole.fingerprint() != dataset.fingerprint()


@settings(max_examples=40, deadline=None)
@given(
    labels=st.lists(st.sampled_from("abc"), min_size=3, max_size=200),
    max_rows=st.integers(3, 250),
    seed=st.integers(0, 2**16),
)
def test_subsample_rows_are_the_rows_stratified_subsample_keeps(labels, max_rows, seed):
    y = pd.Series(labels)
    if max_rows < y.nunique():
        return
    rows = subsample_rows(y, max_rows=max_rows, seed=seed)
    kept, _ = stratified_subsample(np.arange(len(y)), y, max_rows=max_rows, seed=seed)
    if len(y) <= max_rows:
        assert rows is None
        return
    np.testing.assert_array_equal(rows, kept)
    assert rows.size == max_rows and np.all(np.diff(rows) > 0)


@pytest.mark.parametrize("max_rows", [None, 250])
def test_the_out_of_fold_rows_point_at_the_tables_rows(table, dataset, tmp_path, max_rows):
    cache = ResultCache(tmp_path / "results")
    run = RunSettings(n_splits=3, max_rows=max_rows)
    computed = cross_validate(dataset, ["Laplace"], settings=run, cache=cache)
    frame = oof_frame(computed)
    rows = frame["row"].to_numpy()
    expected = len(dataset.y) if max_rows is None else max_rows
    assert rows.size == expected and np.unique(rows).size == expected
    assert not np.isin(rows, MISSING_TARGET).any()
    # each line's true class is the class of the table's row it names
    np.testing.assert_array_equal(frame["true class"], table["label"].to_numpy()[rows])
    np.testing.assert_array_equal(rows, evaluated_rows(dataset, max_rows))
    # read back from the result cache (both ways), the rows are the same
    again = cross_validate(dataset, ["Laplace"], settings=run, cache=cache)
    assert again.cached == ["Laplace"]
    np.testing.assert_array_equal(again.rows, computed.rows)
    stored = cached_cross_validation(dataset, ["Laplace"], settings=run, cache=cache)
    np.testing.assert_array_equal(stored.rows, computed.rows)
    # an entry written before the rows were stored: found again from the dataset
    key = run.replace(fingerprint=dataset.fingerprint()).data_key()
    meta = cache.get_json(key)
    assert "rows" in meta
    cache.put_json(key, {name: value for name, value in meta.items() if name != "rows"})
    older = cached_cross_validation(dataset, ["Laplace"], settings=run, cache=cache)
    np.testing.assert_array_equal(older.rows, computed.rows)


def test_rows_of_a_table_read_whole_are_its_row_numbers(table):
    whole = finalize(
        table.dropna(subset=["label"]).reset_index(drop=True), "label", name="w", source="t"
    )
    result = cross_validate(whole, ["Laplace"], settings=RunSettings(n_splits=3), use_cache=False)
    assert result.rows is None
    assert oof_frame(result)["row"].tolist() == list(range(len(whole.y)))


def test_the_rows_travel_to_the_worker_and_back(dataset, tmp_path):
    cv_worker.write_dataset(dataset, tmp_path)
    described = cv_worker.describe(dataset, dataset.fingerprint(), sent=True)
    received = cv_worker.read_dataset(tmp_path, described)
    np.testing.assert_array_equal(received.source_rows, dataset.source_rows)
    assert received.fingerprint() == dataset.fingerprint()
    result = cross_validate(
        received, ["Laplace"], settings=RunSettings(n_splits=3, max_rows=250), use_cache=False
    )
    folder = tmp_path / "result"
    cv_worker.write_result(result, folder)
    back = cv_worker.read_result(folder, result.classes)
    np.testing.assert_array_equal(back.rows, result.rows)
    np.testing.assert_array_equal(oof_frame(back)["row"], oof_frame(result)["row"])


# ------------------------------------------------------------------ the Explain page
def _upload_with_gaps() -> bytes:
    """400 rows whose ``serial`` is the row's place in the file, targets 2, 5 and 9 empty."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "serial": [f"s{i}" for i in range(400)],
            "colour": rng.choice(["red", "green", "blue"], 400),
            "label": rng.choice(["yes", "no"], 400, p=[0.3, 0.7]),
        }
    )
    frame.loc[[2, 5, 9], "label"] = None
    return frame.to_csv(index=False).encode()


def _explained_serial(at) -> str:
    """The ``serial`` value of the row the Explain page explains (its figure's bars)."""
    import json

    spec = next(
        json.loads(chart.proto.spec)
        for chart in at.get("plotly_chart")
        if "log-odds of" in str(json.loads(chart.proto.spec)["layout"]["title"]["text"])
    )
    labels = spec["data"][0]["y"]
    return next(label for label in labels if label.startswith("serial = ")).split(" = ")[1]


def test_explain_numbers_rows_as_the_table_and_the_out_of_fold_csv_do():
    from tests.test_app import assert_clean, open_app, uploader

    at = open_app()
    uploader(at).upload("gaps.csv", _upload_with_gaps(), "text/csv")
    at.run()
    at.switch_page("pages/explain.py").run()
    assert_clean(at)
    box = at.number_input(key="w_explain_row")
    assert "Row of the table (0 to 399)" in box.label
    box.set_value(100).run()
    assert_clean(at)
    assert any(m.value.startswith("Row 100:") for m in at.markdown)
    assert _explained_serial(at) == "s100"  # row 100 of the file, not the 100th kept row
    # a row without a target: said so, and the next row that has one is shown
    at.number_input(key="w_explain_row").set_value(5).run()
    assert_clean(at)
    assert any("Row 5 of the table is not among" in i.value for i in at.info)
    assert any(m.value.startswith("Row 6:") for m in at.markdown)
    assert _explained_serial(at) == "s6"
