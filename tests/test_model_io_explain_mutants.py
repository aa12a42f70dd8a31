"""Checks of the model file, explanations and estimator face that mutation testing found missing.

Each test kills a mutant of ``heb/model_io.py``, ``heb/explain.py`` or ``heb/estimator.py``
that the rest of the suite let live. They pin:

* the loader's refusals (``heb.model_io._numbers``, ``_classes``, ``_count_table``,
  ``_joint``, ``_feature_names``, ``_check_tables``, ``loads``): every hostile or malformed
  field is one ``ValueError`` naming what is wrong, at the exact boundaries;
* what a file round-trips (bool, unsigned and float labels, fractional counts, numpy
  scalar parameters) and that ``dumps`` never writes non-standard JSON;
* :func:`heb.explain.explain`'s class-index checks, ``absent`` flags, ``predicted`` and
  :func:`heb.explain.decisive_features`' spread and default row;
* :class:`heb.estimator.CategoricalClassifier`'s ``partial_fit`` (unsorted ``classes``,
  structure kept from the first chunk) and ``predict_proba``'s max shift.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB

from heb import model_io
from heb.aode import AODE
from heb.counts import CountTable
from heb.explain import Explanation, decisive_features, explain
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.nb import NaiveBayes


# ----------------------------------------------------------------------------- data
def _codes(seed: int = 0, n_rows: int = 120, n_features: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Random codes 0..3 and labels 0/1 of a small problem."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n_rows, n_features))
    y = (X[:, 0] + rng.integers(0, 2, n_rows) > 2).astype(int)
    return X, y


_X, _Y = _codes()
_NB_TEXT = model_io.dumps(NaiveBayes("laplace").fit(_X, _Y))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _AODE_MODEL = AODE().fit(_X, _Y)
_AODE_TEXT = model_io.dumps(_AODE_MODEL)


def _nb_doc() -> dict:
    """A fresh parsed copy of a Laplace Naive Bayes file (2 classes, 3 features of K = 4)."""
    return json.loads(_NB_TEXT)


def _aode_doc() -> dict:
    """A fresh parsed copy of an AODE file of the same data."""
    return json.loads(_AODE_TEXT)


def _refused(doc: dict, message: str) -> None:
    """``from_dict(doc)`` is one ValueError whose text matches ``message``."""
    with pytest.raises(ValueError, match=message):
        model_io.from_dict(doc)


def _edited(change: Callable[[dict], None], make: Callable[[], dict] = _nb_doc) -> dict:
    doc = make()
    change(doc)
    return doc


# ----------------------------------------------------------------------------- loads
def test_a_file_of_exactly_max_bytes_loads() -> None:
    """``loads``: the bound is ``len(text) > max_bytes``; a file of exactly max_bytes loads."""
    model = model_io.loads(_NB_TEXT, max_bytes=len(_NB_TEXT))
    assert model.classes_.tolist() == [0, 1]


def test_bytes_that_are_not_utf8_are_the_documented_sentence() -> None:
    """``loads``: a UnicodeDecodeError becomes "not valid UTF-8 JSON", not the codec's text."""
    with pytest.raises(ValueError, match="not valid UTF-8 JSON"):
        model_io.loads(b'{"format": "\xff"}')


# ----------------------------------------------------------------------------- _numbers
def _boolean_class_indices(doc: dict) -> None:
    """Write the class index of every count as JSON true / false (2 classes)."""
    doc["counts"]["class"] = [bool(c) for c in doc["counts"]["class"]]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # all-boolean lists are not numbers (true as a class index would read as 1)
        (_boolean_class_indices, "numbers only"),
        (lambda d: d["counts"]["column"].__setitem__(0, 0.5), "whole numbers"),
        (lambda d: d["counts"]["column"].__setitem__(0, 1e30), "whole numbers"),
        # 2**32 + column wraps back to the column in 32 bits: the int64 cast must keep it
        (
            lambda d: d["counts"]["column"].__setitem__(0, 2**32 + d["counts"]["column"][0]),
            "outside",
        ),
    ],
    ids=["boolean class indices", "fractional column", "huge column", "column past 2**32"],
)
def test_numbers_refuses_booleans_fractions_and_huge_values(change, message: str) -> None:
    """``_numbers``: kind "if" only, whole numbers within 2**62, int64 (not int32) codes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from an overflowing cast either
        _refused(_edited(change), message)


def test_a_count_written_as_1e400_is_refused_as_not_finite() -> None:
    """``_numbers``: JSON's 1e400 parses to inf (not a constant), refused by the finite check."""
    doc = _nb_doc()
    doc["class_counts"][0] = "__INF__"
    text = json.dumps(doc).replace('"__INF__"', "1e400")
    with pytest.raises(ValueError, match="not finite"):
        model_io.loads(text)


