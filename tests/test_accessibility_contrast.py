"""Accessibility review (a projector, a screen magnifier): text colours that Streamlit or
plotly choose on the app's behalf, checked without a browser (WCAG 2.x: 4.5:1 for body
text).

- A caption's inline code: Streamlit fades a caption with ``opacity: 0.6``, which faded its
  code (the commands and names a reader copies) to 3.0:1; the app's CSS gives the caption
  its grey as a colour instead.
- A code block's highlighting: Streamlit's token colours are 2.3 to 3.8:1 on the block's
  background; the app's CSS sets each token class Streamlit colours to a darker one.
- A confusion matrix's counts: plotly picked white or dark grey by the cell's brightness,
  2.9:1 on a middle blue; the figure now picks black or white by contrast.
- The hierarchy lesson's tree: plotly's white labels on the path's purple were 4.4:1.

tests/test_browser_accessibility.py runs axe-core on the pages themselves.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from plotly.colors import sample_colorscale

from explorer.style import _STYLE
from heb.figures import diagnostics as dg
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


def test_a_confusion_matrix_count_stands_out_from_its_cell():
    """Shares from 0 to 1 in steps of 1/40 (a middle blue among them): every count has
    4.5:1 against its cell's colour on the heatmap's own scale."""
    rows = 40
    matrix = np.array([[k, rows - k] for k in range(rows + 1)])
    names = [f"c{i}" for i in range(2)]
    low = []
    for pair in matrix:
        fig = dg.confusion_figure(np.array([pair, pair[::-1]]), names, "C")
        counts = [trace for trace in fig.data if getattr(trace, "mode", None) == "text"]
        assert len(counts) == 1, "the counts are no text trace over the heatmap"
        heat = fig.data[0]
        fills = sample_colorscale(
            [list(step) for step in heat.colorscale],
            np.asarray(heat.z, dtype=float).ravel().tolist(),
        )
        inks = counts[0].textfont.color
        for fill, ink, text in zip(fills, inks, counts[0].text, strict=True):
            if contrast(ink, fill) < BODY:
                low.append((text, fill, ink, round(contrast(ink, fill), 2)))
    assert not low, low


def test_confusion_counts_keep_their_thousands_separator_and_leave_the_hover_alone():
    matrix = np.array([[4261, 12], [7, 1503]])
    fig = dg.confusion_figure(matrix, ["no", "yes"], "Confusion")
    heat, counts = fig.data
    assert list(counts.text) == ["4,261", "12", "7", "1,503"]
    assert counts.hoverinfo == "skip" and counts.showlegend is False
    assert "rows %{customdata:,d}" in heat.hovertemplate


def test_a_large_confusion_matrix_draws_no_counts():
    fig = dg.confusion_figure(np.ones((13, 13), dtype=int), [f"c{i}" for i in range(13)], "C")
    assert len(fig.data) == 1


def _over_white(colour: str, opacity: float) -> str:
    channels = [int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]
    return "#" + "".join(f"{round(c * opacity + 255 * (1 - opacity)):02x}" for c in channels)


def test_the_hierarchy_trees_labels_stand_out_from_their_wedges():
    from heb.figures.lessons.hierarchy import tree_figure
    from heb.lessons.hierarchy import hierarchy_lesson

    fig, _ = tree_figure(hierarchy_lesson(n_per_class=200, scenario="hierarchy", seed=0))
    tree = fig.data[0]
    fills, inks = tree.marker.colors, tree.insidetextfont.color
    assert inks is not None and len(inks) == len(fills), "the labels take plotly's own colour"
    # a leaf (a wedge with no child: a code) is drawn at the leaf opacity over white paper
    opacity = tree.leaf.opacity if tree.leaf.opacity is not None else 0.7
    parents = set(tree.parents)
    drawn = [
        fill if name in parents else _over_white(fill, opacity)
        for name, fill in zip(tree.ids, fills, strict=True)
    ]
    low = {
        (fill, ink, round(contrast(ink, fill), 2)) for fill, ink in zip(drawn, inks, strict=True)
    }
    low = {item for item in low if item[2] < BODY}
    assert not low, low


@pytest.mark.parametrize("colour", ["#707070", "#000000"])
def test_the_parser_reads_a_colour(colour):
    assert _colour(f" opacity: 1; color: {colour}; ") == colour
    assert _colour(f"background-color: {colour}") is None
