"""Uploaded files: CSV / TSV (delimiter and encoding detected), gzip, ARFF, parquet."""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from heb.data.arff import read_arff
from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    MAX_COLUMNS,
    NA_TOKENS,
    DataError,
    Dataset,
    check_cells,
    finalize,
    format_size,
    quote,
    read_csv_strict,
    unique_names,
)
from heb.data.parquet import read_parquet


# ---------------------------------------------------------------------------- reading files
def gunzip(data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, refusing more than ``max_bytes`` of output."""
    out = []
    total = 0
    remaining = data
    try:
        while remaining:
            inflater = zlib.decompressobj(wbits=31)
            while remaining:
                chunk = inflater.decompress(remaining, max_bytes + 1 - total)
                total += len(chunk)
                out.append(chunk)
                if total > max_bytes:
                    raise DataError(
                        f"The compressed file unpacks to more than {format_size(max_bytes)}, the "
                        "size limit."
                    )
                remaining = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                raise DataError("The file looks gzip-compressed but is damaged or incomplete.")
            remaining = inflater.unused_data.lstrip(b"\x00")
    except zlib.error as exc:
        raise DataError("The file looks gzip-compressed but is damaged or incomplete.") from exc
    return b"".join(out)


def decode_text(data: bytes, notes: list[str]) -> str:
    """Text from bytes: UTF-8 (with or without BOM), UTF-32 / UTF-16 with a BOM, else
    Windows-1252.

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
    try:
        text = data.decode("cp1252")
        notes.append("The file is not UTF-8, so it was read as Windows-1252 (Western European).")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        notes.append("The file is not UTF-8, so it was read as Latin-1.")
    return text


_UNICODE_BOMS = (
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)


def _looks_binary(data: bytes) -> bool:
    sample = data[:65536]
    if sample.startswith(_UNICODE_BOMS):
        return False
    if b"\x00" in sample:
        return True
    control = sum(sample.count(bytes([b])) for b in range(32) if b not in (9, 10, 12, 13))
    return control > 0.05 * len(sample)


def _sniff_delimiter(text: str, filename: str) -> str:
    """The most consistent of ``, TAB ; |`` over the first lines (quoted parts ignored)."""
    lines = [line for line in text[:65536].splitlines()[:50] if line.strip()]
    lines = [re.sub(r'"[^"]*"', "", line) for line in lines]
    if filename.endswith((".tsv", ".tab")) and any("\t" in line for line in lines):
        return "\t"
    best, best_score = ",", (-1, -1)
    for delimiter in (",", "\t", ";", "|"):
        counts = np.array([line.count(delimiter) for line in lines])
        if counts.size == 0 or counts.max() == 0:
            continue
        mode = np.bincount(counts).argmax()
        score = (int(np.mean(counts == mode) * 100) if mode > 0 else 0, int(mode))
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _short_rows(text: str, delimiter: str, n_columns: int) -> int:
    """Rows with fewer delimiters than the header (exact when the text has no quotes)."""
    if '"' in text or n_columns < 2:
        return 0
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    newlines = np.flatnonzero(raw == (10 if "\n" in text else 13))  # CR-only files too
    ends = np.append(newlines, raw.size)
    starts = np.concatenate(([0], newlines + 1))
    blank = np.zeros(ends.size, dtype=bool)
    lengths = ends - starts
    # a line holding only '\r' or nothing is blank
    blank |= lengths == 0
    cr_only = (lengths == 1) & (raw[np.minimum(starts, raw.size - 1)] == 13)
    blank |= cr_only
    line_of = np.searchsorted(newlines, np.flatnonzero(raw == ord(delimiter)), side="left")
    counts = np.bincount(line_of, minlength=ends.size)
    data_lines = np.flatnonzero(~blank)[1:]
    return int(np.sum(counts[data_lines] < n_columns - 1))


def _parser_error(exc: Exception) -> DataError:
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
    if match:
        expected, line, saw = match.groups()
        return DataError(
            f"Line {line} of the file has {saw} values but the header has {expected}; every "
            "row needs the same number of values."
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
    """Lines in ``text`` (newline, or carriage return in a file without newlines)."""
    return text.count("\n") or text.count("\r")


def _read_delimited(text: str, filename: str, notes: list[str], max_columns: int):
    delimiter = _sniff_delimiter(text, filename)
    options = dict(sep=delimiter, skipinitialspace=True, engine="c")
    try:
        header = pd.read_csv(
            io.StringIO(text), header=None, nrows=1, dtype=str, na_filter=False, **options
        )
    except pd.errors.EmptyDataError as exc:
        raise DataError("The file is empty.") from exc
    except (pd.errors.ParserError, ValueError) as exc:
        raise _parser_error(exc) from exc
    names = list(header.iloc[0]) if header.shape[0] else []
    if len(names) > max_columns:
        raise DataError(
            f"The table has {len(names):,} columns, more than the {max_columns:,} this app handles."
        )
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
            f"Line {_first_data_line(text)} of the file has more values than the header's "
            f"{len(names)}; every row needs the same number of values."
        ) from exc
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(len(names))))
    except (pd.errors.ParserError, ValueError) as exc:
        raise _parser_error(exc) from exc
    if frame.shape[0] == 0:
        raise DataError("The file has a header row but no data rows.")
    frame = _exact_big_integers(frame, text, options)
    frame.columns = unique_names(names, notes)
    short = _short_rows(text, delimiter, len(names))
    if short:
        notes.append(
            f"{short} row{'s' * (short != 1)} had fewer values than the header; the missing "
            "cells are treated as missing values."
        )
    return _tidy_text_columns(frame, notes, decimal_comma=delimiter == ";")


