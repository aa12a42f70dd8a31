"""Tests from session 39's mutation pass over the code session 38 added: the delimiter
sniffing and a spreadsheet's first line ``sep=;`` (:mod:`heb.data.delimiters`, the readers
and the large-file layout), the letter-case note, ``sample_weight`` in NaiveBayes and the
Type-II solver's end candidates and fractional groups: each pins behaviour a hand-written
mutant changed unseen."""

from __future__ import annotations

import pytest

from heb.data.delimiters import separator_line


# ------------------------------------------------------------------ delimiters
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sep=; \na;b\n", (";", 7, "'sep=;'")),  # spaces after the separator
        ("SEP=|\ra|b\n", ("|", 6, "'SEP=|'")),  # an old Mac line end
        ("sep=\t\r\na\tb\n", ("\t", 7, "'sep=\\t'")),  # the note quoted 'sep=' (rstrip)
        ("sep=,\n", (",", 6, "'sep=,'")),
    ],
)
def test_a_separator_line_gives_its_delimiter_length_and_a_note_quoting_it(text, expected):
    delimiter, length, quoted = expected
    found = separator_line(text)
    assert found is not None
    assert found[:2] == (delimiter, length)
    assert found[2] == f"The first line, {quoted}, names the separator: read with it, left out."
    assert text[length:].startswith("a") or length == len(text)
