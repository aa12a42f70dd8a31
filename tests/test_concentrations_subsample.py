"""The in-memory Concentrations page says when it learned from a subsample of the rows."""

from __future__ import annotations


def test_concentrations_say_when_they_are_learned_from_a_subsample():
    """An analyst's trial: the large file's Concentrations page says the rows it counted,
    the in-memory one learned from the 20,000-row subsample (Compare's rows) unsaid."""
    from tests.test_app import assert_clean, open_app, open_section, upload_csv, uploader

    at = open_app()
    uploader(at).upload("big.csv", upload_csv(rows=20_500, seed=3), "text/csv").run()
    assert_clean(at)
    at.switch_page("pages/concentrations.py").run()
    assert_clean(at)
    said = [c.value for c in at.caption if "stratified subsample" in c.value]
    assert said == [
        "Learned from a stratified subsample of 20,000 of 20,500 rows (seed 42), the rows "
        'Compare cross-validates; choose "Use every row" under Rows on the Dataset page to '
        "learn from all of them."
    ]
    at.switch_page("pages/dataset.py").run()
    open_section(at, "preprocessing_open").radio(key="w_max_rows").set_value(0).run()
    at.switch_page("pages/concentrations.py").run()
    assert_clean(at)
    assert not [c.value for c in at.caption if "stratified subsample" in c.value]
