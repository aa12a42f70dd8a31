"""A CSV on local Spark is typed as on DuckDB and in memory (one shared session; Java).

Spark's own ``inferSchema`` read a ZIP code written 02134 as the number 2134 (so it was
quantile-binned) and only an empty cell as missing (``NA`` and ``?`` were values); on a
``local`` master the engine now reads DuckDB's typed parquet copy of the file, removed
when the engine is done with it. Skips where Java or pyspark is missing (fails in CI).
"""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

from heb.data import DataError
from heb.data.readers import read_table
from heb.scale import spark_engine
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.profile import describe_source
from heb.scale.source import open_source
from tests.engine_agreement import assert_same_counts
from tests.peers import require_spark

N = 300


def _export(path, n: int = N, seed: int = 5) -> bytes:
    """ZIP codes with leading zeros, a float column and a text column whose cells are
    sometimes ``NA`` or ``?``, and a class that depends on the ZIP."""
    rng = np.random.default_rng(seed)
    zips = rng.choice(["02134", "02139", "10001", "90210", "00501"], n)
    amount = rng.choice(["12.5", "3.25", "7.0", "1.75", "20.5", "NA", "?"], n)
    colour = rng.choice(["red", "green", "blue", "NA", "?"], n)
    y = np.where(np.isin(zips, ["02134", "00501"]), "p", rng.choice(["p", "q"], n))
    cells = zip(zips, amount, colour, y, strict=True)
    lines = ["zip,amount,colour,y", *(",".join(row) for row in cells)]
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(data)
    return data


@pytest.fixture(scope="module")
def spark():
    require_spark()
    engine = spark_engine.SparkEngine(master="local[2]")
    engine.spark.sparkContext.setLogLevel("OFF")
    yield engine
    engine.close()


def test_a_csv_on_local_spark_has_duckdb_s_and_the_readers_types_and_missing_values(
    spark, tmp_path
):
    data = _export(tmp_path / "export.csv")
    rows = read_table(data, "export.csv")
    rows = rows[rows["y"].notna()].reset_index(drop=True)
    duck = DuckDBEngine()
    try:
        duck.register(open_source("export.csv", root=tmp_path))
        columns = spark.register(open_source("export.csv", root=tmp_path))
        assert columns == duck.columns()
        assert dict(columns)["zip"] == "text"  # inferSchema: integer, then binned
        assert spark.notes == duck.notes and any("'zip'" in note for note in spark.notes)
        for engine in (spark, duck):  # every fold's CountTable, as exact integers
            assert_same_counts(engine, rows, "y", 3)
        ours = describe_source(spark, "y").set_index("feature")
        theirs = describe_source(duck, "y").set_index("feature")
        assert ours.equals(theirs)
        for feature in ("amount", "colour"):
            # 'NA' and '?' are missing, as in memory (inferSchema kept them as values)
            assert ours.loc[feature, "missing_share"] == rows[feature].isna().mean() > 0
        assert ours.loc["zip", "missing_share"] == 0
        assert ours.loc["zip", "K"] == rows["zip"].nunique() == 5
        assert ours.loc["colour", "K"] == 3 and ours.loc["zip", "kind"] == "categorical"
        # each row keeps its row key, so the two views list the rows in the file's order
        query = "SELECT __heb_row, zip, amount FROM heb_rows ORDER BY __heb_row"
        assert spark.table(query).to_pylist() == duck.table(query).to_pylist()
    finally:
        duck.close()


def test_the_typed_copy_is_private_and_removed_when_replaced_refused_or_closed(
    spark, tmp_path, monkeypatch
):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def copies() -> list:
        return sorted(p.name for p in temp.glob("heb_spark_csv_*/*"))

    _export(tmp_path / "a.csv")
    cp1252 = "colour;Colour;y\nr\xe9d;a;p\nblue;b;q\nNA;a;q\n".encode("cp1252")
    (tmp_path / "b.csv").write_bytes(cp1252)
    (tmp_path / "bad.csv").write_text("colour,y\nred,p\nblue,q,extra\n")
    engine = spark_engine.SparkEngine(session=spark.spark)  # shares the session
    engine.register(open_source("a.csv", root=tmp_path))
    (first,) = temp.glob("heb_spark_csv_*")
    assert copies() == ["rows.parquet"] and first.stat().st_mode & 0o077 == 0
    columns = engine.register(open_source("b.csv", root=tmp_path))
    assert columns == [("colour", "text"), ("Colour", "text"), ("y", "text")]
    (second,) = temp.glob("heb_spark_csv_*")
    assert second != first and copies() == ["rows.parquet"]
    assert not list(temp.glob("heb_csv_utf8/*"))  # the Windows-1252 file's UTF-8 copy
    assert engine.notes[0].startswith("The file is not UTF-8")
    with pytest.raises(DataError, match="Line 3 of 'bad.csv' has 3 values"):
        engine.register(open_source("bad.csv", root=tmp_path))
    assert list(temp.glob("heb_spark_csv_*")) == [second]  # the view of b.csv still reads
    assert engine.table("SELECT count(*) AS n FROM heb_rows").column(0)[0].as_py() == 3
    engine.close()  # the copy goes; the session given to the engine is the caller's
    assert not list(temp.glob("heb_spark_csv_*"))
    assert spark.spark.range(3).count() == 3  # and keeps running
    # a cluster's executors may not see this machine's temporary folder: inferSchema
    monkeypatch.setattr(spark_engine, "_is_local", lambda session: False)
    cluster = spark_engine.SparkEngine(session=spark.spark)
    # ('NA' and '?' are values there: the amounts are text)
    assert dict(cluster.register(open_source("a.csv", root=tmp_path)))["amount"] == "text"
    assert cluster.notes == [] and not list(temp.glob("heb_spark_csv_*"))
