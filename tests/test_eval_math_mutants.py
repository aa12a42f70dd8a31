"""Evaluation math pinned where mutation testing found the other tests blind.

Each test kills mutants of ``heb.metrics``, ``heb.stats``, ``heb.scale.streaming_metrics``
or ``heb.expected_mi`` that the module's own tests let through: input checks loosened,
the binary AUC read off column 0, quantile-bin and critical-difference boundaries, round-off
guards of the Friedman statistic, the streaming AUC's logit grid, its stated error bound
and merges of a gridded partition with an exact one. Expected values come from
scikit-learn, scipy, Demsar (2006) or are worked by hand in the docstrings.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from scipy.special import expit
from sklearn import metrics as skm
from sklearn.metrics.cluster._expected_mutual_info_fast import (
    expected_mutual_information as sklearn_emi,
)

from heb import metrics, stats
from heb.counts import CountTable
from heb.expected_mi import expected_mutual_information
from heb.scale.streaming_metrics import AUC_GRID_BINS, MetricSums

TOL = 1e-12
#: width of one streaming-AUC grid bin in logit units: [-50, 50] cut into 2^16 bins
GRID_WIDTH = 100.0 / AUC_GRID_BINS
HYPOTHESIS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- metrics: input checks


@pytest.mark.parametrize(
    "proba",
    [
        [[0.6, 0.5]],  # in [0, 1] but sums to 1.1
        [[0.5, 0.5001]],  # sums to 1 + 1e-4: more than round-off
    ],
)
def test_rows_summing_above_one_are_refused(proba):
    with pytest.raises(ValueError, match="sum to 1"):
        metrics.all_metrics(np.array([0]), np.array(proba))


def test_row_sums_within_round_off_are_accepted():
    got = metrics.log_loss(np.array([0]), np.array([[0.5, 0.5 + 5e-7]]))
    assert got == pytest.approx(-np.log(0.5), abs=TOL)


def test_probabilities_outside_the_unit_interval_beyond_round_off_are_refused():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metrics.all_metrics(np.array([0]), np.array([[1.0 + 1e-6, -1e-6]]))


def test_n_bins_true_is_not_one_bin():
    with pytest.raises(ValueError, match="n_bins"):
        metrics.reliability(np.array([0]), np.array([[0.6, 0.4]]), n_bins=True)


# ---------------------------------------------------------------- metrics: definitions


def test_log_loss_does_not_renormalise_a_row_off_by_round_off():
    """Row (0.5, 0.5 + 8e-7) is accepted as summing to 1; the true class's p is 0.5 as
    given (renormalising would give 0.5 / 1.0000008, a mean log-loss 4e-7 larger)."""
    proba = np.array([[0.5, 0.5 + 8e-7], [0.25, 0.75]])
    y = np.array([0, 1])
    expected = -(np.log(0.5) + np.log(0.75)) / 2
    assert metrics.log_loss(y, proba) == pytest.approx(expected, abs=TOL, rel=0)
    assert metrics.all_metrics(y, proba)["log_loss"] == pytest.approx(expected, abs=TOL, rel=0)


#: two rows whose column 0 differs by round-off while column 1 ties: column 1 gives the
#: binary AUC 0.5 (one tied pair); column 0 ranks the class-1 row higher (AUC 0 for class 0)
BINARY_OFF_BY_ROUND_OFF = (np.array([0, 1]), np.array([[0.3, 0.7], [0.3000004, 0.7]]))


def test_binary_auc_is_column_ones_even_when_rows_are_off_by_round_off():
    y, proba = BINARY_OFF_BY_ROUND_OFF
    expected = skm.roc_auc_score(y, proba[:, 1])
    assert expected == 0.5
    assert metrics.auc_ovr(y, proba) == expected
    assert metrics.all_metrics(y, proba)["auc"] == expected
    assert MetricSums(2).update(y, proba).result()["auc"] == expected


def _quantile_ece_loop(y: np.ndarray, proba: np.ndarray, n_bins: int) -> tuple[list, float]:
    """Reference: edges at numpy's quantiles; a confidence on an inner edge goes up."""
    confidence = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y
    edges = np.quantile(confidence, np.linspace(0, 1, n_bins + 1))
    members = [[] for _ in range(n_bins)]
    for row, value in enumerate(confidence):
        which = sum(1 for edge in edges[1:-1] if value >= edge)
        members[which].append(row)
    ece = sum(
        abs(correct[rows].mean() - confidence[rows].mean()) * len(rows) / len(y)
        for rows in members
        if rows
    )
    return [len(rows) for rows in members], ece


