"""The evidence lesson's held-out check is fair in both directions.

HEB's m was fitted once on all of the pair's rows, held-out ones included, while Laplace's
m = K is fixed: the check favoured HEB. Now m is refitted on each fold's training rows
toward the training rows' prior mean (the pooled marginal without the held-out rows), as
the engine's cross-validation fits a model on training rows only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

from heb.data import Dataset
from heb.evaluate.folds import prepare_folds
from heb.evaluate.settings import RunSettings
from heb.lessons import evidence
from heb.lessons.common import M_MAX, M_MIN
from heb.nb import NaiveBayes


def _log_evidence(n: np.ndarray, t: np.ndarray, m: float) -> float:
    """Dirichlet-multinomial log evidence of one count vector, written out."""
    return float(
        special.gammaln(m)
        - special.gammaln(n.sum() + m)
        + np.sum(special.gammaln(n + m * t) - special.gammaln(m * t))
    )


def _fit_m(n: np.ndarray, t: np.ndarray) -> float:
    """Type-II ML m by a bounded search over log m (an independent implementation)."""
    res = optimize.minimize_scalar(
        lambda x: -_log_evidence(n, t, np.exp(x)),
        bounds=(np.log(M_MIN), np.log(M_MAX)),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(np.exp(res.x))


def _folds(counts: np.ndarray, n_folds: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each row's category and fold, as the lesson shuffles them."""
    K = counts.size
    rows = np.random.default_rng(seed).permutation(np.repeat(np.arange(K), counts.astype(int)))
    return rows, np.arange(rows.size) % n_folds


def test_three_zero_one_with_two_folds_refits_m_per_fold_by_hand():
    counts = np.array([3.0, 0, 1])
    other = np.array([2.0, 5, 1])  # the feature's other class
    pooled = counts + other
    prior = pooled / pooled.sum()
    rows, fold = _folds(counts, 2)
    other_rows, other_fold = _folds(other, 2, seed=1)  # dealt too, as a stratified fold
    K, losses = counts.size, []
    for k in range(2):
        train = np.bincount(rows[fold != k], minlength=K).astype(float)
        rest = pooled - np.bincount(rows[fold == k], minlength=K)
        rest = rest - np.bincount(other_rows[other_fold == k], minlength=K)
        t = (rest + 1) / (rest.sum() + K)  # the pooled marginal without fold k's rows
        m = _fit_m(train, t)
        for v in rows[fold == k]:
            losses.append(-np.log((train[v] + m * t[v]) / (train.sum() + m)))
    got = evidence.heldout_comparison(counts, prior, 99.0, pooled, n_folds=2, n0=0)
    assert got["n_rows"] == 4
    assert got["heb"] == pytest.approx(np.mean(losses), rel=1e-6)
    laplace = [
        -np.log((np.bincount(rows[fold != k], minlength=K)[v] + 1) / (2 + K))
        for k in range(2)
        for v in rows[fold == k]
    ]
    assert got["laplace"] == pytest.approx(np.mean(laplace), rel=1e-12)
    # m_hat = 99 (fitted elsewhere) is scored only as a reference
    assert got["heb_all_rows"] != pytest.approx(got["heb"])


def test_refit_m_matches_an_independent_search_on_each_training_part():
    counts = np.array([9.0, 4, 2, 1, 1, 0, 0, 3])
    pooled = counts + np.array([3.0, 8, 0, 2, 5, 1, 1, 0])
    train, priors, m = evidence.heldout_refit(counts, pooled / pooled.sum(), 5, 0, pooled, n0=0)
    rows, fold = _folds(counts, 5)
    for k in range(5):
        np.testing.assert_array_equal(train[k], np.bincount(rows[fold != k], minlength=8))
        assert m[k] == pytest.approx(_fit_m(train[k], priors[k]), rel=1e-5)


def test_fallback_below_n0_training_rows_is_laplaces_m():
    counts = np.array([3.0, 0, 1])
    _, _, m = evidence.heldout_refit(counts, np.full(3, 1 / 3), 2, 0)
    np.testing.assert_array_equal(m, [3.0, 3.0])  # 2 training rows < N0: m = K


