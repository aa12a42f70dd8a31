"""Mutation pass over session 36's input checks (trial R) and CLI exit codes: the tests
that kill the mutants the earlier tests let live, each a behaviour a user relies on.

- a boolean is not a number for the clamp m_min / m_max, for ``n0``, for ``explain``'s
  class indices, ``decisive_features``' row and the study's whole numbers (True read as 1);
- ``decisive_features`` over explanations of different row counts checks the row against
  the shortest (a row only the longer one holds raised an IndexError);
- ``bench`` whose every dataset fails cross-validation, or none loads, exits with 2 and a
  line starting ``heb: ``; a ValueError out of a command is one line and exit code 2;
- one column name that is not text (``categorical=0`` for a frame read without a header)
  is that column, and no declared name (``categorical=None``) declares none (no warning
  about a column called 'None').
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import heb.cli
from heb import AODE, TAN, NaiveBayes
from heb.cli import main
from heb.data import Preprocessor
from heb.explain import decisive_features, explain
from heb.synthetic import l1_error_study, sample_naive_bayes

X = np.array([[0, 1], [1, 0], [2, 1], [0, 0], [1, 1], [2, 0]])
Y = [0, 1, 0, 1, 0, 1]


# ---------------------------------------------------------------- booleans are not numbers
@pytest.mark.parametrize("estimator", [NaiveBayes, AODE, TAN])
@pytest.mark.parametrize("flag", [True, np.True_])
def test_a_boolean_clamp_is_refused_not_read_as_one(estimator, flag) -> None:
    message = r"^m_min and m_max must be numbers, got m_min=(np\.)?True_?, m_max=(np\.)?True_?\.$"
    with pytest.raises(ValueError, match=message):
        estimator(m_min=flag, m_max=flag).fit(X, Y)


@pytest.mark.parametrize("estimator", [NaiveBayes, AODE, TAN])
def test_a_boolean_n0_is_refused_by_every_classifier(estimator) -> None:
    """NaiveBayes and AODE took n0=True as 1, where TAN, the clamp and a smoother's
    alpha refuse a boolean."""
    with pytest.raises(ValueError, match=r"^n0 must be a non-negative number, got True\.$"):
        estimator(n0=True).fit(X, Y)
    assert estimator(n0=1).fit(X, Y).classes_.size == 2  # the number itself still fits


def test_explain_refuses_a_boolean_class_index_and_gives_the_labels_index() -> None:
    """On a model of classes [False, True], target=True is the label, not position 1."""
    model = NaiveBayes("laplace").fit(X, np.array(Y, dtype=bool))
    message = r"target must be a class index .*got True; the label True is index 1\.$"
    with pytest.raises(ValueError, match=message):
        explain(model, X, True, 0)
    assert explain(model, X, 1, 0).log_odds.shape == (6,)


def test_decisive_features_checks_the_row_against_every_explanation() -> None:
    model = NaiveBayes("laplace").fit(X, Y)
    uneven = {"two rows": explain(model, X[:2], 1, 0), "three rows": explain(model, X[:3], 1, 0)}
    for row in (2, True):  # a row only one holds; a boolean is not a row number
        with pytest.raises(ValueError, match=r"^row must be a row number in 0\.\.1, got"):
            decisive_features(uneven, row=row)
    assert decisive_features(uneven, row=1).shape == (2,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: l1_error_study(K_values=(5,), N_values=(10,), reps=True), r"^reps must be a"),
        (lambda: l1_error_study(K_values=(True,), N_values=(10,), reps=2), r"^K_values must"),
        (lambda: sample_naive_bayes(True, [3]), r"^n_samples must be a whole number"),
    ],
    ids=["reps", "K_values", "n_samples"],
)
def test_the_studys_whole_numbers_refuse_a_boolean(call, message) -> None:
    with pytest.raises(ValueError, match=message + r".*, got True\.$"):
        call()


# ---------------------------------------------------------------- CLI exit codes
@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a,y\nx,1\ny,2\n", "heb: No dataset could be cross-validated (the reasons are above)."),
        ("a,y\n", "heb: No dataset could be loaded (the reasons are above)."),
    ],
    ids=["cross-validation", "loading"],
)
def test_no_usable_dataset_exits_2_with_one_heb_line(
    text, said, tmp_path, isolated_cache, capsys
) -> None:
    """Every class of one row (nothing to cross-validate), or a header without rows."""
    data = tmp_path / "data.csv"
    data.write_text(text)
    argv = ["bench", str(data), "--folds", "2", "--no-figures", "-o", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == said


def test_a_value_error_out_of_a_command_is_one_line_and_exit_code_2(monkeypatch, capsys):
    """The last net of main: data a command cannot use is the user's to fix (2), not a
    crash (1), in memory as on an engine."""

    def synthetic(args) -> int:
        raise ValueError("The study's grid is empty.")

    monkeypatch.setattr(heb.cli, "synthetic", synthetic)
    assert main(["synthetic", "--no-figures"]) == 2
    assert capsys.readouterr().err == "heb: The study's grid is empty.\n"


# ---------------------------------------------------------------- declared columns
def test_one_column_name_that_is_not_text_is_that_column() -> None:
    """A frame read without a header has columns 0, 1, ...: categorical=0 is column 0
    (it was ``0 or []``, no column at all)."""
    frame = pd.DataFrame({0: np.arange(300) % 150 + 1000, 1: np.linspace(0, 1, 300)})
    assert Preprocessor(categorical=0).fit(frame).kinds_ == {"0": "categorical", "1": "numeric"}


def test_no_declared_column_declares_none() -> None:
    frame = pd.DataFrame({"None": np.arange(300) % 150 + 1000, "x": np.linspace(0, 1, 300)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "categorical names 1 column not in the table"
        kinds = Preprocessor().fit(frame.rename(columns={"None": "amount"})).kinds_
        assert kinds == {"amount": "numeric", "x": "numeric"}
        assert Preprocessor(categorical=None).fit(frame).kinds_["None"] == "numeric"
