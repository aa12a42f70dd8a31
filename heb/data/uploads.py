"""An uploaded file as a :class:`~heb.data.Dataset`: the table :func:`read_table` made of
its bytes, its target and the columns declared categorical."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    DataError,
    Dataset,
    column_names,
    columns_phrase,
    finalize,
    quote,
)
from heb.data.readers import read_table

__all__ = ["dataset_from_table", "load_upload"]


def dataset_from_table(
    frame: pd.DataFrame,
    filename: str,
    target: str | None = None,
    categorical: Sequence[str] = (),
    drop: Sequence[str] = (),
) -> Dataset:
    """A :class:`Dataset` from a table :func:`read_table` returned (its notes and declared
    categorical columns travel in ``frame.attrs``); ``categorical`` declares more columns
    categorical (each value a category, numbers not binned); ``drop`` leaves columns out
    (a row identifier; never the target).

    The app reads an upload once with :func:`read_table` (to offer the target choice) and
    builds the Dataset from that table for each target, instead of parsing the file again.
    Raises :class:`DataError` naming any ``categorical`` or ``drop`` column the table does
    not have.
    """
    name = Path(str(filename)).name or "upload"
    have = {str(c) for c in frame.columns}
    wanted = column_names(categorical)  # one name alone is one column, not its letters
    left_out = column_names(drop)
    for names, what in ((wanted, "declared categorical"), (left_out, "to be left out")):
        unknown = [column for column in names if column not in have]
        if unknown:
            raise DataError(
                f"{columns_phrase(unknown)} {'are' if len(unknown) > 1 else 'is'} {what} "
                f"but not a column of {quote(name)}."
            )
    return finalize(
        frame,
        target,
        name=name,
        source=f"upload:{name}",
        declared=[*frame.attrs.get("heb_categorical", []), *wanted],
        drop=left_out,
        notes=frame.attrs.get("heb_notes", []),
        amounts=frame.attrs.get("heb_amounts", []),
    )


def load_upload(
    data: bytes,
    filename: str,
    target: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    categorical: Sequence[str] = (),
    drop: Sequence[str] = (),
) -> Dataset:
    """A :class:`Dataset` from an uploaded file: :func:`read_table` then
    :func:`dataset_from_table`.

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str
        Its name (the extension helps detect the format).
    target : str, optional
        The target column; default :func:`default_target` (the last column).
    max_bytes : int
        Size limit, default 200 MB.
    categorical : sequence of str
        Columns to treat as categorical besides the text ones (a code stored as numbers).
    drop : sequence of str
        Columns to leave out (a row identifier, a column of no use); never the target.
    """
    _check_bytes(data)
    table = read_table(data, filename, max_bytes)
    return dataset_from_table(table, filename, target, categorical, drop)


def _check_bytes(data) -> None:
    """Refuse a path, a DataFrame or an open file in one sentence naming the call that
    takes it (read_table's "must be the bytes of a file" did not say what to do)."""
    if isinstance(data, bytes | bytearray | memoryview):
        return
    if isinstance(data, str) and "\n" in data:  # a file read in text mode
        how = "open the file with 'rb', or pass text.encode()"
    elif isinstance(data, str | Path):
        how = "to read a file by its path, call load_dataset(path)"
    elif isinstance(data, pd.DataFrame):
        how = "a DataFrame becomes a Dataset with dataset_from_table(frame, name, target=...)"
    elif hasattr(data, "read"):
        how = "pass the open file's content, f.read(), from a file opened with 'rb'"
    else:
        how = "pass the content of a file opened with 'rb'"
    raise DataError(f"load_upload takes the bytes of a file, got a {type(data).__name__}: {how}.")
