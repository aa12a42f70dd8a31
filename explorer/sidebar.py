"""The shared sidebar: current dataset (or large file), methods and settings, synced to the URL."""

from __future__ import annotations

import streamlit as st

from explorer.errors import escape, show_info
from explorer.loading import dataset_options
from explorer.state import (
    LARGE_FILE,
    bound,
    init_state,
    set_large_file,
    show_default_dataset_note,
    sync_url,
)
from heb import registry

__all__ = ["sidebar"]


def _paper_seven() -> None:
    """Callback: select the paper's seven smoothers."""
    st.session_state["methods"] = list(registry.TABLE1_METHODS)


def _on_dataset(widget: str) -> None:
    """Callback: the dataset chosen in the sidebar is the view's data (no large file)."""
    st.session_state["data_spec"] = st.session_state[widget]
    set_large_file("")
    st.session_state.pop("large_file_refused", None)  # the refused file's error is done


def _large_file():
    """The view's large file (``?large_file=``, checked inside the data root), or None; a
    refused name's error is shown on the page."""
    state = st.session_state
    if not state.get(LARGE_FILE) and "large_file_refused" not in state:
        return None
    from explorer import large_files  # the engine's code only when a large file is named

    large = large_files.active()
    large_files.show_refusal()
    return large


def _large_file_note(large) -> None:
    """Which large file the Dataset, Concentrations and Compare pages count (in the sidebar)."""
    with st.container(key="large_file_note"):
        st.markdown(
            f"**Large file:** {escape(large.name, limit=80)}  \n"
            "every row counted by DuckDB on the Dataset, Concentrations and Compare pages "
            "(the other pages use the dataset above)."
        )
        st.button(
            "Use the dataset above",
            on_click=set_large_file,
            args=("",),
            key="large_file_off",
            icon=":material/undo:",
        )


def sidebar() -> None:
    """Draw the sidebar (dataset, methods, settings summary, notes), then sync the URL."""
    init_state()
    state = st.session_state
    options = dataset_options()
    large = _large_file()
    if state["data_spec"] not in options:
        options[state["data_spec"]] = state["data_spec"]
    with st.sidebar:
        if large is not None:  # which data the pages show, before the box that names another
            st.caption(
                f"The Dataset, Concentrations and Compare pages show the large file "
                f"{escape(large.name, limit=80)}; the dataset below serves the other pages."
            )
        dataset = bound("data_spec")
        st.selectbox(
            "Dataset",
            list(options),
            format_func=options.get,
            **dataset | {"on_change": _on_dataset, "args": (dataset["key"],)},
            help="Built-in, the paper's catalogue, an OpenML id or an upload "
            "(add the last two on the Dataset page).",
        )
        if large is not None:
            _large_file_note(large)
        show_default_dataset_note()  # a page's plain address in a new session (a new tab)
        st.multiselect(
            "Methods",
            list(registry.METHODS),
            **bound("methods"),
            help="Used by the Compare and Benchmark pages; HEB-AODE also adds its "
            "concentrations to the Concentrations page.",
        )
        st.button(
            "The paper's seven smoothers",
            on_click=_paper_seven,
            key="paper_seven",
            help=", ".join(registry.TABLE1_METHODS),
        )
        rows = "all rows" if not state["max_rows"] else f"at most {state['max_rows']:,} rows"
        if large is not None:
            rows += " (the large file: every row)"
        st.caption(
            f"{state['n_bins']} bins for numbers · missing: {state['missing']} · {rows} "
            "(change on the Dataset page; Compare's folds and bins too)"
        )
    # a link that could not be followed says so above the page, until another dataset is chosen
    for note in state.get("_notes", []):
        show_info(note)
    sync_url()
