"""HEB methods against the reference models on the shared datasets (issue 14, section 3).

Cross-validates HEB-M, HEB-M+GR, HEB-AODE, HEB-TAN, HEB-H and the three references
(CategoricalNB, TargetEncoder+LR, HistGradientBoosting) through
:func:`heb.evaluate.run_benchmark` (the paper protocol: stratified 10 folds, seed 42),
one dataset at a time, appending each dataset's fold rows to ``--out`` (so a long run can
be read while it goes); ``--summarise`` prints Table 9 (:func:`heb.evaluate.paper.table9`):
mean ranks on log-loss, Brier, ECE and accuracy and the fit time per fold against HEB-M's.

    python benchmarks/references.py --max-rows 5000 --out /tmp/references.csv
    python benchmarks/references.py --summarise /tmp/references.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.data import load_shared, shared_dataset_names  # noqa: E402
from heb.evaluate import run_benchmark  # noqa: E402
from heb.evaluate.paper import TABLE_METHODS, table9  # noqa: E402

METHODS = TABLE_METHODS[9]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("references.csv"))
    parser.add_argument("--part", default="0/1", help="i/n: every n-th dataset from i")
    parser.add_argument("--summarise", type=Path, nargs="*", help="summarise these CSVs only")
    args = parser.parse_args()
    if args.summarise:
        frame = pd.concat([pd.read_csv(p) for p in args.summarise], ignore_index=True)
        print(table9(frame).round(3).to_markdown(index=False))
        return
    index, parts = map(int, args.part.split("/"))
    for name in shared_dataset_names()[index::parts]:
        folds = run_benchmark(
            [load_shared(name)],
            METHODS,
            max_rows=args.max_rows,
            n_splits=args.folds,
            use_cache=False,
        )
        folds.to_csv(args.out, mode="a", header=not args.out.exists(), index=False)
        print(name, flush=True)


if __name__ == "__main__":
    main()
