"""A what-if re-run of a few methods on the engine, merged into the earlier run, gives the
numbers of one run of every method with the new settings (only times differ)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from heb.scale.cv import cross_validate
from heb.scale.inmemory import example_frame
from heb.scale.source import open_source

pytest.importorskip("duckdb")

METHODS = ["Laplace", "Lidstone", "m-estimate", "HEB-M"]
TIMES = ["fit_time", "predict_time"]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from heb.scale.duckdb_engine import DuckDBEngine

    root = tmp_path_factory.mktemp("root")
    example_frame(900, seed=5).to_parquet(root / "mixed.parquet", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=2)
    engine.register(open_source("mixed.parquet", root=root))
    return engine


def _run(engine, methods, params):
    return cross_validate(engine, "label", methods, params=params, n_splits=3)


def test_a_merged_what_if_equals_one_run_of_every_method(engine):
    before = {"Lidstone": {"alpha": 0.1}, "m-estimate": {"m": 2.0}}
    after = {"Lidstone": {"alpha": 0.5}, "m-estimate": {"m": 2.0}}
    earlier = _run(engine, METHODS, before)
    update = _run(engine, ["Lidstone"], {"Lidstone": after["Lidstone"]})  # as the page runs it
    merged = earlier.with_methods_of(update, METHODS)
    whole = _run(engine, METHODS, after)

    assert merged.methods == METHODS
    pd.testing.assert_frame_equal(
        merged.folds.drop(columns=TIMES), whole.folds.drop(columns=TIMES), rtol=0, atol=0
    )
    pd.testing.assert_frame_equal(merged.reliability_bins, whole.reliability_bins)
    for method in METHODS:
        for name, value in whole.class_sums[method].items():
            np.testing.assert_array_equal(merged.class_sums[method][name], value)
    # the what-if moved Lidstone and nothing else
    lid = merged.folds["method"] == "Lidstone"
    assert not np.allclose(merged.folds.loc[lid, "log_loss"], earlier.folds.loc[lid, "log_loss"])
    assert merged.timings == update.timings


def test_a_merge_keeps_the_asked_order_and_refuses_other_runs(engine):
    earlier = _run(engine, ["Laplace", "HEB-M"], None)
    update = _run(engine, ["Lidstone"], None)
    merged = earlier.with_methods_of(update, ["HEB-M", "Lidstone", "Laplace"])
    assert merged.methods == ["HEB-M", "Lidstone", "Laplace"]
    assert list(merged.class_sums) == ["HEB-M", "Lidstone", "Laplace"]
    assert earlier.with_methods_of(update, ["Lidstone"]).methods == ["Lidstone"]
    with pytest.raises(ValueError, match="Neither run has KT"):
        earlier.with_methods_of(update, ["Laplace", "KT"])
    other = cross_validate(engine, "label", ["Lidstone"], n_splits=4)
    with pytest.raises(ValueError, match="different rows, folds or classes"):
        earlier.with_methods_of(other, ["Laplace", "Lidstone"])


@pytest.mark.parametrize(
    "change",
    [{"n_rows": 10**9}, {"engine": "spark"}, {"classes": np.array(["a", "b", "c", "d"])}],
)
def test_a_merge_refuses_a_run_of_other_rows_engine_or_classes(engine, change):
    earlier = _run(engine, ["Laplace"], None)
    update = dataclasses.replace(_run(engine, ["Lidstone"], None), **change)
    with pytest.raises(ValueError, match="different rows, folds or classes"):
        earlier.with_methods_of(update, ["Laplace", "Lidstone"])


def test_a_merge_keeps_both_runs_notes_once(engine):
    earlier = dataclasses.replace(_run(engine, ["Laplace"], None), notes=["a", "b"])
    update = dataclasses.replace(_run(engine, ["Lidstone"], None), notes=["b", "c"])
    assert earlier.with_methods_of(update, ["Laplace", "Lidstone"]).notes == ["a", "b", "c"]


def test_one_method_named_as_a_string_runs_that_method(engine):
    """``cross_validate(engine, "label", "HEB-M")`` read the name as its letters."""
    assert cross_validate(engine, "label", "heb-m", n_splits=3).methods == ["HEB-M"]
