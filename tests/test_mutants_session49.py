"""Tests for the survivors of session 49's mutation pass over its own changes.

Each test kills a mutant of a line that session changed and the session's tests left
alive: the Spark start's muting hook, the large-file path's one-class sentence, the
Explain page's guard names.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pandas as pd
import pytest
from test_app import open_app

from explorer import explain as ex
from heb.data import DataError


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


def test_muting_sets_every_log_level_off_and_stderr_to_nothing_with_py4j_quiet(monkeypatch):
    """Without a JVM (the slow test's child needs Java): the hook turns the JVM's log4j
    levels OFF and its System.err to a null stream while py4j's own logger says nothing,
    then gives py4j's logger its level back."""
    pyspark = pytest.importorskip("pyspark")
    from heb.scale.spark_engine import silence_a_starting_session

    calls: list = []
    monkeypatch.setattr(pyspark.SparkContext, "_gateway", SimpleNamespace(jvm=_Recorder(calls)))
    py4j = logging.getLogger("py4j")
    monkeypatch.setattr(py4j, "level", logging.INFO)
    silence_a_starting_session()
    named = {name: (args, level) for name, args, level in calls}
    levels = "jvm.org.apache.logging.log4j.core.config.Configurator.setAllLevels"
    assert named[levels][0] == ("", "jvm.org.apache.logging.log4j.Level.OFF")
    stream = "jvm.java.io.PrintStream"
    assert named[stream][0] == ("jvm.java.io.OutputStream.nullOutputStream",)
    assert named["jvm.java.lang.System.setErr"][0] == (stream,)
    assert {level for _, level in named.values()} == {logging.CRITICAL + 1}
    assert py4j.level == logging.INFO  # restored


def test_muting_a_jvm_that_has_ended_is_silent_and_restores_py4j(monkeypatch):
    pyspark = pytest.importorskip("pyspark")
    from heb.scale.spark_engine import silence_a_starting_session

    class Ended:
        @property
        def jvm(self):
            raise ConnectionError("the JVM has ended")

    monkeypatch.setattr(pyspark.SparkContext, "_gateway", Ended())
    py4j = logging.getLogger("py4j")
    monkeypatch.setattr(py4j, "level", logging.WARNING)
    silence_a_starting_session()
    assert py4j.level == logging.WARNING


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
