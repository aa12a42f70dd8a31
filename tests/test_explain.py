"""heb.explain: per-feature log-odds contributions add up to the model's log posterior odds."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heb import registry
from heb.explain import decisive_features, explain, explain_smoothers
from heb.nb import NaiveBayes

SMOOTHERS = list(registry.SMOOTHERS)


def toy():
    """Two features (K = 3, 2), two classes, six rows."""
    X = np.array([[0, 0], [0, 1], [1, 0], [2, 1], [2, 1], [1, 1]])
    y = np.array([0, 0, 0, 1, 1, 1])
    return X, y


def test_laplace_contributions_by_hand():
    X, y = toy()
    model = NaiveBayes("laplace").fit(X, y)
    out = explain(model, [[0, 1]], target=1, reference=0)
    # pi = (3 + 1) / (6 + 2) for both classes: prior log-odds 0
    assert out.prior == pytest.approx(0.0, abs=1e-15)
    # feature 0 = 0: class 1 has 0 of 3 rows, class 0 has 2 of 3 -> (0+1)/(3+3) vs (2+1)/(3+3)
    # feature 1 = 1: class 1 has 3 of 3, class 0 has 1 of 3 -> (3+1)/(3+2) vs (1+1)/(3+2)
    expected = [np.log(1 / 3), np.log(4 / 2)]
    np.testing.assert_allclose(out.contributions[0], expected, rtol=0, atol=1e-15)
    assert not out.absent.any()


@pytest.mark.parametrize("smoother", SMOOTHERS)
@pytest.mark.parametrize("weighting", [None, "sqrt-mi"])
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_contributions_sum_to_log_posterior_odds(smoother, weighting):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(300, 5))
    y = (X[:, 0] + rng.integers(0, 3, 300)) % 4
    model = NaiveBayes(smoother, weighting=weighting).fit(X, y)
    rows = rng.integers(-1, 8, size=(50, 5))  # missing (-1) and unseen (6, 7) codes too
    log_proba = model.predict_log_proba(rows)
    for target, reference in [(0, 1), (3, 2), (1, 3)]:
        out = explain(model, rows, target, reference)
        np.testing.assert_allclose(
            out.log_odds, log_proba[:, target] - log_proba[:, reference], rtol=0, atol=1e-12
        )
        assert np.all(out.contributions[out.absent] == 0.0)
        assert out.absent[rows < 0].all() and out.absent[rows >= 6].all()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_classes=st.integers(2, 4),
    smoother=st.sampled_from(SMOOTHERS),
)
@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_additivity_property(seed, n_classes, smoother):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(40, 3))
    y = np.arange(40) % n_classes
    model = NaiveBayes(smoother).fit(X, y)
    out = explain(model, X[:5], n_classes - 1, 0)
    joint = model.predict_joint_log_proba(X[:5])
    np.testing.assert_allclose(out.log_odds, joint[:, -1] - joint[:, 0], rtol=0, atol=1e-12)


def test_smoothers_side_by_side_and_the_decisive_feature():
    # feature 1 is rare in class 1: Laplace and a marginal-prior smoother disagree most there
    X, y = toy()
    models = {name: NaiveBayes(name).fit(X, y) for name in ("laplace", "m-estimate", "te")}
    out = explain_smoothers(models, [[0, 0]], target=1, reference=0)
    spread = decisive_features(out)
    stacked = np.stack([e.contributions[0] for e in out.values()])
    np.testing.assert_allclose(spread, stacked.max(axis=0) - stacked.min(axis=0))
    assert set(out) == set(models)
    assert spread.shape == (2,) and np.all(spread >= 0) and spread.max() > 0


def test_bad_requests_are_clear_errors():
    X, y = toy()
    model = NaiveBayes("laplace").fit(X, y)
    with pytest.raises(ValueError, match="two different classes"):
        explain(model, X[:1], 0, 0)
    with pytest.raises(ValueError, match="class index"):
        explain(model, X[:1], 5, 0)
    with pytest.raises(ValueError, match="fitted heb NaiveBayes"):
        explain(NaiveBayes(), X[:1], 1, 0)
    with pytest.raises(ValueError, match="at least one"):
        decisive_features({})


def test_the_figures_axis_title_is_two_short_lines_with_room_under_the_plot():
    """On one line the x title ran past a 535 px chart (1024 px with the sidebar open,
    "...favours the target clas"); its two lines get the margin's room."""
    from heb.figures.explain import AXIS_TITLE_LINE, contribution_figure, contribution_frame
    from heb.figures.style import style

    X, y = toy()
    models = {name: NaiveBayes(name).fit(X, y) for name in ("laplace", "te")}
    out = explain_smoothers(models, [[0, 0]], target=1, reference=0)
    frame = contribution_frame(out, ["f0", "f1"], ["0", "0"])
    fig = contribution_figure(frame, list(models), "Row 0")
    lines = fig.layout.xaxis.title.text.split("<br>")
    assert len(lines) == 2 and all(len(line) <= 30 for line in lines), lines
    plain = style(go.Figure(), "Row 0", 100).layout.margin.b  # one title line's room
    assert fig.layout.margin.b == plain + AXIS_TITLE_LINE


