"""A target chosen on the Dataset page that cannot be one, seen from another page."""

from __future__ import annotations

import pandas as pd

from tests.test_app import open_app, unescape, uploader


def test_another_page_says_where_the_failing_target_is_chosen():
    """Compare showed "... pick a column with fewer classes." and nothing else, though
    the column is picked only on the Dataset page."""
    frame = pd.DataFrame(
        {
            "shop": [f"s{i % 6}" for i in range(600)],
            "size": [i % 10 for i in range(600)],
            "code": [f"c{i % 300}" for i in range(600)],
        }
    )
    at = open_app()
    at = uploader(at).upload("codes.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    at.selectbox(key="upload_target").set_value("code").run()
    assert "300 different values" in unescape(at.error[0].value)
    where = "The target column is chosen on the Dataset page, under Target column."
    assert where not in [c.value for c in at.caption]  # the picker is on this page
    at.switch_page("pages/compare.py").run()
    assert "300 different values" in unescape(at.error[0].value)
    assert where in [c.value for c in at.caption]
