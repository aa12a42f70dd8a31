"""Many sessions at once on the Compare page's work (issue 11, item 11).

Sessions are threads here, as Streamlit serves them, and the cross-validations run in
real worker processes (:mod:`explorer.cv_worker`): one computation per key (the others
wait for it and share it), at most ``MAX_HEAVY_RUNS`` cross-validations at a time, and a
run every waiting session has left is stopped and leaves nothing behind. The worker hands
back what ``cross_validate`` gives in the server (results, progress, errors). The
``test_case_<id>`` tests are rows of docs/bad_inputs.md.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from explorer import comparison as cmp
from explorer import cv_worker, worker_pool
from heb.data import Dataset, load_builtin
from heb.evaluate import RunSettings, cross_validate

METHODS = ["Laplace", "HEB-M"]


@pytest.fixture(autouse=True)
def fresh_pool(monkeypatch):
    """No idle worker of another test (they hold that test's datasets); this test's
    idle workers stopped at its end."""
    idle: list = []
    monkeypatch.setattr(worker_pool, "_IDLE", idle)
    yield
    for worker in list(idle):
        worker_pool._stop(worker)


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Fresh shared state and cache; worker runs counted (with their peak concurrency) and
    the worker processes they used kept. The workers are real: only the counting is added."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    shared = cmp._Shared()
    monkeypatch.setattr(cmp, "_shared", lambda: shared)
    calls = {"n": 0, "running": 0, "peak": 0, "processes": []}
    lock = threading.Lock()
    real_run, real_take = worker_pool.run_in_worker, worker_pool._take_worker

    def counted_run(*args, **kwargs):
        with lock:
            calls["n"] += 1
            calls["running"] += 1
            calls["peak"] = max(calls["peak"], calls["running"])
        try:
            time.sleep(0.4)  # long enough for every other thread to arrive meanwhile
            return real_run(*args, **kwargs)
        finally:
            with lock:
                calls["running"] -= 1

    def kept_take():
        worker = real_take()
        calls["processes"].append(worker.process)
        return worker

    monkeypatch.setattr(worker_pool, "run_in_worker", counted_run)
    monkeypatch.setattr(worker_pool, "_take_worker", kept_take)
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
        thread.join(timeout=180)
    assert not errors, errors
    return out


def _wait_for_runs(shared: cmp._Shared) -> None:
    """Until no run is under way (a cancelled run's thread ends once its worker is dead)."""
    deadline = time.monotonic() + 60
    while shared.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not shared.running


def _cache_files(tmp_path) -> list:
    root = tmp_path / "cache"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_case_same_comparison_many_sessions(counted):
    dataset = load_builtin("iris")
    settings = RunSettings(dataset="builtin:iris", n_splits=3)
    fingerprint = dataset.fingerprint()
    out = _in_threads(
        lambda i: cmp.run_comparison(dataset, fingerprint, METHODS, settings), count=6
    )
    assert counted["n"] == 1 and len(counted["processes"]) == 1
    assert len({id(comparison) for comparison, _ in out}) == 1
    assert sorted(from_memory for _, from_memory in out) == [False] + [True] * 5


def test_case_heavy_runs_at_once(counted):
    dataset = load_builtin("iris")
    fingerprint = dataset.fingerprint()
    seeds = range(cmp.MAX_HEAVY_RUNS + 1)  # distinct keys: nothing to share
    _in_threads(
        lambda i: cmp.run_comparison(
            dataset, fingerprint, METHODS, RunSettings(n_splits=3, seed=seeds[i])
        ),
        count=len(seeds),
    )
    assert counted["n"] == len(seeds)
    assert counted["peak"] == cmp.MAX_HEAVY_RUNS


def test_case_closed_session(counted, monkeypatch, tmp_path):
    """The browser closes once the worker is inside the first fold: the worker is
    stopped, the cache holds nothing of the run (not even a temporary file), the slot
    comes back, and the page opened again computes it afresh."""
    # AODE and HEB-AODE on 64 features: about 0.65 s a fold, 6.5 s in all on a quiet
    # machine (AODE alone, 2.3 s, could end before a loaded server saw the session go)
    dataset = load_builtin("digits")
    settings = RunSettings(n_splits=10)
    fingerprint = dataset.fingerprint()
    shared = cmp._shared()

    def gone() -> bool:
        return any(run.message.startswith("Fold 1") for run in shared.running.values())

    monkeypatch.setattr(cmp, "session_gone", gone)
    with pytest.raises(cmp.RunCancelled):
        cmp.run_comparison(dataset, fingerprint, ["AODE", "HEB-AODE"], settings)
    _wait_for_runs(shared)
    [process] = counted["processes"]
    assert process.poll() == 128 + signal.SIGTERM  # stopped through its clean-up handler
    assert not shared.store
    assert _cache_files(tmp_path) == []  # nothing half-written (nor whole)
    assert shared.slots.acquire(blocking=False)  # the slot came back
    shared.slots.release()
    monkeypatch.setattr(cmp, "session_gone", lambda: False)
    small = RunSettings(n_splits=3)
    comparison, from_memory = cmp.run_comparison(dataset, fingerprint, ["Laplace"], small)
    assert not from_memory and comparison.result.n_splits == 3
    assert counted["n"] == 2


def test_a_run_goes_on_while_one_session_waits(counted, monkeypatch):
    """The session that started a run closes; another one waiting for the same run keeps
    it: the run is not cancelled and the waiting session gets the result."""
    dataset = load_builtin("iris")
    settings = RunSettings(n_splits=3)
    fingerprint = dataset.fingerprint()
    owner = {}

    def gone() -> bool:  # the first session closes once the second has joined its run
        runs = cmp._shared().running.values()
        return threading.get_ident() == owner.get("first") and any(r.waiting > 1 for r in runs)

    monkeypatch.setattr(cmp, "session_gone", gone)

    def session(index: int):
        if index == 0:
            owner["first"] = threading.get_ident()
            try:
                return cmp.run_comparison(dataset, fingerprint, METHODS, settings)
            except cmp.RunCancelled:
                return "cancelled"
        while not cmp._shared().running:  # join once the first session's run exists
            time.sleep(0.01)
        return cmp.run_comparison(dataset, fingerprint, METHODS, settings)

    first, second = _in_threads(session, count=2)
    assert first == "cancelled"
    comparison, from_memory = second
    assert from_memory and comparison.result.methods == METHODS
    assert counted["n"] == 1


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


# ------------------------------------------------------------------ the worker's hand-back
def _in_worker(dataset, methods, settings, progress=None):
    """``run_in_worker`` as the app calls it (the fingerprint folded into the settings)."""
    fingerprint = dataset.fingerprint()
    return worker_pool.run_in_worker(
        dataset,
        fingerprint,
        methods,
        settings.replace(fingerprint=fingerprint),
        progress or (lambda fraction, message: None),
        threading.Event(),
    )


def _same_result(worker, here) -> None:
    timings = ["fit_time", "predict_time"]
    pd.testing.assert_frame_equal(
        worker.folds.drop(columns=timings), here.folds.drop(columns=timings)
    )
    assert worker.methods == here.methods
    for method in here.methods:
        np.testing.assert_array_equal(worker.oof_proba[method], here.oof_proba[method])
    np.testing.assert_array_equal(worker.y, here.y)
    assert worker.classes.dtype == here.classes.dtype
    np.testing.assert_array_equal(worker.classes, here.classes)
    assert (worker.notes, worker.n_splits) == (here.notes, here.n_splits)


def test_the_worker_hands_back_what_cross_validate_gives_here(monkeypatch, tmp_path):
    """Same folds, metrics, out-of-fold probabilities, classes (their type too), notes
    (a subsample and fewer folds than asked) and the same progress messages in order;
    the worker also fills the result cache, so the server's own run then reads it."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    dataset = load_builtin("digits")  # integer classes
    settings = RunSettings(n_splits=4, max_rows=300)
    methods = ["Laplace", "HEB-M", "AODE"]
    seen = []
    worker = _in_worker(dataset, methods, settings, lambda f, m: seen.append((f, m)))
    assert worker.cached == []
    here_seen = []
    here = cross_validate(
        dataset,
        methods,
        settings=settings,
        use_cache=False,
        progress=lambda f, m: here_seen.append((f, m)),
    )
    _same_result(worker, here)
    assert any("subsample" in note.lower() or "rows" in note for note in here.notes)
    assert seen == here_seen and seen[-1] == (1.0, "Done")
    again = cross_validate(dataset, methods, settings=settings)
    assert again.cached == methods  # stored by the worker, in the server's cache
    _same_result(again, here)


def test_a_run_ends_when_the_worker_answers_not_at_the_next_cancel_poll(monkeypatch, tmp_path):
    """The wait for the worker joins its reader: with a cancel poll of a minute, a run
    that the worker's cache answers still comes back at once (a 0.1 s poll had cost
    every what-if change up to 0.1 s)."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(worker_pool, "CANCEL_POLL_SECONDS", 60.0)
    dataset = load_builtin("iris")
    settings = RunSettings(n_splits=3)
    _in_worker(dataset, ["Laplace"], settings)
    start = time.perf_counter()
    again = _in_worker(dataset, ["Laplace"], settings)
    assert again.cached == ["Laplace"]
    assert time.perf_counter() - start < 30.0


def test_text_classes_come_back_as_text(monkeypatch, tmp_path):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    dataset = load_builtin("iris")
    settings = RunSettings(n_splits=3)
    here = cross_validate(dataset, METHODS, settings=settings, use_cache=False)
    _same_result(_in_worker(dataset, METHODS, settings), here)


def test_a_clear_error_in_the_worker_is_its_own_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="^Unknown method 'No-such'; choose from Laplace"):
        _in_worker(load_builtin("iris"), ["No-such"], RunSettings(n_splits=3))


