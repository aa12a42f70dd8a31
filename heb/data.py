"""Data sets for HEB Explorer: the paper's catalogue, OpenML, uploads, shared copies, built-ins.

Every loader returns a :class:`Dataset`: the feature columns ``X`` as a DataFrame, the
target ``y`` (rows with a missing target already dropped), the columns declared
categorical, and notes for the user. Every problem a user can cause raises
:class:`DataError`, whose message is one sentence the app shows as is.

Sources, from the most to the least available:

- ``load_builtin``: offline defaults needing neither network nor ``../shared``: a
  high-cardinality preset (``"zip-codes"``, the app's default), a known-truth Naive Bayes
  sample and scikit-learn's bundled data sets;
- ``load_shared``: the benchmark copies in ``../shared/datasets`` (``HEB_DATASETS_DIR``);
- ``load_openml``: OpenML through the real ``openml`` client, by integer id, from a local
  cache (``data_cache/openml``) that a failed call never wipes;
- ``load_upload``: CSV / TSV (delimiter and encoding detected), gzip, ARFF, parquet.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from heb import paths
from heb.synthetic import high_cardinality_preset, sample_naive_bayes

__all__ = [
    "DataError",
    "Dataset",
    "CatalogueEntry",
    "CATALOGUE",
    "GROUPS",
    "catalogue_frame",
    "BUILTIN_DATASETS",
    "DEFAULT_DATASET",
    "load_builtin",
    "shared_dataset_names",
    "load_shared",
    "load_openml",
    "load_upload",
    "read_table",
    "default_target",
    "load_dataset",
    "is_id_like_name",
    "id_like_columns",
    "DEFAULT_MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_CLASSES",
    "DEFAULT_OPENML_SERVER",
]

#: upload size limit (bytes), also applied to the unpacked size of a gzip file
DEFAULT_MAX_BYTES = 200 * 2**20
#: widest table accepted
MAX_COLUMNS = 10_000
#: most classes a target may have
MAX_CLASSES = 100
#: a float target with more distinct non-integer values than this looks continuous
CONTINUOUS_TARGET_VALUES = 20
#: cell texts read as missing in uploaded text tables
NA_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "#N/A")
DEFAULT_OPENML_SERVER = "https://www.openml.org/api/v1/xml"

_ID_LIKE = re.compile(r"id|hash|url|impression", re.IGNORECASE)


class DataError(ValueError):
    """A data problem a user can fix; ``str(exc)`` is one sentence for the app to show."""


# ---------------------------------------------------------------------------- Dataset
@dataclass
class Dataset:
    """A classification data set ready for preprocessing.

    Attributes
    ----------
    name : str
    X : DataFrame
        Feature columns only.
    y : Series
        The target; rows with a missing target are already dropped.
    categorical : list of str
        Columns declared categorical (OpenML metadata, the manifest, text / category /
        bool dtype, or an integer column with an ID-like name).
    source : str
        Where it came from: ``"builtin:zip-codes"``, ``"shared:car"``, ``"openml:2"``,
        ``"upload:my.csv"``.
    notes : list of str
        Notices for the user, one sentence each.
    target : str
        Name of the target column.
    description : str
        One line about the data set (built-ins), else empty.
    truth : dict or None
        The generating parameters of a synthetic data set.
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    categorical: list[str]
    source: str
    notes: list[str] = field(default_factory=list)
    target: str = ""
    description: str = ""
    truth: dict | None = field(default=None, repr=False, compare=False)

    @property
    def n_classes(self) -> int:
        """Number of distinct target values."""
        return int(self.y.nunique())

    @property
    def classes(self) -> np.ndarray:
        """The sorted class labels."""
        return np.unique(np.asarray(self.y))

    def fingerprint(self) -> str:
        """sha256 hex of the data: values of X and y, column names, dtypes, categorical list.

        Stable across processes (pandas' row hashes use a fixed key); used as a cache key.
        """
        digest = hashlib.sha256()
        header = {
            "columns": [str(c) for c in self.X.columns],
            "dtypes": [str(d) for d in self.X.dtypes],
            "target": str(self.target),
            "y_dtype": str(self.y.dtype),
            "categorical": sorted(str(c) for c in self.categorical),
            "shape": list(self.X.shape),
        }
        digest.update(json.dumps(header, sort_keys=True).encode())
        if self.X.shape[1]:
            digest.update(pd.util.hash_pandas_object(self.X, index=False).to_numpy().tobytes())
        digest.update(pd.util.hash_pandas_object(self.y, index=False).to_numpy().tobytes())
        return digest.hexdigest()


# ---------------------------------------------------------------------------- catalogue
GROUPS = ("low-cardinality", "medium-numeric", "mixed", "high-cardinality")


@dataclass(frozen=True)
class CatalogueEntry:
    """One of the paper's 31 benchmark data sets.

    ``in_shared`` says whether ``../shared/datasets`` carries a copy (the manifest's 26);
    the others load from OpenML when online (or from a filled OpenML cache).
    """

    name: str
    openml_id: int | None
    group: str
    target: str | None
    in_shared: bool


def _entry(name: str, openml_id: int, group: str, target: str, in_shared: bool = True):
    return CatalogueEntry(name, openml_id, group, target, in_shared)


