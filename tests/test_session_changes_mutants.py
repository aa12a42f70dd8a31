"""Checks of the session's CLI, engine, report and figure changes that mutation testing found
missing.

Each test kills a mutant the rest of the suite let live, in ``heb/cli.py`` (``--drop``,
``_size_hint``, ``_column_names``, ``_bench_specs``, the progress line's notes and the
reliability-diagram sentence), ``heb/scale/cv.py`` (``_k_max``), ``heb/evaluate/report.py``
(the order of a report's notes), ``explorer/report.py`` (``comparison_downloads``' notes,
``explain_code``'s hierarchy lines), ``explorer/explain.py`` (``model_json``'s hierarchies) and
``heb/figures/reliability.py`` (``CONFIDENCE_AXIS_FROM_ZERO``).
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pandas as pd
import pytest

import heb.cli as cli
from heb.cli import main
from heb.cli_scale import BadInput
from tests.test_cli_drop import _shop


def _small(folder, rows: int = 40) -> str:
    """A CSV of ``rows`` rows: one text feature and a balanced two-class target."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(list("abc"), rows), "y": np.arange(rows) % 2})
    path = folder / "small.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _namespace(**values) -> argparse.Namespace:
    """``bench``'s parsed options with ``values`` set (the parser's defaults otherwise)."""
    args = cli.build_parser().parse_args(["bench"])
    return argparse.Namespace(**{**vars(args), **values})


# ----------------------------------------------------------------------------- _size_hint
def test_the_size_hint_starts_just_past_the_limit_and_reads_file_specs(tmp_path, monkeypatch):
    """``_size_hint``: a file of exactly DEFAULT_MAX_BYTES is read in memory (``>``, not
    ``>=``), so no hint; one byte more is; a ``file:PATH`` spec is sized like its path."""
    monkeypatch.setattr("heb.data.dataset.DEFAULT_MAX_BYTES", 100)
    path = tmp_path / "data.csv"
    path.write_bytes(b"x" * 100)
    assert cli._size_hint(str(path)) == ""
    path.write_bytes(b"x" * 101)
    assert "--engine duckdb" in cli._size_hint(str(path))
    assert "--engine duckdb" in cli._size_hint(f"file:{path}")


# ----------------------------------------------------------------------------- _column_names
def test_column_names_split_strip_and_keep_each_name_once():
    """``_column_names``: empty pieces (a trailing comma) are no names, and a name given
    twice is one (the run's cache key sorts these names)."""
    assert cli._column_names(["leak,", " a , leak", ","]) == ["leak", "a"]


def test_a_column_both_dropped_and_in_a_categorical_list_is_refused():
    """``_check_drop`` splits ``--categorical a,zip`` into names before comparing."""
    args = _namespace(drop=["zip"], categorical=["a,zip"])
    with pytest.raises(cli.UsageError, match="'zip' is named by both --drop and --categorical"):
        cli._check_drop(args)


# ----------------------------------------------------------------------------- _load
def test_drop_checks_against_the_target_given_not_the_last_column(tmp_path):
    """``_load``: with ``target`` given, ``drop`` may name the last column, and naming the
    given target is refused (the check used the default target, the last column)."""
    data = _shop(tmp_path)
    dataset = cli._load(data, target="a", drop=["y", "leak"])
    assert dataset.target == "a" and dataset.name == "shop"
    assert list(dataset.X.columns) == ["customer_id", "zip"]
    with pytest.raises(BadInput, match="--drop names the target 'a'"):
        cli._load(data, target="a", drop=["a"])


def test_drop_reads_a_file_spec_with_a_space_as_load_dataset_does(tmp_path):
    """``_load``: ``file: PATH`` (a space after the colon) is stripped, as
    :func:`heb.data.load_dataset` strips it when nothing is dropped."""
    data = _shop(tmp_path)
    dataset = cli._load(f"file: {data}", drop=["leak"])
    assert dataset.name == "shop" and "leak" not in dataset.X.columns


# ----------------------------------------------------------------------------- _bench_specs
def test_no_datasets_named_means_every_shared_copy(monkeypatch):
    """``_bench_specs``: ``bench`` without names reads every shared copy, as ``bench
    shared`` does (the parser's default is now empty)."""
    monkeypatch.setattr("heb.data.shared_dataset_names", lambda: ["adult", "nursery"])
    named = cli._bench_specs(_namespace(datasets=["shared"], engine=None))
    assert cli._bench_specs(_namespace(datasets=[], engine=None)) == named
    assert named == ["shared:adult", "shared:nursery"]


