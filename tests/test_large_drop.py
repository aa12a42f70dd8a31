"""The large file's "Columns to leave out" (``explorer.large_drop``): the upload's choice
and ``heb bench FILE --engine duckdb --drop NAME`` on the Dataset page's large-file source."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, unescape, url

from heb.scale import DuckDBEngine, cross_validate, open_source

FILE = "rows.parquet"
FEATURES = ["row", "day", "x", "colour"]
#: a file with a column of lists, which the engine cannot encode
TAGGED = "tagged.parquet"


@pytest.fixture(scope="module")
def drop_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("large_root_drop")
    rng = np.random.default_rng(3)
    n = 600
    colour = rng.choice(["red", "green", "blue"], n)
    x = rng.normal(size=n)
    label = np.where((colour == "red") ^ (x > 0.5) ^ (rng.random(n) < 0.15), "yes", "no")
    pd.DataFrame(
        {
            "row": np.arange(n, dtype="int64"),
            # a date written as text (a CSV's): read as categories, with a note to leave it out
            "day": (
                pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90, n), "D")
            ).strftime("%Y-%m-%d"),
            "x": x,
            "colour": colour,
            "label": label,
        }
    ).to_parquet(root / FILE, index=False)
    tagged = pd.DataFrame(
        {
            "tags": [["new", "sale"][: i % 3] for i in range(n)],
            "colour": colour,
            "label": label,
        }
    )
    tagged.to_parquet(root / TAGGED, index=False)
    return root


@pytest.fixture
def rooted(drop_root, monkeypatch):
    from heb.scale import DATA_ROOT_ENV

    monkeypatch.setenv(DATA_ROOT_ENV, str(drop_root))
    return drop_root


def _app(page: str, **query):
    at = open_app(page, clean=False, large_file=FILE, **query)
    assert_clean(at)
    return at


def _texts(elements) -> str:
    return " ".join(unescape(e.value) for e in elements)


def _described(at) -> list[str]:
    frame = next(d.value for d in at.dataframe if "kind" in d.value.columns)
    return list(frame["feature"])


def _box(at, target: str = "label"):
    return at.multiselect(key=f"large_drop:{FILE}:{target}")


def _engine_log_loss(root, features) -> pd.Series:
    from explorer.state import DEFAULT_METHODS

    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source(FILE, root))
        want = cross_validate(engine, "label", DEFAULT_METHODS, n_splits=10, features=features)
    finally:
        engine.close()
    return want.folds.set_index(["method", "fold"])["log_loss"].sort_index()


def test_the_control_leaves_a_column_out_of_the_describe_table(rooted):
    at = _app("pages/dataset.py")
    box = _box(at)
    assert box.options == FEATURES and box.value == []  # never the target
    assert "row" in _described(at)
    assert url(at, "large_drop") is None
    box.set_value(["row"]).run()
    assert not at.exception and not at.error
    assert url(at, "large_drop") == '["row"]'
    assert _described(at) == ["day", "x", "colour"]
    assert at.metric[1].value == "3"  # Features
    # the target picker offers no column left out
    assert "row" not in at.selectbox(key=f"large_target:{FILE}").options
    _box(at).set_value([]).run()
    assert url(at, "large_drop") is None and "row" in _described(at)


def test_a_link_carries_it_to_concentrations_and_compare(rooted):
    at = _app("pages/dataset.py", large_drop='["row", "day"]')
    assert _box(at).value == ["row", "day"]
    assert _described(at) == ["x", "colour"]
    at.switch_page("pages/concentrations.py")
    at.run()
    assert not at.exception and not at.error
    assert url(at, "large_drop") == '["day", "row"]'
    shown = next(d.value for d in at.dataframe if "feature name" in d.value.columns)
    assert set(shown["feature name"]) == {"x", "colour"}
    assert "Left out: 'day' and 'row'" in _texts(at.markdown)
    at.switch_page("pages/compare.py")
    at.run()
    assert url(at, "large_drop") == '["day", "row"]'
    assert "Left out: 'day' and 'row'" in _texts(at.markdown)
    at.button(key="large_go").click().run()
    assert not at.exception and not at.error
    kept = [r.result for r in at.session_state["_large_results"].values() if hasattr(r, "result")]
    assert len(kept) == 1 and kept[0].n_splits == 10
    got = kept[0].folds.set_index(["method", "fold"])["log_loss"].sort_index()
    np.testing.assert_allclose(got, _engine_log_loss(rooted, ["x", "colour"]))
    every = _engine_log_loss(rooted, None)  # the row number and the date counted
    assert not np.allclose(got, every)


def test_a_changed_choice_never_reuses_a_scan():
    """Every key of the three scans names the columns left out."""
    from dataclasses import replace

    from explorer.large_files import LargeFile, _compare_key, _describe_key

    plain = LargeFile("f.parquet", "root", "identity", "label", ("row", "x", "label"))
    left = replace(plain, dropped=("row",))
    assert _describe_key(plain, 10, "impute") != _describe_key(left, 10, "impute")
    run = {"n_bins": 10, "missing": "impute", "n_splits": 10, "seed": 42}
    assert _compare_key(plain, ["Laplace"], run) != _compare_key(left, ["Laplace"], run)


def test_concentrations_key_names_the_columns_left_out(rooted):
    at = _app("pages/concentrations.py")
    keys = [k for k in at.session_state["_large_results"] if "conc" in k]
    at = _app("pages/concentrations.py", large_drop='["x"]')
    shown = next(d.value for d in at.dataframe if "feature name" in d.value.columns)
    assert "x" not in set(shown["feature name"])
    later = [k for k in at.session_state["_large_results"] if "conc" in k]
    assert len(keys) == 1 and "('x',)" in later[-1] and "('x',)" not in keys[0]


def test_a_link_leaving_out_the_target_keeps_it(rooted):
    at = _app("pages/dataset.py", large_drop='["label", "row"]')
    said = _texts(at.info)
    assert "leaves out 'label' of the large file" in said and "ignored" in said
    assert url(at, "large_drop") == '["row"]'
    assert at.selectbox(key=f"large_target:{FILE}").value == "label"
    assert _described(at) == ["day", "x", "colour"]
    # a chosen target the link also leaves out: the target stays, the picker offers it
    at = _app("pages/dataset.py", large_target="colour", large_drop='["colour"]')
    assert at.selectbox(key=f"large_target:{FILE}").value == "colour"
    assert url(at, "large_drop") is None and "colour" not in _box(at, "colour").options


def test_every_feature_left_out_is_one_sentence(rooted):
    link = json.dumps(FEATURES)
    for page in ("pages/dataset.py", "pages/concentrations.py", "pages/compare.py"):
        at = _app(page, large_drop=link)
        said = [w for w in _texts(at.warning).split(". ") if "Every column but" in w]
        assert len(said) == 1, page  # said once, not under the control and again below
        assert said[0].startswith("Every column but the target 'label' is left out"), page
        assert not [d for d in at.dataframe if "kind" in d.value.columns]
        assert not [d for d in at.dataframe if "feature name" in d.value.columns]
        assert not [b for b in at.button if b.key == "large_go"]
        results = at.session_state["_large_results"] if "_large_results" in at.session_state else {}
        assert not results, page  # no scan ran


def test_a_hostile_link_value_is_refused(rooted):
    hostile = "<img src=x onerror=alert(1)>**bold**"
    at = _app("pages/dataset.py", large_drop=json.dumps([hostile, "row", 7, None]))
    notes = [e.value for e in at.info if "leaves out" in e.value]
    assert len(notes) == 1 and re.search(r"(?<!\\)[<*]", notes[0]) is None  # escaped
    assert hostile in _texts(at.info)
    assert url(at, "large_drop") == '["row"]'
    assert _described(at) == ["day", "x", "colour"]
    for value in ('{"row": 1}', "not json", '"row"', json.dumps(["row"] * 2_000)):
        at = _app("pages/dataset.py", large_drop=value)
        assert url(at, "large_drop") is None and "row" in _described(at), value


def test_a_column_the_engine_cannot_encode_can_be_left_out(rooted):
    """The engine's error says to leave a column of lists out: now the page can."""

    at = open_app("pages/dataset.py", clean=False, large_file=TAGGED)
    assert "leave it out" in _texts(at.error)
    box = at.multiselect(key=f"large_drop:{TAGGED}:label")
    box.set_value(["tags"]).run()
    assert_clean(at)
    assert _described(at) == ["colour"]


