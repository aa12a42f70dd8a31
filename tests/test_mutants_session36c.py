"""Tests that kill the mutants a mutation pass left alive in three modules no earlier pass
targeted: ``heb/scale/csv_scan.py`` (a large CSV typed in DuckDB as the in-memory readers
type it), ``heb/data/code_signal.py`` (whole-number columns whose bins hide what their
values tell) and ``heb/evaluate/references.py`` (the reference models' codes and folds).

Each docstring names the mutant it kills. The CSV cases are checked against
:func:`heb.data.readers.read_table` (pandas' parser) cell by cell, as
``tests/test_scale_csv.py`` does; the other figures are computed by hand or with scipy /
scikit-learn directly. Two of ``_blank``'s mutants showed a real bug, fixed with the
cases named so: a row whose first cell is spaces and whose second is empty was dropped
as a line of spaces, and a one-column file's quoted ``""`` line too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB

from heb.data import DataError, Preprocessor, code_signal
from heb.data.readers import read_table
from heb.evaluate.references import HGB_OTHER, ReferenceModel, reference_codes
from tests.test_binned_signal import shops
from tests.test_scale_csv import _assert_same, _engine, _one_sentence

# ------------------------------------------------------------------------- csv_scan.py
CASES = {
    # _read_csv's nulls ``len(types) > 1`` as ``> 0`` (an empty line of a one-column file
    # read as a missing cell) and _blank's ``[ \t]*`` as ``[ \t]+`` (an empty line kept as
    # a row): pandas skips both lines, so the column is ['a', 'b', 'c']
    "one_column_blank_lines": b"x\na\n\nb\n  \nc\n",
    # _PLAIN_FLOAT's exponent of at most 2 digits as 3: DuckDB read 1e400 / 1e-400 itself
    # where pandas reads inf and 0.0
    "huge_exponents": b"x,y\n1e400,a\n2,b\n1e-400,c\n",
    # _NUMBER without ``\.[0-9]+``: ' .5' (not plain, so typed in SQL) became text
    "point_five_after_a_space": b"x,y\n .5,a\n2,b\n",
    # the ord list of a number's first character without 73 ('I'): Inf / INFINITY, which
    # pandas reads as infinities, were taken for text
    "capital_infinities": b"x,y\nInf,a\n2,b\nINFINITY,c\n",
    # _long_integers ``lo < -(2**63)`` as ``<=``: int64's least value became text
    "int64_least": b"x,y\n-9223372036854775808,a\n5,b\n",
    # ``hi < 2**63`` as ``<=``: 2**63 (uint64 in pandas) was cast to BIGINT and refused
    "two_to_the_63": b"x,y\n9223372036854775808,a\n2,b\n",
    # ``"UBIGINT" if lo >= 0 and not missing``, the ``not missing`` dropped: uint64 beside
    # a missing cell is text to pandas, not a number
    "uint64_beside_missing_is_text": b"x,y\n18446744073709551615,a\n,b\n",
    # a real bug the pass found: _blank took any row whose first cell is spaces and whose
    # second is empty or NA for a line of spaces and dropped it, the third cell (here the
    # classes q and s) with it; a line of spaces is still skipped
    "spaces_then_an_empty_cell_is_a_row": b"x,y,z\na,1,p\n  ,,q\n ,NA,s\n   \nb,2,r\n",
    # and a one-column file's quoted "" line was dropped as a blank line: pandas reads it
    # as a missing cell (the number column stays numbers)
    "one_column_quoted_empty_is_a_missing_cell": b'x\n1\n\n2\n""\n3\n',
    "one_column_quoted_empty_text": b'x\r\na\r\n""\r\n  \r\nb\r\n',
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_csv_the_pass_wrote_reads_as_the_in_memory_reader_reads_it(tmp_path, case):
    _assert_same(tmp_path, CASES[case])


def test_an_integer_of_exactly_2_53_beside_a_missing_cell_stays_an_integer(tmp_path):
    """Kills ``max(-lo, hi) < _BIG`` as ``<=``: pandas keeps a column that reaches 2**53
    (exactly) with a missing cell as exact Int64; the mutant made it float, which the
    cell comparison cannot see (2**53 is a float exactly)."""
    data = b"x,y\n9007199254740992,a\n,b\n"
    assert str(read_table(data, "t.csv")["x"].dtype) == "Int64"
    (tmp_path / "t.csv").write_bytes(data)
    assert dict(_engine(tmp_path, "t.csv").columns())["x"] == "integer"


def test_a_utf32_file_is_refused_in_one_sentence(tmp_path):
    """Kills the UTF-32 little-endian BOM dropped from csv_layout's refusal: its BOM begins
    with UTF-16's, so the file was read as UTF-16 (its NUL halves read as text)."""
    (tmp_path / "t.csv").write_bytes(_utf32_le("x,y\na,1\nb,2\n"))
    with pytest.raises(DataError, match="UTF-32") as info:
        _engine(tmp_path, "t.csv")
    _one_sentence(str(info.value))


def _utf32_le(text: str) -> bytes:
    """``text`` as UTF-32 little-endian with its BOM (whatever this machine's byte order)."""
    return b"\xff\xfe\x00\x00" + text.encode("utf-32-le")


