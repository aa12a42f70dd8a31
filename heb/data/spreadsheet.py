"""CSV cells a spreadsheet cannot run: the rule every CSV the app and the command line write
follows (OWASP, CSV injection). Plain pandas, in the data layer below both, so the app and
``heb``'s commands share one rule."""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "neutralise", "neutralise_formulas"]

#: first characters a spreadsheet reads as the start of a formula (OWASP, CSV injection)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


#: text a spreadsheet reads as a plain number (``-1``, ``+2.5``, ``-3e-4``): no formula
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise(value: object) -> object:
    """``value`` with a leading single quote when it is text a spreadsheet would run (a
    plain number written as text, a class ``-1``, stays as it is)."""
    if (
        isinstance(value, str)
        and value.startswith(FORMULA_PREFIXES)
        and not _PLAIN_NUMBER.fullmatch(value)
    ):
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame, columns=None) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (of ``columns``, default every column) and
    column names cannot start a formula.

    Text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a
    leading single quote, as OWASP recommends against CSV injection, unless it is a plain
    number (``-1``, a class label of a numeric target, written as text). Numeric columns are
    left as numbers (a spreadsheet reads ``-1.5`` as a number, not a formula).
    """
    out = frame.copy()
    for column in out.columns if columns is None else columns:
        if not (
            pd.api.types.is_numeric_dtype(out[column]) or pd.api.types.is_bool_dtype(out[column])
        ):
            out[column] = out[column].map(neutralise)
    out.columns = [neutralise(str(name)) for name in out.columns]
    return out
