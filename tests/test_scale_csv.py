"""CSV files on the DuckDB engine read as the app's in-memory reader reads them.

Each case writes a small CSV, reads it with :func:`heb.data.readers.read_table` and through
:class:`~heb.scale.duckdb_engine.DuckDBEngine` (``heb.scale.csv_scan``), and compares the
columns (names, text / number / boolean kind) and every cell.
"""

from __future__ import annotations

import codecs
import gc
import gzip
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heb.data import DataError
from heb.data.readers import read_table
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import open_source

pytest.importorskip("duckdb")


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(memory_limit="256MB", threads=1)
    engine.register(open_source(name, root=root))
    return engine


def _kind(dtype) -> str:
    name = str(dtype).lower()
    if name in ("bool", "boolean"):
        return "bool"
    return "text" if name in ("object", "str", "string") else "number"


def _cell(value):
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str):
        return value
    return int(value) if float(value).is_integer() and abs(value) >= 2**53 else float(value)


def _engine_rows(engine) -> tuple[dict, dict]:
    """Each column's kind and cells, by the names the engine reports."""
    names = [name for name, _ in engine.columns()]
    described = engine._con.execute("DESCRIBE heb_rows").fetchall()
    types = [row[1] for row in described if row[0] not in ("__heb_file", "__heb_row")]
    table = engine.table(
        "SELECT * EXCLUDE (__heb_file, __heb_row) FROM heb_rows ORDER BY __heb_row"
    )
    kinds = {
        name: {"BOOLEAN": "bool", "VARCHAR": "text"}.get(t, "number")
        for name, t in zip(names, types, strict=True)
    }
    rows = {name: table.column(i).to_pylist() for i, name in enumerate(names)}
    return kinds, rows


def _assert_same(tmp_path, data: bytes, name: str = "t.csv") -> None:
    (tmp_path / name).write_bytes(data)
    reference = read_table(data, name)
    kinds, rows = _engine_rows(_engine(tmp_path, name))
    assert list(rows) == list(reference.columns)
    for column in reference.columns:
        assert kinds[column] == _kind(reference[column].dtype), column
        expected = [_cell(v) for v in reference[column].tolist()]
        assert [_cell(v) for v in rows[column]] == expected, column


def _one_sentence(message: str) -> None:
    message = message.replace("; ", " ")
    assert message.count(". ") == 0 and message.endswith(".") and "\n" not in message, message


