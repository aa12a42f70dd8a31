"""Pin what session 24's mutants showed the new code's tests left free.

The code: ``heb.diagnostics`` (a fitted model's concentrations, named), ``heb.paths``
(where the shared folder and the cache are, in a checkout and installed), the subsample
note of ``heb.evaluate.folds`` and the ``[project]`` table of ``pyproject.toml``. Each test
names the mutant it kills.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from heb import TAN, NaiveBayes, paths
from heb.data import Dataset, make_model
from heb.diagnostics import concentration_table
from heb.evaluate.folds import is_subsample_note, prepare_folds, subsample_note
from heb.evaluate.settings import RunSettings
from heb.paths import REPO_ROOT


def _labels(rows: int, seed: int = 0) -> pd.Series:
    """Two classes, ``churn`` and ``stay``, drawn at random."""
    return pd.Series(np.random.default_rng(seed).choice(["churn", "stay"], rows), name="label")


# ------------------------------------------------------------------ heb.diagnostics
def test_a_one_step_pipeline_names_the_models_own_columns() -> None:
    """Mutant: ``len(steps)`` dropped, so a Pipeline of the model alone read ``steps[-1]``
    of an empty slice (IndexError) instead of the model's ``feature_names_in_``."""
    codes = pd.DataFrame({"a": [0, 1, 2, 0, 1, 2], "b": [1, 1, 0, 0, 1, 0]})
    y = np.array([0, 0, 0, 1, 1, 1])
    table = concentration_table(make_pipeline(NaiveBayes()).fit(codes, y))
    assert table["feature name"].tolist() == ["a", "b"] * 2


def test_names_given_for_a_pipeline_win_over_the_preprocessors() -> None:
    """Mutant: ``feature_names is None`` dropped, so the names a caller passed for a
    Pipeline were silently replaced by the preprocessor's."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"city": rng.choice(["Lyon", "Oslo"], 200), "size": rng.choice(list("SML"), 200)}
    )
    pipe = make_model(smoother="heb-m").fit(frame, _labels(200))
    given = concentration_table(pipe, feature_names=["town", "fit"])
    assert given["feature name"].tolist() == ["town", "fit"] * 2


def test_a_dropped_empty_column_does_not_shift_the_names() -> None:
    """Mutant: names from the preprocessor's input columns (``feature_names_in_``), not its
    output (``feature_names_out_``): an all-missing column, which the preprocessor drops,
    shifted every name by one ('empty' named the city's concentrations)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "empty": [np.nan] * 200,
            "city": rng.choice(["Lyon", "Oslo"], 200),
            "size": rng.choice(list("SML"), 200),
        }
    )
    pipe = make_model(smoother="heb-m").fit(frame, _labels(200))
    assert pipe[-1].n_features_in_ == 2
    assert concentration_table(pipe)["feature name"].tolist() == ["city", "size"] * 2


def test_feature_names_given_as_numbers_come_back_as_text() -> None:
    """Mutant: names kept as given, so ``feature_names=range(2)`` (or a frame's integer
    column labels) came back as ints in a column documented, sorted and filtered as text."""
    codes = np.array([[0, 1], [1, 1], [2, 0], [0, 0], [1, 1], [2, 0]])
    model = NaiveBayes().fit(codes, np.array([0, 0, 0, 1, 1, 1]))
    table = concentration_table(model, feature_names=range(10, 12))
    assert table["feature name"].tolist() == ["10", "11"] * 2


