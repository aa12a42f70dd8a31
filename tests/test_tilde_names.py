"""A file whose name begins with ``~`` (``~x.csv``, a spreadsheet's ``~$book.csv`` lock
file): pathlib read it as the home folder of a user ``x.csv`` and raised RuntimeError
("Could not determine home directory"), a traceback from ``heb bench``, ``heb fit`` and
the large-file source, even written ``./~x.csv`` (pathlib drops the ``./``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app

from heb.paths import user_path


def test_only_a_leading_tilde_of_a_known_user_is_a_home_folder():
    home = Path.home()
    assert user_path("~") == home and user_path("~/data/x.csv") == home / "data" / "x.csv"
    assert user_path("~nosuch_user_zz9/x.csv") == Path("~nosuch_user_zz9/x.csv")
    assert user_path("./~x.csv") == Path("~x.csv")  # pathlib's own reading, not expanded
    assert user_path("a~b.csv") == Path("a~b.csv")
    assert user_path(Path("~$book.csv")) == Path("~$book.csv")


def _frame(n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    return pd.DataFrame({"k": rng.choice(list("abc"), n), "y": rng.choice(list("pq"), n)})


@pytest.mark.parametrize("name", ["~x.csv", "~$book.csv"])
def test_case_file_name_with_a_leading_tilde(name, tmp_path, monkeypatch):
    from heb.cli import main

    _frame().to_csv(tmp_path / name, index=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert main(["bench", f"./{name}", "--methods", "Laplace", "--folds", "3", "-o", str(out),
                 "--no-figures"]) == 0  # fmt: skip
    assert (out / "folds.csv").is_file()
    assert main(["fit", name, "-o", str(tmp_path / "m.json")]) == 0
    assert main(["bench", name, "--engine", "duckdb", "--methods", "Laplace", "--folds", "3",
                 "-o", str(tmp_path / "out2"), "--no-figures"]) == 0  # fmt: skip


def test_the_large_file_source_opens_a_file_named_with_a_tilde(tmp_path, monkeypatch):
    from heb.scale import DATA_ROOT_ENV

    _frame(400).to_parquet(tmp_path / "~x.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    at = open_app(clean=False, large_file="~x.parquet")
    assert_clean(at)
    assert any(m.value == "400" for m in at.metric), [m.value for m in at.metric]


@pytest.mark.parametrize("name", ["~", "~/x.parquet", "~root/x.parquet"])
def test_a_home_folder_is_still_refused_by_the_large_file_source(name, tmp_path):
    from explorer.large_files import check_name
    from heb.data import DataError

    with pytest.raises(DataError, match="is not a path relative to the data root"):
        check_name(name, tmp_path)
