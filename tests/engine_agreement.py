"""Checks that the large-data path (``heb.scale``) gives the in-memory path's numbers.

Shared by the scale test files: every fold's ``CountTable`` equal as integers, then every
method's metrics equal to 1e-9, on the engine's own hash folds; and a quiet local Spark
engine for the files that compare Spark too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from heb.counts import CountTable
from heb.data import Preprocessor, encode_target
from heb.figures.diagnostics import class_reliability, confusion_counts
from heb.metrics import reliability
from heb.scale.counting import count_histograms, describe
from heb.scale.cv import cross_validate
from heb.scale.inmemory import cross_validate_in_memory, fold_assignment
from tests.peers import require_spark

METRICS = ["accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"]
#: the engine path's default fold seed (``heb.scale.cv.cross_validate``)
SEED = 42


def assert_same_counts(
    engine, rows: pd.DataFrame, target: str, k: int, missing: str = "impute", categorical=None
) -> np.ndarray:
    """Classes, kept features and every fold's CountTable equal the in-memory ones.

    Returns the engine's folds of ``rows`` (rows with a target, in the source's order).
    """
    folds = fold_assignment(engine, target, k, SEED)
    assert folds.size == len(rows)
    columns = describe(engine, target, categorical=categorical)
    histograms = count_histograms(engine, columns, k, SEED)
    y, classes = encode_target(rows[target])
    assert list(histograms.classes) == list(classes)
    X = rows.drop(columns=[target])
    for fold in range(k):
        fitted = histograms.fit_fold(fold, missing=missing)
        pre = Preprocessor(missing=missing, categorical=categorical)
        codes = pre.fit_transform(X[folds != fold])
        ref = CountTable.from_codes(
            codes, y[folds != fold], classes.size, n_categories=pre.n_categories_
        )
        assert [columns.features[i] for i in fitted.features] == pre.feature_names_out_
        np.testing.assert_array_equal(fitted.table.n_categories, ref.n_categories)
        np.testing.assert_array_equal(fitted.table.counts, ref.counts)
        np.testing.assert_array_equal(fitted.table.class_counts, ref.class_counts)
    return folds


def assert_same_metrics(
    engine,
    rows: pd.DataFrame,
    target: str,
    folds: np.ndarray,
    methods: Sequence[str],
    missing: str = "impute",
    **kwargs,
) -> None:
    """Every method's per-fold metrics equal the in-memory path's on ``folds`` (1e-9), and
    its reliability diagram pooled over the folds equals the in-memory one of every row's
    out-of-fold probabilities (counts exact, means to 1e-12)."""
    k = int(folds.max()) + 1
    result = cross_validate(engine, target, methods, n_splits=k, missing=missing, **kwargs)
    reference, probas, _ = cross_validate_in_memory(
        rows, target, folds, methods, missing=missing, return_proba=True, **kwargs
    )
    merged = result.folds.merge(reference, on=["method", "fold"], suffixes=("", "_ref"))
    assert len(merged) == len(methods) * k
    for metric in METRICS:
        np.testing.assert_allclose(merged[metric], merged[f"{metric}_ref"], rtol=0, atol=1e-9)
    assert result.n_rows == len(rows)
    assert_same_reliability(result, encode_target(rows[target])[0], folds, probas, methods)


def assert_same_reliability(result, y: np.ndarray, folds: np.ndarray, probas: dict, methods):
    """``result.reliability`` of every method equals :func:`heb.metrics.reliability` of the
    in-memory out-of-fold probabilities ``probas[(method, fold)]`` pooled over the folds,
    and its confusion counts and per-class reliability those of the same predictions."""
    k = int(folds.max()) + 1
    pooled_y = np.concatenate([y[folds == fold] for fold in range(k)])
    for name in methods:
        pooled = np.vstack([probas[(name, fold)] for fold in range(k)])
        expected, got = reliability(pooled_y, pooled), result.reliability(name)
        np.testing.assert_array_equal(got["count"], expected["count"])
        assert got["count"].sum() == y.size
        for key in ("edges", "confidence", "accuracy", "ece"):
            np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=1e-12)
        # the per-class views: confusion counts and every class's one-vs-rest reliability
        np.testing.assert_array_equal(result.confusion(name), confusion_counts(pooled_y, pooled))
        wanted = class_reliability(pooled_y, pooled)
        for got_c, want_c in zip(result.class_reliability(name), wanted, strict=True):
            np.testing.assert_array_equal(got_c["count"], want_c["count"])
            for key in ("confidence", "accuracy", "ece"):
                np.testing.assert_allclose(got_c[key], want_c[key], rtol=0, atol=1e-12)


def assert_same(
    engine,
    rows: pd.DataFrame,
    target: str,
    k: int = 3,
    methods: Sequence[str] = ("Laplace", "HEB-M", "AODE"),
    missing: str = "impute",
    categorical=None,
) -> None:
    """:func:`assert_same_counts`, then :func:`assert_same_metrics` on the same folds."""
    folds = assert_same_counts(engine, rows, target, k, missing, categorical)
    assert_same_metrics(
        engine, rows, target, folds, list(methods), missing, categorical=categorical
    )


def quiet_spark_engine():
    """A ``local[1]`` SparkEngine with Spark's own log off (skips or fails as
    :func:`tests.peers.require_spark` says where Java or pyspark is missing)."""
    require_spark()
    from heb.scale.spark_engine import SparkEngine

    engine = SparkEngine(master="local[1]")
    engine.spark.sparkContext.setLogLevel("OFF")
    return engine
