"""``python -m heb bench --drop``: a data file's columns left out, in memory and on DuckDB.

A column that copies the target (``leak``) makes every method perfect; left out, the
accuracy falls to what the real features give. Bad names are one line and exit code 2.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from heb.cli import _collect_reliability, main

ROWS = 600


def _shop(folder, name: str = "shop.csv", with_leak: bool = True, seed: int = 0) -> str:
    """A file with a row identifier, a ZIP-like code, a text column, a copy of the target
    (``leak``, when asked for) and the target ``y``."""
    rng = np.random.default_rng(seed)
    zips = rng.integers(0, 150, ROWS)
    y = (rng.random(ROWS) < 0.3 + 0.4 * (zips % 3 == 0)).astype(int)
    frame = pd.DataFrame({"customer_id": np.arange(ROWS), "zip": zips})
    frame["a"] = rng.choice(list("abc"), ROWS)
    if with_leak:
        frame["leak"] = y
    frame["y"] = y
    path = folder / name
    frame.to_csv(path, index=False)
    return str(path)


def _bench(tmp_path, *args: str) -> tuple[int, pd.DataFrame | None]:
    """Run ``bench`` (Table 1's methods, 3 folds) and return its exit code and folds."""
    out = tmp_path / "out"
    common = ["--tables", "1", "--folds", "3", "--no-figures", "--no-cache", "-o", str(out)]
    code = main(["bench", *args, *common])
    folds = out / "folds.csv"
    return code, pd.read_csv(folds) if folds.exists() else None


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]], ids=["memory", "duckdb"])
def test_a_dropped_leak_is_no_longer_a_feature(tmp_path, capsys, engine):
    pytest.importorskip("duckdb")
    data = _shop(tmp_path)
    code, kept = _bench(tmp_path, data, *engine)
    assert code == 0 and kept["accuracy"].min() == 1.0  # the leak predicts every row
    code, dropped = _bench(tmp_path, data, "--drop", "leak", *engine)
    assert code == 0
    assert dropped["accuracy"].max() < 0.8
    assert set(dropped["method"]) == set(kept["method"])


def test_the_features_said_are_those_left(tmp_path, capsys):
    data = _shop(tmp_path)
    code, _ = _bench(tmp_path, data, "--drop", "customer_id", "--drop", "leak,a")
    assert code == 0
    assert f"shop: {ROWS} rows, 1 feature, target 'y'" in capsys.readouterr().err


def test_a_cached_run_is_not_served_for_another_drop(tmp_path):
    data = _shop(tmp_path)
    out = tmp_path / "cached"
    args = ["bench", data, "--tables", "1", "--folds", "3", "--no-figures", "-o", str(out)]
    assert main(args) == 0
    with_leak = pd.read_csv(out / "folds.csv")["accuracy"].mean()
    assert main([*args, "--drop", "leak"]) == 0
    assert pd.read_csv(out / "folds.csv")["accuracy"].mean() < with_leak


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]], ids=["memory", "duckdb"])
@pytest.mark.parametrize(
    ("drop", "said"),
    [
        ("nope", "--drop names 'nope', not a column of"),
        ("y", "--drop names the target 'y' of"),
    ],
)
def test_a_bad_name_is_one_line_and_exit_code_2(tmp_path, capsys, engine, drop, said):
    pytest.importorskip("duckdb")
    code, folds = _bench(tmp_path, _shop(tmp_path), "--drop", drop, *engine)
    err = capsys.readouterr().err
    assert code == 2 and folds is None
    assert said in err
    if drop == "nope":  # the columns there are, to pick from
        assert "'customer_id', 'zip', 'a', 'leak', 'y'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_dropping_every_feature_on_the_engine_is_one_line(tmp_path, capsys):
    pytest.importorskip("duckdb")
    data = _shop(tmp_path)
    code, _ = _bench(tmp_path, data, "--drop", "customer_id,zip,a,leak", "--engine", "duckdb")
    assert code == 2
    assert "--drop leaves no feature column besides the target 'y'." in capsys.readouterr().err


def test_a_column_both_dropped_and_categorical_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _bench(tmp_path, _shop(tmp_path), "--drop", "zip", "--categorical", "zip")
    assert exit_info.value.code == 2
    assert "'zip' is named by both --drop and --categorical" in capsys.readouterr().err


def test_several_files_drop_where_present_and_say_where_not(tmp_path, capsys):
    first = _shop(tmp_path)
    second = _shop(tmp_path, "plain.csv", with_leak=False, seed=1)
    code, folds = _bench(tmp_path, first, second, "--drop", "leak")
    err = capsys.readouterr().err
    assert code == 0
    assert "plain: no column 'leak' to leave out." in err
    assert "shop: no column" not in err
    assert folds.loc[folds["dataset"] == "shop", "accuracy"].max() < 0.8


