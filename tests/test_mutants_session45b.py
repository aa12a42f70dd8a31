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


# ------------------------------------------------------------------ the command's lines
def test_an_option_written_with_its_value_takes_no_next_word_with_it():
    """``--target=-x`` is an option and its value in one word: the next option keeps its
    own value on its line, never ``--categorical`` at a line's end."""
    from explorer.commands import bench_command

    column = "c" * 60
    upload = {"filename": "f.csv", "target": "-x", "categorical": [column], "drop": []}
    command = bench_command("upload:1", upload, ["Laplace"], RunSettings())
    lines = command.text.splitlines()
    assert lines[:2] == ["python -m heb bench f.csv --target=-x \\", f"  --categorical {column} \\"]


# --------------------------------------------------------------- the Benchmark's command
def test_the_benchmarks_command_gives_the_file_options_and_settings_of_its_uploads():
    """File names heb bench would misread get ``./``; a target like an option is one word;
    the left-out columns and a row cap are given; the uploads' path note is said."""
    one = {"filename": "car", "target": "-x", "categorical": ["b", "a"], "drop": ["id"]}
    two = {"filename": "-y.csv", "target": "-x", "categorical": ["a", "b"], "drop": ["id"]}
    uploads = {"upload:1": one, "upload:2": two}
    command = benchmark_command(
        ["upload:1", "upload:2"], uploads, ["Laplace", "KT"], RunSettings(max_rows=500)
    )  # the same columns, listed in another order: one command
    assert command.words[4:] == (
        "./car", "./-y.csv", "--target=-x", "--categorical", "a,b", "--drop", "id",
        "--methods", "Laplace,KT", "--folds", "10", "--max-rows", "500",
    )  # fmt: skip
    assert any(note.startswith("Write the uploads' paths") for note in command.notes)
    assert command.notes[-1] == RANKED


def test_an_empty_target_is_the_default_one_and_left_out_columns_must_agree():
    """A target of '' and of None both leave the reader's default: one command; uploads
    leaving out different columns cannot share one."""
    from explorer.commands import UPLOADS_DIFFER

    one = {"filename": "a.csv", "target": "", "categorical": [], "drop": ["id"]}
    two = {"filename": "b.csv", "target": None, "categorical": [], "drop": ["id"]}
    specs = ["upload:1", "upload:2"]
    command = benchmark_command(specs, {"upload:1": one, "upload:2": two}, ["KT"], RunSettings())
    assert command.words[4:8] == ("a.csv", "b.csv", "--drop", "id")
    other = {**two, "drop": ["row"]}
    refused = benchmark_command(specs, {"upload:1": one, "upload:2": other}, ["KT"], RunSettings())
    assert refused.words == ()
    assert refused.notes == (UPLOADS_DIFFER.format(names="'a.csv', 'b.csv'"),)


def test_why_no_one_command_runs_is_shown_escaped(monkeypatch):
    """The box shows the reason (it names the user's files) as written, not as markdown,
    and no command."""
    import contextlib

    import streamlit as st

    from explorer import commands

    shown: list[str] = []
    monkeypatch.setattr(commands, "lazy_expander", lambda *a, **k: contextlib.nullcontext())
    monkeypatch.setattr(st, "code", lambda *a, **k: shown.append("CODE"))
    monkeypatch.setattr(st, "caption", lambda text, **k: shown.append(text))
    one = {"filename": "*a*.csv", "target": "y", "categorical": [], "drop": []}
    two = {"filename": "b.csv", "target": "z", "categorical": [], "drop": []}
    command = benchmark_command(
        ["upload:1", "upload:2"], {"upload:1": one, "upload:2": two}, ["KT"], RunSettings()
    )
    commands.show_benchmark_command(command)
    from explorer.errors import escape

    assert shown == [escape(command.notes[0])] and "\\*a\\*" in shown[0]


def test_the_benchmark_page_offers_the_command_of_its_upload_before_a_run():
    """The box is there before a run; an upload among the datasets is named by its file."""
    from test_app import assert_clean, open_app, uploader

    from explorer.commands import BENCHMARK_COMMAND_OPEN

    rows = "\n".join(["a,b,class", *(f"{i % 3},{i % 5},{'xy'[i % 2]}" for i in range(60))])
    at = open_app(methods="Laplace,KT")
    uploader(at).upload("small.csv", rows.encode(), "text/csv").run()
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="w_bench_datasets").set_value(
        [at.session_state["data_spec"], "builtin:iris"]
    ).run()
    at.session_state[BENCHMARK_COMMAND_OPEN] = True
    at.run()
    assert_clean(at)
    (text,) = [c.value for c in at.code if c.value.startswith("python -m heb bench")]
    assert text == "python -m heb bench small.csv builtin:iris --methods Laplace,KT --folds 10"


