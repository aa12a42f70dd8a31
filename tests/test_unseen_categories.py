"""A categorical feature's value no training row had, in rows a fitted model scores, adds
no evidence (the row is scored on its other columns), and is now said: ``heb score`` of
new rows with a typo of a shop ('Shop A' for 'a') or a zoned time stamp where training had
none gave probabilities without a word, as if the column were blank."""

from __future__ import annotations

import pandas as pd
import pytest

from explorer.explain import scoring_notes as page_notes
from heb.cli import main
from heb.data import pipeline_io
from heb.data.preprocess import Preprocessor
from heb.data.unreadable import scoring_notes, unseen_category_notes

TRAIN = pd.DataFrame(
    {
        "age": [20, 30, 40, 50, 25, 35, 45, 55],
        "shop": ["a", "b", "a", "b", None, "b", "a", "b"],
        "store_id": [11, 12, 11, 12, 11, 13, 13, 12],
    }
)
Y = ["yes", "no", "yes", "no", "yes", "no", "no", "no"]


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_values_no_training_row_had_are_named_with_their_counts(missing):
    pre = Preprocessor(missing=missing, categorical=["store_id"]).fit(TRAIN)
    rows = pd.DataFrame(
        {
            "age": [30, 40, 50, 60, 70],
            "shop": ["Shop A", "b", "Shop A", None, "  zz "],
            "store_id": [11, 12, 99, 12, 11],
        }
    )
    assert unseen_category_notes(pre, rows) == [
        "Column 'shop' holds 2 values the model never saw in training, such as 'Shop A', "
        "in 3 of 5 rows: they add no evidence, so those rows are scored on their other "
        "columns.",
        "Column 'store_id' holds 1 value the model never saw in training, such as '99', in "
        "1 of 5 rows: it adds no evidence, so those rows are scored on their other columns.",
    ]
    # a blank cell is missing, not unseen; known values and numbers are not named
    assert unseen_category_notes(pre, rows.iloc[[1, 3]]) == []


def test_both_kinds_of_note_come_once_each_in_order():
    pre = Preprocessor().fit(TRAIN)
    rows = pd.DataFrame({"age": ["old", 30], "shop": ["c", "a"], "store_id": [11, 12]})
    notes = scoring_notes(pre, rows)
    assert len(notes) == 2
    assert notes[0].startswith("Column 'age' holds 1 cell the model cannot read as a number")
    assert notes[1].startswith("Column 'shop' holds 1 value the model never saw in training")
    assert scoring_notes(pre, rows, pre.transform(rows)) == notes


def test_heb_score_and_the_explain_page_say_it(tmp_path, capsys):
    data = tmp_path / "train.csv"
    TRAIN.assign(y=Y).to_csv(data, index=False)
    model_file = tmp_path / "m.json"
    fit = ["fit", str(data), "--target", "y", "--method", "laplace", "-o", str(model_file)]
    assert main(fit) == 0
    new = tmp_path / "new.csv"
    pd.DataFrame({"age": [30, 40], "shop": ["a", "Shop B"], "store_id": [11, 12]}).to_csv(
        new, index=False
    )
    capsys.readouterr()
    assert main(["score", str(model_file), str(new), "-o", str(tmp_path / "s.csv")]) == 0
    note = "Column 'shop' holds 1 value the model never saw in training, such as 'Shop B'"
    assert f"  new.csv: {note}" in capsys.readouterr().err
    assert page_notes(pipeline_io.load(model_file), pd.read_csv(new))[0].startswith(note)
    known = tmp_path / "known.csv"
    TRAIN.to_csv(known, index=False)
    assert main(["score", str(model_file), str(known), "-o", str(tmp_path / "k.csv")]) == 0
    assert "never saw" not in capsys.readouterr().err


def test_a_typo_of_a_known_category_names_the_category_it_is_closest_to():
    """'Premuim' scored as a blank, and the note quoted it alone: which category did the
    user mean? Now the closest known one is named, case and spaces aside."""
    plans = ["Basic", "Premium", "Family", "Student"] * 3
    train = pd.DataFrame({"plan": plans, "zip": [f"0{2100 + i}" for i in range(12)]})
    pre = Preprocessor().fit(train)
    rows = pd.DataFrame({"plan": ["Premuim", "Basic", "gold"], "zip": ["02101", "02199", "x"]})
    notes = unseen_category_notes(pre, rows)
    assert notes[0] == (
        "Column 'plan' holds 2 values the model never saw in training, such as 'Premuim' "
        "(closest known value: 'Premium'), in 2 of 3 rows: they add no evidence, so those "
        "rows are scored on their other columns."
    )
    assert "closest" not in notes[1]  # '02199' is an unseen ZIP code, not a typo of '02109'


@pytest.mark.parametrize(
    ("value", "closest"),
    [
        ("premium", "Premium"),  # case alone
        ("  Premium ", "Premium"),  # spaces alone
        ("Premum", "Premium"),  # one letter dropped
        ("Platinum", None),  # a new plan, not a typo
        ("02109", None),  # a number: a near ID is no meaning
        ("", None),
    ],
)
def test_closest_known(value, closest):
    from heb.data.unreadable import closest_known

    assert closest_known(value, ["Basic", "Premium", "(missing)", "Family"]) == closest


def test_no_suggestion_among_an_id_columns_thousands_of_values():
    from heb.data.unreadable import MAX_SUGGESTED_FROM, closest_known

    many = [f"user-{i}" for i in range(MAX_SUGGESTED_FROM + 1)]
    assert closest_known("user-1x", many) is None
    assert closest_known("user-1x", many[:100]) == "user-1"
