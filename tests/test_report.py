"""What leaves the app: the HTML report, out-of-fold CSV, figure footers and the shown code."""

from __future__ import annotations

import html
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from explorer import report
from explorer.display import _image_bytes, _image_export_available
from explorer.exports import csv_bytes
from heb.data import load_dataset
from heb.data.dataset import finalize
from heb.evaluate import RunSettings, cross_validate
from heb.evaluate.report import comparison_report, oof_frame
from heb.figures.footer import FOOTER_LINE_HEIGHT, footer_lines, with_footer

REPO = Path(__file__).resolve().parents[1]
HOSTILE = '<img src="http://evil.example/x.png">=HYPERLINK("http://evil")'


@pytest.fixture(scope="module")
def hostile_result():
    """A small CV run whose class names and dataset name are hostile text."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 120).astype(str), "b": rng.integers(0, 3, 120)})
    frame["target"] = np.where(frame["b"] > 0, HOSTILE, "=1+1")
    dataset = finalize(frame, "target", name=HOSTILE, source="test", declared=["b"])
    settings = RunSettings(n_splits=3)
    return cross_validate(
        dataset, ["Laplace", "HEB-M"], settings=settings, use_cache=False
    ), settings


def test_oof_frame_holds_every_rows_out_of_fold_probabilities(hostile_result):
    result, _ = hostile_result
    frame = oof_frame(result)
    assert len(frame) == result.y.size
    classes = [str(c) for c in result.classes]
    assert frame["true class"].tolist() == [classes[i] for i in result.y]
    for method in result.methods:
        for index, label in enumerate(classes):
            np.testing.assert_array_equal(
                frame[f"{method}: P({label})"], result.oof_proba[method][:, index]
            )
        predicted = result.oof_proba[method].argmax(axis=1)
        assert frame[f"{method}: predicted"].tolist() == [classes[i] for i in predicted]
    # the CSV is formula-safe: no cell or header starts a formula
    text = csv_bytes(frame).decode("utf-8")
    parsed = pd.read_csv(io.StringIO(text), dtype=str)
    assert not any(str(c).startswith(("=", "+", "-", "@")) for c in parsed.columns)
    assert not parsed["true class"].str.startswith("=").any()


def test_report_is_self_contained_and_escaped(hostile_result):
    result, settings = hostile_result
    fig = go.Figure(go.Bar(x=[str(c) for c in result.classes], y=[1, 2]))
    page = comparison_report(
        result,
        settings,
        dataset=HOSTILE,
        figures={"first": fig, "second": go.Figure(fig)},
        tables={"Per class": pd.DataFrame({"class": [HOSTILE], "recall": [0.5]})},
        code=f"print({HOSTILE!r})",
        target=HOSTILE,
    )
    assert page.startswith("<!DOCTYPE html>")
    # the column predicted is a setting of its own (it was only in the code), escaped
    assert f"<td>target</td><td>{html.escape(HOSTILE)}</td>" in page
    # nothing is fetched: no external script, stylesheet or image; plotly.js inlined once
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=[\"']?https?:", page)
    assert page.count("<img") == 0 and "&lt;img src=" in page
    assert page.count("* plotly.js v") == 1  # the library, inlined once for both figures
    assert "Per class" in page and "0.5" in page
    for setting, value in settings.to_query().items():
        if setting != "dataset":
            assert f"<td>{setting}</td><td>{value}</td>" in page


def test_report_notes_follow_the_settings_escaped(hostile_result):
    """The sentences given as ``notes`` (why the per-class part shows one method) come
    after the settings table, escaped like every piece of user text."""
    from explorer.diagnostics import per_class_note

    result, settings = hostile_result
    note = per_class_note(HOSTILE, HOSTILE, 3)
    page = comparison_report(result, settings, dataset="d", notes=[note])
    assert f'<p class="note">{html.escape(note)}</p>' in page
    assert page.index(html.escape(note)) > page.index("<h2>Settings</h2>")
    assert "<img" not in page
    assert "the method chosen on the Per class tab" in note
    assert "the method chosen" not in per_class_note("HEB-M", "yes", 1)  # nothing to choose


def test_report_settings_name_the_columns_left_out_and_declared_escaped(hostile_result):
    """The report's settings lacked the left-out column its own code named (a trial)."""
    result, settings = hostile_result
    columns = {"read as categories": ["zip"], "columns left out": [HOSTILE, "id"], "x": []}
    page = comparison_report(result, settings, dataset="d", columns=columns)
    assert "<td>read as categories</td><td>zip</td>" in page
    assert f"<td>columns left out</td><td>{html.escape(HOSTILE)}, id</td>" in page
    assert "<td>x</td>" not in page  # an empty list adds no row


def test_report_takes_svg_text(hostile_result):
    result, settings = hostile_result
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>fig</text></svg>'
    page = comparison_report(result, settings, dataset="d", figures={"static": svg})
    assert svg in page and "plotly" not in page.lower().split("<body>")[1]


def test_footer_is_added_to_a_copy():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    fig.update_layout(height=400, margin={"b": 60})
    out = with_footer(fig, "dataset=<b>x</b> · n_bins=10")
    extra = FOOTER_LINE_HEIGHT + 10
    assert out.layout.height == 400 + extra and out.layout.margin.b == 60 + extra
    assert out.layout.annotations[-1].text == "dataset=&lt;b&gt;x&lt;/b&gt; · n_bins=10"
    assert not fig.layout.annotations and fig.layout.height == 400


