"""Each lesson page runs (AppTest), shows its sliders and its figures with the right traces."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer.routing import page_title
from heb.figures import TITLE_PAD, title_height
from heb.figures.lessons.parts import LESSON_TITLE_LINE
from heb.lessons.common import M_MIN, format_m
from heb.registry import METHODS

PAGES = Path(__file__).resolve().parents[1] / "pages"


def run_page(name: str, **state) -> AppTest:
    """Run ``pages/<name>.py`` on its own, with optional session state set first."""
    app = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=60)
    for key, value in state.items():
        app.session_state[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert_every_figure_downloads(app)
    return app


def assert_every_figure_downloads(app: AppTest) -> None:
    """Each figure on the page offers its image (PNG, or HTML without Chromium) and CSV."""
    labels = [button.proto.label for button in app.get("download_button")]
    n_figures = len(app.get("plotly_chart"))
    assert labels.count("CSV") >= n_figures, labels
    assert labels.count("PNG") + labels.count("HTML") == n_figures, labels


def figures(app: AppTest) -> list[dict]:
    """The plotly specs on the page, in order."""
    return [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]


def names(figure: dict) -> list[str]:
    return [trace.get("name", "") for trace in figure["data"]]


def values(array) -> np.ndarray:
    """A trace array, decoded from plotly's base64 ``bdata`` form when needed."""
    if isinstance(array, dict) and "bdata" in array:
        raw = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        return raw.reshape(array["shape"]) if "shape" in array else raw
    return np.asarray(array)


def trace(figure: dict, name: str) -> dict:
    matches = [t for t in figure["data"] if t.get("name", "") == name]
    assert matches, f"no trace {name!r} in {names(figure)}"
    return matches[0]


def assert_title_then_legend(figure: dict, max_line: int = LESSON_TITLE_LINE) -> None:
    """Title at the top, a horizontal legend right under it (never over it), lines short.

    ``max_line`` characters per title line: the 20 px title type takes about 10 px each,
    so 44 fit a lesson's right column in a 1280 px window with the sidebar open, and 28
    half of it in a 1600 px one.
    """
    layout = figure["layout"]
    title = layout["title"]
    # from the figure's top: the title's pad (explorer.display's modebar band) and its lines
    block = title_height(title["text"]) - TITLE_PAD + title["pad"]["t"]
    assert title["yref"] == "container" and title["yanchor"] == "top"
    assert max(len(line) for line in title["text"].split("<br>")) <= max_line, title["text"]
    legend = layout.get("legend", {})
    if legend.get("yref") == "container":
        assert legend["yanchor"] == "top"
        assert block <= (1 - legend["y"]) * layout["height"] <= block + 8
    else:  # a legend placed inside the plot
        assert legend["yref"] == "paper" and 0 <= legend["y"] <= 1
    assert layout["margin"]["t"] >= block


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def sliders(app: AppTest) -> int:
    return len(app.slider) + len(app.select_slider)


# ------------------------------------------------------------------ lesson 1
def test_zero_counts_lesson():
    app = run_page("lesson_zero_counts")
    assert sliders(app) >= 2
    assert metrics(app)["P(ham | e-mail)"] == "0.0000"  # unsubscribe vetoes ham at alpha = 0
    bars, underflow = figures(app)
    for figure in (bars, underflow):
        assert_title_then_legend(figure)
    ham = trace(bars, "P(word | ham)")
    assert ham["type"] == "bar" and values(ham["y"])[-1] == 0.0
    assert {"spam, exact (logs)", "spam: float64 product hits 0"} <= set(names(underflow))
    app.select_slider[0].set_value(1.0).run()
    assert float(metrics(app)["P(ham | e-mail)"]) > 0.99
    app.pills[0].set_value(["agenda", "winner"])
    app.select_slider[0].set_value(0.0).run()
    assert app.error and "0 / 0" in app.error[0].value


