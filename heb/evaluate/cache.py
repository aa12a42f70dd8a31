"""A small on-disk cache for results: frames (parquet), JSON and arrays (npz).

Entries live in ``data_cache/results/`` (the root comes from :func:`heb.paths.cache_dir`
and can be overridden per cache). Keys come from :func:`cache_key`, a sha256 over the
settings, the data bytes and the engine version, so a change to any of them is a miss.

Each entry is one file: the payload bytes, then a JSON footer holding the payload's
size and sha256, then the footer's length and an end marker. A write goes to a temporary
file in the same folder that is then renamed over the entry (``os.replace`` is atomic),
so a reader sees either the old or the new complete entry, and concurrent writers of one
key cannot interleave. A read re-hashes the payload: a truncated, corrupt or foreign
file is deleted and reported as a miss, so the caller recomputes. Nothing is pickled.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import io
import json
import math
import os
import re
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

__all__ = ["cache_key", "ResultCache", "cached_frame", "KINDS"]

#: the payload kinds and the file suffix of each
KINDS = {"frame": ".frame.hebc", "json": ".json.hebc", "arrays": ".arrays.hebc"}
_START = b"HEBCACHE1\n"
_END = b"\nHEBCEND1"
_LENGTH = struct.Struct("<Q")
_KEY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
_TEMP_PREFIX = ".tmp-"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


# ---------------------------------------------------------------------- keys
def _canonical(obj: Any) -> Any:
    """A JSON-ready, order-independent description of ``obj`` for hashing."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if obj is pd.NA or obj is pd.NaT:
        return {"__missing__": repr(obj)}
    if isinstance(obj, pd.Timestamp | pd.Timedelta | pd.Period | pd.Interval):
        return {"__pandas__": type(obj).__name__, "value": str(obj)}
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"__float__": repr(obj)}
    if isinstance(obj, np.generic):
        return _canonical(obj.item())
    if isinstance(obj, bytes | bytearray | memoryview):
        return {"__bytes__": hashlib.sha256(bytes(obj)).hexdigest()}
    if isinstance(obj, np.ndarray):
        return _canonical_array(obj)
    if isinstance(obj, pd.DataFrame):
        return {
            "__frame__": [_canonical(list(obj.columns)), [str(t) for t in obj.dtypes]],
            "index": _canonical(obj.index),
            "columns": [_canonical_array(obj.iloc[:, j].to_numpy()) for j in range(obj.shape[1])],
        }
    if isinstance(obj, pd.Series):
        return {
            "__series__": [_canonical(obj.name), str(obj.dtype)],
            "index": _canonical(obj.index),
            "values": _canonical_array(obj.to_numpy()),
        }
    if isinstance(obj, pd.Index):
        return {
            "__index__": [type(obj).__name__, str(obj.dtype)],
            "values": _canonical_array(obj.to_numpy()),
        }
    if isinstance(obj, Mapping):
        items = [[_canonical(k), _canonical(v)] for k, v in obj.items()]
        items.sort(key=lambda kv: json.dumps(kv[0], sort_keys=True))
        return {"__dict__": items}
    if isinstance(obj, list | tuple):
        return [_canonical(item) for item in obj]
    if isinstance(obj, set | frozenset):
        return {"__set__": sorted((_canonical(i) for i in obj), key=json.dumps)}
    if isinstance(obj, os.PathLike):
        return {"__path__": os.fspath(obj)}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        return {"__dataclass__": type(obj).__qualname__, "fields": _canonical(fields)}
    if hasattr(obj, "get_params"):
        return {"__estimator__": type(obj).__qualname__, "params": _canonical(obj.get_params())}
    raise TypeError(
        f"cache_key cannot describe a {type(obj).__name__}; pass numbers, strings, "
        "dicts, lists, numpy arrays or pandas objects."
    )


def _canonical_array(array: np.ndarray) -> Any:
    array = np.asarray(array)
    if array.dtype.hasobject:
        return {"__objects__": list(array.shape), "values": _canonical(array.ravel().tolist())}
    data = np.ascontiguousarray(array).reshape(-1)
    return {
        "__ndarray__": hashlib.sha256(data.view(np.uint8)).hexdigest(),
        "dtype": str(np.lib.format.dtype_to_descr(array.dtype)),
        "shape": list(array.shape),
    }


@functools.lru_cache(maxsize=1)
def engine_revision() -> str:
    """sha256 of the engine's source (every module of the ``heb`` package).

    Part of every cache key, so a changed smoother, metric or loader never serves results
    computed by the old code, even when nobody bumped ``heb.__version__``.
    """
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(*parts: Any) -> str:
    """A sha256 hex key over ``parts``, the engine version and its source revision.

    Parameters
    ----------
    *parts
        Settings and data: numbers, strings, dicts (order of keys does not matter),
        lists, numpy scalars (hashed as the Python number) and arrays (hashed by bytes,
        dtype and shape), pandas frames, series and indexes.

    Returns
    -------
    str
        64 hex characters; any change in a part, in ``heb.__version__`` or in the engine's
        source (:func:`engine_revision`) changes it.
    """
    import heb  # lazy: heb/__init__ may one day import this module

    document = {
        "engine": heb.__version__,
        "revision": engine_revision(),
        "parts": _canonical(list(parts)),
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def _unwrap(blob: bytes, kind: str) -> tuple[bytes, dict]:
    """Split a stored entry into its payload and footer, checking size and sha256."""
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
    if footer.get("size") != len(payload):
        raise _CorruptEntry("payload size mismatch")
    if footer.get("sha256") != hashlib.sha256(payload).hexdigest():
        raise _CorruptEntry("checksum mismatch")
    return payload, footer


# --------------------------------------------------------------------- cache
class ResultCache:
    """Results on disk, one checksummed file per (key, kind).

    Parameters
    ----------
    root : Path, optional
        Folder holding the entries; default ``heb.paths.cache_dir() / "results"``.
        Created on the first write.
    """

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root) if root is not None else paths.cache_dir() / "results"

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
        self.root.mkdir(parents=True, exist_ok=True)
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

    def _read(self, key: str, kind: str) -> tuple[bytes, dict] | None:
        target = self._path(key, kind)
        try:
            with open(target, "rb") as handle:
                identity = os.fstat(handle.fileno())
                blob = handle.read()
        except OSError:  # absent, or an unreadable cache folder: a miss either way
            return None
        try:
            return _unwrap(blob, kind)
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
    try:
        cache.put_frame(key, frame)
    except OSError as exc:
        warnings.warn(f"Could not write the result cache at {cache.root}: {exc}", stacklevel=2)
    return frame, False
