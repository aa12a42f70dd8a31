"""Cross-validation on an engine: one counting scan, then one streamed scoring scan.

1. :func:`~heb.scale.counting.count_histograms` counts every feature's raw values per
   (fold, class) in one GROUPING SETS scan; fold k's training counts are the total minus
   fold k, from which the encodings and the :class:`~heb.counts.CountTable` are fitted
   (AODE adds one scan of pair histograms, :mod:`heb.scale.joint`).
2. Every method is fitted per fold from the counts alone (``fit_counts``, as in memory).
3. A second scan streams the rows. On DuckDB (batches arrive in this process) each row's
   fold-independent slots are written once to its fold's file
   (:class:`~heb.scale.fold_files.FoldFiles`); then fold by fold the encodings and models
   are fitted, the fold's rows coded (one gather) and scored, and its metrics finished, so
   one fold's models live at a time. On Spark (``mapInPandas``, fitted tables shipped to
   the workers) each row is encoded with its own fold's encodings, scored by that fold's
   models and added to the fold's :class:`~heb.scale.streaming_metrics.MetricSums`; when
   the models of all methods and folds would exceed ``model_budget`` bytes, folds are
   scored in groups, one scan each.

Memory is flat in the rows: the histograms hold distinct values, the scan holds a batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from heb import registry
from heb.aode import AODE
from heb.data import DataError
from heb.data.folds import few_rows_note, single_row_note
from heb.metrics import reliability_from_sums
from heb.nb import NaiveBayes
from heb.registry import METRICS as METRIC_NAMES  # metric names, in order
from heb.scale.counting import FittedFold, count_histograms, describe
from heb.scale.fold_files import FoldFiles
from heb.scale.memory import release_freed_memory
from heb.scale.scoring import FoldModels, FoldScorer, merge_sums
from heb.scale.sql import rows_query
from heb.scale.streaming_metrics import ECE_EDGES, MetricSums
from heb.text import and_list

__all__ = [
    "ENGINE_FAMILIES",
    "ScaleCVResult",
    "check_methods",
    "cross_validate",
    "make_models",
    "unsupported_methods",
]

#: the most folds a run can have (fold numbers are int16 in the histograms)
MAX_FOLDS = int(np.iinfo(np.int16).max)
#: the registry families the engine path fits from counts alone
ENGINE_FAMILIES = ("nb", "aode")

_FOLD_COLUMNS = ["method", "fold", *METRIC_NAMES, "auc_bound", "fit_time", "predict_time"]
_BIN_COLUMNS = ["method", "fold", "bin", "rows", "confidence_sum", "correct_sum"]


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
        Seconds of ``count`` (histogram scan), ``encode`` (fitting the folds' encodings and
        count tables), ``joint`` (AODE scan), ``spill`` (DuckDB: the scan writing the fold
        files), ``fit`` (smoothing) and ``score``; ``<phase>_cpu``: its CPU seconds (all
        threads of this process: DuckDB's, not Spark's JVM).
    notes : list of str
    reliability_bins : DataFrame
        One row per (method, fold, bin) of the top-1 ECE's ten uniform bins: ``rows``,
        ``confidence_sum`` (their top-1 probabilities) and ``correct_sum`` (rows right).
    class_sums : dict
        Per method, added over the folds: ``confusion`` (C, C) rows per (true, predicted)
        class, and per (class, bin) of P(class) in ten uniform bins ``rows``, ``prob_sum``
        and ``hit_sum`` (rows of that class).
    k_max : int
        The most values of one feature over all rows (a numeric one counts at most its
        bins), as in memory: the paper's Table 3 takes the datasets with K_max >= 100.
    """

    folds: pd.DataFrame
    classes: np.ndarray
    n_splits: int
    n_rows: int
    engine: str
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    reliability_bins: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=_BIN_COLUMNS)
    )
    class_sums: dict = field(default_factory=dict)
    k_max: int = 0

    @property
    def methods(self) -> list[str]:
        """Methods in the order they were asked for."""
        return list(dict.fromkeys(self.folds["method"]))

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over folds, per method (as ``CVResult.summary``)."""
        from heb.evaluate import CVResult

        return CVResult.summary(self)  # it reads only ``folds`` and ``methods``

    def confusion(self, method: str) -> np.ndarray:
        """Rows per (true class, predicted class) of a method's out-of-fold predictions,
        (C, C) integers, as :func:`heb.metrics.confusion_counts` counts them."""
        return np.rint(self._class_sums_of(method)["confusion"]).astype(np.int64)

    def class_reliability(self, method: str) -> list[dict]:
        """One-vs-rest reliability of every class (pooled out-of-fold), as
        :func:`heb.metrics.class_reliability` gives it from the rows."""
        sums = self._class_sums_of(method)
        return [
            reliability_from_sums(ECE_EDGES, rows, prob, hits)
            for rows, prob, hits in zip(
                sums["rows"], sums["prob_sum"], sums["hit_sum"], strict=True
            )
        ]

    def _class_sums_of(self, method: str) -> dict:
        if method not in self.class_sums:
            raise KeyError(f"No per-class sums for {method!r}.")
        return self.class_sums[method]

    def reliability(self, method: str) -> dict:
        """Reliability-diagram data of a method's out-of-fold predictions pooled over the
        folds (as ``CVResult.reliability``: the same bins, every row counted once)."""
        bins = self.reliability_bins[self.reliability_bins["method"] == method]
        if bins.empty:
            raise KeyError(f"No reliability bins for {method!r}.")
        pooled = bins.groupby("bin")[["rows", "confidence_sum", "correct_sum"]].sum()
        pooled = pooled.reindex(range(ECE_EDGES.size - 1), fill_value=0.0)
        return reliability_from_sums(
            ECE_EDGES,
            pooled["rows"].to_numpy(),
            pooled["confidence_sum"].to_numpy(),
            pooled["correct_sum"].to_numpy(),
        )

    def with_methods_of(self, update: ScaleCVResult, methods: Sequence[str]) -> ScaleCVResult:
        """This run with ``update``'s numbers for the methods ``update`` ran, in ``methods``
        order: a what-if re-run of a few methods on the same file, folds and settings.

        Rows fall in the same folds (a seeded hash of each row) and each fold's encodings
        come from the same counts, so every method's numbers equal those of one run of
        all of them; only the re-run methods pay for a scoring pass. ``timings`` are the
        update's (the scan that ran). Raises ValueError when the two runs saw different
        rows, folds or classes, or a method of ``methods`` is in neither.
        """
        same = (
            self.n_rows == update.n_rows
            and self.n_splits == update.n_splits
            and self.engine == update.engine
            and np.array_equal(self.classes, update.classes)
        )
        if not same:
            raise ValueError("The runs saw different rows, folds or classes: run them together.")
        methods = list(methods)
        missing = [m for m in methods if m not in self.methods and m not in update.methods]
        if missing:
            raise ValueError(f"Neither run has {and_list(missing)}.")
        fresh = set(update.methods)

        def combined(base: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
            kept = base[~base["method"].isin(fresh) & base["method"].isin(methods)]
            both = pd.concat([kept, new], ignore_index=True)
            order = both["method"].map({m: i for i, m in enumerate(methods)})
            return both.iloc[np.argsort(order.to_numpy(), kind="stable")].reset_index(drop=True)

        return ScaleCVResult(
            folds=combined(self.folds, update.folds),
            classes=self.classes,
            n_splits=self.n_splits,
            n_rows=self.n_rows,
            engine=self.engine,
            timings=dict(update.timings),
            notes=list(dict.fromkeys([*self.notes, *update.notes])),
            reliability_bins=combined(self.reliability_bins, update.reliability_bins),
            class_sums={m: {**self.class_sums, **update.class_sums}[m] for m in methods},
            k_max=self.k_max,
        )


def unsupported_methods(methods: Sequence[str]) -> list[str]:
    """The methods among ``methods`` the engine path cannot fit (TAN, reference models)."""
    return [
        m
        for m in registry.method_names(methods)
        if registry.method(m).family not in ENGINE_FAMILIES
    ]


#: a method family as the refusal names it ("TAN is a tan method" named nothing)
_FAMILY_WORDS = {"tan": "tree-augmented (TAN)"}


def check_methods(methods: Sequence[str], params: dict[str, dict] | None = None) -> None:
    """Raise (one sentence) when a method cannot run on the engine path: before any scan.

    Raises
    ------
    ValueError
        A TAN or reference method (the engine path fits NB and AODE from counts), or a
        category hierarchy given in ``params``.
    """
    refused = unsupported_methods(methods)
    if refused:
        families = sorted(
            {_FAMILY_WORDS.get(f, f) for f in (registry.method(m).family for m in refused)}
        )
        raise ValueError(
            f"{and_list(refused)} {'is a' if len(refused) == 1 else 'are'} "
            f"{' / '.join(families)} method{'s' * (len(refused) > 1)}, which the engine path "
            "cannot fit (it fits NB and AODE from counts); leave "
            f"{'it' if len(refused) == 1 else 'them'} out or run in memory."
        )
    for name, overrides in (params or {}).items():
        if (overrides or {}).get("hierarchies") or (overrides or {}).get("hierarchy_declared"):
            raise ValueError(
                f"{name}: category hierarchies are not available on the large-data path; "
                "run it without them (HEB-H is then HEB-M) or in memory."
            )


def _empty_folds(histograms, n_splits: int) -> None:
    """Raise naming the folds without a row, as soon as the fold counts are known (counted
    from 1, as the progress names them: "Fold 1 of 4")."""
    per_fold = np.asarray(histograms.fold_class_counts).sum(axis=1)
    empty = [int(k) + 1 for k in np.flatnonzero(per_fold == 0)]
    if empty:
        fold_word = "Fold" if len(empty) == 1 else "Folds"
        raise DataError(
            f"{fold_word} {and_list([str(k) for k in empty])} of {n_splits} received no rows; "
            f"use fewer folds for {histograms.n_rows:,} rows."
        )


def make_models(name: str, fitted: FittedFold, classes: np.ndarray, joint=None, overrides=None):
    """The named registry method fitted on one fold's counts (no rows needed).

    Every registered NB smoother runs here; HEB-H runs without hierarchies (it is then
    HEB-M): its levels are written in one fold's in-memory codes, which the engine path's
    per-fold encodings do not share, so hierarchies given in ``overrides`` are refused.
    """
    entry = registry.method(name)
    params = {**entry.params, **(overrides or {})}
    if params.get("hierarchies") or params.get("hierarchy_declared"):
        raise ValueError(
            f"{name}: category hierarchies are not available on the large-data path; "
            "run it without them (HEB-H is then HEB-M) or in memory."
        )
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


def _fold_bytes(fold: FittedFold, methods: list[str], joints: dict, params, variants=None) -> float:
    """Rough bytes of one fold's fitted models while scoring (model table + stacked copy)."""
    table = float(fold.table.counts.nbytes)
    total = 0.0
    for name in methods:
        total += 2 * table
        joint = joints.get((_cap_key(name, params, variants), fold.fold))
        if joint is not None:
            total += 2 * 8.0 * joint.n_cells * joint.n_classes
    return total


