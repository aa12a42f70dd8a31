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


def test_a_comma_past_the_labels_cut_still_quotes_every_name():
    """The comma is looked for in the names, not in their cut labels: a long name's comma
    past the cut still quotes each name."""
    from explorer.hierarchies import read_as_categories_label

    long = "x" * 45 + ",y"
    assert read_as_categories_label([long, "z"]) == (
        f"Read “{escape(long, limit=40)}”, “{escape('z')}” as categories"
    )


def test_bench_names_only_a_binned_code_named_column_of_more_than_100_numbers(tmp_path, capsys):
    """heb bench's line on a code-named column: the column's own count of values and the
    run's --n-bins; not a column of exactly 100 values or fewer, not one whose name does
    not say code, not a text column, not an amount written with thousands separators."""
    from heb.cli import main

    rng = np.random.default_rng(1)
    n = 1_500
    frame = pd.DataFrame(
        {
            "sku": rng.choice(np.arange(10_000, 10_150), n),  # 150 values: said
            "zip_code": np.resize(np.arange(20_000, 20_100), n),  # exactly 100: not said
            "item_code": rng.integers(300, 330, n),  # 30 values
            "price": rng.integers(1_000, 3_000, n),  # not named like a code
            "promo_code": [f"P{v}" for v in rng.integers(0, 150, n)],  # text: categories
            "part_code": [f"{v:,}" for v in rng.integers(1_000_000, 1_000_300, n)],  # amounts
            "returned": rng.choice(["yes", "no"], n),
        }
    )
    path = tmp_path / "orders.csv"
    frame.to_csv(path, index=False)
    words = ["--methods", "Laplace", "--folds", "3", "--n-bins", "5", "--no-cache"]
    assert main(["bench", str(path), *words, "-o", str(tmp_path / "out")]) == 0
    said = capsys.readouterr()
    lines = [line.strip() for line in (said.out + said.err).splitlines()]
    premise = "orders: Column 'part_code' holds numbers written with thousands separators"
    assert any(line.startswith(premise) for line in lines)  # an amount, binned as a number
    coded = [line for line in lines if "named like a code" in line]
    assert coded == [
        "orders: 'sku' (150 different whole numbers) is named like a code but binned as a "
        "number, 5 quantile bins."
    ]
    assert "orders: pass --categorical sku to read it as categories." in lines


def test_a_link_without_hierarchies_says_none_were_taken():
    """The upload's note names the declared hierarchies only when the link had some."""
    from test_app import unescape
    from test_upload_columns import csv, customers, link_of, upload_customers

    first = upload_customers()
    first.selectbox(key="upload_target").set_value("colour").run()
    link = link_of(first)
    assert "hierarchies" not in link
    second = open_app(**link)
    uploader(second).upload("customers.csv", csv(customers()), "text/csv").run()
    assert_clean(second)
    taken = [unescape(c.value) for c in second.caption if "From the link" in c.value]
    assert taken == ["From the link: the target 'colour'."], taken


def test_a_note_on_several_columns_stays_when_one_of_them_is_left_out():
    """Two date columns share one note ("Column 'ordered' (and 1 more column) holds
    dates"): leaving out 'ordered' leaves 'shipped', which the note is still about, said
    of 'shipped' alone (tests/test_kept_notes.py)."""
    from heb.data import load_upload

    rng = np.random.default_rng(0)
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 200, 200), unit="D")
    frame = pd.DataFrame(
        {
            "ordered": days.strftime("%Y-%m-%d"),
            "shipped": (days + pd.Timedelta("2D")).strftime("%Y-%m-%d"),
            "channel": rng.choice(["web", "app"], 200),
            "returned": rng.choice(["yes", "no"], 200),
        }
    )
    data = frame.to_csv(index=False).encode()
    shared = "Column 'ordered' (and 1 more column) holds dates"
    assert any(note.startswith(shared) for note in load_upload(data, "o.csv").notes)
    dropped = load_upload(data, "o.csv", drop=["ordered"]).notes
    assert any(note.startswith("Column 'shipped' holds dates") for note in dropped), dropped


def test_bench_says_a_code_named_column_whose_values_tell_the_target_once(tmp_path, capsys):
    """A zip code whose values tell the target more than its bins has its line on that
    signal, not also the code-named line."""
    from heb.cli import main

    rng = np.random.default_rng(2)
    n = 1_500
    zips = rng.choice(np.arange(20_000, 20_600), n)
    frame = pd.DataFrame(
        {
            "zip_code": zips,
            "channel": rng.choice(["web", "app"], n),
            "returned": np.where(zips % 2 == 0, "yes", "no"),
        }
    )
    path = tmp_path / "orders.csv"
    frame.to_csv(path, index=False)
    words = ["--methods", "Laplace", "--folds", "3", "--no-cache"]
    assert main(["bench", str(path), *words, "-o", str(tmp_path / "out")]) == 0
    said = capsys.readouterr()
    lines = [line.strip() for line in (said.out + said.err).splitlines()]
    about = [line for line in lines if line.startswith("orders: 'zip_code' (")]
    assert len(about) == 1 and "tells the target" in about[0], about
    assert "orders: pass --categorical zip_code to read it as categories." in lines
