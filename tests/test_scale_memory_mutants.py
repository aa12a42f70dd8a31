"""The memory work of the scale path does what it says (mutation-tested).

Results do not show whether an ID column is coded on machine integers, whether freed memory
goes back, how large the scoring chunks are, or whether a stacked model keeps its dense
table twice; these tests check each where it is decided: integer-ID histograms
(:mod:`heb.scale.encoding`), :mod:`heb.scale.memory` (physical memory, giving freed pages
back), the engines' memory settings, the chunking and releases of
:func:`heb.scale.cv.cross_validate` on DuckDB, :class:`heb.scale.scoring.StackedNB` and
the Spark engine's report of a query whose Java process died (fake sessions: no JVM).
"""

from __future__ import annotations

import platform
import re

import numpy as np
import pandas as pd
import pytest

from heb.counts import CountTable
from heb.nb import NaiveBayes
from heb.scale import cv, duckdb_engine, memory
from heb.scale.encoding import FeatureValues
from heb.scale.scoring import StackedNB

GiB = 2**30


# ------------------------------------------------------------------ physical memory
@pytest.fixture
def no_cgroup(monkeypatch):
    """The host's figures alone, whatever container the tests run in."""
    monkeypatch.setattr(memory, "CGROUP_LIMIT_FILES", ())


def test_physical_memory_is_page_size_times_pages(monkeypatch, no_cgroup):
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 1000}
    monkeypatch.setattr(memory.os, "sysconf", pages.__getitem__)
    assert memory.physical_memory() == 4_096_000


@pytest.mark.parametrize("error", [ValueError, OSError, AttributeError])
def test_physical_memory_is_8_gib_where_the_system_does_not_say(monkeypatch, no_cgroup, error):
    def unknown(name):
        raise error(name)

    monkeypatch.setattr(memory.os, "sysconf", unknown)
    assert memory.physical_memory() == 8 * GiB


@pytest.mark.parametrize(
    ("physical", "limit"),
    [
        (512 * 2**20, "256MB"),  # a quarter is 128 MB: the floor
        (8 * GiB, "2048MB"),  # a quarter, in MiB
        (64 * GiB, "4096MB"),  # a quarter is 16 GB: the cap
    ],
)
def test_duckdb_takes_a_quarter_of_memory_within_256_mb_and_4_gb(monkeypatch, physical, limit):
    monkeypatch.setattr(duckdb_engine, "physical_memory", lambda: physical)
    assert duckdb_engine.default_memory_limit() == limit


@pytest.mark.parametrize(
    "v2, v1, expected",
    [
        ("2147483648\n", None, 2 * GiB),  # a 2 GiB container (cgroup v2)
        ("8589934592\n", None, 4 * GiB),  # a limit above the host's memory
        ("max\n", None, 4 * GiB),  # v2 without a limit
        (None, "1073741824\n", GiB),  # cgroup v1
        (None, "9223372036854771712\n", 4 * GiB),  # v1's "no limit"
        (None, None, 4 * GiB),  # neither file: not Linux, or no memory controller
        ("0\n", None, 4 * GiB),  # nonsense is no limit
    ],
)
def test_a_containers_memory_limit_caps_the_hosts(monkeypatch, tmp_path, v2, v1, expected):
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 2**20}  # a 4 GiB host
    monkeypatch.setattr(memory.os, "sysconf", pages.__getitem__)
    files = []
    for name, text in (("memory.max", v2), ("memory.limit_in_bytes", v1)):
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        files.append(str(path))
    monkeypatch.setattr(memory, "CGROUP_LIMIT_FILES", tuple(files))
    assert memory.physical_memory() == expected


