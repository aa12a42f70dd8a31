"""Benchmark page: many datasets x methods, ranks, CD diagrams and the paper's tests."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import benchmarking as bench
from explorer import commands, state
from explorer.display import download_buttons, show_figure, show_table
from explorer.errors import escape, guard
from explorer.references import rank_sentences
from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header
from heb import figures, registry
from heb.evaluate import RunSettings
from heb.evaluate.paper import format_p

ensure_entry_point()


@st.fragment
def metric_report(key: str, frame: pd.DataFrame, metric: str) -> None:
    """One metric's tab (a fragment: its reference method reruns this tab alone)."""
    label = registry.metric(metric).title
    tables, fig = bench.metric_views(key, metric, frame, state.presenting())
    scores, ranks, result = tables["scores"], tables["avg_ranks"], tables["friedman"]
    footer = bench.benchmark_footer(frame, state.current_settings())
    data = ranks.rename_axis("method").reset_index()
    # its labels sit in margins of fixed pixels: a phone's column scrolls rather than
    # squeezing its rank axis
    show_figure(
        fig,
        data,
        f"cd-{metric}",
        key=f"cd_{metric}",
        footer=footer,
        min_width=figures.cd_min_width(fig),
    )
    cols = st.columns(4)
    cols[0].metric("Friedman chi²", f"{result['chi2']:.2f}")
    cols[1].metric("p-value", format_p(result["p_value"]))
    cols[2].metric("Iman-Davenport F", f"{result['iman_davenport_F']:.2f}")
    cols[3].metric("p-value (F)", format_p(result["iman_davenport_p"]))
    few = bench.few_datasets_note(len(scores), len(scores.columns), tables["cd"])
    if few:
        st.warning(few, icon=":material/warning:")
    note = bench.friedman_nemenyi_note(result, tables["pvalues"], too_few=few is not None)
    if note:
        st.info(note, icon=":material/help:")
    st.markdown(
        f"**Mean {label.lower()} per dataset** (the paper's Table 1; average rank in the last row)"
    )
    table, bold_best = bench.score_table(scores, ranks, metric)
    # the dataset names whole: "amazon-employee-access" read "amazon-empl" at 1280 px
    names = {"_index": st.column_config.TextColumn(width=bench.name_width(table.index))}
    show_table(
        table,
        style=bold_best,
        number_format=f"{{:.{bench.SCORE_DECIMALS}f}}",
        hide_index=False,
        key=f"scores_{metric}",
        grid_config=names,
    )
    ties = bench.rank_ties_note(scores, metric)
    if ties:
        st.caption(ties)
    download_buttons(None, table.reset_index(names="dataset"), f"scores-{metric}")
    for sentence in rank_sentences(ranks, metric):
        st.info(sentence)
    methods = list(scores.columns)
    st.markdown("**Wilcoxon signed-rank tests** over the datasets (the paper's Table 2)")
    reference = st.selectbox(
        "Reference method",
        methods,
        **state.page_setting(
            f"wilcoxon_ref_{metric}", "HEB-M" if "HEB-M" in methods else methods[0], methods
        ),
    )
    wtable = bench.wilcoxon_frame(scores, reference)
    # p-values as the CLI's tables write them (three decimals, <0.001 below)
    formats = {"W": "{:g}", "p": format_p, "median diff.": "{:.4f}", "Holm p": format_p}
    show_table(wtable, key=f"wilcoxon_{metric}", number_format=formats)
    better = "higher" if registry.metric(metric).higher_is_better else "lower"
    st.caption(
        f"median diff. = {reference} minus the other method, per dataset ({better} is better "
        f"for {label.lower()}); "
        + (
            f"Holm p adjusts for the {len(wtable)} tests."
            if len(wtable) > 1
            else "Holm p equals p: there is one test."  # "for the 1 tests" with two methods
        )
    )
    download_buttons(None, wtable, f"wilcoxon-{metric}")
    st.markdown("**Nemenyi p-values** (every pair of methods)")
    show_table(tables["pvalues"], number_format=format_p, hide_index=False, key=f"nemenyi_{metric}")
    download_buttons(None, tables["pvalues"].reset_index(names="method"), f"nemenyi-{metric}")