CASES = {
    "na_tokens": b"x,y\n1,a\nNA,b\n ?,c\nN/A,NA\nnull,d\n#N/A,e\n<NA>,f\n,g\n",
    "trailing_space_na_makes_text": b"x,y\n1,a\nNA ,b\n2,c\n",
    "quoted_na_and_empty": b'x,y\n"NA",a\n"",b\n3,""\n',
    "spaces_stripped": "x,y\n red,1\nblue ,2\n\u00a0red\u3000,3\n\tred,4\n".encode(),
    "numbers_pandas_reads": b"x,y\n1.,a\n.5,b\n1e5,c\n-2E-3,d\ninf,e\n-Infinity,f\n+4,g\n",
    "numbers_pandas_does_not_read": b"x,y,z,w\n1_000,0x10,NAN,1e\n2,3,4,5\n",
    "spaces_around_numbers": b"x,y\n 1 ,a\n\t2\t,b\n3,c\n",
    "nbsp_number_is_text": "x,y\n\u00a012,a\n2,b\n".encode(),
    "ints_with_missing_are_floats": b"x,y\n1,a\n,b\n3,c\n",
    "int64_exact_beside_missing": b"x,y\n9007199254740993,a\n,b\n9007199254740992,c\n",
    "int64_exact": b"x,y\n9007199254740993,a\n9007199254740992,b\n",
    "uint64": b"x,y\n18446744073709551615,a\n2,b\n",
    "past_uint64_is_text": b"x,y\n99999999999999999999999,a\n+007,b\n-0,c\n,d\n",
    "uint64_and_negative_is_text": b"x,y\n18446744073709551615,a\n-3,b\n",
    "booleans": b"x,y\ntrue,a\nFALSE,b\n True,c\n",
    "booleans_with_missing_are_text": b"x,y\ntrue,a\nFALSE,b\n,c\n",
    "yes_no_stays_text": b"x,y\nyes,a\nno,b\n",
    "decimal_commas": b"x;y;z\n12,5;a;1,5\n1.234,5;b;foo\n1.234;c;2\nNA ;d;3\n",
    "decimal_point_in_semicolon_file": b"x;y\n1.5;a\n2.25;b\n",
    "comma_number_in_comma_file_is_text": b'x,y\n"12,5",a\n"3,25",b\n',
    "crlf": b"x,y\r\n1,a\r\n2,b\r\n",
    "cr_only": b"x,y\r1,a\r2,b\r",
    "quoted_line_break_and_short_row": b'x,y,z\n"a\nb",1,2\nc,3\nd,4,5\n',
    "blank_and_space_lines": b"x,y\n1,a\n\n   \n2,b\n",
    "short_rows": b"x,y,z\n1,a,2\n3\n4,b,5\n",
    "empty_and_duplicate_names": b",x,x\n1,2,3\n4,5,6\n",
    "names_equal_but_for_case": b"Colour,colour,y\na,b,1\nc,d,2\n",
    "blank_lines_before_header": b"\n\nx,y\n1,a\n",
    "bom": b"\xef\xbb\xbfx,y\n1,a\n",
    "tsv": b"x\ty\n1,5\ta\n2\tb\n",
    "pipe": b"x|y\n1|a\n2|b\n",
    "utf16": "x,y\ncaf\u00e9,\u20ac\n".encode("utf-16"),
    # ZIP codes: digit strings, one with a leading zero, stay text as written
    "leading_zero_codes": b"zip,y\n02134,a\n 90210 ,b\n,c\n00501,d\n",
    "leading_zero_codes_quoted": b'zip,y\n"02134",a\n12345,b\n',
    "leading_zero_long_codes": b"id,y\n0123456789012345678,a\n99,b\n",
    "just_zero_is_a_number": b"x,y\n0,a\n10,b\n",
    "leading_zero_beside_a_sign_is_a_number": b"x,y\n0123,a\n+5,b\n",
    "leading_zero_beside_a_negative_is_a_number": b"x,y\n0123,a\n-5,b\n",
    "leading_zero_beside_a_decimal_is_a_number": b"x,y\n0123,a\n2.5,b\n",
    "leading_zero_beside_text_is_text": b"x,y\n0123,a\nabc,b\n",
    "leading_zero_with_semicolons": b"x;y\n0123;a\n45;b\n",
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_csv_reads_as_the_in_memory_reader_reads_it(tmp_path, case):
    _assert_same(tmp_path, CASES[case], "t.tsv" if case == "tsv" else "t.csv")


def test_the_whitespace_stripped_is_pythons():
    from heb.scale.csv_cells import _UNICODE_SPACE

    assert _UNICODE_SPACE == "".join(c for c in map(chr, range(0x110000)) if c.isspace())


def _view_sql(engine) -> str:
    return engine._con.execute(
        "SELECT sql FROM duckdb_views() WHERE view_name = 'heb_rows'"
    ).fetchone()[0]


def test_windows_1252_is_read_from_a_utf8_copy_deleted_with_the_engine(tmp_path):
    data = "x,y\ncaf\u00e9 \u20ac,\u2019a\u2019\nth\u00e9,b\n".encode("cp1252")
    _assert_same(tmp_path, data)
    engine = _engine(tmp_path, "t.csv")
    copy = Path(_view_sql(engine).split("read_csv(list_value('")[1].split("'")[0])
    assert copy.parent.name == "heb_csv_utf8" and copy.exists()
    engine.close()
    del engine
    gc.collect()
    assert not copy.exists()


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_a_utf8_bom_before_windows_1252_text_is_not_the_first_columns_name(tmp_path, encoding):
    """A file saved as UTF-8 with a BOM, then edited by a Windows-1252 tool: its first
    column was named "\u00ef\u00bb\u00bfville" in memory and on DuckDB, so `--drop ville` was
    refused ("not a column of the file")."""
    body = "ville,r\u00e9sultat\nMontr\u00e9al,oui\nQu\u00e9bec,non\n".encode("cp1252")
    tail = b"b\x81c,non\n" if encoding == "latin-1" else b""  # 0x81: Latin-1 throughout
    _assert_same(tmp_path, codecs.BOM_UTF8 + body + tail)
    assert [name for name, _ in _engine(tmp_path, "t.csv").columns()] == ["ville", "r\u00e9sultat"]


def test_a_byte_windows_1252_leaves_undefined_means_latin1(tmp_path):
    _assert_same(tmp_path, "x,y\ncaf\u00e9,a\n".encode("latin-1") + b"b\x81c,d\n")


def test_a_gzip_csv(tmp_path):
    data = b"x,y\n red,1\nNA,2\nblue,3\n"
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(data))
    kinds, rows = _engine_rows(_engine(tmp_path, "t.csv.gz"))
    assert rows == {"x": ["red", None, "blue"], "y": [1, 2, 3]}
    assert kinds == {"x": "text", "y": "number"}


