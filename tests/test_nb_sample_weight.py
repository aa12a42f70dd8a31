"""NaiveBayes.fit(..., sample_weight): a weighted count table.

Whole-number weights give the model of the rows repeated (every smoother, HEB included);
any finite weights >= 0 give the fixed smoothers CategoricalNB's weighted counts; the HEB
smoothers learn their concentrations from fractional counts too (HEB-H at every level),
AODE / TAN / HierarchicalNaiveBayes refuse weights;
bad weights are one-sentence ValueErrors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import BaggingClassifier
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.naive_bayes import CategoricalNB
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import has_fit_parameter

from heb.aode import AODE
from heb.data import Preprocessor, make_model
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.hierarchy import fit_nested
from heb.nb import NaiveBayes
from heb.smoothing import SMOOTHERS
from heb.tan import TAN
from tests.conftest import read_shared_csv

HEB = ("heb-u", "heb-m", "heb-h")
FIXED = ("laplace", "lidstone", "kt", "m-estimate", "te")


def _data(seed: int = 0, n: int = 400, missing: bool = True):
    """Codes 0..5 in 6 features (some missing), 3 classes, weights 0..3 with a zero-weight
    row holding the largest code of feature 0 (so K_f comes from the weighted rows)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 6))
    X[:, 1] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 1])  # a feature tied to another
    y = (X[:, 0] + rng.integers(0, 3, n)) % 3
    if missing:
        X[rng.random(X.shape) < 0.05] = -1
    weights = rng.integers(0, 4, n)
    weights[y == 2] = np.maximum(weights[y == 2], 1)
    X[0, 0], weights[0] = 9, 0  # a code only a row of weight 0 holds
    return X, y, weights


def _repeated(X, y, weights):
    return np.repeat(X, weights, axis=0), np.repeat(y, weights)


@pytest.mark.parametrize("weighting", [None, "sqrt-mi"])
@pytest.mark.parametrize("smoother", list(SMOOTHERS))
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_whole_number_weights_are_repeated_rows(smoother, weighting):
    X, y, weights = _data()
    weighted = NaiveBayes(smoother, weighting=weighting).fit(X, y, sample_weight=weights)
    repeated = NaiveBayes(smoother, weighting=weighting).fit(*_repeated(X, y, weights))
    assert weighted.n_categories_.tolist() == repeated.n_categories_.tolist()
    assert weighted.n_categories_[0] == 6  # the zero-weight row's code 9 is left out
    assert np.array_equal(weighted.count_table_.counts, repeated.count_table_.counts)
    assert np.array_equal(weighted.class_log_prior_, repeated.class_log_prior_)
    assert np.array_equal(weighted.feature_weights_, repeated.feature_weights_)
    got, expected = weighted.predict_proba(X), repeated.predict_proba(X)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    if weighted.concentrations_ is not None:
        np.testing.assert_allclose(
            weighted.concentrations_["m"], repeated.concentrations_["m"], rtol=1e-12
        )


@pytest.mark.parametrize("smoother", ["laplace", "heb-m", "heb-u"])
def test_whole_number_weights_on_a_shared_dataset(datasets_dir, smoother):
    frame = read_shared_csv(datasets_dir, "car")
    y = frame.pop(frame.columns[-1]).to_numpy()
    X = Preprocessor().fit_transform(frame)
    weights = np.random.default_rng(1).integers(1, 5, len(y))
    weighted = NaiveBayes(smoother, weighting="sqrt-mi").fit(X, y, sample_weight=weights)
    repeated = NaiveBayes(smoother, weighting="sqrt-mi").fit(*_repeated(X, y, weights))
    assert np.array_equal(weighted.predict_proba(X), repeated.predict_proba(X))


@pytest.mark.parametrize("smoother", list(SMOOTHERS))
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_weights_of_one_are_no_weights(smoother):
    X, y, _ = _data(2)
    plain = NaiveBayes(smoother).fit(X, y)
    ones = NaiveBayes(smoother).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(plain.predict_proba(X), ones.predict_proba(X))


