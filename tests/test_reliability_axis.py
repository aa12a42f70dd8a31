"""The reliability diagrams' confidence axis starts where confidences can be: at 0.5 on two
classes (top-1 probabilities are at least 1 / C), at 0 when some bin below 0.3 holds rows."""

from __future__ import annotations

import numpy as np
import pytest

from heb.figures import reliability_diagram
from heb.figures.lessons.calibration import reliability_figure
from heb.figures.reliability import CONFIDENCE_AXIS_FROM_ZERO, confidence_axis_start
from heb.metrics import reliability


def _curve(n_classes: int, seed: int = 0) -> dict:
    """A reliability curve of random probabilities over ``n_classes`` classes."""
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(n_classes), 2_000)
    return reliability(rng.integers(0, n_classes, 2_000), proba)


@pytest.mark.parametrize(("n_classes", "start"), [(2, 0.5), (3, 0.3), (5, 0.0), (10, 0.0)])
def test_the_axis_starts_at_the_lowest_bin_that_holds_rows(n_classes, start):
    curves = {"Laplace": _curve(n_classes)}
    assert confidence_axis_start(curves) == pytest.approx(start)
    fig = reliability_diagram(curves)
    assert tuple(fig.layout.xaxis.range) == pytest.approx((start, 1.0))
    assert tuple(fig.layout.xaxis2.range) == pytest.approx((start, 1.0))


def test_the_lowest_curve_decides_and_empty_bins_do_not():
    binary, three = _curve(2), _curve(3, seed=1)
    assert confidence_axis_start({"a": binary, "b": three}) == pytest.approx(0.3)
    empty = {**binary, "count": np.zeros_like(binary["count"])}
    assert confidence_axis_start({"a": empty}) == 0.0
    assert confidence_axis_start({"a": empty, "b": binary}) == pytest.approx(0.5)


def test_a_sure_model_still_starts_at_half():
    """No rows below 0.8 (a sure model): the axis still starts at 0.5, not at 0.8."""
    edges = np.linspace(0.0, 1.0, 11)
    curve = {"edges": edges, "count": np.array([0] * 8 + [5, 40])}
    assert confidence_axis_start({"a": curve}) == 0.5


def test_an_edge_just_below_the_threshold_starts_at_zero():
    edges = np.array([0.0, CONFIDENCE_AXIS_FROM_ZERO - 0.01, 0.6, 1.0])
    curve = {"edges": edges, "count": np.array([0, 4, 9])}
    assert confidence_axis_start({"a": curve}) == 0.0


def test_the_lesson_figure_keeps_a_margin_beside_the_start():
    fig, frame = reliability_figure({"1 copy": _curve(2)}, "Two classes")
    assert tuple(fig.layout.xaxis.range) == pytest.approx((0.48, 1.02))
    assert frame["rows"].sum() == 2_000
    fig, _ = reliability_figure({"1 copy": _curve(10)}, "Ten classes")
    assert tuple(fig.layout.xaxis.range) == pytest.approx((0.0, 1.02))


@pytest.mark.parametrize(("data", "said"), [("builtin:zip-codes", True), ("builtin:iris", False)])
def test_compare_says_why_a_binary_axis_starts_at_half(data, said):
    from tests.test_app import open_app

    at = open_app("pages/compare.py", data=data, methods="Laplace,HEB-M", folds="3")
    captions = " ".join(c.value for c in at.caption)
    assert ("The axis starts at 0.5: with two classes" in captions) is said


def _binned(confidence, accuracy, count) -> dict:
    """A ten-bin curve with the given bins filled (the others empty)."""
    edges = np.linspace(0.0, 1.0, 11)
    full = {"confidence": np.full(10, np.nan), "accuracy": np.full(10, np.nan)}
    rows = np.zeros(10)
    for conf, acc, n in zip(confidence, accuracy, count, strict=True):
        b = min(int(conf * 10), 9)
        full["confidence"][b], full["accuracy"][b], rows[b] = conf, acc, n
    return {"edges": edges, "count": rows, **full, "ece": 0.05}


def test_the_accuracy_axis_starts_with_the_confidence_axis():
    """Two classes: the points lie above 0.5, and an accuracy axis from 0 left the plot's
    lower half empty; both axes start at 0.5, the diagonal from corner to corner."""
    curve = _binned([0.55, 0.68, 0.77, 0.93], [0.52, 0.66, 0.8, 0.95], [40, 60, 80, 500])
    fig = reliability_diagram({"Laplace": curve})
    assert tuple(fig.layout.xaxis.range) == pytest.approx((0.5, 1.0))
    assert tuple(fig.layout.yaxis.range) == pytest.approx((0.48, 1.02))


@pytest.mark.parametrize("rows", [40, 2])  # a small bin's grey point is kept in view too
def test_a_point_below_the_start_keeps_its_place_in_view(rows):
    curve = _binned([0.55, 0.77, 0.93], [0.43, 0.8, 0.95], [rows, 80, 500])
    fig = reliability_diagram({"Laplace": curve})
    low, high = fig.layout.yaxis.range
    assert low == pytest.approx(0.38) and high == pytest.approx(1.02)
    points = [trace for trace in fig.data[1:] if trace.type == "scatter"]
    assert all(low < y for trace in points for y in trace.y if y is not None)
    assert min(y for trace in points for y in trace.y if y is not None) == pytest.approx(0.43)


def test_many_classes_keep_both_axes_from_zero():
    fig = reliability_diagram({"Laplace": _curve(10)})
    assert tuple(fig.layout.yaxis.range) == pytest.approx((-0.02, 1.02))
