"""Messages shown to the user: every user-supplied string escaped, errors without tracebacks.

Streamlit renders the text of ``st.error``, ``st.info``, ``st.markdown`` and friends as
markdown (links, images, colour directives, LaTeX, bare URLs). A dataset name, a column
name, a category value, a file name or a URL value inside such a text could therefore
draw a live link or make the visitor's browser fetch a remote image. :func:`escape`
makes any string render as the literal text it is; every message built from user input
goes through it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from heb.text import shorten

__all__ = ["Interrupted", "escape", "guard", "show_error", "show_info", "show_warning"]

#: ASCII punctuation: CommonMark lets a backslash escape every one of these
_PUNCTUATION = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
#: the most characters of one user-supplied value shown in a message
MAX_MESSAGE_CHARS = 500
#: where GFM's autolink literals start (``http://``, ``https://``, ``www.``, ``name@host``):
#: Streamlit's markdown finds them in the text *after* backslash escapes are resolved, so
#: ``https\\://e.com`` still became a live link; an invisible word joiner breaks each one
_AUTOLINK_START = re.compile(r"(?:(?<=https:)|(?<=http:)|(?<=www)(?=\.)|(?<=@))", re.IGNORECASE)
#: U+2060 WORD JOINER: no width, no line break, not a letter, digit or URL character
WORD_JOINER = "\u2060"


def escape(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` as markdown that renders as exactly that text (capped to ``limit`` characters).

    Every ASCII punctuation character gets a backslash, which CommonMark renders as the
    character itself: no link, image, emphasis, heading, HTML tag, ``:colour[...]``
    directive or ``$`` maths can form. A bare URL or e-mail address (``https://e.com``,
    ``www.e.com``, ``a@e.com``) gets an invisible word joiner after its ``https:``,
    ``www`` or ``@``: GFM links those in the text after escapes are resolved.
    Line breaks become spaces, so a value cannot start a block of its own.
    """
    value = shorten(str(text), limit)
    value = re.sub(r"[\r\n\t\v\f]+", " ", value)
    value = _AUTOLINK_START.sub(WORD_JOINER, value)
    return _PUNCTUATION.sub(r"\\\1", value)


class Interrupted(Exception):
    """Work stopped on purpose, not a failure: shown as a notice of its own sentence."""


def show_error(exc: BaseException, action: str = "working") -> None:
    """A friendly, escaped message for ``exc``.

    A data or value error is shown as its own sentence; anything else as a generic
    sentence naming ``action``, with the exception's type and text in a details box.
    """
    from heb.data import DataError

    if isinstance(exc, Interrupted):
        st.info(escape(exc), icon=":material/pause_circle:")
        return
    if isinstance(exc, DataError | ValueError) and str(exc):
        st.error(escape(exc), icon=":material/error:")
        return
    # the visitor sees one sentence; whoever runs the server gets the traceback in its log
    logging.getLogger(__name__).error("Unexpected error while %s", action, exc_info=exc)
    st.error(
        f"Something went wrong while {action}. Try another dataset or setting; "
        "the details below help when reporting it.",
        icon=":material/error:",
    )
    with st.expander("Details"):
        st.code(f"{type(exc).__name__}: {str(exc)[:MAX_MESSAGE_CHARS]}", language=None)


def show_info(text: object) -> None:
    """An info box holding ``text`` as plain, escaped text."""
    st.info(escape(text), icon=":material/info:")


def show_warning(text: object) -> None:
    """A warning box holding ``text`` as plain, escaped text."""
    st.warning(escape(text), icon=":material/warning:")


@contextmanager
def guard(action: str) -> Iterator[None]:
    """Show any error raised inside the block as a friendly message and carry on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - st.stop / st.rerun are BaseExceptions
        show_error(exc, action)
