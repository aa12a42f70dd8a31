"""The current dataset for the app: loaded, fingerprinted and encoded once per process.

Every heavy object is cached under an explicit string key (the dataset spec, an upload's
sha256, or the data fingerprint plus the settings), never on Streamlit's sampled hashing
of large arrays. Loading errors become one escaped message and stop the page.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from explorer.errors import show_error
from explorer.state import (
    UPLOAD_PREFIX,
    current_settings,
    declared_columns,
    default_spec,
    dropped_columns,
    set_dataset,
    take_link_upload,
)
from heb.counts import CountTable
from heb.data import (
    BUILTIN_DATASETS,
    DataError,
    Dataset,
    Preprocessor,
    catalogue_frame,
    dataset_from_table,
    default_target,
    encode_target,
    load_dataset,
    read_table,
)
from heb.data.dataset import join_names, quote
from heb.data.targets import FEW_CLASSES, TARGET_CANDIDATES, fallback_targets
from heb.evaluate.folds import evaluated_data
from heb.text import and_list

__all__ = [
    "WorkingData",
    "current_codes",
    "current_dataset",
    "dataset_key",
    "dataset_options",
    "load_spec",
    "register_upload",
    "upload_columns",
    "upload_dataset",
    "session_dataset",
    "upload_variant",
]


@st.cache_data(show_spinner=False, ttl=3600)
def _catalogue_options() -> dict[str, str]:
    """Spec -> label for the built-in datasets and the paper's catalogue."""
    options = {f"builtin:{name}": f"{name} (built-in)" for name in BUILTIN_DATASETS}
    for row in catalogue_frame().itertuples(index=False):
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
    spec = st.session_state.get("data_spec", default_spec())
    if spec not in options and spec.startswith("openml:"):
        options[spec] = f"OpenML dataset {spec.split(':', 1)[1]}"
    return options


@st.cache_resource(max_entries=8, show_spinner=False)
def load_spec(spec: str) -> Dataset:
    """A dataset by spec (``builtin:``, ``shared:``, ``openml:``), loaded once per process.

    Only specs checked by :func:`explorer.state.url_spec` (or built by the app itself)
    reach this function, and the data layer's safe form refuses a path again: it never
    opens a file of the server.
    """
    return load_dataset(spec, allow_paths=False)


@st.cache_resource(max_entries=4, ttl=3600, show_spinner=False)
def _upload_table(digest: str, _payload: bytes, filename: str) -> pd.DataFrame:
    """An upload's table, parsed once (keyed by the file's sha256): the target choice and
    every Dataset built from it read this table, never the file again. Read-only: the
    Datasets are built from shallow copies."""
    return read_table(_payload, filename)


def upload_columns(digest: str, payload: bytes, filename: str) -> list[str]:
    """The column names of an uploaded file."""
    return [str(column) for column in _upload_table(digest, payload, filename).columns]


@st.cache_resource(max_entries=8, show_spinner=False)
def _load_upload(
    digest: str,
    target: str | None,
    declared: tuple[str, ...],
    _payload: bytes,
    filename: str,
    dropped: tuple[str, ...] = (),
) -> Dataset:
    """An upload's Dataset for one target, one set of columns the user declared
    categorical and one set left out (all in the key: a changed choice is a new Dataset,
    never a stale one)."""
    table = _upload_table(digest, _payload, filename)
    return dataset_from_table(table, filename, target, categorical=declared, drop=dropped)


