"""The paper's evaluation protocol: stratified 10-fold CV over methods and datasets.

Each column is encoded once per dataset; per fold, the encoding is fitted on the training
rows only (:mod:`heb.data.encoding`), the training rows are counted once, and every Naive
Bayes method re-smooths that one
:class:`~heb.counts.CountTable` (which is what makes what-if comparisons fast). Results
are cached per method under :meth:`RunSettings.method_key
<heb.evaluate.settings.RunSettings.method_key>`, so changing one method's
hyper-parameter recomputes that method alone. A model family is one entry of
:data:`FAMILY_ESTIMATORS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from heb import registry
from heb.data import Dataset, encode_target
from heb.data.folds import fold_numbers, stratified_folds
from heb.evaluate.cache import ResultCache
from heb.evaluate.folds import (
    FOLD_STORE,
    Fold,
    PreparedFolds,
    evaluated_subsample,
    places_in_table,
    prepare_folds,
)
from heb.evaluate.hierarchy_specs import (
    attach_hierarchies,
    hierarchy_notes,
    with_fold_hierarchies,
)
from heb.evaluate.settings import RunSettings
from heb.metrics import class_reliability, confusion_counts, reliability
from heb.nb import NaiveBayes
from heb.registry import METRICS, TABLE1_METHODS, compute_metrics, smoother_param_names
from heb.smoothing import resolve_params

__all__ = [
    "CVResult",
    "FAMILY_ESTIMATORS",
    "Family",
    "cached_cross_validation",
    "cross_validate",
    "fold_columns",
    "method_spec",
    "run_benchmark",
]


def fold_columns() -> list[str]:
    """Columns of a folds frame: the registered metrics at call time, then the timings."""
    return ["method", "fold", *METRICS, "fit_time", "predict_time"]


def _aode(params: dict):
    from heb.aode import AODE  # lazy: only AODE runs pay for its import

    return AODE(**params)


def _tan(params: dict):
    from heb.tan import TAN  # lazy: only TAN runs pay for its import

    return TAN(**params)


def _reference(params: dict):
    from heb.evaluate.references import ReferenceModel  # lazy: scikit-learn's models

    return ReferenceModel(**params)


@dataclass(frozen=True)
class Family:
    """How the CV loop builds and fits a model family of :data:`heb.registry.FAMILIES`.

    ``make(params)`` returns an unfitted estimator; ``fits_counts`` says it has
    ``fit_counts(table, classes)`` (re-smoothing a fold's one count table, no recount);
    ``fits_codes`` that it is fitted once by ``fit(codes, y, classes=...)`` (a reference
    model); otherwise it is fitted with ``partial_fit`` on the fold's codes.
    """

    make: Callable[[dict], object]
    fits_counts: bool = False
    fits_codes: bool = False


#: model family -> estimator factory; adding a family is one entry here
FAMILY_ESTIMATORS: dict[str, Family] = {
    "nb": Family(lambda params: NaiveBayes(**params), fits_counts=True),
    "aode": Family(_aode),
    "tan": Family(_tan),
    "reference": Family(_reference, fits_codes=True),
}


def method_spec(name: str, overrides: dict | None = None) -> dict:
    """The model family and full parameters of a named method, overrides applied.

    Smoother hyper-parameters are resolved through the registry (defaults filled in,
    ranges checked, one the smoother does not use refused), so two specs that fit the
    same model compare equal (and share a cache entry).
    """
    entry = registry.method(name)
    _check_override_names(entry, overrides or {})
    params = {**entry.params, **(overrides or {})}
    if entry.family == "nb":
        names = smoother_param_names()
        hyper = {k: v for k, v in params.items() if k in names}
        params = {k: v for k, v in params.items() if k not in names}
        params |= resolve_params(params["smoother"], **hyper)
    return {"model": entry.family, "params": params}


def _check_override_names(entry, overrides: dict) -> None:
    """Refuse an override that names no parameter of the method's estimator in one
    sentence listing those it takes (``params={"Lidstone": {"alfa": 0.5}}`` failed in
    every fold with "NaiveBayes.__init__() got an unexpected keyword argument")."""
    if not overrides:
        return
    family = _family({"model": entry.family})
    taken = set(family.make(dict(entry.params)).get_params(deep=False))
    unknown = sorted(str(key) for key in overrides if key not in taken)
    if unknown:
        shown = sorted(taken - set(entry.params) - {"hierarchies", "weighting"})
        if entry.family == "nb":  # another smoother's parameter is refused anyway, and
            smoother = registry.smoother(entry.params["smoother"])  # a fixed one learns no m
            own = [p.name for p in smoother.params]
            learned = [p for p in shown if p not in smoother_param_names()]
            shown = sorted(own + learned) if smoother.name.startswith("heb") else own
        takes = f"its parameters are {', '.join(shown)}" if shown else "it takes none"
        raise ValueError(f"{entry.name} has no parameter {unknown[0]!r}; {takes}.")


def _family(spec: dict) -> Family:
    try:
        return FAMILY_ESTIMATORS[spec["model"]]
    except KeyError:
        raise ValueError(f"No estimator is wired for the model family {spec['model']!r}.") from None


def _fit_fold(family: Family, params: dict, fold: Fold, C: int) -> tuple[object, float]:
    """A model fitted on one fold's training rows, and its fit time (counting included)."""
    model = family.make(with_fold_hierarchies(params, fold))
    start = time.perf_counter()
    if family.fits_counts:
        model.fit_counts(fold.table, np.arange(C))
        return model, time.perf_counter() - start + fold.count_time
    fit = model.fit if family.fits_codes else model.partial_fit
    fit(fold.train_codes, fold.y_train, classes=np.arange(C))
    return model, time.perf_counter() - start


def _run_methods(
    specs: dict[str, dict],
    prepared: PreparedFolds,
    report: Callable[[float, str], None],
) -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """Per method, its per-fold records and out-of-fold probabilities.

    Folds are the outer loop, so each fold's test codes are read once for every method.
    ``report`` is called before every method of every fold: raising from it (the app does
    when its session has gone) stops the run there.
    """
    C = prepared.classes.size
    oof = {name: np.zeros((prepared.y.size, C)) for name in specs}
    rows: dict[str, list] = {name: [] for name in specs}
    n_folds, n_methods = len(prepared.folds), len(specs)
    for index, fold in enumerate(prepared.folds):
        test_codes = fold.test_codes
        y_test = prepared.y[fold.test_index]
        for step, (name, spec) in enumerate(specs.items()):
            fraction = (index + step / n_methods) / n_folds
            report(fraction, f"Fold {index + 1} of {n_folds}: {name}")
            model, fit_time = _fit_fold(_family(spec), spec["params"], fold, C)
            start = time.perf_counter()
            proba = model.predict_proba(test_codes)
            predict_time = time.perf_counter() - start
            oof[name][fold.test_index] = proba
            record = {"method": name, "fold": index, **compute_metrics(y_test, proba)}
            rows[name].append(record | {"fit_time": fit_time, "predict_time": predict_time})
    return {name: (pd.DataFrame(rows[name], columns=fold_columns()), oof[name]) for name in specs}


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
    rows : ndarray (n,) or None
        Each evaluated row's place among the loaded table's data rows (0 = the first):
        rows without a target and those left out of a subsample are skipped. None when
        the evaluated rows are the table's rows 0..n-1.
    test_fold : ndarray (n,) or None
        Each evaluated row's fold (0 = the first, as in ``folds``): the fold whose model
        gave its out-of-fold prediction. None where it is not known.
    """

    folds: pd.DataFrame
    oof_proba: dict[str, np.ndarray]
    y: np.ndarray
    classes: np.ndarray
    notes: list[str] = field(default_factory=list)
    n_splits: int = 10
    cached: list[str] = field(default_factory=list)
    rows: np.ndarray | None = None
    test_fold: np.ndarray | None = None

    def __repr__(self) -> str:
        # the dataclass's own repr printed every out-of-fold probability (hundreds of
        # lines in a notebook); the numbers are in summary() and the attributes
        return (
            f"CVResult(methods={self.methods}, n_splits={self.n_splits}, "
            f"rows={np.asarray(self.y).size}, classes={np.asarray(self.classes).tolist()}, "
            f"notes={self.notes}, cached={self.cached}; the table: .summary())"
        )

    @property
    def methods(self) -> list[str]:
        """Methods in the order they were asked for."""
        return list(self.oof_proba)

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over folds of every metric and time, per method."""
        cols = [c for c in fold_columns()[2:] if c in self.folds.columns]
        grouped = self.folds.groupby("method", sort=False)[cols]
        mean = grouped.mean().add_suffix("_mean")
        std = grouped.std(ddof=1).fillna(0.0).add_suffix("_std")
        out = pd.concat([mean, std], axis=1)
        ordered = [c for pair in zip(mean.columns, std.columns, strict=True) for c in pair]
        return out[ordered].reindex(self.methods).reset_index(names="method")

    def proba(self, method: str) -> np.ndarray:
        """A method's out-of-fold probabilities, named as run or by an alias in any case."""
        if method not in self.oof_proba:
            method = registry.resolve_method_name(method)
        try:
            return self.oof_proba[method]
        except KeyError:
            raise ValueError(
                f"{method} was not run here; this result has {', '.join(self.methods)}."
            ) from None

    def reliability(self, method: str, n_bins: int = 10) -> dict:
        """Reliability-diagram data of a method's pooled out-of-fold probabilities."""
        return reliability(self.y, self.proba(method), n_bins=n_bins)

    def confusion(self, method: str) -> np.ndarray:
        """Rows per (true class, predicted class) of a method's out-of-fold predictions."""
        return confusion_counts(self.y, self.proba(method))

    def class_reliability(self, method: str) -> list[dict]:
        """One-vs-rest reliability of every class, from the pooled out-of-fold predictions."""
        return class_reliability(self.y, self.proba(method))


#: where a Dataset comes from, in the sentence refusing anything else (a notebook's
#: DataFrame had no named way in)
_DATASET_SOURCES = (
    "heb.data.load_dataset gives one by name, heb.data.dataset_from_table(frame, "
    "'name', target='column') from a DataFrame"
)


def _check_dataset(dataset, caller: str) -> None:
    """Refuse anything but a :class:`Dataset` in one sentence (a DataFrame, an ``(X, y)``
    pair or a name would fail deep inside, on its missing ``fingerprint``)."""
    if not isinstance(dataset, Dataset):
        raise ValueError(
            f"{caller} takes a Dataset ({_DATASET_SOURCES}), got a {type(dataset).__name__}."
        )


def _cached_results(
    cache: ResultCache, keys: dict[str, str]
) -> tuple[dict[str, pd.DataFrame], dict[str, np.ndarray]]:
    """The fold frames and out-of-fold probabilities of the methods found in the cache."""
    frames: dict[str, pd.DataFrame] = {}
    oof: dict[str, np.ndarray] = {}
    for name, key in keys.items():
        frame = cache.get_frame(key)
        arrays = cache.get_arrays(key) if frame is not None else None
        if frame is not None and arrays is not None:
            frames[name], oof[name] = frame.assign(method=name), arrays["oof_proba"]
    return frames, oof


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
    settings: RunSettings | None = None,
) -> CVResult:
    """Stratified k-fold CV of the named methods on one dataset (the paper's protocol).

    Parameters
    ----------
    dataset : Dataset
        Features, target and declared categorical columns.
    methods : sequence of str
        Names (or aliases) from :data:`heb.registry.METHODS`.
    params : dict, optional
        Per-method parameter overrides, e.g. ``{"Lidstone": {"alpha": 0.5}}``; a method
        named here must be one of ``methods`` (else a ValueError: the value would go
        unused). A :class:`RunSettings`' overrides describe the whole run and may name
        other methods (those are not run).
    n_splits, seed : int
        Stratified, shuffled folds (fewer when a class has fewer rows; see ``notes``).
    n_bins, missing : int, str
        Preprocessing of numeric columns and missing values (fitted per training fold).
    max_rows : int or None
        Stratified subsample size (seed 42); None or 0 keeps every row.
    progress : callable, optional
        Called as ``progress(fraction, message)`` (fractions never decrease) while the
        folds are prepared, one fold at a time, then before every method of every fold.
        Raising from it cancels the run at that point (the exception propagates):
        nothing of the run is written to the result cache.
    use_cache : bool
        Read and write results in the result cache (a cache that cannot be written
        costs a warning, not the run).
    settings : RunSettings, optional
        Every setting at once (the app's URL state); when given it replaces ``params``,
        ``n_splits``, ``seed``, ``n_bins``, ``missing`` and ``max_rows``.
    """
    _check_dataset(dataset, "cross_validate")
    methods = registry.method_names(methods)  # aliases and case resolved, each once
    if not methods:
        raise ValueError("Choose at least one method.")
    if settings is None:
        settings = RunSettings(
            n_bins=n_bins,
            missing=missing,
            max_rows=max_rows,
            n_splits=n_splits,
            seed=seed,
            overrides=registry.overrides_of_run(params, methods),  # none for a method not run
        )
    elif params is not None:
        raise ValueError("Give the overrides in settings or in params, not both.")
    else:
        given = {"n_splits": n_splits, "seed": seed, "n_bins": n_bins, "missing": missing}
        given["max_rows"] = max_rows
        defaults = {f.name: f.default for f in fields(RunSettings)}  # this signature's too
        moved = [name for name, value in given.items() if value != defaults[name]]
        if moved:  # settings replace them: a changed one would be ignored without a word
            raise ValueError(
                f"Give {', '.join(moved)} in settings or as arguments, not both "
                f"(settings.replace({moved[0]}=...))."
            )
    settings = settings.replace(fingerprint=dataset.fingerprint())
    specs = _specs(methods, settings)
    # hashing the engine's source for a key costs a second: only for the cache
    keys = _method_keys(specs, settings) if use_cache else {}
    cache = cache if cache is not None else ResultCache()
    report = progress or (lambda fraction, message: None)

    meta = cache.get_json(settings.data_key()) if use_cache else None
    frames, oof = _cached_results(cache, keys) if meta is not None else ({}, {})
    cached = list(frames)
    todo = [name for name in methods if name not in frames]
    if todo:
        report(0.0, "Preparing folds")
        prepared = FOLD_STORE.get_or_build(
            settings.data_key(), lambda: prepare_folds(dataset, settings, progress=report)
        )
        meta = {
            "y": prepared.y.tolist(),
            "classes": [str(c) for c in prepared.classes],
            "notes": list(prepared.notes),
            "n_splits": prepared.n_splits,
            "rows": None if prepared.rows is None else prepared.rows.tolist(),
        }
        results = _run_methods({name: specs[name] for name in todo}, prepared, report)
        for name in todo:
            frames[name], oof[name] = results[name]
            if use_cache:
                cache.store("frame", keys[name], frames[name])
                cache.store("arrays", keys[name], {"oof_proba": oof[name]})
        if use_cache:
            cache.store("json", settings.data_key(), meta)
        y, classes, rows = prepared.y, prepared.classes, prepared.rows
    else:
        y, classes = _cached_labels(dataset, meta)
        rows = _cached_rows(dataset, settings, meta)
    report(1.0, "Done")
    return _result(
        methods, frames, oof, y, classes, meta, cached, rows, settings.seed, hierarchy_notes(specs)
    )


