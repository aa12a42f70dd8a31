"""HEB-AODE's posterior derived from SPEC section 4 term by term, independently of the engine.

The other AODE tests check vanilla AODE against a brute force, HEB-AODE's m against eq. 12
and its m = K_j, uniform-prior limit against Laplace AODE; this one checks the learned
model end to end: P(y, x_i) = (N_{y,x_i} + 1) / (S_i + C K_i) and the child conditional
(N_{y,u,v} + m t_v) / (N_{y,u} + m) with t the child's pooled marginal (over the rows
where the child is observed), N_{y,u} over the rows where both features are observed, m
the maximiser of the pooled evidence (eq. 11) found by a grid and a root of l'(m), m = K_j
when max_u N_{y,u} < n0, the NB factor of HEB-M past the joint cap, missing and unseen
values left out.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heb import AODE, NaiveBayes
from tests.hand_maximiser import clamped_maximiser


def _pooled_slope(docs, prior, m):
    nz = docs > 0
    per_value = np.where(nz, special.digamma(docs + m * prior) - special.digamma(m * prior), 0.0)
    totals = docs.sum(axis=1)
    return float(
        (prior * per_value).sum() - (special.digamma(totals + m) - special.digamma(m)).sum()
    )


def _pooled_evidence(docs, prior, m):
    totals = docs.sum(axis=1)
    cells = np.where(docs > 0, special.gammaln(docs + m * prior) - special.gammaln(m * prior), 0)
    return float((special.gammaln(m) - special.gammaln(totals + m)).sum() + cells.sum())


def _best_m(docs, prior, lo=1e-2, hi=1e4):
    """The clamped maximiser of the pooled evidence: every peak on a grid, then the best."""
    return clamped_maximiser(
        lambda m: _pooled_slope(docs, prior, m),
        lambda m: _pooled_evidence(docs, prior, m),
        lo,
        hi,
        points=241,
        tol=1e-13,
    )


def _hand_conditionals(X, y, C, K, joint_cap, n0=10):
    """theta[i, j] (C, K_i, K_j) of every pair under the joint cap, and m per (c, i, j)."""
    F = X.shape[1]
    theta, m_of = {}, {}
    for i in range(F):
        for j in range(F):
            if i == j or C * K[i] * K[j] > joint_cap:
                continue
            both = (X[:, i] >= 0) & (X[:, j] >= 0)
            counts = np.zeros((C, K[i], K[j]))
            np.add.at(counts, (y[both], X[both, i], X[both, j]), 1.0)
            observed = X[:, j] >= 0
            prior = np.bincount(X[observed, j], minlength=K[j]) / observed.sum()
            theta[i, j] = np.zeros_like(counts)
            for c in range(C):
                docs = counts[c][counts[c].sum(axis=1) > 0]
                n_cu = counts[c].sum(axis=1)
                m = float(K[j]) if n_cu.max() < n0 else _best_m(docs, prior)
                m_of[c, i, j] = m
                theta[i, j][c] = (counts[c] + m * prior) / (n_cu[:, None] + m)
    return theta, m_of


def _hand_heb_aode(X, y, X_test, C, K, joint_cap):
    F = X.shape[1]
    nb_log = NaiveBayes(smoother="heb-m").fit(X, y).feature_log_prob_
    offsets = np.concatenate([[0], np.cumsum(K)])
    theta, m_of = _hand_conditionals(X, y, C, K, joint_cap)
    out = []
    for row in X_test:
        seen = [0 <= row[f] < K[f] and np.any(X[:, f] == row[f]) for f in range(F)]
        terms = []
        for i in np.flatnonzero(seen):
            observed = X[:, i] >= 0
            n_yu = np.bincount(y[X[:, i] == row[i]], minlength=C)
            log_p = np.log((n_yu + 1) / (observed.sum() + C * K[i]))
            for j in np.flatnonzero(seen):
                if j == i:
                    continue
                if (i, j) in theta:
                    log_p = log_p + np.log(theta[i, j][:, row[i], row[j]])
                else:  # past the joint cap: HEB-M's NB factor
                    log_p = log_p + nb_log[:, offsets[j] + row[j]]
            terms.append(log_p)
        if not terms:  # no qualifying parent: HEB-M's NB posterior
            prior = np.log((np.bincount(y, minlength=C) + 1) / (len(y) + C))
            scores = [nb_log[:, offsets[f] + row[f]] for f in np.flatnonzero(seen)]
            terms = [prior + np.sum(scores, axis=0)]
        total = special.logsumexp(np.array(terms), axis=0)
        out.append(np.exp(total - special.logsumexp(total)))
    return np.array(out), m_of


def test_heb_aode_posterior_is_specs_formula_term_by_term():
    rng = np.random.default_rng(50)
    K, C, n = [3, 4, 5, 2], 3, 300
    y = rng.integers(0, C, n)
    X = np.column_stack([rng.integers(0, k, n) for k in K])
    X[:, 1] = np.where(rng.random(n) < 0.6, (X[:, 0] + y) % 4, X[:, 1])
    X[:, 2] = np.where(rng.random(n) < 0.5, (2 * y + X[:, 3]) % 5, X[:, 2])
    X[:40, 0] = 0  # class-skewed parent counts: some groups fit, some clamp
    X[rng.random(X.shape) < 0.1] = -1  # missing at fit time
    X_test = np.column_stack([rng.integers(-1, k + 1, 60) for k in K])  # K_f: unseen
    X_test[0] = -1  # no qualifying parent: the NB posterior of HEB-M
    # C K_i K_j > 40: pairs with feature 2 and (1, 2)-like wide pairs use the NB factor
    model = AODE(smoother="heb", max_joint_cells=40).fit(X, y)
    assert len(model.fallback_pairs_) > 0 and len(model.joint_pairs_) > 0
    expected, m_of = _hand_heb_aode(X, y, X_test, C, K, joint_cap=40)
    diag = model.concentrations_
    for c, i, j, m in zip(diag["class"], diag["parent"], diag["child"], diag["m"], strict=True):
        assert abs(m - m_of[c, i, j]) <= 1e-6 * m_of[c, i, j], (c, i, j, m, m_of[c, i, j])
    np.testing.assert_allclose(model.predict_proba(X_test), expected, rtol=0, atol=1e-9)
