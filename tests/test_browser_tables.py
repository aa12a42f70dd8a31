# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""The Explore pages' tables show every row and column in a 1280 x 800 window.

A new user found the grids hiding what they hold: the Compare table of 13 methods showed
ten rows and half of the eleventh (the grid's default height), the Concentrations table
10 of its 16 pairs with its last two columns cut, and the Dataset page's features table
its key column ("MI above chance") past the right edge. Here each grid's scroller must be
as large as its content: nothing to scroll to, either way, with the sidebar open. At
1024 px the Concentrations heatmap's feature names ran together ("user_idstore_id").

The server, the browser and the helpers come from :mod:`tests.test_browser`; this file is
its own so that pytest-xdist (``--dist loadfile``) can run it beside that one.
"""

from __future__ import annotations

import pytest

from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    _open,
    app_url,
    browser,
    playwright,
    screenshot,
    screenshot_dir,
    wait_idle,
)

pytestmark = pytest.mark.browser

#: a laptop's window, the sidebar open
LAPTOP = {"width": 1280, "height": 800}
#: JavaScript: per grid on the page, [scrollWidth, clientWidth, scrollHeight, clientHeight]
#: of its scroller (the element that scrolls when the grid is smaller than its content)
GRID_EXTENTS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
  .map((grid) => grid.querySelector('.dvn-scroller'))
  .filter((scroller) => scroller !== null)
  .map((s) => [s.scrollWidth, s.clientWidth, s.scrollHeight, s.clientHeight])"""
#: the zip-codes data (16 class-feature pairs) and every smoothing and reference method
ALL_METHODS = (
    "Laplace,Lidstone,KT,m-estimate,TE,HEB-U,HEB-M,HEB-M%2BGR,AODE,HEB-AODE,"
    "CategoricalNB,TargetEncoder%2BLR,HistGradientBoosting"
)
ZIP_CODES = "dataset=builtin%3Azip-codes"


def _assert_grids_whole(tab, expected: int, where: str) -> None:
    """Every grid on ``tab`` (``expected`` of them) has nothing to scroll to."""
    tab.wait_for_selector('[data-testid="stDataFrame"] .dvn-scroller')
    tab.wait_for_timeout(500)  # the grid sizes its columns after its first frame
    extents = tab.evaluate(GRID_EXTENTS)
    assert len(extents) == expected, (where, extents)
    for scroll_w, client_w, scroll_h, client_h in extents:
        assert scroll_w <= client_w + 1, f"{where}: {scroll_w - client_w} px of columns hidden"
        assert scroll_h <= client_h + 1, f"{where}: {scroll_h - client_h} px of rows hidden"


@pytest.mark.parametrize(
    "path, tab_name, query",
    [
        ("compare", None, f"{ZIP_CODES}&folds=3&methods={ALL_METHODS}"),
        ("concentrations", "Table", ZIP_CODES),
        ("dataset", None, ZIP_CODES),
    ],
    ids=["compare-13-methods", "concentrations-table", "dataset-features"],
)
def test_a_table_shows_all_its_rows_and_columns_at_1280(
    browser, app_url, screenshot_dir, path, tab_name, query
):
    context = browser.new_context(viewport=LAPTOP)
    tab, _ = _open(context, f"{app_url}/{path}?{query}")
    if tab_name is not None:  # a lazy tab: its grid is built once it is open
        tab.get_by_role("tab", name=tab_name).click()
        wait_idle(tab)
    tab.wait_for_selector('[data-testid="stDataFrame"]', timeout=300_000)
    _assert_grids_whole(tab, 1, path)
    screenshot(tab, screenshot_dir, f"1280-table-{path}", LAPTOP)
    context.close()


#: a 1024 px projector, the sidebar open
PROJECTOR = {"width": 1024, "height": 768}
#: JavaScript: whether the first figure's x tick labels are turned, and [left, right] of
#: each, left to right (a turned label's box is not its text: turned, they stand apart)
X_TICKS = """() => {
  const texts = [...document.querySelector('.js-plotly-plot').querySelectorAll('g.xtick text')];
  const turned = texts.some((el) => /rotate\\((?!0[,)])/.test(el.getAttribute('transform') || ''));
  const spans = texts.map((el) => el.getBoundingClientRect()).filter((box) => box.width > 0)
    .sort((a, b) => a.left - b.left).map((box) => [box.left, box.right]);
  return {turned, spans};
}"""


def test_the_heatmaps_feature_names_stay_apart_at_1024(browser, app_url, screenshot_dir):
    """Up to 8 features the names were level whatever the width; at 1024 px with the
    sidebar open "user_id", "store_id" and "product_id" overlapped. Plotly now turns them
    where level names would run together."""
    context = browser.new_context(viewport=PROJECTOR)
    tab, _ = _open(context, f"{app_url}/concentrations?{ZIP_CODES}")
    tab.wait_for_selector(".js-plotly-plot g.xtick text", timeout=300_000)
    ticks = tab.evaluate(X_TICKS)
    screenshot(tab, screenshot_dir, "1024-concentrations-heatmap", PROJECTOR)
    spans = ticks["spans"]
    assert len(spans) == 8, spans  # zip-codes' eight features
    overlaps = [(a, b) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1] - 1]
    assert ticks["turned"] or not overlaps, overlaps
    context.close()


