"""Tests from session 39's second mutation pass (the large file's Columns to leave out and
fallback target, links naming catalogue datasets, the CLI's target hint, the evidence
lesson's smoother name and bar order): each fails with a mutant the earlier tests let
through."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import streamlit as st

from explorer import large_drop, state


def test_a_linked_shared_name_with_a_local_copy_stays_the_shared_copy(monkeypatch, tmp_path):
    """Only a catalogue name *without* a local copy becomes its OpenML id; a copy present
    (in the catalogue or not) is opened as the shared copy."""
    manifest = [{"name": "credit-g", "openml_id": 31}, {"name": "my-copy"}]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for entry in manifest:
        (tmp_path / f"{entry['name']}.csv.gz").write_bytes(b"")
    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path))
    assert state.url_spec("shared:credit-g") == "shared:credit-g"
    assert state.url_spec("shared:my-copy") == "shared:my-copy"
    (tmp_path / "credit-g.csv.gz").unlink()  # listed, but no copy: OpenML's
    assert state.url_spec("shared:credit-g") == "openml:31"


def test_a_catalogue_entry_without_an_openml_id_is_no_link(monkeypatch, tmp_path):
    from types import SimpleNamespace

    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path))  # no copies here
    monkeypatch.setattr(state, "CATALOGUE", [SimpleNamespace(name="local-only", openml_id=None)])
    assert state.url_spec("shared:local-only") is None


# ------------------------------------------------------------ the large file's leave-out
_KEYS = (
    state.LARGE_DROP,
    state.LARGE_CATEGORICAL,
    state.LARGE_TARGET,
    "_notes",
    "_large_taken_targets",
    "w",
)


@pytest.fixture
def session():
    """Streamlit's bare-mode session state (one per process), emptied around the test."""
    for key in _KEYS:
        st.session_state.pop(key, None)
    yield st.session_state
    for key in _KEYS:
        st.session_state.pop(key, None)


def _described(**columns) -> pd.DataFrame:
    """A describe table of one feature per keyword: (kind, K, rows, missing_share)."""
    rows = [(name, *values) for name, values in columns.items()]
    return pd.DataFrame(rows, columns=["feature", "kind", "K", "rows", "missing_share"])


def test_a_value_per_row_is_counted_among_the_rows_that_have_one():
    frame = _described(
        ten=("categorical", 10, 10, 0.0),  # 10 rows: the least that counts
        nine=("categorical", 9, 9, 0.0),
        half=("categorical", 10, 20, 0.5),  # 10 values in the 10 rows that have one
        third=("categorical", 10, 15, 5 / 15),  # 15 * (1 - 1/3) is 10.000000000000002
        numeric=("numeric", 30, 30, 0.0),  # binned: not a column of categories
        repeated=("categorical", 29, 30, 0.0),
    )
    assert large_drop.per_row_columns(frame) == ["ten", "half", "third"]


def test_leaving_a_column_out_adds_it_and_takes_it_off_the_categories(session):
    state.set_large_dropped("f", ["b"])
    state.set_large_categorical("f", ["a", "c"])
    large_drop._leave_out("f", "a")
    assert state.large_dropped("f") == ("a", "b")
    assert state.large_categorical("f") == ("c",)


def test_the_choice_takes_its_columns_off_the_categories(session):
    state.set_large_categorical("f", ["a", "c"])
    session["w"] = ["c"]
    large_drop._on_drop("f", "w")
    assert state.large_dropped("f") == ("c",)
    assert state.large_categorical("f") == ("a",)


def test_the_state_keeps_a_sorted_set(session):
    state.set_large_dropped("f", ["z", "a", "z"])
    assert state.large_dropped("f") == ("a", "z")
    state.set_large_dropped("f", [])
    assert state.large_dropped("f") == ()


def test_a_link_s_unknown_columns_are_noted_once(session):
    state.set_large_dropped("f", ["nope", "a"])
    assert large_drop.checked("f", ["a", "b", "label"], "label") == ("a",)
    state.set_large_dropped("f", ["nope", "a"])  # the same link's value again
    large_drop.checked("f", ["a", "b", "label"], "label")
    assert len(session["_notes"]) == 1 and "'nope'" in session["_notes"][0]