@pytest.mark.parametrize("smoother", ["laplace", "te", "heb-m"])
def test_partial_fit_adds_weighted_chunks(smoother):
    X, y, weights = _data(3)
    whole = NaiveBayes(smoother).fit(X, y, sample_weight=weights)
    parts = NaiveBayes(smoother)
    parts.partial_fit(X[:150], y[:150], classes=[0, 1, 2], sample_weight=weights[:150])
    parts.partial_fit(X[150:], y[150:], sample_weight=weights[150:])
    assert np.array_equal(parts.count_table_.counts, whole.count_table_.counts)
    np.testing.assert_allclose(parts.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def _fractional():
    X, y, _ = _data(4, missing=False)
    X[0, 0] = 5
    weights = np.random.default_rng(5).gamma(0.7, 1.3, len(y))  # fractional, some near 0
    weights[:5] = 0.0
    return X, y, weights


@pytest.mark.parametrize(("smoother", "alpha"), [("laplace", 1.0), ("lidstone", 0.1), ("kt", 0.5)])
def test_fractional_weights_match_categorical_nb(smoother, alpha):
    X, y, weights = _fractional()
    model = NaiveBayes(smoother).fit(X, y, sample_weight=weights)
    K = int(model.n_categories_.max())
    peer = CategoricalNB(alpha=alpha, min_categories=K).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.count_table_.class_counts, peer.class_count_, atol=1e-12)
    table, offsets = model.count_table_, model.count_table_.offsets
    for f, peer_log in enumerate(peer.feature_log_prob_):
        cols = slice(offsets[f], offsets[f + 1])
        np.testing.assert_allclose(table.counts[:, cols], peer.category_count_[f], atol=1e-12)
        np.testing.assert_allclose(model.feature_log_prob_[:, cols], peer_log, atol=1e-12)


def test_fractional_weights_give_m_estimate_and_te_their_formulas():
    X, y, weights = _fractional()
    peer = CategoricalNB(alpha=1, min_categories=6).fit(X, y, sample_weight=weights)
    m_est = NaiveBayes("m-estimate", m=3.0).fit(X, y, sample_weight=weights)
    te = NaiveBayes("te", k0=4.0).fit(X, y, sample_weight=weights)
    offsets = m_est.count_table_.offsets
    share = peer.class_count_ / peer.class_count_.sum()
    for f, n_cv in enumerate(peer.category_count_):  # weighted N_cfv, counted by sklearn
        cols = slice(offsets[f], offsets[f + 1])
        n_v = n_cv.sum(axis=0)
        prior = n_v / n_v.sum()
        m_theta = (n_cv + 3.0 * prior) / (n_cv.sum(axis=1, keepdims=True) + 3.0)
        np.testing.assert_allclose(np.exp(m_est.feature_log_prob_[:, cols]), m_theta, atol=1e-12)
        lam = n_v / (n_v + 4.0)
        mass = lam * n_cv + (1 - lam) * share[:, None] * n_v
        te_theta = mass / mass.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(np.exp(te.feature_log_prob_[:, cols]), te_theta, atol=1e-12)


