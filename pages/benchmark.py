"""Benchmark page: many datasets x methods, ranks, CD diagrams and the paper's tests."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from heb import data as hdata
from heb import figures
from heb.cache import cache_key
from heb.evaluate import (
    HIGHER_IS_BETTER,
    METRIC_TITLES,
    METRICS,
    benchmark_tables,
    run_benchmark,
)
from heb.evaluate import wilcoxon_table as evaluate_wilcoxon_table
from pages import common

common.ensure_entry_point()

METRIC_LABELS = METRIC_TITLES
BEST_STYLE = "font-weight: bold; color: #1f5fbf"
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


def dataset_choices() -> dict[str, str]:
    """Spec -> label: the paper's local copies, then the built-in datasets."""
    choices = {f"shared:{name}": name for name in hdata.shared_dataset_names()}
    choices.update({f"builtin:{name}": f"{name} (built-in)" for name in hdata.BUILTIN_DATASETS})
    return choices


def default_datasets(choices: dict[str, str]) -> list[str]:
    quick = [f"shared:{name}" for name in QUICK_DATASETS if f"shared:{name}" in choices]
    return quick or [spec for spec in choices if spec.startswith("builtin:")][:4]


def run(specs: list[str], methods: list[str]) -> None:
    """Load the datasets and cross-validate every method on each (cached folds load fast)."""
    settings = common.current_settings()
    start = time.perf_counter()
    with st.status(
        f"Benchmark: {len(methods)} methods on {len(specs)} datasets...", expanded=True
    ) as status:
        bar = st.progress(0.0, text="Loading the datasets")
        datasets = []
        for index, spec in enumerate(specs):
            bar.progress(0.2 * index / len(specs), text=f"Loading {spec.split(':', 1)[1]}")
            datasets.append(common.load_spec(spec))

        def progress(fraction: float, message: str) -> None:
            bar.progress(0.2 + 0.8 * min(max(float(fraction), 0.0), 1.0), text=message)

        frame = run_benchmark(datasets, methods, progress=progress, **settings)
        elapsed = time.perf_counter() - start
        status.update(label=f"Benchmark done in {elapsed:.1f} s", state="complete", expanded=False)
    st.session_state["benchmark"] = {"key": _key(specs, methods), "frame": frame}


def _key(specs: list[str], methods: list[str]) -> str:
    return cache_key("benchmark", sorted(specs), methods, common.current_settings())


def wilcoxon_table(scores: pd.DataFrame, reference: str, metric: str) -> pd.DataFrame:
    """Wilcoxon signed-rank of the reference against every other method, Holm-adjusted."""
    frame = evaluate_wilcoxon_table(scores, reference)
    frame = frame.rename(
        columns={
            "holm_p": "Holm p",
            "median_diff": "median diff.",
            "p_value": "p",
            "n_nonzero": "datasets (non-zero)",
            "statistic": "W",
        }
    )
    return frame


