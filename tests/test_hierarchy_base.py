"""HEB-H's learned base (heb.hierarchy_nodes) and the tree's weight against HEB-M:
hand-computed values, independent evidence maximisers, identities and recovery of a
known base."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from heb.concentration import fit_concentration, log_evidence
from heb.counts import CountTable
from heb.hierarchy import fit_nested
from heb.hierarchy_nodes import without_root_levels
from heb.synthetic_hierarchy import tree_pmfs, zip_levels

GROUPS = {0: [np.array([0, 0, 1, 1])]}


@pytest.fixture(scope="module")
def table() -> CountTable:
    """Three classes, one feature of 12 categories in 3 groups, some class signal."""
    rng = np.random.default_rng(12)
    x, y = rng.integers(0, 12, size=300), rng.integers(0, 3, size=300)
    x[y == 2] = x[y == 2] % 5
    return CountTable.from_codes(x[:, None], y, 3)


# ---------------------------------------------------------------------------- learned base
#: pooled (8, 0, 1, 4) in groups (0, 0, 1, 1): leaf 1 has no row
SPARSE = CountTable(
    np.array([6.0, 7.0]), np.array([[5.0, 0.0, 1.0, 0.0], [3.0, 0.0, 0.0, 4.0]]), np.array([0, 4])
)


def _base_b(pooled_by_parent) -> float:
    """The Type-II ML b of symmetric within-parent splits (independent 1-D search)."""

    def minus(log_b):
        return -sum(
            log_evidence(np.array(n, float), np.full(len(n), 1 / len(n)), np.exp(log_b))
            for n in pooled_by_parent
        )

    best = minimize_scalar(minus, bounds=(np.log(1e-2), np.log(1e4)), method="bounded",
                           options={"xatol": 1e-12})  # fmt: skip
    return float(np.exp(best.x))


def test_without_root_levels_cuts_at_the_first_level_of_one_node():
    two = [np.array([0, 0, 1]), np.array([0, 0])]  # leaves -> 2 groups -> 1 node
    one = [np.zeros(3, int), np.zeros(1, int)]
    assert list(without_root_levels({0: two, 1: one, 2: two[:1]})) == [0, 2]
    cut = without_root_levels({0: two})[0]
    assert len(cut) == 1 and cut[0].tolist() == [0, 0, 1]


def test_learned_base_by_hand():
    """b maximises the evidence of the pooled splits (8, 0) and (1, 4) toward (1/2, 1/2);
    w = (N + b / 2) / (N_parent + b) below the root; the top stays 8/13, 5/13.

    Class 0, groups (5, 1) of 6, m_top 2, m_leaf 3: phi = ((5 + 16/13) / 8, (1 + 10/13) / 8);
    within g0 (5 + 3 w0) / 8, 3 w1 / 8; within g1 (1 + 3 w2) / 4, 3 w3 / 4.
    """
    b = _base_b([(8, 0), (1, 4)])
    assert 0.1 < b < 10  # inside the clamp
    w = np.array(
        [(8 + b / 2) / (8 + b), (b / 2) / (8 + b), (1 + b / 2) / (5 + b), (4 + b / 2) / (5 + b)]
    )
    fit = fit_nested(SPARSE, GROUPS, fixed={(0, 1): 2.0, (0, 0): 3.0}, n0=0)
    np.testing.assert_allclose(fit.base["b"], [b], rtol=1e-6)
    assert fit.base["level"].tolist() == [0] and not fit.base["fallback"].any()
    phi = np.array([5 + 16 / 13, 1 + 10 / 13]) / 8
    within = np.array([5 + 3 * w[0], 3 * w[1], (1 + 3 * w[2]) * 2, 3 * w[3] * 2]) / 8
    np.testing.assert_allclose(fit.theta[0], phi[[0, 0, 1, 1]] * within, rtol=1e-6)
    np.testing.assert_allclose(fit.theta.sum(axis=1), 1.0, rtol=1e-12)
    # the leaf no row shows gets what its parent's evidence leaves, and is absent evidence
    assert (fit.theta[:, 1] > 0).all() and (fit.smoothed.log_theta[:, 1] == 0).all()
    # the pooled base gives it 0; below n0 rows the learned base is Laplace in each parent
    pooled = fit_nested(SPARSE, GROUPS, fixed={(0, 1): 2.0, (0, 0): 3.0}, base="pooled")
    assert (pooled.theta[:, 1] == 0).all()
    few = fit_nested(SPARSE, GROUPS, fixed={(0, 1): 2.0, (0, 0): 3.0}, n0=100)
    assert few.base["fallback"].all() and np.isnan(few.base["b"]).all()
    laplace = np.array([9 / 10, 1 / 10, 2 / 7, 5 / 7])
    np.testing.assert_allclose(few.theta[0], phi[[0, 0, 1, 1]] * (SPARSE.counts[0] + 3 * laplace)
                               / np.array([8, 8, 4, 4]), rtol=1e-12)  # fmt: skip


def test_prior_mean_with_infinite_parent_concentration_is_flat_heb_around_the_learned_base(table):
    """bar(c, v) = (S_g / S) w(v | g), the learned leaf base, for every class: HEB-M's rule
    with this base as its prior mean, m_c by Type-II ML against it."""
    groups = np.arange(12) // 4
    fit = fit_nested(table, {0: [groups]}, form="prior-mean", fixed={(0, 1): np.inf})
    pooled = table.counts[:, :12].sum(axis=0)
    b = _base_b([pooled[groups == g] for g in range(3)])
    s_g = np.bincount(groups, pooled)[groups]
    bar = s_g / pooled.sum() * (pooled + b / 4) / (s_g + b)
    for c in range(3):
        m = fit_concentration(table.counts[c, :12], bar)
        n_c = table.counts[c, :12].sum()
        np.testing.assert_allclose(fit.theta[c, :12], (table.counts[c, :12] + m * bar) / (n_c + m),
                                   rtol=1e-6)  # fmt: skip


def test_learned_base_concentration_recovers_the_truth():
    """Pooled counts drawn from bases whose splits are Dirichlet(1, ..., 1): the true b is
    the number of children (5 prefixes per region, 10 codes per prefix)."""
    rng = np.random.default_rng(11)
    levels = zip_levels(4, 5, 10)
    bases = np.stack([tree_pmfs(levels, 1, concentration=1.0, rng=rng)[0] for _ in range(40)])
    counts = rng.multinomial(20_000, bases).astype(float).reshape(1, -1)
    tab = CountTable(np.array([20_000.0]), counts, np.arange(41) * 200)
    fit = fit_nested(tab, dict.fromkeys(range(40), levels))
    for level, true_b in ((0, 10.0), (1, 5.0)):
        b = fit.base["b"][fit.base["level"] == level]
        assert b.size == 40 and 0.7 * true_b < np.median(b) < 1.4 * true_b


def test_tree_weight_is_the_bic_posterior_against_a_flat_dirichlet_on_the_same_base(table):
    """log odds = tree evidence (top: groups toward their pooled shares; leaves: within
    each group toward w) - (1/2) log N_c - flat evidence toward the leaf base, every m at
    its Type-II ML value; weight = 1 / (1 + exp(-log odds))."""
    groups = np.arange(12) // 4
    fit = fit_nested(table, {0: [groups]})
    pooled = table.counts[:, :12].sum(axis=0)
    b = _base_b([pooled[groups == g] for g in range(3)])
    s_g = np.bincount(groups, pooled)
    w = (pooled + b / 4) / (s_g[groups] + b)
    leaf_base = s_g[groups] / pooled.sum() * w
    rec = fit.levels
    for c in range(3):
        n = table.counts[c, :12]
        n_g = np.bincount(groups, n)
        m = {lv: rec["m"][(rec["class"] == c) & (rec["feature"] == 0) & (rec["level"] == lv)][0]
             for lv in (0, 1)}  # fmt: skip
        tree = log_evidence(n_g, s_g / s_g.sum(), m[1]) + sum(
            log_evidence(n[groups == g], w[groups == g], m[0]) for g in range(3)
        )
        flat = log_evidence(n, leaf_base, fit_concentration(n, leaf_base))
        log_odds = tree - 0.5 * np.log(n.sum()) - flat
        mine = (rec["class"] == c) & (rec["feature"] == 0)
        np.testing.assert_allclose(rec["hierarchy_weight"][mine], 1 / (1 + np.exp(-log_odds)),
                                   rtol=1e-6)  # fmt: skip


def test_bad_selection_and_base_are_refused(table):
    with pytest.raises(ValueError, match="select must be one of"):
        fit_nested(table, {0: [np.arange(12) // 4]}, select=True)
    with pytest.raises(ValueError, match="base must be one of"):
        fit_nested(table, {0: [np.arange(12) // 4]}, base="empirical")


def test_a_feature_of_exactly_n0_rows_learns_its_base():
    """The base falls back to b = n only below n0 rows: 10 rows with n0 = 10 learn b."""
    ten = CountTable(
        np.array([5.0, 5.0]),
        np.array([[4.0, 0.0, 1.0, 0.0], [2.0, 0.0, 0.0, 3.0]]),
        np.array([0, 4]),
    )
    learned = fit_nested(ten, GROUPS, n0=10)
    assert not learned.base["fallback"].any()
    np.testing.assert_allclose(learned.base["b"], [_base_b([(6, 0), (1, 3)])], rtol=1e-6)
    below = fit_nested(ten, GROUPS, n0=11)
    assert below.base["fallback"].all() and np.isnan(below.base["b"]).all()


@pytest.mark.parametrize("select", ["average", None])
def test_a_feature_never_observed_keeps_an_even_estimate(select):
    """A feature whose every training value is missing: no hierarchy gives it the uniform
    1/K_f (HEB-M's prior mean for it); under a tree form hierarchy each parent splits
    evenly (HEB-M again with selection, as its pairs have fewer than n0 rows)."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 4, 60), np.full(60, -1)])
    tab = CountTable.from_codes(X, rng.integers(0, 2, 60), 2, [4, 3])
    fit = fit_nested(tab, {0: [np.array([0, 0, 1, 1])]}, select=select)
    np.testing.assert_allclose(fit.theta[:, 4:], 1 / 3, rtol=1e-12)
    np.testing.assert_allclose(fit.theta[:, :4].sum(axis=1), 1.0, rtol=1e-12)
    assert (fit.smoothed.log_theta[:, 4:] == 0).all()
    fit = fit_nested(tab, {1: [np.array([0, 0, 1])]}, select=select)
    even = [1 / 3] * 3 if select else [1 / 4, 1 / 4, 1 / 2]
    np.testing.assert_allclose(fit.theta[:, 4:], [even, even], rtol=1e-12)
