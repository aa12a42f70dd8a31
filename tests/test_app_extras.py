"""AppTest of issue 12's items 15-19: per-class diagnostics and downloads on Compare, the
Explain page (with model files and its code), the catalogue table, the shown code."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import assert_clean, decode, open_app, unescape, uploader  # the app's helpers
from test_report import run_python

from explorer import explain as ex
from explorer.catalogue import CATALOGUE_OPEN, UNKNOWN, catalogue_table
from explorer.report import CODE_OPEN
from heb import model_io
from heb.data import BUILTIN_DATASETS, CATALOGUE, load_dataset
from heb.evaluate import RunSettings, cross_validate
from heb.figures import diagnostics as dg
from heb.nb import NaiveBayes

COMPARE_LINK = {"dataset": "builtin:iris", "methods": "Laplace,HEB-M", "folds": "5"}


def open_page(page: str | None = None, **query: str) -> AppTest:
    return open_app(page, **query)


def specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def titled(at: AppTest, words: str) -> dict:
    hits = [s for s in specs(at) if words in str(s["layout"].get("title", {}).get("text", ""))]
    assert len(hits) == 1, [s["layout"].get("title", {}).get("text") for s in specs(at)]
    return hits[0]


def shown_code(at: AppTest, words: str) -> str:
    at.session_state[CODE_OPEN] = True  # built only while open, as a click opens it
    at.run()
    hits = [c.value for c in at.code if words in c.value]
    assert len(hits) == 1
    return hits[0]


@pytest.fixture(scope="module")
def compare_page(tmp_path_factory) -> AppTest:
    return open_page("pages/compare.py", compare_tab="Per class", **COMPARE_LINK)


@pytest.fixture(scope="module")
def iris_result():
    settings = RunSettings(dataset="builtin:iris", n_splits=5)
    return cross_validate(
        load_dataset("builtin:iris"), ["Laplace", "HEB-M"], settings=settings, use_cache=False
    )


# --------------------------------------------------------------------------- item 15
def test_compare_shows_confusion_reliability_and_roc(compare_page, iris_result):
    at = compare_page
    assert "Per class: confusion, precision / recall, reliability, ROC" in [
        s.value for s in at.header
    ]
    proba = iris_result.oof_proba["Laplace"]
    matrix = titled(at, "Confusion matrix: Laplace")["data"][0]
    np.testing.assert_array_equal(
        decode(matrix["customdata"]), dg.confusion_counts(iris_result.y, proba)
    )
    grid = [f for f in at.dataframe if "precision" in f.value.columns][0]
    scores = grid.value
    expected = dg.class_scores(iris_result.y, proba, [str(c) for c in iris_result.classes])
    np.testing.assert_allclose(scores["recall"], expected["recall"])
    # Compare's 3 decimals and the Dataset page's separators (it read 0.8523 and 4261)
    config = json.loads(grid.proto.columns)
    formats = {k: v["type_config"]["format"] for k, v in config.items() if "type_config" in v}
    assert formats == {"rows": "%,d", "predicted": "%,d", "precision": "%.3f",
                       "recall": "%.3f", "F1": "%.3f"}  # fmt: skip
    reliability = titled(at, "One-vs-rest reliability: Laplace")
    assert len(reliability["data"]) == 1 + iris_result.classes.size
    roc = titled(at, "ROC, class")
    names = [trace["name"] for trace in roc["data"][1:]]
    for method, name in zip(iris_result.methods, names, strict=True):
        auc = dg.roc_curve(iris_result.y, iris_result.oof_proba[method], 0)["auc"]
        assert name == f"{method} (AUC {auc:.3f})"


def test_diagnostics_follow_the_chosen_method(compare_page):
    at = compare_page
    at.selectbox(key="w_diag_method").set_value("HEB-M").run()
    assert_clean(at)
    titled(at, "Confusion matrix: HEB-M")
    at.selectbox(key="w_roc_class").set_value(2).run()
    assert_clean(at)
    titled(at, "ROC, class virginica against the rest")
    # both choices live in the URL, so a copied link shows the same figures
    assert at.query_params["diag_method"] in ("HEB-M", ["HEB-M"])
    assert at.query_params["roc_class"] in ("2", ["2"])


# --------------------------------------------------------------------------- items 17, 18
def test_compare_offers_out_of_fold_csv_and_report(compare_page):
    labels = [button.proto.label for button in compare_page.get("download_button")]
    assert "Out-of-fold predictions (CSV)" in labels and "Report (HTML)" in labels


def test_the_report_and_predictions_are_named_after_the_dataset(monkeypatch):
    """Both downloads were comparison-report.html and out-of-fold-predictions.csv whatever
    the dataset; a visitor's file name goes in as safe characters only."""
    from explorer.report import file_slug

    assert file_slug("zip-codes") == "zip-codes"
    assert file_slug("../../etc/passwd") == "etc-passwd"
    assert file_slug('<img src=x onerror="1">.csv') == "img-src-x-onerror-1"
    assert file_slug("churn.csv.gz") == "churn" and file_slug("v1.2 data") == "v1.2-data"
    assert file_slug("???") == "dataset" and len(file_slug("a" * 500)) == 60
    from explorer import report

    class Row:
        names: list[str] = []

        def download_button(self, *args, **kwargs):
            self.names.append(kwargs["file_name"])

    monkeypatch.setattr(report.st, "container", lambda **kwargs: Row())
    report.comparison_downloads(None, None, "my churn.csv", lambda: ({}, {}), "")
    assert Row.names == [
        "out-of-fold-predictions-my-churn.csv",
        "comparison-report-my-churn.html",
    ]


