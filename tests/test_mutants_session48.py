"""Mutation pass over session 48 (HEB-AODE / HEB-TAN fallback evidence, the notes on
categories no training row had): tests that kill the mutants its own tests let live."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import heb.joint_counts
from explorer.explain import scoring_notes as page_notes
from heb import cli_models
from heb.aode import AODE
from heb.cli import main
from heb.concentration import log_evidence
from heb.data import load_dataset, make_model, pipeline_io
from heb.data.preprocess import Preprocessor
from heb.data.unreadable import MAX_EXAMPLE, scoring_notes, unseen_category_notes
from heb.smoothing import prior_mean
from heb.tan import TAN

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
    assert "never saw in training, such as 'a ' (closest known value: 'a'), in 1 of 2" in notes[1]


# ---------------------------------------------------------------- fallback evidence


def _codes_with_gaps(seed: int = 1, n: int = 240):
    """Codes with missing values (-1) in parent and child, and class 2 absent under
    feature 0's value 0."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 4, n), rng.integers(0, 5, n)])
    X[(y == 2) & (X[:, 0] == 0), 0] = 1
    X[rng.random(n) < 0.1, 0] = -1
    X[rng.random(n) < 0.1, 1] = -1
    return X, y


def _evidence_from_joint(model) -> np.ndarray:
    """Per diagnostics row, the evidence at its m summed over the parent values' count
    vectors, read from the model's stored joint counts (fractional ones too)."""
    joint, table = model.joint_counts_, model.count_table_
    prior = prior_mean(table, "marginal")
    diag = model.concentrations_
    pair, cls, u, v = joint.decode()
    out = np.zeros(joint.n_pairs * joint.n_classes)
    for p in range(joint.n_pairs):
        j = joint.child[p]
        t = prior[table.offsets[j] : table.offsets[j + 1]]
        for c in range(joint.n_classes):
            g = p * joint.n_classes + c
            for value in np.unique(u[(pair == p) & (cls == c)]):
                at = (pair == p) & (cls == c) & (u == value)
                counts = np.zeros(t.size)
                np.add.at(counts, v[at], joint.counts[at])
                out[g] += log_evidence(counts, t, diag["m"][g])
    return out


def test_fallback_evidence_of_fractional_counts_with_missing_values_and_an_absent_class():
    """Counts below 1 (weighted rows) are counts: a fallback group's evidence sums them all
    (a mutant keeping counts >= 1, or rounding them, passed the integer-count tests)."""
    X, y = _codes_with_gaps()
    whole = AODE(smoother="heb", n0=30).fit(X, y)
    table = dataclasses.replace(
        whole.count_table_,
        counts=whole.count_table_.counts * 0.37,
        class_counts=whole.count_table_.class_counts * 0.37,
    )
    joint = dataclasses.replace(whole.joint_counts_, counts=whole.joint_counts_.counts * 0.37)
    model = AODE(smoother="heb", n0=30 * 0.37).fit_counts(table, joint)
    diag = model.concentrations_
    fallback = np.asarray(diag["fallback"], dtype=bool)
    assert fallback.any() and not fallback.all()
    assert np.any(joint.counts < 1)
    np.testing.assert_allclose(diag["log_evidence"], _evidence_from_joint(model), rtol=1e-10)
    # and the unweighted counts the same way (missing codes are not counted)
    np.testing.assert_allclose(
        whole.concentrations_["log_evidence"], _evidence_from_joint(whole), rtol=1e-10
    )


@pytest.mark.parametrize("estimator", [AODE, TAN], ids=["aode", "tan"])
def test_fallback_evidence_read_a_few_counts_at_a_time_is_the_same(estimator, monkeypatch):
    """The counts come a part at a time: every part adds to the groups' evidence (a mutant
    reading only the first part passed, the tests' counts fitting in one part)."""
    X, y = _codes_with_gaps(2)
    one = estimator(smoother="heb", n0=25).fit(X, y).concentrations_
    monkeypatch.setattr(heb.joint_counts, "_BLOCK_ENTRIES", 7)
    model = estimator(smoother="heb", n0=25).fit(X, y)
    counts = model.joint_counts_ if estimator is AODE else model.factor_counts_
    assert len(counts.parts()) > 3
    parts = model.concentrations_
    assert np.asarray(parts["fallback"]).any()
    np.testing.assert_allclose(parts["log_evidence"], one["log_evidence"], rtol=1e-12)


def test_fallback_log_evidence_is_zero_for_the_groups_the_solver_fitted():
    """Its docstring's contract: 0 for the fitted groups (only the fallback groups' counts
    are summed; a mutant summing every group's items gave the fitted ones a part sum)."""
    X, y = _codes_with_gaps(3)
    model = AODE(smoother="heb", n0=30).fit(X, y)
    learned = model._learned
    values = learned.fallback_log_evidence(model.joint_counts_)
    fallback = learned.fallback.ravel()
    assert fallback.any() and not fallback.all()
    assert np.all(values[~fallback] == 0)
    np.testing.assert_array_equal(values[fallback], model.concentrations_["log_evidence"][fallback])


