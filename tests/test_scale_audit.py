"""Audit of the large-data path (``heb.scale``) on inputs the other scale tests do not cover.

Each case compares the engine path with the in-memory path on the same folds, the in-memory
rows read as the app reads the same file (``heb.data.readers.read_table`` for CSV,
``heb.data.parquet.read_parquet`` for parquet). The bugs the audit found are fixed; each
case now holds. Spark tests share one ``local[1]`` session and skip without Java or
pyspark (fail in CI), as ``tests/test_scale_spark.py`` does.
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
from heb.data.readers import read_table
from heb.registry import METHODS as REGISTERED
from heb.scale.counting import describe
from heb.scale.cv import cross_validate
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import fold_assignment
from heb.scale.source import open_source
from tests.engine_agreement import (
    SEED,
    assert_same,
    assert_same_counts,
    assert_same_metrics,
    quiet_spark_engine,
)

pytest.importorskip("duckdb")

METHODS = [name for name, m in REGISTERED.items() if m.family in ("nb", "aode")]
FEW = ["Laplace", "HEB-M", "AODE"]


# ----------------------------------------------------------------------------- helpers
def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source(name, root=root))
    return engine


def _one_sentence(message: str) -> None:
    assert message.count(". ") == 0 and message.endswith(".") and "\n" not in message, message


def _csv_rows(path, target: str) -> pd.DataFrame:
    """The rows of a CSV as the app's in-memory reader gives them (target present)."""
    rows = read_table(path.read_bytes(), path.name)
    return rows[rows[target].notna()].reset_index(drop=True)


def _parquet_rows(path, target: str) -> pd.DataFrame:
    rows = read_parquet(path, max_columns=100)
    return rows[rows[target].notna()].reset_index(drop=True)


def _folds_for(root, name: str, n: int, k: int) -> np.ndarray:
    """The folds the rows of a parquet file ``name`` of ``n`` rows will get (they hash the
    file name and row number only), so a test can place values in chosen folds."""
    pd.DataFrame({"y": ["a"] * n}).to_parquet(root / name, index=False)
    return fold_assignment(_engine(root, name), "y", k, SEED)


def _csv(path, header: list[str], columns, sep: str = ",", bom: bool = False, enc="utf-8"):
    """Write ``columns`` (one sequence per header name) as a delimited text file."""
    rows = zip(*columns, strict=True)
    lines = [sep.join(header)] + [sep.join(str(v) for v in row) for row in rows]
    path.write_bytes((("\ufeff" if bom else "") + "\n".join(lines) + "\n").encode(enc))
    return path


def _csv_columns(n: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "blue", "green"], n)
    price = np.round(rng.gamma(2.0, 3.0, n), 1)
    y = rng.choice(["buy", "stay"], n)
    return colour, price, y


# ------------------------------------------------------------------- edge cases that hold
@pytest.mark.parametrize("missing", ["impute", "category"])
def test_missing_unseen_and_tied_values_placed_in_chosen_folds_match_in_memory(tmp_path, missing):
    """Missing values (NULL, NaN) and empty strings in one test fold only, a category and an
    ID in one fold only, a value beyond the training range, heavy ties at the quantile
    edges, a nullable boolean, a constant and a category per row, three classes."""
    n, k = 360, 4
    folds = _folds_for(tmp_path, "f.parquet", n, k)
    rng = np.random.default_rng(9)
    colour = rng.choice(["red", "blue", "", "green"], n).astype(object)
    colour[(folds == 0) & (rng.random(n) < 0.3)] = None
    colour[np.flatnonzero(folds == 1)[:3]] = "violet"
    ties = rng.choice([0.0, 1.0, 1.0, 1.0, 1.0, 2.0, 5.0], n)
    ties[(folds == 0) & (rng.random(n) < 0.3)] = np.nan
    ties[np.flatnonzero(folds == 2)[:2]] = 1e6
    shop_id = rng.integers(0, 6, n)
    shop_id[np.flatnonzero(folds == 3)[:4]] = 99
    member = pd.array(rng.random(n) < 0.4, dtype="boolean")
    member[::8] = pd.NA
    frame = pd.DataFrame(
        {
            "colour": colour,
            "ties": ties,
            "shop_id": shop_id,
            "member": member,
            "const": np.ones(n),
            "row_id": np.arange(n),
            "label": rng.choice(["a", "b", "c"], n, p=[0.5, 0.4, 0.1]),
        }
    )
    frame.to_parquet(tmp_path / "f.parquet", index=False)
    engine = _engine(tmp_path, "f.parquet")
    assert np.array_equal(fold_assignment(engine, "label", k, SEED), folds)
    rows = _parquet_rows(tmp_path / "f.parquet", "label")
    assert_same(engine, rows, "label", k, METHODS, missing)


