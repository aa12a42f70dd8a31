"""``heb.diagnostics.concentration_table``: a fitted model's concentrations, named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from heb import AODE, TAN, NaiveBayes
from heb.data import make_model
from heb.diagnostics import concentration_table, name_pairs


def _shop(rows: int = 400, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """A small raw table: a city, a product code with many values, a numeric basket."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "city": rng.choice(["Lyon", "Oslo", "Pune"], rows),
            "product": [f"P{v}" for v in rng.zipf(1.5, rows) % 60],
            "basket": rng.gamma(2.0, 30.0, rows),
        }
    )
    target = pd.Series(np.where(rng.random(rows) < 0.3, "churn", "stay"), name="label")
    return frame, target


def test_a_pipeline_names_its_classes_and_the_preprocessors_features() -> None:
    frame, target = _shop()
    pipe = make_model(smoother="heb-m").fit(frame, target)
    table = concentration_table(pipe)
    raw = pipe[-1].concentrations_
    assert list(table.columns[:4]) == ["class name", "feature name", "class", "feature"]
    assert len(table) == 2 * 3
    assert list(table["class name"]) == ["churn"] * 3 + ["stay"] * 3
    assert list(table["feature name"]) == ["city", "product", "basket"] * 2
    np.testing.assert_array_equal(table["m"], raw["m"])
    np.testing.assert_allclose(table["rho"], table["m"] / (table["N_c"] + table["m"]))
    assert (
        table["N_c"].tolist()
        == [float((target == c).sum()) for c in ("churn",) * 3]
        + [float((target == "stay").sum())] * 3
    )


def test_names_come_from_get_feature_names_out_or_the_frame_or_numbers() -> None:
    frame, target = _shop()
    encoded = make_pipeline(OrdinalEncoder(), NaiveBayes()).fit(frame[["city", "product"]], target)
    assert list(concentration_table(encoded)["feature name"][:2]) == ["city", "product"]
    codes = pd.DataFrame({"a": [0, 1, 2, 0, 1, 2], "b": [1, 1, 0, 0, 1, 0]})
    y = np.array([0, 0, 0, 1, 1, 1])
    assert list(concentration_table(NaiveBayes().fit(codes, y))["feature name"]) == ["a", "b"] * 2
    plain = NaiveBayes().fit(codes.to_numpy(), y)
    assert list(concentration_table(plain)["feature name"]) == ["x0", "x1"] * 2
    given = concentration_table(plain, feature_names=["colour", "size"])
    assert list(given["feature name"]) == ["colour", "size"] * 2
    with pytest.raises(ValueError, match="1 feature names were given for a model of 2 features"):
        concentration_table(plain, feature_names=["colour"])


def test_aode_and_tan_name_the_parent_then_the_child() -> None:
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(300, 3))
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 2
    names = ["p", "q", "r"]
    for model in (AODE(smoother="heb"), TAN(smoother="heb")):
        table = concentration_table(model.fit(X, y), feature_names=names)
        assert list(table.columns[:3]) == ["class name", "parent name", "child name"]
        parents = [names[p] if p >= 0 else "(class only)" for p in table["parent"]]
        assert list(table["parent name"]) == parents
        assert list(table["child name"]) == [names[c] for c in table["child"]]
        assert (table["parent"] != table["child"]).all()


@pytest.mark.parametrize(
    ("model", "words"),
    [
        (NaiveBayes(smoother="te"), "NaiveBayes with smoother='te' learns no concentration"),
        (AODE(smoother="laplace"), "AODE with smoother='laplace' learns no concentration"),
    ],
)
def test_a_smoother_without_concentrations_is_one_sentence(model, words: str) -> None:
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 5)
    y = np.array([0, 1] * 10)
    with pytest.raises(ValueError, match=words):
        concentration_table(model.fit(X, y))


def test_an_unfitted_or_foreign_model_is_refused() -> None:
    with pytest.raises(NotFittedError):
        concentration_table(NaiveBayes())
    with pytest.raises(NotFittedError):
        concentration_table(make_model())
    fitted = LogisticRegression().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(TypeError, match="A LogisticRegression has no learned concentrations"):
        concentration_table(fitted)


def test_name_pairs_keeps_every_number_and_adds_only_names() -> None:
    diagnostics = {"class": np.array([1, 0]), "feature": np.array([0, 1]), "m": np.array([2.5, 7])}
    table = name_pairs(diagnostics, ["no", "yes"], ["f", "g"])
    assert table.to_dict("list") == {
        "class name": ["yes", "no"],
        "feature name": ["f", "g"],
        "class": [1, 0],
        "feature": [0, 1],
        "m": [2.5, 7.0],
    }
