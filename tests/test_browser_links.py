# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""Every page's "Copy link" address reproduces its view, in a real browser at 1440 x 900.

Per page of the menu: open it, move one of its controls (a tab, a slider step, a
stepper, the benchmark's Run), copy the link the footer offers, open that link in a new
browser context (no session, no shared tab state) and wait until it shows the same
metrics and the same data in every figure. How long each page takes to draw, against a
hello-world floor, is measured by ``benchmarks/page_speed.py``, not here.

The server, the browser and the helpers come from :mod:`tests.test_browser`; this file is
its own so that pytest-xdist (``--dist loadfile``) can run it beside that one.
"""

from __future__ import annotations

import pytest

from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    BASE_QUERY,
    CONTROLS,
    DRAWN,
    SMALL_VIEWPORT,
    _link,
    _open,
    _shown,
    _wait_for_view,
    app_url,
    assert_no_exception,
    browser,
    playwright,
    timed,
    wait_idle,
)

pytestmark = pytest.mark.browser


def _run_benchmark(tab) -> None:
    """Press the benchmark page's Run and wait for its results."""
    timed(tab, tab.get_by_role("button", name="Run the benchmark").click, timeout=300)


@pytest.mark.parametrize(
    "path, actions", [(p, a) for p, _, a in CONTROLS], ids=[p for p, _, _ in CONTROLS]
)
def test_the_page_link_reproduces_the_view(browser, app_url, path, actions):
    context = browser.new_context(
        viewport=SMALL_VIEWPORT, permissions=["clipboard-read", "clipboard-write"]
    )
    tab, _ = _open(context, f"{app_url}/{path}?{BASE_QUERY}")
    assert_no_exception(tab, path)
    if path == "benchmark":
        _run_benchmark(tab)
    elif actions is not None:
        there, _ = actions(tab)
        timed(tab, there)  # the control changed: the link must carry it
    assert_no_exception(tab, f"{path} after its control")
    shown = _shown(tab)
    link = _link(tab)
    assert link.startswith(app_url), link
    fresh_context = browser.new_context(viewport=SMALL_VIEWPORT)
    fresh, _ = _open(fresh_context, link)
    if path == "benchmark":
        _run_benchmark(fresh)
    if _wait_for_view(fresh, shown) != shown:
        # a loaded machine can drop a fresh tab's websocket mid-draw: open the link
        # once more before judging (the same address must give the same numbers)
        fresh.reload(wait_until="commit")
        fresh.wait_for_function(DRAWN, timeout=300_000)
        wait_idle(fresh, timeout=300)
        if path == "benchmark":
            _run_benchmark(fresh)
    assert _wait_for_view(fresh, shown) == shown, (path, link)
    fresh_context.close()
    context.close()


#: (lesson, its query, its next page's link, the next page) for the Back test: known truth
#: to the hierarchy raced (the next page's settings reached the last page's address)
BACK_CASES = {
    "presenting": ("lesson_calibration", "present=1&step=3", "Next: Known truth", "known_truth"),
    "not presenting": ("lesson_calibration", "calib_copies=3", "Next: Known truth", "known_truth"),
    "raced": (
        "lesson_known_truth",
        "present=1&step=3",
        "Next: Borrowing along a hierarchy",
        "hierarchy",
    ),
}


@pytest.mark.parametrize("case", list(BACK_CASES))
def test_one_back_returns_from_a_next_link_to_the_page_and_step_it_left(browser, app_url, case):
    """A page link pushed the page's bare address and the page's run pushed it again with
    its settings: Back after "Next: Known truth" stayed on Known truth once. And the next
    page's settings could reach the last page's address first (known truth to the
    hierarchy, four tries in six): Back then opened known truth at step 1."""
    path, query, label, following = BACK_CASES[case]
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    for _ in range(2 if case == "raced" else 1):  # it raced four times in six
        tab, _ = _open(context, f"{app_url}/{path}?{BASE_QUERY}&{query}")
        timed(tab, tab.get_by_text(label).first.click)
        tab.wait_for_url(f"**/lesson_{following}?*")
        wait_idle(tab)
        tab.go_back()
        tab.wait_for_url(f"**/{path}?*")
        wait_idle(tab)
        assert query.split("&")[-1] in tab.url, tab.url
        if "present=1" in query:
            tab.get_by_text("Step 3 of").first.wait_for()
        tab.close()
    context.close()
