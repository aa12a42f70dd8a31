"""Which column is the target when a file's last column cannot be: the in-memory rule
(the upload's, the Dataset page's); :mod:`heb.scale.target_choice` applies it on the
large-data engines."""

from __future__ import annotations

import pandas as pd

from heb.data.dataset import is_integer_like, is_text_dtype
from heb.text import and_list

__all__ = ["FEW_CLASSES", "TARGET_CANDIDATES", "fallback_targets", "target_option_hint"]

#: columns looked at, from the right, when a file's last column cannot be its target
TARGET_CANDIDATES = 10
#: a fallback target has 2 to this many values: it reads as classes (a label, a rating, a
#: 0/1 flag); a column of more (an age, a count, an amount) is never taken for the user
FEW_CLASSES = 20


def fallback_targets(table: pd.DataFrame) -> list[tuple[str, str, int]]:
    """The columns that could stand in for a table's last column as the target, best first:
    (name, ``"text"`` or ``"whole numbers"``, distinct values).

    Of the :data:`TARGET_CANDIDATES` columns left of the last, from the right, those that
    read as classes: 2 to :data:`FEW_CLASSES` values, text first (a label is mostly text),
    then whole numbers (a 0/1 flag, a rating). A column of decimals or of many values (a
    new user's one-class 'churn' went to 'age', a 75-valued count went the same way) is
    a measurement, never a class the user meant.
    """
    last = table.shape[1] - 1
    found = {"text": [], "whole numbers": []}
    for position in list(range(last - 1, -1, -1))[:TARGET_CANDIDATES]:
        column = table.iloc[:, position]
        if is_text_dtype(column.dtype):
            kind = "text"
        elif is_integer_like(column):
            kind = "whole numbers"
        else:
            continue
        distinct = int(column.nunique(dropna=True))
        if 2 <= distinct <= FEW_CLASSES:
            found[kind].append((str(table.columns[position]), kind, distinct))
    return found["text"] + found["whole numbers"]


def target_option_hint(found: list[tuple[str, str, int]]) -> str:
    """The command line's way on for a last column that cannot be the target, naming the
    columns ``found`` (:func:`fallback_targets`, or the engine's) that read as classes;
    ``heb bench`` takes none of them for the user."""
    hint = "the target is the last column unless --target NAME names another"
    if not found:
        return hint
    named = [f"{name!r} ({kind}, {n} values)" for name, kind, n in found]
    return f"{hint}, such as {and_list(named, 'or')}"