def upload_dataset(payload: bytes, filename: str) -> str:
    """Read a new upload (its default target) and keep it in the session: its dataset
    spec. Raises the loader's error, and keeps nothing, when the file cannot be read.

    When the file's last column cannot be the target, another is taken
    (:func:`fallback_target`) with a note saying which and why (``target_note``); when no
    column reads as classes, none is: the record's ``needs_target`` says the user must
    choose one (the file is kept when some column can be a target at all).

    When the session was opened from a link naming an upload of this file name
    (:func:`explorer.state.take_link_upload`), the link's target and categorical columns
    are applied, those the file has, and its declared hierarchies; the record's
    ``link_note`` says what was taken.
    """
    digest = hashlib.sha256(payload).hexdigest()
    target, note, needs_target = None, "", False
    try:
        _load_upload(digest, None, (), payload, filename)
    except DataError as exc:  # the last column cannot be the target: another column?
        target, note = _another_target(digest, payload, filename, exc)
        needs_target = target is None
    link_upload = take_link_upload(filename)
    spec = register_upload(payload, filename, digest)
    upload = st.session_state["uploads"][spec]
    upload["target"], upload["needs_target"] = target, needs_target
    if note:
        upload["target_note"] = note
    if link_upload is not None:
        _apply_link_upload(upload, link_upload)
        if link_upload.get("hierarchies"):
            st.session_state.setdefault("hierarchies", {})[spec] = link_upload["hierarchies"]
    return spec


#: said when a file's last column cannot be the target and no other column reads as classes
NO_TARGET_TAKEN = (
    "No other column reads as classes (text or whole numbers with 2 to {few} values), so "
    "none was picked for you: choose the target column {where}."
)


def _another_target(digest: str, payload: bytes, filename: str, error: DataError):
    """(column, note) of another column to be the target when the file's last column
    cannot (one class, a measurement...): the first of :func:`fallback_targets` that loads,
    the note saying which and why; (None, "") when none reads as classes but some column
    can be a target (the user is asked to choose). Raises ``error`` when no column of
    the nearest :data:`TARGET_CANDIDATES` can be the target at all."""
    table = _upload_table(digest, payload, filename)
    last = str(table.columns[-1])
    for column, kind, distinct in fallback_targets(table):
        try:
            _load_upload(digest, column, (), payload, filename)
        except DataError:
            continue
        return column, taken_target_note(error, column, last, kind, distinct)
    for position in list(range(table.shape[1] - 2, -1, -1))[:TARGET_CANDIDATES]:
        try:  # a column that is a poor target but a possible one: the user chooses
            _load_upload(digest, str(table.columns[position]), (), payload, filename)
        except DataError:
            continue
        return None, ""
    raise error


def taken_target_note(
    error: Exception | str,
    column: str,
    last: str,
    kind: str,
    distinct: int,
    where: str = "below",
    passed_over: tuple[str, ...] = (),
) -> str:
    """Why ``column`` is the target for now: the last column's ``error`` (or its text), and
    which of :func:`fallback_targets` (the in-memory ones or the engine's) was taken; the
    Target column picker is ``where`` the note is shown. ``passed_over``: nearer ones that
    could not be the target (their own scan failed), named so "the nearest" stays true."""
    nearer = ""
    if passed_over:
        names = and_list([quote(name) for name in passed_over])
        nearer = f" and can be the target ({names}, nearer, cannot)"
    return (
        f"{error} So the target is {quote(column)} for now: the nearest column left of "
        f"{quote(last)} that reads as classes ({kind}, {distinct} values){nearer}. To "
        f"predict another column, choose it under Target column {where}."
    )


#: under a chosen target's error on a page without the target picker
CHOSEN_TARGET_FAILS = "The target column is chosen on the Dataset page, under Target column."


def needs_target_note(where: str) -> str:
    """:data:`NO_TARGET_TAKEN`, the target to be chosen ``where``."""
    return NO_TARGET_TAKEN.format(few=FEW_CLASSES, where=where)


