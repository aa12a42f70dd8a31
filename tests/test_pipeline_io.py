"""heb.data.pipeline_io with a make_model pipeline: the file carries its Preprocessor
(heb.data.preprocessor_io), loads back as a pipeline that scores raw rows identically, and
every malformed preprocessor section is one ValueError sentence."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.pipeline import Pipeline

from heb.aode import AODE
from heb.data import DataError, load_dataset, make_model, pipeline_io
from heb.data.preprocessor_io import STEP_NAMES
from heb.nb import NaiveBayes

ROOT = Path(__file__).resolve().parents[1]


def mixed_frame(seed: int = 0, n: int = 240) -> tuple[pd.DataFrame, np.ndarray]:
    """Numbers, integer codes, an ID column, text, bools, a declared categorical float,
    dates and an empty column, with missing values here and there."""
    rng = np.random.default_rng(seed)
    age = rng.normal(40, 12, n).round(1)
    age[rng.random(n) < 0.1] = np.nan
    customer = pd.array(rng.integers(1, 80, n), dtype="Int64")
    customer[rng.random(n) < 0.1] = pd.NA
    city = rng.choice(["Oslo", "Lima", "Pune", "1", "2"], n).astype(object)
    city[rng.random(n) < 0.1] = None
    member = pd.array(rng.random(n) < 0.4, dtype="boolean")
    member[rng.random(n) < 0.05] = pd.NA
    score = rng.choice([0.1, 0.2, 0.1 + 0.2, 1.5, -0.0], n)
    score[rng.random(n) < 0.05] = np.nan
    frame = pd.DataFrame(
        {
            "age": age,
            "grade": rng.integers(1, 6, n),  # integer codes: few values, binned one per value
            "customer_id": customer,  # ID-like name: integer categories
            "city": city,
            "member": member,
            "flag": rng.random(n) < 0.3,
            "score": score,  # declared categorical: float categories
            "when": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 400, n), "D"),
            "empty": np.full(n, np.nan),  # dropped
        }
    )
    y = np.where((age > 40) ^ (frame["grade"].to_numpy() > 3), "yes", "no")
    y[rng.random(n) < 0.2] = "maybe"
    return frame, y


def edge_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows a user may score: unseen categories, missing values, numbers given as text,
    numbers far outside the training range, the first training rows as plain objects."""
    edges = pd.DataFrame(
        {
            "age": [1e9, -1e9, np.nan, "41.5", "not a number", 40.0],
            "grade": [99, -5, None, "3", 3.5, 2],
            "customer_id": ["12", 10**20, None, 12.0, "x", 3],
            "city": ["Atlantis", 1, None, "Oslo", 2.0, "2"],
            "member": [True, "True", None, False, 1, "no"],
            "flag": [False, True, None, "True", 0, True],
            "score": ["0.1", 0.30000000000000004, None, 0.3, -0.0, 1.5],
            "when": ["2030-01-01", None, pd.Timestamp("1990-01-01"), 5, "x", "2024-03-01"],
            "empty": [1.0, None, "a", None, 2, 3],
        },
        dtype=object,
    )
    return pd.concat([edges, frame.head(20).astype(object)], ignore_index=True)


def round_trip(pipe: Pipeline) -> Pipeline:
    text = pipeline_io.dumps(pipe)
    loaded = pipeline_io.loads(text)
    assert isinstance(loaded, Pipeline)
    assert [name for name, _ in loaded.steps] == list(STEP_NAMES)
    assert pipeline_io.dumps(loaded) == text  # the file reads back to the same file
    return loaded


