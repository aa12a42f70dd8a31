"""The large-data engines refuse the targets the in-memory path refuses: a column of many
decimals (a measurement) and more than MAX_CLASSES classes, in the same sentence. The
engine path took a 300-value ``amount`` as 300 classes and reported accuracy 0.000."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import DataError, dataset_from_table
from heb.data.dataset import CONTINUOUS_TARGET_VALUES, MAX_CLASSES

pytest.importorskip("duckdb")

from heb.scale import DuckDBEngine, cross_validate, open_source  # noqa: E402

ROWS = 600


def _file(folder, target: np.ndarray) -> tuple:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(list("abc"), ROWS), "target": target})
    path = folder / "t.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _engine_error(path, queries: list[str] | None = None) -> str:
    """The engine's refusal of ``path``'s target; the counting queries it ran (the engine's
    batches) are appended to ``queries``."""
    engine = DuckDBEngine(threads=1)
    if queries is not None:
        counting = engine.batches
        engine.batches = lambda sql, *a, **k: queries.append(sql) or counting(sql, *a, **k)
    try:
        engine.register(open_source(path, root=path.parent))
        with pytest.raises(DataError) as info:
            cross_validate(engine, "target", ["Laplace"], n_splits=3)
    finally:
        engine.close()
    return str(info.value)


@pytest.mark.parametrize(
    "target",
    [
        np.round(np.random.default_rng(1).random(ROWS) * 100, 3),  # a measurement
        np.arange(ROWS) % (MAX_CLASSES + 1),  # one class too many
    ],
    ids=["decimals", "too-many-classes"],
)
def test_the_engine_refuses_what_memory_refuses_in_the_same_words(tmp_path, target):
    path, frame = _file(tmp_path, target)
    said = _engine_error(path)
    with pytest.raises(DataError) as memory:
        dataset_from_table(frame, "t.csv", "target")
    assert said == str(memory.value)


def test_few_decimal_classes_and_the_most_classes_still_run(tmp_path):
    """At the bounds: CONTINUOUS_TARGET_VALUES decimal values and MAX_CLASSES classes."""
    for target in (
        (np.arange(ROWS) % CONTINUOUS_TARGET_VALUES) + 0.5,
        np.arange(ROWS) % MAX_CLASSES,
    ):
        path, _ = _file(tmp_path, target)
        engine = DuckDBEngine(threads=1)
        try:
            engine.register(open_source(path, root=path.parent))
            result = cross_validate(engine, "target", ["Laplace"], n_splits=3)
        finally:
            engine.close()
        assert result.n_rows == ROWS


@pytest.mark.parametrize(
    "target",
    [
        np.round(np.random.default_rng(1).random(ROWS) * 100, 3),  # a measurement
        np.arange(ROWS) % (MAX_CLASSES + 1),  # one class too many
        np.arange(ROWS),  # an ID: a value a row
    ],
    ids=["decimals", "too-many-classes", "id"],
)
def test_a_target_of_too_many_values_is_refused_before_the_counting_query(tmp_path, target):
    """Counted by (fold, class, value), an ID target made the counting query's result as
    large as the rows x the features before it was refused: a 20,000-row, 300-column CSV
    took 21.6 s to say so. A scan of the target column alone refuses it now; the counting
    query (the engine's batches) never runs."""
    path, frame = _file(tmp_path, target)
    queries: list[str] = []
    said = _engine_error(path, queries)
    assert queries == []
    with pytest.raises(DataError) as memory:
        dataset_from_table(frame, "t.csv", "target")
    assert said == str(memory.value)
    assert f"{len(np.unique(target)):,} different" in said