def test_a_closed_per_class_tab_builds_its_figures_for_the_report_alone(monkeypatch):
    """With the per-class tab closed, its figures wait for the report's click, which then
    carries the method and class of the link (it built them on every first view)."""
    from explorer import diagnostics, report

    captured, built = {}, []
    real_downloads, real_roc = report.comparison_downloads, diagnostics.dg.roc_figure

    def downloads(result, settings, dataset, contents, code, target="", notes=list, upload=None):
        captured["contents"], captured["target"], captured["notes"] = contents, target, notes
        real_downloads(result, settings, dataset, contents, code, target, notes, upload)

    def roc_figure(*args, **kwargs):
        built.append(args[1])
        return real_roc(*args, **kwargs)

    monkeypatch.setattr(report, "comparison_downloads", downloads)
    monkeypatch.setattr(diagnostics.dg, "roc_figure", roc_figure)
    link = {**COMPARE_LINK, "folds": "4", "diag_method": "HEB-M", "roc_class": "2"}
    at = open_page("pages/compare.py", **link)
    assert at.tabs[0].label == "Reliability" and not built
    tables, figs = captured["contents"]()
    assert captured["target"] == "target"  # iris: the report's settings name the column predicted
    assert built == ["ROC, class virginica against the rest"]
    assert list(tables) == ["Metrics, mean ± standard deviation over folds", "Per class: HEB-M"]
    assert "Confusion matrix: HEB-M" in figs and figs["ROC curves"].layout.title.text == built[0]
    # the report says why its per-class part is HEB-M's and its ROC virginica's
    (note,) = captured["notes"]()
    assert "those of HEB-M, the method chosen on the Per class tab" in note
    assert "class 'virginica' against the rest" in note


def test_shown_compare_code_reproduces_the_page_numbers(compare_page, tmp_path):
    code = shown_code(compare_page, "from heb.evaluate import")
    out = run_python(code + "\nprint('JSON' + result.summary().to_json())", tmp_path)
    summary = pd.read_json(io.StringIO(out.split("JSON", 1)[1]))
    table = [f.value for f in compare_page.dataframe if "method" in f.value.columns][0]
    accuracy = [c for c in table.columns if c.startswith("Accuracy")][0]
    log_loss = [c for c in table.columns if c.startswith("Log-loss")][0]
    assert table["method"].tolist() == summary["method"].tolist()
    for column, key in ((accuracy, "accuracy_mean"), (log_loss, "log_loss_mean")):
        page = [float(text.split(" ± ")[0]) for text in table[column]]
        np.testing.assert_allclose(page, summary[key], atol=5.1e-4)  # 3 decimals shown


# --------------------------------------------------------------------------- item 16
def decision_and_bars(at: AppTest) -> tuple[pd.DataFrame, dict]:
    table = [f.value for f in at.dataframe if ex.LOG_ODDS in f.value.columns]
    fig = titled(at, "log-odds of")
    bars = {trace["name"]: decode(trace["x"]).astype(float) for trace in fig["data"]}
    return table[0], bars


