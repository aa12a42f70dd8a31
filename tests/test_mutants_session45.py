"""Mutation pass over session 45's change (the ``heb bench`` command boxes, ``user_path``,
the hierarchy section's read-as-categories button): each test here kills a mutant the
change's own tests let live."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from explorer.code_lines import CODE_WIDTH
from explorer.commands import (
    BenchCommand,
    _broken,
    _column_options,
    _typable_column,
    bench_command,
)
from heb.evaluate import RunSettings


def test_a_line_of_exactly_the_width_is_kept_whole():
    """``... \\`` of exactly the code box's width (:data:`CODE_WIDTH`, 80) stays one line:
    the bound is inclusive and counts the continuation's two characters."""
    head = "a" * 10
    value = "x" * (CODE_WIDTH - len(head) - len(" --b ") - len(" \\"))
    text = _broken([head, "--b", value, "--c"])
    first, second = text.split("\n")
    assert first == f"{head} --b {value} \\" and len(first) == CODE_WIDTH == 80
    assert second == "  --c"
    one_more = _broken([head, "--b", value + "x", "--c"]).split("\n")
    assert one_more == [f"{head} \\", f"  --b {value}x --c"]


def test_a_long_file_name_takes_a_line_of_its_own_and_the_program_stays_whole():
    """Lines break between words, never inside ``-m heb``: a name too long for the first
    line goes to the next one whole."""
    name = "d" * 90 + ".csv"
    upload = {"filename": name, "target": "y", "categorical": [], "drop": []}
    text = bench_command("upload:x", upload, ["Laplace"], RunSettings()).text
    assert text.split("\n")[:2] == ["python -m heb bench \\", f"  {name} \\"]
    assert shlex.split(text.replace(" \\\n", " ")) == list(
        BenchCommand(tuple(shlex.split(text.replace(" \\\n", " ")))).words
    )


def test_an_empty_column_name_is_not_typable():
    """``--drop ,a`` would name a column '' the command line cannot give back."""
    notes: list[str] = []
    assert not _typable_column("")
    assert _column_options("--drop", ["", "a"], notes) == ["--drop", "a"]
    assert notes and notes[0].startswith("'' cannot be typed for --drop")


def test_an_upload_read_with_its_default_target_names_no_target():
    """An upload whose target was left to the reader (None) gets no ``--target None``."""
    upload = {"filename": "x.csv", "target": None, "categorical": [], "drop": []}
    command = bench_command("upload:x", upload, ["Laplace"], RunSettings())
    assert command.words == ("python", "-m", "heb", "bench", "x.csv", "--methods", "Laplace",
                             "--folds", "10")  # fmt: skip


