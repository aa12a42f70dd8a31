"""Uploaded files: CSV / TSV (delimiter and encoding detected), gzip, ARFF, parquet."""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from heb.data.arff import read_arff
from heb.data.budget import (
    HEAD_BYTES,
    LineBudget,
    gunzip,
    gunzip_chunks,
    in_steps,
    read_local_file,
)
from heb.data.column_notes import ColumnsNote
from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    MAX_COLUMNS,
    NA_TOKENS,
    DataError,
    check_cells,
    read_csv_strict,
    unique_names,
)
from heb.data.delimiters import file_kind, sniff_delimiter, without_separator_line
from heb.data.names import format_size
from heb.data.parquet import read_parquet
from heb.data.text_columns import (
    DECIMAL_COMMA,
    codes_note,
    exact_big_integers,
    leading_zero_codes,
    tidy_text_columns,
    typed_date_notes,
)

#: gunzip and read_local_file are imported from here by the other loaders
__all__ = [
    "DATA_SUFFIXES",
    "DECIMAL_COMMA",
    "decode_text",
    "gunzip",
    "read_local_file",
    "read_table",
    "without_data_suffixes",
]

#: suffixes of data files (and their compression): a name ending in one is a file path
DATA_SUFFIXES = (
    ".csv",
    ".tsv",
    ".tab",
    ".txt",
    ".data",
    ".arff",
    ".json",
    ".parquet",
    ".parq",
    ".pq",
    ".gz",
    ".gzip",
    ".bz2",
    ".xz",
    ".zip",
)


def without_data_suffixes(name: str) -> str:
    """``name`` without its trailing data suffixes (``churn.csv.gz``: ``churn``); a name
    that is nothing but a suffix, or has none, stays as it is."""
    while Path(name).suffix.lower() in DATA_SUFFIXES and Path(name).stem != name:
        name = name[: -len(Path(name).suffix)]
    return name


# ---------------------------------------------------------------------------- reading files
#: the note on a file that is not UTF-8, by the encoding it was read as
ENCODING_NOTES = {
    "cp1252": "The file is not UTF-8, so it was read as Windows-1252 (Western European).",
    "latin-1": "The file is not UTF-8, so it was read as Latin-1.",
}


def decode_text(data: bytes, notes: list[str]) -> str:
    """Text from bytes: UTF-8 (with or without BOM), UTF-32 / UTF-16 with a BOM, else
    Windows-1252, else Latin-1 (a UTF-8 BOM before either left out), with a note.

    UTF-32's little-endian BOM begins with UTF-16's (``FF FE``), so it is tried first.
    """
    for boms, codec in (
        ((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE), "utf-32"),
        ((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE), "utf-16"),
    ):
        if data.startswith(boms):
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    # a UTF-8 BOM before Windows-1252 text (a file saved as UTF-8, then edited by a
    # Windows-1252 tool) is a mark, not the first column's name ("ï»¿ville")
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("cp1252")
        notes.append(ENCODING_NOTES["cp1252"])
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        notes.append(ENCODING_NOTES["latin-1"])
    return text


_UNICODE_BOMS = (
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)


def looks_binary(data: bytes) -> bool:
    """Whether ``data`` is not text: a NUL byte or over 5 % control bytes in its first
    64 kB (a byte-order mark says text)."""
    sample = data[:65536]
    if sample.startswith(_UNICODE_BOMS):
        return False
    if b"\x00" in sample:
        return True
    control = sum(sample.count(bytes([b])) for b in range(32) if b not in (9, 10, 12, 13))
    return control > 0.05 * len(sample)