def test_a_long_footer_wraps_at_its_separators():
    parts = [f"setting_{i}={'v' * 10}" for i in range(12)]
    lines = footer_lines(" · ".join(parts), width=60)
    assert " · ".join(lines) == " · ".join(parts)
    assert all(len(line) <= 60 for line in lines) and len(lines) > 1
    out = with_footer(go.Figure(), " · ".join(parts))
    assert out.layout.annotations[-1].text.count("<br>") == len(footer_lines(" · ".join(parts))) - 1


@pytest.mark.skipif(not _image_export_available(), reason="PNG/SVG export needs chromium")
def test_exported_svg_carries_the_footer():
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    svg = _image_bytes(fig, "svg", "dataset=builtin:iris · n_bins=7")().decode("utf-8")
    assert "dataset=builtin:iris · n_bins=7" in svg


def run_python(code: str, tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HEB_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_compare_code_runs_and_reproduces_the_numbers(tmp_path):
    settings = RunSettings(n_splits=3, n_bins=5, overrides={"Lidstone": {"alpha": 0.5}})
    code = report.compare_code(
        report.dataset_line("builtin:iris"), ["Laplace", "Lidstone"], settings
    )
    out = run_python(
        code + "\nprint('JSON' + result.summary().to_json(double_precision=15))", tmp_path
    )
    shown = pd.read_json(io.StringIO(out.split("JSON", 1)[1]))
    expected = cross_validate(
        load_dataset("builtin:iris"), ["Laplace", "Lidstone"], settings=settings, use_cache=False
    ).summary()
    np.testing.assert_allclose(shown["log_loss_mean"], expected["log_loss_mean"], rtol=1e-12)
    np.testing.assert_allclose(shown["accuracy_mean"], expected["accuracy_mean"], rtol=1e-12)


def test_dataset_line_quotes_any_file_name():
    upload = {"filename": "x'); import os; os.system('echo pwned') #.csv", "target": "a'b"}
    line = report.dataset_line("upload:abc", upload)
    namespace: dict = {}
    exec(line.replace("load_dataset", "(lambda *a, **k: (a, k))"), namespace)  # noqa: S102
    assert namespace["dataset"] == ((upload["filename"],), {"target": "a'b"})


def test_explain_code_reads_as_a_person_would_write_it():
    """It held ``if 20000 and len(X) > 20000:``; without a cap, no subsample lines."""
    settings = {"n_bins": 5, "missing": "impute", "max_rows": 20000}
    capped = report.explain_code("dataset = 1", settings, ["laplace"], row=0, target=0, reference=1)
    assert "if len(X) > 20000:" in capped and "20000 and" not in capped
    uncapped = report.explain_code(
        "dataset = 1", {**settings, "max_rows": None}, ["laplace"], row=0, target=0, reference=1
    )
    assert "stratified_subsample(X" not in uncapped


def test_explain_code_with_hierarchies_runs_and_gives_heb_hs_explanation(tmp_path):
    """The Explain page's code for HEB-H builds the declared levels on its codes (no test
    ran it): its log-odds are those of make_hierarchy_model's fit of the same rows."""
    from heb.evaluate import make_hierarchy_model
    from heb.explain import explain

    text = '[{"feature":"zip_code","prefix":[3,1]}]'
    code = report.explain_code(
        report.dataset_line("builtin:zip-codes"),
        {"n_bins": 10, "missing": "impute", "max_rows": None},
        ["heb-m", "heb-h"],
        row=11,
        target=1,
        reference=0,
        hierarchies=text,
    )
    out = run_python(code + "\nprint('JSON' + json.dumps({n: e.log_odds.tolist() "
                     "for n, e in out.items()}))".replace("json.dumps", "__import__('json').dumps"),
                     tmp_path)  # fmt: skip
    values = json.loads(out.split("JSON", 1)[1])
    data = load_dataset("builtin:zip-codes")
    model = make_hierarchy_model("zip_code -> prefix 3 -> prefix 1").fit(data.X, data.y)
    codes = model[0].transform(data.X.iloc[[11]])
    expected = explain(model[-1], codes, target=1, reference=0).log_odds[0]
    assert values["heb-h"][0] == pytest.approx(expected, abs=1e-9)
    assert abs(values["heb-h"][0] - values["heb-m"][0]) > 1e-6


def test_explain_code_runs(tmp_path):
    code = report.explain_code(
        report.dataset_line("builtin:iris"),
        {"n_bins": 5, "missing": "impute", "max_rows": 20000},
        ["laplace", "heb-m"],
        row=7,
        target=1,
        reference=2,
    )
    out = run_python(code + "\nprint('JSON' + json.dumps({n: e.log_odds.tolist() "
                     "for n, e in out.items()}))".replace("json.dumps", "__import__('json').dumps"),
                     tmp_path)  # fmt: skip
    values = json.loads(out.split("JSON", 1)[1])
    assert set(values) == {"laplace", "heb-m"}
    assert all(np.isfinite(v[0]) for v in values.values())
