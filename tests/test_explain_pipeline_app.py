"""The Explain page's model files with their preprocessing: the download is a make_model
pipeline of the page's Preprocessor and model (it scores raw rows), and loading a pipeline
file scores the current dataset's raw rows; a model-only file still works."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline
from streamlit.testing.v1 import AppTest
from test_app import assert_clean, open_app

from explorer import explain as ex
from explorer.loading import WorkingData
from heb.counts import CountTable
from heb.data import Preprocessor, encode_target, load_dataset, make_model, pipeline_io
from heb.nb import NaiveBayes


def page_work(spec: str = "builtin:zip-codes", missing: str = "impute") -> tuple:
    """The page's WorkingData for ``spec`` under the default settings, built the way
    :func:`explorer.loading.current_codes` builds it (every row: under 20,000)."""
    dataset = load_dataset(spec)
    y, classes = encode_target(dataset.y)
    pre = Preprocessor(n_bins=10, missing=missing, categorical=dataset.categorical)
    codes = pre.fit_transform(dataset.X)
    work = WorkingData(
        codes=codes,
        y=y,
        feature_names=[str(n) for n in pre.feature_names_out_],
        class_names=[str(c) for c in classes],
        preprocessor=pre,
        table=CountTable.from_codes(codes, y, len(classes), n_categories=pre.n_categories_),
        key="test",
        n_rows_total=len(dataset.X),
        table_rows=np.arange(len(y)),
    )
    return dataset, work


def fitted_on(work: WorkingData, smoother: str) -> ex.Fitted:
    model = NaiveBayes(smoother).fit_counts(work.table, np.arange(work.n_classes))
    return ex.Fitted({smoother: model}, {smoother: model.predict(work.codes)})


def explain_with_files() -> AppTest:
    at = open_app(explain_row="0", explain_smoothers="laplace")
    at.switch_page("pages/explain.py").run()
    at.session_state["model_files_open"] = True
    return at.run()


def upload(at: AppTest, text: bytes) -> AppTest:
    at.file_uploader(key="explain_load").upload("model.json", text, "application/json").run()
    assert_clean(at)
    return at


def accuracy(at: AppTest) -> float:
    (metric,) = [m for m in at.metric if m.label == "Accuracy on the current dataset's rows"]
    return float(metric.value)


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_the_pages_download_is_a_pipeline_that_scores_raw_rows(missing):
    dataset, work = page_work(missing=missing)
    fitted = fitted_on(work, "heb-m")
    text = ex.model_json(fitted, "heb-m", work.feature_names, work.class_names, work.preprocessor)
    pipe = pipeline_io.loads(text)
    assert isinstance(pipe, Pipeline)
    assert pipe[0].categories_ == work.preprocessor.categories_
    assert pipe.classes_.tolist() == work.class_names
    # the zip-codes rows have no missing value: raw rows encode to the page's codes
    assert np.array_equal(pipe[0].transform(dataset.X), work.codes)
    expected = fitted.models["heb-m"].predict_proba(work.codes)
    assert np.array_equal(pipe.predict_proba(dataset.X), expected)
    # a file without the preprocessor (model_json's old call) is still a model of codes
    alone = pipeline_io.loads(ex.model_json(fitted, "heb-m", work.feature_names, work.class_names))
    assert isinstance(alone, NaiveBayes)
    assert alone.feature_names_in_.tolist() == work.feature_names


def test_a_pipeline_file_scores_the_current_datasets_raw_rows():
    dataset, work = page_work()
    at = explain_with_files()
    assert any("scores raw rows" in c.value for c in at.caption)
    text = ex.model_json(
        fitted_on(work, "laplace"),
        "laplace",
        work.feature_names,
        work.class_names,
        work.preprocessor,
    )
    at = upload(at, text)
    assert any("Loaded a pipeline" in m.value for m in at.markdown)
    truth = np.asarray(work.class_names)[work.y]
    pipe = pipeline_io.loads(text)
    assert accuracy(at) == pytest.approx(np.mean(pipe.predict(dataset.X) == truth), abs=5e-4)
    # the same as the page's own laplace model on its codes (no missing values here)
    expected = np.mean(fitted_on(work, "laplace").predicted["laplace"] == work.y)
    assert accuracy(at) == pytest.approx(expected, abs=5e-4)


def test_a_make_model_pipeline_from_a_script_scores_the_pages_rows():
    """A practitioner's pipeline, fitted on half the rows with its own settings."""
    dataset = load_dataset("builtin:zip-codes")
    half = dataset.X.index[::2]
    pipe = make_model("heb-u", n_bins=5, missing="category").fit(
        dataset.X.loc[half], dataset.y.loc[half]
    )
    at = upload(explain_with_files(), pipeline_io.dumps(pipe).encode())
    expected = np.mean(pipe.predict(dataset.X).astype(str) == dataset.y.astype(str).to_numpy())
    assert accuracy(at) == pytest.approx(expected, abs=5e-4)


