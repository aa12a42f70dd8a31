"""Mutation-testing gaps in the evaluation package, ``heb.stats`` and ``heb.metrics``
(session 33b): each test kills one hand-made mutant the suite let survive."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb import metrics, registry
from heb.data import subsample_rows
from heb.data.dataset import finalize
from heb.data.folds import stratified_folds
from heb.evaluate import ResultCache, RunSettings, cross_validate
from heb.evaluate import cache as cache_module
from heb.evaluate.cv import cached_cross_validation, method_spec
from heb.evaluate.folds import FoldStore, PreparedFolds, evaluated_subsample, prepare_folds
from heb.evaluate.keys import cache_key, source_revision
from heb.stats import nemenyi_cd, rank_scores, wilcoxon


# ---------------------------------------------------------------- keys
def test_non_finite_floats_hash_apart():
    """Kills keys.py ``{"__float__": repr(obj)}`` as one fixed marker: inf, -inf and NaN
    (a setting such as an unbounded parameter) shared one cache key."""
    keys = {cache_key(float("inf")), cache_key(float("-inf")), cache_key(float("nan"))}
    assert len(keys) == 3
    assert cache_key(float("nan")) == cache_key(float("nan"))


def test_a_set_hashes_alike_in_any_iteration_order():
    """Kills keys.py's set branch without ``sorted``: {1, 9} and {9, 1} (same members,
    different iteration order after a hash collision) gave two keys."""
    assert list({1, 9}) != list({9, 1})  # the premise: the orders differ
    assert cache_key({1, 9}) == cache_key({9, 1})
    assert cache_key(frozenset([9, 1])) == cache_key({1, 9})


def test_a_series_name_is_part_of_its_key():
    """Kills keys.py's Series description without ``obj.name``: two series of the same
    values under different names (two different columns) shared a key."""
    values = [1, 2, 3]
    assert cache_key(pd.Series(values, name="a")) != cache_key(pd.Series(values, name="b"))
    assert cache_key(pd.Series(values, name="a")) == cache_key(pd.Series(values, name="a"))


def test_an_object_array_shape_is_part_of_its_key():
    """Kills keys.py's object-array description without its shape: the same labels as a
    column (2, 1) and as a row (1, 2) shared a key."""
    labels = np.array(["a", "b"], dtype=object)
    assert cache_key(labels.reshape(2, 1)) != cache_key(labels.reshape(1, 2))
    assert cache_key(labels.reshape(2, 1)) == cache_key(labels.copy().reshape(2, 1))


def test_moving_code_to_another_module_changes_the_revision(tmp_path):
    """Kills keys.py ``source_revision`` without the file's path in the digest: the same
    code moved from one engine module to another (a different module now computes the
    numbers) kept every stored result."""
    first, second = tmp_path / "one", tmp_path / "two"
    for package, name in ((first, "smoothing.py"), (second, "metrics.py")):
        package.mkdir()
        (package / name).write_text("ALPHA = 1\n", encoding="utf-8")
    assert source_revision(first) != source_revision(second)
    (second / "metrics.py").rename(second / "smoothing.py")
    assert source_revision(first) == source_revision(second)


# ---------------------------------------------------------------- cache
def test_an_entry_one_byte_over_the_limit_is_neither_read_nor_written(tmp_path, monkeypatch):
    """Kills cache.py's read check ``len(blob) > max_entry_bytes`` loosened by one byte
    and the write check ``size > max_entry_bytes`` loosened: the limit is exact, an entry
    of the limit's size is kept and one byte more is refused both ways."""
    monkeypatch.setattr(cache_module.time, "time", lambda: 1.5)  # a footer of fixed length
    frame = pd.DataFrame({"x": np.arange(50.0)})
    ResultCache(tmp_path).put_frame("k", frame)
    size = (tmp_path / "k.frame.hebc").stat().st_size
    exact = ResultCache(tmp_path, max_entry_bytes=size)
    pd.testing.assert_frame_equal(exact.get_frame("k"), frame)
    exact.put_frame("k", frame)  # an entry of exactly the limit is written
    tight = ResultCache(tmp_path, max_entry_bytes=size - 1)
    with pytest.raises(OSError, match="exceeds the cache's limit"):
        tight.put_frame("k", frame)
    assert tight.get_frame("k") is None  # read: one byte over is a miss ...
    assert not (tmp_path / "k.frame.hebc").exists()  # ... and the entry is dropped


