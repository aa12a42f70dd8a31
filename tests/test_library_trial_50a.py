"""A data scientist's trial of the engine as a Python library (session 50a).

Each test is a call made from the README and the docstrings, and what went wrong:

- ``make_model().fit(frame.to_numpy(), y)`` (or a Preprocessor after an imputer, whose
  output over mixed columns is an object array) read every numeric column as categories,
  one per distinct value (a continuous ``age``: 200 categories), where the same frame
  gave ten quantile bins; an object array's columns are now typed as the DataFrame's.
- ``NaiveBayes().fit(X, y)`` with ``y = np.array([1, "1", ...], dtype=object)`` (two
  files concatenated) said scikit-learn's "Unknown label type: unknown. Maybe you are
  trying to fit a classifier, which expects discrete classes on a regression target",
  where the same labels beginning with "1" got the sentence about mixed types; labels
  of one type held as objects (a pandas column of dtype object) name the fix too.
- ``cross_validate(data, ["Lidstone"], params={"Lidstone": {"alfa": 0.5}})`` (a typo)
  failed in the first fold with "TypeError: NaiveBayes.__init__() got an unexpected
  keyword argument 'alfa'"; it is one sentence naming the method's parameters, before
  any fold is prepared.
- ``cross_validate(frame, ...)`` said it takes a Dataset that ``heb.data.load_dataset``
  gives, which takes a name or a path, not the DataFrame in the notebook; the sentence
  names ``heb.data.dataset_from_table`` (as does the README).
- ``heb.explain.explain(HierarchicalNaiveBayes().fit(...), X, 1, 0)`` split the plain
  Naive Bayes sum, not the model's: a child scored given its parent feature (its factor
  theta(a) / phi(g(a))) kept theta(a), so prior + contributions missed the log-odds the
  model gives by up to 0.32 nats, where the docstring promises equality.
- The README names ``HierarchicalNaiveBayes`` beside ``AODE`` and ``TAN`` but neither
  where it lives nor what it is; ``from heb import HierarchicalNaiveBayes`` was an
  AttributeError. It is importable from ``heb`` as they are, and the README says what it does.
- ``aode_concentration_heatmap(concentration_table(aode_pipe), "no")``, as
  ``concentration_heatmap`` takes a NaiveBayes table, failed in plotly with "could not
  convert string to float: 'high'" (it wanted the app's pivoted grid); it takes the
  table and draws the named class's grid, and an unknown class is one sentence; given to
  ``concentration_heatmap``, such a table said it "lacks column(s) feature, N_c, K_f" and
  now names ``aode_concentration_heatmap``.
- ``benchmark_tables`` given a frame of one's own results with its datasets under another
  name raised ``KeyError: 'dataset'``, and given the dataset x method ``scores`` table
  said it has no column 'log_loss'; both name the rows it takes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline

from heb import AODE, TAN, NaiveBayes
from heb.data import Preprocessor, dataset_from_table, make_model
from heb.evaluate import cross_validate


def _mixed_frame(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.normal(40, 10, n),
            "city": rng.choice(["a", "b", "c"], n),
            "flag": rng.random(n) < 0.5,
            "visits": rng.integers(0, 50, n),
        }
    )
    frame.loc[0, "age"] = np.nan
    return frame


def test_an_object_array_is_typed_as_the_frame_it_came_from():
    frame = _mixed_frame()
    from_frame = Preprocessor().fit(frame)
    from_array = Preprocessor().fit(frame.to_numpy())  # dtype object: mixed columns
    assert list(from_array.kinds_.values()) == list(from_frame.kinds_.values())
    assert from_array.n_categories_.tolist() == [10, 3, 2, 10]
    np.testing.assert_array_equal(
        from_array.fit_transform(frame.to_numpy()), from_frame.fit_transform(frame)
    )
    np.testing.assert_array_equal(
        from_array.transform(frame.to_numpy()[:1]), from_frame.transform(frame.iloc[:1])
    )


def test_a_pipeline_after_an_imputer_bins_the_numbers():
    frame = _mixed_frame()
    y = np.where(frame["flag"], "yes", "no")
    pipe = make_pipeline(SimpleImputer(strategy="most_frequent"), Preprocessor()).fit(frame, y)
    assert pipe[-1].kinds_ == {
        "x0": "numeric",
        "x1": "categorical",
        "x2": "categorical",
        "x3": "numeric",
    }
    same = make_model("laplace").fit(frame.to_numpy(), y)
    by_frame = make_model("laplace").fit(frame, y)
    np.testing.assert_allclose(
        same.predict_proba(frame.to_numpy()), by_frame.predict_proba(frame), atol=1e-12
    )


@pytest.mark.parametrize("model", [NaiveBayes(), AODE(), TAN()], ids=repr)
def test_object_labels_whose_first_is_a_number_are_one_sentence(model):
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    mixed = np.array([1, "1", 1, "1"], dtype=object)
    with pytest.raises(ValueError, match=r"^y mixes class labels of different types \(int, str\)"):
        model.fit(X, mixed)
    numbers = pd.Series([1, 0, 1, 0], dtype=object)
    with pytest.raises(ValueError, match=r"\(int\) in an array of dtype object") as caught:
        model.fit(X, numbers)
    assert "y.astype(int)" in str(caught.value) and "\n" not in str(caught.value)
    assert model.fit(X, numbers.astype(int)).classes_.tolist() == [0, 1]  # the advice works


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("Lidstone", {"alfa": 0.5}, "Lidstone has no parameter 'alfa'; its parameters are alpha."),
        (
            "HEB-M",
            {"m_mx": 50},
            "HEB-M has no parameter 'm_mx'; its parameters are m_max, m_min, n0.",
        ),
        ("AODE", {"m": 2}, "AODE has no parameter 'm'; its parameters are frequency_limit, "),
        ("CategoricalNB", {"alpha": 1}, "CategoricalNB has no parameter 'alpha'; it takes none."),
    ],
)
def test_an_override_naming_no_parameter_is_one_sentence(method, params, message):
    frame = _mixed_frame(60).assign(label=np.tile(["a", "b", "c"], 20))
    data = dataset_from_table(frame, "mine", target="label")
    with pytest.raises(ValueError) as caught:
        cross_validate(data, [method], params={method: params}, n_splits=3, use_cache=False)
    assert str(caught.value).startswith(message)


def test_a_frame_given_for_a_dataset_is_told_how_to_make_one():
    from heb.evaluate import run_benchmark

    frame = _mixed_frame(60).assign(label=np.tile(["a", "b", "c"], 20))
    for call in (cross_validate, run_benchmark):
        with pytest.raises(ValueError, match="got a DataFrame") as caught:
            call(frame, ["Laplace"], n_splits=3, use_cache=False)
        assert "heb.data.dataset_from_table(frame, 'name', target='column')" in str(caught.value)
    data = dataset_from_table(frame, "name", target="label")  # the advice works
    assert len(cross_validate(data, ["Laplace"], n_splits=3, use_cache=False).y) == 60


@pytest.mark.parametrize("weighting", [None, "sqrt-mi"])
def test_explain_sums_to_a_hierarchical_models_log_odds(weighting):
    from heb.explain import explain
    from heb.hierarchical_nb import HierarchicalNaiveBayes

    rng = np.random.default_rng(0)
    child = rng.integers(0, 12, 600)
    parent = np.where(rng.random(600) < 0.97, child // 3, rng.integers(0, 4, 600))  # near-FD
    y = (child % 2 + (rng.random(600) < 0.3)) % 2
    X = np.c_[child, parent, rng.integers(0, 4, 600)]
    X[:5, 1] = -1  # a missing parent: the child's plain factor
    model = HierarchicalNaiveBayes(weighting=weighting).fit(X, y)
    assert model.parents_ == {0: 1}
    explained = explain(model, X, 1, 0)
    log_proba = model.predict_log_proba(X)
    np.testing.assert_allclose(
        explained.prior + explained.contributions.sum(axis=1),
        log_proba[:, 1] - log_proba[:, 0],
        atol=1e-12,
    )


def test_hierarchical_naive_bayes_is_imported_from_heb_as_the_others_are():
    import subprocess
    import sys

    import heb
    from heb.hierarchical_nb import HierarchicalNaiveBayes

    assert heb.HierarchicalNaiveBayes is HierarchicalNaiveBayes
    assert "HierarchicalNaiveBayes" in heb.__all__
    # still lazy: importing heb loads no scikit-learn
    code = "import sys, heb; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_aode_heatmap_takes_a_concentration_table():
    from heb.diagnostics import concentration_table
    from heb.figures import aode_concentration_heatmap

    frame = _mixed_frame(120)
    y = np.where(frame["flag"] ^ (frame["city"] == "a"), "yes", "no")
    table = concentration_table(make_model(estimator=AODE(smoother="heb")).fit(frame, y))
    fig = aode_concentration_heatmap(table, "yes")
    one = table[table["class name"] == "yes"]
    grid = one.pivot_table(index="parent name", columns="child name", values="m", aggfunc="first")
    np.testing.assert_array_equal(np.asarray(fig.data[0].z, dtype=float), grid.to_numpy())
    assert list(fig.data[0].y) == list(grid.index) and list(fig.data[0].x) == list(grid.columns)
    with pytest.raises(ValueError, match=r"^The table has no class 'maybe'; its classes are"):
        aode_concentration_heatmap(table, "maybe")
    from heb.figures import concentration_heatmap

    with pytest.raises(ValueError, match=r"aode_concentration_heatmap\(table, class_name\)"):
        concentration_heatmap(table)


def test_benchmark_tables_names_the_rows_it_takes():
    from heb.evaluate import benchmark_tables

    own = pd.DataFrame(
        {"data": ["a", "a", "b", "b"], "method": ["X", "Y"] * 2, "log_loss": [0.3, 0.5, 0.2, 0.4]}
    )
    wide = own.pivot(index="data", columns="method", values="log_loss")
    for frame in (own, wide):
        with pytest.raises(ValueError, match=r"^The benchmark frame has no column 'dataset': "):
            benchmark_tables(frame, "log_loss")
    ranks = benchmark_tables(own.rename(columns={"data": "dataset"}), "log_loss")["avg_ranks"]
    assert ranks.to_dict() == {"X": 1.0, "Y": 2.0}
