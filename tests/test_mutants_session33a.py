"""Tests that kill the mutants a mutation pass over the CSV and cell exports, the routing
(menu, shell, footer) and the Compare page's comparisons left alive (each test names the
mutant it catches)."""

from __future__ import annotations

import itertools
import threading
import time
from contextlib import contextmanager
from types import SimpleNamespace

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from explorer import comparison as cmp
from explorer import routing
from explorer.exports import MAX_CELL_CHARS, cap_cells, csv_bytes, neutralise_formulas
from tests.test_presenter import APP, TIMEOUT


# --------------------------------------------------------------------------- exports
def test_a_download_and_a_capped_view_leave_the_pages_own_table_as_it_was():
    """``neutralise_formulas`` or ``cap_cells`` working on ``frame`` itself, not a copy: the
    page's table, drawn after its CSV was built, showed quoted text and cut column names."""
    frame = pd.DataFrame({"=total": ["=1+1", "y" * (MAX_CELL_CHARS + 5)], "n": [1, 2]})
    before = frame.copy(deep=True)
    csv_bytes(frame)
    neutralise_formulas(frame)
    cap_cells(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_a_cell_of_exactly_the_longest_length_is_shown_whole():
    """``_cap``'s ``len(value) > limit`` made ``>=``: a 200-character cell or column name
    lost its last character to an ellipsis though it fitted."""
    exact, over = "e" * MAX_CELL_CHARS, "o" * (MAX_CELL_CHARS + 1)
    capped = cap_cells(pd.DataFrame({exact: [exact, over]}))
    assert capped.columns[0] == exact and capped.iloc[0, 0] == exact
    assert capped.iloc[1, 0] == "o" * (MAX_CELL_CHARS - 1) + "…"


def test_a_column_of_mixed_values_is_capped_too():
    """``cap_cells`` capping pandas' string dtype only: a column mixing text and numbers
    (object dtype under pandas 3) sent its huge text to the browser whole."""
    mixed = pd.DataFrame({"note": pd.Series(["z" * 50_000, 7], dtype=object)})
    capped = cap_cells(mixed)
    assert len(capped.iloc[0, 0]) == MAX_CELL_CHARS and capped.iloc[1, 0] == 7


def test_a_category_column_is_capped_too():
    """``cap_cells`` without its categorical branch: a category column (a dataset's
    features are categorical) sent a huge category name to the browser whole."""
    frame = pd.DataFrame({"colour": pd.Categorical(["c" * 50_000, "red"])})
    capped = cap_cells(frame)
    assert len(capped.iloc[0, 0]) == MAX_CELL_CHARS and capped.iloc[1, 0] == "red"


def test_long_column_names_that_would_cap_alike_keep_their_own_names():
    """``cap_cells`` renaming the columns even when two long names cut to the same
    label: the table then had two columns of one name, which it cannot show apart."""
    stem = "n" * MAX_CELL_CHARS
    frame = pd.DataFrame({stem + "_a": ["x"], stem + "_b": ["y"]})
    capped = cap_cells(frame)
    assert list(capped.columns) == [stem + "_a", stem + "_b"]
    assert capped[stem + "_b"].tolist() == ["y"]


# --------------------------------------------------------------------------- routing
def test_the_root_opens_the_dataset_page_and_leaving_the_presenter_brings_the_menu_back():
    """The default page moved off the Dataset page; the session's presenter flag read as
    on whatever its value (no menu after leaving the presenter mode); the menu's section
    captions dropped; the presenter button's two labels swapped."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params[routing.PRESENT] = "1"
    at.run()
    assert at.title[0].value == "Dataset"
    assert at.sidebar.get("page_link") == []
    assert at.button(key="presenter_toggle").label == "Leave presenter mode"
    at.button(key="presenter_toggle").click().run()
    assert at.button(key="presenter_toggle").label == "Presenter mode"
    assert [c.value for c in at.sidebar.caption][: len(routing.SECTIONS)] == list(routing.SECTIONS)
    n_pages = sum(len(entries) for entries in routing.SECTIONS.values())
    assert len(at.sidebar.get("page_link")) == n_pages


def test_outside_the_presenter_mode_the_previous_link_carries_no_step():
    """``page_footer`` giving the "Previous" link ``step=last`` in the normal mode too: the
    previous lesson's address then held a step, where its presenter mode opened at the
    end."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/lesson_dirichlet.py").run()
    links = {link.proto.label: link.proto.query_string for link in at.main.get("page_link")}
    assert links == {"Previous: Zero counts": "", "Next: The evidence curve": ""}


