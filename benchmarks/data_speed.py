"""Loading and encoding speed against pandas, and the time to refuse hostile uploads.

Timed, each the median of ``--repeats`` interleaved rounds in one process and printed as
a ratio to its peer: ``load_upload`` of a 20,000 x 50 CSV against ``pandas.read_csv`` of
the same bytes; ``Preprocessor.fit_transform`` on it against scikit-learn's
``KBinsDiscretizer`` + ``OrdinalEncoder``; a 10,000-column ARFF against ``read_csv`` of
its data rows. The refusals (a gzip of 10 million rows, a parquet of compressed zeros, an
ARFF declaring 50,000 attributes) are printed in milliseconds: they should stay far below
a second, since each is decided before the file is expanded. (These timings were
assertions in the tests once; on a loaded 2-core machine they failed for no functional
reason, so they live here.)

Run from the repository root::

    python3 benchmarks/data_speed.py
    python3 benchmarks/data_speed.py --repeats 3
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.data import DataError, Preprocessor, load_upload  # noqa: E402


def _csv_payload() -> tuple[bytes, pd.DataFrame]:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20_000, 45)).round(4))
    frame.columns = [f"n{i}" for i in range(45)]
    for i in range(5):
        frame[f"c{i}"] = rng.choice([f"level{j}" for j in range(50)], size=20_000)
    frame["class"] = rng.choice(["a", "b"], size=20_000)
    return frame.to_csv(index=False).encode(), frame


def _wide_arff() -> tuple[bytes, bytes]:
    width = 10_000
    header = "@relation w\n" + "".join(f"@attribute a{i} numeric\n" for i in range(width - 1))
    header += "@attribute class {x,y}\n@data\n"
    rows = "".join(",".join(["1"] * (width - 1)) + (",x\n" if r % 2 else ",y\n") for r in range(20))
    return (header + rows).encode(), rows.encode()


def _refusals() -> dict[str, bytes]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    zeros = io.BytesIO()
    pq.write_table(pa.table({"a": np.zeros(20_000_000)}), zeros, compression="zstd")
    wide = "@relation w\n" + "".join(f"@attribute a{i} numeric\n" for i in range(50_000))
    return {
        "gzip, 10 M rows": gzip.compress(b"a,class\n" + b"1,x\n" * 10_000_001),
        "parquet zeros": zeros.getvalue(),
        "ARFF 50k attributes": (wide + "@data\n1\n").encode(),
    }


def _median_ms(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def _refuse(payload: bytes, name: str) -> None:
    try:
        load_upload(payload, name)
    except DataError:
        return
    raise AssertionError(f"{name} was not refused")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    payload, frame = _csv_payload()
    features = frame.drop(columns="class")
    numeric = [c for c in features if c.startswith("n")]
    text = [c for c in features if c.startswith("c")]
    peer = ColumnTransformer(
        [
            ("bins", KBinsDiscretizer(10, encode="ordinal", strategy="quantile"), numeric),
            ("codes", OrdinalEncoder(), text),
        ]
    )
    arff, arff_rows = _wide_arff()
    pairs = {
        "load_upload 20k x 50 / read_csv": (
            lambda: load_upload(payload, "t.csv"),
            lambda: pd.read_csv(io.BytesIO(payload)),
        ),
        "Preprocessor 20k x 50 / sklearn": (
            lambda: Preprocessor().fit_transform(features),
            lambda: peer.fit_transform(features),
        ),
        "ARFF 10k columns / read_csv": (
            lambda: load_upload(arff, "w.arff"),
            lambda: pd.read_csv(io.BytesIO(arff_rows), header=None),
        ),
    }
    print(f"{'case':36s} {'ours ms':>9s} {'peer ms':>9s} {'ratio':>7s}")
    for name, (ours, theirs) in pairs.items():
        ours_ms, peer_ms = _median_ms(ours, args.repeats), _median_ms(theirs, args.repeats)
        print(f"{name:36s} {ours_ms:9.0f} {peer_ms:9.0f} {ours_ms / peer_ms:7.2f}")
    print(f"\n{'refused upload':36s} {'ms':>9s} {'file KB':>9s}")
    for name, hostile in _refusals().items():
        suffix = {"gzip": ".csv.gz", "parq": ".parquet"}.get(name[:4], ".arff")
        ms = _median_ms(lambda h=hostile, s=suffix: _refuse(h, "x" + s), 3)
        print(f"{name:36s} {ms:9.0f} {len(hostile) / 1024:9.0f}")


if __name__ == "__main__":
    main()
