"""heb.data.preprocess: column typing, quantile bins, categories, imputation, subsampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from heb.data import (
    MISSING_LABEL,
    DataError,
    Preprocessor,
    encode_target,
    load_builtin,
    make_model,
    safe_n_splits,
    stratified_subsample,
)
from heb.nb import NaiveBayes


# ---------------------------------------------------------------------------- typing
def test_column_kinds():
    frame = pd.DataFrame(
        {
            "colour": ["red", "blue", "red", "green"],
            "size": [1.5, 2.5, 3.5, 4.5],
            "count": [1, 2, 3, 4],
            "user_id": [10, 20, 10, 30],
            "flag": [True, False, True, True],
            "coded": [3, 1, 2, 3],
            "url_hash": pd.array([5, 6, None, 5], dtype="Int64"),
        }
    )
    pre = Preprocessor(categorical=["coded"]).fit(frame)
    assert pre.kinds_ == {
        "colour": "categorical",
        "size": "numeric",
        "count": "numeric",
        "user_id": "categorical",
        "flag": "categorical",
        "coded": "categorical",
        "url_hash": "categorical",
    }
    assert pre.get_feature_names_out().tolist() == list(frame.columns)


def test_id_like_float_with_missing_is_categorical_but_real_floats_are_not():
    frame = pd.DataFrame({"store_id": [1.0, 2.0, np.nan, 2.0], "width": [610.0, 1300.0, 20.5, 3.0]})
    pre = Preprocessor().fit(frame)
    assert pre.kinds_ == {"store_id": "categorical", "width": "numeric"}


# ---------------------------------------------------------------------------- categories
def test_categories_sorted_and_coded():
    frame = pd.DataFrame({"c": ["pear", "apple", "fig", "apple"]})
    pre = Preprocessor().fit(frame)
    assert pre.categories_ == [["apple", "fig", "pear"]]
    np.testing.assert_array_equal(pre.transform(frame)[:, 0], [2, 0, 1, 0])
    np.testing.assert_array_equal(pre.n_categories_, [3])


def test_numeric_categories_sort_numerically():
    frame = pd.DataFrame({"RESOURCE": [10, 2, 33, 2]})
    pre = Preprocessor(categorical=["RESOURCE"]).fit(frame)
    assert pre.categories_ == [["2", "10", "33"]]
    np.testing.assert_array_equal(pre.transform(frame)[:, 0], [1, 0, 2, 0])
    # a new code at transform time is unseen, as are values that are not numbers
    codes = pre.transform(pd.DataFrame({"RESOURCE": [33, 7]}))
    np.testing.assert_array_equal(codes[:, 0], [2, 3])


def test_unseen_category_stays_unseen():
    """Acceptance 4: a test-fold category never seen in training gets code K_f."""
    train = pd.DataFrame({"c": ["a", "b", "a", "c"]})
    test = pd.DataFrame({"c": ["b", "zebra", "a"]})
    pre = Preprocessor().fit(train)
    codes = pre.transform(test)[:, 0]
    np.testing.assert_array_equal(codes, [1, 3, 0])
    assert pre.categories_ == [["a", "b", "c"]]  # unchanged by transform
    model = NaiveBayes().fit(pre.transform(train), ["x", "y", "x", "y"])
    proba = model.predict_proba(pre.transform(test))
    # the unseen value is absent evidence: the row scores as the class prior
    np.testing.assert_allclose(proba[1], np.exp(model.class_log_prior_))


def test_mode_imputation():
    train = pd.DataFrame({"c": ["a", None, "b", "b", np.nan]})
    pre = Preprocessor()
    # the training rows are imputed with the mode ...
    np.testing.assert_array_equal(pre.fit_transform(train)[:, 0], [0, 1, 1, 1, 1])
    assert pre.categories_ == [["a", "b"]]
    assert pre.impute_values_ == {"c": "b"}
    # ... a later row's missing value stays missing: absent evidence (SPEC section 1)
    np.testing.assert_array_equal(pre.transform(pd.DataFrame({"c": [None]}))[:, 0], [-1])


def test_missing_at_predict_time_is_absent_evidence():
    train = pd.DataFrame({"c": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    pre = Preprocessor(n_bins=4)
    model = NaiveBayes(smoother="laplace").fit(pre.fit_transform(train), [0, 0, 1, 1])
    row = pd.DataFrame({"c": [None], "x": [np.nan]})
    np.testing.assert_array_equal(pre.transform(row), [[-1, -1]])
    proba = model.predict_proba(pre.transform(row))
    np.testing.assert_allclose(proba[0], np.exp(model.class_log_prior_))
    # median imputation still applies to training rows
    codes = pre.fit_transform(pd.DataFrame({"c": ["a", "b", None], "x": [1.0, np.nan, 3.0]}))
    assert (codes >= 0).all()


def test_dates_and_float_stored_ids_are_usable():
    from heb.data.dataset import is_integer_like

    frame = pd.DataFrame(
        {
            "signup": pd.date_range("2024-01-01", periods=40, freq="D"),
            "wait": pd.to_timedelta(np.arange(40), unit="h"),
        }
    )
    pre = Preprocessor(n_bins=4).fit(frame)
    assert pre.dropped_ == [] and pre.kinds_ == {"signup": "numeric", "wait": "numeric"}
    assert list(pre.n_categories_) == [4, 4]
    assert is_integer_like(pd.Series([12.0, 7.0, 3.0]))  # parquet / CSV '12.0' IDs
    assert not is_integer_like(pd.Series([1.5, 2.0]))


def test_mode_imputation_on_an_id_like_column_is_recorded():
    """Issue 12: 10 missing user IDs imputed to the mode u00 make it look frequent (2 -> 12
    rows of 41); ID-like: at least 20 categories, fewer than 5 observed rows per category."""
    from heb.data.preprocess import (
        ID_LIKE_MIN_CATEGORIES,
        ID_LIKE_ROWS_PER_CATEGORY,
        is_id_like_counts,
    )

    ids = ["u00", *(f"u{i:02d}" for i in range(30)), *([None] * 10)]  # 31 rows, 30 IDs
    colours = ["red", "blue", "blue", None] + ["red"] * 37  # 40 rows in 2 colours
    frame = pd.DataFrame({"user": ids, "colour": colours})
    pre = Preprocessor()
    codes = pre.fit_transform(frame)
    # the codes keep the paper's rule: missing rows take the mode u00 (code 0)
    assert codes[31:, 0].tolist() == [0] * 10
    assert (ID_LIKE_MIN_CATEGORIES, ID_LIKE_ROWS_PER_CATEGORY) == (20, 5.0)
    assert pre.id_like_imputed_ == {
        "user": {"missing": 10, "mode": "u00", "mode_rows": 2, "categories": 30, "observed": 31}
    }
    assert is_id_like_counts(31, 30) and not is_id_like_counts(40, 2)
    assert is_id_like_counts(99, 20) and not is_id_like_counts(100, 20)  # below 5 per category
    assert not is_id_like_counts(19, 19)  # too few categories to call them IDs
    # with missing as its own category nothing piles up, so nothing is recorded
    own = Preprocessor(missing="category")
    assert own.fit_transform(frame)[31:, 0].tolist() == [30] * 10
    assert own.id_like_imputed_ == {}
    # an ID column without a missing row has nothing to pile up
    assert Preprocessor().fit(frame.iloc[:31]).id_like_imputed_ == {}


def test_mode_ties_take_the_first_category():
    pre = Preprocessor().fit(pd.DataFrame({"c": ["b", "a", "b", "a", None]}))
    assert pre.impute_values_ == {"c": "a"}


def test_missing_as_its_own_category():
    train = pd.DataFrame({"c": ["a", None, "b"], "x": [1.0, 2.0, np.nan]})
    pre = Preprocessor(missing="category", n_bins=2).fit(train)
    assert pre.categories_[0] == ["a", "b", MISSING_LABEL]
    assert pre.categories_[1][-1] == MISSING_LABEL
    codes = pre.transform(train)
    np.testing.assert_array_equal(codes[:, 0], [0, 2, 1])
    assert codes[2, 1] == pre.n_categories_[1] - 1


def test_missing_category_only_when_training_has_missing():
    train = pd.DataFrame({"c": ["a", "b"]})
    pre = Preprocessor(missing="category").fit(train)
    assert pre.categories_ == [["a", "b"]]
    # missing at transform time, never seen in training: unseen (K_f), not -1
    np.testing.assert_array_equal(pre.transform(pd.DataFrame({"c": [None]}))[:, 0], [2])


# ---------------------------------------------------------------------------- bins
def test_bins_come_from_the_training_fold_only():
    """Acceptance 4: test values outside the training range land in the end bins."""
    train = pd.DataFrame({"x": np.arange(100, dtype=float)})
    test = pd.DataFrame({"x": [-1000.0, 50.0, 1e9]})
    pre = Preprocessor(n_bins=10).fit(train)
    edges = pre.bin_edges_["x"].copy()
    assert edges[0] == 0.0 and edges[-1] == 99.0 and edges.size == 11
    codes = pre.transform(test)[:, 0]
    np.testing.assert_array_equal(codes, [0, 5, 9])
    np.testing.assert_array_equal(pre.bin_edges_["x"], edges)
    # fitting on train + test would move the edges: the encoder did not peek
    both = Preprocessor(n_bins=10).fit(pd.concat([train, test]))
    assert not np.array_equal(both.bin_edges_["x"], edges)


def test_bin_labels():
    pre = Preprocessor(n_bins=4).fit(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0]}))
    assert pre.categories_ == [["(-inf, 2)", "[2, 3)", "[3, 4)", "[4, inf)"]]


def test_ties_merge_empty_bins():
    values = np.array([0.0] * 80 + [1.0] * 10 + [2.0] * 10)
    pre = Preprocessor(n_bins=10).fit(pd.DataFrame({"x": values}))
    codes = pre.transform(pd.DataFrame({"x": values}))[:, 0]
    k = pre.n_categories_[0]
    assert k == 3
    assert np.all(np.bincount(codes, minlength=k) > 0)


def test_constant_numeric_column_is_one_bin():
    pre = Preprocessor().fit(pd.DataFrame({"x": [7.0] * 5}))
    assert pre.categories_ == [["(-inf, inf)"]]
    np.testing.assert_array_equal(pre.transform(pd.DataFrame({"x": [1.0, 7.0, 9.0]})), 0)


def test_matches_sklearn_kbins_on_continuous_data():
    rng = np.random.default_rng(0)
    train = rng.normal(size=(500, 3))
    test = rng.normal(scale=2.0, size=(200, 3))
    ours = Preprocessor(n_bins=10).fit(pd.DataFrame(train))
    peer = KBinsDiscretizer(
        n_bins=10, encode="ordinal", strategy="quantile", quantile_method="linear"
    ).fit(train)
    np.testing.assert_array_equal(ours.transform(pd.DataFrame(test)), peer.transform(test))
    for j, name in enumerate(ours.feature_names_out_):
        np.testing.assert_allclose(ours.bin_edges_[name], peer.bin_edges_[j])


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.integers(-5, 5).map(float), st.floats(-1e6, 1e6)), min_size=1, max_size=80
    ),
    n_bins=st.integers(2, 12),
)
def test_every_bin_holds_training_rows_and_codes_are_monotone(values, n_bins):
    x = np.array(values)
    pre = Preprocessor(n_bins=n_bins).fit(pd.DataFrame({"x": x}))
    codes = pre.transform(pd.DataFrame({"x": x}))[:, 0]
    k = pre.n_categories_[0]
    assert 1 <= k <= n_bins
    assert np.all(np.bincount(codes, minlength=k) > 0)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(codes[order]) >= 0)
    assert len(pre.categories_[0]) == k == pre.bin_edges_["x"].size - 1


def test_median_imputation_and_infinities():
    train = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan, np.inf, 100.0]})
    pre = Preprocessor(n_bins=2)
    train_codes = pre.fit_transform(train)[:, 0]
    assert pre.impute_values_ == {"x": "2.5"}  # the median of the finite training values
    assert pre.bin_edges_["x"].tolist() == [1.0, 2.5, 100.0]
    median_code = pre.transform(pd.DataFrame({"x": [2.5]}))[0, 0]
    # training rows: NaN and inf take the median's bin
    np.testing.assert_array_equal(train_codes[[3, 4]], median_code)
    # later rows: missing (NaN, inf) stays missing, absent evidence
    codes = pre.transform(pd.DataFrame({"x": [np.nan, -np.inf, 2.5]}))[:, 0]
    np.testing.assert_array_equal(codes, [-1, -1, median_code])


# ---------------------------------------------------------------------------- columns
def test_all_missing_columns_are_dropped():
    frame = pd.DataFrame({"a": [1.0, 2.0], "empty": [np.nan, np.nan], "b": ["x", None]})
    pre = Preprocessor().fit(frame)
    assert pre.dropped_ == ["empty"]
    assert pre.feature_names_out_ == ["a", "b"]
    assert pre.transform(frame).shape == (2, 2)
    assert "dropped" in pre.summary().set_index("feature").loc["empty", "kind"]


def test_columns_of_only_infinities_are_dropped():
    frame = pd.DataFrame({"x": [np.inf, -np.inf], "user_id": [np.inf, np.nan], "ok": ["a", "b"]})
    pre = Preprocessor(categorical=["user_id"]).fit(frame)
    assert pre.dropped_ == ["x", "user_id"] and pre.feature_names_out_ == ["ok"]


def test_transform_ignores_extra_columns_and_needs_the_fitted_ones():
    pre = Preprocessor().fit(pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}))
    codes = pre.transform(pd.DataFrame({"b": [1.0], "a": ["y"], "extra": [0]}))
    np.testing.assert_array_equal(codes, [[1, 0]])
    with pytest.raises(DataError, match="lacks column 'b'"):
        pre.transform(pd.DataFrame({"a": ["x"]}))


def test_numpy_input_and_clone():
    X = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 5.0]])
    pre = Preprocessor(n_bins=2, categorical=["x1"])
    fitted = clone(pre).fit(X)
    assert fitted.kinds_ == {"x0": "numeric", "x1": "categorical"}
    assert pre.get_params() == {"n_bins": 2, "missing": "impute", "categorical": ["x1"]}
    assert fitted.transform(X).dtype == np.int64


@pytest.mark.parametrize(
    "params", [{"n_bins": 1}, {"n_bins": 2.5}, {"n_bins": True}, {"missing": "drop"}]
)
def test_bad_parameters(params):
    with pytest.raises(ValueError):
        Preprocessor(**params).fit(pd.DataFrame({"x": [1.0, 2.0]}))


@settings(max_examples=30, deadline=None)
@given(
    data=st.lists(
        st.tuples(
            st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
            st.one_of(st.none(), st.floats(-10, 10), st.just(float("inf"))),
        ),
        min_size=2,
        max_size=40,
    ),
    missing=st.sampled_from(["impute", "category"]),
)
def test_codes_never_negative_and_within_k(data, missing):
    frame = pd.DataFrame(data, columns=["c", "x"]).astype({"c": object, "x": float})
    try:
        pre = Preprocessor(missing=missing)
        codes = pre.fit_transform(frame)
    except DataError:
        assert frame["c"].isna().all() and not np.isfinite(frame["x"]).any()
        return
    assert codes.dtype == np.int64 and np.all(codes >= 0)
    assert np.all(codes < pre.n_categories_)  # training rows are never unseen


# ---------------------------------------------------------------------------- helpers
def test_encode_target():
    index, classes = encode_target(pd.Series(["b", "a", "c", "a"]))
    np.testing.assert_array_equal(index, [1, 0, 2, 0])
    assert classes.tolist() == ["a", "b", "c"]
    index, classes = encode_target(np.array([3, "x", 3], dtype=object))
    assert classes.tolist() == ["3", "x"]
    index, classes = encode_target(np.array([2, 10, 2], dtype=object))
    assert classes.tolist() == [2, 10]  # integers stay integers, sorted numerically
    with pytest.raises(DataError):
        encode_target(pd.Series(["a", None]))


def test_stratified_subsample():
    rng = np.random.default_rng(0)
    y = pd.Series(rng.choice(["a", "b", "c"], p=[0.7, 0.29, 0.01], size=30_000))
    X = pd.DataFrame({"v": np.arange(30_000)})
    X_sub, y_sub = stratified_subsample(X, y)
    assert len(X_sub) == len(y_sub) == 20_000
    for label in "abc":
        exact = (y == label).sum() * 20_000 / 30_000
        assert abs((y_sub == label).sum() - exact) <= 1
    # rows stay aligned and in their original order, with a fresh index
    assert X_sub.index.equals(pd.RangeIndex(20_000))
    assert np.all(np.diff(X_sub["v"].to_numpy()) > 0)
    np.testing.assert_array_equal(y.to_numpy()[X_sub["v"].to_numpy()], y_sub.to_numpy())
    again = stratified_subsample(X, y, seed=42)[0]
    other = stratified_subsample(X, y, seed=7)[0]
    assert again.equals(X_sub) and not other.equals(X_sub)


def test_stratified_subsample_keeps_tiny_classes_and_small_data():
    y = np.array([0] * 999 + [1])
    X = np.arange(1000)[:, None]
    X_sub, y_sub = stratified_subsample(X, y, max_rows=10)
    assert len(y_sub) == 10 and (y_sub == 1).sum() == 1
    assert stratified_subsample(X, y, max_rows=5000)[0] is X


def test_safe_n_splits():
    assert safe_n_splits(["a"] * 20 + ["b"] * 10) == (10, None)
    folds, notice = safe_n_splits(["a"] * 20 + ["b"] * 4)
    assert folds == 4 and "4-fold" in notice and "'b'" in notice
    folds, notice = safe_n_splits(["a"] * 20 + ["b"] * 4, rare="keep")
    assert folds == 10 and "fewer than the 10 folds" in notice
    with pytest.raises(DataError, match="two classes"):
        safe_n_splits(["a"] * 5)


def test_rare_class_notice_says_what_the_folds_hold():
    """A class of 3 rows in 10 folds: every training fold holds it, 3 test folds do (the
    notice once said some training folds lacked it)."""
    y = np.array(["a"] * 40 + ["rare"] * 3)
    folds, notice = safe_n_splits(y, rare="keep")
    assert "tested in only 3 of them" in notice and "training folds lack" not in notice
    splits = StratifiedKFold(folds, shuffle=True, random_state=42).split(y[:, None], y)
    in_train, in_test = zip(
        *(((y[tr] == "rare").any(), (y[te] == "rare").any()) for tr, te in splits), strict=True
    )
    assert all(in_train) and sum(in_test) == 3


def test_make_model_fits_a_dataframe():
    dataset = load_builtin("zip-codes")
    model = make_model("heb-m", categorical=dataset.categorical)
    model.fit(dataset.X.iloc[:4000], dataset.y.iloc[:4000])
    proba = model.predict_proba(dataset.X.iloc[4000:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(np.isfinite(proba))
    assert model.named_steps["classifier"].smoother == "heb-m"
    assert list(model.classes_) == ["no", "yes"]
    other = make_model(estimator=DecisionTreeClassifier(random_state=0)).fit(dataset.X, dataset.y)
    assert other.predict(dataset.X.iloc[:5]).shape == (5,)
    with pytest.raises(ValueError):
        make_model(estimator=DecisionTreeClassifier(), alpha=1.0)


@pytest.mark.parametrize("name", ["aode", "HEB-AODE", "tan", "HEB-TAN"])
def test_make_model_of_aode_names_the_estimator_at_once(name):
    """make_model("aode") built a pipeline that failed only at fit, with "Unknown
    smoother 'aode'; choose one of laplace, ..." and no word of AODE; so did "tan"
    (cross_val_score: "All the 3 fits failed")."""
    with pytest.raises(ValueError, match=r"is a model, not a Naive Bayes smoother: pass "):
        make_model(name)


def test_preprocessing_20000_by_50():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(20_000, 40)), columns=[f"n{i}" for i in range(40)])
    for i in range(10):
        frame[f"c{i}"] = rng.choice([f"level{j}" for j in range(50)], size=20_000)
    pre = Preprocessor().fit(frame)
    codes = pre.transform(frame)
    assert codes.shape == (20_000, 50)
    assert list(pre.n_categories_) == [10] * 40 + [50] * 10  # ten quantile bins, 50 levels
    assert (codes.min(axis=0) == 0).all() and (codes.max(axis=0) == pre.n_categories_ - 1).all()


@parametrize_with_checks([Preprocessor()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_array_after_dataframe_fit_uses_the_fitted_column_order():
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 2.0, 3.0]})
    pre = Preprocessor(n_bins=2).fit(frame)
    np.testing.assert_array_equal(pre.transform(frame.to_numpy(dtype=object)), pre.transform(frame))
    with pytest.raises(ValueError, match="features"):
        pre.transform(np.zeros((2, 3)))
