"""The command line's large-data side: ``make-data`` and ``bench --engine duckdb|spark``.

``bench --engine`` cross-validates a parquet / CSV file, a folder of parquet files or a
Hive-style partitioned table on an engine (:mod:`heb.scale`: DuckDB in this process, or
Spark ``local[*]`` / a given master) and returns the same long per-fold frame as the
in-memory ``bench``, so the paper's tables and CD diagrams are written by the same code.
Bad input is a :class:`BadInput`: one sentence, exit code 2.
"""

from __future__ import annotations

import shlex
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from heb.cli_columns import column_list
from heb.data.readers import DATA_SUFFIXES, without_data_suffixes
from heb.paths import user_path
from heb.registry import resolve_method_name

__all__ = [
    "DATA_SUFFIXES",
    "ENGINES",
    "BadInput",
    "collect_on_engine",
    "ctrl_c_stops_the_query",
    "data_stem",
    "engine_identity",
    "make_data",
    "open_engine",
]

ENGINES = ("duckdb", "spark")
#: the engines' proper names, as the per-dataset lines print them
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark"}


def data_stem(path: str | Path) -> str:
    """A dataset's name from its file or folder: the name without its data suffixes
    (``churn.csv`` and ``churn.csv.gz`` are ``churn``; a name with no such suffix stays)."""
    return without_data_suffixes(Path(path).name)


class BadInput(Exception):
    """Input the user can fix; ``str(exc)`` is one sentence, the command exits with 2."""


def make_data(
    kind: str,
    rows: int,
    output: str,
    *,
    seed: int = 0,
    features: int = 20,
    chunk_rows: int = 1_000_000,
) -> int:
    """``make-data clicks``: :func:`heb.scale.clicks.write_clicks` to ``output``, one line out."""
    from heb.scale import clicks

    if kind != "clicks":  # argparse's choices already refuse others; kept for direct calls
        raise BadInput(f"make-data knows 'clicks', not {kind!r}.")
    given = user_path(output)
    if given.is_dir():
        raise BadInput(
            f"-o {output!r} is a folder; give the parquet file to write, such as "
            f"{str(given / 'clicks.parquet')!r}."
        )
    if given.suffix.lower() != ".parquet":
        raise BadInput(
            f"make-data writes parquet, so -o must end in .parquet (got {output!r}); "
            f"try {str(given.with_name(given.name.split('.')[0] + '.parquet'))!r}."
        )
    folder = given.parent
    if not folder.is_dir():
        raise BadInput(
            f"There is no folder {str(folder)!r} for -o; create it or give another path."
        )
    try:
        out = clicks.write_clicks(output, rows, seed, n_features=features, chunk_rows=chunk_rows)
    except (ValueError, OSError) as exc:
        raise BadInput(str(exc) if isinstance(exc, ValueError) else _os_sentence(exc)) from None
    print(f"Wrote {rows:,} rows to {out}.")
    return 0


def _os_sentence(exc: OSError) -> str:
    """An OSError as one sentence (no errno prefix)."""
    name = f" {str(exc.filename)!r}" if exc.filename else ""
    return f"Cannot write{name}: {exc.strerror or exc}."


def open_engine(name: str, master: str = "local[*]"):
    """A started engine: ``DuckDBEngine()`` or ``SparkEngine(master=master)``."""
    from heb.scale import DuckDBEngine, EngineError, SparkEngine
    from heb.scale.spark_engine import silence_a_starting_session

    if name == "duckdb":
        return DuckDBEngine()
    if name == "spark":
        try:
            return _off_the_main_thread(
                lambda: SparkEngine(master=master), on_interrupt=silence_a_starting_session
            )
        except EngineError as exc:
            raise BadInput(str(exc)) from None
    raise BadInput(f"--engine takes one of {', '.join(ENGINES)}, not {name!r}.")


def _off_the_main_thread(
    start: Callable[[], object], on_interrupt: Callable[[], None] | None = None
) -> object:
    """``start()`` run on a thread of its own, the main thread waiting for it.

    A Spark session started on the main thread installs pyspark's SIGINT handler, which
    raises inside py4j's socket calls: a Ctrl-C while the session was being made printed
    py4j's logged tracebacks. Started elsewhere it installs none, and the waiting main
    thread takes Ctrl-C as Python does (KeyboardInterrupt; the half-started Java process
    ends with this one, as its stdin closes). ``on_interrupt`` runs then, before the
    KeyboardInterrupt (or SIGTERM's exception) goes on: Spark's mutes that Java process,
    which on a loaded machine logged its failed start after the command line's one line.
    """
    done: dict = {}

    def run() -> None:
        try:
            done["value"] = start()
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            done["error"] = exc

    thread = threading.Thread(target=run, daemon=True, name="heb-engine-start")
    try:
        thread.start()
        while thread.is_alive():  # a signal that came just before a blocking join waited
            thread.join(0.1)  # in it until the start ended: now a tenth of a second
    except BaseException:
        if on_interrupt is not None:
            on_interrupt()
        raise
    if "error" in done:
        raise done["error"]
    return done["value"]


