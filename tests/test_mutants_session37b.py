"""Mutation pass over session 37's trial U / V changes: each test kills a mutant that the
session's own tests let live, with values worked out by hand.

- text categories found by value (heb.data.category_lookup, its call in preprocess);
- the mixed-type class-label sentence (heb.estimator);
- the one-bin warning (heb.data.binning.one_bin_message, its call in preprocess);
- the evidence lesson's label room (heb.figures.lessons.evidence._shade_clamp);
- Compare's per-class CSVs (explorer.diagnostics);
- the arrow keys turning pages in the presenter mode only (explorer.routing).
"""

from __future__ import annotations

import json
import re
import subprocess
import warnings

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from heb import NaiveBayes
from heb.data.preprocess import Preprocessor
from tests.peers import require_node

BIG = 2**53  # float64 holds every whole number up to here, not 2**53 + 1


# ------------------------------------------------------------------ categories by value
def test_text_given_as_text_is_matched_exactly_not_by_value():
    """Only numbers given to a text column are looked up by value: the text "01" or "1.0"
    is not the category "1" (ZIP codes "02134" and "2134" are two places)."""
    pre = Preprocessor().fit(pd.DataFrame({"zip": ["1", "2", "x"]}))
    given = pd.DataFrame({"zip": pd.Series(["01", "1.0", "1", "2"], dtype=object)})
    assert pre.transform(given)[:, 0].tolist() == [3, 3, 0, 1]  # 3 = unseen (K = 3)


def test_an_integer_id_beyond_float_precision_is_not_found_by_value():
    """Integer IDs are compared exactly: 2**53 is not the learned 2**53 + 1, though both
    are the same float64."""
    pre = Preprocessor().fit(pd.DataFrame({"id": np.array([BIG + 1, 5, 6], dtype=np.int64)}))
    assert pre.categories_[0] == ["5", "6", str(BIG + 1)]
    given = pd.DataFrame({"id": np.array([BIG, BIG + 1, 5], dtype=np.int64)})
    assert pre.transform(given)[:, 0].tolist() == [3, 2, 0]


def test_a_number_beyond_float_precision_is_not_another_text_id():
    """A text ID "9007199254740993" (2**53 + 1) given the number 2**53 is unseen: read as
    float64 both are 2**53, and the lookup by value took one ID for the other."""
    pre = Preprocessor().fit(pd.DataFrame({"c": [str(BIG + 1), "x", "3"]}))
    assert pre.categories_[0] == ["3", str(BIG + 1), "x"]
    given = pd.DataFrame({"c": np.array([BIG, BIG + 1, 3], dtype=np.int64)})
    assert pre.transform(given)[:, 0].tolist() == [3, 1, 0]  # unseen, exact, by value
    floats = pd.DataFrame({"c": [float(BIG), 3.0, np.nan]})
    assert pre.transform(floats)[:, 0].tolist() == [3, 0, -1]


# ------------------------------------------------------------------ mixed label types
def test_mixed_label_types_are_named_in_alphabetical_order():
    """Four types: any order but the sorted one is a mutant (a set's order is random)."""
    y = np.array(["a", 1, b"b", 2.5], dtype=object)
    with pytest.raises(ValueError, match=r"^y mixes class labels of different types "):
        NaiveBayes().fit(np.zeros((4, 1), dtype=int), y)
    try:
        NaiveBayes().fit(np.zeros((4, 1), dtype=int), y)
    except ValueError as error:
        assert "(bytes, float, int, str)" in str(error), str(error)


# ------------------------------------------------------------------ the one-bin warning
def _one_bin_warnings(column: np.ndarray, n_bins: int) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Preprocessor(n_bins=n_bins).fit(pd.DataFrame({"c": column}))
    return [str(w.message) for w in caught if "quantile bins tie" in str(w.message)]


def _sentence(numbers: int, share: str, value: str, n_bins: int) -> str:
    return (
        f"Column 'c' holds {numbers} different numbers, but {share} of its training rows "
        f"hold {value}, so its {n_bins} quantile bins tie into one and it tells the model "
        "nothing; pass categorical=['c'] to count its values one by one."
    )


def test_the_one_bin_warning_writes_a_fraction_as_itself():
    # 95 rows of 2.5 (the lowest value) and 3..7: 6 numbers, 95 / 100 rows, 5 bins
    column = np.r_[np.full(95, 2.5), [3.0, 4, 5, 6, 7]]
    assert _one_bin_warnings(column, 5) == [_sentence(6, "95%", "2.5", 5)]


def test_the_one_bin_warning_writes_a_large_whole_number_in_full():
    # 95 rows of 1234567 (the highest) and 1..6: 7 numbers, 95 / 101 = 94 %
    column = np.r_[np.full(95, 1234567.0), np.arange(1.0, 7.0)]
    assert _one_bin_warnings(column, 5) == [_sentence(7, "94%", "1234567", 5)]