#: The paper's data sets (section 5.1.1 and its footnote), ids from the shared manifest
#: where it has them; splice, audiology, primary-tumor, nomao and click-prediction have no
#: shared copy (their ids and targets are OpenML's: 46, 7, 171, 1486, 1220).
CATALOGUE: list[CatalogueEntry] = [
    _entry("mushroom", 24, "low-cardinality", "class"),
    _entry("nursery", 26, "low-cardinality", "class"),
    _entry("kr-vs-kp", 3, "low-cardinality", "class"),
    _entry("splice", 46, "low-cardinality", "Class", in_shared=False),
    _entry("car", 21, "low-cardinality", "class"),
    _entry("tic-tac-toe", 50, "low-cardinality", "Class"),
    _entry("monks-problems-2", 334, "low-cardinality", "class"),
    _entry("vote", 56, "low-cardinality", "Class"),
    _entry("soybean", 42, "low-cardinality", "class"),
    _entry("audiology", 7, "low-cardinality", "class", in_shared=False),
    _entry("hayes-roth", 329, "low-cardinality", "class"),
    _entry("primary-tumor", 171, "low-cardinality", "class", in_shared=False),
    _entry("cmc", 23, "low-cardinality", "Contraceptive_method_used"),
    _entry("optdigits", 28, "medium-numeric", "class"),
    _entry("pendigits", 32, "medium-numeric", "class"),
    _entry("segment", 36, "medium-numeric", "class"),
    _entry("letter", 6, "medium-numeric", "class"),
    _entry("phoneme", 1489, "medium-numeric", "Class"),
    _entry("page-blocks", 30, "medium-numeric", "class"),
    _entry("sick", 38, "medium-numeric", "Class"),
    _entry("connect-4", 40668, "medium-numeric", "class"),
    _entry("wine-quality-white", 40498, "medium-numeric", "class"),
    _entry("bank-marketing", 1461, "medium-numeric", "Class"),
    _entry("electricity", 151, "medium-numeric", "class"),
    _entry("kropt", 184, "medium-numeric", "game"),
    _entry("magic", 1120, "medium-numeric", "class:"),
    _entry("adult", 1590, "mixed", "class"),
    _entry("credit-g", 31, "mixed", "class"),
    _entry("nomao", 1486, "high-cardinality", "Class", in_shared=False),
    _entry("amazon-employee-access", 4135, "high-cardinality", "target"),
    _entry("click-prediction", 1220, "high-cardinality", "click", in_shared=False),
]
_CATALOGUE_BY_NAME = {entry.name: entry for entry in CATALOGUE}


def catalogue_frame(datasets_dir: str | Path | None = None) -> pd.DataFrame:
    """The catalogue as a table, with ``available`` = a shared copy exists right now."""
    present = set(shared_dataset_names(datasets_dir))
    frame = pd.DataFrame([entry.__dict__ for entry in CATALOGUE])
    frame["openml_id"] = frame["openml_id"].astype("Int64")
    frame["available"] = frame["name"].isin(present)
    return frame


# ---------------------------------------------------------------------------- helpers
def is_id_like_name(name) -> bool:
    """True when a column name contains ``id``, ``hash``, ``url`` or ``impression``."""
    return bool(_ID_LIKE.search(str(name)))