def test_the_loading_note_names_the_page_on_its_first_run_only(monkeypatch):
    """``loading_note`` noting every run (the page not remembered, or the test reversed),
    or naming the page by its address ("Loading lesson_dirichlet") for its title."""
    shown = []

    @contextmanager
    def spinner(text):
        shown.append(text)
        yield

    monkeypatch.setattr(st, "session_state", {})
    monkeypatch.setattr(st, "spinner", spinner)
    compare = SimpleNamespace(url_path="compare", title="Compare")
    lesson = SimpleNamespace(url_path="lesson_dirichlet", title="The Dirichlet prior")
    for page in (compare, compare, lesson, lesson, lesson, compare):
        with routing.loading_note(page):
            pass
    assert shown == [
        f"Loading {title} ..." for title in ("Compare", "The Dirichlet prior", "Compare")
    ]


def test_the_footer_script_has_every_key_and_delay_filled_in():
    """``_link_and_keys`` leaving a placeholder (the race delay, the footer's key) in the
    script, which then named no element or threw, or leaving out the presenter's script
    that fits a step to a short screen."""
    from explorer.presenter import NEXT_STEP_KEY, PREVIOUS_STEP_KEY, fit_step_script

    strip = routing._link_and_keys()
    for placeholder in ("NEXT_STEP_KEY", "PREVIOUS_STEP_KEY", "FOOTER_KEY", "RACE_MS"):
        assert placeholder not in strip
    assert f".st-key-{routing.FOOTER_KEY}" in strip
    assert NEXT_STEP_KEY in strip and PREVIOUS_STEP_KEY in strip
    assert f"Date.now() - leftAt < {routing.HISTORY_RACE_MS}" in strip
    assert strip.endswith(fit_step_script())


@pytest.fixture
def legacy_server(monkeypatch):
    """A session of a real server whose first run Streamlit's legacy ``pages/`` mode
    started in place of ``app.py``; records the shell's calls and the reruns asked for."""
    from streamlit import runtime
    from streamlit.runtime import scriptrunner

    calls: list[str] = []

    class Rerun(Exception):
        pass

    def rerun():
        calls.append("rerun")
        raise Rerun

    server = SimpleNamespace(
        ctx=SimpleNamespace(main_script_path="/srv/app.py"),
        runtime=object.__new__(runtime.Runtime),
        calls=calls,
        Rerun=Rerun,
    )
    monkeypatch.setattr(st, "session_state", {})
    monkeypatch.setattr(st, "rerun", rerun)
    monkeypatch.setattr(scriptrunner, "get_script_run_ctx", lambda *a, **k: server.ctx)
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime.Runtime, "instance", classmethod(lambda cls: server.runtime))
    monkeypatch.setattr(routing, "route", lambda: calls.append("route"))
    monkeypatch.setattr(routing, "app_shell", lambda: calls.append("shell"))
    return server


def test_a_legacy_first_run_reruns_through_the_app_once_per_session(legacy_server):
    """``ensure_entry_point`` not remembering its rerun, or ``_legacy_first_run`` not
    reading that memory: a legacy mode that did not end reran the page for ever."""
    with pytest.raises(legacy_server.Rerun):
        routing.ensure_entry_point()
    assert legacy_server.calls == ["route", "rerun"]
    routing.ensure_entry_point()  # the same session's next run: the shell, no rerun
    assert legacy_server.calls == ["route", "rerun", "shell"]


def test_no_rerun_under_apptests_stand_in_runtime_or_a_page_run_on_its_own(legacy_server):
    """``_legacy_first_run`` without its ``in_a_server`` check (AppTest's mock runtime
    reran every page it switched to) or its ``app.py`` check (``streamlit run
    pages/x.py`` reran a page that is its own entry point)."""
    from streamlit import runtime

    legacy_server.runtime = SimpleNamespace()  # AppTest's stand-in
    routing.ensure_entry_point()
    legacy_server.runtime = object.__new__(runtime.Runtime)
    legacy_server.ctx.main_script_path = "/srv/pages/compare.py"
    routing.ensure_entry_point()
    assert legacy_server.calls == ["shell", "shell"]
    assert routing._LEGACY_RERUN not in st.session_state


def test_a_lessons_caption_counts_the_lessons_only():
    """``lesson_caption`` counting every page of the menu ("Lesson 2 of 13")."""
    assert routing.lesson_caption("pages/lesson_dirichlet.py") == "Lesson 2 of 7"
    assert routing.lesson_caption("lesson_hierarchy.py") == "Lesson 7 of 7"


