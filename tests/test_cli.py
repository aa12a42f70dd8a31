"""``python -m heb``: bench writes the paper's tables; a rerun is served from the cache."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pandas as pd
import pytest

from heb.cli import main
from heb.paths import REPO_ROOT


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_bench_on_builtins_writes_tables(tmp_path, isolated_cache, capsys):
    out = tmp_path / "out"
    args = [
        "bench",
        "builtin:breast-cancer",
        "builtin:iris",
        "builtin:wine",
        "--folds",
        "3",
        "--tables",
        "1,2,4,5,6,8,9",
        "--no-figures",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    table1 = pd.read_csv(out / "table1_mean_ranks.csv")
    assert list(table1["metric"]) == ["Accuracy", "F1-macro", "Log-loss", "Brier", "AUC", "ECE"]
    ranks = table1[["Laplace", "Lidstone", "KT", "m-estimate", "TE", "HEB-U", "HEB-M"]]
    assert ranks.sum(axis=1).sub(28).abs().max() < 0.01  # 1 + ... + 7, ranks rounded to 3 dp
    table2 = pd.read_csv(out / "table2_wilcoxon.csv")
    assert set(table2["comparison"]) == {"HEB-M vs AODE", "HEB-AODE vs AODE", "HEB-TAN vs TAN"}
    table9 = pd.read_csv(out / "table9_references.csv")
    assert len(table9) == 8 and table9["Log-loss"].sum() == pytest.approx(36)  # 1 + ... + 8
    table6 = pd.read_csv(out / "table6_lidstone_sweep.csv")
    assert len(table6) == 7
    for name in ("table4_ece", "table5_smoothing_x_weighting", "table8_fit_times"):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.md").exists()
    folds = pd.read_csv(out / "folds.csv")
    assert set(folds["dataset"]) == {"breast-cancer", "iris", "wine"}

    # the rerun is served from the cache, identical
    capsys.readouterr()
    assert main(args) == 0
    assert "Served 3 datasets from the cache." in capsys.readouterr().err
    pd.testing.assert_frame_equal(pd.read_csv(out / "table1_mean_ranks.csv"), table1)


def test_bench_on_shared_datasets(tmp_path, isolated_cache, datasets_dir):
    out = tmp_path / "shared"
    args = [
        "bench",
        "car",
        "tic-tac-toe",
        "cmc",
        "--folds",
        "5",
        "--tables",
        "1,7",
        "--no-figures",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    table7 = pd.read_csv(out / "table7_bins.csv")
    assert set(table7["n_bins"]) == {5, 10, 20}
    assert set(table7["datasets"]) == {1}  # cmc: car and tic-tac-toe have nothing to bin


def test_synthetic_writes_figure2_table(tmp_path, isolated_cache):
    out = tmp_path / "syn"
    assert main(["synthetic", "--reps", "20", "--no-figures", "-o", str(out)]) == 0
    table = pd.read_csv(out / "figure2_l1_errors.csv")
    assert set(table["alpha_dir"]) == {0.3, 1.0}
    sparse = table[(table["alpha_dir"] == 0.3) & (table["K/N"] >= 0.25)]
    assert (sparse["heb_vs_laplace_%"] > 0).all()


def test_command_line_entry_point_and_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "heb", "--help"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0 and "bench" in done.stdout
    from heb.evaluate.paper import ALL_TABLES

    unknown = str(max(ALL_TABLES) + 1)
    with pytest.raises(SystemExit, match=f"Unknown table.*choose from 1-{max(ALL_TABLES)}"):
        main(["bench", "builtin:iris", "--tables", unknown, "-o", str(tmp_path)])


def test_figure_files_keep_dotted_names(tmp_path, isolated_cache, monkeypatch):
    import heb.figures

    monkeypatch.setattr(heb.figures, "to_image_bytes", lambda fig, fmt="png", **kw: fmt.encode())
    out = tmp_path / "figs"
    assert main(["synthetic", "--reps", "5", "--alpha-dir", "0.3", "-o", str(out)]) == 0
    assert (out / "figure2_alpha0.3.png").read_bytes() == b"png"
    assert (out / "figure2_alpha0.3.svg").read_bytes() == b"svg"


def test_an_unwritable_cache_costs_warnings_not_the_run(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HEB_CACHE_DIR", str(blocker / "cache"))
    out = tmp_path / "out"
    args = ["bench", "builtin:iris", "builtin:wine", "--folds", "3", "--tables", "1,8"]
    assert main([*args, "--no-figures", "-o", str(out)]) == 0
    notes = [n for n in capsys.readouterr().err.splitlines() if n.startswith("heb: note: ")]
    assert len(notes) == 1 and "Results not cached" in notes[0]  # one line, said once
    assert (out / "table1_mean_ranks.csv").exists() and (out / "table8_fit_times.csv").exists()
    done = subprocess.run(
        [sys.executable, "-m", "heb", *args, "--no-figures", "-o", str(tmp_path / "again")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "HEB_CACHE_DIR": str(blocker / "cache")},
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "Results not cached" in done.stderr


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--folds", "1"], "heb: --folds must be a whole number of at least 2"),
        (["--tables", "one"], "--tables takes numbers 1-9"),
        (["--n-bins", "0"], "heb: --n-bins must be a whole number of at least 2"),
        (["--n-bins", "1000000000"], "heb: --n-bins must be between 2 and 1,000, got 1,0"),
    ],
)
def test_bad_settings_are_one_line_errors(tmp_path, isolated_cache, extra, message):
    with pytest.raises(SystemExit, match=message) as caught:
        main(["bench", "builtin:iris", *extra, "--no-figures", "-o", str(tmp_path)])
    assert caught.value.code == 2  # an option's value, before any dataset is read


def test_an_output_folder_that_cannot_be_made_is_a_one_line_error(tmp_path, isolated_cache):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit, match="Cannot write the output folder"):
        main(["synthetic", "--reps", "2", "--no-figures", "-o", str(blocker / "out")])


def test_a_paper_data_set_without_its_shared_copy_names_its_openml_id(
    tmp_path, isolated_cache, monkeypatch, capsys
):
    """A fresh clone has no shared folder: ``bench car`` said only that the folder was
    missing; it now also names the catalogue's OpenML id, which loads the same data."""
    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path / "absent"))
    assert main(["bench", "car", "builtin:iris", "--tables", "1", "--folds", "2",
                 "--no-figures", "-o", str(tmp_path / "out")]) == 0  # fmt: skip
    err = capsys.readouterr().err
    line = next(line for line in err.splitlines() if "shared:car: skipped" in line)
    assert "was not found" in line and line.endswith(
        "dataset; car is also openml:21, read from OpenML or its local cache)"
    ), line
    # a name outside the catalogue has no OpenML id: the line says what names a dataset
    with pytest.raises(SystemExit, match="No dataset could be loaded"):
        main(["bench", "nothing-here", "--tables", "1", "--folds", "2",
              "--no-figures", "-o", str(tmp_path / "out")])  # fmt: skip
    err = capsys.readouterr().err
    assert "shared:nothing-here: skipped" in err and err.count("openml:") == 1
    assert "'nothing-here' is not in the paper's catalogue either; name a file, " in err