def test_explain_page_says_one_sign_convention_with_the_classes_names():
    """The page said "target vs reference" (table), "the first class ... the second"
    (caption) and "favours the target class" (axis) for one convention: each now names
    the two classes picked as A and B."""
    at = open_page("pages/explain.py", explain_target="no", explain_reference="yes")
    fig = titled(at, "log-odds of")
    assert fig["layout"]["title"]["text"].endswith("log-odds of no against yes")
    assert fig["layout"]["xaxis"]["title"]["text"].endswith("+ favours 'no'")
    caption = " ".join(c.value for c in at.caption)
    assert "**no** (A) against **yes** (B)" in caption
    assert f'"{ex.LOG_ODDS}"' in caption.replace("\\", "")
    grid = next(f for f in at.dataframe if ex.LOG_ODDS in f.value.columns)
    column = json.loads(grid.proto.columns)[ex.LOG_ODDS]
    assert "ln P(no) - ln P(yes)" in column["help"]
    # the ticks column is said too (an instructor's trial: "right" had no explanation)
    true_class = at.markdown[[m.value.startswith("Row ") for m in at.markdown].index(True)]
    named = true_class.value.split("true class **")[1].split("**")[0]
    right = json.loads(grid.proto.columns)["right"]
    assert right["help"].startswith("ticked where the smoother predicts the row's true class")
    assert right["help"].endswith(named), (right, named)
    table = grid.value.set_index("smoother")
    # A's side: the sign of the column is ln P(no) - ln P(yes)
    difference = np.log(table["P(no)"]) - np.log(table["P(yes)"])
    np.testing.assert_allclose(table[ex.LOG_ODDS], difference, atol=1e-5)


def test_explain_page_names_the_classes_it_picked_automatically():
    """The boxes read "(automatic)" and the table "log-odds (A against B)": which class
    was A was said only under the figure."""
    at = open_page("pages/explain.py")
    table = next(f for f in at.dataframe if ex.LOG_ODDS in f.value.columns).value
    heb_m = table.set_index("smoother").loc["HEB-M"]
    a, b = ("no", "yes") if heb_m["P(no)"] >= heb_m["P(yes)"] else ("yes", "no")
    said = f"Automatic: A = **{a}** and B = **{b}**, by HEB-M's probabilities"
    assert any(unescape(c.value).startswith(said) for c in at.caption)
    chosen = open_page("pages/explain.py", explain_target="yes")
    notes = [unescape(c.value) for c in chosen.caption if c.value.startswith("Automatic")]
    assert notes and notes[0].startswith("Automatic: B = **no**, by HEB-M's")
    both = open_page("pages/explain.py", explain_target="no", explain_reference="yes")
    assert not [c for c in both.caption if c.value.startswith("Automatic")]


def test_explain_page_bars_add_up_to_each_smoothers_log_odds():
    at = open_page("pages/explain.py")
    table, bars = decision_and_bars(at)
    # the sidebar's default methods, all five of them Naive Bayes smoothers
    assert table["smoother"].tolist() == ["Laplace", "m-estimate", "TE", "HEB-U", "HEB-M"]
    for smoother, log_odds in zip(table["smoother"], table[ex.LOG_ODDS], strict=True):
        # prior row + every feature row (the rest summed into one) = the model's log-odds
        assert bars[smoother].sum() == pytest.approx(log_odds, abs=1e-9)
    # every probability to six decimals (a 0.999998 showed as "1" beside 0.000002)
    grid = next(f for f in at.dataframe if ex.LOG_ODDS in f.value.columns)
    formats = json.loads(grid.proto.columns)
    probabilities = [c for c in table.columns if c.startswith("P(")]
    assert len(probabilities) == 3
    assert {formats[c]["type_config"]["format"] for c in probabilities} == {"%.6f"}


@pytest.mark.parametrize(
    ("methods", "shown"),
    [
        # a plain NB method's smoother, in the sidebar's order; weighted, AODE: none
        ("HEB-M,AODE,Laplace+GR,Laplace", ["HEB-M", "Laplace"]),
        ("AODE,HEB-AODE", ["Laplace", "m-estimate", "HEB-U", "HEB-M"]),  # none: the default
    ],
)
def test_explain_starts_from_the_sidebars_methods(methods, shown):
    at = open_page(methods=methods)
    at.switch_page("pages/explain.py").run()
    assert_clean(at)
    table, _ = decision_and_bars(at)
    assert table["smoother"].tolist() == shown
    assert "explain_smoothers" not in at.query_params  # the methods in the link say it


def test_explain_jumps_to_a_row_where_smoothing_moves_the_decision():
    at = open_page("pages/explain.py")
    at.button(key="explain_next_disagreement").click().run()
    assert_clean(at)
    row = at.session_state["explain_row"]
    assert row > 0 and at.query_params["explain_row"] in (str(row), [str(row)])
    table, _ = decision_and_bars(at)
    assert table["predicts"].nunique() >= 2
    assert any("Smoothing moved the decision" in m.value for m in at.markdown)


