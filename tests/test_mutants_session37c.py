"""Tests that kill the mutants a mutation pass left alive in session 37's large-data
changes: a wide CSV's cells typed as rows and its one-pass code / integer checks
(``heb/scale/csv_scan.py``), a CSV on local Spark typed by DuckDB
(``heb/scale/spark_engine.py``, ``heb.scale.duckdb_engine.connect``) and a target of
too many values refused from a scan of its column alone (``heb/scale/counting.py``).

Each docstring or comment names the mutant it kills. The CSV cases are checked against
:func:`heb.data.readers.read_table` cell by cell (as ``tests/test_scale_csv.py`` does)
and against the values written by hand; the row estimates are worked out from the files'
sizes. The Spark engine's clean-up is checked with a stand-in session (no Java needed):
only which temporary folders exist is looked at.
"""

from __future__ import annotations

import gzip
import tempfile
from types import SimpleNamespace

import numpy as np
import pytest

from heb.data import DataError

pytest.importorskip("duckdb")

from heb.scale import DuckDBEngine, cross_validate, open_source, spark_engine  # noqa: E402
from heb.scale import csv_layout as layouts  # noqa: E402
from heb.scale import csv_scan as s  # noqa: E402
from heb.scale.duckdb_engine import connect  # noqa: E402
from tests.test_scale_csv import _assert_same, _engine, _engine_rows  # noqa: E402


class _Owner:
    """An owner for a copy's finalizer (a SimpleNamespace takes no weak reference)."""


HUGE = "1234567890123456789012345678901234567890123"  # 43 digits: past HUGEINT (~1.7e38)


# ------------------------------------------------------------- csv_scan: the columns
@pytest.mark.parametrize(
    ("data", "column", "expected"),
    [
        # _cells' one-column case numbered its cells 0 (``SELECT 0 AS heb_col``): the only
        # ZIP column, the second, was found to be codes as column 0, so read as integers
        (b"y,zip\np,02134\nq,10001\nr,00501\n", "zip", ["02134", "10001", "00501"]),
        # _unsigned counting a missing cell ('NA') as a signed one (its ``NOT
        # _parse_missing`` dropped): ZIP codes beside NA were read as the numbers 2134, ...
        (b"zip,y\n02134,p\nNA,q\n10001,r\n", "zip", ["02134", None, "10001"]),
        # (and a one-column file's quoted "" line, a missing cell DuckDB reads as '')
        (b'zip\n02134\n""\n10001\n', "zip", ["02134", None, "10001"]),
        # _integer_ranges keeping only columns with a least integer (``row[1] is not
        # None``): integers all past HUGEINT have none, and typing them failed
        (f"x,y\n{HUGE},a\n,b\n".encode(), "x", [HUGE, None]),
    ],
    ids=[
        "one_zip_column_not_first",
        "zip_beside_na",
        "zip_beside_quoted_empty",
        "only_past_hugeint",
    ],
)
def test_one_pass_checks_type_these_columns_as_the_readers(tmp_path, data, column, expected):
    (tmp_path / "t.csv").write_bytes(data)
    kinds, rows = _engine_rows(_engine(tmp_path, "t.csv"))
    assert kinds[column] == "text" and rows[column] == expected
    _assert_same(tmp_path, data)


# -------------------------------------------------------- csv_scan: the row estimate
def test_the_row_estimate_of_a_cr_file_counts_its_cr(tmp_path):
    """``_estimated_rows`` counting line feeds only: a file whose lines end in CR alone
    was estimated at 1 row (a long one would be typed as rows, the slower way)."""
    (tmp_path / "t.csv").write_bytes(b"x,y\r1,a\r2,b\r3,c\r")
    assert layouts.estimated_rows([tmp_path / "t.csv"]) == 4


def test_the_row_estimate_of_a_gzip_file_takes_it_for_a_quarter_of_its_text(tmp_path):
    """The gzip factor 4 as 1. Every line is 16 bytes, so the 1 MiB head holds 65,536 of
    them and the estimate is 65,536 x 4 x (compressed size) / 2**20 = size / 4."""
    lines = ["xxxxxxxxxxx,yyy"] + [f"{i:011d},abc" for i in range(100_000)]
    text = ("\n".join(lines) + "\n").encode()
    assert len(text) == 16 * 100_001 > s.HEAD_BYTES == 2**20
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(text))
    assert layouts.estimated_rows([path]) == path.stat().st_size / 4


