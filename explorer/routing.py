"""The app's pages, the shell drawn around each of them, and the route through it.

``app.py`` calls :func:`app_shell` (page config, style, ``st.navigation``, the shared
sidebar) and runs the page it returns. Streamlit, however, starts an app whose entry
script sits next to a ``pages/`` folder in its legacy multipage mode, which lasts until
the first ``st.navigation`` call of the server process: on a fresh server, the first
visit to a page's own URL (``/compare``) runs ``pages/compare.py`` alone, without
``app.py``. :func:`ensure_entry_point`, called at the top of every page, notices that and
draws the same shell itself; its ``st.navigation`` call (public API) ends the legacy mode
for every later run. No Streamlit internal is touched, and nothing is rerun, so a click
that started the run is never lost.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = [
    "SECTIONS",
    "app_shell",
    "ensure_entry_point",
    "lesson_caption",
    "navigation_pages",
    "neighbours",
    "page_footer",
    "page_title",
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
#: the browser tab's icon: an emoji, which Streamlit draws as an inline SVG (a
#: ":material/...:" icon makes the browser fetch it from fonts.gstatic.com, offline too)
PAGE_ICON = "📊"


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


def app_shell():
    """Draw what every page shares and return the page to run.

    The app's one ``set_page_config``, the projector style, the navigation menu and the
    shared sidebar (which also syncs the URL). Called once per script run: by ``app.py``,
    or by :func:`ensure_entry_point` when Streamlit ran a page file without ``app.py``.
    """
    from explorer.sidebar import sidebar
    from explorer.state import enter_page, init_state, presenting
    from explorer.style import apply_style
    from explorer.warm_up import warm_up_in_background

    warm_up_in_background()
    st.set_page_config(
        page_title="HEB Explorer",
        page_icon=PAGE_ICON,
        layout="wide",
        initial_sidebar_state="expanded",
        menu_items={"About": "HEB Explorer: learned smoothing for categorical Naive Bayes."},
    )
    init_state()
    apply_style(presenting())
    page = st.navigation(
        navigation_pages(),
        position="hidden" if presenting() else "sidebar",
        expanded=True,  # every page in the menu (not ten and "View 3 more")
    )
    enter_page(page.url_path)
    sidebar()
    st.session_state[_SHELL_DRAWN] = True
    return page


def ensure_entry_point() -> None:
    """Draw the app's shell when Streamlit ran this page file without ``app.py``.

    Call first thing in every page. After ``app.py`` it does nothing; in Streamlit's
    legacy ``pages/`` mode (the first visit of a fresh server to a page's own URL) or
    under ``streamlit run pages/x.py`` it draws the menu, style and sidebar itself and
    lets the page carry on in the same run.
    """
    if st.session_state.pop(_SHELL_DRAWN, False):
        return
    app_shell()
    st.session_state.pop(_SHELL_DRAWN, None)


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


#: The footer's strip, our own constant HTML (no user text). "Copy link" copies the
#: browser's address at the moment of the click (a fragment's rerun keeps it current, where
#: text drawn by the last full run would not be) and shows it for copying by hand. Keys (the
#: listener of the strip drawn last): PageDown / arrow right (outside a widget) press the
#: presenter's "Next step" button while there is one, else follow the "Next" link; PageUp /
#: arrow left likewise backwards (a clicker sends PageUp / PageDown).
_LINK_AND_KEYS = """
<div style="display:flex;gap:8px;align-items:center;font:14px 'Source Sans Pro',sans-serif">
  <button id="copy" type="button" style="padding:4px 12px;border:1px solid #ccc;
    border-radius:8px;background:#fff;cursor:pointer;font:inherit">Copy link</button>
  <input id="link" readonly aria-label="Link to this view" style="flex:1;padding:4px 8px;
    border:1px solid #ddd;border-radius:6px;color:#333;font:13px monospace">
  <span id="done" style="color:#1f7a3a"></span>
</div>
<script>
const box = document.getElementById("link");
const show = () => { box.value = window.parent.location.href; };
show();
setInterval(show, 1000);
document.getElementById("copy").onclick = async () => {
  show();
  box.select();
  let copied = false;
  try { await navigator.clipboard.writeText(box.value); copied = true; }
  catch (error) { copied = document.execCommand("copy"); }
  document.getElementById("done").textContent = copied ? "copied" : "select and copy";
};
const doc = window.parent.document;
/* the listener is this strip's own: a page switch removes the old strip, and Chromium never
   calls a function of a removed frame, so each strip replaces its predecessor's listener */
if (window.parent.__hebTurn) doc.removeEventListener("keydown", window.parent.__hebTurn);
window.parent.__hebTurn = (event) => {
  const where = doc.activeElement;
  const inWidget = where && where.closest("input, textarea, [role=slider], [role=combobox]");
  const forward = event.key === "PageDown" || (event.key === "ArrowRight" && !inWidget);
  const back = event.key === "PageUp" || (event.key === "ArrowLeft" && !inWidget);
  if (!forward && !back) return;
  /* a lesson's next / previous step first (presenter mode), the page at either end */
  const step = doc.querySelector(
    `.st-key-${forward ? "NEXT_STEP_KEY" : "PREVIOUS_STEP_KEY"} button:not([disabled])`);
  if (step) {
    event.preventDefault();
    step.click();
    doc.querySelectorAll('[data-testid="stMain"]').forEach((el) => el.scrollTo(0, 0));
    window.parent.scrollTo(0, 0);
    return;
  }
  const word = forward ? "Next:" : "Previous:";
  const link = [...doc.querySelectorAll('[data-testid="stPageLink-NavLink"]')]
    .find((a) => a.innerText.includes(word));
  if (link) { event.preventDefault(); link.click(); }
};
doc.addEventListener("keydown", window.parent.__hebTurn);
/* keys pressed while this strip has the focus turn the pages too (not in its link box) */
document.addEventListener("keydown", (event) => {
  if (event.target !== box) window.parent.__hebTurn(event);
});
</script>
"""


def _link_and_keys() -> str:
    """The footer's strip, with the presenter's step button keys filled in."""
    from explorer.presenter import NEXT_STEP_KEY, PREVIOUS_STEP_KEY

    return _LINK_AND_KEYS.replace("NEXT_STEP_KEY", NEXT_STEP_KEY).replace(
        "PREVIOUS_STEP_KEY", PREVIOUS_STEP_KEY
    )


def _toggle_presenting() -> None:
    from explorer.state import PRESENT

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
    row = st.columns([2, 5, 2], vertical_alignment="center")
    if before is not None:  # a presenter going back arrives at the previous page's last step
        row[0].page_link(
            PAGES_DIR / before[0],
            label=f"Previous: {before[1]}",
            icon=before[2],
            query_params={STEP: LAST} if presenting() else None,
        )
    if after is not None:
        row[2].page_link(PAGES_DIR / after[0], label=f"Next: {after[1]}", icon=after[2])
    with row[1].container(horizontal=True, gap="small", horizontal_alignment="center"):
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
            help="Large type, no sidebar; PageDown / PageUp or the arrow keys turn the pages.",
        )
    st.caption(
        "The link below holds this view: page, dataset, methods and every setting; "
        "opened elsewhere it shows the same numbers."
    )
    st.iframe(_link_and_keys(), height=44)
