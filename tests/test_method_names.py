"""Methods and their overrides are named as the registry names them, whatever the case.

A method typed "lidstone" with an override keyed "Lidstone" ran once with the override
silently dropped, and "laplace" next to "Laplace" ran twice under two names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb import registry
from heb.data import Dataset
from heb.evaluate import cross_validate
from heb.evaluate.settings import RunSettings


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)).astype(str),
            "b": rng.integers(0, 40, n).astype(str),
        }
    )
    return Dataset(
        name="toy", X=frame, y=pd.Series(y, name="y"), categorical=["a", "b"], source="test:toy"
    )


def test_method_names_resolve_case_and_aliases_once_in_order():
    assert registry.method_names(["laplace", "Laplace", "lidstone", "HEB-M"]) == [
        "Laplace",
        "Lidstone",
        "HEB-M",
    ]
    with pytest.raises(ValueError, match="Unknown method 'Lidstne'"):
        registry.method_names(["Lidstne"])
    assert registry.method_names("heb-m") == ["HEB-M"]  # one name, not its letters


def test_overrides_are_keyed_by_registered_names_and_typos_are_refused():
    merged = registry.method_overrides({"lidstone": {"alpha": 0.25}, "Lidstone": {"alpha": 0.5}})
    assert merged == {"Lidstone": {"alpha": 0.5}}
    # two keys naming one method merge their parameters
    assert registry.method_overrides(
        {"aode": {"max_parent_cardinality": 10}, "AODE": {"min_parent_count": 3}}
    ) == {"AODE": {"max_parent_cardinality": 10, "min_parent_count": 3}}
    assert registry.method_overrides({"Mine": {"alpha": 2}}, keep=["Mine"]) == {
        "Mine": {"alpha": 2}
    }
    assert RunSettings(overrides={"lidstone": {"alpha": 0.25}}).params() == {
        "Lidstone": {"alpha": 0.25}
    }
    with pytest.raises(ValueError, match="Unknown method 'Lidstne'"):
        RunSettings(overrides={"Lidstne": {"alpha": 0.25}})


def test_cross_validate_runs_a_method_typed_in_any_case_once_with_its_override(dataset):
    def run(methods, params):
        return cross_validate(dataset, methods, params=params, n_splits=3, use_cache=False)

    typed = run(["laplace", "Laplace", "lidstone"], {"Lidstone": {"alpha": 0.01}})
    canonical = run(["Laplace", "Lidstone"], {"lidstone": {"alpha": 0.01}})
    default = run(["Lidstone"], None)
    assert typed.methods == ["Laplace", "Lidstone"]
    np.testing.assert_array_equal(typed.oof_proba["Lidstone"], canonical.oof_proba["Lidstone"])
    # the override did reach the model (alpha 0.01 is not the default)
    assert not np.allclose(typed.oof_proba["Lidstone"], default.oof_proba["Lidstone"])
    # the result answers to the name as typed
    np.testing.assert_array_equal(typed.proba("lidstone"), typed.oof_proba["Lidstone"])
    assert typed.confusion("laplace").sum() == len(typed.y)
    with pytest.raises(ValueError, match="was not run here"):
        typed.proba("HEB-M")
    assert run("lidstone", None).methods == ["Lidstone"]  # a single name as a string


def test_a_smoother_is_named_in_any_case_or_by_its_label():
    """``NaiveBayes(smoother="HEB-M")``, the name the app and the paper use, was refused."""
    from heb import NaiveBayes

    rng = np.random.default_rng(4)
    X, y = rng.integers(0, 6, size=(200, 3)), rng.integers(0, 2, size=200)
    for canonical, spellings in {
        "heb-m": ["HEB-M", "heb_m", "Heb M"],
        "m-estimate": ["M-Estimate", "m_estimate"],
        "kt": ["KT"],
    }.items():
        assert registry.smoother(spellings[0]).name == canonical
        want = NaiveBayes(smoother=canonical).fit(X, y).predict_proba(X)
        for name in spellings:
            model = NaiveBayes(smoother=name).fit(X, y)
            np.testing.assert_array_equal(model.predict_proba(X), want)
            assert model.get_params()["smoother"] == name  # scikit-learn: kept as given
    with pytest.raises(ValueError, match="Unknown smoother 'hebx'"):
        NaiveBayes(smoother="hebx").fit(X, y)


def test_heb_h_spelt_as_displayed_borrows_along_its_hierarchy():
    """A case-blind smoother name must not turn HEB-H into HEB-M in silence."""
    from heb import NaiveBayes
    from heb.hierarchical_nb import level_concentrations

    rng = np.random.default_rng(5)
    X, y = rng.integers(0, 6, size=(300, 2)), rng.integers(0, 2, size=300)
    levels = {0: [np.array([0, 0, 1, 1, 2, 2])]}
    want = NaiveBayes("heb-h", hierarchies=levels).fit(X, y)
    shown = NaiveBayes("HEB-H", hierarchies=levels).fit(X, y)
    np.testing.assert_array_equal(shown.predict_proba(X), want.predict_proba(X))
    plain = NaiveBayes("heb-m").fit(X, y).predict_proba(X)
    assert not np.allclose(shown.predict_proba(X), plain)
    assert level_concentrations(shown)["m"].size == level_concentrations(want)["m"].size


def test_hierarchical_naive_bayes_takes_heb_h_in_any_case():
    from heb.hierarchical_nb import HierarchicalNaiveBayes

    rng = np.random.default_rng(6)
    X, y = rng.integers(0, 6, size=(300, 2)), rng.integers(0, 2, size=300)
    levels = {0: [np.array([0, 0, 1, 1, 2, 2])]}
    want = HierarchicalNaiveBayes("heb-h", hierarchies=levels).fit(X, y).predict_proba(X)
    shown = HierarchicalNaiveBayes("HEB-H", hierarchies=levels).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(shown, want)
    plain = HierarchicalNaiveBayes("heb-m", hierarchies=levels).fit(X, y).predict_proba(X)
    assert not np.allclose(shown, plain)


@pytest.mark.parametrize("kind", ["AODE", "TAN"])
def test_aode_and_tan_take_their_smoother_in_any_case(kind):
    import heb

    rng = np.random.default_rng(7)
    X, y = rng.integers(0, 4, size=(300, 4)), rng.integers(0, 2, size=300)
    X[:, 1] = (X[:, 0] + y) % 4  # a dependence for the augmented models to use
    model = getattr(heb, kind)
    for name in ("laplace", "heb"):
        want = model(smoother=name).fit(X, y).predict_proba(X)
        shown = model(smoother=name.upper()).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(shown, want)
    with pytest.raises(ValueError, match=f"Unknown {kind} smoother 'hebm'"):
        model(smoother="hebm").fit(X, y)


def test_the_engine_path_takes_methods_and_overrides_as_typed(tmp_path):
    """On DuckDB as in memory: ``{"lidstone": ...}`` reaches Lidstone (it was silently
    dropped before the keys were resolved) and one name is one method, not its letters."""
    pytest.importorskip("duckdb")
    from heb.scale.cv import cross_validate as engine_cv
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.inmemory import example_frame
    from heb.scale.source import open_source

    example_frame(600, seed=3).to_parquet(tmp_path / "mixed.parquet", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("mixed.parquet", root=tmp_path))

    def log_loss(result) -> float:
        return float(result.folds["log_loss"].mean())

    typed = engine_cv(engine, "label", ["lidstone"], params={"lidstone": {"alpha": 5}}, n_splits=3)
    named = engine_cv(engine, "label", ["Lidstone"], params={"Lidstone": {"alpha": 5}}, n_splits=3)
    plain = engine_cv(engine, "label", ["Lidstone"], n_splits=3)
    assert typed.methods == ["Lidstone"]
    assert log_loss(typed) == log_loss(named) != log_loss(plain)
    with pytest.raises(ValueError, match="Unknown method 'lidstoen'"):
        engine_cv(engine, "label", ["Lidstone"], params={"lidstoen": {"alpha": 5}}, n_splits=3)

    one = engine_cv(engine, "label", "HEB-M", n_splits=3)
    assert one.methods == ["HEB-M"]