# ---------------------------------------------------------------------- code_signal.py
def test_the_margin_is_the_chi_square_tails_excess_over_its_mean():
    """Kills ``(chi2.isf(p, df) - df)`` as ``chi2.isf(p, df)``: 13 values, 2 classes, 2,000
    rows: df = 12, chi2.isf(1e-5, 12) = 45.08 (scipy), so the margin is
    (45.08 - 12) / 4,000 = 0.00827, above 4 sd = 4 sqrt(24) / 4,000 = 0.0049."""
    tail = stats.chi2.isf(1e-5, 12)
    assert tail == pytest.approx(45.076, abs=1e-3)
    assert code_signal.null_mi_margin(13, 2, 2_000) == pytest.approx((tail - 12) / 4_000, rel=1e-12)
    assert code_signal.null_mi_margin(13, 2, 2_000) == pytest.approx(0.00827, abs=1e-5)
    assert 4 * np.sqrt(24) / 4_000 < (tail - 12) / 4_000


def test_counted_positions_is_none_for_a_table_of_exactly_the_sample_size():
    """Kills ``n_rows <= sample_rows`` as ``<``: 'None for all' (the mutant drew every row)."""
    assert code_signal.counted_positions(5, 5) is None
    picked = code_signal.counted_positions(6, 5)
    assert picked.size == 5 and np.all(np.diff(picked) > 0) and picked.max() <= 5


def test_a_column_with_no_more_values_than_bins_is_not_weighed_nor_unweighed(monkeypatch):
    """Kills ``nunique > n_categories`` as ``>=``: a 7-valued column in 7 bins (its bins are
    its values) is skipped, so with no budget it is not listed as unweighed."""
    frame = shops().assign(product=lambda f: f["product"] % 7)
    X = frame.drop(columns="label")
    pre = Preprocessor().fit(X)
    assert code_signal.value_bins(pre)["product"] == 7 == X["product"].nunique()
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", 0)
    check = code_signal.binned_signal_columns(X, frame["label"], pre)
    assert check.found == {} and check.unweighed == ["spend", "refunds", "noise"]


def test_a_value_the_bins_cannot_code_is_left_out_of_both_counts():
    """Kills ``observed &= binned >= 0`` dropped: every fifth product code infinite (600 of
    3,000 rows, which the bins code -1) leaves 2,400 rows counted, not 3,000."""
    frame = shops()
    X = frame.drop(columns="label").astype({"product": float})
    X.loc[::5, "product"] = np.inf
    pre = Preprocessor().fit(X)
    found = code_signal.binned_signal_columns(X, frame["label"], pre, ["product"]).found
    assert found["product"].rows == 2_400


def test_only_columns_binned_as_numbers_are_whole_number_bins():
    """Kills whole_number_bins' ``kinds[name] == "numeric"`` dropped: a whole-number column
    declared categorical is not binned, so not weighed."""
    X = pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6], "c": [1.5, 2.0, 3.0]})
    kinds = {"a": "categorical", "b": "numeric", "c": "numeric"}
    assert code_signal.whole_number_bins(X, kinds, ["a", "b", "c"]) == ["b"]


# ----------------------------------------------------------------------- references.py
def test_hist_gradient_boostings_codes_by_hand():
    """Kills ``codes >= n_categories`` as ``>`` (a test code equal to K_f, unseen in
    training, folded into 'other' where K_f > 254 instead of missing) and HGB_OTHER 254 as
    255 (max_bins = 255 allows codes 0..254)."""
    assert HGB_OTHER == 254
    codes = np.array([[300, 253], [299, 254], [-1, 255], [5, 399]])
    got = reference_codes("HistGradientBoosting", codes, np.array([300, 400]))
    np.testing.assert_array_equal(got, [[-1, 253], [254, 254], [-1, 254], [5, 254]])


def test_target_encoder_folds_are_stratified_at_exactly_five_rows_of_the_rarest_class():
    """Kills ``rarest >= ENCODER_FOLDS`` as ``>``: five rows of each class suffice for
    stratified 5-fold."""
    X = np.array([[0], [1]] * 5)
    model = ReferenceModel("TargetEncoder+LR").fit(X, np.array([0, 1] * 5))
    folds = model.estimator_.named_steps["targetencoder"].cv
    assert isinstance(folds, StratifiedKFold) and folds.n_splits == 5


def test_a_class_absent_from_training_between_two_present_gets_zero():
    """Kills predict_proba's ``searchsorted(classes_, estimator_.classes_)`` as the first
    columns: with classes 0, 1, 2 and training rows of 0 and 2 only, class 1 gets 0 and
    classes 0 and 2 scikit-learn's CategoricalNB probabilities (by hand)."""
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [2, 1]])
    y = np.array([0, 2, 2, 0, 2])
    proba = ReferenceModel("CategoricalNB").fit(X, y, classes=np.array([0, 1, 2])).predict_proba(X)
    k = X.max(axis=0) + 1
    expected = CategoricalNB(alpha=1.0, min_categories=k + 1).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(proba[:, 1], 0.0)
    np.testing.assert_allclose(proba[:, [0, 2]], expected, atol=1e-12)
