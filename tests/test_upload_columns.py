"""An upload's numeric code columns and its declared categorical columns, on the Dataset
page, on every page and in the link (``pages/dataset.py`` choose_target and the numeric-code
note, ``explorer/summaries.py`` numeric_code_columns, ``explorer/loading.py`` upload
records, ``explorer/state.py`` the upload's URL values)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from explorer import state, summaries
from explorer.errors import escape
from heb import data as hdata
from heb.data import Preprocessor
from tests.test_app import assert_clean, open_app, table_with, unescape, uploader, url

#: a markdown link as user text: it must reach the page as text (tests/test_app.py's LINK)
LINK = "[Click](https://example.com)"


def customers(rows: int = 400, seed: int = 0) -> pd.DataFrame:
    """A customer table: a customer number (a code: a distinct 5-digit number per row), ages
    0-99, a child count 0-5, a colour and a label that follows the customer number's parity
    (which the number's quantile bins cannot see, and its categories can)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "customer": rng.choice(np.arange(10_000, 100_000), rows, replace=False),
            "age": rng.integers(0, 100, rows),
            "children": rng.integers(0, 6, rows),
            "colour": rng.choice(["red", "blue", "green"], rows),
        }
    )
    frame["label"] = np.where(frame["customer"] % 2 == 0, "even", "odd")
    return frame


def csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def working(dataset: hdata.Dataset) -> SimpleNamespace:
    """What numeric_code_columns reads of loading.WorkingData: names and the fitted encoder."""
    pre = Preprocessor(categorical=dataset.categorical).fit(dataset.X)
    return SimpleNamespace(feature_names=[str(n) for n in pre.feature_names_out_], preprocessor=pre)


def code_columns(frame: pd.DataFrame, name: str = "t.csv") -> dict:
    dataset = hdata.load_upload(csv(frame), name, target="label")
    return summaries.numeric_code_columns(dataset, working(dataset))


def upload_customers(frame: pd.DataFrame | None = None, name: str = "customers.csv", **query):
    """A session (opened from ``query``, a link's values) after uploading the customers."""
    at = open_app(**query)
    uploader(at).upload(name, csv(customers() if frame is None else frame), "text/csv").run()
    assert_clean(at)
    return at


def feature_row(at, feature: str) -> pd.Series:
    return table_with(at, "MI with target (nats)").set_index("feature").loc[feature]


def code_notes(at) -> list[str]:
    return [unescape(info.value) for info in at.info if "different whole numbers" in info.value]


def concentration_k(at, feature: str) -> set[int]:
    """K_f of ``feature`` on the Concentrations page (its counts: loading.current_codes)."""
    at.switch_page("pages/concentrations.py")
    at.session_state["conc_tab"] = "Table"
    at.run()
    assert_clean(at)
    pairs = table_with(at, "rho")
    k = set(pairs.loc[pairs["feature name"] == feature, "K_f"].astype(int))
    at.switch_page("pages/dataset.py").run()
    assert_clean(at)
    return k


# --------------------------------------------------------------------------- the rule
def test_the_rule_flags_a_numeric_code_and_not_ages_counts_or_decimals():
    frame = customers()
    assert list(code_columns(frame)) == ["customer"]
    assert code_columns(frame)["customer"] == (400, 400)
    # ages 0-99 never pass, however few the rows (at most 100 values): 150 rows here
    few = customers(rows=150, seed=1)
    assert few["age"].nunique() >= few.shape[0] / 2  # half the rows would not keep them out
    assert list(code_columns(few)) == ["customer"]
    # a code stored as floats (a missing cell) is still whole numbers; decimals are not
    frame = customers(seed=2)
    frame["zip"] = frame["customer"].astype(float) + 1
    frame.loc[3, "zip"] = np.nan
    frame["price"] = np.random.default_rng(3).normal(50, 10, len(frame)).round(2)
    assert list(code_columns(frame)) == ["customer", "zip"]
    assert code_columns(frame)["zip"] == (399, 399)
    # a code repeated over many rows is not flagged (fewer distinct values than half)
    frame = customers(seed=4)
    frame["shop"] = np.random.default_rng(5).integers(1000, 1150, len(frame))
    assert "shop" not in code_columns(frame)


