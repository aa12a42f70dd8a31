"""Mutation pass over session 48 (HEB-AODE / HEB-TAN fallback evidence, the notes on
categories no training row had): tests that kill the mutants its own tests let live."""

from __future__ import annotations

import pandas as pd

from heb.cli import main
from heb.data.preprocess import Preprocessor
from heb.data.unreadable import scoring_notes

TRAIN = pd.DataFrame(
    {
        "age": [20, 30, 40, 50, 25, 35, 45, 55],
        "shop": ["a", "b", "a", "b", None, "b", "a", "b"],
        "store_id": [11, 12, 11, 12, 11, 13, 13, 12],
    }
)
Y = ["yes", "no", "yes", "no", "yes", "no", "no", "no"]


def test_an_unseen_id_in_a_file_with_a_blank_id_is_quoted_as_the_file_wrote_it(tmp_path, capsys):
    """A blank cell makes pandas read the IDs as floats: the note quoted '99.0', which the
    file does not hold (training's IDs are labelled '11', '12', '13')."""
    data = tmp_path / "train.csv"
    TRAIN.assign(y=Y).to_csv(data, index=False)
    model_file = tmp_path / "m.json"
    fit = ["fit", str(data), "--target", "y", "--method", "laplace", "-o", str(model_file)]
    assert main([*fit, "--categorical", "store_id"]) == 0
    new = tmp_path / "new.csv"
    new.write_text("age,shop,store_id\n30,a,99\n40,b,\n50,a,12\n")
    capsys.readouterr()
    assert main(["score", str(model_file), str(new), "-o", str(tmp_path / "s.csv")]) == 0
    said = capsys.readouterr().err
    assert "Column 'store_id' holds 1 value the model never saw in training, such as '99', " in said
    assert "99.0" not in said


def test_an_unseen_padded_category_is_quoted_with_its_spaces_and_a_number_stripped():
    """'a ' is a value no training row had where 'a' is one: quoted stripped, the note named
    a category the model knows. A cell that is not a number is still quoted stripped."""
    pre = Preprocessor().fit(TRAIN)
    rows = pd.DataFrame({"age": [" old ", 30], "shop": ["a ", "b"], "store_id": [11, 12]})
    notes = scoring_notes(pre, rows)
    assert len(notes) == 2
    assert "such as 'old': scored as a missing value" in notes[0]
    assert "never saw in training, such as 'a ', in 1 of 2 rows" in notes[1]
