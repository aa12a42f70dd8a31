"""The paper's evaluation protocol: stratified 10-fold CV over methods and datasets.

Per fold, preprocessing is fitted on the training rows only, the training codes are
counted once, and every Naive Bayes method re-smooths that one :class:`CountTable`
(which is what makes what-if comparisons fast). Results are cached per method on a
sha256 of the data and every setting, so changing one method's hyper-parameter
recomputes that method alone.
"""

from __future__ import annotations

import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from heb import registry
from heb.cache import ResultCache, cache_key
from heb.counts import CountTable
from heb.data import Dataset, Preprocessor, encode_target, safe_n_splits, stratified_subsample
from heb.metrics import reliability
from heb.nb import NaiveBayes
from heb.registry import (
    HIGHER_IS_BETTER,
    METHODS,
    METRIC_LABELS,
    METRICS,
    TABLE1_METHODS,
    compute_metrics,
    smoother_param_names,
)
from heb.smoothing import resolve_params
from heb.stats import friedman, holm, nemenyi_cd, nemenyi_groups, nemenyi_pvalues, wilcoxon

__all__ = [
    "METHODS",
    "TABLE1_METHODS",
    "METRICS",
    "METRIC_LABELS",
    "METRIC_TITLES",
    "HIGHER_IS_BETTER",
    "CVResult",
    "cross_validate",
    "run_benchmark",
    "benchmark_tables",
    "wilcoxon_table",
    "method_spec",
]

#: the old name of :data:`METRIC_LABELS` (the app's pages read it)
METRIC_TITLES = METRIC_LABELS


def _fold_columns() -> list[str]:
    """Columns of a folds frame: the registered metrics at call time, then the timings."""
    return ["method", "fold", *METRICS, "fit_time", "predict_time"]


def _aode(params: dict):
    from heb.aode import AODE  # lazy: only AODE runs pay for its import

    return AODE(**params)


@dataclass(frozen=True)
class Family:
    """How the CV loop builds and fits a model family of :data:`heb.registry.FAMILIES`.

    ``make(params)`` returns an unfitted estimator; ``fits_counts`` says it has
    ``fit_counts(table, classes)`` (re-smoothing a fold's one count table, no recount);
    otherwise it is fitted with ``partial_fit`` on the fold's codes.
    """

    make: Callable[[dict], object]
    fits_counts: bool = False


#: model family -> estimator factory; adding a family is one entry here
FAMILY_ESTIMATORS: dict[str, Family] = {
    "nb": Family(lambda params: NaiveBayes(**params), fits_counts=True),
    "aode": Family(_aode),
}


def method_spec(name: str, overrides: dict | None = None) -> dict:
    """The model family and full parameters of a named method, overrides applied.

    Smoother hyper-parameters are resolved through the registry (defaults filled in,
    ranges checked, one the smoother does not use refused), so two specs that fit the
    same model compare equal (and share a cache entry).
    """
    entry = registry.method(name)
    params = {**entry.params, **(overrides or {})}
    if entry.family == "nb":
        names = smoother_param_names()
        hyper = {k: v for k, v in params.items() if k in names}
        params = {k: v for k, v in params.items() if k not in names}
        params |= resolve_params(params["smoother"], **hyper)
    return {"model": entry.family, "params": params}


def _family(spec: dict) -> Family:
    try:
        return FAMILY_ESTIMATORS[spec["model"]]
    except KeyError:
        raise ValueError(f"No estimator is wired for the model family {spec['model']!r}.") from None


@dataclass
class _Fold:
    train_codes: np.ndarray
    test_codes: np.ndarray
    y_train: np.ndarray
    test_index: np.ndarray
    table: CountTable
    count_time: float


@dataclass
class _Prepared:
    y: np.ndarray
    classes: np.ndarray
    n_splits: int
    notes: list[str]
    folds: list[_Fold]


#: the last few datasets' prepared folds, so what-if changes never recount
_PREPARED: OrderedDict[str, _Prepared] = OrderedDict()
_PREPARED_MAX = 4


