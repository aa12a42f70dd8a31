"""What a practitioner's trial of the API and CLI found (session 24), each pinned."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heb import AODE, TAN
from heb.cli import NoUsableData, _size_hint, _target_hint, main
from heb.cli_scale import distinct_name
from heb.data import DataError, load_builtin, load_dataset, make_model
from heb.data.dataset import TooManyCells
from heb.evaluate import RunSettings, cross_validate


def _ids(rows: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 300, (rows, 3)), rng.integers(0, 2, rows)


@pytest.mark.parametrize(
    ("model", "words"),
    [
        (AODE(), "none can be a super-parent: this AODE is the NB posterior"),
        (AODE(smoother="heb"), "none can be a super-parent: this AODE is the NB posterior"),
        (TAN(), "none can be a parent: this TAN is Naive Bayes"),
    ],
)
def test_a_model_with_no_possible_parent_says_it_is_naive_bayes(model, words):
    X, y = _ids()
    X[0] = 299  # every feature has 300 categories, over the default cap of 200
    with pytest.warns(UserWarning, match=words):
        model.fit(X, y)
    assert len(model.notes_) == 1 and words in model.notes_[0]
    assert "max_parent_cardinality = 200" in model.notes_[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        narrow = type(model)(max_parent_cardinality=400).fit(X, y)
    assert narrow.notes_ == []
    one_feature = type(model)().fit(X[:, :1], y)  # nothing to pair: no note
    assert one_feature.notes_ == []


def test_the_cli_prints_a_model_note_once_as_one_line(tmp_path, capsys):
    X, y = _ids()
    frame = pd.DataFrame({c: [f"id{v}" for v in X[:, i]] for i, c in enumerate("abc")})
    frame["y"] = y
    frame.to_csv(tmp_path / "ids.csv", index=False)
    argv = ["bench", str(tmp_path / "ids.csv"), "--methods", "aode,heb-aode", "--folds", "3"]
    assert main([*argv, "--no-cache", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("heb: note: ")]
    assert len(notes) == 1 and "none can be a super-parent" in notes[0]
    assert "UserWarning" not in err


def test_the_cli_says_what_reading_a_file_changed(tmp_path, capsys):
    (tmp_path / "notes.csv").write_text("a,a,class\n1,x,p\n2,y,q\n3,,p\n4,z\n5,x,q\n6,y,p\n,,\n")
    argv = ["bench", str(tmp_path / "notes.csv"), "--methods", "laplace", "--folds", "2"]
    assert main([*argv, "--no-cache", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "  notes: Column name 'a' appears more than once" in err
    assert "  notes: Dropped 1 row with a missing target." in err


def test_two_inputs_with_one_name_stay_two_datasets(tmp_path, capsys):
    iris = load_builtin("iris")
    table = iris.X.assign(species=iris.y)
    table.to_csv(tmp_path / "iris.csv", index=False)
    table.sample(frac=1, random_state=1).to_csv(tmp_path / "iris.tsv", sep="\t", index=False)
    out = tmp_path / "out"
    specs = [str(tmp_path / "iris.csv"), str(tmp_path / "iris.tsv")]
    argv = ["bench", *specs, "--tables", "1", "--folds", "3", "--no-figures", "--no-cache"]
    assert main([*argv, "-o", str(out)]) == 0
    assert "Table 1 skipped" not in capsys.readouterr().err
    names = list(dict.fromkeys(pd.read_csv(out / "folds.csv")["dataset"]))
    assert names == ["iris", f"iris ({specs[1]})"]
    taken: set[str] = set()
    named = [distinct_name("a", spec, taken) for spec in ("x/a.csv", "y/a.csv", "b.csv")]
    assert named == ["a", "a (y/a.csv)", "a (b.csv)"]
    assert taken == set(named)


def test_a_refused_target_or_size_names_the_option_that_helps(tmp_path):
    gone = str(tmp_path / "gone.csv")  # a file no longer there: the option alone
    refused = "The target 'ROLE' has 343 different values"
    assert _target_hint(refused, None, gone).endswith("--target NAME names another")
    assert _target_hint(refused, "ROLE", gone) == ""
    assert _target_hint("The file is empty.", None, gone) == ""
    small = tmp_path / "small.csv"
    small.write_text("a,b\n1,2\n")
    assert "--engine duckdb" in _size_hint(str(small), TooManyCells("over the cell limit"))
    assert _size_hint(str(small), DataError("The file is empty.")) == ""


def test_a_categorical_name_not_in_the_table_is_warned_about():
    frame = pd.DataFrame({"a": [1, 2, 3, 1, 2, 3], "b": list("xyxyxy")})
    with pytest.warns(UserWarning, match="categorical names 1 column not in the table: 'nope'"):
        make_model(categorical=["nope", "a"]).fit(frame, [0, 1, 0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_model(categorical=["a"]).fit(frame, [0, 1, 0, 1, 0, 1])


def test_a_setting_given_beside_settings_is_refused_not_ignored():
    data = load_builtin("iris")
    with pytest.raises(ValueError, match="Give n_splits in settings or as arguments, not both"):
        cross_validate(data, ["laplace"], n_splits=5, settings=RunSettings(n_splits=3))
    result = cross_validate(data, ["laplace"], settings=RunSettings(n_splits=3), use_cache=False)
    assert result.n_splits == 3


def test_options_that_cannot_apply_are_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "builtin:iris", "--spark-master", "local[2]", "-o", str(out)])
    assert exit_info.value.code == 2
    assert "--spark-master is the master of --engine spark" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["synthetic", "--alpha-dir", "0", "-o", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--alpha-dir must be a number above 0 (got '0')" in err
    assert "repetitions" not in err and not out.exists()
    with pytest.raises(SystemExit, match="Unknown tables 10, 11; choose from 1-9."):
        main(["bench", "builtin:iris", "--tables", "1,10,11", "-o", str(out)])


def test_one_more_mixed_column_is_singular(tmp_path: Path):
    path = tmp_path / "mixed.csv"
    path.write_text("doors,persons,c\n2,2,a\n5more,more,b\n3,4,a\n4,2,b\n")
    text = " ".join(load_dataset(str(path)).notes)
    assert "Column 'doors' (and 1 more column) mixes numbers and text" in text


def test_numbers_read_as_text_at_predict_time_are_still_the_categories_learned():
    """An integer store_id fitted, then the same IDs as strings (JSON, a CSV read as text):
    every row was unseen and scored as the prior."""
    rng = np.random.default_rng(0)
    stores, letters = rng.integers(0, 50, 2000), rng.choice(list("xyz"), 2000)
    frame = pd.DataFrame({"store_id": stores, "b": letters})
    pipe = make_model(categorical=["store_id"]).fit(frame, frame["store_id"] % 2)
    test = pd.DataFrame({"store_id": [1, 4, 7], "b": ["x", "y", "q"]})
    as_numbers = pipe.predict_proba(test)
    as_text = pipe.predict_proba(test.assign(store_id=["1", "4", " 7"]))
    np.testing.assert_array_equal(as_text, as_numbers)
    assert (as_numbers[[0, 2], 1] > 0.9).all() and as_numbers[1, 1] < 0.1  # odd stores
    other = pipe[0].transform(test.assign(store_id=["1.0", "four", None]))[:, 0]
    k = pipe[0].n_categories_[0]
    assert other[0] == pipe[0].transform(test)[0, 0]  # "1.0" is 1
    assert other[1] == k  # text that is no number: unseen (code K)


def test_table_7_leaves_out_a_dataset_with_nothing_to_bin(tmp_path, capsys):
    """On car (every column categorical) the 5 / 10 / 20-bin rows were identical."""
    text = pd.DataFrame({"a": list("xyzxyzxyzx") * 6, "b": list("ppqqppqqpp") * 6})
    text["c"] = np.where(np.arange(60) % 3 == 0, "yes", "no")
    text.to_csv(tmp_path / "text.csv", index=False)
    argv = ["bench", str(tmp_path / "text.csv"), "--tables", "7", "--folds", "3"]
    argv += ["--no-cache", "--no-figures"]
    assert main([*argv, "-o", str(tmp_path / "alone")]) == 0
    err = capsys.readouterr().err
    assert "  text: no numeric column to bin; left out of Table 7." in err
    assert "Table 7 skipped: No dataset has a numeric column to bin" in err
    assert main([*argv[:2], "builtin:iris", *argv[2:], "-o", str(tmp_path / "both")]) == 0
    table = pd.read_csv(tmp_path / "both" / "table7_bins.csv")
    assert set(table["datasets"]) == {1} and set(table["n_bins"]) == {5, 10, 20}


def test_the_lazy_engine_names_are_listed_by_dir():
    import heb.scale

    assert set(heb.scale.__all__) <= set(dir(heb.scale))


def test_scores_equal_but_for_float_noise_tie_in_ranks_and_wilcoxon():
    """HEB-H without a hierarchy is HEB-M to 1e-12; the Benchmark ranked them 4.2 and 4.4
    and counted five non-zero Wilcoxon differences of median -0.0000."""
    from heb.stats import friedman, rank_scores, wilcoxon

    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.6, size=(5, 3))
    noisy = np.column_stack([base, base[:, 2] + rng.choice([-1, 1], 5) * 1e-13])
    ranks = rank_scores(noisy, higher_is_better=False)
    np.testing.assert_array_equal(ranks[:, 2], ranks[:, 3])
    assert friedman(noisy, False)["avg_ranks"][2] == friedman(noisy, False)["avg_ranks"][3]
    same = wilcoxon(noisy[:, 2], noisy[:, 3])
    assert (same["n_nonzero"], same["p_value"], same["median_diff"]) == (0, 1.0, 0.0)
    apart = wilcoxon(base[:, 0], base[:, 1])
    assert apart["n_nonzero"] == 5


def test_cross_validate_s_defaults_are_run_settings_defaults():
    """The check that refuses a setting beside ``settings=`` compares with RunSettings'
    defaults: the signature must give the same ones."""
    import inspect
    from dataclasses import fields

    from heb.data.dataset import check_cells

    signature = inspect.signature(cross_validate).parameters
    defaults = {f.name: f.default for f in fields(RunSettings)}
    for name in ("n_splits", "seed", "n_bins", "missing", "max_rows"):
        assert signature[name].default == defaults[name]
    with pytest.raises(TooManyCells):  # the CLI names --engine duckdb by this class
        check_cells(10, 3, max_cells=20)


def test_a_zip_column_read_as_numbers_warns_on_fit():
    """make_model on pd.read_csv silently binned 199 ZIP codes into 10 bins (the app asks
    by the same rule); the Preprocessor now warns and says what to pass."""
    import warnings

    import numpy as np
    import pandas as pd

    from heb.data import Preprocessor

    rng = np.random.default_rng(0)
    zips = rng.choice(np.arange(1000, 99999, 331), 3000)
    frame = pd.DataFrame({"zip": zips, "amount": rng.integers(0, 500, 3000)})
    with pytest.warns(UserWarning, match=r"Column 'zip' holds .* pass categorical=\['zip'\]"):
        Preprocessor().fit(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an amount, a declared zip, few codes: no warning
        Preprocessor(categorical=["zip"]).fit(frame)
        Preprocessor().fit(frame.assign(zip=zips % 50))
        Preprocessor().fit(frame.assign(zip=zips + 0.5))


def test_in_memory_bench_names_the_columns_that_read_as_classes_as_the_engine_does(
    tmp_path, capsys
):
    """A last column of IDs: the in-memory skip named only ``--target``, where the engine's
    one sentence names the columns that read as classes; both now name the same ones."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "region": rng.choice(["n", "s"], n),
            "plan": rng.choice(["a", "b", "c"], n),
            "flag": rng.integers(0, 2, n),
            "amount": rng.random(n),
            "customer_id": [f"C{i:05d}" for i in range(n)],
        }
    )
    path = tmp_path / "customers.csv"
    frame.to_csv(path, index=False)
    named = (
        "the target is the last column unless --target NAME names another, such as "
        "'plan' (text, 3 values), 'region' (text, 2 values) or 'flag' (whole numbers, 2 values)"
    )
    argv = ["bench", str(path), "--folds", "2", "--no-figures", "--no-cache"]
    with pytest.raises(NoUsableData):
        main([*argv, "-o", str(tmp_path / "o")])
    assert f"; {named})" in capsys.readouterr().err
    assert main([*argv, "-o", str(tmp_path / "e"), "--engine", "duckdb"]) == 2
    assert f"; {named}." in capsys.readouterr().err
