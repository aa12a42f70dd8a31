"""Dataset page: every offered dataset as a table (rows, features, classes, group, offline),
one click away from being the current one, instead of a flat list of names.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from explorer.display import show_table
from explorer.lazy_sections import lazy_expander
from explorer.loading import load_spec
from explorer.state import set_dataset
from heb import paths
from heb.data import BUILTIN_DATASETS, catalogue_frame

__all__ = [
    "CATALOGUE_OPEN",
    "MAX_MANIFEST_BYTES",
    "catalogue_size",
    "catalogue_table",
    "displayed_catalogue",
    "show_catalogue",
]

#: session key of the expander holding the table (open: the table is built and sent)
CATALOGUE_OPEN = "catalogue_open"
#: the shared manifest is a few kB; anything far larger is not read
MAX_MANIFEST_BYTES = 2_000_000
_SIZES = ("n_rows", "n_features", "n_classes")
#: the table's number columns, shown as right-aligned text
_NUMBER_COLUMNS = ("rows", "features", "classes", "OpenML id")


def _manifest_sizes() -> dict[str, dict]:
    """Rows, features and classes of the shared copies, from their manifest (or nothing)."""
    path = paths.datasets_dir() / "manifest.json"
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_MANIFEST_BYTES + 1)
        entries = json.loads(text) if len(text) <= MAX_MANIFEST_BYTES else []
    except (OSError, ValueError):
        return {}
    if not isinstance(entries, list):
        return {}
    return {
        str(e["name"]): {k: e.get(k) for k in _SIZES}
        for e in entries
        if isinstance(e, dict) and "name" in e
    }


def _builtin_rows() -> list[dict]:
    rows = []
    for name in BUILTIN_DATASETS:
        data = load_spec(f"builtin:{name}")
        rows.append(
            {
                "spec": f"builtin:{name}",
                "dataset": name,
                "group": "built-in",
                "rows": len(data.X),
                "features": data.X.shape[1],
                "classes": int(data.y.nunique()),
                "offline": True,
                "OpenML id": None,
            }
        )
    return rows


@st.cache_data(ttl=3600, show_spinner=False)
def catalogue_table() -> pd.DataFrame:
    """Built-in datasets and the paper's catalogue, one row each, with their sizes.

    ``offline`` says whether the data opens without the network (built-in, or a shared
    copy present); sizes of a dataset only OpenML holds are left empty.
    """
    sizes = _manifest_sizes()
    rows = _builtin_rows()
    for entry in catalogue_frame().itertuples(index=False):
        known = sizes.get(entry.name, {})
        spec = f"shared:{entry.name}" if entry.available else f"openml:{int(entry.openml_id)}"
        rows.append(
            {
                "spec": spec,
                "dataset": entry.name,
                "group": entry.group,
                "rows": known.get("n_rows"),
                "features": known.get("n_features"),
                "classes": known.get("n_classes"),
                "offline": bool(entry.available),
                "OpenML id": int(entry.openml_id) if entry.openml_id is not None else None,
            }
        )
    frame = pd.DataFrame(rows)
    for column in ("rows", "features", "classes", "OpenML id"):
        frame[column] = frame[column].astype("Int64")
    return frame


#: the text of a size nobody knows offline (Streamlit's grid writes "None" in an empty cell)
UNKNOWN = "—"


def _as_text(values: pd.Series, thousands: bool) -> pd.Series:
    """Whole numbers as right-aligned text, padded with spaces so that sorting the column
    as text keeps the numbers in order; a missing value is :data:`UNKNOWN` (sorted last)."""
    text = values.map(lambda n: UNKNOWN if pd.isna(n) else f"{int(n):,}" if thousands else str(n))
    width = int(text.str.len().max()) if len(text) else 0
    return text.where(text == UNKNOWN, text.str.rjust(width))


def displayed_catalogue(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: sizes and ids as text, a dash where one is unknown."""
    shown = frame.drop(columns=["spec"])
    for column in _NUMBER_COLUMNS:
        shown[column] = _as_text(shown[column], thousands=column != "OpenML id")
    return shown


def _on_pick() -> None:
    picked = st.session_state.get("catalogue_pick")
    chosen = picked.selection.rows if picked is not None else []
    if chosen:
        set_dataset(str(catalogue_table().iloc[chosen[0]]["spec"]))


@st.cache_data(ttl=3600, show_spinner=False)  # as long as the table: no manifest read per run
def catalogue_size() -> tuple[int, int]:
    """Datasets in the table and how many open offline, without loading any of them."""
    listed, builtins = catalogue_frame(), len(BUILTIN_DATASETS)
    return builtins + len(listed), builtins + int(listed["available"].sum())


def show_catalogue() -> None:
    """The table of datasets in a closed expander; clicking a row opens that dataset.

    The table is built only while the expander is open: its sizes load every built-in
    dataset, which made a fresh server's first home page wait about a second for a table
    nobody had asked for (and every visit drew a data grid out of sight).
    """
    total, offline = catalogue_size()
    label = f"All datasets as a table ({total}, {offline} open offline)"
    section = lazy_expander(label, CATALOGUE_OPEN)
    if section is None:
        return
    frame = catalogue_table()
    with section:
        st.caption(
            "Tick a row's box (far left) to open that dataset. Groups are the paper's "
            "(section 5.1.1); a dataset not offline is fetched from OpenML by id (needs the "
            "network or a filled cache)."
        )
        show_table(
            displayed_catalogue(frame),
            key="catalogue_pick",
            on_select=_on_pick,
            selection_mode="single-row",
            column_config={
                "offline": st.column_config.CheckboxColumn("available offline"),
                **{c: st.column_config.TextColumn(alignment="right") for c in _NUMBER_COLUMNS},
            },
            height=420,
        )
