"""Order statistics from histograms and metrics from sufficient statistics equal numpy's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heb.metrics import all_metrics, auc_ovr, reliability
from heb.scale.encoding import weighted_median, weighted_quantile
from heb.scale.streaming_metrics import MetricSums

values_and_counts = st.lists(
    st.tuples(
        st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 1)),
        st.integers(1, 40),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(values_and_counts, st.integers(2, 12))
def test_weighted_quantile_is_numpy_quantile_bit_for_bit(pairs, n_bins):
    table = dict(pairs)
    values = np.array(sorted(table))
    weights = np.array([table[v] for v in values], dtype=np.float64)
    rows = np.repeat(values, weights.astype(int))
    q = np.linspace(0.0, 1.0, n_bins + 1)
    assert np.array_equal(weighted_quantile(values, weights, q), np.quantile(rows, q))
    assert weighted_median(values, weights) == np.median(rows)


def _random_fold(rng, n, n_classes):
    logits = rng.normal(size=(n, n_classes)) * 3
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    proba[: n // 10] = np.round(proba[: n // 10], 1)  # ties
    proba[: n // 10] /= proba[: n // 10].sum(axis=1, keepdims=True)
    y = rng.integers(0, n_classes, n)
    return y, proba


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_metrics_from_batches_equal_all_metrics(n_classes):
    rng = np.random.default_rng(n_classes)
    y, proba = _random_fold(rng, 2_000, n_classes)
    sums = MetricSums(n_classes)
    for lo in range(0, 2_000, 317):
        sums.update(y[lo : lo + 317], proba[lo : lo + 317])
    result = sums.result()
    expected = all_metrics(y, proba)
    for name, value in expected.items():
        assert result[name] == pytest.approx(value, abs=1e-12), name
    assert result["auc_bound"] == 0.0


def test_partitions_merge_to_the_whole():
    rng = np.random.default_rng(7)
    y, proba = _random_fold(rng, 900, 3)
    whole = MetricSums(3).update(y, proba).result()
    left = MetricSums(3).update(y[:400], proba[:400])
    right = MetricSums(3).update(y[400:], proba[400:])
    merged = left.merge(right).result()
    assert merged == pytest.approx(whole, abs=1e-12)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_auc_on_the_logit_grid_stays_within_its_stated_bound(n_classes):
    rng = np.random.default_rng(11)
    y, proba = _random_fold(rng, 5_000, n_classes)
    sums = MetricSums(n_classes, max_distinct=300)
    for lo in range(0, 5_000, 1_000):
        sums.update(y[lo : lo + 1_000], proba[lo : lo + 1_000])
    result = sums.result()
    exact = auc_ovr(y, proba)
    assert sums.state["auc_grid"][0] == 1.0
    assert 0 < result["auc_bound"] < 0.01
    assert abs(result["auc"] - exact) <= result["auc_bound"] + 1e-12
    assert result["accuracy"] == pytest.approx(all_metrics(y, proba)["accuracy"], abs=1e-12)


def test_a_fold_without_rows_is_refused():
    with pytest.raises(ValueError, match="no rows"):
        MetricSums(2).result()


@pytest.mark.parametrize("n_classes", [2, 3])
def test_reliability_from_merged_batches_equals_the_in_memory_diagram(n_classes):
    rng = np.random.default_rng(20 + n_classes)
    y, proba = _random_fold(rng, 1_500, n_classes)
    proba[:40] = 1.0 / n_classes  # confidences on a bin edge (1/2 and 1/3 of the way)
    left = MetricSums(n_classes).update(y[:600], proba[:600])
    right = MetricSums(n_classes)
    for lo in range(600, 1_500, 250):
        right.update(y[lo : lo + 250], proba[lo : lo + 250])
    got, expected = left.merge(right).reliability(), reliability(y, proba)
    np.testing.assert_array_equal(got["count"], expected["count"])
    for key in ("edges", "confidence", "accuracy"):
        np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=1e-12)
    assert got["ece"] == pytest.approx(all_metrics(y, proba)["ece"], abs=1e-12)


def test_reliability_of_no_rows_is_refused():
    with pytest.raises(ValueError, match="at least one row"):
        MetricSums(2).reliability()


def test_round_off_beyond_one_is_clipped_as_in_memory():
    """A probability of 1 + 2.2e-16 (round-off of another source) gave AUC 0.5 here and
    0.375 in :func:`heb.metrics.all_metrics`, which clips to [0, 1] first."""
    y = np.array([0, 1, 1, 0])
    proba = np.array([[0.0, 1.0 + 2.2e-16], [0.0, 1.0], [0.7, 0.3], [0.2, 0.8]])
    proba[0, 0] = -2.2e-16
    got, want = MetricSums(2).update(y, proba).result(), all_metrics(y, proba)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
