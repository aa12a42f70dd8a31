"""An analyst's partitioned click logs, tried from a fresh clone (trial Q): what it found.

Parquet files beside a table's partitions dropped the partitions' rows without a word; a
pandas index stored in the files (``__index_level_0__``) became the default target on the
engine path, though the in-memory reader drops it; a method's name read ``HEB\\-H`` in
Compare's "not run" note; a table partitioned by its class defaulted to another target
without a word; and ``heb bench --engine spark`` started Spark (about 10 s) before it found
that the path did not exist.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, offered_csvs, open_app, unescape

from explorer import large_files as lf
from heb import cli_scale
from heb.cli import main
from heb.data import DataError
from heb.scale import DATA_ROOT_ENV, DuckDBEngine, open_source
from tests.engine_agreement import assert_same


def _frame(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    click = rng.choice(["0", "1"], rows, p=[0.7, 0.3])
    device = np.where(rng.random(rows) < 0.6, np.where(click == "1", "phone", "desk"), "tab")
    return pd.DataFrame({"device": device, "hour": rng.integers(0, 24, rows), "click": click})


def test_case_parquet_files_beside_partitions(tmp_path):
    table = tmp_path / "mixed"
    (table / "date=1").mkdir(parents=True)
    _frame(50, 1).to_parquet(table / "part-0.parquet", index=False)
    _frame(50, 2).to_parquet(table / "date=1" / "part-0.parquet", index=False)
    with pytest.raises(DataError) as caught:
        open_source("mixed", tmp_path)
    assert str(caught.value) == (
        "The folder 'mixed' holds parquet files ('part-0.parquet') beside partition folders "
        "('date=1'); move the files into a partition, or give one partition alone."
    )
    assert open_source("mixed/date=1", tmp_path).partition_keys == ()  # one partition reads
    (table / "part-0.parquet").unlink()
    assert open_source("mixed", tmp_path).partition_keys == ("date",)
    # a folder of files named otherwise says how parquet files are found
    (tmp_path / "hive").mkdir()
    (tmp_path / "hive" / "000000_0").write_bytes(b"PAR1")
    with pytest.raises(DataError, match=r"holds no parquet file \(parquet files are found by"):
        open_source("hive", tmp_path)


def test_case_pandas_index_in_parquet_on_the_engine(tmp_path):
    frame = _frame(400, 3)
    kept = frame[frame["hour"] != 5]  # a filtered frame: its index is stored as a column
    kept.iloc[:150].to_parquet(tmp_path / "part-0.parquet")
    kept.iloc[150:].reset_index(drop=True).to_parquet(tmp_path / "part-1.parquet", index=False)
    (tmp_path / "other").mkdir()
    frame.set_index("hour").to_parquet(tmp_path / "other" / "by_hour.parquet")  # named index
    folder = open_source(".", tmp_path)  # one file has the index column, one has none
    assert folder.index_columns == ("__index_level_0__",)
    engine = DuckDBEngine(threads=1)
    assert [name for name, _ in engine.register(folder)] == ["device", "hour", "click"]
    assert_same(engine, kept.reset_index(drop=True), "click", k=3, methods=("Laplace",))
    source = open_source("other/by_hour.parquet", tmp_path)
    assert source.index_columns == ("hour",)
    assert [name for name, _ in engine.register(source)] == ["device", "click"]


def test_heb_bench_on_a_folder_with_an_index_takes_the_last_data_column_as_target(tmp_path, capsys):
    frame = _frame(300, 4)
    frame[frame["hour"] > 2].to_parquet(tmp_path / "clicks.parquet")  # keeps the index
    out = tmp_path / "out"
    argv = [str(tmp_path / "clicks.parquet"), "--engine", "duckdb", "--folds", "3"]
    assert main(["bench", *argv, "--tables", "1", "-o", str(out), "--no-cache"]) == 0
    printed = capsys.readouterr()
    assert "target 'click'" in printed.out + printed.err


def test_a_bad_path_is_refused_before_the_engine_starts(tmp_path, monkeypatch, capsys):
    def never(*args, **kwargs):
        raise AssertionError("the engine started before the input was checked")

    monkeypatch.setattr(cli_scale, "open_engine", never)
    missing = str(tmp_path / "nowhere.parquet")
    assert main(["bench", missing, "--engine", "spark", "-o", str(tmp_path / "o")]) == 2
    assert "There is no file or folder" in capsys.readouterr().err
    (tmp_path / "mixed" / "date=1").mkdir(parents=True)
    _frame(20, 5).to_parquet(tmp_path / "mixed" / "a.parquet", index=False)
    argv = [str(tmp_path / "mixed"), "--engine", "spark", "-o", str(tmp_path / "o")]
    assert main(["bench", *argv]) == 2
    assert "beside partition folders ('date=1')" in capsys.readouterr().err


@pytest.fixture
def by_class(tmp_path, monkeypatch):
    """``clicks/click=0/``, ``clicks/click=1/``: a table partitioned by its class."""
    frame = _frame(300, 6)
    for value, part in frame.groupby("click"):
        folder = tmp_path / "clicks" / f"click={value}"
        folder.mkdir(parents=True)
        part.drop(columns="click").to_parquet(folder / "part-0.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def test_a_table_partitioned_by_its_class_says_the_key_can_be_the_target(by_class):
    at = open_app("pages/dataset.py", clean=False, large_file="clicks/")
    assert_clean(at)
    note = lf.partition_keys_note(("click",))
    assert note == (
        "The partition key 'click' is a column too, listed first: if the table is "
        "partitioned by its class, choose that key as the target."
    )
    assert note in [unescape(c.value) for c in at.caption]
    assert at.selectbox(key="large_target:clicks/").value == "hour"
    at.selectbox(key="large_target:clicks/").set_value("click").run()
    assert_clean(at)
    assert note not in [unescape(c.value) for c in at.caption]  # the key is the target
    assert lf.partition_keys_note(("country", "date")).startswith(
        "The partition keys 'country' and 'date' are columns too"
    )


def test_compares_not_run_note_names_each_method_once_escaped(by_class):
    at = open_app("pages/compare.py", clean=False, large_file="clicks/", methods="Laplace,HEB-H")
    infos = [unescape(i.value) for i in at.info]
    assert any(text.startswith("Not run on the large file: HEB-H, because") for text in infos)
    assert not [text for text in infos if "\\" in text], infos


def test_a_key_column_in_one_partition_s_files_is_named_as_the_key_clash(tmp_path):
    """A column named like the key in the second partition's file only was refused as a
    column some files lack, whose advice (give every file the column) led to the clash."""
    for day in (1, 2):
        (tmp_path / "t" / f"date={day}").mkdir(parents=True)
    _frame(20, 7).to_parquet(tmp_path / "t" / "date=1" / "part-0.parquet", index=False)
    clashing = _frame(20, 8).assign(date="2")
    clashing.to_parquet(tmp_path / "t" / "date=2" / "part-0.parquet", index=False)
    with pytest.raises(DataError) as caught:
        open_source("t", tmp_path)
    assert str(caught.value) == (
        "Column 'date' of 't/date=2/part-0.parquet' is also the partition key 'date' of its "
        "table; rename the column or the key."
    )


def test_a_two_level_table_lists_its_middle_partitions_as_tables(tmp_path):
    """``geo/country=DE/`` holds a table keyed by date; the picker listed only ``geo/`` and
    the leaves, though a link to the middle one read it."""
    for country in ("DE", "FR"):
        for day in (1, 2):
            folder = tmp_path / "geo" / f"country={country}" / f"date={day}"
            folder.mkdir(parents=True)
            _frame(20, day).to_parquet(folder / "part-0.parquet", index=False)
    assert lf.list_sources(tmp_path) == [
        "geo/",
        "geo/country=DE/",
        "geo/country=DE/date=1/",
        "geo/country=DE/date=2/",
        "geo/country=FR/",
        "geo/country=FR/date=1/",
        "geo/country=FR/date=2/",
    ]
    assert open_source("geo", tmp_path).partition_keys == ("country", "date")
    assert open_source("geo/country=DE", tmp_path).partition_keys == ("date",)


def test_compares_per_fold_csv_names_each_method_s_what_if_setting(monkeypatch):
    """After alpha was turned to 1 the table and its per-fold CSV still read "Lidstone":
    the CSV now says the setting each knob's method ran with (its default included)."""
    from explorer import comparison, display

    frames = offered_csvs(monkeypatch, display)
    methods = "Laplace,Lidstone,m-estimate"
    at = open_app("pages/compare.py", dataset="builtin:iris", methods=methods, folds="5")
    at.segmented_control(key="w_whatif_alpha").set_value(1.0).run()
    assert_clean(at)
    folds = frames["cv-folds"]
    settings = folds.drop_duplicates("method").set_index("method")["setting"].to_dict()
    assert settings == {"Laplace": "", "Lidstone": "alpha = 1", "m-estimate": "m = 2"}
    assert len(folds) == 15 and folds.columns[-1] == "setting"
    table = comparison.with_settings(folds.drop(columns="setting"), {"TE": {"k0": 3}})
    assert set(table["setting"]) == {"", "alpha = 0.1", "m = 2"}  # defaults when not turned
