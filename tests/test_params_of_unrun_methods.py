"""A parameter value for a method the run leaves out is refused, not dropped unsaid.

``cross_validate(data, ["Laplace"], params={"Lidstone": {"alpha": 0.5}})`` ran Laplace
and said nothing of the alpha, so a student believed it had been used; so did a method
name misspelt into another one's alias, and heb.scale's cross_validate. A key that is an
alias or another case of a method run still reaches it, and a RunSettings (the app's
run-wide state, which may hold other methods' values) is left as it was.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb import registry
from heb.data import Dataset
from heb.evaluate import RunSettings, cross_validate, run_benchmark


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    rng = np.random.default_rng(7)
    n = 240
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)).astype(str),
            "b": rng.integers(0, 30, n).astype(str),
        }
    )
    return Dataset(
        name="toy", X=frame, y=pd.Series(y, name="y"), categorical=["a", "b"], source="test:toy"
    )


def _cv(dataset, methods, params, **words):
    return cross_validate(dataset, methods, params=params, n_splits=3, use_cache=False, **words)


def test_a_value_for_a_method_not_run_is_a_one_sentence_error(dataset):
    with pytest.raises(ValueError) as caught:
        _cv(dataset, ["Laplace"], {"Lidstone": {"alpha": 0.5}})
    message = str(caught.value)
    assert message == (
        "params set Lidstone, which is not among the methods run (Laplace): add it to "
        "methods or leave its values out of params."
    )
    with pytest.raises(ValueError, match=r"params set Lidstone, m-estimate, which are not .*"
                       r"\(Laplace, KT\): add them"):  # fmt: skip
        _cv(dataset, ["laplace", "kt"], {"lidstone": {"alpha": 0.5}, "m-estimate": {"m": 5}})
    # an alias of a method not run, typed where another was meant, is named as registered
    with pytest.raises(ValueError, match="params set TE, which is not among"):
        _cv(dataset, ["Laplace", "m-estimate"], {"te": {"k0": 3}})


def test_aliases_and_case_of_a_method_run_still_reach_it(dataset):
    typed = _cv(dataset, ["Laplace", "LIDSTONE"], {"lidstone": {"alpha": 5.0}})
    named = _cv(dataset, ["Laplace", "Lidstone"], {"Lidstone": {"alpha": 5.0}})
    plain = _cv(dataset, ["Laplace", "Lidstone"], None)
    lid = typed.folds["method"] == "Lidstone"
    assert typed.methods == ["Laplace", "Lidstone"]
    np.testing.assert_array_equal(
        typed.folds.loc[lid, "log_loss"], named.folds.loc[lid, "log_loss"]
    )
    assert not np.allclose(typed.folds.loc[lid, "log_loss"], plain.folds.loc[lid, "log_loss"])
    # a key with no values sets nothing: nothing goes unused
    assert _cv(dataset, ["Laplace"], {"Lidstone": {}}).methods == ["Laplace"]


def test_settings_may_hold_other_methods_values_as_the_app_keeps_them(dataset):
    settings = RunSettings(n_splits=3, overrides={"Lidstone": {"alpha": 0.5}})
    result = cross_validate(dataset, ["Laplace"], settings=settings, use_cache=False)
    assert result.methods == ["Laplace"]


def test_run_benchmark_refuses_a_value_for_a_method_not_run_before_any_fold(dataset):
    with pytest.raises(ValueError, match="params set Lidstone, which is not among"):
        run_benchmark([dataset], ["Laplace"], params={"Lidstone": {"alpha": 0.5}}, n_splits=3)
    frame = run_benchmark(
        [dataset], ["lidstone"], params={"Lidstone": {"alpha": 0.5}}, n_splits=3, use_cache=False
    )
    assert set(frame["method"]) == {"Lidstone"}


def test_the_registry_check_keeps_labels_and_passes_a_run_of_no_method():
    assert registry.overrides_of_run({"lidstone": {"alpha": 1}}, ["Lidstone"]) == {
        "Lidstone": {"alpha": 1}
    }
    kept = registry.overrides_of_run(
        {"Lidstone(5)": {"alpha": 5}}, ["Lidstone(5)"], keep=["Lidstone(5)"]
    )
    assert kept == {"Lidstone(5)": {"alpha": 5}}
    with pytest.raises(ValueError, match=r"params set Lidstone\(5\), which"):
        registry.overrides_of_run({"Lidstone(5)": {"alpha": 5}}, ["Laplace"], keep=["Lidstone(5)"])
    with pytest.raises(ValueError, match="Unknown method 'Lidstne'"):  # a typo, as before
        registry.overrides_of_run({"Lidstne": {"alpha": 1}}, ["Lidstone"])
    assert registry.overrides_of_run({"Lidstone": {"alpha": 1}}, []) == {"Lidstone": {"alpha": 1}}


def test_the_engine_path_refuses_a_value_for_a_method_not_run(tmp_path):
    pytest.importorskip("duckdb")
    from heb.scale.cv import cross_validate as engine_cv
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.inmemory import example_frame
    from heb.scale.source import open_source

    example_frame(300, seed=3).to_parquet(tmp_path / "mixed.parquet", index=False)
    engine = DuckDBEngine(memory_limit="256MB", threads=1)
    engine.register(open_source("mixed.parquet", root=tmp_path))
    with pytest.raises(ValueError, match=r"params set Lidstone, which is not among the "
                       r"methods run \(Laplace\)"):  # fmt: skip
        engine_cv(engine, "label", ["Laplace"], params={"lidstone": {"alpha": 5}}, n_splits=2)
    with pytest.raises(ValueError, match="Choose at least one method"):  # said first
        engine_cv(engine, "label", [], params={"Lidstone": {"alpha": 5}}, n_splits=2)
    # a variant's label is a method of the run; its base method need not be
    variant = engine_cv(
        engine,
        "label",
        ["Lidstone(5)"],
        params={"Lidstone(5)": {"alpha": 5}},
        variants={"Lidstone(5)": "Lidstone"},
        n_splits=2,
    )
    assert variant.methods == ["Lidstone(5)"]


def test_the_in_memory_reference_path_refuses_unrun_values_and_takes_aliases():
    """``cross_validate_in_memory`` (the engines' in-memory peer) dropped a value for a
    method not run, and one keyed by an alias ("lidstone"), without a word."""
    from heb.scale.inmemory import cross_validate_in_memory, example_frame

    frame = example_frame(400).dropna(subset=["label"]).reset_index(drop=True)
    folds = np.arange(len(frame)) % 3
    with pytest.raises(ValueError, match=r"params set Lidstone, which is not among"):
        cross_validate_in_memory(
            frame, "label", folds, ["Laplace"], params={"Lidstone": {"alpha": 0.5}}
        )
    default = cross_validate_in_memory(frame, "label", folds, ["Lidstone"])
    small = cross_validate_in_memory(
        frame, "label", folds, ["Lidstone"], params={"lidstone": {"alpha": 0.01}}
    )
    assert not np.allclose(default["log_loss"], small["log_loss"])  # the alias reached it
