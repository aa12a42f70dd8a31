"""The Dataset page's "Large file" source: a parquet / CSV file or folder under the data root.

Every number here is computed by an engine (:mod:`heb.scale`, DuckDB in this process) on
all rows: the summary per feature, HEB-M's concentrations and a cross-validated Compare
with a progress bar and a cancel button. The file is only ever named relative to one
configured data root (env ``HEB_DATA_ROOT``, else ``[heb] data_root`` in
``.streamlit/secrets.toml``); a link (``?large_file=name``) naming anything else is refused
with a message.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from explorer import state
from explorer.display import show_table
from explorer.errors import escape, guard, show_error, show_info
from heb import registry
from heb.data import DataError, default_target
from heb.nb import NaiveBayes
from heb.scale.source import DATA_ROOT_ENV, open_source, resolve_data_path

__all__ = [
    "CONFIGURE_HELP",
    "Cancelled",
    "check_name",
    "configured_root",
    "engine_methods",
    "list_sources",
    "progress_reporter",
    "show_large_file_source",
]

CONFIGURE_HELP = (
    f"No data root is configured. Set the environment variable {DATA_ROOT_ENV} to the folder "
    "your large files live in, or put a section [heb] holding the line "
    'data_root = "/path/to/folder" in .streamlit/secrets.toml, and restart the app.'
)
_URL_NAME = "large_file"
_REFUSED = "large_file_refused"
_SUFFIXES = (".parquet", ".parq", ".pq", ".csv", ".csv.gz", ".tsv")
#: at most this many files and folders are offered in the list
_MAX_LISTED = 500


class Cancelled(Exception):
    """The user pressed Cancel while an engine scan was running."""


# --------------------------------------------------------------------------- the root
def configured_root() -> Path | None:
    """The data root: env ``HEB_DATA_ROOT``, else the secret ``[heb] data_root``, else None."""
    value = os.environ.get(DATA_ROOT_ENV)
    if not value:
        try:
            value = (st.secrets.get("heb") or {}).get("data_root")
        except Exception:  # noqa: BLE001 - no secrets file at all is the usual case
            value = None
    if not value:
        return None
    path = Path(str(value)).expanduser().resolve()
    return path if path.is_dir() else None


def list_sources(root: Path) -> list[str]:
    """Names (relative to ``root``) of its parquet / CSV files and folders holding parquet."""
    names = []
    for path in sorted(root.rglob("*")):
        name = path.name.lower()
        if path.is_file() and name.endswith(_SUFFIXES) and path.parent == root:
            names.append(path.relative_to(root).as_posix())
        elif path.is_dir() and any(
            p.suffix in (".parquet", ".parq", ".pq") for p in path.iterdir()
        ):
            names.append(path.relative_to(root).as_posix() + "/")
        if len(names) >= _MAX_LISTED:
            break
    return names


def check_name(name: str, root: Path):
    """The checked :class:`~heb.scale.source.Source` of a name from the page or the URL.

    Raises
    ------
    DataError
        An absolute or home-relative path, a path leaving the root, a missing file, or a
        file that is neither parquet nor CSV (one sentence each).
    """
    if Path(name).is_absolute() or name.startswith(("~", "\\")) or ":" in name:
        raise DataError(
            f"The name {name!r} is not a path relative to the data root; only files under "
            f"{DATA_ROOT_ENV} can be opened."
        )
    resolve_data_path(name, root)
    return open_source(name, root)


def _identity(source) -> str:
    """Names, sizes and modification times of the source's files: its cache identity."""
    return repr([(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in source.files])


# --------------------------------------------------------------------------- engine work
def _engine(name: str, root: str):
    from heb.scale import DuckDBEngine

    engine = DuckDBEngine()
    engine.register(open_source(name, root))
    return engine


@st.cache_data(show_spinner=False, max_entries=32)
def source_columns(name: str, root: str, identity: str) -> list[str]:
    """The source's column names as the engine reads them."""
    engine = _engine(name, root)
    try:
        return [column for column, _ in engine.columns()]
    finally:
        engine.close()


@st.cache_data(show_spinner=False, max_entries=16)
def describe(name: str, root: str, identity: str, target: str) -> pd.DataFrame:
    """:func:`heb.scale.describe_source` of the source (one scan, cached on its identity)."""
    from heb.scale import describe_source

    engine = _engine(name, root)
    try:
        return describe_source(engine, target)
    finally:
        engine.close()


@st.cache_data(show_spinner=False, max_entries=8)
def concentrations(
    name: str, root: str, identity: str, target: str, n_bins: int, missing: str
) -> tuple[pd.DataFrame, int]:
    """HEB-M's learned m per (class, feature) from the counts of every row; rows seen."""
    from heb.scale import fit_counts

    engine = _engine(name, root)
    try:
        fitted = fit_counts(engine, target, n_bins=n_bins, missing=missing)
    finally:
        engine.close()
    diag = NaiveBayes(smoother="heb-m").fit_counts(fitted.table).concentrations_
    frame = pd.DataFrame(diag)
    frame.insert(0, "class name", [str(fitted.classes[c]) for c in frame["class"]])
    frame.insert(1, "feature name", [fitted.features[f] for f in frame["feature"]])
    return frame, fitted.n_rows


def engine_methods(methods) -> list[str]:
    """The chosen methods the engine path fits: NB smoothers and AODE (not HEB-H)."""
    return [
        m
        for m in methods
        if registry.method(m).family in ("nb", "aode")
        and registry.method(m).params.get("smoother") != "heb-h"
    ]


def progress_reporter(
    update: Callable[[float, str], None], cancelled: Callable[[], bool]
) -> Callable[[float, str], None]:
    """A ``progress(fraction, message)`` for :func:`heb.scale.cross_validate`.

    Calls ``update`` and raises :class:`Cancelled` once ``cancelled()`` is true, which
    stops the engine's scan. (In the app a click on Cancel also interrupts ``update``
    itself: Streamlit stops the running script at its next element update.)
    """

    def report(fraction: float, message: str) -> None:
        if cancelled():
            raise Cancelled("Cancelled: the scan was stopped and nothing was kept.")
        update(min(max(float(fraction), 0.0), 1.0), message)

    return report


def run_compare(name, root, target, methods, settings, progress):
    """:func:`heb.scale.cross_validate` of ``methods`` on every row; the result."""
    from heb.scale import cross_validate

    engine = _engine(name, root)
    try:
        return cross_validate(engine, target, methods, progress=progress, **settings)
    finally:
        engine.close()


# --------------------------------------------------------------------------- page parts
def _choose(root: Path):
    """The file picker, tied to ``?large_file=``; the checked source or None."""
    args = state.page_setting(_URL_NAME, "")
    name = st.session_state[_URL_NAME]
    if name:
        try:
            check_name(name, root)
        except DataError as exc:  # kept on the page until another file is chosen
            st.session_state[_REFUSED] = exc
            name = st.session_state[_URL_NAME] = ""
            args = state.page_setting(_URL_NAME, "")
    options = ["", *list_sources(root)]
    if name and name not in options:
        options.append(name)
    st.selectbox(
        "File or folder under the data root",
        options,
        format_func=lambda n: n or "(choose a parquet / CSV file or a folder of parquet files)",
        **args,
    )
    chosen = st.session_state[_URL_NAME]
    if chosen:
        st.session_state.pop(_REFUSED, None)
    elif _REFUSED in st.session_state:
        show_error(st.session_state[_REFUSED], "opening the file")
    return (check_name(chosen, root), chosen) if chosen else (None, "")


def _summary(name: str, root: str, identity: str, target: str) -> None:
    frame = describe(name, root, identity, target)
    rows = int(frame["rows"].max()) if len(frame) else 0
    cols = st.columns(3)
    cols[0].metric("Rows with a target", f"{rows:,}")
    cols[1].metric("Features", f"{len(frame)}")
    cols[2].metric("Engine", "DuckDB")
    st.caption(escape(f"Counted by DuckDB over all {rows:,} rows of {name} (one scan)."))
    show_table(
        frame,
        column_config={
            "missing_share": st.column_config.ProgressColumn(
                "missing share", format="percent", min_value=0.0, max_value=1.0
            )
        },
        key="large_describe",
    )


def _concentrations(name, root, identity, target, settings) -> None:
    st.markdown("**Concentrations (HEB-M, all rows)**")
    if not st.toggle("Learn the concentrations on every row", key=f"large_conc:{name}"):
        return
    with st.spinner("Counting every row on DuckDB..."):
        frame, rows = concentrations(
            name, root, identity, target, settings["n_bins"], settings["missing"]
        )
    cols = st.columns(3)
    cols[0].metric("Pairs", f"{len(frame):,}")
    cols[1].metric("Median m", f"{frame['m'].median():.3g}")
    cols[2].metric("Rows seen", f"{rows:,}")
    st.caption(escape(f"Engine: DuckDB, {rows:,} rows counted."))
    show_table(frame, key="large_conc_table", height=300)


def _start(key: str) -> None:
    """Callback: run Compare under ``key`` (kept in the session, so a rerun cannot lose it)."""
    st.session_state["large_run"] = key
    st.session_state.pop("large_cancelled", None)


def _cancel() -> None:
    st.session_state.pop("large_run", None)
    st.session_state["large_cancelled"] = True


def _compare(name, root, identity, target, settings) -> None:
    st.markdown("**Compare (cross-validated on every row)**")
    methods = engine_methods(state.selected_methods())
    if not methods:
        show_info("Choose NB or AODE methods in the sidebar to compare them here.")
        return
    run = {**settings, "n_splits": int(st.session_state.get("folds", 10)), "seed": 42}
    key = repr((name, identity, target, methods, sorted(run.items())))
    results = st.session_state.setdefault("large_results", {})
    st.button(
        f"Compare {len(methods)} methods on every row", key="large_go", on_click=_start, args=(key,)
    )
    if st.session_state.pop("large_cancelled", False):
        show_info("Cancelled: the scan was stopped and nothing was kept.")
    if st.session_state.get("large_run") == key and key not in results:
        cancel = st.empty()  # the Cancel button lives only while the scan runs
        cancel.button("Cancel", key="large_cancel", on_click=_cancel)
        bar = st.progress(0.0, text="Starting the engine")
        progress = progress_reporter(
            lambda f, m: bar.progress(f, text=escape(m)),
            lambda: st.session_state.get("large_run") != key,
        )
        try:
            results[key] = run_compare(name, root, target, methods, run, progress)
        except Cancelled as exc:
            show_info(str(exc))
            return
        finally:
            st.session_state.pop("large_run", None)
            cancel.empty()
        bar.progress(1.0, text="Done")
    if key in results:
        result = results[key]
        st.caption(
            escape(
                f"Engine: {result.engine}; {result.n_rows:,} rows seen; {result.n_splits} folds; "
                f"counting {result.timings.get('count', 0):.1f} s, scoring "
                f"{result.timings.get('score', 0):.1f} s."
            )
        )
        show_table(result.summary(), key="large_compare_table")


def show_large_file_source() -> None:
    """The "Large file" section of the Dataset page."""
    state.page_setting(_URL_NAME, "")  # read a link's ?large_file= before drawing the expander
    expanded = bool(st.session_state[_URL_NAME])
    with st.expander("Large file: every row, counted by DuckDB", expanded=expanded):
        root = configured_root()
        if root is None:
            show_info(CONFIGURE_HELP)
            return
        with guard("opening the large file"):
            source, name = _choose(root)
            if source is None:
                st.caption("Files are read where they are; nothing is loaded into memory.")
                return
            identity = _identity(source)
            columns = source_columns(name, str(root), identity)
            target = st.selectbox(
                "Target column",
                columns,
                index=columns.index(default_target(columns)),
                key=f"large_target:{name}",
            )
            _summary(name, str(root), identity, target)
            settings = {k: st.session_state[k] for k in ("n_bins", "missing")}
            _concentrations(name, str(root), identity, target, settings)
            _compare(name, str(root), identity, target, settings)
