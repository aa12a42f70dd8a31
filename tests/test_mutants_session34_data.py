"""Data to codes (SPEC section 1), mutation-tested: hand-computed cases for the binning,
missing-value and category rules of heb.data and heb.scale.encoding that the other tests
left open (each test names the mutant it kills)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import Preprocessor
from heb.data.binning import check_n_bins, quantile_cuts
from heb.data.encoding import encode_columns
from heb.scale.encoding import FeatureValues, fit_fold

#: quantiles at 0, 1/3, 2/3, 1 of these 8 floats: 0, 5 + (8 - 5) / 3 = 6, 8, 14; the bin
#: [6, 8) holds no value, so it merges into its right-hand neighbour: one cut, at 6
#: (give or take a rounding)
TIES = [0.0, 5.0, 5.0, 8.0, 8.0, 8.0, 12.0, 14.0]


def scale_fit(raw, counts, missing="impute", n_bins=10, kind="numeric"):
    """A one-class, one-fold histogram of ``raw`` values (``counts`` rows each), fitted;
    the values are read as numbers."""
    raw = pd.Series(raw)
    zeros = np.zeros(len(raw), dtype=np.int64)
    values = FeatureValues.from_histogram(
        "x", kind, True, raw, zeros, zeros, np.asarray(counts, dtype=float)
    )
    return values, fit_fold(values, values.counts(1), missing, n_bins)


# ---------------------------------------------------------------------------- binning
def test_n_bins_true_is_refused_as_not_a_whole_number():
    # a bool is an int to Python; the message says what is wrong (not "between 2 and ...")
    with pytest.raises(ValueError, match="whole number"):
        check_n_bins(True)


def test_an_empty_bin_merges_into_its_right_hand_neighbour():
    assert quantile_cuts(np.array(TIES), 3).tolist() == pytest.approx([6.0])
    pre = Preprocessor(n_bins=3).fit(pd.DataFrame({"x": TIES}))
    assert pre.categories_ == [["(-inf, 6)", "[6, inf)"]]
    assert pre.transform(pd.DataFrame({"x": [5.9, 6.1, 7.0, 8.0]}))[:, 0].tolist() == [0, 1, 1, 1]


def test_the_fold_encoding_merges_an_empty_bin_as_the_preprocessor():
    codes = encode_columns(pd.DataFrame({"x": TIES}))
    fold = codes.fit(np.arange(len(TIES)), n_bins=3)
    assert fold.n_categories_.tolist() == [2]
    assert fold.fitted[0].cuts.tolist() == pytest.approx([6.0])


def test_the_engine_encoding_merges_an_empty_bin_as_the_preprocessor():
    _, fitted = scale_fit([0.0, 5.0, 8.0, 12.0, 14.0], [1, 2, 3, 1, 1], n_bins=3)
    assert fitted.cuts.tolist() == pytest.approx([6.0])
    assert fitted.n_categories == 2


# ---------------------------------------------------------------------------- fold codes
def fold_frame():
    """Six training rows and one test row (the last): ``x`` has training values 1, 1, 2, 2,
    2, 3 and a missing one, the test row's 4 only in the test fold; ``c`` has training
    labels a, a, b, b, b, b and a missing one, the test row's z only in the test fold."""
    X = pd.DataFrame(
        {
            "x": [1.0, 1.0, 2.0, 2.0, 2.0, 3.0, np.nan, 4.0],
            "c": ["a", "a", "b", "b", "b", "b", None, "z"],
        }
    )
    y = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    return X, y, np.arange(7), np.array([7])


@pytest.mark.parametrize("subtract", [True, False])
def test_a_fold_bins_its_few_training_values_and_imputes_the_median_bin(subtract):
    from heb.data.encoding import class_totals

    X, y, train, test = fold_frame()
    codes = encode_columns(X)
    totals = class_totals(codes, y, 2, [test, train]) if subtract else None
    encoding, table = codes.fit_fold(train, test, y, 2, n_bins=3, totals=totals)
    # three training values, n_bins = 3: one bin per value (the test-only 4 is no bin)
    assert encoding.fitted[0].cuts.tolist() == [2.0, 3.0]
    # the median 2 sits on the cut at 2: bin [2, 3), which the missing row joins (class 1)
    assert table.counts[:, 0:3].tolist() == [[1, 2, 0], [1, 2, 1]]
    # categories a, b (the test-only z is none); mode b takes the missing row
    assert encoding.n_categories_.tolist() == [3, 2]
    assert table.counts[:, 3:5].tolist() == [[1, 2], [1, 3]]
    scored = encoding.transform(codes, np.arange(8))
    assert scored[:, 0].tolist() == [0, 0, 1, 1, 1, 2, -1, 2]
    assert scored[:, 1].tolist() == [0, 0, 1, 1, 1, 1, -1, 2]  # z: unseen, K_f = 2


def test_the_preprocessor_codes_the_same_fold_alike():
    X, _, train, _ = fold_frame()
    pre = Preprocessor(n_bins=3).fit(X.iloc[train])
    assert pre.categories_ == [["(-inf, 2)", "[2, 3)", "[3, inf)"], ["a", "b"]]
    assert pre.impute_values_ == {"x": "2", "c": "b"}
    codes = pre.transform(X)
    assert codes[:, 0].tolist() == [0, 0, 1, 1, 1, 2, -1, 2]
    assert codes[:, 1].tolist() == [0, 0, 1, 1, 1, 1, -1, 2]
    assert pre.fit_transform(X.iloc[train])[6].tolist() == [1, 1]


