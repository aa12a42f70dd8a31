"""``--hierarchy`` of ``heb bench`` and ``heb fit``: HEB-H's category hierarchies from the
command line (without one HEB-H is HEB-M, and the command line had no way to give one)."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.data import load_dataset, make_model, pipeline_io
from heb.evaluate import RunSettings, cross_validate
from heb.evaluate.hierarchy_specs import Declared, hierarchies_text
from heb.nb import NaiveBayes

ZIP = "zip_code -> prefix 2"


@pytest.fixture(scope="module")
def number_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"age": rng.normal(size=120), "town": rng.choice(list("abc"), 120)}
    ).assign(y=rng.choice(["x", "y"], 120))
    path = tmp_path_factory.mktemp("data") / "num.csv"
    frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ the typed form
@pytest.mark.parametrize(
    ("text", "parents", "prefix"),
    [
        ("zip -> prefix 3 -> prefix 1", (), (3, 1)),
        ("zip>prefix 3", (), (3,)),
        ("ROLE_2 -> ROLE_1 -> DEPT", ("ROLE_1", "DEPT"), ()),
        ("  a  >b ", ("b",), ()),
    ],
)
def test_a_hierarchy_is_read_as_the_app_writes_it(text, parents, prefix):
    declared = Declared.from_text(text)
    assert (declared.parents, declared.prefix) == (parents, prefix)
    assert Declared.from_text(declared.describe()) == declared


def test_a_name_holding_a_greater_than_sign_is_declared_with_arrows():
    """'>' split every step, so a column 'a>b' could not be declared ("no column 'a')."""
    assert Declared.from_text("a>b -> région é") == Declared("a>b", parents=("région é",))
    assert Declared.from_text("x -> a>b") == Declared("x", parents=("a>b",))
    assert Declared.from_text("a>b>c") == Declared("a", parents=("b", "c"))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("zip", "A hierarchy reads 'column -> parent -> ...'"),
        ("zip -> ", "A hierarchy reads"),
        ("-> a", "A hierarchy reads"),
        ("zip -> prefix 3 -> state", "mixes parent columns and prefix lengths"),
        ("zip -> prefix 1 -> prefix 3", "strictly decreasing"),
        ("a -> a", "must be other, distinct columns"),
    ],
)
def test_a_malformed_hierarchy_is_one_sentence(text, said):
    with pytest.raises(ValueError, match=said.replace(".", r"\.").replace("(", r"\(")):
        Declared.from_text(text)


# ------------------------------------------------------------------------ bench
def _summary(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "folds.csv").groupby("method")["log_loss"].mean()


def test_bench_runs_heb_h_along_the_declared_hierarchy(zip_file, tmp_path, capsys):
    argv = ["bench", str(zip_file), "--methods", "heb-m,heb-h", "--folds", "3", "--no-figures"]
    assert main([*argv, "-o", str(tmp_path / "plain")]) == 0
    said = capsys.readouterr().err
    assert "HEB-H was given no category hierarchy" in said and "--hierarchy" in said
    plain = _summary(tmp_path / "plain")
    assert plain["HEB-H"] == pytest.approx(plain["HEB-M"], rel=1e-12)

    # the cache keeps the two runs apart: the declared one is not served the plain one
    assert main([*argv, "--hierarchy", ZIP, "-o", str(tmp_path / "declared")]) == 0
    assert "no category hierarchy" not in capsys.readouterr().err
    declared = _summary(tmp_path / "declared")
    assert declared["HEB-M"] == pytest.approx(plain["HEB-M"], rel=1e-12)
    assert abs(declared["HEB-H"] - declared["HEB-M"]) > 1e-4

    # the numbers are the Python API's with the same declaration
    dataset = load_dataset(str(zip_file))
    settings = RunSettings(n_splits=3, hierarchies=hierarchies_text([Declared.from_text(ZIP)]))
    expected = cross_validate(dataset, ["heb-h"], settings=settings).folds["log_loss"].mean()
    assert declared["HEB-H"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--methods", "heb-m"], "--hierarchy is read by HEB-H alone, not by HEB-M"),
        ([], "which no table of the paper runs; name it in --methods"),
        (["--methods", "heb-h", "--engine", "duckdb"], "not available on the large-data path"),
        (["--methods", "heb-h", "--hierarchy", "zip"], "A hierarchy reads"),
    ],
)
def test_bench_refuses_a_hierarchy_that_would_change_nothing(
    zip_file, tmp_path, capsys, extra, said
):
    out = tmp_path / "out"
    argv = ["bench", str(zip_file), "--hierarchy", ZIP, "-o", str(out), *extra]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err
    assert not out.exists()  # refused before any work


