"""CSV files on DuckDB, read as :func:`heb.data.readers.read_table` reads an upload, out of core.

DuckDB's own CSV sniffer types columns from a sample, takes only ``''`` as missing, reads
``yes`` / ``no`` as booleans and keeps spaces around text. Here the delimiter, header names
and encoding are decided from the file's head as ``read_table`` decides them, one scan of
the file as text (every column ``VARCHAR``) finds each column's kinds of cells, and each
column is typed by the readers' rules:

- a cell is missing when it is an NA token (:data:`heb.data.dataset.NA_TOKENS`) after its
  leading spaces (pandas' ``skipinitialspace``), or, in a text column, after stripping;
- a column is an integer or float column when every other cell is a number as pandas'
  parser writes one (``12``, ``-1.5e3``, ``.5``, ``inf``); integers with a missing cell
  become floats unless some reach 2**53 (then exact integers), integers beyond uint64
  stay text;
- a column of ``true`` / ``false`` (any case) is boolean, or the text ``True`` / ``False``
  when some cell is missing;
- in a ``;``-separated file a column whose every value is a number with a decimal comma
  (``12,5``, ``1.234,5``) is numeric;
- a column whose every value is a percentage (``12%``; ``12,5%`` in a ``;``-separated
  file) is the numbers before the sign, and in a comma-separated file a column of plain
  numbers and numbers grouped by thousands separators (``852`` beside ``"1,275"``) is
  numeric by the readers' rule (:func:`heb.data.text_columns._thousands_grouped`);
- any other column is text, each cell stripped of surrounding whitespace.

The view then reads a column DuckDB's parser reads as the readers do (plain numbers, text
with no whitespace at its ends) typed, and the others as text typed in SQL. A file DuckDB
cannot read (a row longer than the header, a quote never closed) is refused in one sentence
naming the line; a file that is neither UTF-8 nor UTF-16 is read from a UTF-8 copy.
"""

from __future__ import annotations

import codecs
import gzip
import os
import re
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from heb.data.dataset import NA_TOKENS, DataError, unique_names
from heb.data.readers import (
    DECIMAL_COMMA,
    ENCODING_NOTES,
    csv_header,
    file_kind,
    is_archive,
    looks_binary,
)
from heb.data.text_columns import COMMA_NUMBER as _WRITTEN_COMMA
from heb.data.text_columns import (
    DATE_NOTE_VALUES,
    codes_note,
    comma_note,
    conversion_notes,
    date_note,
    mixed_note,
)
from heb.data.text_columns import DATE_PATTERN as _DATE
from heb.data.text_columns import PERCENT as _PERCENT
from heb.data.text_columns import PERCENT_COMMA as _PERCENT_COMMA
from heb.data.text_columns import PLAIN_NUMBER as _PLAIN
from heb.data.text_columns import THOUSANDS as _THOUSANDS
from heb.scale.sql import DUCKDB, RESERVED_PREFIX

__all__ = ["CsvLayout", "csv_layout", "csv_scan"]

#: bytes of a file's head read in Python to sniff its delimiter, encoding and header
HEAD_BYTES = 1 << 20
#: whitespace pandas' number parser skips around a number (C ``isspace``)
_ASCII_SPACE = " \t\n\x0b\x0c\r"
#: code points Python's ``str.strip`` removes (what the readers strip text cells of):
#: those for which ``str.isspace`` holds
_SPACE_CODES = (*range(9, 14), *range(28, 33), 133, 160, 5760, *range(8192, 8203), 8232, 8233)
_SPACE_CODES += (8239, 8287, 12288)
_UNICODE_SPACE = "".join(map(chr, _SPACE_CODES))
#: an integer as pandas' parser reads one into int64 / uint64, short enough to be below 2**53
_SMALL_INT = r"[+-]?[0-9]{1,15}"
_INT = r"[+-]?[0-9]+"
#: a decimal DuckDB's CSV parser reads as pandas' does (no spaces, infinities or huge exponents)
_PLAIN_FLOAT = (
    r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?|[+-]?[0-9]+[eE][+-]?[0-9]{1,2}"
)
#: a number as pandas' C parser reads one into float64 (``xstrtod`` and its infinities)
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity)"
#: the readers' decimal-comma number (ASCII digits: RE2's and pandas' notion of a digit)
_COMMA_NUMBER = DECIMAL_COMMA.replace(r"\d", "[0-9]")
#: bytes read at a time when a file that is not UTF-8 is copied as UTF-8
_COPY_BYTES = 1 << 22
#: a header wider than this is refused by DuckDB's limits long before, not by the readers'
_MAX_COLUMNS = 1_000_000
_BIG = 2**53
#: below this many rows a file's cells are typed as rows, one cell-kind expression for all
#: columns (:func:`_kinds`); above it, by one query naming each column's expression, whose
#: cost of 10-20 ms a column to parse and bind is then less than the rows' own (40 ns a
#: cell): measured best of 3, 10 columns x 5 x 10^5 rows 1.12 s by column, 1.26 s as rows,
#: 100 x 2 x 10^5 7.1 s by column, 5.9 s as rows
_FEW_ROWS = 300_000

#: a code written with a leading zero (ZIP ``02134``): a column of such digit strings and
#: unsigned integers is text as written, as the readers keep it (heb.data.text_columns)
_ZERO_CODE = r"0[0-9]+"
_DIGITS = r"[0-9]+"
#: the readers' spreadsheet patterns (heb.data.text_columns) in ASCII digits, RE2's and
#: pandas' notion of a digit: a percentage (with a decimal comma), one whose number is an
#: integer pandas reads into int64, a number grouped by thousands separators, a plain
#: number, a number written with a comma in a file of no decimal commas, a date
_ASCII = {
    name: pattern.replace(r"\d", "[0-9]")
    for name, pattern in {
        "percent": _PERCENT,
        "percent_comma": _PERCENT_COMMA,
        "grouped": _THOUSANDS,
        "plain": _PLAIN,
        "comma": _WRITTEN_COMMA,
        "date": _DATE,
    }.items()
}
_PERCENT_INT = r"[+-]?[0-9]{1,18} ?%"
_LONG_PERCENT = r"[+-]?[0-9]+ ?%"
# the kind of one cell, as a bit of the column's kind set (see _cell_kind): the spreadsheet
# kinds are a percentage (its number an integer, or not), a number grouped by thousands
# separators (one group, or beyond doubt: several or a decimal point), a date; a number
# with whitespace pandas' parser keeps (``\u00a0852``) is text, but a number once stripped
_MISSING, _SMALL, _FLOAT, _BOOL, _TEXT, _COMMA, _TIDY_NA, _FLOAT_COMMA, _LONG, _ZERO = range(10)
_PERCENT_WHOLE, _PERCENT_PART, _GROUPED, _GROUPED_SURE, _DAY, _SPACED = range(10, 16)
#: such a number that is also a decimal-comma number in a semicolon file (converts with them)
_SPACED_COMMA = 16
#: a percentage whose number is an integer of 19 digits or more: int64, uint64 or float64
#: as its column's range says (:func:`_long_percentages`)
_PERCENT_LONG = 17
#: added to the kind of a cell DuckDB's parser cannot read as the readers do
_UNCLEAN = 20