def test_column_names_with_spaces_quotes_keywords_and_unicode_match_in_memory(tmp_path):
    rng = np.random.default_rng(2)
    n = 240
    frame = pd.DataFrame(
        {
            "my col": rng.choice(["a", "b"], n),
            'say "hi"': rng.integers(0, 5, n),
            "select": rng.normal(size=n).round(1),
            "größe ü": rng.choice(["x", "z"], n),
            "a.b": rng.normal(size=n).round(1),
            "it's": rng.choice(["u", "v"], n),
            "group": rng.choice(["k", "l"], n),
            "order by": rng.choice(["c1", "c2", "c3"], n),
        }
    )
    frame.to_parquet(tmp_path / "names.parquet", index=False)
    engine = _engine(tmp_path, "names.parquet")
    assert_same(engine, _parquet_rows(tmp_path / "names.parquet", "order by"), "order by")


def test_a_numeric_target_matches_in_memory(tmp_path):
    rng = np.random.default_rng(3)
    n = 240
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["r", "g"], n),
            "v": rng.normal(size=n),
            "grade": rng.integers(1, 4, n),
        }
    )
    frame.to_parquet(tmp_path / "num.parquet", index=False)
    engine = _engine(tmp_path, "num.parquet")
    assert_same(engine, _parquet_rows(tmp_path / "num.parquet", "grade"), "grade")


@pytest.mark.parametrize("variant", ["bom", "semicolon", "tsv", "crlf", "quoted_empty", "int_y"])
def test_csv_variants_match_the_in_memory_reader(tmp_path, variant):
    n = 240
    colour, price, y = _csv_columns(n)
    colour = colour.astype(object)
    if variant == "quoted_empty":
        colour[::7] = '""'
    if variant == "int_y":
        y = np.random.default_rng(4).integers(0, 3, n)
    sep = {"semicolon": ";", "tsv": "\t"}.get(variant, ",")
    name = "data.tsv" if variant == "tsv" else "data.csv"
    bom = variant == "bom"
    path = _csv(tmp_path / name, ["colour", "price", "y"], [colour, price, y], sep, bom=bom)
    if variant == "crlf":
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert_same(_engine(tmp_path, name), _csv_rows(path, "y"), "y")


def test_bom_before_the_target_column_name(tmp_path):
    colour, price, y = _csv_columns(120)
    path = _csv(tmp_path / "b.csv", ["y", "colour", "price"], [y, colour, price], bom=True)
    assert_same(_engine(tmp_path, "b.csv"), _csv_rows(path, "y"), "y", methods=["Laplace"])


def test_a_class_with_fewer_rows_than_folds_matches_in_memory(tmp_path):
    rng = np.random.default_rng(5)
    n = 150
    y = np.array(["a"] * 70 + ["b"] * 77 + ["c"] * 3, dtype=object)
    rng.shuffle(y)
    frame = pd.DataFrame({"x": rng.choice(["u", "v", "w"], n), "v": rng.normal(size=n), "y": y})
    frame.to_parquet(tmp_path / "rare.parquet", index=False)
    engine = _engine(tmp_path, "rare.parquet")
    folds = fold_assignment(engine, "y", 5, SEED)
    assert len(set(folds[y == "c"])) < 5  # some test folds hold no row of class c
    assert_same(engine, _parquet_rows(tmp_path / "rare.parquet", "y"), "y", 5, METHODS)


def test_fewer_rows_than_folds_is_one_sentence(tmp_path):
    frame = pd.DataFrame({"x": ["a", "b", "a", "b"], "y": ["p", "q", "p", "q"]})
    frame.to_parquet(tmp_path / "tiny.parquet", index=False)
    engine = _engine(tmp_path, "tiny.parquet")
    with pytest.raises(DataError, match="received no rows; use fewer folds for 4 rows") as info:
        cross_validate(engine, "y", ["Laplace"], n_splits=10)
    _one_sentence(str(info.value).replace("; ", " "))


