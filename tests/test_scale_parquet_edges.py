"""Parquet sources on the large-data path beyond the audit in test_scale_audit.py.

Exact integer IDs through scoring, NaN hidden by parquet statistics, decimals, column names
DuckDB cannot tell apart or that clash with its row key or the generated SQL's aliases, and
folders whose files differ in columns. Each engine result is compared with the in-memory
path on the same folds (rows read by ``heb.data.parquet.read_parquet``, as the app does).
The Spark tests share one ``local[1]`` session and skip without Java or pyspark.
"""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from heb.data import DataError
from heb.data.parquet import read_parquet
from heb.scale.counting import count_histograms, describe
from heb.scale.cv import cross_validate
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import open_source
from heb.scale.sql import DUCKDB, SPARK, fold_query, rows_query
from tests.engine_agreement import SEED, assert_same, quiet_spark_engine

pytest.importorskip("duckdb")

FEW = ["Laplace", "HEB-M", "AODE", "HEB-AODE"]


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source(name, root=root))
    return engine


def _rows(path, target: str) -> pd.DataFrame:
    rows = read_parquet(path, max_columns=100)
    return rows[rows[target].notna()].reset_index(drop=True)


def _one_sentence(message: str) -> None:
    assert message.count(". ") == 0 and message.endswith(".") and "\n" not in message, message


# ------------------------------------------------------------------------- generated SQL
def test_a_bound_dialect_reads_renamed_columns_and_drops_nan_targets_of_floats_only():
    dialect = DUCKDB.bound([("A", "float"), ("a", "text")], {"a": "__heb_c1"})
    assert dialect.quote("a") == '"__heb_c1"' and dialect.quote("A") == '"A"'
    assert "isnan" in dialect.present("A") and "isnan" not in dialect.present("a")
    assert "isnan" not in DUCKDB.present("A")  # unbound: no types known
    sql = rows_query(dialect, "a", ["A"], 3, SEED)
    assert '"__heb_c1" AS "__y"' in sql and '"A" AS "A"' in sql


@pytest.mark.parametrize("column", ["__y", "__fold"])
def test_rows_query_refuses_a_feature_named_like_its_own_columns_in_one_sentence(column):
    with pytest.raises(DataError, match="rename the column") as info:
        rows_query(DUCKDB, "y", [column, "x"], 3, SEED)
    _one_sentence(str(info.value).replace("; ", " "))


# ------------------------------------------------------------------- integers and floats
def test_integer_ids_beyond_2_53_with_missing_values_match_in_memory(tmp_path):
    """Exact through the counts, the pair scan (AODE) and the scoring scan, NULLs included."""
    rng = np.random.default_rng(1)
    n = 300
    user = pd.array(2**60 + rng.integers(0, 6, n), dtype="Int64")
    user[rng.random(n) < 0.1] = pd.NA
    shop = 2**62 + rng.integers(0, 3, n)  # no missing: numpy int64
    y = np.where(np.asarray(user.fillna(0)) % 2 == 0, "a", "b")
    y[rng.random(n) < 0.2] = "c"
    frame = pd.DataFrame({"user_id": user, "shop_id": shop, "y": y})
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    engine = _engine(tmp_path, "ids.parquet")
    histograms = count_histograms(engine, describe(engine, "y"), 3, SEED)
    assert len(histograms.values[0].keys) == 6 and histograms.values[0].keys.dtype == np.int64
    assert_same(engine, _rows(tmp_path / "ids.parquet", "y"), "y", methods=FEW)