def test_a_repeated_code_is_flagged_when_its_name_says_code():
    """A ZIP column of 302 values over 3,000 customers was binned into 10 numbers with no
    note: its values repeat, so the share rule let it through; its name says what it is."""
    frame = customers(rows=3_000, seed=6)
    rng = np.random.default_rng(7)
    for name in ("zip", "Postal_Code", "shop"):
        frame[name] = rng.integers(10_000, 10_302, len(frame))
    found = code_columns(frame)
    assert {"zip", "Postal_Code"} <= set(found) and "shop" not in found
    assert found["zip"][1] == 3_000 and 250 < found["zip"][0] <= 302
    frame["zip"] = rng.integers(10_000, 10_090, len(frame))  # 90 values: as an age's range
    assert "zip" not in code_columns(frame)


def test_a_large_table_is_counted_on_a_sample():
    """Past CODE_SAMPLE_ROWS rows the rule counts a random sample (seed 42)."""
    rows = 2 * summaries.CODE_SAMPLE_ROWS
    rng = np.random.default_rng(6)
    X = pd.DataFrame(
        {
            "order": rng.permutation(rows) + 10**6,  # a code: one per row
            "shop": rng.integers(0, 1_000, rows),  # 1,000 codes repeated: not flagged
            "age": rng.integers(0, 100, rows),
        }
    )
    dataset = SimpleNamespace(X=X)
    kinds = dict.fromkeys(X.columns, "numeric")
    work = SimpleNamespace(
        feature_names=list(X.columns), preprocessor=SimpleNamespace(kinds_=kinds, n_bins=10)
    )
    found = summaries.numeric_code_columns(dataset, work)
    sample = summaries.CODE_SAMPLE_ROWS
    assert found == {"order": (sample, sample)}
    note = summaries.numeric_code_notes(dataset, work)["order"]
    assert f"in {sample:,} rows drawn at random from the {rows:,}: " in note


def test_a_column_typed_categorical_is_not_flagged():
    dataset = hdata.load_upload(csv(customers()), "t.csv")
    dataset.categorical = [*dataset.categorical, "customer"]
    assert summaries.numeric_code_columns(dataset, working(dataset)) == {}
    # an ID-like name makes the column categorical already (heb.data.dataset._ID_LIKE)
    assert code_columns(customers().rename(columns={"customer": "customer_id"})) == {}


def test_the_note_says_what_the_binning_does():
    dataset = hdata.load_upload(csv(customers()), "t.csv")
    notes = summaries.numeric_code_notes(dataset, working(dataset))
    assert list(notes) == ["customer"]
    assert notes["customer"].startswith("'customer' holds 400 different whole numbers")
    assert "10 quantile bins" in notes["customer"]
    assert "If it is a code" in notes["customer"]


# --------------------------------------------------------------------------- the page
def test_case_numeric_code_column():
    at = upload_customers()
    notes = code_notes(at)
    assert len(notes) == 1 and notes[0].startswith("'customer' holds 400"), notes
    assert feature_row(at, "customer")["type"] == "numeric"
    # the note's button declares the column categorical, and the note goes
    at.button(key="declare_categorical_0").click().run()
    assert_clean(at)
    assert feature_row(at, "customer")["type"] == "categorical"
    assert feature_row(at, "customer")["K_f"] == 400
    assert at.multiselect(key="upload_categorical").value == ["customer"]
    assert code_notes(at) == []
    # built-in data is typed by its source: wine's proline (121 whole numbers in 178 rows)
    # is a measurement, and a built-in offers no categorical choice
    at.sidebar.selectbox(key="w_data_spec").set_value("builtin:wine").run()
    assert_clean(at)
    assert feature_row(at, "proline")["type"] == "numeric"
    assert code_notes(at) == []


def test_case_declared_categorical_columns():
    at = upload_customers()
    before = feature_row(at, "customer")
    assert before["K_f"] <= 10 and before["type"] == "numeric"
    assert concentration_k(at, "customer") == {before["K_f"]}
    options = at.multiselect(key="upload_categorical").options
    assert "label" not in options and "customer" in options  # every column but the target
    at.multiselect(key="upload_categorical").set_value(["customer", "age"]).run()
    assert_clean(at)
    assert feature_row(at, "customer")["K_f"] == 400
    assert feature_row(at, "customer")["type"] == "categorical"
    assert feature_row(at, "age")["K_f"] == customers()["age"].nunique()
    assert feature_row(at, "customer")["MI with target (nats)"] > before["MI with target (nats)"]
    # the Concentrations page counts the same categories, and the choice survives the trip
    assert concentration_k(at, "customer") == {400}
    assert at.multiselect(key="upload_categorical").value == ["customer", "age"]
    assert feature_row(at, "customer")["K_f"] == 400
    # cleared: binned again, here and on the other pages (no stale cached table)
    at.multiselect(key="upload_categorical").set_value([]).run()
    assert_clean(at)
    assert feature_row(at, "customer")["K_f"] == before["K_f"]
    assert feature_row(at, "customer")["type"] == "numeric"
    assert concentration_k(at, "customer") == {before["K_f"]}


