"""Speed of AODE and HEB-AODE against Weka 3.6's AODE on a grid, and a CV table on amazon.

Grid (issue 16): synthetic Zipf codes (``zipf_codes``: each feature's categories drawn
from a Zipf law with exponent 1.1, permuted per class, 30 % of cells copying the previous
feature shifted by one, so pairs interact), two classes, half the rows to train and half
to test, at 10^4 - 10^6 rows x 10 - 60 features x K = 2 - 100 categories. Per point:

- Weka: ``java -cp weka.jar weka.classifiers.bayes.AODE -t train.arff -T test.arff`` as
  one whole process (JVM start, ARFF parsing, training, Weka's evaluation on the training
  and test data), its wall and CPU time (user + sys of the process, JIT and GC threads
  included), peak RSS and Weka's own "Time taken to build model" line.
- Ours: a fresh Python process per model that loads the codes, warms up on 100 rows, then
  times ``fit`` on the training half + ``predict_proba`` on the test half (wall and CPU
  time of that work alone: the import and load are excluded, as in the issue's "ours minus
  a process that only imports and loads the arrays"); peak RSS of that process.

Targets: ours (AODE fit + predict) <= Weka's whole process at every point; HEB-AODE <= 2x
our AODE at every point. On a shared machine wall time follows the load of other jobs, so
CPU time is printed beside it. Weka is taken from ``WEKA_JAR`` (default the Debian path).

Amazon (``--amazon``): fit / predict time and 10-fold CV log-loss of AODE and HEB-AODE on
the shared amazon-employee-access, stratified 20,000-row subsample with seed 42 (as
``benchmarks/nb_speed.py``); each fold's categories coded from its training rows only.

Run from the repository root::

    python3 benchmarks/aode_speed.py --quick       # six grid points (the issue's four and two more)
    python3 benchmarks/aode_speed.py --full        # 27 points; an hour or more
    python3 benchmarks/aode_speed.py --points 1e6x30x10 1e6x30x100 --no-weka   # ours only
    python3 benchmarks/aode_speed.py --amazon --repeats 1 --folds 3
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
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
REPO_ROOT = Path(__file__).resolve().parent.parent
WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))
GNU_TIME = Path("/usr/bin/time")
#: (rows, features, categories); the issue's four points first
GRID_QUICK = [
    (10**5, 60, 2),
    (10**5, 60, 10),
    (10**4, 60, 100),
    (10**5, 60, 100),
    (10**4, 10, 2),
    (10**6, 10, 10),
]
GRID_FULL = list(itertools.product((10**4, 10**5, 10**6), (10, 30, 60), (2, 10, 100)))
#: one model's fit + predict in a fresh process: argv = codes.npz, smoother
_OURS = """
import json, sys, time
import numpy as np
from heb.aode import AODE
data = np.load(sys.argv[1])
X_train, y_train, X_test = data["X_train"], data["y_train"], data["X_test"]
AODE(smoother=sys.argv[2]).fit(X_train[:100], y_train[:100]).predict_proba(X_test[:100])
wall, cpu = time.perf_counter(), time.process_time()
model = AODE(smoother=sys.argv[2]).fit(X_train, y_train)
fit_wall = time.perf_counter() - wall
model.predict_proba(X_test)
print(json.dumps({
    "fit_wall": fit_wall,
    "wall": time.perf_counter() - wall,
    "cpu": time.process_time() - cpu,
    "rss_mb": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024,
}))
"""


# ---------------------------------------------------------------------- grid against Weka
_NO_WEKA = dict.fromkeys(("wall", "cpu", "build", "rss_mb"), float("nan"))


def parse_point(text: str) -> tuple[int, int, int]:
    """``ROWSxFxK`` (e.g. ``1e6x30x10``) as (rows, features, categories)."""
    try:
        rows, features, categories = (int(float(part)) for part in text.lower().split("x"))
    except ValueError:
        message = f"a point is ROWSxFxK, e.g. 1e6x30x10, not {text!r}"
        raise argparse.ArgumentTypeError(message) from None
    return rows, features, categories


def zipf_codes(n_rows: int, n_features: int, n_categories: int, seed: int = 0):
    """Codes (n, F) and two classes: Zipf(1.1) categories permuted per class, pairs linked."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    pmf = 1.0 / np.arange(1, n_categories + 1) ** 1.1
    cdf = np.cumsum(pmf / pmf.sum())
    ranks = np.minimum(np.searchsorted(cdf, rng.random((n_rows, n_features))), n_categories - 1)
    permutation = np.argsort(rng.random((2, n_features, n_categories)), axis=2)
    X = permutation[y[:, None], np.arange(n_features), ranks]
    copy = rng.random((n_rows, n_features)) < 0.3
    X[:, 1:] = np.where(copy[:, 1:], (X[:, :-1] + 1) % n_categories, X[:, 1:])
    return X, y