#: a number in the decimal-comma convention: ``12,5``, ``-0,25``, ``1.234,56``, ``1.234``
_DECIMAL_COMMA = r"[+-]?(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d*,\d+|\d+)(?:[eE][+-]?\d+)?"
#: a quoted ``12,5`` in a comma-separated file (a decimal comma, or a thousands separator)
_COMMA_NUMBER = r"[+-]?\d+,\d+"
#: integers beyond this magnitude are not exact in a float64
_EXACT_FLOAT = 2**53


def _exact_big_integers(frame: pd.DataFrame, text: str, options: dict) -> pd.DataFrame:
    """Re-read as exact integers the float columns that hold whole numbers beyond 2**53.

    pandas turns an integer column with a missing cell into float64, which merges IDs
    above 2**53 (2**53 and 2**53 + 1 become one value). Such a column is read again as
    text and converted to pandas' nullable ``Int64`` (or kept as text past int64's range).
    """
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c].dtype)]
    if not floats:
        return frame
    values = frame[floats].to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        big = np.nanmax(np.where(np.isfinite(values), np.abs(values), 0), axis=0) >= _EXACT_FLOAT
    lossy = [c for c, flag in zip(floats, big, strict=True) if flag]
    if not lossy:
        return frame
    raw = pd.read_csv(
        io.StringIO(text),
        header=None,
        skiprows=1,
        usecols=lossy,
        dtype=str,
        na_values=list(NA_TOKENS),
        keep_default_na=False,
        **options,
    )
    for column in lossy:
        cells = raw[column].str.strip()
        missing = cells.isna().to_numpy()
        whole = pd.to_numeric(cells.fillna("0"), errors="coerce")
        if whole.dtype.kind in "iu":  # every cell an integer within int64 / uint64: exact
            frame[column] = pd.arrays.IntegerArray(whole.to_numpy(), missing)
        elif cells.dropna().str.fullmatch(r"[+-]?\d+").all():  # past uint64: exact as text
            frame[column] = cells
    return frame


def _tidy_text_columns(
    frame: pd.DataFrame, notes: list[str], decimal_comma: bool = False
) -> pd.DataFrame:
    """Strip text cells and report columns mixing numbers and text (kept as categorical).

    With ``decimal_comma`` (semicolon-separated files), a column whose every value is a
    number written with a decimal comma (``12,5``) becomes numeric.
    """
    mixed = []
    comma_columns = []
    for column in frame.columns:
        values = frame[column]
        if not (
            pd.api.types.is_object_dtype(values.dtype) or pd.api.types.is_string_dtype(values.dtype)
        ):
            continue
        text = values.astype("str").str.strip().where(values.notna())
        text = text.mask(text.isin(NA_TOKENS))
        # the checks look at the distinct values only (a category column has few)
        distinct = pd.Series(pd.unique(text[text.notna()]), dtype=object)
        if decimal_comma and distinct.size and distinct.str.fullmatch(_DECIMAL_COMMA).all():
            plain = text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
            frame[column] = pd.to_numeric(plain)
            continue
        if not decimal_comma and distinct.size and distinct.str.fullmatch(_COMMA_NUMBER).all():
            comma_columns.append((column, distinct.iloc[0]))
        numbers = pd.to_numeric(distinct, errors="coerce")
        if 0 < int(numbers.notna().sum()) < distinct.size:
            mixed.append((column, distinct[numbers.isna()].iloc[0]))
        frame[column] = text
    if mixed:
        column, example = mixed[0]
        others = f" (and {len(mixed) - 1} more columns)" if len(mixed) > 1 else ""
        notes.append(
            f"Column {quote(column)}{others} mixes numbers and text such as {quote(example)}, "
            "so it is treated as categorical."
        )
    if comma_columns:
        column, example = comma_columns[0]
        notes.append(
            f"Column {quote(column)} holds numbers written with a comma such as {quote(example)}, "
            "which in a comma-separated file may be a decimal or a thousands separator, so it "
            "is treated as categorical; save the file with decimal points to read them as numbers."
        )
    return frame


