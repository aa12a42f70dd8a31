"""A CSV file's layout on the large-file path (:mod:`heb.scale.csv_scan`): its delimiter,
encoding and header decided from its head as :func:`heb.data.readers.read_table` decides
them (:func:`csv_layout`), DuckDB's scan of it as text (:func:`read_csv`), its rows
estimated from the head, and the UTF-8 copy of a file that is neither UTF-8 nor UTF-16.
"""

from __future__ import annotations

import codecs
import gzip
import os
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from heb.data.dataset import NA_TOKENS, DataError, unique_names
from heb.data.delimiters import without_separator_line
from heb.data.readers import ENCODING_NOTES, csv_header, is_archive, looks_binary
from heb.scale.csv_cells import literal

__all__ = [
    "FEW_ROWS",
    "HEAD_BYTES",
    "CsvLayout",
    "copies_of",
    "csv_layout",
    "estimated_rows",
    "read_csv",
    "utf8_copy",
]

#: bytes of a file's head read in Python to sniff its delimiter, encoding and header
HEAD_BYTES = 1 << 20


#: bytes read at a time when a file that is not UTF-8 is copied as UTF-8
_COPY_BYTES = 1 << 22
#: a header wider than this is refused by DuckDB's limits long before, not by the readers'
_MAX_COLUMNS = 1_000_000


#: below this many rows a file's cells are typed as rows, one cell-kind expression for all
#: columns (:func:`column_kinds`); above it, by one query naming each column's expression, whose
#: cost of 10-20 ms a column to parse and bind is then less than the rows' own (40 ns a
#: cell): measured best of 3, 10 columns x 5 x 10^5 rows 1.12 s by column, 1.26 s as rows,
#: 100 x 2 x 10^5 7.1 s by column, 5.9 s as rows
FEW_ROWS = 300_000


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
        Whether the typing scan reads the cells as rows (:func:`column_kinds`): a file of fewer
        than :data:`FEW_ROWS` rows, as estimated from its head.
    separator_note : str
        The readers' note of a first line ``sep=;`` naming the delimiter ("" without one);
        such a line is skipped before the header.
    header : tuple of str
        The header's names as written (``""`` where a column has none), from which
        :func:`heb.scale.csv_scan.csv_scan` names the columns it keeps as the readers do.
    mixed_lines : bool
        Whether the head's lines end in more than one way (CRLF, LF, CR; quoted line
        breaks aside), as an editor leaves a ``sep=;`` line typed into a spreadsheet's
        CSV: DuckDB's parser reads such a file as no rows or refuses it, pandas' as any
        other, so it is read from a copy whose lines all end in LF (:func:`utf8_copy`).
    """

    delimiter: str
    encoding: str
    names: list[str]
    new_line: str | None = None
    parallel: bool = True
    cells_as_rows: bool = True
    separator_note: str = ""
    header: tuple[str, ...] = ()
    mixed_lines: bool = False


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
    return codecs.getincrementaldecoder(codec)().decode(_without_bom(head, codec), final=whole)


def _without_bom(head: bytes, codec: str) -> bytes:
    """A file's first bytes without a UTF-8 BOM when they are decoded as Windows-1252 or
    Latin-1, as :func:`heb.data.readers.decode_text` leaves it out (it named the first
    column "ï»¿ville")."""
    return head.removeprefix(codecs.BOM_UTF8) if codec in ("cp1252", "latin-1") else head


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
    # a spreadsheet's "sep=;": the delimiter, a line skipped
    header, named, note = without_separator_line(text)
    try:
        options, names = csv_header(header, lower, _MAX_COLUMNS, named)
    except DataError as exc:
        raise DataError(f"The header of {label!r} could not be read: {exc}") from exc
    new_line = "\\r" if "\r" in text and "\n" not in text else None
    written = tuple("" if pd.isna(name) else str(name) for name in names)
    return CsvLayout(
        options["sep"],
        encoding,
        unique_names(names, []),
        new_line,
        separator_note=note,
        header=written,
        mixed_lines=_line_ends(text.encode("utf-8"), whole) > 1,
    )


def _unquoted_line_ends(raw: np.ndarray, state: list) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the CRs and of the LFs outside quotes in the bytes ``raw``, from
    ``state`` = [inside a quote, the previous byte a CR outside quotes] at their start,
    which is updated to their end (a doubled quote opens and closes). Each line end is
    placed among the quotes' sorted positions (a search per line end, not a running
    count over every byte: 4 MB of text in 0.02 s, not 0.2)."""
    quotes = np.flatnonzero(raw == 34)
    cr, lf = np.flatnonzero(raw == 13), np.flatnonzero(raw == 10)
    if quotes.size or state[0]:
        cr = cr[(np.searchsorted(quotes, cr) + state[0]) % 2 == 0]
        lf = lf[(np.searchsorted(quotes, lf) + state[0]) % 2 == 0]
    state[0] = (state[0] + quotes.size) % 2
    state[1] = bool(cr.size and cr[-1] == raw.size - 1)
    return cr, lf


def _line_ends(head: bytes, whole: bool) -> int:
    """How many ways (CRLF, LF, CR) the lines of ``head`` end outside quotes; a CR that
    ends a head cut short may be a CRLF's and is left out."""
    raw = np.frombuffer(head, dtype=np.uint8)
    if not whole and raw.size and raw[-1] == 13:
        raw = raw[:-1]
    cr, lf = _unquoted_line_ends(raw, [0, False])
    crlf = int(np.isin(cr + 1, lf, assume_unique=True).sum())
    return (crlf > 0) + (lf.size > crlf) + (cr.size > crlf)


