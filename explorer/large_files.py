"""A large file as the view's data: a parquet / CSV file or folder under the data root.

Every number here is computed by an engine (:mod:`heb.scale`, DuckDB in this process) on
all rows: the Dataset page's header and feature table, HEB-M's concentrations on the
Concentrations page and a cross-validated Compare, each with a progress bar and a Cancel
button. The choice is part of the view (:data:`explorer.state.LARGE_FILE`): it carries
across pages and in links as ``?large_file=<name>``. The file is only ever named relative
to one configured data root (env ``HEB_DATA_ROOT``, else ``[heb] data_root`` in
``.streamlit/secrets.toml``); a link naming anything else is refused with a message.

A scan runs on a background thread of the server (:class:`Scan`) while the page's script
polls it: the bar moves with DuckDB's own progress of the running query (the counting and
the AODE pair scans are one query each) and with the engine's reports between queries.
Cancel interrupts the running query (``DuckDBEngine.interrupt``) and waits until the scan's
thread has ended, its temporary files removed; nothing of a cancelled scan is kept. A
scan whose browser session has gone is cancelled the same way.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from explorer import commands, large_drop, state, style
from explorer.display import (
    MISSING_SHARE_COLUMN,
    download_buttons,
    show_figure,
    show_id_like_warnings,
    show_table,
)
from explorer.errors import escape, show_error, show_info
from explorer.loading import taken_target_note
from explorer.summaries import code_note, every_row_its_own, id_like_note, looks_like_code
from heb import figures, registry
from heb.data import DataError, default_target
from heb.data.column_notes import kept_notes
from heb.data.dataset import is_id_like_name
from heb.nb import NaiveBayes
from heb.paths import user_path
from heb.scale.cv import ENGINE_FAMILIES
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import (
    DATA_ROOT_ENV,
    PARQUET_SUFFIXES,
    SOURCE_SUFFIXES,
    Source,
    is_partition_name,
    open_source,
    resolve_data_path,
)
from heb.text import and_list

__all__ = [
    "CONFIGURE_HELP",
    "ENGINE_LABEL",
    "Cancelled",
    "LargeFile",
    "Scan",
    "active",
    "check_name",
    "compare_view",
    "concentrations_view",
    "configured_root",
    "engine_methods",
    "left_out_methods",
    "list_sources",
    "overview",
    "progress_reporter",
    "show_large_file_source",
    "show_refusal",
]

CONFIGURE_HELP = (
    f"No data root is configured. Set the environment variable {DATA_ROOT_ENV} to the folder "
    "your large files live in, or put a section [heb] holding the line "
    'data_root = "/path/to/folder" in .streamlit/secrets.toml, and restart the app.'
)
#: under a scan's data error (a one-valued target, a date column, ...): "Count again"
#: alone suggested that another try could succeed
DATA_ERROR_NOTE = (
    "This comes from the file's rows or the chosen target column: choose another target "
    "or file in the Dataset page's Large file section (Count again reads the file again, "
    "for a file that has been changed)."
)
#: the engine's name in every text the user reads
ENGINE_LABEL = "DuckDB"
_REFUSED = "large_file_refused"
#: at most this many files and folders are offered in the list
_MAX_LISTED = 500
#: session names: the running scans (kind -> Scan), finished results, the cancelled keys
_SCANS, _RESULTS, _CANCELLED = "_large_scans", "_large_results", "_large_cancelled"
#: the last scan of each kind that ended without a result (why is said on later runs too)
_ENDED = "_large_ended"
#: session name: file -> the :class:`TakenTarget` (its result left out) of a column taken as
#: the target for its last one, until the user chooses a target
_TAKEN = "_large_taken_targets"
#: session name of the large-file comparisons run so far, by their key without what-ifs
_COMPARED = "_large_compared"
#: session name: each comparison's key -> (its key without what-ifs, its what-if params)
_COMPARE_RUNS = "_large_compare_runs"
#: finished results a session keeps (a describe, concentrations or compare result each)
_KEPT_RESULTS = 16
#: how often a page looks at its running scan (and the scan's driver at its cancel flag)
POLL_SECONDS = 0.25
#: how long a Cancel waits for the scan's thread to end before saying it is still stopping
STOP_WAIT_SECONDS = 30.0
#: a browser session away this long has gone: its scan is cancelled
GONE_SECONDS = 15.0
CANCELLED_TEXT = "Cancelled: DuckDB's scan was stopped and nothing was kept."
#: the note of a cancelled scan, naming the phase it was in (the engine's last report)
CANCELLED_PHASE_TEXT = "Cancelled while {phase}: DuckDB's work was stopped and nothing was kept."
#: the note of a link (or an earlier choice) naming columns to read as categories that the
#: large file does not have as features
LARGE_CATEGORICAL_LINK_NOTE = (
    "The link reads {columns} of the large file {file} as categories, but these are not "
    "its feature columns: left out."
)


class Cancelled(Exception):
    """The user pressed Cancel while an engine scan was running."""


# --------------------------------------------------------------------------- the root
def _root_setting() -> tuple[str, str] | None:
    """The data root as configured, ``(value, where it is set)``, or None when it is not."""
    value = os.environ.get(DATA_ROOT_ENV)
    if value:
        return value, f"the environment variable {DATA_ROOT_ENV}"
    try:
        value = (st.secrets.get("heb") or {}).get("data_root")
    except Exception:  # noqa: BLE001 - no secrets file at all is the usual case
        value = None
    return (str(value), "data_root in .streamlit/secrets.toml") if value else None


def configured_root() -> Path | None:
    """The data root: env ``HEB_DATA_ROOT``, else the secret ``[heb] data_root``, else None
    (also when the setting names no folder: :func:`root_help` says which)."""
    setting = _root_setting()
    if setting is None:
        return None
    path = user_path(setting[0]).resolve()
    return path if path.is_dir() else None


def _no_root() -> str:
    """The end of a sentence on why a large file cannot be opened: no data root is set,
    or the one set is not a folder."""
    if _root_setting() is None:
        return f"no data root is configured; set {DATA_ROOT_ENV} to open it."
    return "the data root configured is not a folder that exists (see the Dataset page)."


def too_many_cells_hint() -> str:
    """Said under an upload refused for its size in cells (``TooManyCells``): the Large file
    source counts every row of such a file, with what it needs (a data root) when none is
    configured. As the command line names ``--engine`` for it."""
    if configured_root() is not None:
        return (
            "The Large file source below counts every row of a file this size without "
            "loading it: put the file in the data root's folder and choose it there."
        )
    return (
        "The Large file source below counts every row of a file this size without loading "
        f"it, from a folder the app is started with ({DATA_ROOT_ENV}, see there)."
    )


def root_help() -> str:
    """Why there is no data root, as one message: none is configured (:data:`CONFIGURE_HELP`)
    or the one configured is not a folder; the page said "No data root is configured" to
    an analyst whose ``HEB_DATA_ROOT`` held a typo. The folder is named by its last part
    only, as ``heb.scale.source.data_root`` names it (a server's paths stay its own)."""
    setting = _root_setting()
    if setting is None:
        return CONFIGURE_HELP
    value, where = setting
    return (
        f"The data root set by {where}, {Path(value).name!r}, is not a folder that exists; "
        "correct it and restart the app."
    )


def list_sources(root: Path) -> list[str]:
    """Names (relative to ``root``) of its parquet / CSV files, folders holding parquet and
    Hive-style tables (the folder above key=value partitions holding parquet); a link that
    leads out of ``root`` is not offered (choosing it is refused)."""
    found: list[tuple[Path, str]] = []

    def inside(path: Path) -> bool:  # only a link can lead out of the root
        return not path.is_symlink() or path.resolve().is_relative_to(root)

    def holds_parquet(entries) -> bool:
        return any(Path(e).suffix.lower() in PARQUET_SUFFIXES for e in entries)

    # one walk, a stat per folder and per top-level file: resolving and testing every
    # path of the tree (rglob) took 1.4 s on every run of the Dataset page for a root
    # holding 50 partition folders of 400 parquet files
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        relative = here.relative_to(root)
        if here != root and holds_parquet([*dirs, *files]):
            found.append((relative, relative.as_posix() + "/"))
        if here == root:
            for name in files:
                path = here / name
                if name.lower().endswith(SOURCE_SUFFIXES) and path.is_file() and inside(path):
                    found.append((Path(name), name))
        for name in dirs:  # a linked folder is listed, not walked (as rglob did)
            path = here / name
            if path.is_symlink() and inside(path) and holds_parquet(os.listdir(path)):
                found.append((relative / name, (relative / name).as_posix() + "/"))
    folders = {path for path, name in found if name.endswith("/")}
    tables = {table for path in folders for table in _tables_of(path)} - folders  # once each
    found += [(table, table.as_posix() + "/") for table in tables]
    return [name for _, name in sorted(found)][:_MAX_LISTED]


def _tables_of(partition: Path) -> list[Path]:
    """The tables a partition folder's rows belong to: the folder above its trailing
    key=value parts, and each partition between (``geo/country=DE/`` of
    ``geo/country=DE/date=1/``, a table keyed by date); none when the folder is not a
    partition, or its table would be the data root itself."""
    parts = partition.parts
    depth = len(parts)
    while depth and is_partition_name(parts[depth - 1]):
        depth -= 1
    return [Path(*parts[:end]) for end in range(depth, len(parts)) if end > 0]


def check_name(name: str, root: Path) -> Source:
    """The checked :class:`~heb.scale.source.Source` of a name from the page or the URL.

    Raises
    ------
    DataError
        An absolute or home-relative path (``~``, ``~/x``, ``~ann/x``; a file named
        ``~x.parquet`` under the root is its own name), a path leaving the root, a missing
        file, or a file that is neither parquet nor delimited text (one sentence each).
    """
    home = user_path(name) != Path(name)
    if Path(name).is_absolute() or home or name.startswith("\\") or ":" in name:
        raise DataError(
            f"The name {name!r} is not a path relative to the data root; only files under "
            f"{DATA_ROOT_ENV} can be opened."
        )
    resolve_data_path(name, root)
    return open_source(name, root)


def _identity(source: Source) -> str:
    """Names (in a partitioned table, paths), sizes and modification times of the source's
    files: its cache identity."""

    def name(file: Path) -> str:  # a partition's file name repeats in the others
        return file.relative_to(source.path).as_posix() if source.partition_keys else file.name

    return repr([(name(f), f.stat().st_size, f.stat().st_mtime_ns) for f in source.files])


# --------------------------------------------------------------------------- the view's file
@dataclass(frozen=True)
class LargeFile:
    """The view's large file, checked inside the data root, and its target column."""

    name: str
    root: str
    identity: str
    target: str
    columns: tuple[str, ...]
    #: numeric feature columns read as categories (``?large_categorical=``), sorted
    categorical: tuple[str, ...] = ()
    #: each column's engine family ("integer", "float", "text", ...)
    families: tuple[str, ...] = ()
    #: a partitioned table's keys (its first columns)
    partition_keys: tuple[str, ...] = ()
    #: whether the target was chosen (the picker, a link, a column taken for the last),
    #: else the last column by default, which the describe scan may replace
    chosen: bool = False
    #: feature columns no scan counts (``?large_drop=``, :mod:`explorer.large_drop`), sorted
    dropped: tuple[str, ...] = ()

    @property
    def numeric_features(self) -> list[str]:
        """The feature columns the engine bins as numbers unless declared categorical (an
        integer column with an ID-like name is categorical already, as in memory)."""
        return [
            c
            for c, family in zip(self.columns, self.families, strict=False)
            if c != self.target
            and c not in self.dropped
            and (family == "float" or (family == "integer" and not is_id_like_name(c)))
        ]


@st.cache_data(show_spinner=False, max_entries=32)
def source_families(name: str, root: str, identity: str) -> list[tuple[str, str]]:
    """The source's (column, engine family) pairs as the engine reads them (DESCRIBE)."""
    engine = _engine(name, root)
    try:
        return [(column, family) for column, family in engine.columns()]
    finally:
        engine.close()


def source_columns(name: str, root: str, identity: str) -> list[str]:
    """The source's column names as the engine reads them (DESCRIBE: no scan)."""
    return [column for column, _ in source_families(name, root, identity)]


def _refuse(exc: DataError) -> None:
    """Drop the view's large file, keeping why for :func:`show_refusal`."""
    st.session_state[_REFUSED] = exc
    state.set_large_file("")


def active() -> LargeFile | None:
    """The view's large file (``?large_file=``), checked inside the data root, or None.

    A name that is not under the root (or no root configured) is dropped from the view and
    its error kept, shown by :func:`show_refusal` until another file is chosen.
    """
    name = state.large_file()
    if not name:
        return None
    root = configured_root()
    try:
        if root is None:
            raise DataError(f"The link names the large file {name!r}, but {_no_root()}")
        source = check_name(name, root)
        identity = _identity(source)
        families = dict(source_families(name, str(root), identity))
        columns = list(families)
    except DataError as exc:
        _refuse(exc)
        return None
    st.session_state.pop(_REFUSED, None)
    targets = st.session_state.setdefault(state.LARGE_TARGET, {})
    target = targets.get(name)
    chosen = target in columns
    if not chosen:  # none chosen, or a link's that the file does not have
        targets.pop(name, None)
        target = default_target(columns)
    dropped = large_drop.checked(name, columns, target)
    declared = state.large_categorical(name)
    kept = [c for c in declared if c in columns and c != target and c not in dropped]
    if len(kept) < len(declared):  # a link's (or an earlier target's) columns the file lacks
        ignored = [c for c in declared if c not in kept]
        state.set_large_categorical(name, kept)
        state.note_ignored_columns(LARGE_CATEGORICAL_LINK_NOTE, ignored, name)
    return LargeFile(
        name,
        str(root),
        identity,
        target,
        tuple(columns),
        tuple(sorted(kept)),
        tuple(families[c] for c in columns),
        source.partition_keys,
        chosen,
        dropped,
    )


def show_refusal() -> None:
    """The error of a large-file name that was refused (kept until another is chosen)."""
    if _REFUSED in st.session_state:
        show_error(st.session_state[_REFUSED], "opening the large file")
        st.caption(
            "So the pages use the sidebar's dataset; choose another large file on the Dataset "
            "page, or dismiss this with the sidebar's dataset choice."
        )


# --------------------------------------------------------------------------- engine work
class _AppEngine(DuckDBEngine):
    """The app's DuckDB: the progress of its running query is readable from another thread."""

    def __init__(self) -> None:
        super().__init__()
        self._con.execute("SET enable_progress_bar = true")
        self._con.execute("SET enable_progress_bar_print = false")

    def query_progress(self) -> float:
        """The running query's share done (0-1), or -1 when none runs or it is unknown."""
        try:
            value = float(self._con.query_progress())
        except Exception:  # noqa: BLE001 - closed or between queries
            return -1.0
        return value / 100.0 if value >= 0 else -1.0


def _engine(name: str, root: str) -> _AppEngine:
    engine = _AppEngine()
    try:
        engine.register(open_source(name, root))
    except BaseException:
        engine.close()
        raise
    return engine


def progress_reporter(
    update: Callable[[float, str], None], cancelled: Callable[[], bool]
) -> Callable[[float, str], None]:
    """A ``progress(fraction, message)`` for :func:`heb.scale.cross_validate`.

    Calls ``update`` and raises :class:`Cancelled` once ``cancelled()`` is true, which
    stops the engine's work between queries (a query running meanwhile is stopped by
    ``DuckDBEngine.interrupt``, see :class:`Scan`).
    """

    def report(fraction: float, message: str) -> None:
        if cancelled():
            raise Cancelled(CANCELLED_TEXT)
        update(min(max(float(fraction), 0.0), 1.0), message)

    return report


#: the engine's progress of a compare (heb.scale.cv: counting 0, AODE pairs 0.05, rows
#: spilled 0.1-0.5, folds scored 0.5-1) and where the bar shows it: the pair scan is one
#: query of minutes on a large file, so it gets the room its time takes
_COMPARE_STEPS = {
    True: ((0.0, 0.05, 0.1, 0.5, 1.0), (0.0, 0.05, 0.45, 0.6, 1.0)),
    False: ((0.0, 0.1, 0.5, 1.0), (0.0, 0.1, 0.3, 1.0)),
}


class Scan:
    """Engine work on a background thread, with its progress, its result and Cancel.

    Parameters
    ----------
    key : str
        What the work computes (its result is kept under it).
    work : callable
        ``work(engine, report) -> result``; ``report(fraction, message)`` raises
        :class:`Cancelled` once the scan is cancelled.
    name, root : str
        The source, registered with a fresh engine on the scan's thread.
    steps : tuple, optional
        (engine fractions, bar fractions) breakpoints; the running query's own progress
        fills the step whose start the engine last reported.
    session_id : str, optional
        The browser session waiting for it: once gone for :data:`GONE_SECONDS` the scan is
        cancelled.
    """

    def __init__(self, key, work, name, root, steps=None, session_id=None):
        self.key, self.steps, self.session_id = key, steps, session_id
        self.fraction, self.message = 0.0, "Opening the file on DuckDB"
        self.result, self.error = None, None
        self.engine: _AppEngine | None = None
        self.cancelled, self.done = threading.Event(), threading.Event()
        self.started = time.monotonic()
        self.elapsed = 0.0
        self._shown = 0.0
        self._work = threading.Thread(
            target=self._run, args=(work, name, root), daemon=True, name="heb-large-scan"
        )
        self._work.start()
        threading.Thread(target=self._watch, daemon=True, name="heb-large-watch").start()

    def report(self, fraction: float, message: str) -> None:
        """The engine's progress (raises :class:`Cancelled` once cancelled)."""
        if self.cancelled.is_set():
            raise Cancelled(CANCELLED_TEXT)
        self.fraction, self.message = min(max(float(fraction), 0.0), 1.0), message

    def _run(self, work, name, root) -> None:
        try:
            # the engine is the scan's before the file is registered, so a Cancel stops a
            # CSV's typing scan and UTF-8 copy too (they took 12 s of 6 x 10^6 rows), and
            # the bar shows that scan's progress
            self.engine = _AppEngine()
            self.engine.register(open_source(name, root))
            self.report(0.0, self.message)  # cancelled while the file was opened
            self.result = work(self.engine, self.report)
        except BaseException as exc:  # noqa: BLE001 - handed to the page
            self.error = exc
        finally:
            if self.engine is not None:
                self.engine.close()
            self.elapsed = time.monotonic() - self.started
            self.done.set()

    def _watch(self) -> None:
        """Interrupt the engine's query while cancelled (a query started after one
        interrupt runs on, so it is repeated until the work has ended)."""
        gone_since = None
        while not self.done.wait(POLL_SECONDS):
            if not self.cancelled.is_set() and self.session_id is not None:
                if _session_active(self.session_id):
                    gone_since = None
                else:
                    gone_since = gone_since or time.monotonic()
                    if time.monotonic() - gone_since > GONE_SECONDS:
                        self.cancelled.set()
            if self.cancelled.is_set() and self.engine is not None:
                try:
                    self.engine.interrupt()
                except Exception:  # noqa: BLE001 - closed meanwhile: the work is ending
                    pass

    def cancel(self) -> None:
        """Stop the work: its running query is interrupted, its next report raises."""
        self.cancelled.set()
        if self.engine is not None:
            try:
                self.engine.interrupt()
            except Exception:  # noqa: BLE001 - closed meanwhile
                pass

    @property
    def was_cancelled(self) -> bool:
        """Whether the work ended because it was cancelled (whatever the engine raised)."""
        return self.done.is_set() and self.cancelled.is_set() and self.result is None

    def view(self) -> tuple[float, str]:
        """The bar's fraction and text: step, DuckDB's estimate of the query, time.

        With ``steps`` the bar never goes back; without, it follows the running query.
        """
        running = self.engine.query_progress() if self.engine is not None else -1.0
        fraction = self.fraction
        if self.steps is None:  # a scan of a few queries: the bar follows the running one
            self._shown = running if running >= 0 else fraction
        else:
            engine_at, bar_at = self.steps
            shown = float(np.interp(fraction, engine_at, bar_at))
            later = [b for e, b in zip(engine_at, bar_at, strict=True) if e > fraction]
            if running >= 0 and fraction in engine_at and later:
                shown += running * (later[0] - shown)  # a step that is one query
            self._shown = max(self._shown, min(shown, 1.0))  # never back within a run
        message = self.message.replace("duckdb", ENGINE_LABEL)
        if running >= 0.01:  # DuckDB's own estimate (coarse: the pair scan's ends early)
            message += f" · DuckDB's estimate: {running:.0%} of this query"
        seconds = int(time.monotonic() - self.started)
        return self._shown, f"{message} · {seconds // 60}:{seconds % 60:02d}"


def _session_active(session_id: str) -> bool:
    """Whether the browser session ``session_id`` is still connected (True outside a server)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return True
        return bool(Runtime.instance().is_active_session(session_id))
    except Exception:  # noqa: BLE001 - no runtime (tests, bare mode)
        return True


def _session_id() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_id


def _results() -> OrderedDict:
    return st.session_state.setdefault(_RESULTS, OrderedDict())


def _keep(key: str, result) -> None:
    results = _results()
    results[key] = result
    results.move_to_end(key)
    while len(results) > _KEPT_RESULTS:
        results.popitem(last=False)


def _start(kind: str, key: str, work, large: LargeFile, steps=None) -> None:
    """Start ``work`` as the session's scan of ``kind`` (a scan of it under way is cancelled)."""
    scans = st.session_state.setdefault(_SCANS, {})
    old = scans.get(kind)
    if old is not None and not old.done.is_set():
        old.cancel()
    st.session_state.setdefault(_CANCELLED, {}).pop(kind, None)
    scans[kind] = Scan(key, work, large.name, large.root, steps, _session_id())


def _cancel(kind: str) -> None:
    """Callback of a Cancel button."""
    scan = st.session_state.get(_SCANS, {}).get(kind)
    if scan is not None:
        scan.cancel()


def _scan_of(kind: str, key_of, work, large: LargeFile, auto: bool, steps=None):
    """The result of ``work`` under the key ``key_of(large)``: kept, else the session's scan
    of ``kind`` polled until it ends (progress bar and Cancel meanwhile); None while there
    is none.

    ``auto``: start the scan when there is none (else a button does, through
    :func:`_start`); a cancelled key waits for a button (:func:`_again_button`). A result
    for another target than the last column, which could not be one (a
    :class:`TakenTarget` of :func:`_for_target`), makes that column the target
    (:func:`_take`) and runs the page again: every page that scans the file first takes
    the same column.
    """
    found = _scan_result(kind, key_of(large), work, large, auto, steps)
    if isinstance(found, TakenTarget):
        _take(large, found, key_of)
    return found


def _scan_result(kind: str, key: str, work, large: LargeFile, auto: bool, steps):
    """:func:`_scan_of`'s result under ``key``, as the scan left it."""
    results = _results()
    if key in results:
        results.move_to_end(key)
        return results[key]
    scan = _current_scan(kind, key, work, large, auto, steps)
    if scan is None:
        _said_again(kind, key)
        return None
    if scan.key != key:
        st.caption("A scan for earlier settings is still running; cancel it to start this one.")
    if scan.cancelled.is_set() and not scan.done.is_set():
        with st.spinner("Stopping DuckDB's scan..."):
            scan.done.wait(STOP_WAIT_SECONDS)
    if not scan.done.is_set():
        _watch(kind, scan)
    if not scan.done.is_set():  # still stopping after the wait: said, then looked at again
        show_info("Stopping DuckDB's scan: it ends at its next step. Reload to look again.")
        return None
    return _finish(kind, scan, key)


def _current_scan(kind: str, key: str, work, large: LargeFile, auto: bool, steps):
    """The session's scan of ``kind`` to show for ``key``, started if ``auto``; or None."""
    scans = st.session_state.setdefault(_SCANS, {})
    scan = scans.get(kind)
    if scan is not None and scan.key != key:
        if auto:  # settings changed: the scan of the old ones is cancelled by _start
            scan = None
        elif scan.done.is_set():  # an earlier run ended out of sight: kept if it finished
            del scans[kind]
            if scan.result is not None and scan.error is None:
                _keep(scan.key, scan.result)
            scan = None
    if scan is None:
        if not auto or st.session_state.setdefault(_CANCELLED, {}).get(kind) == key:
            return None
        _start(kind, key, work, large, steps)
        scan = scans[kind]
    return scan


def _finish(kind: str, scan: Scan, key: str):
    """A scan that has ended: its result kept (and returned when it is ``key``'s), or
    why it has none said (a cancelled or failed key waits for its button)."""
    del st.session_state[_SCANS][kind]
    if scan.result is not None and scan.error is None:
        _keep(scan.key, scan.result)
        return scan.result if scan.key == key else None
    st.session_state.setdefault(_CANCELLED, {})[kind] = scan.key
    st.session_state.setdefault(_ENDED, {})[kind] = scan
    _say_why(scan)
    return None


def _say_why(scan: Scan) -> None:
    """Why a scan that ended has no result: cancelled (and after how long) or its error."""
    if scan.was_cancelled or isinstance(scan.error, Cancelled):
        show_info(f"{cancelled_text(scan.message)} It ran {scan.elapsed:.1f} s.")
    else:
        show_error(scan.error, "scanning the large file")
        if isinstance(scan.error, DataError):  # the data's, not the engine's: say the way on
            st.caption(DATA_ERROR_NOTE)


def _said_again(kind: str, key: str) -> None:
    """On a later run of the page, why ``key``'s scan of ``kind`` ended without a result
    (said once by :func:`_finish`; the next run, e.g. after a sidebar change, showed a bare
    "Count again" button)."""
    ended = st.session_state.get(_ENDED, {}).get(kind)
    if ended is not None and ended.key == key == st.session_state.get(_CANCELLED, {}).get(kind):
        _say_why(ended)


def cancelled_text(message: str) -> str:
    """The note of a scan cancelled while the engine reported ``message`` (its phase named:
    "counting every row", "fitting and scoring fold 2 of 10", ...)."""
    phase = str(message or "").replace("duckdb", ENGINE_LABEL).strip().rstrip(".")
    if not phase:
        return CANCELLED_TEXT
    phase = phase.replace(f" on {ENGINE_LABEL}", "")
    return CANCELLED_PHASE_TEXT.format(phase=phase[:1].lower() + phase[1:])


def _watch(kind: str, scan: Scan) -> None:
    """Progress bar and Cancel button of a running scan, until it ends.

    A click on Cancel stops this script (Streamlit raises at its next element update,
    at most :data:`POLL_SECONDS` later); its callback interrupts the scan, and the next
    run waits for the scan's thread to end before it says so.
    """
    holder = st.empty()
    with holder.container():
        st.button("Cancel", key=f"large_cancel_{kind}", on_click=_cancel, args=(kind,))
        fraction, text = scan.view()
        bar = st.progress(fraction, text=escape(text))
    shown = (fraction, text)
    while not scan.done.wait(POLL_SECONDS):
        now = scan.view()
        if now != shown:  # the text names the seconds: at least one update a second
            bar.progress(now[0], text=escape(now[1]))
            shown = now
    holder.empty()


def _again_button(kind: str, label: str, key: str, work, large: LargeFile, steps=None) -> bool:
    """A button starting the scan again after a cancel or an error; whether it was drawn."""
    if st.session_state.get(_CANCELLED, {}).get(kind) != key:
        return False
    again = (kind, key, work, large, steps)
    st.button(label, key=f"large_again_{kind}", on_click=_start, args=again)
    return True


# --------------------------------------------------------------------------- methods
#: why a registry family cannot run on the engine path (shown on the Compare page)
LEFT_OUT = {
    "HEB-H": "its hierarchies are found among the in-memory codes of one fold, which the "
    "engine's per-fold encodings do not share (on every row it would be HEB-M)",
    "tan": "its tree needs every feature pair's conditional mutual information per "
    "training fold, which DuckDB's scans do not count",
    "reference": "a scikit-learn model needs every row in memory",
}


def engine_methods(methods) -> list[str]:
    """The chosen methods the engine path fits: NB smoothers and AODE (not HEB-H)."""
    return [
        m
        for m in methods
        if registry.method(m).family in ENGINE_FAMILIES
        and registry.method(m).params.get("smoother") != "heb-h"
    ]


def left_out_methods(methods) -> dict[str, str]:
    """The chosen methods the engine path cannot run, each with why (one clause)."""
    out = {}
    for name in methods:
        if name in engine_methods([name]):
            continue
        entry = registry.method(name)
        out[name] = LEFT_OUT["HEB-H"] if entry.family == "nb" else LEFT_OUT[entry.family]
    return out


# --------------------------------------------------------------------------- the scans
@dataclass(frozen=True)
class TakenTarget:
    """A scan's result for another target than the file's last column, which could not be
    one: the result, the column taken, the last column and its error's text, and the
    column's kind and distinct values (the note, :func:`taken_note`, says them)."""

    result: object
    target: str
    last: str
    error: str
    kind: str
    distinct: int
    #: nearer candidates whose own scan failed
    passed_over: tuple[str, ...] = ()


def _for_target(run, target: str, chosen: bool, dropped=()):
    """The work ``run(engine, report, target)`` of a scan, under the rule for a target the
    user did not choose (the Dataset, Concentrations and Compare pages' scans alike).

    When ``target`` is the last column by default (not ``chosen``) and ``run`` fails on it
    with a :class:`~heb.data.DataError` (an ID, one value, a measurement, an empty
    column: :func:`~heb.scale.counting.check_target_values` refuses it; a last column
    that is a fine target keeps its error, so a comparison failing for another reason is
    not run again per candidate), ``run`` is tried on each of the engine's fallback
    targets in turn (:func:`heb.scale.target_choice.fallback_targets`, the in-memory
    upload's rule; at most :data:`~heb.data.targets.TARGET_CANDIDATES`): the first that
    works is a
    :class:`TakenTarget`. When none does, the last column's error is raised (the one
    sentence about the column the page names; a candidate's error would name a column
    the user never chose). A column left out (``dropped``) is never tried.
    """

    def work(engine, report):
        try:
            return run(engine, report, target)
        except DataError as error:
            if chosen or _can_be_target(engine, target):
                raise
            from heb.scale.target_choice import fallback_targets

            report(0.0, "Looking for a column that reads as classes")
            passed_over = []
            for column, kind, distinct in fallback_targets(engine):
                if column in dropped:
                    continue
                report(0.0, f"Trying the column {column} as the target")
                try:
                    result = run(engine, report, column)
                except DataError:  # its own scan fails (e.g. no feature where it has values)
                    passed_over.append(column)
                    continue
                return TakenTarget(
                    result, column, target, str(error), kind, distinct, tuple(passed_over)
                )
            raise

    return work


def _can_be_target(engine, column: str) -> bool:
    """Whether ``column``'s values pass the target check (a scan of that column alone)."""
    from heb.scale.counting import check_target_values

    try:
        check_target_values(engine, column)
    except DataError:
        return False
    return True


def _take(large: LargeFile, taken: TakenTarget, key_of) -> None:
    """Make ``taken``'s column the file's target as if chosen (it carries across pages and
    in links), keep its result under the key the page's next run asks (``key_of`` of the
    file with that target) and run the page again."""
    st.session_state.setdefault(state.LARGE_TARGET, {})[large.name] = taken.target
    st.session_state.setdefault(_TAKEN, {})[large.name] = replace(taken, result=None)
    categorical = tuple(c for c in large.categorical if c != taken.target)  # as active()'s
    retargeted = replace(large, target=taken.target, chosen=True, categorical=categorical)
    _keep(key_of(retargeted), taken.result)
    st.rerun()


def taken_note(large: LargeFile, where: str) -> str | None:
    """Why the target is a column taken for the file's last one (the Target column picker
    being ``where``), or None when the target is not that column, or the user chose it
    (:func:`_on_target`)."""
    taken = st.session_state.get(_TAKEN, {}).get(large.name)
    if taken is None or taken.target != large.target:
        return None
    return taken_target_note(
        taken.error,
        taken.target,
        taken.last,
        taken.kind,
        taken.distinct,
        where,
        taken.passed_over,
    )


def _describe(
    target: str, n_bins: int, missing: str, categorical=(), chosen: bool = True, dropped=()
):
    """The describe scan (:func:`_for_target`'s rule when the target was not ``chosen``),
    ``dropped`` left out."""

    def run(engine, report, column: str):
        from heb.scale import summarise_source

        report(0.0, "Counting every value on DuckDB")
        summary = summarise_source(
            engine,
            column,
            large_drop.feature_columns(engine, column, dropped),
            categorical=list(categorical) or None,
            n_bins=n_bins,
            missing=missing,
        )
        # the Concentrations page's result from the same counts (seconds, where a second
        # scan of every row takes minutes); the counts themselves are not kept
        return replace(summary, counts=None), _smoothed(summary.counts, report)

    return _for_target(run, target, chosen, dropped)


def _concentrations(
    target: str,
    n_bins: int,
    missing: str,
    categorical=(),
    chosen: bool = True,
    dropped=(),
):
    """HEB's concentrations of every row (:func:`_for_target`'s rule when the target was
    not ``chosen``), ``dropped`` left out: one scan, re-smoothed by each of the page's
    models (``{smoother: frame}``, :data:`explorer.concentrations.SMOOTHER`'s), so a change
    of model reads no row again (a re-smoothing takes seconds, a scan of every row
    minutes)."""

    def run(engine, report, column: str):
        from heb.scale import fit_counts

        report(0.0, "Counting every row on DuckDB")
        fitted = fit_counts(
            engine,
            column,
            large_drop.feature_columns(engine, column, dropped),
            n_bins=n_bins,
            missing=missing,
            categorical=list(categorical) or None,
        )
        return _smoothed(fitted, report)

    return _for_target(run, target, chosen, dropped)


def _smoothed(fitted, report):
    """The Concentrations page's result of a scan's counts (``fitted``, a
    :class:`heb.scale.FittedCounts`): ``({smoother: frame}, rows, classes, features)``, a
    frame of HEB's learned m per (class, feature) for each of the page's models
    (:data:`explorer.concentrations.SMOOTHER`'s)."""
    from explorer.concentrations import SMOOTHER

    frames = {}
    for smoother in SMOOTHER.values():
        report(1.0, f"Learning {smoother.upper()}'s concentrations from the counts")
        diag = NaiveBayes(smoother=smoother).fit_counts(fitted.table).concentrations_
        frame = pd.DataFrame(diag)
        frame.insert(0, "class name", [str(fitted.classes[c]) for c in frame["class"]])
        frame.insert(1, "feature name", [fitted.features[f] for f in frame["feature"]])
        frames[smoother] = frame
    return frames, fitted.n_rows, [str(c) for c in fitted.classes], list(fitted.features)


def run_compare(engine, target, methods, settings, progress):
    """:func:`heb.scale.cross_validate` of ``methods`` on every row; the result."""
    from heb.scale import cross_validate

    return cross_validate(engine, target, methods, progress=progress, **settings)


def _compare(
    target: str, methods: list[str], settings: dict, earlier=None, chosen: bool = True, dropped=()
):
    """The work of a comparison; given ``earlier`` = (its result, the methods whose
    settings changed since), only those are run and merged into it (a what-if).
    :func:`_for_target`'s rule when the target was not ``chosen``; ``dropped`` left out."""

    def run(engine, report, column: str):
        from explorer.comparison import Comparison

        started = time.perf_counter()
        features = large_drop.feature_columns(engine, column, dropped)
        settings_now = settings if features is None else {**settings, "features": features}
        if earlier is None:
            result = run_compare(engine, column, methods, settings_now, report)
        else:
            base, changed = earlier
            # the changed methods' what-ifs alone: heb.scale refuses values for a method
            # a run leaves out (the unchanged ones keep the earlier scan's numbers)
            params = {m: p for m, p in settings_now.get("params", {}).items() if m in changed}
            update = run_compare(
                engine, column, changed, {**settings_now, "params": params}, report
            )
            result = base.with_methods_of(update, methods)
            kept = [note for note in result.notes if not note.startswith(_RESCORED)]
            result.notes = [*kept, rescored_note(changed)]  # this scan's, not an earlier one's
        return Comparison(result, time.perf_counter() - started)

    return _for_target(run, target, chosen, dropped)


_RESCORED = "This scan re-scored "


def rescored_note(changed: list[str]) -> str:
    """What a merged what-if run says: which methods this scan scored."""
    return (
        f"{_RESCORED}{', '.join(changed)} only, for the what-if; the other methods' numbers "
        "are the earlier scan's (the same rows, folds and encodings, so the same numbers)."
    )


def _earlier_compare(base_key: str, params: dict, methods: list[str]):
    """The latest kept comparison of ``base_key`` (same file, methods and settings but the
    what-ifs) and the methods whose what-if settings differ from it; None when none is
    kept or every method changed."""
    runs = st.session_state.get(_COMPARE_RUNS, {})
    results = _results()
    for key in reversed(results):
        base, earlier_params = runs.get(key, (None, None))
        if base == base_key:
            if isinstance(results[key], TakenTarget):  # run for another target: not this one
                return None
            changed = [m for m in methods if params.get(m, {}) != earlier_params.get(m, {})]
            if 0 < len(changed) < len(methods):
                return results[key].result, changed
            return None
    return None


# --------------------------------------------------------------------------- page parts
def _on_target(name: str, widget: str) -> None:
    """Callback of the Target column picker: the user's choice, so a column taken for the
    last one is no longer "taken for you" (picked again, its note came back)."""
    st.session_state.setdefault(state.LARGE_TARGET, {})[name] = st.session_state[widget]
    st.session_state.get(_TAKEN, {}).pop(name, None)


def _choose(root: Path) -> None:
    """The file picker, tied to the view's large file (``?large_file=``)."""
    name = state.large_file()
    options = ["", *list_sources(root)]
    if name and name not in options:
        options.append(name)
    st.selectbox(
        "File or folder under the data root",
        options,
        format_func=lambda n: (
            n or "(choose a parquet / CSV / TSV file, a folder of parquet or a partitioned table)"
        ),
        **state.bound(state.LARGE_FILE),
    )
    if any(is_partition(option) for option in options):
        st.caption(PARTITIONS_NOTE)


#: said under the picker when it lists Hive-style partition folders (``date=2024-01-01/``)
PARTITIONS_NOTE = (
    "Folders named key=value are partitions of one table (Hive style). Choose the table's "
    "folder to read every partition, each key a text column; choose one partition to read "
    "it alone, without its key."
)


def is_partition(name: str) -> bool:
    """Whether a listed folder is a Hive-style partition (its last part reads key=value)."""
    last = name.rstrip("/").rsplit("/", 1)[-1]
    return name.endswith("/") and is_partition_name(last)


def show_large_file_source() -> LargeFile | None:
    """The Dataset page's "Large file" section: the picker and the target column; the
    view's large file (None for the in-memory dataset)."""
    large = active()
    with st.expander("Large file: every row, counted by DuckDB", expanded=large is not None):
        root = configured_root()
        if root is None:
            show_info(root_help())
            return None
        _choose(root)
        if large is None:
            st.caption(
                "Files are read where they are; nothing is loaded into memory. A chosen "
                "file is the data of the Dataset, Concentrations and Compare pages."
            )
            return None
        widget = f"large_target:{large.name}"
        st.session_state[widget] = large.target
        st.selectbox(
            "Target column",
            [c for c in large.columns if c not in large.dropped],  # never a column left out
            key=widget,
            on_change=_on_target,
            args=(large.name, widget),
        )
        note = taken_note(large, "above")
        if note:  # taken for the last column, which could not be the target
            show_info(note)
        if large.partition_keys and large.target not in large.partition_keys:
            st.caption(escape(partition_keys_note(large.partition_keys)))
        large_drop.choose_left_out(large.name, large.columns, large.target, large.dropped)
        _choose_categorical(large)
    return large


def partition_keys_note(keys: tuple[str, ...]) -> str:
    """Said under the target of a partitioned table when no key is the target: the keys
    lead the columns, so a table partitioned by its class defaults to another target."""
    named = and_list([repr(key) for key in keys])
    return (
        f"The partition {'keys' if len(keys) > 1 else 'key'} {named} "
        f"{'are columns' if len(keys) > 1 else 'is a column'} too, listed first: if the table "
        "is partitioned by its class, choose that key as the target."
    )


def _on_categorical(name: str, widget: str) -> None:
    state.set_large_categorical(name, st.session_state[widget])


def _declare(name: str, column: str) -> None:
    """Callback of a code note's button: read ``column`` of ``name`` as categories."""
    state.set_large_categorical(name, [*state.large_categorical(name), column])


#: help of the large file's "Columns read as categories" choice
CATEGORICAL_HELP = (
    "Numeric columns listed here are read as categories: each value counts on its own "
    "instead of being binned into quantiles (codes such as ZIP or product codes). Text and "
    "ID-like columns are categorical already."
)


def _choose_categorical(large: LargeFile) -> None:
    """The multiselect of the numeric feature columns read as categories (default none)."""
    options = large.numeric_features
    if not options:
        return
    widget = f"large_categorical:{large.name}:{large.target}"
    st.session_state[widget] = [c for c in large.categorical if c in options]
    st.multiselect(
        "Columns read as categories",
        options,
        key=widget,
        on_change=_on_categorical,
        args=(large.name, widget),
        help=CATEGORICAL_HELP,
    )


def code_columns(
    frame: pd.DataFrame, large: LargeFile, amounts: Sequence[str] = ()
) -> dict[str, tuple[int, int]]:
    """Integer columns binned as numbers that may be codes: name -> (distinct values,
    non-missing rows), by the in-memory note's count rule (``summaries.looks_like_code``;
    its signal rule, ``binned_signal_columns``, weighs a sample held in memory); not the
    ``amounts``, a CSV's columns read from thousands separators (as in memory)."""

    families = dict(zip(large.columns, large.families, strict=False))
    numeric = frame[frame["kind"] == "numeric"]
    whole = np.array([families.get(c) == "integer" for c in numeric["feature"]], dtype=bool)
    numeric = numeric.loc[whole]
    rows = (numeric["rows"] * (1.0 - numeric["missing_share"])).round().astype(int)
    return {
        str(f): (int(k), int(r))
        for f, k, r in zip(numeric["feature"], numeric["K"], rows, strict=True)
        if looks_like_code(str(f), int(k), int(r)) and str(f) not in amounts
    }


def _code_notes(frame: pd.DataFrame, large: LargeFile, amounts: Sequence[str]) -> None:
    """The in-memory page's numeric-code note, with a button declaring the column."""
    settings = state.current_settings()
    for i, (name, (distinct, rows)) in enumerate(code_columns(frame, large, amounts).items()):
        show_info(code_note(name, distinct, rows, f"{settings['n_bins']} quantile bins"))
        with st.container(horizontal=True, key=f"large_code_row_{i}"):
            st.button(
                f"Read {escape(name, limit=40)} as categories",
                key=f"large_code_{i}",
                on_click=_declare,
                args=(large.name, name),
            )
            if every_row_its_own(distinct, rows):  # the note says to leave it out
                large_drop.leave_out_button(large.name, name, f"large_code_drop_{i}")


def overview(large: LargeFile) -> None:
    """The Dataset page's header and feature table for the large file (one scan)."""
    settings = state.current_settings()
    n_bins, missing = settings["n_bins"], settings["missing"]

    def key_of(file: LargeFile) -> str:
        return _describe_key(file, n_bins, missing)

    if large_drop.nothing_to_scan(large):
        return
    work = _describe(large.target, n_bins, missing, large.categorical, large.chosen, large.dropped)
    found = _scan_of("describe", key_of, work, large, auto=True)
    if found is None:
        _again_button("describe", "Count again", key_of(large), work, large)
        return
    summary = found[0]
    frame = summary.features
    cols = st.columns(5)
    cols[0].metric("Rows with a target", f"{summary.n_rows:,}")
    # the features counted, as in memory and on Concentrations: an empty column is left out
    cols[1].metric("Features", f"{int((frame['K'] > 0).sum())}")
    cols[2].metric("Classes", f"{summary.classes.size}")
    style.text_metric(cols[3], "Target", large.target, "metric_target")
    cols[4].metric("Engine", ENGINE_LABEL)
    st.caption(
        escape(
            f"Source: {large.name} under the data root. Counted by {ENGINE_LABEL} over the "
            f"{summary.n_rows:,} rows with a target (one scan); nothing was loaded into memory. "
            "Rows per class: "
            + "; ".join(
                f"{name}: {count:,}"
                for name, count in zip(summary.classes, summary.class_counts, strict=True)
            )
            + "."
        )
    )
    show_info(
        "The in-memory views (preview, one feature under the lens, hierarchies) need the "
        "rows in memory; the Concentrations and Compare pages count this file on DuckDB. "
        "Explain a prediction, Benchmark and the lessons use the sidebar's dataset."
    )
    # the encoding, codes, mixed columns: as the in-memory page, for the columns kept
    for note in kept_notes(summary.notes, large.dropped):
        show_info(note)
    notes = [id_like_note(name, pile) for name, pile in summary.id_like_imputed.items()]
    show_id_like_warnings(notes, "large_missing_as_category")
    _code_notes(frame, large, summary.amounts)
    large_drop.per_row_notes(frame, large.name)
    st.header("Features")
    show_table(frame, grid_config=_FEATURE_COLUMNS, key="large_describe")
    download_buttons(None, frame, "large-file-features", dataset=large.name)


def _describe_key(large: LargeFile, n_bins: int, missing: str) -> str:
    """The describe scan's key: the file, its target (and whether it was chosen: the last
    column by default may be replaced) and the settings it counts under."""
    return repr(
        (
            "describe",
            large.name,
            large.identity,
            large.target,
            large.chosen,
            large.categorical,
            large.dropped,
            n_bins,
            missing,
        )
    )


#: the large file's feature table: the in-memory Dataset page's headers and formats
_FEATURE_COLUMNS = {
    "feature": st.column_config.TextColumn("feature", pinned=True),
    "kind": st.column_config.TextColumn("type", width=100),
    "K": st.column_config.NumberColumn(
        "distinct values", format="%,d", help="Non-missing distinct values in the file."
    ),
    "K_f": st.column_config.NumberColumn(
        "K_f",
        format="%,d",
        help="Categories the model counts (bins, for a number: the Bins choice of the "
        "preprocessing).",
    ),
    "missing_share": MISSING_SHARE_COLUMN,
    "rows": None,  # every feature's rows are the file's: the header says it once
}


def concentrations_view(large: LargeFile, smoother: str) -> None:
    """HEB's learned m per (class, feature) from the counts of every row (one scan)."""
    settings = state.current_settings()
    _show_taken_note(large)

    def key_of(file: LargeFile) -> str:  # chosen: the last column by default may be replaced
        return repr(
            ("conc", file.name, file.identity, file.target, file.chosen, settings["n_bins"],
             settings["missing"], file.categorical, file.dropped)
        )  # fmt: skip

    if large_drop.nothing_to_scan(large):
        return

    work = _concentrations(
        large.target,
        settings["n_bins"],
        settings["missing"],
        large.categorical,
        large.chosen,
        large.dropped,
    )
    described = _results().get(_describe_key(large, settings["n_bins"], settings["missing"]))
    if described is not None and key_of(large) not in _results():  # the Dataset page's
        # scan counted the same rows: its smoothed counts, no second scan
        _keep(key_of(large), described[1])
    found = _scan_of("concentrations", key_of, work, large, auto=True)
    if found is None:
        _again_button("concentrations", "Count again", key_of(large), work, large)
        return
    frames, rows, classes, features = found
    frame = frames[smoother]
    from explorer import concentrations as conc

    numbers = conc.summary_numbers(frame)  # the in-memory page's figures and formats
    cols = st.columns(5)
    cols[0].metric("Pairs", numbers["Pairs"])
    cols[1].metric("Median m", numbers["Median m"])
    cols[2].metric("Clamped low / high", numbers["Clamped low / high"], help=conc.CLAMP_HELP)
    cols[3].metric("Fallback m = K_f", numbers["Fallback m = K_f"], help=conc.FALLBACK_HELP)
    cols[4].metric("Rows counted", f"{rows:,}", help=f"Counted by {ENGINE_LABEL}.")
    missing = "imputed" if settings["missing"] == "impute" else "as their own category"
    st.caption(
        escape(
            f"Counted by DuckDB over the {rows:,} rows of {large.name} with a target: "
            f"{settings['n_bins']} bins for numbers, missing values {missing} (the Dataset "
            "page's preprocessing)."
        )
    )
    fig = figures.concentration_heatmap(
        frame,
        features,
        classes,
        value="m",
        class_title=large.target,
    )
    data = frame[["class name", "feature name", "N_c", "K_f", "m", "rho"]]
    show_figure(fig, data, "large-file-m-heatmap", key="large_heatmap")
    show_table(
        frame.drop(columns=["class", "feature"]),
        # no fixed height: as tall as its rows (360 px drew three blank rows under 8 pairs)
        column_config=conc.pair_column_config(),
        key="large_conc_table",
    )


def _compare_key(large: LargeFile, methods: list[str], run: dict) -> str:
    """A comparison's key: the file, its target (and whether it was chosen: the last
    column by default may be replaced), the methods and the run's settings (its
    ``categorical`` and ``drop`` the file's)."""
    if large.categorical:
        run = {**run, "categorical": list(large.categorical)}
    if large.dropped:
        run = {**run, "drop": list(large.dropped)}
    return repr(
        ("compare", large.name, large.identity, large.target, large.chosen, methods,
         sorted(run.items()))
    )  # fmt: skip


def _show_taken_note(large: LargeFile) -> None:
    """On the Concentrations and Compare pages: why the target is a column taken for the
    file's last one (the picker is on the Dataset page)."""
    note = taken_note(large, "on the Dataset page")
    if note:
        show_info(note)


def compare_view(large: LargeFile):
    """Cross-validate the sidebar's NB / AODE methods on every row of the large file; the
    finished :class:`~explorer.comparison.Comparison` (its views are the page's), or None."""
    _show_taken_note(large)
    if large_drop.nothing_to_scan(large):
        return None
    chosen = state.selected_methods()
    methods = engine_methods(chosen)
    left_out = left_out_methods(chosen)
    if left_out:
        show_info(
            "Not run on the large file: "
            + "; ".join(f"{n}, because {why}" for n, why in left_out.items())
            + ". The in-memory datasets run them."
        )
    if not methods:
        show_info("Choose NB or AODE methods in the sidebar to compare them on the large file.")
        return None
    settings = state.current_settings()
    run = {
        "n_bins": settings["n_bins"],
        "missing": settings["missing"],
        "n_splits": int(st.session_state.get("folds", state.FOLD_CHOICES[0])),
        "seed": state.SEED,
    }
    # a what-if change after a first comparison rescans at once, as the in-memory page
    # re-smooths at once; before it, nothing scans the file until the button is pressed
    compared = st.session_state.setdefault(_COMPARED, set())
    base_key = _compare_key(large, methods, run)
    params = {m: p for m, p in state.run_settings().params().items() if m in methods}
    if params:
        run["params"] = params

    def key_of(file: LargeFile) -> str:
        return _compare_key(file, methods, run)

    key = key_of(large)
    # a what-if after a comparison re-scores the changed methods only (a pass per method)
    earlier = None if key in _results() else _earlier_compare(base_key, params, methods)
    st.session_state.setdefault(_COMPARE_RUNS, {})[key] = (base_key, params)
    # the file's categorical columns: part of the settings, in the key (_compare_key)
    engine_run = {**run, **({"categorical": list(large.categorical)} if large.categorical else {})}
    work = _compare(large.target, methods, engine_run, earlier, large.chosen, large.dropped)
    has_aode = any(registry.method(m).family == "aode" for m in methods)
    steps = _COMPARE_STEPS[has_aode]
    if has_aode:  # before the button: the pair scan's memory is the server's
        show_info(AODE_MEMORY_NOTE)
    st.button(
        f"Compare {len(methods)} methods on every row",
        key="large_go",
        on_click=_start,
        args=("compare", key, work, large, steps),
        type="primary",
    )
    comparison = _scan_of("compare", key_of, work, large, auto=base_key in compared, steps=steps)
    if comparison is not None:
        compared.add(base_key)
        # the key's settings: the scan ran with them
        _compare_table(comparison, params, large.name)
    st.caption(
        f"Folds: the Folds choice above ({run['n_splits']}, seed {state.SEED}), as on every "
        "page. On a large file a row's fold is a seeded hash of its file and row number (no "
        "sort of every row), not a stratified shuffle: a class's share per fold is off by "
        "about √(p(1−p)k/n), under 1\u00a0% from 10⁵ rows per fold. Every row is used (the Rows "
        "choice applies to in-memory data); bins and missing values as on the Dataset page."
    )
    commands.show_large_command(
        commands.large_bench_command(
            large.name,
            large.target,
            methods,
            state.run_settings(),
            categorical=large.categorical,
            dropped=large.dropped,
        )
    )
    return comparison


def _duration(seconds: float) -> str:
    """A scan's time as text: milliseconds below 0.1 s (a small file's scan read "0.0 s")."""
    return f"{seconds * 1000:.0f} ms" if seconds < 0.1 else f"{seconds:.1f} s"


#: said before a large-file comparison with AODE / HEB-AODE: their pair scan's memory grows
#: with the rows (measured on the click log, docs/scale.md), where the NB smoothers' stays flat
AODE_MEMORY_NOTE = (
    "AODE and HEB-AODE add a scan of every pair of features, whose memory grows with the "
    "distinct pairs of values, which ID-like columns multiply: about 3 GB and a minute for "
    "100,000 click-log rows, 6 - 11 GB for a million. On a larger file, compare the NB "
    "smoothers alone (their memory stays flat in the rows)."
)

#: the engine path's timed phases (``ScaleCVResult.timings``, disjoint), in run order, as
#: the metrics caption names them
_PHASES = (
    ("count", "counting"),
    ("encode", "encoding"),
    ("joint", "counting pairs"),
    ("spill", "writing fold files"),
    ("fit", "fitting"),
    ("score", "scoring"),
)


def phases_text(timings: dict[str, float]) -> str:
    """A scan's wall time in all, then each phase it ran: the caption named counting and
    scoring alone, a quarter of a 13 s comparison of 200,000 rows.

    Parameters
    ----------
    timings : dict of str to float
        ``ScaleCVResult.timings``: wall seconds per phase (and ``<phase>_cpu`` entries,
        not shown).

    Returns
    -------
    str
        E.g. "13.3 s in all: counting 2.4 s, encoding 2.2 s, writing fold files 2.2 s,
        fitting 4.5 s, scoring 2.0 s".
    """
    ran = [(label, timings[key]) for key, label in _PHASES if key in timings]
    parts = ", ".join(f"{label} {_duration(seconds)}" for label, seconds in ran)
    return f"{_duration(sum(seconds for _, seconds in ran))} in all: {parts}"


def _compare_table(comparison, params: dict[str, dict[str, float]], name: str) -> None:
    """The metrics table of a large-file compare, formatted as the in-memory Compare's;
    ``params``: the what-if values it ran with (its per-fold CSV names them); ``name``:
    the large file's, in the CSV's file name."""
    from explorer import comparison as cmp

    result = comparison.result
    st.header("Metrics, mean ± standard deviation over folds")
    show_table(
        comparison.table,
        style=cmp.best_style(comparison.summary),
        key="large_compare_table",
        # the in-memory Compare's headers and pins ("fit ms" there, "fit time (ms)" here)
        grid_config=cmp.table_column_config(),
    )
    bound = float(result.folds["auc_bound"].max()) if "auc_bound" in result.folds else 0.0
    auc = "AUC exact" if bound == 0 else f"AUC within {bound:.1e} (binned scores)"
    best = cmp.best_note(comparison.summary)  # "" for one method: no cell is blue
    st.caption(
        escape(
            f"Engine: {ENGINE_LABEL}; {result.n_rows:,} rows seen; {result.n_splits} folds; "
            f"{phases_text(result.timings)}; {auc}."
        )
        + (f" {best}" if best else "")
        + " Fit time is the smoothing of the fold's counts (counting is the engine's scan)."
    )
    for note in result.notes:
        show_info(note)
    folds = cmp.with_settings(result.folds, params)
    download_buttons(
        None, folds, "large-file-cv-folds", csv_label="Every fold's scores (CSV)", dataset=name
    )
