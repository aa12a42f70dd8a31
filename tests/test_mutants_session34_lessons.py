"""Session 34's mutation round on the lesson math (:mod:`heb.lessons`): each test kills
a hand-made mutant the lesson tests let live, on numbers worked out by hand (the toy
spam corpus's counts, the Dirichlet posterior mean, Theorem 2's vertex bias)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from heb.lessons import calibrators, common, dirichlet, evidence, high_cardinality, paired_noise
from heb.lessons import hierarchy as hier
from heb.lessons import zero_counts as zero

# the toy corpus's class totals: spam 30+18+25+22+20+2+1+0+3+15, ham 4+0+6+3+5+28+35+14+22+0
SPAM, HAM = 136, 117


# ---------------------------------------------------------------- lesson 1: zero counts


def test_unsmoothed_word_probabilities_are_each_classs_counts_over_its_total():
    theta, log_prior = zero.word_probabilities(zero.toy_spam(), 0.0)
    assert theta[0, 0] == pytest.approx(30 / SPAM)  # "free" in spam
    assert theta[1, 6] == pytest.approx(35 / HAM)  # "project" in ham
    assert theta[1, 9] == 0.0 and theta[0, 7] == 0.0  # the two zeros stay zeros
    assert theta.sum(axis=1) == pytest.approx([1.0, 1.0])
    # log (N_c + 1) / (S + C): 40 and 60 e-mails
    assert log_prior == pytest.approx(np.log([41 / 102, 61 / 102]))


def test_laplace_word_probabilities_add_one_to_every_count():
    theta, _ = zero.word_probabilities(zero.toy_spam(), 1.0)
    assert theta[0, 0] == pytest.approx(31 / (SPAM + 10))
    assert theta[1, 9] == pytest.approx(1 / (HAM + 10))


def test_one_vetoed_class_leaves_the_other_certain():
    """The word "unsubscribe" never occurs in ham: ham is vetoed, spam takes all the posterior."""
    scored = zero.score_message(zero.toy_spam(), ["unsubscribe"], 0.0)
    assert scored["vetoed"].tolist() == [False, True]
    assert scored["posterior"] == pytest.approx([1.0, 0.0])
    assert scored["log_score"][1] == 0.0  # a vetoed class's entry holds 0.0
    assert scored["log_score"][0] == pytest.approx(np.log(41 / 102) + np.log(15 / SPAM))


def test_the_direct_product_is_the_prior_times_the_factors_per_copy():
    message = ["free", "meeting"]
    curve = zero.underflow_curve(zero.toy_spam(), message, 1.0, max_copies=3)
    assert curve["n_words"].tolist() == [2, 4, 6]
    spam = 41 / 102 * (31 / 146) * (3 / 146)
    ham = 61 / 102 * (5 / 127) * (29 / 127)
    assert curve["direct"][:, 0] == pytest.approx([spam, ham], rel=1e-12)
    assert curve["direct"][0, 2] == pytest.approx(41 / 102 * ((31 / 146) * (3 / 146)) ** 3)
    assert curve["log10_likelihood"][:, 0] == pytest.approx(np.log10([spam, ham]))
    assert curve["direct_posterior"][:, 0] == pytest.approx([spam, ham] / np.sum([spam, ham]))


def test_every_class_vetoed_has_no_direct_answer_either():
    """The message "unsubscribe agenda" unsmoothed: both products are exactly 0 (vetoes, not
    underflow), the direct posterior is 0 / 0 with a uniform placeholder."""
    curve = zero.underflow_curve(zero.toy_spam(), ["unsubscribe", "agenda"], 0.0, max_copies=2)
    assert curve["vetoed"].all() and curve["posterior"] is None
    assert not curve["direct_defined"].any()
    assert (curve["direct_posterior"] == 0.5).all()
    assert not curve["underflow"].any()  # a veto is not an underflow
    assert zero.direct_summary(curve, zero.toy_spam(), 0).startswith("0 / 0")


def test_the_curve_runs_to_max_copies_and_needs_one():
    curve = zero.underflow_curve(zero.toy_spam(), ["free"], 1.0, max_copies=250)
    assert curve["n_words"][-1] == 250 and curve["direct"].shape == (2, 250)
    with pytest.raises(ValueError, match="at least once"):
        zero.underflow_curve(zero.toy_spam(), ["free"], 1.0, max_copies=0)
    with pytest.raises(ValueError, match="empty"):
        zero.score_message(zero.toy_spam(), [], 1.0)


# ---------------------------------------------------------------- common


def test_common_formats_and_the_posterior_mean():
    assert common.format_m(1000) == "1,000"
    assert common.format_m(999) == "999"
    assert common.format_decimals(0.005, 3) == "0.0050"  # below 0.01: two figures
    assert common.format_decimals(0.01, 3) == "0.010"
    # (n + m t) / (N + m): counts (3, 1), t = (1/2, 1/2), m = 2
    assert common.dirichlet_posterior_mean([3, 1], [0.5, 0.5], 2.0) == pytest.approx([4 / 6, 2 / 6])
    assert common.dirichlet_posterior_mean([3, 1], [0.9, 0.1], 6.0) == pytest.approx(
        [(3 + 5.4) / 10, (1 + 0.6) / 10]
    )
    # no counts: the prior mean for m > 0, uniform for m = 0
    assert common.dirichlet_posterior_mean([0, 0], [0.9, 0.1], 0.0) == pytest.approx([0.5, 0.5])
    assert common.dirichlet_posterior_mean([0, 0], [0.9, 0.1], 1.0) == pytest.approx([0.9, 0.1])
    with pytest.raises(ValueError, match="negative"):
        common.dirichlet_posterior_mean([1, 1], [0.5, 0.5], -0.5)


# ---------------------------------------------------------------- lesson 2: Dirichlet


def test_the_prior_share_and_the_view_by_hand():
    assert dirichlet.prior_weight(10, 90, 1.0) == pytest.approx(0.1)
    view = dirichlet.dirichlet_view(np.array([0.5, 0.5]), np.array([3.0, 1.0]), 1.0)
    assert view["estimate"] == pytest.approx([4 / 6, 2 / 6])  # Laplace: (n + 1) / (N + 2)
    assert view["prior_share"] == pytest.approx(2 / 6)
    assert view["l1"] == pytest.approx(1 / 3)


def test_the_exact_bias_is_the_prior_share_times_the_l1_to_uniform():
    p = np.array([0.7, 0.2, 0.1])
    sweep = dirichlet.alpha_sweep(p, 10, np.array([1.0]), reps=5)
    # K alpha / (N + K alpha) * ||1/K - p*||_1 = 3/13 * (0.3667 + 0.1333 + 0.2333)
    assert sweep["bias_l1"][0] == pytest.approx(3 / 13 * (11 / 15))


def test_the_largest_bias_is_2_alpha_k_minus_1_over_n_plus_k_alpha():
    assert dirichlet.max_bias_l1(2, 5, 1.0) == pytest.approx(2 / 7)
    assert dirichlet.max_bias_l1(50, 50, 0.1) == pytest.approx(2 * 0.1 * 49 / 55)


def test_a_share_above_99_percent_keeps_its_decimal():
    assert dirichlet.format_share(0.992) == "99.2%"
    assert dirichlet.format_share(0.995) == "99.5%"
    assert dirichlet.format_share(0.99) == "99%"


def test_the_example_needs_two_categories_and_sorts_largest_first():
    with pytest.raises(ValueError, match="K = 2"):
        dirichlet.dirichlet_example(1, 5)
    p_true, counts = dirichlet.dirichlet_example(8, 30, "flat", seed=3)
    assert (np.diff(p_true) <= 0).all() and counts.sum() == 30
    assert dirichlet.TRUTH_CONCENTRATION == {"sparse": 0.3, "flat": 5.0}  # as documented


# ---------------------------------------------------------------- calibrators


class _Fixed:
    """A fitted model whose posteriors are given."""

    classes_ = np.array([0, 1])

    def __init__(self, proba):
        self.proba = np.asarray(proba, dtype=float)

    def predict_log_proba(self, X):
        return np.log(self.proba)


def test_the_log_odds_view_is_log_p1_minus_log_p0():
    view = calibrators.LogOddsView(_Fixed([[0.8, 0.2], [0.25, 0.75]]))
    assert view.decision_function(None) == pytest.approx([np.log(0.25), np.log(3.0)])


def test_temperature_two_takes_the_square_root_of_the_odds():
    scaled = calibrators.temperature_scale(np.log([[0.8, 0.2]]), 2.0)
    assert scaled[0] == pytest.approx([2 / 3, 1 / 3])  # odds 4 -> 2
    with pytest.raises(ValueError, match="positive"):
        calibrators.temperature_scale(np.log([[0.8, 0.2]]), 0.0)


def test_an_under_confident_model_is_sharpened_below_t_1():
    """Every row 0.6 / 0.4 and class 0 on 90 rows of 100: the best posterior is 0.9, odds
    1.5^(1/T) = 9, so T = log 1.5 / log 9 (T < 1 sharpens)."""
    y = np.repeat([0, 1], [90, 10])
    t = calibrators.fit_temperature(np.log(np.tile([0.6, 0.4], (100, 1))), y)
    assert t == pytest.approx(np.log(1.5) / np.log(9), rel=1e-5)


# ---------------------------------------------------------------- paired noise


def test_the_noise_threshold_is_two_standard_errors_exactly():
    assert paired_noise.NOISE_SE == 2.0
    assert paired_noise.difference_kind(0.199, 0.1) == "noise"
    assert paired_noise.difference_kind(0.201, 0.1) == "higher"
    # beyond noise and exactly at the negligible size: no longer negligible
    assert paired_noise.difference_kind(1e-3, 1e-4, negligible=1e-3) == "higher"


def test_a_small_difference_is_written_in_plain_decimals():
    """7e-05 was printed in scientific notation ("a gap of 7e-05 (standard error ...)")
    by the ".2g" format between 5e-5 and 1e-4 (a held-out verdict's standard error)."""
    assert paired_noise.format_small(7e-5) == "under 0.0001"
    assert paired_noise.format_small(-9.5e-5) == "under 0.0001"
    assert paired_noise.format_small(1e-4) == "0.0001"
    assert paired_noise.format_small(0.00071) == "0.00071"
    assert paired_noise.format_small(-0.0123) == "0.012"
    assert paired_noise.format_small(4e-5) == "under 0.0001"
    assert "e-0" not in paired_noise.format_gap(6e-5, 8e-5)


def test_the_bootstrap_spread_uses_n_minus_one():
    """Two rows, one model right with certainty and one wrong-ish: the replicates' spread
    is np.std with ddof = 1 (checked against the replicates drawn by hand)."""
    y = np.array([0, 1])
    a = np.array([[0.9, 0.1], [0.5, 0.5]])
    b = np.array([[0.5, 0.5], [0.5, 0.5]])
    weights = paired_noise._weights(2, 400, 0)
    terms = np.log(0.5) - np.log(np.array([0.9, 0.5]))  # row log-loss a - b
    diff = weights @ terms / 2
    se = paired_noise.paired_difference_se(y, a, b, "log_loss")
    assert se == pytest.approx(np.std(diff, ddof=1))
    assert se != pytest.approx(np.std(diff, ddof=0))


def test_the_ece_replicate_sums_each_bins_absolute_gap():
    """Two rows in two bins whose gaps have opposite signs: their absolute values add."""
    y = np.array([0, 1])
    proba = np.array([[0.95, 0.05], [0.65, 0.35]])  # right at 0.95, wrong at 0.65
    terms = paired_noise._row_terms(y, proba, "ece")
    once = paired_noise._replicates(terms, np.ones((1, 2)), "ece")[0]
    assert once == pytest.approx((0.05 + 0.65) / 2)


# ---------------------------------------------------------------- lesson 4: high cardinality


def _grid(laplace: float, heb: float, K: int = 10, N: int = 50) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "K": [K, K],
            "N": [N, N],
            "smoother": ["laplace", "heb-u"],
            "mean": [laplace, heb],
        }
    )