def test_a_declared_column_chosen_as_target_leaves_the_declaration():
    at = upload_customers()
    at.multiselect(key="upload_categorical").set_value(["customer", "colour"]).run()
    at.selectbox(key="upload_target").set_value("colour").run()
    assert_clean(at)
    assert at.multiselect(key="upload_categorical").value == ["customer"]
    assert {m.label: m.value for m in at.metric}["Classes"] == "3"
    assert json.loads(url(at, "categorical")) == ["customer"]


# --------------------------------------------------------------------------- the link
def link_of(at) -> dict[str, str]:
    return {key: url(at, key) for key in at.query_params}


def test_case_upload_link():
    first = upload_customers()
    first.selectbox(key="upload_target").set_value("colour").run()
    first.multiselect(key="upload_categorical").set_value(["customer"]).run()
    assert_clean(first)
    link = link_of(first)
    assert link["dataset"].startswith(state.UPLOAD_PREFIX)
    assert link["file"] == "customers.csv"
    assert link["target"] == "colour"
    assert json.loads(link["categorical"]) == ["customer"]

    # a new session from the link: the default, and a note saying what an upload will take
    second = open_app(**link)
    notes = [unescape(info.value) for info in second.main.info]
    assert notes[0] == (
        "The link points to the uploaded file 'customers.csv', which is not part of this "
        "session: showing the built-in default instead. Upload 'customers.csv' on the "
        "Dataset page: its target 'colour' and categorical column 'customer' from the link "
        "will be used."
    )
    assert second.sidebar.selectbox(key="w_data_spec").value == state.default_spec()
    # the same file uploaded: the link's view
    uploader(second).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(second)
    assert second.selectbox(key="upload_target").value == "colour"
    assert second.multiselect(key="upload_categorical").value == ["customer"]
    assert {m.label: m.value for m in second.metric}["Classes"] == "3"
    assert feature_row(second, "customer")["type"] == "categorical"
    assert any("From the link: the target 'colour'" in unescape(c.value) for c in second.caption)
    assert link_of(second) == link  # the same file: the same link
    assert not [info for info in second.main.info if "link points" in info.value]


def test_a_link_applies_only_what_the_file_has_and_to_its_file_only():
    link = {
        "dataset": "upload:0123456789ab",
        "file": "customers.csv",
        "target": "segment",  # not a column of the file uploaded below
        "categorical": json.dumps(["customer", "postcode"]),
    }
    at = open_app(**link)
    other = customers(seed=5)
    uploader(at).upload("other.csv", csv(other), "text/csv").run()  # another name: untouched
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "label"
    assert at.multiselect(key="upload_categorical").value == []
    uploader(at).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "label"  # the default: no 'segment'
    assert at.multiselect(key="upload_categorical").value == ["customer"]
    captions = " ".join(unescape(c.value) for c in at.caption)
    assert "the target 'segment' (not a column of this file)" in captions
    assert "'postcode' (not in this file)" in captions


def test_a_links_upload_values_are_shown_as_text():
    at = open_app(dataset="upload:0123abcd", file=f"{LINK}.csv", target=LINK)
    notes = [info.value for info in at.main.info]
    expected = state._upload_link_note(
        {"filename": f"{LINK}.csv", "target": LINK, "categorical": []}
    )
    assert notes[0] == escape(expected)
    assert LINK not in notes[0] and "](" not in notes[0].replace("\\](", "")


def test_case_upload_link_without_file():
    """A link naming no file (an earlier link) keeps the plain note."""
    at = open_app(dataset="upload:0123abcd", target="label")
    assert at.main.info[0].value == escape(state.UPLOAD_LINK_NOTE)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"file": "a.csv"}, {"filename": "a.csv", "target": None, "categorical": [], "drop": []}),
        (
            {"file": "a.csv", "target": "y", "categorical": '["x", "y", "x", 3, ""]'},
            {"filename": "a.csv", "target": "y", "categorical": ["x"], "drop": []},
        ),
        (
            {"file": "a.csv", "categorical": "x,y"},
            {"filename": "a.csv", "target": None, "categorical": [], "drop": []},
        ),
        (
            {"file": "a.csv", "categorical": '{"x": 1}'},
            {"filename": "a.csv", "target": None, "categorical": [], "drop": []},
        ),
        (
            {"file": "a.csv", "target": "t" * 400},
            {"filename": "a.csv", "target": None, "categorical": [], "drop": []},
        ),
        (
            {"file": "a.csv", "categorical": '["x", "id"]', "drop": '["id", "y"]', "target": "y"},
            {"filename": "a.csv", "target": "y", "categorical": ["x"], "drop": ["id"]},
        ),
        ({"file": "f" * 400, "target": "y"}, None),
        ({"target": "y"}, None),  # an older link: no file name
    ],
)
def test_a_links_upload_values_are_checked(query, expected):
    assert state._url_upload(query) == expected


