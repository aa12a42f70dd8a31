"""Dataset page: choose the data, see what the classifier will count, set preprocessing."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from heb import data as hdata
from heb import figures
from heb.smoothing import mutual_information
from pages import common

common.ensure_entry_point()

#: categories shown in the class-conditional chart of one feature (the table has them all)
TOP_CATEGORIES = 30
#: average rows per category below which the smoother decides much of each estimate
SPARSE_CELL = 5.0


# --------------------------------------------------------------------------- callbacks
def _on_upload() -> None:
    file = st.session_state.get("upload_file")
    if file is None:
        return
    payload = file.getvalue()
    try:
        hdata.load_upload(payload, file.name)
    except Exception as exc:  # noqa: BLE001 - shown as a message under the uploader
        st.session_state["upload_error"] = exc
        return
    common.set_dataset(common.register_upload(payload, file.name))


def _on_target(spec: str) -> None:
    st.session_state["uploads"][spec]["target"] = st.session_state["upload_target"]


def _on_openml() -> None:
    spec = f"openml:{int(st.session_state['openml_id'])}"
    try:
        common.load_spec(spec)
    except Exception as exc:  # noqa: BLE001
        st.session_state["openml_error"] = exc
        return
    common.set_dataset(spec)


# --------------------------------------------------------------------------- sections
def choose_dataset() -> None:
    """Upload a file or fetch an OpenML id (the sidebar lists built-in and paper data)."""
    with st.expander("Add a dataset: upload a file or an OpenML id", expanded=False):
        upload_tab, openml_tab = st.tabs(["Upload a file", "OpenML id"])
        with upload_tab:
            st.file_uploader(
                "A table with a header row: CSV, TSV, TXT, ARFF or Parquet (gzip allowed).",
                type=None,  # any file: the loader explains what it cannot read
                key="upload_file",
                on_change=_on_upload,
            )
            st.caption(
                "Up to 200 MB. The last column (or one named class / target / label) "
                "is the default target."
            )
            if "upload_error" in st.session_state:  # shown once, after the failed upload
                common.show_error(st.session_state.pop("upload_error"), "reading the file")
        with openml_tab:
            st.number_input("OpenML dataset id", min_value=1, value=31, step=1, key="openml_id")
            st.button("Load from OpenML", on_click=_on_openml, key="openml_load")
            st.caption(
                "Read from the local OpenML cache when present; otherwise this needs the network."
            )
            if "openml_error" in st.session_state:  # shown once, after the failed fetch
                common.show_error(st.session_state.pop("openml_error"), "fetching from OpenML")


def choose_target(spec: str) -> None:
    """For an upload, the column to predict."""
    upload = st.session_state["uploads"][spec]
    columns = _upload_columns(upload["digest"], upload["payload"], upload["filename"])
    current = upload["target"] or hdata.default_target(columns)
    st.selectbox(
        "Target column (what to predict)",
        columns,
        index=columns.index(current) if current in columns else len(columns) - 1,
        key="upload_target",
        on_change=_on_target,
        args=(spec,),
    )


@st.cache_data(max_entries=8, show_spinner=False)
def _upload_columns(digest: str, _payload: bytes, filename: str) -> list[str]:
    return [str(column) for column in hdata.read_table(_payload, filename).columns]


def preprocessing_options() -> None:
    """n_bins, missing values and subsample: shared by every page."""
    with st.expander("Preprocessing (applies to every page)", expanded=False):
        left, middle, right = st.columns(3)
        left.slider(
            "Bins for numeric columns",
            2,
            common.MAX_BINS,
            help="Quantile bins; a numeric feature becomes a categorical one.",
            **common.bound("n_bins"),
        )
        middle.radio(
            "Missing values",
            list(common.MISSING_CHOICES),
            format_func=common.MISSING_CHOICES.get,
            **common.bound("missing"),
        )
        right.radio(
            "Rows",
            list(common.ROW_CHOICES),
            format_func=common.ROW_CHOICES.get,
            help="Stratified on the target, seed 42.",
            **common.bound("max_rows"),
        )


def overview(dataset: hdata.Dataset, work: common.WorkingData) -> None:
    """Size, source and notes."""
    cols = st.columns(4)
    cols[0].metric(
        "Rows",
        f"{work.codes.shape[0]:,}",
        help=f"{work.n_rows_total:,} in the file"
        if work.n_rows_total != work.codes.shape[0]
        else None,
    )
    cols[1].metric("Features", f"{work.codes.shape[1]}")
    cols[2].metric("Classes", f"{work.n_classes}")
    cols[3].metric("Target", dataset.target)
    st.caption(f"Source: {dataset.source}. {dataset.description}")
    notes = list(dataset.notes)
    if work.n_rows_total > work.codes.shape[0]:
        notes.append(
            f"Stratified subsample of {work.codes.shape[0]:,} of "
            f"{work.n_rows_total:,} rows (seed 42)."
        )
    dropped = list(getattr(work.preprocessor, "dropped_", []) or [])
    if dropped:
        notes.append(f"Dropped (entirely missing): {', '.join(map(str, dropped))}.")
    for note in notes:
        st.info(note, icon=":material/info:")


def feature_table(dataset: hdata.Dataset, work: common.WorkingData) -> pd.DataFrame:
    """Per feature: type, K_f, missing share, mutual information with the target."""
    missing = dataset.X.isna().mean()
    frame = pd.DataFrame(
        {
            "feature": work.feature_names,
            "type": [work.preprocessor.kinds_.get(name, "") for name in work.feature_names],
            "K_f": work.table.n_categories,
            "missing share": [missing.get(name, 0.0) for name in work.feature_names],
            "MI with target (nats)": mutual_information(work.table),
        }
    )
    return frame


def show_features(frame: pd.DataFrame) -> None:
    st.subheader("Features")
    st.dataframe(
        frame,
        hide_index=True,
        column_config={
            "K_f": st.column_config.NumberColumn("K_f (categories)", format="%d"),
            "missing share": st.column_config.ProgressColumn(
                "missing share", format="percent", min_value=0.0, max_value=1.0
            ),
            "MI with target (nats)": st.column_config.ProgressColumn(
                "MI with target (nats)",
                format="%.3f",
                min_value=0.0,
                max_value=max(float(frame["MI with target (nats)"].max()), 1e-9),
            ),
        },
        key="feature_table",
    )
    common.download_buttons(None, frame, "features")


def class_balance(work: common.WorkingData) -> None:
    counts = work.table.class_counts
    frame = pd.DataFrame({"class": work.class_names, "rows (N_c)": counts.astype(int)})
    fig = go.Figure(
        go.Bar(
            x=frame["class"].astype(str),
            y=frame["rows (N_c)"],
            marker_color="#1f5fbf",
            text=frame["rows (N_c)"],
            textposition="outside",
            cliponaxis=False,
        )
    )
    st.subheader("Classes")
    fig.update_layout(
        template="plotly_white",
        title="Rows per class",
        xaxis_title="class",
        yaxis_title="rows N_c",
        xaxis_type="category",
        height=380,
        margin={"t": 60, "b": 40},
    )
    common.show_figure(fig, frame, "class-balance")


def conditional_counts(work: common.WorkingData, feature: int) -> pd.DataFrame:
    """The class-conditional counts N_cfv of one feature (classes as columns)."""
    start, stop = work.table.offsets[feature], work.table.offsets[feature + 1]
    labels = [str(label) for label in work.preprocessor.categories_[feature]]
    block = work.table.counts[:, start:stop].T.astype(int)
    frame = pd.DataFrame(block, columns=[f"N(class={c})" for c in work.class_names])
    frame.insert(0, "category", labels[: len(frame)])
    frame["total"] = block.sum(axis=1)
    return frame


def feature_lens(work: common.WorkingData) -> None:
    """One feature's counts per class: what every smoother starts from."""
    st.subheader("One feature under the lens")
    names = work.feature_names
    feature = names.index(st.selectbox("Feature", names, key="lens_feature"))
    frame = conditional_counts(work, feature)
    K = len(frame)
    shown = frame.nlargest(TOP_CATEGORIES, "total") if K > TOP_CATEGORIES else frame
    fig = go.Figure()
    for name in frame.columns[1:-1]:
        fig.add_trace(go.Bar(x=shown["category"].astype(str), y=shown[name], name=name))
    title = f"{names[feature]}: counts per class"
    if K > TOP_CATEGORIES:
        title += f" (the {TOP_CATEGORIES} most frequent of {K:,} categories)"
    fig.update_layout(
        template="plotly_white",
        barmode="group",
        title=title,
        xaxis_title="category",
        yaxis_title="rows",
        xaxis_type="category",
        height=420,
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
    )
    left, right = st.columns([3, 2])
    with left:
        common.show_figure(fig, frame, f"counts-{names[feature]}")
    with right:
        zeros = int((frame.iloc[:, 1:-1] == 0).to_numpy().sum())
        st.markdown(
            f"**{K:,} categories** × **{work.n_classes} classes**: {zeros:,} of "
            f"{K * work.n_classes:,} cells are **zero**. An unsmoothed estimate would give "
            "those a probability of exactly 0 and veto the class."
        )
        st.dataframe(
            frame.sort_values("total", ascending=False, kind="stable"),
            hide_index=True,
            height=300,
            key="lens_table",
        )


