"""Tests that kill the mutants a mutation pass over the upload columns, the link's upload
values, Explain's default smoothers, the lazy per-class report, the worker's rehearsal,
the lesson template and the modebar band left alive (each test names the code it pins down;
the PageDown keys' mutants are killed by the PageDown test of test_footer_and_modebar)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from explorer import explain, state, summaries
from explorer.display import MODEBAR_BAND, _below_modebar
from explorer.errors import escape
from heb import data as hdata
from heb.figures.lessons.parts import LESSON_MARGIN, lesson_style, readable
from heb.figures.style import FONT_SIZE, legend_rows
from tests.test_app import assert_clean, open_app, unescape, uploader, url
from tests.test_upload_columns import LINK, csv, customers

REPO = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- the rule
def _codes(X: pd.DataFrame) -> dict:
    """numeric_code_columns of ``X``, every column binned as a number."""
    kinds = dict.fromkeys(X.columns, "numeric")
    work = SimpleNamespace(
        feature_names=list(X.columns), preprocessor=SimpleNamespace(kinds_=kinds, n_bins=10)
    )
    return summaries.numeric_code_columns(SimpleNamespace(X=X), work)


def test_the_numeric_code_rule_at_its_two_thresholds():
    """More than CODE_MIN_VALUES distinct values (100 ages in 200 rows are not a code), at
    least CODE_DISTINCT_SHARE of the rows (101 values twice each, exactly half, are)."""
    assert summaries.CODE_MIN_VALUES == 100 and summaries.CODE_DISTINCT_SHARE == 0.5
    hundred = pd.DataFrame({"age": np.tile(np.arange(100), 2)})
    assert _codes(hundred) == {}
    half = pd.DataFrame({"code": np.tile(np.arange(1000, 1101), 2)})
    assert _codes(half) == {"code": (101, 202)}


def test_a_table_of_exactly_the_sample_size_is_counted_whole():
    """The note speaks of a sample only when there is one (more than CODE_SAMPLE_ROWS)."""
    rows = summaries.CODE_SAMPLE_ROWS
    X = pd.DataFrame({"order": np.arange(rows) + 10**6})
    work = SimpleNamespace(
        feature_names=["order"], preprocessor=SimpleNamespace(kinds_={"order": "numeric"})
    )
    note = summaries.numeric_code_notes(SimpleNamespace(X=X), work)["order"]
    assert f"in {rows:,} rows: it is binned" in note and "sample" not in note


# --------------------------------------------------------------------------- the engine
def test_two_unknown_declared_columns_are_named_in_the_plural():
    with pytest.raises(hdata.DataError, match="Columns 'a', 'b' are declared categorical"):
        hdata.load_upload(csv(customers()), "c.csv", categorical=["a", "b"])


# --------------------------------------------------------------------------- the link
def test_a_links_column_list_is_refused_when_too_long():
    """Like the hierarchies, a categorical list past 8 x MAX_URL_VALUE characters is
    ignored whole (it is not parsed)."""
    names = [f"column_{i:04d}" for i in range(8 * state.MAX_URL_VALUE // 10)]
    text = json.dumps(names)
    assert len(text) > 8 * state.MAX_URL_VALUE
    assert state._url_upload({"file": "a.csv", "categorical": text})["categorical"] == []
    short = json.dumps(names[:5])
    assert state._url_upload({"file": "a.csv", "categorical": short})["categorical"] == names[:5]


def _captions(at) -> str:
    return " ".join(unescape(c.value) for c in at.caption)


def test_a_link_declaring_the_default_target_leaves_it_out():
    """The link's target is not a column of the file, so the default target stands: a
    declaration of that column is dropped too (it would linger, unseen, in the link)."""
    link = {
        "dataset": "upload:0123456789ab",
        "file": "customers.csv",
        "target": "segment",
        "categorical": json.dumps(["label", "customer", "age"]),
    }
    at = open_app(**link)
    uploader(at).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "label"
    assert json.loads(url(at, "categorical")) == ["age", "customer"]
    spec = at.session_state["data_spec"]
    assert at.session_state["uploads"][spec]["categorical"] == ["customer", "age"]
    # two columns taken: in the plural
    assert "the categorical columns 'customer', 'age'" in _captions(at)


def test_a_links_target_that_does_not_suit_the_file_is_left_out():
    """'customer' is a column of the file but not a possible target (400 classes): the
    default target is used and the caption says why, and the page works."""
    at = open_app(dataset="upload:0123456789ab", file="customers.csv", target="customer")
    uploader(at).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "label"
    assert "Left out from the link: the target 'customer' (The target 'customer' has 400" in (
        _captions(at)
    )
    assert url(at, "target") is None


def test_a_links_upload_values_go_to_the_first_file_read_of_that_name_only():
    """A file of the link's name that cannot be read takes nothing (the next one does);
    once a file took them, another upload of that name starts from the defaults."""
    at = open_app(dataset="upload:0123456789ab", file="customers.csv", target="colour")
    uploader(at).upload("customers.csv", b"\x00\x01not a table", "text/csv").run()
    assert at.error  # "This file holds binary data ..."
    uploader(at).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_target").value == "colour"
    uploader(at).upload("customers.csv", csv(customers(seed=1)), "text/csv").run()
    assert_clean(at)
    # the record and the page (label: two classes); the target box is not read here: it
    # shows the previous upload's choice (a separate, older issue)
    assert at.session_state["uploads"][at.session_state["data_spec"]]["target"] is None
    assert {m.label: m.value for m in at.metric}["Classes"] == "2"
    assert "From the link" not in _captions(at)


def test_a_declared_set_has_one_link_whatever_the_order_it_was_chosen_in():
    at = open_app()
    uploader(at).upload("customers.csv", csv(customers()), "text/csv").run()
    at.multiselect(key="upload_categorical").set_value(["customer", "age"]).run()
    assert_clean(at)
    first = url(at, "categorical")
    at.multiselect(key="upload_categorical").set_value(["age", "customer"]).run()
    assert_clean(at)
    assert url(at, "categorical") == first == json.dumps(["age", "customer"])


def test_column_names_from_the_file_and_the_link_are_shown_as_text():
    """The link's caption and the numeric-code note's button name a column as plain text:
    a markdown link in a column name is not a link on the page."""
    frame = customers().rename(columns={"customer": LINK})
    at = open_app(
        dataset="upload:0123456789ab", file="customers.csv", categorical=json.dumps([LINK])
    )
    uploader(at).upload("customers.csv", csv(frame), "text/csv").run()
    assert_clean(at)
    (caption,) = [c.value for c in at.caption if "From the link" in c.value]
    assert LINK not in caption and LINK in unescape(caption)
    at.multiselect(key="upload_categorical").set_value([]).run()  # binned: the note is back
    assert_clean(at)
    label = at.button(key="declare_categorical_0").label
    assert label == f"Treat {escape(LINK, limit=40)} as categorical" and LINK not in label


# --------------------------------------------------------------------------- Explain
@pytest.mark.parametrize(
    ("methods", "smoothers"),
    [
        # weighted methods hold a smoother but not one smoother's per-feature terms
        (["Laplace+GR", "HEB-M+GR"], list(explain.DEFAULT_SMOOTHERS)),
        (["TAN", "Laplace+GR", "KT"], ["kt"]),
        (["no such method", "HEB-M", "HEB-M"], ["heb-m"]),  # unknown names are skipped
    ],
)
def test_default_smoothers_take_the_plain_naive_bayes_methods_only(methods, smoothers):
    assert explain.default_smoothers(methods) == smoothers


# --------------------------------------------------------------------------- the report
def test_a_closed_per_class_tab_builds_no_per_method_figures_until_the_report(monkeypatch):
    """With the per-class tab closed, the confusion / per-class reliability figures wait
    for the report's click like the ROC curves (each first view built them)."""
    from explorer import diagnostics, report

    captured, built = {}, []
    real_downloads, real_figures = report.comparison_downloads, diagnostics.method_figures

    def downloads(result, settings, dataset, contents, code, target="", notes=list, upload=None):
        captured["contents"] = contents
        real_downloads(result, settings, dataset, contents, code, target, notes, upload)

    def method_figures(comparison, method):
        built.append(method)
        return real_figures(comparison, method)

    monkeypatch.setattr(report, "comparison_downloads", downloads)
    monkeypatch.setattr(diagnostics, "method_figures", method_figures)
    at = open_app(
        "pages/compare.py",
        dataset="builtin:iris",
        methods="Laplace,HEB-M",
        folds="4",
        diag_method="HEB-M",
    )
    assert at.tabs[0].label == "Reliability" and built == []
    tables, figures = captured["contents"]()
    assert built == ["HEB-M"]
    assert "Per class: HEB-M" in tables
    assert figures["Confusion matrix: HEB-M"].layout.title.text == "Confusion matrix: HEB-M"


