"""How :class:`~heb.data.preprocess.Preprocessor` reads one column's values.

A column is read as floats (numbers, dates and durations as time stamps; anything
non-finite or unreadable is NaN), as exact Python ints (integer columns: IDs beyond 2**53
stay distinct) or as text labels; :func:`column_kind` says whether a column is coded by
its categories or binned as a number, and :func:`format_number` / :func:`format_time` /
:func:`bin_labels` write the labels of numbers, times and quantile bins (:func:`flag_labels`
those of a flag's two bins). Everything here
reads a column and learns nothing: fitting lives in :mod:`heb.data.preprocess`.
"""

from __future__ import annotations

import datetime
import warnings

import numpy as np
import pandas as pd

from heb.data.dataset import DataError, is_id_like_name, is_integer_like, is_text_dtype

__all__ = [
    "as_fitted_time",
    "bin_labels",
    "category_values",
    "column_kind",
    "flag_labels",
    "format_number",
    "format_time",
    "integer_values",
    "number_kind",
    "numeric_values",
    "text_values",
    "time_kind",
]


def format_number(value: float) -> str:
    """A number as a label: whole numbers written out in full, others to 6 digits."""
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def format_time(seconds: float, kind: str, of_day: bool | None = None) -> str:
    """A time of :func:`numeric_values` as a label: a date (``2024-03-01``) or a date and
    time of day (``of_day``; by default when it has one) for ``kind="datetime"``, a
    duration (``1 days 02:00:00``, ``00:12:30``) for ``"timedelta"``, a number otherwise."""
    if not kind or not np.isfinite(seconds):
        return format_number(seconds)
    if kind == "timedelta":
        return str(pd.Timedelta(seconds=seconds).round("s")).removeprefix("0 days ")
    stamp = pd.Timestamp(seconds, unit="s").round("s")
    if of_day is None:
        of_day = stamp != stamp.normalize()
    return stamp.strftime("%Y-%m-%d %H:%M:%S" if of_day else "%Y-%m-%d")


def bin_labels(cuts: np.ndarray, kind: str = "") -> list[str]:
    """The interval label of every bin the interior ``cuts`` make, like ``"[1.5, 3.2)"``
    (with ``kind`` from :func:`time_kind`, like ``"[2024-01-17, 2024-02-15)"``)."""
    # one format for a column: dates alone only when every cut is a midnight, so no two
    # bounds of different bins read as the same day
    of_day = bool(np.any(np.asarray(cuts) % 86_400 != 0))
    edges = np.concatenate(([-np.inf], cuts, [np.inf]))
    labels = []
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        opening = "(" if np.isinf(low) else "["
        labels.append(
            f"{opening}{format_time(low, kind, of_day)}, {format_time(high, kind, of_day)})"
        )
    return labels


def flag_labels(observed: np.ndarray, kind: str = "") -> list[str] | None:
    """The labels of a numeric column's bins when its observed floats are two whole numbers
    (a 0/1 flag such as ``is_member``, a 1/2 code): the values, ``["0", "1"]``, as a
    category column's, not the bins ``"(-inf, 1)"`` and ``"[1, inf)"``; None for any other
    column (a constant stays ``"(-inf, inf)"``, the one bin of every value) and for times.
    Such a column gets one bin per value (:func:`heb.data.binning.value_cuts`), so its
    codes are those of its values on every path; only the labels change."""
    if kind or not observed.size:
        return None
    low, high = float(observed.min()), float(observed.max())
    if low == high or not (low.is_integer() and high.is_integer()):
        return None
    if not np.all((observed == low) | (observed == high)):
        return None
    return [format_number(low), format_number(high)]


def dates_as_times(column: pd.Series) -> pd.Series:
    """An object column of ``datetime.date`` values (``pd.read_parquet`` of a date column,
    ``series.dt.date``) as ``datetime64[s]``, so it is binned as dates, as heb's readers
    give it, not read as a category per day; any other column as it is."""
    if column.dtype != object:
        return column
    values = column.dropna()
    if values.empty or not all(type(v) is datetime.date for v in values):
        return column
    return column.astype("datetime64[s]")


def time_kind(column: pd.Series) -> str:
    """``"datetime"`` (dates, time stamps, periods), ``"timedelta"`` (durations) or ``""``."""
    if isinstance(column.dtype, pd.PeriodDtype) or pd.api.types.is_datetime64_any_dtype(
        column.dtype
    ):
        return "datetime"
    return "timedelta" if pd.api.types.is_timedelta64_dtype(column.dtype) else ""