def test_a_named_dataset_is_read_whole_and_says_so(tmp_path, capsys):
    code, folds = _bench(tmp_path, "builtin:zip-codes", "--drop", "zip")
    assert code == 0 and len(folds) > 0
    assert "builtin:zip-codes: --drop applies to file paths" in capsys.readouterr().err


def test_the_reliability_figures_leave_out_what_the_tables_leave_out(tmp_path):
    """``_collect_reliability`` reads a file with ``drop`` as the tables do: the leak gone,
    HEB-M's confidences are no longer all near 1."""
    data = _shop(tmp_path)
    settings = {"n_splits": 3, "seed": 0, "n_bins": 10, "missing": "impute", "max_rows": 0}
    kept = _collect_reliability([data], settings, [4])
    dropped = _collect_reliability([data], settings, [4], drop=["leak"])
    assert set(kept) == set(dropped) == {"shop"}  # customer_id: K = 600, high-cardinality
    method = next(iter(kept["shop"]))

    def shown(curves: dict) -> str:
        return json.dumps(curves["shop"][method], default=lambda a: np.asarray(a).tolist())

    assert shown(kept) != shown(dropped)


def test_a_file_scheme_in_capitals_drops_and_names_as_in_lower_case(tmp_path, capsys):
    """``FILE:shop.csv`` (load_dataset reads the scheme in any case) had --drop passed over
    as if it named a dataset, and the dataset named 'shop.csv' instead of 'shop'."""
    data = _shop(tmp_path)
    code, folds = _bench(tmp_path, f"FILE:{data}", "--drop", "leak")
    err = capsys.readouterr().err
    assert code == 0 and "--drop applies to file paths" not in err
    assert set(folds["dataset"]) == {"shop"} and folds["accuracy"].max() < 0.8


def test_a_column_of_lists_on_the_engine_names_the_drop_that_leaves_it_out(tmp_path, capsys):
    """A parquet column of lists: the engine's sentence said "leave it out" without the
    option; it names --drop, and that --drop runs."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "tags": [["new", "sale"][: i % 3] for i in range(ROWS)],
            "a": rng.choice(list("abc"), ROWS),
            "y": rng.choice(["yes", "no"], ROWS),
        }
    )
    path = tmp_path / "orders.parquet"
    frame.to_parquet(path, index=False)
    capsys.readouterr()
    code, _ = _bench(tmp_path, str(path), "--engine", "duckdb")
    err = capsys.readouterr().err
    assert code == 2
    assert "Column 'tags' has a type" in err and "--drop tags" in err
    code, folds = _bench(tmp_path, str(path), "--engine", "duckdb", "--drop", "tags")
    assert code == 0 and folds is not None


def test_a_date_column_on_the_engine_is_binned_as_in_memory(tmp_path, capsys):
    """A parquet date column was refused on the engine ("leave it out with --drop"); it is
    binned by its dates, as in memory."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    days = rng.integers(0, 120, ROWS)
    frame = pd.DataFrame(
        {
            "order_date": pd.Timestamp("2026-01-01") + pd.to_timedelta(days, "D"),
            "a": rng.choice(list("abc"), ROWS),
            "y": np.where((days > 60) ^ (rng.random(ROWS) < 0.2), "yes", "no"),
        }
    )
    path = tmp_path / "orders.parquet"
    frame.to_parquet(path, index=False)
    capsys.readouterr()
    code, folds = _bench(tmp_path, str(path), "--engine", "duckdb")
    assert code == 0 and "order_date" not in capsys.readouterr().err
    assert folds["accuracy"].mean() > 0.7  # the dates carry the class


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]], ids=["memory", "duckdb"])
def test_a_customer_id_as_last_column_is_refused_without_naming_an_app(tmp_path, capsys, engine):
    """The command line said "more than the 100 classes this app handles" of a last
    column of customer numbers; it names HEB Explorer (the app and the command alike)."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"a": rng.choice(list("abc"), ROWS), "returned": rng.choice(["yes", "no"], ROWS)}
    )
    frame["customer_id"] = np.arange(ROWS) + 10**6
    path = tmp_path / "orders.parquet"
    frame.to_parquet(path, index=False)
    capsys.readouterr()
    from heb.cli import NoUsableData

    try:  # in memory the file is skipped with its reason, then no dataset is left
        code, _ = _bench(tmp_path, str(path), *engine)
    except NoUsableData:  # exit code 2, as on the engine
        code = 2
    err = capsys.readouterr().err
    assert code == 2
    assert "more than the 100 classes HEB Explorer handles" in err and "this app" not in err
    assert "--target NAME" in err and "'returned'" in err
