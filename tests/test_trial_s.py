"""Trial S (a teaching assistant preparing a class on smoothing): what it found.

Each test failed before its fix.
"""

from __future__ import annotations

import re

from heb.lessons import zero_counts as zero
from tests.test_lesson_evidence_heldout import _open  # a lesson page run once, with a link


def test_the_direct_products_sentence_says_which_product_underflowed():
    """Zero counts, step 2, at α = 1 and the e-mail repeated 60 times (240 words): the figure
    marks spam's float64 product hitting 0 at about 215 words, yet the sentence read
    "Direct products: P(spam) = 0.0000, P(ham) = 1.0000", the very numbers of log-sum-exp,
    as if the direct products had worked. A product that underflowed is named as one."""
    corpus = zero.toy_spam()
    curve = zero.underflow_curve(corpus, ["meeting", "project", "report", "unsubscribe"], 1.0)
    at = 59  # 60 copies
    spam, ham = corpus.classes.index("spam"), corpus.classes.index("ham")
    assert curve["underflow"][spam, at] and not curve["underflow"][ham, at]
    text = zero.direct_summary(curve, corpus, at)
    assert "P(spam) = 0 (underflow)" in text
    assert "P(ham) = 1.0000" in text
    # before the underflow the two ways agree and the sentence gives plain numbers
    early = zero.direct_summary(curve, corpus, 0)
    assert "underflow" not in early and early.startswith("P(spam) = ")


def test_the_zero_counts_page_names_the_underflow_beside_its_figure():
    at = _open("lesson_zero_counts", zero_alpha="1.0", step="2")
    texts = [m.value for m in at.markdown]
    assert [t for t in texts if "Direct products: P(spam) = 0 (underflow)" in t]


def test_the_calibration_verdict_says_one_copy_not_one_copies():
    """Calibration, step 3 at k = 1: "**With 1 copies:** Laplace ECE ..." (step 2 said
    "With 1 copy" on the same screen)."""
    at = _open("lesson_calibration", calib_copies="1", present="1", step="3")
    texts = [m.value for m in at.markdown]
    assert [t for t in texts if t.startswith("**With 1 copy:**")]
    assert not [t for t in texts if "1 copies" in t]


def test_the_what_if_change_is_a_plain_signed_number():
    """The evidence curve at what-if m = 0.01: "changes the held-out log-loss by
    **-3.32e-05** nats per row", scientific notation on a projector, where the verdict
    beside it writes a gap as 0.00012."""
    at = _open("lesson_evidence", evidence_m="0.01")
    said = [t for t in (m.value for m in at.markdown) if "nats per row" in t and "what-if" in t]
    assert said, "the what-if sentence"
    assert not [t for t in said if re.search(r"\de[-+]\d", t)], said
    assert [t for t in said if re.search(r"\*\*[+-]0\.0\d+\*\* nats per row", t)], said


def test_the_prefix_figure_says_1_row_not_1_rows():
    """Borrowing along a hierarchy, step 2: the sparse code's tick read "1409 / 1 rows"
    (and so did every sibling with one class-0 row), on the projector under the bars."""
    from heb.figures.lessons import hierarchy as figures
    from heb.lessons.hierarchy import hierarchy_lesson

    table = hierarchy_lesson()["prefix_table"]
    ticks = list(figures.prefix_figure(table)[0].layout.xaxis.ticktext)
    rows = table["rows (class 0)"].tolist()
    assert 1 in rows and any(n != 1 for n in rows)  # both forms are drawn
    for tick, n in zip(ticks, rows, strict=True):
        assert tick.endswith(f"<br>{n} row" if n == 1 else f"<br>{n} rows"), tick


def test_the_held_out_step_refits_t_only_under_the_pooled_marginal():
    """The evidence curve under HEB-U's uniform prior mean: step 3 said HEB "refits m (and
    t)" / "(and a pooled t)", but a uniform t is never refitted (1 / K on every fold)."""
    for query in ({}, {"present": "1", "step": "3"}):
        at = _open("lesson_evidence", evidence_prior="uniform (HEB-U)", **query)
        texts = [m.value for m in at.markdown]
        said = [t for t in texts if t.startswith("The held-out curve checks the choice")]
        assert said, texts
        assert not [t for t in said if "and t)" in t or "pooled t" in t], said
        at = _open("lesson_evidence", **query)  # HEB-M's pooled marginal: t is refitted
        said = [m.value for m in at.markdown if m.value.startswith("The held-out curve")]
        assert [t for t in said if "and t)" in t or "pooled t" in t], said


def test_a_tables_csv_is_named_after_its_dataset(monkeypatch):
    """The per-fold CSV was cv-folds.csv whatever the dataset, while the report and the
    out-of-fold CSV beside it carry the dataset's name (trial S): two datasets' CSVs then
    met as cv-folds.csv and cv-folds (1).csv in a download folder."""
    from explorer import display
    from tests.test_app import assert_clean, open_app

    class Row:
        names: list[str] = []

        def download_button(self, *args, **kwargs):
            self.names.append(kwargs["file_name"])

    monkeypatch.setattr(display.st, "container", lambda **kwargs: Row())
    display.download_buttons(None, object(), "cv-folds", dataset="my churn.csv")
    display.download_buttons(None, object(), "scores-accuracy")  # several datasets: none
    assert Row.names == ["cv-folds-my-churn.csv", "scores-accuracy.csv"]
    monkeypatch.undo()

    offered = []
    real = display.download_buttons

    def spy(fig, frame, stem, *args, **kwargs):
        offered.append((stem, kwargs.get("dataset")))
        return real(fig, frame, stem, *args, **kwargs)

    monkeypatch.setattr(display, "download_buttons", spy)
    for page in ("compare", "dataset", "concentrations"):
        at = open_app(f"pages/{page}.py", dataset="builtin:iris", folds="3")
        if page == "concentrations":  # the table's tab
            at.session_state["conc_tab"] = "Table"
            assert_clean(at.run())
    named = dict(offered)
    assert named["cv-folds"] == named["features"] == named["HEB-M-concentrations"] == "iris"