# --------------------------------------------------------------------------- the worker
@pytest.mark.parametrize(
    ("flags", "expected"), [(["--rehearse"], ["REHEARSED", "SERVING"]), ([], ["SERVING"])]
)
def test_a_spare_worker_rehearses_before_it_serves_and_another_does_not(flags, expected):
    """explorer.cv_worker.main calls rehearse() before reading its first run when started
    as a spare (the flag), not when a waiting run started it."""
    script = (
        "import sys\n"
        "from explorer import cv_worker\n"
        "cv_worker.rehearse = lambda: print('REHEARSED', file=sys.stderr, flush=True)\n"
        "real = cv_worker._serve\n"
        "def serve(say):\n"
        "    print('SERVING', file=sys.stderr, flush=True)\n"
        "    real(say)\n"
        "cv_worker._serve = serve\n"
        "sys.exit(cv_worker.main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *flags],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line in {"REHEARSED", "SERVING"}]
    assert lines == expected, done.stderr


# --------------------------------------------------------------------------- lessons
def test_the_lesson_template_sizes_hover_labels_and_legends():
    """readable() gives a figure the lessons' legend and hover label sizes too (the
    projector sizes), not only the axes'."""
    fig = readable(go.Figure([go.Bar(x=["a"], y=[1], name="one"), go.Bar(x=["a"], y=[2])]))
    template = fig.layout.template.layout
    assert template.legend.font.size == FONT_SIZE - 1
    assert template.hoverlabel.font.size == FONT_SIZE


def test_a_lesson_figure_keeps_its_margins_and_grows_with_its_legend():
    """lesson_style's side and bottom margins, and 28 px more per extra legend row."""
    one = lesson_style(go.Figure(go.Scatter(x=[0, 1], y=[1, 2])), "Title")
    margin = one.layout.margin
    assert {"l": margin.l, "r": margin.r, "b": margin.b} == LESSON_MARGIN
    assert one.layout.height == 460
    long_names = [f"a rather long series name number {i}" for i in range(4)]
    fig = go.Figure([go.Scatter(x=[0, 1], y=[i, i + 1], name=n) for i, n in enumerate(long_names)])
    rows = legend_rows(fig)
    assert rows > 1
    assert lesson_style(fig, "Title").layout.height == 460 + 28 * (rows - 1)


# --------------------------------------------------------------------------- modebar
def test_a_shown_figure_leaves_the_modebar_band_free():
    """show_figure sends the figure with its title and plot below the modebar's band."""

    def page() -> None:
        import plotly.graph_objects as go

        from explorer.display import show_figure
        from heb.figures.style import style

        fig = go.Figure([go.Bar(x=["a"], y=[1], name="one"), go.Bar(x=["a"], y=[2], name="two")])
        show_figure(style(fig, "A title", 400), None, "x")

    at = AppTest.from_function(page).run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    (chart,) = at.get("plotly_chart")
    layout = json.loads(chart.proto.spec)["layout"]
    assert layout["title"]["pad"]["t"] >= MODEBAR_BAND
    assert layout["margin"]["t"] > MODEBAR_BAND
    assert (1 - layout["legend"]["y"]) * layout["height"] >= MODEBAR_BAND - 1e-6


def test_a_title_placed_by_plotly_keeps_the_legend_and_the_default_height():
    """A figure with no height and a title in paper coordinates, with a legend of its own
    (vertical, at the right): the title is placed in pixels below the band, the legend
    stays where it was, and the figure keeps plotly's default height."""
    fig = go.Figure(
        [go.Scatter(x=[0, 1], y=[1, 2], name="one"), go.Scatter(x=[0, 1], y=[2, 1], name="two")],
        layout={"title": {"text": "A title", "yref": "paper", "y": 1.0, "yanchor": "top"}},
    )
    legend = fig.layout.legend.to_plotly_json()
    _below_modebar(fig)
    title = fig.layout.title
    assert (title.yref, title.yanchor) == ("container", "top")
    assert title.pad.t >= MODEBAR_BAND
    assert fig.layout.height in (None, 450)
    assert fig.layout.legend.to_plotly_json() == legend
