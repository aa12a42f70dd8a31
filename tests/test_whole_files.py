"""``heb bench`` output written whole or not at all (heb.whole_files): a run stopped while
it writes leaves the earlier file, or none, and no temporary file."""

from __future__ import annotations

import pandas as pd
import pytest

from heb.cli import main
from heb.whole_files import copy_whole, whole_file


def test_a_block_that_raises_leaves_the_earlier_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "t1.csv"
    target.write_text("earlier\n")
    with pytest.raises(KeyboardInterrupt):
        with whole_file(target) as temp:
            temp.write_text("half a ro")
            raise KeyboardInterrupt
    assert target.read_text() == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t1.csv"]


def test_a_whole_write_replaces_the_file_and_keeps_no_suffix_for_pandas(tmp_path):
    target = tmp_path / "folds.csv.gz"  # pandas would gzip a temporary "x.gz"
    with whole_file(target) as temp:
        assert temp.parent == tmp_path and temp.name.startswith(".folds.csv.gz.")
        assert temp.suffix == ".part"
        pd.DataFrame({"a": [1, 2]}).to_csv(temp, index=False)
    assert target.read_text() == "a\n1\n2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["folds.csv.gz"]
    copy_whole(target, tmp_path / "copy.csv")
    assert (tmp_path / "copy.csv").read_bytes() == target.read_bytes()


def test_bench_stopped_while_writing_a_table_leaves_no_part_of_it(tmp_path, monkeypatch, capsys):
    """Before, the CSV was written in place: Ctrl-C mid-write left a table cut mid-row."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    written = pd.DataFrame.to_csv
    calls = {"n": 0}

    def stopped_on_the_second_table(self, path, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # folds.csv, a first table, then Ctrl-C half-way through
            with open(path, "w") as handle:
                handle.write(self.to_string()[:40])
            raise KeyboardInterrupt
        return written(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", stopped_on_the_second_table)
    out = tmp_path / "out"
    args = ["bench", "builtin:iris", "--folds", "3", "--no-figures", "--no-cache", "-o", str(out)]
    assert main(args) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "heb: Interrupted."
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.startswith(".") or n.endswith(".part")], names
    csvs = [n for n in names if n.endswith(".csv")]
    assert len(csvs) == 2 and "folds.csv" in csvs, names  # the third never appeared
    for name in csvs:
        pd.read_csv(out / name)  # whole


def test_a_full_disk_while_writing_is_one_line_naming_the_file_and_exit_1(
    tmp_path, monkeypatch, capsys
):
    import errno

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))

    def full(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    out = tmp_path / "out"
    args = ["bench", "builtin:iris", "--folds", "3", "--no-figures", "--no-cache", "-o", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"heb: No space left on device ({out / 'folds.csv'}).", err
    assert "Traceback" not in "\n".join(err)
    assert list(out.iterdir()) == []
