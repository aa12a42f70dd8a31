"""What a practitioner met making quick what-if comparisons on Compare and Benchmark
(trial p): each finding as a test that failed before its fix."""

from __future__ import annotations

import numpy as np

from explorer import benchmarking as bench
from explorer import diagnostics
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


# --------------------------------------- Per class: the classes the reliability leaves out
def test_per_class_reliability_names_the_classes_it_does_not_draw(datasets_dir):
    """soybean's 19 classes: the one-vs-rest reliability drew the 8 largest and said
    nothing of the other 11 (the Reliability tab names the methods it leaves out). Needs
    the shared copy of soybean (``datasets_dir`` skips with the reason without it)."""
    at = open_app(
        "pages/compare.py",
        dataset="shared:soybean",
        methods="Laplace,HEB-M",
        compare_tab="Per class",
    )
    notes = [unescape(c.value) for c in at.caption if "not drawn, 11" in unescape(c.value)]
    assert len(notes) == 1, [c.value for c in at.caption]
    note = notes[0]
    assert note.startswith(
        "One-vs-rest reliability: the 8 classes with the most rows are drawn; not drawn, 11: "
    )
    # the largest class is drawn, so not named; the smallest is named
    assert "brown-spot," not in note and "2-4-d-injury" in note


def test_few_classes_draw_every_curve_without_a_note():
    curves = [
        {"accuracy": np.array([0.5]), "count": np.array([10]), "confidence": np.array([0.5])}
    ] * 3
    assert diagnostics.undrawn_note(curves, ["a", "b", "c"]) is None
    many = [
        {"accuracy": np.array([1.0]), "count": np.array([n]), "confidence": np.array([0.5])}
        for n in range(1, 11)
    ]
    names = [f"c{n}" for n in range(1, 11)]
    assert diagnostics.undrawn_note(many, names) == (
        "One-vs-rest reliability: the 8 classes with the most rows are drawn; not drawn, 2: "
        "c1, c2 (their predictions are in the out-of-fold CSV)."
    )


# ------------------------------------------------- Benchmark: one Wilcoxon test, said so
def test_two_methods_wilcoxon_caption_reads_one_test():
    """Two methods make one Wilcoxon test: the caption read "Holm p adjusts for the 1
    tests"."""
    at = open_app(
        "pages/benchmark.py",
        methods="Laplace,HEB-M",
        bench_datasets="builtin:iris,builtin:wine",
        bench_ran="1",
    )
    captions = [unescape(c.value) for c in at.caption if "median diff." in c.value]
    assert captions == [
        "median diff. = HEB-M minus the other method, per dataset (higher is better for "
        "accuracy); Holm p equals p: there is one test."
    ]