def _evidence(m: np.ndarray, counts: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """l(m) of one count vector, by the gamma-function formula (paper eq. 5)."""
    from scipy.special import gammaln

    x = m[:, None] * prior
    return gammaln(m) - gammaln(m + counts.sum()) + (gammaln(x + counts) - gammaln(x)).sum(axis=1)


@pytest.mark.parametrize("smoother", ["heb-u", "heb-m"])
def test_heb_u_and_heb_m_learn_the_best_m_of_fractional_counts(smoother):
    """Weighted rows give fractional counts, whose evidence can have several peaks (and a
    total under 2 is not flat): each pair's m is the maximiser over [m_min, m_max] that a
    fine grid of the gamma-function formula finds, toward 1 / K (HEB-U) or the weighted
    category shares (HEB-M)."""
    X, y, weights = _fractional()
    weights[y == 1] *= 0.01  # class 1: totals under 2 (about 1.2)
    model = NaiveBayes(smoother, n0=0.5).fit(X, y, sample_weight=weights)
    table, offsets = model.count_table_, model.count_table_.offsets
    m = np.asarray(model.concentrations_["m"]).reshape(table.n_classes, table.n_features)
    grid = np.exp(np.linspace(np.log(1e-2), np.log(1e4), 8001))
    worse = 0
    for f in range(table.n_features):
        counts = table.counts[:, offsets[f] : offsets[f + 1]]
        n_v = counts.sum(axis=0)
        prior = np.full(n_v.size, 1 / n_v.size) if smoother == "heb-u" else n_v / n_v.sum()
        for c in range(table.n_classes):
            best = _evidence(grid, counts[c], prior).max()
            got = _evidence(np.array([m[c, f]]), counts[c], prior)[0]
            worse += got < best - 1e-7 * max(1.0, abs(best))
    assert worse == 0
    assert np.all(np.isfinite(model.predict_proba(X)))


#: feature 0's six codes under two parents, feature 1's under three
_TREES = {0: [np.array([0, 0, 0, 1, 1, 1])], 1: [np.array([0, 0, 1, 1, 2, 2])]}


def _documents_evidence(m, counts, prior, docs):
    """l(m) summed over documents: ``docs`` labels each column with its document."""
    return sum(_evidence(m, counts[docs == d], prior[docs == d]) for d in np.unique(docs))


def test_heb_h_learns_the_best_m_of_fractional_counts_at_every_level():
    """Fractional weights through HEB-H: at the top level a pair's counts per parent form
    one document toward the parents' pooled shares; at the leaves each parent's children
    form a document toward their pooled shares within it. Each fitted m is the maximiser
    a fine grid of the gamma-function formula finds (base "pooled", so the shares are the
    pooled counts' own)."""
    X, y, weights = _fractional()
    weights[y == 1] *= 0.01  # class 1: totals under 2
    table = NaiveBayes("laplace").fit(X, y, sample_weight=weights).count_table_
    assert not np.array_equal(table.counts, np.rint(table.counts))
    fit = fit_nested(table, _TREES, base="pooled", select=None, n0=0.5)
    levels = fit.levels
    grid = np.exp(np.linspace(np.log(1e-2), np.log(1e4), 8001))
    offsets, checked, worse = table.offsets, 0, 0
    for f, (parents,) in _TREES.items():
        leaves = table.counts[:, offsets[f] : offsets[f + 1]]
        pooled = leaves.sum(axis=0)
        tops = np.stack([leaves[:, parents == p].sum(axis=1) for p in np.unique(parents)], 1)
        top_share = tops.sum(axis=0) / tops.sum()
        leaf_share = pooled / np.bincount(parents, pooled)[parents]
        for c in range(table.n_classes):
            for level in (1, 0):
                at = (levels["class"] == c) & (levels["feature"] == f) & (levels["level"] == level)
                (m_fit,) = levels["m"][at]
                assert not levels["fallback"][at].any()
                shares = top_share if level else leaf_share
                counts = tops[c] if level else leaves[c]
                docs = np.zeros(counts.size, int) if level else parents
                best = _documents_evidence(grid, counts, shares, docs).max()
                got = _documents_evidence(np.array([m_fit]), counts, shares, docs)[0]
                worse += got < best - 1e-7 * max(1.0, abs(best))
                checked += 1
    assert checked == 12 and worse == 0


def test_heb_h_takes_fractional_weights_and_is_continuous_in_them():
    """A fractional weight is accepted by fit and partial_fit; weights a hair from whole
    numbers give the whole numbers' model (no jump to another peak)."""
    X, y, weights = _fractional()
    model = NaiveBayes("heb-h", hierarchies=_TREES).fit(X, y, sample_weight=weights)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    whole = np.rint(weights) + 1.0
    exact = NaiveBayes("heb-h", hierarchies=_TREES).fit(X, y, sample_weight=whole)
    nudged = whole + 1e-9 * np.random.default_rng(1).random(whole.size)
    near = NaiveBayes("heb-h", hierarchies=_TREES).fit(X, y, sample_weight=nudged)
    np.testing.assert_allclose(near.predict_proba(X), exact.predict_proba(X), atol=1e-6)
    half = np.r_[np.zeros(5), np.full(len(y) - 5, 0.5)]
    chunked = NaiveBayes("heb-h", hierarchies=_TREES)
    chunked.partial_fit(X[:200], y[:200], classes=[0, 1, 2], sample_weight=half[:200])
    chunked.partial_fit(X[200:], y[200:], sample_weight=half[200:])
    once = NaiveBayes("heb-h", hierarchies=_TREES).fit(X, y, sample_weight=half)
    np.testing.assert_allclose(chunked.predict_proba(X), once.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (lambda n: -np.ones(n), r"finite numbers >= 0, got -1\.0 at row 0"),
        (lambda n: np.r_[1.0, np.nan, np.ones(n - 2)], "finite numbers >= 0, got nan at row 1"),
        (lambda n: np.r_[np.inf, np.ones(n - 1)], "finite numbers >= 0, got inf"),
        (lambda n: np.ones(n - 1), r"one number per row: X has \d+ rows"),
        (lambda n: np.ones((n, 2)), "one number per row"),
        (lambda n: np.array(["a"] * n), "must hold numbers"),
        (lambda n: np.zeros(n), "sample_weight is zero for every row:"),
    ],
)
def test_bad_weights_are_one_sentence(weights, match):
    X, y, _ = _data(6)
    for smoother in ("laplace", "heb-m"):
        with pytest.raises(ValueError, match=match) as caught:
            NaiveBayes(smoother).fit(X, y, sample_weight=weights(len(y)))
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize("smoother", ["laplace", "te", "heb-m"])
def test_a_class_of_weight_zero_is_a_class_named_to_partial_fit_without_rows(smoother):
    X, y, weights = _data(7)
    weights = np.where(y == 1, 0, weights + 1)
    weighted = NaiveBayes(smoother).fit(X, y, sample_weight=weights)
    keep = weights > 0
    named = NaiveBayes(smoother).partial_fit(
        np.repeat(X[keep], weights[keep], axis=0),
        np.repeat(y[keep], weights[keep]),
        classes=[0, 1, 2],
    )
    assert weighted.classes_.tolist() == [0, 1, 2]
    assert weighted.count_table_.class_counts[1] == 0
    np.testing.assert_allclose(weighted.predict_proba(X), named.predict_proba(X), atol=1e-12)