def test_the_figures_axis_names_the_favoured_class_escaped_and_cut():
    """The axis says which class a positive bar favours, by its (user-given) name."""
    from heb.figures.explain import contribution_figure, contribution_frame

    X, y = toy()
    models = {"laplace": NaiveBayes("laplace").fit(X, y)}
    frame = contribution_frame(explain_smoothers(models, [[0, 0]], 1, 0), ["f0", "f1"], ["0", "0"])
    axis = contribution_figure(frame, list(models), "Row 0", target_name="<b>yes</b>")
    assert axis.layout.xaxis.title.text.endswith("+ favours '&lt;b&gt;yes&lt;/b&gt;'")
    long = contribution_figure(frame, list(models), "Row 0", target_name="y" * 40)
    line = long.layout.xaxis.title.text.split("<br>")[1]
    assert line == "+ favours '" + "y" * 17 + "…'" and len(line) <= 30


def test_the_figures_axis_quotes_a_class_named_other():
    """A class named "other" read "+ favours other", as if the bars right of 0 favoured
    the other class (B), not the class named "other" (A): the name is quoted."""
    from heb.figures.explain import contribution_figure, contribution_frame

    X, y = toy()
    models = {"laplace": NaiveBayes("laplace").fit(X, y)}
    frame = contribution_frame(explain_smoothers(models, [[0, 0]], 1, 0), ["f0", "f1"], ["0", "0"])
    axis = contribution_figure(frame, list(models), "Row 0", target_name="other")
    assert axis.layout.xaxis.title.text.endswith("+ favours 'other'")
    plain = contribution_figure(frame, list(models), "Row 0")
    assert plain.layout.xaxis.title.text.endswith("+ favours the target class")


def test_a_zoned_time_bin_keeps_its_zone_beside_a_short_feature_name():
    """A parquet file's zoned time stamps are binned in UTC and labelled so
    ("[2024-10-17 15:47:33, 2024-11-24 05:35:03) UTC"); beside "event_time" the bar label
    gave each side 30 characters and cut the bin to "[2024-10-17 15:47:33, 2024-11...",
    losing its end and the zone. A short name leaves its room to the value."""
    import pandas as pd

    from heb.data import Preprocessor
    from heb.figures.explain import MAX_BAR_LABEL, contribution_figure, contribution_frame

    start = pd.Timestamp("2024-01-01", tz="Europe/Berlin")
    stamps = start + pd.to_timedelta(np.arange(200) * 157_000, "s")
    prep = Preprocessor(n_bins=10).fit(pd.DataFrame({"event_time": stamps, "b": ["x"] * 200}))
    label = prep.categories_[0][5]  # a middle bin: two time stamps
    assert label.endswith(") UTC") and len(label) > MAX_BAR_LABEL // 2
    X, y = toy()
    models = {"laplace": NaiveBayes("laplace").fit(X, y)}
    frame = contribution_frame(
        explain_smoothers(models, [[0, 0]], 1, 0), ["event_time", "b"], [label, "x"]
    )
    labels = list(contribution_figure(frame, list(models), "Row 0").data[0].y)
    assert f"event_time = {label}" in labels, labels
    both = contribution_frame(
        explain_smoothers(models, [[0, 0]], 1, 0), ["n" * 70, "b"], ["v" * 70, "x"]
    )
    cut = list(contribution_figure(both, list(models), "Row 0").data[0].y)
    assert "n" * 29 + "… = " + "v" * 29 + "…" in cut  # both long: half each, as before


def test_the_decision_table_keeps_the_classes_in_their_order():
    """P(no) | P(yes) on one row, P(yes) | P(no) on the next: the columns followed the
    automatic target; they now keep the classes' order, whichever is the target."""
    from explorer.explain import decision_table

    X, y = toy()
    models = {name: NaiveBayes(name).fit(X, y) for name in ("laplace", "te")}
    names = ["no", "yes"]
    for target, reference in ((1, 0), (0, 1)):
        out = explain_smoothers(models, [[0, 0]], target=target, reference=reference)
        table = decision_table(out, names, true_class=0)
        assert [c for c in table.columns if c.startswith("P(")] == [
            "P(predicted)",
            "P(no)",
            "P(yes)",
        ]
        np.testing.assert_allclose(table["P(no)"] + table["P(yes)"], 1.0)
