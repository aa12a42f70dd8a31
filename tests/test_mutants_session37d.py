"""Mutation pass of the large-file CSV spreadsheet typing (:mod:`heb.scale.csv_scan`):
cases at the edges of its percent, thousands-separator, date and decimal-comma rules, each
checked against the readers (:func:`heb.data.readers.read_table`) and hand-worked values.
Each case killed a mutant of ``csv_scan`` the earlier tests let live.
"""

from __future__ import annotations

import datetime

import pytest

from heb.data.readers import read_table
from tests.test_scale_csv import _cell, _engine
from tests.test_scale_csv_spreadsheet import _family, assert_reads_as_the_readers

pytest.importorskip("duckdb")


def _days(days: int, rows: int) -> list[str]:
    first = datetime.date(2024, 6, 1)
    return [(first + datetime.timedelta(days=r % days)).strftime("%m/%d/%Y") for r in range(rows)]


def _column(cells: list[str]) -> bytes:
    return ("signup,y\n" + "".join(f"{c},p\n" for c in cells)).encode()


#: file, first column's engine family and values as hand-worked, and a piece of its note
CASES = {
    # an 18-digit whole percentage is int64 to to_numeric (a 17-digit limit made it float)
    "percent_18_digits": (
        b"rate,y\n123456789012345678%,a\n1%,b\n",
        "integer",
        [123456789012345678, 1],
        "holds percentages",
    ),
    # whole percentages beside an empty cell are float64 (NaN), not integers
    "percent_whole_and_empty": (b"rate,y\n12%,a\n,b\n3%,c\n", "float", [12, None, 3], "'12%'"),
    # a grouped number with a decimal point is beyond doubt even beside a plain 1500
    "grouped_point_beside_large_plain": (
        b'amount,y\n"1,234.5",a\n1500,b\n',
        "float",
        [1234.5, 1500],
        "thousands separators such as '1,234.5'",
    ),
    # a plain 1000 is not below 1,000: the column is ambiguous, so categorical
    "grouped_beside_plain_1000": (
        b'amount,y\n1000,a\n"1,275",b\n',
        "text",
        ["1000", "1,275"],
        "mixes numbers and text",
    ),
    # a plain -1500 is 1,000 or more in size (abs), so the column is categorical
    "grouped_beside_negative_large_plain": (
        b'amount,y\n-1500,a\n"1,275",b\n',
        "text",
        ["-1500", "1,275"],
        "mixes numbers and text",
    ),
    # a semicolon file has no thousands separators: 1,234,567 there is text, not a number
    "semicolon_file_groups_nothing": (
        b"x;y\n1,234,567;a\n5;b\n",
        "text",
        ["1,234,567", "5"],
        "mixes numbers and text",
    ),
    # a semicolon file's signed decimal-comma integers are int64 to the readers
    "decimal_comma_signed_integers": (
        b"x;y\n-1.234.567;a\n+12;b\n",
        "integer",
        [-1234567, 12],
        None,
    ),
}

#: columns of 20 different dates (no note: the readers name more than 20), counted stripped
#: and without missing cells
DATES = {
    "dates_20_some_with_a_space": _column(
        [" " + d if r >= 20 else d for r, d in enumerate(_days(20, 40))]
    ),
    "dates_20_and_missing": _column(_days(20, 40) + ["NA", " NA", "N/A "]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_reads_an_edge_case_as_the_readers_do(tmp_path, case):
    data, family, values, note = CASES[case]
    (tmp_path / "t.csv").write_bytes(data)
    reference = read_table(data, "t.csv")
    engine = _engine(tmp_path, "t.csv")
    first = reference.columns[0]
    assert _family(reference[first].dtype) == family
    assert [_cell(v) for v in reference[first].tolist()] == [_cell(v) for v in values]
    assert_reads_as_the_readers(engine, reference)
    if note is None:
        assert engine.notes == []
    else:
        assert len(engine.notes) == 1 and note in engine.notes[0]


@pytest.mark.parametrize("case", list(DATES))
def test_twenty_dates_written_with_spaces_or_beside_missing_cells_get_no_note(tmp_path, case):
    data = DATES[case]
    (tmp_path / "t.csv").write_bytes(data)
    reference = read_table(data, "t.csv")
    engine = _engine(tmp_path, "t.csv")
    assert reference.attrs["heb_notes"] == [] and reference["signup"].nunique() == 20
    assert engine.notes == [] and dict(engine.columns())["signup"] == "text"