def _line_spans(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The text's UTF-8 bytes and each line's first byte and end (its line end included;
    no line after a final line end); CR-only files too."""
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    newlines = np.flatnonzero(raw == (10 if "\n" in text else 13))
    starts = np.concatenate(([0], newlines + 1))
    starts = starts[starts < raw.size]
    return raw, starts, np.append(starts[1:], raw.size)


def _short_rows(text: str, delimiter: str, n_columns: int) -> int:
    """Rows with fewer delimiters than the header (exact when the text has no quotes).

    Each line's delimiters are counted by where its span (from its first byte to its line
    end, included) falls among the delimiters' sorted positions: a search per line, not
    one per delimiter.
    """
    if '"' in text or n_columns < 2:
        return 0
    raw, starts, ends = _line_spans(text)
    delimiters = np.flatnonzero(raw == ord(delimiter))
    counts = np.searchsorted(delimiters, ends) - np.searchsorted(delimiters, starts)
    # a line holding only its line end ('\n', '\r' or '\r\n') or nothing is blank
    content = ends - starts - (raw[ends - 1] == 10) - (raw[ends - 1] == 13)
    content -= (content > 0) & (raw[np.maximum(ends - 2, 0)] == 13) & (raw[ends - 1] == 10)
    data_lines = np.flatnonzero(content > 0)[1:]
    return int(np.sum(counts[data_lines] < n_columns - 1))


def _unclosed_quote_line(text: str, row: int) -> int | None:
    """The file line (from 1) of pandas' tokenizer row ``row`` (from 0, blank lines counted),
    where a quote is opened and never closed: ``row + 1`` when every line before it closes
    its quotes and the quotes from that line's start to the file's end are odd (the one
    never closed among them); else None (a quoted line break before it makes rows and
    lines differ)."""
    raw, starts, ends = _line_spans(text)
    if starts.size <= row:
        return None
    quotes = np.flatnonzero(raw == ord('"'))
    counts = np.searchsorted(quotes, np.append(ends[:row], raw.size))
    counts -= np.searchsorted(quotes, starts[: row + 1])
    if np.any(counts[:row] % 2) or counts[row] % 2 == 0:
        return None
    return row + 1


def _parser_error(exc: Exception, text: str = "", skipped: int = 0) -> DataError:
    """The parser's error in one sentence; ``skipped`` lines precede ``text`` in the file."""
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
    if match:
        expected, line, saw = match.groups()
        return DataError(
            f"Line {int(line) + skipped} of the file has {saw} values but the header has "
            f"{expected}; every row needs the same number of values."
        )
    unclosed = re.search(r"EOF inside string starting at row (\d+)", str(exc))
    line = _unclosed_quote_line(text, int(unclosed.group(1))) if unclosed and text else None
    if line is not None:  # as the engine says it (heb.scale.csv_scan)
        return DataError(
            f"Line {line + skipped} of the file opens a quote that is never closed; check the "
            "file's quotes."
        )
    return DataError("The file could not be read as a table; check its quotes and delimiters.")


def _first_data_line(text: str) -> int:
    """File line number of the first data row (the first non-blank line after the header)."""
    seen_header = False
    for number, line in enumerate(text[:1_000_000].splitlines(), start=1):
        if line.strip():
            if seen_header:
                return number
            seen_header = True
    return 2