def write_arff(path: Path, X: np.ndarray, y: np.ndarray, n_categories: int) -> None:
    """All-nominal ARFF with categories 0..K-1 and the class last."""
    values = ",".join(map(str, range(n_categories)))
    header = ["@relation zipf"]
    header += [f"@attribute f{f} {{{values}}}" for f in range(X.shape[1])]
    header += ["@attribute class {0,1}", "@data", ""]
    path.write_text("\n".join(header))
    frame = pd.DataFrame(np.column_stack([X, y]))
    frame.to_csv(path, mode="a", header=False, index=False)


def _run(command: list[str]) -> tuple[str, dict]:
    """Run a process; its stdout and (wall s, CPU s of the process and its children)."""
    wall = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{command[0]} failed with exit code {process.returncode}")
    return out, {"wall": time.perf_counter() - wall, "cpu": usage.ru_utime + usage.ru_stime}


def run_weka(train: Path, test: Path) -> dict:
    """Weka 3.6's AODE as one whole process, with its own build-time line."""
    command = ["java", "-cp", str(WEKA_JAR), "weka.classifiers.bayes.AODE"]
    command += ["-t", str(train), "-T", str(test)]
    # a forked child inherits the RSS high-water mark of this (large) process, so the peak
    # is taken by GNU time, whose own child java is
    peak = train.with_name("weka-peak.txt")
    timed = ["/usr/bin/time", "-f", "%M", "-o", str(peak)] if GNU_TIME.exists() else []
    out, measured = _run([*timed, *command])
    build = re.search(r"Time taken to build model: ([\d.]+)", out)
    measured["build"] = float(build.group(1)) if build else float("nan")
    measured["rss_mb"] = int(peak.read_text().split()[-1]) / 1024 if timed else float("nan")
    return measured


def run_ours(codes: Path, smoother: str) -> dict:
    """Our fit + predict_proba in a fresh process (the work alone; the process's VmHWM)."""
    out, measured = _run([sys.executable, "-c", _OURS, str(codes), smoother])
    return {**json.loads(out), "cpu_process": measured["cpu"]}


