"""Mutation-testing gaps left open by the session-33b pass over the result cache, its keys
and the benchmark tables: each test kills one hand-made mutant the suite let survive."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heb.evaluate import ResultCache
from heb.evaluate import cache as cache_module
from heb.evaluate.cache import KINDS, cached_frame
from heb.evaluate.keys import cache_key, source_revision
from heb.evaluate.tables import benchmark_tables
from heb.stats import nemenyi_cd

KEY = "entry-1"


def _entry(cache: ResultCache, kind: str, key: str = KEY) -> Path:
    return cache.root / f"{key}{KINDS[kind]}"


# ---------------------------------------------------------------- the cache's reads
def test_an_entry_renamed_to_another_kind_is_a_miss_even_for_its_meta(tmp_path):
    """Kills cache.py's footer kind check dropped: a JSON entry moved to the frame's file
    name decodes as nothing, but ``meta`` reads no payload and returned its footer's {}."""
    cache = ResultCache(tmp_path)
    cache.put_json(KEY, {"a": 1})
    os.replace(_entry(cache, "json"), _entry(cache, "frame"))
    assert cache.meta(KEY, "frame") is None
    assert not _entry(cache, "frame").exists()  # a foreign entry is discarded


def test_a_damaged_end_marker_is_a_miss_and_the_entry_goes(tmp_path):
    """Kills cache.py's end-marker check dropped: a file whose last byte changed still held
    an intact footer and payload, and was served."""
    cache = ResultCache(tmp_path)
    cache.put_json(KEY, [1, 2, 3])
    path = _entry(cache, "json")
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 0xFF
    path.write_bytes(bytes(blob))
    assert cache.get_json(KEY) is None
    assert not path.exists()


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="the platform has no O_NOFOLLOW")
def test_an_entry_that_is_a_symlink_is_not_followed(tmp_path):
    """Kills cache.py's ``O_NOFOLLOW`` dropped: a link planted under an entry's name made
    the cache read (and trust) a file elsewhere. The link's target is left alone."""
    elsewhere = ResultCache(tmp_path / "elsewhere")
    elsewhere.put_json(KEY, {"planted": True})
    cache = ResultCache(tmp_path / "cache")
    cache.root.mkdir()
    _entry(cache, "json").symlink_to(_entry(elsewhere, "json"))
    assert cache.get_json(KEY) is None
    assert elsewhere.get_json(KEY) == {"planted": True}


def test_a_bad_entry_replaced_meanwhile_by_a_writer_is_kept(tmp_path, monkeypatch):
    """Kills cache.py's ``_discard`` without the identity test: a reader that found a
    damaged entry deleted the good one another writer had just renamed over it."""
    cache = ResultCache(tmp_path)
    cache.put_json(KEY, "old")
    real_unwrap = cache_module._unwrap

    def damaged_then_replaced(blob, kind, key):
        writer = ResultCache(tmp_path)
        writer.put_json(KEY, "new")  # lands between this read and its discard
        raise cache_module._CorruptEntry("checksum mismatch")

    monkeypatch.setattr(cache_module, "_unwrap", damaged_then_replaced)
    assert cache.get_json(KEY) is None
    monkeypatch.setattr(cache_module, "_unwrap", real_unwrap)
    assert cache.get_json(KEY) == "new"


def test_an_intact_but_undecodable_entry_is_deleted(tmp_path):
    """Kills cache.py's undecodable entry kept: an entry whose checksum holds but whose
    payload no longer decodes (another library version) must go, not fail every read."""
    cache = ResultCache(tmp_path)
    cache._write(KEY, "json", b"\xff not json", None)
    assert _entry(cache, "json").exists()
    assert cache.get_json(KEY) is None
    assert not _entry(cache, "json").exists()


@pytest.mark.parametrize("key", ["../escape", "", "a" * 201, 42, None])
def test_membership_of_a_key_the_cache_cannot_hold_is_false(tmp_path, key):
    """Kills cache.py's ``__contains__`` without its own key check (then ``_path``
    raised ValueError for a key it cannot name)."""
    assert (key in ResultCache(tmp_path)) is False


# ---------------------------------------------------------------- the cache's writes
def test_an_array_name_with_a_slash_is_refused(tmp_path):
    """Kills cache.py's array-name check without ``"/"``: a name with a slash becomes a
    folder inside the archive, and the array came back under another name."""
    with pytest.raises(ValueError, match="without '/'"):
        ResultCache(tmp_path).put_arrays(KEY, {"a/b": np.arange(3)})
    assert not (tmp_path / f"{KEY}{KINDS['arrays']}").exists()


