"""Dataset page: choose the data, see what the classifier will count, set preprocessing."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import catalogue, hierarchies, large_files, loading, state, style, summaries
from explorer.display import (
    MISSING_SHARE_COLUMN,
    download_buttons,
    leave_out_button,
    show_figure,
    show_table,
)
from explorer.errors import escape, guard, show_error, show_info, show_warning
from explorer.figure_cache import cached_figure
from explorer.lazy_sections import lazy_expander
from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header
from heb import figures
from heb.data import default_target, parse_openml_id
from heb.data.dataset import TooManyCells, join_names
from heb.data.preprocess import ID_LIKE_MIN_CATEGORIES, ID_LIKE_ROWS_PER_CATEGORY
from heb.text import shorten

ensure_entry_point()


# --------------------------------------------------------------------------- callbacks
#: session key of the uploads read so far: the uploader's key changes after each, so a read
#: file lives in the session's uploads alone (Streamlit deep-copies a file uploader's value
#: at every rerun of the page: 0.5 s holding the GIL for a 160 MB file, and a second copy)
UPLOADS_READ = "uploads_read"
#: session key of a file taken from the uploader and not read yet: (bytes, name)
PENDING_UPLOAD = "upload_pending"


def _uploader_key() -> str:
    return f"upload_file_{st.session_state.get(UPLOADS_READ, 0)}"


def _on_upload(key: str) -> None:
    """Take the file from the uploader (read below, under a note naming it: a callback
    cannot show one, and a large file left the old page greyed with no word for seconds)."""
    file = st.session_state.get(key)
    if file is None:
        return
    st.session_state[PENDING_UPLOAD] = (file.getvalue(), file.name)
    st.session_state[UPLOADS_READ] = st.session_state.get(UPLOADS_READ, 0) + 1


def read_pending_upload() -> None:
    """Read the file just uploaded, saying so meanwhile; then show every page on it (a
    rerun: the sidebar drawn above still names the previous dataset)."""
    pending = st.session_state.pop(PENDING_UPLOAD, None)
    if pending is None:
        return
    payload, name = pending
    try:  # parsed once: the target choice and the pages read the same table
        with st.spinner(f"Reading {escape(name, limit=80)} ..."):
            spec = loading.upload_dataset(payload, name)
    except Exception as exc:  # noqa: BLE001 - shown as a message under the uploader
        # the last good upload's "Read ...: it is the dataset now" stood under this error
        st.session_state.pop("upload_read", None)
        show_error(exc, "reading the file")
        st.caption(
            f"{escape(name, limit=80)} was not read: the dataset is still the one the "
            "sidebar names."
            + (f" {large_files.too_many_cells_hint()}" if isinstance(exc, TooManyCells) else "")
        )
        return
    st.session_state["upload_read"] = name
    state.set_dataset(spec)
    st.rerun()


def _on_target(spec: str) -> None:
    upload = st.session_state["uploads"][spec]
    upload["target"] = st.session_state["upload_target"]
    upload.pop("target_note", None)  # said why the first target was not the last column
    upload["needs_target"] = False
    # the target is not a feature: a declaration of it would linger, unseen, in the link
    upload["categorical"] = [c for c in upload.get("categorical", []) if c != upload["target"]]
    upload["drop"] = [c for c in upload.get("drop", []) if c != upload["target"]]


#: session key of the upload's "Categorical columns" widget (its value lives in the
#: upload's record, so it survives a page switch and travels in the link)
CATEGORICAL_WIDGET = "upload_categorical"


def _on_categorical(spec: str) -> None:
    st.session_state["uploads"][spec]["categorical"] = list(st.session_state[CATEGORICAL_WIDGET])


#: session key of the upload's "Columns to leave out" widget (its value lives in the
#: upload's record, as the categorical columns' does)
DROP_WIDGET = "upload_drop"
#: what leaving a column out does, said where it is done
DROP_RULE = (
    "A left-out column is not a feature of any model. Leave out a row identifier (a value "
    "per row tells Naive Bayes nothing about a new row) or a column that must not be "
    "used; a code shared by many rows (a ZIP code, a product) is what HEB smooths best."
)


def _on_drop(spec: str) -> None:
    upload = st.session_state["uploads"][spec]
    upload["drop"] = list(st.session_state[DROP_WIDGET])
    # a left-out column is no feature: its declaration would linger, unseen, in the link
    upload["categorical"] = [c for c in upload.get("categorical", []) if c not in upload["drop"]]


def _leave_out(spec: str, column: str) -> None:
    """Callback of an ID warning's button: leave ``column`` out (as "Columns to leave out")."""
    upload = st.session_state["uploads"][spec]
    upload["drop"] = [*(c for c in upload.get("drop", []) if c != column), column]
    upload["categorical"] = [c for c in upload.get("categorical", []) if c != column]


