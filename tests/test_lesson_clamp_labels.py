"""The evidence lesson's "clamp" labels stay clear of the lines.

The labels sat at the very top of the plot, where the held-out figure draws its dotted
"uniform guess: log K" line (a presenter's step 3 at 1280 x 720 ran the line through both
labels) and where an evidence curve rising to m_max ends. Each figure's y range now
leaves a quarter of the drawn values' span empty above the highest of them, and the
labels hang from the top of the plot into that room.
"""

from __future__ import annotations

import numpy as np

from heb.figures.lessons.evidence import _LABEL_ROOM, evidence_figure, heldout_figure
from heb.lessons import evidence


def _drawn(fig) -> np.ndarray:
    """Every y value of the figure's traces (lines and points)."""
    return np.concatenate([np.asarray(trace.y, dtype=float) for trace in fig.data])


def _check_room(fig) -> None:
    labels = [a for a in fig.layout.annotations if a.text == "clamp"]
    assert len(labels) == 2
    assert all(a.yref == "paper" and a.y == 1 and a.yanchor == "top" for a in labels)
    values = _drawn(fig)
    low, high = values.min(), values.max()
    bottom, top = fig.layout.yaxis.range
    span = high - low
    # the room above the highest line: a quarter of the span (hand-worked: the range is
    # [low - 0.04 span, high + 0.25 span]), so a label 14 px tall clears the line on a
    # presenter's 120 px plot (0.25 / 1.29 of it is 23 px)
    assert top == high + _LABEL_ROOM * span and _LABEL_ROOM >= 0.25
    assert bottom == low - 0.04 * span


def test_the_heldout_labels_clear_the_log_k_line():
    out = evidence.evidence_lesson(np.array([120.0, 40, 9, 3, 1, 0, 0]), None, 1000.0)
    fig, _ = heldout_figure(out["heldout"], out["marks"], out["heb"], out["heldout_uniform"])
    guess = out["heldout"]["uniform_log_loss"]
    assert guess == _drawn(fig).max()  # the dotted line is the top of the drawing
    _check_room(fig)


def test_an_evidence_curve_rising_to_the_clamp_leaves_room_for_its_label():
    # counts close to the prior mean: l(m) rises all the way to m_max (HEB clamps there)
    counts = np.array([250.0, 250.0, 251.0, 249.0])
    curve = evidence.evidence_curve(counts, np.full(4, 0.25))
    values = np.asarray(curve.log_evidence)
    assert values.argmax() > 0.9 * len(values)  # the curve's top is at its right end
    fig, _ = evidence_figure(curve, "HEB-U", True, m_whatif=1000.0)
    _check_room(fig)
