"""The ``heb bench`` command Compare offers: quoted for a shell, and the page's numbers.

Compare's "Show code" box gave Python only; an analyst who wanted the page's table from a
shell (a script, a larger machine) had to rebuild the command from the help. The box now
ends with the command, and a large file's comparison offers its ``--engine duckdb`` one.
Each command here is run through :func:`heb.cli.main` and gives the numbers the page's
own cross-validation gives.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, unescape

from explorer.commands import (
    LARGE_COMMAND_OPEN,
    BenchCommand,
    bench_command,
    large_bench_command,
)
from explorer.report import CODE_OPEN
from heb.data import load_dataset
from heb.evaluate import RunSettings, cross_validate
from heb.evaluate.hierarchy_specs import Declared

METRICS = ["accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"]
HOSTILE_NAME = "my data; rm -rf ~ $(touch x) 'q'.csv"


def shell_words(text: str) -> list[str]:
    """The words bash hands the program of the command ``text`` (line continuations and
    quotes as a shell reads them; nothing of it runs: its first word becomes printf's
    argument)."""
    script = f"printf '%s\\0' {text}"
    done = subprocess.run(["bash", "-c", script], capture_output=True, check=True)
    return done.stdout.decode().split("\0")[:-1]


def _run(command: BenchCommand, out: Path, monkeypatch) -> pd.DataFrame:
    """Run ``command`` (its words after ``python -m heb``) as the command line does; the
    per-fold metrics it wrote."""
    from heb.cli import main

    words = shell_words(command.text)
    assert words == list(command.words)
    assert words[:3] == ["python", "-m", "heb"]
    monkeypatch.setenv("HEB_CACHE_DIR", str(out / "cache"))
    assert main([*words[3:], "-o", str(out / "results"), "--no-figures"]) == 0
    return pd.read_csv(out / "results" / "folds.csv")


def _same_folds(written: pd.DataFrame, expected: pd.DataFrame, methods) -> None:
    for method in methods:
        got = written[written["method"] == method].sort_values("fold")
        want = expected[expected["method"] == method].sort_values("fold")
        assert len(got) == len(want) > 1, method
        np.testing.assert_allclose(
            got[METRICS].to_numpy(float), want[METRICS].to_numpy(float), rtol=1e-12, atol=0
        )


# ------------------------------------------------------------------------ the text itself
def test_defaults_are_left_out_and_the_rest_written():
    plain = bench_command("builtin:iris", None, ["Laplace", "HEB-M"], RunSettings())
    assert plain.text == "python -m heb bench builtin:iris --methods Laplace,HEB-M --folds 10"
    assert plain.notes == ()
    changed = RunSettings(n_bins=4, missing="category", max_rows=None, n_splits=3, seed=7)
    words = bench_command("shared:car", None, ["KT"], changed).words
    assert words[4:] == (
        "shared:car", "--methods", "KT", "--folds", "3", "--seed", "7", "--n-bins", "4",
        "--missing", "category", "--max-rows", "0",
    )  # fmt: skip
    capped = bench_command("openml:31", None, ["KT"], RunSettings(max_rows=5_000)).words
    assert capped[-2:] == ("--max-rows", "5000")


def test_a_hostile_upload_stays_one_word_each_and_what_cannot_be_typed_is_said():
    upload = {
        "filename": HOSTILE_NAME,
        "target": "class label",
        "categorical": ["zip code", "a,b", " pad", "ok"],
        "drop": ["row id"],
    }
    hierarchies = (
        '[{"feature":"zip code","prefix":[2]},{"feature":"x->y","parents":["ok"]},'
        '{"feature":"ok","parents":["prefix code"]}]'
    )
    settings = RunSettings(hierarchies=hierarchies, overrides={"Lidstone": {"alpha": 0.5}})
    command = bench_command("upload:abc", upload, ["Lidstone", "HEB-H"], settings)
    words = shell_words(command.text)
    assert words == list(command.words)
    assert words[4] == HOSTILE_NAME and "upload:abc" not in words
    assert words[words.index("--target") + 1] == "class label"
    # sorted, a name holding a comma or end spaces quoted: the command reads them back
    assert words[words.index("--categorical") + 1] == '" pad","a,b",ok,zip code'
    assert words[words.index("--drop") + 1] == "row id"
    assert [words[i + 1] for i, w in enumerate(words) if w == "--hierarchy"] == [
        "zip code -> prefix 2"
    ]
    said = " ".join(command.notes)
    assert "cannot be typed for --categorical" not in said
    assert "x->y -> ok: its column names cannot be typed for --hierarchy" in said
    assert "ok -> prefix code: its column names" in said
    assert words[words.index("--param") + 1] == "Lidstone:alpha=0.5"  # the what-if value
    assert "what-if" not in said
    assert f"Write the file's path for {HOSTILE_NAME!r}" in said
    assert all(len(line) <= 80 for line in command.text.split("\n")[:-1])
    assert all(line.endswith(" \\") for line in command.text.split("\n")[:-1])


def test_hierarchies_and_what_ifs_of_methods_not_run_are_not_named():
    settings = RunSettings(
        hierarchies='[{"feature":"zip_code","prefix":[2]}]', overrides={"TE": {"k0": 5.0}}
    )
    command = bench_command("builtin:zip-codes", None, ["Laplace", "HEB-M"], settings)
    assert "--hierarchy" not in command.words and command.notes == ()


def test_a_long_command_breaks_between_words_never_inside_an_option():
    from explorer.commands import benchmark_command

    methods = ["Laplace", "Lidstone", "KT", "m-estimate", "TE", "HEB-U", "HEB-M", "HEB-M+GR"]
    text = bench_command("builtin:zip-codes", None, methods, RunSettings(n_bins=5)).text
    lines = text.split("\n")
    assert len(lines) >= 2
    assert all(line.startswith("  --") for line in lines[1:])
    assert shell_words(text) == shlex.split(text.replace(" \\\n", " "))
    specs = [f"shared:data-set-{i}" for i in range(9)]
    long = benchmark_command(specs, {}, methods, RunSettings()).text
    lines = long.split("\n")
    assert len(lines) >= 3 and all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("  shared:")  # the datasets wrap too
    assert all(not line.rstrip(" \\").endswith(("--methods", "--folds", "-m")) for line in lines)
    assert shell_words(long)[4:13] == specs


# ------------------------------------------------------------------ the numbers it gives
def test_the_command_of_an_upload_gives_the_pages_numbers(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    n = 360
    zips = np.array([f"{a}{b}{c}" for a in "0123" for b in "05" for c in "19"])
    frame = pd.DataFrame(
        {
            "row id": np.arange(n),
            "zip code": rng.choice(zips, n),
            "size, cm": rng.normal(10, 3, n).round(1),
            "shop": rng.choice([1, 2, 3, 4], n),
            "class label": rng.choice(["yes", "no", "maybe"], n, p=[0.5, 0.3, 0.2]),
            "tail": rng.choice(["u", "v", None], n),
        }
    )
    folder = tmp_path / "here"
    folder.mkdir()
    frame.to_csv(folder / HOSTILE_NAME, index=False)
    upload = {
        "filename": HOSTILE_NAME,
        "target": "class label",
        "categorical": ["shop"],
        "drop": ["row id"],
    }
    methods = ["Laplace", "Lidstone", "HEB-M", "HEB-H"]
    settings = RunSettings(
        n_bins=4, missing="category", max_rows=None, n_splits=3,
        hierarchies='[{"feature":"zip code","prefix":[2,1]}]',
    )  # fmt: skip
    command = bench_command("upload:x", upload, methods, settings)
    monkeypatch.chdir(folder)  # the command names the file as uploaded
    written = _run(command, tmp_path, monkeypatch)
    dataset = load_dataset(
        HOSTILE_NAME, target="class label", categorical=["shop"], drop=["row id"]
    )
    expected = cross_validate(dataset, methods, settings=settings, use_cache=False)
    _same_folds(written, expected.folds, methods)
    flat = cross_validate(
        dataset, ["HEB-H"], settings=settings.replace(hierarchies=""), use_cache=False
    )
    assert not np.allclose(  # the hierarchy reached the command's HEB-H
        written.loc[written["method"] == "HEB-H", "log_loss"], flat.folds["log_loss"]
    )


def test_the_command_of_a_built_in_dataset_gives_the_pages_numbers(tmp_path, monkeypatch):
    methods = ["KT", "HEB-U", "HEB-M+GR"]
    settings = RunSettings(n_bins=6, n_splits=4, seed=3)
    command = bench_command("builtin:zip-codes", None, methods, settings)
    written = _run(command, tmp_path, monkeypatch)
    expected = cross_validate(
        load_dataset("builtin:zip-codes"), methods, settings=settings, use_cache=False
    )
    _same_folds(written, expected.folds, methods)


def test_the_command_of_a_large_file_gives_the_engines_numbers(tmp_path, monkeypatch):
    from heb.scale import DuckDBEngine, open_source, write_clicks
    from heb.scale import cross_validate as engine_cv

    write_clicks(tmp_path / "clicks.parquet", 3_000, seed=8, n_features=4)
    methods = ["Laplace", "HEB-M", "KT", "Lidstone"]
    what_if = {"Lidstone": {"alpha": 0.25}}  # carried by --param
    settings = RunSettings(n_bins=5, missing="category", n_splits=3, overrides=what_if)
    command = large_bench_command(
        "clicks.parquet", "click", methods, settings, categorical=["ad_id"], dropped=["app_id"]
    )
    assert "--max-rows" not in command.words  # every row is counted
    monkeypatch.chdir(tmp_path)
    written = _run(command, tmp_path, monkeypatch)
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source("clicks.parquet", tmp_path))
        features = [c for c, _ in engine.columns() if c not in ("click", "app_id")]
        expected = engine_cv(
            engine, "click", methods, n_splits=3, seed=42, n_bins=5, missing="category",
            categorical=["ad_id"], features=features, params=what_if,
        )  # fmt: skip
    finally:
        engine.close()
    assert "--param" in command.words
    written["method"] = written["method"].replace({"Lidstone (alpha = 0.25)": "Lidstone"})
    _same_folds(written, expected.folds, methods)


# ---------------------------------------------------------------------------- the pages
def _codes(at) -> list[str]:
    return [c.value for c in at.code]


def test_compares_show_code_ends_with_the_command_and_its_notes(tmp_path, monkeypatch):
    at = open_app("pages/compare.py", dataset="builtin:iris", methods="Laplace,Lidstone", folds="5")
    at.session_state[CODE_OPEN] = True
    at.segmented_control(key="w_whatif_alpha").set_value(0.5).run()
    assert_clean(at)
    commands = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert commands == [
        "python -m heb bench builtin:iris --methods Laplace,Lidstone \\\n"
        "  --param Lidstone:alpha=0.5 --folds 5"
    ]
    # the what-if value is run: the command's folds are the page's (alpha = 0.5)
    settings = RunSettings(n_splits=5, overrides={"Lidstone": {"alpha": 0.5}})
    command = bench_command("builtin:iris", None, ["Laplace", "Lidstone"], settings)
    assert command.text == commands[0]
    written = _run(command, tmp_path, monkeypatch)
    assert list(dict.fromkeys(written["method"])) == ["Laplace", "Lidstone (alpha = 0.5)"]
    written["method"] = written["method"].replace({"Lidstone (alpha = 0.5)": "Lidstone"})
    page = cross_validate(load_dataset("builtin:iris"), ["Laplace", "Lidstone"], settings=settings)
    _same_folds(written, page.folds, ["Laplace", "Lidstone"])
    default = cross_validate(
        load_dataset("builtin:iris"), ["Lidstone"], settings=RunSettings(n_splits=5)
    )
    assert not np.allclose(
        written.loc[written["method"] == "Lidstone", "log_loss"], default.folds["log_loss"]
    )
    box = next(c for c in at.code if c.value.startswith("python -m heb bench"))
    assert box.proto.wrap_lines  # a word past the box's width wraps, not scrolls
    captions = [unescape(c.value) for c in at.caption]
    assert any(c.startswith("Runs at the root of a HEB Explorer clone") for c in captions)
    assert not any("what-if" in c for c in captions), captions


@pytest.fixture
def large_root(tmp_path, monkeypatch):
    from heb.scale import DATA_ROOT_ENV, write_clicks

    write_clicks(tmp_path / "clicks.parquet", 1_500, seed=4, n_features=3)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    return tmp_path


def test_a_large_files_compare_offers_its_engine_command(large_root):
    at = open_app(
        "pages/compare.py", clean=False, large_file="clicks.parquet",
        methods="Laplace,HEB-M", folds="3",
    )  # fmt: skip
    assert_clean(at)
    assert not [c for c in _codes(at) if "heb bench" in c]  # closed: not built
    at.session_state[LARGE_COMMAND_OPEN] = True
    at.run()
    assert_clean(at)
    commands = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert commands == [
        "python -m heb bench clicks.parquet --engine duckdb --target click \\\n"
        "  --methods Laplace,HEB-M --folds 3"
    ]
    captions = [unescape(c.value) for c in at.caption]
    assert any("named as under the app's data root" in c for c in captions), captions
    assert str(large_root) not in " ".join([*captions, *_codes(at)])  # no server path shown


@pytest.mark.parametrize("filename", ["-rf.csv", "a:b.csv", "car", "~x.csv", "shared"])
def test_a_file_name_the_command_line_would_misread_is_given_as_a_path(
    filename, tmp_path, monkeypatch
):
    """``-rf.csv`` read as options, ``a:b.csv`` as a dataset spec, ``car`` as the shared
    dataset and ``shared`` as every one; a column ``-x`` as an option of its own."""
    rng = np.random.default_rng(2)
    n = 120
    frame = pd.DataFrame(
        {
            "-y": rng.choice([1, 2, 3], n),
            "k": rng.choice(list("abc"), n),
            "-x": rng.choice(list("pq"), n),
        }
    )
    folder = tmp_path / "here"
    folder.mkdir()
    frame.to_csv(folder / filename, index=False)
    upload = {"filename": filename, "target": "-x", "categorical": ["-y"], "drop": []}
    settings = RunSettings(n_splits=3)
    command = bench_command("upload:x", upload, ["Laplace"], settings)
    assert command.words[4] == f"./{filename}"
    assert "--target=-x" in command.words and "--categorical=-y" in command.words
    monkeypatch.chdir(folder)
    written = _run(command, tmp_path, monkeypatch)
    dataset = load_dataset(f"./{filename}", target="-x", categorical=["-y"])
    expected = cross_validate(dataset, ["Laplace"], settings=settings, use_cache=False)
    _same_folds(written, expected.folds, ["Laplace"])
    assert written["dataset"].iloc[0] != "car" or filename == "car"


# ------------------------------------------------------------------------- the Benchmark
def test_the_benchmark_pages_command_gives_its_ranks(tmp_path, monkeypatch):
    """The Benchmark page had no command; its command's ranks are the page's."""
    from explorer.commands import BENCHMARK_COMMAND_OPEN
    from heb.evaluate import benchmark_tables

    at = open_app("pages/benchmark.py", methods="Laplace,HEB-M,KT")
    at.multiselect(key="w_bench_datasets").set_value(
        ["builtin:iris", "builtin:wine", "builtin:zip-codes"]
    ).run()
    at.session_state[BENCHMARK_COMMAND_OPEN] = True
    at.button(key="bench_run").click().run()
    assert_clean(at)
    (text,) = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert text == (
        "python -m heb bench builtin:iris builtin:wine builtin:zip-codes \\\n"
        "  --methods Laplace,KT,HEB-M --folds 10"
    )
    command = BenchCommand(tuple(shell_words(text)))
    written = _run(command, tmp_path, monkeypatch)
    page = at.session_state["benchmark"]["frame"]
    for metric in ("log_loss", "accuracy"):
        np.testing.assert_allclose(
            benchmark_tables(written, metric)["avg_ranks"].to_numpy(),
            benchmark_tables(page, metric)["avg_ranks"].to_numpy(),
        )
    ranks = pd.read_csv(tmp_path / "results" / "methods_mean_ranks.csv")
    page_ranks = benchmark_tables(page, "log_loss")["avg_ranks"].round(3)
    row = ranks[ranks["metric"] == "Log-loss"].iloc[0]
    chosen = ["Laplace", "KT", "HEB-M"]
    np.testing.assert_allclose(row[chosen].to_numpy(float), page_ranks[chosen].to_numpy())


def test_a_benchmark_of_uploads_read_alike_is_one_command_and_otherwise_says_why():
    from explorer.commands import UPLOADS_DIFFER, benchmark_command

    one = {"filename": "a.csv", "target": "y", "categorical": ["zip"], "drop": []}
    two = {"filename": "b c.csv", "target": "y", "categorical": ["zip"], "drop": []}
    uploads = {"upload:1": one, "upload:2": two}
    specs = ["upload:1", "upload:2"]  # no named dataset: heb bench refuses --target beside one
    command = benchmark_command(specs, uploads, ["Laplace", "KT"], RunSettings(n_bins=5))
    assert shell_words(command.text)[4:] == [
        "a.csv", "b c.csv", "--target", "y", "--categorical", "zip",
        "--methods", "Laplace,KT", "--folds", "10", "--n-bins", "5",
    ]  # fmt: skip
    other = {**two, "target": "z"}
    refused = benchmark_command(specs, {**uploads, "upload:2": other}, ["KT"], RunSettings())
    assert refused.words == () and refused.notes == (
        UPLOADS_DIFFER.format(names="'a.csv', 'b c.csv'"),
    )


# ------------------------------------------------- a large file's notes (the s45 trial)
def test_a_large_files_notes_point_to_nothing_its_page_lacks():
    """A large file's Compare has no "Show code" box: its notes sent the analyst to
    "Compare's code" for a column --categorical cannot name and to "Compare's Python code"
    for a what-if value; they now say what the command does instead."""
    settings = RunSettings(overrides={"Lidstone": {"alpha": 0.5}})
    command = large_bench_command(
        "clicks.parquet", "click", ["Lidstone", "HEB-M"], settings,
        categorical=["", "ok"], dropped=["", "hour"],
    )  # fmt: skip
    said = " ".join(command.notes)
    assert "Compare's" not in said and "load_dataset" not in said, said
    assert "'' cannot be typed for --categorical" in said
    assert "the command bins it as numbers, so its numbers can differ" in said
    assert "the command keeps it as a feature" in said and "it can be named" in said
    assert "what-if" not in said  # carried: --param Lidstone:alpha=0.5
    assert command.words[command.words.index("--param") + 1] == "Lidstone:alpha=0.5"
    # in memory the Python code is there to fall back on, and is named
    upload = {"filename": "f.csv", "target": "y", "categorical": [""], "drop": []}
    memory = " ".join(bench_command("upload:x", upload, ["Lidstone"], settings).notes)
    assert "load_dataset names every column" in memory and "Compare's code" in memory


def test_a_large_files_command_runs_from_the_clones_root_as_its_note_says(tmp_path, monkeypatch):
    """The note said "run it there" (in the data root), where ``python -m heb`` finds no
    heb (No module named heb) unless installed; it now says to write the data root's
    variable before the name, which runs from anywhere the variable is set."""
    from heb.scale import DATA_ROOT_ENV, write_clicks

    root = tmp_path / "data root"
    root.mkdir()
    name = "-my clicks 'v2'.parquet"
    write_clicks(root / name, 1_200, seed=3, n_features=3)
    command = large_bench_command(name, "click", ["Laplace"], RunSettings(n_splits=3))
    note = next(n for n in command.notes if "named as under the app's data root" in n)
    assert "run it there" not in note
    assert f'write "${DATA_ROOT_ENV}"/ right before its name' in note
    assert "python -m heb runs only once pip install ." in note
    # the command as the note says to write it, run where the file is not
    word = shlex.quote(f"./{name}")
    text = command.text.replace(word, f'"${DATA_ROOT_ENV}"/{word}', 1)
    assert text != command.text
    monkeypatch.setenv(DATA_ROOT_ENV, str(root))
    elsewhere = tmp_path / "clone"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    words = shell_words(text)
    assert Path(words[4]).resolve() == (root / name).resolve()
    from heb.cli import main

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    assert main([*words[3:], "-o", str(tmp_path / "results"), "--no-figures"]) == 0
    assert len(pd.read_csv(tmp_path / "results" / "folds.csv")) == 3


# ------------------------------------ a declaration the page leaves out (the s45 trial)
def test_a_declaration_the_page_leaves_out_is_left_out_of_the_command_too():
    """heb bench refuses a --hierarchy that cannot apply; the page leaves it out with a
    note. Both commands gave it, and failed ("cannot apply ... no column 'region' here")."""
    settings = RunSettings(
        n_splits=3,
        hierarchies='[{"feature":"city","parents":["region"]},{"feature":"zip","prefix":[2]}]',
    )
    gone = {Declared("city", ("region",)): "city -> region: no column 'region' here, left out."}
    command = bench_command("builtin:x", None, ["HEB-H"], settings, gone)
    hierarchies = [w for w in command.words if w.startswith("zip") or w.startswith("city")]
    assert hierarchies == ["zip -> prefix 2"]
    assert command.notes == (
        "city -> region: left out of the command as the page leaves it out (no column "
        "'region' here); heb bench refuses it.",
    )
    binned = {
        Declared("zip", prefix=(2,)): "zip -> prefix 2: 'zip' is binned, not labelled; left out."
    }
    said = bench_command("builtin:x", None, ["HEB-H"], settings, binned).notes
    assert "('zip' is binned, not labelled)" in said[0]


def _roles_csv(folder: Path) -> Path:
    rng = np.random.default_rng(4)
    child = rng.integers(0, 60, 600)
    frame = pd.DataFrame(
        {
            "role2": 118000 + child * 7,
            "role1": 117000 + (child // 5) * 13,
            "amount": rng.normal(size=600).round(2),
            "label": rng.choice(["no", "yes"], 600),
        }
    )
    frame.to_csv(folder / "roles.csv", index=False)
    return folder / "roles.csv"


def _roles_parent_left_out(tmp_path):
    """The Dataset page on an upload whose declared ``role2 -> role1`` lost its parent
    to Columns to leave out."""
    from test_app import uploader
    from test_hierarchy_read_as_categories import _declare

    from pages.dataset import DROP_WIDGET

    path = _roles_csv(tmp_path)
    at = open_app(dataset_tab="Hierarchies", methods="HEB-M,HEB-H", folds="3")
    uploader(at).upload("roles.csv", path.read_bytes(), "text/csv")
    at.run()
    _declare(at, "role2", "parent column", parent="role1")
    at.multiselect(key=DROP_WIDGET).set_value(["role1"]).run()
    assert_clean(at)
    return at


def test_compare_says_a_declaration_left_out_leaves_heb_h_as_heb_m(tmp_path):
    """Compare was silent: HEB-H scored as HEB-M with no word of the declaration the
    Dataset page leaves out (it said one that makes no groups)."""
    at = _roles_parent_left_out(tmp_path)
    at.switch_page("pages/compare.py").run()
    assert_clean(at)
    said = [unescape(i.value) for i in at.info]
    assert "role2 -> role1: no column 'role1' here, left out, so HEB-H is HEB-M on it." in said


def test_both_pages_commands_run_when_a_declared_parent_is_left_out(tmp_path, monkeypatch):
    at = _roles_parent_left_out(tmp_path)
    on_dataset = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert on_dataset == []  # no declaration is left for HEB-H: no command to compare
    at.switch_page("pages/compare.py").run()
    at.session_state[CODE_OPEN] = True
    at.run()
    assert_clean(at)
    (command,) = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert "--hierarchy" not in command and "--drop role1" in command
    said = " ".join(unescape(c.value) for c in at.caption)
    assert "role2 -> role1: left out of the command as the page leaves it out" in said
    monkeypatch.chdir(tmp_path)
    words = shell_words(command)
    from heb.cli import main

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    assert main([*words[3:], "-o", str(tmp_path / "results"), "--no-figures"]) == 0
    written = pd.read_csv(tmp_path / "results" / "folds.csv")
    dataset = load_dataset("roles.csv", target="label", drop=["role1"])
    settings = RunSettings(n_splits=3, hierarchies='[{"feature":"role2","parents":["role1"]}]')
    expected = cross_validate(dataset, ["HEB-M", "HEB-H"], settings=settings, use_cache=False)
    _same_folds(written, expected.folds, ["HEB-M", "HEB-H"])


def test_the_dataset_pages_command_says_its_folds_are_compares():
    """The Dataset page has no Folds choice: its caption said the command ran "with this
    page's settings" while its --folds was Compare's (5 here, from the link)."""
    from explorer.hierarchies import COMMAND_LINE

    at = open_app(
        hierarchies='[{"feature":"zip_code","prefix":[2]}]', dataset_tab="Hierarchies", folds="5"
    )
    (command,) = [c for c in _codes(at) if c.startswith("python -m heb bench")]
    assert "--folds 5" in command
    assert "Compare's folds" in COMMAND_LINE and "this page's settings" not in COMMAND_LINE
    assert any(COMMAND_LINE in c.value for c in at.caption)


def test_a_large_files_command_box_does_not_speak_of_a_rerun_before_a_run(large_root):
    """The box is there before the first comparison (and after a Folds change hides the
    table): "rerun this comparison" spoke of a run the page did not show."""
    at = open_app("pages/compare.py", clean=False, large_file="clicks.parquet", folds="3")
    assert_clean(at)
    labels = [e.label for e in at.expander]
    assert any("Show command: run this comparison with heb bench" in x for x in labels), labels
    assert not any("rerun" in x for x in labels)
