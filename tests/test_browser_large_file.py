# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""The large-file path in a real browser: a parquet file under the data root, compared on
every row by DuckDB from the Compare page, then a what-if that re-scores one smoother.

The server is one of its own (the data root is an environment variable of the server);
the browser and the helpers come from :mod:`tests.test_browser`.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.peers import require_chromium, require_module
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    REPO,
    assert_no_exception,
    browser,
    playwright,
    screenshot,
    screenshot_dir,
    streamlit_server,
    wait_idle,
)

pytestmark = pytest.mark.browser

ROWS = 20_000
TABLE = '[data-testid="stDataFrame"]'


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """``streamlit run app.py`` with a data root holding ``clicks.parquet``."""
    require_chromium()
    require_module("playwright.sync_api", "the browser tests drive chromium through it")
    pytest.importorskip("duckdb")
    from heb.scale.clicks import write_clicks

    root = tmp_path_factory.mktemp("large-server")
    data = root / "data"
    data.mkdir()
    write_clicks(data / "clicks.parquet", ROWS, seed=1, n_features=6)
    _long_target(data / "segments.parquet")
    env = {**os.environ, "HEB_CACHE_DIR": str(root / "cache"), "HEB_DATA_ROOT": str(data)}
    with streamlit_server(REPO / "app.py", root, env) as url:
        yield url


def _long_target(path) -> None:
    """A small file whose target has a long name (the last column)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 300
    segments = rng.choice(["retail", "corporate", "public"], n)
    frame = pd.DataFrame({"region": rng.choice(["north", "south"], n)})
    frame["customer_segment"] = segments
    frame.to_parquet(path, index=False)


#: JavaScript: the Target metric's value: its lines (1, or 2 for more), its right edge, its
#: column's, and its font size (px)
TARGET_VALUE = """
() => {
  const box = document.querySelector('.st-key-metric_target');
  const p = box.querySelector('[data-testid="stMetricValue"] p');
  const style = getComputedStyle(p);
  const size = parseFloat(style.fontSize);
  return {lines: p.getBoundingClientRect().height < 1.9 * size ? 1 : 2,
          right: p.getBoundingClientRect().right, limit: box.getBoundingClientRect().right,
          size};
}
"""


def test_a_long_target_name_keeps_to_one_line_of_its_metric(browser, app_url):
    """At 1280 px with the menu open the five metrics get about 150 px each: a target
    named "purchased" broke into "purchase" / "d"; its type now shrinks to fit."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    tab.goto(f"{app_url}/dataset?large_file=segments.parquet")
    tab.get_by_text("Rows with a target").first.wait_for()
    wait_idle(tab)
    assert_no_exception(tab, "the large file's Dataset page")
    value = tab.evaluate(TARGET_VALUE)
    assert value["lines"] == 1 and value["right"] <= value["limit"] + 1, value
    assert 14 <= value["size"] <= 32, value  # never above the metrics' 2rem
    context.close()


def _metrics_caption(tab) -> str:
    return tab.get_by_text(re.compile(r"^Engine: DuckDB")).first.inner_text()


def test_a_large_file_is_compared_on_every_row_then_a_what_if_re_scores_one_method(
    browser, app_url, screenshot_dir
):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(180_000)
    query = "large_file=clicks.parquet&methods=Laplace,Lidstone&folds=3"
    tab.goto(f"{app_url}/compare?{query}")
    wait_idle(tab)
    assert_no_exception(tab, "the large file's Compare page")
    assert tab.locator(TABLE).count() == 0  # nothing scans the file before the button
    assert tab.get_by_text("only that smoother is scored again, on every row").count() == 1
    tab.get_by_role("button", name="Compare 2 methods on every row").click()
    tab.get_by_text(re.compile(r"^Engine: DuckDB")).first.wait_for()
    wait_idle(tab)
    assert f"{ROWS:,} rows seen; 3 folds" in _metrics_caption(tab)
    # the metrics grid (drawn on a canvas) mounts a moment after the caption beside it:
    # on two busy cores the count right after the run missed it once
    tab.locator(TABLE).first.wait_for(timeout=30_000)
    assert tab.get_by_text("This scan re-scored").count() == 0

    alpha = tab.get_by_role("radiogroup", name="Lidstone's alpha")
    alpha.get_by_role("radio", name="2", exact=True).click()
    tab.get_by_text("This scan re-scored Lidstone only").first.wait_for()
    wait_idle(tab)
    assert_no_exception(tab, "the large file's Compare page after a what-if")
    assert f"{ROWS:,} rows seen" in _metrics_caption(tab)
    assert "params=Lidstone" in tab.url.replace("%3A", ":")  # the link keeps the what-if
    # the numbers themselves: tests/test_large_file_view.py (equal to one run of both)
    screenshot(tab, screenshot_dir, "large-file-compare-what-if", {"width": 1280, "height": 900})
    context.close()