def test_an_id_float_column_is_categorical_in_a_fold_of_whole_numbers_only():
    # the test row's 2.5 is not a training value: the fold's values are whole numbers
    X = pd.DataFrame({"user_id": [1.0, 2.0, 1.0, 3.0, 2.5]})
    codes = encode_columns(X)
    encoding = codes.fit(np.arange(4))
    assert encoding.n_categories_.tolist() == [3]  # 1, 2, 3: categories, not bins
    assert encoding.transform(codes, np.arange(5))[:, 0].tolist() == [0, 1, 0, 2, 3]


def test_an_infinity_in_a_categorical_float_column_makes_the_missing_category():
    # read as a number an infinity is missing at fit time (as in the Preprocessor)
    X = pd.DataFrame({"c": [1.0, 2.0, 2.0, np.inf]})
    pre = Preprocessor(missing="category", categorical=["c"]).fit(X)
    assert pre.categories_ == [["1", "2", "(missing)"]]
    encoding = encode_columns(X, categorical=["c"]).fit(np.arange(4), missing="category")
    assert encoding.n_categories_.tolist() == [3]


def test_a_fold_refuses_one_bin_even_without_a_numeric_column():
    codes = encode_columns(pd.DataFrame({"c": ["a", "b"]}))
    with pytest.raises(ValueError, match="at least 2, got 1"):
        codes.fit(np.arange(2), n_bins=1)


# ---------------------------------------------------------------------------- Preprocessor
def test_id_like_thresholds_at_their_edges():
    from heb.data.preprocess import is_id_like_counts

    # 20 categories at the least, fewer than 5 observed rows per category on average
    assert is_id_like_counts(99, 20)
    assert not is_id_like_counts(100, 20)
    assert not is_id_like_counts(18, 19)


def test_an_id_like_column_without_missing_values_is_not_noted():
    X = pd.DataFrame({"c": [f"u{i:02d}" for i in range(20)] + ["u00"]})
    assert is_id_like(X) == {}  # 20 categories, 21 rows, none missing: nothing imputed
    X.loc[20, "c"] = None
    assert is_id_like(X)["c"]["missing"] == 1


def is_id_like(X):
    return Preprocessor().fit(X).id_like_imputed_


def test_missing_at_predict_time_without_a_training_missing_category_is_unseen():
    pre = Preprocessor(missing="category").fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    assert pre.n_categories_.tolist() == [3]  # one bin per value, no "(missing)"
    assert pre.transform(pd.DataFrame({"x": [np.nan, 3.0]}))[:, 0].tolist() == [3, 2]


def test_integer_categories_read_back_from_text():
    pre = Preprocessor().fit(pd.DataFrame({"zip_id": [10, 12, 10]}))
    assert pre.categories_ == [["10", "12"]]
    assert pre.transform(pd.DataFrame({"zip_id": ["12", "x", "10"]}))[:, 0].tolist() == [1, 2, 0]


def test_missing_dates_are_imputed_not_read_as_the_epoch():
    dates = pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03", None])
    pre = Preprocessor(n_bins=3).fit(pd.DataFrame({"d": dates}))
    assert pre.n_categories_.tolist() == [3]  # three dates, one bin each; no 1970 bin
    assert pre.fit_transform(pd.DataFrame({"d": dates}))[:, 0].tolist() == [0, 1, 2, 1]


# ---------------------------------------------------------------------------- engine path
def test_weighted_medians_by_hand():
    from heb.scale.encoding import weighted_median

    assert weighted_median(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0])) == 2.0
    assert weighted_median(np.array([1.0, 3.0]), np.array([1.0, 1.0])) == 2.0
    assert weighted_median(np.array([1.0, 3.0, 7.0]), np.array([2.0, 1.0, 1.0])) == 2.0


def test_engine_codes_of_a_numeric_feature_with_an_infinity_and_missing_rows():
    # slots: 1.0, 2.0 (D = 2), then missing (NaN), then unreadable as a number (inf)
    values, fitted = scale_fit([1.0, 2.0, np.nan, np.inf], [2, 1, 1, 1])
    assert values.slot.tolist() == [0, 1, 2, 3]
    assert fitted.cuts.tolist() == [2.0]
    assert fitted.train_code.tolist() == [0, 1, 0, 0]  # both imputed with the median bin
    assert fitted.test_code.tolist() == [0, 1, -1, -1]  # absent evidence when scoring
    rows = pd.Series([np.nan, 5.0, 1.5])
    assert fitted.codes(values, rows).tolist() == [-1, 1, 0]
    _, own = scale_fit([1.0, 2.0, np.inf], [2, 1, 1], missing="category")
    assert own.n_categories == 3  # two bins and "(missing)", which the infinity makes


def test_engine_codes_of_a_categorical_number_feature():
    values, fitted = scale_fit([1.0, 2.0, np.inf], [1, 2, 1], kind="categorical")
    assert values.slot.tolist() == [0, 1, 3]  # the infinity: present, unreadable
    assert fitted.n_categories == 2
    assert fitted.train_code.tolist() == [0, 1, 1, 2]  # missing: the mode, 2.0
    assert fitted.test_code.tolist() == [0, 1, -1, 2]
    assert values.slots_of(pd.Series([2.0, 2.5, np.nan, 1.0])).tolist() == [1, 3, 2, 0]
    _, own = scale_fit([1.0, 2.0, np.inf], [1, 2, 1], missing="category", kind="categorical")
    assert own.n_categories == 3
