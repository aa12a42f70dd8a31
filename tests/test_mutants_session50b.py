"""Tests killing mutants of session 50's hostile-input fixes that their own tests let live:
markdown escaping of a dataset's name, terminal-safe streams, the cache key's file hash,
the bench CSVs' formula quoting, the peak grid of an overflowing clamp and the signal
that stopped a DuckDB query."""

from __future__ import annotations

import io
import os
import re
import signal
import sys
import time

import numpy as np
import pandas as pd
import pytest

import heb.cli
from heb.cli import Terminated, _spec_identity, main
from heb.cli_terminal import terminal_safe, terminal_safe_streams
from heb.evaluate.paper import summary_markdown, table_markdown


@pytest.fixture()
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# --- markdown: every special character, backslashes and line breaks -----------------------


def _cells(row: str) -> list[str]:
    """A markdown table row's cells: split at each '|' not escaped by an odd run of '\\'."""
    return re.split(r"(?<!\\)(?:\\\\)*\|", row)[1:-1] if row else []


def _tables(name: str) -> list[str]:
    summary = pd.DataFrame(
        {"dataset": [name], "method": ["laplace"], "accuracy_mean": [0.5],
         "accuracy_sd": [0.1], "folds": [3]}
    )  # fmt: skip
    table = pd.DataFrame({"dataset": [name], "Laplace": [0.5], "HEB-M": [0.6]})
    return [summary_markdown(summary), table_markdown(table, "table2")]


@pytest.mark.parametrize(
    "name, shown",
    [
        ("_x_ `y` z", r"\_x\_ \`y\` z"),  # emphasis and code
        ("a\\|b", "a\\\\\\|b"),  # a backslash before '|' would unescape it
    ],
)
def test_every_markdown_character_of_a_dataset_name_is_escaped(name, shown):
    for text in _tables(name):
        lines = text.splitlines()
        header, row = lines[0], lines[-1]
        assert len(_cells(row)) == len(_cells(header)), text
        assert shown in row, text


def test_a_line_break_or_tab_in_a_dataset_name_keeps_the_row_one_line():
    for text in _tables("a\r\nb\tc\rd"):
        assert "\r" not in text and "\t" not in text, repr(text)
        assert len(text.splitlines()) == 3 and "a  b c d" in text.splitlines()[-1], repr(text)


# --- terminal-safe text and streams ---------------------------------------------------------


def test_terminal_safe_escapes_c0_del_and_c1_but_tab_and_newline():
    for control in ("\x00", "\x08", "\x0b", "\x1b", "\x1f", "\x7f", "\x9b", "\x9f"):
        assert terminal_safe(f"a{control}b") == f"a{repr(control)[1:-1]}b"
    assert terminal_safe("a\tb\nc") == "a\tb\nc"
    assert terminal_safe("é ü \xa0") == "é ü \xa0"  # printable text beyond C1 as is


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_safe_streams_wrap_stdout_and_stderr_of_a_terminal_and_count_the_callers_text(
    monkeypatch,
):
    out, err = _Terminal(), _Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with terminal_safe_streams():
        print("o\x1b[2J")
        assert sys.stderr.write("e\x9b31m\n") == len("e\x9b31m\n")  # TextIO's count
    assert out.getvalue() == "o\\x1b[2J\n" and err.getvalue() == "e\\x9b31m\n"
    assert sys.stdout is out and sys.stderr is err


def test_safe_streams_leave_a_pipe_alone_and_survive_a_closed_stream(monkeypatch):
    pipe, closed = io.StringIO(), io.StringIO()
    closed.close()  # isatty() raises ValueError
    monkeypatch.setattr(sys, "stdout", pipe)
    monkeypatch.setattr(sys, "stderr", closed)
    with terminal_safe_streams():
        print("p\x1b[31m")
        assert sys.stderr is closed
    assert pipe.getvalue() == "p\x1b[31m\n"


# --- the cache key hashes a regular file's content --------------------------------------


