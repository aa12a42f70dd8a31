"""The bad-input catalogue: every case of docs/bad_inputs.md is one test here.

A case either raises :class:`heb.data.DataError` whose message is one sentence a student
understands (the app shows it as is), or is handled as documented (a note for the user).
Each test is named ``test_case_<id>``; the docs table lists the same ids.
"""

from __future__ import annotations

import gzip
import re
import socket
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hyp

from heb.data import (
    DataError,
    Preprocessor,
    load_builtin,
    load_dataset,
    load_openml,
    load_shared,
    load_upload,
    read_table,
    readers,
    safe_n_splits,
)
from heb.data.budget import (
    HEAD_BYTES,
    MAX_HEAD_BYTES,
    UNPACK_CHUNK,
    LineBudget,
    gunzip_chunks,
    in_steps,
)

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent / "docs" / "bad_inputs.md"
TEST_SERVER = "https://test.openml.org/api/v1/xml"


def student_message(exc: BaseException) -> str:
    """The message, checked to be one plain sentence."""
    message = str(exc)
    assert isinstance(exc, DataError), type(exc)
    assert message.endswith("."), message
    assert "\n" not in message and "Traceback" not in message, message
    assert not re.search(r"[.!?]\s+[A-Z]", message), f"more than one sentence: {message}"
    assert 10 <= len(message) <= 300, message
    return message


def fails(action, fragment: str) -> str:
    with pytest.raises(DataError) as info:
        action()
    message = student_message(info.value)
    assert fragment in message, message
    return message


def csv(text: str) -> bytes:
    return text.encode()


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


# ---------------------------------------------------------------------------- file level
def test_case_empty_file():
    fails(lambda: load_upload(b"", "empty.csv"), "The file is empty.")


def test_case_whitespace_only():
    fails(lambda: load_upload(b"\n  \r\n\t\n", "blank.csv"), "The file is empty.")


def test_case_header_only():
    fails(lambda: load_upload(csv("a,b,class\n"), "h.csv"), "header row but no data rows")


def test_case_upload_not_bytes():
    fails(lambda: load_upload("a,b\n1,2\n", "s.csv"), "bytes of a file")


def test_case_over_size_limit():
    payload = csv("a,class\n" + "1,x\n2,y\n" * 200)
    fails(
        lambda: load_upload(payload, "big.csv", max_bytes=1000),
        "is 2 KB, more than the limit of 1000 bytes",
    )
    assert load_upload(payload, "big.csv", max_bytes=10_000).X.shape == (400, 1)


def test_case_gzip_bomb():
    payload = gzip.compress(csv("a,class\n" + "1,x\n" * 100_000))
    assert len(payload) < 5_000
    fails(lambda: load_upload(payload, "bomb.csv.gz", max_bytes=50_000), "unpacks to more than")