# --------------------------------------------------------------- files named ~x (user_path)
def _frame(n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    return pd.DataFrame({"k": rng.choice(list("abc"), n), "y": rng.choice(list("pq"), n)})


def test_fit_and_score_write_and_read_files_named_with_a_tilde(tmp_path, monkeypatch):
    """fit's ``-o ~m.json``, score's model ``~m.json``, rows ``~r.csv`` and ``-o ~s.csv``:
    each that file, not a traceback from pathlib's user lookup."""
    from heb.cli import main

    _frame().to_csv(tmp_path / "~d.csv", index=False)
    _frame(20).drop(columns="y").to_csv(tmp_path / "~r.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "~d.csv", "-o", "~m.json"]) == 0
    assert (tmp_path / "~m.json").is_file()
    assert main(["score", "~m.json", "~r.csv", "-o", "~s.csv"]) == 0
    assert len(pd.read_csv(tmp_path / "~s.csv")) == 20


def test_make_data_writes_a_file_named_with_a_tilde(tmp_path, monkeypatch):
    from heb.cli_scale import make_data

    monkeypatch.chdir(tmp_path)
    assert make_data("clicks", 200, "~c.parquet", features=3) == 0
    assert len(pd.read_parquet(tmp_path / "~c.parquet")) == 200


def test_an_engines_identity_and_size_hint_of_a_file_named_with_a_tilde(tmp_path, monkeypatch):
    from heb.cli import _size_hint
    from heb.cli_scale import engine_identity

    _frame().to_parquet(tmp_path / "~x.parquet", index=False)
    monkeypatch.chdir(tmp_path)
    assert "'~x.parquet'" in engine_identity("~x.parquet")
    assert _size_hint("~x.parquet") == ""  # small: no engine to suggest, and no traceback


def test_a_data_root_named_with_a_tilde_or_under_the_home_folder(tmp_path, monkeypatch):
    """``HEB_DATA_ROOT=~/data`` is under the home folder; ``~zz9`` (no such user) is that
    folder, for the engine's source and the app alike."""
    from explorer.large_files import configured_root
    from heb.scale import DATA_ROOT_ENV
    from heb.scale.source import data_root

    (tmp_path / "~zz9").mkdir()
    monkeypatch.chdir(tmp_path)
    assert data_root("~zz9") == (tmp_path / "~zz9").resolve()
    monkeypatch.setenv(DATA_ROOT_ENV, "~")
    assert configured_root() == Path.home().resolve()
    monkeypatch.setenv(DATA_ROOT_ENV, "~zz9")
    assert configured_root() == (tmp_path / "~zz9").resolve()


def test_a_dot_slash_before_a_users_name_keeps_it_a_local_folder():
    """``./~me/x.csv`` names the folder ``~me`` here, even where user ``me`` exists."""
    import getpass

    from heb.paths import user_path

    me = getpass.getuser()
    assert user_path(f"./~{me}/x.csv") == Path(f"~{me}/x.csv")
    assert user_path(f"~{me}/x.csv") == Path(f"~{me}/x.csv").expanduser()


# ------------------------------------------------------------------ the hierarchy section
@pytest.fixture(scope="module")
def iris_work():
    from test_explain_pipeline_app import page_work

    return page_work("builtin:iris")[1]


def test_binned_declared_columns_each_once_and_none_for_a_column_not_here(iris_work):
    from explorer.hierarchies import binned_declared_columns
    from heb.evaluate.hierarchy_specs import Declared

    items = (
        Declared("petal length (cm)", prefix=(2,)),
        Declared("petal length (cm)", parents=("sepal width (cm)",)),
        Declared("no such column", prefix=(2,)),
    )
    assert binned_declared_columns(iris_work, items) == ["petal length (cm)", "sepal width (cm)"]
    assert binned_declared_columns(iris_work, items[2:]) == []


def test_reading_as_categories_keeps_the_chosen_columns_first_and_each_once(monkeypatch):
    """The button's callback adds the binned columns after the Categorical columns already
    chosen, naming none twice."""
    import streamlit as st

    from explorer import hierarchies

    state = {"uploads": {"upload:x": {"categorical": ["city", "role1"]}}}
    monkeypatch.setattr(st, "session_state", state)
    hierarchies._read_as_categories("upload:x", ["role1", "role2"])
    assert state["uploads"]["upload:x"]["categorical"] == ["city", "role1", "role2"]


def test_a_hierarchy_over_a_column_named_like_a_short_option_reaches_bench(tmp_path, monkeypatch):
    """argparse reads ``--hierarchy '-out -> k'`` as ``--hierarchy`` with no value and
    ``-o 'ut -> k'`` (a word with a space is a value, unless it begins with a short option
    of bench's, ``-o``): the command writes ``--hierarchy=-out -> k``."""
    from heb.cli import main

    rng = np.random.default_rng(5)
    n = 150
    frame = pd.DataFrame(
        {"-out": rng.choice(list("abcdef"), n), "k": rng.choice(list("pq"), n)}
    ).assign(y=rng.choice(list("xy"), n))
    frame["k"] = frame["-out"].map(dict(zip("abcdef", "ppqqrr", strict=True)))
    frame.to_csv(tmp_path / "h.csv", index=False)
    upload = {"filename": "h.csv", "target": "y", "categorical": [], "drop": []}
    settings = RunSettings(n_splits=3, hierarchies='[{"feature":"-out","parents":["k"]}]')
    command = bench_command("upload:h", upload, ["HEB-H"], settings)
    assert "--hierarchy=-out -> k" in command.words
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    words = shlex.split(command.text.replace(" \\\n", " "))
    assert main([*words[3:], "-o", str(tmp_path / "out"), "--no-figures"]) == 0
    assert (tmp_path / "out" / "folds.csv").is_file()


def test_the_read_button_escapes_a_column_name_with_markdown():
    """A binned column named ``role*2`` is named as written on the button (its label is
    markdown)."""
    from test_app import open_app, uploader
    from test_hierarchy_read_as_categories import _declare, _read_button

    from explorer.errors import escape

    rng = np.random.default_rng(4)
    child = rng.integers(0, 60, 600)
    data = pd.DataFrame(
        {
            "role*2": 118000 + child * 7,
            "role_1": 117000 + (child // 5) * 13,
            "label": rng.choice(["no", "yes"], 600),
        }
    )
    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("roles.csv", data.to_csv(index=False).encode(), "text/csv")
    at.run()
    _declare(at, "role*2", "parent column", parent="role_1")
    assert [b.label for b in _read_button(at)] == [
        f"Read {escape('role*2')}, {escape('role_1')} as categories"
    ]


def test_the_hierarchy_sections_command_names_the_uploaded_file():
    """On an upload, the section's command reads the file (its target the last column), not the
    app's ``upload:`` spec, which the command line does not know."""
    from test_app import open_app, uploader
    from test_hierarchy_read_as_categories import _declare

    from explorer.hierarchies import COMMAND_LINE

    rng = np.random.default_rng(6)
    city = rng.choice([f"c{i}" for i in range(12)], 300)
    data = pd.DataFrame(
        {"city": city, "region": [f"r{c[1:]}"[:2] for c in city], "y": rng.choice(["a", "b"], 300)}
    )
    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("towns.csv", data.to_csv(index=False).encode(), "text/csv")
    at.run()
    _declare(at, "city", "parent column", parent="region")
    (command,) = [c.value for c in at.code if "heb bench" in c.value]
    assert command.startswith("python -m heb bench towns.csv --methods HEB-M,HEB-H")
    assert "upload:" not in command and "--hierarchy 'city -> region'" in command
    assert COMMAND_LINE in [c.value for c in at.caption]  # what the command compares


def test_a_large_files_command_caps_no_rows_whatever_the_row_choice():
    """The Rows choice applies to in-memory data: the engine's command counts every row."""
    from explorer.commands import large_bench_command

    command = large_bench_command("c.parquet", "y", ["Laplace"], RunSettings(max_rows=5000))
    assert "--max-rows" not in command.words
    assert bench_command("builtin:iris", None, ["Laplace"], RunSettings(max_rows=5000)).words[
        -2:
    ] == ("--max-rows", "5000")


def test_a_large_files_target_named_like_an_option_is_one_word():
    from explorer.commands import large_bench_command

    command = large_bench_command("c.parquet", "-x", ["Laplace"], RunSettings())
    assert command.words[4:8] == ("c.parquet", "--engine", "duckdb", "--target=-x")


def test_the_notes_under_a_command_are_escaped(monkeypatch):
    """A note names user columns (``'*a*, b'``): shown as written, not as markdown."""
    import streamlit as st

    from explorer.commands import draw_command
    from explorer.errors import escape

    shown: list[str] = []
    monkeypatch.setattr(st, "code", lambda *a, **k: None)
    monkeypatch.setattr(st, "caption", lambda text, **k: shown.append(text))
    draw_command(BenchCommand(("python",), ("'*a*, b' cannot be typed",)))
    assert shown[-1] == escape("'*a*, b' cannot be typed") != "'*a*, b' cannot be typed"


def test_a_large_file_named_like_a_dataset_or_home_is_given_as_a_path():
    from explorer.commands import large_bench_command

    for name in ("~x.parquet", "clicks", "-x.parquet"):
        command = large_bench_command(name, "y", ["Laplace"], RunSettings())
        assert command.words[4] == f"./{name}"


def test_compares_command_on_an_upload_names_the_file():
    """Compare's "Show code" on an upload: the command reads the uploaded file."""
    from test_app import assert_clean, open_app, uploader

    from explorer.report import CODE_OPEN

    rows = "\n".join(["a,b,class", *(f"{i % 3},{i % 5},{'xy'[i % 2]}" for i in range(60))])
    at = open_app(methods="Laplace,Lidstone", folds="3")
    uploader(at).upload("small.csv", rows.encode(), "text/csv").run()
    at.switch_page("pages/compare.py").run()
    at.session_state[CODE_OPEN] = True
    at.run()
    assert_clean(at)
    commands = [c.value for c in at.code if c.value.startswith("python -m heb bench")]
    assert commands == ["python -m heb bench small.csv --methods Laplace,Lidstone --folds 3"]
    assert "**On the command line**" in [m.value for m in at.markdown]  # under the Python


def test_the_what_if_values_of_two_methods_are_told_apart():
    settings = RunSettings(overrides={"TE": {"k0": 5.0}, "Lidstone": {"alpha": 0.5}})
    command = bench_command("builtin:iris", None, ["TE", "Lidstone"], settings)
    assert not command.notes  # carried by --param, one option per method
    words = list(command.words)
    assert [words[i + 1] for i, w in enumerate(words) if w == "--param"] == [
        "Lidstone:alpha=0.5",
        "TE:k0=5",
    ]
