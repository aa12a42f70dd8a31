"""Concentrations page: the learned Dirichlet concentration m of every (class, feature) pair."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import concentrations as conc
from explorer import hierarchies, large_drop, large_files, loading, state
from explorer.display import download_buttons, show_figure, show_table
from explorer.errors import escape, guard
from explorer.figure_cache import cached_figure
from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header
from heb import figures

ensure_entry_point()

EVIDENCE_PAGE = "pages/lesson_evidence.py"
DATASET_PAGE = "pages/dataset.py"
CHOICES = {
    "HEB-M": "HEB-M: prior mean = pooled marginal",
    "HEB-U": "HEB-U: prior mean = uniform 1/K_f",
    "HEB-H": "HEB-H: prior mean = the parent group, one m per level",
    "HEB-AODE": "HEB-AODE: one m per (class, parent, child)",
}
VALUES = {
    "m": "m, the prior's weight in pseudo-rows",
    "rho": "rho = m / (N_c + m), the share of the prior in the estimate",
    "iterations": "iterations of the fixed point",
}


def summary(frame: pd.DataFrame) -> None:
    numbers = conc.summary_numbers(frame)
    cols = st.columns(5)
    cols[0].metric("Pairs", numbers["Pairs"])
    cols[1].metric("Median m", numbers["Median m"])
    cols[2].metric("Clamped low / high", numbers["Clamped low / high"], help=conc.CLAMP_HELP)
    cols[3].metric("Fallback m = K_f", numbers["Fallback m = K_f"], help=conc.FALLBACK_HELP)
    cols[4].metric(
        "Max iterations",
        numbers["Max iterations"],
        help=f"{numbers['not converged']} did not converge.",
    )


def _heatmap(diag: dict, names: list[str], classes: list[str], value: str, levels: bool):
    # the class axis is named after the target: a feature may be called "class"
    target = loading.current_dataset().target or "class"
    fig = figures.concentration_heatmap(diag, names, classes, value=value, class_title=target)
    if levels:
        fig.update_xaxes(title_text="level", ticktext=conc.level_tick_labels(names), tickangle=0)
    return fig


@st.fragment
def heatmaps(diag: dict, names: list[str], classes: list[str], data: pd.DataFrame, stem: str,
             levels: bool = False, figure_key: str | None = None):  # fmt: skip
    """One heatmap of the pairs, ``names`` along x (a fragment: its colour reruns it alone);
    ``levels``: HEB-H's levels along x, each name on two lines. ``figure_key`` (what decides
    ``diag``) keeps each colouring's figure for the next rerun and the next visitor."""
    value = st.radio(
        "Colour by",
        list(VALUES),
        format_func=VALUES.get,
        horizontal=True,
        **state.page_setting("heat_value", "m", list(VALUES)),
    )
    fig = cached_figure(
        figure_key and f"concentration-heatmap|{figure_key}|{value}",
        lambda: _heatmap(diag, names, classes, value, levels),
    )
    show_figure(fig, data.assign(**{value: diag[value]}), f"{stem}-{value}-heatmap", key="heatmap")


def scatters(diag: dict, work: loading.WorkingData, frame: pd.DataFrame, choice: str) -> None:
    st.markdown(
        "The paper's Figure 5: the learned m grows with the data behind a pair and with its "
        "number of categories, and the prior's share rho shrinks like 1/sqrt(N_c)."
    )
    fig_m, fig_rho = cached_figure(
        f"concentration-scatters|{work.key}|{choice}",
        lambda: figures.concentration_scatters(diag, work.feature_names, work.class_names),
    )
    data = frame[["class name", "feature name", "N_c", "K_f", "m", "rho"]]
    left, right = st.columns(2)
    with left:
        show_figure(fig_m, data, f"{choice}-m-scatter", key="scatter_m")
    with right:
        show_figure(fig_rho, data, f"{choice}-rho-scatter", key="scatter_rho")
    st.caption(
        "The paper's slopes (1 for m against sqrt(N_c) · ln(K_f), and for rho against "
        "1 / sqrt(N_c)) describe its pairs pooled over many datasets. One dataset's fitted "
        "slope can lie far from them: its pairs span few values of N_c and K_f, the "
        "clamped pairs are left out of the fit, and m follows how concentrated each "
        "feature truly is in each class, which the x axis does not measure."
    )


