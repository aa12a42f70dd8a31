"""``heb fit`` writes a model file of one method fitted on every row; ``heb score`` reads
raw rows with it: its probabilities are the fitted pipeline's, its file whole or absent."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from heb import model_io
from heb.aode import AODE
from heb.cli import main
from heb.data import load_dataset, make_model, pipeline_io
from heb.nb import NaiveBayes
from heb.paths import REPO_ROOT
from heb.tan import TAN


@pytest.fixture(scope="module")
def zip_rows(tmp_path_factory):
    """The built-in zip-codes dataset, and its rows (target included) as a CSV file."""
    dataset = load_dataset("builtin:zip-codes")
    frame = dataset.X.copy()
    frame[dataset.target] = dataset.y
    path = tmp_path_factory.mktemp("rows") / "rows.csv"
    frame.to_csv(path, index=False)
    return dataset, path


def _scored(path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False)


def test_fit_then_score_gives_the_pipelines_probabilities(zip_rows, tmp_path, capsys):
    dataset, rows = zip_rows
    model_file = tmp_path / "model.json"
    assert main(["fit", "builtin:zip-codes", "-o", str(model_file)]) == 0
    said = capsys.readouterr().err
    assert "Fitted HEB-M on 5,000 rows of zip-codes (8 columns, target 'bought', 2 classes)" in said
    assert f"score {model_file} ROWS.csv" in said
    pipe = pipeline_io.load(model_file)
    assert isinstance(pipe, Pipeline) and pipe[-1].get_params()["smoother"] == "heb-m"
    expected = make_model("heb-m", categorical=dataset.categorical).fit(dataset.X, dataset.y)
    proba = expected.predict_proba(dataset.X)
    assert np.array_equal(pipe.predict_proba(dataset.X), proba)

    out = tmp_path / "scored.csv"
    assert main(["score", str(model_file), str(rows), "-o", str(out), "--target", "bought"]) == 0
    said = capsys.readouterr().err
    assert "Scored 5,000 rows" in said
    assert "Against 'bought' on 5,000 rows: accuracy " in said and "log_loss" in said
    scored = _scored(out)
    assert list(scored.columns) == ["row", "predicted", "p(no)", "p(yes)"]
    assert scored["row"].tolist() == list(range(5000))
    np.testing.assert_allclose(scored[["p(no)", "p(yes)"]].to_numpy(), proba, rtol=1e-15)
    assert (scored["predicted"] == np.array(["no", "yes"])[proba.argmax(1)]).all()
    accuracy = float(said.split("accuracy ")[1].split(",")[0])
    assert accuracy == pytest.approx(
        np.mean(scored["predicted"] == dataset.y.astype(str)), abs=1e-4
    )


def test_scores_go_to_standard_output_by_default(zip_rows, tmp_path):
    _, rows = zip_rows
    model_file = tmp_path / "m.json"
    assert main(["fit", "builtin:zip-codes", "--method", "laplace", "-o", str(model_file)]) == 0
    done = subprocess.run(
        [sys.executable, "-m", "heb", "score", str(model_file), str(rows)],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.startswith("row,predicted,p(no),p(yes)\n0,")
    # nothing else: no "Scored ...; wrote" line, and none of the reader's notes on the
    # columns' types (ip_hash mixes numbers and text), which the model's encoding decides
    assert len(done.stdout.splitlines()) == 5001 and done.stderr == ""


@pytest.mark.parametrize(
    ("method", "kind", "smoother"),
    [("HEB-AODE", AODE, "heb"), ("tan", TAN, "laplace"), ("heb-m-gr", NaiveBayes, "heb-m")],
)
def test_fit_writes_any_saved_method_of_a_csv_file(tmp_path, method, kind, smoother):
    """A file's --target, --drop and --categorical as bench reads them."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(300),
            "shop": rng.integers(0, 6, 300),
            "colour": rng.choice(["red", "blue", "green"], 300),
            "weight": rng.normal(size=300),
            "label": rng.choice(["a", "b"], 300),
            "bought": rng.choice(["y", "n"], 300),
        }
    )
    data = tmp_path / "shop.csv"
    frame.to_csv(data, index=False)
    model_file = tmp_path / "out" / "model.json"
    argv = ["fit", str(data), "--method", method, "--target", "label", "--drop", "id"]
    assert main([*argv, "--categorical", "shop", "-o", str(model_file)]) == 0
    pipe = pipeline_io.load(model_file)
    assert isinstance(pipe[-1], kind) and pipe[-1].get_params()["smoother"] == smoother
    assert pipe.classes_.tolist() == ["a", "b"]
    assert [str(c) for c in pipe[0].feature_names_in_] == ["shop", "colour", "weight", "bought"]
    assert pipe[0].kinds_["shop"] == "categorical"
    out = tmp_path / "scored.csv"
    assert main(["score", str(model_file), str(data), "-o", str(out)]) == 0
    assert len(_scored(out)) == 300