# ---------------------------------------------------------------- cv
def _small(seed: int = 3, n: int = 60):
    """A small two-class table with one categorical and one numeric column."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.normal(size=n),
            "label": rng.choice(["yes", "no"], n),
        }
    )
    return finalize(frame, "label", name=f"small{seed}", source="test", declared=["colour"])


RUN = RunSettings(n_splits=3, max_rows=None, n_bins=3)


def test_a_cached_method_is_named_as_asked_not_as_stored(tmp_path):
    """Kills cv.py ``frame.assign(method=name)`` dropped from ``_cached_results``: a
    registered method fitting the same model as another (same spec, same cache key) was
    served with the other's name in its ``method`` column."""
    registry.register_method(
        registry.Method("Laplace-twin", "nb", {"smoother": "laplace"}, "#000000", "twin")
    )
    try:
        cache, data = ResultCache(tmp_path), _small()
        first = cross_validate(data, ["Laplace"], settings=RUN, cache=cache)
        twin = cross_validate(data, ["Laplace-twin"], settings=RUN, cache=cache)
    finally:
        registry.unregister("method", "Laplace-twin")
    assert twin.cached == ["Laplace-twin"]  # the premise: served from Laplace's entry
    assert set(twin.folds["method"]) == {"Laplace-twin"}
    assert twin.summary()["method"].tolist() == ["Laplace-twin"]
    np.testing.assert_array_equal(twin.proba("Laplace-twin"), first.proba("Laplace"))


def test_a_cached_run_reports_the_folds_actually_used(tmp_path):
    """Kills cv.py's stored ``"n_splits": prepared.n_splits`` as ``settings.n_splits``: a
    run whose largest class allowed only 4 of the 10 folds asked for said 10-fold once it
    was read back from the cache."""
    frame = pd.DataFrame({"colour": list("rgbrgbrg"), "label": ["yes", "no"] * 4})
    data = finalize(frame, "label", name="tiny", source="test", declared=["colour"])
    run, cache = RunSettings(n_splits=10, max_rows=None), ResultCache(tmp_path)
    fresh = cross_validate(data, ["Laplace"], settings=run, cache=cache)
    again = cross_validate(data, ["Laplace"], settings=run, cache=cache)
    stored = cached_cross_validation(data, ["Laplace"], settings=run, cache=cache)
    assert again.cached == ["Laplace"]
    assert fresh.n_splits == again.n_splits == stored.n_splits == 4
    assert again.folds["fold"].nunique() == 4


def test_a_method_whose_stored_arrays_are_gone_makes_the_cached_read_a_miss(tmp_path):
    """Kills cv.py's ``if len(frames) < len(methods): return None`` dropped from
    ``cached_cross_validation``: a method whose fold frame is stored but whose
    out-of-fold arrays are not (deleted, corrupt) raised a KeyError instead of a miss."""
    cache, data = ResultCache(tmp_path), _small()
    cross_validate(data, ["Laplace", "KT"], settings=RUN, cache=cache)
    assert cached_cross_validation(data, ["Laplace", "KT"], settings=RUN, cache=cache)
    arrays = sorted(tmp_path.glob("*.arrays.hebc"))
    assert len(arrays) == 2  # one per method
    arrays[0].unlink()  # its fold frame stays
    assert cached_cross_validation(data, ["Laplace", "KT"], settings=RUN, cache=cache) is None


def test_a_cached_run_keeps_numeric_class_labels(tmp_path):
    """Kills cv.py ``_cached_labels``' ``len(classes) != len(meta["classes"])`` as ``==``:
    a run read back from the cache gave the stored text labels ('0', '1') instead of the
    dataset's own classes (0, 1)."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"colour": rng.choice(list("rgb"), 40), "label": [0, 1] * 20})
    data = finalize(frame, "label", name="ints", source="test", declared=["colour"])
    cache = ResultCache(tmp_path)
    fresh = cross_validate(data, ["Laplace"], settings=RUN, cache=cache)
    again = cross_validate(data, ["Laplace"], settings=RUN, cache=cache)
    assert again.cached == ["Laplace"]
    assert fresh.classes.tolist() == again.classes.tolist() == [0, 1]
    assert again.classes.dtype.kind == fresh.classes.dtype.kind == "i"


def test_the_data_notes_come_before_the_methods_notes_in_a_cached_run(tmp_path):
    """Kills cv.py ``_result``'s ``[*meta["notes"], *notes]`` reversed: the subsample's
    note must lead, then HEB-H's 'no hierarchy' note, fresh or cached alike."""
    cache, run = ResultCache(tmp_path), RUN.replace(max_rows=40)
    for _ in range(2):  # computed, then read from the cache
        notes = cross_validate(_small(), ["HEB-H"], settings=run, cache=cache).notes
        assert len(notes) == 2
        assert notes[0].startswith("Used a stratified subsample of 40 of 60 rows")
        assert notes[1].startswith("HEB-H was given no category hierarchy")


