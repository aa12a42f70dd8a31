"""A large file whose last column cannot be the target: another column is taken, as for an
upload (``heb.data.targets.fallback_targets``), and a one-valued target is refused before
the counting query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import APP, TIMEOUT, assert_clean, open_app, unescape

from explorer import loading
from heb.data import DataError
from heb.data.targets import FEW_CLASSES, TARGET_CANDIDATES
from heb.scale import DATA_ROOT_ENV, DuckDBEngine, open_source
from heb.scale import counting as counting_module
from heb.scale.target_choice import candidate_columns, fallback_targets

PAGE = "pages/dataset.py"
ROWS = 300


def _frame() -> pd.DataFrame:
    """Columns of every kind left of a last column that is an ID (a value per row)."""
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "plan": rng.choice(["basic", "plus", "pro"], ROWS),  # text, 3 values: the first
            "visits": rng.integers(0, 200, ROWS),  # whole numbers of many values: a count
            "score": rng.random(ROWS),  # decimals: a measurement
            "flag": rng.integers(0, 2, ROWS),  # whole numbers, 2 values: the second
            "shop": rng.choice([f"s{i}" for i in range(FEW_CLASSES + 1)], ROWS),  # 21 values
            "region": rng.choice(["north", "south", None], ROWS),  # text, 2 values + missing
            "customer": [f"c{i:04d}" for i in range(ROWS)],  # the last column: an ID
        }
    )


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(name, root=root))
    return engine


@pytest.fixture
def rooted(tmp_path, monkeypatch):
    _frame().to_parquet(tmp_path / "customers.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def test_the_engine_takes_the_columns_the_upload_would(rooted):
    """The engine's rule is the in-memory one: text of 2 to FEW_CLASSES values first, nearest
    the last column first, then whole numbers; a 21-valued, a decimal and a many-valued
    whole-number column never."""
    engine = _engine(rooted, "customers.parquet")
    try:
        found = fallback_targets(engine)
    finally:
        engine.close()
    assert found == [("region", "text", 2), ("plan", "text", 3), ("flag", "whole numbers", 2)]
    assert found == loading.fallback_targets(_frame())


def test_only_the_nearest_columns_are_candidates():
    columns = [(f"c{i}", "text") for i in range(TARGET_CANDIDATES + 3)]
    columns[-3] = ("day", "other")  # a date: never a class
    columns[-4] = ("rate", "float")  # floats: classes if whole numbers (checked later)
    found = candidate_columns(columns)
    assert [name for name, _ in found] == [
        "rate" if i == TARGET_CANDIDATES - 1 else f"c{i}"
        for i in range(TARGET_CANDIDATES + 1, 1, -1)
        if i != TARGET_CANDIDATES
    ]
    assert ("rate", "whole numbers") in found
    assert candidate_columns([("only", "text")]) == []


def test_a_flag_stored_as_floats_is_taken_as_in_memory(tmp_path):
    """A 0/1 flag with missing values is floats in a parquet file written by pandas; the
    upload took it (``is_integer_like``), the engine did not (its family is float). A float
    column of fractions never is one, and NaN is no value (1.0, 2.0 and NaN: 2 values)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    flag = rng.integers(0, 2, ROWS).astype(float)
    flag[::7] = np.nan  # written as NULL
    table = pa.table(
        {
            "flag": pa.array(flag, from_pandas=True),
            "halves": pa.array(rng.choice([0.5, 1.5, 2.5], ROWS)),
            "grade": pa.array(rng.choice([1.0, 2.0, np.nan], ROWS), from_pandas=False),
            "customer": pa.array([f"c{i:04d}" for i in range(ROWS)]),
        }
    )
    pq.write_table(table, tmp_path / "floats.parquet")
    engine = _engine(tmp_path, "floats.parquet")
    try:
        assert dict(engine.columns())["grade"] == "float"
        found = fallback_targets(engine)
    finally:
        engine.close()
    assert found == [("grade", "whole numbers", 2), ("flag", "whole numbers", 2)]
    assert found == loading.fallback_targets(table.to_pandas())


def assert_refused_before_counting(root, name: str, target: str, match: str, monkeypatch):
    """The target of ``root / name`` is refused (``match``) with the counting query never
    run: from the scan of its column alone."""

    def no_histograms(*args, **kwargs):
        raise AssertionError("the counting query ran")

    monkeypatch.setattr(counting_module, "histogram_query", no_histograms)
    engine = _engine(root, name)
    try:
        columns = counting_module.describe(engine, target)
        with pytest.raises(DataError, match=match):
            counting_module.count_histograms(engine, columns, 3, 42)
    finally:
        engine.close()


