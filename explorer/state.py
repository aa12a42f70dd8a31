"""The app's shared state: the current dataset, methods and settings, mirrored in the URL.

The values live in ``st.session_state`` (so they persist across pages) and in the URL, so
a shared link reproduces the view. The URL is :meth:`heb.evaluate.RunSettings.to_query`
of the current run settings (the same frozen object the result cache keys on) plus the
chosen methods: ``?dataset=builtin:iris&n_bins=10&missing=impute&max_rows=20000&folds=10
&seed=42&params=Lidstone:alpha=0.3&methods=Laplace,Lidstone``. Links of the earlier form
(``data``, ``bins``, ``rows``) still open. Every URL value is checked before use: the
dataset only ever names a built-in, a shared or a catalogue dataset, or ``openml:<id>``,
never a path; a value out of range falls back to its default.

A link cannot carry an uploaded file: for an upload the URL names the file and its choices
(``?dataset=upload:<sha256 prefix>&file=shops.csv&target=label&categorical=["zip"]``). A
session opened from such a link shows the default dataset, remembers the choices and
applies them when a file of that name is uploaded (:func:`take_link_upload`).

A large file counted by DuckDB (:mod:`explorer.large_files`) is part of the view too:
``?large_file=<name relative to the data root>``, kept across pages while it is chosen,
with its target (``large_target``), its columns read as categories (``large_categorical``)
and its columns left out (``large_drop``, JSON lists). The URL only ever carries names;
:func:`explorer.large_files.active` checks the file inside the data root (an absolute
path, ``~`` or a name leaving the root is refused) and the columns against the file's.
"""

from __future__ import annotations

import json
import re

import streamlit as st

from explorer.errors import escape
from explorer.routing import PRESENT
from heb import registry
from heb.data import BUILTIN_DATASETS, CATALOGUE, DEFAULT_DATASET, shared_dataset_names
from heb.data.dataset import join_names, quote
from heb.evaluate import RunSettings
from heb.text import shorten

