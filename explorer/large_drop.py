"""The large file's "Columns to leave out": feature columns no scan counts.

As the upload's choice of that name (``pages/dataset.py``) and ``heb bench FILE --engine
duckdb --drop NAME``: the columns chosen are not features of the describe scan, of the
Concentrations page's counts nor of a Compare (the engine is given the other columns as
its ``features``). The choice is kept per file in the session and in links as
``?large_drop=["id", "day"]`` (:data:`explorer.state.LARGE_DROP`); the target is never
left out, and a link's names that are not feature columns of the file are ignored with a
note (:func:`checked`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer import display, state
from explorer.errors import escape, show_info, show_warning
from heb.data.dataset import per_row_note
from heb.scale import counting
from heb.text import and_list

__all__ = [
    "DROP_HELP",
    "DROP_LINK_NOTE",
    "cannot_encode",
    "checked",
    "choose_left_out",
    "feature_columns",
    "left_out_text",
    "no_feature",
    "no_feature_text",
    "nothing_to_scan",
    "per_row_columns",
    "per_row_notes",
    "leave_out_button",
    "unencodable",
    "unencodable_text",
]

#: help of the large file's "Columns to leave out" choice
DROP_HELP = (
    "Columns listed here are not features: no scan counts them (a row number, an ID, a "
    "date, a column of no use). The target is never left out. Applies to the Dataset, "
    "Concentrations and Compare pages and is kept in the link."
)
#: said (as the other link notes) when a link leaves out columns the file's features lack
DROP_LINK_NOTE = (
    "The link leaves out {columns} of the large file {file}, but these are not its feature "
    "columns: ignored."
)


def checked(name: str, columns: Sequence[str], target: str) -> tuple[str, ...]:
    """The columns of the large file ``name`` left out, those a link named that are not
    its feature columns (absent, or the target) dropped from the choice with a note.

    Parameters
    ----------
    name : str
        The file, relative to the data root.
    columns : sequence of str
        Its columns.
    target : str
        Its target column (never left out).

    Returns
    -------
    tuple of str
        The columns left out, sorted.
    """
    asked = state.large_dropped(name)
    kept = [c for c in asked if c in columns and c != target]
    if len(kept) < len(asked):
        unknown = [c for c in asked if c not in kept]
        state.set_large_dropped(name, kept)
        state.note_ignored_columns(DROP_LINK_NOTE, unknown, name)
    return tuple(sorted(kept))


def feature_columns(engine, target: str, dropped: Sequence[str]) -> list[str] | None:
    """The engine's ``features`` for ``target`` with ``dropped`` left out (None: every
    column but the target, as the engine reads by default, when nothing is left out)."""
    if not dropped:
        return None
    return [c for c, _ in engine.columns() if c != target and c not in dropped]


def no_feature_text(target: str) -> str:
    """The one sentence said instead of a scan when every feature column is left out."""
    return (
        f"Every column but the target {target!r} is left out, so there is no feature to "
        "count: keep at least one in Columns to leave out on the Dataset page."
    )


def left_out_text(dropped: Sequence[str]) -> str:
    """What the Concentrations and Compare pages say of the columns left out ("" none)."""
    if not dropped:
        return ""
    names = and_list([repr(c) for c in dropped])
    return f"Left out: {names} (Columns to leave out, on the Dataset page)."


def no_feature(large) -> bool:
    """Whether every feature column of ``large`` (a :class:`~explorer.large_files.LargeFile`)
    is left out: then its one sentence is shown, and no scan runs."""
    if len(large.dropped) < len(large.columns) - 1:
        return False
    show_warning(no_feature_text(large.target))
    return True


def nothing_to_scan(large) -> bool:
    """Whether no scan of ``large`` can run: every feature left out (:func:`no_feature`)
    or columns it cannot encode (:func:`cannot_encode`); either is said on the page."""
    return no_feature(large) or cannot_encode(large)


def unencodable(large) -> list[str]:
    """The feature columns of ``large`` (a :class:`~explorer.large_files.LargeFile`) of a
    type the engine cannot encode, not left out, in the file's order."""
    pairs = zip(large.columns, large.families, strict=False)
    return counting.unencodable_columns(pairs, large.target, large.dropped)


