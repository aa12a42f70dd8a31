"""What an analyst met exploring their own messy CSVs in the browser (trial h): each
finding as a test that failed before its fix."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer import comparison as cmp
from heb.data import load_upload, read_table
from heb.evaluate import CVResult


# ------------------------------------------------------------ delimiter of a ';' export
def _semicolon_export(rows: int = 60) -> bytes:
    """A European spreadsheet's export: ``;`` between values, decimal commas, and a
    quoted comment holding a line end in every third row."""
    lines = ["id;spend;note;label"]
    for i in range(rows):
        note = '"called\nback"' if i % 3 == 0 else "ok"
        lines.append(f"{i};{i % 7},5;{note};{'yes' if i % 2 else 'no'}")
    return ("\n".join(lines) + "\n").encode()


def test_case_semicolon_export_quoted_line_ends():
    """A quoted value holding a line end cut its row in two for the delimiter sniffer, so
    the decimal comma (one in every row) looked more consistent than ``;`` and the file
    was refused: "Line 2 of the file has more values than the header's 1"."""
    frame = read_table(_semicolon_export(), "export.csv")
    assert list(frame.columns) == ["id", "spend", "note", "label"]
    assert frame["spend"].iloc[1] == 1.5  # the decimal comma read as a number
    assert frame["note"].iloc[0] == "called\nback"
    dataset = load_upload(_semicolon_export(), "export.csv")
    assert dataset.target == "label" and dataset.X.shape == (60, 3)


def test_a_delimiter_the_header_lacks_is_not_taken():
    """Decimal commas in every data row, and half the rows short of their last value: the
    comma was the more consistent, though the header names its columns between
    semicolons and holds no comma (the file was refused)."""
    data = b"a;b;label\n" + b"1,5;x;yes\n2,5;y\n" * 20
    frame = read_table(data, "t.csv")
    assert list(frame.columns) == ["a", "b", "label"]
    assert frame["a"].iloc[1] == 2.5


# ------------------------------------------------- Compare: one note per class predicted
def test_methods_predicting_the_same_class_everywhere_share_one_note():
    """A skewed churn table (85 % stay): Laplace, m-estimate, TE, HEB-U and HEB-M each
    predicted 'stay' on every row, and Compare showed five identical blue boxes."""
    y = np.array([0, 0, 0, 1])
    constant = np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3], [0.55, 0.45]])
    varied = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.2, 0.8]])
    oof = {"Laplace": constant, "TE": varied, "HEB-U": constant, "HEB-M": constant}
    result = CVResult(
        folds=pd.DataFrame(), oof_proba=oof, y=y, classes=np.array(["stay", "churn"]), n_splits=2
    )
    (note,) = cmp.one_class_notes(result)
    assert note.startswith("Laplace, HEB-U and HEB-M predict one class, 'stay', for every row")
    assert "their accuracy is that class's share of the rows (0.750)" in note
    # a weighted method keeps its own sentence, with its cause
    result.oof_proba["HEB-M+GR"] = constant
    plain, weighted = cmp.one_class_notes(result)
    assert plain == note and weighted.startswith("HEB-M+GR predicts one class, 'stay'")
    assert "mutual information" in weighted


# ------------------------------------------------- Explain: a long category's bar label
def test_a_long_category_is_cut_in_the_explain_figure_and_whole_in_its_hover():
    """A 300-character comment as a category ('notes = xxx...') was the bar's whole label:
    plotly's automargin gave it the chart's width and squeezed the bars into a strip."""
    from heb import NaiveBayes
    from heb.explain import explain_smoothers
    from heb.figures.explain import MAX_BAR_LABEL, contribution_figure, contribution_frame

    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]] * 5)
    y = np.array([0, 1, 0, 1] * 5)
    models = {"laplace": NaiveBayes("laplace").fit(X, y)}
    note = "x" * 300
    names = ["notes <b>", "notes <b> again"]
    frame = contribution_frame(explain_smoothers(models, [[0, 0]], 1, 0), names, [note, note])
    fig = contribution_figure(frame, list(models), "Row 0")
    labels = list(fig.data[0].y)
    assert all(len(label) <= MAX_BAR_LABEL + 20 for label in labels), labels
    assert len(set(labels)) == len(labels) == 3  # the prior and two features, apart
    assert labels[1].startswith("notes &lt;b&gt; = xxx") and labels[1].endswith("…")
    assert list(fig.data[0].customdata)[1] == "notes &lt;b&gt; = " + note  # hover: whole
    alike = contribution_frame(
        explain_smoothers(models, [[0, 0]], 1, 0), ["n" * 70, "n" * 70 + "2"], ["a", "b"]
    )
    cut = list(contribution_figure(alike, list(models), "Row 0").data[0].y)
    assert len(set(cut)) == 3 and cut[2].endswith("… = b")  # a long name keeps its value
    same = contribution_frame(
        explain_smoothers(models, [[0, 0]], 1, 0), ["n" * 70, "n" * 70 + "2"], ["a", "a"]
    )
    cut = list(contribution_figure(same, list(models), "Row 0").data[0].y)
    assert len(set(cut)) == 3 and cut[2].endswith("… = a (2)")  # alike once cut: apart


# ------------------------------------------------- the HTML report's per-class table
def test_the_reports_per_class_table_keeps_decimals_for_a_recall_of_0_and_1():
    """A method predicting 'stay' for every row: the report's recall column read 0 / 0 / 1
    beside precision's 0.000 / 0.000 / 0.849, and its counts 2628 where the app says
    2,628."""
    from heb.evaluate.report import _table
    from heb.figures.diagnostics import confusion_scores

    matrix = np.array([[0, 0, 2628], [0, 0, 387], [0, 0, 16985]])
    table = _table(confusion_scores(matrix, ["churn", "fraud", "stay"]))
    assert "<td>stay</td><td>16,985</td><td>20,000</td><td>0.849</td><td>1.000</td>" in table
    assert "<td>churn</td><td>2,628</td><td>0</td><td>0.000</td><td>0.000</td>" in table


# ------------------------------------------- Dataset: one feature's counts, a long category
def test_a_long_category_is_cut_under_the_feature_counts_bars_and_whole_in_its_hover():
    """'One feature under the lens' on a comment column: the 300-character category,
    turned under the axis, took the figure's 420 px and left the bars about 30 px."""
    from heb.figures import feature_counts_figure
    from heb.figures.dataset import MAX_CATEGORY_LABEL

    long = "x" * 300
    counts = pd.DataFrame(
        {"category": [long, long + "y", "fine"], "0": [1441, 10, 1373], "1": [258, 1, 249]}
    )
    counts["total"] = counts["0"] + counts["1"]
    fig = feature_counts_figure(counts, "notes")
    labels = list(fig.data[0].x)
    assert all(len(label) <= MAX_CATEGORY_LABEL + 4 for label in labels), labels
    assert len(set(labels)) == 3 and labels[-1] == "fine"
    assert list(fig.data[0].customdata)[0] == long  # the hover names the whole category