def _is_integer_like(column: pd.Series) -> bool:
    """Integer dtype, or floats holding only whole numbers (an integer column stored as
    floats, e.g. by parquet or because missing values turned it into floats)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return False
    if pd.api.types.is_integer_dtype(column.dtype):
        return True
    if not pd.api.types.is_float_dtype(column.dtype):
        return False
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = np.isfinite(values)
    return bool(finite.any() and np.all(values[finite] % 1 == 0))


def id_like_columns(frame: pd.DataFrame) -> list[str]:
    """Integer columns whose name looks like an identifier (categorical by SPEC section 1)."""
    return [c for c in frame.columns if is_id_like_name(c) and _is_integer_like(frame[c])]


def _is_text_dtype(dtype) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def _size(n_bytes: int) -> str:
    """``812 bytes``, ``3 KB``, ``1.1 MB``, ``200 MB``."""
    if n_bytes < 1024:
        return f"{n_bytes} bytes"
    if n_bytes < 2**20:
        return f"{n_bytes / 1024:.0f} KB"
    mb = n_bytes / 2**20
    return f"{mb:.1f} MB" if mb < 10 and not float(mb).is_integer() else f"{mb:.0f} MB"


def _quote(name) -> str:
    text = str(name)
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _join_names(names: Sequence, limit: int = 8) -> str:
    shown = ", ".join(_quote(n) for n in list(names)[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _columns_phrase(names: Sequence) -> str:
    """``Column 'a'`` or ``Columns 'a', 'b'``."""
    return ("Columns " if len(names) > 1 else "Column ") + _join_names(names)


def default_target(columns: Iterable) -> str:
    """The default target: a column named ``class`` or ``target`` (any case), else the last."""
    columns = [str(c) for c in columns]
    if not columns:
        raise DataError("The table has no columns.")
    for wanted in ("class", "target"):
        for column in columns:
            if column.strip().lower() == wanted:
                return column
    return columns[-1]


def _unique_names(names: Sequence, notes: list[str]) -> list[str]:
    """Column names as unique, non-empty strings; renames reported in ``notes``."""
    out = []
    blank = []
    for i, name in enumerate(names):
        text = "" if name is None or (isinstance(name, float) and np.isnan(name)) else str(name)
        text = text.strip()
        if not text:
            text = f"column_{i + 1}"
            blank.append(text)
        out.append(text)
    if blank:
        notes.append(f"Columns without a name were named {_join_names(blank)}.")
    seen: dict[str, int] = {}
    renamed = []
    for i, name in enumerate(out):
        if name in seen:
            seen[name] += 1
            new = f"{name} ({seen[name]})"
            while new in seen:
                seen[name] += 1
                new = f"{name} ({seen[name]})"
            seen[new] = 1
            out[i] = new
            renamed.append((name, new))
        else:
            seen[name] = 1
    if renamed:
        notes.append(
            f"Column name {_quote(renamed[0][0])} appears more than once, so the repeats were "
            f"renamed ({', '.join(repr(new) for _, new in renamed[:5])})."
        )
    return out


def _clean_target(y: pd.Series, target: str) -> pd.Series:
    """Whole-number float targets become integers; category targets plain values."""
    if isinstance(y.dtype, pd.CategoricalDtype):
        y = y.astype(y.cat.categories.dtype)
    if pd.api.types.is_float_dtype(y.dtype):
        values = y.to_numpy(dtype=np.float64)
        if np.all(np.isfinite(values)) and np.all(values % 1 == 0):
            return y.astype(np.int64)
        if np.isinf(values).any():
            raise DataError(f"The target column {_quote(target)} holds infinite values.")
    return y


def _finalize(
    frame: pd.DataFrame,
    target: str | None,
    *,
    name: str,
    source: str,
    declared: Iterable[str] = (),
    drop: Iterable[str] = (),
    notes: list[str] | None = None,
    description: str = "",
    truth: dict | None = None,
) -> Dataset:
    """Checks shared by every loader: target, classes, column notes; builds the Dataset."""
    notes = list(notes or [])
    if frame.shape[1] == 0:
        raise DataError("The table has no columns.")
    frame = frame.copy(deep=False)
    frame.columns = _unique_names(list(frame.columns), notes)
    if frame.shape[0] == 0:
        raise DataError("The table has a header but no data rows.")
    target = default_target(frame.columns) if target is None else str(target)
    if target not in frame.columns:
        raise DataError(
            f"There is no column named {_quote(target)}; the columns are "
            f"{_join_names(list(frame.columns))}."
        )
    drop = [c for c in drop if c in frame.columns and c != target]
    if drop:
        frame = frame.drop(columns=drop)
        notes.append(f"Left out {_join_names(drop)} (row identifiers or ignored columns).")
    if frame.shape[1] < 2:
        raise DataError(
            f"The table has no feature columns besides the target {_quote(target)}; a "
            "classifier needs at least one."
        )
    y = frame[target]
    missing = y.isna().to_numpy()
    if missing.all():
        raise DataError(f"The target column {_quote(target)} has no values.")
    if missing.any():
        frame = frame.loc[~missing]
        count = int(missing.sum())
        notes.append(f"Dropped {count} row{'s' * (count != 1)} with a missing target.")
        y = frame[target]
    if frame.shape[0] < 2:
        raise DataError("The table has a single data row; a classifier needs at least two.")
    y = _clean_target(y.reset_index(drop=True), target)
    n_values = int(y.nunique())
    if n_values < 2:
        raise DataError(
            f"The target {_quote(target)} has only one class ({_quote(y.iloc[0])}); a "
            "classifier needs at least two classes."
        )
    if pd.api.types.is_float_dtype(y.dtype) and n_values > CONTINUOUS_TARGET_VALUES:
        raise DataError(
            f"The target {_quote(target)} has {n_values} different decimal values, so it "
            "looks like a measurement rather than classes; pick a column with a few classes."
        )
    if n_values > MAX_CLASSES:
        raise DataError(
            f"The target {_quote(target)} has {n_values} different values, more than the "
            f"{MAX_CLASSES} classes this app handles; pick a column with fewer classes."
        )
    y.name = target
    X = frame.drop(columns=[target]).reset_index(drop=True)
    X, column_notes = _column_notes(X)
    notes.extend(column_notes)
    declared = {str(c) for c in declared}
    categorical = [c for c in X.columns if c in declared or _is_text_dtype(X[c].dtype)]
    categorical += [c for c in id_like_columns(X) if c not in categorical]
    unique_per_row = [c for c in categorical if X.shape[0] >= 10 and X[c].nunique() == X.shape[0]]
    if unique_per_row:
        notes.append(
            f"{_columns_phrase(unique_per_row)} "
            f"{'have' if len(unique_per_row) > 1 else 'has'} one value per row: kept as a "
            "high-cardinality feature."
        )
    return Dataset(
        name=name,
        X=X,
        y=y,
        categorical=categorical,
        source=source,
        notes=notes,
        target=target,
        description=description,
        truth=truth,
    )


def _column_notes(X: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Infinite numbers become missing; empty, constant and wide tables are reported."""
    notes = []
    numeric = [c for c in X.columns if pd.api.types.is_float_dtype(X[c].dtype)]
    if numeric:
        values = X[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        infinite = np.isinf(values)
        if infinite.any():
            columns = [numeric[i] for i in np.flatnonzero(infinite.any(axis=0))]
            X = X.copy()
            X[columns] = X[columns].replace([np.inf, -np.inf], np.nan)
            notes.append(
                f"{int(infinite.sum())} infinite value"
                f"{'s' * int(infinite.sum() != 1)} in {_join_names(columns)} "
                f"{'are' if infinite.sum() != 1 else 'is'} treated as missing."
            )
    n_distinct = X.nunique(dropna=True)
    empty = list(n_distinct.index[n_distinct.to_numpy() == 0])
    if empty:
        notes.append(
            f"{_columns_phrase(empty)} {'are' if len(empty) > 1 else 'is'} empty in every row "
            "and will be left out."
        )
    constant = list(n_distinct.index[n_distinct.to_numpy() == 1])
    if constant:
        notes.append(
            f"{_columns_phrase(constant)} {'have' if len(constant) > 1 else 'has'} a single "
            f"value, so {'they' if len(constant) > 1 else 'it'} cannot help the prediction (kept)."
        )
    if X.shape[1] > 1000:
        notes.append(f"The table has {X.shape[1]:,} feature columns; fitting may take a while.")
    return X, notes


# ---------------------------------------------------------------------------- built-ins
BUILTIN_DATASETS: tuple[str, ...] = (
    "zip-codes",
    "known-truth",
    "iris",
    "wine",
    "breast-cancer",
    "digits",
)
DEFAULT_DATASET = "zip-codes"

_WEEKDAYS = np.array(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], dtype=object)
_CHANNELS = np.array(["web", "app", "phone", "store"], dtype=object)
_DEVICES = np.array(["desktop", "mobile", "tablet"], dtype=object)


def _zip_codes_dataset(n_samples: int = 5000, seed: int = 0) -> Dataset:
    codes, y, truth = high_cardinality_preset(n_samples=n_samples, seed=seed)
    names = truth["feature_names"]
    n_cat = dict(zip(names, truth["n_categories"].tolist(), strict=True))
    rng = np.random.default_rng([seed, 5])
    zips = 1001 + rng.choice(98_000, size=n_cat["zip_code"], replace=False)
    zip_labels = np.array([f"{z:05d}" for z in zips], dtype=object)
    hashes = rng.choice(16**8, size=n_cat["ip_hash"], replace=False)
    hash_labels = np.array([f"{h:08x}" for h in hashes], dtype=object)
    column = {name: codes[:, f] for f, name in enumerate(names)}
    frame = pd.DataFrame(
        {
            "zip_code": pd.array(zip_labels[column["zip_code"]], dtype="str"),
            "user_id": 100_000 + column["user_id"],
            "store_id": 1 + column["store_id"],
            "product_id": 500_000 + 7 * column["product_id"],
            "ip_hash": pd.array(hash_labels[column["ip_hash"]], dtype="str"),
            "weekday": pd.array(_WEEKDAYS[column["weekday"]], dtype="str"),
            "channel": pd.array(_CHANNELS[column["channel"]], dtype="str"),
            "device": pd.array(_DEVICES[column["device"]], dtype="str"),
            "bought": pd.array(np.array(["no", "yes"], dtype=object)[y], dtype="str"),
        }
    )
    return _finalize(
        frame,
        "bought",
        name="zip-codes",
        source="builtin:zip-codes",
        description=(
            f"{n_samples:,} synthetic shop visits: did the visitor buy? ZIP code, user, store, "
            "product and IP hash with thousands of Zipf-distributed categories each, where "
            "learned smoothing matters most."
        ),
        truth=truth,
    )


