"""The Streamlit explorer under ``streamlit.testing.v1.AppTest``: every page, the URL state,
uploads, friendly errors and the figures' data (plotly 7 stores arrays as base64 bdata)."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer import loading, state, summaries
from explorer.errors import escape
from explorer.exports import MAX_CELL_CHARS, cap_cells, csv_bytes, neutralise_formulas
from explorer.routing import SECTIONS
from heb import data as hdata
from heb import registry
from heb.evaluate import RunSettings, cross_validate
from heb.registry import TABLE1_METHODS

APP = Path(__file__).resolve().parents[1] / "app.py"
TIMEOUT = 120  # a loaded 2-core machine


def open_app(page: str | None = None, *, clean: bool = True, **query: str) -> AppTest:
    """Run the app (optionally from a shared link's query and on one page); with ``clean``
    the page is asserted free of exceptions and errors (:func:`assert_clean`)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    if clean:
        assert_clean(at)
    return at


def open_section(at: AppTest, key: str) -> AppTest:
    """Open one of the Dataset page's expanders whose content is built only while open
    (``pages/dataset.py``: ADD_OPEN, PREPROCESSING_OPEN, PREVIEW_OPEN), as a click does."""
    at.session_state[key] = True
    return at.run()


def offered_csvs(monkeypatch, module) -> dict:
    """The data frames ``module``'s ``download_buttons`` offers, by file stem, as the app
    runs (AppTest cannot read a download's bytes: they are made on a click); the dataset
    named in a stem's file names under ``stem + ":dataset"``."""
    frames: dict = {}
    offer = module.download_buttons

    def spy(fig, frame, stem, *args, **kwargs):
        frames[stem], frames[f"{stem}:dataset"] = frame, kwargs.get("dataset")
        return offer(fig, frame, stem, *args, **kwargs)

    monkeypatch.setattr(module, "download_buttons", spy)
    return frames


def uploader(at: AppTest):
    """The Dataset page's file uploader, its expander opened."""
    at = open_section(at, "add_open")
    # the uploader's key changes after each upload it read (pages/dataset.py UPLOADS_READ)
    return at.file_uploader(
        key=f"upload_file_{at.session_state['uploads_read']}"
        if "uploads_read" in at.session_state
        else "upload_file_0"
    )


def assert_clean(at: AppTest) -> None:
    """No exception box and no error message on the page."""
    assert not at.exception, [e.value for e in at.exception]
    details = [code.value for code in at.code]
    assert not at.error, ([e.value for e in at.error], details)


def unescape(markdown: str) -> str:
    """The text a backslash-escaped markdown string renders as (the invisible word joiners
    :func:`explorer.errors.escape` puts into bare URLs left out)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def url(at: AppTest, key: str) -> str | None:
    """One query parameter of the page's URL (None where the URL does not name it)."""
    if key not in at.query_params:
        return None
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


def figures(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as decoded JSON specs."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def decode(values) -> np.ndarray:
    """A plotly 7 array: a list, or ``{"dtype", "bdata", "shape"}`` base64."""
    if isinstance(values, dict) and "bdata" in values:
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        if "shape" in values:
            shape = values["shape"]
            shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
            array = array.reshape(shape)
        return array
    return np.asarray(values)


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    """The one table on the page holding ``column`` (tables carry no key in AppTest)."""
    hits = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert len(hits) == 1, [list(frame.value.columns) for frame in at.dataframe]
    return hits[0]


def titled(specs: list[dict], words: str) -> dict:
    """The one figure whose title contains ``words``."""
    hits = [s for s in specs if words in str(s["layout"].get("title", {}).get("text", ""))]
    assert len(hits) == 1, [s["layout"].get("title", {}).get("text") for s in specs]
    return hits[0]


def upload_csv(rows: int = 400, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], rows),
            "size": rng.normal(10, 3, rows).round(2),
            "shop_id": rng.integers(0, 40, rows),
            "label": rng.choice(["yes", "no"], rows, p=[0.3, 0.7]),
        }
    )
    return frame.to_csv(index=False).encode()


# --------------------------------------------------------------------------- Dataset
def test_dataset_page_on_the_default():
    at = open_app()
    default = hdata.load_builtin(hdata.DEFAULT_DATASET)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows"] == f"{len(default.X):,}"
    assert metrics["Features"] == str(default.X.shape[1])
    assert at.sidebar.selectbox(key="w_data_spec").value == f"builtin:{hdata.DEFAULT_DATASET}"
    features = table_with(at, "MI with target (nats)")
    assert list(features["feature"]) == list(default.X.columns)
    assert (features["MI with target (nats)"] >= 0).all()
    assert figures(at) == []  # only the open tab is built: no figure on the Features tab
    at.session_state["dataset_tab"] = "Classes and sparsity"
    at.run()
    assert_clean(at)
    assert url(at, "dataset_tab") == "Classes and sparsity"  # a link keeps the tab
    # the class-balance bars are the class counts
    bars = titled(figures(at), "Rows per class")["data"][0]
    expected = default.y.value_counts().sort_index()
    assert decode(bars["y"]).tolist() == expected.tolist()
    # the rows-per-category heatmap covers every (class, feature) pair
    heat = titled(figures(at), "Rows per category")["data"][0]
    assert decode(heat["z"]).shape == (default.n_classes, default.X.shape[1])
    assert len(at.get("download_button")) >= 6


def test_feature_lens_counts_add_up():
    at = open_app(dataset_tab="One feature under the lens")
    default = hdata.load_builtin(hdata.DEFAULT_DATASET)
    at.selectbox(key="w_lens_feature").set_value(default.X.columns[3]).run()
    assert_clean(at)
    table = table_with(at, "total")
    assert table["total"].sum() == len(default.X)
    # counts as every table writes them: 3,000, not 3000 beside "Rows 3,000"
    grid = next(d for d in at.dataframe if "total" in d.value.columns)
    config = json.loads(grid.proto.columns)
    formats = {c["type_config"]["format"] for c in config.values() if "type_config" in c}
    assert formats == {"%,d"} and "type_config" in config["total"]
    count_columns = [c for c in table.columns if c.startswith("N(class=")]
    assert len(count_columns) == default.n_classes


def test_the_lens_says_so_when_no_cell_is_zero():
    """It read "0 of 20 cells are zero. An unsmoothed estimate would give those a
    probability of exactly 0 and veto the class." about a feature without one."""
    at = open_app(
        data="builtin:breast-cancer",
        dataset_tab="One feature under the lens",
        lens_feature="mean texture",
    )
    assert_clean(at)
    said = " ".join(m.value for m in at.markdown)
    assert "none of the 20 cells is zero" in said and "veto the class" not in said


def test_shared_link_reproduces_the_view():
    at = open_app(data="builtin:iris", methods="HEB-M,Laplace", bins="5", rows="0")
    assert at.sidebar.selectbox(key="w_data_spec").value == "builtin:iris"
    assert set(at.sidebar.multiselect(key="w_methods").value) == {"HEB-M", "Laplace"}
    assert url(at, "n_bins") == "5"
    assert at.metric[0].value == "150"
    # the state follows the user to another page and stays in the URL
    at.switch_page("pages/compare.py").run()
    assert_clean(at)
    assert url(at, "dataset") == "builtin:iris"
    assert url(at, "methods") == "HEB-M,Laplace"


def test_a_link_holds_the_run_settings_and_reads_back():
    """The URL is RunSettings.to_query() plus the methods: folds and what-if values too."""
    at = open_app(
        "pages/compare.py",
        dataset="builtin:iris",
        methods="Laplace,Lidstone",
        folds="5",
        params="Lidstone:alpha=0.3",
        max_rows="0",
    )
    assert at.segmented_control(key="w_folds").value == 5
    assert at.segmented_control(key="w_whatif_alpha").value == 0.3
    query = {key: url(at, key) for key in at.query_params}
    settings = RunSettings.from_query(query)
    assert settings == RunSettings(
        dataset="builtin:iris", n_splits=5, max_rows=None, overrides={"Lidstone": {"alpha": 0.3}}
    )
    assert query["methods"] == "Laplace,Lidstone"
    # the numbers are those of cross_validate with the same settings
    expected = cross_validate(
        hdata.load_builtin("iris"), ["Laplace", "Lidstone"], settings=settings
    )
    lidstone = expected.summary().set_index("method").loc["Lidstone"]
    shown = table_with(at, "ECE ↓").set_index("method")
    assert shown.loc["Lidstone", "Accuracy ↑"] == (
        f"{lidstone['accuracy_mean']:.3f} ± {lidstone['accuracy_std']:.3f}"
    )


