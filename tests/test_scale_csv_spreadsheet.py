"""A spreadsheet's CSV on the DuckDB engine read as the readers read it (trial Z).

The readers (:func:`heb.data.text_columns.tidy_text_columns`) read a column of percentages
(``12%``; ``12,5%`` in a semicolon file) as the numbers before the sign and, in a
comma-separated file, a column of numbers with thousands separators (``852`` beside
``"1,275"``) as numbers, each with a note, and name a column of more than 20 different
dates. The large-file path (:func:`heb.scale.csv_scan.csv_scan`) read all three as
categories without a word. Each case compares the engine's columns, their families, every
value and the notes with the readers'.
"""

from __future__ import annotations

import datetime

import pytest

from heb.data import DataError
from heb.data.readers import read_table
from heb.scale.source import open_source
from tests.test_scale_csv import _cell, _engine, _engine_rows, _kind, _wide_csv

pytest.importorskip("duckdb")


def _family(dtype) -> str:
    """The engine's family for a column the readers typed ``dtype``."""
    kind = _kind(dtype)
    if kind != "number":
        return "text"
    return "integer" if str(dtype).lower() in ("int64", "uint64", "int64[pyarrow]") else "float"


def _dates(days: int, rows: int = 60, fmt: str = "%m/%d/%Y") -> list[str]:
    first = datetime.date(2024, 6, 1)
    return [(first + datetime.timedelta(days=r % days)).strftime(fmt) for r in range(rows)]


def _csv(sep: str, **columns: list[str]) -> bytes:
    rows = zip(*columns.values(), strict=True)
    return (sep.join(columns) + "\n" + "".join(sep.join(r) + "\n" for r in rows)).encode()


