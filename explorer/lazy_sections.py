"""Expanders whose content is built only while they are open.

Streamlit sends and draws a closed expander's content all the same: an uploader, a
data grid or a code box out of sight still made every first visit load and draw its
code. :func:`lazy_expander` keys the expander, reruns the script when it is opened or
closed, and hands its container over only while it is open.
"""

from __future__ import annotations

import streamlit as st

__all__ = ["lazy_expander"]


def lazy_expander(label: str, key: str, **kwargs):
    """An expander that is built only while open: its container, or None while closed.

    Parameters
    ----------
    label : str
        The expander's label (markdown; escape any user text in it). Keep it fixed:
        Streamlit counts the label in the expander's identity, so a label that changes
        (say, naming the settings inside) closes the box at every change.
    key : str
        Its session key (True while open), unique on the page.
    **kwargs
        Go to :func:`streamlit.expander` (``icon``, ``expanded``...).
    """
    section = st.expander(label, key=key, on_change="rerun", **kwargs)
    return section if section.open else None
