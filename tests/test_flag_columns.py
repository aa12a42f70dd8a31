"""A 0/1 column (a flag such as ``is_member``) reads as its two values, "0" and "1", not as
the bins "(-inf, 1)" and "[1, inf)"; its codes stay those of its values on every path (in
memory, the fold encoding and the DuckDB engine), so only the labels change."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import Preprocessor
from heb.data.preprocessor_io import from_dict, to_dict
from heb.data.readers import read_table
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.profile import summarise_source
from heb.scale.source import open_source
from tests.engine_agreement import assert_same


def test_a_flag_is_labelled_by_its_two_values_and_coded_as_before():
    X = pd.DataFrame({"is_member": [0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1]})
    pre = Preprocessor().fit(X)
    assert pre.categories_ == [["0", "1"]]
    assert pre.kinds_ == {"is_member": "numeric"}  # binned as before: one bin per value
    codes = pre.transform(pd.DataFrame({"is_member": [0, 1, np.nan, 2]}))[:, 0]
    assert codes.tolist() == [0, 1, -1, 1]  # missing: absent evidence; 2: the end bin
    assert pre.impute_values_ == {"is_member": "1"}
    assert pre.summary()["categories"].tolist() == ["0, 1"]


def test_a_flag_of_floats_or_other_whole_numbers_reads_as_values_a_constant_as_one_bin():
    X = pd.DataFrame({"f": [0.0, 1.0, 1.0, np.nan], "code": [1, 2, 2, 1], "one": [5, 5, 5, 5]})
    pre = Preprocessor(missing="category").fit(X)
    assert pre.categories_ == [["0", "1", "(missing)"], ["1", "2"], ["(-inf, inf)"]]


def test_a_tied_flag_imputes_its_fill_bins_label_not_the_median_between():
    """The median of half 0 and half 1 is 0.5, imputed into bin "0": the impute value says
    "0", as a model file's check of a category column's fill wants."""
    pre = Preprocessor().fit(pd.DataFrame({"is_member": [0, 1, 0, 1]}))
    assert pre.impute_values_ == {"is_member": "0"}
    loaded = from_dict(to_dict(pre))
    assert loaded.categories_ == [["0", "1"]] and loaded.impute_values_ == {"is_member": "0"}


@pytest.mark.parametrize(
    "values",
    [
        [0.5, 1.5, 0.5],  # two numbers, not whole
        [0, 1, 2, 1],  # three whole numbers: bins, which a test-only 1.5 may fall in
    ],
)
def test_other_few_valued_columns_keep_their_bin_labels(values):
    pre = Preprocessor().fit(pd.DataFrame({"x": values}))
    assert all(label.startswith(("(", "[")) for label in pre.categories_[0])


def test_two_dates_keep_their_bin_labels():
    dates = pd.to_datetime(["2024-01-01", "2024-02-01", "2024-01-01"])
    pre = Preprocessor().fit(pd.DataFrame({"day": dates}))
    assert pre.categories_ == [["(-inf, 2024-02-01)", "[2024-02-01, inf)"]]


def test_the_duckdb_path_codes_a_flag_as_in_memory(tmp_path):
    """The labels are the Preprocessor's alone: the engine's folds count the flag's two
    values as the in-memory folds do (a rare flag too, absent from some training folds)."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(3)
    n = 120
    member = rng.integers(0, 2, n)
    rare = np.zeros(n, dtype=int)
    rare[[5, 77]] = 1
    y = np.where(rng.random(n) < 0.3 + 0.4 * member, "yes", "no")
    frame = pd.DataFrame({"is_member": member, "rare": rare, "y": y})
    data = frame.to_csv(index=False).encode()
    (tmp_path / "flags.csv").write_bytes(data)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("flags.csv", root=tmp_path))
    rows = read_table(data, "flags.csv")
    assert_same(engine, rows, "y", methods=["Laplace", "HEB-M"])
    summary = summarise_source(engine, "y").features.set_index("feature")
    pre = Preprocessor().fit(rows.drop(columns="y"))
    assert summary.loc[["is_member", "rare"], "K_f"].tolist() == pre.n_categories_.tolist()
    assert pre.categories_ == [["0", "1"], ["0", "1"]]
