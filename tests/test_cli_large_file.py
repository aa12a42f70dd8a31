"""The command line on one large file, as a new user meets it.

Methods are checked before any scan (the engine path leaves out what it cannot fit and
says so), one dataset gets every table that can be built plus a mean ± sd table (the rest
are skipped with their reason), bad options are one line on stderr with exit code 2, and
every option has help.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from heb.cli import build_parser, main
from heb.evaluate import benchmark_tables, run_benchmark
from heb.evaluate.paper import summary_table, table4, table5, table6
from heb.paths import REPO_ROOT
from heb.scale import DuckDBEngine, open_source, write_clicks

pytest.importorskip("duckdb")

ROWS = 2_000


@pytest.fixture(scope="module")
def clicks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clicks14")
    return write_clicks(folder / "clicks.parquet", ROWS, seed=7, n_features=4)


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _one_line(err: str) -> str:
    err = err.strip()
    assert "\n" not in err and "Traceback" not in err and "usage:" not in err, err
    assert err.endswith("."), err
    return err


def _no_scan(monkeypatch) -> None:
    """Make any engine start or counting scan fail the test."""
    import heb.cli_scale
    import heb.scale.cv

    def refuse(*args, **kwargs):
        raise AssertionError("scanned before the methods were checked")

    monkeypatch.setattr(heb.cli_scale, "open_engine", refuse)
    monkeypatch.setattr(heb.scale.cv, "count_histograms", refuse)


# ------------------------------------------------------------- 1. methods before scans
def test_scale_cv_refuses_tan_before_counting(clicks, monkeypatch):
    from heb.scale.cv import cross_validate

    engine = DuckDBEngine(threads=1)
    engine.register(open_source(clicks, root=clicks.parent))
    _no_scan(monkeypatch)
    with pytest.raises(
        ValueError, match=r"TAN is a tree-augmented \(TAN\) method.*fits NB and AODE"
    ) as info:
        cross_validate(engine, "click", ["Laplace", "TAN"], n_splits=2)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="CategoricalNB is a reference method"):
        cross_validate(engine, "click", ["CategoricalNB"], n_splits=2)
    engine.close()


def test_engine_table9_is_refused_before_any_scan(clicks, tmp_path, monkeypatch, capsys):
    _no_scan(monkeypatch)
    argv = ["bench", str(clicks), "--engine", "duckdb", "--tables", "1,9", "-o", str(tmp_path)]
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert "Table 9 ranks reference models" in err and "without --engine" in err


def test_engine_default_tables_leave_out_what_it_cannot_fit(clicks, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [str(clicks), "--engine", "duckdb", "--folds", "2", "--no-figures", "--no-cache"]
    assert main(["bench", *argv, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    left_out = [line for line in err.splitlines() if line.startswith("Left out")]
    assert len(left_out) == 1
    assert "Table 9" in left_out[0] and "TAN, HEB-TAN" in left_out[0]
    folds = pd.read_csv(out / "folds.csv")
    assert not {"TAN", "HEB-TAN"} & set(folds["method"])
    assert {"AODE", "HEB-AODE", "HEB-M+GR"} <= set(folds["method"])
    for name in ("table4_ece", "table5_smoothing_x_weighting", "table6_lidstone_sweep"):
        assert (out / f"{name}.csv").exists(), name
    for name in ("table3_high_cardinality_logloss", "table8_fit_times"):
        assert (out / f"{name}.csv").exists(), name
    assert not (out / "table9_references.csv").exists()
    # the four features are IDs, categories all: nothing to bin, as in memory
    assert "  clicks: no numeric column to bin; left out of Table 7." in err
    assert not (out / "table7_bins.csv").exists()
    # one dataset: the significance tables are skipped with their reason
    assert "Table 1 skipped: Friedman / Nemenyi need 2+ datasets (got 1)." in err
    assert "Table 2 skipped:" in err and "needs 2+ datasets (got 1)" in err
    last = err.strip().splitlines()[-1]
    # Table 3 is not a test across datasets: the click log's IDs make it high-cardinality
    assert last.startswith("Wrote folds.csv; summary_mean_sd") and "skipped Tables 1, 2, 7 " in last


def test_engine_explicit_tan_table_drops_tan_with_a_note(clicks, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [str(clicks), "--engine", "duckdb", "--folds", "2", "--tables", "3"]
    assert main(["bench", *argv, "--no-figures", "--no-cache", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "TAN, HEB-TAN from Table 3" in err
    assert set(pd.read_csv(out / "folds.csv")["method"]) == {"AODE", "HEB-AODE"}


# ------------------------------------------------------------------ 2. one dataset
def test_one_dataset_table1_is_skipped_with_its_reason(tmp_path, isolated_cache, capsys):
    out = tmp_path / "one"
    args = ["bench", "builtin:iris", "--folds", "3", "--tables", "1", "-o", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "Table 1 skipped: Friedman / Nemenyi need 2+ datasets (got 1)." in err
    assert "CD diagrams skipped: Friedman / Nemenyi need 2+ datasets (got 1)." in err
    last = err.strip().splitlines()[-1]
    assert "Wrote tables" not in last and "skipped Table 1 (reasons above)" in last
    assert sorted(p.name for p in out.iterdir()) == [
        "folds.csv",
        "summary_mean_sd.csv",
        "summary_mean_sd.md",
    ]
    summary = pd.read_csv(out / "summary_mean_sd.csv")
    assert len(summary) == 7 and (summary["folds"] == 3).all()
    assert "±" in (out / "summary_mean_sd.md").read_text(encoding="utf-8")
    # served from the cache: the same skip reasons, the same closing line
    assert main(args) == 0
    again = capsys.readouterr().err
    assert "Served 1 dataset from the cache." in again
    assert "Table 1 skipped: Friedman / Nemenyi need 2+ datasets (got 1)." in again


def test_one_dataset_tables_4_5_6_have_rows(tmp_path, isolated_cache):
    out = tmp_path / "one"
    args = ["bench", "builtin:wine", "--folds", "3", "--tables", "4,5,6", "--no-figures"]
    assert main([*args, "-o", str(out)]) == 0
    table4 = pd.read_csv(out / "table4_ece.csv")
    assert table4["group"].tolist() == ["not in catalogue"]
    row = table4.iloc[0]
    expected = 100 * (row["HEB-M+GR"] / row["Laplace"] - 1)
    assert row["HEB-M+GR_vs_Laplace_change_%"] == pytest.approx(expected)
    assert row["HEB-M+GR_minus_Laplace"] == pytest.approx(row["HEB-M+GR"] - row["Laplace"])
    table5 = pd.read_csv(out / "table5_smoothing_x_weighting.csv")
    assert len(table5) == 4 * 6 and (table5["datasets"] == 1).all()
    for _, group in table5.groupby("metric"):  # ranks on one dataset: 1 + 2 + 3 + 4
        assert group["avg_rank"].sum() == pytest.approx(10)
    table6 = pd.read_csv(out / "table6_lidstone_sweep.csv")
    assert len(table6) == 7 and table6["Log-loss"].sum() == pytest.approx(28)


def test_table4_sign_follows_the_paper():
    """The paper's Table 4: 0.0597 (Laplace) -> 0.0194 (HEB-M+GR) is a -67% change."""
    frame = pd.DataFrame(
        {
            "dataset": ["amazon-employee-access"] * 3,
            "method": ["Laplace", "HEB-M", "HEB-M+GR"],
            "fold": 0,
            "ece": [0.0597, 0.0406, 0.0194],
            "variant": "main",
        }
    )
    row = table4(frame).iloc[0]
    assert row["group"] == "high-cardinality"
    assert round(row["HEB-M+GR_vs_Laplace_change_%"]) == -68  # 100 (0.0194 / 0.0597 - 1) = -67.5