def test_a_pipeline_for_other_columns_says_so_and_a_bad_file_is_one_sentence():
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "size": [1.0, 2, 3, 4]})
    pipe = make_model("laplace").fit(frame, ["a", "b", "a", "b"])
    at = upload(explain_with_files(), pipeline_io.dumps(pipe).encode())
    assert not [m for m in at.metric if m.label == "Accuracy on the current dataset's rows"]
    assert any("cannot score its rows" in i.value and "colour" in i.value for i in at.info)
    # the summary above it claimed "It encodes the current dataset's raw rows itself."
    summary = next(m.value for m in at.markdown if "Loaded a pipeline" in m.value)
    assert "current dataset" not in summary and "encoding them itself" in summary
    bad = pipeline_io.dumps(pipe).replace('"missing":"impute"', '"missing":"drop"', 1)
    at.file_uploader(key="explain_load").upload("bad.json", bad.encode(), "application/json")
    at.run()
    assert not at.exception
    assert [e.value.replace("\\", "") for e in at.error] == [  # markdown-escaped
        "The preprocessor's missing must be 'impute' or 'category'."
    ]


def test_case_model_file_for_other_features():
    """A model-only file of 3 features on zip-codes was "Loaded NaiveBayes (heb-m), 2
    classes, 3 features." and nothing else: no accuracy and no reason."""
    from heb import model_io

    _, work = page_work()
    rng = np.random.default_rng(0)
    three = pd.DataFrame(rng.integers(0, 4, size=(50, 3)), columns=["p", "q", "r"])
    small = NaiveBayes("heb-m").fit(three, rng.integers(0, 2, 50))
    assert ex.model_mismatch(small, work) == (
        f"The file's model reads 3 features and the current dataset has "
        f"{len(work.feature_names):,}, so it cannot score its rows: load a model saved on "
        "this dataset."
    )
    at = upload(explain_with_files(), model_io.dumps(small).encode())
    assert not [m for m in at.metric if m.label.startswith("Accuracy on")]
    assert any("reads 3 features" in i.value for i in at.info)
    # as many features, other names: said with the first that differs
    n = len(work.feature_names)
    names = [*work.feature_names[:1], "<b>other</b>", *work.feature_names[2:]]
    renamed = NaiveBayes("laplace").fit(
        pd.DataFrame(rng.integers(0, 3, size=(40, n)), columns=names), rng.integers(0, 2, 40)
    )
    assert ex.model_mismatch(renamed, work) == (
        f"The file's model reads other features than the current dataset (its feature 2 is "
        f"<b>other</b>, the dataset's {work.feature_names[1]}), so it cannot score its rows."
    )
    at = upload(explain_with_files(), model_io.dumps(renamed).encode())
    (said,) = [i.value for i in at.info if "other features" in i.value]
    assert "<b>" not in said  # escaped: shown as text
    # the page's own features: it scores
    same = NaiveBayes("laplace").fit(pd.DataFrame(work.codes, columns=work.feature_names), work.y)
    assert ex.model_mismatch(same, work) == ""


def test_a_failure_of_the_loaded_models_notes_names_the_scoring_not_the_fitting(monkeypatch):
    """The notes on the rows a loaded model scores ran outside the page's guards: their
    KeyError (a column left out as empty) read "while fitting the models" further down."""
    dataset, work = page_work()
    fitted = fitted_on(work, "laplace")
    text = ex.model_json(fitted, "laplace", work.feature_names, work.class_names, work.preprocessor)

    def broken(model, rows):
        raise KeyError("gone")

    monkeypatch.setattr(ex, "scoring_notes", broken)
    at = explain_with_files()
    at.file_uploader(key="explain_load").upload("model.json", text, "application/json").run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert any("while scoring the rows with the loaded model" in s for s in said), said
    assert not any("fitting" in s for s in said), said
    assert accuracy(at) > 0  # the accuracy above the notes stays
