"""A small on-disk cache for results: frames (parquet), JSON and arrays (npz).

Entries live in ``data_cache/results/`` (the root comes from :func:`heb.paths.cache_dir`
and can be overridden per cache). Keys come from :func:`cache_key` (usually through
:meth:`heb.evaluate.RunSettings.key`), a sha256 over the settings, the data bytes, the
engine version and the code of the modules that produce numbers
(:func:`engine_revision`), so a change to any of them is a miss.

Each entry is one file: the payload bytes, then a JSON footer holding the payload's
size and sha256, then the footer's length and an end marker. A write goes to a temporary
file in the same folder that is then renamed over the entry (``os.replace`` is atomic),
so a reader sees either the old or the new complete entry, and concurrent writers of one
key cannot interleave. A read opens regular files only (no symlink, FIFO or device), reads
at most ``max_entry_bytes``, checks that the footer names the key asked for (an entry
file copied or swapped under another name is refused) and re-hashes the payload: a
truncated, corrupt, oversized or foreign entry is deleted and reported as a miss, so the
caller recomputes. Nothing is pickled.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import re
import stat
import struct
import tempfile
import time
import warnings
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from heb import paths
from heb.evaluate.keys import cache_key, engine_revision

__all__ = [
    "cache_key",
    "ResultCache",
    "cached_frame",
    "engine_revision",
    "KINDS",
    "MAX_ENTRY_BYTES",
    "STALE_TEMP_SECONDS",
]

#: the payload kinds and the file suffix of each
KINDS = {"frame": ".frame.hebc", "json": ".json.hebc", "arrays": ".arrays.hebc"}
_START = b"HEBCACHE1\n"
_END = b"\nHEBCEND1"
_LENGTH = struct.Struct("<Q")
_KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
_TEMP_PREFIX = ".tmp-"
#: a temporary file older than this (seconds) is a killed writer's, removed by the next
#: cache that writes (a live write of the largest entry takes seconds)
STALE_TEMP_SECONDS = 3600.0
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: the largest entry a cache reads or writes by default (bytes)
MAX_ENTRY_BYTES = 1 << 30


# ------------------------------------------------------------------ payloads
def _frame_to_bytes(frame: pd.DataFrame) -> bytes:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"put_frame needs a pandas DataFrame, got {type(frame).__name__}.")
    if not all(isinstance(c, str) for c in frame.columns):
        raise ValueError("A cached frame needs string column names (parquet's rule).")
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow")
    return buffer.getvalue()


def _frame_from_bytes(payload: bytes) -> pd.DataFrame:
    return pd.read_parquet(io.BytesIO(payload), engine="pyarrow")


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            raise TypeError("put_json cannot store an object array; convert it to a list.")
        return obj.tolist()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"put_json cannot store a {type(obj).__name__}; use plain JSON values.")


def _json_to_bytes(obj: Any) -> bytes:
    return json.dumps(obj, default=_json_default, sort_keys=True).encode("utf-8")


def _arrays_to_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    if not isinstance(arrays, Mapping):
        raise TypeError("put_arrays needs a dict mapping names to numpy arrays.")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, value in arrays.items():
            if not isinstance(name, str) or not name or "/" in name:
                raise ValueError(
                    f"Array names must be non-empty strings without '/'; got {name!r}."
                )
            array = np.asarray(value)
            if array.dtype.hasobject:
                raise ValueError(
                    f"Array {name!r} holds Python objects, which would need pickle; "
                    "store numbers or fixed-width strings."
                )
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return buffer.getvalue()


def _arrays_from_bytes(payload: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


_ENCODERS = {"frame": _frame_to_bytes, "json": _json_to_bytes, "arrays": _arrays_to_bytes}
_DECODERS = {
    "frame": _frame_from_bytes,
    "json": lambda payload: json.loads(payload.decode("utf-8")),
    "arrays": _arrays_from_bytes,
}


class _CorruptEntry(Exception):
    """The bytes on disk are not a complete, intact entry."""


def _unwrap(blob: bytes, kind: str, key: str) -> tuple[bytes, dict]:
    """Split a stored entry into its payload and footer, checking key, kind, size and sha256."""
    tail = len(_END) + _LENGTH.size
    if len(blob) < len(_START) + tail or not blob.startswith(_START) or not blob.endswith(_END):
        raise _CorruptEntry("missing start or end marker")
    (footer_length,) = _LENGTH.unpack(blob[-tail : -len(_END)])
    footer_start = len(blob) - tail - footer_length
    if footer_start < len(_START):
        raise _CorruptEntry("footer length out of range")
    try:
        footer = json.loads(blob[footer_start : len(blob) - tail].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _CorruptEntry("unreadable footer") from exc
    payload = blob[len(_START) : footer_start]
    if not isinstance(footer, dict) or footer.get("kind") != kind:
        raise _CorruptEntry("wrong kind")
    if footer.get("key") != key:
        raise _CorruptEntry("the entry of another key")
    if footer.get("size") != len(payload):
        raise _CorruptEntry("payload size mismatch")
    if footer.get("sha256") != hashlib.sha256(payload).hexdigest():
        raise _CorruptEntry("checksum mismatch")
    return payload, footer


def _read_regular_file(path: Path, limit: int) -> tuple[bytes, os.stat_result] | None:
    """At most ``limit + 1`` bytes of ``path`` and its identity; ``None`` unless a regular file.

    Symlinks are not followed and a FIFO is opened without blocking, then refused.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(path, flags)
    except OSError:
        return None
    try:
        identity = os.fstat(handle)
        if not stat.S_ISREG(identity.st_mode):
            return None
        with os.fdopen(os.dup(handle), "rb") as stream:
            return stream.read(limit + 1), identity
    except OSError:
        return None
    finally:
        os.close(handle)