def assert_same_preprocessor(saved, loaded) -> None:
    for attribute in ("feature_names_out_", "categories_", "dropped_", "kinds_"):
        assert getattr(loaded, attribute) == getattr(saved, attribute), attribute
    assert loaded.impute_values_ == saved.impute_values_
    assert loaded.id_like_imputed_ == saved.id_like_imputed_
    assert loaded.n_features_in_ == saved.n_features_in_
    assert loaded._columns_in == saved._columns_in
    assert hasattr(loaded, "feature_names_in_") == hasattr(saved, "feature_names_in_")
    if hasattr(saved, "feature_names_in_"):
        assert loaded.feature_names_in_.tolist() == saved.feature_names_in_.tolist()
    assert np.array_equal(loaded.n_categories_, saved.n_categories_)
    assert loaded.get_params() == saved.get_params()
    assert saved.bin_edges_.keys() == loaded.bin_edges_.keys()
    for name, edges in saved.bin_edges_.items():  # bit for bit
        assert loaded.bin_edges_[name].tobytes() == edges.tobytes(), name
    for mine, theirs in zip(saved._encoders, loaded._encoders, strict=True):
        assert mine.keys() == theirs.keys()
        for key, value in mine.items():
            if key == "index":
                assert theirs[key].dtype == value.dtype and theirs[key].equals(value)
                assert [type(v) for v in theirs[key]] == [type(v) for v in value]
            elif key == "cuts":
                assert theirs[key].dtype == value.dtype and theirs[key].tobytes() == value.tobytes()
            else:
                assert theirs[key] == value, key


def assert_scores_alike(pipe: Pipeline, loaded: Pipeline, *frames: pd.DataFrame) -> None:
    for rows in frames:
        assert np.array_equal(loaded[0].transform(rows), pipe[0].transform(rows))
        assert np.array_equal(loaded.predict_proba(rows), pipe.predict_proba(rows))
        assert np.array_equal(loaded.predict(rows), pipe.predict(rows))


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("missing", ["impute", "category"])
@pytest.mark.parametrize("estimator", ["heb-m", "laplace", "aode"])
def test_mixed_frame_round_trip_scores_raw_rows_identically(tmp_path, missing, estimator):
    frame, y = mixed_frame()
    if estimator == "aode":
        pipe = make_model(missing=missing, categorical=["score"], estimator=AODE())
    else:
        pipe = make_model(estimator, missing=missing, categorical=["score"], weighting="sqrt-mi")
    pipe.fit(frame, y)
    path = tmp_path / "pipe.json"
    pipeline_io.save(pipe, path)
    loaded = pipeline_io.load(path)
    assert pipeline_io.dumps(loaded) == path.read_text(encoding="utf-8")
    assert_same_preprocessor(pipe[0], loaded[0])
    assert loaded[0].dropped_ == ["empty"]
    assert loaded[0].kinds_["customer_id"] == "categorical"
    assert loaded[0].kinds_["score"] == "categorical" and loaded[0].kinds_["grade"] == "numeric"
    assert type(loaded[-1]) is type(pipe[-1])
    assert loaded[-1].get_params() == pipe[-1].get_params()
    assert_scores_alike(pipe, loaded, frame, edge_rows(frame), frame.astype(str))
    if missing == "impute":
        assert set(loaded[0].impute_values_) == set(loaded[0].feature_names_out_)


@pytest.mark.parametrize("name", ["zip-codes", "known-truth", "iris", "breast-cancer"])
@pytest.mark.parametrize("missing", ["impute", "category"])
def test_builtin_datasets_round_trip(name, missing):
    data = load_dataset(f"builtin:{name}")
    pipe = make_model("heb-m", missing=missing, categorical=data.categorical).fit(data.X, data.y)
    loaded = round_trip(pipe)
    assert_same_preprocessor(pipe[0], loaded[0])
    shuffled = data.X.sample(frac=1.0, random_state=0).head(300)
    assert_scores_alike(pipe, loaded, data.X, shuffled, shuffled.astype(str))


