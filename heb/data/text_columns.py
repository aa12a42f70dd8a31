"""How the columns of a delimited text file are typed after pandas has parsed it: integers
past 2**53 kept exact, codes written with a leading zero kept as text, text cells stripped,
decimal commas read in semicolon-separated files (:func:`heb.data.readers.read_table`)."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

from heb.data.column_notes import (  # noqa: F401 (importable from here, as before)
    ColumnsNote,
    case_note,
    codes_note,
    comma_note,
    conversion_notes,
    date_note,
    mixed_note,
)
from heb.data.dataset import NA_TOKENS, is_integer_like, is_text_dtype

__all__ = [
    "COMMA_NUMBER",
    "DATE_PATTERN",
    "DECIMAL_COMMA",
    "GROUPED_EXAMPLE",
    "PERCENT",
    "PERCENT_COMMA",
    "PLAIN_NUMBER",
    "THOUSANDS",
    "case_note",
    "comma_note",
    "conversion_notes",
    "date_note",
    "exact_big_integers",
    "leading_zero_codes",
    "tidy_text_columns",
    "typed_date_notes",
]


#: a number in the decimal-comma convention: ``12,5``, ``-0,25``, ``1.234,56``, ``1.234``
DECIMAL_COMMA = (
    r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]+)?|[0-9]*,[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?"
)
#: a quoted ``12,5`` in a comma-separated file (a decimal comma, or a thousands separator)
COMMA_NUMBER = r"[+-]?[0-9]+,[0-9]+"
#: a number with Excel's thousands separators, ``1,234`` or ``12,345,678.5``
THOUSANDS = r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?"
#: a plain number as a spreadsheet writes it: ``852``, ``-0.5``, ``.25``
PLAIN_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
#: a percentage as a spreadsheet writes it: ``12%``, ``12.5 %``
PERCENT = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+) ?%"
#: the same with a decimal comma (a semicolon-separated file): ``12,5%``
PERCENT_COMMA = r"[+-]?(?:[0-9]+(?:,[0-9]*)?|,[0-9]+) ?%"
#: a calendar date as spreadsheets write it: ``06/29/2024``, ``29.06.2024``, ``2024-06-29``
#: (a time of day may follow)
DATE_PATTERN = (
    r"(?:[0-9]{1,2}[/.-][0-9]{1,2}[/.-][0-9]{2,4}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2})"
    r"(?:[ T][0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?)?"
)
#: a date column of more distinct values than this is named in a note
DATE_NOTE_VALUES = 20
#: integers beyond this magnitude are not exact in a float64
_EXACT_FLOAT = 2**53


def _as_written(text: str, columns: list, options: dict) -> pd.DataFrame:
    """``columns`` of the delimited ``text`` read again as text, as written (NA tokens
    missing), with the reader's parsing ``options``."""
    return pd.read_csv(
        io.StringIO(text),
        header=None,
        skiprows=1,
        usecols=columns,
        dtype=str,
        na_values=list(NA_TOKENS),
        keep_default_na=False,
        **options,
    )


def exact_big_integers(frame: pd.DataFrame, text: str, options: dict) -> pd.DataFrame:
    """Re-read as exact integers the float columns that hold whole numbers beyond 2**53.

    pandas turns an integer column with a missing cell into float64, which merges IDs
    above 2**53 (2**53 and 2**53 + 1 become one value). Such a column is read again as
    text and converted to pandas' nullable ``Int64`` (or kept as text past int64's range).
    """
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c].dtype)]
    if not floats:
        return frame
    values = frame[floats].to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        big = np.nanmax(np.where(np.isfinite(values), np.abs(values), 0), axis=0) >= _EXACT_FLOAT
    lossy = [c for c, flag in zip(floats, big, strict=True) if flag]
    if not lossy:
        return frame
    raw = _as_written(text, lossy, options)
    for column in lossy:
        cells = raw[column].str.strip()
        missing = cells.isna().to_numpy()
        whole = pd.to_numeric(cells.fillna("0"), errors="coerce")
        if whole.dtype.kind in "iu":  # every cell an integer within int64 / uint64: exact
            frame[column] = pd.arrays.IntegerArray(whole.to_numpy(), missing)
        elif cells.dropna().str.fullmatch(r"[+-]?[0-9]+").all():  # past uint64: exact as text
            frame[column] = cells
    return frame