def test_a_folder_with_an_empty_file_and_reordered_columns_matches_in_memory(tmp_path):
    rng = np.random.default_rng(6)
    n = 200
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["r", "g", "b"], n),
            "v": rng.normal(size=n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    folder = tmp_path / "parts"
    folder.mkdir()
    frame.iloc[:90].to_parquet(folder / "a.parquet", index=False)
    frame.iloc[:0].to_parquet(folder / "b.parquet", index=False)  # no rows
    frame.iloc[90:][["y", "v", "colour"]].to_parquet(folder / "c.parquet", index=False)
    assert_same(_engine(tmp_path, "parts"), frame, "y")


# ----------------------------------------------------------------- bugs: parquet and folders
def test_integer_ids_beyond_2_53_stay_distinct(tmp_path):
    rng = np.random.default_rng(0)
    n = 240
    user_id = 2**60 + rng.integers(0, 4, n)  # four IDs one apart
    frame = pd.DataFrame({"user_id": user_id, "y": np.where(user_id % 2 == 0, "a", "b")})
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    engine = _engine(tmp_path, "ids.parquet")
    assert_same_counts(engine, _parquet_rows(tmp_path / "ids.parquet", "y"), "y", 3)


def test_a_nan_in_a_float_target_is_a_missing_target(tmp_path):
    rng = np.random.default_rng(1)
    n = 200
    y = rng.integers(0, 2, n).astype(float)
    y[::17] = np.nan
    table = pa.table(
        {"x": rng.integers(0, 4, n).astype(float), "y": pa.array(y, from_pandas=False)}
    )
    pq.write_table(table, tmp_path / "nan_y.parquet")
    result = cross_validate(_engine(tmp_path, "nan_y.parquet"), "y", ["Laplace"], n_splits=3)
    assert list(result.classes) == [0.0, 1.0]
    assert result.n_rows == int(np.isfinite(y).sum())


def test_an_all_null_typed_column_is_dropped_as_in_memory(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    table = pa.table(
        {"x": rng.choice(["a", "b"], n), "note": pa.nulls(n), "y": rng.choice(["p", "q"], n)}
    )
    pq.write_table(table, tmp_path / "nulls.parquet")
    engine = _engine(tmp_path, "nulls.parquet")
    assert_same_counts(engine, _parquet_rows(tmp_path / "nulls.parquet", "y"), "y", 3)


def test_a_file_whose_text_column_is_all_missing_does_not_refuse_the_folder(tmp_path):
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame(
        {"colour": rng.choice(["r", "g"], n).astype(object), "y": rng.choice(["p", "q"], n)}
    )
    frame.loc[100:, "colour"] = None
    folder = tmp_path / "parts"
    folder.mkdir()
    frame.iloc[:100].to_parquet(folder / "a.parquet", index=False)
    second = frame.iloc[100:].copy()
    second["colour"] = pd.Series([None] * 100, dtype=object, index=second.index)
    second.to_parquet(folder / "b.parquet", index=False)
    assert pq.read_schema(folder / "b.parquet").field("colour").type == pa.null()
    assert_same_counts(_engine(tmp_path, "parts"), frame, "y", 3)


def _folder_without(tmp_path, first_has_column: bool):
    rng = np.random.default_rng(4)
    n = 200
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["r", "g"], n),
            "v": rng.normal(size=n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    folder = tmp_path / "parts"
    folder.mkdir()
    first, second = frame.iloc[:100], frame.iloc[100:]
    if first_has_column:
        second = second.drop(columns=["colour"])
    else:
        first = first.drop(columns=["colour"])
    first.to_parquet(folder / "a.parquet", index=False)
    second.to_parquet(folder / "b.parquet", index=False)


def test_a_column_missing_from_a_later_file_is_one_sentence(tmp_path):
    _folder_without(tmp_path, first_has_column=True)
    with pytest.raises(DataError) as info:
        engine = _engine(tmp_path, "parts")
        cross_validate(engine, "y", ["Laplace"], n_splits=2)
    _one_sentence(str(info.value).replace("; ", " "))


def test_a_column_missing_from_the_first_file_is_not_silently_dropped(tmp_path):
    _folder_without(tmp_path, first_has_column=False)
    try:
        engine = _engine(tmp_path, "parts")
    except DataError:
        return  # refusing the folder in one sentence is a fix too
    assert "colour" in dict(engine.columns())


@pytest.mark.parametrize("column", ["filename", "file_row_number"])
def test_a_parquet_column_named_like_duckdb_s_row_key_is_read(tmp_path, column):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {column: rng.integers(0, 3, 120).astype(str), "y": rng.choice(["p", "q"], 120)}
    )
    frame.to_parquet(tmp_path / "key.parquet", index=False)
    assert_same_counts(_engine(tmp_path, "key.parquet"), frame, "y", 3)


@pytest.mark.parametrize("column", ["__y", "__fold"])
def test_a_feature_named_like_an_internal_alias(tmp_path, column):
    rng = np.random.default_rng(6)
    frame = pd.DataFrame(
        {
            column: rng.choice(["a", "b"], 120),
            "x": rng.choice(["u", "v"], 120),
            "y": rng.choice(["p", "q"], 120),
        }
    )
    frame.to_parquet(tmp_path / "alias.parquet", index=False)
    assert_same_counts(_engine(tmp_path, "alias.parquet"), frame, "y", 3)


def test_columns_differing_only_in_case_keep_their_names(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"A": rng.normal(size=120), "a": rng.choice(["p", "q"], 120)})
    frame.to_parquet(tmp_path / "case.parquet", index=False)
    assert_same_counts(_engine(tmp_path, "case.parquet"), frame, "a", 3)