def test_rank_tables_equal_friedman_ranks_on_several_datasets():
    from heb.data import load_builtin

    datasets = [load_builtin(n) for n in ("iris", "wine", "breast-cancer")]
    methods = ["Laplace", "Laplace+GR", "HEB-M", "HEB-M+GR"]
    frame = run_benchmark(datasets, methods, n_splits=3).assign(variant="main")
    table = table5(frame)
    for metric, group in table.groupby("metric", sort=False):
        name = {"Log-loss": "log_loss", "Accuracy": "accuracy"}.get(metric)
        if name is None:
            continue
        expected = benchmark_tables(frame, name)["avg_ranks"]
        got = group.set_index("method")["avg_rank"]
        np.testing.assert_allclose(got[expected.index], expected.to_numpy(), atol=1e-12)


def test_summary_table_is_mean_and_sd_over_folds():
    frame = pd.DataFrame(
        {
            "dataset": "d",
            "method": ["B", "B", "A", "A"],
            "fold": [0, 1, 0, 1],
            "accuracy": [0.5, 0.7, 0.9, 0.9],
            "fit_time": [1.0, 3.0, 2.0, 2.0],
        }
    )
    summary = summary_table(frame)
    assert summary["method"].tolist() == ["B", "A"]  # the order of the run
    b = summary.iloc[0]
    assert b["accuracy_mean"] == pytest.approx(0.6) and b["accuracy_sd"] == pytest.approx(
        0.1414, 1e-3
    )
    assert b["fit_time_mean"] == pytest.approx(2.0) and b["folds"] == 2


