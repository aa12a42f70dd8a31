"""Cells a fitted :class:`~heb.data.preprocess.Preprocessor` cannot read as numbers in rows
it scores.

A numeric feature's cell that is present but not a number (``old`` in an ``age`` column,
``n/a`` spelt another way) falls in no bin: the preprocessor scores it as a missing value,
which is right (nothing is known of it) but was silent, so a typo in a file of new rows
looked like a row with the feature left blank. :func:`unreadable_number_notes` says it,
one sentence a column, for ``heb score`` and the Explain page's loaded model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.data.names import quote

__all__ = ["preprocessor_columns", "unreadable_number_notes"]

#: characters of a cell quoted in a note at most
MAX_EXAMPLE = 40


def preprocessor_columns(preprocessor, rows: pd.DataFrame) -> pd.DataFrame:
    """The columns of ``rows`` a fitted ``preprocessor`` reads, in its order, named as
    text as it names them (a table's other columns, a target, left out)."""
    named = rows.rename(columns=str)
    return named[[str(c) for c in getattr(preprocessor, "feature_names_in_", named.columns)]]


def unreadable_number_notes(
    preprocessor, rows: pd.DataFrame, codes: np.ndarray | None = None
) -> list[str]:
    """One note per numeric feature of ``preprocessor`` (fitted) whose cells in ``rows``
    (a table holding its input columns, by name) are present but fall in none of its bins.

    ``codes`` is ``preprocessor.transform`` of those columns when the caller has it.
    """
    rows = preprocessor_columns(preprocessor, rows)
    if codes is None:
        codes = preprocessor.transform(rows)
    notes = []
    for j, name in enumerate(preprocessor.feature_names_out_):
        if preprocessor.kinds_.get(name) != "numeric":
            continue
        n_bins = len(preprocessor.bin_edges_[name]) - 1
        column = rows[name]
        outside = (codes[:, j] < 0) | (codes[:, j] >= n_bins)  # -1, or the missing code
        unread = column.notna().to_numpy() & outside
        if not unread.any():
            continue
        count = int(unread.sum())
        example = str(column[unread].iloc[0]).strip()
        if len(example) > MAX_EXAMPLE:
            example = example[: MAX_EXAMPLE - 1] + "…"
        cells = f"{count:,} cell{'s' * (count != 1)}"
        notes.append(
            f"Column {quote(name)} holds {cells} the model cannot read as a number, such as "
            f"{quote(example)}: scored as a missing value. Correct the file if "
            f"{'they are typos' if count > 1 else 'it is a typo'}."
        )
    return notes