def test_an_override_wins_over_the_methods_own_parameter():
    """Kills cv.py ``method_spec``'s ``{**entry.params, **overrides}`` reversed: an
    override of a parameter the method sets itself (AODE's smoother) was ignored."""
    assert method_spec("AODE", {"smoother": "heb"}) == method_spec("HEB-AODE")
    assert method_spec("Laplace+GR", {"weighting": "none"})["params"]["weighting"] == "none"


def test_the_subsample_is_the_documented_seed_42_one():
    """Kills folds.py ``SUBSAMPLE_SEED = 42`` changed: ``max_rows`` keeps the stratified
    subsample of seed 42 (as documented), so a stored run and its rows stay the same."""
    data = _small(n=60)
    expected = subsample_rows(data.y, max_rows=40, seed=42)
    np.testing.assert_array_equal(evaluated_subsample(data, 40), expected)
    assert not np.array_equal(expected, subsample_rows(data.y, max_rows=40, seed=7))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_folds_follow_the_runs_seed(seed):
    """Kills folds.py ``stratified_folds(y, k, settings.seed)`` with a fixed seed: the
    run's seed must choose the shuffled folds (StratifiedKFold's, as documented)."""
    prepared = prepare_folds(_small(), RUN.replace(seed=seed))
    expected = stratified_folds(prepared.y, prepared.n_splits, seed)
    assert len(prepared.folds) == len(expected) == 3
    for fold, (_, test) in zip(prepared.folds, expected, strict=True):
        np.testing.assert_array_equal(np.sort(fold.test_index), np.sort(test))


# ---------------------------------------------------------------- settings
def test_declared_hierarchies_change_the_run_key():
    """Kills settings.py ``key()`` without the hierarchies: a run with a declared
    hierarchy shared its key with the same run without one."""
    plain = RunSettings(dataset="builtin:x")
    declared = plain.replace(hierarchies='[{"feature":"zip","prefix":[3,1]}]')
    assert declared.key() != plain.key()
    assert declared.data_key() == plain.data_key()  # the folds do not depend on it


def test_overrides_compare_equal_in_any_order_and_empty_ones_vanish():
    """Kills settings.py ``_freeze`` without ``sorted`` (of the methods, or of one
    method's parameters) and with ``if pairs:`` dropped: settings that mean the same run
    must be equal and share a key."""
    one = RunSettings(overrides={"TE": {"k0": 3}, "Lidstone": {"alpha": 0.5}})
    other = RunSettings(overrides={"Lidstone": {"alpha": 0.5}, "TE": {"k0": 3}})
    assert one == other and one.key() == other.key()
    forward = RunSettings(overrides={"Lidstone": {"alpha": 0.5, "beta": 2}})
    backward = RunSettings(overrides={"Lidstone": {"beta": 2, "alpha": 0.5}})
    assert forward == backward
    assert RunSettings(overrides={"Lidstone": {}}) == RunSettings()


def test_max_rows_zero_reads_as_every_row():
    """Kills settings.py ``_whole(max_rows) or None`` without ``or None``: 0 (the URL's
    'every row') gave settings, and a key, unequal to ``max_rows=None``."""
    assert RunSettings(max_rows=0).max_rows is None
    assert RunSettings(max_rows=0) == RunSettings(max_rows=None)
    assert RunSettings(max_rows=0).data_key() == RunSettings(max_rows=None).data_key()


# ---------------------------------------------------------------- fold store
def _prepared(n_rows: int) -> PreparedFolds:
    """Prepared folds holding ``8 * n_rows`` bytes."""
    return PreparedFolds(np.zeros(n_rows, dtype=np.int64), np.arange(2), 2, (), ())