def _class_notes(histograms) -> list[str]:
    """The in-memory run's notes on rare classes (:func:`heb.data.folds.safe_n_splits`),
    from the rows each fold holds: the smallest class with fewer rows than folds, in how
    many folds it is tested, and the classes of a single row."""
    per_fold = histograms.fold_class_counts
    totals, tested = per_fold.sum(axis=0), (per_fold > 0).sum(axis=0)
    notes = []
    rare = np.flatnonzero((totals > 1) & (totals < per_fold.shape[0]))
    if rare.size:
        c = rare[np.argmin(totals[rare])]
        notes.append(
            few_rows_note(histograms.classes[c], int(totals[c]), per_fold.shape[0], tested[c])
        )
    singles = histograms.classes[totals == 1]
    if singles.size:
        notes.append(single_row_note(singles))
    return notes


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
    variants: Mapping[str, str] | None = None,
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
        Per-method parameter overrides, e.g. ``{"Lidstone": {"alpha": 0.5}}``, each of a
        method (or variant label) among ``methods``.
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
    variants : mapping of str to str, optional
        Labels among ``methods`` that run a registry method with their own ``params``,
        e.g. ``{"Lidstone(0.5)": "Lidstone"}`` with ``params={"Lidstone(0.5)": {"alpha":
        0.5}}``: one method at several settings costs one counting and one scoring pass,
        not one each. The result names them by their labels.
    """
    variants = {label: registry.resolve_method_name(m) for label, m in (variants or {}).items()}
    methods = [methods] if isinstance(methods, str) else methods  # one name, not its letters
    methods = list(
        dict.fromkeys(m if m in variants else registry.resolve_method_name(m) for m in methods)
    )
    if not methods:
        raise ValueError("Choose at least one method.")
    # {"lidstone": ...} too; values for a method not run are refused, not dropped unsaid
    params = registry.overrides_of_run(params, methods, keep=variants)
    if int(n_splits) < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}.")
    if int(n_splits) > MAX_FOLDS:  # folds travel as int16 through the histograms
        raise ValueError(f"n_splits must be at most {MAX_FOLDS:,}, got {n_splits}.")
    check_methods([variants.get(m, m) for m in methods], params)  # before any scan
    report = progress or (lambda fraction, message: None)
    timings: dict[str, float] = {}

    report(0.0, f"Counting values on {engine.name}")
    with _phase(timings, "count"):
        columns = describe(engine, target, features, categorical)
        histograms = count_histograms(engine, columns, n_splits, seed)
    _empty_folds(histograms, n_splits)

    def fit_fold(k: int) -> FittedFold:
        with _phase(timings, "encode"):
            return histograms.fit_fold(k, n_bins, missing)

    joints, fitted = {}, None
    if any(registry.method(variants.get(m, m)).family == "aode" for m in methods):
        from heb.scale.joint import count_joints

        fitted = [fit_fold(k) for k in range(n_splits)]  # the pair scan codes every fold
        report(0.05, "Counting feature pairs for AODE")
        with _phase(timings, "joint"):
            caps = caps_of_methods(methods, params, variants)
            joints = count_joints(engine, histograms, fitted, caps)

    fold_of = (lambda k: fitted[k]) if fitted else fit_fold
    plan = _Plan(methods, histograms, fold_of, joints, params, timings, report, variants)

    def sql(folds=None) -> str:
        return rows_query(engine.dialect, target, list(columns.features), n_splits, seed, folds)

    if getattr(engine, "in_process", False):
        scores = _score_from_fold_files(engine, sql(), plan, batch_rows)
        notes = []
    else:
        scores, n_scans = _score_by_scans(engine, sql, plan, batch_rows, model_budget)
        notes = [f"Scored in {n_scans} scans to keep the models in budget."] * (n_scans > 1)
    report(1.0, "Done")
    notes = _class_notes(histograms) + notes

    empty = [k for k in range(n_splits) if (methods[0], k) not in scores]
    if empty:
        raise DataError(
            f"Fold {empty[0]} received no rows; use fewer folds for {histograms.n_rows} rows."
        )
    rows = [
        {
            "method": name,
            "fold": fold,
            **scores[(name, fold)][0],
            "fit_time": plan.fit_time[(name, fold)],
            "predict_time": scores[(name, fold)][1],
        }
        for name in methods
        for fold in range(n_splits)
    ]
    return ScaleCVResult(
        pd.DataFrame(rows, columns=_FOLD_COLUMNS),
        histograms.classes,
        n_splits,
        histograms.n_rows,
        engine.name,
        timings,
        notes,
        _bins_frame(scores, methods, n_splits),
        _class_sums(scores, methods, n_splits),
        _k_max(histograms.values, n_bins),
    )


def _k_max(values, n_bins: int) -> int:
    """K_max over the whole data, as :func:`heb.evaluate.paper.dataset_k_max` counts it in
    memory: a categorical feature's distinct values, a numeric one's at most ``n_bins``."""
    sizes = [len(v.keys) if v.kind == "categorical" else min(len(v.keys), n_bins) for v in values]
    return max(sizes, default=0)


def _bins_of(sums: MetricSums) -> dict:
    """What a result keeps of a (method, fold)'s sums besides its metrics: the top-1
    reliability bins and the per-class sums (a few hundred numbers; no score histogram)."""
    return {"top1": sums.reliability_bins(), "class": sums.class_bins()}


def _class_sums(scores: dict, methods: list[str], n_splits: int) -> dict:
    """:attr:`ScaleCVResult.class_sums`: each method's per-class sums added over the folds."""
    out = {}
    for name in methods:
        parts = [scores[(name, fold)][2]["class"] for fold in range(n_splits)]
        out[name] = {key: sum(part[key] for part in parts) for key in parts[0]}
    return out


