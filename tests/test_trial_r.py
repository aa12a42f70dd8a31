"""Trial R (a practitioner using the engine from Python): what it found, pinned.

- a missing class label (NaN / None / pandas' NA) in ``y`` is refused in one sentence that
  names y and the row, by every estimator and through a ``make_model`` pipeline (it was
  scikit-learn's "Input contains NaN" or a TypeError from sorting None beside text);
- ``explain``'s target / reference are class positions: a label or a fraction is refused
  in one sentence (a label said "invalid literal for int()", 1.7 was silently class 1),
  and a make_model pipeline is told how to explain its rows;
  ``decisive_features`` refuses a row it does not hold (it raised an IndexError);
- ``l1_error_study`` checks its grid (K = 0, N = -1, reps = 2.5 and K = 5.7 gave numpy
  errors, a TypeError or a silently truncated K) and reads one smoother name as one name,
  case-insensitively (a string was iterated letter by letter); ``sample_naive_bayes`` and
  ``high_cardinality_preset`` check theirs too (2.5 rows drew 2, K_f = 2.7 drew K_f = 2);
- ``confusion_counts`` / ``class_reliability`` (``heb.metrics.check_rows``) check ``y`` as
  the fold metrics do: a label said "invalid literal for int()", and a fractional index
  0.7 was silently class 0;
- ``NaiveBayes(n0=...)`` is checked as AODE's and TAN's n0 are: a text n0 raised numpy's
  UFuncTypeError, a negative one was taken silently;
- AODE's and TAN's clamp m_min / m_max is checked as NaiveBayes's (``check_clamp``): text
  raised a TypeError from ``<``, and TAN took m_max = inf, which AODE and NB refuse;
- ``concentration_table(model, feature_names=...)`` needs one name per feature: more names
  than features labelled the pairs with shifted names, silently (the table's columns given
  for a model whose Preprocessor dropped an empty column);
- one column name alone (``Preprocessor(categorical="zip")``, ``make_model``,
  ``load_upload`` / ``dataset_from_table``'s ``categorical`` and ``drop``) is that column:
  it was iterated letter by letter ("categorical names 3 columns not in the table: 'i',
  'p', 'z'", zip stayed binned; a column called x was matched by luck), and the pipeline
  file saved ``["z", "i", "p"]``;
- ``run_benchmark`` takes one Dataset alone as a benchmark of one (it was "TypeError:
  'Dataset' object is not iterable") and names anything else it is given;
- ``benchmark_tables(frame, "logloss")`` names the metrics it knows (it was a bare
  ``KeyError: 'logloss'``), and a frame without the metric's column says so.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from heb import AODE, TAN, NaiveBayes
from heb.data import Preprocessor, dataset_from_table, make_model, pipeline_io
from heb.diagnostics import concentration_table
from heb.explain import decisive_features, explain, explain_smoothers
from heb.metrics import accuracy, class_reliability, confusion_counts
from heb.synthetic import high_cardinality_preset, l1_error_study, sample_naive_bayes

X = np.array([[0, 1], [1, 0], [2, 1], [0, 0], [1, 1], [2, 0]])


# ---------------------------------------------------------------- missing class labels
@pytest.mark.parametrize("estimator", [NaiveBayes, AODE, TAN])
@pytest.mark.parametrize(
    "y",
    [
        np.array(["a", "b", None, "b", "a", "b"], dtype=object),
        np.array(["a", "b", "a", np.nan, "a", "b"], dtype=object),
        pd.Series(["a", "b", "a", "b", pd.NA, "b"], dtype="string"),
        pd.Series([1, 2, 1, 2, 1, None], dtype="Int64"),
        np.array([0.0, 1.0, np.nan, 1.0, 0.0, np.nan]),
    ],
    ids=["None", "nan-object", "string-NA", "Int64-NA", "float-nan"],
)
def test_a_missing_class_label_is_one_sentence_naming_y_and_the_row(estimator, y) -> None:
    first = int(np.flatnonzero(pd.isna(np.asarray(y, dtype=object)))[0])
    with pytest.raises(ValueError, match=rf"^y holds \d missing class labels? .* row {first}\)"):
        estimator().fit(X, y)


def test_partial_fit_refuses_a_missing_label_too() -> None:
    with pytest.raises(ValueError, match="y holds 1 missing class label "):
        NaiveBayes().partial_fit(X, ["a", "b", None, "b", "a", "b"], classes=["a", "b"])


def test_a_pipeline_fit_on_a_target_with_a_gap_says_so() -> None:
    frame = pd.DataFrame({"colour": list("rgbrgb"), "size": list("SMLSML")})
    target = pd.Series(["yes", "no", "yes", np.nan, "no", "yes"])
    message = r"1 missing class label \(NaN or None, the first at row 3\)"
    with pytest.raises(ValueError, match=message):
        make_model("laplace").fit(frame, target)


def test_labels_without_gaps_still_fit() -> None:
    """The check leaves whole labels alone: float, object, pandas string and Int64."""
    for y in (
        np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0]),
        np.array(["a", "b", "a", "b", "a", "b"], dtype=object),
        pd.Series(list("abab") + ["a", "b"], dtype="string"),
        pd.Series([1, 2, 1, 2, 1, 2], dtype="Int64"),
    ):
        assert NaiveBayes().fit(X, y).classes_.size == 2


# ---------------------------------------------------------------- explain's class indices
def _model() -> NaiveBayes:
    return NaiveBayes("laplace").fit(X, np.array(["e", "p", "e", "p", "e", "p"]))


def test_explain_refuses_a_label_and_says_its_index() -> None:
    with pytest.raises(ValueError, match=r"not a label\), got 'p'; the label 'p' is index 1\."):
        explain(_model(), X, target="p", reference=0)


def test_explain_refuses_a_fraction_rather_than_truncating_it() -> None:
    with pytest.raises(ValueError, match=r"reference must be a class index in 0\.\.1 .*1\.7"):
        explain(_model(), X, target=0, reference=1.7)


def test_explain_takes_numpy_integers() -> None:
    out = explain(_model(), X, target=np.int64(1), reference=np.int32(0))
    log_proba = _model().predict_log_proba(X)
    np.testing.assert_allclose(out.log_odds, log_proba[:, 1] - log_proba[:, 0], atol=1e-12)


def test_explain_tells_a_pipeline_how_to_explain_its_rows() -> None:
    frame = pd.DataFrame({"colour": list("rgbrgb"), "size": list("SMLSML")})
    pipe = make_model("laplace").fit(frame, ["yes", "no", "yes", "no", "no", "yes"])
    with pytest.raises(ValueError, match=r"not a pipeline: .*explain\(pipe\[-1\], pipe"):
        explain(pipe, frame, 1, 0)
    # what the message says works, and splits the pipeline's own log-odds
    out = explain(pipe[-1], pipe[:-1].transform(frame), 1, 0)
    log_proba = pipe.predict_log_proba(frame)
    np.testing.assert_allclose(out.log_odds, log_proba[:, 1] - log_proba[:, 0], atol=1e-12)


@pytest.mark.parametrize("row", [2, -1, 1.0])
def test_decisive_features_refuses_a_row_it_does_not_hold(row) -> None:
    explanations = explain_smoothers({"a": _model()}, X[:2], 1, 0)
    with pytest.raises(ValueError, match=r"row must be a row number in 0\.\.1"):
        decisive_features(explanations, row=row)


# ---------------------------------------------------------------- l1_error_study's grid
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"K_values": (0,)}, r"K_values must hold whole numbers >= 1, got 0\."),
        ({"K_values": (5.7,)}, r"K_values must hold whole numbers >= 1, got 5\.7\."),
        ({"N_values": (-1,)}, r"N_values must hold whole numbers >= 0, got -1\."),
        ({"reps": 2.5}, r"reps must be a whole number >= 1, got 2\.5\."),
        ({"reps": 0}, r"reps must be a whole number >= 1, got 0\."),
        ({"alpha_dir": float("nan")}, r"alpha_dir must be a positive number, got nan\."),
        ({"smoothers": ("te",)}, r"'te' does not estimate a single PMF; choose from unsmoothed"),
    ],
)
def test_the_study_refuses_a_bad_grid_in_one_sentence(kwargs, message) -> None:
    settings = {"K_values": (5,), "N_values": (10,), "reps": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        l1_error_study(**settings)


def test_one_smoother_name_is_one_smoother_whatever_its_case() -> None:
    rows = l1_error_study(K_values=(5,), N_values=(10,), reps=3, smoothers="HEB_U")
    assert [row["smoother"] for row in rows] == ["heb-u"]
    same = l1_error_study(K_values=(5,), N_values=(10,), reps=3, smoothers=("heb-u",))
    assert rows == same


def test_whole_float_grid_values_are_read_as_ints() -> None:
    rows = l1_error_study(K_values=(5.0,), N_values=(np.int64(10),), reps=3.0)
    assert rows == l1_error_study(K_values=(5,), N_values=(10,), reps=3)
    assert isinstance(rows[0]["K"], int)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_samples": 2.5}, r"^n_samples must be a whole number >= 1, got 2\.5\.$"),
        ({"n_samples": "5"}, r"^n_samples must be a whole number >= 1, got '5'\.$"),
        ({"n_categories": [3, 2.7]}, r"^n_categories must hold whole numbers >= 1, got 2\.7\.$"),
        ({"n_categories": [3, 0]}, r"^n_categories must hold whole numbers >= 1, got 0\.$"),
        ({"n_classes": 1.5}, r"^n_classes must be a whole number >= 1, got 1\.5\.$"),
        ({"alpha_dir": np.inf}, r"^alpha_dir must be a positive number, got inf\.$"),
    ],
)
def test_sample_naive_bayes_checks_its_sizes(kwargs, message) -> None:
    settings = {"n_samples": 5, "n_categories": [3]} | kwargs
    with pytest.raises(ValueError, match=message):
        sample_naive_bayes(**settings)
    if "n_samples" in kwargs:
        with pytest.raises(ValueError, match=message):
            high_cardinality_preset(n_samples=kwargs["n_samples"])


def test_sample_naive_bayes_takes_whole_floats_and_numpy_ints() -> None:
    a = sample_naive_bayes(np.int64(7), [3.0, np.int32(4)], n_classes=2.0, seed=1)
    b = sample_naive_bayes(7, [3, 4], n_classes=2, seed=1)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


# ---------------------------------------------------------------- per-class metrics' y
PROBA = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])


@pytest.mark.parametrize("metric", [confusion_counts, class_reliability, accuracy])
@pytest.mark.parametrize(
    ("y", "message"),
    [
        (np.array(["a", "b", "a"]), r"y must hold integer class indices, got dtype <U1\."),
        (np.array([0.7, 1.0, 0.0]), r"y must hold whole-number class indices 0\.\.C-1\."),
        (np.array([0, 2, 1]), r"y must hold class indices in 0\.\.1 .*got values in 0\.\.2\."),
    ],
    ids=["labels", "fraction", "out-of-range"],
)
def test_per_class_metrics_check_y_as_the_fold_metrics_do(metric, y, message) -> None:
    with pytest.raises(ValueError, match=message):
        metric(y, PROBA)


def test_confusion_counts_still_takes_whole_float_and_bool_indices() -> None:
    expected = [[1, 0], [1, 1]]  # true 0 predicted 0; true 1 predicted 1 and 0 (a tie)
    assert confusion_counts(np.array([1.0, 0.0, 1.0]), PROBA).tolist() == expected
    assert confusion_counts(np.array([True, False, True]), PROBA).tolist() == expected
    assert confusion_counts(np.array([], dtype=int), np.zeros((0, 2))).tolist() == [[0, 0]] * 2


# ---------------------------------------------------------------- NaiveBayes' n0
@pytest.mark.parametrize("n0", ["x", -5, float("nan"), None])
@pytest.mark.parametrize("smoother", ["heb-m", "laplace"])
def test_naive_bayes_checks_n0_as_aode_and_tan_do(n0, smoother) -> None:
    message = rf"^n0 must be a non-negative number, got {re.escape(repr(n0))}\.$"
    for estimator in (NaiveBayes(smoother, n0=n0), AODE(n0=n0), TAN(n0=n0)):
        with pytest.raises(ValueError, match=message):
            estimator.fit(X, [0, 1, 0, 1, 0, 1])


def test_n0_zero_and_infinity_still_fit() -> None:
    """0: every pair learns its m; inf: every pair falls back to m = K_f."""
    y = [0, 1, 0, 1, 0, 1]
    assert not NaiveBayes(n0=0).fit(X, y).concentrations_["fallback"].any()
    assert NaiveBayes(n0=np.inf).fit(X, y).concentrations_["fallback"].all()


# ---------------------------------------------------------------- the clamp m_min, m_max
@pytest.mark.parametrize("estimator", [NaiveBayes, AODE, TAN])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"m_min": "a"}, r"^m_min and m_max must be numbers, got m_min='a', m_max=10000\.0\.$"),
        ({"m_max": None}, r"^m_min and m_max must be numbers, got m_min=0\.01, m_max=None\.$"),
        ({"m_max": np.inf}, r"^Need finite 0 < m_min <= m_max, got m_min=0\.01, m_max=inf\.$"),
        ({"m_min": 5, "m_max": 1}, r"^Need finite 0 < m_min <= m_max, got m_min=5, m_max=1\.$"),
        ({"m_min": 0}, r"^Need finite 0 < m_min <= m_max, got m_min=0, m_max=10000\.0\.$"),
    ],
    ids=["text", "None", "inf", "reversed", "zero"],
)
def test_every_classifier_checks_its_clamp_in_one_sentence(estimator, kwargs, message) -> None:
    learned = {"smoother": "heb"} if estimator in (AODE, TAN) else {}  # the clamp is used
    with pytest.raises(ValueError, match=message):
        estimator(**learned, **kwargs).fit(X, [0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("estimator", [NaiveBayes, AODE, TAN])
def test_a_clamp_of_numpy_numbers_or_one_value_still_fits(estimator) -> None:
    for low, high in ((np.float32(0.5), np.int64(7)), (3, 3)):
        assert estimator(m_min=low, m_max=high).fit(X, [0, 1, 0, 1, 0, 1]).classes_.size == 2


# ---------------------------------------------------------------- concentration_table's names
def test_concentration_table_refuses_more_names_than_features() -> None:
    """The frame's three columns for a pipeline whose Preprocessor dropped the empty one:
    the names were shifted (K_f 8 called 'empty', K_f 4 called 'zip')."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "empty": [np.nan] * 200,
            "zip": rng.choice(list("abcdefgh"), 200),
            "product": rng.choice(list("pqrs"), 200),
        }
    )
    pipe = make_model().fit(frame, rng.integers(0, 2, 200))
    assert pipe.named_steps["preprocess"].dropped_ == ["empty"]
    message = r"^3 feature names were given for a model of 2 features; give one name per"
    with pytest.raises(ValueError, match=message):
        concentration_table(pipe.named_steps["classifier"], feature_names=list(frame.columns))
    named = concentration_table(pipe)  # the pipeline names its own features
    assert named.set_index("feature name")["K_f"].to_dict() == {"zip": 8, "product": 4}


