"""Gaps between the large-file CSV path (:mod:`heb.scale.csv_scan`) and the in-memory
readers (:func:`heb.data.readers.read_table`), each a file the two read differently.

- A spreadsheet's empty, unnamed trailing columns (``a;b;class;;``): the readers leave
  them out with a note; the engine kept them as features of no value, and the last one
  became the default target, so ``bench --engine duckdb`` refused a file ``bench`` ran.
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