def test_a_built_in_name_runs_the_built_in_dataset(tmp_path, isolated_cache, monkeypatch, capsys):
    """``bench zip-codes`` (the app's default dataset) was looked for among the shared
    copies and refused; a bare name no shared copy has is now the built-in one."""
    from heb.cli import _resolve_dataset_specs

    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path / "absent"))
    assert main(["bench", "zip-codes", "--methods", "laplace", "--folds", "2",
                 "--no-figures", "-o", str(tmp_path / "out")]) == 0  # fmt: skip
    assert "zip-codes: 5,000 rows" in capsys.readouterr().err
    assert _resolve_dataset_specs(["iris", "car"]) == ["builtin:iris", "shared:car"]


def test_a_shared_copy_keeps_its_bare_name_before_a_built_in_one(tmp_path, monkeypatch):
    from heb.cli import _resolve_dataset_specs

    (tmp_path / "iris.csv.gz").write_bytes(b"")
    (tmp_path / "manifest.json").write_text('[{"name": "iris", "target": "class"}]')
    monkeypatch.setenv("HEB_DATASETS_DIR", str(tmp_path))
    assert _resolve_dataset_specs(["iris", "wine"]) == ["shared:iris", "builtin:wine"]


def test_a_dataset_name_with_the_engine_says_the_engine_takes_files(tmp_path, capsys):
    """ "There is no file or folder 'builtin:iris'" hid the cause: --engine reads files."""
    assert main(["bench", "builtin:iris", "--engine", "duckdb", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "'builtin:iris' is a dataset name: run it without --engine." in err, err


def test_the_closing_line_keeps_the_table_numbers_apart_from_the_figure_count():
    """ "Tables 1, 2, 9, 12 figure files" read as a Table 12."""
    from pathlib import Path

    from heb.cli import _written_line

    tables = {"t1": "Table 1: ranks", "t2": "Table 2: Wilcoxon", "t9": "Table 9: references"}
    figures = {f"figure{i}": Path(f"f{i}.png") for i in range(12)}
    line = _written_line(Path("results"), tables, {3: "one dataset"}, figures, 28.04)
    assert "; Tables 1, 2, 9; 12 figure files to results in 28.0 s" in line, line
    assert line.endswith("; skipped Table 3 (reasons above).")


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, isolated_cache, monkeypatch, capsys):
    """Ctrl-C in a long bench printed a KeyboardInterrupt traceback from wherever the run
    was (scipy's optimiser, a DuckDB query); now one line and the shell's 128 + SIGINT."""
    import heb.cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(heb.cli, "_collect", interrupted)
    try:
        code = main(["bench", "builtin:iris", "--folds", "3", "--no-figures", "-o", str(tmp_path)])
    except KeyboardInterrupt:  # not raised on: it would stop the whole test session
        pytest.fail("Ctrl-C left main as a KeyboardInterrupt (a traceback)")
    assert code == 130
    err = capsys.readouterr().err.strip()
    assert err.splitlines()[-1] == "heb: Interrupted."
    assert "Traceback" not in err


def test_an_interrupted_figure_cache_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    """The figure cache's temporary file was removed after an OSError only: Ctrl-C (or any
    other exception) in the write left ``*.tmp`` files in the cache for good."""
    from pathlib import Path

    import heb.cli

    def interrupted(self, data):
        with open(self, "wb") as handle:  # part of the file, then Ctrl-C
            handle.write(data[:1])
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_bytes", interrupted)
    cached = tmp_path / "figures" / "abc.png"
    with pytest.raises(KeyboardInterrupt):
        heb.cli._keep_figure(cached, b"png bytes")
    assert list((tmp_path / "figures").iterdir()) == []


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    """The installed ``heb`` and ``python -m heb`` import heb.cli (scipy, scikit-learn) in
    ``heb.__main__.run``: a Ctrl-C there printed the traceback of whichever import."""
    import builtins

    from heb.__main__ import run

    importing = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "heb.cli":
            raise KeyboardInterrupt
        return importing(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert run() == 130
    assert capsys.readouterr().err == "heb: Interrupted.\n"


def test_a_file_named_like_a_formula_is_quoted_in_the_bench_csvs(tmp_path, isolated_cache):
    """The dataset column is the file's name, the user's text: heb bench wrote
    '=2+3 evil' into folds.csv and the summary CSV, which a spreadsheet runs; fresh and
    served from the cache alike it starts with a quote (numbers and methods unchanged)."""
    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 90), "b": rng.choice(["u", "v"], 90)})
    frame["label"] = np.where(frame["a"] == "x", "p", "q")
    data = tmp_path / "=2+3 evil.csv"
    frame.to_csv(data, index=False)
    for run in ("fresh", "served"):
        out = tmp_path / run
        args = ["bench", str(data), "--methods", "laplace,heb-m", "--folds", "3"]
        assert main([*args, "--no-figures", "-o", str(out)]) == 0
        for name in ("folds.csv", "summary_mean_sd.csv"):
            written = pd.read_csv(out / name)
            assert set(written["dataset"]) == {"'=2+3 evil"}, (run, name)
            assert set(written["method"]) == {"Laplace", "HEB-M"}


