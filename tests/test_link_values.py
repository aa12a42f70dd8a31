"""A page setting's value in a hand-written link: taken in any spelling of a number the
control offers, and said beside the control when it cannot be taken.

A user trial found ``?dirichlet_alpha=10`` (and ``=2``) left α at 1.0 without a word,
while ``=10.0`` worked.
"""

from __future__ import annotations

import re

import pytest

from explorer import state
from tests.test_presenter import open_lesson

CHOICES = (0.001, 0.01, 0.5, 1.0, 2.0, 10.0)


@pytest.mark.parametrize(
    ("text", "taken"),
    [("10", 10.0), ("10.0", 10.0), ("1e1", 10.0), ("2", 2.0), (".5", 0.5), ("1e-3", 0.001)],
)
def test_another_spelling_of_an_offered_number_is_taken(text, taken):
    assert state._from_text(text, 1.0, CHOICES) == taken


@pytest.mark.parametrize("text", ["7", "abc", "nan", "inf", "", "10x", "True"])
def test_a_number_not_offered_or_no_number_is_refused(text):
    assert state._from_text(text, 1.0, CHOICES) is None


def test_text_and_switch_choices_match_their_text_only():
    assert state._from_text("1", "a", ("a", "1.0")) is None  # a text choice: exact only
    assert state._from_text("1.0", "a", ("a", "1.0")) == "1.0"
    assert state._from_text("1", False, (False, True)) is True  # a switch's own spelling
    assert state._from_text("5", 10, (5, 10, 20)) == 5
    assert state._from_text("5.0", 10, (5, 10, 20)) == 5


def _alpha(at) -> float:
    return next(s for s in at.select_slider if s.label == "Pseudo-count α").value


def _notes(at) -> list[str]:
    """The link notes beside the α control, as read (markdown's escapes undone)."""
    shown = [re.sub(r"\\(.)", r"\1", c.value) for c in at.caption]
    return [text for text in shown if "dirichlet_alpha" in text]


def test_a_links_whole_number_alpha_is_taken():
    at = open_lesson("lesson_dirichlet", dirichlet_alpha="10")
    assert _alpha(at) == 10.0
    assert _notes(at) == []
    assert at.query_params["dirichlet_alpha"] == "10.0"


def test_a_links_alpha_not_offered_is_said_beside_the_control_until_it_is_moved():
    at = open_lesson("lesson_dirichlet", dirichlet_alpha="<b>7</b>")
    assert _alpha(at) == 1.0
    assert _notes(at) == [
        "The link's dirichlet_alpha=<b>7</b> is not a value the control below offers: it shows 1.0."
    ]
    at.run()
    assert len(_notes(at)) == 1  # still there on the next run
    next(s for s in at.select_slider if s.label == "Pseudo-count α").set_value(2.0).run()
    assert _notes(at) == []