# ------------------------------------------------------------------ heb bench's CD diagrams
def _scores(methods, datasets=("a", "b", "c")) -> pd.DataFrame:
    import numpy as np

    from heb.registry import METRICS

    rng = np.random.default_rng(3)
    rows = [
        {"dataset": d, "method": m, "fold": k, "variant": "main",
         **{metric: rng.random() for metric in METRICS}}
        for d in datasets for m in methods for k in range(2)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_table_1s_cd_diagram_ranks_its_seven_smoothers_alone(tmp_path, monkeypatch):
    """A paper run's frame holds more methods than Table 1's (Table 2's AODE here): its CD
    diagram ranks the seven smoothers, as Table 1 does."""
    from heb.cli import _figures
    from heb.registry import TABLE1_METHODS

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    frame = _scores([*TABLE1_METHODS, "AODE"])
    written = _figures(frame, tmp_path, [1, 2], lambda line: None)
    assert "cd_log_loss.svg" in written
    svg = (tmp_path / "cd_log_loss.svg").read_text()
    assert "Laplace" in svg and "AODE" not in svg


# ------------------------------------------------------------- heb bench --methods ranks
RANKS_DATASETS = ["builtin:iris", "builtin:breast-cancer"]


def _methods_run(out, *extra: str) -> int:
    return main(["bench", *RANKS_DATASETS, "--methods", "laplace,kt", "--folds", "3",
                 "-o", str(out), "--no-figures", *extra])  # fmt: skip


def test_a_methods_run_cached_before_the_ranks_is_recomputed_with_them(
    tmp_path, capsys, monkeypatch
):
    """A --methods run cached before ranks were written (its key had no "ranks") is not
    served: it would print and write no ranks."""
    import heb.cli as cli

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    real_key, real_write = cli.cache_key, cli._write_tables

    def old_key(*parts):
        return real_key(
            *[{k: v for k, v in p.items() if k != "ranks"} if isinstance(p, dict) else p
              for p in parts]
        )  # fmt: skip

    def old_write(frame, tables, out, cache, key, n_bins, methods=()):
        return real_write(frame, tables, out, cache, key, n_bins)

    with monkeypatch.context() as before:  # the run as the code before wrote it
        before.setattr(cli, "cache_key", old_key)
        before.setattr(cli, "_write_tables", old_write)
        assert _methods_run(tmp_path / "before") == 0
    assert not (tmp_path / "before" / "methods_mean_ranks.csv").exists()
    capsys.readouterr()
    assert _methods_run(tmp_path / "now") == 0
    said = capsys.readouterr()
    assert "from the cache" not in said.err
    assert (tmp_path / "now" / "methods_mean_ranks.csv").exists()
    assert "# Mean Friedman ranks of the chosen methods" in said.out


def test_the_ranks_are_printed_apart_from_the_mean_sd_table(tmp_path, capsys, monkeypatch):
    """A blank line between the two markdown tables: without it the heading runs on from
    the last row of the first."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    assert _methods_run(tmp_path / "out") == 0
    out = capsys.readouterr().out
    summary = (tmp_path / "out" / "summary_mean_sd.md").read_text().rstrip()
    ranks = (tmp_path / "out" / "methods_mean_ranks.md").read_text().rstrip()
    assert out == f"{summary}\n\n{ranks}\n"


def test_a_paper_tables_run_writes_no_methods_ranks(tmp_path, capsys, monkeypatch):
    """Without --methods, Table 1 ranks the smoothers: no methods_mean_ranks beside it."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert main(["bench", *RANKS_DATASETS, "--tables", "1", "--folds", "2", "-o", str(out),
                 "--no-figures"]) == 0  # fmt: skip
    said = capsys.readouterr()
    assert (out / "table1_mean_ranks.csv").exists()
    assert not list(out.glob("methods_mean_ranks.*"))
    assert "methods_mean_ranks" not in said.err and said.out == ""


def test_no_cache_computes_again_and_prints_the_ranks(tmp_path, capsys, monkeypatch):
    """--no-cache serves nothing from the cache, even a run it holds."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    assert _methods_run(tmp_path / "out") == 0
    capsys.readouterr()
    assert _methods_run(tmp_path / "out", "--no-cache") == 0
    said = capsys.readouterr()
    assert "from the cache" not in said.err
    assert "# Mean Friedman ranks of the chosen methods" in said.out
