"""Tests that kill the mutants a mutation pass over the presenter's steps, the shared
state, the report helpers, the display helpers and the dataset catalogue left alive
(each test names the mutant it catches)."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from explorer import presenter
from explorer.errors import escape
from tests.test_presenter import APP, TIMEOUT, open_lesson, step_bar


# --------------------------------------------------------------------------- presenter
def _steps(n_steps: int, presenting: bool = True) -> presenter.LessonSteps:
    """A lesson's steps without a page run (``show`` and ``fitted`` read no session)."""
    steps = presenter.LessonSteps.__new__(presenter.LessonSteps)
    steps.titles = tuple(f"step {i}" for i in range(1, n_steps + 1))
    steps.presenting = presenting
    steps.current = 1
    return steps


def test_a_url_step_of_exactly_the_longest_text_is_still_read():
    """``len(text) > _MAX_STEP_TEXT`` made ``>=``: an eight-character step was refused."""
    assert presenter._MAX_STEP_TEXT == 8
    assert presenter._requested_step("00000002", 3) == 2
    assert presenter._requested_step("000000002", 3) is None


@pytest.mark.parametrize(("start", "delta", "expected"), [(3, 1, 3), (1, -1, 1), (2, 1, 3)])
def test_a_step_button_stays_within_the_lessons_steps(monkeypatch, start, delta, expected):
    """``_move`` without its ``min(..., n_steps)`` or its ``max(..., 1)`` clamp."""
    monkeypatch.setattr(st, "session_state", {presenter._CURRENT: start})
    presenter._move(delta, 3)
    assert st.session_state[presenter._CURRENT] == expected


@pytest.mark.parametrize("step", [0, 4])
def test_show_refuses_a_step_the_lesson_lacks(step):
    """``show``'s range check widened by one (a page guarding a step it never names)."""
    with pytest.raises(ValueError, match="steps 1 to 3"):
        _steps(3).show(step)
    assert _steps(3).show(3) is False and _steps(3, presenting=False).show(3)


def test_the_step_bar_is_as_wide_as_its_text_without_the_bold_marks():
    """``_step_bar_width_style`` counting the ``**`` of the bold "Step i of n:"."""
    text = "**Step 1 of 2:** ab"
    rem = presenter.STEP_BAR_CHROME_REM + presenter.STEP_TEXT_REM_PER_CHAR * (len(text) - 4)
    assert f"min(100%, {rem:.1f}rem)" in presenter._step_bar_width_style(text)


def test_a_presenter_copy_places_its_title_and_legend_for_its_own_height():
    """``_shorter_copy`` only setting the height: the legend, placed in pixels from the
    top, slid down with the old height's fraction."""
    from heb.figures.lessons.parts import lesson_style
    from heb.figures.style import title_and_legend_layout

    fig = lesson_style(go.Figure([go.Scatter(y=[1, 2], name=n) for n in "ab"]), "T", 700)
    copy = presenter._shorter_copy(fig, 370)
    expected = title_and_legend_layout("T", 370)
    assert copy.layout.height == 370 and fig.layout.height == 700
    assert copy.layout.legend.y == pytest.approx(expected["legend"]["y"])
    assert copy.layout.title.y == pytest.approx(expected["title"]["y"])


def test_a_refused_link_step_is_shown_escaped_and_cut():
    """The refused step's caption without :func:`explorer.errors.escape` (markdown of the
    link's text drawn as markup, a long value repeated whole)."""
    bad = "**9**[x](http://e.org)" + "y" * 200
    at = open_lesson("lesson_evidence", present="1", step=bad)
    assert step_bar(at).startswith("**Step 1 of 3")
    notes = [c.value for c in at.caption if c.value.startswith("The link's step")]
    assert len(notes) == 1 and escape(bad, limit=12) in notes[0]
    assert "**9**" not in notes[0] and "y" * 20 not in notes[0]