__all__ = [
    "missing_as_category",
    "default_dataset_note",
    "show_default_dataset_note",
    "DEFAULT_METHODS",
    "DEFAULT_SETTINGS",
    "FOLD_CHOICES",
    "MAX_BINS",
    "MISSING_CHOICES",
    "ROW_CHOICES",
    "UPLOAD_PREFIX",
    "bound",
    "declared_columns",
    "dropped_columns",
    "current_settings",
    "enter_page",
    "keep_setting",
    "page_setting",
    "page_values",
    "presenting",
    "reset_page_settings",
    "reset_with_page",
    "default_spec",
    "init_state",
    "LARGE_FILE",
    "LARGE_CATEGORICAL",
    "LARGE_TARGET",
    "LARGE_DROP",
    "large_categorical",
    "large_dropped",
    "large_file",
    "set_large_categorical",
    "set_large_dropped",
    "note_ignored_columns",
    "set_large_file",
    "run_settings",
    "selected_methods",
    "set_dataset",
    "sync_url",
    "take_link_upload",
    "url_spec",
    "where_to_change",
    "widget_key",
    "current_page",
    "label_settings",
    "lesson_dataset_used",
    "lesson_uses_dataset",
    "page_settings_text",
    "setting_labels",
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
#: the note of a link naming its upload's file (:data:`UPLOAD_FILE`); ``{then}`` says
#: which of the link's choices an upload of that name will take
UPLOAD_FILE_LINK_NOTE = (
    "The link points to the uploaded file {file}, which is not part of this session: "
    "showing the built-in default instead. Upload {file} on the Dataset page{then}."
)
#: URL names of an upload's file name, target, declared categorical columns and columns
#: left out (JSON lists: a column name may hold commas)
UPLOAD_FILE, UPLOAD_TARGET, UPLOAD_CATEGORICAL = "file", "target", "categorical"
UPLOAD_DROP = "drop"
#: session name of the upload choices a link named while its file was not in the session
LINK_UPLOAD = "_link_upload"
#: the one seed of the app's runs: the folds' shuffle (RunSettings.seed) and the subsample
SEED = RunSettings().seed
SEED_LINK_NOTE = (
    "The link asks for seed {value}, but this app always shuffles the folds with seed "
    f"{SEED} (the paper's protocol): the numbers shown are for seed {SEED}."
)
VALUE_LINK_NOTE = "The link's {name}={value} is not a value this app offers: using {default}."
#: the note drawn right above a page's control whose link value it could not take
CONTROL_LINK_NOTE = (
    "The link's {name}={value} is not a value the control below offers: it shows {default}."
)
METHODS_LINK_NOTE = "The link's methods name {value}, which this app does not have: left out."
#: URL and session name of the chosen large file (a name relative to the data root; "" none)
LARGE_FILE = "large_file"
#: URL name of the large file's target column; session name of the targets chosen per file
LARGE_TARGET = "large_target"
#: URL name of the large file's numeric columns read as categories (a JSON list, like
#: :data:`UPLOAD_CATEGORICAL`); session name of the columns chosen per file
LARGE_CATEGORICAL = "large_categorical"
#: URL name of the large file's columns left out (a JSON list, like :data:`UPLOAD_DROP`);
#: session name of the columns left out per file
LARGE_DROP = "large_drop"
#: the longest URL value repeated in a note
_NOTE_VALUE_CHARS = 40


def default_spec() -> str:
    """The dataset of a fresh visit."""
    return f"builtin:{DEFAULT_DATASET}"


def url_spec(value: str | None) -> str | None:
    """``value`` if a URL may name it as the dataset, else None.

    Allowed: ``builtin:NAME`` of a built-in, ``shared:NAME`` of a shared copy,
    ``openml:ID`` with a positive integer id. A catalogue name without a local copy is its
    OpenML id (``shared:credit-g``: ``openml:31``), as the sidebar offers it: the shared
    copy's error named the server's folder. Never a path, a ``file:`` address or anything
    longer than :data:`MAX_URL_VALUE`.
    """
    if not value or len(value) > MAX_URL_VALUE:
        return None
    kind, sep, name = value.partition(":")
    if not sep:
        return None
    if kind == "builtin" and name in BUILTIN_DATASETS:
        return value
    if kind == "shared":
        if name in shared_dataset_names():
            return value
        entry = next((entry for entry in CATALOGUE if entry.name == name), None)
        if entry is not None and entry.openml_id is not None:
            return f"openml:{int(entry.openml_id)}"
        return None
    if kind == "openml" and _OPENML_ID.fullmatch(name):
        return value
    return None


def _url_method_names(text: str | None) -> list[str]:
    """The names of a comma-separated URL value."""
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def _parse_methods(text: str | None) -> list[str] | None:
    """The known method names of a comma-separated URL value, in order, or None."""
    if text and len(text) > MAX_URL_VALUE:
        return None
    chosen = [name for name in _url_method_names(text) if name in registry.METHODS]
    return list(dict.fromkeys(chosen)) or None


def _unknown_methods_notes(text: str | None) -> list[str]:
    """A note naming the URL's methods that the registry does not have (shortened)."""
    unknown = [name for name in _url_method_names(text) if name not in registry.METHODS]
    if not unknown:
        return []
    return [_link_note(METHODS_LINK_NOTE, "methods", ", ".join(unknown), None)]


def _query() -> dict[str, str]:
    """The URL's values under their RunSettings names (earlier names mapped), short ones only."""
    query = {}
    for key in st.query_params:
        value = st.query_params.get(key)
        if value is not None:
            query[_URL_ALIASES.get(key, key)] = value
    return query


def _setting(query: dict[str, str], name: str, attribute: str, allowed, default, notes=None):
    """One URL value parsed by :meth:`RunSettings.from_query`; ``default`` if absent or not
    among ``allowed`` (then, given ``notes``, a note saying so is added to it)."""
    text = query.get(name)
    if text is None:
        return default
    if len(text) <= MAX_URL_VALUE:
        try:
            value = getattr(RunSettings.from_query({name: text}), attribute)
        except ValueError:
            pass
        else:
            if value in allowed:
                return value
    if notes is not None:
        notes.append(_link_note(VALUE_LINK_NOTE, name, text, default))
    return default


def note_ignored_columns(template: str, columns, file: str) -> None:
    """Say once, above the page, that a link's ``columns`` of the large file ``file`` were
    ignored (``template`` takes ``{columns}`` and ``{file}``)."""
    notes = st.session_state.setdefault("_notes", [])
    note = template.format(columns=", ".join(map(repr, columns)), file=file)
    if note not in notes:
        notes.append(note)


def _link_note(template: str, name: str, text: str, default) -> str:
    """``template`` filled with a URL value (shortened) that the app did not take."""
    return template.format(name=name, value=shorten(text, _NOTE_VALUE_CHARS), default=default)


def _seed_notes(query: dict[str, str]) -> list[str]:
    """A note when the link asks for another seed than the app's :data:`SEED`."""
    text = query.get("seed")
    if text is None or _setting(query, "seed", "seed", (SEED,), None) == SEED:
        return []  # absent, or 42 however written ("042", " 42")
    return [_link_note(SEED_LINK_NOTE, "seed", text, SEED)]


def _knob_values(query: dict[str, str], notes: list[str] | None = None) -> dict[str, float]:
    """What-if values from the URL's overrides: ``whatif_<param>`` -> a value the knob offers.

    Given ``notes``, a link whose overrides are not all knob values the app offers (an
    unknown method, a value off the knob, unreadable text) gets a note saying the
    defaults are used where they are not.
    """
    text = query.get("params")
    if not text:
        return {}
    overrides = None
    if len(text) <= MAX_URL_VALUE:
        try:
            overrides = RunSettings.from_query({"params": text}).params()
        except ValueError:
            pass
    values, unused = {}, overrides is None
    for method, params in (overrides or {}).items():
        knob = registry.METHODS[method].knob if method in registry.METHODS else None
        for name, value in params.items():
            if knob is not None and name == knob.name and value in knob.choices:
                values[f"whatif_{knob.name}"] = value
            else:
                unused = True
    if unused and notes is not None:
        notes.append(_link_note(VALUE_LINK_NOTE, "params", text, "the smoothers' defaults"))
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
    if requested and spec is None and requested.startswith(UPLOAD_PREFIX):
        link_upload = _url_upload(query)
        if link_upload is None:
            notes.append(UPLOAD_LINK_NOTE)
        else:
            link_upload["hierarchies"] = _url_hierarchies(query.get("hierarchies"))
            state[LINK_UPLOAD] = link_upload
            notes.append(_upload_link_note(link_upload))
    elif requested and spec is None:
        notes.append(BAD_LINK_NOTE)
    state["data_spec"] = spec or default_spec()
    state["methods"] = _parse_methods(query.get("methods")) or list(DEFAULT_METHODS)
    notes.extend(_unknown_methods_notes(query.get("methods")))
    state["n_bins"] = _setting(
        query, "n_bins", "n_bins", range(2, MAX_BINS + 1), DEFAULT_SETTINGS["n_bins"], notes
    )
    state["missing"] = _setting(
        query, "missing", "missing", MISSING_CHOICES, DEFAULT_SETTINGS["missing"], notes
    )
    # RunSettings reads "0" (every row) as None
    rows = _setting(
        query, "max_rows", "max_rows", (*ROW_CHOICES, None), DEFAULT_SETTINGS["max_rows"], notes
    )
    state["max_rows"] = rows or 0
    state["folds"] = _setting(query, "folds", "n_splits", FOLD_CHOICES, FOLD_CHOICES[0], notes)
    notes += _seed_notes(query)
    state.update(_knob_values(query, notes))
    # a link's upload takes its hierarchies when the file is uploaded; the default, none
    hierarchies = "" if LINK_UPLOAD in state else _url_hierarchies(query.get("hierarchies"))
    state["hierarchies"] = {state["data_spec"]: hierarchies}
    # the name only: explorer.large_files.active() checks it inside the data root
    state[LARGE_FILE] = _url_large_file(query.get(LARGE_FILE), notes)
    target = query.get(LARGE_TARGET)
    state[LARGE_TARGET] = (
        {state[LARGE_FILE]: target}
        if state[LARGE_FILE] and target and len(target) <= MAX_URL_VALUE
        else {}
    )
    declared = _url_columns(query.get(LARGE_CATEGORICAL))
    # checked against the file's columns by explorer.large_files.active()
    state[LARGE_CATEGORICAL] = (
        {state[LARGE_FILE]: declared} if state[LARGE_FILE] and declared else {}
    )
    left_out = _url_columns(query.get(LARGE_DROP))  # checked by large_files.active() too
    state[LARGE_DROP] = {state[LARGE_FILE]: left_out} if state[LARGE_FILE] and left_out else {}
    state.setdefault("uploads", {})
    state[_INITIAL_QUERY] = {key: value for key, value in query.items() if key not in _RUN_KEYS}
    state[PRESENT] = query.get(PRESENT) == "1"
    state["_notes"] = notes
    # no dataset in the link (a page's plain address, a new tab): the page it opens on says so
    state[OPENED_ON_DEFAULT] = not requested and not state[LARGE_FILE]
    state["_state_ready"] = True


#: session name: True while the session, opened with no dataset in its link, has not yet
#: drawn a page; then the path of that page, which says it shows the default dataset
OPENED_ON_DEFAULT = "_opened_on_default"
_DEFAULT_NOTE_TOASTED = "_default_note_toasted"
#: the pages that draw the sidebar's dataset (URL paths) and say so when opened on the
#: default by a plain address; the root, where every first visit starts, does not
DEFAULT_NOTE_PAGES = ("dataset", "concentrations", "compare", "explain")


def default_dataset_note() -> str:
    """On the page a session opened on, while it shows the default dataset because its
    address named none (``/compare`` typed in a new tab): one sentence saying so, else "".
    Gone once another dataset or page is chosen."""
    state = st.session_state
    opened = state.get(OPENED_ON_DEFAULT)
    if opened is True:
        opened = state[OPENED_ON_DEFAULT] = current_page()
    if not opened:
        return ""
    if opened != current_page() or state.get("data_spec") != default_spec() or large_file():
        state[OPENED_ON_DEFAULT] = False
        return ""
    if opened not in DEFAULT_NOTE_PAGES:
        return ""
    return f"Opened on the default dataset, {DEFAULT_DATASET}: the address named no dataset."


def show_default_dataset_note() -> None:
    """:func:`default_dataset_note` as a caption (drawn under the sidebar's Dataset box),
    and once as a toast: the sidebar's box sits below the fold of a 900 px screen, and the
    top of the main column is under Streamlit's header."""
    note = default_dataset_note()
    if not note:
        return
    st.caption(note.removesuffix(".") + " (an upload stays in the browser tab it was made in).")
    # short: a toast cuts a longer one; none on a projector (the presenter has no sidebar
    # to change the dataset in, and a lecture opened on the default means it). Shown for
    # 4 s, not 10: a toast outlives reruns, and a quick upload left it saying "default"
    # over the uploaded file's page
    if not presenting() and not st.session_state.get(_DEFAULT_NOTE_TOASTED):
        st.session_state[_DEFAULT_NOTE_TOASTED] = True
        st.toast(note, icon=":material/info:", duration="short")


def _url_large_file(text: str | None, notes: list[str]) -> str:
    """The link's large-file name, unchecked ("" when absent or longer than a name can be)."""
    if not text:
        return ""
    if len(text) > MAX_URL_VALUE:
        notes.append(_link_note(VALUE_LINK_NOTE, LARGE_FILE, text, "no large file"))
        return ""
    return text


def large_file() -> str:
    """The large file chosen for this view (a name relative to the data root), or ""."""
    return str(st.session_state.get(LARGE_FILE) or "")


def set_large_file(name: str) -> None:
    """Make ``name`` (relative to the data root; "" for none) the view's large file."""
    st.session_state[LARGE_FILE] = name


def large_categorical(name: str) -> tuple[str, ...]:
    """The columns of the large file ``name`` read as categories (sorted: one key per set)."""
    return tuple(sorted(st.session_state.get(LARGE_CATEGORICAL, {}).get(name) or ()))


def set_large_categorical(name: str, columns) -> None:
    """Read ``columns`` of the large file ``name`` as categories (none: as the engine reads)."""
    chosen = st.session_state.setdefault(LARGE_CATEGORICAL, {})
    chosen[name] = list(dict.fromkeys(str(c) for c in columns))
    if not chosen[name]:
        del chosen[name]


def large_dropped(name: str) -> tuple[str, ...]:
    """The columns of the large file ``name`` left out (sorted: one key per set)."""
    return tuple(sorted(st.session_state.get(LARGE_DROP, {}).get(name) or ()))


def set_large_dropped(name: str, columns) -> None:
    """Leave ``columns`` of the large file ``name`` out of every scan (none: every column)."""
    chosen = st.session_state.setdefault(LARGE_DROP, {})
    chosen[name] = list(dict.fromkeys(str(c) for c in columns))
    if not chosen[name]:
        del chosen[name]


def _url_columns(text: str | None) -> list[str]:
    """The column names of a URL's JSON list (none if malformed or too long)."""
    if not text or len(text) > 8 * MAX_URL_VALUE:
        return []
    try:
        names = json.loads(text)
    except ValueError:
        return []
    if not isinstance(names, list):
        return []
    return list(dict.fromkeys(name for name in names if isinstance(name, str) and name))


def _url_upload(query: dict[str, str]) -> dict | None:
    """The upload choices of a link (file name, target, categorical columns), or None when
    it names no file (an older link) or an unreadable one."""
    filename = query.get(UPLOAD_FILE)
    if not filename or len(filename) > MAX_URL_VALUE:
        return None
    target = query.get(UPLOAD_TARGET) or None
    if target is not None and len(target) > MAX_URL_VALUE:
        target = None
    drop = [name for name in _url_columns(query.get(UPLOAD_DROP)) if name != target]
    columns = [
        name for name in _url_columns(query.get(UPLOAD_CATEGORICAL)) if name not in (target, *drop)
    ]
    return {"filename": filename, "target": target, "categorical": columns, "drop": drop}


def _upload_link_note(link_upload: dict) -> str:
    """:data:`UPLOAD_FILE_LINK_NOTE` for the link's upload choices (user text quoted, cut)."""
    target, columns = link_upload["target"], link_upload["categorical"]
    drop = link_upload.get("drop", [])
    chosen = []
    if target:
        chosen.append(f"target {quote(target)}")
    if columns:
        label = "categorical column" + "s" * (len(columns) > 1)
        chosen.append(f"{label} {join_names(columns, limit=5)}")
    if drop:
        chosen.append(f"left-out {join_names(drop, limit=5)}")
    if link_upload.get("hierarchies"):
        chosen.append("declared hierarchies")
    then = f": its {' and '.join(chosen)} from the link will be used" if chosen else ""
    return UPLOAD_FILE_LINK_NOTE.format(file=quote(link_upload["filename"]), then=then)


def take_link_upload(filename: str) -> dict | None:
    """The upload choices a link named for a file called ``filename`` (a dict with
    ``target`` and ``categorical``), removed from the session; None if the link named none.
    Called when a file is uploaded: the first file of that name takes them."""
    state = st.session_state
    link_upload = state.get(LINK_UPLOAD)
    if link_upload is None or link_upload["filename"] != filename:
        return None
    del state[LINK_UPLOAD]
    return link_upload


def declared_columns(upload: dict) -> tuple[str, ...]:
    """The columns an upload's record declares categorical (sorted: one cache key per set)."""
    return tuple(sorted(upload.get("categorical") or ()))


def dropped_columns(upload: dict) -> tuple[str, ...]:
    """The columns an upload's record leaves out (sorted: one cache key per set)."""
    return tuple(sorted(upload.get("drop") or ()))


def _upload_query() -> dict[str, str]:
    """The current upload's file name, chosen target and declared columns, for the URL."""
    state = st.session_state
    upload = state.get("uploads", {}).get(state.get("data_spec"))
    if upload is None:
        return {}
    query = {UPLOAD_FILE: upload["filename"]}
    if upload.get("target"):
        query[UPLOAD_TARGET] = upload["target"]
    declared = declared_columns(upload)
    if declared:
        query[UPLOAD_CATEGORICAL] = json.dumps(list(declared), ensure_ascii=False)
    dropped = dropped_columns(upload)
    if dropped:
        query[UPLOAD_DROP] = json.dumps(list(dropped), ensure_ascii=False)
    return query


def _url_hierarchies(text: str | None) -> str:
    """The URL's declared hierarchies (canonical text), or none if malformed or too long."""
    if not text or len(text) > 8 * MAX_URL_VALUE:
        return ""
    try:
        return RunSettings(hierarchies=text).hierarchies
    except ValueError:
        return ""


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
        hierarchies=state.get("hierarchies", {}).get(state["data_spec"], ""),
    )