# ------------------------------------------------------------------ lesson 2
def test_dirichlet_lesson():
    app = run_page("lesson_dirichlet")
    assert sliders(app) >= 3
    bars, sweep = figures(app)
    for figure in (bars, sweep):
        assert_title_then_legend(figure)
    assert {"true p*", "unsmoothed n / N", "posterior mean, α = 1"} <= set(names(bars))
    assert values(trace(bars, "posterior mean, α = 1")["y"]).sum() == pytest.approx(1.0)
    assert {"expected l1 error", "l1 bias of the mean"} <= set(names(sweep))
    assert metrics(app)["Prior's share Kα/(N+Kα)"] == "50%"  # K = N = 50, alpha = 1
    app.select_slider[2].set_value(0.1).run()
    assert "posterior mean, α = 0.1" in names(figures(app)[0])


def test_dirichlet_lesson_with_no_observations_names_no_best_alpha():
    app = run_page("lesson_dirichlet")
    app.select_slider[1].set_value(0).run()  # N = 0: every alpha gives 1/K
    assert not app.exception
    assert metrics(app)["α minimising expected l1"] == "none"
    bars, sweep = figures(app)
    assert "unsmoothed n / N" not in names(bars)  # n / N is 0 / 0
    assert "every α gives the same estimate" in sweep["layout"]["title"]["text"]
    for figure in (bars, sweep):  # labels are legend entries: nothing to overlap
        assert not figure["layout"].get("annotations"), figure["layout"].get("annotations")
        assert_title_then_legend(figure)


# ------------------------------------------------------------------ lesson 3
def _check_evidence_figures(app: AppTest, heb: str) -> None:
    evidence, pmfs, heldout = figures(app)
    assert names(evidence)[0] == "evidence l(m)"
    assert any(n.startswith(f"{heb}'s m =") for n in names(evidence))
    # Laplace (uniform t, m = K) is a point of the evidence curve only under a uniform t
    assert any(n.startswith("Laplace: m = K =") for n in names(evidence)) == (heb == "HEB-U")
    assert {"unsmoothed", "Laplace", heb, "prior mean"} <= set(names(pmfs))
    colours = {t["name"]: t["marker"]["color"] for t in pmfs["data"]}
    assert len(set(colours.values())) == len(colours) == 5  # what-if included
    assert colours["Laplace"] == METHODS["Laplace"].colour
    assert colours[heb] == METHODS[heb].colour
    assert len(pmfs["data"][0]["x"]) <= 20  # five bars per category: few categories
    assert names(heldout)[0] == f"held-out, {heb}'s t"
    assert any(n.startswith("Laplace, m = K: loss ") for n in names(heldout))
    assert any(n.startswith("uniform guess: log K = ") for n in names(heldout))
    for figure in (evidence, pmfs, heldout):
        assert_title_then_legend(figure)
    assert np.isfinite(values(heldout["data"][0]["y"])).all()


def test_evidence_lesson_on_the_current_dataset_pair():
    app = run_page("lesson_evidence", evidence_pair={"class": 1, "feature": 3})
    assert app.selectbox[0].value == 1 and app.selectbox[1].value == 3
    assert sliders(app) >= 1
    _check_evidence_figures(app, "HEB-M")
    app.radio[1].set_value("uniform (HEB-U)").run()
    _check_evidence_figures(app, "HEB-U")


def test_evidence_lesson_typed_counts():
    app = run_page("lesson_evidence", evidence_source="Counts I type")
    _check_evidence_figures(app, "HEB-U")
    app.text_input[0].set_value("40, 0, 0, 0").run()  # the vertex: clamped at m_min
    assert metrics(app)["HEB-U's m"] == format_m(M_MIN)
    app.text_input[0].set_value("3, x").run()
    assert app.error and "whole numbers" in app.error[0].value


