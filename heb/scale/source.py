"""Where large data lives: a parquet file, a CSV file, a folder of parquet files or a Hive-style
partitioned table (``events/date=1/part-0.parquet``, ...) under one root.

A user (the app, the CLI) names a path; :func:`resolve_data_path` keeps it inside the
configured data root (env ``HEB_DATA_ROOT``) and :func:`open_source` checks what is there
before any engine reads it: the format, and that every parquet file of a folder holds the
same columns, each of one type. Every refusal is a :class:`~heb.data.DataError` of one
sentence.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from heb.data import DataError
from heb.paths import user_path as expand_user_path

__all__ = [
    "DATA_ROOT_ENV",
    "PARQUET_SUFFIXES",
    "SOURCE_SUFFIXES",
    "Source",
    "is_partition_folder",
    "is_partition_name",
    "data_root",
    "resolve_data_path",
    "open_source",
]

#: the environment variable naming the folder large files are read from
DATA_ROOT_ENV = "HEB_DATA_ROOT"
#: names of parquet files (one, or the parts of a folder)
PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
#: delimited text the CSV scan reads (delimiter sniffed as an upload's), plain or gzipped
_TEXT = (".csv", ".tsv", ".tab", ".txt")
_CSV = _TEXT + tuple(suffix + ".gz" for suffix in _TEXT)
#: every file name ending an engine opens (lower case)
SOURCE_SUFFIXES = PARQUET_SUFFIXES + _CSV


@dataclass(frozen=True)
class Source:
    """Checked input of an engine.

    Attributes
    ----------
    path : Path
        The file or folder.
    format : {"parquet", "csv"}
    files : tuple of Path
        The files read (one, or every parquet file of the folder or of its partitions,
        sorted).
    partition_keys : tuple of str
        A partitioned table's keys, outermost first (``("date",)`` for
        ``events/date=1/``); each is a text column of the table. Empty otherwise.
    index_columns : tuple of str
        Columns pandas wrote from a DataFrame's index (named in the files' pandas
        metadata, such as ``__index_level_0__``): not data, so no engine reads them, as
        the in-memory reader makes them the index.
    """

    path: Path
    format: str
    files: tuple[Path, ...]
    partition_keys: tuple[str, ...] = ()
    index_columns: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The name shown to a user: the file or folder name."""
        return self.path.name


def data_root(root=None) -> Path:
    """The configured data root: ``root`` if given, else env ``HEB_DATA_ROOT``.

    Raises
    ------
    DataError
        Neither is set, or the root is not a folder.
    """
    value = root if root is not None else os.environ.get(DATA_ROOT_ENV)
    if not value:
        raise DataError(
            f"No data root is configured; set {DATA_ROOT_ENV} to the folder large files live in."
        )
    path = expand_user_path(value).resolve()
    if not path.is_dir():
        raise DataError(f"The data root {path.name!r} is not a folder that exists.")
    return path


def resolve_data_path(user_path, root=None) -> Path:
    """The absolute path of ``user_path`` (relative to the root, or absolute) inside the root.

    Symbolic links and ``..`` are resolved first, so neither can leave the root.

    Raises
    ------
    DataError
        The path lies outside the data root, or does not exist.
    """
    base = data_root(root)
    if "\0" in str(user_path):  # a link's %00: no path holds one (resolve() raised ValueError)
        raise DataError(f"The path {str(user_path)!r} holds a NUL character; no file is named so.")
    given = expand_user_path(str(user_path))
    candidate = (given if given.is_absolute() else base / given).resolve()
    if not candidate.is_relative_to(base):
        raise DataError(
            f"The path {str(user_path)!r} lies outside the data root; only files under "
            f"{DATA_ROOT_ENV} can be read."
        )
    if not candidate.exists():
        raise DataError(f"There is no file or folder {str(user_path)!r} under the data root.")
    return candidate


