"""Hive-style partition folders (``events/date=1/part-0.parquet``): each partition is offered
and read as a table of its own, and the page and the engine say so (a user picking one
partition, or the table's folder, was told nothing about the key column left out)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, unescape

from explorer import large_files as lf
from heb.data import DataError
from heb.scale.source import DATA_ROOT_ENV, open_source


@pytest.fixture
def partitioned(tmp_path, monkeypatch):
    for day in (1, 2):
        rng = np.random.default_rng(day)
        folder = tmp_path / "events" / f"date={day}"
        folder.mkdir(parents=True)
        colour, y = rng.choice(["r", "g"], 60), rng.choice(["a", "b"], 60)
        frame = pd.DataFrame({"colour": colour, "y": y})
        frame.to_parquet(folder / "part-0.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def test_a_partition_folder_is_named_as_one(partitioned):
    assert lf.list_sources(partitioned) == ["events/date=1/", "events/date=2/"]
    assert [lf.is_partition(n) for n in ("events/date=1/", "date=1/", "a=b.parquet")] == [
        True,
        True,
        False,
    ]
    assert not lf.is_partition("events/plain/") and not lf.is_partition("odd=/")


def test_case_partitioned_table_folder(partitioned):
    with pytest.raises(DataError) as caught:
        open_source("events", partitioned)
    message = str(caught.value)
    assert message.startswith("The folder 'events' holds no parquet file of its own; its ")
    assert "('date=1', ...) are partitions" in message
    assert message.endswith("into one folder of parquet files with the key as a column.")
    empty = partitioned / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match=r"^The folder 'empty' holds no parquet file\.$"):
        open_source("empty", partitioned)


def test_the_picker_says_what_a_partition_is(partitioned):
    at = open_app("pages/dataset.py", clean=False, large_file="events/date=1/")
    assert_clean(at)
    captions = [unescape(c.value) for c in at.caption]
    assert lf.PARTITIONS_NOTE in captions
    # a root without partitions says nothing of them
    (partitioned / "events").rename(partitioned / "moved")
    for day in (1, 2):
        (partitioned / "moved" / f"date={day}").rename(partitioned / f"day{day}")
    plain = open_app("pages/dataset.py", clean=False, large_file="day1/")
    assert_clean(plain)
    assert lf.PARTITIONS_NOTE not in [unescape(c.value) for c in plain.caption]
