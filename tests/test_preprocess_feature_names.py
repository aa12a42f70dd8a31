"""Preprocessor.get_feature_names_out(input_features) as scikit-learn transformers behave,
alone and inside a Pipeline / ColumnTransformer; the column readers' move to their own
module keeps every name importable from heb.data.preprocess."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder

from heb.data import Preprocessor, make_model
from heb.nb import NaiveBayes


def _frame() -> pd.DataFrame:
    """Four columns, "empty" missing in every row (so dropped by fit)."""
    return pd.DataFrame(
        {
            "size": [1.5, 2.5, 3.5, 4.5, 5.5, 6.5],
            "empty": [np.nan] * 6,
            "colour": ["red", "blue", "red", None, "blue", "red"],
            "count": [1, 2, 3, 4, 5, 6],
        }
    )


def test_input_features_equal_to_the_fitted_names_give_the_kept_columns():
    pre = Preprocessor().fit(_frame())
    expected = ["size", "colour", "count"]
    assert pre.get_feature_names_out().tolist() == expected
    named = pre.get_feature_names_out(["size", "empty", "colour", "count"])
    assert named.tolist() == expected
    assert named.dtype == object
    # as many names as transform gives columns
    assert pre.transform(_frame()).shape[1] == named.size


@pytest.mark.parametrize(
    "names",
    [
        ["size", "colour", "count"],  # the output names, not the input ones
        ["colour", "empty", "size", "count"],  # another order
        ["size", "empty", "colour", "other"],
    ],
)
def test_input_features_other_than_the_fitted_names_are_refused(names):
    pre = Preprocessor().fit(_frame())
    with pytest.raises(ValueError, match="input_features must") as caught:
        pre.get_feature_names_out(names)
    assert "\n" not in str(caught.value)


def test_an_array_fit_names_its_kept_columns_from_input_features():
    values = _frame().to_numpy()
    pre = Preprocessor().fit(values)
    assert not hasattr(pre, "feature_names_in_")
    assert pre.get_feature_names_out().tolist() == ["x0", "x2", "x3"]
    named = pre.get_feature_names_out(["p", "q", "r", "s"])
    assert named.tolist() == ["p", "r", "s"]  # q was the empty column
    with pytest.raises(ValueError, match="the 4 columns"):
        pre.get_feature_names_out(["p", "q", "r"])


def test_column_transformer_names_the_kept_columns_of_a_frame():
    frame = _frame()
    ct = ColumnTransformer(
        [
            ("codes", Preprocessor(), ["size", "empty", "colour"]),
            ("hot", OneHotEncoder(sparse_output=False), ["count"]),
        ]
    )
    out = ct.fit_transform(frame)
    names = ct.get_feature_names_out()
    assert names[:2].tolist() == ["codes__size", "codes__colour"]
    assert names.size == out.shape[1]
    # pandas output reads the same names
    frame_out = ct.set_output(transform="pandas").fit_transform(frame)
    assert list(frame_out.columns) == names.tolist()


def test_column_transformer_over_an_array_passes_generated_names():
    ct = ColumnTransformer([("codes", Preprocessor(), [0, 1, 2, 3])])
    ct.fit(_frame().to_numpy())
    assert ct.get_feature_names_out().tolist() == ["codes__x0", "codes__x2", "codes__x3"]


def test_a_pipeline_passes_input_features_through_the_preprocessor():
    frame = _frame()
    y = np.array([0, 1, 0, 1, 0, 1])
    model = make_model("laplace").fit(frame, y)
    assert model[:-1].get_feature_names_out().tolist() == ["size", "colour", "count"]
    with pytest.raises(ValueError, match="feature_names_in_"):
        model[:-1].get_feature_names_out(["a", "b", "c", "d"])
    pipe = make_pipeline(Preprocessor()).fit(frame.to_numpy())
    assert pipe.get_feature_names_out(list("abcd")).tolist() == ["a", "c", "d"]
    both = Pipeline([("pre", Preprocessor()), ("nb", NaiveBayes("laplace"))]).fit(frame, y)
    assert both[0].get_feature_names_out(list(frame.columns)).size == both[1].n_features_in_


def test_the_column_readers_stay_importable_from_preprocess():
    from heb.data import column_values, preprocess

    for name in column_values.__all__:
        assert getattr(preprocess, name) is getattr(column_values, name)
    assert preprocess._format_number is column_values.format_number
    assert preprocess._bin_labels is column_values.bin_labels