def test_a_number_per_row_can_be_left_out_from_its_note(rooted):
    """The code note on 'row' (a number per row) says to leave it out; the large file
    offered only "Read row as categories", not the upload's leave-out button."""
    at = _app("pages/dataset.py")
    assert "Here every row has a number of its own" in _texts(at.info)
    button = at.button(key="large_code_drop_0")
    assert button.label == "Leave row out"
    button.click().run()
    assert not at.exception and not at.error
    assert url(at, "large_drop") == '["row"]'
    assert _box(at).value == ["row"] and _described(at) == ["day", "x", "colour"]
    assert "Here every row has a number of its own" not in _texts(at.info)


def test_a_text_id_gets_the_upload_s_note_and_a_leave_out_button(rooted):
    """A text column of a value per row: the upload says "'ref' has one value per row";
    the large file said nothing of it."""
    frame = pd.read_parquet(rooted / FILE)
    frame.insert(0, "ref", [f"r{i:05d}" for i in range(len(frame))])
    frame.to_parquet(rooted / "refs.parquet", index=False)

    at = open_app("pages/dataset.py", clean=False, large_file="refs.parquet")
    assert_clean(at)
    said = "Column 'ref' has one value per row: kept as a high-cardinality feature."
    assert said in _texts(at.info)
    button = at.button(key="large_leave_out_0")
    assert button.label == "Leave ref out"
    button.click().run()
    assert_clean(at)
    assert url(at, "large_drop") == '["ref"]'
    assert said not in _texts(at.info)


