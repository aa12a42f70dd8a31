"""How a message names what a user gave: a quoted name, a list of names, a file's size.

Every name is user text (a column, a cell, a dataset), so :func:`quote` bounds its length
and escapes control characters; the app escapes markup before display.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["QUOTE_LIMIT", "columns_phrase", "format_size", "join_names", "quote"]


def format_size(n_bytes: int) -> str:
    """``812 bytes``, ``3 KB``, ``1.1 MB``, ``200 MB``."""
    if n_bytes < 1024:
        return f"{n_bytes} bytes"
    if n_bytes < 2**20:
        return f"{n_bytes / 1024:.0f} KB"
    mb = n_bytes / 2**20
    return f"{mb:.1f} MB" if mb < 10 and not float(mb).is_integer() else f"{mb:.0f} MB"


#: longest user text quoted in a message (a longer one is cut, with an ellipsis)
QUOTE_LIMIT = 60


def quote(name) -> str:
    """``'name'`` for a message: plain text, at most :data:`QUOTE_LIMIT` characters.

    The value is user text (a column name, a cell, a dataset name), so it is cut to a
    bounded length (a huge name cannot flood a message) and ``repr`` escapes newlines and
    control characters; the app escapes markup before display.
    """
    text = str(name)
    return repr(text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "\u2026")


def join_names(names: Sequence, limit: int = 8) -> str:
    """The first ``limit`` names quoted, then ``and N more``."""
    shown = ", ".join(quote(n) for n in list(names)[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def columns_phrase(names: Sequence) -> str:
    """``Column 'a'`` or ``Columns 'a', 'b'``."""
    return ("Columns " if len(names) > 1 else "Column ") + join_names(names)
