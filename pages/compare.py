"""Compare page: stratified 10-fold CV of the chosen methods, with what-if knobs."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from heb import figures
from heb.cache import cache_key
from heb.evaluate import HIGHER_IS_BETTER, METRICS, CVResult, cross_validate
from pages import common

common.ensure_entry_point()

METRIC_LABELS = {
    "accuracy": "accuracy ↑",
    "f1_macro": "F1-macro ↑",
    "log_loss": "log-loss ↓",
    "brier": "Brier ↓",
    "auc": "AUC ↑",
    "ece": "ECE ↓",
}
#: what-if knobs: state name -> (method it changes, its parameter, choices, default, label)
KNOBS = {
    "whatif_alpha": (
        "Lidstone",
        "alpha",
        [0.01, 0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0],
        0.1,
        "Lidstone's alpha",
    ),
    "whatif_m": (
        "m-estimate",
        "m",
        [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0],
        2.0,
        "m-estimate's m",
    ),
    "whatif_k0": ("TE", "k0", [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0], 10.0, "TE's k0"),
}
FOLD_CHOICES = (10, 5, 3)
BIN_CHOICES = (3, 5, 10, 20, 50)
#: completed comparisons kept in memory (on top of heb.evaluate's disk cache)
_MEMORY_ENTRIES = 32


@st.cache_resource(show_spinner=False)
def _results() -> OrderedDict:
    """Process-wide store of finished comparisons, keyed on a sha256 of data + settings."""
    return OrderedDict()


def data_knobs() -> None:
    """Folds and bins: a change here makes new folds (counted afresh, then cached)."""
    state = st.session_state
    state.setdefault("folds", FOLD_CHOICES[0])
    bins = sorted({*BIN_CHOICES, state["n_bins"]})
    with st.container(horizontal=True, gap="medium"):
        st.segmented_control(
            "Folds",
            FOLD_CHOICES,
            required=True,
            help="Stratified, shuffled, seed 42 (the paper uses 10).",
            **common.bound("folds"),
        )
        st.segmented_control(
            "Bins for numbers",
            bins,
            required=True,
            help="Re-bins the numeric columns: new folds are counted.",
            **common.bound("n_bins"),
        )


def smoother_knobs(methods: list[str]) -> dict[str, dict]:
    """What-if knobs of the chosen smoothers; returns the per-method parameter overrides."""
    state = st.session_state
    params: dict[str, dict] = {}
    if any(spec[0] in methods for spec in KNOBS.values()):
        st.markdown(
            "**What if?** Change a smoother's setting: only that smoother is "
            "re-smoothed, from the fold counts already made."
        )
    with st.container(horizontal=True, gap="medium"):
        for name, (method, param, choices, default, label) in KNOBS.items():
            if method not in methods:
                continue
            state.setdefault(name, default)
            params[method] = {
                param: st.segmented_control(
                    label,
                    choices,
                    required=True,
                    format_func="{:g}".format,
                    help=f"What if? Re-smooths {method} from the same fold counts.",
                    **common.bound(name),
                )
            }
    return params


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
        self.reliability_fig = figures.reliability_diagram(curves)
        self.reliability_data = reliability_frame(curves)

    def spread_fig(self, metric: str) -> go.Figure:
        """Per-fold values of one metric, one box per method (built on first use)."""
        if metric not in self.spread_figs:
            self.spread_figs[metric] = figures.fold_boxes(
                self.result.folds, self.result.methods, metric, f"{METRIC_LABELS[metric]} per fold"
            )
        return self.spread_figs[metric]


def run(dataset, methods: list[str], params: dict[str, dict]) -> tuple[Comparison, bool]:
    """The comparison from memory, or cross-validated (disk cache or fresh) with progress.

    Returns the comparison and whether it came from memory.
    """
    settings = common.current_settings()
    folds = st.session_state["folds"]
    key = cache_key("compare", common.dataset_key(dataset), methods, params, settings, folds)
    store = _results()
    if key in store:
        store.move_to_end(key)
        return store[key], True
    start = time.perf_counter()
    with st.status(
        f"Cross-validating {len(methods)} methods ({folds} folds)...", expanded=True
    ) as status:
        bar = st.progress(0.0, text="Preparing folds")

        def progress(fraction: float, message: str) -> None:
            bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

        result = cross_validate(
            dataset, methods, params=params, n_splits=folds, progress=progress, **settings
        )
        elapsed = time.perf_counter() - start
        status.update(
            label=f"Cross-validation done in {elapsed:.1f} s", state="complete", expanded=False
        )
    store[key] = Comparison(result, elapsed)
    while len(store) > _MEMORY_ENTRIES:
        store.popitem(last=False)
    return store[key], False


def metrics_table(result: CVResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per method: mean ± std over folds of every metric, and the fit time."""
    summary = result.summary()
    shown = pd.DataFrame({"method": summary["method"]})
    for metric in METRICS:
        mean, std = summary[f"{metric}_mean"], summary[f"{metric}_std"]
        shown[METRIC_LABELS[metric]] = [
            f"{m:.4f} ± {s:.4f}" for m, s in zip(mean, std, strict=True)
        ]
    shown["fit time (ms)"] = [f"{1000 * t:.1f}" for t in summary["fit_time_mean"]]
    return shown, summary