def grid(points: list[tuple[int, int, int]], repeats: int, weka: bool = True) -> None:
    """Time Weka, AODE and HEB-AODE at every point and print the table (medians of repeats).

    ``weka`` False leaves Weka out (its columns print nan): HEB-AODE / AODE only.
    """
    if weka and not WEKA_JAR.exists():
        raise SystemExit(f"Weka is absent: no jar at {WEKA_JAR} (set WEKA_JAR)")
    header = (
        f"{'rows':>8} {'F':>3} {'K':>4} | {'Weka s':>7} {'cpu':>6} {'build':>6} {'MB':>5} | "
        f"{'AODE s':>7} {'cpu':>6} {'MB':>5} | {'HEB s':>7} {'cpu':>6} {'MB':>5} | "
        f"{'AODE/Weka':>9} {'cpu':>5} | {'HEB/AODE':>8} {'cpu':>5}"
    )
    print(header)
    print("-" * len(header))
    for n_rows, n_features, n_categories in points:
        X, y = zipf_codes(n_rows, n_features, n_categories)
        half = n_rows // 2
        with tempfile.TemporaryDirectory(prefix="aode-speed-") as tmp:
            tmp = Path(tmp)
            if weka:
                write_arff(tmp / "train.arff", X[:half], y[:half], n_categories)
                write_arff(tmp / "test.arff", X[half:], y[half:], n_categories)
            np.savez(tmp / "codes.npz", X_train=X[:half], y_train=y[:half], X_test=X[half:])
            runs = {"weka": [], "laplace": [], "heb": []}
            for _ in range(repeats):  # interleaved, so load drift hits all three alike
                runs["weka"].append(
                    run_weka(tmp / "train.arff", tmp / "test.arff") if weka else _NO_WEKA
                )
                for smoother in NAMES:
                    runs[smoother].append(run_ours(tmp / "codes.npz", smoother))
        med = {
            name: {key: float(np.median([r[key] for r in rs])) for key in rs[0]}
            for name, rs in runs.items()
        }
        java, ours, heb = med["weka"], med["laplace"], med["heb"]
        print(
            f"{n_rows:>8} {n_features:>3} {n_categories:>4} | "
            f"{java['wall']:7.2f} {java['cpu']:6.2f} {java['build']:6.2f} {java['rss_mb']:5.0f} | "
            f"{ours['wall']:7.2f} {ours['cpu']:6.2f} {ours['rss_mb']:5.0f} | "
            f"{heb['wall']:7.2f} {heb['cpu']:6.2f} {heb['rss_mb']:5.0f} | "
            f"{ours['wall'] / java['wall']:9.2f} {ours['cpu'] / java['cpu']:5.2f} | "
            f"{heb['wall'] / ours['wall']:8.2f} {heb['cpu'] / ours['cpu']:5.2f}",
            flush=True,
        )


# ---------------------------------------------------------------------- amazon CV


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
    """Run the grid (``--quick`` / ``--full``) or the amazon CV and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="six grid points (default)")
    mode.add_argument("--full", action="store_true", help="all 27 grid points")
    mode.add_argument("--amazon", action="store_true", help="CV table on amazon instead")
    mode.add_argument(
        "--points", nargs="+", type=parse_point, metavar="ROWSxFxK", help="these points only"
    )
    parser.add_argument("--no-weka", action="store_true", help="grid: HEB-AODE / AODE only")
    parser.add_argument("--repeats", type=int, default=None, help="grid 1, amazon 3")
    parser.add_argument("--folds", type=int, default=10, help="amazon: folds run (of 10)")
    args = parser.parse_args(argv)
    if not args.amazon:
        points = args.points or (GRID_FULL if args.full else GRID_QUICK)
        grid(points, args.repeats or 1, weka=not args.no_weka)
        return
    amazon_cv(args.repeats or 3, args.folds)


def amazon_cv(repeats: int, n_folds: int) -> None:
    """Run the amazon CV and print its table."""

    raw, y = load_subsample()
    print(f"{DATASET}: {raw.shape[0]} rows, {raw.shape[1]} categorical features")
    folds = list(StratifiedKFold(10, shuffle=True, random_state=SEED).split(raw, y))
    warm_train, _ = encode_fold(raw, *folds[0])
    AODE(smoother="heb").fit(warm_train, y[folds[0][0]])  # warm-up (imports, caches)

    fit_t = {s: [] for s in NAMES}
    pred_t = {s: [] for s in NAMES}
    losses = {s: [] for s in NAMES}
    info = {}
    for train, test in folds[:n_folds]:
        X_train, X_test = encode_fold(raw, train, test)
        y_train = y[train]
        for smoother in NAMES:
            estimator = AODE(smoother=smoother)
            seconds, model = median_time(
                lambda e=estimator, a=X_train, b=y_train: e.fit(a, b), repeats
            )
            fit_t[smoother].append(seconds)
            seconds, proba = median_time(lambda m=model, a=X_test: m.predict_proba(a), repeats)
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