def _leave_out_button(spec: str, column: str, key: str, when: str) -> None:
    """A button leaving ``column`` out of the upload, its help saying ``when`` to."""
    leave_out_button(
        column,
        key,
        _leave_out,
        (spec, column),
        f"{when}: the Columns to leave out choice above, for every page and in the link.",
    )


def _declare_categorical(spec: str, column: str) -> None:
    """Callback of a numeric-code note's button: declare ``column`` categorical."""
    upload = st.session_state["uploads"][spec]
    upload["categorical"] = [*(c for c in upload.get("categorical", []) if c != column), column]


def _on_openml() -> None:
    try:
        # typed text, checked here: a number box kept its last good id while showing an
        # invalid one (-5 loaded dataset 31)
        spec = f"openml:{parse_openml_id(st.session_state['openml_id'])}"
        loading.load_spec(spec)
    except Exception as exc:  # noqa: BLE001
        st.session_state["openml_error"] = exc
        return
    state.set_dataset(spec)


# --------------------------------------------------------------------------- sections
def _free_label(label: str, taken) -> str:
    """``label``, else ``label (2)``, ``label (3)``...: the first not among ``taken``."""
    taken, candidate, number = {str(name) for name in taken}, label, 1
    while candidate in taken:
        number += 1
        candidate = f"{label} ({number})"
    return candidate


#: the upload's default target, said where the target is chosen (heb.data.default_target)
TARGET_RULE = (
    "The default target is the file's last column, whatever its name (as in Weka): "
    "a feature called class stays a feature. Pick another column here."
)


#: the missing-value choices, said where they are made (heb.data.preprocess's ID rule)
MISSING_RULE = (
    "Impute: a missing value takes the column's most frequent category (a number, its "
    "median bin), as in the paper. On an ID-like column (at least "
    f"{ID_LIKE_MIN_CATEGORIES} categories, fewer than {ID_LIKE_ROWS_PER_CATEGORY:g} rows "
    "each) that piles every missing row into one ID, which then looks frequent: choose "
    "missing as its own category there (the page says when)."
)


def choose_dataset() -> None:
    """Upload a file or fetch an OpenML id (the sidebar lists built-in and paper data).

    The uploader and the id box are built only while their expander is open: out of
    sight, they still made every first visit load and draw their code.
    """
    section = lazy_expander("Add a dataset: upload a file or an OpenML id", ADD_OPEN)
    if section is None:
        return
    with section:
        upload_tab, openml_tab = st.tabs(["Upload a file", "OpenML id"])
        with upload_tab:
            key = _uploader_key()
            st.file_uploader(
                "A table with a header row: CSV, TSV, TXT, ARFF or Parquet (gzip allowed).",
                type=None,  # any file: the loader explains what it cannot read
                key=key,
                on_change=_on_upload,
                args=(key,),
            )
            # the uploader itself says its size limit ("200MB per file"); the default
            # target is said once, beside the target picker (TARGET_RULE)
            read_pending_upload()
            if "upload_read" in st.session_state:
                st.caption(
                    f"Read {escape(st.session_state['upload_read'], limit=80)}: it is the "
                    "dataset now, and stays in the Dataset list for this session."
                )
                upload = st.session_state["uploads"].get(st.session_state["data_spec"])
                if upload is not None and upload.get("target_note"):
                    show_info(upload["target_note"])
                if upload is not None and upload.get("link_note"):
                    st.caption(escape(upload["link_note"]))
        with openml_tab:
            st.text_input("OpenML dataset id", value="31", max_chars=12, key="openml_id")
            st.button("Load from OpenML", on_click=_on_openml, key="openml_load")
            st.caption(
                "Read from the local OpenML cache when present; otherwise this needs the network."
            )
            if "openml_error" in st.session_state:  # shown once, after the failed fetch
                show_error(st.session_state.pop("openml_error"), "fetching from OpenML")


