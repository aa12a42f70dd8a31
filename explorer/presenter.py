"""One idea per screen: a lesson's steps in the presenter mode.

A lesson draws its title and names its steps once, at the top of the page::

    steps = lesson_header(__file__, ["Laplace is a posterior mean", "The bias toward uniform"])

and guards what belongs to one step (its text, its figures) with ``if steps.show(2):``;
what no step guards shows on every step. Text written ``with`` :meth:`LessonSteps.notes`
(a slot made at the top of the text column) leads the screen in the presenter mode and
stays in place outside it; controls written ``with`` :meth:`LessonSteps.controls` sit in
the text column outside the presenter mode and, in it, in a "Settings" popover at the
top of that column (on every step, out of the way of the step's text and figure, so a
step fits a 1440 x 900 projector screen; a shorter screen gets the same layout scaled down,
:data:`_FIT_STEP`). Outside the presenter mode every step shows, so the page
is drawn as before. In the presenter mode only the current step shows, under a framed
bar "Step 2 of 3" with previous / next step buttons; the footer's keys (PageDown /
PageUp, the arrow keys) press those buttons first and turn the page at either end,
arriving on the previous page at its last step. The step lives in the URL (``?step=2``)
while the presenter mode is on, so a copied link reopens it.
"""

from __future__ import annotations

import re
import threading
import weakref
from contextlib import nullcontext

import streamlit as st

from explorer.state import STEP, STEP_REQUESTED, page_setting, page_values, presenting

__all__ = [
    "LAST",
    "LESSON_COLUMNS_KEY",
    "STEP_BAR_KEY",
    "STEP",
    "NEXT_STEP_KEY",
    "PREVIOUS_STEP_KEY",
    "DESIGN_HEIGHT",
    "DESIGN_MIN_WIDTH",
    "MIN_FIT_SCALE",
    "LessonSteps",
    "fit_step_script",
    "lesson_header",
    "lesson_steps",
]