def _link_target(
    upload: dict, link_upload: dict, columns: list[str], taken: list[str], left_out: list[str]
) -> str | None:
    """The link's target for ``upload`` if its file has it and it reads as classes, else
    None; ``taken`` or ``left_out`` gets a phrase saying which."""
    target = link_upload["target"]
    if target is not None and target not in columns:
        left_out.append(f"the target {quote(target)} (not a column of this file)")
        target = None
    if target is not None:
        try:  # the link's target may not suit this file (one class, a measurement...)
            _load_upload(upload["digest"], target, (), upload["payload"], upload["filename"])
        except DataError as exc:
            left_out.append(f"the target {quote(target)} ({str(exc).rstrip('.')})")
            target = None
    if target is not None:
        taken.append(f"the target {quote(target)}")
        upload.pop("target_note", None)  # said why the first target was not the last column
        upload["needs_target"] = False
    return target


def _apply_link_upload(upload: dict, link_upload: dict) -> None:
    """Set an upload's target and declared columns from a link's, those its file has."""
    columns = upload_columns(upload["digest"], upload["payload"], upload["filename"])
    taken, left_out = [], []
    target = _link_target(upload, link_upload, columns, taken, left_out)
    target = target or upload.get("target")  # else the fallback, if one was taken
    target_now = target or default_target(columns)
    features = [c for c in columns if c != target_now]
    # the link's left-out columns, those of this file, while one feature stays
    dropped = [c for c in link_upload.get("drop", []) if c in features][: len(features) - 1]
    declared = [
        c
        for c in link_upload["categorical"]
        if c in columns and c != target_now and c not in dropped
    ]
    asked = [*link_upload["categorical"], *link_upload.get("drop", [])]
    missing = list(dict.fromkeys(c for c in asked if c not in columns))
    if declared:
        taken.append(
            f"the categorical {'columns' if len(declared) > 1 else 'column'} "
            f"{join_names(declared, limit=5)}"
        )
    if dropped:
        taken.append(f"leaving out {join_names(dropped, limit=5)}")
    if link_upload.get("hierarchies"):
        taken.append("the declared hierarchies")
    if missing:
        left_out.append(f"{join_names(missing, limit=5)} (not in this file)")
    upload["target"], upload["categorical"], upload["drop"] = target, declared, dropped
    sentences = []
    if taken:
        sentences.append(f"From the link: {' and '.join(taken)}.")
    if left_out:
        sentences.append(f"Left out from the link: {'; '.join(left_out)}.")
    upload["link_note"] = " ".join(sentences) or None


def register_upload(payload: bytes, filename: str, digest: str) -> str:
    """Keep an uploaded file (``digest``: its sha256) in the session; its dataset spec.

    The record: ``payload``, ``filename``, ``digest``, ``target`` (None: the default),
    ``categorical`` (the columns the user declared categorical) and ``drop`` (the columns
    left out), which every page reads.
    """
    spec = f"{UPLOAD_PREFIX}{digest[:12]}"
    uploads = st.session_state.setdefault("uploads", {})
    if spec not in uploads:
        uploads[spec] = {
            "payload": payload,
            "filename": filename,
            "digest": digest,
            "target": None,
            "categorical": [],
            "drop": [],
        }
    return spec


def upload_variant(spec: str) -> str:
    """``spec``, and for an upload of this session its target and declared columns too
    (one file read with another target is another dataset)."""
    upload = st.session_state.get("uploads", {}).get(spec)
    if upload is None:
        return spec
    return (
        f"{spec}|target={upload['target']}|categorical={sorted(declared_columns(upload))}"
        f"|drop={sorted(dropped_columns(upload))}"
    )


def session_dataset(spec: str) -> Dataset:
    """The dataset of a spec: an upload of this session from its record (its target and
    declared columns), else :func:`load_spec`."""
    if spec.startswith(UPLOAD_PREFIX):
        upload = st.session_state.get("uploads", {}).get(spec)
        if upload is None:
            raise DataError("That upload is no longer in this session; upload it again.")
        return _load_upload(
            upload["digest"],
            upload["target"],
            declared_columns(upload),
            upload["payload"],
            upload["filename"],
            dropped_columns(upload),
        )
    return load_spec(spec)


