"""The Compare page's reliability CSV names its two ECEs: ``ece_pooled`` (the pooled
out-of-fold bins it lists) and ``ece_mean_over_folds`` (the metrics table's ECE, SPEC
section 5: per test fold, then averaged), so neither is read as the other."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from explorer import comparison as cmp
from explorer.exports import csv_bytes
from heb.data import load_builtin
from heb.evaluate import RunSettings, cross_validate


@pytest.fixture(scope="module")
def comparison():
    dataset = load_builtin("iris")
    settings = RunSettings(dataset="builtin:iris", n_splits=3)
    result = cross_validate(dataset, ["Laplace", "HEB-M"], settings=settings, use_cache=False)
    return cmp.Comparison(result, elapsed=0.0)


def test_the_csv_names_the_pooled_ece_and_the_tables_mean_over_folds(comparison):
    frame = pd.read_csv(io.BytesIO(csv_bytes(comparison.reliability_data)))
    assert "ece" not in frame.columns  # a bare "ece" was read as the table's and differed
    assert {cmp.ECE_POOLED, cmp.ECE_FOLD_MEAN} <= set(frame.columns)
    summary = comparison.summary.set_index("method")
    differ = False
    for method, rows in frame.groupby("method", sort=False):
        # the table's ECE (mean ± std over folds) starts with this CSV value
        fold_mean = rows[cmp.ECE_FOLD_MEAN].unique()
        assert fold_mean.size == 1
        assert fold_mean[0] == pytest.approx(summary.loc[method, "ece_mean"])
        shown = comparison.table.set_index("method").loc[method, cmp.metric_column("ece")]
        assert shown.startswith(f"{fold_mean[0]:.{cmp.TABLE_DECIMALS}f} ")
        # the pooled ECE is the one of the bins listed beside it
        pooled = rows[cmp.ECE_POOLED].unique()
        assert pooled.size == 1
        assert pooled[0] == pytest.approx(comparison.result.reliability(method)["ece"])
        weights = rows["count"] / rows["count"].sum()
        gaps = (rows["accuracy"] - rows["confidence"]).abs().fillna(0.0)
        assert pooled[0] == pytest.approx(float((weights * gaps).sum()))
        differ |= abs(pooled[0] - fold_mean[0]) > 1e-6
    assert differ  # the two are different numbers: hence two names


def test_without_fold_means_the_frame_has_the_pooled_ece_only():
    curve = {
        "edges": [0.0, 0.5, 1.0],
        "count": [2, 3],
        "confidence": [0.4, 0.8],
        "accuracy": [0.5, 1.0],
        "ece": 0.16,
    }
    frame = cmp.reliability_frame({"Laplace": curve})
    assert list(frame.columns)[-1] == cmp.ECE_POOLED and cmp.ECE_FOLD_MEAN not in frame
