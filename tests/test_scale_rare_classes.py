"""A class with fewer rows than folds is said on an engine as in memory.

An analyst's trial: a class of a single row got the in-memory Compare's note ("...only
tested in a fold whose training rows lack it") and nothing on the large-file Compare.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import Dataset
from heb.evaluate import cross_validate as cross_validate_in_memory
from heb.scale.cv import cross_validate
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import open_source

pytest.importorskip("duckdb")


def _frame(rare: dict[str, int]) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    labels = ["common"] * 300 + ["usual"] * 300
    for label, n in rare.items():
        labels += [label] * n
    return pd.DataFrame({"x": rng.choice(list("abcd"), len(labels)), "y": labels}).sample(
        frac=1.0, random_state=1
    )


def _engine_notes(tmp_path, frame: pd.DataFrame, n_splits: int) -> list[str]:
    frame.to_parquet(tmp_path / "f.parquet", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("f.parquet", root=tmp_path))
    result = cross_validate(engine, "y", ["Laplace"], n_splits=n_splits)
    assert set(result.folds["fold"]) == set(range(n_splits))
    return result.notes


def test_a_single_row_class_gets_the_in_memory_note(tmp_path):
    frame = _frame({"once": 1})
    notes = _engine_notes(tmp_path, frame, 5)
    said = (
        "Class 'once' has a single row, so it is only tested in a fold whose training rows lack it."
    )
    assert said in notes
    dataset = Dataset(name="f", X=frame[["x"]], y=frame["y"], categorical=["x"], source="t")
    in_memory = cross_validate_in_memory(dataset, ["Laplace"], n_splits=5, use_cache=False)
    assert any(said in note for note in in_memory.notes), in_memory.notes


def test_the_smallest_class_below_the_folds_says_in_how_many_it_is_tested(tmp_path):
    notes = _engine_notes(tmp_path, _frame({"rare": 3, "rarer": 2, "once": 1, "twice": 9}), 10)
    smallest = [n for n in notes if n.startswith("The smallest class")]
    assert len(smallest) == 1, notes
    assert smallest[0].startswith("The smallest class ('rarer') has only 2 rows, fewer than")
    tested = int(smallest[0].split("tested in only ")[1].split(" ")[0])
    assert 1 <= tested <= 2
    assert any(n.startswith("Class 'once' has a single row") for n in notes), notes


def test_classes_with_a_row_in_every_fold_get_no_note(tmp_path):
    assert _engine_notes(tmp_path, _frame({"rare": 40}), 5) == []


def test_bench_on_the_engine_prints_the_note_as_in_memory(tmp_path, capsys):
    from heb.cli import main

    frame = _frame({"once": 1})
    frame.to_parquet(tmp_path / "f.parquet", index=False)
    frame.to_csv(tmp_path / "g.csv", index=False)
    said = "Class 'once' has a single row, so it is only tested in a fold whose training rows"
    argv = ["--folds", "5", "--no-cache", "--no-figures", "--methods", "laplace"]
    assert main(["bench", str(tmp_path / "f.parquet"), "--engine", "duckdb", *argv,
                 "-o", str(tmp_path / "a")]) == 0  # fmt: skip
    on_engine = capsys.readouterr().err
    assert f"  f: {said}" in on_engine, on_engine
    assert main(["bench", str(tmp_path / "g.csv"), *argv, "-o", str(tmp_path / "b")]) == 0
    assert f"  g: {said}" in capsys.readouterr().err