# --------------------------------------------------------------------------- page
page_header(
    page_title(__file__),
    "The paper's protocol over many datasets: 10-fold CV per dataset, then ranks, the "
    "Friedman test, Nemenyi's critical difference and Wilcoxon signed-rank tests.",
)
choices = bench.dataset_choices()
# the user's upload (the sidebar's dataset) is chosen with the quick datasets
current = st.session_state.get("data_spec")
bench.take_in_upload(choices, current, "bench_datasets")
specs = st.multiselect(
    "Datasets",
    list(choices),
    format_func=choices.get,
    **state.page_setting("bench_datasets", bench.default_datasets(choices, current), list(choices)),
)
left_out = bench.link_uploads_note(choices)
if left_out:
    st.info(left_out, icon=":material/link_off:")
waiting = bench.needs_target_uploads(specs)
if waiting:
    st.caption(
        f"{escape(', '.join(waiting))} {'has' if len(waiting) == 1 else 'have'} no target yet "
        "(choose one on the Dataset page): a run skips "
        f"{'it' if len(waiting) == 1 else 'them'}."
    )
methods = state.selected_methods()
settings = state.current_settings()
st.markdown("**Methods:** " + (", ".join(methods) or "none") + " (" + state.where_to_change() + ")")
compare_run = state.run_settings()  # Compare's folds and what-if values, kept in the link
unused = bench.compare_settings_note(compare_run.n_splits, compare_run.params())
if unused:
    st.caption(escape(unused))
flat = bench.unhierarchical_methods(methods)
if flat:
    one = len(flat) == 1
    st.caption(
        f"{escape(', '.join(flat))} {'runs' if one else 'run'} here without a category "
        "hierarchy (a declaration on the Dataset page belongs to that dataset's columns), "
        f"so {'it scores' if one else 'they score'} as HEB-M."
    )
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
    help="Cross-validates every chosen dataset; folds computed before are read from the "
    "cache (data_cache/) instead of being computed again.",
)
# a fixed place for a run's progress, so that the results below keep their places (and
# stay drawn, not rebuilt) whether a click computed them or recalled them from memory
progress_area = st.container()
# a link to a run's results says so (bench_ran=1): opened in a new session, it runs the
# same benchmark (from the cache when the server has it) instead of showing a button alone
state.keep_setting("bench_ran", False, [False, True])
from_link = ready and st.session_state["bench_ran"] and "benchmark" not in st.session_state
if clicked or from_link:
    with progress_area, guard("running the benchmark"):
        key = bench.benchmark_key(specs, methods, settings)
        frame, from_memory, skipped = bench.run_or_recall(key, specs, methods, settings, choices)
        st.session_state["benchmark"] = {
            "key": key,
            "frame": frame,
            "from_memory": from_memory,
            "skipped": skipped,
        }
        if not st.session_state["bench_ran"]:
            st.session_state["bench_ran"] = True
            state.keep_setting("bench_ran", False, [False, True])  # into the link now

stored = st.session_state.get("benchmark")
if stored is not None:
    if stored["key"] != bench.benchmark_key(specs, methods, settings):
        st.warning(
            "The results below are for an earlier selection; run again to update them.",
            icon=":material/history:",
        )
    frame = stored["frame"]
    st.caption(
        f"{frame['dataset'].nunique()} datasets x {frame['method'].nunique()} methods x "
        f"{frame['fold'].nunique()} folds."
        + (" Shown from memory: nothing was recomputed." if stored.get("from_memory") else "")
    )
    for line in stored.get("skipped", []):
        st.warning(line, icon=":material/block:")
    download_buttons(None, frame, "benchmark-folds", csv_label="Every fold's scores (CSV)")
    # lazy tabs: only the open tab's figure and tables are built and sent (six metrics'
    # worth of charts and grids made a cached "Run" take seconds to draw)
    titles = [registry.metric(metric).title for metric in registry.METRICS]
    tabs = st.tabs(titles, **state.page_setting("bench_metric_tab", titles[0], titles))
    for tab, metric in zip(tabs, registry.METRICS, strict=True):
        if tab.open:
            with tab, guard(f"summarising {metric}"):
                metric_report(stored["key"], frame, metric)

if ready:
    known = st.session_state.get("uploads", {})
    commands.show_benchmark_command(
        commands.benchmark_command(
            specs, {s: known[s] for s in specs if s in known}, methods, RunSettings(**settings)
        )
    )

page_footer(__file__, settings=True)