def _bins_frame(scores: dict, methods: list[str], n_splits: int) -> pd.DataFrame:
    """The (method, fold, bin) rows of :attr:`ScaleCVResult.reliability_bins`."""
    parts = []
    for name in methods:
        for fold in range(n_splits):
            bins = scores[(name, fold)][2]["top1"]
            parts.append(
                pd.DataFrame(
                    {"method": name, "fold": fold, "bin": np.arange(bins["rows"].size), **bins}
                )
            )
    return pd.concat(parts, ignore_index=True)[_BIN_COLUMNS]


class _Plan:
    """What both scoring strategies share: the methods, each fold's counts and the timings.

    ``fold(k)`` gives fold k's :class:`FittedFold` (fitted with the run's bins and
    missing-value rule, or the one the AODE pair scan already fitted).
    """

    def __init__(self, methods, histograms, fold, joints, params, timings, report, variants):
        self.methods, self.histograms, self.variants = methods, histograms, variants
        self.fold: Callable[[int], FittedFold] = fold
        self.joints, self.params = joints, params
        self.timings, self.report = timings, report
        self.fit_time: dict = {}

    def fit(self, group: list[FittedFold]) -> dict:
        """Every method fitted on every fold of ``group``; seconds go into ``fit_time``."""
        models = {}
        for name in self.methods:
            for fold in group:
                start = time.perf_counter()
                joint = self.joints.get((_cap_key(name, self.params, self.variants), fold.fold))
                method = self.variants.get(name, name)
                overrides = (self.params or {}).get(name)
                with _phase(self.timings, "fit"):
                    models[(name, fold.fold)] = make_models(
                        method, fold, self.histograms.classes, joint, overrides
                    )
                self.fit_time[(name, fold.fold)] = time.perf_counter() - start
        return models