#: the URL value of ``step`` that asks for a page's last step
LAST = "last"
#: keys of the step buttons (their element carries ``st-key-<key>``: the keys find them)
NEXT_STEP_KEY = "heb_next_step"
PREVIOUS_STEP_KEY = "heb_previous_step"
#: key of the step bar's container (``st-key-heb_step_bar``: the focus frame's selector)
STEP_BAR_KEY = "heb_step_bar"
#: the tallest figure of a presenter step (pixels): it leaves the step's metrics and
#: downloads room on a 900 px screen
PRESENTER_FIGURE_HEIGHT = 370
#: id of a shared (cached) figure -> (a weak reference to it, its presenter-sized copy),
#: made once under the lock (a figure is unhashable; the reference tells a reused id)
_FITTED: dict[int, tuple] = {}
_FIT_LOCK = threading.Lock()
#: the presenter's layout: a compact header and the current step's bar in a focus frame
#: that stays whole inside the screen (no negative margin, no clipping ancestor); a thin
#: footer divider, so the previous / next links stay on the screen
#: the step bar's width in rem beside its text: two buttons, gaps, padding and frame
STEP_BAR_CHROME_REM = 17.2
#: rem per character of the step text (its 0.93rem type, the bold "Step i of n:" wider)
STEP_TEXT_REM_PER_CHAR = 0.40
_PRESENT_LESSON_STYLE = f"""
<style>
[data-testid="stMain"] h1 {{ font-size: 1.9rem !important; padding: 0 !important; }}
[data-testid="stMetricValue"] {{ font-size: 1.8rem !important; }}
.st-key-{STEP_BAR_KEY} {{
  border: 3px solid #1f6feb; border-radius: 0.6rem; background: #eef4ff;
  padding: 0.25rem 0.9rem; box-sizing: border-box; overflow: visible; flex: 1 1 0;
  flex-wrap: nowrap !important; min-width: 0;
}}
.st-key-{STEP_BAR_KEY} > div {{ flex-shrink: 0; }}
.st-key-{STEP_BAR_KEY} > div:has([data-testid="stMarkdown"]) {{ flex: 1 1 auto; min-width: 0; }}
[data-testid="stMainBlockContainer"] {{ padding-top: 0.8rem !important; }}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p {{ font-size: 0.93rem; }}
[data-testid="stMain"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {{
  font-size: inherit;
}}
[data-testid="stMain"] .katex-display {{ margin: 0.4em 0; }}
[data-testid="stMain"] hr {{ margin: 0.3rem 0 !important; }}
/* a phone (390 px): the bar kept one row, its text squeezed to a letter a line between the
   buttons (a bar 700 px tall) and "Next" pushed past the screen's edge; there the step's
   text takes its own row over the two buttons, Next at the right */
@media (max-width: 640px) {{
  .st-key-{STEP_BAR_KEY} {{ flex-wrap: wrap !important; row-gap: 0.3rem; }}
  .st-key-{STEP_BAR_KEY} > div:has([data-testid="stMarkdown"]) {{ order: -1; flex: 1 1 100%; }}
  .st-key-{STEP_BAR_KEY} > div:last-child {{ margin-left: auto; }}
}}
</style>
"""
#: the screen height a presenter step is laid out for (every step fits 1440 x 900 whole)
DESIGN_HEIGHT = 900
#: the least width (CSS pixels) of a scaled step's layout: a narrower one (a 1024 x 768
#: screen) would set a lesson's text and figure side by side with a figure too narrow for
#: its legend, where the screen's own width stacks them; such a screen scrolls instead
DESIGN_MIN_WIDTH = 1280
#: the least scale of a presenter step on a short screen (22 px type becomes 13 px)
MIN_FIT_SCALE = 0.6
#: JavaScript, run with the footer on every page. On a screen shorter than DESIGN_HEIGHT
#: (a 1280 x 800 projector shows about 720 px in a browser) a presenter step is laid out
#: as on a DESIGN_HEIGHT-tall screen of the same shape, then scaled down to the screen
#: with a CSS transform: every step of every lesson at the one scale (type does not jump
#: between steps), as wide as the screen, a figure's legend wrapping as it does at
#: 1440 px. Should a step still end below the screen, it is scaled further, centred,
#: until its footer row is in view. The layout's width depends on the window alone and
#: the further scale leaves the layout as it is, so one measure settles it (no back and
#: forth). The lost height is given back by a negative margin, so that the page does not
#: scroll into blank space. A transform, not CSS zoom: plotly maps the mouse through
#: transforms (hover reads the right point), not through zoom. A tall screen, a page that
#: is not a presenter step, a scale below MIN_FIT_SCALE and a scaled layout narrower than
#: DESIGN_MIN_WIDTH keep (or get back) their own size; the last two scroll as before.
#: Rechecked when the page's layout or the window changes size, and twice a second
#: (leaving the presenter mode changes the page without a new footer).
_FIT_STEP = """
<script>
(() => {
  const MIN = MIN_FIT_SCALE, DESIGN = DESIGN_HEIGHT, MIN_WIDTH = DESIGN_MIN_WIDTH;
  /* Streamlit sizes a chart by its on-screen (scaled) width and height, so plotly drew it
     at the scale's size inside its layout-size box, which the scale shrank again: each
     chart is grown back to fill its box (a transform: plotly maps hovers through it). */
  const fillBoxes = (block, scaled) => {
    for (const gd of block.querySelectorAll(".js-plotly-plot")) {
      const drawn = gd._fullLayout && gd._fullLayout.width;
      const grow = scaled && drawn ? gd.offsetWidth / drawn : 1;
      const transform = Math.abs(grow - 1) > 0.01 ? `scale(${grow.toFixed(4)})` : "";
      if (gd.style.transform !== transform) {
        gd.style.transformOrigin = "top left";
        gd.style.transform = transform;
      }
    }
  };
  const clear = (block) => {
    block.style.transform = block.style.transformOrigin = block.style.marginBottom = "";
    block.style.width = block.style.maxWidth = block.style.alignSelf = "";
    block.dataset.hebScale = "";
    fillBoxes(block, false);
  };
  const fit = () => {
    const block = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (!block) return;
    const row = document.querySelector(".st-key-FOOTER_KEY");
    const base = window.innerHeight / DESIGN;
    const narrow = window.innerWidth / base < MIN_WIDTH;
    if (!document.querySelector(".st-key-STEP_BAR_KEY") || !row || base >= 1 || base < MIN
        || narrow) {
      if (block.dataset.hebScale) clear(block);
      return;
    }
    const width = `${100 / base}%`;
    if (block.style.width !== width) {  /* the layout of a DESIGN-tall screen: measure next time */
      block.style.width = width;
      block.style.maxWidth = "none";
      block.style.alignSelf = "flex-start";
      block.style.transformOrigin = "top left";
      block.style.transform = `scale(${base})`;
      block.dataset.hebScale = String(base);
      return;
    }
    fillBoxes(block, true);
    /* While a rerun draws the next step, the last one's stale elements lengthen the page
       for a moment: a further scale taken then would have Streamlit draw the new figures
       at that smaller size, grown back (type and all) once the scale returns. */
    if (document.querySelector('[data-stale="true"]')) return;
    const now = parseFloat(block.dataset.hebScale) || base;
    const top = block.getBoundingClientRect().top;
    const needed = (row.getBoundingClientRect().bottom - top) / now;  /* layout pixels */
    const scale = Math.max(MIN, Math.min(base, (window.innerHeight - top - 4) / needed));
    const shift = (block.parentElement.clientWidth * (1 - scale / base)) / 2;
    const transform = `translateX(${shift.toFixed(1)}px) scale(${scale})`;
    const margin = `${(-(1 - scale) * block.offsetHeight).toFixed(1)}px`;
    if (block.style.transform === transform && block.style.marginBottom === margin) return;
    block.style.transform = transform;
    block.style.marginBottom = margin;
    block.dataset.hebScale = String(scale);
  };
  window.__hebFit = fit;
  if (!window.__hebFitWatch) {
    window.__hebFitWatch = true;
    const watched = new WeakSet();
    const observer = new ResizeObserver(() => window.__hebFit());
    setInterval(() => {
      const block = document.querySelector('[data-testid="stMainBlockContainer"]');
      if (block && !watched.has(block)) { watched.add(block); observer.observe(block); }
      window.__hebFit();
    }, 500);
    window.addEventListener("resize", () => window.__hebFit());
  }
  fit();
})();
</script>
"""