def test_engine_without_a_path_asks_for_one():
    """``_bench_specs``: ``bench --engine duckdb`` without a path says it needs one."""
    with pytest.raises(BadInput, match="--engine duckdb needs a parquet / CSV file or folder"):
        cli._bench_specs(_namespace(datasets=[], engine="duckdb"))


# ----------------------------------------------------------------------------- progress line
def test_the_subsample_is_said_once_on_the_progress_line_only_when_rows_are_cut(tmp_path, capsys):
    """``_collect``: "(N evaluated, --max-rows)" only when the file has more rows than the
    cap (``>``, not ``>=``), and the run's own "Used a stratified subsample" note is not
    repeated under the line."""
    data = _small(tmp_path, rows=300)
    args = ["bench", data, "--tables", "1", "--folds", "2", "--no-figures", "--no-cache"]
    assert main([*args, "--max-rows", "200", "-o", str(tmp_path / "cut")]) == 0
    err = capsys.readouterr().err
    assert "small: 300 rows (200 evaluated, --max-rows), 1 feature" in err
    assert "Used a stratified subsample" not in err
    assert main([*args, "--max-rows", "300", "-o", str(tmp_path / "whole")]) == 0
    err = capsys.readouterr().err
    assert "small: 300 rows, 1 feature" in err and "evaluated" not in err


def test_a_note_of_several_runs_is_said_once(tmp_path, capsys):
    """``_collect``: Table 6 adds a run per Lidstone alpha, each with the same "fewer folds"
    note; the notes under the progress line are kept once each."""
    args = ["bench", _small(tmp_path), "--folds", "30", "--tables", "1,6", "--no-figures"]
    assert main([*args, "--no-cache", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert err.count("-fold cross-validation is used instead") == 1


# ----------------------------------------------------------------------------- figures
@pytest.fixture()
def figures_spied(monkeypatch):
    """``bench``'s figures with nothing exported and ``_collect_reliability`` recorded
    (it returns no curves)."""
    calls: list[dict] = []

    def collect(specs, settings, tables, categorical=(), target=None, drop=(), skip=()):
        calls.append({"tables": list(tables), "drop": list(drop)})
        return {}

    monkeypatch.setattr(cli, "_export_figure", lambda fig, stem, report: {})
    monkeypatch.setattr(cli, "_collect_reliability", collect)
    return calls


def test_the_reliability_pass_is_given_the_columns_to_drop(tmp_path, figures_spied):
    """``_bench_figures`` passes ``--drop`` to ``_collect_reliability``, as the tables
    read the file."""
    args = ["bench", _shop(tmp_path), "--drop", "leak,customer_id", "--tables", "4"]
    assert main([*args, "--folds", "2", "--no-cache", "-o", str(tmp_path / "out")]) == 0
    assert figures_spied == [{"tables": [4], "drop": ["leak", "customer_id"]}]


def test_no_reliability_sentence_when_table_4_is_not_asked_for(tmp_path, capsys, figures_spied):
    """``_bench_figures``: "Reliability diagrams skipped" only when Table 4 was asked for."""
    args = ["bench", _shop(tmp_path), "--tables", "1", "--folds", "2", "--no-cache"]
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    assert figures_spied  # the figures' pass ran
    assert "Reliability diagrams skipped" not in capsys.readouterr().err


def test_the_reliability_pass_drops_where_present_over_several_files(tmp_path):
    """``_collect_reliability`` reads several files not strictly, and ``_load`` hands
    ``dataset_from_table`` only the ``drop`` names the file has: a name one file lacks is
    passed over, so that file still gets its diagram."""
    first = _shop(tmp_path)
    second = _shop(tmp_path, "plain.csv", with_leak=False, seed=1)
    settings = {"n_splits": 2, "seed": 0, "n_bins": 10, "missing": "impute", "max_rows": 0}
    curves = cli._collect_reliability([first, second], settings, [4], drop=["leak"])
    assert set(curves) == {"shop", "plain"}


# ----------------------------------------------------------------------------- scale K_max
def test_the_engine_k_max_caps_a_numeric_feature_at_its_bins(tmp_path):
    """``heb.scale.cv._k_max``: a numeric column of 500 values counts ``n_bins``, as
    :func:`heb.evaluate.paper.dataset_k_max` counts it in memory."""
    pytest.importorskip("duckdb")
    from heb.data import load_dataset
    from heb.evaluate.paper import dataset_k_max
    from heb.scale import DuckDBEngine, cross_validate, open_source

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.permutation(500) + 0.5, "a": rng.choice(list("abc"), 500)})
    frame["y"] = np.arange(500) % 2
    path = tmp_path / "numeric.csv"
    frame.to_csv(path, index=False)
    engine = DuckDBEngine(threads=1)
    try:
        engine.register(open_source(path, root=tmp_path))
        result = cross_validate(engine, "y", ["Laplace"], n_splits=2, n_bins=10)
    finally:
        engine.close()
    assert result.k_max == 10 == dataset_k_max(load_dataset(str(path)), 10)