def _literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


_NA_LIST = "(" + ", ".join(map(_literal, NA_TOKENS)) + ")"


@dataclass(frozen=True)
class CsvLayout:
    """How a CSV file is scanned: what :func:`csv_layout` decided from its head.

    Attributes
    ----------
    delimiter : str
    encoding : {"utf-8", "utf-16", "cp1252", "latin-1"}
        The file's encoding; DuckDB reads the first two itself, a UTF-8 copy of the others.
    names : list of str
        The header's names, made unique and non-empty as the readers do.
    new_line : str or None
        ``"\\r"`` for a file whose lines end in CR only, else None (DuckDB detects it).
    parallel : bool
        False once a quoted line break was met (DuckDB pads short rows only serially).
    cells_as_rows : bool
        Whether the typing scan reads the cells as rows (:func:`_kinds`): a file of fewer
        than :data:`_FEW_ROWS` rows, as estimated from its head.
    """

    delimiter: str
    encoding: str
    names: list[str]
    new_line: str | None = None
    parallel: bool = True
    cells_as_rows: bool = True


# ---------------------------------------------------------------------------- the head
def _head(path: Path) -> tuple[bytes, bool]:
    """The first :data:`HEAD_BYTES` bytes of a file (gzip unpacked) and whether that is all."""
    opener = gzip.open if path.name.lower().endswith((".gz", ".gzip")) else open
    try:
        with opener(path, "rb") as stream:
            head = stream.read(HEAD_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise DataError(
            f"The file {path.name!r} could not be read; check that it is intact."
        ) from exc
    return head[:HEAD_BYTES], len(head) <= HEAD_BYTES


def _decode_head(head: bytes, whole: bool, encoding: str) -> str:
    """The head as text, a character cut at its end left out."""
    codec = {"utf-8": "utf-8-sig"}.get(encoding, encoding)
    return codecs.getincrementaldecoder(codec)().decode(head, final=whole)


def _encoding(head: bytes, whole: bool, label: str) -> str:
    """The encoding :func:`heb.data.readers.decode_text` would choose, judged on the head
    (UTF-8 until the scan meets a byte that is not, see :func:`csv_scan`)."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_BE)):
        raise DataError(
            f"The file {label!r} is UTF-32 or big-endian UTF-16 text, which the large-data "
            "path cannot read; save it as UTF-8."
        )
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16"
    for encoding in ("utf-8", "cp1252"):
        try:
            _decode_head(head, whole, encoding)
            return encoding
        except UnicodeDecodeError:
            pass
    return "latin-1"


def csv_layout(path: Path, label: str | None = None, encoding: str | None = None) -> CsvLayout:
    """Delimiter, encoding and header names of a CSV file, from its head as the readers
    decide them.

    Raises
    ------
    DataError
        An empty, binary or archive file, or a header that cannot be parsed.
    """
    label = label or path.name
    head, whole = _head(path)
    if not head.strip():
        raise DataError(f"The file {label!r} is empty.")
    if is_archive(head) or looks_binary(head):
        raise DataError(
            f"The file {label!r} holds binary data or an archive, not a CSV table; save the "
            "table as CSV."
        )
    encoding = encoding or _encoding(head, whole, label)
    try:
        text = _decode_head(head, whole, encoding)
    except UnicodeDecodeError:  # a byte Windows-1252 leaves undefined: Latin-1 throughout
        encoding = "latin-1"
        text = _decode_head(head, whole, encoding)
    lower = path.name.lower().removesuffix(".gz").removesuffix(".gzip")
    try:
        options, names = csv_header(text, lower, _MAX_COLUMNS)
    except DataError as exc:
        raise DataError(f"The header of {label!r} could not be read: {exc}") from exc
    new_line = "\\r" if "\r" in text and "\n" not in text else None
    return CsvLayout(options["sep"], encoding, unique_names(names, []), new_line)


# ---------------------------------------------------------------------------- SQL pieces
def _read_csv(files: Sequence[Path], layout: CsvLayout, types: Sequence[str] | None = None) -> str:
    """DuckDB's scan of the files: no sniffing, the header line skipped, short rows padded
    with NULL, the NA tokens (exactly as written) NULL, columns named ``c0, c1, ...`` of
    ``types`` (default all VARCHAR)."""
    listed = "[" + ", ".join(_literal(str(f)) for f in files) + "]"
    types = types or ["VARCHAR"] * len(layout.names)
    columns = "{" + ", ".join(f"'c{i}': '{t}'" for i, t in enumerate(types)) + "}"
    # a blank line of a one-column file is a row '' (left out later), not a missing cell
    nulls = [t for t in NA_TOKENS if t or len(types) > 1]
    options = [
        "header = false",
        "skip = 1",
        "auto_detect = false",
        f"columns = {columns}",
        f"delim = {_literal(layout.delimiter)}",
        "quote = '\"'",
        "escape = '\"'",
        "null_padding = true",
        "nullstr = [" + ", ".join(map(_literal, nulls)) + "]",
        f"encoding = {_literal(layout.encoding)}",
    ]
    if layout.new_line:
        options.append(f"new_line = {_literal(layout.new_line)}")
    if not layout.parallel:
        options.append("parallel = false")
    return f"read_csv({listed}, {', '.join(options)})"


def _blank(n_columns: int) -> str:
    """A line of spaces, which pandas skips and DuckDB reads as a row (its other cells
    padded): its first cell is spaces and every other NULL. DuckDB skips an empty line
    itself; a one-column file's quoted ``""`` is a row (pandas reads a missing cell).

    Every other cell, not only the second: a row ``  ,,q`` (first cell spaces, second
    empty) is a row of data, which testing the second alone dropped. A row of spaces and
    empty or NA cells only is still taken for a blank line (pandas keeps it, all missing).
    """
    if n_columns == 1:
        return "coalesce(regexp_full_match(c0, '[ \t]+'), false)"
    padded = " AND ".join(f"c{i} IS NULL" for i in range(1, n_columns))
    return f"coalesce({padded} AND regexp_full_match(c0, '[ \t]+'), false)"


def _space(code: str) -> str:
    """Whether the code point ``code`` is whitespace to Python's ``str.strip``."""
    return f"(({code} <= 32 OR {code} >= 133) AND {code} IN ({', '.join(map(str, _SPACE_CODES))}))"


def _edged(raw: str) -> str:
    """Whether a (non-empty) cell begins or ends with whitespace: only those are trimmed,
    as trimming every cell costs more than the scan."""
    return f"({_space(f'ord({raw})')} OR {_space(f'ord(right({raw}, 1))')})"


def _parse_missing(raw: str) -> str:
    """Missing as pandas' parser sees it: NULL (an NA token as written, DuckDB's nullstr),
    or an NA token after leading spaces (``skipinitialspace``); ``''`` too, which only a
    one-column file's quoted ``""`` line leaves (its nullstr lacks ``''``, see :func:`_blank`)."""
    spaced_na = f"starts_with({raw}, ' ') AND ltrim({raw}, ' ') IN {_NA_LIST}"
    return f"({raw} IS NULL OR {raw} = '' OR ({spaced_na}))"


def _number_text(raw: str) -> str:
    """The cell without the ASCII whitespace pandas' number parser skips."""
    return f"CASE WHEN {_edged(raw)} THEN trim({raw}, {_literal(_ASCII_SPACE)}) ELSE {raw} END"


def _stripped(raw: str) -> str:
    """The cell as ``str.strip`` leaves it."""
    return f"CASE WHEN {_edged(raw)} THEN trim({raw}, {_literal(_UNICODE_SPACE)}) ELSE {raw} END"


def _tidy_missing(raw: str) -> str:
    """Missing as the readers' text tidying sees it: an NA token once stripped."""
    return (
        f"({raw} IS NULL OR {raw} = '' OR ({_edged(raw)} AND "
        f"trim({raw}, {_literal(_UNICODE_SPACE)}) IN {_NA_LIST}))"
    )


def _matches(text: str, pattern: str) -> str:
    return f"regexp_full_match({text}, {_literal(pattern)})"


def _grouping(delimiter: str) -> bool:
    """Whether a file of ``delimiter`` may hold numbers grouped by thousands separators
    (the readers' comma-separated files, :func:`heb.data.text_columns._thousands_grouped`)."""
    return delimiter != ";" and file_kind(delimiter) == "comma-separated"


def _spaced(pattern: str) -> str:
    """``pattern`` with the whitespace ``str.strip`` removes around it: matched on the cell
    as it stands, which costs less than stripping it first (0.22 s, not 0.38, for 2 x 10^6
    cells)."""
    spaces = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in _UNICODE_SPACE) + "]*"
    return f"{spaces}(?:{pattern}){spaces}"