#: JavaScript: the text of every cell of an HTML table (the presenter's) that takes more
#: than one line
WRAPPED_CELLS = """() => [...document.querySelectorAll(
    '[data-testid="stTable"] td p, [data-testid="stTable"] th p')]
  .filter((p) => p.getBoundingClientRect().height
    > 1.5 * parseFloat(getComputedStyle(p).lineHeight))
  .map((p) => p.textContent)"""


def test_the_presenters_compare_table_keeps_each_cell_on_one_line(browser, app_url, screenshot_dir):
    """At 1024 px in the presenter mode every "0.663 ± 0.044" broke after its ± and
    "m-estimate" after its hyphen; the cells now keep to one line and the table scrolls."""
    context = browser.new_context(viewport=PROJECTOR)
    tab, _ = _open(context, f"{app_url}/compare?{ZIP_CODES}&folds=3&present=1")
    tab.wait_for_selector('[data-testid="stTable"] td', timeout=300_000)
    wait_idle(tab)
    screenshot(tab, screenshot_dir, "1024-present-compare-table", PROJECTOR)
    assert tab.locator('[data-testid="stTable"] td').count() >= 5 * 8
    assert tab.evaluate(WRAPPED_CELLS) == []
    context.close()


@pytest.mark.parametrize("feature", ["mean perimeter", "mean area"])
def test_the_lens_table_shows_every_class_column_at_1280(browser, app_url, feature):
    """Beside the lens figure (two classes) the table had about 306 px: with bin labels of
    16 characters or more ("mean area", or a bin of dates) its last class column was cut
    off. Such a table now spans the page under the figure; a shorter one stays beside it."""
    query = (
        "data=builtin%3Abreast-cancer&dataset_tab=One+feature+under+the+lens"
        f"&lens_feature={feature.replace(' ', '+')}"
    )
    context = browser.new_context(viewport=LAPTOP)
    tab, _ = _open(context, f"{app_url}/dataset?{query}")
    tab.wait_for_selector('[data-testid="stDataFrame"] .dvn-scroller', timeout=300_000)
    tab.wait_for_timeout(500)  # the grid sizes its columns after its first frame
    ((scroll_w, client_w, _, _),) = tab.evaluate(GRID_EXTENTS)
    assert scroll_w <= client_w + 1, f"{feature}: {scroll_w - client_w} px of columns hidden"
    beside = client_w < 500  # the side column is about 306 px wide, the page 790
    assert beside == (feature == "mean perimeter"), (feature, client_w)
    context.close()
