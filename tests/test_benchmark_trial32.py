"""The Benchmark page after trial 32: an upload without a usable target neither chosen nor
fatal, notes when too few datasets can make a test significant, a link's left-out upload,
ties the score table shows but the ranks do not, the CD diagram's type when presenting."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_app import assert_clean, open_app, uploader  # the app suite's helpers

#: a hostile file name: markdown in it must show as text
NO_TARGET_FILE = "no_target[x](y).csv"


def _no_target_csv(rows: int = 500) -> bytes:
    """The trial's file: grade (25 whole numbers), color (26 letters), price (decimals,
    the last column): no column reads as classes, the Dataset page asks for a target."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "grade": rng.integers(0, 25, rows),
            "color": rng.choice(list("abcdefghijklmnopqrstuvwxyz"), rows),
            "price": rng.uniform(1, 100, rows).round(3),
        }
    )
    return frame.to_csv(index=False).encode()


def test_an_upload_without_a_target_is_offered_not_chosen_and_skipped_in_a_run():
    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload(NO_TARGET_FILE, _no_target_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    assert at.session_state["uploads"][spec]["needs_target"]
    at.switch_page("pages/benchmark.py").run()
    assert_clean(at)
    picker = at.multiselect(key="w_bench_datasets")
    assert spec not in picker.value and len(picker.value) >= 2  # not pre-selected
    assert f"{NO_TARGET_FILE} (upload, no target yet)" in picker.options  # but offered
    picker.set_value([spec, "builtin:iris", "builtin:wine"]).run()
    assert any("no target yet" in c.value and "a run skips it" in c.value for c in at.caption)
    at.button(key="bench_run").click().run()
    assert_clean(at)  # no error box: the other datasets ran
    tables = [t.value for t in at.dataframe if "average rank" in t.value.index]
    assert tables and set(tables[0].index) == {"iris", "wine", "average rank"}
    skipped = [w.value for w in at.warning if w.value.startswith("Skipped")]
    assert len(skipped) == 1, skipped
    assert skipped[0].startswith("Skipped no\\_target\\[x\\]\\(y\\)\\.csv \\(upload\\, no target")
    assert "price" in skipped[0] and "\n" not in skipped[0]
    assert [s.label for s in at.status] == [at.status[0].label]
    assert at.status[0].label.endswith("(1 skipped)")


def test_a_run_with_fewer_than_two_loadable_datasets_fails_in_its_progress_box():
    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload(NO_TARGET_FILE, _no_target_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="w_bench_datasets").set_value([spec, "builtin:iris"]).run()
    at.button(key="bench_run").click().run()
    assert at.status and at.status[0].label == "Benchmark failed"
    assert any("Only 1 of the 2 datasets loaded" in e.value for e in at.error)