def test_case_explain_row_outside_the_table():
    """A box bounded 0 .. last kept a typed 5000 in red while the page explained row 7, and
    "Next row" then explained row 9 under the same 5000."""
    at = open_page("pages/explain.py", explain_row="7")
    box = at.number_input(key="w_explain_row")
    assert box.value == 7 and "Row of the table (0 to 4,999)" in box.label
    for typed in (5000, -3):
        at.number_input(key="w_explain_row").set_value(typed).run()
        assert not at.exception
        said = [e.value for e in at.error]
        assert said == [
            f"There is no row {typed:,}: the table's rows are numbered 0 to 4,999. "
            "Still explaining row 7."
        ]
        assert at.number_input(key="w_explain_row").value == 7
        assert at.session_state["explain_row"] == 7
        assert any(m.value.startswith("Row 7:") for m in at.markdown)
    at.button(key="explain_next_disagreement").click().run()
    row = at.session_state["explain_row"]
    assert row > 7 and not at.error  # said once, not again on the next run
    assert at.number_input(key="w_explain_row").value == row
    assert any(m.value.startswith(f"Row {row}:") for m in at.markdown)


def test_case_explain_b_equal_to_a():
    """A = B = yes was accepted and silently explained yes against no."""
    at = open_page("pages/explain.py", explain_target="yes")
    b = at.selectbox(key="w_explain_reference")
    assert "yes" not in b.options and "no" in b.options
    same = open_page("pages/explain.py", explain_target="yes", explain_reference="yes")
    assert_clean(same)
    assert same.selectbox(key="w_explain_reference").value == "(automatic)"
    assert titled(same, "log-odds of")["layout"]["title"]["text"].endswith("yes against no")
    # choosing B = A's class, then A = that class: B falls back to automatic
    at = open_page("pages/explain.py", explain_target="no", explain_reference="yes")
    at.selectbox(key="w_explain_target").set_value("yes").run()
    assert_clean(at)
    assert at.selectbox(key="w_explain_reference").value == "(automatic)"
    assert any(unescape(c.value).startswith("Automatic: B = **no**") for c in at.caption)


def test_closed_code_and_model_file_boxes_are_not_built():
    at = open_page(explain_row="9", explain_smoothers="laplace,heb-m")
    at.switch_page("pages/explain.py").run()
    assert not at.code and not at.get("file_uploader")
    assert not any("fitted model" in b.proto.label for b in at.get("download_button"))
    at.session_state["model_files_open"] = True
    at.run()
    assert len(at.get("file_uploader")) == 1
    # the model's heb fit command, not the closed Python box
    assert [c.value.split(" --")[0] for c in at.code] == ["python -m heb fit builtin:zip-codes"]
    assert any("fitted model" in b.proto.label for b in at.get("download_button"))
    assert "from heb.explain import" in shown_code(at, "from heb.explain import")


def test_explain_from_a_link_and_its_code(tmp_path):
    at = open_page(explain_row="9", explain_smoothers="laplace,heb-m")
    at.switch_page("pages/explain.py").run()
    assert_clean(at)
    table, _ = decision_and_bars(at)
    assert table["smoother"].tolist() == ["Laplace", "HEB-M"]
    assert any(m.value.startswith("Row 9:") for m in at.markdown)
    code = shown_code(at, "from heb.explain import")
    out = run_python(
        code + "\nimport json\nprint('JSON' + json.dumps([e.log_odds[0] for e in out.values()]))",
        tmp_path,
    )
    np.testing.assert_allclose(json.loads(out.split("JSON", 1)[1]), table[ex.LOG_ODDS], atol=1e-9)


def test_saved_model_json_from_the_page_loads_and_predicts_the_same():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, 3))
    y = (X[:, 0] > 1).astype(int)
    model = NaiveBayes("heb-m").fit_counts(NaiveBayes("laplace").fit(X, y).count_table_)
    fitted = ex.Fitted({"heb-m": model}, {"heb-m": model.predict(X)})
    text = ex.model_json(fitted, "heb-m", ["a", "b", "c"], ["no", "yes"])
    loaded = model_io.loads(text)
    assert loaded.classes_.tolist() == ["no", "yes"]
    assert loaded.feature_names_in_.tolist() == ["a", "b", "c"]
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(X))


# --------------------------------------------------------------------------- item 19
def open_catalogue() -> AppTest:
    """The Dataset page with its table of datasets open (built only while open)."""
    at = open_page()
    at.session_state[CATALOGUE_OPEN] = True
    return at.run()


