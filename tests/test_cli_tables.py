"""The bench CLI's tables and options: --categorical over several files, Table 3 on data
outside the catalogue (K_max from the data), markdown tables without exponents."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from heb.cli import main


def _shops(folder, name: str, zip_name: str, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    n = 400
    z = rng.integers(0, 200, n)
    y = (rng.random(n) < 0.3 + 0.4 * (z % 3 == 0)).astype(int)
    path = folder / name
    frame = pd.DataFrame({zip_name: z, "a": rng.choice(list("abc"), n), "y": y})
    frame.to_csv(path, index=False)
    return str(path)


def test_categorical_over_several_files_declares_where_present_and_says_where_not(tmp_path, capsys):
    first = _shops(tmp_path, "shops.csv", "zip")
    second = _shops(tmp_path, "shops2.csv", "zip2", seed=1)
    out = tmp_path / "out"
    args = ["bench", first, second, "--categorical", "zip", "--folds", "2", "--tables", "3"]
    code = main([*args, "--no-figures", "--no-cache", "-o", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    assert "shops2: no column 'zip' to read as categories." in err
    table = pd.read_csv(out / "table3_high_cardinality_logloss.csv")
    # zip read as categories: 200 codes (K_max >= 100) puts shops in Table 3; shops2's
    # zip2 is binned (K_max = 10), so it is not high-cardinality
    assert table["dataset"].tolist() == ["shops"]
    assert table["K_max"].iloc[0] > 100
    text = (out / "table3_high_cardinality_logloss.md").read_text(encoding="utf-8")
    assert "K_max >= 100" in text and "e-0" not in text


def test_summary_markdown_writes_times_in_ms_without_exponents(tmp_path):
    data = _shops(tmp_path, "shops.csv", "zip")
    out = tmp_path / "out"
    args = ["bench", data, "--folds", "2", "--tables", "1", "--no-figures", "--no-cache"]
    assert main([*args, "-o", str(out)]) == 0
    text = (out / "summary_mean_sd.md").read_text(encoding="utf-8")
    assert "fit time per fold (ms)" in text
    assert "e-0" not in text


def test_a_dataset_named_with_markdown_stays_one_literal_cell():
    """A file's name is the user's text: in the bench's markdown a '|' split the dataset
    cell (every later column shifted) and '<img ...>' or '[x](http://...)' rendered as an
    image or a link; they are backslash-escaped, in the summary and the paper tables."""
    from heb.evaluate.paper import summary_markdown, table_markdown

    name = "a|b <img src=x> [L](http://evil) **x**"
    summary = pd.DataFrame(
        {"dataset": [name], "method": ["laplace"], "accuracy_mean": [0.5],
         "accuracy_sd": [0.1], "folds": [3]}
    )  # fmt: skip
    table = pd.DataFrame({"dataset": [name], "Laplace": [0.5], "HEB-M": [0.6]})
    for text in (summary_markdown(summary), table_markdown(table, "table2")):
        row = text.splitlines()[-1]
        cells = [c for c in re.split(r"(?<!\\)\|", row)][1:-1]  # borders not escaped
        assert len(cells) == len(text.splitlines()[0].split("|")) - 2, text
        assert r"a\|b \<img src=x\> \[L\](http://evil) \*\*x\*\*" in cells[0]