def test_a_bad_link_falls_back_to_defaults():
    at = open_app(methods="Nonsense", bins="abc", missing="?", data="upload:0123abcd")
    notes = [info.value for info in at.main.info]
    assert notes[0] == escape(state.UPLOAD_LINK_NOTE)  # above the page
    assert escape(state.BAD_LINK_NOTE) not in notes
    at.run()  # the note stays above the page on reruns, until another dataset is chosen
    assert at.main.info[0].value == escape(state.UPLOAD_LINK_NOTE)
    assert at.sidebar.selectbox(key="w_data_spec").value == f"builtin:{hdata.DEFAULT_DATASET}"
    assert at.sidebar.multiselect(key="w_methods").value  # the default selection
    assert url(at, "n_bins") == "10"
    assert url(at, "missing") == "impute"


def test_a_links_unknown_method_is_said_and_left_out():
    """A method name the app does not have is left out with a note (it was dropped in
    silence, while other settings the app does not take were said)."""
    at = open_app(methods="Laplace,<b>NoSuch</b>,HEB-M")
    notes = [info.value for info in at.main.info]
    expected = escape(state.METHODS_LINK_NOTE.format(value="<b>NoSuch</b>"))
    assert notes.count(expected) == 1
    assert at.sidebar.multiselect(key="w_methods").value == ["Laplace", "HEB-M"]
    plain = open_app(methods="Laplace,HEB-M")
    assert not [info.value for info in plain.main.info if "link" in info.value]


def test_a_links_seed_or_setting_the_app_does_not_take_is_said_once():
    """Issue 12: a link's seed=7 became 42 in silence (the app's runs use seed 42)."""
    at = open_app(seed="7", folds="7", n_bins="10")
    notes = [info.value for info in at.main.info]
    seed_note = escape(state.SEED_LINK_NOTE.format(value="7"))
    folds_note = escape(state.VALUE_LINK_NOTE.format(name="folds", value="7", default=10))
    assert notes.count(seed_note) == 1 and notes.count(folds_note) == 1
    assert "seed 7" in unescape(seed_note) and "seed 42" in unescape(seed_note)
    assert url(at, "seed") == str(state.SEED) == "42"
    # a link that asks for what the app does raises no note
    plain = open_app(seed="042", folds="5", n_bins="10")  # 42 however written
    assert not [info.value for info in plain.main.info if "link" in info.value]
    assert url(plain, "folds") == "5"


@pytest.mark.parametrize(
    "params",
    ["NoSuch:alpha=1", "Lidstone:alpha=abc", "Lidstone:alpha=0.123", "Lidstone:beta=1"],
)
def test_a_links_overrides_the_app_does_not_offer_are_said(params):
    """A what-if the app cannot show (an unknown method, a value off the knob, a
    parameter the knob is not) was dropped in silence."""
    at = open_app("pages/compare.py", methods="Laplace,Lidstone", params=params)
    note = escape(
        state.VALUE_LINK_NOTE.format(name="params", value=params, default="the smoothers' defaults")
    )
    assert [info.value for info in at.main.info].count(note) == 1
    # a knob's own value (any case of the method's name) is taken without a note
    plain = open_app("pages/compare.py", methods="Laplace,Lidstone", params="lidstone:alpha=0.5")
    assert not [info.value for info in plain.main.info if "link" in info.value]
    assert plain.segmented_control(key="w_whatif_alpha").value == 0.5


def test_closed_dataset_expanders_build_no_widgets_and_say_the_settings_in_force():
    at = open_app(data="builtin:iris", n_bins="4", missing="category", max_rows="0")
    assert not at.get("file_uploader") and not at.slider and not at.text_input
    said = "Preprocessing in force: 4 bins · missing as a category · every row."
    assert said in [c.value for c in at.caption]
    opened = open_section(open_section(at, "add_open"), "preprocessing_open")
    assert opened.slider(key="w_n_bins").value == 4
    assert opened.radio(key="w_missing").value == "category"
    assert opened.text_input(key="openml_id").value == "31"
    assert len(opened.get("file_uploader")) == 1


def test_the_preprocessing_box_stays_open_while_its_settings_change():
    """Its label once named the settings: a new label is a new expander to Streamlit, so
    each change closed the box (a new user's trial)."""
    at = open_section(open_app(data="builtin:iris"), "preprocessing_open")
    at.slider(key="w_n_bins").set_value(4).run()
    at.radio(key="w_missing").set_value("category").run()
    assert at.session_state["preprocessing_open"] is True
    assert at.slider(key="w_n_bins").value == 4 and at.radio(key="w_missing").value == "category"
    assert_clean(at)


def test_preprocessing_options_apply_everywhere():
    at = open_app(data="builtin:iris")
    open_section(at, "preprocessing_open").slider(key="w_n_bins").set_value(4).run()
    assert_clean(at)
    features = table_with(at, "MI with target (nats)")
    assert (features["K_f"] <= 4).all()
    assert url(at, "n_bins") == "4"


def test_upload_a_csv_and_choose_the_target():
    at = open_app()
    uploader(at).upload("shops.csv", upload_csv(), "text/csv")
    at.run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="w_data_spec").value.startswith("upload:")
    assert at.metric[0].value == "400"
    assert at.selectbox(key="upload_target").value == "label"
    at.selectbox(key="upload_target").set_value("colour").run()
    assert_clean(at)
    assert at.metric[2].value == "3"  # three colours to predict
    for page in ("pages/concentrations.py", "pages/compare.py"):
        at.switch_page(page).run()
        assert_clean(at)


def test_an_upload_is_parsed_once_whatever_follows(monkeypatch):
    """Issue 11, item 7: the upload check, the target choice, another target and another
    page all read one parsed table (a 59 MB upload was parsed three times: 11 s)."""
    from heb.data import readers

    parse, reads = readers._parse, []

    def counted(data, lower, *args):
        reads.append(lower)
        return parse(data, lower, *args)

    monkeypatch.setattr(readers, "_parse", counted)  # every reader parses through it
    at = open_app()
    uploader(at).upload("once.csv", upload_csv(seed=11), "text/csv").run()
    assert_clean(at)
    at.selectbox(key="upload_target").set_value("colour").run()
    assert_clean(at)
    assert at.metric[2].value == "3"  # the Dataset of the new target
    at.switch_page("pages/concentrations.py").run()
    assert_clean(at)
    assert reads == ["once.csv"]


def test_a_failed_upload_after_a_good_one_says_the_dataset_did_not_change():
    """The good file's "Read custno.csv: it is the dataset now" stood right under the next
    file's error, as if that one had been read."""
    at = open_app()
    uploader(at).upload("good.csv", upload_csv(seed=23), "text/csv").run()
    assert_clean(at)
    before = at.sidebar.selectbox(key="w_data_spec").value
    uploader(at).upload("broken.csv", b"\x00\x01\x02 not a table \xff", "text/csv").run()
    assert at.error and not at.exception
    captions = [c.value for c in at.caption]
    assert not any("it is the dataset now" in c for c in captions), captions
    assert any("broken\\.csv was not read: the dataset is still" in c for c in captions)
    assert at.sidebar.selectbox(key="w_data_spec").value == before


def test_a_read_upload_leaves_the_uploader_and_a_second_one_is_read_too():
    """The file lives in the session's uploads alone once read (Streamlit deep-copies an
    uploader's value at every rerun); the uploader is ready for the next file."""
    at = open_app()
    uploader(at).upload("first.csv", upload_csv(seed=21), "text/csv").run()
    assert_clean(at)
    fresh = uploader(at)
    assert fresh.key == "upload_file_1" and fresh.value is None
    assert any("Read first\\.csv: it is the dataset now" in c.value for c in at.caption)
    first = at.sidebar.selectbox(key="w_data_spec").value
    fresh.upload("second.csv", upload_csv(rows=300, seed=22), "text/csv").run()
    assert_clean(at)
    assert at.metric[0].value == "300"
    second = at.sidebar.selectbox(key="w_data_spec").value
    assert second.startswith("upload:") and second != first
    assert {first, second} <= set(at.session_state["uploads"])  # both kept for the session


