"""Whole-data views of a large source: its per-feature summary and its fitted counts.

Both come from the one counting scan with a single fold (every row is training), so the
Dataset page (rows, K and missing share per feature) and the Concentrations page (a
:class:`~heb.counts.CountTable` of every row) cost one scan of the data each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from heb.counts import CountTable
from heb.data.dataset import few_values_notes
from heb.data.preprocess import is_id_like_counts
from heb.scale.counting import Columns, FittedFold, Histograms, count_histograms, describe
from heb.scale.encoding import FoldEncoding

__all__ = ["FittedCounts", "SourceSummary", "fit_counts", "describe_source", "summarise_source"]


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
    return _fitted_counts(engine, columns, histograms, fitted)


def _fitted_counts(engine, columns: Columns, histograms, fitted: FittedFold) -> FittedCounts:
    """:class:`FittedCounts` of one scan's fitted fold."""
    return FittedCounts(
        fitted.table,
        histograms.classes,
        [columns.features[i] for i in fitted.features],
        fitted.encodings,
        histograms.n_rows,
        engine.name,
    )


@dataclass
class SourceSummary:
    """What the Dataset page shows of a large source, from one scan.

    Attributes
    ----------
    features : DataFrame
        One row per feature: ``feature``, ``kind``, ``K`` (distinct non-missing values),
        ``K_f`` (the categories counted under the bins and missing-value rule: bins for a
        number; 0 for a column empty in every row), ``missing_share``, ``rows``.
    classes : ndarray (C,)
    class_counts : ndarray (C,)
        Rows per class.
    n_rows : int
    id_like_imputed : dict
        As :attr:`heb.data.Preprocessor.id_like_imputed_`: per ID-like categorical column
        whose missing rows imputing the mode piles into one ID, ``missing``, ``mode``,
        ``mode_rows``, ``categories``, ``observed``.
    notes : list of str
        What reading the source decided (``Engine.notes``: a CSV's encoding, codes kept
        as text, numbers mixed with text), worded as the in-memory loader's notes.
    amounts : list of str
        A CSV's columns read from thousands separators (``Engine.amounts``), as the
        in-memory :attr:`heb.data.Dataset.amounts`.
    counts : FittedCounts or None
        The counts of the same scan, as :func:`fit_counts` returns them (so a caller that
        also smooths them need not read every row again).
    """

    features: pd.DataFrame
    classes: np.ndarray
    class_counts: np.ndarray
    n_rows: int
    id_like_imputed: dict
    notes: list[str] = field(default_factory=list)
    amounts: list[str] = field(default_factory=list)
    counts: FittedCounts | None = None


def summarise_source(
    engine,
    target: str,
    features: Sequence[str] | None = None,
    *,
    categorical=None,
    n_bins: int = 10,
    missing: str = "impute",
) -> SourceSummary:
    """:class:`SourceSummary` of the registered source: one scan (the one of
    :func:`fit_counts`, whose encodings give each feature's K_f)."""
    columns, histograms = _whole(engine, target, features, categorical)
    frame = _describe(columns, histograms)
    fitted = histograms.fit_fold(None, n_bins=n_bins, missing=missing)
    k_f = np.zeros(len(frame), dtype=np.int64)
    k_f[fitted.features] = [e.n_categories for e in fitted.encodings]
    frame.insert(3, "K_f", k_f)
    piled = {}
    if missing == "impute":
        for index, encoding in zip(fitted.features, fitted.encodings, strict=True):
            values = histograms.values[index]
            if columns.kinds[index] == "categorical":
                piled |= _id_like_pile(values, encoding)
    return SourceSummary(
        frame,
        histograms.classes,
        fitted.table.class_counts.astype(np.int64),
        histograms.n_rows,
        piled,
        list(getattr(engine, "notes", []))
        + _case_notes(columns, histograms)
        + few_values_notes(frame["feature"], frame["K"]),
        list(getattr(engine, "amounts", [])),
        _fitted_counts(engine, columns, histograms, fitted),
    )


def _case_notes(columns, histograms) -> list[str]:
    """The in-memory upload's letter-case note (:func:`heb.data.text_columns.case_note`)
    on the text features whose distinct values include two that differ only in letter
    case ('Mobile' and 'mobile'), from the values the scan counted."""
    from heb.data.text_columns import case_note, case_variants

    cases = []
    for index, name in enumerate(columns.features):
        if columns.kinds[index] != "categorical" or columns.numeric_values[index]:
            continue
        keys = pd.Series(histograms.values[index].keys, dtype=object)
        variants = case_variants(keys[keys.notna()].astype(str))
        if variants is not None:
            cases.append((name, variants))
    return [case_note(*cases[0], len(cases) - 1)] if cases else []


def _id_like_pile(values, encoding: FoldEncoding) -> dict:
    """``{name: pile}`` when imputing the mode piles an ID-like column's missing rows into
    one ID (the in-memory ``Preprocessor._note_id_like``), else ``{}``."""
    per_slot = np.bincount(values.slot, weights=values.n, minlength=values.n_slots)
    d = len(values.keys)
    n_missing = int(per_slot[d:].sum())
    n_observed = int(per_slot[:d].sum())
    n_categories = encoding.n_categories
    if not n_missing or not is_id_like_counts(n_observed, n_categories):
        return {}
    fill = int(encoding.train_code[d])  # the code a missing value is counted as
    own = int(per_slot[:d][encoding.train_code[:d] == fill].sum())
    mode = values.keys[np.flatnonzero(encoding.train_code[:d] == fill)[0]]
    pile = {
        "missing": n_missing,
        "mode": str(mode),
        "mode_rows": own,
        "categories": n_categories,
        "observed": n_observed,
    }
    return {values.name: pile}


def describe_source(
    engine, target: str, features: Sequence[str] | None = None, *, categorical=None
) -> pd.DataFrame:
    """One row per feature: kind, distinct values K, missing share, rows; one scan.

    ``K`` counts distinct non-missing values (a numeric feature's bins are fewer:
    :func:`summarise_source` gives them).
    """
    return _describe(*_whole(engine, target, features, categorical))


def _describe(columns: Columns, histograms: Histograms) -> pd.DataFrame:
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