def fit_step_script() -> str:
    """The footer's script that scales a presenter step down to a short screen
    (:data:`_FIT_STEP`), its keys and least scale filled in."""
    from explorer.routing import FOOTER_KEY

    script = _FIT_STEP.replace("MIN_FIT_SCALE", repr(MIN_FIT_SCALE))
    script = script.replace("DESIGN_MIN_WIDTH", str(DESIGN_MIN_WIDTH))
    script = script.replace("DESIGN_HEIGHT", str(DESIGN_HEIGHT))
    return script.replace("FOOTER_KEY", FOOTER_KEY).replace("STEP_BAR_KEY", STEP_BAR_KEY)


#: session name of the current page's step (a page switch starts at the link's step)
_CURRENT = "_presenter_step"
_MAX_STEP_TEXT = 8


def _step_bar_width_style(text: str) -> str:
    """CSS giving the step bar the width its ``text`` needs on one line: where the
    lesson's title leaves less beside it (a long title, a 1280 px window), the bar moves
    under the title instead of wrapping its text."""
    rem = STEP_BAR_CHROME_REM + STEP_TEXT_REM_PER_CHAR * len(text.replace("**", ""))
    rule = f"div:has(> .st-key-{STEP_BAR_KEY}) {{ min-width: min(100%, {rem:.1f}rem); }}"
    return f"<style>{rule}</style>"


