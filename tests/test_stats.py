"""Statistics over datasets: agreement with scipy, scikit-posthocs and statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
import scikit_posthocs as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from heb import stats

HYPOTHESIS = settings(max_examples=60, deadline=None)


@st.composite
def score_matrices(draw, min_methods: int = 2) -> np.ndarray:
    """(n_datasets, k_methods) scores, optionally on a coarse grid so that ties occur."""
    n_datasets = draw(st.integers(2, 40))
    k_methods = draw(st.integers(min_methods, 9))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scores = rng.normal(size=(n_datasets, k_methods)) + np.linspace(0, 1, k_methods)
    if draw(st.booleans()):
        scores = np.round(scores * 2) / 2  # many ties
    return scores


# ---------------------------------------------------------------- ranks and Friedman


def test_rank_scores_best_is_one_and_ties_average():
    scores = np.array([[0.9, 0.8, 0.8, 0.1], [0.5, 0.5, 0.5, 0.5]])
    np.testing.assert_array_equal(
        stats.rank_scores(scores, higher_is_better=True), [[1, 2.5, 2.5, 4], [2.5] * 4]
    )
    np.testing.assert_array_equal(
        stats.rank_scores(scores, higher_is_better=False), [[4, 2.5, 2.5, 1], [2.5] * 4]
    )


@HYPOTHESIS
@given(score_matrices(min_methods=3), st.booleans())
def test_friedman_matches_scipy(scores, higher_is_better):
    result = stats.friedman(scores, higher_is_better)
    reference = sps.friedmanchisquare(*scores.T)
    assert result["chi2"] == pytest.approx(reference.statistic, abs=1e-10, rel=1e-12)
    assert result["p_value"] == pytest.approx(reference.pvalue, abs=1e-10)
    n, k = scores.shape
    assert (result["n_datasets"], result["k"]) == (n, k)
    ranks = stats.rank_scores(scores, higher_is_better)
    np.testing.assert_allclose(result["avg_ranks"], ranks.mean(axis=0))
    assert result["avg_ranks"].sum() == pytest.approx(k * (k + 1) / 2)
    assert 0.0 <= result["iman_davenport_p"] <= 1.0 and result["iman_davenport_F"] >= 0.0


def test_friedman_hand_example():
    # ranks per dataset (lower is better): R = (5, 8, 11), sum R^2 = 210
    scores = np.array([[1, 2, 3], [1, 2, 3], [1, 3, 2], [2, 1, 3]], dtype=float)
    result = stats.friedman(scores, higher_is_better=False)
    np.testing.assert_allclose(result["avg_ranks"], [1.25, 2.0, 2.75])
    assert result["chi2"] == pytest.approx(12 / (3 * 4 * 4) * 210 - 3 * 4 * 4)  # 4.5
    assert result["p_value"] == pytest.approx(np.exp(-4.5 / 2))  # chi2 with 2 df
    assert result["iman_davenport_F"] == pytest.approx(3 * 4.5 / (4 * 2 - 4.5))  # 27/7
    assert result["iman_davenport_p"] == pytest.approx(sps.f.sf(27 / 7, 2, 6))


def test_friedman_two_methods_and_degenerate_cases():
    two = stats.friedman(np.array([[1.0, 2.0], [1.0, 2.0], [2.0, 1.0]]), True)
    assert two["chi2"] == pytest.approx(1 / 3)  # (a - b)^2 / n with 2 wins vs 1
    agree = stats.friedman(np.tile([3.0, 2.0, 1.0], (5, 1)), True)
    assert agree["chi2"] == pytest.approx(10.0)  # N (k - 1)
    assert agree["iman_davenport_F"] == np.inf and agree["iman_davenport_p"] == 0.0
    tied = stats.friedman(np.ones((4, 3)), True)
    assert (tied["chi2"], tied["p_value"]) == (0.0, 1.0)
    assert (tied["iman_davenport_F"], tied["iman_davenport_p"]) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        (np.ones((1, 3)), "at least 2 datasets"),
        (np.ones((3, 1)), "at least 2 methods"),
        (np.ones(3), "2-D"),
        (np.array([[1.0, np.nan], [1.0, 2.0]]), "NaN"),
        (np.array([["a", "b"], ["c", "d"]]), "numeric"),
    ],
)
def test_friedman_rejects_bad_input(scores, message):
    with pytest.raises(ValueError, match=message):
        stats.friedman(scores, True)


def test_direction_must_be_a_bool():
    with pytest.raises(ValueError, match="True or False"):
        stats.rank_scores(np.ones((2, 2)), "higher")


# ---------------------------------------------------------------- Nemenyi


def test_nemenyi_cd_of_the_paper():
    assert round(stats.nemenyi_cd(7, 31), 2) == 1.62
    assert stats.nemenyi_cd(7, 31) == pytest.approx(stats.nemenyi_q(7) * np.sqrt(56 / 186))


def test_nemenyi_q_matches_demsar_table():
    table = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    got = [stats.nemenyi_q(k) for k in range(2, 11)]
    # the printed table is rounded loosely (2.3437 is printed 2.343, 2.9483 as 2.949)
    np.testing.assert_allclose(got, table, atol=1e-3, rtol=0)
    assert got[0] == pytest.approx(sps.norm.ppf(0.975), abs=1e-9)  # k = 2: z_{0.975}
    assert stats.nemenyi_q(5, alpha=0.10) < stats.nemenyi_q(5, alpha=0.05)


@pytest.mark.parametrize(
    ("k", "n", "alpha"), [(1, 5, 0.05), (3, 0, 0.05), (3, 5, 1.5), (2.5, 5, 0.05)]
)
def test_nemenyi_cd_rejects_bad_input(k, n, alpha):
    with pytest.raises(ValueError):
        stats.nemenyi_cd(k, n, alpha)


@settings(max_examples=25, deadline=None)
@given(score_matrices(), st.booleans())
def test_nemenyi_pvalues_match_scikit_posthocs(scores, higher_is_better):
    got = stats.nemenyi_pvalues(scores, higher_is_better)
    # scikit-posthocs takes blocks (datasets) in rows and groups (methods) in columns and
    # ranks ascending; p depends on |rank differences| only, so the direction is moot
    expected = sp.posthoc_nemenyi_friedman(scores).to_numpy()
    np.testing.assert_allclose(got, expected, atol=1e-8, rtol=0)
    np.testing.assert_array_equal(got, got.T)
    np.testing.assert_array_equal(np.diag(got), 1.0)


def test_nemenyi_pvalues_fixture():
    # scikit-posthocs' docstring example: 6 blocks x 3 groups
    scores = np.array(
        [[31, 27, 24], [31, 28, 31], [45, 29, 46], [21, 18, 48], [42, 36, 46], [32, 17, 40]],
        dtype=float,
    )
    expected = sp.posthoc_nemenyi_friedman(scores).to_numpy()
    np.testing.assert_allclose(stats.nemenyi_pvalues(scores, True), expected, atol=1e-8)
    # ascending avg ranks 13.5/6, 7/6, 15.5/6: methods 1 and 2 are the furthest apart
    got = stats.nemenyi_pvalues(scores, False)
    assert got[1, 2] < got[0, 2] and got[1, 2] < got[0, 1]
    assert got[1, 2] == pytest.approx(
        sps.studentized_range.sf(8.5 / 6 / np.sqrt(12 / 36) * np.sqrt(2), 3, np.inf)
    )


@pytest.mark.parametrize(
    ("ranks", "cd", "groups"),
    [
        ([1.0, 2.0, 3.0, 4.0], 0.5, []),  # every method differs: no bar at all
        ([1.0, 2.0, 3.0, 4.0], 5.0, [(0, 1, 2, 3)]),  # one bar over all
        ([1.0, 1.5, 2.0, 4.0], 1.0, [(0, 1, 2)]),  # (1, 2) is nested: dropped
        ([1.0, 2.0, 3.0, 4.0], 1.5, [(0, 1), (1, 2), (2, 3)]),  # overlapping chain
        ([4.0, 1.0, 3.0, 2.0], 1.5, [(1, 3), (3, 2), (2, 0)]),  # input out of rank order
        ([2.0, 2.0, 2.0], 0.0, [(0, 1, 2)]),  # equal ranks: one bar, no duplicates
        ([1.0, 2.62], 1.62, [(0, 1)]),  # a difference equal to the CD is not significant
        ([1.0, 1.0, 3.0, 3.0], 1.0, [(0, 1), (2, 3)]),
        ([3.0], 1.0, []),
    ],
)
def test_nemenyi_groups_cases(ranks, cd, groups):
    assert stats.nemenyi_groups(np.array(ranks), cd) == groups


def _groups_brute_force(ranks: np.ndarray, cd: float) -> list[tuple[int, ...]]:
    """All runs of rank-ordered methods within cd, keeping maximal runs of size >= 2."""
    order = np.argsort(ranks, kind="stable")
    k = ranks.size
    runs = [
        (i, j)
        for i in range(k)
        for j in range(i + 1, k)
        if ranks[order[j]] - ranks[order[i]] <= cd + 1e-9
    ]
    maximal = [
        (i, j) for i, j in runs if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs)
    ]
    return [tuple(int(m) for m in order[i : j + 1]) for i, j in sorted(maximal)]


@HYPOTHESIS
@given(
    st.lists(st.integers(2, 20).map(lambda v: v / 4), min_size=1, max_size=10),
    st.sampled_from([0.0, 0.5, 1.0, 1.62, 3.0]),
)
def test_nemenyi_groups_match_brute_force(ranks, cd):
    ranks = np.array(ranks)
    groups = stats.nemenyi_groups(ranks, cd)
    assert groups == _groups_brute_force(ranks, cd)
    assert len(set(groups)) == len(groups)
    for group in groups:
        assert len(group) >= 2 and np.ptp(ranks[list(group)]) <= cd + 1e-9


def test_nemenyi_groups_rejects_bad_input():
    with pytest.raises(ValueError, match="cd"):
        stats.nemenyi_groups(np.array([1.0, 2.0]), -1.0)
    with pytest.raises(ValueError, match="1-D"):
        stats.nemenyi_groups(np.ones((2, 2)), 1.0)


# ---------------------------------------------------------------- Wilcoxon and Holm


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["continuous", "ties", "zeros"]),
)
def test_wilcoxon_matches_scipy(n, seed, kind):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + rng.normal(0.2, 1.0, size=n)
    if kind == "ties":
        b = a + np.round(rng.normal(0.2, 1.0, size=n))
    elif kind == "zeros":
        b = np.where(rng.random(n) < 0.4, a, b)
    result = stats.wilcoxon(a, b)
    # differences are compared to SCORE_DECIMALS decimals: 1.0000000000000002 and
    # 0.9999999999999998 are one tie, as the scores' own precision has it
    diff = np.round(a - b, stats.SCORE_DECIMALS)
    nonzero = int(np.count_nonzero(diff))
    assert result["n_nonzero"] == nonzero
    assert result["median_diff"] == pytest.approx(np.median(a - b), abs=1e-9)
    if nonzero == 0:
        assert (result["statistic"], result["p_value"]) == (0.0, 1.0)
        return
    reference = sps.wilcoxon(diff, zero_method="wilcox")
    assert result["statistic"] == pytest.approx(reference.statistic, abs=1e-12)
    assert result["p_value"] == pytest.approx(reference.pvalue, abs=1e-12)
    assert 0.0 <= result["p_value"] <= 1.0


def test_wilcoxon_all_zero_differences():
    a = np.array([0.8, 0.7, 0.9])
    assert stats.wilcoxon(a, a.copy()) == {
        "statistic": 0.0,
        "p_value": 1.0,
        "n_nonzero": 0,
        "median_diff": 0.0,
    }


def test_wilcoxon_drops_zero_differences():
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    b = a - np.array([0.0, 0.0, 1.0, 2.0, -3.0, 4.0, 5.0])
    result = stats.wilcoxon(a, b)
    # non-zero |d| ranks 1..5; the negative one (|d| = 3) has rank 3
    assert result["statistic"] == 3.0 and result["n_nonzero"] == 5
    assert result["p_value"] == pytest.approx(sps.wilcoxon(a[2:], b[2:]).pvalue)


@pytest.mark.parametrize(
    ("a", "b"), [([1.0, 2.0], [1.0]), ([], []), ([[1.0]], [[2.0]]), ([np.nan], [1.0])]
)
def test_wilcoxon_rejects_bad_input(a, b):
    with pytest.raises(ValueError):
        stats.wilcoxon(np.array(a), np.array(b))


def _holm_loop(p: np.ndarray) -> np.ndarray:
    """Textbook step-down loop: the i-th smallest p times (m - i), running max, cap 1."""
    m = p.size
    adjusted = np.empty(m)
    running = 0.0
    for i, index in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - i) * p[index]))
        adjusted[index] = running
    return adjusted


@pytest.mark.parametrize("seed", range(6))
def test_holm_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, size=rng.integers(1, 30)) ** rng.choice([1, 2])
    p[rng.random(p.size) < 0.2] = p[0]  # ties
    expected = multipletests(p, method="holm")[1]  # gc.collect() inside: ~0.1 s per call
    np.testing.assert_allclose(stats.holm(p), expected, atol=1e-15, rtol=0)


@HYPOTHESIS
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_holm_invariants(p_values):
    p = np.array(p_values)
    got = stats.holm(p)
    np.testing.assert_allclose(got, _holm_loop(p), atol=1e-15, rtol=0)
    assert np.all(got >= p) and np.all(got <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(got[order]) >= 0)


def test_holm_small_example_and_bad_input():
    np.testing.assert_allclose(stats.holm([0.01, 0.04, 0.03, 0.5]), [0.04, 0.09, 0.09, 0.5])
    assert stats.holm([]).shape == (0,)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        stats.holm([0.2, 1.2])