def lf_lines(chunk: bytes, state: list) -> bytes:
    """``chunk`` with its line ends outside quotes (CRLF, CR) written LF; ``state`` as
    :func:`_unquoted_line_ends` takes it, carried from one chunk of a file to the next
    (a CRLF cut between two chunks is one line end). Quoted line breaks stay as written,
    as pandas' parser keeps them in the cell."""
    after_cr = state[1]
    if not chunk or (b"\r" not in chunk and not after_cr):
        if b'"' in chunk:  # no line end to rewrite, but the quotes count
            state[0] = (state[0] + chunk.count(b'"')) % 2
        return chunk
    if b'"' not in chunk and not state[0]:  # no quote: every line end is outside one
        state[1] = chunk.endswith(b"\r")
        text = chunk[1:] if after_cr and chunk.startswith(b"\n") else chunk
        return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    raw = np.frombuffer(chunk, dtype=np.uint8)
    cr, lf = _unquoted_line_ends(raw, state)
    out = raw.copy()
    out[cr] = 10
    keep = np.ones(raw.size, dtype=bool)
    # the LF of a CRLF, this chunk's or one whose CR ended the chunk before
    keep[lf[np.isin(lf - 1, cr, assume_unique=True) | ((lf == 0) & after_cr)]] = False
    return out[keep].tobytes()


def read_csv(files: Sequence[Path], layout: CsvLayout, types: Sequence[str] | None = None) -> str:
    """DuckDB's scan of the files: no sniffing, the header line skipped, short rows padded
    with NULL, the NA tokens (exactly as written) NULL, columns named ``c0, c1, ...`` of
    ``types`` (default all VARCHAR)."""
    listed = "[" + ", ".join(literal(str(f)) for f in files) + "]"
    types = types or ["VARCHAR"] * len(layout.names)
    columns = "{" + ", ".join(f"'c{i}': '{t}'" for i, t in enumerate(types)) + "}"
    # a blank line of a one-column file is a row '' (left out later), not a missing cell
    nulls = [t for t in NA_TOKENS if t or len(types) > 1]
    options = [
        "header = false",
        f"skip = {2 if layout.separator_note else 1}",
        "auto_detect = false",
        f"columns = {columns}",
        f"delim = {literal(layout.delimiter)}",
        "quote = '\"'",
        "escape = '\"'",
        "null_padding = true",
        "nullstr = [" + ", ".join(map(literal, nulls)) + "]",
        f"encoding = {literal(layout.encoding)}",
    ]
    if layout.new_line:
        options.append(f"new_line = {literal(layout.new_line)}")
    if not layout.parallel:
        options.append("parallel = false")
    return f"read_csv({listed}, {', '.join(options)})"


def estimated_rows(files: Sequence[Path]) -> float:
    """The files' rows, estimated from the first one's head (a gzip file taken to be a
    quarter of its text)."""
    head, whole = _head(files[0])
    lines = max(head.count(b"\n"), head.count(b"\r"), 1)
    if whole and len(files) == 1:
        return lines
    gz = (".gz", ".gzip")
    size = sum(f.stat().st_size * (4 if f.name.lower().endswith(gz) else 1) for f in files)
    return lines * size / max(len(head), 1)


#: the UTF-8 copies made for a connection (their removers, :func:`copies_of`), removed when
#: called or once the connection is collected
_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def copies_of(con) -> list:
    """The removers of the UTF-8 copies :func:`csv_scan` made so far for the connection
    ``con``: each deletes its copy when called (an app server keeps a finished scan's
    engine, so waiting for the connection to be collected left a copy of the whole file
    on disk per scan, 325 MB each of a 6 x 10^6-row file)."""
    return list(_COPIES.get(con, []))


def utf8_copy(
    con,
    path: Path,
    read_as: list[str] | None = None,
    stop=None,
    encodings: Sequence[str] = ("cp1252", "latin-1"),
) -> Path:
    """A UTF-8 copy of a file, decoded as the readers decode it (the first of
    ``encodings`` that decodes it all: by default Windows-1252, else Latin-1), its line
    ends outside quotes all LF (:func:`lf_lines`), streamed; it is deleted with the
    connection ``con``. The encoding it was decoded as is appended to ``read_as`` when
    the readers name it in a note (Windows-1252, Latin-1); once ``stop()`` is true the
    copy ends with :class:`InterruptedError` (a Cancel in the app).

    DuckDB reads Latin-1 but refuses its bytes 0x80-0x9F, which Windows-1252 uses for
    ``€``, curly quotes and dashes, so such a file is copied rather than read in place;
    so is a file whose lines end in more than one way (:attr:`CsvLayout.mixed_lines`).
    """
    folder = Path(tempfile.gettempdir()) / "heb_csv_utf8"
    folder.mkdir(exist_ok=True)
    handle, name = tempfile.mkstemp(suffix=".csv", dir=folder)
    os.close(handle)
    copy = Path(name)
    _COPIES.setdefault(con, []).append(weakref.finalize(con, copy.unlink, missing_ok=True))
    opener = gzip.open if path.name.lower().endswith((".gz", ".gzip")) else open
    for encoding in encodings:  # Latin-1 decodes every byte
        decoder = codecs.getincrementaldecoder(encoding)()
        state = [0, False]
        try:
            with opener(path, "rb") as source, copy.open("wb") as out:
                chunk = _without_bom(source.read(_COPY_BYTES), encoding)
                while chunk:
                    if stop is not None and stop():
                        raise InterruptedError(f"The copy of {path.name!r} was interrupted.")
                    out.write(lf_lines(decoder.decode(chunk).encode("utf-8"), state))
                    chunk = source.read(_COPY_BYTES)
                out.write(lf_lines(decoder.decode(b"", final=True).encode("utf-8"), state))
            break
        except UnicodeDecodeError:
            continue
    if read_as is not None and encoding in ENCODING_NOTES:
        read_as.append(encoding)
    return copy