def test_the_one_bin_warning_counts_the_observed_rows_only():
    # 100 zeros, 10 missing, 1..11: 12 numbers; 100 of the 111 observed rows (90 %), not
    # of all 121 rows (83 %), and the missing cell is no number
    column = np.r_[np.zeros(100), np.full(10, np.nan), np.arange(1.0, 12.0)]
    assert _one_bin_warnings(column, 10) == [_sentence(12, "90%", "0", 10)]


# ------------------------------------------------------------------ the clamp labels' room
def _range_after(drawn) -> tuple | None:
    from heb.figures.lessons.evidence import _shade_clamp

    fig = go.Figure()
    _shade_clamp(fig, np.array([0.01, 1.0, 100.0]), 0.1, 10.0, drawn)
    labels = [a.text for a in fig.layout.annotations]
    assert labels == ["clamp", "clamp"]
    return fig.layout.yaxis.range


def test_a_flat_drawing_gets_room_scaled_by_its_height():
    # one value 5: span max(|5|, 1) = 5, so [5 - 0.2, 5 + 1.25]
    assert _range_after([5.0, 5.0]) == pytest.approx((4.8, 6.25))
    # -0.5: span max(0.5, 1) = 1, so [-0.54, -0.25]
    assert _range_after([-0.5]) == pytest.approx((-0.54, -0.25))


def test_values_that_are_not_finite_do_not_set_the_range():
    # 1 and 3 count: span 2, so [1 - 0.08, 3 + 0.5]
    assert _range_after([np.nan, 1.0, np.inf, 3.0, -np.inf]) == pytest.approx((0.92, 3.5))
    assert _range_after([np.nan]) is None  # nothing to make room above


def test_the_evidence_points_count_in_the_range():
    """HEB's m is l's maximum, above every sampled point of the curve, and a what-if m
    beyond the grid (1e6 > 1e5) lies below its lowest: both bound the y range."""
    from heb.figures.lessons.evidence import evidence_figure
    from heb.lessons import evidence

    curve = evidence.evidence_curve(np.array([120.0, 40, 9, 3, 1, 0, 0]), np.full(7, 1 / 7))
    assert curve.m.max() < 1e6
    fig, _ = evidence_figure(curve, "HEB-U", True, m_whatif=1e6)
    line = np.asarray(fig.data[0].y, dtype=float)
    top = curve.log_evidence_at(curve.m_hat)
    bottom = curve.log_evidence_at(1e6)
    assert top > line.max() and bottom < line.min()
    span = top - bottom
    assert fig.layout.yaxis.range == pytest.approx((bottom - 0.04 * span, top + 0.25 * span))


def test_the_uniform_prior_curve_counts_in_the_heldout_range():
    """Under a prior mean far from the counts (0.94 on a category never seen), Laplace's own
    curve (the uniform prior mean) dips below every other line: the range starts under it."""
    from heb.figures.lessons.evidence import heldout_figure
    from heb.lessons import evidence

    prior = np.r_[np.full(6, 0.01), 0.94]
    out = evidence.evidence_lesson(np.array([120.0, 40, 9, 3, 1, 0, 0]), prior, 1000.0)
    uniform = out["heldout_uniform"]
    assert uniform is not None
    fig, _ = heldout_figure(out["heldout"], out["marks"], out["heb"], uniform)
    lows = {trace.name: float(np.min(trace.y)) for trace in fig.data}
    low = float(np.min(uniform["log_loss"]))
    others = [v for name, v in lows.items() if name != "held-out, uniform t"]
    assert low == lows["held-out, uniform t"] < min(others)  # the lowest line of all
    high = float(np.max(out["heldout"]["log_loss"]))  # the prior's curve at m_max
    span = high - low
    assert fig.layout.yaxis.range == pytest.approx((low - 0.04 * span, high + 0.25 * span))


# ------------------------------------------------------------------ Compare's CSVs
def _per_class_example():
    y = np.array([0, 0, 1, 1, 2, 2])
    # each row's top class at 0.8 + 0.2/3 = 13/15, the other two at 1/15
    proba = np.eye(3)[[0, 1, 1, 1, 2, 0]] * 0.8 + 0.2 / 3
    return y, proba


