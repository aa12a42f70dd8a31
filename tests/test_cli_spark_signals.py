"""Ctrl-C and SIGTERM in ``heb bench --engine spark``: one line and exit code 130 / 143.

pyspark's session installs a SIGINT handler that raised KeyboardInterrupt inside py4j's
socket calls: Ctrl-C printed pages of py4j's logged tracebacks, or the cancelled job read
as "Spark could not run a query" with exit code 2; SIGTERM printed the JVM's stack traces
and "Broken pipe". Now the signal cancels this engine's Spark jobs (its job tag) and the
query raises KeyboardInterrupt in the thread that ran it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from heb.cli_scale import STOP_SIGNALS, ctrl_c_stops_the_query

REPO = Path(__file__).resolve().parents[1]


class Stopped(Exception):
    """What the handler before the block raises (the command line's Terminated)."""


class FakeSpark:
    """An engine named spark whose query runs until :meth:`interrupt`, then raises as
    SparkEngine's queries do."""

    name = "spark"

    def __init__(self) -> None:
        self.interrupted = False
        self.closed = False
        self._stop = threading.Event()

    def interrupt(self) -> None:
        self.interrupted = True
        self._stop.set()

    def query(self) -> None:
        if self.interrupted:  # as SparkEngine's queries: no job starts
            raise KeyboardInterrupt
        assert self._stop.wait(20.0), "the signal did not interrupt the engine"
        raise KeyboardInterrupt

    def running_query(self) -> None:
        """A query whose job started before the signal: it ends when it is cancelled."""
        assert self._stop.wait(20.0), "the signal did not cancel the running job"
        raise KeyboardInterrupt

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def handlers():
    """The SIGINT / SIGTERM handlers before the test (restored after it): Python's, and
    one raising :class:`Stopped` for SIGTERM."""

    def terminated(number, frame):
        raise Stopped

    before = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, terminated)
    yield {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: terminated}
    for number, handler in before.items():
        signal.signal(number, handler)


@pytest.mark.parametrize(
    ("number", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Stopped)]
)
def test_a_signal_stops_the_query_then_acts_as_its_handler_before(handlers, number, raised):
    engine = FakeSpark()
    with pytest.raises(raised):
        with ctrl_c_stops_the_query(lambda: engine) as opened:
            assert opened is engine
            signal.raise_signal(number)  # handled at once: not raised here
            assert engine.interrupted  # marked at once: the next query raises
            engine.running_query()
    assert engine.interrupted and engine.closed
    assert {n: signal.getsignal(n) for n in STOP_SIGNALS} == handlers


def test_a_second_signal_acts_at_once(handlers):
    engine = FakeSpark()
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(lambda: engine):
            signal.raise_signal(signal.SIGINT)
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                raise
            pytest.fail("the second Ctrl-C did not raise")
    assert engine.closed


def test_another_engine_keeps_python_s_handlers(handlers):
    engine = FakeSpark()
    engine.name = "duckdb"
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_stops_the_query(lambda: engine):
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            signal.raise_signal(signal.SIGINT)  # raises here, as without the block
    assert not engine.interrupted and engine.closed


def test_a_signal_after_the_last_query_still_stops_the_run(handlers):
    """The scoring job can end before the signal's cancel reaches it: the run wrote its
    tables and exited 0 after a Ctrl-C."""
    engine = FakeSpark()
    with pytest.raises(Stopped):
        with ctrl_c_stops_the_query(lambda: engine):
            signal.raise_signal(signal.SIGTERM)  # no query follows
    assert engine.interrupted and engine.closed


def test_a_failing_open_leaves_the_handlers(handlers):
    def refused():
        raise ValueError("no engine")

    with pytest.raises(ValueError, match="no engine"):
        with ctrl_c_stops_the_query(refused):
            pytest.fail("the block ran without an engine")
    assert {n: signal.getsignal(n) for n in STOP_SIGNALS} == handlers


# --------------------------------------------------------------------------- Spark itself
@pytest.fixture(scope="module")
def clicks(tmp_path_factory) -> Path:
    from tests.peers import require_spark

    require_spark()
    from heb.scale import write_clicks

    path = tmp_path_factory.mktemp("spark_signals") / "clicks.parquet"
    write_clicks(path, 600_000, seed=4, n_features=6)
    return path


#: the child resets SIGINT to Python's handler: a background process of a shell starts
#: with it ignored, as no terminal's Ctrl-C would find it
CHILD = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv = ['heb', *sys.argv[1:]]; runpy.run_module('heb', run_name='__main__')"
)

#: :data:`CHILD`, which then touches the file ``HEB_TEST_READY`` names: a Ctrl-C from then
#: on reaches Python's handler
READY_CHILD = CHILD.replace(
    "signal.default_int_handler); ",
    "signal.default_int_handler); "
    "import os, pathlib; pathlib.Path(os.environ['HEB_TEST_READY']).touch(); ",
)


