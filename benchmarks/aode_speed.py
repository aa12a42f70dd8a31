"""Fit / predict time and 10-fold CV log-loss of AODE and HEB-AODE on amazon-employee-access.

Data: the shared amazon-employee-access, all nine columns categorical, stratified
20,000-row subsample with seed 42 (as ``benchmarks/nb_speed.py``). Protocol (SPEC
sections 1, 5, 6): stratified 10-fold CV, shuffled, seed 42; each fold's categories are
coded from its training rows only (a test value never seen in training is unseen: absent
evidence). Per fold, fit and predict_proba are timed as the median of ``--repeats``
runs; the table reports the median over folds, all in one process, and the log-loss
(true-class probability clipped to 1e-15) averaged over folds next to the paper's.

Run from the repository root::

    python3 benchmarks/aode_speed.py               # 3 timed repeats per fold
    python3 benchmarks/aode_speed.py --repeats 1 --folds 3
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.aode import AODE  # noqa: E402
from heb.metrics import log_loss  # noqa: E402
from heb.paths import datasets_dir  # noqa: E402

DATASET = "amazon-employee-access"
TARGET = "target"
N_ROWS = 20_000
SEED = 42
#: the paper's Table 3 (10-fold mean log-loss) and section 5.6 (HEB-AODE 9.66 s per fold)
PAPER_LOG_LOSS = {"laplace": 0.4532, "heb": 0.4093}
NAMES = {"laplace": "AODE", "heb": "HEB-AODE"}


def load_subsample() -> tuple[np.ndarray, np.ndarray]:
    """The stratified 20,000-row subsample: raw integer IDs (n, 9) and class indices."""
    with gzip.open(datasets_dir() / f"{DATASET}.csv.gz", "rt") as handle:
        frame = pd.read_csv(handle)
    y_all = frame.pop(TARGET).to_numpy()
    idx, _ = train_test_split(
        np.arange(len(frame)), train_size=N_ROWS, stratify=y_all, random_state=SEED
    )
    idx = np.sort(idx)
    classes, y = np.unique(y_all[idx], return_inverse=True)
    return frame.to_numpy()[idx], y


def encode_fold(raw: np.ndarray, train: np.ndarray, test: np.ndarray):
    """Codes 0..K_f-1 from the training rows' sorted values; unseen test values get -1."""
    codes_train = np.empty((train.size, raw.shape[1]), dtype=np.int64)
    codes_test = np.empty((test.size, raw.shape[1]), dtype=np.int64)
    for f in range(raw.shape[1]):
        cats, codes_train[:, f] = np.unique(raw[train, f], return_inverse=True)
        pos = np.searchsorted(cats, raw[test, f]).clip(0, cats.size - 1)
        codes_test[:, f] = np.where(cats[pos] == raw[test, f], pos, -1)
    return codes_train, codes_test


def median_time(func, repeats: int) -> tuple[float, object]:
    """Median wall time of ``func()`` over ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def main(argv: list[str] | None = None) -> None:
    """Run the CV and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--folds", type=int, default=10, help="folds actually run (of 10)")
    args = parser.parse_args(argv)

    raw, y = load_subsample()
    print(f"{DATASET}: {raw.shape[0]} rows, {raw.shape[1]} categorical features")
    folds = list(StratifiedKFold(10, shuffle=True, random_state=SEED).split(raw, y))
    warm_train, _ = encode_fold(raw, *folds[0])
    AODE(smoother="heb").fit(warm_train, y[folds[0][0]])  # warm-up (imports, caches)

    fit_t = {s: [] for s in NAMES}
    pred_t = {s: [] for s in NAMES}
    losses = {s: [] for s in NAMES}
    info = {}
    for train, test in folds[: args.folds]:
        X_train, X_test = encode_fold(raw, train, test)
        y_train = y[train]
        for smoother in NAMES:
            estimator = AODE(smoother=smoother)
            seconds, model = median_time(
                lambda e=estimator, a=X_train, b=y_train: e.fit(a, b), args.repeats
            )
            fit_t[smoother].append(seconds)
            seconds, proba = median_time(lambda m=model, a=X_test: m.predict_proba(a), args.repeats)
            pred_t[smoother].append(seconds)
            losses[smoother].append(log_loss(y[test], proba))
            info[smoother] = model
    k = info["laplace"].n_categories_
    print(
        f"last fold: K_f = {k.tolist()}; super-parents {info['laplace'].parents_.tolist()}, "
        f"{len(info['laplace'].fallback_pairs_)} pairs over the joint cap, "
        f"memory_cells_ = {info['laplace'].memory_cells_:,}"
    )
    diag = info["heb"].concentrations_
    print(
        f"HEB-AODE groups: {diag['m'].size}, fallback m = K_j: {int(diag['fallback'].sum())}, "
        f"clamped high: {int((diag['clamped'] == 'high').sum())}, "
        f"median Newton iterations: {np.median(diag['iterations'][~diag['fallback']]):.0f}\n"
    )

    header = (
        f"{'model':<9} {'fit s/fold':>11} {'predict s/fold':>15} "
        f"{'log-loss':>9} {'paper':>7} {'folds':>6}"
    )
    print(header)
    print("-" * len(header))
    for smoother, name in NAMES.items():
        print(
            f"{name:<9} {np.median(fit_t[smoother]):11.3f} {np.median(pred_t[smoother]):15.4f} "
            f"{np.mean(losses[smoother]):9.4f} {PAPER_LOG_LOSS[smoother]:7.4f} "
            f"{len(losses[smoother]):6d}"
        )
    ratio = np.median(fit_t["heb"]) / np.median(fit_t["laplace"])
    print(
        f"\nHEB-AODE fit / AODE fit = {ratio:.2f} (target <= 2; paper ~25x, 9.66 s per fold); "
        f"predict ratio = {np.median(pred_t['heb']) / np.median(pred_t['laplace']):.2f}"
    )


if __name__ == "__main__":
    main()
