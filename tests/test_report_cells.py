"""The HTML report's tables: fixed decimals per column, not four significant digits per
cell (a per-class table read 1 / 0.9412 / 0.05 in one column)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.evaluate.report import CELL_DECIMALS, _table


def _cells(frame: pd.DataFrame) -> list[list[str]]:
    body = _table(frame).split("<tbody>")[1]
    return [
        [cell.split("</td>")[0] for cell in row.split("<td>")[1:]] for row in body.split("<tr>")[1:]
    ]


def test_a_share_column_has_the_same_decimals_in_every_row():
    frame = pd.DataFrame({"class": ["a", "b", "c"], "recall": [1.0, 0.94117, 0.05]})
    assert CELL_DECIMALS == 3
    assert _cells(frame) == [["a", "1.000"], ["b", "0.941"], ["c", "0.050"]]


def test_whole_numbers_stored_as_floats_are_counts_without_decimals():
    frame = pd.DataFrame({"rows": [1200.0, 35.0], "predicted": [0.0, 3.0]})
    assert _cells(frame) == [["1,200", "0"], ["35", "3"]]


def test_large_values_keep_one_decimal_and_missing_ones_are_a_dash():
    frame = pd.DataFrame({"fit ms": [1234.56, np.nan, np.inf, 0.5]})
    assert [row[0] for row in _cells(frame)] == ["1,234.6", "—", "—", "0.5"]


def test_text_cells_are_escaped_and_duplicate_headers_kept():
    frame = pd.DataFrame([["<b>x</b>", 0.25]], columns=["v", "v"])
    assert _cells(frame) == [["&lt;b&gt;x&lt;/b&gt;", "0.250"]]
    assert _table(frame).count("<th>v</th>") == 2


def test_an_empty_table_has_its_headers_and_no_rows():
    frame = pd.DataFrame({"method": pd.Series([], dtype=object), "x": pd.Series([], dtype=float)})
    assert _cells(frame) == []
    assert "<th>method</th><th>x</th>" in _table(frame)