def smoothing_pressure(work: common.WorkingData) -> None:
    """Average rows per category N_c / K_f for every (class, feature) pair."""
    st.subheader("Where smoothing will matter most")
    per_cell = work.table.rows_per_category()
    frame = pd.DataFrame(per_cell, index=work.class_names, columns=work.feature_names)
    fig = figures.rows_per_category_heatmap(
        per_cell, work.feature_names, work.class_names, SPARSE_CELL
    )
    common.show_figure(fig, frame.reset_index(names="class"), "rows-per-category")
    sparse = int((per_cell < SPARSE_CELL).sum())
    st.markdown(
        f"{sparse} of {per_cell.size} (class, feature) pairs have fewer than {SPARSE_CELL:g} "
        "rows per category: there the choice of smoother (Laplace's fixed pseudo-count "
        "against a learned concentration) changes the estimates most."
    )


# --------------------------------------------------------------------------- page
common.page_header(
    "Dataset",
    "What the classifier will count: the features, their categories and the class-"
    "conditional frequencies every smoother starts from.",
)
choose_dataset()
spec = st.session_state["data_spec"]
if spec.startswith(common.UPLOAD_PREFIX) and spec in st.session_state["uploads"]:
    with common.guard("reading the uploaded file"):
        choose_target(spec)
preprocessing_options()

dataset = common.current_dataset()
work = common.current_codes(dataset)
overview(dataset, work)

with st.expander("Preview: the first 100 rows", expanded=False):
    st.dataframe(
        pd.concat([dataset.X.head(100), dataset.y.head(100)], axis=1), key="preview", height=320
    )

with common.guard("summarising the features"):
    show_features(feature_table(dataset, work))
left, right = st.columns([1, 2])
with left, common.guard("drawing the class balance"):
    class_balance(work)
with right, common.guard("drawing the rows per category"):
    smoothing_pressure(work)
with common.guard("counting one feature"):
    feature_lens(work)
