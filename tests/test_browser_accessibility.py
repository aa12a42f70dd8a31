# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""axe-core's colour-contrast and heading-order rules, in a real browser at 1440 x 900 (the
accessibility review).

Each page's expanders are opened (the commands under them), then axe checks the main
column's text. The benchmark page has a highlighted shell command and captions with inline
code; Explain a highlighted Python block (keywords, strings, numbers, comments). Both were
2.3 to 3.8:1 before explorer.style set a caption's grey as a colour and darker token
colours. tests/test_accessibility_contrast.py checks the same colours without a browser.

A page's sections are h2 under its h1 title: as h3 (st.subheader) they skipped a level,
which heading-order flags. explorer.style gives those h2s the look of Streamlit's h3, the
size the pages were laid out with. tests/test_heading_levels.py checks every page's
outline without a browser.

axe-core comes with the axe-playwright-python package (requirements-dev.txt); without it
these tests skip (fail under CI=true, as every missing peer does: tests/peers.py).
"""

from __future__ import annotations

import pytest

from tests.peers import require_module
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    BASE_QUERY,
    SMALL_VIEWPORT,
    _open,
    app_url,
    assert_no_exception,
    browser,
    playwright,
    wait_idle,
)

pytestmark = pytest.mark.browser


#: the axe-core rules checked on every page here
RULES = ["color-contrast", "heading-order"]


def _violations(tab, main_only: bool = True) -> list[str]:
    """What :data:`RULES` find on the page (the main column's, with ``main_only``)."""
    axe = require_module("axe_playwright_python.sync_playwright", "axe-core runs through it")
    context = {"include": [['[data-testid="stMain"]']]} if main_only else None
    result = axe.Axe().run(
        tab, context=context, options={"runOnly": {"type": "rule", "values": RULES}}
    )
    return [
        f"{violation['id']} {node['html'][:120]}: {node.get('failureSummary', '')[-140:]}"
        for violation in result.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("path", ["benchmark", "explain"])
def test_the_pages_code_and_captions_meet_wcag_contrast(browser, app_url, path):
    require_module("axe_playwright_python", "axe-core runs through it")
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    try:
        tab, _ = _open(context, f"{app_url}/{path}")
        for summary in tab.locator(
            '[data-testid="stMain"] [data-testid="stExpander"] summary'
        ).all():
            summary.click()
        wait_idle(tab)
        assert_no_exception(tab, path)
        assert tab.locator('[data-testid="stMain"] [data-testid="stCode"]').count() > 0, path
        assert _violations(tab) == []
    finally:
        context.close()


#: JavaScript: for the first h2 of the main column, each style property that differs from
#: that of an h3 holding the same text in the same place (Streamlit's own h3 look)
H2_UNLIKE_H3 = """
() => {
  const h2 = document.querySelector('[data-testid="stMain"] h2');
  const h3 = document.createElement('h3');
  h3.innerHTML = h2.innerHTML;
  h2.after(h3);
  const keys = ['fontSize', 'fontWeight', 'lineHeight', 'letterSpacing', 'fontFamily',
    'color', 'paddingTop', 'paddingBottom', 'marginTop', 'marginBottom'];
  const a = getComputedStyle(h2), b = getComputedStyle(h3);
  const unlike = keys.filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k]} (h3 ${b[k]})`);
  const heights = [h2.getBoundingClientRect().height, h3.getBoundingClientRect().height];
  h3.remove();
  return {unlike, heights};
}
"""


@pytest.mark.parametrize("view", ["compare?compare_tab=Per+class&", "references?"])
def test_the_pages_sections_are_h2_with_the_look_of_an_h3(browser, app_url, view):
    """Compare's sections are ``st.header``, the References page's markdown ``## ``."""
    require_module("axe_playwright_python", "axe-core runs through it")
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    try:
        tab, _ = _open(context, f"{app_url}/{view}{BASE_QUERY}")
        wait_idle(tab)
        assert_no_exception(tab, view)
        sections = tab.locator('[data-testid="stMain"] h2')
        assert sections.count() == 2, view
        assert tab.locator('[data-testid="stMain"] h3').count() == 0, view
        shown = tab.evaluate(H2_UNLIKE_H3)
        assert shown["unlike"] == [], view
        assert shown["heights"][0] == shown["heights"][1], view
        assert _violations(tab, main_only=False) == []  # the whole page, sidebar too
    finally:
        context.close()
