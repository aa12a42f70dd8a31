"""The app's look: projector-friendly CSS and the page header."""

from __future__ import annotations

import streamlit as st

from explorer.errors import escape

__all__ = ["apply_style", "page_header", "text_metric"]

_STYLE = """
<style>
/* Readable from the back of a classroom: larger tables, metrics and tabs. */
/* The page starts under Streamlit's header (3.75rem, opaque): a notice shown before the
   title (a link's note) had its top cut off at 2.2rem; the title keeps its place by
   giving up most of its own top padding. */
[data-testid="stMainBlockContainer"] { padding-top: 3.75rem; max-width: 1500px; }
[data-testid="stMainBlockContainer"] h1 { padding-top: 0.3rem; }
/* A page's sections are h2 under its h1 title (st.header, "## "): as h3 (st.subheader) they
   skipped a level, which fails axe-core's heading-order. They keep the size and top padding
   Streamlit gives an h3 (an h2 gets 2.25rem and 1rem), the look the pages were laid out with;
   the rest (weight 600, line height, spacing) is the same for both. */
[data-testid="stMainBlockContainer"] h2 { font-size: 1.75rem; padding-top: 0.75rem; }
[data-testid="stMetricValue"] { font-size: 2rem; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
/* Streamlit greys a caption with opacity 0.6, which fades its inline code as well: the
   commands and names a reader copies came out at 3.0:1 on white (WCAG asks 4.5:1). The
   same grey as a colour (4.9:1) leaves the code its own green (8:1). */
[data-testid="stCaptionContainer"] { opacity: 1; color: #707070; }
/* Code blocks (the commands under each page): Streamlit's highlighting colours are 2.3 to
   3.8:1 on the block's #fcfcfb; the same hues darker, each at least 5:1. */
[data-testid="stCode"] code .token.comment, [data-testid="stCode"] code .token.punctuation
  { color: #696d7e; }
[data-testid="stCode"] code .token.variable, [data-testid="stCode"] code .token.property,
[data-testid="stCode"] code .token.attr-name { color: #007597; }
[data-testid="stCode"] code .token.boolean, [data-testid="stCode"] code .token.constant,
[data-testid="stCode"] code .token.symbol { color: #157d36; }
[data-testid="stCode"] code .token.number, [data-testid="stCode"] code .token.regex
  { color: #1c7a6d; }
[data-testid="stCode"] code .token.string, [data-testid="stCode"] code .token.char,
[data-testid="stCode"] code .token.attr-value { color: #077f2c; }
[data-testid="stCode"] code .token.operator, [data-testid="stCode"] code .token.entity,
[data-testid="stCode"] code .token.decorator, [data-testid="stCode"] code .token.atrule
  { color: #b0520d; }
[data-testid="stCode"] code .token.keyword, [data-testid="stCode"] code .token.tag,
[data-testid="stCode"] code .token.function, [data-testid="stCode"] code .token.class-name,
[data-testid="stCode"] code .token.selector { color: #186fbf; }
[data-testid="stCode"] code .token.important { color: #dc0000; }
button[data-baseweb="tab"] p { font-size: 1.05rem; }
[data-testid="stSidebar"] [data-testid="stMarkdownContainer"] p { font-size: 0.98rem; }
/* Metric labels and values wrap onto a second line instead of ending in "...". */
[data-testid="stMetricLabel"] *, [data-testid="stMetricValue"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
/* Page links (the footer's "Previous: ..." / "Next: ...") wrap instead of ending in "...". */
[data-testid="stPageLink-NavLink"] { height: auto; }
[data-testid="stPageLink-NavLink"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
/* A page link (the menu, the footer's Previous / Next) under keyboard focus: Streamlit
   marks it with a 15 % grey background only (1.1:1 against the page), which a reader at
   200 % zoom with the keyboard could not find; a ring in the theme's blue (6.1:1). */
a[data-testid="stPageLink-NavLink"]:focus-visible {
  outline: 2px solid #1f5fbf; outline-offset: 1px;
}
/* The footer's row (explorer.routing.FOOTER_KEY): half the default gap, so that
   "Previous: Calibration", the two buttons and "Next: Borrowing along a hierarchy" fit one
   row at 1280 px with the sidebar open; a narrower window wraps it, and the Next link then
   keeps to the right, where a reader looks for it (it went to the left of a second row). */
.st-key-page_footer { column-gap: 0.5rem; }
.st-key-page_footer
  > [data-testid="stElementContainer"]:last-child:has([data-testid="stPageLink"]) {
  margin-left: auto;
}
/* On a phone a toast (the default dataset's note) takes the whole width: at the top it
   covered the page's title for its 4 s, so it shows at the bottom there. */
@media (max-width: 640px) {
  [data-testid="stToastContainer"] { top: auto !important; bottom: 1rem; }
}
/* Formulas wider than their column scroll instead of being cut at the edge; the padding
   holds KaTeX's 2 px strut after a subscript (it made a formula that fits scrollable). */
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 0 0.2em; }
/* A lesson's text and figure columns (explorer.presenter.LESSON_COLUMNS_KEY) stack where
   the page is narrow, as on a 1024 px screen with the sidebar open: side by side, the
   text column would be 144 px wide and its formulas and figure titles cut. */
.st-key-lesson-columns { container-type: inline-size; }
@container (max-width: 700px) {
  .st-key-lesson-columns > [data-testid="stLayoutWrapper"] > [data-testid="stHorizontalBlock"] {
    gap: 1.5rem;
  }
  .st-key-lesson-columns > [data-testid="stLayoutWrapper"] > [data-testid="stHorizontalBlock"]
    > [data-testid="stColumn"] { flex: 1 1 100%; min-width: 100%; }
}
</style>
"""
#: the presenter mode (a projector in a lecture hall): large type, no sidebar, no header
_PRESENT_STYLE = """
<style>
html { font-size: 22px; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], header[data-testid="stHeader"] { display: none; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 1rem 2.5rem; }
/* a phone: 2.5rem a side (55 px of its 390) left the page 280 px */
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding: 1rem 0.75rem; }
}
[data-testid="stMetricValue"] { font-size: 2.6rem; }
h1 { font-size: 2.4rem !important; padding-top: 0 !important; }
/* a table's cells keep to one line ("0.663 ± 0.044" broke after its ±, "m-estimate"
   after its hyphen, at 1024 px); a table wider than the page scrolls sideways (its box) */
[data-testid="stTable"] th, [data-testid="stTable"] td,
[data-testid="stTable"] th *, [data-testid="stTable"] td * { white-space: nowrap !important; }
/* the page itself takes the keys (next / previous step): no focus frame around it (an
   outline, or the grey inset shadow Streamlit draws on a pseudo-element after PageDown) */
[data-testid="stMain"]:focus, [data-testid="stMain"]:focus-visible { outline: none; }
[data-testid="stMain"]:focus::before, [data-testid="stMain"]:focus::after,
[data-testid="stMain"]:focus-visible::before, [data-testid="stMain"]:focus-visible::after {
  box-shadow: none !important;
}
</style>
"""