def metric_report(frame: pd.DataFrame, metric: str) -> None:
    tables = benchmark_tables(frame, metric)
    scores, ranks, result = tables["scores"], tables["avg_ranks"], tables["friedman"]
    title = f"{METRIC_LABELS[metric]}: average ranks (CD = {tables['cd']:.2f})"
    fig = figures.cd_diagram(ranks.to_dict(), tables["cd"], groups=tables["groups"], title=title)
    common.show_figure(
        fig, ranks.rename_axis("method").reset_index(), f"cd-{metric}", key=f"cd_{metric}"
    )
    cols = st.columns(4)
    cols[0].metric("Friedman chi²", f"{result['chi2']:.2f}")
    cols[1].metric("p-value", f"{result['p_value']:.2g}")
    cols[2].metric("Iman-Davenport F", f"{result['iman_davenport_F']:.2f}")
    cols[3].metric("p-value (F)", f"{result['iman_davenport_p']:.2g}")
    st.markdown(
        f"**Mean {METRIC_LABELS[metric].lower()} per dataset** "
        "(the paper's Table 1; average rank in the last row)"
    )
    table = scores.copy()
    table.loc["average rank"] = ranks
    rows = table.iloc[:-1]
    best = rows.max(axis=1) if HIGHER_IS_BETTER.get(metric) else rows.min(axis=1)
    winners = rows.eq(best, axis=0)  # every method tied at the best mean

    def bold_best(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        out.iloc[:-1] = winners.map(lambda won: BEST_STYLE if won else "").to_numpy()
        out.loc["average rank", ranks.idxmin()] = BEST_STYLE
        return out

    st.dataframe(table.style.apply(bold_best, axis=None).format("{:.4f}"), key=f"scores_{metric}")
    common.download_buttons(None, table.reset_index(names="dataset"), f"scores-{metric}")
    methods = list(scores.columns)
    st.markdown("**Wilcoxon signed-rank tests** over the datasets (the paper's Table 2)")
    reference = st.selectbox(
        "Reference method",
        methods,
        index=methods.index("HEB-M") if "HEB-M" in methods else 0,
        key=f"wilcoxon_ref_{metric}",
    )
    wtable = wilcoxon_table(scores, reference, metric)
    st.dataframe(
        wtable,
        hide_index=True,
        key=f"wilcoxon_{metric}",
        column_config={
            "p": st.column_config.NumberColumn(format="%.3g"),
            "Holm p": st.column_config.NumberColumn(format="%.3g"),
            "median diff.": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    better = "higher" if HIGHER_IS_BETTER.get(metric, False) else "lower"
    st.caption(
        f"median diff. = {reference} minus the other method, per dataset ({better} is better "
        f"for {METRIC_LABELS[metric].lower()}); Holm p adjusts for the {len(wtable)} tests."
    )
    common.download_buttons(None, wtable, f"wilcoxon-{metric}")
    st.markdown("**Nemenyi p-values** (every pair of methods)")
    st.dataframe(tables["pvalues"].style.format("{:.3f}"), key=f"nemenyi_{metric}")
    common.download_buttons(
        None, tables["pvalues"].reset_index(names="method"), f"nemenyi-{metric}"
    )


# --------------------------------------------------------------------------- page
common.page_header(
    "Benchmark",
    "The paper's protocol over many datasets: 10-fold CV per dataset, then ranks, the "
    "Friedman test, Nemenyi's critical difference and Wilcoxon signed-rank tests.",
)
choices = dataset_choices()
specs = st.multiselect(
    "Datasets",
    list(choices),
    default=default_datasets(choices),
    format_func=choices.get,
    key="bench_datasets",
)
methods = common.selected_methods()
st.markdown("**Methods:** " + (", ".join(methods) or "none") + " (change them in the sidebar)")
ready = len(specs) >= 2 and len(methods) >= 2
if not ready:
    st.info(
        "Choose at least two datasets here and two methods in the sidebar.", icon=":material/info:"
    )
clicked = st.button(
    "Run the benchmark",
    type="primary",
    disabled=not ready,
    icon=":material/play_arrow:",
    key="bench_run",
    help="Folds already computed load from the cache in data_cache/.",
)
if clicked:
    with common.guard("running the benchmark"):
        run(specs, methods)

stored = st.session_state.get("benchmark")
if stored is not None:
    if stored["key"] != _key(specs, methods):
        st.warning(
            "The results below are for an earlier selection; run again to update them.",
            icon=":material/history:",
        )
    frame = stored["frame"]
    st.caption(
        f"{frame['dataset'].nunique()} datasets x {frame['method'].nunique()} methods x "
        f"{frame['fold'].nunique()} folds."
    )
    common.download_buttons(None, frame, "benchmark-folds")
    tabs = st.tabs([METRIC_LABELS[metric] for metric in METRICS])
    for tab, metric in zip(tabs, METRICS, strict=True):
        with tab, common.guard(f"summarising {metric}"):
            metric_report(frame, metric)