def test_table6_needs_its_runs():
    frame = pd.DataFrame(
        {"dataset": "d", "method": ["HEB-M"], "fold": 0, "accuracy": 0.5, "variant": "main"}
    )
    for metric in ("f1_macro", "log_loss", "brier"):
        frame[metric] = 0.5
    with pytest.raises(ValueError, match="needs the Lidstone runs"):
        table6(frame)


# --------------------------------------------------------------- 3. one-value target
def test_in_memory_one_value_target_shows_the_plain_value(tmp_path, isolated_cache, capsys):
    path = tmp_path / "one.csv"
    pd.DataFrame({"x": np.arange(8) % 3, "y": [1] * 8}).to_csv(path, index=False)
    with pytest.raises(SystemExit):
        main(["bench", str(path), "--tables", "8", "--no-figures", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert "only one class ('1')" in err and "np.int64" not in err


def test_engine_one_value_target_shows_the_plain_value(tmp_path, capsys):
    path = tmp_path / "one.parquet"
    pd.DataFrame({"x": np.arange(8) % 3, "y": [1] * 8}).to_parquet(path)
    argv = ["bench", str(path), "--engine", "duckdb", "--tables", "8", "-o", str(tmp_path / "o")]
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert "only one class ('1')" in err and "np.int64" not in err


def test_engine_unknown_target_lists_the_columns_it_can_be(tmp_path, capsys):
    """The trial's '--target nope' said only that there is no such column."""
    path = tmp_path / "two.parquet"
    pd.DataFrame({"colour": ["r", "g"] * 4, "y": [0, 1] * 4}).to_parquet(path)
    argv = ["bench", str(path), "--engine", "duckdb", "--target", "nope", "-o", str(tmp_path)]
    assert main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert "no column 'nope' to use as the target; --target takes one of 'colour', 'y'." in err


def test_engine_run_draws_the_reliability_diagram_from_its_bins(tmp_path, capsys):
    path = tmp_path / "two.parquet"
    pd.DataFrame({"colour": ["r", "g", "b"] * 10, "y": [0, 1] * 15}).to_parquet(path)
    argv = ["bench", str(path), "--engine", "duckdb", "--tables", "4", "--folds", "2"]
    assert main([*argv, "-o", str(tmp_path / "o"), "--no-cache"]) == 0
    assert "Reliability diagrams skipped" not in capsys.readouterr().err
    svg = (tmp_path / "o" / "reliability_two.svg").read_text()
    assert "two: reliability of the pooled out-of-fold predictions" in svg
    assert "ECE" not in svg
    assert all(label in svg for label in ("Laplace", "HEB-M", "HEB-M+GR"))
    assert (tmp_path / "o" / "reliability_two.png").stat().st_size > 1_000


# --------------------------------------------------------------------- 4. options
@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "x", "--engine", "nonsense"], "heb bench: --engine must be one of duckdb, "),
        (["bench", "x", "--folds", "two"], "heb bench: --folds must be a whole number"),
        (["make-data", "clicks", "-o", "x.parquet"], "heb make-data clicks: --rows is required"),
        (["make-data", "clicks", "--rows", "0", "-o", "x"], "--rows must be a whole number of"),
        (["make-data", "nope"], "heb make-data: the kind must be one of clicks (got 'nope')."),
        (["synthetic", "--reps", "0"], "heb synthetic: --reps must be a whole number"),
    ],
)
def test_parse_errors_are_one_line_with_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert message in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--folds", "1"],
            "heb: --folds must be a whole number of at least 2, got 1.",
        ),
        (["--n-bins", "0"], "heb: --n-bins must be"),
        (["--seed", "-1"], "heb: --seed "),
        (["--max-rows", "-3"], "heb: --max-rows "),
        (["--tables", "one"], "heb: --tables takes numbers 1-9"),
        (["--tables", "12"], "heb: Unknown table 12; choose from 1-9."),
    ],
)
def test_bad_settings_exit_2_with_one_line(tmp_path, isolated_cache, capsys, extra, message):
    with pytest.raises(SystemExit) as info:
        main(["bench", "builtin:iris", *extra, "--no-figures", "-o", str(tmp_path)])
    assert info.value.code == 2
    assert message in _one_line(capsys.readouterr().err)