def test_the_reduction_is_one_minus_heb_over_laplace():
    out = high_cardinality.theorem1_reduction(_grid(0.2, 0.15))
    assert out["reduction"].iloc[0] == pytest.approx(0.25)
    table = high_cardinality.reduction_table(high_cardinality.theorem1_reduction(_grid(0.3, 0.2)))
    assert table["reduction %"].iloc[0] == pytest.approx(33.3)


def test_the_separation_text_splits_at_k_over_n_one_tenth():
    frame = pd.DataFrame(
        {"K_over_N": [0.05, 0.1], "reduction": [-0.03, 0.007]},
    )
    text = high_cardinality.separation_text(frame, 0.3)
    assert high_cardinality.SEPARATION == 0.1  # the paper's section 5.2
    assert "3% above Laplace's for K/N < 0.1" in text
    assert "1% below Laplace's from K/N = 0.1 on" in text  # 0.7%: not "within 1%"


def test_laplaces_vertex_bias_is_theorem_2s():
    assert high_cardinality.laplace_vertex_bias(10, 90) == pytest.approx(18 / 100)
    frame = high_cardinality.vertex_errors([10], 90)
    row = frame.iloc[0]
    m = row["heb_m"]
    assert row["heb_formula"] == pytest.approx(2 * m * 0.9 / (90 + m))
    assert row["heb_l1"] == pytest.approx(row["heb_formula"])
    with pytest.raises(ValueError, match="at least one"):
        high_cardinality.vertex_errors([10], 0)