#: the signals that stop a Spark engine's query (Ctrl-C, ``kill PID``)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: seconds between two cancels of a stopped engine's jobs (a job submitted just after one)
CANCEL_EVERY_S = 0.5


class _SignalStop:
    """The SIGINT / SIGTERM handling of :func:`ctrl_c_stops_the_query` for one engine,
    made before the engine opens: the handlers it keeps are the caller's, not those an
    engine may install (a Spark session made on the main thread installs pyspark's)."""

    def __init__(self) -> None:
        self.before = {number: signal.getsignal(number) for number in STOP_SIGNALS}
        self.received: list[int] = []
        self.ended = threading.Event()
        self.engine = None
        self.cancelling: threading.Thread | None = None

    def install(self, engine) -> None:
        self.engine = engine
        for number in STOP_SIGNALS:
            signal.signal(number, self._stop)

    def restore(self) -> None:
        for number, handler in self.before.items():
            signal.signal(number, handler)

    def act_as_before(self, number: int | None = None) -> None:
        """What the handler before the block does with signal ``number`` (default the first
        one received, if any): the command line's raise Terminated for SIGTERM;
        KeyboardInterrupt otherwise."""
        if number is None:
            if not self.received:
                return
            number = self.received[0]
        handler = self.before.get(number)
        if callable(handler):
            handler(number, None)
        raise KeyboardInterrupt

    def _stop(self, number, frame) -> None:
        if self.received:  # a second signal: at once
            self.act_as_before(number)
        self.received.append(number)
        self.engine.interrupted = True  # no py4j call here: the main thread may be in one
        self.cancelling = threading.Thread(
            target=self._keep_cancelling, daemon=True, name="heb-cancel"
        )
        self.cancelling.start()

    def stop_cancelling(self, timeout_s: float = 10.0) -> None:
        """No further cancel, and none still in flight (a cancel that began just before
        the block ended would otherwise reach the engine while it closes)."""
        self.ended.set()
        if self.cancelling is not None:
            self.cancelling.join(timeout_s)

    def _keep_cancelling(self) -> None:
        while True:
            self.engine.interrupt()
            if self.ended.wait(CANCEL_EVERY_S):
                return


@contextmanager
def ctrl_c_stops_the_query(open_engine_: Callable[[], object]) -> Iterator[object]:
    """The engine ``open_engine_()`` opens, closed at the end, with Ctrl-C and SIGTERM
    stopping its query: the first signal stops the engine (the running query and every
    later one raise KeyboardInterrupt), a second acts at once. Either then acts as its
    handler before the block would have (the command line's: one line, exit code 130 or
    143), also when it came after the block's last query.

    For Spark, where pyspark's own SIGINT handler raised inside py4j's socket calls (the
    session is now made off the main thread, see :func:`open_engine`): Ctrl-C printed
    pages of py4j's logged tracebacks, or the cancelled job read as "Spark could not run a
    query", exit 2; SIGTERM printed the JVM's stack traces and "Broken pipe". The handler
    marks the engine stopped at once (the main thread's next query raises before it
    starts) and a thread cancels its jobs every :data:`CANCEL_EVERY_S` until the block
    ends (a job submitted just after a cancel). DuckDB, and any thread but the main one
    (where no handler can be set), keep the handlers as they are.
    """
    main = threading.current_thread() is threading.main_thread()
    stopper = _SignalStop() if main else None
    engine = open_engine_()
    try:
        if stopper is not None and getattr(engine, "name", "") == "spark":
            stopper.install(engine)
        try:
            yield engine
        except KeyboardInterrupt:
            if stopper is not None:  # stopped by a first signal: as its handler would
                stopper.act_as_before()
            raise
        if stopper is not None:  # a signal after the last query: the run still stops
            stopper.act_as_before()
    finally:
        if stopper is not None:
            stopper.stop_cancelling()  # no cancel while the engine closes
        try:
            engine.close()
        finally:
            if stopper is not None:
                stopper.restore()