def test_case_damaged_gzip():
    good = gzip.compress(csv("a,class\n1,x\n2,y\n" * 50))
    fails(lambda: load_upload(good[: len(good) // 2], "cut.csv.gz"), "damaged or incomplete")
    fails(lambda: load_upload(b"\x1f\x8b" + b"not a gzip stream" * 5, "x.gz"), "damaged")


def test_case_binary_junk():
    junk = np.random.default_rng(7).integers(0, 256, size=4096, dtype=np.uint8).tobytes()
    fails(lambda: load_upload(junk, "data.csv"), "binary data, not a table")


def test_case_zip_or_excel():
    fails(lambda: load_upload(b"PK\x03\x04" + b"\x00" * 100, "book.xlsx"), "save the table as CSV")
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100
    fails(lambda: load_upload(ole, "book.xls"), "Excel workbook")


def test_case_damaged_parquet():
    fails(lambda: load_upload(b"PAR1" + b"garbage" * 20, "t.parquet"), "parquet file could not")


def test_case_non_utf8():
    payload = "city,class\nZürich,a\nMálaga,b\nKöln,a\n".encode("cp1252")
    dataset = load_upload(payload, "cities.csv")
    assert dataset.X["city"].tolist() == ["Zürich", "Málaga", "Köln"]
    assert "The file is not UTF-8, so it was read as Windows-1252 (Western European)." in (
        dataset.notes
    )


# ---------------------------------------------------------------------------- table shape
def test_case_one_row():
    fails(lambda: load_upload(csv("a,class\n1,x\n"), "one.csv"), "single data row")


def test_case_ragged_long_row():
    payload = csv("a,b,class\n1,2,x\n3,4,y,extra\n5,6,x\n")
    fails(lambda: load_upload(payload, "r.csv"), "Line 3 of the file has 4 values")


def test_case_unclosed_quote():
    """It said only "could not be read as a table; check its quotes and delimiters", where
    the engine's scan of the same file names the line (trial T)."""
    said = "Line {} of the file opens a quote that is never closed; check the file's quotes."
    for text, line in (
        ('x,y\na,1\n"b,2\nc,3\n', 3),
        ('x,y\r\n1,a\r\n\r\n\r\n2,""b""\r\n"bad,c\r\n', 6),  # blank lines, doubled quotes
        ('x,y\r1,a\r"bad,c\r', 3),  # CR line ends
        ('"x,y\n1,a\n', 1),  # in the header
        ("x,y\n" + "".join(f"{i},a\n" for i in range(500)) + '"b,c\n1,a\n', 502),
    ):
        fails(lambda text=text: load_upload(csv(text), "q.csv"), said.format(line))
    # a quoted line break before it: pandas' row is not the file's line, so none is named
    fails(
        lambda: load_upload(csv('x,y\n"multi\nline",a\n"bad,c\n'), "q.csv"),
        "could not be read as a table; check its quotes and delimiters",
    )


def test_case_ragged_short_row():
    dataset = load_upload(csv("a,b,class\n1,2,x\n3,y\n5,6,x\n6,7,y\n"), "r.csv")
    # the short row's values fill the first columns; the rest are missing
    assert dataset.y.tolist() == ["x", "x", "y"]
    assert "1 row had fewer values than the header; the missing cells are treated as " in (
        " ".join(dataset.notes)
    )
    assert any("Dropped 1 row with a missing target." == note for note in dataset.notes)
    cr_only = load_upload(csv("a,b,class\r1,2,x\r3,y\r5,6,x\r6,7,y\r"), "r.csv")
    assert cr_only.notes == dataset.notes and cr_only.y.tolist() == dataset.y.tolist()


def _short_rows_line_by_line(text: str, delimiter: str, n_columns: int) -> int:
    """The short-row count read line by line: the reference for the vectorised count."""
    if '"' in text or n_columns < 2:
        return 0
    end = "\n" if "\n" in text else "\r"
    lines = text.split(end)[: -1 if text.endswith(end) else None]
    kept = [line for line in lines if line not in ("", "\r")]  # blank lines are skipped
    return sum(line.count(delimiter) < n_columns - 1 for line in kept[1:])  # after the header


@settings(max_examples=300, deadline=None)
@given(
    text=hyp.lists(hyp.sampled_from(["a", "1", ",", ";", " ", "\n", "\r", "\r\n"])).map("".join),
    delimiter=hyp.sampled_from([",", ";"]),
    n_columns=hyp.integers(1, 5),
)
def test_short_rows_are_counted_as_line_by_line(text, delimiter, n_columns):
    from heb.data.readers import _short_rows

    if text:
        assert _short_rows(text, delimiter, n_columns) == _short_rows_line_by_line(
            text, delimiter, n_columns
        )


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_a_row_starting_with_a_delimiter_is_not_counted_with_the_line_above(end):
    """A line's delimiters end at its line end: a next row whose first cell is empty
    (``,5,6``) does not lend its leading delimiter to a short row above it."""
    from heb.data.readers import _short_rows

    text = end.join(["a,b,c", "1,2", ",5,6", "7,8,9", ";"]) + end
    assert _short_rows(text, ",", 3) == 2  # "1,2" and ";"
    assert _short_rows(text.replace(",5,6", "4,5,6"), ",", 3) == 2


def test_datasets_built_from_one_table_keep_their_own_notes():
    """The app builds every target's Dataset from one cached table: a note one of them
    adds (a dropped row) never lands in the table or in the next Dataset's notes."""
    from heb.data import dataset_from_table

    table = read_table(csv("a,a,class\n1,2,x\n3,4,\n5,6,y\n7,8,x\n"), "t.csv")
    before = list(table.attrs.get("heb_notes", []))
    first = dataset_from_table(table, "t.csv")
    second = dataset_from_table(table, "t.csv", target="a (2)")
    assert any("missing target" in note for note in first.notes)
    assert not any("missing target" in note for note in second.notes)
    assert table.attrs["heb_notes"] == before and len(before) == 1  # the renamed repeat
    assert before[0] in first.notes and before[0] in second.notes


def test_case_duplicate_column_names():
    dataset = load_upload(csv("a,a,b,class\n1,2,3,x\n4,5,6,y\n"), "d.csv")
    assert list(dataset.X.columns) == ["a", "a (2)", "b"]
    assert any("appears more than once" in note for note in dataset.notes)


def test_case_blank_column_name():
    dataset = load_upload(csv(",b,class\n1,2,x\n3,4,y\n"), "blank.csv")
    assert list(dataset.X.columns) == ["column_1", "b"]
    assert any("Columns without a name" in note for note in dataset.notes)


def test_case_blank_empty_columns():
    """A spreadsheet's trailing separators: the last (empty, unnamed) column was the
    default target and the file was refused; a named empty column and an unnamed column
    of values stay."""
    rows = "".join(f"{i};{i % 3};;{'xy'[i % 2]};;\n" for i in range(6))
    dataset = load_upload(csv("a;b;empty;class;;\n" + rows), "excel.csv")
    assert dataset.target == "class"
    assert list(dataset.X.columns) == ["a", "b", "empty"]
    assert any("Left out 2 columns with neither a name nor a value" in n for n in dataset.notes)
    kept = load_upload(csv(";b;class\n1;2;x\n3;4;y\n"), "blank.csv")
    assert list(kept.X.columns) == ["column_1", "b"]
    assert not any("Left out" in note for note in kept.notes)


def test_case_case_variants():
    """A student's typo: 'Mobile' beside 'mobile' is two categories, with a note; values
    that differ in more than case, and numbers, give none."""
    rows = "".join(
        f"{d},{c},{'xy'[i % 2]}\n"
        for i, (d, c) in enumerate(
            [("mobile", "Lyon"), ("Mobile", "lyon"), ("desktop", "LYON"), ("mobile", "Paris")] * 3
        )
    )
    dataset = load_upload(csv("device,city,class\n" + rows), "typos.csv")
    assert dataset.X["device"].nunique() == 3  # kept as written
    [note] = [n for n in dataset.notes if "letter case" in n]
    assert note == (
        "Column 'device' (and 1 more column) has values that differ only in letter case, "
        "such as 'mobile' and 'Mobile': each is a category of its own; correct the file if "
        "they are one."
    )
    clean = load_upload(csv("device,n,class\nmobile,1,x\ndesk,2,y\nmobiles,3,x\n"), "c.csv")
    assert not any("letter case" in n for n in clean.notes)


def test_case_too_many_columns():
    header = ",".join(f"c{i}" for i in range(60))
    payload = csv(header + "\n" + ",".join("1" * 60) + "\n")
    fails(lambda: read_table(payload, "w.csv", max_columns=50), "more than the 50 this app")


def test_case_wide_table():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 3, size=(40, 1200)))
    frame.columns = [f"f{i}" for i in range(1200)]
    frame["class"] = np.tile(["a", "b"], 20)
    dataset = load_upload(frame.to_csv(index=False).encode(), "wide.csv")
    assert dataset.X.shape == (40, 1200)
    assert any("1,200 feature columns" in note for note in dataset.notes)
    codes = Preprocessor().fit_transform(dataset.X)
    assert codes.shape == (40, 1200)


def test_case_no_feature_columns():
    fails(lambda: load_upload(csv("class\na\nb\n"), "t.csv"), "no feature columns")


# ---------------------------------------------------------------------------- target
def test_case_target_column_missing():
    payload = csv("a,b,class\n1,2,x\n3,4,y\n")
    fails(lambda: load_upload(payload, "t.csv", target="label"), "no column named 'label'")


def test_case_one_class():
    fails(lambda: load_upload(csv("a,class\n1,x\n2,x\n3,x\n"), "t.csv"), "at least two classes")


def test_case_target_some_missing():
    dataset = load_upload(csv("a,class\n1,x\n2,\n3,y\n4,?\n5,x\n"), "t.csv")
    assert "Dropped 2 rows with a missing target." in dataset.notes
    assert dataset.y.tolist() == ["x", "y", "x"] and dataset.X["a"].tolist() == [1, 3, 5]


def test_case_blank_lines_are_said_to_be_blank_not_a_missing_target():
    """A spreadsheet's export ends in blank lines: they were reported as rows "with a
    missing target", which sent a user looking for missing classes."""
    dataset = load_upload(csv("a,b,class\n1,2,x\n3,,\n5,6,y\n,,\nNA,NaN,NA\n"), "t.csv")
    assert (
        "Dropped 2 rows with no value in any column (empty cells or missing-value markers "
        "only)." in dataset.notes
    )
    assert "Dropped 1 row with a missing target." in dataset.notes
    assert dataset.y.tolist() == ["x", "y"]


def test_case_target_all_missing():
    fails(lambda: load_upload(csv("a,class\n1,\n2,\n3,?\n"), "t.csv"), "has no values")


def test_case_continuous_target():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=300), "price": rng.gamma(2.0, 50.0, size=300)})
    payload = frame.to_csv(index=False).encode()
    fails(lambda: load_upload(payload, "prices.csv"), "looks like a measurement")