def _spreadsheet_kind(raw: str, decimal_comma: bool, grouping: bool) -> str:
    """``WHEN`` clauses telling a text cell a spreadsheet wrote: a percentage (``12%``,
    ``12,5%`` with ``decimal_comma``), a number grouped by thousands separators (when
    ``grouping``), a number written with a comma (a file of no decimal commas), a date.

    A cell is sent to the patterns its ``%`` or comma allows (a date has neither), so most
    cells meet one pattern, matched on the cell unstripped (:func:`_spaced`)."""
    percent = _ASCII["percent_comma" if decimal_comma else "percent"]
    whole = (
        f"CASE WHEN {_matches(raw, _spaced(_PERCENT_INT))} THEN {_PERCENT_WHOLE} "
        f"WHEN {_matches(raw, _spaced(_LONG_PERCENT))} THEN {_PERCENT_LONG} "
        f"ELSE {_PERCENT_PART} END"
    )
    commas = ""
    if grouping:
        sure = f"strpos({raw}, '.') > 0 OR length({raw}) - length(replace({raw}, ',', '')) > 1"
        kind = f"CASE WHEN {sure} THEN {_GROUPED_SURE} ELSE {_GROUPED} END"
        commas += f"WHEN {_matches(raw, _spaced(_ASCII['grouped']))} THEN {kind} "
    if not decimal_comma:
        commas += f"WHEN {_matches(raw, _spaced(_ASCII['comma']))} THEN {_COMMA} "
    clauses = (
        f"WHEN strpos({raw}, '%') > 0 THEN "
        f"CASE WHEN {_matches(raw, _spaced(percent))} THEN {whole} ELSE {_TEXT} END "
    )
    if commas:
        clauses += f"WHEN strpos({raw}, ',') > 0 THEN CASE {commas}ELSE {_TEXT} END "
    return clauses + f"WHEN {_matches(raw, _spaced(_ASCII['date']))} THEN {_DAY} "


def _cell_kind(raw: str, decimal_comma: bool, grouping: bool = False) -> str:
    """The kind of a cell (one of the ``_MISSING`` ... ``_DAY`` codes), the first that fits."""
    number = _number_text(raw)
    comma = lambda text, code: (  # noqa: E731
        f"WHEN {_matches(text, _COMMA_NUMBER)} THEN {code} " if decimal_comma else ""
    )
    spaced = (
        f"CASE WHEN {_edged(raw)} AND {_matches(_stripped(raw), _NUMBER)} THEN {_SPACED_COMMA} "
        f"ELSE {_COMMA} END"
    )
    float_kind = (
        f"CASE {comma(number, _FLOAT_COMMA)}ELSE {_FLOAT} END" if decimal_comma else str(_FLOAT)
    )
    return (
        f"CASE WHEN {_parse_missing(raw)} THEN {_MISSING} "
        f"WHEN {_matches(number, _ZERO_CODE)} THEN {_ZERO} "
        f"WHEN {_matches(number, _SMALL_INT)} THEN {_SMALL} "
        f"WHEN {_matches(number, _INT)} THEN {_LONG} "
        f"WHEN {_matches(number, _NUMBER)} THEN {float_kind} "
        f"WHEN lower(ltrim({raw}, ' ')) IN ('true', 'false') THEN {_BOOL} "
        f"WHEN {_tidy_missing(raw)} THEN {_TIDY_NA} "
        f"{comma(_stripped(raw), spaced)}"
        f"WHEN {_edged(raw)} AND {_matches(_stripped(raw), _NUMBER)} THEN {_SPACED} "
        f"{_spreadsheet_kind(raw, decimal_comma, grouping)}"
        f"ELSE {_TEXT} END"
    )


