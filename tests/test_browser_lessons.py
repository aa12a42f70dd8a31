# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""The lessons in a real browser at 1440 x 900: every presenter step fits the screen under
a visible, unclipped focus frame; each lesson's timings (first draw, a control there and
back, the server's script CPU seconds) are printed with the load average, never asserted.

The server, the browser and the helpers come from :mod:`tests.test_browser`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from explorer.presenter import STEP_BAR_KEY
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    BASE_QUERY,
    CONTROLS,
    FIGURES_DRAWN,
    SMALL_VIEWPORT,
    _open,
    app_url,
    browser,
    playwright,
    screenshot,
    screenshot_dir,
    timed,
    wait_idle,
)
from tests.test_presenter import LESSON_STEPS

pytestmark = pytest.mark.browser

#: JavaScript: the lowest pixel of the lesson's own content (above the footer's divider)
CONTENT_BOTTOM = """
() => {
  const hr = document.querySelector('[data-testid="stMain"] hr');
  const limit = hr.getBoundingClientRect().top;
  const boxes = [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stElementContainer"]')]
    .map((el) => el.getBoundingClientRect())
    .filter((box) => box.height > 0 && box.bottom <= limit);
  return Math.max(...boxes.map((box) => box.bottom)) + window.scrollY;
}
"""
#: JavaScript: the focus frame's box, border, and whether an ancestor clips it
FRAME = f"""
() => {{
  const bar = document.querySelector('.st-key-{STEP_BAR_KEY}');
  const box = bar.getBoundingClientRect();
  const style = getComputedStyle(bar);
  let clipped = false;
  for (let el = bar.parentElement; el; el = el.parentElement) {{
    const s = getComputedStyle(el);
    if ([s.overflowX, s.overflowY].every((v) => v === 'visible')) continue;
    const outer = el.getBoundingClientRect();
    if (box.left < outer.left || box.right > outer.right
        || box.top < outer.top || box.bottom > outer.bottom) clipped = true;
  }}
  return {{left: box.left, right: box.right, top: box.top, bottom: box.bottom,
          width: parseFloat(style.borderTopWidth), color: style.borderTopColor,
          clipped, innerWidth: window.innerWidth, innerHeight: window.innerHeight}};
}}
"""

#: JavaScript: the font size (px) of every metric value's text
METRIC_VALUE_SIZES = """
() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
  .map((el) => parseFloat(getComputedStyle(el.querySelector('p') || el).fontSize))
"""


def _server_cpu_seconds(url: str) -> float:
    """User + system CPU seconds of the streamlit process serving ``url`` (this test's
    child); NaN where /proc is not readable."""
    port = url.rsplit(":", 1)[1]
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = stat.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(args) and port.encode() in args:
            fields = (stat.parent / "stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return float("nan")


@pytest.mark.parametrize(("name", "n_steps"), LESSON_STEPS.items())
def test_every_presenter_step_fits_the_screen_in_a_visible_frame(
    browser, app_url, screenshot_dir, name, n_steps
):
    """Zero counts' steps were taller than a 900 px projector screen; the step bar had no
    frame. Each step's content ends above the screen's bottom edge, and the frame around
    the current step's bar is a visible border, whole inside the screen and unclipped."""
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    for step in range(1, n_steps + 1):
        tab, _ = _open(context, f"{app_url}/{name}?{BASE_QUERY}&present=1&step={step}")
        tab.get_by_text(f"Step {step} of {n_steps}").first.wait_for()
        tab.wait_for_function(FIGURES_DRAWN)
        wait_idle(tab)
        tab.wait_for_timeout(500)  # the presenter style and the figures settle
        bottom = tab.evaluate(CONTENT_BOTTOM)
        frame = tab.evaluate(FRAME)
        tab.screenshot(path=str(screenshot_dir / f"1440-present-{name}-step{step}.png"))
        assert bottom <= SMALL_VIEWPORT["height"], (name, step, bottom)
        assert frame["width"] >= 2 and frame["color"] not in ("rgba(0, 0, 0, 0)", "transparent")
        assert not frame["clipped"], (name, step, frame)
        # a metric's value stays large (the presenter's small-text rule once shrank it)
        sizes = tab.evaluate(METRIC_VALUE_SIZES)
        assert all(size >= 24 for size in sizes), (name, step, sizes)
        assert 0 <= frame["left"] and frame["right"] <= frame["innerWidth"], frame
        assert 0 <= frame["top"] and frame["bottom"] <= frame["innerHeight"], frame
        tab.close()
    context.close()


def test_lesson_timings(browser, app_url, screenshot_dir):
    """Per lesson: first draw in a fresh context, a control there and back (the second
    time from the caches), and the server's CPU seconds for each; printed, never asserted."""
    lessons = [row for row in CONTROLS if row[0].startswith("lesson_")]
    lessons.append(("lesson_hierarchy", "rows slider", None))
    rows = []
    for path, control, actions in lessons:
        context = browser.new_context(viewport=SMALL_VIEWPORT)
        cpu = _server_cpu_seconds(app_url)
        tab, first = _open(context, f"{app_url}/{path}?{BASE_QUERY}")
        tab.wait_for_function(FIGURES_DRAWN)
        row = {"page": path, "control": control, "first": first}
        row["first cpu"] = _server_cpu_seconds(app_url) - cpu
        if actions is None:  # the hierarchy lesson: its rows slider
            from tests.test_browser import _slider_steps

            actions = lambda t: _slider_steps(t, "Rows per class")  # noqa: E731
        there, back = actions(tab)
        cpu = _server_cpu_seconds(app_url)
        row["control"] = timed(tab, there)
        row["control cpu"] = _server_cpu_seconds(app_url) - cpu
        cpu = _server_cpu_seconds(app_url)
        row["cached"] = timed(tab, back)
        row["cached cpu"] = _server_cpu_seconds(app_url) - cpu
        row["figures"] = tab.locator('[data-testid="stPlotlyChart"]').count()
        assert tab.locator('[data-testid="stException"]').count() == 0, path
        rows.append(row | {"name": control})
        context.close()
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} on {os.cpu_count()} cores")
    keys = ["first", "first cpu", "control", "control cpu", "cached", "cached cpu"]
    print(f"{'page':<25}{'control':<16}" + "".join(f"{k:>12}" for k in keys) + "   figures")
    for row in rows:
        cells = "".join(f"{row[k]:>12.2f}" for k in keys)
        print(f"{row['page']:<25}{row['name']:<16}{cells}{row['figures']:>10}")
    print(time.strftime("%H:%M:%S"))
