"""What new users met when uploading a CSV (session 25's trials), each as they would do it:
ZIP codes with a leading zero, the fallback target, leaving an ID column out from its
warning, the default-target rule said once, and a page's plain address in a new session
(``explorer/loading.py``, ``pages/dataset.py``, ``explorer/state.py``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from explorer import loading, state
from heb.data import load_upload, read_table
from tests.test_app import APP, TIMEOUT, assert_clean, open_app, unescape, uploader, url


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def _upload(frame: pd.DataFrame | bytes, name: str = "t.csv", at: AppTest | None = None):
    at = open_app() if at is None else at
    data = frame if isinstance(frame, bytes) else _csv(frame)
    return uploader(at).upload(name, data, "text/csv").run()


def _infos(at: AppTest) -> list[str]:
    return [unescape(info.value) for info in at.info]


def _record(at: AppTest) -> dict:
    return at.session_state["uploads"][at.session_state["data_spec"]]


def _dataset(at: AppTest):
    """The current upload's Dataset, as its record (target, columns chosen) makes it."""
    record = _record(at)
    return load_upload(
        record["payload"],
        record["filename"],
        record["target"],
        categorical=record["categorical"],
        drop=record["drop"],
    )


# ------------------------------------------------------------------ ZIP codes with a leading 0
def test_zip_codes_with_a_leading_zero_are_categories_as_written_on_the_page():
    rng = np.random.default_rng(1)
    zips = ["02134", "00501", "10001", "94105", "60601", "02139"]
    rows = [f"{rng.choice(zips)},{rng.integers(1, 9)},{rng.choice(['a', 'b'])}" for _ in range(60)]
    at = _upload(("zip,items,label\n" + "\n".join(rows) + "\n").encode(), "shops.csv")
    assert_clean(at)
    note = "Column 'zip' holds codes written with a leading zero such as"
    assert any(text.startswith(note) for text in _infos(at)), _infos(at)
    dataset = _dataset(at)
    assert "zip" in dataset.categorical
    assert set(dataset.X["zip"]) == set(zips)
    # the numeric-code note (a binned number that may be a code) does not ask about it
    assert not [b for b in at.button if b.label.startswith("Treat zip")]


# ------------------------------------------------------------------ the fallback target
def test_fallback_targets_prefer_text_then_few_whole_numbers_never_measurements():
    frame = pd.DataFrame(
        {
            "plan": ["basic", "pro", "team"] * 40,
            "price": np.linspace(1, 9, 120),  # decimals: a measurement
            "tenure": np.arange(120) % 75,  # 75 values: a count, not classes
            "flag": np.arange(120) % 2,  # 0 / 1: reads as classes
            "churn": "no",
        }
    )
    assert loading.fallback_targets(frame) == [
        ("plan", "text", 3),
        ("flag", "whole numbers", 2),
    ]
    assert loading.fallback_targets(frame.drop(columns=["plan", "flag"])) == []


def test_a_flag_is_taken_when_no_text_column_reads_as_classes_and_the_note_says_why():
    frame = pd.DataFrame(
        {
            "tenure": np.arange(150) % 75,
            "has_phone": np.arange(150) % 2,
            "visits": np.arange(150) % 30,
            "churn": "no",
        }
    )
    at = _upload(frame, "churn.csv")
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "has_phone"
    (note,) = [text for text in _infos(at) if "for now" in text]
    assert note == (
        "The target 'churn' has only one class ('no'); a classifier needs at least two "
        "classes. So the target is 'has_phone' for now: the nearest column left of 'churn' "
        "that reads as classes (whole numbers, 2 values). To predict another column, choose "
        "it under Target column below."
    )


def test_with_no_column_reading_as_classes_the_user_is_asked_to_pick_the_target():
    """A trial's fallback target was a 75-valued count; now none is taken: the file is
    kept, the picker shows the last column with its error and asks for a choice."""
    frame = pd.DataFrame(
        {"tenure": np.arange(150) % 75, "spend": np.linspace(0, 1, 150), "churn": "no"}
    )
    at = _upload(frame, "churn.csv")
    assert not at.exception
    assert _record(at)["target"] is None and _record(at)["needs_target"]
    assert at.selectbox(key="upload_target").value == "churn"
    assert [unescape(e.value) for e in at.error] == [
        "The target 'churn' has only one class ('no'); a classifier needs at least two classes."
    ]
    captions = [c.value for c in at.caption]
    assert loading.needs_target_note("above") in captions
    assert not [text for text in _infos(at) if "for now" in text]
    # on another page: where to choose it
    at.switch_page("pages/concentrations.py").run()
    assert loading.needs_target_note("on the Dataset page") in [c.value for c in at.caption]
    at.switch_page("pages/dataset.py").run()
    at.selectbox(key="upload_target").set_value("tenure").run()
    assert_clean(at)
    assert {m.label: m.value for m in at.metric}["Classes"] == "75"
    assert loading.needs_target_note("above") not in [c.value for c in at.caption]


def test_a_links_missing_target_keeps_the_fallback_target():
    """A link naming the file but a target it lacks used to reset the fallback to the
    last column, which cannot be the target."""
    frame = pd.DataFrame({"a": ["x", "y"] * 30, "b": ["p", "q", "r"] * 20, "target": "only"})
    at = open_app(dataset="upload:0123456789ab", file="f.csv", target="gone")
    at = _upload(frame, "f.csv", at)
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "b"
    assert url(at, "target") == "b"


