"""Tests from session 40's mutation pass over the engine modules earlier passes touched
least (the log tables, pair smoothing, hierarchy nodes and sources, the synthetic
studies, the expected MI, the TAN structure and the count tables): each pins behaviour a
hand-written mutant changed unseen."""

from __future__ import annotations

import functools
import operator
import re

import numpy as np
import pandas as pd
import pytest

import heb.expected_mi
import heb.synthetic
import heb.synthetic_hierarchy
from heb.concentration import M_MAX, M_MIN, fit_concentration_rows
from heb.counts import MAX_TABLE_CELLS, CountTable, as_codes, category_offsets
from heb.log_tables import TableSums
from heb.nb import NaiveBayes
from heb.smoothing import smooth
from heb.synthetic import high_cardinality_preset, sample_naive_bayes, single_pmf_estimates
from heb.synthetic_hierarchy import hierarchy_l1_study, tree_pmfs, zip_levels
from heb.tan_structure import PairCounts, _sequential_sums, arc_gains, spanning_tree


# ------------------------------------------------------------------ TAN structure
def test_sequential_sums_add_left_to_right_as_java_does():
    """1 + 1e-16 rounds back to 1 at each step of a left-to-right sum, so sixteen such
    terms leave 1.0; numpy's pairwise ``sum`` adds the small terms together first (eight
    accumulators) and ends at 1 + 2.2e-16. Weka's arc order rests on the former."""
    terms = np.array([1.0] + [1e-16] * 15 + [2.0] + [1e-16] * 9)
    segment = np.repeat([0, 1], [16, 10])
    out = _sequential_sums(segment, terms, 3)
    expected = [
        functools.reduce(operator.add, terms[:16].tolist()),
        functools.reduce(operator.add, terms[16:].tolist()),
        0.0,
    ]
    assert out.tolist() == expected
    assert out[0] == 1.0 and out[1] == 2.0


# ------------------------------------------------------------------ log tables
def _kept(X, y, k):
    """A table counted from few rows (it keeps its sums: the seen-column paths)."""
    table = CountTable.from_codes(np.array(X), np.array(y), 2, np.array(k))
    assert getattr(table, "_sums", None) is not None
    return table


def _plain(counts, k):
    """A table built from its counts (no kept sums: the dense-sum paths)."""
    counts = np.asarray(counts, dtype=float)
    return CountTable(counts.sum(axis=1) / len(k), counts, category_offsets(k))


def _cells(shape, where):
    out = np.zeros(shape)
    for (c, v), n in where.items():
        out[c, v] = n
    return out


#: tables that take the sparse log-table paths: a first column never seen, a small
#: feature after a wide one, a never-observed feature between two others, one seen
#: column in the last feature, equal K with a marginal prior that varies
LOG_TABLE_CASES = {
    "kept, uneven K, first column unseen": lambda: _kept(
        [[3, 0, -1], [7, 1, -1], [3, 2, -1], [7, 0, -1]], [0, 1, 0, 1], [50, 40, 30]
    ),
    "kept, a small feature after a wide one": lambda: _kept([[3, 0], [7, 1]], [0, 1], [50, 2]),
    "kept, not sparse, a feature never observed": lambda: _kept(
        [[0, 1, -1], [1, 2, -1], [2, 0, -1], [0, 0, -1], [1, 1, -1]], [0, 1, 0, 1, 0], [3, 3, 3]
    ),
    "plain, equal K, varying marginal": lambda: _plain(
        _cells((2, 120), {(0, 3): 2, (1, 7): 1, (0, 7): 1, (1, 45): 1, (0, 85): 1, (1, 85): 3}),
        [40, 40, 40],
    ),
    "plain, middle feature never observed": lambda: _plain(
        _cells((2, 120), {(0, 3): 2, (1, 7): 1, (0, 100): 2, (1, 100): 1}), [50, 30, 40]
    ),
}