# ------------------------------------------------------------------ lesson 4
def test_high_cardinality_default_view_shows_figure_2():
    app = run_page("lesson_high_cardinality")
    assert sliders(app) >= 3
    grid, reduction, vertex = figures(app)
    ratios = np.array([float(x) for x in reduction["data"][0]["x"]])
    assert (values(reduction["data"][0]["y"])[ratios >= 0.1] > 5).all()
    assert {"Laplace", "HEB-U", "KT", "m-estimate", "√(K/N) reference"} <= set(names(grid))
    laplace, heb = values(trace(grid, "Laplace")["y"]), values(trace(grid, "HEB-U")["y"])
    ratio = values(trace(grid, "Laplace")["x"])
    assert (heb[ratio >= 0.1] < laplace[ratio >= 0.1]).all()
    assert {"Laplace: 2(K−1)/(N+K)", "HEB-U: m = m_min"} <= set(names(vertex))
    assert_title_then_legend(grid)
    for half_width in (reduction, vertex):
        assert_title_then_legend(half_width, max_line=28)
    # side by side: the same title height, so both plots start at the same row
    assert reduction["layout"]["margin"]["t"] == vertex["layout"]["margin"]["t"]
    table = app.dataframe[0].value
    wide = table[table["K/N"] >= 0.1]
    assert (wide["HEB-U"] < wide["Laplace"]).all()
    assert (wide[wide["K/N"] <= 2.5]["reduction %"] > 10).all()  # the paper's pattern
    assert float(metrics(app)["HEB-U's reduction"].rstrip("%")) > 10


# ------------------------------------------------------------------ lesson 5
def test_calibration_lesson():
    app = run_page("lesson_calibration")
    assert sliders(app) >= 1
    # only the open tab is built: its two figures, then the other tab's two
    double, reliability = figures(app)
    assert app.session_state["calib_metric"] == "ece"  # the closed tab's metric, kept
    app.session_state["calib_tab"] = "Remedies side by side"
    bars, fix_reliability = figures(app.run())
    left, right = "mean |log-odds| (left)", "ECE (right)"
    assert {left, "k × one copy", right} <= set(names(double))
    scale = values(trace(double, left)["y"])
    np.testing.assert_allclose(scale, np.arange(1, scale.size + 1) * scale[0], rtol=1e-9)
    shown = " ".join(names(reliability))
    assert "1 copy (ECE" in shown and "4 copies (ECE" in shown
    assert {"no post-hoc", "Platt", "isotonic", "temperature"} <= set(names(bars))
    assert fix_reliability["data"]
    table = app.dataframe[-1].value  # every number, under the metrics' names
    assert {"ECE (top-1, 10 bins)", "Log-loss", "Brier score"} <= set(table.columns)
    for figure in (double, reliability, bars, fix_reliability):
        assert_title_then_legend(figure)
    one, four = (t for t in reliability["data"] if "cop" in t["name"] and t["type"] == "scatter")
    assert one["line"]["color"] != four["line"]["color"]
    verdicts = ("Complementary here", "Not complementary here", "Within noise here")
    assert any(word in md.value for md in app.markdown for word in verdicts)
    app.slider[0].set_value(1).run()
    assert not app.exception


# ------------------------------------------------------------------ lesson 6
def test_known_truth_lesson():
    app = run_page("lesson_known_truth")
    assert sliders(app) >= 3
    # only the open tab is built: one figure at a time, the others on opening their tab
    (errors,) = figures(app)
    app.session_state["truth_tab"] = "Posteriors"
    (scatter,) = figures(app.run())
    assert app.multiselect(key="w_truth_pick").value == ["Laplace", "HEB-M"]
    app.session_state["truth_tab"] = "Calibration"
    (calibration,) = figures(app.run())
    assert app.session_state["truth_pick"] == ["Laplace", "HEB-M"]  # kept while closed
    assert not app.exception
    assert {t["type"] for t in errors["data"]} == {"box"}
    assert {"Laplace", "HEB-M", "HEB-U", "TE"} <= set(names(errors))
    assert {"Laplace", "HEB-M", "perfect"} <= set(names(scatter))
    assert "true ECE (from the true P(right | x))" in names(calibration)
    for figure in (errors, scatter, calibration):
        assert_title_then_legend(figure)
    app.radio[0].set_value("ID-like features (ZIP codes, user IDs)").run()
    assert not app.exception and len(figures(app)) == 1


# ------------------------------------------------------------------ under the app
LESSONS = (
    "lesson_zero_counts",
    "lesson_dirichlet",
    "lesson_evidence",
    "lesson_high_cardinality",
    "lesson_calibration",
    "lesson_known_truth",
)


