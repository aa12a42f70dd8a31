"""The server's end of the cross-validation workers (:mod:`explorer.cv_worker`).

:func:`run_in_worker` runs one cross-validation in a worker process and waits for it
(the caller is a background thread of the server, not a session's script): it writes
the run folder, hands its path to an idle worker, passes the worker's progress on and
reads the result back. Workers outlive their runs: an idle one (at most
:data:`MAX_IDLE_WORKERS`, the most recently used first) takes the next run, so the
engine is imported once and a what-if change reuses the folds and the dataset the
worker already holds. :func:`start_spare_worker` starts one ahead of the first run.

Cancelling a run stops its worker: SIGTERM first, which the worker turns into an
exception so that a cache write under way removes its temporary file, then SIGKILL
after :data:`TERMINATE_GRACE_SECONDS`. A worker that failed is stopped, not reused.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer import cv_worker
from explorer.cv_worker import HandoverError, WorkerError
from heb.data import DataError, Dataset, encode_target
from heb.evaluate import CVResult, RunSettings

__all__ = [
    "MAX_IDLE_WORKERS",
    "TERMINATE_GRACE_SECONDS",
    "WorkerCancelled",
    "run_in_worker",
    "start_spare_worker",
]

#: idle workers kept for the next runs (one per heavy run the server allows at once)
MAX_IDLE_WORKERS = 2
#: how long a terminated worker has to clean up before it is killed
TERMINATE_GRACE_SECONDS = 5.0
#: how often a run waiting for its worker looks whether it was cancelled
CANCEL_POLL_SECONDS = 0.1
_REPO = Path(__file__).resolve().parent.parent
_LOG = logging.getLogger(__name__)


class WorkerCancelled(Exception):
    """The run was cancelled: its worker was stopped before it finished."""


@dataclass
class _Worker:
    """A worker process and the datasets it holds (the same list it keeps itself)."""

    process: subprocess.Popen
    datasets: OrderedDict = field(default_factory=OrderedDict)

    def alive(self) -> bool:
        return self.process.poll() is None


#: a worker computes on one thread: up to two run beside the server on a 2-core machine,
#: and OpenMP / BLAS threads of processes that share the cores spin-wait for each other
#: (HistGradientBoosting took 10-40x the CPU with two OpenMP threads under load)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

_IDLE: list[_Worker] = []
_IDLE_LOCK = threading.Lock()


def _start_worker(rehearse: bool = False) -> _Worker:
    """A worker process, warming up at a lower priority (``rehearse``: with a tiny
    cross-validation, :func:`explorer.cv_worker.rehearse`), then waiting on its stdin."""
    path = os.pathsep.join(filter(None, [str(_REPO), os.environ.get("PYTHONPATH")]))
    flags = [cv_worker.REHEARSE_FLAG] if rehearse else []
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer.cv_worker", *flags],
        cwd=_REPO,
        env={**os.environ, "PYTHONPATH": path, **ONE_THREAD},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        start_new_session=True,  # the server's Ctrl-C is not the worker's: stdin's end is
    )
    return _Worker(process)


def start_spare_worker() -> None:
    """Start a worker now unless one is idle: it imports the engine, hashes its revision
    and rehearses a tiny cross-validation while no run waits for it."""
    with _IDLE_LOCK:
        _IDLE[:] = [worker for worker in _IDLE if worker.alive()]
        if not _IDLE:
            _IDLE.append(_start_worker(rehearse=True))


def _take_worker() -> _Worker:
    """The most recently used idle worker, else a new one."""
    with _IDLE_LOCK:
        _IDLE[:] = [worker for worker in _IDLE if worker.alive()]
        if _IDLE:
            return _IDLE.pop()
    return _start_worker()


def _give_back(worker: _Worker) -> None:
    """An idle worker for the next run (the oldest idle one stops beyond the bound)."""
    with _IDLE_LOCK:
        _IDLE.append(worker)
        extra = _IDLE[:-MAX_IDLE_WORKERS]
        del _IDLE[:-MAX_IDLE_WORKERS]
    for old in extra:
        _stop(old)


def _stop(worker: _Worker) -> None:
    """Terminate a worker (it cleans up), killing it after the grace period."""
    process = worker.process
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            process.wait(TERMINATE_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(OSError):
            stream.close()


def _raise_reported(error: dict) -> None:
    """Raise, in the server, the error the worker reported."""
    if error["kind"] == "handover":
        raise HandoverError(error["message"])
    if error["kind"] == "data":
        raise DataError(error["message"])
    if error["kind"] == "value":
        raise ValueError(error["message"])
    _LOG.error("The cross-validation worker failed:\n%s", error["traceback"])
    raise WorkerError(f"{error['type']}: {error['message']}")


def _read_messages(
    worker: _Worker, progress: Callable[[float, str], None], out: list[dict]
) -> None:
    """The worker's JSON lines of one run: progress passed on, until its end or error."""
    for line in worker.process.stdout:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue  # not the worker's (its stdout carries only its messages)
        if "progress" in message:
            progress(float(message["progress"]), str(message["message"]))
        else:
            out.append(message)
            return


