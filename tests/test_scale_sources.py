"""Bad input of the large-data path: one-sentence DataErrors / EngineErrors, each a test."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from heb.data import DataError
from heb.scale.counting import count_histograms, describe
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import DATA_ROOT_ENV, data_root, open_source, resolve_data_path
from heb.scale.spark_engine import EngineError, SparkEngine


def _one_sentence(message: str) -> None:
    assert message.count(". ") == 0 and message.endswith(".") and "\n" not in message


@pytest.fixture
def root(tmp_path, monkeypatch):
    base = tmp_path / "data"
    base.mkdir()
    pd.DataFrame({"x": [1, 2], "y": ["a", "b"]}).to_parquet(base / "ok.parquet")
    monkeypatch.setenv(DATA_ROOT_ENV, str(base))
    return base


def test_paths_resolve_under_the_root_from_the_environment(root):
    assert resolve_data_path("ok.parquet") == (root / "ok.parquet").resolve()
    assert resolve_data_path(root / "ok.parquet") == (root / "ok.parquet").resolve()
    assert data_root() == root.resolve()


@pytest.mark.parametrize("path", ["../secret.parquet", "/etc/passwd", "sub/../../x.parquet"])
def test_a_path_outside_the_root_is_refused(root, path):
    with pytest.raises(DataError, match="outside the data root") as info:
        resolve_data_path(path)
    _one_sentence(str(info.value))


def test_a_symbolic_link_out_of_the_root_is_refused(root, tmp_path):
    outside = tmp_path / "outside.parquet"
    outside.write_bytes(b"PAR1")
    os.symlink(outside, root / "link.parquet")
    with pytest.raises(DataError, match="outside the data root"):
        open_source("link.parquet")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_under_the_root_is_refused_before_any_engine_reads_it(root):
    """A FIFO named like a CSV (a link's ?large_file=pipe.csv): opened by the CSV scan, it
    blocked the page's thread forever; it is refused as the in-memory loader refuses one."""
    os.mkfifo(root / "pipe.csv")
    with pytest.raises(DataError, match="'pipe.csv' is not a regular file") as info:
        open_source("pipe.csv")
    _one_sentence(str(info.value))


def test_a_name_holding_a_nul_is_refused_in_one_sentence(root):
    """A link's ?large_file=ok.parquet%00x raised Python's ValueError (embedded null byte),
    which the app showed as an error page."""
    with pytest.raises(DataError, match="NUL character") as info:
        open_source("ok.parquet\x00x")
    _one_sentence(str(info.value))


def test_no_configured_root_is_explained(monkeypatch):
    monkeypatch.delenv(DATA_ROOT_ENV, raising=False)
    with pytest.raises(DataError, match=DATA_ROOT_ENV) as info:
        resolve_data_path("x.parquet")
    _one_sentence(str(info.value))


def test_a_missing_file_is_named(root):
    with pytest.raises(DataError, match="no file or folder 'nope.parquet'"):
        open_source("nope.parquet")


def test_a_file_that_is_neither_parquet_nor_csv_is_refused(root):
    (root / "table.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(DataError, match="neither parquet nor delimited text") as info:
        open_source("table.xlsx")
    _one_sentence(str(info.value))


def test_a_column_whose_type_changes_between_files_is_refused(root):
    folder = root / "parts"
    folder.mkdir()
    pd.DataFrame({"x": [1, 2], "y": ["a", "b"]}).to_parquet(folder / "p1.parquet")
    pd.DataFrame({"x": ["one", "two"], "y": ["a", "b"]}).to_parquet(folder / "p2.parquet")
    with pytest.raises(DataError, match="Column 'x' is int64 in 'p1.parquet' but string") as info:
        open_source("parts")
    _one_sentence(str(info.value))


def test_a_folder_without_parquet_files_is_refused(root):
    (root / "empty").mkdir()
    with pytest.raises(DataError, match="holds no parquet file"):
        open_source("empty")


def test_a_broken_parquet_file_is_refused(root):
    (root / "broken.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(DataError, match="not a readable parquet file"):
        open_source("broken.parquet")


def test_a_target_with_one_value_is_refused(root):
    pd.DataFrame({"x": np.arange(6), "y": ["a"] * 6}).to_parquet(root / "one.parquet")
    engine = DuckDBEngine(threads=1)
    engine.register(open_source("one.parquet"))
    with pytest.raises(DataError, match=r"only one class \('a'\); a classifier needs") as info:
        count_histograms(engine, describe(engine, "y"), 2, 0)
    _one_sentence(str(info.value).replace("; ", " "))


def test_an_unknown_target_or_feature_is_named(root):
    engine = DuckDBEngine(threads=1)
    engine.register(open_source("ok.parquet"))
    with pytest.raises(DataError, match="no column 'label' to use as the target"):
        describe(engine, "label")
    with pytest.raises(DataError, match="no column 'z'"):
        describe(engine, "y", features=["z"])


def test_features_naming_the_target_or_a_column_twice_or_no_source_are_refused(root):
    """``features=["y", "x"]`` counted the target as its own feature (a perfect leak: every
    fold's accuracy 1.0) and ``["x", "x"]`` one column twice; an engine with no file said
    the target was no column of it."""
    engine = DuckDBEngine(threads=1)
    with pytest.raises(DataError, match="No file is registered with the engine") as info:
        describe(engine, "y")
    _one_sentence(str(info.value).replace("; ", " "))
    engine.register(open_source("ok.parquet"))
    with pytest.raises(DataError, match="The target 'y' cannot also be a feature") as info:
        describe(engine, "y", features=["y", "x"])
    _one_sentence(str(info.value).replace("; ", " "))
    with pytest.raises(DataError, match="The feature 'x' is named twice in features."):
        describe(engine, "y", features=["x", "x"])
    assert describe(engine, "y", features=["x"]).features == ("x",)


def test_a_column_of_lists_is_refused_with_its_name(root):
    """(A date column was refused so too; it is binned now: tests/test_scale_time_columns.)"""
    frame = pd.DataFrame({"tags": [["a"], ["b", "c"], [], ["a"]], "y": list("abab")})
    frame.to_parquet(root / "lists.parquet")
    engine = DuckDBEngine(threads=1)
    engine.register(open_source("lists.parquet"))
    with pytest.raises(DataError, match="Column 'tags' has a type"):
        describe(engine, "y")


def test_spark_without_java_cannot_start(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH
    with pytest.raises(EngineError, match="no Java runtime was found") as info:
        SparkEngine(master="local[1]")
    _one_sentence(str(info.value).replace("; ", " "))
