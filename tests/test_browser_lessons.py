# ruff: noqa: F811 - the fixtures imported from tests.test_browser are used by name
"""The lessons in a real browser at 1440 x 900.

Presenter mode: every step fits the screen, footer (previous / next links) included, under
a visible, unclipped focus frame, and no two axis tick labels of a figure touch. Controls:
moving one redraws the figures it changes and leaves every other figure's drawing in place,
and moving it back restores the view. Each control's time (there, and back from the
caches) is measured by ``benchmarks/page_speed.py``.

The server, the browser and the helpers come from :mod:`tests.test_browser`.
"""

from __future__ import annotations

import pytest

from explorer.presenter import MIN_FIT_SCALE, NEXT_STEP_KEY, STEP_BAR_KEY
from tests.test_browser import (  # noqa: F401 - the fixtures are used by name
    BASE_QUERY,
    FIGURES_DRAWN,
    SMALL_VIEWPORT,
    _open,
    _slider_steps,
    _step_shown,
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
#: JavaScript: the lowest pixel of the footer's previous / next links and its buttons
FOOTER_BOTTOM = """
() => {
  const parts = [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stPageLink"], .st-key-presenter_toggle')];
  return Math.max(...parts.map((el) => el.getBoundingClientRect().bottom)) + window.scrollY;
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
#: JavaScript: pixels to spare on the title's row beside the step bar's minimum width (the
#: bar moves under the title below zero, and the step then takes ~95 px more height)
STEP_BAR_SLACK = f"""
() => {{
  const holder = document.querySelector('.st-key-{STEP_BAR_KEY}').parentElement;
  const row = holder.parentElement.getBoundingClientRect();
  const title = document.querySelector('[data-testid="stMain"] h1').getBoundingClientRect();
  const need = parseFloat(getComputedStyle(holder).minWidth.match(/([0-9.]+)px/)[1]);
  return row.right - title.right - need;
}}
"""
#: JavaScript: the font size (px) of every metric value's text
METRIC_VALUE_SIZES = """
() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
  .map((el) => parseFloat(getComputedStyle(el.querySelector('p') || el).fontSize))
"""
#: JavaScript: [figure title, x label, y label] for every x tick label of a figure that
#: touches (comes within 2 px of) one of its y tick labels
TOUCHING_TICK_LABELS = """
() => {
  const out = [];
  const boxes = (plot, axis) => [
    ...plot.querySelectorAll(`g[class^="${axis}"][class$="tick"] text`)]
    .map((el) => [el.textContent, el.getBoundingClientRect()])
    .filter(([text, box]) => text.trim() !== '' && box.width > 0);
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = ((plot.layout || {}).title || {}).text || '';
    for (const [xt, xb] of boxes(plot, 'x')) {
      for (const [yt, yb] of boxes(plot, 'y')) {
        if (xb.left < yb.right + 2 && yb.left < xb.right + 2
            && xb.top < yb.bottom + 2 && yb.top < xb.bottom + 2) out.push([title, xt, yt]);
      }
    }
  }
  return out;
}
"""
#: JavaScript: the number of lines the step bar's "Step i of n: title" text takes (its
#: markdown element's: the buttons' labels are markdown containers too)
STEP_TEXT_LINES = f"""
() => {{
  const text = document.querySelector(
    '.st-key-{STEP_BAR_KEY} [data-testid="stMarkdown"] p');
  const line = parseFloat(getComputedStyle(text).lineHeight);
  return Math.round(text.getBoundingClientRect().height / line);
}}
"""
#: JavaScript: [figure title, legend entry, tick label] for every tick label a figure's
#: legend box covers, and [figure title, text, text] for every two bar value labels of a
#: figure that overlap or come within 2 px of each other side by side
COVERED_LABELS = """
() => {
  const out = [];
  const near = (a, b, gap) => a.left < b.right + gap && b.left < a.right + gap
    && a.top < b.bottom && b.top < a.bottom;
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = ((plot.layout || {}).title || {}).text || '';
    const ticks = [...plot.querySelectorAll('g[class$="tick"] text')]
      .filter((el) => el.textContent.trim() !== '');
    const legend = plot.querySelector('g.legend rect.bg');
    if (legend) {
      const box = legend.getBoundingClientRect();
      for (const tick of ticks) {
        const over = near(box, tick.getBoundingClientRect(), 0);
        if (over) out.push([title, 'legend', tick.textContent]);
      }
    }
    const texts = [...plot.querySelectorAll('g.points text.bartext')]
      .filter((el) => el.textContent.trim() !== '');
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i].getBoundingClientRect(), b = texts[j].getBoundingClientRect();
        if (near(a, b, 2)) out.push([title, texts[i].textContent, texts[j].textContent]);
      }
    }
  }
  return out;
}
"""
#: JavaScript: one wait for the browser's next two frames (layout and paint done)
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
#: JavaScript: give every drawn figure a name that lasts as long as its drawing (a figure
#: drawn anew is a new element, without it); returns [name, title, data as JSON] per figure
NAMED_FIGURES = """
() => [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
  if (!el.__hebName) el.__hebName = Math.random().toString(36).slice(2);
  const data = JSON.stringify((el.data || []).map((t) => [t.name, t.x, t.y, t.z]));
  return [el.__hebName, ((el.layout || {}).title || {}).text || '', data];
})
"""


def _settled(tab) -> None:
    """The script run is over, every figure drawn, and the browser has laid it out."""
    tab.wait_for_function(FIGURES_DRAWN)
    wait_idle(tab)
    tab.evaluate(TWO_FRAMES)


@pytest.fixture(scope="module")
def context(browser):
    """One browser context for the module: each lesson opens one tab (one session)."""
    shared = browser.new_context(viewport=SMALL_VIEWPORT)
    yield shared
    shared.close()


#: JavaScript: [figure title, axis title, what it runs into] for every axis title of a
#: figure that overlaps the figure's title or its legend box (a y title longer than a
#: short plot is drawn centred on it and runs up into them)
AXIS_TITLES_OVER_TOP = """
() => {
  const out = [];
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom
    && b.top < a.bottom;
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = plot.querySelector('.gtitle');
    const legend = plot.querySelector('g.legend rect.bg');
    const tops = [[title, 'title'], [legend, 'legend']].filter(([el]) => el)
      .map(([el, what]) => [el.getBoundingClientRect(), what]).filter(([box]) => box.width > 0);
    for (const axis of plot.querySelectorAll(
      '[class^="g-x"][class$="title"] text, [class^="g-y"][class$="title"] text')) {
      const box = axis.getBoundingClientRect();
      if (box.width === 0 || axis.textContent.trim() === '') continue;
      for (const [top, what] of tops) {
        if (meets(box, top)) out.push([title ? title.textContent : '', axis.textContent, what]);
      }
    }
  }
  return out;
}
"""


@pytest.mark.parametrize(("name", "n_steps"), LESSON_STEPS.items())
def test_every_presenter_step_fits_the_screen_in_a_visible_frame(
    context, app_url, screenshot_dir, name, n_steps
):
    """Zero counts' steps were taller than a 900 px projector screen; the step bar had no
    frame; on the Dirichlet lesson's second step the footer's links were cut off and the
    sweep's x tick label 0.001 touched its y tick label 0; nine steps had their footer below
    the screen, two their step title on two lines. On every step (turned with the step
    bar's button, as a presenter does): the content and the footer end above the screen's
    bottom edge, the step's title is one line, the focus frame is a visible border, whole
    and unclipped, metric values keep their size and no two tick labels of a figure touch."""
    tab, _ = _open(context, f"{app_url}/{name}?{BASE_QUERY}&present=1")
    for step in range(1, n_steps + 1):
        if step > 1:
            tab.locator(f".st-key-{NEXT_STEP_KEY} button").click()
        tab.get_by_text(f"Step {step} of {n_steps}").first.wait_for()
        _settled(tab)
        where = (name, step)
        tab.screenshot(path=str(screenshot_dir / f"1440-present-{name}-step{step}.png"))
        assert tab.evaluate(CONTENT_BOTTOM) <= SMALL_VIEWPORT["height"], where
        # issue 12 found nine steps' footers below the screen (zero counts 2, evidence 1
        # and 3, high cardinality 1, calibration 4, known truth 1 and 2, hierarchy 3 and 4)
        assert tab.evaluate(FOOTER_BOTTOM) <= SMALL_VIEWPORT["height"], where
        assert tab.evaluate(TOUCHING_TICK_LABELS) == [], where
        # the evidence and hierarchy lessons' step titles wrapped onto a second line
        assert tab.evaluate(STEP_TEXT_LINES) == 1, where
        # CI once measured high cardinality's step 1 with its bar under the title (10 px
        # short at 1440): the bar keeps a margin beside the title, so no step is on an edge
        assert tab.evaluate(STEP_BAR_SLACK) >= 60, where
        frame = tab.evaluate(FRAME)
        assert frame["width"] >= 2 and frame["color"] not in ("rgba(0, 0, 0, 0)", "transparent")
        assert not frame["clipped"], (where, frame)
        assert 0 <= frame["left"] and frame["right"] <= frame["innerWidth"], frame
        assert 0 <= frame["top"] and frame["bottom"] <= frame["innerHeight"], frame
        # a metric's value stays large (the presenter's small-text rule once shrank it)
        sizes = tab.evaluate(METRIC_VALUE_SIZES)
        assert all(size >= 24 for size in sizes), (where, sizes)
        # at 1024 x 768 (the README's "fits 1024 px") no formula or figure title is cut:
        # zero counts' rule read "P(c | x) ∝ P(c) ∏ P(w", the hierarchy's "...code 1409's pat"
        _resized(tab, NARROW_VIEWPORT)
        tab.screenshot(path=str(screenshot_dir / f"1024-present-{name}-step{step}.png"))
        assert tab.evaluate(CUT_FORMULAS) == [], (where, "1024")
        assert tab.evaluate(CUT_TITLES) == [], (where, "1024")
        # a legend wrapped onto four rows left the calibration plot 60 px, turned words
        # the zero-count bars 45 px
        heights = tab.evaluate(PLOT_HEIGHTS)
        assert all(height >= MIN_PLOT_HEIGHT for height in heights), (where, heights)
        assert tab.evaluate(WRAPPED_DOWNLOADS) == [], (where, "1024")
        # a 1280 x 800 projector shows about 1280 x 720 in a browser: the step is laid out
        # as on a 1600 x 900 screen and scaled to 0.8, whole and inside the screen's width
        _resized(tab, SHORT_VIEWPORT)
        tab.wait_for_function(FITTED)
        box = tab.evaluate(FIT_BOX)
        tab.screenshot(path=str(screenshot_dir / f"1280x720-present-{name}-step{step}.png"))
        assert MIN_FIT_SCALE <= box["scale"] <= 0.8 + 1e-9, (where, box)
        assert box["footer"] <= SHORT_VIEWPORT["height"], (where, box)
        assert -1 <= box["left"] and box["right"] <= box["innerWidth"] + 1, (where, box)
        assert box["blank"] <= 80, (where, box)  # the page ends with the step, no blank
        # Streamlit sized each chart by its scaled box: plotly drew it at 80 % and the
        # scale shrank it again (a trial saw 38 px tall plots); it fills its box now
        tab.wait_for_function(CHARTS_FILL_BOXES, timeout=10_000)
        # the scaled plots are shorter (111 px for known truth's PMF errors) and keep their
        # type: its y title "‖θ̂ − θ‖₁ per (class, feature)", centred on the plot, ran up
        # into the figure's title, the hierarchy's "concentration m (log scale)" into its
        # title and legend
        tab.evaluate(TWO_FRAMES)
        assert tab.evaluate(AXIS_TITLES_OVER_TOP) == [], where
        # the hierarchy lesson's long title squeezed the step bar's text onto four lines
        # at 1280 px; the evidence curve's figure titles were cut mid-word
        assert tab.evaluate(STEP_TEXT_LINES) == 1, (where, "1280 x 720")
        assert tab.evaluate(CUT_TITLES) == [], (where, "1280 x 720")
        if step == 1:  # known truth's Settings held 626 px of controls in a 502 px box
            assert _settings_overflow(tab) <= 4, where
        _resized(tab, SMALL_VIEWPORT)
        tab.wait_for_function(UNSCALED)  # a tall screen: the step's own size again
        tab.wait_for_function(CHARTS_FILL_BOXES, timeout=10_000)
    tab.close()


def _settings_overflow(tab) -> float:
    """How far the presenter's open "Settings" popover scrolls (0: every control shows);
    the popover is closed again."""
    tab.get_by_role("button", name="Settings").click()
    body = tab.locator('[data-testid="stPopoverBody"]')
    body.wait_for()
    overflow = body.evaluate("(e) => e.scrollHeight - e.clientHeight")
    tab.keyboard.press("Escape")
    body.wait_for(state="hidden")
    return overflow


#: JavaScript: whether every drawn chart is as wide on screen as its box (within 3 %)
CHARTS_FILL_BOXES = """
() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every((box) => {
  const svg = box.querySelector('svg.main-svg');
  const width = box.getBoundingClientRect().width;
  return !svg || width === 0 || Math.abs(svg.getBoundingClientRect().width - width) <= 0.03 * width;
})
"""


#: links to the evidence lesson's held-out step on the app's default dataset (zip-codes):
#: the default pair, the trial's pair and the pair of the longest verdict (Laplace wins,
#: every caveat, HEB-M's m clamped: a metric delta)
HELD_OUT_LINKS = ("", "&evidence_class=1&evidence_feature=5", "&evidence_feature=2")


@pytest.mark.parametrize("pair", HELD_OUT_LINKS)
def test_the_evidence_held_out_step_fits_the_screen_on_the_default_dataset(
    context, app_url, screenshot_dir, pair
):
    """The README promises a presenter step fits 1440 x 900 whole. The trial opened the
    evidence lesson's third step on the app's default dataset (the test above uses iris):
    its footer ended 53 px below the screen, the verdict, the what-if sentence and the
    pair's line in two columns each taller than the screen allows."""
    tab, _ = _open(context, f"{app_url}/lesson_evidence?present=1&step=3{pair}")
    tab.get_by_text("Step 3 of 3").first.wait_for()
    _settled(tab)
    name = "default" if not pair else pair.replace("&", "_").replace("=", "")
    tab.screenshot(path=str(screenshot_dir / f"1440-present-evidence-step3-{name}.png"))
    assert tab.evaluate(CONTENT_BOTTOM) <= SMALL_VIEWPORT["height"], pair
    assert tab.evaluate(FOOTER_BOTTOM) <= SMALL_VIEWPORT["height"], pair
    tab.close()


#: JavaScript: the height (pixels) of every figure's plot area
PLOT_HEIGHTS = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].map((p) => p._fullLayout._size.h)"
)
#: the least plot height a presenter figure keeps at 1024 px
MIN_PLOT_HEIGHT = 120
#: JavaScript: the labels of every figure's download row whose buttons take more than one
#: line (high cardinality's step 2 at 1024 px put "CSV" on a row of its own)
WRAPPED_DOWNLOADS = """
() => [...new Set([...document.querySelectorAll('[data-testid="stDownloadButton"]')]
  .map((b) => b.parentElement.parentElement)
  .filter((row) => row.matches('[data-testid="stHorizontalBlock"]')))].flatMap((row) => {
  const buttons = [...row.querySelectorAll('[data-testid="stDownloadButton"]')];
  const tops = new Set(buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
  return tops.size > 1 ? [buttons.map((b) => b.innerText.trim().split(/\\s+/).pop())] : [];
})
"""