def test_zip_codes_id_like_columns_and_leading_zeros_survive():
    data = load_dataset("builtin:zip-codes")
    X = data.X.copy()
    X.loc[X.index[:50], "user_id"] = None  # an ID column with missing rows: imputed, noted
    X["user_id"] = X["user_id"].astype("Int64")
    pipe = make_model(categorical=data.categorical).fit(X, data.y)
    loaded = round_trip(pipe)
    assert "user_id" in loaded[0].id_like_imputed_
    assert loaded[0].id_like_imputed_ == pipe[0].id_like_imputed_
    doc = json.loads(pipeline_io.dumps(pipe))["preprocessor"]
    zips = next(f for f in doc["features"] if f["name"] == "zip_code")["categories"]
    assert zips["kind"] == "str" and "01068" in zips["values"]
    rows = X.head(30).assign(zip_code=["01068", 1068, "1068", None, "99999", *["02134"] * 25])
    assert_scores_alike(pipe, loaded, rows)


def test_category_value_types_are_kept_exactly():
    """The integer 1 and the text "1" are different categories, as in memory: an integer
    column scores the float 1.0 as 1, a text column scores it as the unseen "1.0"."""
    frame = pd.DataFrame(
        {
            "code_id": [1, 2, 1, 2, 3, 1],  # integers under an ID-like name
            "label": ["1", "2", "1", "2", "3", "1"],  # the same digits as text
            "rate": [0.5, 1.0, 0.5, 1.0, 0.25, 0.5],  # declared categorical floats
        }
    )
    y = np.array([0, 1, 0, 1, 1, 0])
    pipe = make_model("laplace", categorical=["rate"]).fit(frame, y)
    doc = json.loads(pipeline_io.dumps(pipe))["preprocessor"]
    kinds = {f["name"]: f["categories"] for f in doc["features"]}
    assert kinds["code_id"] == {"kind": "int", "values": [1, 2, 3]}
    assert kinds["label"] == {"kind": "str", "values": ["1", "2", "3"]}
    assert kinds["rate"] == {"kind": "float", "values": [0.25, 0.5, 1.0]}
    loaded = round_trip(pipe)
    rows = pd.DataFrame({"code_id": [1.0, "1", 1], "label": [1.0, 1, "1"], "rate": ["0.5", 0.5, 1]})
    codes = loaded[0].transform(rows)
    assert np.array_equal(codes, pipe[0].transform(rows))
    assert codes[0].tolist() == [0, 3, 1]  # 1.0 is the integer 1 but not the text "1"


def test_repr_exact_floats_and_huge_integers():
    rng = np.random.default_rng(3)
    values = rng.normal(size=300) * 1e-7 + 0.1  # cut points with 17 significant digits
    frame = pd.DataFrame(
        {"x": values, "big_id": pd.array([2**63 + i % 7 for i in range(300)], dtype=object)}
    )
    frame["big_id"] = frame["big_id"].astype("uint64")
    y = (values > 0.1).astype(int)
    pipe = make_model("heb-u", n_bins=7).fit(frame, y)
    loaded = round_trip(pipe)
    assert_same_preprocessor(pipe[0], loaded[0])
    assert loaded[0]._encoders[1]["index"].tolist()[-1] == 2**63 + 6
    probe = pd.DataFrame({"x": np.nextafter(pipe[0]._encoders[0]["cuts"], 0), "big_id": 2**63})
    assert_scores_alike(pipe, loaded, frame, probe)


def test_hostile_names_and_values_are_only_data():
    hostile = ["<script>alert(1)</script>", "__import__('os').system('x')", "a\x00b", "\u202e", "'"]
    frame = pd.DataFrame(
        {name: np.resize(hostile, 40) for name in hostile} | {"n": np.arange(40.0)}
    )
    y = np.resize(["a", "b", "c"], 40)
    pipe = make_model("laplace").fit(frame, y)
    loaded = round_trip(pipe)
    assert loaded[0].feature_names_out_ == pipe[0].feature_names_out_
    assert_scores_alike(pipe, loaded, frame)