def cached_cross_validation(
    dataset: Dataset,
    methods: Sequence[str],
    *,
    settings: RunSettings,
    cache: ResultCache | None = None,
) -> CVResult | None:
    """What :func:`cross_validate` gives when the result cache holds every method's
    folds: read from the cache, nothing prepared or fitted; None when any is missing.

    The app reads a stored comparison here, in its own process, before it hands a run
    to a worker process (zip-codes, five methods: 0.06-0.09 s here; 0.13 s through a
    worker holding the dataset, 2.3 s through one that must start and receive it).
    """
    _check_dataset(dataset, "cached_cross_validation")
    methods = registry.method_names(methods)  # aliases and case resolved, each once
    if not methods:
        raise ValueError("Choose at least one method.")
    settings = settings.replace(fingerprint=dataset.fingerprint())
    cache = cache if cache is not None else ResultCache()
    meta = cache.get_json(settings.data_key())
    if meta is None:
        return None
    specs = _specs(methods, settings)
    keys = _method_keys(specs, settings)
    if not all(key in cache for key in keys.values()):
        return None  # one look per method, not a read of the others' stored folds
    frames, oof = _cached_results(cache, keys)
    if len(frames) < len(methods):
        return None
    y, classes = _cached_labels(dataset, meta)
    rows = _cached_rows(dataset, settings, meta)
    return _result(
        methods,
        frames,
        oof,
        y,
        classes,
        meta,
        list(frames),
        rows,
        settings.seed,
        hierarchy_notes(specs),
    )


