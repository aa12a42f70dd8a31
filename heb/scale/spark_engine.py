"""Spark: the same SQL through Spark SQL, on a session the user passes or a local one.

Counting is one ``spark.sql`` aggregate whose small result is collected as Arrow; scoring
runs ``mapInArrow`` on the workers, each partition returning its metric sums (the fitted
tables travel with the function), which the driver adds. Nothing here distributes work
by hand: Spark scans, shuffles and aggregates.

A session started here logs errors only (no start-up notes, no warnings), and the
FutureWarning pyspark gives about pandas 3 is silenced around pyspark calls only.

Quantile edges need no ``percentile_approx``: bins come from the exact value histograms
(:mod:`heb.scale.encoding`), so Spark's numbers equal DuckDB's and the in-memory ones.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import uuid
import warnings
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa

from heb.data import DataError
from heb.scale.csv_scan import csv_layout
from heb.scale.engine import Engine
from heb.scale.memory import physical_memory
from heb.scale.source import Source
from heb.scale.sql import (
    RESERVED_PREFIX,
    SPARK,
    VIEW,
    partition_file_key,
    raw_time_alias,
    seconds_of_micros,
)
from heb.scale.streaming_metrics import MetricSums
from heb.whole_files import whole_file

#: a CSV's encoding (:func:`heb.scale.csv_scan.csv_layout`) by Spark's name for it
_SPARK_CHARSETS = {"cp1252": "windows-1252", "latin-1": "iso-8859-1"}

__all__ = [
    "SparkEngine",
    "EngineError",
    "driver_memory",
    "java_available",
    "java_problem",
    "silence_a_starting_session",
]


class EngineError(RuntimeError):
    """An engine that cannot run here (e.g. Spark without Java); ``str`` is one sentence."""


@contextmanager
def _query_failures(engine: SparkEngine | None = None) -> Iterator[None]:
    """A failed query as an :class:`EngineError` sentence: a Java process that went away
    (out of memory, killed), which py4j otherwise reports as a refused connection deep in
    its own code, or a Java error pyspark does not convert (a file that stopped being
    parquet: ``SparkException``), told by its first line.

    Once ``engine`` is interrupted (:meth:`SparkEngine.interrupt`) a query, failed or yet
    to start, raises KeyboardInterrupt instead: its jobs were cancelled, which Spark
    reports as ``SPARK_JOB_CANCELLED``, and the command line said "Spark could not run a
    query" with exit code 2 for a Ctrl-C.
    """
    from py4j.protocol import Py4JJavaError, Py4JNetworkError

    stopped = engine is not None and engine.interrupted
    if stopped:
        raise KeyboardInterrupt
    try:
        if engine is not None:
            engine.spark.sparkContext.addJobTag(engine.job_tag)  # this thread's jobs
        yield
    except Exception as exc:
        if engine is not None and engine.interrupted:
            raise KeyboardInterrupt from None
        if isinstance(exc, Py4JNetworkError | ConnectionError):
            raise EngineError(
                "Spark stopped in the middle of a query (its Java process ended, most often "
                "out of memory): give the session more with spark.driver.memory, or use DuckDB."
            ) from exc
        if isinstance(exc, Py4JJavaError):
            raise EngineError(f"Spark could not run a query: {_java_message(exc)}") from exc
        raise


def _java_message(exc, depth: int = 8) -> str:
    """The first line of the innermost message of a Java exception's causes (the outer
    ones wrap it: "Exception thrown in awaitResult", then the read failure, then "x is not
    a Parquet file"), or its class name when none has a message."""
    try:
        error, first = exc.java_exception, ""
        name = str(error.getClass().getSimpleName())
        for _ in range(depth):
            text = str(error.getMessage() or "").strip()
            first = text.splitlines()[0].strip() if text else first
            error = error.getCause()
            if error is None:
                break
    except Exception:  # the JVM may not answer any more: py4j raises its own types
        return "a Java error."
    first = first or name
    return first if first.endswith(".") else f"{first}."