def test_quantile_bins_put_a_confidence_on_an_inner_edge_in_the_upper_bin():
    """Confidences 0.6, 0.7, 0.8, 0.9, 1.0 in 4 quantile bins: the edges are the data
    themselves (0.6 | 0.7 | 0.8 | 0.9 1.0); 0.7, 0.8, 0.9 each open the upper bin."""
    top = np.array([0.6, 0.7, 0.8, 0.9, 1.0])
    proba = np.column_stack([top, 1.0 - top])
    y = np.array([1, 0, 0, 1, 0])
    diagram = metrics.reliability(y, proba, n_bins=4, strategy="quantile")
    counts, ece = _quantile_ece_loop(y, proba, 4)
    np.testing.assert_array_equal(diagram["count"], [1, 1, 1, 2])
    assert counts == [1, 1, 1, 2]
    # bins: {0.6 wrong}, {0.7 right}, {0.8 right}, {0.9 wrong, 1.0 right}
    hand = (0.6 + 0.3 + 0.2 + 2 * abs(0.5 - 0.95)) / 5
    assert diagram["ece"] == pytest.approx(hand, abs=TOL)
    assert ece == pytest.approx(hand, abs=TOL)


@HYPOTHESIS
@given(
    st.lists(st.sampled_from([0.5, 0.6, 0.7, 0.8, 0.9, 1.0]), min_size=1, max_size=30),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
)
def test_quantile_ece_matches_the_loop_on_tied_confidences(tops, n_bins, seed):
    top = np.array(tops)
    proba = np.column_stack([top, 1.0 - top])
    y = np.random.default_rng(seed).integers(0, 2, top.size)
    diagram = metrics.reliability(y, proba, n_bins=n_bins, strategy="quantile")
    counts, ece = _quantile_ece_loop(y, proba, n_bins)
    np.testing.assert_array_equal(diagram["count"], counts)
    assert diagram["ece"] == pytest.approx(ece, abs=TOL)


# ---------------------------------------------------------------- Friedman round-off guards


def _latin_rows(k: int, n: int) -> np.ndarray:
    """n datasets cycling through the k cyclic shifts of (1..k): every rank sum equal."""
    return np.array([np.roll(np.arange(1.0, k + 1.0), i) for i in range(n)])


def test_friedman_chi2_of_balanced_rank_sums_is_zero_not_minus_round_off():
    """k = 7, N = 21 (three Latin squares): every rank sum is 84, so chi2 = 0 exactly;
    12 / (k N (k+1)) sum R^2 - 3 N (k+1) gives -5.7e-14 in floating point."""
    scores = _latin_rows(7, 21)
    result = stats.friedman(scores, higher_is_better=True)
    assert sps.friedmanchisquare(*scores.T).statistic == pytest.approx(0.0, abs=1e-9)
    assert result["chi2"] == 0.0 and result["p_value"] == 1.0
    assert result["iman_davenport_F"] == 0.0 and result["iman_davenport_p"] == 1.0


def test_friedman_all_datasets_agreeing_gives_infinite_f_despite_round_off():
    """k = 6, N = 7, one ranking everywhere: chi2 = N (k - 1) = 35 mathematically, and the
    Iman-Davenport denominator N (k - 1) - chi2 comes out 2.8e-14, not 0."""
    scores = np.tile(np.arange(6.0), (7, 1))
    result = stats.friedman(scores, higher_is_better=True)
    assert result["chi2"] == pytest.approx(35.0, abs=1e-9)
    assert result["iman_davenport_F"] == np.inf and result["iman_davenport_p"] == 0.0