def test_case_too_many_classes():
    frame = pd.DataFrame({"x": range(300), "name": [f"person {i}" for i in range(300)]})
    payload = frame.to_csv(index=False).encode()
    fails(lambda: load_upload(payload, "names.csv"), "more than the 100 classes")


# ---------------------------------------------------------------------------- columns
def test_case_unique_per_row_column():
    frame = pd.DataFrame({"customer": [f"C{i:04d}" for i in range(50)], "y": ["a", "b"] * 25})
    dataset = load_upload(frame.to_csv(index=False).encode(), "c.csv")
    assert "customer" in dataset.categorical
    assert (
        "Column 'customer' has one value per row: kept as a high-cardinality feature."
        in dataset.notes
    )


def test_case_two_unique_per_row_columns_are_named_in_the_plural():
    frame = pd.DataFrame(
        {"customer": [f"C{i:04d}" for i in range(50)], "order": [f"O{i}" for i in range(50)],
         "y": ["a", "b"] * 25}
    )  # fmt: skip
    dataset = load_upload(frame.to_csv(index=False).encode(), "c.csv")
    assert (
        "Columns 'customer', 'order' have one value per row: kept as high-cardinality features."
        in dataset.notes
    )


def test_case_constant_column():
    dataset = load_upload(csv("a,const,class\n1,7,x\n2,7,y\n3,7,x\n"), "c.csv")
    assert "const" in dataset.X.columns
    assert (
        "Column 'const' has a single value, so it cannot help the prediction (kept)."
        in dataset.notes
    )


def test_case_all_missing_column():
    dataset = load_upload(csv("a,empty,class\n1,,x\n2,,y\n3,?,x\n"), "c.csv")
    assert "Column 'empty' is empty in every row and will be left out." in dataset.notes
    pre = Preprocessor(categorical=dataset.categorical).fit(dataset.X)
    assert pre.dropped_ == ["empty"] and pre.feature_names_out_ == ["a"]


def test_case_nan_and_inf():
    payload = csv("x,y,class\n1.5,inf,a\nNaN,2.0,b\n3.5,-inf,a\n4.5,4.0,b\n")
    dataset = load_upload(payload, "n.csv")
    assert dataset.X["y"].isna().sum() == 2
    assert "2 infinite values in 'y' are treated as missing." in dataset.notes
    codes = Preprocessor(n_bins=2).fit_transform(dataset.X)
    assert codes.min() >= 0


def test_case_mixed_types():
    dataset = load_upload(csv("size,class\n1,a\n2,b\nlarge,a\n4,b\n"), "m.csv")
    assert "size" in dataset.categorical
    assert dataset.X["size"].tolist() == ["1", "2", "large", "4"]
    assert (
        "Column 'size' mixes numbers and text such as 'large', so it is treated as categorical."
        in dataset.notes
    )


def test_case_all_features_empty():
    frame = pd.DataFrame({"a": [np.nan, np.nan], "b": [None, None]})
    fails(lambda: Preprocessor().fit(frame), "No usable feature column")


def test_case_transform_missing_column():
    pre = Preprocessor().fit(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}))
    fails(lambda: pre.transform(pd.DataFrame({"a": [1.0]})), "lacks column 'b'")


