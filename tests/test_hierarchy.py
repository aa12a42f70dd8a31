"""HEB-H (heb.hierarchy): identities with HEB-M, hand-computed values, the evidence it
maximises, the model selection, NaiveBayes integration; hierarchy sources and the
synthetic known truth."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.utils.estimator_checks import check_estimator
from sklearn.utils.validation import has_fit_parameter

from heb.concentration import log_evidence
from heb.counts import CountTable
from heb.hierarchical_nb import HierarchicalNaiveBayes, level_concentrations
from heb.hierarchy import SELECTIONS, check_hierarchies, fit_nested
from heb.hierarchy_nodes import BASES
from heb.hierarchy_sources import (
    dependency_chains,
    functional_dependencies,
    levels_from_chain,
    levels_from_labels,
    levels_from_parent_column,
    prefix_levels,
)
from heb.nb import NaiveBayes
from heb.smoothing import smooth
from heb.synthetic_hierarchy import tree_pmfs, zip_levels
from tests.conftest import read_shared_csv
from tests.test_estimator_checks import NOT_APPLICABLE

FORMS = ("tree", "prior-mean")


@pytest.fixture(scope="module")
def table() -> CountTable:
    """Three classes, three features of 12 categories, counts of random codes."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 12, size=(400, 3))
    y = rng.integers(0, 3, size=400)
    X[y == 1, 0] = X[y == 1, 0] % 4  # some class signal
    return CountTable.from_codes(X, y, 3)


def _sums(theta, table):
    return np.add.reduceat(theta, table.offsets[:-1], axis=1)