#: where a cell may begin with a leading zero (``02134``): after a delimiter (``{sep}``), a
#: line end, a quote or the spaces pandas skips; each a literal, which ``re`` finds fast
_ZERO_LEADS = ("{sep}", "\n", "\r", '"', " ", "\t")


def leading_zero_codes(
    frame: pd.DataFrame, text: str, options: dict
) -> tuple[pd.DataFrame, list[int]]:
    """Re-read as text, as written, the number columns that hold codes with a leading zero
    (ZIP codes ``02134``, ``00501``): every value a string of digits, some beginning with a
    0 (and not just ``0``). pandas reads them as numbers, losing the zero and binning the
    codes as amounts. Returns the frame and those columns' positions.

    When the table has a non-negative whole-number column, the text is searched for a
    digit string starting with 0 after a delimiter, a line end, a quote or a space (a few
    literal searches: 0.12 s for 26 MB of numbers, which pandas parses in 0.35 s); only
    when one is found are those columns read again as text.
    """
    candidates = [
        column
        for column in frame.columns
        if is_integer_like(frame[column]) and bool((frame[column].dropna() >= 0).all())
    ]
    sep = options["sep"]
    if not candidates or not any(
        re.search(re.escape(lead.format(sep=sep) + "0") + "[0-9]", text) for lead in _ZERO_LEADS
    ):
        return frame, []
    raw = _as_written(text, candidates, options)
    codes = []
    for column in candidates:
        cells = raw[column].str.strip()
        written = cells.dropna()
        if written.str.fullmatch("[0-9]+").all() and written.str.fullmatch("0[0-9]+").any():
            frame[column] = cells
            codes.append(frame.columns.get_loc(column))
    return frame, codes


def case_variants(distinct: pd.Series) -> tuple[str, str] | None:
    """Two of the ``distinct`` text values that differ only in letter case, or None."""
    folded = distinct.str.casefold()
    repeated = folded.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return None
    first = folded[repeated].iloc[0]
    pair = distinct[repeated & (folded == first).to_numpy()]
    return str(pair.iloc[0]), str(pair.iloc[1])


def _thousands_grouped(distinct: pd.Series) -> bool:
    """Whether the distinct cells of a comma-separated file's column are numbers written with
    thousands separators beyond doubt (Excel's ``#,##0`` format): every cell a plain number
    or one grouped by commas, at least one grouped, and either a grouped cell that no decimal
    comma can explain (``12,345,678`` or ``1,234.5``) or plain cells that all stay below
    1,000 (``852`` beside ``1,275``: the format groups every larger number). A column whose
    every cell reads ``12,000`` stays ambiguous (``12.000`` in a decimal-comma locale)."""
    grouped = distinct.str.fullmatch(THOUSANDS)
    plain = distinct.str.fullmatch(PLAIN_NUMBER)
    if not grouped.any() or not (grouped | plain).all():
        return False
    marks = distinct[grouped]
    if (marks.str.count(",") > 1).any() or marks.str.contains(".", regex=False).any():
        return True
    small = pd.to_numeric(distinct[plain]).abs() < 1000
    return bool(plain.any() and small.all())


