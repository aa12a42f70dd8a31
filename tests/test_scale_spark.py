"""Spark local[2] gives the in-memory numbers too (one shared session; Java required).

Where Java or pyspark is missing the tests skip with the reason, except under CI=true,
where a missing Spark fails: CI installs a JDK and pyspark (.ci/run).
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from heb.counts import CountTable
from heb.data import Preprocessor, encode_target
from heb.registry import TABLE1_METHODS
from heb.scale.counting import count_histograms, describe
from heb.scale.cv import cross_validate
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import cross_validate_in_memory, example_frame, fold_assignment
from heb.scale.source import open_source
from heb.scale.spark_engine import SparkEngine, driver_memory
from tests.engine_agreement import assert_same_reliability
from tests.peers import require_spark

METHODS = [*TABLE1_METHODS, "HEB-M+GR", "AODE", "HEB-AODE"]
METRICS = ["accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"]
N_SPLITS = 3


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    require_spark()
    root = tmp_path_factory.mktemp("spark")
    frame = example_frame(700, seed=9)
    frame.to_parquet(root / "mixed.parquet", index=False)
    engine = SparkEngine(master="local[2]")
    engine.spark.sparkContext.setLogLevel("ERROR")
    engine.register(open_source("mixed.parquet", root=root))
    rows = frame[frame["label"].notna()].reset_index(drop=True)
    yield engine, rows, fold_assignment(engine, "label", N_SPLITS, 42)
    engine.close()


def test_spark_count_tables_are_identical_integers(spark):
    engine, rows, folds = spark
    histograms = count_histograms(engine, describe(engine, "label"), N_SPLITS, 42)
    y, _ = encode_target(rows["label"])
    X = rows.drop(columns=["label"])
    for k in range(N_SPLITS):
        pre = Preprocessor()
        codes = pre.fit_transform(X[folds != k])
        ref = CountTable.from_codes(codes, y[folds != k], 3, n_categories=pre.n_categories_)
        table = histograms.fit_fold(k).table
        assert np.array_equal(table.counts, ref.counts)
        assert np.array_equal(table.class_counts, ref.class_counts)


def test_spark_cross_validation_equals_in_memory(spark):
    engine, rows, folds = spark
    result = cross_validate(engine, "label", METHODS, n_splits=N_SPLITS, batch_rows=150)
    reference, probas, _ = cross_validate_in_memory(
        rows, "label", folds, METHODS, return_proba=True
    )
    merged = result.folds.merge(reference, on=["method", "fold"], suffixes=("", "_ref"))
    assert len(merged) == len(METHODS) * N_SPLITS and result.engine == "spark"
    for metric in METRICS:
        np.testing.assert_allclose(merged[metric], merged[f"{metric}_ref"], rtol=0, atol=1e-9)
    # the reliability bins come back from the workers and pool as in memory
    assert_same_reliability(result, encode_target(rows["label"])[0], folds, probas, METHODS)


def test_a_session_started_here_gets_a_quarter_of_memory_for_its_driver(spark):
    """In local mode the driver's JVM runs the tasks: its default 1 GB heap ran out
    collecting 10^6 click-log rows' histograms."""
    engine, _, _ = spark
    assert engine.spark.sparkContext.getConf().get("spark.driver.memory") == driver_memory()
    megabytes = int(driver_memory().removesuffix("m"))
    assert 1024 <= megabytes <= 8192


class JobTags:
    """A stand-in session's SparkContext: the engine tags its queries' jobs."""

    def addJobTag(self, tag):  # noqa: N802 - pyspark's name
        pass


def test_a_query_whose_java_process_died_is_one_sentence():
    """py4j reports a JVM that ran out of memory mid-query as a refused connection; the
    engine says what happened and what to do (the CLI and the app print it as it is)."""
    protocol = pytest.importorskip("py4j.protocol", reason="py4j comes with pyspark")
    from heb.scale.spark_engine import EngineError

    class DeadSession:
        sparkContext = JobTags()

        def sql(self, _sql):
            raise protocol.Py4JNetworkError("An error occurred while trying to connect")

    engine = SparkEngine(session=DeadSession())
    with pytest.raises(EngineError, match=r"^Spark stopped in the middle of a query .*DuckDB\.$"):
        engine.table("SELECT 1")


def test_a_java_error_of_a_running_session_is_told_by_its_first_line():
    """Not the out-of-memory sentence: the Java process still runs, the query failed (a
    file that stopped being parquet raises SparkException, which pyspark passes on)."""
    protocol = pytest.importorskip("py4j.protocol", reason="py4j comes with pyspark")
    from heb.scale.spark_engine import EngineError

    class JavaClass:
        def getSimpleName(self):
            return "SparkException"

    class JavaException:
        _target_id = "o42"  # py4j's reference to the Java object

        def getMessage(self):
            return (
                "[FAILED_READ_FILE.NO_HINT] Encountered error while reading file x.parquet"
                "\n\tat org.apache.spark"
            )

        def getClass(self):
            return JavaClass()

        def getCause(self):
            return None

    class FailingSession:
        sparkContext = JobTags()

        def sql(self, _sql):
            raise protocol.Py4JJavaError("An error occurred while calling o1.sql", JavaException())

    engine = SparkEngine(session=FailingSession())
    with pytest.raises(EngineError) as caught:
        engine.table("SELECT 1")
    assert str(caught.value) == (
        "Spark could not run a query: [FAILED_READ_FILE.NO_HINT] Encountered error while "
        "reading file x.parquet."
    )


