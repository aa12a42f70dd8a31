"""Tests from a mutation pass on the session's model files of HEB-H's hierarchies, a
HierarchicalNaiveBayes and a TAN (:mod:`heb.hierarchy_io`, :mod:`heb.model_io`) and on
``heb fit`` / ``heb score`` (:mod:`heb.cli_models`): each kills a hand-made mutant that
the other tests let through, or guards a bug the pass found."""

from __future__ import annotations

import json
import os
import stat
import sys

import numpy as np
import pandas as pd
import pytest

from heb import cli_models, model_io
from heb.cli import main
from heb.data import make_model, pipeline_io
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.hierarchy_io import hierarchies_to_json
from heb.nb import NaiveBayes
from heb.tan import TAN


@pytest.fixture(scope="module")
def integer_classes(tmp_path_factory):
    """A model file fitted on a CSV whose class column holds whole numbers 0 and 1, and
    the CSV."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "green"], 200),
            "size": rng.normal(size=200),
            "label": rng.integers(0, 2, 200),
        }
    )
    folder = tmp_path_factory.mktemp("integer_classes")
    frame.to_csv(folder / "rows.csv", index=False)
    model = folder / "model.json"
    assert main(["fit", str(folder / "rows.csv"), "--target", "label", "-o", str(model)]) == 0
    return frame, folder, model


def test_a_target_column_with_an_empty_cell_still_scores_its_whole_number_classes(
    integer_classes, capsys
):
    """An empty cell makes the reader read the class column 0, 1 as floats 0.0, 1.0: the
    metrics were "No row's 'label' is one of the model's classes" (the loader reads the
    same column as the classes 0 and 1); the row without a class is left out, said so."""
    frame, folder, model = integer_classes
    rows = frame.astype({"label": float})
    rows.loc[5, "label"] = np.nan
    rows.to_csv(folder / "gap.csv", index=False)
    capsys.readouterr()
    assert main(["score", str(model), str(folder / "gap.csv"), "--target", "label",
                 "-o", str(folder / "s.csv")]) == 0  # fmt: skip
    said = capsys.readouterr().err
    assert "Against 'label' on 199 rows (1 row without a class left out): accuracy" in said
    scored = pd.read_csv(folder / "s.csv")
    truth = frame["label"].astype(str).drop(index=5)
    accuracy = float(said.split("accuracy ")[1].split(",")[0])
    predicted = scored["predicted"].astype(str).drop(index=5)
    assert accuracy == pytest.approx(np.mean(predicted == truth), abs=1e-4)


def test_rows_of_unknown_classes_and_without_a_class_are_told_apart(integer_classes, capsys):
    """A class the model lacks and an empty class cell are each counted in the line."""
    frame, folder, model = integer_classes
    rows = frame.astype({"label": object})
    rows.loc[:9, "label"] = "other"
    rows.loc[10:12, "label"] = np.nan
    rows.to_csv(folder / "mixed.csv", index=False)
    capsys.readouterr()
    argv = [str(model), str(folder / "mixed.csv"), "--target", "label", "-o", str(folder / "m.csv")]
    assert main(["score", *argv]) == 0
    said = capsys.readouterr().err
    assert "on 187 rows (10 rows of another class and 3 rows without a class left out)" in said


def test_the_files_written_have_the_permissions_of_any_new_file(integer_classes, tmp_path):
    """The model file and the scores were the owner's alone (0600, the temporary file's
    mode from tempfile.mkstemp, renamed into place): a model file meant for a colleague
    or a service account could not be read by them. Under umask 022 both are 0644."""
    _, folder, _ = integer_classes
    before = os.umask(0o022)
    try:
        model = tmp_path / "shared" / "model.json"
        assert main(["fit", str(folder / "rows.csv"), "--target", "label", "-o", str(model)]) == 0
        scores = tmp_path / "scores.csv"
        assert main(["score", str(model), str(folder / "rows.csv"), "-o", str(scores)]) == 0
    finally:
        os.umask(before)
    assert [stat.S_IMODE(p.stat().st_mode) for p in (model, scores)] == [0o644, 0o644]
    assert sorted(p.name for p in model.parent.iterdir()) == ["model.json"]


def test_fit_says_what_reading_the_file_changed(integer_classes, tmp_path, capsys):
    """``heb fit`` said nothing of the rows it dropped for an empty class cell: it says
    the dataset's notes, as ``heb bench`` does."""
    frame, folder, model = integer_classes
    gap = frame.astype({"label": float})
    gap.loc[[3, 4], "label"] = np.nan
    gap.to_csv(tmp_path / "gap.csv", index=False)
    capsys.readouterr()
    argv = ["fit", str(tmp_path / "gap.csv"), "--target", "label", "-o", str(tmp_path / "m.json")]
    assert main(argv) == 0
    assert "  gap: Dropped 2 rows with a missing target.\nFitted HEB-M on 198 rows" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "hierarchies",
    [{True: [np.array([0, 0, 1])]}, {0: [np.array([[0, 0], [1, 1]])]}, {0: [np.array([True])]}],
)
def test_hierarchies_that_json_would_misstate_are_refused_when_written(hierarchies):
    """A bool key (written as feature 1), a 2-D level (nested lists no file reads back)
    and a level of booleans (JSON true/false) are refused, not written."""
    with pytest.raises(ValueError, match="hierarchies: "):
        hierarchies_to_json(hierarchies)


