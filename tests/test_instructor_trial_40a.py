"""An instructor's trial of the lessons, the presenter and the figure downloads (session 40a).

- The evidence lesson's exported figures (PNG / SVG for a slide) named their pair only as
  ``evidence_class=0 · evidence_feature=5`` in the footer, and the figures' titles name no
  pair: a pasted figure said nothing of which class and feature it draws. The footer now
  writes each index with what it stands for, ``evidence_class=0 (no)``; so does the
  calibration lesson's duplicated feature (``calib_feature_synthetic=1 (x2)``: the page's
  select box reads "x2").
- (The presenter on a phone and at 660 px: tests/test_browser_lessons.py.)
- The zero-counts lesson's underflow figure drew a grey vertical line at the e-mail's
  length with no word of what it was (the sentence saying so is under the figure on the
  page, not in a downloaded PNG); it is labelled with the e-mail's length.
"""

from __future__ import annotations

import pytest

from tests.test_app import open_app

pytestmark = pytest.mark.filterwarnings("ignore")


# ------------------------------------------------------------------ evidence footer
def _footers(monkeypatch) -> list[str]:
    from explorer import display, report

    footers: list[str] = []
    monkeypatch.setattr(display, "view_footer", lambda: footers.append(report.view_footer()) or "")
    return footers


def test_the_evidence_figures_footer_names_the_pairs_class_and_feature(monkeypatch):
    footers = _footers(monkeypatch)
    # iris: class 2 is virginica, feature 3 petal width (cm)
    open_app(
        "pages/lesson_evidence.py", data="builtin:iris", evidence_class="2", evidence_feature="3"
    )
    lesson = [footer for footer in footers if "lesson=evidence" in footer]
    assert lesson, footers  # (the first run draws the Dataset page's figures)
    for footer in lesson:  # the evidence curve, the smoothed PMFs, the held-out check
        assert "evidence_class=2 (virginica)" in footer, footer
        assert "evidence_feature=3 (petal width (cm))" in footer, footer
        assert "evidence_m=1000.0" in footer  # the settings after the pair still named


def test_typed_counts_name_no_pair_and_other_lessons_keep_plain_values(monkeypatch):
    footers = _footers(monkeypatch)
    open_app("pages/lesson_evidence.py", data="builtin:iris", evidence_source="Counts I type")
    lesson = [footer for footer in footers if "lesson=evidence" in footer]
    assert lesson and all("evidence_class" not in footer for footer in lesson), lesson
    assert all("(" not in footer for footer in lesson), lesson
    footers.clear()
    open_app("pages/lesson_dirichlet.py", dirichlet_K="20")
    assert "dirichlet_K=20 ·" in footers[-1] or footers[-1].endswith("dirichlet_K=20")


# ------------------------------------------------------------------ underflow figure
@pytest.mark.parametrize(
    ("copies", "side", "y"), [(1, "right", 0.45), (60, "right", 1), (200, "left", 1)]
)
def test_the_underflow_figure_names_its_grey_line_the_e_mails_length(copies, side, y):
    from heb.figures.lessons.zero_counts import underflow_figure
    from heb.lessons import zero_counts as zero

    corpus = zero.toy_spam()
    message = ["meeting", "project", "report", "unsubscribe"]  # the page's default
    curve = zero.underflow_curve(corpus, message, 0.0)
    n_words = int(curve["n_words"][copies - 1])
    assert n_words == 4 * copies
    fig, _ = underflow_figure(curve, corpus.classes, n_words)
    assert [s for s in fig.layout.shapes if s.x0 == s.x1 == n_words]  # the grey line
    [label] = [a for a in fig.layout.annotations if a.x == n_words]
    assert label.text == f"this e-mail: {n_words:,} words"
    # beside the line, where the falling spam line leaves room: to its right at the top
    # (lower down for a short e-mail, whose line starts at the top left), to its left
    # near the axis's end
    assert label.xanchor == ("left" if side == "right" else "right")
    assert label.yref == "y domain" and label.y == y
    assert fig.layout.annotations[-1].text.startswith("ham: a zero factor")  # still last
    # the float64 line's label under its line, clear of a long e-mail's label at the top
    [floor] = [a for a in fig.layout.annotations if "smallest float64" in a.text]
    assert floor.yanchor == "top"


def test_the_calibration_figures_footer_names_the_duplicated_feature(monkeypatch):
    footers = _footers(monkeypatch)
    open_app("pages/lesson_calibration.py", calib_feature_synthetic="2")
    lesson = [footer for footer in footers if "lesson=calibration" in footer]
    assert lesson, footers
    for footer in lesson:  # the page's selectbox reads "x3" for the index 2
        assert "calib_feature_synthetic=2 (x3)" in footer, footer
