"""Where HEB Explorer finds its shared material and writes its cache.

Every path the project reads or writes outside the package comes from here, so a
single environment variable redirects it. Run from a source checkout (the repository,
or ``pip install -e .`` of it), the defaults sit beside the repository; installed as a
package (``pip install .``), there is no repository, so the cache goes to the user's
cache folder and the shared folder is looked for in the working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the ``heb`` package: the repository in a source checkout."""

CACHE_FOLDER_NAME = "heb-explorer"
"""The cache's folder name under the user's cache folder, for an installed package."""


def in_source_checkout(root: Path = REPO_ROOT) -> bool:
    """Whether ``root`` is HEB Explorer's repository rather than a ``site-packages``."""
    return (root / "pyproject.toml").is_file() and (root / "app.py").is_file()


def shared_dir() -> Path:
    """The read-only ``shared/`` folder.

    Env ``HEB_SHARED_DIR``; default ``../shared`` beside the repository, or ``./shared``
    in the working directory for an installed package.
    """
    env = os.environ.get("HEB_SHARED_DIR")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" if in_source_checkout() else Path.cwd() / "shared"


def datasets_dir() -> Path:
    """The benchmark dataset copies (env ``HEB_DATASETS_DIR``, default ``shared/datasets``)."""
    env = os.environ.get("HEB_DATASETS_DIR")
    return Path(env) if env else shared_dir() / "datasets"


def cache_dir() -> Path:
    """The runtime cache root.

    Env ``HEB_CACHE_DIR``; default the repository's ``data_cache/``, or for an installed
    package ``heb-explorer`` under ``XDG_CACHE_HOME`` (``~/.cache`` when unset), never
    inside ``site-packages``.
    """
    env = os.environ.get("HEB_CACHE_DIR")
    if env:
        return Path(env)
    if in_source_checkout():
        return REPO_ROOT / "data_cache"
    user_cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(user_cache) / CACHE_FOLDER_NAME


def openml_cache_from_env() -> Path | None:
    """The openml cache root set by env ``HEB_OPENML_CACHE`` (e.g. an existing
    openml-python cache), or None."""
    env = os.environ.get("HEB_OPENML_CACHE")
    return Path(env) if env else None


def openml_cache_dir() -> Path:
    """The root of the openml client's cache (:func:`openml_cache_from_env`; default
    ``openml/`` under :func:`cache_dir`). Datasets sit in it under the server's folder,
    ``org/openml/www`` for the production server."""
    return openml_cache_from_env() or cache_dir() / "openml"


def openml_server() -> str | None:
    """The OpenML API address set by env ``HEB_OPENML_SERVER`` (e.g. the test server's
    ``https://test.openml.org/api/v1/xml``), or None for the default."""
    return os.environ.get("HEB_OPENML_SERVER") or None


def user_path(text: str | os.PathLike) -> Path:
    """A path as a user typed it, with ``~`` (``~/data``, ``~ann/data``) as a home folder.

    Only text that begins with ``~`` is expanded, and a ``~name`` with no user ``name``
    (a file ``~x.csv``, a spreadsheet's lock file ``~$book.csv``) stays that file's name:
    pathlib raised RuntimeError ("Could not determine home directory") for it, and read
    ``./~x.csv`` as ``~x.csv`` too.
    """
    path = Path(text)
    if not str(text).startswith("~"):
        return path
    try:
        return path.expanduser()
    except RuntimeError:
        return path