# ---------------------------------------------------------------- unseen categories


def test_with_missing_as_a_category_a_number_or_blank_no_training_row_lacked_is_not_unseen():
    """Training's age and store_id have no missing value, so with missing="category" their
    missing code is K_f, the unseen code: an unreadable age and a blank store_id get it,
    and are a number note and nothing, not values the model never saw."""
    pre = Preprocessor(missing="category", categorical=["store_id"]).fit(TRAIN)
    rows = pd.DataFrame({"age": ["old", 30], "shop": ["a", "b"], "store_id": [None, 12]})
    codes = pre.transform(rows)
    assert codes[0, 0] == pre.n_categories_[0] and codes[0, 2] == pre.n_categories_[2]
    notes = scoring_notes(pre, rows)
    assert len(notes) == 1 and notes[0].startswith("Column 'age' holds 1 cell ")
    assert unseen_category_notes(pre, rows) == []


def test_one_value_in_several_rows_is_one_value_that_adds_nothing():
    pre = Preprocessor().fit(TRAIN)
    rows = pd.DataFrame({"age": [30, 40, 50], "shop": ["zz", "a", "zz"], "store_id": [11] * 3})
    assert unseen_category_notes(pre, rows) == [
        "Column 'shop' holds 1 value the model never saw in training, such as 'zz', in 2 of "
        "3 rows: it adds no evidence, so those rows are scored on their other columns."
    ]


def test_a_number_and_its_text_in_a_text_column_are_one_value():
    """The model reads a text column's cells as text: 5 and '5' are one category to it."""
    pre = Preprocessor().fit(TRAIN)
    rows = pd.DataFrame(
        {"age": [30, 40], "shop": pd.Series([5, "5"], dtype=object), "store_id": [11, 12]}
    )
    codes = pre.transform(rows)
    assert codes[0, 1] == codes[1, 1] == pre.n_categories_[1]
    (note,) = unseen_category_notes(pre, rows)
    assert note.startswith("Column 'shop' holds 1 value the model never saw in training, ")


def test_an_example_of_max_example_characters_is_quoted_whole():
    pre = Preprocessor().fit(TRAIN)
    for size, quoted in ((MAX_EXAMPLE, "y" * MAX_EXAMPLE), (MAX_EXAMPLE + 1, "y" * 39 + "…")):
        rows = pd.DataFrame({"age": [30], "shop": ["y" * size], "store_id": [11]})
        (note,) = unseen_category_notes(pre, rows)
        assert f"such as '{quoted}', in 1 of 1 rows" in note


def test_heb_scores_rows_and_the_page_helper_give_every_note():
    """Both kinds of note, each of two columns: none is left out by the callers."""
    pipe = make_model("laplace", categorical=["store_id"]).fit(TRAIN, Y)
    rows = pd.DataFrame({"age": ["old", 30], "shop": ["zz", "a"], "store_id": [11, 77]})
    notes = scoring_notes(pipe[0], rows)
    assert [n.split(" holds")[0] for n in notes] == [
        "Column 'age'",
        "Column 'shop'",
        "Column 'store_id'",
    ]
    assert cli_models.scored_rows(pipe, rows).attrs["heb_notes"] == notes
    assert page_notes(pipe, rows) == notes


def test_the_explain_page_shows_a_loaded_pipelines_notes_on_the_datasets_rows():
    """A pipeline fitted on the weekdays only: the page scores the dataset's rows with it and
    says every note, Sunday's among them (no test loaded such a file on the page)."""
    from test_explain_pipeline_app import explain_with_files, upload

    dataset = load_dataset("builtin:zip-codes")
    weekdays = (dataset.X["weekday"] != "Sun").to_numpy()
    pipe = make_model("laplace", categorical=dataset.categorical).fit(
        dataset.X[weekdays], dataset.y[weekdays]
    )
    expected = scoring_notes(pipe[0], dataset.X)
    assert any(n.startswith("Column 'weekday' holds 1 value") for n in expected)
    at = upload(explain_with_files(), pipeline_io.dumps(pipe).encode())
    shown = [i.value.replace("\\", "") for i in at.info if " holds " in i.value]
    assert shown == expected


def test_an_unseen_fractional_id_is_quoted_with_its_fraction():
    """Only whole floats are written as integers: 12.5 is not the '12' the model knows."""
    pre = Preprocessor(categorical=["store_id"]).fit(TRAIN)
    rows = pd.DataFrame({"age": [30, 40], "shop": ["a", "b"], "store_id": [12.5, 11.0]})
    (note,) = unseen_category_notes(pre, rows)
    assert "such as '12.5', in 1 of 2 rows" in note