def test_errors_and_reductions_as_shown():
    assert high_cardinality.format_error(0.0123) == "0.0123"
    assert high_cardinality.format_error(0.25) == "0.250"
    assert high_cardinality.format_reduction(0.0996) == "10%"
    assert high_cardinality.format_reduction(0.0994) == "9.9%"
    assert high_cardinality.format_reduction(-0.0004) == "0%"
    assert high_cardinality.format_reduction(-0.25) == "−25%"


# ---------------------------------------------------------------- lesson 7: hierarchy


def test_codes_and_probabilities_as_shown():
    labels = hier.code_labels()
    assert labels[0] == "1000" and labels[-1] == "4409" and len(labels) == 200
    assert hier.format_probability(0.01195) == "0.0120"
    assert hier.format_probability(0.00348) == "0.00348"
    assert hier.format_probability(5e-7) == "under 0.000001"
    assert hier.format_probability(0.0) == "0"


def test_the_sparse_code_is_the_likeliest_with_at_most_one_row():
    counts = np.array([[5.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    theta = np.array([[0.5, 0.2, 0.25, 0.05], [0.25, 0.25, 0.25, 0.25]])
    # code 2 (no row anywhere) is not a candidate; of codes 1 and 3, code 1 is likelier
    assert hier._sparse_leaf(counts, theta) == 1


def _concentrations(m, weight=(0.9, 0.9)):
    rows = []
    for c in range(len(m)):
        for lv, name in enumerate(hier.LEVEL_NAMES):
            rows.append(
                {"class": c, "level": name, "learned m": m[c][lv], "tree's weight": weight[c]}
            )
    return pd.DataFrame(rows)


def test_the_clamp_text_names_the_levels_at_m_max():
    top = common.M_MAX
    text = hier.clamp_text(_concentrations([[5.0, 3.0, top], [4.0, 2.0, 1.0]]))
    assert text.startswith("At the code level m reaches 5;")
    assert "reached at the region level (class 0)" in text
    none = hier.clamp_text(_concentrations([[5.0, 3.0, 1.0], [4.0, 2.0, 1.0]]))
    assert "no level reaches the clamp" in none


def test_the_weight_text_names_the_classes_under_one_half():
    assert hier.weight_text(_concentrations([[1, 1, 1]] * 2, (0.6, 0.5))) == ""
    text = hier.weight_text(_concentrations([[1, 1, 1]] * 2, (0.45, 0.7)))
    assert "for class 0 (0.450)" in text


def test_the_lesson_reads_laplace_and_the_errors_by_hand():
    lesson = hier.hierarchy_lesson(n_per_class=50, seed=1)
    counts, theta = lesson["counts"], lesson["theta"]
    laplace = (counts + 1) / (50 + counts.shape[1])
    assert lesson["estimates"]["laplace"] == pytest.approx(laplace)
    l1 = lesson["l1"].set_index("smoother")["mean l1 error"]
    assert l1["Laplace"] == pytest.approx(np.abs(laplace - theta).sum(axis=1).mean())
    leaf = lesson["leaf_table"]
    assert (leaf["error"] == leaf["estimate"] - leaf["truth"]).all()
    siblings = np.flatnonzero(lesson["levels"][0] == lesson["levels"][0][lesson["leaf"]])
    unseen = [lesson["labels"][v] for v in siblings if counts[:, v].sum() == 0]
    assert lesson["unseen"] == unseen


# ---------------------------------------------------------------- lesson 3: evidence


def test_the_held_out_prior_adds_one_to_every_pooled_count():
    prior = evidence.heldout_prior(np.array([[3.0, 1.0, 0.0]]))
    assert prior[0] == pytest.approx([4 / 7, 2 / 7, 1 / 7])


def test_the_paired_standard_error_by_hand():
    """Rows weighted 1, 2, 1 with differences 1, 0, -1: mean 0, variance 2 / 3 (N - 1)."""
    mean, se = evidence._paired(np.array([1.0, 2.0, 1.0]), np.array([1.0, 0, -1]), np.zeros(3))
    assert mean == 0.0
    assert se == pytest.approx(math.sqrt(2 / 3 / 4))


def test_the_typed_vector_limits_are_inclusive():
    assert evidence.parse_counts(", ".join(["1"] * 5000)).size == 5000
    assert evidence.parse_counts("999999, 1").sum() == evidence.MAX_TYPED_ROWS


def test_the_folds_are_at_most_the_rows():
    curve = evidence.heldout_log_loss_curve(np.array([2.0, 1.0]), np.array([0.5, 0.5]), [1.0])
    assert curve["n_folds"] == 3 and curve["n_rows"] == 3


def test_a_uniform_prior_is_uniform_to_twelve_digits():
    assert evidence.is_uniform(np.full(4, 0.25))
    assert not evidence.is_uniform(np.array([0.251, 0.249, 0.25, 0.25]))
    assert evidence.format_loss(1.91623) == "1.9162"


# ---------------------------------------------------------------- lesson 6: known truth


def _posterior(low: float, high: float, n: int = 101) -> np.ndarray:
    p1 = np.linspace(low, high, n)
    return np.column_stack([1 - p1, p1])


def _study(label_range, truth_range=(0.0, 1.0), laplace_range=None) -> dict:
    posteriors = {"HEB-M": _posterior(*label_range)}
    if laplace_range is not None:
        posteriors["Laplace"] = _posterior(*laplace_range)
    return {
        "posteriors": posteriors,
        "true_posterior": _posterior(*truth_range),
        "largest_m": {"HEB-M": 12.5},
    }


def test_the_posterior_range_spans_the_5th_to_95th_percentile():
    from heb.lessons import known_truth

    assert known_truth.posterior_range(_posterior(0.0, 1.0)) == pytest.approx((0.05, 0.95))


def test_a_flat_band_is_under_a_quarter_of_the_truths_spread():
    """The truth spans 0.05 to 0.95 (0.9); HEB-M 0.401 to 0.599 (0.198 < 0.225)."""
    from heb.lessons import known_truth

    study = _study((0.39, 0.61))
    assert known_truth.FLAT_BAND == 0.25
    assert known_truth.blurred(study)
    text = known_truth.blur_text(study)
    assert text.startswith("Here its largest m is 12.5 and its P(class 1 | x) spans 0.40 to 0.60")
    assert text.endswith("a flat band in the posteriors.")
    # 0.243 of 0.9 is no flat band
    assert not known_truth.blurred(_study((0.365, 0.635)))


def test_a_spread_of_80_percent_of_the_truths_is_no_blur():
    """HEB-M from 0.1 to 0.9333 spans 0.9 x 0.8333 = 0.75 on 90% of the rows, the truth
    0.9: 83% of it (at least CLEAR_BAND = 0.8)."""
    from heb.lessons import known_truth

    study = _study((0.1, 0.1 + 0.75 / 0.9))
    low, high = known_truth.posterior_range(study["posteriors"]["HEB-M"])
    assert high - low == pytest.approx(0.75)
    assert known_truth.blur_text(study).endswith("about the truth's spread, no blur here.")
    # 0.7 of 0.9 (78%) is neither a flat band nor the truth's spread
    assert known_truth.blur_text(_study((0.1, 0.1 + 0.7 / 0.9))).endswith("0.05 to 0.95.")


def test_a_truth_that_hardly_separates_blurs_nothing():
    from heb.lessons import known_truth

    study = _study((0.49, 0.51), truth_range=(0.48, 0.52))
    assert not known_truth.blurred(study)
    assert known_truth.blur_text(study).endswith("so nothing blurs.")


def test_the_smallest_value_names_every_smoother_tied_at_the_shown_decimals():
    from heb.lessons import known_truth

    summary = pd.DataFrame({"label": ["A", "B", "C"], "ece": [0.0101, 0.0104, 0.02]})
    assert known_truth.smallest(summary, "ece", "Lowest ECE") == (
        "Lowest ECE: A and B (tied)",
        "0.010",
    )
    four = pd.DataFrame({"label": list("ABCD"), "ece": [0.01] * 3 + [0.5]})
    assert known_truth.smallest(four, "ece", "T")[0] == "T: A, B and C (tied)"
    five = pd.DataFrame({"label": list("ABCDE"), "ece": [0.01] * 4 + [0.5]})
    assert known_truth.smallest(five, "ece", "T")[0] == "T: 4 smoothers (tied)"
    one = pd.DataFrame({"label": ["A", "B"], "ece": [0.01, 0.5]})
    assert known_truth.smallest(one, "ece", "T") == ("T: A", "0.010")


def test_the_test_rows_are_the_last_of_the_sample():
    from heb.lessons import known_truth
    from heb.synthetic import sample_naive_bayes

    study = known_truth.known_truth_study(
        n_train=100, n_categories=5, n_features=2, n_test=50, smoothers=("laplace",)
    )
    _, y, _ = sample_naive_bayes(
        known_truth.KNOWN_TRUTH_POOL + 50, [5, 5], n_classes=2, alpha_dir=0.5, seed=0
    )
    assert np.array_equal(study["y_test"], y[-50:])


def test_the_true_posterior_weighs_the_unequal_class_prior():
    """The ID-like preset's classes are 85% / 15%: the truth's posterior is Bayes' rule,
    prior_c prod_f theta_f[c, x_f], normalised (without the prior it was another)."""
    from heb.lessons import known_truth
    from heb.synthetic import high_cardinality_preset

    study = known_truth.known_truth_study(
        n_train=100, n_test=20, preset="high-cardinality", smoothers=("laplace",)
    )
    codes, _, truth = high_cardinality_preset(n_samples=known_truth.KNOWN_TRUTH_POOL + 20)
    prior = np.asarray(truth["class_prior"])
    assert prior == pytest.approx([0.85, 0.15])
    for row, x in enumerate(codes[-20:]):
        joint = prior * np.prod([t[:, v] for t, v in zip(truth["theta"], x, strict=True)], axis=0)
        assert study["true_posterior"][row] == pytest.approx(joint / joint.sum(), rel=1e-9)


# ---------------------------------------------------------------- lesson 5: calibration


def test_a_duplicated_feature_is_appended_copies_minus_one_times():
    from heb.lessons import calibration

    codes = np.array([[0, 1, 2], [3, 4, 5]])
    assert calibration.duplicate_feature(codes, 1, 3).tolist() == [[0, 1, 2, 1, 1], [3, 4, 5, 4, 4]]
    assert calibration.duplicate_feature(codes, 2, 1).tolist() == codes.tolist()
    with pytest.raises(ValueError, match="no feature number 3"):
        calibration.duplicate_feature(codes, 3, 2)


def test_the_reliability_text_counts_bins_below_and_above_and_the_small_ones():
    from heb.lessons import calibration

    curve = {
        "count": [0, 5, 3, 2],
        "accuracy": [0.0, 0.5, 0.9, 0.7],
        "confidence": [0.0, 0.6, 0.8, 0.7],
    }
    assert calibration.reliability_text(curve, 2, min_rows=4) == (
        "With 2 copies, 1 of the 3 occupied bins lies below the diagonal (surer than right) "
        "and 1 above it. The 2 grey hollow points are bins of fewer than 4 rows, off the curve."
    )


def test_the_temperature_text_explains_t_below_one_only_when_fitted():
    from heb.lessons import calibration

    table = pd.DataFrame(
        {"model": ["Laplace", "HEB-M", "HEB-M"], "temperature": [1.5, 0.8, np.nan]}
    )
    assert calibration.temperature_text(table) == (
        "Fitted temperatures: Laplace T = 1.50, HEB-M T = 0.80 (T > 1 softens over-confident "
        "posteriors, T < 1 sharpens under-confident ones)."
    )
    assert calibration.temperature_text(table.iloc[:1]).endswith("over-confident posteriors).")


def test_a_noisy_ece_change_is_called_noise_with_its_standard_error():
    """Two nearly equal sets of confident posteriors (top-1 at least 0.9): the ECE's change
    is within two paired standard errors, and the text says the confidence was high."""
    from heb.lessons import calibration
    from heb.metrics import all_metrics

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    top = rng.uniform(0.9, 1.0, 300)
    one = np.column_stack([top, 1 - top])
    top2 = np.clip(top + rng.normal(0, 0.01, 300), 0.9, 1.0)
    two = np.column_stack([top2, 1 - top2])
    sweep = {"y_test": y, "proba": {1: one, 2: two}}
    for key in ("accuracy", "ece"):
        sweep[key] = np.array([all_metrics(y, one)[key], all_metrics(y, two)[key]])
    sweep["mean_confidence"] = np.array([one.max(axis=1).mean(), two.max(axis=1).mean()])
    text = calibration.double_counting_text(sweep, 2)
    assert "is within noise on 300 test rows" in text and "(standard error " in text
    assert text.endswith(f"With one copy the confidence is already {one.max(axis=1).mean():.3f}.")


def test_an_unseen_category_gets_what_the_seen_ones_leave():
    """One feature of K = 4 with category 3 never seen, two with K = 2 and 3 all seen:
    under Laplace the unseen category's share is (0 + 1) / (N + K), as if smoothed."""
    from heb.counts import CountTable
    from heb.lessons import known_truth
    from heb.nb import NaiveBayes

    counts = np.array([[5.0, 2.0, 1.0, 0.0, 4.0, 4.0], [1.0, 3.0, 4.0, 0.0, 2.0, 6.0]])
    table = CountTable(np.array([8.0, 8.0]), counts, np.array([0, 4, 6]))
    pmfs = known_truth.estimated_pmfs(NaiveBayes(smoother="laplace").fit_counts(table))
    assert pmfs[0, :4] == pytest.approx(np.array([6, 3, 2, 1]) / 12)
    assert pmfs[1, :4] == pytest.approx(np.array([2, 4, 5, 1]) / 12)
    assert pmfs[:, 4:] == pytest.approx(np.array([[5, 5], [3, 7]]) / 10)


# ---------------------------------------------------------------- lesson 3: more


def test_the_pairs_evidence_is_equation_5_by_hand():
    """Counts (1, 1), t = (1/2, 1/2), m = 2: l = lnG(2) - lnG(4) + 2 (lnG(2) - lnG(1)) =
    -ln 6; a zero count whose prior mean is 0 adds nothing (not nan)."""
    from heb.counts import CountTable

    table = CountTable(np.array([2.0]), np.array([[1.0, 1.0, 0.0]]), np.array([0, 3]))
    value = evidence._pairs_log_evidence(
        table, np.array([0.5, 0.5, 0.0]), np.array([[2.0]]), np.array([[2.0]])
    )
    assert value[0, 0] == pytest.approx(-np.log(6.0))


def test_a_positive_count_with_prior_mean_zero_is_refused():
    with pytest.raises(ValueError, match="prior mean 0"):
        evidence.evidence_curve(np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="prior mean 0"):  # no engine fit to refuse it
        evidence.pmf_comparison(np.array([1.0, 2.0]), np.array([1.0, 0.0]), 1.0)


def test_held_out_scoring_needs_two_rows():
    with pytest.raises(ValueError, match="at least two rows"):
        evidence.heldout_log_loss_curve(np.array([1.0, 0.0]), np.array([0.5, 0.5]), [1.0])


def test_exactly_n0_training_rows_fit_m_rather_than_fall_back():
    """Twenty rows in two folds: ten training rows each, n0 = 10 is not below n0."""
    _, _, m = evidence.heldout_refit(np.array([15.0, 5, 0, 0]), np.full(4, 0.25), 2, n0=10)
    assert (m != 4.0).all()
    _, _, m = evidence.heldout_refit(np.array([15.0, 5, 0, 0]), np.full(4, 0.25), 2, n0=11)
    assert (m == 4.0).all()


def test_each_folds_prior_leaves_its_held_out_rows_out():
    counts = np.array([6.0, 3.0, 1.0])
    pooled = np.array([20.0, 9.0, 1.0])
    train, priors, _ = evidence.heldout_refit(counts, pooled / 30, 5, pooled=pooled)
    held = counts[None, :] - train
    # the other classes' 20 rows are dealt into the same folds (stream seed + 1)
    other_rows = np.random.default_rng(1).permutation(np.repeat(np.arange(3), [14, 6, 0]))
    other_fold = np.arange(20) % 5
    held = held + np.stack(
        [np.bincount(other_rows[other_fold == k], minlength=3) for k in range(5)]
    )
    assert held.sum(axis=1).tolist() == [6.0] * 5  # a fifth of the feature's 30 rows
    assert priors == pytest.approx((pooled - held + 1) / (30 - held.sum(axis=1) + 3)[:, None])


def test_the_best_held_out_m_stays_inside_the_clamp_and_diff_is_heb_minus_laplace():
    """Flat counts: the held-out loss falls with m past M_MAX; the best is sought inside."""
    c = evidence.heldout_comparison(np.array([10.0, 10, 10, 10]), np.full(4, 0.25), 1e4)
    assert c["best_m"] == common.M_MAX
    assert c["diff"] == pytest.approx(c["heb"] - c["laplace"])
    assert c["diff"] < 0


def test_the_lesson_shows_the_top_bars_in_category_order_and_rho():
    lesson = evidence.evidence_lesson(np.array([3.0, 1.0, 5.0, 0.0]), None, 1.0, max_bars=2)
    assert lesson["shown"].tolist() == [0, 2]
    m = lesson["curve"].m_hat
    assert lesson["rho"] == pytest.approx(m / (9 + m))
    whatif, heb = lesson["marks"]["what-if m"][1], lesson["marks"]["HEB-U's m"][1]
    assert lesson["whatif_change"] == pytest.approx(whatif - heb)


def test_a_held_out_gap_beyond_noise_but_under_1e3_nats_is_negligible():
    assert evidence.NEGLIGIBLE == 1e-3
    assert evidence.difference_kind(0.005, 0.001) == "higher"
    assert evidence.difference_kind(0.0008, 0.0001) == "negligible"


def _comparison(**changes) -> dict:
    c = {
        "heb": 1.2,
        "laplace": 1.3,
        "best": 1.19,
        "best_m": 3.0,
        "m_folds": np.array([2.0, 2.0, 2.0]),
        "diff": -0.1,
        "se": 0.01,
        "best_diff": 0.01,
        "best_se": 0.01,
        "heb_all_rows": 1.2,
        "n_rows": 500,
    }
    c.update(changes)
    return c


def test_the_verdict_gives_the_range_of_the_folds_m():
    text = evidence.heldout_verdict(
        _comparison(m_folds=np.array([2.0, 3.5])), "HEB-M", 2.5, False, 10, 0.05
    )
    assert "(m = 2 to 3.5)" in text and text.startswith("**HEB-M's m beats Laplace")


def test_a_noise_verdict_says_the_counts_outweigh_either_prior_only_when_they_do():
    def verdict(n_rows, K, diff):
        c = _comparison(diff=diff, se=0.01, n_rows=n_rows)
        return evidence.heldout_verdict(c, "HEB-M", 2.0, False, K, 0.004)

    many = verdict(500, 10, -0.001)  # K / (N + K) = 0.0196
    assert "the counts outweigh either prior" in many and "need not win" not in many
    few = verdict(50, 10, -0.001)  # K / (N + K) = 0.167: Laplace's prior weighs
    assert "outweigh" not in few
    assert verdict(500, 10, 0.001).endswith("it need not win.")  # Laplace ahead by noise


def test_laplace_ahead_names_the_prior_mean_only_when_even_the_best_m_loses():
    ahead = _comparison(diff=0.1, heb=1.4, best=1.35, best_diff=0.05)
    text = evidence.heldout_verdict(ahead, "HEB-M", 2.0, False, 10, 0.05)
    assert "the prior mean t, not m, makes the difference" in text
    behind = _comparison(diff=0.1, heb=1.4, best=1.25, best_diff=0.15)
    text = evidence.heldout_verdict(behind, "HEB-M", 2.0, False, 10, 0.05)
    assert "not m, makes" not in text


def test_a_uniform_prior_at_m_k_in_every_fold_is_laplace():
    c = _comparison(m_folds=np.array([10.0, 10.0, 10.0]), diff=0.0, se=0.0)
    text = evidence.heldout_verdict(c, "HEB-U", 10.0, True, 10, 0.02)
    assert text.startswith("**HEB-U uses Laplace's m = K here")
    c = _comparison(m_folds=np.array([10.0, 4.0, 10.0]), diff=0.0, se=0.0)
    text = evidence.heldout_verdict(c, "HEB-U", 10.0, True, 10, 0.02)
    assert not text.startswith("**HEB-U uses Laplace's m = K here")


# ---------------------------------------------------------------- more: hierarchy and calibration


def test_the_weight_and_clamp_texts_count_the_classes():
    text = hier.weight_text(_concentrations([[1, 1, 1]] * 2, (0.48, 0.7)))
    assert "for class 0 (0.480)" in text
    top = hier.M_MAX
    three = _concentrations([[1, 1, top], [1, 1, top], [1, 1, 1]], (0.9, 0.9, 0.9))
    assert "(2 classes)" in hier.clamp_text(three)
    two = _concentrations([[1, 1, top], [1, 1, top]])
    assert "(both classes)" in hier.clamp_text(two)


@pytest.fixture(scope="module")
def sweep():
    from heb.lessons.calibration import double_counting_sweep
    from heb.synthetic import sample_naive_bayes

    codes, y, _ = sample_naive_bayes(600, [4, 6, 3], n_classes=2, seed=3)
    return codes, y, double_counting_sweep(codes, y, 0, max_copies=3)


def test_the_log_odds_scale_is_k_times_one_copys_mean_absolute_log_odds(sweep):
    from heb.lessons import calibration

    codes, y, out = sweep
    assert out["y_test"].size == 150  # a quarter of 600 rows
    train, _, test = calibration._split(codes, y, 0)
    model = calibration._fit(
        codes[train], y[train], np.arange(2), codes.max(axis=0) + 1, smoother="laplace"
    )
    one = np.abs(calibration.feature_log_odds(model, codes[test], [0])).mean()
    assert one > 0
    assert out["log_odds_scale"] == pytest.approx(one * np.arange(1, 4), rel=1e-9)
    assert out["mean_confidence"][0] == pytest.approx(out["proba"][1].max(axis=1).mean())


def _compared(values: dict) -> dict:
    """A hand-made calibration_comparison: method -> ECE, random test probabilities."""
    rows = []
    for method, value in values.items():
        model, _, post = method.partition(" + ")
        rows.append({"model": model, "calibration": post or "none", "method": method, "ece": value})
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    proba = {m: rng.dirichlet([1, 1], 200) for m in values}
    return {"table": pd.DataFrame(rows), "y_test": y, "proba": proba}


def test_complementarity_picks_the_best_of_each_kind_by_hand():
    from heb.lessons import calibration

    verdict = calibration.complementarity(
        _compared(
            {
                "Laplace": 0.01,  # the plain model is no upstream fix
                "HEB-M": 0.05,
                "HEB-M+GR": 0.04,
                "Laplace + Platt": 0.03,
                "Laplace + isotonic": 0.06,
                "HEB-M + Platt": 0.02,
                "HEB-M+GR + temperature": 0.025,
            }
        )
    )
    assert verdict["laplace"] == 0.01
    assert verdict["upstream"] == ("HEB-M+GR", 0.04)
    assert verdict["post_hoc"] == ("Laplace + Platt", 0.03)
    assert verdict["combined"] == ("HEB-M + Platt", 0.02)
    assert verdict["single"] == ("Laplace + Platt", 0.03)
    assert verdict["diff"] == pytest.approx(-0.01)
    assert calibration.SHOWN_AS_ZERO == 5e-4


def test_the_reliability_text_with_two_bins_below():
    from heb.lessons import calibration

    curve = {
        "count": [0, 5, 3, 2],
        "accuracy": [0.0, 0.5, 0.9, 0.65],
        "confidence": [0.0, 0.6, 0.8, 0.7],
    }
    assert calibration.reliability_text(curve, 1) == (
        "With 1 copy, 2 of the 3 occupied bins lie below the diagonal (surer than right) "
        "and 1 above it."
    )


def test_the_feature_log_odds_are_log_theta1_minus_log_theta0():
    """Laplace on counts (9, 1) and (1, 9): theta_0 = (10, 2) / 12, theta_1 = (2, 10) / 12,
    so category 0 gives log-odds log(2 / 10) = -log 5 and category 1 +log 5."""
    from heb.counts import CountTable
    from heb.lessons import calibration
    from heb.nb import NaiveBayes

    table = CountTable(np.array([10.0, 10.0]), np.array([[9.0, 1.0], [1.0, 9.0]]), np.array([0, 2]))
    model = NaiveBayes(smoother="laplace").fit_counts(table)
    odds = calibration.feature_log_odds(model, np.array([[0], [1]]), [0])
    assert odds == pytest.approx([-np.log(5.0), np.log(5.0)])


def test_known_truth_trains_on_two_rows_at_least():
    from heb.lessons import known_truth

    with pytest.raises(ValueError, match="Train on 2 to"):
        known_truth.known_truth_study(n_train=1)


def test_the_bias_text_compares_with_laplaces_own_share():
    """K = 2, N = 5: alpha = 0.1 adds 0.2 counts (4% of the estimate), Laplace 2 (29%)."""
    text = dirichlet.bias_text(2, 5, 0.1, 0.05)
    assert "0.2 phantom counts to N = 5 observations: 4% of the estimate is prior" in text
    assert "(for comparison, Laplace's α = 1 would add K = 2: 29%)" in text
    assert "2α(K−1)/(N+Kα) = 0.038 at α = 0.1" in text  # 0.2 * 1 / 5.2


# ---------------------------------------------------------------- the lessons' figures


def test_the_reduction_bars_are_percent_in_k_over_n_order_coloured_from_one_tenth():
    from heb.figures.lessons.high_cardinality import reduction_figure

    frame = pd.DataFrame({"K_over_N": [0.02, 0.1, 0.1, 0.5], "reduction": [-0.01, 0.1, 0.2, 0.3]})
    fig, data = reduction_figure(frame)
    below, above = fig.data[0], fig.data[1]
    assert list(below.x) == ["0.02"] and list(below.y) == pytest.approx([-1.0])
    assert list(above.x) == ["0.1", "0.5"] and list(above.y) == pytest.approx([15.0, 30.0])
    assert list(fig.layout.xaxis.categoryarray) == ["0.02", "0.1", "0.5"]
    assert data["reduction_percent"].tolist() == pytest.approx([-1.0, 15.0, 30.0])


def test_the_vertex_figure_draws_each_smoothers_own_error():
    from heb.figures.lessons.high_cardinality import vertex_figure

    vertex = pd.DataFrame(
        {
            "K": [10, 100],
            "N": [50, 50],
            "K_over_N": [0.2, 2.0],
            "laplace_l1": [0.3, 1.2],
            "heb_l1": [0.001, 0.002],
        }
    )
    fig, _ = vertex_figure(vertex)
    assert list(fig.data[0].y) == [0.3, 1.2] and list(fig.data[1].y) == [0.001, 0.002]
    assert "all 50<br>draws" in fig.layout.title.text


def test_the_sweep_figure_draws_the_bias_and_marks_the_named_alphas_on_the_curve():
    from heb.figures.lessons.dirichlet import alpha_sweep_figure

    alphas = np.array([0.01, 0.1, 1.0, 10.0])
    sweep = {
        "alpha": alphas,
        "expected_l1": np.array([0.4, 0.3, 0.2, 0.5]),
        "bias_l1": np.array([0.01, 0.05, 0.15, 0.45]),
        "unsmoothed_l1": 0.45,
    }
    fig, _ = alpha_sweep_figure(sweep, 1.0, {"KT": 0.5}, best=1.0)
    bias = next(t for t in fig.data if t.name == "l1 bias of the mean")
    assert list(bias.y) == pytest.approx([0.01, 0.05, 0.15, 0.45])
    mark = next(t for t in fig.data if t.name == "KT: α = 0.5")
    # halfway from alpha 0.1 to 1 on the log axis is sqrt(10) = 0.316; 0.5 is 0.699 of it
    share = np.log(5) / np.log(10)
    assert mark.y[0] == pytest.approx(0.3 + share * (0.2 - 0.3))


def test_the_word_bars_print_0_on_a_zero_and_the_underflow_mark_is_the_first_zero():
    from heb.figures.lessons.zero_counts import SMALLEST_FLOAT, underflow_figure, zero_counts_figure

    corpus = zero.toy_spam()
    theta, _ = zero.word_probabilities(corpus, 0.0)
    bars, _ = zero_counts_figure(corpus.vocabulary, corpus.classes, theta, ["free"], 0.0)
    assert [i for i, t in enumerate(bars.data[0].text) if t == "0"] == [7]  # agenda
    assert [i for i, t in enumerate(bars.data[1].text) if t == "0"] == [1, 9]
    curve = zero.underflow_curve(corpus, ["free", "meeting"], 1.0, max_copies=200)
    fig, _ = underflow_figure(curve, corpus.classes)
    marks = [t for t in fig.data if t.name.endswith("float64 product hits 0")]
    for mark, c in zip(marks, (0, 1), strict=True):
        first = int(np.flatnonzero(curve["underflow"][c])[0])
        assert mark.x[0] == curve["n_words"][first]
    assert fig.layout.shapes[0].y0 == pytest.approx(np.log10(SMALLEST_FLOAT))


@pytest.mark.parametrize(("K", "step"), [(10, 1), (20, 2), (50, 5), (200, 20)])
def test_the_category_axis_has_about_ten_whole_ticks(K, step):
    from heb.figures.lessons.dirichlet import dirichlet_figure

    p = np.full(K, 1.0 / K)
    fig, _ = dirichlet_figure(p, np.ones(K), p, 1.0)
    assert fig.layout.xaxis.dtick == step


def test_the_evidence_figure_shades_both_sides_of_the_clamp_and_flattens_a_flat_curve():
    from heb.figures.lessons.evidence import evidence_figure

    curve = evidence.evidence_curve(np.array([1.0, 0.0, 0.0]), np.full(3, 1 / 3))
    assert curve.flat  # one row: l(m) = log t_v whatever m
    fig, _ = evidence_figure(curve, "HEB-U", True)
    line = next(t for t in fig.data if t.name == "evidence l(m)")
    assert np.ptp(np.asarray(line.y)) == 0.0 and line.y[0] == pytest.approx(np.log(1 / 3))
    shades = [(s.x0, s.x1) for s in fig.layout.shapes if s.type == "rect"]
    assert shades == [(1e-3, curve.m_min), (curve.m_max, 1e5)]


def test_the_lesson_reliability_axis_holds_accuracy_1_with_room_for_its_point():
    from heb.figures.lessons.calibration import reliability_figure
    from heb.metrics import reliability

    y = np.array([0, 0, 1, 1])
    proba = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]])
    fig, _ = reliability_figure({"Laplace": reliability(y, proba)}, "k = 1")
    assert tuple(fig.layout.yaxis.range) == (0, 1.02)


def test_the_true_reliability_bins_rows_by_the_models_confidence():
    """Two classes: a top-1 confidence is at least 0.5, so the five bins below 0.5 are
    empty (binned by the truth's probability of being right, they were not)."""
    from heb.lessons import known_truth

    study = known_truth.known_truth_study(
        n_train=30, n_categories=5, n_features=3, n_test=500, smoothers=("laplace",)
    )
    curve = study["reliability_true"]["Laplace"]
    assert np.asarray(curve["count"])[:5].sum() == 0
    assert np.asarray(curve["count"]).sum() == 500
