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


def test_an_infinity_in_a_categorical_float_column_makes_no_missing_category():
    """An infinity is coded unseen (absent evidence) at every step: a missing category
    made for it held no training row (SPEC 1: every category has a training count)."""
    X = pd.DataFrame({"c": [1.0, 2.0, 2.0, np.inf]})
    pre = Preprocessor(missing="category", categorical=["c"]).fit(X)
    assert pre.categories_ == [["1", "2"]]
    assert pre.transform(X).ravel().tolist() == [0, 1, 1, 2]  # the infinity: unseen
    encoding = encode_columns(X, categorical=["c"]).fit(np.arange(4), missing="category")
    assert encoding.n_categories_.tolist() == [2]
    with_nan = pd.DataFrame({"c": [1.0, 2.0, np.nan, np.inf]})
    pre = Preprocessor(missing="category", categorical=["c"]).fit(with_nan)
    assert pre.categories_ == [["1", "2", "(missing)"]]
    assert pre.transform(with_nan).ravel().tolist() == [0, 1, 2, 3]
    encoding = encode_columns(with_nan, categorical=["c"]).fit(np.arange(4), missing="category")
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
    # an infinity makes no missing category (unseen, it would hold no training row) ...
    _, own = scale_fit([1.0, 2.0, np.inf], [1, 2, 1], missing="category", kind="categorical")
    assert own.n_categories == 2
    # ... a missing value does
    _, own = scale_fit([1.0, 2.0, np.nan], [1, 2, 1], missing="category", kind="categorical")
    assert own.n_categories == 3


# ---------------------------------------------------------------------------- reading files
def test_a_utf32_file_is_not_read_as_utf16():
    import codecs

    from heb.data.readers import decode_text

    data = codecs.BOM_UTF32_LE + "a,b\n1,2\n".encode("utf-32-le")
    assert decode_text(data, []) == "a,b\n1,2\n"


def test_binary_is_more_than_five_percent_control_bytes_but_not_form_feeds():
    from heb.data.readers import looks_binary

    assert looks_binary(b"x" * 90 + b"\x01" * 10)
    assert not looks_binary(b"x" * 96 + b"\x01" * 4)
    assert not looks_binary(b"\x0c" * 10 + b"x" * 90)


def test_delimiter_ties_go_to_the_comma_unless_the_file_is_a_tsv():
    from heb.data.delimiters import sniff_delimiter as _sniff_delimiter

    text = "a\tb,c\n1\t2,3\n"
    assert _sniff_delimiter(text, "x.csv") == ","
    assert _sniff_delimiter(text, "x.tsv") == "\t"


def test_short_rows_are_counted_and_blank_lines_are_not():
    from heb.data.readers import _short_rows

    assert _short_rows("a,b,c\n1,2,3\n4,5\n\n6,7,8\n", ",", 3) == 1


def test_line_numbers_and_line_ends_in_messages():
    from heb.data.readers import _first_data_line, _line_count, _parser_error

    assert _first_data_line("\na,b\n\n1,2\n") == 4
    assert _line_count("a\r\nb\r\nc\rd\n") == 4
    message = str(_parser_error(Exception("Expected 3 fields in line 4, saw 5")))
    assert message.startswith("Line 4 of the file has 5 values but the header has 3;")


def test_a_semicolon_file_reads_decimal_commas():
    from heb.data.readers import read_table

    frame = read_table(b"a;b\n1,5;x\n2,25;y\n", "f.csv")
    assert frame.iloc[:, 0].tolist() == [1.5, 2.25]


# ---------------------------------------------------------------------------- dataset checks
def test_names_and_labels_by_hand():
    from heb.data.dataset import is_id_like_name, labels_as_text, unique_names
    from heb.data.names import format_size

    assert is_id_like_name("Impression_Count") and not is_id_like_name("price")
    assert unique_names(["a", "a (2)", "a (3)", "a"], []) == ["a", "a (2)", "a (3)", "a (4)"]
    assert labels_as_text(np.array([1.0, "1.00", "-2.000", "1.5"], dtype=object)).tolist() == [
        "1",
        "1",
        "-2",
        "1.5",
    ]
    assert format_size(1023) == "1023 bytes" and format_size(1024) == "1 KB"


