"""A column written with thousands separators is an amount, never named as a possible code.

The readers read ``852`` beside ``"1,275"`` in a comma-separated file as numbers
(:func:`heb.data.text_columns.tidy_text_columns`); with many different whole numbers such
a column also drew the note on whole-number columns that may be codes ("If it is a code (a
customer number, a ZIP code, a product code), treat it as categorical"), on the in-memory
page (``explorer.summaries.numeric_code_columns``) and the large-file page
(``explorer.large_files.code_columns``). No one writes a code ``12,400``: the columns read
from thousands separators (``Dataset.amounts``, ``Engine.amounts``) are left out of that
note on both paths, and a column of the same numbers written plain still gets it.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from explorer import summaries
from heb import data as hdata
from heb.data.readers import read_table
from tests.test_upload_columns import working

ROWS = 300


def _table() -> bytes:
    """300 rows: an amount of a different value in each row written with thousands
    separators (``1,275``; below 1,000 plainly, as Excel's ``#,##0`` writes them), the same
    numbers written plainly, a percentage and a label."""
    rng = np.random.default_rng(7)
    values = rng.choice(np.arange(100, 5_000_000), ROWS, replace=False)
    lines = ["amount,plain,rate,label"]
    for r, v in enumerate(values):
        lines.append(f'"{v:,}",{v},{r % 7}%,{"ab"[r % 2]}')
    return ("\n".join(lines) + "\n").encode()


def test_the_readers_list_the_columns_read_from_thousands_separators():
    frame = read_table(_table(), "t.csv")
    assert frame["amount"].dtype == np.int64  # read as numbers, as before
    assert frame.attrs["heb_amounts"] == ["amount"]  # not the plain column, not the rate
    dataset = hdata.dataset_from_table(frame, "t.csv", target="label")
    assert dataset.amounts == ["amount"]
    # a column left out is no amount of the dataset's features
    left = hdata.dataset_from_table(frame, "t.csv", target="label", drop=["amount"])
    assert left.amounts == []


def test_an_amount_gets_no_code_note_in_memory_and_its_plain_twin_does():
    dataset = hdata.load_upload(_table(), "t.csv", target="label")
    found = summaries.numeric_code_columns(dataset, working(dataset))
    assert "plain" in found and "amount" not in found  # the same values, written plainly
    notes = summaries.numeric_code_notes(dataset, working(dataset))
    assert list(notes) == ["plain"]


def test_the_engine_lists_the_amounts_and_the_large_page_leaves_them_out(tmp_path):
    pytest.importorskip("duckdb")
    from explorer.large_files import code_columns
    from heb.scale import summarise_source
    from tests.test_scale_csv import _engine

    (tmp_path / "t.csv").write_bytes(_table())
    engine = _engine(tmp_path, "t.csv")
    assert engine.amounts == ["amount"]
    summary = summarise_source(engine, "label")
    assert summary.amounts == ["amount"]
    families = dict(engine.columns())
    # what code_columns reads of a LargeFile
    large = SimpleNamespace(columns=tuple(families), families=tuple(families.values()))
    found = code_columns(summary.features, large, summary.amounts)
    assert set(found) == {"plain"}
    assert set(code_columns(summary.features, large)) == {"plain", "amount"}


def test_a_csv_on_local_spark_lists_the_same_amounts(tmp_path):
    """Spark on a local master reads DuckDB's typed copy of a CSV (``_typed_parquet``):
    its engine carries the amounts on as the DuckDB engine does."""
    from tests.peers import require_spark

    require_spark()
    from heb.scale import spark_engine
    from heb.scale.source import open_source

    (tmp_path / "t.csv").write_bytes(_table())
    engine = spark_engine.SparkEngine(master="local[1]")
    try:
        engine.register(open_source("t.csv", root=tmp_path))
        assert engine.amounts == ["amount"]
        assert dict(engine.columns())["amount"] == "integer"
    finally:
        engine.close()


def test_the_engine_notes_values_that_differ_only_in_letter_case_as_memory_does(tmp_path):
    pytest.importorskip("duckdb")
    from heb.scale import summarise_source
    from tests.test_scale_csv import _engine

    rows = "".join(
        f"{d},{r},{c}\n"
        for d, r, c in zip(
            ["Mobile", "mobile", "Desktop"] * 20, "ns" * 30, ["yes", "no", "no"] * 20, strict=True
        )
    )
    data = ("device,region,bought\n" + rows).encode()
    (tmp_path / "t.csv").write_bytes(data)
    memory = hdata.load_upload(data, "t.csv", target="bought")
    note = [n for n in memory.notes if "letter case" in n]
    assert note
    summary = summarise_source(_engine(tmp_path, "t.csv"), "bought")
    assert [n for n in summary.notes if "letter case" in n] == note
