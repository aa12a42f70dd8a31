"""The hierarchy section's one click that reads binned columns as categories.

A hierarchy over whole-number codes (the amazon file's role codes) said "'role2' is
binned, not labelled; left out. Add it to Categorical columns above", and the user had
to scroll up, find the multiselect and type the name; the section now offers the button.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_app import assert_clean, open_app, uploader

from explorer.errors import escape


def _roles() -> bytes:
    rng = np.random.default_rng(4)
    child = rng.integers(0, 60, 600)
    return (
        pd.DataFrame(
            {
                "role2": 118000 + child * 7,
                "role1": 117000 + (child // 5) * 13,
                "amount": rng.normal(size=600).round(2),
                "label": rng.choice(["no", "yes"], 600),
            }
        )
        .to_csv(index=False)
        .encode()
    )


def _declare(at, feature: str, kind: str, parent: str = "", lengths: str = "3"):
    at.selectbox(key="hier_feature").set_value(feature)
    at.radio(key="hier_kind").set_value(kind)
    if parent:
        at.selectbox(key="hier_parent").set_value(parent)
    at.text_input(key="hier_L").set_value(lengths)
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    return at


def _read_button(at):
    return [b for b in at.button if b.key == "hier_read_categories"]


def test_one_click_reads_a_chain_and_a_prefix_over_binned_codes_as_categories():
    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("roles.csv", _roles(), "text/csv")
    at.run()
    _declare(at, "role2", "parent column", parent="role1")
    assert [b.label for b in _read_button(at)] == [
        f"Read {escape('role2')}, {escape('role1')} as categories"
    ]
    _declare(at, "role1", "prefix of the label", lengths="3")
    (button,) = _read_button(at)  # each column once, in the declarations' (sorted) order
    assert button.label == f"Read {escape('role1')}, {escape('role2')} as categories"
    button.click().run()
    assert_clean(at)
    spec = at.session_state["data_spec"]
    assert at.session_state["uploads"][spec]["categorical"] == ["role1", "role2"]
    assert not [c.value for c in at.caption if "binned" in c.value]  # the notes are gone
    assert not _read_button(at)
    summary = next(d.value for d in at.dataframe if "hierarchy" in d.value.columns)
    chain = summary.loc[summary["hierarchy"] == "role2 -> role1", "nodes per level (leaves first)"]
    assert chain.iloc[0] == "60 -> 12"  # values, not bins


def test_a_named_dataset_has_no_button_nor_does_a_labelled_hierarchy():
    at = open_app(
        dataset_tab="Hierarchies",
        hierarchies='[{"feature":"mean radius","prefix":[2]}]',
        dataset="builtin:breast-cancer",
    )
    assert any("is binned" in c.value for c in at.caption)
    assert not _read_button(at)  # no Categorical columns to add it to
    labelled = open_app(
        dataset_tab="Hierarchies", hierarchies='[{"feature":"zip_code","prefix":[2]}]'
    )
    assert not _read_button(labelled)


def test_a_name_with_a_comma_is_quoted_so_it_reads_as_one_column():
    from explorer.hierarchies import read_as_categories_label

    assert read_as_categories_label(["role2", "role1"]) == (
        f"Read {escape('role2')}, {escape('role1')} as categories"
    )
    assert read_as_categories_label(["x,y", "z"]) == (
        f"Read “{escape('x,y')}”, “{escape('z')}” as categories"
    )
    assert read_as_categories_label(["x,y"]) == f"Read “{escape('x,y')}” as categories"
