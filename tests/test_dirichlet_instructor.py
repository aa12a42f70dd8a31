"""An instructor's trial of the Dirichlet-prior lesson (lesson 2):

- "Best α (expected l1) 10" named the end of the swept grid as best while the expected
  error still fell at α = 10 (K = 2, N = 5, α = 0.1, a flat truth).
- Step 2 put Laplace's prior share (29%) beside the metric's share at the chosen α (4%),
  and the bias of the chosen α in the same sentence.
- A tiny α printed a positive bias as "0.000" (K = 200, N = 1000, α = 0.001), and at
  K = 200 the true p*'s bars could not be seen among the estimates'.
- The lesson never said that Kα is the concentration m and its prior share Kα/(N+Kα) the
  shrinkage ρ = m/(N+m) of the next lessons.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from heb.lessons import dirichlet
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")


def _metric(at, label: str):
    found = [m for m in at.metric if m.label == label]
    assert len(found) == 1, [m.label for m in at.metric]
    return found[0]


def _trial_view():
    """The trial's view: K = 2, N = 5, α = 0.1 on a flat truth."""
    return open_lesson(
        "lesson_dirichlet",
        dirichlet_K="2",
        dirichlet_N="5",
        dirichlet_alpha="0.1",
        dirichlet_truth="flat",
    )


# ------------------------------------------------------------------ 1: best α at the edge
def test_a_best_alpha_at_the_grids_end_is_named_as_the_edge():
    at = _trial_view()
    best = _metric(at, "α minimising expected l1")
    assert best.value == "≥ 10" and best.delta == "edge of the range"
    assert "10 or more" in best.proto.help


def test_best_alpha_text_at_either_end_and_inside():
    alphas = np.array([0.001, 0.1, 10.0])
    falling = {"alpha": alphas, "expected_l1": np.array([0.3, 0.2, 0.1])}
    rising = {"alpha": alphas, "expected_l1": np.array([0.1, 0.2, 0.3])}
    dip = {"alpha": alphas, "expected_l1": np.array([0.3, 0.1, 0.3])}
    assert dirichlet.best_alpha_text(falling, dirichlet.best_alpha(falling))[:2] == (
        "≥ 10",
        "edge of the range",
    )
    assert dirichlet.best_alpha_text(rising, dirichlet.best_alpha(rising))[:2] == (
        "≤ 0.001",
        "edge of the range",
    )
    assert dirichlet.best_alpha_text(dip, dirichlet.best_alpha(dip))[:2] == ("0.1", None)
    assert dirichlet.best_alpha_text(dip, None)[:2] == ("none", None)


def test_an_inside_best_alpha_has_no_edge_note():
    at = open_lesson("lesson_dirichlet")  # K = N = 50, sparse: the best α is inside
    best = _metric(at, "α minimising expected l1")
    assert best.value == f"{dirichlet.dirichlet_lesson(50, 50, 'sparse', 1.0)['best']:.3g}"
    assert not best.delta
    # "Best α (expected l1) 0.126" beside two l1 errors read as an error (an analyst's trial)
    assert "smallest" in best.proto.help and "not an error" in best.proto.help


# ------------------------------------------------------------------ 3: tiny numbers
ZERO = re.compile(r"(?<![\d.])0\.0+(?![\d])")  # "0.000" or "0.0", never "0.0004"


def test_a_tiny_alpha_states_its_bias_in_significant_figures():
    at = open_lesson(
        "lesson_dirichlet", dirichlet_K="200", dirichlet_N="1000", dirichlet_alpha="0.001"
    )
    out = dirichlet.dirichlet_lesson(200, 1000, "sparse", 0.001)
    ceiling = dirichlet.max_bias_l1(200, 1000, 0.001)
    bias = out["sweep"]["bias_l1"][out["at"]]
    assert 3e-4 < ceiling < 5e-4 and 1e-4 < bias < 3e-4  # positive, well below 0.001
    text = [m.value for m in at.markdown if "The l1 bias is largest" in m.value]
    assert len(text) == 1
    assert "= 0.0004 at α = 0.001" in text[0] and "for this p* it is 0.00021." in text[0]
    caption = [c.value for c in at.caption if c.value.startswith("Expected l1 error over")]
    assert len(caption) == 1 and "the l1 size of the bias alone is 0.00021." in caption[0]
    for shown in text + caption + [m.value for m in at.metric]:
        assert not ZERO.search(shown), shown
    assert _metric(at, "Prior's share Kα/(N+Kα)").value == "0.02%"  # 0.2 / 1000.2, not 0%


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0.000"), (0.609445, "0.609"), (0.0123, "0.012"), (3.979e-4, "0.0004"),
     (2.1417e-4, "0.00021"), (2.1e-5, "0.000021")],
)  # fmt: skip
def test_format_l1(value, text):
    assert dirichlet.format_l1(value) == text


