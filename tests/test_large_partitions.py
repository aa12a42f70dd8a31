"""Hive-style partitioned tables (``events/date=1/part-0.parquet``, ...): the table's folder is
read whole, each key a text column decoded from the folder names, with the in-memory numbers
on DuckDB and on Spark; one partition folder is still a table of its own, without its key.
A table whose partitions are keyed differently, or whose files hold a key's column, is
refused in one sentence."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, unescape

from explorer import large_files as lf
from heb.cli import main
from heb.data import DataError
from heb.scale.counting import describe
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import example_frame, fold_assignment
from heb.scale.source import DATA_ROOT_ENV, open_source
from tests.engine_agreement import SEED, assert_same, quiet_spark_engine

#: Hive's folder name of a partition whose key is null
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


@pytest.fixture
def partitioned(tmp_path, monkeypatch):
    for day in (1, 2):
        rng = np.random.default_rng(day)
        folder = tmp_path / "events" / f"date={day}"
        folder.mkdir(parents=True)
        colour, y = rng.choice(["r", "g"], 60), rng.choice(["a", "b"], 60)
        frame = pd.DataFrame({"colour": colour, "y": y})
        frame.to_parquet(folder / "part-0.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def write_regions(root, rows: int = 900) -> pd.DataFrame:
    """``shops/region=<r>/part-<i>.parquet`` from :func:`example_frame`, the region telling
    the class; the rows a reader of the whole table sees, in the engines' row-key order
    (partition value, file name, row), the key first and null for Hive's null partition."""
    frame = example_frame(rows, seed=3)
    frame.insert(0, "it`s.shade", frame["colour"])  # a name each engine must quote
    rng = np.random.default_rng(4)
    region = np.where(frame["label"].eq("buy"), "north west", "01")
    region = np.where(rng.random(rows) < 0.3, rng.choice(["été", NULL_PARTITION], rows), region)
    parts = []
    for value in sorted(set(region)):
        # as pyarrow and Spark write a partition: %20 for a space, UTF-8 bytes %C3%A9 for é
        folder = root / "shops" / f"region={quote(value)}"
        folder.mkdir(parents=True)
        part = frame[region == value].reset_index(drop=True)
        half = len(part) // 2
        for i, piece in enumerate((part.iloc[:half], part.iloc[half:])):
            piece.to_parquet(folder / f"part-{i}.parquet", index=False)
        part = part.assign(region=None if value == NULL_PARTITION else value)
        parts.append(("" if value == NULL_PARTITION else value, part))
    (root / "shops" / "_SUCCESS").write_text("")  # Spark's marker file is ignored
    ordered = pd.concat([part for _, part in sorted(parts, key=lambda p: p[0])])
    ordered = ordered[["region", *frame.columns]].astype({"region": object})
    return ordered[ordered["label"].notna()].reset_index(drop=True)


def test_a_partitioned_table_is_listed_and_read_whole(partitioned):
    assert lf.list_sources(partitioned) == ["events/", "events/date=1/", "events/date=2/"]
    source = open_source("events", partitioned)
    assert source.partition_keys == ("date",) and len(source.files) == 2
    engine = DuckDBEngine(threads=1)
    assert engine.register(source) == [("date", "text"), ("colour", "text"), ("y", "text")]
    rows = engine.table("SELECT date, count(*) AS n FROM heb_rows GROUP BY date ORDER BY date")
    assert rows.to_pydict() == {"date": ["1", "2"], "n": [60, 60]}
    # one partition is a table of its own, without its key
    assert engine.register(open_source("events/date=1", partitioned)) == [
        ("colour", "text"),
        ("y", "text"),
    ]
    assert [lf.is_partition(n) for n in ("events/date=1/", "date=1/", "a=b.parquet")] == [
        True,
        True,
        False,
    ]
    assert not lf.is_partition("events/plain/") and not lf.is_partition("odd=/")


def test_a_partitioned_table_gives_the_in_memory_numbers(tmp_path):
    rows = write_regions(tmp_path)
    engine = DuckDBEngine(threads=1)
    columns = engine.register(open_source("shops", tmp_path))
    assert columns[0] == ("region", "text")  # the file's last column stays the last
    values = engine.table("SELECT DISTINCT region FROM heb_rows").column(0).to_pylist()
    assert set(values) == {"01", "north west", "été", None}  # decoded, kept as text
    assert "region" in describe(engine, "label").features
    assert_same(engine, rows, "label", k=3, methods=("Laplace", "HEB-M", "AODE"))
    # a file name repeats in every partition: the row key tells them apart
    folds = fold_assignment(engine, "label", 3, SEED)
    first_rows = rows.groupby("region", dropna=False).head(1).index
    assert len(set(folds[first_rows])) > 1


def test_heb_bench_reads_a_partitioned_table_with_its_files_last_column_as_target(tmp_path, capsys):
    rows = write_regions(tmp_path, rows=600)
    out = tmp_path / "out"
    argv = [str(tmp_path / "shops"), "--engine", "duckdb", "--folds", "3", "--tables", "1"]
    assert main(["bench", *argv, "-o", str(out), "--no-figures", "--no-cache"]) == 0
    printed = capsys.readouterr()
    assert f"shops: {len(rows):,} rows on DuckDB, target 'label'" in printed.out + printed.err
    assert set(pd.read_csv(out / "folds.csv")["dataset"]) == {"shops"}