def test_changing_a_folds_held_out_rows_leaves_its_training_side_unchanged(monkeypatch):
    """Fold 0's held-out rows change (in the pair, and so in the pooled marginal): fold 0's
    training counts, prior mean and m are the same."""
    train0 = np.array([6.0, 3, 0, 2, 1])
    other = np.array([4.0, 1, 7, 2, 3])  # the feature's other classes
    other_held0 = np.array([1.0, 0, 3, 1, 1])  # their rows held out with fold 0
    out = []
    for test0 in (np.array([1.0, 0, 0, 1, 0]), np.array([0.0, 4, 2, 0, 3])):
        test1 = train0.copy()  # fold 1 holds out fold 0's training rows
        counts = train0 + test0
        tests = np.stack([test0, test1])
        # the pair's folds (seed 0), and the other classes' (the next stream): fixed
        dealt = {0: tests, 1: np.stack([other_held0, other - other_held0])}
        monkeypatch.setattr(evidence, "_fold_counts", lambda c, n, s, d=dealt: d[s])
        pooled = counts + other
        out.append(evidence.heldout_refit(counts, pooled / pooled.sum(), 2, 0, pooled, n0=0))
    (tr_a, pr_a, m_a), (tr_b, pr_b, m_b) = out
    np.testing.assert_array_equal(tr_a[0], tr_b[0])
    np.testing.assert_allclose(pr_a[0], pr_b[0], rtol=0, atol=0)
    assert m_a[0] == m_b[0]
    assert m_a[1] != m_b[1]  # fold 1 trains on the changed rows: it may change


def _dataset(seed: int = 0, n: int = 300) -> Dataset:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "city": rng.choice([f"c{i}" for i in range(25)], n).astype(object),
            "x": rng.normal(size=n) + y,
        }
    )
    return Dataset(
        name="toy",
        X=X,
        y=pd.Series(np.where(y == 1, "yes", "no")),
        categorical=["city"],
        source="test",
    )


def test_heb_m_fitted_in_cv_does_not_depend_on_its_test_rows():
    """A test row's values changed (a city never seen, an extreme x): the fold's count
    table, pooled marginal and fitted HEB-M tables are the same."""
    settings = RunSettings(n_splits=5, max_rows=None)
    base = _dataset()
    folds = prepare_folds(base, settings).folds
    r = int(folds[0].test_index[0])
    changed = _dataset()
    changed.X.loc[r, "city"] = "never-seen"
    changed.X.loc[r, "x"] = 1e6
    folds2 = prepare_folds(changed, settings).folds
    np.testing.assert_array_equal(folds[0].test_index, folds2[0].test_index)
    a, b = folds[0].table, folds2[0].table
    np.testing.assert_array_equal(a.n_categories, b.n_categories)
    np.testing.assert_array_equal(a.counts, b.counts)
    models = [NaiveBayes(smoother="heb-m").fit_counts(t, np.arange(2)) for t in (a, b)]
    np.testing.assert_array_equal(models[0].feature_log_prob_, models[1].feature_log_prob_)
    # the row is a training row of the other folds: there the tables may change
    assert not np.array_equal(folds[1].table.counts, folds2[1].table.counts) or (
        folds[1].table.n_categories.tolist() != folds2[1].table.n_categories.tolist()
    )


def _dealt(counts: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """(folds, K) rows of ``counts`` shuffled with ``seed`` and dealt round-robin."""
    rows, fold = _folds(counts, n_folds, seed)
    return np.stack([np.bincount(rows[fold == k], minlength=counts.size) for k in range(n_folds)])


def test_each_folds_marginal_holds_out_a_fold_of_every_class_as_stratified_cv_does():
    """Trial S: HEB's refitted t held out only the pair's rows, so a fold's pooled marginal
    kept every row of the other classes and leaned toward them; on zip-codes' weekday
    (class no) every fold's m fell below the m of all rows (329 to 398 against 527). A
    stratified fold holds out a share of every class: each fold's marginal is refitted on
    (folds - 1) / folds of the feature's rows, and the per-fold m straddle m_hat."""
    rng = np.random.default_rng(3)
    counts = np.bincount(rng.choice(5, 900, p=[0.3, 0.25, 0.2, 0.15, 0.1]), minlength=5)
    other = np.bincount(rng.choice(5, 3000, p=[0.1, 0.15, 0.2, 0.25, 0.3]), minlength=5)
    counts, pooled = counts.astype(float), (counts + other).astype(float)
    K, n_folds = counts.size, 5
    _, priors, m = evidence.heldout_refit(counts, pooled / pooled.sum(), n_folds, 0, pooled)
    # by hand: the pair's rows with the seed, the other classes' rows with the next stream
    rest = pooled - _dealt(counts, n_folds, 0) - _dealt(other.astype(float), n_folds, 1)
    np.testing.assert_allclose(rest.sum(axis=1), pooled.sum() * 4 / 5, atol=2)
    np.testing.assert_allclose(priors, (rest + 1) / (rest.sum(axis=1) + K)[:, None], rtol=1e-12)
    m_hat = evidence.evidence_curve(counts, pooled / pooled.sum()).m_hat
    assert m.min() < m_hat < m.max()
