"""The computations of the classroom lessons, against hand-computed values and the engine."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator

from heb import registry
from heb.concentration import M_MIN, fit_concentration, log_evidence
from heb.counts import CountTable
from heb.lessons import (
    calibration,
    calibrators,
    common,
    dirichlet,
    evidence,
    high_cardinality,
    known_truth,
    zero_counts,
)
from heb.nb import NaiveBayes
from heb.smoothing import prior_mean, smooth
from heb.synthetic import sample_naive_bayes, single_pmf_estimates

MESSAGE = ["meeting", "project", "report", "unsubscribe"]


# ------------------------------------------------------------------ lesson 1
def test_toy_spam_posterior_by_hand():
    # spam: 136 words, ham: 117 words, V = 10; prior (N_c + 1) / (S + C) = 41/102, 61/102
    spam = Fraction(41, 102) * Fraction(3, 146) * Fraction(2, 146) * Fraction(4, 146)
    spam *= Fraction(16, 146)
    ham = Fraction(61, 102) * Fraction(29, 127) * Fraction(36, 127) * Fraction(23, 127)
    ham *= Fraction(1, 127)
    expected = float(ham / (spam + ham))
    score = zero_counts.score_message(zero_counts.toy_spam(), MESSAGE, alpha=1.0)
    assert score["posterior"][1] == pytest.approx(expected, rel=1e-12)
    assert not score["vetoed"].any()


def test_one_unseen_word_vetoes_a_class_without_smoothing():
    corpus = zero_counts.toy_spam()
    score = zero_counts.score_message(corpus, MESSAGE, alpha=0.0)
    assert score["vetoed"].tolist() == [False, True]
    assert score["posterior"].tolist() == [1.0, 0.0]
    both = zero_counts.score_message(corpus, ["agenda", "winner"], alpha=0.0)
    assert both["vetoed"].all() and both["posterior"] is None
    assert np.isfinite(both["log_score"]).all()
    # any positive pseudo-count lifts the veto
    assert zero_counts.score_message(corpus, MESSAGE, alpha=0.01)["posterior"][1] > 0.5


def test_word_probabilities_are_the_engines_lidstone():
    corpus = zero_counts.toy_spam()
    theta, _ = zero_counts.word_probabilities(corpus, 0.5)
    counts = corpus.word_counts
    expected = (counts + 0.5) / (counts.sum(axis=1, keepdims=True) + 0.5 * counts.shape[1])
    np.testing.assert_allclose(theta, expected, rtol=1e-12)
    with pytest.raises(ValueError, match="pseudo-count"):
        zero_counts.word_probabilities(corpus, -1.0)


def test_underflow_direct_product_hits_zero_but_log_space_does_not():
    corpus = zero_counts.toy_spam()
    curve = zero_counts.underflow_curve(corpus, MESSAGE, alpha=1.0, max_copies=200)
    assert curve["underflow"].any() and not curve["direct_defined"].all()
    assert np.isfinite(curve["log10_likelihood"]).all()
    assert curve["log10_likelihood"].min() < -323.3  # below the smallest float64
    np.testing.assert_allclose(curve["posterior"].sum(axis=0), 1.0)
    whole = ~curve["underflow"].any(axis=0)  # no product lost yet
    np.testing.assert_allclose(
        curve["direct_posterior"][:, whole], curve["posterior"][:, whole], atol=1e-12
    )
    # one product lost first: the direct posterior calls that class impossible
    partial = curve["direct_defined"] & ~whole
    assert partial.any()
    assert (curve["direct_posterior"][:, partial].min(axis=0) == 0).all()
    assert (curve["posterior"][:, partial] > 0).all()
    # one copy: the log-space posterior is the single message's posterior
    single = zero_counts.score_message(corpus, MESSAGE, alpha=1.0)["posterior"]
    np.testing.assert_allclose(curve["posterior"][:, 0], single, rtol=1e-12)


def test_bad_messages_are_refused():
    with pytest.raises(ValueError, match="empty"):
        zero_counts.score_message(zero_counts.toy_spam(), [], 1.0)
    with pytest.raises(ValueError, match="not in the toy vocabulary"):
        zero_counts.score_message(zero_counts.toy_spam(), ["lottery"], 1.0)


# ------------------------------------------------------------------ lesson 2
def test_dirichlet_posterior_mean_special_cases():
    counts = np.array([5.0, 0.0, 3.0, 2.0])
    uniform = np.full(4, 0.25)
    K = counts.size
    laplace = common.dirichlet_posterior_mean(counts, uniform, 1.0 * K)
    np.testing.assert_allclose(laplace, (counts + 1) / (counts.sum() + K))
    np.testing.assert_allclose(laplace, single_pmf_estimates(counts[None], "laplace")[0])
    np.testing.assert_allclose(
        common.dirichlet_posterior_mean(counts, uniform, 0.5 * K),
        single_pmf_estimates(counts[None], "kt")[0],
    )
    np.testing.assert_allclose(common.dirichlet_posterior_mean(counts, uniform, 0.0), counts / 10)
    grid = common.dirichlet_posterior_mean(counts, uniform, np.array([0.0, 4.0, 1e12]))
    np.testing.assert_allclose(grid[2], uniform, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(0, 50), min_size=2, max_size=12).filter(lambda c: sum(c) > 0),
    m=st.floats(0.0, 1e4),
)
def test_posterior_mean_is_a_convex_combination(counts, m):
    counts = np.array(counts, dtype=float)
    prior = np.arange(1, counts.size + 1, dtype=float)
    prior /= prior.sum()
    theta = common.dirichlet_posterior_mean(counts, prior, m)
    N = counts.sum()
    np.testing.assert_allclose(theta.sum(), 1.0)
    np.testing.assert_allclose(theta, N / (N + m) * counts / N + m / (N + m) * prior, atol=1e-12)


def test_bias_formula_at_the_vertex_is_laplaces_worst_case():
    K, N = 40, 25
    p_vertex = np.eye(1, K)[0]
    sweep = dirichlet.alpha_sweep(p_vertex, N, np.array([1.0]), reps=5)
    assert sweep["bias_l1"][0] == pytest.approx(2 * (K - 1) / (N + K))
    # at the vertex every sample is (N, 0, ..., 0): the error is the bias itself
    assert sweep["expected_l1"][0] == pytest.approx(2 * (K - 1) / (N + K))
    assert float(high_cardinality.laplace_vertex_bias(K, N)) == pytest.approx(2 * (K - 1) / (N + K))


def test_dirichlet_view_and_example():
    p_true, counts = dirichlet.dirichlet_example(30, 100, "sparse")
    assert p_true.sum() == pytest.approx(1.0) and np.all(np.diff(p_true) <= 0)
    assert counts.sum() == 100
    view = dirichlet.dirichlet_view(p_true, counts, 1.0)
    assert view["prior_share"] == pytest.approx(30 / 130)
    assert view["l1"] == pytest.approx(np.abs(view["estimate"] - p_true).sum())
    with pytest.raises(ValueError, match="sparse"):
        dirichlet.dirichlet_example(5, 10, "peaked")


def test_no_best_alpha_when_every_alpha_gives_the_same_estimate():
    empty = dirichlet.dirichlet_lesson(50, 0, "sparse", 1.0)  # N = 0: every alpha -> 1/K
    np.testing.assert_allclose(empty["view"]["estimate"], 1 / 50)
    assert np.ptp(empty["sweep"]["expected_l1"]) < 1e-12
    assert empty["best"] is None
    some = dirichlet.dirichlet_lesson(50, 50, "sparse", 1.0)
    sweep = some["sweep"]
    assert some["best"] == sweep["alpha"][np.argmin(sweep["expected_l1"])]
    assert some["best"] in dirichlet.SWEEP_ALPHAS and sweep["alpha"][some["at"]] == 1.0
    with pytest.raises(ValueError, match="Pick alpha"):
        dirichlet.dirichlet_lesson(50, 50, "sparse", 0.123)


# ------------------------------------------------------------------ lesson 3
def test_parse_counts():
    np.testing.assert_array_equal(evidence.parse_counts("3, 0 1;7"), [3, 0, 1, 7])
    for text, message in [
        ("", "at least two"),
        ("a, b", "whole numbers"),
        ("4", "two categories"),
        ("1.5, 2", "whole numbers"),
        ("0, 0", "zero"),
        # one typed number asked the held-out check to shuffle 10^9 rows: out of memory
        ("1e9, 1", "to 1,000,000 rows in all"),
        ("999999, 2", "add up to 1,000,001"),
    ]:
        with pytest.raises(ValueError, match=message):
            evidence.parse_counts(text)
    assert evidence.parse_counts("999999, 1").sum() == evidence.MAX_TYPED_ROWS


def test_evidence_curve_maximiser_is_the_engines():
    counts = evidence.EXAMPLE_COUNTS
    prior = np.full(counts.size, 1 / counts.size)
    curve = evidence.evidence_curve(counts, prior)
    assert curve.m_hat == pytest.approx(fit_concentration(counts, prior))
    assert curve.clamped == "none" and not curve.fallback
    np.testing.assert_allclose(curve.log_evidence, log_evidence(counts, prior, curve.m))
    assert curve.log_evidence_at(curve.m_hat) >= curve.log_evidence.max() - 1e-9


def test_evidence_curve_vertex_and_fallback():
    vertex = evidence.evidence_curve(np.array([30.0, 0, 0, 0]), np.full(4, 0.25))
    assert vertex.m_hat == M_MIN and vertex.clamped == "low"
    assert np.all(np.diff(vertex.log_evidence) < 0)  # l(m) decreases everywhere
    small = evidence.evidence_curve(np.array([3.0, 1, 0]), np.full(3, 1 / 3))
    assert small.fallback and small.m_hat == 3.0
    with pytest.raises(ValueError, match="prior mean 0"):
        evidence.evidence_curve(np.array([1.0, 2.0]), np.array([1.0, 0.0]))


def test_pmf_comparison_agrees_with_the_engines_smoothers():
    counts = np.array([12.0, 5, 0, 2, 0, 1])
    K = counts.size
    # a second class sees every category, so no column is "unseen" for the engine
    both = np.vstack([counts, np.full(K, 3.0)])
    table = CountTable(both.sum(axis=1), both, np.array([0, K]))
    uniform = np.full(K, 1 / K)
    curve = evidence.evidence_curve(counts, uniform)
    pmfs = evidence.pmf_comparison(counts, uniform, curve.m_hat, 7.0)
    np.testing.assert_allclose(pmfs["Laplace"], np.exp(smooth(table, "laplace").log_theta[0]))
    np.testing.assert_allclose(pmfs["HEB-U"], np.exp(smooth(table, "heb-u").log_theta[0]))
    np.testing.assert_allclose(pmfs["unsmoothed"], counts / counts.sum())
    np.testing.assert_allclose(pmfs["what-if m = 7"], (counts + 7 / K) / (counts.sum() + 7))


def test_pair_counts_and_marginal_prior():
    codes, y, _ = sample_naive_bayes(300, [4, 6], n_classes=3, seed=1)
    table = CountTable.from_codes(codes, y, 3)
    counts, prior, pooled = evidence.pair_counts(table, 2, 1)
    np.testing.assert_array_equal(counts, np.bincount(codes[y == 2, 1], minlength=6))
    np.testing.assert_array_equal(pooled, np.bincount(codes[:, 1], minlength=6))
    np.testing.assert_allclose(prior, prior_mean(table, "marginal")[4:10])
    _, uniform, none = evidence.pair_counts(table, 0, 0, "uniform")
    np.testing.assert_allclose(uniform, 0.25) and none is None
    with pytest.raises(ValueError, match="no class"):
        evidence.pair_counts(table, 3, 0)


def test_heldout_log_loss_leave_one_out_by_hand():
    counts = np.array([6.0, 3, 1, 0])
    N, K = counts.sum(), counts.size
    t = np.full(K, 1 / K)
    m = np.array([0.5, 4.0, 50.0])
    out = evidence.heldout_log_loss_curve(counts, t, m, n_folds=int(N))
    nz = counts > 0
    theta = (counts[nz][None, :] - 1 + m[:, None] * t[nz]) / (N - 1 + m[:, None])
    expected = -(counts[nz] * np.log(theta)).sum(axis=1) / N
    np.testing.assert_allclose(out["log_loss"], expected, rtol=1e-12)
    # unsmoothed (m = 0) has no held-out score: a category seen once would get 0
    with pytest.raises(ValueError, match="positive"):
        evidence.heldout_log_loss_curve(counts, t, np.array([0.0]))


def test_heldout_refits_the_marginal_prior_without_the_held_out_rows():
    counts = np.array([4.0, 0.0, 2.0])
    pooled = np.array([10.0, 5.0, 5.0])
    out = evidence.heldout_log_loss_curve(
        counts, pooled / 20, np.array([3.0]), n_folds=6, pooled=pooled
    )
    # leave-one-out of the pair's 6 rows; the other classes' 14 rows are dealt into the
    # same 6 folds (stream seed + 1), as a stratified fold holds out a share of each class;
    # prior refitted with one pseudo-row per category: t = (P - held + 1) / (S - |held| + 3)
    rows = np.random.default_rng(0).permutation(np.repeat(np.arange(3), [4, 0, 2]))
    other_rows = np.random.default_rng(1).permutation(np.repeat(np.arange(3), [6, 5, 3]))
    other_fold = np.arange(14) % 6
    expected = 0.0
    for k, v in enumerate(rows):
        held = np.bincount([v], minlength=3) + np.bincount(other_rows[other_fold == k], minlength=3)
        t = (pooled - held + 1) / (20 - held.sum() + 3)
        expected -= np.log((counts[v] - 1 + 3 * t[v]) / (5 + 3)) / 6
    assert out["log_loss"][0] == pytest.approx(expected, rel=1e-12)


def test_evidence_lesson_bundle():
    out = evidence.evidence_lesson(evidence.EXAMPLE_COUNTS, None, 10.0, max_bars=5)
    assert set(out["marks"]) == {"what-if m", "Laplace", "HEB-U's m"}
    assert out["shown"].tolist() == [0, 1, 2, 3, 4]
    assert 0 < out["rho"] < 1
    m, loss = out["marks"]["HEB-U's m"]
    assert m == pytest.approx(out["curve"].m_hat)
    assert loss == pytest.approx(
        np.interp(np.log(m), np.log(out["heldout"]["m"]), out["heldout"]["log_loss"]), rel=1e-2
    )


def test_laplace_is_laplace_whatever_the_lessons_prior_mean():
    counts = np.array([5.0, 1, 1, 0, 0, 2])
    pooled = counts + np.array([1.0, 9, 0, 4, 1, 0])
    marginal = pooled / pooled.sum()
    out = evidence.evidence_lesson(counts, marginal, 10.0, pooled)
    assert out["heb"] == "HEB-M" and not out["uniform_prior"]
    K, N = counts.size, counts.sum()
    np.testing.assert_allclose(out["pmfs"]["Laplace"], (counts + 1) / (N + K))
    # the held-out Laplace mark: uniform prior mean, m = K, the same folds as the others
    m, loss = out["marks"]["Laplace"]
    uniform = evidence.heldout_log_loss_curve(counts, np.full(K, 1 / K), np.array([K]))
    assert m == K and loss == pytest.approx(uniform["log_loss"][0], rel=1e-12)
    assert {"HEB-M's m", "what-if m"} < set(out["marks"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=2, max_size=40).filter(lambda c: sum(c) >= 2),
    st.integers(0, 3),
)
def test_held_out_scores_give_unseen_categories_their_smoothed_probability(counts, seed):
    counts = np.array(counts, dtype=float)
    K = counts.size
    grid = evidence.HELDOUT_GRID
    uniform = evidence.heldout_log_loss_curve(counts, np.full(K, 1 / K), grid, seed=seed)
    # every score finite; far past the clamp the estimate is the prior: a uniform guess
    assert np.isfinite(uniform["log_loss"]).all()
    # (n + m/K) / (N + m) = 1/K (1 + O((K + 1) N / m)): log K up to that slack
    slack = (K + 1) * counts.sum() / grid[-1]
    assert uniform["log_loss"][-1] == pytest.approx(np.log(K), abs=slack)
    assert uniform["log_loss"].min() <= np.log(K) + slack
    # a held-out category every pooled row of which is held out keeps t_v > 0
    pooled = counts.copy()  # the pair's class is the only one: nothing else pools
    marginal = evidence.heldout_log_loss_curve(counts, pooled / pooled.sum(), grid, pooled=pooled)
    N = counts.sum()
    floor = grid * (1 / (N + K)) / (N + grid)  # smallest smoothed probability possible
    assert (marginal["log_loss"] <= -np.log(floor) + 1e-9).all()


def test_held_out_scores_on_zip_codes_beat_a_uniform_guess():
    from heb.data import Preprocessor, encode_target, load_builtin

    data = load_builtin("zip-codes")
    pre = Preprocessor(categorical=data.categorical)
    codes = np.asarray(pre.fit_transform(data.X))
    y, classes = encode_target(data.y)
    table = CountTable.from_codes(codes, np.asarray(y), len(classes))
    feature = list(pre.feature_names_out_).index("zip_code")
    cls = [str(c) for c in classes].index("yes")
    counts, prior, pooled = evidence.pair_counts(table, cls, feature, "marginal")
    out = evidence.evidence_lesson(counts, prior, 1000.0, pooled)
    log_k = np.log(counts.size)  # 800 ZIP codes: log 800 = 6.68 nats
    assert out["marks"]["Laplace"][1] == pytest.approx(5.71, abs=0.01)  # real Laplace
    for name, (_, loss) in out["marks"].items():
        assert loss < log_k, name  # unseen ZIP codes are not scored as ~0 (was 10.19)


# ------------------------------------------------------------------ lesson 4
def test_theorem1_default_view_shows_the_figure_2_pattern():
    sparse = high_cardinality.theorem1_reduction(high_cardinality.theorem1_grid(0.3, reps=200))
    wide = sparse[sparse["K_over_N"] >= 0.1]
    assert (wide["reduction"] > 0.05).all(), wide
    paper = wide[wide["K_over_N"] <= 2.5]  # the paper: 12% at 0.1, 16-20% up to 2.5
    assert (paper["reduction"] > 0.10).all(), paper
    assert (sparse[sparse["K_over_N"] == 0.5]["reduction"] > 0.15).all()
    flat = high_cardinality.theorem1_reduction(high_cardinality.theorem1_grid(1.0, reps=200))
    assert (flat["reduction"].abs() < 0.06).all(), flat  # the curves overlap


def test_vertex_errors_match_corollary_1():
    frame = high_cardinality.vertex_errors([2, 10, 100, 1000], 50)
    np.testing.assert_allclose(frame["laplace_l1"], 2 * (frame["K"] - 1) / (50 + frame["K"]))
    np.testing.assert_allclose(frame["laplace_l1"], frame["laplace_formula"])
    assert (frame["heb_m"] == M_MIN).all()
    np.testing.assert_allclose(frame["heb_l1"], 2 * M_MIN * (1 - 1 / frame["K"]) / (50 + M_MIN))
    assert (frame["heb_l1"] < frame["laplace_l1"]).all()
    few = high_cardinality.vertex_errors([20], 5)  # N < n0: HEB falls back to Laplace
    assert few["heb_m"].iloc[0] == 20 and few["heb_l1"].iloc[0] == pytest.approx(
        few["laplace_l1"].iloc[0]
    )


# ------------------------------------------------------------------ lesson 5
@pytest.fixture(scope="module")
def binary_data():
    codes, y, _ = sample_naive_bayes(1200, [4, 6, 3, 5], n_classes=2, seed=3)
    return codes, y


@pytest.mark.parametrize("smoother", ["laplace", "heb-m"])
def test_duplicating_a_feature_k_times_multiplies_its_log_odds_by_k(binary_data, smoother):
    codes, y = binary_data
    one = NaiveBayes(smoother=smoother).fit(codes, y)
    base = calibration.feature_log_odds(one, codes, [1])
    for k in (2, 5):
        dup = calibration.duplicate_feature(codes, 1, k)
        assert dup.shape[1] == codes.shape[1] + k - 1
        model = NaiveBayes(smoother=smoother).fit(dup, y)
        copies = [1, *range(codes.shape[1], dup.shape[1])]
        np.testing.assert_allclose(
            calibration.feature_log_odds(model, dup, copies), k * base, rtol=1e-10
        )
        lp_k, lp_1 = model.predict_log_proba(dup), one.predict_log_proba(codes)
        np.testing.assert_allclose(
            (lp_k[:, 1] - lp_k[:, 0]) - (lp_1[:, 1] - lp_1[:, 0]), (k - 1) * base, atol=1e-9
        )


def test_double_counting_sweep_grows_the_scale_and_the_ece(binary_data):
    codes, y = binary_data
    out = calibration.double_counting_sweep(codes, y, 1, max_copies=6)
    np.testing.assert_allclose(out["log_odds_scale"], out["copies"] * out["log_odds_scale"][0])
    assert out["ece"][-1] > out["ece"][0]
    assert set(out["reliability"]) == set(range(1, 7))


def test_temperature_one_is_the_identity_and_bad_t_is_refused():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(50, 3))
    log_proba = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(calibrators.temperature_scale(log_proba, 1.0), np.exp(log_proba))
    assert np.allclose(calibrators.temperature_scale(log_proba, 1e6), 1 / 3, atol=1e-4)
    with pytest.raises(ValueError, match="temperature"):
        calibrators.temperature_scale(log_proba, 0.0)


class _ProbaOnly(ClassifierMixin, BaseEstimator):
    """Fixed posteriors looked up by row index (X holds the index)."""

    def __init__(self, proba=None):
        self.proba = proba

    def fit(self, X, y):
        return self

    @property
    def classes_(self):
        return np.arange(self.proba.shape[1])

    def predict_proba(self, X):
        return self.proba[np.asarray(X)[:, 0].astype(int)]

    def predict(self, X):
        return self.predict_proba(X).argmax(axis=1)

    def __sklearn_is_fitted__(self):
        return True


def test_fit_temperature_agrees_with_scikit_learn():
    rng = np.random.default_rng(1)
    n = 600
    y = rng.integers(0, 3, n)
    logits = 3.0 * (np.eye(3)[y] + rng.normal(scale=0.9, size=(n, 3)))  # over-confident
    log_proba = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    T = calibrators.fit_temperature(log_proba, y)
    assert T > 1.0
    ours = calibrators.temperature_scale(log_proba, T)
    peer = CalibratedClassifierCV(
        FrozenEstimator(_ProbaOnly(np.exp(log_proba))), method="temperature"
    )
    index = np.arange(n)[:, None]
    theirs = peer.fit(index, y).predict_proba(index)
    np.testing.assert_allclose(ours, theirs, atol=2e-3)


def test_calibration_comparison_and_verdict(binary_data):
    codes, y = binary_data
    out = calibration.calibration_comparison(codes, y, 1, copies=4)
    table = out["table"]
    assert len(table) == len(calibration.CALIBRATION_MODELS) * len(calibration.POST_HOC)
    assert np.isfinite(table[["ece", "log_loss", "brier", "accuracy"]].to_numpy()).all()
    assert (table.loc[table["calibration"] == "temperature", "temperature"] > 0).all()
    assert set(out["reliability"]) == set(table["method"])
    verdict = calibration.complementarity(out, "ece")
    values = table.set_index("method")["ece"]
    assert verdict["laplace"] == values["Laplace"]
    assert verdict["combined"][1] == min(
        values[m] for m in values.index if " + " in m and not m.startswith("Laplace")
    )
    single = min(verdict["upstream"][1], verdict["post_hoc"][1])
    assert verdict["single"][1] == single
    assert verdict["diff"] == pytest.approx(verdict["combined"][1] - single)
    assert verdict["se"] > 0
    # complementary: lower than both alone, and by more than twice the standard error
    assert verdict["complementary"] == (verdict["diff"] < -2 * verdict["se"])


def test_most_informative_feature():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    codes = np.column_stack([rng.integers(0, 3, 500), y * 2 + rng.integers(0, 2, 500)])
    assert calibration.most_informative_feature(codes, y) == 1


# ------------------------------------------------------------------ lesson 6
def test_known_truth_study_shape_and_sanity():
    out = known_truth.known_truth_study(n_train=300, n_categories=8, n_features=3, n_test=2000)
    summary = out["summary"]
    paper = [name for name, entry in registry.SMOOTHERS.items() if entry.paper]
    assert summary["smoother"].tolist() == paper  # the paper's Table 1 smoothers, in order
    assert ((out["pmf_errors"]["l1"] >= 0) & (out["pmf_errors"]["l1"] <= 2)).all()
    assert len(out["pmf_errors"]) == len(paper) * 2 * 3
    np.testing.assert_allclose(out["true_posterior"].sum(axis=1), 1.0)
    for proba in out["posteriors"].values():
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.isfinite(summary.drop(columns=["smoother", "label"]).to_numpy()).all()
    # the truth does not change with the training size
    other = known_truth.known_truth_study(n_train=50, n_categories=8, n_features=3, n_test=2000)
    np.testing.assert_array_equal(other["true_posterior"], out["true_posterior"])


def test_known_truth_study_takes_a_smoother_outside_the_paper():
    # the truths have no category hierarchy, so HEB-H estimates what HEB-M does
    out = known_truth.known_truth_study(
        n_train=200, n_categories=6, n_features=2, n_test=500, smoothers=["heb-m", "heb-h"]
    )
    summary = out["summary"].set_index("smoother")
    assert summary.index.tolist() == ["heb-m", "heb-h"]
    np.testing.assert_allclose(summary.loc["heb-h", "mean_l1"], summary.loc["heb-m", "mean_l1"])


def test_estimated_pmfs_are_pmfs_with_unseen_categories():
    codes = np.array([[0], [0], [1]])
    table = CountTable.from_codes(codes, np.array([0, 0, 1]), 2, n_categories=np.array([4]))
    for smoother in ("laplace", "heb-m", "te"):
        model = NaiveBayes(smoother=smoother).fit_counts(table)
        pmfs = known_truth.estimated_pmfs(model)
        np.testing.assert_allclose(pmfs.sum(axis=1), 1.0)
    laplace = known_truth.estimated_pmfs(NaiveBayes(smoother="laplace").fit_counts(table))
    np.testing.assert_allclose(laplace[0], [3 / 6, 1 / 6, 1 / 6, 1 / 6])


def test_more_data_and_the_preset_favour_heb_m():
    large = known_truth.known_truth_study(n_train=5000, n_categories=5, n_features=2, n_test=2000)
    small = known_truth.known_truth_study(n_train=50, n_categories=5, n_features=2, n_test=2000)
    assert large["summary"]["mean_l1"].max() < small["summary"]["mean_l1"].min()
    preset = known_truth.known_truth_study(n_train=1000, preset="high-cardinality", n_test=2000)
    s = preset["summary"].set_index("label")
    assert s.loc["HEB-M", "mean_l1"] < s.loc["Laplace", "mean_l1"]
    assert s.loc["HEB-M", "log_loss"] < s.loc["Laplace", "log_loss"]
    with pytest.raises(ValueError, match="preset"):
        known_truth.known_truth_study(preset="zipf")


def test_showcase_pair_opens_on_an_interior_maximiser():
    codes, y, _ = sample_naive_bayes(2000, [3, 8, 30], n_classes=2, alpha_dir=1.0, seed=2)
    table = CountTable.from_codes(codes, y, 2)
    c, f = evidence.showcase_pair(table)
    diag = NaiveBayes(smoother="heb-m").fit_counts(table).concentrations_
    pick = (diag["class"] == c) & (diag["feature"] == f)
    assert diag["clamped"][pick][0] == "none" and not diag["fallback"][pick][0]
    # the rule: the interior maximum that stands highest above m = K_f and the clamp's ends
    margin = evidence.pair_prominence(table)
    interior = (diag["clamped"] == "none") & ~diag["fallback"]
    assert np.isfinite(margin.ravel()[interior]).all()
    assert margin[c, f] == np.nanmax(margin) > 0
    lonely = CountTable.from_codes(np.array([[0], [1]]), np.array([0, 1]), 2)
    assert evidence.showcase_pair(lonely) == (0, 0)  # every pair falls back
