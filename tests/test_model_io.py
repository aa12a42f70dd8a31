"""heb.model_io: a saved model loads back predicting identically; bad files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB

from heb import model_io, registry
from heb.aode import AODE
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.nb import NaiveBayes
from heb.tan import TAN


def data(seed: int = 0, n: int = 400):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 4))
    X[rng.random(X.shape) < 0.05] = -1
    y = np.where(X[:, 0] + rng.integers(0, 3, n) > 3, "yes", "no")
    return X, y


def test_no_pickle_anywhere():
    source = open(model_io.__file__, encoding="utf-8").read()
    assert "pickle" not in source.replace("never pickle", "").replace("no pickle", "")


@pytest.mark.parametrize("smoother", list(registry.SMOOTHERS))
@pytest.mark.parametrize("weighting", [None, "sqrt-mi"])
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_naive_bayes_round_trip_predicts_identically(tmp_path, smoother, weighting):
    X, y = data()
    model = NaiveBayes(smoother, weighting=weighting).fit(X, y)
    path = tmp_path / "model.json"
    model_io.save(model, path)
    loaded = model_io.load(path)
    rows = np.vstack([X, [[7, -1, 2, 9]]])  # an unseen and a missing code too
    assert np.array_equal(loaded.predict_proba(rows), model.predict_proba(rows))
    assert np.array_equal(loaded.predict(rows), model.predict(rows))
    assert loaded.get_params() == model.get_params()
    assert loaded.classes_.tolist() == ["no", "yes"]


def test_file_is_documented_json_with_the_tables():
    X, y = data()
    model = NaiveBayes("laplace").fit(X, y)
    doc = json.loads(model_io.dumps(model))
    assert doc["format"] == "heb-model" and doc["schema_version"] == 1
    assert doc["model"] == "NaiveBayes"
    # the stored tables alone score a row (another program needs no heb)
    tables = doc["tables"]
    log_prob = np.array(tables["feature_log_prob"])
    offsets = np.concatenate([[0], np.cumsum(doc["n_categories"])])
    row = X[1]
    joint = np.array(tables["class_log_prior"]) + sum(
        log_prob[:, offsets[f] + row[f]] for f in range(4) if row[f] >= 0
    )
    np.testing.assert_allclose(joint, model.predict_joint_log_proba(X[1:2])[0], rtol=1e-12)
    documented = (
        (Path(__file__).resolve().parents[1] / "docs" / "model_json.md")
        .open(encoding="utf-8")
        .read()
    )
    for key in doc:
        assert f"`{key}`" in documented, key


def test_feature_names_and_integer_labels_survive():
    X, _ = data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    y = (X[:, 1] > 2).astype(int) * 7
    model = NaiveBayes("heb-u").fit(frame, y)
    loaded = model_io.loads(model_io.dumps(model))
    assert loaded.feature_names_in_.tolist() == ["a", "b", "c", "d"]
    assert loaded.classes_.tolist() == [0, 7] and loaded.classes_.dtype.kind == "i"
    assert np.array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


@pytest.mark.parametrize("smoother", ["laplace", "heb"])
@pytest.mark.parametrize("max_pairs", [2e4, 12, 11])  # 4 features: 12 pairs; 11 holds none
@pytest.mark.filterwarnings("ignore:AODE over 4 features:UserWarning")
def test_aode_round_trip_predicts_identically(smoother, max_pairs):
    X, y = data(1, 300)
    model = AODE(smoother=smoother, max_pairs=max_pairs).fit(X, y)
    loaded = model_io.loads(model_io.dumps(model))
    assert loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_aode_file_of_another_layout_is_refused():
    X, y = data(1, 300)
    doc = json.loads(model_io.dumps(AODE().fit(X, y)))
    doc["joint"]["parent"] = doc["joint"]["parent"][::-1]
    with pytest.raises(ValueError, match="layout"):
        model_io.loads(json.dumps(doc))


def _aode_doc(**params) -> dict:
    X, y = data(1, 300)
    return json.loads(model_io.dumps(AODE(**params).fit(X, y)))


def test_aode_joint_counts_above_their_feature_counts_are_refused():
    """A hand-edited joint count (here doubled) loaded without a word before: its model
    predicted from counts of rows that never were."""
    doc = _aode_doc()
    doc["joint"]["counts"][0] *= 2
    with pytest.raises(ValueError, match="joint counts exceed its feature counts"):
        model_io.loads(json.dumps(doc))


def test_aode_joint_counts_that_differ_from_their_reverse_pair_are_refused():
    """N_{c,u,v} of (i, j) is N_{c,v,u} of (j, i): a file that lowers one of them (which
    no total can tell) is refused too."""
    doc = _aode_doc()
    counts = doc["joint"]["counts"]
    index = next(i for i, n in enumerate(counts) if n >= 2)
    counts[index] -= 1
    with pytest.raises(ValueError, match="differ from those of its reverse"):
        model_io.loads(json.dumps(doc))


@pytest.mark.filterwarnings("ignore:AODE over:UserWarning")
def test_aode_files_of_real_fits_pass_the_joint_checks():
    """Missing values (the joint leaves out rows missing the child), a pair held one way
    only (a child too wide to be a parent) and partial_fit's merged counts all load and
    predict as before."""
    X, y = data(2, 400)
    X[:, 3] = np.random.default_rng(2).integers(0, 40, len(X))  # K = 40: never a parent
    one_way = AODE(max_parent_cardinality=10).fit(X, y)
    assert one_way.joint_counts_.n_pairs == 9  # 3 parents x 3 children, feature 3 a child only
    merged = AODE().partial_fit(X[:200], y[:200], classes=["no", "yes"])
    merged.partial_fit(X[200:], y[200:])
    for model in (one_way, merged, AODE(smoother="heb").fit(X, y)):
        loaded = model_io.loads(model_io.dumps(model))
        assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def _doc():
    X, y = data()
    return json.loads(model_io.dumps(NaiveBayes("laplace").fit(X, y)))


def _tamper(change):
    doc = _doc()
    change(doc)
    return json.dumps(doc)


BAD = {
    "not json": ("{nope", "not valid"),
    "a list": ("[1, 2]", "one JSON object"),
    "NaN": (_tamper(lambda d: d.update(extra=1)).replace('"extra": 1', '"extra": NaN'), "NaN"),
    "duplicate key": ('{"format": "heb-model", "format": "x"}', "repeats a key"),
    "deep nesting": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "other format": (_tamper(lambda d: d.update(format="pickle")), "not a heb model"),
    "future version": (_tamper(lambda d: d.update(schema_version=2)), "schema version 2"),
    "no version": (_tamper(lambda d: d.pop("schema_version")), "names no schema_version"),
    # a JSON true equals 1 in Python, as 1.0 does: both loaded as version 1
    "true version": (_tamper(lambda d: d.update(schema_version=True)), "schema version true;"),
    "float version": (_tamper(lambda d: d.update(schema_version=1.0)), "schema version 1.0;"),
    "text version": (_tamper(lambda d: d.update(schema_version="1")), 'schema version "1";'),
    "long version": (
        _tamper(lambda d: d.update(schema_version=10**100)),
        "schema version 1000000000000000000…;",
    ),
    # past Python's 4,300-digit limit json.loads raised its own advice on set_int_max_str_digits
    "too many digits": (
        _tamper(lambda d: d.update(extra=1)).replace('"extra": 1', '"extra": ' + "9" * 5000),
        "a number too long to be a heb model's",
    ),
    "unknown field": (_tamper(lambda d: d.update(code="import os")), "unknown fields"),
    "unknown model": (_tamper(lambda d: d.update(model="os.system")), "must be one of"),
    "unknown param": (_tamper(lambda d: d["params"].update(evil=1)), "Unknown parameters"),
    "bad param": (_tamper(lambda d: d["params"].update(smoother="nope")), "Unknown smoother"),
    "param type": (_tamper(lambda d: d["params"].update(n0=[1])), "number, text or null"),
    "negative count": (_tamper(lambda d: d["counts"]["count"].__setitem__(0, -3)), "negative"),
    "text count": (_tamper(lambda d: d["counts"]["count"].__setitem__(0, "3")), "numbers only"),
    "fractional count": (
        _tamper(lambda d: d["counts"]["count"].__setitem__(0, d["counts"]["count"][0] + 0.5)),
        "whole numbers|does not match",  # refused by the count check or the table check
    ),
    "count outside": (_tamper(lambda d: d["counts"]["column"].__setitem__(0, 99)), "outside"),
    "short class counts": (_tamper(lambda d: d["class_counts"].pop()), "shape"),
    "huge table": (_tamper(lambda d: d.update(n_categories=[10**9] * 4)), "cells"),
    "huge number": (_tamper(lambda d: d["class_counts"].__setitem__(0, 10**400)), "numbers"),
    "edited table": (
        _tamper(lambda d: d["tables"]["feature_log_prob"][0].__setitem__(0, -0.1)),
        "does not match",
    ),
    "duplicate labels": (_tamper(lambda d: d["classes"].update(values=["a", "a"])), "distinct"),
    "no tables": (_tamper(lambda d: d.pop("tables")), "lacks the field 'tables'"),
    # numpy reads a JSON true beside numbers as 1: a count, or a table's entry, of true
    "true count": (_tamper(lambda d: d["counts"]["class"].__setitem__(0, True)), "numbers only"),
    "true in a table": (
        _tamper(lambda d: d["tables"]["feature_log_prob"][0].__setitem__(1, False)),
        "numbers only",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_malformed_or_hostile_files_are_one_clear_error(case):
    text, message = BAD[case]
    with pytest.raises(ValueError, match=message):
        model_io.loads(text)


def test_size_bound(tmp_path):
    X, y = data()
    text = model_io.dumps(NaiveBayes("laplace").fit(X, y))
    with pytest.raises(ValueError, match="larger than"):
        model_io.loads(text, max_bytes=len(text) - 1)
    path = tmp_path / "big.json"
    path.write_text(text + " " * 100)
    with pytest.raises(ValueError, match="larger than"):
        model_io.load(path, max_bytes=len(text))


def test_the_size_bound_counts_bytes_of_text_too():
    """A text's bound is its UTF-8 bytes, as a file's is (a character may be 3 bytes)."""
    X, y = data()
    model = NaiveBayes("laplace").fit(pd.DataFrame(X, columns=["é" * 200, "b", "c", "d"]), y)
    text = json.dumps(json.loads(model_io.dumps(model)), ensure_ascii=False)  # é as é
    size = len(text.encode("utf-8"))
    assert size > len(text)
    with pytest.raises(ValueError, match="larger than"):
        model_io.loads(text, max_bytes=size - 1)
    assert model_io.loads(text, max_bytes=size).n_features_in_ == 4


def test_unfitted_model_is_refused():
    with pytest.raises(ValueError, match="The NaiveBayes is not fitted yet"):
        model_io.dumps(NaiveBayes())


def test_a_pipeline_saves_through_the_data_layer_and_its_last_step_here():
    """A make_model pipeline saves with its preprocessor through the data layer's
    heb.data.pipeline_io (tests/test_pipeline_io.py), to which the engine's model_io
    points both ways; its last step alone still saves here as a model of codes."""
    from heb.data.preprocess import make_model

    X, y = data()
    frame = pd.DataFrame(X, columns=list("abcd")).astype(str)
    pipe = make_model().fit(frame, y)
    with pytest.raises(ValueError, match="save it with heb.data.pipeline_io.save"):
        model_io.dumps(pipe)
    from heb.data import pipeline_io

    with pytest.raises(ValueError, match="load it with heb.data.pipeline_io.load"):
        model_io.loads(pipeline_io.dumps(pipe))
    assert model_io.loads(model_io.dumps(pipe[-1])).n_features_in_ == 4
    with pytest.raises(
        ValueError, match="HierarchicalNaiveBayes, AODE or TAN can be saved, not a Categ"
    ):
        model_io.dumps(CategoricalNB().fit(np.maximum(X, 0), y))


@pytest.mark.parametrize("smoother", ["laplace", "heb"])
@pytest.mark.parametrize("root", [None, 2])
def test_a_tan_round_trip_learns_the_same_tree_and_predicts_identically(smoother, root):
    """A TAN could not be saved ("Only a fitted heb NaiveBayes or AODE"): its file holds
    its pair counts, from which loading learns the same tree."""
    X, y = data(3, 400)
    X[:, 1] = np.where(X[:, 0] >= 0, (X[:, 0] + (np.arange(400) % 7 == 0)) % 5, -1)
    model = TAN(smoother=smoother, root=root).fit(X, y)
    doc = json.loads(model_io.dumps(model))
    assert doc["model"] == "TAN" and "tables" not in doc
    loaded = model_io.from_dict(doc)
    assert isinstance(loaded, TAN) and loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.parents_, model.parents_) and loaded.root_ == model.root_
    rows = np.vstack([X, [[7, -1, 2, 9]]])  # an unseen and a missing code too
    assert np.array_equal(loaded.predict_proba(rows), model.predict_proba(rows))
    # the loaded counts go on adding: partial_fit of the rest is fit of all the rows
    more_X, more_y = data(4, 200)
    loaded.partial_fit(more_X, more_y)
    whole = TAN(smoother=smoother, root=root).fit(np.vstack([X, more_X]), [*y, *more_y])
    np.testing.assert_allclose(loaded.predict_proba(rows), whole.predict_proba(rows), atol=1e-12)


def test_a_tan_pipeline_saves_and_scores_raw_rows():
    from heb.data import pipeline_io
    from heb.data.preprocess import make_model

    X, y = data()
    frame = pd.DataFrame(X, columns=list("abcd")).astype(str)
    pipe = make_model(estimator=TAN("heb")).fit(frame, y)
    loaded = pipeline_io.loads(pipeline_io.dumps(pipe))
    assert isinstance(loaded[-1], TAN)
    assert np.array_equal(loaded.predict_proba(frame), pipe.predict_proba(frame))


@pytest.mark.filterwarnings("ignore:TAN over:UserWarning")
def test_a_tan_file_of_no_pairs_is_naive_bayes_as_its_fit():
    X, y = data(1, 300)
    model = TAN(max_pairs=11).fit(X, y)  # 4 features: 12 ordered pairs, over the cap
    loaded = model_io.loads(model_io.dumps(model))
    assert loaded.notes_ == model.notes_ and (loaded.parents_ < 0).all()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def _tan_doc(**params) -> dict:
    X, y = data(1, 300)
    return json.loads(model_io.dumps(TAN(**params).fit(X, y)))


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda doc: doc["joint"]["counts"].__setitem__(0, doc["joint"]["counts"][0] * 9),
         "joint counts exceed its feature counts"),
        (lambda doc: doc["joint"].__setitem__("parent", doc["joint"]["parent"][::-1]),
         "layout"),
        (lambda doc: doc["params"].__setitem__("max_parent_cardinality", 2), "layout"),
        (lambda doc: doc["params"].__setitem__("root", 9), "root must be a feature index"),
        (lambda doc: doc["params"].__setitem__("smoother", "kt"), "Unknown TAN smoother"),
        (lambda doc: doc.pop("joint"), "lacks the field 'joint'"),
    ],
)  # fmt: skip
def test_a_hand_edited_tan_file_is_refused(edit, said):
    doc = _tan_doc()
    edit(doc)
    with pytest.raises(ValueError, match=said):
        model_io.loads(json.dumps(doc))


def test_engine_modules_load_no_app_library():
    """heb.model_io and heb.explain are engine: numpy, scipy, scikit-learn and stdlib only."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "import numpy, scipy.special, scipy.stats, scipy.optimize, sklearn.base\n"
        "before = set(sys.modules)\n"
        "import heb.model_io, heb.explain\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(json.dumps(sorted(new - set(sys.stdlib_module_names) - {'heb', 'sklearn'})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def _classes_reversed(doc: dict) -> None:
    """The same model written with its classes in decreasing order: labels, class counts,
    counts and tables all reversed consistently (what another program might write)."""
    last = len(doc["classes"]["values"]) - 1
    doc["classes"]["values"] = doc["classes"]["values"][::-1]
    doc["class_counts"] = doc["class_counts"][::-1]
    doc["counts"]["class"] = [last - c for c in doc["counts"]["class"]]
    doc["tables"]["class_log_prior"] = doc["tables"]["class_log_prior"][::-1]
    doc["tables"]["feature_log_prob"] = doc["tables"]["feature_log_prob"][::-1]


