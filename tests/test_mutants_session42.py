"""Dates and time stamps on the large-data path: what tests/test_scale_time_columns.py let
through (a mutation pass on the engines' seconds since 1970).

Its time stamps are whole milliseconds and its zoned ones whole seconds, so a reader
that dropped the microseconds, or rounded them its own way, matched in memory there.
Here the stamps carry microseconds, and a date column has an ID-like name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data.column_values import numeric_values
from heb.data.parquet import read_parquet
from heb.scale.counting import describe
from heb.scale.source import open_source
from tests.engine_agreement import assert_same_counts, quiet_spark_engine

pytest.importorskip("duckdb")

FILE = "micros.parquet"
STAMPS = ["tick", "zoned"]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Microsecond stamps either side of 1970 (without and with a zone) and dates under
    an ID-like name, with missing values; stored in microseconds, so Spark reads them."""
    rng = np.random.default_rng(7)
    n = 200
    micros = pd.to_timedelta(rng.integers(-(10**15), 10**15, n), "us")
    frame = pd.DataFrame(
        {
            "tick": (pd.Timestamp("1970-01-01") + micros).astype("datetime64[us]"),
            "zoned": (pd.Timestamp("2024-03-31", tz="Europe/Paris") + micros).astype(
                "datetime64[us, Europe/Paris]"
            ),
            "day_id": pd.Series((pd.Timestamp("2020-01-01") + micros.floor("D")).date),
            "y": rng.choice(["a", "b"], n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "tick"] = pd.NaT
    frame.loc[rng.random(n) < 0.1, "zoned"] = pd.NaT
    path = tmp_path_factory.mktemp("micros")
    frame.to_parquet(path / FILE, index=False)
    return path


def _expected(root) -> pd.DataFrame:
    return read_parquet(root / FILE, max_columns=100)


def _assert_seconds(view, rows) -> None:
    for name in STAMPS:
        got = view[name].to_numpy(dtype=np.float64, na_value=np.nan)
        np.testing.assert_array_equal(got, numeric_values(rows[name]), err_msg=name)


@pytest.fixture(scope="module")
def duck(root):
    from heb.scale.duckdb_engine import DuckDBEngine

    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source(FILE, root=root))
    return engine


def test_duckdb_reads_zoned_microseconds_as_the_in_memory_seconds(duck, root):
    """Kills ``_seconds`` as DuckDB's ``epoch()``: it equals ``epoch_us / 1e6`` for dates
    and stamps without a zone, but rounds a zoned stamp's microseconds differently (about
    one stamp in four), so a bin edge could fall on the other side of it than in memory."""
    view = duck.table("SELECT tick, zoned FROM heb_rows ORDER BY __heb_row").to_pandas()
    _assert_seconds(view, _expected(root))


def test_a_time_stamp_declared_categorical_keeps_one_category_per_stamp(duck, root):
    """Kills ``describe`` reading a declared-categorical time column as exact integers (as
    it reads integer IDs), or as text (its ``numeric_values`` flag false): the view's
    seconds have fractions, which the integer path cuts off, and text orders and codes
    the categories otherwise, so a user's ``--categorical`` stamp got counts (or an error)
    that memory does not give."""
    assert_same_counts(duck, _expected(root), "y", 3, categorical=["tick"])


@pytest.fixture(scope="module")
def spark():
    engine = quiet_spark_engine()
    yield engine
    engine.close()


def test_spark_reads_microseconds_and_keeps_dates_under_an_id_name_binned(spark, root):
    """Kills three Spark mutants:

    - a stamp without a zone measured in whole milliseconds (``timestampdiff(MILLISECOND,
      ...) * 1000``) and a zoned one by ``unix_millis``: both drop the microseconds the
      in-memory reader keeps, so values and bins move;
    - ``_family`` calling a date column ``float`` (killed before only by the family
      name): a column of dates named like an ID (``day_id``, whole seconds) then reads as
      an ID, a category per day, where memory bins it as a number.
    """
    spark.register(open_source(FILE, root=root))
    assert dict(spark.columns())["day_id"] == "time"
    columns = describe(spark, "y")
    assert dict(zip(columns.features, columns.kinds, strict=True))["day_id"] == "numeric"
    view = spark.table("SELECT tick, zoned FROM heb_rows ORDER BY __heb_row").to_pandas()
    _assert_seconds(view, _expected(root))