def test_a_tan_class_only_factor_is_not_named_after_a_feature() -> None:
    """A TAN's class-only factors have ``parent == -1``; their ``parent name`` must not be
    a feature's name (it was the last feature's, so 'r' was its own parent)."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(300, 3))
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 2
    names = ["p", "q", "r"]
    table = concentration_table(TAN(smoother="heb").fit(X, y), feature_names=names)
    class_only = table[table["parent"] == -1]
    assert len(class_only) > 0
    assert not class_only["parent name"].isin(names).any()


# ------------------------------------------------------------------ heb.paths
@pytest.fixture()
def no_heb_paths(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Every ``HEB_*`` path variable unset (conftest sets ``HEB_CACHE_DIR``)."""
    for name in ("HEB_SHARED_DIR", "HEB_DATASETS_DIR", "HEB_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_checkout_reads_shared_beside_it_and_caches_in_data_cache(no_heb_paths) -> None:
    """Mutants: ``shared`` looked for inside the repository, ``datasets`` misspelt, the
    checkout's cache folder renamed (the conftest's ``HEB_CACHE_DIR`` hid the default)."""
    assert paths.in_source_checkout()
    assert paths.shared_dir() == REPO_ROOT.parent / "shared"
    assert paths.datasets_dir() == REPO_ROOT.parent / "shared" / "datasets"
    assert paths.cache_dir() == REPO_ROOT / "data_cache"


def test_each_environment_variable_redirects_its_folder(no_heb_paths, tmp_path: Path) -> None:
    """Mutant: ``HEB_SHARED_DIR`` ignored (tests needing shared data then skip, not fail)."""
    no_heb_paths.setenv("HEB_SHARED_DIR", str(tmp_path / "elsewhere"))
    assert paths.shared_dir() == tmp_path / "elsewhere"
    assert paths.datasets_dir() == tmp_path / "elsewhere" / "datasets"
    no_heb_paths.setenv("HEB_DATASETS_DIR", str(tmp_path / "copies"))
    assert paths.datasets_dir() == tmp_path / "copies"
    no_heb_paths.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    assert paths.cache_dir() == tmp_path / "cache"


def test_an_installed_package_caches_in_the_users_cache_folder(
    no_heb_paths, tmp_path: Path
) -> None:
    """Mutants: ``~/cache`` for ``~/.cache``, another folder name than the documented
    ``heb-explorer``, and an empty ``XDG_CACHE_HOME`` taken as a (relative) folder where the
    XDG rule says to treat it as unset."""
    no_heb_paths.setattr(paths, "in_source_checkout", lambda root=REPO_ROOT: False)
    no_heb_paths.setenv("HOME", str(tmp_path / "home"))
    no_heb_paths.delenv("XDG_CACHE_HOME", raising=False)
    assert paths.cache_dir() == tmp_path / "home" / ".cache" / "heb-explorer"
    no_heb_paths.setenv("XDG_CACHE_HOME", "")
    assert paths.cache_dir() == tmp_path / "home" / ".cache" / "heb-explorer"
    no_heb_paths.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_dir() == tmp_path / "xdg" / "heb-explorer"
    no_heb_paths.chdir(tmp_path)
    assert paths.shared_dir() == tmp_path / "shared"


# ------------------------------------------------------------------ the subsample note
def test_the_subsample_note_is_said_only_when_rows_are_cut() -> None:
    """Mutant: ``<`` -> ``<=``, so every run (the app's compare page prints its notes)
    said 'Used a stratified subsample of 300 of 300 rows.'."""
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 300)})
    dataset = Dataset("toy", X, _labels(300, seed=2), categorical=[], source="test")
    for max_rows in (None, 300, 1000):
        notes = prepare_folds(dataset, RunSettings(max_rows=max_rows, n_splits=2)).notes
        assert not [note for note in notes if is_subsample_note(note)], (max_rows, notes)
    notes = prepare_folds(dataset, RunSettings(max_rows=200, n_splits=2)).notes
    assert subsample_note(200, 300) in notes


# ------------------------------------------------------------------ pyproject.toml
def test_the_project_table_gives_the_readme_as_the_long_description() -> None:
    """Mutant: ``readme`` dropped from ``[project]``: the wheel had no description and
    ``test_packaging`` did not notice."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert project["readme"] == "README.md"
    assert (REPO_ROOT / project["readme"]).is_file()