@pytest.mark.parametrize("where", ["hierarchies", "parents"])
def test_a_key_of_other_digits_is_no_feature_index(where):
    """'١' (Arabic-Indic one) is a digit to str.isdigit and 1 to int(): a file's key
    must be ASCII digits, not read as feature 1."""
    X = np.random.default_rng(0).integers(0, 4, (60, 2))
    model = HierarchicalNaiveBayes(hierarchies={0: [[0, 0, 1, 1]]}, parents={0: 1})
    doc = json.loads(model_io.dumps(model.fit(X, np.arange(60) % 2)))
    doc["params"][where] = {"\u0661": doc["params"][where]["0"]}
    with pytest.raises(ValueError, match=f"{where}: the key '\u0661' is not a feature index"):
        model_io.loads(json.dumps(doc))


def test_ctrl_c_while_a_file_is_written_leaves_no_part_file(tmp_path, monkeypatch):
    """A KeyboardInterrupt (no Exception) between the write and the rename still removes
    the temporary file and leaves the earlier file as it was."""
    target = tmp_path / "model.json"
    target.write_text("kept")

    def interrupted(source, destination):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli_models._write_whole(target, "new")
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]
    assert target.read_text() == "kept"


@pytest.mark.parametrize(
    ("argv0", "program"), [("/usr/bin/heb", "heb"), ("x/__main__.py", "python -m heb")]
)
def test_the_score_hint_names_the_command_as_typed(monkeypatch, argv0, program):
    """``heb fit`` ends with the command to score rows: ``heb score`` when run as the
    installed ``heb``, ``python -m heb score`` otherwise."""
    monkeypatch.setattr(sys, "argv", [argv0])
    assert cli_models._program() == program


def test_a_hierarchy_that_is_no_list_is_one_sentence():
    """A feature holding a number instead of its list of levels was a TypeError ('int'
    object is not iterable) had the check only refused an empty list."""
    X = np.random.default_rng(0).integers(0, 4, (60, 2))
    model = NaiveBayes("heb-h", hierarchies={0: [[0, 0, 1, 1]]}).fit(X, np.arange(60) % 2)
    doc = json.loads(model_io.dumps(model))
    doc["params"]["hierarchies"] = {"0": 3}
    with pytest.raises(ValueError, match="hierarchies: feature 0 must hold a list of levels"):
        model_io.loads(json.dumps(doc))


def test_fit_passes_its_bins_and_missing_value_options_to_the_preprocessing(
    integer_classes, tmp_path
):
    """--n-bins and --missing reach make_model: the file's preprocessor holds them (the
    defaults 10 and impute would otherwise pass unnoticed)."""
    _, folder, _ = integer_classes
    model = tmp_path / "m.json"
    argv = ["fit", str(folder / "rows.csv"), "--target", "label", "-o", str(model)]
    assert main([*argv, "--n-bins", "3", "--missing", "category"]) == 0
    params = pipeline_io.load(model)[0].get_params()
    assert (params["n_bins"], params["missing"]) == (3, "category")