# ------------------------------------------------------------------ integer ID histograms
@pytest.mark.parametrize("dtype", ["Int64", "UInt64"])
def test_an_id_columns_histogram_is_coded_on_machine_integers(dtype):
    """8 bytes an ID, not a Python int each: 43 bytes a histogram row at the peak here,
    82 - 87 where the values (or an unsigned column's lookups) go through Python ints."""
    import tracemalloc

    rows = 100_000
    rng = np.random.default_rng(0)
    ids = rng.integers(2**40, 2**62, rows // 4)  # device-like IDs, a few rows each
    raw = pd.Series(pd.array(ids[rng.integers(0, ids.size, rows)], dtype=dtype))
    raw[::50] = pd.NA
    fold, y, n = np.zeros(rows, np.int16), np.zeros(rows, np.int32), np.ones(rows)
    tracemalloc.start()
    try:
        values = FeatureValues.from_histogram("id", "categorical", True, raw, fold, y, n, True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert values.keys.dtype == np.int64
    assert peak / rows < 64


def test_an_infinite_id_is_unread_not_missing():
    """A float ID column's infinity reads as missing but is not one: slot D + 1, apart
    from the missing slot D (the general path, beside the integer one)."""
    raw = pd.Series([7.0, np.inf, np.nan, 7.0, 2.0])
    fold, y, n = np.zeros(5, int), np.zeros(5, int), np.ones(5)
    values = FeatureValues.from_histogram("user_id", "categorical", True, raw, fold, y, n, False)
    assert values.keys.tolist() == [7.0, 2.0]
    assert values.slot.tolist() == [0, 3, 2, 0, 1]


def test_the_counting_result_keeps_its_fold_column_in_two_bytes():
    """Each set's fold numbers come out as int16 (as FeatureValues keeps them), exact
    for hundreds of folds."""
    import pyarrow as pa

    from heb.scale.counting import Columns, _split_sets
    from heb.scale.sql import feature_alias

    batch = pa.RecordBatch.from_pydict(
        {
            "__heb_set": pa.array([0, 1, 0, 1], pa.int64()),
            "__heb_fold": pa.array([299, 299, 128, 3], pa.int64()),
            "__heb_y": ["a", "a", "b", "b"],
            "__heb_n": [2.0, 2.0, 1.0, 1.0],
            feature_alias(0): ["x", None, "y", None],
            feature_alias(1): pa.array([None, 5, None, 6], pa.int64()),
        }
    )
    columns = Columns("label", ("colour", "visits"), ("categorical", "numeric"), (False, True))
    parts = {name: fold for _, name, _, fold, _, _ in _split_sets([batch], columns)}
    assert parts["colour"].dtype == np.int16 and parts["colour"].tolist() == [299, 128]
    assert parts["visits"].dtype == np.int16 and parts["visits"].tolist() == [299, 3]


# ------------------------------------------------------------------ giving memory back
class _Pool:
    """Arrow's memory pool, counting ``release_unused`` calls."""

    def __init__(self):
        self.released = 0

    def release_unused(self):
        self.released += 1


def test_release_gives_back_arrows_pool_and_mallocs_free_pages(monkeypatch):
    import pyarrow

    pool, trims = _Pool(), []
    monkeypatch.setattr(pyarrow, "default_memory_pool", lambda: pool)
    monkeypatch.setattr(memory, "_malloc_trim", lambda: trims.append)
    memory.release_freed_memory()
    assert pool.released == 1
    assert trims == [0]  # no padding kept at the top of the heap


def test_release_without_malloc_trim_still_gives_back_arrows_pool(monkeypatch):
    import pyarrow

    pool = _Pool()
    monkeypatch.setattr(pyarrow, "default_memory_pool", lambda: pool)
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    memory.release_freed_memory()
    assert pool.released == 1


@pytest.fixture
def fresh_malloc_trim():
    """``_malloc_trim`` looked up again (it is cached per process), and forgotten after."""
    forget = getattr(memory._malloc_trim, "cache_clear", lambda: None)
    forget()
    yield memory._malloc_trim
    forget()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_has_malloc_trim(fresh_malloc_trim):
    trim = fresh_malloc_trim()
    assert trim is not None
    assert trim(0) in (0, 1)  # 1: memory was given back, 0: there was none to give


class _LibraryWithoutTrim:
    """A C library (musl, macOS) without ``malloc_trim``."""


def test_no_malloc_trim_without_a_c_library(monkeypatch, fresh_malloc_trim):
    monkeypatch.setattr(memory.ctypes.util, "find_library", lambda name: None)
    assert fresh_malloc_trim() is None


def test_no_malloc_trim_in_another_c_library(monkeypatch, fresh_malloc_trim):
    monkeypatch.setattr(memory.ctypes.util, "find_library", lambda name: "libc.so")
    monkeypatch.setattr(memory.ctypes, "CDLL", lambda name: _LibraryWithoutTrim())
    assert fresh_malloc_trim() is None


def test_no_malloc_trim_when_the_c_library_does_not_load(monkeypatch, fresh_malloc_trim):
    def unloadable(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(memory.ctypes.util, "find_library", lambda name: "libc.so")
    monkeypatch.setattr(memory.ctypes, "CDLL", unloadable)
    assert fresh_malloc_trim() is None


# ------------------------------------------------------------------ scoring in chunks
N_SPLITS = 3
METHODS = ["Laplace", "HEB-M+GR"]
_SCORED = re.compile(r"^Scoring fold (\d) of \d: ([\d,]+) of ([\d,]+) rows$")


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    pytest.importorskip("duckdb")
    from heb.scale.inmemory import example_frame
    from heb.scale.source import open_source

    root = tmp_path_factory.mktemp("chunks")
    example_frame(300, seed=5).to_parquet(root / "mixed.parquet", index=False)
    engine = duckdb_engine.DuckDBEngine(memory_limit="256MB", threads=1)
    engine.register(open_source("mixed.parquet", root=root))
    return engine


def _run(engine, **options) -> tuple[pd.DataFrame, list[str]]:
    """The folds' metrics and the progress messages of a cross-validation."""
    messages: list[str] = []
    result = cv.cross_validate(
        engine,
        "label",
        METHODS,
        n_splits=N_SPLITS,
        progress=lambda _fraction, message: messages.append(message),
        **options,
    )
    return result.folds, messages


def _chunk_sizes(messages: list[str]) -> dict[int, list[int]]:
    """Per fold, the rows of each scored chunk (from the "Scoring fold" messages)."""
    done: dict[int, list[int]] = {}
    for message in messages:
        match = _SCORED.match(message)
        if match:
            done.setdefault(int(match[1]), []).append(int(match[2].replace(",", "")))
    return {fold: np.diff([0, *rows]).tolist() for fold, rows in done.items()}


@pytest.fixture
def chunk_of_40(monkeypatch):
    """``_chunk_rows`` answering 40 rows, recording what it was asked."""
    asked: list[tuple] = []

    def forty(*args, **kwargs):
        asked.append(args)
        return 40

    monkeypatch.setattr(cv, "_chunk_rows", forty)
    return asked


def test_the_memory_sized_chunk_caps_a_larger_batch(engine, chunk_of_40):
    _, messages = _run(engine)  # batch_rows 500,000
    sizes = _chunk_sizes(messages)
    assert sorted(sizes) == [1, 2, 3]
    for rows in sizes.values():  # 114, 95 and 90 rows: chunks of 40, the rest last
        assert rows[:-1] == [40] * (len(rows) - 1) and 0 < rows[-1] <= 40
    # each fold's chunk is sized for its 6 features ('empty' has none), 2 methods, 3 classes
    assert chunk_of_40 == [(6, 2, 3)] * N_SPLITS


def test_a_smaller_batch_than_the_chunk_is_kept(engine, chunk_of_40):
    _, messages = _run(engine, batch_rows=25)
    for rows in _chunk_sizes(messages).values():
        assert rows[:-1] == [25] * (len(rows) - 1) and 0 < rows[-1] <= 25


def test_scoring_in_many_chunks_gives_the_metrics_of_one(engine):
    whole, messages = _run(engine)
    assert all(len(rows) == 1 for rows in _chunk_sizes(messages).values())
    chunked, messages = _run(engine, batch_rows=17)
    assert all(len(rows) >= 5 for rows in _chunk_sizes(messages).values())
    metrics = ["accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"]
    np.testing.assert_allclose(chunked[metrics], whole[metrics], rtol=0, atol=1e-12)


def test_freed_memory_goes_back_after_counting_spilling_and_every_fold(engine, monkeypatch):
    from heb.scale import counting

    events: list[str] = []
    monkeypatch.setattr(counting, "release_freed_memory", lambda: events.append("released"))
    monkeypatch.setattr(cv, "release_freed_memory", lambda: events.append("released"))

    def progress(_fraction, message):
        if message.startswith("Encoded") and events[-1] != "spilled":
            events.append("spilled")
        elif message.startswith("Fitting"):
            events.append(message.removesuffix(f" of {N_SPLITS}"))

    cv.cross_validate(engine, "label", METHODS, n_splits=N_SPLITS, progress=progress)
    assert events == [
        "released",  # the counting query's batches
        "spilled",
        "released",  # the spilled batches, before any model is fitted
        "Fitting fold 1",
        "released",  # fold 1's models, before fold 2's are fitted
        "Fitting fold 2",
        "released",
        "Fitting fold 3",
        "released",
    ]


# ------------------------------------------------------------------ stacked tables
def _models_of_a_sparse_table() -> list[NaiveBayes]:
    """Two NB models of a table of few rows and 100 + 2 columns, 97 of them unseen: their
    log tables keep the seen columns only, and the dense table is built from them."""
    codes = np.array([[0, 1], [1, 0], [2, 1], [0, 0], [1, 1]])
    table = CountTable.from_codes(codes, np.array([0, 1, 1, 0, 1]), 2, n_categories=[100, 2])
    return [NaiveBayes(smoother=name).fit_counts(table) for name in ("laplace", "heb-m")]


def test_stacking_keeps_one_copy_of_each_models_table():
    models = _models_of_a_sparse_table()
    stacked = StackedNB(models)
    assert all(model._feature_log_prob is None for model in models)  # no dense copy kept
    expected = np.stack([model.feature_log_prob_.T for model in models], axis=1)
    assert expected.shape == (102, 2, 2) and not expected[3:100].any()  # unseen: 0
    np.testing.assert_array_equal(stacked.table[:102].reshape(102, 2, 2), expected)
    assert not stacked.table[102].any()  # the row of absent evidence


def test_dense_log_prob_reuses_a_table_the_model_already_built():
    model = _models_of_a_sparse_table()[0]
    assert model.dense_log_prob() is not model.dense_log_prob()  # built afresh each time
    built = model.feature_log_prob_
    assert model.dense_log_prob() is built  # once kept, not built a second time


def test_dense_log_prob_before_fit_says_so():
    with pytest.raises(AttributeError, match=r"^dense_log_prob is set by fit\.$"):
        NaiveBayes().dense_log_prob()


# ------------------------------------------------------------------ Spark
@pytest.mark.parametrize(
    ("physical", "heap"),
    [
        (2 * GiB, "1024m"),  # a quarter is 512 MB: the floor
        (24 * GiB, "6144m"),  # a quarter, in MiB
        (64 * GiB, "8192m"),  # a quarter is 16 GB: the cap
    ],
)
def test_spark_driver_takes_a_quarter_of_memory_within_1_and_8_gb(monkeypatch, physical, heap):
    from heb.scale import spark_engine

    monkeypatch.setattr(spark_engine, "physical_memory", lambda: physical)
    assert spark_engine.driver_memory() == heap


class _Builder:
    """``SparkSession.builder``, recording its settings; starts nothing."""

    def __init__(self):
        self.settings: dict[str, str] = {}

    def master(self, _master):
        return self

    def appName(self, _name):
        return self

    def config(self, key, value):
        self.settings[key] = value
        return self

    def getOrCreate(self):
        class Context:
            def setLogLevel(self, _level):
                pass

        class Session:
            sparkContext = Context()

        return Session()


def test_a_session_started_here_asks_for_the_driver_memory(monkeypatch):
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    from heb.scale import spark_engine

    builder = _Builder()
    monkeypatch.setattr(SparkSession, "builder", builder)
    monkeypatch.setattr(spark_engine, "java_available", lambda: True)
    monkeypatch.setattr(spark_engine, "physical_memory", lambda: 24 * GiB)
    spark_engine._start_session("local[1]")
    assert builder.settings["spark.driver.memory"] == "6144m"


class _Frame:
    """A Spark DataFrame whose query fails with ``error`` when collected."""

    columns = ["a"]

    def __init__(self, error: Exception):
        self.error = error

    def toArrow(self):
        raise self.error

    def toDF(self, *_names):
        return self

    def mapInArrow(self, _func, schema):
        return self

    def collect(self):
        raise self.error


class _Session:
    """A Spark session whose every query fails with ``error``."""

    def __init__(self, error: Exception):
        self.error = error

        class Conf:
            def set(self, _key, _value):
                pass

        class JobTags:  # the engine tags its queries' jobs
            def addJobTag(self, _tag):  # noqa: N802 - pyspark's name
                pass

        self.conf = Conf()
        self.sparkContext = JobTags()

    def sql(self, _sql):
        return _Frame(self.error)


_DIED = r"^Spark stopped in the middle of a query .*DuckDB\.$"


def test_a_refused_connection_while_collecting_is_one_sentence():
    pytest.importorskip("py4j")
    from heb.scale.spark_engine import EngineError, SparkEngine

    refused = ConnectionRefusedError(111, "Connection refused")
    engine = SparkEngine(session=_Session(refused))
    with pytest.raises(EngineError, match=_DIED) as caught:
        engine.table("SELECT 1")
    assert caught.value.__cause__ is refused  # the traceback keeps what py4j said


def test_a_scoring_scan_whose_java_process_died_is_one_sentence():
    protocol = pytest.importorskip("py4j.protocol")
    from heb.scale.spark_engine import EngineError, SparkEngine

    engine = SparkEngine(session=_Session(protocol.Py4JNetworkError("Answer from Java side")))
    with pytest.raises(EngineError, match=_DIED):
        list(engine._partials("SELECT 1", len, max, 100))


def test_other_errors_of_a_query_pass_through():
    pytest.importorskip("py4j")
    from heb.scale.spark_engine import SparkEngine

    engine = SparkEngine(session=_Session(ValueError("not a Spark failure")))
    with pytest.raises(ValueError, match="not a Spark failure"):
        engine.table("SELECT 1")
    with pytest.raises(ValueError, match="not a Spark failure"):
        list(engine._partials("SELECT 1", len, max, 100))
