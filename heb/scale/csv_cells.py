"""A CSV cell's kind, in DuckDB SQL: the readers' rules for one cell (:mod:`heb.scale.csv_scan`).

The typing scan (:mod:`heb.scale.csv_typing`) tells each cell of a file read as text
(``VARCHAR``) by :func:`cell_kind` / :func:`clean_or_kind`, one of the kind codes below
(:data:`MISSING` ... :data:`PERCENT_LONG`, as a bit of its column's kind set), from the
patterns the readers (:mod:`heb.data.text_columns`, pandas' parser) apply: missing as
pandas' parser and as the text tidying see it, integers and floats as pandas writes them,
booleans, decimal commas, the spreadsheet kinds (percentages, thousands separators,
dates), whitespace as ``str.strip`` removes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from heb.data.dataset import NA_TOKENS
from heb.data.delimiters import file_kind
from heb.data.readers import DECIMAL_COMMA
from heb.data.text_columns import COMMA_NUMBER as _WRITTEN_COMMA
from heb.data.text_columns import DATE_PATTERN as _DATE
from heb.data.text_columns import PERCENT as _PERCENT
from heb.data.text_columns import PERCENT_COMMA as _PERCENT_COMMA
from heb.data.text_columns import PLAIN_NUMBER as _PLAIN
from heb.data.text_columns import THOUSANDS as _THOUSANDS

__all__ = [
    "ASCII_PATTERNS",
    "BOOL",
    "COMMA",
    "DAY",
    "DIGITS",
    "FLOAT",
    "FLOAT_COMMA",
    "GROUPED",
    "GROUPED_SURE",
    "INT",
    "LONG",
    "MISSING",
    "PERCENT_KINDS",
    "PERCENT_LONG",
    "PERCENT_PART",
    "PERCENT_WHOLE",
    "SMALL",
    "SPACED",
    "SPACED_COMMA",
    "TEXT",
    "TIDY_NA",
    "UNCLEAN",
    "ZERO",
    "blank_line",
    "canonical",
    "cell_kind",
    "cell_rows",
    "clean_or_kind",
    "groups_thousands",
    "literal",
    "matches",
    "number_text",
    "only_kinds",
    "parse_missing",
    "stripped",
    "tidy_missing",
    "tidy_text",
]

#: whitespace pandas' number parser skips around a number (C ``isspace``)
_ASCII_SPACE = " \t\n\x0b\x0c\r"
#: code points Python's ``str.strip`` removes (what the readers strip text cells of):
#: those for which ``str.isspace`` holds
_SPACE_CODES = (*range(9, 14), *range(28, 33), 133, 160, 5760, *range(8192, 8203), 8232, 8233)
_SPACE_CODES += (8239, 8287, 12288)
_UNICODE_SPACE = "".join(map(chr, _SPACE_CODES))
#: an integer as pandas' parser reads one into int64 / uint64, short enough to be below 2**53
_SMALL_INT = r"[+-]?[0-9]{1,15}"
INT = r"[+-]?[0-9]+"
#: a decimal DuckDB's CSV parser reads as pandas' does (no spaces, infinities or huge exponents)
_PLAIN_FLOAT = (
    r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?|[+-]?[0-9]+[eE][+-]?[0-9]{1,2}"
)
#: a number as pandas' C parser reads one into float64 (``xstrtod`` and its infinities)
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity)"
#: the readers' decimal-comma number (ASCII digits: RE2's and pandas' notion of a digit)
_COMMA_NUMBER = DECIMAL_COMMA.replace(r"\d", "[0-9]")


#: a code written with a leading zero (ZIP ``02134``): a column of such digit strings and
#: unsigned integers is text as written, as the readers keep it (heb.data.text_columns)
_ZERO_CODE = r"0[0-9]+"
DIGITS = r"[0-9]+"
#: the readers' spreadsheet patterns (heb.data.text_columns) in ASCII digits, RE2's and
#: pandas' notion of a digit: a percentage (with a decimal comma), one whose number is an
#: integer pandas reads into int64, a number grouped by thousands separators, a plain
#: number, a number written with a comma in a file of no decimal commas, a date
ASCII_PATTERNS = {
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
# the kind of one cell, as a bit of the column's kind set (see cell_kind): the spreadsheet
# kinds are a percentage (its number an integer, or not), a number grouped by thousands
# separators (one group, or beyond doubt: several or a decimal point), a date; a number
# with whitespace pandas' parser keeps (``\u00a0852``) is text, but a number once stripped
MISSING, SMALL, FLOAT, BOOL, TEXT, COMMA, TIDY_NA, FLOAT_COMMA, LONG, ZERO = range(10)
PERCENT_WHOLE, PERCENT_PART, GROUPED, GROUPED_SURE, DAY, SPACED = range(10, 16)
#: such a number that is also a decimal-comma number in a semicolon file (converts with them)
SPACED_COMMA = 16
#: a percentage whose number is an integer of 19 digits or more: int64, uint64 or float64
#: as its column's range says (:func:`heb.scale.csv_typing.long_percentages`)
PERCENT_LONG = 17
#: added to the kind of a cell DuckDB's parser cannot read as the readers do
UNCLEAN = 20
#: the kinds of a percentage: its number an integer of up to 18 digits, or not, or longer
PERCENT_KINDS = (PERCENT_WHOLE, PERCENT_PART, PERCENT_LONG)


def literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


_NA_LIST = "(" + ", ".join(map(literal, NA_TOKENS)) + ")"


def blank_line(n_columns: int) -> str:
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


def parse_missing(raw: str) -> str:
    """Missing as pandas' parser sees it: NULL (an NA token as written, DuckDB's nullstr),
    or an NA token after leading spaces (``skipinitialspace``); ``''`` too, which only a
    one-column file's quoted ``""`` line leaves (its nullstr lacks ``''``, see
    :func:`blank_line`)."""
    spaced_na = f"starts_with({raw}, ' ') AND ltrim({raw}, ' ') IN {_NA_LIST}"
    return f"({raw} IS NULL OR {raw} = '' OR ({spaced_na}))"


def number_text(raw: str) -> str:
    """The cell without the ASCII whitespace pandas' number parser skips."""
    return f"CASE WHEN {_edged(raw)} THEN trim({raw}, {literal(_ASCII_SPACE)}) ELSE {raw} END"


