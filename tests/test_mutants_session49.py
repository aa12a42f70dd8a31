"""Tests for the survivors of session 49's mutation pass over its own changes.

Each test kills a mutant of a line that session changed and the session's tests left
alive: the Spark start's muting hook, the large-file path's one-class sentence, the
Explain page's guard names.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from test_app import open_app

from explorer import explain as ex
from heb.data import DataError


@pytest.fixture
def py4j_level():
    """The py4j logger, its level put back with setLevel (which clears the loggers'
    caches) after the test."""
    py4j = logging.getLogger("py4j")
    before = py4j.level
    yield py4j
    py4j.setLevel(before)


class _Recorder:
    """A py4j JVM view stand-in: records each call by its dotted name, with the py4j
    logger's level at the time of the call."""

    def __init__(self, calls: list, name: str = "jvm") -> None:
        self._calls, self._name = calls, name

    def __getattr__(self, part: str) -> _Recorder:
        return _Recorder(self._calls, f"{self._name}.{part}")

    def __call__(self, *args):
        level = logging.getLogger("py4j").level
        args = tuple(a._name if isinstance(a, _Recorder) else a for a in args)
        self._calls.append((self._name, args, level))
        return self._name


def test_muting_sets_every_log_level_off_and_stderr_to_nothing_with_py4j_quiet(
    monkeypatch, py4j_level
):
    """Without a JVM (the slow test's child needs Java): the hook turns the JVM's log4j
    levels OFF and its System.err to a null stream while py4j's own logger says nothing,
    then gives py4j's logger its level back."""
    pyspark = pytest.importorskip("pyspark")
    from heb.scale.spark_engine import silence_a_starting_session

    calls: list = []
    monkeypatch.setattr(pyspark.SparkContext, "_gateway", SimpleNamespace(jvm=_Recorder(calls)))
    py4j_level.setLevel(logging.INFO)
    silence_a_starting_session()
    named = {name: (args, level) for name, args, level in calls}
    levels = "jvm.org.apache.logging.log4j.core.config.Configurator.setAllLevels"
    assert named[levels][0] == ("", "jvm.org.apache.logging.log4j.Level.OFF")
    stream = "jvm.java.io.PrintStream"
    assert named[stream][0] == ("jvm.java.io.OutputStream.nullOutputStream",)
    assert named["jvm.java.lang.System.setErr"][0] == (stream,)
    assert {level for _, level in named.values()} == {logging.CRITICAL + 1}
    assert py4j_level.level == logging.INFO  # restored


def test_muting_a_jvm_that_has_ended_is_silent_and_restores_py4j(monkeypatch, py4j_level):
    pyspark = pytest.importorskip("pyspark")
    from heb.scale.spark_engine import silence_a_starting_session

    class Ended:
        @property
        def jvm(self):
            raise ConnectionError("the JVM has ended")

    monkeypatch.setattr(pyspark.SparkContext, "_gateway", Ended())
    py4j_level.setLevel(logging.WARNING)
    silence_a_starting_session()
    assert py4j_level.level == logging.WARNING


def _in_memory_sentence(target: str, value: str) -> str:
    from heb.data.dataset import _checked_target

    frame = pd.DataFrame({"a": [1, 2, 3], target: [value] * 3})
    with pytest.raises(DataError) as caught:
        _checked_target(frame, target, [])
    return str(caught.value)


@pytest.mark.parametrize(
    ("target", "value"), [("churn", "no"), ("t" * 200, "v" * 200), ("a\nb", "x\ty")]
)
def test_the_large_files_one_class_sentence_is_the_in_memory_one(target, value):
    """Word for word, long or odd names cut and escaped alike (quote, not repr)."""
    from heb.scale.counting import _refuse_one_class

    with pytest.raises(DataError) as caught:
        _refuse_one_class(target, pd.Index([value]))
    assert str(caught.value) == _in_memory_sentence(target, value)
    assert len(str(caught.value)) < 250


def test_a_failure_explaining_the_row_is_not_called_fitting_alone(monkeypatch):
    """The Explain page's main guard covers the row's explanation and tables as well as
    the fits: an error there read "while fitting the models", which the fits had not
    raised."""

    def broken(*args, **kwargs):
        raise KeyError("gone")

    monkeypatch.setattr(ex, "decision_table", broken)
    at = open_app(explain_row="0", explain_smoothers="laplace")
    at.switch_page("pages/explain.py").run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert any("while fitting the models and explaining the row" in s for s in said), said


def test_the_in_memory_path_gives_a_method_named_by_alias_its_values():
    """A method run under an alias ("lidstone") gets the values set for it under its own
    name: the checked values are keyed by the method's name, not by the alias."""

    from heb.scale.inmemory import cross_validate_in_memory, example_frame

    frame = example_frame(400).dropna(subset=["label"]).reset_index(drop=True)
    folds = np.arange(len(frame)) % 3
    default = cross_validate_in_memory(frame, "label", folds, ["lidstone"])
    small = cross_validate_in_memory(
        frame, "label", folds, ["lidstone"], params={"Lidstone": {"alpha": 0.01}}
    )
    assert not np.allclose(default["log_loss"], small["log_loss"])


def _one_class_file(tmp_path):
    data = tmp_path / "churn.csv"
    pd.DataFrame(
        {"plan": ["basic", "pro", "basic", "pro"] * 5, "tenure": range(20), "churn": ["no"] * 20}
    ).to_csv(data, index=False)
    return data


def test_the_target_hint_joins_the_loaders_sentence_as_one_sentence(tmp_path):
    """The loader's sentence loses its full stop before the hint: not "classes.; the"."""
    from heb.cli import load_one

    with pytest.raises(DataError) as caught:
        load_one(str(_one_class_file(tmp_path)))
    said = str(caught.value)
    assert said.startswith("The target 'churn' has only one class ('no'); a classifier needs")
    assert "classes; the target is the last column unless --target NAME names another" in said
    assert said.endswith(".") and ".;" not in said and ".." not in said


def test_a_named_datasets_target_error_offers_no_target_option(monkeypatch):
    """--target is refused for a named dataset: its target error is said as it is."""
    import heb.cli as cli

    reason = "The target 'label' has only one class ('a'); a classifier needs at least two."

    def one_class(*args, **kwargs):
        raise DataError(reason)

    monkeypatch.setattr(cli, "_load", one_class)
    with pytest.raises(DataError) as caught:
        cli.load_one("builtin:zip-codes")
    assert str(caught.value) == reason


@pytest.mark.parametrize("tab", ["Reliability", "Per class"])
def test_the_compare_pages_sections_are_h2_not_h3(tab):
    """Compare's sections (the table, then each tab's) are h2, as the browser test checks
    in one view: an h3 after the table's h2 keeps the heading order, so the outline check
    alone let a section drawn with st.subheader through."""
    from tests.test_heading_levels import _outline

    at = open_app(dataset="builtin:iris", methods="Laplace,HEB-M", folds="5")
    at.switch_page("pages/compare.py").run()
    at.session_state["compare_tab"] = tab
    at.run()
    assert not at.exception
    outline = _outline(at.main)
    assert len([level for level, _ in outline if level == 2]) >= 2, outline
    assert [h for h in outline if h[0] > 2] == [], outline
