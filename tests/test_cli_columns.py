"""A column whose name holds a comma (``role,2``) on the command line: ``--categorical`` and
``--drop`` split their value at commas, so no value could name it; a name in double quotes
is one name now (``--categorical '"role,2",zip'``), and the app's commands and the command
line's hints write such a name so that the options read it back."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pandas as pd
import pytest

from explorer.commands import bench_command, fit_command, large_bench_command
from heb.cli import _column_names, build_parser, main
from heb.cli_columns import column_list, split_columns
from heb.evaluate import RunSettings

NAMES = ["role,2", "zip", " pad", "end ", '"quoted"', 'a"b', 'x,"y"', "plain name", "é,ü"]


def test_a_quoted_name_is_one_name_and_plain_lists_read_as_before():
    assert split_columns('"role,2",zip') == ["role,2", "zip"]
    assert split_columns(' "role,2" , zip ') == ["role,2", "zip"]
    assert split_columns('"a ""b"""') == ['a "b"']
    assert split_columns("leak, a ,,b,") == ["leak", "a", "b"]  # as before: trimmed, no ''
    assert split_columns('a"b,c') == ['a"b', "c"]  # a quote inside a plain name is text


@pytest.mark.parametrize("value", ['"role,2', '"role"2,zip', 'zip,"a""'])
def test_a_quote_left_open_or_text_after_it_is_refused(value):
    with pytest.raises(ValueError, match="quote"):
        split_columns(value)


def test_every_name_reads_back_from_its_list():
    assert split_columns(column_list(NAMES)) == NAMES
    for name in NAMES:
        assert split_columns(column_list([name])) == [name]
    assert column_list(["a", "b c"]) == "a,b c"  # a list without such names, as before


def _parsed(words: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The columns ``--categorical`` and ``--drop`` name in the command ``words`` (after
    ``python -m heb``), as the command line's parser and readers get them from a shell."""
    words = shlex.split(shlex.join(words))  # as a shell hands them over
    args = build_parser().parse_args(words[3:])
    return _column_names(args.categorical), _column_names(args.drop, "--drop")


def test_the_apps_commands_name_the_same_columns_through_argparse():
    categorical, drop = ["role,2", "zip", " pad", '"q"'], ["a,b", "id"]
    upload = {"filename": "f.csv", "target": "y", "categorical": categorical, "drop": drop}
    settings = RunSettings()
    bench = bench_command("upload:x", upload, ["HEB-M"], settings)
    fit = fit_command("upload:x", upload, "HEB-M", settings, (10, 10))
    large = large_bench_command("f.parquet", "y", ["HEB-M"], settings, categorical, drop)
    for command in (bench, fit, large):
        got_categorical, got_drop = _parsed(command.words)
        assert sorted(got_categorical) == sorted(categorical)
        assert sorted(got_drop) == sorted(drop)
        assert not [note for note in command.notes if "cannot be typed" in note], command.notes


@pytest.fixture
def comma_file(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    role = rng.integers(100, 130, n)
    frame = pd.DataFrame(
        {"role,2": role, "zip": rng.integers(10000, 10040, n), "y": np.where(role % 3, "a", "b")}
    )
    path = tmp_path / "roles.csv"
    frame.to_csv(path, index=False)
    return path


def test_fit_reads_a_quoted_name_as_categories(comma_file, tmp_path, capsys):
    out = tmp_path / "model.json"
    words = ["fit", str(comma_file), "--target", "y", "-o", str(out)]
    assert main([*words, "--categorical", '"role,2",zip']) == 0
    features = json.loads(out.read_text())["preprocessor"]["features"]
    assert {f["name"]: f["kind"] for f in features} == {
        "role,2": "categorical",
        "zip": "categorical",
    }
    # the option repeated, and --drop alike
    assert main([*words, "--categorical", '"role,2"', "--drop", "zip"]) == 0
    features = json.loads(out.read_text())["preprocessor"]["features"]
    assert [(f["name"], f["kind"]) for f in features] == [("role,2", "categorical")]


def test_an_open_quote_is_one_line_naming_the_option(comma_file, tmp_path, capsys):
    words = ["fit", str(comma_file), "--target", "y", "-o", str(tmp_path / "m.json")]
    with pytest.raises(SystemExit) as exc:
        main([*words, "--drop", '"role,2'])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heb: --drop: '\"role,2' opens a quote") and "\n" not in err


def test_the_engines_drop_hint_for_a_column_with_a_comma_runs(tmp_path, capsys):
    """A parquet column of lists named "tags,2": the engine's sentence named ``--drop
    tags,2``, which leaves out the columns tags and 2; it quotes the name, and runs."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame(
        {
            "tags,2": [["new", "sale"][: i % 3] for i in range(n)],
            "a": rng.choice(list("abc"), n),
            "y": rng.choice(["yes", "no"], n),
        }
    )
    path = tmp_path / "orders.parquet"
    frame.to_parquet(path, index=False)
    common = ["--engine", "duckdb", "--tables", "1", "--folds", "3", "--no-figures"]
    common += ["--no-cache", "-o", str(tmp_path / "out")]
    assert main(["bench", str(path), *common]) == 2
    err = capsys.readouterr().err
    hint = """--drop '"tags,2"'"""
    assert hint in err, err
    assert main(["bench", str(path), *common, *shlex.split(hint)]) == 0