#: a projector's usual screen: 1280 x 720
PROJECTOR_VIEWPORT = {"width": 1280, "height": 720}
#: JavaScript: where on the screen the evidence curve's first trace draws its point ``i``
#: (plotly's own axis maps, through the scale on the screen) and that point's x value
POINT_ON_SCREEN = """
(i) => {
  const plot = document.querySelector('.js-plotly-plot');
  const trace = plot._fullData[0], layout = plot._fullLayout;
  const xa = layout.xaxis, ya = layout.yaxis;
  const box = plot.querySelector('.main-svg').getBoundingClientRect();
  const seen = box.width / layout.width;  /* screen pixels per figure pixel */
  const x = xa._offset + xa.c2p(trace.x[i]), y = ya._offset + ya.c2p(trace.y[i]);
  return {x: box.left + seen * x, y: box.top + seen * y, value: trace.x[i], n: trace.x.length};
}
"""
#: JavaScript: the box shadows of the main pane's ::before and ::after
MAIN_PANE_SHADOWS = """
() => ['::before', '::after'].map((part) => getComputedStyle(
  document.querySelector('[data-testid="stMain"]'), part).boxShadow)
"""
#: JavaScript: the x value plotly's hover reads (null: no hover)
HOVERED_X = """
() => {
  const data = document.querySelector('.js-plotly-plot')._hoverdata;
  return data && data.length ? data[0].x : null;
}
"""