def test_an_unexpected_error_in_the_worker_reaches_the_log_and_the_user(
    counted, monkeypatch, caplog
):
    """A request the worker cannot read (a description without its categorical list): the
    worker's traceback is in the server's log, the visitor reads one sentence and the
    error's type and text in the details box."""
    import logging

    real = cv_worker.describe

    def broken(dataset, fingerprint, sent):
        described = real(dataset, fingerprint, sent)
        del described["categorical"]
        return described

    monkeypatch.setattr(cv_worker, "describe", broken)
    dataset = load_builtin("iris")
    with caplog.at_level(logging.ERROR, logger="explorer.worker_pool"):
        with pytest.raises(cv_worker.WorkerError, match="^KeyError: 'categorical'$"):
            cmp.run_comparison(dataset, dataset.fingerprint(), METHODS, RunSettings(n_splits=3))
    logged = [r.getMessage() for r in caplog.records if r.name == "explorer.worker_pool"]
    assert len(logged) == 1
    assert "Traceback (most recent call last)" in logged[0] and "in read_dataset" in logged[0]
    assert not cmp._shared().running and not cmp._shared().store

    from streamlit.testing.v1 import AppTest

    def page() -> None:
        from explorer.cv_worker import WorkerError
        from explorer.errors import guard

        with guard("cross-validating"):
            raise WorkerError("KeyError: 'categorical'")

    at = AppTest.from_function(page).run(timeout=60)
    assert at.error[0].value.startswith("Something went wrong while cross-validating.")
    assert at.code[0].value == "WorkerError: KeyError: 'categorical'"


