"""An integer column's histogram slots from machine integers equal those of exact Python ints.

:meth:`heb.scale.encoding.FeatureValues.from_histogram` codes an integer ID column on int64
(or uint64) arrays; the general path processes the values as Python ints
(:func:`heb.data.preprocess.integer_values`). The two must give the same keys, in the same
order and dtype, and the same slot for every histogram row: missing values, IDs beyond
2**53, unsigned IDs beyond 2**63 included.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from heb.scale.encoding import FeatureValues, _integer_slots, _machine_integers

_SIGNED = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(2**53 - 3, 2**53 + 3),  # where float64 stops telling IDs apart
    st.integers(-5, 5),
)
_UNSIGNED = st.one_of(
    st.integers(0, 2**64 - 1), st.integers(2**63 - 2, 2**63 + 2), st.integers(0, 5)
)


def _by_python_ints(raw: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """The general path: exact Python ints, missing as None."""
    processed = raw.to_numpy(dtype=object, na_value=None)
    missing = np.asarray(pd.isna(processed))
    keys = _machine_integers(pd.Index(pd.unique(processed[~missing])))
    slot = keys.get_indexer(processed)
    return keys, np.where(missing, len(keys), np.where(slot < 0, len(keys) + 1, slot))


def _assert_same(raw: pd.Series) -> None:
    keys, slot = _integer_slots(raw)
    expected_keys, expected_slot = _by_python_ints(raw)
    assert keys.dtype == expected_keys.dtype
    assert keys.tolist() == expected_keys.tolist()
    assert np.array_equal(slot, expected_slot)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), _SIGNED), max_size=40))
def test_signed_ids_get_the_slots_of_exact_python_ints(values):
    _assert_same(pd.Series(pd.array(values, dtype="Int64")))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), _UNSIGNED), max_size=40))
def test_unsigned_ids_get_the_slots_of_exact_python_ints(values):
    _assert_same(pd.Series(pd.array(values, dtype="UInt64")))


def test_a_numpy_integer_column_and_a_small_integer_type_take_the_same_path():
    _assert_same(pd.Series(np.array([7, 3, 7, 2**62, -1], dtype=np.int64)))
    _assert_same(pd.Series(pd.array([5, None, 5, 1], dtype="Int8")))


def test_from_histogram_codes_an_id_column_as_before():
    raw = pd.Series(pd.array([2**53 + 1, None, 2**53, 2**53 + 1, 9], dtype="Int64"))
    fold = np.array([0, 1, 0, 1, 2])
    y = np.array([0, 0, 1, 1, 0])
    n = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
    values = FeatureValues.from_histogram("user_id", "categorical", True, raw, fold, y, n, True)
    assert values.keys.dtype == np.int64
    assert values.keys.tolist() == [2**53 + 1, 2**53, 9]  # distinct beyond 2**53, in order
    assert values.slot.tolist() == [0, 3, 1, 0, 2]  # the missing row takes slot D = 3
    assert values.counts(2).tolist() == [[3.0, 0.0, 4.0, 1.0, 0.0], [5.0, 2.0, 0.0, 0.0, 0.0]]