@pytest.mark.slow
@pytest.mark.parametrize(("number", "code", "line"), [
    (signal.SIGINT, 130, "heb: Interrupted."),
    (signal.SIGTERM, 143, "heb: Terminated."),
])  # fmt: skip
def test_a_signal_mid_run_on_spark_is_one_line(clicks, tmp_path, number, code, line):
    command = [sys.executable, "-c", CHILD, "bench", "--engine", "spark", str(clicks)]
    command += ["--methods", "AODE,HEB-AODE", "--no-figures", "-o", str(tmp_path / "out")]
    env = {**os.environ, "HEB_CACHE_DIR": str(tmp_path / "cache")}  # nothing served
    child = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    try:
        for text in child.stderr:  # the folds' scoring: one Spark job of some seconds
            lines.append(text.rstrip("\n"))
            if "Fitting and scoring" in text:
                break
        else:
            pytest.fail(f"the run ended before it scored the folds: {lines}")
        time.sleep(1.5)  # the job runs (a signal between two jobs was always one line)
        child.send_signal(number)
        sent = time.monotonic()
        lines += child.stderr.read().splitlines()
        assert child.wait(60) == code, lines
        assert time.monotonic() - sent < 30
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    said = ("WARNING: Using incubator modules", "clicks · ", "heb: note: ")  # launcher, run
    noise = [s.strip() for s in lines if s.strip() and not s.strip().startswith(said)]
    assert noise == [line], "\n".join(lines)
    assert not (tmp_path / "out" / "folds.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.5, 4.0])  # loading the libraries, starting Spark
def test_ctrl_c_while_the_command_starts_is_one_line(clicks, tmp_path, delay):
    """Ctrl-C while ``python -m heb`` imported scipy printed the import's traceback, and
    while the Spark session was made (pyspark's handler, on the main thread) py4j's."""
    ready = tmp_path / "ready"
    command = [sys.executable, "-c", READY_CHILD, "bench", "--engine", "spark", str(clicks)]
    command += ["--methods", "AODE", "--no-figures", "-o", str(tmp_path / "out")]
    env = {**os.environ, "HEB_CACHE_DIR": str(tmp_path / "cache"), "HEB_TEST_READY": str(ready)}
    child = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # the delay counts from the handler's reset: a loaded machine took more than 0.5 s
        # to start Python, and a Ctrl-C before the reset was ignored (a README run)
        deadline = time.monotonic() + 60
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), "the child did not start"
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    lines = [s for s in err.splitlines() if s.strip()]
    said = [s for s in lines if not s.startswith("WARNING: Using incubator modules")]
    assert (child.returncode, said) == (130, ["heb: Interrupted."]), err


def test_the_engine_starts_off_the_main_thread_and_its_errors_reach_the_caller():
    from heb.cli_scale import _off_the_main_thread

    assert _off_the_main_thread(lambda: threading.current_thread().name) == "heb-engine-start"

    def refused():
        raise ValueError("no Java")

    with pytest.raises(ValueError, match="no Java"):
        _off_the_main_thread(refused)


def test_a_ctrl_c_while_the_engine_starts_runs_the_hook_then_goes_on():
    """The hook (Spark's: mute the half-started JVM) runs before the KeyboardInterrupt
    reaches the command line, which then prints its one line and exits."""
    from heb.cli_scale import _off_the_main_thread

    started, hooked = threading.Event(), []

    def slow_start():
        started.set()
        time.sleep(20)

    def interrupt():
        started.wait(10)
        # a signal to the main thread, as Ctrl-C (interrupt_main sets a flag a blocked join
        # does not see)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    before = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _off_the_main_thread(slow_start, on_interrupt=lambda: hooked.append(True))
    assert hooked == [True]
    assert time.monotonic() - before < 10  # the main thread did not wait for the start
    assert _off_the_main_thread(lambda: 1, on_interrupt=lambda: hooked.append(False)) == 1
    assert hooked == [True]  # a start that ends is no interrupt


def test_muting_without_a_session_started_does_nothing():
    from heb.scale.spark_engine import silence_a_starting_session

    silence_a_starting_session()  # no pyspark gateway in this process: no error, no call


#: a child that starts Spark, mutes it, then has its JVM log an error and write to stderr
MUTED_CHILD = """
import sys
from heb.scale import SparkEngine
from heb.scale.spark_engine import silence_a_starting_session
engine = SparkEngine()
from pyspark import SparkContext
jvm = SparkContext._gateway.jvm
log = jvm.org.apache.logging.log4j.LogManager.getLogger("org.apache.spark.SparkContext")
log.error("heard before")
silence_a_starting_session()
log.error("heard after")
jvm.java.lang.System.err.println("written after")
jvm.java.lang.System.err.flush()
print("done", file=sys.stderr)
"""


@pytest.mark.slow
def test_a_muted_jvm_logs_and_writes_nothing(tmp_path):
    """What the JVM of a start cut short said on its way out (SparkContext's failed start,
    after "heb: Interrupted." on a loaded CI machine) goes nowhere once muted."""
    from tests.peers import require_spark

    require_spark()
    child = subprocess.run(
        [sys.executable, "-c", MUTED_CHILD], cwd=REPO, capture_output=True, text=True,
        timeout=180, env={**os.environ, "HEB_CACHE_DIR": str(tmp_path)},
    )  # fmt: skip
    said = [s for s in child.stderr.splitlines() if s.strip() and "incubator" not in s]
    assert child.returncode == 0, child.stderr
    assert said[-1] == "done" and any("heard before" in s for s in said), child.stderr
    assert not any("after" in s for s in said), child.stderr


def test_the_spark_start_of_the_command_line_mutes_the_jvm_on_a_ctrl_c(monkeypatch):
    import heb.cli_scale as cli_scale
    from heb.scale.spark_engine import silence_a_starting_session

    seen = {}

    def started(start, on_interrupt=None):
        seen["hook"] = on_interrupt
        return "engine"

    monkeypatch.setattr(cli_scale, "_off_the_main_thread", started)
    assert cli_scale.open_engine("spark") == "engine"
    assert seen["hook"] is silence_a_starting_session