def _format_of(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(_CSV):
        return "csv"
    return None


def _type_name(arrow_type) -> str:
    """The Arrow type's name, with every encoding of text (large, view, dictionary) as string."""
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "string"
    if str(arrow_type) == "string_view":
        return "string"
    return str(arrow_type)


def _check_folder_schemas(
    files: list[Path], keys: tuple[str, ...] = (), table: Path | None = None
) -> tuple[str, ...]:
    """The parquet files of a folder hold the same columns, each of one type, none named
    like a partition key of ``keys``; a partitioned ``table``'s files are named by their
    path in it (``part-0.parquet`` is in every partition). Returns the columns any file's
    pandas metadata names as its index, in column order.

    A column of Arrow's null type (a file in which it has no value at all, as pandas writes
    an all-missing column) takes any type. Two columns whose names differ only in case are
    refused in a folder: DuckDB matches a folder's columns by name regardless of case.
    """
    import pyarrow.parquet as pq

    seen: dict[str, tuple[str, str]] = {}
    first_names: tuple[set[str], str] | None = None
    index: list[str] = []
    for file in files:
        shown = _shown(table, file) if table is not None else file.name
        try:
            schema = pq.read_schema(file)
        except Exception as exc:  # pyarrow raises several types for a broken footer
            raise DataError(f"The file {shown!r} is not a readable parquet file.") from exc
        # pandas' index columns are not data: a file may have one, another none
        own_index = _pandas_index(schema) & set(schema.names)
        index += [name for name in schema.names if name in own_index and name not in index]
        names = set(schema.names) - own_index
        _check_keys(schema.names, keys, shown)  # before the column sets: it says more
        if first_names is None:
            first_names = (names, shown)
            _check_case(schema.names, shown, several=len(files) > 1)
        elif names != first_names[0]:
            _refuse_column_sets(first_names, (names, shown))
        for field in schema:
            kind = _type_name(field.type)
            if kind == "null" or field.name in own_index:
                continue  # no value in this file (or not data): any type
            first = seen.setdefault(field.name, (kind, shown))
            if first[0] != kind:
                raise DataError(
                    f"Column {field.name!r} is {first[0]} in {first[1]!r} but {kind} in "
                    f"{shown!r}; give it one type in every file of the folder."
                )
    return tuple(index)


def _pandas_index(schema) -> set[str]:
    """The columns a file's pandas metadata names as the DataFrame's index (a RangeIndex
    is stored as metadata only, not as a column)."""
    try:
        meta = schema.pandas_metadata or {}
    except ValueError:  # metadata that is not JSON: no index is known
        return set()
    return {name for name in meta.get("index_columns", []) if isinstance(name, str)}


def _check_case(names: list[str], file: str, several: bool) -> None:
    """Refuse a column named twice, and in a folder two names equal but for case."""
    folded: dict[str, str] = {}
    for name in names:
        key = name.casefold() if several else name
        if key in folded and folded[key] == name:
            raise DataError(
                f"Column {name!r} appears twice in {file!r}; give each column a unique name."
            )
        other = folded.setdefault(key, name)
        if other != name:
            raise DataError(
                f"Columns {other!r} and {name!r} of {file!r} differ only in case, which a "
                "folder of parquet files cannot tell apart; rename one of them."
            )


def _check_keys(names: list[str], keys: tuple[str, ...], file: str) -> None:
    """Refuse a file column named like a partition key (the table would hold it twice)."""
    folded = {key.casefold(): key for key in keys}
    for name in names:
        if name.casefold() in folded:
            raise DataError(
                f"Column {name!r} of {file!r} is also the partition key "
                f"{folded[name.casefold()]!r} of its table; rename the column or the key."
            )


def _refuse_column_sets(first: tuple[set[str], str], other: tuple[set[str], str]) -> None:
    """One sentence naming a column that one file of a folder has and another lacks."""
    (names, name), (other_names, other_name) = first, other
    if names - other_names:
        column, holder, lacking = min(names - other_names), name, other_name
    else:
        column, holder, lacking = min(other_names - names), other_name, name
    raise DataError(
        f"Column {column!r} is in {holder!r} but not in {lacking!r}; give every parquet file "
        "of the folder the same columns."
    )


def is_partition_name(name: str) -> bool:
    """Whether a folder name reads key=value (both parts non-empty)."""
    key, sep, value = name.partition("=")
    return sep == "=" and bool(key) and bool(value)


def is_partition_folder(path: Path) -> bool:
    """Whether ``path`` is a folder named key=value (a partition of a Hive-style table)."""
    return is_partition_name(path.name) and path.is_dir()


def _partitioned_files(table: Path) -> tuple[list[Path], tuple[str, ...]]:
    """The parquet files of a Hive-style table and its partition keys, outermost first.

    Every file lies at the same depth, each folder on the way named key=value with the
    same key at the same depth; other entries (Spark's ``_SUCCESS``, checksums, hidden
    files and folders) are ignored, except CSV files, plain folders and links to folders
    (which could lead out of the data root), which are refused.
    """
    files: list[Path] = []
    keys: tuple[str, ...] | None = None
    for folder, dirs, names in os.walk(table):
        here = Path(folder)
        parts = here.relative_to(table).parts
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        plain = [d for d in dirs if not is_partition_name(d) or (here / d).is_symlink()]
        if plain:
            raise DataError(
                f"The partition folder {_shown(table, here / plain[0])!r} is not named "
                "key=value, or is a link; every folder of a partitioned table is a "
                "partition of its own."
            )
        for name in sorted(names):
            kind = _format_of(here / name)
            if kind == "csv":
                raise DataError(
                    f"The partition {_shown(table, here)!r} holds a CSV or other text file "
                    f"({name!r}); a partitioned table may hold parquet files only."
                )
            if kind != "parquet" or not parts:
                continue
            found = tuple(part.partition("=")[0] for part in parts)
            if keys is None:
                keys = found
            elif found != keys:
                raise DataError(
                    f"The partitions of {table.name!r} are keyed {'/'.join(keys)!r} but "
                    f"{_shown(table, here)!r} by {'/'.join(found)!r}; give every partition "
                    "the same keys in the same order."
                )
            files.append(here / name)
    if keys is None:
        raise DataError(f"The partitioned table {table.name!r} holds no parquet file.")
    if len({key.casefold() for key in keys}) < len(keys):
        raise DataError(f"The partitions of {table.name!r} name a key twice ({'/'.join(keys)!r}).")
    return sorted(files), keys


def _shown(table: Path, path: Path) -> str:
    """A path inside a table as a user names it: from the table's folder down."""
    return (Path(table.name) / path.relative_to(table)).as_posix()


def open_source(path, root=None) -> Source:
    """Check a file or folder under the data root and describe it for an engine.

    Parameters
    ----------
    path : str or Path
        Relative to the data root, or absolute (it must still lie under the root).
    root : str or Path, optional
        The data root; default env ``HEB_DATA_ROOT``.

    Raises
    ------
    DataError
        Outside the root, missing, not a regular file (a FIFO, a device), ARFF, neither
        parquet nor delimited text, a folder
        holding CSV files or no parquet file, parquet files of a folder whose columns
        differ (in name or type), or a partitioned table whose partitions are keyed
        differently or whose files hold a column named like a key.
    """
    resolved = resolve_data_path(path, root)
    if resolved.is_dir():
        entries = sorted(resolved.iterdir())  # listed once: a folder may hold thousands
        files = [p for p in entries if p.is_file() and _format_of(p) == "parquet"]
        csvs = [p.name for p in entries if p.is_file() and _format_of(p) == "csv"]
        if csvs:  # never silently left out
            raise DataError(
                f"The folder {resolved.name!r} holds CSV or other delimited text files "
                f"({csvs[0]!r}); a folder may hold parquet files only: give each "
                "text file as its own path."
            )
        partitions = [p.name for p in entries if is_partition_folder(p)]
        if files and partitions:  # reading either alone would silently drop the other's rows
            raise DataError(
                f"The folder {resolved.name!r} holds parquet files ({files[0].name!r}) beside "
                f"partition folders ({partitions[0]!r}); move the files into a partition, or "
                "give one partition alone."
            )
        if partitions:
            files, keys = _partitioned_files(resolved)
            index = _check_folder_schemas(files, keys, resolved)
            return Source(resolved, "parquet", tuple(files), keys, index)
        if not files:
            raise DataError(
                f"The folder {resolved.name!r} holds no parquet file (parquet files are found "
                "by their name: .parquet, .parq or .pq)."
            )
        index = _check_folder_schemas(files)
        return Source(resolved, "parquet", tuple(files), (), index)
    if not resolved.is_file():  # a FIFO blocks the reader forever, a device never ends
        raise DataError(f"{resolved.name!r} is not a regular file, so it is not read.")
    kind = _format_of(resolved)
    if kind is None and resolved.name.lower().endswith((".arff", ".arff.gz")):
        raise DataError(
            f"The file {resolved.name!r} is ARFF, which is read in memory only (an upload, "
            "or heb bench without --engine); save it as parquet or CSV for the engine."
        )
    if kind is None:
        raise DataError(
            f"The file {resolved.name!r} is neither parquet nor delimited text; give a "
            ".parquet, .csv, .tsv, .tab or .txt file (the text ones may be gzipped)."
        )
    index = _check_folder_schemas([resolved]) if kind == "parquet" else ()
    return Source(resolved, kind, (resolved,), (), index)
