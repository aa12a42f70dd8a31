"""Spark for a new user: quiet logs, the fix named when pyspark is missing, float IDs whose
NaN / infinities / huge values make no fraction (on DuckDB too), exact integer IDs.

The Spark tests share one ``local[1]`` session and skip without Java or pyspark (fail in
CI), as ``tests/test_scale_spark.py`` does; one test starts Spark in a child process (one
query, no Python workers), the only way to see what the JVM prints at start-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from heb.cli import main
from heb.data import is_id_like_name
from heb.data.dataset import is_integer_like
from heb.data.parquet import read_parquet
from heb.scale.counting import describe
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import fold_assignment
from heb.scale.source import open_source
from heb.scale.spark_engine import EngineError, SparkEngine
from tests.engine_agreement import SEED, assert_same_metrics
from tests.peers import require_spark

REPO = Path(__file__).resolve().parents[1]
PANDAS_WARNING = "PySpark does not yet fully support pandas"


def _float_ids(path: Path) -> dict[str, np.ndarray]:
    """Float ID columns: whole numbers with NaN / infinities / values past 2**63, all NaN
    and infinities, and a fraction beside a NaN; written to ``path`` with a target."""
    rng = np.random.default_rng(21)
    n = 60
    whole = rng.integers(0, 9, n).astype(float)
    with_nan, with_inf, huge = whole.copy(), whole.copy(), whole.copy()
    with_nan[::7] = np.nan
    with_inf[[3, 8]] = [np.inf, -np.inf]
    huge[[1, 2, 4]] = [2.0**63, -1e19, 1e300]
    no_finite = np.full(n, np.nan)
    no_finite[::5] = np.inf
    fraction = whole + 0.0
    fraction[[5, 6]] = [np.nan, 2.5]
    columns = {
        "nan_id": with_nan,
        "inf_id": with_inf,
        "huge_id": huge,
        "no_finite_id": no_finite,
        "fraction_id": fraction,
    }
    table = {k: pa.array(v, from_pandas=False) for k, v in columns.items()}
    pq.write_table(pa.table({**table, "y": rng.choice(["p", "q"], n)}), path)
    return columns


def _in_memory_kinds(columns: dict[str, np.ndarray]) -> tuple[str, ...]:
    """The kind the in-memory path gives each column (ID-like name and whole numbers)."""
    return tuple(
        "categorical" if is_id_like_name(k) and is_integer_like(pd.Series(v)) else "numeric"
        for k, v in columns.items()
    )


# ------------------------------------------------------------------------- without Spark
def test_missing_pyspark_names_the_fix(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # the import raises ImportError
    with pytest.raises(EngineError) as info:
        SparkEngine(master="local[1]")
    message = str(info.value)
    assert message == "Spark needs pyspark: pip install pyspark (and a Java runtime)."


def test_missing_pyspark_on_the_command_line_is_one_sentence(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    pd.DataFrame({"x": ["a", "b"] * 5, "y": ["p", "q"] * 5}).to_parquet(tmp_path / "t.parquet")
    argv = ["bench", str(tmp_path / "t.parquet"), "--engine", "spark", "-o", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == "heb: Spark needs pyspark: pip install pyspark (and a Java runtime)."


def test_duckdb_float_ids_with_nan_infinities_and_huge_values_match_in_memory(tmp_path):
    columns = _float_ids(tmp_path / "ids.parquet")
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("ids.parquet", root=tmp_path))
    assert describe(engine, "y").kinds == _in_memory_kinds(columns)
    assert _in_memory_kinds(columns) == ("categorical",) * 3 + ("numeric",) * 2


# --------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    require_spark()
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = SparkEngine(master="local[1]")
    assert list(warnings.filters) == filters
    yield engine, tmp_path_factory.mktemp("spark_user"), caught
    engine.close()


def test_spark_logs_errors_only_and_hides_pyspark_s_pandas_warning_in_its_calls(spark):
    engine, root, caught = spark
    jvm = engine.spark.sparkContext._jvm
    assert str(jvm.org.apache.logging.log4j.LogManager.getRootLogger().getLevel()) == "ERROR"
    frame = pd.DataFrame({"colour": ["r", "g", "b"] * 20, "y": ["p", "q", "q"] * 20})
    frame.to_parquet(root / "quiet.parquet", index=False)
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as scored:
        warnings.simplefilter("always")
        engine.register(open_source("quiet.parquet", root=root))
        assert_same_metrics(engine, frame, "y", fold_assignment(engine, "y", 2, SEED), ["Laplace"])
    assert list(warnings.filters) == filters  # the filter is not left behind
    messages = [str(w.message) for w in [*caught, *scored]]
    assert not [m for m in messages if PANDAS_WARNING in m], messages


def test_spark_float_ids_with_nan_infinities_and_huge_values_match_in_memory(spark):
    engine, root, _ = spark
    columns = _float_ids(root / "ids.parquet")
    engine.register(open_source("ids.parquet", root=root))
    assert describe(engine, "y").kinds == _in_memory_kinds(columns)


def test_spark_scoring_keeps_integer_ids_with_missing_values_exact(spark):
    """The scoring scan (``mapInArrow``, batches converted to pandas as on DuckDB) gives
    the in-memory numbers for integer IDs past 2**53 with missing values."""
    engine, root, _ = spark
    rng = np.random.default_rng(22)
    n = 150
    user = pd.array(2**60 + rng.integers(0, 3, n), dtype="Int64")  # 2**60 + k: one float
    user[::8] = pd.NA
    y = np.where(np.asarray(user.fillna(2**60)) == 2**60 + 1, "p", rng.choice(["p", "q"], n))
    pd.DataFrame({"user_id": user, "y": y}).to_parquet(root / "exact.parquet", index=False)
    engine.register(open_source("exact.parquet", root=root))
    rows = read_parquet(root / "exact.parquet", max_columns=10)
    assert_same_metrics(engine, rows, "y", fold_assignment(engine, "y", 3, SEED), ["Laplace"])


def test_spark_keeps_columns_that_differ_only_in_case(spark):
    """Spark resolves names case-insensitively by default: of 'A' and 'a' it refused the
    file (COLUMN_ALREADY_EXISTS); a session started here is case-sensitive, as pandas is."""
    engine, root, _ = spark
    rng = np.random.default_rng(23)
    frame = pd.DataFrame({"A": rng.choice(["u", "v"], 90), "a": rng.choice(["p", "q"], 90)})
    frame.to_parquet(root / "case.parquet", index=False)
    assert dict(engine.register(open_source("case.parquet", root=root))).keys() == {"A", "a"}
    assert_same_metrics(engine, frame, "a", fold_assignment(engine, "a", 3, SEED), ["Laplace"])


def test_spark_starts_without_log_lines_or_warnings(tmp_path):
    require_spark()
    pd.DataFrame({"x": ["a", "b", "c"] * 10, "y": ["p", "q"] * 15}).to_parquet(
        tmp_path / "t.parquet", index=False
    )
    script = textwrap.dedent(
        f"""
        from heb.scale import SparkEngine, open_source

        engine = SparkEngine(master="local[1]")
        engine.register(open_source("t.parquet", root={str(tmp_path)!r}))
        engine.table("SELECT count(*) AS n FROM heb_rows")
        engine.close()
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    # the JVM launcher's own line (Spark adds --add-modules=jdk.incubator.vector) stays
    lines = [s for s in done.stderr.splitlines() if s.strip()]
    noise = [s for s in lines if not s.startswith("WARNING: Using incubator modules")]
    assert not noise, done.stderr
    assert done.stdout == ""
