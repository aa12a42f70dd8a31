"""Mutation-testing gaps in the paper's tables (``heb.evaluate.paper``): each test kills
one hand-made mutant the suite let survive, on small hand-made benchmark frames.

Two mutants were equivalent: ``_mean_ranks``' default direction (every metric it ranks is
in ``HIGHER_IS_BETTER``) and Table 6's filter of "[bins=...]" method names (such rows are
never among the Lidstone runs and HEB-M it keeps).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.evaluate import paper
from heb.registry import METRICS


def _frame(scores: dict[tuple[str, str], float], variant: str = "main", folds: int = 2):
    """A benchmark frame: every metric of (dataset, method) set to its score (a fit time of
    score seconds), the same on each fold."""
    rows = []
    for (dataset, method), score in scores.items():
        for fold in range(folds):
            row = {"dataset": dataset, "method": method, "fold": fold, "variant": variant}
            row.update({metric: score for metric in METRICS})
            row.update(fit_time=score, predict_time=0.0, k_max=10)
            rows.append(row)
    return pd.DataFrame(rows)


def test_table1_ranks_the_main_run_only():
    """Kills table1 without its ``variant == "main"`` filter: rows of another run under a
    Table 1 name (a Lidstone sweep not renamed, say) were averaged into the ranks."""
    methods = paper.TABLE1_METHODS
    main = _frame({(d, m): 0.5 + 0.01 * i for d in ("a", "b", "c") for i, m in enumerate(methods)})
    other = _frame({(d, methods[0]): 0.99 for d in ("a", "b", "c")}, variant="Lidstone(0.1)")
    alone = paper.table1(main)
    mixed = paper.table1(pd.concat([main, other], ignore_index=True))
    pd.testing.assert_frame_equal(alone, mixed)


def test_table1_on_one_dataset_says_why_it_cannot_rank():
    """Kills ``_need_datasets`` at ``n < 1``: one dataset then reached the statistics and
    failed there, without the table's reason and the count."""
    frame = _frame({("a", m): 0.5 for m in paper.TABLE1_METHODS})
    with pytest.raises(ValueError, match=r"need 2\+ datasets \(got 1\)"):
        paper.table1(frame)


def test_table2_skips_a_pair_that_shares_one_dataset():
    """Kills table2 at ``len(scores) < 1``: HEB-TAN and TAN on one common dataset gave a
    Wilcoxon row over a single pair."""
    scores = {(d, m): 0.7 for d in ("a", "b", "c") for m in ("HEB-M", "AODE", "HEB-AODE")}
    scores.update({("a", "TAN"): 0.6, ("a", "HEB-TAN"): 0.65, ("b", "TAN"): 0.6})
    table = paper.table2(_frame(scores))
    assert set(table["comparison"]) == {"HEB-M vs AODE", "HEB-AODE vs AODE"}


def test_table5_names_each_cells_smoothing_and_weighting():
    """Kills table5's ``smoothing`` and ``weighting`` columns as constants: the 2 x 2
    design's cells must say which smoothing and which weighting they are."""
    methods = paper.TABLE_METHODS[5]
    frame = _frame({(d, m): 0.6 + 0.01 * i for d in ("a", "b") for i, m in enumerate(methods)})
    table = paper.table5(frame)
    cells = table.drop_duplicates("method").set_index("method")[["smoothing", "weighting"]]
    assert cells.to_dict("index") == {
        "Laplace": {"smoothing": "Laplace", "weighting": "none"},
        "Laplace+GR": {"smoothing": "Laplace", "weighting": "sqrt-MI"},
        "HEB-M": {"smoothing": "HEB-M", "weighting": "none"},
        "HEB-M+GR": {"smoothing": "HEB-M", "weighting": "sqrt-MI"},
    }


