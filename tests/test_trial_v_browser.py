# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""Trial V in a real browser: a keyboard-only reader (with a screen magnifier) tabs through
the menu and the footer, and must see where the focus is.

The server, the browser and the helpers come from :mod:`tests.test_browser` (which skips
without Chromium or Playwright); this file is its own so that pytest-xdist
(``--dist loadfile``) can run it beside that one.
"""

from __future__ import annotations

import pytest

from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    _open,
    app_url,
    browser,
    playwright,
)
from tests.test_trial_v import LARGE, contrast

pytestmark = pytest.mark.browser

#: the focused element's outline (style, width in px, colour) and background
FOCUS_STYLE = """() => {
  const e = document.activeElement, s = getComputedStyle(e);
  return {testid: e.getAttribute('data-testid'), text: e.innerText,
          style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor};
}"""


def _tab_to(tab, testid: str, text: str, presses: int = 80) -> dict:
    """Press Tab until an element with ``testid`` whose text holds ``text`` has focus."""
    for _ in range(presses):
        tab.keyboard.press("Tab")
        focused = tab.evaluate(FOCUS_STYLE)
        if focused["testid"] == testid and text in (focused["text"] or ""):
            return focused
    raise AssertionError(f"Tab never reached {testid} {text!r} in {presses} presses")


def test_a_focused_page_link_has_a_visible_ring(browser, app_url):
    """Streamlit marks a focused page link with a 15 % grey background alone; our style
    draws a ring of at least 2 px and 3:1 against the white page (WCAG 2.4.7, 1.4.11)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab, _ = _open(context, f"{app_url}/dataset")
        tab.evaluate("document.activeElement && document.activeElement.blur()")
        for where, text in (("menu", "Concentrations"), ("footer", "Next: Concentrations")):
            focused = _tab_to(tab, "stPageLink-NavLink", text, presses=200)
            assert focused["style"] not in {"none", "hidden"}, (where, focused)
            assert focused["width"] >= 2, (where, focused)
            rgb = focused["color"]
            assert contrast(rgb) >= LARGE, (where, focused)
    finally:
        context.close()
