"""Tests that kill the mutants a mutation pass over session 33's changes left alive: the
Spark launcher's Java check, the large-file picker's one-walk listing and its data-root
messages, the scan errors said again, and Spark's fold names (each test names the
mutant it catches)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer import large_files as lf
from heb.scale import spark_engine


# --------------------------------------------------------------------------- Spark's Java
@pytest.fixture
def no_path_java(tmp_path, monkeypatch):
    """PATH with no ``java`` on it, JAVA_HOME unset."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    return tmp_path


def _fake_jdk(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "java").write_text("#!/bin/sh\n")
    return folder


def test_a_java_home_holding_bin_java_is_no_problem_without_java_on_path(no_path_java, monkeypatch):
    """``java_problem``'s JAVA_HOME check inverted (``exists`` for ``not exists``): a JDK
    under JAVA_HOME, which pyspark's launcher runs, was called missing."""
    monkeypatch.setenv("JAVA_HOME", str(_fake_jdk(no_path_java / "jdk")))
    assert spark_engine.java_problem() is None


def test_an_existing_java_home_without_bin_java_is_named(no_path_java, monkeypatch):
    """The check made ``os.path.exists(home)``: a JAVA_HOME folder that exists but holds no
    ``bin/java`` (a JRE's parent, a typo one level up) passed, and the launcher failed."""
    home = no_path_java / "not-a-jdk"
    home.mkdir()
    monkeypatch.setenv("JAVA_HOME", str(home))
    assert spark_engine.java_problem() == (
        f"Spark could not start: JAVA_HOME is '{home}', which holds no bin/java; "
        "point it at a JDK or unset it."
    )


def test_a_bad_java_home_is_named_even_with_java_on_path(no_path_java, monkeypatch):
    """The JAVA_HOME branch dropped: PATH's ``java`` hid a JAVA_HOME the launcher uses."""
    _fake_jdk(no_path_java / "path-jdk")
    monkeypatch.setenv("PATH", str(no_path_java / "path-jdk" / "bin"))
    os.chmod(no_path_java / "path-jdk" / "bin" / "java", 0o755)
    monkeypatch.setenv("JAVA_HOME", str(no_path_java / "nowhere"))
    assert "JAVA_HOME is" in (spark_engine.java_problem() or "")


def test_no_java_at_all_is_said(no_path_java):
    """The no-runtime branch dropped: without JAVA_HOME or a ``java`` on PATH the check
    said nothing, and pyspark's launcher printed shell errors."""
    assert spark_engine.java_problem() == (
        "Spark could not start: no Java runtime was found; install a JDK or set JAVA_HOME."
    )


# ------------------------------------------------------------------- the large-file picker
def _parquet_folder(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).touch()
    return folder


def test_a_folder_of_upper_case_parquet_files_is_listed(tmp_path):
    """``holds_parquet`` without ``.lower()``: Windows' ``PART-0.PARQUET`` folder was not
    offered, though the engine opens it."""
    _parquet_folder(tmp_path / "upper", "PART-0.PARQUET")
    _parquet_folder(tmp_path / "lower", "part-0.pq")
    assert lf.list_sources(tmp_path) == ["lower/", "upper/"]


def test_a_folder_holding_a_parquet_folder_is_listed_with_it(tmp_path):
    """``holds_parquet`` given the files alone: a folder whose entry is a Spark output
    ``table.parquet/`` (a folder) was not offered, as rglob's ``iterdir`` offered it."""
    _parquet_folder(tmp_path / "out" / "table.parquet", "part-0.snappy.parquet")
    assert lf.list_sources(tmp_path) == ["out/", "out/table.parquet/"]


def test_only_the_roots_own_files_are_listed_not_the_root_itself(tmp_path):
    """The ``here != root`` / ``here == root`` tests dropped: the root holding parquet was
    listed as "./", and a CSV deep in a folder was listed as a file of its own."""
    (tmp_path / "top.parquet").touch()
    (tmp_path / "top.CSV").write_text("a,b\n1,2\n")
    _parquet_folder(tmp_path / "deep", "part-0.parquet", "side.csv")
    assert lf.list_sources(tmp_path) == ["deep/", "top.CSV", "top.parquet"]


