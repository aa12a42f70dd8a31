"""A click-log-like dataset of any size with a known truth, written to parquet in chunks.

The truth is HEB-M's own generative model (the zip-codes idea of the paper): a class
``click`` with prior ``pi``; per feature f a Zipf base distribution ``tbar_f`` over K_f
categories and, per class c, a class-conditional PMF ``theta_cf ~ Dirichlet(m_f tbar_f)``
with a known concentration ``m_f`` inside the range HEB-M's Type-II ML fit searches
(:data:`heb.concentration.M_MIN` .. ``M_MAX``, SPEC section 3), so the learned smoothers
can recover it. Rows are drawn chunk by chunk (inverse-CDF sampling on the fixed per-class
CDFs), so memory stays flat in the number of rows: only the CDFs (``C * sum K_f`` floats)
and one chunk live at a time.

Columns: ID-like integer features (``*_id``, K from 10^3 to 10^6, categorical by SPEC
section 1), low-cardinality string features (dictionary-encoded in parquet), two numeric
features that SPEC section 1 bins by quantiles (``hour``, ``position``) and a float
``bid_price`` rounded to cents; ``missing_share`` of ``user_id`` and ``bid_price`` is null.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["ClicksTruth", "FeatureTruth", "clicks_truth", "write_clicks", "main"]

#: (name, K, Zipf exponent, true concentration m, kind); kind: "id", "text" or "numeric".
#: Every m lies inside SPEC's Type-II ML range [1e-2, 1e4] and below its top (so a fit that
#: recovers m is not clamped): ID features 600 .. 8,000 pseudo rows, growing with K but far
#: more slowly (m / K from 0.6 down to 0.008: their class PMFs are sparse in the tail, as a
#: rare ID's clicks are), low-cardinality features m = 10 K (mild class differences).
#: m / K far below 1 for every ID makes rows near-separable (AUC ~ 1 at 10^6 rows); these
#: values keep the task hard enough that the smoothers differ on log-loss.
_FEATURES: tuple[tuple[str, int, float, float, str], ...] = (
    ("site_id", 1_000, 1.1, 600.0, "id"),
    ("app_id", 3_000, 1.1, 1_200.0, "id"),
    ("ad_id", 100_000, 1.0, 6_000.0, "id"),
    ("campaign_id", 10_000, 1.0, 3_000.0, "id"),
    ("creative_id", 30_000, 1.05, 4_500.0, "id"),
    ("publisher_id", 2_000, 1.2, 900.0, "id"),
    ("user_id", 300_000, 0.9, 6_000.0, "id"),
    ("device_id", 1_000_000, 0.8, 8_000.0, "id"),
    ("zip_id", 40_000, 1.0, 4_500.0, "id"),
    ("placement_id", 5_000, 1.1, 1_500.0, "id"),
    ("country", 60, 1.3, 600.0, "text"),
    ("device_type", 5, 1.5, 50.0, "text"),
    ("os", 12, 1.4, 120.0, "text"),
    ("browser", 20, 1.4, 200.0, "text"),
    ("language", 40, 1.3, 400.0, "text"),
    ("connection", 4, 1.0, 40.0, "text"),
    ("banner_size", 15, 1.2, 150.0, "text"),
    ("hour", 24, 0.3, 240.0, "numeric"),
    ("position", 8, 1.0, 80.0, "numeric"),
    ("bid_price", 2_000, 0.7, 5_000.0, "numeric"),
)
_NULLABLE = ("user_id", "bid_price")


@dataclass(frozen=True)
class FeatureTruth:
    """One feature's generating parameters.

    ``base`` is the Zipf base PMF tbar_f (K,), ``theta`` the per-class PMFs (C, K) drawn
    from Dirichlet(m tbar_f); ``m`` the true concentration (the same for both classes).
    """

    name: str
    kind: str
    m: float
    base: np.ndarray
    theta: np.ndarray


@dataclass(frozen=True)
class ClicksTruth:
    """The class prior and every feature's truth of one seed."""

    prior: np.ndarray
    features: tuple[FeatureTruth, ...]


def _zipf(k: int, exponent: float) -> np.ndarray:
    weights = np.arange(1, k + 1, dtype=np.float64) ** -exponent
    return weights / weights.sum()


