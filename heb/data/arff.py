"""A dense ARFF parser on pandas' C reader (sparse files go through liac-arff)."""

from __future__ import annotations

import io
import re

import pandas as pd

from heb.data.dataset import DataError, quote, unique_names

# ---- ARFF
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


def _arff_header(header: str) -> tuple[list[str], list]:
    names: list[str] = []
    kinds: list = []
    for line_no, raw_line in enumerate(header.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("%"):
            continue
        lower = line.lower()
        if lower.startswith("@relation"):
            continue
        if not lower.startswith("@attribute"):
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
        name, spec = _arff_unquote(match.group(1)), match.group(2).strip()
        kind = spec.lower().split()[0]
        if spec.startswith("{"):
            if not spec.endswith("}"):
                raise DataError(
                    f"The ARFF nominal attribute on line {line_no} is missing its closing brace."
                )
            kinds.append(_arff_nominal_values(spec, line_no))
        elif kind in ("numeric", "real", "integer"):
            kinds.append("numeric")
        elif kind in ("string", "date"):
            kinds.append("string")
        else:
            raise DataError(
                f"The ARFF attribute {quote(name)} has a type this app cannot read "
                f"({quote(spec[:20])}, line {line_no})."
            )
        names.append(name)
    if not names:
        raise DataError("The ARFF file declares no attributes.")
    return names, kinds


def read_arff(text: str, notes: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """A dense ARFF file read with pandas (sparse files go through liac-arff)."""
    marker = re.search(r"^[ \t]*@data[ \t]*\r?$", text, flags=re.IGNORECASE | re.MULTILINE)
    if marker is None:
        raise DataError("The ARFF file has no @data line, so it holds no rows.")
    names, kinds = _arff_header(text[: marker.start()])
    body = re.sub(r"^[ \t]*%.*$", "", text[marker.end() :], flags=re.MULTILINE)
    if re.match(r"\s*\{", body):
        return _read_sparse_arff(text, names)
    try:
        frame = pd.read_csv(
            io.StringIO(body),
            header=None,
            names=list(range(len(names))),
            index_col=False,
            sep=",",
            quotechar="'",
            escapechar="\\",
            skipinitialspace=True,
            dtype=str,
            na_filter=False,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(len(names))), dtype=str)
    except (pd.errors.ParserError, ValueError) as exc:
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if match:
            line = text[: marker.end()].count("\n") + int(match.group(2))
            raise DataError(
                f"An ARFF data row has {match.group(3)} values but the header declares "
                f"{len(names)} attributes; check line {line} of the file."
            ) from exc
        raise DataError("The ARFF data section could not be read; check its syntax.") from exc
    columns = {}
    nominal = []
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        values = frame[i].str.strip()
        values = values.str.replace(r'^"(.*)"$', r"\1", regex=True)
        missing = values.isna() | values.isin(["?", ""])
        values = values.mask(missing)
        if kind == "numeric":
            numbers = pd.to_numeric(values, errors="coerce")
            bad = numbers.isna() & ~missing
            if bad.any():
                raise DataError(
                    f"The ARFF attribute {quote(name)} is declared numeric but holds the value "
                    f"{quote(values[bad].iloc[0])}."
                )
            columns[name] = numbers
        elif kind == "string":
            columns[name] = values.astype("str").where(~missing)
        else:
            unknown = ~missing & ~values.isin(kind)
            if unknown.any():
                raise DataError(
                    f"The ARFF attribute {quote(name)} holds {quote(values[unknown].iloc[0])}, "
                    "which is not one of its declared values."
                )
            columns[name] = pd.Categorical(values, categories=list(dict.fromkeys(kind)))
            nominal.append(name)
    frame = pd.DataFrame(columns)
    frame.columns = unique_names(names, notes)
    return frame, [frame.columns[names.index(n)] for n in nominal]


def _read_sparse_arff(text: str, names: list[str]) -> tuple[pd.DataFrame, list[str]]:
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
