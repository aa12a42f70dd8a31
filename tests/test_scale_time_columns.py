"""Dates and time stamps on the large-data path (``heb.scale``): binned as in memory.

A parquet file's date and time stamp columns were refused on DuckDB and Spark ("a type
the large-data path cannot encode"), where the in-memory reader bins them as seconds
since 1970 UTC (``heb.data.column_values.numeric_values``). The engines' views now hold
them as the same seconds, bit for bit, so every fold's counts and every metric match.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from heb.data import DataError
from heb.data.column_values import numeric_values
from heb.data.parquet import read_parquet
from heb.scale.counting import describe
from heb.scale.profile import summarise_source
from heb.scale.source import open_source
from tests.engine_agreement import assert_same, quiet_spark_engine

pytest.importorskip("duckdb")

METHODS = ["Laplace", "HEB-M", "AODE", "HEB-AODE"]
TIMES = ["day", "stamp", "fine", "zoned"]


def _times(n: int = 400, seed: int = 0, nanoseconds: bool = True) -> pd.DataFrame:
    """Dates (with days before 1970), millisecond and nanosecond time stamps (the
    nanoseconds before 1970, where flooring and truncating differ), zoned stamps across
    a daylight-saving change, with missing values, and a class that follows the day."""
    rng = np.random.default_rng(seed)
    days = rng.integers(-400, 400, n)
    frame = pd.DataFrame(
        {
            "day": pd.Series((pd.Timestamp("1970-06-01") + pd.to_timedelta(days, "D")).date),
            "stamp": (
                pd.Timestamp("1965-01-01") + pd.to_timedelta(rng.integers(0, 10**12, n), "ms")
            ).astype("datetime64[ms]"),
            "fine": pd.Timestamp("1969-12-31") + pd.to_timedelta(rng.integers(0, 10**14, n), "ns"),
            "zoned": pd.Timestamp("2024-03-30", tz="Europe/Paris")
            + pd.to_timedelta(rng.integers(0, 10**6, n), "s"),
            "colour": rng.choice(["red", "green", "blue"], n),
            "y": np.where((days > 0) ^ (rng.random(n) < 0.2), "late", "early"),
        }
    )
    frame.loc[rng.random(n) < 0.1, "stamp"] = pd.NaT
    frame.loc[rng.random(n) < 0.1, "day"] = None
    return frame if nanoseconds else frame.drop(columns=["fine"])


def _rows(path) -> pd.DataFrame:
    return read_parquet(path, max_columns=100)


@pytest.fixture(scope="module")
def stamped(tmp_path_factory):
    root = tmp_path_factory.mktemp("times")
    _times().to_parquet(root / "times.parquet", index=False)
    _times(nanoseconds=False).to_parquet(root / "times_us.parquet", index=False)
    return root


def _duckdb(root, name: str):
    from heb.scale.duckdb_engine import DuckDBEngine

    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source(name, root=root))
    return engine


def test_duckdb_reads_dates_and_time_stamps_as_the_in_memory_seconds(stamped):
    engine = _duckdb(stamped, "times.parquet")
    assert dict(engine.columns()) == dict.fromkeys(TIMES, "time") | {
        "colour": "text",
        "y": "text",
    }
    rows = _rows(stamped / "times.parquet")
    view = engine.table(
        "SELECT day, stamp, fine, zoned FROM heb_rows ORDER BY __heb_row"
    ).to_pandas()
    for name in TIMES:
        expected = numeric_values(rows[name])
        got = view[name].to_numpy(dtype=np.float64, na_value=np.nan)
        np.testing.assert_array_equal(got, expected, err_msg=name)  # bit for bit, NaN too
    assert np.isnan(view["stamp"]).any() and np.isnan(view["day"]).any()
    assert view["fine"].min() < 0 and view["day"].min() < 0  # before 1970: floored


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_duckdb_counts_and_metrics_of_time_columns_match_in_memory(stamped, missing):
    engine = _duckdb(stamped, "times.parquet")
    columns = describe(engine, "y")
    assert dict(zip(columns.features, columns.kinds, strict=True)) == dict.fromkeys(
        TIMES, "numeric"
    ) | {"colour": "categorical"}
    assert_same(engine, _rows(stamped / "times.parquet"), "y", methods=METHODS, missing=missing)


def test_duckdb_bins_zoned_nanosecond_stamps_in_any_connection_zone(tmp_path):
    """pandas stores a zoned time stamp in nanoseconds (``pd.to_datetime(..., utc=True)``),
    which DuckDB reads as ``TIMESTAMPTZ_NS``: it was refused as a type the large-data path
    cannot encode, where memory bins it. Its nanoseconds are floored to microseconds as
    numpy floors them (before 1970 too), whatever the connection's time zone."""
    frame = pd.DataFrame(
        {
            "paid": pd.to_datetime(
                ["2024-01-01 10:00:00.000000001", "1969-12-31 23:59:59.9999999", None] * 20,
                utc=True,
            ),
            "y": ["a", "b", "a"] * 20,
        }
    )
    frame.to_parquet(tmp_path / "paid.parquet", index=False)
    from heb.scale.duckdb_engine import DuckDBEngine

    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine._con.execute("SET TimeZone = 'America/New_York'")
    engine.register(open_source("paid.parquet", root=tmp_path))
    assert describe(engine, "y").kinds == ("numeric",)
    view = engine.table("SELECT paid FROM heb_rows ORDER BY __heb_row").to_pandas()
    got = view["paid"].to_numpy(dtype=np.float64, na_value=np.nan)
    expected = numeric_values(_rows(tmp_path / "paid.parquet")["paid"])
    np.testing.assert_array_equal(got, expected)
    assert got[1] == -1e-6  # floored, not truncated to 0


