"""Whole-data views of a large source: its per-feature summary and its fitted counts.

Both come from the one counting scan with a single fold (every row is training), so the
Dataset page (rows, K and missing share per feature) and the Concentrations page (a
:class:`~heb.counts.CountTable` of every row) cost one scan of the data each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from heb.counts import CountTable
from heb.scale.counting import Columns, FittedFold, Histograms, count_histograms, describe
from heb.scale.encoding import FoldEncoding

__all__ = ["FittedCounts", "fit_counts", "describe_source"]


@dataclass
class FittedCounts:
    """The counts of every row and how raw values became codes.

    Attributes
    ----------
    table : CountTable
        Classes in the order of ``classes``; feed it to ``NaiveBayes().fit_counts``.
    classes : ndarray (C,)
    features : list of str
        The encoded features (columns empty in every row are dropped).
    encodings : list of FoldEncoding
        Per feature: K_f, each distinct value's code, numeric cuts.
    n_rows : int
        Rows seen (with a target).
    engine : str
    """

    table: CountTable
    classes: np.ndarray
    features: list[str]
    encodings: list[FoldEncoding]
    n_rows: int
    engine: str


def _whole(engine, target, features, categorical) -> tuple[Columns, Histograms]:
    columns = describe(engine, target, features, categorical)
    return columns, count_histograms(engine, columns, n_folds=1, seed=0)


def fit_counts(
    engine,
    target: str,
    features: Sequence[str] | None = None,
    *,
    categorical=None,
    n_bins: int = 10,
    missing: str = "impute",
) -> FittedCounts:
    """Encode and count every row of the registered source (SPEC section 1), in one scan."""
    columns, histograms = _whole(engine, target, features, categorical)
    fitted: FittedFold = histograms.fit_fold(None, n_bins=n_bins, missing=missing)
    return FittedCounts(
        fitted.table,
        histograms.classes,
        [columns.features[i] for i in fitted.features],
        fitted.encodings,
        histograms.n_rows,
        engine.name,
    )


def describe_source(
    engine, target: str, features: Sequence[str] | None = None, *, categorical=None
) -> pd.DataFrame:
    """One row per feature: kind, distinct values K, missing share, rows; one scan.

    ``K`` counts distinct non-missing values (a numeric feature's bins are fewer).
    """
    columns, histograms = _whole(engine, target, features, categorical)
    rows = []
    for kind, values in zip(columns.kinds, histograms.values, strict=True):
        per_slot = np.bincount(values.slot, weights=values.n, minlength=values.n_slots)
        total = per_slot.sum()
        rows.append(
            {
                "feature": values.name,
                "kind": kind,
                "K": int(np.count_nonzero(per_slot[:-2])),
                "missing_share": float(per_slot[-2:].sum() / total) if total else 1.0,
                "rows": int(total),
            }
        )
    return pd.DataFrame(rows)
