"""Tests of heb.evaluate.cache: keys, round trips, corruption detection, concurrent writers."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import heb
from heb.evaluate import cache as cache_module
from heb.evaluate.cache import KINDS, ResultCache, cache_key, cached_frame


@pytest.fixture
def store(tmp_path: Path) -> ResultCache:
    return ResultCache(tmp_path / "results")


def example_frame(n: int = 50) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "method": np.array(["Laplace", "HEB-M"])[rng.integers(0, 2, n)],
            "fold": np.arange(n),
            "accuracy": rng.random(n),
            "converged": rng.random(n) > 0.5,
        }
    )


# ----------------------------------------------------------------------- keys
def test_key_is_sha256_hex_and_stable():
    key = cache_key("cv", {"smoother": "heb-m", "n_bins": 10}, np.arange(5))
    assert len(key) == 64 and all(c in "0123456789abcdef" for c in key)
    assert key == cache_key("cv", {"n_bins": 10, "smoother": "heb-m"}, np.arange(5))


def test_key_converts_numpy_scalars_to_python_numbers():
    assert cache_key({"a": np.float64(0.5), "b": np.int32(3)}) == cache_key({"a": 0.5, "b": 3})
    assert cache_key(True) != cache_key(1)


def test_key_changes_with_any_setting():
    base = {"smoother": "heb-m", "n_bins": 10, "seed": 42, "weights": [1.0, 2.0]}
    reference = cache_key("cv", base)
    for name, other in [
        ("smoother", "heb-u"),
        ("n_bins", 11),
        ("seed", 43),
        ("weights", [1.0, 2.0000001]),
    ]:
        assert cache_key("cv", {**base, name: other}) != reference, name
    assert cache_key("cv", {**base, "extra": None}) != reference
    assert cache_key("evaluate", base) != reference


def test_key_changes_with_every_data_byte_dtype_and_shape():
    data = np.arange(64, dtype=np.int64)
    reference = cache_key(data)
    raw = data.view(np.uint8)
    for position in (0, 17, raw.size - 1):
        flipped = raw.copy()
        flipped[position] ^= 1
        assert cache_key(flipped.view(np.int64)) != reference
    assert cache_key(data.astype(np.float64)) != reference
    assert cache_key(data.view(np.float64)) != reference  # same bytes, other dtype
    assert cache_key(data.reshape(8, 8)) != reference  # same bytes, other shape
    assert cache_key(np.asfortranarray(data.reshape(8, 8))) == cache_key(data.reshape(8, 8))


def test_key_of_frames_sees_values_columns_and_index():
    frame = example_frame()
    reference = cache_key(frame)
    assert cache_key(frame.copy()) == reference
    changed = frame.copy()
    changed.loc[3, "accuracy"] += 1e-12
    assert cache_key(changed) != reference
    changed = frame.copy()
    changed.loc[3, "method"] = "KT"
    assert cache_key(changed) != reference
    assert cache_key(frame.rename(columns={"fold": "folds"})) != reference
    assert cache_key(frame.set_axis(frame.index + 1)) != reference


def test_key_changes_with_engine_version(monkeypatch):
    reference = cache_key("cv", {"seed": 42})
    monkeypatch.setattr(heb, "__version__", heb.__version__ + ".post1")
    assert cache_key("cv", {"seed": 42}) != reference


def test_key_refuses_unknown_objects():
    with pytest.raises(TypeError, match="cannot describe"):
        cache_key(object())


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=5),
        st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
        max_size=5,
    )
)
def test_key_ignores_dict_order(settings_dict):
    reordered = dict(reversed(list(settings_dict.items())))
    assert cache_key(settings_dict) == cache_key(reordered)


# ----------------------------------------------------------------- round trips
def test_frame_round_trip_with_meta(store):
    frame = example_frame()
    key = cache_key("frame")
    assert store.get_frame(key) is None and key not in store
    store.put_frame(key, frame, meta={"dataset": "car", "seconds": np.float64(1.5)})
    assert key in store
    pd.testing.assert_frame_equal(store.get_frame(key), frame)
    assert store.meta(key) == {"dataset": "car", "seconds": 1.5}


def test_json_round_trip(store):
    value = {"ranks": [1.5, 2.5], "cd": np.float64(1.62), "n": np.int64(31), "ok": True}
    store.put_json("summary", value)
    assert store.get_json("summary") == {"ranks": [1.5, 2.5], "cd": 1.62, "n": 31, "ok": True}


def test_arrays_round_trip(store):
    arrays = {
        "proba": np.random.default_rng(1).random((7, 3)),
        "labels": np.array(["a", "bb", "c"]),
        "mask": np.array([True, False]),
        "file": np.arange(3, dtype=np.int16),  # a name np.savez would choke on
        "empty": np.zeros((0, 4)),
    }
    store.put_arrays("arrays", arrays)
    loaded = store.get_arrays("arrays")
    assert set(loaded) == set(arrays)
    for name, array in arrays.items():
        np.testing.assert_array_equal(loaded[name], array)
        assert loaded[name].dtype == array.dtype and loaded[name].shape == array.shape


def test_arrays_refuse_objects_that_would_need_pickle(store):
    with pytest.raises(ValueError, match="pickle"):
        store.put_arrays("objects", {"x": np.array([{"a": 1}], dtype=object)})
    assert "objects" not in store


def test_kinds_are_separate_entries_and_delete_and_clear(store):
    store.put_json("k", [1])
    assert store.get_frame("k") is None and store.get_arrays("k") is None
    store.put_arrays("k", {"x": np.ones(2)})
    store.put_frame("other", example_frame(3))
    (store.root / ".tmp-leftover.part").write_bytes(b"half a write")
    store.delete("k")
    assert "k" not in store and "other" in store
    assert store.clear() == 2
    assert list(store.root.iterdir()) == []


def test_bad_keys_and_frames_are_refused(store):
    for bad in ["", "../escape", "a/b", ".hidden", "x" * 201]:
        with pytest.raises(ValueError, match="cache key"):
            store.put_json(bad, 1)
    with pytest.raises(ValueError, match="string column names"):
        store.put_frame("k", pd.DataFrame({0: [1]}))
    with pytest.raises(TypeError, match="DataFrame"):
        store.put_frame("k", [1, 2])


def test_default_root_follows_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path))
    assert ResultCache().root == tmp_path / "results"


# ------------------------------------------------------------------ corruption
def _entry_file(store: ResultCache, key: str, kind: str = "frame") -> Path:
    return store.root / f"{key}{KINDS[kind]}"


def _truncate_half(blob: bytes) -> bytes:
    return blob[: len(blob) // 2]


def _drop_footer(blob: bytes) -> bytes:
    return blob[: len(blob) - 40]


def _flip_payload_byte(blob: bytes) -> bytes:
    middle = bytearray(blob)
    middle[len(blob) // 3] ^= 0xFF
    return bytes(middle)


def _flip_footer_byte(blob: bytes) -> bytes:
    changed = bytearray(blob)
    changed[-30] ^= 0x01
    return bytes(changed)


def _garbage(blob: bytes) -> bytes:
    return np.random.default_rng(0).integers(0, 256, len(blob), dtype=np.uint8).tobytes()


def _empty(blob: bytes) -> bytes:
    return b""


def _raw_parquet(blob: bytes) -> bytes:
    return example_frame().to_parquet()  # a valid parquet file, but no checksum


@pytest.mark.parametrize(
    "damage",
    [
        _truncate_half,
        _drop_footer,
        _flip_payload_byte,
        _flip_footer_byte,
        _garbage,
        _empty,
        _raw_parquet,
    ],
)
def test_corrupt_frame_is_deleted_and_recomputed(store, damage):
    key = cache_key("damaged", damage.__name__)
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return example_frame()

    frame, was_cached = cached_frame(key, compute, store)
    assert not was_cached and len(calls) == 1
    path = _entry_file(store, key)
    path.write_bytes(damage(path.read_bytes()))
    assert store.get_frame(key) is None
    assert not path.exists()  # the bad entry is gone
    again, was_cached = cached_frame(key, compute, store)
    assert not was_cached and len(calls) == 2
    pd.testing.assert_frame_equal(again, frame)
    third, was_cached = cached_frame(key, compute, store)
    assert was_cached and len(calls) == 2
    pd.testing.assert_frame_equal(third, frame)


@pytest.mark.parametrize("kind", ["json", "arrays"])
def test_corrupt_json_and_arrays_are_misses(store, kind):
    if kind == "json":
        store.put_json("k", {"a": list(range(100))})
    else:
        store.put_arrays("k", {"a": np.arange(100)})
    path = _entry_file(store, "k", kind)
    path.write_bytes(_flip_payload_byte(path.read_bytes()))
    assert (store.get_json("k") if kind == "json" else store.get_arrays("k")) is None
    assert not path.exists()


def test_cached_frame_checks_compute_result(store):
    with pytest.raises(TypeError, match="DataFrame"):
        cached_frame("k", lambda: {"a": 1}, store)


def test_cached_frame_warns_when_cache_is_read_only(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.warns(UserWarning, match="Results not cached"):
        frame, was_cached = cached_frame("k", example_frame, ResultCache(blocker / "results"))
    assert not was_cached and len(frame) == 50


# ------------------------------------------------------------------ concurrency
def _frame_of_writer(writer: int, n: int = 4000) -> pd.DataFrame:
    """A frame whose every row names its writer, so a mixed file would show."""
    values = np.arange(n, dtype=np.int64)
    return pd.DataFrame({"writer": np.full(n, writer), "value": values * (writer + 1)})


def _check_writer_frame(frame: pd.DataFrame) -> int:
    writers = frame["writer"].unique()
    assert writers.size == 1
    writer = int(writers[0])
    pd.testing.assert_frame_equal(frame, _frame_of_writer(writer))
    return writer


def _write_many(root: str, key: str, writer: int, repeats: int, start) -> None:
    store = ResultCache(root)
    frame = _frame_of_writer(writer)
    start.wait(timeout=60)
    for _ in range(repeats):
        store.put_frame(key, frame)


def _read_until_done(root: str, key: str, start, done, queue) -> None:
    store = ResultCache(root)
    seen = misses_after_first_hit = 0
    start.wait(timeout=60)
    deadline = time.monotonic() + 60
    while not done.is_set() and time.monotonic() < deadline:
        frame = store.get_frame(key)
        if frame is not None:
            _check_writer_frame(frame)
            seen += 1
        elif seen:
            misses_after_first_hit += 1
    queue.put((seen, misses_after_first_hit))


def test_concurrent_writers_of_one_key_never_corrupt_it(tmp_path, monkeypatch):
    # spawned children re-import the parent's __main__; under a suite that ran Streamlit's
    # AppTest that can be an app script, so give them a bare one
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    root, key = str(tmp_path / "results"), cache_key("concurrent")
    n_writers = 3
    context = multiprocessing.get_context("spawn")
    queue, done, start = context.Queue(), context.Event(), context.Barrier(n_writers + 1)
    writers = [
        context.Process(target=_write_many, args=(root, key, writer, 40, start))
        for writer in range(n_writers)
    ]
    reader = context.Process(target=_read_until_done, args=(root, key, start, done, queue))
    reader.daemon = True
    for process in [*writers, reader]:
        process.start()
    try:
        for process in writers:
            process.join(timeout=120)
    finally:
        done.set()
    reader.join(timeout=60)
    assert [process.exitcode for process in writers] == [0] * n_writers
    assert reader.exitcode == 0
    seen, misses_after_first_hit = queue.get(timeout=5)
    assert seen > 0  # the reader saw whole entries while the writers ran
    assert misses_after_first_hit == 0  # and never a half-written one
    store = ResultCache(root)
    assert _check_writer_frame(store.get_frame(key)) in range(n_writers)
    leftovers = [p.name for p in Path(root).iterdir() if p.name != f"{key}{KINDS['frame']}"]
    assert leftovers == []  # no temporary file left behind


def test_interrupted_write_leaves_previous_entry(store, monkeypatch):
    store.put_frame("k", example_frame())

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(cache_module.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        store.put_frame("k", example_frame(5))
    monkeypatch.undo()
    pd.testing.assert_frame_equal(store.get_frame("k"), example_frame())
    assert sorted(os.listdir(store.root)) == [f"k{KINDS['frame']}"]


def test_keys_follow_the_engine_source(monkeypatch):
    from heb.evaluate import keys as module

    assert len(module.engine_revision()) == 64
    before = cache_key("same", 1)
    monkeypatch.setattr(module, "engine_revision", lambda: "edited engine")
    assert cache_key("same", 1) != before


# ------------------------------------------------------------------ integrity
def test_an_entry_swapped_under_another_key_is_refused_and_recomputed(store):
    store.put_frame("first", example_frame(5))
    store.put_frame("second", example_frame(7))
    first, second = _entry_file(store, "first"), _entry_file(store, "second")
    blob = first.read_bytes()
    second.write_bytes(blob)  # an intact entry, under the wrong name
    assert store.get_frame("second") is None
    assert not second.exists()  # deleted, so the caller recomputes and rewrites it
    frame, was_cached = cached_frame("second", lambda: example_frame(7), store)
    assert not was_cached and len(frame) == 7
    assert len(store.get_frame("first")) == 5


def test_only_regular_files_are_read(store, tmp_path):
    store.put_frame("real", example_frame(5))
    real = _entry_file(store, "real")
    link = _entry_file(store, "linked")
    link.symlink_to(real)
    assert store.get_frame("linked") is None  # a symlink is not followed
    assert real.exists()
    fifo = _entry_file(store, "fifo")
    os.mkfifo(fifo)
    assert store.get_frame("fifo") is None  # returns at once: no blocking open of a FIFO
    assert fifo.exists()
    folder = _entry_file(store, "folder")
    folder.mkdir()
    assert store.get_frame("folder") is None


def test_reads_and_writes_are_bounded_in_size(tmp_path):
    roomy = ResultCache(tmp_path / "results")
    roomy.put_frame("big", example_frame(400))
    size = _entry_file(roomy, "big").stat().st_size
    tight = ResultCache(tmp_path / "results", max_entry_bytes=size // 2)
    assert tight.get_frame("big") is None  # too large to read: a miss, and deleted
    assert not _entry_file(roomy, "big").exists()
    with pytest.raises(OSError, match="exceeds the cache's limit"):
        tight.put_frame("big", example_frame(400))
    with pytest.warns(UserWarning, match="Results not cached"):
        assert tight.store("frame", "big", example_frame(400)) is False
    assert tight.store("frame", "small", example_frame(2)) is True


def _copy_package(tmp_path: Path) -> Path:
    import shutil

    package = Path(heb.__file__).resolve().parent
    copy = tmp_path / "heb"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_revision_ignores_figures_lessons_and_docstrings_but_not_code(tmp_path):
    from heb.evaluate.keys import NUMERIC_SOURCES, engine_revision, source_revision

    copy = _copy_package(tmp_path)
    before = source_revision(copy)
    # engine_revision is this computation on the installed package (cached per process)
    assert engine_revision.__wrapped__() == source_revision(Path(heb.__file__).resolve().parent)
    figure = next((copy / "figures").glob("*.py"))
    figure.write_text(figure.read_text() + "\nEDITED = 1\n")
    lesson = next((copy / "lessons").rglob("*.py"), None)
    if lesson is not None:
        lesson.write_text(lesson.read_text() + "\nEDITED = 1\n")
    assert source_revision(copy) == before
    smoothing = copy / "smoothing.py"
    text = smoothing.read_text()
    smoothing.write_text(text.replace('"""The seven smoothers', '"""Seven smoothers', 1))
    smoothing.write_text(smoothing.read_text() + "\n# a comment\n")
    assert source_revision(copy) == before  # a docstring and a comment are not code
    smoothing.write_text(text + "\nEDITED = 1\n")  # code, however small, is a new revision
    assert source_revision(copy) != before
    # every listed source exists, so the list cannot silently rot
    for pattern in NUMERIC_SOURCES:
        assert list(copy.glob(pattern)), pattern


def test_a_killed_writers_temporary_file_goes_at_the_next_caches_first_write(tmp_path):
    """A SIGKILL mid-write left ``.tmp-*.part`` files that nothing read and only
    ``clear()`` removed; the next cache's first write removes those over an hour old and
    leaves a younger one (a write that may still be running) alone."""
    cache = ResultCache(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    old = tmp_path / ".tmp-killed.part"
    young = tmp_path / ".tmp-running.part"
    other = tmp_path / "notes.txt"  # not the cache's: never touched
    for path in (old, young, other):
        path.write_bytes(b"partial")
    hours_ago = time.time() - cache_module.STALE_TEMP_SECONDS - 60
    os.utime(old, (hours_ago, hours_ago))
    os.utime(other, (hours_ago, hours_ago))
    assert cache.get_json("k") is None and old.exists()  # a read sweeps nothing
    cache.put_json("k", {"a": 1})
    assert not old.exists() and young.exists() and other.exists()
    assert cache.get_json("k") == {"a": 1}
