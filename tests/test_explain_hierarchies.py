"""Explain's HEB-H uses the hierarchies declared on the Dataset page, as Compare does: its
log-odds differ from HEB-M's, its shown code reproduces them, and its model is saved
with those hierarchies (a model file holds them as lists of codes)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.explain import LOG_ODDS
from heb import model_io
from heb.nb import NaiveBayes
from tests.test_app import assert_clean, open_app
from tests.test_app_extras import decision_and_bars, shown_code
from tests.test_app_hierarchy import ZIP_PREFIX
from tests.test_report import run_python

QUERY = {"explain_row": "9", "explain_smoothers": "heb-m,heb-h"}


def _explain(**query: str):
    at = open_app("pages/explain.py", **QUERY, **query)
    assert_clean(at)
    table, _ = decision_and_bars(at)
    return at, table.set_index("smoother")[LOG_ODDS]


def test_heb_h_uses_the_declared_hierarchy_and_its_code_reproduces_it(tmp_path):
    _, plain = _explain()
    at, declared = _explain(hierarchies=ZIP_PREFIX)
    assert plain["HEB-H"] == pytest.approx(plain["HEB-M"])  # none declared: HEB-H is HEB-M
    assert declared["HEB-M"] == pytest.approx(plain["HEB-M"])
    assert abs(declared["HEB-H"] - declared["HEB-M"]) > 1e-6
    code = shown_code(at, "from heb.explain import")
    assert "resolve_levels" in code
    out = run_python(
        code + "\nimport json\nprint('JSON' + json.dumps([e.log_odds[0] for e in out.values()]))",
        tmp_path,
    )
    np.testing.assert_allclose(
        json.loads(out.split("JSON", 1)[1]), declared[["HEB-M", "HEB-H"]], atol=1e-9
    )


def test_heb_h_with_hierarchies_is_offered_as_json_and_loads_back_as_itself():
    """The page offered no download for HEB-H with declared hierarchies ("the JSON format
    does not hold" them); its file now holds them and scores the raw rows as the page's
    model scores their codes."""
    from explorer import explain as ex
    from explorer.hierarchies import work_hierarchies
    from heb.data import pipeline_io
    from heb.evaluate.hierarchy_specs import parse_hierarchies
    from tests.test_explain_pipeline_app import page_work

    at = open_app("pages/explain.py", **QUERY, hierarchies=ZIP_PREFIX)
    at.session_state["model_files_open"] = True
    at.session_state["explain_save"] = "heb-h"
    at.run()
    assert_clean(at)
    assert any("fitted model" in b.proto.label for b in at.get("download_button"))
    assert not any("does not hold" in i.value for i in at.info)
    # the file the button gives, from the page's own functions
    dataset, work = page_work()
    levels, _ = work_hierarchies(work, parse_hierarchies(ZIP_PREFIX))
    assert levels
    model = NaiveBayes("heb-h", hierarchies=levels)
    model.fit_counts(work.table, np.arange(work.n_classes))
    fitted = ex.Fitted({"heb-h": model}, {"heb-h": model.predict(work.codes)})
    names, classes = work.feature_names, work.class_names
    pipe = pipeline_io.loads(ex.model_json(fitted, "heb-h", names, classes, work.preprocessor))
    expected = model.predict_proba(work.codes)
    assert np.array_equal(pipe.predict_proba(dataset.X), expected)
    plain = NaiveBayes("heb-m").fit_counts(work.table, np.arange(work.n_classes))
    assert not np.allclose(plain.predict_proba(work.codes), expected)
    summary = ex.loaded_summary(pipe)
    assert "(heb\\-h), 2 classes, 8 features, hierarchies over 1 of them." in summary, summary


@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_the_engine_saves_a_model_with_hierarchies_and_loads_it_back():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, (60, 2))
    y = (codes[:, 0] // 2 + (rng.random(60) < 0.3)) % 2
    # a 1-D array for one level, lists, and a first level naming a category not seen yet
    for levels in ({0: np.arange(4) // 2}, {0: [[0, 0, 1, 1], [0, 0]]}, {1: [[0, 1, 1, 0, 2]]}):
        model = NaiveBayes("heb-h", hierarchies=levels).fit(codes, y)
        text = model_io.dumps(model)
        loaded = model_io.loads(text)
        assert np.array_equal(loaded.predict_proba(codes), model.predict_proba(codes))
        saved = json.loads(text)["params"]["hierarchies"]
        assert all(isinstance(level, list) for kept in saved.values() for level in kept)
    assert saved == {"1": [[0, 1, 1, 0, 2]]}  # as given, the unseen fifth category too
    plain = NaiveBayes("heb-h").fit(codes, y)
    assert model_io.loads(model_io.dumps(plain)).get_params()["hierarchies"] is None


@pytest.mark.parametrize(
    "hierarchies, said",
    [
        ([[0, 0]], "must be an object or null"),
        ({"x": [[0, 0, 1, 1]]}, "is not a feature index"),
        ({"01": [[0, 0, 1, 1]]}, "is not a feature index"),
        ({"-1": [[0, 0, 1, 1]]}, "is not a feature index"),
        ({"0": []}, "must hold a list of levels"),
        ({"0": [0, 0, 1, 1]}, "must list whole numbers"),
        ({"0": [[0, 0, 1.5, 1]]}, "must list whole numbers"),
        ({"0": [[0, 0, True, 1]]}, "must list whole numbers"),
        ({"0": [[0, -1, 1, 1]]}, "must list whole numbers"),
        ({"0": [[0, 0, 1, 2**70]]}, "must list whole numbers"),
        ({"7": [[0, 0, 1, 1]]}, "not an index in 0..1"),
        ({"0": [[0, 0, 3, 3], [0, 0]]}, "names parent 3, but level 2 lists 2 nodes"),
    ],
)
def test_a_files_malformed_hierarchies_are_one_sentence(hierarchies, said):
    codes = np.random.default_rng(0).integers(0, 4, (60, 2))
    model = NaiveBayes("heb-h", hierarchies={0: [[0, 0, 1, 1]]}).fit(codes, np.arange(60) % 2)
    data = json.loads(model_io.dumps(model))
    data["params"]["hierarchies"] = hierarchies
    with pytest.raises(ValueError, match=said):
        model_io.loads(json.dumps(data))