def _as_numbers(text: pd.Series) -> pd.Series:
    """``to_numeric`` of a spreadsheet's numbers once rewritten (``1275``, ``12.5``): int64,
    uint64 past it, float64 beside a fraction or a missing cell. Integers past both (or
    past int64 beside a negative one) pandas leaves as Python integers or as the text it
    was given, which no later step reads as numbers: those are float64, as the note says
    they are read as numbers (and as the large-file path, :mod:`heb.scale.csv_scan`,
    reads them)."""
    numbers = pd.to_numeric(text)
    if numbers.dtype.kind not in "iuf":
        numbers = pd.to_numeric(text.astype("float64"))
    return numbers


def _plain_past_uint64(distinct: pd.Series) -> bool:
    """Whether a text column's ``distinct`` values are integers written plainly that pandas
    keeps as text (past uint64, or past int64 beside a negative one): such a column of a
    semicolon-separated file stays text, as in a comma-separated one, rather than pass
    for decimal-comma numbers (:func:`_as_numbers` would read it as float64).

    The rule, on both paths (the large-file path's
    :func:`heb.scale.csv_typing.whole_commas` and ``_long_integers``): a column whose every
    value is an integer written plainly (a sign, digits; spaces around them aside), some
    past uint64, is text in a file of any delimiter. Such integers are identifiers (an
    account, a card, a hash) more than amounts: as float64 those closer than its spacing
    merge (at 23 digits, 2**21, about 2 * 10**6), where SPEC 1 codes each distinct value
    as its category; pandas' parser keeps a comma file's as text. Written with a semicolon
    file's points (``12.345.678.901``) or beside a decimal comma they are numbers."""
    return bool(
        distinct.str.fullmatch(r"[+-]?[0-9]+").all()
        and pd.to_numeric(distinct).dtype.kind not in "iu"
    )


#: the whitespace pandas' number parser skips around a number
_ASCII_SPACE = " \t\n\x0b\x0c\r"


def _long_before_a_fraction(values: pd.Series, text: pd.Series, distinct: pd.Series) -> bool:
    """Whether a column pandas' parser left as text is numbers it would have read as
    float64 but for their order: an integer past uint64 before the first fraction,
    exponent or ``inf`` (``12345678901234567890123`` then ``1.5`` is text to it, ``1.5``
    then ``12345678901234567890123`` float64). Every value, ``text`` (stripped, NA tokens
    missing) of the parsed ``values``, is such a number with only ASCII whitespace around
    it (``\u00a0852`` is text to the parser in any order), none missing but those the
    parser takes as missing (an NA token after leading spaces), and not every one an
    integer (plain integers past uint64 stay text, :func:`_plain_past_uint64`). Such a
    column is float64, as the large-file path (:mod:`heb.scale.csv_scan`) reads it
    whatever the order."""
    if pd.isna(pd.to_numeric(distinct.iloc[0], errors="coerce")):  # most columns: words
        return False
    if distinct.str.fullmatch(r"[+-]?[0-9]+").all():
        return False
    if pd.to_numeric(distinct, errors="coerce").isna().any():
        return False
    # the parser, once it overflowed, left its NA tokens as written ('NA', ''): those are
    # missing, a token only once stripped ('NA ') is not to the parser
    raw = values.astype("str").where(values.notna())
    missing = (values.isna() | raw.str.lstrip(" ").isin(NA_TOKENS)).to_numpy()
    if not np.array_equal(text.isna().to_numpy(), missing):
        return False
    ascii_stripped = raw[~missing].str.strip(_ASCII_SPACE)
    return bool((ascii_stripped == text[~missing]).all())


def _written_numbers(
    values: pd.Series, text: pd.Series, distinct: pd.Series, decimal_comma: bool
) -> pd.Series | None:
    """A text column read as the numbers it holds, or None: with ``decimal_comma`` (a
    semicolon file's column that is not codes), every value a number written with a
    decimal comma (``12,5``, ``1.234``; plain integers past uint64 aside,
    :func:`_plain_past_uint64`), or numbers pandas' parser left as text for their order
    alone (:func:`_long_before_a_fraction`)."""
    if not distinct.size:
        return None
    if (
        decimal_comma
        and not _plain_past_uint64(distinct)
        and distinct.str.fullmatch(DECIMAL_COMMA).all()
    ):
        plain = text.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        return _as_numbers(plain)
    if _long_before_a_fraction(values, text, distinct):
        return text.astype("float64")
    return None