def test_a_file_that_stopped_being_parquet_is_one_sentence_on_a_live_session(spark, tmp_path):
    engine, _, _ = spark
    from heb.scale.spark_engine import EngineError

    example_frame(50, seed=1).to_parquet(tmp_path / "gone.parquet", index=False)
    other = SparkEngine(session=engine.spark)
    try:
        other.register(open_source("gone.parquet", root=tmp_path))
        (tmp_path / "gone.parquet").write_bytes(b"not parquet any more")
        with pytest.raises(EngineError, match=r"^Spark could not run a query: .+\.$") as caught:
            other.table("SELECT count(*) FROM heb_rows")
        assert "out of memory" not in str(caught.value)
        assert "is not a Parquet file" in str(caught.value)  # the innermost cause
        assert engine.spark.range(3).count() == 3  # the session lives on
    finally:
        engine.register(engine.source)  # the module's view again


def test_a_tab_separated_file_is_read_by_its_delimiter_on_spark(spark, tmp_path):
    """Spark read every CSV source with ",": a .tsv became one column named
    "x<TAB>y<TAB>label" (the engine's sniffed delimiter is now Spark's too)."""
    engine, _, _ = spark
    rows = ["x\ty\tlabel"] + [f"v{i % 3}\t{i % 5}\t{'ab'[i % 2]}" for i in range(40)]
    (tmp_path / "t.tsv.gz").write_bytes(gzip.compress("\n".join(rows).encode()))
    other = SparkEngine(session=engine.spark)
    try:
        columns = other.register(open_source("t.tsv.gz", root=tmp_path))
        assert [name for name, _ in columns] == ["x", "y", "label"]
        sql = "SELECT label, count(*) AS n FROM heb_rows GROUP BY label ORDER BY label"
        assert other.table(sql).column("n").to_pylist() == [20, 20]
    finally:
        engine.register(engine.source)  # the session's view is one: the module's again


def test_spark_takes_the_same_fallback_targets_as_duckdb(spark, tmp_path):
    """The Dataset page's rule for a last column that cannot be the target, in Spark SQL:
    both engines' ``approx_count_distinct`` screen, then exact counts."""
    from heb.scale.target_choice import fallback_targets

    engine, _, _ = spark
    example_frame(700, seed=9).to_parquet(tmp_path / "mixed.parquet", index=False)
    duck = DuckDBEngine(threads=1)
    try:
        duck.register(open_source("mixed.parquet", root=tmp_path))
        expected = fallback_targets(duck)
    finally:
        duck.close()
    assert expected and fallback_targets(engine) == expected


def test_spark_takes_a_float_flag_as_duckdb_does(spark, tmp_path):
    """Floats of whole numbers are a fallback target on both engines, NaN no value of
    theirs (1.0, 2.0 and NaN: 2 values); floats with fractions are not."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from heb.scale.target_choice import fallback_targets

    engine, _, _ = spark
    rng = np.random.default_rng(4)
    n = 90
    table = pa.table(
        {
            "halves": pa.array(rng.choice([0.5, 1.5, 2.5], n)),
            "grade": pa.array(rng.choice([1.0, 2.0, np.nan], n), from_pandas=False),
            "customer": pa.array([f"c{i}" for i in range(n)]),
        }
    )
    pq.write_table(table, tmp_path / "floats.parquet")
    other = SparkEngine(session=engine.spark)
    try:
        other.register(open_source("floats.parquet", root=tmp_path))
        assert fallback_targets(other) == [("grade", "whole numbers", 2)]
    finally:
        engine.register(engine.source)  # the module's view again


def test_interrupt_stops_the_running_query_and_every_later_one_of_this_engine_alone(spark):
    """Ctrl-C in ``heb bench --engine spark`` (heb.cli_scale.ctrl_c_stops_the_query):
    the engine's jobs are cancelled by their tag, so another engine on the same session
    (a cluster's, shared) runs on."""
    import threading
    import time

    engine, _, _ = spark
    mine, other = SparkEngine(session=engine.spark), SparkEngine(session=engine.spark)
    endless = "SELECT sum(sqrt(id)) AS s FROM range(300000000000)"  # hours on two cores
    outcome: dict = {}

    def run(name, own):
        started = time.monotonic()
        try:
            own.table(endless)
            outcome[name] = "finished"
        except KeyboardInterrupt:
            outcome[name] = time.monotonic() - started
        except Exception as exc:  # noqa: BLE001 - reported by the assertion
            outcome[name] = exc

    threads = [threading.Thread(target=run, args=("mine", mine))]
    threads.append(threading.Thread(target=run, args=("other", other), daemon=True))
    for thread in threads:
        thread.start()
    try:
        time.sleep(3.0)
        mine.interrupt()
        threads[0].join(60.0)
        assert isinstance(outcome.get("mine"), float), outcome  # KeyboardInterrupt, in s
        assert "other" not in outcome  # the other engine's query still runs
        with pytest.raises(KeyboardInterrupt):
            mine.table("SELECT 1")  # no later query starts
        other.interrupt()
        threads[1].join(60.0)
        assert isinstance(outcome.get("other"), float), outcome
        assert engine.table("SELECT 1 AS one").to_pylist() == [{"one": 1}]  # the session lives
    finally:  # never leave an endless query on the module's session (a broken tag too)
        mine.interrupt()
        other.interrupt()
        engine.spark.sparkContext.cancelAllJobs()
