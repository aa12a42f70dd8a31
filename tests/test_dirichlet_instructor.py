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

import numpy as np
import pytest

from heb.lessons import dirichlet
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")


def _metric(at, label: str):
    found = [m for m in at.metric if m.label == label]
    assert len(found) == 1, [m.label for m in at.metric]
    return found[0]


# ------------------------------------------------------------------ 1: best α at the edge
def test_a_best_alpha_at_the_grids_end_is_named_as_the_edge():
    at = open_lesson(
        "lesson_dirichlet",
        dirichlet_K="2",
        dirichlet_N="5",
        dirichlet_alpha="0.1",
        dirichlet_truth="flat",
    )
    best = _metric(at, "Best α (expected l1)")
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
    best = _metric(at, "Best α (expected l1)")
    assert best.value == f"{dirichlet.dirichlet_lesson(50, 50, 'sparse', 1.0)['best']:.3g}"
    assert not best.delta
