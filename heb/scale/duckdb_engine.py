"""DuckDB, the embedded default engine: reads parquet / CSV out of core, in this process.

The connection gets a memory limit (default: a quarter of the machine's RAM, at most
4 GB) and a spill folder, so scans larger than memory stream; results come back as Arrow.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator

import pyarrow as pa

from heb.data import DataError
from heb.scale.engine import Engine
from heb.scale.source import Source
from heb.scale.sql import DUCKDB, VIEW

__all__ = ["DuckDBEngine", "default_memory_limit"]


def default_memory_limit() -> str:
    """A quarter of physical memory, between 256 MB and 4 GB, as DuckDB's ``memory_limit``."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    return f"{max(256, min(4096, total // 4 // 2**20))}MB"


def _family(type_name: str) -> str:
    """``text``, ``integer``, ``float`` or ``other`` for a DuckDB type name."""
    name = type_name.upper()
    if name in ("VARCHAR", "BOOLEAN") or name.startswith("ENUM"):
        return "text"
    if name.removeprefix("U") in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"):
        return "integer"
    if name in ("FLOAT", "DOUBLE", "REAL") or name.startswith("DECIMAL"):
        return "float"
    return "other"


class DuckDBEngine(Engine):
    """Runs :mod:`heb.scale.sql` queries on DuckDB.

    Parameters
    ----------
    memory_limit : str, optional
        DuckDB's ``memory_limit`` (e.g. ``"2GB"``); default :func:`default_memory_limit`.
    threads : int, optional
        Worker threads; default all cores.
    """

    name = "duckdb"
    dialect = DUCKDB
    #: batches arrive in this process (scoring spills them to per-fold files, not per-fold scans)
    in_process = True

    def __init__(self, memory_limit: str | None = None, threads: int | None = None):
        import duckdb

        self._con = duckdb.connect()
        self._con.execute(f"SET memory_limit = '{memory_limit or default_memory_limit()}'")
        self._con.execute(f"SET temp_directory = '{tempfile.gettempdir()}/heb_duckdb_spill'")
        if threads:
            self._con.execute(f"SET threads = {int(threads)}")
        self.source: Source | None = None
        self._columns: list[tuple[str, str]] = []

    # ---------------------------------------------------------------- data
    def register(self, source: Source) -> list[tuple[str, str]]:
        """Expose ``source`` as the view ``heb_rows``; returns (column, type family) pairs."""
        files = "[" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in source.files) + "]"
        if source.format == "parquet":
            scan = (
                f"SELECT * EXCLUDE (filename, file_row_number), parse_filename(filename) AS "
                f"__heb_file, file_row_number AS __heb_row FROM read_parquet({files}, "
                "filename = true, file_row_number = true)"
            )
        else:
            scan = (
                f"SELECT *, '' AS __heb_file, row_number() OVER () AS __heb_row "
                f"FROM read_csv({files}, header = true)"
            )
        try:
            self._con.execute(f"CREATE OR REPLACE VIEW {VIEW} AS {scan}")
            described = self._con.execute(f"DESCRIBE {VIEW}").fetchall()
        except Exception as exc:  # duckdb raises its own error classes per reader
            raise DataError(
                f"DuckDB could not read {source.label!r}: {str(exc).splitlines()[0]}"
            ) from exc
        self.source = source
        self._columns = [
            (row[0], _family(row[1])) for row in described if not row[0].startswith("__heb")
        ]
        return list(self._columns)

    def table(self, sql: str) -> pa.Table:
        """The whole (small) result of a query."""
        return self._con.sql(sql).to_arrow_table()

    def batches(self, sql: str, batch_rows: int = 262_144) -> Iterator[pa.RecordBatch]:
        """The result of a query as a stream of Arrow record batches (flat memory)."""
        reader = self._con.sql(sql).to_arrow_reader(batch_rows)
        yield from reader

    def _partials(
        self, sql: str, func: Callable, merge: Callable, batch_rows: int
    ) -> Iterator[tuple[object, int]]:
        """``func`` of each streamed batch (as pandas), with its row count."""
        for batch in self.batches(sql, batch_rows):
            yield func(batch.to_pandas()), batch.num_rows

    def close(self) -> None:
        """Release the connection."""
        self._con.close()