def test_exactly_five_lacking_columns_are_all_named_without_and_more(tmp_path):
    """The list shows five columns and says "and N more" only past five."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"c{j}": rng.integers(0, 3, 40) for j in range(6)})
    pipe = make_model("laplace").fit(frame, rng.integers(0, 2, 40))
    with pytest.raises(ValueError) as refused:
        cli_models.scored_rows(pipe, frame[["c5"]])
    assert str(refused.value) == (
        "The rows lack 5 of the model's columns: 'c0', 'c1', 'c2', 'c3', 'c4'."
    )


def test_rows_none_of_whose_classes_the_model_knows_score_without_metrics(integer_classes, capsys):
    """Scores are still written, and the metrics line says none was computed (not a
    crash of metrics on no rows)."""
    frame, folder, model = integer_classes
    frame.assign(label="other").to_csv(folder / "other.csv", index=False)
    out = folder / "other_scored.csv"
    capsys.readouterr()
    assert main(["score", str(model), str(folder / "other.csv"), "--target", "label",
                 "-o", str(out)]) == 0  # fmt: skip
    said = capsys.readouterr().err
    assert "No row's 'label' is one of the model's classes; no metric computed." in said
    assert len(pd.read_csv(out)) == len(frame)


def test_scored_rows_reads_a_frames_columns_by_their_text(integer_classes):
    """A frame whose column labels are not text (a program's, 0 and 1) is scored by the
    model's column names "0" and "1"."""
    rng = np.random.default_rng(0)
    named = pd.DataFrame({"0": rng.choice(["a", "b"], 50), "1": rng.normal(size=50)})
    pipe = make_model("heb-m").fit(named, rng.choice(["p", "q"], 50))
    numbered = named.set_axis([0, 1], axis=1)
    scored = cli_models.scored_rows(pipe, numbered)
    np.testing.assert_array_equal(scored[["p(p)", "p(q)"]], pipe.predict_proba(named))


@pytest.mark.parametrize("output", ["", "out/", "folder"])
@pytest.mark.parametrize("command", ["fit", "score"])
def test_an_output_that_names_a_folder_is_refused_before_any_work(
    integer_classes, tmp_path, monkeypatch, capsys, output, command
):
    """``-o out/`` wrote a file named ``out`` (Path drops the slash), ``-o folder`` of a
    folder that is there failed after the fit with "Is a directory", ``-o ''`` with
    "Device or resource busy" naming a temporary file: each is one sentence, exit 2,
    nothing written."""
    _, folder, model = integer_classes
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    rows = str(folder / "rows.csv")
    argv = ["fit", rows, "--target", "label"] if command == "fit" else ["score", str(model), rows]
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main([*argv, "-o", output])
    assert refused.value.code == 2
    assert f"heb: -o {output!r} names no file to write (a folder, or nothing)." in (
        capsys.readouterr().err
    )
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]
    assert not any((tmp_path / "folder").iterdir())


def test_fit_reads_a_file_as_bench_does(integer_classes, tmp_path, capsys):
    """--drop takes comma-separated names, --categorical naming no column and a file that
    is not there are refused in one sentence (exit 2), and the defaults are 10 bins and
    imputed missing values."""
    frame, folder, _ = integer_classes
    rows, model = str(tmp_path / "rows.csv"), str(tmp_path / "m.json")
    frame.assign(extra=1.5, other="x", more=2).to_csv(rows, index=False)
    argv = ["fit", rows, "--target", "label", "-o", model]
    assert main([*argv, "--drop", "extra,other", "--drop", "more"]) == 0
    assert [str(c) for c in pipeline_io.load(model)[0].feature_names_in_] == ["colour", "size"]
    assert main(argv) == 0
    params = pipeline_io.load(model)[0].get_params()
    assert (params["n_bins"], params["missing"]) == (10, "impute")
    for more, said in (
        (["--categorical", "nosuch"], "heb: --categorical names 'nosuch', not a column of"),
        (["--n-bins", "1"], "--n-bins"),
    ):
        capsys.readouterr()
        assert _exit_code([*argv, *more]) == 2 and said in capsys.readouterr().err
    assert _exit_code(["fit", str(tmp_path / "nosuch.csv"), "--target", "label", "-o", model]) == 2
    assert "heb: No file" in capsys.readouterr().err


def test_score_refuses_a_json_rows_file_in_any_case_and_a_folder_as_model(
    integer_classes, tmp_path, monkeypatch, capsys
):
    """ROWS.JSON is a JSON file too; a folder is no model file; ``~`` in the model's path
    is the home folder."""
    _, folder, model = integer_classes
    (tmp_path / "ROWS.JSON").write_text("{}")
    rows = str(folder / "rows.csv")
    for argv, said in (
        ([str(model), str(tmp_path / "ROWS.JSON")], "is a JSON file, not a table of rows"),
        ([str(tmp_path), rows], "heb: No model file"),
    ):
        capsys.readouterr()
        assert _exit_code(["score", *argv, "-o", str(tmp_path / "s.csv")]) == 2
        assert said in capsys.readouterr().err
    monkeypatch.setenv("HOME", str(folder))
    assert main(["score", "~/model.json", rows, "-o", str(tmp_path / "s.csv")]) == 0