def java_available() -> bool:
    """Whether a Java runtime is on PATH or under JAVA_HOME."""
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


def java_problem() -> str | None:
    """Why Spark cannot start its Java process here, as one sentence, or None.

    pyspark's launcher runs ``$JAVA_HOME/bin/java`` whenever ``JAVA_HOME`` is set, never
    the ``java`` on PATH, so a ``JAVA_HOME`` that holds no ``bin/java`` fails even where
    PATH has one (with the launcher's shell errors and a ``JAVA_GATEWAY_EXITED`` message).

    Returns
    -------
    str or None
        The sentence for :class:`EngineError`, or None when a Java runtime is found.
    """
    home = os.environ.get("JAVA_HOME")
    if home and not os.path.exists(os.path.join(home, "bin", "java")):
        return (
            f"Spark could not start: JAVA_HOME is '{home}', which holds no bin/java; "
            "point it at a JDK or unset it."
        )
    if not java_available():
        return "Spark could not start: no Java runtime was found; install a JDK or set JAVA_HOME."
    return None


#: Spark SQL of a date or time stamp column's whole microseconds since 1970-01-01 UTC, by
#: type: never through the session's time zone (a date or a time stamp without a zone is
#: its wall-clock time in UTC, as the in-memory reader reads it)
_MICROS = {
    "date": "CAST(unix_date({}) AS BIGINT) * 86400000000",
    "timestamp": "unix_micros({})",
    "timestamp_ntz": "timestampdiff(MICROSECOND, TIMESTAMP_NTZ'1970-01-01 00:00:00', {})",
}


def _has_nanoseconds(files: list[Path]) -> bool:
    """Whether the parquet files hold nanosecond time stamps, which Spark refuses to read
    (each of its executors logging a stack trace of 40 lines above the refusal): the first
    file's schema says (``open_source`` refuses files whose column types differ)."""
    import pyarrow.parquet as pq

    return any(
        pa.types.is_timestamp(field.type) and field.type.unit == "ns"
        for field in pq.read_schema(files[0])
    )


#: why Spark cannot read a parquet file of nanosecond time stamps (pandas writes them so)
_NANOS_REFUSAL = (
    "Spark could not read {!r}: it holds time stamps stored in nanoseconds, which Spark "
    "reads from no parquet file; run it on DuckDB (--engine duckdb) or store them in "
    "microseconds."
)


def _seconds(identifier: str, type_name: str) -> str:
    """SQL of a date or time stamp column (quoted ``identifier``) as seconds since 1970:
    its microseconds over 10^6 in doubles, the in-memory reader's ``micros / 1e6`` bit
    for bit."""
    micros = _MICROS[type_name].format(identifier)
    return seconds_of_micros(micros)


def _as_seconds(frame) -> tuple[object, dict[str, str]]:
    """``frame`` with its dates and time stamps as seconds since 1970 (:func:`_seconds`),
    as the in-memory reader reads them, and as themselves under :func:`raw_time_alias`
    (a target of dates is read as dates); other columns as they are. Returns the frame
    and (time column, its own values' column)."""
    from pyspark.sql import functions as F

    fields = frame.schema.fields
    times = [f for f in fields if f.dataType.typeName() in _MICROS]
    if not times:
        return frame, {}
    raw = {f.name: raw_time_alias(i) for i, f in enumerate(times)}
    return frame.select(
        *[
            F.expr(_seconds(SPARK.identifier(f.name), f.dataType.typeName())).alias(f.name)
            if f.name in raw
            else F.col(SPARK.identifier(f.name))
            for f in fields
        ],
        *[F.col(SPARK.identifier(name)).alias(alias) for name, alias in raw.items()],
    ), raw


def _family(data_type) -> str:
    """``text``, ``integer``, ``float``, ``time`` (dates and time stamps) or ``other`` for
    a Spark data type."""
    name = data_type.typeName()
    if name in _MICROS:
        return "time"
    if name in ("string", "boolean", "char", "varchar"):
        return "text"
    if name in ("byte", "short", "integer", "long"):
        return "integer"
    if name in ("float", "double", "decimal"):
        return "float"
    return "other"


