"""Compare page: stratified 10-fold CV of the chosen methods, with what-if knobs."""

from __future__ import annotations

import streamlit as st

from explorer import comparison as cmp
from explorer import diagnostics, hierarchies, large_drop, large_files, loading, state
from explorer.display import download_buttons, show_figure, show_table
from explorer.errors import escape, guard, show_info
from explorer.references import compare_note
from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header
from heb import figures, registry
from heb.evaluate.hierarchy_specs import takes_hierarchies

ensure_entry_point()

BIN_CHOICES = (3, 5, 10, 20, 50)
#: methods drawn in the reliability diagram on a first visit
MAX_DRAWN = 5


def data_knobs(large: bool = False) -> None:
    """Folds and bins: a change here makes new folds (counted afresh, then cached);
    ``large``: the folds of a large file (a hash of each row, not stratified)."""
    bins = sorted({*BIN_CHOICES, st.session_state["n_bins"]})
    state.reset_with_page("folds", state.FOLD_CHOICES[0])  # bins are the sidebar's
    with st.container(horizontal=True, gap="medium"):
        st.segmented_control(
            "Folds",
            state.FOLD_CHOICES,
            required=True,
            help=(
                "A seeded hash of each row (seed 42), not stratified: see below."
                if large
                else "Stratified, shuffled, seed 42 (the paper uses 10)."
            ),
            **state.bound("folds"),
        )
        st.segmented_control(
            "Bins for numbers",
            bins,
            required=True,
            help="Re-bins the numeric columns: new folds are counted.",
            wrap=True,
            **state.bound("n_bins"),
        )


def smoother_knobs(methods: list[str], large: bool = False) -> None:
    """What-if knobs of the chosen smoothers (their values go into the run settings);
    ``large``: of a large file's comparison, which a change scans again."""
    knobs = cmp.what_if_knobs(methods)
    if knobs:
        st.markdown(
            "**What if?** Change a smoother's setting: after a first comparison, only that "
            "smoother is scored again, on every row (a new model reads every row)."
            if large
            else "**What if?** Change a smoother's setting: only that smoother is "
            "re-smoothed, from the fold counts already made."
        )
    with st.container(horizontal=True, gap="medium"):
        for method, knob in knobs.items():
            name = f"whatif_{knob.name}"
            st.session_state.setdefault(name, knob.default)
            state.reset_with_page(name, knob.default)
            st.segmented_control(
                knob.label,
                knob.choices,
                required=True,
                format_func="{:g}".format,
                wrap=True,  # eight values overflowed a phone's width in a single row
                help=f"What if? Scans every row again with {method} so set."
                if large
                else f"What if? Re-smooths {method} from the same fold counts.",
                **state.bound(name),
            )


def flat_hierarchy_notes(methods) -> list[str]:
    """The Dataset page's note on each declared hierarchy that makes no groups or is left
    out, where a method reads it (HEB-H): it then scores as HEB-M, which the table alone
    leaves to be worked out (the Dataset and Concentrations pages said it; Compare did not)."""
    items = hierarchies.declared()
    if not items or not any(takes_hierarchies(m) for m in methods):
        return []
    work = loading.current_codes()
    # one the page leaves out (its parent column left out, say) reads nothing either
    gone = hierarchies.left_out(work, items).values()
    left_out = [f"{note.removesuffix('.')}, so HEB-H is HEB-M on it." for note in gone]
    return [*left_out, *hierarchies.flat_notes(work, items)]


#: the views below the metrics table, one tab each
RESULT_TABS = ("Reliability", "Spread over folds", "Per class")


