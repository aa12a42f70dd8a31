"""Tests a mutation pass over ``--hierarchy`` (heb/cli_hierarchies.py, Declared.from_text,
the bench / fit wiring) found missing: each fails on a mutant the other tests let live, or
on a fault the pass found (a repeated column's hierarchy silently dropped, the target
column called absent, --categorical offered for a named dataset)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.cli_hierarchies import hierarchies_option
from heb.data import load_dataset
from heb.evaluate import RunSettings, cross_validate
from heb.evaluate.hierarchy_specs import Declared


# ------------------------------------------------------------------ the typed form
@pytest.mark.parametrize(
    ("text", "parents", "prefix"),
    [
        ("zip -> prefix 12 -> prefix 3", (), (12, 3)),  # lengths of more than one digit
        ("zip -> prefix\t3", (), (3,)),  # any white space between the word and the number
        ("zip -> prefix3", ("prefix3",), ()),  # describe() writes 'prefix 3': a column name
    ],
)
def test_only_a_whole_prefix_step_is_a_prefix_length(text, parents, prefix):
    declared = Declared.from_text(text)
    assert (declared.parents, declared.prefix) == (parents, prefix)


@pytest.mark.parametrize("text", ["zip -> prefix 3b", "zip -> prefix 3 x", "zip -> prefix two"])
def test_a_prefix_step_with_more_than_a_number_is_a_typo(text):
    """The whole step, not its start, is the length: 'prefix 3b' is neither 3 nor a column."""
    with pytest.raises(ValueError, match="is no prefix length"):
        Declared.from_text(text)


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
    pd.DataFrame({"bought": ["a1", "a2", "b1", "b2", "a3"] * 20, "y": list("xy") * 50}).to_csv(
        other, index=False
    )
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
    assert "no column 'bought'" not in said  # said once, as the target


# ------------------------------------------------- bench's variants via RunSettings
@pytest.fixture(scope="module")
def number_file(tmp_path_factory):
    """A numeric column (Table 7 bins it) whose class signal depends on the bin count."""
    rng = np.random.default_rng(3)
    age = rng.normal(size=160)
    frame = pd.DataFrame({"age": age, "town": rng.choice(list("abcd"), 160)})
    frame["y"] = np.where(age + rng.normal(scale=0.7, size=160) > 0, "x", "y")
    path = tmp_path_factory.mktemp("data") / "num.csv"
    frame.to_csv(path, index=False)
    return path


def test_bench_variants_run_with_their_alpha_and_bin_count(number_file, tmp_path):
    """Table 6's Lidstone(alpha) runs and Table 7's bins=b runs give cross_validate's
    numbers with that alpha / bin count (the runs now go through RunSettings)."""
    out = tmp_path / "out"
    argv = ["bench", str(number_file), "--tables", "6,7", "--folds", "2", "--no-figures"]
    assert main([*argv, "--no-cache", "-o", str(out)]) == 0
    folds = pd.read_csv(out / "folds.csv")
    mean = folds.groupby(["variant", "method"])["log_loss"].mean()
    dataset = load_dataset(str(number_file))

    def expected(method, **settings):
        result = cross_validate(dataset, [method], settings=RunSettings(n_splits=2, **settings))
        return result.folds["log_loss"].mean()

    lidstone = {a: mean[(f"Lidstone({a:g})",) * 2] for a in (0.001, 2.0)}
    assert lidstone[0.001] == pytest.approx(
        expected("Lidstone", overrides={"Lidstone": {"alpha": 0.001}}), rel=1e-12
    )
    assert lidstone[0.001] != pytest.approx(lidstone[2.0], rel=1e-6)
    five, twenty = mean[("bins=5", "HEB-M [bins=5]")], mean[("bins=20", "HEB-M [bins=20]")]
    assert five == pytest.approx(expected("HEB-M", n_bins=5), rel=1e-12)
    assert twenty == pytest.approx(expected("HEB-M", n_bins=20), rel=1e-12)
    assert five != pytest.approx(twenty, rel=1e-6)


def test_a_run_without_a_hierarchy_keeps_its_cache_key(number_file, tmp_path, monkeypatch):
    """Bench's settings gain "hierarchies" only with --hierarchy: an empty entry would
    change the key of every earlier run, so none would be served from the cache."""
    import heb.cli

    keys = []

    def recorded(*parts):
        keys.append(parts)
        return real(*parts)

    real = heb.cli.cache_key
    monkeypatch.setattr(heb.cli, "cache_key", recorded)
    argv = ["bench", str(number_file), "--methods", "heb-h", "--folds", "2", "--no-figures"]
    assert main([*argv, "--no-cache", "-o", str(tmp_path / "o")]) == 0
    settings = next(parts[3] for parts in keys if parts[0] == "bench")
    assert set(settings) == {"n_splits", "seed", "n_bins", "missing", "max_rows"}


def test_the_reliability_curves_run_with_the_benchs_settings(tmp_path):
    """_collect_reliability's cross-validation takes the run's folds and seed (through
    RunSettings, as the tables' runs): its curves are the Python API's with them."""
    from heb.cli import _collect_reliability
    from heb.evaluate.paper import TABLE_METHODS

    rng = np.random.default_rng(0)
    path = tmp_path / "zips.csv"
    codes = rng.integers(0, 300, 400)
    frame = pd.DataFrame({"zip": [f"z{c}" for c in codes], "y": (codes % 3 == 0).astype(int)})
    frame.to_csv(path, index=False)
    settings = {"n_splits": 3, "seed": 7, "n_bins": 10, "missing": "impute", "max_rows": 20_000}
    curves = _collect_reliability([str(path)], settings, {4})["zips"]
    result = cross_validate(
        load_dataset(str(path)), TABLE_METHODS[4], settings=RunSettings(**settings)
    )
    for method in TABLE_METHODS[4]:
        expected = result.reliability(method)
        assert curves[method]["ece"] == pytest.approx(expected["ece"], rel=1e-12)
        np.testing.assert_array_equal(curves[method]["count"], expected["count"])


def test_the_hierarchy_check_adds_no_warning_of_its_own(tmp_path, capsys):
    """_check_hierarchies fits an encoder to see the columns: its binning warning (worded
    for Python, categorical=[...]) stays unsaid, as bench says such columns its own way."""
    rng = np.random.default_rng(0)
    gain = np.where(rng.random(3000) < 0.92, 0, rng.integers(1, 124, 3000) * 100)
    town = rng.choice([f"t{i}" for i in range(20)], 3000)
    path = tmp_path / "gain.csv"
    pd.DataFrame({"gain": gain, "town": town, "y": rng.choice(["a", "b"], 3000)}).to_csv(
        path, index=False
    )
    argv = ["bench", str(path), "--methods", "heb-h", "--folds", "2", "--no-figures"]
    assert main([*argv, "--hierarchy", "town > prefix 2", "-o", str(tmp_path / "o")]) == 0
    assert "categorical=[" not in capsys.readouterr().err


def test_fit_without_a_hierarchy_writes_the_model_file_heb_h_has_by_default(tmp_path):
    """No --hierarchy: the model file's HEB-H holds hierarchies null, as one from
    make_model('heb-h') does, not an empty mapping."""
    from heb.data import make_model, pipeline_io

    out = tmp_path / "m.json"
    assert main(["fit", "builtin:zip-codes", "--method", "heb-h", "-o", str(out)]) == 0
    assert pipeline_io.load(out)[-1].hierarchies is None
    assert make_model("heb-h")[-1].hierarchies is None


@pytest.mark.parametrize("command", ["fit", "bench"])
def test_a_named_datasets_binned_column_gets_no_categorical_hint(command, tmp_path, capsys):
    """--categorical applies to files alone (a named dataset is read as its source
    declares): the refusal told a user of builtin:iris to pass it, which changes nothing."""
    name = "petal length (cm)"
    method = ["--method", "heb-h"] if command == "fit" else ["--methods", "heb-h"]
    with pytest.raises(SystemExit):
        main([command, "builtin:iris", *method, "--hierarchy", f"{name} -> prefix 1",
              "--categorical", name, "-o", str(tmp_path / "out")])  # fmt: skip
    said = capsys.readouterr().err
    assert (
        f"heb: --hierarchy '{name} -> prefix 1' cannot apply to iris: '{name}' is binned, "
        "not labelled.\n" in said
    )
    assert "pass --categorical" not in said
