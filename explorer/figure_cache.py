"""Figures built once per process and shared by every session that shows the same view.

Building a plotly figure (validation, styling) costs a tenth of a second or more; a page
that rebuilt its figures on every rerun paid it on each toggle and each new visitor. A
figure here is keyed by an explicit string (the working data's key plus whatever else
decides the figure), never by Streamlit's hashing of its inputs.

A cached figure is shared: nothing may change it after it is built. :func:`show_figure`
styles it once under a lock and the exports draw a copy (``with_footer``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

__all__ = ["cached_figure"]


@st.cache_resource(max_entries=96, show_spinner=False)
def _built(key: str, _build: Callable[[], Any]) -> Any:
    return _build()


def cached_figure(key: str | None, build: Callable[[], Any]) -> Any:
    """The figure ``build()`` returns, built once per ``key`` (every time when ``key`` is None).

    Parameters
    ----------
    key : str or None
        Everything that decides the figure: the data's key, the figure's name and its
        settings. None when the figure depends on state not in a key (then it is not kept).
    build : callable
        Returns the figure; any change to it (axes, titles) happens inside ``build``.
    """
    if key is None:
        return build()
    return _built(key, build)
