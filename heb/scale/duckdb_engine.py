"""DuckDB, the embedded default engine: reads parquet / CSV out of core, in this process.

The connection gets a memory limit (default: a quarter of the machine's RAM, at most
4 GB) and a spill folder, so scans larger than memory stream; results come back as Arrow.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator

import pyarrow as pa

from heb.data import DataError
from heb.data.parquet import nullable_integer_types
from heb.scale.engine import Engine
from heb.scale.memory import physical_memory
from heb.scale.source import Source
from heb.scale.sql import (
    DUCKDB,
    RESERVED_PREFIX,
    VIEW,
    partition_file_key,
    raw_time_alias,
    seconds_of_micros,
)

__all__ = ["DuckDBEngine", "connect", "default_memory_limit"]


def default_memory_limit() -> str:
    """A quarter of physical memory, between 256 MB and 4 GB, as DuckDB's ``memory_limit``."""
    return f"{max(256, min(4096, physical_memory() // 4 // 2**20))}MB"


#: DuckDB's types of dates and time stamps (read as seconds since 1970, as in memory)
_TIME_TYPES = (
    "DATE",
    "TIMESTAMP",
    "TIMESTAMP_S",
    "TIMESTAMP_MS",
    "TIMESTAMP_NS",
    "TIMESTAMP WITH TIME ZONE",
    "TIMESTAMPTZ_NS",
)


def _family(type_name: str) -> str:
    """``text``, ``integer``, ``float``, ``time`` (dates and time stamps), ``null`` (no
    value at all) or ``other`` for a DuckDB type name."""
    name = type_name.upper()
    if name in _TIME_TYPES:
        return "time"
    if name in ("VARCHAR", "BOOLEAN") or name.startswith("ENUM"):
        return "text"
    if name.removeprefix("U") in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"):
        return "integer"
    if name in ("FLOAT", "DOUBLE", "REAL") or name.startswith("DECIMAL"):
        return "float"
    if name.strip('"') == "NULL":  # parquet's null type: a column with no value at all
        return "null"
    return "other"


def _seconds(identifier: str, type_name: str) -> str:
    """SQL of a date or time stamp column (quoted ``identifier``, of DuckDB type
    ``type_name``) as seconds since 1970-01-01 UTC: its whole microseconds (floored, as
    numpy casts nanoseconds) over 10^6 in doubles, the in-memory reader's ``micros / 1e6``
    bit for bit. ``epoch_us`` takes no zoned nanosecond stamp (pandas writes its zoned
    stamps so), and a cast to one it takes goes through the session's zone or truncates:
    such a stamp's nanoseconds are floored to microseconds in integers."""
    if type_name.upper() == "TIMESTAMPTZ_NS":
        ns = f"epoch_ns({identifier})"
        micros = f"(({ns}) - (({ns}) % 1000 + 1000) % 1000) // 1000"
    else:
        micros = f"epoch_us({identifier})"
    return seconds_of_micros(micros)


