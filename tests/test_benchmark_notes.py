"""The Benchmark page: why a significant Friedman test can stand beside no significant
Nemenyi pair (said exactly then), and the user's upload chosen among its datasets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, upload_csv, uploader  # the app suite's helpers

from explorer.benchmarking import friedman_nemenyi_note
from heb import registry
from heb.evaluate import benchmark_tables

METHODS = ["Laplace", "KT", "HEB-M", "Lidstone", "TE"]
NOTE_START = "Not a contradiction"


def _frame(gap: float, seed: int = 5) -> pd.DataFrame:
    """Five methods' scores on eight datasets, each method ``gap`` better than the last
    on average (every metric column the same numbers)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(8):
        acc = 0.7 + gap * np.linspace(0, 1, len(METHODS)) + rng.normal(0, 0.02, len(METHODS))
        rows += [(f"d{d}", m, 0, a) for m, a in zip(METHODS, acc, strict=True)]
    frame = pd.DataFrame(rows, columns=["dataset", "method", "fold", "accuracy"])
    for metric in registry.METRICS:
        frame[metric] = frame["accuracy"]
    return frame


def _note(frame: pd.DataFrame) -> str | None:
    tables = benchmark_tables(frame, "accuracy")
    return friedman_nemenyi_note(tables["friedman"], tables["pvalues"])


def test_the_note_is_given_exactly_when_friedman_rejects_and_no_pair_does():
    tables = benchmark_tables(_frame(0.02), "accuracy")
    friedman, pvalues = tables["friedman"], tables["pvalues"]
    off = pvalues.to_numpy()[~np.eye(len(pvalues), dtype=bool)]
    assert friedman["p_value"] < 0.05 and (off >= 0.05).all()  # the case itself
    note = friedman_nemenyi_note(friedman, pvalues)
    assert note.startswith(NOTE_START) and "conservative" in note and "10 here" in note
    assert note.count(". ") <= 1  # two sentences
    assert "the Friedman and Iman-Davenport tests ask one question" in note
    # a pair Nemenyi finds: nothing to explain
    strong = benchmark_tables(_frame(0.2), "accuracy")
    assert (strong["pvalues"].to_numpy() < 0.05).any()
    assert friedman_nemenyi_note(strong["friedman"], strong["pvalues"]) is None
    # Friedman does not reject (either form): nothing to explain either
    calm = {"p_value": 0.2, "iman_davenport_p": 0.06}
    assert friedman_nemenyi_note(calm, pvalues) is None
    # only Iman-Davenport rejects: the note names it
    only_f = {"p_value": 0.07, "iman_davenport_p": 0.03}
    assert "the Iman-Davenport test asks" in friedman_nemenyi_note(only_f, pvalues)


def test_beside_the_too_few_datasets_warning_the_note_concludes_nothing():
    """A trial read "add datasets before reading these tests" and, just under it, "Here
    the methods differ overall"."""
    tables = benchmark_tables(_frame(0.02), "accuracy")
    friedman, pvalues = tables["friedman"], tables["pvalues"]
    assert "differ overall" in friedman_nemenyi_note(friedman, pvalues)
    note = friedman_nemenyi_note(friedman, pvalues, too_few=True)
    assert note.startswith(NOTE_START) and "differ overall" not in note
    assert note.endswith(
        "With this few datasets (see the warning above) even the overall test is a weak "
        "guide; more datasets shrink the CD."
    )
    assert note.count(". ") <= 1


@pytest.mark.parametrize(("gap", "shown"), [(0.02, True), (0.2, False)])
def test_the_page_shows_the_note_only_in_that_case(gap, shown):
    at = open_app("pages/benchmark.py", methods=",".join(METHODS))
    frame = _frame(gap)
    at.session_state["benchmark"] = {"key": f"note-test-{gap}", "frame": frame}
    at.run()
    assert_clean(at)
    notes = [box.value for box in at.info if box.value.startswith(NOTE_START)]
    assert len(notes) == (1 if shown else 0)


def test_the_benchmark_chooses_the_users_upload_with_its_target():
    at = open_app()
    uploader(at).upload("shops.csv", upload_csv(), "text/csv").run()
    at.selectbox(key="upload_target").set_value("colour").run()
    spec = at.session_state["data_spec"]
    assert spec.startswith("upload:")
    at.switch_page("pages/benchmark.py").run()
    assert_clean(at)
    chosen = at.multiselect(key="w_bench_datasets").value
    assert chosen[0] == spec and len(chosen) >= 2
    assert at.session_state["uploads"][spec]["target"] == "colour"


def test_an_upload_after_a_visit_joins_the_choice_once():
    """The Benchmark seen first (its choice kept), then an upload: the upload joins the
    kept choice; left out by the user, it stays out."""
    at = open_app("pages/benchmark.py")
    before = list(at.multiselect(key="w_bench_datasets").value)
    assert not any(spec.startswith("upload:") for spec in before)
    at.switch_page("pages/dataset.py").run()
    uploader(at).upload("shops.csv", upload_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    at.switch_page("pages/benchmark.py").run()
    assert at.multiselect(key="w_bench_datasets").value == [spec, *before]
    at.multiselect(key="w_bench_datasets").unselect(spec).run()
    at.switch_page("pages/dataset.py").run()
    at.switch_page("pages/benchmark.py").run()
    assert at.multiselect(key="w_bench_datasets").value == before


def test_heb_h_is_said_to_score_as_heb_m_on_the_benchmark():
    """HEB-H and HEB-M tied at equal ranks with no word why: the benchmark gives HEB-H no
    hierarchy (a declaration is one dataset's), which the page now says."""
    from explorer.benchmarking import unhierarchical_methods

    assert unhierarchical_methods(["Laplace", "HEB-H", "HEB-M", "HEB-AODE"]) == ["HEB-H"]
    assert unhierarchical_methods(["Laplace", "HEB-M"]) == []
    at = open_app("pages/benchmark.py", methods="Laplace,HEB-M,HEB-H")
    said = [c.value for c in at.caption if "without a category hierarchy" in c.value]
    assert said == [
        "HEB\\-H runs here without a category hierarchy (a declaration on the Dataset page "
        "belongs to that dataset's columns), so it scores as HEB-M."
    ]
    plain = open_app("pages/benchmark.py", methods="Laplace,HEB-M")
    assert not [c for c in plain.caption if "without a category hierarchy" in c.value]


def test_the_per_fold_csv_under_a_table_of_means_says_what_it_holds():
    """Compare's first CSV button, under the mean ± sd table, downloads every fold's rows:
    a trial expected the table. Its label says so (the key, and the file, are unchanged)."""
    at = open_app("pages/compare.py", folds="3")
    buttons = {b.proto.label for b in at.get("download_button")}
    assert "Every fold's scores (CSV)" in buttons