def show(comparison: cmp.Comparison, from_memory: bool):
    """The table, its sentences and the tabbed views; the per-class tab when it is open
    (its section is drawn with the downloads, which need its choices), else None."""
    result = comparison.result
    for note in result.notes:
        show_info(note)
    for note in flat_hierarchy_notes(result.methods):
        show_info(note)
    if from_memory:
        st.caption("Shown from memory: nothing was recomputed.")
    st.header("Metrics, mean ± standard deviation over folds")
    # the grid's short names (the presenter's large-type table has room for the full ones)
    grid = not state.presenting()
    show_table(
        cmp.grid_names(comparison.table) if grid else comparison.table,
        style=cmp.best_style(comparison.summary),
        key="metrics_table",
        grid_config=cmp.table_column_config(comparison.table["method"] if grid else ()),
    )
    # one method is best of nothing: the caption says what is blue only when a cell is
    best = cmp.best_note(comparison.summary)
    short = cmp.grid_names_note(comparison.table) if grid else ""
    st.caption(
        (f"{best} " if best else "")
        + (f"{short} " if short else "")
        + "Fit time: the median fold's, counting included. "
        "Each metric is computed on each test fold, then averaged over the folds. ECE: the top-1 "
        "expected calibration error, |accuracy − confidence| per bin of 10 equal-width "
        "confidence bins, weighted by the bin's share of rows. Brier: the squared error "
        "between the predicted probabilities and the one-hot label, averaged over the "
        "classes (one-vs-rest) and rows; for two classes it is the usual binary Brier score."
    )
    # the settings this comparison ran with (it is the current settings' comparison)
    folds = cmp.with_settings(result.folds, state.run_settings().params())
    download_buttons(
        None, folds, "cv-folds", csv_label="Every fold's scores (CSV)", dataset=dataset.name
    )
    for sentence in cmp.one_class_notes(result):
        show_info(sentence)
    note = compare_note(comparison.summary, cmp.table_decimals(comparison.summary))
    if note:
        st.info(note, icon=":material/info:")
    return result_tabs(comparison, "compare_tab")


def result_tabs(comparison: cmp.Comparison, setting: str):
    """The tabbed views under the table (:data:`RESULT_TABS`); the per-class tab when it
    is open (the caller draws it), else None.

    One tab per view; only the open one is built and sent (five figures at once made a
    first visit wait seconds for plotly); the tab is a page setting ``setting``, so a
    link keeps it."""
    tabs = st.tabs(list(RESULT_TABS), **state.page_setting(setting, RESULT_TABS[0], RESULT_TABS))
    reliability_tab, spread_tab = tabs[:2]
    if reliability_tab.open:
        with reliability_tab:
            reliability_view(comparison)
    else:  # a closed tab's setting stays in the session and in a copied link
        state.keep_setting(*_reliability_setting(comparison.result))
    if spread_tab.open:
        with spread_tab:
            spread_view(comparison)
    else:
        state.keep_setting(*SPREAD_SETTING)
    return tabs[2] if tabs[2].open else None


#: the spread view's metric: (name, default, choices) of its page setting
SPREAD_SETTING = ("spread_metric", "accuracy", list(registry.METRICS))


def _default_drawn(methods: list[str]) -> list[str]:
    """The methods drawn at first: up to :data:`MAX_DRAWN`, the learned (HEB) ones
    first, shown in the sidebar's order."""
    ranked = sorted(methods, key=lambda name: not name.startswith("HEB"))[:MAX_DRAWN]
    return [name for name in methods if name in ranked]


#: session name of the methods the reliability view's choice was made among
_DRAWN_AMONG = "_reliability_methods_among"


def _reliability_setting(result) -> tuple:
    """The reliability view's drawn methods: (name, default, choices) of its page setting.

    When the sidebar's methods change, the drawn ones start again from the default (a
    method added there is drawn; the old choice would have pinned the old methods)."""
    name, methods = "reliability_methods", list(result.methods)
    default = _default_drawn(methods)
    among = st.session_state.get(_DRAWN_AMONG)
    if among is not None and among != methods:
        st.session_state[name] = default
    st.session_state[_DRAWN_AMONG] = methods
    return (name, default, methods)