def test_a_frame_with_number_column_names_and_an_array():
    X = np.random.default_rng(1).integers(0, 4, size=(80, 3)).astype(float)
    y = (X[:, 0] > 1).astype(int)
    pipe = make_model("laplace").fit(pd.DataFrame(X), y)  # names 0, 1, 2: no feature_names_in_
    loaded = round_trip(pipe)
    assert not hasattr(loaded[0], "feature_names_in_")
    assert_scores_alike(pipe, loaded, pd.DataFrame(X))
    array_pipe = make_model("laplace").fit(X, y)
    assert_scores_alike(array_pipe, round_trip(array_pipe), X)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    n=st.integers(3, 30),
    seed=st.integers(0, 2**31),
    kinds=st.lists(
        st.sampled_from(["float", "int", "text", "bool", "id", "empty"]), min_size=1, max_size=5
    ),
    missing=st.sampled_from(["impute", "category"]),
    n_bins=st.integers(2, 6),
    estimator=st.sampled_from(["heb-m", "laplace", "aode"]),
)
def test_random_frames_round_trip(n, seed, kinds, missing, n_bins, estimator):
    rng = np.random.default_rng(seed)
    columns = {}
    for j, kind in enumerate(kinds):
        gaps = rng.random(n) < 0.2
        if kind == "float":
            values = pd.Series(rng.normal(size=n).round(int(rng.integers(0, 4))))
        elif kind == "int":
            values = pd.Series(rng.integers(-3, 4, n)).astype("Int64")
        elif kind == "text":
            values = pd.Series(rng.choice(["a", "b", "1", "é", ""], n), dtype=object)
        elif kind == "bool":
            values = pd.Series(rng.random(n) < 0.5).astype("boolean")
        elif kind == "id":
            values = pd.Series(rng.integers(0, 10**12, n)).astype("Int64")
        else:
            values = pd.Series(np.full(n, np.nan))
        columns[f"{kind}_id" if kind == "id" else f"{kind}{j}"] = values.mask(gaps)
    frame = pd.DataFrame(columns)
    y = rng.integers(0, 3, n)
    est = AODE() if estimator == "aode" else NaiveBayes(estimator)
    try:
        pipe = make_model(n_bins=n_bins, missing=missing, estimator=est).fit(frame, y)
    except DataError:  # every column empty: nothing to save
        return
    loaded = round_trip(pipe)
    assert_same_preprocessor(pipe[0], loaded[0])
    other = frame.sample(frac=1.0, random_state=seed % 1000).astype(object)
    other.iloc[::2] = other.iloc[::2].map(lambda v: None if pd.isna(v) else str(v))
    assert_scores_alike(pipe, loaded, frame, other)