def test_friedman_near_agreement_keeps_a_finite_f():
    """k = 2, N = 5000, one dataset dissenting: chi2 = (4999 - 1)^2 / 5000 = 4996.0008 and
    F = 4999 chi2 / (5000 - chi2) = 6,245,001.5 -- large but finite."""
    scores = np.tile([1.0, 0.0], (5000, 1))
    scores[0] = [0.0, 1.0]
    result = stats.friedman(scores, higher_is_better=True)
    chi2 = 4998.0**2 / 5000.0
    assert result["chi2"] == pytest.approx(chi2, rel=1e-12)
    f_stat = 4999.0 * chi2 / (5000.0 - chi2)
    assert result["iman_davenport_F"] == pytest.approx(f_stat, rel=1e-9)
    assert result["iman_davenport_p"] == pytest.approx(sps.f.sf(f_stat, 1, 4999), abs=1e-300)


# ---------------------------------------------------------------- Nemenyi


def test_nemenyi_cd_of_demsars_worked_example():
    """Demsar 2006, section 3.2.2: k = 4, N = 14, q_0.05 = 2.569, CD = 1.25; and q_0.10 of
    his Table 5(b) for k = 2..10."""
    assert stats.nemenyi_cd(4, 14) == pytest.approx(2.569 * np.sqrt(20 / 84), abs=1e-3)
    assert round(stats.nemenyi_cd(4, 14), 2) == 1.25
    q_010 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]
    got = [stats.nemenyi_q(k, alpha=0.10) for k in range(2, 11)]
    np.testing.assert_allclose(got, q_010, atol=1e-3, rtol=0)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_alpha_at_the_ends_of_the_unit_interval_is_refused(alpha):
    with pytest.raises(ValueError, match="alpha"):
        stats.nemenyi_q(4, alpha)
    with pytest.raises(ValueError, match="alpha"):
        stats.nemenyi_cd(4, 14, alpha)


def test_a_rank_difference_equal_to_the_cd_up_to_round_off_is_not_significant():
    """1.85 - 1.15 is 0.7 in decimals, but 1.15 + 0.7 < 1.85 in floating point."""
    assert 1.15 + 0.7 < 1.85
    assert stats.nemenyi_groups(np.array([1.15, 1.85]), 0.7) == [(0, 1)]
    assert stats.nemenyi_groups(np.array([1.15, 1.85 + 1e-6]), 0.7) == []


# ---------------------------------------------------------------- streaming sums


@st.composite
def folds(draw) -> tuple[np.ndarray, np.ndarray]:
    """A test fold with coarse probabilities (ties, exact 0 and 1, confidences on the ECE
    edges), sometimes a single class, cut into random batches."""
    n_classes = draw(st.integers(2, 5))
    n_rows = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    proba = rng.dirichlet(np.full(n_classes, draw(st.sampled_from([0.3, 1.0]))), n_rows)
    if draw(st.booleans()):
        proba = rng.multinomial(10, proba) / 10.0  # a grid of tenths
    present = rng.choice(n_classes, size=draw(st.integers(1, n_classes)), replace=False)
    y = present[rng.integers(0, present.size, n_rows)]
    return y.astype(np.int64), proba


@HYPOTHESIS
@given(folds(), st.integers(1, 50))
def test_streaming_sums_equal_all_metrics_on_coarse_and_one_class_folds(fold, batch):
    y, proba = fold
    sums = MetricSums(proba.shape[1])
    for start in range(0, y.size, batch):
        sums.update(y[start : start + batch], proba[start : start + batch])
    got = sums.result()
    for name, value in metrics.all_metrics(y, proba).items():
        assert got[name] == pytest.approx(value, abs=TOL, rel=0), name
    assert got["auc_bound"] == 0.0


def test_streaming_auc_of_a_one_class_fold_is_one_half():
    proba = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    got = MetricSums(3).update(np.array([1, 1]), proba).result()
    assert got["auc"] == 0.5 and got["auc_bound"] == 0.0


def _grid_scores(offsets: list[float]) -> np.ndarray:
    """Probabilities at logit ``offset * GRID_WIDTH``: offsets in [0, 1) share the grid bin
    that starts at logit 0, those in [1, 2) the next."""
    return expit(np.array(offsets) * GRID_WIDTH)


