"""Fit / predict_proba speed of every smoother against scikit-learn's CategoricalNB.

Two benchmarks, every timing the median of ``--repeats`` interleaved rounds after a
warm-up, all in one process, printed as ratios against a peer run in the same rounds:

* ``--grid`` (default): Zipf-distributed codes over a grid of shapes, N rows x F features
  x K categories x C classes (N 10^4 - 5 x 10^6, F 10 - 100, K 2 - 10^5, C 2 - 10). Per
  point: our Laplace and HEB-M fits, CategoricalNB(alpha=1, min_categories=K), and the
  counting floor: one ``np.bincount`` over combined class / feature / code indices
  (building those indices included). ``--quick`` runs a smaller grid with 3 repeats,
  ``--full`` adds the largest points (10^8 codes; 5 x 10^6 rows).
* ``--dataset``: amazon-employee-access from the shared datasets (all nine columns
  categorical, K up to about 5,800 after subsampling), a stratified 20,000-row subsample
  with seed 42, every smoother; predict_proba is timed on the 20,000 training rows.

Run from the repository root::

    python3 benchmarks/nb_speed.py                  # the grid, 5 interleaved rounds
    python3 benchmarks/nb_speed.py --quick          # a smaller grid, 3 rounds
    python3 benchmarks/nb_speed.py --full           # + 10^8 codes and 5 x 10^6 rows
    python3 benchmarks/nb_speed.py --cpu            # CPU time, not wall (a loaded machine)
    python3 benchmarks/nb_speed.py --points "10000,10,100000,2;100000,10,10,5"
    python3 benchmarks/nb_speed.py --dataset        # amazon, 21 interleaved rounds
    python3 benchmarks/nb_speed.py --dataset --consecutive
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import CategoricalNB

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.nb import NaiveBayes  # noqa: E402
from heb.paths import datasets_dir  # noqa: E402
from heb.smoothing import SMOOTHERS  # noqa: E402

DATASET = "amazon-employee-access"
TARGET = "target"
N_ROWS = 20_000
SEED = 42


def load_codes() -> tuple[np.ndarray, np.ndarray]:
    """The stratified subsample as integer codes 0..K_f-1 per column, and class indices."""
    with gzip.open(datasets_dir() / f"{DATASET}.csv.gz", "rt") as handle:
        frame = pd.read_csv(handle)
    y_all = frame.pop(TARGET).to_numpy()
    idx, _ = train_test_split(
        np.arange(len(frame)), train_size=N_ROWS, stratify=y_all, random_state=SEED
    )
    sub = frame.iloc[np.sort(idx)]
    codes = np.column_stack([np.unique(sub[c].to_numpy(), return_inverse=True)[1] for c in sub])
    return codes.astype(np.int64), y_all[np.sort(idx)]


#: the clock of every timing: wall time, or this process's CPU time with ``--cpu``
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def median_times(jobs: dict, repeats: int, consecutive: bool = False) -> dict[str, float]:
    """Median time (:data:`clock`) of each job over ``repeats`` runs, after one warm-up run.

    By default rounds are interleaved (every job once per round), so that a change in
    the load of a shared machine hits all jobs alike instead of biasing the ones timed
    last. ``consecutive`` runs each job's repeats back to back instead (warm caches).
    """
    times: dict[str, list[float]] = {name: [] for name in jobs}
    if consecutive:
        order = [(run, name) for name in jobs for run in range(repeats + 1)]
    else:
        order = [(run, name) for run in range(repeats + 1) for name in jobs]
    for run, name in order:
        start = clock()
        jobs[name]()
        if run:  # run 0 is the warm-up
            times[name].append(clock() - start)
    return {name: float(np.median(values)) for name, values in times.items()}


def zipf_codes(n_rows: int, n_features: int, k: int, n_classes: int, seed: int = 0):
    """Codes 0..k-1 of Zipf(1.1) frequencies (a per-feature random order of categories,
    shifted by class for a third of the features) and uniform classes; row 0 holds code
    k - 1 in every feature so that every K_f is exactly k."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    cdf = np.cumsum(1.0 / np.arange(1, k + 1) ** 1.1)
    cdf /= cdf[-1]
    X = np.empty((n_rows, n_features), dtype=np.int64)
    for f in range(n_features):
        ranks = np.minimum(np.searchsorted(cdf, rng.random(n_rows)), k - 1)
        X[:, f] = rng.permutation(k)[(ranks + y * (f % 3)) % k]
    X[0] = k - 1
    return X, y


