"""HierarchyPipeline: HEB-H hierarchies declared by column, their levels built on each fit.

A make_model pipeline with levels in one fit's codes gave scikit-learn's cross-validation
the wrong parents on every fold short of some categories (K 715-757 of zip-codes' 800 ZIP
codes), without an error.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, PredefinedSplit, cross_val_predict

from heb.data import load_dataset, make_model, pipeline_io
from heb.evaluate import HierarchyPipeline, RunSettings, cross_validate, make_hierarchy_model
from heb.evaluate.hierarchy_model import declarations
from heb.evaluate.hierarchy_specs import Declared, hierarchies_text
from heb.hierarchy_sources import prefix_levels

ZIP = "zip_code -> prefix 3 -> prefix 1"


@pytest.fixture(scope="module")
def zips():
    return load_dataset("builtin:zip-codes")


def test_out_of_fold_probabilities_equal_cross_validates_heb_h(zips):
    """sklearn's folds, levels per fold: exactly heb.evaluate.cross_validate's HEB-H."""
    text = hierarchies_text([Declared("zip_code", prefix=(3, 1))])
    result = cross_validate(zips, ["HEB-H"], settings=RunSettings(n_splits=5, hierarchies=text))
    split = PredefinedSplit(result.test_fold)
    ours = cross_val_predict(
        make_hierarchy_model(ZIP), zips.X, zips.y, cv=split, method="predict_proba"
    )
    assert np.array_equal(ours, np.asarray(result.oof_proba["HEB-H"]))
    # the levels of one fit on every row, as make_model takes them: wrong on the folds
    whole = make_model("heb-m").fit(zips.X, zips.y)[0]
    labels = [str(v) for v in whole.categories_[0]]
    fixed = make_model("heb-h", hierarchies={0: prefix_levels(labels, (3, 1))})
    theirs = cross_val_predict(fixed, zips.X, zips.y, cv=split, method="predict_proba")
    assert np.abs(theirs - ours).max() > 1e-3


def test_a_fit_builds_the_levels_on_its_own_rows(zips):
    rows = zips.X["zip_code"].astype(str) < "5"  # a part of the ZIP codes only
    model = make_hierarchy_model(ZIP).fit(zips.X[rows], zips.y[rows])
    labels = [str(v) for v in model[0].categories_[0]]
    levels = model[-1].hierarchies[0]
    assert len(levels[0]) == len(labels) < zips.X["zip_code"].nunique()
    for level, expected in zip(levels, prefix_levels(labels, (3, 1)), strict=True):
        assert np.array_equal(level, expected)


def test_a_parent_column_chain_takes_each_childs_most_frequent_parent():
    frame = pd.DataFrame(
        {
            "role": ["r1", "r2", "r3", "r4", "r1", "r3"] * 10,
            "dept": ["d1", "d1", "d2", "d2", "d1", "d2"] * 10,
            "noise": list("abcabc") * 10,
        }
    )
    y = np.array([0, 1, 0, 1, 1, 0] * 10)
    model = make_hierarchy_model("role -> dept").fit(frame, y)
    (level,) = model[-1].hierarchies[0]
    assert level.tolist() == [0, 0, 1, 1]  # r1, r2 in d1; r3, r4 in d2
    assert model.predict_proba(frame).shape == (60, 2)


def test_a_grid_over_smoothers_fits_heb_m_without_them(zips):
    X, y = zips.X.iloc[:1500], zips.y[:1500]
    grid = GridSearchCV(
        make_hierarchy_model([ZIP]),
        {"classifier__smoother": ["heb-m", "heb-h"]},
        cv=3,
        scoring="neg_log_loss",
    ).fit(X, y)
    plain = GridSearchCV(make_model("heb-m"), {}, cv=3, scoring="neg_log_loss").fit(X, y)
    scores = grid.cv_results_["mean_test_score"]
    assert scores[0] == pytest.approx(plain.cv_results_["mean_test_score"][0], abs=1e-12)
    assert scores[1] != pytest.approx(scores[0], abs=1e-6)


def test_clone_and_params_keep_the_declarations():
    model = make_hierarchy_model([ZIP], n_bins=5)
    copy = clone(model)
    assert isinstance(copy, HierarchyPipeline)
    assert copy.hierarchies == [ZIP] and copy.get_params()["preprocess__n_bins"] == 5
    copy.set_params(hierarchies="zip_code -> prefix 2")
    assert declarations(copy.hierarchies) == (Declared("zip_code", prefix=(2,)),)


def test_every_form_of_declaration_reads_the_same():
    one = Declared("zip", prefix=(3, 1))
    json_text = hierarchies_text([one])
    for form in (
        "zip -> prefix 3 -> prefix 1",
        json_text,
        one,
        [one],
        ("zip > prefix 3 > prefix 1",),
    ):
        assert declarations(form) == (one,)
    assert declarations(None) == declarations([]) == ()


@pytest.mark.parametrize(
    ("hierarchies", "says"),
    [
        ("zip", "A hierarchy reads 'column -> parent"),
        (["zip -> a", "zip -> b"], "'zip' is given two hierarchies"),
        ([3], "not a int"),
        ("zip -> prefix two", "no prefix length"),
    ],
)
def test_a_malformed_declaration_is_refused_when_the_model_is_made(hierarchies, says):
    with pytest.raises(ValueError, match=says):
        make_hierarchy_model(hierarchies)


def test_a_declaration_that_cannot_apply_is_one_sentence_at_fit(zips):
    said = "The hierarchy 'postcode -> prefix 3' cannot apply: no column 'postcode' here."
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        make_hierarchy_model("postcode -> prefix 3").fit(zips.X, zips.y)
    frame = pd.DataFrame({"age": np.arange(100.0), "c": list("ab") * 50})
    said = (
        "The hierarchy 'age -> prefix 1' cannot apply: 'age' is binned, not labelled "
        "(categorical=['age'] reads it as categories)."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        make_hierarchy_model("age -> prefix 1").fit(frame, np.arange(100) % 2)


def test_a_classifier_without_hierarchies_or_a_step_without_labels_is_refused(zips):
    from sklearn.preprocessing import OrdinalEncoder

    from heb import AODE

    X, y = zips.X.iloc[:300], zips.y[:300]
    pipe = make_hierarchy_model(ZIP)
    with pytest.raises(ValueError, match="AODE takes no category hierarchies"):
        HierarchyPipeline([pipe.steps[0], ("classifier", AODE())], hierarchies=ZIP).fit(X, y)
    other = HierarchyPipeline([("encode", OrdinalEncoder()), pipe.steps[1]], hierarchies=ZIP)
    with pytest.raises(ValueError, match="must be a heb Preprocessor, not OrdinalEncoder"):
        other.fit(X, y)
    alone = HierarchyPipeline([pipe.steps[1]], hierarchies=ZIP)
    with pytest.raises(ValueError, match="must be a heb Preprocessor, not none"):
        alone.fit(X, y)


def test_a_fitted_one_saves_and_loads_as_a_make_model_pipeline(zips, tmp_path):
    model = make_hierarchy_model(ZIP).fit(zips.X, zips.y)
    pipeline_io.save(model, tmp_path / "model.json")
    back = pipeline_io.load(tmp_path / "model.json")
    assert np.array_equal(back.predict_proba(zips.X), model.predict_proba(zips.X))


def test_a_chain_of_binned_numbers_fits_with_a_warning_naming_the_categorical_that_reads_it():
    """Role codes read as numbers are cut into bins: a parent chain then groups bins (the
    command line says so in a line; here a warning)."""
    rng = np.random.default_rng(0)
    role = rng.integers(100, 400, 300)
    frame = pd.DataFrame({"role": role, "dept": role // 50, "c": rng.choice(list("ab"), 300)})
    y = rng.integers(0, 2, 300)
    said = (
        "The hierarchy 'role -> dept' groups the bins of 'role' and 'dept', not their values "
        "(categorical=['role', 'dept'] reads them as categories)."
    )
    with pytest.warns(UserWarning, match=f"^{re.escape(said)}$"):
        make_hierarchy_model("role -> dept").fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_hierarchy_model("role -> dept", categorical=["role", "dept"]).fit(frame, y)