def _percent_example(distinct: pd.Series, decimal_comma: bool) -> str:
    """The percentage a note quotes of a column's ``distinct`` values: the first that is
    not zero (``0%`` shows neither the scale nor the decimals of a column of rates), else
    the first; as the large-file path picks it (:mod:`heb.scale.csv_scan`)."""
    number = distinct.str.rstrip("%").str.strip()
    if decimal_comma:
        number = number.str.replace(",", ".", regex=False)
    nonzero = distinct[number.astype("float64").to_numpy() != 0]
    return str(nonzero.iloc[0] if nonzero.size else distinct.iloc[0])


#: a number whose first digit is not 0: the thousands-separator note's example, if any
GROUPED_EXAMPLE = r"[+-]?[1-9].*"


def _grouped_example(distinct: pd.Series) -> str:
    """The number with thousands separators a note quotes of a column's ``distinct``
    values: the first grouped one whose first digit is not 0 (``1,275``, not ``0,000``,
    which shows neither the scale nor what the commas group), else the first grouped one;
    as the large-file path picks it (:mod:`heb.scale.csv_notes`)."""
    grouped = distinct[distinct.str.contains(",", regex=False)]
    telling = grouped[grouped.str.fullmatch(GROUPED_EXAMPLE)]
    return str(telling.iloc[0] if telling.size else grouped.iloc[0])


def _spreadsheet_number(
    text: pd.Series, distinct: pd.Series, decimal_comma: bool, kind: str
) -> tuple[pd.Series | None, str]:
    """A text column read as numbers where a spreadsheet wrote them so: every value a
    percentage (``12%``, or ``12,5%`` with ``decimal_comma``: the number before the sign),
    or a comma-separated file's thousands separators (:func:`_thousands_grouped`). Returns
    the numbers and a value as written for the note, or ``(None, "")``."""
    if not distinct.size:
        return None, ""
    if distinct.str.fullmatch(PERCENT_COMMA if decimal_comma else PERCENT).all():
        number = text.str.rstrip("%").str.strip()
        if decimal_comma:
            number = number.str.replace(",", ".", regex=False)
        return _as_numbers(number), _percent_example(distinct, decimal_comma)
    if kind == "comma-separated" and not decimal_comma and _thousands_grouped(distinct):
        return _as_numbers(text.str.replace(",", "", regex=False)), _grouped_example(distinct)
    return None, ""


def _many_dates(distinct: pd.Series) -> bool:
    """Whether a text column's ``distinct`` values are all dates, more than
    :data:`DATE_NOTE_VALUES` of them (the first value tried alone first: most are not)."""
    return bool(
        distinct.size > DATE_NOTE_VALUES
        and re.fullmatch(DATE_PATTERN, distinct.iloc[0])
        and distinct.str.fullmatch(DATE_PATTERN).all()
    )


def typed_date_notes(frame: pd.DataFrame) -> list[str]:
    """The :func:`date_note` on a typed table's text columns (a parquet file's strings) of
    dates of more than :data:`DATE_NOTE_VALUES` days, as a CSV of them gets (a parquet date
    or time stamp is binned as a time and needs none)."""
    dates = []
    for column in frame.columns:
        values = frame[column]
        if not is_text_dtype(values.dtype):
            continue
        present = values.dropna()
        if isinstance(values.dtype, pd.CategoricalDtype):  # its categories are its values
            present = present.cat.remove_unused_categories().cat.categories.to_series()
        distinct = pd.Series(pd.unique(present.astype(str).str.strip()), dtype=object)
        if _many_dates(distinct):
            dates.append((column, distinct.iloc[0], distinct.size))
    return [ColumnsNote(date_note, dates)] if dates else []