#: cases of docs/bad_inputs.md as a user would upload them: (file name, bytes, message start)
BAD_UPLOADS = [
    ("empty.csv", b"", "The file is empty"),
    ("header_only.csv", b"a,b,class\n", "The file has a header row but no data rows"),
    ("junk.csv", b"\x00\x01\x02\xff" * 50, "This file holds binary data"),
    ("book.xlsx", b"PK\x03\x04" + b"\x00" * 60, "This is a zip archive or an Excel workbook"),
    ("broken.csv.gz", b"\x1f\x8b\x08\x00broken", "The file looks gzip-compressed"),
    ("one_row.csv", b"a,b,class\n1,2,x\n", "The table has a single data row"),
    # no other column could be the target either (one value): else that one is taken
    ("one_class.csv", b"a,class\n1,x\n1,x\n1,x\n", "The target 'class' has only one class"),
    ("only_target.csv", b"class\nx\ny\nx\n", "The table has no feature columns"),
    (
        "no_data.arff",
        b"@relation r\n@attribute a {x,y}\n@attribute class {p,q}\n",
        "The ARFF file has no @data line",
    ),
]


@pytest.mark.parametrize(
    ("filename", "payload", "message"), BAD_UPLOADS, ids=[case[0] for case in BAD_UPLOADS]
)
def test_a_bad_upload_is_a_message_not_a_traceback(filename, payload, message):
    at = open_app()
    uploader(at).upload(filename, payload, "text/csv").run()
    assert not at.exception
    assert [e.value for e in at.error] and unescape(at.error[0].value).startswith(message), [
        e.value for e in at.error
    ]
    assert not at.code  # the data error is the whole message: no details box
    # the view keeps the dataset it had
    assert at.sidebar.selectbox(key="w_data_spec").value == f"builtin:{hdata.DEFAULT_DATASET}"


def test_a_class_too_small_for_the_folds_is_explained():
    rows = "\n".join(
        [
            "a,b,class",
            *(f"{i % 3},{i % 5},big" for i in range(40)),
            "1,2,tiny",
            "0,1,tiny",
            "2,2,tiny",
        ]
    )
    at = open_app()
    uploader(at).upload("small.csv", rows.encode(), "text/csv").run()
    assert_clean(at)
    at.switch_page("pages/compare.py").run()
    assert_clean(at)
    notes = [unescape(info.value) for info in at.info]
    assert any("'tiny'" in note and "fold" in note for note in notes), notes