def test_refusals_are_one_sentence_and_write_nothing(zip_rows, tmp_path, capsys, monkeypatch):
    dataset, rows = zip_rows
    model_file = tmp_path / "m.json"
    model_file.write_text("kept")  # an earlier file a refused fit must leave as it was
    for method, said in (
        ("CategoricalNB", "is a reference model, which a model file cannot hold; choose one of"),
        ("nosuch", "is no method; choose one of Laplace"),
        ("heb-m --target bought", "is a named dataset with its own target"),
    ):
        method, *more = method.split()
        with pytest.raises(SystemExit) as stopped:
            main(["fit", "builtin:zip-codes", "--method", method, *more, "-o", str(model_file)])
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
    assert model_file.read_text() == "kept"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):  # it wrote a file named '-'
        main(["fit", "builtin:zip-codes", "-o", "-"])
    assert "fit writes its model to a file: -o - (standard output) is none." in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "-").exists()
    (tmp_path / "parts").mkdir()
    with pytest.raises(SystemExit):  # bench's message named --engine, which fit has not
        main(["fit", str(tmp_path / "parts"), "-o", str(model_file)])
    assert "is a folder: fit reads one table file." in capsys.readouterr().err
    assert main(["fit", "builtin:zip-codes", "-o", str(model_file)]) == 0
    out = tmp_path / "scored.csv"
    codes_only = tmp_path / "codes.json"
    codes_only.write_text(model_io.dumps(NaiveBayes().fit(np.zeros((4, 1), int), [0, 1, 0, 1])))
    few = tmp_path / "few.csv"
    dataset.X[["zip_code"]].to_csv(few, index=False)
    for argv, said in (
        ([str(model_file), str(rows), "--target", "nosuch"], "no column 'nosuch' to score"),
        (
            [str(model_file), str(few)],
            "lack 7 of the model's columns: 'user_id', 'store_id', 'product_id', 'ip_hash', "
            "'weekday' and 2 more.",
        ),
        ([str(codes_only), str(rows)], "holds no preprocessing (a model of integer codes)"),
    ):
        assert main(["score", *argv, "-o", str(out)]) == 2
        assert said in capsys.readouterr().err
        assert not out.exists()
    for argv, said in (
        ([str(tmp_path / "nosuch.json"), str(rows)], "No model file"),
        ([str(model_file), str(model_file)], "is a JSON file, not a table of rows to score"),
        ([str(model_file), str(tmp_path / "nosuch.csv")], "No file"),
    ):
        with pytest.raises(SystemExit):
            main(["score", *argv, "-o", str(out)])
        assert said in capsys.readouterr().err
    assert not out.exists()


