"""HEB Explorer: the Streamlit entry point.

Run ``python -m streamlit run app.py``. This file only routes: it sets the page layout
(the app's one ``set_page_config``), draws the shared sidebar (dataset, methods;
mirrored in the URL) and runs the chosen page from ``pages/``. Every helper lives in
the :mod:`explorer` package.
"""

from __future__ import annotations

import streamlit as st

from explorer.routing import mark_app_run, navigation_pages
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
mark_app_run()
page.run()
