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