#: integer index columns the table leaves out where a name column says the same (the
#: CSV keeps both)
INDEX_COLUMNS = ("class", "feature", "parent", "child")


def table(
    frame: pd.DataFrame, choice: str, key: str = "pair_table", dataset_name: str | None = None
) -> None:
    """The pairs' diagnostics, names rather than indices; every row in view up to
    :data:`explorer.display.WHOLE_TABLE_ROWS` of them, and the CSV download (named after
    ``dataset_name``)."""
    shown = [c for c in frame.columns if not (c in INDEX_COLUMNS and f"{c} name" in frame)]
    show_table(
        frame,
        column_order=shown,
        column_config=conc.pair_column_config(),
        key=key,
    )
    download_buttons(None, frame, f"{choice}-concentrations", dataset=dataset_name)


def open_evidence(work: loading.WorkingData) -> None:
    """Pick a (class, feature) pair and open its evidence curve in the lesson."""
    st.header("One pair's evidence curve")
    # the button under the pickers: in a third column it read "Open its eviden…" at 1024 px
    left, right = st.columns(2)
    class_name = left.selectbox("Class", work.class_names, key="pair_class")
    feature_name = right.selectbox("Feature", work.feature_names, key="pair_feature")
    clicked = st.button(
        "Open its evidence curve",
        type="primary",
        icon=":material/show_chart:",
        help="l(m) of this pair, its maximiser and the clamp (the evidence lesson).",
        key="open_evidence",
    )
    if clicked:
        st.session_state["evidence_pair"] = {
            "class": work.class_names.index(class_name),
            "feature": work.feature_names.index(feature_name),
        }
        st.switch_page(EVIDENCE_PAGE)


def aode_view(work: loading.WorkingData) -> None:
    with st.status("Fitting HEB-AODE on every row...", expanded=False) as status:
        diag = conc.aode_concentrations(work.key, work)
        status.update(label="HEB-AODE fitted", state="complete")
    if diag is None or len(diag["m"]) == 0:
        st.info("HEB-AODE learned no concentration here (no feature can be a super-parent).")
        return
    frame = conc.pair_frame(diag, work)
    summary(frame)
    class_name = st.selectbox(
        "Class",
        work.class_names,
        **state.page_setting("aode_class", work.class_names[0], work.class_names),
    )
    grid = conc.aode_grid(frame, work.class_names.index(class_name))
    fig = figures.aode_concentration_heatmap(grid, class_name)
    show_figure(fig, grid.reset_index(), "heb-aode-m-heatmap", key="aode_heatmap")
    table(frame, "heb-aode", dataset_name=loading.current_dataset().name)


def hierarchy_summary(frame: pd.DataFrame) -> None:
    pairs = frame.drop_duplicates(["class", "feature"])
    leaves = frame[frame["level"] == 0]
    cols = st.columns(5)
    cols[0].metric("Pairs x levels", f"{len(frame):,}")
    cols[1].metric(
        "Pairs that kept the hierarchy",
        f"{int(pairs['hierarchy_used'].sum())} / {len(pairs)}",
        help="Each pair's estimate averages the tree's and HEB-M's, weighted by their "
        "posterior probabilities (evidence less a BIC penalty); a pair counts here where "
        "the tree has more than half the weight.",
    )
    cols[2].metric("Median m of the leaves", conc.summary_numbers(leaves)["Median m"])
    clamped = frame["clamped"]
    cols[3].metric(
        "Clamped low / high",
        f"{(clamped == 'low').sum()} / {(clamped == 'high').sum()}",
        help=conc.CLAMP_HELP,
    )
    cols[4].metric(
        "Fallback",
        f"{int(pairs['fallback'].sum())} pairs",
        help=conc.FALLBACK_HELP.replace("K_f", "the number of children per parent"),
    )


