# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""Three things a new user met in Chromium at 1440 x 900, checked in a real browser.

- PageDown / PageUp (what a presenter's clicker sends) scroll a long page first and turn
  it only once its footer's links are in view (down) or its top is (up); the arrow keys
  turn at once.
- The footer's "Previous: <title>" / "Next: <title>" links keep to one line, in the normal
  and the presenter mode, on the pages with the longest neighbour titles.
- Plotly's modebar (top right of a chart, on hover) covers no title, legend or plot: it has
  zoom, pan and "reset axes" only, in a band at the top that the figure leaves free.

The server, the browser and the helpers come from :mod:`tests.test_browser`; screenshots go
to ``HEB_SCREENSHOT_DIR`` when set.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from explorer.display import MODEBAR_BAND, _below_modebar
from explorer.routing import FOOTER_KEY, SECTIONS, neighbours
from heb.figures.style import style
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    BASE_QUERY,
    DRAWN,
    FIGURES_DRAWN,
    SMALL_VIEWPORT,
    _open,
    app_url,
    browser,
    playwright,
    screenshot_dir,
    wait_idle,
)

#: JavaScript: the main column's scroll state, the page's path, and whether the footer's
#: row of links is in view
PAGE_STATE = f"""
() => {{
  const main = document.querySelector('[data-testid="stMain"]');
  const row = document.querySelector('.st-key-{FOOTER_KEY}');
  return {{
    path: window.location.pathname,
    top: main.scrollTop,
    height: main.scrollHeight,
    view: main.clientHeight,
    footerInView: row !== null && row.getBoundingClientRect().bottom <= window.innerHeight,
  }};
}}
"""
#: JavaScript: per footer link of the main column, its label, its text's height and line
#: height (pixels)
FOOTER_LINKS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')]
  .map((link) => {
    const text = link.querySelector('p') || link;
    return {label: link.innerText.trim().split('\\n').pop().trim(),
            height: text.getBoundingClientRect().height,
            line: parseFloat(getComputedStyle(text).lineHeight)};
  })
