"""Tests a mutation pass over ``--hierarchy`` (heb/cli_hierarchies.py, Declared.from_text,
the bench / fit wiring) found missing: each fails on a mutant the other tests let live, or
on a fault the pass found (a repeated column's hierarchy silently dropped, the target
column called absent)."""

from __future__ import annotations

import pandas as pd
import pytest

from heb.cli import main
from heb.cli_hierarchies import hierarchies_option
from heb.data import load_dataset
from heb.evaluate.hierarchy_specs import Declared


@pytest.fixture(scope="module")
def zip_file(tmp_path_factory):
    """The built-in zip-codes rows (target 'bought' included) as a CSV file."""
    dataset = load_dataset("builtin:zip-codes")
    frame = dataset.X.copy()
    frame[dataset.target] = dataset.y
    path = tmp_path_factory.mktemp("data") / "zip.csv"
    frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ the typed form
@pytest.mark.parametrize(
    ("text", "parents", "prefix"),
    [
        ("zip -> prefix 12 -> prefix 3", (), (12, 3)),  # lengths of more than one digit
        ("zip -> prefix\t3", (), (3,)),  # any white space between the word and the number
        ("zip -> prefix3", ("prefix3",), ()),  # describe() writes 'prefix 3': a column name
        ("zip -> prefix 3b", ("prefix 3b",), ()),  # the whole step, not its start
        ("zip -> prefix 3 x", ("prefix 3 x",), ()),
    ],
)
def test_only_a_whole_prefix_step_is_a_prefix_length(text, parents, prefix):
    declared = Declared.from_text(text)
    assert (declared.parents, declared.prefix) == (parents, prefix)


def test_the_prefix_lengths_keep_their_typed_order():
    with pytest.raises(ValueError, match="strictly decreasing"):
        Declared.from_text("zip -> prefix 1 -> prefix 3")  # not sorted into order


# ------------------------------------------------------------- hierarchies_option
def test_the_refusal_names_the_methods_as_registered():
    with pytest.raises(ValueError, match="read by HEB-H alone, not by Laplace, HEB-M;"):
        hierarchies_option(["a -> b"], ["laplace", "heb-m"])


def test_two_hierarchies_for_one_column_are_refused():
    """The canonical text keeps one declaration per column (the last): the first of two
    was dropped without a word."""
    with pytest.raises(ValueError) as refused:
        hierarchies_option(["a -> b", "c -> d", "a -> prefix 2"], ["HEB-H"])
    assert str(refused.value) == (
        "--hierarchy gives 'a' two hierarchies ('a -> b' and 'a -> prefix 2'); give one per column."
    )
    # the same declaration twice changes nothing
    assert hierarchies_option(["a -> b", "a>b"], ["HEB-H"]) == hierarchies_option(
        ["a -> b"], ["HEB-H"]
    )


def test_bench_refuses_two_hierarchies_for_one_column_before_any_work(zip_file, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["bench", str(zip_file), "--methods", "heb-h", "-o", str(out)]
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--hierarchy", "zip_code -> prefix 2", "--hierarchy", "zip_code>user_id"])
    assert stopped.value.code == 2
    assert "heb: --hierarchy gives 'zip_code' two hierarchies" in capsys.readouterr().err
    assert not out.exists()


# ------------------------------------------------------------------ the target
def test_fit_says_a_hierarchy_on_the_target_names_the_target(zip_file, tmp_path, capsys):
    """'no column 'bought' here' sent the user looking for a column the file has."""
    with pytest.raises(SystemExit):
        main(["fit", str(zip_file), "--method", "heb-h", "--hierarchy", "zip_code -> bought",
              "-o", str(tmp_path / "m.json")])  # fmt: skip
    assert (
        "heb: --hierarchy 'zip_code -> bought' cannot apply to zip: 'bought' is the target, "
        "not a feature." in capsys.readouterr().err
    )
    assert list(tmp_path.iterdir()) == []


def test_bench_says_a_hierarchy_on_one_datasets_target_is_left_out(zip_file, tmp_path, capsys):
    other = tmp_path / "other.csv"
    pd.DataFrame({"bought": list("abcab") * 20, "y": list("xy") * 50}).to_csv(other, index=False)
    argv = ["bench", str(zip_file), str(other), "--methods", "heb-h", "--folds", "3"]
    assert (
        main([*argv, "--no-figures", "--hierarchy", "bought>prefix 1", "-o", str(tmp_path / "o")])
        == 0
    )
    said = capsys.readouterr().err
    assert (
        "  zip: --hierarchy 'bought -> prefix 1' left out ('bought' is the target, not a feature)."
        in said
    )
    assert "other: --hierarchy" not in said  # a feature there