@contextmanager
def _quiet_pandas_warning() -> Iterator[None]:
    """Silence pyspark's FutureWarning about pandas 3 (only it, only inside the block)."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
        )
        yield


#: log4j2 settings of a session started here: errors only, on stderr (the gateway's logger
#: too: Spark sets a Python session's level from it, printing a note when it differs), and
#: not the task listeners' errors of a cancelled job (a Ctrl-C printed two stack traces
#: of "Block broadcast_15 does not exist" as its tasks were torn down)
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.console.type = Console
appender.console.name = stderr
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
logger.cancelled.name = org.apache.spark.TaskContextImpl
logger.cancelled.level = fatal
"""


def _log_config() -> str:
    """A ``file:`` URI of :data:`_LOG4J2`, written once to the temporary folder."""
    path = Path(tempfile.gettempdir()) / "heb_spark_log4j2.properties"
    try:
        if not path.is_file() or path.read_text() != _LOG4J2:
            with whole_file(path) as partial:  # a concurrent start reads a whole file
                partial.write_text(_LOG4J2)
    except OSError:
        return ""  # an unwritable temporary folder: Spark's own (noisier) defaults
    return path.as_uri()


def driver_memory() -> str:
    """The heap of a session started here: a quarter of physical memory, 1 - 8 GB (in
    ``local`` mode the driver's JVM runs the tasks too). Spark reads it at the JVM's start,
    so a session the caller passes keeps its own."""
    return f"{max(1024, min(8192, physical_memory() // 4 // 2**20))}m"


def _start_session(master: str):
    try:
        with _quiet_pandas_warning():
            from pyspark.sql import SparkSession
    except ImportError as exc:
        raise EngineError("Spark needs pyspark: pip install pyspark (and a Java runtime).") from exc
    problem = java_problem()
    if problem is not None:
        raise EngineError(problem)
    builder = (
        SparkSession.builder.master(master)
        .appName("heb-scale")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        # column names are exact, as in pandas and DuckDB ('A' and 'a' are two columns)
        .config("spark.sql.caseSensitive", "true")
        # the counting query's histograms come back to the driver as Arrow; its default
        # 1 GB heap ran out on 10^6 click-log rows (2.2 million histogram rows)
        .config("spark.driver.memory", driver_memory())
    )
    log_config = _log_config()
    if log_config:  # read by the driver JVM at its start, before its first log line
        builder = builder.config(
            "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={log_config}"
        )
    try:
        with _quiet_pandas_warning():
            session = builder.getOrCreate()
    except Exception as exc:  # py4j / JVM start-up failures come in many types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise EngineError(f"Spark could not start: {first}") from exc
    session.sparkContext.setLogLevel("ERROR")  # also when getOrCreate found a running one
    return session


def silence_a_starting_session() -> None:
    """Mute the driver JVM of a session whose start a Ctrl-C left behind.

    The command line then exits; the JVM ends as its stdin closes, and on a loaded machine
    it logged SparkContext's failed start (a page of stack trace) after "heb: Interrupted.".
    Its log levels go to OFF and its ``System.err`` to nothing. Before the JVM's gateway is
    up (or after it ended) there is nothing to mute, and nothing is done.
    """
    if "pyspark" not in sys.modules:
        return
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return
    py4j_log = logging.getLogger("py4j")
    level = py4j_log.level
    py4j_log.setLevel(logging.CRITICAL + 1)  # a JVM that has ended: no logged traceback
    try:
        jvm = gateway.jvm
        log4j = jvm.org.apache.logging.log4j
        log4j.core.config.Configurator.setAllLevels("", log4j.Level.OFF)
        jvm.java.lang.System.setErr(
            jvm.java.io.PrintStream(jvm.java.io.OutputStream.nullOutputStream())
        )
    except Exception:  # noqa: BLE001 - the JVM has ended or never listened: it says nothing
        pass
    finally:
        py4j_log.setLevel(level)