@pytest.mark.parametrize(
    ("share", "text"),
    [(0.0, "0%"), (1.0, "100%"), (0.5, "50%"), (0.0385, "4%"), (2e-4, "0.02%"),
     (0.9975, "99.8%"), (0.9999, "99.99%")],
)  # fmt: skip
def test_format_share_is_never_0_or_100_percent_unless_exactly(share, text):
    assert dirichlet.format_share(share) == text


# ------------------------------------------------------------------ 3: the truth at K = 200
@pytest.mark.parametrize(("K", "N"), [(200, 1000), (2, 5), (50, 0)])
def test_the_truth_is_a_line_over_the_estimates_bars(K, N):
    """At K = 200 the true p* was one bar in three per category, 600 slivers: unseen."""
    from heb.figures.lessons.dirichlet import dirichlet_figure

    out = dirichlet.dirichlet_lesson(K, N, "sparse", 0.001 if N else 1.0)
    fig, _ = dirichlet_figure(out["p_true"], out["counts"], out["view"]["estimate"], 1.0)
    names = [trace.name for trace in fig.data]
    truth = fig.data[names.index("true p*")]
    assert truth.type == "scatter" and truth.mode == "lines" and truth.line.width >= 2
    bars = [i for i, trace in enumerate(fig.data) if trace.type == "bar"]
    assert bars and max(bars) < names.index("true p*")  # drawn on top of every bar
    assert "true p*" not in [fig.data[i].name for i in bars]
    # level across each category's whole width, at p*
    x, y = np.asarray(truth.x), np.asarray(truth.y)
    assert truth.line.shape == "hvh" and (x[0], x[-1]) == (0.5, K + 0.5)
    np.testing.assert_allclose(y[1:-1], out["p_true"])
    np.testing.assert_allclose(x[1:-1], np.arange(1, K + 1))
    assert truth.legendrank < min(
        trace.legendrank or 1000 for trace in fig.data if trace is not truth
    )


# ------------------------------------------------------------------ 2: one prior share
def test_step_two_states_the_metrics_prior_share_of_the_chosen_alpha():
    """Step 2 said "29% of its estimate is prior" (Laplace's) beside the metric's 4%."""
    at = _trial_view()
    share = _metric(at, "Prior's share Kα/(N+Kα)").value
    assert share == "4%"  # 0.2 / 5.2
    text = [m.value for m in at.markdown if "The l1 bias is largest" in m.value]
    assert len(text) == 1
    first = text[0].split(". ")[0]  # the sentence on the prior's weight
    assert first.startswith("At α = 0.1 the prior adds Kα = 0.2 phantom counts to N = 5 ")
    assert f": {share} of the estimate is prior" in first
    # Laplace's 29% only as a comparison, named as Laplace's
    assert "(for comparison, Laplace's α = 1 would add K = 2: 29%)" in first
    assert "29% of" not in text[0] and "its estimate" not in text[0]


def test_at_laplace_the_text_names_it_and_makes_no_comparison():
    text = dirichlet.bias_text(50, 50, 1.0, 0.609)
    assert text.startswith("At α = 1 (Laplace) the prior adds K = 50 phantom counts to N = 50")
    assert "50% of the estimate is prior." in text and "comparison" not in text


# ------------------------------------------------------------------ 4: m and ρ
def test_the_lesson_names_m_and_rho_as_the_evidence_lesson_does():
    at = open_lesson("lesson_dirichlet", present="1")  # step 1, as a presenter opens it
    texts = [m.value for m in at.markdown if "m = Kα" in m.value]
    assert len(texts) == 1
    text = texts[0]
    for phrase in (
        "Dirichlet(m t)",
        "**concentration m = Kα**",
        "prior mean t = 1/K",
        "Kα / (N + Kα) is their **shrinkage ρ = m / (N + m)**",
    ):
        assert phrase in text, phrase
    share = _metric(at, "Prior's share Kα/(N+Kα)")
    assert "ρ = m / (N + m)" in share.proto.help and "m = Kα" in share.proto.help
    # the same symbols as the evidence lesson: its prior Dirichlet(m t) and its ρ metric
    evidence = open_lesson("lesson_evidence")
    assert [m for m in evidence.markdown if "Dirichlet(m t)" in m.value]
    assert [m for m in evidence.metric if m.label == "Shrinkage ρ"]
    assert any("ρ = m / (N + m)" in (m.proto.help or "") for m in evidence.metric)
