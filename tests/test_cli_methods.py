"""``bench --methods``: a quick what-if comparison of chosen methods, in memory and on DuckDB."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import load_builtin
from heb.evaluate import cross_validate
from heb.scale import write_clicks

ARGS = ["bench", "builtin:zip-codes", "--folds", "3", "--no-figures"]


def _summary_rows(text: str) -> dict[str, list[str]]:
    """The printed markdown table's rows, by method."""
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| zip")]
    return {cells[1].strip(): [c.strip() for c in cells] for cells in rows}


def test_the_chosen_methods_are_compared_printed_and_written(tmp_path, capsys):
    out = tmp_path / "out"
    argv = [*ARGS, "--methods", "LAPLACE, heb-m,Heb-M,kt", "--no-cache", "-o", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    rows = _summary_rows(printed)
    assert list(rows) == ["Laplace", "HEB-M", "KT"]
    folds = pd.read_csv(out / "folds.csv")
    assert list(dict.fromkeys(folds["method"])) == ["Laplace", "HEB-M", "KT"]
    assert sorted(p.name for p in out.iterdir()) == [
        "folds.csv",
        "summary_mean_sd.csv",
        "summary_mean_sd.md",
    ]
    expected = cross_validate(load_builtin("zip-codes"), ["laplace", "heb-m", "kt"], n_splits=3)
    mean = expected.folds.groupby("method", sort=False)["log_loss"].mean()
    got = folds.groupby("method", sort=False)["log_loss"].mean()
    np.testing.assert_allclose(got.to_numpy(), mean.to_numpy(), rtol=1e-12)
    header = next(line for line in printed.splitlines() if line.startswith("| dataset"))
    place = [c.strip() for c in header.split("|")[1:-1]].index("Log-loss")
    assert rows["HEB-M"][place].startswith(f"{got['HEB-M']:.4f} ± ")


def test_a_rerun_is_served_and_printed_and_other_methods_are_not(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main([*ARGS, "--methods", "laplace", "-o", out]) == 0
    assert "earlier run" not in capsys.readouterr().err
    assert main([*ARGS, "--methods", "laplace", "-o", out]) == 0
    again = capsys.readouterr()
    assert "Served 1 dataset from the cache." in again.err
    # a second run to one folder replaces the first's files, and says so (a trial)
    assert f"heb: note: {out} holds an earlier run's files; this run replaces them" in again.err
    assert list(_summary_rows(again.out)) == ["Laplace"]
    assert main([*ARGS, "--methods", "laplace,te", "-o", out]) == 0
    other = capsys.readouterr()
    assert "Served" not in other.err
    assert list(_summary_rows(other.out)) == ["Laplace", "TE"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--methods", "laplace,bogus"], "heb: --methods: Unknown method 'bogus'; choose from"),
        (["--methods", "laplace", "--tables", "1"], "heb: --methods and --tables each choose"),
        # an empty shell variable ran every table of the paper, minutes where one was meant
        (["--methods", ""], "heb: --methods names no method; give names such as"),
        (["--methods", " , "], "heb: --methods names no method"),
        (["--tables", ""], "heb: --tables names no table; give numbers 1-9"),
        (["--methods", "laplace", "--tables", ""], "heb: --methods and --tables each choose"),
    ],
)
def test_a_bad_choice_is_one_line_and_exit_code_2(tmp_path, capsys, extra, words):
    with pytest.raises(SystemExit) as exit_info:
        main([*ARGS, *extra, "-o", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(words) and "\n" not in err
    assert not (tmp_path / "out").exists()


def test_on_duckdb_the_methods_run_and_a_tan_is_refused_before_a_scan(tmp_path, capsys):
    data = write_clicks(tmp_path / "clicks.parquet", 1_500, seed=2, n_features=3)
    out = tmp_path / "out"
    argv = ["bench", str(data), "--engine", "duckdb", "--folds", "2", "--no-cache", "--no-figures"]
    assert main([*argv, "--methods", "heb-m,heb-aode", "-o", str(out)]) == 0
    assert list(_summary_rows(capsys.readouterr().out.replace("| clicks", "| zip"))) == [
        "HEB-M",
        "HEB-AODE",
    ]
    assert set(pd.read_csv(out / "folds.csv")["method"]) == {"HEB-M", "HEB-AODE"}
    assert main([*argv, "--methods", "heb-m,tan", "-o", str(tmp_path / "tan")]) == 2
    err = capsys.readouterr().err.strip()
    assert "TAN is a tree-augmented (TAN) method, which the engine path cannot fit" in err
    assert "\n" not in err
    assert not (tmp_path / "tan").exists()
