"""Tests from the mutation pass on the changes for reset rounds, lesson footers, another
target for an upload, kept browser, presenter tables, benchmark links): each fails on a
plausible slip in those lines that the other tests let through."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import assert_clean, open_app, unescape, uploader, url


# ------------------------------------------------------------------ footers of lesson figures
def _footers(monkeypatch) -> list[str]:
    from explorer import display, report

    footers: list[str] = []
    monkeypatch.setattr(display, "view_footer", lambda: footers.append(report.view_footer()) or "")
    return footers


def test_a_lesson_footer_names_the_datasets_preprocessing_and_forgets_it_on_the_next_lesson(
    monkeypatch,
):
    """A lesson drawing from the dataset names its bins and missing-value rule too; the next
    lesson, which draws from none, does not inherit "uses the dataset" from it."""
    footers = _footers(monkeypatch)
    at = open_app("pages/lesson_evidence.py", data="builtin:iris", n_bins="5", missing="category")
    footer = footers[-1]
    assert "dataset=builtin:iris" in footer, footer
    assert "n_bins=5" in footer and "missing=category" in footer, footer
    assert "=None" not in footer, footer
    footers.clear()
    at.switch_page("pages/lesson_dirichlet.py").run()
    assert_clean(at)
    assert footers[-1].startswith("HEB Explorer · lesson=dirichlet"), footers[-1]
    assert "dataset=" not in footers[-1] and "n_bins=" not in footers[-1], footers[-1]


# ------------------------------------------------------------------ reset to defaults
def test_another_pages_reset_leaves_compares_folds_alone():
    """Compare's "also reset" values (folds, what-if values) are Compare's: a reset on a
    lesson afterwards must not put the folds back to 10 behind the user's back."""
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,Lidstone")
    at.segmented_control(key="w_folds").set_value(5).run()
    at.segmented_control(key="w_whatif_alpha").set_value(1.0).run()
    at.switch_page("pages/lesson_dirichlet.py").run()
    at.button(key="reset_page_settings").click().run()
    assert_clean(at)
    assert at.session_state["folds"] == 5 and at.session_state["whatif_alpha"] == 1.0
    assert url(at, "folds") == "5"


# ------------------------------------------------------------------ another target for an upload
def _one_class_upload(before: int) -> AppTest:
    """An upload whose last ``before + 1`` columns have one value each; the column left of
    them has two classes."""
    columns = {"a": [f"v{i % 4}" for i in range(60)], "good": ["p", "q"] * 30}
    columns.update({f"c{i}": "only" for i in range(before)})
    columns["target"] = "only"
    frame = pd.DataFrame(columns)
    at = open_app()
    uploader(at).upload("one_class_many.csv", frame.to_csv(index=False).encode(), "text/csv")
    return at.run()


def test_another_target_is_searched_past_other_one_class_columns():
    """Every column from the right is tried, up to TARGET_CANDIDATES of them, not just the
    column next to the last."""
    from explorer.loading import TARGET_CANDIDATES

    at = _one_class_upload(TARGET_CANDIDATES - 1)  # "good" is the last column tried
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "good"
    assert any("the target is 'good'" in unescape(info.value) for info in at.info)


def test_another_target_is_searched_among_target_candidates_columns_only():
    from explorer.loading import TARGET_CANDIDATES

    at = _one_class_upload(TARGET_CANDIDATES)  # "good" is one column too far
    assert not at.exception
    errors = [unescape(e.value) for e in at.error]
    assert any("'target' has only one class" in e for e in errors), errors


# ------------------------------------------------------------------ notes
def test_a_column_emptied_by_the_subsample_is_still_noted():
    """Only a column empty in the whole file has the loader's note; one that the subsample
    emptied is news and keeps its "Dropped" note."""
    from explorer.summaries import dataset_notes

    dataset = SimpleNamespace(
        notes=[], X=pd.DataFrame({"rare": [None] * 99 + ["x"], "empty": [None] * 100})
    )
    work = SimpleNamespace(
        codes=pd.DataFrame(index=range(50)).to_numpy(),
        n_rows_total=100,
        preprocessor=SimpleNamespace(dropped_=["rare", "empty"]),
    )
    notes = dataset_notes(dataset, work)
    assert "Dropped (entirely missing): rare." in notes, notes


# ------------------------------------------------------------------ kept browser
class _Server:
    """kaleido's kept browser, as far as :mod:`heb.figures.export` looks at it."""

    def __init__(self, alive: bool):
        self._thread = SimpleNamespace(is_alive=lambda: alive)
        self.closed = False

    def is_running(self):
        return not self.closed

    def close(self, silence_warnings=False):
        self.closed = True


def test_a_live_kept_browser_is_not_closed_before_an_export(monkeypatch):
    """Closing a working kept browser would restart Chromium (2-3 s) on every export."""
    import plotly.graph_objects as go

    from heb.figures import export

    server = _Server(alive=True)
    monkeypatch.setattr(export, "_kept_browser", lambda: server)
    monkeypatch.setattr(go.Figure, "to_image", lambda self, **kwargs: b"\x89PNG")
    assert export.to_image_bytes(go.Figure(), fmt="png", keep_browser=True) == b"\x89PNG"
    assert not server.closed


