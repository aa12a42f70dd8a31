"""Accessibility review (a projector, a screen magnifier): text colours that Streamlit or
plotly choose on the app's behalf, checked without a browser (WCAG 2.x: 4.5:1 for body
text).

- A caption's inline code: Streamlit fades a caption with ``opacity: 0.6``, which faded its
  code (the commands and names a reader copies) to 3.0:1; the app's CSS gives the caption
  its grey as a colour instead.
- A code block's highlighting: Streamlit's token colours are 2.3 to 3.8:1 on the block's
  background; the app's CSS sets each token class Streamlit colours to a darker one.

tests/test_browser_accessibility.py runs axe-core on the pages themselves.
"""

from __future__ import annotations

import re

import pytest

from explorer.style import _STYLE
from tests.test_trial_v import BODY, contrast

#: a code block's background in the app's light theme (measured in the browser)
CODE_BACKGROUND = "#fcfcfb"
#: the token classes Streamlit 1.67's code highlighter colours (StreamlitSyntaxHighlighter)
STREAMLIT_TOKENS = (
    "comment", "punctuation", "variable", "property", "attr-name", "boolean", "constant",
    "symbol", "number", "regex", "string", "char", "attr-value", "operator", "entity",
    "decorator", "atrule", "keyword", "tag", "function", "class-name", "selector",
    "important",
)  # fmt: skip


def _rules(css: str) -> list[tuple[str, str]]:
    """(selector, declarations) of every rule of ``css`` outside an at-rule's block."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [(sel.strip(), body) for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


def _colour(body: str) -> str | None:
    found = re.search(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{3,6})", body)
    return found.group(1) if found else None


def test_every_highlighted_token_class_has_a_readable_colour():
    colours: dict[str, str] = {}
    for selector, body in _rules(_STYLE):
        colour = _colour(body)
        for part in selector.split(","):
            found = re.search(r'\[data-testid="stCode"\].*\.token\.([\w-]+)\s*$', part.strip())
            if found and colour:
                colours[found.group(1)] = colour
    missing = [token for token in STREAMLIT_TOKENS if token not in colours]
    assert not missing, f"token classes left in Streamlit's faint colours: {missing}"
    faint = {
        token: round(contrast(colour, CODE_BACKGROUND), 2)
        for token, colour in colours.items()
        if contrast(colour, CODE_BACKGROUND) < BODY
    }
    assert not faint, faint


def test_a_caption_is_grey_by_colour_not_by_opacity():
    """Opacity fades everything in the caption (its code too); a colour fades its text only."""
    caption = [
        body
        for selector, body in _rules(_STYLE)
        if selector == '[data-testid="stCaptionContainer"]' and "opacity" in body
    ]
    assert caption, "no caption rule undoes Streamlit's opacity: 0.6"
    body = caption[-1]
    assert re.search(r"opacity:\s*1\b", body), body
    colour = _colour(body)
    assert colour is not None and contrast(colour) >= BODY, body


@pytest.mark.parametrize("colour", ["#707070", "#000000"])
def test_the_parser_reads_a_colour(colour):
    assert _colour(f" opacity: 1; color: {colour}; ") == colour
    assert _colour(f"background-color: {colour}") is None