def test_the_row_estimate_of_several_files_counts_them_all(tmp_path):
    """Two whole files of 10 lines each: 20, not the first one's 10 (``if whole:`` without
    ``len(files) == 1``, or the estimate divided by the number of files)."""
    data = ("x,y\n" + "".join(f"{i},a\n" for i in range(9))).encode()
    files = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for path in files:
        path.write_bytes(data)
    assert layouts.estimated_rows(files) == 20


def test_a_long_file_read_again_as_utf8_is_still_typed_by_column(tmp_path):
    """_typing_scan's retry after DuckDB's unicode error dropped ``cells_as_rows``: a long
    file with a Windows-1252 byte past its head (read as UTF-8 first, then copied) was
    typed as rows, the slower way for 400,000 rows."""
    lines = ["x,y"] + [f"{i % 97},{'pq'[i % 2]}" for i in range(400_000)] + ["1,r\xe9"]
    (tmp_path / "t.csv").write_bytes(("\n".join(lines) + "\n").encode("cp1252"))
    con = connect(threads=1)
    read_as: list[str] = []
    try:
        files, layout, _, rows, *_ = s._typing_scan(con, [tmp_path / "t.csv"], "t.csv", read_as)
        assert read_as and files[0] != tmp_path / "t.csv"  # the UTF-8 copy
        assert rows == 400_001 and not layout.cells_as_rows
    finally:
        for remove in s.copies_of(con):
            remove()
        con.close()


# --------------------------------------------------------- duckdb_engine.connect
def test_connect_sets_the_memory_limit_threads_and_spill_folder():
    """``connect`` dropping its ``threads`` or its ``memory_limit`` argument (the default
    limit, all cores). DuckDB shows 10**9 bytes as 953.6 MiB (10**9 / 2**20)."""
    con = connect("1GB", threads=1)
    try:
        limit, threads, spill = con.execute(
            "SELECT current_setting('memory_limit'), current_setting('threads'), "
            "current_setting('temp_directory')"
        ).fetchone()
    finally:
        con.close()
    assert (limit, threads) == ("953.6 MiB", 1)
    assert spill.replace("\\", "/").endswith("/heb_duckdb_spill")


# ------------------------------------------------------- counting: the target check
def test_a_float_target_s_nan_is_no_value_of_the_target(tmp_path):
    """target_values_query without ``WHERE present(target)``: a parquet float target's
    NaN (a missing target, as in memory) was counted as a 21st decimal value, so a target
    of 20 decimal classes (CONTINUOUS_TARGET_VALUES, accepted) was refused as a
    measurement. Every 7th of 120 rows is NaN (18 rows, each value keeping 5 or 6)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 120
    target = (np.arange(rows) % 20) + 0.5
    target[::7] = np.nan
    assert len(np.unique(target[~np.isnan(target)])) == 20
    table = pa.table(
        {
            "a": pa.array(np.array(list("abc"))[np.arange(rows) % 3]),
            "target": pa.array(target, from_pandas=False),  # NaN, not null
        }
    )
    pq.write_table(table, tmp_path / "t.parquet")
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source("t.parquet", root=tmp_path))
        assert dict(engine.columns())["target"] == "float"
        (nan,) = engine.table("SELECT count(*) FROM heb_rows WHERE isnan(target)").column(0)
        assert nan.as_py() == 18
        result = cross_validate(engine, "target", ["Laplace"], n_splits=3)
    finally:
        engine.close()
    assert result.n_rows == 102


# ------------------------------------------------ spark_engine: no Java needed here
def test_only_a_local_master_is_local():
    """``_is_local``: a Spark Connect session (whose sparkContext raises) is not local
    (mutant: ``return True`` there), nor a cluster; ``local`` and ``local[2]`` are."""

    class Connect:
        @property
        def sparkContext(self):
            raise RuntimeError("not supported in Spark Connect")

    assert not spark_engine._is_local(Connect())
    for master, local in [("local", True), ("local[2]", True), ("spark://h:7077", False)]:
        assert (
            spark_engine._is_local(SimpleNamespace(sparkContext=SimpleNamespace(master=master)))
            is local
        )


@pytest.fixture
def temp(tmp_path, monkeypatch):
    """A temporary folder of its own, so the copies made can be counted."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    (tmp_path / "a.csv").write_text("zip,y\n02134,p\n10001,q\n")
    (tmp_path / "b.csv").write_text("zip,y\n00501,p\n10001,q\n")
    return folder


