"""An instructor's trial of Zero counts and Borrowing along a hierarchy (session 33f).

- Borrowing along a hierarchy, step 2: "a code with no row of class c still gets its
  prefix's class-c estimate times its share w of the prefix", where the tree's rule gives
  it that estimate times m w / (N_c,p + m): in the flat scenario's code level (m = 2.9
  against hundreds of rows) orders of magnitude less.
- Step 4, flat scenario: the m of every level was read as signal or its absence while
  the evidence gave the tree almost no weight (HEB-H was HEB-M); in the presenter mode,
  which leaves out the table of weights, nothing said so.
- Zero counts, step 2: "The e-mail repeated 60 times (240 words) ... P(spam) = 0.0012"
  under metrics reading P(spam | e-mail) = 0.3918 and "Words in the e-mail 2", the same
  e-mail scored once, and nothing said which was which.
"""

from __future__ import annotations

import numpy as np
import pytest

from heb.counts import CountTable, category_offsets
from heb.hierarchy import fit_nested
from heb.lessons import hierarchy
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")


def _texts(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


# ------------------------------------------------------------------ hierarchy, step 2
def test_the_borrowing_sentence_states_the_tree_rules_factor():
    at = open_lesson("lesson_hierarchy", present="1", step="2")
    [text] = [t for t in _texts(at) if t.startswith("A code with no row of class c")]
    assert "times its share w of the prefix." not in text
    assert "m_ℓ w / (N_c,p + m_ℓ)" in text
    assert any("per class and level ℓ" in t for t in _texts(at))


def test_a_code_without_rows_gets_the_stated_factor_of_its_prefix():
    """The tree's estimate of a code with no class-c row is est(prefix) m w / (N_p + m),
    recomputed by hand from the engine's learned m and base shares (flat scenario, 2000
    rows, class 1: the factor is far below w)."""
    from heb.hierarchy_nodes import HierarchyNodes, base_shares, without_root_levels
    from heb.synthetic_hierarchy import zip_levels

    out = hierarchy.hierarchy_lesson(2000, "flat")
    counts, levels = out["counts"], zip_levels(*hierarchy.SHAPE)
    table = CountTable(np.full(2, 2000.0), counts, category_offsets(np.array([counts.shape[1]])))
    fit = fit_nested(table, {0: levels}, select=None)
    nodes = HierarchyNodes.build(table, without_root_levels({0: levels}))
    share = base_shares(nodes, nodes.aggregate(counts).sum(axis=0), "learned").share
    node_counts = nodes.aggregate(counts)
    conc = out["concentrations"]
    m_code = conc.loc[(conc["class"] == 1) & (conc["level"] == "code"), "learned m"].item()
    unseen = [v for v in range(counts.shape[1]) if counts[1, v] == 0 and counts[:, v].sum() > 0]
    v = unseen[0]
    leaf, prefix = nodes.leaf[v], nodes.parent[nodes.leaf[v]]
    prefix_est = fit.theta[1, levels[0] == levels[0][v]].sum()
    factor = m_code * share[leaf] / (node_counts[1, prefix] + m_code)
    assert fit.theta[1, v] == pytest.approx(prefix_est * factor, rel=1e-9)
    assert factor < share[leaf] / 10  # "times its share w" was ten times too much


# ------------------------------------------------------------------ hierarchy, step 4
def test_the_weight_sentence_names_the_classes_the_tree_hardly_shapes():
    flat = hierarchy.hierarchy_lesson(50, "flat")["concentrations"]
    text = hierarchy.weight_text(flat)
    weights = flat.drop_duplicates("class")["tree's weight"]
    assert text.startswith("The evidence gives the tree under half the weight for both classes")
    assert " and ".join(f"{w:.3f}" for w in weights) in text
    one = hierarchy.hierarchy_lesson(200, "flat")["concentrations"]
    assert "for class 0 (0.335)" in hierarchy.weight_text(one)
    assert hierarchy.weight_text(hierarchy.hierarchy_lesson(200)["concentrations"]) == ""


def test_the_presenter_step_says_when_the_m_per_level_hardly_matter():
    at = open_lesson(
        "lesson_hierarchy", present="1", step="4", hier_scenario="flat", hier_rows="50"
    )
    [text] = [t for t in _texts(at) if "At the code level m reaches" in t]
    assert "under half the weight for both classes" in text
    assert "tree's weight" not in text  # the presenter mode draws no table of weights
    tree = open_lesson("lesson_hierarchy", present="1", step="4")
    assert not [t for t in _texts(tree) if "under half the weight" in t]


# ------------------------------------------------------------------ zero counts
def test_the_repeated_email_sentence_says_the_metrics_score_it_once():
    at = open_lesson("lesson_zero_counts", zero_copies="60")
    [text] = [t for t in _texts(at) if t.startswith("**The e-mail repeated 60 times")]
    assert "the metrics above score it once" in text
    once = open_lesson("lesson_zero_counts", zero_copies="1")
    [text] = [t for t in _texts(once) if t.startswith("**The e-mail as it is")]
    assert "for it once" not in text


def test_an_underflow_figure_with_every_class_vetoed_keeps_its_axes():
    """At alpha = 0 with agenda and unsubscribe both classes are vetoed: no line, and
    plotly's default axes (0 to 6 words, -1 to 4) hid the e-mail's length (120 words)
    and the float64 line; the note of the vetoed classes sits on a white box, which the
    length line crossed."""
    from heb.figures.lessons.zero_counts import SMALLEST_FLOAT, underflow_figure
    from heb.lessons import zero_counts as zero

    corpus = zero.toy_spam()
    curve = zero.underflow_curve(corpus, ["agenda", "unsubscribe"], 0.0)
    assert curve["vetoed"].all()
    fig, _ = underflow_figure(curve, corpus.classes, 120)
    low, high = fig.layout.xaxis.range
    assert low <= 120 <= high and high == curve["n_words"][-1]
    low, high = fig.layout.yaxis.range
    assert low < np.log10(SMALLEST_FLOAT) < high
    assert fig.layout.annotations[-1].bgcolor == "white"
    live = zero.underflow_curve(corpus, ["meeting", "unsubscribe"], 0.0)
    fig, _ = underflow_figure(live, corpus.classes, 120)
    assert fig.layout.xaxis.range is None  # a line scales the axes itself


def test_the_flat_truth_shows_no_empty_concentration_column_and_says_what_it_is():
    """The flat scenario's table had a "true concentration" column of six "None" and the
    caption spoke of "known per-level concentrations" the flat truth does not have."""
    flat = open_lesson("lesson_hierarchy", hier_scenario="flat", hier_tab="Concentration per level")
    [table] = [f.value for f in flat.dataframe]
    assert "true concentration" not in table.columns and "learned m" in table.columns
    [caption] = [t for t in _texts(flat) if t.startswith("Generator:")]
    assert "one known concentration, 20, over the codes" in caption
    tree = open_lesson("lesson_hierarchy", hier_tab="Concentration per level")
    [table] = [f.value for f in tree.dataframe]
    assert table["true concentration"].notna().all()
    assert [t for t in _texts(tree) if "known per-level concentrations" in t]


def test_the_hierarchy_lesson_cites_the_work_the_references_page_says_it_uses():
    """The References page lists MacKay and Peto (1995) as used in this lesson, which
    never named it."""
    from pathlib import Path

    references = (Path(__file__).resolve().parents[1] / "pages" / "references.py").read_text()
    assert '"Borrowing along a hierarchy (the paper\'s section 5.6.3 points to it)"' in references
    at = open_lesson("lesson_hierarchy")
    assert [t for t in _texts(at) if "MacKay and Peto (1995)" in t]


def test_the_underflow_legend_takes_two_rows_in_the_presenters_figure_column():
    """With both classes drawn (alpha > 0) the four legend names of 22 and 41 characters
    took a row each at 1280 x 720, and the plot shrank to about 110 px."""
    from explorer.presenter import PRESENTER_NARROW_WIDTH
    from heb.figures.lessons.zero_counts import underflow_figure
    from heb.figures.style import legend_rows
    from heb.lessons import zero_counts as zero

    corpus = zero.toy_spam()
    curve = zero.underflow_curve(corpus, ["meeting", "project", "report", "unsubscribe"], 1.0)
    fig, _ = underflow_figure(curve, corpus.classes, 240)
    assert len(fig.data) == 4  # both lines and both markers
    assert legend_rows(fig, PRESENTER_NARROW_WIDTH) <= 2


def test_the_unseen_code_note_does_not_credit_heb_h_s_classifier_with_it():
    """A code with no training row is absent evidence at scoring under HEB-H too (its log
    column is 0); the note set HEB-M's "the classifier leaves such a code out" against
    "HEB-H still gives them a share", as if HEB-H's classifier used them."""
    out = hierarchy.hierarchy_lesson()
    table = CountTable(np.full(2, 200.0), out["counts"], category_offsets(np.array([200])))
    fit = fit_nested(table, {0: out["levels"]})
    unseen = [out["labels"].index(code) for code in out["unseen"]]  # 1405 and 1407
    assert unseen and (fit.theta[:, unseen] > 0).all()  # an estimate...
    assert not fit.smoothed.seen[unseen].any()  # ...that scoring leaves out
    at = open_lesson("lesson_hierarchy")
    [note] = [t for t in _texts(at) if t.startswith("HEB-M gives codes 1405 and 1407")]
    assert "under either smoother, leaves such a code out" in note
