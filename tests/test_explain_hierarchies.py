"""Explain's HEB-H uses the hierarchies declared on the Dataset page, as Compare does: its
log-odds differ from HEB-M's, its shown code reproduces them, and its model, which the
JSON format cannot hold, is not offered for download (the engine refuses to save it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.explain import LOG_ODDS
from heb import model_io
from heb.nb import NaiveBayes
from tests.test_app import assert_clean, open_app
from tests.test_app_extras import decision_and_bars, shown_code
from tests.test_app_hierarchy import ZIP_PREFIX
from tests.test_report import run_python

QUERY = {"explain_row": "9", "explain_smoothers": "heb-m,heb-h"}


def _explain(**query: str):
    at = open_app("pages/explain.py", **QUERY, **query)
    assert_clean(at)
    table, _ = decision_and_bars(at)
    return at, table.set_index("smoother")[LOG_ODDS]


def test_heb_h_uses_the_declared_hierarchy_and_its_code_reproduces_it(tmp_path):
    _, plain = _explain()
    at, declared = _explain(hierarchies=ZIP_PREFIX)
    assert plain["HEB-H"] == pytest.approx(plain["HEB-M"])  # none declared: HEB-H is HEB-M
    assert declared["HEB-M"] == pytest.approx(plain["HEB-M"])
    assert abs(declared["HEB-H"] - declared["HEB-M"]) > 1e-6
    code = shown_code(at, "from heb.explain import")
    assert "resolve_levels" in code
    out = run_python(
        code + "\nimport json\nprint('JSON' + json.dumps([e.log_odds[0] for e in out.values()]))",
        tmp_path,
    )
    np.testing.assert_allclose(
        json.loads(out.split("JSON", 1)[1]), declared[["HEB-M", "HEB-H"]], atol=1e-9
    )


def test_heb_h_with_hierarchies_is_not_offered_as_json():
    at = open_app("pages/explain.py", **QUERY, hierarchies=ZIP_PREFIX)
    at.session_state["model_files_open"] = True
    at.session_state["explain_save"] = "heb-h"
    at.run()
    assert_clean(at)
    assert not any("fitted model" in b.proto.label for b in at.get("download_button"))
    assert any("JSON format does not hold" in i.value for i in at.info)
    at.session_state["explain_save"] = "heb-m"
    at.run()
    assert any("fitted model" in b.proto.label for b in at.get("download_button"))


def test_the_engine_refuses_to_save_a_model_with_hierarchies():
    codes = np.random.default_rng(0).integers(0, 4, (60, 2))
    y = np.arange(60) % 2
    for levels in ({0: [np.arange(4) // 2]}, {0: [[0, 0, 1, 1]]}):
        model = NaiveBayes("heb-h", hierarchies=levels).fit(codes, y)
        with pytest.raises(ValueError, match="parameter 'hierarchies' is not a number"):
            model_io.dumps(model)
