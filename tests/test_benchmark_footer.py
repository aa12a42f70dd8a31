"""Exported figures' footers: a benchmark's own settings, and long lists wrapped, not cut."""

from __future__ import annotations

import pandas as pd

from explorer.benchmarking import benchmark_footer
from heb.figures.footer import FOOTER_LINE_CHARS, footer_lines

METHODS = [
    "Laplace", "Lidstone", "KT", "m-estimate", "TE", "HEB-U", "HEB-M", "HEB-H", "Laplace+GR",
    "HEB-M+GR", "AODE", "HEB-AODE", "TAN", "HEB-TAN", "CategoricalNB", "TargetEncoder+LR",
    "HistGradientBoosting",
]  # fmt: skip


def test_the_footer_names_the_benchmarks_datasets_methods_and_settings_only():
    """It carried the URL's values: the sidebar dataset, Compare's folds and m = 20,
    where the benchmark ran m = 2."""
    frame = pd.DataFrame(
        [(d, m, f) for d in ("car", "iris") for m in ("Laplace", "HEB-M") for f in range(3)],
        columns=["dataset", "method", "fold"],
    )
    settings = {"n_bins": 10, "missing": "impute", "max_rows": 20000}
    text = benchmark_footer(frame, settings)
    assert text == (
        "HEB Explorer · benchmark · datasets=car, iris · methods=Laplace, HEB-M · folds=3 · "
        "n_bins=10 · missing=impute · max_rows=20000"
    )
    assert "params" not in text and "dataset=" not in text


def test_a_long_method_list_wraps_after_its_commas():
    text = "HEB Explorer · benchmark · methods=" + ", ".join(METHODS) + " · folds=10"
    lines = footer_lines(text)
    assert all(len(line) <= FOOTER_LINE_CHARS for line in lines)
    listed = " ".join(lines).split("methods=")[1].split(" · ")[0]
    assert listed.replace(", ", ",").replace(", ", ",").split(",") == [
        m.strip() for m in ",".join(METHODS).split(",")
    ]
    assert any(line.startswith("methods=Laplace, ") for line in lines)
    assert lines[-1].endswith("folds=10")