def _exit_code(argv: list[str]) -> int:
    """``main``'s exit code, whether it returns it or argparse exits."""
    try:
        return main(argv)
    except SystemExit as stopped:
        return stopped.code


def test_a_hierarchical_nb_files_tables_are_checked_against_its_counts():
    """A HierarchicalNaiveBayes file's stored tables must be the re-smoothed ones, as a
    NaiveBayes file's (a hand-edited prior was loaded as if it were the model's)."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 12, 300)
    X = np.c_[a, a // 3, rng.integers(0, 3, 300)]
    model = HierarchicalNaiveBayes().fit(X, rng.integers(0, 2, 300))
    doc = json.loads(model_io.dumps(model))
    doc["tables"]["class_log_prior"][0] += 0.1
    with pytest.raises(ValueError, match="The stored class_log_prior does not match"):
        model_io.loads(json.dumps(doc))


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"hierarchies": [1]}, "hierarchies must map a feature index"),
        ({"hierarchies": {0: [[0, 0, 1, 1]]}, "parents": [1]}, "parents must map"),
    ],
)
def test_a_hierarchical_nbs_parameters_are_checked_before_fitting_from_counts(params, said):
    """fit_counts checks the parameters before it takes the structure: dict() of a list
    was Python's TypeError (cannot convert dictionary update sequence element)."""
    X = np.random.default_rng(0).integers(0, 4, (60, 2))
    table = NaiveBayes().fit(X, np.arange(60) % 2).count_table_
    with pytest.raises(ValueError, match=said):
        HierarchicalNaiveBayes(**params).fit_counts(table)


def test_a_negative_parent_feature_is_refused_not_read_as_the_last_column():
    """parents {0: -1} given to a HierarchicalNaiveBayes would score feature 0 given the
    last column (numpy's index -1): it is one sentence, as a parent past the last."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 12, 200)
    X = np.c_[a, a // 3, rng.integers(0, 3, 200)]
    model = HierarchicalNaiveBayes(hierarchies={0: [np.arange(12) // 3]}, parents={0: -1})
    with pytest.raises(ValueError, match=r"parents names feature -1, not an index in 0\.\.2"):
        model.fit(X, rng.integers(0, 2, 200))


def test_a_parent_feature_one_past_the_last_is_refused():
    """parents naming feature 3 of a three-feature table is refused at fit (it was an
    IndexError at predict), the bound exclusive."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 12, 200)
    X = np.c_[a, a // 3, rng.integers(0, 3, 200)]
    model = HierarchicalNaiveBayes(hierarchies={0: [np.arange(12) // 3]}, parents={0: 3})
    with pytest.raises(ValueError, match=r"parents names feature 3, not an index in 0\.\.2"):
        model.fit(X, rng.integers(0, 2, 200))


def _tan_counts(n_classes: int = 2, n_values: int = 3, **params):
    rng = np.random.default_rng(0)
    X = rng.integers(0, n_values, (120, 3))
    model = TAN("laplace", **params).fit(X, np.arange(120) % n_classes)
    return model.count_table_, model.pair_counts_


@pytest.mark.parametrize(
    ("pairs_of", "classes", "said"),
    [
        ({}, [0, 1, 2], "must have the same classes"),
        ({"n_classes": 3}, None, "must have the same classes"),
        ({"n_values": 4}, None, "built for other category counts"),
        ({"max_pairs": 10}, None, "built with other caps than this model's"),
    ],
)
def test_tan_fit_counts_refuses_counts_that_do_not_belong_together(pairs_of, classes, said):
    """Class labels, pair counts of other classes, of other category counts or built
    under other caps are refused in one sentence, not smoothed into a wrong tree."""
    table, _ = _tan_counts()
    caps = {k: v for k, v in pairs_of.items() if k == "max_pairs"}
    _, pairs = _tan_counts(**pairs_of)
    with pytest.raises(ValueError, match=said):
        TAN("laplace").fit_counts(table, pairs, classes)
    assert not caps or TAN("laplace", **caps).fit_counts(table, pairs).classes_.size == 2