def _prepare(
    dataset: Dataset,
    key: str,
    n_splits: int,
    seed: int,
    n_bins: int,
    missing: str,
    max_rows: int | None,
) -> _Prepared:
    if key in _PREPARED:
        _PREPARED.move_to_end(key)
        return _PREPARED[key]
    notes: list[str] = []
    X, y_raw = dataset.X, dataset.y
    if max_rows and len(X) > max_rows:
        X, y_raw = stratified_subsample(X, y_raw, max_rows=max_rows, seed=42)
        notes.append(f"Used a stratified subsample of {max_rows:,} of {len(dataset.X):,} rows.")
    y, classes = encode_target(y_raw)
    k, notice = safe_n_splits(y_raw, n_splits, rare="keep")
    if notice:
        notes.append(notice)
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    folds = []
    for train, test in splitter.split(np.zeros(len(y)), y):
        pre = Preprocessor(n_bins=n_bins, missing=missing, categorical=dataset.categorical)
        train_codes = pre.fit_transform(X.iloc[train])
        test_codes = pre.transform(X.iloc[test])
        start = time.perf_counter()
        table = CountTable.from_codes(
            train_codes, y[train], classes.size, n_categories=pre.n_categories_
        )
        count_time = time.perf_counter() - start
        folds.append(_Fold(train_codes, test_codes, y[train], test, table, count_time))
    prepared = _Prepared(y, classes, k, notes, folds)
    _PREPARED[key] = prepared
    while len(_PREPARED) > _PREPARED_MAX:
        _PREPARED.popitem(last=False)
    return prepared


def _run_method(name: str, spec: dict, prepared: _Prepared) -> tuple[pd.DataFrame, np.ndarray]:
    C = prepared.classes.size
    oof = np.zeros((prepared.y.size, C))
    rows = []
    family = _family(spec)
    for index, fold in enumerate(prepared.folds):
        model = family.make(spec["params"])
        start = time.perf_counter()
        if family.fits_counts:
            model.fit_counts(fold.table, np.arange(C))
            fit_time = time.perf_counter() - start + fold.count_time
        else:
            model.partial_fit(fold.train_codes, fold.y_train, classes=np.arange(C))
            fit_time = time.perf_counter() - start
        start = time.perf_counter()
        proba = model.predict_proba(fold.test_codes)
        predict_time = time.perf_counter() - start
        oof[fold.test_index] = proba
        scores = compute_metrics(prepared.y[fold.test_index], proba)
        rows.append(
            {
                "method": name,
                "fold": index,
                **scores,
                "fit_time": fit_time,
                "predict_time": predict_time,
            }
        )
    return pd.DataFrame(rows, columns=_fold_columns()), oof


@dataclass
class CVResult:
    """Per-fold records and out-of-fold probabilities of a cross-validation run.

    Attributes
    ----------
    folds : DataFrame
        One row per (method, fold): the metrics, ``fit_time`` and ``predict_time``.
    oof_proba : dict
        Method -> (n, C) out-of-fold class probabilities.
    y : ndarray (n,)
        Class indices of the evaluated rows.
    classes : ndarray (C,)
        Class labels.
    notes : list of str
        Notices for the user (subsampling, fewer folds, ...).
    n_splits : int
        Folds actually used.
    cached : list of str
        Methods served from the cache.
    """

    folds: pd.DataFrame
    oof_proba: dict[str, np.ndarray]
    y: np.ndarray
    classes: np.ndarray
    notes: list[str] = field(default_factory=list)
    n_splits: int = 10
    cached: list[str] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        """Methods in the order they were asked for."""
        return list(self.oof_proba)

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over folds of every metric and time, per method."""
        cols = [c for c in _fold_columns()[2:] if c in self.folds.columns]
        grouped = self.folds.groupby("method", sort=False)[cols]
        mean = grouped.mean().add_suffix("_mean")
        std = grouped.std(ddof=1).fillna(0.0).add_suffix("_std")
        out = pd.concat([mean, std], axis=1)
        ordered = [c for pair in zip(mean.columns, std.columns, strict=True) for c in pair]
        return out[ordered].reindex(self.methods).reset_index(names="method")

    def reliability(self, method: str, n_bins: int = 10) -> dict:
        """Reliability-diagram data of a method's pooled out-of-fold probabilities."""
        return reliability(self.y, self.oof_proba[method], n_bins=n_bins)


def _store(put: Callable, key: str, value) -> None:
    """Write a cache entry; a cache that cannot be written costs a warning, not the run."""
    try:
        put(key, value)
    except OSError as exc:
        warnings.warn(
            f"Results not cached ({exc}); they will be recomputed next time.", stacklevel=3
        )


