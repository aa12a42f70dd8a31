"""What the Compare, Concentrations and Dataset tables show, checked where a mutation of
the code survived ``tests/test_table_views.py``.

A mutation run over the table commits left these alive: the Concentrations grid showing
the AODE table's ``child`` index beside its name, losing a plain index column where no
name says the same, printing m as ``%.4g`` again (the old check found ``%,.2f`` in the log
evidence's format), unpinning its class and feature columns, swapping their headers or
dropping the thousands separators; the evidence button back in a narrow column; the
features table's long headers back; the Compare note counting a tie as shown as a win
(the old tie lost either way), saying "one metric" for two, and naming the wrong class
or share for a method predicting one class everywhere.

The page functions are run on their own (the page files run the page when imported): their
definitions are read from the page source and run beside the page's imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from explorer import comparison as cmp
from heb.evaluate import CVResult
from tests.test_app import open_app

ROOT = Path(__file__).resolve().parents[1]


def _page_definitions(page: str, names: set[str]) -> dict:
    """The page's imports and its top-level definitions named ``names``, run without the
    page itself (``ensure_entry_point()`` and the widgets below it)."""
    tree = ast.parse((ROOT / page).read_text(), filename=page)
    kept, found = [], set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            kept.append(node)
        elif isinstance(node, ast.FunctionDef) and node.name in names:
            kept.append(node)
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined = {t.id for t in targets if isinstance(t, ast.Name)} & names
            if defined:
                kept.append(node)
                found |= defined
    assert found == names, f"{page} no longer defines {names - found}"
    namespace: dict = {"__name__": f"page_{Path(page).stem}"}
    exec(compile(ast.Module(body=kept, type_ignores=[]), page, "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture
def grid_kwargs(monkeypatch):
    """The keyword arguments of every ``st.dataframe`` call of :func:`show_table`."""
    import explorer.display as display

    calls: list[dict] = []
    monkeypatch.setattr(display.st, "dataframe", lambda frame, **kw: calls.append(kw))
    monkeypatch.setattr(display, "presenting", lambda: False)
    return calls


def _concentrations_table(grid_kwargs, frame: pd.DataFrame) -> dict:
    page = _page_definitions("pages/concentrations.py", {"INDEX_COLUMNS", "table"})
    page["download_buttons"] = lambda *args, **kwargs: None
    page["table"](frame, "test")
    return grid_kwargs[-1]


def _pairs(**extra) -> pd.DataFrame:
    """A pair table as :func:`explorer.concentrations.pair_frame` makes it."""
    base = {
        "class name": ["no", "yes"],
        "class": [0, 1],
        "m": [10_000.0, 526.58],
        "rho": [0.9, 0.1],
        "N_c": [12_000, 3_000],
        "K_f": [1_200, 1_200],
        "iterations": [4, 5],
        "converged": [True, True],
        "log_evidence": [-12_345.6, -789.0],
        "fallback": [False, False],
    }
    return pd.DataFrame({**base, **extra})


def test_the_aode_table_leaves_out_every_index_its_names_repeat(grid_kwargs):
    """HEB-AODE's (class, parent, child) table: three names, no index beside them."""
    frame = _pairs(
        **{"parent name": ["zip", "city"], "child name": ["city", "zip"], "parent": [0, 1]},
        child=[1, 0],
    )
    order = list(_concentrations_table(grid_kwargs, frame)["column_order"])
    assert {"class name", "parent name", "child name", "m"} <= set(order)
    assert not {"class", "parent", "child"} & set(order), order


def test_an_index_without_its_name_column_stays_in_the_table(grid_kwargs):
    """Only an index a name column repeats goes: without ``parent name`` the parent's index
    is the only place the table says the parent."""
    frame = _pairs(**{"feature name": ["zip", "zip"], "feature": [0, 0]}, parent=[1, 2])
    order = list(_concentrations_table(grid_kwargs, frame)["column_order"])
    assert "parent" in order and "feature" not in order and "class" not in order


def test_the_concentrations_columns_formats_headers_and_pins(grid_kwargs):
    """m and log evidence at two decimals with thousands separators (10,000.00, not 10000
    beside 526.6), counts with separators, names under short headers, the pair pinned."""
    frame = _pairs(**{"feature name": ["zip", "zip"], "feature": [0, 0]})
    config = _concentrations_table(grid_kwargs, frame)["column_config"]
    assert config["m"]["type_config"]["format"] == "%,.2f"
    assert config["log_evidence"]["type_config"]["format"] == "%,.2f"
    assert config["N_c"]["type_config"]["format"] == "%,d"
    assert config["K_f"]["type_config"]["format"] == "%,d"
    labels = {name: config[f"{name} name"]["label"] for name in ("class", "feature")}
    labels |= {name: config[f"{name} name"]["label"] for name in ("parent", "child", "level")}
    assert labels == {n: n for n in ("class", "feature", "parent", "child", "level")}
    assert config["class name"].get("pinned") and config["feature name"].get("pinned")