def _clean_or_kind(raw: str, decimal_comma: bool, grouping: bool = False) -> str:
    """A cell's kind code, plus :data:`_UNCLEAN` unless DuckDB's own parser reads it as
    the readers do: NULL, a plain integer or decimal, or text with no whitespace at its
    ends that cannot be a number. Plain cells skip the trimming and most patterns."""
    plain_float = _matches(raw, _PLAIN_FLOAT)
    float_kind = (
        f"CASE WHEN {_matches(raw, _COMMA_NUMBER)} THEN {_FLOAT_COMMA} ELSE {_FLOAT} END"
        if decimal_comma
        else str(_FLOAT)
    )
    # a number begins with a sign, a digit, a point or the i of inf (after whitespace)
    text_kind = (
        f"CASE WHEN lower({raw}) IN ('true', 'false') THEN {_BOOL} "
        + (f"WHEN {_matches(raw, _COMMA_NUMBER)} THEN {_COMMA} " if decimal_comma else "")
        # a percentage with a decimal comma may begin with it (,5%)
        + (
            f"WHEN {_matches(raw, _ASCII['percent_comma'])} THEN {_PERCENT_PART} "
            if decimal_comma
            else ""
        )
        + f"ELSE {_TEXT} END"
    )
    return (
        f"CASE WHEN {raw} IS NULL THEN {_MISSING} "
        f"WHEN {raw} = '' THEN {_UNCLEAN} + {_MISSING} "
        f"WHEN {_matches(raw, _ZERO_CODE)} THEN {_ZERO} "
        f"WHEN {_matches(raw, _SMALL_INT)} THEN {_SMALL} "
        f"WHEN {plain_float} THEN {float_kind} "
        f"WHEN ord({raw}) NOT IN (43, 45, 46, 73, 105) AND NOT ord({raw}) BETWEEN 48 AND 57 "
        f"AND NOT {_edged(raw)} THEN {text_kind} "
        f"ELSE {_UNCLEAN} + {_cell_kind(raw, decimal_comma, grouping)} END"
    )


def _only(kinds: int, *allowed: int) -> bool:
    """Whether the kind set ``kinds`` (a bit mask) holds no kind but ``allowed``."""
    return not kinds & ~sum(1 << k for k in allowed)


# ---------------------------------------------------------------------------- typing
def _cells(scan: str, columns: Sequence[int], extra: str = "") -> str:
    """The cells of ``columns`` of the scan as rows (``heb_col``: the column's number,
    ``raw``: its cell), one per column per row, ``extra`` (``, name``) carried along.

    A query over every column at once named each column's expression once: its SQL grew
    by 4 kB a column, and DuckDB took longer to parse and bind it than to run it (3.2 of
    4.7 s at 300 columns, on one row as on 20,000), so opening a 1,500-column file took
    minutes. As rows, the expression is written once whatever the width."""
    if len(columns) == 1:  # no lists to unnest
        return f"(SELECT {columns[0]} AS heb_col, c{columns[0]} AS raw{extra} FROM {scan})"
    numbers = "[" + ", ".join(map(str, columns)) + "]"
    cells = "[" + ", ".join(f"c{i}" for i in columns) + "]"
    return f"(SELECT unnest({numbers}) AS heb_col, unnest({cells}) AS raw{extra} FROM {scan})"


def _estimated_rows(files: Sequence[Path]) -> float:
    """The files' rows, estimated from the first one's head (a gzip file taken to be a
    quarter of its text)."""
    head, whole = _head(files[0])
    lines = max(head.count(b"\n"), head.count(b"\r"), 1)
    if whole and len(files) == 1:
        return lines
    gz = (".gz", ".gzip")
    size = sum(f.stat().st_size * (4 if f.name.lower().endswith(gz) else 1) for f in files)
    return lines * size / max(len(head), 1)


def _kinds(con, scan: str, layout: CsvLayout) -> tuple[int, int, list[int], list[bool]]:
    """Rows, lines of spaces, each column's set of cell kinds (a bit mask) and whether
    DuckDB's parser can read it as it stands: one scan of the file, its cells read as
    rows or column by column (:attr:`CsvLayout.cells_as_rows`)."""
    n = len(layout.names)
    decimal_comma, grouping = layout.delimiter == ";", _grouping(layout.delimiter)
    # the blank test once per row (it names every column), not once per cell
    lines = f"(SELECT *, {_blank(n)} AS heb_blank FROM {scan})"
    if layout.cells_as_rows:
        rows, blanks, masks = _kinds_as_rows(con, lines, n, decimal_comma, grouping)
    else:
        rows, blanks, masks = _kinds_by_column(con, lines, n, decimal_comma, grouping)
    kinds = [(m | m >> _UNCLEAN) & ((1 << _UNCLEAN) - 1) for m in masks]
    clean = [not m >> _UNCLEAN for m in masks]
    if blanks:  # lines of spaces: the first column is read as text to find them
        clean[0] = False
    return rows, blanks, kinds, clean


def _kinds_as_rows(
    con, lines: str, n: int, decimal_comma: bool, grouping: bool
) -> tuple[int, int, list[int]]:
    """Rows, lines of spaces and each column's kind mask (:func:`_clean_or_kind`), the
    cells read as rows: one expression whatever the width."""
    cells = _cells(lines, list(range(n)), ", heb_blank")
    found = con.execute(
        "SELECT heb_col, count(*) FILTER (WHERE NOT heb_blank), count(*) FILTER (WHERE heb_blank), "
        f"bit_or(1::BIGINT << ({_clean_or_kind('raw', decimal_comma, grouping)})) "
        f"FILTER (WHERE NOT heb_blank) FROM {cells} GROUP BY heb_col"
    ).fetchall()
    by_column = {int(row[0]): row for row in found}  # none for a file of no rows
    masks = [int(by_column[i][3] or 0) if i in by_column else 0 for i in range(n)]
    rows, blanks = (int(by_column[0][1]), int(by_column[0][2])) if by_column else (0, 0)
    return rows, blanks, masks


def _kinds_by_column(
    con, lines: str, n: int, decimal_comma: bool, grouping: bool
) -> tuple[int, int, list[int]]:
    """Rows, lines of spaces and each column's kind mask (:func:`_clean_or_kind`), one
    query naming each column's expression."""
    parts = ["count(*) FILTER (WHERE NOT heb_blank)", "count(*) FILTER (WHERE heb_blank)"] + [
        f"bit_or(1::BIGINT << ({_clean_or_kind(f'c{i}', decimal_comma, grouping)})) "
        "FILTER (WHERE NOT heb_blank)"
        for i in range(n)
    ]
    # DuckDB's optimizer rewrites this query's one CASE tree per column for nothing (one
    # scan, every column read): 40 % of the query on 100 columns, 45 % on 300
    con.execute("PRAGMA disable_optimizer")
    try:
        row = con.execute(f"SELECT {', '.join(parts)} FROM {lines}").fetchone()
    finally:
        con.execute("PRAGMA enable_optimizer")
    return int(row[0]), int(row[1]), [int(k or 0) for k in row[2:]]