def _wanted_query() -> dict[str, str]:
    """The URL of the current view: run settings, methods, the page's settings, presenting."""
    state = st.session_state
    wanted = {
        **run_settings().to_query(),
        **_upload_query(),
        "methods": ",".join(state["methods"]),
    }
    if state.get(LARGE_FILE):
        wanted[LARGE_FILE] = state[LARGE_FILE]
        target = state.get(LARGE_TARGET, {}).get(state[LARGE_FILE])
        if target:  # chosen on the Dataset page (else the file's last column)
            wanted[LARGE_TARGET] = target
        declared = large_categorical(state[LARGE_FILE])
        if declared:
            wanted[LARGE_CATEGORICAL] = json.dumps(list(declared), ensure_ascii=False)
        left_out = large_dropped(state[LARGE_FILE])
        if left_out:
            wanted[LARGE_DROP] = json.dumps(list(left_out), ensure_ascii=False)
    wanted.update(state.get(_PAGE_VALUES, {}))
    if state.get(PRESENT):
        wanted[PRESENT] = "1"
    return wanted


def sync_url() -> None:
    """Mirror the shared state in the URL (only what differs, to avoid needless messages)."""
    wanted = _wanted_query()
    current = {key: st.query_params.get(key) for key in st.query_params}
    if current != wanted:
        st.query_params.from_dict(wanted)