def _known_truth_dataset(n_samples: int = 3000, seed: int = 0) -> Dataset:
    n_categories = (2, 3, 5, 10, 25, 50, 100, 250)
    codes, y, truth = sample_naive_bayes(
        n_samples,
        n_categories,
        n_classes=3,
        alpha_dir=0.5,
        class_weights=(0.5, 0.3, 0.2),
        seed=seed,
    )
    columns = {}
    for f, k in enumerate(n_categories):
        labels = np.array([f"v{v:03d}" for v in range(k)], dtype=object)
        columns[f"x{f + 1}_K{k}"] = pd.array(labels[codes[:, f]], dtype="str")
    columns["class"] = pd.array(np.array(["A", "B", "C"], dtype=object)[y], dtype="str")
    truth = {**truth, "feature_names": list(columns)[:-1], "class_names": ["A", "B", "C"]}
    return _finalize(
        pd.DataFrame(columns),
        "class",
        name="known-truth",
        source="builtin:known-truth",
        description=(
            f"{n_samples:,} rows drawn from a Naive Bayes model with known parameters "
            "(3 classes, 8 features with 2 to 250 categories, Dirichlet(0.5) conditionals)."
        ),
        truth=truth,
    )


_SKLEARN_TITLES = {
    "iris": "Iris plants (150 flowers, 4 measurements, 3 species)",
    "wine": "Wine recognition (178 wines, 13 chemical measurements, 3 cultivars)",
    "breast-cancer": "Breast cancer Wisconsin (569 tumours, 30 measurements, 2 diagnoses)",
    "digits": "handwritten digits (1,797 images of 8 x 8 pixels, 10 digits)",
}


def _sklearn_dataset(name: str) -> Dataset:
    from sklearn import datasets as skd

    loader = {
        "iris": skd.load_iris,
        "wine": skd.load_wine,
        "breast-cancer": skd.load_breast_cancer,
        "digits": skd.load_digits,
    }[name]
    bunch = loader(as_frame=True)
    frame = bunch.frame.copy()
    target_column = bunch.target.name
    names = np.asarray(bunch.target_names).astype(str)
    if name != "digits":
        frame[target_column] = pd.array(names[bunch.target.to_numpy()], dtype="str")
    return _finalize(
        frame,
        target_column,
        name=name,
        source=f"builtin:{name}",
        description=f"scikit-learn's bundled {_SKLEARN_TITLES[name]} data set.",
    )


def load_builtin(name: str = DEFAULT_DATASET) -> Dataset:
    """An offline data set that needs neither network nor ``../shared``.

    Parameters
    ----------
    name : str
        One of :data:`BUILTIN_DATASETS`: ``"zip-codes"`` (5,000 rows, the high-cardinality
        preset and the app's default), ``"known-truth"`` (a Naive Bayes sample with its true
        parameters in ``Dataset.truth``), or scikit-learn's ``"iris"``, ``"wine"``,
        ``"breast-cancer"``, ``"digits"``.
    """
    if name == "zip-codes":
        return _zip_codes_dataset()
    if name == "known-truth":
        return _known_truth_dataset()
    if name in BUILTIN_DATASETS:
        return _sklearn_dataset(name)
    raise DataError(
        f"There is no built-in data set named {_quote(name)}; choose one of "
        f"{', '.join(BUILTIN_DATASETS)}."
    )


# ---------------------------------------------------------------------------- shared copies
def _shared_dir(datasets_dir: str | Path | None) -> Path:
    return Path(datasets_dir) if datasets_dir is not None else paths.datasets_dir()


def _read_manifest(directory: Path) -> dict[str, dict]:
    try:
        entries = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(
            f"The shared benchmark folder was not found at {directory}; set HEB_DATASETS_DIR "
            "or use a built-in data set."
        ) from exc
    except (OSError, ValueError) as exc:
        raise DataError(f"The shared manifest in {directory} could not be read.") from exc
    return {entry["name"]: entry for entry in entries}


def shared_dataset_names(datasets_dir: str | Path | None = None) -> list[str]:
    """Names of the shared benchmark copies present (empty when the folder is absent)."""
    directory = _shared_dir(datasets_dir)
    try:
        manifest = _read_manifest(directory)
    except DataError:
        return []
    return [name for name in manifest if (directory / f"{name}.csv.gz").is_file()]


def load_shared(name: str, datasets_dir: str | Path | None = None) -> Dataset:
    """A benchmark copy from ``../shared/datasets`` (or ``HEB_DATASETS_DIR``).

    Honours the manifest's ``target``, ``categorical_features`` and ``drop_features``;
    missing values are the empty cells.
    """
    directory = _shared_dir(datasets_dir)
    manifest = _read_manifest(directory)
    if name not in manifest:
        raise DataError(
            f"There is no shared data set named {_quote(name)}; the shared folder has "
            f"{_join_names(sorted(manifest))}."
        )
    entry = manifest[name]
    path = directory / f"{name}.csv.gz"
    try:
        frame = pd.read_csv(path, na_values=[""], keep_default_na=False)
    except FileNotFoundError as exc:
        raise DataError(f"The shared file {path.name} is missing from {directory}.") from exc
    except (OSError, ValueError, EOFError) as exc:
        raise DataError(f"The shared file {path.name} could not be read.") from exc
    return _finalize(
        frame,
        entry.get("target"),
        name=name,
        source=f"shared:{name}",
        declared=entry.get("categorical_features", []),
        drop=entry.get("drop_features", []),
        description=f"Benchmark copy of OpenML data set {entry.get('openml_id')}.",
    )