def unencodable_text(columns: Sequence[str]) -> str:
    """The one sentence said of ``columns`` (at least one), which no scan can encode."""
    button = " (the button below)" if len(columns) == 1 else " (the buttons below)"
    return counting.unencodable_text(columns, button)


def cannot_encode(large) -> bool:
    """Whether ``large`` has feature columns the engine cannot encode: then they are named
    with a "Leave ... out" button each, and no scan runs (the scan's own error offered no
    way on but Columns to leave out, and the note under it said to choose another target
    or file)."""
    columns = unencodable(large)
    if not columns:
        return False
    st.error(escape(unencodable_text(columns)), icon=":material/error:")
    with st.container(horizontal=True, key="large_unencodable"):
        for number, column in enumerate(columns):
            leave_out_button(large.name, column, f"large_unencodable_{number}", UNENCODABLE_HELP)
    return True


def _set_dropped(name: str, columns: Sequence[str]) -> None:
    """Leave ``columns`` of the large file ``name`` out; a column left out is no longer
    read as categories (its declaration would name a column the engine does not count)."""
    state.set_large_dropped(name, columns)
    declared = state.large_categorical(name)
    state.set_large_categorical(name, [c for c in declared if c not in columns])


def _on_drop(name: str, widget: str) -> None:
    _set_dropped(name, st.session_state[widget])


def choose_left_out(name: str, columns: Sequence[str], target: str, dropped: Sequence[str]):
    """The multiselect of the file's feature columns to leave out (never the target)."""
    options = [c for c in columns if c != target]
    if not options:
        return
    widget = f"large_drop:{name}:{target}"
    st.session_state[widget] = [c for c in options if c in dropped]  # the file's order
    st.multiselect(
        "Columns to leave out",
        options,
        key=widget,
        on_change=_on_drop,
        args=(name, widget),
        placeholder="None: every other column is a feature",
        help=DROP_HELP,
    )


def per_row_columns(frame: pd.DataFrame) -> list[str]:
    """The categorical features of a describe table (``feature``, ``kind``, ``K``, ``rows``,
    ``missing_share``) with a different value in every row that has one, of at least 10
    such rows: row identifiers most likely. In memory
    :func:`heb.data.dataset.one_value_per_row` asks a value of every row; here a column
    with some cells missing is named too (an ID exported with gaps)."""
    filled = (frame["rows"] * (1.0 - frame["missing_share"])).round()
    per_row = (frame["kind"] == "categorical") & (frame["K"] == filled) & (filled >= 10)
    return [str(name) for name in frame.loc[per_row, "feature"]]


def _leave_out(name: str, column: str) -> None:
    _set_dropped(name, [*state.large_dropped(name), column])


#: help of a "Leave ... out" button under a column no scan can encode
UNENCODABLE_HELP = (
    "Adds it to Columns to leave out (the Dataset page's large-file section), for every "
    "page and in the link."
)


def leave_out_button(name: str, column: str, key: str, help: str | None = None) -> None:
    """A button leaving ``column`` of the large file ``name`` out (as the upload's "If it
    only identifies rows" buttons; ``help`` replaces that help)."""
    display.leave_out_button(
        column,
        key,
        _leave_out,
        (name, column),
        help
        or "If it only identifies rows: the Columns to leave out choice above, for "
        "every page and in the link.",
    )


def per_row_notes(frame: pd.DataFrame, name: str) -> None:
    """The upload's note on categorical columns of a value per row, with a button per
    column that leaves it out."""
    columns = per_row_columns(frame)
    if not columns:
        return
    show_info(per_row_note(columns))
    with st.container(horizontal=True, key="large_per_row"):
        for number, column in enumerate(columns):
            leave_out_button(name, column, f"large_leave_out_{number}")
