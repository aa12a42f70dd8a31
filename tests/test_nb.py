"""NaiveBayes: agreement with scikit-learn, the SPEC's class rules, and invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import read_shared_csv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import CategoricalNB

import heb.nb as nb_module
from heb.concentration import M_MIN
from heb.counts import CountTable
from heb.nb import WEIGHTINGS, NaiveBayes, score_codes
from heb.smoothing import SMOOTHERS, prior_mean

#: all-categorical datasets (mushroom has missing values: imputed) and two with numeric
#: columns (binned into quantiles)
AGREEMENT_DATASETS = [
    "car",
    "nursery",
    "tic-tac-toe",
    "kr-vs-kp",
    "monks-problems-2",
    "hayes-roth",
    "mushroom",
    "cmc",
]
SKLEARN_ALPHA = {"laplace": 1.0, "lidstone": 0.1, "kt": 0.5}


def encode(frame: pd.DataFrame, target: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes per column: numeric columns with many values are cut into 10
    quantile bins, missing values take the column's mode, then values are factorised."""
    frame = frame.copy()
    y = pd.factorize(frame.pop(target), sort=True)[0]
    columns = []
    for name in frame:
        values = frame[name]
        if values.isna().all():
            continue
        if pd.api.types.is_numeric_dtype(values) and values.nunique() > 10:
            values = pd.qcut(values, 10, labels=False, duplicates="drop")
        values = values.fillna(values.mode().iloc[0])
        columns.append(pd.factorize(values, sort=True)[0])
    return np.column_stack(columns), y


@pytest.fixture(scope="module")
def encoded(datasets_dir, manifest):
    return {
        name: encode(read_shared_csv(datasets_dir, name), manifest[name]["target"])
        for name in AGREEMENT_DATASETS
    }


@pytest.mark.parametrize("name", AGREEMENT_DATASETS)
def test_fixed_smoothers_equal_sklearn_categorical_nb(encoded, name):
    X, y = encoded[name]
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=42)
    for smoother, alpha in SKLEARN_ALPHA.items():
        ours = NaiveBayes(smoother=smoother).fit(X_train, y_train)
        peer = CategoricalNB(
            alpha=alpha,
            class_prior=np.exp(ours.class_log_prior_),
            min_categories=ours.n_categories_,
        ).fit(X_train, y_train)
        # test rows whose categories all have training rows (sklearn cannot take others)
        seen = ours.count_table_.category_totals() > 0
        in_range = (X_test < ours.n_categories_).all(axis=1)
        cols = ours.count_table_.offsets[:-1] + np.minimum(X_test, ours.n_categories_ - 1)
        rows = in_range & seen[cols].all(axis=1)
        assert rows.mean() > 0.9
        for data in (X_train, X_test[rows]):
            np.testing.assert_allclose(
                ours.predict_proba(data), peer.predict_proba(data), rtol=0, atol=1e-10
            )
        np.testing.assert_array_equal(ours.predict(X_train), peer.predict(X_train))


# ----------------------------------------------------------------------------- class rules
X_SMALL = np.array([[0, 0], [0, 1], [1, 0], [1, 2], [1, 2], [0, 1], [1, 1]])
Y_SMALL = np.array(["a", "a", "a", "b", "b", "b", "b"])


def test_class_prior_is_add_one():
    model = NaiveBayes(smoother="laplace").fit(X_SMALL, Y_SMALL)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [4 / 9, 5 / 9])
    np.testing.assert_array_equal(model.classes_, ["a", "b"])


