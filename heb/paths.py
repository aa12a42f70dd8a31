"""Where HEB Explorer finds its shared material and writes its cache.

Every path the project reads or writes outside the package comes from here, so a
single environment variable redirects it.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The read-only ``shared/`` folder (env ``HEB_SHARED_DIR``, default ``../shared``)."""
    return Path(os.environ.get("HEB_SHARED_DIR", REPO_ROOT.parent / "shared"))


def datasets_dir() -> Path:
    """The benchmark dataset copies (env ``HEB_DATASETS_DIR``, default ``shared/datasets``)."""
    env = os.environ.get("HEB_DATASETS_DIR")
    return Path(env) if env else shared_dir() / "datasets"


def cache_dir() -> Path:
    """The runtime cache root (env ``HEB_CACHE_DIR``, default ``data_cache/``)."""
    return Path(os.environ.get("HEB_CACHE_DIR", REPO_ROOT / "data_cache"))
