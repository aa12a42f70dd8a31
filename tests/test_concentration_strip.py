"""The paper's Figure 5 scatters on binary features: two x values (one per class) stacked
every pair in two columns; each column's points now spread sideways (a strip plot on the
log axis), each column labelled with its value, the exact x in the hover, and the fitted
line still through the true values."""

from __future__ import annotations

import numpy as np
import pytest

from heb.figures import concentration_scatters
from heb.figures.concentrations import MAX_STRIP_XS, strip_positions


def _diag(n_classes: int, n_features: int, k_f=None) -> dict[str, np.ndarray]:
    pairs = n_classes * n_features
    rng = np.random.default_rng(3)
    n_c = np.repeat(np.linspace(80, 200, n_classes), n_features)
    m = rng.lognormal(1.0, 1.0, pairs)
    return {
        "class": np.repeat(np.arange(n_classes), n_features),
        "feature": np.tile(np.arange(n_features), n_classes),
        "N_c": n_c,
        "K_f": np.full(pairs, 2.0) if k_f is None else np.tile(k_f, n_classes),
        "m": m,
        "rho": m / (n_c + m),
        "clamped": np.array(["none"] * pairs),
        "fallback": np.zeros(pairs, dtype=bool),
    }


def _points(fig):
    return [trace for trace in fig.data if trace.mode == "markers"]


@pytest.mark.parametrize("which", [0, 1])  # m, then rho
def test_binary_features_spread_each_columns_points(which):
    fig = concentration_scatters(_diag(2, 16), [f"f{j}" for j in range(16)])[which]
    (points,) = _points(fig)
    drawn = np.asarray(points.x, dtype=float)
    true = np.asarray([row[4] for row in points.customdata], dtype=float)
    values = np.unique(true)
    assert values.size == 2
    assert np.unique(drawn).size == drawn.size  # no two points drawn on top of another
    # each point within its own column's band: the columns never meet
    left, right = drawn[true == values[0]], drawn[true == values[1]]
    assert left.max() < right.min()
    assert np.abs(np.log10(drawn / true)).max() < 0.5 * np.log10(values[1] / values[0])
    # the columns are labelled with their values, and the axis says what it shows
    assert list(fig.layout.xaxis.tickvals) == pytest.approx(list(values))
    assert list(fig.layout.xaxis.ticktext) == [f"{v:.3g}" for v in values]
    lo, hi = fig.layout.xaxis.range
    assert lo < np.log10(drawn.min()) and np.log10(drawn.max()) < hi
    assert "spread sideways" in fig.layout.xaxis.title.text
    assert "x = %{customdata[4]" in points.hovertemplate


def test_the_fit_goes_through_the_true_x_values():
    """Three classes on binary features: three x values, a strip and a fitted line whose
    slope is that of the true values, not of the jittered ones."""
    diag = _diag(3, 12)
    fig = concentration_scatters(diag, [f"f{j}" for j in range(12)])[0]
    x = np.sqrt(diag["N_c"]) * np.log(diag["K_f"])
    slope = np.polyfit(np.log(x), np.log(diag["m"]), 1)[0]
    (line,) = [trace for trace in fig.data if trace.mode == "lines"]
    assert f"slope {slope:.2f}" in line.name
    assert fig.layout.xaxis.ticktext is not None


def test_many_x_values_keep_the_plain_scatter():
    k_f = np.arange(2, 2 + 8)
    diag = _diag(2, 8, k_f=k_f)
    m_fig, rho_fig = concentration_scatters(diag, [f"f{j}" for j in range(8)])
    (points,) = _points(m_fig)
    true = [row[4] for row in points.customdata]
    assert np.unique(true).size > MAX_STRIP_XS
    np.testing.assert_array_equal(points.x, true)  # drawn where they are
    assert m_fig.layout.xaxis.ticktext is None
    assert "spread sideways" not in m_fig.layout.xaxis.title.text
    assert rho_fig.layout.xaxis.ticktext is not None  # two x values there: a strip


def test_strip_positions_leave_distinct_points_alone():
    assert strip_positions(np.array([1.0, 2.0, 3.0])) is None
    assert strip_positions(np.arange(1.0, 3.0 + MAX_STRIP_XS)) is None
    drawn, values = strip_positions(np.array([5.0, 5.0, 5.0]))
    assert list(values) == [5.0] and np.unique(drawn).size == 3
    again, _ = strip_positions(np.array([5.0, 5.0, 5.0]))
    np.testing.assert_array_equal(drawn, again)  # the same figure on every draw
