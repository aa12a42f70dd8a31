"""``python -m heb make-data`` and ``bench --engine``: the engine's numbers, one-sentence errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from heb.cli import main
from heb.registry import METRICS, TABLE1_METHODS
from heb.scale import DuckDBEngine, cross_validate, open_source, write_clicks
from tests.peers import require_java, require_module

ROWS = 3_000


@pytest.fixture(scope="module")
def clicks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clicks")
    return write_clicks(folder / "clicks.parquet", ROWS, seed=5, n_features=4)


def _one_sentence_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heb: ") and "\n" not in err and "Traceback" not in err
    assert err.endswith(".") and err.count(". ") == 0
    return err


def test_make_data_writes_the_generator_s_file(tmp_path, capsys):
    out = tmp_path / "made.parquet"
    assert main(["make-data", "clicks", "--rows", "1_500", "-o", str(out), "--seed", "3"]) == 0
    assert "Wrote 1,500 rows" in capsys.readouterr().out
    direct = write_clicks(tmp_path / "direct.parquet", 1_500, seed=3)
    assert pq.read_table(out).equals(pq.read_table(direct))


def test_bench_on_duckdb_gives_the_scale_cv_numbers(clicks, tmp_path):
    out = tmp_path / "out"
    argv = [str(clicks), "--engine", "duckdb", "--folds", "3", "--tables", "8"]
    assert main(["bench", *argv, "-o", str(out), "--no-figures", "--no-cache"]) == 0
    folds = pd.read_csv(out / "folds.csv")
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(clicks, root=clicks.parent))
    expected = cross_validate(engine, "click", TABLE1_METHODS, n_splits=3).folds
    assert set(folds["dataset"]) == {"clicks"} and set(folds["variant"]) == {"main"}
    assert folds["method"].tolist() == expected["method"].tolist()
    assert folds["fold"].tolist() == expected["fold"].tolist()
    for metric in METRICS:
        np.testing.assert_allclose(folds[metric], expected[metric], rtol=1e-12, atol=0)
    table8 = pd.read_csv(out / "table8_fit_times.csv").set_index("dataset")
    assert set(TABLE1_METHODS) <= set(table8.columns)
    assert table8.loc["x Laplace", "Laplace"] == pytest.approx(1.0)
    # every row says its unit: the values are seconds (the markdown shows ms), the last a ratio
    assert table8["unit"].tolist() == ["seconds per fold"] * 2 + ["ratio to Laplace"]


def test_bench_ranks_two_files_on_the_engine(clicks, tmp_path):
    other = write_clicks(tmp_path / "second.parquet", ROWS, seed=6, n_features=4)
    out = tmp_path / "out"
    argv = [str(clicks), str(other), "--engine", "duckdb", "--folds", "2", "--tables", "1"]
    assert main(["bench", *argv, "-o", str(out), "--no-figures", "--no-cache"]) == 0
    table1 = pd.read_csv(out / "table1_mean_ranks.csv")
    ranks = table1[list(TABLE1_METHODS)].to_numpy()
    # seven methods ranked on each dataset: every row of mean ranks sums to 1 + ... + 7
    np.testing.assert_allclose(ranks.sum(axis=1), 28.0, atol=0.01)
    assert set(pd.read_csv(out / "folds.csv")["dataset"]) == {"clicks", "second"}


def test_bad_inputs_are_one_sentence_and_exit_2(clicks, tmp_path, capsys):
    text = tmp_path / "notes.docx"
    text.write_text("a,b\n1,2\n")
    one = tmp_path / "one.parquet"
    pd.DataFrame({"x": np.arange(8), "y": ["a"] * 8}).to_parquet(one)
    out = str(tmp_path / "out")
    err = _one_sentence_error(capsys, ["bench", str(text), "--engine", "duckdb", "-o", out])
    assert "neither parquet nor delimited text" in err
    err = _one_sentence_error(
        capsys, ["bench", str(one), "--engine", "duckdb", "--tables", "8", "-o", out]
    )
    assert "only one class ('a')" in err
    missing = str(tmp_path / "absent.parquet")
    err = _one_sentence_error(capsys, ["bench", missing, "--engine", "duckdb", "-o", out])
    assert "There is no file or folder" in err
    err = _one_sentence_error(capsys, ["bench", "--engine", "duckdb", "-o", out])
    assert "needs a parquet / CSV file or folder path" in err
    folder = tmp_path / "parts"
    folder.mkdir()
    pd.DataFrame({"x": [1, 2], "y": ["a", "b"]}).to_parquet(folder / "a.parquet")
    pd.DataFrame({"x": ["1", "2"], "y": ["a", "b"]}).to_parquet(folder / "b.parquet")
    err = _one_sentence_error(capsys, ["bench", str(folder), "--engine", "duckdb", "-o", out])
    assert "Column 'x' is int64 in 'a.parquet' but string" in err
    argv = ["bench", str(clicks), "--engine", "duckdb", "--target", "nope", "-o", out]
    assert "no column 'nope'" in _one_sentence_error(capsys, argv)


def test_spark_without_java_is_one_sentence(clicks, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH
    argv = ["bench", str(clicks), "--engine", "spark", "-o", str(tmp_path / "out")]
    assert "no Java runtime was found" in _one_sentence_error(capsys, argv)


def test_spark_with_a_java_home_of_no_jdk_is_one_sentence(clicks, tmp_path, monkeypatch, capsys):
    # pyspark's launcher runs $JAVA_HOME/bin/java and ignores PATH's java: before, the run
    # printed the launcher's shell errors and "[JAVA_GATEWAY_EXITED] Java gateway process
    # exited before sending its port number", naming neither Java's absence nor JAVA_HOME
    pytest.importorskip("pyspark")
    nowhere = tmp_path / "no-jdk"
    monkeypatch.setenv("JAVA_HOME", str(nowhere))
    argv = ["bench", str(clicks), "--engine", "spark", "-o", str(tmp_path / "out")]
    err = _one_sentence_error(capsys, argv)
    assert f"JAVA_HOME is '{nowhere}', which holds no bin/java" in err
    assert "GATEWAY" not in err


def test_bench_on_spark_gives_the_same_table_shape(clicks, tmp_path):
    require_java()
    require_module("pyspark", "Spark runs the engine path")
    out = tmp_path / "out"
    argv = [str(clicks), "--engine", "spark", "--spark-master", "local[2]", "--folds", "2"]
    assert main(["bench", *argv, "--tables", "8", "-o", str(out), "--no-figures"]) == 0
    folds = pd.read_csv(out / "folds.csv")
    assert sorted(set(folds["method"])) == sorted(TABLE1_METHODS)
    assert folds.groupby("method")["fold"].nunique().eq(2).all()
    assert folds["accuracy"].between(0, 1).all() and (folds["log_loss"] > 0).all()


def test_table7_leaves_out_a_file_with_no_numeric_column_on_the_engine(tmp_path, capsys):
    """As in memory (``_with_bins``): a file whose features are all categories has nothing
    to bin, so Table 7's other bin counts would give the main run's numbers again. The
    engine path ran them anyway (a full count-and-score pass each, on every row) and wrote a
    Table 7 of identical rows; a file with a numeric column still gets its passes."""
    rng = np.random.default_rng(0)
    n = 400
    text = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n)})
    text["y"] = rng.choice(["u", "v"], n)
    text.to_parquet(tmp_path / "text.parquet")
    mixed = text.assign(level=rng.normal(size=n))[["a", "b", "level", "y"]]
    mixed.to_parquet(tmp_path / "mixed.parquet")
    for name, has_numbers in (("text", False), ("mixed", True)):
        out = tmp_path / f"out_{name}"
        argv = [str(tmp_path / f"{name}.parquet"), "--engine", "duckdb", "--folds", "2"]
        assert main(["bench", *argv, "--tables", "7", "-o", str(out), "--no-figures"]) == 0
        err = capsys.readouterr().err
        variants = set(pd.read_csv(out / "folds.csv")["variant"])
        if has_numbers:
            assert variants == {"main", "bins=5", "bins=20"}
            assert (out / "table7_bins.csv").exists()
        else:
            assert variants == {"main"}
            assert f"  {name}: no numeric column to bin; left out of Table 7." in err
            assert "Table 7 skipped: No dataset has a numeric column to bin" in err
            assert not (out / "table7_bins.csv").exists()


_STOPPED_MID_SPILL = """
import sys, time
import heb.scale.fold_files as fold_files
from heb.cli import main

