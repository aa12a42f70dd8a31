"""Tests killing the mutants of session 50's library-trial fixes that the trial's own tests
(test_library_trial_50a.py, test_hierarchy_model.py) and the older ones let live.

- explain() of a HierarchicalNaiveBayes: the within-group term belongs to the child's own
  column (the sum test passed with it in column 0 or the parent's), every conditionally
  scored child gets it (not only the first), weighted by the child's weight;
- object-label errors: a float y keeps scikit-learn's "continuous" sentence;
- cross_validate's params check names the first unknown name in order;
- run_benchmark of a Series, benchmark_tables of a frame lacking only 'method';
- the NaiveBayes concentration heatmap: one missing column, extra parent/child columns;
  the AODE heatmap with integer class labels;
- declarations: JSON with leading blanks; make_hierarchy_model passes on every
  make_model setting (smoother, n_bins, missing, categorical, NaiveBayes arguments).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb import AODE, TAN, NaiveBayes
from heb.data import dataset_from_table, make_model
from heb.evaluate import cross_validate, make_hierarchy_model
from heb.evaluate.hierarchy_model import declarations
from heb.evaluate.hierarchy_specs import Declared, hierarchies_text
from heb.explain import explain
from heb.hierarchical_nb import HierarchicalNaiveBayes


# --------------------------------------------------------------------------- explain
def _two_children(n: int = 800):
    """Columns: noise, parent of 2, child (given 1), parent of 4, child (given 3)."""
    rng = np.random.default_rng(0)
    c1 = rng.integers(0, 12, n)
    p1 = np.where(rng.random(n) < 0.97, c1 // 3, rng.integers(0, 4, n))
    c2 = rng.integers(0, 10, n)
    p2 = np.where(rng.random(n) < 0.97, c2 // 2, rng.integers(0, 5, n))
    y = (c1 % 2 + c2 % 3 + (rng.random(n) < 0.3)) % 2
    X = np.c_[rng.integers(0, 4, n), p1, c1, p2, c2]
    X[:5, 1] = -1  # a missing parent: the child's plain factor
    return X, y


def _within_group_parts(model, X) -> np.ndarray:
    """Per row and column, the plain NB contribution minus explain()'s."""
    explained = explain(model, X, 1, 0).contributions
    model.conditional_terms = lambda codes: []  # the plain Naive Bayes split
    try:
        plain = explain(model, X, 1, 0).contributions
    finally:
        del model.conditional_terms
    return plain - explained


def _model_adjustment(model, X) -> np.ndarray:
    """The model's log-odds (1 vs 0) taken off the plain Naive Bayes sum."""
    d = NaiveBayes.predict_joint_log_proba(model, X) - model.predict_joint_log_proba(X)
    return d[:, 1] - d[:, 0]


def test_explain_puts_the_within_group_term_on_each_childs_own_column():
    X, y = _two_children()
    model = HierarchicalNaiveBayes().fit(X, y)
    assert model.parents_ == {2: 1, 4: 3}
    parts = _within_group_parts(model, X)
    assert np.abs(parts[:, [0, 1, 3]]).max() == 0.0  # noise and parents: the plain term
    assert np.abs(parts[:, 2]).max() > 1e-4 and np.abs(parts[:, 4]).max() > 1e-4  # both
    assert np.abs(parts[:5, 2]).max() == 0.0  # parent missing: the child's plain factor
    np.testing.assert_allclose(parts.sum(axis=1), _model_adjustment(model, X), atol=1e-12)


def test_a_childs_within_group_term_carries_its_feature_weight():
    X, y = _two_children()
    plain = _within_group_parts(HierarchicalNaiveBayes().fit(X, y), X)
    model = HierarchicalNaiveBayes(weighting="sqrt-mi").fit(X, y)
    weights = model.feature_weights_
    assert not np.allclose(weights, 1.0)
    np.testing.assert_allclose(_within_group_parts(model, X), plain * weights, atol=1e-12)
    # the model scores it so too, not only explain()
    np.testing.assert_allclose(_model_adjustment(model, X), (plain * weights).sum(1), atol=1e-12)


# --------------------------------------------------------------------------- labels
@pytest.mark.parametrize("model", [NaiveBayes(), AODE(), TAN()], ids=repr)
def test_float_labels_keep_scikit_learns_continuous_sentence(model):
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    with pytest.raises(ValueError, match=r"^Unknown label type: continuous") as caught:
        model.fit(X, np.array([0.5, 1.5, 0.5, 2.5]))
    assert "dtype object" not in str(caught.value)


