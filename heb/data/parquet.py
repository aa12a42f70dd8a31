"""Parquet files read within a budget: the metadata is checked before any column is decoded.

A parquet file is compressed column chunks; a few kilobytes can decode to gigabytes (runs
of zeros, a long string repeated through a dictionary). So the footer is read first and
the file refused when its rows x columns exceed :data:`~heb.data.dataset.MAX_CELLS` or its
uncompressed column chunks exceed the byte budget; text columns are then decoded as
dictionaries (pandas categoricals: each distinct string stored once), decimals become
floats, and nested columns (list / struct / map) are refused by name.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from heb.data.dataset import DEFAULT_MAX_BYTES, DataError, check_cells, quote
from heb.data.names import format_size

__all__ = ["read_parquet", "nullable_integer_types"]


def _damaged() -> DataError:
    return DataError("The parquet file could not be read; it may be damaged or incomplete.")


def _nested_column(schema) -> str | None:
    import pyarrow as pa

    nested = (
        pa.types.is_list,
        pa.types.is_large_list,
        pa.types.is_fixed_size_list,
        pa.types.is_struct,
        pa.types.is_map,
        pa.types.is_union,
    )
    for arrow_field in schema:
        if any(check(arrow_field.type) for check in nested):
            return arrow_field.name
    return None


def nullable_integer_types() -> dict:
    """Arrow integer types to pandas' nullable ones: an integer column with a missing
    value stays exact (pyarrow's default turns it into float64, merging IDs past 2**53).

    Pass its ``get`` as ``types_mapper`` to ``pyarrow.Table.to_pandas``.
    """
    import pyarrow as pa

    return {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
    }


def _byte_width(arrow_type) -> int:
    """Bytes per value once decoded (8 for anything without a fixed width)."""
    try:
        return max(1, arrow_type.bit_width // 8)
    except ValueError:
        return 8


def read_parquet(
    source: bytes | str | Path, max_bytes: int = DEFAULT_MAX_BYTES, *, max_columns: int
) -> pd.DataFrame:
    """A parquet file as a DataFrame, refused before decoding when it exceeds the budget.

    Parameters
    ----------
    source : bytes or path
        The file's content or its path.
    max_bytes : int
        Most uncompressed bytes of column data (the sum over the footer's column chunks).
    max_columns : int
        Widest table accepted.

    Raises
    ------
    DataError
        Damaged files, nested columns, and files over the column, cell or byte budget.
    """
    import pyarrow.parquet as pq

    handle = io.BytesIO(source) if isinstance(source, bytes) else str(source)
    try:
        parquet = pq.ParquetFile(handle)
        meta = parquet.metadata
        schema = parquet.schema_arrow
    except Exception as exc:  # pyarrow raises several types for damaged footers
        raise _damaged() from exc
    if meta.num_columns > max_columns:
        raise DataError(
            f"The table has {meta.num_columns:,} columns, more than the {max_columns:,} this "
            "app handles."
        )
    nested = _nested_column(schema)
    if nested is not None:
        raise DataError(
            f"The parquet column {quote(nested)} holds lists, structs or maps; this app reads "
            "only flat columns of numbers or text."
        )
    check_cells(meta.num_rows, meta.num_columns)
    unpacked = sum(
        meta.row_group(g).column(c).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for c in range(meta.row_group(g).num_columns)
    )
    import pyarrow as pa

    text = [
        f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
    ]
    # decoded size: every row of every column at its in-memory width (4-byte codes for text
    # read as a dictionary) plus the encoded pages; run-length or dictionary encoding can
    # make the pages tiny while the decoded table is not
    widths = [4 if f.name in text else _byte_width(f.type) for f in schema]
    unpacked += meta.num_rows * sum(widths)
    if unpacked > max_bytes:
        raise DataError(
            f"The parquet file unpacks to about {format_size(unpacked)}, more than the size "
            f"limit of {format_size(max_bytes)}."
        )
    handle = io.BytesIO(source) if isinstance(source, bytes) else str(source)
    try:
        table = pq.ParquetFile(handle, read_dictionary=text or None).read(use_pandas_metadata=True)
        # a date column as dates (binned as a time, like a time stamp), not as an object
        # column of datetime.date, which would make each day a category of its own
        frame = table.to_pandas(types_mapper=nullable_integer_types().get, date_as_object=False)
    except Exception as exc:
        raise _damaged() from exc
    return _decimals_as_floats(frame, schema)


def _decimals_as_floats(frame: pd.DataFrame, schema) -> pd.DataFrame:
    """Decimal columns as float64 (pyarrow gives ``decimal.Decimal`` objects, which would be
    coded as text), each value the nearest float (``float(Decimal)``, as the large-data path
    reads them; pyarrow's own cast can be one unit in the last place off)."""
    import pyarrow as pa

    for arrow_field in schema:
        if pa.types.is_decimal(arrow_field.type) and arrow_field.name in frame.columns:
            column = frame[arrow_field.name]
            numbers = pd.to_numeric(column.astype(object), errors="coerce")
            frame[arrow_field.name] = numbers.astype("float64")  # whole decimals too
    return frame