def test_bench_refuses_a_hierarchy_its_one_dataset_cannot_take(
    zip_file, number_file, tmp_path, capsys
):
    base = ["bench", "--methods", "heb-h", "--folds", "3", "--no-figures", "-o", str(tmp_path)]
    with pytest.raises(SystemExit):
        main([*base, str(zip_file), "--hierarchy", "zip -> prefix 2"])
    assert (
        "heb: --hierarchy 'zip -> prefix 2' cannot apply to zip: no column 'zip' here."
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main([*base, str(number_file), "--hierarchy", "age -> prefix 2"])
    assert (
        "cannot apply to num: 'age' is binned, not labelled (pass --categorical to read it "
        "as categories)." in capsys.readouterr().err
    )
    # read as categories, the prefix rule applies
    assert (
        main([*base, str(number_file), "--categorical", "age", "--hierarchy", "age>prefix 2"]) == 0
    )


def test_bench_says_where_a_hierarchy_is_left_out_among_datasets(
    zip_file, number_file, tmp_path, capsys
):
    argv = ["bench", str(zip_file), str(number_file), "--methods", "heb-h", "--folds", "3"]
    assert main([*argv, "--no-figures", "--hierarchy", ZIP, "-o", str(tmp_path)]) == 0
    said = capsys.readouterr().err
    assert "  num: --hierarchy 'zip_code -> prefix 2' left out (no column 'zip_code' here)." in said
    assert "zip: --hierarchy" not in said


# -------------------------------------------------------------------------- fit
def test_fit_saves_heb_h_with_its_hierarchy(zip_file, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert (
        main(["fit", str(zip_file), "--method", "heb-h", "--hierarchy", ZIP, "-o", str(out)]) == 0
    )
    assert "2 classes, hierarchies over 1 column); wrote" in capsys.readouterr().err
    loaded = pipeline_io.load(out)
    dataset = load_dataset(str(zip_file))
    pipe = make_model("heb-m", categorical=dataset.categorical).fit(dataset.X, dataset.y)
    codes = pipe[0].transform(dataset.X)
    f = list(pipe[0].feature_names_out_).index("zip_code")
    labels = [str(v) for v in pipe[0].categories_[f]]
    parents = np.unique([s[:2] for s in labels], return_inverse=True)[1]
    expected = NaiveBayes("heb-h", hierarchies={f: [parents]}).fit(codes, dataset.y)
    np.testing.assert_allclose(
        loaded.predict_proba(dataset.X), expected.predict_proba(codes), rtol=1e-12
    )
    plain = make_model("heb-m", categorical=dataset.categorical).fit(dataset.X, dataset.y)
    assert not np.allclose(loaded.predict_proba(dataset.X), plain.predict_proba(dataset.X))


def test_fit_says_heb_h_without_a_hierarchy_is_heb_m(zip_file, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["fit", str(zip_file), "--method", "heb-h", "-o", str(out)]) == 0
    said = capsys.readouterr().err
    assert "HEB-H was given no category hierarchy, so it is HEB-M" in said
    assert "hierarchies over" not in said
    assert "NaiveBayes('heb-h')" not in said  # the Python API's warning, said once above


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--method", "laplace", "--hierarchy", ZIP], "read by HEB-H alone, not by Laplace"),
        (["--method", "heb-h", "--hierarchy", "zip>prefix 2"], "no column 'zip' here"),
    ],
)
def test_fit_refuses_a_hierarchy_before_writing(zip_file, tmp_path, capsys, extra, said):
    out = tmp_path / "m.json"
    with pytest.raises(SystemExit):
        main(["fit", str(zip_file), "-o", str(out), *extra])
    assert said in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("declared", "typable"),
    [
        (Declared("zip", prefix=(3, 1)), True),
        (Declared("a>b", parents=("c",)), True),
        (Declared("x", parents=("prefix code",)), False),  # read as a mistyped length
        (Declared("x", parents=("Prefix 2",)), False),  # read as a length
        (Declared("a->b", parents=("c",)), False),  # read as a -> b -> c
    ],
)
def test_a_declaration_the_command_line_cannot_type_is_not_offered_as_one(declared, typable):
    """The Dataset page's code box offered --hierarchy 'x -> prefix code', which heb bench
    refuses, and 'a->b -> c', which it reads as another hierarchy."""
    from heb.evaluate.hierarchy_specs import command_line_options, untypable

    assert (untypable([declared]) == []) is typable
    assert len(command_line_options([declared])) == typable


