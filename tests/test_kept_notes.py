"""A reader's note on several columns ("Column 'ordered' (and 1 more column) holds dates
...") once some are left out: it went on naming the column left out (and counting it) on
the upload path and under ``heb bench --drop``; it is now said again for the columns
kept, as reading the file without the columns left out says it."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import load_upload
from heb.data.column_notes import ColumnsNote, comma_note, date_note, kept_notes, mixed_note

ROWS = 200


def _orders() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 200, ROWS), unit="D")
    return pd.DataFrame(
        {
            "ordered": days.strftime("%Y-%m-%d"),
            "shipped": (days + pd.Timedelta("40D")).strftime("%Y-%m-%d"),
            "size": np.where(rng.random(ROWS) < 0.1, "XL", rng.integers(1, 5, ROWS).astype(str)),
            "weight": np.where(
                rng.random(ROWS) < 0.1, "n/a?", rng.integers(1, 9, ROWS).astype(str)
            ),
            "channel": rng.choice(["web", "app"], ROWS),
            "returned": rng.choice(["yes", "no"], ROWS),
        }
    )


def _notes(frame: pd.DataFrame, drop=()) -> list[str]:
    return load_upload(frame.to_csv(index=False).encode(), "o.csv", drop=list(drop)).notes


def _about_columns(notes) -> list[str]:
    return [note for note in notes if note.startswith("Column")]


@pytest.mark.parametrize(
    "drop", [["ordered"], ["shipped"], ["ordered", "shipped"], ["size"], ["ordered", "weight"]]
)
def test_the_upload_notes_name_only_the_columns_kept(drop):
    frame = _orders()
    notes = _about_columns(_notes(frame, drop))
    # as if the file had not held the columns left out
    assert notes == _about_columns(_notes(frame.drop(columns=drop)))
    assert not [note for note in notes if any(repr(c) in note for c in drop)], notes


def test_the_note_names_the_next_column_when_the_first_is_left_out():
    notes = _notes(_orders(), ["ordered"])
    assert any(note.startswith("Column 'shipped' holds dates such as '2024-") for note in notes)
    assert not any("more column" in note and "dates" in note for note in notes), notes
    assert any(note.startswith("Column 'size' (and 1 more column) mixes numbers") for note in notes)


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]], ids=["memory", "duckdb"])
def test_bench_drop_says_the_date_note_of_the_column_kept(tmp_path, capsys, engine):
    if engine:
        pytest.importorskip("duckdb")
    path = tmp_path / "orders.csv"
    _orders().to_csv(path, index=False)
    common = ["--methods", "HEB-M", "--folds", "3", "--no-figures", "--no-cache"]
    common += ["--target", "returned", "-o", str(tmp_path / "out")]
    capsys.readouterr()
    assert main(["bench", str(path), *engine, *common, "--drop", "ordered,size"]) == 0
    err = capsys.readouterr().err
    assert "Column 'shipped' holds dates such as" in err, err
    assert "Column 'weight' mixes numbers and text" in err
    assert "'ordered' (and" not in err and "'size' (and" not in err, err


def test_a_columns_note_is_text_that_keeps_its_columns_through_copies():
    note = ColumnsNote(date_note, [("a", "2024-01-02", 30), ("b", "2023-05-06", 40)])
    assert note == date_note("a", "2024-01-02", 30, 1) and note.columns == ["a", "b"]
    # copy and deepcopy rebuild it through __reduce__, as pickling would (no bytes are
    # unpickled here: the house never loads pickles)
    for again in (copy.copy(note), copy.deepcopy(note)):
        assert type(again) is ColumnsNote and again == note
        assert again.without(["a"]) == date_note("b", "2023-05-06", 40)
    assert note.without(["c"]) is note and note.without(["a", "b"]) is None


def test_an_engines_note_names_the_first_kept_column_whose_example_it_read():
    """The DuckDB path reads the examples of the first few columns of a kind alone (a
    query each): a column kept without one is counted, never named with an example it
    lacks, and a note with none to name is not said (it would name a column left out)."""
    note = ColumnsNote(mixed_note, [("a", "x"), ("b", None), ("c", "z"), ("d", None)])
    assert note == mixed_note("a", "x", 3)
    assert kept_notes([note], ["b"]) == [mixed_note("a", "x", 2)]
    assert kept_notes([note], ["a"]) == [mixed_note("c", "z", 2)]
    assert kept_notes([note], ["a", "c"]) == []
    assert kept_notes([note, "Column 'b' holds codes ..."], ["a", "b", "c", "d"]) == []


def test_the_engine_reads_the_examples_of_the_first_columns_of_a_note(tmp_path):
    pytest.importorskip("duckdb")
    from heb.scale.csv_notes import NAMED_EXAMPLES
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source

    rng = np.random.default_rng(1)
    width = NAMED_EXAMPLES + 1
    mixed = {f"m{j}": np.where(rng.random(ROWS) < 0.2, f"t{j}", "1") for j in range(width)}
    frame = pd.DataFrame({**mixed, "y": rng.choice(["a", "b"], ROWS)})
    frame.to_csv(tmp_path / "wide.csv", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("wide.csv", root=tmp_path))
    (note,) = [n for n in engine.notes if "mixes numbers" in n]
    assert [entry[1] for entry in note.entries] == [f"t{j}" for j in range(NAMED_EXAMPLES)] + [None]
    assert kept_notes([note], ["m0"])[0].startswith(
        f"Column 'm1' (and {width - 2} more columns) mixes numbers and text such as 't1'"
    )


# ------------------------------------------------ numbers written with a comma, several
#: two columns of numbers with a decimal comma in a tab-separated file, a shop and a label
COMMAS = b"price\tweight\tshop\tlabel\n" + b"55,03\t1,5\ta\tyes\n12,5\t2,25\tb\tno\n" * 10
COMMA_END = (
    "which in a tab-separated file may be a decimal or a thousands separator, so it is "
    "treated as categorical; save the file with decimal points to read them as numbers."
)


def _comma_notes(notes) -> list[str]:
    return [note for note in notes if "written with a comma" in note]


def test_the_comma_note_names_every_such_column_and_those_kept():
    """It named the first column alone; and once that one was left out, none at all (the
    note about 'price' alone was dropped), though 'weight' was read the same way."""
    (note,) = _comma_notes(load_upload(COMMAS, "t.tsv").notes)
    assert note == (
        f"Column 'price' (and 1 more column) holds numbers written with a comma such as "
        f"'55,03', {COMMA_END}"
    )
    assert isinstance(note, ColumnsNote) and note.columns == ["price", "weight"]
    kept = _comma_notes(load_upload(COMMAS, "t.tsv", drop=["price"]).notes)
    assert kept == [
        f"Column 'weight' holds numbers written with a comma such as '1,5', {COMMA_END}"
    ]
    assert _comma_notes(load_upload(COMMAS, "t.tsv", drop=["price", "weight"]).notes) == []
    (one,) = _comma_notes(load_upload(COMMAS, "t.tsv", drop=["weight"]).notes)
    assert one == comma_note("price", "55,03", "tab-separated")


def test_the_engine_names_every_comma_column_as_the_upload_does(tmp_path, capsys):
    pytest.importorskip("duckdb")
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source

    (tmp_path / "t.tsv").write_bytes(COMMAS)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("t.tsv", root=tmp_path))
    (note,) = _comma_notes(engine.notes)
    assert note == _comma_notes(load_upload(COMMAS, "t.tsv").notes)[0]
    assert kept_notes([note], ["price"]) == _comma_notes(
        load_upload(COMMAS, "t.tsv", drop=["price"]).notes
    )
    common = ["--methods", "HEB-M", "--folds", "2", "--no-figures", "--no-cache"]
    common += ["--target", "label", "-o", str(tmp_path / "out"), "--engine", "duckdb"]
    capsys.readouterr()
    assert main(["bench", str(tmp_path / "t.tsv"), *common, "--drop", "price"]) == 0
    err = capsys.readouterr().err
    assert "Column 'weight' holds numbers written with a comma such as '1,5'" in err, err
