"""Findings of a practitioner's what-if trial on an orders table (dates, ZIP codes, an
order id, a returned flag)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import load_upload
from tests.test_app import open_app, unescape


def _orders_csv() -> bytes:
    rng = np.random.default_rng(0)
    n = 200
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 200, n), unit="D")
    frame = pd.DataFrame(
        {
            "order_id": np.arange(1000, 1000 + n),
            "zip": [f"{z:05d}" for z in rng.integers(0, 3000, n)],
            "order_date": days.strftime("%Y-%m-%d"),
            "channel": rng.choice(["web", "app"], n),
            "returned": rng.choice(["yes", "no"], n),
        }
    )
    return frame.to_csv(index=False).encode()


def test_a_left_out_columns_reading_note_is_not_kept():
    """The date note said "leave it out (the Dataset page's Columns to leave out, --drop on
    the command line)" of 'order_date' after it was left out that way."""
    data = _orders_csv()
    kept = load_upload(data, "orders.csv")
    assert any(note.startswith("Column 'order_date' holds dates") for note in kept.notes)
    dropped = load_upload(data, "orders.csv", drop=["order_date", "zip"])
    assert not any("'order_date'" in n and "holds dates" in n for n in dropped.notes)
    assert not any(note.startswith("Column 'zip' ") for note in dropped.notes)
    assert any(note.startswith("Left out 'order_date', 'zip'") for note in dropped.notes)
    # a column kept keeps its note
    only_date = load_upload(data, "orders.csv", drop=["order_date"])
    assert any(note.startswith("Column 'zip' holds codes") for note in only_date.notes)


def test_explain_names_compare_what_if_values_it_does_not_use():
    """Compare ran m-estimate at m = 20 (a what-if value in the link); Explain drew
    m-estimate at its default m = 2 and said nothing."""
    at = open_app(
        "pages/explain.py",
        methods="Laplace,m-estimate,HEB-M",
        params="m-estimate:m=20.0",
    )
    captions = [unescape(c.value) for c in at.caption]
    assert any(
        "Not used here, from Compare: m-estimate's m = 20. This page fits every smoother "
        "at its default (m-estimate's m = 2)." in c
        for c in captions
    ), captions


def test_explain_is_silent_without_what_if_values_of_its_smoothers():
    at = open_app("pages/explain.py", methods="Laplace,HEB-M", params="m-estimate:m=20.0")
    assert not any("Not used here" in c.value for c in at.caption)


def test_bench_names_a_code_named_column_it_bins(tmp_path, capsys):
    """heb fit said a sku of 1,049 whole numbers was binned as a number ("pass
    --categorical sku"); heb bench silenced that warning and said nothing unless the
    column's values told the target more than its bins."""
    rng = np.random.default_rng(1)
    n = 1_500
    frame = pd.DataFrame(
        {
            "sku": rng.integers(10_000, 12_000, n),
            "channel": rng.choice(["web", "app"], n),
            "returned": rng.choice(["yes", "no"], n),
        }
    )
    path = tmp_path / "orders.csv"
    frame.to_csv(path, index=False)
    common = ["--methods", "Laplace", "--folds", "3", "-o", str(tmp_path / "out")]
    assert main(["bench", str(path), *common]) == 0
    said = capsys.readouterr()
    lines = said.out + said.err
    assert "'sku' (" in lines and "is named like a code but binned as a number" in lines
    assert "pass --categorical sku to read it as categories" in lines
    assert main(["bench", str(path), "--categorical", "sku", *common]) == 0
    said = capsys.readouterr()
    assert "named like a code" not in said.out + said.err


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]], ids=["memory", "duckdb"])
def test_bench_says_no_date_note_of_a_dropped_date_column(tmp_path, capsys, engine):
    """heb bench --drop order_date still said "leave it out (..., --drop on the command
    line)" of order_date, in memory and on DuckDB."""
    path = tmp_path / "orders.csv"
    path.write_bytes(_orders_csv())
    common = ["--methods", "Laplace", "--folds", "3", "--no-cache", "-o", str(tmp_path / "o")]
    assert main(["bench", str(path), *engine, *common]) == 0
    said = capsys.readouterr()
    assert "holds dates" in said.out + said.err
    assert main(["bench", str(path), "--drop", "order_date", *engine, *common]) == 0
    said = capsys.readouterr()
    assert "holds dates" not in said.out + said.err
    assert "'zip' holds codes" in said.out + said.err