def connect(memory_limit: str | None = None, threads: int | None = None):
    """A new DuckDB connection with a memory limit and a spill folder, so scans larger than
    memory stream.

    Parameters
    ----------
    memory_limit : str, optional
        DuckDB's ``memory_limit`` (e.g. ``"2GB"``); default :func:`default_memory_limit`.
    threads : int, optional
        Worker threads; default all cores.

    Returns
    -------
    duckdb.DuckDBPyConnection
    """
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit or default_memory_limit()}'")
    con.execute(f"SET temp_directory = '{tempfile.gettempdir()}/heb_duckdb_spill'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


#: DuckDB's own names of the row key columns a parquet scan can add
_ROW_KEY = ("filename", "file_row_number")


def _parquet_names(source: Source) -> tuple[list[str], dict[str, str]]:
    """The columns of a parquet source (the first file's: a folder's files share them, as
    :func:`heb.scale.source.open_source` checks) and the view identifiers of those DuckDB
    cannot tell apart from an earlier one (names equal but for case)."""
    import pyarrow.parquet as pq

    try:
        names = [str(n) for n in pq.read_schema(source.files[0]).names]
    except Exception as exc:  # pyarrow raises several types for a broken footer
        first = source.files[0].name
        raise DataError(f"The file {first!r} is not a readable parquet file.") from exc
    seen: set[str] = set()
    renamed = {}
    for i, name in enumerate(names):
        if name.casefold() in seen:
            renamed[name] = f"{RESERVED_PREFIX}_c{i}"
        seen.add(name.casefold())
    return names, renamed


def _parquet_scan(
    files: str,
    names: list[str],
    renamed: dict[str, str],
    many: bool,
    options: list[str],
    keys: tuple[str, ...] = (),
    index: tuple[str, ...] = (),
) -> str:
    """The view's query over parquet ``files``: every column under its own name (or its
    ``renamed`` identifier) by position, plus the row key ``__heb_file``, ``__heb_row``.

    The file's columns are aliased by position, so a column named like a row key column of
    DuckDB's (``filename``, ``file_row_number``) or equal to another but for case is read
    as itself; such a clash reads the row key from DuckDB's virtual columns, otherwise the
    reader's options add it (any DuckDB version). A folder's files are matched by name.
    ``options`` are further reader options. A partitioned table's ``keys`` are read from
    its folder names as text (``%XX`` decoded, Hive's null partition as NULL), before the
    file's columns (whose last is the default target), and its row key's file is the
    partition values and the file's name. The ``index`` columns (a pandas index the
    files store) are not read.
    """
    q = DUCKDB.identifier
    positions = [f"{RESERVED_PREFIX}_p{i}" for i in range(len(names))]
    kept = [
        f"{p} AS {q(renamed.get(n, n))}"
        for p, n in zip(positions, names, strict=True)
        if not n.startswith(RESERVED_PREFIX) and n not in index
    ]
    options = [*options, "union_by_name = true"] if many else list(options)
    if not {n.casefold() for n in names} & set(_ROW_KEY):  # a key so named is refused
        options += ["filename = true", "file_row_number = true"]
    file = "parse_filename(filename)"
    if keys:
        options += ["hive_partitioning = true", "hive_types_autocast = false"]
        kept = [q(key) for key in keys] + kept
        file = partition_file_key(DUCKDB, keys, file)
    return (
        f"SELECT {', '.join(kept + [''])}{file} AS __heb_file, "
        f"file_row_number AS __heb_row FROM read_parquet({', '.join([files, *options])}) "
        f"AS {RESERVED_PREFIX}_t({', '.join(positions)})"
    )


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
        self._con = connect(memory_limit, threads)
        self.source: Source | None = None
        self._columns: list[tuple[str, str]] = []
        self._interrupted = False  # read by a CSV's UTF-8 copy, which is no DuckDB query

    # ---------------------------------------------------------------- data
    def _parquet_options(self) -> list[str]:
        """Reader options this DuckDB has: ``can_have_nan``, without which DuckDB trusts the
        files' min / max statistics, which leave NaN out, and folds ``isnan`` (and
        comparisons) of a float column holding NaN to false."""
        sql = (
            "SELECT list_contains(parameters, 'can_have_nan') FROM duckdb_functions() "
            "WHERE function_name = 'read_parquet'"
        )
        has_nan_option = any(row[0] for row in self._con.execute(sql).fetchall())
        return ["can_have_nan = true"] if has_nan_option else []

    def register(self, source: Source) -> list[tuple[str, str]]:
        """Expose ``source`` as the view ``heb_rows``; returns (column, type family) pairs."""
        files = "[" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in source.files) + "]"
        from heb.scale.csv_scan import copies_of

        earlier = copies_of(self._con)  # an earlier source's UTF-8 copies, removed once replaced
        renamed: dict[str, str] = {}
        notes: list[str] = []
        amounts: list[str] = []
        if source.format == "parquet":
            clash = [key for key in source.partition_keys if key.casefold() in _ROW_KEY]
            if clash:  # DuckDB's partition column would hide its own row key column
                raise DataError(
                    f"The partition key {clash[0]!r} of {source.label!r} is a name DuckDB "
                    "keeps for the row's file and row number; rename its partition folders."
                )
            names, renamed = _parquet_names(source)
            many = len(source.files) > 1
            options = self._parquet_options()
            keys, index = source.partition_keys, source.index_columns
            scan = _parquet_scan(files, names, renamed, many, options, keys, index)
        else:
            from heb.scale.csv_scan import csv_scan

            self._interrupted = False
            scan, renamed, notes, amounts = csv_scan(
                self._con, source.files, source.label, stop=lambda: self._interrupted
            )
        try:
            self._con.execute(f"CREATE OR REPLACE VIEW {VIEW} AS {scan}")
            described = self._con.execute(f"DESCRIBE {VIEW}").fetchall()
            times = [row[:2] for row in described if _family(row[1]) == "time"]
            if times:  # dates and time stamps read as seconds, as the in-memory reader does
                q = DUCKDB.identifier
                replaced = ", ".join(f"{_seconds(q(t), kind)} AS {q(t)}" for t, kind in times)
                # and as themselves too, for a target of dates
                raw = "".join(f", {q(t)} AS {raw_time_alias(i)}" for i, (t, _) in enumerate(times))
                self._con.execute(
                    f"CREATE OR REPLACE VIEW {VIEW} AS SELECT * REPLACE ({replaced}){raw} "
                    f"FROM ({scan}) AS {RESERVED_PREFIX}_s"
                )
        except Exception as exc:  # duckdb raises its own error classes per reader
            raise DataError(
                f"DuckDB could not read {source.label!r}: {str(exc).splitlines()[0]}"
            ) from exc
        view_names = {view: name for name, view in renamed.items()}
        self.source = source
        self.notes = notes
        self.amounts = amounts
        for remove in earlier:
            remove()
        self._columns = [
            (view_names.get(row[0], row[0]), _family(row[1]))
            for row in described
            if not row[0].startswith(RESERVED_PREFIX) or row[0] in view_names
        ]
        raw = {view_names.get(t, t): raw_time_alias(i) for i, (t, _) in enumerate(times)}
        self.dialect = DUCKDB.bound(self._columns, renamed, raw)
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
        exact = nullable_integer_types().get  # integers with NULLs stay exact, not float64
        for batch in self.batches(sql, batch_rows):
            yield func(batch.to_pandas(types_mapper=exact)), batch.num_rows

    def close(self) -> None:
        """Release the connection and delete a CSV's UTF-8 copies."""
        from heb.scale.csv_scan import copies_of

        self._con.close()
        for remove in copies_of(self._con):
            remove()

    def interrupt(self) -> None:
        """Stop the query running on this engine (from another thread): it raises there.

        DuckDB's ``DuckDBPyConnection.interrupt``; a query started after the call runs on,
        so a caller that cancels calls it until the thread running the queries has ended.
        A CSV's UTF-8 copy (:func:`heb.scale.csv_scan.csv_scan`) stops too.
        """
        self._interrupted = True
        self._con.interrupt()