def _requested_step(text: str | None, n_steps: int) -> int | None:
    """The step a URL value names (``2``, ``last``) if it is one of ``n_steps``, else None."""
    if text is None or len(text) > _MAX_STEP_TEXT:
        return None
    if text == LAST:
        return n_steps
    return int(text) if text.isdigit() and 1 <= int(text) <= n_steps else None


#: the narrowest figure column of a presenter step (pixels: 3/5 of a 1024 px screen)
PRESENTER_NARROW_WIDTH = 520
#: the tallest a presenter figure grows to keep its plot (pixels): a step with its
#: footer still fits a 1440 x 900 screen
PRESENTER_FIGURE_MAX = 440
#: the height of a presenter step's square plot (its side is its height less the title,
#: legend and axis title): known truth's posteriors, beside metrics and text that end
#: higher than a tall figure's step, still fit a 1440 x 900 screen with the footer
PRESENTER_SQUARE_MAX = 470
#: the least height a presenter figure keeps for its plot (pixels): 190 left the plots
#: under a two-row legend about 95 px tall at 1280 x 720 (the Dirichlet prior's step 1)
PRESENTER_PLOT_HEIGHT = 215
#: pixels of one row of a wrapped legend
_LEGEND_ROW = 28


def presenter_height(fig) -> int:
    """The height of a presenter step's copy of ``fig``: :data:`PRESENTER_FIGURE_HEIGHT`,
    or more where the title, a legend wrapped at :data:`PRESENTER_NARROW_WIDTH` and
    turned category labels would leave its plot less than :data:`PRESENTER_PLOT_HEIGHT`
    (at 1024 px a four-row legend left the calibration plot 60 px, the zero-count words
    the bars 45 px), up to :data:`PRESENTER_FIGURE_MAX`, which a sunburst always takes;
    a square plot takes :data:`PRESENTER_SQUARE_MAX`; never more than the figure's own
    height."""
    from heb.figures.style import FONT_SIZE, PLOT_GAP, legend_rows, title_height

    title = fig.layout.title.text or ""
    top = title_height(title) + _LEGEND_ROW * legend_rows(fig, PRESENTER_NARROW_WIDTH) + PLOT_GAP
    bottom = fig.layout.margin.b if fig.layout.margin.b is not None else 80
    xs = [getattr(trace, "x", None) for trace in fig.data]
    labels = [
        re.sub(r"<[^>]*>", "", value)
        for x in xs
        if x is not None
        for value in x
        if isinstance(value, str)
    ]
    if labels:  # text on the x axis: plotly turns it upright where it does not fit level
        longest = 0.6 * FONT_SIZE * max(map(len, labels))
        if len(set(labels)) * (longest + 10) > PRESENTER_NARROW_WIDTH - 120:
            bottom += longest
    needed = int(top + PRESENTER_PLOT_HEIGHT + bottom)
    # a square plot: its height is its width too (known truth's posteriors were 150 px a
    # side); a sunburst is round (the hierarchy's tree was 190 px across at 1280 x 720,
    # its codes' labels unreadable)
    if fig.layout.yaxis.scaleanchor == "x":
        return min(int(fig.layout.height), PRESENTER_SQUARE_MAX)
    if fig.data and all(trace.type == "sunburst" for trace in fig.data):
        needed = PRESENTER_FIGURE_MAX
    return min(int(fig.layout.height), PRESENTER_FIGURE_MAX, max(PRESENTER_FIGURE_HEIGHT, needed))


def _shorter_copy(fig, height: int):
    """A copy of ``fig`` ``height`` pixels tall; a title and legend placed in pixels
    (:func:`heb.figures.style.frame_title_and_legend`) are placed again for that height."""
    import plotly.graph_objects as go

    from heb.figures.style import frame_title_and_legend

    out = go.Figure(fig)
    title = out.layout.title
    if title.yref == "container" and title.text:
        frame_title_and_legend(out, title.text, height)
    else:
        out.update_layout(height=height)
    return out