def set_dataset(spec: str) -> None:
    """Make ``spec`` the current dataset (call from a widget callback)."""
    st.session_state["data_spec"] = spec
    st.session_state[LARGE_FILE] = ""  # the dataset chosen now is the one every page shows
    st.session_state["_notes"] = []  # a note about the link's dataset no longer applies


def _copy_widget(widget: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget]


#: session name of the count of resets: a widget's key carries it (:func:`widget_key`)
_WIDGET_ROUND = "_widget_round"


def widget_key(name: str) -> str:
    """The key of the widget bound to the session value ``name`` (:func:`bound`).

    ``w_<name>``, and ``w<r>_<name>`` after the r-th reset: a reset gives every widget a
    new key, so a widget the browser holds unmounted (a closed popover: the presenter's
    "Settings") cannot send its old value back and undo the reset.
    """
    round_ = st.session_state.get(_WIDGET_ROUND, 0)
    return f"w{round_}_{name}" if round_ else f"w_{name}"


def bound(name: str) -> dict:
    """Widget arguments that tie a widget to the shared session value ``name``.

    The value itself lives under ``name`` (plain session state, which survives page
    switches); the widget, keyed :func:`widget_key`, shows it and writes changes back.
    Create the widget without a default (``value`` / ``index``): the shared value is its
    state.
    """
    key = widget_key(name)
    st.session_state[key] = st.session_state[name]
    return {"key": key, "on_change": _copy_widget, "args": (key, name)}


