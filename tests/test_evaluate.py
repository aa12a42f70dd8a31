"""The CV protocol: re-smoothed counts equal direct fits, caching, what-if, progress."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

from heb.aode import AODE
from heb.data import Dataset, Preprocessor, encode_target, load_builtin
from heb.data.folds import stratified_folds
from heb.evaluate import (
    FAMILY_ESTIMATORS,
    FOLD_STORE,
    METHODS,
    METRICS,
    TABLE1_METHODS,
    ResultCache,
    benchmark_tables,
    cross_validate,
    method_spec,
    run_benchmark,
)
from heb.metrics import log_loss
from heb.nb import NaiveBayes


@pytest.fixture()
def cache(tmp_path) -> ResultCache:
    return ResultCache(tmp_path / "results")


@pytest.fixture(scope="module")
def small() -> Dataset:
    data = load_builtin("breast-cancer")
    return data


def _direct_oof(dataset: Dataset, make, n_splits=10, seed=42) -> np.ndarray:
    """Reference: preprocess, fit and predict each fold from scratch."""
    y, classes = encode_target(dataset.y)
    oof = np.zeros((y.size, classes.size))
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for train, test in splitter.split(np.zeros(y.size), y):
        pre = Preprocessor(categorical=dataset.categorical)
        codes = pre.fit_transform(dataset.X.iloc[train])
        model = make().partial_fit(codes, y[train], classes=np.arange(classes.size))
        oof[test] = model.predict_proba(pre.transform(dataset.X.iloc[test]))
    return oof


@pytest.mark.parametrize("name", ["Laplace", "TE", "HEB-M", "HEB-M+GR", "HEB-AODE"])
def test_resmoothed_counts_equal_direct_fits(small, cache, name):
    result = cross_validate(small, [name], cache=cache)
    spec = method_spec(name)
    family = NaiveBayes if spec["model"] == "nb" else AODE
    expected = _direct_oof(small, lambda: family(**spec["params"]))
    np.testing.assert_allclose(result.oof_proba[name], expected, rtol=0, atol=1e-12)


def test_folds_frame_and_summary(small, cache):
    result = cross_validate(small, TABLE1_METHODS, cache=cache)
    assert len(result.folds) == 10 * len(TABLE1_METHODS)
    assert set(METRICS) <= set(result.folds.columns)
    assert np.isfinite(result.folds[list(METRICS)].to_numpy()).all()
    summary = result.summary()
    assert list(summary["method"]) == list(TABLE1_METHODS)
    row = summary.set_index("method").loc["HEB-M"]
    folds = result.folds[result.folds["method"] == "HEB-M"]["log_loss"]
    assert row["log_loss_mean"] == pytest.approx(folds.mean())
    assert row["log_loss_std"] == pytest.approx(folds.std(ddof=1))
    # pooled out-of-fold probabilities are complete: every row was a test row once
    for proba in result.oof_proba.values():
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    rel = result.reliability("HEB-M")
    assert rel["count"].sum() == result.y.size


def test_cache_serves_repeat_and_whatif_recomputes_one_method(small, cache):
    first = cross_validate(small, ["Laplace", "Lidstone"], cache=cache)
    assert first.cached == []
    again = cross_validate(small, ["Laplace", "Lidstone"], cache=cache)
    assert again.cached == ["Laplace", "Lidstone"]
    pd.testing.assert_frame_equal(first.folds, again.folds)
    whatif = cross_validate(
        small, ["Laplace", "Lidstone"], params={"Lidstone": {"alpha": 0.7}}, cache=cache
    )
    assert whatif.cached == ["Laplace"]
    a = first.folds.query("method == 'Lidstone'")["log_loss"].to_numpy()
    b = whatif.folds.query("method == 'Lidstone'")["log_loss"].to_numpy()
    assert not np.allclose(a, b)
    # the default alpha spelled out is the same model, hence the same cache entry
    same = cross_validate(small, ["Lidstone"], params={"Lidstone": {"alpha": 0.1}}, cache=cache)
    assert same.cached == ["Lidstone"]


def test_a_stored_run_is_read_whole_or_not_at_all(small, cache):
    """cached_cross_validation: None until every method is stored, then what
    cross_validate gives, read and not recomputed (the app reads it before handing a run
    to a worker)."""
    from heb.evaluate import RunSettings, cached_cross_validation

    settings = RunSettings(overrides={"Lidstone": {"alpha": 0.3}})
    methods = ["Laplace", "Lidstone"]
    assert cached_cross_validation(small, methods, settings=settings, cache=cache) is None
    cross_validate(small, ["Laplace"], settings=settings, cache=cache)
    assert cached_cross_validation(small, methods, settings=settings, cache=cache) is None
    computed = cross_validate(small, methods, settings=settings, cache=cache)
    read = cached_cross_validation(small, methods, settings=settings, cache=cache)
    assert read is not None and read.cached == methods
    pd.testing.assert_frame_equal(read.folds, computed.folds)
    for method in methods:
        np.testing.assert_array_equal(read.oof_proba[method], computed.oof_proba[method])
    np.testing.assert_array_equal(read.y, computed.y)
    np.testing.assert_array_equal(read.classes, computed.classes)
    assert (read.notes, read.n_splits) == (computed.notes, computed.n_splits)
    other = settings.replace(n_bins=4)  # another setting: another entry
    assert cached_cross_validation(small, methods, settings=other, cache=cache) is None


def test_a_run_missing_one_method_reads_no_stored_folds(small, cache, monkeypatch):
    """A what-if value not yet computed: the check looks for each entry and reads none of
    the other methods' stored folds (it read six methods' parquet files for nothing,
    about 0.03 s of every new what-if value on a 20,000-row upload)."""
    from heb.evaluate import RunSettings, cached_cross_validation

    cross_validate(small, ["Laplace", "KT"], cache=cache)
    reads = []
    for name in ("get_frame", "get_arrays"):
        real = getattr(cache, name)
        monkeypatch.setattr(cache, name, lambda key, real=real: reads.append(key) or real(key))
    settings = RunSettings(overrides={"Lidstone": {"alpha": 0.3}})
    methods = ["Laplace", "KT", "Lidstone"]
    assert cached_cross_validation(small, methods, settings=settings, cache=cache) is None
    assert reads == []
    read = cached_cross_validation(small, ["Laplace", "KT"], settings=settings, cache=cache)
    assert read is not None and len(reads) == 4  # a frame and arrays per method


def test_progress_reports_fractions(small, cache):
    seen: list[float] = []
    cross_validate(small, ["Laplace", "KT"], cache=cache, progress=lambda f, msg: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


def test_progress_advances_between_the_methods_of_a_fold(small):
    """Before method s of M in fold i of 10 the fraction is (i - 1 + s / M) / 10."""
    seen: dict[str, float] = {}
    cross_validate(
        small,
        ["Laplace", "KT"],
        use_cache=False,
        progress=lambda fraction, message: seen.setdefault(message, fraction),
    )
    for fold in range(1, 11):
        assert seen[f"Fold {fold} of 10: Laplace"] == pytest.approx((fold - 1) / 10)
        assert seen[f"Fold {fold} of 10: KT"] == pytest.approx((fold - 0.5) / 10)


class _Stop(Exception):
    """Raised by a progress callback to cancel a run."""


@pytest.mark.parametrize(
    "stop_at",
    ["Preparing fold 3 of 10", "Fold 1 of 10: KT", "Fold 4 of 10: HEB-M"],
)
def test_raising_from_progress_cancels_between_folds_and_methods(small, tmp_path, stop_at):
    seen: list[str] = []

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        if message == stop_at:
            raise _Stop

    cache = ResultCache(tmp_path / "results")
    FOLD_STORE.clear()  # folds another test prepared would skip the preparation
    with pytest.raises(_Stop):
        cross_validate(small, ["Laplace", "KT", "HEB-M"], cache=cache, progress=progress)
    assert seen[-1] == stop_at  # nothing was reported (nor run) after the cancelling call
    if stop_at.startswith("Fold"):  # every fitted (fold, method) was reported first
        fold = int(stop_at.split()[1])
        assert seen.count(f"Fold {fold} of 10: Laplace") == 1
        assert f"Fold {fold + 1} of 10: Laplace" not in seen
    root = tmp_path / "results"
    assert not root.exists() or not any(p.is_file() for p in root.rglob("*"))
    # the next run (nothing cancelling) completes and is cached
    done = cross_validate(small, ["Laplace", "KT", "HEB-M"], cache=cache)
    assert done.cached == [] and len(done.folds) == 30


def test_use_cache_false_writes_nothing(small, tmp_path):
    cache = ResultCache(tmp_path / "none")
    cross_validate(small, ["Laplace"], cache=cache, use_cache=False)
    root = tmp_path / "none"
    assert not root.exists() or not any(p.is_file() for p in root.rglob("*"))
    cross_validate(small, ["Laplace"], cache=cache)
    assert any(p.is_file() for p in root.rglob("*"))


def test_unknown_method_is_a_clear_error(small, cache):
    with pytest.raises(ValueError, match="Unknown method"):
        cross_validate(small, ["Laplace", "Magic"], cache=cache)
    with pytest.raises(ValueError, match=r"alpha must lie in \[1e-06, 1000\]"):
        cross_validate(small, ["Lidstone"], params={"Lidstone": {"alpha": -1}}, cache=cache)
    with pytest.raises(ValueError, match="laplace does not use alpha"):
        cross_validate(small, ["Laplace"], params={"Laplace": {"alpha": 0.5}}, cache=cache)


def test_heb_beats_laplace_on_the_high_cardinality_default(cache):
    result = cross_validate(load_builtin(), ["Laplace", "HEB-M"], cache=cache)
    summary = result.summary().set_index("method")
    assert summary.loc["HEB-M", "log_loss_mean"] < summary.loc["Laplace", "log_loss_mean"]
    y = result.y
    assert log_loss(y, result.oof_proba["HEB-M"]) < log_loss(y, result.oof_proba["Laplace"])


def test_benchmark_tables(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    datasets = [load_builtin(name) for name in ("breast-cancer", "iris", "wine")]
    frame = run_benchmark(datasets, ["Laplace", "KT", "HEB-M"], n_splits=3)
    assert set(frame["dataset"]) == {d.name for d in datasets}
    assert len(frame) == 3 * 3 * 3
    tables = benchmark_tables(frame, "log_loss")
    assert tables["scores"].shape == (3, 3)
    ranks = tables["avg_ranks"]
    assert ranks.sum() == pytest.approx(3 * 4 / 2)
    assert 0 <= tables["friedman"]["p_value"] <= 1
    assert tables["pvalues"].shape == (3, 3)
    with pytest.raises(ValueError, match="at least two datasets"):
        benchmark_tables(frame[frame["dataset"] == datasets[0].name], "log_loss")


def test_method_catalogue_is_complete():
    assert set(TABLE1_METHODS) <= set(METHODS)
    for name in METHODS:
        spec = method_spec(name)
        assert spec["model"] in FAMILY_ESTIMATORS


def test_wilcoxon_table_against_a_reference():
    from scipy.stats import wilcoxon as scipy_wilcoxon

    from heb.evaluate import wilcoxon_table

    rng = np.random.default_rng(3)
    scores = pd.DataFrame(rng.random((12, 3)), columns=["HEB-M", "Laplace", "KT"])
    table = wilcoxon_table(scores, "HEB-M")
    assert list(table["against"]) == ["Laplace", "KT"]
    expected = scipy_wilcoxon(scores["HEB-M"], scores["Laplace"], zero_method="wilcox")
    assert table.loc[0, "p_value"] == pytest.approx(expected.pvalue, abs=1e-12)
    # Holm: the smaller p is doubled, the larger kept, both at least the raw p
    assert (table["holm_p"] >= table["p_value"] - 1e-15).all()
    assert table["holm_p"].min() == pytest.approx(min(1.0, 2 * table["p_value"].min()))
    with pytest.raises(ValueError, match="not among"):
        wilcoxon_table(scores, "AODE")


def test_an_unwritable_cache_warns_and_still_returns_results(small, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.warns(UserWarning, match="not cached"):
        result = cross_validate(small, ["Laplace"], cache=ResultCache(blocker / "results"))
    assert len(result.folds) == 10


# ------------------------------------------------------------------ settings and folds
def test_run_settings_round_trip_through_the_url_and_key_the_cache():
    from heb.evaluate import RunSettings

    settings = RunSettings(
        dataset="builtin:iris",
        n_bins=5,
        missing="category",
        max_rows=0,
        n_splits=4,
        seed=7,
        overrides={"TE": {"k0": 3}, "Lidstone": {"alpha": 0.25}},
    )
    assert settings.max_rows is None  # 0 means every row
    query = settings.to_query()
    assert all(isinstance(v, str) for v in query.values())
    assert query["params"] == "Lidstone:alpha=0.25;TE:k0=3.0"
    back = RunSettings.from_query(query)
    assert back == settings and back.key() == settings.key()
    # the order of the overrides does not matter; any setting does
    same = settings.replace(overrides={"Lidstone": {"alpha": 0.25}, "TE": {"k0": 3.0}})
    assert same.key() == settings.key()
    for change in ({"n_bins": 6}, {"seed": 8}, {"missing": "impute"}, {"max_rows": 100}):
        assert settings.replace(**change).key() != settings.key()
        assert settings.replace(**change).data_key() != settings.data_key()
    # overrides change the run's key but not the prepared folds' or another method's
    other = settings.replace(overrides={"TE": {"k0": 9.0}})
    assert other.key() != settings.key() and other.data_key() == settings.data_key()
    assert other.method_key("HEB-M") == settings.method_key("HEB-M")
    # the fingerprint, when known, identifies the data instead of the spec
    a = settings.replace(fingerprint="f" * 64)
    assert a.data_key() == a.replace(dataset="builtin:wine").data_key()
    assert "fingerprint" not in a.to_query()


@pytest.mark.parametrize(
    "query, message",
    [
        ({"n_bins": "1"}, "n_bins must be a whole number of at least 2"),
        ({"folds": "ten"}, "n_splits must be a whole number"),
        ({"seed": "-1"}, "seed must be a whole number of at least 0"),
        ({"missing": "drop"}, "missing must be one of impute, category"),
        ({"max_rows": "2.5"}, "max_rows must be a whole number"),
        ({"params": "Lidstone-alpha"}, "must read 'Method:name=value'"),
        ({"params": "Lidstone:alpha=big"}, "Lidstone: alpha must be a number"),
    ],
)
def test_run_settings_refuse_bad_url_values(query, message):
    from heb.evaluate import RunSettings

    with pytest.raises(ValueError, match=message):
        RunSettings.from_query(query)


def test_cross_validate_takes_the_settings_object(small, cache):
    from heb.evaluate import RunSettings

    settings = RunSettings(n_splits=3, overrides={"Lidstone": {"alpha": 0.5}})
    by_object = cross_validate(small, ["Lidstone"], settings=settings, cache=cache)
    by_words = cross_validate(
        small, ["Lidstone"], n_splits=3, params={"Lidstone": {"alpha": 0.5}}, cache=cache
    )
    assert by_words.cached == ["Lidstone"]  # the same run, so the same cache entry
    np.testing.assert_array_equal(by_object.oof_proba["Lidstone"], by_words.oof_proba["Lidstone"])
    with pytest.raises(ValueError, match="not both"):
        cross_validate(small, ["Lidstone"], settings=settings, params={}, cache=cache)


def _prepared(n_rows: int):
    from heb.evaluate import PreparedFolds

    return PreparedFolds(np.zeros(n_rows, dtype=np.int64), np.arange(2), 2, (), ())


def test_fold_store_is_bounded_by_entries_and_bytes():
    from heb.evaluate import FoldStore

    store = FoldStore(max_entries=2, max_bytes=8 * 250)
    store.put("a", _prepared(100))
    store.put("b", _prepared(100))
    assert store.get("a") is not None  # a is now the most recently used
    store.put("c", _prepared(10))
    assert store.get("b") is None and len(store) == 2  # b went first
    store.put("d", _prepared(200))  # 1,600 bytes: a (800) must go too
    assert store.get("a") is None and store.get("d") is not None
    assert store.nbytes <= 8 * 250
    store.put("huge", _prepared(1000))  # larger than the whole store: not kept
    assert store.get("huge") is None and store.nbytes <= 8 * 250
    with pytest.raises(ValueError, match="at least one"):
        FoldStore(max_entries=0)


def test_fold_store_is_safe_under_threads():
    import threading

    from heb.evaluate import FoldStore

    store = FoldStore(max_entries=3, max_bytes=10**6)
    errors = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(300):
                key = f"k{rng.integers(0, 6)}"
                found = store.get_or_build(key, lambda: _prepared(int(rng.integers(1, 50))))
                assert found.y.size >= 1
        except Exception as exc:  # noqa: BLE001 -- collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store) <= 3
    with store._lock:  # the byte count matches what is held
        assert store._bytes == sum(p.nbytes for p in store._entries.values())


def test_an_unwritable_cache_costs_a_warning_not_the_run(small, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.warns(UserWarning, match="Results not cached"):
        result = cross_validate(
            small, ["Laplace"], n_splits=3, cache=ResultCache(blocker / "results")
        )
    assert len(result.folds) == 3 and result.cached == []


@hypothesis_settings(max_examples=200, deadline=None)
@given(
    shares=st.lists(st.integers(1, 40), min_size=1, max_size=6),
    order_seed=st.integers(0, 2**32 - 1),
    n_splits=st.integers(2, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_stratified_folds_are_scikit_learns(shares, order_seed, n_splits, seed):
    """Each fold's train and test rows (and their dtype) are StratifiedKFold's, shuffled,
    classes appearing in any order; the same refusal when no class has enough rows."""
    y = np.random.default_rng(order_seed).permutation(np.repeat(np.arange(len(shares)), shares))
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn's "least populated class"
        try:
            expected = list(splitter.split(np.zeros(y.size), y))
        except ValueError:
            with pytest.raises(ValueError, match="cannot be greater than the number of members"):
                stratified_folds(y, n_splits, seed)
            return
    folds = stratified_folds(y, n_splits, seed)
    assert len(folds) == len(expected) == n_splits
    for (train, test), (train_sk, test_sk) in zip(folds, expected, strict=True):
        assert train.dtype == train_sk.dtype and test.dtype == test_sk.dtype
        np.testing.assert_array_equal(train, train_sk)
        np.testing.assert_array_equal(test, test_sk)


def test_stratified_folds_refuse_a_class_code_without_rows():
    with pytest.raises(ValueError, match="Every class code"):
        stratified_folds(np.array([0, 0, 2, 2]), 2, 0)


def test_a_fit_times_spread_takes_its_means_decimals():
    """The CLI's summary read "12.1 ± 3.99" and "27.7 ± 0.423": mean and sd now share the
    mean's decimals (three significant digits of the mean)."""
    import pandas as pd

    from heb.evaluate.paper import summary_markdown

    summary = pd.DataFrame(
        {"dataset": ["d", "d"], "method": ["Laplace", "HEB-M"], "fit_time_mean": [0.0121, 0.0277],
         "fit_time_sd": [0.00399, 0.000423], "folds": [10, 10]}
    )  # fmt: skip
    text = summary_markdown(summary)
    assert "12.1 ± 4.0" in text and "27.7 ± 0.4" in text
