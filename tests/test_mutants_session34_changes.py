"""Mutation-testing gaps in session 34's own changes (the CLI's failed cross-validation,
heb.text's helpers, the Concentrations and Benchmark tabs as page settings, the Explain
row box, the presenter's square plot, the report's cells, the delimiter sniffer and the
rest): each test kills a hand-made mutant the suite let survive."""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.text import short_labels
from tests.test_app import assert_clean, figures, open_app, uploader, url
from tests.test_app_hierarchy import open_heb_h_concentrations, table_with


# ------------------------------------------------------------------ heb.text.short_labels
def test_three_labels_alike_once_cut_are_numbered_2_and_3():
    """A third label alike to two before it is " (3)", not a second " (2)"."""
    long = "x" * 40
    assert short_labels([long, long, long, "y"], 10) == [
        "xxxxxxxxx…",
        "xxxxxxxxx… (2)",
        "xxxxxxxxx… (3)",
        "y",
    ]


# ------------------------------------------------------------------ Concentrations' tabs
def test_a_link_to_the_table_tab_keeps_the_heatmaps_colouring_in_the_url():
    """The heatmaps' radio is not drawn while the Table tab is open: the colouring the
    link carries stays in the URL (it was dropped on the first run)."""
    at = open_app("pages/concentrations.py", conc_tab="Table", heat_value="rho")
    assert (url(at, "conc_tab"), url(at, "heat_value")) == ("Table", "rho")
    assert at.session_state["heat_value"] == "rho"


def _hierarchies(pairs: int, rows: int = 400, seed: int = 0) -> bytes:
    """``pairs`` city -> region hierarchies the class (yes/no at random) does not follow:
    every (class, city) pair's estimate is mostly HEB-M's."""
    rng = np.random.default_rng(seed)
    columns = {}
    for j in range(pairs):
        city = rng.integers(0, 16, rows)
        columns[f"city{j}"] = [f"c{c:02d}" for c in city]
        columns[f"reg{j}"] = [f"r{c // 4}" for c in city]
    columns["label"] = rng.choice(["yes", "no"], rows)
    return pd.DataFrame(columns).to_csv(index=False).encode()


def test_heb_hs_caption_names_twelve_flat_pairs_without_and_more():
    """Six hierarchies, two classes: exactly the twelve pairs the caption lists (no
    " and 0 more"); on the Heatmaps tab only, the level table being lazy."""
    at = open_app()
    uploader(at).upload("six.csv", _hierarchies(6), "text/csv").run()
    open_heb_h_concentrations(at)
    (caption,) = [c.value for c in at.caption if "Mostly HEB-M" in c.value]
    pairs = [f"city{j} in class {c}" for j in range(6) for c in ("no", "yes")]
    assert caption.endswith(": " + ", ".join(pairs) + "."), caption
    assert figures(at) and not [f for f in at.dataframe if "hierarchy_used" in f.value]
    at.session_state["conc_tab"] = "Table"
    at.run()
    assert_clean(at)
    assert not figures(at)  # the heatmap is not built behind the closed tab
    assert url(at, "conc_tab") == "Table"  # a page setting: a copied link keeps the tab
    assert not [c for c in at.caption if "Mostly HEB-M" in c.value]
    levels = table_with(at, "hierarchy_used")
    assert not levels["hierarchy_used"].any()


def test_heb_hs_caption_says_how_many_more_past_twelve():
    at = open_app()
    uploader(at).upload("seven.csv", _hierarchies(7), "text/csv").run()
    open_heb_h_concentrations(at)
    (caption,) = [c.value for c in at.caption if "Mostly HEB-M" in c.value]
    assert caption.endswith("city5 in class yes and 2 more."), caption


# ------------------------------------------------------------------ Benchmark's metric tabs
def test_a_benchmark_opens_on_its_first_metric_tab_left_out_of_the_link():
    from heb import registry
    from tests.test_app import _cd_titles

    query = {"methods": "Laplace,HEB-M", "bench_datasets": "builtin:iris,builtin:wine"}
    at = open_app("pages/benchmark.py", **query)
    at.button(key="bench_run").click().run()
    assert_clean(at)
    first = registry.metric(next(iter(registry.METRICS))).title
    assert at.session_state["bench_metric_tab"] == first
    assert url(at, "bench_metric_tab") is None  # the default is not in the link
    assert {t.split(":")[0] for t in _cd_titles(at)} == {first}