# ----------------------------------------------------------------------------- _classes
@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"kind": "str", "values": []}, "no classes"),
        ({"kind": "str", "values": [1, 2]}, "must all be text"),
        ({"kind": "bool", "values": [0, 1]}, "true or false"),
    ],
    ids=["empty", "numbers of kind str", "numbers of kind bool"],
)
def test_class_labels_of_the_wrong_kind_are_refused(labels: dict, message: str) -> None:
    """``_classes``: no labels, and labels that are not of their declared kind, are refused."""
    _refused(_edited(lambda d: d.update(classes=labels)), message)


@pytest.mark.parametrize(
    "labels",
    [np.array([False, True]), np.array([3, 9], dtype=np.uint8), np.array([0.0, 1.0])],
    ids=["bool", "uint8", "float"],
)
def test_bool_unsigned_and_float_labels_round_trip(labels: np.ndarray) -> None:
    """``_labels`` / ``_classes``: "b" is bool, "u" is int, and float labels stay floats."""
    model = NaiveBayes("laplace").fit(_X, labels[_Y])
    loaded = model_io.loads(model_io.dumps(model))
    assert loaded.classes_.tolist() == labels.tolist()
    assert loaded.classes_.dtype.kind == ("i" if labels.dtype.kind == "u" else labels.dtype.kind)
    assert np.array_equal(loaded.predict(_X), model.predict(_X))


# ----------------------------------------------------------------------------- _count_table
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(n_categories=[0, 4, 4]), "positive whole number"),
        (lambda d: d.update(n_categories=[]), "at least one positive"),
        (lambda d: d["counts"]["class"].__setitem__(0, 2), "outside"),  # C = 2
        (lambda d: d["counts"]["class"].__setitem__(0, -1), "outside"),
        (lambda d: d["counts"]["column"].__setitem__(0, 12), "outside"),  # width = 12
        (lambda d: d["counts"]["column"].__setitem__(0, -1), "outside"),
        (lambda d: d["class_counts"].__setitem__(0, -1.0), "must not be negative"),
    ],
    ids=["K = 0", "no features", "class C", "class -1", "column V", "column -1", "N_c < 0"],
)
def test_count_table_bounds_are_exact(change, message: str) -> None:
    """``_count_table``: K >= 1, 0 <= class < C, 0 <= column < V, class counts >= 0."""
    _refused(_edited(change), message)


def test_a_cell_listed_twice_is_refused_even_when_the_totals_agree() -> None:
    """``_count_table``: the same (class, column) twice is refused (a zero second entry
    leaves every table unchanged, so only the duplicate check sees it)."""
    doc = _nb_doc()
    sparse = doc["counts"]
    for key, value in (("class", sparse["class"][0]), ("column", sparse["column"][0])):
        sparse[key].append(value)
    sparse["count"].append(0)
    _refused(doc, "lists a count cell twice")


