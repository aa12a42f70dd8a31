"""Concentrations page: the learned Dirichlet concentration m of every (class, feature) pair."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from heb import figures
from heb.aode import AODE
from heb.nb import NaiveBayes
from pages import common

common.ensure_entry_point()

EVIDENCE_PAGE = "pages/lesson_evidence.py"
CHOICES = {
    "HEB-M": "HEB-M: prior mean = pooled marginal",
    "HEB-U": "HEB-U: prior mean = uniform 1/K_f",
    "HEB-AODE": "HEB-AODE: one m per (class, parent, child)",
}
SMOOTHER = {"HEB-M": "heb-m", "HEB-U": "heb-u"}
VALUES = {
    "m": "m, the prior's weight in pseudo-rows",
    "rho": "rho = m / (N_c + m), the share of the prior in the estimate",
    "iterations": "iterations of the fixed point",
}


@st.cache_resource(max_entries=16, show_spinner=False)
def nb_concentrations(key: str, smoother: str, _work: common.WorkingData) -> dict:
    """HEB's per-pair diagnostics, from the counts already made (no recount)."""
    model = NaiveBayes(smoother=smoother).fit_counts(_work.table)
    return model.concentrations_


@st.cache_resource(max_entries=4, show_spinner=False)
def aode_concentrations(key: str, _work: common.WorkingData) -> dict:
    """HEB-AODE's per-(class, parent, child) diagnostics on the working rows."""
    model = AODE(smoother="heb").fit(_work.codes, _work.y)
    return model.concentrations_


def pair_frame(diag: dict, work: common.WorkingData) -> pd.DataFrame:
    """The diagnostics as a table with class and feature names."""
    frame = pd.DataFrame(diag)
    frame.insert(0, "class name", [work.class_names[c] for c in frame["class"]])
    for column in ("feature", "parent", "child"):
        if column in frame:
            frame.insert(1, f"{column} name", [work.feature_names[f] for f in frame[column]])
    return frame


def _number(value: float) -> str:
    """A concentration for display: 12,000 / 81.7 / 0.034."""
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def summary(frame: pd.DataFrame) -> None:
    cols = st.columns(5)
    cols[0].metric("Pairs", f"{len(frame):,}")
    cols[1].metric("Median m", _number(frame["m"].median()))
    cols[2].metric(
        "Clamped low / high",
        f"{(frame['clamped'] == 'low').sum()} / {(frame['clamped'] == 'high').sum()}",
        help="m hit the clamp [0.01, 10,000]: the evidence kept rising past it.",
    )
    cols[3].metric(
        "Fallback m = K_f",
        f"{int(frame['fallback'].sum())}",
        help="Fewer than 10 observed rows: m is set to K_f (Laplace's strength).",
    )
    cols[4].metric(
        "Max iterations",
        f"{int(frame['iterations'].max())}",
        help=f"{int((~frame['converged'].astype(bool)).sum())} did not converge.",
    )


def heatmaps(diag: dict, work: common.WorkingData, frame: pd.DataFrame, choice: str) -> None:
    value = st.radio(
        "Colour by", list(VALUES), format_func=VALUES.get, horizontal=True, key="heat_value"
    )
    fig = figures.concentration_heatmap(diag, work.feature_names, work.class_names, value=value)
    columns = ["class name", "feature name", "N_c", "K_f", value]
    common.show_figure(fig, frame[columns], f"{choice}-{value}-heatmap", key="heatmap")


def scatters(diag: dict, work: common.WorkingData, frame: pd.DataFrame, choice: str) -> None:
    st.markdown(
        "The paper's Figure 5: the learned m grows with the data behind a pair and with its "
        "number of categories, and the prior's share rho shrinks like 1/sqrt(N_c)."
    )
    fig_m, fig_rho = figures.concentration_scatters(diag, work.feature_names, work.class_names)
    data = frame[["class name", "feature name", "N_c", "K_f", "m", "rho"]]
    left, right = st.columns(2)
    with left:
        common.show_figure(fig_m, data, f"{choice}-m-scatter", key="scatter_m")
    with right:
        common.show_figure(fig_rho, data, f"{choice}-rho-scatter", key="scatter_rho")


