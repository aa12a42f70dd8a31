"""The paired bootstrap behind the calibration lesson's "within noise" verdicts.

A user trial found "Complementary here: the combination beats either alone" said of a
0.001 log-loss gap on 750 test rows, and "the ECE grows" of +0.005 on 143 rows: each
difference now comes with its paired standard error (:mod:`heb.lessons.paired_noise`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heb.lessons import calibration, paired_noise
from heb.metrics import brier, ece_top1, log_loss
from tests.test_presenter import open_lesson

PEERS = {"ece": ece_top1, "log_loss": log_loss, "brier": brier}


def _rows(n: int, n_classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(n_classes), size=n)
    return rng.integers(0, n_classes, n), proba


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    n_classes=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    metric=st.sampled_from(paired_noise.METRICS),
)
def test_the_unweighted_replicate_is_the_metric_itself(n, n_classes, seed, metric):
    """Each row weighted once gives :mod:`heb.metrics`' value: the row terms are the
    metric's (the ECE's bins as :func:`heb.metrics.reliability` draws them)."""
    y, proba = _rows(n, n_classes, seed)
    terms = paired_noise._row_terms(y, proba, metric)
    once = paired_noise._replicates(terms, np.ones((1, n)), metric)[0]
    assert once == pytest.approx(PEERS[metric](y, proba), abs=1e-12)


def test_a_confidence_on_a_bin_edge_goes_to_its_bin_as_in_the_metric():
    """Top-1 confidences on the bins' edges (k / 10, as the metric's edges are made)."""
    top = np.arange(5, 11) / 10
    proba = np.column_stack([top, 1 - top])
    y = np.array([0, 1, 0, 0, 1, 1])  # no term is 0 (a right answer at confidence 1)
    terms = paired_noise._row_terms(y, proba, "ece")
    edges = np.arange(11) / 10
    assert (terms != 0).argmax(axis=1).tolist() == [
        min(int(np.searchsorted(edges, c, side="right")) - 1, 9) for c in top
    ]
    once = paired_noise._replicates(terms, np.ones((1, 6)), "ece")[0]
    assert once == pytest.approx(ece_top1(y, proba), abs=1e-12)


def test_the_same_model_twice_has_no_noise_and_one_row_none():
    y, proba = _rows(200, 3, 1)
    for metric in paired_noise.METRICS:
        assert paired_noise.paired_difference_se(y, proba, proba, metric) == 0.0
    y1, p1 = _rows(1, 3, 2)
    assert paired_noise.paired_difference_se(y1, p1, _rows(1, 3, 3)[1], "log_loss") == 0.0


def test_the_log_loss_standard_error_is_the_paired_rows_spread_over_root_n():
    """For a mean of per-row differences d the bootstrap's standard error tends to
    std(d) / sqrt(n); 2,000 replicates put it within a few per cent."""
    n = 500
    y, a = _rows(n, 3, 4)
    _, b = _rows(n, 3, 5)
    rows = np.arange(n)
    d = np.log(b[rows, y]) - np.log(a[rows, y])
    expected = d.std() / np.sqrt(n)
    se = paired_noise.paired_difference_se(y, a, b, "log_loss", n_boot=2000)
    assert se == pytest.approx(expected, rel=0.08)


def test_the_same_seed_gives_the_same_answer_and_more_rows_less_noise():
    y, a = _rows(400, 2, 6)
    _, b = _rows(400, 2, 7)
    first = paired_noise.paired_difference_se(y, a, b, "ece", seed=3)
    assert paired_noise.paired_difference_se(y, a, b, "ece", seed=3) == first
    big_y, big_a = np.tile(y, 16), np.tile(a, (16, 1))
    big_se = paired_noise.paired_difference_se(big_y, big_a, np.tile(b, (16, 1)), "brier")
    assert big_se < paired_noise.paired_difference_se(y, a, b, "brier") / 2


def test_bad_arguments_are_refused_in_one_sentence():
    y, a = _rows(10, 2, 8)
    with pytest.raises(ValueError, match="metric must be one of ece, log_loss, brier"):
        paired_noise.paired_difference_se(y, a, a, "accuracy")
    with pytest.raises(ValueError, match="same rows"):
        paired_noise.paired_difference_se(y, a, a[:5], "ece")
    with pytest.raises(ValueError, match="same rows"):
        paired_noise.paired_difference_se(y[:5], a, a, "ece")


def test_difference_kinds_and_their_words():
    assert paired_noise.difference_kind(0.01, 0.005) == "noise"  # exactly 2 se: noise
    assert paired_noise.difference_kind(-0.0102, 0.005) == "lower"
    assert paired_noise.difference_kind(0.0102, 0.005) == "higher"
    assert paired_noise.difference_kind(0.0003, 0.0001, negligible=5e-4) == "negligible"
    assert paired_noise.format_gap(-0.0123, 0.00456) == "0.012 (standard error 0.0046)"
    assert paired_noise.format_small(3e-5) == "under 0.0001"


def _verdict(kind: str, diff: float, se: float) -> dict:
    return {
        "laplace": 0.2,
        "upstream": ("HEB-M", 0.15),
        "post_hoc": ("Laplace + Platt", 0.12),
        "combined": ("HEB-M + Platt", 0.12 + diff),
        "single": ("Laplace + Platt", 0.12),
        "diff": diff,
        "se": se,
        "kind": kind,
        "complementary": kind == "lower",
        "n_test": 1250,
    }


@pytest.mark.parametrize(
    ("kind", "diff", "se", "said"),
    [
        (
            "lower",
            -0.02,
            0.004,
            "**Complementary here**: the combination is 0.02 lower than the best single "
            "remedy, Laplace + Platt (standard error 0.004).",
        ),
        (
            "higher",
            0.02,
            0.004,
            "**Not complementary here**: the combination is 0.02 higher than the best single "
            "remedy, Laplace + Platt (standard error 0.004).",
        ),
        (
            "noise",
            -0.001,
            0.003,
            "**Within noise here**: the combination is 0.001 lower than the best single "
            "remedy, Laplace + Platt (standard error 0.003), too little to call on 1,250 "
            "test rows.",
        ),
        (
            "negligible",
            0.0003,
            0.0001,
            "**No gain worth having here**: the combination is 0.0003 higher than the best "
            "single remedy, Laplace + Platt (standard error 0.0001) on 1,250 test rows.",
        ),
    ],
)
def test_the_verdict_says_each_kind_with_its_gap(kind, diff, se, said):
    text = calibration.verdict_text(_verdict(kind, diff, se), "log-loss", 4)
    # 0.200, or 0.2000 beside a difference of 0.0003 (the values to its decimals)
    assert text.startswith("**With 4 copies:** Laplace log-loss 0.200")
    assert text.endswith(said)


def test_the_user_trials_noise_is_called_noise():
    """known-truth, log-loss, 4 copies: Laplace + temperature 0.173, HEB-M + temperature
    0.172 was "Complementary here"; breast-cancer's ECE 0.054 -> 0.059 (143 test rows)
    was "the ECE grows"."""
    data = calibration.calibration_data("known-truth")
    feature = calibration.most_informative_feature(data["codes"], data["y"])
    compared = calibration.calibration_comparison(data["codes"], data["y"], feature, 4)
    verdict = calibration.complementarity(compared, "log_loss")
    assert abs(verdict["diff"]) < 0.002 and verdict["kind"] == "noise"
    assert "Within noise here" in calibration.verdict_text(verdict, "log-loss", 4)
    cancer = calibration.calibration_data("breast-cancer")
    feature = calibration.most_informative_feature(cancer["codes"], cancer["y"])
    sweep = calibration.double_counting_sweep(cancer["codes"], cancer["y"], feature, 4)
    text = calibration.double_counting_text(sweep, 4)
    assert "ECE 0.054 → 0.059" in text
    assert "is within noise on 143 test rows" in text
    assert "the ECE grows" not in text


def test_one_copy_shows_no_ece_change():
    """k = 1 compared one copy with itself: a red "+0.000 vs k=1"."""
    at = open_lesson("lesson_calibration", calib_copies="1")
    assert not at.exception
    ece = next(m for m in at.metric if m.label == "ECE with k copies")
    assert not ece.proto.delta
    at = open_lesson("lesson_calibration", calib_copies="2")
    ece = next(m for m in at.metric if m.label == "ECE with k copies")
    assert ece.proto.delta.endswith("vs k=1")
