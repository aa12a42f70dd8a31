"""Each column of a CSV typed as the readers type it, in DuckDB SQL (:mod:`heb.scale.csv_scan`).

One scan of the file as text finds each column's set of cell kinds
(:func:`column_kinds`, the kinds of :mod:`heb.scale.csv_cells`); a few scans more, each
for all the columns that need it, check what a kind set alone cannot tell (codes written
with a leading zero, integer ranges, thousands separators beyond doubt, integers past
int64); :func:`typed_column` then gives each column's DuckDB read type and SQL expression.
"""

from __future__ import annotations

from collections.abc import Sequence

from heb.scale.csv_cells import (
    ASCII_PATTERNS,
    BOOL,
    COMMA,
    DIGITS,
    FLOAT,
    FLOAT_COMMA,
    GROUPED,
    GROUPED_SURE,
    INT,
    LONG,
    MISSING,
    PERCENT_KINDS,
    PERCENT_LONG,
    PERCENT_WHOLE,
    SMALL,
    SPACED,
    SPACED_COMMA,
    TEXT,
    TIDY_NA,
    UNCLEAN,
    ZERO,
    blank_line,
    canonical,
    cell_rows,
    clean_or_kind,
    groups_thousands,
    matches,
    number_text,
    only_kinds,
    parse_missing,
    stripped,
    tidy_missing,
    tidy_text,
)
from heb.scale.csv_layout import CsvLayout

__all__ = [
    "column_kinds",
    "grouped_checks",
    "integer_checks",
    "long_percentages",
    "percentages",
    "typed_column",
    "whole_commas",
]

_BIG = 2**53


def column_kinds(con, scan: str, layout: CsvLayout) -> tuple[int, int, list[int], list[bool]]:
    """Rows, lines of spaces, each column's set of cell kinds (a bit mask) and whether
    DuckDB's parser can read it as it stands: one scan of the file, its cells read as
    rows or column by column (:attr:`CsvLayout.cells_as_rows`)."""
    n = len(layout.names)
    decimal_comma, grouping = layout.delimiter == ";", groups_thousands(layout.delimiter)
    # the blank test once per row (it names every column), not once per cell
    lines = f"(SELECT *, {blank_line(n)} AS heb_blank FROM {scan})"
    if layout.cells_as_rows:
        rows, blanks, masks = _kinds_as_rows(con, lines, n, decimal_comma, grouping)
    else:
        rows, blanks, masks = _kinds_by_column(con, lines, n, decimal_comma, grouping)
    kinds = [(m | m >> UNCLEAN) & ((1 << UNCLEAN) - 1) for m in masks]
    clean = [not m >> UNCLEAN for m in masks]
    if blanks:  # lines of spaces: the first column is read as text to find them
        clean[0] = False
    return rows, blanks, kinds, clean


def _kinds_as_rows(
    con, lines: str, n: int, decimal_comma: bool, grouping: bool
) -> tuple[int, int, list[int]]:
    """Rows, lines of spaces and each column's kind mask (:func:`clean_or_kind`), the
    cells read as rows: one expression whatever the width."""
    cells = cell_rows(lines, list(range(n)), ", heb_blank")
    found = con.execute(
        "SELECT heb_col, count(*) FILTER (WHERE NOT heb_blank), count(*) FILTER (WHERE heb_blank), "
        f"bit_or(1::BIGINT << ({clean_or_kind('raw', decimal_comma, grouping)})) "
        f"FILTER (WHERE NOT heb_blank) FROM {cells} GROUP BY heb_col"
    ).fetchall()
    by_column = {int(row[0]): row for row in found}  # none for a file of no rows
    masks = [int(by_column[i][3] or 0) if i in by_column else 0 for i in range(n)]
    rows, blanks = (int(by_column[0][1]), int(by_column[0][2])) if by_column else (0, 0)
    return rows, blanks, masks


