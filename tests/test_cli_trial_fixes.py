"""``python -m heb`` as a new user met it: faults a trial found, each pinned here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import load_dataset
from heb.evaluate import cross_validate
from heb.evaluate.paper import TABLE_METHODS

FOLDS = 3


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture()
def churn(tmp_path):
    """A CSV with two possible class columns: ``contract`` (three values) and the last,
    ``churn`` (yes / no)."""
    rng = np.random.default_rng(0)
    n = 300
    contract = rng.choice(["month", "year", "two-year"], n)
    frame = pd.DataFrame(
        {
            "tenure": rng.integers(1, 72, n),
            "plan": rng.choice(list("abcd"), n),
            "contract": contract,
            "churn": np.where((contract == "month") ^ (rng.random(n) < 0.2), "yes", "no"),
        }
    )
    path = tmp_path / "churn.csv"
    frame.to_csv(path, index=False)
    return path


def _one_line(err: str) -> str:
    err = err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.endswith("."), err
    return err


def _bench(path, out, *extra) -> list[str]:
    argv = ["bench", str(path), "--tables", "4", "--folds", str(FOLDS), "--no-figures"]
    assert main([*argv, "-o", str(out), *extra]) == 0
    return argv


# ------------------------------------------------------------ 1. --target in memory
def test_target_is_honoured_for_a_file_in_memory(churn, tmp_path, isolated_cache, capsys):
    """``--target contract`` without ``--engine`` was ignored: the run used the last column."""
    _bench(churn, tmp_path / "default")
    _bench(churn, tmp_path / "contract", "--target", "contract")
    err = capsys.readouterr().err
    assert "target 'churn'" in err and "target 'contract'" in err
    assert "Served" not in err  # another target is another run, not a cache hit
    got = pd.read_csv(tmp_path / "contract" / "folds.csv").set_index(["method", "fold"])
    dataset = load_dataset(str(churn), target="contract")
    settings = {"n_splits": FOLDS, "seed": 42, "n_bins": 10, "missing": "impute"}
    want = cross_validate(dataset, TABLE_METHODS[4], max_rows=20_000, **settings).folds
    want = want.set_index(["method", "fold"]).loc[got.index]
    np.testing.assert_allclose(got["log_loss"], want["log_loss"], rtol=1e-9)
    default = pd.read_csv(tmp_path / "default" / "folds.csv").set_index(["method", "fold"])
    assert not np.allclose(default.loc[got.index, "log_loss"], got["log_loss"])


def test_target_for_a_named_dataset_is_one_sentence(tmp_path, isolated_cache, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "builtin:iris", "--target", "x", "-o", str(tmp_path)])
    assert info.value.code == 2
    err = _one_line(capsys.readouterr().err)
    assert "--target" in err and "builtin:iris" in err


def test_engine_target_change_is_not_served_from_the_cache(churn, tmp_path, isolated_cache, capsys):
    """The cache key left out ``--target``: the other target's numbers came back."""
    pytest.importorskip("duckdb")
    parquet = tmp_path / "churn.parquet"
    pd.read_csv(churn).to_parquet(parquet, index=False)
    _bench(parquet, tmp_path / "a", "--engine", "duckdb")
    _bench(parquet, tmp_path / "b", "--engine", "duckdb", "--target", "contract")
    err = capsys.readouterr().err
    assert "Served" not in err and "target 'contract'" in err
    a, b = (pd.read_csv(tmp_path / o / "folds.csv") for o in "ab")
    assert not np.allclose(a["log_loss"], b["log_loss"])


# ------------------------------------------------------------ 2. the reliability figure
def test_reliability_figure_names_no_pooled_ece_beside_table4(tmp_path, monkeypatch):
    """The legend gave the pooled predictions' ECE (Laplace 0.023) beside Table 4's mean
    over folds (0.0283): the figure says what it pools and shows no ECE, as the app's."""
    import heb.cli as cli
    from heb.metrics import reliability

    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(2), size=200)
    y = (rng.random(200) < proba[:, 1]).astype(int)
    curves = {"zips": {m: reliability(y, proba) for m in TABLE_METHODS[4]}}
    drawn = {}

    def keep(fig, stem, report) -> dict:
        drawn[stem] = fig
        return {}

    monkeypatch.setattr(cli, "_export_figure", keep)
    cli._reliability_figures(curves, tmp_path, lambda line: None)
    (fig,) = drawn.values()
    assert "pooled out-of-fold" in fig.layout.title.text and "zips" in fig.layout.title.text
    names = [trace.name or "" for trace in fig.data]
    assert any("HEB-M+GR" in name for name in names)
    assert not any("ECE" in name for name in names), names