def test_the_closed_table_of_datasets_is_not_built_and_its_label_counts_right():
    at = open_page()
    assert not any("OpenML id" in f.value.columns for f in at.dataframe)
    label = next(e.label for e in at.expander if e.label.startswith("All datasets"))
    table = catalogue_table()
    assert label == (
        f"All datasets as a table ({len(table)}, {int(table['offline'].sum())} open offline)"
    )
    opened = open_catalogue()
    assert any("OpenML id" in f.value.columns for f in opened.dataframe)


def test_the_rows_preview_is_built_only_while_open():
    at = open_page()
    closed = [len(f.value) for f in at.dataframe]
    at.session_state["preview_open"] = True
    opened = [len(f.value) for f in at.run().dataframe]
    assert 100 not in closed and sorted(opened) == sorted(closed + [100])


def test_dataset_page_lists_every_dataset_as_a_table():
    at = open_catalogue()
    table = [f.value for f in at.dataframe if "OpenML id" in f.value.columns][0]
    assert list(table.columns) == [
        "dataset", "group", "rows", "features", "classes", "offline", "OpenML id"
    ]  # fmt: skip
    assert len(table) == len(BUILTIN_DATASETS) + len(CATALOGUE)
    builtin = table[table["group"] == "built-in"].set_index("dataset")
    shown = builtin.loc["iris", ["rows", "features", "classes"]].str.strip().tolist()
    assert shown == ["150", "4", "3"]
    assert builtin["offline"].all()
    paper = table[table["group"] != "built-in"]
    assert set(paper["group"]) == {entry.group for entry in CATALOGUE}
    # a dataset with a shared copy shows its size; one only OpenML has does not pretend to
    offline = paper[paper["offline"]]
    assert (offline["rows"] != UNKNOWN).all()
    assert (paper[~paper["offline"]]["rows"] == UNKNOWN).all()


def test_catalogue_shows_a_dash_not_none_in_empty_cells():
    """Streamlit's grid writes "None" in an empty cell whatever a Styler says: the sizes
    are shown as text, a dash where unknown, padded so that sorting keeps their order."""
    at = open_catalogue()
    table = next(f.value for f in at.dataframe if "OpenML id" in f.value.columns)
    numbers = catalogue_table()
    for column in ("rows", "features", "classes", "OpenML id"):
        texts, values = table[column], numbers[column]
        assert texts.map(type).eq(str).all(), column  # no null cell left for "None"
        assert (texts[values.isna()] == UNKNOWN).all() and values.isna().any()
        known = values.notna()
        assert texts[known].str.strip().str.replace(",", "").astype(int).tolist() == list(
            values[known]
        )
        # sorting the text column sorts the numbers, the unknown ones last
        by_text = texts.sort_values(kind="stable").index
        by_number = values.sort_values(kind="stable", na_position="last").index
        assert list(by_text) == list(by_number), column


def test_catalogue_sizes_have_thousands_separators_and_ids_do_not():
    from explorer.catalogue import displayed_catalogue

    number = {
        "rows": [5000, 150, None],
        "features": [8, 13, None],
        "classes": [2, 10, None],
        "OpenML id": [24, 40981, None],
    }
    frame = pd.DataFrame({column: pd.array(v, dtype="Int64") for column, v in number.items()})
    shown = displayed_catalogue(frame.assign(spec=["a", "b", "c"]))
    assert "spec" not in shown.columns
    assert shown["rows"].tolist() == ["5,000", "  150", UNKNOWN]
    assert shown["classes"].tolist() == [" 2", "10", UNKNOWN]
    assert shown["OpenML id"].tolist() == ["   24", "40981", UNKNOWN]


@pytest.mark.parametrize("token", ["n/a", "<NA>"])
def test_lowercase_n_a_and_pandas_na_text_are_missing_in_an_upload(token):
    from heb.data import load_upload

    text = f"colour,class\nred,x\n{token},y\nblue,x\nred,y\n{token},x\n"
    dataset = load_upload(text.encode(), "tokens.csv")
    assert dataset.X["colour"].isna().sum() == 2
    assert set(dataset.X["colour"].dropna()) == {"red", "blue"}


@pytest.mark.parametrize("value", ["na", "none", "None"])
def test_na_and_none_stay_categories(value):
    from heb.data import load_upload

    text = f"answer,class\n{value},x\nyes,y\n{value},x\nyes,y\n"
    dataset = load_upload(text.encode(), "words.csv")
    assert dataset.X["answer"].notna().all()
    assert set(dataset.X["answer"]) == {value, "yes"}


