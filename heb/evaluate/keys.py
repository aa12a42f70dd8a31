"""Cache keys: a sha256 over settings and data, the engine version and the engine's code.

:func:`cache_key` hashes any mix of numbers, strings, dicts (order-free), lists, numpy
arrays and pandas objects; :func:`engine_revision` folds in the code of the modules that
produce numbers, so editing them is a miss while editing a figure, a lesson, the app or a
docstring keeps every stored result.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import math
import os
import tokenize
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["cache_key", "engine_revision", "source_revision", "NUMERIC_SOURCES"]

#: the ``heb`` sources whose code can change a stored number (globs under ``heb/``):
#: the engine, the data layer, the scale layer, the CV protocol and the CLI's tables.
#: Figures, lessons and the app are not among them: editing those keeps every result.
NUMERIC_SOURCES = (
    "*.py",  # every engine module (the flat modules of heb/), the CLI and its paths
    "data/*.py",
    "evaluate/*.py",
    "scale/*.py",
)


def _canonical(obj: Any) -> Any:  # noqa: C901 -- one flat switch over the hashable types
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


#: tokens that carry no code: comments, blank lines, the encoding marker
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
#: tokens that only frame a logical line
_FRAME = {tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.ENDMARKER}


def _code_of(source: str) -> str:
    """The code of a module without docstrings and comments, for hashing.

    Read from its tokens, not its AST: CPython 3.11's AST objects are not thread-safe
    ("SystemError: AST constructor recursion depth mismatch" when two threads build them
    at once, and Streamlit parses every page script with ``ast``), the tokenizer is. A
    logical line of string literals only (a docstring, or a no-op string statement) and
    the indentation's width do not count; every other token does.
    """
    words: list[str] = []
    line: list[tokenize.TokenInfo] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _NOT_CODE:
            continue
        line.append(token)
        if token.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
            continue
        body = [t for t in line if t.type not in _FRAME]
        strings_only = bool(body) and all(t.type == tokenize.STRING for t in body)
        words.extend(
            f"{t.type}" if t.type in _FRAME else f"{t.type}:{t.string}"
            for t in line
            if not strings_only or t.type in (tokenize.INDENT, tokenize.DEDENT)
        )
        line = []
    return " ".join(words)


def source_revision(package: Path) -> str:
    """sha256 of the code of the :data:`NUMERIC_SOURCES` under ``package`` (a ``heb`` folder).

    Docstrings and comments do not count, nor do modules outside the list.
    """
    digest = hashlib.sha256()
    files = sorted({path for pattern in NUMERIC_SOURCES for path in package.glob(pattern)})
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(_code_of(path.read_text(encoding="utf-8")).encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def engine_revision() -> str:
    """sha256 of the code that produces numbers (:data:`NUMERIC_SOURCES` of ``heb``).

    Part of every cache key, so a changed smoother, metric, loader or protocol never serves
    results computed by the old code, even when nobody bumped ``heb.__version__``; a
    figure, lesson or app edit, or a docstring, keeps every stored result.
    """
    return source_revision(Path(__file__).resolve().parents[1])


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
    import heb  # lazy: the package's version

    document = {
        "engine": heb.__version__,
        "revision": engine_revision(),
        "parts": _canonical(list(parts)),
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