def _move(delta: int, n_steps: int) -> None:
    """Callback of a step button: one step forward or back, within 1 ... n_steps."""
    state = st.session_state
    state[_CURRENT] = min(max(state.get(_CURRENT, 1) + delta, 1), n_steps)


#: the key of the container around a lesson's text and figure columns (outside the
#: presenter mode); :mod:`explorer.style` stacks them where that container is narrow
LESSON_COLUMNS_KEY = "lesson-columns"


class LessonSteps:
    """The steps of one lesson page (see the module docstring).

    Parameters
    ----------
    titles : sequence of str
        One short title per step, in order (at least one).
    """

    def __init__(self, titles) -> None:
        self.titles = tuple(titles)
        if not self.titles:
            raise ValueError("A lesson needs at least one step.")
        self.presenting = presenting()
        self._settings = None  # the step bar's "Settings" popover (presenter mode)
        state = st.session_state
        text = state.pop(STEP_REQUESTED, None)
        requested = _requested_step(text, len(self.titles))
        if text is not None:  # a page entered: at its link's step, else (refused) its first
            state[_CURRENT] = 1 if requested is None else requested
        #: a link's ``?step=`` that names no step of this lesson (said, not dropped)
        self.refused = text if text is not None and requested is None else None
        current = state.get(_CURRENT, 1)
        self.current = current if 1 <= current <= len(self.titles) else 1
        state[_CURRENT] = self.current
        self._sync_url()

    def _sync_url(self) -> None:
        """``?step=`` while presenting past step 1; gone otherwise."""
        values = page_values()
        if self.presenting and self.current > 1:
            values[STEP] = str(self.current)
            if st.query_params.get(STEP) != values[STEP]:
                st.query_params[STEP] = values[STEP]
        else:
            values.pop(STEP, None)
            if STEP in st.query_params:
                del st.query_params[STEP]

    def show(self, step: int) -> bool:
        """Whether what belongs to ``step`` (1-based) is drawn: always outside the
        presenter mode, only for the current step in it."""
        if not 1 <= step <= len(self.titles):
            raise ValueError(f"This lesson has steps 1 to {len(self.titles)}, not {step}.")
        return not self.presenting or step == self.current

    def notes(self):
        """Where a step's text goes: in the presenter mode a container made here (call it
        at the top of the text column, before the controls, so the step's idea leads the
        screen); outside it the text stays where the page writes it."""
        return st.container() if self.presenting else nullcontext()

    def controls(self):
        """Where a lesson's controls go: a "Settings" popover at the top of the text column
        in the presenter mode (made by :meth:`columns`), in place outside it."""
        return self._settings if self._settings is not None else nullcontext()

    def control_pair(self) -> tuple:
        """Two places for controls: side by side when presenting (the Settings popover then
        fits a 1280 x 720 screen), one under the other outside it."""
        return tuple(st.columns(2)) if self.presenting else (st, st)

    def columns(self) -> list:
        """The text and figure columns: 1 : 2, and 2 : 3 in the presenter mode, where the
        text column holds the "Settings" popover (:meth:`controls`) and the step's text.

        Call it where the controls are drawn (inside the page's fragment, if any: a
        fragment writes to its own elements only)."""
        if not self.presenting:
            return st.container(key=LESSON_COLUMNS_KEY).columns([1, 2], gap="large")
        # in the same keyed container: a window under ~810 px (half a 1280 px laptop screen)
        # stacks them too, where side by side three metrics broke their values ("0.02 / 5")
        # and the figure's title was cut at its column's edge
        left, right = st.container(key=LESSON_COLUMNS_KEY).columns([2, 3], gap="large")
        self._settings = left.popover("Settings", icon=":material/tune:")
        return [left, right]

    def fitted(self, built: tuple) -> tuple:
        """``(figure, data)`` as :func:`explorer.display.show_figure` takes them; in the
        presenter mode a figure taller than :data:`PRESENTER_FIGURE_HEIGHT` is swapped for a
        copy of that height (made once per figure; the shared figure is never changed)."""
        fig, data = built
        height = fig.layout.height
        if not self.presenting or height is None or height <= PRESENTER_FIGURE_HEIGHT:
            return fig, data
        with _FIT_LOCK:
            ref, copy = _FITTED.get(id(fig), (None, None))
            if ref is None or ref() is not fig:
                for key in [k for k, (r, _) in _FITTED.items() if r() is None]:
                    del _FITTED[key]  # figures evicted from the cache
                copy = _shorter_copy(fig, presenter_height(fig))
                _FITTED[id(fig)] = (weakref.ref(fig), copy)
            return copy, data

    def tabs(self, labels: list[str], setting: str | None = None) -> list:
        """``st.tabs(labels)``; in the presenter mode plain containers (each tab is a step,
        and its content is guarded by :meth:`show`).

        With ``setting`` (a page setting's name: the open tab is kept for the session and in
        a link) the tabs are lazy: only the open one is to be built (:meth:`is_open`), so a
        control redraws one tab's figures, not every tab's out of sight.
        """
        if self.presenting:
            return [st.container() for _ in labels]
        if setting is None:
            return st.tabs(labels)
        return st.tabs(labels, **page_setting(setting, labels[0], labels))

    @staticmethod
    def is_open(tab) -> bool:
        """Whether a tab of :meth:`tabs` is to be built: the open one of lazy tabs, any
        other tab or presenter container."""
        return getattr(tab, "open", None) is not False

    def bar(self) -> None:
        """The presenter's step bar in its focus frame: previous step, "Step i of n: title",
        next step."""
        if not self.presenting:
            return
        n_steps = len(self.titles)
        text = f"**Step {self.current} of {n_steps}:** {self.titles[self.current - 1]}"
        st.html(_PRESENT_LESSON_STYLE + _step_bar_width_style(text))
        with st.container(
            horizontal=True, vertical_alignment="center", gap="medium", key=STEP_BAR_KEY
        ):
            st.button(
                "Previous",
                key=PREVIOUS_STEP_KEY,
                icon=":material/chevron_left:",
                disabled=self.current == 1,
                on_click=_move,
                args=(-1, n_steps),
            )
            st.markdown(text)
            st.button(
                "Next",
                key=NEXT_STEP_KEY,
                icon=":material/chevron_right:",
                icon_position="right",
                disabled=self.current == n_steps,
                on_click=_move,
                args=(1, n_steps),
            )


def lesson_steps(titles) -> LessonSteps:
    """The steps of the lesson being drawn, with the presenter's step bar drawn here."""
    steps = LessonSteps(titles)
    steps.bar()
    return steps


def lesson_header(file: str, titles, about: str = "") -> LessonSteps:
    """A lesson page's title, its ``Lesson i of n`` caption (`` · about`` after it) and
    its steps (:func:`lesson_steps`); ``file`` is the page's ``__file__``. In the
    presenter mode the title (the caption its tooltip) and the step bar share one row,
    so the step keeps the screen's height."""
    from explorer.routing import lesson_caption, page_title

    caption = lesson_caption(file) + (f" · {about}" if about else "")
    if not presenting():
        st.title(page_title(file))
        st.caption(caption)
        return lesson_steps(titles)
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        st.title(page_title(file), width="content", help=caption)
        steps = lesson_steps(titles)
    if steps.refused is not None:
        from explorer.errors import escape

        st.caption(
            f"The link's step {escape(steps.refused, limit=12)} is not one of this "
            f"lesson's steps 1 to {len(steps.titles)}: step {steps.current} is shown."
        )
    return steps