def current_dataset(target_above: bool = False) -> Dataset:
    """The dataset chosen in the sidebar; on a loading error, a friendly message and stop.

    An upload whose target cannot be loaded (its last column, and no other column read
    as classes: the record's ``needs_target``) is told where to choose one: the picker
    above the message (``target_above``, the Dataset page) or the Dataset page.
    """
    spec = st.session_state["data_spec"]
    try:
        with st.spinner("Loading the dataset..."):
            return session_dataset(spec)
    except Exception as exc:  # noqa: BLE001 - every loader error becomes a message
        show_error(exc, "loading the dataset")
        upload = st.session_state.get("uploads", {}).get(spec)
        if upload is not None and upload.get("needs_target") and upload.get("target") is None:
            st.caption(needs_target_note("above" if target_above else "on the Dataset page"))
        elif upload is not None and upload.get("target") is not None and not target_above:
            # "pick a column with fewer classes" on Compare, which has no column to pick
            st.caption(CHOSEN_TARGET_FAILS)
        if spec != default_spec():
            st.button(
                "Back to the built-in default",
                on_click=set_dataset,
                args=(default_spec(),),
                key="back_to_default",
            )
        st.stop()


@st.cache_data(max_entries=32, show_spinner=False)
def _fingerprint(
    spec: str,
    target: str | None,
    declared: tuple[str, ...],
    _dataset: Dataset,
    dropped: tuple[str, ...] = (),
) -> str:
    return _dataset.fingerprint()


def dataset_key(dataset: Dataset) -> str:
    """sha256 fingerprint of the current dataset (computed once per dataset: an upload's
    per file, target and declared columns, the fingerprint covering the last two)."""
    spec = st.session_state["data_spec"]
    upload = st.session_state.get("uploads", {}).get(spec)
    if upload is not None:
        return _fingerprint(
            upload["digest"],
            upload["target"],
            declared_columns(upload),
            dataset,
            dropped_columns(upload),
        )
    return _fingerprint(spec, None, (), dataset)


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
    table_rows : ndarray (n,)
        Each row's place among the loaded table's data rows (0 = the first), ascending:
        the row numbers a user sees (and the out-of-fold CSV's), which skip the rows
        without a target and those outside the subsample.
    missing_share : Series or None
        Per column, its share of missing values among these rows (before imputation).
    last_table_row : int or None
        The number of the table's last row with a target, subsample or not (None: the
        last of ``table_rows``): the Explain page's row box takes any number up to it.
    """

    codes: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    class_names: list[str]
    preprocessor: Preprocessor
    table: CountTable
    key: str
    n_rows_total: int
    table_rows: np.ndarray
    missing_share: pd.Series | None = None
    last_table_row: int | None = None

    @property
    def last_row(self) -> int:
        """The number of the table's last row with a target (``last_table_row``, else
        the last of ``table_rows``)."""
        return int(self.table_rows[-1]) if self.last_table_row is None else self.last_table_row

    @property
    def n_classes(self) -> int:
        """Number of classes C."""
        return len(self.class_names)


@st.cache_resource(max_entries=8, show_spinner=False)
def _working(key: str, _dataset: Dataset, n_bins: int, missing: str, max_rows: int) -> WorkingData:
    X, y_raw, table_rows = evaluated_data(_dataset, max_rows)  # Compare's rows
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
        table_rows=np.arange(len(y)) if table_rows is None else np.asarray(table_rows),
        missing_share=X.isna().mean(),
        last_table_row=last_row_with_target(_dataset),
    )


def last_row_with_target(dataset: Dataset) -> int:
    """The place among the loaded table's data rows of the dataset's last row."""
    rows = dataset.source_rows
    return len(dataset.X) - 1 if rows is None or not len(rows) else int(rows[-1])


def current_codes(dataset: Dataset | None = None) -> WorkingData:
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