def hierarchy_view(work: loading.WorkingData) -> bool:
    """HEB-H: the learned m at each level of each hierarchy, per class. False where no
    hierarchy applies (HEB-H is HEB-M: the caller shows HEB-M's view)."""
    items, source = hierarchies.concentration_hierarchies(work)
    if source == "none":
        st.info(
            "This dataset has no hierarchy: no column is a function of another at the "
            "Dataset page's tolerance and none is declared, so HEB-H is HEB-M here, and "
            "HEB-M's concentrations are shown below. Declare a hierarchy (a parent column "
            "or a prefix of the labels) on the Dataset page, tab Hierarchies."
        )
        if st.button(
            "Declare a hierarchy", icon=":material/account_tree:", key="declare_hierarchy"
        ):
            st.session_state["dataset_tab"] = "Hierarchies"  # the Dataset page opens on it
            st.switch_page(DATASET_PAGE)
        return False
    frame, notes = hierarchies.level_frame(work, items)
    shown = "; ".join(escape(d.describe()) for d in items)
    if source == "declared":
        st.markdown(f"Hierarchies declared on the Dataset page: **{shown}**.")
    else:
        st.markdown(
            f"Detected, not declared: **{shown}** (every value of a column with one value of "
            "the next). Compare's HEB-H runs as HEB-M until you confirm one on the Dataset page, "
            "tab Hierarchies."
        )
    for note in [*notes, *hierarchies.flat_notes(work, items)]:  # a flat one: HEB-M's m
        st.caption(escape(note))
    if frame.empty:
        st.info(
            "None of these hierarchies applies to the working columns: HEB-H is HEB-M here, "
            "and HEB-M's concentrations are shown below."
        )
        return False
    st.markdown(
        "One concentration per class and level: at the leaves, how closely the class's "
        "split of each group among its members follows the pooled split; above, the same "
        "for each group within its parent; at the top, the class's split over the top "
        "groups against their pooled marginal. Small m: the classes split that level "
        "differently; large m: they share the pooled split."
    )
    hierarchy_summary(frame)
    names = frame.drop_duplicates("row").sort_values("row")["level name"].tolist()
    diag = {
        "class": frame["class"].to_numpy(),
        "feature": frame["row"].to_numpy(),
        "N_c": frame["N_c"].to_numpy(),
        "K_f": frame["n_nodes"].to_numpy(),
        **{name: frame[name].to_numpy() for name in ("m", "rho", "iterations", "clamped")},
        "fallback": frame["fallback"].to_numpy(),
    }
    heat_tab, table_tab = view_tabs(["Heatmaps", "Table"])
    if heat_tab.open:
        with heat_tab, guard("drawing the heatmap"):
            data = frame[["class name", "feature name", "level name", "N_c", "n_nodes"]]
            heatmaps(diag, names, work.class_names, data, "HEB-H", levels=True)
            flat_pairs_caption(frame)
    if table_tab.open:
        with table_tab:
            table(
                frame.drop(columns=["class", "feature", "row"]),
                "heb-h",
                key="level_table",
                dataset_name=loading.current_dataset().name,
            )
    return True


def flat_pairs_caption(frame: pd.DataFrame) -> None:
    """Name the (class, feature) pairs of HEB-H's table where the tree gets under half the
    weight (their estimate is mostly HEB-M's)."""
    flat = frame[~frame["hierarchy_used"]].drop_duplicates(["class", "feature"])
    if len(flat):
        pairs = ", ".join(
            f"{escape(row['feature name'])} in class {escape(row['class name'])}"
            for _, row in flat.head(12).iterrows()
        )
        more = f" and {len(flat) - 12} more" if len(flat) > 12 else ""
        st.caption(
            f"Mostly HEB-M (the tree's weight in their estimate is under one half; the m "
            f"shown is the tree's): {pairs}{more}."
        )


