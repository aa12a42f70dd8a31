"""The cross-validation worker process and the run folder it shares with the server.

The Streamlit server serves every session from threads of one process; a
cross-validation computed there shares the GIL and the event loop with every visitor's
page. It runs in this worker process instead (``python -m explorer.cv_worker``, at a
lower OS priority: :data:`WORKER_NICENESS`), driven by :mod:`explorer.worker_pool`.

One run is one private folder, named on the worker's stdin (nothing is pickled):

- the server writes ``request.json`` (methods, run settings, the dataset's fingerprint
  and description, the cache root) and, the first time this worker sees the dataset,
  the dataset itself (``features.parquet``, ``target.parquet``); the worker keeps the
  last :data:`KEPT_DATASETS` datasets, so a what-if change sends none;
- the worker refuses a dataset whose fingerprint changed on the way, runs
  :func:`heb.evaluate.cross_validate` (which reads and fills the result cache, and
  keeps the prepared folds in this process for the next what-if change) and writes the
  :class:`~heb.evaluate.CVResult` into the folder through a
  :class:`~heb.evaluate.cache.ResultCache` (parquet, npz without pickle, JSON);
- progress, the end and any error travel as JSON lines on the worker's stdout.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from heb import paths
from heb.data import DataError, Dataset
from heb.evaluate import CVResult, RunSettings, cross_validate
from heb.evaluate.cache import ResultCache

__all__ = [
    "HandoverError",
    "KEPT_DATASETS",
    "WORKER_NICENESS",
    "WorkerError",
    "describe",
    "main",
    "read_dataset",
    "read_result",
    "REHEARSE_FLAG",
    "RESULT_FOLDER",
    "remember",
    "write_dataset",
    "write_request",
    "write_result",
]

#: added to the worker's niceness: the server and the browsers' pages come first
WORKER_NICENESS = 10
#: datasets a worker keeps (by fingerprint) for the next runs on them
KEPT_DATASETS = 2
_REQUEST, _FEATURES, _TARGET, RESULT_FOLDER = (
    "request.json",
    "features.parquet",
    "target.parquet",
    "result",
)


class WorkerError(RuntimeError):
    """The worker failed in an unexpected way (its traceback is in the server's log)."""


class HandoverError(Exception):
    """The dataset cannot travel to a worker unchanged (run it in the server instead)."""


# ------------------------------------------------------------------ the run folder
def write_request(folder: Path, methods: list[str], settings: RunSettings, described: dict) -> None:
    """``request.json``: the methods, the settings, the dataset's description, the cache."""
    request = {
        "methods": list(methods),
        "settings": asdict(settings),
        "dataset": described,
        "cache_dir": str(paths.cache_dir()),  # a worker started earlier has an older env
    }
    (folder / _REQUEST).write_text(json.dumps(request), encoding="utf-8")


def write_dataset(dataset: Dataset, folder: Path) -> None:
    """The dataset's features and target as parquet files in ``folder``.

    Raises :class:`HandoverError` when parquet cannot hold it (e.g. columns of mixed
    Python types, names that are not text).
    """
    try:
        dataset.X.to_parquet(folder / _FEATURES, engine="pyarrow")
        target = dataset.y.to_frame(name="target")
        if dataset.source_rows is not None:  # which rows of the table these are
            target["source_row"] = np.asarray(dataset.source_rows, dtype=np.int64)
        target.to_parquet(folder / _TARGET, engine="pyarrow")
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds here
        raise HandoverError(f"parquet cannot hold this dataset ({exc})") from exc


def read_dataset(folder: Path, described: dict) -> Dataset:
    """The dataset :func:`write_dataset` wrote, with ``described``'s name, source, notes..."""
    X = pd.read_parquet(folder / _FEATURES, engine="pyarrow")
    target = pd.read_parquet(folder / _TARGET, engine="pyarrow")
    y = target["target"].rename(described["y_name"])
    rows = target["source_row"].to_numpy() if "source_row" in target.columns else None
    return Dataset(
        name=described["name"],
        X=X,
        y=y,
        categorical=list(described["categorical"]),
        source=described["source"],
        notes=list(described["notes"]),
        target=described["target"],
        description=described["description"],
        source_rows=rows,
    )


def describe(dataset: Dataset, fingerprint: str, sent: bool) -> dict:
    """What a request says of its dataset (``sent``: its parquet files are in the folder)."""
    return {
        "sent": sent,
        "name": str(dataset.name),
        "y_name": None if dataset.y.name is None else str(dataset.y.name),
        "categorical": [str(c) for c in dataset.categorical],
        "source": str(dataset.source),
        "notes": [str(n) for n in dataset.notes],
        "target": str(dataset.target),
        "description": str(dataset.description),
        "fingerprint": fingerprint,
    }


def write_result(result: CVResult, folder: Path) -> None:
    """A CV result as a frame, arrays and JSON in ``folder`` (no pickle)."""
    cache = ResultCache(folder)
    cache.put_frame("folds", result.folds)
    arrays = {f"oof{i}": result.oof_proba[m] for i, m in enumerate(result.methods)}
    rows = {} if result.rows is None else {"rows": result.rows}
    folds = {} if result.test_fold is None else {"test_fold": result.test_fold}
    cache.put_arrays("arrays", {**arrays, "y": result.y, **rows, **folds})
    meta = {
        "methods": result.methods,
        "classes": [str(c) for c in result.classes],
        "notes": list(result.notes),
        "n_splits": int(result.n_splits),
        "cached": list(result.cached),
    }
    cache.put_json("meta", meta)


def read_result(folder: Path, classes: np.ndarray) -> CVResult:
    """The result :func:`write_result` wrote; ``classes`` are the dataset's labels, kept
    when they read as the stored ones (as :func:`~heb.evaluate.cross_validate` does on
    a cache hit), else the stored text."""
    cache = ResultCache(folder)
    meta, folds, arrays = (
        cache.get_json("meta"),
        cache.get_frame("folds"),
        cache.get_arrays("arrays"),
    )
    if meta is None or folds is None or arrays is None:
        raise WorkerError("The cross-validation worker's result is incomplete or damaged.")
    if [str(c) for c in classes] != meta["classes"]:
        classes = np.asarray(meta["classes"])
    return CVResult(
        folds=folds,
        oof_proba={m: arrays[f"oof{i}"] for i, m in enumerate(meta["methods"])},
        y=arrays["y"],
        classes=classes,
        notes=meta["notes"],
        n_splits=meta["n_splits"],
        cached=meta["cached"],
        rows=arrays.get("rows"),
        test_fold=arrays.get("test_fold"),
    )


# ------------------------------------------------------------------ the worker's end
def _kind(exc: BaseException) -> str:
    if isinstance(exc, HandoverError):
        return "handover"
    if isinstance(exc, DataError):
        return "data"
    return "value" if isinstance(exc, ValueError) and str(exc) else "other"


def remember(datasets: OrderedDict, fingerprint: str, dataset: object) -> None:
    """Keep ``dataset`` as the newest of at most :data:`KEPT_DATASETS` (both ends of the
    pipe keep the same list this way: the server sends a dataset only once)."""
    datasets[fingerprint] = dataset
    datasets.move_to_end(fingerprint)
    while len(datasets) > KEPT_DATASETS:
        datasets.popitem(last=False)


def _work(folder: Path, say: Callable[[dict], None], datasets: OrderedDict) -> None:
    request = json.loads((folder / _REQUEST).read_text(encoding="utf-8"))
    described = request["dataset"]
    fingerprint = described["fingerprint"]
    if described["sent"]:
        dataset = read_dataset(folder, described)
        if dataset.fingerprint() != fingerprint:
            raise HandoverError("the dataset changed on its way to the worker")
    elif fingerprint in datasets:
        dataset = datasets[fingerprint]
    else:
        raise HandoverError("the worker no longer holds this dataset")
    remember(datasets, fingerprint, dataset)
    settings = RunSettings(**request["settings"])
    os.environ["HEB_CACHE_DIR"] = request["cache_dir"]

    def progress(fraction: float, message: str) -> None:
        say({"progress": fraction, "message": message})

    result = cross_validate(dataset, request["methods"], settings=settings, progress=progress)
    write_result(result, folder / RESULT_FOLDER)


def _read_line() -> str:
    """The next line on stdin ("" once the server has closed it)."""
    return sys.stdin.buffer.readline().decode("utf-8").strip()


def _serve(say: Callable[[dict], None]) -> None:
    """Runs, one run folder per line of stdin, until stdin ends."""
    datasets: OrderedDict = OrderedDict()
    while line := _read_line():
        try:
            _work(Path(line), say, datasets)
        except BrokenPipeError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure is reported to the server
            error = {"type": type(exc).__name__, "message": str(exc), "kind": _kind(exc)}
            say({"error": error | {"traceback": traceback.format_exc()}})
            continue
        say({"done": True})


#: the argument that makes a worker rehearse first (:func:`rehearse`): given to the spare
#: worker started ahead of any run, not to one a waiting run starts (it would wait ~0.4 s)
REHEARSE_FLAG = "--rehearse"
#: the methods of a fresh worker's rehearsal: one of each code path a first comparison
#: takes (fixed and learned smoothers, the sqrt-MI weights, AODE)
REHEARSED_METHODS = ("Laplace", "m-estimate", "TE", "HEB-U", "HEB-M", "HEB-M+GR", "AODE")


def rehearse() -> None:
    """Cross-validate a tiny made-up dataset once, without the result cache: the first
    calls of the fold, smoothing and scoring code (imports, lazily built tables) are paid
    here, while no visitor waits, not by the first comparison (~0.1 s of it)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"f{j}": rng.choice(["a", "b", "c"], size=40) for j in range(3)})
    y = pd.Series(np.repeat(["yes", "no"], 20), name="class")
    dataset = Dataset("rehearsal", X, y, list(X.columns), "rehearsal")
    settings = RunSettings(dataset="rehearsal", n_splits=2)
    cross_validate(dataset, list(REHEARSED_METHODS), settings=settings, use_cache=False)


def main() -> int:
    """The worker: warm up, then serve run folders named on stdin, reporting on stdout.

    It stops when stdin ends (the server closed it or died), at the next progress message
    once the server has gone (its stdout is a broken pipe), or on SIGTERM (turned into
    an exception, so a cache write under way removes its temporary file).
    """
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything else printed (Python or C) goes to the log, not the channel
    sys.stdout = sys.stderr

    def say(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    from heb.evaluate.keys import engine_revision

    engine_revision()  # what every run's cache keys need: done while waiting for a run
    if REHEARSE_FLAG in sys.argv[1:]:  # a spare: no run waits for it yet
        try:
            rehearse()
        except Exception:  # noqa: BLE001 - a failed warm-up must not cost the worker
            traceback.print_exc()
    try:
        _serve(say)
    except BrokenPipeError:
        os._exit(1)  # the server has gone; nothing is left to flush to it
    return 0


if __name__ == "__main__":
    sys.exit(main())