@pytest.mark.parametrize("case", list(LOG_TABLE_CASES))
@pytest.mark.parametrize("smoother", ["heb-m", "heb-u", "m-estimate"])
def test_sparse_log_tables_equal_the_dirichlet_formula_by_hand(case, smoother):
    """log theta = log((N_cfv + m_cf t_v) / (N_cf + m_cf)) at every seen column (0 at the
    unseen ones), t the uniform 1/K_f or the marginal N_fv / S_f (uniform for a feature
    never observed), with the m_cf the smoother reports: the sparse paths (a zero count of
    a seen column as one value per pair, a constant prior read at the feature's first
    column, the seen columns' N_cf) agree with the formula written cell by cell."""
    table = LOG_TABLE_CASES[case]()
    kw = {"n0": 0} if smoother.startswith("heb") else {}
    smoothed = smooth(table, smoother, **kw)
    counts = np.array(table.counts)
    k, col = table.n_categories, table.feature_of_column
    n_cf = np.add.reduceat(counts, table.offsets[:-1], axis=1)
    n_fv = counts.sum(axis=0)
    s_f = np.add.reduceat(n_fv, table.offsets[:-1])
    uniform = np.repeat(1.0 / k, k)
    if smoother == "heb-u":
        t = uniform
    else:
        t = np.where(np.repeat(s_f, k) > 0, n_fv / np.repeat(np.maximum(s_f, 1), k), uniform)
    m = smoothed.concentration[:, col]
    with np.errstate(divide="ignore"):  # log 0 at unseen columns, replaced by 0
        expected = np.where(n_fv > 0, np.log((counts + m * t) / (n_cf[:, col] + m)), 0.0)
    np.testing.assert_allclose(smoothed.log_theta, expected, rtol=0, atol=1e-12)


def test_seen_column_sums_give_a_never_observed_middle_feature_no_rows():
    """N_cf summed over the seen columns only: a feature with no seen column between two
    others sums to 0, not to the next feature's first seen column, so HEB-M's fit sees
    no document there (it learned m = 0.01 from the neighbour's rows)."""
    table = LOG_TABLE_CASES["plain, middle feature never observed"]()
    sums = TableSums(table)
    np.testing.assert_array_equal(sums.n_cf, [[2.0, 0.0, 2.0], [1.0, 0.0, 1.0]])
    np.testing.assert_array_equal(sums.n_cf, table.class_feature_totals())
    fit = smooth(table, "heb-m", n0=0)
    np.testing.assert_array_equal(fit.concentration[:, 1], [1.0, 1.0])


# ------------------------------------------------------------------ synthetic studies
def test_zip_levels_by_hand():
    """Two regions of three prefixes of two codes: code -> prefix is code // 2 and
    prefix -> region is prefix // 3 (prefixes 0-2 in region 0, 3-5 in region 1)."""
    to_prefix, to_region = zip_levels(2, 3, 2)
    assert to_prefix.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert to_region.tolist() == [0, 0, 0, 1, 1, 1]


