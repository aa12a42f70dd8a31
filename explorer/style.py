"""The app's look: projector-friendly CSS and the page header."""

from __future__ import annotations

import streamlit as st

__all__ = ["apply_style", "page_header"]

_STYLE = """
<style>
/* Readable from the back of a classroom: larger tables, metrics and tabs. */
[data-testid="stMainBlockContainer"] { padding-top: 2.2rem; max-width: 1500px; }
[data-testid="stMetricValue"] { font-size: 2rem; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
button[data-baseweb="tab"] p { font-size: 1.05rem; }
[data-testid="stSidebar"] [data-testid="stMarkdownContainer"] p { font-size: 0.98rem; }
</style>
"""


def apply_style() -> None:
    """Projector-friendly CSS (larger metric values, captions and tabs)."""
    st.html(_STYLE)


def page_header(title: str, lead: str) -> None:
    """A page title and one sentence (the app's own text) saying what the page is for."""
    st.title(title)
    st.markdown(lead)
