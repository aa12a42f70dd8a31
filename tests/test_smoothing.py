"""The seven smoothers: hand-computed values, the paper's limit cases and Corollary 1."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from heb import registry
from heb.concentration import M_MIN, fit_concentration
from heb.counts import CountTable
from heb.log_tables import TableSums, prior_summary
from heb.smoothing import (
    SMOOTHERS,
    _dirichlet_theta,
    learn_concentrations,
    mutual_information,
    prior_mean,
    resolve_params,
    smooth,
)

# A tiny example worked by hand. Two features (K = 2 and K = 3), two classes:
#   class 0 rows (x0, x1): (0, 0) (0, 1) (1, 0)          N_0 = 3
#   class 1 rows:          (1, 2) (1, 2) (0, 1) (1, 1)   N_1 = 4,  S = 7
# N_c,f0,v: class 0 [2, 1], class 1 [1, 3];  N_c,f1,v: class 0 [2, 1, 0], class 1 [0, 2, 2]
# Pooled marginal: f0 [3/7, 4/7], f1 [2/7, 3/7, 2/7].
X_HAND = np.array([[0, 0], [0, 1], [1, 0], [1, 2], [1, 2], [0, 1], [1, 1]])
Y_HAND = np.array([0, 0, 0, 1, 1, 1, 1])

# theta_{c,f,v}, columns (f0 v0, f0 v1, f1 v0, f1 v1, f1 v2), one row per class
HAND_THETA = {
    # (N + 1) / (N_c + K)
    "laplace": [[3 / 5, 2 / 5, 1 / 2, 1 / 3, 1 / 6], [1 / 3, 2 / 3, 1 / 7, 3 / 7, 3 / 7]],
    # (N + 0.1) / (N_c + 0.1 K)
    "lidstone": [
        [21 / 32, 11 / 32, 7 / 11, 1 / 3, 1 / 33],
        [11 / 42, 31 / 42, 1 / 43, 21 / 43, 21 / 43],
    ],
    # (N + 0.5) / (N_c + 0.5 K)
    "kt": [[5 / 8, 3 / 8, 5 / 9, 1 / 3, 1 / 9], [3 / 10, 7 / 10, 1 / 11, 5 / 11, 5 / 11]],
    # (N + 2 tbar) / (N_c + 2)
    "m-estimate": [
        [4 / 7, 3 / 7, 18 / 35, 13 / 35, 4 / 35],
        [13 / 42, 29 / 42, 2 / 21, 10 / 21, 3 / 7],
    ],
    # lambda_v = N_fv / (N_fv + 10); P(c|v) = lambda N_cfv / N_fv + (1 - lambda) N_c / S;
    # theta = P(c|v) N_fv / sum_v' P(c|v') N_fv'.  E.g. class 0, f0:
    # v0: 3/13 * 2/3 + 10/13 * 3/7 = 44/91, times 3;  v1: 2/7 * 1/4 + 5/7 * 3/7 = 37/98,
    # times 4;  theta = (132/91) / (132/91 + 74/49) = 462/943.
    "te": [
        [462 / 943, 481 / 943, 13 / 37, 9 / 22, 195 / 814],
        [987 / 2573, 1586 / 2573, 260 / 1097, 486 / 1097, 351 / 1097],
    ],
    # N_c = 3, 4 < n0 = 10: Algorithm 1 step 8 sets m = K_f, so HEB-U is Laplace ...
    "heb-u": [[3 / 5, 2 / 5, 1 / 2, 1 / 3, 1 / 6], [1 / 3, 2 / 3, 1 / 7, 3 / 7, 3 / 7]],
    # ... and HEB-M is (N + K tbar) / (N_c + K)
    "heb-m": [
        [4 / 7, 3 / 7, 10 / 21, 8 / 21, 1 / 7],
        [13 / 42, 29 / 42, 6 / 49, 23 / 49, 20 / 49],
    ],
}
# HEB-H with no hierarchy is HEB-M exactly
HAND_THETA["heb-h"] = HAND_THETA["heb-m"]


@pytest.fixture
def hand_table() -> CountTable:
    return CountTable.from_codes(X_HAND, Y_HAND, 2)


@pytest.mark.parametrize("smoother", SMOOTHERS)
def test_hand_computed_theta(hand_table, smoother):
    table = smooth(hand_table, smoother)
    np.testing.assert_allclose(np.exp(table.log_theta), HAND_THETA[smoother], rtol=1e-13)
    assert table.seen.all()


def test_pinned_concentration_gives_the_dirichlet_posterior_mean(hand_table):
    m = 1.7
    table = smooth(hand_table, "heb-m", n0=0, m_min=m, m_max=m)
    counts = hand_table.counts
    tbar = np.array([3, 4, 2, 3, 2]) / 7
    n_c = np.array([[3.0], [4.0]])
    np.testing.assert_allclose(np.exp(table.log_theta), (counts + m * tbar) / (n_c + m))
    assert np.all(table.concentration == m)


def test_implied_concentrations(hand_table):
    k = np.array([[2.0, 3.0], [2.0, 3.0]])
    np.testing.assert_array_equal(smooth(hand_table, "laplace").concentration, k)
    np.testing.assert_array_equal(smooth(hand_table, "kt").concentration, 0.5 * k)
    np.testing.assert_allclose(smooth(hand_table, "lidstone", alpha=0.3).concentration, 0.3 * k)
    np.testing.assert_array_equal(smooth(hand_table, "m-estimate", m=5).concentration, 5.0)
    te = smooth(hand_table, "te")
    assert te.concentration is None and te.fit is None


# ----------------------------------------------------------------------------- limits
def _random_table(seed=0, n=400, k=(4, 7, 2), n_classes=3):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, kf, n) for kf in k])
    y = rng.integers(0, n_classes, n)
    return CountTable.from_codes(X, y, n_classes)


def test_proposition_1_uniform_prior_with_m_equal_k_is_laplace():
    table = _random_table()
    n_cf = table.class_feature_totals()
    k_f = np.broadcast_to(table.n_categories.astype(float), n_cf.shape)
    theta = _dirichlet_theta(table, n_cf, k_f, prior_mean(table, "uniform"))
    np.testing.assert_allclose(np.log(theta), smooth(table, "laplace").log_theta, rtol=1e-14)
    # HEB-U with the fallback forced everywhere (n0 above every N_c) is Laplace as well
    forced = smooth(table, "heb-u", n0=1e9)
    np.testing.assert_allclose(forced.log_theta, smooth(table, "laplace").log_theta, rtol=1e-14)
    assert forced.fallback.all()


def test_proposition_2_endpoints_of_heb_m():
    table = _random_table(1)
    n_cf = table.class_feature_totals()[:, table.feature_of_column]
    unsmoothed = table.counts / n_cf
    marginal = prior_mean(table, "marginal")
    small = np.exp(smooth(table, "heb-m", n0=0, m_min=1e-9, m_max=1e-9).log_theta)
    large = np.exp(smooth(table, "heb-m", n0=0, m_min=1e12, m_max=1e12).log_theta)
    np.testing.assert_allclose(small, unsmoothed, atol=1e-9)
    np.testing.assert_allclose(large, np.broadcast_to(marginal, large.shape), atol=1e-9)


def test_target_encoding_limits():
    table = _random_table(2)
    n_cf = table.class_feature_totals()[:, table.feature_of_column]
    k0 = registry.smoother("te").params[0]  # the ends of k0's accepted range
    small = np.exp(smooth(table, "te", k0=k0.low).log_theta)
    large = np.exp(smooth(table, "te", k0=k0.high).log_theta)
    # the shrinkage weight k0 / (N_fv + k0) bounds the distance from each limit
    n_fv = table.category_totals()
    np.testing.assert_allclose(small, table.counts / n_cf, atol=2 * k0.low / n_fv.min())
    marginal = prior_mean(table, "marginal")
    np.testing.assert_allclose(
        large, np.broadcast_to(marginal, large.shape), atol=2 * n_fv.max() / k0.high
    )
    with pytest.raises(ValueError, match="k0 must lie in"):
        smooth(table, "te", k0=k0.high * 10)


# ----------------------------------------------------------------------------- Corollary 1
@pytest.mark.parametrize("k, n", [(2, 10), (10, 10), (60, 25), (500, 1000)])
def test_corollary_1_one_hot_counts(k, n):
    """p* = e1: m = m_min and ||theta - e1||_1 = 2 m_min (1 - tbar_1) / (N + m_min)."""
    rng = np.random.default_rng(k)
    counts = np.zeros(k)
    counts[0] = n
    e1 = np.eye(k)[0]
    for tbar in (np.full(k, 1 / k), rng.dirichlet(np.ones(k))):
        m = fit_concentration(counts, tbar)
        assert m == M_MIN
        theta = (counts + m * tbar) / (n + m)
        l1 = np.abs(theta - e1).sum()
        assert l1 == pytest.approx(2 * M_MIN * (1 - tbar[0]) / (n + M_MIN), rel=1e-12)
    laplace = (counts + 1) / (n + k)
    assert np.abs(laplace - e1).sum() == pytest.approx(2 * (k - 1) / (n + k), rel=1e-12)


def test_corollary_1_inside_naive_bayes():
    """A class whose rows all share one category gets m = m_min for that feature."""
    n, k = 30, 8
    rng = np.random.default_rng(4)
    X = np.concatenate([np.zeros(n, int), rng.integers(0, k, 50)])[:, None]
    X[n + 7, 0] = k - 1  # make sure the other class reaches category K - 1
    y = np.concatenate([np.zeros(n, int), np.ones(50, int)])
    table = CountTable.from_codes(X, y, 2)
    for smoother, kind in (("heb-u", "uniform"), ("heb-m", "marginal")):
        smoothed = smooth(table, smoother)
        assert smoothed.concentration[0, 0] == M_MIN
        tbar = prior_mean(table, kind)
        l1 = np.abs(np.exp(smoothed.log_theta[0]) - np.eye(k)[0]).sum()
        assert l1 == pytest.approx(2 * M_MIN * (1 - tbar[0]) / (n + M_MIN), rel=1e-12)


# ----------------------------------------------------------------------------- details
def test_missing_codes_shrink_the_denominator():
    X = np.array([[0, 0], [0, 1], [1, 0], [-1, 1]])  # the last row misses feature 0
    table = CountTable.from_codes(X, np.zeros(4, int), 1)
    theta = np.exp(smooth(table, "laplace").log_theta[0])
    np.testing.assert_allclose(theta, [3 / 5, 2 / 5, 3 / 6, 3 / 6])


def test_unseen_categories_have_log_zero_columns():
    X = np.array([[0], [2], [2]])  # category 1 has no training row
    table = CountTable.from_codes(X, np.array([0, 1, 1]), 2)
    for smoother in SMOOTHERS:
        smoothed = smooth(table, smoother)
        np.testing.assert_array_equal(smoothed.seen, [True, False, True])
        np.testing.assert_array_equal(smoothed.log_theta[:, 1], 0.0)
        assert np.all(np.isfinite(smoothed.log_theta))


@pytest.mark.parametrize("smoother", SMOOTHERS)
def test_a_class_without_rows_gets_the_prior_mean(hand_table, smoother):
    table = CountTable(
        np.append(hand_table.class_counts, 0.0),
        np.vstack([hand_table.counts, np.zeros(5)]),
        hand_table.offsets,
    )
    kind = "uniform" if smoother in ("laplace", "lidstone", "kt", "heb-u") else "marginal"
    theta = np.exp(smooth(table, smoother).log_theta[2])
    np.testing.assert_allclose(theta, prior_mean(table, kind), rtol=1e-13)


def test_heb_fallback_below_n0():
    table = _random_table(5, n=60, k=(3, 40))
    smoothed = smooth(table, "heb-m", n0=25)
    n_cf = table.class_feature_totals()
    np.testing.assert_array_equal(smoothed.fallback, n_cf < 25)
    k_f = np.broadcast_to(table.n_categories.astype(float), n_cf.shape)
    np.testing.assert_array_equal(smoothed.concentration[n_cf < 25], k_f[n_cf < 25])
    assert np.all(smoothed.fit.iterations[(n_cf < 25).ravel()] == 0)


def test_prior_mean():
    table = CountTable.from_codes(np.array([[0, 0], [1, 0], [1, -1]]), np.zeros(3, int), 1)
    np.testing.assert_allclose(prior_mean(table, "uniform"), [0.5, 0.5, 1.0])
    np.testing.assert_allclose(prior_mean(table, "marginal"), [1 / 3, 2 / 3, 1.0])
    never = CountTable.from_codes(np.array([[0, -1]]), np.zeros(1, int), 1, np.array([1, 3]))
    np.testing.assert_allclose(prior_mean(never, "marginal"), [1.0, 1 / 3, 1 / 3, 1 / 3])
    with pytest.raises(ValueError, match="uniform"):
        prior_mean(table, "flat")


def test_marginal_prior_mean_of_equal_k_divides_each_feature_by_its_own_total():
    """Every K_f = 2 (the one-K path): feature 0 sees 3 rows, feature 1 only 1."""
    X = np.array([[0, 1], [1, -1], [1, -1]])
    table = CountTable.from_codes(X, np.zeros(3, int), 1, np.array([2, 2]))
    np.testing.assert_allclose(prior_mean(table, "marginal"), [1 / 3, 2 / 3, 0.0, 1.0])


def test_equal_k_solve_counts_only_categories_of_positive_prior_mean():
    """A never-seen category has marginal prior mean 0, so widening a feature by one more
    such category changes nothing: the equal-K table (K = 3, 3) and its widening
    (K = 3, 4) take the same solver steps to the same m."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    f0 = np.where(rng.random(300) < 0.8, 2 * y, 2 - 2 * y)  # code 1 never seen
    f1 = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    equal = CountTable.from_codes(np.column_stack([f0, f1]), y, 2, np.array([3, 3]))
    wider = equal.widen(np.array([3, 4]))
    m_equal, fit_equal, _ = learn_concentrations(equal, prior_mean(equal, "marginal"), n0=1)
    m_wider, fit_wider, _ = learn_concentrations(wider, prior_mean(wider, "marginal"), n0=1)
    assert not fit_equal.clamped.any()
    np.testing.assert_array_equal(fit_equal.iterations, fit_wider.iterations)
    np.testing.assert_allclose(m_equal, m_wider, rtol=1e-13)


