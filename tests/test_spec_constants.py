"""SPEC's constants written here as literals, not imported from the code under test.

A test that reads ``M_MAX`` from ``heb.concentration`` passes whatever ``M_MAX`` is; these
pin the values SPEC fixes (clamp [1e-2, 1e4], N0 = 10, AODE's caps, 20,000 rows and seed
42 for the subsample, 10 bins, 10 folds, ECE over 10 bins, the log-loss clip at 1e-15),
by value and, where cheap, by what they do to a hand-computed number.
"""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pandas as pd
import pytest

from heb import concentration, metrics, registry
from heb.aode import AODE
from heb.cli import build_parser
from heb.data import Preprocessor, stratified_subsample
from heb.data.builtins import finalize
from heb.evaluate import FOLD_STORE, RunSettings, cross_validate
from heb.nb import NaiveBayes
from heb.smoothing import smooth


def test_clamp_and_n0_values():
    assert concentration.M_MIN == 1e-2
    assert concentration.M_MAX == 1e4
    for model in (NaiveBayes(), AODE()):
        params = model.get_params()
        assert (params["n0"], params["m_min"], params["m_max"]) == (10, 1e-2, 1e4)
    assert AODE().get_params()["max_parent_cardinality"] == 200
    assert AODE().get_params()["max_joint_cells"] == 5e7
    defaults = inspect.signature(smooth).parameters
    assert (defaults["n0"].default, defaults["m_min"].default, defaults["m_max"].default) == (
        10,
        1e-2,
        1e4,
    )


def _one_feature(n_first: int) -> tuple[np.ndarray, np.ndarray]:
    """Class 0: ``n_first`` rows all of category 0; class 1: 60 rows, 20 of each of 3."""
    X = np.r_[np.zeros(n_first, dtype=int), np.tile([0, 1, 2], 20)].reshape(-1, 1)
    y = np.r_[np.zeros(n_first, dtype=int), np.ones(60, dtype=int)]
    return X, y


def test_n0_boundary_and_the_clamp_in_naive_bayes_probabilities():
    """HEB-M, one feature of K = 3 (hand-computed theta = (N_cv + m p_v) / (N_c + m)).

    N_c = 9 < N0 falls back to m = K_f = 3; N_c = 10 is learned and, all of class 0's rows
    being one category, hits the low clamp m = 1e-2. Class 1 matches the prior closely
    enough that its evidence rises with m up to the high clamp 1e4 (at N_c = 9).
    """
    X, y = _one_feature(9)
    theta = np.exp(NaiveBayes().fit(X, y).feature_log_prob_)
    prior = np.array([29, 20, 20]) / 69  # HEB-M: the marginal of the training rows
    assert theta[0, 0] == pytest.approx((9 + 3 * prior[0]) / (9 + 3), rel=1e-12)
    assert theta[1, 0] == pytest.approx((20 + 1e4 * prior[0]) / (60 + 1e4), rel=1e-9)
    X, y = _one_feature(10)
    theta = np.exp(NaiveBayes().fit(X, y).feature_log_prob_)
    prior = np.array([30, 20, 20]) / 70
    assert theta[0, 0] == pytest.approx((10 + 1e-2 * prior[0]) / (10 + 1e-2), rel=1e-9)
    assert theta[0, 1] == pytest.approx(1e-2 * prior[1] / (10 + 1e-2), rel=1e-6)


def test_ece_uses_ten_uniform_bins():
    """Confidences 0.51, 0.59 | 0.61 | 0.79, right, wrong, right, wrong: by hand, with 10
    bins (0.5-0.6, 0.6-0.7, 0.7-0.8) 0.5 * 0.05 + 0.25 * 0.39 + 0.25 * 0.79 = 0.32 (5 bins
    give 0.125, 20 bins 0.565)."""
    y = np.array([0, 1, 0, 1])
    proba = np.array([[0.51, 0.49], [0.59, 0.41], [0.61, 0.39], [0.79, 0.21]])
    assert registry.compute_metrics(y, proba)["ece"] == pytest.approx(0.32, abs=1e-12)
    assert inspect.signature(metrics.ece_top1).parameters["n_bins"].default == 10


def test_log_loss_clips_at_1e_minus_15():
    assert metrics.log_loss(np.array([0]), np.array([[0.0, 1.0]])) == pytest.approx(
        -math.log(1e-15), rel=1e-12
    )


def test_protocol_defaults():
    settings = RunSettings()
    assert (settings.n_bins, settings.n_splits, settings.seed, settings.max_rows) == (
        10,
        10,
        42,
        20_000,
    )
    assert settings.missing == "impute"
    words = inspect.signature(cross_validate).parameters
    assert {name: words[name].default for name in ("n_bins", "n_splits", "seed", "max_rows")} == {
        "n_bins": 10,
        "n_splits": 10,
        "seed": 42,
        "max_rows": 20_000,
    }
    args = build_parser().parse_args(["bench"])
    assert (args.n_bins, args.folds, args.seed, args.max_rows) == (10, 10, 42, 20_000)
    assert Preprocessor().n_bins == 10
    words = inspect.signature(stratified_subsample).parameters
    assert (words["max_rows"].default, words["seed"].default) == (20_000, 42)


def _labelled(n_rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    frame = pd.DataFrame(
        {
            "a": np.char.add(
                "a", np.where(rng.random(n_rows) < 0.6, y, rng.integers(0, 5, n_rows)).astype(str)
            ),
            "b": np.char.add("b", rng.integers(0, 12, n_rows).astype(str)),
            "label": y,
        }
    )
    return finalize(frame, "label", name="subsample", source="upload:subsample.csv")


def test_cross_validate_subsamples_with_seed_42():
    """cross_validate(max_rows=150) scores exactly the rows stratified_subsample(seed=42)
    keeps: the same numbers as a run on those rows alone (and not seed 43's)."""
    dataset = _labelled(400)
    methods = ["Laplace", "HEB-M"]

    def run(data, max_rows):
        FOLD_STORE.clear()
        result = cross_validate(data, methods, n_splits=3, max_rows=max_rows, use_cache=False)
        return result.folds[["method", "fold", *registry.METRICS]]

    subsampled = run(dataset, 150)
    numbers = {}
    for seed in (42, 43):
        X, y = stratified_subsample(dataset.X, dataset.y, max_rows=150, seed=seed)
        numbers[seed] = run(dataclasses.replace(dataset, X=X, y=y), None)
    pd.testing.assert_frame_equal(subsampled, numbers[42])
    assert not np.allclose(
        numbers[42][list(registry.METRICS)].to_numpy(),
        numbers[43][list(registry.METRICS)].to_numpy(),
    )
