"""An analyst's trial of the app on their own files (a phone among the screens): what it
found, each as a test that failed before its fix."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from heb.figures.explain import contribution_figure, contribution_frame, contribution_min_width
from heb.figures.style import FONT_SIZE
from tests.test_app import APP, TIMEOUT, assert_clean

#: a phone's column (390 px screen less the page's padding)
PHONE_COLUMN_PX = 356
#: pixels of one character of a label at the figures' type (0.6 em)
CHAR_PX = 0.6 * FONT_SIZE


def _min_widths(at: AppTest) -> dict[str, int]:
    """The chart keys a page's style keeps at least so many pixels wide."""
    rule = re.compile(
        r"\.st-key-(\w+) > \[data-testid=\"stFullScreenFrame\"\] \{ min-width: (\d+)px"
    )
    found = {}
    for element in at.get("html"):
        found.update({key: int(px) for key, px in rule.findall(element.proto.body)})
    return found


def test_the_cd_diagram_keeps_its_own_width_on_a_phone_and_scrolls():
    """On a 390 px phone the diagram's method labels (fixed-pixel margins, ~330 px) left
    the rank axis 26 px: the ranks 1 to 5 printed over each other. It now keeps its
    margins and 30 px a rank, scrolling sideways in a narrower column."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["methods"] = "Laplace,m-estimate,TE,HEB-U,HEB-M"
    at.run()
    at.switch_page("pages/benchmark.py")
    at.run()
    at.multiselect(key="w_bench_datasets").set_value(
        ["builtin:iris", "builtin:wine", "builtin:known-truth"]
    ).run()
    at.button(key="bench_run").click().run()
    assert_clean(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    layout = spec["layout"]
    margins = layout["margin"]["l"] + layout["margin"]["r"]
    assert margins > PHONE_COLUMN_PX - 40  # why a phone's column cannot hold it
    widths = _min_widths(at)
    ranks = layout["xaxis"]["range"][1] - layout["xaxis"]["range"][0]
    assert widths.get("cd_accuracy", 0) >= margins + 30 * ranks  # the ranks stay apart
    # and no wider: the whole diagram still fits a 1024 px window with the sidebar open
    assert widths["cd_accuracy"] <= 535


def _explain_figure(feature: str, value: str) -> go.Figure:
    from heb import NaiveBayes
    from heb.explain import explain

    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    y = np.array([0, 0, 1, 1])
    models = {name: NaiveBayes(smoother=name).fit(X, y) for name in ("laplace", "heb-m")}
    explanations = {
        name: explain(model, X[:1], target=1, reference=0) for name, model in models.items()
    }
    frame = contribution_frame(explanations, [feature, "b"], [value, "x"])
    return contribution_figure(frame, list(models), "Row 0")


def test_the_explain_figure_is_drawn_wide_enough_for_its_labels_and_bars():
    """Its bar labels ("monthly_charges = [44.818, 53.278)") took a phone's column and left
    the bars a 60 px strip; its minimum width holds the longest label and 200 px of bars."""
    short = contribution_min_width(_explain_figure("a", "1"))
    long_label = "monthly_charges = [44.818, 53.278)"
    wide = contribution_min_width(_explain_figure("monthly_charges", "[44.818, 53.278)"))
    assert wide - short >= 0.5 * FONT_SIZE * (len(long_label) - len("(prior: class frequencies)"))
    assert wide >= CHAR_PX * len(long_label) + 200 > PHONE_COLUMN_PX
    assert wide <= 535  # and it still fits a 1024 px window with the sidebar open
    # an escaped label (&lt;) counts as the character it shows
    escaped = contribution_min_width(_explain_figure("a<b", "1"))
    assert escaped == contribution_min_width(_explain_figure("a-b", "1"))


def test_the_explain_page_keeps_its_figure_that_wide():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["dataset"] = "builtin:iris"
    at.run()
    at.switch_page("pages/explain.py")
    at.run()
    assert_clean(at)
    widths = _min_widths(at)
    assert widths.get("explain_fig", 0) > PHONE_COLUMN_PX


def test_the_cli_says_how_to_leave_a_date_column_out(tmp_path, capsys):
    """``heb bench`` printed the Dataset page's advice, "leave it out (Columns to leave
    out)", for a column of dates: a control the command line does not have. It now names
    ``--drop`` beside the page's control."""
    from heb.cli import main

    rng = np.random.default_rng(0)
    days = [f"2025-{m:02d}-{d:02d}" for m in (1, 2) for d in range(1, 29)]
    rows = ["order_date,store,returned"] + [
        f"{rng.choice(days)},{rng.choice(list('ABC'))},{rng.choice(['kept', 'back'])}"
        for _ in range(300)
    ]
    path = tmp_path / "orders.csv"
    path.write_text("\n".join(rows) + "\n")
    code = main(
        ["bench", str(path), "--methods", "laplace", "--folds", "2", "--no-figures"]
        + ["--no-cache", "-o", str(tmp_path / "out")]
    )
    assert code == 0
    said = capsys.readouterr()
    (line,) = [x for x in (said.out + said.err).splitlines() if "holds dates" in x]
    assert "--drop" in line