def missing_as_category() -> None:
    """Callback: missing values as a category of their own, on every page (the remedy of
    an ID-like column whose missing rows imputation piles into one ID)."""
    st.session_state["missing"] = "category"


def current_settings() -> dict:
    """The preprocessing settings shared by every page: n_bins, missing, max_rows."""
    state = st.session_state
    return {key: state[key] for key in DEFAULT_SETTINGS}


def selected_methods() -> list[str]:
    """The methods chosen in the sidebar, in the registry's order."""
    chosen = st.session_state.get("methods") or []
    return [name for name in registry.METHODS if name in chosen]


# --------------------------------------------------------------------------- page settings
#: URL flag of the presenter's step (``?step=2``); its mode's flag (``?present=1``) is
#: :data:`explorer.routing.PRESENT`, read before this module is imported
STEP = "step"
#: session name of the step a page's link asked for, read once by explorer.presenter
STEP_REQUESTED = "_presenter_step_requested"
_INITIAL_QUERY = "_initial_query"
#: session name: page settings whose link value could not be taken (name -> its text)
_REFUSED_SETTINGS = "_refused_settings"
_PAGE = "_page_path"
_PAGE_VALUES = "_page_values"
_PAGE_DEFAULTS = "_page_defaults"
#: the current page's other values a reset restores (name -> default)
_RESET_ALSO = "_reset_also"
#: whether the current lesson draws from the app's dataset this run
_LESSON_USES_DATASET = "_lesson_uses_dataset"
#: what the current page's index-valued settings stand for this run (name -> label)
_SETTING_LABELS = "_setting_labels"
#: URL names of the shared state (never a page setting's name)
_RUN_KEYS = frozenset(
    {
        *RunSettings().to_query(),
        "params",
        "hierarchies",
        "methods",
        *_URL_ALIASES,
        UPLOAD_FILE,
        UPLOAD_TARGET,
        UPLOAD_CATEGORICAL,
        UPLOAD_DROP,
        LARGE_FILE,
        LARGE_TARGET,
        LARGE_CATEGORICAL,
        LARGE_DROP,
    }
)