class _Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_an_escape_in_a_files_name_is_shown_not_run_on_a_terminal(
    tmp_path, isolated_cache, monkeypatch
):
    """A file named 'e<ESC>[31mRED.csv' turned the terminal red (an ESC ... could also
    clear it or set its title): on a terminal the name's control characters print as
    escapes; a pipe or a file still gets the text as it is."""
    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 90), "b": rng.choice(["u", "v"], 90)})
    frame["label"] = np.where(frame["a"] == "x", "p", "q")
    data = tmp_path / "e\x1b[31mRED.csv"
    frame.to_csv(data, index=False)
    err, out = _Terminal(), _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    args = ["bench", str(data), "--methods", "laplace,heb-m", "--folds", "3", "--no-figures"]
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    said = err.getvalue() + out.getvalue()
    assert "e\\x1b[31mRED" in said and "\x1b" not in said
    assert sys.stderr is err and sys.stdout is out  # put back after the run


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_bench_refuses_a_fifo_without_blocking(tmp_path):
    """heb bench hashed each file for its cache key with read_bytes() before the loader
    looked at it: on a FIFO it blocked forever (on /dev/zero it would fill the memory);
    now the loader's one sentence comes at once."""
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "heb", "bench", str(fifo), "--no-figures", "-o",
             str(tmp_path / "out")],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "HEB_CACHE_DIR": str(tmp_path / "cache")},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("heb bench blocked on a FIFO")
    assert "'pipe.csv' is not a regular file" in done.stderr
    assert "Traceback" not in done.stderr and done.returncode == 2


