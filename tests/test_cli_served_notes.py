"""A ``bench`` rerun served from the cache says what the first run said of the data."""

from __future__ import annotations

import pytest

from heb.cli import main


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_served_rerun_names_the_skipped_dataset_and_the_notes(tmp_path, isolated_cache, capsys):
    """The rerun said "Served 2 datasets from the cache." of two named, one of them a file
    that could not be read, and dropped the note that iris ran fewer folds than asked."""
    bad = tmp_path / "one_class.csv"
    bad.write_text("a,y\n" + "".join(f"{i % 3},only\n" for i in range(30)))
    args = ["bench", "builtin:iris", str(bad), "--methods", "laplace", "--folds", "60"]
    args += ["--no-figures", "-o", str(tmp_path / "out")]
    assert main(args) == 0
    first = capsys.readouterr().err.splitlines()
    skipped = [line for line in first if "skipped (" in line]
    folds = [line for line in first if "50-fold cross-validation is used instead of 60" in line]
    assert len(skipped) == 1 and len(folds) == 1, first
    assert main(args) == 0
    again = capsys.readouterr().err.splitlines()
    assert "Served 1 dataset from the cache." in again, again
    assert skipped[0] in again and folds[0] in again