#: the key of a partition's row count among its serialised sums
_ROWS = "#rows"


def _serialise(sums: dict) -> list[tuple[str, list[float]]]:
    rows = []
    for (method, fold), acc in sums.items():
        rows.append((f"{method}\t{fold}\t#classes", [float(acc.n_classes)]))
        for key, value in acc.state.items():
            rows.append((f"{method}\t{fold}\t{key}", np.asarray(value, dtype=float).tolist()))
    return rows


def _deserialise(rows) -> dict:
    grouped: dict = {}
    for key, value in rows:
        method, fold, part = key.split("\t")
        grouped.setdefault((method, int(fold)), {})[part] = np.asarray(value, dtype=np.float64)
    out = {}
    for key, state in grouped.items():
        acc = MetricSums(int(state.pop("#classes")[0]))
        acc.state.update(state)
        out[key] = acc
    return out


def _spark_unescape(name: str) -> str:
    """A partition folder's value as Spark decodes it: each ``%XX`` one character of code
    XX (so the UTF-8 bytes of ``%C3%A9`` read as two characters, "Ã©")."""
    out, i = [], 0
    while i < len(name):
        if name[i] == "%" and i + 2 < len(name):
            try:
                code = int(name[i + 1 : i + 3], 16)
            except ValueError:
                code = -1
            if code >= 0:
                out.append(chr(code))
                i += 3
                continue
        out.append(name[i])
        i += 1
    return "".join(out)


def _utf8_key_values(source: Source) -> dict[str, dict[str, str]]:
    """Per partition key, Spark's reading of a folder value -> its UTF-8 reading (DuckDB's,
    ``%C3%A9`` as "é"), for the values whose two readings differ: the non-ASCII ones, as
    pyarrow and Spark write them. A value that is not valid UTF-8 keeps Spark's reading."""
    from urllib.parse import unquote

    keys = source.partition_keys
    folders = {file.relative_to(source.path).parts[: len(keys)] for file in source.files}
    # each folder value once (a partition holds many files)
    raws = {
        (key, part.partition("=")[2])
        for parts in folders
        for key, part in zip(keys, parts, strict=True)
    }
    fixes: dict[str, dict[str, str]] = {}
    for key, raw in sorted(raws):
        try:
            meant = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            continue
        read = _spark_unescape(raw)
        if read != meant:
            fixes.setdefault(key, {})[read] = meant
    return fixes


def _is_local(session) -> bool:
    """Whether the session's master is ``local`` (driver and executors one JVM, which sees
    this machine's files); a Spark Connect session has no context to ask and is not."""
    try:
        master = session.sparkContext.master
    except Exception:  # Spark Connect raises its own types for sparkContext
        return False
    return str(master).startswith("local")