@pytest.mark.parametrize("smoother", SMOOTHERS)
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_a_class_absent_from_the_chunk_gets_the_prior(smoother):
    model = NaiveBayes(smoother=smoother).partial_fit(X_SMALL, Y_SMALL, classes=["a", "b", "c"])
    prior = np.exp(model.class_log_prior_)
    np.testing.assert_allclose(prior, [4 / 10, 5 / 10, 1 / 10])
    kind = "uniform" if smoother in ("laplace", "lidstone", "kt", "heb-u") else "marginal"
    expected = prior_mean(model.count_table_, kind)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[2]), expected, rtol=1e-13)
    proba = model.predict_proba(np.array([[0, 2], [1, 1], [-1, 7]]))
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("smoother", SMOOTHERS)
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_dense_log_prob_is_the_feature_table_and_is_not_kept(smoother):
    model = NaiveBayes(smoother=smoother).fit(X_SMALL, Y_SMALL)
    dense = model.dense_log_prob()
    assert model._feature_log_prob is None  # a scorer stacking tables holds its own copy
    np.testing.assert_array_equal(dense, model.feature_log_prob_)
    assert model.dense_log_prob() is model.feature_log_prob_  # once built, it is reused
    with pytest.raises(AttributeError):
        NaiveBayes().dense_log_prob()


def test_missing_codes_at_fit_reduce_the_denominator():
    X = np.array([[0.0, 0.0], [np.nan, 1.0], [1.0, 1.0], [0.0, -1.0]])
    model = NaiveBayes(smoother="laplace").fit(X, np.zeros(4, int))
    theta = np.exp(model.feature_log_prob_[0])
    # feature 0 observed in 3 rows (0, 1, 0), feature 1 in 3 rows (0, 1, 1)
    np.testing.assert_allclose(theta, [3 / 5, 2 / 5, 2 / 5, 3 / 5])


def test_missing_and_unseen_codes_are_absent_evidence():
    model = NaiveBayes(smoother="laplace").fit(X_SMALL, Y_SMALL)
    only_f1 = model.predict_joint_log_proba(np.array([[np.nan, 2.0], [9.0, 2.0], [-1.0, 2.0]]))
    reference = model.class_log_prior_ + model.feature_log_prob_[:, 4]
    np.testing.assert_allclose(only_f1, np.tile(reference, (3, 1)))


