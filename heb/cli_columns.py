"""The column lists of ``--categorical`` and ``--drop``: names separated by commas, as a
CSV row writes them.

A name is trimmed of the spaces around it; one that holds a comma, has spaces at its ends
or begins with a double quote is written in double quotes, a quote inside it doubled
(``--categorical '"role,2",zip'`` names the columns ``role,2`` and ``zip``). The option
is repeatable; an empty name (a trailing comma) is none. :func:`column_list` writes the
text :func:`split_columns` reads back as the same names (the app's commands, the
command line's hints).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["column_list", "column_word", "split_columns"]

_QUOTE = '"'


def split_columns(value: str) -> list[str]:
    """The column names of one ``--categorical`` / ``--drop`` value, in order, empty ones
    left out.

    Raises
    ------
    ValueError
        A quote left open, or text after a quoted name before the next comma.
    """
    names, start, end = [], 0, len(value)
    while start <= end:
        comma = value.find(",", start)
        comma = end if comma < 0 else comma
        piece = value[start:comma]
        if not piece.lstrip().startswith(_QUOTE):
            names.append(piece.strip())
            start = comma + 1
            continue
        name, after = _quoted(value, value.index(_QUOTE, start) + 1)
        comma = value.find(",", after)
        comma = end if comma < 0 else comma
        if value[after:comma].strip():
            raise ValueError(
                f"{value!r} has text after the quoted name {name!r}; separate names with "
                "commas, and write a quote inside a quoted name as two."
            )
        names.append(name)
        start = comma + 1
    return [name for name in names if name]


def _quoted(value: str, start: int) -> tuple[str, int]:
    """The quoted name whose text begins at ``start`` (a doubled quote is one) and the
    position past its closing quote."""
    parts = []
    while True:
        close = value.find(_QUOTE, start)
        if close < 0:
            raise ValueError(
                f"{value!r} opens a quote it does not close; write a name holding a comma "
                'in double quotes, as "role,2".'
            )
        parts.append(value[start:close])
        if not value.startswith(_QUOTE, close + 1):
            return "".join(parts), close + 1
        parts.append(_QUOTE)
        start = close + 2


def column_word(name: str) -> str:
    """``name`` as :func:`split_columns` reads it back: itself, or in double quotes where
    it holds a comma, has spaces at its ends or begins with a quote."""
    if "," in name or name != name.strip() or name.startswith(_QUOTE):
        return _QUOTE + name.replace(_QUOTE, _QUOTE * 2) + _QUOTE
    return name


def column_list(names: Iterable[str]) -> str:
    """One ``--categorical`` / ``--drop`` value naming ``names`` (each not empty)."""
    return ",".join(column_word(str(name)) for name in names)
