"""Cross-validation on an engine: one counting scan, then one streamed scoring scan.

1. :func:`~heb.scale.counting.count_histograms` counts every feature's raw values per
   (fold, class) in one GROUPING SETS scan; fold k's training counts are the total minus
   fold k, from which the encodings and the :class:`~heb.counts.CountTable` are fitted
   (AODE adds one scan of pair histograms, :mod:`heb.scale.joint`).
2. Every method is fitted per fold from the counts alone (``fit_counts``, as in memory).
3. A second scan streams the rows (DuckDB: Arrow record batches; Spark: ``mapInPandas``
   with the fitted tables shipped to the workers); each row is encoded with its own
   fold's encodings, scored by that fold's models, and added to the fold's
   :class:`~heb.scale.streaming_metrics.MetricSums`. When the models of all methods and
   folds would exceed ``model_budget`` bytes, methods are scored in groups, one scan each.

Memory is flat in the rows: the histograms hold distinct values, the scan holds a batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from heb import registry
from heb.aode import AODE
from heb.data import DataError
from heb.metrics import METRIC_NAMES
from heb.nb import NaiveBayes
from heb.scale.counting import FittedFold, count_histograms, describe
from heb.scale.scoring import FoldScorer, merge_sums
from heb.scale.sql import rows_query

__all__ = ["ScaleCVResult", "cross_validate", "make_models"]

_FOLD_COLUMNS = ["method", "fold", *METRIC_NAMES, "auc_bound", "fit_time", "predict_time"]


@dataclass
class ScaleCVResult:
    """Per-fold metrics of a cross-validation run on an engine.

    Attributes
    ----------
    folds : DataFrame
        One row per (method, fold): the metrics, ``auc_bound`` (0 when AUC is exact),
        ``fit_time`` (smoothing the fold's counts) and ``predict_time`` (scoring its rows).
    classes : ndarray (C,)
    n_splits : int
    n_rows : int
        Rows seen (with a target).
    engine : str
        ``"duckdb"`` or ``"spark"``.
    timings : dict
        Seconds of ``count`` (histogram scan), ``joint`` (AODE scan), ``fit`` and ``score``.
    notes : list of str
    """

    folds: pd.DataFrame
    classes: np.ndarray
    n_splits: int
    n_rows: int
    engine: str
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        """Methods in the order they were asked for."""
        return list(dict.fromkeys(self.folds["method"]))

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over folds, per method (as ``CVResult.summary``)."""
        from heb.evaluate import CVResult

        return CVResult.summary(self)  # it reads only ``folds`` and ``methods``


def make_models(name: str, fitted: FittedFold, classes: np.ndarray, joint=None, overrides=None):
    """The named registry method fitted on one fold's counts (no rows needed)."""
    entry = registry.method(name)
    params = {**entry.params, **(overrides or {})}
    if entry.family == "nb":
        return NaiveBayes(**params).fit_counts(fitted.table, np.arange(classes.size))
    if entry.family == "aode":
        if joint is None:
            raise ValueError(f"{name} needs the joint counts of the pair scan.")
        return AODE(**params).fit_counts(fitted.table, joint, np.arange(classes.size))
    raise ValueError(f"{name} is a {entry.family} method; the engine path fits NB and AODE.")


def _fold_groups(fitted: list[FittedFold], bytes_per_fold: list[float], budget: float):
    """Consecutive groups of folds whose models fit the budget (at least one fold each)."""
    groups, current, used = [], [], 0.0
    for fold, size in zip(fitted, bytes_per_fold, strict=True):
        if current and used + size > budget:
            groups.append(current)
            current, used = [], 0.0
        current.append(fold)
        used += size
    return groups + ([current] if current else [])


def _fold_bytes(fold: FittedFold, methods: list[str], joints: dict, params) -> float:
    """Rough bytes of one fold's fitted models while scoring (model table + stacked copy)."""
    table = float(fold.table.counts.nbytes)
    total = 0.0
    for name in methods:
        total += 2 * table
        joint = joints.get((_cap_key(name, params), fold.fold))
        if joint is not None:
            total += 2 * 8.0 * joint.n_cells * joint.n_classes
    return total


def cross_validate(
    engine,
    target: str,
    methods: Sequence[str] = registry.TABLE1_METHODS,
    *,
    params: dict[str, dict] | None = None,
    n_splits: int = 10,
    seed: int = 42,
    n_bins: int = 10,
    missing: str = "impute",
    features: Sequence[str] | None = None,
    categorical=None,
    progress: Callable[[float, str], None] | None = None,
    batch_rows: int = 500_000,
    model_budget: float = 600e6,
) -> ScaleCVResult:
    """k-fold CV of registry methods on the source registered with ``engine``.

    Parameters
    ----------
    engine : DuckDBEngine or SparkEngine
        With a source registered (``engine.register(open_source(path))``).
    target : str
        The class column; rows where it is missing are left out.
    methods : sequence of str
        Registry method names (NB smoothers, HEB-M+GR, AODE, HEB-AODE).
    params : dict, optional
        Per-method parameter overrides, e.g. ``{"Lidstone": {"alpha": 0.5}}``.
    n_splits, seed : int
        Folds: a seeded hash of each row's key (file, row number) modulo ``n_splits``.
    n_bins, missing, features, categorical
        SPEC section 1 encoding, fitted per training fold.
    progress : callable, optional
        ``progress(fraction, message)``, called between phases and, on DuckDB, after every
        scored batch; raise from it to cancel the run.
    batch_rows : int
        Rows per scoring batch.
    model_budget : float
        Bytes of fitted models per scoring scan: folds are scored in groups that fit it,
        one scan each (``WHERE fold IN ...``), so memory stays bounded at any V.
    """
    methods = [registry.resolve_method_name(m) for m in dict.fromkeys(methods)]
    if not methods:
        raise ValueError("Choose at least one method.")
    if int(n_splits) < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}.")
    report = progress or (lambda fraction, message: None)
    timings: dict[str, float] = {}

    report(0.0, f"Counting values on {engine.name}")
    start = time.perf_counter()
    columns = describe(engine, target, features, categorical)
    histograms = count_histograms(engine, columns, n_splits, seed)
    fitted = [histograms.fit_fold(k, n_bins, missing) for k in range(n_splits)]
    timings["count"] = time.perf_counter() - start

    joints = {}
    if any(registry.method(m).family == "aode" for m in methods):
        from heb.scale.joint import count_joints

        report(0.05, "Counting feature pairs for AODE")
        start = time.perf_counter()
        joints = count_joints(engine, histograms, fitted, caps_of_methods(methods, params))
        timings["joint"] = time.perf_counter() - start

    sizes = [_fold_bytes(fold, methods, joints, params) for fold in fitted]
    groups = _fold_groups(fitted, sizes, model_budget)
    sums: dict = {}
    fit_time: dict = {}
    timings["fit"] = timings["score"] = 0.0
    for index, group in enumerate(groups):
        folds = [fold.fold for fold in group]
        report(0.1 + 0.9 * index / len(groups), f"Fitting and scoring folds {folds}")
        models = {}
        for name in methods:
            for fold in group:
                start = time.perf_counter()
                joint = joints.get((_cap_key(name, params), fold.fold))
                models[(name, fold.fold)] = make_models(
                    name, fold, histograms.classes, joint, (params or {}).get(name)
                )
                fit_time[(name, fold.fold)] = time.perf_counter() - start
        timings["fit"] += sum(fit_time[(name, k)] for name in methods for k in folds)
        start = time.perf_counter()
        scorer = FoldScorer(histograms, group, models)
        del models
        sql = rows_query(
            engine.dialect, target, list(columns.features), n_splits, seed, folds=folds
        )
        group_rows = float(histograms.fold_class_counts[folds].sum())
        low, high = 0.1 + 0.9 * index / len(groups), 0.1 + 0.9 * (index + 1) / len(groups)

        def scanned(rows_done: int, low=low, high=high, group_rows=group_rows, folds=folds):
            share = min(1.0, rows_done / max(group_rows, 1.0))
            report(low + (high - low) * share, f"Scored {rows_done:,} rows of folds {folds}")

        part = engine.map_reduce(sql, scorer, merge_sums, batch_rows, on_batch=scanned)
        merge_sums(sums, part or {})
        timings["score"] += time.perf_counter() - start
    report(1.0, "Done")

    empty = [k for k in range(n_splits) if (methods[0], k) not in sums]
    if empty:
        raise DataError(
            f"Fold {empty[0]} received no rows; use fewer folds for {histograms.n_rows} rows."
        )
    rows = []
    for name in methods:
        for fold in range(n_splits):
            scores = sums[(name, fold)].result()
            rows.append(
                {
                    "method": name,
                    "fold": fold,
                    **scores,
                    "fit_time": fit_time[(name, fold)],
                    "predict_time": float(sums[(name, fold)].state["seconds"][0]),
                }
            )
    notes = [f"Scored in {len(groups)} scans to keep the models in budget."] * (len(groups) > 1)
    return ScaleCVResult(
        pd.DataFrame(rows, columns=_FOLD_COLUMNS),
        histograms.classes,
        n_splits,
        histograms.n_rows,
        engine.name,
        timings,
        notes,
    )


def _cap_key(name: str, params) -> tuple:
    entry = registry.method(name)
    if entry.family != "aode":
        return ()
    model = AODE(**{**entry.params, **((params or {}).get(name) or {})})
    return (model.max_parent_cardinality, model.max_joint_cells)


def caps_of_methods(methods: Sequence[str], params) -> list[tuple]:
    """The distinct (parent cap, joint cap) pairs of the AODE methods asked for."""
    keys = [_cap_key(m, params) for m in methods if registry.method(m).family == "aode"]
    return list(dict.fromkeys(keys))
