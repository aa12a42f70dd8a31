"""Cross-validation speed at a million rows: the seven smoothers, 10 folds, every row.

Data: a synthetic frame (seed 0) of ``--rows`` rows and 20 features, 12 string columns
(pandas' default string dtype) with K = 2 .. 5,000 and 8 float columns (two rounded, so
bin edges tie, and 2 % missing in two), a 3-class target that depends on four of them.
Timed, in one process, each a median of ``--repeats`` runs with the fold store emptied
first: ``cross_validate(dataset, TABLE1_METHODS, max_rows=None, use_cache=False)``
and, inside it, ``prepare_folds`` (encoding + counting; the fingerprint it is keyed by
apart). The peer is today's direct path, ``reference_folds`` (a ``Preprocessor``
fitted per fold on the raw frame) followed by the same model loop, at ``--peer-rows``
rows. CPU seconds (``time.process_time``) stand beside the wall times: on a shared
machine under load the wall time stretches, the CPU time much less. Memory: the
``tracemalloc`` peak of one ``cross_validate`` against the input frame's deep size, and
what stays allocated after it (the fold store, and anything else).

``--breakdown`` splits one study's CPU seconds into its phases, run one after the other
as ``cross_validate`` runs them: the split (subsample, target, folds), encoding every
column once (and the per-class totals counting subtracts from), each fold's encoding with
its counts, the test rows' codes, fitting (re-smoothing the counts), ``predict_proba``
and each metric; each phase a median over ``--repeats`` studies.

    python3 benchmarks/cv_speed.py                       # 1,000,000 and 200,000 rows
    python3 benchmarks/cv_speed.py --rows 200000 --repeats 3
    python3 benchmarks/cv_speed.py --breakdown --rows 1000000 200000 --repeats 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb import metrics  # noqa: E402
from heb.data import Dataset  # noqa: E402
from heb.data.encoding import class_totals, encode_columns  # noqa: E402
from heb.evaluate import (  # noqa: E402
    FOLD_STORE,
    RunSettings,
    cross_validate,
    engine_revision,
    prepare_folds,  # noqa: E402
)
from heb.evaluate.cv import _family, _fit_fold, _run_methods, method_spec  # noqa: E402
from heb.evaluate.folds import Fold, _split, reference_folds  # noqa: E402
from heb.registry import TABLE1_METHODS  # noqa: E402

#: the phases of --breakdown, and which of them are preprocessing
PHASES = (
    "split",
    "encode columns",
    "fold encodings + counts",
    "test codes",
    "fit (smoothing)",
    "predict_proba",
    "metrics: checks + top-1",
    "metrics: AUC",
    "metrics: others",
)
PREPROCESSING = PHASES[:4]

CARDINALITIES = (2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)


def make_frame(n_rows: int, seed: int = 0) -> Dataset:
    """The 20-feature benchmark frame (12 string columns, 8 float columns) and its target."""
    rng = np.random.default_rng(seed)
    columns: dict[str, object] = {}
    signal = np.zeros(n_rows)
    for j, k in enumerate(CARDINALITIES):
        codes = np.minimum(rng.zipf(1.3, n_rows) - 1, k - 1)
        labels = np.array([f"c{j}_{v:05d}" for v in range(k)], dtype=object)
        columns[f"cat{j}"] = pd.Series(labels[codes], dtype="str")
        if j in (1, 6):
            signal += (codes % 3 == 0) * 0.8
    for j in range(8):
        values = rng.normal(size=n_rows)
        if j in (0, 4):
            signal += values * 0.5
        if j in (2, 3):
            values = np.round(values, 1)  # ties on the quantile edges
        if j in (5, 6):
            values[rng.random(n_rows) < 0.02] = np.nan
        columns[f"num{j}"] = values
    X = pd.DataFrame(columns)
    score = signal + rng.normal(size=n_rows)
    y = pd.Series(np.digitize(score, np.quantile(score, [0.5, 0.8])).astype(str), name="y")
    return Dataset("cv-speed", X, y, categorical=[], source="synthetic:cv-speed")


def _settings() -> RunSettings:
    return RunSettings(max_rows=None, n_splits=10, seed=42)


def time_study(dataset: Dataset) -> tuple[float, float, float, float, float]:
    """Wall and CPU seconds of one full cross-validation, then of its fold preparation
    (``prepare_folds`` alone), and the CPU seconds of the dataset's fingerprint (the cache
    key ``cross_validate`` hashes the whole frame for first; counted in the study, not in
    the preparation)."""
    FOLD_STORE.clear()
    cpu = time.process_time()
    settings = _settings().replace(fingerprint=dataset.fingerprint())
    fingerprint_cpu = time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    prepare_folds(dataset, settings)
    prepare, prepare_cpu = time.perf_counter() - start, time.process_time() - cpu
    FOLD_STORE.clear()
    start, cpu = time.perf_counter(), time.process_time()
    cross_validate(dataset, TABLE1_METHODS, max_rows=None, use_cache=False)
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    FOLD_STORE.clear()
    return total, cpu, prepare, prepare_cpu, fingerprint_cpu


def time_peer(dataset: Dataset) -> tuple[float, float]:
    """Seconds of today's direct path: a Preprocessor per fold, then the same model loop."""
    start = time.perf_counter()
    reference = reference_folds(dataset, _settings())
    prepare = time.perf_counter() - start
    specs = {name: method_spec(name) for name in TABLE1_METHODS}
    _run_methods(specs, reference, lambda fraction, message: None)
    return time.perf_counter() - start, prepare


