"""Tests that kill the surviving mutants of session 46's changes (Explain's heb fit
command, a link's hierarchies, a left-out column's note, heb bench's code-named column,
Compare's what-if values on Explain)."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd
from test_app import assert_clean, open_app, uploader
from test_hierarchy_read_as_categories import _declare

from explorer.commands import UPLOAD_PATH
from explorer.errors import escape

HOSTILE = "my_orders*[1].csv"


def _many_roles(n: int = 25_000) -> bytes:
    """Role codes (binned whole numbers) over more rows than the app's row cap."""
    rng = np.random.default_rng(4)
    child = rng.integers(0, 600, n)
    frame = pd.DataFrame(
        {
            "role2": 118000 + child * 7,
            "role1": 117000 + (child // 50) * 13,
            "colour": rng.choice(["red", "blue", "green"], n),
            "label": np.where(rng.random(n) < 0.3 + 0.4 * (child % 2), "yes", "no"),
        }
    )
    return frame.to_csv(index=False).encode()


def test_explains_fit_command_of_an_upload_says_its_file_its_row_cap_and_what_it_leaves_out():
    """An upload of more rows than the row cap, HEB-H with a declaration the page leaves
    out (binned codes): the command names the file, the cap's --max-rows, no --hierarchy,
    in a wrapping box under its heading, and its notes as escaped captions."""
    at = open_app(dataset_tab="Hierarchies", explain_smoothers="laplace,heb-h")
    uploader(at).upload(HOSTILE, _many_roles(), "text/csv").run()
    assert_clean(at)
    _declare(at, "role2", "prefix of the label", lengths="3")
    at.switch_page("pages/explain.py")
    at.session_state["model_files_open"] = True
    at.session_state["explain_save"] = "heb-h"
    at.run()
    assert_clean(at)
    (box,) = [c for c in at.code if c.value.startswith("python -m heb fit")]
    assert box.proto.wrap_lines
    words = shlex.split(box.value.replace("\\\n", " "))
    assert words[:5] == ["python", "-m", "heb", "fit", HOSTILE]
    assert words[words.index("--max-rows") + 1] == "20000"
    assert "--hierarchy" not in words and words[-2:] == ["-o", "nb-heb-h.json"]
    assert any(m.value == "**The same model on the command line**" for m in at.markdown)
    captions = [c.value for c in at.caption]
    assert escape(UPLOAD_PATH.format(name=repr(HOSTILE))) in captions
    # heb fit refuses the declaration too: the note named heb bench under heb fit's command
    refused = (
        "role2 -> prefix 3: left out of the command as the page leaves it out ('role2' is "
        "binned, not labelled); heb fit refuses it."
    )
    assert escape(refused) in captions, captions


def test_explains_note_on_compares_values_is_escaped_markdown():
    """The note's value is the escaped text (a knob label's apostrophe, '=' and '.' are
    markdown punctuation: escape() makes them render as written)."""
    from explorer.explain import compare_values_note

    at = open_app(
        "pages/explain.py", methods="Laplace,m-estimate,HEB-M", params="m-estimate:m=20.0"
    )
    said = compare_values_note(["laplace", "m-estimate", "heb-m"], {"m-estimate": {"m": 20.0}})
    assert said and escape(said) in [c.value for c in at.caption]


def test_compare_values_note_names_only_shown_smoothers_own_values():
    from explorer.explain import compare_values_note
    from heb import registry

    # m-estimate's m = 20 on Compare, m-estimate not shown here: nothing to say
    assert compare_values_note(["laplace", "heb-m"], {"m-estimate": {"m": 20.0}}) is None
    # a fractional value as written; two methods, each with its default
    assert compare_values_note(
        ["lidstone", "m-estimate"], {"Lidstone": {"alpha": 0.5}, "m-estimate": {"m": 20.0}}
    ) == (
        "Not used here, from Compare: Lidstone's alpha = 0.5 and m-estimate's m = 20. This "
        "page fits every smoother at its default (Lidstone's alpha = 0.1 and m-estimate's "
        "m = 2)."
    )
    # a method the registry no longer has, or one without a what-if knob: nothing
    assert compare_values_note(["laplace"], {"Gone": {"alpha": 2.0}}) is None
    assert compare_values_note(["laplace"], {"Laplace": {"alpha": 2.0}}) is None
    # a method with more than a smoother (weighted): this page does not fit it at all
    lidstone = registry.method("Lidstone")
    registry.register_method(
        registry.Method(
            "Lidstone+GR",
            "nb",
            {"smoother": "lidstone", "weighting": "sqrt-mi"},
            "#000000",
            "weighted Lidstone",
            knob=lidstone.knob,
        )
    )
    try:
        said = compare_values_note(["lidstone"], {"Lidstone+GR": {"alpha": 0.5}})
    finally:
        registry.unregister("method", "Lidstone+GR")
    assert said is None
