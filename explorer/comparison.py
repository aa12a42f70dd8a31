"""The Compare page's work: cross-validate the chosen methods once, build its views once.

A finished comparison (the CV result plus the tables and figures drawn from it) is kept
in a small process-wide store, bounded and guarded by a lock (Streamlit serves each
session from its own thread), keyed on the run settings (:class:`heb.evaluate.RunSettings`,
what the result cache keys on too). A what-if change that returns to a value seen before
is served from it: nothing is recomputed.

Many visitors at once: one computation per key, owned by a background thread that runs
the cross-validation in a worker process at a lower priority (:mod:`explorer.worker_pool`),
so the server's threads, its GIL and its event loop stay free for every visitor's page.
Sessions only wait for it: the one that asked first sees its progress, the others a
notice. At most :data:`MAX_HEAVY_RUNS` runs at a time (the others say they are queued),
and a run stops (its worker killed) when every session waiting for it has gone (its
browser closed): Streamlit keeps a disconnected session's script running, so the waiting
loop checks.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from explorer import worker_pool
from explorer.cv_worker import HandoverError
from explorer.errors import Interrupted
from explorer.worker_pool import WorkerCancelled
from heb import figures, registry
from heb.data import Dataset
from heb.data.dataset import quote
from heb.evaluate import CVResult, RunSettings, cached_cross_validation, cross_validate
from heb.text import and_list

__all__ = [
    "BEST_STYLE",
    "Comparison",
    "ECE_FOLD_MEAN",
    "ECE_POOLED",
    "MAX_HEAVY_RUNS",
    "RunCancelled",
    "best_style",
    "metric_column",
    "metrics_table",
    "one_class_notes",
    "reliability_frame",
    "run_comparison",
    "session_gone",
    "disconnected_too_long",
    "what_if_knobs",
]

BEST_STYLE = "font-weight: bold; color: #1f5fbf"
#: completed comparisons kept in memory (on top of heb.evaluate's disk cache)
MEMORY_ENTRIES = 32
#: cross-validations computed at once by the whole server (one per core); others queue
MAX_HEAVY_RUNS = 2
#: how often a waiting or queued session looks again (and checks that it is still there)
POLL_SECONDS = 0.25
#: a run over within this many seconds shows no progress box, only its finished status
QUIET_SECONDS = 0.3


class RunCancelled(Interrupted):
    """The session that asked for a comparison has gone; its work was stopped."""


_GONE = (
    "This page lost its connection to the server, so its cross-validation was stopped. "
    "Rerun the page to start it again."
)


#: a session disconnected this long has gone: a loaded machine drops websockets that the
#: browser reconnects a moment later, and such a session must keep its run
DISCONNECT_GRACE_SECONDS = 15.0
#: session id -> when it was first seen disconnected (cleared when it is seen again)
_DISCONNECTED_SINCE: dict[str, float] = {}


def session_gone() -> bool:
    """True when this script's browser session has been disconnected from the server for
    :data:`DISCONNECT_GRACE_SECONDS`.

    Streamlit stops a script at its next ``st`` call only on a rerun, not when the browser
    closes, so long work asks here. False outside a running server (tests, bare mode).
    """
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not Runtime.exists():
        return False
    connected = Runtime.instance().is_active_session(ctx.session_id)
    return disconnected_too_long(ctx.session_id, connected, time.monotonic())


def disconnected_too_long(session_id: str, connected: bool, now: float) -> bool:
    """Whether a session seen ``connected`` (or not) at ``now`` has been away for the grace
    period; a connected session's earlier disconnection is forgotten."""
    if connected:
        _DISCONNECTED_SINCE.pop(session_id, None)
        return False
    since = _DISCONNECTED_SINCE.setdefault(session_id, now)
    if now - since < DISCONNECT_GRACE_SECONDS:
        return False
    _DISCONNECTED_SINCE.pop(session_id, None)  # gone: its run stops, nothing to remember
    return True


def _check_session() -> None:
    if session_gone():
        raise RunCancelled(_GONE)


def metric_column(name: str) -> str:
    """A metric's column title with its direction: ``Accuracy ↑``, ``ECE ↓``."""
    entry = registry.metric(name)
    return f"{entry.label} {'↑' if entry.higher_is_better else '↓'}"


def what_if_knobs(methods: list[str]) -> dict[str, registry.Param]:
    """The chosen methods' what-if parameters (registry knobs), by method name."""
    knobs = {}
    for name in methods:
        knob = registry.method(name).knob
        if knob is not None and knob.choices:
            knobs[name] = knob
    return knobs


