"""Known-truth generators of heb.synthetic: sample_naive_bayes, the high-cardinality preset."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from heb.nb import NaiveBayes
from heb.synthetic import (
    HIGH_CARDINALITY_FEATURES,
    _sample_codes,
    high_cardinality_preset,
    sample_naive_bayes,
    zipf_pmf,
)


def test_sample_naive_bayes_shapes_and_truth():
    codes, y, truth = sample_naive_bayes(500, [2, 7, 30], n_classes=4, seed=3)
    assert codes.shape == (500, 3) and codes.dtype == np.int64
    assert y.shape == (500,) and y.dtype == np.int64
    assert set(np.unique(y)) <= set(range(4))
    assert truth["class_prior"].shape == (4,)
    np.testing.assert_allclose(truth["class_prior"], 0.25)
    for f, k in enumerate([2, 7, 30]):
        assert truth["theta"][f].shape == (4, k)
        np.testing.assert_allclose(truth["theta"][f].sum(axis=1), 1.0)
        assert codes[:, f].min() >= 0 and codes[:, f].max() < k


def test_sample_naive_bayes_is_seeded():
    a = sample_naive_bayes(200, [3, 5], seed=11)
    b = sample_naive_bayes(200, [3, 5], seed=11)
    c = sample_naive_bayes(200, [3, 5], seed=12)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_sampled_frequencies_match_the_truth():
    """Chi-square goodness of fit of every class-conditional PMF (and of the class prior)."""
    codes, y, truth = sample_naive_bayes(
        60_000, [2, 6, 25], n_classes=3, alpha_dir=2.0, class_weights=[5, 3, 2], seed=1
    )
    observed_prior = np.bincount(y, minlength=3)
    assert stats.chisquare(observed_prior, truth["class_prior"] * y.size).pvalue > 1e-4
    for f, theta_f in enumerate(truth["theta"]):
        for c in range(3):
            rows = codes[y == c, f]
            expected = theta_f[c] * rows.size
            observed = np.bincount(rows, minlength=theta_f.shape[1])
            keep = expected > 5  # the chi-square approximation needs expected counts > 5
            assert observed[~keep].sum() <= max(20, 5 * expected[~keep].sum())
            ratio = observed[keep].sum() / expected[keep].sum()
            result = stats.chisquare(observed[keep], expected[keep] * ratio)
            assert result.pvalue > 1e-4, (f, c, result)


def test_class_weights_control_the_imbalance():
    _, y, truth = sample_naive_bayes(20_000, [2], n_classes=2, class_weights=[9, 1], seed=0)
    np.testing.assert_allclose(truth["class_prior"], [0.9, 0.1])
    assert abs(np.mean(y == 1) - 0.1) < 0.01


def test_small_alpha_gives_sparse_pmfs():
    _, _, sparse = sample_naive_bayes(10, [200], n_classes=2, alpha_dir=0.05, seed=0)
    _, _, dense = sample_naive_bayes(10, [200], n_classes=2, alpha_dir=5.0, seed=0)
    mass_top10 = [
        np.sort(t["theta"][0], axis=1)[:, -10:].sum(axis=1).mean() for t in (sparse, dense)
    ]
    assert mass_top10[0] > 0.6 > 0.2 > mass_top10[1]


def test_zero_probability_categories_are_never_drawn():
    theta = np.array([[0.5, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0]])
    y = np.repeat([0, 1], 5000)
    codes = _sample_codes(theta, y, np.random.default_rng(0))
    assert set(np.unique(codes[y == 0])) == {0, 2}
    assert set(np.unique(codes[y == 1])) == {1}


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 60),
    ks=st.lists(st.integers(1, 12), min_size=1, max_size=4),
    c=st.integers(1, 4),
    alpha=st.floats(0.05, 5.0),
    seed=st.integers(0, 2**16),
)
def test_codes_always_in_range(n, ks, c, alpha, seed):
    codes, y, truth = sample_naive_bayes(n, ks, n_classes=c, alpha_dir=alpha, seed=seed)
    assert codes.shape == (n, len(ks))
    assert np.all(codes >= 0) and np.all(codes < np.array(ks))
    assert np.all((y >= 0) & (y < c))
    for theta_f in truth["theta"]:
        assert np.all(theta_f >= 0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_samples": 0, "n_categories": [2]},
        {"n_samples": 10, "n_categories": []},
        {"n_samples": 10, "n_categories": [2, 0]},
        {"n_samples": 10, "n_categories": [2], "alpha_dir": 0.0},
        {"n_samples": 10, "n_categories": [2], "n_classes": 0},
        {"n_samples": 10, "n_categories": [2], "class_weights": [1.0]},
        {"n_samples": 10, "n_categories": [2], "class_weights": [1.0, -1.0]},
    ],
)
def test_sample_naive_bayes_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        sample_naive_bayes(**kwargs)


def test_zipf_pmf():
    p = zipf_pmf(1000, 1.1)
    assert p.shape == (1000,) and abs(p.sum() - 1) < 1e-12
    assert np.all(np.diff(p) < 0)
    np.testing.assert_allclose(p[0] / p[1], 2**1.1)


def test_high_cardinality_preset_shape_and_tail():
    codes, y, truth = high_cardinality_preset(n_samples=5000, seed=0)
    assert codes.shape == (5000, len(HIGH_CARDINALITY_FEATURES))
    ks = truth["n_categories"]
    high = ks >= 1000
    assert high.sum() >= 3 and ks.max() <= 5000 and ks[high].min() >= 1000
    assert truth["feature_names"][:3] == ["zip_code", "user_id", "store_id"]
    assert abs(np.mean(y == 1) - 0.15) < 0.03
    for f in np.flatnonzero(high):
        np.testing.assert_allclose(truth["base"][f].sum(), 1.0)
        if truth["concentration"][f] < 3000:
            continue  # a strongly class-specific feature concentrates on fewer categories
        counts = np.bincount(codes[:, f], minlength=ks[f])
        seen = np.count_nonzero(counts)
        # thousands of categories, most of them rare: a heavy Zipf tail
        assert 300 < seen < ks[f]
        top = np.sort(counts)[::-1]
        assert top[: ks[f] // 10].sum() > 0.5 * codes.shape[0]
        assert np.mean(counts[counts > 0] == 1) > 0.3  # many singletons


def _cv_log_loss(codes, y, smoother, folds=5):
    losses = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=42).split(codes, y):
        model = NaiveBayes(smoother=smoother).fit(codes[train], y[train])
        losses.append(log_loss(y[test], model.predict_proba(codes[test]), labels=[0, 1]))
    return float(np.mean(losses))


def test_heb_m_beats_laplace_on_the_high_cardinality_preset():
    codes, y, _ = high_cardinality_preset(n_samples=5000, seed=0)
    heb_m = _cv_log_loss(codes, y, "heb-m")
    laplace = _cv_log_loss(codes, y, "laplace")
    assert heb_m < 0.9 * laplace, (heb_m, laplace)


def test_learned_concentrations_track_the_presets_true_ones():
    codes, y, truth = high_cardinality_preset(n_samples=5000, seed=0)
    diag = NaiveBayes(smoother="heb-m").fit(codes, y).concentrations_
    minority = diag["class"] == 1
    for f, true_m in enumerate(truth["concentration"]):
        if true_m is None or true_m > 2000:
            continue
        learned = diag["m"][minority & (diag["feature"] == f)][0]
        assert true_m / 2 < learned < true_m * 2, (f, true_m, learned)
    # the nearly shared feature (m_f = 50,000) is learned at the upper clamp
    assert diag["clamped"][minority & (diag["feature"] == 4)][0] == "high"


def test_high_cardinality_preset_is_seeded():
    a = high_cardinality_preset(n_samples=300, seed=4)
    b = high_cardinality_preset(n_samples=300, seed=4)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError):
        high_cardinality_preset(n_samples=0)
