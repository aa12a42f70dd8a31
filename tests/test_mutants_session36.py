"""Session 36's mutation round on three modules no earlier round targeted:
``heb/concentration_score.py`` (the vectorised score, curvature and evidence of the
concentration solver), ``heb/hierarchy_nodes.py`` (HEB-H's node layout and learned base)
and ``heb/data/sorted_floats.py`` (a numeric column's floats sorted once per fold).

Each test kills hand-written mutants the rest of the suite let live, named in its
docstring; the expected values are computed by hand or by scipy / numpy directly
(``gammaln``, ``digamma``, ``polygamma``, ``minimize_scalar``, ``np.median``,
``np.searchsorted``), never by the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special
from scipy.optimize import minimize_scalar

from heb.concentration_score import CHUNK_TERMS, RationalTerms, Score, ragged_arange
from heb.counts import CountTable
from heb.data.sorted_floats import (
    SortedByClass,
    SortedByFold,
    bin_codes,
    order_statistics_without,
    ranked_median,
)
from heb.hierarchy_nodes import HierarchyNodes, base_shares, without_root_levels


# ----------------------------------------------------------------- concentration_score
def _reference(items, docs, n_groups, m):
    """l(m), l'(m), l''(m), l'''(m) per group straight from gammaln / polygamma: items
    add w [f(m t + n) - f(m t)] t^k, documents subtract w [f(m + N) - f(m)]."""
    group, t, n, w = items
    d_group, d_n, d_w = docs
    w = np.ones(n.size) if w is None else w
    d_w = np.ones(d_n.size) if d_w is None else d_w
    x, y = m[group] * t, m[d_group]
    out = np.zeros((4, n_groups))
    for order in range(4):
        if order == 0:
            gain = special.gammaln(x + n) - special.gammaln(x)
            loss = special.gammaln(y + d_n) - special.gammaln(y)
        else:
            gain = special.polygamma(order - 1, x + n) - special.polygamma(order - 1, x)
            loss = special.polygamma(order - 1, y + d_n) - special.polygamma(order - 1, y)
        out[order] = np.bincount(group, w * gain * t**order, n_groups)
        out[order] -= np.bincount(d_group, d_w * loss, n_groups)
    return out


def _groups(rng, n_groups, n_items, weighted, counts=(1.0, 2.0, 3.0, 7.0, 16.0, 17.0, 2.5)):
    """Items sorted by group (equal priors recur within a group) and two documents per
    group whose totals mix small integers, 16, a large and a fractional total."""
    group = np.sort(rng.integers(0, n_groups, n_items))
    t = rng.choice([0.05, 0.2, 0.5], n_items)
    order = np.lexsort((t, group))  # by t within a group: equal (group, t) are adjacent
    group, t = group[order], t[order]
    n = rng.choice(counts, n_items)
    w = rng.integers(1, 4, n_items).astype(float) if weighted else None
    d_group = np.repeat(np.arange(n_groups), 2)
    d_n = rng.choice([1.0, 4.0, 16.0, 30.0, 5.5], d_group.size)
    d_w = rng.integers(1, 3, d_group.size).astype(float) if weighted else None
    return (group, t, n, w), (d_group, d_n, d_w)


@pytest.mark.parametrize("weighted", [False, True])
def test_score_derivatives_and_evidence_equal_scipy(weighted):
    """Kills the score's mutants: fractional counts taken as small integers, documents
    added to (not subtracted from) the k = 0 coefficient, the large items counted among
    the small ones, a document's n - 1 terms made n, the third derivative's t^3 made
    t^2 or its sign flipped, the documents' first sum added, the evidence without its
    sum of w n log t (or unweighted) or without its log Gamma(m t) terms, terms of equal
    (group, t) shared regardless of t, a shared term's weight kept one k too few, the
    weights of small items, small documents or large documents dropped, the second
    derivative's t^2 made t, and a coefficient of psi''s asymptotic series changed."""
    rng = np.random.default_rng(36)
    n_groups = 7
    items, docs = _groups(rng, n_groups, 300, weighted)
    score = Score(items, docs, n_groups)
    for m in (np.full(n_groups, 0.3), np.geomspace(0.05, 400.0, n_groups)):
        ref = _reference(items, docs, n_groups, m)
        np.testing.assert_allclose(score.evidence(m), ref[0], rtol=1e-10)
        np.testing.assert_allclose(score.first_derivative(m), ref[1], rtol=1e-9, atol=1e-9)
        d = score.derivatives(m)
        np.testing.assert_allclose(d[0], ref[1], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(d[1:], ref[2:], rtol=1e-4)


def test_score_restricted_to_some_groups_renumbers_them():
    """Kills ``Score.restrict`` keeping the old group ids (``new_id`` not cumsum - 1, or
    the rational runs not renumbered) and keeping every document's terms."""
    rng = np.random.default_rng(7)
    n_groups = 6
    items, docs = _groups(rng, n_groups, 120, weighted=False)
    score = Score(items, docs, n_groups)
    keep = np.array([False, True, False, True, True, False])
    m = np.array([0.4, 3.0, 50.0])
    full = np.ones(n_groups)
    full[keep] = m
    ref = _reference(items, docs, n_groups, full)
    d = score.restrict(keep).derivatives(m)
    np.testing.assert_allclose(d[0], ref[1][keep], rtol=1e-9)
    np.testing.assert_allclose(d[1:], ref[2:][:, keep], rtol=1e-4)


def test_score_of_more_terms_than_one_chunk():
    """Kills ``_run_sums`` reducing a later chunk at offsets not shifted by its first term
    (only a score of more than CHUNK_TERMS rational terms has a second chunk)."""
    rng = np.random.default_rng(3)
    n_groups = 40
    n_items = 3 * CHUNK_TERMS // 7  # about 7 terms each (counts up to 16): three chunks
    group = np.sort(rng.integers(0, n_groups, n_items))
    t = rng.uniform(0.01, 0.5, n_items)
    n = rng.integers(1, 17, n_items).astype(float)
    d_group = np.arange(n_groups)
    d_n = np.bincount(group, n, n_groups)
    items, docs = (group, t, n, None), (d_group, d_n, None)
    score = Score(items, docs, n_groups)
    assert score.items.a.size > 2 * CHUNK_TERMS
    m = np.geomspace(0.1, 100.0, n_groups)
    ref = _reference(items, docs, n_groups, m)
    np.testing.assert_allclose(score.first_derivative(m), ref[1], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(score.evidence(m), ref[0], rtol=1e-10)


def test_rational_terms_of_counts_above_the_small_limit_by_hand():
    """Kills :meth:`RationalTerms.expand`'s general path (more than SMALL_COUNT terms in
    an item, reachable by a direct call) numbering each item's k from the run's end."""
    reps = np.array([2, 0, 18, 1])
    t = np.array([0.5, 0.1, 2.0, 0.25])
    terms = RationalTerms.expand(t, reps, np.array([0, 2, 4]))
    expected = [1 / 0.5, 2 / 0.5] + [k / 2.0 for k in range(1, 19)] + [1 / 0.25]
    np.testing.assert_allclose(terms.a, expected, rtol=1e-15)
    assert terms.runs.sizes.tolist() == [2, 19]


def test_ragged_arange_by_hand():
    """Kills ``ragged_arange`` without its ``+ lengths`` shift."""
    out = ragged_arange(np.array([5, 0, 9]), np.array([2, 0, 3]))
    assert out.tolist() == [5, 6, 9, 10, 11]


# ----------------------------------------------------------------------- hierarchy_nodes
#: feature 0: 4 leaves in 2 groups; feature 1: 3 leaves, no hierarchy; feature 2: 6
#: leaves in 3 groups in 2 top groups
LEVELS = {0: [np.array([0, 0, 1, 1])], 2: [np.array([0, 0, 1, 1, 2, 2]), np.array([0, 0, 1])]}


def _table(leaf_counts) -> CountTable:
    counts = np.atleast_2d(np.asarray(leaf_counts, dtype=float))
    return CountTable(counts[:, :4].sum(axis=1), counts, np.array([0, 4, 7, 13]))


def test_nodes_layout_by_hand():
    """Kills ``HierarchyNodes.build`` dropping the level codes from the parent ids, the
    roots of all features sharing one parent key (siblings across features), and
    ``aggregate`` skipping a feature's top level."""
    table = _table([[1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6]])
    nodes = HierarchyNodes.build(table, LEVELS)
    assert nodes.step_bounds.tolist() == [0, 7, 14, 20]
    assert nodes.leaf.tolist() == [7, 8, 9, 10, 2, 3, 4, 14, 15, 16, 17, 18, 19]
    parent = [-1] * 7 + [0, 0, 1, 1, 5, 5, 6] + [11, 11, 12, 12, 13, 13]
    assert nodes.parent.tolist() == parent
    assert nodes.siblings.tolist() == [2, 2, 3, 3, 3, 2, 2] + [2] * 6 + [1] + [2] * 6
    pooled = nodes.aggregate(table.counts)[0]
    # f0: groups 1 + 2, 3 + 4; f1 leaves; f2 top (1 + 2 + 3 + 4, 5 + 6), mid (3, 7, 11)
    assert pooled[:7].tolist() == [3, 7, 5, 6, 7, 10, 11]
    assert pooled[11:14].tolist() == [3, 7, 11]


def test_down_multiplies_shares_from_the_root():
    """Kills ``down`` treating the node with global id 0 as a root (``parent <= 0``)."""
    nodes = HierarchyNodes.build(_table(np.ones(13)), LEVELS)
    share = np.arange(1.0, 21.0) / 10
    out = nodes.down(share)
    assert out[7] == pytest.approx(share[0] * share[7])  # leaf 0 of feature 0, parent 0
    assert out[14] == pytest.approx(share[5] * share[11] * share[14])
    assert out[2] == pytest.approx(share[2])


def test_without_root_levels_cuts_a_level_of_one_node():
    """Kills ``without_root_levels`` keeping a level whose nodes all share one parent."""
    levels = {0: [np.array([0, 1, 1, 2]), np.array([0, 0, 0])]}  # 3 groups, then 1 node
    cut = without_root_levels(levels)
    assert len(cut[0]) == 1 and cut[0][0].tolist() == [0, 1, 1, 2]


def _log_evidence(n, b):
    """Dirichlet-multinomial log evidence of counts ``n`` under Dir(b / K, ..., b / K)."""
    n = np.asarray(n, dtype=float)
    a = b / n.size
    return (
        special.gammaln(b)
        - special.gammaln(b + n.sum())
        + np.sum(special.gammaln(a + n) - special.gammaln(a))
    )


def _best_b(splits) -> float:
    best = minimize_scalar(
        lambda log_b: -sum(_log_evidence(n, np.exp(log_b)) for n in splits),
        bounds=(np.log(1e-2), np.log(1e4)), method="bounded", options={"xatol": 1e-12},
    )  # fmt: skip
    return float(np.exp(best.x))


#: one feature: 6 leaves under 3 parents under the root; parent 2 has no row, leaf 1 none
ONE = {0: [np.array([0, 0, 1, 1, 2, 2])]}
ONE_COUNTS = np.array([[9.0, 0.0, 1.0, 4.0, 0.0, 0.0], [3.0, 0.0, 2.0, 1.0, 0.0, 0.0]])


def _one_table(counts) -> CountTable:
    return CountTable(counts.sum(axis=1), counts, np.array([0, counts.shape[1]]))


def test_learned_base_by_hand():
    """Kills ``base_shares`` with a parent of no row counted as a document, w's
    denominator N_parent + b / n, totals summed over every level, the concentration of a
    fallback kept, the root step counted as having parents, and shares of children of a
    parent with no row made 0 (not 1 / n)."""
    nodes = HierarchyNodes.build(_one_table(ONE_COUNTS), ONE)
    pooled = nodes.aggregate(ONE_COUNTS).sum(axis=0)  # parents 12, 8, 0
    assert pooled.tolist() == [12, 8, 0, 12, 0, 3, 5, 0, 0]
    b = _best_b([(12, 0), (3, 5)])
    assert 0.1 < b < 1e3
    out = base_shares(nodes, pooled)
    np.testing.assert_allclose(out.concentration[1], [b], rtol=1e-6)
    assert np.isnan(out.concentration[0]).all() and not out.fallback.any()
    expected = [12 / 20, 8 / 20, 0.0]  # the top: N_node / S_f
    expected += [(12 + b / 2) / (12 + b), (b / 2) / (12 + b)]
    expected += [(3 + b / 2) / (8 + b), (5 + b / 2) / (8 + b), 0.5, 0.5]
    np.testing.assert_allclose(out.share, expected, rtol=1e-6)
    records = out.records(nodes)
    assert records["feature"].tolist() == [0] and records["level"].tolist() == [0]
    np.testing.assert_allclose(records["b"], [b], rtol=1e-6)
    pooled_base = base_shares(nodes, pooled, base="pooled")
    assert pooled_base.share[7:].tolist() == [0.5, 0.5]  # a parent with no row: 1 / n
    with pytest.raises(ValueError, match="base must be one of"):
        base_shares(nodes, pooled, base="nested")


def test_learned_base_at_exactly_n0_rows_is_learned():
    """Kills the fallback's ``totals < n0`` made ``<=``: 20 rows with n0 = 20 learn b."""
    nodes = HierarchyNodes.build(_one_table(ONE_COUNTS), ONE)
    pooled = nodes.aggregate(ONE_COUNTS).sum(axis=0)
    assert not base_shares(nodes, pooled, n0=20).fallback.any()
    assert base_shares(nodes, pooled, n0=21).fallback[1].tolist() == [True]


def test_flat_evidence_falls_back_to_laplace_within_each_parent():
    """Kills the fallback without ``fit.flat`` and the fallback's b = 1 (not n): with
    every parent seen in at most one row, b = n and w = (N_node + 1) / (N_parent + n)."""
    counts = np.array([[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]])
    nodes = HierarchyNodes.build(_one_table(counts), ONE)
    pooled = nodes.aggregate(counts).sum(axis=0)
    out = base_shares(nodes, pooled, n0=0)
    assert out.fallback[1].tolist() == [True] and np.isnan(out.concentration).all()
    np.testing.assert_allclose(out.share[3:], [2 / 3, 1 / 3, 1 / 3, 2 / 3, 0.5, 0.5])


# ------------------------------------------------------------------------- sorted_floats
def test_sorted_by_class_missing_and_bin_counts_equal_searchsorted():
    """Kills ``SortedByClass.of`` with no missing count and ``bin_counts`` putting a value
    equal to a cut in the lower bin (``side="right"`` in the per-class search)."""
    values = np.array([3.0, np.nan, 1.0, 2.0, 2.0, np.nan, 5.0, 2.0])
    y = np.array([0, 0, 1, 1, 0, 1, 1, 0])
    by_class = np.argsort(y, kind="stable")
    bounds = np.array([0, 4, 8])
    s = SortedByClass.of(values, by_class, bounds)
    assert s.missing.tolist() == [1, 1]
    cuts = np.array([2.0, 3.0])
    finite = ~np.isnan(values)
    codes = np.searchsorted(cuts, values[finite], side="right")
    expected = np.zeros((2, 3), dtype=int)
    np.add.at(expected, (y[finite], codes), 1)
    assert s.bin_counts(cuts).tolist() == expected.tolist() == [[0, 2, 1], [1, 1, 1]]


def _two_folds():
    values = np.array([4.0, np.nan, 1.0, 2.0, 2.0, 7.0, np.nan, 3.0, 2.0, 9.0])
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
    tests = (np.array([0, 1, 2, 3, 4]), np.array([5, 6, 7, 8, 9]))
    groups = []
    for test in tests:
        order = test[np.argsort(y[test], kind="stable")]
        groups.append((order, np.array([0, np.sum(y[test] == 0), test.size])))
    return values, y, tests, SortedByFold.of(values, tests, groups)


def test_sorted_by_fold_by_hand():
    """Kills ``SortedByFold`` counting the first fold's bins alone, with its first
    finite float dropped, ``distinct`` without
    its first value, ``missing`` of the first fold alone and ``fold_of`` finding no
    fold."""
    values, y, tests, s = _two_folds()
    finite = ~np.isnan(values)
    cuts = np.array([2.0, 4.0])
    expected = np.zeros((2, 3), dtype=int)
    np.add.at(expected, (y[finite], np.searchsorted(cuts, values[finite], side="right")), 1)
    assert s.bin_counts(cuts).tolist() == expected.tolist() == [[1, 2, 1], [0, 2, 2]]
    assert s.sorted_all.tolist() == [1.0, 2.0, 2.0, 2.0, 3.0, 4.0, 7.0, 9.0]
    assert s.distinct.tolist() == np.unique(values[~np.isnan(values)]).tolist()
    assert s.missing.tolist() == [1, 1]
    assert s.fold_of(tests[1].copy()) is s.folds[1]


def test_training_order_statistics_and_median_equal_numpy():
    """Kills ``order_statistics_without`` counting the removed floats below (not up to) a
    value, ``training_order_statistic`` taking unsorted test floats as sorted, and
    ``ranked_median`` of an odd count averaging two values or of an even one taking one."""
    values, _, tests, s = _two_folds()
    for test in tests:
        kept = np.sort(np.delete(values, test))
        kept = kept[~np.isnan(kept)]
        for removed in (s.fold_of(test), values[test][~np.isnan(values[test])][::-1]):
            stat = s.training_order_statistic(removed)
            assert stat(np.arange(kept.size)).tolist() == kept.tolist()
            assert ranked_median(stat, kept.size) == np.median(kept)
    sorted_values = np.array([1.0, 2.0, 4.0, 7.0, 11.0])  # medians 3 and 4
    for n in (4, 5):
        stat = order_statistics_without(sorted_values[:n], [])
        assert ranked_median(stat, n) == np.median(sorted_values[:n])


def test_bin_codes_put_a_value_equal_to_a_cut_above_it():
    """Kills ``bin_codes``' comparison ``>=`` made ``>`` (few cuts)."""
    cuts = np.array([1.0, 2.5, 4.0])
    values = np.array([0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 9.0])
    expected = np.searchsorted(cuts, values, side="right")
    assert bin_codes(cuts, values).tolist() == expected.tolist() == [0, 1, 1, 2, 2, 3, 3]