# ---------------------------------------------------------------------------- folds
def test_case_class_smaller_than_folds():
    folds, notice = safe_n_splits(["a"] * 30 + ["b"] * 30 + ["c"] * 3)
    assert folds == 3
    assert notice == (
        "The smallest class ('c') has only 3 rows, so 3-fold cross-validation is used "
        "instead of 10-fold."
    )


def test_case_single_row_class():
    folds, notice = safe_n_splits(["a"] * 30 + ["b"] * 30 + ["lonely"])
    assert folds == 10
    assert "Class 'lonely' has a single row" in notice


def test_case_every_class_single():
    fails(lambda: safe_n_splits(["a", "b", "c"]), "Every class has a single row")


# ---------------------------------------------------------------------------- ARFF
ARFF_HEAD = "@relation t\n@attribute a numeric\n@attribute c {x,y}\n"


def test_case_arff_syntax_error():
    text = "@relation t\n@attribute a numeric\n@atribute c {x,y}\n@data\n1,x\n"
    fails(lambda: load_upload(text.encode(), "t.arff"), "cannot read (line 3")
    broken = "@relation t\n@attribute c {x,y\n@data\nx\n"
    fails(lambda: load_upload(broken.encode(), "t.arff"), "missing its closing brace")


def test_case_arff_no_data():
    fails(lambda: load_upload(ARFF_HEAD.encode(), "t.arff"), "no @data line")


def test_case_arff_bad_nominal_value():
    text = ARFF_HEAD + "@data\n1,x\n2,z\n"
    fails(lambda: load_upload(text.encode(), "t.arff"), "not one of its declared values")


def test_case_arff_text_in_numeric():
    text = ARFF_HEAD + "@data\n1,x\nten,y\n"
    fails(lambda: load_upload(text.encode(), "t.arff"), "declared numeric but holds")


def test_case_arff_wrong_value_count():
    text = ARFF_HEAD + "@data\n1,x\n2,y,3\n"
    fails(lambda: load_upload(text.encode(), "t.arff"), "declares 2 attributes; check line 6")


def test_case_arff_cr_only():
    text = (ARFF_HEAD + "@data\n1,x\n2,y\n").replace("\n", "\r")
    assert load_upload(text.encode(), "cr.arff").y.tolist() == ["x", "y"]


def test_case_arff_quoted_comma():
    head = "@relation t\n@attribute a numeric\n@attribute c string\n@data\n"
    for text in (head + '1,"a, b"\n2,c\n', head + "1,'a, b'\n2,\"c, d\"\n"):
        assert load_upload(text.encode(), "q.arff").y.tolist()[0] == "a, b"


def test_case_arff_error_line():
    text = ARFF_HEAD + "@data\n% a comment\n\n1,x\n   \n2,y\n3,x,9\n"
    assert text.splitlines()[9] == "3,x,9"  # file line 10
    fails(lambda: load_upload(text.encode(), "e.arff"), "check line 10 of the file")


# ---------------------------------------------------------------------------- OpenML
@pytest.mark.parametrize("bad", ["abc", "anneal", 2.5, None, True, "3; rm"])
def test_case_openml_id_not_integer(bad, tmp_path):
    fails(lambda: load_openml(bad, cache_dir=tmp_path), "whole number such as 31")


@pytest.mark.parametrize("bad", [-3, 0, "-7"])
def test_case_openml_id_negative(bad, tmp_path):
    fails(lambda: load_openml(bad, cache_dir=tmp_path), "positive whole numbers")


def test_case_openml_not_cached_offline(tmp_path, no_network):
    fails(
        lambda: load_openml(31, cache_dir=tmp_path, server=TEST_SERVER),
        "not in the local cache and the OpenML server cannot be reached",
    )
    # a partly cached dataset: the failed call must leave its files in place
    folder = tmp_path / "org" / "openml" / "test" / "datasets" / "77"
    folder.mkdir(parents=True)
    pd.DataFrame({"a": [1, 2], "class": ["x", "y"]}).to_parquet(folder / "dataset_77.pq")
    fails(lambda: load_openml(77, cache_dir=tmp_path, server=TEST_SERVER), "cannot be reached")
    assert sorted(p.name for p in folder.iterdir()) == ["dataset_77.pq"]


# ---------------------------------------------------------------------------- names
def test_case_unknown_builtin():
    fails(lambda: load_builtin("titanic"), "no built-in dataset named 'titanic'")


def test_case_shared_folder_absent(tmp_path):
    fails(lambda: load_shared("car", datasets_dir=tmp_path / "nowhere"), "was not found")


def test_case_unknown_shared_name(tmp_path):
    (tmp_path / "manifest.json").write_text('[{"name": "car", "target": "class"}]')
    fails(lambda: load_shared("cars", datasets_dir=tmp_path), "no shared dataset named 'cars'")


def test_case_unknown_spec():
    fails(lambda: load_dataset("not-a-dataset"), "is not a dataset name")


# ---------------------------------------------------------------------------- names from a URL
URL_VALUES = [
    "/etc/passwd",
    "../../../etc/passwd",
    "file:/etc/os-release",
    "/proc/self/maps",
    "/proc/kmsg",
    "/proc/self/pagemap",
    "openml:[Click to fix](https://example.invalid)",
    "![a](http://127.0.0.1:9/o.png)",
    "shared:../../etc/passwd",
]


@pytest.mark.parametrize("value", URL_VALUES)
def test_case_url_path_refused(value, monkeypatch):
    """``allow_paths=False`` (the app's URL): no file is opened, nothing of one is shown."""
    import builtins
    import os

    def no_open(*args, **kwargs):
        raise AssertionError("a file was opened for a URL value")

    monkeypatch.setattr(os, "open", no_open)
    monkeypatch.setattr(builtins, "open", no_open)
    message = fails(lambda: load_dataset(value, allow_paths=False), "is not a dataset name")
    assert "root:" not in message and "ID=" not in message