def test_spark_reads_the_partitioned_table_as_duckdb(tmp_path):
    rows = write_regions(tmp_path, rows=400)
    spark = quiet_spark_engine()
    try:
        duck = DuckDBEngine(threads=1)
        duck.register(open_source("shops", tmp_path))
        assert spark.register(open_source("shops", tmp_path)) == duck.columns()
        # both key a row by the same file and row (each hashes it its own way), and
        # Spark's type inference is left as it was
        keys = "SELECT __heb_file, __heb_row, label FROM heb_rows ORDER BY 1, 2"
        assert spark.table(keys).to_pylist() == duck.table(keys).to_pylist()
        setting = "spark.sql.sources.partitionColumnTypeInference.enabled"
        assert spark.spark.conf.get(setting, None) in (None, "true")
        assert_same(spark, rows, "label", k=3, methods=("Laplace", "HEB-M"))
    finally:
        spark.close()


def test_case_partitioned_table_keys(partitioned):
    (partitioned / "events" / "date=2").rename(partitioned / "events" / "day=2")
    with pytest.raises(DataError) as caught:
        open_source("events", partitioned)
    assert str(caught.value) == (
        "The partitions of 'events' are keyed 'date' but 'events/day=2' by 'day'; give every "
        "partition the same keys in the same order."
    )


def test_a_partitioned_table_with_a_key_column_or_stray_files_is_refused(partitioned):
    table = partitioned / "events"
    frame = pd.DataFrame({"colour": ["r"], "Date": [3], "y": ["a"]})
    frame.to_parquet(table / "date=2" / "part-0.parquet", index=False)
    (table / "date=1" / "part-0.parquet").unlink()
    with pytest.raises(DataError, match=r"^Column 'Date' of 'events/date=2/part-0\.parquet' is "):
        open_source("events", partitioned)
    # a column's type changing between partitions names the files by their partitions
    pd.DataFrame({"colour": [1], "y": ["a"]}).to_parquet(table / "date=1" / "part-0.parquet")
    frame.drop(columns="Date").to_parquet(table / "date=2" / "part-0.parquet", index=False)
    with pytest.raises(DataError) as caught:
        open_source("events", partitioned)
    assert str(caught.value) == (
        "Column 'colour' is int64 in 'events/date=1/part-0.parquet' but string in "
        "'events/date=2/part-0.parquet'; give it one type in every file of the folder."
    )
    (table / "date=1" / "part-0.parquet").unlink()
    (table / "date=2" / "elsewhere").symlink_to(partitioned, target_is_directory=True)
    with pytest.raises(DataError, match=r"^The partition folder 'events/date=2/elsewhere' "):
        open_source("events", partitioned)
    (table / "date=2" / "elsewhere").unlink()
    (table / "date=3").symlink_to(table / "date=2", target_is_directory=True)
    with pytest.raises(DataError, match=r"^The partition folder 'events/date=3' is not named "):
        open_source("events", partitioned)
    (table / "date=3").unlink()
    (table / "date=2" / "notes").mkdir()
    with pytest.raises(DataError, match=r"^The partition folder 'events/date=2/notes' is not "):
        open_source("events", partitioned)
    (table / "date=2" / "notes").rmdir()
    (table / "date=2" / "extra.csv").write_text("colour,y\nr,a\n")
    with pytest.raises(DataError, match=r"^The partition .events/date=2. holds a CSV or other "):
        open_source("events", partitioned)
    empty = partitioned / "empty"
    (empty / "date=1").mkdir(parents=True)
    with pytest.raises(DataError, match=r"^The partitioned table 'empty' holds no parquet"):
        open_source("empty", partitioned)
    (partitioned / "plain").mkdir()
    with pytest.raises(DataError, match=r"^The folder 'plain' holds no parquet file \(parquet "):
        open_source("plain", partitioned)


def test_the_picker_says_what_a_partition_is(partitioned):
    at = open_app("pages/dataset.py", clean=False, large_file="events/")
    assert_clean(at)
    captions = [unescape(c.value) for c in at.caption]
    assert lf.PARTITIONS_NOTE in captions
    features = at.dataframe[0].value  # the engine's summary of the whole table
    assert features["feature"].tolist() == ["date", "colour"]
    assert features["K_f"].tolist() == [2, 2] and set(features["rows"]) == {120}
    # a root without partitions says nothing of them
    (partitioned / "events").rename(partitioned / "moved")
    for day in (1, 2):
        (partitioned / "moved" / f"date={day}").rename(partitioned / f"day{day}")
    plain = open_app("pages/dataset.py", clean=False, large_file="day1/")
    assert_clean(plain)
    assert lf.PARTITIONS_NOTE not in [unescape(c.value) for c in plain.caption]


def test_spark_s_reading_of_folder_values_is_mapped_to_utf8_where_they_differ(tmp_path):
    """Spark decodes each %XX of a folder name as one character (measured with pyspark 4.3
    on these names); DuckDB and Python decode UTF-8. Only the values whose readings
    differ are mapped, and a value that is not UTF-8 (DuckDB refuses it) is left as read."""
    from heb.scale.spark_engine import _spark_unescape, _utf8_key_values

    names = ["%C3%A9t%C3%A9", "a%2Fb", "%zz", "50%", "a+b", "x%2", "%41%42", "%4"]
    spark_read = ["Ã©tÃ©", "a/b", "%zz", "50%", "a+b", "x%2", "AB", "%4"]
    assert [_spark_unescape(name) for name in names] == spark_read
    for name in [*names, "%E9"]:
        folder = tmp_path / "t" / f"q={name}"
        folder.mkdir(parents=True)
        pd.DataFrame({"y": ["a"]}).to_parquet(folder / "p.parquet", index=False)
    assert _utf8_key_values(open_source("t", tmp_path)) == {"q": {"Ã©tÃ©": "été"}}