def _lens_upload() -> bytes:
    """Few categories, unbalanced classes listed in an order unlike their sizes."""
    rng = np.random.default_rng(3)
    rows = 300
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], rows),
            "label": rng.choice(
                ["alpha", "beta", "gamma", "delta", "eps"], rows, p=[0.1, 0.4, 0.3, 0.15, 0.05]
            ),
        }
    )
    return frame.to_csv(index=False).encode()


def test_feature_lens_table_follows_the_legend():
    at = open_page(dataset_tab="One feature under the lens")
    uploader(at).upload("lens.csv", _lens_upload(), "text/csv")
    at.run()
    assert_clean(at)
    lens = next(f for f in at.dataframe if "total" in f.value.columns)
    frame = lens.value
    assert len(frame) == 3 and (frame["total"] > 0).all()  # three colours, no empty row
    spec = next(
        s
        for s in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
        if "counts per class" in str(s["layout"]["title"]["text"])
    )
    legend = [trace["name"] for trace in spec["data"]]
    classes = [c for c in frame.columns if c not in ("category", "total")]
    sizes = pd.read_csv(io.BytesIO(_lens_upload()))["label"].value_counts()
    order = list(sizes.index)  # largest class first
    assert order[0] == "beta" and len(set(sizes)) == len(sizes)  # no tie to order
    assert legend == classes == [f"N(class={name})" for name in order]
    # five classes stack; plotly would list a stack's legend bottom-up, unlike the table
    assert spec["layout"]["barmode"] == "stack"
    assert spec["layout"]["legend"]["traceorder"] == "normal"