def test_pinned_concentration_reaches_both_endpoints():
    """Proposition 2 through the estimator: m -> 0 unsmoothed, m -> inf pooled marginal."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 3))
    y = rng.integers(0, 2, 300)
    table = CountTable.from_codes(X, y, 2)
    n_cf = table.class_feature_totals()[:, table.feature_of_column]
    small = NaiveBayes(smoother="heb-m", n0=0, m_min=1e-9, m_max=1e-9).fit(X, y)
    large = NaiveBayes(smoother="heb-m", n0=0, m_min=1e12, m_max=1e12).fit(X, y)
    np.testing.assert_allclose(np.exp(small.feature_log_prob_), table.counts / n_cf, atol=1e-9)
    marginal = np.broadcast_to(prior_mean(table, "marginal"), table.counts.shape)
    np.testing.assert_allclose(np.exp(large.feature_log_prob_), marginal, atol=1e-9)


def test_diagnostics_columns():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 3, 200), np.zeros(200, int), rng.integers(0, 30, 200)])
    y = np.repeat([0, 1, 2], [150, 45, 5])
    X[:150, 1] = 0
    X[150:, 1] = rng.integers(0, 4, 50)
    model = NaiveBayes(smoother="heb-m", n0=10).fit(X, y)
    d = model.concentrations_
    assert set(d) == {
        "class",
        "feature",
        "N_c",
        "K_f",
        "m",
        "rho",
        "iterations",
        "converged",
        "clamped",
        "log_evidence",
        "fallback",
    }
    assert all(len(v) == 9 for v in d.values())
    np.testing.assert_array_equal(d["class"], np.repeat([0, 1, 2], 3))
    np.testing.assert_array_equal(d["feature"], np.tile([0, 1, 2], 3))
    np.testing.assert_array_equal(d["N_c"], np.repeat([150, 45, 5], 3))
    np.testing.assert_array_equal(d["K_f"], np.tile([3, 4, 30], 3))
    np.testing.assert_allclose(d["rho"], d["m"] / (d["N_c"] + d["m"]))
    assert set(d["clamped"]) <= {"low", "none", "high"}
    np.testing.assert_array_equal(d["fallback"], d["N_c"] < 10)
    np.testing.assert_array_equal(d["m"][d["fallback"]], d["K_f"][d["fallback"]])
    assert d["m"][3 * 0 + 1] == M_MIN and d["clamped"][1] == "low"  # one-hot: Corollary 1
    assert np.all(d["iterations"][d["fallback"]] == 0) and np.all(d["converged"])
    assert np.all(np.isfinite(d["log_evidence"]))
    lap = NaiveBayes(smoother="laplace").fit(X, y).concentrations_
    np.testing.assert_array_equal(lap["m"], lap["K_f"])
    assert set(lap["clamped"]) == {"none"} and not lap["fallback"].any()
    assert NaiveBayes(smoother="te").fit(X, y).concentrations_ is None


def test_sqrt_mi_weights_and_weighted_scores():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 400)
    X = np.column_stack([(y + rng.integers(0, 2, 400)) % 3, rng.integers(0, 4, 400)])
    model = NaiveBayes(smoother="heb-m", weighting="sqrt-mi").fit(X, y)
    expected = np.sqrt([mutual_info_score(X[:, f], y) for f in range(2)])
    np.testing.assert_allclose(model.feature_weights_, expected, rtol=1e-12)
    log_theta = model.feature_log_prob_
    offsets = model.count_table_.offsets
    manual = model.class_log_prior_ + sum(
        expected[f] * log_theta[:, offsets[f] + X[:, f]].T for f in range(2)
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), manual, rtol=1e-12)
    assert np.all(NaiveBayes(smoother="heb-m").fit(X, y).feature_weights_ == 1.0)


def test_fit_counts_is_fit_without_recounting():
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 5, size=(100, 3)), rng.integers(0, 2, 100)
    table = CountTable.from_codes(X, y, 2)
    a = NaiveBayes().fit(X, y)
    b = NaiveBayes().fit_counts(table)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(ValueError, match="one label per class"):
        NaiveBayes().fit_counts(table, classes=[0, 1, 2])


def test_score_codes_ignores_codes_out_of_range():
    log_theta = np.log(np.array([[0.5, 0.5, 0.2, 0.8], [0.1, 0.9, 0.6, 0.4]]))
    offsets = np.array([0, 2, 4])
    codes = np.array([[0, 1], [-1, 0], [2, 5]])
    out = score_codes(log_theta, offsets, codes)
    np.testing.assert_allclose(out[0], log_theta[:, 0] + log_theta[:, 3])
    np.testing.assert_allclose(out[1], log_theta[:, 2])
    np.testing.assert_allclose(out[2], 0.0)
    weighted = score_codes(log_theta, offsets, codes, np.array([2.0, 0.5]))
    np.testing.assert_allclose(weighted[0], 2 * log_theta[:, 0] + 0.5 * log_theta[:, 3])


@pytest.mark.parametrize(
    "params, message",
    [
        ({"smoother": "add-one"}, "Unknown smoother"),
        ({"weighting": "gain"}, "weighting"),
        ({"m_min": 5.0, "m_max": 1.0}, "m_min"),
        ({"smoother": "lidstone", "alpha": 0.0}, r"alpha must lie in \[1e-06, 1000\]"),
        ({"smoother": "laplace", "alpha": 0.5}, "laplace does not use alpha"),
        ({"smoother": "te", "m": 3.0}, "te does not use m"),
        ({"m_max": float("inf")}, "finite"),
        ({"m_min": 0.0}, "m_min"),
        ({"m_min": float("nan")}, "m_min"),
    ],
)
def test_bad_parameters_raise(params, message):
    with pytest.raises(ValueError, match=message):
        NaiveBayes(**params).fit(X_SMALL, Y_SMALL)


def test_partial_fit_errors():
    with pytest.raises(ValueError, match="classes must be passed"):
        NaiveBayes().partial_fit(X_SMALL, Y_SMALL)
    model = NaiveBayes().partial_fit(X_SMALL, Y_SMALL, classes=["a", "b"])
    with pytest.raises(ValueError, match="not in classes"):
        model.partial_fit(X_SMALL[:1], ["z"])
    with pytest.raises(ValueError, match="differ"):
        model.partial_fit(X_SMALL, Y_SMALL, classes=["a", "c"])
    with pytest.raises(ValueError, match="fractional"):
        NaiveBayes().fit(X_SMALL + 0.5, Y_SMALL)


# ----------------------------------------------------------------------------- properties
@st.composite
def problems(draw):
    """A small training set and a test set with missing and unseen codes."""
    n_features = draw(st.integers(1, 3))
    k = draw(st.lists(st.integers(1, 4), min_size=n_features, max_size=n_features))
    n_rows = draw(st.integers(2, 30))
    n_classes = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(-1, kf, n_rows) for kf in k]).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, n_classes, n_rows)
    X_test = np.column_stack([rng.integers(-2, kf + 2, 15) for kf in k]).astype(float)
    X_test[rng.random(X_test.shape) < 0.1] = np.nan
    return X, y, X_test, rng


def _relabel(X, X_test, rng):
    """Permute each feature's training-seen category codes alike in training and test data.

    Codes without a training row stay put, so every K_f (max training code + 1) is kept.
    """
    X, X_test = X.copy(), X_test.copy()
    for f in range(X.shape[1]):
        seen = np.unique(X[:, f][np.isfinite(X[:, f]) & (X[:, f] >= 0)]).astype(int)
        mapping = np.arange(int(seen.max()) + 1 if seen.size else 0)
        mapping[seen] = rng.permutation(seen)
        for data in (X, X_test):
            col = data[:, f]
            inside = np.isfinite(col) & (col >= 0) & (col < mapping.size)
            col[inside] = mapping[col[inside].astype(int)]
    return X, X_test


COMBOS = [(s, w) for s in SMOOTHERS for w in WEIGHTINGS]


@pytest.mark.parametrize("smoother, weighting", COMBOS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_invariants(smoother, weighting, problem):
    X, y, X_test, rng = problem
    model = NaiveBayes(smoother=smoother, weighting=weighting).fit(X, y)
    proba = model.predict_proba(X_test)
    assert np.all(np.isfinite(proba)) and np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.isfinite(model.predict_log_proba(X_test)))
    assert np.all(np.isfinite(model.feature_log_prob_))

    order = rng.permutation(len(y))
    shuffled = NaiveBayes(smoother=smoother, weighting=weighting).fit(X[order], y[order])
    np.testing.assert_allclose(shuffled.predict_proba(X_test), proba, rtol=0, atol=1e-12)

    X_rel, X_test_rel = _relabel(X, X_test, rng)
    relabelled = NaiveBayes(smoother=smoother, weighting=weighting).fit(X_rel, y)
    np.testing.assert_allclose(relabelled.predict_proba(X_test_rel), proba, rtol=0, atol=1e-9)

    chunked = NaiveBayes(smoother=smoother, weighting=weighting)
    cuts = np.sort(rng.choice(np.arange(1, len(y)), size=min(2, len(y) - 1), replace=False))
    for part in np.split(np.arange(len(y)), cuts):
        chunked.partial_fit(X[part], y[part], classes=np.unique(y))
    np.testing.assert_allclose(chunked.predict_proba(X_test), proba, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- large-K fast paths
def _dense_log_theta(table: CountTable, smoother: str, concentration: np.ndarray) -> np.ndarray:
    """log (N_cfv + m_cf t_v) / (N_cf + m_cf) over the whole dense table, unseen columns 0:
    the reference the sparse path (seen columns and positive cells only) must equal."""
    from heb import registry

    prior = prior_mean(table, registry.smoother(smoother).prior)
    col_f = table.feature_of_column
    m_col = concentration[:, col_f]
    theta = (table.counts + m_col * prior) / (table.class_feature_totals()[:, col_f] + m_col)
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)
    log_theta[:, table.category_totals() == 0] = 0.0
    return log_theta


@st.composite
def sparse_tables(draw):
    """Count tables of few rows over many categories (most cells zero, many unseen)."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_classes = draw(st.integers(1, 4))
    k = np.array(draw(st.lists(st.integers(1, 400), min_size=1, max_size=4)))
    n_rows = draw(st.integers(0, 60))
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(-1, kf, n_rows) for kf in k])
    y = rng.integers(0, n_classes, n_rows)
    return CountTable.from_codes(X, y, n_classes, k)


