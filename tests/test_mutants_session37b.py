"""Mutation pass over session 37's trial U / V changes: each test kills a mutant that the
session's own tests let live, with values worked out by hand.

- text categories found by value (heb.data.category_lookup, its call in preprocess);
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.data.preprocess import Preprocessor

BIG = 2**53  # float64 holds every whole number up to here, not 2**53 + 1


# ------------------------------------------------------------------ categories by value
def test_text_given_as_text_is_matched_exactly_not_by_value():
    """Only numbers given to a text column are looked up by value: the text "01" or "1.0"
    is not the category "1" (ZIP codes "02134" and "2134" are two places)."""
    pre = Preprocessor().fit(pd.DataFrame({"zip": ["1", "2", "x"]}))
    given = pd.DataFrame({"zip": pd.Series(["01", "1.0", "1", "2"], dtype=object)})
    assert pre.transform(given)[:, 0].tolist() == [3, 3, 0, 1]  # 3 = unseen (K = 3)


def test_an_integer_id_beyond_float_precision_is_not_found_by_value():
    """Integer IDs are compared exactly: 2**53 is not the learned 2**53 + 1, though both
    are the same float64."""
    pre = Preprocessor().fit(pd.DataFrame({"id": np.array([BIG + 1, 5, 6], dtype=np.int64)}))
    assert pre.categories_[0] == ["5", "6", str(BIG + 1)]
    given = pd.DataFrame({"id": np.array([BIG, BIG + 1, 5], dtype=np.int64)})
    assert pre.transform(given)[:, 0].tolist() == [3, 2, 0]


def test_a_number_beyond_float_precision_is_not_another_text_id():
    """A text ID "9007199254740993" (2**53 + 1) given the number 2**53 is unseen: read as
    float64 both are 2**53, and the lookup by value took one ID for the other."""
    pre = Preprocessor().fit(pd.DataFrame({"c": [str(BIG + 1), "x", "3"]}))
    assert pre.categories_[0] == ["3", str(BIG + 1), "x"]
    given = pd.DataFrame({"c": np.array([BIG, BIG + 1, 3], dtype=np.int64)})
    assert pre.transform(given)[:, 0].tolist() == [3, 1, 0]  # unseen, exact, by value
    floats = pd.DataFrame({"c": [float(BIG), 3.0, np.nan]})
    assert pre.transform(floats)[:, 0].tolist() == [3, 0, -1]