def view_tabs(labels: list[str]) -> list:
    """Lazy tabs whose open one is the page setting ``conc_tab`` (a link keeps it; it
    starts on the first): only the open tab is built and sent, and the heatmaps'
    colouring stays in the session and the link while their tab is closed."""
    tabs = st.tabs(labels, **state.page_setting("conc_tab", labels[0], labels))
    if not tabs[0].open:
        state.keep_setting("heat_value", "m", list(VALUES))
    return tabs


def pair_view(work: loading.WorkingData, choice: str) -> None:
    """One Naive Bayes smoother's m per (class, feature) pair: summary, heatmaps, the
    Figure 5 scatters and the table."""
    diag = None
    with guard("learning the concentrations"):
        diag = conc.nb_concentrations(work.key, conc.SMOOTHER[choice], work)
        frame = conc.pair_frame(diag, work)
        summary(frame)
    if diag is None:
        return
    heat_tab, scatter_tab, table_tab = view_tabs(["Heatmaps", "Figure 5 scatters", "Table"])
    if heat_tab.open:
        with heat_tab, guard("drawing the heatmap"):
            data = frame[["class name", "feature name", "N_c", "K_f"]]
            heatmaps(
                diag,
                work.feature_names,
                work.class_names,
                data,
                choice,
                figure_key=f"{work.key}|{choice}",
            )
    if scatter_tab.open:
        with scatter_tab, guard("drawing the scatters"):
            scatters(diag, work, frame, choice)
    if table_tab.open:
        with table_tab:
            table(frame, choice, dataset_name=loading.current_dataset().name)
    open_evidence(work)


# --------------------------------------------------------------------------- page
page_header(
    page_title(__file__),
    "HEB learns one Dirichlet concentration m per (class, feature) pair by maximising the "
    "evidence: a large m trusts the prior mean, a small m trusts the counts.",
)
large = large_files.active()
work = loading.current_codes() if large is None else None
options = [
    *conc.SMOOTHER,
    *(["HEB-H"] if large is None else []),
    *(["HEB-AODE"] if large is None and "HEB-AODE" in state.selected_methods() else []),
]
choice = st.radio(
    "Model",
    options,
    format_func=CHOICES.get,
    horizontal=True,
    **state.page_setting("conc_model", options[0], options),
)

if work is not None and work.n_rows_total > work.codes.shape[0]:
    # the counts are Compare's rows: said, as the large file's page says the rows it counted
    st.caption(
        f"Learned from a stratified subsample of {work.codes.shape[0]:,} of "
        f"{work.n_rows_total:,} rows (seed 42), the rows Compare cross-validates; choose "
        '"Use every row" under Rows on the Dataset page to learn from all of them.'
    )
if large is not None:
    st.markdown(
        f"**Data:** the large file {escape(large.name, limit=80)}, every row counted by "
        "DuckDB (choose the data on the Dataset page). This page's HEB-H view needs the rows "
        "in memory (its hierarchies) and its HEB-AODE view one in-memory fit per feature "
        "pair: both are offered for the in-memory datasets (Compare cross-validates "
        "HEB-AODE on every row of this file)."
        + (f" {escape(large_drop.left_out_text(large.dropped))}" if large.dropped else "")
    )
    with guard("learning the concentrations on every row"):
        large_files.concentrations_view(large, conc.SMOOTHER[choice])
elif choice == "HEB-AODE":
    with guard("fitting HEB-AODE"):
        aode_view(work)
elif choice == "HEB-H":
    drawn = None
    with guard("learning HEB-H's concentrations"):
        drawn = hierarchy_view(work)
    if drawn is False:  # no hierarchy applies: HEB-H is HEB-M
        pair_view(work, "HEB-M")
else:
    pair_view(work, choice)

page_footer(__file__, settings=True)
