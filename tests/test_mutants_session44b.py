"""Tests a second mutation pass over session 44's hierarchy notes found missing (the
mistyped-prefix rule, flat_levels' three wordings, the binned-chain and no-groups notes of
``heb bench`` / ``heb fit`` and the Dataset page, ``heb fit --max-rows`` with a hierarchy):
each fails on a mutant the earlier tests let live."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import Preprocessor, load_dataset, pipeline_io
from heb.evaluate.hierarchy_specs import Declared, flat_levels


# ------------------------------------------------------------- the mistyped prefix
@pytest.mark.parametrize(
    "text",
    [
        "zip -> Prefix two",  # the word in any case, as 'Prefix 2' reads as prefix 2
        "zip -> prefix-2",  # a dash, colon or equals sign where a space belongs
        "zip -> prefix:2",
        "zip -> prefix=2",
        "zip -> prefix 3 -> prefix two",  # any step, not only the first
    ],
)
def test_every_step_starting_as_a_prefix_length_is_checked(text):
    with pytest.raises(ValueError, match="is no prefix length"):
        Declared.from_text(text)


def test_a_column_with_prefix_inside_its_name_is_a_parent_column():
    """Only a step that starts with the word is a prefix length, mistyped or not."""
    declared = Declared.from_text("zip -> zip prefix 2")
    assert declared.parents == ("zip prefix 2",)


# ------------------------------------------------------------------- flat_levels
def test_flat_levels_says_each_way_a_hierarchy_makes_no_groups():
    own = np.arange(5)  # five nodes, each its own parent
    one = np.zeros(5, dtype=int)  # five nodes, one parent
    assert flat_levels([own]) == "each value is a group of its own"
    assert flat_levels([one]) == "every value falls in one group"
    assert flat_levels([own, one]) == "its groups are single values or all of them"
    assert flat_levels([np.array([0, 0, 1, 1, 2])]) is None  # groups of two
    assert flat_levels([own, np.array([0, 0, 1, 1, 1])]) is None  # a level of groups
    assert flat_levels([]) is None


# ------------------------------------------------------ notes of bench and fit
def _fitted(frame: pd.DataFrame) -> Preprocessor:
    return Preprocessor(n_bins=5).fit(frame)


def test_a_binned_note_names_one_column_as_it_and_quotes_names_for_a_shell():
    from heb.cli_hierarchies import binned_notes

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"role code": rng.normal(size=200), "dept": rng.choice(list("abc"), 200)})
    chain = '[{"feature":"role code","parents":["dept"]}]'
    lines = binned_notes(chain, _fitted(frame), "roles", True)
    assert lines == [
        "  roles: --hierarchy 'role code -> dept' groups the bins of 'role code', not their "
        "values (pass --categorical 'role code' to read it as categories)."
    ]


def test_bench_on_a_named_dataset_gives_no_categorical_hint_for_a_binned_chain(tmp_path, capsys):
    """--categorical changes nothing for builtin: data; bench's note offered it for a file
    alone only as long as is_file_data was asked."""
    chain = "petal length (cm) -> petal width (cm)"
    argv = ["bench", "builtin:iris", "--methods", "heb-h", "--folds", "2", "--no-figures"]
    assert main([*argv, "--hierarchy", chain, "-o", str(tmp_path / "o")]) == 0
    said = capsys.readouterr()
    text = said.out + said.err
    assert "groups the bins of 'petal length (cm)' and 'petal width (cm)', not their values." in (
        text
    )
    assert "pass --categorical" not in text


def test_fit_says_a_hierarchy_that_makes_no_groups(zip_file, tmp_path, capsys):
    argv = ["fit", str(zip_file), "--method", "heb-h", "--hierarchy", "zip_code -> prefix 9"]
    assert main([*argv, "-o", str(tmp_path / "m.json")]) == 0
    assert (
        "  zip: --hierarchy 'zip_code -> prefix 9' makes no groups (each value is a group of "
        "its own), so HEB-H is HEB-M on 'zip_code'.\n"
    ) in capsys.readouterr().err


def test_fit_max_rows_builds_the_hierarchy_on_the_subsample(zip_file, tmp_path, capsys):
    """--max-rows with --hierarchy: the levels are those of the subsample's codes, the
    model the one a file of just those rows gives (levels of every row's codes would not
    match the fitted encoding)."""
    from heb.evaluate.folds import evaluated_data

    argv = ["fit", str(zip_file), "--method", "heb-h", "--hierarchy", "zip_code -> prefix 2"]
    assert main([*argv, "--max-rows", "600", "-o", str(tmp_path / "capped.json")]) == 0
    dataset = load_dataset(str(zip_file))
    X, y = evaluated_data(dataset, 600)[:2]
    rows = tmp_path / "zip.csv"  # the same stem: the same dataset name
    X.assign(**{dataset.target: y}).to_csv(rows, index=False)
    argv[1] = str(rows)
    assert main([*argv, "-o", str(tmp_path / "rows.json")]) == 0
    capped = pipeline_io.load(tmp_path / "capped.json")
    alone = pipeline_io.load(tmp_path / "rows.json")
    np.testing.assert_allclose(
        capped.predict_proba(dataset.X), alone.predict_proba(dataset.X), rtol=1e-12
    )


# ------------------------------------------------------------- the Dataset page
@pytest.fixture(scope="module")
def iris_work():
    from test_explain_pipeline_app import page_work

    return page_work("builtin:iris")[1]


def test_a_binned_chain_note_offers_categorical_columns_for_an_upload_alone(iris_work):
    from explorer.hierarchies import BINNED_CHAIN, READ_AS_CATEGORIES, binned_chain_notes

    one = (Declared("petal length (cm)", parents=("sepal width (cm)",)),)
    assert binned_chain_notes(iris_work, one) == [
        BINNED_CHAIN.format(
            declared="petal length (cm) -> sepal width (cm)",
            columns="'petal length (cm)' and 'sepal width (cm)' are",
        )
    ]
    hint = READ_AS_CATEGORIES.format(them="them", its="their")
    assert binned_chain_notes(iris_work, one, upload=True)[0].endswith(hint)


def test_no_binned_chain_note_without_binned_columns():
    from test_explain_pipeline_app import page_work

    from explorer.hierarchies import binned_chain_notes

    work = page_work("builtin:zip-codes")[1]
    assert binned_chain_notes(work, (Declared("zip_code", prefix=(2,)),), upload=True) == []
    chain = (Declared("zip_code", parents=("weekday",)),)
    assert binned_chain_notes(work, chain, upload=True) == []


def test_flat_notes_pass_over_a_declaration_left_out(iris_work):
    """A declaration for a column this data lacks, or a prefix on a binned number, has no
    levels: it is no note (the left-out note speaks of it), not an error."""
    from explorer.hierarchies import flat_notes

    items = (Declared("zip_code", prefix=(2,)), Declared("petal length (cm)", prefix=(1,)))
    assert flat_notes(iris_work, items) == []


def _role_upload() -> bytes:
    rng = np.random.default_rng(4)
    child = rng.integers(0, 60, 600)
    frame = pd.DataFrame(
        {
            "role2": 118000 + child * 7,
            "dept": [f"d{c // 5}" for c in child],
            "label": rng.choice(["no", "yes"], 600),
        }
    )
    return frame.to_csv(index=False).encode()


def test_the_categorical_hint_is_for_an_uploads_binned_prefix_alone():
    """The in-use view adds "Add it to Categorical columns above" to a prefix refused on a
    binned number of an upload: not for a named dataset (no such box), nor to another
    note (a parent column left out)."""
    from test_app import assert_clean, open_app, uploader

    from explorer.errors import escape

    iris = '[{"feature":"petal length (cm)","prefix":[1]}]'
    at = open_app(data="builtin:iris", hierarchies=iris, dataset_tab="Hierarchies")
    assert [c.value for c in at.caption if "is binned" in c.value] == [
        escape(
            "petal length (cm) -> prefix 1: 'petal length (cm)' is binned, not labelled; left out."
        )
    ]
    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("roles.csv", _role_upload(), "")
    at.run()
    at.selectbox(key="hier_feature").set_value("role2")
    at.radio(key="hier_kind").set_value("parent column")
    at.selectbox(key="hier_parent").set_value("dept")
    next(b for b in at.button if b.label == "Declare").click().run()
    at.multiselect(key="upload_drop").set_value(["dept"]).run()  # the parent left out
    assert_clean(at)
    assert [c.value for c in at.caption if "role2" in c.value] == [
        escape("role2 -> dept: no column 'dept' here, left out.")
    ]


def test_explains_model_caption_names_the_rows_of_a_capped_upload():
    """An upload over the 20,000-row cap: the saved model's caption says it is fitted on
    the subsample, and the `heb fit --max-rows` that fits the same rows."""
    from test_app import assert_clean, open_app, uploader

    from explorer import explain as ex

    rng = np.random.default_rng(2)
    n = 20_500
    frame = pd.DataFrame({"town": rng.choice(list("abcdef"), n), "y": rng.choice(["a", "b"], n)})
    at = open_app(methods="HEB-M")
    uploader(at).upload("towns.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    at.switch_page("pages/explain.py")
    at.session_state["model_files_open"] = True
    at.run()
    assert_clean(at)
    said = ex.fitted_rows_note(20_000, n)
    assert said and any(said in c.value for c in at.caption)


def test_one_binned_column_of_a_chain_is_it_and_its_hint_is_for_an_upload(tmp_path):
    from test_explain_pipeline_app import page_work

    from explorer.hierarchies import BINNED_CHAIN, READ_AS_CATEGORIES, binned_chain_notes

    path = tmp_path / "roles.csv"
    path.write_bytes(_role_upload())
    work = page_work(str(path))[1]
    chain = (Declared("role2", parents=("dept",)),)
    said = BINNED_CHAIN.format(declared="role2 -> dept", columns="'role2' is")
    assert binned_chain_notes(work, chain) == [said]  # a named dataset has no such box
    hint = READ_AS_CATEGORIES.format(them="it", its="its")
    assert binned_chain_notes(work, chain, upload=True) == [said + hint]


def test_the_code_box_puts_every_hierarchy_on_one_command_line():
    """Every declaration in one command (one line of options), not one per declaration."""
    from test_app import open_app

    two = '[{"feature":"user_id","parents":["zip_code"]},{"feature":"zip_code","prefix":[2]}]'
    at = open_app(hierarchies=two, dataset_tab="Hierarchies")
    assert [c.value for c in at.code if "--hierarchy" in c.value] == [
        "python -m heb bench builtin:zip-codes --methods HEB-M,HEB-H --folds 10 \\\n"
        "  --hierarchy 'user_id -> zip_code' --hierarchy 'zip_code -> prefix 2'"
    ]


# ------------------------------------------------------- the command line's words
def test_a_data_warnings_categorical_advice_is_the_command_lines_option():
    from heb.cli import command_line_words

    assert command_line_words("pass categorical=['role code', 'b'].") == (
        "pass --categorical 'role code,b'."
    )
    assert command_line_words("pass categorical=[x].") == "pass categorical=[x]."  # unread


def test_score_says_the_rows_columns_without_a_name(tmp_path, capsys):
    """Which column score reads under a model's name is the reader's naming of a blank
    header: said, as a repeated name is."""
    model_file = tmp_path / "m.json"
    assert main(["fit", "builtin:zip-codes", "--method", "laplace", "-o", str(model_file)]) == 0
    frame = load_dataset("builtin:zip-codes").X.head(20).astype(str)
    frame.insert(0, "", "x")
    rows = tmp_path / "rows.csv"
    frame.to_csv(rows, index=False)
    capsys.readouterr()
    assert main(["score", str(model_file), str(rows), "-o", str(tmp_path / "s.csv")]) == 0
    assert "  rows.csv: Columns without a name were named " in capsys.readouterr().err


@pytest.mark.parametrize("command", ["bench", "fit"])
def test_the_no_groups_note_names_the_column_when_an_empty_column_is_left_out(
    command, zip_file, tmp_path, capsys
):
    """The levels are keyed by place among the encoded columns, which leave out an
    all-missing column: read by place among the file's columns, the note fell on the wrong
    column (or none)."""
    frame = pd.read_csv(zip_file, dtype=str)
    frame.insert(0, "empty", np.nan)
    path = tmp_path / "zip.csv"
    frame.to_csv(path, index=False)
    method = (
        ["--method", "heb-h"]
        if command == "fit"
        else ["--methods", "heb-h", "--folds", "2", "--no-figures"]
    )
    argv = [command, str(path), *method, "--hierarchy", "zip_code -> prefix 9"]
    assert main([*argv, "-o", str(tmp_path / "out")]) == 0
    said = capsys.readouterr()
    assert (
        "  zip: --hierarchy 'zip_code -> prefix 9' makes no groups (each value is a group of "
        "its own), so HEB-H is HEB-M on 'zip_code'.\n"
    ) in said.out + said.err


def test_compares_code_names_every_declared_hierarchy_for_the_command_line():
    from explorer import report
    from heb.evaluate import RunSettings

    two = '[{"feature":"user_id","parents":["zip_code"]},{"feature":"zip_code","prefix":[2]}]'
    code = report.compare_code("dataset = 1", ["HEB-H"], RunSettings(hierarchies=two))
    assert [line for line in code.splitlines() if line.startswith("#   ")] == [
        "#   --hierarchy 'user_id -> zip_code'",
        "#   --hierarchy 'zip_code -> prefix 2'",
    ]
