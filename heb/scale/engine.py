"""What :mod:`heb.scale` asks of an SQL engine, and the one map-reduce loop over it.

:class:`Engine` is the base of :class:`heb.scale.duckdb_engine.DuckDBEngine` (embedded,
streams batches in this process) and :class:`heb.scale.spark_engine.SparkEngine` (a
session, the work on its executors). An engine registers a source as the view
``heb_rows``, returns small query results as Arrow tables, and yields partial results of a
function over a large query's rows; the merging and the progress calls are here, once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator

import pyarrow as pa

from heb.scale.source import Source
from heb.scale.sql import Dialect

__all__ = ["Engine"]


class Engine(ABC):
    """An SQL engine the scale layer runs its generated queries on."""

    #: the engine's name in messages and results ("duckdb", "spark")
    name: str
    #: how the generated SQL is spelled for this engine
    dialect: Dialect
    #: the registered source (``None`` before :meth:`register`)
    source: Source | None = None
    #: (column, type family) of the registered source, set by :meth:`register`
    _columns: list[tuple[str, str]]
    #: what reading the registered source decided that a user should know (a CSV's
    #: encoding, codes kept as text, numbers mixed with text), as the readers' notes
    notes: list[str] = []  # noqa: RUF012 - replaced, never changed in place
    #: the registered CSV's columns read from thousands separators (``1,275``): amounts,
    #: which the app's note on integer columns that may be codes leaves out
    amounts: list[str] = []  # noqa: RUF012 - replaced, never changed in place

    @abstractmethod
    def register(self, source: Source) -> list[tuple[str, str]]:
        """Expose ``source`` as the view ``heb_rows``; returns (column, type family) pairs.

        The type family of a column is ``text``, ``integer``, ``float``, ``time`` (dates
        and time stamps, which the view holds as seconds since 1970 UTC, as the in-memory
        reader reads them: binned as numbers), ``null`` (no value at all) or ``other``.
        """

    @abstractmethod
    def table(self, sql: str) -> pa.Table:
        """The whole (small) result of a query."""

    @abstractmethod
    def batches(self, sql: str, batch_rows: int = 262_144) -> Iterator[pa.RecordBatch]:
        """The result of a query as Arrow record batches."""

    @abstractmethod
    def _partials(
        self, sql: str, func: Callable, merge: Callable, batch_rows: int
    ) -> Iterator[tuple[object, int]]:
        """``(func or merge of funcs over some batches, rows they hold)`` over the query."""

    @abstractmethod
    def close(self) -> None:
        """Release what the engine holds."""

    def columns(self) -> list[tuple[str, str]]:
        """(column, type family) of the registered source."""
        return list(self._columns)

    def map_reduce(
        self,
        sql: str,
        func: Callable,
        merge: Callable,
        batch_rows: int = 262_144,
        on_batch: Callable[[int], None] | None = None,
    ):
        """``merge`` of ``func(batch as a pandas DataFrame)`` over the query's rows.

        ``on_batch(rows so far)`` is called after each partial result is merged: every
        batch on DuckDB, every partition on Spark (whose partitions finish together, when
        the job does). Raise from it to cancel.
        """
        total, done = None, 0
        for part, rows in self._partials(sql, func, merge, batch_rows):
            total = part if total is None else merge(total, part)
            done += rows
            if on_batch is not None:
                on_batch(done)
        return total
