"""Faults a new user's trial of the lessons found, each pinned.

Evidence lesson, step 3: the held-out figure's two curves had no legend entry; its legend
read HEB-M's 1.9162 while the text said HEB-M "scores 1.9163" (two numbers, no word
why); typed counts ``50, 0, 0, 0, 0, 0`` cited "this curve's lowest, 0.0000 at
m = 0.001", outside the clamp [0.01, 10,000] the lesson states; and typed counts were
headed "Counts of your counts". High cardinality: the grey and orange bars were never
explained, and in the presenter mode at 1024 px both lower figures had about 200 px of
plot. Hierarchy: HEB-M's probabilities read "0.0000" in the table and the hover.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from heb.counts import CountTable
from heb.data import Preprocessor, encode_target, load_builtin
from heb.figures.lessons import evidence as evidence_figures
from heb.lessons import evidence
from heb.lessons.common import M_MAX, M_MIN
from tests.test_lesson_evidence_heldout import _open  # a lesson page run once, with a link


# ------------------------------------------------------------------ evidence, step 3
@pytest.fixture(scope="module")
def weekday_pair() -> dict:
    """The trial's pair: zip-codes, class yes, feature weekday, HEB-M (the app's defaults)."""
    data = load_builtin("zip-codes")
    pre = Preprocessor(n_bins=10, missing="impute", categorical=data.categorical)
    codes = np.asarray(pre.fit_transform(data.X))
    y, classes = encode_target(data.y)
    table = CountTable.from_codes(
        codes, np.asarray(y), len(classes), n_categories=pre.n_categories_
    )
    features = list(pre.feature_names_out_)
    counts, mean, pooled = evidence.pair_counts(
        table, [str(c) for c in classes].index("yes"), features.index("weekday")
    )
    return evidence.evidence_lesson(counts, mean, 1000.0, pooled)


def _heldout_traces(out: dict) -> dict:
    fig, _ = evidence_figures.heldout_figure(
        out["heldout"], out["marks"], out["heb"], out["heldout_uniform"]
    )
    return {trace.name: trace for trace in fig.data}


def test_both_heldout_curves_are_named_in_the_legend(weekday_pair):
    traces = _heldout_traces(weekday_pair)
    solid = traces["held-out, HEB-M's t"]
    dashed = traces["held-out, uniform t"]
    assert solid.showlegend is not False and dashed.showlegend is not False
    assert solid.line.dash is None and dashed.line.dash == "dash"


def test_the_legends_heb_score_is_in_the_text_with_why_it_differs(weekday_pair):
    traces = _heldout_traces(weekday_pair)
    legend = next(name for name in traces if name.startswith("HEB-M's m: loss "))
    shown = legend.removeprefix("HEB-M's m: loss ")
    verdict = weekday_pair["verdict"]
    scored = evidence.format_loss(weekday_pair["comparison"]["heb"])
    assert f"scores {scored} nats" in verdict
    if shown != scored:  # two numbers: the text names the figure's and says why
        assert f"The figure's HEB-M point, {shown}, is m = " in verdict
        assert "fitted on all" in verdict


def test_the_cited_lowest_point_is_inside_the_clamp():
    out = evidence.evidence_lesson(np.array([50.0, 0, 0, 0, 0, 0]), None, 1000.0)
    c = out["comparison"]
    assert M_MIN <= c["best_m"] <= M_MAX
    assert "m = 0.001" not in out["verdict"]
    assert "0.0000" not in out["verdict"]  # a positive loss never reads as zero
    assert "lowest inside the clamp" in out["verdict"]
    # the legend rounds the same number the same way
    names = list(_heldout_traces(out))
    heb_loss = out["marks"]["HEB-U's m"][1]
    assert f"HEB-U's m: loss {evidence.format_loss(heb_loss)}" in names
    assert not [name for name in names if name.endswith(": 0.0000")]


def test_format_loss_is_plain_and_never_a_false_zero():
    assert evidence.format_loss(1.91623) == "1.9162"
    assert evidence.format_loss(0.000208) == "0.00021"
    assert evidence.format_loss(0.0) == "0.0000"
    assert "e" not in evidence.format_loss(3.1e-7)


def test_typed_counts_are_headed_your_counts():
    at = _open("lesson_evidence", {"evidence_source": "Counts I type"})
    texts = [m.value for m in at.markdown]
    assert not [t for t in texts if "Counts of your counts" in t]
    assert [t for t in texts if t.startswith("Your counts, uniform prior mean (HEB-U): N = ")]
    at = _open("lesson_evidence")
    assert [t.value for t in at.markdown if re.match(r"Counts of class \*\*", t.value)]


# ------------------------------------------------------------------ high cardinality
def test_the_reduction_bars_colours_are_named_in_the_legend():
    from heb.figures.lessons import high_cardinality as figures
    from heb.figures.style import NEUTRAL_COLOR, method_color
    from heb.lessons import high_cardinality as lesson

    grid = lesson.theorem1_grid(0.3, reps=5)
    fig, data = figures.reduction_figure(lesson.theorem1_reduction(grid))
    assert fig.layout.showlegend is True
    bars = {trace.name: trace for trace in fig.data if trace.type == "bar"}
    assert set(bars) == {"K/N < 0.1", "K/N ≥ 0.1"}
    assert bars["K/N < 0.1"].marker.color == NEUTRAL_COLOR
    assert bars["K/N ≥ 0.1"].marker.color == method_color("HEB-U")
    assert all(float(x) < 0.1 for x in bars["K/N < 0.1"].x)
    assert all(float(x) >= 0.1 for x in bars["K/N ≥ 0.1"].x)
    # every ratio once, in K/N order on the axis
    ratios = [f"{r:g}" for r in data["K_over_N"]]
    assert list(fig.layout.xaxis.categoryarray) == ratios
    assert sorted([*bars["K/N < 0.1"].x, *bars["K/N ≥ 0.1"].x], key=float) == ratios


def _chart_heights(at: AppTest) -> list[int]:
    return [json.loads(chart.proto.spec)["layout"]["height"] for chart in at.get("plotly_chart")]


def test_the_presenters_side_by_side_figures_are_tall_enough():
    """At 400 px the two half-column figures kept 190 and 141 px of plot at 1024 px."""
    at = _open("lesson_high_cardinality", present="1", step="2")
    heights = _chart_heights(at)
    assert len(heights) == 2 and min(heights) >= 420, heights  # was 400
    assert heights[0] == heights[1]  # side by side: one height, the axes level
    plain = _chart_heights(_open("lesson_high_cardinality"))
    assert plain[1] == plain[2]  # the browser test checks both plots' heights at 1024


# ------------------------------------------------------------------ hierarchy
def test_a_small_probability_never_reads_as_zero():
    from heb.lessons.hierarchy import format_probability

    assert format_probability(0.0000230) == "0.0000230"
    assert format_probability(0.00348) == "0.00348"
    assert format_probability(0.011954) == "0.0120"  # a carry keeps three figures
    assert format_probability(0.0) == "0"
    assert format_probability(3e-7) == "under 0.000001"
    for value in np.geomspace(1.1e-6, 0.9, 40):
        text = format_probability(value)
        assert float(text) > 0 and "e" not in text, (value, text)
        assert abs(float(text) - value) <= 0.005 * value, (value, text)


def test_the_prefix_table_and_hover_show_heb_ms_small_values():
    at = _open("lesson_hierarchy")
    import pyarrow as pa

    grid = next(g for g in at.dataframe if "HEB-M" in g.value.columns)
    shown = pa.ipc.open_stream(grid.proto.arrow_data.styler.display_values).read_pandas()
    heb_m = [str(v) for v in shown["HEB-M"]]
    assert "0.00348" in heb_m and heb_m.count("0") == 2, heb_m
    assert not [v for v in shown.to_numpy().ravel() if str(v).startswith("0.0000")]
    assert grid.value["HEB-M"].dtype.kind == "f"  # the cells keep their numbers
    # the two codes with no row in any class: HEB-M's exact 0, said and explained
    notes = [c.value for c in at.caption if c.value.startswith("HEB-M gives codes 1405 and 1407")]
    assert notes and "no row in any class" in notes[0]
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec)["data"]:
            template = trace.get("hovertemplate", "")
            assert ":.4f}" not in template, template


def test_the_hierarchy_figures_hover_in_significant_figures():
    from heb.figures.lessons import hierarchy as figures
    from heb.lessons.hierarchy import hierarchy_lesson

    out = hierarchy_lesson()
    assert out["unseen"] == ["1405", "1407"]
    leaf, _ = figures.leaf_figure(out["leaf_table"], out["labels"][out["leaf"]])
    prefix, _ = figures.prefix_figure(out["prefix_table"])
    for trace in [*leaf.data, *prefix.data]:
        assert "%{y:.3~g}" in trace.hovertemplate, trace.name


def test_the_prefix_figure_carries_its_rows_on_the_axis_not_in_a_table():
    """The axis said "rows of class 0 under the bars in the table"; the presenter mode has
    no table. Each code's tick now carries its class-0 rows."""
    from heb.figures.lessons import hierarchy as figures
    from heb.lessons.hierarchy import hierarchy_lesson

    table = hierarchy_lesson()["prefix_table"]
    prefix, _ = figures.prefix_figure(table)
    assert "table" not in prefix.layout.xaxis.title.text
    rows = table["rows (class 0)"].tolist()
    assert list(prefix.layout.xaxis.ticktext) == [
        f"{c}<br>{n} {'row' if n == 1 else 'rows'}"
        for c, n in zip(table["code"], rows, strict=True)
    ]