def cross_validate(
    dataset: Dataset,
    methods: Sequence[str] = TABLE1_METHODS,
    *,
    params: dict[str, dict] | None = None,
    n_splits: int = 10,
    seed: int = 42,
    n_bins: int = 10,
    missing: str = "impute",
    max_rows: int | None = 20_000,
    progress: Callable[[float, str], None] | None = None,
    use_cache: bool = True,
    cache: ResultCache | None = None,
) -> CVResult:
    """Stratified k-fold CV of the named methods on one dataset (the paper's protocol).

    Parameters
    ----------
    dataset : Dataset
        Features, target and declared categorical columns.
    methods : sequence of str
        Names (or aliases) from :data:`heb.registry.METHODS`.
    params : dict, optional
        Per-method parameter overrides, e.g. ``{"Lidstone": {"alpha": 0.5}}``.
    n_splits, seed : int
        Stratified, shuffled folds (fewer when a class has fewer rows; see ``notes``).
    n_bins, missing : int, str
        Preprocessing of numeric columns and missing values (fitted per training fold).
    max_rows : int or None
        Stratified subsample size (seed 42); None or 0 keeps every row.
    progress : callable, optional
        Called as ``progress(fraction, message)``.
    use_cache : bool
        Read and write results in the result cache.
    """
    methods = list(dict.fromkeys(methods))
    if not methods:
        raise ValueError("Choose at least one method.")
    if max_rows is not None and int(max_rows) < 0:
        raise ValueError(f"max_rows must be a number of rows, or 0 / None for all, not {max_rows}.")
    max_rows = int(max_rows) or None if max_rows is not None else None
    specs = {name: method_spec(name, (params or {}).get(name)) for name in methods}
    cache = cache if cache is not None else ResultCache()
    settings = {
        "n_splits": n_splits,
        "seed": seed,
        "n_bins": n_bins,
        "missing": missing,
        "max_rows": max_rows,
    }
    fingerprint = dataset.fingerprint()
    data_key = cache_key("cv-data", fingerprint, settings)
    report = progress or (lambda fraction, message: None)

    frames: dict[str, pd.DataFrame] = {}
    oof: dict[str, np.ndarray] = {}
    cached: list[str] = []
    meta = cache.get_json(data_key) if use_cache else None
    for name in methods:
        key = cache_key("cv-method", fingerprint, settings, specs[name], list(METRICS))
        if meta is not None:
            frame = cache.get_frame(key)
            arrays = cache.get_arrays(key) if frame is not None else None
            if frame is not None and arrays is not None:
                frames[name], oof[name] = frame.assign(method=name), arrays["oof_proba"]
                cached.append(name)
    todo = [name for name in methods if name not in frames]
    if todo:
        report(0.0, "Preparing folds")
        prepared = _prepare(dataset, data_key, n_splits, seed, n_bins, missing, max_rows)
        meta = {
            "y": prepared.y.tolist(),
            "classes": [str(c) for c in prepared.classes],
            "notes": prepared.notes,
            "n_splits": prepared.n_splits,
        }
        for done, name in enumerate(todo):
            report(done / len(todo), f"Running {name}")
            frame, proba = _run_method(name, specs[name], prepared)
            frames[name], oof[name] = frame, proba
            if use_cache:
                key = cache_key("cv-method", fingerprint, settings, specs[name], list(METRICS))
                _store(cache.put_frame, key, frame)
                _store(cache.put_arrays, key, {"oof_proba": proba})
        if use_cache:
            _store(cache.put_json, data_key, meta)
        y, classes = prepared.y, prepared.classes
    else:
        y = np.asarray(meta["y"], dtype=np.int64)
        classes = encode_target(dataset.y)[1]
        if len(classes) != len(meta["classes"]):
            classes = np.asarray(meta["classes"])
    report(1.0, "Done")
    folds = pd.concat([frames[name] for name in methods], ignore_index=True)
    return CVResult(
        folds=folds[_fold_columns()],
        oof_proba={name: oof[name] for name in methods},
        y=y,
        classes=classes,
        notes=list(meta["notes"]),
        n_splits=int(meta["n_splits"]),
        cached=cached,
    )


