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
