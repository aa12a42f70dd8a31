"""Checks of AODE, TAN and the FD-aware Naive Bayes that their mutation testing found missing.

Each test kills one or more hand-written mutants of ``heb/aode.py``, ``heb/tan.py``,
``heb/tan_structure.py`` or ``heb/hierarchical_nb.py`` that the rest of the suite let
live. They pin AODE's joint log-score (the *mean* of the super-parents' estimates, SPEC
section 4, computed by hand on four rows), its defaults and HEB-AODE's clamp; TAN's class
prior, the boundaries of its caps, the root of a split tree and where a wide feature hangs;
and what the FD-aware model divides a child's factor by, its weights, its detected parents
and its level report.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from heb.aode import AODE
from heb.concentration import M_MAX
from heb.hierarchical_nb import HierarchicalNaiveBayes, level_concentrations
from heb.hierarchy import fit_nested
from heb.nb import NaiveBayes
from heb.tan import TAN

# ----------------------------------------------------------------------------- AODE
#: Four training rows; feature 0's value 0 is seen once, feature 1's value 1 twice.
TINY_X = np.array([[0, 0], [1, 1], [1, 0], [1, 1]])
TINY_Y = np.array([0, 0, 1, 1])


def test_aode_joint_score_is_the_mean_of_the_parents_estimates_by_hand():
    """Pins ``AODE._joint_log_scores`` dividing by the number of qualifying parents
    (``/ n_qualifying``) and the default ``frequency_limit = 1`` (a value seen once
    qualifies).

    Row x = (0, 1), S = 4, C = 2, K = 2 (SPEC 4, Laplace):
    parent 0 (x_0 = 0, seen once): P(y, x_0) = (1 + 1) / 8, (0 + 1) / 8; P(x_1 = 1 | y, x_0)
    = (0 + 1) / (1 + 2), (0 + 1) / (0 + 2): estimates 1/12, 1/16.
    Parent 1 (x_1 = 1): P(y, x_1) = 2/8, 2/8; P(x_0 = 0 | y, x_1) = 1/3, 1/3: 1/12, 1/12.
    Mean: 1/12 = 8/96 and 7/96, so P(y | x) = 8/15, 7/15. With frequency_limit 2 only
    parent 1 qualifies: 1/12, 1/12.
    """
    row = np.array([[0, 1]])
    model = AODE().fit(TINY_X, TINY_Y)
    assert model.frequency_limit == 1
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row), np.log([[8 / 96, 7 / 96]]), rtol=1e-13
    )
    np.testing.assert_allclose(model.predict_proba(row), [[8 / 15, 7 / 15]], rtol=1e-13)
    strict = AODE(frequency_limit=2).fit(TINY_X, TINY_Y)
    np.testing.assert_allclose(
        strict.predict_joint_log_proba(row), np.log([[1 / 12, 1 / 12]]), rtol=1e-13
    )


def test_aode_rows_without_a_parent_raise_no_floating_point_warning():
    """Pins ``top = np.where(any_parent, scores.max(axis=1), 0.0)`` in
    ``AODE._joint_log_scores``: a row with no qualifying parent (all scores -inf) must not
    compute -inf - (-inf) (an "invalid value" RuntimeWarning on every such prediction)."""
    model = AODE().fit(TINY_X, TINY_Y)
    rows = np.array([[-1, -1], [0, 1], [5, -1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_proba = model.predict_log_proba(rows)
    assert np.all(np.isfinite(log_proba))


def _independent_child_codes() -> tuple[np.ndarray, np.ndarray]:
    """Feature 1 depends on the class; feature 2 is noise, so its m runs to the upper clamp."""
    rng = np.random.default_rng(31)
    y = rng.integers(0, 2, 600)
    x0 = (y + (rng.random(600) < 0.2)) % 3
    x1 = (x0 + rng.integers(0, 2, 600)) % 3
    x2 = rng.integers(0, 3, 600)
    return np.column_stack([x0, x1, x2]), y


def test_heb_aode_passes_its_clamp_to_the_solver():
    """Pins ``self.m_min, self.m_max`` passed to ``fit_pair_concentrations`` in
    ``AODE._set_counts``: a child independent of its parent is clamped at ``m_max``, by
    default M_MAX = 1e4, else at the value given."""
    X, y = _independent_child_codes()
    default = AODE(smoother="heb").fit(X, y).pair_concentration_
    assert default.max() == M_MAX
    capped = AODE(smoother="heb", m_max=2.0).fit(X, y)
    assert capped.pair_concentration_.max() == 2.0
    assert "high" in set(capped.concentrations_["clamped"])


def test_heb_aode_accepts_a_clamp_of_one_value():
    """Pins ``0 < self.m_min <= self.m_max`` in ``AODE._validate_params_``: m_min = m_max
    is a fixed m for every fitted group (fallback groups keep m = K_j = 3)."""
    X, y = _independent_child_codes()
    model = AODE(smoother="heb", m_min=3.0, m_max=3.0).fit(X, y)
    np.testing.assert_array_equal(model.pair_concentration_, 3.0)


def test_aode_refuses_a_zero_concentration():
    """Pins ``m > 0`` of the ``concentration`` check in ``AODE._set_counts``: m = 0 would
    make an unseen cell log 0 = -inf."""
    model = AODE(smoother="heb").fit(TINY_X, TINY_Y)
    zeros = np.zeros_like(model.pair_concentration_)
    with pytest.raises(ValueError, match="concentration must be positive"):
        model.fit_counts(model.count_table_, model.joint_counts_, concentration=zeros)


# ----------------------------------------------------------------------------- TAN
def test_tan_class_prior_is_a_distribution_by_hand():
    """Pins ``table.n_samples + self.alpha * C`` in ``TAN._set_counts``: with alpha = 0.5,
    three rows of class 0 and one of class 1, P(y) = 3.5 / 5 and 1.5 / 5; the joint score
    of a row with every value missing is that prior."""
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    y = np.array([0, 0, 0, 1])
    model = TAN().fit(X, y)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.7, 0.3], rtol=1e-13)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(np.array([[-1, -1]])), np.log([[0.7, 0.3]]), rtol=1e-13
    )


def _three_binary_and_one_wide() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(32)
    y = rng.integers(0, 2, 400)
    x0 = (y + (rng.random(400) < 0.3)) % 2
    x1 = (x0 + (rng.random(400) < 0.2)) % 2
    x2 = (x1 + (rng.random(400) < 0.2)) % 2
    x3 = rng.integers(0, 10, 400)
    return np.column_stack([x0, x1, x2, x3]), y


def test_tan_joint_cap_holds_a_pair_at_exactly_the_cap_and_roots_the_first_tree():
    """Pins ``<= max_joint_cells`` in ``PairCounts.layout`` and ``roots[0]`` for ``root_``
    in ``TAN._set_counts``.

    C K_i K_j = 2 * 2 * 2 = 8 = max_joint_cells: the three binary features are linked (two
    arcs). Feature 3 (K = 10, 40 cells with anyone) is linked to nothing but may parent, so
    it is a one-node tree; ``root_`` is the root of the tree of the binary features.
    """
    X, y = _three_binary_and_one_wide()
    model = TAN(max_joint_cells=8).fit(X, y)
    assert model.pair_counts_.n_pairs == 3
    parents = model.parents_
    assert parents[3] == -1 and (parents[:3] >= 0).sum() == 2
    assert model.root_ in (0, 1, 2) and parents[model.root_] == -1


def test_tan_parent_cap_allows_a_feature_at_exactly_the_cap():
    """Pins ``k <= self.max_parent_cardinality`` in ``TAN._set_counts``: with every K = 2
    and the cap 2, every feature may parent and the tree has F - 1 arcs."""
    X, y = _three_binary_and_one_wide()
    model = TAN(max_parent_cardinality=2).fit(X[:, :3], y)
    assert (model.parents_ >= 0).sum() == 2
    assert model.root_ == int(np.flatnonzero(model.parents_ < 0)[0])


def test_tan_pair_cap_at_exactly_f_f_minus_one_counts_every_pair():
    """Pins ``k.size * (k.size - 1) <= max_pairs`` in ``PairCounts.layout``: 4 features,
    12 ordered pairs, max_pairs = 12 holds the 6 unordered pairs and links a tree (no note,
    and not Naive Bayes in silence)."""
    X, y = _three_binary_and_one_wide()
    model = TAN(max_pairs=12).fit(X, y)
    assert model.notes_ == []
    assert model.pair_counts_.n_pairs == 6
    assert (model.parents_ >= 0).sum() == 3


def test_tan_wide_feature_hangs_below_its_strongest_partner():
    """Pins ``np.argmax`` over the leaves' options in ``spanning_tree``: feature 2 (K = 6,
    over the parent cap 5) is 2 x_0 + a coin, independent of feature 1, so it hangs below
    feature 0, the parent-capable feature of largest arc gain."""
    rng = np.random.default_rng(33)
    y = rng.integers(0, 2, 500)
    x0 = (y + rng.integers(0, 2, 500)) % 3
    x1 = rng.integers(0, 3, 500)
    x2 = 2 * x0 + rng.integers(0, 2, 500)
    model = TAN(max_parent_cardinality=5).fit(np.column_stack([x0, x1, x2]), y)
    assert model.n_categories_.tolist() == [3, 3, 6]
    assert model.arc_gain_[2, 0] > model.arc_gain_[2, 1]
    assert model.parents_[2] == 0


# ----------------------------------------------------------------------------- FD-aware NB
def _fd_codes(n: int = 1200, seed: int = 34) -> tuple[np.ndarray, np.ndarray]:
    """Leaf (40 values) -> group (leaf // 8) -> region (leaf // 16), and a noise column."""
    rng = np.random.default_rng(seed)
    leaf = rng.integers(0, 40, n)
    y = ((leaf % 7 < 3) ^ (rng.random(n) < 0.15)).astype(int)
    return np.column_stack([leaf, leaf // 8, leaf // 16, rng.integers(0, 4, n)]), y


def _group_log_phi(plain: NaiveBayes, feature: int, groups: np.ndarray) -> np.ndarray:
    """log phi_c(g) = log sum of the seen leaves' theta_c, from a plain model's table."""
    table = plain.count_table_
    cols = slice(table.offsets[feature], table.offsets[feature + 1])
    seen = table.category_totals()[cols] > 0
    theta = np.exp(plain.feature_log_prob_[:, cols]) * seen
    return np.log(np.stack([theta[:, groups == g].sum(axis=1) for g in range(groups.max() + 1)]))


def test_fd_detection_links_each_child_to_its_finest_parent():
    """Pins ``chain[0]`` in ``detect_hierarchies``: leaf -> group -> region gives the parents
    {leaf: group, group: region}, never the coarsest level (region) for the leaf."""
    X, y = _fd_codes()
    model = HierarchicalNaiveBayes(fd_tolerance=0.0).fit(X, y)
    assert model.parents_ == {0: 1, 1: 2}


def test_fd_default_tolerance_finds_an_approximate_dependency():
    """Pins the default ``fd_tolerance = 0.05``: 6 rows of 1,200 breaking leaf -> group
    (lambda about 0.995) still make group the leaf's parent; tolerance 0 finds no parent
    for the leaf."""
    X, y = _fd_codes()
    X = X[:, [0, 1, 3]]
    X[:6, 1] = (X[:6, 1] + 1) % 5
    assert HierarchicalNaiveBayes().fd_tolerance == 0.05
    assert HierarchicalNaiveBayes().fit(X, y).parents_ == {0: 1}
    assert 0 not in HierarchicalNaiveBayes(fd_tolerance=0.0).fit(X, y).parents_


def test_fd_refuses_a_feature_as_its_own_parent():
    """Pins ``a == b`` in ``HierarchicalNaiveBayes._learn_structure`` (its own sentence:
    "without a hierarchy of their own" misled where feature 0 has one)."""
    X, y = _fd_codes(200)
    with pytest.raises(ValueError, match=r"parents names features \[0\] as their own parents"):
        HierarchicalNaiveBayes(hierarchies={0: [np.arange(40) // 8]}, parents={0: 0}).fit(X, y)


def test_fd_with_heb_m_scores_the_child_given_its_parent():
    """Pins ``self._levels if self.smoother == "heb-h" else {}`` in
    ``HierarchicalNaiveBayes._smooth``: HEB-M gets no hierarchy, yet the child is still
    divided by its group's HEB-M mass."""
    X, y = _fd_codes()
    X = X[:, [0, 1, 3]]
    model = HierarchicalNaiveBayes(smoother="heb-m", fd_tolerance=0.0).fit(X, y)
    plain = NaiveBayes(smoother="heb-m").fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, plain.feature_log_prob_, rtol=1e-12)
    rows = np.array([[3, 0, 1], [17, 2, 0]])
    log_phi = _group_log_phi(plain, 0, np.arange(40) // 8)
    expected = plain.predict_joint_log_proba(rows) - log_phi[[0, 2]]
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-12)


def test_fd_group_mass_leaves_out_unseen_leaves():
    """Pins ``np.where(smoothed.seen[cols], ..., 0.0)`` in ``_group_tables``: leaf 2 is in
    range (K = 4) but never seen, so group 1 = {2, 3} has mass theta_c(3) alone and the
    child factor of leaf 3 given its group is 1."""
    rng = np.random.default_rng(35)
    leaf = rng.choice([0, 1, 3], 300)
    y = ((leaf == 3) ^ (rng.random(300) < 0.2)).astype(int)
    X = np.column_stack([leaf, leaf // 2])
    hierarchy = {0: [np.array([0, 0, 1, 1])]}
    model = HierarchicalNaiveBayes(hierarchies=hierarchy, parents={0: 1}).fit(X, y)
    plain = NaiveBayes("heb-h", hierarchies=hierarchy).fit(X, y)
    row = np.array([[3, 1]])
    expected = plain.predict_joint_log_proba(row) - plain.feature_log_prob_[:, 3]
    np.testing.assert_allclose(model.predict_joint_log_proba(row), expected, rtol=1e-12)


def test_fd_parent_value_never_seen_is_not_the_childs_group():
    """Pins ``ok[ok] &= seen[table.offsets[b] + xb[ok]]`` in ``predict_joint_log_proba``:
    the given hierarchy puts leaf 2 in group 1, a parent value in range (K = 3) but never
    seen; a row (2, 1) has no parent evidence, so the leaf keeps its full factor."""
    rng = np.random.default_rng(36)
    leaf = rng.integers(0, 5, 300)
    y = ((leaf > 2) ^ (rng.random(300) < 0.2)).astype(int)
    parent = np.array([0, 0, 0, 2, 2])[leaf]  # leaf 2 is seen with 0 only: value 1 unseen
    X = np.column_stack([leaf, parent])
    hierarchy = {0: [np.array([0, 0, 1, 2, 2])]}
    model = HierarchicalNaiveBayes(hierarchies=hierarchy, parents={0: 1}).fit(X, y)
    assert model.n_categories_.tolist() == [5, 3]
    plain = NaiveBayes("heb-h", hierarchies=hierarchy).fit(X, y)
    row = np.array([[2, 1]])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row), plain.predict_joint_log_proba(row), rtol=1e-12
    )


def test_fd_weighted_child_divides_by_its_weighted_group_mass():
    """Pins ``w = weights[a]`` in ``predict_joint_log_proba``: with sqrt-MI weights the
    child's factor is (theta / phi)^w_a, so w_a log phi is taken off the weighted NB score."""
    X, y = _fd_codes()
    X = X[:, [0, 1, 3]]
    model = HierarchicalNaiveBayes(weighting="sqrt-mi", fd_tolerance=0.0).fit(X, y)
    plain = NaiveBayes("heb-h", weighting="sqrt-mi", hierarchies=model.hierarchies_).fit(X, y)
    weight = plain.feature_weights_[0]
    assert 0.0 < weight < 0.9
    rows = np.array([[3, 0, 1], [17, 2, 0]])
    log_phi = _group_log_phi(plain, 0, np.arange(40) // 8)
    expected = plain.predict_joint_log_proba(rows) - weight * log_phi[[0, 2]]
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-12)


def test_level_report_names_the_clamps_and_counts_observed_rows():
    """Pins ``_CLAMP_NAMES[clamped + 1]`` and ``class_feature_totals`` in
    ``level_concentrations``: -1 / 0 / 1 read "low" / "none" / "high", and N_c counts the
    rows of class c where the feature is observed (SPEC 1), not every row of the class."""
    X, y = _fd_codes()
    X = X[:, [0, 1, 3]]
    X[::9, 0] = -1
    hierarchy = {0: [np.arange(40) // 8]}
    model = HierarchicalNaiveBayes(hierarchies=hierarchy, parents={0: 1}, m_max=0.05).fit(X, y)
    out = level_concentrations(model)
    observed = X[:, 0] >= 0
    np.testing.assert_array_equal(out["N_c"], [(observed & (y == c)).sum() for c in out["class"]])
    raw = fit_nested(model.count_table_, hierarchy, m_max=0.05).levels
    mine = raw["feature"] == 0
    order = np.lexsort((raw["class"][mine], raw["level"][mine]))
    raw_names = {-1: "low", 0: "none", 1: "high"}
    expected = [raw_names[int(c)] for c in raw["clamped"][mine][order]]
    assert out["clamped"].tolist() == expected
    assert "high" in set(out["clamped"])
