"""Every sentence of a lesson that states a number, a direction, a count or a comparison
agrees with the figure or table beside it, at the defaults and after a control moves.

A new user's trial found lesson texts the charts beside them contradicted:

- The Dirichlet prior, step 2: "on a sparse truth the bias reaches 2(K−1)/(N+K)" (0.98 at
  K = N = 50) beside a sweep and a caption reading 0.609; "K phantom counts outweigh the
  data" where they weigh exactly as much (50%).
- Calibration, step 1: "the confidence inflates: the ECE grows" on breast-cancer, whose
  mean confidence stays at 0.99 from one copy to ten; step 2 "the points fall below it"
  whatever the diagram showed; step 4 named the tab *Remedies side by side*, which the
  presenter mode (one step at a time, no tabs) does not have.
- Known truth, step 2: "More rows or the preset undo it" (the flat band of HEB-M's
  posteriors) where at the preset's 200 rows HEB-M spans 0.11 to 0.35 against the truth's
  0 to 1; "a flat band in *Posteriors*" named a tab the presenter mode lacks.
- High cardinality, step 2: a caption describing alpha_dir = 0.3 and 1 only, whatever
  alpha_dir the bars were drawn for.
- Borrowing along a hierarchy, step 4: "at the code level m reaches 8.03 (the clamp ...)"
  in the flat scenario, whose region level is the one at the clamp.
- Zero counts: "0 / 117", "40 spam and 60 ham" written by hand beside the corpus.

Each of these sentences is now computed from the numbers the page shows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from heb.lessons import calibration, dirichlet, hierarchy, high_cardinality, known_truth
from heb.lessons import zero_counts as zero
from heb.lessons.common import M_MAX, format_m
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")


def _texts(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


def _one(at, phrase: str) -> str:
    found = [text for text in _texts(at) if phrase in text]
    assert len(found) == 1, (phrase, _texts(at))
    return found[0]


# ------------------------------------------------------------------ the Dirichlet prior
@pytest.mark.parametrize(("K", "N", "truth"), [(50, 50, "sparse"), (200, 50, "flat")])
def test_the_bias_sentence_states_the_sweeps_numbers(K, N, truth):
    at = open_lesson("lesson_dirichlet")
    if (K, N, truth) != (50, 50, "sparse"):
        at.select_slider[0].set_value(K)
        at.radio[0].set_value(truth)
        at.run()
    out = dirichlet.dirichlet_lesson(K, N, truth, 1.0)
    bias = out["sweep"]["bias_l1"][out["at"]]
    text = _one(at, "The l1 bias is largest")
    assert f"for this p* it is {bias:.3f}." in text
    assert f"= {dirichlet.max_bias_l1(K, N, 1.0):.3f} at α = 1" in text
    share = dirichlet.format_share(dirichlet.prior_weight(K, N, 1.0))
    assert f"At α = 1 (Laplace) the prior adds K = {K} phantom counts" in text
    assert f"{share} of the estimate is prior." in text
    # the caption beside the sweep states the same bias
    assert f"the l1 size of the bias alone is {bias:.3f}" in _one(at, "Expected l1 error over")
    assert "reaches" not in text and "outweigh" not in text


def test_the_bias_ceiling_is_the_bias_of_a_truth_on_one_category():
    K, N, alpha = 20, 30, 0.5
    vertex = np.eye(1, K)[0]
    sweep = dirichlet.alpha_sweep(vertex, N, np.array([alpha]), reps=5)
    assert dirichlet.max_bias_l1(K, N, alpha) == pytest.approx(sweep["bias_l1"][0])
    assert dirichlet.max_bias_l1(K, N, 1.0) == pytest.approx(2 * (K - 1) / (N + K))


# ------------------------------------------------------------------ calibration
@pytest.fixture(scope="module")
def sweeps() -> dict:
    out = {}
    for name in ("synthetic", "breast-cancer"):
        data = calibration.calibration_data(name)
        feature = calibration.most_informative_feature(data["codes"], data["y"])
        out[name] = calibration.double_counting_sweep(data["codes"], data["y"], feature, 10)
    return out


def test_double_counting_text_says_what_the_sweep_shows(sweeps):
    synthetic = calibration.double_counting_text(sweeps["synthetic"], 4)
    s = sweeps["synthetic"]
    assert f"ECE {s['ece'][0]:.3f} → {s['ece'][3]:.3f}" in synthetic
    assert f"mean confidence {s['mean_confidence'][0]:.3f} → {s['mean_confidence'][3]:.3f}" in (
        synthetic
    )
    assert "the confidence inflates, **the ECE grows**" in synthetic
    # breast-cancer: the confidence is 0.99 with one copy and stays there
    b = sweeps["breast-cancer"]
    assert abs(b["mean_confidence"][3] - b["mean_confidence"][0]) < calibration.ECE_CHANGE
    cancer = calibration.double_counting_text(b, 4)
    assert "confidence inflates" not in cancer
    assert f"accuracy goes {b['accuracy'][0]:.3f} → {b['accuracy'][3]:.3f}" in cancer
    assert "nothing is counted twice" in calibration.double_counting_text(b, 1)


def test_the_calibration_page_states_its_datas_numbers(sweeps):
    at = open_lesson("lesson_calibration")
    s = sweeps["synthetic"]
    text = _one(at, "expected calibration error")
    assert f"ECE {s['ece'][0]:.3f} → {s['ece'][3]:.3f}" in text  # the metric's 4 copies
    assert "**the ECE grows**" in text
    diagram = _one(at, "reliability diagram")
    assert calibration.reliability_text(s["reliability"][4], 4) in diagram
    at.selectbox[0].set_value("breast-cancer").run()
    assert not at.exception
    text = _one(at, "expected calibration error")
    assert "confidence inflates" not in text  # 0.992 -> 0.991


def test_reliability_text_counts_the_diagrams_points():
    curve = {
        "count": np.array([0, 5, 9, 3, 0]),
        "confidence": np.array([0.0, 0.55, 0.7, 0.9, 0.0]),
        "accuracy": np.array([0.0, 0.6, 0.5, 0.8, 0.0]),
    }
    text = calibration.reliability_text(curve, 3)
    assert text.startswith("With 3 copies, 2 of the 3 occupied bins lie below the diagonal")
    assert "and 1 above it" in text


@pytest.mark.parametrize("present", [False, True])
def test_step_4_points_to_the_verdict_where_the_mode_shows_it(present):
    query = {"present": "1", "step": "4"} if present else {}
    at = open_lesson("lesson_calibration", **query)
    text = _one(at, "The paper calls smoothing and calibration")
    if present:  # one step at a time, no tabs: the verdict is over the diagram
        assert "tab" not in text and "over the diagram" in text
        assert [t for t in _texts(at) if t.startswith("**With 4 copies:**")]
    else:
        assert "*Remedies side by side*" in text


def test_the_temperatures_sentence_says_what_t_below_one_does():
    frame = pd.DataFrame({"model": ["Laplace", "HEB-M"], "temperature": [2.5, 0.9]})
    assert "T < 1 sharpens" in calibration.temperature_text(frame)
    assert "T < 1" not in calibration.temperature_text(frame.iloc[:1])


# ------------------------------------------------------------------ known truth
def test_the_blur_sentence_states_heb_ms_posteriors():
    study = known_truth.known_truth_study(n_train=200, preset="high-cardinality", n_test=10_000)
    low, high = known_truth.posterior_range(study["posteriors"]["HEB-M"])
    true_low, true_high = known_truth.posterior_range(study["true_posterior"])
    assert high - low < 0.5 * (true_high - true_low)  # the preset does not undo the blur
    text = known_truth.blur_text(study, "HEB-M", "in the figure")
    assert f"spans {low:.2f} to {high:.2f}" in text
    assert f"the truth's {true_low:.2f} to {true_high:.2f}" in text
    assert f"largest m is {format_m(study['largest_m']['HEB-M'])}" in text
    many = known_truth.known_truth_study(n_train=5000, n_categories=50, n_features=4, n_test=5000)
    assert "flat band" not in known_truth.blur_text(many)  # more rows undo it


def test_the_blur_sentence_at_a_truth_that_separates_nothing():
    """At the sliders' minimums the truth spans 0.50 to 0.50: the page said Type-II ML
    "picks a huge m, and the classes blur together" beside a largest m of 2."""
    study = known_truth.known_truth_study(
        n_train=20, n_categories=2, n_features=1, alpha_dir=0.1, n_test=10_000
    )
    true_low, true_high = known_truth.posterior_range(study["true_posterior"])
    assert true_high - true_low < known_truth.SEPARATES
    text = known_truth.blur_text(study)
    assert text.endswith("the truth itself barely tells the classes apart, so nothing blurs.")
    assert "flat band" not in text


def test_the_known_truth_page_advises_more_rows_only_where_hebm_blurs():
    """At 5,000 rows (no blur) and at a truth that separates nothing, the page still
    ended "more rows (try 5,000) undo it"."""
    hint = "more rows (try 5,000) undo it"
    assert hint in _one(open_lesson("lesson_known_truth"), "Watch HEB-M")  # defaults: a blur
    many = _one(open_lesson("lesson_known_truth", truth_rows="5000"), "Watch HEB-M")
    assert hint not in many and "no blur here." in many
    flat = open_lesson(
        "lesson_known_truth",
        truth_rows="20",
        truth_K="2",
        truth_features="1",
        truth_alpha_dir="0.1",
    )
    text = _one(flat, "Watch HEB-M")
    assert hint not in text and "nothing blurs." in text


def test_the_smallest_metric_names_every_smoother_tied_at_the_shown_decimals():
    """Three smoothers at 0.000 were shown as "Smallest mean l1 error: m-estimate" alone."""
    frame = pd.DataFrame({"label": ["A", "B", "C", "D", "E"], "x": [0.2, 0.0001, 0.0, 0.0004, 3]})
    assert known_truth.smallest(frame, "x", "Best") == ("Best: B, C and D (tied)", "0.000")
    assert known_truth.smallest(frame, "x", "Best", decimals=4) == ("Best: C", "0.0000")
    assert known_truth.smallest(frame.iloc[1:3], "x", "Best") == ("Best: B and C (tied)", "0.000")
    frame["x"] = 0.0
    assert known_truth.smallest(frame, "x", "Best") == ("Best: 5 smoothers (tied)", "0.000")


@pytest.mark.parametrize("present", [False, True])
def test_the_known_truth_page_says_the_blur_in_numbers(present):
    query = {"present": "1", "step": "2"} if present else {}
    at = open_lesson("lesson_known_truth", **query)
    text = _one(at, "Watch HEB-M")
    assert "preset undo" not in text
    if present:
        assert "a flat band in the figure." in text and "*Posteriors*" not in text
    else:
        assert "a flat band in the *Posteriors* tab." in text
    assert "spans 0.55 to 0.57" in text  # HEB-M's posteriors at the defaults


# ------------------------------------------------------------------ high cardinality
def test_the_grid_caption_states_the_bars_of_the_alpha_dir_shown():
    at = open_lesson("lesson_high_cardinality")
    at.select_slider[0].set_value(1.0)
    at.radio[0].set_value(50)
    at.run()
    reduction = high_cardinality.theorem1_reduction(high_cardinality.theorem1_grid(1.0, reps=50))
    text = _one(at, "Figure 2")
    assert high_cardinality.separation_text(reduction, 1.0) in text
    assert "at α_dir = 1, HEB-U's l1 error is on average" in text


def test_the_separation_text_averages_the_figures_bars():
    from heb.figures.lessons.high_cardinality import reduction_figure

    reduction = high_cardinality.theorem1_reduction(high_cardinality.theorem1_grid(0.3, reps=20))
    _, bars = reduction_figure(reduction)
    wide = bars["K_over_N"] >= high_cardinality.SEPARATION
    text = high_cardinality.separation_text(reduction, 0.3)
    assert f"{bars['reduction'][~wide].mean():.0%} below Laplace's for K/N < 0.1" in text
    assert f"{bars['reduction'][wide].mean():.0%} below Laplace's from K/N = 0.1 on" in text


# ------------------------------------------------------------------ hierarchy
def test_the_clamp_sentence_names_the_levels_at_the_clamp():
    flat = hierarchy.hierarchy_lesson(200, "flat")["concentrations"]
    code = flat.loc[flat["level"] == "code", "learned m"].max()
    assert code < M_MAX and flat.loc[flat["level"] == "region", "learned m"].max() >= M_MAX
    text = hierarchy.clamp_text(flat)
    assert text.startswith(f"At the code level m reaches {format_m(code)};")
    assert "reached at the region level" in text
    tree = hierarchy.clamp_text(hierarchy.hierarchy_lesson(200, "hierarchy")["concentrations"])
    assert tree.startswith(f"At the code level m reaches {format_m(M_MAX)}, the clamp")


def test_the_hierarchy_page_says_which_level_is_at_the_clamp():
    at = open_lesson("lesson_hierarchy", present="1", step="4")
    at.radio[0].set_value("flat").run()
    text = _one(at, "At the code level m reaches")
    assert "(the clamp when" not in text and "reached at the region level" in text


# ------------------------------------------------------------------ zero counts
def test_the_zero_counts_text_is_the_corpus(monkeypatch):
    corpus = zero.toy_spam()
    counts = corpus.word_counts.copy()
    counts[1, 0] += 10  # 10 more "free" in ham: 127 ham words
    changed = zero.ToySpam(corpus.vocabulary, corpus.classes, counts, np.array([30, 70]))
    monkeypatch.setattr(zero, "toy_spam", lambda: changed)
    at = open_lesson("lesson_zero_counts")
    assert "P(*unsubscribe* | ham) = 0 / 127 = 0" in _one(at, "**Zero counts.**")
    assert "**30 spam** and **70 ham**" in _one(at, "A spam filter counted")


def test_the_corpus_sentence_names_every_word_never_seen_in_a_class():
    """It named unsubscribe and agenda while the chart showed winner = 0 in ham too."""
    at = open_lesson("lesson_zero_counts")
    text = _one(at, "A spam filter counted")
    assert "Never in ham: *winner*, *unsubscribe*; never in spam: *agenda*." in text


def test_lesson_sentences_list_codes_and_counts_as_prose():
    """ "codes 2103 and 2104 and 2105" and "The e-mail repeated 1 times" (a user trial)."""
    at = open_lesson("lesson_hierarchy", hier_scenario="flat")
    notes = [c.value for c in at.caption if c.value.startswith("HEB-M gives code")]
    assert notes and " and " in notes[0]
    listed = notes[0].removeprefix("HEB-M gives codes ").split(" exactly 0")[0]
    assert listed.count(" and ") == 1 and (", " in listed) == (len(listed.split()) > 3)
    at = open_lesson("lesson_zero_counts", zero_copies="1")
    texts = [m.value for m in at.markdown]
    assert [t for t in texts if t.startswith("**The e-mail as it is (")]
    assert not [t for t in texts if "1 times" in t]


def test_a_flat_evidence_is_drawn_flat_and_claims_no_maximiser():
    """Counts 1, 0: l(m) = log(1/2) for every m. Its rounding noise was drawn as a zig-zag
    with 13-digit ticks, and the warning named "the evidence's own maximiser"."""
    from heb.figures.lessons.evidence import evidence_figure
    from heb.lessons import evidence

    curve = evidence.evidence_curve(np.array([1.0, 0.0]), np.full(2, 0.5))
    assert curve.flat and np.ptp(curve.log_evidence) > 0  # the noise is there to hide
    fig, data = evidence_figure(curve, "HEB-U", True)
    line = np.asarray(fig.data[0].y, dtype=float)
    assert np.ptp(line) == 0 and line[0] == pytest.approx(np.log(0.5))
    assert fig.layout.yaxis.tickformat == ".2f" and np.ptp(data["log_evidence"]) == 0
    at = open_lesson("lesson_evidence", evidence_source="Counts I type", evidence_counts="1, 0")
    said = " ".join(w.value for w in at.warning)
    assert "the evidence is flat here" in said and "own maximiser" not in said
    assert [m for m in at.markdown if m.value.endswith(": N = 1 row over K = 2.")]
    # a curve with a peak keeps its values and plotly's own ticks
    peaked = evidence.evidence_curve(np.array([30.0, 1.0, 0.0]), np.full(3, 1 / 3))
    fig, _ = evidence_figure(peaked, "HEB-U", True)
    assert not peaked.flat and fig.layout.yaxis.tickformat is None
    np.testing.assert_array_equal(fig.data[0].y, peaked.log_evidence)


def test_high_cardinality_shows_errors_that_give_the_shown_reduction():
    """At K = 2, N = 5000: "0.003" and "0.002" beside a 6 % reduction; and the Corollary's
    title "all 5000 draws" lost its last letter at the figure's edge."""
    from heb.figures.lessons.high_cardinality import vertex_figure

    assert high_cardinality.format_error(0.00312) == "0.00312"
    assert high_cardinality.format_error(0.25) == "0.250"
    # a 0.2 % rise read "-0%"
    shown = [high_cardinality.format_reduction(x) for x in (-0.0017, 0.00001, 0.06, 0.33)]
    assert shown == ["−0.2%", "0%", "6.0%", "33%"]
    vertex = pd.DataFrame(
        {"K_over_N": [0.1, 1.0], "laplace_l1": [0.1, 0.5], "heb_l1": [0.01, 0.05]}
    )
    fig, _ = vertex_figure(vertex.assign(N=5000))
    title = fig.layout.title.text
    assert (
        title.startswith("Corollary 1: all 5,000<br>") and max(map(len, title.split("<br>"))) <= 22
    )