def test_a_page_entered_past_its_last_step_opens_its_first_and_steps_on_from_there():
    """``self.current = current`` without the range check: a lesson entered from step 4
    of a longer one, its link's step refused, drew a step it lacks (an IndexError); and
    without ``state[_CURRENT] = self.current`` its "Next" went from step 4, to step 3."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    at.query_params["step"] = "4"
    at.switch_page("pages/lesson_calibration.py").run()
    assert step_bar(at).startswith("**Step 4 of 4")
    at.query_params["step"] = "9"
    at.switch_page("pages/lesson_evidence.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert step_bar(at).startswith("**Step 1 of 3")
    at.button(key=presenter.NEXT_STEP_KEY).click().run()
    assert step_bar(at).startswith("**Step 2 of 3")


def test_leaving_the_presenter_mode_drops_the_step_from_the_pages_url_values(monkeypatch):
    """``_sync_url`` deleting ``?step=`` but leaving it in the page's URL values, which the
    sidebar's :func:`explorer.state.sync_url` then wrote back into the URL on every run."""
    from explorer.routing import PRESENT
    from explorer.state import STEP, page_values

    session = {PRESENT: False, presenter._CURRENT: 2, "_page_values": {STEP: "2", "k": "3"}}
    monkeypatch.setattr(st, "session_state", session)
    monkeypatch.setattr(st, "query_params", {STEP: "2", "k": "3"})
    steps = presenter.LessonSteps(["one", "two"])
    assert steps.current == 2 and steps.show(1) and steps.show(2)
    assert page_values() == {"k": "3"} and st.query_params == {"k": "3"}
    session[PRESENT] = True
    presenter.LessonSteps(["one", "two"])
    assert page_values() == {"k": "3", STEP: "2"} and st.query_params[STEP] == "2"


# --------------------------------------------------------------------------- report
def test_a_figure_footer_is_cut_to_its_longest_with_an_ellipsis():
    """``footer_text`` uncut, cut one character early (``<``) or one late (``[:MAX]``)."""
    from explorer.report import MAX_FOOTER_CHARS, footer_text

    head = "HEB Explorer · "
    exact = footer_text(["a" * (MAX_FOOTER_CHARS - len(head))])
    assert len(exact) == MAX_FOOTER_CHARS and not exact.endswith("…")
    over = footer_text(["a" * (MAX_FOOTER_CHARS - len(head) + 1), "b=2"])
    assert len(over) == MAX_FOOTER_CHARS and over.endswith("a…")
    assert footer_text(["dataset=x", "n_bins=5"]) == "HEB Explorer · dataset=x · n_bins=5"


def test_a_figures_footer_names_the_views_url_but_not_the_presenter_flag(monkeypatch):
    """``view_footer``: ``present=1`` named (``_FOOTER_SKIP`` emptied); a lesson naming the
    dataset it does not draw from, or leaving out its own settings."""
    from explorer.report import view_footer

    query = {"dataset": "builtin:iris", "present": "1", "n_bins": "5", "step": "2"}
    monkeypatch.setattr(st, "query_params", query)
    monkeypatch.setattr(st, "session_state", {"_page_path": "compare"})
    assert view_footer() == "HEB Explorer · dataset=builtin:iris · n_bins=5 · step=2"
    lesson = {"_page_path": "lesson_dirichlet", "_page_defaults": {"dirichlet_K": 3}}
    monkeypatch.setattr(st, "session_state", {**lesson, "dirichlet_K": 5})
    assert view_footer() == "HEB Explorer · lesson=dirichlet · dirichlet_K=5"
    st.session_state["_lesson_uses_dataset"] = True
    assert view_footer() == (
        "HEB Explorer · lesson=dirichlet · dataset=builtin:iris · n_bins=5 · dirichlet_K=5"
    )


# --------------------------------------------------------------------------- state
def _fresh(monkeypatch, **query: str) -> dict:
    """A new session's state, :func:`explorer.state.init_state` run on a link's ``query``
    (plain dicts stand for the session and the URL)."""
    from explorer import state

    monkeypatch.setattr(st, "session_state", {})
    monkeypatch.setattr(st, "query_params", dict(query))
    state.init_state()
    return st.session_state


