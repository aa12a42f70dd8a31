"""OpenML datasets by integer id, through the ``openml`` client and a local cache."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from heb import paths
from heb.data.arff import read_arff
from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    MAX_COLUMNS,
    DataError,
    Dataset,
    finalize,
    is_text_dtype,
    quote,
)
from heb.data.names import join_names
from heb.data.parquet import read_parquet
from heb.data.readers import decode_text, gunzip, read_local_file

# ---------------------------------------------------------------------------- OpenML
DEFAULT_OPENML_SERVER = "https://www.openml.org/api/v1/xml"


def _default_server() -> str:
    """Env ``HEB_OPENML_SERVER`` (:func:`heb.paths.openml_server`), else
    ``heb.data.DEFAULT_OPENML_SERVER``, read at call time so one setting on the package
    (e.g. a test pointing it at a dead address) reaches every loader."""
    import heb.data

    return paths.openml_server() or heb.data.DEFAULT_OPENML_SERVER


_OPENML_LOCK = threading.Lock()


def parse_openml_id(dataset_id) -> int:
    """An OpenML id as an int: a whole number (a string of digits too), at least 1;
    anything else is a :class:`DataError` in one sentence."""
    if isinstance(dataset_id, bool | np.bool_):
        raise DataError("An OpenML dataset id is a whole number such as 31.")
    if isinstance(dataset_id, int | np.integer):
        value = int(dataset_id)
    elif isinstance(dataset_id, float | np.floating) and float(dataset_id).is_integer():
        value = int(dataset_id)
    elif isinstance(dataset_id, str) and re.fullmatch(r"\s*[+-]?\d+\s*", dataset_id):
        value = int(dataset_id)
    else:
        raise DataError(
            f"An OpenML dataset id is a whole number such as 31, not {quote(dataset_id)} "
            "(loading by name needs the network)."
        )
    if value <= 0:
        raise DataError(f"OpenML dataset ids are positive whole numbers, not {value}.")
    return value


@contextlib.contextmanager
def _openml_config(root: Path, server: str) -> Iterator:
    """Point the openml client at ``root`` and ``server``; restore its settings after.

    The openml client keeps its cache folder, server and retry count in module globals
    (``openml.config``) and reads a parquet switch from ``os.environ``: there is no
    per-call setting. So every change is made only inside this context, which
    :func:`load_openml` enters under the module lock ``_OPENML_LOCK`` (one OpenML load at
    a time in this process), and the ``finally`` block puts every saved value back, also
    when the load fails. Other code of this process that uses the openml client while a
    load runs would see these settings for that moment; nothing in HEB Explorer does.
    """
    import openml

    config = openml.config
    saved = (config.get_config_as_dict()["cachedir"], config.server, config.connection_n_retries)
    saved_skip = os.environ.get(config.OPENML_SKIP_PARQUET_ENV_VAR)
    try:
        config.set_root_cache_directory(root)
        config.server = server
        config.connection_n_retries = 1
        yield openml
    finally:
        config.set_root_cache_directory(saved[0])
        config.server, config.connection_n_retries = saved[1], saved[2]
        if saved_skip is None:
            os.environ.pop(config.OPENML_SKIP_PARQUET_ENV_VAR, None)
        else:
            os.environ[config.OPENML_SKIP_PARQUET_ENV_VAR] = saved_skip


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def _openml_error(dataset_id: int, exc: Exception, root: Path) -> DataError:
    import requests
    from openml import exceptions as oe

    if isinstance(exc, oe.OpenMLPrivateDatasetError):
        return DataError(f"OpenML dataset {dataset_id} is private.")
    if isinstance(exc, oe.OpenMLServerException):
        if getattr(exc, "code", None) == 111:
            return DataError(f"OpenML has no dataset with id {dataset_id}.")
        return DataError(
            f"The OpenML server could not deliver dataset {dataset_id} "
            f"({str(getattr(exc, 'message', exc)).rstrip('.')})."
        )
    if isinstance(exc, oe.OpenMLHashException):
        return DataError(f"The download of OpenML dataset {dataset_id} was damaged; try again.")
    if isinstance(exc, requests.exceptions.RequestException | ConnectionError | TimeoutError):
        partial = _partly_cached(root, dataset_id)
        if partial:
            return DataError(
                f"OpenML dataset {dataset_id} is only partly in the local cache "
                f"({join_names(partial)}, without its description) and the OpenML server "
                "cannot be reached; connect to the internet once to complete it, or pick a "
                "built-in dataset."
            )
        return DataError(
            f"OpenML dataset {dataset_id} is not in the local cache and the OpenML server "
            "cannot be reached; connect to the internet once to download it, or pick a "
            "built-in dataset." + _other_server_hint(root, dataset_id)
        )
    if isinstance(exc, PermissionError):
        return DataError(f"The OpenML cache folder cannot be written to ({exc.filename}).")
    return DataError(f"OpenML dataset {dataset_id} could not be loaded ({type(exc).__name__}).")


def _partly_cached(root: Path, dataset_id: int) -> list[str]:
    """The files of the dataset's cache folders under ``root`` (any server) that lack the
    description the client needs first (a cache holding ``dataset_30.pq`` alone): the
    dataset is then partly, not "not", in the cache."""
    found = set()
    for folder in root.glob(f"org/openml/*/datasets/{dataset_id}"):
        if folder.is_dir() and not (folder / "description.xml").is_file():
            found.update(p.name for p in folder.iterdir() if p.is_file())
    return sorted(found)


def _other_server_hint(root: Path, dataset_id: int) -> str:
    """Where the cache under ``root`` holds the dataset for another OpenML server than the
    one asked (a test-server cache read for the production server): a sentence naming
    that server and how to choose it; else ""."""
    for description in sorted(root.glob(f"org/openml/*/datasets/{dataset_id}/description.xml")):
        host = description.parents[2].name  # org/openml/<host>/datasets/<id>
        return (
            f" This cache holds dataset {dataset_id} for the server {host}.openml.org: set "
            f"HEB_OPENML_SERVER=https://{host}.openml.org/api/v1/xml to read it."
        )
    return ""


def _get_openml_dataset(openml, dataset_id: int, dataset_dir: Path):
    """``openml.datasets.get_dataset`` that never lets a failure delete a good cache.

    The client deletes a dataset's cache folder on any exception, so a hard-linked
    backup of the folder is taken first and put back if the call fails.
    """
    backup_root = None
    if dataset_dir.is_dir():
        description = dataset_dir / "description.xml"
        arff_cached = (dataset_dir / "dataset.arff").is_file()
        parquet_cached = any(dataset_dir.glob("dataset*.pq"))
        if description.is_file() and arff_cached and not parquet_cached:
            # the ARFF is here: do not try the network for a parquet copy
            os.environ[openml.config.OPENML_SKIP_PARQUET_ENV_VAR] = "true"
        try:
            backup_root = Path(tempfile.mkdtemp(prefix=".heb-backup-", dir=dataset_dir.parent))
        except OSError:
            backup_root = Path(tempfile.mkdtemp(prefix="heb-openml-backup-"))
        shutil.copytree(dataset_dir, backup_root / "copy", copy_function=_link_or_copy)
    try:
        return openml.datasets.get_dataset(
            dataset_id,
            download_data=True,
            download_qualities=False,
            download_features_meta_data=False,
        )
    except Exception:
        if backup_root is not None:
            shutil.rmtree(dataset_dir, ignore_errors=True)
            shutil.copytree(backup_root / "copy", dataset_dir, copy_function=_link_or_copy)
        raise
    finally:
        if backup_root is not None:
            shutil.rmtree(backup_root, ignore_errors=True)


def _nominal_from_features_xml(path: Path) -> list[str] | None:
    if not path.is_file():
        return None
    import xmltodict

    try:
        parsed = xmltodict.parse(path.read_text(encoding="utf-8"), force_list=("oml:feature",))
        features = parsed["oml:data_features"]["oml:feature"]
    except Exception:  # a damaged metadata file: fall back to dtypes
        return None
    return [f["oml:name"] for f in features if f.get("oml:data_type") == "nominal"]


def _read_openml_files(dataset, dataset_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    parquet = getattr(dataset, "parquet_file", None)
    if parquet and Path(parquet).is_file():
        frame = read_parquet(Path(parquet), DEFAULT_MAX_BYTES, max_columns=MAX_COLUMNS)
        nominal = _nominal_from_features_xml(dataset_dir / "features.xml")
        if nominal is None:
            nominal = [c for c in frame.columns if is_text_dtype(frame[c].dtype)]
        return frame, nominal
    arff_path = getattr(dataset, "data_file", None)
    if not arff_path or not Path(arff_path).is_file():
        raise DataError(f"OpenML dataset {dataset.dataset_id} has no data file in the cache.")
    raw = read_local_file(arff_path, DEFAULT_MAX_BYTES)
    _check_md5(raw, dataset)
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(raw, DEFAULT_MAX_BYTES)
    return read_arff(decode_text(raw, []), [])


def _check_md5(raw: bytes, dataset) -> None:
    """Refuse a cached ARFF whose md5 differs from the one in OpenML's description.

    The client checks the checksum only when it downloads; a file cut short or replaced
    in the cache afterwards would otherwise load as this dataset.
    """
    expected = str(getattr(dataset, "md5_checksum", None) or "").strip().lower()
    if expected and hashlib.md5(raw, usedforsecurity=False).hexdigest() != expected:
        raise DataError(
            f"The cached data file of OpenML dataset {dataset.dataset_id} does not match the "
            "checksum OpenML published for it; delete its cache folder to download it again."
        )


def load_openml(
    dataset_id,
    cache_dir: str | Path | None = None,
    server: str | None = None,
    *,
    target: str | None = None,
) -> Dataset:
    """An OpenML dataset by integer id, through the ``openml`` client and a local cache.

    Parameters
    ----------
    dataset_id : int
        The OpenML id (a string of digits is accepted; names are not: they need the
        network).
    cache_dir : path, optional
        Root of the openml cache; default env ``HEB_OPENML_CACHE``, else
        ``data_cache/openml`` (:func:`heb.paths.openml_cache_dir`). Offline, a dataset
        loads when this cache holds it.
    server : str, optional
        The OpenML API URL; default env ``HEB_OPENML_SERVER``, else the production
        server. The cache subfolder follows it (``org/openml/www`` or
        ``org/openml/test``).
    target : str, optional
        Default OpenML's default target attribute.

    Feature types come from OpenML's metadata (nominal -> categorical); the row-id and
    ignored attributes are left out.
    """
    dataset_id = parse_openml_id(dataset_id)
    root = Path(cache_dir) if cache_dir is not None else paths.openml_cache_dir()
    if cache_dir is None and paths.openml_cache_from_env() is not None and not root.is_dir():
        raise DataError(
            "HEB_OPENML_CACHE names a folder that does not exist: point it at the root of an "
            "openml cache (the folder holding org/)."
        )
    server = server or _default_server()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"The OpenML cache folder {root} cannot be created.") from exc
    with _OPENML_LOCK, _openml_config(root, server) as openml:
        dataset_dir = Path(openml.config.get_cache_directory()) / "datasets" / str(dataset_id)
        try:
            dataset = _get_openml_dataset(openml, dataset_id, dataset_dir)
        except DataError:
            raise
        except Exception as exc:
            raise _openml_error(dataset_id, exc, root) from exc
        try:
            frame, nominal = _read_openml_files(dataset, dataset_dir)
        except DataError:
            raise
        except Exception as exc:  # a damaged cached file: report it, keep the cache
            raise DataError(
                f"The cached files of OpenML dataset {dataset_id} could not be read."
            ) from exc
    if target is None:
        target = dataset.default_target_attribute
        if not target or "," in str(target):
            raise DataError(
                f"OpenML dataset {dataset_id} has no single default target; choose a target column."
            )
    drop = []
    if dataset.row_id_attribute:
        drop.append(dataset.row_id_attribute)
    ignore = dataset.ignore_attribute or []
    drop += [ignore] if isinstance(ignore, str) else list(ignore)
    return finalize(
        frame,
        target,
        name=str(dataset.name),
        source=f"openml:{dataset_id}",
        declared=nominal,
        drop=drop,
        description=f"OpenML dataset {dataset_id} ({dataset.name}).",
    )
