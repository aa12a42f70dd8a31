"""The evidence lesson names the smoother by the prior mean the user chose: a pooled
marginal that happens to be uniform (an ID column, one row per value) was called HEB-U
while the "Prior mean t" control read "pooled marginal (HEB-M)"."""

from __future__ import annotations

import numpy as np
from test_app import TIMEOUT, assert_clean, open_app, unescape, uploader

from heb.lessons import evidence

PAGE = "pages/lesson_evidence.py"


def test_the_lesson_takes_the_chosen_name_and_tells_it_from_the_prior_by_default():
    counts = np.array([1.0, 0.0, 1.0, 0.0])
    uniform = np.full(4, 0.25)
    assert evidence.evidence_lesson(counts, uniform, 10.0)["heb"] == "HEB-U"
    out = evidence.evidence_lesson(counts, uniform, 10.0, uniform * 8, heb="HEB-M")
    assert out["heb"] == "HEB-M" and out["uniform_prior"]
    assert "HEB-M" in out["pmfs"] and "HEB-U" not in out["pmfs"]
    assert "HEB-M's m" in out["marks"]


def test_an_id_column_s_pooled_marginal_is_still_heb_m_on_the_page():
    rows = [f"c{i:03d},{'yes' if i % 3 else 'no'},{'ab'[i % 2]}" for i in range(120)]
    at = open_app()
    payload = "\n".join(["customer,plan_flag,churn", *rows]).encode()
    # 'customer' is an ID: declared categorical so that each value counts on its own
    uploader(at).upload("ids.csv", payload, "text/csv").run(timeout=TIMEOUT)
    at.switch_page(PAGE).run(timeout=TIMEOUT)
    feature = at.selectbox(key="w_evidence_feature")
    shown = list(feature.options)  # "customer (K = 120)", ...
    assert shown[0].startswith("customer (K = 120)"), shown
    feature.select_index(0)
    at.run(timeout=TIMEOUT)
    assert_clean(at)
    assert at.radio(key="w_evidence_prior").value.startswith("pooled marginal")
    labels = [m.label for m in at.metric]
    assert any("HEB-M" in label for label in labels) and not any("HEB-U" in x for x in labels)
    captions = " ".join(unescape(c.value) for c in at.caption)
    assert "Here the pooled marginal is uniform" in captions
    at.radio(key="w_evidence_prior").set_value("uniform (HEB-U)").run(timeout=TIMEOUT)
    assert any("HEB-U" in m.label for m in at.metric)
    assert "Here the pooled marginal is uniform" not in " ".join(c.value for c in at.caption)