def test_a_links_methods_are_read_once_each_and_not_from_an_overlong_value():
    """``_parse_methods`` without its de-duplication or its length cap."""
    from explorer.state import MAX_URL_VALUE, _parse_methods

    assert _parse_methods("Laplace, TE,Laplace") == ["Laplace", "TE"]
    long = ",".join(["Laplace"] * (MAX_URL_VALUE // 8 + 1))
    assert len(long) > MAX_URL_VALUE and _parse_methods(long) is None


def test_a_links_bins_are_read_from_two_to_max_bins(monkeypatch):
    """The ``range(2, MAX_BINS + 1)`` of n_bins widened at either end."""
    from explorer.state import MAX_BINS

    assert _fresh(monkeypatch, n_bins=str(MAX_BINS))["n_bins"] == MAX_BINS
    assert _fresh(monkeypatch, n_bins="2")["n_bins"] == 2
    for bad in (str(MAX_BINS + 1), "1"):
        fresh = _fresh(monkeypatch, n_bins=bad)
        assert fresh["n_bins"] == 10 and len(fresh["_notes"]) == 1


def test_every_row_from_a_link_is_max_rows_zero_and_present_needs_one(monkeypatch):
    """``rows or 0`` dropped (None, not the widget's 0) and ``?present=`` read as any text."""
    fresh = _fresh(monkeypatch, max_rows="0", present="yes")
    assert fresh["max_rows"] == 0 and fresh["present"] is False
    assert _fresh(monkeypatch, present="1")["present"] is True


def test_a_link_naming_a_large_file_is_not_opened_on_the_default(monkeypatch):
    """``OPENED_ON_DEFAULT`` set by a link with no dataset but a large file: its page said
    it showed the default dataset while it showed the large file."""
    from explorer import state

    assert _fresh(monkeypatch, large_file="big.csv")[state.OPENED_ON_DEFAULT] is False
    assert _fresh(monkeypatch)[state.OPENED_ON_DEFAULT] is True


def test_only_what_if_values_off_their_default_become_overrides(monkeypatch):
    """``_overrides`` keeping a knob at its default: the URL, the shown code and the
    result cache's key carried ``m-estimate:m=2.0``, the default itself."""
    from explorer import state

    session = {"data_spec": "builtin:iris", "n_bins": 10, "missing": "impute", "max_rows": 0}
    session.update(methods=["m-estimate", "Lidstone", "Laplace"], whatif_m=2.0)
    monkeypatch.setattr(st, "session_state", {**session, "whatif_alpha": 0.3})
    assert state.run_settings().params() == {"Lidstone": {"alpha": 0.3}}
    monkeypatch.setattr(st, "session_state", session)
    assert state.run_settings() == state.RunSettings(dataset="builtin:iris", max_rows=0)


def test_a_page_settings_url_text_is_read_back_as_its_type():
    """``_from_text``: an emptied multiselect's ``""`` read as no value (not ``[]``), a
    ``nan`` or ``inf`` number taken, a switch's text other than 1 / 0 taken."""
    from explorer.state import MAX_URL_VALUE, _from_text

    choices = ["a", "b", "c"]
    assert _from_text("b,zz,a,b", ["a"], choices) == ["b", "a"]
    assert _from_text("", ["a"], choices) == [] and _from_text("zz", ["a"], choices) is None
    assert _from_text("5", 3, (3, 5)) == 5 and _from_text("4", 3, (3, 5)) is None
    assert _from_text("1", False, None) is True and _from_text("0", True, None) is False
    assert _from_text("true", False, None) is None
    assert _from_text("0.25", 0.5, None) == 0.25
    for bad in ("nan", "inf", "-inf", "x", "1" * (MAX_URL_VALUE + 1)):
        assert _from_text(bad, 0.5, None) is None, bad


def test_a_kept_setting_outside_its_choices_falls_back_and_leaves_the_url(monkeypatch):
    """``keep_setting`` without its ``_allowed`` check: a session value the widget does not
    offer (a choice list changed) stayed, and went into the URL."""
    from explorer.state import keep_setting

    monkeypatch.setattr(st, "session_state", {"tab": "Gone", "k": 7})
    monkeypatch.setattr(st, "query_params", {"tab": "Gone", "k": "7"})
    keep_setting("tab", "First", ["First", "Second"])
    keep_setting("k", 3, (3, 5, 7))
    assert st.session_state["tab"] == "First" and st.session_state["k"] == 7
    assert st.query_params == {"k": "7"}
    assert st.session_state["_page_values"] == {"k": "7"}


def test_a_reset_restores_every_setting_and_renews_every_widget_key(monkeypatch):
    """``reset_page_settings`` without its widget round, its values named with
    :func:`~explorer.state.reset_with_page`, or sharing a list default's object."""
    from explorer import state

    default = ["a"]
    session = {"_page_defaults": {"pick": default, "k": 3}, "pick": ["b"], "k": 5, "folds": 3}
    monkeypatch.setattr(st, "session_state", session)
    assert state.widget_key("k") == "w_k"
    state.reset_with_page("folds", 10)
    state.reset_page_settings()
    assert (session["pick"], session["k"], session["folds"]) == (["a"], 3, 10)
    assert session["pick"] is not default
    assert state.widget_key("k") == "w1_k"
    state.reset_page_settings()
    assert state.widget_key("k") == "w2_k"


# --------------------------------------------------------------------------- catalogue
def test_the_manifest_is_read_only_when_small_and_a_list_of_named_entries(monkeypatch, tmp_path):
    """``_manifest_sizes`` reading a manifest past MAX_MANIFEST_BYTES, or trusting its
    shape (a dict, a bare string entry)."""
    import json

    from explorer import catalogue

    monkeypatch.setattr(catalogue.paths, "datasets_dir", lambda: tmp_path)
    manifest = tmp_path / "manifest.json"
    entry = {"name": "adult", "n_rows": 48842, "n_features": 14, "n_classes": 2, "x": 1}
    manifest.write_text(json.dumps([entry, "named", {"n_rows": 3}]))
    assert catalogue._manifest_sizes() == {
        "adult": {"n_rows": 48842, "n_features": 14, "n_classes": 2}
    }
    for other in ({"name": "adult"}, 5, None):
        manifest.write_text(json.dumps(other))
        assert catalogue._manifest_sizes() == {}
    padded = json.dumps([entry]) + " " * catalogue.MAX_MANIFEST_BYTES
    manifest.write_text(padded)
    assert catalogue._manifest_sizes() == {}


def test_the_compare_code_names_the_seed_and_only_changed_what_if_values():
    """``_settings_line`` without the seed, or without the run's overrides."""
    from explorer.report import compare_code
    from heb.evaluate import RunSettings

    plain = compare_code("dataset = 1", ["Laplace"], RunSettings(n_bins=5))
    assert "seed=42" in plain and "overrides" not in plain
    changed = RunSettings(n_bins=5, overrides={"Lidstone": {"alpha": 0.3}})
    code = compare_code("dataset = 1", ["Lidstone"], changed)
    assert "overrides={'Lidstone': {'alpha': 0.3}}" in code


def test_the_explain_code_notes_the_table_row_only_where_it_differs():
    """``explain_code``'s "row i of the table" comment written for an equal row too."""
    from explorer.report import explain_code

    settings = {"n_bins": 5, "missing": "impute", "max_rows": 0}
    same = explain_code("dataset = 1", settings, ["laplace"], 4, 0, 1, table_row=4)
    assert "of the table is row" not in same
    other = explain_code("dataset = 1", settings, ["laplace"], 4, 0, 1, table_row=9)
    assert "# row 9 of the table is row 4 of these codes" in other
    assert "target=0, reference=1" in other


# --------------------------------------------------------------------------- display
class _Row:
    """A stand-in for the downloads' row: records every ``download_button`` call."""

    def __init__(self) -> None:
        self.buttons: list[tuple[tuple, dict]] = []

    def download_button(self, *args, **kwargs) -> None:
        self.buttons.append((args, kwargs))


def _downloads(monkeypatch, fig, frame, footer=None) -> list[tuple[tuple, dict]]:
    """The download buttons :func:`explorer.display.download_buttons` draws (no Chromium)."""
    from explorer import display

    row = _Row()
    monkeypatch.setattr(display.st, "container", lambda **kwargs: row)
    monkeypatch.setattr(display, "_image_export_available", lambda: False)
    monkeypatch.setattr(display, "view_footer", lambda: "the view's footer")
    display.download_buttons(fig, frame, "stem", footer)
    return row.buttons


def test_a_figures_downloads_carry_the_footer_asked_for_and_safe_csv(monkeypatch):
    """``download_buttons`` ignoring its ``footer`` (always the view's), one key for every
    file, or a CSV written without :func:`explorer.exports.csv_bytes` (a formula)."""
    import pandas as pd

    fig = go.Figure(go.Bar(y=[1, 2]))
    frame = pd.DataFrame({"name": ["=1+1"], "n": [3]})
    buttons = _downloads(monkeypatch, fig, frame, footer="lesson=dirichlet · K=3")
    (html_args, html_kwargs), (csv_args, csv_kwargs) = buttons
    assert html_kwargs["file_name"] == "stem.html" and csv_kwargs["file_name"] == "stem.csv"
    assert html_kwargs["key"] != csv_kwargs["key"]
    assert "lesson=dirichlet · K=3" in html_args[1]()
    assert csv_args[1]() == b"name,n\r\n'=1+1,3\r\n"
    (default_args, _), _ = _downloads(monkeypatch, fig, frame)
    assert "the view's footer" in default_args[1]()


def _drawn(monkeypatch, presenting: bool, frame, **kwargs) -> tuple[str, dict]:
    """Which of ``st.table`` / ``st.dataframe`` :func:`explorer.display.show_table` draws
    ``frame`` with, and its keyword arguments (the data drawn under ``"data"``)."""
    from explorer import display

    drawn = []
    monkeypatch.setattr(display, "presenting", lambda: presenting)
    monkeypatch.setattr(display.st, "table", lambda data, **kw: drawn.append(("table", kw, data)))
    monkeypatch.setattr(
        display.st, "dataframe", lambda data, **kw: drawn.append(("grid", kw, data))
    )
    display.show_table(frame, **kwargs)
    ((kind, kw, data),) = drawn
    return kind, {**kw, "data": data}


def test_a_grid_config_is_dropped_in_the_presenter_mode_and_kept_outside(monkeypatch):
    """``show_table`` applying ``grid_config`` in the presenter mode too: a short table
    stayed a grid in its small fixed type instead of the presenter's large table."""
    import pandas as pd

    frame = pd.DataFrame({"n": [1, 2]})
    config = {"n": st.column_config.NumberColumn(format="%d")}
    kind, kwargs = _drawn(monkeypatch, True, frame, grid_config=config)
    assert kind == "table" and kwargs.keys() == {"hide_index", "data"} and kwargs["hide_index"]
    kind, kwargs = _drawn(monkeypatch, False, frame, grid_config=config)
    assert kind == "grid" and kwargs["column_config"] == config
    assert kwargs["height"] == "content" and kwargs["hide_index"] is True


def test_a_tables_long_cells_and_labels_are_capped_on_their_way_to_the_browser(monkeypatch):
    """``show_table`` drawing ``frame`` itself, not :func:`explorer.exports.cap_cells` of it
    (a 50,000-character cell sent whole); a Styler keeps the capped cells too."""
    import pandas as pd

    from explorer.exports import MAX_CELL_CHARS

    frame = pd.DataFrame({"x" * 500: ["y" * 50_000, "short"], "n": [1.5, 2.0]})
    _, kwargs = _drawn(monkeypatch, False, frame)
    shown = kwargs["data"]
    assert len(shown.iloc[0, 0]) == MAX_CELL_CHARS and shown.iloc[1, 0] == "short"
    assert len(shown.columns[0]) == MAX_CELL_CHARS and len(frame.iloc[0, 0]) == 50_000
    _, styled = _drawn(monkeypatch, False, frame, number_format="{:.2f}")
    assert len(styled["data"].data.iloc[0, 0]) == MAX_CELL_CHARS


def test_a_tables_style_and_number_format_both_reach_the_drawn_styler(monkeypatch):
    """``show_table`` dropping its ``style`` (the best cells no longer marked) when a
    number format is given too."""
    import pandas as pd

    frame = pd.DataFrame({"m": ["a", "b"], "score": [0.12345, 0.5]})

    def best(shown: pd.DataFrame) -> pd.DataFrame:
        css = pd.DataFrame("", index=shown.index, columns=shown.columns)
        css.loc[shown["score"].idxmax(), "score"] = "font-weight: bold"
        return css

    _, kwargs = _drawn(monkeypatch, False, frame, style=best, number_format={"score": "{:.2f}"})
    html = kwargs["data"].to_html()
    assert "font-weight: bold" in html and "0.12" in html and "0.12345" not in html


def test_a_catalogue_row_opens_its_shared_copy_or_its_openml_id(monkeypatch):
    """``catalogue_table``'s spec always ``shared:`` (a dataset with no shared copy could
    not open); ticking a row makes that row's spec the dataset."""
    from types import SimpleNamespace

    import pandas as pd

    from explorer import catalogue

    listed = pd.DataFrame(
        {
            "name": ["car", "adult"],
            "group": ["small", "large"],
            "available": [True, False],
            "openml_id": [40975, 1590],
        }
    )
    monkeypatch.setattr(catalogue, "catalogue_frame", lambda: listed)
    monkeypatch.setattr(catalogue, "_manifest_sizes", lambda: {"car": {"n_rows": 1728}})
    table = catalogue.catalogue_table.__wrapped__()
    paper = table.tail(2).to_dict("records")
    assert [(r["spec"], r["offline"]) for r in paper] == [
        ("shared:car", True),
        ("openml:1590", False),
    ]
    assert paper[0]["rows"] == 1728 and pd.isna(paper[1]["rows"])
    pick = SimpleNamespace(selection=SimpleNamespace(rows=[len(table) - 1]))
    monkeypatch.setattr(st, "session_state", {"catalogue_pick": pick})
    monkeypatch.setattr(catalogue, "catalogue_table", lambda: table)
    catalogue._on_pick()
    assert st.session_state["data_spec"] == "openml:1590"


def test_a_refused_link_step_on_entering_a_lesson_opens_its_first_step_not_the_last_lessons():
    """A page switch with ``?step=9`` kept the previous lesson's step 2 (and said "step 2
    is shown"), where a page is to be entered at its first step when its link's is
    refused."""
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP, TIMEOUT

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    at.query_params["step"] = "2"
    at.switch_page("pages/lesson_calibration.py").run()
    assert any(m.value.startswith("**Step 2 of 4:") for m in at.markdown)
    at.query_params["step"] = "9"
    at.switch_page("pages/lesson_dirichlet.py").run()
    assert not at.exception
    assert any(m.value.startswith("**Step 1 of 2:") for m in at.markdown)
    said = [c.value for c in at.caption if "is not one of this lesson's steps" in c.value]
    assert len(said) == 1 and said[0].endswith("step 1 is shown.")


def test_a_run_from_the_cache_is_done_in_under_a_tenth_of_a_second_not_in_0_0():
    from explorer.comparison import took

    assert took(0.0) == "in under 0.1 s"
    assert took(0.049) == "in under 0.1 s"
    assert took(0.05) == "in 0.1 s"
    assert took(12.34) == "in 12.3 s"