def test_the_summary_bins_time_columns_and_an_id_like_name_does_not_make_them_ids(tmp_path):
    """A column named like an ID (``event_id``) holding time stamps is binned, as in
    memory: only whole numbers under such a name are read as IDs."""
    frame = _times(nanoseconds=False).rename(columns={"stamp": "event_id"})
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    engine = _duckdb(tmp_path, "ids.parquet")
    summary = summarise_source(engine, "y").features.set_index("feature")
    assert summary.loc["event_id", "kind"] == "numeric"
    assert (summary.loc[["day", "event_id", "zoned"], "K_f"] == 10).all()
    assert summary.loc["event_id", "missing_share"] == pytest.approx(
        frame["event_id"].isna().mean()
    )
    assert_same(engine, _rows(tmp_path / "ids.parquet"), "y", methods=["Laplace"])


def test_a_column_of_lists_is_still_refused_in_one_sentence(tmp_path):
    table = pa.table({"tags": [["a"], ["b", "c"], []] * 20, "y": ["p", "q", "r"] * 20})
    pq.write_table(table, tmp_path / "lists.parquet")
    engine = _duckdb(tmp_path, "lists.parquet")
    with pytest.raises(DataError) as caught:
        describe(engine, "y")
    message = str(caught.value)
    assert message.startswith("Column 'tags' has a type the large-data path cannot encode")
    assert "dates and time stamps" in message and "\n" not in message


# -------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark():
    engine = quiet_spark_engine()
    yield engine
    engine.close()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_spark_counts_and_metrics_of_time_columns_match_in_memory(spark, stamped, zone):
    """In any session time zone: a date and a time stamp without a zone are their
    wall-clock times in UTC, as in memory (casting them to Spark's time stamp would read
    them in the session's zone, hours off in New York)."""
    before = spark.spark.conf.get("spark.sql.session.timeZone")
    spark.spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        spark.register(open_source("times_us.parquet", root=stamped))
        assert dict(spark.columns())["stamp"] == "time"
        rows = _rows(stamped / "times_us.parquet")
        view = spark.table("SELECT day, stamp, zoned FROM heb_rows ORDER BY __heb_row")
        for name in ("day", "stamp", "zoned"):
            got = view.column(name).to_pandas().to_numpy(dtype=np.float64, na_value=np.nan)
            np.testing.assert_array_equal(got, numeric_values(rows[name]), err_msg=name)
        assert_same(spark, rows, "y", methods=["Laplace", "HEB-M", "AODE"])
    finally:
        spark.spark.conf.set("spark.sql.session.timeZone", before)


def test_spark_refuses_nanosecond_stamps_before_it_reads_the_file(spark, stamped, monkeypatch):
    """The refusal came from Spark's failed read, after its executor had logged a Java
    stack trace of 40 lines on stderr above the one sentence; the file's schema says it
    first, and Spark never reads the file."""

    def read(*args, **kwargs):
        raise RuntimeError("Spark read the file")

    monkeypatch.setattr(spark, "_read_parquet", read)
    with pytest.raises(DataError) as caught:
        spark.register(open_source("times.parquet", root=stamped))
    assert str(caught.value).startswith("Spark could not read 'times.parquet': it holds time")


def test_spark_names_nanosecond_time_stamps_and_the_way_out(spark, stamped):
    with pytest.raises(DataError) as caught:
        spark.register(open_source("times.parquet", root=stamped))
    message = str(caught.value)
    assert message.startswith("Spark could not read 'times.parquet': it holds time stamps")
    assert "nanoseconds" in message and "--engine duckdb" in message
    assert "SQLSTATE" not in message and "\n" not in message


