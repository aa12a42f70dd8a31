"""Tests from the mutation pass on cede10a (the what-if speed-ups): the existence check of
``cached_cross_validation``, the reader join of ``run_in_worker`` and the lazily built
``Comparison.reliability_fig``. Each test kills mutants the older tests let live."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from explorer import comparison as cmp
from explorer import cv_worker, worker_pool
from heb.data import load_builtin
from heb.evaluate import ResultCache, RunSettings, cached_cross_validation, cross_validate
from heb.figures.style import escape, method_label

# ------------------------------------------------------------------ cached_cross_validation


@pytest.fixture(scope="module")
def small():
    return load_builtin("breast-cancer")


def _new_files(cache: ResultCache, before: set) -> set:
    return {path for path in cache.root.iterdir() if path.is_file()} - before


def _stored_with_a_late_method(small, tmp_path):
    """A cache holding Laplace and KT (stored one after the other) and KT's two entries."""
    cache = ResultCache(tmp_path / "results")
    settings = RunSettings(n_splits=3)
    cross_validate(small, ["Laplace"], settings=settings, cache=cache)
    before = {path for path in cache.root.iterdir() if path.is_file()}
    cross_validate(small, ["Laplace", "KT"], settings=settings, cache=cache)
    return cache, settings, _new_files(cache, before)


@pytest.mark.parametrize("damaged", ["frame", "arrays"])
def test_a_method_whose_entry_exists_but_cannot_be_read_is_recomputed(small, tmp_path, damaged):
    """An entry that exists (so the one-look-per-method check passes) but is truncated, or
    whose other half is gone (a run stopped between its two writes): the stored run is not
    whole, so it is recomputed (not a KeyError on the page)."""
    cache, settings, kt_files = _stored_with_a_late_method(small, tmp_path)
    [path] = [p for p in kt_files if p.name.endswith(f".{damaged}.hebc")]
    if damaged == "frame":
        path.write_bytes(path.read_bytes()[:40])  # truncated: deleted on read, a miss
    else:
        path.unlink()
    methods = ["Laplace", "KT"]
    assert cached_cross_validation(small, methods, settings=settings, cache=cache) is None
    again = cross_validate(small, methods, settings=settings, cache=cache)
    assert again.cached == ["Laplace"]
    read = cached_cross_validation(small, methods, settings=settings, cache=cache)
    assert read is not None and read.cached == methods


def test_a_run_whose_labels_entry_is_gone_is_not_read(small, tmp_path):
    """Every method's folds are stored but the run's labels entry (the data key) is gone
    (deleted as corrupt, or a cache pruned by hand): a miss, not a crash."""
    cache = ResultCache(tmp_path / "results")
    settings = RunSettings(n_splits=3)
    cross_validate(small, ["Laplace"], settings=settings, cache=cache)
    [labels] = [p for p in _new_files(cache, set()) if p.name.endswith(".json.hebc")]
    labels.unlink()
    assert cached_cross_validation(small, ["Laplace"], settings=settings, cache=cache) is None
    again = cross_validate(small, ["Laplace"], settings=settings, cache=cache)
    assert again.cached == []  # without its labels the run is computed again, and stored
    read = cached_cross_validation(small, ["Laplace"], settings=settings, cache=cache)
    assert read is not None and read.cached == ["Laplace"]


# ------------------------------------------------------------------ run_in_worker's wait