def _integer_ranges(con, scan: str, columns: Sequence[int]) -> dict[int, tuple]:
    """(least, greatest, unreadable) integer of each of ``columns`` (the readers' integer
    cells, as ``HUGEINT``; those past it counted), in one scan for all of them."""
    if not columns:
        return {}
    number = _number_text("raw")
    value = f"TRY_CAST({number} AS HUGEINT)"
    integer = f"{_matches(number, _INT)} AND NOT {_parse_missing('raw')}"
    found = con.execute(
        f"SELECT heb_col, min({value}) FILTER (WHERE {integer}), max({value}) FILTER (WHERE "
        f"{integer}), count(*) FILTER (WHERE {integer} AND {value} IS NULL) "
        f"FROM {_cells(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(row[0]): tuple(row[1:]) for row in found}


def _long_integers(lo: int | None, hi: int | None, lost: int, missing: bool) -> str:
    """How the readers type a column holding integers of 16 digits or more, from its
    least and greatest integer and how many are past ``HUGEINT`` (:func:`_integer_ranges`):
    ``BIGINT`` (int64, or exact Int64 beside a missing cell), ``DOUBLE`` (float64),
    ``UBIGINT`` (uint64), ``raw`` (text as written) or ``canonical`` (text of each
    integer's value).

    pandas' parser keeps integers past int64 only as uint64 with no missing cell and no
    negative; past uint64 it gives Python integers (their ``str``).
    """
    if lost or lo is None or lo < -(2**63) or hi >= 2**64:
        return "canonical"
    if hi < 2**63:
        return "DOUBLE" if missing and max(-lo, hi) < _BIG else "BIGINT"
    return "UBIGINT" if lo >= 0 and not missing else "raw"


def _unsigned(con, scan: str, columns: Sequence[int]) -> set[int]:
    """Those of ``columns`` whose every present cell is a plain digit string (no sign), in
    one scan for all of them: an integer column of such strings, one written with a
    leading zero, the readers keep as codes."""
    if not columns:
        return set()
    number = _number_text("raw")
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE NOT {_parse_missing('raw')} "
        f"AND NOT {_matches(number, _DIGITS)}) FROM {_cells(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(i) for i, signed in found if signed == 0}


def _integer_checks(con, scan: str, kinds: Sequence[int]) -> tuple[set[int], dict[int, tuple]]:
    """The columns :func:`_column` reads as codes, and the integer ranges of those it
    types as integers of 16 digits or more: at most two scans for all columns, not one
    or two per column (38 columns of codes took 3.8 s of queries in a 20,000 x 300 file)."""
    integers = (_MISSING, _SMALL, _LONG, _ZERO)
    zeros = [i for i, k in enumerate(kinds) if k & (1 << _ZERO) and _only(k, *integers)]
    codes = _unsigned(con, scan, zeros)
    long = (1 << _LONG) | (1 << _ZERO)  # a code column that is not codes holds long integers
    wide = [i for i, k in enumerate(kinds) if i not in codes and k & long and _only(k, *integers)]
    return codes, _integer_ranges(con, scan, wide)


def _grouped_checks(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The read type (``BIGINT`` or ``DOUBLE``) of the columns of a comma-separated file
    the readers read as numbers grouped by thousands separators
    (:func:`heb.data.text_columns._thousands_grouped`): every present cell a plain number
    or a grouped one, some grouped, and either one beyond doubt or the plain ones all below
    1,000. One scan of the columns with a grouped cell, none when no column has one."""
    grouped = (1 << _GROUPED) | (1 << _GROUPED_SURE)
    allowed = (_MISSING, _TIDY_NA, _SMALL, _LONG, _ZERO, _FLOAT, _TEXT, _SPACED)
    allowed += (_GROUPED, _GROUPED_SURE)
    columns = [i for i, k in enumerate(kinds) if k & grouped and _only(k, *allowed)]
    if not columns:
        return {}
    text, present = _stripped("raw"), f"NOT {_tidy_missing('raw')}"
    plain = _matches(text, _ASCII["plain"])
    without_commas = f"replace({text}, ',', '')"
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE {present} AND NOT ({plain} OR "
        f"{_matches(text, _ASCII['grouped'])})), count(*) FILTER (WHERE {present} AND {plain}), "
        f"count(*) FILTER (WHERE {present} AND {plain} AND abs(TRY_CAST({text} AS DOUBLE)) >= "
        f"1000), count(*) FILTER (WHERE {present} AND strpos({text}, '.') > 0), "
        f"{_past_integers(without_commas, present)} "
        f"FROM {_cells(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    types = {}
    for i, other, plains, large, points, *past in found:
        k = kinds[int(i)]
        if other or not (k & (1 << _GROUPED_SURE) or (plains and not large)):
            continue
        missing = k & ((1 << _MISSING) | (1 << _TIDY_NA))
        types[int(i)] = "DOUBLE" if missing or points else _integer_type(*past)
    return types


def _past_integers(number: str, present: str) -> str:
    """Two counts of the cells ``present``, their integer ``number``: those past BIGINT,
    and those past UBIGINT (with the negative ones), for :func:`_integer_type`."""
    return (
        f"count(*) FILTER (WHERE {present} AND TRY_CAST({number} AS BIGINT) IS NULL), "
        f"count(*) FILTER (WHERE {present} AND TRY_CAST({number} AS UBIGINT) IS NULL)"
    )


def _integer_type(past_bigint: int, past_ubigint: int) -> str:
    """The type ``to_numeric`` reads a column of integers with no missing cell into, from
    :func:`_past_integers`: int64 (``BIGINT``), uint64 past it (``UBIGINT``, when no cell is
    negative), else float64 (the readers' :func:`heb.data.text_columns._as_numbers`)."""
    if not past_bigint:
        return "BIGINT"
    return "UBIGINT" if not past_ubigint else "DOUBLE"


#: the kinds of a semicolon file's column of decimal-comma numbers (:func:`_column`)
_COMMA_KINDS = (_MISSING, _SMALL, _LONG, _FLOAT_COMMA, _COMMA, _SPACED_COMMA, _TIDY_NA)


def _decimal_comma_number(raw: str) -> str:
    """A decimal-comma cell as the readers rewrite it for ``to_numeric``: ``1.234,5`` to
    ``1234.5``."""
    return f"replace(replace({_stripped(raw)}, '.', ''), ',', '.')"


def _whole_commas(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The integer type of the columns of a semicolon file's decimal-comma numbers
    (:func:`_column`) with no missing cell whose every number is an integer once rewritten
    (``1.234.567``, ``\u00a0852``): ``to_numeric`` reads them into int64 (uint64 or
    float64 past it, :func:`_integer_type`), as the readers type them. One scan of the
    columns with a comma cell and no missing one."""
    commas = (1 << _COMMA) | (1 << _SPACED_COMMA)
    # a code written with a leading zero (0852) is an integer like any beside comma cells
    allowed = (*_COMMA_KINDS[1:-1], _ZERO)
    columns = [i for i, k in enumerate(kinds) if k & commas and _only(k, *allowed)]
    if not columns:
        return {}
    number = _decimal_comma_number("raw")
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE NOT {_matches(number, _INT)}), "
        f"{_past_integers(number, 'true')} FROM {_cells(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(i): _integer_type(*past) for i, fraction, *past in found if fraction == 0}


def _long_percentages(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The integer type (:func:`_integer_type`) of the columns of percentages with no
    missing cell whose numbers are all integers, some of 19 digits or more: int64 as
    ``to_numeric`` reads them when they fit, uint64 or float64 past it. One scan of those
    columns, none when no column has such a percentage."""
    long = 1 << _PERCENT_LONG
    columns = [
        i for i, k in enumerate(kinds) if k & long and _only(k, _PERCENT_WHOLE, _PERCENT_LONG)
    ]
    if not columns:
        return {}
    number = f"rtrim({_stripped('raw')}, '% ')"
    found = con.execute(
        f"SELECT heb_col, {_past_integers(number, 'true')} FROM {_cells(scan, columns)} "
        "GROUP BY heb_col"
    ).fetchall()
    return {int(i): _integer_type(*past) for i, *past in found}


def _text(raw: str) -> str:
    return f"CASE WHEN {_tidy_missing(raw)} THEN NULL ELSE {_stripped(raw)} END"


def _canonical(raw: str) -> str:
    """Each integer as Python's ``str(int(cell))`` writes it (no ``+``, no leading zeros)."""
    number = _number_text(raw)
    digits = f"ltrim(ltrim({number}, '+-'), '0')"
    return (
        f"CASE WHEN {_parse_missing(raw)} THEN NULL WHEN {digits} = '' THEN '0' "
        f"WHEN starts_with({number}, '-') THEN '-' || {digits} ELSE {digits} END"
    )


#: the kinds of a percentage: its number an integer of up to 18 digits, or not, or longer
_PERCENT_KINDS = (_PERCENT_WHOLE, _PERCENT_PART, _PERCENT_LONG)


def _percentages(kinds: int) -> bool:
    """Whether a column of the kind set ``kinds`` is read as percentages: every present
    cell one, as the readers' pattern for the file writes it (:func:`_spreadsheet_kind`)."""
    percents = sum(1 << k for k in _PERCENT_KINDS)
    return bool(kinds & percents) and _only(kinds, _MISSING, _TIDY_NA, *_PERCENT_KINDS)


def _column(  # noqa: C901 -- one branch per way the readers type a column
    i: int,
    kinds: int,
    clean: bool,
    decimal_comma: bool,
    codes: bool,
    span,
    grouped=None,
    whole: str | None = None,
):
    """(DuckDB's read type, SQL expression) of column ``i``, from its kind set: a column
    DuckDB's parser reads as the readers do is read typed, the others as text and typed
    in SQL. ``codes`` and ``span`` are what :func:`_integer_checks` found of it: whether
    it is codes, and its integer range (for integers of 16 digits or more); ``grouped``
    the type of a column of numbers with thousands separators (:func:`_grouped_checks`),
    ``whole`` the integer type of a column of decimal-comma numbers or of percentages
    that holds integers of 19 digits or more (:func:`_whole_commas`,
    :func:`_long_percentages`), None when it holds no such integers or some fraction."""
    raw = f"c{i}"
    if grouped:
        number = f"replace({_stripped(raw)}, ',', '')"
        return (
            "VARCHAR",
            f"CASE WHEN {_tidy_missing(raw)} THEN NULL ELSE CAST({number} AS {grouped}) END",
        )
    if _percentages(kinds):
        number = f"rtrim({_stripped(raw)}, '% ')"  # the number before the sign
        if decimal_comma:
            number = f"replace({number}, ',', '.')"
        kind = "BIGINT" if _only(kinds, _PERCENT_WHOLE) else whole or "DOUBLE"  # as to_numeric
        return (
            "VARCHAR",
            f"CASE WHEN {_tidy_missing(raw)} THEN NULL ELSE CAST({number} AS {kind}) END",
        )
    missing = bool(kinds & (1 << _MISSING))
    value = f"CASE WHEN {_parse_missing(raw)} THEN NULL ELSE {_number_text(raw)} END"
    if kinds & (1 << _ZERO):
        if codes:
            return "VARCHAR", _text(raw)  # codes: every value a digit string, some 0...
        kinds = kinds & ~(1 << _ZERO) | (1 << _LONG)  # else numbers like any integer
    if _only(kinds, _MISSING, _SMALL):
        kind = "DOUBLE" if missing else "BIGINT"
        return (kind, raw) if clean else ("VARCHAR", f"CAST({value} AS {kind})")
    if _only(kinds, _MISSING, _SMALL, _LONG, _FLOAT, _FLOAT_COMMA):
        kind = "DOUBLE"
        if _only(kinds, _MISSING, _SMALL, _LONG):
            kind = _long_integers(*span, missing)
        if kind == "raw":
            return "VARCHAR", _text(raw)
        if kind == "canonical":
            return "VARCHAR", _canonical(raw)
        return (kind, raw) if clean else ("VARCHAR", f"CAST({value} AS {kind})")
    if _only(kinds, _MISSING, _BOOL):
        flag = f"lower(ltrim({raw}, ' ')) = 'true'"
        if not missing:
            return "VARCHAR", flag
        return "VARCHAR", (
            f"CASE WHEN {_parse_missing(raw)} THEN NULL WHEN {flag} THEN 'True' ELSE 'False' END"
        )
    present = (1 << _SMALL) | (1 << _LONG) | (1 << _FLOAT_COMMA) | (1 << _COMMA)
    present |= 1 << _SPACED_COMMA
    if decimal_comma and _only(kinds, *_COMMA_KINDS) and kinds & present:
        plain, kind = _decimal_comma_number(raw), whole or "DOUBLE"
        return (
            "VARCHAR",
            f"CASE WHEN {_tidy_missing(raw)} THEN NULL ELSE CAST({plain} AS {kind}) END",
        )
    return ("VARCHAR", raw) if clean else ("VARCHAR", _text(raw))


# ---------------------------------------------------------------------------- errors
def _refusal(message: str, label: str, n_columns: int) -> DataError:
    """One sentence for a DuckDB CSV error, naming the line where DuckDB says it."""
    line = re.search(r"Line: (\d+)", message)
    where = f"Line {line.group(1)} of {label!r}" if line else f"A line of {label!r}"
    found = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", message)
    if found:
        return DataError(
            f"{where} has {found.group(2)} values but the header has {n_columns}; every row "
            "needs the same number of values."
        )
    if "unterminated quote" in message.lower():
        return DataError(f"{where} opens a quote that is never closed; check the file's quotes.")
    if "maximum line size" in message.lower():
        return DataError(
            f"{where} is longer than the largest line DuckDB reads; check the file's quotes "
            "and line ends."
        )
    return DataError(
        f"{where} could not be read as a row of the table; check the file's quotes and delimiters."
    )


#: the UTF-8 copies made for a connection (their removers, :func:`copies_of`), removed when
#: called or once the connection is collected
_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def copies_of(con) -> list:
    """The removers of the UTF-8 copies :func:`csv_scan` made so far for the connection
    ``con``: each deletes its copy when called (an app server keeps a finished scan's
    engine, so waiting for the connection to be collected left a copy of the whole file
    on disk per scan, 325 MB each of a 6 x 10^6-row file)."""
    return list(_COPIES.get(con, []))


def _utf8_copy(con, path: Path, read_as: list[str] | None = None, stop=None) -> Path:
    """A UTF-8 copy of a file that is not UTF-8, decoded as the readers decode it
    (Windows-1252, else Latin-1), streamed; it is deleted with the connection ``con``.
    The encoding it was decoded as is appended to ``read_as``; once ``stop()`` is true
    the copy ends with :class:`InterruptedError` (a Cancel in the app).

    DuckDB reads Latin-1 but refuses its bytes 0x80-0x9F, which Windows-1252 uses for
    ``€``, curly quotes and dashes, so the file is copied rather than read in place.
    """
    folder = Path(tempfile.gettempdir()) / "heb_csv_utf8"
    folder.mkdir(exist_ok=True)
    handle, name = tempfile.mkstemp(suffix=".csv", dir=folder)
    os.close(handle)
    copy = Path(name)
    _COPIES.setdefault(con, []).append(weakref.finalize(con, copy.unlink, missing_ok=True))
    opener = gzip.open if path.name.lower().endswith((".gz", ".gzip")) else open
    for encoding in ("cp1252", "latin-1"):  # Latin-1 decodes every byte
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            with opener(path, "rb") as source, copy.open("w", encoding="utf-8", newline="") as out:
                while chunk := source.read(_COPY_BYTES):
                    if stop is not None and stop():
                        raise InterruptedError(f"The copy of {path.name!r} was interrupted.")
                    out.write(decoder.decode(chunk))
                out.write(decoder.decode(b"", final=True))
            break
        except UnicodeDecodeError:
            continue
    if read_as is not None:
        read_as.append(encoding)
    return copy


def _typing_scan(con, files: list[Path], label: str, read_as: list[str], stop=None):
    """(files, layout, scan, rows, blanks, kinds, clean) of the scan typing the columns
    (:func:`_kinds`): the files are UTF-8 copies when they are not UTF-8 (judged by the
    head, or by DuckDB reading them; the encodings they were decoded as are appended to
    ``read_as``), read serially when a quoted line break needs it."""
    import duckdb

    layout = csv_layout(files[0], label)
    if layout.encoding in ("cp1252", "latin-1"):
        files = [_utf8_copy(con, f, read_as, stop) for f in files]
        layout = csv_layout(files[0], label)
    layout = replace(layout, cells_as_rows=_estimated_rows(files) < _FEW_ROWS)
    for _ in range(3):
        scan = _read_csv(files, layout)
        try:
            return (files, layout, scan, *_kinds(con, scan, layout))
        except duckdb.Error as exc:
            message = str(exc)
            if "unicode" in message.lower() and layout.encoding == "utf-8":
                files = [_utf8_copy(con, f, read_as, stop) for f in files]
                layout = replace(
                    csv_layout(files[0], label),
                    parallel=layout.parallel,
                    cells_as_rows=layout.cells_as_rows,
                )
            elif "null_padding in conjunction with quoted new lines" in message and layout.parallel:
                layout = replace(layout, parallel=False)
            elif "unicode" in message.lower() or "encod" in message.lower():
                raise DataError(
                    f"The file {label!r} is not valid {layout.encoding.upper()} text; save it "
                    "as UTF-8."
                ) from exc
            else:
                raise _refusal(message, label, len(layout.names)) from exc
    raise DataError(f"The file {label!r} could not be read as a table; save it as UTF-8 CSV.")


def _example(
    con,
    scan: str,
    raw: str,
    kinds: Sequence[int],
    decimal_comma: bool,
    grouping: bool = False,
    where: str = "true",
) -> str | None:
    """The first cell of column ``raw`` of one of the ``kinds`` (as :func:`_cell_kind`
    tells them) for which ``where`` holds, as the readers' note quotes it (stripped), or
    None when there is none."""
    listed = ", ".join(map(str, kinds))
    found = con.execute(
        f"SELECT {_stripped(raw)} FROM {scan} WHERE {_cell_kind(raw, decimal_comma, grouping)} IN "
        f"({listed}) AND {where} LIMIT 1"
    ).fetchone()
    return found[0] if found else None


def _nonzero_percent(raw: str, decimal_comma: bool) -> str:
    """Whether a percentage cell's number is not zero: the note quotes such a cell when the
    column has one (``0%`` shows neither scale nor decimals), as the readers'
    :func:`heb.data.text_columns._percent_example`."""
    number = f"rtrim({_stripped(raw)}, '% ')"
    if decimal_comma:
        number = f"replace({number}, ',', '.')"
    return f"TRY_CAST({number} AS DOUBLE) <> 0"


#: the kinds of cell pandas' ``to_numeric`` reads as a number, and those it does not
_NUMBER_KINDS = (_SMALL, _FLOAT, _LONG, _ZERO, _FLOAT_COMMA, _SPACED, _SPACED_COMMA)
_WORD_KINDS = (_TEXT, _BOOL, _COMMA, *_PERCENT_KINDS, _GROUPED, _GROUPED_SURE, _DAY)


def _days(con, scan: str, columns: Sequence[int]) -> dict[int, int]:
    """The different values of each of ``columns`` (each a column of dates), in one scan."""
    if not columns:
        return {}
    text = _stripped("raw")
    found = con.execute(
        f"SELECT heb_col, count(DISTINCT {text}) FILTER (WHERE NOT {_tidy_missing('raw')}) "
        f"FROM {_cells(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(i): int(days) for i, days in found}


def _notes(con, scan: str, layout: CsvLayout, read_as: list[str], columns: list) -> list[str]:
    """What the readers would say of the file, in their order: its encoding when it is not
    UTF-8, the columns of codes kept as text, those of percentages and of thousands
    separators read as numbers, of numbers with some text cells, of numbers written with a
    comma, of many dates; from ``columns``, (name, kind set, whether read as codes, whether
    read as text, ``"percent"`` / ``"grouped"`` when read as such numbers or None)."""
    notes = [ENCODING_NOTES[read_as[0]]] if read_as else []
    decimal_comma, grouping = layout.delimiter == ";", _grouping(layout.delimiter)

    def example(i: int, kinds: Sequence[int]) -> str:
        if kinds == list(_PERCENT_KINDS):  # a percentage that is not zero, if any
            where = _nonzero_percent(f"c{i}", decimal_comma)
            found = _example(con, scan, f"c{i}", kinds, decimal_comma, grouping, where)
            if found is not None:
                return found
        return _example(con, scan, f"c{i}", kinds, decimal_comma, grouping)

    codes = [(i, name) for i, (name, _, code, _, _) in enumerate(columns) if code]
    if codes:
        i, name = codes[0]
        notes.append(codes_note(name, example(i, [_ZERO]), len(codes) - 1))
    converted = {}  # the first column's example, as the note quotes only that one
    for how, kinds in (
        ("percent", list(_PERCENT_KINDS)),
        ("grouped", [_GROUPED, _GROUPED_SURE]),
    ):
        found = [(i, name) for i, (name, *_, done) in enumerate(columns) if done == how]
        converted[how] = [
            (name, example(i, kinds) if not j else "") for j, (i, name) in enumerate(found)
        ]
    notes.extend(conversion_notes(converted["percent"], converted["grouped"]))
    number = sum(1 << k for k in _NUMBER_KINDS)
    word = sum(1 << k for k in _WORD_KINDS)
    text = [
        (i, name, kind)
        for i, (name, kind, code, as_text, _) in enumerate(columns)
        if as_text and not code
    ]
    mixed = [(i, name) for i, name, kind in text if kind & number and kind & word]
    if mixed:
        i, name = mixed[0]
        notes.append(mixed_note(name, example(i, _WORD_KINDS), len(mixed) - 1))
    commas = (1 << _COMMA) | (1 << _GROUPED)
    if not decimal_comma:
        written = [
            (i, name)
            for i, name, kind in text
            if kind & commas and _only(kind, _MISSING, _TIDY_NA, _COMMA, _GROUPED)
        ]
        if written:
            i, name = written[0]
            notes.append(
                comma_note(name, example(i, [_COMMA, _GROUPED]), file_kind(layout.delimiter))
            )
    dates = [
        i for i, _, kind in text if kind & (1 << _DAY) and _only(kind, _MISSING, _TIDY_NA, _DAY)
    ]
    days = _days(con, scan, dates)
    many = [i for i in dates if days.get(i, 0) > DATE_NOTE_VALUES]
    if many:
        i = many[0]
        notes.append(date_note(columns[i][0], example(i, [_DAY]), days[i], len(many) - 1))
    return notes


def csv_scan(
    con, files: Sequence[Path], label: str, stop=None
) -> tuple[str, dict[str, str], list[str], list[str]]:
    """A SELECT of the CSV ``files`` typed as :func:`heb.data.readers.read_table` types
    them, with the row key columns ``__heb_file`` and ``__heb_row``, the view identifiers
    of the columns DuckDB cannot tell apart from an earlier one (names equal but for
    case), as the parquet scan names them, the notes the readers would give of the
    file (its encoding, codes kept as text, percentages and thousands separators read as
    numbers, numbers mixed with text, numbers written with a comma, many dates), and the
    columns read from thousands separators (the readers' ``frame.attrs["heb_amounts"]``:
    amounts, never named as possible codes).

    Reads the file's head in Python (delimiter, encoding, header) and scans the file
    once in DuckDB to type its columns; the SELECT itself reads the file anew each run.
    A file that is not UTF-8 (nor UTF-16) is first copied as UTF-8.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
    files : sequence of Path
        The CSV file (several files share the first one's layout).
    label : str
        The name a user knows the data by, for messages.
    stop : callable, optional
        ``stop() -> bool``, checked while a file is copied as UTF-8 (a DuckDB query is
        stopped by the connection's ``interrupt``).

    Raises
    ------
    DataError
        One sentence: an empty, binary or header-only file, an encoding DuckDB cannot
        read, or a row DuckDB cannot parse (named by its line).
    """
    read_as: list[str] = []
    files, layout, scan, rows, blanks, kinds, clean = _typing_scan(
        con, [Path(f) for f in files], label, read_as, stop
    )
    if rows == 0:
        raise DataError(f"The file {label!r} has a header row but no data rows.")
    decimal_comma = layout.delimiter == ";"
    codes, spans = _integer_checks(con, scan, kinds)
    grouped = _grouped_checks(con, scan, kinds) if _grouping(layout.delimiter) else {}
    whole = _whole_commas(con, scan, kinds) if decimal_comma else {}
    whole |= _long_percentages(con, scan, kinds)
    types, columns, seen, renamed, read = [], [], set(), {}, []
    for i, name in enumerate(layout.names):
        if name.casefold() in seen:
            renamed[name] = f"{RESERVED_PREFIX}_c{i}"
        seen.add(name.casefold())
        kind, expression = _column(
            i,
            kinds[i],
            clean[i],
            decimal_comma,
            i in codes,
            spans.get(i),
            grouped.get(i),
            whole.get(i),
        )
        types.append(kind)
        columns.append(f"{expression} AS {DUCKDB.quote(renamed.get(name, name))}")
        # what _column decided: codes kept as text, or text (read as written or tidied)
        as_text = _text(f"c{i}")
        zeros = _only(kinds[i], _MISSING, _SMALL, _LONG, _ZERO) and kinds[i] & (1 << _ZERO)
        code = bool(zeros) and expression == as_text
        done = "grouped" if i in grouped else "percent" if _percentages(kinds[i]) else None
        read.append((name, kinds[i], code, expression in (f"c{i}", as_text), done))
    notes = _notes(con, scan, layout, read_as, read)
    rows_scan = _read_csv(files, layout, types)
    if blanks:
        rows_scan = f"(SELECT * FROM {rows_scan} WHERE NOT {_blank(len(layout.names))})"
    scan = (
        f"SELECT {', '.join(columns)}, '' AS __heb_file, row_number() OVER () AS __heb_row "
        f"FROM {rows_scan}"
    )
    amounts = [name for i, name in enumerate(layout.names) if i in grouped]
    return scan, renamed, notes, amounts
