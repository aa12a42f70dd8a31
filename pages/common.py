"""Shared sidebar, session state and helpers of the HEB Explorer pages.

The current dataset, the preprocessing settings and the chosen methods live in
``st.session_state`` (so they persist across pages) and are mirrored in the URL
(``?data=builtin:NAME&methods=HEB-M,Laplace&bins=10&missing=impute&rows=20000``) so a
shared link reproduces the view. Every heavy object is cached under an explicit string
key (a sha256 fingerprint of the data plus the settings), never on Streamlit's sampled
hashing of large arrays. This module holds no formula: it calls :mod:`heb`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from heb import data as hdata
from heb.counts import CountTable
from heb.evaluate import METHODS, TABLE1_METHODS
from heb.data import Preprocessor, encode_target, stratified_subsample

__all__ = [
    "DEFAULT_METHODS",
    "MAX_BINS",
    "WorkingData",
    "apply_style",
    "bound",
    "current_codes",
    "current_dataset",
    "current_settings",
    "dataset_key",
    "download_buttons",
    "ensure_entry_point",
    "guard",
    "init_state",
    "load_spec",
    "page_header",
    "register_upload",
    "selected_methods",
    "set_dataset",
    "show_error",
    "show_figure",
    "sidebar",
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
#: projector-friendly font size of every figure (pixels)
FIGURE_FONT_SIZE = 16
FIGURE_TEXT_COLOR = "#1a1a1a"

_STYLE = """
<style>
/* Readable from the back of a classroom: larger tables, metrics and tabs. */
[data-testid="stMainBlockContainer"] { padding-top: 2.2rem; max-width: 1500px; }
[data-testid="stMetricValue"] { font-size: 2rem; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
button[data-baseweb="tab"] p { font-size: 1.05rem; }
[data-testid="stSidebar"] [data-testid="stMarkdownContainer"] p { font-size: 0.98rem; }
</style>
"""


# --------------------------------------------------------------------------- state
def ensure_entry_point() -> None:
    """Rerun through ``app.py`` when Streamlit ran this page file on its own.

    Streamlit treats an app whose entry script sits next to a ``pages/`` folder as a
    legacy multipage app until the entry script first calls ``st.navigation``. On a fresh
    server, the first visit to a page's URL therefore runs that page without ``app.py``
    (no sidebar, no shared state). Clearing the legacy flag and rerunning routes the
    request through ``app.py``, which then opens the same page.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a future Streamlit without the legacy mode
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def _default_spec() -> str:
    return f"builtin:{hdata.DEFAULT_DATASET}"


def _parse_methods(text: str | None) -> list[str] | None:
    if not text:
        return None
    names = [name.strip() for name in text.split(",")]
    chosen = [name for name in names if name in METHODS]
    return list(dict.fromkeys(chosen)) or None


def _parse_int(text: str | None, allowed: range | tuple) -> int | None:
    try:
        value = int(text) if text is not None else None
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
    spec = params.get("data") or _default_spec()
    if spec.startswith(UPLOAD_PREFIX):
        notes.append(
            "The link points to an uploaded file, which is not part of this session: "
            "showing the built-in default instead (upload the file on the Dataset page)."
        )
        spec = _default_spec()
    state["data_spec"] = spec
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


def _sync_url() -> None:
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
    """The methods chosen in the sidebar, in the order of :data:`heb.evaluate.METHODS`."""
    chosen = st.session_state.get("methods") or []
    return [name for name in METHODS if name in chosen]


# --------------------------------------------------------------------------- datasets
@st.cache_data(show_spinner=False, ttl=3600)
def _catalogue_options() -> dict[str, str]:
    """Spec -> label for the built-in datasets and the paper's catalogue."""
    options = {f"builtin:{name}": f"{name} (built-in)" for name in hdata.BUILTIN_DATASETS}
    frame = hdata.catalogue_frame()
    for row in frame.itertuples(index=False):
        if row.available:
            options[f"shared:{row.name}"] = f"{row.name} (paper, local copy)"
        else:
            options[f"openml:{int(row.openml_id)}"] = f"{row.name} (paper, OpenML {row.openml_id})"
    return options


def dataset_options() -> dict[str, str]:
    """Every dataset the sidebar offers (spec -> label), the current one included."""
    options = dict(_catalogue_options())
    for spec, upload in st.session_state.get("uploads", {}).items():
        options[spec] = f"{upload['filename']} (upload)"
    spec = st.session_state.get("data_spec", _default_spec())
    if spec not in options and spec.startswith("openml:"):
        options[spec] = f"OpenML dataset {spec.split(':', 1)[1]}"
    return options


@st.cache_resource(max_entries=8, show_spinner=False)
def load_spec(spec: str) -> hdata.Dataset:
    """A dataset by spec (``builtin:``, ``shared:``, ``openml:``), loaded once per process."""
    return hdata.load_dataset(spec)


@st.cache_resource(max_entries=8, show_spinner=False)
def _load_upload(digest: str, target: str | None, _payload: bytes, filename: str) -> hdata.Dataset:
    return hdata.load_upload(_payload, filename, target=target)


def register_upload(payload: bytes, filename: str) -> str:
    """Keep an uploaded file in the session and return its dataset spec."""
    digest = hashlib.sha256(payload).hexdigest()
    spec = f"{UPLOAD_PREFIX}{digest[:12]}"
    uploads = st.session_state.setdefault("uploads", {})
    if spec not in uploads:
        uploads[spec] = {"payload": payload, "filename": filename, "digest": digest, "target": None}
    return spec


def _load_current() -> hdata.Dataset:
    spec = st.session_state["data_spec"]
    if spec.startswith(UPLOAD_PREFIX):
        upload = st.session_state.get("uploads", {}).get(spec)
        if upload is None:
            raise hdata.DataError("That upload is no longer in this session; upload it again.")
        return _load_upload(
            upload["digest"], upload["target"], upload["payload"], upload["filename"]
        )
    return load_spec(spec)


def current_dataset() -> hdata.Dataset:
    """The dataset chosen in the sidebar; on a loading error, a friendly message and stop."""
    try:
        with st.spinner("Loading the dataset..."):
            return _load_current()
    except Exception as exc:  # noqa: BLE001 - every loader error becomes a message
        show_error(exc, "loading the dataset")
        if st.session_state["data_spec"] != _default_spec():
            st.button(
                "Back to the built-in default",
                on_click=set_dataset,
                args=(_default_spec(),),
                key="back_to_default",
            )
        st.stop()


@st.cache_data(max_entries=32, show_spinner=False)
def _fingerprint(spec: str, target: str | None, _dataset: hdata.Dataset) -> str:
    return _dataset.fingerprint()


def dataset_key(dataset: hdata.Dataset) -> str:
    """sha256 fingerprint of the current dataset (computed once per dataset)."""
    spec = st.session_state["data_spec"]
    upload = st.session_state.get("uploads", {}).get(spec)
    if upload is not None:
        return _fingerprint(upload["digest"], upload["target"], dataset)
    return _fingerprint(spec, None, dataset)


@dataclass(frozen=True)
class WorkingData:
    """The current dataset as integer codes, the shape every :mod:`heb` model reads.

    Attributes
    ----------
    codes : ndarray (n, F) of int64
        Category codes (-1 = missing), after binning and imputation on all kept rows.
    y : ndarray (n,)
        Class indices.
    feature_names, class_names : list of str
    preprocessor : Preprocessor
        The fitted encoder (kinds, categories, bin edges, dropped columns).
    table : CountTable
        The class-conditional counts of ``codes``.
    key : str
        Cache key: dataset fingerprint plus preprocessing settings.
    n_rows_total : int
        Rows of the dataset before any subsample.
    """

    codes: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    class_names: list[str]
    preprocessor: Preprocessor
    table: CountTable
    key: str
    n_rows_total: int

    @property
    def n_classes(self) -> int:
        """Number of classes C."""
        return len(self.class_names)


@st.cache_resource(max_entries=8, show_spinner=False)
def _working(
    key: str, _dataset: hdata.Dataset, n_bins: int, missing: str, max_rows: int
) -> WorkingData:
    X, y_raw = _dataset.X, _dataset.y
    if max_rows and len(X) > max_rows:
        X, y_raw = stratified_subsample(X, y_raw, max_rows=max_rows, seed=42)
    y, classes = encode_target(y_raw)
    pre = Preprocessor(n_bins=n_bins, missing=missing, categorical=_dataset.categorical)
    codes = pre.fit_transform(X)
    table = CountTable.from_codes(codes, y, len(classes), n_categories=pre.n_categories_)
    return WorkingData(
        codes=codes,
        y=y,
        feature_names=[str(name) for name in pre.feature_names_out_],
        class_names=[str(label) for label in classes],
        preprocessor=pre,
        table=table,
        key=key,
        n_rows_total=len(_dataset.X),
    )


def current_codes(dataset: hdata.Dataset | None = None) -> WorkingData:
    """The current dataset encoded with the current settings (cached on a sha256 key)."""
    dataset = dataset if dataset is not None else current_dataset()
    settings = current_settings()
    key = "|".join([dataset_key(dataset), *(f"{k}={v}" for k, v in settings.items())])
    try:
        with st.spinner("Encoding the features..."):
            return _working(key, dataset, **settings)
    except Exception as exc:  # noqa: BLE001
        show_error(exc, "encoding the dataset")
        st.stop()


# --------------------------------------------------------------------------- sidebar
def method_selection() -> None:
    """Callback: select the paper's seven smoothers."""
    st.session_state["methods"] = list(TABLE1_METHODS)


def sidebar() -> None:
    """The shared sidebar: current dataset, chosen methods, settings; then sync the URL."""
    init_state()
    state = st.session_state
    options = dataset_options()
    if state["data_spec"] not in options:
        options[state["data_spec"]] = state["data_spec"]
    with st.sidebar:
        st.selectbox(
            "Dataset",
            list(options),
            format_func=options.get,
            **bound("data_spec"),
            help="Built-in, the paper's catalogue, an OpenML id or an upload "
            "(add the last two on the Dataset page).",
        )
        st.multiselect(
            "Methods",
            list(METHODS),
            **bound("methods"),
            help="Used by the Compare and Benchmark pages; HEB-AODE also adds its "
            "concentrations to the Concentrations page.",
        )
        st.button(
            "The paper's seven smoothers",
            on_click=method_selection,
            key="paper_seven",
            help="Laplace, Lidstone, KT, m-estimate, TE, HEB-U, HEB-M",
        )
        rows = "all rows" if not state["max_rows"] else f"at most {state['max_rows']:,} rows"
        st.caption(
            f"{state['n_bins']} bins for numbers · missing: {state['missing']} · {rows} "
            "(change on the Dataset page)"
        )
        for note in state.get("_notes", []):
            st.info(note)
        state["_notes"] = []
    _sync_url()


# --------------------------------------------------------------------------- display
def apply_style() -> None:
    """Projector-friendly CSS (larger metric values, captions and tabs)."""
    st.html(_STYLE)


def page_header(title: str, lead: str) -> None:
    """A page title and one sentence saying what the page is for."""
    st.title(title)
    st.markdown(lead)


def show_error(exc: BaseException, action: str = "working") -> None:
    """A friendly message for ``exc``: data errors as they are, others with details."""
    if isinstance(exc, hdata.DataError):
        st.error(str(exc), icon=":material/error:")
        return
    if isinstance(exc, ValueError) and str(exc):
        st.error(str(exc), icon=":material/error:")
        return
    st.error(
        f"Something went wrong while {action}. Try another dataset or setting; "
        "the details below help when reporting it.",
        icon=":material/error:",
    )
    with st.expander("Details"):
        st.code(f"{type(exc).__name__}: {exc}", language=None)


@contextmanager
def guard(action: str) -> Iterator[None]:
    """Show any error raised inside the block as a friendly message and carry on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - st.stop / st.rerun are BaseExceptions
        show_error(exc, action)


def _image_export_available() -> bool:
    """Whether plotly's kaleido can find a Chromium to export PNG / SVG."""
    if os.environ.get("BROWSER_PATH") and Path(os.environ["BROWSER_PATH"]).exists():
        return True
    names = ("chromium", "chromium-browser", "google-chrome", "chrome")
    return any(shutil.which(name) for name in names)


def _image_bytes(fig, fmt: str):
    """A callable producing the image bytes when the download button is clicked."""

    def render() -> bytes:
        from heb.figures import to_image_bytes

        return to_image_bytes(fig, fmt=fmt)

    return render


def download_buttons(fig, data_frame: pd.DataFrame | None, stem: str) -> None:
    """PNG, SVG and CSV download buttons for a figure and the data behind it.

    The files are produced only when a button is clicked (no cost on a re-render).
    Without a Chromium for the image export, an interactive HTML file is offered instead.
    """
    files = []  # (label, bytes callable, extension, mime, extra arguments)
    if fig is not None and _image_export_available():
        files += [
            ("PNG", _image_bytes(fig, "png"), "png", "image/png", {}),
            ("SVG", _image_bytes(fig, "svg"), "svg", "image/svg+xml", {}),
        ]
    elif fig is not None:
        files.append(
            (
                "HTML",
                lambda: fig.to_html(include_plotlyjs=True),
                "html",
                "text/html",
                {"help": "PNG / SVG export needs Chromium on the server."},
            )
        )
    if data_frame is not None:
        files.append(("CSV", lambda: data_frame.to_csv(index=False), "csv", "text/csv", {}))
    row = st.container(horizontal=True, gap="small")
    for label, data, ext, mime, extra in files:
        row.download_button(
            label,
            data,
            file_name=f"{stem}.{ext}",
            mime=mime,
            key=f"dl_{ext}_{stem}",
            on_click="ignore",
            icon=":material/download:",
            type="tertiary",
            **extra,
        )


def show_figure(fig, data_frame: pd.DataFrame | None, stem: str, key: str | None = None):
    """Plot a figure in projector-sized dark type, with its PNG / SVG / CSV downloads.

    The figure is drawn with its own template (not Streamlit's theme), so the PNG / SVG
    download looks exactly like the screen. Styling happens once per figure object.
    """
    if not getattr(fig, "_heb_styled", False):
        fig.update_layout(
            font={"size": FIGURE_FONT_SIZE, "color": FIGURE_TEXT_COLOR},
            title={"font": {"size": FIGURE_FONT_SIZE + 4}},
        )
        fig.update_xaxes(
            tickfont={"size": FIGURE_FONT_SIZE - 1}, title_font={"size": FIGURE_FONT_SIZE + 1}
        )
        fig.update_yaxes(
            tickfont={"size": FIGURE_FONT_SIZE - 1}, title_font={"size": FIGURE_FONT_SIZE + 1}
        )
        fig._heb_styled = True
    st.plotly_chart(fig, key=key or f"fig_{stem}", theme=None, config={"displaylogo": False})
    download_buttons(fig, data_frame, stem)