@pytest.mark.parametrize("kind", ["str", "int", "bool"])
def test_class_labels_out_of_order_are_refused(kind):
    """classes_ is sorted, as in scikit-learn, and partial_fit finds a label's row by
    searchsorted: a file listing its classes in another order loaded before, and the
    loaded model's partial_fit then raised numpy's broadcasting error (or counted rows
    under the wrong class)."""
    X, y = data()
    y = {"str": y, "int": (y == "yes").astype(int) * 7, "bool": y == "yes"}[kind]
    doc = json.loads(model_io.dumps(NaiveBayes("laplace").fit(X, y)))
    model_io.loads(json.dumps(doc))  # in order: loads
    _classes_reversed(doc)
    with pytest.raises(ValueError, match=r"^The class labels must be listed in increasing order"):
        model_io.loads(json.dumps(doc))


def _hierarchical_data(seed: int = 0, n: int = 500):
    """Feature 0 determines feature 1 (its group of three), feature 2 is noise."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 12, n)
    X = np.c_[a, a // 3, rng.integers(0, 3, n)]
    y = np.where(X[:, 1] + X[:, 2] + rng.integers(0, 2, n) > 3, "yes", "no")
    return X, y


@pytest.mark.parametrize(
    "params",
    [{}, {"smoother": "laplace"}, {"condition_on_parent": False}, {"weighting": "sqrt-mi"}],
)
def test_a_hierarchical_nb_round_trip_keeps_its_detected_structure(params):
    """A HierarchicalNaiveBayes could not be saved: its file holds the hierarchies and
    parents it detected, so loading detects nothing and predicts identically."""
    X, y = _hierarchical_data()
    model = HierarchicalNaiveBayes(**params).fit(X, y)
    assert model.parents_ == {0: 1}  # detected
    doc = json.loads(model_io.dumps(model))
    assert doc["model"] == "HierarchicalNaiveBayes"
    assert doc["params"]["parents"] == {"0": 1}
    assert doc["params"]["hierarchies"] == {"0": [(np.arange(12) // 3).tolist()]}
    loaded = model_io.from_dict(doc)
    assert loaded.parents_ == {0: 1}
    rows = np.vstack([X, [[13, 1, 2], [4, 2, -1], [-1, 0, 0]]])  # unseen, off-group, missing
    assert np.array_equal(loaded.predict_proba(rows), model.predict_proba(rows))
    more_X, more_y = _hierarchical_data(1, 200)
    loaded.partial_fit(more_X, more_y)
    model.partial_fit(more_X, more_y)
    np.testing.assert_allclose(loaded.predict_proba(rows), model.predict_proba(rows), atol=1e-12)


def test_a_hierarchical_nb_is_fitted_from_counts_only_with_its_structure_given():
    """``fit_counts`` (inherited) crashed on an AttributeError; it now says what it needs,
    and a parent feature outside the table is one sentence, not an IndexError at predict."""
    X, y = _hierarchical_data()
    fitted = HierarchicalNaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match="detects its hierarchies in rows"):
        HierarchicalNaiveBayes().fit_counts(fitted.count_table_)
    given = HierarchicalNaiveBayes(hierarchies=fitted.hierarchies_, parents=fitted.parents_)
    given.fit_counts(fitted.count_table_, fitted.classes_)
    assert np.array_equal(given.predict_proba(X), fitted.predict_proba(X))
    with pytest.raises(ValueError, match="parents names feature 7, not an index in 0..2"):
        HierarchicalNaiveBayes(hierarchies=fitted.hierarchies_, parents={0: 7}).fit(X, y)


@pytest.mark.parametrize(
    "parents, said",
    [
        ([1], "'parents' must be an object or null"),
        ({"a": 1}, "is not a feature index"),
        ({"0": "1"}, "must be a feature index"),
        ({"0": -1}, "must be a feature index"),
        ({"0": True}, "must be a feature index"),
        ({"0": 9}, "not an index in 0..2"),
        ({"2": 1}, "without a hierarchy of their own"),
        ({"0": 0}, "as their own parents"),
    ],
)
def test_a_files_malformed_parents_are_one_sentence(parents, said):
    X, y = _hierarchical_data()
    doc = json.loads(model_io.dumps(HierarchicalNaiveBayes().fit(X, y)))
    doc["params"]["parents"] = parents
    with pytest.raises(ValueError, match=said):
        model_io.loads(json.dumps(doc))


@pytest.mark.parametrize(
    "params, said",
    [
        ({"hierarchies": [1]}, "hierarchies must map a feature index to its list of levels"),
        ({"hierarchies": {0: [np.arange(12) // 3]}, "parents": [(0, 1)]}, "parents must map"),
        ({"fd_tolerance": "x"}, "fd_tolerance must lie in"),
        ({"fd_tolerance": None}, "fd_tolerance must lie in"),
    ],
)
def test_a_hierarchical_nbs_malformed_parameters_are_one_sentence(params, said):
    """Each was a TypeError ('int' object is not iterable, '<=' not supported)."""
    X, y = _hierarchical_data()
    with pytest.raises(ValueError, match=said):
        HierarchicalNaiveBayes(**params).fit(X, y)
