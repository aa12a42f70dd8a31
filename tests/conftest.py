"""Shared fixtures: the path to ``../shared`` comes from :mod:`heb.paths` alone."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from heb import paths

#: the Spark tests' driver JVMs (pyspark reads SPARK_SUBMIT_OPTS when it launches one, in
#: this process and in the CLI's subprocesses) compile with the C1 JIT only and collect
#: with the serial GC: each test runs short queries on tiny tables, and C2's compile
#: threads and G1's workers took about 40 % of the JVM's CPU on two cores (Java's CPU on
#: four Spark test files: 80 core-s before, 45 after); the numbers are the same
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory) -> Path:
    """Every test run caches results in its own temporary folder, never in ``data_cache/``.

    Tests that need another folder set ``HEB_CACHE_DIR`` themselves (monkeypatch); each
    pytest-xdist worker gets its own folder.
    """
    folder = tmp_path_factory.mktemp("heb_cache")
    os.environ["HEB_CACHE_DIR"] = str(folder)
    return folder


def _require(path: Path, what: str) -> Path:
    if not path.exists():
        pytest.skip(
            f"{what} not found at {path} (set HEB_SHARED_DIR); a fresh clone has no shared/"
        )
    return path


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder, or skip with the reason."""
    return _require(paths.shared_dir(), "the shared folder")


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """The shared benchmark datasets, or skip with the reason."""
    return _require(paths.datasets_dir() / "manifest.json", "the shared dataset manifest").parent


@pytest.fixture(scope="session")
def manifest(datasets_dir: Path) -> dict[str, dict]:
    """The manifest of the shared datasets, keyed by name."""
    entries = json.loads((datasets_dir / "manifest.json").read_text())
    return {entry["name"]: entry for entry in entries}


def read_shared_csv(datasets_dir: Path, name: str):
    """Read one shared ``.csv.gz`` with pandas (tests only)."""
    import pandas as pd

    with gzip.open(datasets_dir / f"{name}.csv.gz", "rt") as handle:
        return pd.read_csv(handle)


@pytest.fixture
def resolved_paths(monkeypatch) -> list[Path]:
    """Every path ``Path.resolve`` is called on during the test (the list fills as it runs;
    clear it after the test's own resolves)."""
    resolved: list[Path] = []
    original = Path.resolve

    def counting(self, *args, **kwargs):
        resolved.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "resolve", counting)
    return resolved


@pytest.fixture(scope="session")
def zip_file(tmp_path_factory) -> Path:
    """The built-in zip-codes rows (target 'bought' included) as a CSV file ``zip.csv``
    (its zip codes keep their leading zeros, so the loader reads them as text)."""
    from heb.data import load_dataset

    dataset = load_dataset("builtin:zip-codes")
    frame = dataset.X.copy()
    frame[dataset.target] = dataset.y
    path = tmp_path_factory.mktemp("data") / "zip.csv"
    frame.to_csv(path, index=False)
    return path