def test_the_lens_table_of_many_classes_keeps_total_in_view():
    """Issue 12: with 19+ classes the lens table had a column per class and its total was
    cut off at 1440 px; it now groups the classes as the figure does, total second."""
    from heb.figures.dataset import MAX_CLASS_SERIES

    rng = np.random.default_rng(4)
    n_classes = 21
    labels = [f"disease-{c:02d}" for c in range(n_classes)]
    label = np.repeat(labels, 3 * np.arange(n_classes, 0, -1))  # distinct sizes: no ties
    frame = pd.DataFrame(
        {
            "season": rng.choice(["spring", "summer", "autumn", "winter"], label.size),
            "label": rng.permutation(label),
        }
    )
    at = open_page(dataset_tab="One feature under the lens")
    uploader(at).upload("many.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    assert_clean(at)
    table = next(f.value for f in at.dataframe if "total" in f.value.columns)
    assert list(table.columns[:2]) == ["category", "total"]
    assert len(table.columns) == 2 + MAX_CLASS_SERIES + 1  # own classes, then "other"
    sizes = frame["label"].value_counts()
    own = [f"N(class={name})" for name in sizes.index[:MAX_CLASS_SERIES]]
    other = f"N({n_classes - MAX_CLASS_SERIES} other classes)"
    assert list(table.columns[2:]) == [*own, other]
    by_season = pd.crosstab(frame["season"], frame["label"])
    for _, row in table.iterrows():
        counts = by_season.loc[row["category"]]
        assert row["total"] == counts.sum()
        assert row[other] == counts.drop(sizes.index[:MAX_CLASS_SERIES]).sum()
    assert table["total"].is_monotonic_decreasing  # the largest category first
    legend = [t["name"] for t in titled(at, "counts per class")["data"]]
    assert legend == [*own, f"{n_classes - MAX_CLASS_SERIES} other classes"]


def test_roc_of_a_class_is_built_once_per_comparison(iris_result):
    from explorer.comparison import Comparison
    from explorer.diagnostics import roc_for_class

    comparison = Comparison(iris_result, elapsed=0.0)
    fig, curves = roc_for_class(comparison, 1)
    again, _ = roc_for_class(comparison, 1)
    assert again is fig  # a rerun shows the figure already built
    other, other_curves = roc_for_class(comparison, 2)
    assert other is not fig and other.layout.title.text != fig.layout.title.text
    assert set(curves) == set(other_curves) == set(iris_result.methods)


def test_a_comparison_builds_the_every_method_reliability_figure_only_when_asked(
    iris_result, monkeypatch
):
    """The page draws the methods chosen there; the figure of all of them is the report's
    and was built with every comparison (about 0.03 s of each what-if change)."""
    from explorer import comparison as cmp

    built = []
    real = cmp.figures.reliability_diagram
    monkeypatch.setattr(
        cmp.figures, "reliability_diagram", lambda *a, **k: built.append(a[0]) or real(*a, **k)
    )
    comparison = cmp.Comparison(iris_result, elapsed=0.0)
    assert built == []
    fig = comparison.reliability_fig
    assert [list(curves) for curves in built] == [list(iris_result.methods)]
    assert comparison.reliability_fig is fig and len(built) == 1  # built once
    assert {trace.name for trace in fig.data} >= set(iris_result.methods)


def test_an_uploads_default_target_is_its_last_column_even_beside_a_class_feature():
    """A ticket "class" feature (titanic-like) was taken for the target over the last column."""
    rng = np.random.default_rng(5)
    rows = 200
    frame = pd.DataFrame(
        {
            "class": rng.choice(["first", "second", "third"], rows),
            "sex": rng.choice(["f", "m"], rows),
            "survived": rng.choice(["yes", "no"], rows),
        }
    )
    at = open_page()
    uploader(at).upload("titanic.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "survived"
    assert {m.label: m.value for m in at.metric}["Classes"] == "2"  # yes / no, not 3 classes
    rule = [c.value for c in at.caption if "default target is the file's last column" in c.value]
    assert any("whatever its name" in text for text in rule)  # said beside the picker


def test_the_preprocessing_caption_says_imputed_and_a_subsample_from_the_link():
    # the other branches of the closed expander's caption than test_app's (the settings in
    # force, read from the session: no widget exists while it is closed)
    at = open_app(data="builtin:iris", n_bins="7", missing="impute", max_rows="20000")
    said = (
        "Preprocessing in force: 7 bins · missing imputed · at most 20,000 rows (a stratified "
        "subsample beyond)."
    )
    assert said in [c.value for c in at.caption]


def test_the_rows_preview_shows_every_column_of_the_first_100_rows():
    at = open_page(data="builtin:iris")
    at.session_state["preview_open"] = True
    shown = [f.value for f in at.run().dataframe if len(f.value) == 100]
    iris = load_dataset("builtin:iris")
    assert len(shown) == 1 and shown[0].notna().all().all()
    assert shown[0].index.name == "row"  # the row numbers' header is not empty
    assert shown[0].iloc[:, -1].astype(str).tolist() == iris.y.head(100).astype(str).tolist()
    np.testing.assert_allclose(shown[0].iloc[:, :-1].to_numpy(float), iris.X.head(100))


def test_a_loaded_models_accuracy_is_called_a_training_accuracy():
    """A model saved on this page was fitted on every row: its accuracy on them (0.943)
    read as a score beside Compare's cross-validated 0.884, with nothing to say so."""
    from heb.data import Preprocessor, load_builtin

    data = load_builtin("zip-codes")
    codes = pd.DataFrame(Preprocessor().fit_transform(data.X), columns=list(data.X.columns))
    model = NaiveBayes("laplace").fit(codes, np.asarray(data.y).astype(str))
    at = open_page(explain_row="0", explain_smoothers="laplace")
    at.switch_page("pages/explain.py").run()
    at.session_state["model_files_open"] = True
    at.run()
    at.file_uploader(key="explain_load").upload(
        "model.json", model_io.dumps(model).encode(), "application/json"
    ).run()
    assert_clean(at)
    (metric,) = [m for m in at.metric if m.label == "Accuracy on the current dataset's rows"]
    expected = np.mean(model.predict(codes) == np.asarray(data.y).astype(str))
    assert float(metric.value) == pytest.approx(expected, abs=5e-4)
    assert any("a training accuracy" in c.value for c in at.caption)


def test_compares_long_choice_rows_wrap_on_a_narrow_screen():
    """At 390 px the eight values of "m-estimate's m" ran past the screen's edge in one
    scrolling row: the knobs with many values wrap onto more rows."""
    at = open_page("pages/compare.py", dataset="builtin:iris", methods="Laplace,m-estimate")
    assert_clean(at)
    groups = {group.proto.label: group.proto for group in at.get("button_group")}
    assert len(groups["m-estimate's m"].options) >= 8
    assert groups["m-estimate's m"].wrap and groups["Bins for numbers"].wrap


def test_explain_takes_a_row_outside_the_subsample_and_says_which_row_it_shows():
    """A 50,000-row file subsampled to 20,000: the box's bound was the subsample's last
    row, and the file's last row, left out of the subsample, was refused with "There is
    no row"; it is now explained by the last row used, and said so."""
    from explorer import loading
    from heb import data as hdata
    from heb.evaluate.folds import evaluated_rows

    rng = np.random.default_rng(3)
    n = 30_000
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "label": rng.choice(["yes", "no"], n),
        }
    )
    # a class of two rows keeps one in the subsample: here row 3,000, not the last row
    frame.loc[[3_000, n - 1], "label"] = "rare"
    payload = frame.to_csv(index=False).encode()
    rows = evaluated_rows(hdata.load_upload(payload, "big.csv"), 20_000)
    assert rows.size == 20_000 and rows[-1] == n - 2  # the file's last row is left out
    assert loading.last_row_with_target(hdata.load_upload(payload, "big.csv")) == n - 1
    at = open_page()
    uploader(at).upload("big.csv", payload, "text/csv").run()
    at.switch_page("pages/explain.py").run()
    assert_clean(at)
    box = at.number_input(key="w_explain_row")
    assert f"Row of the table (0 to {n - 1:,})" in box.label
    box.set_value(n - 1).run()
    assert not at.error
    assert at.session_state["explain_row"] == n - 1
    said = [unescape(i.value) for i in at.info]
    assert any(
        f"Row {n - 1:,} of the table is not among the 20,000 rows used here" in line
        and f"showing row {n - 2:,}, the last one that is." in line
        for line in said
    ), said
    # a row left out just before the last row used: "the next one", not "the last"
    assert list(rows[-2:]) == [n - 4, n - 2]
    at.number_input(key="w_explain_row").set_value(n - 3).run()
    said = [unescape(i.value) for i in at.info]
    assert any(f"showing row {n - 2:,}, the next one that is." in line for line in said), said
    missing = int(np.setdiff1d(np.arange(n - 1), rows)[0])
    at.number_input(key="w_explain_row").set_value(missing).run()
    following = int(rows[np.searchsorted(rows, missing)])
    said = [unescape(i.value) for i in at.info]
    assert any(f"showing row {following:,}, the next one that is." in line for line in said)