def stalled(self, batches, on_batch=None):  # the spill of every row, stopped half-way
    (self.folder / "fold_0.i32").write_bytes(b"0" * 4096)
    print(self.folder, flush=True)
    time.sleep(120)

fold_files.FoldFiles.write = stalled
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_mid_run_removes_the_fold_files_and_is_one_line(clicks, tmp_path):
    """``kill PID`` (and a CI or batch system's timeout) sends SIGTERM, whose default
    action ended Python without running ``finally``: the run's temporary fold files (4
    bytes per row and column: gigabytes for the README's 50-million-row click log) stayed
    in the temporary folder for good. Now SIGTERM ends the run as Ctrl-C does."""
    import os
    import signal
    import subprocess
    import sys

    argv = [str(clicks), "--engine", "duckdb", "--folds", "2", "--tables", "4", "--no-cache"]
    argv += ["--no-figures", "-o", str(tmp_path / "out")]
    root = Path(__file__).resolve().parents[1]
    run = subprocess.Popen(
        [sys.executable, "-c", _STOPPED_MID_SPILL, "bench", *argv],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    try:
        folder = Path(run.stdout.readline().strip())
        assert folder.name.startswith("heb_folds_") and (folder / "fold_0.i32").exists()
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 128 + signal.SIGTERM
    assert not folder.exists()
    assert err.strip().splitlines()[-1] == "heb: Terminated."


def test_a_dropped_column_is_said_on_the_engine_path_as_in_memory(tmp_path, capsys):
    """``bench --drop customer_id`` said "Left out 'customer_id' ..." in memory and
    nothing with ``--engine duckdb`` (a new-user trial)."""
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "customer_id": np.arange(n),
            "plan": rng.choice(["Basic", "Premium"], n),
            "churn": rng.choice(["yes", "no"], n),
        }
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    said = "  t: Left out 'customer_id' (row identifiers or ignored columns)."
    for engine in ([], ["--engine", "duckdb"]):
        argv = ["bench", str(path), "--methods", "laplace", "--drop", "customer_id"]
        argv += ["--no-figures", "--folds", "3", "-o", str(tmp_path / "o"), *engine]
        assert main(argv) == 0
        assert said in capsys.readouterr().err.splitlines(), engine
