"""Numerical core: what a mutation pass of session 43 found the suite let through.

Each test names the mutant it kills; the expected values were checked against an
independent computation (a grid plus bounded search of the Dirichlet-multinomial evidence,
scikit-learn and scipy references) outside the repository.
"""

from __future__ import annotations

import numpy as np
import pytest

from heb.concentration import M_MAX, M_MIN, fit_concentration, fit_concentration_segments


def test_a_document_of_two_rows_is_informative():
    """Guards the flat-evidence threshold ``doc_total >= 2`` of
    fit_concentration_segments: two rows already say which way l(m) goes. Split evenly
    under a uniform prior, l rises to m_max; both in one category, l falls to m_min (a
    threshold of 3 called both flat and returned Minka's start, m = 1)."""
    split = fit_concentration_segments([0, 0], [1.0, 1.0], [0.5, 0.5], [0], [2.0], 1)
    same = fit_concentration_segments([0], [2.0], [0.5], [0], [2.0], 1)
    assert not split.flat[0] and split.m[0] == M_MAX and split.clamped[0] == 1
    assert not same.flat[0] and same.m[0] == M_MIN and same.clamped[0] == -1
    assert fit_concentration(np.array([1.0, 1.0]), np.array([0.5, 0.5])) == M_MAX


def test_a_prior_mean_off_one_by_more_than_1e_9_is_refused():
    """Guards the tolerance (1e-9) of the check that the prior mean sums to 1: a prior
    whose sum is 5e-9 off is refused, one 5e-10 off is taken (a 10x looser tolerance let
    the first through)."""
    counts = np.array([3.0, 1.0, 0.0])
    base = np.array([0.5, 0.3, 0.2])
    with pytest.raises(ValueError, match="sum to 1"):
        fit_concentration(counts, base + np.array([5e-9, 0.0, 0.0]))
    assert fit_concentration(counts, base + np.array([5e-10, 0.0, 0.0])) > 0


def _pooled_evidence(m, docs, prior):
    """l(m) of pooled documents from the gamma-function formula (paper eq. 11)."""
    from scipy import special

    total = 0.0
    for doc in docs:
        nz = doc > 0
        total += (
            special.gammaln(m)
            - special.gammaln(doc.sum() + m)
            + np.sum(special.gammaln(doc[nz] + m * prior[nz]) - special.gammaln(m * prior[nz]))
        )
    return total


def test_two_peaks_a_decade_apart_are_both_candidates():
    """Guards PEAKS_PER_DECADE (4): pooled documents [5, 0] and [62, 38] under the prior
    (0.557, 0.443) give l two peaks, at m = 2.90 and m = 62.48 (higher by 0.019). Halley's
    start finds the first; a grid of one point a decade (…, 10, 100, …) holds the second
    peak and the dip before it in one cell and never sees it."""
    prior = np.array([0.557, 0.443])
    docs = [np.array([5.0, 0.0]), np.array([62.0, 38.0])]
    fit = fit_concentration_segments(
        [0, 0, 0], [5.0, 62.0, 38.0], [0.557, 0.557, 0.443], [0, 0], [5.0, 100.0], 1
    )
    assert fit.m[0] == pytest.approx(62.4845, rel=1e-4)
    assert _pooled_evidence(fit.m[0], docs, prior) > _pooled_evidence(2.908, docs, prior) + 0.015


def test_sqrt_mi_weight_of_an_independent_weighted_feature_is_zero_not_nan():
    """Guards the clip of the plug-in MI at 0 (heb.smoothing.mutual_information): a
    feature exactly independent of the class, every row weighted 0.3, sums to an MI of
    -1.3e-16 in floating point; unclipped, its sqrt-MI weight is NaN and so is every
    posterior of the model."""
    from heb.nb import NaiveBayes

    class_rows, value_rows = [3, 1, 1], [3, 1, 2, 1]
    cells = [
        (c, v) for c in range(3) for v in range(4) for _ in range(class_rows[c] * value_rows[v])
    ]
    y = np.array([c for c, _ in cells])
    X = np.array([[v] for _, v in cells])
    model = NaiveBayes("laplace", weighting="sqrt-mi").fit(X, y, sample_weight=np.full(y.size, 0.3))
    assert model.feature_weights_.tolist() == [0.0]
    proba = model.predict_proba(np.array([[0], [3]]))
    assert np.all(np.isfinite(proba))
    # weight 0: the posterior is the class prior (N_c + 1) / (S + C), N_c = 6.3, 2.1, 2.1
    np.testing.assert_allclose(proba, np.tile([7.3, 3.1, 3.1], (2, 1)) / 13.5, rtol=1e-12)


def test_metrics_refuse_probabilities_beyond_their_round_off_tolerances():
    """Guards heb.metrics' input tolerances: a probability 5e-9 outside [0, 1] is refused
    (round-off up to 1e-9 is clipped and taken), and a row summing to 1 + 5e-6 is refused
    (1 + 5e-7 is taken); a 10x looser tolerance let each through into the metrics."""
    from heb.metrics import log_loss

    y = np.array([0, 1])
    assert log_loss(y, np.array([[1.0 + 5e-10, -5e-10], [0.3, 0.7]])) > 0
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        log_loss(y, np.array([[1.0 + 5e-9, -5e-9], [0.3, 0.7]]))
    assert log_loss(y, np.array([[0.5, 0.5 + 5e-7], [0.3, 0.7]])) > 0
    with pytest.raises(ValueError, match="sum to 1"):
        log_loss(y, np.array([[0.5, 0.5 + 5e-6], [0.3, 0.7]]))


def test_the_subsample_gives_the_leftover_rows_to_the_largest_remainders():
    """Guards subsample_rows' largest-remainder allocation (the stratified subsample of
    the paper protocol): classes of 50, 30 and 20 rows cut to 7 have quotas 3.5, 2.1 and
    1.4, so the one row left after the floors goes to the first class (4, 2, 1), not to
    the smallest remainder (3, 3, 1)."""
    from heb.data.folds import subsample_rows

    y = np.repeat([0, 1, 2], [50, 30, 20])
    keep = subsample_rows(y, max_rows=7, seed=42)
    assert np.bincount(y[keep]).tolist() == [4, 2, 1]


def test_a_rare_class_s_one_row_comes_out_of_the_largest_class():
    """Guards the give-back step of subsample_rows: classes of 98, 1 and 1 rows cut to 10
    keep every class (a row each for the two rare ones) and still give exactly 10 rows,
    the two rows taken from the largest class (8, 1, 1), not 12 rows (10, 1, 1)."""
    from heb.data.folds import subsample_rows

    y = np.repeat([0, 1, 2], [98, 1, 1])
    keep = subsample_rows(y, max_rows=10, seed=42)
    assert keep.size == 10
    assert np.bincount(y[keep]).tolist() == [8, 1, 1]