def test_mutual_information_matches_sklearn():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 500)
    X = np.column_stack([(y + rng.integers(0, 2, 500)) % 4, rng.integers(0, 5, 500), y])
    X[rng.random(500) < 0.1, 1] = -1  # missing: MI over the rows where it is observed
    table = CountTable.from_codes(X, y, 3)
    ours = mutual_information(table)
    observed = X[:, 1] >= 0
    expected = [
        mutual_info_score(X[:, 0], y),
        mutual_info_score(X[observed, 1], y[observed]),
        mutual_info_score(X[:, 2], y),
    ]
    np.testing.assert_allclose(ours, expected, rtol=1e-12)


def test_resolve_params():
    assert resolve_params("laplace") == {}
    assert resolve_params("lidstone") == {"alpha": 0.1}
    assert resolve_params("te", k0=3) == {"k0": 3.0}
    assert resolve_params("m-estimate", m=4, alpha=None) == {"m": 4.0}
    with pytest.raises(ValueError, match="m-estimate does not use alpha"):
        resolve_params("m-estimate", m=4, alpha=9)
    with pytest.raises(ValueError, match="Unknown smoother"):
        resolve_params("add-one")
    with pytest.raises(ValueError, match="must lie in"):
        resolve_params("lidstone", alpha=-1)
    with pytest.raises(ValueError, match="must lie in"):
        resolve_params("te", k0=float("nan"))
    with pytest.raises(ValueError, match="must be a number"):
        resolve_params("te", k0="many")