@pytest.mark.parametrize("name", ["t.tsv.gz", "t.tab", "t.txt", "t.txt.gz"])
def test_the_engine_takes_the_delimited_text_an_upload_takes(tmp_path, name):
    """It took .csv, .csv.gz and .tsv only: a .tsv.gz or .txt read in memory was refused as
    "neither parquet nor CSV"."""
    sep = "\t" if ".tsv" in name or ".tab" in name else ","
    data = f"x{sep}y\n red{sep}1\nNA{sep}2\nblue{sep}3\n".encode()
    (tmp_path / name).write_bytes(gzip.compress(data) if "gz" in name else data)
    kinds, rows = _engine_rows(_engine(tmp_path, name))
    assert rows == {"x": ["red", None, "blue"], "y": [1, 2, 3]}
    assert kinds == {"x": "text", "y": "number"}


def test_an_arff_file_is_sent_to_the_in_memory_readers(tmp_path):
    (tmp_path / "t.arff").write_text("@relation t\n@attribute x {a,b}\n@data\na\n")
    with pytest.raises(DataError, match="ARFF, which is read in memory only") as info:
        _engine(tmp_path, "t.arff")
    _one_sentence(str(info.value))


def test_text_after_duckdbs_type_sample_makes_the_column_text(tmp_path):
    lines = ["x,y"] + [f"{i % 40},{'pq'[i % 2]}" for i in range(25_000)] + ["unknown,p"]
    _assert_same(tmp_path, ("\n".join(lines) + "\n").encode())


def test_plain_columns_are_read_typed_by_duckdb_and_the_others_as_text(tmp_path):
    (tmp_path / "t.csv").write_bytes(b"a,b,c,d\n1,1.5,x,NA \n2,,y,2\n")
    engine = _engine(tmp_path, "t.csv")
    scan = _view_sql(engine)
    assert "c0 := 'BIGINT'" in scan and "c1 := 'DOUBLE'" in scan and "c3 := 'VARCHAR'" in scan
    assert dict(engine.columns()) == {"a": "integer", "b": "float", "c": "text", "d": "text"}


