"""HEB Explorer: the Streamlit entry point.

Run ``python -m streamlit run app.py``. This file only routes: it sets the page layout,
draws the shared sidebar (dataset, methods; mirrored in the URL) and runs the chosen
page from ``pages/``. Lesson pages that are not written yet are left out of the menu.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages import common

PAGES_DIR = Path(__file__).resolve().parent / "pages"

#: (file, title, icon) of each page, by navigation section
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


def build_navigation() -> dict[str, list]:
    """The st.Page objects of every page file present, by section."""
    navigation = {}
    for section, entries in SECTIONS.items():
        pages = [
            st.Page(f"pages/{name}", title=title, icon=icon, default=(name == "dataset.py"))
            for name, title, icon in entries
            if (PAGES_DIR / name).exists()
        ]
        if pages:
            navigation[section] = pages
    return navigation


st.set_page_config(
    page_title="HEB Explorer",
    page_icon=":material/insights:",
    layout="wide",
    initial_sidebar_state="expanded",
    menu_items={"About": "HEB Explorer: learned smoothing for categorical Naive Bayes."},
)
common.apply_style()
page = st.navigation(build_navigation())
common.sidebar()
page.run()