def counting_floor(X: np.ndarray, y: np.ndarray, n_classes: int, k: int) -> np.ndarray:
    """The bare count: one bincount over combined (class, feature, code) indices."""
    width = X.shape[1] * k
    flat = (y[:, None] * width + np.arange(X.shape[1]) * k + X).ravel()
    return np.bincount(flat, minlength=n_classes * width)


#: (N, F, K, C) of --quick, of the default grid (adds to --quick) and of --full (adds to
#: the default): together the corners and middle of N 10^4 - 5 x 10^6, F 10 - 100,
#: K 2 - 10^5, C 2 - 10, and two points of K between (3,000: more cells than codes)
QUICK_GRID = [
    (10_000, 100, 2, 2),
    (10_000, 100, 100, 10),
    (10_000, 100, 100_000, 10),
    (100_000, 10, 10, 5),
    (1_000_000, 10, 1_000, 2),
]
GRID = QUICK_GRID + [
    (10_000, 100, 3_000, 10),  # between K = 100 and 10^5: 3 cells per counted code
    (10_000, 10, 3_000, 10),
    (10_000, 10, 100_000, 2),
    (100_000, 100, 2, 10),
    (100_000, 100, 100_000, 10),
]
FULL_GRID = GRID + [
    (1_000_000, 100, 100, 10),
    (5_000_000, 10, 2, 10),
    (5_000_000, 10, 100_000, 2),
]


def time_point(n_rows: int, n_features: int, k: int, n_classes: int, repeats: int):
    """Median fit times (floor, CategoricalNB, Laplace, HEB-M) and predict_proba times
    (CategoricalNB, Laplace) at one grid point."""
    X, y = zipf_codes(n_rows, n_features, k, n_classes)
    k_f = np.full(n_features, k)
    fit_jobs = {
        "floor": lambda: counting_floor(X, y, n_classes, k),
        "cnb": lambda: CategoricalNB(alpha=1.0, min_categories=k_f).fit(X, y),
        "laplace": lambda: NaiveBayes(smoother="laplace").fit(X, y),
        "heb-m": lambda: NaiveBayes(smoother="heb-m").fit(X, y),
    }
    fit = median_times(fit_jobs, repeats)
    models = {"cnb": fit_jobs["cnb"](), "laplace": fit_jobs["laplace"]()}
    predict = median_times(
        {name: (lambda m=model: m.predict_proba(X)) for name, model in models.items()},
        repeats,
    )
    return fit, predict


