"""Gaps between the large-file CSV path (:mod:`heb.scale.csv_scan`) and the in-memory
readers (:func:`heb.data.readers.read_table`), each a file the two read differently.

- A spreadsheet's empty, unnamed trailing columns (``a;b;class;;``): the readers leave
  them out with a note; the engine kept them as features of no value, and the last one
  became the default target, so ``bench --engine duckdb`` refused a file ``bench`` ran.
- Lines ending in more than one way (a ``sep=;`` line typed with CRLF into a file of LF
  lines, or the other way): pandas reads them all; DuckDB's parser read such a file as no
  rows ("a header row but no data rows") or refused it ("A line ... could not be read").
- The thousands-separator note quoted a column's first grouped cell, ``'0,000'`` too,
  which shows neither the scale nor what the commas group: both paths now quote the
  first whose first digit is not 0, as the percentage note quotes one that is not zero.
- Integers of 23 digits written plainly: text on both paths, in any file (identifiers,
  exact only as text; pandas' parser keeps a comma file's so); a semicolon file's such a
  column with a no-break space in a cell was float64 on the engine, text to the readers;
  one before a fraction (``...0123`` then ``1.5``) was text to the readers (float64 with
  the fraction first), float64 on the engine.
"""

from __future__ import annotations

import pytest

from heb.cli import main
from heb.data.readers import read_table
from tests.test_scale_csv import _engine, _engine_rows
from tests.test_scale_csv_spreadsheet import assert_reads_as_the_readers

pytest.importorskip("duckdb")

LEFT_OUT = (
    "Left out 2 columns with neither a name nor a value (a spreadsheet may end every row "
    "with such separators)."
)


def _spreadsheet_rows(n: int = 40) -> str:
    """``n`` rows of two features and a class, each ended by two empty cells."""
    return "".join(f"{i % 7};{'xyz'[i % 3]};{'yes' if i % 4 < 2 else 'no'};;\n" for i in range(n))


CASES = {
    # the separators a spreadsheet writes at the end of every row
    "trailing_unnamed_columns": ("a;b;class;;\n" + _spreadsheet_rows(6)).encode(),
    # short rows (no trailing separators): the unnamed columns are padded, empty all the same
    "trailing_unnamed_short_rows": b"a;b;class;;\n1;x;yes\n2;y;no\n",
    # an NA token is no value either; a name of spaces is no name
    "trailing_unnamed_na": b"a,b,class, \n1,x,yes,NA\n2,y,no,\n",
    # an empty unnamed column before an unnamed one of values: that one is named by its
    # place among the columns kept ('column_3'), as the readers name it
    "unnamed_dropped_then_named": b"a;;b; ;c\n1;;x;5;p\n2;;y;6;q\n",
    # unnamed columns of values, or every column unnamed, stay (with the readers' note)
    "unnamed_with_values": b"a,,class\n1,v,yes\n2,w,no\n",
    "every_column_unnamed": b";;\n1;2;3\n4;5;6\n",
    "repeated_names": b"a,a,class\n1,2,yes\n3,4,no\n",
}

#: files whose lines end in more than one way
MIXED_LINES = {
    "separator_line_crlf_then_lf": b"sep=;\r\na;b;class\n1,5;x;yes\n2,5;y;no\n",
    "separator_line_lf_then_crlf": b"sep=;\na;b;class\r\n1,5;x;yes\r\n2,5;y;no\r\n",
    "separator_line_cr_then_lf": b"sep=;\ra;b;class\n1,5;x;yes\n2,5;y;no\n",
    "separator_line_bom_crlf_then_lf": b"\xef\xbb\xbfsep=;\r\na;b;class\n1,5;x;yes\n2;y;no\n",
    "header_crlf_then_lf": b"a;b;class\r\n1,5;x;yes\n2,5;y;no\n",
    "rows_of_both": b"a,b,class\n1,x,yes\r\n2,y,no\n3,z,no\r\n",
    # a quoted line break is the cell's, as written; the rows' ends are one LF each
    "quoted_lf_in_crlf_rows": b'sep=,\na,b,class\r\n1,"x\ny",yes\r\n2,z,no\r\n',
    "windows_1252_crlf_then_lf": "sep=;\r\nTaux;Pays\n12%;Fran\u00e7ais\n3%;x\n".encode("cp1252"),
    "utf16_crlf_then_lf": "sep=;\r\na;b\n1,5;\u00e9\n2;x\n".encode("utf-16"),
}


