"""``bench --methods`` over 2+ datasets ranks the chosen methods, as the Benchmark page does.

The command line ranked only the paper's seven smoothers (Table 1); a comparison of chosen
methods over several datasets printed their mean ± sd per dataset and no rank, Friedman
test or CD diagram, which the app's Benchmark page draws for the same run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.cli import main
from heb.evaluate import benchmark_tables
from heb.evaluate.paper import ranks_table, table1
from heb.registry import METRIC_LABELS, METRICS, TABLE1_METHODS

DATASETS = ["builtin:zip-codes", "builtin:iris", "builtin:breast-cancer"]
METHODS = ["Laplace", "HEB-M", "KT"]


def _bench(out, *extra: str) -> int:
    return main(["bench", *DATASETS, "--methods", "laplace,heb-m,kt", "--folds", "3",
                 "-o", str(out), *extra])  # fmt: skip


def test_the_chosen_methods_are_ranked_printed_and_served_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert _bench(out, "--no-figures") == 0
    said = capsys.readouterr()
    folds = pd.read_csv(out / "folds.csv")
    ranks = pd.read_csv(out / "methods_mean_ranks.csv")
    assert list(ranks.columns) == ["metric", *METHODS, "friedman_p", "CD"]
    assert ranks["metric"].tolist() == [METRIC_LABELS[m] for m in METRICS]
    for metric, (_, row) in zip(METRICS, ranks.iterrows(), strict=True):
        page = benchmark_tables(folds, metric)  # the Benchmark page's numbers
        np.testing.assert_allclose(
            row[METHODS].to_numpy(float), page["avg_ranks"][METHODS].round(3), atol=1e-12
        )
        assert row["friedman_p"] == page["friedman"]["p_value"]
        assert row["CD"] == round(page["cd"], 3)
    assert "# Mean Friedman ranks of the chosen methods over the datasets" in said.out
    assert "methods_mean_ranks (mean ranks, Friedman p, CD per metric)" in said.err
    assert _bench(out, "--no-figures") == 0  # from the cache: printed again
    again = capsys.readouterr()
    assert "Served 3 datasets from the cache." in again.err
    assert "# Mean Friedman ranks of the chosen methods" in again.out


def test_cd_diagrams_of_the_chosen_methods_are_drawn(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert _bench(out) == 0
    svg = (out / "cd_log_loss.svg").read_text()
    assert all(f">{m} (" in svg or f") {m}<" in svg for m in METHODS), svg[:400]
    assert "Lidstone" not in svg  # the chosen methods, not Table 1's seven
    assert sorted(p.name for p in out.glob("cd_*.png")) == sorted(f"cd_{m}.png" for m in METRICS)


def test_one_dataset_or_one_method_writes_no_ranks_and_says_nothing_of_them(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    one = tmp_path / "one"
    assert main(["bench", "builtin:iris", "--methods", "laplace,kt", "--folds", "3",
                 "-o", str(one)]) == 0  # fmt: skip
    alone = tmp_path / "alone"
    assert main(["bench", *DATASETS[:2], "--methods", "laplace", "--folds", "3",
                 "-o", str(alone)]) == 0  # fmt: skip
    said = capsys.readouterr()
    for folder in (one, alone):
        assert not list(folder.glob("methods_mean_ranks.*")) and not list(folder.glob("cd_*"))
    assert "ranks" not in said.out + said.err and "CD diagrams skipped" not in said.err


def test_table1_is_the_ranks_of_its_seven_smoothers():
    rng = np.random.default_rng(0)
    rows = [
        {"dataset": d, "method": m, "fold": k, "variant": "main",
         **{metric: rng.random() for metric in METRICS}}
        for d in ("a", "b", "c") for m in TABLE1_METHODS for k in range(2)
    ]  # fmt: skip
    frame = pd.DataFrame(rows)
    pd.testing.assert_frame_equal(table1(frame), ranks_table(frame, TABLE1_METHODS))
    two = ranks_table(frame, ["Laplace", "KT"])
    assert list(two.columns) == ["metric", "Laplace", "KT", "friedman_p", "CD"]
