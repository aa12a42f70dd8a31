"""Digits other than 0-9 (Arabic-Indic ``١٢``) are text, in the readers as on the engine.

Python's ``\\d`` matched them, so ``١٢%`` passed for a percentage and ``١٢`` for a
decimal-comma number, and ``pd.to_numeric`` then stopped the upload with "Unable to parse
string" (a traceback); DuckDB's patterns, and so the large-file path, read them as text.
"""

from __future__ import annotations

import pytest

from heb import data as hdata
from heb.data.dataset import is_text_dtype

pytest.importorskip("duckdb")

from heb.scale import DuckDBEngine, open_source  # noqa: E402

#: file name -> (its text, the first cell of x as written)
CASES = {
    "percent.csv": ("x,y\n١٢%,a\n3%,b\n4%,a\n5%,b\n", "١٢%"),
    "comma.csv": ("x;y\n١٢;a\n3,5;b\n4;a\n5;b\n", "١٢"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_other_digits_are_text_in_an_upload_and_on_the_engine(tmp_path, name):
    text, first = CASES[name]
    dataset = hdata.load_upload(text.encode(), name, target="y")
    column = dataset.X["x"]
    assert is_text_dtype(column.dtype)  # text, not numbers
    assert column.iloc[0] == first
    path = tmp_path / name
    path.write_bytes(text.encode())
    engine = DuckDBEngine(threads=1)
    try:
        families = dict(engine.register(open_source(name, root=tmp_path)))
        rows = engine.table("SELECT x FROM heb_rows ORDER BY __heb_row").column(0).to_pylist()
    finally:
        engine.close()
    assert families["x"] == "text"
    assert rows == list(column.astype(str))
