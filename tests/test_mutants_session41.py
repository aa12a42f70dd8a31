# ruff: noqa: F811 - the handlers fixture imported from tests.test_cli_spark_signals
"""Tests from a mutation pass on the session's Ctrl-C / SIGTERM handling of a Spark engine
(:func:`heb.cli_scale.ctrl_c_stops_the_query`) and on time labels
(:func:`heb.data.column_values.format_time`): each kills a hand-made mutant that the
other tests let through."""

from __future__ import annotations

import io
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

import heb.cli_scale as cli_scale
from heb.cli_scale import STOP_SIGNALS, ctrl_c_stops_the_query
from heb.data.column_values import bin_labels, format_time
from heb.data.preprocess import Preprocessor
from heb.data.readers import read_table
from heb.data.text_columns import typed_date_notes
from tests.test_cli_spark_signals import handlers  # noqa: F401 - the fixture, used by name


class CountingSpark:
    """An engine named spark that counts its cancels (and those made while it closes)."""

    name = "spark"

    def __init__(self, close_s: float = 0.0) -> None:
        self.interrupted = False
        self.cancels = 0
        self.cancels_while_closing = 0
        self.closing = False
        self.close_s = close_s
        self.release = threading.Event()
        self.release.set()

    def interrupt(self) -> None:
        self.release.wait(10.0)  # a cancel that cannot go through at once (py4j busy)
        self.interrupted = True
        self.cancels += 1
        self.cancels_while_closing += self.closing

    def close(self) -> None:
        self.closing = True
        time.sleep(self.close_s)
        self.closing = False


def test_the_engine_is_marked_stopped_before_its_cancel_goes_through(handlers):
    """The handler marks the engine itself: the main thread's next query must raise even
    while the cancelling thread waits on py4j (which the main thread may hold)."""
    engine = CountingSpark()
    engine.release.clear()
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(lambda: engine):
            signal.raise_signal(signal.SIGINT)
            marked = engine.interrupted
            engine.release.set()
    assert marked


def test_the_jobs_are_cancelled_again_until_the_block_ends_and_not_while_it_closes(
    handlers, monkeypatch
):
    """A job submitted just after one cancel is cancelled by the next; none runs while
    the engine closes (a stopped session)."""
    monkeypatch.setattr(cli_scale, "CANCEL_EVERY_S", 0.05)
    engine = CountingSpark(close_s=0.5)
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(lambda: engine):
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.6)
    assert engine.cancels >= 3
    assert engine.cancels_while_closing == 0


def test_the_handlers_before_are_those_before_the_engine_opened(handlers):
    """A Spark session installs a SIGINT handler of its own when it starts: the block
    must restore (and act as) the command line's, not the session's."""

    def sessions_handler(number, frame):
        raise AssertionError("the Spark session's handler ran")

    def opens_spark():
        signal.signal(signal.SIGINT, sessions_handler)
        return CountingSpark()

    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(opens_spark):
            signal.raise_signal(signal.SIGINT)
    assert {n: signal.getsignal(n) for n in STOP_SIGNALS} == handlers


def test_a_failing_close_still_restores_the_handlers(handlers):
    class Failing(CountingSpark):
        def close(self) -> None:
            raise RuntimeError("close failed")

    with pytest.raises(RuntimeError, match="close failed"):
        with ctrl_c_stops_the_query(Failing):
            pass
    assert {n: signal.getsignal(n) for n in STOP_SIGNALS} == handlers


def test_a_spark_engine_in_another_thread_keeps_the_handlers(handlers):
    """Streamlit runs a script in a thread of its own, where no handler can be set."""
    outcome: list = []

    def run():
        try:
            with ctrl_c_stops_the_query(CountingSpark) as engine:
                outcome.append(engine.name)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10.0)
    assert outcome == ["spark"]
    assert {n: signal.getsignal(n) for n in STOP_SIGNALS} == handlers


# --------------------------------------------------------------------------- SparkEngine
class _Session:
    """A Spark session that records its job tags and cancels, and whose query fails with
    ``error`` (as a cancelled job's does) after calling ``during`` (a Ctrl-C meanwhile)."""

    def __init__(self, error: Exception, during=lambda: None) -> None:
        self.error, self.during = error, during
        self.tags: list[str] = []
        self.cancelled: list[str] = []
        self.queries = 0
        self.stopped = False
        session = self

        class Context:
            def addJobTag(self, tag):  # noqa: N802 - pyspark's name
                session.tags.append(tag)

            def cancelJobsWithTag(self, tag):  # noqa: N802 - pyspark's name
                session.cancelled.append(tag)

        self.sparkContext = Context()

    def sql(self, _sql):
        self.queries += 1
        session = self

        class Frame:
            def toArrow(self):
                session.during()
                raise session.error

        return Frame()

    def stop(self):
        raise ConnectionRefusedError(111, "Connection refused")  # the JVM has ended