def _score_from_fold_files(engine, sql: str, plan: _Plan, batch_rows: int) -> dict:
    """(metrics, predict seconds, reliability bins) per (method, fold): one spilling scan,
    then fold by fold."""
    histograms = plan.histograms
    n_folds, n_rows = histograms.n_folds, max(histograms.n_rows, 1)
    values = [v.dictionary_only() for v in histograms.values]
    scores: dict = {}
    with FoldFiles(values, histograms.classes, n_folds) as files:

        def spilled(rows_done: int) -> None:
            plan.report(0.1 + 0.4 * min(1.0, rows_done / n_rows), f"Encoded {rows_done:,} rows")

        with _phase(plan.timings, "spill"):
            files.write(engine.batches(sql, batch_rows), on_batch=spilled)
            release_freed_memory()
        for k in range(n_folds):
            # each fold's share of the bar moves as its rows are scored: one line per fold
            # left the bar at "fold 1 of 3" through a long fold
            low, high = 0.5 + 0.5 * k / n_folds, 0.5 + 0.5 * (k + 1) / n_folds
            plan.report(low, f"Fitting fold {k + 1} of {n_folds}")
            fold = plan.fold(k)
            models = FoldModels([(name, m) for (name, _), m in plan.fit([fold]).items()])
            fold_rows = max(int(files.rows[k]), 1)

            def scored(rows_done: int, k=k, low=low, high=high, fold_rows=fold_rows) -> None:
                share = min(1.0, rows_done / fold_rows)
                plan.report(
                    low + (high - low) * share,
                    f"Scoring fold {k + 1} of {n_folds}: {rows_done:,} of {fold_rows:,} rows",
                )

            chunk = _chunk_rows(fold.features.size, len(plan.methods), histograms.classes.size)
            with _phase(plan.timings, "score"):
                scores |= _score_fold(
                    files, k, fold, models, plan.methods, min(batch_rows, chunk), scored
                )
            del models, fold
            release_freed_memory()  # the fold's models, before the next fold's are fitted
    return scores