# ------------------------------------------------------------------ leave an ID column out
def _customers(rows: int = 80, missing: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "customer_id": [f"C{i:04d}" for i in range(rows)],
            "referrer": [f"R{i:03d}" for i in range(rows)],
            "plan": rng.choice(["basic", "pro"], rows),
            "label": rng.choice(["stay", "leave"], rows),
        }
    )
    frame.loc[: missing - 1, "referrer"] = None
    return frame


def test_an_id_columns_warning_offers_to_leave_it_out_on_every_page_and_in_the_link():
    at = _upload(_customers(missing=10), "customers.csv")
    assert_clean(at)
    labels = [b.label for b in at.button]
    # referrer: an ID-like column whose missing rows imputing piles into one ID (a warning);
    # customer_id: a value per row (the loader's note)
    assert "Missing as its own category" in labels
    assert "Leave referrer out" in labels and "Leave customer\\_id out" in labels
    at.button(key="leave_out_1").click().run()  # customer_id, after the imputed one
    assert_clean(at)
    assert _record(at)["drop"] == ["customer_id"]
    assert json.loads(url(at, "drop")) == ["customer_id"]
    assert at.multiselect(key="upload_drop").value == ["customer_id"]
    assert "Leave customer\\_id out" not in [b.label for b in at.button]
    assert "customer_id" not in _dataset(at).X.columns
    at.switch_page("pages/compare.py").run()
    assert url(at, "drop") == '["customer_id"]'
    at.switch_page("pages/dataset.py").run()
    at.button(key="leave_out_0").click().run()  # referrer
    assert_clean(at)
    assert sorted(_record(at)["drop"]) == ["customer_id", "referrer"]
    assert not [w for w in at.warning if "looks like an ID" in w.value]


def test_no_leave_out_button_for_a_built_in_dataset_or_the_last_feature():
    at = open_app(data="builtin:iris")
    assert not [b for b in at.button if b.label.startswith("Leave ")]
    frame = pd.DataFrame({"customer_id": [f"C{i}" for i in range(30)], "label": ["a", "b"] * 15})
    at = _upload(frame, "one.csv")
    assert_clean(at)
    assert not [b for b in at.button if b.label.startswith("Leave ")]


# ------------------------------------------------------------------ the target rule once
def test_the_default_target_rule_is_said_once_on_the_upload_screen():
    at = _upload(_customers(), "customers.csv")
    assert_clean(at)
    said = [c.value for c in at.caption if "default target is the file's last column" in c.value]
    assert len(said) == 1, said
    # before any upload, the open uploader does not say it either: the picker will
    at = open_app()
    uploader(at)  # the uploader open, nothing uploaded
    assert not [c for c in at.caption if "last column" in c.value]


# ------------------------------------------------------------------ a plain address
def _plain(page: str, **query: str) -> AppTest:
    """A new session opened at a page's address (no query string unless given)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page)
    return at.run()


def _default_notes(at: AppTest) -> list[str]:
    return [c.value for c in at.sidebar.caption if "the address named no dataset" in c.value]


def test_a_pages_plain_address_says_it_opened_on_the_default_dataset():
    at = _plain("pages/concentrations.py")
    assert not at.exception
    (note,) = _default_notes(at)
    said = f"Opened on the default dataset, {state.DEFAULT_DATASET}: the address named no dataset"
    assert note == said + " (an upload stays in the browser tab it was made in)."
    assert [toast.value for toast in at.toast] == [said + "."]  # where the eye is, once
    assert at.toast[0].proto.duration == 4  # seconds: it outlives reruns (an upload)
    assert at.session_state["data_spec"] == state.default_spec()
    at.run()  # a rerun (a control) keeps the caption, not the toast
    # the caption stays while the address names the dataset (synced): said in the past
    assert "named no dataset" in _default_notes(at)[0]
    assert "names no dataset" not in _default_notes(at)[0]
    assert len(_default_notes(at)) == 1 and not at.toast
    at.switch_page("pages/compare.py").run()  # another page: said once is enough
    assert not _default_notes(at)


def test_no_default_dataset_toast_in_the_presenter_mode():
    at = _plain("pages/compare.py", present="1")
    assert not at.exception
    assert not at.toast  # on a projector, over the slide


def test_no_default_note_when_the_link_names_a_dataset_or_one_is_chosen():
    assert not _default_notes(_plain("pages/concentrations.py", dataset="builtin:iris"))
    assert not _default_notes(_plain("pages/concentrations.py", dataset=state.default_spec()))
    assert not _default_notes(open_app())  # the root, where every first visit starts
    at = _plain("pages/concentrations.py")
    at.selectbox(key=state.widget_key("data_spec")).set_value("builtin:iris").run()
    assert not _default_notes(at)


def test_read_table_keeps_a_zip_column_of_a_gzip_tsv_as_written():
    import gzip

    data = gzip.compress(b"zip\tlabel\n00501\ta\n10001\tb\n02134\ta\n")
    assert read_table(data, "z.tsv.gz")["zip"].tolist() == ["00501", "10001", "02134"]