def test_grid_auc_ties_within_one_bin_and_its_bound_is_attained():
    """Class-1 scores: negative at 0.1 bin, positive at 0.9 bin, negative at 1.1 bins.

    Exact AUC: the positive beats one negative of two, 0.5. On the grid the first pair
    ties (1/2) and the second is lost: 0.25; one tied pair of P N = 2 gives the bound
    1 / (2 * 2) = 0.25, exactly the error.
    """
    y = np.array([0, 1, 0])
    top = _grid_scores([0.1, 0.9, 1.1])
    proba = np.column_stack([1.0 - top, top])
    sums = MetricSums(2, max_distinct=2).update(y, proba)
    got = sums.result()
    assert sums.state["auc_grid"][0] == 1.0
    assert metrics.auc_ovr(y, proba) == skm.roc_auc_score(y, top) == 0.5
    assert got["auc"] == pytest.approx(0.25, abs=TOL)
    assert got["auc_bound"] == pytest.approx(0.25, abs=TOL)


def test_grid_keeps_distinct_logits_up_to_fifty_apart():
    """Logits 12, 16, 20, 24, 28 (p up to 1 - 7e-13) lie in distinct bins of the [-50, 50]
    grid, so the gridded AUC is exact with bound 0."""
    top = expit(np.array([12.0, 16.0, 20.0, 24.0, 28.0]))
    y = np.array([0, 1, 0, 1, 1])
    proba = np.column_stack([1.0 - top, top])
    sums = MetricSums(2, max_distinct=2).update(y, proba)
    got = sums.result()
    assert sums.state["auc_grid"][0] == 1.0
    assert got["auc"] == pytest.approx(skm.roc_auc_score(y, top), abs=TOL)
    assert got["auc_bound"] == 0.0


def test_auc_stays_exact_at_exactly_max_distinct_scores():
    top = np.array([0.1, 0.4, 0.6])
    y = np.array([1, 0, 1])
    proba = np.column_stack([1.0 - top, top])
    exact = MetricSums(2, max_distinct=3).update(y, proba)
    assert exact.state["auc_grid"][0] == 0.0
    assert exact.result()["auc"] == skm.roc_auc_score(y, top)
    assert MetricSums(2, max_distinct=2).update(y, proba).state["auc_grid"][0] == 1.0


def _random_fold(n_rows: int, n_classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_classes, n_rows), rng.dirichlet(np.ones(n_classes), n_rows)


@pytest.mark.parametrize("gridded_first", [True, False])
def test_merging_a_gridded_partition_with_an_exact_one_grids_both(gridded_first):
    """A 600-row partition past ``max_distinct`` (gridded) and a 5-row one (exact) merge,
    in either order, to the accumulator of all 605 rows."""
    y, proba = _random_fold(605, 3, seed=5)
    whole = MetricSums(3, max_distinct=50).update(y, proba).result()
    big = MetricSums(3, max_distinct=50).update(y[:600], proba[:600])
    small = MetricSums(3, max_distinct=50).update(y[600:], proba[600:])
    assert (big.state["auc_grid"][0], small.state["auc_grid"][0]) == (1.0, 0.0)
    merged = big.merge(small) if gridded_first else small.merge(big)
    assert merged.state["auc_grid"][0] == 1.0
    assert merged.result() == pytest.approx(whole, abs=TOL, rel=0)
    assert 0.0 < whole["auc_bound"]


# ---------------------------------------------------------------- expected mutual information


@st.composite
def code_tables(draw) -> tuple[np.ndarray, np.ndarray, int]:
    """A few features of small cardinality (some codes missing) and 2..4 classes."""
    n_rows = draw(st.integers(2, 40))
    n_classes = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.integers(-1, draw(st.integers(1, 8)), size=(n_rows, 3))  # -1: missing
    y = rng.integers(0, n_classes, n_rows)
    return X, y, n_classes


@HYPOTHESIS
@given(code_tables())
def test_expected_mi_matches_scikit_learn(table):
    """Per feature, over its observed rows: scikit-learn's EMI of the (category, class)
    contingency table (Vinh, Epps and Bailey 2010)."""
    X, y, n_classes = table
    got = expected_mutual_information(CountTable.from_codes(X, y, n_classes))
    for feature in range(X.shape[1]):
        seen = X[:, feature] >= 0
        if seen.sum() == 0:
            assert got[feature] == 0.0
            continue
        contingency = skm.cluster.contingency_matrix(X[seen, feature], y[seen])
        expected = sklearn_emi(contingency.astype(np.int64), int(seen.sum()))
        assert got[feature] == pytest.approx(expected, abs=1e-12, rel=1e-9)