#: what declaring a column categorical does, said where it is done
CATEGORICAL_RULE = (
    "Each value of a categorical column is a category of its own. Text columns are "
    "categorical already; a column of numbers is cut into quantile bins, which for a code "
    "(a customer number, a ZIP code, a product code) mixes unrelated codes in each bin: "
    "choose such columns here (digit codes written with a leading zero, 02134, are read as "
    "text already). Applies to every page and is kept in the link."
)


def choose_target(spec: str) -> None:
    """For an upload, the column to predict, the columns declared categorical and those
    left out."""
    upload = st.session_state["uploads"][spec]
    columns = loading.upload_columns(upload["digest"], upload["payload"], upload["filename"])
    current = upload["target"] or default_target(columns)
    # the record holds the choice and the widget shows it: with index= alone the box kept
    # the previous upload's choice over a new file's record
    st.session_state["upload_target"] = current if current in columns else columns[-1]
    left, right = st.columns(2)
    target = left.selectbox(
        "Target column (what to predict)",
        columns,
        key="upload_target",
        on_change=_on_target,
        args=(spec,),
    )
    features = [column for column in columns if column != target]
    dropped = [column for column in upload.get("drop", []) if column in features]
    st.session_state[DROP_WIDGET] = dropped
    kept = [column for column in features if column not in dropped]
    # the record holds the choice: the widget shows it (as explorer.state.bound does)
    st.session_state[CATEGORICAL_WIDGET] = [
        column for column in upload.get("categorical", []) if column in kept
    ]
    right.multiselect(
        "Categorical columns",
        kept,
        key=CATEGORICAL_WIDGET,
        on_change=_on_categorical,
        args=(spec,),
        placeholder="Number columns to treat as codes",
        help=CATEGORICAL_RULE,
    )
    if len(features) > 1:  # one feature always stays
        st.multiselect(
            "Columns to leave out",
            features,
            key=DROP_WIDGET,
            on_change=_on_drop,
            args=(spec,),
            max_selections=len(features) - 1,
            placeholder="None: every other column is a feature",
            help=DROP_RULE,
        )
    st.caption(TARGET_RULE)


def preprocessing_summary() -> str:
    """The preprocessing in force, in a few words (said under the closed expander)."""
    settings = state.current_settings()
    missing = "imputed" if settings["missing"] == "impute" else "as a category"
    rows = settings["max_rows"]
    subsample = f"at most {rows:,} rows (a stratified subsample beyond)" if rows else "every row"
    if state.large_file():
        subsample = "every row of the large file"
    return f"{settings['n_bins']} bins · missing {missing} · {subsample}"


def preprocessing_options() -> None:
    """n_bins, missing values and subsample: shared by every page.

    Built only while the expander is open (the settings live in the session and the
    link, not in the widgets); while closed, a caption under it says what is in force.
    """
    # the label stays the same: Streamlit counts it in the expander's identity, so a label
    # that named the settings closed the box at every change made in it
    section = lazy_expander("Preprocessing (applies to every page)", PREPROCESSING_OPEN)
    if section is None:
        st.caption(f"Preprocessing in force: {preprocessing_summary()}.")
        return
    with section:
        left, middle, right = st.columns(3)
        left.slider(
            "Bins for numeric columns",
            2,
            state.MAX_BINS,
            help="Quantile bins; a numeric feature becomes a categorical one.",
            **state.bound("n_bins"),
        )
        middle.radio(
            "Missing values",
            list(state.MISSING_CHOICES),
            format_func=state.MISSING_CHOICES.get,
            help=MISSING_RULE,
            **state.bound("missing"),
        )
        right.radio(
            "Rows",
            list(state.ROW_CHOICES),
            format_func=state.ROW_CHOICES.get,
            help="Stratified on the target, seed 42.",
            **state.bound("max_rows"),
        )


#: this many of the loader's notes or more share one box, a line each
NOTES_IN_ONE_BOX = 3


