"""Tests from session 39's mutation pass over the code session 38 added: the delimiter
sniffing and a spreadsheet's first line ``sep=;`` (:mod:`heb.data.delimiters`, the readers
and the large-file layout), the letter-case note, ``sample_weight`` in NaiveBayes and the
Type-II solver's end candidates and fractional groups: each pins behaviour a hand-written
mutant changed unseen."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.concentration import (
    M_MAX,
    M_MIN,
    fit_concentration,
    fit_concentration_rows,
    fit_concentration_segments,
    fractional_groups,
    log_evidence,
)
from heb.data.column_values import format_number, numeric_values
from heb.data.delimiters import file_kind, separator_line, sniff_delimiter
from heb.data.preprocess import Preprocessor
from heb.data.readers import read_table
from heb.data.text_columns import case_note, case_variants
from heb.nb import NaiveBayes


# ------------------------------------------------------------------ delimiters
def test_the_sniffer_takes_only_a_delimiter_the_header_holds():
    """A ';' file of decimal commas and short rows: ',' and ';' are equally consistent
    (3 rows of 4 with one of each), but the header holds no comma."""
    text = "a;b;c\n1,5;2,5\n3,5;4,5\n6,5;7,5\n"
    assert sniff_delimiter(text, "t.csv") == ";"


def test_the_sniffer_prefers_consistency_to_more_fields():
    """',' splits some lines in three (mode 2, half the lines) and ';' every line in two:
    the consistent one wins over the one that makes more fields."""
    text = "a,b,c;d\n1,2,3;4\n5,6;7\n8;9\n"
    assert sniff_delimiter(text, "t.csv") == ";"


def test_the_sniffer_ignores_delimiters_inside_quotes():
    """A header and rows whose every comma is quoted: only ';' separates fields (with the
    quotes kept, ',' ties ';' and the first in order, ',', won)."""
    text = '"name, first";b\n"1,2";3\n"4,5";6\n'
    assert sniff_delimiter(text, "t.csv") == ";"


def test_a_header_of_one_name_is_read_as_comma_separated():
    """No candidate in the header: ',' (a one-column file's value may hold a tab)."""
    assert sniff_delimiter("value\na\tb\nc\td\n", "t.csv") == ","


def test_a_tsv_name_takes_the_tab_even_when_commas_are_more_consistent():
    text = "a,b\tc\n1,2\t3\n4,5\t6\t7\n"
    assert sniff_delimiter(text, "t.tsv") == "\t"
    assert sniff_delimiter(text, "t.csv") == ","


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sep=; \na;b\n", (";", 7, "'sep=;'")),  # spaces after the separator
        ("SEP=|\ra|b\n", ("|", 6, "'SEP=|'")),  # an old Mac line end
        ("sep=\t\r\na\tb\n", ("\t", 7, "'sep=\\t'")),  # the note quoted 'sep=' (rstrip)
        ("sep=,\n", (",", 6, "'sep=,'")),
    ],
)
def test_a_separator_line_gives_its_delimiter_length_and_a_note_quoting_it(text, expected):
    delimiter, length, quoted = expected
    found = separator_line(text)
    assert found is not None
    assert found[:2] == (delimiter, length)
    assert found[2] == f"The first line, {quoted}, names the separator: read with it, left out."
    assert text[length:].startswith("a") or length == len(text)


@pytest.mark.parametrize("text", ["sep=:\na:b\n", "sep=;", " sep=;\n", "a;b\nsep=;\n"])
def test_a_line_that_names_no_separator_first_is_no_separator_line(text):
    assert separator_line(text) is None


def test_file_kinds():
    assert file_kind("\t") == "tab-separated"
    assert file_kind("|") == "pipe-separated"
    assert file_kind(",") == file_kind(";") == "comma-separated"


def test_a_separator_line_wins_over_the_sniffed_delimiter():
    """'sep=|' over a header 'a|b,c': sniffed, ',' and '|' tie and ',' (first) won."""
    data = b"sep=|\na|b,c\n1|2,5\n3|4,5\n"
    frame = read_table(data, "t.csv")
    assert list(frame.columns) == ["a", "b,c"]
    assert frame["b,c"].tolist() == ["2,5", "4,5"]
    assert frame.attrs["heb_notes"][0].startswith("The first line, 'sep=|', names")


def test_a_row_longer_than_the_header_is_named_by_its_line_in_the_file():
    """The 'sep=;' line counts: the first data row is the file's line 3."""
    from heb.data import DataError

    with pytest.raises(DataError, match="^Line 3 of the file has more values than the header's 2"):
        read_table(b"sep=;\na;b\n1;2;3\n3;4\n", "t.csv")