def test_table7_reads_the_default_bins_from_the_main_run_and_counts_its_datasets():
    """Kills table7 without the main-run filter at the default bin count (another run's
    rows of the same name were averaged in) and with ``datasets`` as every binned dataset
    (AODE's 5-bin row ran on one of the two)."""
    methods = paper.TABLE_METHODS[7]
    main = _frame({(d, m): 0.8 for d in ("a", "b") for m in methods})
    stray = _frame({(d, "Laplace"): 0.1 for d in ("a", "b")}, variant="Lidstone(0.1)")
    binned = {(d, f"{m} [bins=5]"): 0.7 for d in ("a", "b") for m in methods if m != "AODE"}
    binned[("a", "AODE [bins=5]")] = 0.7
    table = paper.table7(pd.concat([main, stray, _frame(binned, "bins=5")]), default_bins=10)
    at = table.set_index(["n_bins", "method"])
    assert at.loc[(10, "Laplace"), "accuracy"] == pytest.approx(0.8)
    assert at.loc[(5, "AODE"), "datasets"] == 1
    assert at.loc[(5, "Laplace"), "datasets"] == 2


def test_table8_and_table9_average_the_fit_times_over_datasets():
    """Kills table8's ``mean`` row as a median and table9's ``fit s per fold`` as a
    maximum: three datasets of 1, 2 and 6 ms average to 3 ms."""
    times = {"a": 0.001, "b": 0.002, "c": 0.006}
    methods = paper.TABLE_METHODS[9]
    frame = _frame({(d, m): t for d, t in times.items() for m in methods})
    table8 = paper.table8(frame).set_index("dataset")
    assert table8.loc["mean", "HEB-M"] == pytest.approx(0.003)
    table9 = paper.table9(frame).set_index("method")
    assert table9.loc["HEB-M", "fit s per fold"] == pytest.approx(0.003)
    assert np.allclose(table9["fit time / HEB-M"], 1.0)


def test_a_p_value_of_exactly_one_thousandth_is_written_out():
    """Kills format_p's ``<`` as ``<=``: "<0.001" is for values below 0.001."""
    assert paper.format_p(0.001) == "0.001"
    assert paper.format_p(0.000999) == "<0.001"


# ---------------------------------------------------------------- the HTML report
HOSTILE = '<img src="x" onerror="alert(1)">'


@pytest.fixture(scope="module")
def small_result():
    from heb.data.dataset import finalize
    from heb.evaluate import RunSettings, cross_validate

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), 90), "y": rng.choice(["p", "q"], 90)})
    dataset = finalize(frame, "y", name="small", source="test", declared=["a"])
    settings = RunSettings(n_splits=3)
    result = cross_validate(dataset, ["Laplace"], settings=settings, use_cache=False)
    result.notes.append("The run's own note.")
    return result, settings


def test_every_caption_header_and_title_of_the_report_is_escaped(small_result):
    """Kills report.py's escapes dropped from a table header, the page title, a table's
    caption and a figure's caption (each user text: column and file names)."""
    import plotly.graph_objects as go

    from heb.evaluate.report import comparison_report

    result, settings = small_result
    page = comparison_report(
        result,
        settings,
        dataset="small",
        title=f"Report {HOSTILE}",
        tables={f"Table {HOSTILE}": pd.DataFrame({HOSTILE: [1.5]})},
        figures={f"Figure {HOSTILE}": go.Figure()},
    )
    assert HOSTILE not in page
    escaped = HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert page.count(escaped.replace('"', "&quot;")) == 5  # title twice, 3 captions/headers


def test_the_report_keeps_the_runs_notes_and_names_the_dataset_once(small_result):
    """Kills report.py dropping ``result.notes`` (a subsample or fewer folds went unsaid)
    and keeping ``dataset`` among the query's settings rows (it is the first row)."""
    from heb.evaluate.report import comparison_report

    result, settings = small_result
    page = comparison_report(
        result, settings.replace(fingerprint="f"), dataset="small", notes=["Mine."]
    )
    assert '<p class="note">The run&#x27;s own note.</p>' in page
    assert '<p class="note">Mine.</p>' in page
    assert page.count("<td>dataset</td>") == 1


def test_a_column_reaching_100_gets_one_decimal():
    """Kills report.py's ``>= 100`` as ``> 100``: a column whose largest value is exactly
    100 (a percentage) reads 100.0 / 12.5, not 100.000 / 12.500."""
    from heb.evaluate.report import _column_cells

    assert _column_cells(pd.Series([100.0, 12.5])) == ["100.0", "12.5"]
    assert _column_cells(pd.Series([99.5, 12.5])) == ["99.500", "12.500"]