def apply_style(presenting: bool = False) -> None:
    """Projector-friendly CSS (larger metric values, captions and tabs); in the presenter
    mode larger type still, and neither sidebar nor header."""
    st.html(_STYLE + (_PRESENT_STYLE if presenting else ""))


def page_header(title: str, lead: str) -> None:
    """A page title and one sentence (the app's own text) saying what the page is for."""
    st.title(title)
    st.markdown(lead)


#: a character's width in em of the metric value's type, on the wide side (for a word of
#: text: Source Sans' letters average about 0.5 em)
_METRIC_CHAR_EM = 0.52


def text_metric(column, label: str, text: str, key: str) -> None:
    """``column.metric(label, text)`` with the value's type shrunk to keep ``text`` (a
    column's name, shown as written) on one line of its column, never above the metrics'
    own size: a target named "purchased" broke into "purchase" / "d" at 1280 px."""
    shown = escape(text, limit=60)
    chars = max(len(text[:60]), 1)
    box = column.container(key=key)
    box.html(
        f"<style>.st-key-{key} {{ container-type: inline-size; }} "
        f'.st-key-{key} [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] '
        f"{{ font-size: min(1em, calc(100cqi / {_METRIC_CHAR_EM * chars:.2f})); }}</style>"
    )
    box.metric(label, shown)
