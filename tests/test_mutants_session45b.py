"""Session 45's second mutation pass: ``heb bench --methods`` ranks over 2+ datasets and the
Benchmark page's command box, each test killing a mutant the earlier tests let live, and
two bugs of the Benchmark's command found on the way.

The bugs: a Benchmark of a named dataset and an upload read with a chosen target gave
``heb bench builtin:iris a.csv --target y ...``, which heb bench refuses (``--target`` names
a data file's class column); and an upload still waiting for its target, which the page's
run skips, was named in the command, which read it with heb bench's own default target.
"""

from __future__ import annotations

import pandas as pd
import pytest

from explorer.commands import (
    NO_TARGET_LEFT_OUT,
    RANKED,
    TARGET_AND_NAMED,
    benchmark_command,
)
from heb.cli import main
from heb.evaluate import RunSettings


def _iris_file(folder) -> str:
    from sklearn.datasets import load_iris

    frame = load_iris(as_frame=True).frame
    frame.columns = ["a", "b", "c", "d", "kind"]
    frame["kind"] = frame["kind"].map({0: "x", 1: "y", 2: "z"})
    frame.insert(0, "id", range(len(frame)))
    frame.to_csv(folder / "flowers.csv", index=False)
    return "flowers.csv"


# ------------------------------------------------------------------ the Benchmark's uploads
def test_an_upload_read_with_a_target_beside_a_named_dataset_is_not_one_command(
    tmp_path, monkeypatch, capsys
):
    """heb bench refuses --target with a named dataset: the page says why instead."""
    upload = {"filename": "flowers.csv", "target": "kind", "categorical": [], "drop": []}
    specs = ["builtin:wine", "upload:1"]
    command = benchmark_command(specs, {"upload:1": upload}, ["Laplace", "KT"], RunSettings())
    assert command.words == ()
    assert command.notes == (
        TARGET_AND_NAMED.format(named="'builtin:wine'", names="'flowers.csv'", target="'kind'"),
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    _iris_file(tmp_path)
    with pytest.raises(SystemExit):  # the command it gave before
        main(["bench", "builtin:wine", "flowers.csv", "--target", "kind",
              "--methods", "Laplace,KT", "--folds", "3", "-o", "out"])  # fmt: skip
    assert "--target names the class column of a data file" in capsys.readouterr().err


def test_an_upload_read_with_its_default_target_beside_a_named_dataset_runs(tmp_path, monkeypatch):
    """No --target: a named dataset and an upload share one command, whose ranks are
    written."""
    upload = {"filename": "flowers.csv", "target": None, "categorical": [], "drop": ["id"]}
    specs = ["builtin:wine", "upload:1"]
    command = benchmark_command(specs, {"upload:1": upload}, ["Laplace", "KT"], RunSettings())
    assert command.words[4:] == (
        "builtin:wine", "flowers.csv", "--drop", "id", "--methods", "Laplace,KT", "--folds", "10",
    )  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    _iris_file(tmp_path)
    words = [*command.words[4:-1], "3", "-o", "out", "--no-figures"]
    assert main(["bench", *words]) == 0
    ranks = pd.read_csv(tmp_path / "out" / "methods_mean_ranks.csv")
    assert list(ranks.columns)[1:3] == ["Laplace", "KT"]


def test_an_upload_waiting_for_its_target_is_left_out_and_said():
    """The page's run skips an upload with no target yet; so does its command."""
    waiting = {"filename": "raw.csv", "target": None, "needs_target": True}
    ready = {"filename": "b.csv", "target": "y", "categorical": [], "drop": []}
    uploads = {"upload:1": waiting, "upload:2": ready}
    specs = ["upload:1", "upload:2", "upload:3"]
    command = benchmark_command(specs, {**uploads, "upload:3": {**ready, "filename": "c.csv"}},
                                ["Laplace", "KT"], RunSettings())  # fmt: skip
    assert "raw.csv" not in command.text
    assert command.words[4:8] == ("b.csv", "c.csv", "--target", "y")
    assert command.notes[0] == NO_TARGET_LEFT_OUT.format(names="'raw.csv'", verb="has", them="it")
    two = benchmark_command(
        ["builtin:iris", "upload:1", "upload:4", "builtin:wine"],
        {"upload:1": waiting, "upload:4": {**waiting, "filename": "raw2.csv"}},
        ["Laplace", "KT"],
        RunSettings(),
    )
    assert two.words[4:6] == ("builtin:iris", "builtin:wine")
    assert two.notes[0] == NO_TARGET_LEFT_OUT.format(
        names="'raw.csv', 'raw2.csv'", verb="have", them="them"
    )
    chosen = {**waiting, "target": "kind"}  # a target chosen since: named again
    assert "raw.csv" in benchmark_command(
        ["upload:1", "upload:2"], {"upload:1": chosen, "upload:2": {**ready, "target": "kind"}},
        ["Laplace"], RunSettings()
    ).words  # fmt: skip
    assert RANKED in command.notes