# ---- entry points
#: folders of the system's virtual files, never opened even when named as a path
_SYSTEM_ROOTS = ("/proc", "/sys", "/dev")


def read_local_file(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a local regular file, at most ``max_bytes`` of them.

    Refuses, without reading a byte, anything that is not a regular file (a FIFO, a device,
    a socket, a folder) and the system's virtual files under ``/proc``, ``/sys`` and
    ``/dev`` (their sizes lie, and some block forever). The file is opened without
    following a FIFO's blocking open (``O_NONBLOCK``) and checked on the open handle, so a
    swap between the check and the read cannot slip a FIFO in.
    """
    path = Path(path)
    resolved = os.path.realpath(path)
    if any(resolved == root or resolved.startswith(root + "/") for root in _SYSTEM_ROOTS):
        raise DataError(f"{quote(path.name)} is a system file, not a data file.")
    try:
        descriptor = os.open(resolved, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError as exc:
        raise DataError(f"There is no file {quote(str(path))}.") from exc
    except OSError as exc:
        raise DataError(f"The file {quote(path.name)} cannot be opened.") from exc
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise DataError(f"{quote(path.name)} is not a regular file, so it is not read.")
    with os.fdopen(descriptor, "rb") as handle:
        if info.st_size > max_bytes:
            raise DataError(
                f"The file is {format_size(info.st_size)}, more than the limit of "
                f"{format_size(max_bytes)}."
            )
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise DataError(f"The file is more than the limit of {format_size(max_bytes)}.")
    return data


def _parse(
    data: bytes, lower: str, notes: list[str], max_bytes: int, max_columns: int
) -> tuple[pd.DataFrame, list[str]]:
    """The table of unpacked bytes by format (parquet, refused archives, ARFF, CSV / TSV)
    and the columns it declares categorical."""
    categorical: list[str] = []
    if data[:4] == b"PAR1" or lower.endswith((".parquet", ".pq")):
        frame = read_parquet(data, max_bytes, max_columns=max_columns)
        frame.columns = unique_names(list(frame.columns), notes)
    elif data[:4] == b"PK\x03\x04" or data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise DataError(
            "This is a zip archive or an Excel workbook; save the table as CSV and upload that."
        )
    elif _looks_binary(data):
        raise DataError(
            "This file holds binary data, not a table; upload a CSV, TSV, ARFF or parquet file."
        )
    else:
        text = decode_text(data, notes)
        is_arff = lower.endswith(".arff") or re.match(
            r"(\s*(%[^\n]*)?\n)*\s*@relation", text[:65536], flags=re.IGNORECASE
        )
        if is_arff:
            frame, categorical = read_arff(text, notes, max_columns)
        else:
            frame = _read_delimited(text, lower, notes, max_columns)
    return frame, categorical


def read_table(
    data: bytes,
    filename: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    max_columns: int = MAX_COLUMNS,
) -> pd.DataFrame:
    """The raw table of an uploaded file (so the app can offer the target choice).

    Reads CSV / TSV (delimiter and encoding detected), gzip-compressed files, ARFF and
    parquet. Notes for the user are in ``frame.attrs["heb_notes"]`` and the ARFF nominal
    columns in ``frame.attrs["heb_categorical"]``.

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
    if data[:2] == b"\x1f\x8b":
        data = gunzip(data, max_bytes)
        lower = lower.removesuffix(".gz").removesuffix(".gzip")
    if not data.strip():
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


def dataset_from_table(frame: pd.DataFrame, filename: str, target: str | None = None) -> Dataset:
    """A :class:`Dataset` from a table :func:`read_table` returned (its notes and declared
    categorical columns travel in ``frame.attrs``).

    The app reads an upload once with :func:`read_table` (to offer the target choice) and
    builds the Dataset from that table for each target, instead of parsing the file again.
    """
    name = Path(str(filename)).name or "upload"
    return finalize(
        frame,
        target,
        name=name,
        source=f"upload:{name}",
        declared=frame.attrs.get("heb_categorical", []),
        notes=frame.attrs.get("heb_notes", []),
    )


def load_upload(
    data: bytes,
    filename: str,
    target: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Dataset:
    """A :class:`Dataset` from an uploaded file: :func:`read_table` then
    :func:`dataset_from_table`.

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str
        Its name (the extension helps detect the format).
    target : str, optional
        The target column; default :func:`default_target` (``class`` / ``target``, else
        the last column).
    max_bytes : int
        Size limit, default 200 MB.
    """
    return dataset_from_table(read_table(data, filename, max_bytes), filename, target)