def test_an_openml_id_offline_is_a_message(monkeypatch, tmp_path):
    """No cached copy and no network: one friendly sentence, the view unchanged."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("heb.data.DEFAULT_OPENML_SERVER", "http://127.0.0.1:9/api/v1/xml")
    at = open_app()
    open_section(at, "add_open").text_input(key="openml_id").set_value("999999")
    at.button(key="openml_load").click().run()
    assert not at.exception
    assert at.error and "999999" in at.error[0].value
    assert at.sidebar.selectbox(key="w_data_spec").value == f"builtin:{hdata.DEFAULT_DATASET}"
    # a catalogue entry without a local copy (splice, OpenML 46), chosen in the sidebar
    at.sidebar.selectbox(key="w_data_spec").set_value("openml:46").run()
    assert not at.exception
    assert at.error and "46" in at.error[0].value
    at.button(key="back_to_default").click().run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="w_data_spec").value == f"builtin:{hdata.DEFAULT_DATASET}"


# --------------------------------------------------------------------------- Concentrations
def test_concentrations_page_and_the_evidence_link():
    at = open_app("pages/concentrations.py")
    default = hdata.load_builtin(hdata.DEFAULT_DATASET)
    C, F = default.n_classes, default.X.shape[1]
    (heat,) = figures(at)  # only the open tab's figure is built and sent: the heatmap
    assert heat["data"][0]["type"] == "heatmap"
    assert decode(heat["data"][0]["z"]).shape == (C, F)
    at.session_state["conc_tab"] = "Figure 5 scatters"
    at.run()
    assert len(figures(at)) == 2  # the two Figure 5 scatters
    # a fitted slope far from the paper's is said to be this dataset's (the trial read
    # "slope 2.52 (paper: 1)" with no word on why)
    assert "One dataset's fitted slope can lie far from them" in " ".join(
        c.value for c in at.caption
    )
    assert "Compare's folds and bins too" in " ".join(c.value for c in at.sidebar.caption)
    at.session_state["conc_tab"] = "Table"
    at.run()
    table = table_with(at, "rho")
    assert len(table) == C * F
    assert ((table["rho"] > 0) & (table["rho"] < 1)).all()
    at.radio(key="w_conc_model").set_value("HEB-U").run()
    assert_clean(at)
    at.selectbox(key="pair_class").set_value(str(default.classes[1]))
    at.selectbox(key="pair_feature").set_value(default.X.columns[2])
    at.button(key="open_evidence").click().run()
    assert not at.exception
    assert at.session_state["evidence_pair"] == {"class": 1, "feature": 2}


def test_concentrations_of_heb_aode():
    at = open_app("pages/concentrations.py", data="builtin:zip-codes", methods="HEB-AODE")
    at.radio(key="w_conc_model").set_value("HEB-AODE").run()
    assert_clean(at)
    table = table_with(at, "parent name")
    assert {"class", "parent", "child", "m", "rho"} <= set(table.columns)
    assert (table["parent"] != table["child"]).all()
    heat = titled(figures(at), "HEB-AODE")
    assert heat["data"][0]["type"] == "heatmap"


# --------------------------------------------------------------------------- Compare
def test_the_reliability_view_names_the_methods_it_does_not_draw():
    """Of seven methods five are drawn: m-estimate and TE were left out with no word."""
    seven = "Laplace,Lidstone,KT,m-estimate,TE,HEB-U,HEB-M"
    at = open_app("pages/compare.py", data="builtin:iris", methods=seven, folds="3")
    assert_clean(at)
    (draw,) = [box for box in at.multiselect if box.label == "Draw"]
    assert len(draw.value) == 5 and {"HEB-U", "HEB-M"} <= set(draw.value)
    left_out = ", ".join(m for m in seven.split(",") if m not in draw.value)
    notes = [unescape(c.value) for c in at.caption if c.value.startswith("Not drawn:")]
    assert notes == [f"Not drawn: {left_out} (at most 5 read well together; pick them under Draw)."]


def test_compare_page_and_a_what_if_change():
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,Lidstone,HEB-M")
    shown = table_with(at, "ECE ↓")
    assert list(shown["method"]) == ["Laplace", "Lidstone", "HEB-M"]
    reliability = titled(figures(at), "pooled out-of-fold")
    names = {trace.get("name") for trace in reliability["data"]}
    assert {"Laplace", "Lidstone", "HEB-M"} <= names
    # the table and the per-fold boxes show what heb.evaluate computes
    expected = cross_validate(hdata.load_builtin("iris"), ["Laplace", "Lidstone", "HEB-M"])
    laplace = expected.summary().set_index("method").loc["Laplace"]
    assert shown.loc[0, "Accuracy ↑"] == (
        f"{laplace['accuracy_mean']:.3f} ± {laplace['accuracy_std']:.3f}"
    )
    assert not [f for f in figures(at) if "per fold" in str(f["layout"]["title"])]  # closed tab
    at.session_state["compare_tab"] = "Spread over folds"
    at.run()
    at.segmented_control(key="w_spread_metric").set_value("log_loss").run()
    assert_clean(at)
    assert url(at, "compare_tab") == "Spread over folds"  # a link keeps the tab
    boxes = titled(figures(at), "per fold")["data"]
    assert [box["name"] for box in boxes] == ["Laplace", "Lidstone", "HEB-M"]
    folds = expected.folds
    for box in boxes:
        values = folds.loc[folds["method"] == box["name"], "log_loss"].to_numpy()
        np.testing.assert_allclose(decode(box["y"]), values)
    before = shown.set_index("method")
    at.segmented_control(key="w_whatif_alpha").set_value(5.0).run()
    assert_clean(at)
    after = table_with(at, "ECE ↓").set_index("method")
    assert after.loc["Laplace"].equals(before.loc["Laplace"])
    assert not after.loc["Lidstone"].equals(before.loc["Lidstone"])
    # going back to a value seen before is served from memory
    at.segmented_control(key="w_whatif_alpha").set_value(0.1).run()
    assert any("from memory" in c.value for c in at.caption)


def test_compare_with_aode_and_all_seven():
    at = open_app(
        "pages/compare.py",
        data="builtin:iris",
        methods=",".join([*TABLE1_METHODS, "AODE", "HEB-AODE"]),
    )
    shown = table_with(at, "ECE ↓")
    assert len(shown) == 9


# --------------------------------------------------------------------------- Benchmark
def _benchmarked() -> AppTest:
    """A new session that runs the benchmark of three built-in datasets and three methods."""
    at = open_app("pages/benchmark.py", methods="Laplace,HEB-M,KT")
    at.multiselect(key="w_bench_datasets").set_value(
        ["builtin:iris", "builtin:wine", "builtin:zip-codes"]
    ).run()
    at.button(key="bench_run").click().run()
    assert_clean(at)
    return at


def _cd_titles(at: AppTest) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in figures(at)]


def shown_text(grid) -> pd.DataFrame:
    """The text a Styler-formatted grid shows (its display values), cell by cell."""
    import pyarrow as pa

    return pa.ipc.open_stream(grid.proto.arrow_data.styler.display_values).read_pandas()


def test_benchmark_p_values_read_as_the_cli_tables_write_them():
    """Three decimals and <0.001 in Friedman's metrics, the Wilcoxon and the Nemenyi
    tables (they read 0.012, 0.00781 and 0.056 side by side: .2g, .3g and .3f)."""
    from heb.evaluate.paper import format_p

    at = _benchmarked()
    p_metrics = [m for m in at.metric if m.label.startswith("p-value")]
    assert len(p_metrics) == 2 and all(m.value != "" for m in p_metrics)
    for m in p_metrics:
        assert m.value == "<0.001" or len(m.value.split(".")[1]) == 3
    wilcoxon = next(t for t in at.dataframe if "Holm p" in t.value.columns)
    text = shown_text(wilcoxon)
    for column in ("p", "Holm p"):
        assert list(text[column]) == [format_p(v) for v in wilcoxon.value[column]]
    assert list(text["W"]) == [f"{w:g}" for w in wilcoxon.value["W"]]
    nemenyi = next(t for t in at.dataframe if list(t.value.index) == list(t.value.columns))
    assert set(np.diag(shown_text(nemenyi).to_numpy())) == {"1.000"}


def test_benchmark_page_runs_and_ranks():
    from explorer import benchmarking

    finished, lock = benchmarking._finished()  # shared by the process's sessions: another
    with lock:  # test's run of the same selection would be recalled from memory
        finished.clear()
    at = _benchmarked()
    titles = {registry.metric(metric).title for metric in registry.METRICS}
    assert {tab.label for tab in at.tabs} == titles  # one tab per metric
    # only the open tab is built and sent: its critical-difference diagram and tables
    assert [t.split(":")[0] for t in _cd_titles(at)] == ["Accuracy"]
    labels = {m.label for m in at.metric}
    assert {"Friedman chi²", "Iman-Davenport F"} <= labels
    grids = [t for t in at.dataframe if "average rank" in t.value.index]
    assert len(grids) == 1  # the paper's Table 1 of the open tab's metric
    accuracy = grids[0].value
    # the dataset names whole ("amazon-employee-access" read "amazon-empl")
    index_width = json.loads(grids[0].proto.columns)["_index"]["width"]
    assert index_width == benchmarking.name_width(accuracy.index) >= 8 * len("zip-codes")
    at.session_state["bench_metric_tab"] = registry.metric("log_loss").title
    at.run()
    assert [t.split(":")[0] for t in _cd_titles(at)] == ["Log-loss"]
    log_loss_table = next(t.value for t in at.dataframe if "average rank" in t.value.index)
    assert not log_loss_table.equals(accuracy)
    assert list(accuracy.columns) == ["Laplace", "KT", "HEB-M"]
    assert list(accuracy.index) == ["iris", "wine", "zip-codes", "average rank"]
    assert accuracy.loc["average rank"].sum() == pytest.approx(6.0)  # ranks 1 + 2 + 3
    assert not any("Shown from memory" in c.value for c in at.caption)
    # the same selection again (here, or in another session) is served from memory
    again = _benchmarked()
    assert any("Shown from memory: nothing was recomputed" in c.value for c in again.caption)
    recalled = [t.value for t in again.dataframe if "average rank" in t.value.index]
    pd.testing.assert_frame_equal(recalled[0], accuracy)


# --------------------------------------------------------------------------- shared data
def test_every_page_on_amazon(datasets_dir, manifest):
    """The high-cardinality benchmark dataset (32,769 rows, subsampled to 20,000)."""
    entry = manifest["amazon-employee-access"]
    query = {"data": "shared:amazon-employee-access", "methods": "Laplace,HEB-M"}
    at = open_app("pages/dataset.py", **query)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows"] == "20,000"
    assert metrics["Features"] == str(entry["n_features"])
    features = table_with(at, "MI with target (nats)")
    assert (features["type"] == "categorical").all()
    assert features["K_f"].max() > 1000  # RESOURCE, MGR_ID: thousands of categories
    at = open_app("pages/concentrations.py", **query)
    at.session_state["conc_tab"] = "Table"
    at.run()
    assert len(table_with(at, "rho")) == entry["n_classes"] * entry["n_features"]
    at = open_app("pages/compare.py", **query)
    assert list(table_with(at, "ECE ↓")["method"]) == ["Laplace", "HEB-M"]
    open_app("pages/benchmark.py", **query)


# --------------------------------------------------------------------------- hostile input
#: markdown that would draw a live link or make the browser fetch a remote image
LINK = "[Click](https://x)"
IMAGE = "![a](http://127.0.0.1:9/o.png)"
#: ASCII punctuation that is not preceded by a backslash
_UNESCAPED = re.compile(r"(?<!\\)[!\"#$%&'()*+,\-./:;<=>?@\[\]^_`{|}~]")


def assert_plain(markdown: str) -> None:
    """Every punctuation character is backslash-escaped: the text renders as itself.

    CommonMark renders ``\\x`` as ``x`` for any ASCII punctuation; with every bracket,
    parenthesis, ``!``, ``<`` and ``:`` escaped no link, image, tag, directive or bare-URL
    autolink can form (the browser test checks the rendered page too).
    """
    assert not _UNESCAPED.search(markdown.replace("\\\\", "")), markdown


@pytest.mark.parametrize("text", [LINK, IMAGE, "<a href='x'>CLICK</a>", "see https://e.com"])
def test_escape_leaves_no_markdown_construct(text):
    escaped = escape(text)
    assert_plain(escaped)
    assert unescape(escaped) == text  # renders as exactly the text


#: GFM's autolink literals as Streamlit's markdown (mdast-util-gfm-autolink-literal) finds
#: them: in the text left *after* backslash escapes are resolved
GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)


@pytest.mark.parametrize(
    "text",
    ["see https://e.com", "[link](http://e.com)", "www.e.com", "WWW.E.COM/x", "ann@e.com"],
)
def test_escape_leaves_no_bare_url_for_gfm_to_link(text):
    """A column named '[link](http://e.com)' was a live link to http://e.com on the
    Explain page: the backslashes of ``https\\://`` are gone by the time GFM looks."""
    rendered = re.sub(r"\\(.)", r"\1", escape(text))
    assert not GFM_URL.search(rendered) and not GFM_EMAIL.search(rendered), rendered
    assert unescape(escape(text)) == text  # and it still reads as the text


def test_escape_caps_and_flattens():
    escaped = escape("a\n# heading\r\n" + "b" * 3000)
    assert "\n" not in escaped and "\r" not in escaped
    assert unescape(escaped).startswith("a # heading b")  # no heading line
    assert len(unescape(escaped)) <= 500
    assert escaped.endswith("…")