# ---------------------------------------------------------------- one column name alone
def _zips() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"zip": rng.integers(1000, 1200, 300), "x": rng.normal(size=300)})


def test_one_categorical_name_is_one_column_not_its_letters() -> None:
    import warnings

    frame = _zips()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "columns not in the table: 'i', 'p', 'z'"
        alone = Preprocessor(categorical="zip").fit(frame)
    assert alone.kinds_ == {"zip": "categorical", "x": "numeric"}
    listed = Preprocessor(categorical=["zip"]).fit(frame)
    assert np.array_equal(alone.transform(frame), listed.transform(frame))


def test_a_pipeline_declared_with_one_name_saves_that_name() -> None:
    frame, y = _zips(), np.arange(300) % 2
    pipe = make_model("laplace", categorical="zip").fit(frame, y)
    text = pipeline_io.dumps(pipe)
    assert json.loads(text)["preprocessor"]["params"]["categorical"] == ["zip"]
    loaded = pipeline_io.loads(text)
    assert loaded.named_steps["preprocess"].categorical == ["zip"]
    np.testing.assert_array_equal(loaded.predict_proba(frame), pipe.predict_proba(frame))


def test_dataset_from_table_reads_one_name_as_one_column() -> None:
    frame = _zips().assign(id=np.arange(300), y=np.arange(300) % 2)
    dataset = dataset_from_table(frame, "zips.csv", target="y", categorical="zip", drop="id")
    assert list(dataset.X.columns) == ["zip", "x"]
    assert "zip" in dataset.categorical


