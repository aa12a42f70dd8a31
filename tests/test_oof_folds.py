"""The out-of-fold predictions say which fold predicted each row.

With the ``fold`` column an analyst can recompute any per-fold figure from the CSV alone:
the rows of fold i, scored with their out-of-fold probabilities, must give exactly the
metrics the per-fold table holds for fold i, when computed, read from the result cache
and passed through the app's worker process.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer import cv_worker
from heb.data.dataset import finalize
from heb.evaluate import ResultCache, RunSettings, cross_validate
from heb.evaluate.cv import cached_cross_validation
from heb.evaluate.report import oof_frame
from heb.registry import compute_metrics

METHODS = ["Laplace", "HEB-M"]


@pytest.fixture(scope="module")
def dataset():
    """500 rows of three classes (one rare: 7 rows, fewer than some folds would want)."""
    rng = np.random.default_rng(3)
    n = 500
    label = rng.choice(["a", "b"], n, p=[0.6, 0.4]).astype(object)
    label[rng.choice(n, 7, replace=False)] = "rare"
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "shop": rng.choice([f"s{i}" for i in range(40)], n),
            "label": label,
        }
    )
    return finalize(frame, "label", name="folds", source="test", declared=["colour", "shop"])


def _assert_folds_recompute(result) -> None:
    """Each fold's rows in the CSV give that fold's metrics in the per-fold table."""
    frame = oof_frame(result)
    assert list(frame.columns[:3]) == ["row", "fold", "true class"]
    folds = frame["fold"].to_numpy()
    assert sorted(np.unique(folds)) == list(range(result.n_splits))
    for method in result.methods:
        proba = result.proba(method)
        table = result.folds[result.folds["method"] == method].set_index("fold")
        for fold in range(result.n_splits):
            mine = folds == fold
            again = compute_metrics(result.y[mine], proba[mine])
            for metric in ("log_loss", "brier", "accuracy"):
                assert again[metric] == pytest.approx(table.loc[fold, metric], rel=1e-12)


@pytest.mark.parametrize("max_rows", [None, 300])
def test_each_folds_rows_recompute_its_scores(dataset, tmp_path, max_rows):
    cache = ResultCache(tmp_path / "results")
    run = RunSettings(n_splits=5, seed=11, max_rows=max_rows)
    computed = cross_validate(dataset, METHODS, settings=run, cache=cache)
    _assert_folds_recompute(computed)
    again = cross_validate(dataset, METHODS, settings=run, cache=cache)
    assert again.cached == METHODS
    np.testing.assert_array_equal(again.test_fold, computed.test_fold)
    stored = cached_cross_validation(dataset, METHODS, settings=run, cache=cache)
    np.testing.assert_array_equal(stored.test_fold, computed.test_fold)


def test_another_seed_deals_the_rows_to_other_folds(dataset):
    one, other = (
        cross_validate(
            dataset, ["Laplace"], settings=RunSettings(n_splits=5, seed=s), use_cache=False
        )
        for s in (1, 2)
    )
    assert not np.array_equal(one.test_fold, other.test_fold)
    _assert_folds_recompute(other)


def test_the_folds_travel_to_the_worker_and_back(dataset, tmp_path):
    result = cross_validate(
        dataset, METHODS, settings=RunSettings(n_splits=4, seed=5), use_cache=False
    )
    cv_worker.write_result(result, tmp_path)
    back = cv_worker.read_result(tmp_path, result.classes)
    np.testing.assert_array_equal(back.test_fold, result.test_fold)
    _assert_folds_recompute(back)
