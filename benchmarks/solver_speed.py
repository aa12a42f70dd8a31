"""Speed and peak memory of the batched Type-II ML solver, before and after, in one process.

The solver's inputs are captured from real fits on synthetic Zipf codes (the shapes of
``benchmarks/nb_speed.py`` and ``benchmarks/aode_speed.py``): HEB-M Naive Bayes at
N = 10^4 rows, F = 100, C = 10, K = 100 and 10^5, and HEB-AODE at 10^4 rows (half to
train), 60 features, K = 100 (``--large``: also 10^5 rows; minutes). Per shape, in
interleaved rounds after a warm-up: the current solver, the baseline solver (the single
module ``heb/concentration.py`` as it was before the split, loaded from git) and a peer,
the Laplace fit of the same model. For HEB-AODE also :class:`heb.ConcentrationProblem`
fed in parts of 2 x 10^6 items, as ``heb/aode.py`` could call it. Peak memory is the
``tracemalloc`` peak of one solve (numpy reports its buffers to it).

Run from the repository root::

    python3 benchmarks/solver_speed.py [--repeats 3] [--large] [--baseline REV]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import tracemalloc
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import aode_speed  # noqa: E402
import nb_speed  # noqa: E402

import heb.aode  # noqa: E402
import heb.smoothing  # noqa: E402
from heb import concentration  # noqa: E402
from heb.aode import AODE  # noqa: E402
from heb.nb import NaiveBayes  # noqa: E402

PART_ITEMS = 2_000_000


def baseline_module(revision: str | None) -> types.ModuleType:
    """``heb/concentration.py`` at ``revision`` (default: before the solver modules)."""
    if revision is None:
        added = subprocess.run(
            ["git", "log", "--diff-filter=A", "--format=%H", "--", "heb/concentration_solver.py"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        revision = f"{added[-1]}^" if added else "HEAD"
    source = subprocess.run(
        ["git", "show", f"{revision}:heb/concentration.py"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    module = types.ModuleType("concentration_baseline")
    exec(compile(source, f"concentration.py@{revision}", "exec"), module.__dict__)  # noqa: S102
    return module


def capture(owner: types.ModuleType, name: str, fit) -> tuple[tuple, dict]:
    """The arguments of ``owner.name`` during ``fit()`` (restored afterwards)."""
    original, seen = getattr(owner, name), {}

    def record(*args, **kwargs):
        seen["call"] = (args, kwargs)
        return original(*args, **kwargs)

    setattr(owner, name, record)
    try:
        fit()
    finally:
        setattr(owner, name, original)
    return seen["call"]


def median_times(jobs: dict, repeats: int) -> dict[str, float]:
    """Median wall time of each job over interleaved rounds after a warm-up round."""
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for run in range(repeats + 1):
        for name, job in jobs.items():
            start = time.perf_counter()
            job()
            if run:
                times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def peak_mb(job) -> float:
    """tracemalloc peak of one call, MB."""
    tracemalloc.start()
    job()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def in_parts(args: tuple):
    """A job solving captured segment arguments with ConcentrationProblem, in parts."""
    group, count, prior_of_item, doc_group, doc_total, n_groups = args[:6]
    prior, category = np.unique(prior_of_item, return_inverse=True)  # aode has the ids

    def job():
        problem = concentration.ConcentrationProblem(n_groups, prior)
        for start in range(0, group.size, PART_ITEMS):
            part = slice(start, start + PART_ITEMS)
            problem.add_items(group[part], category[part], count[part])
        problem.add_documents(doc_group, doc_total)
        return problem.fit(*args[6:8])

    return job


def report(label: str, times: dict, peaks: dict, peer: str, agree: float) -> None:
    new, old = times["new"], times["old"]
    print(
        f"{label:<28} solver new {new:7.3f} s  old {old:7.3f} s  new/old {new / old:5.2f}  "
        f"| {peer} {times['peer']:7.3f} s  solver/{peer}: new {new / times['peer']:5.2f} "
        f"old {old / times['peer']:5.2f}  | peak MB new {peaks['new']:7.0f} old "
        f"{peaks['old']:7.0f}  | max |m rel diff| {agree:.1e}",
        flush=True,
    )
    if "parts" in times:
        print(
            f"{'':<28} in parts of {PART_ITEMS:,} items: {times['parts']:7.3f} s, "
            f"peak MB {peaks['parts']:7.0f}",
            flush=True,
        )


def nb_shape(k: int, old: types.ModuleType, repeats: int) -> None:
    X, y = nb_speed.zipf_codes(10_000, 100, k, 10)
    args, kwargs = capture(
        heb.smoothing, "fit_segments", lambda: NaiveBayes(smoother="heb-m").fit(X, y)
    )
    jobs = {
        "new": lambda: concentration.fit_segments(*args, **kwargs),
        "old": lambda: old.fit_segments(*args, **kwargs),
        "peer": lambda: NaiveBayes(smoother="laplace").fit(X, y),
        "heb-m": lambda: NaiveBayes(smoother="heb-m").fit(X, y),
    }
    times = median_times(jobs, repeats)
    peaks = {name: peak_mb(jobs[name]) for name in ("new", "old")}
    agree = np.max(np.abs(jobs["new"]().m / jobs["old"]().m - 1.0))
    report(f"HEB-M NB 1e4x100 C10 K={k}", times, peaks, "Laplace fit", agree)
    before = times["heb-m"] - times["new"] + times["old"]
    print(
        f"{'':<28} HEB-M fit / Laplace fit: {times['heb-m'] / times['peer']:.2f} "
        f"(with the old solver about {before / times['peer']:.2f}; target <= 1.3)",
        flush=True,
    )


def aode_shape(n_rows: int, old: types.ModuleType, repeats: int) -> None:
    X, y = aode_speed.zipf_codes(n_rows, 60, 100)
    X, y = X[: n_rows // 2], y[: n_rows // 2]
    args, _ = capture(
        heb.aode, "fit_concentration_segments", lambda: AODE(smoother="heb").fit(X, y)
    )
    jobs = {
        "new": lambda: concentration.fit_concentration_segments(*args),
        "old": lambda: old.fit_concentration_segments(*args),
        "parts": in_parts(args),
        "peer": lambda: AODE(smoother="laplace").fit(X, y),
    }
    times = median_times(jobs, repeats)
    peaks = {name: peak_mb(jobs[name]) for name in ("new", "old", "parts")}
    agree = np.max(np.abs(jobs["parts"]().m / jobs["old"]().m - 1.0))
    report(f"HEB-AODE {n_rows:.0e} x 60 K=100", times, peaks, "AODE fit", agree)


def main(argv: list[str] | None = None) -> None:
    """Time every shape and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also HEB-AODE at 10^5 rows")
    parser.add_argument("--baseline", default=None, help="git revision of the old solver")
    args = parser.parse_args(argv)
    old = baseline_module(args.baseline)
    print(f"medians of {args.repeats} interleaved rounds after a warm-up\n")
    for k in (100, 100_000):
        nb_shape(k, old, args.repeats)
    aode_shape(10_000, old, max(1, args.repeats // 2))
    if args.large:
        aode_shape(100_000, old, 1)


if __name__ == "__main__":
    main()