def test_the_process_exits_2_with_one_line(tmp_path):
    for argv in (["--engine", "nonsense"], ["--folds", "1"]):
        done = subprocess.run(
            [sys.executable, "-m", "heb", "bench", "builtin:iris", *argv, "-o", str(tmp_path)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, done.stderr
        _one_line(done.stderr)


def _actions(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _actions(child)
        else:
            yield parser.prog, action


def test_every_option_has_help():
    missing = [
        f"{prog} {'/'.join(a.option_strings) or a.dest}"
        for prog, a in _actions(build_parser())
        if not a.help
    ]
    assert missing == []


def test_make_data_help_lists_its_kind_and_options():
    def run(*args):
        done = subprocess.run(
            [sys.executable, "-m", "heb", *args], cwd=REPO_ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    top = run("make-data", "--help")
    assert "clicks" in top and "a click log" in top and "options     --rows" not in top
    clicks = run("make-data", "clicks", "--help")
    for text in ("--rows N", "-o FILE, --output FILE", "--seed S", "--features F"):
        assert text in clicks


def test_make_data_into_a_missing_folder_is_one_sentence(tmp_path, capsys):
    out = tmp_path / "absent" / "x.parquet"
    assert main(["make-data", "clicks", "--rows", "10", "-o", str(out)]) == 2
    assert "There is no folder" in _one_line(capsys.readouterr().err)


def test_engine_progress_prints_each_phase_once_and_throttles_repeats():
    """The engine path printed nothing for the 7 minutes of an AODE pair scan: each new
    phase is a line at once; repeats within a phase wait ``every`` seconds; Done is not."""
    from heb.cli_scale import step_printer

    lines: list[str] = []
    progress = step_printer(lines.append, "  clicks · Laplace: ", every=1e9, quiet=0.0)
    progress(0.0, "Counting values on DuckDB")
    progress(0.05, "Counting feature pairs for AODE")
    progress(0.2, "Encoded 100,000 rows")
    progress(0.3, "Encoded 200,000 rows")  # same phase, within the wait: not printed
    progress(0.55, "Fitting and scoring fold 1 of 5")
    progress(0.6, "Fitting and scoring fold 2 of 5")
    progress(1.0, "Done")
    assert [line.split(" (")[0] for line in lines] == [
        "  clicks · Laplace: Counting values on DuckDB",
        "  clicks · Laplace: Counting feature pairs for AODE",
        "  clicks · Laplace: Encoded 100,000 rows",
        "  clicks · Laplace: Fitting and scoring fold 1 of 5",
    ]
    assert lines[1].endswith("(5%, 0 s)")
    every_time: list[str] = []
    again = step_printer(every_time.append, "", every=0.0, quiet=0.0)
    again(0.2, "Encoded 100,000 rows")
    again(0.3, "Encoded 200,000 rows")
    assert len(every_time) == 2
    quick: list[str] = []
    first = step_printer(quick.append, "", every=0.0)
    first(0.0, "Counting values on DuckDB")
    assert quick == []  # the first phase's first seconds print nothing: bad input, one line
    first(0.05, "Counting feature pairs for AODE")
    assert quick == ["Counting feature pairs for AODE (5%, 0 s)"]  # the long scan is said


def test_max_rows_with_the_engine_is_said_to_apply_in_memory(clicks, tmp_path, capsys):
    """--max-rows was taken and silently ignored on the engine (it counts every row): a
    user who asked for a quick 1,000-row look at a 50-million-row file got a full scan
    without a word. The default, not typed, says nothing."""
    argv = ["bench", str(clicks), "--engine", "duckdb", "--folds", "2", "--methods", "laplace"]
    argv += ["--no-figures", "--no-cache"]
    note = "heb: note: --max-rows applies in memory; the engine counts every row."
    assert main([*argv, "--max-rows", "100", "-o", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert note in err.splitlines()
    assert f"clicks: {ROWS:,} rows on DuckDB" in err
    assert main([*argv, "-o", str(tmp_path / "b")]) == 0
    assert "--max-rows" not in capsys.readouterr().err
    assert build_parser().parse_args(["bench"]).max_rows == 20_000
