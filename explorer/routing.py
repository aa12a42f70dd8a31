"""The app's pages, the shell drawn around each of them, and the route through it.

``app.py`` calls :func:`app_shell` (page config, style, ``st.navigation``, the shared
sidebar) and runs the page it returns. Streamlit, however, starts an app whose entry
script sits next to a ``pages/`` folder in its legacy multipage mode, which lasts until
the first ``st.navigation`` call of the server process: on a fresh server, the first
visit to a page's own URL (``/compare``) runs ``pages/compare.py`` alone, without
``app.py``. :func:`ensure_entry_point`, called at the top of every page, notices that:
its ``st.navigation`` call (public API) ends the legacy mode for every later run, and one
``st.rerun`` draws the page through ``app.py`` at once, because Streamlit folds the running
script into each widget's id: a widget drawn by the legacy run would lose its first click.
No Streamlit internal is touched. Under ``streamlit run pages/x.py`` (or ``AppTest`` on a
page file) the page draws the shell itself and carries on in the same run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

__all__ = [
    "SECTIONS",
    "app_shell",
    "draw_shell",
    "loading_note",
    "ensure_entry_point",
    "lesson_caption",
    "navigation_pages",
    "neighbours",
    "page_footer",
    "page_title",
    "route",
    "sidebar_menu",
]

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"
#: URL of the Dataset page; it is also the default page served at the root URL
DATASET_URL = "dataset"
#: (file, title, icon) of each page, by navigation section; the first is the default page
SECTIONS = {
    "Explore": [
        ("dataset.py", "Dataset", ":material/table_chart:"),
        ("concentrations.py", "Concentrations", ":material/grid_on:"),
        ("compare.py", "Compare", ":material/compare_arrows:"),
        ("explain.py", "Explain a prediction", ":material/psychology_alt:"),
        ("benchmark.py", "Benchmark", ":material/leaderboard:"),
    ],
    "Lessons": [
        ("lesson_zero_counts.py", "Zero counts", ":material/exposure_zero:"),
        ("lesson_dirichlet.py", "The Dirichlet prior", ":material/tune:"),
        ("lesson_evidence.py", "The evidence curve", ":material/show_chart:"),
        ("lesson_high_cardinality.py", "High cardinality", ":material/view_comfy:"),
        ("lesson_calibration.py", "Calibration", ":material/straighten:"),
        ("lesson_known_truth.py", "Known truth", ":material/verified:"),
        ("lesson_hierarchy.py", "Borrowing along a hierarchy", ":material/account_tree:"),
    ],
    "Read more": [
        ("references.py", "References", ":material/menu_book:"),
    ],
}
_SHELL_DRAWN = "_explorer_shell_drawn"
#: set once the legacy mode's first run has asked for a rerun through ``app.py``
_LEGACY_RERUN = "_explorer_legacy_rerun"
#: session name of the page whose first run :func:`loading_note` saw last
_NOTED_PAGE = "_explorer_noted_page"
#: URL flag (and session name) of the presenter mode: ``?present=1``
PRESENT = "present"
#: the browser tab's icon: an emoji, which Streamlit draws as an inline SVG (a
#: ":material/...:" icon makes the browser fetch it from fonts.gstatic.com, offline too)
PAGE_ICON = "📊"
#: key of the footer's row: the previous page's link, the buttons, the next page's link
FOOTER_KEY = "page_footer"


def navigation_pages() -> dict[str, list]:
    """The ``st.Page`` objects of every page, by section.

    The Dataset page is the default (served at ``/``); a hidden twin of it answers its
    own address ``/dataset``, which a default page cannot hold in Streamlit. Every other
    page keeps the address Streamlit infers from its file name (``/compare``), the same
    one the legacy mode uses, so a direct visit lands on the same page either way.
    """
    navigation: dict[str, list] = {}
    for section, entries in SECTIONS.items():
        navigation[section] = [
            st.Page(
                PAGES_DIR / name,
                title=title,
                icon=icon,
                default=index == 0 and section == "Explore",
                url_path=f"{DATASET_URL}-home" if name == "dataset.py" else None,
            )
            for index, (name, title, icon) in enumerate(entries)
        ]
    dataset_file, dataset_title, dataset_icon = SECTIONS["Explore"][0]
    navigation["Explore"].append(
        st.Page(
            PAGES_DIR / dataset_file,
            title=dataset_title,
            icon=dataset_icon,
            url_path=DATASET_URL,
            visibility="hidden",
        )
    )
    return navigation


def _presenting_requested() -> bool:
    """Whether the presenter mode is on, read without :mod:`explorer.state` (whose import
    takes seconds on a fresh server): the session's flag, else the link's ``?present=1``."""
    if PRESENT in st.session_state:
        return bool(st.session_state[PRESENT])
    return st.query_params.get(PRESENT) == "1"


def route():
    """The page config and the navigation menu, and the page to run.

    The first things a script run sends, before any slow import: on a fresh server the
    browser otherwise showed Streamlit's own menu of file names ("lesson zero counts")
    for the seconds the first run spent importing pandas and the engine.
    """
    from explorer.warm_up import warm_up_in_background

    warm_up_in_background()
    st.set_page_config(
        page_title="HEB Explorer",
        page_icon=PAGE_ICON,
        layout="wide",
        # open on a desktop; closed on a phone, where the open menu covers the page
        initial_sidebar_state="auto",
        menu_items={"About": "HEB Explorer: learned smoothing for categorical Naive Bayes."},
    )
    pages = navigation_pages()
    page = st.navigation(pages, position="hidden")
    if not _presenting_requested():
        sidebar_menu(pages)
    return page


def sidebar_menu(pages: dict[str, list]) -> None:
    """The menu: every visible page by section, as page links at the top of the sidebar.

    Not ``st.navigation``'s own sidebar menu: on a fresh server Streamlit's first run
    draws that menu from the ``pages/`` file names ("lesson zero counts", "app") before
    any line of ours runs, so the app hides it (``client.showSidebarNavigation = false``
    in ``.streamlit/config.toml``) and draws this one, which shows the page titles only.
    """
    with st.sidebar.container(gap="small", key="page_menu"):
        for section, entries in pages.items():
            st.caption(section)
            for entry in entries:
                if entry.visibility != "hidden":
                    st.page_link(entry, width="stretch")


def draw_shell(page) -> None:
    """What every page shares around the ``page`` that :func:`route` chose: the session
    state (from the link on a first run), the projector style and the shared sidebar
    (which also syncs the URL)."""
    from explorer.sidebar import sidebar
    from explorer.state import enter_page, init_state, presenting
    from explorer.style import apply_style

    init_state()
    apply_style(presenting())
    enter_page(page.url_path)
    sidebar()
    st.session_state[_SHELL_DRAWN] = True


@contextmanager
def loading_note(page) -> Iterator[None]:
    """A "Loading <page> ..." note while a page's first run of the session takes over
    half a second (a slow first visit or page switch showed grey placeholders and no
    word). A control's rerun gets no note; Streamlit's spinner shows after 0.5 s only."""
    state = st.session_state
    entering = state.get(_NOTED_PAGE) != page.url_path
    state[_NOTED_PAGE] = page.url_path
    if not entering:
        yield
        return
    with st.spinner(f"Loading {page.title} ..."):
        yield


def app_shell():
    """Route and draw what every page shares; return the page to run.

    Called once per script run by :func:`ensure_entry_point` when Streamlit ran a page
    file without ``app.py`` (``app.py`` itself calls :func:`route`, then :func:`draw_shell`
    and the page under a :func:`loading_note`).
    """
    page = route()
    draw_shell(page)
    return page


def ensure_entry_point() -> None:
    """Draw the app's shell when Streamlit ran this page file without ``app.py``.

    Call first thing in every page. After ``app.py`` it does nothing; in Streamlit's
    legacy ``pages/`` mode (the first visit of a fresh server to a page's own URL) it
    ends that mode and reruns through ``app.py``; under ``streamlit run pages/x.py`` it
    draws the menu, style and sidebar itself and lets the page carry on in the same run.
    """
    if st.session_state.pop(_SHELL_DRAWN, False):
        return
    if _legacy_first_run():
        route()  # st.navigation ends the legacy mode for the whole process
        st.session_state[_LEGACY_RERUN] = True
        st.rerun()  # draw the page through app.py: its widgets get their lasting ids
    app_shell()
    st.session_state.pop(_SHELL_DRAWN, None)


def _legacy_first_run() -> bool:
    """True when Streamlit's legacy ``pages/`` mode ran this page in place of ``app.py``
    (the session's first run; once per session at most, so a mode that did not end cannot
    loop). A widget drawn in such a run has another id than the same widget drawn through
    ``app.py`` (Streamlit folds the running script into it), so a click on a page drawn by
    the legacy run was lost on the next run (seen: "Run the benchmark" did nothing).
    Never under ``AppTest``, which runs a page file it switched to on every run."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or st.session_state.get(_LEGACY_RERUN, False) or not runtime.exists():
        return False
    # AppTest stands a mock in for the server's Runtime and starts every run of a page it
    # switched to in the legacy mode: a rerun there ends nothing
    in_a_server = type(runtime.Runtime.instance()) is runtime.Runtime
    return in_a_server and Path(ctx.main_script_path).name == "app.py"


def _ordered() -> list[tuple[str, str, str]]:
    """(file, title, icon) of every page, in menu order."""
    return [entry for entries in SECTIONS.values() for entry in entries]


def page_title(file: str) -> str:
    """The menu title of the page in ``file`` (a page's ``__file__``): one name per page."""
    name = Path(file).name
    return next(title for entry, title, _ in _ordered() if entry == name)


def lesson_caption(file: str) -> str:
    """``Lesson 2 of 7``: where the lesson in ``file`` stands in the menu's Lessons."""
    names = [entry for entry, _, _ in SECTIONS["Lessons"]]
    return f"Lesson {names.index(Path(file).name) + 1} of {len(names)}"


def neighbours(file: str) -> tuple[tuple | None, tuple | None]:
    """The (file, title, icon) before and after ``file`` in the menu (None at either end)."""
    pages = _ordered()
    index = [entry for entry, _, _ in pages].index(Path(file).name)
    before = pages[index - 1] if index > 0 else None
    after = pages[index + 1] if index + 1 < len(pages) else None
    return before, after


#: The footer's strip, our own constant HTML (no user text), drawn in the page itself (no
#: component iframe: the browser loads no extra frame or script chunk for it). "Copy link"
#: copies the browser's address at the moment of the click (a fragment's rerun keeps it
#: current, where text drawn by the last full run would not be) and shows it for copying by
#: hand; "copied" is a status (a screen reader says it), and the boxes' grey borders are
#: 4.5:1 on white (#ccc and #ddd were 1.6:1 and 1.4:1, the link's box hardly seen at
#: 200 %). Keys: PageDown first scrolls the page (Streamlit's main column, or the document
#: if that is what scrolls) by about a screen until the footer's row of links is in view; then
#: it presses the presenter's "Next step" button while there is one, else follows the "Next"
#: link: a clicker sends PageDown / PageUp, and a presenter must see the bottom of a long
#: page before it turns. PageUp likewise upwards and backwards; held down (auto-repeat)
#: they scroll but never turn, which would fly through the pages. Arrow right / left
#: (outside a widget) turn at once, in the presenter mode only: outside it a keyboard
#: reader's arrow on a focused button or link left the page (trial V). The script runs
#: again whenever a page draws the strip anew; each run replaces the listener and the
#: timer of the run before.
_LINK_AND_KEYS = """
<div style="display:flex;gap:8px;align-items:center;font:14px 'Source Sans Pro',sans-serif">
  <button id="heb-copy" type="button" style="padding:4px 12px;border:1px solid #767676;
    border-radius:8px;background:#fff;cursor:pointer;font:inherit">Copy link</button>
  <input id="heb-link" readonly aria-label="Link to this view" style="flex:1;padding:4px 8px;
    border:1px solid #767676;border-radius:6px;color:#333;font:13px monospace">
  <span id="heb-done" role="status" style="color:#1f7a3a"></span>
</div>
<script>
(() => {
  const box = () => document.getElementById("heb-link");
  const show = () => { if (box()) box().value = window.location.href; };
  show();
  clearInterval(window.__hebLinkTimer);
  window.__hebLinkTimer = setInterval(show, 1000);
  document.getElementById("heb-copy").onclick = async () => {
    show();
    box().select();
    let copied = false;
    try { await navigator.clipboard.writeText(box().value); copied = true; }
    catch (error) { copied = document.execCommand("copy"); }
    document.getElementById("heb-done").textContent = copied ? "copied" : "select and copy";
  };
  if (window.__hebTurn) document.removeEventListener("keydown", window.__hebTurn);
  /* the box that scrolls the page: Streamlit's main column, else the document */
  const scroller = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    const scrolls = main && main.scrollHeight > main.clientHeight + 1
      && ["auto", "scroll"].includes(getComputedStyle(main).overflowY);
    return scrolls ? main : document.scrollingElement || document.documentElement;
  };
  /* pixels of the page out of view above, or below down to the footer's row of links (the
     link strip under it is not worth a clicker's press) */
  const beyond = (pane, forward) => {
    if (!forward) return pane.scrollTop;
    const toEnd = pane.scrollHeight - pane.clientHeight - pane.scrollTop;
    const row = document.querySelector(".st-key-FOOTER_KEY");
    if (!row) return toEnd;
    const main = pane !== document.scrollingElement && pane !== document.documentElement;
    const viewBottom = main ? pane.getBoundingClientRect().bottom : window.innerHeight;
    return Math.min(toEnd, row.getBoundingClientRect().bottom - viewBottom);
  };
  window.__hebTurn = (event) => {
    const where = document.activeElement;
    const inWidget = where && where.closest("input, textarea, [role=slider], [role=combobox]");
    const paging = event.key === "PageDown" || event.key === "PageUp";
    const arrows = ARROWS_TURN && !inWidget;
    const forward = event.key === "PageDown" || (event.key === "ArrowRight" && arrows);
    const back = event.key === "PageUp" || (event.key === "ArrowLeft" && arrows);
    if (!forward && !back) return;
    if (paging) {
      /* 85 % of a screen while the page goes on that way: the lines at the edge stay in view */
      const pane = scroller();
      if (beyond(pane, forward) > 1) {
        event.preventDefault();
        const screen = Math.min(pane.clientHeight, window.innerHeight);
        pane.scrollBy({ top: (forward ? 1 : -1) * Math.round(0.85 * screen), behavior: "instant" });
        return;
      }
    }
    if (paging && event.repeat) { event.preventDefault(); return; }
    /* a lesson's next / previous step first (presenter mode), the page at either end */
    const step = document.querySelector(
      `.st-key-${forward ? "NEXT_STEP_KEY" : "PREVIOUS_STEP_KEY"} button:not([disabled])`);
    if (step) {
      event.preventDefault();
      step.click();
      document.querySelectorAll('[data-testid="stMain"]').forEach((el) => el.scrollTo(0, 0));
      window.scrollTo(0, 0);
      return;
    }
    const word = forward ? "Next:" : "Previous:";
    const link = [...document.querySelectorAll('[data-testid="stPageLink-NavLink"]')]
      .find((a) => a.innerText.includes(word));
    if (link) { event.preventDefault(); link.click(); }
  };
  document.addEventListener("keydown", window.__hebTurn);
  /* a page link pushes the page's address (bare, or with the link's own query such as
     step=last), then the page's run pushes it again with its settings: two entries for
     one visit, so Back took two presses. The first push of a page's settings after it is
     entered replaces the link's address; later changes of its settings add entries. The
     next page's settings can also arrive while the address is still the last page's (a
     race): pushed there, they made Back land on that page without its step. So, just
     after a page link is clicked, a push to the page being left is held, then dropped
     when the next page's address is pushed (its query given to that address if it has
     none), or pushed as it was, should no page switch follow. */
  if (!window.__hebHistory) {
    window.__hebHistory = true;
    const push = history.pushState.bind(history);
    let leftFrom = null, leftAt = 0, held = null, entered = false;
    document.addEventListener("click", (event) => {
      const links = '[data-testid="stPageLink-NavLink"], [data-testid="stSidebarNavLink"]';
      if (event.target.closest(links)) {
        leftFrom = location.pathname;
        leftAt = Date.now();
      }
    }, true);
    const release = () => {
      if (held) { const [state, title, url] = held; held = null; push(state, title, url); }
    };
    history.pushState = (state, title, url) => {
      const next = url == null ? null : new URL(String(url), location.href);
      if (!next) return push(state, title, url);
      if (next.pathname === location.pathname) {
        if (entered || !location.search || next.href === location.href) {
          entered = false;
          return history.replaceState(state, title, url);
        }
        if (leftFrom === location.pathname && Date.now() - leftAt < RACE_MS) {
          held = [state, title, url];
          setTimeout(release, RACE_MS);
          return undefined;
        }
        return push(state, title, url);
      }
      /* another page: its address, with the held settings' query if they raced it */
      let target = url;
      entered = !held;
      if (held) {
        const query = next.search || new URL(String(held[2]), location.href).search;
        target = next.pathname + query + next.hash;
        held = null;
      }
      leftFrom = null;
      return push(state, title, target);
    };
  }
  /* on a phone the open menu lies over the page: a page link tapped in it closes it (a
     page link, unlike Streamlit's own menu, left it open over the page it opened) */
  if (!window.__hebMenuCloser) {
    window.__hebMenuCloser = true;
    document.addEventListener("click", (event) => {
      const menu = '[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]';
      const sidebar = document.querySelector('[data-testid="stSidebar"]');
      const main = document.querySelector('[data-testid="stMain"]');
      if (!event.target.closest(menu) || !sidebar || !main) return;
      const over = main.getBoundingClientRect().left < sidebar.getBoundingClientRect().right - 1;
      if (!over) return;
      setTimeout(() => {
        const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
        if (close && sidebar.dataset.collapsed !== "true") close.click();
      }, 0);
    }, true);
  }
  /* entering or leaving the presenter mode (the footer's button) opens the page at its
     top: the view kept the footer's scroll, with the title and the first step above it */
  if (!window.__hebToggleWatch) {
    window.__hebToggleWatch = true;
    document.addEventListener("click", (event) => {
      const button = event.target.closest(".st-key-presenter_toggle button");
      if (button) window.__hebToggled = button.innerText;
    }, true);
    setInterval(() => {
      const button = document.querySelector(".st-key-presenter_toggle button");
      if (!window.__hebToggled || !button || button.innerText === window.__hebToggled) return;
      window.__hebToggled = null;
      document.querySelectorAll('[data-testid="stMain"]').forEach((el) => el.scrollTo(0, 0));
      window.scrollTo(0, 0);
    }, 100);
  }
})();
</script>
"""


#: for this long (ms) after a page link's click, a push to the page's own address is taken
#: for the next page's settings racing the switch (see the footer script)
HISTORY_RACE_MS = 1500


def _link_and_keys() -> str:
    """The footer's strip, with the keys of the presenter's step buttons and of the footer's
    row filled in (and whether the arrow keys turn: in the presenter mode), and the script
    that fits a presenter step to a short screen."""
    from explorer.presenter import NEXT_STEP_KEY, PREVIOUS_STEP_KEY, fit_step_script
    from explorer.state import presenting

    keys = {
        "NEXT_STEP_KEY": NEXT_STEP_KEY,
        "PREVIOUS_STEP_KEY": PREVIOUS_STEP_KEY,
        "RACE_MS": str(HISTORY_RACE_MS),
    }
    strip = _LINK_AND_KEYS.replace("ARROWS_TURN", "true" if presenting() else "false")
    for name, key in (keys | {"FOOTER_KEY": FOOTER_KEY}).items():
        strip = strip.replace(name, key)
    return strip + fit_step_script()


def _toggle_presenting() -> None:
    st.session_state[PRESENT] = not st.session_state.get(PRESENT, False)


def page_footer(file: str, settings: bool = False) -> None:
    """Previous / next links, the link to this view, a reset and the presenter switch.

    Parameters
    ----------
    file : str
        The page's ``__file__``.
    settings : bool
        Whether the page has settings of its own (:func:`explorer.state.page_setting`):
        then a "Reset to defaults" button is offered.
    """
    from explorer.presenter import LAST
    from explorer.state import STEP, presenting, reset_page_settings

    before, after = neighbours(file)
    st.divider()
    # one row whose parts take the width of their content, the buttons centred between two
    # stretching spaces: a link's label keeps to one line ("Previous: Borrowing along a
    # hierarchy" took three in a 2/9 column); a window too narrow for the whole row wraps
    # it between its parts, never inside a label
    with st.container(horizontal=True, vertical_alignment="center", key=FOOTER_KEY):
        if before is not None:  # a presenter going back arrives at the previous page's last step
            st.page_link(
                PAGES_DIR / before[0],
                label=f"Previous: {before[1]}",
                icon=before[2],
                query_params={STEP: LAST} if presenting() else None,
            )
        st.space("stretch")
        with st.container(horizontal=True, gap="small", width="content"):
            if settings:
                st.button(
                    "Reset to defaults",
                    on_click=reset_page_settings,
                    icon=":material/restart_alt:",
                    key="reset_page_settings",
                )
            st.button(
                "Leave presenter mode" if presenting() else "Presenter mode",
                on_click=_toggle_presenting,
                icon=":material/co_present:",
                key="presenter_toggle",
                help=(
                    "Large type, no sidebar; PageDown / PageUp scroll a long page, then turn "
                    "to the next / previous one; the arrow keys turn at once."
                ),
            )
        st.space("stretch")
        if after is not None:
            st.page_link(PAGES_DIR / after[0], label=f"Next: {after[1]}", icon=after[2])
    st.caption(
        "The link below holds this view: page, dataset, methods and every setting; "
        "opened elsewhere it shows the same numbers."
    )
    st.html(_link_and_keys(), unsafe_allow_javascript=True)