class _Engine:
    def columns(self):
        return [("a", "integer"), ("b", "text"), ("label", "text")]


def test_the_engine_s_features_leave_out_the_target_and_the_columns_chosen():
    assert large_drop.feature_columns(_Engine(), "label", ()) is None
    assert large_drop.feature_columns(_Engine(), "label", ("a",)) == ["b"]
    assert large_drop.feature_columns(_Engine(), "b", ("a",)) == ["label"]


def test_one_feature_kept_is_a_scan(session):
    from explorer.large_files import LargeFile

    plain = LargeFile("f", "root", "id", "label", ("a", "b", "label"))
    assert not large_drop.no_feature(plain)
    assert not large_drop.no_feature(
        LargeFile("f", "root", "id", "label", ("a", "b", "label"), dropped=("a",))
    )
    assert large_drop.no_feature(
        LargeFile("f", "root", "id", "label", ("a", "b", "label"), dropped=("a", "b"))
    )


def test_choosing_the_target_by_hand_forgets_that_it_was_taken(session):
    from explorer import large_files

    session["_large_taken_targets"] = {"f": "taken", "g": "taken"}
    session["w"] = "grade"
    large_files._on_target("f", "w")
    assert session[state.LARGE_TARGET]["f"] == "grade"
    assert session["_large_taken_targets"] == {"g": "taken"}


# ------------------------------------------------------------ the evidence lesson's bars
def test_an_unordered_categorical_keeps_the_sorted_bars(monkeypatch):
    """A column stored as an *unordered* pandas Categorical (as OpenML's nominal columns
    are) states no order: its bars stay sorted, whatever the order of its categories."""
    import copy

    from test_category_order import _pmf_categories
    from test_presenter import open_lesson

    from explorer import loading

    original = loading.current_dataset

    def shuffled():
        dataset = copy.copy(original())
        X = dataset.X.copy()
        X["channel"] = pd.Categorical(X["channel"], categories=["web", "store", "phone", "app"])
        dataset.X = X
        return dataset

    monkeypatch.setattr(loading, "current_dataset", shuffled)
    at = open_lesson("lesson_evidence", step="2", evidence_feature="6")  # channel
    assert _pmf_categories(at) == ["app", "phone", "store", "web"]


# ------------------------------------------------------------ the large file's fallback target
def _fallback(monkeypatch, can_be_target: bool = False):
    """:func:`explorer.large_files._for_target` over a scan that fails on 'id' and on the
    columns in ``failing``, with the candidates 'grade', 'flag' (no engine needed)."""
    from explorer import large_files
    from heb.data import DataError
    from heb.scale import target_choice

    monkeypatch.setattr(
        target_choice,
        "fallback_targets",
        lambda engine: [("grade", "text", 3), ("flag", "whole numbers", 2)],
    )
    monkeypatch.setattr(large_files, "_can_be_target", lambda engine, column: can_be_target)

    def work(chosen=False, dropped=(), failing=()):
        def run(engine, report, column):
            if column == "id" or column in failing:
                raise DataError(f"The target {column!r} cannot be one.")
            return f"scan of {column}"

        return large_files._for_target(run, "id", chosen, dropped)(None, lambda *a: None)

    return work


def test_a_column_left_out_is_never_taken_as_the_target(monkeypatch):
    work = _fallback(monkeypatch)
    taken = work()
    assert (taken.target, taken.result, taken.passed_over) == ("grade", "scan of grade", ())
    taken = work(dropped=("grade",))
    assert (taken.target, taken.passed_over) == ("flag", ())  # left out: not passed over


def test_a_candidate_whose_scan_fails_is_named_as_passed_over(monkeypatch):
    from heb.data import DataError

    work = _fallback(monkeypatch)
    taken = work(failing=("grade",))
    assert (taken.target, taken.last, taken.passed_over) == ("flag", "id", ("grade",))
    with pytest.raises(DataError, match="'id'"):  # none works: the last column's error
        work(failing=("grade", "flag"))


