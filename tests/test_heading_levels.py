"""Every page's headings go down one level at a time, under AppTest (no browser).

A page has one h1 (its title) and its sections are h2 (``st.header``, a markdown ``## ``):
a section made with ``st.subheader`` (h3) straight under the title skipped h2, which
axe-core's heading-order rule flags (a screen reader's outline jumps a level; WCAG 1.3.1).
tests/test_browser_accessibility.py runs that rule itself in a browser.
"""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from streamlit.testing.v1 import AppTest

from explorer.state import DEFAULT_METHODS
from heb.scale import DATA_ROOT_ENV, write_clicks
from tests.test_app import PAGE_FILES, assert_clean, open_app

#: a markdown heading line ("## The works"); a "#" inside a code block is not one
_MARKDOWN_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")
#: an HTML heading in an ``st.html`` element
_HTML_HEADING = re.compile(r"<h([1-6])\b", re.IGNORECASE)


def _markdown_levels(text: str) -> list[int]:
    """The levels of the headings in one markdown text, fenced code left out."""
    levels, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := _MARKDOWN_HEADING.match(line)):
            levels.append(len(match.group(1)))
    return levels


def _outline(node) -> list[tuple[int, str]]:
    """(level, text) of every heading under ``node``, in the order the page draws them."""
    children = getattr(node, "children", None)
    if children is not None:  # a block: its children in their order on the page
        return [h for index in sorted(children) for h in _outline(children[index])]
    kind = getattr(node, "type", "")
    if kind in ("title", "header", "subheader"):
        return [(int(node.proto.tag[1]), node.value)]
    if kind == "markdown":
        return [(level, node.value[:60]) for level in _markdown_levels(node.value)]
    if kind == "html":
        return [(int(level), "html") for level in _HTML_HEADING.findall(node.proto.body)]
    return []


def skipped_levels(at: AppTest) -> list[str]:
    """Where the page's outline (sidebar, then main column, as in the page's HTML) breaks
    the heading-order rule: not one h1 first, or a heading more than one level below the
    one before it."""
    outline = _outline(at.sidebar) + _outline(at.main)
    problems = []
    if [level for level, _ in outline].count(1) != 1 or outline[0][0] != 1:
        problems.append(f"not one h1 first: {outline}")
    for (before, _), (level, text) in pairwise(outline):
        if level > before + 1:
            problems.append(f"h{before} -> h{level} {text!r}")
    return problems


def test_the_outline_check_sees_a_skipped_level():
    """The check itself: an h3 under the h1 is reported, an h2 between them is not."""
    skipped = AppTest.from_string(
        "import streamlit as st\nst.title('T')\nst.subheader('S')\nst.markdown('#### M')"
    ).run()
    assert skipped_levels(skipped) == ["h1 -> h3 'S'"]
    kept = AppTest.from_string(
        "import streamlit as st\nst.title('T')\nwith st.container():\n    st.header('S')\n"
        "st.markdown('## A\\n\\ntext\\n\\n### B\\n\\n```\\n# not a heading\\n```')"
    ).run()
    assert skipped_levels(kept) == []
    assert [level for level, _ in _outline(kept.main)] == [1, 2, 2, 3]


#: the views with sections (others have their title only): (page, its settings)
SECTION_VIEWS = [
    ("pages/dataset.py", {"dataset_tab": "Classes and sparsity"}),
    ("pages/dataset.py", {"dataset_tab": "Hierarchies"}),
    ("pages/compare.py", {"compare_tab": "Per class"}),
]


def test_every_page_s_headings_go_down_one_level_at_a_time():
    """All pages in one session (each page with its default tab), then the tabs that hold
    further sections; the presenter mode's title sits in a row with the step bar."""
    problems = {}
    at = open_app(dataset="builtin:iris", methods="Laplace,HEB-M", folds="5")
    for page in PAGE_FILES:
        at.switch_page(page).run()
        assert_clean(at)
        problems[page] = skipped_levels(at)
    for page, settings in SECTION_VIEWS:
        at.switch_page(page).run()
        for name, value in settings.items():
            at.session_state[name] = value
        at.run()
        assert_clean(at)
        assert len(_outline(at.main)) > 1, (page, settings)  # the view drew its sections
        problems[f"{page} {settings}"] = skipped_levels(at)
    presenting = open_app(present="1", dataset="builtin:iris", methods="Laplace,HEB-M")
    for page in ("pages/compare.py", "pages/lesson_zero_counts.py"):
        presenting.switch_page(page).run()
        assert_clean(presenting)
        problems[f"{page} presenting"] = skipped_levels(presenting)
    assert {view: found for view, found in problems.items() if found} == {}


@pytest.fixture
def large_root(tmp_path, monkeypatch):
    write_clicks(tmp_path / "small.parquet", 2_000, seed=2, n_features=3)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def test_a_large_file_s_pages_keep_the_heading_order(large_root):
    """The large-file views draw their own sections (features, the compare table, per
    class from the scan's sums)."""
    at = open_app("pages/dataset.py", large_file="small.parquet")
    assert skipped_levels(at) == []
    assert "Features" in [text for level, text in _outline(at.main) if level == 2]
    methods = ",".join(DEFAULT_METHODS)
    at = open_app("pages/compare.py", clean=False, large_file="small.parquet", methods=methods)
    assert_clean(at)
    at.button(key="large_go").click().run()
    at.session_state["large_compare_tab"] = "Per class"
    at.run()
    assert_clean(at)
    assert skipped_levels(at) == []
    shown = [text for level, text in _outline(at.main) if level == 2]
    assert "Per class: confusion, precision / recall, reliability" in shown, shown
