"""An instructor's trial of the lessons at 1024 x 768 in the presenter mode (session 39d).

- Borrowing along a hierarchy, step 2: the figure drew HEB-M at exactly 0 at codes 1405 and
  1407 (the default setting) with no word of why; the caption that says it is drawn outside
  the presenter mode only. The step's text now says it: those codes have no row in any
  class, so HEB-M's prior mean t̄ (the pooled marginal) is 0 there, and a classifier skips
  them (absent evidence), so the 0 vetoes no class.
- Known truth: the posterior scatter's dots (5 px at opacity 0.45, no outline) were a faint
  haze on a projector, and the PMF error boxes' dots (5 px, the box's own colour over its
  fill) hid inside the boxes. Larger, mostly opaque dots with a white outline now.
- High cardinality, Corollary 1: its half-column plot's axis titles read small; the app's
  figure styling (explorer.display) set every axis title to 17 px and every tick label to
  15 px, whatever a figure asked for, so no figure could make them larger. The styling
  now keeps a figure's larger sizes, and Corollary 1 asks for 18 px titles and 16 px y
  ticks in the ink colour.
- High cardinality: the metrics read "Laplace, K = 500, N = 200 0.867" and "HEB-U 0.728",
  naming no measure, and at 1024 px the first label's two lines beside the second's one
  set the values at two heights. Both now say "mean l1 error"; your (K, N) is in the help.
- Calibration, step 1: a bare dashed line stood at the chosen k with no word of what it
  was; it is labelled "your k = 4", on the side where the rising points leave room.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.display import FIGURE_FONT_SIZE, _apply_style
from heb.counts import CountTable, category_offsets
from heb.figures.lessons import high_cardinality as high_figures
from heb.figures.lessons import known_truth as truth_figures
from heb.figures.style import INK
from heb.lessons import hierarchy
from heb.lessons import high_cardinality as high_lesson
from heb.smoothing import smooth
from tests.test_presenter import open_lesson
from tests.test_trial_v import BODY, contrast

pytestmark = pytest.mark.filterwarnings("ignore")

ZERO = "HEB-M is 0 at "


def _texts(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


# ------------------------------------------------------------------ hierarchy, step 2
def test_hierarchy_step_2_says_why_heb_m_is_exactly_0_at_the_codes_it_names():
    at = open_lesson("lesson_hierarchy", present="1", step="2")
    [text] = [t for t in _texts(at) if ZERO in t]
    out = hierarchy.hierarchy_lesson()  # the page's defaults: 200 rows, seed 0
    table = out["prefix_table"]
    zero = table.loc[table["HEB-M"] == 0, "code"].tolist()
    assert zero == ["1405", "1407"]  # what the figure draws at 0
    assert f"{ZERO}codes 1405 and 1407: no row in any class, so t̄ = 0 there" in text
    assert "a classifier skips such a code: no veto" in text
    # true by the math: no row in any class, and HEB-M's own formula
    # (N_c,v + m t̄_v) / (N_c + m) with t̄ the pooled marginal gives exactly 0 there
    counts = out["counts"]
    columns = [out["labels"].index(code) for code in zero]
    assert counts[:, columns].sum() == 0
    fit = smooth(
        CountTable(counts.sum(axis=1), counts, category_offsets(np.array([counts.shape[1]]))),
        "heb-m",
    )
    m = np.asarray(fit.concentration, dtype=float).reshape(-1)[:, None]
    t_bar = counts.sum(axis=0) / counts.sum()
    theta = (counts + m * t_bar) / (counts.sum(axis=1)[:, None] + m)
    np.testing.assert_allclose(theta, out["estimates"]["heb-m"], rtol=1e-9, atol=1e-15)
    assert (theta[:, columns] == 0).all()
    assert (theta[:, counts.sum(axis=0) > 0] > 0).all()  # and nowhere else


def test_hierarchy_step_2_counts_many_zero_codes_and_is_silent_without_one():
    many = open_lesson("lesson_hierarchy", present="1", step="2", hier_rows="50", hier_seed="3")
    assert hierarchy.hierarchy_lesson(50, seed=3)["unseen"] == [
        "3000", "3002", "3003", "3005", "3007"
    ]  # fmt: skip
    assert any(f"{ZERO}5 of these codes: no row in any class" in t for t in _texts(many))
    none = open_lesson("lesson_hierarchy", present="1", step="2", hier_rows="2000", hier_seed="1")
    assert hierarchy.hierarchy_lesson(2000, seed=1)["unseen"] == []
    assert not [t for t in _texts(none) if ZERO in t]


def test_hierarchy_outside_the_presenter_keeps_one_zero_note_the_caption():
    at = open_lesson("lesson_hierarchy")
    assert not [t for t in _texts(at) if ZERO in t]
    assert [c.value for c in at.caption if c.value.startswith("HEB-M gives codes 1405 and 1407")]


# ------------------------------------------------------------------ known truth
#: the least a projector shows plainly: dots at least this size (px) and opacity
LEGIBLE_DOT, LEGIBLE_OPACITY = 7, 0.75


def _legible(marker) -> None:
    assert marker.size >= LEGIBLE_DOT, marker
    assert (marker.opacity if marker.opacity is not None else 1) >= LEGIBLE_OPACITY, marker
    # an outline sets each dot off from its neighbours (and a box's dots from its fill)
    assert marker.line.width and marker.line.width >= 0.5, marker
    assert marker.line.color == "white", marker


def test_known_truth_posterior_dots_are_legible_on_a_projector():
    rng = np.random.default_rng(0)
    truth = rng.dirichlet([1.0, 1.0], size=200)
    posteriors = {"Laplace": truth[::-1], "HEB-M": np.full_like(truth, 0.5)}
    fig, data = truth_figures.posterior_scatter_figure(truth, posteriors, ["Laplace", "HEB-M"])
    dots = [trace for trace in fig.data if trace.mode == "markers"]
    assert [trace.name for trace in dots] == ["Laplace", "HEB-M"]
    for trace in dots:
        _legible(trace.marker)
    assert list(data.columns) == ["true", "Laplace", "HEB-M"]


def test_known_truth_error_box_dots_stand_out_from_their_boxes():
    errors = pd.DataFrame(
        {"label": ["Laplace"] * 4 + ["HEB-M"] * 4, "l1": np.linspace(0.2, 0.6, 8)}
    )
    fig, _ = truth_figures.pmf_error_figure(errors)
    assert [trace.boxpoints for trace in fig.data] == ["all", "all"]
    for trace in fig.data:
        _legible(trace.marker)


# ------------------------------------------------------------------ high cardinality
def _served_vertex_figure():
    """The Corollary 1 figure as the page draws it: styled by explorer.display."""
    vertex = high_lesson.vertex_errors([2, 5, 10, 20, 50, 100, 200, 500, 1000], 200)
    fig, _ = high_figures.vertex_figure(vertex, 420)
    _apply_style(fig)
    return fig


def test_corollary_1_axis_text_is_large_and_dark_as_served():
    layout = _served_vertex_figure().layout
    for axis in (layout.xaxis, layout.yaxis):
        assert axis.title.font.size >= 18, axis.title
        assert axis.title.font.color == INK and contrast(INK) >= BODY
        assert axis.tickfont.color == INK
    assert layout.yaxis.tickfont.size >= 16
    # the K/N labels keep the app's size: larger, "0.01" met "0.1" at 1024 px
    assert layout.xaxis.tickfont.size == FIGURE_FONT_SIZE - 1


def test_served_figures_keep_the_app_sizes_unless_they_ask_for_larger():
    import plotly.graph_objects as go

    plain = go.Figure(go.Scatter(x=[1, 2], y=[1, 2]))
    small = go.Figure(go.Scatter(x=[1, 2], y=[1, 2])).update_xaxes(tickfont_size=9)
    for fig in (plain, small):
        _apply_style(fig)
        for axis in (fig.layout.xaxis, fig.layout.yaxis):
            assert axis.tickfont.size == FIGURE_FONT_SIZE - 1
            assert axis.title.font.size == FIGURE_FONT_SIZE + 1


# ------------------------------------------------------------------ calibration, step 1
@pytest.mark.parametrize(
    ("chosen", "side"), [(1, "top"), (4, "top"), (8, "bottom"), (10, "bottom")]
)
def test_calibration_names_its_dashed_line_where_the_points_leave_room(chosen, side):
    from heb.figures.lessons.calibration import double_counting_figure

    copies = np.arange(1, 11)
    sweep = {
        "copies": copies,
        "log_odds_scale": 1.3 * copies,
        "ece": 0.02 * copies,
        **{key: np.full(10, 0.5) for key in ("log_loss", "accuracy", "brier", "mean_confidence")},
    }
    fig, _ = double_counting_figure(sweep, chosen)
    [line] = [shape for shape in fig.layout.shapes if shape.line.dash == "dash"]
    assert line.x0 == line.x1 == chosen
    [label] = [note for note in fig.layout.annotations if note.text == f"your k = {chosen}"]
    assert label.x == chosen and label.yanchor == side
    # the points rise with k: the label sits above on the right of a small k and below on
    # the left of a large one, away from them
    assert label.xanchor == ("left" if side == "top" else "right")


def test_the_concentration_heatmap_is_served_at_the_sizes_it_had():
    """Its few-label ticks asked for 16 px, which the old styling cut to 15: they ask for
    the 15 px they were drawn at, so keeping a figure's larger sizes changed nothing there."""
    from heb.figures.concentrations import concentration_heatmap
    from tests.test_figures import diagnostics

    fig = concentration_heatmap(diagnostics(), ["a", "b", "c"], ["x", "y"])
    _apply_style(fig)
    assert fig.layout.xaxis.tickfont.size == fig.layout.yaxis.tickfont.size == 15
    assert FIGURE_FONT_SIZE - 1 == 15


def test_high_cardinality_metrics_name_their_measure_and_keep_k_and_n_in_the_help():
    at = open_lesson("lesson_high_cardinality", present="1", step="1")
    labels = [metric.label for metric in at.metric]
    assert labels == ["Laplace: mean l1 error", "HEB-U: mean l1 error", "HEB-U's reduction"]
    helps = [metric.proto.help for metric in at.metric[:2]]
    for name, text in zip(("Laplace", "HEB-U"), helps, strict=True):
        assert text.startswith(f"{name}'s mean l1 error")
        assert "at your K = 500, N = 200 (the stars in the figure), over 200 draws of p*" in text