#: what a time kind holds, as a sentence says it
_TIME_WORDS = {"datetime": "dates or times", "timedelta": "durations", "": "numbers"}


def as_fitted_time(column: pd.Series, fitted: str) -> pd.Series:
    """``column`` read as the time kind (:func:`time_kind`) a bin encoder was fitted on.

    Text is parsed as dates or durations (a model fitted on a parquet file's time stamps
    scoring a CSV of the same stamps: every row read as missing before); in an object
    column, time objects are kept and numbers and booleans read as missing, as other
    unreadable cells; a column of another kind is refused, as its values would be cut on
    another scale (seconds against numbers).

    Raises
    ------
    DataError
        Times where the encoder learned numbers (also a model saved before times were
        read in seconds), or numbers or durations where it learned dates.
    """
    given = time_kind(column)
    if given == fitted:
        return column
    if fitted and not given and is_text_dtype(column.dtype):
        cells = column.astype(object).where(column.notna())
        # a number or boolean among them is no time: unreadable, so missing (parsed, 5
        # read as 5 ns after 1970, and True raised pandas' TypeError for durations)
        cells = cells.where(pd.to_numeric(cells, errors="coerce").isna())
        with warnings.catch_warnings():  # "could not infer format": each value on its own
            warnings.simplefilter("ignore", UserWarning)
            if fitted == "datetime":
                return pd.to_datetime(cells, errors="coerce", utc=True, format="mixed")
            # as text: pandas raises on a time stamp object even with errors="coerce"
            return pd.to_timedelta(cells.where(cells.isna(), cells.astype(str)), errors="coerce")
    more = (
        " (if it was trained on times, it was saved by an earlier heb, which cut them in "
        "another unit: refit and save it)"
        if given and not fitted
        else ""
    )
    raise DataError(
        f"Column {column.name!r} holds {_TIME_WORDS[given]}, where the model was trained on "
        f"{_TIME_WORDS[fitted]}{more}."
    )


def numeric_values(column: pd.Series) -> np.ndarray:
    """Floats with every non-finite or non-numeric entry as NaN.

    Dates, time stamps and periods become seconds since 1970-01-01 UTC and durations
    seconds, whatever their unit (``datetime64[ms]`` from a parquet file, ``[ns]`` from
    pandas), so they are binned like any other number and cut the same way at transform.
    """
    kind = time_kind(column)
    if kind:
        if isinstance(column.dtype, pd.PeriodDtype):
            column = column.dt.to_timestamp()
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            column = column.dt.tz_convert(None)  # the same instant in UTC
        unit = "datetime64[us]" if kind == "datetime" else "timedelta64[us]"
        micros = column.to_numpy(dtype=unit, na_value=np.datetime64("NaT")).astype(np.int64)
        return np.where(column.isna().to_numpy(), np.nan, micros / 1e6)
    if not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        column = pd.to_numeric(column.astype(object), errors="coerce")
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.where(np.isfinite(values), values, np.nan)


def integer_values(column: pd.Series) -> np.ndarray:
    """Object array of exact Python ints, missing as None (no float64 round trip, so IDs
    beyond 2**53 stay distinct)."""
    return column.to_numpy(dtype=object, na_value=None)


def category_values(column: pd.Series, numeric: str) -> np.ndarray:
    """The values a categorical column is coded from: ``numeric`` is ``"integer"``,
    ``"float"`` or ``""`` (text)."""
    if numeric == "integer":
        return integer_values(column)
    return numeric_values(column) if numeric else text_values(column)


def number_kind(column: pd.Series) -> str:
    """``"integer"`` (numpy or nullable integers), ``"float"`` (other numbers) or ``""``."""
    if pd.api.types.is_bool_dtype(column.dtype) or not pd.api.types.is_numeric_dtype(column.dtype):
        return ""
    return "integer" if pd.api.types.is_integer_dtype(column.dtype) else "float"


def column_kind(name, column: pd.Series, declared) -> str:
    """``"categorical"`` (declared, text, or integers under an ID-like name) or
    ``"numeric"`` (binned): how :class:`Preprocessor` reads a column."""
    if name in declared or is_text_dtype(column.dtype):
        return "categorical"
    if is_id_like_name(name) and is_integer_like(column):
        return "categorical"
    return "numeric"


def text_values(column: pd.Series) -> np.ndarray:
    """Object array of category labels as strings, missing as None."""
    present = column.notna().to_numpy()
    labels = np.full(len(column), None, dtype=object)
    if present.any():
        labels[present] = column[present].astype(str).to_numpy(dtype=object)
    return labels
