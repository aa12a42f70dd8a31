"""The once-per-dataset encoding gives a fold exactly what a Preprocessor fitted on it gives.

Compared on every shared benchmark dataset (codes, K_f and counts of two folds each, full
cross-validation results on a handful), on hypothesis-generated frames (missing values,
infinities, unseen categories, ties on bin edges, ID-like float columns) and on
hand-computed cases.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

from heb.counts import CountTable
from heb.data import DataError, Dataset, Preprocessor, encode_target
from heb.data.binning import quantile_edges, ranked_quantile_edges
from heb.data.encoding import class_totals, encode_columns
from heb.data.folds import rows_by_class
from heb.data.shared import load_shared, shared_dataset_names
from heb.data.sorted_floats import SortedByClass, bin_codes
from heb.evaluate import FOLD_STORE, RunSettings, cross_validate, prepare_folds
from heb.evaluate.cv import _run_methods, method_spec
from heb.evaluate.folds import reference_folds
from heb.registry import TABLE1_METHODS


def assert_same_fold(X, y, train, test, categorical=(), n_bins=10, missing="impute"):
    """The encoding's codes, K_f and counts equal the Preprocessor's on one fold."""
    C = int(y.max()) + 1
    pre = Preprocessor(n_bins=n_bins, missing=missing, categorical=list(categorical))
    train_codes = pre.fit_transform(X.iloc[train])
    test_codes = pre.transform(X.iloc[test])
    codes = encode_columns(X, categorical=list(categorical))
    expected = CountTable.from_codes(train_codes, y[train], C, n_categories=pre.n_categories_)
    by_fold = class_totals(codes, y, C, [test, train])  # the test rows are one of two folds
    for totals in (class_totals(codes, y, C), by_fold, None):
        encoding, table = codes.fit_fold(train, test, y, C, n_bins, missing, totals=totals)
        assert encoding.feature_names_out_ == pre.feature_names_out_
        np.testing.assert_array_equal(encoding.n_categories_, pre.n_categories_)
        np.testing.assert_array_equal(encoding.transform(codes, train, impute=True), train_codes)
        np.testing.assert_array_equal(encoding.transform(codes, test), test_codes)
        np.testing.assert_array_equal(table.offsets, expected.offsets)
        np.testing.assert_array_equal(table.counts, expected.counts)
        np.testing.assert_array_equal(table.class_counts, expected.class_counts)
    np.testing.assert_array_equal(
        codes.fit(train, n_bins, missing).n_categories_, pre.n_categories_
    )


# ---------------------------------------------------------------- hand-computed cases
def test_categories_are_the_training_values_sorted_and_unseen_is_k():
    X = pd.DataFrame({"colour": ["red", "blue", "red", None, "green", "blue"]})
    codes = encode_columns(X)
    train, test = np.array([0, 1, 2, 3]), np.array([4, 5])
    encoding = codes.fit(train)
    np.testing.assert_array_equal(encoding.n_categories_, [2])  # blue, red
    # training rows: red 1, blue 0, red 1, missing imputed with the mode (red: 2 rows)
    np.testing.assert_array_equal(encoding.transform(codes, train, impute=True)[:, 0], [1, 0, 1, 1])
    # green was never seen in training: code K_f = 2, absent evidence; blue is 0
    np.testing.assert_array_equal(encoding.transform(codes, test)[:, 0], [2, 0])
    # missing as a category of its own: blue 0, red 1, (missing) 2; unseen green 3
    own = codes.fit(train, missing="category")
    np.testing.assert_array_equal(own.n_categories_, [3])
    np.testing.assert_array_equal(own.transform(codes, train, impute=True)[:, 0], [1, 0, 1, 2])
    np.testing.assert_array_equal(own.transform(codes, test)[:, 0], [3, 0])


def test_tied_quantiles_merge_the_empty_bin():
    # six 0s, then 1, 2, 3, 4: the quantiles at thirds are 0, 0, 1, 4, so the cuts are
    # [0, 1]; no training value lies below 0, so bin (-inf, 0) is empty and merges into
    # its neighbour: cuts [1], six rows in bin 0 and four in bin 1
    X = pd.DataFrame({"x": [0.0] * 6 + [1.0, 2.0, 3.0, 4.0, -5.0]})
    codes = encode_columns(X)
    train = np.arange(10)
    y = np.zeros(11, dtype=np.int64)
    for totals in (class_totals(codes, y, 1), None):
        encoding, table = codes.fit_fold(train, np.array([10]), y, 1, n_bins=3, totals=totals)
        np.testing.assert_array_equal(encoding.fitted[0].cuts, [1.0])
        np.testing.assert_array_equal(table.counts, [[6, 4]])
        np.testing.assert_array_equal(encoding.transform(codes, np.array([10]))[:, 0], [0])


@pytest.mark.parametrize("share", [0.05, 0.16, 0.45])
def test_a_flag_keeps_both_values_whatever_its_share_of_ones(share):
    """A 0/1 column with 16 % ones was read as one category (K_f 1, "(-inf, inf)"): its
    quantiles 0, ..., 0, 1, 1 have an empty interior. At most n_bins distinct training
    values: one bin per value, on every path."""
    n = 400
    ones = np.zeros(n)
    ones[: int(share * n)] = 1.0
    X = pd.DataFrame({"senior": np.random.default_rng(1).permutation(ones)})
    pre = Preprocessor().fit(X)
    assert pre.n_categories_.tolist() == [2]
    assert pre.categories_[0] == ["0", "1"]  # its values, as a category column's
    y = np.random.default_rng(2).integers(0, 2, n)
    train, test = np.arange(300), np.arange(300, n)
    assert_same_fold(X, y, train, test)


def test_few_values_get_a_bin_each_up_to_n_bins_and_quantiles_beyond():
    # 0..4 with n_bins 5: a bin per value; with n_bins 4, quantile bins: 0 | 1 - 4 (a cut at
    # the median 0.5, the other quantiles 0 and 4 are the ends)
    X = pd.DataFrame({"x": np.repeat([0.0, 1.0, 2.0, 3.0, 4.0], [50, 5, 5, 5, 35])})
    assert Preprocessor(n_bins=5).fit(X).n_categories_.tolist() == [5]
    assert Preprocessor(n_bins=4).fit(X).categories_[0] == ["(-inf, 0.5)", "[0.5, inf)"]
    # a value only in the test rows is not a training value: its bin is its neighbour's
    X = pd.DataFrame({"x": [0.0, 0.0, 1.0, 1.0, 0.0, 7.0]})
    y = np.array([0, 1, 0, 1, 0, 1])
    train, test = np.arange(5), np.array([5])
    pre = Preprocessor().fit(X.iloc[train])
    assert pre.transform(X.iloc[test])[:, 0].tolist() == [1]
    assert_same_fold(X, y, train, test)


def test_a_column_empty_in_training_is_dropped_and_none_left_is_an_error():
    X = pd.DataFrame({"a": [None, None, "x"], "b": ["p", "q", "p"]})
    codes = encode_columns(X)
    encoding = codes.fit(np.array([0, 1]))
    assert encoding.feature_names_out_ == ["b"]
    with pytest.raises(DataError, match="No usable feature"):
        encode_columns(X[["a"]]).fit(np.array([0, 1]))
    with pytest.raises(ValueError, match="n_bins"):
        codes.fit(np.array([0, 1]), n_bins=1)
    with pytest.raises(DataError, match="same name"):
        encode_columns(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_id_like_floats_are_categorical_only_while_training_holds_whole_numbers():
    X = pd.DataFrame({"user_id": [1.0, 2.0, 2.0, np.nan, 2.5, np.inf]})
    y = np.array([0, 1, 0, 1, 0, 1])
    assert_same_fold(X, y, np.array([0, 1, 2, 3, 5]), np.array([4]))  # categorical
    assert_same_fold(X, y, np.array([0, 1, 2, 4]), np.array([3, 5]))  # numeric


def test_mixed_objects_keep_their_text_labels():
    # 1 and "1" read alike as text, True does not: hashing would merge 1 and True
    X = pd.DataFrame({"v": np.array([1, "1", True, "b", None, 1.0, "1.0"], dtype=object)})
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    assert_same_fold(X, y, np.arange(5), np.array([5, 6]))


# ---------------------------------------------------------------- generated frames
@st.composite
def frames(draw):
    n = draw(st.integers(6, 40))
    labels = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]))
    numbers = st.one_of(
        st.just(np.nan), st.just(np.inf), st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.0, -1.0])
    )
    X = pd.DataFrame(
        {
            "text": pd.array(draw(st.lists(labels, min_size=n, max_size=n)), dtype="str"),
            "obj": pd.Series(draw(st.lists(labels, min_size=n, max_size=n)), dtype=object),
            "num": draw(st.lists(numbers, min_size=n, max_size=n)),
            "ties": draw(
                st.lists(st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0]), min_size=n, max_size=n)
            ),
            "row_id": draw(st.lists(numbers, min_size=n, max_size=n)),
            "code": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
            "flag": pd.array(
                draw(st.lists(st.one_of(st.none(), st.booleans()), min_size=n, max_size=n)),
                dtype="boolean",
            ),
        }
    )
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    test = np.array(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n // 2))))
    train = np.setdiff1d(np.arange(n), test)
    return X, y, train, test


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=frames(),
    n_bins=st.integers(2, 6),
    missing=st.sampled_from(["impute", "category"]),
    declared=st.booleans(),
)
def test_generated_frames_encode_as_the_preprocessor_does(data, n_bins, missing, declared):
    X, y, train, test = data
    categorical = ["code"] if declared else []
    try:
        Preprocessor(n_bins=n_bins, missing=missing, categorical=categorical).fit(X.iloc[train])
    except DataError:
        with pytest.raises(DataError):
            encode_columns(X, categorical=categorical).fit(train, n_bins, missing)
        return
    assert_same_fold(X, y, train, test, categorical, n_bins, missing)


# ---------------------------------------------------------------- shared datasets
def _shared_names(datasets_dir) -> list[str]:
    return shared_dataset_names(datasets_dir)


def test_every_shared_dataset_encodes_as_the_preprocessor_does(datasets_dir):
    names = _shared_names(datasets_dir)
    assert len(names) == 26
    for name in names:
        dataset = load_shared(name, datasets_dir)
        X, y_raw = dataset.X, dataset.y
        if len(X) > 2000:  # the first 2,000 rows keep this quick; every column is checked
            X, y_raw = X.iloc[:2000], y_raw.iloc[:2000]
        y = encode_target(y_raw)[0]
        splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
        _, counts = np.unique(y, return_counts=True)
        if counts.min() < 3:
            splitter = StratifiedKFold(n_splits=2, shuffle=True, random_state=0)
        train, test = (
            next(splitter.split(np.zeros(len(y)), y))
            if counts.min() >= 2
            else (
                np.arange(len(y) // 2, len(y)),
                np.arange(len(y) // 2),
            )
        )
        for missing in ("impute", "category"):
            assert_same_fold(X, y, train, test, dataset.categorical, 10, missing)


@pytest.mark.parametrize("name", ["adult", "amazon-employee-access", "sick", "soybean", "vote"])
def test_cross_validation_results_equal_the_preprocessor_path(datasets_dir, name):
    if name not in _shared_names(datasets_dir):
        pytest.skip(f"{name} is not among the shared datasets")
    dataset = load_shared(name, datasets_dir)
    run = RunSettings(max_rows=3000, n_splits=5)
    result = cross_validate(dataset, TABLE1_METHODS, n_splits=5, max_rows=3000, use_cache=False)
    reference = reference_folds(dataset, run)
    specs = {method: method_spec(method) for method in TABLE1_METHODS}
    expected = _run_methods(specs, reference, lambda fraction, message: None)
    metrics = [
        c for c in result.folds.columns if c not in ("method", "fold", "fit_time", "predict_time")
    ]
    for method in TABLE1_METHODS:
        np.testing.assert_array_equal(result.oof_proba[method], expected[method][1])
        mine = result.folds.query("method == @method")[metrics].to_numpy()
        np.testing.assert_array_equal(mine, expected[method][0][metrics].to_numpy())


def test_prepared_folds_hold_one_copy_of_the_codes():
    rng = np.random.default_rng(1)
    n = 2000
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.normal(size=n)})
    y = pd.Series(rng.choice(["p", "q"], n))
    dataset = Dataset("toy", X, y, categorical=[], source="test")
    prepared = prepare_folds(dataset, RunSettings(max_rows=None, n_splits=5))
    assert all(fold.codes is prepared.codes for fold in prepared.folds)
    one_copy = X.shape[0] * 4 + X.shape[0] * 8  # int32 indices of a, float64 floats of b
    assert prepared.codes.nbytes == one_copy
    # every fold's counts add up to its training rows, per feature
    for fold in prepared.folds:
        totals = fold.table.class_feature_totals().sum(axis=0)
        np.testing.assert_array_equal(totals, [fold.train_index.size] * 2)
    FOLD_STORE.clear()


floats_with_ties = st.lists(
    st.one_of(
        st.sampled_from([0.0, 1.0, 2.5, -3.0]),  # ties
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    ),
    min_size=1,
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(values=floats_with_ties, n_bins=st.integers(2, 30))
def test_quantiles_from_order_statistics_equal_np_quantile(values, n_bins):
    observed = np.array(values)
    ordered = np.sort(observed)
    edges = ranked_quantile_edges(lambda ranks: ordered[ranks], observed.size, n_bins)
    np.testing.assert_array_equal(edges, quantile_edges(observed, n_bins))


@settings(max_examples=150, deadline=None)
@given(values=floats_with_ties, seed=st.integers(0, 2**32 - 1), share=st.floats(0.0, 0.9))
def test_training_order_statistics_are_the_sorted_training_floats(values, seed, share):
    values = np.array(values)
    rng = np.random.default_rng(seed)
    in_test = rng.random(values.size) < share
    in_test[0] = False  # at least one training float
    codes = encode_columns(pd.DataFrame({"x": values}))
    y = np.zeros(values.size, dtype=np.int64)
    (total,) = class_totals(codes, y, 1)
    order_statistic = total.training_order_statistic(values[in_test])
    training = np.sort(values[~in_test])
    np.testing.assert_array_equal(order_statistic(np.arange(training.size)), training)


@settings(max_examples=100, deadline=None)
@given(
    labels=st.lists(
        st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 3), st.booleans()),
        min_size=2,
        max_size=60,
    ),
    n_splits=st.integers(2, 10),
    text=st.booleans(),
)
def test_the_target_shortcuts_give_what_encode_target_and_safe_n_splits_give(
    labels, n_splits, text
):
    from heb.data import safe_n_splits
    from heb.evaluate.folds import _encode_target, _stand_in_target

    y_raw = pd.Series([str(v) for v in labels] if text else labels, dtype=object)
    y, classes = _encode_target(y_raw)
    expected_y, expected_classes = encode_target(y_raw)
    np.testing.assert_array_equal(y, expected_y)
    np.testing.assert_array_equal(classes, expected_classes)
    try:
        expected = safe_n_splits(y_raw, n_splits, rare="keep")
    except DataError as error:
        with pytest.raises(DataError, match=re.escape(str(error))):
            safe_n_splits(_stand_in_target(y, classes, n_splits), n_splits, rare="keep")
        return
    assert safe_n_splits(_stand_in_target(y, classes, n_splits), n_splits, rare="keep") == expected


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.sampled_from([0.0, 1.0, 2.5, -3.0, np.nan]), st.floats(-1e6, 1e6)),
        min_size=1,
        max_size=300,
    ),
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0.0, 0.9),
    n_classes=st.integers(1, 4),
)
def test_a_folds_test_floats_by_class_give_the_training_order_and_bin_counts(
    values, seed, share, n_classes
):
    """The test rows' floats sorted within each class: every row's minus theirs are the
    training floats (order statistics, per-class bin counts and missing counts)."""
    values = np.array(values)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, values.size)
    in_test = rng.random(values.size) < share
    test = np.flatnonzero(in_test)
    (total,) = class_totals(encode_columns(pd.DataFrame({"x": values})), y, n_classes)
    order, bounds = rows_by_class(y[test], n_classes)
    test_runs = SortedByClass.of(values, test[order], bounds)
    training, y_training = values[~in_test], y[~in_test]
    present = ~np.isnan(training)
    expected = np.sort(training[present])
    if expected.size:
        order_statistic = total.training_order_statistic(test_runs)
        np.testing.assert_array_equal(order_statistic(np.arange(expected.size)), expected)
        ranks = rng.integers(0, expected.size, 5)  # any ranks, again (answered from memory)
        np.testing.assert_array_equal(order_statistic(ranks), expected[ranks])
    cuts = np.unique(rng.choice(np.append(values[~np.isnan(values)], 0.5), 4))
    codes = np.searchsorted(cuts, training[present], side="right")
    by_bin = np.zeros((n_classes, cuts.size + 1), dtype=np.int64)
    np.add.at(by_bin, (y_training[present], codes), 1)
    np.testing.assert_array_equal(total.bin_counts(cuts) - test_runs.bin_counts(cuts), by_bin)
    missing = np.bincount(y_training[~present], minlength=n_classes)
    np.testing.assert_array_equal(total.missing - test_runs.missing, missing)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.one_of(st.floats(-100, 100), st.just(np.nan)), min_size=1, max_size=200),
    n_cuts=st.integers(0, 40),
)
def test_bin_codes_are_searchsorted_right(values, n_cuts):
    values = np.array(values)
    cuts = np.unique(np.linspace(-100, 100, n_cuts + 2)[1:-1].round(1))
    present = ~np.isnan(values)
    np.testing.assert_array_equal(
        bin_codes(cuts, values)[present], np.searchsorted(cuts, values[present], side="right")
    )


def test_class_totals_refuse_test_rows_that_do_not_partition_the_rows():
    codes = encode_columns(pd.DataFrame({"a": ["x", "y", "x"], "b": [1.0, 2.0, 3.0]}))
    y = np.array([0, 1, 0])
    for tests in ([np.array([0, 1])], [np.array([0, 1]), np.array([1, 2])]):
        with pytest.raises(ValueError, match="partition"):
            class_totals(codes, y, 2, tests)


def test_test_rows_that_are_not_one_of_the_folds_are_counted_from_themselves():
    """Totals by fold are used only for a fold's own test rows: other test rows of a fold's
    size (or a copy of a fold's) give the training counts counted from scratch."""
    rng = np.random.default_rng(4)
    n = 40
    b = rng.normal(size=n)
    b[::7] = np.nan
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": b})
    y = rng.integers(0, 2, n)
    codes = encode_columns(X)
    folds = [np.arange(0, 20), np.arange(20, 40)]
    by_fold = class_totals(codes, y, 2, folds)
    for test in (np.arange(10, 30), folds[0].copy()):
        train = np.setdiff1d(np.arange(n), test)
        _, expected = codes.fit_fold(train, test, y, 2, 4, "impute")
        _, table = codes.fit_fold(train, test, y, 2, 4, "impute", totals=by_fold)
        np.testing.assert_array_equal(table.counts, expected.counts)
        np.testing.assert_array_equal(table.class_counts, expected.class_counts)