def _hand_over(worker: _Worker, folder: Path, dataset: Dataset, fingerprint: str) -> dict:
    """The dataset's description for the request, its files written unless the worker
    holds it already (:func:`~explorer.cv_worker.remember` keeps both lists alike)."""
    sent = fingerprint not in worker.datasets
    if sent:
        cv_worker.write_dataset(dataset, folder)
    cv_worker.remember(worker.datasets, fingerprint, True)
    return cv_worker.describe(dataset, fingerprint, sent)


def run_in_worker(
    dataset: Dataset,
    fingerprint: str,
    methods: list[str],
    settings: RunSettings,
    progress: Callable[[float, str], None],
    cancelled: threading.Event,
) -> CVResult:
    """``cross_validate(dataset, methods, settings=settings)`` in a worker process.

    ``progress(fraction, message)`` gets the worker's progress (from a reader thread);
    setting ``cancelled`` stops the worker and raises :class:`WorkerCancelled`. The
    worker's ValueError / DataError is raised here with its message, anything else as a
    :class:`~explorer.cv_worker.WorkerError` (its traceback goes to the server's log);
    :class:`~explorer.cv_worker.HandoverError` says the dataset cannot travel.
    """
    folder = Path(tempfile.mkdtemp(prefix="heb-cv-"))
    worker, finished = None, False
    try:
        worker = _take_worker()
        try:
            described = _hand_over(worker, folder, dataset, fingerprint)
        except HandoverError:
            finished = True  # the worker received nothing: it takes the next run
            raise
        cv_worker.write_request(folder, methods, settings, described)
        worker.process.stdin.write(f"{folder}\n")
        worker.process.stdin.flush()
        messages: list[dict] = []
        reader = threading.Thread(
            target=_read_messages, args=(worker, progress, messages), daemon=True
        )
        reader.start()
        while True:  # join returns as soon as the run's last message is read
            reader.join(CANCEL_POLL_SECONDS)
            if not reader.is_alive():
                break
            if cancelled.is_set():
                raise WorkerCancelled("The cross-validation was cancelled.")
        last = messages[-1] if messages else {}
        if "error" in last:
            _raise_reported(last["error"])
        if not last.get("done"):
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(TERMINATE_GRACE_SECONDS)
            code = worker.process.poll()
            raise WorkerError(f"The cross-validation worker stopped unexpectedly (exit {code}).")
        result = cv_worker.read_result(folder / cv_worker.RESULT_FOLDER, _dataset_classes(dataset))
        finished = True
        return result
    finally:
        if worker is not None:
            if finished:
                _give_back(worker)
            else:
                _stop(worker)
        shutil.rmtree(folder, ignore_errors=True)


def _dataset_classes(dataset: Dataset) -> np.ndarray:
    return encode_target(dataset.y)[1]
