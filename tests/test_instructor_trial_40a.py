"""An instructor's trial of the lessons, the presenter and the figure downloads (session 40a).

- The evidence lesson's exported figures (PNG / SVG for a slide) named their pair only as
  ``evidence_class=0 · evidence_feature=5`` in the footer, and the figures' titles name no
  pair: a pasted figure said nothing of which class and feature it draws. The footer now
  writes each index with what it stands for, ``evidence_class=0 (no)``.
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
