"""The app's pages and the route every request takes through ``app.py``.

``app.py`` routes with ``st.navigation``. Streamlit, however, starts an app whose entry
script sits next to a ``pages/`` folder in its legacy multipage mode, which lasts until
the first ``st.navigation`` call of the server process: on a fresh server, the first
visit to a page's own URL (``/compare``) runs ``pages/compare.py`` alone, without
``app.py`` (no sidebar, no shared state). :func:`ensure_entry_point`, called at the top
of every page, notices that ``app.py`` did not run, calls ``st.navigation`` (the public
call that ends the legacy mode) and reruns, so the same URL then goes through ``app.py``.
No Streamlit internal is touched.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = ["SECTIONS", "ensure_entry_point", "mark_app_run", "navigation_pages"]

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"
#: URL of the Dataset page; it is also the default page served at the root URL
DATASET_URL = "dataset"
#: (file, title, icon) of each page, by navigation section; the first is the default page
SECTIONS = {
    "Explore": [
        ("dataset.py", "Dataset", ":material/table_chart:"),
        ("concentrations.py", "Concentrations", ":material/grid_on:"),
        ("compare.py", "Compare", ":material/compare_arrows:"),
        ("benchmark.py", "Benchmark", ":material/leaderboard:"),
    ],
    "Lessons": [
        ("lesson_zero_counts.py", "Zero counts", ":material/exposure_zero:"),
        ("lesson_dirichlet.py", "The Dirichlet prior", ":material/tune:"),
        ("lesson_evidence.py", "The evidence curve", ":material/show_chart:"),
        ("lesson_high_cardinality.py", "High cardinality", ":material/view_comfy:"),
        ("lesson_calibration.py", "Calibration", ":material/straighten:"),
        ("lesson_known_truth.py", "Known truth", ":material/verified:"),
    ],
}
_APP_RAN = "_explorer_app_ran"
_REROUTED = "_explorer_rerouted"


def navigation_pages() -> dict[str, list]:
    """The ``st.Page`` objects of every page, by section.

    The Dataset page is the default (served at ``/``); a hidden twin of it answers its
    own address ``/dataset``, which a default page cannot hold in Streamlit. Every other
    page keeps the address Streamlit infers from its file name (``/compare``), the same
    one the legacy mode uses, so a direct visit lands on the same page either way.
    """
    navigation: dict[str, list] = {}
    for section, entries in SECTIONS.items():
        navigation[section] = [
            st.Page(
                PAGES_DIR / name,
                title=title,
                icon=icon,
                default=index == 0 and section == "Explore",
                url_path=f"{DATASET_URL}-home" if name == "dataset.py" else None,
            )
            for index, (name, title, icon) in enumerate(entries)
        ]
    dataset_file, dataset_title, dataset_icon = SECTIONS["Explore"][0]
    navigation["Explore"].append(
        st.Page(
            PAGES_DIR / dataset_file,
            title=dataset_title,
            icon=dataset_icon,
            url_path=DATASET_URL,
            visibility="hidden",
        )
    )
    return navigation


def mark_app_run() -> None:
    """Record that ``app.py`` runs this script run (call just before ``page.run()``)."""
    st.session_state.pop(_REROUTED, None)
    st.session_state[_APP_RAN] = True


def ensure_entry_point() -> None:
    """Rerun through ``app.py`` when Streamlit ran this page file on its own.

    Call first thing in every page. A page run by ``app.py`` returns at once. A page run
    alone (Streamlit's legacy ``pages/`` mode on a fresh server) calls ``st.navigation``,
    which ends that mode for the whole server, and reruns; if ``app.py`` still does not
    run (``streamlit run pages/x.py``), the page carries on alone.
    """
    state = st.session_state
    if state.pop(_APP_RAN, False) or state.pop(_REROUTED, False):
        return
    state[_REROUTED] = True
    st.navigation(navigation_pages(), position="hidden")
    st.rerun()
