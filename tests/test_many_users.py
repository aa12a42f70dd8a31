"""Many sessions at once on the Compare page's work (issue 11, item 11).

Sessions are threads here, as Streamlit serves them: one computation per key (the others
wait for it and share it), at most ``MAX_HEAVY_RUNS`` cross-validations at a time, and a
run whose session has gone stops at its next fold and leaves nothing behind. The
``test_case_<id>`` tests are rows of docs/bad_inputs.md.
"""

from __future__ import annotations

import threading
import time

import pytest

from explorer import comparison as cmp
from heb.data import load_builtin
from heb.evaluate import RunSettings, cross_validate

METHODS = ["Laplace", "HEB-M"]


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Fresh shared state, and cross_validate counted (with its peak concurrency)."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    shared = cmp._Shared()
    monkeypatch.setattr(cmp, "_shared", lambda: shared)
    calls = {"n": 0, "running": 0, "peak": 0}
    lock = threading.Lock()

    def slow_cross_validate(dataset, methods, *, settings, progress):
        with lock:
            calls["n"] += 1
            calls["running"] += 1
            calls["peak"] = max(calls["peak"], calls["running"])
        try:
            time.sleep(0.4)  # long enough for every other thread to arrive meanwhile
            return cross_validate(
                dataset, methods, settings=settings, progress=progress, use_cache=False
            )
        finally:
            with lock:
                calls["running"] -= 1

    monkeypatch.setattr(cmp, "cross_validate", slow_cross_validate)
    return calls


def _in_threads(target, count: int) -> list:
    out: list = [None] * count
    errors: list = []

    def run(index: int) -> None:
        try:
            out[index] = target(index)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return out


def test_case_same_comparison_many_sessions(counted):
    dataset = load_builtin("iris")
    settings = RunSettings(dataset="builtin:iris", n_splits=3)
    fingerprint = dataset.fingerprint()
    out = _in_threads(
        lambda i: cmp.run_comparison(dataset, fingerprint, METHODS, settings), count=6
    )
    assert counted["n"] == 1
    assert len({id(comparison) for comparison, _ in out}) == 1
    assert sorted(from_memory for _, from_memory in out) == [False] + [True] * 5


def test_case_heavy_runs_at_once(counted):
    dataset = load_builtin("iris")
    fingerprint = dataset.fingerprint()
    seeds = range(cmp.MAX_HEAVY_RUNS + 3)  # distinct keys: nothing to share
    _in_threads(
        lambda i: cmp.run_comparison(
            dataset, fingerprint, METHODS, RunSettings(n_splits=3, seed=seeds[i])
        ),
        count=len(seeds),
    )
    assert counted["n"] == len(seeds)
    assert counted["peak"] == cmp.MAX_HEAVY_RUNS


def test_case_closed_session(counted, monkeypatch):
    dataset = load_builtin("iris")
    settings = RunSettings(n_splits=3)
    fingerprint = dataset.fingerprint()
    checks = {"n": 0}

    def gone() -> bool:
        checks["n"] += 1
        return checks["n"] >= 2  # the browser closes after the first fold began

    monkeypatch.setattr(cmp, "session_gone", gone)
    with pytest.raises(cmp.RunCancelled):
        cmp.run_comparison(dataset, fingerprint, METHODS, settings)
    shared = cmp._shared()
    assert not shared.store and not shared.running  # nothing half-stored, no stale claim
    assert shared.slots.acquire(blocking=False)  # the slot came back
    shared.slots.release()
    monkeypatch.setattr(cmp, "session_gone", lambda: False)
    comparison, from_memory = cmp.run_comparison(dataset, fingerprint, METHODS, settings)
    assert not from_memory and comparison.result.n_splits == 3


def test_no_session_means_not_gone():
    assert cmp.session_gone() is False  # outside a server (tests, bare mode) never cancels


def test_a_dropped_connection_keeps_its_run_for_the_grace_period():
    """A websocket that drops and comes back (a loaded machine) does not cancel the run;
    one away for the whole grace period does, once."""
    grace = cmp.DISCONNECT_GRACE_SECONDS
    assert not cmp.disconnected_too_long("s1", False, 100.0)
    assert not cmp.disconnected_too_long("s1", False, 100.0 + grace - 0.01)
    assert not cmp.disconnected_too_long("s1", True, 100.0 + grace + 1)  # reconnected
    assert not cmp.disconnected_too_long("s1", False, 200.0)  # a new absence starts here
    assert not cmp.disconnected_too_long("s2", False, 150.0)  # sessions are apart
    assert cmp.disconnected_too_long("s1", False, 200.0 + grace)
    assert cmp.disconnected_too_long("s2", False, 150.0 + grace)
    assert "s1" not in cmp._DISCONNECTED_SINCE and "s2" not in cmp._DISCONNECTED_SINCE


def test_a_cancelled_run_is_a_notice_not_an_error():
    """A page that lost its connection (and came back after the grace) reads a notice
    saying how to start again, not "Something went wrong"."""
    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from explorer.comparison import RunCancelled
        from explorer.errors import guard

        with guard("cross-validating"):
            raise RunCancelled("Stopped. Rerun the page to start it again.")

    at = AppTest.from_function(page).run()
    assert not at.exception and not at.error
    assert [box.value for box in at.info] == ["Stopped\\. Rerun the page to start it again\\."]


def test_a_shared_figure_is_styled_once_whatever_the_threads():
    """Sessions share cached figures: styling from many threads at once happens once and
    leaves the same figure as styling it alone."""
    import plotly.graph_objects as go

    from explorer import display

    def figure() -> go.Figure:
        return go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"title": {"text": "t"}})

    alone = figure()
    display._style(alone)
    shared = figure()
    calls = {"n": 0}
    real = display._apply_style

    def counting(fig) -> None:
        calls["n"] += 1
        time.sleep(0.05)  # a slow styling: the other threads arrive meanwhile
        real(fig)

    display._apply_style = counting
    try:
        threads = [threading.Thread(target=display._style, args=(shared,)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        display._apply_style = real
    assert calls["n"] == 1
    assert shared.to_plotly_json() == alone.to_plotly_json()


def test_an_unexpected_error_reaches_the_server_log_with_its_traceback(caplog):
    """The visitor reads one sentence and a details box; the server's log keeps the
    traceback (how the load test's one failure was found)."""
    import logging

    from streamlit.testing.v1 import AppTest

    def script():
        from explorer.errors import show_error

        try:
            raise RuntimeError("the fold store broke")
        except RuntimeError as exc:
            show_error(exc, "cross-validating")

    with caplog.at_level(logging.ERROR, logger="explorer.errors"):
        at = AppTest.from_function(script).run(timeout=60)
    assert "Something went wrong while cross-validating" in at.error[0].value
    assert not at.exception
    record = next(r for r in caplog.records if r.name == "explorer.errors")
    assert record.getMessage() == "Unexpected error while cross-validating"
    assert record.exc_info and "the fold store broke" in str(record.exc_info[1])