# ---------------------------------------------------------------- run_benchmark's datasets
def _tiny_dataset():
    from heb.data import Dataset

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.choice(list("pqr"), 60), "b": rng.choice(list("st"), 60)})
    return Dataset(name="tiny", X=X, y=pd.Series(np.arange(60) % 2), categorical=[], source="t")


def test_run_benchmark_takes_one_dataset_alone() -> None:
    from heb.evaluate import run_benchmark

    one = run_benchmark(_tiny_dataset(), ["Laplace"], n_splits=3, use_cache=False)
    listed = run_benchmark([_tiny_dataset()], ["Laplace"], n_splits=3, use_cache=False)
    pd.testing.assert_frame_equal(
        one.drop(columns=["fit_time", "predict_time"]),
        listed.drop(columns=["fit_time", "predict_time"]),
    )
    assert set(one["dataset"]) == {"tiny"} and len(one) == 3


def test_run_benchmark_names_what_is_not_a_dataset() -> None:
    from heb.evaluate import run_benchmark

    with pytest.raises(ValueError, match=r"takes Dataset objects .*got a str\.$"):
        run_benchmark(["car"], ["Laplace"], n_splits=3)


# ---------------------------------------------------------------- benchmark_tables' metric
def _benchmark_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        [
            {"dataset": d, "method": m, "fold": f, "log_loss": rng.random(), "fit_time": 1.0}
            for d in "abcd"
            for m in ["X", "Y", "Z"]
            for f in range(3)
        ]
    )