def test_the_table_cell_cap_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_count_table``: refused when C x V > MAX_TABLE_CELLS, loaded when equal."""
    cells = 2 * 12
    monkeypatch.setattr(model_io, "MAX_TABLE_CELLS", cells - 1)
    _refused(_nb_doc(), f"{cells:,} cells")
    monkeypatch.setattr(model_io, "MAX_TABLE_CELLS", cells)
    assert model_io.from_dict(_nb_doc()).count_table_.counts.shape == (2, 12)


def test_fractional_counts_round_trip() -> None:
    """``_sparse`` / ``_count_table``: counts are numbers, not whole numbers (a table of
    weighted rows); the file keeps them and loading accepts them."""
    table = NaiveBayes("laplace").fit(_X, _Y).count_table_
    halved = CountTable(table.class_counts / 2, table.counts / 2, table.offsets)
    model = NaiveBayes("heb-m").fit_counts(halved, np.array([0, 1]))
    loaded = model_io.loads(model_io.dumps(model))
    assert np.array_equal(loaded.count_table_.counts, halved.counts)
    assert np.array_equal(loaded.predict_proba(_X), model.predict_proba(_X))


# ----------------------------------------------------------------------------- _joint
def _joint_end() -> int:
    joint = _AODE_MODEL.joint_counts_
    return int(joint.offsets[-1]) * _AODE_MODEL.classes_.size


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["joint"]["keys"].__setitem__(1, d["joint"]["keys"][0]), "increasing"),
        (lambda d: d["joint"]["keys"].__setitem__(0, -1), "inside the layout"),
        (lambda d: d["joint"]["keys"].__setitem__(-1, _joint_end()), "inside the layout"),
        (lambda d: d["joint"]["counts"].__setitem__(0, 0), "must be positive"),
    ],
    ids=["repeated key", "key -1", "key at the end", "zero count"],
)
def test_joint_keys_and_counts_bounds_are_exact(change, message: str) -> None:
    """``_joint``: keys strictly increasing in 0..cells*C-1, counts strictly positive."""
    doc = _aode_doc()
    assert len(doc["joint"]["keys"]) > 2 and doc["joint"]["keys"][-1] < _joint_end()
    _refused(_edited(change, _aode_doc), message)


# ----------------------------------------------------------------------------- the rest
def test_a_table_edited_by_one_part_in_a_million_is_refused() -> None:
    """``_check_tables`` / ``TABLE_RTOL``: the stored tables must agree to 1e-9 relative."""
    doc = _nb_doc()
    doc["tables"]["feature_log_prob"][0][0] *= 1 + 1e-6
    _refused(doc, "feature_log_prob does not match")


@pytest.mark.parametrize("names", [["a", "b"], ["a", "b", 3]], ids=["one missing", "a number"])
def test_feature_names_must_be_one_text_per_feature(names: list) -> None:
    """``_feature_names``: as many names as features, each a text."""
    _refused(_edited(lambda d: d.update(feature_names=names)), "one text per feature")


def test_a_parameter_of_the_wrong_type_is_a_value_error() -> None:
    """``from_dict``: a text n0 = "abc" is one ValueError (the estimator's own check since
    trial R; ``from_dict`` still turns any TypeError of a parameter into one)."""
    doc = _edited(lambda d: d["params"].update(smoother="heb-m", n0="abc"))
    _refused(doc, "n0 must be a non-negative number, got 'abc'")
    aode = _edited(lambda d: d["params"].update(m_min="abc"), _aode_doc)
    _refused(aode, "m_min and m_max must be numbers")


def test_numpy_scalar_parameters_are_saved_as_json_numbers() -> None:
    """``to_dict`` / ``_plain``: a numpy parameter (n0 = np.int64(5), which json cannot
    write, unlike np.float64, a float subclass) is saved as a plain number."""
    model = NaiveBayes("heb-m", n0=np.int64(5)).fit(_X, _Y)
    doc = json.loads(model_io.dumps(model))
    assert doc["params"]["n0"] == 5 and isinstance(doc["params"]["n0"], int)
    assert np.array_equal(model_io.from_dict(doc).predict_proba(_X), model.predict_proba(_X))


def test_dumps_never_writes_nan_or_infinity() -> None:
    """``dumps``: ``allow_nan=False``; a non-finite table is refused, not written as
    non-standard JSON that other programs (and :func:`loads`) cannot read."""
    model = NaiveBayes("laplace").fit(_X, _Y)
    model.class_log_prior_ = np.array([-np.inf, 0.0])
    with pytest.raises(ValueError, match="JSON compliant"):
        model_io.dumps(model)


# ----------------------------------------------------------------------------- explain
def _toy_model() -> NaiveBayes:
    """Feature 0 with K = 3 whose code 1 is never seen; feature 1 with K = 2."""
    X = np.array([[0, 0], [0, 1], [2, 0], [2, 1], [2, 1], [0, 1]])
    return NaiveBayes("laplace").fit(X, np.array([0, 0, 0, 1, 1, 1]))


@pytest.mark.parametrize("index", [-1, 2], ids=["-1", "C"])
@pytest.mark.parametrize("which", ["target", "reference"])
def test_class_indices_outside_0_to_c_minus_1_are_refused(index: int, which: str) -> None:
    """``explain._class_index``: 0 <= index < C, for target and for reference."""
    classes = {"target": 0, "reference": 1} | {which: index}
    with pytest.raises(ValueError, match="class index in 0..1"):
        explain(_toy_model(), [[0, 0]], **classes)


def test_a_category_never_seen_in_training_is_flagged_absent() -> None:
    """``explain``: ``absent`` also covers codes inside 0..K-1 whose column is all zero."""
    out = explain(_toy_model(), [[1, 0], [0, 1]], target=1, reference=0)
    assert out.absent.tolist() == [[True, False], [False, False]]
    assert out.contributions[0, 0] == 0.0


def test_predicted_is_the_best_class_of_each_row() -> None:
    """``Explanation.predicted``: argmax over classes (axis 1), one per row."""
    model = _toy_model()
    rows = np.array([[0, 0], [2, 1], [2, 0], [0, 1]])
    out = explain(model, rows, target=1, reference=0)
    assert out.predicted.tolist() == np.argmax(model.predict_proba(rows), axis=1).tolist()


def _explanation(contributions: list[list[float]]) -> Explanation:
    values = np.array(contributions)
    return Explanation(0, 1, 0.0, values, np.zeros(values.shape, bool), np.zeros((2, 2)))


def test_decisive_features_is_the_signed_spread_of_row_0_by_default() -> None:
    """``decisive_features``: max - min of the signed contributions, of row 0 by default."""
    explanations = {
        "a": _explanation([[1.0, -2.0], [0.0, 0.0]]),
        "b": _explanation([[-3.0, 0.5], [0.0, 0.0]]),
    }
    assert decisive_features(explanations).tolist() == [4.0, 2.5]
    assert decisive_features(explanations, row=1).tolist() == [0.0, 0.0]


def test_a_foreign_fitted_model_is_refused_clearly() -> None:
    """``explain``'s duck-typed fit check: a fitted sklearn CategoricalNB (it has
    ``feature_log_prob_`` and ``class_log_prior_`` but no ``count_table_``) is refused."""
    X = np.array([[0, 0], [1, 1], [1, 0], [0, 1]])
    foreign = CategoricalNB().fit(X, [0, 1, 1, 0])
    with pytest.raises(ValueError, match="fitted heb NaiveBayes"):
        explain(foreign, X[:1], 1, 0)


# ----------------------------------------------------------------------------- estimator
def test_partial_fit_sorts_the_classes_it_is_given() -> None:
    """``_partial_fit_input``: ``classes`` in any order index the labels as sorted ones."""
    chunked = NaiveBayes("laplace").partial_fit(_X, np.array(["no", "yes"])[_Y], ["yes", "no"])
    whole = NaiveBayes("laplace").fit(_X, np.array(["no", "yes"])[_Y])
    assert chunked.classes_.tolist() == ["no", "yes"]
    assert np.array_equal(chunked.predict_proba(_X), whole.predict_proba(_X))


def test_partial_fit_keeps_the_structure_of_the_first_chunk() -> None:
    """``partial_fit``: ``_learn_structure`` runs on the first chunk only (HEB-H's
    hierarchy detected in chunk 1 is kept although chunk 2 shows no dependency)."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 200)
    first = np.c_[a, a // 2, rng.integers(0, 3, 200)]  # feature 0 determines feature 1
    second = rng.integers(0, 3, size=(200, 3))
    model = HierarchicalNaiveBayes().partial_fit(first, rng.integers(0, 2, 200), [0, 1])
    assert model.parents_ == {0: 1}
    model.partial_fit(second, rng.integers(0, 2, 200))
    assert model.parents_ == {0: 1}


def test_predict_proba_of_a_very_unlikely_row_is_finite() -> None:
    """``predict_proba``: the max shift before exp; joint log scores near -1500 underflow."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 50, size=(40, 400))
    model = NaiveBayes("laplace").fit(X, np.arange(40) % 2)
    assert model.predict_joint_log_proba(X[:1]).max() < -800
    proba = model.predict_proba(X[:3])
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