def with_settings(folds: pd.DataFrame, overrides: dict[str, dict[str, float]]) -> pd.DataFrame:
    """The per-fold scores with a ``setting`` column: each method's what-if value as text
    (``alpha = 1``; its default when not turned), empty for a method without a knob. The
    CSV said "Lidstone" whatever its alpha was."""
    knobs = what_if_knobs(list(dict.fromkeys(folds["method"])))

    def setting(method: str) -> str:
        knob = knobs.get(method)
        if knob is None:
            return ""
        return f"{knob.name} = {overrides.get(method, {}).get(knob.name, knob.default):g}"

    return folds.assign(setting=folds["method"].map(setting))


#: decimals of the Compare table's ``mean ± std`` cells: three keep all eight columns
#: (method, fit time, six metrics) visible in a 1280 px window without sideways scrolling
TABLE_DECIMALS = 3
#: the most decimals a metric's cells get where its means are tiny (:func:`metric_decimals`)
MAX_TABLE_DECIMALS = 6


def metric_decimals(summary: pd.DataFrame, metric: str) -> int:
    """Decimals of one metric's cells: :data:`TABLE_DECIMALS`, or, where its largest mean
    is below 0.01, enough for two significant digits (at most :data:`MAX_TABLE_DECIMALS`).
    Brier, averaged over the classes, is about 0.009 with 100 of them: at three decimals
    every method read "0.009 ± 0.000" and all were bold as the best."""
    largest = float(summary[f"{metric}_mean"].abs().max())
    if not np.isfinite(largest) or largest == 0 or largest >= 10.0 ** (1 - TABLE_DECIMALS):
        return TABLE_DECIMALS
    return int(min(MAX_TABLE_DECIMALS, 1 - np.floor(np.log10(largest))))


def table_decimals(summary: pd.DataFrame) -> dict[str, int]:
    """:func:`metric_decimals` of every registered metric in ``summary``."""
    return {m: metric_decimals(summary, m) for m in registry.METRICS if f"{m}_mean" in summary}


def one_class_notes(result: CVResult) -> list[str]:
    """A sentence per class that methods predict on every row (of data with rows in at
    least two classes), naming those methods: its accuracy is then that class's share
    and its F1-macro low, which the table alone does not say. Methods predicting the same
    class share one sentence (five smoothers on a skewed table were five identical boxes).

    A feature-weighted method (``+GR``) gets the usual cause, in a sentence of its own:
    its sqrt-MI weights are below 1 where a feature says little about the class and scale
    its evidence down, so the class prior decides every row.
    """
    if np.unique(result.y).size < 2:
        return []
    groups: dict[tuple[int, bool], list[str]] = {}
    for method, proba in result.oof_proba.items():
        predicted = np.unique(proba.argmax(axis=1))
        if predicted.size != 1:
            continue
        entry = registry.METHODS.get(method)
        weighted = entry is not None and entry.params.get("weighting") == "sqrt-mi"
        groups.setdefault((int(predicted[0]), weighted), []).append(method)
    out = []
    for (code, weighted), methods in groups.items():
        label = result.classes[code]
        share = float(np.mean(result.y == code))
        one = len(methods) == 1
        names = and_list(methods)
        its = "its" if one else "their"
        sentence = (
            # the label quoted: a bare "one class, 0, for every row" read as a count
            f"{names} {'predicts' if one else 'predict'} one class, {quote(label)}, for every "
            "row: "
            f"{its} accuracy is that class's share of the rows ({share:.{TABLE_DECIMALS}f}), "
            f"{its} F1-macro is low, and only {its} probabilities (log-loss, Brier, AUC) "
            "tell the rows apart."
        )
        if weighted:
            sentence += (
                f" {its.capitalize()} feature weights, the square root of each feature's "
                "mutual information with the class, are below 1 where a feature says little "
                "about the class; they scale that evidence down, so the class prior decides."
            )
        out.append(sentence)
    return out