def test_a_dataset_parquet_cannot_hold_runs_in_the_server(counted, monkeypatch):
    """A column of mixed Python types cannot travel as parquet: that comparison is
    cross-validated in the server, as before the worker, with the same result."""
    base = load_builtin("iris")
    X = base.X.copy()
    X["mixed"] = pd.Series([1, "a", 2.5] * 50, dtype=object)
    dataset = Dataset(base.name, X, base.y, ["mixed"], base.source)
    with pytest.raises(cv_worker.HandoverError):
        cv_worker.write_dataset(dataset, Path(tempfile.mkdtemp()))
    settings = RunSettings(n_splits=3)
    comparison, from_memory = cmp.run_comparison(dataset, dataset.fingerprint(), METHODS, settings)
    assert not from_memory and counted["n"] == 1
    [process] = counted["processes"]  # taken, given nothing, and kept for the next run
    assert process.poll() is None and [w.process for w in worker_pool._IDLE] == [process]
    here = cross_validate(dataset, METHODS, settings=settings, use_cache=False)
    _same_result(comparison.result, here)


def test_a_what_if_run_reuses_the_worker_and_its_dataset(counted, monkeypatch):
    """A second run on the same data (a what-if change) goes to the same worker, which
    already holds the dataset (not sent again), and gives what the server would."""
    sent = []
    real = cv_worker.describe

    def recorded(dataset, fingerprint, was_sent):
        sent.append(was_sent)
        return real(dataset, fingerprint, was_sent)

    monkeypatch.setattr(cv_worker, "describe", recorded)
    dataset = load_builtin("wine")
    fingerprint = dataset.fingerprint()
    for alpha in (1.0, 0.5):
        settings = RunSettings(n_splits=3, overrides={"Lidstone": {"alpha": alpha}})
        comparison, _ = cmp.run_comparison(dataset, fingerprint, ["Lidstone"], settings)
    assert sent == [True, False]
    first, second = counted["processes"]
    assert first is second and first.poll() is None
    here = cross_validate(dataset, ["Lidstone"], settings=settings, use_cache=False)
    _same_result(comparison.result, here)