# ------------------------------------------------------------------ Explain's row box
def test_the_last_row_with_a_target_is_the_source_rows_last_or_the_frames():
    from explorer.loading import last_row_with_target
    from heb.data.dataset import Dataset

    def dataset(source_rows):
        X = pd.DataFrame({"a": ["x", "y", "z"]})
        y = pd.Series(["p", "q", "p"])
        return Dataset("d", X, y, ["a"], "test", source_rows=source_rows)

    assert last_row_with_target(dataset(np.array([0, 4, 7]))) == 7
    assert last_row_with_target(dataset(None)) == 2
    assert last_row_with_target(dataset(np.array([], dtype=int))) == 2


# ------------------------------------------------------------------ Explain in the presenter
def test_the_presenters_decision_table_has_the_grids_decimals_and_ticks():
    """The presenter draws the smoothers' decisions as an HTML table: six decimals for a
    probability, three for the log-odds, a tick or a cross for 'right' (not True)."""
    import re

    from tests.test_app import shown_text

    at = open_app("pages/explain.py", present="1")
    (table,) = at.table
    shown, values = shown_text(table), table.value
    assert list(shown["right"]) == ["✓" if right else "✗" for right in values["right"]]
    probabilities = [c for c in shown if c.startswith("P(")]
    assert len(probabilities) == 3
    for column in probabilities:
        assert all(re.fullmatch(r"[01]\.\d{6}", cell) for cell in shown[column]), shown[column]
        assert [float(cell) for cell in shown[column]] == [round(v, 6) for v in values[column]]
    (log_odds,) = [c for c in shown if c.startswith("log-odds")]
    assert [cell for cell in shown[log_odds]] == [f"{v:.3f}" for v in values[log_odds]]


# ------------------------------------------------------------------ the delimiter sniffer
def test_quoted_values_are_dropped_before_the_text_is_cut_into_lines():
    """A ';' file whose header holds a comma ('spend,eur') and whose quoted notes hold a
    line end, a ';' and a ','. Cut first, the note's halves kept their ';' and ',' (the
    quotes no longer paired), the ';' counts varied and the comma, one a line, won."""
    from heb.data import read_table

    lines = ["id;spend,eur;note;label"]
    for i in range(20):
        note = '"a;b\nc,d"' if i % 2 == 0 else "ok"
        lines.append(f"{i};{i},5;{note};{'yes' if i % 3 else 'no'}")
    frame = read_table(("\n".join(lines) + "\n").encode(), "t.csv")
    assert list(frame.columns) == ["id", "spend,eur", "note", "label"]
    assert frame.shape == (20, 4)
    assert frame["note"].iloc[0] == "a;b\nc,d" and frame["spend,eur"].iloc[3] == 3.5


# ------------------------------------------------------------------ the report's cells
def test_the_reports_cells_keep_decimals_for_shares_of_0_and_1_only():
    from heb.evaluate.report import _column_cells

    assert _column_cells(pd.Series([1.0, 1.0, np.nan])) == ["1.000", "1.000", "—"]
    assert _column_cells(pd.Series([-1.0, 0.0])) == ["-1.000", "0.000"]
    assert _column_cells(pd.Series([0.0, 2.0, 2628.0])) == ["0", "2", "2,628"]
    assert _column_cells(pd.Series([2628, 16985, 0])) == ["2,628", "16,985", "0"]
    assert _column_cells(pd.Series([True, False])) == ["True", "False"]


# ------------------------------------------------------------------ Compare's one-class notes
def _one_class_result(oof: dict) -> object:
    from heb.evaluate import CVResult

    y = np.array([0, 0, 0, 1])
    return CVResult(
        folds=pd.DataFrame(), oof_proba=oof, y=y, classes=np.array(["stay", "churn"]), n_splits=2
    )


def test_two_methods_predicting_one_class_share_a_plural_note():
    from explorer import comparison as cmp

    stay = np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3], [0.55, 0.45]])
    churn = stay[:, ::-1]
    result = _one_class_result({"Laplace": stay, "HEB-M": stay, "TE": churn})
    first, second = cmp.one_class_notes(result)
    assert first == (
        "Laplace and HEB-M predict one class, 'stay', for every row: their accuracy is that "
        "class's share of the rows (0.750), their F1-macro is low, and only their "
        "probabilities (log-loss, Brier, AUC) tell the rows apart."
    )
    assert second.startswith("TE predicts one class, 'churn', for every row: its accuracy")
    assert "(0.250)" in second  # the share of the class it predicts, not of the first
    weighted = cmp.one_class_notes(_one_class_result({"Laplace+GR": stay, "HEB-M+GR": stay}))
    (note,) = weighted
    assert note.startswith("Laplace+GR and HEB-M+GR predict one class, 'stay'")
    assert " Their feature weights, the square root" in note