def _specs(methods: list[str], settings: RunSettings) -> dict[str, dict]:
    """Each method's spec with the settings' overrides and hierarchies."""
    overrides = settings.params()
    specs = {name: method_spec(name, overrides.get(name)) for name in methods}
    return attach_hierarchies(specs, settings.hierarchies)


def _method_keys(specs: dict[str, dict], settings: RunSettings) -> dict[str, str]:
    """Each method's result-cache key."""
    return {name: settings.method_key(spec, list(METRICS)) for name, spec in specs.items()}


def _cached_labels(dataset: Dataset, meta: dict) -> tuple[np.ndarray, np.ndarray]:
    """The class codes and labels of a run read from the cache."""
    y = np.asarray(meta["y"], dtype=np.int64)
    classes = encode_target(dataset.y)[1]
    if len(classes) != len(meta["classes"]):
        classes = np.asarray(meta["classes"])
    return y, classes


def _cached_rows(dataset: Dataset, settings: RunSettings, meta: dict) -> np.ndarray | None:
    """The evaluated rows' places in the table of a run read from the cache (found again
    from the dataset when an older entry does not hold them)."""
    if "rows" not in meta:
        return places_in_table(dataset, evaluated_subsample(dataset, settings.max_rows))
    return None if meta["rows"] is None else np.asarray(meta["rows"], dtype=np.int64)


