"""The readers' notes on a CSV, said of the large-file path's scan (:mod:`heb.scale.csv_scan`).

From the columns as :func:`heb.scale.csv_typing.typed_column` read them: the file's
encoding, codes kept as text, percentages and thousands separators read as numbers,
numbers mixed with text, numbers written with a comma, dates of many days, each with an
example cell found in the file, worded by the readers' own functions
(:mod:`heb.data.text_columns`).
"""

from __future__ import annotations

from collections.abc import Sequence

from heb.data.column_notes import ColumnsNote
from heb.data.delimiters import file_kind
from heb.data.readers import ENCODING_NOTES
from heb.data.text_columns import (
    DATE_NOTE_VALUES,
    GROUPED_EXAMPLE,
    codes_note,
    comma_note,
    conversion_notes,
    date_note,
    mixed_note,
)
from heb.scale.csv_cells import (
    BOOL,
    COMMA,
    DAY,
    FLOAT,
    FLOAT_COMMA,
    GROUPED,
    GROUPED_SURE,
    LONG,
    MISSING,
    PERCENT_KINDS,
    SMALL,
    SPACED,
    SPACED_COMMA,
    TEXT,
    TIDY_NA,
    ZERO,
    cell_kind,
    cell_rows,
    groups_thousands,
    matches,
    only_kinds,
    stripped,
    tidy_missing,
)
from heb.scale.csv_layout import CsvLayout

__all__ = ["NAMED_EXAMPLES", "scan_notes"]

#: the columns of one note (dates, codes, numbers mixed with text, ...) whose example is
#: read, a query each: the note quotes the first column's, and the next one's once the
#: first is left out (``--drop``, the page's Columns to leave out:
#: :func:`heb.data.column_notes.kept_notes`); the others are counted, not named
NAMED_EXAMPLES = 8


def _example(
    con,
    scan: str,
    raw: str,
    kinds: Sequence[int],
    decimal_comma: bool,
    grouping: bool = False,
    where: str = "true",
) -> str | None:
    """The first cell of column ``raw`` of one of the ``kinds`` (as :func:`cell_kind`
    tells them) for which ``where`` holds, as the readers' note quotes it (stripped), or
    None when there is none."""
    listed = ", ".join(map(str, kinds))
    found = con.execute(
        f"SELECT {stripped(raw)} FROM {scan} WHERE {cell_kind(raw, decimal_comma, grouping)} IN "
        f"({listed}) AND {where} LIMIT 1"
    ).fetchone()
    return found[0] if found else None


def _nonzero_percent(raw: str, decimal_comma: bool) -> str:
    """Whether a percentage cell's number is not zero: the note quotes such a cell when the
    column has one (``0%`` shows neither scale nor decimals), as the readers'
    :func:`heb.data.text_columns._percent_example`."""
    number = f"rtrim({stripped(raw)}, '% ')"
    if decimal_comma:
        number = f"replace({number}, ',', '.')"
    return f"TRY_CAST({number} AS DOUBLE) <> 0"


def _telling_example(
    con, scan: str, raw: str, kinds: Sequence[int], decimal_comma: bool, grouping: bool
) -> str:
    """The cell of column ``raw`` of one of the ``kinds`` a note quotes (:func:`_example`):
    of percentages, one that is not zero if any; of numbers grouped by thousands
    separators, one whose first digit is not 0 if any (``1,275``, not ``0,000``), as
    the readers pick them (:func:`heb.data.text_columns._grouped_example`)."""
    where = None
    if list(kinds) == list(PERCENT_KINDS):
        where = _nonzero_percent(raw, decimal_comma)
    elif list(kinds) == _GROUPED_KINDS:
        where = matches(stripped(raw), GROUPED_EXAMPLE)
    if where is not None:
        found = _example(con, scan, raw, kinds, decimal_comma, grouping, where)
        if found is not None:
            return found
    return _example(con, scan, raw, kinds, decimal_comma, grouping)


#: the kinds of a number grouped by thousands separators
_GROUPED_KINDS = [GROUPED, GROUPED_SURE]
#: the kinds of cell pandas' ``to_numeric`` reads as a number, and those it does not
_NUMBER_KINDS = (SMALL, FLOAT, LONG, ZERO, FLOAT_COMMA, SPACED, SPACED_COMMA)
_WORD_KINDS = (TEXT, BOOL, COMMA, *PERCENT_KINDS, GROUPED, GROUPED_SURE, DAY)