def test_a_stored_comparison_is_read_without_a_worker(counted):
    """A comparison the result cache holds whole is read in the server (a first visitor
    waited ~0.5 s for the worker's handover), and equals the computed one."""
    dataset = load_builtin("wine")
    settings = RunSettings(n_splits=3)
    computed = cross_validate(dataset, METHODS, settings=settings)  # stored on disk
    comparison, from_memory = cmp.run_comparison(dataset, dataset.fingerprint(), METHODS, settings)
    assert counted["n"] == 0 and not from_memory
    _same_result(comparison.result, computed)


def test_a_worker_whose_server_goes_stops_by_itself(monkeypatch, tmp_path):
    """The server dies mid-run (both pipes close): the worker stops at its next progress
    message, leaving nothing in the cache, not even a temporary file."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    dataset = load_builtin("digits")
    folder = tmp_path / "run"
    folder.mkdir()
    cv_worker.write_dataset(dataset, folder)
    settings = RunSettings(n_splits=10).replace(fingerprint=dataset.fingerprint())
    described = cv_worker.describe(dataset, dataset.fingerprint(), sent=True)
    cv_worker.write_request(folder, ["AODE"], settings, described)
    process = worker_pool._start_worker().process
    process.stdin.write(f"{folder}\n")
    process.stdin.flush()
    for line in process.stdout:  # until the first fold is under way
        if json.loads(line).get("message", "").startswith("Fold 1"):
            break
    process.stdin.close()
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    assert _cache_files(tmp_path) == []
    assert not (folder / cv_worker.RESULT_FOLDER).exists()


def test_a_worker_computes_on_one_thread():
    """Its OpenMP and BLAS pools hold one thread: the live worker's environment, given to
    a fresh interpreter that loads scikit-learn's pools and counts their threads."""
    if not Path("/proc/self/environ").exists():
        pytest.skip("reads the worker's environment from /proc (Linux)")
    worker = worker_pool._start_worker()
    try:
        code = (
            "import json, sys; from threadpoolctl import threadpool_info; "
            "import sklearn.ensemble; "
            "print(json.dumps(sorted({p['num_threads'] for p in threadpool_info()})))"
        )
        proc = Path(f"/proc/{worker.process.pid}")
        for _ in range(100):  # its exec may still be under way: /proc shows it empty
            if b"cv_worker" in (proc / "cmdline").read_bytes():
                break
            time.sleep(0.05)
        env = (proc / "environ").read_bytes().split(b"\0")
        inherited = dict(item.decode().split("=", 1) for item in env if b"=" in item)
        shown = subprocess.run(
            [sys.executable, "-c", code], env=inherited, capture_output=True, text=True
        )
        assert json.loads(shown.stdout) == [1], shown.stderr
    finally:
        worker.process.kill()
        worker.process.wait()


def test_a_worker_keeps_its_two_most_recently_used_datasets():
    """remember() is the list both ends of the pipe keep: a dataset used again becomes the
    newest, and a third one drops the least recently used."""
    kept: OrderedDict = OrderedDict()
    for fingerprint in ("a", "b", "a", "c"):
        cv_worker.remember(kept, fingerprint, fingerprint.upper())
    assert list(kept.items()) == [("a", "A"), ("c", "C")]
    assert cv_worker.KEPT_DATASETS == 2