def overview(dataset, work: loading.WorkingData) -> None:
    """Size, source and notes."""
    rows = work.codes.shape[0]
    cols = st.columns(4)
    in_file = f"{work.n_rows_total:,} in the file" if work.n_rows_total != rows else None
    cols[0].metric("Rows", f"{rows:,}", help=in_file)
    cols[1].metric("Features", f"{work.codes.shape[1]}")
    cols[2].metric("Classes", f"{work.n_classes}")
    style.text_metric(cols[3], "Target", dataset.target, "metric_target")
    st.caption(escape(f"Source: {dataset.source}. {dataset.description}"))
    notes = summaries.dataset_notes(dataset, work)
    if len(notes) >= NOTES_IN_ONE_BOX:  # one box, a line each: a messy spreadsheet's seven
        # boxes pushed the features table 2.5 screens down a 1366 x 650 laptop (trial Z)
        listed = "\n".join(f"- {escape(note)}" for note in notes)
        st.info(f"How the data was read:\n\n{listed}", icon=":material/info:")
    else:
        for note in notes:
            show_info(note)
    id_warnings(dataset, work)
    numeric_code_notes(dataset, work)


@st.cache_data(max_entries=16, show_spinner=False)
def _id_columns(key: str, _dataset, _work: loading.WorkingData) -> list[str]:
    """:func:`explorer.summaries.id_columns`, once per working data (``key``)."""
    return summaries.id_columns(_dataset, _work)


def id_warnings(dataset, work: loading.WorkingData) -> None:
    """The ID-like columns' warnings and their remedies in one row: missing values as a
    category (every dataset), and for an upload a button per ID column (imputed into one
    ID, or a value per row) that leaves it out, as "Columns to leave out" does."""
    notes = summaries.id_like_imputation_notes(work)
    for note in notes:
        show_warning(note)
    spec = st.session_state["data_spec"]
    columns = []
    if spec in st.session_state.get("uploads", {}) and dataset.X.shape[1] > 1:
        columns = _id_columns(work.key, dataset, work)
    if not notes and not columns:
        return
    with st.container(horizontal=True, key="id_remedies"):
        if notes:
            st.button(
                "Missing as its own category",
                on_click=state.missing_as_category,
                key="missing_as_category",
                icon=":material/category:",
                help="The Preprocessing choice below, for every page.",
            )
        for number, column in enumerate(columns):
            _leave_out_button(spec, column, f"leave_out_{number}", "If it only identifies rows")


@st.cache_data(max_entries=16, show_spinner=False)
def _numeric_code_notes(
    key: str, _dataset, _work: loading.WorkingData
) -> tuple[dict[str, str], dict[str, str], str, list[str], list[str], list[str]]:
    """:func:`explorer.summaries.numeric_code_notes` and ``numeric_code_lines`` with the
    signal rule's figures, the columns it found and those it left unweighed
    (:func:`explorer.summaries.binned_signal_columns`), and those with a number per row
    (:func:`explorer.summaries.per_row_codes`), once per working data (``key``)."""
    check = summaries.binned_signal_columns(_dataset, _work)
    notes, lines, counted, per_row = summaries.numeric_code_texts(_dataset, _work, check.found)
    return notes, lines, counted, list(check.found), check.unweighed, per_row


def _declare_all_categorical(spec: str, columns: list[str]) -> None:
    """Callback of the several-column note's button: declare every one of ``columns``."""
    for column in columns:
        _declare_categorical(spec, column)


def _declare_button(spec: str, column: str, number: int, per_row: bool = False) -> None:
    """The button declaring one column of a numeric-code note categorical, and for a
    column with a number per row (``per_row``) the one leaving it out beside it."""
    st.button(
        f"Treat {escape(column, limit=40)} as categorical",
        on_click=_declare_categorical,
        args=(spec, column),
        key=f"declare_categorical_{number}",
        icon=":material/category:",
        help="The Categorical columns choice above, for every page.",
    )
    if per_row:
        _leave_out_button(spec, column, f"leave_out_code_{number}", "If it numbers the rows")


def numeric_code_notes(dataset, work: loading.WorkingData) -> None:
    """For an upload, a note per whole-number column that may be a code binned as a
    number, with a button declaring it categorical. Several such columns (a table of
    product, department and manager codes) share one note, a line each: one button
    declares every column whose values tell more than its bins, a button each the others
    (a column of a value per row or so, which may as well be a measurement). Built-in,
    paper and OpenML data are typed by their source's metadata, so their numeric columns
    are left alone."""
    spec = st.session_state["data_spec"]
    if spec not in st.session_state.get("uploads", {}):
        return
    notes, lines, counted, telling, unweighed, per_row = _numeric_code_notes(
        work.key, dataset, work
    )
    if len(notes) == 1:
        column, note = next(iter(notes.items()))
        show_info(note)
        with st.container(horizontal=True, key="code_note_buttons"):
            _declare_button(spec, column, 0, column in per_row)
    elif notes:
        _shared_code_note(spec, notes, lines, counted, telling, per_row)
    if unweighed:  # under the notes: what was weighed comes first
        st.caption(
            f"Not weighed, to keep this page quick ({len(unweighed)} whole-number "
            f"column{'s' * (len(unweighed) != 1)} of many values over many classes): "
            f"{escape(join_names(unweighed))}. If any is a code, choose it under Categorical "
            "columns."
        )


