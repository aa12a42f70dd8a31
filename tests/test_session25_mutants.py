"""Tests that kill mutants of session 25's changes which the session's own tests let live.

Each test names the behaviour it pins: leading-zero codes in uploads and on the DuckDB
engine, the pipeline file's checks, and the other session-25 modules further down.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heb.data import make_model, pipeline_io, preprocessor_io
from heb.data.readers import read_table

sys.path.insert(0, str(Path(__file__).parent))


# ---------------------------------------------------------------- leading-zero codes (uploads)
def _read(data: bytes, name: str = "t.csv") -> pd.DataFrame:
    return read_table(data, name)


@pytest.mark.parametrize(
    "data",
    [
        b'zip,class\n"02134",a\n10001,b\n',  # the only zero after a quote
        b"zip,class\n 02134,a\n10001,b\n",  # ... after a space pandas skips
        b"class,zip\na,02134\nb,10001\n",  # ... after the delimiter
        b"zip,class\r02134,a\r10001,b\r",  # ... after a lone carriage return
        b"zip,class\n\t02134,a\n10001,b\n",  # ... after a tab in a comma-separated file
        b"zip,class\n00501 ,a\n10001,b\n",  # a code with a trailing space
        b"zip,class\n0,a\n02134,b\n10001,c\n",  # a lone 0 among codes is a code too
    ],
)
def test_a_zip_column_is_text_wherever_its_leading_zero_sits(data):
    frame = _read(data)
    assert not pd.api.types.is_numeric_dtype(frame["zip"].dtype), frame["zip"].tolist()
    assert any("leading zero" in note for note in frame.attrs["heb_notes"])


@pytest.mark.parametrize("column", ["05\n5.0\n10\n", "05\n+5\n10\n"])
def test_a_number_written_otherwise_beside_a_leading_zero_keeps_the_column_numeric(column):
    frame = _read(("x\n" + column).encode())
    assert pd.api.types.is_numeric_dtype(frame["x"].dtype), frame["x"].tolist()


def test_a_lone_zero_is_no_leading_zero_in_another_column():
    frame = _read(b"x,zip,class\n0,02134,a\n5,10001,b\n10,00501,c\n")
    assert frame["x"].tolist() == [0, 5, 10]
    assert frame["zip"].tolist() == ["02134", "10001", "00501"]


def test_the_code_note_quotes_a_value_with_its_leading_zero():
    frame = _read(b"zip,class\n10001,a\n02134,b\n")
    (note,) = [n for n in frame.attrs["heb_notes"] if "leading zero" in n]
    assert "such as '02134'" in note


def test_the_code_note_counts_the_other_code_columns():
    frame = _read(b"zip,zip2,zip3,class\n02134,00501,01001,a\n10001,10002,10003,b\n")
    (note,) = [n for n in frame.attrs["heb_notes"] if "leading zero" in n]
    assert note.startswith("Column 'zip' (and 2 more columns) holds codes")


# ---------------------------------------------------------------- leading-zero codes (DuckDB)
@pytest.mark.parametrize(
    "data",
    [
        b"x,y\n0123,a\n1234567890123456,b\n",  # a code beside an integer of 16 digits
        b"x,y\n01234567890123456789,a\n-5,b\n,c\n",  # signed: numbers, exact beside a gap
        b"x,y\n 02134 ,a\n12345,b\n",  # the only code has spaces around it
        b"x,y\n02134,a\n NA,b\n12345,c\n",  # a missing cell pandas finds after its space
    ],
)
def test_the_engine_reads_leading_zero_columns_as_the_uploads_do(tmp_path, data):
    pytest.importorskip("duckdb")
    from test_scale_csv import _assert_same

    _assert_same(tmp_path, data)


# ---------------------------------------------------------------- the pipeline file's checks
def _section(missing: str = "impute") -> dict:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 60), "age": rng.normal(40, 10, 60)})
    pipe = make_model("laplace", n_bins=3, missing=missing).fit(frame, rng.choice(["a", "b"], 60))
    return json.loads(pipeline_io.dumps(pipe))["preprocessor"]


def _refused(section: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        preprocessor_io.from_dict(section)


def test_the_section_read_back_is_accepted():
    for missing in ("impute", "category"):
        preprocessor_io.from_dict(_section(missing))


def test_two_categories_in_the_wrong_order_are_refused():
    section = _section()
    sex = section["features"][0]
    sex["categories"]["values"] = sex["categories"]["values"][::-1]
    _refused(section, "increasing order")


@pytest.mark.parametrize("extra", [[1e6], []])
def test_a_range_of_other_than_two_numbers_is_refused(extra):
    section = _section()
    age = section["features"][1]
    age["range"] = age["range"] + extra if extra else age["range"][:1]
    _refused(section, r"must be \[min, max\]")


def test_an_infinite_cut_point_is_refused():
    section = _section()
    section["features"][1]["cuts"][-1] = float("inf")
    _refused(section, "not finite")


def test_a_fill_code_past_the_categories_is_refused_when_imputing():
    section = _section()
    section["features"][0]["fill"] = 2  # two categories: codes 0 and 1
    _refused(section, "do not fit its categories")


def test_more_labels_than_categories_and_missing_are_refused():
    section = _section("category")
    section["features"][0]["labels"] += ["(missing)", "extra"]
    _refused(section, "do not fit its categories")


def test_load_refuses_a_file_one_byte_too_large(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"c": rng.choice(["u", "v"], 40)})
    path = tmp_path / "m.json"
    pipeline_io.save(make_model("laplace").fit(frame, rng.choice(["a", "b"], 40)), path)
    size = path.stat().st_size
    assert isinstance(pipeline_io.load(path, max_bytes=size), type(make_model()))
    with pytest.raises(ValueError, match="larger than"):
        pipeline_io.load(path, max_bytes=size - 1)


def test_a_set_of_categorical_names_is_written_sorted():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({3: rng.choice([1, 2], 40), 20: rng.choice([5, 7], 40)})
    pipe = make_model("laplace", categorical={3, 20}).fit(frame, rng.choice(["a", "b"], 40))
    assert list({3, 20}) == [3, 20]  # the set's own order differs from the sorted one
    assert json.loads(pipeline_io.dumps(pipe))["preprocessor"]["params"]["categorical"] == [
        "20",
        "3",
    ]
