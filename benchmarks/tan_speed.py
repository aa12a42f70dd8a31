"""Fit time of TAN and HEB-TAN against NB (Laplace) and AODE on the shared datasets.

Data: every shared benchmark copy (``heb.data.load_shared``; amazon-employee-access is one
of the 26), subsampled to at most 20,000 rows (stratified, seed 42). Protocol (SPEC
sections 1, 5, 6): stratified k-fold CV, shuffled, seed 42 (``safe_n_splits`` folds); each
fold is encoded by the project's ``heb.data.Preprocessor`` fitted on its training
rows (10 quantile bins, mode / median imputation). Per fold, the four models' fits run
interleaved ``--repeats`` times (the order rotated each round) and each keeps its median;
a dataset's figure is the median over folds. Fit time is ``fit`` on the code matrix
(validation, counting, tree, smoothing), in process CPU time by default (``--clock
cpu``: on a shared machine, wall time mostly measures the other jobs; ``--clock wall``
for SPEC's wall time). Log-loss (true-class probability clipped to 1e-15) is averaged
over folds.

Target (issue 14): HEB-TAN fit within 2x of TAN's.

Run from the repository root::

    python3 benchmarks/tan_speed.py                    # 10 folds, 4 repeats
    python3 benchmarks/tan_speed.py --folds 3 --repeats 1 --datasets car,amazon-employee-access
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.aode import AODE  # noqa: E402
from heb.data import (  # noqa: E402
    Preprocessor,
    encode_target,
    load_shared,
    safe_n_splits,
    shared_dataset_names,
    stratified_subsample,
)
from heb.metrics import log_loss  # noqa: E402
from heb.nb import NaiveBayes  # noqa: E402
from heb.tan import TAN  # noqa: E402

SEED = 42
MAX_ROWS = 20_000
#: what a fit is timed with (``--clock``)
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
MODELS = {
    "NB": lambda: NaiveBayes(smoother="laplace"),
    "AODE": lambda: AODE(),
    "TAN": lambda: TAN(),
    "HEB-TAN": lambda: TAN(smoother="heb"),
}


def folds_of(name: str, n_folds: int):
    """The dataset's encoded folds: (X_train, y_train, X_test, y_test) code matrices."""
    dataset = load_shared(name)
    X, y = stratified_subsample(dataset.X, dataset.y, MAX_ROWS, SEED)
    y_idx, _ = encode_target(y)
    n_splits, _ = safe_n_splits(y_idx, 10)
    splitter = StratifiedKFold(n_splits, shuffle=True, random_state=SEED)
    for train, test in list(splitter.split(X, y_idx))[:n_folds]:
        pre = Preprocessor(categorical=dataset.categorical)
        X_train = pre.fit_transform(X.iloc[train])
        yield X_train, y_idx[train], pre.transform(X.iloc[test]), y_idx[test]


def time_fold(X_train, y_train, X_test, y_test, repeats: int, clock):
    """Median fit seconds per model (interleaved runs) and each model's log-loss."""
    times = {name: [] for name in MODELS}
    fitted = {}
    names = list(MODELS)
    for r in range(repeats):
        # rotate the order each round: a fit right after a large one pays its page faults
        for name in names[r % len(names) :] + names[: r % len(names)]:
            estimator = MODELS[name]()
            start = clock()
            fitted[name] = estimator.fit(X_train, y_train)
            times[name].append(clock() - start)
    losses = {}
    for name, model in fitted.items():
        # a class missing from the training rows gets probability 0 (clipped by log_loss)
        proba = np.zeros((len(y_test), int(max(y_test.max(), y_train.max())) + 1))
        proba[:, model.classes_] = model.predict_proba(X_test)
        losses[name] = log_loss(y_test, proba)
    return {name: float(np.median(t)) for name, t in times.items()}, losses, fitted["TAN"]


def main(argv: list[str] | None = None) -> None:
    """Run every dataset and print the table and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10, help="folds actually run (of 10)")
    parser.add_argument("--repeats", type=int, default=4, help="rounds (4: every order)")
    parser.add_argument("--datasets", default="", help="comma-separated names (default: all)")
    parser.add_argument(
        "--clock",
        choices=CLOCKS,
        default="cpu",
        help="cpu: process time, robust to other jobs on a shared machine; wall: perf_counter",
    )
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    names = [n for n in args.datasets.split(",") if n] or shared_dataset_names()
    if not names:
        sys.exit("No shared datasets found (set HEB_SHARED_DIR or HEB_DATASETS_DIR).")
    TAN(smoother="heb").fit(np.array([[0, 1], [1, 0], [1, 1]]), [0, 1, 1])  # warm-up

    header = (
        f"{'dataset':<24} {'rows':>6} {'F':>3} {'maxK':>5} "
        + " ".join(f"{m + ' ms':>10}" for m in MODELS)
        + f" {'HEB/TAN':>8} {'TAN/AODE':>9} {'LL TAN':>7} {'LL HEB':>7} {'LL AODE':>7}"
    )
    print(f"fit times in ms of {args.clock} time")
    print(header)
    print("-" * len(header))
    ratios, tan_vs_aode = [], []
    for name in names:
        per_fold, losses = [], []
        for X_train, y_train, X_test, y_test in folds_of(name, args.folds):
            seconds, loss, tan = time_fold(X_train, y_train, X_test, y_test, args.repeats, clock)
            per_fold.append(seconds)
            losses.append(loss)
        fit = {m: float(np.median([s[m] for s in per_fold])) for m in MODELS}
        loss = {m: float(np.mean([lo[m] for lo in losses])) for m in MODELS}
        ratio = fit["HEB-TAN"] / fit["TAN"]
        ratios.append(ratio)
        tan_vs_aode.append(fit["TAN"] / fit["AODE"])
        print(
            f"{name:<24} {len(X_train) + len(X_test):>6} {tan.n_features_in_:>3} "
            f"{int(tan.n_categories_.max()):>5} "
            + " ".join(f"{1e3 * fit[m]:>10.1f}" for m in MODELS)
            + f" {ratio:>8.2f} {tan_vs_aode[-1]:>9.2f} {loss['TAN']:>7.4f} "
            f"{loss['HEB-TAN']:>7.4f} {loss['AODE']:>7.4f}",
            flush=True,
        )
    ratios = np.array(ratios)
    print(
        f"\nHEB-TAN fit / TAN fit over {ratios.size} datasets: median {np.median(ratios):.2f}, "
        f"geometric mean {np.exp(np.log(ratios).mean()):.2f}, max {ratios.max():.2f} "
        f"(target <= 2: {'met' if ratios.max() <= 2 else 'NOT met'} on every dataset); "
        f"TAN fit / AODE fit: median {np.median(tan_vs_aode):.2f}"
    )


if __name__ == "__main__":
    main()