def test_an_interrupted_engine_s_queries_raise_keyboard_interrupt_and_carry_its_tag():
    pytest.importorskip("py4j")
    from heb.scale.spark_engine import SparkEngine

    session = _Session(ConnectionRefusedError(111, "Connection refused"))
    engine, other = SparkEngine(session=session), SparkEngine(session=session)
    assert engine.job_tag != other.job_tag  # one engine's Ctrl-C cancels its jobs alone
    session.during = engine.interrupt  # a Ctrl-C while the query runs: not an EngineError
    with pytest.raises(KeyboardInterrupt):
        engine.table("SELECT 1")
    assert session.tags == [engine.job_tag] and session.cancelled == [engine.job_tag]
    with pytest.raises(KeyboardInterrupt):
        engine.table("SELECT 1")  # no later query starts
    assert session.queries == 1


def test_closing_an_engine_whose_java_process_ended_is_quiet():
    pytest.importorskip("py4j")
    from heb.scale.spark_engine import SparkEngine

    engine = SparkEngine(session=_Session(ValueError("unused")))
    engine._owns_session = True  # as one started by the engine
    engine.close()


# --------------------------------------------------------------------------- time labels
def test_time_labels_are_rounded_to_the_second():
    """A quantile cut is any float of seconds: its label has no microseconds."""
    assert format_time(90.4, "timedelta") == "00:01:30"
    assert format_time(86_400 * 2 + 0.4, "timedelta") == "2 days 00:00:00"
    assert format_time(1_709_251_200.4, "datetime") == "2024-03-01"
    assert format_time(1_709_251_200.6, "datetime") == "2024-03-01 00:00:01"


def test_durations_with_a_fraction_of_a_second_are_labelled_in_seconds():
    durations = pd.Series(pd.to_timedelta(np.array([10.25, 20.5, 30.75, 40.0]), unit="s"))
    labels = Preprocessor(n_bins=2).fit(pd.DataFrame({"took": durations})).categories_[0]
    assert labels == ["(-inf, 00:00:26)", "[00:00:26, inf)"]


def test_a_cut_on_the_hour_shows_its_time_of_day():
    """Only a midnight is a date alone: 06:00 is not."""
    six = pd.Timestamp("2024-03-01 06:00").timestamp()
    assert bin_labels(np.array([six]), "datetime") == [
        "(-inf, 2024-03-01 06:00:00)",
        "[2024-03-01 06:00:00, inf)",
    ]
    midnight = pd.Timestamp("2024-03-02").timestamp()
    assert bin_labels(np.array([midnight]), "datetime") == [
        "(-inf, 2024-03-02)",
        "[2024-03-02, inf)",
    ]


def test_a_parquet_file_of_two_text_date_columns_gets_the_csv_s_one_note():
    """The note names the first column and counts the others, as the CSV's does."""
    rng = np.random.default_rng(1)
    days = pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 200, 300), unit="D")
    text = pd.Series(days).dt.strftime("%Y-%m-%d")
    frame = pd.DataFrame({"signup": text, "renewal": text.iloc[::-1].to_numpy(), "y": ["a"] * 300})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    from_parquet = read_table(buffer.getvalue(), "days.parquet").attrs["heb_notes"]
    from_csv = read_table(frame.to_csv(index=False).encode(), "days.csv").attrs["heb_notes"]
    assert from_parquet == from_csv
    assert len(from_parquet) == 1 and from_parquet[0].startswith("Column 'signup' (and 1 ")


def test_text_dates_padded_with_spaces_get_the_note():
    padded = pd.DataFrame({"d": [f" 2024-01-{k % 28 + 1:02d} " for k in range(90)]})
    assert "28 dates" in typed_date_notes(padded)[0]


def test_a_categorical_column_s_unused_dates_are_not_counted():
    """A parquet dictionary can hold values no row has (a filtered table's)."""
    days = [f"2024-01-{k:02d}" for k in range(1, 29)]
    used = pd.Categorical([days[k % 5] for k in range(90)], categories=days)
    assert typed_date_notes(pd.DataFrame({"d": used})) == []  # 5 days: a category each


class SlowSecondCancel(CountingSpark):
    """A Spark engine whose second cancel is in flight (py4j busy) when the block ends."""

    def __init__(self) -> None:
        super().__init__(close_s=0.3)
        self.second_in_flight = threading.Event()

    def interrupt(self) -> None:
        if self.cancels == 1:
            self.second_in_flight.set()
            time.sleep(0.2)
        super().interrupt()


def test_a_cancel_in_flight_when_the_block_ends_finishes_before_the_engine_closes(
    handlers, monkeypatch
):
    """The block waits for a cancel already under way before it closes the engine: a
    full run once saw one reach the engine while it closed (the thread had passed its
    wait just before the block ended)."""
    monkeypatch.setattr(cli_scale, "CANCEL_EVERY_S", 0.01)
    engine = SlowSecondCancel()
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(lambda: engine):
            signal.raise_signal(signal.SIGINT)
            assert engine.second_in_flight.wait(5.0)
    # two at least: on a loaded machine the main thread can reach the block's end after
    # the cancelling thread's next polls (5 in one full run beside another)
    assert engine.cancels >= 2
    assert engine.cancels_while_closing == 0
