"""``load_dataset``: one string (builtin:, shared:, openml:, a path) to a Dataset."""

from __future__ import annotations

from pathlib import Path

from heb.data.builtins import BUILTIN_DATASETS, load_builtin
from heb.data.catalogue import CATALOGUE_BY_NAME
from heb.data.dataset import DEFAULT_MAX_BYTES, DataError, Dataset, format_size, quote
from heb.data.openml import load_openml
from heb.data.readers import load_upload
from heb.data.shared import load_shared, shared_dataset_names


# ---------------------------------------------------------------------------- dispatch
def load_dataset(spec: str, **kwargs) -> Dataset:
    """Load ``"builtin:NAME"``, ``"shared:NAME"``, ``"openml:ID"`` or a file path.

    A bare built-in name, or a catalogue name (its shared copy when present, else OpenML),
    also works. Extra keyword arguments go to the loader.
    """
    spec = str(spec).strip()
    kind, sep, rest = spec.partition(":")
    kind = kind.lower()
    if sep and kind == "builtin":
        return load_builtin(rest.strip(), **kwargs)
    if sep and kind == "shared":
        return load_shared(rest.strip(), **kwargs)
    if sep and kind == "openml":
        return load_openml(rest.strip(), **kwargs)
    if sep and kind in ("file", "upload"):
        spec = rest.strip()
    path = Path(spec)
    if path.is_file():
        max_bytes = kwargs.get("max_bytes", DEFAULT_MAX_BYTES)
        if path.stat().st_size > max_bytes:
            raise DataError(
                f"The file is {format_size(path.stat().st_size)}, more than the limit of "
                f"{format_size(max_bytes)}."
            )
        return load_upload(path.read_bytes(), path.name, **kwargs)
    if spec in BUILTIN_DATASETS:
        return load_builtin(spec)
    if spec in CATALOGUE_BY_NAME:
        entry = CATALOGUE_BY_NAME[spec]
        if spec in shared_dataset_names():
            return load_shared(spec)
        return load_openml(entry.openml_id, **kwargs)
    raise DataError(
        f"{quote(spec)} is not a data set name, an OpenML id or a file; use builtin:NAME, "
        "shared:NAME, openml:ID or a file path."
    )