HOSTILE_LINKS = [
    "/etc/passwd",
    "../../../etc/passwd",
    "file:/etc/os-release",
    "file:///etc/passwd",
    "/proc/self/maps",
    "/proc/kmsg",
    "shared:../../etc/passwd",
    "builtin:/etc/passwd",
    "openml:" + LINK,
    IMAGE,
    "openml:31 ",
    "x" * 3000,
]


@pytest.mark.parametrize("value", HOSTILE_LINKS, ids=range(len(HOSTILE_LINKS)))
def test_a_hostile_data_link_loads_the_default_calmly(value):
    at = open_app(data=value)
    notes = [info.value for info in at.main.info]
    assert notes[0] == escape(state.BAD_LINK_NOTE)  # above the page
    assert escape(state.UPLOAD_LINK_NOTE) not in notes
    assert at.sidebar.selectbox(key="w_data_spec").value == state.default_spec()
    assert url(at, "dataset") == state.default_spec()
    shown = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.metric])
    assert "root:" not in shown and "passwd" not in shown
    assert "[Click" not in shown and "Click\\]" not in shown  # the link's text is not echoed


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("builtin:iris", True),
        ("openml:31", True),
        ("openml:0", False),
        ("openml:1e3", False),
        ("shared:not-a-dataset", False),
        ("builtin:", False),
        ("upload:0123abcd", False),
        ("C:/data.csv", False),
    ],
)
def test_url_spec_names_only_known_datasets(value, allowed):
    assert (state.url_spec(value) == value) is allowed


def test_a_linked_catalogue_name_without_a_local_copy_is_its_openml_id(monkeypatch, tmp_path):
    """``shared:credit-g`` opened where there is no shared folder showed the shared copy's
    error, naming the server's folder; the sidebar offers the same entry as OpenML 31."""
    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path))  # no copies here
    assert state.url_spec("shared:credit-g") == "openml:31"
    assert state.url_spec("shared:not-a-dataset") is None
    at = open_app(clean=False, data="shared:credit-g")  # offline: OpenML's one sentence
    assert not at.exception
    shown = " ".join(str(e.value) for e in [*at.error, *at.info, *at.warning, *at.caption])
    assert "OpenML dataset 31" in shown and str(tmp_path) not in shown
    assert url(at, "dataset") == "openml:31"


def test_user_text_in_notes_and_errors_is_escaped():
    """A duplicate column named like a link, a rare class named like an image."""
    header = f"{LINK},{LINK},class"
    rows = [f"{i % 3},{i % 4},big" for i in range(40)] + [f"1,2,{IMAGE}", f"0,1,{IMAGE}"]
    at = open_app()
    payload = "\n".join([header, *rows]).encode()
    uploader(at).upload(f"{LINK}.csv", payload, "text/csv").run()
    assert_clean(at)
    notes = [info.value for info in at.info]
    assert any("Click" in note for note in notes), notes  # the duplicate-name note
    for note in notes:
        assert_plain(note)  # escaped as a whole
        assert LINK not in note
    at.switch_page("pages/compare.py").run()
    assert_clean(at)
    notes = [info.value for info in at.info]
    assert any("fold" in note for note in notes), notes  # the rare-class notice
    assert all(IMAGE not in note for note in notes)
    assert any(escape(IMAGE) in note for note in notes), notes
    # a failed upload's message is escaped too
    at.switch_page("pages/dataset.py").run()
    uploader(at).upload(f"{IMAGE}.csv", b"", "text/csv").run()
    assert not at.exception
    assert at.error and IMAGE not in at.error[0].value


def test_a_failed_uploads_message_is_escaped():
    """The error under the uploader names the user's column: shown as its text, no link."""
    at = open_app()
    uploader(at).upload("one_class.csv", f"a,{LINK}\n1,x\n1,x\n1,x\n".encode(), "text/csv").run()
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    assert_plain(at.error[0].value)
    assert unescape(at.error[0].value).startswith(f"The target '{LINK}' has only one class")


def test_an_uploads_file_name_in_the_source_caption_is_escaped():
    """The Dataset page's "Source: upload:NAME" caption is markdown: a file named like a
    link shows as that text, never a live link (a name keeps no "/": a relative link)."""
    name = "[Click](x) :red[now].csv"
    at = open_app()
    uploader(at).upload(name, upload_csv(), "text/csv").run()
    assert_clean(at)
    sources = [c.value for c in at.caption if unescape(c.value).startswith("Source: upload:")]
    assert len(sources) == 1, [c.value for c in at.caption]
    assert_plain(sources[0])
    assert unescape(sources[0]) == f"Source: upload:{name}."


def test_a_new_file_under_an_uploaded_files_name_is_read_afresh():
    """The parsed table is cached by the file's content (sha256), not by its name: a
    corrected file uploaded under the same name shows its own rows and classes."""
    at = open_app()
    uploader(at).upload("data.csv", upload_csv(rows=400, seed=1), "text/csv").run()
    assert_clean(at)
    assert at.metric[0].value == "400"
    uploader(at).upload("data.csv", upload_csv(rows=300, seed=2), "text/csv").run()
    assert_clean(at)
    assert at.metric[0].value == "300"
    at.selectbox(key="upload_target").set_value("colour").run()
    assert_clean(at)
    assert at.metric[0].value == "300" and at.metric[2].value == "3"