def _heatmap(names: list[str]) -> go.Figure:
    from explorer.display import _apply_style
    from heb import NaiveBayes, figures

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, len(names)))
    y = rng.integers(0, 2, 200)
    model = NaiveBayes(smoother="heb-m").fit(X, y)
    fig = figures.concentration_heatmap(model.concentrations_, names, ["a", "b"])
    _apply_style(fig)  # as the app draws and exports it
    return fig


def test_an_exported_footer_sits_under_long_turned_column_names():
    """A heatmap of columns named like 'customer_lifetime_value_segment_2024' exported
    with its footer: the names, turned 30 degrees, ran through the footer (placed from the
    plot's height, which a legend and the labels had both shrunk)."""
    from heb.figures.footer import _bottom_label_room, with_footer

    names = ["customer_lifetime_value_segment_2024", "preferred_contact_channel", "region"]
    fig = _heatmap(names)
    room = _bottom_label_room(fig)
    # the longest label (cut to 30 characters) at 30 degrees: half its length, at least
    assert room >= 0.5 * CHAR_PX * 30 - FONT_SIZE
    out = with_footer(fig, "dataset=upload:x · n_bins=10")
    note = out.layout.annotations[-1]
    # placed in pixels under the plot's bottom edge, past the labels: whatever the plot's
    # height turns out to be (the legend grows the top margin when drawn)
    assert (note.y, note.yref, note.yanchor) == (0, "paper", "top")
    assert -note.yshift >= fig.layout.margin.b + room
    assert out.layout.margin.b - fig.layout.margin.b >= room + 16
    # short names at their usual angle get little room; a numeric axis none
    assert _bottom_label_room(_heatmap(["a", "b", "c"])) < room / 4
    assert _bottom_label_room(go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))) == 0


def test_an_exported_footer_keeps_the_legend_where_it_was():
    """The legend sits in container units, a share of the height: the footer's taller
    figure slid it 38 px down into the plot, which plotly pushed down under it."""
    from heb.figures.footer import with_footer

    fig = _heatmap(["a", "b", "c"])
    assert fig.layout.legend.yref == "container"
    out = with_footer(fig, "dataset=upload:x · n_bins=10 · " + " · ".join(["s=1"] * 30))
    before = (1 - fig.layout.legend.y) * fig.layout.height
    after = (1 - out.layout.legend.y) * out.layout.height
    assert abs(after - before) < 1e-6
    assert out.layout.height > fig.layout.height


def test_an_exported_footer_stays_inside_a_figure_that_sets_no_bottom_margin():
    """A figure leaving its bottom margin to plotly (80 px) got a margin of the footer's
    height alone, so the footer, hung 80 px under the plot, fell off the figure."""
    from heb.figures.footer import FOOTER_LINE_HEIGHT, with_footer

    for margin in ({}, {"b": 40}):
        fig = go.Figure(go.Bar(x=[1, 2], y=[3, 4]))
        fig.update_layout(height=400, margin=margin)
        out = with_footer(fig, "Made with HEB Explorer")
        (note,) = out.layout.annotations
        bottom = margin.get("b", 80)
        assert out.layout.margin.b == bottom + (out.layout.height - 400)
        # the footer's top, -yshift under the plot, leaves its line inside the margin
        assert -note.yshift + FOOTER_LINE_HEIGHT <= out.layout.margin.b