# ------------------------------------------------- the CLI's progress line, features
def test_the_cli_counts_the_features_the_app_counts(tmp_path, monkeypatch, capsys):
    """``heb bench`` on the churn file said "11 features" right after its note that the
    empty column 'all_missing' is left out; the Dataset page says 10."""
    from heb.cli import main

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "plan": rng.choice(list("abc"), 200),
            "empty": [np.nan] * 200,
            "churned": rng.choice(["yes", "no"], 200),
        }
    )
    frame.to_csv(tmp_path / "churn.csv", index=False)
    code = main(
        ["bench", str(tmp_path / "churn.csv"), "--methods", "laplace", "--folds", "3"]
        + ["-o", str(tmp_path / "out"), "--no-figures"]
    )
    err = capsys.readouterr().err
    assert code == 0 and "'empty' is empty in every row and will be left out" in err
    assert "churn: 200 rows, 1 feature, target 'churned'" in err


# ------------------------------------------------- Dataset: missing share of the rows counted
def test_the_feature_tables_missing_share_is_that_of_the_rows_counted():
    """A 50,000-row churn file in its 20,000-row subsample: K_f and the MI were the
    subsample's, the missing share every row's (age: 10.05 % shown, 10.08 % counted)."""
    from explorer import loading, summaries
    from heb.evaluate.folds import evaluated_subsample

    rng = np.random.default_rng(3)
    n = 400
    age = rng.integers(18, 90, n).astype(float)
    age[rng.random(n) < 0.3] = np.nan
    frame = pd.DataFrame({"age": age, "churned": rng.choice(["stay", "churn"], n, p=[0.8, 0.2])})
    dataset = load_upload(frame.to_csv(index=False).encode(), "churn.csv")
    work = loading._working("trial-h-missing", dataset, 10, "impute", 100)
    kept = evaluated_subsample(dataset, 100)
    counted = float(dataset.X.iloc[kept]["age"].isna().mean())
    assert counted != float(dataset.X["age"].isna().mean())  # the case: they differ
    table = summaries.feature_table(dataset, work)
    assert table.loc[table["feature"] == "age", "missing share"].item() == counted