@pytest.mark.parametrize("page", ["pages/dataset.py", "pages/concentrations.py"])
def test_a_column_the_engine_cannot_encode_has_a_leave_out_button(rooted, page):
    """A column of lists is named before any scan, with a button leaving it out; the
    scan's error offered only the multiselect, and the note under it said to choose another
    target or file."""

    at = open_app(page, clean=False, large_file=TAGGED)
    said = _texts(at.error)
    assert "'tags'" in said and "leave it out" in said
    assert "choose another target" not in " ".join(c.value for c in at.caption)
    button = at.button(key="large_unencodable_0")
    assert button.label == "Leave tags out"
    button.click().run()
    assert_clean(at)
    assert url(at, "large_drop") == '["tags"]'
    if page == "pages/dataset.py":
        assert _described(at) == ["colour"]


def test_the_unencodable_sentence_names_every_column():
    from explorer.large_drop import unencodable_text

    assert "Columns 'a' and 'b' have a type" in unencodable_text(["a", "b"])
    assert unencodable_text(["a"]).startswith("Column 'a' has a type")


def test_the_fold_caption_keeps_one_percent_on_one_line(rooted):
    """At 1280 px the Compare page's fold caption broke 'under 1 %' after the 1 (an
    ordinary space); a no-break space holds the number and its sign together."""
    at = _app("pages/compare.py")
    folds = [c.value for c in at.caption if "seeded hash" in c.value]
    assert folds and "under 1\u00a0% from" in folds[0]


def test_a_link_s_unknown_categorical_keeps_the_columns_left_out(rooted):
    """active() named two lists ``dropped``: a link declaring a column the file lacks as
    categories made the names its note ignores that call's columns left out ('row' not
    among them). Latent: the sidebar's call, which uses only the file's name, met it first
    and tidied the session, so the pages' own call was right."""
    import streamlit as st

    from explorer import large_files, state

    keys = (state.LARGE_FILE, state.LARGE_TARGET, state.LARGE_CATEGORICAL, state.LARGE_DROP)
    saved = {key: st.session_state[key] for key in keys if key in st.session_state}
    try:
        st.session_state[state.LARGE_FILE] = FILE
        st.session_state[state.LARGE_TARGET] = {}
        st.session_state[state.LARGE_CATEGORICAL] = {FILE: ["nosuch", "colour"]}
        st.session_state[state.LARGE_DROP] = {FILE: ["row"]}
        large = large_files.active()
        assert large.dropped == ("row",) and large.categorical == ("colour",)
        assert state.large_categorical(FILE) == ("colour",)
    finally:
        for key in keys:
            st.session_state.pop(key, None)
        st.session_state.update(saved)
        st.session_state.pop("_notes", None)


def test_a_left_out_date_column_loses_its_note(tmp_path, monkeypatch):
    """The date note ("leave it out ...") stayed on the page after 'day' was left out
    (the practitioner trial; the upload's and heb bench's notes drop it too)."""
    from heb.scale import DATA_ROOT_ENV

    rng = np.random.default_rng(4)
    n = 400
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 90, n), "D")
    frame = pd.DataFrame(
        {"day": days.strftime("%Y-%m-%d"), "colour": rng.choice(["red", "blue"], n)}
    )
    frame["label"] = rng.choice(["yes", "no"], n)
    frame.to_csv(tmp_path / "orders.csv", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    at = open_app("pages/dataset.py", large_file="orders.csv")
    assert "Column 'day' holds dates" in _texts(at.info)
    at.multiselect(key="large_drop:orders.csv:label").set_value(["day"]).run()
    assert_clean(at)
    assert "holds dates" not in _texts(at.info)
