"""What the Compare, Concentrations and Dataset pages' tables and notes say.

A new user's trial found: five separate "a reference model wins" boxes quoting 4-5 digits
beside a table at 3; HEB-M+GR on zip-codes predicting the majority class for every row
(accuracy = that class's share, best AUC) with nothing said; the Concentrations table
repeating class and feature as indices and printing m as "10000" beside "526.6"; and the
Dataset page's hierarchy form squeezed into half the page ("zip_coc"). Whether the grids
fit the window is checked in a real browser (``tests/test_browser_tables.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer import comparison as cmp
from explorer.display import WHOLE_TABLE_ROWS
from heb.evaluate import CVResult
from tests.test_app import open_app


def _result(oof: dict[str, np.ndarray], y: np.ndarray) -> CVResult:
    return CVResult(
        folds=pd.DataFrame(), oof_proba=oof, y=y, classes=np.array(["no", "yes"]), n_splits=2
    )


def test_a_method_predicting_one_class_everywhere_is_named():
    y = np.array([0, 0, 0, 1])
    constant = np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3], [0.55, 0.45]])
    varied = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.2, 0.8]])
    notes = cmp.one_class_notes(_result({"HEB-M+GR": constant, "HEB-M": varied}, y))
    (note,) = notes
    assert note.startswith("HEB-M+GR predicts one class, 'no', for every row")
    assert "(0.750)" in note  # the class's share of the rows, as the table rounds
    assert "mutual information" in note  # the +GR cause
    (plain,) = cmp.one_class_notes(_result({"HEB-M": constant}, y))
    assert "mutual information" not in plain  # no feature weights: no such cause
    assert cmp.one_class_notes(_result({"HEB-M": constant}, np.zeros(4, dtype=int))) == []


def test_compare_names_the_one_class_method_and_gives_one_reference_note():
    at = open_app(
        "pages/compare.py",
        dataset="builtin:zip-codes",
        folds="3",
        methods="HEB-M,HEB-M+GR,TargetEncoder+LR",
    )
    infos = [box.value for box in at.info]
    one_class = [text for text in infos if "predicts one class" in text]
    assert len(one_class) == 1 and one_class[0].startswith("HEB\\-M\\+GR predicts")
    references = [text for text in infos if "reference model" in text]
    assert len(references) == 1 and references[0].count("\n- ") >= 2
    assert all(len(s.split()[-1]) == 5 for s in references[0].splitlines()[2:])  # 0.xxx


def test_concentrations_table_shows_names_and_one_format_per_column():
    at = open_app("pages/concentrations.py", dataset="builtin:zip-codes")
    at.session_state["conc_tab"] = "Table"
    at.run()
    (grid,) = [d for d in at.dataframe if "m" in d.value.columns]
    proto = grid.proto
    order = list(proto.column_order)
    assert order[:2] == ["class name", "feature name"] and "class" not in order
    assert "feature" not in order and "class" in grid.value.columns  # the CSV keeps them
    config = proto.columns
    assert '"format":"%,.2f"' in config.replace(" ", "")  # m: 10,000.00 / 526.58
    assert len(grid.value) == 16 <= WHOLE_TABLE_ROWS


@pytest.mark.parametrize("rows, expected", [(WHOLE_TABLE_ROWS, "content"), (30, None)])
def test_a_short_table_is_as_tall_as_its_rows(monkeypatch, rows, expected):
    import explorer.display as display

    seen = {}
    monkeypatch.setattr(display.st, "dataframe", lambda frame, **kw: seen.update(kw))
    monkeypatch.setattr(display, "presenting", lambda: False)
    display.show_table(pd.DataFrame({"a": range(rows)}))
    assert seen.get("height") == expected
    display.show_table(pd.DataFrame({"a": range(3)}), height=320)  # a height asked for
    assert seen["height"] == 320


def _ancestors(node, wanted: str, path: tuple = ()) -> tuple | None:
    """The block types above the first ``wanted`` block under ``node``."""
    for child in getattr(node, "children", {}).values():
        kind = getattr(child, "type", None)
        if kind == wanted:
            return path
        found = _ancestors(child, wanted, (*path, kind))
        if found is not None:
            return found
    return None


def test_the_hierarchy_form_takes_the_pages_width():
    at = open_app(dataset="builtin:zip-codes")
    at.session_state["dataset_tab"] = "Hierarchies"
    at.run()
    above = _ancestors(at._tree, "form")
    assert above is not None and above[-1] == "tab"  # in the tab, not in half of it
    assert "column" not in above


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_explain_says_what_a_missing_value_does_under_the_setting(missing):
    """With missing values as their own category the chart drew "(missing)" bars while
    the caption said "A missing or unseen value adds nothing"; imputed, the bar is the
    imputed category's. The caption now follows the Dataset page's setting."""
    at = open_app("pages/explain.py", dataset="builtin:zip-codes", missing=missing)
    captions = " ".join(c.value for c in at.caption)
    assert "A missing or unseen value adds nothing" not in captions
    if missing == "category":
        assert "a category of its own, (missing), with a bar" in captions
    else:
        assert "was imputed before counting" in captions


def test_the_benchmark_table_bolds_every_rank_tied_as_shown():
    """Two average ranks of 19/6 summed in different orders differ in their last bit:
    only one of the two "3.1667" was bold (the CD diagram gave both 3.17)."""
    from explorer.benchmarking import score_table

    one = (3 + 4 + 2 + 3 + 4 + 3) / 6
    other = (4 + 3 + 3 + 2 + 3 + 4) / 6 + 4e-16
    assert one != other and round(one, 4) == round(other, 4)
    scores = pd.DataFrame(
        {"Lidstone": [0.5, 0.7], "m-estimate": [0.5, 0.7000001], "KT": [0.4, 0.6]}
    )
    ranks = pd.Series({"Lidstone": one, "m-estimate": other, "KT": 4.0})
    table, bold_best = score_table(scores, ranks, "accuracy")
    styles = bold_best(table)
    assert list(styles.loc["average rank"] != "") == [True, True, False]
    # the means too: 0.7 and 0.7000001 both show 0.7000
    assert list(styles.iloc[1] != "") == [True, True, False]
