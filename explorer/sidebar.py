"""The shared sidebar: current dataset, chosen methods and settings, synced to the URL."""

from __future__ import annotations

import streamlit as st

from explorer.errors import show_info
from explorer.loading import dataset_options
from explorer.state import bound, init_state, sync_url
from heb import registry

__all__ = ["sidebar"]


def _paper_seven() -> None:
    """Callback: select the paper's seven smoothers."""
    st.session_state["methods"] = list(registry.TABLE1_METHODS)


def sidebar() -> None:
    """Draw the sidebar (dataset, methods, settings summary, notes), then sync the URL."""
    init_state()
    state = st.session_state
    options = dataset_options()
    if state["data_spec"] not in options:
        options[state["data_spec"]] = state["data_spec"]
    with st.sidebar:
        st.selectbox(
            "Dataset",
            list(options),
            format_func=options.get,
            **bound("data_spec"),
            help="Built-in, the paper's catalogue, an OpenML id or an upload "
            "(add the last two on the Dataset page).",
        )
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
        st.caption(
            f"{state['n_bins']} bins for numbers · missing: {state['missing']} · {rows} "
            "(change on the Dataset page)"
        )
    # a link that could not be followed says so above the page, until another dataset is chosen
    for note in state.get("_notes", []):
        show_info(note)
    sync_url()
