"""Categories learned as text, found again when a later table gives their values as numbers.

A column learned as text ("1", "2", "x") can reach :class:`~heb.data.preprocess.Preprocessor`'s
transform as numbers: a test file without the "x" rows and with a missing cell, which pandas
reads as float64, or a row built from JSON. Written as text, 1.0 is "1.0", which no label
is, so every such row was unseen and scored as the prior.

Only numbers of magnitude under 2**53 are found by value: beyond it float64 reads two whole
numbers as one (an ID "9007199254740993" and the number 9007199254740992), and an ID must
not be taken for another.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["text_codes_of_numbers"]

#: float64 holds every whole number below this exactly; from it on, two read as one
EXACT_LIMIT = 2.0**53


def text_codes_of_numbers(index: pd.Index, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``codes`` with each number that matched no text label (code ``-1``) found by value
    among the labels that read as one number each.

    Parameters
    ----------
    index : pandas.Index
        The text labels learned, in code order.
    values : ndarray of float
        The column's values as numbers (NaN where missing).
    codes : ndarray of int
        Each value's code by exact text match, ``-1`` where none.

    Returns
    -------
    ndarray of int
        ``codes``, a ``-1`` replaced by the code of the one label that reads as its number
        ("1" for 1.0, "1.50" for 1.5); a number two labels read as ("7" and "07"), or of
        magnitude 2**53 or more, stays -1.
    """
    labels = pd.to_numeric(pd.Series(index.to_numpy(dtype=object)), errors="coerce")
    labels = labels.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = np.abs(labels) < EXACT_LIMIT  # NaN and inf are not; nor a rounded ID
    numbers, counts = np.unique(labels[finite], return_counts=True)
    keep = finite & np.isin(labels, numbers[counts == 1])  # numbers one label reads as
    if not keep.any():
        return codes
    by_value = pd.Index(labels[keep]).get_indexer(values)
    return np.where((codes < 0) & (by_value >= 0), np.flatnonzero(keep)[by_value], codes)
