"""Cells of rows a fitted :class:`~heb.data.preprocess.Preprocessor` scores that add no
evidence: numbers it cannot read, categories no training row had.

A numeric feature's cell that is present but not a number (``old`` in an ``age`` column,
``n/a`` spelt another way) falls in no bin: the preprocessor scores it as a missing value,
which is right (nothing is known of it) but was silent, so a typo in a file of new rows
looked like a row with the feature left blank. :func:`unreadable_number_notes` says it,
one sentence a column, for ``heb score`` and the Explain page's loaded model.

A categorical feature's value no training row had (a typo of a known category, a new
shop, a zoned time stamp where training had none) gets the feature's "unseen" code: absent
evidence, so the row is scored on its other columns. That is right too, and was as silent;
:func:`unseen_category_notes` says it, with the known category a text value is closest to
(a typo's likely meaning), and :func:`scoring_notes` gives both kinds.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from heb.data.names import quote
from heb.data.preprocess import MISSING_LABEL

__all__ = [
    "preprocessor_columns",
    "closest_known",
    "scoring_notes",
    "unreadable_number_notes",
    "unseen_category_notes",
]

#: characters of a cell quoted in a note at most
MAX_EXAMPLE = 40
#: categories of a feature searched for the one an unseen value is closest to, at most
#: (beyond, an ID-like column: a near ID is no likely meaning)
MAX_SUGGESTED_FROM = 5_000
#: how alike (difflib's ratio, case ignored) a known category must be to be named
SUGGEST_CUTOFF = 0.8


def preprocessor_columns(preprocessor, rows: pd.DataFrame) -> pd.DataFrame:
    """The columns of ``rows`` a fitted ``preprocessor`` reads, in its order, named as
    text as it names them (a table's other columns, a target, left out); ``rows`` itself
    when it is that already (the notes select what their caller selected: no copies). A
    column it dropped as empty in training is read where ``rows`` has it and needed nowhere
    (``heb score`` refused rows without it)."""
    wanted = [str(c) for c in getattr(preprocessor, "feature_names_in_", rows.columns)]
    dropped = {str(c) for c in getattr(preprocessor, "dropped_", ())}
    if dropped:
        present = {str(c) for c in rows.columns}
        wanted = [c for c in wanted if c in present or c not in dropped]
    if list(rows.columns) == wanted:
        return rows
    return rows.rename(columns=str)[wanted]


def unreadable_number_notes(
    preprocessor, rows: pd.DataFrame, codes: np.ndarray | None = None
) -> list[str]:
    """One note per numeric feature of ``preprocessor`` (fitted) whose cells in ``rows``
    (a table holding its input columns, by name) are present but fall in none of its bins.

    ``codes`` is ``preprocessor.transform`` of those columns when the caller has it.
    """
    notes = []
    for name, column, code in _features(preprocessor, rows, codes, numeric=True):
        n_bins = len(preprocessor.bin_edges_[name]) - 1
        outside = (code < 0) | (code >= n_bins)  # -1, or the missing code
        unread = column.notna().to_numpy() & outside
        if not unread.any():
            continue
        count = int(unread.sum())
        example = _example(column[unread])
        cells = f"{count:,} cell{'s' * (count != 1)}"
        notes.append(
            f"Column {quote(name)} holds {cells} the model cannot read as a number, such as "
            f"{quote(example)}: scored as a missing value. Correct the file if "
            f"{'they are typos' if count > 1 else 'it is a typo'}."
        )
    return notes


def unseen_category_notes(
    preprocessor, rows: pd.DataFrame, codes: np.ndarray | None = None
) -> list[str]:
    """One note per categorical feature of ``preprocessor`` (fitted) whose present cells in
    ``rows`` hold values no training row had (their code is K_f or above: absent evidence).

    ``codes`` is ``preprocessor.transform`` of those columns when the caller has it.
    """
    notes = []
    known = dict(zip(preprocessor.feature_names_out_, preprocessor.categories_, strict=True))
    for name, column, code in _features(preprocessor, rows, codes, numeric=False):
        unseen = column.notna().to_numpy() & (code >= len(known[name]))  # K_f and above
        if not unseen.any():
            continue
        values = column[unseen]
        example = _example(values, strip=False)  # 'a ' is unseen where 'a' is known
        closest = closest_known(str(values.iloc[0]), known[name])
        near = f" (closest known value: {quote(closest)})" if closest is not None else ""
        n_values = values.astype(str).nunique()
        n_rows = int(unseen.sum())
        what = f"{n_values:,} value{'s' * (n_values != 1)}"
        adds = "they add" if n_values != 1 else "it adds"
        notes.append(
            f"Column {quote(name)} holds {what} the model never saw in training, such as "
            f"{quote(example)}{near}, in {n_rows:,} of {len(column):,} rows: {adds} no "
            "evidence, so those rows are scored on their other columns."
        )
    return notes


def closest_known(value: str, known: Sequence[str]) -> str | None:
    """The category of ``known`` a typo ``value`` most likely meant, or None.

    Case and surrounding spaces are ignored ('premuim ' is close to 'Premium'); a value
    that reads as a number (an ID, a ZIP code) and a feature of more than
    :data:`MAX_SUGGESTED_FROM` categories get none: a near number is no likely meaning.
    """
    wanted = value.strip().casefold()
    if not wanted or len(known) > MAX_SUGGESTED_FROM or _reads_as_number(wanted):
        return None
    folded: dict[str, str] = {}
    for label in known:
        if label != MISSING_LABEL:
            folded.setdefault(str(label).strip().casefold(), str(label))
    if wanted in folded:
        return folded[wanted]
    match = difflib.get_close_matches(wanted, list(folded), n=1, cutoff=SUGGEST_CUTOFF)
    return folded[match[0]] if match else None


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def scoring_notes(preprocessor, rows: pd.DataFrame, codes: np.ndarray | None = None) -> list[str]:
    """:func:`unreadable_number_notes`, then :func:`unseen_category_notes`, of ``rows``
    (transformed once when ``codes`` is not given)."""
    rows = preprocessor_columns(preprocessor, rows)
    if codes is None:
        codes = preprocessor.transform(rows)
    return unreadable_number_notes(preprocessor, rows, codes) + unseen_category_notes(
        preprocessor, rows, codes
    )


def _features(preprocessor, rows: pd.DataFrame, codes: np.ndarray | None, numeric: bool):
    """(name, column, codes) of each numeric (or each categorical) feature of ``rows``,
    transformed here when ``codes`` is not given."""
    rows = preprocessor_columns(preprocessor, rows)
    if codes is None:
        codes = preprocessor.transform(rows)
    for j, name in enumerate(preprocessor.feature_names_out_):
        if (preprocessor.kinds_.get(name) == "numeric") == numeric:
            yield name, rows[name], codes[:, j]


def _example(values: pd.Series, strip: bool = True) -> str:
    """The first of ``values`` as a note quotes it: stripped (unless not ``strip``), cut to
    :data:`MAX_EXAMPLE`; a whole number in floats as the file wrote it (``99``, not
    ``99.0``: a blank cell makes pandas read a column of IDs as floats)."""
    value = values.iloc[0]
    whole = isinstance(value, float) and value.is_integer()
    example = str(int(value) if whole else value)
    example = example.strip() if strip else example
    return example if len(example) <= MAX_EXAMPLE else example[: MAX_EXAMPLE - 1] + "…"
