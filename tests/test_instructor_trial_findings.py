"""Faults an instructor's trial of the Known truth and High cardinality lessons found.

Known truth, step 2: with the ID-like preset at 200 rows the text said HEB-M's
posteriors were "a flat band" (0.11 to 0.35) and told the blur as HEB-M's, while
Laplace's spanned 0.00 to 0.25, as flat, and HEB-M had the best log-loss. High
cardinality, step 1: "ρ_N = E[m̂/(N+m̂)] is learned from the data": ρ_N is an
expectation; what Type-II ML learns is m̂.
"""

from __future__ import annotations

import pytest

from heb.lessons import known_truth
from tests.test_lesson_text_numbers import _one
from tests.test_presenter import open_lesson

#: the known-truth page's radio option of the ID-like preset, as a link carries it
PRESET = "ID-like features (ZIP codes, user IDs)"


@pytest.fixture(scope="module")
def preset_study() -> dict:
    """The ID-like preset at the lesson's default 200 training rows."""
    return known_truth.known_truth_study(n_train=200, preset="high-cardinality", n_test=10_000)


def test_a_flat_band_shared_with_laplace_is_not_told_as_hebms_alone(preset_study):
    low, high = known_truth.posterior_range(preset_study["posteriors"]["Laplace"])
    true_low, true_high = known_truth.posterior_range(preset_study["true_posterior"])
    assert high - low < known_truth.FLAT_BAND * (true_high - true_low)  # Laplace is flat too
    text = known_truth.blur_text(preset_study, "HEB-M", "in the figure")
    assert "a flat band in the figure" in text
    assert f"so is Laplace's ({low:.2f} to {high:.2f})" in text
    assert text.endswith("the blur is not HEB-M's alone.")
    # Laplace's own sentence does not hold it against itself
    assert "so is Laplace's" not in known_truth.blur_text(preset_study, "Laplace")


def test_the_default_blur_is_still_hebms_own():
    """At the defaults (Dirichlet PMFs) Laplace's posteriors spread: HEB-M's band is its own."""
    text = _one(open_lesson("lesson_known_truth"), "Watch HEB-M")
    assert "a flat band in the *Posteriors* tab." in text and "so is Laplace's" not in text


def test_the_preset_page_names_laplaces_band_too():
    text = _one(open_lesson("lesson_known_truth", truth_kind=PRESET), "Watch HEB-M")
    assert "so is Laplace's" in text


def test_theorem_1s_note_says_what_is_learned():
    """m̂ is learned (Type-II ML); ρ_N = E[m̂/(N+m̂)] is its expectation, not learned."""
    text = _one(open_lesson("lesson_high_cardinality"), "ρ_N = E[m̂/(N+m̂)]")
    assert "is learned from the data" not in text
    assert "Type-II ML" in text


def test_the_grids_table_gives_the_reduction_in_percent_as_the_bars_do():
    """The table read ``reduction`` 0.161 under ``heb_u`` beside the metric's "16%"."""
    at = open_lesson("lesson_high_cardinality")
    tables = [frame.value for frame in at.dataframe]
    assert len(tables) == 1
    table = tables[0]
    assert list(table.columns) == [
        "K",
        "N",
        "K/N",
        "Laplace",
        "HEB-U",
        "reduction %",
    ]
    row = table[(table["K"] == 500) & (table["N"] == 200)].iloc[0]
    shown = at.metric[2].value  # "HEB-U's reduction" at the default K = 500, N = 200
    percent = row["reduction %"]
    assert f"{percent:.0f}%" == shown
