"""Three or more of the loader's notes share one info box, a line each (trial Z: a messy
spreadsheet's seven boxes pushed the features table 2.5 screens down a 1366 x 650
laptop); one or two keep a box each."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.errors import escape
from heb import data as hdata
from tests.test_app import assert_clean, open_app, uploader


def _upload(frame: pd.DataFrame):
    at = open_app()
    text = frame.to_csv(index=False)
    uploader(at).upload("sheet.csv", text.encode(), "text/csv").run()
    assert_clean(at)
    return at


def _sheet(rows: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "zip": [f"0{n:04d}" for n in rng.integers(1000, 9999, rows)],  # codes, note 1
            "rate": [f"{n}%" for n in rng.integers(1, 60, rows)],  # percentages, note 2
            "spend": [f"{n:,}" for n in rng.integers(10, 5000, rows)],  # thousands, note 3
            "label": rng.choice(["a", "b"], rows),
        }
    )


def test_three_notes_share_one_box_a_line_each():
    frame = _sheet()
    notes = hdata.load_upload(frame.to_csv(index=False).encode(), "sheet.csv").notes
    assert len(notes) >= 3
    at = _upload(frame)
    boxes = [box.value for box in at.main.info if "How the data was read" in box.value]
    assert len(boxes) == 1
    (box,) = boxes
    assert box.startswith("How the data was read:\n\n")
    assert box.split("\n\n", 1)[1] == "\n".join(f"- {escape(note)}" for note in notes)
    assert not [b for b in at.main.info if b.value == escape(notes[0])]  # not twice


def test_one_note_keeps_its_own_box():
    frame = _sheet()[["zip", "label"]]
    notes = hdata.load_upload(frame.to_csv(index=False).encode(), "sheet.csv").notes
    assert len(notes) == 1
    at = _upload(frame)
    assert [b.value for b in at.main.info if b.value == escape(notes[0])]
    assert not [b for b in at.main.info if "How the data was read" in b.value]