def test_single_pmf_estimates_by_hand():
    """Counts (3, 0, 1), K = 3, N = 4: Laplace (n + 1) / (N + 3), Lidstone (n + a) /
    (N + 3a), KT (n + 1/2) / (N + 3/2), the m-estimate (n + m/3) / (N + m); no rows
    gives the uniform PMF unsmoothed."""
    n = np.array([[3.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    cases = {
        "laplace": ({}, [4 / 7, 1 / 7, 2 / 7]),
        "lidstone": ({"alpha": 0.1}, [3.1 / 4.3, 0.1 / 4.3, 1.1 / 4.3]),
        "kt": ({}, [3.5 / 5.5, 0.5 / 5.5, 1.5 / 5.5]),
        "m-estimate": ({"m": 6.0}, [5 / 10, 2 / 10, 3 / 10]),
        "unsmoothed": ({}, [3 / 4, 0.0, 1 / 4]),
    }
    for name, (kw, first) in cases.items():
        est = single_pmf_estimates(n, name, **kw)
        np.testing.assert_allclose(est[0], first, rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(est[1], [1 / 3] * 3, rtol=1e-12, err_msg=name)


# ------------------------------------------------------------------ expected MI
@pytest.mark.parametrize("chunk", [1, 5, 64])
def test_expected_mi_summed_in_many_chunks_equals_sklearns_emi(monkeypatch, chunk):
    """scikit-learn's EMI of the adjusted mutual information (Vinh et al. 2010), a peer,
    with the sum split into chunks of a few cell counts (a table of more than CHUNK_TERMS
    = 2^21 terms; the other tests fit in one chunk, where a chunk overwriting the sum of
    the ones before cannot show): a skewed code, a binary column, a column with a missing
    category, an unbalanced class."""
    emi = pytest.importorskip("sklearn.metrics.cluster._expected_mutual_info_fast")
    rng = np.random.default_rng(4)
    rows = 120
    X = np.column_stack(
        [
            np.minimum(rng.geometric(0.3, rows) - 1, 9),
            rng.integers(0, 2, rows),
            rng.choice([0, 2, 3], rows, p=[0.7, 0.2, 0.1]),
        ]
    )
    y = rng.choice(3, rows, p=[0.6, 0.3, 0.1])
    table = CountTable.from_codes(X, y, 3, n_categories=np.array([10, 2, 4]))
    monkeypatch.setattr(heb.expected_mi, "CHUNK_TERMS", chunk)
    got = heb.expected_mi.expected_mutual_information(table)
    for f in range(3):
        block = np.asarray(table.counts[:, table.offsets[f] : table.offsets[f + 1]])
        block = block[:, block.sum(axis=0) > 0].astype(np.int64)
        want = emi.expected_mutual_information(block[block.sum(axis=1) > 0], rows)
        assert got[f] == pytest.approx(want, rel=1e-9, abs=1e-15), f


def test_expected_mi_of_a_few_rows_by_hand():
    """Five rows: a category of 4 rows (and one of 1), a class of 3 (and one of 2). A
    shuffle puts n = 2 or 3 of the category's rows in the class (from a + b - N = 2 up),
    with hypergeometric P(3) = C(4, 3) C(1, 0) / C(5, 3) = 2/5 and P(2) = 3/5; the plug-in
    MI of each of the two tables, written out term by term, weighted by those."""
    X = np.array([[0], [0], [0], [0], [1]])
    y = np.array([0, 0, 0, 1, 1])
    table = CountTable.from_codes(X, y, 2)
    mi_3 = 0.6 * np.log(15 / 12) + 0.2 * np.log(5 / 8) + 0.2 * np.log(5 / 2)  # [[3, 1], [0, 1]]
    mi_2 = 0.4 * np.log(10 / 12) + 0.4 * np.log(10 / 8) + 0.2 * np.log(5 / 3)  # [[2, 2], [1, 0]]
    expected = heb.expected_mi.expected_mutual_information(table)
    assert expected[0] == pytest.approx(0.4 * mi_3 + 0.6 * mi_2, rel=1e-12)


def test_a_leaf_with_no_linkable_parent_has_none():
    """Feature 3 may not be a parent and no pair with it is held (NaN weights): it gets
    no feature parent (-1), not the first parent-capable feature; feature 2, also a
    leaf, hangs below its strongest partner 1. The core 0 - 1 is rooted at 0, the a of
    Weka's first link (the ordered pair (0, 1), the first maximum row-major), or at 1
    when asked."""
    nan = np.nan
    weights = np.array(
        [
            [nan, 5.0, 1.0, nan],
            [5.0, nan, 2.0, nan],
            [1.0, 2.0, nan, nan],
            [nan, nan, nan, nan],
        ]
    )
    can_parent = np.array([True, True, False, False])
    assert spanning_tree(weights, can_parent).tolist() == [-1, 0, 1, -1]
    assert spanning_tree(weights, can_parent, root=1).tolist() == [1, -1, 1, -1]


def test_heb_u_single_pmf_learns_m_from_exactly_n0_rows():
    """HEB-U falls back to Laplace (m = K) under n0 rows only: a row of exactly n0 = 10
    counts uses the learned m (here far from K = 4), a row of 9 is Laplace."""
    counts = np.array([[10.0, 0.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0]])
    fit = fit_concentration_rows(counts[:1], np.full(4, 0.25), M_MIN, M_MAX)
    assert abs(fit.m[0] - 4.0) > 1.0
    est = single_pmf_estimates(counts, "heb-u", n0=10)
    m = fit.m[0]
    np.testing.assert_allclose(est[0], (counts[0] + m / 4) / (10 + m), rtol=1e-12)
    np.testing.assert_allclose(est[1], (counts[1] + 1.0) / (9 + 4), rtol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"N_values": [0]}, "N_values must hold whole numbers >= 1, got 0"),
        ({"N_values": [2.5]}, "N_values must hold whole numbers >= 1, got 2.5"),
        ({"reps": 1.5}, "reps must be a whole number >= 1, got 1.5"),
        ({"n_classes": 2.5}, "n_classes must be a whole number >= 1, got 2.5"),
    ],
)
def test_the_hierarchy_study_refuses_what_it_cannot_draw_in_one_sentence(kwargs, message):
    """As l1_error_study: N = 0 ended in a ZeroDivisionError (K / N), N = 2.5 drew 2 rows
    and reported N = 2, reps or n_classes of 1.5 a TypeError from numpy."""
    args = {"K_values": [(1, 1, 2)], "N_values": [10], "reps": 1, "n_classes": 2, **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        hierarchy_l1_study(smoothers=("laplace",), **args)


# ------------------------------------------------------------------ count tables
def test_pandas_na_in_an_object_array_is_a_missing_code():
    """A nullable integer column's ``to_numpy()`` holds pandas' NA, which ``float``
    refuses (a TypeError traceback): it is missing (-1), as None and NaN are, and a model
    fitted on that array equals one fitted on the DataFrame; text that is no number beside
    it still gets the one-sentence message."""
    frame = pd.DataFrame({"a": pd.array([0, 1, None, 1], dtype="Int64"), "b": [0, 1, 1, 0]})
    assert as_codes(frame.to_numpy()).tolist() == [[0, 0], [1, 1], [-1, 1], [1, 0]]
    assert as_codes(np.array([[None, 2]], dtype=object)).tolist() == [[-1, 2]]
    y = np.array([0, 1, 0, 1])
    np.testing.assert_array_equal(
        NaiveBayes().fit(frame.to_numpy(), y).predict_proba(frame.to_numpy()),
        NaiveBayes().fit(frame, y).predict_proba(frame),
    )
    with pytest.raises(ValueError, match="found non-numeric values"):
        as_codes(np.array([[pd.NA, "a"]], dtype=object))


@pytest.mark.parametrize(
    "codes",
    [
        np.array([[1e300, 1.0]]),
        np.array([[2**70, 1]], dtype=object),
        np.array([[2**64 - 1, 1]], dtype=np.uint64),
    ],
)
def test_a_code_beyond_int64_is_too_large_not_read_as_missing(codes):
    """The int64 cast turned such a code negative, so it was silently missing (its row
    dropped from the feature's counts) where a code of 10^10 gets the table-size refusal:
    it now reads as the largest table's size, which a fit refuses and a prediction scores
    as unseen."""
    assert as_codes(codes)[0, 0] == MAX_TABLE_CELLS
    X = np.vstack([codes, [[0, 0], [1, 1]]])
    with pytest.raises(ValueError, match="The category codes are too large"):
        NaiveBayes().fit(X, [0, 1, 0])
    largest = np.array([[2**63 - 1, 0]], dtype=np.uint64)
    assert as_codes(largest)[0, 0] == MAX_TABLE_CELLS


def test_widen_keeps_every_column_a_table_has():
    """``widen`` gives at least the given K per feature: fewer asked than a feature has
    keeps its columns (an IndexError when the table was built at the asked K); more adds
    zero columns at the end of that feature's block."""
    table = CountTable.from_codes(np.array([[2, 0], [0, 1]]), np.array([0, 1]), 2)
    assert table.widen([1, 1]) is table
    wider = table.widen([1, 4])
    assert wider.n_categories.tolist() == [3, 4]
    np.testing.assert_array_equal(wider.counts, [[0, 0, 1, 1, 0, 0, 0], [1, 0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(wider.class_counts, table.class_counts)


def test_a_single_preset_concentration_scales_with_each_features_k():
    """One number c means m_f = c K_f per high-cardinality feature (K_f 4000, 5000, 1000,
    3000, 2000); the low-cardinality features have none."""
    _, _, truth = high_cardinality_preset(n_samples=50, concentration=2.0)
    assert truth["concentration"] == [8000.0, 10000.0, 2000.0, 6000.0, 4000.0, None, None, None]


@pytest.mark.parametrize(
    "kwargs",
    [{"zipf_exponent": 0.0}, {"low_alpha": -1.0}, {"concentration": -3.0}, {"concentration": 0.0}],
)
def test_the_preset_refuses_a_shape_that_is_not_positive(kwargs):
    with pytest.raises(ValueError, match="must be positive"):
        high_cardinality_preset(n_samples=50, **kwargs)


def test_tables_of_different_features_or_classes_do_not_merge():
    """``partial_fit`` adds tables: one feature against two would broadcast its K over
    both and merge silently (or fail in numpy's words), so it is refused in one sentence,
    as different classes are."""
    one = CountTable.from_codes(np.array([[1], [0]]), np.array([0, 1]), 2)
    two = CountTable.from_codes(np.array([[1, 0], [0, 1]]), np.array([0, 1]), 2)
    three_classes = CountTable.from_codes(np.array([[1], [0]]), np.array([0, 2]), 3)
    for a, b in ((one, two), (two, one), (one, three_classes)):
        with pytest.raises(ValueError, match="cannot be merged"):
            a + b
    merged = one + one
    np.testing.assert_array_equal(merged.counts, 2 * one.counts)


def test_l1_study_rows_by_hand_with_the_sample_std(monkeypatch):
    """Two repetitions of K = 2, N = 4 with drawn truths (1, 0) and (1/2, 1/2) and counts
    (4, 0) and (2, 2): Laplace estimates (5/6, 1/6) and (1/2, 1/2), l1 errors 1/3 and 0,
    mean 1/6 and sample standard deviation (1/3) / sqrt(2), as hierarchy_l1_study's."""

    class Drawn:
        def dirichlet(self, alpha, size):
            assert alpha.tolist() == [0.3, 0.3] and size == 2
            return np.array([[1.0, 0.0], [0.5, 0.5]])

        def multinomial(self, n, truth):
            assert n == 4
            return np.array([[4, 0], [2, 2]])

    monkeypatch.setattr(heb.synthetic.np.random, "default_rng", lambda seed: Drawn())
    (row,) = heb.synthetic.l1_error_study([2], [4], reps=2, smoothers="laplace")
    assert (row["K"], row["N"], row["smoother"]) == (2, 4, "laplace")
    assert row["mean"] == pytest.approx(1 / 6, rel=1e-12)
    assert row["std"] == pytest.approx(1 / 3 / np.sqrt(2), rel=1e-12)


def test_flat_tree_pmfs_are_drawn_around_the_base():
    """theta ~ Dirichlet(c base): with c = 10^9 every draw is the base within 10^-3
    (its l1 distance from the base has standard deviation about sqrt(K / c)), and the
    base itself is not uniform (Dirichlet(1) splits); Dirichlet(c 1) draws would sit at
    the uniform PMF instead."""
    levels = zip_levels(2, 2, 3)
    base, theta = tree_pmfs(levels, 4, concentration=1e9, rng=np.random.default_rng(2))
    assert base.sum() == pytest.approx(1.0) and np.ptp(base) > 0.05
    assert np.abs(theta - base).sum(axis=1).max() < 1e-3
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("weights", [[-1.0, 2.0], [0.0, 0.0], [np.nan, 1.0], [1.0, 2.0, 3.0]])
def test_sample_naive_bayes_refuses_bad_class_weights_in_one_sentence(weights):
    """A negative weight (of positive sum: numpy's "probabilities are not non-negative"
    otherwise), no weight at all, NaN, or one too many."""
    with pytest.raises(ValueError, match="class_weights"):
        sample_naive_bayes(20, [3], n_classes=2, class_weights=weights)


def test_hierarchy_study_unseen_mass_is_of_codes_no_class_saw(monkeypatch):
    """Three codes, two classes of truths (1/2, 1/4, 1/4) and (1/4, 1/2, 1/4), counts
    (2, 0, 0) and (0, 2, 0): only code 2 has no row in any class, so the unseen mass is
    1/4 per PMF (a per-class count would say 1/2: code 1 unseen in class 0, code 0 in
    class 1). Laplace's estimates (3, 1, 1) / 5 and (1, 3, 1) / 5 are 0.2 off each."""
    theta = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]])

    class Drawn:
        def multinomial(self, n, truth):
            np.testing.assert_array_equal(truth, theta[:, None, :])
            return np.array([[[2, 0, 0]], [[0, 2, 0]]])

    def fake_tree_pmfs(levels, n_draws, rng=None, **_):
        return np.full(3, 1 / 3), theta

    monkeypatch.setattr(heb.synthetic_hierarchy, "tree_pmfs", fake_tree_pmfs)
    monkeypatch.setattr(heb.synthetic_hierarchy.np.random, "default_rng", lambda seed: Drawn())
    (row,) = hierarchy_l1_study([(1, 1, 3)], [2], n_classes=2, reps=1, smoothers=("laplace",))
    assert row["unseen_mass"] == pytest.approx(0.25, rel=1e-12)
    assert row["mean"] == pytest.approx(0.2, rel=1e-12)


def test_rows_per_category_by_hand():
    """N_cf / K_f: class 0 has 3 rows over feature 0's K = 3 and 2 observed rows over
    feature 1's K = 4; class 1 has 1 row and it is missing in feature 1."""
    X = np.array([[0, 1], [2, -1], [1, 3], [0, 0]])
    table = CountTable.from_codes(X, np.array([0, 0, 0, 1]), 2, n_categories=np.array([3, 4]))
    np.testing.assert_allclose(table.rows_per_category(), [[1.0, 0.5], [1 / 3, 0.25]])


def test_arc_gains_of_pairs_never_seen_together_are_zero_on_zero_rows():
    """Every row misses one of the two features: the held pair has no joint count, so its
    arcs gain 0 on 0 rows (NaN stays for the diagonal only)."""
    X = np.array([[0, -1], [1, -1], [-1, 0], [-1, 1]])
    pairs = PairCounts.from_codes(X, np.array([0, 1, 0, 1]), 2, np.array([2, 2]))
    assert pairs.n_pairs == 1 and pairs.keys.size == 0
    gain, rows = arc_gains(pairs)
    np.testing.assert_array_equal(gain, [[np.nan, 0.0], [0.0, np.nan]])
    np.testing.assert_array_equal(rows, [[np.nan, 0.0], [0.0, np.nan]])


def test_levels_from_no_labels_is_one_sentence():
    """The mutation pass: no labels gave numpy's "zero-size array" error."""
    from heb.hierarchy_sources import levels_from_labels

    with pytest.raises(ValueError, match="needs at least one category label"):
        levels_from_labels([], [lambda z: z[:2], lambda z: z[:1]])
    with pytest.raises(ValueError, match="needs at least one key function"):
        levels_from_labels(["ab"], [])