def _result(methods, frames, oof, y, classes, meta, cached, rows, seed, notes=()) -> CVResult:
    """The CVResult of every method's fold frame and out-of-fold probabilities (``notes``:
    the methods' own, after the data's); each row's fold is the split's again (``seed``:
    the run's), as :func:`~heb.evaluate.folds.prepare_folds` drew it."""
    folds = pd.concat([frames[name] for name in methods], ignore_index=True)
    n_splits = int(meta["n_splits"])
    tests = tuple(test for _, test in stratified_folds(y, n_splits, seed))
    return CVResult(
        folds=folds[fold_columns()],
        oof_proba={name: oof[name] for name in methods},
        y=y,
        classes=classes,
        notes=[*meta["notes"], *notes],
        n_splits=n_splits,
        cached=cached,
        rows=rows,
        test_fold=fold_numbers(tests, y.size),
    )


def run_benchmark(
    datasets: Sequence[Dataset],
    methods: Sequence[str] = TABLE1_METHODS,
    *,
    settings: RunSettings | None = None,
    params: dict[str, dict] | None = None,
    progress: Callable[[float, str], None] | None = None,
    use_cache: bool = True,
    n_jobs: int = 1,
    **words,
) -> pd.DataFrame:
    """Cross-validate every method on every dataset; one row per (dataset, method, fold).

    The settings come as ``settings`` or as :class:`RunSettings`' words (``n_splits``,
    ``seed``, ``n_bins``, ``missing``, ``max_rows``) with ``params`` as its overrides,
    exactly as :func:`cross_validate` takes them. ``n_jobs > 1`` runs datasets in
    parallel processes (joblib). One :class:`Dataset` alone is a benchmark of one.
    """
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    # a frame or a name is one thing, not its column names or letters ("got a str")
    one = isinstance(datasets, str | pd.DataFrame | pd.Series)
    datasets = [datasets] if one else list(datasets)
    bad = [type(d).__name__ for d in datasets if not isinstance(d, Dataset)]
    if bad:
        raise ValueError(
            f"run_benchmark takes Dataset objects ({_DATASET_SOURCES}), got a {bad[0]}."
        )
    if settings is None:  # values for a method not run are refused, as cross_validate does
        settings = RunSettings(
            overrides=registry.overrides_of_run(params, registry.method_names(methods)), **words
        )
    elif params is not None or words:
        raise ValueError("Give the settings as a RunSettings or as words, not both.")
    report = progress or (lambda fraction, message: None)

    def one(dataset: Dataset) -> pd.DataFrame:
        result = cross_validate(dataset, methods, settings=settings, use_cache=use_cache)
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
        return pd.DataFrame(columns=["dataset", *fold_columns()])
    out = pd.concat(frames, ignore_index=True)
    return out[["dataset", *fold_columns()]]