# ------------------------------------------------------------ 3. make-data -o
@pytest.mark.parametrize("name", ["x.csv", "x.csv.gz", "x"])
def test_make_data_refuses_an_output_that_is_not_parquet(name, tmp_path, capsys):
    """``-o x.csv`` wrote parquet under a .csv name and said so as if all were well."""
    assert main(["make-data", "clicks", "--rows", "100", "-o", str(tmp_path / name)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert ".parquet" in err and name in err
    assert not (tmp_path / name).exists()


def test_make_data_into_a_folder_is_one_clear_sentence(tmp_path, capsys):
    """``-o <folder>`` answered with pyarrow's "Detail: [errno 21] Is a directory"."""
    assert main(["make-data", "clicks", "--rows", "100", "-o", str(tmp_path)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert "is a folder" in err and "errno" not in err and "clicks.parquet" in err


# ------------------------------------------------------------ 4. a file that is not there
@pytest.mark.parametrize("name", ["nosuchfile.csv", "data.csv.gz", "sub/nosuch", "file:gone.txt"])
def test_a_missing_file_is_named_as_a_file(name, tmp_path, isolated_cache, capsys, monkeypatch):
    """``bench nosuchfile.csv`` said there is no *shared dataset* of that name."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["bench", name, "--tables", "4", "-o", str(tmp_path / "o")])
    assert info.value.code == 2
    err = _one_line(capsys.readouterr().err)
    shown = name.removeprefix("file:")
    assert err == f"heb: No file {shown!r} (looked in {tmp_path})."
    assert "shared" not in err


def test_a_missing_absolute_path_says_no_folder_to_look_in(tmp_path, isolated_cache, capsys):
    missing = tmp_path / "gone.parquet"
    with pytest.raises(SystemExit):
        main(["bench", str(missing), "-o", str(tmp_path / "o")])
    assert _one_line(capsys.readouterr().err) == f"heb: No file {str(missing)!r}."


# ------------------------------------------------------------ 5. output file names
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_a_file_is_named_by_its_stem_in_memory_as_on_the_engine(
    suffix, churn, tmp_path, isolated_cache, monkeypatch
):
    """In memory ``churn.csv`` wrote ``reliability_churn.csv.png``; the engine named the
    same file ``churn``."""
    import heb.cli as cli
    from heb.cli_scale import data_stem

    path = tmp_path / f"churn{suffix}"
    if suffix != ".csv":
        pd.read_csv(churn).to_csv(path, index=False)
    drawn: list[str] = []

    def keep(fig, stem, report) -> dict:
        drawn.append(stem.name)
        return {}

    monkeypatch.setattr(cli, "_export_figure", keep)
    monkeypatch.setattr(cli, "is_high_cardinality", lambda name, k_max: True)
    argv = ["bench", str(path), "--tables", "4", "--folds", str(FOLDS), "--no-cache"]
    assert main([*argv, "-o", str(tmp_path / "o")]) == 0
    assert drawn == ["reliability_churn"]
    assert set(pd.read_csv(tmp_path / "o" / "folds.csv")["dataset"]) == {"churn"}
    assert data_stem(path) == "churn" == data_stem(tmp_path / "churn.parquet")


# ------------------------------------------------------------ 6. wording
def test_one_dataset_served_from_the_cache_is_singular(churn, tmp_path, isolated_cache, capsys):
    _bench(churn, tmp_path / "o")
    _bench(churn, tmp_path / "o")
    assert "Served 1 dataset from the cache." in capsys.readouterr().err


def test_no_datasets_names_where_it_looked_and_the_variable(
    tmp_path, isolated_cache, monkeypatch, capsys
):
    monkeypatch.delenv("HEB_DATASETS_DIR", raising=False)
    monkeypatch.setenv("HEB_SHARED_DIR", str(tmp_path / "absent"))
    with pytest.raises(SystemExit) as info:
        main(["bench", "-o", str(tmp_path / "o")])
    assert info.value.code == 2
    message = capsys.readouterr().err.strip()
    assert str(tmp_path / "absent" / "datasets") in message and "HEB_SHARED_DIR" in message
    assert "\n" not in message and message.endswith(".")


def test_table4_markdown_headers_read_as_words_and_the_csv_keeps_its_columns(tmp_path):
    """The markdown header was the column name ``HEB-M+GR_vs_Laplace_change_%``."""
    from heb.cli import _write_table

    table = pd.DataFrame(
        {
            "dataset": ["adult"],
            "group": ["low-cardinality"],
            "Laplace": [0.0597],
            "HEB-M": [0.03],
            "HEB-M+GR": [0.0194],
            "HEB-M+GR_vs_Laplace_change_%": [-67.504],
            "HEB-M+GR_minus_Laplace": [-0.0403],
        }
    )
    _write_table(tmp_path, "table4_ece", table, "Table 4")
    header, _, row = (tmp_path / "table4_ece.md").read_text().splitlines()[2:5]
    assert "HEB-M+GR vs Laplace, change %" in header and "HEB-M+GR − Laplace" in header
    assert "_" not in header.replace("group", "")
    assert "-67.5 " in row and "-0.0403" in row  # a percentage (1 decimal), a metric (4)
    assert list(pd.read_csv(tmp_path / "table4_ece.csv").columns) == list(table.columns)


def test_a_folder_in_memory_is_one_line_naming_the_engine(tmp_path, capsys):
    """``bench <folder>`` without --engine raised IsADirectoryError (the file's hash)."""
    folder = tmp_path / "parts"
    folder.mkdir()
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", str(folder), "--tables", "1", "-o", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "a folder of parquet files (or a partitioned table) is read with --engine duckdb" in err
    assert "Traceback" not in err


def test_the_progress_line_says_how_many_rows_the_subsample_keeps(tmp_path, capsys):
    """The line said '5,000 rows' when --max-rows evaluated 2,000 of them."""
    out = str(tmp_path / "out")
    args = ["bench", "builtin:zip-codes", "--tables", "1", "--folds", "2", "--no-figures"]
    assert main([*args, "--no-cache", "--max-rows", "2000", "-o", out]) == 0
    assert "zip-codes: 5,000 rows (2,000 evaluated, --max-rows), 8 features" in (
        capsys.readouterr().err
    )
    assert main([*args, "--no-cache", "--max-rows", "0", "-o", out]) == 0
    assert "zip-codes: 5,000 rows, 8 features" in capsys.readouterr().err


def test_the_engine_writes_table_3_with_the_k_max_memory_finds(tmp_path):
    """On --engine the long frame had no k_max: Table 3 was 'skipped: none of the datasets
    is high-cardinality' for a click log whose IDs have thousands of values."""
    pytest.importorskip("duckdb")
    from heb.scale import write_clicks

    data = write_clicks(tmp_path / "clicks.parquet", 3_000, seed=0, n_features=3)
    tables = {}
    for where, engine in (("memory", []), ("duckdb", ["--engine", "duckdb"])):
        out = tmp_path / where
        args = ["bench", str(data), "--tables", "3", "--folds", "2", "--no-figures"]
        assert main([*args, "--no-cache", "-o", str(out), *engine]) == 0
        tables[where] = pd.read_csv(out / "table3_high_cardinality_logloss.csv")
    k_max = tables["memory"]["K_max"].tolist()
    assert k_max[0] >= 100 and tables["duckdb"]["K_max"].tolist() == k_max


def test_a_file_past_the_memory_limit_names_the_engine_that_reads_it(tmp_path, capsys):
    """'The file is 205 MB, more than the limit of 200 MB.' left a user no way forward."""
    from heb.data.dataset import DEFAULT_MAX_BYTES

    big = tmp_path / "big.csv"
    with open(big, "wb") as handle:  # sparse: sized up, never read
        handle.truncate(DEFAULT_MAX_BYTES + 1)
    with pytest.raises(SystemExit, match="No dataset could be loaded"):
        main(["bench", str(big), "--tables", "1", "--no-cache", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "more than the limit" in err and "--engine duckdb counts a file of any size" in err


@pytest.mark.parametrize(
    ("named", "said"), [([], "none were named"), (["shared"], "'shared' was named")]
)
def test_no_shared_copies_says_whether_shared_was_named(tmp_path, monkeypatch, capsys, named, said):
    """``bench shared`` without shared copies said 'none were named'."""
    monkeypatch.setenv("HEB_SHARED_DIR", str(tmp_path / "nowhere"))
    monkeypatch.delenv("HEB_DATASETS_DIR", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", *named, "-o", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"heb: No datasets: {said} and there are no shared"), err


def test_fewer_folds_than_asked_are_said(tmp_path, capsys):
    """--folds 1000 on 300 rows ran fewer folds with no word (the summary's folds alone)."""
    rng = np.random.default_rng(0)
    data = tmp_path / "small.csv"
    frame = pd.DataFrame({"a": rng.choice(list("abc"), 300), "y": np.arange(300) % 2})
    frame.to_csv(data, index=False)
    args = ["bench", str(data), "--folds", "1000", "--tables", "1", "--no-figures", "--no-cache"]
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "small: The largest class has only 150 rows, so 150-fold cross-validation" in err
    assert err.count("-fold cross-validation is used instead") == 1  # once, not per run


def test_no_reliability_diagram_is_said_with_its_rule(tmp_path, capsys):
    """Three built-in datasets gave no reliability diagram and no word why."""
    args = ["bench", "builtin:iris", "--tables", "4", "--folds", "2", "--no-cache"]
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "Reliability diagrams skipped: in memory they are drawn for the high-cardinality" in err
    assert not list((tmp_path / "out").glob("reliability_*"))


def test_the_subsample_note_is_known_by_its_own_predicate():
    """The CLI drops the run's subsample note by ``is_subsample_note``, not by a prefix it
    spells itself: a reworded note stays recognised, and other notes are kept."""
    from heb.evaluate.folds import is_subsample_note, subsample_note

    assert subsample_note(2_000, 5_000) == "Used a stratified subsample of 2,000 of 5,000 rows."
    assert is_subsample_note(subsample_note(1, 2))
    assert not is_subsample_note("Used a 5-fold split: class 'b' has only 5 rows.")


def test_a_binary_file_is_refused_without_speaking_of_an_upload(tmp_path, capsys):
    """The reader's message told a command-line user to "upload" a CSV."""
    junk = tmp_path / "junk.csv"
    junk.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(SystemExit, match="No dataset could be loaded"):
        main(["bench", str(junk), "--folds", "3", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "binary data, not a table; use a CSV" in err and "upload" not in err.lower()


def test_engine_bad_target_is_its_one_line_without_the_left_out_notice(tmp_path, capsys):
    """A one-value target on the engine printed "Left out on the engine path: ..." first."""
    rng = np.random.default_rng(0)
    path = tmp_path / "one.parquet"
    pd.DataFrame({"a": rng.choice(list("xyz"), 300), "y": ["one"] * 300}).to_parquet(path)
    argv = ["bench", str(path), "--engine", "duckdb", "--folds", "3", "-o", str(tmp_path / "o")]
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    said = "heb: The target 'y' has only one class ('one'); a classifier needs at least two"
    # and the way on, as in memory, with the column that reads as classes
    assert err == said + (
        " classes; the target is the last column unless --target NAME names another, such as "
        "'a' (text, 3 values)."
    )


def test_the_same_unusable_data_exits_2_in_memory_as_on_the_engine(tmp_path, isolated_cache):
    """A one-class file exited with 1 in memory and 2 on DuckDB: a script checking the code
    could not tell a data problem from a crash the same way on both paths."""
    pytest.importorskip("duckdb")
    frame = pd.DataFrame({"a": list("xyzxyz" * 10), "y": ["only"] * 60})
    csv, parquet = tmp_path / "one.csv", tmp_path / "one.parquet"
    frame.to_csv(csv, index=False)
    frame.to_parquet(parquet, index=False)
    with pytest.raises(SystemExit) as in_memory:
        main(["bench", str(csv), "--tables", "1", "--no-cache", "-o", str(tmp_path / "m")])
    engine = main(["bench", str(parquet), "--engine", "duckdb", "-o", str(tmp_path / "e")])
    assert in_memory.value.code == engine == 2


def test_a_folder_that_cannot_be_written_is_the_system_exit_code_1(tmp_path, isolated_cache):
    """Exit code 1 is left to the system: the output path is a file, not a folder."""
    blocker = tmp_path / "taken"
    blocker.write_text("a file")
    with pytest.raises(SystemExit) as info:
        main(["bench", "builtin:iris", "--tables", "1", "--folds", "2", "-o", str(blocker)])
    assert str(info.value.code).startswith("heb: Cannot write the output folder")