def _shared_code_note(
    spec: str,
    notes: dict[str, str],
    lines: dict[str, str],
    counted: str,
    telling: list[str],
    per_row: list[str],
) -> None:
    """Several columns of :func:`numeric_code_notes` in one note, a line each, with one
    button declaring those whose values tell more than their bins (``telling``) and a
    button each for the others (and one leaving out each of ``per_row``)."""
    listed = "\n".join(f"- {escape(line)}" for line in lines.values())
    weighed = (
        " (MI above chance: what a column tells about the target beyond what as many "
        "values unrelated to it would)"
        if telling
        else ""
    )
    st.info(
        f"{len(notes)} whole-number columns are binned as numbers, though their values may "
        "be codes (a customer number, a ZIP code, a product code) or tell more one by one "
        "than in bins. Counted on "
        f"{escape(counted)}:\n\n{listed}\n\nTreated as categorical, each value counts on "
        f"its own{weighed}.",
        icon=":material/info:",
    )
    with st.container(horizontal=True, key="declare_categorical_buttons"):
        if telling:
            st.button(
                f"Treat all {len(telling)} as categorical"
                if len(telling) == len(notes)
                else f"Treat the {len(telling)} whose values tell more as categorical",
                on_click=_declare_all_categorical,
                args=(spec, telling),
                key="declare_categorical_all",
                icon=":material/category:",
                help="The Categorical columns choice above, for every page: remove there "
                "any you want binned as numbers again.",
            )
        for number, column in enumerate(c for c in notes if c not in telling):
            _declare_button(spec, column, number, column in per_row)


#: the widest (pixels) the pinned feature column grows for long names (a longer name is
#: cut, whole in its cell's tooltip): with the other columns' fixed widths the table fits
#: the main column at 1280 px with the sidebar open (at 320 "MI above chance" went off)
FEATURE_COLUMN_MAX_PX = 200


def show_features(frame: pd.DataFrame, class_entropy: float, dataset_name: str) -> None:
    """The features table; the MI bars are drawn against H(Y), the most a feature can tell
    (against the largest MI, noise-only features drew long bars). Its CSV is named after
    ``dataset_name``."""
    top_mi = max(class_entropy, 1e-9)
    full_bar = (
        f"A full bar is H(Y) = {class_entropy:.3f} nats, the class entropy: the most any "
        "feature can tell about the target."
    )
    longest = int(frame["feature"].astype(str).str.len().max()) if len(frame) else 0
    show_table(
        frame,
        column_config={
            # wide enough for the longest name (the header's width cut "customer_no")
            "feature": st.column_config.TextColumn(
                pinned=True, width=min(FEATURE_COLUMN_MAX_PX, 24 + 8 * max(longest, 7))
            ),
            # short headers, their meaning as help: with the sidebar open at 1280 px the
            # long ones pushed "MI above chance", the column to read, off the right edge
            "type": st.column_config.TextColumn(width=90),
            "K_f": st.column_config.NumberColumn(
                help="Categories of the feature (bins, for a number).", format="%,d", width=70
            ),
            "missing share": MISSING_SHARE_COLUMN,
            "MI with target (nats)": st.column_config.ProgressColumn(
                "MI (nats)",
                format="%.3f",
                min_value=0.0,
                max_value=top_mi,
                help="Plug-in mutual information with the target, in nats. " + full_bar,
                width=115,
            ),
            summaries.MI_CHANCE: st.column_config.NumberColumn(
                "chance MI",
                format="%.3f",
                help="What the plug-in MI of a feature unrelated to the target scores "
                "by chance alone: its mean over every shuffle of the labels (exact).",
                width=75,
            ),
            summaries.MI_ABOVE: st.column_config.ProgressColumn(
                summaries.MI_ABOVE,
                format="%.3f",
                min_value=0.0,
                max_value=top_mi,
                help=full_bar,
                width=130,
            ),
        },
        key="feature_table",
    )
    st.caption(
        "Mutual information is the plug-in estimate from the counts, which is biased "
        "upward: a feature unrelated to the target still scores about (K−1)(C−1)/(2N) "
        "nats (K categories, C classes, N rows), and an ID with a category per row scores "
        "H(Y). An ID-like column therefore ranks high by chance alone; compare MI with its "
        "chance level (its exact mean with the labels shuffled), or read the MI above "
        "chance. A full bar is the class entropy H(Y) = "
        f"{class_entropy:.3f} nats, the most any feature can tell."
    )
    download_buttons(None, frame, "features", dataset=dataset_name)