def _chunk_rows(n_features: int, n_methods: int, n_classes: int, budget: float = 64e6) -> int:
    """Rows per scoring chunk whose working arrays fit ``budget`` bytes: the codes and
    their table positions (16 bytes a feature) and the stacked models' sums and gathered
    columns (16 bytes a method and class). 500,000 rows of 20 features and seven
    two-class methods took 270 MB beside the fold's models."""
    per_row = 16 * n_features + 16 * n_methods * n_classes
    return int(max(16_384, budget // per_row))


def _score_fold(
    files: FoldFiles,
    k: int,
    fold: FittedFold,
    models,
    methods,
    batch_rows,
    on_chunk: Callable[[int], None] | None = None,
) -> dict:
    """(metrics, predict seconds, reliability bins) per (method, k) of fold k's rows, read
    from its file; ``on_chunk(rows scored so far)`` after each chunk."""
    sums = {name: MetricSums(files.class_index.size) for name in methods}
    seconds = dict.fromkeys(methods, 0.0)
    done = 0
    for slots, y in files.chunks(k, batch_rows):
        codes = np.empty((y.size, fold.features.size), dtype=np.int64)
        for j, (index, encoding) in enumerate(zip(fold.features, fold.encodings, strict=True)):
            codes[:, j] = encoding.test_code[slots[:, index]]
        for name, proba, used in models.predict_proba(codes):
            sums[name].update(y, proba)
            seconds[name] += used
        done += y.size
        if on_chunk is not None:
            on_chunk(done)
    if not files.rows[k]:
        return {}
    return {
        (name, k): (sums[name].result(), seconds[name], _bins_of(sums[name])) for name in methods
    }


@contextmanager
def _phase(timings: dict, name: str):
    """Add the block's wall seconds to ``timings[name]``, its CPU seconds (every thread of
    this process, DuckDB's included) to ``timings[name + "_cpu"]``."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - wall
        timings[f"{name}_cpu"] = timings.get(f"{name}_cpu", 0.0) + time.process_time() - cpu


def folds_text(folds: Sequence[int], n_folds: int) -> str:
    """Folds as the progress reports name them, counted from 1 as DuckDB's "fold 1 of 10".

    Parameters
    ----------
    folds : sequence of int
        0-based fold numbers, ascending.
    n_folds : int
        How many folds the run has.

    Returns
    -------
    str
        "fold 3 of 10", "folds 1 - 10 of 10" (a run of folds) or "folds 1, 4 of 10"; Spark's
        reports printed the Python list "folds [0, 1, 2, ..., 9]".
    """
    numbers = [int(k) + 1 for k in folds]
    if len(numbers) == 1:
        return f"fold {numbers[0]} of {n_folds}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"folds {numbers[0]} - {numbers[-1]} of {n_folds}"
    return f"folds {', '.join(map(str, numbers))} of {n_folds}"


def _score_by_scans(engine, sql: Callable, plan: _Plan, batch_rows: int, budget: float):
    """(metrics, predict seconds, reliability bins) per (method, fold) from scans of the
    source on its engine (Spark: ``mapInPandas``), folds grouped so that one group's models
    fit ``budget``."""
    histograms = plan.histograms
    fitted = [plan.fold(k) for k in range(histograms.n_folds)]
    sizes = [
        _fold_bytes(fold, plan.methods, plan.joints, plan.params, plan.variants) for fold in fitted
    ]
    groups = _fold_groups(fitted, sizes, budget)
    sums: dict = {}
    for index, group in enumerate(groups):
        folds = [fold.fold for fold in group]
        low, high = 0.1 + 0.9 * index / len(groups), 0.1 + 0.9 * (index + 1) / len(groups)
        named = folds_text(folds, histograms.n_folds)
        plan.report(low, f"Fitting and scoring {named}")
        models = plan.fit(group)
        scorer = FoldScorer(histograms, group, models)
        del models
        group_rows = float(histograms.fold_class_counts[folds].sum())

        def scanned(rows_done: int, low=low, high=high, group_rows=group_rows, named=named):
            share = min(1.0, rows_done / max(group_rows, 1.0))
            plan.report(low + (high - low) * share, f"Scored {rows_done:,} rows of {named}")

        with _phase(plan.timings, "score"):
            part = engine.map_reduce(sql(folds), scorer, merge_sums, batch_rows, on_batch=scanned)
        merge_sums(sums, part or {})
    scores = {
        key: (acc.result(), float(acc.state["seconds"][0]), _bins_of(acc))
        for key, acc in sums.items()
    }
    return scores, len(groups)


def _cap_key(name: str, params, variants: Mapping[str, str] | None = None) -> tuple:
    """The joint-count caps of an AODE method (or variant label), in the order of
    ``JointCounts.caps``."""
    entry = registry.method((variants or {}).get(name, name))
    if entry.family != "aode":
        return ()
    model = AODE(**{**entry.params, **((params or {}).get(name) or {})})
    return (model.max_parent_cardinality, model.max_joint_cells, model.max_pairs)


def caps_of_methods(
    methods: Sequence[str], params, variants: Mapping[str, str] | None = None
) -> list[tuple]:
    """The distinct caps (parent cardinality, joint cells, pairs) of the AODE methods asked for."""
    keys = [_cap_key(m, params, variants) for m in methods]
    keys = [key for key in keys if key]
    return list(dict.fromkeys(keys))