def test_class_count_limits_at_their_edges():
    from heb.data.dataset import DataError, check_class_count

    check_class_count("t", 20, True)  # 20 decimal values: still classes
    check_class_count("t", 100, False)  # 100 classes: the most allowed
    with pytest.raises(DataError, match="measurement"):
        check_class_count("t", 21, True)
    with pytest.raises(DataError, match="more than the 100 classes"):
        check_class_count("t", 101, False)


def finalized(frame, **kwargs):
    from heb.data.dataset import finalize

    return finalize(frame, None, name="t", source="t", **kwargs)


def test_a_decimal_target_keeps_its_decimals():
    ds = finalized(pd.DataFrame({"x": [1, 2, 3], "y": [1.0, 2.5, 1.0]}))
    assert ds.y.tolist() == [1.0, 2.5, 1.0]
    assert ds.n_classes == 2


def test_a_single_row_is_refused_and_two_are_enough():
    from heb.data.dataset import DataError

    with pytest.raises(DataError, match="single data row"):
        finalized(pd.DataFrame({"x": [1], "y": [0]}))
    assert finalized(pd.DataFrame({"x": [1, 2], "y": [0, 1]})).X.shape == (2, 1)


def test_column_notes_tell_empty_constant_and_varying_columns_apart():
    frame = pd.DataFrame({"e": [np.nan] * 3, "v": [1.0, 2.0, 1.0], "c": [5, 5, 5], "y": [0, 1, 0]})
    assert finalized(frame).notes == [
        "Column 'e' is empty in every row and will be left out.",
        "Column 'c' has a single value, so it cannot help the prediction (kept).",
    ]


def test_one_value_per_row_is_noted_from_ten_rows_on():
    from heb.data.dataset import one_value_per_row

    X = pd.DataFrame({"c": [f"r{i}" for i in range(9)]})
    assert one_value_per_row(X, ["c"]) == []
    X = pd.DataFrame({"c": [f"r{i}" for i in range(10)]})
    assert one_value_per_row(X, ["c"]) == ["c"]


# ---------------------------------------------------------------------------- budgets
def test_a_crlf_split_between_two_chunks_is_one_line_end():
    from heb.data.budget import LineBudget

    budget = LineBudget(lambda head: 0)
    budget.feed(b"a\r")
    budget.feed(b"\nb\r\n")
    assert budget.line_ends == 2


def test_gzip_of_exactly_the_limit_and_with_zero_padding_unpacks():
    import gzip

    from heb.data.budget import gunzip

    packed = gzip.compress(b"x" * 10)
    assert gunzip(packed, 10) == b"x" * 10
    assert gunzip(packed + b"\x00" * 8 + packed, 20) == b"x" * 20


def test_a_local_file_of_exactly_the_limit_is_read(tmp_path):
    from heb.data.budget import read_local_file

    path = tmp_path / "f.csv"
    path.write_bytes(b"a,b\n1,2\n")
    assert read_local_file(path, 8) == b"a,b\n1,2\n"


def test_a_quantile_halfway_between_two_floats_is_numpys_to_the_bit():
    # numpy takes b - (b - a) / 2 at gamma = 0.5: 0.3 here, where a + (b - a) / 2 is
    # 0.30000000000000004; the engine-side and order-statistic edges must match it
    from heb.data.binning import quantile_edges, ranked_quantile_edges
    from heb.scale.encoding import weighted_quantile

    floats = np.array([0.0, 0.1, 0.5, 20.0])
    assert quantile_edges(floats, 2).tolist() == [0.3]
    assert ranked_quantile_edges(lambda ranks: floats[ranks], 4, 2).tolist() == [0.3]
    middle = weighted_quantile(floats, np.ones(4), np.array([0.5]))
    assert middle.tolist() == [0.3]