def test_a_decimal_column_is_the_same_kind_on_both_paths(tmp_path):
    rng = np.random.default_rng(8)
    n = 240
    amounts = [decimal.Decimal(str(v)) for v in np.round(rng.gamma(2.0, 3.0, n), 2)]
    table = pa.table(
        {"amount": pa.array(amounts, type=pa.decimal128(9, 2)), "y": rng.choice(["p", "q"], n)}
    )
    pq.write_table(table, tmp_path / "dec.parquet")
    engine = _engine(tmp_path, "dec.parquet")
    assert_same_counts(engine, _parquet_rows(tmp_path / "dec.parquet", "y"), "y", 3)


def test_aode_with_an_infinity_in_a_float_id_column_matches_in_memory(tmp_path):
    n, k = 300, 3
    folds = _folds_for(tmp_path, "inf.parquet", n, k)
    rng = np.random.default_rng(9)
    store_id = rng.choice([1.0, 2.0, 3.0], n)
    store_id[np.flatnonzero(folds == 2)[:3]] = np.inf
    frame = pd.DataFrame(
        {
            "store_id": store_id,
            "colour": rng.choice(["r", "g"], n),
            "y": rng.choice(["a", "b", "c"], n),
        }
    )
    frame.to_parquet(tmp_path / "inf.parquet", index=False)
    engine = _engine(tmp_path, "inf.parquet")
    rows = _parquet_rows(tmp_path / "inf.parquet", "y")
    folds = assert_same_counts(engine, rows, "y", k)  # the counts agree
    assert_same_metrics(engine, rows, "y", folds, ["AODE", "HEB-AODE"])


def test_all_rows_in_one_fold_names_the_folds(tmp_path):
    frame = pd.DataFrame(
        {"x": ["a", "b", "a", "b"], "v": [1.0, 2, 3, 4], "y": ["p", "q", "p", "q"]}
    )
    frame.to_parquet(tmp_path / "tiny.parquet", index=False)
    engine = _engine(tmp_path, "tiny.parquet")
    assert len(set(fold_assignment(engine, "y", 3, SEED))) == 1
    with pytest.raises(DataError, match="received no rows"):
        cross_validate(engine, "y", ["Laplace"], n_splits=3)


# ------------------------------------------------------------------------------ bugs: CSV
def test_csv_missing_value_tokens_are_missing(tmp_path):
    n = 240
    colour, price, y = _csv_columns(n)
    colour, price = colour.astype(object), price.astype(object)
    price[::13], price[::17], colour[::11] = "NA", "?", "NA"
    path = _csv(tmp_path / "na.csv", ["colour", "price", "y"], [colour, price, y])
    assert_same_counts(_engine(tmp_path, "na.csv"), _csv_rows(path, "y"), "y", 3)


def test_csv_decimal_commas_are_numbers(tmp_path):
    colour, price, y = _csv_columns(240)
    commas = [str(p).replace(".", ",") for p in price]
    path = _csv(tmp_path / "semi.csv", ["colour", "price", "y"], [colour, commas, y], ";")
    assert_same_counts(_engine(tmp_path, "semi.csv"), _csv_rows(path, "y"), "y", 3)


def test_csv_spaces_around_text_cells_are_stripped(tmp_path):
    rng = np.random.default_rng(10)
    colour = rng.choice(["red", " red", "blue", "blue "], 160)
    path = _csv(tmp_path / "sp.csv", ["colour", "y"], [colour, rng.choice(["p", "q"], 160)])
    assert_same_counts(_engine(tmp_path, "sp.csv"), _csv_rows(path, "y"), "y", 3)