@pytest.mark.parametrize(
    ("target", "columns", "then"),
    [
        ("t", ["x", "y"], ": its target 't' and categorical columns 'x', 'y' from the link"),
        (None, ["x"], ": its categorical column 'x' from the link will be used."),
        ("t", [], ": its target 't' from the link will be used."),
        (None, [], "on the Dataset page."),
    ],
)
def test_the_link_note_names_what_an_upload_will_take(target, columns, then):
    note = state._upload_link_note({"filename": "a.csv", "target": target, "categorical": columns})
    assert note.startswith("The link points to the uploaded file 'a.csv'")
    assert then in note


def test_load_upload_declares_columns_categorical_and_names_unknown_ones():
    frame = customers()
    plain = hdata.load_upload(csv(frame), "c.csv", target="label")
    declared = hdata.load_upload(csv(frame), "c.csv", target="label", categorical=["customer"])
    assert "customer" not in plain.categorical and "customer" in declared.categorical
    assert "colour" in declared.categorical  # text columns stay categorical
    with pytest.raises(hdata.DataError, match="'nope' is declared categorical but not a column"):
        hdata.load_upload(csv(frame), "c.csv", target="label", categorical=["nope"])


def test_the_shown_code_declares_the_uploads_categorical_columns(tmp_path):
    """The code box reproduces the page: the upload's declared columns are in its line."""
    from explorer import report

    upload = {"filename": "c.csv", "target": "label", "categorical": ["customer"]}
    line = report.dataset_line("upload:abc", upload)
    assert line.startswith(
        "dataset = load_dataset('c.csv', target='label', categorical=['customer'])"
    )
    (tmp_path / "c.csv").write_bytes(csv(customers()))
    namespace: dict = {
        "load_dataset": lambda name, **kw: hdata.load_dataset(str(tmp_path / name), **kw)
    }
    exec(line, namespace)  # noqa: S102 - our own generated line
    assert "customer" in namespace["dataset"].categorical


