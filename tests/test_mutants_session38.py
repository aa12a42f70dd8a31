"""Tests from session 38's mutation pass over the large-file fallback target, the engine's
early one-class check, the command line's target hint and the reliability diagram's
rows-per-bin symbols: each pins behaviour a hand-written mutant changed unseen."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_app import open_app
from test_large_fallback_target import assert_refused_before_counting

from heb.data import DataError
from heb.data.targets import FEW_CLASSES
from heb.figures.reliability import reliability_diagram
from heb.scale import DATA_ROOT_ENV, DuckDBEngine, open_source
from heb.scale.target_choice import fallback_targets

ROWS = 300


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(name, root=root))
    return engine


def _ids() -> list[str]:
    return [f"c{i:04d}" for i in range(ROWS)]


def test_a_column_of_exactly_few_classes_values_is_taken_and_one_more_is_not(tmp_path):
    """FEW_CLASSES (20) values read as classes, 21 do not; 15 values pass the approximate
    screen too (a screen at 10 lost them)."""
    assert FEW_CLASSES == 20
    frame = pd.DataFrame(
        {
            "count21": np.arange(ROWS) % 21,  # whole numbers, 21 values: never
            "t15": [f"t{i % 15}" for i in range(ROWS)],
            "t20": [f"v{i % 20}" for i in range(ROWS)],
            "customer": _ids(),
        }
    )
    frame.to_parquet(tmp_path / "bounds.parquet", index=False)
    engine = _engine(tmp_path, "bounds.parquet")
    try:
        found = fallback_targets(engine)
    finally:
        engine.close()
    assert found == [("t20", "text", 20), ("t15", "text", 15)]


def _check_default(tmp_path, frame: pd.DataFrame) -> str:
    from heb.cli_scale import _check_default_target

    frame.to_parquet(tmp_path / "hint.parquet", index=False)
    engine = _engine(tmp_path, "hint.parquet")
    try:
        with pytest.raises(DataError) as caught:
            _check_default_target(engine, str(frame.columns[-1]))
    finally:
        engine.close()
    return str(caught.value)


def test_the_command_line_hint_joins_two_columns_with_or_and_names_one_alone(tmp_path):
    two = pd.DataFrame(
        {
            "rating": np.arange(ROWS) % 3,
            "plan": ["basic", "pro"] * (ROWS // 2),
            "customer": _ids(),
        }
    )
    assert _check_default(tmp_path, two).endswith(
        "unless --target NAME names another, such as 'plan' (text, 2 values) or "
        "'rating' (whole numbers, 3 values)."
    )
    one = two[["plan", "customer"]]
    assert _check_default(tmp_path, one).endswith(
        "unless --target NAME names another, such as 'plan' (text, 2 values)."
    )


def test_a_float_target_of_one_value_and_nan_is_refused_before_the_counting_query(
    tmp_path, monkeypatch
):
    """NaN is no value of a float target: 1.0 and NaN are one class, said from the scan of
    the target's column alone (counting NaN as a value sent it on to the whole counting
    query, refused only after it)."""
    target = pa.array([1.0, float("nan")] * (ROWS // 2), from_pandas=False)
    colour = pa.array(["red", "blue", "green"] * (ROWS // 3))
    pq.write_table(pa.table({"colour": colour, "y": target}), tmp_path / "nan.parquet")

    match = r"only one class \('1.0'\); a classifier needs"
    assert_refused_before_counting(tmp_path, "nan.parquet", "y", match, monkeypatch)


def test_the_taken_targets_summary_is_kept_not_counted_again(tmp_path, monkeypatch):
    """The describe scan that took 'region' for the ID-like last column kept region's
    summary for the rerun: the file is counted twice (the last column, then region), not a
    third time for the same target."""
    import heb.scale

    rng = np.random.default_rng(5)
    pd.DataFrame(
        {
            "plan": rng.choice(["basic", "plus", "pro"], ROWS),
            "region": rng.choice(["north", "south"], ROWS),
            "customer": _ids(),
        }
    ).to_parquet(tmp_path / "customers.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    counted = []
    summarise = heb.scale.summarise_source

    def spy(engine, target, *args, **kwargs):
        counted.append(target)
        return summarise(engine, target, *args, **kwargs)

    monkeypatch.setattr(heb.scale, "summarise_source", spy)
    at = open_app("pages/dataset.py", clean=False, large_file="customers.parquet")
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Target"] == "region"
    assert counted == ["customer", "region"]


def _curve(count):
    n_bins = len(count)
    edges = np.linspace(0, 1, n_bins + 1)
    centre = (edges[:-1] + edges[1:]) / 2
    return {
        "edges": edges,
        "count": np.asarray(count),
        "confidence": centre,
        "accuracy": centre,
        "ece": 0.01,
    }


def _count_traces(fig):
    bars = [t for t in fig.data if t.type == "bar"]
    tips = [t for t in fig.data if t.type == "scatter" and t.xaxis == "x2"]
    return bars, tips


def test_two_methods_bars_fill_85_percent_of_each_bin_centred_in_it():
    """Four bins of width 0.25 (centres 0.125 ... 0.875): two methods' bars of 0.10625
    each (0.85 x 0.25 / 2) span 0.10625 either side of the centre, a gap of 0.0375 left
    between bins; the first method's starts at the group's left, the second at the
    centre."""
    fig = reliability_diagram({"HEB-M": _curve([5, 6, 7, 8]), "Laplace": _curve([9, 8, 7, 6])})
    (first, second), tips = _count_traces(fig)
    centres = [0.125, 0.375, 0.625, 0.875]
    np.testing.assert_allclose(first.x, centres)
    np.testing.assert_allclose(first.width, [0.10625] * 4)
    np.testing.assert_allclose(second.width, [0.10625] * 4)
    np.testing.assert_allclose(first.offset, [-0.10625] * 4)
    np.testing.assert_allclose(second.offset, [0.0] * 4, atol=1e-12)
    # the symbols at the bars' middles, and the hover names the bin's centre
    np.testing.assert_allclose(tips[0].x, np.array(centres) - 0.053125)
    np.testing.assert_allclose(tips[1].x, np.array(centres) + 0.053125)
    for tip in tips:
        np.testing.assert_allclose(np.asarray(tip.customdata)[:, 0], centres)
        assert tip.cliponaxis is False  # the tallest bar's symbol is drawn whole


def test_every_symbol_is_lifted_by_the_same_share_of_the_tallest_bar():
    """The lift is one for the whole figure (from its tallest bar, 1000 rows), so a method
    of short bars (at most 100 rows) has its symbols as far over them as the tall one's:
    somewhat over 1 % and under 10 % of 1000 rows."""
    fig = reliability_diagram({"HEB-M": _curve([0, 10, 1000]), "KT": _curve([3, 0, 100])})
    _, (tall, short) = _count_traces(fig)
    tall_lift = np.asarray(tall.y) - [10, 1000]
    short_lift = np.asarray(short.y) - [3, 100]
    np.testing.assert_allclose(np.concatenate([tall_lift, short_lift]), tall_lift[0])
    assert 10 < tall_lift[0] < 100


def test_the_screen_counts_approximately_and_the_second_scan_exactly():
    """The first scan of the candidates is HyperLogLog (an exact distinct count of an ID
    column of many millions of rows holds every value), the second exact; a float's NaN
    is no value in either."""
    from heb.scale.sql import DUCKDB
    from heb.scale.target_choice import distinct_query

    assert distinct_query(DUCKDB, ["a", "b c"], approximate=True) == (
        'SELECT approx_count_distinct("a") AS __heb_0, approx_count_distinct("b c") AS __heb_1 '
        "FROM heb_rows"
    )
    bound = DUCKDB.bound([("a", "text"), ("f", "float")])
    assert distinct_query(bound, ["a", "f"], approximate=False) == (
        'SELECT count(DISTINCT "a") AS __heb_0, count(DISTINCT CASE WHEN ("f" IS NOT NULL AND '
        'NOT isnan(CAST("f" AS DOUBLE))) THEN "f" END) AS __heb_1 FROM heb_rows'
    )