def _typed_parquet(owner: object, source: Source) -> tuple[weakref.finalize, Path, dict, list]:
    """A CSV source typed by DuckDB as the upload readers type it, written to parquet.

    :func:`heb.scale.csv_scan.csv_scan` types the columns (a ZIP written 02134 stays text,
    ``NA`` and ``?`` are missing) and numbers the rows in file order; its rows are copied
    in that order (``preserve_insertion_order``) to ``rows.parquet`` in a private
    temporary folder, under that name only once whole. The folder is removed by the
    returned finalizer: when it is called, on a failure here, when ``owner`` is collected
    or at exit; a UTF-8 copy of a file that is not UTF-8 is removed on return.

    Returns
    -------
    (finalize, Path, dict, list, list)
        The folder's remover, the parquet file, the renamed case-duplicate columns
        (``name -> identifier in the file``), the readers' notes and the columns read
        from thousands separators.

    Raises
    ------
    DataError
        The scan's sentence (an empty file, a malformed row), or DuckDB's first line.
    """
    import duckdb

    from heb.scale.csv_scan import copies_of, csv_scan
    from heb.scale.duckdb_engine import connect

    folder = Path(tempfile.mkdtemp(prefix="heb_spark_csv_"))  # mode 0700
    remove = weakref.finalize(owner, shutil.rmtree, folder, ignore_errors=True)
    con = connect()
    try:
        con.execute("SET preserve_insertion_order = true")  # the rows in file order
        con.execute("SET enable_progress_bar = false")  # no bar on the terminal
        scan, renamed, notes, amounts = csv_scan(con, source.files, source.label)
        partial, whole = folder / "rows.parquet.partial", folder / "rows.parquet"
        target = str(partial).replace("'", "''")
        con.execute(f"COPY ({scan}) TO '{target}' (FORMAT parquet)")
        os.replace(partial, whole)
    except duckdb.Error as exc:
        remove()
        first = str(exc).strip().splitlines()[0]
        raise DataError(f"DuckDB could not type {source.label!r} for Spark: {first}") from exc
    except BaseException:
        remove()
        raise
    finally:
        con.close()
        for remove_copy in copies_of(con):
            remove_copy()
    return remove, whole, renamed, notes, amounts


