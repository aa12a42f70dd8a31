"""``bench --categorical``: numeric codes read as categories, in memory and on the engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.cli import main
from heb.registry import METRICS, TABLE1_METHODS
from heb.scale import DuckDBEngine, cross_validate, open_source
from heb.scale.counting import describe


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 1_200
    zip_code = rng.choice(np.arange(10_000, 10_040), n)
    frame = pd.DataFrame(
        {
            "zip": zip_code.astype("int64"),
            "x": rng.normal(size=n),
            "label": np.where((zip_code % 3 == 0) ^ (rng.random(n) < 0.2), "yes", "no"),
        }
    )
    folder = tmp_path_factory.mktemp("zips")
    path = folder / "zips.parquet"
    frame.to_parquet(path, index=False)
    frame.to_csv(folder / "zips.csv", index=False)
    return path


def _engine_folds(path, categorical):
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source(path, root=path.parent))
        return cross_validate(
            engine, "label", TABLE1_METHODS, n_splits=3, categorical=categorical
        ).folds
    finally:
        engine.close()


def _bench(path, out, *extra) -> pd.DataFrame:
    argv = ["bench", str(path), "--folds", "3", "--tables", "1", "-o", str(out)]
    assert main([*argv, "--no-figures", "--no-cache", *extra]) == 0
    return pd.read_csv(out / "folds.csv")


def test_engine_describe_reads_the_declared_zip_as_categories(zips):
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source(zips, root=zips.parent))
        plain = describe(engine, "label")
        declared = describe(engine, "label", categorical=["zip"])
    finally:
        engine.close()
    assert dict(zip(plain.features, plain.kinds, strict=True))["zip"] == "numeric"
    assert dict(zip(declared.features, declared.kinds, strict=True))["zip"] == "categorical"


def test_bench_engine_passes_categorical(zips, tmp_path):
    with_cat = _bench(zips, tmp_path / "a", "--engine", "duckdb", "--categorical", "zip")
    without = _bench(zips, tmp_path / "b", "--engine", "duckdb")
    expected = _engine_folds(zips, ["zip"])
    plain = _engine_folds(zips, None)
    for metric in METRICS:
        got = with_cat.set_index(["method", "fold"])[metric]
        want = expected.set_index(["method", "fold"])[metric].reindex(got.index)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        got = without.set_index(["method", "fold"])[metric]
        want = plain.set_index(["method", "fold"])[metric].reindex(got.index)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert not np.allclose(with_cat["log_loss"], without["log_loss"])


def test_bench_in_memory_declares_categorical_on_file_paths(zips, tmp_path):
    from heb.cli import declare_categorical
    from heb.data import load_dataset
    from heb.evaluate.folds import encode_columns

    csv = zips.parent / "zips.csv"
    dataset = load_dataset(str(csv))
    assert "zip" not in dataset.categorical
    declared = declare_categorical(dataset, ["zip"])
    assert "zip" in declared.categorical and declared.fingerprint() != dataset.fingerprint()
    with_cat = _bench(csv, tmp_path / "a", "--categorical", "zip")
    without = _bench(csv, tmp_path / "b")
    assert not np.allclose(with_cat["log_loss"], without["log_loss"])
    del encode_columns


def test_a_changed_choice_never_reuses_cached_results(zips, tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["bench", str(zips), "--engine", "duckdb", "--folds", "3", "--tables", "1"]
    assert main([*argv, "-o", str(tmp_path / "a"), "--no-figures"]) == 0
    argv_cat = [*argv, "-o", str(tmp_path / "b"), "--no-figures", "--categorical", "zip"]
    assert main(argv_cat) == 0
    without = pd.read_csv(tmp_path / "a" / "folds.csv")
    with_cat = pd.read_csv(tmp_path / "b" / "folds.csv")
    assert not np.allclose(with_cat["log_loss"], without["log_loss"])


def test_spark_honours_the_declaration(zips, tmp_path):
    """Spark reads the declared ZIP as categories, and its cross-validation then equals the
    in-memory path's with the ZIP declared categorical on Spark's own hash folds."""
    from heb.scale import SparkEngine
    from heb.scale.inmemory import cross_validate_in_memory, fold_assignment
    from tests.peers import require_spark

    require_spark()
    only_zip = tmp_path / "zip_only.parquet"
    rows = pd.read_parquet(zips, columns=["zip", "label"])
    rows.to_parquet(only_zip, index=False)
    methods = ["laplace", "heb-m"]
    engine = SparkEngine(master="local[1]")
    try:
        engine.register(open_source(zips, root=zips.parent))
        declared = describe(engine, "label", categorical=["zip"])
        plain = describe(engine, "label")
        engine.register(open_source(only_zip, root=tmp_path))
        result = cross_validate(engine, "label", methods, n_splits=3, categorical=["zip"])
        folds = fold_assignment(engine, "label", 3, 42)
    finally:
        engine.close()
    assert dict(zip(declared.features, declared.kinds, strict=True))["zip"] == "categorical"
    assert dict(zip(plain.features, plain.kinds, strict=True))["zip"] == "numeric"
    keys = ["method", "fold"]
    got = result.folds.set_index(keys).sort_index()
    want = cross_validate_in_memory(rows, "label", folds, methods, categorical=["zip"])
    binned = cross_validate_in_memory(rows, "label", folds, methods)
    want, binned = want.set_index(keys).sort_index(), binned.set_index(keys).sort_index()
    for metric in METRICS:
        np.testing.assert_allclose(got[metric], want[metric], rtol=0, atol=1e-9)
    assert not np.allclose(got["log_loss"], binned["log_loss"])


def _one_sentence_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("heb: ") and "\n" not in err and "Traceback" not in err
    assert err.endswith(".")
    return err


@pytest.mark.parametrize("engine", [[], ["--engine", "duckdb"]])
def test_bad_categorical_names_are_one_line_errors(zips, tmp_path, capsys, engine):
    path = zips if engine else zips.parent / "zips.csv"
    base = ["bench", str(path), "-o", str(tmp_path / "o"), "--no-figures", "--no-cache", *engine]
    err = _one_sentence_error(capsys, [*base, "--categorical", "zip,nope"])
    assert "'nope'" in err and "'zip'" in err
    err = _one_sentence_error(capsys, [*base, "--categorical", "label"])
    assert "target" in err


def test_engine_folder_with_csv_is_refused(zips, tmp_path, capsys):
    err = _one_sentence_error(
        capsys, ["bench", str(zips.parent), "--engine", "duckdb", "-o", str(tmp_path / "o")]
    )
    assert "CSV" in err and "parquet" in err


def test_engine_line_names_duckdb_properly(zips, tmp_path, capsys):
    _bench(zips, tmp_path / "a", "--engine", "duckdb")
    err = capsys.readouterr().err
    assert "on DuckDB" in err and "on duckdb" not in err


# --------------------------------------------------------------------------- the app
CODES = "codes.parquet"
N_CODES = 300


@pytest.fixture(scope="module")
def code_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("large_root_categorical")
    rng = np.random.default_rng(1)
    n = 400
    zip_code = np.concatenate([rng.permutation(N_CODES), rng.integers(0, N_CODES, n - N_CODES)])
    frame = pd.DataFrame(
        {
            "zip": (20_000 + zip_code).astype("int64"),
            "x": rng.normal(size=n),
            "label": np.where((zip_code % 2 == 0) ^ (rng.random(n) < 0.2), "yes", "no"),
        }
    )
    frame.to_parquet(root / CODES, index=False)
    return root


@pytest.fixture
def rooted(code_root, monkeypatch):
    from heb.scale import DATA_ROOT_ENV

    monkeypatch.setenv(DATA_ROOT_ENV, str(code_root))
    return code_root


def _app(page: str, **query):
    from test_app import assert_clean, open_app

    at = open_app(page, clean=False, large_file=CODES, **query)
    assert_clean(at)
    return at


def _url(at, key):
    from test_app import url

    return url(at, key)


def _texts(elements) -> str:
    from test_app import unescape

    return " ".join(unescape(e.value) for e in elements)


def _kinds(at) -> dict[str, str]:
    frame = next(d.value for d in at.dataframe if "kind" in d.value.columns)
    return dict(zip(frame["feature"], frame["kind"], strict=True))


def test_the_chooser_lists_numeric_features_and_the_code_note_declares(rooted):
    at = _app("pages/dataset.py")
    box = at.multiselect(key=f"large_categorical:{CODES}:label")
    assert box.options == ["zip", "x"] and box.value == []
    assert "ID-like columns are categorical already" in box.help
    assert _kinds(at)["zip"] == "numeric"
    assert "'zip' holds 300 different whole numbers" in _texts(at.info)
    assert _url(at, "large_categorical") is None
    at.button(key="large_code_0").click().run()
    assert _url(at, "large_categorical") == '["zip"]'
    assert _kinds(at)["zip"] == "categorical"
    assert at.multiselect(key=f"large_categorical:{CODES}:label").value == ["zip"]
    box = at.multiselect(key=f"large_categorical:{CODES}:label")
    box.set_value([]).run()
    assert _url(at, "large_categorical") is None and _kinds(at)["zip"] == "numeric"


def test_a_repeated_code_is_noted_when_its_name_says_code(tmp_path, monkeypatch):
    """As in memory: 300 ZIP codes over 3,000 rows (a tenth of the rows) are noted, for
    the name; a shop number of as many values is not (``large_files.code_columns``)."""
    from heb.scale import DATA_ROOT_ENV

    rng = np.random.default_rng(2)
    codes = rng.integers(0, N_CODES, 3_000)
    pd.DataFrame(
        {
            "zip_code": 20_000 + codes,
            "shop": 50_000 + rng.permutation(codes),
            "label": np.where(codes % 2 == 0, "yes", "no"),
        }
    ).to_parquet(tmp_path / "repeated.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    from test_app import assert_clean, open_app

    at = open_app("pages/dataset.py", clean=False, large_file="repeated.parquet")
    assert_clean(at)
    said = _texts(at.info)
    assert "'zip_code' holds 300 different whole numbers" in said and "'shop'" not in said
    at.button(key="large_code_0").click().run()
    assert _kinds(at)["zip_code"] == "categorical" and _kinds(at)["shop"] == "numeric"


def test_the_link_carries_the_choice_to_concentrations_and_compare(rooted):
    at = _app("pages/dataset.py", large_categorical='["zip"]')
    assert at.multiselect(key=f"large_categorical:{CODES}:label").value == ["zip"]
    at.switch_page("pages/concentrations.py")
    at.run()
    assert _url(at, "large_categorical") == '["zip"]'
    shown = next(d.value for d in at.dataframe if "feature name" in d.value.columns)
    k_zip = shown.loc[shown["feature name"] == "zip", "K_f"]
    assert set(k_zip) == {N_CODES}  # every code its own category, not 10 bins
    at.switch_page("pages/compare.py")
    at.run()
    assert _url(at, "large_categorical") == '["zip"]'
    at.button(key="large_go").click().run()
    results = at.session_state["_large_results"].values()
    kept = [r.result for r in results if hasattr(r, "result")]  # a Comparison's result
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source(CODES, rooted))
        from explorer.state import DEFAULT_METHODS

        want = cross_validate(
            engine, "label", DEFAULT_METHODS, n_splits=kept[0].n_splits, categorical=["zip"]
        )
    finally:
        engine.close()
    got = kept[0].folds.set_index(["method", "fold"])["log_loss"]
    np.testing.assert_allclose(got, want.folds.set_index(["method", "fold"])["log_loss"])


def test_a_link_naming_an_absent_column_is_dropped_with_a_note(rooted):
    at = _app("pages/dataset.py", large_categorical='["nope", "zip"]')
    assert "nope" in _texts(at.info) and "left out" in _texts(at.info)
    assert _url(at, "large_categorical") == '["zip"]'


def test_the_sidebar_says_which_data_the_pages_show(rooted):
    at = _app("pages/dataset.py")
    assert f"show the large file {CODES}" in _texts(at.sidebar.caption)


def test_the_cancel_note_names_the_phase():
    from explorer.large_files import cancelled_text

    assert cancelled_text("Fitting and scoring fold 2 of 5").startswith(
        "Cancelled while fitting and scoring fold 2 of 5:"
    )
    assert "counting every row:" in cancelled_text("Counting every row on DuckDB")


def test_the_chooser_leaves_out_number_columns_with_an_id_like_name():
    """site_id ... placement_id were offered, though an ID-like name makes them categorical
    already (the chooser's own help said so)."""
    from explorer.large_files import LargeFile

    large = LargeFile(
        "f.parquet",
        "root",
        "identity",
        "click",
        ("site_id", "zip", "bid_price", "user_hash", "colour", "click"),
        families=("integer", "integer", "float", "integer", "text", "integer"),
    )
    assert large.numeric_features == ["zip", "bid_price"]