def test_csv_downloads_neutralise_formulas():
    frame = pd.DataFrame(
        {
            "=HYPERLINK(1)": ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\ry", "safe", "a=b"],
            "number": [-1.5, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    text = csv_bytes(frame).decode()
    header, *rows = csv.reader(io.StringIO(text, newline=""))
    assert header == ["'=HYPERLINK(1)", "number"]
    assert [row[0] for row in rows] == [
        "'=1+1",
        "'+SUM(A1)",
        "'-2+3",
        "'@cmd",
        "'\tx",
        "'\ry",
        "safe",
        "a=b",
    ]
    assert [float(row[1]) for row in rows] == [-1.5, 2, 3, 4, 5, 6, 7, 8]  # numbers stay numbers
    assert neutralise_formulas(frame).shape == frame.shape
    # a plain number written as text (a class -1) is no formula: left as it is
    numbers = pd.DataFrame({"class": ["-1", "+2.5", "-3e-4", "-1e", "-2+3", "-1\n=2"]})
    assert neutralise_formulas(numbers)["class"].tolist() == [
        "-1",
        "+2.5",
        "-3e-4",
        "'-1e",
        "'-2+3",
        "'-1\n=2",
    ]


def test_csv_downloads_neutralise_formulas_in_string_and_category_columns():
    """Text kept as pandas' string or category dtype is neutralised as object text is."""
    frame = pd.DataFrame(
        {
            "s": pd.array(["=1+1", "ok"], dtype="string"),
            "c": pd.Categorical(["@cmd", "ok"]),
            "n": [-1.5, 2.0],
        }
    )
    header, *rows = csv.reader(io.StringIO(csv_bytes(frame).decode(), newline=""))
    assert header == ["s", "c", "n"]
    assert rows == [["'=1+1", "'@cmd", "-1.5"], ["ok", "ok", "2.0"]]


def test_table_cells_are_capped():
    frame = pd.DataFrame({"x" * 500: ["y" * 100_000, "short"], "n": [1, 2]})
    capped = cap_cells(frame)
    assert len(capped.iloc[0, 0]) == MAX_CELL_CHARS and capped.iloc[0, 0].endswith("…")
    assert capped.iloc[1, 0] == "short"
    assert len(capped.columns[0]) == MAX_CELL_CHARS
    assert capped["n"].tolist() == [1, 2]


def test_a_huge_cell_reaches_the_page_capped():
    payload = f"note,class\n{'z' * 50_000},a\nshort,b\nx,a\ny,b\n".encode()
    at = open_app()
    uploader(at).upload("big_cell.csv", payload, "text/csv").run()
    assert_clean(at)
    longest = max(
        len(str(value))
        for frame in at.dataframe
        for column in frame.value.columns
        for value in frame.value[column]
    )
    assert longest <= MAX_CELL_CHARS


# --------------------------------------------------------------------------- routing
def test_every_page_file_is_in_the_navigation():
    """(The browser test checks that /dataset and each page's own address open it.)"""
    routed = [name for entries in SECTIONS.values() for name, _, _ in entries]
    assert len(routed) == len(set(routed))
    assert set(routed) == {path.name for path in (APP.parent / "pages").glob("*.py")}


def test_the_menu_is_the_apps_own_with_one_title_per_page():
    """Streamlit's own menu is hidden (on a fresh server it showed the pages' file names);
    the sidebar's page links list every page by its title, in the menu's order."""
    import tomllib

    config = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showSidebarNavigation"] is False
    at = open_app()
    labels = [link.proto.label for link in at.sidebar.get("page_link")]
    assert labels == [title for entries in SECTIONS.values() for _, title, _ in entries]
    presenting = open_app(present="1")
    assert presenting.sidebar.get("page_link") == []  # the presenter shows no menu


def test_a_page_says_where_its_methods_change_with_the_sidebar_shown_or_hidden():
    """Compare names the sidebar for the methods; the presenter mode hides the sidebar,
    so there the page says to leave it first (a new user looked for a hidden sidebar)."""
    shown = open_app("pages/compare.py", methods="Laplace")
    said = " ".join(m.value for m in shown.markdown)
    assert "(change them in the sidebar)" in said
    hidden = open_app("pages/compare.py", methods="Laplace", present="1")
    said = " ".join(m.value for m in hidden.markdown)
    assert "(leave the presenter mode to change them in the sidebar)" in said


def test_streamlit_reads_our_server_settings(monkeypatch):
    """Streamlit itself parses .streamlit/config.toml as meant (a misspelt section or
    option would be silently ignored): no full garbage collection after each run (0.2 s
    of server CPU per run), no file watching, no toolbar for developers."""
    from streamlit import config

    monkeypatch.chdir(APP.parent)
    try:
        config.get_config_options(force_reparse=True)
        assert config.get_option("runner.postScriptGC") is False
        assert config.get_option("server.fileWatcherType") == "none"
        assert config.get_option("client.toolbarMode") == "viewer"
    finally:
        monkeypatch.undo()
        config.get_config_options(force_reparse=True)


def test_set_page_config_is_called_in_one_place():
    sources = [APP, *(APP.parent / "pages").glob("*.py"), *(APP.parent / "explorer").glob("*.py")]
    calls = [path.name for path in sources if "set_page_config(" in path.read_text()]
    assert calls == ["routing.py"]


@pytest.mark.parametrize("spec", ["/etc/passwd", "file:/etc/passwd", "upload:/etc/passwd"])
def test_the_app_loader_never_opens_a_path(spec):
    """A second line behind url_spec: the data layer's safe form refuses paths."""
    with pytest.raises(hdata.DataError, match="not a dataset name"):
        loading.load_spec(spec)


def test_zero_cells_counts_the_empty_class_cells():
    counts = pd.DataFrame(
        {"category": ["a", "b", "c"], "N(class=x)": [0, 3, 0], "N(class=y)": [2, 0, 5]}
    )
    counts["total"] = counts.iloc[:, 1:].sum(axis=1)
    assert summaries.zero_cells(counts) == (3, 6)


# --------------------------------------------------------------------------- issue 12
#: feature names that collide with the app's own table columns (issue 12, item 1)
CLASHING_NAMES = ["class", "fold", "method", "index", "count", "category", "total", "rows"]
#: every page file of the navigation, in menu order
PAGE_FILES = [f"pages/{name}" for entries in SECTIONS.values() for name, _, _ in entries]


def clashing_csv(rows: int = 300) -> bytes:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({name: rng.choice(list("abcd"), rows) for name in CLASHING_NAMES})
    frame["label"] = rng.choice(["x", "y", "z"], rows)
    return frame.to_csv(index=False).encode()


def test_any_column_name_works_on_every_page():
    """Features named class, fold, method, index, count...; then one of them the target."""
    at = open_app()
    uploader(at).upload("clash.csv", clashing_csv(), "text/csv").run()
    assert_clean(at)
    for target in ("class", "fold", "index"):
        at.selectbox(key="upload_target").set_value(target).run()
        assert_clean(at)
        assert {m.label: m.value for m in at.metric}["Classes"] == "4"
    for tab in ("One feature under the lens", "Hierarchies", "Classes and sparsity"):
        at.session_state["dataset_tab"] = tab
        at.run()
        assert_clean(at)
    heat = titled(figures(at), "per category")
    assert len(heat["data"][0]["y"]) == 4  # four classes of the target "index"
    for page in PAGE_FILES[1:]:
        at.switch_page(page).run()
        assert_clean(at)


def plug_in_mi(codes: np.ndarray, labels: np.ndarray) -> float:
    """Plug-in MI (nats) of two integer code arrays, from their contingency table."""
    joint = np.zeros((codes.max() + 1, labels.max() + 1))
    np.add.at(joint, (codes, labels), 1.0)
    joint /= joint.sum()
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    return float(np.sum(joint[nz] * np.log(joint[nz] / outer[nz])))


def test_the_mutual_information_shows_its_chance_level():
    """A pure-noise ID column: large plug-in MI, all of it about chance (item 9)."""
    rng = np.random.default_rng(0)
    rows = 2_000
    frame = pd.DataFrame(
        {
            "user_id": [f"u{v}" for v in rng.integers(0, 1_500, rows)],
            "colour": rng.choice(["red", "blue"], rows),
        }
    )
    frame["label"] = np.where((frame["colour"] == "red") ^ (rng.random(rows) < 0.2), "yes", "no")
    at = open_app()
    uploader(at).upload("ids.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    assert_clean(at)
    table = table_with(at, summaries.MI_ABOVE).set_index("feature")
    # the chance level is the plug-in MI's mean over shuffled labels (here 300 shuffles)
    codes = np.unique(frame["user_id"], return_inverse=True)[1]
    labels = np.unique(frame["label"], return_inverse=True)[1]
    shuffled = [plug_in_mi(codes, rng.permutation(labels)) for _ in range(300)]
    chance = table.loc["user_id", summaries.MI_CHANCE]
    assert chance == pytest.approx(np.mean(shuffled), abs=4 * np.std(shuffled) / np.sqrt(300))
    ids, colour = table.loc["user_id"], table.loc["colour"]
    assert ids["MI with target (nats)"] > colour["MI with target (nats)"]  # the trap
    assert ids[summaries.MI_ABOVE] < colour[summaries.MI_ABOVE]  # the correction
    assert any("labels shuffled" in c.value for c in at.caption)
    # the bars are drawn against the class entropy, the most a feature can tell
    shares = frame["label"].value_counts(normalize=True).to_numpy()
    entropy = float(-(shares * np.log(shares)).sum())
    counts = SimpleNamespace(table=SimpleNamespace(class_counts=np.array([30.0, 10.0, 0.0])))
    assert summaries.class_entropy(counts) == pytest.approx(
        -(0.75 * np.log(0.75) + 0.25 * np.log(0.25))
    )
    assert any(f"H(Y) = {entropy:.3f} nats" in c.value for c in at.caption)
    assert colour["MI with target (nats)"] < entropy


#: (page, URL settings, what the page shows for them): one case per kind of setting
LINKED_VIEWS = [
    ("pages/lesson_zero_counts.py", {"zero_alpha": "1.0", "zero_words": "agenda,winner"}),
    ("pages/lesson_dirichlet.py", {"dirichlet_K": "20", "dirichlet_N": "10"}),
    ("pages/lesson_evidence.py", {"evidence_source": "Counts I type", "evidence_m": "10.0"}),
    ("pages/lesson_high_cardinality.py", {"cardinality_K": "50", "cardinality_reps": "50"}),
    ("pages/lesson_calibration.py", {"calib_copies": "2", "calib_metric": "brier"}),
    ("pages/lesson_known_truth.py", {"truth_rows": "500", "truth_features": "2"}),
    (  # a lazy tab, and a pick made in it
        "pages/lesson_known_truth.py",
        {"truth_tab": "Posteriors", "truth_pick": "HEB-U"},
    ),
    ("pages/concentrations.py", {"conc_model": "HEB-U", "heat_value": "rho"}),
    (
        "pages/compare.py",
        {  # in this order: a widget is set while its tab is open
            "reliability_methods": "HEB-M",
            "compare_tab": "Spread over folds",
            "spread_metric": "log_loss",
        },
    ),
    (
        "pages/dataset.py",
        {"dataset_tab": "One feature under the lens", "lens_feature": "petal length (cm)"},
    ),
]


WIDGET_KINDS = ("slider", "select_slider", "radio", "multiselect", "selectbox", "segmented_control")


def widget(at: AppTest, key: str):
    """The one widget keyed ``key``, whatever its kind."""
    for kind in WIDGET_KINDS:
        try:
            return getattr(at, kind)(key=key)
        except KeyError:
            continue
    raise KeyError(key)


def shown_numbers(at: AppTest) -> dict:
    """What a reader compares: the metrics, and every figure's data."""
    return {
        "metrics": {m.label: m.value for m in at.metric},
        "figures": [json.dumps(spec["data"], sort_keys=True) for spec in figures(at)],
    }


@pytest.mark.parametrize(("page", "settings"), LINKED_VIEWS, ids=[v[0][6:-3] for v in LINKED_VIEWS])
def test_a_page_link_reproduces_its_view(page, settings):
    """Settings changed with the widgets reach the URL; that URL, opened in a new session,
    shows the same widgets and the same numbers (items 3 and 4)."""
    base = {"dataset": "builtin:iris", "methods": "Laplace,HEB-M"}
    at = open_app(page, **base)
    default_view = shown_numbers(at)
    for name, text in settings.items():
        current = at.session_state[name]
        value = text.split(",") if isinstance(current, list) else type(current)(text)
        try:
            widget(at, f"w_{name}").set_value(value).run()
        except KeyError:  # tabs: AppTest cannot click one; its shared value opens it
            at.session_state[name] = value
            at.run()
        assert_clean(at)
    query = {key: url(at, key) for key in at.query_params}
    assert {name: query.get(name) for name in settings} == settings
    view = shown_numbers(at)
    assert view != default_view  # the settings change what is shown
    fresh = open_app(page, **query)
    assert shown_numbers(fresh) == view
    for name in settings:
        assert fresh.session_state[name] == at.session_state[name]


def test_a_closed_tabs_settings_stay_in_the_link():
    """A setting whose widget sits on a closed tab is not drawn, but a link keeps it."""
    at = open_app(data="builtin:iris", lens_feature="petal length (cm)", fd_tolerance="0.05")
    assert at.session_state["dataset_tab"] == "Features"
    assert url(at, "lens_feature") == "petal length (cm)"
    assert url(at, "fd_tolerance") == "0.05"
    at.session_state["dataset_tab"] = "One feature under the lens"
    at.run()
    assert at.selectbox(key="w_lens_feature").value == "petal length (cm)"
    at = open_app("pages/compare.py", data="builtin:iris", spread_metric="log_loss")
    assert at.session_state["compare_tab"] == "Reliability"
    assert url(at, "spread_metric") == "log_loss"


def test_a_closed_lesson_tabs_settings_stay_in_the_link():
    """Known truth's pick of smoothers and Calibration's metric sit on tabs closed at first:
    a link naming them keeps them in the URL while those tabs are not built."""
    at = open_app("pages/lesson_known_truth.py", truth_pick="Laplace,TE")
    assert at.session_state["truth_tab"] == "PMF error"
    assert at.session_state["truth_pick"] == ["Laplace", "TE"]
    assert url(at, "truth_pick") == "Laplace,TE"
    at = open_app("pages/lesson_calibration.py", calib_metric="brier")
    assert at.session_state["calib_tab"] == "Double counting"
    assert url(at, "calib_metric") == "brier"


def test_lesson_settings_persist_across_pages_and_reset():
    at = open_app("pages/lesson_dirichlet.py")
    at.select_slider(key="w_dirichlet_K").set_value(20).run()
    at.switch_page("pages/lesson_zero_counts.py").run()
    assert "dirichlet_K" not in at.query_params  # another page's setting leaves the URL
    at.slider(key="w_zero_copies").set_value(7).run()
    at.switch_page("pages/lesson_dirichlet.py").run()
    assert_clean(at)
    assert at.select_slider(key="w_dirichlet_K").value == 20  # kept for the session
    assert url(at, "dirichlet_K") == "20"
    at.button(key="reset_page_settings").click().run()
    # a reset gives every widget a new key (a widget the browser keeps unmounted cannot
    # send its old value back): the old one is gone, the new one shows the default
    assert not [w for w in at.select_slider if w.key == "w_dirichlet_K"]
    assert at.select_slider(key="w1_dirichlet_K").value == 50
    assert "dirichlet_K" not in at.query_params
    at.switch_page("pages/lesson_zero_counts.py").run()
    assert at.slider(key="w1_zero_copies").value == 7  # a reset touches its own page only


def test_a_link_value_a_setting_cannot_take_falls_back():
    at = open_app("pages/lesson_dirichlet.py", dirichlet_K="7", dirichlet_N="nan")
    assert at.select_slider(key="w_dirichlet_K").value == 50
    assert at.select_slider(key="w_dirichlet_N").value == 50


def test_reliability_names_what_it_shows_and_draws_the_chosen_methods():
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,Lidstone,HEB-M")
    spec = titled(figures(at), "pooled out-of-fold")
    curves = [t for t in spec["data"] if t["type"] == "scatter" and t.get("showlegend", True)]
    names = [t["name"] for t in curves if t["name"] != "perfect calibration"]
    assert names == ["Laplace", "Lidstone", "HEB-M"]  # no second ECE beside the table's
    # the rows-per-bin panel's marker symbols (one over each bar) are not curve points
    bar_axes = {t.get("yaxis") for t in spec["data"] if t["type"] == "bar"}
    checked = set()
    for trace in spec["data"]:
        if trace["type"] != "scatter" or trace["name"] == "perfect calibration":
            continue
        if trace.get("yaxis") in bar_axes:
            continue
        checked.add(trace["name"].split(" (")[0])
        rows = decode(trace["customdata"])
        few = trace["name"].endswith(f"fewer than {figures_module().MIN_BIN_ROWS} rows")
        assert ((rows < figures_module().MIN_BIN_ROWS) == few).all(), trace["name"]
        sizes = decode(trace["marker"]["size"])
        assert (np.diff(sizes[np.argsort(rows)]) >= 0).all()  # more rows, larger point
    assert {"Laplace", "Lidstone", "HEB-M"} <= checked, checked
    captions = " ".join(c.value for c in at.caption)
    assert "mean over folds" in captions and "Brier" in captions
    at.multiselect(key="w_reliability_methods").set_value(["HEB-M"]).run()
    spec = titled(figures(at), "pooled out-of-fold")
    drawn = {t["name"] for t in spec["data"] if t["type"] == "bar"}
    assert drawn == {"HEB-M"}


def figures_module():
    from heb import figures as heb_figures

    return heb_figures


def test_one_name_per_page_and_previous_next_links():
    at = open_app()
    titles = [title for entries in SECTIONS.values() for _, title, _ in entries]
    for index, page in enumerate(PAGE_FILES):
        at.switch_page(page).run()
        assert_clean(at)
        assert at.title[0].value == titles[index]
        links = {link.proto.label for link in at.main.get("page_link")}  # not the menu's
        expected = set()
        if index > 0:
            expected.add(f"Previous: {titles[index - 1]}")
        if index + 1 < len(titles):
            expected.add(f"Next: {titles[index + 1]}")
        assert links == expected


def test_references_name_the_paper_and_the_textbook():
    from heb.paths import shared_dir

    seeds = shared_dir() / "seeds"
    if not seeds.is_dir():
        pytest.skip(
            f"no paper to compare with: {seeds} is absent (set HEB_SHARED_DIR to the shared "
            "folder holding seeds/)"
        )
    paper = (seeds / "heb-nb-paper-clean.txt").read_text().splitlines()[0].strip()
    chapter = next(
        line.strip()
        for line in (seeds / "naive-bayes-chapter.txt").read_text().splitlines()
        if line.startswith("18 ")
    )
    at = open_app("pages/references.py")
    text = " ".join(m.value for m in at.markdown)
    assert paper in text
    assert chapter[3:] in text and "chapter 18" in text  # "Naive Bayes"
    for lesson in PAGE_FILES:
        if "lesson_" in lesson:
            source = (APP.parent / lesson).read_text()
            cited = re.findall(r"(?:[Tt]extbook|[Pp]aper|section) (?:sections? )?\d", source)
            assert cited, lesson  # each lesson cites the texts the References page names


#: a citation in a page's text: "paper section(s) 4 and 5.2", "textbook 18.4.1", "Remark 1",
#: "(section 5.1.1)"
CITATION = re.compile(
    r"(?:(?P<book>[Tt]extbook|[Pp]aper)(?: sections?)?|\(sections?) (?P<first>\d+(?:\.\d+)*)"
    r"(?: and (?P<second>\d+(?:\.\d+)*))?|(?P<remark>Remark \d+)"
)


def test_every_section_a_page_cites_is_in_the_references_table():
    """A class follows a citation to the References page: each paper or textbook section
    and remark a page names has its row there (a new user found five missing)."""
    from pages.references import CITED

    listed = {cited.lower() for cited, _, _ in CITED}
    sources = [*(APP.parent / "pages").glob("*.py"), APP.parent / "explorer" / "catalogue.py"]
    missing = set()
    for path in sources:
        if path.name == "references.py":
            continue
        for match in CITATION.finditer(path.read_text()):
            if match["remark"]:
                wanted = [f"paper {match['remark'].lower()}"]
            else:
                # a bare "(section 5.1.1)" is the paper's
                textbook = (match["book"] or "").lower() == "textbook"
                kind = "textbook" if textbook else "paper section"
                wanted = [f"{kind} {n}" for n in (match["first"], match["second"]) if n]
            missing |= {(path.name, w) for w in wanted if w not in listed}
    assert not missing, sorted(missing)


def test_presenter_mode_from_the_link_and_the_toggle():
    at = open_app("pages/lesson_evidence.py", present="1")
    styles = " ".join(h.proto.body for h in at.get("html"))
    assert '[data-testid="stSidebar"]' in styles and "display: none" in styles
    assert url(at, "present") == "1"
    at.button(key="presenter_toggle").click().run()
    assert "present" not in at.query_params
    styles = " ".join(h.proto.body for h in at.get("html"))
    assert "display: none" not in styles
    at.button(key="presenter_toggle").click().run()
    assert url(at, "present") == "1"


def test_record_run_logs_a_runs_page_and_times_only_when_asked(tmp_path, monkeypatch):
    from explorer.run_timing import RUN_TIMES_ENV, record_run

    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv(RUN_TIMES_ENV, str(log))
    with pytest.raises(RuntimeError), record_run() as run:  # a run that ends early counts
        run.page = "compare"
        sum(i * i for i in range(200_000))  # some CPU on this thread
        raise RuntimeError("st.stop")
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["page"] == "compare"
    assert 0 < entry["cpu_s"] <= entry["wall_s"] + 0.01, entry
    monkeypatch.delenv(RUN_TIMES_ENV)
    with record_run() as run:
        run.page = "dataset"
    assert len(log.read_text().splitlines()) == 1  # nothing measured without the variable


def test_the_first_run_warms_the_engine_revision_in_the_background():
    import threading

    from explorer import warm_up
    from heb.evaluate.keys import engine_revision

    engine_revision.cache_clear()
    warm_up._STARTED.clear()  # as in a fresh server process
    open_app()
    for thread in threading.enumerate():
        if thread.name == "heb-warm-up":
            thread.join(timeout=120)
    assert engine_revision.cache_info().currsize == 1
    assert engine_revision.cache_info().hits == 0  # computed by the warm-up, not by the page


def _id_like_upload() -> pd.DataFrame:
    """300 user IDs over 600 rows, 30% of them missing, beside a colour and a label."""
    rng = np.random.default_rng(8)
    rows = 600
    frame = pd.DataFrame(
        {
            "user_id": [f"u{v:03d}" for v in rng.integers(0, 300, rows)],
            "colour": rng.choice(["red", "green", "blue"], rows),
            "label": rng.choice(["a", "b", "c"], rows),
        }
    )
    frame.loc[rng.random(rows) < 0.3, "user_id"] = None
    return frame


def test_an_id_like_column_with_missing_values_is_said_and_one_click_fixes_it():
    """Issue 12: mode imputation piled every missing user_id into one ID, in silence."""
    frame = _id_like_upload()
    at = open_app()
    uploader(at).upload("ids.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    assert_clean(at)
    ids = frame["user_id"]
    counts = ids.value_counts()
    mode = sorted(counts.index[counts == counts.max()])[0]  # ties: the first category
    own, missing = int(counts.max()), int(ids.isna().sum())
    expected = (
        f"user_id looks like an ID ({ids.nunique():,} categories in {ids.notna().sum():,} "
        f"rows): imputing its mode put its {missing:,} missing rows into {mode!r}, which now "
        f"looks frequent ({own + missing:,} rows instead of {own:,}). Missing as its own "
        "category keeps them apart."
    )
    assert [w.value for w in at.warning] == [escape(expected)]
    features = table_with(at, "K_f").set_index("feature")
    assert features.loc["user_id", "K_f"] == ids.nunique()  # the mode took the missing rows
    # the rule is said where the choice is made
    assert "ID-like" in open_section(at, "preprocessing_open").radio(key="w_missing").help
    at.button(key="missing_as_category").click().run()
    assert_clean(at)
    assert at.session_state["missing"] == "category" and url(at, "missing") == "category"
    assert not at.warning  # nothing piled up any more
    features = table_with(at, "K_f").set_index("feature")
    assert features.loc["user_id", "K_f"] == ids.nunique() + 1  # "(missing)" of its own
    assert features.loc["colour", "K_f"] == 3


def test_the_rows_preview_leaves_a_missing_value_blank():
    """Streamlit's grid writes "None" in an empty text cell (a new user's trial)."""
    text = "colour,size,label\n" + "red,1.5,yes\n,2.0,no\nblue,,yes\nred,3.5,no\n" * 10
    at = open_app()
    uploader(at).upload("gaps.csv", text.encode(), "text/csv").run()
    at = open_section(at, "preview_open")
    assert_clean(at)
    preview = next(f.value for f in at.dataframe if "colour" in f.value.columns)
    assert preview["colour"].tolist()[:4] == ["red", "", "blue", "red"]
    assert np.isnan(preview["size"].iloc[2])  # a number stays a number (its cell is blank)
    assert "A blank cell, or None in a column of numbers, is a missing value." in [
        c.value for c in at.caption
    ]


def test_a_loaded_models_accuracy_needs_its_own_feature_names(recwarn):
    from explorer.explain import accuracy_on
    from heb.nb import NaiveBayes

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(60, 3))
    work = SimpleNamespace(
        codes=codes, y=codes[:, 0] % 2, feature_names=["a", "b", "c"], class_names=["no", "yes"]
    )
    names = list(work.feature_names)
    frame = pd.DataFrame(work.codes, columns=names)
    model = NaiveBayes("laplace").fit(frame, np.asarray(work.class_names)[work.y])
    accuracy = accuracy_on(model, work)
    assert accuracy == pytest.approx(
        np.mean(model.predict(frame) == np.asarray(work.class_names)[work.y])
    )
    assert not [w for w in recwarn if "feature names" in str(w.message)]
    renamed = NaiveBayes("laplace").fit(
        frame.set_axis([f"x{i}" for i in range(len(names))], axis=1), work.y
    )
    assert accuracy_on(renamed, work) is None  # other features: no accuracy at all


def test_the_best_mean_is_coloured_for_every_method_tied_at_the_shown_decimals():
    """Ties at the 4 decimals shown are all best (a new user saw one of three equal AUCs
    in blue); a single method is best of nothing."""
    from explorer.comparison import BEST_STYLE, best_style, metric_column

    methods = ["Laplace", "HEB-M", "TE"]
    summary = pd.DataFrame(index=methods)
    for name, entry in registry.METRICS.items():
        sign = 1.0 if entry.higher_is_better else -1.0
        summary[f"{name}_mean"] = 0.5 + sign * np.array([0.10001, 0.10004, 0.05])
    frame = pd.DataFrame("", index=methods, columns=[metric_column(n) for n in registry.METRICS])
    styled = best_style(summary)(frame)
    for name in registry.METRICS:
        column = styled[metric_column(name)]
        assert list(column == BEST_STYLE) == [True, True, False], name  # 0.6000 twice
    alone = best_style(summary.iloc[:1])(frame.iloc[:1])
    assert (alone == "").all().all()
