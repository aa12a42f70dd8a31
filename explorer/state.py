"""The app's shared state: the current dataset, methods and settings, mirrored in the URL.

The values live in ``st.session_state`` (so they persist across pages) and in the URL, so
a shared link reproduces the view. The URL is :meth:`heb.evaluate.RunSettings.to_query`
of the current run settings (the same frozen object the result cache keys on) plus the
chosen methods: ``?dataset=builtin:iris&n_bins=10&missing=impute&max_rows=20000&folds=10
&seed=42&params=Lidstone:alpha=0.3&methods=Laplace,Lidstone``. Links of the earlier form
(``data``, ``bins``, ``rows``) still open. Every URL value is checked before use: the
dataset only ever names a built-in, a shared or a catalogue dataset, or ``openml:<id>``,
never a path; a value out of range falls back to its default.
"""

from __future__ import annotations

import re

import streamlit as st

from heb import registry
from heb.data import BUILTIN_DATASETS, CATALOGUE, DEFAULT_DATASET, shared_dataset_names
from heb.evaluate import RunSettings

__all__ = [
    "DEFAULT_METHODS",
    "DEFAULT_SETTINGS",
    "FOLD_CHOICES",
    "MAX_BINS",
    "MISSING_CHOICES",
    "ROW_CHOICES",
    "UPLOAD_PREFIX",
    "bound",
    "current_settings",
    "default_spec",
    "init_state",
    "run_settings",
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
#: cross-validation folds the Compare page offers (the paper uses 10)
FOLD_CHOICES = (10, 5, 3)
#: earlier URL names still read: old name -> RunSettings.to_query name
_URL_ALIASES = {"data": "dataset", "bins": "n_bins", "rows": "max_rows"}
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
    """The known method names of a comma-separated URL value, in order, or None."""
    if not text or len(text) > MAX_URL_VALUE:
        return None
    chosen = [name.strip() for name in text.split(",") if name.strip() in registry.METHODS]
    return list(dict.fromkeys(chosen)) or None


def _query() -> dict[str, str]:
    """The URL's values under their RunSettings names (earlier names mapped), short ones only."""
    query = {}
    for key in st.query_params:
        value = st.query_params.get(key)
        if value is not None:
            query[_URL_ALIASES.get(key, key)] = value
    return query


def _setting(query: dict[str, str], name: str, attribute: str, allowed, default):
    """One URL value parsed by :meth:`RunSettings.from_query`; ``default`` if absent or not
    among ``allowed``."""
    text = query.get(name)
    if text is None or len(text) > MAX_URL_VALUE:
        return default
    try:
        value = getattr(RunSettings.from_query({name: text}), attribute)
    except ValueError:
        return default
    return value if value in allowed else default


def _knob_values(query: dict[str, str]) -> dict[str, float]:
    """What-if values from the URL's overrides: ``whatif_<param>`` -> a value the knob offers."""
    text = query.get("params")
    if not text or len(text) > MAX_URL_VALUE:
        return {}
    try:
        overrides = RunSettings.from_query({"params": text}).params()
    except ValueError:
        return {}
    values = {}
    for method, params in overrides.items():
        knob = registry.METHODS[method].knob if method in registry.METHODS else None
        if knob is not None and params.get(knob.name) in knob.choices:
            values[f"whatif_{knob.name}"] = params[knob.name]
    return values


def init_state() -> None:
    """Seed the session state from the URL on a session's first run (a shared link)."""
    state = st.session_state
    if state.get("_state_ready"):
        return
    query = _query()
    notes = []
    requested = query.get("dataset")
    spec = url_spec(requested)
    if requested and spec is None:
        notes.append(UPLOAD_LINK_NOTE if requested.startswith(UPLOAD_PREFIX) else BAD_LINK_NOTE)
    state["data_spec"] = spec or default_spec()
    state["methods"] = _parse_methods(query.get("methods")) or list(DEFAULT_METHODS)
    state["n_bins"] = _setting(
        query, "n_bins", "n_bins", range(2, MAX_BINS + 1), DEFAULT_SETTINGS["n_bins"]
    )
    missing = query.get("missing")
    state["missing"] = missing if missing in MISSING_CHOICES else DEFAULT_SETTINGS["missing"]
    # RunSettings reads "0" (every row) as None
    rows = _setting(query, "max_rows", "max_rows", (*ROW_CHOICES, None), "default")
    state["max_rows"] = DEFAULT_SETTINGS["max_rows"] if rows == "default" else rows or 0
    state["folds"] = _setting(query, "folds", "n_splits", FOLD_CHOICES, FOLD_CHOICES[0])
    state.update(_knob_values(query))
    state.setdefault("uploads", {})
    state["_notes"] = notes
    state["_state_ready"] = True


def _overrides() -> dict[str, dict[str, float]]:
    """The chosen methods' what-if values that differ from their defaults."""
    state = st.session_state
    out = {}
    for method in selected_methods():
        knob = registry.method(method).knob
        if knob is None:
            continue
        value = state.get(f"whatif_{knob.name}", knob.default)
        if value != knob.default:
            out[method] = {knob.name: value}
    return out


def run_settings() -> RunSettings:
    """The current run: dataset, preprocessing, folds and the what-if overrides."""
    state = st.session_state
    return RunSettings(
        dataset=state["data_spec"],
        n_bins=state["n_bins"],
        missing=state["missing"],
        max_rows=state["max_rows"],
        n_splits=state.get("folds", FOLD_CHOICES[0]),
        overrides=_overrides(),
    )


def sync_url() -> None:
    """Mirror the shared state in the URL (only what differs, to avoid needless messages)."""
    wanted = {**run_settings().to_query(), "methods": ",".join(st.session_state["methods"])}
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
