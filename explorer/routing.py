"""The app's pages, the shell drawn around each of them, and the route through it.

``app.py`` calls :func:`app_shell` (page config, style, ``st.navigation``, the shared
sidebar) and runs the page it returns. Streamlit, however, starts an app whose entry
script sits next to a ``pages/`` folder in its legacy multipage mode, which lasts until
the first ``st.navigation`` call of the server process: on a fresh server, the first
visit to a page's own URL (``/compare``) runs ``pages/compare.py`` alone, without
``app.py``. :func:`ensure_entry_point`, called at the top of every page, notices that and
draws the same shell itself; its ``st.navigation`` call (public API) ends the legacy mode
for every later run. No Streamlit internal is touched, and nothing is rerun, so a click
that started the run is never lost.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = ["SECTIONS", "app_shell", "ensure_entry_point", "navigation_pages"]

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
_SHELL_DRAWN = "_explorer_shell_drawn"


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


def app_shell():
    """Draw what every page shares and return the page to run.

    The app's one ``set_page_config``, the projector style, the navigation menu and the
    shared sidebar (which also syncs the URL). Called once per script run: by ``app.py``,
    or by :func:`ensure_entry_point` when Streamlit ran a page file without ``app.py``.
    """
    from explorer.sidebar import sidebar
    from explorer.style import apply_style

    st.set_page_config(
        page_title="HEB Explorer",
        page_icon=":material/insights:",
        layout="wide",
        initial_sidebar_state="expanded",
        menu_items={"About": "HEB Explorer: learned smoothing for categorical Naive Bayes."},
    )
    apply_style()
    page = st.navigation(navigation_pages())
    sidebar()
    st.session_state[_SHELL_DRAWN] = True
    return page


def ensure_entry_point() -> None:
    """Draw the app's shell when Streamlit ran this page file without ``app.py``.

    Call first thing in every page. After ``app.py`` it does nothing; in Streamlit's
    legacy ``pages/`` mode (the first visit of a fresh server to a page's own URL) or
    under ``streamlit run pages/x.py`` it draws the menu, style and sidebar itself and
    lets the page carry on in the same run.
    """
    if st.session_state.pop(_SHELL_DRAWN, False):
        return
    app_shell()
    st.session_state.pop(_SHELL_DRAWN, None)
