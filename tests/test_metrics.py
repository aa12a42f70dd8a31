"""Fold metrics: agreement with scikit-learn, hand-worked calibration examples, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata
from sklearn import metrics as skm

from heb import metrics

TOL = 1e-12
HYPOTHESIS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def folds(draw) -> tuple[np.ndarray, np.ndarray]:
    """A random test fold: class indices and Dirichlet probability rows.

    Covers C in 2..6, n in 1..200, coarse probabilities (ties, exact zeros and ones),
    duplicated rows and folds where some classes are absent.
    """
    n_classes = draw(st.integers(2, 6))
    n_rows = draw(st.integers(1, 200))
    seed = draw(st.integers(0, 2**32 - 1))
    concentration = draw(st.sampled_from([0.2, 1.0, 5.0]))
    ties = draw(st.sampled_from(["none", "coarse", "duplicates"]))
    present = draw(st.integers(1, n_classes))  # number of classes present in y
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.full(n_classes, concentration), size=n_rows)
    if ties == "coarse":  # probabilities on a grid of 1/4: many ties, zeros and ones
        proba = rng.multinomial(4, proba) / 4.0
    elif ties == "duplicates":
        proba = proba[rng.integers(0, min(n_rows, 5), size=n_rows)]
    labels = rng.choice(n_classes, size=present, replace=False)
    y = labels[rng.integers(0, present, size=n_rows)]
    return y.astype(np.int64), proba


def _sklearn_auc(y: np.ndarray, proba: np.ndarray) -> float:
    """Macro one-vs-rest AUC with scikit-learn, skipping classes absent from the fold."""
    n_classes = proba.shape[1]
    present = np.unique(y)
    if n_classes == 2:
        return skm.roc_auc_score(y, proba[:, 1]) if present.size == 2 else 0.5
    if present.size == n_classes:
        return skm.roc_auc_score(
            y, proba, multi_class="ovr", average="macro", labels=list(range(n_classes))
        )
    scored = [
        skm.roc_auc_score(y == c, proba[:, c])
        for c in range(n_classes)
        if 0 < np.sum(y == c) < y.size
    ]
    return float(np.mean(scored)) if scored else 0.5


# ---------------------------------------------------------------- agreement with scikit-learn


@HYPOTHESIS
@given(folds())
def test_metrics_match_sklearn(fold):
    y, proba = fold
    n_classes = proba.shape[1]
    labels = list(range(n_classes))
    pred = np.argmax(proba, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = {
            "accuracy": skm.accuracy_score(y, pred),
            "f1_macro": skm.f1_score(y, pred, labels=labels, average="macro", zero_division=0),
            # SPEC clips at 1e-15; sklearn 1.9 clips at machine epsilon, which is then inert
            "log_loss": skm.log_loss(y, np.clip(proba, 1e-15, 1.0), labels=labels),
            "brier": skm.brier_score_loss(y, proba, labels=labels, scale_by_half=False) / n_classes,
            "auc": _sklearn_auc(y, proba),
        }
    got = metrics.all_metrics(y, proba)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=TOL, rel=0), name
    assert got["accuracy"] == metrics.accuracy(y, proba)
    assert got["f1_macro"] == metrics.f1_macro(y, proba)
    assert got["log_loss"] == metrics.log_loss(y, proba)
    assert got["brier"] == metrics.brier(y, proba)
    assert got["auc"] == metrics.auc_ovr(y, proba)
    assert got["ece"] == metrics.ece_top1(y, proba)
    assert all(np.isfinite(v) for v in got.values())


@HYPOTHESIS
@given(folds())
def test_binary_brier_and_auc_are_the_usual_ones(fold):
    y, proba = fold
    proba = np.column_stack([1.0 - proba[:, 1], proba[:, 1]])
    y = (y > 0).astype(np.int64)
    assert metrics.brier(y, proba) == pytest.approx(
        skm.brier_score_loss(y, proba[:, 1]), abs=TOL, rel=0
    )
    if np.unique(y).size == 2:
        assert metrics.auc_ovr(y, proba) == pytest.approx(
            skm.roc_auc_score(y, proba[:, 1]), abs=TOL, rel=0
        )


@HYPOTHESIS
@given(folds())
def test_auc_is_the_rank_sum_formula_to_the_bit(fold):
    """The sorted-sample U statistic equals the average-rank (Mann-Whitney) formula exactly."""
    y, proba = fold
    n, n_classes = proba.shape
    ranks = rankdata(proba, axis=0)
    columns = [1] if n_classes == 2 else range(n_classes)
    scored = []
    for c in columns:
        n_pos = int(np.sum(y == c))
        if 0 < n_pos < n:
            rank_sum = np.sum(ranks[y == c, c])
            scored.append((rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * (n - n_pos)))
    expected = float(np.mean(scored)) if scored else 0.5
    assert metrics.auc_ovr(y, proba) == expected


def test_round_off_past_the_unit_interval_is_clipped():
    proba = np.array([[1.0 + 1e-12, -1e-12], [0.25, 0.75], [0.6, 0.4]])
    y = np.array([0, 1, 1])
    clipped = np.clip(proba, 0.0, 1.0)
    assert metrics.all_metrics(y, proba) == metrics.all_metrics(y, clipped)
    assert metrics.brier(y, proba) == pytest.approx((0.0 + 2 * 0.0625 + 2 * 0.36) / 6, abs=TOL)


def test_log_loss_clips_at_1e15_without_renormalising():
    proba = np.array([[1.0, 0.0], [0.25, 0.75]])
    y = np.array([1, 1])
    assert metrics.log_loss(y, proba) == pytest.approx(-(np.log(1e-15) + np.log(0.75)) / 2)


def test_f1_counts_a_class_with_no_rows_as_zero():
    proba = np.array([[0.8, 0.1, 0.1], [0.3, 0.6, 0.1], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1]])
    y = np.array([0, 0, 1, 1])  # class 2 neither true nor predicted
    assert metrics.f1_macro(y, proba) == pytest.approx((2 / 3 + 0.8 + 0.0) / 3, abs=TOL)


def test_argmax_ties_go_to_the_lowest_class():
    proba = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert metrics.accuracy(np.array([0, 1]), proba) == 0.5
    assert metrics.accuracy(np.array([0, 0]), proba) == 1.0


# ---------------------------------------------------------------- degenerate folds


def test_auc_is_half_when_no_class_can_be_scored():
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    assert metrics.auc_ovr(np.array([2, 2]), proba) == 0.5
    assert metrics.auc_ovr(np.array([1]), proba[:1]) == 0.5
    assert metrics.auc_ovr(np.array([0, 0]), np.array([[0.9, 0.1], [0.2, 0.8]])) == 0.5


def test_auc_skips_absent_classes():
    proba = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.5, 0.1, 0.4], [0.1, 0.2, 0.7]])
    y = np.array([0, 1, 0, 1])  # class 2 absent: average of classes 0 and 1
    auc0 = skm.roc_auc_score(y == 0, proba[:, 0])
    auc1 = skm.roc_auc_score(y == 1, proba[:, 1])
    assert metrics.auc_ovr(y, proba) == pytest.approx((auc0 + auc1) / 2, abs=TOL)


def test_single_row_gives_finite_metrics():
    got = metrics.all_metrics(np.array([1]), np.array([[0.2, 0.5, 0.3]]))
    assert got == pytest.approx(
        {
            "accuracy": 1.0,
            "f1_macro": 1 / 3,
            "log_loss": -np.log(0.5),
            "brier": (0.2**2 + 0.5**2 + 0.3**2) / 3,
            "auc": 0.5,
            "ece": 0.5,
        }
    )


def test_all_rows_of_one_class():
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.7, 0.3]])
    got = metrics.all_metrics(np.zeros(3, dtype=int), proba)
    assert got["auc"] == 0.5
    assert got["accuracy"] == pytest.approx(2 / 3)
    assert got["f1_macro"] == pytest.approx((0.8 + 0.0) / 2)


# ---------------------------------------------------------------- calibration


def _ece_loop(y: np.ndarray, proba: np.ndarray, n_bins: int) -> float:
    """Straightforward per-row reference of the uniform-bin top-1 ECE."""
    edges = [b / n_bins for b in range(n_bins + 1)]
    totals = [[0, 0.0, 0.0] for _ in range(n_bins)]  # count, confidence sum, correct sum
    for label, row in zip(y, proba, strict=True):
        predicted = int(np.argmax(row))
        confidence = float(row[predicted])
        which = n_bins - 1
        for b in range(n_bins):
            if edges[b] <= confidence < edges[b + 1]:
                which = b
                break
        totals[which][0] += 1
        totals[which][1] += confidence
        totals[which][2] += float(predicted == label)
    return sum(abs(acc / cnt - conf / cnt) * cnt / len(y) for cnt, conf, acc in totals if cnt)


def test_ece_hand_computed_example():
    proba = np.array([[0.9, 0.1], [0.65, 0.35], [0.3, 0.7], [0.4, 0.6], [1.0, 0.0]])
    y = np.array([0, 1, 1, 0, 0])
    # bins: 0.9 -> 9, 0.65 -> 6, 0.7 -> 7 (left edge closed), 0.6 -> 6, 1.0 -> 9 (last closed)
    # |0 - 0.625| * 2/5 + |1 - 0.7| * 1/5 + |1 - 0.95| * 2/5 = 0.25 + 0.06 + 0.02
    assert metrics.ece_top1(y, proba) == pytest.approx(0.33, abs=TOL)
    diagram = metrics.reliability(y, proba)
    np.testing.assert_array_equal(diagram["count"], [0, 0, 0, 0, 0, 0, 2, 1, 0, 2])
    np.testing.assert_allclose(diagram["confidence"][[6, 7, 9]], [0.625, 0.7, 0.95])
    np.testing.assert_array_equal(diagram["accuracy"], [0, 0, 0, 0, 0, 0, 0, 1, 0, 1])
    np.testing.assert_allclose(diagram["edges"], np.linspace(0, 1, 11))


@HYPOTHESIS
@given(folds(), st.sampled_from([1, 3, 10, 15]))
def test_ece_matches_loop_reference(fold, n_bins):
    y, proba = fold
    assert metrics.ece_top1(y, proba, n_bins=n_bins) == pytest.approx(
        _ece_loop(y, proba, n_bins), abs=TOL
    )


@HYPOTHESIS
@given(folds(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_reliability_is_consistent(fold, n_bins, strategy):
    y, proba = fold
    diagram = metrics.reliability(y, proba, n_bins=n_bins, strategy=strategy)
    count = diagram["count"]
    assert diagram["edges"].shape == (n_bins + 1,)
    assert count.shape == diagram["confidence"].shape == diagram["accuracy"].shape == (n_bins,)
    assert np.issubdtype(count.dtype, np.integer) and count.sum() == y.size
    for key in ("edges", "confidence", "accuracy"):
        assert np.all(np.isfinite(diagram[key]))
    assert np.all(diagram["confidence"][count == 0] == 0.0)
    assert np.all(diagram["accuracy"][count == 0] == 0.0)
    occupied = count > 0
    lo, hi = diagram["edges"][:-1][occupied], diagram["edges"][1:][occupied]
    assert np.all(diagram["confidence"][occupied] >= lo - 1e-12)
    assert np.all(diagram["confidence"][occupied] <= hi + 1e-12)
    weighted = np.sum(count / y.size * np.abs(diagram["accuracy"] - diagram["confidence"]))
    assert diagram["ece"] == pytest.approx(weighted, abs=TOL)
    assert 0.0 <= diagram["ece"] <= 1.0


def test_quantile_bins_have_equal_mass():
    rng = np.random.default_rng(3)
    top = rng.uniform(0.5, 1.0, size=100)
    proba = np.column_stack([top, 1.0 - top])
    diagram = metrics.reliability(np.zeros(100, dtype=int), proba, strategy="quantile")
    np.testing.assert_array_equal(diagram["count"], np.full(10, 10))
    # all rows correct: ECE is the mean gap 1 - confidence
    assert diagram["ece"] == pytest.approx(np.mean(1.0 - top), abs=TOL)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("y", "proba", "message"),
    [
        ([0, 1], [[0.5, 0.5]], "rows"),
        ([0], [0.5, 0.5], "2-D"),
        ([0], [[1.0]], "at least 2"),
        ([0], [[1.5, -0.5]], r"\[0, 1\]"),
        ([0], [[0.5, 0.4]], "sum to 1"),
        ([0], [[np.nan, 0.5]], "NaN"),
        ([2], [[0.5, 0.5]], "class indices in 0..1"),
        ([-1], [[0.5, 0.5]], "class indices"),
        ([0.5], [[0.5, 0.5]], "whole-number"),
        (["a"], [[0.5, 0.5]], "integer"),
        ([[0]], [[0.5, 0.5]], "1-D"),
        (np.zeros(0, dtype=int), np.zeros((0, 2)), "no rows"),
    ],
)
def test_bad_input_raises_clear_errors(y, proba, message):
    with pytest.raises(ValueError, match=message):
        metrics.all_metrics(np.asarray(y), np.asarray(proba))


@pytest.mark.parametrize(("n_bins", "strategy"), [(0, "uniform"), (2.5, "uniform"), (5, "x")])
def test_bad_binning_raises(n_bins, strategy):
    with pytest.raises(ValueError):
        metrics.reliability([0], [[0.6, 0.4]], n_bins=n_bins, strategy=strategy)


def test_round_off_outside_unit_interval_is_tolerated():
    proba = np.array([[1.0 + 1e-12, -1e-12], [0.3, 0.7]])
    assert metrics.log_loss(np.array([0, 1]), proba) == pytest.approx(-np.log(0.7) / 2)