def _kinds_by_column(
    con, lines: str, n: int, decimal_comma: bool, grouping: bool
) -> tuple[int, int, list[int]]:
    """Rows, lines of spaces and each column's kind mask (:func:`clean_or_kind`), one
    query naming each column's expression."""
    parts = ["count(*) FILTER (WHERE NOT heb_blank)", "count(*) FILTER (WHERE heb_blank)"] + [
        f"bit_or(1::BIGINT << ({clean_or_kind(f'c{i}', decimal_comma, grouping)})) "
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
    number = number_text("raw")
    value = f"TRY_CAST({number} AS HUGEINT)"
    integer = f"{matches(number, INT)} AND NOT {parse_missing('raw')}"
    found = con.execute(
        f"SELECT heb_col, min({value}) FILTER (WHERE {integer}), max({value}) FILTER (WHERE "
        f"{integer}), count(*) FILTER (WHERE {integer} AND {value} IS NULL) "
        f"FROM {cell_rows(scan, columns)} GROUP BY heb_col"
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
    number = number_text("raw")
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE NOT {parse_missing('raw')} "
        f"AND NOT {matches(number, DIGITS)}) FROM {cell_rows(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    return {int(i) for i, signed in found if signed == 0}


def integer_checks(con, scan: str, kinds: Sequence[int]) -> tuple[set[int], dict[int, tuple]]:
    """The columns :func:`typed_column` reads as codes, and the integer ranges of those it
    types as integers of 16 digits or more: at most two scans for all columns, not one
    or two per column (38 columns of codes took 3.8 s of queries in a 20,000 x 300 file)."""
    integers = (MISSING, SMALL, LONG, ZERO)
    zeros = [i for i, k in enumerate(kinds) if k & (1 << ZERO) and only_kinds(k, *integers)]
    codes = _unsigned(con, scan, zeros)
    long = (1 << LONG) | (1 << ZERO)  # a code column that is not codes holds long integers
    wide = [
        i for i, k in enumerate(kinds) if i not in codes and k & long and only_kinds(k, *integers)
    ]
    return codes, _integer_ranges(con, scan, wide)


def grouped_checks(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The read type (``BIGINT`` or ``DOUBLE``) of the columns of a comma-separated file
    the readers read as numbers grouped by thousands separators
    (:func:`heb.data.text_columns._thousands_grouped`): every present cell a plain number
    or a grouped one, some grouped, and either one beyond doubt or the plain ones all below
    1,000. One scan of the columns with a grouped cell, none when no column has one."""
    grouped = (1 << GROUPED) | (1 << GROUPED_SURE)
    allowed = (MISSING, TIDY_NA, SMALL, LONG, ZERO, FLOAT, TEXT, SPACED)
    allowed += (GROUPED, GROUPED_SURE)
    columns = [i for i, k in enumerate(kinds) if k & grouped and only_kinds(k, *allowed)]
    if not columns:
        return {}
    text, present = stripped("raw"), f"NOT {tidy_missing('raw')}"
    plain = matches(text, ASCII_PATTERNS["plain"])
    without_commas = f"replace({text}, ',', '')"
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE {present} AND NOT ({plain} OR "
        f"{matches(text, ASCII_PATTERNS['grouped'])})), "
        f"count(*) FILTER (WHERE {present} AND {plain}), "
        f"count(*) FILTER (WHERE {present} AND {plain} AND abs(TRY_CAST({text} AS DOUBLE)) >= "
        f"1000), count(*) FILTER (WHERE {present} AND strpos({text}, '.') > 0), "
        f"{_past_integers(without_commas, present)} "
        f"FROM {cell_rows(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    types = {}
    for i, other, plains, large, points, *past in found:
        k = kinds[int(i)]
        if other or not (k & (1 << GROUPED_SURE) or (plains and not large)):
            continue
        missing = k & ((1 << MISSING) | (1 << TIDY_NA))
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


#: the kinds of a semicolon file's column of decimal-comma numbers (:func:`typed_column`)
_COMMA_KINDS = (MISSING, SMALL, LONG, FLOAT_COMMA, COMMA, SPACED_COMMA, TIDY_NA)


def _decimal_comma_number(raw: str) -> str:
    """A decimal-comma cell as the readers rewrite it for ``to_numeric``: ``1.234,5`` to
    ``1234.5``."""
    return f"replace(replace({stripped(raw)}, '.', ''), ',', '.')"


def whole_commas(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The integer type of the columns of a semicolon file's decimal-comma numbers
    (:func:`typed_column`) with no missing cell whose every number is an integer once rewritten
    (``1.234.567``, ``\u00a0852``): ``to_numeric`` reads them into int64 (uint64 or
    float64 past it, :func:`_integer_type`), as the readers type them; ``VARCHAR`` when
    every present cell is a plain integer (no point, no comma) and some are past uint64,
    missing cells or not: such a column stays text in any file
    (:func:`heb.data.text_columns._plain_past_uint64`). One scan of the columns with a
    comma cell."""
    commas = (1 << COMMA) | (1 << SPACED_COMMA)
    # a code written with a leading zero (0852) is an integer like any beside comma cells
    columns = [i for i, k in enumerate(kinds) if k & commas and only_kinds(k, *_COMMA_KINDS, ZERO)]
    if not columns:
        return {}
    number, present = _decimal_comma_number("raw"), f"NOT {tidy_missing('raw')}"
    found = con.execute(
        f"SELECT heb_col, count(*) FILTER (WHERE {present} AND NOT {matches(number, INT)}), "
        f"count(*) FILTER (WHERE {present} AND NOT {matches(stripped('raw'), INT)}), "
        f"{_past_integers(number, present)} FROM {cell_rows(scan, columns)} GROUP BY heb_col"
    ).fetchall()
    types = {}
    missing = (1 << MISSING) | (1 << TIDY_NA)
    for i, fraction, marked, *past in found:
        kind = _integer_type(*past) if fraction == 0 else None
        if kind == "DOUBLE" and not marked:
            # plain integers past uint64 (``\u00a0`` + 23 digits beside 5): text, as in
            # any file (:func:`heb.data.text_columns._plain_past_uint64`)
            types[int(i)] = "VARCHAR"
        elif kind is not None and not kinds[int(i)] & missing:  # else float64, as pandas
            types[int(i)] = kind
    return types


def long_percentages(con, scan: str, kinds: Sequence[int]) -> dict[int, str]:
    """The integer type (:func:`_integer_type`) of the columns of percentages with no
    missing cell whose numbers are all integers, some of 19 digits or more: int64 as
    ``to_numeric`` reads them when they fit, uint64 or float64 past it. One scan of those
    columns, none when no column has such a percentage."""
    long = 1 << PERCENT_LONG
    columns = [
        i for i, k in enumerate(kinds) if k & long and only_kinds(k, PERCENT_WHOLE, PERCENT_LONG)
    ]
    if not columns:
        return {}
    number = f"rtrim({stripped('raw')}, '% ')"
    found = con.execute(
        f"SELECT heb_col, {_past_integers(number, 'true')} FROM {cell_rows(scan, columns)} "
        "GROUP BY heb_col"
    ).fetchall()
    return {int(i): _integer_type(*past) for i, *past in found}


def percentages(kinds: int) -> bool:
    """Whether a column of the kind set ``kinds`` is read as percentages: every present
    cell one, as the readers' pattern for the file writes it (:func:`_spreadsheet_kind`)."""
    percents = sum(1 << k for k in PERCENT_KINDS)
    return bool(kinds & percents) and only_kinds(kinds, MISSING, TIDY_NA, *PERCENT_KINDS)


def typed_column(  # noqa: C901 -- one branch per way the readers type a column
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
    in SQL. ``codes`` and ``span`` are what :func:`integer_checks` found of it: whether
    it is codes, and its integer range (for integers of 16 digits or more); ``grouped``
    the type of a column of numbers with thousands separators (:func:`grouped_checks`),
    ``whole`` the integer type of a column of decimal-comma numbers or of percentages
    that holds integers of 19 digits or more (:func:`whole_commas`,
    :func:`long_percentages`), None when it holds no such integers or some fraction."""
    raw = f"c{i}"
    if grouped:
        number = f"replace({stripped(raw)}, ',', '')"
        return (
            "VARCHAR",
            f"CASE WHEN {tidy_missing(raw)} THEN NULL ELSE CAST({number} AS {grouped}) END",
        )
    if percentages(kinds):
        number = f"rtrim({stripped(raw)}, '% ')"  # the number before the sign
        if decimal_comma:
            number = f"replace({number}, ',', '.')"
        kind = "BIGINT" if only_kinds(kinds, PERCENT_WHOLE) else whole or "DOUBLE"  # as to_numeric
        return (
            "VARCHAR",
            f"CASE WHEN {tidy_missing(raw)} THEN NULL ELSE CAST({number} AS {kind}) END",
        )
    missing = bool(kinds & (1 << MISSING))
    value = f"CASE WHEN {parse_missing(raw)} THEN NULL ELSE {number_text(raw)} END"
    if kinds & (1 << ZERO):
        if codes:
            return "VARCHAR", tidy_text(raw)  # codes: every value a digit string, some 0...
        kinds = kinds & ~(1 << ZERO) | (1 << LONG)  # else numbers like any integer
    if only_kinds(kinds, MISSING, SMALL):
        kind = "DOUBLE" if missing else "BIGINT"
        return (kind, raw) if clean else ("VARCHAR", f"CAST({value} AS {kind})")
    if only_kinds(kinds, MISSING, SMALL, LONG, FLOAT, FLOAT_COMMA):
        kind = "DOUBLE"
        if only_kinds(kinds, MISSING, SMALL, LONG):
            kind = _long_integers(*span, missing)
        if kind == "raw":
            return "VARCHAR", tidy_text(raw)
        if kind == "canonical":
            return "VARCHAR", canonical(raw)
        return (kind, raw) if clean else ("VARCHAR", f"CAST({value} AS {kind})")
    if only_kinds(kinds, MISSING, BOOL):
        flag = f"lower(ltrim({raw}, ' ')) = 'true'"
        if not missing:
            return "VARCHAR", flag
        return "VARCHAR", (
            f"CASE WHEN {parse_missing(raw)} THEN NULL WHEN {flag} THEN 'True' ELSE 'False' END"
        )
    present = (1 << SMALL) | (1 << LONG) | (1 << FLOAT_COMMA) | (1 << COMMA)
    present |= 1 << SPACED_COMMA
    if decimal_comma and only_kinds(kinds, *_COMMA_KINDS) and kinds & present:
        if whole == "VARCHAR":  # plain integers past uint64: text (:func:`whole_commas`)
            return "VARCHAR", tidy_text(raw)
        plain, kind = _decimal_comma_number(raw), whole or "DOUBLE"
        return (
            "VARCHAR",
            f"CASE WHEN {tidy_missing(raw)} THEN NULL ELSE CAST({plain} AS {kind}) END",
        )
    return ("VARCHAR", raw) if clean else ("VARCHAR", tidy_text(raw))