# ---------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("hierarchies", "message"),
    [
        ([1, 2], "must map a feature"),
        ({5: [np.zeros(12, int)]}, "not an index"),
        ({0: [np.full(12, -1)]}, "negative code"),
        ({0: [np.arange(12) // 2, np.zeros(3, int)]}, "names parent 5"),
        ({0: [np.zeros(12)]}, "1-D integers"),
        ({0: []}, "empty list"),
        ({0: 1}, "must hold a list of levels"),  # a TypeError before
        ({0: None}, "must hold a list of levels"),
        ({0: "ab"}, "must hold a list of levels"),
    ],
)
def test_bad_hierarchies_are_refused_in_one_sentence(hierarchies, message):
    with pytest.raises(ValueError, match=message):
        check_hierarchies(hierarchies, [12, 12, 12])


def test_level_one_is_cut_to_the_table_categories():
    levels = check_hierarchies({1: [np.arange(20) // 5]}, [12, 12, 12])
    np.testing.assert_array_equal(levels[1][0], np.arange(12) // 5)


def test_categories_the_hierarchy_does_not_name_hang_alone_under_new_nodes():
    levels = check_hierarchies({0: [np.array([0, 0, 1]), np.array([0, 0])]}, [5])[0]
    np.testing.assert_array_equal(levels[0], [0, 0, 1, 2, 3])
    np.testing.assert_array_equal(levels[1], [0, 0, 1, 2])


# ---------------------------------------------------------------------------- identities
@pytest.mark.parametrize("form", FORMS)
def test_no_hierarchy_is_hebm(table, form):
    hebm = smooth(table, "heb-m")
    fit = fit_nested(table, None, form=form)
    np.testing.assert_allclose(fit.smoothed.log_theta, hebm.log_theta, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fit.smoothed.concentration, hebm.concentration, rtol=1e-6)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("select", SELECTIONS)
def test_one_group_holding_every_category_is_hebm(table, form, select):
    hebm = smooth(table, "heb-m")
    one = {0: [np.zeros(12, int)], 2: [np.zeros(12, int), np.zeros(1, int)]}
    fit = fit_nested(table, one, form=form, select=select)
    np.testing.assert_allclose(fit.smoothed.log_theta, hebm.log_theta, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fit.smoothed.concentration, hebm.concentration, rtol=1e-6)


@pytest.mark.parametrize("select", SELECTIONS)
def test_tree_with_one_group_per_category_is_hebm(table, select):
    hebm = smooth(table, "heb-m")
    fit = fit_nested(table, {0: [np.arange(12)], 1: [np.arange(12)[::-1]]}, select=select)
    np.testing.assert_allclose(fit.smoothed.log_theta, hebm.log_theta, rtol=0, atol=1e-9)


def test_tree_ignores_a_level_that_maps_one_to_one(table):
    two = fit_nested(table, {0: [np.arange(12) // 3]}, select=None)
    padded = fit_nested(
        table, {0: [np.arange(12), np.arange(12) // 3], 1: [np.arange(12)]}, select=None
    )
    np.testing.assert_allclose(padded.theta[:, :12], two.theta[:, :12], rtol=1e-12)
    hebm = np.exp(smooth(table, "heb-m").log_theta)
    np.testing.assert_allclose(padded.theta[:, 12:], hebm[:, 12:], rtol=1e-9)


def test_prior_mean_with_infinite_parent_concentration_is_hebm(table):
    """bar(c, v) = pbar(g) w(v | g) = N_fv / S_f: the pooled marginal, for any grouping."""
    hebm = smooth(table, "heb-m")
    groups = {0: [np.array([0, 1, 1, 2, 0, 2, 3, 3, 3, 1, 0, 2])]}
    fit = fit_nested(table, groups, form="prior-mean", base="pooled", fixed={(0, 1): np.inf})
    np.testing.assert_allclose(fit.smoothed.log_theta, hebm.log_theta, rtol=0, atol=1e-9)


def test_prior_mean_at_the_upper_clamp_is_within_its_bound_of_hebm(table):
    """With the leaf m fixed at HEB-M's, theta_H - theta_M = rho0 w (phi - pbar), and
    |phi(g) - pbar(g)| <= N_c / (N_c + M) for a parent concentration M."""
    hebm = smooth(table, "heb-m")
    groups = np.arange(12) // 4
    n_c = table.class_feature_totals()[:, 0]
    m0 = hebm.concentration[:, 0]
    gaps = []
    for M in (1e2, 1e4):
        # one leaf m for all classes: use each class's in turn
        for c in range(3):
            fit = fit_nested(
                table,
                {0: [groups]},
                form="prior-mean",
                base="pooled",
                fixed={(0, 1): M, (0, 0): m0[c]},
            )
            gap = np.abs(fit.theta[c, :12] - np.exp(hebm.log_theta[c, :12])).max()
            assert gap <= m0[c] / (n_c[c] + m0[c]) * n_c[c] / (n_c[c] + M) + 1e-12
            gaps.append(gap)
    assert max(gaps[3:]) < min(gaps[:3])


# ---------------------------------------------------------------------------- hand values
HAND = CountTable(
    np.array([6.0, 4.0]),
    np.array([[3.0, 1.0, 0.0, 2.0], [1.0, 1.0, 2.0, 0.0]]),
    np.array([0, 4]),
)
HAND_GROUPS = {0: [np.array([0, 0, 1, 1])]}


def test_tree_form_by_hand():
    """Pooled (4, 2, 2, 2): pbar = (0.6, 0.4), w = (2/3, 1/3, 1/2, 1/2); m_top 2, m_leaf 3.

    Class 0, groups (4, 2) of 6: phi = (5.2 / 8, 2.8 / 8) = (0.65, 0.35); within g0
    (3 + 2) / 7, (1 + 1) / 7; within g1 (0 + 1.5) / 5, (2 + 1.5) / 5.
    """
    fit = fit_nested(HAND, HAND_GROUPS, base="pooled", fixed={(0, 1): 2.0, (0, 0): 3.0}, n0=0)
    expected = [0.65 * 5 / 7, 0.65 * 2 / 7, 0.35 * 0.3, 0.35 * 0.7]
    np.testing.assert_allclose(fit.theta[0], expected, rtol=1e-14)
    # class 1, groups (2, 2) of 4: phi = (3.2 / 6, 2.8 / 6); within (1 + 2) / 5, ...
    phi = np.array([3.2, 2.8]) / 6
    expected1 = [phi[0] * 3 / 5, phi[0] * 2 / 5, phi[1] * 3.5 / 5, phi[1] * 1.5 / 5]
    np.testing.assert_allclose(fit.theta[1], expected1, rtol=1e-14)


def test_prior_mean_form_by_hand():
    """bar = phi w = (0.65 2/3, 0.65 / 3, 0.35 / 2, 0.35 / 2); theta = (n + 3 bar) / 9."""
    fixed = {(0, 1): 2.0, (0, 0): 3.0}
    fit = fit_nested(HAND, HAND_GROUPS, form="prior-mean", base="pooled", fixed=fixed)
    np.testing.assert_allclose(fit.theta[0], np.array([4.3, 1.65, 0.525, 2.525]) / 9, rtol=1e-14)


def test_fallback_below_n0_by_hand():
    """N_cf < n0: tree form m = children of the parent (top 2, each group 2), prior-mean
    form m = K of the level (top 2, leaves 4); class 0 again has phi = (0.65, 0.35)."""
    tree = fit_nested(HAND, HAND_GROUPS, n0=100, select=None, base="pooled")
    expected = [0.65 * 13 / 18, 0.65 * 5 / 18, 0.35 * 0.25, 0.35 * 0.75]
    np.testing.assert_allclose(tree.theta[0], expected, rtol=1e-14)
    assert tree.levels["fallback"].all()
    mean = fit_nested(HAND, HAND_GROUPS, form="prior-mean", n0=100, base="pooled")
    bar = np.array([0.65 * 2 / 3, 0.65 / 3, 0.175, 0.175])
    np.testing.assert_allclose(mean.theta[0], (HAND.counts[0] + 4 * bar) / 10, rtol=1e-14)
    # with selection a fallback pair is HEB-M, whose fallback is m = K_f
    selected = fit_nested(HAND, HAND_GROUPS, n0=100)
    np.testing.assert_allclose(selected.smoothed.log_theta, smooth(HAND, "heb-m", n0=100).log_theta)


# ---------------------------------------------------------------------------- evidence
@pytest.mark.parametrize("base", BASES)
def test_tree_leaf_m_maximises_the_multi_document_evidence(table, base):
    """The leaf concentration is the maximiser of sum over parents of the Dirichlet-
    multinomial evidence of the children counts toward w (independent 1-D search)."""
    groups = np.arange(12) // 3
    fit = fit_nested(table, {0: [groups]}, select=None, base=base)
    pooled = table.counts[:, :12].sum(axis=0)
    b = fit.base["b"][0] if base == "learned" else 0.0
    for c in range(3):
        counts = table.counts[c, :12]

        def minus(log_m, counts=counts):
            total = 0.0
            for g in range(4):
                kids = groups == g
                w = (pooled[kids] + b / 3) / (pooled[kids].sum() + b)
                total += log_evidence(counts[kids], w, np.exp(log_m))
            return -total

        best = minimize_scalar(minus, bounds=(np.log(1e-2), np.log(1e4)), method="bounded",
                               options={"xatol": 1e-10})  # fmt: skip
        m = fit.smoothed.concentration[c, 0]
        assert minus(np.log(m)) <= best.fun + 1e-7
        np.testing.assert_allclose(m, np.exp(best.x), rtol=1e-4)


def test_selection_keeps_the_hierarchy_only_where_the_evidence_wants_it():
    rng = np.random.default_rng(3)
    levels = zip_levels(4, 5, 10)
    # classes differ by region only; within-region splits shared
    _, theta = tree_pmfs(levels, 2, concentrations=(1e4, 1e4, 0.5), rng=rng)
    _, flat = tree_pmfs(levels, 2, concentration=30.0, rng=rng)
    counts = np.concatenate([rng.multinomial(3000, theta), rng.multinomial(3000, flat)], axis=1)
    tab = CountTable(np.full(2, 3000.0), counts.astype(float), np.array([0, 200, 400]))
    hierarchies = {0: levels, 1: levels}
    fit = fit_nested(tab, hierarchies)
    weight = fit.levels["hierarchy_weight"]
    feature = fit.levels["feature"]
    assert (weight[feature == 0] > 0.999).all() and (weight[feature == 1] < 0.05).all()
    np.testing.assert_array_equal(fit.levels["hierarchy_used"], weight > 0.5)
    # "average" mixes the tree and HEB-M by the weight; "best" keeps the likelier one
    tree = fit_nested(tab, hierarchies, select=None).theta
    hebm_table = smooth(tab, "heb-m")
    hebm = np.where(hebm_table.seen, np.exp(hebm_table.log_theta), 0.0)
    w = weight[fit.levels["level"] == 0].reshape(2, 2)[:, tab.feature_of_column]
    np.testing.assert_allclose(fit.theta, w * tree + (1 - w) * hebm, rtol=1e-9, atol=1e-12)
    best = fit_nested(tab, hierarchies, select="best")
    np.testing.assert_allclose(best.theta, np.where(w > 0.5, tree, hebm), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        best.smoothed.log_theta[:, 200:], hebm_table.log_theta[:, 200:], atol=1e-9
    )


# ---------------------------------------------------------------------------- properties
@pytest.mark.parametrize("form", FORMS)
def test_estimates_are_distributions_and_unseen_columns_are_absent(form):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 8, size=(60, 2))
    X[:, 1] = np.where(X[:, 1] == 5, 6, X[:, 1])  # category 5 of feature 1 never seen
    y = rng.integers(0, 2, size=60)
    tab = CountTable.from_codes(X, y, 3)  # class 2 has no rows: its prior mean
    fit = fit_nested(
        tab, {0: [np.arange(8) // 2, np.arange(4) // 2], 1: [np.arange(8) % 3]}, form=form
    )
    np.testing.assert_allclose(_sums(fit.theta, tab), 1.0, rtol=1e-12)
    assert fit.smoothed.log_theta[:, 8 + 5].tolist() == [0.0, 0.0, 0.0]
    assert np.isfinite(fit.smoothed.log_theta).all()
    pooled = tab.category_totals()
    marginal = pooled / np.repeat(tab.feature_totals(), 8)
    if form == "tree":  # a pair below n0 rows is HEB-M: its prior mean is the marginal
        np.testing.assert_allclose(fit.theta[2], marginal, rtol=1e-12)
    else:  # the prior-mean form's prior mean is the learned base: feature 1, groups v % 3
        groups = np.arange(8) % 3
        b = fit.base["b"][fit.base["feature"] == 1][0]
        s_g = np.bincount(groups, pooled[8:])[groups]
        w = (pooled[8:] + b / np.bincount(groups)[groups]) / (s_g + b)
        np.testing.assert_allclose(fit.theta[2, 8:], s_g / pooled[8:].sum() * w, rtol=1e-12)
        assert fit.theta[2, 8 + 5] > 0  # the category without rows shares its group's mass


# ---------------------------------------------------------------------------- NaiveBayes
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_naive_bayes_heb_h_without_hierarchies_is_heb_m():
    rng = np.random.default_rng(2)
    X, y = rng.integers(0, 9, size=(300, 4)), rng.integers(0, 2, size=300)
    a = NaiveBayes("heb-h").fit(X, y).predict_proba(X)
    b = NaiveBayes("heb-m").fit(X, y).predict_proba(X)
    np.testing.assert_allclose(a, b, atol=1e-9)


@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_naive_bayes_heb_h_scores_missing_and_unseen_as_absent_evidence():
    rng = np.random.default_rng(4)
    X, y = rng.integers(0, 6, size=(200, 2)), rng.integers(0, 2, size=200)
    model = NaiveBayes("heb-h", hierarchies={0: [np.arange(6) // 2]}).fit(X, y)
    rows = np.array([[-1, 2], [np.nan, 2], [17, 2]])
    only = NaiveBayes("heb-h").fit(X[:, 1:], y)
    expected = only.predict_proba(np.array([[2]]))
    np.testing.assert_allclose(model.predict_proba(rows), np.repeat(expected, 3, axis=0), rtol=1e-9)
    assert model.concentrations_["m"].shape == (4,)


def test_naive_bayes_heb_h_partial_fit_equals_fit():
    rng = np.random.default_rng(5)
    X, y = rng.integers(0, 6, size=(200, 2)), rng.integers(0, 2, size=200)
    h = {1: [np.arange(6) // 3]}
    full = NaiveBayes("heb-h", hierarchies=h).fit(X, y)
    part = NaiveBayes("heb-h", hierarchies=h).partial_fit(X[:90], y[:90], classes=[0, 1])
    part.partial_fit(X[90:], y[90:])
    np.testing.assert_allclose(part.predict_proba(X), full.predict_proba(X), rtol=1e-12)


def test_naive_bayes_refuses_hierarchies_it_cannot_use():
    X, y = np.array([[0, 1], [1, 0], [2, 1]]), np.array([0, 1, 0])
    with pytest.raises(ValueError, match="'heb-h' only"):
        NaiveBayes("heb-m", hierarchies={0: [np.zeros(3, int)]}).fit(X, y)
    with pytest.raises(ValueError, match="names parent 3"):
        NaiveBayes("heb-h", hierarchies={0: [np.array([0, 3, 1]), np.zeros(2, int)]}).fit(X, y)


@pytest.mark.parametrize(
    "estimator", [NaiveBayes("heb-h"), HierarchicalNaiveBayes()], ids=["heb-h", "fd-aware"]
)
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_check_estimator(estimator):
    # NaiveBayes takes sample_weight, so two more checks feed it fractional codes;
    # HierarchicalNaiveBayes refuses sample_weight by name, as sklearn's checks ask
    takes_weights = has_fit_parameter(estimator, "sample_weight")
    expected = dict(NOT_APPLICABLE) if takes_weights else {}
    expected["check_positive_only_tag_during_fit"] = "fractional codes"
    results = check_estimator(estimator, expected_failed_checks=expected, on_skip=None)
    statuses = {r["check_name"]: r["status"] for r in results}
    for name in expected:
        assert statuses.pop(name) == "xfail"
    statuses.pop("check_array_api_input", None)
    assert len(statuses) > 40 and set(statuses.values()) == {"passed"}


# ---------------------------------------------------------------------------- sources
def test_parent_column_gives_the_most_frequent_parent_and_orphans_their_own_group():
    child = np.array([0, 0, 0, 1, 1, 2, 3, 3])
    parent = np.array([1, 1, 0, 0, 0, 1, -1, -1])
    np.testing.assert_array_equal(levels_from_parent_column(child, parent), [1, 0, 1, 2])
    np.testing.assert_array_equal(levels_from_parent_column(child, parent, 5), [1, 0, 1, 2, 3])
    with pytest.raises(ValueError, match="1 child categories"):
        levels_from_parent_column(child, parent, strict=True)


def test_prefix_levels_of_zip_codes():
    labels = ["02139", "02140", "02215", "10001", "10002", "94105"]
    levels = prefix_levels(labels, [3, 1])
    # prefixes 021, 022, 100, 941 -> 0, 1, 2, 3; first digits 0, 1, 9 -> 0, 1, 2
    np.testing.assert_array_equal(levels[0], [0, 0, 1, 2, 2, 3])
    np.testing.assert_array_equal(levels[1], [0, 0, 1, 2])
    with pytest.raises(ValueError, match="strictly decreasing"):
        prefix_levels(labels, [1, 3])
    with pytest.raises(ValueError, match="does not nest"):
        levels_from_labels(["a1", "a2", "b1"], [lambda s: s[1], lambda s: s[0]])


def test_functional_dependencies_exact_tolerant_and_id_like():
    rng = np.random.default_rng(6)
    leaf = rng.integers(0, 30, size=600)
    X = np.column_stack([leaf, leaf // 5, leaf // 15, rng.integers(0, 4, 600), np.arange(600)])
    X[:3, 2] = 1 - X[:3, 2]  # three rows break 0 -> 2 and 1 -> 2
    deps = functional_dependencies(X, ["code", "prefix", "region", "noise", "id"])
    assert [(d.child_name, d.parent_name) for d in deps] == [("code", "prefix")]
    loose = functional_dependencies(X, ["code", "prefix", "region", "noise", "id"], tolerance=0.05)
    pairs = {(d.child_name, d.parent_name): d for d in loose}
    assert set(pairs) == {("code", "prefix"), ("code", "region"), ("prefix", "region")}
    assert pairs["code", "region"].violating_rows == 3
    assert dependency_chains(loose) == {0: [1, 2], 1: [2]}
    levels = levels_from_chain(X, 0, [1, 2])
    np.testing.assert_array_equal(levels[0], np.arange(30) // 5)
    np.testing.assert_array_equal(levels[1], np.arange(6) // 3)


def test_amazon_role_dependencies(datasets_dir):
    df = read_shared_csv(datasets_dir, "amazon-employee-access")
    cols = [c for c in df.columns if c != "target"]
    codes = np.column_stack([np.unique(df[c], return_inverse=True)[1] for c in cols])
    exact = {(d.child_name, d.parent_name) for d in functional_dependencies(codes, cols)}
    assert exact == {("ROLE_TITLE", "ROLE_FAMILY"), ("ROLE_CODE", "ROLE_FAMILY")}
    loose = {(d.child_name, d.parent_name) for d in functional_dependencies(codes, cols, 0.05)}
    assert ("ROLE_ROLLUP_2", "ROLE_ROLLUP_1") in loose


# ---------------------------------------------------------------------------- FD-aware NB
def _fd_data(n=1500, seed=8):
    rng = np.random.default_rng(seed)
    leaf = rng.integers(0, 40, size=n)
    y = ((leaf % 7 < 3) ^ (rng.random(n) < 0.15)).astype(int)
    return np.column_stack([leaf, leaf // 8, rng.integers(0, 4, size=n)]), y


def test_child_is_scored_given_its_parent_feature():
    X, y = _fd_data()
    model = HierarchicalNaiveBayes(fd_tolerance=0.0).fit(X, y)
    assert model.parents_ == {0: 1}
    np.testing.assert_array_equal(model.hierarchies_[0][0], np.arange(40) // 8)
    plain = NaiveBayes("heb-h", hierarchies=model.hierarchies_).fit(X, y)
    log_theta = plain.feature_log_prob_
    phi = np.exp(log_theta[:, :40]).reshape(2, 5, 8).sum(axis=2)  # groups of 8 leaves
    rows = np.array([[3, 0, 1], [17, 2, 0]])
    expected = plain.predict_joint_log_proba(rows) - np.log(phi[:, [0, 2]]).T
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-12)
    # parent missing, unseen or not the child's group: the child's full factor
    odd = np.array([[3, -1, 1], [3, 9, 1], [3, 4, 1], [99, 0, 1]])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(odd), plain.predict_joint_log_proba(odd), rtol=1e-12
    )
    off = HierarchicalNaiveBayes(fd_tolerance=0.0, condition_on_parent=False).fit(X, y)
    np.testing.assert_allclose(off.predict_proba(X), plain.predict_proba(X), rtol=1e-12)


def test_fd_aware_partial_fit_equals_fit_and_bad_parents_are_refused():
    X, y = _fd_data()
    full = HierarchicalNaiveBayes().fit(X, y)
    part = HierarchicalNaiveBayes().partial_fit(X[:800], y[:800], classes=[0, 1])
    part.partial_fit(X[800:], y[800:])
    np.testing.assert_allclose(part.predict_proba(X), full.predict_proba(X), rtol=1e-12)
    with pytest.raises(ValueError, match="without a hierarchy"):
        HierarchicalNaiveBayes(hierarchies={}, parents={0: 1}).fit(X, y)


def test_fd_aware_partial_fit_with_categories_first_met_later():
    X, y = _fd_data()
    early = X[:, 0] < 30
    early[800:] = False  # leaves 30..39 (parents 3, 4) come in the second chunk only
    model = HierarchicalNaiveBayes(fd_tolerance=0.0)
    model.partial_fit(X[early], y[early], classes=[0, 1])
    model.partial_fit(X[~early], y[~early])
    np.testing.assert_array_equal(model.hierarchies_[0][0], np.arange(30) // 8)
    padded = {0: [np.r_[np.arange(30) // 8, np.arange(4, 14)]]}
    plain = NaiveBayes("heb-h", hierarchies=padded).fit(X, y)
    new_leaf = np.array([[35, 4, 1]])  # not in the detected structure: full factor
    np.testing.assert_allclose(
        model.predict_joint_log_proba(new_leaf), plain.predict_joint_log_proba(new_leaf)
    )
    assert np.isfinite(model.predict_proba(X)).all()


def test_naive_bayes_heb_h_partial_fit_with_categories_the_hierarchy_does_not_name():
    rng = np.random.default_rng(9)
    X, y = rng.integers(0, 6, size=(300, 2)), rng.integers(0, 2, size=300)
    first = X[:, 0] < 4
    model = NaiveBayes("heb-h", hierarchies={0: [np.arange(4) // 2]})
    model.partial_fit(X[first], y[first], classes=[0, 1]).partial_fit(X[~first], y[~first])
    padded = NaiveBayes("heb-h", hierarchies={0: [np.array([0, 0, 1, 1, 2, 3])]}).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), padded.predict_proba(X), rtol=1e-12)


def test_level_concentrations_of_a_fitted_model():
    """Every level of the features with a hierarchy; the kept leaves' m is the model's."""
    X, y = _fd_data()
    model = HierarchicalNaiveBayes(fd_tolerance=0.0).fit(X, y)
    assert model.parents_ == {0: 1}
    out = level_concentrations(model)
    assert set(out["feature"]) == {0}  # feature 2 has no hierarchy
    assert list(zip(out["level"], out["class"], strict=True)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    raw = fit_nested(model.count_table_, model.hierarchies_).levels
    mine = raw["feature"] == 0
    np.testing.assert_array_equal(np.sort(out["m"]), np.sort(raw["m"][mine]))
    np.testing.assert_array_equal(out["N_c"], np.bincount(y)[out["class"]])
    diag = model.concentrations_
    leaves = (out["level"] == 0) & out["hierarchy_used"]
    assert leaves.any()
    for c in out["class"][leaves]:
        row = (diag["class"] == c) & (diag["feature"] == 0)
        assert out["m"][leaves & (out["class"] == c)][0] == diag["m"][row][0]
    assert set(out["clamped"]) <= {"low", "none", "high"}
    with pytest.raises(ValueError, match="HEB-H"):
        level_concentrations(NaiveBayes("heb-m").fit(X, y))


def test_fallback_pairs_report_the_mean_number_of_children_per_parent():
    """Tree form below n0: each level's m is its parents' mean number of children (top:
    2 groups under the root; leaves: groups of 3 and 1 leaves, 2 per parent)."""
    fit = fit_nested(HAND, {0: [np.array([0, 0, 0, 1])]}, n0=100, select=None)
    levels = fit.levels
    assert levels["fallback"].all()
    np.testing.assert_array_equal(levels["m"][levels["level"] == 1], [2.0, 2.0])
    np.testing.assert_array_equal(levels["m"][levels["level"] == 0], [2.0, 2.0])
    np.testing.assert_array_equal(fit.smoothed.concentration, [[2.0], [2.0]])


def test_the_scoring_tables_evidence_is_the_leaf_levels(table):
    """The SmoothedTable's fit diagnostics are the leaf level's: its log evidence is the
    sum over parents of the children's evidence toward w at the leaf m."""
    groups = np.arange(12) // 3
    fit = fit_nested(table, {0: [groups]}, select=None, base="pooled")
    pooled = table.counts[:, :12].sum(axis=0)
    for c in range(3):
        n, m = table.counts[c, :12], fit.smoothed.concentration[c, 0]
        want = sum(
            log_evidence(n[groups == g], pooled[groups == g] / pooled[groups == g].sum(), m)
            for g in range(4)
        )
        got = fit.smoothed.fit.log_evidence[c * table.n_features]
        np.testing.assert_allclose(got, want, rtol=1e-9)
