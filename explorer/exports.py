"""Tables on their way out of the app: spreadsheet-safe CSV and browser-sized cells.

Plain pandas (no Streamlit), so the rules are tested without a running app.
"""

from __future__ import annotations

import pandas as pd

from heb.data.spreadsheet import FORMULA_PREFIXES, neutralise_formulas

__all__ = ["FORMULA_PREFIXES", "MAX_CELL_CHARS", "cap_cells", "csv_bytes", "neutralise_formulas"]

#: the most characters of one table cell (or column name) sent to the browser
MAX_CELL_CHARS = 200
ELLIPSIS = "…"


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` (no index) with formula-like text neutralised.

    Lines end in CRLF (RFC 4180), so a cell holding a CR or LF is quoted and stays one cell.
    """
    return neutralise_formulas(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def _cap(value: object, limit: int) -> object:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + ELLIPSIS
    return value


def cap_cells(frame: pd.DataFrame, limit: int = MAX_CELL_CHARS) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names hold at most ``limit`` characters.

    A longer value is cut to ``limit - 1`` characters plus an ellipsis, so one huge cell
    cannot flood the browser. Numbers are left alone.
    """
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or isinstance(out[column].dtype, pd.StringDtype):
            out[column] = out[column].map(lambda value: _cap(value, limit))
        elif isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(object).map(lambda value: _cap(value, limit))
    labels = [_cap(str(name), limit) for name in out.columns]
    if len(set(labels)) == len(labels):
        out.columns = labels
    return out
