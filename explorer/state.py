"""The app's shared state: the current dataset, methods and settings, mirrored in the URL.

The values live in ``st.session_state`` (so they persist across pages) and in the URL
(``?data=builtin:NAME&methods=HEB-M,Laplace&bins=10&missing=impute&rows=20000``) so a
shared link reproduces the view. A URL value is checked before use: ``?data=`` only ever
names a built-in, a shared or a catalogue dataset, or ``openml:<id>``, never a path.
"""

from __future__ import annotations

import re

import streamlit as st

from heb import registry
from heb.data import BUILTIN_DATASETS, CATALOGUE, DEFAULT_DATASET, shared_dataset_names

__all__ = [
    "DEFAULT_METHODS",
    "DEFAULT_SETTINGS",
    "MAX_BINS",
    "MISSING_CHOICES",
    "ROW_CHOICES",
    "UPLOAD_PREFIX",
    "bound",
    "current_settings",
    "default_spec",
    "init_state",
    "selected_methods",
    "set_dataset",
    "sync_url",
    "url_spec",
]

#: methods selected on a fresh visit: the classic rule, two fixed rules and the HEB pair
DEFAULT_METHODS = ["Laplace", "m-estimate", "TE", "HEB-U", "HEB-M"]
DEFAULT_SETTINGS = {"n_bins": 10, "missing": "impute", "max_rows": 20_000}
#: the most quantile bins a numeric column can be given
MAX_BINS = 50
MISSING_CHOICES = {
    "impute": "Impute (mode / median), as in the paper",
    "category": "Missing as its own category",
}
ROW_CHOICES = {20_000: "Subsample to 20,000 rows (paper protocol)", 0: "Use every row"}
UPLOAD_PREFIX = "upload:"
#: the longest URL value read at all (a dataset name or a method list is far shorter)
MAX_URL_VALUE = 300
_OPENML_ID = re.compile(r"[1-9][0-9]{0,8}")
BAD_LINK_NOTE = (
    "The link names a dataset this app cannot open from a URL (only built-in, paper and "
    "OpenML datasets can be linked): showing the built-in default instead."
)
UPLOAD_LINK_NOTE = (
    "The link points to an uploaded file, which is not part of this session: "
    "showing the built-in default instead (upload the file on the Dataset page)."
)


def default_spec() -> str:
    """The dataset of a fresh visit."""
    return f"builtin:{DEFAULT_DATASET}"


def url_spec(value: str | None) -> str | None:
    """``value`` if a URL may name it as the dataset, else None.

    Allowed: ``builtin:NAME`` of a built-in, ``shared:NAME`` of a shared copy or of the
    paper's catalogue, ``openml:ID`` with a positive integer id. Never a path, a
    ``file:`` address or anything longer than :data:`MAX_URL_VALUE`.
    """
    if not value or len(value) > MAX_URL_VALUE:
        return None
    kind, sep, name = value.partition(":")
    if not sep:
        return None
    if kind == "builtin" and name in BUILTIN_DATASETS:
        return value
    if kind == "shared" and (
        name in {entry.name for entry in CATALOGUE} or name in shared_dataset_names()
    ):
        return value
    if kind == "openml" and _OPENML_ID.fullmatch(name):
        return value
    return None


def _parse_methods(text: str | None) -> list[str] | None:
    if not text or len(text) > MAX_URL_VALUE:
        return None
    chosen = [name.strip() for name in text.split(",") if name.strip() in registry.METHODS]
    return list(dict.fromkeys(chosen)) or None


def _parse_int(text: str | None, allowed: range | tuple) -> int | None:
    if text is None or len(text) > 12:
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value in allowed else None


def init_state() -> None:
    """Seed the session state from the URL on a session's first run (a shared link)."""
    state = st.session_state
    if state.get("_state_ready"):
        return
    params = st.query_params
    notes = []
    requested = params.get("data")
    spec = url_spec(requested)
    if requested and spec is None:
        notes.append(UPLOAD_LINK_NOTE if requested.startswith(UPLOAD_PREFIX) else BAD_LINK_NOTE)
    state["data_spec"] = spec or default_spec()
    state["methods"] = _parse_methods(params.get("methods")) or list(DEFAULT_METHODS)
    bins = _parse_int(params.get("bins"), range(2, MAX_BINS + 1))
    state["n_bins"] = bins or DEFAULT_SETTINGS["n_bins"]
    missing = params.get("missing")
    state["missing"] = missing if missing in MISSING_CHOICES else DEFAULT_SETTINGS["missing"]
    rows = _parse_int(params.get("rows"), tuple(ROW_CHOICES))
    state["max_rows"] = DEFAULT_SETTINGS["max_rows"] if rows is None else rows
    state.setdefault("uploads", {})
    state["_notes"] = notes
    state["_state_ready"] = True


def sync_url() -> None:
    """Mirror the shared state in the URL (only what differs, to avoid needless messages)."""
    state = st.session_state
    wanted = {
        "data": state["data_spec"],
        "methods": ",".join(state["methods"]),
        "bins": str(state["n_bins"]),
        "missing": state["missing"],
        "rows": str(state["max_rows"]),
    }
    current = {key: st.query_params.get(key) for key in st.query_params}
    if current != wanted:
        st.query_params.from_dict(wanted)


def set_dataset(spec: str) -> None:
    """Make ``spec`` the current dataset (call from a widget callback)."""
    st.session_state["data_spec"] = spec


def _copy_widget(widget: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget]


def bound(name: str) -> dict:
    """Widget arguments that tie a widget to the shared session value ``name``.

    The value itself lives under ``name`` (plain session state, which survives page
    switches); the widget, keyed ``w_<name>``, shows it and writes changes back. Create
    the widget without a default (``value`` / ``index``): the shared value is its state.
    """
    key = f"w_{name}"
    st.session_state[key] = st.session_state[name]
    return {"key": key, "on_change": _copy_widget, "args": (key, name)}


def current_settings() -> dict:
    """The preprocessing settings shared by every page: n_bins, missing, max_rows."""
    state = st.session_state
    return {key: state[key] for key in DEFAULT_SETTINGS}


def selected_methods() -> list[str]:
    """The methods chosen in the sidebar, in the registry's order."""
    chosen = st.session_state.get("methods") or []
    return [name for name in registry.METHODS if name in chosen]