# ------------------------------------------------- Concentrations: a long column name
def test_a_long_feature_name_is_cut_under_the_concentration_heatmap():
    """A 250-character column name ('customer segment as recorded by ...'): plotly hid
    its label under the heatmap, so its column of cells had no name at all."""
    from heb.figures.concentrations import MAX_TICK_LABEL, concentration_heatmap
    from tests.test_figures import diagnostics

    long = "customer segment as recorded by the regional sales office " * 4
    names = ["**bold** <b>y</b>", long, "amount"]
    fig = concentration_heatmap(diagnostics(2, 3), names, ["ok", "late"])
    ticks = list(fig.layout.xaxis.ticktext)
    assert ticks[0] == "**bold** &lt;b&gt;y&lt;/b&gt;" and ticks[2] == "amount"
    assert len(ticks[1]) == MAX_TICK_LABEL and ticks[1].endswith("…")
    assert long in {cell[1] for row in fig.data[0].customdata for cell in row}  # hover


# ------------------------------------------------- Dataset: rows per category, a long name
def test_a_long_feature_name_is_cut_under_the_rows_per_category_heatmap():
    """Classes and sparsity with a 250-character column name: turned below the heatmap it
    took the figure's height, the three class rows were 15 px each and the colour bar's
    labels ran into one another."""
    from heb.figures import rows_per_category_heatmap
    from heb.figures.dataset import _MAX_LABEL_CHARS

    long = "customer segment as recorded by the regional sales office " * 4
    names = ["**bold** <b>y</b>", long, long + "!", "amount"]
    fig = rows_per_category_heatmap(np.ones((3, 4)), names, ["late", "lost", "ok"])
    labels = list(fig.data[0].x)
    assert all(len(label) <= _MAX_LABEL_CHARS + 4 for label in labels[1:3]), labels
    assert len(set(labels)) == 4 and labels[0] == "**bold** &lt;b&gt;y&lt;/b&gt;"
    assert fig.data[0].customdata[0][1] == long  # the hover names it whole


# ------------------------------------------------- a tab-separated file's decimal commas
def test_the_decimal_comma_note_names_a_tab_separated_file_as_such():
    """A TSV export with decimal commas ('55,03'): the note said "which in a
    comma-separated file may be a decimal or a thousands separator"."""
    data = b"spend\tlabel\n" + b"55,03\tyes\n12,5\tno\n" * 10
    (note,) = [n for n in load_upload(data, "t.tsv").notes if "written with a comma" in n]
    assert "which in a tab-separated file may be" in note
    (note,) = [n for n in load_upload(data.replace(b"\t", b"|"), "t.txt").notes if "comma" in n]
    assert "which in a pipe-separated file may be" in note
    comma = b'spend,label\n"55,03",yes\n"12,5",no\n'
    (note,) = [n for n in load_upload(comma, "c.csv").notes if "written with a comma" in n]
    assert "which in a comma-separated file may be" in note
