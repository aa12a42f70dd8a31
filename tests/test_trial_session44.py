"""Findings of the new-user trial of session 44 (HEB-H's hierarchies in the app and on the
command line), each a test that failed before its fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from explorer.errors import escape
from heb.data import load_dataset
from heb.evaluate import RunSettings, cross_validate

REPO = Path(__file__).resolve().parents[1]
ZIP_PREFIX = '[{"feature":"zip_code","prefix":[2]}]'


def test_compare_code_carries_the_declared_hierarchy_and_reproduces_heb_h(tmp_path):
    """Compare's "Show code" wrote RunSettings without the Dataset page's hierarchies: the
    pasted code ran HEB-H as HEB-M, with other numbers than the page's."""
    from explorer import report

    settings = RunSettings(n_splits=3, hierarchies=ZIP_PREFIX)
    code = report.compare_code(report.dataset_line("builtin:zip-codes"), ["HEB-H"], settings)
    assert "#   --hierarchy 'zip_code -> prefix 2'" in code
    assert all(len(line) <= 80 for line in code.splitlines())
    unread = report.compare_code("dataset = 1", ["HEB-M", "Laplace"], settings)
    assert "hierarch" not in unread.lower()  # no method reads them: the same numbers without
    from test_report import run_python

    out = run_python(
        code + "\nprint('JSON' + result.summary().to_json(double_precision=15))", tmp_path
    )
    import io

    shown = pd.read_json(io.StringIO(out.split("JSON", 1)[1]))
    data = load_dataset("builtin:zip-codes")
    expected = cross_validate(data, ["HEB-H"], settings=settings, use_cache=False).summary()
    flat = cross_validate(
        data, ["HEB-H"], settings=RunSettings(n_splits=3), use_cache=False
    ).summary()
    assert not np.allclose(expected["log_loss_mean"], flat["log_loss_mean"])  # it matters
    np.testing.assert_allclose(shown["log_loss_mean"], expected["log_loss_mean"], rtol=1e-12)


def test_dataset_page_shows_the_command_line_form_of_the_hierarchies_in_use():
    """The Dataset page named Compare and the link as the hierarchies' users, never the
    command line's --hierarchy, so a hierarchy declared in the app had no way over."""
    from test_app import open_app

    from explorer.hierarchies import COMMAND_LINE

    at = open_app(hierarchies=ZIP_PREFIX, dataset_tab="Hierarchies")
    assert [c.value for c in at.code if "--hierarchy" in c.value] == [
        "python -m heb bench builtin:zip-codes --methods HEB-M,HEB-H --folds 10 \\\n"
        "  --hierarchy 'zip_code -> prefix 2'"
    ]
    assert any(COMMAND_LINE in c.value for c in at.caption)
    none = open_app(dataset_tab="Hierarchies")
    assert not [c.value for c in none.code if "--hierarchy" in c.value]