def table(frame: pd.DataFrame, choice: str) -> None:
    st.dataframe(
        frame,
        hide_index=True,
        height=420,
        column_config={
            "m": st.column_config.NumberColumn(format="%.4g"),
            "rho": st.column_config.NumberColumn(format="%.3f"),
            "log_evidence": st.column_config.NumberColumn("log evidence", format="%.2f"),
        },
        key="pair_table",
    )
    common.download_buttons(None, frame, f"{choice}-concentrations")


def open_evidence(work: common.WorkingData) -> None:
    """Pick a (class, feature) pair and open its evidence curve in the lesson."""
    st.subheader("One pair's evidence curve")
    left, middle, right = st.columns([2, 2, 2])
    class_name = left.selectbox("Class", work.class_names, key="pair_class")
    feature_name = middle.selectbox("Feature", work.feature_names, key="pair_feature")
    class_index = work.class_names.index(class_name)
    feature_index = work.feature_names.index(feature_name)
    exists = (Path(__file__).resolve().parent / Path(EVIDENCE_PAGE).name).exists()
    right.markdown("&nbsp;")
    clicked = right.button(
        "Open its evidence curve",
        type="primary",
        icon=":material/show_chart:",
        disabled=not exists,
        help="l(m) of this pair, its maximiser and the clamp (the evidence lesson)."
        if exists
        else "The evidence lesson is not installed.",
        key="open_evidence",
    )
    if clicked:
        st.session_state["evidence_pair"] = {
            "class": int(class_index),
            "feature": int(feature_index),
        }
        st.switch_page(EVIDENCE_PAGE)


def aode_view(work: common.WorkingData) -> None:
    with st.status("Fitting HEB-AODE on every row...", expanded=False) as status:
        diag = aode_concentrations(work.key, work)
        status.update(label="HEB-AODE fitted", state="complete")
    if diag is None or len(diag["m"]) == 0:
        st.info("HEB-AODE learned no concentration here (no feature can be a super-parent).")
        return
    frame = pair_frame(diag, work)
    summary(frame)
    class_name = st.selectbox("Class", work.class_names, key="aode_class")
    class_index = work.class_names.index(class_name)
    chosen = frame[frame["class"] == class_index]
    grid = chosen.pivot_table(
        index="parent name", columns="child name", values="m", aggfunc="first"
    )
    fig = go.Figure(
        go.Heatmap(
            z=grid.to_numpy(),
            x=list(grid.columns),
            y=list(grid.index),
            colorscale="Viridis",
            colorbar={"title": "m"},
            hovertemplate="parent %{y}<br>child %{x}<br>m %{z:.3g}<extra></extra>",
        )
    )
    fig.update_layout(
        template="plotly_white",
        title=f"HEB-AODE: m per (parent, child), class {work.class_names[class_index]}",
        xaxis_title="child feature",
        yaxis_title="super-parent feature",
        height=max(380, 28 * len(grid) + 160),
    )
    common.show_figure(fig, grid.reset_index(), "heb-aode-m-heatmap", key="aode_heatmap")
    table(frame, "heb-aode")


# --------------------------------------------------------------------------- page
common.page_header(
    "Concentrations",
    "HEB learns one Dirichlet concentration m per (class, feature) pair by maximising the "
    "evidence: a large m trusts the prior mean, a small m trusts the counts.",
)
work = common.current_codes()
options = ["HEB-M", "HEB-U"] + (["HEB-AODE"] if "HEB-AODE" in common.selected_methods() else [])
choice = st.radio("Model", options, format_func=CHOICES.get, horizontal=True, key="conc_model")

if choice == "HEB-AODE":
    with common.guard("fitting HEB-AODE"):
        aode_view(work)
else:
    diag = None
    with common.guard("learning the concentrations"):
        diag = nb_concentrations(work.key, SMOOTHER[choice], work)
        frame = pair_frame(diag, work)
        summary(frame)
    if diag is not None:
        heat_tab, scatter_tab, table_tab = st.tabs(["Heatmaps", "Figure 5 scatters", "Table"])
        with heat_tab, common.guard("drawing the heatmap"):
            heatmaps(diag, work, frame, choice)
        with scatter_tab, common.guard("drawing the scatters"):
            scatters(diag, work, frame, choice)
        with table_tab:
            table(frame, choice)
        open_evidence(work)