def test_bin_labels_close_the_left_of_every_bin_but_the_first():
    pre = Preprocessor(n_bins=2).fit(pd.DataFrame({"x": [1500.0, 2500.0, 3500.0, 4500.0]}))
    assert pre.categories_ == [["(-inf, 3000)", "[3000, inf)"]]


def test_an_all_missing_float_column_is_not_integer_like():
    from heb.data.dataset import is_integer_like

    assert not is_integer_like(pd.Series([np.nan, np.nan]))
    assert is_integer_like(pd.Series([1.0, np.nan]))


def test_a_column_named_to_drop_that_is_the_target_is_kept():
    ds = finalized(pd.DataFrame({"x": [1, 2], "y": [0, 1]}), drop=["y"])
    assert ds.target == "y" and list(ds.X.columns) == ["x"]


def test_system_files_are_refused_by_path():
    from heb.data.budget import read_local_file
    from heb.data.dataset import DataError

    with pytest.raises(DataError, match="system file"):
        read_local_file("/proc/self/status")


def test_a_file_named_arff_is_arff_whatever_its_first_line():
    from heb.data.readers import _is_arff

    assert _is_arff("a,b\n", "f.arff")
    assert _is_arff("% c\n@relation r\n", "f.txt")
    assert not _is_arff("a,b\n1,2\n", "f.csv")


def test_bin_edges_run_from_the_training_min_through_the_cuts_to_the_max():
    pre = Preprocessor(n_bins=2).fit(pd.DataFrame({"x": [1500.0, 2500.0, 3500.0, 4500.0]}))
    assert pre.bin_edges_["x"].tolist() == [1500.0, 3000.0, 4500.0]


def test_a_code_named_column_warns_from_101_whole_numbers_on():
    import warnings

    for n, warned in ((100, False), (101, True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Preprocessor().fit(pd.DataFrame({"zip": np.arange(n, dtype=float)}))
        assert any("whole numbers" in str(w.message) for w in caught) is warned


def test_a_misspelt_categorical_name_warns():
    with pytest.warns(UserWarning, match="not in the table: 'nope'"):
        Preprocessor(categorical=["nope"]).fit(pd.DataFrame({"x": [1.0, 2.0]}))


def test_encoding_refuses_two_columns_of_one_name():
    from heb.data.dataset import DataError

    with pytest.raises(DataError, match="same name"):
        encode_columns(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_the_cell_budget_allows_exactly_its_cells():
    from heb.data.budget import HEAD_BYTES, LineBudget
    from heb.data.dataset import TooManyCells

    chunk = b"1,2\n" * (HEAD_BYTES // 4)  # 65,536 line ends, 2 columns
    LineBudget(lambda head: (2, 0), max_cells=2 * 65_536).feed(chunk)
    with pytest.raises(TooManyCells):
        LineBudget(lambda head: (2, 0), max_cells=2 * 65_536 - 1).feed(chunk)


def test_fold_missing_category_only_when_training_has_missing_and_kept_when_scoring():
    codes = encode_columns(pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan, np.nan]}))
    assert codes.fit(np.arange(3), missing="category").n_categories_.tolist() == [3]
    encoding = codes.fit(np.arange(4), missing="category")
    assert encoding.n_categories_.tolist() == [4]  # three bins and "(missing)"
    assert encoding.transform(codes, np.array([4]))[:, 0].tolist() == [3]


def test_large_whole_numbers_are_written_out_and_sku_names_a_code():
    import warnings

    from heb.data.preprocess import _format_number

    assert _format_number(1234567.0) == "1234567"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Preprocessor().fit(pd.DataFrame({"sku": np.arange(101, dtype=float)}))
    assert any("whole numbers" in str(w.message) for w in caught)
