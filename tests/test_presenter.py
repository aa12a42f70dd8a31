"""The presenter mode's steps (explorer.presenter), run through the app with AppTest.

A lesson in the presenter mode shows one step at a time: its text and figures, the
controls on every step, the step in the URL; outside it every step shows at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.presenter import LAST, NEXT_STEP_KEY, PREVIOUS_STEP_KEY, _requested_step
from explorer.routing import SECTIONS

APP = Path(__file__).resolve().parents[1] / "app.py"
PAGES = APP.parent / "pages"
TIMEOUT = 120
#: every lesson and its steps' number
LESSON_STEPS = {
    "lesson_zero_counts": 2,
    "lesson_dirichlet": 2,
    "lesson_evidence": 3,
    "lesson_high_cardinality": 2,
    "lesson_calibration": 4,
    "lesson_known_truth": 3,
    "lesson_hierarchy": 4,
}


def open_lesson(name: str, **query: str) -> AppTest:
    """A link to ``pages/<name>.py`` with ``query`` opened in a new session: the page runs
    first (and draws the app's shell itself, as on a direct visit)."""
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def step_bar(at: AppTest) -> str:
    """The "Step i of n: title" text of the presenter's bar."""
    texts = [m.value for m in at.markdown if m.value.startswith("**Step ")]
    assert len(texts) == 1, texts
    return texts[0]


def chart_titles(at: AppTest) -> list[str]:
    """The titles of the plotly figures on the page, in order."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [spec["layout"].get("title", {}).get("text", "") for spec in specs]


def query(at: AppTest, key: str) -> str | None:
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def test_every_lesson_declares_the_steps_listed_here():
    lessons = {Path(name).stem for name, _, _ in SECTIONS["Lessons"]}
    assert lessons == set(LESSON_STEPS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", 1), ("3", 3), (LAST, 3), ("4", None), ("0", None), ("-1", None), ("x", None)],
)
def test_a_url_step_is_read_only_within_the_lesson(text, expected):
    assert _requested_step(text, 3) == expected
    assert _requested_step(None, 3) is None
    assert _requested_step("1" * 50, 3) is None


def test_the_dirichlet_lesson_one_step_at_a_time():
    at = open_lesson("lesson_dirichlet", present="1")
    assert step_bar(at) == "**Step 1 of 2:** Laplace is a Dirichlet posterior mean"
    # step 1: the posterior mean's figure only, the controls, no step in the URL
    first = chart_titles(at)
    assert len(first) == 1
    assert at.select_slider(key="w_dirichlet_K") is not None
    assert query(at, "step") is None
    assert at.button(key=PREVIOUS_STEP_KEY).disabled
    at.button(key=NEXT_STEP_KEY).click().run()
    assert step_bar(at) == "**Step 2 of 2:** The bias toward uniform"
    second = chart_titles(at)
    assert len(second) == 1 and second != first  # the alpha sweep instead
    assert query(at, "step") == "2" and query(at, "present") == "1"
    assert at.button(key=NEXT_STEP_KEY).disabled  # the keys turn the page from here
    # a control on step 2 keeps the step
    at.select_slider(key="w_dirichlet_alpha").set_value(0.5).run()
    assert step_bar(at).startswith("**Step 2 of 2")
    assert query(at, "dirichlet_alpha") == "0.5" and query(at, "step") == "2"
    at.button(key=PREVIOUS_STEP_KEY).click().run()
    back = chart_titles(at)
    assert len(back) == 1 and back != second  # the posterior mean's figure again
    assert step_bar(at).startswith("**Step 1 of 2") and query(at, "step") is None


def test_outside_the_presenter_mode_every_step_shows_and_no_step_bar():
    at = open_lesson("lesson_dirichlet")
    assert not [m for m in at.markdown if m.value.startswith("**Step ")]
    assert len(at.get("plotly_chart")) == 2  # both steps' figures
    with pytest.raises(KeyError):
        at.button(key=NEXT_STEP_KEY)


def test_a_link_reopens_its_step():
    at = open_lesson("lesson_evidence", present="1", step="3")
    assert step_bar(at) == "**Step 3 of 3:** The held-out check"
    assert [m for m in at.markdown if "held-out curve checks the choice" in m.value]
    assert not [m for m in at.markdown if "Type-II maximum likelihood" in m.value]
    assert query(at, "step") == "3"


@pytest.mark.parametrize("bad", ["9", "last-ish", "0"])
def test_a_link_to_a_step_the_lesson_lacks_opens_its_first(bad):
    """... and says so (it fell back to step 1 without a word)."""
    at = open_lesson("lesson_evidence", present="1", step=bad)
    assert step_bar(at).startswith("**Step 1 of 3")
    assert query(at, "step") is None
    notes = [c.value for c in at.caption if c.value.startswith("The link's step")]
    assert len(notes) == 1 and "is not one of this lesson's steps 1 to 3: step 1" in notes[0]
    assert not [c for c in open_lesson("lesson_evidence", present="1", step="2").caption
                if c.value.startswith("The link's step")]  # fmt: skip


def test_leaving_the_presenter_mode_drops_the_step_and_shows_everything():
    at = open_lesson("lesson_known_truth", present="1", step="2")
    assert step_bar(at).startswith("**Step 2 of 3")
    assert len(at.tabs) == 0  # in the presenter mode a tab is a step
    assert len(at.get("plotly_chart")) == 1
    at.button(key="presenter_toggle").click().run()
    assert query(at, "step") is None and query(at, "present") is None
    assert [tab.label for tab in at.tabs] == ["PMF error", "Posteriors", "Calibration"]
    assert len(at.get("plotly_chart")) == 1  # lazy tabs: the open one's figure


@pytest.mark.parametrize(("name", "n_steps"), LESSON_STEPS.items())
def test_every_lesson_steps_through_without_an_error(name, n_steps):
    """Each step draws without an exception box; each shows a figure; the last one ends."""
    at = open_lesson(name, present="1")
    seen = []
    for step in range(1, n_steps + 1):
        assert step_bar(at).startswith(f"**Step {step} of {n_steps}:**")
        assert not at.exception, [e.value for e in at.exception]
        titles = chart_titles(at)
        assert titles, (name, step)
        seen.append(titles)
        if step < n_steps:
            at.button(key=NEXT_STEP_KEY).click().run()
    assert at.button(key=NEXT_STEP_KEY).disabled
    # no figure is shown on two steps: one idea per screen
    flat = [title for titles in seen for title in titles]
    assert len(flat) == len(set(flat)), seen


def test_arriving_from_the_next_page_opens_the_last_step():
    """The footer's "Previous" link carries ``step=last`` in the presenter mode."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    at.switch_page("pages/lesson_calibration.py").run()
    links = [link for link in at.get("page_link") if "Previous:" in link.proto.label]
    assert len(links) == 1 and links[0].proto.query_string == f"step={LAST}"
    next_links = [link for link in at.get("page_link") if "Next:" in link.proto.label]
    assert next_links[0].proto.query_string == ""  # going forward starts at step 1
    at.query_params["step"] = LAST  # what following the "Previous" link brings
    at.switch_page("pages/lesson_high_cardinality.py").run()
    assert step_bar(at).startswith("**Step 2 of 2")
    del at.query_params["step"]  # the "Next" link: no step
    at.switch_page("pages/lesson_calibration.py").run()
    assert step_bar(at).startswith("**Step 1 of 4")


def test_a_tall_figure_is_presented_as_a_shorter_copy_and_the_shared_one_is_kept(monkeypatch):
    """``fitted``: a figure over the presenter's height is swapped for a copy of that
    height, made once per figure; the shared (cached) figure keeps its height, and a copy
    made for another figure that had the same id is never shown."""
    import weakref

    import plotly.graph_objects as go

    from explorer import presenter

    monkeypatch.setattr(presenter, "_FITTED", {})
    steps = presenter.LessonSteps.__new__(presenter.LessonSteps)
    steps.presenting = True
    limit = presenter.PRESENTER_FIGURE_HEIGHT
    tall = go.Figure(go.Bar(y=[1, 2]), layout={"height": limit + 200})
    shown, data = steps.fitted((tall, "rows"))
    assert data == "rows" and shown is not tall
    assert (shown.layout.height, tall.layout.height) == (limit, limit + 200)
    assert steps.fitted((tall, "rows"))[0] is shown  # made once
    at_limit = go.Figure(layout={"height": limit})
    assert steps.fitted((at_limit, None))[0] is at_limit
    # an entry left under this id by another (still living) figure is not this one's copy
    other, stale = go.Figure(layout={"height": 900}), go.Figure(layout={"height": limit})
    fresh = go.Figure(go.Scatter(y=[3]), layout={"height": 800})
    presenter._FITTED[id(fresh)] = (weakref.ref(other), stale)
    shown = steps.fitted((fresh, None))[0]
    assert shown is not stale and shown.data[0].y == (3,)
    steps.presenting = False
    assert steps.fitted((tall, None))[0] is tall


def test_the_hierarchy_lesson_explains_borrowing_on_its_second_step_only():
    def explained(at: AppTest) -> bool:
        return any(m.value.startswith("HEB-H goes down the tree") for m in at.markdown)

    assert not explained(open_lesson("lesson_hierarchy", present="1"))
    assert explained(open_lesson("lesson_hierarchy", present="1", step="2"))


def test_the_hierarchy_notes_name_only_the_table_that_is_drawn():
    """Its fourth step explained the "tree's weight" column of a table drawn outside the
    presenter mode only; the page itself names the column beside the table."""
    presenting = open_lesson("lesson_hierarchy", present="1", step="4")
    texts = [m.value for m in presenting.markdown]
    assert any("At the code level m reaches" in t for t in texts)
    assert not any("tree's weight" in t for t in texts)
    assert not any("tree's weight" in f.value.columns for f in presenting.dataframe)
    page = open_lesson("lesson_hierarchy", hier_tab="Concentration per level")
    assert any("'tree's weight': the tree's share" in m.value for m in page.markdown)
    assert any("tree's weight" in f.value.columns for f in page.dataframe)


def test_a_presenter_copy_grows_to_keep_its_plot_and_no_further():
    """A legend that wraps at a 1024 px screen's figure column and words turned upright
    ate the plot of a copy of fixed height; the copy grows for them, up to the most a
    1440 x 900 step holds, and never past the figure's own height. A sunburst (no legend
    attribute at all) is round: it takes the most, as a square plot (at the fixed height
    the hierarchy's tree was 190 px across at 1280 x 720)."""
    import plotly.graph_objects as go

    from explorer import presenter
    from heb.figures.lessons.parts import lesson_style

    names = [f"a long method name {i} (ECE 0.0{i})" for i in range(4)]
    many = lesson_style(go.Figure([go.Scatter(y=[1, 2], name=n) for n in names]), "T", 700)
    grown = presenter.presenter_height(many)
    assert presenter.PRESENTER_FIGURE_HEIGHT < grown <= presenter.PRESENTER_FIGURE_MAX
    few = lesson_style(go.Figure([go.Scatter(y=[1, 2], name=n) for n in "ab"]), "T", 700)
    assert presenter.presenter_height(few) == presenter.PRESENTER_FIGURE_HEIGHT
    words = [f"word number {i}" for i in range(10)]
    bars = lesson_style(go.Figure(go.Bar(x=words, y=list(range(10)))), "T", 700)
    assert presenter.presenter_height(bars) > presenter.PRESENTER_FIGURE_HEIGHT
    short = go.Figure(go.Bar(x=words, y=list(range(10))), layout={"height": 400})
    assert presenter.presenter_height(short) == 400
    tree = go.Figure(go.Sunburst(ids=["a", "b"], labels=["a", "b"], parents=["", "a"]))
    tree.update_layout(height=600, title="A tree")
    assert presenter.presenter_height(tree) == presenter.PRESENTER_FIGURE_MAX
    # a square plot (known truth's posteriors, 150 px a side) takes more than any other
    # figure: its side is its height less the title, legend and axis title
    square = lesson_style(go.Figure([go.Scatter(y=[1, 2], name=n) for n in "ab"]), "T", 520)
    square.update_yaxes(scaleanchor="x")
    assert presenter.presenter_height(square) == presenter.PRESENTER_SQUARE_MAX
    assert presenter.PRESENTER_SQUARE_MAX > presenter.PRESENTER_FIGURE_MAX
    square.update_layout(height=400)
    assert presenter.presenter_height(square) == 400  # never past its own height