LONG = "12345678901234567890123"  # 23 digits, past uint64
#: a column of integers past uint64: (file, the family both paths read it as)
LONG_INTEGERS = {
    "plain_semicolons": (f"x;y\n{LONG};a\n{LONG[:-1]}4;b\n5;c\n", "text"),
    "plain_semicolons_missing": (f"x;y\n{LONG};a\nNA;b\n-5;c\n", "text"),
    "plain_commas": (f"x,y\n{LONG},a\n{LONG[:-1]}4,b\n5,c\n", "text"),
    "no_break_space_semicolons": (f"x;y\n\u00a0{LONG};a\n5;b\n", "text"),
    "no_break_space_semicolons_missing": (f"x;y\n\u00a0{LONG};a\nNA;b\n5;c\n", "text"),
    # written with the points of a decimal-comma file: numbers, as the readers read them
    "grouped_by_points_semicolons": ("x;y\n12.345.678.901.234.567.890.123;a\n5;b\n", "float"),
    "beside_a_decimal_comma": (f"x;y\n\u00a0{LONG};a\n12,5;b\n", "float"),
    # beside a fraction, an exponent or inf: numbers, whatever the order (pandas' parser
    # kept the column as text when the long integer came first, float64 when it came last)
    "before_a_fraction": (f"x,y\n{LONG},a\n1.5,b\n", "float"),
    "after_a_fraction": (f"x,y\n1.5,a\n{LONG},b\n", "float"),
    "before_an_exponent_and_missing": (f"x,y\n{LONG},a\nNA,b\n1e5,c\n,d\ninf,e\n", "float"),
    "before_a_fraction_semicolons": (f"x;y\n{LONG};a\n1.5;b\n", "float"),
    "spaced_before_a_fraction_semicolons": (f"x;y\n {LONG} ;a\n1.5;b\n", "float"),
    # text to the parser in any order: a no-break space, an NA token with a space after it
    "before_a_no_break_spaced_fraction": (f"x,y\n{LONG},a\n\u00a01.5,b\n", "text"),
    "before_a_spaced_na_token": (f"x,y\n{LONG},a\nNA ,b\n1.5,c\n", "text"),
}


@pytest.mark.parametrize("case", list(LONG_INTEGERS))
def test_integers_past_uint64_are_read_alike_on_both_paths(tmp_path, case):
    """The rule (:func:`heb.data.text_columns._plain_past_uint64`,
    :func:`heb.scale.csv_typing.whole_commas`): a column whose every value is an integer
    written plainly (a sign, digits), some past uint64, is text in a file of any
    delimiter; written with a semicolon file's points, beside a decimal comma or beside a
    fraction, numbers (:func:`heb.data.text_columns._long_before_a_fraction`)."""
    text, family = LONG_INTEGERS[case]
    data = text.encode()
    reference = read_table(data, "t.csv")
    (tmp_path / "t.csv").write_bytes(data)
    engine = _engine(tmp_path, "t.csv")
    assert dict(engine.columns())["x"] == family
    assert_reads_as_the_readers(engine, reference)


#: a column of thousands separators: (file, the example its note quotes)
GROUPED_EXAMPLES = {
    "zero_groups_first": (b'amount,y\n0,a\n"0,000",b\n"2,500",c\n5,d\n', "'2,500'"),
    "signed_zero_first": (b'amount,y\n"-0,000",a\n"-1,275",b\n7,c\n', "'-1,275'"),
    "leading_zero_group_first": (b'amount,y\n"0,500",a\n"12,345,678",b\n', "'12,345,678'"),
    "only_zero_groups": (b'amount,y\n"0,000",a\n5,b\n"0,000",c\n', "'0,000'"),
}


@pytest.mark.parametrize("case", list(GROUPED_EXAMPLES))
def test_the_thousands_note_quotes_a_telling_number_on_both_paths(tmp_path, case):
    data, example = GROUPED_EXAMPLES[case]
    reference = read_table(data, "t.csv")
    assert reference.attrs["heb_notes"] == [
        f"Column 'amount' holds numbers written with thousands separators such as {example}, "
        "read as numbers."
    ]
    (tmp_path / "t.csv").write_bytes(data)
    assert_reads_as_the_readers(_engine(tmp_path, "t.csv"), reference)


@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_reads_the_header_as_the_readers_do(tmp_path, case):
    (tmp_path / "t.csv").write_bytes(CASES[case])
    reference = read_table(CASES[case], "t.csv")
    assert_reads_as_the_readers(_engine(tmp_path, "t.csv"), reference)


def test_empty_unnamed_trailing_columns_are_left_out_with_the_readers_note(tmp_path):
    (tmp_path / "t.csv").write_bytes(CASES["trailing_unnamed_columns"])
    engine = _engine(tmp_path, "t.csv")
    assert [name for name, _ in engine.columns()] == ["a", "b", "class"]
    assert engine.notes == [LEFT_OUT]
    _, rows = _engine_rows(engine)
    assert rows["class"] == ["yes", "yes", "no", "no", "yes", "yes"]


