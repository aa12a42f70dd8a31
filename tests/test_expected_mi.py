"""The plug-in MI's chance level: its exact mean over shuffled labels."""

from __future__ import annotations

import numpy as np
import pytest

from heb.counts import CountTable
from heb.expected_mi import expected_mutual_information
from heb.smoothing import mutual_information


def _table(X: np.ndarray, y: np.ndarray) -> CountTable:
    return CountTable.from_codes(X, y, int(y.max()) + 1)


def test_the_mean_over_shuffles_of_the_labels():
    """Against 3,000 shuffles of the labels: a low-cardinality feature, a code with about
    two rows per value, and a binary one."""
    rng = np.random.default_rng(0)
    rows = 300
    X = np.column_stack(
        [rng.integers(0, 5, rows), rng.integers(0, 150, rows), rng.integers(0, 2, rows)]
    )
    y = rng.integers(0, 3, rows)
    shuffled = np.array([mutual_information(_table(X, rng.permutation(y))) for _ in range(3_000)])
    error = shuffled.std(axis=0) / np.sqrt(len(shuffled))
    expected = expected_mutual_information(_table(X, y))
    assert np.all(np.abs(expected - shuffled.mean(axis=0)) < 4 * error), (expected, error)


def test_an_id_column_scores_the_class_entropy_and_many_rows_the_miller_madow_level():
    """One row per category: the plug-in MI is H(Y) whatever the labels, so its chance
    level is H(Y) (the (K−1)(C−1)/(2N) approximation said 0.50 of H(Y) = 0.69). Many rows
    per category: the approximation holds."""
    rows = 400
    y = np.arange(rows) % 2
    ids = _table(np.arange(rows)[:, None], y)
    assert expected_mutual_information(ids)[0] == pytest.approx(np.log(2), rel=1e-12)
    rng = np.random.default_rng(1)
    big = 20_000
    few = _table(rng.integers(0, 6, big)[:, None], rng.integers(0, 3, big))
    assert expected_mutual_information(few)[0] == pytest.approx(5 * 2 / (2 * big), rel=0.02)


def test_a_missing_category_and_a_feature_with_one_value():
    """A column of one value can tell nothing (0); a category absent from the rows and a
    class absent from a feature's rows add no term and no NaN."""
    X = np.array([[0, 1], [0, 1], [0, 3], [0, 3]])
    y = np.array([0, 1, 0, 1])
    table = CountTable.from_codes(X, y, 3, n_categories=np.array([1, 5]))
    expected = expected_mutual_information(table)
    assert expected[0] == 0.0 and np.isfinite(expected).all()
    # two values of two rows each against two balanced classes: the three tables a
    # shuffle can give (MI log 2, 0, log 2) come with probabilities 1/6, 4/6, 1/6
    assert expected[1] == pytest.approx(np.log(2) / 3, rel=1e-12)
