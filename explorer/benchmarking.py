"""The Benchmark page's work: many datasets x methods, then the paper's rank tables."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from explorer.comparison import BEST_STYLE
from explorer.loading import session_dataset, upload_variant
from explorer.state import UPLOAD_PREFIX
from heb import figures, registry
from heb.data import BUILTIN_DATASETS, shared_dataset_names
from heb.evaluate import benchmark_tables, cache_key, run_benchmark, wilcoxon_table
from heb.evaluate.cv import method_spec
from heb.evaluate.hierarchy_specs import hierarchy_notes

__all__ = [
    "QUICK_DATASETS",
    "SCORE_DECIMALS",
    "name_width",
    "benchmark_footer",
    "benchmark_key",
    "dataset_choices",
    "default_datasets",
    "friedman_nemenyi_note",
    "metric_views",
    "run",
    "run_or_recall",
    "score_table",
    "take_in_upload",
    "wilcoxon_frame",
]

#: small paper datasets that run in seconds: the default selection when present
QUICK_DATASETS = (
    "car",
    "tic-tac-toe",
    "monks-problems-2",
    "vote",
    "hayes-roth",
    "cmc",
    "credit-g",
    "soybean",
)
_WILCOXON_COLUMNS = {
    "holm_p": "Holm p",
    "median_diff": "median diff.",
    "p_value": "p",
    "n_nonzero": "datasets (non-zero)",
    "statistic": "W",
}


def dataset_choices() -> dict[str, str]:
    """Spec -> label: the paper's local copies, the built-in datasets, then this
    session's uploads."""
    choices = {f"shared:{name}": name for name in shared_dataset_names()}
    choices.update({f"builtin:{name}": f"{name} (built-in)" for name in BUILTIN_DATASETS})
    for spec, upload in st.session_state.get("uploads", {}).items():
        choices[spec] = f"{upload['filename']} (upload)"
    return choices


def default_datasets(choices: dict[str, str], current: str | None = None) -> list[str]:
    """The quick paper datasets present, else the first four built-in ones; the sidebar's
    dataset first when it is an upload of this session (with the target chosen for it on
    the Dataset page: what the user came to benchmark)."""
    quick = [f"shared:{name}" for name in QUICK_DATASETS if f"shared:{name}" in choices]
    base = quick or [spec for spec in choices if spec.startswith("builtin:")][:4]
    upload = _current_upload(choices, current)
    return [upload, *base] if upload else base


#: session name of the uploads the Benchmark's dataset choice has taken in once
_UPLOADS_TAKEN = "_bench_uploads_taken"


def _current_upload(choices: dict[str, str], current: str | None) -> str | None:
    return current if current and current.startswith(UPLOAD_PREFIX) and current in choices else None


def take_in_upload(choices: dict[str, str], current: str | None, name: str) -> None:
    """Add the sidebar's dataset, an upload, to a dataset choice kept in the session under
    ``name`` (a choice made before the upload) the first time the page sees it; a user who
    then leaves it out is not overruled."""
    upload = _current_upload(choices, current)
    if upload is None:
        return
    taken = st.session_state.setdefault(_UPLOADS_TAKEN, [])
    if upload in taken:
        return
    taken.append(upload)
    chosen = st.session_state.get(name)
    if isinstance(chosen, list) and upload not in chosen:
        st.session_state[name] = [upload, *chosen]


def benchmark_footer(frame: pd.DataFrame, settings: dict) -> str:
    """The exported figures' footer of a benchmark: its own datasets, methods and settings
    (the view's URL holds the sidebar dataset and Compare's folds and what-if values, which
    a benchmark does not use)."""
    from explorer.report import footer_text

    return footer_text(
        [
            "benchmark",
            "datasets=" + ", ".join(str(d) for d in dict.fromkeys(frame["dataset"])),
            "methods=" + ", ".join(str(m) for m in dict.fromkeys(frame["method"])),
            f"folds={frame['fold'].nunique()}",
            *(f"{key}={value}" for key, value in settings.items()),
        ]
    )


def friedman_nemenyi_note(friedman: dict, pvalues: pd.DataFrame, alpha: float = 0.05) -> str | None:
    """Why the Friedman test can reject while no Nemenyi pair does: the sentences shown
    exactly then (either Friedman p below ``alpha``, every pair's Nemenyi p at or above
    it), else None.

    Parameters
    ----------
    friedman : dict
        :func:`heb.stats.friedman`'s result (``p_value``, ``iman_davenport_p``).
    pvalues : DataFrame
        Nemenyi p-values, method x method (its diagonal is ignored).
    alpha : float
    """
    tests = {"Friedman": friedman["p_value"], "Iman-Davenport": friedman["iman_davenport_p"]}
    rejecting = [name for name, p in tests.items() if p < alpha]
    values = pvalues.to_numpy(dtype=float)
    pairs = values[~np.eye(len(values), dtype=bool)]
    if not rejecting or (pairs < alpha).any():
        return None
    which = " and ".join(rejecting) + (" tests ask" if len(rejecting) == 2 else " test asks")
    n_pairs = len(values) * (len(values) - 1) // 2
    return (
        f"Not a contradiction: the {which} one question of all the methods at once"
        f" (are their ranks all equal? no, p < {alpha:g}), while Nemenyi's test asks "
        f"one per pair ({n_pairs} here) and guards them together, so it is more "
        "conservative and needs a gap of at least the CD in average rank. Here the "
        "methods differ overall, but no single pair by that much; more datasets shrink "
        "the CD."
    )