def _best_style(summary: pd.DataFrame):
    """Bold the best method of each metric (by its mean)."""

    def style(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for metric in METRICS:
            means = summary[f"{metric}_mean"]
            best = means.idxmax() if HIGHER_IS_BETTER[metric] else means.idxmin()
            out.loc[best, METRIC_LABELS[metric]] = "font-weight: bold; color: #1f5fbf"
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


def show(comparison: Comparison, from_memory: bool) -> None:
    result = comparison.result
    for note in result.notes:
        st.info(note, icon=":material/info:")
    if from_memory:
        st.caption("Shown from memory: nothing was recomputed.")
    st.subheader("Metrics, mean ± standard deviation over folds")
    st.dataframe(
        comparison.table.style.apply(_best_style(comparison.summary), axis=None),
        hide_index=True,
        key="metrics_table",
    )
    st.caption("Best mean of each metric in blue. Fit time includes counting the fold.")
    common.download_buttons(None, result.folds, "cv-folds")
    st.subheader("Reliability (pooled out-of-fold)")
    st.caption(
        "Each point: rows binned by their top-1 probability; a calibrated model sits "
        "on the diagonal. The bars below count the rows per bin."
    )
    common.show_figure(
        comparison.reliability_fig,
        comparison.reliability_data,
        "reliability",
        key="reliability_fig",
    )
    st.subheader("Spread over folds")
    metric = st.segmented_control(
        "Metric",
        METRICS,
        format_func=METRIC_LABELS.get,
        default="accuracy",
        required=True,
        key="spread_metric",
    )
    data = result.folds[["method", "fold", metric]]
    common.show_figure(comparison.spread_fig(metric), data, f"folds-{metric}", key="spread_fig")


# --------------------------------------------------------------------------- page
common.page_header(
    "Compare",
    "Stratified cross-validation of the methods chosen in the sidebar on the current "
    "dataset. Turn a knob and only that smoother is re-smoothed from the same fold counts.",
)
methods = common.selected_methods()
if not methods:
    st.info("Choose at least one method in the sidebar.", icon=":material/arrow_back:")
    st.stop()
st.markdown("**Methods:** " + ", ".join(methods) + " (change them in the sidebar)")
data_knobs()
dataset = common.current_dataset()


@st.fragment
def comparison_view() -> None:
    """Knobs and results: turning a smoother's knob reruns only this part of the page."""
    params = smoother_knobs(methods)
    comparison = None
    with common.guard("cross-validating"):
        comparison, from_memory = run(dataset, methods, params)
    if comparison is not None:
        with common.guard("showing the comparison"):
            show(comparison, from_memory)


comparison_view()