def test_bench_on_the_engine_runs_a_file_with_empty_unnamed_trailing_columns(tmp_path, capsys):
    """``bench FILE`` ran it; ``bench FILE --engine duckdb`` refused it: "The target
    column 'column_5' has no values ... such as 'class'"."""
    path = tmp_path / "excel.csv"
    path.write_text("a;b;class;;\n" + _spreadsheet_rows())
    argv = ["bench", str(path), "--methods", "laplace", "--folds", "2", "--no-figures"]
    argv += ["--no-cache", "--engine", "duckdb", "-o", str(tmp_path / "out")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "column_5" not in err and LEFT_OUT in err


@pytest.mark.parametrize("case", list(MIXED_LINES))
def test_lines_ending_in_mixed_ways_are_read_as_the_readers_read_them(tmp_path, case):
    (tmp_path / "t.csv").write_bytes(MIXED_LINES[case])
    reference = read_table(MIXED_LINES[case], "t.csv")
    assert reference.shape[0] >= 2  # rows, so the parity cannot pass by both reading none
    assert_reads_as_the_readers(_engine(tmp_path, "t.csv"), reference)


def test_a_separator_line_ending_otherwise_than_the_rows_gives_the_rows(tmp_path):
    (tmp_path / "t.csv").write_bytes(MIXED_LINES["separator_line_crlf_then_lf"])
    engine = _engine(tmp_path, "t.csv")
    _, rows = _engine_rows(engine)
    assert rows == {"a": [1.5, 2.5], "b": ["x", "y"], "class": ["yes", "no"]}
    assert engine.notes == ["The first line, 'sep=;', names the separator: read with it, left out."]


def test_lines_ending_otherwise_past_the_head_are_read_too(tmp_path):
    """The head (1 MB) has LF lines only; DuckDB's parser meets the CRLF ones later, and
    the file is read again from a copy."""
    from heb.scale.csv_layout import HEAD_BYTES

    lf = "".join(f"{i % 97};x{i % 5};{'yes' if i % 3 else 'no'}\n" for i in range(120_000))
    crlf = "".join(f"{i % 7};y;{'yes' if i % 2 else 'no'}\r\n" for i in range(100))
    data = ("a;b;class\n" + lf + crlf).encode()
    assert len(data) > HEAD_BYTES
    (tmp_path / "t.csv").write_bytes(data)
    engine = _engine(tmp_path, "t.csv")
    n, last = (
        engine.table("SELECT count(*), max_by(b, __heb_row) FROM heb_rows").to_pylist()[0].values()
    )
    assert (n, last) == (120_100, "y")


def test_a_file_of_one_line_end_is_read_in_place(tmp_path):
    """No copy of a file whose lines all end alike (CRLF, quoted LF in a cell aside)."""
    from heb.scale.csv_scan import copies_of

    (tmp_path / "t.csv").write_bytes(b'a,b,class\r\n1,"x\ny",yes\r\n2,z,no\r\n')
    engine = _engine(tmp_path, "t.csv")
    assert copies_of(engine._con) == []
    _, rows = _engine_rows(engine)
    assert rows["b"] == ["x\ny", "z"]


def test_line_ends_are_rewritten_outside_quotes_across_chunks():
    from heb.scale.csv_layout import lf_lines

    state = [0, False]
    chunks = [b"a\r", b"\nb\r", b'c,"q\r', b'\n"\r\n', b"d\r", b"\n"]
    assert b"".join(lf_lines(c, state) for c in chunks) == b'a\nb\nc,"q\r\n"\nd\n'
    state = [0, False]  # a quote opened in a chunk of no line end holds in the next
    chunks = [b'a,"b', b"x\r\n", b'"\r', b"\ny\r\n"]
    assert b"".join(lf_lines(c, state) for c in chunks) == b'a,"bx\r\n"\ny\n'


def test_local_spark_reads_these_files_as_duckdb_does(tmp_path):
    """Spark on a local master reads DuckDB's typed copy of a CSV
    (:func:`heb.scale.spark_engine._typed_parquet`): the same columns, notes and rows for
    a file of each gap."""
    from heb.scale import spark_engine
    from heb.scale.source import open_source
    from tests.peers import require_spark

    require_spark()
    files = {
        "trailing.csv": CASES["trailing_unnamed_columns"],
        "mixed.csv": MIXED_LINES["separator_line_crlf_then_lf"],
        "grouped.csv": GROUPED_EXAMPLES["zero_groups_first"][0],
        "long.csv": LONG_INTEGERS["no_break_space_semicolons_missing"][0].encode(),
    }
    spark = spark_engine.SparkEngine(master="local[1]")
    try:
        spark.spark.sparkContext.setLogLevel("OFF")
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
            duck = _engine(tmp_path, name)
            columns = spark.register(open_source(name, root=tmp_path))
            assert columns == duck.columns(), name
            assert spark.notes == duck.notes, name
            assert bool(duck.notes) == (name != "long.csv"), name
            query = "SELECT * EXCEPT (__heb_file, __heb_row) FROM heb_rows ORDER BY __heb_row"
            rows = spark.table(query).to_pylist()
            query = query.replace("EXCEPT", "EXCLUDE")
            assert rows == duck.table(query).to_pylist(), name
    finally:
        spark.close()