def _line_count(text: str) -> int:
    """Line ends in ``text`` as pandas' parser splits it: LF, CR and CRLF, one each."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class _TooWide(DataError):
    """The header has more columns than the app handles."""


#: the header is parsed from the text up to the last line end in this many characters
#: (the whole text when the first record is longer), not from a copy of all the text
_HEADER_CHARS = 1 << 20


def csv_header(
    text: str, filename: str, max_columns: int, delimiter: str | None = None
) -> tuple[dict, list]:
    """The parser options (``delimiter``, else the sniffed one) and the header's names,
    its width checked."""
    sep = delimiter or sniff_delimiter(text, filename)
    options = dict(sep=sep, skipinitialspace=True, engine="c")
    cut = max(text.rfind("\n", 0, _HEADER_CHARS), text.rfind("\r", 0, _HEADER_CHARS))
    for part in dict.fromkeys((text[: cut + 1] if cut >= 0 else text, text)):
        try:
            header = pd.read_csv(
                io.StringIO(part), header=None, nrows=1, dtype=str, na_filter=False, **options
            )
            break
        except pd.errors.EmptyDataError as exc:
            error = DataError("The file is empty.")
            error.__cause__ = exc
        except (pd.errors.ParserError, ValueError) as exc:
            error = _parser_error(exc, part)
            error.__cause__ = exc
    else:
        raise error
    names = list(header.iloc[0]) if header.shape[0] else []
    if len(names) > max_columns:
        raise _TooWide(
            f"The table has {len(names):,} columns, more than the {max_columns:,} this app handles."
        )
    return options, names


def named_or_filled(
    names: Sequence, empty_of: Callable[[list[int]], Sequence[bool]], notes: list[str]
) -> list[int]:
    """The positions of a CSV's columns to keep: all but those with neither a name in
    the header ``names`` nor a value, the separators a spreadsheet writes at the end of
    every row (``a;b;class;;``) once cells past the table were touched. Kept, the last of
    them became the default target and the file was refused ("The target column
    'column_5' has no values"). ``empty_of(positions)`` says which of the unnamed
    columns at ``positions`` hold no value (every cell missing); a column of values
    keeps its position's name (:func:`unique_names`). The large-file path
    (:func:`heb.scale.csv_scan.csv_scan`) keeps the same columns, with the same note."""
    everything = list(range(len(names)))
    blank = [i for i, name in enumerate(names) if pd.isna(name) or not str(name).strip()]
    if not blank or len(blank) == len(names):
        return everything
    dropped = {i for i, is_empty in zip(blank, empty_of(blank), strict=True) if is_empty}
    if dropped:
        count = len(dropped)
        notes.append(
            f"Left out {count} column{'s' * (count != 1)} with neither a name nor a value "
            "(a spreadsheet may end every row with such separators)."
        )
    return [i for i in everything if i not in dropped]


def _read_delimited(text: str, filename: str, notes: list[str], max_columns: int):
    text, named, separator_note = without_separator_line(text)
    if separator_note:
        notes.append(separator_note)
    options, names = csv_header(text, filename, max_columns, named)
    delimiter = options["sep"]
    check_cells(_line_count(text), len(names))
    try:
        frame = read_csv_strict(
            text,
            len(names),
            skiprows=1,
            na_values=list(NA_TOKENS),
            keep_default_na=False,
            **options,
        )
    except pd.errors.ParserWarning as exc:
        raise DataError(
            f"Line {_first_data_line(text) + bool(separator_note)} of the file has more values "
            "than the header's "
            f"{len(names)}; every row needs the same number of values."
        ) from exc
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(len(names))))
    except (pd.errors.ParserError, ValueError) as exc:
        raise _parser_error(exc, text, skipped=bool(separator_note)) from exc
    if frame.shape[0] == 0:
        raise DataError("The file has a header row but no data rows.")
    frame = exact_big_integers(frame, text, options)
    frame, codes = leading_zero_codes(frame, text, options)
    n_fields = len(names)  # the short-row count below reads the file's own fields
    keep = named_or_filled(
        names, lambda blank: frame.iloc[:, blank].isna().all(axis=0).to_numpy(), notes
    )
    if len(keep) < n_fields:
        frame, names = frame.iloc[:, keep], [names[i] for i in keep]
        codes = [keep.index(i) for i in codes]  # an empty column holds no code
    frame.columns = unique_names(names, notes)
    if codes:  # each column's example: left out, the next one's is quoted (kept_notes)
        found = [frame.iloc[:, i] for i in codes]
        zeros = [cells[cells.str.fullmatch("0[0-9]+", na=False)].iloc[0] for cells in found]
        notes.append(ColumnsNote(codes_note, list(zip(frame.columns[codes], zeros, strict=True))))
    # a short row leaves its last cells missing: with none missing in the last column
    # there is no short row, and the text need not be scanned for them
    short = _short_rows(text, delimiter, n_fields) if frame.iloc[:, -1].isna().any() else 0
    if short:
        notes.append(
            f"{short} row{'s' * (short != 1)} had fewer values than the header; the missing "
            "cells are treated as missing values."
        )
    codes = {frame.columns[i] for i in codes}
    return tidy_text_columns(
        frame, notes, decimal_comma=delimiter == ";", codes=codes, kind=file_kind(delimiter)
    )


# ---- entry points
def _is_arff(text: str, lower: str) -> bool:
    """Whether a text file is ARFF: by its name, or an ``@relation`` line first."""
    return lower.endswith(".arff") or bool(
        re.match(r"(\s*(%[^\n]*)?\n)*\s*@relation", text[:65536], flags=re.IGNORECASE)
    )


def is_archive(data: bytes) -> bool:
    """A zip archive (``.xlsx`` too) or an old Excel workbook, by its magic bytes."""
    return data[:4] == b"PK\x03\x04" or data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _head_width(head: bytes, lower: str, max_columns: int):
    """For :class:`~heb.data.budget.LineBudget`: (columns, line ends before the first
    row) of a text table's head, read as the full readers read it; 0 for a file the cell
    budget does not count by lines (parquet, archives, binary, UTF-16 / UTF-32); None
    while the header is incomplete.

    A header the readers would refuse (too wide, a malformed ARFF header) is refused here.
    """
    if head[:4] == b"PAR1" or is_archive(head) or looks_binary(head):
        return 0
    if head.startswith(_UNICODE_BOMS):
        return 0
    text = decode_text(head, [])
    if _is_arff(text, lower):
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        marker = re.search(r"^[ \t]*@data[ \t]*$", text, flags=re.IGNORECASE | re.MULTILINE)
        if marker is None:
            return None
        # the header alone, read (and refused when too wide or malformed) as the whole is
        declared, _ = read_arff(text[: marker.end()] + "\n", [], max_columns)
        return declared.shape[1], text.count("\n", 0, marker.end())
    text, named, _ = without_separator_line(text)
    try:
        _, names = csv_header(text, lower, max_columns, named)
    except _TooWide:
        raise
    except DataError:
        return None
    return len(names), 0


def _parse(
    data: bytes, lower: str, notes: list[str], max_bytes: int, max_columns: int
) -> tuple[pd.DataFrame, list[str]]:
    """The table of unpacked bytes by format (parquet, refused archives, ARFF, CSV / TSV)
    and the columns it declares categorical."""
    categorical: list[str] = []
    if data[:4] == b"PAR1" or lower.endswith((".parquet", ".pq")):
        frame = read_parquet(data, max_bytes, max_columns=max_columns)
        frame.columns = unique_names(list(frame.columns), notes)
        notes.extend(typed_date_notes(frame))
    elif is_archive(data):
        raise DataError(
            "This is a zip archive or an Excel workbook; save the table as CSV and use that."
        )
    elif looks_binary(data):
        raise DataError(
            "This file holds binary data, not a table; use a CSV, TSV, ARFF or parquet file."
        )
    else:
        text = decode_text(data, notes)
        if _is_arff(text, lower):
            frame, categorical = read_arff(text, notes, max_columns)
        else:
            frame = _read_delimited(text, lower, notes, max_columns)
    return frame, categorical


def _unpacked(data: bytes, lower: str, max_bytes: int, max_columns: int) -> tuple[bytes, str]:
    """The file's bytes (gzip unpacked) and its name without ``.gz``, its rows counted on
    the way: a text table of more rows x columns than the cell budget is refused as soon
    as the rows seen prove it, before the rest is unpacked, decoded or parsed."""
    packed = data[:2] == b"\x1f\x8b"
    if packed:
        lower = lower.removesuffix(".gz").removesuffix(".gzip")
    budget = LineBudget(lambda head: _head_width(head, lower, max_columns))
    if packed:
        return b"".join(budget.scan(gunzip_chunks(data, max_bytes))), lower
    if len(data) > HEAD_BYTES:
        for chunk in in_steps(data):
            budget.feed(chunk)
    return data, lower


def read_table(
    data: bytes,
    filename: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    max_columns: int = MAX_COLUMNS,
) -> pd.DataFrame:
    """The raw table of an uploaded file (so the app can offer the target choice).

    Reads CSV / TSV (delimiter and encoding detected), gzip-compressed files, ARFF and
    parquet. Notes for the user are in ``frame.attrs["heb_notes"]``, the ARFF nominal
    columns in ``frame.attrs["heb_categorical"]`` and a CSV's columns read from thousands
    separators in ``frame.attrs["heb_amounts"]`` (:func:`tidy_text_columns`).

    Raises
    ------
    DataError
        Empty, oversized, binary, damaged or unreadable files.
    """
    if isinstance(data, memoryview | bytearray):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise DataError("The upload must be the bytes of a file.")
    filename = str(filename or "upload")
    if len(data) > max_bytes:
        raise DataError(
            f"The file is {format_size(len(data))}, more than the limit of "
            f"{format_size(max_bytes)}."
        )
    notes: list[str] = []
    lower = filename.lower()
    data, lower = _unpacked(data, lower, max_bytes, max_columns)
    if not data or data.isspace():
        raise DataError("The file is empty.")
    frame, categorical = _parse(data, lower, notes, max_bytes, max_columns)
    if frame.shape[1] > max_columns:
        raise DataError(
            f"The table has {frame.shape[1]:,} columns, more than the {max_columns:,} this app "
            "handles."
        )
    if frame.shape[0] == 0:
        raise DataError("The file has a header row but no data rows.")
    frame.attrs["heb_notes"] = notes
    frame.attrs["heb_categorical"] = categorical
    return frame
