"""An instructor's trial at 1024 x 768 with a class's homework (session 38b).

- Zero counts, presenter step 1: the Settings popover offered "Repeat the e-mail
  (times)", which only step 2's underflow figure and note read; moving it on step 1
  changed nothing on the screen.
- Borrowing along a hierarchy, step 2: "Laplace gives every code 1 / (N_c + K)", the
  estimate of a code with no row of class c only (one of N_c,v rows gets
  (N_c,v + 1) / (N_c + K)), in a paragraph about such codes.
- heb bench on a spreadsheet's CSV whose rows end in ';;' (two unnamed, empty columns):
  the engine now leaves them out as in memory (tests/test_scale_csv_parity_gaps.py).
- README, "Use the engine": the Python example fitted ``X_codes``, ``y``, ``frame`` and
  ``target`` that it never made: run as written (a homework's first step) it stopped at
  a NameError on its first fit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_presenter import open_lesson, query

pytestmark = pytest.mark.filterwarnings("ignore")

README = Path(__file__).resolve().parents[1] / "README.md"
REPEAT = "Repeat the e-mail (times)"


def test_zero_counts_step_1_offers_no_control_that_only_step_2_reads():
    first = open_lesson("lesson_zero_counts", present="1", step="1", zero_copies="7")
    assert REPEAT not in [s.label for s in first.slider]
    assert first.session_state["zero_copies"] == 7  # kept for step 2 and the link
    assert query(first, "zero_copies") == "7"
    second = open_lesson("lesson_zero_counts", present="1", step="2", zero_copies="7")
    [repeat] = [s for s in second.slider if s.label == REPEAT]
    assert repeat.value == 7
    assert any("repeated 7 times" in m.value for m in second.markdown)


def test_zero_counts_outside_the_presenter_still_offers_the_repeat():
    at = open_lesson("lesson_zero_counts")
    assert REPEAT in [s.label for s in at.slider]


def test_every_python_example_of_the_readme_runs_as_written():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})  # noqa: S102 - the repository's own text


def test_hierarchy_step_2_gives_laplaces_value_for_the_unseen_code_only():
    at = open_lesson("lesson_hierarchy", present="1", step="2")
    texts = [m.value for m in at.markdown]
    [text] = [t for t in texts if t.startswith("with t̄ the flat pooled marginal")]
    assert "Laplace gives each such code 1 / (N_c + K)." in text
    assert "every code" not in text
