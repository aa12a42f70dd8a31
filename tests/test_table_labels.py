"""Readable markdown tables, Lidstone row labels, Table 3 outside the
catalogue, superscript powers in the zero-counts lesson chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.evaluate import paper


def _frame(datasets=("mine", "yours"), k_max=None) -> pd.DataFrame:
    """A long benchmark frame: two folds of every Table 1 / 3 method per dataset."""
    rng = np.random.default_rng(0)
    methods = [*paper.TABLE_METHODS[1], *paper.TABLE_METHODS[3], "HEB-M+GR"]
    rows = []
    for d in datasets:
        for m in dict.fromkeys(methods):
            for fold in range(2):
                rows.append(
                    {
                        "dataset": d,
                        "method": m,
                        "variant": "main",
                        "fold": fold,
                        **{k: rng.uniform(0.1, 0.9) for k in paper.METRICS},
                        "fit_time": 8.3e-05,
                    }
                )
        for alpha in paper.LIDSTONE_ALPHAS:
            for fold in range(2):
                rows.append(
                    {
                        "dataset": d,
                        "method": f"Lidstone({alpha:g})",
                        "variant": f"Lidstone({alpha:g})",
                        "fold": fold,
                        **{k: rng.uniform(0.1, 0.9) for k in paper.METRICS},
                        "fit_time": 0.0021,
                    }
                )
    frame = pd.DataFrame(rows)
    if k_max is not None:
        frame["k_max"] = frame["dataset"].map(k_max)
    return frame


def test_format_helpers():
    assert paper.format_p(0.0004) == "<0.001"
    assert paper.format_p(0.0456) == "0.046"
    assert paper.format_ms(8.3e-05) == "0.0830"
    assert paper.format_ms(2.345) == "2,345"
    assert "e" not in paper.format_ms(1.2e-7)


def test_summary_markdown_has_no_exponents_and_fixed_decimals():
    text = paper.summary_markdown(paper.summary_table(_frame()))
    assert "e-05" not in text and "8.3e" not in text
    assert "fit time per fold (ms)" in text
    assert "0.0830 ± 0.00" in text  # 8.3e-05 s, in ms
    body = [line for line in text.splitlines()[2:]]
    cells = [cell.strip() for line in body for cell in line.split("|")[3:9]]
    assert all(len(c.split(" ± ")[0].split(".")[1]) == 4 for c in cells)


def test_paper_table_markdown_ranks_p_and_times():
    frame = _frame()
    t1 = paper.table_markdown(paper.table1(frame), "table1_mean_ranks")
    header, _, first, *_ = t1.splitlines()
    assert "e-" not in t1
    ranks = [c.strip() for c in first.split("|")[2:-3]]
    assert all(len(r.split(".")[1]) == 2 for r in ranks)
    t8 = paper.table_markdown(paper.table8(frame), "table8_fit_times")
    assert "milliseconds" in t8 and "0.0830" in t8 and "e-05" not in t8


def test_lidstone_rows_are_labelled_and_unique():
    frame = _frame()
    text = paper.summary_markdown(paper.summary_table(frame))
    rows = [line.split("|")[1:3] for line in text.splitlines()[2:]]
    labels = [(d.strip(), m.strip()) for d, m in rows]
    assert len(labels) == len(set(labels))
    assert ("mine", "Lidstone (α=0.1, default)") in labels
    assert ("mine", "Lidstone α=0.1 (sweep)") in labels
    assert ("mine", "Lidstone") not in labels
    t6 = paper.table_markdown(paper.table6(frame), "table6_lidstone_sweep")
    assert "Lidstone α=0.001 (sweep)" in t6


def test_table3_uses_k_max_outside_the_catalogue():
    with pytest.raises(ValueError, match="K_max"):
        paper.table3(_frame(k_max={"mine": 30, "yours": 99}))
    table = paper.table3(_frame(k_max={"mine": 30, "yours": 150}))
    assert list(table["dataset"]) == ["yours"]
    assert list(table["K_max"]) == [150]
    assert "100" in paper.table3.__doc__


def test_dataset_k_max_counts_bins_and_categories():
    class _Data:
        X = pd.DataFrame({"city": [f"c{i}" for i in range(120)], "x": np.arange(120.0)})
        categorical = ["city"]

    assert paper.dataset_k_max(_Data(), 10) == 120
    _Data.categorical = []
    assert paper.dataset_k_max(_Data(), 10) == 10


def test_zero_counts_powers_are_superscripts():
    from heb.figures.lessons import zero_counts as figures
    from heb.lessons import zero_counts as lesson

    corpus = lesson.toy_spam()
    curve = lesson.underflow_curve(corpus, list(corpus.vocabulary[:3]), 1.0, max_copies=50)
    fig, _ = figures.underflow_figure(curve, corpus.classes, int(curve["n_words"][9]))
    texts = [a.text for a in fig.layout.annotations] + [str(t.hovertemplate) for t in fig.data]
    assert not any("10^" in t for t in texts)
    # one notation in the text and the figure: "≈ 10^-323.3" stood beside "4.9 × 10⁻³²⁴"
    assert any("smallest float64 ≈ 4.9 × 10<sup>−324</sup>" in t for t in texts)
    assert not any("323.3" in t for t in texts)
    assert any("10<sup>%{y:.1f}</sup>" in t for t in texts)


def test_zero_counts_text_and_figure_write_the_smallest_float_alike():
    from pathlib import Path

    from heb.figures.lessons.zero_counts import SMALLEST_FLOAT_HTML

    page = (Path(__file__).parents[1] / "pages" / "lesson_zero_counts.py").read_text("utf-8")
    superscript = str.maketrans("−0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    mantissa, power = SMALLEST_FLOAT_HTML.removesuffix("</sup>").split("<sup>")
    assert f"(about {mantissa}{power.translate(superscript)})" in page


def test_compare_table_shows_fit_time_next_to_the_method():
    from explorer import comparison as cmp
    from heb.data import load_dataset
    from heb.evaluate import cross_validate

    result = cross_validate(load_dataset("builtin:iris"), ["Laplace", "HEB-M"], n_splits=3)
    table, _ = cmp.metrics_table(result)
    assert list(table.columns[:2]) == ["method", "fit time (ms)"]


def test_compare_table_is_narrow_enough_for_1280_px():
    from explorer import comparison as cmp

    config = cmp.table_column_config()
    assert set(config) == {"method", "fit time (ms)"}
    # the method column stays in view when the grid scrolls; 152 px (which held
    # "HistGradientBoosting") pushed the ECE column 9 px past a 1280 px window
    assert config["method"]["pinned"] and 120 <= config["method"]["width"] <= 150
    assert config["method"].get("help") is None  # no shortened method to name
    assert config["fit time (ms)"]["label"] == cmp.FIT_TIME_HEADER
    assert config["fit time (ms)"]["width"] <= 80
    assert "milliseconds" in config["fit time (ms)"]["help"]
    assert cmp.TABLE_DECIMALS == 3


#: the longest method name the Compare grid's 140 px method column shows whole (measured:
#: "HistGradientBoosting" read "HistGradientBoostin" at 1440 px, an analyst's trial)
FITS_METHOD_COLUMN = "TargetEncoder+LR"


def test_every_method_name_in_the_compare_grid_fits_its_column():
    import pandas as pd

    from explorer import comparison as cmp
    from heb import registry

    assert cmp.METHOD_WIDTH == 140
    table = pd.DataFrame({"method": list(registry.METHODS), "x": 0.0})
    shown = cmp.grid_names(table)
    assert max(shown["method"].str.len()) <= len(FITS_METHOD_COLUMN)
    assert shown["method"].is_unique and list(table["method"]) == list(registry.METHODS)
    assert "HistGB" in set(shown["method"])
    # the grid names each shortened method in full: the column's help and the caption
    help_text = cmp.table_column_config(table["method"])["method"]["help"]
    assert help_text == "The method (HistGB is HistGradientBoosting)."
    assert cmp.grid_names_note(table) == "HistGB: HistGradientBoosting."
    assert cmp.grid_names_note(table[table["method"] != "HistGradientBoosting"]) == ""


def test_compare_fit_time_is_the_median_fold_so_a_warm_up_does_not_weigh():
    """A fresh run's first fold warms caches up: its mean put HEB-M (one 0.5 s fold) far
    behind a Laplace whose folds all took longer than HEB-M's other folds."""
    from explorer import comparison as cmp
    from heb.data import load_dataset
    from heb.evaluate import cross_validate

    result = cross_validate(load_dataset("builtin:iris"), ["Laplace", "HEB-M"], n_splits=3)
    times = {"Laplace": [0.020, 0.021, 0.022], "HEB-M": [0.5, 0.010, 0.012]}
    for method, fold_times in times.items():
        result.folds.loc[result.folds["method"] == method, "fit_time"] = fold_times
    table, _ = cmp.metrics_table(result)
    assert table.set_index("method")["fit time (ms)"].to_dict() == {
        "Laplace": "21.0",
        "HEB-M": "12.0",
    }