def test_reliability_text_names_the_grey_hollow_points():
    """Bins of fewer than the figure's MIN_BIN_ROWS rows are grey hollow points off the
    curve: the text counted them ("2 of the 4 occupied bins lie below") unexplained."""
    curve = {
        "count": np.array([0, 5, 9, 3, 1]),
        "confidence": np.array([0.0, 0.55, 0.7, 0.9, 0.95]),
        "accuracy": np.array([0.0, 0.6, 0.5, 0.8, 1.0]),
    }
    text = calibration.reliability_text(curve, 3, min_rows=5)
    assert text.endswith(" The 2 grey hollow points are bins of fewer than 5 rows, off the curve.")
    one = calibration.reliability_text(curve, 3, min_rows=2)
    assert one.endswith(" The grey hollow point is a bin of fewer than 2 rows, off the curve.")
    assert "hollow" not in calibration.reliability_text(curve, 3, min_rows=1)
    assert "hollow" not in calibration.reliability_text(curve, 3)


def test_three_classes_have_no_log_odds_in_the_calibration_lesson():
    """known-truth has 3 classes: the lesson wrote log P(1|x)/P(0|x), an axis of
    |log-odds| and Platt "on the log-odds", while the code plots the spread of the
    log-likelihoods over the classes and calibrates each class's log-posterior."""
    from heb.figures.lessons.calibration import double_counting_figure

    at = open_lesson("lesson_calibration", calib_data="known-truth")
    formulas = " ".join(latex.value for latex in at.latex)
    assert "P(1\\mid x)" not in formulas and "\\log P(c\\mid x)" in formulas
    data = calibration.calibration_data("known-truth")
    feature = calibration.most_informative_feature(data["codes"], data["y"])
    sweep = calibration.double_counting_sweep(data["codes"], data["y"], feature, 4)
    assert sweep["n_classes"] == 3
    fig, _ = double_counting_figure(sweep, 4)
    names = [trace.name for trace in fig.data]
    assert "mean log-likelihood spread over classes (left)" in names
    assert "log-odds" not in fig.layout.yaxis.title.text
    assert fig.layout.yaxis2.tickformat == ".3~f"  # ".2f" printed a 0.015 step unevenly
    binary = calibration.double_counting_sweep(
        *(calibration.calibration_data("synthetic")[key] for key in ("codes", "y")), 0, 2
    )
    fig, _ = double_counting_figure(binary, 2)
    assert "mean |log-odds| (left)" in [trace.name for trace in fig.data]
    at = open_lesson(
        "lesson_calibration",
        calib_data="known-truth",
        calib_tab="Remedies side by side",
        present="1",
        step="3",
    )
    text = " ".join(m.value for m in at.markdown)
    assert "on each class's log-posterior $s_c$" in text and "on the log-odds s" not in text
    # Platt's input typeset: "σ(a·s_c + b)" showed its underscore on screen
    assert "σ(a·$s_c$ + b) on each class's log-posterior $s_c$" in text, text
    assert re.search(r"(?<!\$)s_c(?!\$)", text.replace("$s_c$", "")) is None, text
    at = open_lesson("lesson_calibration", present="1", step="3")
    assert "on the log-odds s" in " ".join(m.value for m in at.markdown)
