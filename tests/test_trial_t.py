"""Trial T: large delimited text exports (semicolons, Windows-1252, quoted line breaks).

An analyst's CSV exports from a legacy system, read in memory, on DuckDB and on Spark:
each file's rows and every value's category must be the same on every path.
"""

from __future__ import annotations

import warnings

from heb.data.readers import read_table
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.profile import describe_source
from heb.scale.source import open_source

#: a table wide enough that pandas' C parser types its rows in several chunks (about
#: 2**20 / columns rows each): 64 columns, 20,000 rows, 2.6 MB
WIDTH, ROWS = 64, 20_000


def _chunked_mixed_csv() -> bytes:
    """A column of decimals written ``0.50``, ``1.50``, ``2.50`` with one text cell in
    the first chunk of rows, so the chunks type that column differently."""
    rest = ",0" * (WIDTH - 2)
    header = ",".join(f"c{j}" for j in range(WIDTH - 1)) + ",label\n"
    body = "".join(f"{i % 3}.50{rest},{'ab'[i % 2]}\n" for i in range(ROWS))
    return (header + "x" + rest + ",a\n" + body).encode()


def test_a_value_is_one_category_however_the_parser_chunks_the_file(tmp_path):
    """pandas' C parser typed each chunk of rows on its own: '1.50' stayed text in the
    chunk holding 'x' and became 1.5 in the next, so one value was two categories in
    memory (7 values where DuckDB and the file have 4), with a DtypeWarning the CLI
    printed as 'heb: note: Columns (0: 0) have mixed types. Specify dtype option ...'."""
    data = _chunked_mixed_csv()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = read_table(data, "export.csv", 1 << 30)
    assert len(table) == ROWS + 1
    counts = table["c0"].astype(str).value_counts()
    assert sorted(counts.index) == ["0.50", "1.50", "2.50", "x"]
    assert counts["1.50"] == (ROWS + 1) // 3
    (tmp_path / "export.csv").write_bytes(data)
    engine = DuckDBEngine()
    engine.register(open_source("export.csv", root=tmp_path))
    described = describe_source(engine, "label").set_index("feature")
    assert described.loc["c0", "K"] == table["c0"].nunique() == 4
