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
- any other column is text, each cell stripped of surrounding whitespace;
- a column with neither a name in the header nor a value (a spreadsheet's trailing
  separators, ``a;b;class;;``) is left out with the readers' note, and the others are
  named as the readers name them (:func:`heb.data.readers.named_or_filled`,
  :func:`heb.data.dataset.unique_names`).

The view then reads a column DuckDB's parser reads as the readers do (plain numbers, text
with no whitespace at its ends) typed, and the others as text typed in SQL. A file DuckDB
cannot read (a row longer than the header, a quote never closed) is refused in one sentence
naming the line; a file that is neither UTF-8 nor UTF-16 is read from a UTF-8 copy, and
so is a file whose lines end in more than one way (CRLF, LF, CR), as pandas' parser reads
any of them and DuckDB's reads a mix as no rows or refuses it (the copy's lines end in LF).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from heb.data.dataset import DataError, unique_names
from heb.data.readers import named_or_filled
from heb.scale.csv_cells import (
    LONG,
    MISSING,
    SMALL,
    ZERO,
    blank_line,
    groups_thousands,
    only_kinds,
    tidy_text,
)
from heb.scale.csv_layout import (
    FEW_ROWS,
    HEAD_BYTES,
    CsvLayout,
    copies_of,
    csv_layout,
    estimated_rows,
    read_csv,
    utf8_copy,
)
from heb.scale.csv_notes import scan_notes
from heb.scale.csv_typing import (
    column_kinds,
    grouped_checks,
    integer_checks,
    long_percentages,
    percentages,
    typed_column,
    whole_commas,
)
from heb.scale.sql import DUCKDB, RESERVED_PREFIX

__all__ = ["HEAD_BYTES", "CsvLayout", "copies_of", "csv_layout", "csv_scan"]


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


def _decodings(layout: CsvLayout) -> tuple[str, ...]:
    """The encodings a copy of a file of ``layout`` is decoded as, in turn: the one its
    head was read as, then Windows-1252 and Latin-1 (as :func:`heb.data.readers.decode_text`
    falls back from UTF-8)."""
    first = {"utf-8": "utf-8-sig"}.get(layout.encoding, layout.encoding)
    return tuple(dict.fromkeys((first, "cp1252", "latin-1")))


def _typing_scan(con, files: list[Path], label: str, read_as: list[str], stop=None):
    """(files, layout, scan, rows, blanks, kinds, clean) of the scan typing the columns
    (:func:`column_kinds`): the files are UTF-8 copies when they are not UTF-8 (judged by the
    head, or by DuckDB reading them; the encodings they were decoded as are appended to
    ``read_as``) or their lines end in more than one way (in the head, or where DuckDB's
    parser meets it), read serially when a quoted line break needs it."""
    import duckdb

    layout = csv_layout(files[0], label)
    copied = layout.encoding in ("cp1252", "latin-1") or layout.mixed_lines
    if copied:
        files = [utf8_copy(con, f, read_as, stop, _decodings(layout)) for f in files]
        layout = csv_layout(files[0], label)
    layout = replace(layout, cells_as_rows=estimated_rows(files) < FEW_ROWS)
    for _ in range(4):
        scan = read_csv(files, layout)
        try:
            return (files, layout, scan, *column_kinds(con, scan, layout))
        except duckdb.Error as exc:
            message = str(exc)
            # lines ending in mixed ways past the head: a copy of LF line ends, as read;
            # bytes not UTF-8 past the head: a copy decoded as the readers fall back
            mixed = "invalid state" in message and not copied
            if mixed or ("unicode" in message.lower() and layout.encoding == "utf-8"):
                copied = True
                encodings = _decodings(layout) if mixed else ("cp1252", "latin-1")
                files = [utf8_copy(con, f, read_as, stop, encodings) for f in files]
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
    codes, spans = integer_checks(con, scan, kinds)
    grouped = grouped_checks(con, scan, kinds) if groups_thousands(layout.delimiter) else {}
    whole = whole_commas(con, scan, kinds) if decimal_comma else {}
    whole |= long_percentages(con, scan, kinds)
    header_notes: list[str] = []
    keep = named_or_filled(
        layout.header,
        lambda blank: [only_kinds(kinds[i], MISSING) for i in blank],
        header_notes,
    )
    kept = unique_names([layout.header[i] for i in keep], header_notes)
    names = dict(zip(keep, kept, strict=True))
    types, columns, seen, renamed, read = [], [], set(), {}, []
    for i in range(len(layout.names)):
        kind, expression = typed_column(
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
        if i not in names:  # neither a name nor a value: left out, as the readers do
            read.append(None)
            continue
        name = names[i]
        if name.casefold() in seen:
            renamed[name] = f"{RESERVED_PREFIX}_c{i}"
        seen.add(name.casefold())
        columns.append(f"{expression} AS {DUCKDB.quote(renamed.get(name, name))}")
        # what typed_column decided: codes kept as text, or text (read as written or tidied)
        as_text = tidy_text(f"c{i}")
        zeros = only_kinds(kinds[i], MISSING, SMALL, LONG, ZERO) and kinds[i] & (1 << ZERO)
        code = bool(zeros) and expression == as_text
        done = "grouped" if i in grouped else "percent" if percentages(kinds[i]) else None
        read.append((name, kinds[i], code, expression in (f"c{i}", as_text), done))
    notes = scan_notes(con, scan, layout, read_as, read, header_notes)
    rows_scan = read_csv(files, layout, types)
    if blanks:
        rows_scan = f"(SELECT * FROM {rows_scan} WHERE NOT {blank_line(len(layout.names))})"
    scan = (
        f"SELECT {', '.join(columns)}, '' AS __heb_file, row_number() OVER () AS __heb_row "
        f"FROM {rows_scan}"
    )
    amounts = [name for i, name in names.items() if i in grouped]
    return scan, renamed, notes, amounts