def _days(con, scan: str, columns: Sequence[int]) -> dict[int, int]:
    """The different values of each of ``columns`` (each a column of dates), in one scan."""
    if not columns:
        return {}
    text = stripped("raw")
    found = con.execute(
        f"SELECT heb_col, count(DISTINCT {text}) FILTER (WHERE NOT {tidy_missing('raw')}) "
        f"FROM {cell_rows(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(i): int(days) for i, days in found}


def _reading_notes(layout: CsvLayout, read_as: list[str]) -> list[str]:
    """The notes of how the file was read, in the readers' order: its encoding when it is
    not UTF-8, then a first line ``sep=;`` taken as its delimiter."""
    notes = [ENCODING_NOTES[read_as[0]]] if read_as else []
    return notes + ([layout.separator_note] if layout.separator_note else [])


def scan_notes(
    con,
    scan: str,
    layout: CsvLayout,
    read_as: list[str],
    columns: list,
    header_notes: Sequence[str] = (),
) -> list[str]:
    """What the readers would say of the file, in their order: its encoding when it is not
    UTF-8, the ``header_notes`` (columns with neither a name nor a value left out, names
    given or made unique), the columns of codes kept as text, those of percentages and of
    thousands separators read as numbers, of numbers with some text cells, of numbers
    written with a comma, of many dates; from ``columns``, (name, kind set, whether read
    as codes, whether read as text, ``"percent"`` / ``"grouped"`` when read as such
    numbers or None) by position, None for a column left out."""
    notes = _reading_notes(layout, read_as) + list(header_notes)
    columns = [(i, column) for i, column in enumerate(columns) if column is not None]
    decimal_comma, grouping = layout.delimiter == ";", groups_thousands(layout.delimiter)

    def example(i: int, kinds: Sequence[int]) -> str:
        return _telling_example(con, scan, f"c{i}", kinds, decimal_comma, grouping)

    def entries(found: Sequence[tuple[int, str]], kinds: Sequence[int]) -> list[tuple]:
        """(name, example) of each column of one note, the example read for the first
        :data:`NAMED_EXAMPLES` alone (None: counted, not named)."""
        return [
            (name, example(i, kinds) if j < NAMED_EXAMPLES else None)
            for j, (i, name) in enumerate(found)
        ]

    codes = [(i, name) for i, (name, _, code, _, _) in columns if code]
    if codes:
        notes.append(ColumnsNote(codes_note, entries(codes, [ZERO])))
    converted = {}
    for how, kinds in (
        ("percent", list(PERCENT_KINDS)),
        ("grouped", _GROUPED_KINDS),
    ):
        found = [(i, name) for i, (name, *_, done) in columns if done == how]
        converted[how] = entries(found, kinds)
    notes.extend(conversion_notes(converted["percent"], converted["grouped"]))
    number = sum(1 << k for k in _NUMBER_KINDS)
    word = sum(1 << k for k in _WORD_KINDS)
    text = [
        (i, name, kind) for i, (name, kind, code, as_text, _) in columns if as_text and not code
    ]
    mixed = [(i, name) for i, name, kind in text if kind & number and kind & word]
    if mixed:
        notes.append(ColumnsNote(mixed_note, entries(mixed, _WORD_KINDS)))
    commas = (1 << COMMA) | (1 << GROUPED)
    if not decimal_comma:
        written = [
            (i, name)
            for i, name, kind in text
            if kind & commas and only_kinds(kind, MISSING, TIDY_NA, COMMA, GROUPED)
        ]
        if written:  # every such column, as the in-memory note names them
            kind = file_kind(layout.delimiter)
            found = [(*entry, kind) for entry in entries(written, [COMMA, GROUPED])]
            notes.append(ColumnsNote(comma_note, found))
    dates = [
        i for i, _, kind in text if kind & (1 << DAY) and only_kinds(kind, MISSING, TIDY_NA, DAY)
    ]
    days = _days(con, scan, dates)
    many = [i for i in dates if days.get(i, 0) > DATE_NOTE_VALUES]
    if many:
        names = {j: name for j, name, _ in text}
        found = entries([(i, names[i]) for i in many], [DAY])
        dated = [(*entry, days[i]) for entry, i in zip(found, many, strict=True)]
        notes.append(ColumnsNote(date_note, dated))
    return notes