# --------------------------------------------------------------------------- evaluate
def _labelled(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {"city": rng.choice(["a", "b", "c"], n), "label": np.tile(["a", "b", "c"], n // 3)}
    )


def test_the_first_unknown_parameter_in_order_is_named():
    data = dataset_from_table(_labelled(), "mine", target="label")
    params = {"Lidstone": {"beta": 1, "alfa": 0.5}}
    with pytest.raises(ValueError, match=r"^Lidstone has no parameter 'alfa'; its parameters"):
        cross_validate(data, ["Lidstone"], params=params, n_splits=3, use_cache=False)


def test_run_benchmark_of_a_series_names_the_series():
    from heb.evaluate import run_benchmark

    with pytest.raises(ValueError, match=r"got a Series\.$"):
        run_benchmark(_labelled()["label"], ["Laplace"], n_splits=3, use_cache=False)


def test_benchmark_tables_of_a_frame_without_method_is_one_sentence():
    from heb.evaluate import benchmark_tables

    frame = pd.DataFrame(
        {"dataset": ["a", "a", "b", "b"], "model": ["X", "Y"] * 2, "log_loss": [0.3, 0.5, 0.2, 0.4]}
    )
    said = (
        "The benchmark frame has no column 'method': benchmark_tables takes one row per "
        "dataset, method (and fold), with a column 'log_loss', as run_benchmark returns."
    )
    with pytest.raises(ValueError) as caught:
        benchmark_tables(frame, "log_loss")
    assert str(caught.value) == said


# --------------------------------------------------------------------------- figures
def _frame(n: int = 120) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "city": rng.choice(list("abc"), n),
            "flag": rng.random(n) < 0.5,
            "k": rng.choice(list("xyz"), n),
        }
    )
    return frame, (frame["flag"] ^ (frame["city"] == "a")).astype(int).to_numpy()


def test_the_nb_heatmap_names_one_missing_column_and_ignores_extra_ones():
    from heb.diagnostics import concentration_table
    from heb.figures import concentration_heatmap

    frame, y = _frame()
    table = concentration_table(make_model("heb-m").fit(frame, y))
    with pytest.raises(ValueError, match=r"^The concentration table lacks column\(s\) rho\.$"):
        concentration_heatmap(table.drop(columns="rho"))
    drawn = concentration_heatmap(table)
    extra = concentration_heatmap(table.assign(parent=0, child=1))  # a table with more
    assert extra.to_json() == drawn.to_json()


def test_the_aode_heatmap_takes_integer_class_labels_as_number_or_text():
    from heb.diagnostics import concentration_table
    from heb.figures import aode_concentration_heatmap

    frame, y = _frame()
    table = concentration_table(make_model(estimator=AODE(smoother="heb")).fit(frame, y))
    assert table["class name"].dtype.kind == "i"
    one = table[table["class name"] == 1]
    grid = one.pivot_table(index="parent name", columns="child name", values="m", aggfunc="first")
    for name in (1, "1"):
        z = np.asarray(aode_concentration_heatmap(table, name).data[0].z, dtype=float)
        np.testing.assert_array_equal(z, grid.to_numpy())


# --------------------------------------------------------------------------- hierarchy model
def test_a_json_declaration_may_begin_with_blanks():
    one = Declared("zip", prefix=(3, 1))
    assert declarations("  \n" + hierarchies_text([one])) == (one,)


@pytest.mark.parametrize(
    "settings",
    [
        {"smoother": "heb-m"},
        {"n_bins": 4},
        {"missing": "category"},
        {"categorical": ["age"]},
        {"weighting": "sqrt-mi", "m_max": 50.0},
    ],
    ids=lambda s: ",".join(s),
)
def test_make_hierarchy_model_passes_on_every_make_model_setting(settings):
    ours = make_hierarchy_model("city -> prefix 1", **settings).get_params(deep=True)
    theirs = make_model(**{"smoother": "heb-h", **settings}).get_params(deep=True)
    for key, value in theirs.items():
        if "__" in key:
            assert ours[key] == value, key


def test_a_column_declared_categorical_takes_a_prefix_hierarchy():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(10, 40, 300), "c": rng.choice(list("ab"), 300)})
    y = (frame["age"] > 25).to_numpy().astype(int)
    model = make_hierarchy_model("age -> prefix 1", categorical=["age"]).fit(frame, y)
    labels = [str(v) for v in model[0].categories_[0]]
    (level,) = model[-1].hierarchies[0]
    first = sorted({label[0] for label in labels})
    assert level.tolist() == [first.index(label[0]) for label in labels]


def test_a_classifier_with_hierarchies_but_no_smoother_is_given_the_levels():
    from sklearn.base import BaseEstimator, ClassifierMixin

    from heb.data import Preprocessor
    from heb.evaluate import HierarchyPipeline

    class Recorder(ClassifierMixin, BaseEstimator):  # reads hierarchies, has no smoother
        def __init__(self, hierarchies=None):
            self.hierarchies = hierarchies

        def fit(self, X, y):
            self.classes_ = np.unique(y)
            return self

    frame = pd.DataFrame(
        {"role": ["r1", "r2", "r3", "r4", "r1", "r3"] * 10, "dept": ["d1", "d1", "d2", "d2"] * 15}
    )
    y = np.array([0, 1] * 30)
    pipe = HierarchyPipeline(
        [("preprocess", Preprocessor()), ("classifier", Recorder())], hierarchies="role -> dept"
    ).fit(frame, y)
    expected = make_hierarchy_model("role -> dept").fit(frame, y)[-1].hierarchies
    assert list(pipe[-1].hierarchies) == list(expected) == [0]
    assert pipe[-1].hierarchies[0][0].tolist() == expected[0][0].tolist()