def test_the_large_file_path_takes_the_separator_line_over_sniffing(tmp_path):
    """As the readers: 'sep=|' names the delimiter, the line is skipped, the note given."""
    pytest.importorskip("duckdb")
    from tests.test_scale_csv import _engine, _engine_rows

    (tmp_path / "t.csv").write_bytes(b"sep=|\na|b,c\n1|2,5\n3|4,5\n")
    engine = _engine(tmp_path, "t.csv")
    _, rows = _engine_rows(engine)
    assert list(rows) == ["a", "b,c"]
    assert [str(v) for v in rows["b,c"]] == ["2,5", "4,5"]
    assert engine.notes[0].startswith("The first line, 'sep=|', names")


def test_the_upload_budget_reads_the_header_after_a_separator_line():
    """The cell budget's head width: the 'sep=;' line is no header of 2 fields."""
    from heb.data.readers import _head_width

    assert _head_width(b"sep=;\na;b;c\n1;2;3\n", "t.csv", 100) == (3, 0)


# ------------------------------------------------------------------ letter case
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["Mobile", "desk", "mobile"], ("Mobile", "mobile")),  # as the file lists them
        (["Mobile", "mobile", "Desk", "desk"], ("Mobile", "mobile")),  # the first pair
        (["Stra\u00dfe", "STRASSE", "x"], ("Stra\u00dfe", "STRASSE")),  # casefold, not lower
        (["a", "b", "A B"], None),
    ],
)
def test_case_variants_gives_the_first_pair_as_written(values, expected):
    assert case_variants(pd.Series(values, dtype=object)) == expected


def test_the_case_note_names_how_many_more_columns():
    note = case_note("device", ("Mobile", "mobile"), 2)
    assert note.startswith("Column 'device' (and 2 more columns) has values that differ")
    assert "such as 'Mobile' and 'mobile'" in note


def test_the_case_note_names_the_first_column_and_counts_the_others_on_both_paths(tmp_path):
    data = b"a,b,class\nX,Yes,1\nx,yes,0\nz,no,1\nz,no,0\n"
    note = "Column 'a' (and 1 more column) has values that differ only in letter case, "
    note += "such as 'X' and 'x': each is a category of its own; correct the file if they are one."
    assert note in read_table(data, "t.csv").attrs["heb_notes"]
    pytest.importorskip("duckdb")
    from heb.scale import summarise_source
    from tests.test_scale_csv import _engine

    (tmp_path / "t.csv").write_bytes(data)
    assert note in summarise_source(_engine(tmp_path, "t.csv"), "class").notes


# ------------------------------------------------------------------ sample_weight
def test_a_later_chunk_whose_rows_all_weigh_zero_adds_nothing():
    """Only a fit, or the first partial_fit call, refuses weights that are all 0."""
    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 0, 1])
    model = NaiveBayes("heb-m").partial_fit(X, y, classes=[0, 1], sample_weight=[1, 2, 1, 1])
    before = model.count_table_.counts.copy()
    model.partial_fit(X, y, sample_weight=np.zeros(4))
    assert np.array_equal(model.count_table_.counts, before)
    with pytest.raises(ValueError, match="zero for every row"):
        NaiveBayes("heb-m").partial_fit(X, y, classes=[0, 1], sample_weight=np.zeros(4))


def test_a_row_of_weight_zero_may_hold_a_code_past_the_counted_ones():
    """K_f comes from the rows of positive weight: a weight-0 row's code 5 is not counted
    and widens no table."""
    X, y = np.array([[0], [1], [5], [1]]), np.array([0, 1, 0, 1])
    model = NaiveBayes("laplace").fit(X, y, sample_weight=[1.0, 1.0, 0.0, 2.0])
    assert model.n_categories_.tolist() == [2]
    assert model.count_table_.counts.tolist() == [[1.0, 0.0], [0.0, 3.0]]
    assert model.count_table_.class_counts.tolist() == [1.0, 3.0]
    # a huge code in a weight-0 row is left out before counting, not given a cell
    X[2, 0] = 2**40
    assert NaiveBayes("laplace").fit(X, y, sample_weight=[1.0, 1.0, 0.0, 2.0]).n_categories_[0] == 2


# ------------------------------------------------------------------ the Type-II solver
#: one document of fractional counts whose l has an inner peak (m = 6.78) below its
#: value at m_max (by 0.16): a category of tiny prior mean holds a count under one
FRACTIONAL_TWO_PEAKS = np.array([6.1, 4.2, 0.7]), np.array([0.15, 0.85 - 1e-6, 1e-6])


def test_a_single_document_of_fractional_counts_is_searched_for_every_peak():
    counts, prior = FRACTIONAL_TWO_PEAKS
    assert fit_concentration(counts, prior) == M_MAX
    inner = log_evidence(counts, prior, 6.78)
    assert log_evidence(counts, prior, M_MAX) > inner + 0.15