def test_nan_in_a_float_feature_is_missing_in_the_pair_scan(tmp_path):
    """DuckDB trusts parquet min / max statistics (which leave NaN out) unless told the
    files can hold NaN: ``isnan`` in the AODE pair scan's bins must still see it."""
    rng = np.random.default_rng(2)
    n = 300
    price = np.round(rng.gamma(2.0, 3.0, n), 1)
    price[rng.random(n) < 0.15] = np.nan
    table = pa.table(
        {
            "price": pa.array(price, from_pandas=False),  # NaN, not NULL
            "colour": rng.choice(["r", "g", "b"], n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    pq.write_table(table, tmp_path / "nan.parquet")
    engine = _engine(tmp_path, "nan.parquet")
    nan_rows = engine.table("SELECT count(*) AS n FROM heb_rows WHERE isnan(price)")
    assert nan_rows.column("n")[0].as_py() == int(np.isnan(price).sum())
    assert_same(engine, _rows(tmp_path / "nan.parquet", "y"), "y", methods=FEW)


def test_decimal_columns_match_in_memory_through_every_method(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    amounts = [decimal.Decimal(int(v)).scaleb(-4) for v in rng.integers(0, 10**9, n)]
    amounts[5] = None
    table = pa.table(
        {
            "amount": pa.array(amounts, type=pa.decimal128(18, 4)),
            "y": rng.choice(["p", "q", "r"], n),
        }
    )
    pq.write_table(table, tmp_path / "dec.parquet")
    rows = _rows(tmp_path / "dec.parquet", "y")
    assert rows["amount"].dtype == np.float64
    present = [a for a in amounts if a is not None]
    assert rows["amount"].dropna().tolist() == [float(a) for a in present]  # nearest floats
    assert_same(_engine(tmp_path, "dec.parquet"), rows, "y", methods=FEW)


def test_numbers_with_few_values_get_a_bin_each_as_in_memory(tmp_path):
    """A 0/1 flag with 16 % ones had one bin (its quantiles 0, ..., 0, 1, 1 have an empty
    interior); three values with a rare one, missing values and a value in one fold only
    (its training folds lack it) are binned value by value on the engine as in memory."""
    rng = np.random.default_rng(5)
    n = 600
    frame = pd.DataFrame(
        {
            "senior": (rng.random(n) < 0.16).astype(np.int64),
            "rating": rng.choice([1.0, 2.0, 3.0, np.nan], n, p=[0.6, 0.3, 0.05, 0.05]),
            "y": rng.choice(["stay", "leave"], n),
        }
    )
    frame.loc[7, "rating"] = 9.0  # one row: absent from two of the three training folds
    frame.to_parquet(tmp_path / "few.parquet", index=False)
    assert_same(_engine(tmp_path, "few.parquet"), _rows(tmp_path / "few.parquet", "y"), "y",
                methods=FEW)  # fmt: skip
    assert_same(_engine(tmp_path, "few.parquet"), _rows(tmp_path / "few.parquet", "y"), "y",
                methods=["Laplace"], missing="category")  # fmt: skip


def test_a_float_target_with_nan_has_no_nan_class_in_cross_validation(tmp_path):
    rng = np.random.default_rng(4)
    n = 240
    y = rng.integers(0, 3, n).astype(float)
    y[::11] = np.nan
    table = pa.table({"x": rng.choice(["u", "v"], n), "y": pa.array(y, from_pandas=False)})
    pq.write_table(table, tmp_path / "nan_y.parquet")
    engine = _engine(tmp_path, "nan_y.parquet")
    assert_same(engine, _rows(tmp_path / "nan_y.parquet", "y"), "y", methods=["Laplace", "AODE"])


# ------------------------------------------------------------------------ column names
def test_names_equal_but_for_case_and_row_key_names_match_in_memory(tmp_path):
    rng = np.random.default_rng(5)
    n = 240
    frame = pd.DataFrame(
        {
            "Colour": rng.choice(["r", "g"], n),
            "colour": rng.choice(["x", "y", "z"], n),
            "COLOUR": rng.normal(size=n),
            "filename": rng.choice(["f1", "f2"], n),
            "file_row_number": rng.integers(0, 4, n),
            "Y": rng.choice(["p", "q"], n),
            "y": rng.choice(["s", "t"], n),
        }
    )
    frame.to_parquet(tmp_path / "names.parquet", index=False)
    engine = _engine(tmp_path, "names.parquet")
    assert [name for name, _ in engine.columns()] == list(frame.columns)
    assert_same(engine, _rows(tmp_path / "names.parquet", "y"), "y", methods=FEW)


@pytest.mark.parametrize("column", ["__n", "__set", "__heb_f0", "__a0"])
def test_features_named_like_generated_aliases_match_in_memory(tmp_path, column):
    rng = np.random.default_rng(6)
    n = 200
    frame = pd.DataFrame(
        {
            "x": rng.choice(["u", "v"], n),
            column: rng.choice(["a", "b", "c"], n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    frame.to_parquet(tmp_path / "alias.parquet", index=False)
    engine = _engine(tmp_path, "alias.parquet")
    rows = _rows(tmp_path / "alias.parquet", "y")
    if column.startswith("__heb"):  # reserved: not read (as before)
        rows = rows.drop(columns=[column])
    assert_same(engine, rows, "y", methods=FEW)


def test_a_feature_named_like_the_scoring_scan_s_columns_is_refused_in_one_sentence(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"__y": rng.choice(["a", "b"], 60), "y": rng.choice(["p", "q"], 60)})
    frame.to_parquet(tmp_path / "clash.parquet", index=False)
    with pytest.raises(DataError) as info:
        cross_validate(_engine(tmp_path, "clash.parquet"), "y", ["Laplace"], n_splits=2)
    _one_sentence(str(info.value).replace("; ", " "))


# ------------------------------------------------------------------------------ folders
def _folder(tmp_path, parts: list) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, part in enumerate(parts):
        if isinstance(part, pa.Table):
            pq.write_table(part, folder / f"p{i}.parquet")
        else:
            part.to_parquet(folder / f"p{i}.parquet", index=False)


def test_a_folder_whose_first_file_has_an_all_missing_column_reads_the_others(tmp_path):
    rng = np.random.default_rng(8)
    n = 100
    first = pa.table({"colour": pa.nulls(n), "y": rng.choice(["p", "q"], n)})
    second = pa.table({"colour": rng.choice(["r", "g"], n), "y": rng.choice(["p", "q"], n)})
    _folder(tmp_path, [first, second])
    engine = _engine(tmp_path, "parts")
    assert dict(engine.columns())["colour"] == "text"
    rows = pa.concat_tables([first.cast(second.schema), second]).to_pandas()
    assert_same(engine, rows, "y", methods=["Laplace", "AODE"])


def test_a_folder_with_columns_equal_but_for_case_is_refused_in_one_sentence(tmp_path):
    frame = pd.DataFrame({"A": [1.0, 2.0], "a": ["x", "y"], "y": ["p", "q"]})
    _folder(tmp_path, [frame, frame])
    with pytest.raises(DataError, match="differ only in case") as info:
        open_source("parts", root=tmp_path)
    _one_sentence(str(info.value).replace("; ", " "))


def test_a_column_named_twice_in_a_file_is_refused_in_one_sentence(tmp_path):
    table = pa.Table.from_arrays(
        [pa.array([1, 2]), pa.array([3, 4]), pa.array(["p", "q"])], names=["x", "x", "y"]
    )
    pq.write_table(table, tmp_path / "twice.parquet")
    with pytest.raises(DataError, match="appears twice") as info:
        open_source("twice.parquet", root=tmp_path)
    _one_sentence(str(info.value).replace("; ", " "))


def test_a_folder_with_another_column_in_a_later_file_names_both_files(tmp_path):
    frame = pd.DataFrame({"x": ["a", "b"], "y": ["p", "q"]})
    _folder(tmp_path, [frame, frame.assign(extra=[1, 2])])
    with pytest.raises(DataError, match="'extra' is in 'p1.parquet' but not in 'p0.parquet'"):
        open_source("parts", root=tmp_path)


# -------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    engine = quiet_spark_engine()
    yield engine, tmp_path_factory.mktemp("spark_edges")
    engine.close()


def test_spark_features_named_like_aliases_and_exact_ids_match_in_memory(spark):
    engine, root = spark
    rng = np.random.default_rng(9)
    n = 200
    user = pd.array(2**60 + rng.integers(0, 4, n), dtype="Int64")
    frame = pd.DataFrame(
        {
            "__n": rng.choice(["a", "b"], n),
            "__set": rng.choice(["c", "d", "e"], n),
            "user_id": user,
            "y": rng.choice(["p", "q"], n),
        }
    )
    frame.to_parquet(root / "alias.parquet", index=False)
    engine.register(open_source("alias.parquet", root=root))
    assert_same(engine, _rows(root / "alias.parquet", "y"), "y", methods=["Laplace", "AODE"])


def test_spark_runs_the_nan_target_filter_of_a_bound_dialect(spark):
    engine, root = spark
    y = np.arange(90, dtype=float) % 2
    y[::9] = np.nan
    table = pa.table({"x": pa.array(["a", "b", "c"] * 30), "y": pa.array(y, from_pandas=False)})
    pq.write_table(table, root / "nan_y.parquet")
    engine.register(open_source("nan_y.parquet", root=root))
    bound = SPARK.bound(engine.columns())
    assert engine.table(fold_query(bound, "y", 3, SEED)).num_rows == int(np.isfinite(y).sum())