@pytest.mark.parametrize(
    "value",
    ["shared:car/../../../etc/passwd", "builtin:iris/../../etc/passwd", "openml:31/../../x"],
)
def test_a_url_name_followed_by_a_path_is_refused(value, monkeypatch):
    """A known name with a path after it is refused whole, before any file is opened (the
    name must match from its first character to its last)."""
    import builtins
    import os

    def no_open(*args, **kwargs):
        raise AssertionError("a file was opened for a URL value")

    monkeypatch.setattr(os, "open", no_open)
    monkeypatch.setattr(builtins, "open", no_open)
    fails(lambda: load_dataset(value, allow_paths=False), "is not a dataset name")


def test_case_very_long_name():
    fails(lambda: load_dataset("a" * 3000, allow_paths=False), "3,000 characters long")
    fails(lambda: load_dataset("openml:" + "9" * 3000), "more than the 200 a name may have")


def test_case_system_file_path():
    """Even for the CLI / API (paths allowed), /proc, /sys and /dev are never read."""
    for path in ("/proc/self/maps", "/proc/kmsg", "/dev/zero", "/sys/kernel/notes"):
        message = fails(lambda path=path: load_dataset(path), "is a system file")
        assert "r-xp" not in message


def test_a_symlink_to_a_system_file_is_refused(tmp_path):
    """A link is judged by the file it leads to: one to /proc is refused, never read."""
    link = tmp_path / "maps.csv"
    link.symlink_to("/proc/self/maps")
    message = fails(lambda: load_dataset(str(link)), "is a system file")
    assert "r-xp" not in message


def test_a_file_of_exactly_the_size_limit_is_read(tmp_path):
    """The limit is inclusive: a file of max_bytes bytes is read, one byte more is not."""
    from heb.data.budget import read_local_file

    path = tmp_path / "ok.csv"
    path.write_bytes(b"a,class\n1,x\n2,y\n")
    size = path.stat().st_size
    assert read_local_file(path, size) == path.read_bytes()
    fails(lambda: read_local_file(path, size - 1), "more than the limit")


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs on this system")
def test_case_fifo_or_folder(tmp_path):
    import os

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    fails(lambda: load_dataset(str(fifo)), "'pipe.csv' is not a regular file")
    fails(lambda: load_dataset(f"file:{tmp_path}"), "is not a regular file")
    good = tmp_path / "ok.csv"
    good.write_bytes(csv("a,class\n1,x\n2,y\n"))
    assert load_dataset(str(good)).y.tolist() == ["x", "y"]
    fails(lambda: load_dataset(str(good), allow_paths=False), "is not a dataset name")


def test_case_long_quoted_name():
    message = fails(
        lambda: load_upload(csv("a,class\n1,x\n2,y\n"), "t.csv", target="T" * 5000),
        "There is no column named 'TTT",
    )
    assert "T" * 59 + "\u2026'" in message and "T" * 60 not in message


# ---------------------------------------------------------------------------- budgets
def _parquet(frame_or_table) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = frame_or_table
    if isinstance(table, pd.DataFrame):
        table = pa.Table.from_pandas(table, preserve_index=False)
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


def test_case_parquet_budget():
    zeros = _parquet(pd.DataFrame({"a": np.zeros(2_000_000), "class": np.zeros(2_000_000)}))
    assert len(zeros) < 100_000
    fails(lambda: load_upload(zeros, "z.parquet", max_bytes=5_000_000), "unpacks to")
    import pyarrow as pa

    n = 10_000_001
    cells = pa.table({"a": pa.array(np.zeros(n, dtype=np.int8)), "b": pa.nulls(n, pa.int8())})
    fails(lambda: load_upload(_parquet(cells), "c.parquet"), "20,000,000 cells")


