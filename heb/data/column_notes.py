"""The readers' notes on columns (dates read as categories, numbers mixed with text, codes
kept as text, ...), worded alike on the in-memory and the DuckDB CSV path, and what is left
of them once columns are left out.

A note on several columns names the first and counts the others ("Column 'a' (and 1 more
column) holds dates such as ..."). It is a :class:`ColumnsNote`: text, which also knows
every column it is about, so that leaving columns out (``--drop``, the Dataset page's
Columns to leave out, known only after the file is read) says it again for the columns
kept (:func:`kept_notes`): it went on naming a column left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from heb.data.names import join_names, quote

__all__ = [
    "ColumnsNote",
    "case_note",
    "codes_note",
    "comma_note",
    "conversion_notes",
    "date_note",
    "kept_notes",
    "mixed_note",
    "note_about_one_of",
]


class ColumnsNote(str):
    """The note ``make(*entries[i], more)`` says of the first of ``entries`` (one tuple a
    column: its name, then what the note quotes of it) and the ``more`` others, which
    :meth:`without` says again for the columns kept.

    An entry whose quotes were not read (``(name, None)``: the DuckDB path reads examples
    for the first few columns of a kind alone) is counted, never named.
    """

    make: Callable[..., str]
    entries: tuple[tuple, ...]

    def __new__(cls, make: Callable[..., str], entries: Sequence[Sequence]):
        entries = tuple(tuple(entry) for entry in entries)
        named = next(i for i, entry in enumerate(entries) if None not in entry)
        note = super().__new__(cls, make(*entries[named], len(entries) - 1))
        note.make, note.entries = make, entries
        return note

    def __reduce__(self):  # pickled (a cached dataset) and copied as a note, not a str
        return ColumnsNote, (self.make, self.entries)

    @property
    def columns(self) -> list[str]:
        """Every column the note is about, the one it names first."""
        return [str(entry[0]) for entry in self.entries]

    def without(self, columns: Iterable[str]) -> str | None:
        """The note on the columns kept when ``columns`` are left out: itself when it is
        about none of them, None when about nothing else, or when no column kept has its
        quotes read (it cannot name one; it never names a column left out)."""
        left_out = {str(c) for c in columns}
        kept = [entry for entry in self.entries if str(entry[0]) not in left_out]
        if len(kept) == len(self.entries):
            return self
        if all(None in entry for entry in kept):
            return None
        return ColumnsNote(self.make, kept)


def left_out_note(columns: Sequence[str]) -> str:
    """The note on columns a ``--drop`` (or the app's "leave out") leaves out, one sentence
    on every path (in memory and on the engines)."""
    return f"Left out {join_names(list(columns))} (row identifiers or ignored columns)."


def kept_notes(notes: Iterable[str], columns: Iterable[str]) -> list[str]:
    """``notes`` once ``columns`` are left out: a :class:`ColumnsNote` said again for the
    columns kept, and any other note about one of them alone left out
    (:func:`note_about_one_of`): its advice is moot (the date note kept asking to leave
    out the column left out)."""
    columns = [str(c) for c in columns]
    kept = []
    for note in notes:
        if isinstance(note, ColumnsNote):
            note = note.without(columns)
        if note is not None and not note_about_one_of(note, columns):
            kept.append(note)
    return kept


def note_about_one_of(note: str, columns: Iterable[str]) -> bool:
    """Whether a reader's ``note`` is about one of ``columns`` alone ("Column 'd' holds
    dates ...; leave it out"). A note on several columns is not (:func:`kept_notes` says
    a :class:`ColumnsNote` again for the columns kept)."""
    return any(
        note.startswith(f"Column {quote(c)} ") and not note.startswith(f"Column {quote(c)} (and")
        for c in columns
    )


def _others(more: int) -> str:
    return f" (and {more} more column{'s' * (more > 1)})" if more else ""


def mixed_note(column: str, example: str, more: int = 0) -> str:
    """The note on a column of numbers with some text cells such as ``example``, read as
    categories (and ``more`` columns like it), on the in-memory and the DuckDB CSV path."""
    return (
        f"Column {quote(column)}{_others(more)} mixes numbers and text such as "
        f"{quote(example)}, so it is treated as categorical."
    )


def case_note(column: str, examples: tuple[str, str], more: int = 0) -> str:
    """The note on a text column whose values include two, ``examples``, that differ only
    in letter case (``Mobile`` and ``mobile``: a typo that splits one category's counts in
    two), and on ``more`` columns like it."""
    first, second = examples
    return (
        f"Column {quote(column)}{_others(more)} has values that differ only in letter case, "
        f"such as {quote(first)} and {quote(second)}: each is a category of its own; "
        "correct the file if they are one."
    )


def codes_note(column: str, example: str, more: int = 0) -> str:
    """The note on a column of digit strings written with a leading zero such as
    ``example`` (and ``more`` columns like it), kept as text."""
    return (
        f"Column {quote(column)}{_others(more)} holds codes written with a leading "
        f"zero such as {quote(example)}, so it is read as text, as written: each value is a "
        "category of its own."
    )


def _percent_note(column: str, example: str, more: int = 0) -> str:
    return (
        f"Column {quote(column)}{_others(more)} holds percentages such as "
        f"{quote(example)}, read as the numbers before the % sign."
    )


def _grouped_note(column: str, example: str, more: int = 0) -> str:
    return (
        f"Column {quote(column)}{_others(more)} holds numbers written with thousands "
        f"separators such as {quote(example)}, read as numbers."
    )


def conversion_notes(percent: list[tuple], grouped: list[tuple]) -> list[str]:
    """The notes on the (column, value as written) read as percentages and as numbers with
    thousands separators (:func:`heb.data.text_columns._spreadsheet_number`), one a kind;
    the in-memory and the DuckDB CSV path (:mod:`heb.scale.csv_notes`) say them alike."""
    notes = [ColumnsNote(_percent_note, percent)] if percent else []
    return notes + ([ColumnsNote(_grouped_note, grouped)] if grouped else [])


def date_note(column: str, example: str, days: int, more: int = 0) -> str:
    """The note on a column of ``days`` different dates such as ``example`` (and ``more``
    columns like it), read as categories, on the in-memory and the DuckDB CSV path: each
    day is a category of its own, seen in a few rows, which says little about a row of a
    day not in the training folds (the Explain page then named a student's signup date as
    the feature the smoothers disagreed on most). The same note reaches the app and the
    command line (``heb bench`` reads files the same way), so it names both ways to leave
    the column out: it named the page's "Columns to leave out" alone, which ``heb bench``
    users do not have."""
    return (
        f"Column {quote(column)}{_others(more)} holds dates such as {quote(example)}, read as "
        f"categories: each of its {days:,} dates is a category of its own, seen in few rows, "
        "so it says little about a new row; leave it out (the Dataset page's Columns to leave "
        "out, --drop on the command line) or add its month or weekday to the file as a column."
    )


def comma_note(column: str, example: str, kind: str, more: int = 0) -> str:
    """The note on a column of numbers written with a comma such as ``example`` in a file
    of ``kind`` (``"tab-separated"``), kept as categories (and on ``more`` columns like
    it: it named the first alone), on the in-memory and the DuckDB CSV path."""
    return (
        f"Column {quote(column)}{_others(more)} holds numbers written with a comma such as "
        f"{quote(example)}, "
        f"which in a {kind} file may be a decimal or a thousands separator, so it "
        "is treated as categorical; save the file with decimal points to read them as numbers."
    )