def test_a_duckdb_error_typing_the_copy_removes_its_folder(tmp_path, temp, monkeypatch):
    """_typed_parquet's ``except duckdb.Error`` without ``remove()``: a COPY that DuckDB
    refuses left the private folder behind (until exit)."""
    monkeypatch.setattr(
        s, "csv_scan", lambda con, files, label: ("SELECT * FROM nowhere", {}, [], [])
    )
    owner = _Owner()
    with pytest.raises(DataError, match=r"^DuckDB could not type 'a.csv' for Spark: ") as info:
        spark_engine._typed_parquet(owner, open_source("a.csv", root=tmp_path))
    assert "\n" not in str(info.value)
    assert not list(temp.glob("heb_spark_csv_*"))


def _stand_in(monkeypatch) -> spark_engine.SparkEngine:
    """A Spark engine on a stand-in local session whose frames are stubs."""
    session = SimpleNamespace(sparkContext=SimpleNamespace(master="local[1]"), stop=lambda: None)
    engine = spark_engine.SparkEngine(session=session)
    frame = SimpleNamespace(
        createOrReplaceTempView=lambda view: None, schema=SimpleNamespace(fields=[])
    )
    monkeypatch.setattr(engine, "_frame", lambda source, copy, renamed: frame)
    return engine


def test_a_view_spark_cannot_make_keeps_the_live_copy_and_drops_its_own(
    tmp_path, temp, monkeypatch
):
    """register's failure path without ``typed()`` (the new copy left behind), and the
    replaced view's copy removed before the new view exists (the live view's file gone
    when Spark cannot read the new one)."""
    engine = _stand_in(monkeypatch)
    engine.register(open_source("a.csv", root=tmp_path))
    (live,) = temp.glob("heb_spark_csv_*")

    def refuse(source, copy, renamed):
        raise DataError("Spark could not read 'b.csv': no.")

    monkeypatch.setattr(engine, "_frame", refuse)
    with pytest.raises(DataError, match="no"):
        engine.register(open_source("b.csv", root=tmp_path))
    assert list(temp.glob("heb_spark_csv_*")) == [live]
    assert (live / "rows.parquet").is_file()
    engine.close()
    assert not list(temp.glob("heb_spark_csv_*"))


def test_the_typed_copy_keeps_each_row_s_key_in_the_file_s_order(tmp_path, temp):
    """Each row's key is its line's place in the file, for a file DuckDB scans in
    parallel (400,000 rows, several row groups, 2 threads) whose first cell is its
    line's number: the Spark test's 300 rows are one chunk. (With
    ``preserve_insertion_order = false`` DuckDB 2.0.1 still kept the order here, so this
    guards the property; it did not kill that mutant.)"""
    n = 400_000
    lines = ["i,y"] + [f"{i},{'pq'[i % 2]}" for i in range(1, n + 1)]
    (tmp_path / "big.csv").write_text("\n".join(lines) + "\n")
    owner = _Owner()  # (the copy lives as long as its owner)
    remove, copy, renamed, notes, amounts = spark_engine._typed_parquet(
        owner, open_source("big.csv", root=tmp_path)
    )
    con = connect(threads=2)
    try:
        (mismatched, rows) = con.execute(
            f"SELECT count(*) FILTER (WHERE i <> __heb_row), count(*) FROM '{copy}'"
        ).fetchone()
    finally:
        con.close()
        remove()
    assert (mismatched, rows) == (0, n) and (renamed, notes, amounts) == ({}, [], [])
    assert not list(temp.glob("heb_spark_csv_*"))


def test_a_refused_file_s_utf8_copy_is_removed_before_the_error_is_seen(tmp_path, temp):
    """_typed_parquet without its ``finally`` removing the UTF-8 copies: the copy went
    with the DuckDB connection only once that was collected, and a raised error's
    traceback keeps it alive (an app shows the error while the copy stays on disk)."""
    (tmp_path / "bad.csv").write_bytes("colour,y\nr\xe9d,p\nblue,q,extra\n".encode("cp1252"))
    with pytest.raises(DataError, match="Line 3 of 'bad.csv' has 3 values") as info:
        spark_engine._typed_parquet(_Owner(), open_source("bad.csv", root=tmp_path))
    assert info.value.__traceback__ is not None  # (the frames that hold the connection)
    assert not list(temp.glob("heb_csv_utf8/*"))
    assert not list(temp.glob("heb_spark_csv_*"))