def test_smooth_rejects_a_bad_clamp(hand_table):
    with pytest.raises(ValueError, match="m_min"):
        smooth(hand_table, "heb-u", m_min=5, m_max=1)
    with pytest.raises(ValueError, match="finite"):
        smooth(hand_table, "heb-m", m_max=float("inf"))
    with pytest.raises(ValueError, match="laplace does not use alpha"):
        smooth(hand_table, "laplace", alpha=0.5)


@pytest.mark.parametrize(
    ("smoother", "given", "message"),
    [
        ("m-estimate", {"m": 4.0, "alpha": 0.0}, "does not use alpha"),
        ("laplace", {"alpha": 0.0}, "does not use alpha"),
        ("lidstone", {"alpha": 0.0}, "must lie in"),
        ("te", {"k0": 0.0}, "must lie in"),
        ("m-estimate", {"m": 0.0}, "must lie in"),
    ],
)
def test_a_zero_parameter_is_neither_ignored_nor_the_default(smoother, given, message):
    with pytest.raises(ValueError, match=message):
        resolve_params(smoother, **given)


def test_a_parameter_at_its_lower_bound_is_kept():
    assert resolve_params("lidstone", alpha=1e-6) == {"alpha": 1e-6}


@pytest.mark.parametrize("seed", range(6))
def test_seen_column_marginal_equals_prior_mean(seed):
    # a few-row table (it keeps its sums) builds the marginal prior and its per-feature
    # max / min / positive count from its seen columns: equal, bit for bit, to prior_mean
    # and to the summary read from the whole array, unequal K and a never-observed
    # feature (uniform 1/K) included
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 300, 4)
    X = np.column_stack([rng.integers(-1, kf, 12) for kf in k])
    X[:, seed % 4] = -1 if seed % 2 else X[:, seed % 4]
    table = CountTable.from_codes(X, rng.integers(0, 3, 12), 3, k)
    assert getattr(table, "_sums", None) is not None
    totals = TableSums(table)
    prior, summary = totals.seen_marginal()
    expected = prior_mean(table, "marginal")
    # no V-long array: the seen columns' values, each feature's first column's value
    assert prior.values.size == totals.seen_cols.size
    np.testing.assert_array_equal(prior.values, expected[totals.seen_cols])
    np.testing.assert_array_equal(prior.starts, expected[table.offsets[:-1]])
    np.testing.assert_array_equal(prior.dense(totals.seen_cols), expected)
    for got, want in zip(summary, prior_summary(expected, table), strict=True):
        np.testing.assert_array_equal(got, want)
    per_feature = np.split(expected, table.offsets[1:-1])
    np.testing.assert_array_equal(summary.positive, [np.count_nonzero(p) for p in per_feature])
    np.testing.assert_array_equal(summary.maximum, [p.max() for p in per_feature])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("smoother", [s for s in SMOOTHERS if s != "heb-h"])