def test_a_one_valued_target_is_refused_before_the_counting_query(rooted, monkeypatch):
    """Before, a one-valued target ran the whole GROUPING SETS query of every feature, then
    said so; the scan of the target's column alone says it now."""
    frame = _frame().assign(customer="same")
    frame.to_parquet(rooted / "one.parquet", index=False)
    match = r"only one class \('same'\); a classifier needs"
    assert_refused_before_counting(rooted, "one.parquet", "customer", match, monkeypatch)
    frame.assign(customer=None).to_parquet(rooted / "empty.parquet", index=False)
    match = "^The target column 'customer' has no values.$"
    assert_refused_before_counting(rooted, "empty.parquet", "customer", match, monkeypatch)


def _target_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Target column")


def test_the_dataset_page_takes_another_target_and_says_why(rooted):
    at = open_app(PAGE, clean=False, large_file="customers.parquet")
    assert_clean(at)
    assert _target_box(at).value == "region"
    infos = " ".join(unescape(i.value) for i in at.info)
    assert "The target 'customer' has 300 different values" in infos
    assert "So the target is 'region' for now" in infos
    assert (
        "(text, 2 values). To predict another column, choose it under Target column above" in infos
    )
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Target"] == "region"
    assert metrics["Rows with a target"] == f"{_frame()['region'].notna().sum():,}"


def test_a_chosen_last_column_is_refused_not_replaced(rooted):
    """Choosing the last column back is the user's choice: its error is said, and no other
    column is taken for it again (no loop between the two)."""
    at = open_app(PAGE, clean=False, large_file="customers.parquet")
    _target_box(at).set_value("customer").run()
    assert _target_box(at).value == "customer"
    errors = " ".join(unescape(e.value) for e in at.error)
    assert "The target 'customer' has 300 different values" in errors
    assert not at.exception
    infos = " ".join(unescape(i.value) for i in at.info)
    assert "So the target is" not in infos


def test_no_column_reads_as_classes_leaves_the_error(rooted):
    frame = _frame()[["visits", "score", "customer"]]
    frame.to_parquet(rooted / "measures.parquet", index=False)
    at = open_app(PAGE, clean=False, large_file="measures.parquet")
    assert not at.exception
    assert _target_box(at).value == "customer"
    errors = " ".join(unescape(e.value) for e in at.error)
    assert "The target 'customer' has 300 different values" in errors


def test_the_command_line_names_the_way_on_and_takes_no_target(rooted, capsys):
    """``heb bench --engine`` takes no other target (a script's target never changes
    silently), but its one sentence says how to name one and which columns read as
    classes; with none, the in-memory path's words alone; a named target, neither."""
    from heb.cli import main

    out = str(rooted / "out")
    path = str(rooted / "customers.parquet")
    assert main(["bench", path, "--engine", "duckdb", "--folds", "2", "-o", out]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "; the target is the last column unless --target NAME names another, such as "
        "'region' (text, 2 values), 'plan' (text, 3 values) or 'flag' (whole numbers, 2 values)."
    )
    _frame()[["score", "customer"]].to_parquet(rooted / "measures.parquet", index=False)
    path = str(rooted / "measures.parquet")
    assert main(["bench", path, "--engine", "duckdb", "--folds", "2", "-o", out]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "classes; the target is the last column unless --target NAME names another."
    ), err
    argv = ["bench", path, "--engine", "duckdb", "--target", "customer", "-o", out]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("pick a column with fewer classes."), err


