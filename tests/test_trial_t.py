"""Trial T: large delimited text exports (semicolons, Windows-1252, quoted line breaks).

An analyst's CSV exports from a legacy system, read in memory, on DuckDB and on Spark:
each file's rows and every value's category must be the same on every path.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

from heb.data.readers import read_table
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.profile import describe_source
from heb.scale.source import open_source
from tests.peers import require_spark

#: a table wide enough that pandas' C parser types its rows in several chunks (about
#: 2**20 / columns rows each): 64 columns, 20,000 rows, 2.6 MB
WIDTH, ROWS = 64, 20_000


def _chunked_mixed_csv() -> bytes:
    """A column of decimals written ``0.50``, ``1.50``, ``2.50`` with one text cell in
    the first chunk of rows, so the chunks type that column differently."""
    rest = ",0" * (WIDTH - 2)
    header = ",".join(f"c{j}" for j in range(WIDTH - 1)) + ",label\n"
    body = "".join(f"{i % 3}.50{rest},{'ab'[i % 2]}\n" for i in range(ROWS))
    return (header + "x" + rest + ",a\n" + body).encode()


def test_a_value_is_one_category_however_the_parser_chunks_the_file(tmp_path):
    """pandas' C parser typed each chunk of rows on its own: '1.50' stayed text in the
    chunk holding 'x' and became 1.5 in the next, so one value was two categories in
    memory (7 values where DuckDB and the file have 4), with a DtypeWarning the CLI
    printed as 'heb: note: Columns (0: 0) have mixed types. Specify dtype option ...'."""
    data = _chunked_mixed_csv()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = read_table(data, "export.csv", 1 << 30)
    assert len(table) == ROWS + 1
    counts = table["c0"].astype(str).value_counts()
    assert sorted(counts.index) == ["0.50", "1.50", "2.50", "x"]
    assert counts["1.50"] == (ROWS + 1) // 3
    (tmp_path / "export.csv").write_bytes(data)
    engine = DuckDBEngine()
    engine.register(open_source("export.csv", root=tmp_path))
    described = describe_source(engine, "label").set_index("feature")
    assert described.loc["c0", "K"] == table["c0"].nunique() == 4


def _legacy_export(path) -> pd.DataFrame:
    """A Windows-1252, ``;``-separated file with CRLF line ends whose quoted fields hold
    the delimiter, a doubled quote and a line break (and a euro sign, byte 0x80)."""
    products = ["caf\xe9\nth\xe9", 'dit "sp\xe9cial"', "livres; revues", "5 \u20ac", "autre"]
    frame = pd.DataFrame(
        {
            "R\xe9gion": [f"r{i % 4}" for i in range(300)],
            "Cat\xe9gorie produit": [products[i % 5] for i in range(300)],
            "R\xe9sultat": ["oui" if i % 3 else "non" for i in range(300)],
        }
    )
    frame.to_csv(path, sep=";", index=False, encoding="cp1252", lineterminator="\r\n")
    return frame


@pytest.fixture(scope="module")
def spark_engine():
    require_spark()
    from heb.scale.spark_engine import SparkEngine

    engine = SparkEngine(master="local[1]")
    engine.spark.sparkContext.setLogLevel("ERROR")
    yield engine
    engine.close()


def test_spark_reads_a_windows_1252_export_with_quoted_line_breaks_row_for_row(
    spark_engine, tmp_path
):
    """Spark refused the file ('[INVALID_PARAMETER_VALUE.CHARSET] ... expects one of
    the iso-8859-1, ... but got cp1252'), and, read as UTF-8, split each quoted line
    break into two rows and dropped both (166,589 of 200,000 rows of a trial's file),
    without a word; it now counts each row once, with the values DuckDB reads."""
    frame = _legacy_export(tmp_path / "export.csv")
    spark_engine.register(open_source("export.csv", root=tmp_path))
    duck = DuckDBEngine()
    duck.register(open_source("export.csv", root=tmp_path))
    query = 'SELECT "Cat\xe9gorie produit" AS v, count(*) AS n FROM heb_rows GROUP BY 1 ORDER BY 1'
    expected = frame["Cat\xe9gorie produit"].value_counts().sort_index()
    for engine in (spark_engine, duck):
        if engine is spark_engine:
            query = query.replace('"', "`")
        table = engine.table(query).to_pandas()
        assert table["v"].tolist() == expected.index.tolist()
        assert table["n"].tolist() == expected.tolist()
    counts = describe_source(spark_engine, "R\xe9sultat").set_index("feature")
    assert counts.loc["Cat\xe9gorie produit", "rows"] == len(frame)
    assert counts.loc["Cat\xe9gorie produit", "K"] == 5


def test_the_engine_says_what_reading_a_csv_decided_as_the_in_memory_loader_does(tmp_path):
    """The in-memory run said the file was read as Windows-1252, that ZIP codes written
    with a leading zero are text and that a column of amounts with a malformed cell is
    categorical; the DuckDB run (CLI and app) read the file the same way without a word,
    so a numeric column turned into 41,556 categories unexplained."""
    from heb.data.uploads import load_upload
    from heb.scale.profile import summarise_source

    lines = ["Code postal;Montant;Pays;R\xe9sultat"]
    lines += [f"0{1000 + i % 40};{i % 9}.5;FR;{'oui' if i % 3 else 'non'}" for i in range(120)]
    lines[7] = "01007;12,5x;FR;oui"
    data = "\r\n".join(lines).encode("cp1252") + b"\r\n"
    (tmp_path / "export.csv").write_bytes(data)
    in_memory = load_upload(data, "export.csv").notes
    engine = DuckDBEngine()
    engine.register(open_source("export.csv", root=tmp_path))
    expected = [
        "The file is not UTF-8, so it was read as Windows-1252 (Western European).",
        "Column 'Code postal' holds codes written with a leading zero such as '01000', so it "
        "is read as text, as written: each value is a category of its own.",
        "Column 'Montant' mixes numbers and text such as '12,5x', so it is treated as categorical.",
    ]
    assert engine.notes == expected
    assert set(expected) <= set(in_memory)
    # and, from the counts, the column of one value, as the in-memory loader names it
    single = "Column 'Pays' has a single value, so it cannot help the prediction (kept)."
    assert single in in_memory
    assert summarise_source(engine, "R\xe9sultat").notes == [*expected, single]
    utf8 = DuckDBEngine()  # a plain UTF-8 file of numbers: nothing to say
    (tmp_path / "plain.csv").write_text("a,b,y\n1,2.5,p\n3,4.5,q\n")
    utf8.register(open_source("plain.csv", root=tmp_path))
    assert utf8.notes == []


#: a DuckDB query of minutes (10^12 rows summed) unless it is interrupted
SLOW_QUERY = "SELECT sum(i * random()) AS s FROM range(1000000000000) t(i)"


def _cp1252_csv(path, rows: int = 200) -> None:
    lines = ["R\xe9gion;R\xe9sultat"] + [f"\xcele {i % 3};{'ab'[i % 2]}" for i in range(rows)]
    path.write_bytes("\r\n".join(lines).encode("cp1252"))


def test_cancel_stops_a_csv_while_it_is_opened(tmp_path, monkeypatch):
    """The app's scan made its engine only once the file was registered, so Cancel could
    not stop a CSV's typing scan or UTF-8 copy: cancelled 3 s into a 6 x 10^6-row file,
    the page said so 8.5 s later (its bar read 'Starting DuckDB' throughout)."""
    from explorer import large_files as lf
    from heb.scale import csv_scan as scan_module

    _cp1252_csv(tmp_path / "export.csv")
    typing = scan_module.column_kinds

    def slow_typing(con, scan, layout):  # the typing scan of a very large file
        con.execute(SLOW_QUERY).fetchall()
        return typing(con, scan, layout)

    monkeypatch.setattr(scan_module, "column_kinds", slow_typing)
    scan = lf.Scan("open", lambda engine, report: None, "export.csv", str(tmp_path))
    time.sleep(1.0)
    assert not scan.done.is_set()
    assert scan.view()[1].startswith("Opening the file on DuckDB")
    scan.cancel()
    assert scan.done.wait(5.0), "the file's typing scan did not stop within 5 s"
    assert scan.was_cancelled


def test_a_csv_s_utf8_copy_stops_when_asked_and_is_deleted_with_its_engine(tmp_path):
    """A Windows-1252 file is read from a UTF-8 copy, which an app server kept on disk
    for every scan of the file (the copy was deleted only when its connection was
    garbage collected, and a finished scan keeps its engine): 3 scans of a 317 MB file
    left 0.9 GB in the temporary folder."""
    import duckdb

    from heb.scale.csv_scan import csv_scan

    _cp1252_csv(tmp_path / "export.csv")
    with pytest.raises(InterruptedError):
        csv_scan(duckdb.connect(), [tmp_path / "export.csv"], "export.csv", stop=lambda: True)
    engine = DuckDBEngine()
    source = open_source("export.csv", root=tmp_path)
    engine.register(source)
    first = _copies(engine)
    assert len(first) == 1 and first[0].is_file()
    engine.register(source)  # registered again: the earlier copy is no longer read
    second = _copies(engine)
    assert not first[0].exists() and second[0].is_file()
    assert engine.table("SELECT count(*) AS n FROM heb_rows").column("n").to_pylist() == [200]
    engine.close()
    assert not second[0].exists()


def _copies(engine) -> list[Path]:
    """The UTF-8 copies of the engine's connection that still exist."""
    from heb.scale.csv_scan import copies_of

    return [remove.peek()[1].__self__ for remove in copies_of(engine._con) if remove.alive]


def test_the_typing_scan_leaves_the_optimizer_on_for_the_counting(tmp_path):
    """The typing scan runs without DuckDB's optimizer (it only rewrote the scan's one CASE
    tree per column, 40 % of the query at 100 columns); every later query has it back."""
    frame = pd.DataFrame({f"c{i}": [" 1", "2", "NA", "x"] * 5 for i in range(12)})
    frame["y"] = ["a", "b"] * 10
    frame.to_csv(tmp_path / "wide.csv", index=False)
    engine = DuckDBEngine()
    engine.register(open_source("wide.csv", root=tmp_path))
    [(on,)] = engine._con.execute("SELECT current_setting('enable_optimizer')").fetchall()
    assert on is True
    assert engine.table("SELECT count(*) AS n FROM heb_rows")["n"].to_pylist() == [20]