def test_a_new_uploads_target_box_shows_its_own_target():
    """Two uploads of the same columns: the second file's box shows its default target,
    not the first file's choice (the mutation pass saw it keep the old value)."""
    at = upload_customers(name="a.csv")
    at.selectbox(key="upload_target").set_value("colour").run()
    assert_clean(at)
    at = uploader(at).upload("b.csv", csv(customers(seed=1)), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "label"
    upload = at.session_state["uploads"][at.session_state["data_spec"]]
    assert upload["filename"] == "b.csv" and upload["target"] is None


def test_the_fallback_target_prefers_a_column_that_reads_as_classes():
    """A new user's one-class 'churn' went to 'age' (62 values, a measurement) beside a
    three-plan column; a column of a few values is taken first, from the right."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "plan": rng.choice(["basic", "pro", "team"], 300),
            "region": rng.choice(["north", "south"], 300),
            "age": rng.integers(18, 80, 300),
            "churn": "yes",
        }
    )
    at = open_app()
    uploader(at).upload("churn.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "region"
    notes = [unescape(info.value) for info in at.info]
    said = "So the target is 'region' for now: the nearest column left of 'churn' that reads as "
    assert any(said + "classes (text, 2 values)." in note for note in notes), notes
    # a file whose other columns all have many values gets none of them: the user chooses
    many = frame[["age"]].assign(code=np.arange(300) % 40, churn="yes")
    uploader(at).upload("many.csv", many.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception
    assert at.selectbox(key="upload_target").value == "churn"
    assert [unescape(e.value) for e in at.error] == [
        "The target 'churn' has only one class ('yes'); a classifier needs at least two classes."
    ]


def test_case_upload_last_column_one_class():
    """A file whose last column has one value was refused whole, with no target picker,
    though another column could be the target."""
    frame = pd.DataFrame(
        {"a": [f"v{i % 4}" for i in range(60)], "b": ["p", "q"] * 30, "target": "only"}
    )
    at = open_app()
    uploader(at).upload("oneclass.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    notes = [unescape(info.value) for info in at.info]
    assert any(
        note.startswith("The target 'target' has only one class")
        and note.endswith(
            "So the target is 'b' for now: the nearest column left of 'target' that reads as "
            "classes (text, 2 values). To predict another column, choose it under Target "
            "column below."
        )
        for note in notes
    ), notes
    assert at.selectbox(key="upload_target").value == "b"
    assert url(at, "target") == "b"
    # picking a target is the user's choice: the note goes
    at.selectbox(key="upload_target").set_value("a").run()
    assert_clean(at)
    assert not any("for now" in unescape(info.value) for info in at.info)


# ------------------------------------------------------------------ columns left out
def test_load_upload_leaves_columns_out_and_names_unknown_ones():
    frame = customers()
    dataset = hdata.load_upload(csv(frame), "c.csv", target="label", drop=["customer"])
    assert list(dataset.X.columns) == ["age", "children", "colour"]
    assert any("Left out 'customer'" in note for note in dataset.notes)
    # the target is never left out
    same = hdata.load_upload(csv(frame), "c.csv", target="label", drop=["label"])
    assert same.target == "label" and "label" not in same.X.columns
    with pytest.raises(hdata.DataError, match="'nope' is to be left out but not a column"):
        hdata.load_upload(csv(frame), "c.csv", target="label", drop=["nope"])


def test_case_upload_id_column_left_out():
    """A new user found 'customer_id has one value per row: kept as a high-cardinality
    feature' and no way to drop it. The Dataset page leaves columns out; the choice holds
    on every page, in the link and in the shown code."""
    at = upload_customers()
    box = at.multiselect(key="upload_drop")
    assert box.value == [] and "customer" in box.options and "label" not in box.options
    at.multiselect(key="upload_categorical").set_value(["customer"]).run()
    box = at.multiselect(key="upload_drop").set_value(["customer"]).run()
    assert_clean(at)
    assert "customer" not in at.multiselect(key="upload_categorical").options
    upload = at.session_state["uploads"][at.session_state["data_spec"]]
    assert upload["drop"] == ["customer"] and upload["categorical"] == []  # no stale declaration
    features = table_with(at, "MI with target (nats)")["feature"].tolist()
    assert features == ["age", "children", "colour"]  # no longer a feature
    shown = [unescape(e.value) for e in [*at.info, *at.caption, *at.markdown]]
    assert any("Left out 'customer'" in text for text in shown), shown
    link = link_of(at)
    assert json.loads(link["drop"]) == ["customer"] and "categorical" not in link
    for page in ("pages/concentrations.py", "pages/compare.py", "pages/explain.py"):
        at.switch_page(page).run()
        assert_clean(at)
    assert at.session_state["uploads"][at.session_state["data_spec"]]["drop"] == ["customer"]
    # a new session from the link, the same file uploaded: the column is left out again
    second = open_app(**link)
    assert any("left-out 'customer'" in unescape(i.value) for i in second.main.info)
    uploader(second).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(second)
    assert second.multiselect(key="upload_drop").value == ["customer"]
    assert link_of(second) == link
    # choosing a left-out column as the target takes it back in, as the target
    second.multiselect(key="upload_drop").set_value(["customer", "children"]).run()
    second.selectbox(key="upload_target").set_value("children").run()
    assert_clean(second)
    assert second.session_state["uploads"][second.session_state["data_spec"]]["drop"] == [
        "customer"
    ]


def test_the_shown_code_leaves_the_uploads_columns_out(tmp_path):
    from explorer import report

    upload = {"filename": "c.csv", "target": "label", "categorical": [], "drop": ["customer"]}
    line = report.dataset_line("upload:abc", upload)
    assert line.startswith("dataset = load_dataset('c.csv', target='label', drop=['customer'])")
    (tmp_path / "c.csv").write_bytes(csv(customers()))
    namespace: dict = {
        "load_dataset": lambda name, **kw: hdata.load_dataset(str(tmp_path / name), **kw)
    }
    exec(line, namespace)  # noqa: S102 - our own generated line
    assert "customer" not in namespace["dataset"].X.columns


def test_a_two_column_upload_offers_nothing_to_leave_out():
    """With one feature, leaving it out would leave no model: the box is not offered."""
    frame = pd.DataFrame({"colour": ["red", "blue"] * 30, "label": ["a", "b", "b"] * 20})
    at = upload_customers(frame, name="two.csv")
    assert not [box for box in at.multiselect if box.key == "upload_drop"]
    assert at.multiselect(key="upload_categorical").options == ["colour"]