def _role_frame() -> pd.DataFrame:
    """Whole-number role codes as the amazon file writes them: a child of 60 codes under a
    parent of 12, both read as numbers (binned) unless declared categorical."""
    rng = np.random.default_rng(4)
    child = rng.integers(0, 60, 600)
    return pd.DataFrame(
        {
            "role2": 118000 + child * 7,
            "role1": 117000 + (child // 5) * 13,
            "label": rng.choice(["no", "yes"], 600),
        }
    )


def test_cli_says_a_parent_chain_over_binned_numbers_groups_bins(tmp_path, capsys):
    """``--hierarchy 'ROLE_ROLLUP_2 -> ROLE_ROLLUP_1'`` on role codes read as numbers ran
    without a word, grouping quantile bins (the app showed '9 -> 3')."""
    from heb.cli import main

    path = tmp_path / "roles.csv"
    _role_frame().to_csv(path, index=False)
    chain = ["--hierarchy", "role2 -> role1"]
    bench = ["bench", str(path), "--methods", "heb-m,heb-h", "--folds", "3", "--no-figures"]
    assert main([*bench, *chain, "-o", str(tmp_path / "a")]) == 0
    said = capsys.readouterr()
    text = said.out + said.err
    assert (
        "--hierarchy 'role2 -> role1' groups the bins of 'role2' and 'role1', not their "
        "values (pass --categorical role2,role1 to read them as categories)."
    ) in text
    assert main([*bench, *chain, "--categorical", "role2,role1", "-o", str(tmp_path / "b")]) == 0
    said = capsys.readouterr()
    assert "groups the bins" not in said.out + said.err
    fit = ["fit", str(path), "--method", "heb-h", *chain, "--categorical", "role2"]
    assert main([*fit, "-o", str(tmp_path / "m.json")]) == 0
    said = capsys.readouterr()
    assert "groups the bins of 'role1', not their values (pass --categorical role1 " in (
        said.out + said.err
    )


def test_dataset_page_says_a_parent_chain_over_binned_numbers_groups_bins():
    from test_app import assert_clean, open_app, uploader

    from explorer.hierarchies import BINNED_CHAIN, READ_AS_CATEGORIES

    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("roles.csv", _role_frame().to_csv(index=False).encode(), "")
    at.run()
    at.selectbox(key="hier_feature").set_value("role2")
    at.radio(key="hier_kind").set_value("parent column")
    at.selectbox(key="hier_parent").set_value("role1")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    said = BINNED_CHAIN.format(
        declared="role2 -> role1", columns="'role2' and 'role1' are"
    ) + READ_AS_CATEGORIES.format(them="them", its="their")
    assert [c.value for c in at.caption if "binned as numbers" in c.value] == [escape(said)]


def test_a_hierarchy_that_makes_no_groups_is_said(tmp_path, capsys):
    """A prefix as long as the labels ('zip_code -> prefix 9' on 5-digit codes) or one
    every label shares ran HEB-H as HEB-M, number for number, without a word."""
    from test_app import assert_clean, open_app

    from heb.cli import main

    dataset = load_dataset("builtin:zip-codes")
    path = tmp_path / "zip.csv"
    dataset.X.assign(**{dataset.target: dataset.y}).to_csv(path, index=False)
    bench = ["bench", str(path), "--methods", "heb-h", "--folds", "3", "--no-figures"]
    assert main([*bench, "--hierarchy", "zip_code -> prefix 9", "-o", str(tmp_path / "a")]) == 0
    said = capsys.readouterr()
    assert (
        "--hierarchy 'zip_code -> prefix 9' makes no groups (each value is a group of its "
        "own), so HEB-H is HEB-M on 'zip_code'."
    ) in said.out + said.err
    fit = ["fit", str(path), "--method", "heb-h", "-o", str(tmp_path / "m.json")]
    assert main([*fit, "--hierarchy", "zip_code -> prefix 2"]) == 0
    assert "makes no groups" not in "".join(capsys.readouterr())
    at = open_app(hierarchies='[{"feature":"zip_code","prefix":[9]}]', dataset_tab="Hierarchies")
    assert_clean(at)
    assert [c.value for c in at.caption if "no groups" in c.value] == [
        escape(
            "zip_code -> prefix 9: no groups (each value is a group of its own), so HEB-H "
            "is HEB-M on it."
        )
    ]


def test_heb_fit_notes_speak_the_command_line_not_python(tmp_path, capsys):
    """``heb fit`` on the amazon file printed the Python API's warning: 'pass
    categorical=['ROLE_CODE'], or read it as text (... read_csv(..., dtype=str), or
    heb.data.load_upload)', where the command line takes --categorical ROLE_CODE."""
    from heb.cli import main

    rng = np.random.default_rng(1)
    gain = np.where(rng.random(400) < 0.95, 0, rng.integers(1, 9000, 400))
    frame = pd.DataFrame(
        {
            "ROLE_CODE": 117000 + rng.integers(0, 150, 400),
            "gain": gain,
            "label": rng.choice(["no", "yes"], 400),
        }
    )
    path = tmp_path / "roles.csv"
    frame.to_csv(path, index=False)
    assert main(["fit", str(path), "-o", str(tmp_path / "m.json")]) == 0
    said = capsys.readouterr().err
    assert "pass --categorical ROLE_CODE." in said
    assert "pass --categorical gain to count its values one by one." in said
    assert "categorical=[" not in said and "read_csv" not in said


def test_the_target_named_in_a_hierarchy_is_called_the_target(tmp_path, capsys):
    """'ROLE_ROLLUP_2 -> target' was refused as "no column 'target' here", of a column the
    file plainly has (and a note on its binned feature was printed beside the refusal)."""
    from heb.cli import main

    path = tmp_path / "roles.csv"
    _role_frame().to_csv(path, index=False)
    bench = ["bench", str(path), "--methods", "heb-h", "--folds", "3", "--no-figures"]
    with pytest.raises(SystemExit) as stopped:
        main([*bench, "--hierarchy", "role2 -> label", "-o", str(tmp_path / "a")])
    assert stopped.value.code == 2
    said = capsys.readouterr()
    assert said.err.splitlines()[-1] == (
        "heb: --hierarchy 'role2 -> label' cannot apply to roles: 'label' is the target, not "
        "a feature."
    )
    assert "groups the bins" not in said.out + said.err


def test_an_uploads_prefix_on_a_binned_number_says_how_to_label_it():
    """'role2 -> prefix 3' on an upload said "'role2' is binned, not labelled; left out."
    and no more, where the page's own Categorical columns labels it."""
    from test_app import assert_clean, open_app, uploader

    at = open_app(dataset_tab="Hierarchies")
    uploader(at).upload("roles.csv", _role_frame().to_csv(index=False).encode(), "")
    at.run()
    at.selectbox(key="hier_feature").set_value("role2")
    at.radio(key="hier_kind").set_value("prefix of the label")
    at.text_input(key="hier_L").set_value("3")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    said = [c.value for c in at.caption if "is binned" in c.value]
    assert said == [
        escape(
            "role2 -> prefix 3: 'role2' is binned, not labelled; left out. Read it as "
            "categories (the button below, or Categorical columns above) to use its values."
        )
    ]


def test_explains_model_file_names_heb_score_and_the_rows_it_was_fitted_on():
    """The saved model's caption named only heb.data.pipeline_io, never `heb score`, and a
    model of a 30,000-row upload, fitted on the 20,000-row subsample, scored otherwise than
    `heb fit`'s of the same file without a word of why."""
    from test_app import assert_clean, open_app

    from explorer import explain as ex

    at = open_app("pages/explain.py", methods="HEB-M,HEB-H")
    at.session_state["model_files_open"] = True
    at.run()
    assert_clean(at)
    command = "python -m heb score nb-heb-m.json ROWS.csv --target COLUMN"
    assert any(command in c.value and "subsample" not in c.value for c in at.caption)
    said = ex.fitted_rows_note(20_000, 30_000)
    assert "fitted on the 20,000 rows of the stratified subsample of 30,000" in said
    assert (
        "`heb fit --max-rows 20000` fits the same rows of a file, `heb fit` alone every row."
        in said
    )
    assert ex.fitted_rows_note(5, 5) == ""


def test_a_mistyped_prefix_length_is_said_as_one(tmp_path, capsys):
    """'zip_code -> prefix two' was read as a parent column and refused as "no column
    'prefix two' here", after the data was read; 'Prefix 2' was a column too."""
    from heb.cli import main
    from heb.evaluate.hierarchy_specs import Declared

    assert Declared.from_text("zip_code -> Prefix 2") == Declared("zip_code", prefix=(2,))
    path = tmp_path / "roles.csv"
    _role_frame().to_csv(path, index=False)
    bench = ["bench", str(path), "--methods", "heb-h", "-o", str(tmp_path / "a")]
    with pytest.raises(SystemExit) as stopped:
        main([*bench, "--hierarchy", "zip_code -> prefix two"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "heb: 'prefix two' in the hierarchy 'zip_code -> prefix two' is no prefix length; "
        "write a whole number of characters, such as 'prefix 3'."
    )


def test_concentrations_say_a_hierarchy_that_makes_no_groups():
    """HEB-H's view of 'zip_code -> prefix 9' drew a level 'zip_code given zip_code prefix
    9' of one-member groups and said nothing of HEB-H being HEB-M there."""
    from test_app import assert_clean, open_app

    at = open_app(
        "pages/concentrations.py",
        hierarchies='[{"feature":"zip_code","prefix":[9]}]',
        conc_model="HEB-H",
    )
    assert_clean(at)
    assert any("Hierarchies declared on the Dataset page" in m.value for m in at.markdown)
    assert [c.value for c in at.caption if "no groups" in c.value] == [
        escape(
            "zip_code -> prefix 9: no groups (each value is a group of its own), so HEB-H "
            "is HEB-M on it."
        )
    ]


def test_a_named_datasets_binned_chain_is_said_without_the_categorical_hint(tmp_path, capsys):
    """--categorical changes nothing for builtin:, shared: or openml: data (read as its
    source declares), so the note on a chain over binned numbers does not offer it."""
    from heb.cli import main

    chain = "petal length (cm) -> petal width (cm)"
    argv = ["fit", "builtin:iris", "--method", "heb-h", "--hierarchy", chain]
    assert main([*argv, "-o", str(tmp_path / "m.json")]) == 0
    said = capsys.readouterr().err
    assert (
        "  iris: --hierarchy 'petal length (cm) -> petal width (cm)' groups the bins of "
        "'petal length (cm)' and 'petal width (cm)', not their values.\n"
    ) in said


def test_compare_says_a_declared_hierarchy_that_makes_no_groups():
    """HEB-H scored as HEB-M on Compare with no word of why (a prefix as long as the ZIP
    codes); the Dataset and Concentrations pages said it."""
    from test_app import assert_clean, open_app

    flat = '[{"feature":"zip_code","prefix":[5]}]'
    said = "each value is a group of its own"  # the info's text is markdown-escaped
    at = open_app("pages/compare.py", hierarchies=flat, methods="HEB-M,HEB-H", folds="3")
    assert_clean(at)
    assert sum(said in i.value for i in at.info) == 1
    at = open_app("pages/compare.py", hierarchies=flat, methods="HEB-M,Laplace", folds="3")
    assert_clean(at)
    assert not any(said in i.value for i in at.info)  # no method reads it
    grouped = '[{"feature":"zip_code","prefix":[2]}]'
    at = open_app("pages/compare.py", hierarchies=grouped, methods="HEB-M,HEB-H", folds="3")
    assert not any("no groups" in i.value for i in at.info)