def test_exports_from_two_threads_take_turns(monkeypatch):
    """The kept browser answers one queue: two sessions exporting at once must not overlap."""
    import plotly.graph_objects as go

    from heb.figures import export

    busy, most = [0], [0]

    def to_image(self, **kwargs):
        busy[0] += 1
        most[0] = max(most[0], busy[0])
        time.sleep(0.2)
        busy[0] -= 1
        return b"\x89PNG"

    monkeypatch.setattr(export, "_kept_browser", lambda: None)
    monkeypatch.setattr(go.Figure, "to_image", to_image)
    threads = [threading.Thread(target=export.to_image_bytes, args=(go.Figure(),)) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1


def _asked(monkeypatch) -> list[dict]:
    import heb.figures

    calls: list[dict] = []

    def record(fig, **kwargs):
        calls.append(kwargs)
        return b"\x89PNG"

    monkeypatch.setattr(heb.figures, "to_image_bytes", record)
    return calls


def test_the_apps_downloads_keep_the_browser(monkeypatch):
    import plotly.graph_objects as go

    from explorer import display

    calls = _asked(monkeypatch)
    assert display._image_bytes(go.Figure(), "png", "a footer")() == b"\x89PNG"
    assert calls and calls[0].get("keep_browser") is True, calls


def test_the_cli_exports_keep_the_browser(monkeypatch, tmp_path):
    import plotly.graph_objects as go

    from heb import cli

    calls = _asked(monkeypatch)
    monkeypatch.setattr(cli, "cache_dir", lambda: tmp_path / "cache")
    cli._export_figure(go.Figure(), tmp_path / "fig", lambda line: None)
    assert len(calls) == 2 and all(c.get("keep_browser") is True for c in calls), calls


# ------------------------------------------------------------------ presenter tables
def _presenter_tables() -> AppTest:
    def page() -> None:
        import pandas as pd
        import streamlit as st

        from explorer.display import PRESENTER_TABLE_ROWS, show_table

        st.session_state["present"] = True
        show_table(pd.DataFrame({"at_limit": range(PRESENTER_TABLE_ROWS)}), key="t1")
        show_table(pd.DataFrame({"past_limit": range(PRESENTER_TABLE_ROWS + 1)}), key="t2")
        config = {"configured": st.column_config.ProgressColumn(min_value=0, max_value=9)}
        show_table(pd.DataFrame({"configured": [1, 2]}), column_config=config, key="t3")
        ranks = pd.DataFrame({"rank": [1, 2]}, index=pd.Index(["Laplace", "HEB-M"], name="method"))
        show_table(ranks, hide_index=False, key="t4")

    at = AppTest.from_function(page).run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def presenter_tables() -> AppTest:
    return _presenter_tables()


def test_a_presenter_table_of_presenter_table_rows_is_a_plain_table(presenter_tables):
    tables = [list(t.value.columns) for t in presenter_tables.table]
    grids = [list(d.value.columns) for d in presenter_tables.dataframe]
    assert ["at_limit"] in tables and ["past_limit"] in grids, (tables, grids)


def test_a_presenter_table_with_column_config_keeps_the_grid(presenter_tables):
    """st.table has no column_config: a progress bar or number format would be lost."""
    grids = [list(d.value.columns) for d in presenter_tables.dataframe]
    assert ["configured"] in grids, grids


def test_a_presenter_table_shows_the_index_the_page_asks_for(presenter_tables):
    """Benchmark's tables name the methods in their index (hide_index=False)."""
    hidden = {t.value.columns[0]: t.proto.hide_index for t in presenter_tables.table}
    assert hidden == {"at_limit": True, "rank": False}, hidden


# ------------------------------------------------------------------ benchmark links
def test_a_run_benchmark_is_not_rerun_by_a_new_selection():
    """bench_ran=1 runs a linked benchmark once, in a new session: after a run here, a new
    selection waits for the button (the results say they are for the earlier one)."""
    from test_app import _benchmarked

    at = _benchmarked()
    at.multiselect(key="w_bench_datasets").set_value(["builtin:iris", "builtin:wine"]).run()
    assert_clean(at)
    assert any("earlier selection" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_benchmark_link_with_one_dataset_runs_nothing():
    at = open_app(
        "pages/benchmark.py", methods="Laplace,HEB-M", bench_datasets="builtin:iris", bench_ran="1"
    )
    assert_clean(at)
    assert not at.metric and "benchmark" not in at.session_state
    assert any("at least two datasets" in i.value for i in at.info)


# ------------------------------------------------------------------ reliability view, report
def test_the_reliability_views_default_keeps_the_sidebars_order():
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,KT,HEB-M")
    assert at.multiselect(key="w_reliability_methods").value == ["Laplace", "KT", "HEB-M"]


@pytest.fixture(scope="module")
def small_result():
    from heb.data import load_dataset
    from heb.evaluate import RunSettings, cross_validate

    settings = RunSettings(n_splits=3)
    result = cross_validate(
        load_dataset("builtin:iris"), ["Laplace", "HEB-M"], settings=settings, use_cache=False
    )
    return result, settings


def test_a_report_without_a_target_has_no_empty_target_row(small_result):
    from heb.evaluate.report import comparison_report

    page = comparison_report(*small_result, dataset="iris")
    assert "<td>target</td>" not in page
    assert "<td>target</td><td>species</td>" in comparison_report(
        *small_result, dataset="iris", target="species"
    )


def test_the_report_download_names_the_target(small_result, monkeypatch):
    from streamlit.delta_generator import DeltaGenerator

    from explorer import report

    buttons = {}

    def download_button(self, label, data, **kwargs):
        buttons[label] = data

    monkeypatch.setattr(DeltaGenerator, "download_button", download_button)
    result, settings = small_result
    report.comparison_downloads(result, settings, "iris", lambda: ({}, {}), "code", "species")
    page = buttons["Report (HTML)"]().decode("utf-8")
    assert "<td>target</td><td>species</td>" in page