def test_a_metric_of_tiny_means_gets_the_decimals_that_tell_the_methods_apart():
    """Brier over 100 classes is about 0.009: at three decimals every method read
    "0.009 ± 0.000" and all were bold as the best (an analyst's trial). Such a column gets
    two significant digits; the others keep three decimals."""
    from explorer import comparison as cmp
    from explorer.references import compare_note
    from heb import registry
    from heb.evaluate import CVResult

    class Tiny(CVResult):
        def summary(self):
            return self._frame

    frame = pd.DataFrame(
        {
            "method": ["Laplace", "HEB-M", "CategoricalNB"],
            **{f"{m}_mean": [0.5, 0.6, 0.7] for m in registry.METRICS},
            **{f"{m}_std": [0.01, 0.02, 0.03] for m in registry.METRICS},
        }
    )
    frame["brier_mean"] = [0.008857, 0.008555, 0.0085]
    frame["brier_std"] = [0.00021, 0.00019, 0.0002]
    frame["log_loss_mean"] = [0.00061, 0.00049, 0.0007]  # two significant digits: 5 places
    assert cmp.metric_decimals(frame, "brier") == 4
    assert cmp.metric_decimals(frame, "log_loss") == 5
    assert cmp.metric_decimals(frame, "accuracy") == 3
    tiny = frame.assign(ece_mean=[1e-12, 2e-12, 3e-12])
    assert cmp.metric_decimals(tiny, "ece") == cmp.MAX_TABLE_DECIMALS
    assert cmp.metric_decimals(frame.assign(ece_mean=0.0), "ece") == 3
    assert cmp.metric_decimals(frame.assign(ece_mean=0.01), "ece") == 3  # "0.010"

    style = cmp.best_style(frame)(frame[["method"]].assign(**{
        cmp.metric_column(m): "" for m in registry.METRICS
    }))  # fmt: skip
    bold = style[cmp.metric_column("brier")] != ""
    assert bold.tolist() == [False, False, True]  # 0.0085 alone, not all three at 0.009
    note = compare_note(frame, cmp.table_decimals(frame))
    assert "Brier: CategoricalNB 0.0085, best smoothing method HEB\\-M 0.0086" in note, note
    result = Tiny.__new__(Tiny)
    result._frame = frame
    result.folds = pd.DataFrame({"method": frame["method"], "fit_time": 0.001})
    table, _ = cmp.metrics_table(result)
    assert table[cmp.metric_column("brier")].tolist()[:2] == ["0.0089 ± 0.0002", "0.0086 ± 0.0002"]
    assert table[cmp.metric_column("accuracy")].tolist()[0] == "0.500 ± 0.010"
