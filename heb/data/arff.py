"""A dense ARFF parser on pandas' C reader (sparse files go through liac-arff)."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from heb.data.dataset import (
    MAX_COLUMNS,
    DataError,
    check_cells,
    quote,
    read_csv_strict,
    unique_names,
)

_ARFF_ATTRIBUTE = re.compile(
    r"""^@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*)$""", re.IGNORECASE
)


def _arff_unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _arff_nominal_values(spec: str, line_no: int) -> list[str]:
    inner = spec.strip()[1:-1]
    values = re.findall(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,]+)\s*(?:,|$)""", inner)
    values = [_arff_unquote(v) for v in values if v.strip()]
    if not values:
        raise DataError(f"The ARFF file has a nominal attribute without values on line {line_no}.")
    return values


def _arff_kind(name: str, spec: str, line_no: int):
    """An attribute's type: its list of nominal values, ``"numeric"`` or ``"string"``."""
    kind = spec.lower().split()[0]
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise DataError(
                f"The ARFF nominal attribute on line {line_no} is missing its closing brace."
            )
        return _arff_nominal_values(spec, line_no)
    if kind in ("numeric", "real", "integer"):
        return "numeric"
    if kind in ("string", "date"):
        return "string"
    raise DataError(
        f"The ARFF attribute {quote(name)} has a type this app cannot read "
        f"({quote(spec[:20])}, line {line_no})."
    )


