"""Small fixes of session 38's instructor trial: a target named in the wrong letter case
is told which column it missed, and the calibration lesson's formula names the copied
feature generically."""

from __future__ import annotations

import pandas as pd
import pytest

from heb.data import DataError, dataset_from_table
from heb.text import case_variant_clause as case_variants
from tests.test_presenter import open_lesson


def test_case_variants_names_the_columns_differing_in_letter_case_only():
    assert case_variants("Achat", ["a", "achat"]) == " ('achat' differs in letter case only)"
    assert case_variants("X", ["x", "X ", "x"]) == " ('x' and 'x' differ in letter case only)"
    assert case_variants("achat", ["achat", "b"]) == ""  # the name itself is no variant
    assert case_variants("Straße", ["STRASSE"]) == " ('STRASSE' differs in letter case only)"
    assert case_variants("zip", ["zipcode"]) == ""


def test_a_target_in_the_wrong_case_is_told_the_column_it_missed():
    frame = pd.DataFrame({"a": list("xyxy"), "achat": ["oui", "non"] * 2})
    with pytest.raises(DataError) as caught:
        dataset_from_table(frame, "t.csv", "Achat")
    assert str(caught.value) == (
        "There is no column named 'Achat' ('achat' differs in letter case only); the "
        "columns are 'a', 'achat'."
    )


def test_the_engine_s_target_in_the_wrong_case_is_told_the_column_it_missed(tmp_path, capsys):
    from heb.cli import main

    frame = pd.DataFrame({"a": list("xyxy") * 5, "achat": ["oui", "non"] * 10})
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    argv = ["bench", str(tmp_path / "t.parquet"), "--engine", "duckdb", "--target", "Achat"]
    assert main([*argv, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "There is no column 'Achat' to use as the target ('achat' differs in letter" in err


def test_the_calibration_lesson_names_the_copied_feature_x_j():
    """The double-counting formula wrote x_1 whatever feature was copied (on a dataset
    whose copied feature is x2, x_1 read as another feature)."""
    at = open_lesson("lesson_calibration")
    formulas = " ".join(str(element.value) for element in at.get("latex"))
    assert r"P(x_j\mid" in formulas and "x_1" not in formulas
    texts = " ".join(m.value for m in at.markdown)
    assert "Copy a feature $x_j$ k times" in texts or "feature $x_j$ k times" in texts


def test_no_dependency_found_says_which_columns_the_search_leaves_out():
    """On a table whose ID determines every other column, "No column here is a function
    of another" read as false (the instructor trial's student file); the page now says
    that ID-like children and single-valued parents are left out of the search."""
    from test_app import open_app

    from explorer.hierarchies import NO_DEPENDENCY

    at = open_app(dataset="builtin:iris", dataset_tab="Hierarchies")
    texts = [m.value for m in at.markdown]
    assert NO_DEPENDENCY in texts
    assert "fewer than 2 rows per value" in NO_DEPENDENCY and "single value" in NO_DEPENDENCY


def test_a_kept_export_browser_is_warmed_up_out_of_sight(monkeypatch):
    """The user's second export paid the kept browser's first page load (0.75 s of a
    0.9 s download, against 0.2 - 0.3 s after it): a blank figure is exported through it
    as soon as it starts, in a thread of its own, holding the export lock."""
    import kaleido
    import plotly.graph_objects as go

    from heb.figures import export

    class Server:
        running = False

        def is_running(self):
            return self.running

    server = Server()
    seen = []

    def start(**kwargs):
        server.running = True

    def to_image(fig, **kwargs):
        seen.append((len(fig.data), export._EXPORT_LOCK.locked(), kwargs["format"]))
        return b""

    monkeypatch.setattr(export, "_kept_browser", lambda: server)
    monkeypatch.setattr(kaleido, "start_sync_server", start)
    monkeypatch.setattr(go.Figure, "to_image", to_image)
    export._keep_browser().join(10)
    assert seen == [(0, True, "png")]
    assert export._keep_browser() is None  # running already: no second warm-up
    assert seen == [(0, True, "png")]