def class_balance(work: loading.WorkingData) -> None:
    st.header("Classes")
    frame = summaries.class_counts(work)
    fig = cached_figure(
        f"class-balance|{work.key}",
        lambda: figures.class_balance_figure(frame["class"], frame["rows (N_c)"]),
    )
    show_figure(fig, frame, "class-balance")


#: the longest class name a lens table header shows whole (its tooltip has all of it): eight
#: such columns and the category fit the main column at 1440 px
LENS_HEADER_CHARS = 16
#: the most classes whose lens table fits beside the figure; with more it spans the page
LENS_SIDE_CLASSES = 2
#: the longest category label whose lens table fits beside the figure at 1280 px with the
#: menu open: a label of 16 characters or more (a bin of dates, "[2024-02-04, 2024-03-12)";
#: breast cancer's bins of area) left the last class column cut off there
LENS_SIDE_LABEL_CHARS = 15


@st.fragment
def feature_lens(work: loading.WorkingData) -> None:
    """One feature's counts per class: what every smoother starts from (a fragment: picking
    a feature reruns this part alone)."""
    names = work.feature_names
    feature = names.index(
        st.selectbox("Feature", names, **state.page_setting("lens_feature", names[0], names))
    )
    frame = summaries.conditional_counts(work, feature)
    fig = cached_figure(
        f"feature-counts|{work.key}|{feature}",
        lambda: figures.feature_counts_figure(frame, names[feature], summaries.TOP_CATEGORIES),
    )
    left, right = st.columns([3, 2])
    with left:
        show_figure(fig, frame, f"counts-{feature}")
    with right:
        zeros, cells = summaries.zero_cells(frame)
        shape = f"**{len(frame):,} categories** × **{work.n_classes} classes**: "
        st.markdown(
            shape + f"{zeros:,} of {cells:,} cells are **zero**. An unsmoothed "
            "estimate would give those a probability of exactly 0 and veto the class."
            if zeros
            else shape + f"none of the {cells:,} cells is zero: every category was seen in "
            "every class, so here smoothing only pulls the estimates a little toward the "
            "prior."
        )
        longest = int(frame["category"].astype(str).str.len().max()) if len(frame) else 0
        beside = work.n_classes <= LENS_SIDE_CLASSES and longest <= LENS_SIDE_LABEL_CHARS
        if beside:  # narrow enough for the side column
            lens_counts_table(frame)
    if not beside:
        lens_counts_table(frame)


def lens_counts_table(frame: pd.DataFrame) -> None:
    """The lens's counts, total first and the classes as the figure groups them, so every
    column is readable at 1440 px (the CSV under the figure has them all)."""
    table = summaries.lens_table(frame.sort_values("total", ascending=False, kind="stable"))
    classes = {
        name: name.removeprefix("N(class=").removeprefix("N(").removesuffix(")")
        for name in table.columns[2:]
    }
    # headers are plain text (a class name, shortened), the tooltip markdown (escaped);
    # category and total stay pinned in view whatever the width of the rest
    config = {
        "category": st.column_config.Column(pinned=True),
        "total": st.column_config.NumberColumn(pinned=True, format="%,d"),
    }
    for name, label in classes.items():
        config[name] = st.column_config.NumberColumn(
            shorten(label, LENS_HEADER_CHARS), help=escape(f"rows of {label}"), format="%,d"
        )
    # the default height: as tall as its rows, up to ten (a fixed one drew blank rows)
    show_table(table, column_config=config, key="lens_table")