def test_a_short_screen_scales_the_step_and_the_mouse_still_reads_its_figure(
    browser, app_url, screenshot_dir
):
    """CSS zoom (the first way tried to fit a 1280 x 720 screen) made plotly's hover read
    the evidence curve at m = 23 under the mouse at m = 1000; the step is scaled with a
    transform, which plotly maps the mouse through. Leaving the presenter mode gives the
    page its own size back."""
    context = browser.new_context(viewport=SHORT_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/lesson_evidence?{BASE_QUERY}&present=1")
    _settled(tab)
    tab.wait_for_function(FITTED)
    assert tab.evaluate(FIT_BOX)["scale"] == pytest.approx(0.8)
    n_points = tab.evaluate(POINT_ON_SCREEN, 0)["n"]
    for index in (n_points // 4, n_points // 2, 3 * n_points // 4):
        point = tab.evaluate(POINT_ON_SCREEN, index)
        tab.evaluate("() => { document.querySelector('.js-plotly-plot')._hoverdata = null; }")
        tab.mouse.move(point["x"], point["y"])
        tab.wait_for_function(HOVERED_X)
        assert tab.evaluate(HOVERED_X) == pytest.approx(point["value"]), (index, point)
        tab.mouse.move(1, 1)
    tab.screenshot(path=str(screenshot_dir / "1280x720-present-hover.png"))
    # PageDown turns the step (its footer is on the screen) and draws no focus frame: a
    # grey inset shadow on the main pane's pseudo-element framed every turned step
    tab.locator('[data-testid="stMain"] h1').first.click()
    tab.keyboard.press("PageDown")
    tab.get_by_text("Step 2 of 3").first.wait_for()
    assert tab.evaluate(MAIN_PANE_SHADOWS) == ["none", "none"]
    tab.get_by_role("button", name="Leave presenter mode").click()
    tab.wait_for_function(UNSCALED)
    wait_idle(tab)
    assert (
        tab.evaluate(
            "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').style.width"
        )
        == ""
    )
    context.close()


#: per lesson: two steps with figures, turned back and forth on a short screen
FLIPPED_STEPS = {"lesson_hierarchy": (3, 4), "lesson_known_truth": (2, 3)}


@pytest.mark.parametrize(("name", "steps"), FLIPPED_STEPS.items())
def test_turning_scaled_steps_back_and_forth_draws_each_figure_at_its_width(
    browser, app_url, screenshot_dir, name, steps
):
    """At 1280 x 720 a turned step's figures were drawn, two flips in three, at 0.6 of
    their width (the last step's stale elements made the page briefly too tall, so the
    step was scaled down for that moment) and then grown back: type a quarter too big, the
    title over the legend, the hierarchy's log axis squashed into one blur of labels."""
    context = browser.new_context(viewport=SHORT_VIEWPORT)
    first, second = steps
    tab, _ = _open(context, f"{app_url}/{name}?{BASE_QUERY}&present=1&step={first}")
    _settled(tab)
    tab.wait_for_function(FITTED)
    n_steps = LESSON_STEPS[name]
    for turn in range(2):  # the fault showed in two flips of three
        for key, step in (("PageDown", second), ("PageUp", first)):
            tab.locator('[data-testid="stMain"] h1').first.click()
            tab.keyboard.press(key)
            tab.get_by_text(f"Step {step} of {n_steps}").first.wait_for()
            _settled(tab)
            tab.wait_for_function(FITTED)
            tab.evaluate(TWO_FRAMES)
            if not tab.evaluate(FIGURES_AT_WIDTH):
                tab.screenshot(path=str(screenshot_dir / f"1280x720-flip-{name}-{step}.png"))
            assert tab.evaluate(FIGURES_AT_WIDTH), (name, turn, step)
    context.close()


#: JavaScript: the title of every figure whose title reaches past the figure's right edge
CUT_TITLES = """
() => [...document.querySelectorAll('.js-plotly-plot')].flatMap((plot) => {
  const title = plot.querySelector('.gtitle');
  if (!title) return [];
  const right = plot.getBoundingClientRect().right;
  return title.getBoundingClientRect().right > right + 1 ? [title.textContent] : [];
})
"""


@pytest.mark.parametrize("name", list(LESSON_STEPS))
def test_at_a_projectors_width_no_figure_title_is_cut_and_the_step_text_is_one_line(
    browser, app_url, screenshot_dir, name
):
    """At 1280 x 720 with the sidebar open the evidence curve's and the zero-counts
    lesson's figure titles were cut mid-word; at 1024 px with the sidebar open 16 formulas
    were cut in a 144 px text column; in the presenter mode the hierarchy lesson's
    long title squeezed the step bar's text onto four lines. Every figure of every step
    (outside the presenter mode all show at once) keeps its whole title; the step bar's
    text is one line (the bar moves under a long title) on every presenter step, checked
    by the presenter walk at 1280 x 720."""
    context = browser.new_context(viewport=PROJECTOR_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/{name}?{BASE_QUERY}")
    _settled(tab)
    tab.screenshot(path=str(screenshot_dir / f"1280-{name}.png"), full_page=True)
    _assert_fits(tab, name)
    for label in LAZY_TABS.get(name, []):
        tab.get_by_role("tab", name=label, exact=True).click()
        _settled(tab)
        tab.screenshot(path=str(screenshot_dir / f"1280-{name}-{label}.png"), full_page=True)
        _assert_fits(tab, (name, label))
    # a 1024 px screen with the sidebar open: the text column was 144 px wide and 16
    # formulas were cut; the text and figure columns now stack, and everything fits
    _resized(tab, NARROW_VIEWPORT)
    tab.screenshot(path=str(screenshot_dir / f"1024-{name}.png"), full_page=True)
    _assert_fits(tab, (name, "1024 with the sidebar"))
    # a 1024 px screen with the sidebar closed: every formula fits
    tab.locator('[data-testid="stSidebar"]').hover()
    tab.locator('[data-testid="stSidebarCollapseButton"] button').click()
    # attached, not visible: once its closing transition ends the sidebar has no width,
    # which Playwright calls hidden; a loaded machine first polled after that and waited
    # 300 s for a visible collapsed sidebar (the README runs of sessions 46 and 47)
    tab.wait_for_selector('[data-testid="stSidebar"][data-collapsed="true"]', state="attached")
    tab.wait_for_timeout(500)  # the sidebar's closing transition
    _resized(tab, NARROW_VIEWPORT)
    assert tab.evaluate(CUT_FORMULAS) == [], (name, "1024")
    # the presenter mode at 1280 x 720: every step, in the presenter walk above
    context.close()


#: a 1280 x 800 projector's browser window: a presenter step is scaled to fit it
SHORT_VIEWPORT = {"width": 1280, "height": 720}
#: JavaScript: the presenter step's scale (explorer.presenter._FIT_STEP), its box on the
#: screen, the footer's bottom and the page's blank pixels under the step
FIT_BOX = """
() => {
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const box = block.getBoundingClientRect();
  const parts = [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stPageLink"], .st-key-presenter_toggle')];
  return {
    scale: parseFloat(block.dataset.hebScale || "1"), left: box.left, right: box.right,
    innerWidth: window.innerWidth,
    footer: Math.max(...parts.map((el) => el.getBoundingClientRect().bottom)),
    blank: main.scrollHeight - main.scrollTop - box.bottom,
  };
}
"""
#: JavaScript: true once the step is scaled and its footer is on the screen
FITTED = """
() => {
  const block = document.querySelector('[data-testid="stMainBlockContainer"]');
  const row = document.querySelector('.st-key-page_footer');
  return Boolean(block.dataset.hebScale) && row
    && row.getBoundingClientRect().bottom <= window.innerHeight;
}
"""
#: JavaScript: true once the step has no transform (a tall screen, the presenter mode left)
UNSCALED = """
() => !document.querySelector('[data-testid="stMainBlockContainer"]').style.transform
"""
#: a 1024 x 768 projector: the presenter mode is to fit it (README), and outside it the
#: sidebar is closed
NARROW_VIEWPORT = {"width": 1024, "height": 768}
#: JavaScript: [TeX, scrollWidth, clientWidth, right edge, column's right edge] of every
#: display formula that does not fit its box or reaches past its column's right edge
#: (at 1280 px with the sidebar open the zero-counts rule read "P(c | x) ∝ P(c) ∏ P(w")
CUT_FORMULAS = """
() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')].flatMap((el) => {
  const column = el.closest('[data-testid="stColumn"]')
    || el.closest('[data-testid="stMainBlockContainer"]');
  const right = el.getBoundingClientRect().right;
  const limit = column.getBoundingClientRect().right;
  if (el.scrollWidth <= el.clientWidth + 1 && right <= limit + 1) return [];
  const tex = (el.querySelector('annotation') || {}).textContent || el.textContent;
  return [[tex, el.scrollWidth, el.clientWidth, Math.round(right), Math.round(limit)]];
})
"""
#: JavaScript: [scrollWidth, clientWidth] of every grid whose columns reach past its box
#: (the known-truth table's log-loss was past the right edge at 1280 px)
WIDE_GRIDS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
  .filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => [s.scrollWidth, s.clientWidth])"""
#: JavaScript: the value of every select box whose shown value is cut ("synthetic (NB
#: assumption ho..."): the box shows it in its input, which scrolls when it is too narrow
CUT_SELECTS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stSelectbox"] input')]
  .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.value)
"""
#: JavaScript: true once every figure is drawn at its chart's width (after a resize; on a
#: scaled presenter step Streamlit draws it at its width on the screen, as measured here)
FIGURES_AT_WIDTH = """
() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every((chart) => {
  const plot = chart.querySelector('.js-plotly-plot');
  return plot && plot._fullLayout
    && Math.abs(plot._fullLayout.width - chart.getBoundingClientRect().width) <= 2;
})
"""
#: per lesson: its lazy tabs past the first (only the open one is built) with what they
#: hold: the hierarchy tab's title was cut ("...code 1409's pat"), the remedies table
#: reached past its column
LAZY_TABS = {
    "lesson_calibration": ["Remedies side by side"],
    "lesson_known_truth": ["Posteriors", "Calibration"],
    "lesson_hierarchy": ["The hierarchy", "Concentration per level"],
}


def _resized(tab, viewport: dict) -> None:
    """``tab`` at ``viewport``, laid out again (figures redrawn at their new width)."""
    tab.set_viewport_size(viewport)
    tab.evaluate(TWO_FRAMES)
    tab.wait_for_function(FIGURES_AT_WIDTH)
    tab.evaluate(TWO_FRAMES)


def _assert_fits(tab, where) -> None:
    """No formula, grid, select box or figure title on ``tab`` is cut at its right edge."""
    assert tab.evaluate(CUT_FORMULAS) == [], where
    assert tab.evaluate(WIDE_GRIDS) == [], where
    assert tab.evaluate(CUT_SELECTS) == [], where
    assert tab.evaluate(CUT_TITLES) == [], where


def _control_id(value) -> str:
    """A readable test id: the page and the control's label, not the tuple of kept titles."""
    return value if isinstance(value, str) else "-".join(value) or "all"


#: per lesson control: (page, slider label, titles (their start) of the figures it leaves
#: as they are: those must keep their drawing; every other figure must change)
LESSON_CONTROLS = [
    ("lesson_zero_counts", "Pseudo-count α", ()),
    ("lesson_zero_counts", "Repeat the e-mail", ("P(word | class)",)),
    ("lesson_dirichlet", "Categories K", ()),
    ("lesson_evidence", "What-if concentration m", ()),
    ("lesson_high_cardinality", "Your K (categories)", ("HEB-U's l1 error", "Corollary 1")),
    ("lesson_calibration", "Copies k of that feature", ()),
    ("lesson_known_truth", "Training rows", ()),
    ("lesson_hierarchy", "Rows per class", ()),
]


@pytest.mark.parametrize(("path", "label", "kept"), LESSON_CONTROLS, ids=_control_id)
def test_each_lesson_control_redraws_what_it_changes_and_only_that(
    context, app_url, path, label, kept
):
    """Moving the control changes the figures it should, leaves the drawing of every
    other figure in place (not redrawn: a redraw is most of a control's time in the
    browser) and keeps every metric's count; moving it back shows the first view again.
    No legend covers a tick label (Corollary 1's did) and no two bar value labels touch
    (the hierarchy lesson's read "0.00220.0025"). Each control's time is measured by
    ``benchmarks/page_speed.py``."""
    tab, _ = _open(context, f"{app_url}/{path}?{BASE_QUERY}")
    _settled(tab)
    assert tab.evaluate(COVERED_LABELS) == [], path
    before = tab.evaluate(NAMED_FIGURES)
    metrics = tab.locator('[data-testid="stMetricValue"]').all_inner_texts()
    there, back = _slider_steps(tab, label)
    timed(tab, there)
    _settled(tab)
    after = tab.evaluate(NAMED_FIGURES)
    assert [title for _, title, _ in after] != [] and len(after) == len(before), path
    for (old_name, title, old_data), (new_name, _, new_data) in zip(before, after, strict=True):
        where = (path, label, title)
        if title.startswith(kept):
            assert (new_name, new_data) == (old_name, old_data), where  # not redrawn
        else:
            assert new_name != old_name, where  # drawn anew: its figure changed
    assert len(tab.locator('[data-testid="stMetricValue"]').all_inner_texts()) == len(metrics)
    timed(tab, back)
    _settled(tab)
    restored = tab.evaluate(NAMED_FIGURES)
    assert [d for _, _, d in restored] == [d for _, _, d in before], (path, label)
    assert tab.locator('[data-testid="stMetricValue"]').all_inner_texts() == metrics
    assert tab.locator('[data-testid="stException"]').count() == 0, path
    tab.close()


def test_the_three_class_calibration_rule_fits_its_column(context, app_url):
    """known-truth has three classes: its rule (no log-odds) was one line cut at 1280 px
    with the sidebar open, "... + k log P(x1 | c)" past the text column's edge."""
    tab, _ = _open(context, f"{app_url}/lesson_calibration?{BASE_QUERY}&calib_data=known-truth")
    _settled(tab)
    tex = tab.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"stMain\"] annotation')]"
        ".map((el) => el.textContent).join(' ')"
    )
    assert "\\log Z(x)" in tex and "P(1" not in tex
    assert tab.evaluate(CUT_FORMULAS) == []
    tab.close()


#: a phone held upright
PHONE_VIEWPORT = {"width": 390, "height": 844}
#: per page a phone trial read: the figure it waits for (the start of its title)
PHONE_PAGES = {
    "dataset": None,
    "concentrations": "log10 of the learned",
    "compare": "Reliability",
    "lesson_high_cardinality": "Corollary 1",
    "lesson_known_truth": "Exact l1 error",
}
#: per page its lazy tabs past the first
PHONE_TABS = {"compare": ["Spread over folds", "Per class"], **LAZY_TABS}


@pytest.mark.parametrize("name", list(PHONE_PAGES))
def test_on_a_phone_no_figure_title_or_formula_is_cut(browser, app_url, screenshot_dir, name):
    """On a 390 x 844 phone the Compare page's reliability figure read "Reliability of the
    pooled out-of-fold pred": its title was wider than the figure. On each page a phone
    trial read, every figure keeps its whole title and every formula fits its column."""
    context = browser.new_context(viewport=PHONE_VIEWPORT)
    tab, _ = _open(context, f"{app_url}/{name}?{BASE_QUERY}")
    if PHONE_PAGES[name]:  # the comparison's cross-validation draws its figures later
        tab.locator(".js-plotly-plot .gtitle", has_text=PHONE_PAGES[name]).first.wait_for()
    _settled(tab)
    tab.screenshot(path=str(screenshot_dir / f"phone-{name}.png"), full_page=True)
    assert tab.evaluate(CUT_TITLES) == [], name
    assert tab.evaluate(CUT_FORMULAS) == [], name
    for label in PHONE_TABS.get(name, []):  # lazy tabs: only the open one is drawn
        tab.get_by_role("tab", name=label, exact=True).click()
        _settled(tab)
        tab.screenshot(path=str(screenshot_dir / f"phone-{name}-{label}.png"), full_page=True)
        assert tab.evaluate(CUT_TITLES) == [], (name, label)
        assert tab.evaluate(CUT_FORMULAS) == [], (name, label)
    context.close()


#: JavaScript: the step bar's height, and its buttons' and text's boxes outside the window
STEP_BAR_ON_SCREEN = f"""
() => {{
  const bar = document.querySelector('.st-key-{STEP_BAR_KEY}');
  const parts = [...bar.querySelectorAll('button, [data-testid="stMarkdown"]')];
  const outside = parts.filter((el) => {{
    const box = el.getBoundingClientRect();
    return box.left < 0 || box.right > window.innerWidth;
  }}).map((el) => el.textContent.trim());
  const text = bar.querySelector('[data-testid="stMarkdown"]').getBoundingClientRect();
  return {{height: bar.getBoundingClientRect().height, textWidth: text.width, outside}};
}}
"""
#: JavaScript: the top-left corners of a presenter step's text and figure columns
LESSON_COLUMN_CORNERS = """
() => [...document.querySelectorAll(
  '.st-key-lesson-columns [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]')]
  .slice(0, 2).map((el) => [el.getBoundingClientRect().left, el.getBoundingClientRect().top])
"""


@pytest.mark.parametrize("width", [390, 660])
def test_a_presenter_step_on_a_phone_or_half_a_laptop_screen_keeps_its_bar_and_values_whole(
    browser, app_url, screenshot_dir, width
):
    """On a 390 px phone the presenter's step bar kept one row: its text squeezed to one
    letter a line between the buttons (a bar 700 px tall) and "Next" was pushed past the
    screen's right edge. At 660 px (half a laptop's screen) the step's text and figure
    columns stayed side by side: the three metrics broke their values ("0.02 / 5") and the
    figure's title was cut. The bar now puts its text over its buttons on a phone, and a
    step's columns stack where the page is narrow, as outside the presenter mode."""
    context = browser.new_context(viewport={"width": width, "height": 844})
    url = f"{app_url}/lesson_known_truth?{BASE_QUERY}&present=1&step=2"
    tab, _ = _open(context, url)
    _step_shown(tab, "Step 2 of 3")
    _settled(tab)
    tab.screenshot(path=str(screenshot_dir / f"present-{width}.png"), full_page=True)
    bar = tab.evaluate(STEP_BAR_ON_SCREEN)
    assert bar["outside"] == [], bar
    assert bar["height"] < 200 and bar["textWidth"] > 150, bar
    (text_left, text_top), (figure_left, figure_top) = tab.evaluate(LESSON_COLUMN_CORNERS)
    assert abs(figure_left - text_left) < 2 and figure_top > text_top  # stacked
    values = tab.locator('[data-testid="stMetricValue"]')
    assert values.count() == 3
    for value in values.all():  # one line each: 2.6rem type is about 60 px tall a line
        assert value.bounding_box()["height"] < 90, value.inner_text()
    assert tab.evaluate(CUT_TITLES) == []
    context.close()