def test_a_linked_folder_is_listed_once_inside_the_root_and_never_outside(tmp_path):
    """The linked-folder branch: dropped, a link to a partition folder inside the root was
    not offered; without ``inside``, a link to one outside the root was; walked with
    ``followlinks``, a linked folder's own folders were listed too; without the "/" the
    folder read as a file."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    real = _parquet_folder(root / "real", "part-0.parquet")
    _parquet_folder(real / "day=1", "part-0.parquet")
    _parquet_folder(outside, "part-0.parquet")
    (root / "alias").symlink_to(real, target_is_directory=True)
    (root / "escape").symlink_to(outside, target_is_directory=True)
    assert lf.list_sources(root) == ["alias/", "real/", "real/day=1/"]


def test_the_listing_is_sorted_by_path_and_cut_at_its_cap(tmp_path, monkeypatch):
    """Unsorted, the list came in ``os.walk``'s order (the file system's); cut one short,
    a root of exactly ``_MAX_LISTED`` sources lost its last."""
    monkeypatch.setattr(lf, "_MAX_LISTED", 5)
    for name in ("e.csv", "a.csv", "d.csv", "b.csv", "c.csv"):
        (tmp_path / name).write_text("x\n1\n")
    assert lf.list_sources(tmp_path) == ["a.csv", "b.csv", "c.csv", "d.csv", "e.csv"]
    (tmp_path / "f.csv").write_text("x\n1\n")
    assert lf.list_sources(tmp_path) == ["a.csv", "b.csv", "c.csv", "d.csv", "e.csv"]


# ------------------------------------------------------------------------ the data root
def test_the_secrets_data_root_is_used_and_named_when_it_is_no_folder(tmp_path, monkeypatch):
    """``_root_setting`` without its secrets branch: a root set as ``[heb] data_root`` in
    secrets.toml was called unconfigured, and one naming no folder was not said to be
    set there. The environment variable comes first."""
    import streamlit as st

    monkeypatch.delenv(lf.DATA_ROOT_ENV, raising=False)
    monkeypatch.setattr(st, "secrets", {"heb": {"data_root": str(tmp_path)}})
    assert lf.configured_root() == tmp_path.resolve()
    monkeypatch.setattr(st, "secrets", {"heb": {"data_root": str(tmp_path / "typo")}})
    assert lf.configured_root() is None
    assert lf.root_help() == (
        "The data root set by data_root in .streamlit/secrets.toml, 'typo', is not a folder "
        "that exists; correct it and restart the app."
    )
    assert lf._no_root().startswith("the data root configured is not a folder")
    monkeypatch.setenv(lf.DATA_ROOT_ENV, str(tmp_path / "typo2"))
    assert "environment variable HEB_DATA_ROOT, 'typo2'" in lf.root_help()
    monkeypatch.setattr(st, "secrets", {})
    monkeypatch.delenv(lf.DATA_ROOT_ENV)
    assert lf.root_help() == lf.CONFIGURE_HELP
    assert lf._no_root() == f"no data root is configured; set {lf.DATA_ROOT_ENV} to open it."


def test_a_data_root_naming_a_file_is_no_root(tmp_path, monkeypatch):
    """``configured_root`` testing ``exists`` for ``is_dir``: a root naming a file was
    taken, and listing it failed."""
    (tmp_path / "file.csv").write_text("a\n1\n")
    monkeypatch.setenv(lf.DATA_ROOT_ENV, str(tmp_path / "file.csv"))
    assert lf.configured_root() is None
    assert "'file.csv', is not a folder that exists" in lf.root_help()


# ------------------------------------------------------- the presenter's Settings popovers
def _side_by_side(at, kind: str, first: str, second: str) -> bool:
    """Whether the ``kind`` widgets (``select_slider``, ``radio``...) labelled ``first`` and
    ``second`` sit in different columns (a column holding one and not the other)."""
    return any(
        (first in labels) != (second in labels)
        for labels in ({w.label for w in getattr(column, kind)} for column in at.columns)
    )


def test_presenting_known_truths_sliders_pair_up_and_only_then():
    """The pairing dropped (``(st, st)`` always): the Settings popover held 626 px of
    controls in a 502 px box on a 1280 x 720 projector; made unconditional, the page's
    narrow settings column squeezed its sliders two to a row."""
    from tests.test_presenter import open_lesson

    pair = ("select_slider", "Training rows", "Categories per feature K")
    assert _side_by_side(open_lesson("lesson_known_truth", present="1"), *pair)
    assert not _side_by_side(open_lesson("lesson_known_truth"), *pair)


def test_presenting_evidences_controls_pair_up_without_the_showcase_caption():
    """The evidence lesson's popover: its radios and selectboxes pair up when presenting
    (742 px of controls in a 502 px box) and the showcase caption is left out there;
    off the presenter they stack and the caption stays."""
    from tests.test_presenter import open_lesson

    boxes, radios = ("selectbox", "Class", "Feature"), ("radio", "Counts from", "Prior mean t")
    presenting = open_lesson("lesson_evidence", present="1")
    assert _side_by_side(presenting, *boxes) and _side_by_side(presenting, *radios)
    assert not [c for c in presenting.caption if "clearest peak" in c.value]
    plain = open_lesson("lesson_evidence")
    assert not _side_by_side(plain, *boxes) and not _side_by_side(plain, *radios)
    assert [c for c in plain.caption if "clearest peak" in c.value]


# ------------------------------------------------------------------ the out-of-fold CSV
def test_a_result_that_does_not_know_its_folds_writes_no_fold_column():
    """``oof_frame``'s ``test_fold is not None`` test dropped: a result without the folds
    (a worker folder written before the column existed) wrote a "fold" column of blanks,
    which read as fold numbers lost."""
    import dataclasses

    from heb.data import load_dataset
    from heb.evaluate import cross_validate
    from heb.evaluate.report import oof_frame

    result = cross_validate(load_dataset("builtin:iris"), ["Laplace"], n_splits=3, use_cache=False)
    assert list(oof_frame(result).columns[:3]) == ["row", "fold", "true class"]
    unknown = oof_frame(dataclasses.replace(result, test_fold=None))
    assert list(unknown.columns[:2]) == ["row", "true class"] and "fold" not in unknown


# ---------------------------------------------------------------------------- Benchmark
def test_too_few_cross_validated_counts_every_dataset_chosen(monkeypatch):
    """The count's "of the N" taken from the datasets that loaded: with one of three not
    loading and one failing in cross-validation, the run said "1 of the 2"; both skipped
    notes stay above the error."""
    from test_benchmark_trial32 import run_with_wine_failing

    from explorer import benchmarking

    loads = benchmarking.session_dataset

    def load(spec):
        if spec == "builtin:zip-codes":
            raise ValueError("No usable target. The rest.")
        return loads(spec)

    monkeypatch.setattr(benchmarking, "session_dataset", load)
    at = run_with_wine_failing(monkeypatch, ["builtin:iris", "builtin:wine", "builtin:zip-codes"])
    assert [e.value for e in at.error] == [
        "Only 1 of the 3 datasets could be cross\\-validated\\; the benchmark needs at least two\\."
    ]
    skipped = [w.value for w in at.warning if w.value.startswith("Skipped")]
    assert [s.split(" ")[1] for s in skipped] == ["zip\\-codes", "wine"], skipped


# ----------------------------------------------------------------- a link's refused value
def test_a_refused_link_value_beside_its_control_is_shown_as_text():
    """``page_setting``'s note without ``escape``: a link's ``dirichlet_alpha=[7](...)``
    drew a live link (and ``*x*`` emphasis) in the note under the previous control."""
    from explorer.errors import escape
    from tests.test_presenter import open_lesson

    value = "[7](https://example.org)"
    at = open_lesson("lesson_dirichlet", dirichlet_alpha=value)
    notes = [c.value for c in at.caption if "dirichlet" in c.value]
    assert notes == [
        escape(
            f"The link's dirichlet_alpha={value} is not a value the control below offers: "
            "it shows 1.0."
        )
    ]


# ------------------------------------------------------------------ a scan that ended
def _ended_scan(key: str, error: BaseException):
    from types import SimpleNamespace

    return SimpleNamespace(key=key, error=error, was_cancelled=False, message="", elapsed=1.0)


def test_only_a_data_error_points_to_another_target(monkeypatch):
    """``_say_why``'s ``isinstance(scan.error, DataError)`` dropped: an engine failure (out
    of memory, a lost file) was told to choose another target column, which cannot help."""
    import streamlit as st

    from heb.data import DataError

    captions: list[str] = []
    monkeypatch.setattr(lf, "show_error", lambda *args, **kwargs: None)
    monkeypatch.setattr(st, "caption", captions.append)
    lf._say_why(_ended_scan("k", MemoryError("out of memory")))
    assert captions == []
    lf._say_why(_ended_scan("k", DataError("The target has the single value 'p'.")))
    assert captions == [lf.DATA_ERROR_NOTE]


def test_an_ended_scan_is_said_again_only_while_its_key_waits_for_its_button(monkeypatch):
    """``_said_again`` without its ``_CANCELLED`` test: once another scan of the kind had
    started (which clears it), coming back to the failed settings repeated their old error
    beside a fresh button; without the key test, any settings repeated it."""
    import streamlit as st

    said: list[str] = []
    monkeypatch.setattr(lf, "_say_why", lambda scan: said.append(scan.key))
    state = {lf._ENDED: {"compare": _ended_scan("A", RuntimeError("x"))}, lf._CANCELLED: {}}
    monkeypatch.setattr(st, "session_state", state)
    lf._said_again("compare", "A")  # another scan started since: A's button is fresh
    assert said == []
    state[lf._CANCELLED]["compare"] = "A"
    lf._said_again("compare", "B")  # other settings
    lf._said_again("counts", "A")  # another kind
    assert said == []
    lf._said_again("compare", "A")
    assert said == ["A"]


def test_listing_many_top_level_files_resolves_none_of_them(tmp_path, resolved_paths):
    """``inside`` resolving every path, not links alone: a root of many top-level files
    (a day's exports) paid a resolve per file on every run of the Dataset page."""
    for k in range(40):
        (tmp_path / f"export-{k:02d}.csv").write_text("a\n1\n")
    root = tmp_path.resolve()
    resolved_paths.clear()
    assert len(lf.list_sources(root)) == 40
    assert len(resolved_paths) < 5, len(resolved_paths)