# ---------------------------------------------------------------------------- reading files
def _gunzip(data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, refusing more than ``max_bytes`` of output."""
    out = []
    total = 0
    remaining = data
    try:
        while remaining:
            inflater = zlib.decompressobj(wbits=31)
            while remaining:
                chunk = inflater.decompress(remaining, max_bytes + 1 - total)
                total += len(chunk)
                out.append(chunk)
                if total > max_bytes:
                    raise DataError(
                        f"The compressed file unpacks to more than {_size(max_bytes)}, the "
                        "size limit."
                    )
                remaining = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                raise DataError("The file looks gzip-compressed but is damaged or incomplete.")
            remaining = inflater.unused_data.lstrip(b"\x00")
    except zlib.error as exc:
        raise DataError("The file looks gzip-compressed but is damaged or incomplete.") from exc
    return b"".join(out)


def _decode(data: bytes, notes: list[str]) -> str:
    """Text from bytes: UTF-8 (with or without BOM), UTF-16 with a BOM, else Windows-1252."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
        notes.append("The file is not UTF-8, so it was read as Windows-1252 (Western European).")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        notes.append("The file is not UTF-8, so it was read as Latin-1.")
    return text


def _looks_binary(data: bytes) -> bool:
    sample = data[:65536]
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in sample:
        return True
    control = sum(sample.count(bytes([b])) for b in range(32) if b not in (9, 10, 12, 13))
    return control > 0.05 * len(sample)


def _sniff_delimiter(text: str, filename: str) -> str:
    """The most consistent of ``, TAB ; |`` over the first lines (quoted parts ignored)."""
    lines = [line for line in text[:65536].splitlines()[:50] if line.strip()]
    lines = [re.sub(r'"[^"]*"', "", line) for line in lines]
    if filename.endswith((".tsv", ".tab")) and any("\t" in line for line in lines):
        return "\t"
    best, best_score = ",", (-1, -1)
    for delimiter in (",", "\t", ";", "|"):
        counts = np.array([line.count(delimiter) for line in lines])
        if counts.size == 0 or counts.max() == 0:
            continue
        mode = np.bincount(counts).argmax()
        score = (int(np.mean(counts == mode) * 100) if mode > 0 else 0, int(mode))
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _short_rows(text: str, delimiter: str, n_columns: int) -> int:
    """Rows with fewer delimiters than the header (exact when the text has no quotes)."""
    if '"' in text or n_columns < 2:
        return 0
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    ends = np.append(newlines, raw.size)
    starts = np.concatenate(([0], newlines + 1))
    blank = np.zeros(ends.size, dtype=bool)
    lengths = ends - starts
    # a line holding only '\r' or nothing is blank
    blank |= lengths == 0
    cr_only = (lengths == 1) & (raw[np.minimum(starts, raw.size - 1)] == 13)
    blank |= cr_only
    line_of = np.searchsorted(newlines, np.flatnonzero(raw == ord(delimiter)), side="left")
    counts = np.bincount(line_of, minlength=ends.size)
    data_lines = np.flatnonzero(~blank)[1:]
    return int(np.sum(counts[data_lines] < n_columns - 1))


def _parser_error(exc: Exception) -> DataError:
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
    if match:
        expected, line, saw = match.groups()
        return DataError(
            f"Line {line} of the file has {saw} values but the header has {expected}; every "
            "row needs the same number of values."
        )
    return DataError("The file could not be read as a table; check its quotes and delimiters.")


def _read_delimited(text: str, filename: str, notes: list[str], max_columns: int):
    delimiter = _sniff_delimiter(text, filename)
    options = dict(sep=delimiter, skipinitialspace=True, index_col=False, engine="c")
    try:
        header = pd.read_csv(
            io.StringIO(text), header=None, nrows=1, dtype=str, na_filter=False, **options
        )
    except pd.errors.EmptyDataError as exc:
        raise DataError("The file is empty.") from exc
    except (pd.errors.ParserError, ValueError) as exc:
        raise _parser_error(exc) from exc
    names = list(header.iloc[0]) if header.shape[0] else []
    if len(names) > max_columns:
        raise DataError(
            f"The table has {len(names):,} columns, more than the {max_columns:,} this app handles."
        )
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            header=None,
            skiprows=1,
            names=list(range(len(names))),
            na_values=list(NA_TOKENS),
            keep_default_na=False,
            **options,
        )
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(len(names))))
    except (pd.errors.ParserError, ValueError) as exc:
        raise _parser_error(exc) from exc
    if frame.shape[0] == 0:
        raise DataError("The file has a header row but no data rows.")
    frame.columns = _unique_names(names, notes)
    short = _short_rows(text, delimiter, len(names))
    if short:
        notes.append(
            f"{short} row{'s' * (short != 1)} had fewer values than the header; the missing "
            "cells are treated as missing values."
        )
    return _tidy_text_columns(frame, notes, decimal_comma=delimiter == ";")


_DECIMAL_COMMA = r"[+-]?\d*,?\d+(?:[eE][+-]?\d+)?"


def _tidy_text_columns(
    frame: pd.DataFrame, notes: list[str], decimal_comma: bool = False
) -> pd.DataFrame:
    """Strip text cells and report columns mixing numbers and text (kept as categorical).

    With ``decimal_comma`` (semicolon-separated files), a column whose every value is a
    number written with a decimal comma (``12,5``) becomes numeric.
    """
    mixed = []
    for column in frame.columns:
        values = frame[column]
        if not (
            pd.api.types.is_object_dtype(values.dtype) or pd.api.types.is_string_dtype(values.dtype)
        ):
            continue
        text = values.astype("str").str.strip().where(values.notna())
        text = text.mask(text.isin(NA_TOKENS))
        present = text.notna()
        if decimal_comma and present.any() and text[present].str.fullmatch(_DECIMAL_COMMA).all():
            frame[column] = pd.to_numeric(text.str.replace(",", ".", regex=False))
            continue
        numbers = pd.to_numeric(text, errors="coerce")
        n_numbers = int(numbers.notna().sum())
        if 0 < n_numbers < int(text.notna().sum()):
            example = text[numbers.isna() & text.notna()].iloc[0]
            mixed.append((column, example))
        frame[column] = text
    if mixed:
        column, example = mixed[0]
        others = f" (and {len(mixed) - 1} more columns)" if len(mixed) > 1 else ""
        notes.append(
            f"Column {_quote(column)}{others} mixes numbers and text such as {_quote(example)}, "
            "so it is treated as categorical."
        )
    return frame