# ------------------------------------------------------------------ figures: whole in the hover
def test_every_bar_of_a_feature_counts_figure_names_the_whole_category_in_its_hover():
    """Eight classes: six own series and an 'other classes' one, each hovering the whole
    category (its customdata), not the cut axis label."""
    from heb.figures import feature_counts_figure

    long = "y" * 80
    counts = pd.DataFrame({"category": [long, "b"]})
    for c in range(8):
        counts[str(c)] = [10 + c, 5]
    counts["total"] = counts[[str(c) for c in range(8)]].sum(axis=1)
    fig = feature_counts_figure(counts, "notes")
    assert len(fig.data) == 7 and fig.data[-1].name == "2 other classes"
    for trace in fig.data:
        assert trace.hovertemplate.startswith("%{customdata}: %{y:,} rows<extra>")
        assert list(trace.customdata) == [long, "b"] and trace.x[0] != long


def test_a_long_feature_name_without_a_value_is_cut_to_the_bar_labels_length():
    from heb import NaiveBayes
    from heb.explain import explain_smoothers
    from heb.figures.explain import MAX_BAR_LABEL, contribution_figure, contribution_frame

    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]] * 5)
    y = np.array([0, 1, 0, 1] * 5)
    models = {"laplace": NaiveBayes("laplace").fit(X, y)}
    frame = contribution_frame(
        explain_smoothers(models, [[0, 0]], 1, 0), ["n" * 100, "b"], ["", "x"]
    )
    fig = contribution_figure(frame, list(models), "Row 0")
    assert "n" * (MAX_BAR_LABEL - 1) + "…" in list(fig.data[0].y)
    assert "n" * 100 in list(fig.data[0].customdata)  # whole in the hover
    assert fig.data[0].hovertemplate.startswith("Laplace<br>%{customdata}<br>")


# ------------------------------------------------------------------ calibration lesson figure
def test_the_double_counting_figures_ece_axis_has_at_most_four_ticks():
    from heb.figures.lessons.calibration import double_counting_figure
    from heb.lessons import calibration

    data = calibration.calibration_data("synthetic")
    sweep = calibration.double_counting_sweep(data["codes"], data["y"], 1, 3)
    fig, _ = double_counting_figure(sweep, 2)
    assert (fig.layout.yaxis2.tickmode, fig.layout.yaxis2.nticks) == ("auto", 4)


# ------------------------------------------------------------------ heb.text.first_sentence
def test_an_errors_first_sentence_or_its_types_name():
    from heb.text import first_sentence

    assert first_sentence(MemoryError("Unable to allocate 3.1 GiB. And more.")) == (
        "Unable to allocate 3.1 GiB."
    )
    assert first_sentence(ValueError("version 1.5 is too old")) == "version 1.5 is too old"
    assert first_sentence(ValueError("  \n")) == "ValueError"
    assert first_sentence(MemoryError()) == "MemoryError"


def test_heb_hs_caption_names_a_single_flat_pair():
    """Three classes, only class c's cities skewed towards one region: the tree keeps its
    weight but for class b, the one pair the caption names."""
    rng = np.random.default_rng(0)
    rows = 600
    label = rng.choice(["a", "b", "c"], rows)
    skewed = rng.choice(4, rows, p=(0.55, 0.15, 0.15, 0.15))
    region = np.where(label == "c", skewed, rng.integers(0, 4, rows))
    city = region * 4 + rng.integers(0, 4, rows)
    frame = pd.DataFrame(
        {
            "city": [f"c{c:02d}" for c in city],
            "region": [f"r{r}" for r in region],
            "label": label,
        }
    )
    at = open_app()
    uploader(at).upload("one.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    open_heb_h_concentrations(at)
    (caption,) = [c.value for c in at.caption if "Mostly HEB-M" in c.value]
    assert caption.endswith("the m shown is the tree's): city in class b."), caption