def grid(points, repeats: int) -> None:
    """Time fit and predict_proba at every grid point and print the table of ratios."""
    header = (
        f"{'N':>9} {'F':>4} {'K':>7} {'C':>3} | {'lap fit':>8} {'CNB fit':>8} {'floor':>7} "
        f"{'HEB-M':>7} | {'lap/CNB':>7} {'lap/floor':>9} {'HEBM/lap':>8} | "
        f"{'lap prd':>8} {'CNB prd':>8} {'prd/CNB':>7}"
    )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    kind = "CPU" if clock is CLOCKS["cpu"] else "wall"
    print(f"medians of {repeats} interleaved rounds after a warm-up, {kind} seconds; load {load}\n")
    print(header)
    print("-" * len(header))
    worst = {"lap/CNB": 0.0, "lap/floor": 0.0, "HEBM/lap": 0.0, "prd/CNB": 0.0}
    for n_rows, n_features, k, n_classes in points:
        fit, predict = time_point(n_rows, n_features, k, n_classes, repeats)
        ratios = {
            "lap/CNB": fit["laplace"] / fit["cnb"],
            "lap/floor": fit["laplace"] / fit["floor"],
            "HEBM/lap": fit["heb-m"] / fit["laplace"],
            "prd/CNB": predict["laplace"] / predict["cnb"],
        }
        worst = {key: max(worst[key], value) for key, value in ratios.items()}
        print(
            f"{n_rows:>9} {n_features:>4} {k:>7} {n_classes:>3} | {fit['laplace']:8.3f} "
            f"{fit['cnb']:8.3f} {fit['floor']:7.3f} {fit['heb-m']:7.3f} | "
            f"{ratios['lap/CNB']:7.2f} {ratios['lap/floor']:9.2f} {ratios['HEBM/lap']:8.2f} | "
            f"{predict['laplace']:8.3f} {predict['cnb']:8.3f} {ratios['prd/CNB']:7.2f}",
            flush=True,
        )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"\nload average at the end {load}; worst ratios: Laplace fit / CategoricalNB "
        f"{worst['lap/CNB']:.2f} (target <= 1.0), "
        f"Laplace fit / floor {worst['lap/floor']:.2f} (<= 3), HEB-M / Laplace fit "
        f"{worst['HEBM/lap']:.2f} (<= 1.3), predict_proba / CategoricalNB "
        f"{worst['prd/CNB']:.2f} (<= 1.0)"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the grid (default) or the dataset benchmark and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", action="store_true", help="the amazon benchmark")
    parser.add_argument("--quick", action="store_true", help="a smaller grid, 3 repeats")
    parser.add_argument(
        "--full", action="store_true", help="the grid plus its 10^8-code and 5 x 10^6-row points"
    )
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time this process's CPU (user + system) instead of wall time: on a machine "
        "shared with other jobs, waiting for a core is then not counted",
    )
    parser.add_argument(
        "--points",
        default=None,
        help="only these grid points, as N,F,K,C;N,F,K,C (e.g. 10000,10,100000,2)",
    )
    parser.add_argument(
        "--consecutive",
        action="store_true",
        help="time each model's repeats back to back instead of interleaved rounds",
    )
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS["cpu" if args.cpu else "wall"]
    if not args.dataset:
        repeats = args.repeats or (3 if args.quick else 5)
        points = QUICK_GRID if args.quick else FULL_GRID if args.full else GRID
        if args.points:
            points = [tuple(int(v) for v in p.split(",")) for p in args.points.split(";")]
        grid(points, repeats)
        return
    args.repeats = args.repeats or 21

    X, y = load_codes()
    k = X.max(axis=0) + 1
    mode = "consecutive" if args.consecutive else "interleaved"
    print(f"{DATASET}: {X.shape[0]} rows, K_f = {k.tolist()}, {args.repeats} {mode} repeats\n")

    models = {"sklearn CategoricalNB": lambda: CategoricalNB(alpha=1.0, min_categories=k)}
    for name in SMOOTHERS:
        models[name] = lambda name=name: NaiveBayes(smoother=name)
    models["heb-m+sqrt-mi"] = lambda: NaiveBayes(smoother="heb-m", weighting="sqrt-mi")

    fitted = {name: make().fit(X, y) for name, make in models.items()}
    fit_times = median_times(
        {name: (lambda make=make: make().fit(X, y)) for name, make in models.items()},
        args.repeats,
        args.consecutive,
    )
    predict_times = median_times(
        {name: (lambda m=model: m.predict_proba(X)) for name, model in fitted.items()},
        args.repeats,
        args.consecutive,
    )

    ref_fit, ref_pred = fit_times["sklearn CategoricalNB"], predict_times["sklearn CategoricalNB"]
    lap_fit = fit_times["laplace"]
    header = (
        f"{'model':<22} {'fit ms':>8} {'fit/CNB':>8} {'fit/laplace':>12} "
        f"{'proba ms':>9} {'proba/CNB':>10}"
    )
    print(header)
    print("-" * len(header))
    for name in models:
        print(
            f"{name:<22} {1e3 * fit_times[name]:8.2f} {fit_times[name] / ref_fit:8.2f} "
            f"{fit_times[name] / lap_fit:12.2f} {1e3 * predict_times[name]:9.2f} "
            f"{predict_times[name] / ref_pred:10.2f}"
        )
    print(
        f"\ntargets: laplace fit / CategoricalNB fit = {lap_fit / ref_fit:.2f} (<= 1.0); "
        f"heb-m fit / laplace fit = {fit_times['heb-m'] / lap_fit:.2f} (<= 1.3)"
    )


if __name__ == "__main__":
    main()