def enter_page(path: str) -> None:
    """Note the page about to run; leaving a page drops its settings from the URL (they stay
    in the session, so coming back finds them). A page is entered at the presenter step its
    link names (``?step=``, read by :mod:`explorer.presenter`), else at its first."""
    state = st.session_state
    if state.get(_PAGE) != path:
        state[_PAGE] = path
        state[_PAGE_VALUES] = {}
        state[_PAGE_DEFAULTS] = {}
        state[_RESET_ALSO] = {}
        state[_LESSON_USES_DATASET] = False
        state[_SETTING_LABELS] = {}
        state[STEP_REQUESTED] = st.query_params.get(STEP) or "1"


def _as_text(value) -> str:
    """A setting's URL form: ``1`` / ``0`` for a switch, comma-joined for a list."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list | tuple):
        return ",".join(_as_text(item) for item in value)
    return str(value)


def _from_text(text: str, default, choices):
    """A URL value read back as the setting's type, or None if it is not a value it can take."""
    if len(text) > MAX_URL_VALUE:
        return None
    if isinstance(default, list):
        options = {_as_text(choice): choice for choice in choices or ()}
        picked = [options[item] for item in text.split(",") if item in options]
        return list(dict.fromkeys(picked)) if (picked or not text) else None
    if choices is not None:
        exact = {_as_text(choice): choice for choice in choices}.get(text)
        return exact if exact is not None else _same_number(text, default, choices)
    if isinstance(default, bool):
        return {"1": True, "0": False}.get(text)
    try:
        value = type(default)(text)
    except (TypeError, ValueError):
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def _same_number(text: str, default, choices):
    """The numeric choice ``text`` names in another spelling (``10`` for 10.0, ``1e-3``
    for 0.001), or None: a hand-written link's α = 10 was ignored without a word."""
    if isinstance(default, bool) or not isinstance(default, int | float):
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return next((choice for choice in choices if choice == number), None)