def test_a_saved_pipeline_scores_a_csv_in_a_fresh_process(tmp_path):
    """A practitioner's path: fit on a CSV, save, load elsewhere with only heb imported."""
    frame, y = mixed_frame(seed=5)
    csv = tmp_path / "rows.csv"
    frame.drop(columns="when").assign(target=y).to_csv(csv, index=False)
    table = pd.read_csv(csv)
    X = table.drop(columns="target")
    pipe = make_model(missing="category").fit(X, table["target"])
    pipeline_io.save(pipe, tmp_path / "pipe.json")
    code = (
        "import json, sys\n"
        "from heb.data import pipeline_io\n"
        f"pipe = pipeline_io.load({str(tmp_path / 'pipe.json')!r})\n"
        "import pandas as pd\n"
        f"rows = pd.read_csv({str(csv)!r}).drop(columns='target')\n"
        "proba = pipe.predict_proba(rows)\n"
        "print(json.dumps({'proba': proba.tolist(),\n"
        "                  'classes': pipe.classes_.tolist()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["classes"] == pipe.classes_.tolist()
    assert np.array_equal(np.array(out["proba"]), pipe.predict_proba(X))


def test_model_only_files_still_load_as_models():
    frame, y = mixed_frame(n=80)
    pipe = make_model("laplace").fit(frame, y)
    alone = pipeline_io.loads(pipeline_io.dumps(pipe[-1]))
    assert isinstance(alone, NaiveBayes)
    doc = json.loads(pipeline_io.dumps(pipe))
    assert doc["schema_version"] == 1
    del doc["preprocessor"]
    assert isinstance(pipeline_io.from_dict(doc), NaiveBayes)


def test_the_preprocessor_section_is_documented():
    frame, y = mixed_frame(n=120)
    frame.loc[:60, "customer_id"] = pd.Series(range(61)).astype("Int64")  # ID-like
    doc = json.loads(pipeline_io.dumps(make_model("laplace").fit(frame, y)))["preprocessor"]
    documented = (ROOT / "docs" / "model_json.md").read_text(encoding="utf-8")
    keys = set(doc) | set(doc["params"])
    keys |= {key for feature in doc["features"] for key in feature}
    keys |= {key for entry in doc["id_like_imputed"].values() for key in entry}
    assert doc["id_like_imputed"]
    for key in sorted(keys):
        assert f"`{key}`" in documented, key


# --------------------------------------------------------------------------- refusals
def test_pipelines_other_than_make_models_are_refused():
    from sklearn.naive_bayes import MultinomialNB

    from heb.data import Preprocessor

    frame, y = mixed_frame(n=60)
    cases = [
        (Pipeline([("pre", Preprocessor()), ("nb", NaiveBayes())]), "Only a make_model pipeline"),
        (make_model(estimator=MultinomialNB()), "not a MultinomialNB"),
        (Pipeline([("preprocess", "passthrough"), ("classifier", NaiveBayes())]), None),
    ]
    for pipe, words in cases:
        if words is not None:
            pipe.fit(frame, y)
        with pytest.raises(ValueError) as caught:
            pipeline_io.dumps(pipe)
        assert_one_sentence(caught.value)
        if words:
            assert words in str(caught.value)
    with pytest.raises(ValueError, match="The pipeline is not fitted yet"):
        pipeline_io.dumps(make_model())
    pipe = make_model("laplace").fit(frame, y)
    pipe[-1].fit(pipe[0].transform(frame.head(5)), y[:5])  # refitted on fewer categories
    with pytest.raises(ValueError, match="does not count its Preprocessor's categories"):
        pipeline_io.dumps(pipe)


def assert_one_sentence(exc: BaseException) -> None:
    text = str(exc)
    assert text[:1].isupper() and text.endswith(".") and "\n" not in text, text
    assert len(text) < 300, text


@pytest.fixture(scope="module")
def good_doc() -> dict:
    frame, y = mixed_frame(n=120)
    frame.loc[:70, "customer_id"] = pd.Series(range(71)).astype("Int64")
    frame.loc[71:, "customer_id"] = pd.NA  # ID-like, with imputed rows
    doc = json.loads(pipeline_io.dumps(make_model("laplace", categorical=["score"]).fit(frame, y)))
    assert doc["preprocessor"]["id_like_imputed"]
    return doc


def _feature(doc: dict, kind: str) -> dict:
    return next(f for f in doc["preprocessor"]["features"] if f["kind"] == kind)


def _named(doc: dict, name: str) -> dict:
    return next(f for f in doc["preprocessor"]["features"] if f["name"] == name)


def _set(path: tuple, value):
    def edit(doc):
        target = doc["preprocessor"]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _edit_feature(name: str, key: str, value):
    def edit(doc):
        _named(doc, name)[key] = value

    return edit


def _categories(name: str, values, kind: str | None = None):
    def edit(doc):
        entry = _named(doc, name)["categories"]
        entry["values"] = values(entry["values"]) if callable(values) else values
        if kind is not None:
            entry["kind"] = kind

    return edit


def _pop(path: tuple):
    def edit(doc):
        target = doc["preprocessor"]
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


def _swap_features(doc):
    features = doc["preprocessor"]["features"]
    features[0], features[1] = features[1], features[0]


def _grow(doc):
    """A category and its label added consistently: the model's counts do not know it."""
    city = _named(doc, "city")
    city["categories"]["values"].append("zzz")
    city["labels"].append("zzz")


def _first_id_like(doc):
    return next(iter(doc["preprocessor"]["id_like_imputed"].values()))


MALFORMED = {
    "params not an object": (_set(("params",), None), "params object of the preprocessor"),
    "preprocessor null": (lambda d: d.update(preprocessor=None), "must be a JSON object"),
    "unknown field": (_set(("extra",), 1), "unknown field, 'extra'"),
    "lacks columns": (_pop(("columns",)), "lacks the field 'columns'"),
    "n_bins 1": (_set(("params", "n_bins"), 1), "n_bins must be between"),
    "n_bins true": (_set(("params", "n_bins"), True), "n_bins must be a whole number"),
    "n_bins text": (_set(("params", "n_bins"), "10"), "n_bins must be a whole number"),
    "missing mode": (_set(("params", "missing"), "drop"), "missing must be 'impute'"),
    "params unknown": (_set(("params", "smoother"), "x"), "unknown field, 'smoother'"),
    "categorical numbers": (_set(("params", "categorical"), [1]), "categorical names"),
    "columns repeat": (_set(("columns",), ["age", "age"]), "repeat a name"),
    "columns not text": (_set(("columns",), [1, 2]), "columns must be a list of text"),
    "dropped unknown": (_set(("dropped",), ["nope"]), "drops a column that is not"),
    "n_features_in": (_set(("n_features_in",), 3), "n_features_in must be its number"),
    "n_features_in bool": (_set(("n_features_in",), True), "whole number"),
    "feature_names_in": (_set(("feature_names_in",), ["a"]), "feature_names_in must be"),
    "features empty": (_set(("features",), []), "non-empty list"),
    "features order": (_swap_features, "columns, less the dropped"),
    "feature kind": (_edit_feature("city", "kind", "text"), "of kind 'categorical' or"),
    "feature not object": (_set(("features", 0), "age"), "of kind 'categorical' or"),
    "feature unknown key": (_edit_feature("city", "cuts", [1.0]), "unknown field, 'cuts'"),
    "feature lacks fill": (lambda d: _named(d, "city").pop("fill"), "lacks the field 'fill'"),
    "feature name number": (_edit_feature("city", "name", 3), "must be text"),
    "category kind bool": (_categories("city", [True], "bool"), "must be 'int', 'float' or"),
    # a list or object as a kind raised TypeError (unhashable), past the Explain page's
    # ValueError guard: an error page for a hostile model file
    "category kind list": (_categories("city", ["a"], ["str"]), "must be 'int', 'float' or"),
    "category kind object": (_categories("city", ["a"], {}), "must be 'int', 'float' or"),
    "feature kind list": (_edit_feature("city", "kind", []), "of kind 'categorical' or"),
    "feature kind object": (_edit_feature("city", "kind", {"a": 1}), "of kind 'categorical' or"),
    "int holds text": (_categories("customer_id", lambda v: [str(v[0]), *v[1:]]), "int values"),
    "int holds true": (_categories("customer_id", lambda v: [True, *v[1:]]), "int values"),
    "text holds int": (_categories("city", lambda v: [1, *v[1:]]), "str values"),
    "float holds text": (_categories("score", lambda v: ["x", *v[1:]]), "list of numbers"),
    "float holds true": (_categories("score", lambda v: [False, *v[1:]]), "list of numbers"),
    "categories unsorted": (_categories("city", lambda v: v[::-1]), "increasing order"),
    "categories repeat": (_categories("city", lambda v: [v[0], *v]), "increasing order"),
    "categories empty": (_categories("city", []), "non-empty list"),
    "categories object": (_edit_feature("city", "categories", ["a"]), "must be a JSON object"),
    "cuts unsorted": (_edit_feature("age", "cuts", [50.0, 30.0]), "increasing order"),
    "cuts equal": (_edit_feature("age", "cuts", [30.0, 30.0]), "increasing order"),
    "cuts text": (_edit_feature("age", "cuts", ["30"]), "list of numbers"),
    "cuts true": (_edit_feature("age", "cuts", [True]), "list of numbers"),
    "cuts overflow": (_edit_feature("age", "cuts", [10**400]), "too large for a float"),
    "range three": (_edit_feature("age", "range", [0.0, 1.0, 2.0]), "must be [min, max]"),
    "range inside cuts": (_edit_feature("age", "range", [45.0, 46.0]), "must be [min, max]"),
    "fill too big": (_edit_feature("city", "fill", 99), "do not fit its categories"),
    "fill negative": (_edit_feature("age", "fill", -1), "whole number of at least 0"),
    "fill float": (_edit_feature("age", "fill", 1.0), "whole number of at least 0"),
    "labels one short": (lambda d: _named(d, "city")["labels"].pop(), "do not fit its"),
    "labels numbers": (_edit_feature("grade", "labels", [1, 2, 3, 4, 5]), "list of text"),
    "model n_categories": (_grow, "equal the model's n_categories"),
    "impute lacks one": (lambda d: d["preprocessor"]["impute_values"].pop("age"), "every"),
    "impute unknown": (_set(("impute_values", "nope"), "1"), "unknown field, 'nope'"),
    "impute number": (_set(("impute_values", "age"), 40), "impute values must be text"),
    "impute wrong label": (_set(("impute_values", "city"), "Rome"), "label of its fill code"),
    "id-like unknown": (_set(("id_like_imputed", "age"), {}), "unknown field, 'age'"),
    "id-like key": (lambda d: _first_id_like(d).update(extra=1), "unknown field, 'extra'"),
    "id-like negative": (lambda d: _first_id_like(d).update(missing=-2), "at least 0"),
    "id-like mode": (lambda d: _first_id_like(d).update(mode=3), "mode as text"),
    "category mode imputes": (_set(("params", "missing"), "category"), "do not fit"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_preprocessor_sections_are_one_sentence_errors(good_doc, case):
    edit, words = MALFORMED[case]
    doc = copy.deepcopy(good_doc)
    edit(doc)
    text = json.dumps(doc)
    with pytest.raises(ValueError) as caught:
        pipeline_io.loads(text)
    assert_one_sentence(caught.value)
    assert words in str(caught.value)


def test_the_good_document_loads_and_text_level_refusals(good_doc):
    text = json.dumps(good_doc)
    assert isinstance(pipeline_io.loads(text), Pipeline)
    cut = json.dumps(_feature(good_doc, "numeric")["cuts"][0])
    for bad, words in (
        (text.replace(cut, "NaN", 1), "not a JSON number"),
        (text.replace('"dropped"', '"columns"', 1), "repeats a key"),
    ):
        with pytest.raises(ValueError, match=words) as caught:
            pipeline_io.loads(bad)
        assert_one_sentence(caught.value)
    with pytest.raises(ValueError, match="larger than"):
        pipeline_io.loads(text, max_bytes=len(text) - 1)
    category_mode = copy.deepcopy(good_doc)
    category_mode["preprocessor"]["params"]["missing"] = "category"
    category_mode["preprocessor"]["impute_values"] = {}
    with pytest.raises(ValueError, match="do not fit its categories"):
        pipeline_io.from_dict(category_mode)


def test_a_category_mode_file_imputes_nothing():
    frame, y = mixed_frame(n=100)
    doc = json.loads(pipeline_io.dumps(make_model("laplace", missing="category").fit(frame, y)))
    assert doc["preprocessor"]["impute_values"] == {} == doc["preprocessor"]["id_like_imputed"]
    for field, value in (("impute_values", {"age": "40"}), ("id_like_imputed", {"city": {}})):
        edited = copy.deepcopy(doc)
        edited["preprocessor"][field] = value
        with pytest.raises(ValueError, match="imputes none|unknown field") as caught:
            pipeline_io.from_dict(edited)
        assert_one_sentence(caught.value)