def clicks_truth(seed: int = 0, n_features: int = 20, click_rate: float = 0.17) -> ClicksTruth:
    """The generating parameters of :func:`write_clicks` for ``seed`` (deterministic).

    Parameters
    ----------
    seed : int
        Seeds the PMFs (and, in :func:`write_clicks`, the rows).
    n_features : int
        The first ``n_features`` of the 20 built-in features (1..20).
    click_rate : float
        P(click = 1).
    """
    if not 1 <= n_features <= len(_FEATURES):
        raise ValueError(f"n_features must lie in 1..{len(_FEATURES)}, got {n_features}.")
    if not 0.0 < click_rate < 1.0:
        raise ValueError(f"click_rate must lie strictly between 0 and 1, got {click_rate}.")
    rng = np.random.default_rng([seed, 0])
    features = []
    for name, k, exponent, m, kind in _FEATURES[:n_features]:
        base = _zipf(k, exponent)
        # exact Dirichlet(m tbar): a tail weight m tbar_v ~ 1e-3 may draw 0 (that class never
        # shows the value), which the head's weights keep from making a row of zeros
        theta = rng.dirichlet(m * base, size=2)
        features.append(FeatureTruth(name, kind, m, base, theta))
    return ClicksTruth(np.array([1.0 - click_rate, click_rate]), tuple(features))


def _labels(feature: FeatureTruth) -> np.ndarray:
    prefix = feature.name[:2]
    return np.array([f"{prefix}{v:03d}" for v in range(feature.base.size)], dtype=object)


def _values(feature: FeatureTruth, codes: np.ndarray):
    """The column of one chunk: ints (IDs), floats (numeric) or dictionary strings."""
    import pyarrow as pa

    if feature.kind == "id":
        return pa.array(codes * 7 + 1000, type=pa.int64())  # sparse, non-contiguous IDs
    if feature.kind == "numeric":
        if feature.name == "bid_price":
            return pa.array(np.round(0.05 + codes * 0.01, 2), type=pa.float64())
        return pa.array(codes, type=pa.int64())
    dictionary = pa.array(_labels(feature), type=pa.string())
    return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), dictionary)


def _chunk_table(truth: ClicksTruth, cdfs: list[np.ndarray], rows: int, rng, missing: float):
    import pyarrow as pa

    y = (rng.random(rows) < truth.prior[1]).astype(np.int64)
    columns = {}
    for feature, cdf in zip(truth.features, cdfs, strict=True):
        # inverse-CDF sampling of each row's class PMF, offset into the stacked CDFs
        u = rng.random(rows) + y
        codes = np.searchsorted(cdf, u, side="right")
        codes = np.clip(codes - y * feature.base.size, 0, feature.base.size - 1)
        array = _values(feature, codes)
        if feature.name in _NULLABLE and missing > 0:
            mask = pa.array(rng.random(rows) < missing)
            array = pa.compute.if_else(mask, pa.scalar(None, array.type), array)
        columns[feature.name] = array
    columns["click"] = pa.array(y, type=pa.int64())
    return pa.table(columns)


def write_clicks(
    path,
    rows: int,
    seed: int = 0,
    *,
    n_features: int = 20,
    click_rate: float = 0.17,
    missing_share: float = 0.02,
    chunk_rows: int = 1_000_000,
) -> Path:
    """Write ``rows`` click-log rows to one parquet file, chunk by chunk.

    Parameters
    ----------
    path : str or Path
        The parquet file to write (its folder must exist).
    rows : int
        Number of rows (at least 1).
    seed : int
        The truth and the rows are a function of the seed (and ``chunk_rows``).
    n_features, click_rate
        See :func:`clicks_truth`.
    missing_share : float
        Share of nulls in ``user_id`` and ``bid_price``.
    chunk_rows : int
        Rows per chunk (one parquet row group each); memory is O(chunk_rows).

    Returns
    -------
    Path of the written file.
    """
    import pyarrow.parquet as pq

    rows, chunk_rows = int(rows), int(chunk_rows)
    if rows < 1 or chunk_rows < 1:
        raise ValueError("rows and chunk_rows must be positive whole numbers.")
    if not 0.0 <= missing_share < 1.0:
        raise ValueError(f"missing_share must lie in [0, 1), got {missing_share}.")
    path = Path(path)
    truth = clicks_truth(seed, n_features, click_rate)
    # per feature, the two class CDFs stacked: class c's CDF shifted by c, so one sorted array
    cdfs = [
        np.concatenate([np.cumsum(f.theta[0]), 1.0 + np.cumsum(f.theta[1])]) for f in truth.features
    ]
    rng = np.random.default_rng([seed, 1])
    writer = None
    try:
        for start in range(0, rows, chunk_rows):
            table = _chunk_table(truth, cdfs, min(chunk_rows, rows - start), rng, missing_share)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``make-data clicks --rows N -o file.parquet [--seed S] [--features F]``."""
    parser = argparse.ArgumentParser(
        prog="heb make-data clicks", description="Write a click-log-like parquet file."
    )
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), required=True)
    parser.add_argument("-o", "--output", required=True, help="parquet file to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", type=int, default=20, help="number of features (1-20)")
    parser.add_argument("--chunk-rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    out = write_clicks(
        args.output, args.rows, args.seed, n_features=args.features, chunk_rows=args.chunk_rows
    )
    print(f"Wrote {args.rows:,} rows to {out}.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