def tidy_text_columns(
    frame: pd.DataFrame,
    notes: list[str],
    decimal_comma: bool = False,
    codes=frozenset(),
    kind: str = "comma-separated",
) -> pd.DataFrame:
    """Strip text cells and report columns mixing numbers and text (kept as categorical).

    With ``decimal_comma`` (semicolon-separated files), a column whose every value is a
    number written with a decimal comma (``12,5``) becomes numeric, except the ``codes``
    (:func:`leading_zero_codes`), whose digits would pass for such numbers. Otherwise such
    a column stays categorical, with a note naming the file's ``kind`` (a tab-separated
    file's note said "in a comma-separated file"), unless the file is comma-separated and
    its commas are thousands separators beyond doubt (:func:`_thousands_grouped`: ``852``
    beside ``1,275``, as Excel's ``#,##0`` format writes them): then it becomes numeric. A
    column whose every value is a percentage (``12%``; ``12,5%`` with a decimal comma)
    becomes the numbers before the ``%``. Each conversion is named in a note, and so are
    the columns left as text whose every value is a date (``06/29/2024``, ``29.06.2024``,
    ``2024-06-29``) of more than :data:`DATE_NOTE_VALUES` different days (:func:`date_note`)
    and those with values that differ only in letter case (:func:`case_note`).

    The columns read from thousands separators are listed in ``frame.attrs["heb_amounts"]``
    (:attr:`heb.data.Dataset.amounts`): amounts as a spreadsheet formats them, which the
    app never names as possible codes.
    """
    mixed = []
    comma_columns = []
    grouped_columns = []
    percent_columns = []
    dates = []
    cases = []
    for column in frame.columns:
        values = frame[column]
        if not (
            pd.api.types.is_object_dtype(values.dtype) or pd.api.types.is_string_dtype(values.dtype)
        ):
            continue
        text = values.astype("str").str.strip().where(values.notna())
        text = text.mask(text.isin(NA_TOKENS))
        # the checks look at the distinct values only (a category column has few)
        distinct = pd.Series(pd.unique(text[text.notna()]), dtype=object)
        number = _written_numbers(values, text, distinct, decimal_comma and column not in codes)
        if number is not None:
            frame[column] = number
            continue
        number, example = _spreadsheet_number(text, distinct, decimal_comma, kind)
        if number is not None:
            frame[column] = number
            found = percent_columns if example.endswith("%") else grouped_columns
            found.append((column, example))
            continue
        if not decimal_comma and distinct.size and distinct.str.fullmatch(COMMA_NUMBER).all():
            comma_columns.append((column, distinct.iloc[0], kind))
        numbers = pd.to_numeric(distinct, errors="coerce")
        if 0 < int(numbers.notna().sum()) < distinct.size:
            mixed.append((column, distinct[numbers.isna()].iloc[0]))
        if _many_dates(distinct):
            dates.append((column, distinct.iloc[0], distinct.size))
        variants = case_variants(distinct)
        if variants is not None:
            cases.append((column, variants))
        frame[column] = text
    notes.extend(conversion_notes(percent_columns, grouped_columns))
    notes.extend(_kept_as_text_notes(mixed, comma_columns, dates))
    if cases:
        notes.append(ColumnsNote(case_note, cases))
    frame.attrs["heb_amounts"] = [str(column) for column, _ in grouped_columns]
    return frame


def _kept_as_text_notes(mixed: list, commas: list, dates: list) -> list[str]:
    """The notes on the columns :func:`tidy_text_columns` left as text, one a kind, each
    naming the first column and counting the others: numbers mixed with text, numbers
    written with a comma (in a file of the kind each entry names), dates of many days."""
    notes = []
    if mixed:
        notes.append(ColumnsNote(mixed_note, mixed))
    if commas:
        notes.append(ColumnsNote(comma_note, commas))
    if dates:
        notes.append(ColumnsNote(date_note, dates))
    return notes