def _local_source(path: str):
    """A local file or folder checked by :func:`heb.scale.open_source` (root: its parent)."""
    from heb.scale import open_source

    given = user_path(path)
    if not given.exists():
        kind, sep, _ = path.partition(":")
        if sep and kind.lower() in ("builtin", "shared", "openml"):  # a dataset name
            raise BadInput(
                f"--engine counts parquet / CSV files or folders, and {path!r} is a dataset "
                "name: run it without --engine."
            )
        raise BadInput(f"There is no file or folder {path!r}.")
    resolved = given.resolve()
    return open_source(resolved, root=resolved.parent)


def engine_identity(path: str) -> str:
    """A cheap identity of a large input: names, sizes and modification times (no hashing)."""
    given = user_path(path).resolve()
    files = sorted(given.iterdir()) if given.is_dir() else [given]
    stats = [(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file()]
    return f"{given}:{stats}"


def _target(engine, target: str | None) -> str:
    """The class column: ``target`` (checked to exist) or the default (the last column,
    checked to be a possible target: :func:`_check_default_target`)."""
    from heb.data import DataError, default_target
    from heb.data.dataset import quote
    from heb.text import case_variant_clause

    names = [name for name, _ in engine.columns()]
    if target is not None and target not in names:
        shown = ", ".join(quote(name) for name in names[:12]) + (", ..." if len(names) > 12 else "")
        raise DataError(
            f"There is no column {quote(target)} to use as the target"
            f"{case_variant_clause(target, names)}; --target takes one of "
            f"{shown}."
        )
    if target is not None:
        return target
    column = default_target(names)
    _check_default_target(engine, column)
    return column


def _check_default_target(engine, column: str) -> None:
    """Refuse the last column as the default target when it cannot be one, saying that
    ``--target`` names another, with the columns that read as classes (the app's
    large-file source takes the first of them; the command line takes none)."""
    from heb.data import DataError
    from heb.data.targets import target_option_hint
    from heb.scale.counting import check_target_values
    from heb.scale.target_choice import fallback_targets

    try:
        check_target_values(engine, column)
    except DataError as exc:
        hint = target_option_hint(fallback_targets(engine))
        raise DataError(f"{str(exc).rstrip('.')}; {hint}.") from None


def check_categorical(
    categorical: Sequence[str],
    columns: Sequence[str],
    target: str,
    of: str,
    option: str = "--categorical",
):
    """Raise :class:`BadInput` when a name given to ``option`` (``--categorical``,
    ``--drop``) is the target or not one of ``columns`` (the message names the columns
    there are); ``of`` names the data."""
    from heb.data.dataset import quote

    for name in categorical:
        if name == target:
            raise BadInput(
                f"{option} names the target {quote(name)} of {of}; name feature columns only."
            )
        if name not in columns:
            shown = ", ".join(quote(c) for c in columns[:12]) + (
                ", ..." if len(columns) > 12 else ""
            )
            raise BadInput(
                f"{option} names {quote(name)}, not a column of {of}; its columns are {shown}."
            )


def _declared(engine, target: str, categorical: Sequence[str]) -> list[str] | None:
    """``categorical`` checked against the registered source (None when empty)."""
    if not categorical:
        return None
    check_categorical(categorical, [name for name, _ in engine.columns()], target, "the file")
    return list(categorical)


def _features(engine, target: str, drop: Sequence[str]) -> list[str] | None:
    """The feature columns once ``drop`` is left out, checked against the registered
    source (None, every column but the target, when nothing is left out)."""
    if not drop:
        return None
    names = [name for name, _ in engine.columns()]
    check_categorical(drop, names, target, "the file", option="--drop")
    kept = [name for name in names if name != target and name not in drop]
    if not kept:
        raise BadInput(f"--drop leaves no feature column besides the target {target!r}.")
    return kept


def _check_encodable(engine, target: str, drop: Sequence[str]) -> None:
    """Refuse feature columns of a type the engine cannot encode (a parquet date or
    timestamp), naming the ``--drop`` that leaves them out (the engine's own sentence
    said "leave it out" without the option)."""
    from heb.data import DataError
    from heb.scale.counting import unencodable_columns, unencodable_text

    odd = unencodable_columns(engine.columns(), target, drop)
    if odd:
        raise DataError(unencodable_text(odd, f" with --drop {shlex.quote(column_list(odd))}"))


#: seconds between two progress lines of one step (a new step is printed at once)
PROGRESS_EVERY_S = 10.0
#: seconds at the start of a run without progress lines
QUIET_S = 2.0


def step_printer(
    report: Callable[[str], None],
    prefix: str,
    every: float = PROGRESS_EVERY_S,
    quiet: float = QUIET_S,
) -> Callable[[float, str], None]:
    """A ``progress(fraction, message)`` for :func:`heb.scale.cross_validate` that reports
    each new phase at once (the AODE pair scan, one query, can run for minutes: the user
    sees which step runs) and, within a phase, one line per ``every`` seconds. The first
    phase is not printed in a run's first ``quiet`` seconds: bad input, found by the first
    scan, stays a one-line error."""
    start = time.perf_counter()
    last = {"phase": None, "at": start}

    def progress(fraction: float, message: str) -> None:
        now = time.perf_counter()
        # the phase: the message's first words without numbers ("Encoded", "Fitting and
        # scoring", "Counting feature pairs")
        phase = " ".join(w for w in message.split()[:3] if not any(c.isdigit() for c in w))
        if last["phase"] is None:
            last["first"] = phase
        if phase == last.get("first") and now - start < quiet:
            last["phase"] = phase
            return
        if message == "Done" or (phase == last["phase"] and now - last["at"] < every):
            return
        last.update(phase=phase, at=now)
        report(f"{prefix}{message} ({fraction:.0%}, {now - start:.0f} s)")

    return progress


def _run_frame(folds: pd.DataFrame, name: str, label: str, k_max: int) -> pd.DataFrame:
    """One run's folds labelled as ``bench``'s long frame (a variant's method names, the
    input's K_max, which decides Table 3)."""
    frame = folds.assign(dataset=name, variant=label, k_max=k_max)
    if label.startswith("Lidstone"):
        frame["method"] = label
    elif label.startswith("bins="):
        frame["method"] = frame["method"] + f" [{label}]"
    return frame


@dataclass(frozen=True)
class EngineCall:
    """Runs of ``bench`` that share one engine pass (:func:`merged_runs`).

    ``methods`` / ``params`` / ``variants`` / ``override`` are the arguments of
    :func:`heb.scale.cross_validate`; ``runs`` is each run's (label, the method names it
    reads from the result); ``title`` is the progress lines' label.
    """

    methods: list[str]
    params: dict
    variants: dict[str, str]
    override: dict
    runs: list[tuple[str, list[str]]]
    title: str


def distinct_name(name: str, spec: str, taken: set[str]) -> str:
    """``name``, or where another input of the run already has it (``car.csv`` beside
    ``car.tsv``, ``2024/sales.csv`` beside ``2025/sales.csv``), the name with the input as
    typed: the tables keep one row per input. ``taken`` gets the name returned."""
    if name in taken:
        name = f"{name} ({spec})"
    taken.add(name)
    return name


def merged_runs(runs: Sequence[tuple[str, list[str], dict, dict]]) -> list[EngineCall]:
    """``bench``'s runs as engine passes: a one-method run (a Lidstone alpha) joins the
    first run with the same settings as a labelled variant, so Table 6's sweep counts and
    scores every row once, not once per alpha. Runs with other settings (Table 7's bin
    counts) stay passes of their own."""
    calls: list[EngineCall] = []
    for label, methods, params, override in runs:
        host = next((c for c in calls if c.override == override), None)
        if host is not None and len(methods) == 1 and label not in host.methods:
            (method,) = methods
            host.methods.append(label)
            host.variants[label] = method
            host.params[label] = dict(params.get(method) or {})
            host.runs.append((label, [label]))
            continue
        names = [resolve_method_name(m) for m in methods]  # as the result names them
        calls.append(EngineCall(list(methods), dict(params), {}, dict(override), [], label))
        calls[-1].runs.append((label, names))
    return [
        c if len(c.runs) == 1 else replace(c, title=f"{c.title} + {len(c.runs) - 1} more runs")
        for c in calls
    ]


def _say_reading_notes(engine, name: str, report, drop: Sequence[str] = ()) -> None:
    """What reading the file decided (a CSV's encoding, codes kept as text, numbers mixed
    with text), each line as the in-memory run says it: but a column's own note, once it
    is left out (``drop``), and a note on several said for those kept, as in memory (the
    date note asked for the --drop just given)."""
    from heb.data.column_notes import kept_notes, left_out_note

    for note in kept_notes(engine.notes, drop):
        report(f"  {name}: {note}")
    if drop:  # as in memory (the engine path said nothing of them)
        report(f"  {name}: {left_out_note(drop)}")


def _binnable(engine, columns: tuple, runs: list, name: str, report) -> list:
    """``runs`` less those that change the bin count (Table 7) when the registered source
    has no numeric feature to bin, said in a line: they would repeat the main run's
    numbers, a full pass over every row each (in memory ``heb.cli._with_bins`` leaves such
    a dataset out of Table 7 so). ``columns`` is (target, features, declared categorical),
    as :func:`heb.scale.counting.describe` takes them."""
    from heb.scale.counting import describe

    if not any("n_bins" in run[3] for run in runs):
        return runs
    if "numeric" in describe(engine, *columns).kinds:
        return runs
    report(f"  {name}: no numeric column to bin; left out of Table 7.")
    return [run for run in runs if "n_bins" not in run[3]]


def _run_frames(call, result, name: str, on_result) -> list[pd.DataFrame]:
    """``bench``'s frames of each run a merged engine call served (``on_result`` told of
    each)."""
    frames = []
    for label, methods in call.runs:
        if on_result is not None:
            on_result(name, label, result)
        folds = result.folds[result.folds["method"].isin(methods)]
        frames.append(_run_frame(folds, name, label, result.k_max))
    return frames


def collect_on_engine(
    paths: Sequence[str],
    engine_name: str,
    runs: Callable[[str], list[tuple[str, list[str], dict, dict]]],
    settings: dict,
    report: Callable[[str], None],
    target: str | None = None,
    master: str = "local[*]",
    note: str = "",
    categorical: Sequence[str] = (),
    on_result: Callable[[str, str, object], None] | None = None,
    drop: Sequence[str] = (),
) -> pd.DataFrame:
    """Every run of every input on the engine, as ``bench``'s long frame.

    Parameters
    ----------
    paths : sequence of str
        Parquet / CSV files or folders of parquet files.
    engine_name : {"duckdb", "spark"}
    runs : callable
        ``runs(dataset name)`` -> (label, methods, overrides, settings changes) per run,
        as ``heb.cli._variants`` gives them.
    settings : dict
        ``n_splits``, ``seed``, ``n_bins``, ``missing`` (``max_rows`` is not used: every row).
    target : str, optional
        The class column; default the last column.
    note : str
        A line reported once the first cross-validation has run (what the run leaves
        out), so that bad input, found by the scans, stays a one-line error.
    on_result : callable, optional
        ``on_result(dataset name, run label, ScaleCVResult)`` after every run, e.g. to keep
        its pooled reliability bins.
    drop : sequence of str
        Columns left out of the features (a row identifier); never the target.
    """
    from heb.scale import EngineError, cross_validate
    from heb.scale.cv import check_methods

    base = {k: settings[k] for k in ("n_splits", "seed", "n_bins", "missing")}
    try:  # every run's methods and every input are checked before the engine starts
        for path in paths:
            for _, methods, params, _ in runs(data_stem(path)):
                check_methods(methods, params)
        sources = [_local_source(path) for path in paths]  # Spark takes 10 s to start
    except ValueError as exc:  # DataError is a ValueError
        raise BadInput(str(exc)) from None
    frames, taken = [], set()
    with ctrl_c_stops_the_query(lambda: open_engine(engine_name, master)) as engine:
        for index, (path, source) in enumerate(zip(paths, sources, strict=True)):
            started = time.perf_counter()
            try:
                engine.register(source)
                column = _target(engine, target)
                declared = _declared(engine, column, categorical)
                features = _features(engine, column, drop)
                _check_encodable(engine, column, drop)
                name = distinct_name(data_stem(source.path), path, taken)
                _say_reading_notes(engine, name, report, drop)
                planned = _binnable(engine, (column, features, declared), runs(name), name, report)
                said: list[str] = []  # the runs' notes (rare classes), once, as in memory
                for call in merged_runs(planned):
                    result = cross_validate(
                        engine,
                        column,
                        call.methods,
                        params=call.params,
                        variants=call.variants,
                        categorical=declared,
                        features=features,
                        progress=step_printer(report, f"  {name} · {call.title}: "),
                        **{**base, **call.override},
                    )
                    if note:  # after a first run: bad data (one class) is its error alone
                        report(note)
                        note = ""
                    said += [n for n in result.notes if n not in said]
                    frames += _run_frames(call, result, name, on_result)
            except (ValueError, EngineError) as exc:  # DataError is a ValueError
                raise BadInput(str(exc)) from None
            shown = ENGINE_NAMES.get(result.engine, result.engine)
            report(
                f"[{index + 1}/{len(paths)}] {name}: {result.n_rows:,} rows on "
                f"{shown}, target {column!r}, {time.perf_counter() - started:.1f} s"
            )
            for said_note in said:
                report(f"  {name}: {said_note}")
    return pd.concat(frames, ignore_index=True)