def test_put_json_refuses_an_object_array(tmp_path):
    """Kills cache.py's JSON encoder without its object-array check: ``tolist`` of an
    object array let arbitrary objects reach the encoder's fallbacks."""
    with pytest.raises(TypeError, match="object array"):
        ResultCache(tmp_path).put_json(KEY, {"x": np.array([{"a": 1}], dtype=object)})


def test_cached_frame_refuses_a_computation_that_is_not_a_frame(tmp_path):
    """Kills ``cached_frame`` without its type check: a list was handed to the parquet
    writer (a confusing error) instead of a sentence; nothing is stored."""
    cache = ResultCache(tmp_path)
    with pytest.raises(TypeError, match="must return a pandas DataFrame"):
        cached_frame(KEY, lambda: [1, 2], cache)
    assert KEY not in cache


# ---------------------------------------------------------------- keys
def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_editing_the_scale_layer_changes_the_revision_and_a_figure_does_not(tmp_path):
    """Kills keys.py's ``scale/*.py`` dropped from NUMERIC_SOURCES: the large-data path
    produces stored numbers, so its edits must be a cache miss; a figure's must not."""
    files = {"nb.py": "x = 1\n", "scale/cv.py": "y = 2\n", "figures/plot.py": "z = 3\n"}
    before = source_revision(_package(tmp_path / "a", files))
    scaled = source_revision(_package(tmp_path / "b", {**files, "scale/cv.py": "y = 3\n"}))
    drawn = source_revision(_package(tmp_path / "c", {**files, "figures/plot.py": "z = 4\n"}))
    assert scaled != before
    assert drawn == before


def test_pandas_missing_markers_hash_apart():
    """Kills keys.py's missing-value branch as one fixed marker: pd.NA and pd.NaT (a
    missing category and a missing date) shared one key."""
    assert cache_key(pd.NA) != cache_key(pd.NaT)
    assert cache_key(pd.NA) == cache_key(pd.NA)


# ---------------------------------------------------------------- benchmark tables
def _folds(values: dict[str, dict[str, float]], metric: str) -> pd.DataFrame:
    rows = [
        {"dataset": d, "method": m, "fold": 0, metric: v}
        for d, by_method in values.items()
        for m, v in by_method.items()
    ]
    return pd.DataFrame(rows)


def test_fit_time_ranks_the_fastest_first():
    """Kills tables.py reading ``fit_time`` as higher-is-better: the slowest method got
    rank 1 in Table 8's ranks."""
    frame = _folds(
        {f"d{i}": {"fast": 0.01 * (i + 1), "slow": 1.0 + i, "mid": 0.5} for i in range(4)},
        "fit_time",
    )
    ranks = benchmark_tables(frame, "fit_time")["avg_ranks"]
    assert ranks.to_dict() == {"fast": 1.0, "mid": 2.0, "slow": 3.0}


def test_the_critical_difference_follows_alpha():
    """Kills tables.py calling ``nemenyi_cd`` without ``alpha``: a benchmark asked at
    0.10 drew the 0.05 critical difference."""
    rng = np.random.default_rng(0)
    frame = _folds(
        {f"d{i}": {m: float(rng.random()) for m in ("A", "B", "C")} for i in range(6)},
        "accuracy",
    )
    loose = benchmark_tables(frame, "accuracy", alpha=0.10)["cd"]
    assert loose == pytest.approx(nemenyi_cd(3, 6, alpha=0.10))
    assert loose < benchmark_tables(frame, "accuracy")["cd"]


def test_a_dataset_a_method_missed_is_left_out_not_scored_zero():
    """Kills tables.py's ``dropna`` as ``fillna(0)``: a method that did not run on one
    dataset was ranked there with accuracy 0."""
    values = {f"d{i}": {"A": 0.8, "B": 0.7} for i in range(3)}
    values["d3"] = {"A": 0.9}  # B failed on d3
    tables = benchmark_tables(_folds(values, "accuracy"), "accuracy")
    assert list(tables["scores"].index) == ["d0", "d1", "d2"]
    assert tables["avg_ranks"].to_dict() == {"A": 1.0, "B": 2.0}