def test_the_fold_store_keeps_a_run_of_exactly_its_byte_bound():
    """Kills folds.py ``if size > self.max_bytes: return`` as ``>=``: a run of exactly the
    store's byte bound fits and is kept."""
    store = FoldStore(max_entries=2, max_bytes=800)
    store.put("fits", _prepared(100))
    assert store.get("fits") is not None and store.nbytes == 800
    store.put("over", _prepared(101))
    assert store.get("over") is None and store.get("fits") is not None


def test_get_or_build_builds_once_and_clear_forgets_the_bytes():
    """Kills folds.py ``get_or_build`` without ``self.put`` (every what-if re-prepared the
    folds) and ``clear`` without ``self._bytes = 0`` (a cleared store counted bytes it
    no longer held and then refused runs that fit)."""
    store, built = FoldStore(max_entries=2, max_bytes=800), []

    def build() -> PreparedFolds:
        built.append(1)
        return _prepared(100)

    first = store.get_or_build("k", build)
    assert store.get_or_build("k", build) is first and len(built) == 1
    store.clear()
    assert len(store) == 0 and store.nbytes == 0
    store.put("again", _prepared(100))
    assert store.get("again") is not None and store.nbytes == 800


# ---------------------------------------------------------------- stats
def test_floating_noise_of_1e12_ties_but_1e8_does_not():
    """Kills stats.py ``SCORE_DECIMALS = 10`` raised (to 14): two fits of one model that
    differ by 1e-12 of round-off were ranked apart and counted as a Wilcoxon difference."""
    noisy = np.array([[0.8, 0.8 + 1e-12], [0.7 - 1e-12, 0.7]])
    np.testing.assert_array_equal(rank_scores(noisy, True), [[1.5, 1.5], [1.5, 1.5]])
    assert wilcoxon(noisy[:, 0], noisy[:, 1])["n_nonzero"] == 0
    apart = np.array([[0.8, 0.8 + 1e-8]])
    np.testing.assert_array_equal(rank_scores(apart, True), [[2.0, 1.0]])


def test_a_boolean_is_not_a_dataset_count():
    """Kills stats.py ``_check_count`` without its ``isinstance(value, bool)`` refusal:
    ``nemenyi_cd(3, True)`` passed as one dataset."""
    with pytest.raises(ValueError, match="n_datasets must be an integer"):
        nemenyi_cd(3, True)
    assert nemenyi_cd(3, 1) == pytest.approx(2.343 * np.sqrt(3 * 4 / 6.0), abs=1e-3)


# ---------------------------------------------------------------- metrics
def test_a_probability_above_one_is_refused_even_when_its_row_sums_to_one():
    """Kills metrics.py's range check without ``high > 1 + _RANGE_TOL``: the row
    (1 + 5e-7, 0) sums to 1 within round-off, but its first value is no probability."""
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metrics.all_metrics(np.array([0]), np.array([[1.0 + 5e-7, 0.0]]))


def test_reliability_from_no_rows_is_refused_not_nan():
    """Kills metrics.py ``reliability_from_sums`` without its ``total <= 0`` refusal: bins
    holding no row gave an ECE of 0 / 0 (NaN) instead of a ValueError."""
    edges, empty = np.linspace(0.0, 1.0, 4), np.zeros(3)
    with pytest.raises(ValueError, match="at least one row"):
        metrics.reliability_from_sums(edges, empty, empty, empty)


def test_confusion_counts_are_true_rows_by_predicted_columns():
    """Kills metrics.py ``confusion_counts`` transposed (``pred * C + y``): rows are the
    true class, columns the predicted one (hand-counted)."""
    y = np.array([0, 0, 0, 1])
    proba = np.array([[0.1, 0.9], [0.2, 0.8], [0.7, 0.3], [0.4, 0.6]])  # predicted 1, 1, 0, 1
    np.testing.assert_array_equal(metrics.confusion_counts(y, proba), [[1, 2], [0, 1]])


def test_per_class_checks_refuse_a_negative_class_index():
    """Kills metrics.py ``check_rows`` without ``y.min() < 0``: class index -1 was taken
    (one-vs-rest reliability then silently never saw that row's class)."""
    proba = np.array([[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match=r"0\.\.C-1"):
        metrics.class_reliability(np.array([-1, 1]), proba)