# ------------------------------------------------------------------ a target of dates
def _month_target(root) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    n = 600
    months = pd.to_datetime(["2024-01-01", "2024-02-01", "2024-03-01"])[rng.integers(0, 3, n)]
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "stamp": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10**7, n), "s"),
            "month": pd.Series(months).dt.date,
        }
    )
    frame.to_parquet(root / "months.parquet", index=False)
    return _rows(root / "months.parquet")


def _assert_classes_are_the_dates(engine, rows) -> None:
    summary = summarise_source(engine, "month")
    assert [str(c) for c in summary.classes] == ["2024-01-01", "2024-02-01", "2024-03-01"]
    assert summary.class_counts.tolist() == rows["month"].value_counts().sort_index().tolist()
    assert_same(engine, rows, "month", methods=["Laplace", "AODE"])


def test_a_target_of_dates_has_dates_for_classes_on_duckdb(tmp_path):
    """The view holds a date column as seconds, so a target of dates had classes such as
    1704067200.0 on the Dataset page ("Rows per class: 1704067200.0: 1,596"); its classes
    are its dates, and its numbers the in-memory ones."""
    rows = _month_target(tmp_path)
    _assert_classes_are_the_dates(_duckdb(tmp_path, "months.parquet"), rows)


def test_a_target_of_dates_is_scored_without_pandas_deprecation_warnings(tmp_path):
    """The fold files matched the batch's datetime.date labels to the datetime64 classes
    through pandas' deprecated inference: a Pandas4Warning reached the user, and pandas 4
    would code every row's class -1."""
    from heb.scale.cv import cross_validate

    rows = _month_target(tmp_path)
    engine = _duckdb(tmp_path, "months.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = cross_validate(engine, "month", methods=["Laplace"], n_splits=2)
    assert result.confusion("Laplace").sum() == len(rows)


def test_a_target_of_dates_has_dates_for_classes_on_spark(spark, tmp_path):
    rows = _month_target(tmp_path)
    spark.register(open_source("months.parquet", root=tmp_path))
    _assert_classes_are_the_dates(spark, rows)


def _zoned_target(root, unit: str = "ns") -> pd.DataFrame:
    """A target of zoned time stamps (pandas' ``tz_localize``), one of them at midnight
    Paris time (the day before in UTC)."""
    rng = np.random.default_rng(2)
    n = 300
    stamps = pd.to_datetime(["2024-01-01 10:00", "2024-02-01 11:30", "2024-03-01 00:00"])
    zoned = pd.Series(stamps[rng.integers(0, 3, n)]).dt.tz_localize("Europe/Paris")
    zoned = zoned.astype(f"datetime64[{unit}, Europe/Paris]")
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.choice(["S", "M", "L"], n),  # a pair for AODE's joint counts
            "when": zoned,
        }
    )
    frame.to_parquet(root / "zoned.parquet", index=False)
    return _rows(root / "zoned.parquet")


ZONED_CLASSES = [
    "2024-01-01 10:00:00+01:00",
    "2024-02-01 11:30:00+01:00",
    "2024-03-01 00:00:00+01:00",
]


@pytest.mark.parametrize("unit", ["ns", "us"])
def test_a_target_of_zoned_time_stamps_has_the_in_memory_classes_on_duckdb(tmp_path, unit):
    """The engines' results hold a zoned stamp in their session's zone, read without it,
    so its classes were UTC wall-clock times ('2024-02-29T23:00:00.000000' for midnight
    of 1 March in Paris) where the in-memory reader has them in the file's zone."""
    rows = _zoned_target(tmp_path, unit)
    engine = _duckdb(tmp_path, "zoned.parquet")
    engine._con.execute("SET TimeZone = 'America/New_York'")
    assert [str(c) for c in summarise_source(engine, "when").classes] == ZONED_CLASSES
    assert_same(engine, rows, "when", methods=["Laplace", "AODE"])


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_target_of_zoned_time_stamps_has_the_in_memory_classes_on_spark(spark, tmp_path, zone):
    rows = _zoned_target(tmp_path, "us")  # Spark reads no nanoseconds
    before = spark.spark.conf.get("spark.sql.session.timeZone")
    spark.spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        spark.register(open_source("zoned.parquet", root=tmp_path))
        assert [str(c) for c in summarise_source(spark, "when").classes] == ZONED_CLASSES
        assert_same(spark, rows, "when", methods=["Laplace", "AODE"])
    finally:
        spark.spark.conf.set("spark.sql.session.timeZone", before)