# --------------------------------------------------------------------------- comparison
@pytest.fixture
def page(monkeypatch):
    """What a waiting session's page shows, by element (``None`` once emptied): the
    elements of ``_wait`` stood in for, a progress bar refusing a value Streamlit refuses."""
    shown: dict[str, object] = {}
    names = itertools.count()

    class Element:
        def __init__(self, name):
            self.name = name

        def info(self, text, **_):
            shown[self.name] = text

        def empty(self):
            shown[self.name] = None

        def progress(self, value, text=None):
            assert 0.0 <= value <= 1.0, value  # st.progress raises on anything else
            shown[self.name] = (value, text)

        def update(self, **settings):
            shown[self.name] = settings

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def status(label, **settings):
        shown["status"] = {"label": label, **settings}
        return Element("status")

    def progress(value, text=None):
        bar = Element("bar")
        bar.progress(value, text)
        return bar

    monkeypatch.setattr(st, "empty", lambda: Element(f"empty{next(names)}"))
    monkeypatch.setattr(st, "status", status)
    monkeypatch.setattr(st, "progress", progress)
    monkeypatch.setattr(cmp, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(cmp, "QUIET_SECONDS", 0.05)
    return shown


def test_a_queued_runs_notice_goes_when_it_starts_and_its_bar_stays_in_range(page):
    """``_drive`` not marking its run started, or ``_wait`` not emptying the "Queued"
    notice then (it stayed above the progress bar to the end); ``_Run.report`` not
    clipping a worker's fraction (1.3 crashed the page's ``st.progress``); a failed run
    shown as done."""
    shared = cmp._Shared()
    for _ in range(cmp.MAX_HEAVY_RUNS):  # every slot taken: this run queues
        shared.slots.acquire()
    run = cmp._Run("key")

    def until(shown, seconds=30.0):  # the page's thread may be slow to draw on a busy box
        deadline = time.monotonic() + seconds
        while not shown() and time.monotonic() < deadline:
            time.sleep(0.01)

    def compute(run):
        run.report(1.3, "fold 3 of 3")
        until(lambda: page.get("bar") == (1.0, "fold 3 of 3"))
        raise ValueError("boom")

    def free_the_slots():  # once the page says the run is queued
        until(lambda: page.get("empty0"))
        shared.slots.release(cmp.MAX_HEAVY_RUNS)

    threading.Thread(target=cmp._drive, args=(shared, run, compute), daemon=True).start()
    freeing = threading.Thread(target=free_the_slots, daemon=True)
    freeing.start()
    cmp._wait(run, True, 2, 5)
    freeing.join()
    assert isinstance(run.error, ValueError)
    assert page["empty0"] is None  # the "Queued" notice, shown, then gone
    assert page["bar"] == (1.0, "fold 3 of 3")
    assert page["status"]["label"] == "Cross-validating 2 methods (5 folds)..."


def test_a_quick_run_that_failed_is_not_shown_done(page):
    """``_wait``'s quick path without ``run.error is None``: a run that failed at once
    showed "Cross-validation done" above its error."""
    run = cmp._Run("key")
    run.error = ValueError("boom")
    run.done.set()
    cmp._wait(run, True, 1, 5)
    assert "done" not in page["status"]["label"] and page["status"].get("state") != "complete"


def test_a_session_waiting_for_anothers_run_clears_its_notice(page):
    """``_wait`` leaving "Another visitor is computing this same comparison" above the
    results once the other session's run ended."""
    run = cmp._Run("key")
    timer = threading.Timer(0.05, run.done.set)
    timer.start()
    cmp._wait(run, False, 1, 5)
    timer.join()
    assert page["empty0"] is None


def test_each_metric_column_points_the_way_better_goes():
    """``metric_column``'s arrows swapped: "Accuracy ↓" told a class that lower is better."""
    columns = [cmp.metric_column(name) for name in ("accuracy", "auc", "log_loss", "ece")]
    assert columns == ["Accuracy ↑", "AUC ↑", "Log-loss ↓", "ECE ↓"]


def test_the_reliability_csv_puts_each_bins_numbers_under_their_own_names():
    """``reliability_frame`` swapping a bin's low and high edges, or its confidence and
    accuracy: the downloaded CSV named them wrongly."""
    curve = {
        "edges": [0.0, 0.5, 1.0],
        "count": [3, 4],
        "confidence": [0.3, 0.8],
        "accuracy": [0.25, 0.9],
        "ece": 0.05,
    }
    frame = cmp.reliability_frame({"HEB-M": curve}, {"HEB-M": 0.07})
    assert frame["bin_low"].tolist() == [0.0, 0.5] and frame["bin_high"].tolist() == [0.5, 1.0]
    assert frame["confidence"].tolist() == [0.3, 0.8]
    assert frame["accuracy"].tolist() == [0.25, 0.9]
    assert frame["count"].tolist() == [3, 4] and frame["method"].tolist() == ["HEB-M"] * 2
    assert frame[cmp.ECE_POOLED].tolist() == [0.05] * 2
    assert frame[cmp.ECE_FOLD_MEAN].tolist() == [0.07] * 2


def test_the_fit_time_column_is_in_milliseconds():
    """``metrics_table`` writing the fit time in seconds under its "fit time (ms)"
    header (12.3 ms shown as 0.0); its ``mean ± std`` cells."""
    from heb import registry

    folds = pd.DataFrame({"method": ["Laplace"] * 3, "fit_time": [0.0100, 0.0123, 0.0146]})
    summary = pd.DataFrame({"method": ["Laplace"], "fit_time_mean": [0.0123]})
    for metric in registry.METRICS:
        summary[f"{metric}_mean"], summary[f"{metric}_std"] = [0.9124], [0.0101]
    table, _ = cmp.metrics_table(SimpleNamespace(summary=lambda: summary, folds=folds))
    assert table["fit time (ms)"].tolist() == ["12.3"]
    assert table[cmp.metric_column("accuracy")].tolist() == ["0.912 ± 0.010"]


@pytest.fixture
def stand_in_runs(monkeypatch):
    """Comparisons without a cross-validation: a run's result is what its ``compute``
    returns; one fresh process-wide store."""
    shared = cmp._Shared()
    monkeypatch.setattr(cmp, "_shared", lambda: shared)
    monkeypatch.setattr(cmp, "Comparison", lambda result, elapsed: SimpleNamespace(result=result))
    return shared


def _finish(shared, key):
    """One session asking for ``key``: from memory, or run to its end here."""
    comparison, run, _ = cmp._join(shared, key, lambda run: None)
    if run is not None:
        cmp._drive(shared, run, lambda run: key)
        cmp._leave(shared, run)
        comparison = run.comparison
    return comparison


def test_memory_drops_the_comparison_looked_at_least_recently(stand_in_runs, monkeypatch):
    """``_join`` not moving a comparison served from memory to the end, or ``_drive``
    dropping the newest one: a what-if value switched back and forth was recomputed."""
    monkeypatch.setattr(cmp, "MEMORY_ENTRIES", 3)
    for key in "abc":
        _finish(stand_in_runs, key)
    _finish(stand_in_runs, "a")  # looked at again
    _finish(stand_in_runs, "d")
    assert list(stand_in_runs.store) == ["c", "a", "d"]


def test_a_cancelled_run_ending_late_leaves_the_new_run_to_be_joined(stand_in_runs):
    """``_drive`` removing whatever run its key holds: a cancelled run whose thread ended
    after a new run for that key began removed the new one, so the next session
    started a second cross-validation of the same comparison."""
    _, first, _ = cmp._join(stand_in_runs, "key", lambda run: None)
    cmp._leave(stand_in_runs, first)  # its only session gone: cancelled
    _, second, started = cmp._join(stand_in_runs, "key", lambda run: None)
    assert started and second is not first
    cmp._drive(stand_in_runs, first, lambda run: "late")
    _, third, started = cmp._join(stand_in_runs, "key", lambda run: None)
    assert third is second and not started


def test_two_datasets_under_the_same_settings_are_two_comparisons(stand_in_runs, page, monkeypatch):
    """``run_comparison`` keying without the dataset's fingerprint (another dataset's
    table served), or saying a comparison came from memory the wrong way round."""
    from heb.evaluate import RunSettings

    monkeypatch.setattr(cmp, "_compute", lambda dataset, *_: lambda run: f"table of {dataset}")
    settings = RunSettings(dataset="upload")
    a, a_from_memory = cmp.run_comparison("A", "a" * 64, ["Laplace"], settings)
    b, b_from_memory = cmp.run_comparison("B", "b" * 64, ["Laplace"], settings)
    again, again_from_memory = cmp.run_comparison("A", "a" * 64, ["Laplace"], settings)
    assert (a.result, b.result) == ("table of A", "table of B") and again is a
    assert (a_from_memory, b_from_memory, again_from_memory) == (False, False, True)


def test_a_run_its_worker_cancelled_is_the_lost_connection_notice(stand_in_runs, page, monkeypatch):
    """``run_comparison`` handing back the cancelled run's missing comparison (``None``,
    which the page then failed on) where it says the run was stopped."""
    from explorer.worker_pool import WorkerCancelled
    from heb.evaluate import RunSettings

    def cancelled(run):
        raise WorkerCancelled("cancelled")

    monkeypatch.setattr(cmp, "_compute", lambda *_: cancelled)
    with pytest.raises(cmp.RunCancelled, match="lost its connection"):
        cmp.run_comparison("A", "a" * 64, ["Laplace"], RunSettings(dataset="upload"))
