"""Lesson titles wrap to fit a 1280 px projector window."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from heb.figures.style import wrap_title

WORDS = st.lists(st.text("abcdefgh", min_size=1, max_size=12), min_size=1, max_size=15)


def test_a_long_title_breaks_into_lines_of_about_equal_length():
    title = "Type-II ML: the m that makes these counts most probable"
    assert wrap_title(title, 44) == "Type-II ML: the m that makes<br>these counts most probable"


def test_short_lines_and_lines_with_tags_stay_as_they_are():
    assert wrap_title("short<br>also short", 44) == "short<br>also short"
    tagged = "a title long enough to wrap <span style='font-size:12px'>(note)</span>"
    assert wrap_title(tagged, 20) == tagged


@given(WORDS, st.integers(8, 60))
# ceil(19 / 9) = 3 "needed" lines where greedy filling makes 2: the even widths gave 3
@example(words=["aaaaa", "aaa", "aaaa", "aaaa"], width=9)
def test_wrapping_keeps_every_word_in_order_and_lines_within_the_width(words, width):
    title = " ".join(words)
    lines = wrap_title(title, width).split("<br>")
    assert " ".join(lines).split() == words
    assert all(len(line) <= width or " " not in line for line in lines)
    # as few lines as a greedy wrap at the full width would need
    greedy = textwrap.wrap(title, width, break_long_words=False, break_on_hyphens=False)
    assert len(lines) <= max(1, len(greedy))
