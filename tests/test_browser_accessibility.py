# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""axe-core's colour-contrast rule on the pages whose text Streamlit colours for us, in a
real browser at 1440 x 900 (the accessibility review).

Each page's expanders are opened (the commands under them), then axe checks the main
column's text. The benchmark page has a highlighted shell command and captions with inline
code; Explain a highlighted Python block (keywords, strings, numbers, comments). Both were
2.3 to 3.8:1 before explorer.style set a caption's grey as a colour and darker token
colours. tests/test_accessibility_contrast.py checks the same colours without a browser.

axe-core comes with the axe-playwright-python package (requirements-dev.txt); without it
these tests skip (fail under CI=true, as every missing peer does: tests/peers.py).
"""

from __future__ import annotations

import pytest

from tests.peers import require_module
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    SMALL_VIEWPORT,
    _open,
    app_url,
    assert_no_exception,
    browser,
    playwright,
    wait_idle,
)

pytestmark = pytest.mark.browser


def _contrast_violations(tab) -> list[str]:
    axe = require_module(
        "axe_playwright_python.sync_playwright", "axe-core's contrast rule runs through it"
    )
    result = axe.Axe().run(
        tab,
        context={"include": [['[data-testid="stMain"]']]},
        options={"runOnly": {"type": "rule", "values": ["color-contrast"]}},
    )
    return [
        f"{node['html'][:120]}: {node.get('failureSummary', '')[-140:]}"
        for violation in result.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("path", ["benchmark", "explain"])
def test_the_pages_code_and_captions_meet_wcag_contrast(browser, app_url, path):
    require_module("axe_playwright_python", "axe-core's contrast rule runs through it")
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
        assert _contrast_violations(tab) == []
    finally:
        context.close()