def test_case_parquet_string_bomb():
    """A long string repeated through a dictionary is decoded once (a category)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    # written from a dictionary array (pandas would hash 2 GB of strings first, 30 s) and
    # without the Arrow schema, so a plain read sees 2,000 strings, not a dictionary
    long_text = pa.array(["x" * 1_000_000])
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(2000, dtype=np.int32)), long_text)
    table = pa.table({"s": column, "class": pa.array(["a", "b"] * 1000)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", store_schema=False)
    payload = buffer.getvalue()
    assert len(payload) < 200_000
    assert pq.read_schema(io.BytesIO(payload)).field("s").type == pa.string()
    dataset = load_upload(payload, "s.parquet")
    assert dataset.X["s"].dtype == "category" and dataset.X["s"].cat.categories.size == 1
    assert dataset.X.memory_usage(deep=True).sum() < 5_000_000  # not 2 GB of copies


def test_case_parquet_nested_column():
    frame = pd.DataFrame({"tags": [[1, 2], [3]], "class": ["a", "b"]})
    fails(lambda: load_upload(_parquet(frame), "n.parquet"), "column 'tags' holds lists")
    struct = pd.DataFrame({"point": [{"x": 1}, {"x": 2}], "class": ["a", "b"]})
    fails(lambda: load_upload(_parquet(struct), "n.parquet"), "column 'point' holds lists")


def test_case_gzip_many_cells():
    """A small gzip under the byte limit whose rows x columns exceed the cell budget."""
    payload = gzip.compress(csv("a,class\n" + "1,x\n" * 10_000_001), compresslevel=9)
    assert len(payload) < 200_000
    fails(lambda: load_upload(payload, "rows.csv.gz"), "more than the 20,000,000 cells")


def test_case_arff_too_wide():
    header = "@relation w\n" + "".join(f"@attribute a{i} numeric\n" for i in range(50_000))
    fails(lambda: load_upload((header + "@data\n1\n").encode(), "w.arff"), "50,000 attributes")


def test_case_arff_sparse_huge():
    header = "@relation s\n" + "".join(f"@attribute a{i} numeric\n" for i in range(2_999))
    header += "@attribute class {x,y}\n@data\n"
    rows = "{0 1, 2999 x}\n{1 1, 2999 y}\n" * 5_000
    fails(lambda: load_upload((header + rows).encode(), "s.arff"), "3,000 columns")


# ---------------------------------------------------------------------------- silent results
def test_case_first_row_too_long():
    payload = csv("a,b,class\n1,2,3,x\n4,5,y\n6,7,x\n")
    fails(lambda: load_upload(payload, "r.csv"), "Line 2 of the file has more values")
    arff_text = ARFF_HEAD + "@data\n% weights follow\n1,x,{2}\n2,y\n"
    fails(lambda: load_upload(arff_text.encode(), "w.arff"), "check line 6 of the file")


def test_case_big_integer_ids():
    """IDs beyond 2**53 stay distinct and exact, also with a missing cell."""
    base = 2**53
    rows = "".join(f"{base + k},{'ab'[k % 2]}\n" for k in range(8))
    dataset = load_upload(csv("user_id,class\n" + rows + ",a\n"), "ids.csv")
    assert dataset.X["user_id"].nunique() == 8
    pre = Preprocessor(categorical=dataset.categorical).fit(dataset.X)
    assert pre.categories_[0] == [str(base + k) for k in range(8)]
    assert pre.transform(dataset.X)[:8, 0].tolist() == list(range(8))
    rows = "".join(f"{2**62 + k},{'ab'[k % 2]}\n" for k in range(20))
    dataset = load_upload(csv("order_id,class\n" + rows), "ids.csv")
    assert Preprocessor(categorical=dataset.categorical).fit(dataset.X).n_categories_[0] == 20
    rows = "".join(f"{2**64 - 1 - k},{'ab'[k % 2]}\n" for k in range(6))
    dataset = load_upload(csv("hash_id,class\n" + rows + ",a\n"), "ids.csv")
    assert dataset.X["hash_id"].iloc[0] == str(2**64 - 1)  # past int64: exact as text
    import pyarrow as pa

    ids = pa.array([base + k for k in range(8)] + [None], pa.int64())
    table = pa.table({"user_id": ids, "class": list("abababab") + ["a"]})
    dataset = load_upload(_parquet(table), "ids.parquet")  # pyarrow alone gives float64
    assert dataset.X["user_id"].dropna().tolist() == [base + k for k in range(8)]
    labels = "".join(f"{k},{base + k % 2}\n" for k in range(6))
    dataset = load_upload(csv("a,class\n" + labels), "labels.csv")
    assert sorted(set(dataset.y.tolist())) == [base, base + 1]


def test_case_utf32_bom():
    text = "city,class\nZürich,a\nKöln,b\n"
    for payload in (text.encode("utf-32"), text.encode("utf-32-be")):
        if not payload.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
            payload = b"\x00\x00\xfe\xff" + payload
        dataset = load_upload(payload, "u.csv")
        assert dataset.X["city"].tolist() == ["Zürich", "Köln"] and dataset.notes == []


def test_case_decimal_comma():
    dataset = load_upload(csv("price;class\n1.234,56;a\n12,5;b\n-0,25;a\n7;b\n"), "s.csv")
    assert dataset.X["price"].tolist() == [1234.56, 12.5, -0.25, 7.0]
    dataset = load_upload(csv('price,class\n"12,5",a\n"3,25",b\n'), "c.csv")
    assert dataset.X["price"].tolist() == ["12,5", "3,25"]
    assert any("numbers written with a comma such as '12,5'" in n for n in dataset.notes)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("z.csv", "zip,n,class\n02134,1,a\n00501,2,b\n10001,3,a\n,4,b\n"),
        ("z.tsv", "zip\tn\tclass\n02134\t1\ta\n00501\t2\tb\n10001\t3\ta\n\t4\tb\n"),
        ("z.csv.gz", 'zip,n,class\n"02134",1,a\n 00501,2,b\n10001,3,a\nNA,4,b\n'),
        ("z.csv", "zip;n;class\n02134;1,5;a\n00501;2;b\n10001;3;a\n;4;b\n"),
    ],
)
def test_case_leading_zero_codes(name, data):
    """ZIP codes read as numbers lost their zero (02134 became 2134) and were binned as
    amounts: digit strings some of which begin with 0 stay text, as written."""
    payload = gzip.compress(data.encode()) if name.endswith(".gz") else data.encode()
    dataset = load_upload(payload, name)
    assert dataset.X["zip"].tolist()[:3] == ["02134", "00501", "10001"]
    assert dataset.X["zip"].isna().tolist() == [False, False, False, True]
    assert "zip" in dataset.categorical and "n" not in dataset.categorical
    (note,) = [n for n in dataset.notes if "leading zero" in n]
    assert note.startswith("Column 'zip' holds codes written with a leading zero such as '02134'")
    student_message(DataError(note))  # one plain sentence, as every note
    # a lone 0, a sign, a decimal or a number with no leading zero stays a number
    for column in ("0\n5\n10\n", "-05\n05\n10\n", "05\n5.5\n10\n", "10001\n2134\n7\n"):
        frame = read_table(csv("x\n" + column), "n.csv")
        assert pd.api.types.is_numeric_dtype(frame["x"].dtype), column
        assert not frame.attrs["heb_notes"], column


def test_case_mixed_labels():
    """One rule: a label is its text, a whole number written as an integer."""
    from heb.data import encode_target
    from heb.data.dataset import finalize

    labels = pd.Series([1, True, 1.0, "1", 2, "b", 2.0, False] * 3, dtype=object)
    frame = pd.DataFrame({"x": np.arange(24) % 3, "y": labels})
    dataset = finalize(frame, "y", name="m", source="test")
    _, classes = encode_target(dataset.y)
    assert dataset.n_classes == len(classes) == 5
    assert list(classes) == ["1", "2", "False", "True", "b"]
    assert list(encode_target(labels)[1]) == list(classes)  # raw labels: the same rule
    n_splits, _ = safe_n_splits(dataset.y, 10)
    assert n_splits == 3  # 'b', 'False' and 'True' have 3 rows each


def test_case_openml_checksum_mismatch(tmp_path, no_network):
    import hashlib

    folder = tmp_path / "org" / "openml" / "test" / "datasets" / "78"
    folder.mkdir(parents=True)
    good = (ARFF_HEAD + "@data\n1,x\n2,y\n3,x\n").encode()
    md5 = hashlib.md5(good, usedforsecurity=False).hexdigest()
    (folder / "description.xml").write_text(OPENML_78.format(md5=md5))
    (folder / "dataset.arff").write_bytes(good)
    assert load_openml(78, cache_dir=tmp_path, server=TEST_SERVER).y.tolist() == list("xyx")
    (folder / "dataset.arff").write_bytes(good[:-4])  # cut short after the download
    fails(
        lambda: load_openml(78, cache_dir=tmp_path, server=TEST_SERVER),
        "does not match the checksum",
    )
    assert (folder / "description.xml").is_file()  # the cache is kept for the user to fix


OPENML_78 = """<oml:data_set_description xmlns:oml="http://openml.org/openml">
  <oml:id>78</oml:id>
  <oml:name>tiny-arff</oml:name>
  <oml:version>1</oml:version>
  <oml:format>ARFF</oml:format>
  <oml:url>https://test.openml.org/data/v1/download/78/tiny.arff</oml:url>
  <oml:file_id>78</oml:file_id>
  <oml:default_target_attribute>c</oml:default_target_attribute>
  <oml:md5_checksum>{md5}</oml:md5_checksum>
  <oml:status>active</oml:status>