def test_naive_bayes_searches_a_pair_of_fractional_counts_for_every_peak():
    """The same shape through HEB-M's learned m: class 0's counts (6.1, 4.2, 0.7) under
    the marginal of a heavy class 1, which gives category 2 a prior mean of 7e-7."""
    X, y = np.array([[0], [1], [2], [0], [1]]), np.array([0, 0, 0, 1, 1])
    weights = np.array([6.1, 4.2, 0.7, 0.15e6, 0.85e6])
    model = NaiveBayes("heb-m", n0=0).fit(X, y, sample_weight=weights)
    assert model.concentrations_["m"][0] == M_MAX


def test_an_end_candidate_that_wins_reports_no_iterations():
    """The pooled group whose m_max beats the inner peak Halley found: an end is no
    solve, so the fit says 0 iterations and converged (not Halley's count)."""
    fit = fit_concentration_segments(
        [0, 0, 0], [5.0, 100.0, 100.0], [0.5, 0.5, 0.5], [0, 0], [5.0, 200.0], 1
    )
    assert fit.m[0] == M_MAX and fit.clamped[0] == 1
    assert fit.iterations[0] == 0 and fit.converged[0]


def test_a_fractional_count_under_a_prior_mean_of_one_stays_flat():
    """K = 1: the evidence is constant whatever the count, fractional or not."""
    assert fractional_groups(np.array([0]), np.array([2.5]), np.array([1.0]), 1) is None
    fit = fit_concentration_rows(np.array([[2.5, 0.0]]), np.array([1.0, 0.0]))
    assert fit.flat[0] and fit.m[0] == 1.0


def test_only_the_groups_holding_a_fractional_count_are_fractional():
    """A whole single observation beside a fractional group stays flat (m = 1)."""
    groups = fractional_groups(
        np.array([0, 1, 1]), np.array([1.0, 2.5, 0.5]), np.array([0.5, 0.5, 0.5]), 3
    )
    assert groups.tolist() == [False, True, False]
    fit = fit_concentration_rows(np.array([[1.0, 0.0], [2.5, 0.5]]), np.array([0.5, 0.5]))
    assert fit.flat.tolist() == [True, False] and fit.m[0] == 1.0


def test_a_pair_of_one_whole_row_is_flat_under_n0_zero():
    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 1]]), np.array([0, 0, 0, 1])
    model = NaiveBayes("heb-m", n0=0).fit(X, y)
    table = model.concentrations_
    one_row = np.asarray(table["class"]) == 1
    assert np.all(np.asarray(table["m"])[one_row] == 1.0)
    assert not np.any(np.asarray(table["fallback"]))


def test_the_flat_decision_reads_each_pairs_own_class():
    """Two classes, three features (C != F): class 0 of whole rows, class 1 of two rows
    weighing 0.6 (a total of 1.2, not flat for fractional counts). Each pair's flag is
    its own: class 1's pairs are searched, not read as class 0's."""
    X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0]])
    y = np.array([0, 0, 0, 0, 1, 1])
    weights = np.array([1.0, 1.0, 1.0, 1.0, 0.6, 0.6])
    model = NaiveBayes("heb-u", n0=0).fit(X, y, sample_weight=weights)
    m = np.asarray(model.concentrations_["m"]).reshape(2, 3)
    counts, offsets = model.count_table_.counts, model.count_table_.offsets
    for f in range(3):
        row = counts[1, offsets[f] : offsets[f + 1]]
        prior = np.full(row.size, 1 / row.size)
        grid = np.exp(np.linspace(np.log(M_MIN), np.log(M_MAX), 2001))
        best = log_evidence(row, prior, grid).max()
        assert log_evidence(row, prior, m[1, f]) >= best - 1e-7 * max(1.0, abs(best))
        assert m[1, f] != 1.0


# ------------------------------------------------------------------ column values
def test_a_whole_number_label_is_written_out_below_1e15_only():
    assert format_number(123456789012345.0) == "123456789012345"
    assert format_number(1e15) == "1e+15"
    assert format_number(-2.5e20) == "-2.5e+20"


def test_a_missing_date_is_nan_not_the_epoch():
    dates = pd.Series(pd.to_datetime(["2020-01-02", None, "1970-01-01"]))
    values = numeric_values(dates)
    assert np.isnan(values[1]) and values[2] == 0.0
    assert values[0] > 0  # a time stamp (its unit is pandas' resolution)


def test_input_features_of_two_dimensions_are_refused_in_one_sentence():
    pre = Preprocessor().fit(pd.DataFrame({"a": ["x", "y", "x"], "b": ["1", "2", "3"]}).to_numpy())
    with pytest.raises(ValueError, match="^input_features must name the 2 columns"):
        pre.get_feature_names_out(np.array([["x0", "x1"]]))