def test_the_class_reliability_csv_holds_each_bins_numbers():
    from explorer.diagnostics import class_reliability_frame
    from heb.metrics import class_reliability

    y, proba = _per_class_example()
    frame = class_reliability_frame(class_reliability(y, proba), ["a", "b", "c"])
    assert len(frame) == 30  # 10 equal-width bins per class, empty ones too
    filled = frame[frame["rows"] > 0]
    # class a: P(a) = 1/15 in rows 1..4 (row 1 is an a: 1/4), 13/15 in rows 0, 5 (1/2)
    # class b: 1/15 in rows 0, 4, 5 (no b), 13/15 in rows 1..3 (2 of 3 are b)
    # class c: 1/15 in rows 0..3, 5 (row 5: 1/5), 13/15 in row 4 (a c)
    expected = [
        ("a", 0.0, 0.1, 4, 1 / 15, 1 / 4),
        ("a", 0.8, 0.9, 2, 13 / 15, 1 / 2),
        ("b", 0.0, 0.1, 3, 1 / 15, 0.0),
        ("b", 0.8, 0.9, 3, 13 / 15, 2 / 3),
        ("c", 0.0, 0.1, 5, 1 / 15, 1 / 5),
        ("c", 0.8, 0.9, 1, 13 / 15, 1.0),
    ]
    columns = ["class", "bin_low", "bin_high", "rows", "predicted", "observed"]
    got = list(filled[columns].itertuples(index=False, name=None))
    assert [g[:1] + tuple(g[3:4]) for g in got] == [e[:1] + e[3:4] for e in expected]
    np.testing.assert_allclose(
        [g[1:3] + g[4:] for g in got], [e[1:3] + e[4:] for e in expected], atol=1e-12
    )
    # ECE: a = 4/6 * 11/60 + 2/6 * 11/30 = 11/45; b = 3/6 * 1/15 + 3/6 * 1/5 = 2/15;
    # c = 5/6 * 2/15 + 1/6 * 2/15 = 2/15
    ece = frame.groupby("class", sort=False)["ece"].agg(["min", "max"])
    np.testing.assert_allclose(ece["min"], [11 / 45, 2 / 15, 2 / 15], atol=1e-12)
    np.testing.assert_allclose(ece["max"], ece["min"], atol=0)


def test_the_roc_csv_holds_each_point():
    from explorer.diagnostics import roc_frame
    from heb.figures import diagnostics as dg

    y, proba = _per_class_example()
    # class a: 13/15 in rows 0 (an a) and 5 (a c): tpr 1/2, fpr 1/4; then every row.
    # AUC by pairs: 13/15 beats 3 of 4 negatives, ties 1; 1/15 ties 3: (3.5 + 1.5) / 8
    frame = roc_frame({"Laplace": dg.roc_curve(y, proba, 0), "HEB": dg.roc_curve(y, proba, 1)})
    a = frame[frame["method"] == "Laplace"]
    assert a[["fpr", "tpr"]].to_numpy().tolist() == [[0, 0], [0.25, 0.5], [1, 1]]
    assert a["auc"].tolist() == pytest.approx([5 / 8] * 3)
    # class b: 13/15 in rows 1..3 (an a, b, b): tpr 1, fpr 1/4; AUC by pairs: each b
    # (13/15) beats 3 of the 4 negatives and ties row 1: (3.5 + 3.5) / 8
    b = frame[frame["method"] == "HEB"]
    assert b[["fpr", "tpr"]].to_numpy().tolist()[-1] == [1, 1]
    assert [0.25, 1.0] in b[["fpr", "tpr"]].to_numpy().tolist()
    assert b["auc"].tolist() == pytest.approx([7 / 8] * len(b))


# ------------------------------------------------------------------ arrow keys
def _turns(monkeypatch, present: bool, key: str, in_widget: bool) -> list[bool]:
    """[forward, back] as the footer's key handler decides them, run in Node."""
    node = require_node()
    from explorer import routing, state

    monkeypatch.setattr(state, "presenting", lambda: present)
    script = routing._link_and_keys()
    body = re.search(
        r"window\.__hebTurn = \(event\) => \{(.*?)if \(!forward && !back\) return;", script, re.S
    ).group(1)
    program = (
        "const document = {activeElement: {closest: () => "
        + ("({})" if in_widget else "null")
        + "}};\n"
        + f"const event = {{key: {json.dumps(key)}}};\n"
        + body
        + "\nconsole.log(JSON.stringify([forward, back]));"
    )
    out = subprocess.run([node, "-e", program], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    ("present", "key", "in_widget", "expected"),
    [
        (False, "ArrowRight", False, [False, False]),  # a keyboard reader stays on the page
        (False, "ArrowLeft", False, [False, False]),
        (False, "PageDown", False, [True, False]),  # a clicker turns everywhere
        (False, "PageUp", True, [False, True]),
        (True, "ArrowRight", False, [True, False]),  # a presenter's arrows turn
        (True, "ArrowLeft", False, [False, True]),
        (True, "ArrowRight", True, [False, False]),  # not inside a slider or a box
        (True, "ArrowDown", False, [False, False]),
    ],
)
def test_the_arrow_keys_turn_only_for_a_presenter(monkeypatch, present, key, in_widget, expected):
    assert _turns(monkeypatch, present, key, in_widget) == expected