def test_the_dataset_page_says_which_hierarchy_the_command_line_cannot_type():
    from test_app import assert_clean, open_app

    from explorer.commands import UNTYPABLE
    from explorer.errors import escape

    text = '[{"feature":"zip_code","parents":["prefix code"]},{"feature":"user_id","prefix":[2]}]'
    at = open_app(hierarchies=text, dataset_tab="Hierarchies")
    assert_clean(at)
    assert [c.value for c in at.code if "--hierarchy" in c.value] == [
        "python -m heb bench builtin:zip-codes --methods HEB-M,HEB-H --folds 10 \\\n"
        "  --hierarchy 'user_id -> prefix 2'"
    ]
    # zip-codes has no column 'prefix code': the page leaves that declaration out, and
    # so does the command, which says so (heb bench would refuse it)
    assert any(
        "zip\\_code \\-\\> prefix code\\: left out of the command" in c.value for c in at.caption
    ), [c.value for c in at.caption]
    alone = open_app(hierarchies='[{"feature":"zip_code","parents":["prefix code"]}]',
                     dataset_tab="Hierarchies")  # fmt: skip
    assert_clean(alone)  # no command that would run HEB-H as HEB-M, but the reason
    assert not [c.value for c in alone.code if "heb bench" in c.value]
    assert [c.value for c in alone.caption if "cannot be typed" in c.value] == [
        escape(UNTYPABLE.format("zip_code -> prefix code"))
    ]


def test_a_column_with_a_comma_is_offered_to_categorical_quoted(tmp_path, capsys, monkeypatch):
    """bench said "pass --categorical 'x,y' to read it as categories" of a binned column
    named x,y: the option splits it into columns x and y (the s45 trial). Both notes, the
    binned codes' and the binned chain's, now quote it ('"x,y",code'), and the option so
    given reads it as categories."""
    rng = np.random.default_rng(1)
    n = 600
    city = rng.integers(100, 160, n)
    label = np.where(city % 7 < 3, "yes", "no")
    frame = pd.DataFrame({"x,y": city, "region": city // 10, "code": city + 1000, "label": label})
    frame.to_csv(tmp_path / "f.csv", index=False)
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    words = ["bench", str(tmp_path / "f.csv"), "--methods", "HEB-M,HEB-H", "--folds", "3"]
    words += ["--hierarchy", "x,y -> region", "-o", str(tmp_path / "out"), "--no-figures"]
    assert main(words) == 0
    said = capsys.readouterr().err
    assert "--categorical 'x,y" not in said and "--categorical x,y" not in said, said
    assert """pass --categorical '"x,y",code' to read them as categories""" in said
    assert """(pass --categorical '"x,y",region' to read them as categories)""" in said
    given = []  # the two hints' values, as a shell passes them (the option repeated)
    for value in re.findall(r"pass --categorical ('[^']*') to read them", said):
        given += ["--categorical", *shlex.split(value)]
    assert given[1::2] == ['"x,y",code', '"x,y",region']
    assert main([*words[:-3], "-o", str(tmp_path / "again"), "--no-figures", *given]) == 0
    said = capsys.readouterr().err
    assert "--categorical" not in said and "groups the bins" not in said, said