def stripped(raw: str) -> str:
    """The cell as ``str.strip`` leaves it."""
    return f"CASE WHEN {_edged(raw)} THEN trim({raw}, {literal(_UNICODE_SPACE)}) ELSE {raw} END"


def tidy_missing(raw: str) -> str:
    """Missing as the readers' text tidying sees it: an NA token once stripped."""
    return (
        f"({raw} IS NULL OR {raw} = '' OR ({_edged(raw)} AND "
        f"trim({raw}, {literal(_UNICODE_SPACE)}) IN {_NA_LIST}))"
    )


def matches(text: str, pattern: str) -> str:
    return f"regexp_full_match({text}, {literal(pattern)})"


def groups_thousands(delimiter: str) -> bool:
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
    percent = ASCII_PATTERNS["percent_comma" if decimal_comma else "percent"]
    whole = (
        f"CASE WHEN {matches(raw, _spaced(_PERCENT_INT))} THEN {PERCENT_WHOLE} "
        f"WHEN {matches(raw, _spaced(_LONG_PERCENT))} THEN {PERCENT_LONG} "
        f"ELSE {PERCENT_PART} END"
    )
    commas = ""
    if grouping:
        sure = f"strpos({raw}, '.') > 0 OR length({raw}) - length(replace({raw}, ',', '')) > 1"
        kind = f"CASE WHEN {sure} THEN {GROUPED_SURE} ELSE {GROUPED} END"
        commas += f"WHEN {matches(raw, _spaced(ASCII_PATTERNS['grouped']))} THEN {kind} "
    if not decimal_comma:
        commas += f"WHEN {matches(raw, _spaced(ASCII_PATTERNS['comma']))} THEN {COMMA} "
    clauses = (
        f"WHEN strpos({raw}, '%') > 0 THEN "
        f"CASE WHEN {matches(raw, _spaced(percent))} THEN {whole} ELSE {TEXT} END "
    )
    if commas:
        clauses += f"WHEN strpos({raw}, ',') > 0 THEN CASE {commas}ELSE {TEXT} END "
    return clauses + f"WHEN {matches(raw, _spaced(ASCII_PATTERNS['date']))} THEN {DAY} "