def metrics_table(result: CVResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per method: the median fold's fit time, then mean ± std over folds of every
    metric; the summary.

    The fit time comes second (after the method) so that a narrow window (1024-1280 px),
    where the grid scrolls sideways, still shows it next to the method's name.
    """
    summary = result.summary()
    shown = pd.DataFrame({"method": summary["method"]})
    # the median fold: a first fold's warm-up (a cold cache, page faults) made the mean of
    # a fresh run several times a re-run's and ordered the methods by luck
    typical = result.folds.groupby("method")["fit_time"].median()
    shown["fit time (ms)"] = [f"{1000 * typical[m]:.1f}" for m in summary["method"]]
    for metric in registry.METRICS:
        mean, std = summary[f"{metric}_mean"], summary[f"{metric}_std"]
        d = metric_decimals(summary, metric)
        shown[metric_column(metric)] = [
            f"{m:.{d}f} ± {s:.{d}f}" for m, s in zip(mean, std, strict=True)
        ]
    return shown, summary


#: the fit-time column's short header in the grid (the full name is its help)
FIT_TIME_HEADER = "fit ms"
#: the method column's width in the grid: "TargetEncoder+LR" fits it
METHOD_WIDTH = 140
#: the grid's names of methods too long for :data:`METHOD_WIDTH` (the column's help and
#: the caption name them in full): 140 px cut "HistGradientBoosting" to
#: "HistGradientBoostin" at 1440 px, and 152 px, which held it, pushed the ECE column
#: 9 px past a 1280 px window with the sidebar open (an analyst's trial)
GRID_NAMES = {"HistGradientBoosting": "HistGB"}


def grid_names(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the methods of :data:`GRID_NAMES` under their short grid names."""
    return table.assign(method=table["method"].replace(GRID_NAMES))


def grid_names_note(table: pd.DataFrame) -> str:
    """The sentence naming the shortened methods of ``table`` in full ("" for none)."""
    short = [f"{GRID_NAMES[m]}: {m}." for m in table["method"] if m in GRID_NAMES]
    return " ".join(short)


def table_column_config(methods: Iterable[str] = ()) -> dict:
    """Column settings of the Compare grid: a short fit-time header with its meaning as
    help and a narrow width, so that all eight columns fit a 1280 px window; the method
    column pinned at the left, its help naming in full those of ``methods`` the grid
    shortens (:func:`grid_names`)."""
    full = [f"{GRID_NAMES[m]} is {m}" for m in methods if m in GRID_NAMES]
    return {
        # pinned: where the grid scrolls sideways (a 1024 px window with the sidebar open)
        # the names stay in view
        "method": st.column_config.TextColumn(
            width=METHOD_WIDTH,
            pinned=True,
            help=f"The method ({'; '.join(full)})." if full else None,
        ),
        "fit time (ms)": st.column_config.TextColumn(
            FIT_TIME_HEADER,
            help="Median fit time of a fold in milliseconds (counting the fold included; "
            "the median, so that one fold's warm-up does not weigh).",
            width=56,
        ),
    }


def has_best(summary: pd.DataFrame) -> bool:
    """Whether :func:`best_style` colours anything: a single method is best of nothing."""
    return len(summary) > 1


def best_note(summary: pd.DataFrame) -> str:
    """The sentence saying what :func:`best_style` colours ("" when it colours nothing)."""
    return "Best mean of each metric in bold blue." if has_best(summary) else ""


def best_style(summary: pd.DataFrame) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A Styler function colouring the best method of each metric (by its mean as shown,
    to :func:`metric_decimals` decimals: every method tied there is coloured); nothing with
    a single method."""

    def style(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        if not has_best(summary):
            return out
        for name, entry in registry.METRICS.items():
            means = summary[f"{name}_mean"].round(metric_decimals(summary, name))
            best = means.max() if entry.higher_is_better else means.min()
            out.loc[means.index[means == best], metric_column(name)] = BEST_STYLE
        return out

    return style


#: the CSV columns of the two ECEs a Compare view shows: that of the pooled out-of-fold
#: predictions (the reliability bins beside it) and the mean over folds (the metrics table,
#: SPEC section 5: metrics per test fold, then averaged over folds)
ECE_POOLED, ECE_FOLD_MEAN = "ece_pooled", "ece_mean_over_folds"


def reliability_frame(
    curves: dict[str, dict], fold_ece: dict[str, float] | None = None
) -> pd.DataFrame:
    """The reliability bins of every method, one row per (method, bin).

    ``ece_pooled`` is the ECE of these bins (every row's out-of-fold prediction pooled);
    given ``fold_ece`` (method -> the mean over folds of each fold's ECE, the metrics
    table's), ``ece_mean_over_folds`` follows it, so the CSV names both and neither is
    mistaken for the other.
    """
    rows = [
        pd.DataFrame(
            {
                "method": method,
                "bin_low": curve["edges"][:-1],
                "bin_high": curve["edges"][1:],
                "count": curve["count"],
                "confidence": curve["confidence"],
                "accuracy": curve["accuracy"],
                ECE_POOLED: curve["ece"],
                **({} if fold_ece is None else {ECE_FOLD_MEAN: fold_ece[method]}),
            }
        )
        for method, curve in curves.items()
    ]
    return pd.concat(rows, ignore_index=True)


@dataclass
class Comparison:
    """A finished cross-validation and the views built from it (built once, shown often)."""

    result: CVResult
    elapsed: float
    table: pd.DataFrame = field(init=False)
    summary: pd.DataFrame = field(init=False)
    reliability_data: pd.DataFrame = field(init=False)
    spread_figs: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.table, self.summary = metrics_table(self.result)
        curves = {method: self.result.reliability(method) for method in self.result.methods}
        fold_ece = dict(zip(self.summary["method"], self.summary["ece_mean"], strict=True))
        self.reliability_data = reliability_frame(curves, fold_ece)

    @property
    def reliability_fig(self) -> go.Figure:
        """Every method's reliability diagram (the report's; built when first asked for,
        as the page draws only the methods chosen there)."""
        return self.reliability_of(self.result.methods)

    def reliability_of(self, methods: list[str]) -> go.Figure:
        """The reliability diagram of some of the methods (built once per choice)."""
        key = ("reliability", *methods)
        if key not in self.spread_figs:
            curves = {method: self.result.reliability(method) for method in methods}
            # short: on a 390 px phone "Reliability of the pooled out-of-fold
            # predictions" was cut at the figure's right edge
            self.spread_figs[key] = figures.reliability_diagram(
                curves, title="Reliability, pooled out-of-fold", show_ece=False
            )
        return self.spread_figs[key]

    def spread_fig(self, metric: str) -> go.Figure:
        """Per-fold values of one metric, one box per method (built on first use)."""
        if metric not in self.spread_figs:
            self.spread_figs[metric] = figures.fold_boxes(
                self.result.folds, self.result.methods, metric, f"{metric_column(metric)} per fold"
            )
        return self.spread_figs[metric]


@dataclass
class _Run:
    """One comparison being computed, for every session waiting for it.

    A background thread drives it (queued for a slot, then in a worker process); the
    sessions only wait. ``waiting`` counts them: when the last one goes, the run is
    cancelled (its worker stopped).
    """

    key: str
    waiting: int = 0
    queued: bool = True
    fraction: float = 0.0
    message: str = "Preparing folds"
    comparison: Comparison | None = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)
    cancelled: threading.Event = field(default_factory=threading.Event)

    def report(self, fraction: float, message: str) -> None:
        """Progress from the worker (fractions are clipped to [0, 1])."""
        self.fraction, self.message = min(max(float(fraction), 0.0), 1.0), message


@dataclass
class _Shared:
    """What every session shares: finished comparisons, runs under way, the run slots."""

    store: OrderedDict = field(default_factory=OrderedDict)
    running: dict[str, _Run] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    slots: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(MAX_HEAVY_RUNS)
    )


@st.cache_resource(show_spinner=False)
def _shared() -> _Shared:
    """The process-wide comparisons, runs under way and run slots."""
    return _Shared()


def _join(
    shared: _Shared, key: str, start: Callable[[_Run], None]
) -> tuple[Comparison | None, _Run | None, bool]:
    """The stored comparison, or the run computing it (joined; ``start``-ed when this
    session is the first to ask) and whether this session started it."""
    with shared.lock:
        if key in shared.store:
            shared.store.move_to_end(key)
            return shared.store[key], None, False
        run = shared.running.get(key)
        started = run is None or run.cancelled.is_set()  # a cancelled run is not joined
        if started:
            run = shared.running[key] = _Run(key)
            start(run)
        run.waiting += 1
        return None, run, started


def _leave(shared: _Shared, run: _Run) -> None:
    """This session no longer waits; the last one to go cancels an unfinished run."""
    with shared.lock:
        run.waiting -= 1
        if run.waiting == 0 and not run.done.is_set():
            run.cancelled.set()


def _drive(shared: _Shared, run: _Run, compute: Callable[[_Run], CVResult]) -> None:
    """The run's thread: a slot, the cross-validation, the views, the store."""
    slot = False
    try:
        while not slot:
            if run.cancelled.is_set():
                raise WorkerCancelled("cancelled while queued")
            slot = shared.slots.acquire(timeout=POLL_SECONDS)
        run.queued = False
        start = time.perf_counter()
        comparison = Comparison(compute(run), time.perf_counter() - start)
        with shared.lock:
            shared.store[run.key] = run.comparison = comparison
            while len(shared.store) > MEMORY_ENTRIES:
                shared.store.popitem(last=False)
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting sessions
        run.error = exc
    finally:
        if slot:
            shared.slots.release()
        with shared.lock:
            if shared.running.get(run.key) is run:
                del shared.running[run.key]
        run.done.set()


def _compute(
    dataset: Dataset, fingerprint: str, methods: list[str], settings: RunSettings
) -> Callable[[_Run], CVResult]:
    """How a run cross-validates: read here when the result cache holds every method,
    else in a worker process, or in this process when the dataset cannot travel to one
    (parquet cannot hold it)."""

    def compute(run: _Run) -> CVResult:
        stored = cached_cross_validation(dataset, methods, settings=settings)
        # a stored run is read here in 0.06-0.09 s; through a worker holding the dataset
        # 0.13 s, through one that must start or receive it first up to 2.3 s
        if stored is not None:
            return stored
        try:
            return worker_pool.run_in_worker(
                dataset, fingerprint, methods, settings, run.report, run.cancelled
            )
        except HandoverError:

            def progress(fraction: float, message: str) -> None:
                if run.cancelled.is_set():
                    raise WorkerCancelled("cancelled")
                run.report(fraction, message)

            return cross_validate(dataset, methods, settings=settings, progress=progress)

    return compute


def run_comparison(
    dataset: Dataset, fingerprint: str, methods: list[str], settings: RunSettings
) -> tuple[Comparison, bool]:
    """The comparison from memory, or cross-validated (disk cache or fresh) with progress.

    ``fingerprint`` is the dataset's sha256 (computed once per dataset by the caller); the
    memory key is the run settings' key with it. Returns the comparison and whether it
    came from memory (nothing recomputed for this session). The cross-validation runs in
    a worker process driven by a background thread; a comparison another session is
    computing is waited for, not computed again. Raises :class:`RunCancelled` when this
    session closes while waiting; the run stops when every session waiting for it is gone.
    """
    settings = settings.replace(fingerprint=fingerprint)
    key = settings.key("compare", list(methods))
    shared = _shared()
    compute = _compute(dataset, fingerprint, methods, settings)

    def start(run: _Run) -> None:
        threading.Thread(
            target=_drive, args=(shared, run, compute), name="heb-compare", daemon=True
        ).start()

    comparison, run, started = _join(shared, key, start)
    if comparison is not None:
        return comparison, True
    try:
        _wait(run, started, len(methods), settings.n_splits)
    finally:
        _leave(shared, run)
    if run.error is not None:
        if isinstance(run.error, WorkerCancelled):  # every session had gone but this one
            raise RunCancelled(_GONE) from None
        raise run.error
    return run.comparison, not started


def took(seconds: float) -> str:
    """``in 2.3 s``, or ``in under 0.1 s`` (a run from the cache read "done in 0.0 s")."""
    return "in under 0.1 s" if seconds < 0.05 else f"in {seconds:.1f} s"


def _wait(run: _Run, started: bool, n_methods: int, n_splits: int) -> None:
    """Wait for ``run``, showing progress to the session that started it and a still
    notice to the others; a page is sent an update only when what it shows changes."""
    if not started:  # a still notice: no spinner for the browser to animate meanwhile
        notice = st.empty()
        notice.info(
            "Another visitor is computing this same comparison: waiting for it...",
            icon=":material/hourglass_top:",
        )
        while not run.done.wait(POLL_SECONDS):
            _check_session()
        notice.empty()
        return
    begin = time.perf_counter()
    if run.done.wait(QUIET_SECONDS) and run.error is None:
        # a quick run (a what-if value re-smoothed in about 0.15 s) draws its finished
        # status at once: a progress box opened and closed again was one more redraw
        st.status(
            f"Cross-validation done {took(time.perf_counter() - begin)}",
            state="complete",
            expanded=False,
        )
        return
    with st.status(
        f"Cross-validating {n_methods} methods ({n_splits} folds)...", expanded=True
    ) as status:
        queued = st.empty()
        if run.queued:
            queued.info(
                f"Queued: {MAX_HEAVY_RUNS} cross-validations are running on this server; "
                "this one starts when one of them ends.",
                icon=":material/hourglass_top:",
            )
        bar = st.progress(0.0, text=run.message)
        shown = (0, run.message, True)
        while not run.done.wait(POLL_SECONDS):
            _check_session()
            now = (round(100 * run.fraction), run.message, run.queued)
            if now != shown:
                if not run.queued:
                    queued.empty()
                bar.progress(now[0] / 100, text=now[1])
                shown = now
        if run.error is None:
            status.update(
                label=f"Cross-validation done {took(time.perf_counter() - begin)}",
                state="complete",
                expanded=False,
            )
