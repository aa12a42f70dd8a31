"""Which character separates the fields of a text table: sniffed from its first lines,
or named by a spreadsheet's first line ``sep=;``; how a note names such a file."""

from __future__ import annotations

import re

import numpy as np

from heb.data.dataset import quote

__all__ = ["file_kind", "separator_line", "sniff_delimiter", "without_separator_line"]


def sniff_delimiter(text: str, filename: str) -> str:
    """The most consistent of ``, TAB ; |`` over the first lines (quoted parts ignored)
    among those the header holds.

    Quoted parts are removed before the text is cut into lines: a quoted value holding a
    line end cut its row in two, and a decimal comma in every row then outscored the
    semicolons of a ``;`` file whose header holds no comma at all."""
    unquoted = re.sub(r'"[^"]*"', "", text[:65536])
    lines = [line for line in unquoted.splitlines()[:50] if line.strip()]
    if filename.endswith((".tsv", ".tab")) and any("\t" in line for line in lines):
        return "\t"
    best, best_score = ",", (-1, -1)
    for delimiter in (",", "\t", ";", "|"):
        counts = np.array([line.count(delimiter) for line in lines])
        if counts.size == 0 or counts[0] == 0:  # the header separates its names by it
            continue
        mode = np.bincount(counts).argmax()
        score = (int(np.mean(counts == mode) * 100) if mode > 0 else 0, int(mode))
        if score > best_score:
            best, best_score = delimiter, score
    return best


#: a first line naming the file's separator, which Excel writes and reads (``sep=;``)
_SEPARATOR_LINE = re.compile(r"sep=([,;\t|])[ \t]*(?:\r\n|\r|\n)", re.IGNORECASE)


def separator_line(text: str) -> tuple[str, int, str] | None:
    """(delimiter, length, note) of a spreadsheet's first line ``sep=;``, or None."""
    found = _SEPARATOR_LINE.match(text)
    if found is None:
        return None
    line = text[: found.end(1)]  # not rstrip(): that took the tab of "sep=\t" too
    note = f"The first line, {quote(line)}, names the separator: read with it, left out."
    return found.group(1), found.end(), note


def without_separator_line(text: str) -> tuple[str, str | None, str]:
    """``text`` after a first line ``sep=;`` (:func:`separator_line`), the delimiter that
    line names and its note; ``text`` itself, None and "" without one."""
    found = separator_line(text)
    if found is None:
        return text, None, ""
    delimiter, length, note = found
    return text[length:], delimiter, note


def file_kind(delimiter: str) -> str:
    """How a note names a file of ``delimiter`` (``"tab-separated"``); a comma-separated
    file's commas may be thousands separators (:func:`heb.data.text_columns.tidy_text_columns`)."""
    return {"\t": "tab-separated", "|": "pipe-separated"}.get(delimiter, "comma-separated")
