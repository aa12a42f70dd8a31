"""Typing a CSV on the large-file path: :func:`heb.scale.csv_scan.csv_scan` seconds by shape.

A generated CSV of mixed kinds of column (integers, decimals, text, ZIP-like codes with
leading zeros, integers with blank and ``NA`` cells, numbers with a few words, spaced
numbers), in wide shapes (20,000 rows x 100 / 300 / 1,500 columns) and one tall narrow one
(1.5 x 10^6 rows x 10 columns). Per shape, the best of ``--repeats`` runs of ``csv_scan``
on a fresh in-memory DuckDB connection, in this one process; it prints, it does not assert.

Run from the repository root::

    python3 benchmarks/csv_typing.py
    python3 benchmarks/csv_typing.py --shapes 20000x300 --repeats 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.scale.csv_scan import csv_scan  # noqa: E402

SHAPES = ("20000x100", "20000x300", "20000x1500", "1500000x10")


def _column(rng: np.random.Generator, j: int, rows: int) -> np.ndarray:
    """The cells (as text) of column ``j``, its kind chosen by ``j``."""
    kind = j % 8
    if kind == 0:  # integers
        return rng.integers(-1000, 1000, rows).astype(str)
    if kind == 1:  # decimals
        return np.char.mod("%.3f", rng.normal(0, 100, rows))
    if kind == 2:  # text
        return np.array(["red", "green", "blue", "cyan"])[rng.integers(0, 4, rows)]
    if kind == 3:  # ZIP-like codes with leading zeros
        return np.char.zfill(rng.integers(0, 99999, rows).astype(str), 5)
    if kind == 4:  # integers with blank and NA cells
        cells = rng.integers(0, 50, rows).astype(str).astype(object)
        cells[rng.random(rows) < 0.05] = ""
        cells[rng.random(rows) < 0.05] = "NA"
        return cells.astype(str)
    if kind == 5:  # numbers with a few words (a mixed column, read as text)
        cells = rng.integers(0, 100, rows).astype(str).astype(object)
        cells[rng.random(rows) < 0.01] = "n/a?"
        return cells.astype(str)
    if kind == 6:  # numbers with spaces around (read as text, typed in SQL)
        return np.char.add(" ", rng.integers(0, 9, rows).astype(str))
    return np.array(["true", "false"])[rng.integers(0, 2, rows)]  # booleans


def write_csv(path: Path, rows: int, columns: int, seed: int = 0) -> Path:
    """A mixed CSV of ``rows`` x ``columns``, written in blocks of columns' cells."""
    rng = np.random.default_rng(seed)
    cells = [_column(rng, j, rows) for j in range(columns)]
    with path.open("w") as out:
        out.write(",".join(f"col{j}" for j in range(columns)) + "\n")
        step = max(1, 2_000_000 // columns)
        for start in range(0, rows, step):
            block = np.stack([c[start : start + step] for c in cells], axis=1)
            out.write("\n".join(",".join(row) for row in block.tolist()) + "\n")
    return path


def time_scan(path: Path, repeats: int) -> float:
    """Best seconds of ``repeats`` runs of csv_scan, each on a fresh connection."""
    import duckdb

    best = float("inf")
    for _ in range(repeats):
        con = duckdb.connect()
        start = time.perf_counter()
        csv_scan(con, [path], path.name)
        best = min(best, time.perf_counter() - start)
        con.close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES), help="rows x columns, by commas")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="where the CSVs are written (kept)")
    args = parser.parse_args()
    folder = Path(args.data_dir or tempfile.mkdtemp(prefix="heb_csv_typing_"))
    folder.mkdir(parents=True, exist_ok=True)
    for shape in args.shapes.split(","):
        rows, columns = map(int, shape.split("x"))
        path = folder / f"mixed_{rows}x{columns}.csv"
        if not path.exists():
            write_csv(path, rows, columns)
        seconds = time_scan(path, args.repeats)
        print(f"{rows:>9} rows x {columns:>5} columns: {seconds:7.2f} s (best of {args.repeats})")


if __name__ == "__main__":
    main()