def test_every_lesson_runs_under_the_apps_navigation():
    app = AppTest.from_file(str(PAGES.parent / "app.py"), default_timeout=60).run()
    assert not app.exception, [e.value for e in app.exception]
    for number, lesson in enumerate(LESSONS, start=1):
        app.switch_page(f"pages/{lesson}.py").run()
        assert not app.exception, (lesson, [e.value for e in app.exception])
        assert app.get("plotly_chart"), lesson
        assert app.title[0].value == page_title(f"{lesson}.py")  # the menu's name
        assert app.caption[0].value.startswith(f"Lesson {number} of ")


# ------------------------------------------------------------------ lighter figures (issue 12)
def _spec(fig) -> dict:
    return json.loads(fig.to_json())


def test_corollary_1_keeps_its_legend_above_the_plot():
    """Its legend sat inside the plot, over a tick label: it is above the plot now."""
    from heb.figures.lessons.high_cardinality import vertex_figure
    from heb.lessons.high_cardinality import vertex_errors

    fig, _ = vertex_figure(vertex_errors([2, 10, 100, 1000], 50))
    legend, height = fig.layout.legend, fig.layout.height
    assert legend.orientation == "h" and legend.yref == "container"
    assert legend.y * height >= height - fig.layout.margin.t  # its top in the top margin
    assert_title_then_legend(_spec(fig), max_line=28)


def test_the_sparse_codes_bars_print_no_value_and_hover_it():
    """Eight narrow bars printed "0.00220.0025": the values are in the hover."""
    from heb.figures.lessons.hierarchy import leaf_figure
    from heb.lessons.hierarchy import hierarchy_lesson

    out = hierarchy_lesson(n_per_class=50, seed=1)
    fig, _ = leaf_figure(out["leaf_table"], out["labels"][out["leaf"]])
    assert [t.name for t in fig.data] == ["truth", "Laplace", "HEB-M", "HEB-H"]
    for bar in fig.data:
        # three significant figures: four decimals read a small estimate as 0.0000
        assert bar.text is None and "%{y:.3~g}" in bar.hovertemplate, bar.name
    truth = out["leaf_table"].drop_duplicates("class")["truth"].to_numpy()
    np.testing.assert_allclose(fig.data[0].y, truth)


def test_the_tree_draws_every_code_and_colours_the_sparse_codes_path():
    """The whole tree is drawn (with one prefix's codes alone the code ring was empty
    around most of the circle, which then drew at two thirds of its size)."""
    from heb.figures.lessons.hierarchy import tree_figure
    from heb.lessons.hierarchy import hierarchy_lesson

    out = hierarchy_lesson(n_per_class=200, seed=0)
    fig, data = tree_figure(out)
    to_prefix, to_region = out["levels"]
    n_nodes = to_region.size + int(to_region.max()) + 1  # prefixes and regions
    sunburst = fig.data[0]
    leaf = out["labels"][out["leaf"]]
    assert len(sunburst.ids) == len(data) == n_nodes + to_prefix.size
    assert list(sunburst.ids) == data["node"].tolist()
    assert leaf in sunburst.ids and sunburst.maxdepth == 3
    colours = zip(sunburst.ids, sunburst.marker.colors, strict=True)
    coloured = {node for node, colour in colours if colour != "#d9d9d9"}
    assert len(coloured) == 3 and leaf in coloured  # the path: region, prefix, code
    # every parent's value is the sum of its children's (branchvalues "total")
    values = dict(zip(sunburst.ids, sunburst.values, strict=True))
    children: dict[str, float] = {}
    for node, parent in zip(sunburst.ids, sunburst.parents, strict=True):
        if parent:
            children[parent] = children.get(parent, 0.0) + values[node]
    for parent, total in children.items():
        assert values[parent] == pytest.approx(total), parent
    assert sum(values[i] for i in sunburst.ids if i.startswith("region")) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def calibration_sweep():
    from heb.lessons.calibration import double_counting_sweep
    from heb.synthetic import sample_naive_bayes

    codes, y, _ = sample_naive_bayes(600, [4, 6, 3], n_classes=2, seed=3)
    return double_counting_sweep(codes, y, 0, max_copies=6)