def unhierarchical_methods(methods: list[str]) -> list[str]:
    """The chosen methods whose smoother borrows along a category hierarchy (HEB-H): the
    benchmark gives them none (a declaration belongs to one dataset's columns), so they
    score as HEB-M, which the page says."""
    return [m for m in methods if hierarchy_notes({m: method_spec(m)})]


def benchmark_key(specs: list[str], methods: list[str], settings: dict) -> str:
    """A key saying which selection a stored benchmark answers."""
    return cache_key("benchmark", sorted(upload_variant(spec) for spec in specs), methods, settings)


def run(specs: list[str], methods: list[str], settings: dict) -> pd.DataFrame:
    """Load the datasets and cross-validate every method on each, with a progress bar."""
    start = time.perf_counter()
    with st.status(
        f"Benchmark: {len(methods)} methods on {len(specs)} datasets...", expanded=True
    ) as status:
        bar = st.progress(0.0, text="Loading the datasets")
        datasets = []
        for index, spec in enumerate(specs):
            bar.progress(0.2 * index / len(specs), text=f"Loading {spec.split(':', 1)[1]}")
            datasets.append(session_dataset(spec))

        def progress(fraction: float, message: str) -> None:
            bar.progress(0.2 + 0.8 * min(max(float(fraction), 0.0), 1.0), text=message)

        frame = run_benchmark(datasets, methods, progress=progress, **settings)
        elapsed = time.perf_counter() - start
        status.update(label=f"Benchmark done in {elapsed:.1f} s", state="complete", expanded=False)
    return frame


#: finished benchmarks kept in memory (each a few thousand rows)
KEPT_BENCHMARKS = 8


@st.cache_resource(show_spinner=False)
def _finished() -> tuple[OrderedDict, threading.Lock]:
    """Benchmark frames by :func:`benchmark_key`, shared by every session, and their lock."""
    return OrderedDict(), threading.Lock()


def run_or_recall(
    key: str, specs: list[str], methods: list[str], settings: dict
) -> tuple[pd.DataFrame, bool]:
    """The benchmark of this selection: from memory when one ran already (True), else run."""
    store, lock = _finished()
    with lock:
        if key in store:
            store.move_to_end(key)
            return store[key], True
    frame = run(specs, methods, settings)
    with lock:
        store[key] = frame
        while len(store) > KEPT_BENCHMARKS:
            store.popitem(last=False)
    return frame, False


@st.cache_resource(max_entries=64, show_spinner=False)
def metric_views(key: str, metric: str, _frame: pd.DataFrame) -> tuple[dict, object]:
    """The rank tables of one metric and its critical-difference diagram, built once per
    benchmark (``key``) and shared: nothing may change them."""
    tables = benchmark_tables(_frame, metric)
    title = f"{registry.metric(metric).title}: average ranks (CD = {tables['cd']:.2f})"
    fig = figures.cd_diagram(
        tables["avg_ranks"].to_dict(), tables["cd"], groups=tables["groups"], title=title
    )
    return tables, fig


#: decimals of the per-dataset score table and of its average ranks
SCORE_DECIMALS = 4


def name_width(names) -> int:
    """Pixels of a grid column that shows every one of ``names`` whole (about 8 px a
    character of the grid's font and a cell's padding), at most 240."""
    return min(240, 24 + 8 * max((len(str(name)) for name in names), default=0))


def score_table(scores: pd.DataFrame, ranks: pd.Series, metric: str):
    """Mean score per dataset with the average rank as last row, and its Styler function."""
    table = scores.copy()
    table.loc["average rank"] = ranks
    # ties as the table shows them: two ranks of 19/6 differ in their last bit, and only
    # one of the two 3.1667 was bold
    shown = table.round(SCORE_DECIMALS)
    rows = shown.iloc[:-1]
    best = rows.max(axis=1) if registry.metric(metric).higher_is_better else rows.min(axis=1)
    winners = rows.eq(best, axis=0)  # every method tied at the best mean
    best_rank = shown.loc["average rank"].eq(shown.loc["average rank"].min())

    def bold_best(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        out.iloc[:-1] = winners.map(lambda won: BEST_STYLE if won else "").to_numpy()
        out.loc["average rank", best_rank[best_rank].index] = BEST_STYLE
        return out

    return table, bold_best


def wilcoxon_frame(scores: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Wilcoxon signed-rank of the reference against every other method, Holm-adjusted."""
    return wilcoxon_table(scores, reference).rename(columns=_WILCOXON_COLUMNS)
