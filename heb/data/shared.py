"""The benchmark copies in ``../shared/datasets`` and their manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from heb import paths
from heb.data.dataset import DataError, Dataset, finalize, join_names, quote


# ---------------------------------------------------------------------------- shared copies
def _shared_dir(datasets_dir: str | Path | None) -> Path:
    return Path(datasets_dir) if datasets_dir is not None else paths.datasets_dir()


def _read_manifest(directory: Path) -> dict[str, dict]:
    try:
        entries = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(
            f"The shared benchmark folder was not found at {directory}; set HEB_SHARED_DIR "
            "to the shared folder (the one holding datasets/) or HEB_DATASETS_DIR to the "
            "folder of the copies, or use a built-in dataset."
        ) from exc
    except (OSError, ValueError) as exc:
        raise DataError(f"The shared manifest in {directory} could not be read.") from exc
    return {entry["name"]: entry for entry in entries}


def shared_dataset_names(datasets_dir: str | Path | None = None) -> list[str]:
    """Names of the shared benchmark copies present (empty when the folder is absent)."""
    directory = _shared_dir(datasets_dir)
    try:
        manifest = _read_manifest(directory)
    except DataError:
        return []
    return [name for name in manifest if (directory / f"{name}.csv.gz").is_file()]


def load_shared(name: str, datasets_dir: str | Path | None = None) -> Dataset:
    """A benchmark copy from ``../shared/datasets`` (or ``HEB_DATASETS_DIR``).

    Honours the manifest's ``target``, ``categorical_features`` and ``drop_features``;
    missing values are the empty cells.
    """
    directory = _shared_dir(datasets_dir)
    manifest = _read_manifest(directory)
    if name not in manifest:
        raise DataError(
            f"There is no shared dataset named {quote(name)}; the shared folder has "
            f"{join_names(sorted(manifest))}."
        )
    entry = manifest[name]
    path = directory / f"{name}.csv.gz"
    try:
        frame = pd.read_csv(path, na_values=[""], keep_default_na=False)
    except FileNotFoundError as exc:
        raise DataError(f"The shared file {path.name} is missing from {directory}.") from exc
    except (OSError, ValueError, EOFError) as exc:
        raise DataError(f"The shared file {path.name} could not be read.") from exc
    return finalize(
        frame,
        entry.get("target"),
        name=name,
        source=f"shared:{name}",
        declared=entry.get("categorical_features", []),
        drop=entry.get("drop_features", []),
        description=f"Benchmark copy of OpenML dataset {entry.get('openml_id')}.",
    )