@pytest.mark.parametrize(
    "signum, line, code",
    [("SIGTERM", "heb: Terminated.", 143), ("SIGINT", "heb: Interrupted.", 130)],
)
def test_a_signal_during_a_duckdb_query_ends_with_its_line(monkeypatch, capsys, signum, line, code):
    """Ctrl-C or SIGTERM while DuckDB ran a query (heb bench --engine duckdb typing a large
    CSV) ended in a traceback, RuntimeError: Query interrupted, exit code 1: DuckDB swaps
    the handler's exception for its own. It ends as a signal anywhere else does.

    DuckDB 2.0 stops a query on SIGTERM's handler within a second but on SIGINT only after
    some 18 s (its own Ctrl-C handling), so the SIGINT case swaps the exception as DuckDB
    does, at once."""
    import signal
    import threading
    import time

    import duckdb

    import heb.cli

    def long_query(args):
        if signum == "SIGINT":
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
            except KeyboardInterrupt:
                raise RuntimeError("Query interrupted") from None
        threading.Timer(1.0, os.kill, (os.getpid(), getattr(signal, signum))).start()
        duckdb.connect().execute(
            "SELECT count(*) FROM range(20000000000) t(x) WHERE x * x % 7 = 3"
        ).fetchone()
        return 0

    monkeypatch.setattr(heb.cli, "bench", long_query)
    # a terminal's Python has its default Ctrl-C handler (a pytest-xdist worker ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["bench", "builtin:iris"]) == code
    finally:
        signal.signal(signal.SIGINT, previous)
    assert capsys.readouterr().err.strip().splitlines()[-1] == line