# ----------------------------------------------------------------------------- reports
def _small_result():
    """A two-method CV run of a small frame, with one note of its own."""
    from heb.data.dataset import finalize
    from heb.evaluate import RunSettings, cross_validate

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(list("abc"), 90), "y": np.arange(90) % 2})
    dataset = finalize(frame, "y", name="small", source="test")
    settings = RunSettings(n_splits=3)
    result = cross_validate(dataset, ["Laplace", "HEB-M"], settings=settings, use_cache=False)
    return dataclasses.replace(result, notes=["The run's own note."]), settings


def test_a_reports_given_notes_follow_the_runs_own():
    """``comparison_report``: the run's notes first, then the ``notes`` given."""
    from heb.evaluate.report import comparison_report

    result, settings = _small_result()
    page = comparison_report(result, settings, dataset="small", notes=["The page's note."])
    assert page.index("The run&#x27;s own note.") < page.index("The page&#x27;s note.")


def test_the_downloaded_report_holds_the_pages_notes(monkeypatch):
    """``explorer.report.comparison_downloads`` writes ``notes()`` into the HTML report
    its button downloads."""
    from explorer import report

    buttons: dict[str, object] = {}

    class Row:
        def download_button(self, label, data, **_):
            buttons[label] = data

    monkeypatch.setattr(report.st, "container", lambda **_: Row())
    result, settings = _small_result()
    report.comparison_downloads(
        result, settings, "small", lambda: ({}, {}), "code", "y", lambda: ["Per-class note."]
    )
    assert b"Per-class note." in buttons["Report (HTML)"]()
    upload = {"filename": "c.csv", "target": "y", "categorical": ["zip"], "drop": ["id"]}
    report.comparison_downloads(
        result, settings, "small", lambda: ({}, {}), "code", "y", list, upload
    )
    page = buttons["Report (HTML)"]()
    assert b"<td>columns left out</td><td>id</td>" in page
    assert b"<td>read as categories</td><td>zip</td>" in page


def test_explain_code_resolves_hierarchies_only_for_heb_h():
    """``explain_code``: declared hierarchies add the ``resolve_levels`` lines only when
    HEB-H is among the smoothers."""
    from explorer import report

    settings = {"n_bins": 5, "missing": "impute", "max_rows": None}
    args = ("dataset = 1", settings)
    without = report.explain_code(*args, ["heb-m"], 0, 0, 1, hierarchies="zip: prefix 3")
    assert "resolve_levels" not in without and "hierarchies=levels" not in without
    with_h = report.explain_code(*args, ["heb-m", "heb-h"], 0, 0, 1, hierarchies="zip: prefix 3")
    assert "resolve_levels" in with_h and "hierarchies=levels" in with_h


@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_model_json_saves_heb_h_with_its_hierarchies():
    """``explorer.explain.model_json`` saves HEB-H with its hierarchies (refitted without
    them, the file would hold HEB-M, a model that predicts otherwise)."""
    from explorer import explain as ex
    from heb import model_io
    from heb.nb import NaiveBayes

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, (60, 2))
    y = (codes[:, 0] // 2 + (rng.random(60) < 0.3)) % 2
    model = NaiveBayes("heb-h", hierarchies={0: [np.arange(4) // 2]}).fit(codes, y)
    fitted = ex.Fitted({"heb-h": model}, {"heb-h": model.predict(codes)})
    loaded = model_io.loads(ex.model_json(fitted, "heb-h", ["f0", "f1"], [0, 1]))
    assert np.array_equal(loaded.predict_proba(codes), model.predict_proba(codes))
    plain = NaiveBayes("heb-h").fit(codes, y)
    assert not np.allclose(loaded.predict_proba(codes), plain.predict_proba(codes))


# ----------------------------------------------------------------------------- figures
def test_a_lowest_bin_at_a_quarter_starts_the_axis_at_zero():
    """``CONFIDENCE_AXIS_FROM_ZERO`` is 0.3: four classes' lowest confidences (0.25) start
    the axis at 0, not at 0.25."""
    from heb.figures.reliability import CONFIDENCE_AXIS_FROM_ZERO, confidence_axis_start

    curve = {"edges": np.array([0.0, 0.25, 0.5, 0.75, 1.0]), "count": np.array([0, 3, 5, 9])}
    assert confidence_axis_start({"a": curve}) == 0.0
    assert CONFIDENCE_AXIS_FROM_ZERO == 0.3