def test_a_few_row_table_smooths_as_the_same_counts_read_in_full(seed, smoother):
    # a few-row table keeps its sums and gives the rules a prior known on its seen columns
    # only (SeenPrior, uniform or marginal); the same counts in a plain table take the
    # whole (V,) prior: the log tables agree (TE and the registered rules expand it)
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 300, 4)
    X = np.column_stack([rng.integers(-1, kf, 30) for kf in k])
    X[:, seed % 4] = -1  # a feature never observed: uniform 1/K_f under either prior
    y = rng.integers(0, 3, 30)
    few = CountTable.from_codes(X, y, 3, k)
    assert getattr(few, "_sums", None) is not None
    plain = CountTable(few.class_counts, few.counts.copy(), few.offsets)
    got, want = smooth(few, smoother), smooth(plain, smoother)
    np.testing.assert_allclose(got.log_theta, want.log_theta, rtol=1e-13, atol=1e-13)
    if got.concentration is not None:
        np.testing.assert_allclose(got.concentration, want.concentration, rtol=1e-9)


@pytest.mark.parametrize(("n_rows", "k"), [(40, 5000), (5, 300), (100, 60), (0, 50)])
def test_seen_columns_and_cell_positions_of_a_few_row_table(n_rows, k):
    # merged from the cells' per-class runs of columns (few cells) or read from a mask
    # (many): the columns with a count, and each positive cell's place among them
    rng = np.random.default_rng(n_rows)
    X = rng.integers(-1, k, (n_rows, 3))
    table = CountTable.from_codes(X, rng.integers(0, 4, n_rows), 4, np.full(3, k))
    assert getattr(table, "_sums", None) is not None  # few rows: the table keeps its sums
    totals = TableSums(table)
    seen = table.counts.sum(axis=0) > 0
    np.testing.assert_array_equal(totals.seen, seen)
    np.testing.assert_array_equal(totals.seen_cols, np.flatnonzero(seen))
    cells = np.flatnonzero(table.counts > 0)
    np.testing.assert_array_equal(totals.positive_cells, cells)
    place = np.searchsorted(np.flatnonzero(seen), cells % table.counts.shape[1])
    np.testing.assert_array_equal(totals.cell_seen_position(), place)