"""
#: JavaScript on a hovered chart: its modebar's box and buttons, and the boxes of what the
#: modebar must not cover (title, legend, plot area, annotations, colour bar)
MODEBAR_OVERLAPS = """
(chart) => {
  const box = (el) => el.getBoundingClientRect();
  const bar = chart.querySelector('.modebar');
  const mb = box(bar);
  const covers = (r) => r.left < mb.right && r.right > mb.left
    && r.top < mb.bottom && r.bottom > mb.top;
  const parts = {title: '.gtitle', legend: '.legend', plot: '.nsewdrag',
                 annotation: '.annotation', colorbar: '.colorbar'};
  const covered = [];
  for (const [name, selector] of Object.entries(parts)) {
    for (const el of chart.querySelectorAll(selector)) {
      const r = box(el);
      if (r.width > 0 && r.height > 0 && covers(r)) {
        covered.push(`${name} "${(el.textContent || '').slice(0, 60)}"`);
      }
    }
  }
  const title = chart.querySelector('.gtitle');
  return {
    buttons: [...bar.querySelectorAll('.modebar-btn')].map((b) => b.getAttribute('data-title')),
    covered,
    title: title ? title.textContent : null,
  };
}
"""
#: the modebar buttons a chart keeps (Streamlit adds its own "Fullscreen")
KEPT_BUTTONS = {"Zoom", "Pan", "Reset axes"}
#: the buttons plotly shows by default that duplicate the downloads or do nothing here
DROPPED_BUTTONS = {"Download plot as a PNG", "Zoom in", "Zoom out", "Autoscale"}
DROPPED_IDS = {"toImage", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"}


def _state(tab) -> dict:
    tab.wait_for_timeout(400)  # a link's page switch changes the address at once
    return tab.evaluate(PAGE_STATE)


def _arrive(tab, path: str) -> None:
    """Wait until ``tab`` shows the page at ``/path``, drawn."""
    tab.wait_for_url(lambda url: urlparse(url).path == f"/{path}")
    tab.wait_for_function(DRAWN, timeout=300_000)
    wait_idle(tab)


def _focus_the_page(tab) -> None:
    """Keys go to the page, not to a widget (a presenter clicks into the page first)."""
    tab.locator('[data-testid="stMain"] h1').first.click()


# --------------------------------------------------------------------------- keys
@pytest.mark.browser
@pytest.mark.parametrize("present", [False, True], ids=["normal", "presenter"])
def test_page_down_scrolls_a_long_page_to_its_footer_before_it_turns(browser, app_url, present):
    """A clicker sends PageDown: on Compare (over two screens tall) it jumped straight to
    the next page, so the bottom of a long page was never shown. Each PageDown keeps the
    lines at the screen's bottom edge in view (85 % of a screen); a PageDown held down
    (auto-repeat) scrolls to the footer and stays there."""
    query = BASE_QUERY + ("&present=1" if present else "")
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/compare?{query}")
    tab.wait_for_function(FIGURES_DRAWN, timeout=300_000)
    _focus_the_page(tab)
    start = _state(tab)
    assert start["height"] > 2 * start["view"] and start["top"] == 0, start
    tab.keyboard.press("PageDown")  # about a screen down, on the same page
    down = _state(tab)
    assert down["path"] == "/compare", down
    assert 0.6 * down["view"] < down["top"] < 0.9 * down["view"], down
    if not present:
        tab.keyboard.down("PageDown")
        for _ in range(12):  # repeats: to the footer, then nothing
            tab.keyboard.down("PageDown")
            tab.wait_for_timeout(150)
        tab.keyboard.up("PageDown")
        held = _state(tab)
        assert held["path"] == "/compare" and held["footerInView"], held
        tab.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
        _focus_the_page(tab)
        tab.keyboard.press("PageDown")
    tab.keyboard.press("PageUp")  # back to the top, on the same page
    up = _state(tab)
    assert up["path"] == "/compare" and up["top"] == 0, up
    presses = 0
    while not _state(tab)["footerInView"]:
        before = _state(tab)["top"]
        tab.keyboard.press("PageDown")
        after = _state(tab)
        assert after["path"] == "/compare" and after["top"] > before, (before, after)
        presses += 1
        assert presses < 10, after
    assert presses >= 2  # the page is over two screens tall
    tab.keyboard.press("PageDown")  # the footer is in view: the next page
    _arrive(tab, "explain")
    assert _state(tab)["top"] == 0  # the next page is shown from its top
    _focus_the_page(tab)
    tab.keyboard.press("PageUp")  # at the top: the previous page at once
    _arrive(tab, "compare")
    _focus_the_page(tab)
    tab.keyboard.press("ArrowRight")
    if present:  # the arrow keys turn at once, whatever the length
        _arrive(tab, "explain")
    else:  # not outside the presenter mode: a keyboard reader's arrow left the page
        tab.wait_for_timeout(1500)
        assert _state(tab)["path"] == "/compare"
        for control in ("Copy link", "Reset to defaults"):  # nor on a focused button
            tab.get_by_role("button", name=control).first.focus()
            tab.keyboard.press("ArrowRight")
            tab.wait_for_timeout(800)
            assert _state(tab)["path"] == "/compare", control
    if present:
        # a lesson's last step fits the screen down to the footer's links (the link strip
        # under them may be out of view): PageDown turns to the next lesson at once
        tab.goto(f"{app_url}/lesson_zero_counts?{query}&step=2", wait_until="commit")
        tab.wait_for_function(DRAWN, timeout=300_000)
        wait_idle(tab)
        tab.locator('[data-testid="stMain"]').get_by_text("Step 2 of 2").first.wait_for()
        _focus_the_page(tab)
        assert _state(tab)["footerInView"]
        tab.keyboard.press("PageDown")
        _arrive(tab, "lesson_dirichlet")
    context.close()


# --------------------------------------------------------------------------- footer
def _footer_pages() -> list[str]:
    """The pages whose footer holds the longest neighbour titles: the longest "Previous:"
    label, the longest "Next:" label, and the three longest pairs."""
    pages = [name for entries in SECTIONS.values() for name, _, _ in entries]

    def lengths(name: str) -> tuple[int, int]:
        before, after = neighbours(name)
        return (len(before[1]) if before else 0, len(after[1]) if after else 0)

    chosen = {max(pages, key=lambda n: lengths(n)[0]), max(pages, key=lambda n: lengths(n)[1])}
    chosen |= set(sorted(pages, key=lambda n: -sum(lengths(n)))[:3])
    return sorted(Path(name).stem for name in chosen)


@pytest.mark.browser
@pytest.mark.parametrize("present", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("page", _footer_pages())
def test_footer_page_links_keep_to_one_line(browser, app_url, screenshot_dir, page, present):
    """ "Previous: Borrowing along a hierarchy" took two or three lines in a column of 2/9
    of the page (worse in the presenter mode's larger type)."""
    query = BASE_QUERY + ("&present=1" if present else "")
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/{page}?{query}")
    before, after = neighbours(f"{page}.py")
    expected = [f"Previous: {before[1]}"] if before is not None else []
    expected += [f"Next: {after[1]}"] if after is not None else []
    links = tab.locator('[data-testid="stMain"] [data-testid="stPageLink-NavLink"]')
    links.first.wait_for()
    links.first.scroll_into_view_if_needed()
    tab.wait_for_timeout(500)
    shown = tab.evaluate(FOOTER_LINKS)
    divider = tab.locator('[data-testid="stMain"] hr').last.bounding_box()
    tab.mouse.move(0, 0)
    tab.screenshot(
        path=str(screenshot_dir / f"1440-footer-{page}{'-present' if present else ''}.png"),
        clip={"x": 0, "y": divider["y"] - 10, "width": SMALL_VIEWPORT["width"], "height": 130},
    )
    context.close()
    assert [link["label"] for link in shown] == expected
    for link in shown:
        assert link["height"] < 1.5 * link["line"], link  # one line of text


#: JavaScript: the footer row's box and its parts' boxes (left, right, top), in order
FOOTER_PARTS = f"""
() => {{
  const row = document.querySelector('.st-key-{FOOTER_KEY}');
  const box = (el) => {{ const r = el.getBoundingClientRect();
                        return {{left: r.left, right: r.right, top: r.top, width: r.width}}; }};
  return {{row: box(row), parts: [...row.children].filter((c) => c.innerText.trim())
                                 .map((c) => ({{text: c.innerText.trim(), ...box(c)}}))}};
}}
"""


@pytest.mark.browser
def test_the_longest_footer_fits_one_row_at_1280_and_wraps_its_next_link_to_the_right(
    browser, app_url, screenshot_dir
):
    """Known truth's footer ("Previous: Calibration", two buttons, "Next: Borrowing along a
    hierarchy") wrapped at 1280 px with the sidebar open, its Next link at the left of a
    second row."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab, _ = _open(context, f"{app_url}/lesson_known_truth?{BASE_QUERY}")
    tab.locator(f".st-key-{FOOTER_KEY}").scroll_into_view_if_needed()
    wide = tab.evaluate(FOOTER_PARTS)
    tab.set_viewport_size({"width": 1024, "height": 768})
    tab.wait_for_timeout(800)
    narrow = tab.evaluate(FOOTER_PARTS)
    tab.screenshot(path=str(screenshot_dir / "1024-footer-wrapped.png"))
    context.close()
    assert [p["text"].split("\n")[-1] for p in wide["parts"]][-1].startswith("Next: Borrowing")
    wide_tops = [p["top"] for p in wide["parts"]]
    assert max(wide_tops) - min(wide_tops) < 10, wide  # one row at 1280 px
    tops = [p["top"] for p in narrow["parts"]]
    assert tops[-1] > tops[0] + 10, narrow  # 1024 px: Next wraps onto a second row ...
    assert narrow["parts"][-1]["right"] == pytest.approx(narrow["row"]["right"], abs=2)  # right


# --------------------------------------------------------------------------- modebar
def test_a_chart_keeps_zoom_pan_and_reset_in_its_modebar():
    """The chart's configuration as Streamlit sends it: plotly's PNG button (the downloads
    under each figure export it with the view's footer), selection, zoom in / out and
    autoscale are dropped; zoom, pan and "reset axes" stay."""

    def page() -> None:
        import plotly.graph_objects as go

        from explorer.display import show_figure
        from heb.figures.style import style

        fig = go.Figure([go.Bar(x=["a"], y=[1], name="one"), go.Bar(x=["a"], y=[2], name="two")])
        show_figure(style(fig, "A title long enough to run under the modebar " * 3, 400), None, "x")

    at = AppTest.from_function(page).run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    (chart,) = at.get("plotly_chart")
    config = json.loads(chart.proto.config)
    removed = set(config["modeBarButtonsToRemove"])
    assert DROPPED_IDS <= removed
    assert not removed & {"zoom2d", "pan2d", "resetScale2d"}
    assert config["displaylogo"] is False


def _top_items(fig: go.Figure) -> dict[str, float]:
    """Pixels from the figure's top to its plot, title and legend (as placed in pixels)."""
    layout = fig.layout
    return {
        "plot": layout.margin.t,
        "title": layout.title.pad.t,
        "legend": (1.0 - layout.legend.y) * layout.height,
    }


def test_the_top_band_is_cleared_once_and_keeps_the_figure_height():
    """Title, legend and plot move down by the same pixels, out of the modebar's band; the
    figure keeps its height; a second pass (a copy of a styled figure) moves nothing."""
    bars = [go.Bar(x=["a"], y=[1], name="one"), go.Bar(x=["a"], y=[2], name="two")]
    fig = style(go.Figure(bars), "Title<br>on two lines", 400)
    height, before = fig.layout.height, _top_items(fig)
    _below_modebar(fig)
    after = _top_items(fig)
    assert min(after.values()) == pytest.approx(MODEBAR_BAND)
    moved = {name: after[name] - before[name] for name in before}
    assert len({round(value, 6) for value in moved.values()}) == 1 and moved["title"] > 0
    assert fig.layout.height == height
    again = go.Figure(fig)
    _below_modebar(again)
    assert again.layout == fig.layout


def test_a_title_plotly_places_itself_is_placed_below_the_band():
    """The hierarchy lesson's sunburst sets only its title's text and x: plotly put it in
    the middle of a 60-pixel top margin, under the modebar."""
    fig = go.Figure(
        go.Sunburst(ids=["a", "b"], parents=["", "a"], values=[2, 1]),
        layout={"height": 480, "margin": {"t": 60}, "title": {"text": "The tree", "x": 0.0}},
    )
    _below_modebar(fig)
    title = fig.layout.title
    assert (title.yref, title.yanchor, title.pad.t) == ("container", "top", MODEBAR_BAND)
    assert fig.layout.margin.t > MODEBAR_BAND + 20  # the title's line above the plot
    assert fig.layout.height == 480


#: (name, page and query, present): charts with long titles (the rows-per-category heatmap
#: beside the class balance; the lens's two-line title over 800 ZIP codes; concentrations)
MODEBAR_PAGES = [
    ("dataset-classes", f"?{BASE_QUERY}&dataset_tab=Classes+and+sparsity", False),
    ("dataset-lens", "?dataset=builtin%3Azip-codes&dataset_tab=One+feature+under+the+lens", False),
    ("dataset-lens", "?dataset=builtin%3Azip-codes&dataset_tab=One+feature+under+the+lens", True),
    ("concentrations", f"concentrations?{BASE_QUERY}", False),
]


@pytest.mark.browser
@pytest.mark.parametrize(("name", "path", "present"), MODEBAR_PAGES)
def test_the_modebar_covers_no_title(browser, app_url, screenshot_dir, name, path, present):
    """Hover every chart of the page: its modebar has zoom, pan and "reset axes" (and
    Streamlit's fullscreen) and its box overlaps no title, legend, plot or annotation."""
    context = browser.new_context(viewport=SMALL_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/{path}{'&present=1' if present else ''}")
    tab.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"]').length > 0",
        timeout=300_000,
    )
    tab.wait_for_function(FIGURES_DRAWN, timeout=300_000)
    charts = tab.locator('[data-testid="stPlotlyChart"]')
    found = []
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        tab.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        chart.locator(".modebar").wait_for(state="visible")
        tab.wait_for_timeout(400)  # the modebar fades in
        found.append(chart.evaluate(MODEBAR_OVERLAPS))
        shot = f"1440-modebar-{name}-{i}{'-present' if present else ''}.png"
        tab.screenshot(
            path=str(screenshot_dir / shot),
            clip={"x": box["x"], "y": max(box["y"], 0), "width": box["width"], "height": 140},
        )
    context.close()
    assert found
    for chart in found:
        assert chart["covered"] == [], chart
        assert KEPT_BUTTONS <= set(chart["buttons"]), chart
        assert not DROPPED_BUTTONS & set(chart["buttons"]), chart