def test_bagging_leaves_a_rare_class_out_of_some_bootstraps():
    X, _, _ = _data(11, missing=False)
    y = np.zeros(len(X), dtype=int)
    y[:2] = 1  # 2 rows of 400: about one bootstrap in 7 weighs both 0
    for estimator in (NaiveBayes("heb-m"), AODE()):  # weights / row subsets
        bagging = BaggingClassifier(estimator, n_estimators=40, random_state=0).fit(X, y)
        proba = bagging.predict_proba(X)
        assert proba.shape == (len(X), 2) and np.all(np.isfinite(proba))
        if isinstance(estimator, NaiveBayes):
            counts = [model.count_table_.class_counts[1] for model in bagging.estimators_]
            assert min(counts) == 0 < max(counts)


def test_a_scalar_weight_is_every_rows_and_the_caller_array_is_kept():
    X, y, _ = _data(8)
    weights = np.full(len(y), 2, dtype=np.int64)
    copy = weights.copy()
    by_array = NaiveBayes("heb-m").fit(X, y, sample_weight=weights)
    by_scalar = NaiveBayes("heb-m").fit(X, y, sample_weight=2)
    assert np.array_equal(weights, copy)
    assert np.array_equal(by_array.predict_proba(X), by_scalar.predict_proba(X))


@pytest.mark.parametrize(
    "model",
    [AODE(), AODE(smoother="heb"), TAN(), HierarchicalNaiveBayes()],
    ids=["aode", "heb-aode", "tan", "hierarchical"],
)
def test_the_other_classifiers_refuse_weights_in_one_sentence(model):
    X, y, weights = _data(9)
    assert not has_fit_parameter(model, "sample_weight")  # Bagging resamples rows instead
    name = type(model).__name__
    with pytest.raises(ValueError, match=f"^{name} does not take sample_weight") as caught:
        model.fit(X, y, sample_weight=weights)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="does not take sample_weight"):
        model.partial_fit(X, y, classes=[0, 1, 2], sample_weight=weights)
    with pytest.raises(ValueError, match="takes no parameter named 'groups'"):
        model.fit(X, y, groups=weights)
    model.fit(X, y)  # still fits without


def test_sklearn_workflows_pass_weights_through():
    X, y, weights = _data(10, missing=False)
    assert has_fit_parameter(NaiveBayes(), "sample_weight")
    search = GridSearchCV(NaiveBayes(), {"smoother": ["laplace", "heb-m"]}, cv=3)
    search.fit(X, y, sample_weight=weights + 1)
    assert search.best_params_["smoother"] in ("laplace", "heb-m")
    scores = cross_validate(NaiveBayes("kt"), X, y, cv=3, params={"sample_weight": weights + 0.5})
    assert np.all(np.isfinite(scores["test_score"]))
    balanced = compute_sample_weight("balanced", y)
    calibrated = CalibratedClassifierCV(NaiveBayes("laplace"), cv=3).fit(
        X, y, sample_weight=balanced
    )
    assert calibrated.predict_proba(X).shape == (len(y), 3)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).astype(str)
    pipe = make_model("heb-m").fit(frame, y, classifier__sample_weight=weights + 1)
    alone = NaiveBayes("heb-m").fit(pipe[0].transform(frame), y, sample_weight=weights + 1)
    assert np.array_equal(pipe.predict_proba(frame), alone.predict_proba(pipe[0].transform(frame)))


def test_a_model_of_fractional_weights_saves_and_loads():
    from heb import model_io

    X, y, weights = _fractional()
    model = NaiveBayes("m-estimate").fit(X, y, sample_weight=weights)
    loaded = model_io.loads(model_io.dumps(model))
    assert np.array_equal(loaded.count_table_.counts, model.count_table_.counts)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