def test_a_few_row_table_with_an_even_marginal_feature_is_the_dirichlet_mean():
    # a feature whose categories are seen equally often has a constant marginal prior (its
    # log t is in the zero value of class 1, which never sees category 1), beside a wide
    # feature whose prior varies: theta = (N_cv + m_cf t_v) / (N_cf + m_cf) on seen columns
    rng = np.random.default_rng(7)
    X = np.column_stack([[1] * 6 + [0] * 6, rng.integers(0, 5000, 12)])
    table = CountTable.from_codes(X, np.repeat([0, 1], [8, 4]), 2, [2, 5000])
    assert getattr(table, "_sums", None) is not None and table.counts[1, 1] == 0
    got = smooth(table, "heb-m")
    m = got.concentration[:, table.feature_of_column]
    n_cf = table.class_feature_totals()[:, table.feature_of_column]
    theta = (table.counts + m * prior_mean(table, "marginal")) / (n_cf + m)
    seen = table.counts.sum(axis=0) > 0
    want = np.where(seen, np.log(np.where(seen, theta, 1.0)), 0.0)
    np.testing.assert_allclose(got.log_theta, want, rtol=1e-13, atol=1e-13)


def test_seen_marginal_of_a_last_feature_seen_only_in_its_first_column():
    # the first column's prior of a feature whose one seen column is the last seen column
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 300, 10), np.zeros(10, int)])
    for k in ([300, 1], [300, 40]):
        table = CountTable.from_codes(X, np.arange(10) % 2, 2, k)
        assert getattr(table, "_sums", None) is not None
        totals = TableSums(table)
        prior, _ = totals.seen_marginal()
        np.testing.assert_array_equal(prior.starts, prior_mean(table, "marginal")[[0, 300]])
        assert prior.starts[1] == 1.0