</oml:data_set_description>
"""


# ---------------------------------------------------------------------------- bounded reading
def _gzip_rows(header: bytes, row: bytes, n_rows: int) -> bytes:
    """A gzip of ``header`` then ``n_rows`` copies of ``row``: gzip members joined (one
    valid gzip file), so a file of tens of millions of rows is built in milliseconds."""
    block = 1_000_000
    member = gzip.compress(row * block)
    tail = gzip.compress(row * (n_rows % block))
    return gzip.compress(header) + member * (n_rows // block) + tail


@pytest.fixture
def unpacked_bytes(monkeypatch):
    """Every byte zlib hands the readers, counted (a wrapper around its inflaters)."""
    counted = {"bytes": 0}
    original = zlib.decompressobj

    class Counting:
        def __init__(self, *args, **kwargs):
            self._inflater = original(*args, **kwargs)

        def decompress(self, data, max_length=0):
            out = self._inflater.decompress(data, max_length)
            counted["bytes"] += len(out)
            return out

        def __getattr__(self, name):
            return getattr(self._inflater, name)

    monkeypatch.setattr(zlib, "decompressobj", Counting)
    return counted


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("rows.csv.gz", b"a,class\n"),
        ("rows.arff.gz", b"@relation r\n@attribute a numeric\n@attribute class {x}\n@data\n"),
    ],
)
def test_case_many_rows_read_bounded(unpacked_bytes, name, header):
    """34 million rows (136 MB unpacked, under the byte limit) are refused once the rows
    unpacked so far exceed the cell budget: about 10 million rows of 4 bytes, not all."""
    n_rows = 34_000_000
    payload = _gzip_rows(header, b"1,x\n", n_rows)
    assert len(payload) < 500_000
    message = fails(lambda: load_upload(payload, name), "more than the 20,000,000 cells")
    assert "x 2 columns" in message
    budget_bytes = 20_000_000 // 2 * 4  # the rows of 4 bytes that fill the budget
    assert unpacked_bytes["bytes"] <= budget_bytes + 2 * UNPACK_CHUNK
    assert unpacked_bytes["bytes"] < 4 * n_rows // 3


def test_many_rows_in_memory_refused_before_decoding(monkeypatch):
    """An uncompressed file of too many rows is refused from counting its bytes: only its
    head is ever decoded to text (decoding all of it holds the GIL for seconds)."""
    decoded = []
    original = readers.decode_text
    monkeypatch.setattr(
        readers,
        "decode_text",
        lambda data, notes: decoded.append(len(data)) or original(data, notes),
    )
    payload = b"a,class\n" + b"1,x\n" * 10_000_001
    fails(lambda: read_table(payload, "rows.csv"), "more than the 20,000,000 cells")
    assert decoded and max(decoded) <= MAX_HEAD_BYTES


def test_case_cr_rows_with_final_lf():
    """Carriage returns alone end the rows and one newline ends the file: pandas splits on
    both, so both are counted (counting newlines alone saw one row and parsed 10 million)."""
    payload = b"a,class\r" + b"1,x\r" * 10_000_001 + b"\n"
    fails(lambda: load_upload(payload, "cr.csv"), "more than the 20,000,000 cells")
    small = b"a,class\r1,x\r2,y\n3,x\r\n4,y\n"
    assert load_upload(small, "mixed.csv").X.shape == (4, 1)


@settings(max_examples=60, deadline=None)
@given(
    pieces=hyp.lists(hyp.binary(min_size=0, max_size=3000), min_size=1, max_size=4),
    chunk=hyp.integers(1, 5000),
)
def test_gunzip_chunks_rebuild_every_member(pieces, chunk):
    """Joined, the bounded steps are exactly the data of every gzip member."""
    payload = b"".join(gzip.compress(piece) for piece in pieces)
    steps = list(gunzip_chunks(payload, 10**6, chunk_bytes=chunk))
    assert b"".join(steps) == b"".join(pieces)
    assert all(len(step) <= chunk for step in steps)


def test_gunzip_chunks_output_pending_after_the_last_input():
    """A bomb's last few input bytes unpack to megabytes: the steps go on past its input."""
    data = bytes(range(256)) + b"\0" * 5_000_000
    steps = list(gunzip_chunks(gzip.compress(data, 9), 10**7, chunk_bytes=4096))
    assert b"".join(steps) == data and len(steps) > 1000