def test_benchmark_tables_names_an_unknown_metric() -> None:
    from heb.evaluate import benchmark_tables

    with pytest.raises(ValueError, match=r"^Unknown metric 'logloss'; choose from .*log_loss"):
        benchmark_tables(_benchmark_frame(), "logloss")
    with pytest.raises(ValueError, match=r"^The benchmark frame has no column 'auc'\.$"):
        benchmark_tables(_benchmark_frame(), "auc")
    assert benchmark_tables(_benchmark_frame(), "log_loss")["scores"].shape == (4, 3)
    assert benchmark_tables(_benchmark_frame(), "fit_time")["friedman"]["chi2"] == 0.0


def test_no_shared_folder_names_both_variables(tmp_path, monkeypatch):
    """The message named only HEB_DATASETS_DIR, though HEB_SHARED_DIR is the variable the
    README gives (trial R)."""
    from heb.data import DataError
    from heb.data.shared import load_shared

    monkeypatch.delenv("HEB_DATASETS_DIR", raising=False)
    monkeypatch.setenv("HEB_SHARED_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match="set HEB_SHARED_DIR to the shared folder") as caught:
        load_shared("car")
    assert "HEB_DATASETS_DIR" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("value", [True, "0.5", b"1", np.True_])
def test_a_smoothers_parameter_is_a_number_not_text_or_a_boolean(value):
    """``alpha="0.5"`` was read as 0.5 and ``alpha=True`` as 1, where ``n0`` and the clamp
    refuse both (trial R)."""
    from heb import NaiveBayes

    X, y = np.array([[0, 1], [1, 0], [0, 0], [1, 1]]), [0, 1, 0, 1]
    with pytest.raises(ValueError, match=r"lidstone: alpha must be a number, got"):
        NaiveBayes("lidstone", alpha=value).fit(X, y)
    assert NaiveBayes("lidstone", alpha=np.float32(0.5)).fit(X, y).alpha == 0.5