# ---- ARFF
_ARFF_ATTRIBUTE = re.compile(
    r"""^@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*)$""", re.IGNORECASE
)


def _arff_unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _arff_nominal_values(spec: str, line_no: int) -> list[str]:
    inner = spec.strip()[1:-1]
    values = re.findall(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,]+)\s*(?:,|$)""", inner)
    values = [_arff_unquote(v) for v in values if v.strip()]
    if not values:
        raise DataError(f"The ARFF file has a nominal attribute without values on line {line_no}.")
    return values


def _arff_header(header: str) -> tuple[list[str], list]:
    names: list[str] = []
    kinds: list = []
    for line_no, raw_line in enumerate(header.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("%"):
            continue
        lower = line.lower()
        if lower.startswith("@relation"):
            continue
        if not lower.startswith("@attribute"):
            raise DataError(
                f"The ARFF header has a line it cannot read (line {line_no}: "
                f"{_quote(line[:30])}); check the file's syntax."
            )
        match = _ARFF_ATTRIBUTE.match(line)
        if not match or not match.group(2).strip():
            raise DataError(
                f"The ARFF file has a malformed @attribute line (line {line_no}); each needs a "
                "name and a type."
            )
        name, spec = _arff_unquote(match.group(1)), match.group(2).strip()
        kind = spec.lower().split()[0]
        if spec.startswith("{"):
            if not spec.endswith("}"):
                raise DataError(
                    f"The ARFF nominal attribute on line {line_no} is missing its closing brace."
                )
            kinds.append(_arff_nominal_values(spec, line_no))
        elif kind in ("numeric", "real", "integer"):
            kinds.append("numeric")
        elif kind in ("string", "date"):
            kinds.append("string")
        else:
            raise DataError(
                f"The ARFF attribute {_quote(name)} has a type this app cannot read "
                f"({_quote(spec[:20])}, line {line_no})."
            )
        names.append(name)
    if not names:
        raise DataError("The ARFF file declares no attributes.")
    return names, kinds


def _read_arff(text: str, notes: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """A dense ARFF file read with pandas (sparse files go through liac-arff)."""
    marker = re.search(r"^[ \t]*@data[ \t]*\r?$", text, flags=re.IGNORECASE | re.MULTILINE)
    if marker is None:
        raise DataError("The ARFF file has no @data line, so it holds no rows.")
    names, kinds = _arff_header(text[: marker.start()])
    body = re.sub(r"^[ \t]*%.*$", "", text[marker.end() :], flags=re.MULTILINE)
    if re.match(r"\s*\{", body):
        return _read_sparse_arff(text, names)
    try:
        frame = pd.read_csv(
            io.StringIO(body),
            header=None,
            names=list(range(len(names))),
            index_col=False,
            sep=",",
            quotechar="'",
            escapechar="\\",
            skipinitialspace=True,
            dtype=str,
            na_filter=False,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=list(range(len(names))), dtype=str)
    except (pd.errors.ParserError, ValueError) as exc:
        match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if match:
            line = text[: marker.end()].count("\n") + int(match.group(2))
            raise DataError(
                f"An ARFF data row has {match.group(3)} values but the header declares "
                f"{len(names)} attributes; check line {line} of the file."
            ) from exc
        raise DataError("The ARFF data section could not be read; check its syntax.") from exc
    columns = {}
    nominal = []
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        values = frame[i].str.strip()
        values = values.str.replace(r'^"(.*)"$', r"\1", regex=True)
        missing = values.isna() | values.isin(["?", ""])
        values = values.mask(missing)
        if kind == "numeric":
            numbers = pd.to_numeric(values, errors="coerce")
            bad = numbers.isna() & ~missing
            if bad.any():
                raise DataError(
                    f"The ARFF attribute {_quote(name)} is declared numeric but holds the value "
                    f"{_quote(values[bad].iloc[0])}."
                )
            columns[name] = numbers
        elif kind == "string":
            columns[name] = values.astype("str").where(~missing)
        else:
            unknown = ~missing & ~values.isin(kind)
            if unknown.any():
                raise DataError(
                    f"The ARFF attribute {_quote(name)} holds {_quote(values[unknown].iloc[0])}, "
                    "which is not one of its declared values."
                )
            columns[name] = pd.Categorical(values, categories=list(dict.fromkeys(kind)))
            nominal.append(name)
    frame = pd.DataFrame(columns)
    frame.columns = _unique_names(names, notes)
    return frame, [frame.columns[names.index(n)] for n in nominal]


def _read_sparse_arff(text: str, names: list[str]) -> tuple[pd.DataFrame, list[str]]:
    import arff

    try:
        decoded = arff.loads(text)
    except arff.ArffException as exc:
        raise DataError(f"The ARFF file has a syntax error: {str(exc).rstrip('.')}.") from exc
    frame = pd.DataFrame(decoded["data"], columns=[a for a, _ in decoded["attributes"]])
    nominal = []
    for name, kind in decoded["attributes"]:
        if isinstance(kind, list):
            frame[name] = pd.Categorical(frame[name], categories=list(dict.fromkeys(kind)))
            nominal.append(name)
    return frame, nominal


# ---- entry points
def read_table(
    data: bytes,
    filename: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    max_columns: int = MAX_COLUMNS,
) -> pd.DataFrame:
    """The raw table of an uploaded file (so the app can offer the target choice).

    Reads CSV / TSV (delimiter and encoding detected), gzip-compressed files, ARFF and
    parquet. Notes for the user are in ``frame.attrs["heb_notes"]`` and the ARFF nominal
    columns in ``frame.attrs["heb_categorical"]``.

    Raises
    ------
    DataError
        Empty, oversized, binary, damaged or unreadable files.
    """
    if isinstance(data, memoryview | bytearray):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise DataError("The upload must be the bytes of a file.")
    filename = str(filename or "upload")
    if len(data) > max_bytes:
        raise DataError(
            f"The file is {_size(len(data))}, more than the limit of {_size(max_bytes)}."
        )
    notes: list[str] = []
    lower = filename.lower()
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, max_bytes)
        lower = lower.removesuffix(".gz").removesuffix(".gzip")
    if not data.strip():
        raise DataError("The file is empty.")
    categorical: list[str] = []
    if data[:4] == b"PAR1" or lower.endswith((".parquet", ".pq")):
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise DataError(
                "The parquet file could not be read; it may be damaged or incomplete."
            ) from exc
        frame.columns = _unique_names(list(frame.columns), notes)
    elif data[:4] == b"PK\x03\x04" or data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise DataError(
            "This is a zip archive or an Excel workbook; save the table as CSV and upload that."
        )
    elif _looks_binary(data):
        raise DataError(
            "This file holds binary data, not a table; upload a CSV, TSV, ARFF or parquet file."
        )
    else:
        text = _decode(data, notes)
        is_arff = lower.endswith(".arff") or re.match(
            r"(\s*(%[^\n]*)?\n)*\s*@relation", text[:65536], flags=re.IGNORECASE
        )
        if is_arff:
            frame, categorical = _read_arff(text, notes)
        else:
            frame = _read_delimited(text, lower, notes, max_columns)
    if frame.shape[1] > max_columns:
        raise DataError(
            f"The table has {frame.shape[1]:,} columns, more than the {max_columns:,} this app "
            "handles."
        )
    if frame.shape[0] == 0:
        raise DataError("The file has a header row but no data rows.")
    frame.attrs["heb_notes"] = notes
    frame.attrs["heb_categorical"] = categorical
    return frame


def load_upload(
    data: bytes,
    filename: str,
    target: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Dataset:
    """A :class:`Dataset` from an uploaded file.

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str
        Its name (the extension helps detect the format).
    target : str, optional
        The target column; default :func:`default_target` (``class`` / ``target``, else
        the last column).
    max_bytes : int
        Size limit, default 200 MB.
    """
    frame = read_table(data, filename, max_bytes)
    name = Path(str(filename)).name or "upload"
    return _finalize(
        frame,
        target,
        name=name,
        source=f"upload:{name}",
        declared=frame.attrs.get("heb_categorical", []),
        notes=frame.attrs.get("heb_notes", []),
    )


# ---------------------------------------------------------------------------- OpenML
_OPENML_LOCK = threading.Lock()


def _parse_openml_id(dataset_id) -> int:
    if isinstance(dataset_id, bool | np.bool_):
        raise DataError("An OpenML data set id is a whole number such as 31.")
    if isinstance(dataset_id, int | np.integer):
        value = int(dataset_id)
    elif isinstance(dataset_id, float | np.floating) and float(dataset_id).is_integer():
        value = int(dataset_id)
    elif isinstance(dataset_id, str) and re.fullmatch(r"\s*[+-]?\d+\s*", dataset_id):
        value = int(dataset_id)
    else:
        raise DataError(
            f"An OpenML data set id is a whole number such as 31, not {_quote(dataset_id)} "
            "(loading by name needs the network)."
        )
    if value <= 0:
        raise DataError(f"OpenML data set ids are positive whole numbers, not {value}.")
    return value


@contextlib.contextmanager
def _openml_config(root: Path, server: str) -> Iterator:
    """Point the openml client at ``root`` and ``server``; restore its settings after."""
    import openml

    config = openml.config
    saved = (config.get_config_as_dict()["cachedir"], config.server, config.connection_n_retries)
    saved_skip = os.environ.get(config.OPENML_SKIP_PARQUET_ENV_VAR)
    try:
        config.set_root_cache_directory(root)
        config.server = server
        config.connection_n_retries = 1
        yield openml
    finally:
        config.set_root_cache_directory(saved[0])
        config.server, config.connection_n_retries = saved[1], saved[2]
        if saved_skip is None:
            os.environ.pop(config.OPENML_SKIP_PARQUET_ENV_VAR, None)
        else:
            os.environ[config.OPENML_SKIP_PARQUET_ENV_VAR] = saved_skip


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def _openml_error(dataset_id: int, exc: Exception) -> DataError:
    import requests
    from openml import exceptions as oe

    if isinstance(exc, oe.OpenMLPrivateDatasetError):
        return DataError(f"OpenML data set {dataset_id} is private.")
    if isinstance(exc, oe.OpenMLServerException):
        if getattr(exc, "code", None) == 111:
            return DataError(f"OpenML has no data set with id {dataset_id}.")
        return DataError(
            f"The OpenML server could not deliver data set {dataset_id} "
            f"({str(getattr(exc, 'message', exc)).rstrip('.')})."
        )
    if isinstance(exc, oe.OpenMLHashException):
        return DataError(f"The download of OpenML data set {dataset_id} was damaged; try again.")
    if isinstance(exc, requests.exceptions.RequestException | ConnectionError | TimeoutError):
        return DataError(
            f"OpenML data set {dataset_id} is not in the local cache and the OpenML server "
            "cannot be reached; connect to the internet once to download it, or pick a "
            "built-in data set."
        )
    if isinstance(exc, PermissionError):
        return DataError(f"The OpenML cache folder cannot be written to ({exc.filename}).")
    return DataError(f"OpenML data set {dataset_id} could not be loaded ({type(exc).__name__}).")


def _get_openml_dataset(openml, dataset_id: int, dataset_dir: Path):
    """``openml.datasets.get_dataset`` that never lets a failure delete a good cache.

    The client deletes a data set's cache folder on any exception, so a hard-linked
    backup of the folder is taken first and put back if the call fails.
    """
    backup_root = None
    if dataset_dir.is_dir():
        description = dataset_dir / "description.xml"
        arff_cached = (dataset_dir / "dataset.arff").is_file()
        parquet_cached = any(dataset_dir.glob("dataset*.pq"))
        if description.is_file() and arff_cached and not parquet_cached:
            # the ARFF is here: do not try the network for a parquet copy
            os.environ[openml.config.OPENML_SKIP_PARQUET_ENV_VAR] = "true"
        try:
            backup_root = Path(tempfile.mkdtemp(prefix=".heb-backup-", dir=dataset_dir.parent))
        except OSError:
            backup_root = Path(tempfile.mkdtemp(prefix="heb-openml-backup-"))
        shutil.copytree(dataset_dir, backup_root / "copy", copy_function=_link_or_copy)
    try:
        return openml.datasets.get_dataset(
            dataset_id,
            download_data=True,
            download_qualities=False,
            download_features_meta_data=False,
        )
    except Exception:
        if backup_root is not None:
            shutil.rmtree(dataset_dir, ignore_errors=True)
            shutil.copytree(backup_root / "copy", dataset_dir, copy_function=_link_or_copy)
        raise
    finally:
        if backup_root is not None:
            shutil.rmtree(backup_root, ignore_errors=True)


def _nominal_from_features_xml(path: Path) -> list[str] | None:
    if not path.is_file():
        return None
    import xmltodict

    try:
        parsed = xmltodict.parse(path.read_text(encoding="utf-8"), force_list=("oml:feature",))
        features = parsed["oml:data_features"]["oml:feature"]
    except Exception:  # a damaged metadata file: fall back to dtypes
        return None
    return [f["oml:name"] for f in features if f.get("oml:data_type") == "nominal"]


def _read_openml_files(dataset, dataset_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    parquet = getattr(dataset, "parquet_file", None)
    if parquet and Path(parquet).is_file():
        frame = pd.read_parquet(parquet)
        nominal = _nominal_from_features_xml(dataset_dir / "features.xml")
        if nominal is None:
            nominal = [c for c in frame.columns if _is_text_dtype(frame[c].dtype)]
        return frame, nominal
    arff_path = getattr(dataset, "data_file", None)
    if not arff_path or not Path(arff_path).is_file():
        raise DataError(f"OpenML data set {dataset.dataset_id} has no data file in the cache.")
    raw = Path(arff_path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return _read_arff(_decode(raw, []), [])


def load_openml(
    dataset_id,
    cache_dir: str | Path | None = None,
    server: str | None = None,
    *,
    target: str | None = None,
) -> Dataset:
    """An OpenML data set by integer id, through the ``openml`` client and a local cache.

    Parameters
    ----------
    dataset_id : int
        The OpenML id (a string of digits is accepted; names are not: they need the
        network).
    cache_dir : path, optional
        Root of the openml cache; default ``data_cache/openml`` (:func:`heb.paths.cache_dir`).
        Offline, a data set loads when this cache holds it.
    server : str, optional
        The OpenML API URL; default the production server. The cache subfolder follows
        it (``org/openml/www`` or ``org/openml/test``).
    target : str, optional
        Default OpenML's default target attribute.

    Feature types come from OpenML's metadata (nominal -> categorical); the row-id and
    ignored attributes are left out.
    """
    dataset_id = _parse_openml_id(dataset_id)
    root = Path(cache_dir) if cache_dir is not None else paths.cache_dir() / "openml"
    server = server or DEFAULT_OPENML_SERVER
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"The OpenML cache folder {root} cannot be created.") from exc
    with _OPENML_LOCK, _openml_config(root, server) as openml:
        dataset_dir = Path(openml.config.get_cache_directory()) / "datasets" / str(dataset_id)
        try:
            dataset = _get_openml_dataset(openml, dataset_id, dataset_dir)
        except DataError:
            raise
        except Exception as exc:
            raise _openml_error(dataset_id, exc) from exc
        try:
            frame, nominal = _read_openml_files(dataset, dataset_dir)
        except DataError:
            raise
        except Exception as exc:  # a damaged cached file: report it, keep the cache
            raise DataError(
                f"The cached files of OpenML data set {dataset_id} could not be read."
            ) from exc
    if target is None:
        target = dataset.default_target_attribute
        if not target or "," in str(target):
            raise DataError(
                f"OpenML data set {dataset_id} has no single default target; choose a target "
                "column."
            )
    drop = []
    if dataset.row_id_attribute:
        drop.append(dataset.row_id_attribute)
    ignore = dataset.ignore_attribute or []
    drop += [ignore] if isinstance(ignore, str) else list(ignore)
    return _finalize(
        frame,
        target,
        name=str(dataset.name),
        source=f"openml:{dataset_id}",
        declared=nominal,
        drop=drop,
        description=f"OpenML data set {dataset_id} ({dataset.name}).",
    )


# ---------------------------------------------------------------------------- dispatch
def load_dataset(spec: str, **kwargs) -> Dataset:
    """Load ``"builtin:NAME"``, ``"shared:NAME"``, ``"openml:ID"`` or a file path.

    A bare built-in name, or a catalogue name (its shared copy when present, else OpenML),
    also works. Extra keyword arguments go to the loader.
    """
    spec = str(spec).strip()
    kind, sep, rest = spec.partition(":")
    kind = kind.lower()
    if sep and kind == "builtin":
        return load_builtin(rest.strip(), **kwargs)
    if sep and kind == "shared":
        return load_shared(rest.strip(), **kwargs)
    if sep and kind == "openml":
        return load_openml(rest.strip(), **kwargs)
    if sep and kind in ("file", "upload"):
        spec = rest.strip()
    path = Path(spec)
    if path.is_file():
        max_bytes = kwargs.get("max_bytes", DEFAULT_MAX_BYTES)
        if path.stat().st_size > max_bytes:
            raise DataError(
                f"The file is {_size(path.stat().st_size)}, more than the limit of "
                f"{_size(max_bytes)}."
            )
        return load_upload(path.read_bytes(), path.name, **kwargs)
    if spec in BUILTIN_DATASETS:
        return load_builtin(spec)
    if spec in _CATALOGUE_BY_NAME:
        entry = _CATALOGUE_BY_NAME[spec]
        if spec in shared_dataset_names():
            return load_shared(spec)
        return load_openml(entry.openml_id, **kwargs)
    raise DataError(
        f"{_quote(spec)} is not a data set name, an OpenML id or a file; use builtin:NAME, "
        "shared:NAME, openml:ID or a file path."
    )