def test_one_method_is_not_said_to_have_a_best_mean_in_blue():
    """With one method no cell is blue (best of nothing), yet the caption said "Best mean
    of each metric in bold blue"."""
    one = open_page("pages/compare.py", data="builtin:iris", methods="HEB-M", folds="3")
    assert_clean(one)
    captions = " ".join(c.value for c in one.caption)
    assert "Fit time: the median fold's" in captions and "in blue" not in captions
    two = open_page("pages/compare.py", data="builtin:iris", methods="Laplace,HEB-M", folds="3")
    shown = " ".join(c.value for c in two.caption)
    assert "Best mean of each metric in bold blue. Fit time" in shown


def _confusion_in_a_column(at: AppTest) -> bool:
    """Whether the Per class tab's confusion matrix is drawn in a half-width column."""
    return any(
        "Confusion matrix" in json.loads(chart.proto.spec)["layout"]["title"]["text"]
        for column in at.columns
        for chart in column.get("plotly_chart")
    )


def test_a_confusion_matrix_of_many_classes_takes_the_pages_width():
    """Soybean's 19 classes drew cells 8 px wide, every third label shown, in half the
    page beside the per-class reliability; past 8 classes the two stack."""
    from explorer.diagnostics import WIDE_CONFUSION

    few = open_page("pages/compare.py", data="builtin:iris", methods="HEB-M", folds="3",
                    compare_tab="Per class")  # fmt: skip
    assert_clean(few)
    assert _confusion_in_a_column(few)  # 3 classes: side by side
    rng = np.random.default_rng(4)
    n_classes = WIDE_CONFUSION + 1
    frame = pd.DataFrame(
        {
            "a": rng.choice(list("pqrs"), 600),
            "b": rng.choice(list("xyz"), 600),
            "label": [f"c{i % n_classes}" for i in range(600)],
        }
    )
    many = open_page(methods="HEB-M", folds="3")
    uploader(many).upload("nine.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    many.switch_page("pages/compare.py").run()
    many.session_state["compare_tab"] = "Per class"
    many.run()
    assert_clean(many)
    charts = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in many.get("plotly_chart")]
    assert any("Confusion matrix" in title for title in charts), charts
    assert not _confusion_in_a_column(many)


def test_the_compare_grid_shortens_histgradientboosting_and_names_it_in_full():
    """At 140 px the grid cut "HistGradientBoosting" to "HistGradientBoostin" (1440 px); at
    152 px the table overflowed a 1280 px window by 9 px (an analyst's trial)."""
    at = open_page(
        "pages/compare.py", data="builtin:iris", methods="Laplace,HistGradientBoosting", folds="3"
    )
    assert_clean(at)
    grid = at.dataframe[0].value
    assert list(grid["method"]) == ["Laplace", "HistGB"]
    captions = " ".join(c.value for c in at.caption)
    assert "HistGB: HistGradientBoosting. Fit time" in captions
