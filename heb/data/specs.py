"""``load_dataset``: one string (builtin:, shared:, openml:, a path) to a :class:`Dataset`.

Two trust levels. The API and the CLI may name a local file (``load_dataset(path)``); a
value that comes from a visitor (the app's ``?data=`` URL) goes through
``load_dataset(spec, allow_paths=False)``, which accepts only built-in, shared and
``openml:ID`` names and refuses everything else before touching the file system.
"""

from __future__ import annotations

import re
from pathlib import Path

from heb.data.builtins import BUILTIN_DATASETS, load_builtin
from heb.data.catalogue import CATALOGUE_BY_NAME
from heb.data.dataset import DEFAULT_MAX_BYTES, DataError, Dataset, quote
from heb.data.openml import load_openml
from heb.data.readers import read_local_file
from heb.data.shared import load_shared, shared_dataset_names
from heb.data.uploads import load_upload

__all__ = ["load_dataset", "MAX_SPEC_LENGTH"]

#: longest dataset name accepted (a longer value is refused before any lookup)
MAX_SPEC_LENGTH = 200
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


def _refuse_name(spec: str) -> DataError:
    return DataError(
        f"{quote(spec)} is not a dataset name; use builtin:NAME, shared:NAME or openml:ID."
    )


def _load_name(spec: str, kwargs: dict) -> Dataset | None:
    """A prefixed or bare name, or None when ``spec`` is not one."""
    kind, sep, rest = spec.partition(":")
    kind, rest = kind.lower(), rest.strip()
    if sep and kind == "builtin":
        return load_builtin(rest, **kwargs)
    if sep and kind == "shared":
        return load_shared(rest, **kwargs)
    if sep and kind == "openml":
        return load_openml(rest, **kwargs)
    if spec in BUILTIN_DATASETS:
        return load_builtin(spec)
    if spec in CATALOGUE_BY_NAME:
        if spec in shared_dataset_names():
            return load_shared(spec)
        return load_openml(CATALOGUE_BY_NAME[spec].openml_id, **kwargs)
    return None


def load_dataset(spec: str, *, allow_paths: bool = True, **kwargs) -> Dataset:
    """Load ``"builtin:NAME"``, ``"shared:NAME"``, ``"openml:ID"`` or a file path.

    A bare built-in name, or a catalogue name (its shared copy when present, else OpenML),
    also works. Extra keyword arguments go to the loader.

    Parameters
    ----------
    spec : str
        The dataset.
    allow_paths : bool
        True (the API, the CLI): a local path or ``file:PATH`` is read too (regular files
        only, never ``/proc``, ``/sys``, ``/dev``). False (any value a visitor typed, e.g.
        the app's URL): only built-in, shared and ``openml:ID`` names, checked against
        their lists before anything is opened; the refusal never shows file contents.
    """
    spec = str(spec).strip()
    if len(spec) > MAX_SPEC_LENGTH:
        raise DataError(
            f"The dataset name is {len(spec):,} characters long, more than the "
            f"{MAX_SPEC_LENGTH} a name may have."
        )
    if not allow_paths:
        kind, sep, rest = spec.partition(":")
        if sep and kind.lower() in ("builtin", "shared", "openml"):
            if not _NAME.fullmatch(rest.strip()):
                raise _refuse_name(spec)
        elif not (spec in BUILTIN_DATASETS or spec in CATALOGUE_BY_NAME):
            raise _refuse_name(spec)
    dataset = _load_name(spec, kwargs)
    if dataset is not None:
        return dataset
    kind, sep, rest = spec.partition(":")
    path = Path(rest.strip() if sep and kind.lower() in ("file", "upload") else spec)
    if path.exists() or path.is_symlink():
        max_bytes = kwargs.pop("max_bytes", DEFAULT_MAX_BYTES)
        return load_upload(
            read_local_file(path, max_bytes), path.name, max_bytes=max_bytes, **kwargs
        )
    raise DataError(
        f"{quote(spec)} is not a dataset name, an OpenML id or a file; use builtin:NAME, "
        "shared:NAME, openml:ID or a file path."
    )