def test_a_chosen_or_fine_last_column_keeps_its_error(monkeypatch):
    from heb.data import DataError

    with pytest.raises(DataError, match="'id'"):
        _fallback(monkeypatch)(chosen=True)
    with pytest.raises(DataError, match="'id'"):  # a fine target failing for another reason
        _fallback(monkeypatch, can_be_target=True)()


# ------------------------------------------------------------ large-file CSV line ends
def test_a_crlf_cut_between_two_chunks_with_quotes_is_one_line_end():
    """The LF that opens a chunk after one ending in CR is that CRLF's, also when the
    chunk holds a quote (the searched path, not bytes.replace)."""
    from heb.scale.csv_layout import lf_lines

    state = [0, False]
    chunks = [b'a,"b"\r', b'\n"c",d\r\n']
    assert b"".join(lf_lines(c, state) for c in chunks) == b'a,"b"\n"c",d\n'


def test_a_note_after_an_unnamed_empty_column_quotes_its_own_column(tmp_path):
    """The notes' column positions are the file's, not those of the columns kept: an
    empty unnamed column before a column of percentages moved them."""
    from heb.data.readers import read_table
    from tests.test_scale_csv import _engine
    from tests.test_scale_csv_spreadsheet import assert_reads_as_the_readers

    data = b"a,,pct,class\n1,,0%,yes\n2,,12%,no\n3,,5%,yes\n"
    reference = read_table(data, "t.csv")
    assert "percentages such as '12%'" in " ".join(reference.attrs["heb_notes"])
    (tmp_path / "t.csv").write_bytes(data)
    assert_reads_as_the_readers(_engine(tmp_path, "t.csv"), reference)


def test_a_column_left_out_is_not_offered_to_read_as_categories():
    from explorer.large_files import LargeFile

    large = LargeFile(
        "f",
        "root",
        "id",
        "label",
        ("n", "x", "t", "label"),
        families=("integer", "float", "text", "text"),
        dropped=("x",),
    )
    assert large.numeric_features == ["n"]


def test_no_column_of_a_value_per_row_says_nothing(monkeypatch):
    said = []
    monkeypatch.setattr(large_drop, "show_info", said.append)
    large_drop.per_row_notes(_described(x=("categorical", 3, 30, 0.0)), "f")
    assert said == []
    large_drop.per_row_notes(_described(ref=("categorical", 30, 30, 0.0)), "f")
    assert len(said) == 1 and "'ref' has one value per row" in said[0]


def test_the_taken_target_s_result_is_kept_under_the_key_of_the_file_so_retargeted(
    session, monkeypatch
):
    """The taken column, declared categorical before, is not among the retargeted file's
    categories (as active() leaves it out), so the page's next run finds the result."""
    from explorer import large_files
    from explorer.large_files import LargeFile, TakenTarget

    kept = []
    monkeypatch.setattr(large_files, "_keep", lambda key, result: kept.append((key, result)))
    monkeypatch.setattr(large_files.st, "rerun", lambda: None)
    large = LargeFile("f", "root", "id", "id", ("flag", "x", "id"), categorical=("flag", "x"))
    taken = TakenTarget("result", "flag", "id", "error", "whole numbers", 2)
    large_files._take(large, taken, lambda file: (file.target, file.chosen, file.categorical))
    assert kept == [(("flag", True, ("x",)), "result")]
    assert session[state.LARGE_TARGET]["f"] == "flag"
    assert session["_large_taken_targets"]["f"].result is None


def test_a_head_cut_after_a_crlf_s_cr_is_one_way_of_ending_lines():
    from heb.scale.csv_layout import _line_ends

    assert _line_ends(b"a,b\r\n1,2\r", whole=False) == 1  # the CR's LF is past the head
    assert _line_ends(b"a,b\r\n1,2\r", whole=True) == 2  # the whole file: a CR alone