def _arff_header(header: str) -> tuple[list[str], list]:
    names: list[str] = []
    kinds: list = []
    for line_no, raw_line in enumerate(header.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("%") or line.lower().startswith("@relation"):
            continue
        if not line.lower().startswith("@attribute"):
            raise DataError(
                f"The ARFF header has a line it cannot read (line {line_no}: "
                f"{quote(line[:30])}); check the file's syntax."
            )
        match = _ARFF_ATTRIBUTE.match(line)
        if not match or not match.group(2).strip():
            raise DataError(
                f"The ARFF file has a malformed @attribute line (line {line_no}); each needs a "
                "name and a type."
            )
        name = _arff_unquote(match.group(1))
        kinds.append(_arff_kind(name, match.group(2).strip(), line_no))
        names.append(name)
    if not names:
        raise DataError("The ARFF file declares no attributes.")
    return names, kinds


def _count_cells(header: str, body: str, max_columns: int) -> int:
    """The declared width, checked with the declared size before anything is parsed."""
    width = len(re.findall(r"^[ \t]*@attribute\b", header, flags=re.IGNORECASE | re.MULTILINE))
    if width > max_columns:
        raise DataError(
            f"The ARFF file declares {width:,} attributes, more than the {max_columns:,} this "
            "app handles."
        )
    check_cells(body.count("\n"), width)
    return width


def _data_line(text: str, marker_end: int) -> int:
    """File line number of the ``@data`` line (the body's line 1)."""
    return text.count("\n", 0, marker_end) + 1


def _bad_row(body: str, first_line: int, width: int, quotechar: str) -> DataError:
    """The first data row whose value count is not ``width``, named by its file line.

    Runs only after pandas has found a bad row (an error path): the csv module follows
    quoted values across lines, so the line number is the file's.
    """
    reader = csv.reader(
        io.StringIO(body), quotechar=quotechar, escapechar="\\", skipinitialspace=True
    )
    start = 1
    for row in reader:
        if row and any(cell.strip() for cell in row) and len(row) != width:
            return DataError(
                f"An ARFF data row has {len(row)} values but the header declares {width} "
                f"attributes; check line {first_line + start - 1} of the file."
            )
        start = reader.line_num + 1
    return DataError("The ARFF data section could not be read; check its syntax.")


def read_arff(
    text: str, notes: list[str], max_columns: int = MAX_COLUMNS
) -> tuple[pd.DataFrame, list[str]]:
    """A dense ARFF file read with pandas (sparse files, and files quoting values with both
    ``'`` and ``"``, go through liac-arff).

    Line endings may be LF, CRLF or CR alone. The declared width and the number of data
    lines x attributes are checked before any row is parsed.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    marker = re.search(r"^[ \t]*@data[ \t]*$", text, flags=re.IGNORECASE | re.MULTILINE)
    if marker is None:
        raise DataError("The ARFF file has no @data line, so it holds no rows.")
    body = re.sub(r"^[ \t]*%.*$", "", text[marker.end() :], flags=re.MULTILINE)
    width = _count_cells(text[: marker.start()], body, max_columns)
    names, kinds = _arff_header(text[: marker.start()])
    if re.match(r"\s*\{", body) or ('"' in body and "'" in body):
        return _read_with_liac(text)
    quotechar = '"' if '"' in body else "'"
    try:
        frame = read_csv_strict(
            body,
            width,
            sep=",",
            quotechar=quotechar,
            escapechar="\\",
            skipinitialspace=True,
            dtype=object,
            na_filter=False,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(width)), dtype=str)
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError) as exc:
        raise _bad_row(body, _data_line(text, marker.end()), width, quotechar) from exc
    return _typed_columns(frame, names, kinds, notes)


def _typed_columns(
    frame: pd.DataFrame, names: list[str], kinds: list, notes: list[str]
) -> tuple[pd.DataFrame, list[str]]:
    """Cells (text) to typed columns, checked against their declarations.

    All cells are cleaned in one pass and all numeric attributes converted in one call, so
    the work grows with the cells, not with a per-column overhead times the width.
    """
    n_rows, width = frame.shape
    flat = pd.Series(frame.to_numpy(dtype=object).ravel(order="F"), dtype=object)
    flat = flat.str.strip().str.replace(r'^"(.*)"$', r"\1", regex=True)
    missing = (flat.isna() | flat.isin(["?", ""])).to_numpy()
    cells = flat.to_numpy(dtype=object, copy=True)
    cells[missing] = None
    cells, missing = cells.reshape(width, n_rows), missing.reshape(width, n_rows)
    numeric = np.array([kind == "numeric" for kind in kinds], dtype=bool)
    numbers = pd.to_numeric(pd.Series(cells[numeric].ravel()), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    numbers = numbers.reshape(int(numeric.sum()), n_rows)
    bad = np.isnan(numbers) & ~missing[numeric]
    if bad.any():
        row, column = np.argwhere(bad)[0][::-1]
        name = np.asarray(names, dtype=object)[numeric][column]
        raise DataError(
            f"The ARFF attribute {quote(name)} is declared numeric but holds the value "
            f"{quote(cells[numeric][column, row])}."
        )
    columns: dict = dict(zip(np.asarray(names, dtype=object)[numeric], numbers, strict=True))
    nominal = []
    for i in np.flatnonzero(~numeric):
        name, kind = names[i], kinds[i]
        if kind == "string":
            columns[name] = pd.array(cells[i], dtype="str")
            continue
        categories = pd.Index(list(dict.fromkeys(kind)))
        codes = categories.get_indexer(cells[i])
        unknown = (codes < 0) & ~missing[i]
        if unknown.any():
            raise DataError(
                f"The ARFF attribute {quote(name)} holds {quote(cells[i][unknown][0])}, "
                "which is not one of its declared values."
            )
        columns[name] = pd.Categorical.from_codes(codes, categories=categories)
        nominal.append(name)
    frame = pd.DataFrame({i: columns[name] for i, name in enumerate(names)})
    frame.columns = unique_names(names, notes)
    return frame, [frame.columns[names.index(n)] for n in nominal]


def _read_with_liac(text: str) -> tuple[pd.DataFrame, list[str]]:
    """Sparse ARFF, or values quoted both ways, through liac-arff (size already checked)."""
    import arff

    try:
        decoded = arff.loads(text)
    except arff.ArffException as exc:
        raise DataError(f"The ARFF file has a syntax error: {str(exc).rstrip('.')}.") from exc
    frame = pd.DataFrame(decoded["data"], columns=[a for a, _ in decoded["attributes"]])
    nominal = []
    for name, kind in decoded["attributes"]:
        if isinstance(kind, list):
            frame[name] = pd.Categorical(frame[name], categories=list(dict.fromkeys(kind)))
            nominal.append(name)
    return frame, nominal
