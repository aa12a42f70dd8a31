"""What a practitioner met making quick what-if comparisons on Compare and Benchmark
(trial p): each finding as a test that failed before its fix."""

from __future__ import annotations

from explorer import benchmarking as bench
from tests.test_app import open_app, unescape


# ----------------------------------- Benchmark: Compare's folds and what-if values unused
def test_benchmark_says_compare_what_if_values_are_not_used():
    """Compare's what-if value and folds stay in the session and the link, and the
    Benchmark page, run with neither (10 folds, Lidstone at alpha 0.1), said nothing: a
    "Lidstone" ranked beside Laplace read as Compare's alpha = 1 (which equals Laplace)."""
    at = open_app(
        "pages/benchmark.py",
        folds="5",
        params="Lidstone:alpha=1.0",
        methods="Laplace,Lidstone,HEB-M",
    )
    captions = [unescape(c.value) for c in at.caption]
    assert (
        "Not used here, from Compare: 5 folds and Lidstone's alpha = 1. A benchmark runs 10 "
        "folds, every method at its default (Lidstone's alpha = 0.1)." in captions
    ), captions


def test_benchmark_is_silent_at_the_default_settings():
    at = open_app("pages/benchmark.py", methods="Laplace,Lidstone,HEB-M")
    assert not any("Not used here" in c.value for c in at.caption)
    # a what-if value of a method not chosen is not in the run either
    assert bench.compare_settings_note(10, {}) is None
    assert bench.compare_settings_note(3, {}) == (
        "Not used here, from Compare: 3 folds. A benchmark runs 10 folds, every method at "
        "its default."
    )