REFUSALS = {
    "empty": (b"", "is empty"),
    "header_only": (b"x,y\n", "header row but no data rows"),
    "binary": (b"x,y\n\x00\x01\x02\x03\x00\x00", "binary data"),
    "utf16_big_endian": ("x,y\na,b\n".encode("utf-16-be").join([b"\xfe\xff", b""]), "UTF-8"),
    "ragged": (b"x,y\na,1\nb,2\nc,3,4\n", "Line 4 of 't.csv' has 3 values but the header has 2"),
    "unclosed_quote": (b'x,y\na,1\n"b,2\nc,3\n', "Line 3 of 't.csv' opens a quote"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_an_unreadable_csv_is_refused_in_one_sentence(tmp_path, case):
    data, expected = REFUSALS[case]
    (tmp_path / "t.csv").write_bytes(data)
    with pytest.raises(DataError) as info:
        _engine(tmp_path, "t.csv")
    assert expected in str(info.value)
    _one_sentence(str(info.value))


#: columns of every kind the typing tells apart (each 8 cells; commas only in the ';' file)
WIDE_COLUMNS = [
    ["1", "-2", "3", "4", "5", "6", "7", "8"],
    ["1", "", "NA", "4", " ?", "6", "7", "8"],
    ["1.5", ".5", "1e5", "-2E-3", "inf", "2", "3", "4"],
    ["red", " blue ", "red\u3000", "\tred", "x", "NA ", "y", "z"],
    ["02134", " 90210 ", "", "00501", "12345", "01234", "00000", "99999"],
    ["0123", "+5", "1", "2", "3", "4", "5", "6"],
    ["0123", "-5", "1", "2", "3", "4", "5", "6"],
    ["0123", "2.5", "1", "2", "3", "4", "5", "6"],
    ["0123456789012345678", "99", "1", "2", "3", "4", "5", "6"],
    ["9007199254740993", "", "9007199254740992", "1", "2", "3", "4", "5"],
    ["9007199254740993", "9007199254740992", "1", "2", "3", "4", "5", "6"],
    ["18446744073709551615", "2", "1", "2", "3", "4", "5", "6"],
    ["99999999999999999999999", "+007", "-0", "", "1", "2", "3", "4"],
    ["18446744073709551615", "-3", "1", "2", "3", "4", "5", "6"],
    ["true", "FALSE", " True", "false", "true", "true", "false", "TRUE"],
    ["true", "FALSE", "", "false", "true", "true", "false", "TRUE"],
    ["1", "2", "abc", "4", "5", "6", "7", "8"],
    [" 1 ", "\t2\t", "3", "4", "5", "6", "7", "8"],
    ["\u00a012", "2", "3", "4", "5", "6", "7", "8"],
    ["NA", "", "null", "", "NA", "", "#N/A", ""],
]
COMMA_COLUMNS = [
    ["12,5", "1.234,5", "1.234", "NA ", "3", "4", "5", "6"],
    ["1,5", "foo", "2", "3", "4", "5", "6", "7"],
    ["1.5", "2.25", "3", "4", "5", "6", "7", "8"],
]


def _wide_csv(columns: list, sep: str, copies: int) -> bytes:
    """The columns repeated ``copies`` times side by side, a line of spaces among the rows."""
    cells = [column for _ in range(copies) for column in columns]
    lines = [sep.join(f"v{j}" for j in range(len(cells)))]
    lines += [sep.join(column[r] for column in cells) for r in range(4)] + ["   "]
    lines += [sep.join(column[r] for column in cells) for r in range(4, 8)]
    return ("\n".join(lines) + "\n").encode()


def _integer_checks_per_column(con, scan: str, n: int) -> tuple[set, dict]:
    """Each column's signed cells and integer range, one query per column (as they were)."""
    from heb.scale import csv_cells as cells

    unsigned, spans = set(), {}
    for i in range(n):
        raw = f"c{i}"
        number = cells.number_text(raw)
        value = f"TRY_CAST({number} AS HUGEINT)"
        integer = f"{cells.matches(number, cells.INT)} AND NOT {cells.parse_missing(raw)}"
        signed, *span = con.execute(
            f"SELECT count(*) FILTER (WHERE NOT {cells.parse_missing(raw)} AND NOT "
            f"{cells.matches(number, cells.DIGITS)}), min({value}) FILTER (WHERE {integer}), "
            f"max({value}) FILTER (WHERE {integer}), "
            f"count(*) FILTER (WHERE {integer} AND {value} IS NULL) FROM {scan}"
        ).fetchone()
        if signed == 0:
            unsigned.add(i)
        spans[i] = tuple(span)
    return unsigned, spans


@pytest.mark.parametrize("sep", [",", ";"])
def test_the_typing_of_every_column_at_once_is_the_typing_column_by_column(tmp_path, sep):
    """Typing a wide CSV named each column's cell-kind expression in one query (4 kB of SQL
    a column, which DuckDB parsed and bound longer than it ran it: 30 s for 1,500 columns)
    and ran one query per column of codes or long integers. Now a file of few rows has its
    cells typed as rows, one expression for all columns, and those checks run once for
    all: the kinds, the codes, the integer ranges and the values read are the same."""
    from dataclasses import replace

    import duckdb

    from heb.scale import csv_cells as cells
    from heb.scale import csv_layout as layouts
    from heb.scale import csv_scan as s
    from heb.scale import csv_typing as ct

    columns = WIDE_COLUMNS + (COMMA_COLUMNS if sep == ";" else [])
    if sep == ";":  # past uint64 the readers' decimal-comma pass reads floats, the engine text
        columns = [c for c in columns if c[0] != "99999999999999999999999"]
    data = _wide_csv(columns, sep, 3)
    (tmp_path / "t.csv").write_bytes(data)
    con = duckdb.connect()
    layout = s.csv_layout(tmp_path / "t.csv")
    assert len(layout.names) == 3 * len(columns)
    assert layouts.estimated_rows([tmp_path / "t.csv"]) == 10  # the header, 8 rows and a blank
    scan = layouts.read_csv([tmp_path / "t.csv"], layout)
    found = ct.column_kinds(con, scan, layout)
    assert found == ct.column_kinds(con, scan, replace(layout, cells_as_rows=False))
    assert found[:2] == (8, 1) and len(set(found[2])) > 10  # many kinds, one blank line
    codes, spans = ct.integer_checks(con, scan, found[2])
    unsigned, every_span = _integer_checks_per_column(con, scan, len(layout.names))
    integers = (cells.MISSING, cells.SMALL, cells.LONG, cells.ZERO)
    zeros = [
        i
        for i, k in enumerate(found[2])
        if k & (1 << cells.ZERO) and cells.only_kinds(k, *integers)
    ]
    assert codes == unsigned & set(zeros) and len(codes) == 6  # ZIPs and long codes, x 3
    assert spans and spans == {i: every_span[i] for i in spans}
    # a code column with a sign, and integers of 16 digits or more
    long = WIDE_COLUMNS[5:7] + WIDE_COLUMNS[9:14]
    wide = {j for j, c in enumerate(columns) if any(c is w for w in long)}
    assert {i % len(columns) for i in spans} == wide and len(wide) == (7 if sep == "," else 6)
    _assert_same(tmp_path, data)


def test_a_file_of_many_rows_is_typed_column_by_column(tmp_path):
    """Cells typed as rows cost 40 ns more a cell than a query per column: a file estimated
    (from its head) to hold many rows is typed by column (1.5 x 10^6 x 10: 3.7 s, not 3.1)."""
    from dataclasses import replace

    import duckdb

    from heb.scale import csv_layout as layouts
    from heb.scale import csv_scan as s
    from heb.scale import csv_typing as ct

    lines = ["x,y"] + [f"{i % 97},{'pq'[i % 2]}" for i in range(150_000)]
    data = ("\n".join(lines) + "\n").encode()
    (tmp_path / "t.csv").write_bytes(data * 3)  # past the head: its size tells
    estimate = layouts.estimated_rows([tmp_path / "t.csv"])
    assert abs(estimate - 450_003) < 0.02 * 450_003
    con = duckdb.connect()
    _, layout, scan, *found = s._typing_scan(con, [tmp_path / "t.csv"], "t.csv", [])
    assert not layout.cells_as_rows
    assert found[:2] == [450_002, 0]  # the copies' headers are rows
    assert tuple(found) == ct.column_kinds(con, scan, replace(layout, cells_as_rows=True))
