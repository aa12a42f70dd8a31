"""Scale benchmark: 10-fold CV of the seven smoothers on click logs of 10^6 .. 5 x 10^7 rows.

Data: :func:`heb.scale.clicks.write_clicks` (20 features: ten Zipf ID columns with K from
10^3 to 10^6, seven text columns, three numeric ones), written once into ``--data-dir``.
Per size, in a fresh child process (so each peak RSS is that size's own), on DuckDB:

- ``floor``: DuckDB's bare ``SELECT count(*) ... GROUP BY GROUPING SETS ((click, f), ...)``
  over the same 20 columns (no folds), fetched as a stream of batches (as the counting
  pass reads its own result; fetched whole, its Arrow table alone set the child's peak);
- ``count``: the project's counting pass (the same GROUPING SETS per fold, with the row
  hash), fetched and split into histograms;
- the whole study (:func:`heb.scale.cv.cross_validate`, seven smoothers, 10 folds), with
  its phases, wall and CPU seconds (count, per-fold encodings, the scan spilling the
  rows' slots to per-fold files, fit, scoring fold by fold);
- peak RSS of the child (its own VmHWM: ``ru_maxrss`` starts at the parent's) and of the
  study alone (the high-water mark reset before it, ``/proc/self/clear_refs``), and
  DuckDB's memory limit ``--memory-limit``;

and, where it fits in memory (``--in-memory-max``), the in-memory path on the same folds
(:func:`heb.scale.inmemory.cross_validate_in_memory`) and scikit-learn's CategoricalNB fit
on the same codes; on Spark ``local[2]`` (``--spark-max``) the same study and its ratio to
DuckDB. All ratios are against runs in the same child process.

Run from the repository root::

    python3 benchmarks/scale.py                       # 1e6, 1e7, 5e7 rows
    python3 benchmarks/scale.py --rows 1000000 --spark-max 1000000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.registry import TABLE1_METHODS  # noqa: E402
from heb.scale.clicks import write_clicks  # noqa: E402

TARGET = "click"


_CPU: dict[str, float] = {}


def _peak_rss_mb() -> float:
    """This process's resident high-water mark (VmHWM), in MB."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def _reset_peak_rss() -> None:
    """Start this process's VmHWM again from its current RSS (Linux ``clear_refs`` 5)."""
    Path("/proc/self/clear_refs").write_text("5")


def _drain(batches) -> int:
    """Read a streamed result to its end; its row count."""
    return sum(batch.num_rows for batch in batches)


def _timed(func, name: str | None = None):
    """(result, wall seconds); the process CPU seconds (all threads) go to ``_CPU[name]``."""
    start, cpu = time.perf_counter(), time.process_time()
    out = func()
    if name:
        _CPU[name] = time.process_time() - cpu
    return out, time.perf_counter() - start


def _duckdb_study(path: Path, memory_limit: str) -> dict:
    from heb.scale.counting import count_histograms, describe
    from heb.scale.cv import cross_validate
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source
    from heb.scale.sql import floor_query

    engine = DuckDBEngine(memory_limit=memory_limit)
    engine.register(open_source(path.name, root=path.parent))
    columns = describe(engine, TARGET)
    floor_sql = floor_query(engine.dialect, TARGET, columns.features)
    out = {}
    _, out["floor_s"] = _timed(lambda: _drain(engine.batches(floor_sql)), "floor")
    _, out["count_s"] = _timed(lambda: count_histograms(engine, columns, 10, 42), "count")
    _, out["floor2_s"] = _timed(lambda: _drain(engine.batches(floor_sql)), "floor2")  # warm
    rss = _peak_rss_mb()
    print("PARTIAL " + json.dumps(out | {"cpu": dict(_CPU), "peak_rss_mb": rss}), flush=True)
    out["before_study_peak_rss_mb"] = rss
    _reset_peak_rss()
    result, out["study_s"] = _timed(
        lambda: cross_validate(engine, TARGET, TABLE1_METHODS, n_splits=10, seed=42), "study"
    )
    out["study_peak_rss_mb"] = _peak_rss_mb()
    out["cpu"] = dict(_CPU)
    out["phases"] = result.timings
    out["notes"] = result.notes
    out["rows"] = result.n_rows
    summary = result.summary().set_index("method")
    out["log_loss"] = summary["log_loss_mean"].round(4).to_dict()
    out["auc"] = summary["auc_mean"].round(4).to_dict()
    out["auc_bound"] = float(result.folds["auc_bound"].max())
    return out


def _in_memory(path: Path) -> dict:
    import numpy as np
    import pandas as pd
    from sklearn.naive_bayes import CategoricalNB

    from heb.data import Preprocessor, encode_target
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.inmemory import cross_validate_in_memory, fold_assignment
    from heb.scale.source import open_source

    engine = DuckDBEngine()
    engine.register(open_source(path.name, root=path.parent))
    folds = fold_assignment(engine, TARGET, 10, 42)
    frame = pd.read_parquet(path)
    out = {}
    _, out["in_memory_s"] = _timed(
        lambda: cross_validate_in_memory(frame, TARGET, folds, TABLE1_METHODS), "in_memory"
    )
    codes = Preprocessor().fit_transform(frame.drop(columns=[TARGET]))
    y, _ = encode_target(frame[TARGET])
    k = codes.max(axis=0) + 1
    model = CategoricalNB(alpha=1.0, min_categories=k)
    _, out["sklearn_fit_s"] = _timed(lambda: model.fit(np.maximum(codes, 0), y), "sklearn")
    out["cpu"] = dict(_CPU)
    return out