def test_a_dataset_changed_on_its_way_to_the_worker_is_refused(tmp_path):
    """The worker compares the dataset it read with the fingerprint the server sent."""
    dataset = load_builtin("iris")
    cv_worker.write_dataset(dataset, tmp_path)
    described = cv_worker.describe(dataset, "0" * 64, sent=True)
    cv_worker.write_request(tmp_path, METHODS, RunSettings(n_splits=3), described)
    kept: OrderedDict = OrderedDict()
    with pytest.raises(cv_worker.HandoverError, match="changed on its way"):
        cv_worker._work(tmp_path, lambda message: None, kept)
    assert not kept and not (tmp_path / cv_worker.RESULT_FOLDER).exists()


def test_a_failed_run_gives_its_slot_back():
    """Each run's thread returns its run slot however it ends, so the server never runs
    out of slots (the next run would queue for ever)."""
    shared = cmp._Shared()

    def fail(run):
        raise ValueError("no such method")

    for index in range(cmp.MAX_HEAVY_RUNS):
        run = cmp._Run(f"key{index}")
        cmp._drive(shared, run, fail)
        assert run.done.is_set() and isinstance(run.error, ValueError) and not shared.running
    assert all(shared.slots.acquire(blocking=False) for _ in range(cmp.MAX_HEAVY_RUNS))


def test_an_idle_worker_beyond_the_bound_is_stopped_oldest_first():
    """Given back beyond MAX_IDLE_WORKERS, the oldest idle worker is stopped, not left
    running outside the pool (stand-in processes that wait on their stdin as workers do)."""
    waiting = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    workers = [
        worker_pool._Worker(
            subprocess.Popen(waiting, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        )
        for _ in range(worker_pool.MAX_IDLE_WORKERS + 1)
    ]
    try:
        for worker in workers:
            worker_pool._give_back(worker)
        assert worker_pool._IDLE == workers[1:]
        assert workers[0].process.poll() is not None
        assert all(worker.alive() for worker in workers[1:])
    finally:
        worker_pool._stop(workers[0])


def test_a_session_arriving_after_a_cancel_starts_a_new_run():
    """A run cancelled (its last session gone) but not yet ended is not joined: the next
    session to ask starts a run of its own instead of waiting for one that stops."""
    shared = cmp._Shared()
    started: list = []
    _, run, first = cmp._join(shared, "key", started.append)
    run.cancelled.set()
    _, again, second = cmp._join(shared, "key", started.append)
    assert first and second and again is not run and started == [run, again]
    assert shared.running["key"] is again and not again.cancelled.is_set()


def test_a_fresh_workers_rehearsal_writes_nothing_and_warms_the_engine(monkeypatch, tmp_path):
    """The worker's rehearsal cross-validates every rehearsed method once, without the
    result cache (nothing written: no run of a visitor can read a made-up result)."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    seen = []
    real = cv_worker.cross_validate

    def recorded(dataset, methods, settings, use_cache=True, **kwargs):
        seen.append((dataset.name, list(methods), use_cache))
        return real(dataset, methods, settings=settings, use_cache=use_cache, **kwargs)

    monkeypatch.setattr(cv_worker, "cross_validate", recorded)
    cv_worker.rehearse()
    assert seen == [("rehearsal", list(cv_worker.REHEARSED_METHODS), False)]
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.*"))


def test_only_the_spare_worker_rehearses(monkeypatch):
    """The spare worker started ahead of any run rehearses; one a waiting run starts does
    not (it would make that run wait for the rehearsal)."""
    started = []

    class Process:
        def __init__(self, args, **kwargs):
            started.append(args)

        def poll(self):
            return None

    monkeypatch.setattr(worker_pool.subprocess, "Popen", Process)
    worker_pool.start_spare_worker()
    worker_pool._IDLE.clear()  # a run takes it, none is left idle
    worker_pool._take_worker()
    assert [args[3:] for args in started] == [[cv_worker.REHEARSE_FLAG], []]