class SparkEngine(Engine):
    """Runs :mod:`heb.scale.sql` queries on Spark SQL.

    Parameters
    ----------
    session : SparkSession, optional
        A running session (e.g. on a cluster), which :meth:`close` leaves running;
        default a new ``master`` session, which :meth:`close` stops.
    master : str
        Used only when no session is given; ``local[*]`` uses every local core.

    Notes
    -----
    On a ``local`` master a CSV is typed by DuckDB as the upload readers type it
    (:func:`heb.scale.csv_scan.csv_scan`) and read from a temporary parquet copy, removed
    by :meth:`close`, the next :meth:`register` or when the engine is collected; on a
    cluster, whose executors may not see this machine's temporary folder, Spark's own
    ``inferSchema`` types it.

    Raises
    ------
    EngineError
        Java or pyspark is missing, or the session does not start.
    """

    name = "spark"
    dialect = SPARK

    def __init__(self, session=None, master: str = "local[*]"):
        self.spark = session if session is not None else _start_session(master)
        self._owns_session = session is None  # close() stops only a session it started
        self.source: Source | None = None
        self._columns: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.amounts: list[str] = []
        self._typed: weakref.finalize | None = None  # the remover of a CSV's parquet copy
        #: whether :meth:`interrupt` was called: every query raises KeyboardInterrupt since
        self.interrupted = False
        #: the Spark job tag of this engine's queries (:meth:`interrupt` cancels them alone:
        #: a session given to it may run other work)
        self.job_tag = f"heb-{uuid.uuid4().hex}"

    def register(self, source: Source) -> list[tuple[str, str]]:
        """Expose ``source`` as the view ``heb_rows``; returns (column, type family) pairs.

        On a ``local`` master a CSV is read from DuckDB's typed parquet copy
        (:func:`_typed_parquet`), so its columns, missing values, row order and
        :attr:`notes` are the DuckDB engine's and the in-memory readers'.
        """
        typed = None
        renamed: dict[str, str] = {}
        notes: list[str] = []
        amounts: list[str] = []
        copy = None
        if source.format == "csv" and _is_local(self.spark):
            typed, copy, renamed, notes, amounts = _typed_parquet(self, source)
        try:
            frame = self._frame(source, copy, renamed)
            in_seconds, raw = _as_seconds(frame)
            in_seconds.createOrReplaceTempView(VIEW)
        except BaseException:
            if typed is not None:
                typed()
            raise
        earlier, self._typed = self._typed, typed
        if earlier is not None:  # the replaced view's copy
            earlier()
        self.source = source
        self.notes = notes
        self.amounts = amounts
        self._columns = [
            (f.name, _family(f.dataType))
            for f in frame.schema.fields
            if not f.name.startswith(RESERVED_PREFIX)
        ]
        # a float target's NaN is a missing target; a date target is read as dates
        self.dialect = SPARK.bound(self._columns, raw=raw)
        return list(self._columns)

    def _frame(self, source: Source, copy: Path | None, renamed: dict[str, str]):
        """The source's rows with the row key ``__heb_file``, ``__heb_row``: a CSV from
        its typed parquet ``copy`` when there is one (its case-duplicate columns, stored
        under their ``renamed`` identifiers, get their names back)."""
        from pyspark.sql import functions as F

        paths = [str(f) for f in source.files]
        layout = None  # a CSV's delimiter and encoding as an upload's reader sniffs them
        if source.format == "csv" and copy is None:  # (its sentence unwrapped, as before)
            layout = csv_layout(source.files[0], source.label)
        if source.format == "parquet" and _has_nanoseconds(source.files):
            raise DataError(_NANOS_REFUSAL.format(source.label))  # before Spark's trace
        try:
            if source.format == "parquet":
                frame = self._read_parquet(source, paths).drop(*source.index_columns)
                keys = list(source.partition_keys)  # first, as DuckDB's view has them
                names = keys + [c for c in frame.columns if c not in keys]
                file_name = F.col("_metadata.file_name")
                if keys:  # the partition values too, as DuckDB keys it
                    file_name = F.expr(partition_file_key(SPARK, keys, "_metadata.file_name"))
                return frame.select(
                    *[F.col(SPARK.identifier(name)) for name in names],
                    file_name.alias("__heb_file"),
                    F.col("_metadata.row_index").alias("__heb_row"),
                )
            if copy is not None:  # typed, row key and all, by DuckDB
                frame = self.spark.read.parquet(copy.as_uri())
                names = {identifier: name for name, identifier in renamed.items()}
                return frame.toDF(*(names.get(c, c) for c in frame.columns))
            return self._read_csv(paths, layout).select(
                "*",
                F.lit("").alias("__heb_file"),
                F.monotonically_increasing_id().alias("__heb_row"),
            )
        except Exception as exc:
            first = str(exc).strip().splitlines()[0]
            if "TIMESTAMP(NANOS" in first:  # pandas writes its time stamps so
                raise DataError(_NANOS_REFUSAL.format(source.label)) from exc
            raise DataError(f"Spark could not read {source.label!r}: {first}") from exc

    def _read_csv(self, paths: list[str], layout):
        """The CSV files as a frame, read as the DuckDB scan reads them: a quoted field may
        hold the delimiter, a doubled quote or a line break (``multiLine``; Spark's default
        reads each line as a row, so a quoted line break split a row in two and dropped
        its target), and a Windows-1252 file is decoded as such (Spark 4 takes Java's
        charsets only with ``spark.sql.legacy.javaCharsets``, set on the session here)."""
        if layout.encoding == "cp1252":
            self.spark.conf.set("spark.sql.legacy.javaCharsets", "true")
        return self.spark.read.csv(
            paths, header=True, inferSchema=True, sep=layout.delimiter,
            encoding=_SPARK_CHARSETS.get(layout.encoding, layout.encoding),
            multiLine=True, quote='"', escape='"',
        )  # fmt: skip

    def _read_parquet(self, source: Source, paths: list[str]):
        """The parquet files as a frame; a partitioned table's keys as text columns.

        Spark discovers the keys from the folder names below ``basePath`` (decoding them,
        Hive's default partition read as null) and would infer their types; inference
        is off while the files are listed, so ``01`` stays ``01`` as DuckDB reads it.
        """
        if not source.partition_keys:
            return self.spark.read.parquet(*paths)
        from pyspark.sql import functions as F

        setting = "spark.sql.sources.partitionColumnTypeInference.enabled"
        before = self.spark.conf.get(setting, None)
        self.spark.conf.set(setting, "false")
        try:
            frame = self.spark.read.option("basePath", str(source.path)).parquet(*paths)
        finally:
            if before is None:
                self.spark.conf.unset(setting)
            else:
                self.spark.conf.set(setting, before)
        for key, fixes in _utf8_key_values(source).items():
            column = F.col(SPARK.identifier(key))
            fixed = column
            for read, meant in fixes.items():
                fixed = F.when(column == F.lit(read), F.lit(meant)).otherwise(fixed)
            frame = frame.withColumn(key, fixed)
        return frame

    def table(self, sql: str) -> pa.Table:
        """The whole (small) result of a query, collected as Arrow."""
        with _quiet_pandas_warning(), _query_failures(self):
            return self.spark.sql(sql).toArrow()

    def batches(self, sql: str, batch_rows: int = 262_144):
        """The result of a query as Arrow record batches (collected to the driver first)."""
        yield from self.table(sql).to_batches(batch_rows)

    def _partials(
        self, sql: str, func: Callable, merge: Callable, batch_rows: int
    ) -> Iterator[tuple[object, int]]:
        """Each partition's merged ``func`` of its batches (``mapInArrow``).

        A batch reaches ``func`` as pandas converted as on DuckDB (integers with a missing
        value stay exact). The columns travel under positional names (a name holding a dot
        or a backtick is not a valid column reference there) and get theirs back in the
        worker. The partitions run on the workers and come back, with their row counts,
        when the job is done.
        """
        with _query_failures(self):
            self.spark.conf.set(
                "spark.sql.execution.arrow.maxRecordsPerBatch", str(int(batch_rows))
            )
            frame = self.spark.sql(sql)
            names = list(frame.columns)
            frame = frame.toDF(*(f"{RESERVED_PREFIX}_c{i}" for i in range(len(names))))

        def per_partition(batches):
            import uuid

            import pyarrow as pa

            from heb.data.parquet import nullable_integer_types

            exact = nullable_integer_types().get
            total, n_rows = None, 0
            for batch in batches:
                named = pa.RecordBatch.from_arrays(batch.columns, names=names)
                part = func(named.to_pandas(types_mapper=exact))
                total = part if total is None else merge(total, part)
                n_rows += batch.num_rows
            if total is None:
                return
            rows = [(_ROWS, [float(n_rows)]), *_serialise(total)]
            token = uuid.uuid4().hex  # which partition the rows come from
            yield pa.RecordBatch.from_pydict(
                {
                    "part": [token] * len(rows),
                    "key": [r[0] for r in rows],
                    "value": [r[1] for r in rows],
                },
                schema=pa.schema(
                    [("part", pa.string()), ("key", pa.string()), ("value", pa.list_(pa.float64()))]
                ),
            )

        schema = "part string, key string, value array<double>"
        with _quiet_pandas_warning(), _query_failures(self):
            collected = frame.mapInArrow(per_partition, schema=schema).collect()
        partitions: dict = {}
        for row in collected:
            partitions.setdefault(row["part"], []).append((row["key"], row["value"]))
        for rows in partitions.values():
            n_rows = next(int(value[0]) for key, value in rows if key == _ROWS)
            yield _deserialise([(k, v) for k, v in rows if k != _ROWS]), n_rows

    def interrupt(self) -> None:
        """Stop this engine's running query from another thread (a Ctrl-C handler's).

        Spark cancels the jobs of :attr:`job_tag`; the query raises KeyboardInterrupt in
        the thread that ran it, and so does every later query of this engine.
        """
        self.interrupted = True
        try:
            self.spark.sparkContext.cancelJobsWithTag(self.job_tag)
        except Exception:  # noqa: BLE001 - a stopped session: nothing runs to cancel
            pass

    def close(self) -> None:
        """Delete a CSV's parquet copy, and stop the session if this engine started it (a
        session given to it is the caller's, and keeps running)."""
        if self._typed is not None:
            self._typed()
        if self._owns_session:
            from py4j.protocol import Py4JError

            try:
                self.spark.stop()
            except (Py4JError, ConnectionError):  # its Java process has ended already (a
                pass  # signal to the process group, out of memory): nothing is left to stop