def _spark_study(path: Path) -> dict:
    from heb.scale.cv import cross_validate
    from heb.scale.source import open_source
    from heb.scale.spark_engine import SparkEngine

    engine, start_s = _timed(lambda: SparkEngine(master="local[2]"))
    engine.spark.sparkContext.setLogLevel("ERROR")
    engine.register(open_source(path.name, root=path.parent))
    result, study_s = _timed(
        lambda: cross_validate(engine, TARGET, TABLE1_METHODS, n_splits=10, seed=42)
    )
    engine.close()
    # the JVM's CPU is not this process's: Spark is compared by wall time only
    return {"spark_start_s": start_s, "spark_study_s": study_s, "spark_phases": result.timings}


def child(args) -> None:
    """One size, one engine family; prints a JSON line."""
    path = Path(args.child)
    out = {"file": path.name}
    if args.part == "duckdb":
        out |= _duckdb_study(path, args.memory_limit)
    elif args.part == "memory":
        out |= _in_memory(path)
    else:
        out |= _spark_study(path)
    out["peak_rss_mb"] = max(_peak_rss_mb(), out.get("before_study_peak_rss_mb", 0.0))
    print("RESULT " + json.dumps(out))


def _run_child(path: Path, part: str, memory_limit: str) -> dict:
    command = [sys.executable, __file__, "--child", str(path), "--part", part]
    command += ["--memory-limit", memory_limit]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{part} on {path.name} failed:\n{done.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10**6, 10**7, 5 * 10**7])
    parser.add_argument("--data-dir", default="/tmp/heb_bench")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB memory_limit")
    parser.add_argument("--in-memory-max", type=int, default=10**6)
    parser.add_argument("--spark-max", type=int, default=10**6)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--part", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    folder = Path(args.data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    table = []
    for rows in args.rows:
        path = folder / f"clicks_{rows:.0e}.parquet".replace("+0", "").replace("+", "")
        if not path.exists():
            _, seconds = _timed(lambda p=path, r=rows: write_clicks(p, r, seed=0))
            print(f"generated {path.name} in {seconds:.0f} s", flush=True)
        result = _run_child(path, "duckdb", args.memory_limit)
        if rows <= args.in_memory_max:
            memory = _run_child(path, "memory", "1GB")
            result |= {k: v for k, v in memory.items() if k.endswith("_s")}
            result["cpu"] |= memory["cpu"]
        if rows <= args.spark_max:
            spark = _run_child(path, "spark", "1GB")
            result |= {k: v for k, v in spark.items() if k.startswith("spark")}
        print(json.dumps(result), flush=True)
        table.append((rows, result))
    _print_table(table)


def _phase_text(phases: dict, name: str) -> str:
    """``wall (cpu)`` of one phase of the study, ``-`` when it did not run."""
    if name not in phases:
        return "-"
    return f"{phases[name]:.1f} ({phases.get(name + '_cpu', float('nan')):.1f})"


def _print_table(table) -> None:
    print()
    print(
        "| rows | floor s (cpu) | count s (cpu) | count/floor wall, cpu | study s (cpu)"
        " | study: count | encode | spill scan | fit | score | peak RSS MB: child, study"
        " | in-memory s (cpu) | CNB fit s | Spark s | Spark/DuckDB |"
    )
    print("|---" * 15 + "|")
    for rows, r in table:
        cpu = r["cpu"]
        floor = min(r["floor_s"], r["floor2_s"])
        floor_cpu = min(cpu["floor"], cpu["floor2"])
        phases = r["phases"]
        memory = f"{r['in_memory_s']:.0f} ({cpu['in_memory']:.0f})" if "in_memory_s" in r else "-"
        cnb = f"{r['sklearn_fit_s']:.1f}" if "sklearn_fit_s" in r else "-"
        spark = f"{r['spark_study_s']:.0f}" if "spark_study_s" in r else "-"
        ratio = f"{r['spark_study_s'] / r['study_s']:.1f}x" if "spark_study_s" in r else "-"
        steps = " | ".join(
            _phase_text(phases, name) for name in ("count", "encode", "spill", "fit", "score")
        )
        print(
            f"| {rows:.0e} | {floor:.1f} ({floor_cpu:.1f}) | {r['count_s']:.1f} "
            f"({cpu['count']:.1f}) | {r['count_s'] / floor:.2f}x, "
            f"{cpu['count'] / floor_cpu:.2f}x | {r['study_s']:.0f} ({cpu['study']:.0f}) "
            f"| {steps} | {r['peak_rss_mb']:.0f}, {r['study_peak_rss_mb']:.0f} | {memory} "
            f"| {cnb} | {spark} | {ratio} |"
        )


if __name__ == "__main__":
    main()
