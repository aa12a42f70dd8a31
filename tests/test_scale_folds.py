"""Hash folds: deterministic, seeded, and every fold's class shares within 1 % of the whole."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import fold_assignment
from heb.scale.source import open_source


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("folds")
    rng = np.random.default_rng(0)
    y = rng.choice(np.array(["a", "b", "c"]), size=1_000_000, p=[0.7, 0.25, 0.05])
    pq.write_table(pa.table({"y": y, "x": np.zeros(y.size, dtype=np.int8)}), root / "y.parquet")
    engine = DuckDBEngine(threads=2)
    engine.register(open_source("y.parquet", root=root))
    return engine, y


def test_every_fold_keeps_the_class_shares_within_one_percent(engine):
    engine, y = engine
    folds = fold_assignment(engine, "y", 10, 42)
    overall = np.array([np.mean(y == c) for c in "abc"])
    for k in range(10):
        shares = np.array([np.mean(y[folds == k] == c) for c in "abc"])
        assert np.all(np.abs(shares - overall) < 0.01), (k, shares, overall)
    sizes = np.bincount(folds, minlength=10)
    assert sizes.min() > 0.98 * y.size / 10


def test_folds_are_a_function_of_seed_and_row(engine):
    engine, _ = engine
    first = fold_assignment(engine, "y", 5, 7)
    assert np.array_equal(first, fold_assignment(engine, "y", 5, 7))
    other = fold_assignment(engine, "y", 5, 8)
    assert 0.15 < np.mean(first == other) < 0.25  # another seed: an independent split
