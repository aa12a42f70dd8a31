"""Fit / predict_proba speed of every smoother against scikit-learn's CategoricalNB.

Data: amazon-employee-access from the shared datasets (all nine columns categorical, K up
to about 5,800 after subsampling), stratified 20,000-row subsample with seed 42. Every
timing is the median of ``--repeats`` interleaved rounds, all in one process, printed as
ratios; predict_proba is timed on the 20,000 training rows.

Run from the repository root::

    python3 benchmarks/nb_speed.py                  # 21 interleaved rounds
    python3 benchmarks/nb_speed.py --consecutive    # each model's runs back to back
    python3 benchmarks/nb_speed.py --repeats 5
"""

from __future__ import annotations

import argparse
import gzip
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


def median_times(jobs: dict, repeats: int, consecutive: bool = False) -> dict[str, float]:
    """Median wall time of each job over ``repeats`` runs, after one warm-up run.

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
        start = time.perf_counter()
        jobs[name]()
        if run:  # run 0 is the warm-up
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(values)) for name, values in times.items()}


def main(argv: list[str] | None = None) -> None:
    """Time every model and print a table of medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument(
        "--consecutive",
        action="store_true",
        help="time each model's repeats back to back instead of interleaved rounds",
    )
    args = parser.parse_args(argv)

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