def test_the_cache_key_follows_the_files_bytes_and_skips_an_empty_file(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,label\nx,p\n")
    first = _spec_identity(str(data))
    data.write_text("a,label\ny,q\n")  # same size, other bytes
    second = _spec_identity(str(data))
    assert first != second and first.startswith(f"{data}:") and second.startswith(f"{data}:")
    data.write_text("")
    assert _spec_identity(str(data)) == str(data)  # no bytes: nothing read
    assert _spec_identity(str(tmp_path / "x\x00.csv")) == str(tmp_path / "x\x00.csv")
    folder = tmp_path / "parts"  # a parquet folder: its size says 4096, open() refuses it
    folder.mkdir()
    (folder / "a.parquet").write_bytes(b"PAR1")
    assert folder.stat().st_size > 0 and _spec_identity(str(folder)) == str(folder)


def test_bench_refuses_a_name_holding_nul_in_one_line(tmp_path, isolated_cache, capsys):
    """main() is Python's entry too: a NUL in a name reached path.stat()'s ValueError."""
    with pytest.raises(SystemExit) as info:
        main(["bench", str(tmp_path / "x\x00.csv"), "--no-figures", "-o", str(tmp_path)])
    assert info.value.code == 2
    assert "No file" in capsys.readouterr().err


# --- every bench CSV quotes a dataset named like a formula ------------------------------


def test_the_times_table_quotes_a_dataset_named_like_a_formula(tmp_path, isolated_cache):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 90), "b": rng.choice(["u", "v"], 90)})
    frame["label"] = np.where(frame["a"] == "x", "p", "q")
    data = tmp_path / "=2+3 evil.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "out"
    args = ["bench", str(data), "--tables", "8", "--folds", "3", "--no-figures", "-o", str(out)]
    assert main(args) == 0
    written = sorted(p.name for p in out.glob("*.csv"))
    assert "table8_fit_times.csv" in written
    for name in written:
        names = set(pd.read_csv(out / name)["dataset"].astype(str))
        assert "'=2+3 evil" in names and not any(n.startswith("=") for n in names), name
    times = pd.read_csv(out / "table8_fit_times.csv")
    assert list(times.columns[:2]) == ["dataset", "unit"] and "Laplace" in times.columns


# --- the peak grid of a clamp whose width overflows ---------------------------------------


class _GridSpy:
    """numpy, recording the length of each grid linspace builds in heb.concentration."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def linspace(self, start, stop, num, *args, **kwargs):
        self.sizes.append(int(num))
        return np.linspace(start, stop, num, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize(
    "clamp, decades",
    [({"m_max": 1e308}, 308 + 2), ({"m_min": 5e-324, "m_max": 1e4}, 4 + 323.3062153431158)],
)
def test_an_overflowing_clamp_gets_peaks_per_decade_over_its_true_width(
    monkeypatch, clamp, decades
):
    """m_max / m_min overflows: the grid still has PEAKS_PER_DECADE cells a decade of
    log10(m_max) - log10(m_min), not one cell nor a natural-log count."""
    from heb import concentration
    from heb.tan import TAN

    spy = _GridSpy()
    monkeypatch.setattr(concentration, "np", spy)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, (60, 3)), rng.integers(0, 2, 60)
    with np.errstate(all="ignore"):
        TAN(smoother="heb", **clamp).fit(X, y)
    expected = int(np.ceil(concentration.PEAKS_PER_DECADE * decades)) + 1
    assert expected in spy.sizes, (expected, sorted(set(spy.sizes)))


# --- the signal that stopped a DuckDB query -------------------------------------------


@pytest.fixture()
def python_ctrl_c():
    """Python's own Ctrl-C handler, as a terminal's python has (xdist workers ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _signalled(signum):
    try:
        os.kill(os.getpid(), signum)
        time.sleep(5)
    except KeyboardInterrupt:  # Terminated too
        return
    pytest.fail("no signal came")


def test_the_last_signal_names_the_line_after_an_earlier_one_was_caught(
    monkeypatch, capsys, python_ctrl_c
):
    def query(args):
        _signalled(signal.SIGINT)  # a Ctrl-C some code caught
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except Terminated:
            raise RuntimeError("Query interrupted") from None
        return 0

    monkeypatch.setattr(heb.cli, "bench", query)
    assert main(["bench", "builtin:iris"]) == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == "heb: Terminated."


def test_query_interrupted_without_a_signal_of_this_run_stays_an_error(
    monkeypatch, capsys, python_ctrl_c
):
    """A signal of an earlier run (main called twice in one process) is not this run's."""

    def stopped(args):
        _signalled(signal.SIGTERM)
        raise RuntimeError("Query interrupted")

    def unsignalled(args):
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(heb.cli, "bench", stopped)
    assert main(["bench", "builtin:iris"]) == 143
    monkeypatch.setattr(heb.cli, "bench", unsignalled)
    with pytest.raises(RuntimeError, match="Query interrupted"):
        main(["bench", "builtin:iris"])


def test_ctrl_c_handler_is_heb_s_only_in_place_of_pythons_and_put_back(monkeypatch):
    seen = []

    def bench(args):
        seen.append(signal.getsignal(signal.SIGINT))
        return 0

    monkeypatch.setattr(heb.cli, "bench", bench)
    previous = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # nohup, a background job: stays ignored
        assert main(["bench", "builtin:iris"]) == 0
        assert seen[-1] is signal.SIG_IGN and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.signal(signal.SIGINT, signal.default_int_handler)
        assert main(["bench", "builtin:iris"]) == 0
        assert seen[-1] is not signal.default_int_handler  # heb's, noting the signal
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
