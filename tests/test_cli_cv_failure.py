"""``heb bench``: a dataset that loads but whose cross-validation fails is skipped with a
line naming it and why, as the app's Benchmark does (it stopped the whole run)."""

from __future__ import annotations

import pandas as pd
import pytest

import heb.evaluate
from heb.cli import main

ARGS = ["--methods", "Laplace,HEB-M", "--folds", "2", "--no-figures"]


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _failing_on(monkeypatch, name: str) -> list[str]:
    """``cross_validate`` that fails for the dataset called ``name`` (as a fit out of
    memory would) and runs the others; the names it was called with."""
    real = heb.evaluate.cross_validate
    calls: list[str] = []

    def cross_validate(dataset, *args, **kwargs):
        calls.append(dataset.name)
        if dataset.name == name:
            raise MemoryError(f"Unable to allocate 3.1 GiB for {name}. And more text.")
        return real(dataset, *args, **kwargs)

    monkeypatch.setattr(heb.evaluate, "cross_validate", cross_validate)
    return calls


def test_case_cli_dataset_fails_in_cross_validation(tmp_path, isolated_cache, monkeypatch, capsys):
    out = tmp_path / "out"
    specs = ["builtin:iris", "builtin:wine", "builtin:zip-codes"]
    _failing_on(monkeypatch, "wine")
    assert main(["bench", *specs, *ARGS, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "[2/3] wine: skipped (cross-validation failed: Unable to allocate 3.1 GiB for wine.)"
        in err.splitlines()
    ), err
    assert "this run is not cached, as a dataset's cross-validation failed" in err
    folds = pd.read_csv(out / "folds.csv")
    assert sorted(folds["dataset"].unique()) == ["iris", "zip-codes"]
    assert len(folds) == 2 * 2 * 2  # 2 datasets x 2 methods x 2 folds: nothing of wine
    # the next run (memory freed) is not served from the cache: it tries wine again
    monkeypatch.undo()
    monkeypatch.setenv("HEB_CACHE_DIR", str(isolated_cache))
    assert main(["bench", *specs, *ARGS, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "from the cache" not in err and "skipped" not in err
    assert sorted(pd.read_csv(out / "folds.csv")["dataset"].unique()) == [
        "iris",
        "wine",
        "zip-codes",
    ]
    # and that complete run is cached
    assert main(["bench", *specs, *ARGS, "-o", str(out)]) == 0
    assert "Served 3 datasets from the cache." in capsys.readouterr().err


def test_a_failure_in_a_later_variant_leaves_none_of_the_datasets_rows(
    tmp_path, isolated_cache, monkeypatch, capsys
):
    """Table 6 cross-validates Lidstone once per alpha: a failure in one of them must not
    leave the dataset's earlier variants in the tables."""
    real = heb.evaluate.cross_validate
    seen: list[str] = []

    def cross_validate(dataset, methods, *args, **kwargs):
        seen.append(dataset.name)
        if dataset.name == "wine" and seen.count("wine") == 2:
            raise MemoryError("")
        return real(dataset, methods, *args, **kwargs)

    monkeypatch.setattr(heb.evaluate, "cross_validate", cross_validate)
    out = tmp_path / "out"
    specs = ["builtin:iris", "builtin:wine", "builtin:breast-cancer"]
    assert main(["bench", *specs, "--tables", "6", "--folds", "2", "--no-figures",
                 "-o", str(out)]) == 0  # fmt: skip
    assert seen.count("wine") == 2  # the first variant ran, the second failed
    assert "[2/3] wine: skipped (cross-validation failed: MemoryError)" in capsys.readouterr().err
    assert "wine" not in set(pd.read_csv(out / "folds.csv")["dataset"])


def test_every_dataset_failing_in_cross_validation_says_so(
    tmp_path, isolated_cache, monkeypatch, capsys
):
    _failing_on(monkeypatch, "iris")
    with pytest.raises(SystemExit, match=r"No dataset could be cross-validated \(the reasons"):
        main(["bench", "builtin:iris", *ARGS, "-o", str(tmp_path / "out")])
    assert "[1/1] iris: skipped (cross-validation failed" in capsys.readouterr().err


def test_the_reliability_figures_leave_out_a_dataset_whose_cross_validation_failed(
    tmp_path, isolated_cache, monkeypatch, capsys
):
    """Table 4's reliability diagrams cross-validate the high-cardinality datasets again:
    the one that failed is not run a second time (it failed the whole run there)."""
    calls = _failing_on(monkeypatch, "zip-codes")
    out = tmp_path / "out"
    specs = ["builtin:iris", "builtin:zip-codes", "builtin:wine"]
    assert main(["bench", *specs, "--tables", "4", "--folds", "2", "-o", str(out)]) == 0
    assert calls.count("zip-codes") == 1
    err = capsys.readouterr().err
    assert "[2/3] zip-codes: skipped (cross-validation failed" in err
    assert sorted(pd.read_csv(out / "folds.csv")["dataset"].unique()) == ["iris", "wine"]