@pytest.mark.parametrize("smoother", [s for s in SMOOTHERS if s != "te"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=sparse_tables())
def test_sparse_smoothing_equals_the_dense_formula(smoother, table):
    model = NaiveBayes(smoother=smoother).fit_counts(table)
    m_cf = model.concentrations_["m"].reshape(table.n_classes, table.n_features)
    reference = _dense_log_theta(table, smoother, m_cf)
    np.testing.assert_allclose(model.feature_log_prob_, reference, rtol=0, atol=1e-12)
    if smoother in ("laplace", "lidstone", "kt", "heb-u"):  # uniform prior: same operations
        np.testing.assert_array_equal(model.feature_log_prob_, reference)
    # scoring reads the seen columns only: the same sums as over the dense table
    rng = np.random.default_rng(table.n_features)
    codes = np.column_stack([rng.integers(-1, kf + 2, 25) for kf in table.n_categories])
    dense = score_codes(reference, table.offsets, codes) + model.class_log_prior_
    np.testing.assert_allclose(model.predict_joint_log_proba(codes), dense, rtol=0, atol=1e-11)


@pytest.mark.parametrize("smoother", ["laplace", "kt", "heb-u", "heb-m", "m-estimate"])
def test_repeated_codes_take_the_positive_cell_path_and_equal_the_dense_formula(smoother):
    """Fewer codes than cells, so the table keeps its positive cells, but the codes
    repeat (Zipf): they would fill the table, the positive cells fill a sixth of it.
    The positive-cell path is taken and equals the dense formula."""
    from heb.log_tables import TableSums

    rng = np.random.default_rng(11)
    k = np.array([300, 300, 200])
    ranks = rng.zipf(1.6, (500, k.size)) - 1
    X = np.minimum(ranks, k - 1)
    y = rng.integers(0, 2, 500)
    table = CountTable.from_codes(X, y, 2, k)
    positive = np.count_nonzero(table.counts)
    assert 4 * table.class_feature_totals().sum() >= table.counts.size > 4 * positive
    assert TableSums(table).sparse()
    model = NaiveBayes(smoother=smoother).fit_counts(table)
    m_cf = model.concentrations_["m"].reshape(table.n_classes, table.n_features)
    reference = _dense_log_theta(table, smoother, m_cf)
    np.testing.assert_allclose(model.feature_log_prob_, reference, rtol=0, atol=1e-12)
    if smoother in ("laplace", "kt", "heb-u"):  # uniform prior: the same operations
        np.testing.assert_array_equal(model.feature_log_prob_, reference)


@pytest.mark.parametrize("k", [(6, 6, 6), (6, 2, 9)])
def test_dirichlet_theta_spreads_each_pair_over_its_columns(k):
    """One K for every feature (a broadcast) or several (a repeat): bit for bit the
    formula with m_cf and N_cf gathered column by column."""
    from heb.log_tables import dirichlet_theta

    rng = np.random.default_rng(len(set(k)))
    k = np.array(k)
    X = np.column_stack([rng.integers(0, kf, 90) for kf in k])
    table = CountTable.from_codes(X, rng.integers(0, 3, 90), 3, k)
    n_cf = table.class_feature_totals()
    m_cf = rng.uniform(0.1, 50.0, n_cf.shape)
    prior = rng.dirichlet(np.ones(table.counts.shape[1]))
    col_f = table.feature_of_column
    expected = (table.counts + m_cf[:, col_f] * prior) / (m_cf[:, col_f] + n_cf[:, col_f])
    np.testing.assert_array_equal(dirichlet_theta(table, n_cf, m_cf, prior), expected)


def test_large_k_laplace_equals_sklearn_on_seen_categories():
    rng = np.random.default_rng(3)
    k = np.array([5000, 20000, 3])
    X = np.column_stack([rng.integers(0, kf, 400) for kf in k])
    X[0] = k - 1
    y = rng.integers(0, 3, 400)
    ours = NaiveBayes(smoother="laplace").fit(X, y)
    theirs = CategoricalNB(alpha=1.0, min_categories=k).fit(X, y)
    seen = ours.count_table_.category_totals() > 0
    reference = np.concatenate(theirs.feature_log_prob_, axis=1)
    np.testing.assert_allclose(ours.feature_log_prob_[:, seen], reference[:, seen], rtol=1e-12)
    np.testing.assert_array_equal(ours.feature_log_prob_[:, ~seen], 0.0)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(0, 40),
    k=st.lists(st.integers(1, 30), min_size=1, max_size=4),
    weighted=st.booleans(),
)
def test_score_codes_both_gathers_equal_a_plain_sum(seed, n_rows, k, weighted):
    rng = np.random.default_rng(seed)
    offsets = np.concatenate(([0], np.cumsum(k)))
    log_theta = rng.normal(size=(3, offsets[-1]))
    codes = np.column_stack([rng.integers(-2, kf + 2, n_rows) for kf in k])
    weights = rng.random(len(k)) if weighted else None
    expected = np.zeros((n_rows, 3))
    for i in range(n_rows):
        for f, code in enumerate(codes[i]):
            if 0 <= code < k[f]:
                w = 1.0 if weights is None else weights[f]
                expected[i] += w * log_theta[:, offsets[f] + code]
    # few rows: column gathers; many rows (the same codes tiled): the transposed table
    np.testing.assert_allclose(
        score_codes(log_theta, offsets, codes, weights), expected, atol=1e-12
    )
    many = np.tile(codes, (offsets[-1] + 1, 1))
    np.testing.assert_allclose(
        score_codes(log_theta, offsets, many, weights),
        np.tile(expected, (offsets[-1] + 1, 1)),
        atol=1e-12,
    )


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=30)
    | st.lists(st.integers(-128, 127), min_size=1, max_size=30).map(
        lambda v: np.array(v, dtype=np.int8)
    )
)
def test_integer_labels_are_indexed_as_np_unique(labels):
    y = np.asarray(labels)
    X = np.zeros((y.size, 1), dtype=int)
    model = NaiveBayes(smoother="laplace").fit(X, y)
    classes, index = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(model.classes_, classes)
    assert model.classes_.dtype == classes.dtype
    np.testing.assert_array_equal(model.count_table_.class_counts, np.bincount(index))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_rows", [23, 22])  # a last block of 2 rows, or of 1
