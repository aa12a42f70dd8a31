"""The evidence lesson draws a weekday's bars in the week's order (an analyst's trial).

Step 2 drew zip-codes' weekday bars as Fri, Mon, Sat, Sun, Thu, Tue, Wed: the encoder
(``Preprocessor``) codes a column's distinct values in sorted order. The built-in
zip-codes dataset now states the week's order (an ordered pandas Categorical) and the
lesson draws its bars in a column's stated order; a column that states none keeps the
sorted order (the app does not guess an order from the labels' text). The encoder's own
codes stay sorted: the pipeline file format requires its categories sorted.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from heb.lessons import evidence
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")

WEEK = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def test_ranks_follow_an_ordered_categorical_and_put_other_labels_last():
    labels = sorted(["Fri", "Mon", "Sun", "Tue"]) + ["(missing)"]  # the encoder's order
    ranks = evidence.category_ranks(labels, pd.Index(WEEK), ordered=True)
    assert ranks == (4, 0, 6, 1, 7)
    shown = np.arange(len(labels))
    assert [labels[i] for i in evidence.bar_order(shown, ranks)] == [
        "Mon", "Tue", "Fri", "Sun", "(missing)",
    ]  # fmt: skip
    # only the shown bars (the most frequent), in the stated order
    assert [labels[i] for i in evidence.bar_order(np.array([0, 2, 3]), ranks)] == [
        "Tue", "Fri", "Sun",
    ]  # fmt: skip


def test_an_unordered_column_keeps_the_sorted_order():
    assert evidence.category_ranks(["a", "b"], pd.Index(["b", "a"]), ordered=False) == ()
    np.testing.assert_array_equal(evidence.bar_order(np.array([0, 3, 5])), [0, 3, 5])


def test_zip_codes_states_the_weeks_order():
    from heb.data import load_dataset

    weekday = load_dataset("zip-codes").X["weekday"]
    assert isinstance(weekday.dtype, pd.CategoricalDtype) and weekday.dtype.ordered
    assert list(weekday.dtype.categories) == WEEK


def _pmf_categories(at) -> list[str]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    pmfs = [s for s in specs if "smoothed PMF" in s["layout"].get("title", {}).get("text", "")]
    assert len(pmfs) == 1, [s["layout"].get("title") for s in specs]
    return list(pmfs[0]["data"][0]["x"])


def test_evidence_step_2_draws_the_week_in_order():
    at = open_lesson("lesson_evidence", step="2")  # zip-codes, class no, feature weekday
    assert _pmf_categories(at) == WEEK


def test_evidence_step_2_keeps_an_unordered_columns_sorted_order():
    at = open_lesson("lesson_evidence", step="2", evidence_feature="6")  # channel
    assert _pmf_categories(at) == ["app", "phone", "store", "web"]