_ANSWER_LATE = """
import json, sys, time
sys.stdin.readline()
time.sleep({seconds})
error = {{"type": "ValueError", "message": "late answer", "kind": "value", "traceback": ""}}
print(json.dumps({{"error": error}}), flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def stand_in(monkeypatch, tmp_path):
    """``run_in_worker`` given a stand-in worker process: it reads the run folder, sleeps,
    then answers with a clear error (the wait is what is tested, not the run)."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(worker_pool, "_IDLE", [])
    processes: list[subprocess.Popen] = []

    def start(seconds: float) -> None:
        def take() -> worker_pool._Worker:
            process = subprocess.Popen(
                [sys.executable, "-c", _ANSWER_LATE.format(seconds=seconds)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            processes.append(process)
            return worker_pool._Worker(process)

        monkeypatch.setattr(worker_pool, "_take_worker", take)

    yield start, processes
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()


def _run(cancelled: threading.Event, progress=None):
    dataset = load_builtin("iris")
    return worker_pool.run_in_worker(
        dataset,
        dataset.fingerprint(),
        ["Laplace"],
        RunSettings(n_splits=3),
        progress or (lambda fraction, message: None),
        cancelled,
    )


def test_a_cancel_stops_the_worker_at_once_and_says_cancelled(stand_in):
    """The last session leaves 0.3 s into a run: the wait raises WorkerCancelled within a
    poll or two (its slot comes back), and the worker is stopped, not left computing."""
    start, processes = stand_in
    start(seconds=20)
    cancelled = threading.Event()
    timer = threading.Timer(0.3, cancelled.set)
    timer.start()
    begin = time.perf_counter()
    try:
        with pytest.raises(worker_pool.WorkerCancelled):
            _run(cancelled)
    finally:
        timer.cancel()
    assert time.perf_counter() - begin < 3.0
    [process] = processes
    assert process.poll() is not None  # stopped
    assert worker_pool._IDLE == []  # and not kept for the next run


def test_the_wait_for_a_worker_does_not_spin_a_core(stand_in, tmp_path):
    """A run of 1.5 s in its worker: the server thread waiting for it sleeps (it shares
    two cores with the worker and the other sessions), it does not busy-poll."""
    start, _ = stand_in
    start(seconds=1.5)
    dataset = load_builtin("iris")
    cv_worker.write_dataset(dataset, tmp_path)  # parquet's first write paid before timing
    cpu, wall = time.thread_time(), time.perf_counter()
    with pytest.raises(ValueError, match="^late answer$"):
        _run(threading.Event())
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    assert wall >= 1.5
    assert cpu < 0.5, f"{cpu:.2f} s of CPU in {wall:.2f} s waiting"


def test_a_cancel_arriving_as_the_worker_answers_keeps_its_answer_and_worker(monkeypatch, tmp_path):
    """The last session leaves just as the worker reports "Done": the wait, joined on the
    reader, takes the answer that is already on its way (the worker is kept, with the
    dataset it holds, for the next what-if) instead of stopping a worker that finished."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(worker_pool, "_IDLE", [])
    monkeypatch.setattr(worker_pool, "CANCEL_POLL_SECONDS", 60.0)  # the join decides alone
    cancelled = threading.Event()

    def progress(fraction: float, message: str) -> None:
        if fraction >= 1.0:
            cancelled.set()

    try:
        result = _run(cancelled, progress)
        assert cancelled.is_set() and result.methods == ["Laplace"]
        [worker] = worker_pool._IDLE
        assert worker.alive()
    finally:
        for worker in list(worker_pool._IDLE):
            worker_pool._stop(worker)


# ------------------------------------------------------------------ Comparison figures


@pytest.fixture(scope="module")
def three_methods():
    dataset = load_builtin("iris")
    settings = RunSettings(dataset="builtin:iris", n_splits=3)
    methods = ["Laplace", "KT", "HEB-M"]
    return cross_validate(dataset, methods, settings=settings, use_cache=False)


def _drawn(fig) -> list[str]:
    return [trace.name for trace in fig.data if trace.type == "bar"]


def _labels(methods) -> list[str]:
    return [escape(method_label(method)) for method in methods]


def test_the_reports_figure_has_every_method_after_the_page_drew_a_few(three_methods):
    """The page draws the methods chosen there first; the report's figure asked for next
    still has every method, and the page's choice still has only its own."""
    comparison = cmp.Comparison(three_methods, elapsed=0.0)
    methods = three_methods.methods
    assert _drawn(comparison.reliability_of(methods[:1])) == _labels(methods[:1])
    assert _drawn(comparison.reliability_fig) == _labels(methods)
    assert _drawn(comparison.reliability_of(methods[1:])) == _labels(methods[1:])
    assert _drawn(comparison.reliability_of(methods[:1])) == _labels(methods[:1])


def test_the_reliability_data_has_every_methods_bins(three_methods):
    """The figure is built late; the data beside it (its CSV download) still has every
    method's bins, the same as each method's own curve."""
    comparison = cmp.Comparison(three_methods, elapsed=0.0)
    data = comparison.reliability_data
    assert list(dict.fromkeys(data["method"])) == three_methods.methods
    for method in three_methods.methods:
        curve = three_methods.reliability(method)
        rows = data[data["method"] == method]
        assert rows["count"].tolist() == list(curve["count"])