def smoothing_pressure(work: loading.WorkingData) -> None:
    """Average rows per category N_c / K_f for every (class, feature) pair."""
    st.header("Where smoothing will matter most")
    per_cell, sparse = summaries.rows_per_category(work)
    frame = pd.DataFrame(per_cell, index=work.class_names, columns=work.feature_names)
    fig = cached_figure(
        f"rows-per-category|{work.key}",
        lambda: figures.rows_per_category_heatmap(
            per_cell, work.feature_names, work.class_names, summaries.SPARSE_CELL
        ),
    )
    show_figure(
        fig, frame.reset_index(names=_free_label("class", frame.columns)), "rows-per-category"
    )
    st.markdown(
        f"{sparse} of {per_cell.size} (class, feature) pairs have fewer than "
        f"{summaries.SPARSE_CELL:g} rows per category: there the choice of smoother "
        "(Laplace's fixed pseudo-count against a learned concentration) changes the "
        "estimates most."
    )


def in_memory_view() -> None:
    """The sidebar's dataset: its target choice (an upload), overview, preview and tabs."""
    spec = st.session_state["data_spec"]
    if spec.startswith(state.UPLOAD_PREFIX) and spec in st.session_state["uploads"]:
        with guard("reading the uploaded file"):
            choose_target(spec)
    preprocessing_options()

    dataset = loading.current_dataset(target_above=True)
    work = loading.current_codes(dataset)
    overview(dataset, work)

    # built only while open: a data grid out of sight still made every first visit load and
    # draw it
    preview_section = lazy_expander("Preview: the first 100 rows", PREVIEW_OPEN)
    if preview_section is not None:
        with preview_section:
            preview = pd.concat([dataset.X.head(100), dataset.y.head(100)], axis=1)
            # the grid writes "None" in an empty text cell: a missing value is left blank
            text = preview.select_dtypes(exclude="number").columns
            preview[text] = preview[text].astype(object).where(preview[text].notna(), "")
            # the row numbers' column is named: its header was empty, to a screen reader a
            # column with no name (axe-core's empty-table-header)
            preview = preview.rename_axis("row")
            show_table(preview, hide_index=False, key="preview", height=320)
            st.caption("A blank cell, or None in a column of numbers, is a missing value.")

    # one tab per section; only the open one is built and sent: the three figures of the
    # other sections made every first visit wait for the plotly code (a new browser drew the
    # whole page on iris in 6.45 s, the Features tab alone in 3.63 s); the tab is a page
    # setting, so a link keeps it
    features_tab, classes_tab, lens_tab, hierarchy_tab = st.tabs(
        list(SECTIONS), **state.page_setting("dataset_tab", SECTIONS[0], SECTIONS)
    )
    if features_tab.open:
        with features_tab, guard("summarising the features"):
            show_features(
                summaries.feature_table(dataset, work), summaries.class_entropy(work), dataset.name
            )
    if classes_tab.open:
        with classes_tab:
            left, right = st.columns([1, 2])
            with left, guard("drawing the class balance"):
                class_balance(work)
            with right, guard("drawing the rows per category"):
                smoothing_pressure(work)
    if lens_tab.open:
        with lens_tab, guard("counting one feature"):
            feature_lens(work)
    else:  # a closed tab's setting stays in the session and in a copied link
        state.keep_setting("lens_feature", work.feature_names[0], work.feature_names)
    if hierarchy_tab.open:
        with hierarchy_tab, guard("looking for hierarchies"):
            hierarchies.show_hierarchies(work)
    else:
        state.keep_setting("fd_tolerance", 0.0, hierarchies.TOLERANCES)


# --------------------------------------------------------------------------- page
#: session keys of the expanders whose content is built only while open
ADD_OPEN, PREPROCESSING_OPEN, PREVIEW_OPEN = "add_open", "preprocessing_open", "preview_open"
#: the page's sections below the overview, one tab each
SECTIONS = ("Features", "Classes and sparsity", "One feature under the lens", "Hierarchies")

page_header(
    page_title(__file__),
    "What the classifier will count: the features, their categories and the class-"
    "conditional frequencies every smoother starts from.",
)
choose_dataset()
large = large_files.show_large_file_source()
catalogue.show_catalogue()
if large is None:
    in_memory_view()
else:  # the view's large file: its header and features, counted by DuckDB
    preprocessing_options()
    with guard("describing the large file"):
        large_files.overview(large)

page_footer(__file__, settings=True)
