"""The Compare page's work: cross-validate the chosen methods once, build its views once.

A finished comparison (the CV result plus the tables and figures drawn from it) is kept
in a small process-wide store, bounded and guarded by a lock (Streamlit serves each
session from its own thread), keyed on the run settings (:class:`heb.evaluate.RunSettings`,
what the result cache keys on too). A what-if change that returns to a value seen before
is served from it: nothing is recomputed.

Many visitors at once: one computation per key (a session asking for a comparison that
another session is computing waits for it instead of computing it again), at most
:data:`MAX_HEAVY_RUNS` cross-validations at a time (the others say they are queued), and
a run whose session has gone (its browser closed) stops at its next fold: Streamlit
keeps a disconnected session's script running, so the progress callback checks.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from explorer.errors import Interrupted
from heb import figures, registry
from heb.data import Dataset
from heb.evaluate import CVResult, RunSettings, cross_validate

__all__ = [
    "BEST_STYLE",
    "Comparison",
    "MAX_HEAVY_RUNS",
    "RunCancelled",
    "best_style",
    "metric_column",
    "metrics_table",
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


class RunCancelled(Interrupted):
    """The session that asked for a comparison has gone; its work was stopped."""


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
        raise RunCancelled(
            "This page lost its connection to the server, so its cross-validation was "
            "stopped. Rerun the page to start it again."
        )


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


def metrics_table(result: CVResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per method: mean ± std over folds of every metric, the fit time; the summary."""
    summary = result.summary()
    shown = pd.DataFrame({"method": summary["method"]})
    for metric in registry.METRICS:
        mean, std = summary[f"{metric}_mean"], summary[f"{metric}_std"]
        shown[metric_column(metric)] = [
            f"{m:.4f} ± {s:.4f}" for m, s in zip(mean, std, strict=True)
        ]
    shown["fit time (ms)"] = [f"{1000 * t:.1f}" for t in summary["fit_time_mean"]]
    return shown, summary


def best_style(summary: pd.DataFrame) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A Styler function colouring the best method of each metric (by its mean)."""

    def style(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for name, entry in registry.METRICS.items():
            means = summary[f"{name}_mean"]
            best = means.idxmax() if entry.higher_is_better else means.idxmin()
            out.loc[best, metric_column(name)] = BEST_STYLE
        return out

    return style


def reliability_frame(curves: dict[str, dict]) -> pd.DataFrame:
    """The reliability bins of every method, one row per (method, bin)."""
    rows = [
        pd.DataFrame(
            {
                "method": method,
                "bin_low": curve["edges"][:-1],
                "bin_high": curve["edges"][1:],
                "count": curve["count"],
                "confidence": curve["confidence"],
                "accuracy": curve["accuracy"],
                "ece": curve["ece"],
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
    reliability_fig: go.Figure = field(init=False)
    reliability_data: pd.DataFrame = field(init=False)
    spread_figs: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.table, self.summary = metrics_table(self.result)
        curves = {method: self.result.reliability(method) for method in self.result.methods}
        self.reliability_fig = self.reliability_of(self.result.methods)
        self.reliability_data = reliability_frame(curves)

    def reliability_of(self, methods: list[str]) -> go.Figure:
        """The reliability diagram of some of the methods (built once per choice)."""
        key = ("reliability", *methods)
        if key not in self.spread_figs:
            curves = {method: self.result.reliability(method) for method in methods}
            self.spread_figs[key] = figures.reliability_diagram(
                curves, title="Reliability of the pooled out-of-fold predictions", show_ece=False
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
class _Shared:
    """What every session shares: finished comparisons, runs under way, the run slots."""

    store: OrderedDict = field(default_factory=OrderedDict)
    running: dict[str, threading.Event] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    slots: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(MAX_HEAVY_RUNS)
    )


@st.cache_resource(show_spinner=False)
def _shared() -> _Shared:
    """The process-wide comparisons, runs under way and run slots."""
    return _Shared()


def _claim(shared: _Shared, key: str) -> tuple[Comparison | None, threading.Event | None]:
    """The stored comparison, or this session's claim on computing it (an Event it sets
    when done), or neither: another session is computing it (wait, then look again)."""
    with shared.lock:
        if key in shared.store:
            shared.store.move_to_end(key)
            return shared.store[key], None
        if key in shared.running:
            return None, None
        shared.running[key] = event = threading.Event()
        return None, event


def _wait_for_other(shared: _Shared, key: str) -> None:
    """Wait while another session computes ``key`` (stopping if this session goes)."""
    with shared.lock:
        event = shared.running.get(key)
    if event is None:
        return
    with st.status("Another visitor is computing this same comparison: waiting for it..."):
        while not event.wait(POLL_SECONDS):
            _check_session()


def _take_slot(shared: _Shared) -> None:
    """One of the :data:`MAX_HEAVY_RUNS` slots, saying so while queued."""
    if shared.slots.acquire(blocking=False):
        return
    notice = st.info(
        f"Queued: {MAX_HEAVY_RUNS} cross-validations are running on this server; "
        "this one starts when one of them ends.",
        icon=":material/hourglass_top:",
    )
    while not shared.slots.acquire(timeout=POLL_SECONDS):
        _check_session()
    notice.empty()


def run_comparison(
    dataset: Dataset, fingerprint: str, methods: list[str], settings: RunSettings
) -> tuple[Comparison, bool]:
    """The comparison from memory, or cross-validated (disk cache or fresh) with progress.

    ``fingerprint`` is the dataset's sha256 (computed once per dataset by the caller); the
    memory key is the run settings' key with it. Returns the comparison and whether it
    came from memory (nothing recomputed). A comparison another session is computing is
    waited for, not computed again (and then comes from memory); raises
    :class:`RunCancelled` when this session closes while waiting, queued or running.
    """
    settings = settings.replace(fingerprint=fingerprint)
    key = settings.key("compare", list(methods))
    shared = _shared()
    while True:
        comparison, claim = _claim(shared, key)
        if comparison is not None:
            return comparison, True
        if claim is not None:
            break
        _wait_for_other(shared, key)  # then look again: stored, or its session went
    try:
        _take_slot(shared)
        try:
            comparison = _cross_validate(dataset, methods, settings)
        finally:
            shared.slots.release()
        with shared.lock:
            shared.store[key] = comparison
            while len(shared.store) > MEMORY_ENTRIES:
                shared.store.popitem(last=False)
    finally:
        with shared.lock:
            del shared.running[key]
        claim.set()
    return comparison, False


def _cross_validate(dataset: Dataset, methods: list[str], settings: RunSettings) -> Comparison:
    """Cross-validate with a progress bar; stops (:class:`RunCancelled`) if the session goes."""
    start = time.perf_counter()
    with st.status(
        f"Cross-validating {len(methods)} methods ({settings.n_splits} folds)...", expanded=True
    ) as status:
        bar = st.progress(0.0, text="Preparing folds")

        def progress(fraction: float, message: str) -> None:
            _check_session()  # between folds: a closed browser's run stops here
            bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

        result = cross_validate(dataset, methods, settings=settings, progress=progress)
        elapsed = time.perf_counter() - start
        status.update(
            label=f"Cross-validation done in {elapsed:.1f} s", state="complete", expanded=False
        )
    return Comparison(result, elapsed)