def test_fit_names_the_target_option_when_the_last_column_cannot_be_one(tmp_path, capsys):
    """A file whose last column has one class: fit said only that, where bench names
    ``--target`` and the columns that read as classes; fit now says both, and writes
    nothing."""
    data = tmp_path / "churn.csv"
    pd.DataFrame(
        {"plan": ["basic", "pro", "basic", "pro"] * 5, "tenure": range(20), "churn": ["no"] * 20}
    ).to_csv(data, index=False)
    model_file = tmp_path / "m.json"
    assert main(["fit", str(data), "-o", str(model_file)]) == 2
    err = capsys.readouterr().err
    assert "only one class ('no')" in err
    assert "unless --target NAME names another, such as 'plan' (text, 2 values)" in err
    assert err.count("\n") == 1 and not model_file.exists()
    assert main(["fit", str(data), "--target", "plan", "-o", str(model_file)]) == 0


def test_a_column_empty_in_training_is_left_out_of_the_fit_and_not_needed_to_score(
    tmp_path, capsys
):
    """A column empty in every training row is left out (a note says so): fit counted it
    among the model's columns, and score refused rows without it."""
    rng = np.random.default_rng(3)
    plan = rng.choice(["basic", "pro", "max"], 60)
    frame = pd.DataFrame(
        {"plan": plan, "notes": np.nan, "churn": np.where(plan == "pro", "y", "n")}
    )
    data, model_file = tmp_path / "train.csv", tmp_path / "m.json"
    frame.to_csv(data, index=False)
    assert main(["fit", str(data), "-o", str(model_file)]) == 0
    said = capsys.readouterr().err
    assert "'notes' is empty in every row and will be left out" in said
    assert "(1 column, target 'churn', 2 classes)" in said
    rows, out = tmp_path / "rows.csv", tmp_path / "scored.csv"
    frame[["plan"]].head(5).to_csv(rows, index=False)
    assert main(["score", str(model_file), str(rows), "-o", str(out)]) == 0
    scored = pd.read_csv(out)
    assert scored["predicted"].tolist() == frame["churn"].head(5).tolist()
    frame[["churn"]].to_csv(rows, index=False)  # a column the model reads is still needed
    assert main(["score", str(model_file), str(rows), "-o", str(out)]) == 2
    assert "lack 1 of the model's columns: 'plan'." in capsys.readouterr().err


def test_a_write_that_fails_leaves_the_old_file_and_no_part(zip_rows, tmp_path, monkeypatch):
    """The file is written to a temporary file and renamed into place: a failure (a full
    disk, Ctrl-C) leaves the earlier file, and no temporary file beside it."""
    model_file = tmp_path / "m.json"
    model_file.write_text("kept")

    def refused(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refused)
    assert main(["fit", "builtin:zip-codes", "-o", str(model_file)]) == 1
    assert model_file.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_the_scores_of_a_tan_file_match_its_model(zip_rows, tmp_path):
    dataset, rows = zip_rows
    model_file = tmp_path / "tan.json"
    assert main(["fit", "builtin:zip-codes", "--method", "heb-tan", "-o", str(model_file)]) == 0
    doc = json.loads(model_file.read_text())
    assert doc["model"] == "TAN" and "preprocessor" in doc
    out = tmp_path / "scored.csv"
    assert main(["score", str(model_file), str(rows), "-o", str(out)]) == 0
    pipe = make_model(estimator=TAN("heb"), categorical=dataset.categorical)
    proba = pipe.fit(dataset.X, dataset.y).predict_proba(dataset.X)
    np.testing.assert_allclose(_scored(out)[["p(no)", "p(yes)"]].to_numpy(), proba, rtol=1e-15)


def test_score_says_a_repeated_column_was_renamed(zip_rows, tmp_path, capsys):
    """Rows with two columns of one name: the first is scored, the second renamed, and
    the scoring said nothing of it (fit says its data's notes)."""
    dataset, rows = zip_rows
    model_file = tmp_path / "m.json"
    assert main(["fit", "builtin:zip-codes", "--method", "laplace", "-o", str(model_file)]) == 0
    frame = pd.read_csv(rows, dtype=str, keep_default_na=False)
    frame.insert(0, "weekday", "Sun", allow_duplicates=True)  # a stale copy, first
    doubled = tmp_path / "doubled.csv"
    frame.to_csv(doubled, index=False)
    capsys.readouterr()
    assert main(["score", str(model_file), str(doubled), "-o", str(tmp_path / "s.csv")]) == 0
    said = capsys.readouterr().err
    assert (
        "  doubled.csv: Column name 'weekday' appears more than once, so the repeats were "
        "renamed ('weekday (2)')." in said
    )


