"""Mutation-testing gaps of Hive-style partitioned tables (session 35): which folder names are
partitions, what the walk ignores or refuses, the row key's file (documented as the partition
values and the file's name joined by ``/``), the picker's table of nested partitions, the
cache identity of a partitioned table, and Spark's inference setting left as it was."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from explorer import large_files as lf
from heb.data import DataError
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import open_source
from heb.scale.sql import DUCKDB, SPARK, partition_file_key
from tests.engine_agreement import quiet_spark_engine

#: Hive's folder name of a partition whose key is null
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"

#: the refusal of a folder whose parquet files (found by name) are none
NO_PARQUET = r"^The folder 'events' holds no parquet file \(parquet files are found by"


def write(folder, name: str = "part-0.parquet", rows: int = 2) -> None:
    """A small parquet file (columns ``colour``, ``y``) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame({"colour": ["r", "g"] * (rows // 2), "y": ["a", "b"] * (rows // 2)})
    frame.to_parquet(folder / name, index=False)


def file_keys(engine: DuckDBEngine) -> list[str]:
    sql = "SELECT DISTINCT __heb_file FROM heb_rows ORDER BY 1"
    return engine.table(sql).column(0).to_pylist()


# ------------------------------------------------------------------ what a partition is
@pytest.mark.parametrize("odd", ["date=", "=1"])
def test_a_folder_with_an_empty_key_or_value_is_refused_among_partitions(tmp_path, odd):
    """``date=`` and ``=1`` are not key=value: among real partitions they are plain folders
    (refused); without either half's check, they were read as partitions."""
    write(tmp_path / "events" / "date=1")
    write(tmp_path / "events" / odd)
    with pytest.raises(DataError) as caught:
        open_source("events", tmp_path)
    assert str(caught.value) == (
        f"The partition folder 'events/{odd}' is not named key=value, or is a link; every "
        "folder of a partitioned table is a partition of its own."
    )


@pytest.mark.parametrize("odd", ["date=", "=1"])
def test_a_folder_above_only_odd_folders_is_no_partitioned_table(tmp_path, odd):
    write(tmp_path / "events" / odd)
    with pytest.raises(DataError, match=NO_PARQUET):
        open_source("events", tmp_path)


def test_a_file_named_key_value_is_no_partition(tmp_path):
    """Only a folder is a partition: a file named ``a=b`` beside no parquet file leaves the
    folder a plain one holding no parquet file (not an empty partitioned table)."""
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "a=b").write_text("not data")
    with pytest.raises(DataError, match=NO_PARQUET):
        open_source("events", tmp_path)


def test_hidden_and_underscore_folders_of_a_table_are_ignored(tmp_path):
    """Spark's ``_temporary`` and a hidden ``.trash`` folder are no partitions: left out,
    not refused as plain folders."""
    table = tmp_path / "events"
    write(table / "date=1")
    write(table / "_temporary" / "0")
    write(table / ".trash")
    source = open_source("events", tmp_path)
    assert source.partition_keys == ("date",)
    assert source.files == (table / "date=1" / "part-0.parquet",)


def test_keys_equal_but_for_case_are_refused(tmp_path):
    write(tmp_path / "events" / "Date=1" / "date=2")
    with pytest.raises(DataError) as caught:
        open_source("events", tmp_path)
    assert str(caught.value) == "The partitions of 'events' name a key twice ('Date/date')."


def test_a_folder_holding_parquet_files_and_partitions_is_refused(tmp_path):
    """Neither its own files nor its partitions are read alone (either would drop the
    other's rows without a word): it is refused, naming one of each."""
    write(tmp_path / "mixed")
    write(tmp_path / "mixed" / "date=1", "other.parquet")
    with pytest.raises(DataError, match=r"holds parquet files \('part-0\.parquet'\) beside"):
        open_source("mixed", tmp_path)


# ------------------------------------------------------------------ the row key's file
#: (k1, k2, file) rows whose row-key files must all differ, and those files
KEY_ROWS = (
    "('a/b', 'c', 'p'), ('a', 'b/c', 'p'), (NULL, 'x', 'p'), ('50%', 'y', 'p'), ('1', 'x', 'q')"
)
KEY_FILES = ["a%2Fb/c/p", "a/b%2Fc/p", "/x/p", "50%25/y/p", "1/x/q"]


def test_the_row_key_file_is_the_partition_values_and_the_file_name(spark):
    """As docs/scale.md says (``2026-01-01/part-0.parquet``): values outermost first, then
    the name, joined by ``/``; a null value is empty (``concat_ws`` would drop it); a
    value's ``/`` (and so ``%``) is escaped, so ``a/b`` + ``c`` and ``a`` + ``b/c`` differ.
    The same on both engines."""
    import duckdb

    duck = partition_file_key(DUCKDB, ["k 1", "k2"], "f")
    sql = f'SELECT {duck} FROM (VALUES {KEY_ROWS}) AS t("k 1", k2, f)'
    assert [row[0] for row in duckdb.sql(sql).fetchall()] == KEY_FILES
    on_spark = partition_file_key(SPARK, ["k 1", "k2"], "f")
    sql = f"SELECT {on_spark} AS key FROM VALUES {KEY_ROWS} AS t(`k 1`, k2, f)"
    assert [row["key"] for row in spark.spark.sql(sql).collect()] == KEY_FILES


def test_duckdb_keys_each_partition_s_rows_apart_null_values_included(tmp_path):
    """Two keys, each null in one partition: dropped nulls made ``x/part-0.parquet`` of
    both (a=null, b=x) and (a=x, b=null), one fold for both partitions' rows."""
    table = tmp_path / "t"
    write(table / f"a={NULL_PARTITION}" / "b=x")
    write(table / "a=x" / f"b={NULL_PARTITION}")
    write(table / "a=x" / "b=y")
    engine = DuckDBEngine(threads=1)
    try:
        assert engine.register(open_source("t", tmp_path))[:2] == [("a", "text"), ("b", "text")]
        assert file_keys(engine) == ["/x/part-0.parquet", "x//part-0.parquet", "x/y/part-0.parquet"]
    finally:
        engine.close()


def test_a_key_needing_quotes_is_read(tmp_path):
    """A key with a space (``event day=1``) is quoted as a column of the view."""
    write(tmp_path / "t" / "event day=1")
    write(tmp_path / "t" / "event day=2")
    engine = DuckDBEngine(threads=1)
    try:
        assert engine.register(open_source("t", tmp_path))[0] == ("event day", "text")
        sql = 'SELECT DISTINCT "event day" FROM heb_rows ORDER BY 1'
        assert engine.table(sql).column(0).to_pylist() == ["1", "2"]
    finally:
        engine.close()


@pytest.mark.parametrize("key", ["filename", "File_Row_Number"])
def test_a_key_named_like_a_row_key_column_is_refused_on_duckdb(tmp_path, key):
    """A partition key named filename / file_row_number hid DuckDB's own row key column:
    every row of a file had one row key (one fold), or two files shared theirs."""
    for value in ("a", "b"):
        write(tmp_path / "t" / f"{key}={value}", rows=4)
    engine = DuckDBEngine(threads=1)
    try:
        with pytest.raises(DataError) as caught:
            engine.register(open_source("t", tmp_path))
        assert str(caught.value) == (
            f"The partition key {key!r} of 't' is a name DuckDB keeps for the row's file and "
            "row number; rename its partition folders."
        )
    finally:
        engine.close()


# ------------------------------------------------------------------ the picker
def test_nested_partitions_list_their_table_once_above_all_their_keys(tmp_path):
    """``events/date=1/hour=2/``'s table is ``events/`` (every trailing key=value part
    stripped, not only the last); partitions right under the root have no table (neither
    ``./`` nor their outer partition)."""
    write(tmp_path / "events" / "date=1" / "hour=2")
    write(tmp_path / "day=1" / "hour=3")
    write(tmp_path / "week=1")
    assert lf.list_sources(tmp_path) == [
        "day=1/",  # a table keyed by hour (its own key, day, is the root's)
        "day=1/hour=3/",
        "events/",
        "events/date=1/",  # a middle partition: a table keyed by hour
        "events/date=1/hour=2/",
        "week=1/",
    ]


# ------------------------------------------------------------------ the cache identity
def test_a_moved_partition_changes_the_table_s_identity(tmp_path):
    """Renaming ``date=2`` to ``date=3`` keeps every file's name, size and time but changes
    the key's values: the cached column summary and counts must not be reused."""
    table = tmp_path / "events"
    write(table / "date=1")
    write(table / "date=2")
    before = lf._identity(open_source("events", tmp_path))
    os.rename(table / "date=2", table / "date=3")
    assert lf._identity(open_source("events", tmp_path)) != before


# ------------------------------------------------------------------ Spark
@pytest.fixture(scope="module")
def spark():
    engine = quiet_spark_engine()
    yield engine
    engine.close()


@pytest.mark.parametrize("value", [None, "false", "true"])
def test_spark_reads_a_numeric_looking_key_as_text_and_leaves_the_setting(tmp_path, spark, value):
    """``k=01`` alone is read as the text ``01`` (inference would make it the number 1),
    whatever the session's setting; a session that set partition type inference itself
    gets its own value back (not the default, not the other value), one that did not
    gets it unset."""
    write(tmp_path / "t" / "k=01")
    setting = "spark.sql.sources.partitionColumnTypeInference.enabled"
    if value is not None:
        spark.spark.conf.set(setting, value)
    try:
        assert spark.register(open_source("t", tmp_path))[0] == ("k", "text")
        assert spark.table("SELECT DISTINCT k FROM heb_rows").to_pylist() == [{"k": "01"}]
        assert spark.spark.conf.get(setting, None) == value
    finally:
        spark.spark.conf.unset(setting)


def test_the_picker_offers_a_table_exactly_when_it_is_read_as_one(tmp_path):
    write(tmp_path / "odd" / "=a=b")  # listed as a table, refused as holding no parquet
    write(tmp_path / "eq" / "k==")  # read as a table keyed k, not listed as one
    listed = {name for name in lf.list_sources(tmp_path) if name in ("odd/", "eq/")}
    read = set()
    for name in ("odd", "eq"):
        try:
            if open_source(name, tmp_path).partition_keys:
                read.add(name + "/")
        except DataError:
            pass
    assert listed == read
