"""heb.figures.diagnostics against scikit-learn and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from heb.figures import diagnostics as dg
from heb.metrics import auc_ovr


def sample(seed=0, n=500, C=3, ties=False):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(C), size=n)
    if ties:
        proba = np.round(proba, 1)
        proba /= proba.sum(axis=1, keepdims=True)
    y = np.where(rng.random(n) < 0.6, np.argmax(proba, axis=1), rng.integers(0, C, n))
    return y, proba


def test_confusion_matrix_by_hand():
    y = np.array([0, 0, 1, 1, 1, 2])
    proba = np.array([[0.9, 0.1, 0], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.5, 0.3, 0.2],
                      [0.1, 0.2, 0.7], [0.2, 0.2, 0.6]])  # fmt: skip
    expected = [[1, 1, 0], [1, 1, 1], [0, 0, 1]]
    assert dg.confusion_counts(y, proba).tolist() == expected
    scores = dg.class_scores(y, proba, ["a", "b", "c"])
    # class b: 1 hit of 2 predicted, of 3 true rows
    row = scores.set_index("class").loc["b"]
    assert (row["rows"], row["predicted"]) == (3, 2)
    assert row["precision"] == pytest.approx(0.5) and row["recall"] == pytest.approx(1 / 3)
    assert row["F1"] == pytest.approx(2 * 0.5 / 3 / (0.5 + 1 / 3))


@pytest.mark.parametrize("C", [2, 3, 5])
def test_scores_match_sklearn(C):
    y, proba = sample(C=C)
    pred = np.argmax(proba, axis=1)
    labels = list(range(C))
    np.testing.assert_array_equal(
        dg.confusion_counts(y, proba), skm.confusion_matrix(y, pred, labels=labels)
    )
    p, r, f, s = skm.precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    scores = dg.class_scores(y, proba, [str(c) for c in labels])
    np.testing.assert_allclose(scores["precision"], p)
    np.testing.assert_allclose(scores["recall"], r)
    np.testing.assert_allclose(scores["F1"], f)
    np.testing.assert_array_equal(scores["rows"], s)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("drop", [False, True])
def test_roc_matches_sklearn_and_the_auc_metric(ties, drop):
    y, proba = sample(1, C=3, ties=ties)
    aucs = []
    for c in range(3):
        curve = dg.roc_curve(y, proba, c, drop_intermediate=drop)
        fpr, tpr, _ = skm.roc_curve(y == c, proba[:, c], drop_intermediate=drop)
        np.testing.assert_allclose(curve["fpr"], fpr)
        np.testing.assert_allclose(curve["tpr"], tpr)
        assert curve["auc"] == pytest.approx(skm.roc_auc_score(y == c, proba[:, c]), abs=1e-12)
        aucs.append(curve["auc"])
    assert np.mean(aucs) == pytest.approx(auc_ovr(y, proba), abs=1e-12)


def test_roc_of_a_class_without_rows_is_the_diagonal():
    y = np.zeros(4, dtype=int)
    curve = dg.roc_curve(y, np.full((4, 2), 0.5), 1)
    assert curve["auc"] == 0.5 and curve["fpr"].tolist() == [0.0, 1.0]


def test_one_vs_rest_reliability_by_hand():
    y = np.array([0, 1, 1, 0])
    proba = np.array([[0.85, 0.15], [0.15, 0.85], [0.35, 0.65], [0.55, 0.45]])
    curves = dg.class_reliability(y, proba)
    # class 1: bins of 0.15 (not 1), 0.45 (not 1), 0.65 (is 1), 0.85 (is 1)
    ece = (0.15 + 0.45 + 0.35 + 0.15) / 4
    assert curves[1]["ece"] == pytest.approx(ece)
    assert curves[1]["count"].sum() == 4 and len(curves) == 2


def test_figures_escape_names_and_limit_curves():
    y, proba = sample(2, C=10)
    names = [f"<b>c{c}</b>" for c in range(10)]
    fig = dg.confusion_figure(dg.confusion_counts(y, proba), names, "Confusion")
    assert "<b>" not in str(fig.data[0].x)
    rel = dg.class_reliability_figure(dg.class_reliability(y, proba), names, "Reliability")
    assert len(rel.data) == 1 + dg.MAX_CLASS_CURVES
    assert all("<b>" not in trace.name for trace in rel.data)
    roc = dg.roc_figure({"Laplace": dg.roc_curve(y, proba, 0)}, "ROC")
    assert roc.data[1].name.startswith("Laplace (AUC")


def test_confusion_counts_read_with_thousands_separators():
    """4,261 rows in a cell read as the tables write them, on the cell and in its hover."""
    matrix = np.array([[4261, 12], [7, 1503]])
    fig = dg.confusion_figure(matrix, ["no", "yes"], "Confusion")
    heat, counts = fig.data  # the counts: a text trace, black or white by the cell's blue
    assert list(counts.text) == ["4,261", "12", "7", "1,503"]
    assert "rows %{customdata:,d}" in heat.hovertemplate
    np.testing.assert_array_equal(np.asarray(heat.customdata), matrix)


def test_the_confusion_matrix_keeps_its_width_for_the_cells():
    """At four classes in a half-page column the cells held 9 px digits: the colour bar's
    two-line title took the width; it is one word on a slim bar, 40 px of height a class."""
    heat = dg.confusion_figure(np.ones((4, 4), dtype=int), list("abcd"), "C")
    bar = heat.data[0].colorbar
    assert bar.title.text == "share" and bar.thickness == 14
    two = dg.confusion_figure(np.ones((2, 2), dtype=int), list("ab"), "C")
    assert heat.layout.height - two.layout.height == 2 * 40


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="0..C-1"):
        dg.confusion_counts([3], [[0.5, 0.5]])
    with pytest.raises(ValueError, match="finite"):
        dg.roc_curve([0], [[np.nan, 1.0]], 0)
