"""An upload's bytes within their budgets, read in bounded steps.

A local file is read only when it is a regular file, and at most ``max_bytes`` of it.
gzip data is unpacked :data:`UNPACK_CHUNK` bytes at a time and a :class:`LineBudget`
counts the line ends of every step as it arrives, so a file of too many rows is refused
as soon as the rows seen prove it, not after the whole file has been unpacked, decoded
and counted. Each step is short: zlib releases the GIL while it inflates, and counting a
megabyte's line ends takes well under a millisecond, so other sessions keep running.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    MAX_CELLS,
    DataError,
    TooManyCells,
    quote,
)
from heb.data.names import format_size

__all__ = [
    "HEAD_BYTES",
    "UNPACK_CHUNK",
    "LineBudget",
    "gunzip",
    "gunzip_chunks",
    "in_steps",
    "read_local_file",
]

#: bytes of gzip output produced per step (and the step of a scan of bytes in memory)
UNPACK_CHUNK = 1 << 20
#: the head the header is read from: at least this many bytes (or the whole file) ...
HEAD_BYTES = 1 << 18
#: ... grown until its header is complete, but no further than this
MAX_HEAD_BYTES = 8 << 20

_DAMAGED = "The file looks gzip-compressed but is damaged or incomplete."


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


def gunzip_chunks(data: bytes, max_bytes: int, chunk_bytes: int = UNPACK_CHUNK) -> Iterator[bytes]:
    """The decompressed gzip data (every member), at most ``chunk_bytes`` at a time.

    Raises
    ------
    DataError
        Once the output passes ``max_bytes`` (nothing past the limit is unpacked), or
        when the stream is damaged or cut short.
    """
    total = 0
    remaining = data
    try:
        while remaining:
            inflater = zlib.decompressobj(wbits=31)
            while not inflater.eof:
                chunk = inflater.decompress(remaining, min(chunk_bytes, max_bytes + 1 - total))
                remaining = inflater.unconsumed_tail
                if not (chunk or remaining or inflater.eof):  # no input, no output pending
                    raise DataError(_DAMAGED)
                total += len(chunk)
                if total > max_bytes:
                    raise DataError(
                        f"The compressed file unpacks to more than {format_size(max_bytes)}, "
                        "the size limit."
                    )
                yield chunk
            remaining = inflater.unused_data.lstrip(b"\x00")
    except zlib.error as exc:
        raise DataError(_DAMAGED) from exc


def gunzip(data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, refusing more than ``max_bytes`` of output."""
    return b"".join(gunzip_chunks(data, max_bytes))


def in_steps(data: bytes, step: int = UNPACK_CHUNK) -> Iterator[bytes]:
    """Bytes already in memory, ``step`` at a time (for a :class:`LineBudget` scan)."""
    for start in range(0, len(data), step):
        yield data[start : start + step]


#: what a head reader returns: (columns, line ends before the first row) once the head
#: holds a complete header, 0 when the file is not a table the budget applies to, or
#: None while the header is still incomplete
HeadWidth = tuple[int, int] | int | None


class LineBudget:
    """Counts a text file's line ends as its bytes arrive and refuses it as soon as its
    rows x columns exceed ``max_cells``.

    The line ends are those pandas' parser and the ARFF reader split on: LF, CR and CRLF
    (one each). The width comes from ``read_head`` (the readers' own header parsing)
    applied to the first :data:`HEAD_BYTES`, cut at a line end; the refusal therefore
    agrees with the check the readers make on the whole text, only earlier.

    Parameters
    ----------
    read_head : callable
        ``read_head(head_bytes)`` -> (columns, line ends before the first data line), or
        0 (not a table this applies to: binary, parquet, UTF-16 / UTF-32), or None
        (the header is not complete yet: give it more bytes).
    max_cells : int
        The cell budget.
    """

    def __init__(self, read_head: Callable[[bytes], HeadWidth], max_cells: int = MAX_CELLS):
        self._read_head = read_head
        self.max_cells = max_cells
        self.line_ends = 0
        self.width: int | None = None  # None: not known yet; 0: the budget does not apply
        self._skip = 0
        self._head = bytearray()
        self._last_cr = False

    def feed(self, chunk: bytes) -> bytes:
        """Count ``chunk`` (the next bytes of the file); returns it unchanged.

        Raises
        ------
        DataError
            The rows seen so far times the header's width exceed the budget.
        """
        crlf = chunk.count(b"\r\n") + (self._last_cr and chunk[:1] == b"\n")
        self.line_ends += chunk.count(b"\n") + chunk.count(b"\r") - crlf
        if chunk:  # an empty chunk leaves a CR before it waiting for its LF
            self._last_cr = chunk[-1:] == b"\r"
        if self.width is None:
            self._head += chunk
            if len(self._head) >= HEAD_BYTES:
                self._learn_width()
        rows = self.line_ends - self._skip
        if self.width and rows * self.width > self.max_cells:
            raise TooManyCells(
                f"The table has at least {rows - 1:,} rows x {self.width:,} columns, more than "
                f"the {self.max_cells:,} cells this app loads; use a sample of the rows."
            )
        return chunk

    def scan(self, chunks: Iterable[bytes]) -> list[bytes]:
        """Every chunk, counted (refused as soon as the budget is exceeded)."""
        return [self.feed(chunk) for chunk in chunks]

    def _learn_width(self) -> None:
        head = bytes(self._head)
        cut = max(head.rfind(b"\n"), head.rfind(b"\r"))
        found = self._read_head(head[: cut + 1]) if cut >= 0 else None
        if found is None and len(head) < MAX_HEAD_BYTES:
            return  # the header goes on: look again with the next chunk
        self.width, self._skip = found if isinstance(found, tuple) else (0, 0)
        self._head = bytearray()