def _allowed(value, default, choices) -> bool:
    if choices is None:
        return isinstance(value, type(default))
    if isinstance(default, list):
        return isinstance(value, list) and all(item in choices for item in value)
    return value in choices


def link_value(name: str) -> str | None:
    """The text the session's first link gave ``name`` (``?name=text``), else None."""
    return st.session_state.get(_INITIAL_QUERY, {}).get(name)


def page_setting(name: str, default, choices=None) -> dict:
    """Widget arguments for a page's own setting, kept for the session and in the URL.

    The value lives in ``st.session_state[name]`` (so it survives a page switch), starts
    from the URL of the session's first run (a shared link) when that names a value it
    can take, else from ``default``; it appears in the URL (as ``?name=value``) while it
    differs from ``default``. Create the widget without a default value, as with
    :func:`bound`.

    Parameters
    ----------
    name : str
        Session and URL name, unique in the app (e.g. ``dirichlet_K``).
    default : bool, int, float, str or list
        The value of a fresh visit, and the type a URL value is read as.
    choices : sequence, optional
        The values the widget offers (of the list, for a multiselect); anything else in
        the URL or the session falls back to ``default``.
    """
    keep_setting(name, default, choices)
    refused = st.session_state.get(_REFUSED_SETTINGS, {})
    if name in refused:  # said beside the control until it is moved
        if st.session_state[name] == default:
            st.caption(escape(_link_note(CONTROL_LINK_NOTE, name, refused[name], default)))
        else:
            del refused[name]
    return bound(name)