CASES = {
    # a spreadsheet's first line naming the separator (Excel writes and reads it)
    "separator_line_semicolon": b"sep=;\na;b;class\n1,5;x;yes\n2,5;y;no\n3,0;x;yes\n",
    "separator_line_crlf": b"sep=;\r\na;rate;class\r\n1;12%;yes\r\n2;3%;no\r\n",
    "separator_line_upper_comma": b"SEP=,\nid;x,y\n1;2,a\n3;4,b\n",
    "separator_line_tab": b"sep=\t\na\tb\n1\tx\n2\ty\n",
    # percentages: integers (int64 as pandas reads them), decimals, a space, a sign, missing
    "percent_whole": b"rate,y\n12%,a\n+3%,b\n-0%,c\n100 %,d\n",
    "percent_decimal_and_missing": b"rate,y\n12%,a\n 12.5 %,b\n.5%,c\nNA,d\n12.%,e\n,f\n",
    "percent_two_columns": b"a,b,y\n12%,1%,p\n13%,2.5%,q\n",
    "percent_nbsp_stripped": "rate,y\n\u00a012%,a\n3%\u3000,b\n".encode(),
    # a percentage with a decimal comma only in a semicolon file, a point only elsewhere
    "percent_decimal_comma": b"rate;y\n12,5%;a\n3%;b\n,5%;c\n12,%;d\nNA;e\n",
    "percent_point_in_semicolon_file_is_text": b"rate;y\n12.5%;a\n3%;b\n",
    "percent_comma_in_comma_file_is_text": b'rate,y\n"12,5%",a\n3%,b\n',
    # the note quotes a percentage that is not zero when there is one
    "percent_zero_first": b"rate,y\n0%,a\n-0.0 %,b\nNA,c\n12.5%,d\n0%,e\n",
    "percent_zero_first_decimal_comma": b"rate;y\n0%;a\n0,0%;b\n,5%;c\n",
    "percent_only_zeros": b"rate,y\n0%,a\n0.0%,b\n",
    # percentages that must not convert
    "percent_beside_text": b"rate,y\n12%,a\nn/a text,b\n3%,c\n",
    "percent_beside_number": b"rate,y\n5,a\n12%,b\n3%,c\n",
    "percent_twice": b"rate,y\n12%%,a\n3%,b\n",
    # thousands separators
    "grouped_small_plain": b'amount,y\n852,a\n"1,275",b\n-3,c\n"12,000",d\n',
    "grouped_beyond_doubt": b'amount,y\n"12,345,678",a\n"1,275",b\n1500,c\n',
    "grouped_decimal_point": b'amount,y\n"1,234.5",a\n"2,000",b\n7.25,c\n',
    "grouped_with_missing": b'amount,y\n852,a\n"1,275",b\nNA,c\n,d\n',
    "grouped_nbsp_plain": '"amount",y\n\u00a0852,a\n"1,275",b\n'.encode(),
    "grouped_two_columns": b'a,b,y\n852,"1,000,000",p\n"1,275",5,q\n',
    # ambiguous or not numbers: categorical, with the readers' note
    "grouped_alone_is_ambiguous": b'amount,y\n"12,000",a\n"13,000",b\n"12,000",c\n',
    "grouped_beside_large_plain": b'amount,y\n1500,a\n"1,275",b\n',
    "grouped_beside_exponent": b'amount,y\n1e5,a\n"1,275",b\n3,c\n',
    "grouped_beside_decimal_comma": b'amount,y\n"12,5",a\n"1,275",b\n',
    "grouped_beside_text": b'amount,y\n852,a\n"1,275",b\nabout 900,c\n',
    "decimal_comma_in_comma_file": b'amount,y\n"12,5",a\n"3,25",b\n',
    "grouped_in_tab_file_is_ambiguous": b"amount\ty\n852\ta\n1,275\tb\n",
    "commas_in_tab_file": b"amount\ty\n12,5\ta\n1,275\tb\n",
    "grouped_in_pipe_file": b"amount|y\n852|a\n1,275|b\n",
    # dates: more than 20 different days are named, 20 or fewer are not
    "dates_30_days": _csv(",", signup=_dates(30), y=["ab"[r % 2] for r in range(60)]),
    "dates_20_days": _csv(",", signup=_dates(20), y=["ab"[r % 2] for r in range(60)]),
    "dates_two_columns": _csv(
        ",", a=_dates(25, fmt="%Y-%m-%d"), b=_dates(40, fmt="%d.%m.%Y"), y=["p"] * 60
    ),
    "dates_with_missing_and_times": _csv(
        ",",
        t=["NA" if r == 3 else f"{d} 10:3{r % 6}" for r, d in enumerate(_dates(30, 60))],
        y=["p"] * 60,
    ),
    "dates_beside_text": _csv(",", signup=_dates(30)[:-1] + ["unknown"], y=["p"] * 60),
    "dates_in_semicolon_file": _csv(";", signup=_dates(30, fmt="%d.%m.%Y"), y=["p"] * 60),
    # a number with a no-break space is text to pandas' parser but a number once stripped:
    # beside numbers it is no "mix of numbers and text" (the engine said so), beside text it is
    "nbsp_number_beside_numbers": "x,y\n0,a\n\u00a0852,b\n1.5\u3000,c\n".encode(),
    "nbsp_number_beside_text": "x,y\nabc,a\n\u00a0852,b\n".encode(),
    "nbsp_number_beside_text_semicolons": "x;y\nabc;a\n\u00a0852;b\n".encode(),
    "nbsp_number_beside_decimal_commas": "x;y\n12,5;a\n\u00a0852;b\n".encode(),
    # a semicolon file's decimal-comma column of integers only is int64 to the readers
    "decimal_comma_integers": "x;y;z\n1.234.567;a;\u00a0852\n12;b;0852\n".encode(),
    "decimal_comma_integers_and_missing": b"x;y\n1.234.567;a\nNA;b\n12;c\n",
    "decimal_comma_integers_and_a_fraction": b"x;y\n1.234.567;a\n12,5;b\n",
    # integers of 19 digits: int64 as to_numeric reads them while they fit, uint64 past it
    # (none negative, none missing), else float64 (the engine read them all as float64)
    "grouped_19_digits": b'amount,y\n"1,234,567,890,123,456,789",a\n"1,275",b\n',
    "grouped_19_digits_past_int64": b'amount,y\n"9,223,372,036,854,775,808",a\n"1,275",b\n',
    "grouped_19_digits_negative": b'amount,y\n"-9,223,372,036,854,775,808",a\n"1,275",b\n',
    "grouped_past_int64_beside_a_negative": (
        b'amount,y\n"9,223,372,036,854,775,808",a\n"-1,275",b\n'
    ),
    "grouped_past_uint64": b'amount,y\n"18,446,744,073,709,551,616",a\n"1,275",b\n',
    "grouped_19_digits_and_missing": b'amount,y\n"1,234,567,890,123,456,789",a\n"1,275",b\nNA,c\n',
    "percent_19_digits": b"rate,y\n1234567890123456789%,a\n3 %,b\n",
    "percent_19_digits_past_int64": b"rate,y\n9223372036854775808%,a\n+3%,b\n",
    "percent_19_digits_negative": b"rate,y\n-9223372036854775808%,a\n3%,b\n",
    "percent_past_int64_and_below_it": b"rate,y\n-9223372036854775809%,a\n3%,b\n",
    "percent_19_digits_and_a_fraction": b"rate,y\n1234567890123456789%,a\n3.5%,b\n",
    "percent_19_digits_semicolons": b"rate;y\n1234567890123456789%;a\n3%;b\n",
    "decimal_comma_19_digits": b"x;y\n1.234.567.890.123.456.789;a\n12;b\n",
    "decimal_comma_19_digits_past_int64": b"x;y\n9.223.372.036.854.775.808;a\n12;b\n",
    "decimal_comma_19_digits_negative": b"x;y\n-9.223.372.036.854.775.808;a\n12;b\n",
    "decimal_comma_past_uint64": b"x;y\n18.446.744.073.709.551.616;a\n12;b\n",
    "decimal_comma_19_digits_plain": b"x;y\n1.234.567;a\n1234567890123456789;b\n",
    # every note at once, in the readers' order
    "all_notes": _csv(
        ",",
        rate=[f"{r}%" for r in range(30)],
        amount=["852", '"1,275"'] * 15,
        mixed=["5", "abc"] * 15,
        comma=['"12,5"'] * 30,
        day=_dates(30, 30),
        y=["p", "q"] * 15,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_spreadsheets_csv_has_the_readers_columns_values_and_notes(tmp_path, case):
    data = CASES[case]
    name = "t.tsv" if b"\t" in data.split(b"\n")[0] else "t.csv"
    (tmp_path / name).write_bytes(data)
    reference = read_table(data, name)
    engine = _engine(tmp_path, name)
    assert_reads_as_the_readers(engine, reference)


def assert_reads_as_the_readers(engine, reference) -> None:
    """The engine's registered CSV has ``reference``'s (``read_table``'s frame) columns,
    type families, value kinds, every value and notes."""
    kinds, rows = _engine_rows(engine)
    assert list(rows) == list(reference.columns)
    families = dict(engine.columns())
    for column in reference.columns:
        assert families[column] == _family(reference[column].dtype), column
        assert kinds[column] == _kind(reference[column].dtype), column
        expected = [_cell(v) for v in reference[column].tolist()]
        assert [_cell(v) for v in rows[column]] == expected, column
    assert engine.notes == reference.attrs["heb_notes"]


#: what the readers make of some cases, so the parity above cannot pass by both doing nothing
EXPECTED = {
    "percent_whole": ("rate", "integer", [12, 3, 0, 100], "percentages such as '12%'"),
    "percent_decimal_comma": ("rate", "float", [12.5, 3, 0.5, 12, None], "such as '12,5%'"),
    "grouped_small_plain": ("amount", "integer", [852, 1275, -3, 12000], "such as '1,275'"),
    "grouped_with_missing": ("amount", "float", [852, 1275, None, None], "such as '1,275'"),
    "grouped_nbsp_plain": ("amount", "integer", [852, 1275], "such as '1,275'"),
    "grouped_alone_is_ambiguous": ("amount", "text", ["12,000", "13,000", "12,000"], "a comma"),
    "grouped_beside_text": ("amount", "text", ["852", "1,275", "about 900"], "mixes numbers"),
    "commas_in_tab_file": ("amount", "text", ["12,5", "1,275"], "in a tab-separated file"),
    "dates_30_days": ("signup", "text", _dates(30), "each of its 30 dates"),
    "percent_zero_first": ("rate", "float", [0, 0, None, 12.5, 0], "such as '12.5%'"),
    "percent_zero_first_decimal_comma": ("rate", "float", [0, 0, 0.5], "such as ',5%'"),
    "percent_only_zeros": ("rate", "float", [0, 0], "such as '0%'"),
    "grouped_19_digits": ("amount", "integer", [1234567890123456789, 1275], "'1,234,567,"),
    "grouped_19_digits_past_int64": ("amount", "integer", [2**63, 1275], "thousands"),
    "grouped_19_digits_negative": ("amount", "integer", [-(2**63), 1275], "thousands"),
    "grouped_past_uint64": ("amount", "float", [float(2**64), 1275], "thousands"),
    "percent_19_digits": ("rate", "integer", [1234567890123456789, 3], "percentages"),
    "percent_19_digits_past_int64": ("rate", "integer", [2**63, 3], "percentages"),
    "percent_19_digits_negative": ("rate", "integer", [-(2**63), 3], "percentages"),
    "percent_past_int64_and_below_it": ("rate", "float", [-float(2**63), 3], "percentages"),
}


@pytest.mark.parametrize("case", list(EXPECTED))
def test_the_engine_reads_a_spreadsheets_column_as_the_readers_do(tmp_path, case):
    column, family, values, note = EXPECTED[case]
    name = "t.tsv" if b"\t" in CASES[case].split(b"\n")[0] else "t.csv"
    (tmp_path / name).write_bytes(CASES[case])
    engine = _engine(tmp_path, name)
    _, rows = _engine_rows(engine)
    assert dict(engine.columns())[column] == family
    assert [_cell(v) for v in rows[column]] == [_cell(v) for v in values]
    assert len(engine.notes) == 1 and note in engine.notes[0] and f"'{column}'" in engine.notes[0]


@pytest.mark.parametrize(
    "case", ["percent_beside_text", "percent_point_in_semicolon_file_is_text", "dates_20_days"]
)
def test_a_column_that_is_not_converted_says_nothing_new(tmp_path, case):
    (tmp_path / "t.csv").write_bytes(CASES[case])
    engine = _engine(tmp_path, "t.csv")
    assert engine.notes == [] and set(dict(engine.columns()).values()) == {"text"}


def test_a_first_line_naming_the_separator_is_read_as_such_on_both_paths(tmp_path):
    """``sep=;``, which Excel writes and reads: the readers took it for a one-column header
    ("Line 2 of the file has more values than the header's 1"), the engine too."""
    data = CASES["separator_line_semicolon"]
    frame = read_table(data, "t.csv")
    assert list(frame.columns) == ["a", "b", "class"]
    assert frame["a"].tolist() == [1.5, 2.5, 3.0]  # a decimal comma: a ';' file's numbers
    note = "The first line, 'sep=;', names the separator: read with it, left out."
    assert frame.attrs["heb_notes"] == [note]
    (tmp_path / "t.csv").write_bytes(data)
    assert _engine(tmp_path, "t.csv").notes == [note]
    bad = b"sep=;\na;b\n1;x\n2;y;z\n"
    with pytest.raises(DataError, match="^Line 4 of the file has 3 values but the header has 2"):
        read_table(bad, "t.csv")  # the file's own line numbers, the sep line counted


def test_the_notes_come_in_the_readers_order(tmp_path):
    (tmp_path / "t.csv").write_bytes(CASES["all_notes"])
    notes = _engine(tmp_path, "t.csv").notes
    starts = ["Column 'rate' holds percentages", "Column 'amount' holds numbers written with "]
    starts += ["Column 'mixed' mixes", "Column 'comma' holds numbers written with a comma"]
    starts += ["Column 'day' holds dates"]
    assert [n[: len(s)] for n, s in zip(notes, starts, strict=True)] == starts


def test_a_windows_1252_file_of_percentages_names_its_encoding_first(tmp_path):
    data = "Taux,Pays\n12%,Fran\u00e7ais\n3%,\u00c9tats\n".encode("cp1252")
    (tmp_path / "t.csv").write_bytes(data)
    engine = _engine(tmp_path, "t.csv")
    assert engine.notes == read_table(data, "t.csv").attrs["heb_notes"]
    assert "Windows-1252" in engine.notes[0] and "percentages" in engine.notes[1]


#: spreadsheet columns of 8 cells for the typing's two forms (cells as rows, by column)
SPREADSHEET_COLUMNS = [
    ["12%", "3%", "NA", "1.5 %", ".5%", "0%", "7%", "8%"],
    ["12%", "3%", "4%", "5%", "6%", "7%", "8%", "9%"],
    ["852", "1,275", "", "3", "12,000", "4", "5", "6"],
    ["12,345,678", "1,275", "1500", "1", "2", "3", "4", "5"],
    ["12,000", "13,000", "12,000", "NA", "1,000", "2,000", "3,000", "4,000"],
    ["12%", "n/a text", "3%", "4%", "5%", "6%", "7%", "8%"],
    ["06/01/2024", "06/02/2024", "", "2024-06-03", "04.06.2024", "x", "a", "b"],
    ["\u00a0852", "1,275", "1", "2", "3", "4", "5", "6"],
]


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_the_spreadsheet_kinds_are_the_same_as_rows_and_by_column(tmp_path, sep):
    """``_kinds`` reads a small file's cells as rows and a large one's column by column: the
    new kind codes (percentages, thousands separators, dates) must come out the same."""
    from dataclasses import replace

    import duckdb

    from heb.scale import csv_cells as cells
    from heb.scale import csv_layout as layouts
    from heb.scale import csv_scan as s
    from heb.scale import csv_typing as ct

    # a comma-separated file quotes its commas; a semicolon file has no thousands separators
    # and writes its percentages with decimal commas (,5% takes the typing's text branch)
    def semicolon(cell: str) -> str:
        cell = cell.replace(",", "")
        return cell.replace(".", ",") if cell.endswith("%") else cell

    quoted = {",": lambda c: f'"{c}"' if "," in c else c, ";": semicolon}
    columns = [list(map(quoted.get(sep, str), column)) for column in SPREADSHEET_COLUMNS]
    data = _wide_csv(columns, sep, 2)
    name = "t.tsv" if sep == "\t" else "t.csv"
    (tmp_path / name).write_bytes(data)
    con = duckdb.connect()
    layout = s.csv_layout(tmp_path / name)
    scan = layouts.read_csv([tmp_path / name], layout)
    found = ct.column_kinds(con, scan, layout)
    assert found == ct.column_kinds(con, scan, replace(layout, cells_as_rows=False))
    new = (1 << cells.PERCENT_WHOLE) | (1 << cells.PERCENT_PART) | (1 << cells.DAY)
    new |= (1 << cells.GROUPED) | (1 << cells.GROUPED_SURE) if sep == "," else 0
    assert all(any(k >> bit & 1 for k in found[2]) for bit in range(64) if new >> bit & 1)
    reference = read_table(data, name)
    engine = _engine(tmp_path, name)
    assert engine.notes == reference.attrs["heb_notes"]
    _, rows = _engine_rows(engine)
    for column in reference.columns:
        expected = [_cell(v) for v in reference[column].tolist()]
        assert [_cell(v) for v in rows[column]] == expected, column


def test_local_spark_reads_a_spreadsheets_csv_as_duckdb_does(tmp_path):
    """Spark on a local master reads DuckDB's typed copy (:func:`csv_scan`): the same
    columns, values and notes."""
    from heb.scale import spark_engine
    from tests.peers import require_spark

    require_spark()
    (tmp_path / "t.csv").write_bytes(CASES["all_notes"])
    duck = _engine(tmp_path, "t.csv")
    spark = spark_engine.SparkEngine(master="local[1]")
    try:
        spark.spark.sparkContext.setLogLevel("OFF")
        assert spark.register(open_source("t.csv", root=tmp_path)) == duck.columns()
        assert spark.notes == duck.notes and len(spark.notes) == 5
        query = "SELECT rate, amount FROM heb_rows ORDER BY rate"
        assert spark.table(query).to_pylist() == duck.table(query).to_pylist()
    finally:
        spark.close()
