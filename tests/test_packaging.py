"""``pip install .``: the wheel holds the engine alone, its requirements and the ``heb`` command.

The wheel is built offline (``--no-build-isolation``, the setuptools of
requirements-dev.txt) from a copy of the files it is made of, so the checkout gets no
``build/`` folder; it is then installed with ``--target`` into a temporary folder and used
from a working directory that is not the repository.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import heb
from heb import paths
from heb.paths import REPO_ROOT, in_source_checkout

pytestmark = pytest.mark.slow


def _requirement_lines(path: Path) -> list[str]:
    """The requirement specifiers of a requirements file, comments dropped."""
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return [line.replace(" ", "") for line in lines if line]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of the project built from a copy of pyproject.toml, README.md and heb/."""
    source = tmp_path_factory.mktemp("source")
    shutil.copy(REPO_ROOT / "pyproject.toml", source)
    shutil.copy(REPO_ROOT / "README.md", source)
    shutil.copytree(REPO_ROOT / "heb", source / "heb", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*command, "-w", str(out), str(source)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed with ``pip install --target`` (no dependencies: they are here)."""
    site = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    done = subprocess.run(
        [*command, "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return site


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(archive.read(name))


def test_the_wheel_holds_every_engine_module_and_nothing_of_the_app(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    modules = {p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "heb").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"heb"}


def _parsed(lines: list[str]) -> set[tuple[str, SpecifierSet, str]]:
    """Requirements as (name, specifiers, marker): the order of the specifiers is not kept."""
    parsed = (Requirement(line) for line in lines)
    return {(r.name, r.specifier, str(r.marker or "")) for r in parsed}


def test_the_wheel_requires_what_requirements_txt_pins(wheel: Path) -> None:
    metadata = _metadata(wheel)
    assert metadata["Name"] == "heb-explorer"
    assert metadata["Version"] == heb.__version__
    assert metadata["Requires-Python"] == ">=3.11"
    pinned = _requirement_lines(REPO_ROOT / "requirements.txt")
    (streamlit,) = [line for line in pinned if line.startswith("streamlit")]
    dev = _requirement_lines(REPO_ROOT / "requirements-dev.txt")
    (spark,) = [line for line in dev if line.startswith("pyspark")]
    expected = [line for line in pinned if line != streamlit]
    expected += [f'{streamlit}; extra == "app"', f'{spark}; extra == "spark"']
    assert _parsed(metadata.get_all("Requires-Dist")) == _parsed(expected)


def test_the_wheel_names_the_heb_command(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith("entry_points.txt")]
        text = archive.read(name).decode()
    assert "[console_scripts]" in text
    assert "heb = heb.__main__:run" in text


def _run_installed(site: Path, code: str, cwd: Path, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HEB_")}
    environ.update(PYTHONPATH=str(site), **env)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_installed_package_fits_and_caches_outside_site_packages(
    installed: Path, tmp_path: Path
) -> None:
    code = (
        "import heb, numpy as np\n"
        "from heb.paths import cache_dir, shared_dir\n"
        "X = np.array([[0, 1], [1, 1], [2, 0], [0, 0]]); y = np.array([0, 0, 1, 1])\n"
        "p = heb.NaiveBayes(smoother='heb-m').fit(X, y).predict_proba(X)\n"
        "print(heb.__file__); print(cache_dir()); print(shared_dir()); print(p.sum(axis=1))"
    )
    xdg = tmp_path / "xdg"
    module, cache, shared, sums = _run_installed(
        installed, code, tmp_path, XDG_CACHE_HOME=str(xdg)
    ).splitlines()
    assert Path(module).is_relative_to(installed)
    assert Path(cache) == xdg / paths.CACHE_FOLDER_NAME
    assert Path(shared) == tmp_path / "shared"
    assert sums == "[1. 1. 1. 1.]"


def test_the_installed_heb_command_runs_from_any_folder(installed: Path, tmp_path: Path) -> None:
    script = installed / "bin" / "heb"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HEB_")}
    done = subprocess.run(
        [str(script), "bench", "--help"],
        cwd=tmp_path,
        env={**environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: heb bench ")


def test_the_usage_line_names_python_m_heb_when_run_as_a_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from heb.cli import build_parser

    monkeypatch.setattr(sys, "argv", [str(REPO_ROOT / "heb" / "__main__.py")])
    assert build_parser().prog == "python -m heb"
    monkeypatch.setattr(sys, "argv", ["/somewhere/bin/heb"])
    assert build_parser().prog == "heb"


def test_a_checkout_is_told_from_an_installed_package(tmp_path: Path) -> None:
    assert in_source_checkout()
    assert paths.cache_dir() == Path(os.environ.get("HEB_CACHE_DIR", REPO_ROOT / "data_cache"))
    (tmp_path / "pyproject.toml").write_text("")
    assert not in_source_checkout(tmp_path)
    (tmp_path / "app.py").write_text("")
    assert in_source_checkout(tmp_path)