def memory(dataset: Dataset) -> tuple[float, float, float, float]:
    """MB of the input frame, the traced peak of one run, what the store keeps and what
    stays allocated after the run besides the store."""
    FOLD_STORE.clear()
    gc.collect()
    frame = dataset.X.memory_usage(deep=True).sum() / 2**20
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = cross_validate(dataset, TABLE1_METHODS, max_rows=None, use_cache=False)
    peak = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    del result
    gc.collect()
    after = (tracemalloc.get_traced_memory()[0] - base) / 2**20
    tracemalloc.stop()
    stored = FOLD_STORE.nbytes / 2**20
    FOLD_STORE.clear()
    return frame, peak, stored, after - stored


class _Clock:
    """CPU seconds per phase: ``lap(name)`` charges the time since the previous lap."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.last = time.process_time()

    def lap(self, name: str) -> None:
        now = time.process_time()
        self.seconds[name] += now - self.last
        self.last = now


def breakdown(dataset: Dataset) -> dict[str, float]:
    """CPU seconds of each phase of one study, in ``cross_validate``'s order."""
    engine_revision()  # computed once per process; not part of a study
    settings = _settings().replace(fingerprint=dataset.fingerprint())
    specs = {name: method_spec(name) for name in TABLE1_METHODS}
    clock = _Clock()
    split = _split(dataset, settings)
    y, C = split.y, split.classes.size
    clock.lap("split")
    codes = encode_columns(split.X, categorical=dataset.categorical)
    totals = class_totals(codes, y, C, [test for _, test in split.folds])
    clock.lap("encode columns")
    folds = []
    for train, test in split.folds:
        encoding, table = codes.fit_fold(train, test, y, C, totals=totals)
        folds.append(Fold(codes, encoding, test, y, table, 0.0))
    clock.lap("fold encodings + counts")
    for fold in folds:
        test_codes, y_test = fold.test_codes, y[fold.test_index]
        clock.lap("test codes")
        for spec in specs.values():
            model, _ = _fit_fold(_family(spec), spec["params"], fold, C)
            clock.lap("fit (smoothing)")
            proba = model.predict_proba(test_codes)
            clock.lap("predict_proba")
            checked_y, checked = metrics._validate(y_test, proba)
            pred, confidence, correct = metrics._top1(checked_y, checked)
            clock.lap("metrics: checks + top-1")
            metrics._auc_ovr(checked_y, checked)
            clock.lap("metrics: AUC")
            metrics._accuracy(checked_y, pred)
            metrics._f1_macro(checked_y, pred, C)
            metrics._log_loss(checked_y, checked)
            metrics._brier(checked_y, checked)
            metrics.reliability_curve(correct, confidence, 10, "uniform")
            clock.lap("metrics: others")
    return clock.seconds


def median_breakdown(dataset: Dataset, repeats: int) -> dict[str, float]:
    """Each phase's median CPU seconds over ``repeats`` studies (one run is noisy on a
    shared machine)."""
    runs = [breakdown(dataset) for _ in range(max(1, repeats))]
    return {phase: float(np.median([run[phase] for run in runs])) for phase in PHASES}


def breakdown_table(rows: list[int], repeats: int = 1) -> None:
    """Print each phase's CPU seconds (median of ``repeats``) and share of the study, per
    row count."""
    results = {n_rows: median_breakdown(make_frame(n_rows), repeats) for n_rows in rows}
    print("| phase | " + " | ".join(f"{n:,} rows: CPU s (share)" for n in rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for phase in PHASES:
        cells = [f"{r[phase]:.2f} ({r[phase] / sum(r.values()):.2f})" for r in results.values()]
        print(f"| {phase} | " + " | ".join(cells) + " |")
    shares = [sum(r[p] for p in PREPROCESSING) / sum(r.values()) for r in results.values()]
    totals = [f"{sum(r.values()):.2f}" for r in results.values()]
    print("| **total** | " + " | ".join(totals) + " |")
    print("| **preprocessing share** | " + " | ".join(f"{s:.2f}" for s in shares) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 200_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-rows", type=int, default=200_000, help="0: no peer run")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-only", action="store_true")
    parser.add_argument("--breakdown", action="store_true", help="CPU seconds per phase only")
    args = parser.parse_args()
    if args.breakdown:
        breakdown_table(args.rows, args.repeats)
        return
    if not args.memory_only:
        speed_table(args)
    if not args.no_memory:
        memory_table(args.rows)


def speed_table(args: argparse.Namespace) -> None:
    """Print the timing table (medians; CPU seconds show how much the machine's load
    stretched the wall time)."""
    print(
        "| rows | CV s | CV CPU s | prepare s | prepare CPU s | prepare / CV (CPU) "
        "| fingerprint CPU s | peer CV s | peer prepare s | speed-up |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n_rows in args.rows:
        dataset = make_frame(n_rows)
        runs = [time_study(dataset) for _ in range(args.repeats)]
        total, cpu, prepare, prepare_cpu, fingerprint_cpu = np.median(runs, axis=0)
        peer = time_peer(dataset) if n_rows == args.peer_rows else None
        peer_cells = f"{peer[0]:.1f} | {peer[1]:.1f} | {peer[0] / total:.1f}x" if peer else "| |"
        print(
            f"| {n_rows:,} | {total:.2f} | {cpu:.2f} | {prepare:.2f} | {prepare_cpu:.2f} "
            f"| {prepare_cpu / cpu:.2f} | {fingerprint_cpu:.2f} | {peer_cells} |",
            flush=True,
        )


def memory_table(rows: list[int]) -> None:
    """Print the memory table."""
    print("\n| rows | input frame MB | peak traced MB | peak / frame | store MB | other kept MB |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n_rows in rows:
        frame, peak, stored, other = memory(make_frame(n_rows))
        print(
            f"| {n_rows:,} | {frame:.0f} | {peak:.0f} | {peak / frame:.2f} | {stored:.0f} "
            f"| {other:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