def cell_kind(raw: str, decimal_comma: bool, grouping: bool = False) -> str:
    """The kind of a cell (one of the ``MISSING`` ... ``DAY`` codes), the first that fits."""
    number = number_text(raw)
    comma = lambda text, code: (  # noqa: E731
        f"WHEN {matches(text, _COMMA_NUMBER)} THEN {code} " if decimal_comma else ""
    )
    spaced = (
        f"CASE WHEN {_edged(raw)} AND {matches(stripped(raw), _NUMBER)} THEN {SPACED_COMMA} "
        f"ELSE {COMMA} END"
    )
    float_kind = (
        f"CASE {comma(number, FLOAT_COMMA)}ELSE {FLOAT} END" if decimal_comma else str(FLOAT)
    )
    return (
        f"CASE WHEN {parse_missing(raw)} THEN {MISSING} "
        f"WHEN {matches(number, _ZERO_CODE)} THEN {ZERO} "
        f"WHEN {matches(number, _SMALL_INT)} THEN {SMALL} "
        f"WHEN {matches(number, INT)} THEN {LONG} "
        f"WHEN {matches(number, _NUMBER)} THEN {float_kind} "
        f"WHEN lower(ltrim({raw}, ' ')) IN ('true', 'false') THEN {BOOL} "
        f"WHEN {tidy_missing(raw)} THEN {TIDY_NA} "
        f"{comma(stripped(raw), spaced)}"
        f"WHEN {_edged(raw)} AND {matches(stripped(raw), _NUMBER)} THEN {SPACED} "
        f"{_spreadsheet_kind(raw, decimal_comma, grouping)}"
        f"ELSE {TEXT} END"
    )


def clean_or_kind(raw: str, decimal_comma: bool, grouping: bool = False) -> str:
    """A cell's kind code, plus :data:`UNCLEAN` unless DuckDB's own parser reads it as
    the readers do: NULL, a plain integer or decimal, or text with no whitespace at its
    ends that cannot be a number. Plain cells skip the trimming and most patterns."""
    plain_float = matches(raw, _PLAIN_FLOAT)
    float_kind = (
        f"CASE WHEN {matches(raw, _COMMA_NUMBER)} THEN {FLOAT_COMMA} ELSE {FLOAT} END"
        if decimal_comma
        else str(FLOAT)
    )
    # a number begins with a sign, a digit, a point or the i of inf (after whitespace)
    text_kind = (
        f"CASE WHEN lower({raw}) IN ('true', 'false') THEN {BOOL} "
        + (f"WHEN {matches(raw, _COMMA_NUMBER)} THEN {COMMA} " if decimal_comma else "")
        # a percentage with a decimal comma may begin with it (,5%)
        + (
            f"WHEN {matches(raw, ASCII_PATTERNS['percent_comma'])} THEN {PERCENT_PART} "
            if decimal_comma
            else ""
        )
        + f"ELSE {TEXT} END"
    )
    return (
        f"CASE WHEN {raw} IS NULL THEN {MISSING} "
        f"WHEN {raw} = '' THEN {UNCLEAN} + {MISSING} "
        f"WHEN {matches(raw, _ZERO_CODE)} THEN {ZERO} "
        f"WHEN {matches(raw, _SMALL_INT)} THEN {SMALL} "
        f"WHEN {plain_float} THEN {float_kind} "
        f"WHEN ord({raw}) NOT IN (43, 45, 46, 73, 105) AND NOT ord({raw}) BETWEEN 48 AND 57 "
        f"AND NOT {_edged(raw)} THEN {text_kind} "
        f"ELSE {UNCLEAN} + {cell_kind(raw, decimal_comma, grouping)} END"
    )


def only_kinds(kinds: int, *allowed: int) -> bool:
    """Whether the kind set ``kinds`` (a bit mask) holds no kind but ``allowed``."""
    return not kinds & ~sum(1 << k for k in allowed)


def cell_rows(scan: str, columns: Sequence[int], extra: str = "") -> str:
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


def tidy_text(raw: str) -> str:
    return f"CASE WHEN {tidy_missing(raw)} THEN NULL ELSE {stripped(raw)} END"


def canonical(raw: str) -> str:
    """Each integer as Python's ``str(int(cell))`` writes it (no ``+``, no leading zeros)."""
    number = number_text(raw)
    digits = f"ltrim(ltrim({number}, '+-'), '0')"
    return (
        f"CASE WHEN {parse_missing(raw)} THEN NULL WHEN {digits} = '' THEN '0' "
        f"WHEN starts_with({number}, '-') THEN '-' || {digits} ELSE {digits} END"
    )