@st.fragment
def reliability_view(comparison: cmp.Comparison) -> None:
    """The pooled reliability diagram (a fragment: picking methods redraws it alone)."""
    result = comparison.result
    st.header("Reliability (pooled out-of-fold)")
    drawn = st.multiselect(
        "Draw",
        result.methods,
        help="The methods drawn in the diagram (a few at a time read best).",
        **state.page_setting(*_reliability_setting(result)),
    )
    left_out = [m for m in result.methods if m not in drawn]
    if left_out and len(result.methods) > MAX_DRAWN:  # said, not dropped silently
        st.caption(
            f"Not drawn: {escape(', '.join(left_out))} (at most {MAX_DRAWN} read well "
            "together; pick them under Draw)."
        )
    st.caption(
        "Every row's out-of-fold prediction pooled over the folds, binned by its top-1 "
        "probability (no ECE drawn: the table's ECE is each fold's ECE, mean over folds; the "
        f"CSV has both, `{cmp.ECE_FOLD_MEAN}` and `{cmp.ECE_POOLED}`, that of these pooled "
        "bins). "
        "Each point's "
        "size grows with its rows (hover for the number); a bin of fewer than "
        f"{figures.MIN_BIN_ROWS} rows is a grey hollow point off the curve. A calibrated "
        "model sits on the diagonal; the bars below count the rows per bin."
        + (
            " The axis starts at 0.5: with two classes the top-1 probability is never lower."
            if len(result.classes) == 2
            else ""
        )
    )
    if drawn:
        show_figure(
            comparison.reliability_of([m for m in result.methods if m in drawn]),
            comparison.reliability_data[comparison.reliability_data["method"].isin(drawn)],
            "reliability",
            key="reliability_fig",
        )


@st.fragment
def spread_view(comparison: cmp.Comparison) -> None:
    """Each fold's score per method (a fragment: choosing the metric redraws it alone)."""
    result = comparison.result
    metric = st.segmented_control(
        "Metric",
        list(registry.METRICS),
        format_func=cmp.metric_column,
        required=True,
        **state.page_setting(*SPREAD_SETTING),
    )
    data = result.folds[["method", "fold", metric]]
    show_figure(comparison.spread_fig(metric), data, f"folds-{metric}", key="spread_fig")


# --------------------------------------------------------------------------- page
large = large_files.active()
page_header(
    page_title(__file__),
    "Stratified cross-validation of the methods chosen in the sidebar on the current "
    "dataset. Turn a knob and only that smoother is re-smoothed from the same fold counts."
    if large is None
    else "Cross-validation of the methods chosen in the sidebar on every row of the large "
    "file: DuckDB counts each fold's values, then every row is scored.",
)
methods = state.selected_methods()
if not methods:
    st.info("Choose at least one method in the sidebar.", icon=":material/arrow_back:")
    st.stop()
st.markdown("**Methods:** " + ", ".join(methods) + " (" + state.where_to_change() + ")")
if large is not None:
    st.markdown(
        f"**Data:** the large file {escape(large.name, limit=80)}, every row counted by "
        "DuckDB (choose the data on the Dataset page)."
        + (f" {escape(large_drop.left_out_text(large.dropped))}" if large.dropped else "")
    )
data_knobs(large is not None)


@st.fragment
def comparison_view() -> None:
    """Knobs and results: turning a smoother's knob reruns only this part of the page."""
    smoother_knobs(methods)
    state.sync_url()  # a fragment rerun skips the sidebar, which syncs the URL otherwise
    comparison = None
    with guard("cross-validating"):
        comparison, from_memory = cmp.run_comparison(
            dataset, loading.dataset_key(dataset), methods, state.run_settings()
        )
    if comparison is not None:
        class_tab = None
        with guard("showing the comparison"):
            class_tab = show(comparison, from_memory)
        with guard("showing the per-class diagnostics"):
            diagnostics.show_diagnostics(comparison, dataset, methods, per_class=class_tab)


if large is None:
    dataset = loading.current_dataset()
    comparison_view()
else:
    smoother_knobs(methods, large=True)
    large_comparison = None
    with guard("cross-validating the large file"):
        large_comparison = large_files.compare_view(large)
    if large_comparison is not None:
        with guard("showing the comparison"):
            class_tab = result_tabs(large_comparison, "large_compare_tab")
            if class_tab is not None:
                with class_tab:
                    diagnostics.show_large_per_class(large_comparison)
            else:  # the closed tab's method stays in the session and in a copied link
                methods_run = list(large_comparison.result.methods)
                state.keep_setting("diag_method", methods_run[0], methods_run)

page_footer(__file__, settings=True)