def test_csv_yes_no_target_keeps_its_labels(tmp_path):
    colour, price, _ = _csv_columns(160)
    y = np.random.default_rng(11).choice(["yes", "no"], 160)
    _csv(tmp_path / "yn.csv", ["colour", "price", "y"], [colour, price, y])
    result = cross_validate(_engine(tmp_path, "yn.csv"), "y", ["Laplace"], n_splits=2)
    assert list(result.classes) == ["no", "yes"]


def test_csv_text_after_the_type_sample_is_read_or_refused_in_one_sentence(tmp_path):
    n = 30_000
    rng = np.random.default_rng(12)
    x = rng.integers(0, 50, n).astype(object)
    x[-3:] = "unknown"
    path = _csv(tmp_path / "late.csv", ["x", "y"], [x, rng.choice(["p", "q"], n)])
    engine = _engine(tmp_path, "late.csv")
    try:
        assert_same_counts(engine, _csv_rows(path, "y"), "y", 2)
    except DataError as exc:
        _one_sentence(str(exc).replace("; ", " "))


def test_a_csv_that_is_not_utf8_is_read_or_refused_in_one_sentence(tmp_path):
    columns = [["café", "thé"] * 30, ["p", "q"] * 30]
    path = _csv(tmp_path / "latin.csv", ["x", "y"], columns, enc="cp1252")
    try:
        assert_same_counts(_engine(tmp_path, "latin.csv"), _csv_rows(path, "y"), "y", 2)
    except DataError as exc:
        _one_sentence(str(exc).replace("; ", " "))


def test_a_ragged_csv_names_the_row_not_a_missing_column(tmp_path):
    x = ["a", "b"] * 10 + ["c"] + ["a"] * 5
    y = ["p", "q"] * 10 + ["p,extra"] + ["q"] * 5
    _csv(tmp_path / "ragged.csv", ["x", "y"], [x, y])
    try:
        engine = _engine(tmp_path, "ragged.csv")
        cross_validate(engine, "y", ["Laplace"], n_splits=2)
    except DataError as exc:
        assert "no column" not in str(exc)
        _one_sentence(str(exc).replace("; ", " "))


# --------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    engine = quiet_spark_engine()
    yield engine, tmp_path_factory.mktemp("spark_audit")
    engine.close()


def test_spark_column_names_with_spaces_quotes_and_unicode_match_in_memory(spark):
    engine, root = spark
    rng = np.random.default_rng(13)
    n = 200
    colour = rng.choice(["a", "b", ""], n).astype(object)
    colour[::9] = None
    frame = pd.DataFrame(
        {
            "my col": colour,
            'q"x': rng.normal(size=n).round(1),
            "größe": pd.array(rng.random(n) < 0.5, dtype="boolean"),
            "group": rng.choice(["c1", "c2"], n),
        }
    )
    frame.to_parquet(root / "names.parquet", index=False)
    engine.register(open_source("names.parquet", root=root))
    rows = _parquet_rows(root / "names.parquet", "group")
    assert_same(engine, rows, "group", methods=["Laplace"])


def _float_ids(root, values: np.ndarray) -> None:
    rng = np.random.default_rng(14)
    table = pa.table(
        {"user_id": pa.array(values, from_pandas=False), "y": rng.choice(["p", "q"], values.size)}
    )
    pq.write_table(table, root / "float_ids.parquet")


def test_spark_float_ids_with_nan_are_categorical(spark):
    engine, root = spark
    ids = np.random.default_rng(15).integers(0, 9, 120).astype(float)
    ids[::10] = np.nan
    _float_ids(root, ids)
    engine.register(open_source("float_ids.parquet", root=root))
    assert describe(engine, "y").kinds == ("categorical",)


def test_spark_float_ids_with_an_infinity_are_categorical(spark):
    engine, root = spark
    ids = np.random.default_rng(16).integers(0, 9, 120).astype(float)
    ids[5] = np.inf
    _float_ids(root, ids)
    engine.register(open_source("float_ids.parquet", root=root))
    assert describe(engine, "y").kinds == ("categorical",)


@pytest.mark.parametrize("column", ["a.b", "it`s"])
def test_spark_a_dot_or_backtick_in_a_column_name(spark, column):
    engine, root = spark
    rng = np.random.default_rng(17)
    frame = pd.DataFrame({column: rng.choice(["u", "v"], 120), "y": rng.choice(["p", "q"], 120)})
    frame.to_parquet(root / "tick.parquet", index=False)
    engine.register(open_source("tick.parquet", root=root))
    assert_same(engine, frame, "y", methods=["Laplace"])