def test_double_counting_draws_one_plot_with_ece_on_a_right_axis(calibration_sweep):
    """Two side-by-side plots (subplots) drew twice the axes and lines for one x."""
    from heb.figures.lessons.calibration import double_counting_figure

    fig, _ = double_counting_figure(calibration_sweep, 3)
    spec = _spec(fig)["layout"]
    assert "xaxis2" not in spec and spec["yaxis2"]["overlaying"] == "y"
    assert [t.yaxis for t in fig.data] == [None, None, "y2"]
    np.testing.assert_allclose(fig.data[2].y, calibration_sweep["ece"])
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].x0 == 3


def test_lesson_reliability_is_one_plot_with_points_sized_by_rows(calibration_sweep):
    from heb.figures.lessons.calibration import reliability_figure

    curves = {"1 copy": calibration_sweep["reliability"][1]}
    curves["4 copies"] = calibration_sweep["reliability"][4]
    fig, data = reliability_figure(curves, "Reliability")
    assert "yaxis2" not in _spec(fig)["layout"]  # the shared diagram's bars of rows: gone
    assert {t.type for t in fig.data} == {"scatter"}
    assert all(t.yaxis in (None, "y") for t in fig.data)
    one = next(t for t in fig.data if t.name.startswith("1 copy"))
    rows = np.asarray(one.customdata, dtype=float)
    sizes = np.asarray(one.marker.size, dtype=float)
    assert (np.diff(sizes[np.argsort(rows)]) >= 0).all()  # more rows, a larger point
    assert "rows" in one.hovertemplate and set(data["rows"]) >= set(rows)


def test_lesson_bars_print_no_values():
    """A value printed on each bar doubled a bar chart's drawing: they are in the hover."""
    from heb.figures.lessons.calibration import calibration_bars_figure
    from heb.figures.lessons.known_truth import true_calibration_figure

    table = pd.DataFrame(
        {
            "model": ["Laplace", "Laplace", "HEB-M", "HEB-M"],
            "calibration": ["none", "Platt", "none", "Platt"],
            "ece": [0.1, 0.05, 0.08, 0.04],
        }
    )
    summary = pd.DataFrame(
        {"label": ["Laplace", "HEB-M"], "true_ece": [0.1, 0.05], "sample_ece": [0.12, 0.06]}
    )
    bars = [*calibration_bars_figure(table, "ece")[0].data]
    bars += [t for t in true_calibration_figure(summary)[0].data if t.type == "bar"]
    assert len(bars) == 3
    for bar in bars:
        assert bar.text is None and "%{y:.4f}" in bar.hovertemplate


def test_your_k_over_n_stars_are_one_trace():
    """A star trace per smoother: four traces where one draws the same points."""
    from heb.figures.lessons.high_cardinality import theorem1_figure
    from heb.lessons.high_cardinality import theorem1_grid

    grid = theorem1_grid(0.3, reps=3, K_values=[10, 100], N_values=[50])
    chosen = theorem1_grid(0.3, reps=3, K_values=[100], N_values=[50])
    fig, _ = theorem1_figure(grid, chosen)
    stars = [t for t in fig.data if t.marker.symbol == "star"]
    assert len(stars) == 1 and len(stars[0].x) == len(chosen)
    np.testing.assert_allclose(stars[0].y, chosen["mean"])
    expected = [METHODS[label].colour for label in chosen["label"]]
    assert list(stars[0].marker.color) == expected