# --------------------------------------------------------------------- cache
class ResultCache:
    """Results on disk, one checksummed file per (key, kind).

    Parameters
    ----------
    root : Path, optional
        Folder holding the entries; default ``heb.paths.cache_dir() / "results"``.
        Created on the first write.
    max_entry_bytes : int
        Larger entries are neither written (an ``OSError``, which callers treat as an
        unwritable cache) nor read (a miss).
    """

    def __init__(self, root: Path | str | None = None, max_entry_bytes: int = MAX_ENTRY_BYTES):
        self.root = Path(root) if root is not None else paths.cache_dir() / "results"
        self.max_entry_bytes = int(max_entry_bytes)
        self._swept = False

    def __repr__(self) -> str:
        return f"ResultCache(root={str(self.root)!r})"

    # -- paths
    def _path(self, key: str, kind: str) -> Path:
        if not isinstance(key, str) or not _KEY_PATTERN.fullmatch(key):
            raise ValueError(
                "A cache key must be 1-200 letters, digits, '_', '-' or '.' (use cache_key())."
            )
        return self.root / f"{key}{KINDS[kind]}"

    def __contains__(self, key: object) -> bool:
        """True when an entry of any kind exists for ``key`` (validity is checked on read)."""
        if not isinstance(key, str) or not _KEY_PATTERN.fullmatch(key):
            return False
        return any(self._path(key, kind).exists() for kind in KINDS)

    # -- raw read / write
    def _write(self, key: str, kind: str, payload: bytes, meta: dict | None) -> None:
        target = self._path(key, kind)
        footer = {
            "format": 1,
            "kind": kind,
            "key": key,
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "created": time.time(),
            "meta": meta or {},
        }
        footer_bytes = json.dumps(footer, default=_json_default, sort_keys=True).encode("utf-8")
        size = len(_START) + len(payload) + len(footer_bytes) + _LENGTH.size + len(_END)
        if size > self.max_entry_bytes:
            raise OSError(
                errno.EFBIG,
                f"A {size:,}-byte entry exceeds the cache's limit of {self.max_entry_bytes:,}",
            )
        self.root.mkdir(parents=True, exist_ok=True)
        if not self._swept:
            self._swept = True
            self._remove_stale_temps()
        handle, temp_name = tempfile.mkstemp(dir=self.root, prefix=_TEMP_PREFIX, suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_START)
                out.write(payload)
                out.write(footer_bytes)
                out.write(_LENGTH.pack(len(footer_bytes)))
                out.write(_END)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp_name, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            raise

    def _remove_stale_temps(self) -> None:
        """Remove the temporary files of writers killed mid-write (SIGKILL, a power cut),
        which nothing reads and which stayed until :meth:`clear`; once per cache, on its
        first write, and only files older than :data:`STALE_TEMP_SECONDS`."""
        cutoff = time.time() - STALE_TEMP_SECONDS
        for item in self.root.glob(f"{_TEMP_PREFIX}*.part"):
            with contextlib.suppress(OSError):
                if item.is_file() and item.stat().st_mtime < cutoff:
                    item.unlink()

    def _read(self, key: str, kind: str) -> tuple[bytes, dict] | None:
        target = self._path(key, kind)
        found = _read_regular_file(target, self.max_entry_bytes)
        if found is None:  # absent, not a regular file, or unreadable: a miss
            return None
        blob, identity = found
        try:
            if len(blob) > self.max_entry_bytes:
                raise _CorruptEntry("larger than the cache's limit")
            return _unwrap(blob, kind, key)
        except _CorruptEntry:
            self._discard(target, identity)
            return None

    @staticmethod
    def _discard(target: Path, identity: os.stat_result) -> None:
        """Delete a bad entry unless another writer has already replaced it."""
        try:
            now = os.stat(target)
        except FileNotFoundError:
            return
        if (now.st_ino, now.st_mtime_ns, now.st_size) == (
            identity.st_ino,
            identity.st_mtime_ns,
            identity.st_size,
        ):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)

    def _get(self, key: str, kind: str) -> Any:
        found = self._read(key, kind)
        if found is None:
            return None
        try:
            return _DECODERS[kind](found[0])
        except Exception:  # intact checksum but undecodable (e.g. another library version)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path(key, kind))
            return None

    # -- public API
    def get_frame(self, key: str) -> pd.DataFrame | None:
        """The stored frame, or ``None`` when absent or corrupt (a corrupt entry is deleted)."""
        return self._get(key, "frame")

    def put_frame(self, key: str, frame: pd.DataFrame, meta: dict | None = None) -> None:
        """Store ``frame`` as parquet under ``key``, with optional JSON ``meta``."""
        self._write(key, "frame", _frame_to_bytes(frame), meta)

    def get_json(self, key: str) -> Any:
        """The stored JSON value, or ``None`` when absent or corrupt."""
        return self._get(key, "json")

    def put_json(self, key: str, obj: Any) -> None:
        """Store a JSON-serialisable value (numpy scalars and arrays become numbers/lists)."""
        self._write(key, "json", _json_to_bytes(obj), None)

    def get_arrays(self, key: str) -> dict[str, np.ndarray] | None:
        """The stored arrays by name, or ``None`` when absent or corrupt."""
        return self._get(key, "arrays")

    def put_arrays(self, key: str, arrays: Mapping[str, np.ndarray]) -> None:
        """Store numeric / string arrays as an npz archive (object arrays are refused)."""
        self._write(key, "arrays", _arrays_to_bytes(arrays), None)

    def meta(self, key: str, kind: str = "frame") -> dict | None:
        """The ``meta`` dict stored with an entry, or ``None`` when absent or corrupt."""
        if kind not in KINDS:
            raise ValueError(f"Unknown entry kind {kind!r}; choose one of {', '.join(KINDS)}.")
        found = self._read(key, kind)
        return None if found is None else found[1].get("meta", {})

    def store(self, kind: str, key: str, value: Any) -> bool:
        """``put_<kind>(key, value)``, but a cache that cannot be written costs a warning.

        Returns whether the entry was written. A result that could not be stored is
        recomputed next time; the run that computed it goes on.
        """
        if kind not in KINDS:
            raise ValueError(f"Unknown entry kind {kind!r}; choose one of {', '.join(KINDS)}.")
        try:
            self._write(key, kind, _ENCODERS[kind](value), None)
        except OSError as exc:
            warnings.warn(
                f"Results not cached in {self.root} ({exc}); they will be recomputed next time.",
                stacklevel=2,
            )
            return False
        return True

    def delete(self, key: str) -> None:
        """Remove every entry stored under ``key`` (no error when there is none)."""
        for kind in KINDS:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path(key, kind))

    def clear(self) -> int:
        """Delete every entry and leftover temporary file; return how many files went."""
        if not self.root.is_dir():
            return 0
        removed = 0
        for item in self.root.iterdir():
            ours = item.name.startswith(_TEMP_PREFIX) or item.name.endswith(tuple(KINDS.values()))
            if ours and item.is_file():
                with contextlib.suppress(FileNotFoundError):
                    item.unlink()
                    removed += 1
        return removed


def cached_frame(
    key: str, compute: Callable[[], pd.DataFrame], cache: ResultCache | None = None
) -> tuple[pd.DataFrame, bool]:
    """Return the frame stored under ``key``, computing and storing it on a miss.

    Parameters
    ----------
    key : str
        Usually from :func:`cache_key`.
    compute : callable
        Called with no argument on a miss; must return a DataFrame.
    cache : ResultCache, optional
        Default: a cache at the default root.

    Returns
    -------
    (DataFrame, bool)
        The frame and whether it came from the cache. A cache that cannot be written
        (read-only disk) only warns; the computed frame is still returned.
    """
    cache = cache if cache is not None else ResultCache()
    stored = cache.get_frame(key)
    if stored is not None:
        return stored, True
    frame = compute()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"compute() must return a pandas DataFrame, got {type(frame).__name__}.")
    cache.store("frame", key, frame)
    return frame, False
