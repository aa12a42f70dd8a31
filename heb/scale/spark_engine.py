"""Spark: the same SQL through Spark SQL, on a session the user passes or a local one.

Counting is one ``spark.sql`` aggregate whose small result is collected as Arrow; scoring
runs ``mapInPandas`` on the workers, each partition returning its metric sums (the fitted
tables travel with the function), which the driver adds. Nothing here distributes work
by hand: Spark scans, shuffles and aggregates.

Quantile edges need no ``percentile_approx``: bins come from the exact value histograms
(:mod:`heb.scale.encoding`), so Spark's numbers equal DuckDB's and the in-memory ones.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import numpy as np
import pyarrow as pa

from heb.data import DataError
from heb.scale.engine import Engine
from heb.scale.source import Source
from heb.scale.sql import SPARK, VIEW
from heb.scale.streaming_metrics import MetricSums

__all__ = ["SparkEngine", "EngineError", "java_available"]


class EngineError(RuntimeError):
    """An engine that cannot run here (e.g. Spark without Java); ``str`` is one sentence."""


def java_available() -> bool:
    """Whether a Java runtime is on PATH or under JAVA_HOME."""
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return True
    return shutil.which("java") is not None


def _family(data_type) -> str:
    name = data_type.typeName()
    if name in ("string", "boolean", "char", "varchar"):
        return "text"
    if name in ("byte", "short", "integer", "long"):
        return "integer"
    if name in ("float", "double", "decimal"):
        return "float"
    return "other"


def _start_session(master: str):
    if not java_available():
        raise EngineError(
            "Spark could not start: no Java runtime was found; install a JDK or set JAVA_HOME."
        )
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise EngineError("Spark could not start: the pyspark package is not installed.") from exc
    try:
        return (
            SparkSession.builder.master(master)
            .appName("heb-scale")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate()
        )
    except Exception as exc:  # py4j / JVM start-up failures come in many types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise EngineError(f"Spark could not start: {first}") from exc


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


class SparkEngine(Engine):
    """Runs :mod:`heb.scale.sql` queries on Spark SQL.

    Parameters
    ----------
    session : SparkSession, optional
        A running session (e.g. on a cluster); default a new ``master`` session.
    master : str
        Used only when no session is given; ``local[*]`` uses every local core.

    Raises
    ------
    EngineError
        Java or pyspark is missing, or the session does not start.
    """

    name = "spark"
    dialect = SPARK

    def __init__(self, session=None, master: str = "local[*]"):
        self.spark = session if session is not None else _start_session(master)
        self.source: Source | None = None
        self._columns: list[tuple[str, str]] = []

    def register(self, source: Source) -> list[tuple[str, str]]:
        """Expose ``source`` as the view ``heb_rows``; returns (column, type family) pairs."""
        from pyspark.sql import functions as F

        paths = [str(f) for f in source.files]
        try:
            if source.format == "parquet":
                frame = self.spark.read.parquet(*paths)
                frame = frame.select(
                    "*",
                    F.col("_metadata.file_name").alias("__heb_file"),
                    F.col("_metadata.row_index").alias("__heb_row"),
                )
            else:
                frame = self.spark.read.csv(paths, header=True, inferSchema=True)
                frame = frame.select(
                    "*",
                    F.lit("").alias("__heb_file"),
                    F.monotonically_increasing_id().alias("__heb_row"),
                )
        except Exception as exc:
            first = str(exc).strip().splitlines()[0]
            raise DataError(f"Spark could not read {source.label!r}: {first}") from exc
        frame.createOrReplaceTempView(VIEW)
        self.source = source
        self._columns = [
            (f.name, _family(f.dataType))
            for f in frame.schema.fields
            if not f.name.startswith("__heb")
        ]
        return list(self._columns)

    def table(self, sql: str) -> pa.Table:
        """The whole (small) result of a query, collected as Arrow."""
        return self.spark.sql(sql).toArrow()

    def batches(self, sql: str, batch_rows: int = 262_144):
        """The result of a query as Arrow record batches (collected to the driver first)."""
        yield from self.table(sql).to_batches(batch_rows)

    def _partials(
        self, sql: str, func: Callable, merge: Callable, batch_rows: int
    ) -> Iterator[tuple[object, int]]:
        """Each partition's merged ``func`` of its pandas batches (``mapInPandas``).

        The partitions run on the workers and come back, with their row counts, when the
        job is done.
        """
        self.spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(int(batch_rows)))

        def per_partition(batches):
            import uuid

            import pandas as pd

            total, n_rows = None, 0
            for batch in batches:
                part = func(batch)
                total = part if total is None else merge(total, part)
                n_rows += len(batch)
            if total is None:
                return
            rows = [(_ROWS, [float(n_rows)]), *_serialise(total)]
            token = uuid.uuid4().hex  # which partition the rows come from
            yield pd.DataFrame(
                {"part": token, "key": [r[0] for r in rows], "value": [r[1] for r in rows]}
            )

        schema = "part string, key string, value array<double>"
        out = self.spark.sql(sql).mapInPandas(per_partition, schema=schema)
        partitions: dict = {}
        for row in out.collect():
            partitions.setdefault(row["part"], []).append((row["key"], row["value"]))
        for rows in partitions.values():
            n_rows = next(int(value[0]) for key, value in rows if key == _ROWS)
            yield _deserialise([(k, v) for k, v in rows if k != _ROWS]), n_rows

    def close(self) -> None:
        """Stop the session (only call when this engine started it)."""
        self.spark.stop()