def _ancestor_types(node, wanted, path: tuple = ()) -> tuple | None:
    """The block types above the first element under ``node`` for which ``wanted`` holds."""
    for child in getattr(node, "children", {}).values():
        if wanted(child):
            return path
        found = _ancestor_types(child, wanted, (*path, getattr(child, "type", None)))
        if found is not None:
            return found
    return None


def test_the_evidence_button_sits_under_its_pickers_not_in_a_column():
    """In a third column at 1024 px the button read 'Open its eviden...'."""
    at = open_app("pages/concentrations.py")
    above = _ancestor_types(at._tree, lambda node: getattr(node, "key", None) == "open_evidence")
    assert above is not None, "no evidence button"
    assert "column" not in above, above
    picker = _ancestor_types(at._tree, lambda node: getattr(node, "key", None) == "pair_feature")
    assert picker is not None and "column" in picker  # the pickers side by side


def test_the_features_table_headers_stay_short(grid_kwargs):
    """With the sidebar open at 1280 px the long headers pushed "MI above chance" off the
    right edge: every other header is short, its meaning in its help."""
    from explorer import summaries

    page = _page_definitions("pages/dataset.py", {"FEATURE_COLUMN_MAX_PX", "show_features"})
    frame = pd.DataFrame(
        {
            "feature": ["zip_code", "city"],
            "type": ["categorical", "categorical"],
            "K_f": [1_200, 30],
            "missing share": [0.0, 0.1],
            "MI with target (nats)": [0.2, 0.05],
            summaries.MI_CHANCE: [0.1, 0.01],
            summaries.MI_ABOVE: [0.1, 0.04],
        }
    )
    page["show_features"](frame, 0.6, "zip-codes")
    config = grid_kwargs[-1]["column_config"]
    for column in frame.columns.drop(summaries.MI_ABOVE):
        header = config[column].get("label") or column
        assert len(header) <= 10, (column, header)
    for column in ("K_f", "missing share", "MI with target (nats)", summaries.MI_CHANCE):
        assert config[column].get("help"), column  # the long name lives on as help
    assert config["type"].get("width") == 90 and config["missing share"].get("width") == 100
    # Streamlit's percent format shows the step's decimals less two: without a step the
    # column read "0%" beside "10.05%"; every share now shows two decimals
    assert config["missing share"]["type_config"]["step"] == 0.0001
    # fixed widths that fit the main column at 1280 px with the sidebar open, whatever the
    # names (a 27-character name pushed "MI above chance" off the edge)
    page["show_features"](frame.assign(feature=["<b>a_rather_long_column_name</b>"] * 2), 0.6, "z")
    config = grid_kwargs[-1]["column_config"]
    widths = [config[column].get("width") for column in frame.columns]
    assert all(isinstance(w, int) for w in widths) and sum(widths) <= 790, widths
    assert config["K_f"]["type_config"]["format"] == "%,d"  # 1,200 categories


def test_a_tie_as_the_table_shows_it_is_no_win():
    """Brier 0.0876 against 0.0878 is a reference win unrounded, a tie at 3 decimals (both
    0.088 in the table): no line at 3, one at 4. Two wins say "2 metrics"."""
    from explorer.references import compare_note

    summary = pd.DataFrame(
        {
            "method": ["HEB-M", "TargetEncoder+LR"],
            "brier_mean": [0.0878, 0.0876],
            "accuracy_mean": [0.80, 0.85],
        }
    )
    note = compare_note(summary, 3)
    assert note is not None and "Brier" not in note and "on one metric" in note
    two = compare_note(summary, 4)
    assert two is not None and "on 2 metrics" in two and "0.0876" in two


def _result(oof: dict[str, np.ndarray], y: np.ndarray) -> CVResult:
    return CVResult(
        folds=pd.DataFrame(), oof_proba=oof, y=y, classes=np.array(["no", "yes"]), n_splits=2
    )


def test_the_one_class_note_names_the_class_predicted_and_its_share():
    """A method predicting the second class everywhere: that class and its share (0.600),
    not the first class's (0.400)."""
    y = np.array([0, 0, 1, 1, 1])
    constant = np.tile([0.3, 0.7], (5, 1))
    (note,) = cmp.one_class_notes(_result({"HEB-M": constant}, y))
    assert note.startswith("HEB-M predicts one class, 'yes', for every row")
    assert "(0.600)" in note
