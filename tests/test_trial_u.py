"""Trial U: a practitioner using the estimators inside scikit-learn machinery (Pipeline,
GridSearchCV, cross_val_predict, calibration, ensembles) on pandas frames; each finding
pinned."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from heb import AODE, TAN, NaiveBayes
from heb.data import make_model
from heb.data.preprocess import Preprocessor


def test_numbers_given_to_a_column_learned_as_text_are_its_categories():
    """A column learned as text ("1", "2", "x") and given as floats at predict time (a test
    file without the "x" rows and with a missing cell, which pandas reads as float64; a
    row built from JSON) wrote 1.0 as "1.0": every row was unseen, scored as the prior."""
    rng = np.random.default_rng(0)
    grade = rng.choice(["1", "2", "3", "x"], 600)
    y = np.where(np.isin(grade, ["1", "x"]), "a", "b")
    pipe = make_model("laplace").fit(pd.DataFrame({"grade": grade}), y)
    as_text = pipe.predict_proba(pd.DataFrame({"grade": ["1", "2", "3"]}))
    as_floats = pipe.predict_proba(pd.DataFrame({"grade": [1.0, 2.0, 3.0]}))
    np.testing.assert_array_equal(as_floats, as_text)
    assert as_floats[0, 0] > 0.99 and as_floats[1, 0] < 0.01
    pre = pipe[0]
    codes = pre.transform(pd.DataFrame({"grade": pd.array([2, None], dtype="Int64")}))[:, 0]
    assert codes.tolist() == [1, -1]  # nullable integers too; missing stays missing


def test_a_number_that_two_text_labels_read_as_stays_unseen():
    """'7' and '07' both read as 7: 7.0 is neither, so it is unseen (code K); an exact
    text match and a label written '1.50' are found."""
    pre = Preprocessor().fit(pd.DataFrame({"c": ["07", "7", "1.50", "x", "2"]}))
    assert pre.categories_[0] == ["07", "1.50", "2", "7", "x"]
    codes = pre.transform(pd.DataFrame({"c": [7.0, 1.5, 2.0, np.nan, 3.0]}))[:, 0]
    assert codes.tolist() == [5, 1, 2, -1, 5]
    assert pre.transform(pd.DataFrame({"c": [7, 2]}))[:, 0].tolist() == [3, 2]  # as text
    text_only = Preprocessor().fit(pd.DataFrame({"c": ["a", "b"]}))
    assert text_only.transform(pd.DataFrame({"c": [1.0, 2.5]}))[:, 0].tolist() == [2, 2]


@pytest.mark.parametrize("model", [NaiveBayes(), AODE(), TAN()])
def test_class_labels_of_mixed_types_are_one_sentence(model):
    """'1' and 1 in one y (two files concatenated) failed deep in numpy's sort with
    "TypeError: '<' not supported between instances of 'int' and 'str'"."""
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    y = np.array(["1", 1, "1", 1], dtype=object)
    with pytest.raises(ValueError, match=r"^y mixes class labels of different types \(int, str\)"):
        clone(model).fit(X, y)
    with pytest.raises(ValueError, match=r"^classes mixes class labels of different types"):
        clone(model).partial_fit(X, y.astype(str), classes=np.array(["1", 1], dtype=object))
    with pytest.raises(ValueError, match=r"^y mixes class labels of different types"):
        clone(model).partial_fit(X, y, classes=["1", "2"])
    fitted = clone(model).fit(X, y.astype(str))  # the advice works
    assert fitted.classes_.tolist() == ["1"]


def test_a_numeric_column_whose_bins_tie_into_one_is_warned_about():
    """adult's capital-gain (0 in 92 % of rows, 123 values) became one bin, a constant the
    model cannot use, without a word (sklearn's KBinsDiscretizer warns of removed bins)."""
    rng = np.random.default_rng(0)
    gain = np.where(rng.random(1000) < 0.92, 0, rng.integers(100, 10_000, 1000))
    frame = pd.DataFrame({"gain": gain, "age": rng.integers(18, 90, 1000), "flag": gain > 0})
    with pytest.warns(UserWarning) as caught:
        pre = Preprocessor().fit(frame)
    assert [str(w.message) for w in caught] == [
        f"Column 'gain' holds {np.unique(gain).size:,} different numbers, but "
        f"{np.mean(gain == 0):.0%} of its training rows hold 0, so its 10 quantile bins tie "
        "into one and it tells the model nothing; pass categorical=['gain'] to count its "
        "values one by one."
    ]
    assert pre.n_categories_.tolist()[0] == 1 and pre.n_categories_[1] == 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the advice, a 0/1 flag, a constant: no warning
        fitted = Preprocessor(categorical=["gain"]).fit(frame)
        Preprocessor().fit(pd.DataFrame({"flag": (gain > 0).astype(int), "one": 5}))
    assert fitted.n_categories_[0] == np.unique(gain).size
