"""CSV cells a spreadsheet cannot run: the rule every CSV the app and the command line write
follows (OWASP, CSV injection). Plain pandas, in the data layer below both, so the app and
``heb``'s commands share one rule."""

from __future__ import annotations

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "neutralise", "neutralise_formulas"]

#: first characters a spreadsheet reads as the start of a formula (OWASP, CSV injection)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """``value`` with a leading single quote when it is text a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame, columns=None) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (of ``columns``, default every column) and
    column names cannot start a formula.

    Text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a
    leading single quote, as OWASP recommends against CSV injection. Numeric columns are
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