def open_direct(page: str, **query: str) -> AppTest:
    """The app opened at ``page`` from a link (``/concentrations?large_file=...``): its
    first run is that page's (:func:`test_app.open_app` runs the Dataset page first)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page)
    return at.run()


def _infos(at: AppTest) -> str:
    return " ".join(unescape(i.value) for i in at.info)


def _errors(at: AppTest) -> list[str]:
    return [unescape(e.value) for e in at.error]


def test_a_link_to_concentrations_takes_the_fallback_target(rooted):
    """A link straight to the Concentrations page (no ``large_target``) showed the last
    column's error; the Dataset page took another column. The same rule applies on every
    page that first scans the file, and the note says where to choose another."""
    at = open_direct("pages/concentrations.py", large_file="customers.parquet")
    assert "describe" not in repr(list(at.session_state["_large_results"]))  # this page's scan
    assert_clean(at)
    infos = _infos(at)
    assert "The target 'customer' has 300 different values" in infos
    assert "So the target is 'region' for now" in infos
    assert "choose it under Target column on the Dataset page" in infos
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows counted"] == f"{_frame()['region'].notna().sum():,}"
    assert at.query_params["large_target"] == "region"  # the link names the target now
    at.switch_page(PAGE).run()  # the Dataset page shows the same target and note
    assert_clean(at)
    assert _target_box(at).value == "region"
    assert "So the target is 'region' for now" in _infos(at)


def test_a_link_to_compare_takes_the_fallback_target(rooted):
    at = open_direct("pages/compare.py", large_file="customers.parquet", methods="HEB-M")
    assert_clean(at)
    at.button(key="large_go").click().run()
    assert_clean(at)
    assert "So the target is 'region' for now" in _infos(at)
    grid = next(d for d in at.dataframe if "method" in d.value.columns)
    assert list(grid.value["method"]) == ["HEB-M"]
    captions = " ".join(c.value for c in at.caption)
    assert f"{_frame()['region'].notna().sum():,} rows seen" in captions


def test_choosing_the_taken_target_by_hand_drops_the_note(rooted):
    """Once the user picks the column (another first, then it again), the choice is theirs:
    the "taken for you" note came back with it."""
    at = open_app(PAGE, clean=False, large_file="customers.parquet")
    assert "So the target is 'region' for now" in _infos(at)
    _target_box(at).set_value("plan").run()
    assert "So the target is" not in _infos(at)
    _target_box(at).set_value("region").run()
    assert_clean(at)
    assert _target_box(at).value == "region"
    assert "So the target is" not in _infos(at)
    assert {m.label: m.value for m in at.metric}["Target"] == "region"


def _two_exports(root, with_flag: bool = True) -> None:
    """Two exports in one file: 'grade' (the first text candidate) has values only in rows
    where every feature is empty, so its own scan fails; 'flag' is filled where 'grade'
    is not. The last column is empty."""
    rows = np.arange(ROWS)
    first = rows < ROWS // 2
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "x": np.where(first, rng.random(ROWS), np.nan),
            "flag": np.where(first, rng.integers(0, 2, ROWS), np.nan),
            "grade": np.where(first, None, rng.choice(["A", "B"], ROWS)),
            "customer": [None] * ROWS,
        }
    )
    if not with_flag:
        frame = frame.drop(columns="flag")
    frame.to_parquet(root / ("two.parquet" if with_flag else "none.parquet"), index=False)


def test_a_fallback_whose_scan_fails_gives_way_to_the_next(rooted):
    """The first candidate's own scan failed and its error was shown (naming a column the
    user never chose); the next candidate is tried."""
    _two_exports(rooted)
    at = open_app(PAGE, clean=False, large_file="two.parquet")
    assert_clean(at)
    assert _target_box(at).value == "flag"
    infos = _infos(at)
    assert "The target column 'customer' has no values. So the target is 'flag' for now" in infos
    # 'grade' is nearer and reads as classes: "the nearest" names it
    assert "(whole numbers, 2 values) and can be the target ('grade', nearer, cannot)." in infos
    assert {m.label: m.value for m in at.metric}["Rows with a target"] == f"{ROWS // 2:,}"


def test_when_no_fallback_scan_works_the_last_column_s_error_is_said(rooted):
    _two_exports(rooted, with_flag=False)
    at = open_app(PAGE, clean=False, large_file="none.parquet")
    assert not at.exception
    assert _target_box(at).value == "customer"
    assert _errors(at) == ["The target column 'customer' has no values."]
    assert "So the target is" not in _infos(at)


def test_the_last_column_chosen_after_a_taken_one_is_refused_on_concentrations(rooted):
    """The Concentrations scan kept for the last column by default (another column taken)
    is not the one of the last column chosen by hand: that one's error is said, and no
    column is taken for it again."""
    at = open_direct("pages/concentrations.py", large_file="customers.parquet")
    assert "So the target is 'region' for now" in _infos(at)
    at.switch_page(PAGE).run()
    _target_box(at).set_value("customer").run()
    at.switch_page("pages/concentrations.py").run()
    assert not at.exception
    assert any("The target 'customer' has 300 different values" in e for e in _errors(at))
    assert "So the target is" not in _infos(at)
    assert at.query_params["large_target"] == "customer"


def test_a_last_column_that_is_a_fine_target_keeps_its_error(rooted, monkeypatch):
    """Another column is taken only when the last column fails the target check itself:
    one of two values whose rows have no feature keeps its error (the comparison of a
    last column failing for another reason was run again for each candidate)."""
    rows = np.arange(ROWS)
    first = rows < ROWS // 2
    rng = np.random.default_rng(3)
    pd.DataFrame(
        {
            "x": np.where(first, rng.random(ROWS), np.nan),
            "grade": np.where(first, rng.choice(["A", "B"], ROWS), None),  # a candidate
            "y": np.where(first, None, rng.choice(["yes", "no"], ROWS)),
        }
    ).to_parquet(rooted / "apart.parquet", index=False)
    tried = []
    check = counting_module.check_target_values
    monkeypatch.setattr(
        counting_module,
        "check_target_values",
        lambda engine, column: tried.append(column) or check(engine, column),
    )
    at = open_app(PAGE, clean=False, large_file="apart.parquet")
    assert not at.exception
    assert _target_box(at).value == "y"
    assert "So the target is" not in _infos(at)
    assert len(_errors(at)) == 1 and "'grade'" not in _errors(at)[0]
    assert "grade" not in tried