def keep_setting(name: str, default, choices=None) -> None:
    """Keep a page setting in the session and the URL on a run that draws no widget for it
    (its tab is closed), so a copied link still carries it; :func:`page_setting` without
    the widget."""
    state = st.session_state
    if name not in state:
        text = link_value(name)
        from_url = None if text is None else _from_text(text, default, choices)
        state[name] = default if from_url is None else from_url
        if text is not None and from_url is None:
            state.setdefault(_REFUSED_SETTINGS, {})[name] = text
    elif not _allowed(state[name], default, choices):
        state[name] = default
    state.setdefault(_PAGE_DEFAULTS, {})[name] = default
    values = state.setdefault(_PAGE_VALUES, {})
    if state[name] == default:
        values.pop(name, None)
        if name in st.query_params:
            del st.query_params[name]
    else:
        values[name] = _as_text(state[name])
        if st.query_params.get(name) != values[name]:
            st.query_params[name] = values[name]


def current_page() -> str:
    """The URL path of the page this run draws (``""`` before the first)."""
    return st.session_state.get(_PAGE, "")


def page_settings_text() -> dict[str, str]:
    """Every setting of the current page as URL text, defaults included (an exported
    figure's footer names them all)."""
    state = st.session_state
    return {name: _as_text(state[name]) for name in state.get(_PAGE_DEFAULTS, {}) if name in state}


def lesson_uses_dataset(uses: bool) -> None:
    """Say whether the current lesson's figures come from the app's dataset (an exported
    figure's footer then names it and its preprocessing)."""
    st.session_state[_LESSON_USES_DATASET] = uses


def label_settings(labels: dict[str, str]) -> None:
    """Say what the current page's settings that hold an index stand for (the evidence
    lesson's ``evidence_class=0`` is the class ``no``): an exported figure's footer writes
    the label after the value, so a slide names the class, not its index. Each call
    replaces the last one's labels."""
    st.session_state[_SETTING_LABELS] = dict(labels)


def setting_labels() -> dict[str, str]:
    """The labels :func:`label_settings` gave the current page's settings."""
    return st.session_state.get(_SETTING_LABELS, {})


def lesson_dataset_used() -> bool:
    """Whether the current lesson said it draws from the app's dataset."""
    return bool(st.session_state.get(_LESSON_USES_DATASET))


def page_values() -> dict[str, str]:
    """The current page's own URL values (name -> text), kept in the URL by :func:`sync_url`."""
    return st.session_state.setdefault(_PAGE_VALUES, {})


def reset_with_page(name: str, default) -> None:
    """Let the current page's "Reset to defaults" also restore the session value ``name``
    (a value the page's controls share with the run settings: Compare's folds and
    what-if values)."""
    st.session_state.setdefault(_RESET_ALSO, {})[name] = default


def reset_page_settings() -> None:
    """Callback: every setting of the current page back to its default, with the values
    the page named (:func:`reset_with_page`); every bound widget gets a new key."""
    state = st.session_state
    refused = state.get(_REFUSED_SETTINGS, {})
    for name, default in state.get(_PAGE_DEFAULTS, {}).items():
        state[name] = list(default) if isinstance(default, list) else default
        refused.pop(name, None)
    for name, default in state.get(_RESET_ALSO, {}).items():
        state[name] = default
    state[_WIDGET_ROUND] = state.get(_WIDGET_ROUND, 0) + 1


def where_to_change() -> str:
    """Where the sidebar's settings are changed: the presenter mode hides the sidebar."""
    if presenting():
        return "leave the presenter mode to change them in the sidebar"
    return "change them in the sidebar"


def presenting() -> bool:
    """Whether the presenter mode is on (``?present=1`` or the toggle)."""
    return bool(st.session_state.get(PRESENT))
