"""A numeric feature's cell that is not a number, in rows a fitted model scores, is scored
as a missing value, and now said: ``heb score`` of new rows with ``age = old`` gave the
row's probabilities without a word, as if the age were blank."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.explain import scoring_notes
from heb.cli import main
from heb.data import make_model, pipeline_io
from heb.data.preprocess import Preprocessor
from heb.data.unreadable import unreadable_number_notes

TRAIN = pd.DataFrame(
    {
        "age": [20, 30, 40, 50, 25, 35, 45, 55],
        "shop": list("abababab"),
        "joined": pd.date_range("2024-01-01", periods=8, freq="7D"),
    }
)
Y = ["yes", "no", "yes", "no", "yes", "no", "no", "no"]


def _rows(**columns) -> pd.DataFrame:
    base = {"age": [30, 40, 50], "shop": ["a", "b", "a"], "joined": list(TRAIN["joined"][:3])}
    return pd.DataFrame({**base, **columns})


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_a_text_cell_in_a_numeric_column_is_named_with_its_count(missing):
    pre = Preprocessor(missing=missing).fit(TRAIN)
    rows = _rows(age=["old", None, "Old  "], shop=["a", "zzz", None])
    assert unreadable_number_notes(pre, rows) == [
        "Column 'age' holds 2 cells the model cannot read as a number, such as 'old': "
        "scored as a missing value. Correct the file if they are typos."
    ]
    # scored as the column's missing value: the same codes as a blank cell
    codes = pre.transform(rows)
    blank = pre.transform(_rows(age=[None, None, None], shop=["a", "zzz", None]))
    assert codes[:, 0].tolist() == blank[:, 0].tolist()


def test_numbers_blanks_and_unseen_categories_are_not_named():
    pre = Preprocessor().fit(TRAIN)
    rows = _rows(age=[1e9, None, -3.5], shop=["never seen", None, "a"])
    assert unreadable_number_notes(pre, rows) == []
    assert unreadable_number_notes(pre, rows, pre.transform(rows)) == []


def test_a_time_column_and_one_cell_read_alike():
    pre = Preprocessor().fit(TRAIN)
    rows = _rows(joined=["2024-01-08", "soon", None], age=[30, "x" * 60, 40])
    notes = unreadable_number_notes(pre, rows)
    assert notes[0].startswith("Column 'age' holds 1 cell the model cannot read as a number, ")
    assert f"such as '{'x' * 39}…'" in notes[0] and notes[0].endswith("if it is a typo.")
    assert notes[1].startswith("Column 'joined' holds 1 cell ") and "'soon'" in notes[1]


def test_heb_score_says_it_and_the_explain_page_has_the_same_note(tmp_path, capsys):
    frame = TRAIN.assign(y=Y)
    data = tmp_path / "train.csv"
    frame.to_csv(data, index=False)
    model_file = tmp_path / "m.json"
    assert (
        main(["fit", str(data), "--target", "y", "--method", "laplace", "-o", str(model_file)]) == 0
    )
    new = tmp_path / "new.csv"
    _rows(age=["old", 30, 40]).to_csv(new, index=False)
    capsys.readouterr()
    assert main(["score", str(model_file), str(new), "-o", str(tmp_path / "s.csv")]) == 0
    said = capsys.readouterr().err
    note = "Column 'age' holds 1 cell the model cannot read as a number, such as 'old'"
    assert f"  new.csv: {note}" in said
    rows = pd.read_csv(new)
    assert scoring_notes(pipeline_io.load(model_file), rows)[0].startswith(note)
    clean = tmp_path / "clean.csv"
    _rows().to_csv(clean, index=False)
    assert main(["score", str(model_file), str(clean), "-o", str(tmp_path / "c.csv")]) == 0
    assert "cannot read" not in capsys.readouterr().err


def test_the_page_helper_takes_a_fitted_pipeline_with_other_column_order():
    pipe = make_model("laplace").fit(TRAIN, Y)
    rows = _rows(age=["n.a.", 30, 40])[["joined", "shop", "age"]]
    assert len(scoring_notes(pipe, rows)) == 1
    assert np.isfinite(pipe.predict_proba(rows)).all()


def test_the_explain_page_notes_rows_without_a_column_left_out_as_empty():
    """A model whose training table had a column empty in every row (left out) scores
    rows without that column; the Explain page's notes on them raised a KeyError (shown as
    "Something went wrong while fitting the models") after the accuracy was drawn."""
    train = TRAIN.assign(notes=np.nan)
    pipe = pipeline_io.loads(pipeline_io.dumps(make_model().fit(train, Y)))
    assert list(pipe[0].dropped_) == ["notes"]
    rows = _rows(shop=["a", "zzz", "b"])
    assert scoring_notes(pipe, rows) == [
        "Column 'shop' holds 1 value the model never saw in training, such as 'zzz', in 1 of "
        "3 rows: it adds no evidence, so those rows are scored on their other columns."
    ]