@settings(max_examples=100, deadline=None)
@given(
    text=hyp.text(alphabet="ab,\r\n", max_size=400),
    cuts=hyp.lists(hyp.integers(0, 400), max_size=6),
)
def test_line_budget_counts_line_ends_as_pandas_does(text, cuts):
    """LF, CR and CRLF are one line end each, wherever the chunks are cut (a CRLF split
    between two chunks too)."""
    data = text.encode()
    edges = [0, *sorted(c for c in cuts if c <= len(data)), len(data)]
    budget = LineBudget(lambda head: 0)
    budget.scan(data[a:b] for a, b in zip(edges, edges[1:], strict=False))
    assert budget.line_ends == text.count("\n") + text.count("\r") - text.count("\r\n")


def test_line_budget_joins_a_crlf_cut_between_chunks():
    """A CRLF whose CR ends one chunk and LF starts the next is one line end."""
    budget = LineBudget(lambda head: 0)
    budget.scan([b"a\r", b"\nb\r", b"\n", b"c\n"])
    assert budget.line_ends == 3
    empty_between = LineBudget(lambda head: 0)  # hypothesis: 'aaaaa\r\n' cut at 6 and 6
    empty_between.scan([b"aaaaa\r", b"", b"\n"])
    assert empty_between.line_ends == 1


def test_gunzip_chunks_unpack_nothing_past_the_limit():
    """A bomb refused when its output reaches the limit exactly at a step's end: the
    next step asks zlib for one byte, not for everything left (no 64 MB in memory)."""
    import tracemalloc

    bomb = gzip.compress(b"\0" * (64 << 20), 9)
    tracemalloc.start()
    try:
        with pytest.raises(DataError, match="unpacks to more than"):
            for _ in gunzip_chunks(bomb, 1 << 20, chunk_bytes=1 << 18):
                pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_line_budget_boundary_is_the_cell_budget():
    """rows x columns equal to the budget pass; one more cell is refused (2 columns)."""
    data = b"a,b\n" + b"1,x\n" * 99_999  # 100,000 line ends, more than the head
    assert len(data) > HEAD_BYTES
    LineBudget(lambda head: (2, 0), max_cells=200_000).scan(in_steps(data, 4096))
    with pytest.raises(DataError, match="at least 99,999 rows x 2 columns"):
        LineBudget(lambda head: (2, 0), max_cells=199_999).scan(in_steps(data, 4096))


# ---------------------------------------------------------------------------- parameters
def test_case_n_bins_huge(tmp_path, monkeypatch):
    import tracemalloc

    from heb.cli import main
    from heb.evaluate import cross_validate

    iris = load_builtin("iris")
    message = "n_bins must be between 2 and 1,000, got 1,000,000,000."
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as caught:
            Preprocessor(n_bins=10**9).fit(iris.X)
        assert str(caught.value) == message
        with pytest.raises(ValueError) as caught:
            cross_validate(iris, ["Laplace"], n_bins=10**9, use_cache=False)
        assert str(caught.value) == message
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20  # refused before the 8 GB of quantile edges
    Preprocessor(n_bins=1000).fit(iris.X)  # the bound itself is allowed
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    args = ["bench", "builtin:iris", "--n-bins", "1000000000", "--no-figures", "--tables", "1"]
    with pytest.raises(SystemExit) as stopped:  # one line for the shell, no traceback
        main([*args, "-o", str(tmp_path / "out")])
    # refused as an option, before any data is read
    assert str(stopped.value) == f"heb: --{message.replace('n_bins', 'n-bins', 1)}"
    assert stopped.value.code == 2


# ---------------------------------------------------------------------------- the docs
def test_docs_table_lists_every_case():
    text = DOCS.read_text(encoding="utf-8")
    elsewhere = [  # cases tested beside their fixtures (many users, uploads, Explain)
        name
        for module in (
            "test_many_users.py",
            "test_load.py",
            "test_upload_columns.py",
            "test_binned_signal.py",
            "test_app_extras.py",
            "test_benchmark_trial32.py",
            "test_cli_cv_failure.py",
            "test_explain_pipeline_app.py",
            "test_trial_h.py",
            "test_large_partitions.py",
            "test_trial_q.py",
            "test_tilde_names.py",
        )
        for name in re.findall(r"^def (test_case_\w+)", (HERE / module).read_text(), re.M)
    ]
    ids = sorted(
        name.removeprefix("test_case_").replace("_", "-")
        for name in [*globals(), *elsewhere]
        if name.startswith("test_case_")
    )
    assert len(ids) >= 25
    listed = set(re.findall(r"^\|\s*\d+\s*\|\s*`([a-z0-9-]+)`", text, flags=re.MULTILINE))
    assert set(ids) == listed, set(ids) ^ listed