@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_posterior_scatter_is_svg_markers_of_a_bounded_sample(n_classes):
    """WebGL alone took about 0.45 s to start in headless Chromium: the scatter is SVG,
    at most MAX_SCATTER_POINTS markers per smoother, the same sample for each."""
    from heb.figures.lessons.known_truth import MAX_SCATTER_POINTS, posterior_scatter_figure

    rng = np.random.default_rng(1)
    truth = rng.dirichlet(np.ones(n_classes), size=5_000)
    posteriors = {"Laplace": truth * 0.9 + 0.1 / n_classes, "HEB-M": truth}
    fig, data = posterior_scatter_figure(truth, posteriors, ["Laplace", "HEB-M"])
    points = [t for t in fig.data if t.name != "perfect"]
    assert {t.type for t in fig.data} == {"scatter"}
    columns = 1 if n_classes == 2 else n_classes
    for trace in points:
        assert len(trace.x) == len(trace.y) == MAX_SCATTER_POINTS // columns * columns
        np.testing.assert_array_equal(trace.x, points[0].x)
    np.testing.assert_array_equal(data["HEB-M"], data["true"])  # the identity's points
    # a small test set is drawn whole
    few, _ = posterior_scatter_figure(truth[:50], {"HEB-M": truth[:50]}, ["HEB-M"])
    assert len(few.data[0].x) == 50 * columns
    # a one-line title: a second line took 30 px of the presenter's square plot
    assert "<br>" not in fig.layout.title.text


def test_the_message_mark_reads_the_same_when_the_labels_turn():
    """The message's words carried "▶", which read ▼ or ▲ once plotly turned the tick
    labels, beside an axis title saying "▶ = in the message"."""
    from heb.figures.lessons.zero_counts import MESSAGE_MARK, zero_counts_figure

    theta = np.array([[0.5, 0.3, 0.2], [0.1, 0.0, 0.9]])
    fig, _ = zero_counts_figure(["free", "meeting", "offer"], ["spam", "ham"], theta,
                                ["meeting"], 0.0)  # fmt: skip
    assert MESSAGE_MARK in "●○◆■"  # symmetric under a quarter turn
    marked = [x for x in fig.data[0].x if MESSAGE_MARK in x]
    assert marked == [f"<b>{MESSAGE_MARK} meeting</b>"]
    assert fig.layout.xaxis.title.text == f"{MESSAGE_MARK} = in the message"


def test_the_titles_shortened_for_a_presenter_stay_whole_on_a_phone():
    """Titles made one line for a presenter's short plots (a second line took 30 px of
    them) must still fit a 390 px phone, about 40 characters: "Exact l1 error per PMF
    (dashed: the mean)" (41) was cut there."""
    from heb.figures.lessons import calibration, evidence, known_truth, zero_counts

    sweep = {
        "copies": np.arange(1, 4),
        "log_odds_scale": np.array([1.0, 2.0, 3.0]),
        **{k: np.array([0.1, 0.2, 0.3]) for k in ("ece", "log_loss", "accuracy", "brier")},
        "mean_confidence": np.array([0.6, 0.7, 0.8]),
    }
    table = pd.DataFrame({"model": ["Laplace"], "calibration": ["none"], "ece": [0.1]})
    heldout = {
        "m": np.array([0.1, 1.0, 10.0]),
        "log_loss": np.array([1.0, 0.9, 1.1]),
        "uniform_log_loss": 1.2,
        "n_folds": 10,
        "n_rows": 20_000,
    }
    truth = np.array([[0.5, 0.5]])
    theta = np.array([[0.5, 0.5], [0.2, 0.8]])
    errors = pd.DataFrame({"label": ["Laplace", "HEB-M"], "l1": [0.1, 0.2]})
    figures = [
        calibration.double_counting_figure(sweep, 2)[0],
        calibration.calibration_bars_figure(table, "ece")[0],
        evidence.heldout_figure(heldout, {}, "HEB-M")[0],
        known_truth.posterior_scatter_figure(truth, {"HEB-M": truth}, ["HEB-M"])[0],
        known_truth.pmf_error_figure(errors)[0],
        zero_counts.zero_counts_figure(["a", "b"], ["spam", "ham"], theta, ["a"], 0.001)[0],
        zero_counts.zero_counts_figure(["a", "b"], ["spam", "ham"], theta, ["a"], 0.0)[0],
    ]
    for figure in figures:
        title = figure.layout.title.text
        assert "<br>" not in title and len(title) <= 40, title
