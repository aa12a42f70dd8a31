"""An instructor's trial of the lessons at 1024 x 768 in the presenter mode (session 39d).

- Borrowing along a hierarchy, step 2: the figure drew HEB-M at exactly 0 at codes 1405 and
  1407 (the default setting) with no word of why; the caption that says it is drawn outside
  the presenter mode only. The step's text now says it: those codes have no row in any
  class, so HEB-M's prior mean t̄ (the pooled marginal) is 0 there, and a classifier skips
  them (absent evidence), so the 0 vetoes no class.
"""

from __future__ import annotations

import numpy as np
import pytest

from heb.counts import CountTable, category_offsets
from heb.lessons import hierarchy
from heb.smoothing import smooth
from tests.test_presenter import open_lesson

pytestmark = pytest.mark.filterwarnings("ignore")

ZERO = "HEB-M is 0 at "


def _texts(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


# ------------------------------------------------------------------ hierarchy, step 2
def test_hierarchy_step_2_says_why_heb_m_is_exactly_0_at_the_codes_it_names():
    at = open_lesson("lesson_hierarchy", present="1", step="2")
    [text] = [t for t in _texts(at) if ZERO in t]
    out = hierarchy.hierarchy_lesson()  # the page's defaults: 200 rows, seed 0
    table = out["prefix_table"]
    zero = table.loc[table["HEB-M"] == 0, "code"].tolist()
    assert zero == ["1405", "1407"]  # what the figure draws at 0
    assert f"{ZERO}codes 1405 and 1407: no row in any class, so t̄ = 0 there" in text
    assert "a classifier skips such a code: no veto" in text
    # true by the math: no row in any class, and HEB-M's own formula
    # (N_c,v + m t̄_v) / (N_c + m) with t̄ the pooled marginal gives exactly 0 there
    counts = out["counts"]
    columns = [out["labels"].index(code) for code in zero]
    assert counts[:, columns].sum() == 0
    fit = smooth(
        CountTable(counts.sum(axis=1), counts, category_offsets(np.array([counts.shape[1]]))),
        "heb-m",
    )
    m = np.asarray(fit.concentration, dtype=float).reshape(-1)[:, None]
    t_bar = counts.sum(axis=0) / counts.sum()
    theta = (counts + m * t_bar) / (counts.sum(axis=1)[:, None] + m)
    np.testing.assert_allclose(theta, out["estimates"]["heb-m"], rtol=1e-9, atol=1e-15)
    assert (theta[:, columns] == 0).all()
    assert (theta[:, counts.sum(axis=0) > 0] > 0).all()  # and nowhere else


def test_hierarchy_step_2_counts_many_zero_codes_and_is_silent_without_one():
    many = open_lesson("lesson_hierarchy", present="1", step="2", hier_rows="50", hier_seed="3")
    assert hierarchy.hierarchy_lesson(50, seed=3)["unseen"] == [
        "3000", "3002", "3003", "3005", "3007"
    ]  # fmt: skip
    assert any(f"{ZERO}5 of these codes: no row in any class" in t for t in _texts(many))
    none = open_lesson("lesson_hierarchy", present="1", step="2", hier_rows="2000", hier_seed="1")
    assert hierarchy.hierarchy_lesson(2000, seed=1)["unseen"] == []
    assert not [t for t in _texts(none) if ZERO in t]


def test_hierarchy_outside_the_presenter_keeps_one_zero_note_the_caption():
    at = open_lesson("lesson_hierarchy")
    assert not [t for t in _texts(at) if ZERO in t]
    assert [c.value for c in at.caption if c.value.startswith("HEB-M gives codes 1405 and 1407")]