def run_benchmark(
    datasets: Sequence[Dataset],
    methods: Sequence[str] = TABLE1_METHODS,
    *,
    params: dict[str, dict] | None = None,
    n_splits: int = 10,
    seed: int = 42,
    n_bins: int = 10,
    missing: str = "impute",
    max_rows: int | None = 20_000,
    progress: Callable[[float, str], None] | None = None,
    use_cache: bool = True,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Cross-validate every method on every dataset; one row per (dataset, method, fold).

    ``n_jobs > 1`` runs datasets in parallel processes (joblib).
    """
    report = progress or (lambda fraction, message: None)
    kwargs = {
        "params": params,
        "n_splits": n_splits,
        "seed": seed,
        "n_bins": n_bins,
        "missing": missing,
        "max_rows": max_rows,
        "use_cache": use_cache,
    }

    def one(dataset: Dataset) -> pd.DataFrame:
        result = cross_validate(dataset, methods, **kwargs)
        return result.folds.assign(dataset=dataset.name)

    frames = []
    if n_jobs == 1:
        for index, dataset in enumerate(datasets):
            report(index / max(1, len(datasets)), f"{dataset.name}")
            frames.append(one(dataset))
    else:
        from joblib import Parallel, delayed

        report(0.0, f"{len(datasets)} datasets on {n_jobs} processes")
        frames = Parallel(n_jobs=n_jobs)(delayed(one)(d) for d in datasets)
    report(1.0, "Done")
    if not frames:
        return pd.DataFrame(columns=["dataset", *_fold_columns()])
    out = pd.concat(frames, ignore_index=True)
    return out[["dataset", *_fold_columns()]]


def benchmark_tables(frame: pd.DataFrame, metric: str, alpha: float = 0.05) -> dict:
    """Mean scores, Friedman test, Nemenyi CD / p-values / groups for one metric.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`run_benchmark`.
    metric : str
        A name of :data:`heb.registry.METRICS`, or ``"fit_time"`` (lower is better).

    Returns
    -------
    dict with ``scores`` (dataset x method means), ``avg_ranks`` (Series), ``friedman``
    (dict), ``cd`` (float), ``pvalues`` (method x method DataFrame) and ``groups``
    (list of tuples of method names).
    """
    higher = registry.metric(metric).higher_is_better if metric in METRICS else False
    scores = frame.pivot_table(index="dataset", columns="method", values=metric, aggfunc="mean")
    methods = [m for m in dict.fromkeys(frame["method"]) if m in scores.columns]
    scores = scores[methods].dropna()
    if scores.shape[0] < 2 or scores.shape[1] < 2:
        raise ValueError("The statistics need at least two datasets and two methods.")
    values = scores.to_numpy()
    result = friedman(values, higher_is_better=higher)
    cd = nemenyi_cd(len(methods), values.shape[0], alpha=alpha)
    ranks = np.asarray(result["avg_ranks"])
    groups = [tuple(methods[i] for i in g) for g in nemenyi_groups(ranks, cd)]
    pvalues = pd.DataFrame(
        nemenyi_pvalues(values, higher_is_better=higher), index=methods, columns=methods
    )
    return {
        "scores": scores,
        "avg_ranks": pd.Series(ranks, index=methods, name="avg_rank"),
        "friedman": result,
        "cd": cd,
        "pvalues": pvalues,
        "groups": groups,
    }


def wilcoxon_table(scores: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Wilcoxon signed-rank of one method against every other, with Holm-adjusted p.

    Parameters
    ----------
    scores : DataFrame
        Dataset x method mean scores (``benchmark_tables(...)["scores"]``).
    reference : str
        The method compared with each other column.

    Returns
    -------
    DataFrame with columns ``against``, ``statistic``, ``p_value``, ``n_nonzero``,
    ``median_diff`` (reference minus other) and ``holm_p``.
    """
    if reference not in scores.columns:
        raise ValueError(f"{reference!r} is not among the benchmarked methods.")
    others = [method for method in scores.columns if method != reference]
    rows = [wilcoxon(scores[reference].to_numpy(), scores[o].to_numpy()) for o in others]
    frame = pd.DataFrame(rows, columns=["statistic", "p_value", "n_nonzero", "median_diff"])
    frame.insert(0, "against", others)
    frame["holm_p"] = holm(frame["p_value"].to_numpy()) if len(frame) else []
    return frame