def test_fit_max_rows_fits_the_apps_stratified_subsample(zip_rows, tmp_path, capsys):
    """Explain saves a model of the app's capped rows; heb fit fitted every row, so the two
    files of one upload scored differently. --max-rows fits the same subsample."""
    from heb.evaluate.folds import evaluated_data

    dataset, rows = zip_rows
    model_file = tmp_path / "m.json"
    argv = ["fit", str(rows), "--method", "laplace", "--max-rows", "1200"]
    assert main([*argv, "-o", str(model_file)]) == 0
    said = capsys.readouterr().err
    assert "Fitted Laplace on 1,200 rows of 5,000 (a stratified subsample, --max-rows) of" in said
    loaded = pipeline_io.load(model_file)
    file_data = load_dataset(str(rows))
    X, y = evaluated_data(file_data, 1200)[:2]
    expected = make_model("laplace", categorical=file_data.categorical).fit(X, y)
    np.testing.assert_array_equal(
        loaded.predict_proba(file_data.X), expected.predict_proba(file_data.X)
    )
    every = make_model("laplace", categorical=file_data.categorical)
    every.fit(file_data.X, file_data.y)
    assert not np.allclose(loaded.predict_proba(file_data.X), every.predict_proba(file_data.X))

    assert main([*argv[:-1], "5000", "-o", str(tmp_path / "all.json")]) == 0  # no cap reached
    assert "--max-rows" not in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*argv[:-1], "1", "-o", str(tmp_path / "one.json")])
    assert "heb: --max-rows must be at least the number of classes (2)." in capsys.readouterr().err
    assert not (tmp_path / "one.json").exists()


def _fit_and_score(frame: pd.DataFrame, tmp_path, capsys) -> pd.DataFrame:
    """``heb fit`` on ``frame`` (last column the target), then ``heb score`` of its rows:
    the scored CSV as read back."""
    data = tmp_path / "rows.csv"
    frame.to_csv(data, index=False)
    model_file, out = tmp_path / "m.json", tmp_path / "s.csv"
    assert main(["fit", str(data), "-o", str(model_file)]) == 0
    assert main(["score", str(model_file), str(data), "-o", str(out)]) == 0
    capsys.readouterr()
    return pd.read_csv(out)


def test_scored_class_names_cannot_start_a_spreadsheet_formula(tmp_path, capsys):
    """Class names are the data's text: heb score wrote '=HYPERLINK(...)' as a predicted
    class (and in its p(...) header), which a spreadsheet runs; it is quoted, as in the app's
    out-of-fold CSV, and a numeric class stays a number."""
    rng = np.random.default_rng(0)
    evil = '=HYPERLINK("http://evil.example")'
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 120), "b": rng.choice(["u", "v"], 120)})
    frame["label"] = np.where(frame["a"] == "x", evil, "@SUM(1)")
    scored = _fit_and_score(frame, tmp_path, capsys)
    assert set(scored["predicted"]) <= {"'" + evil, "'@SUM(1)"}
    assert not any(str(c).startswith(("=", "@")) for c in scored.columns)
    assert all(not str(v).startswith(("=", "+", "-", "@")) for v in scored["predicted"])


def test_a_negative_numeric_class_is_written_as_the_number(tmp_path, capsys):
    """The formula rule quoted a class -1 as '-1 (it starts with '-'), so the predicted
    column no longer matched the true labels; a plain number is no formula."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 120), "b": rng.choice(["u", "v"], 120)})
    frame["label"] = np.where(frame["a"] == "x", -1, 1)
    scored = _fit_and_score(frame, tmp_path, capsys)
    assert set(scored["predicted"]) == {-1, 1}
    assert (scored["predicted"] == frame["label"]).mean() > 0.9