def test_sparse_score_blocks_add_features_in_order(monkeypatch, weighted, n_rows):
    # many rows go through blocks of a sparse code matrix; with blocks of 3 rows (7 codes
    # each, 22 or 23 rows: a last partial block) the sums equal, bit for bit, a loop that adds
    # the features' log-probabilities in feature order (absent codes add nothing)
    rng = np.random.default_rng(5)
    log_theta = rng.normal(size=(4, 9))
    index = rng.integers(0, 10, (n_rows, 7))  # 9 = the table's width: absent evidence
    weights = rng.random(7) if weighted else None
    rows = np.vstack([log_theta.T, np.zeros((1, 4))])
    expected = np.zeros((n_rows, 4))
    for f in range(7):
        expected += rows[index[:, f]] * (1.0 if weights is None else weights[f])
    monkeypatch.setattr(nb_module, "_CODES_PER_BLOCK", 21)
    np.testing.assert_array_equal(nb_module.sum_columns(log_theta, index, weights), expected)
    assert nb_module.sum_columns(log_theta, index[:, :0]).shape == (n_rows, 4)


@pytest.mark.parametrize("dtype", ["S", object])
def test_bytes_labels_are_named_as_bytes(dtype):
    """Labels that are all bytes were said to mix types ("mixes class labels of different
    types (bytes), such as '1' and 1"): scikit-learn refuses bytes labels themselves."""
    y = np.array([b"no", b"yes"] * 3, dtype=dtype)
    with pytest.raises(ValueError, match=r"^y holds class labels as bytes, which scikit-le"):
        NaiveBayes().fit(np.zeros((6, 1), dtype=int), y)
    decoded = [label.decode() for label in y]  # the advice works
    assert NaiveBayes().fit(np.zeros((6, 1), dtype=int), decoded).classes_.tolist() == ["no", "yes"]
