"""A fitted :class:`~heb.data.preprocess.Preprocessor` as the ``preprocessor`` section of a
heb model file (``docs/model_json.md``), and back.

:mod:`heb.model_io` saves a :func:`~heb.data.preprocess.make_model` pipeline as its
classifier's counts plus this section, which holds everything
:meth:`Preprocessor.transform` reads: the settings, the input columns in order, the dropped
ones, and per feature its categories (with their value type: the integer 1, the float 1.0
and the text ``"1"`` are different categories, as in memory) or its bin cut points (floats
written as their shortest exact repr, so they read back bit for bit), its fill code and
its labels. Loading rebuilds the same encoders, so the loaded pipeline scores raw rows
exactly as the saved one (numbers given as text, unseen categories and missing values
alike: the transform is the same code).

Everything read is checked; anything malformed is one ``ValueError`` sentence. Column
names and category values are data: they are never evaluated.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from heb.data.binning import check_n_bins
from heb.data.dataset import column_names
from heb.data.preprocess import Preprocessor

__all__ = ["STEP_NAMES", "to_dict", "from_dict", "pipeline_steps", "make_pipeline"]

#: the step names of a :func:`~heb.data.preprocess.make_model` pipeline
STEP_NAMES = ("preprocess", "classifier")
_TOP_KEYS = {"params", "columns", "feature_names_in", "n_features_in", "dropped", "features",
             "impute_values", "id_like_imputed"}  # fmt: skip
_OPTIONAL = {"feature_names_in"}
_FEATURE_KEYS = {
    "categorical": {"name", "kind", "categories", "fill", "labels"},
    "numeric": {"name", "kind", "cuts", "range", "fill", "labels", "time"},
}
_PARAM_KEYS = {"n_bins", "missing", "categorical"}
_ID_LIKE_KEYS = {"missing", "mode", "mode_rows", "categories", "observed"}
#: the encoder's ``numeric`` setting of a category value type, and back
_NUMERIC_OF = {"int": "integer", "float": "float", "str": ""}
_TYPE_OF = {numeric: kind for kind, numeric in _NUMERIC_OF.items()}


# --------------------------------------------------------------------------- pipelines
def pipeline_steps(pipeline: Any) -> tuple[Preprocessor, Any]:
    """The fitted Preprocessor and classifier of a :func:`make_model` pipeline, or a
    ValueError naming what is not."""
    steps = getattr(pipeline, "steps", None)
    names = tuple(name for name, _ in steps) if isinstance(steps, list) else ()
    if not isinstance(pipeline, Pipeline) or names != STEP_NAMES:
        raise ValueError(
            "Only a make_model pipeline (steps 'preprocess', a heb Preprocessor, and "
            "'classifier', a heb NaiveBayes, HierarchicalNaiveBayes, AODE or TAN) can be "
            "saved with its preprocessing."
        )
    preprocessor, classifier = (step for _, step in steps)
    if type(preprocessor) is not Preprocessor:
        kind = type(preprocessor).__name__
        raise ValueError(f"The pipeline's first step must be a heb Preprocessor, not a {kind}.")
    if not hasattr(preprocessor, "n_categories_"):
        raise ValueError("The pipeline is not fitted yet; fit it before saving it.")
    return preprocessor, classifier


def make_pipeline(preprocessor: Preprocessor, classifier: Any) -> Pipeline:
    """The fitted pipeline :func:`make_model` would have built from the two steps."""
    return Pipeline(list(zip(STEP_NAMES, (preprocessor, classifier), strict=True)))


# --------------------------------------------------------------------------- writing
def _categories(index: pd.Index, numeric: str, name: str) -> dict:
    """An encoder's categories with their value type (exact Python ints, floats or text)."""
    kind = _TYPE_OF[numeric]
    accepted = {"int": (int, np.integer), "float": (float, np.floating), "str": (str,)}[kind]
    values = index.tolist()
    if not all(isinstance(v, accepted) and not isinstance(v, bool | np.bool_) for v in values):
        raise ValueError(f"The categories of column {_quote(name)} are not all of type {kind}.")
    convert = {"int": int, "float": float, "str": str}[kind]
    return {"kind": kind, "values": [convert(value) for value in values]}


def to_dict(preprocessor: Preprocessor) -> dict[str, Any]:
    """The JSON-ready ``preprocessor`` section of a fitted Preprocessor."""
    categorical = preprocessor.categorical
    if categorical is not None:
        if isinstance(categorical, set | frozenset):  # no order of its own: sort it
            categorical = sorted(categorical, key=str)
        categorical = column_names(categorical)  # one name alone is one column
    features = []
    for name, encoder, labels in zip(
        preprocessor.feature_names_out_,
        preprocessor._encoders,
        preprocessor.categories_,
        strict=True,
    ):
        entry: dict[str, Any] = {"name": name, "kind": encoder["kind"]}
        if encoder["kind"] == "categorical":
            entry["categories"] = _categories(encoder["index"], encoder["numeric"], name)
        else:
            edges = preprocessor.bin_edges_[name]
            entry["cuts"] = encoder["cuts"].tolist()
            entry["range"] = [float(edges[0]), float(edges[-1])]
            if encoder["time"]:  # seconds of dates or durations (absent: numbers)
                entry["time"] = encoder["time"]
        entry["fill"] = int(encoder["fill"])
        entry["labels"] = [str(label) for label in labels]
        features.append(entry)
    out: dict[str, Any] = {
        "params": {
            "n_bins": int(preprocessor.n_bins),
            "missing": str(preprocessor.missing),
            "categorical": categorical,
        },
        "columns": list(preprocessor._columns_in),
        "n_features_in": int(preprocessor.n_features_in_),
        "dropped": list(preprocessor.dropped_),
        "features": features,
        "impute_values": dict(preprocessor.impute_values_),
        "id_like_imputed": {
            name: {key: entry[key] for key in sorted(_ID_LIKE_KEYS)}
            for name, entry in preprocessor.id_like_imputed_.items()
        },
    }
    if hasattr(preprocessor, "feature_names_in_"):
        out["feature_names_in"] = [str(name) for name in preprocessor.feature_names_in_]
    return out


# --------------------------------------------------------------------------- reading
def _quote(name: str) -> str:
    """A name for an error sentence: quoted, and cut short when long."""
    return repr(name[:60]) + ("..." if len(name) > 60 else "")


def _object(value: Any, where: str, keys: set, optional: set = frozenset()) -> dict:
    """A JSON object with exactly ``keys`` (``optional`` ones may be absent)."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a JSON object.")
    unknown = sorted(set(value) - keys)
    if unknown:
        more = f" and {len(unknown) - 1:,} more" if len(unknown) > 1 else ""
        raise ValueError(f"{where} has an unknown field, {_quote(unknown[0])}{more}.")
    lacking = keys - optional - set(value)
    if lacking:
        raise ValueError(f"{where} lacks the field {_quote(sorted(lacking)[0])}.")
    return value


def _count(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise ValueError(f"{what} must be a whole number of at least 0.")
    return value


def _texts(value: Any, what: str, *, distinct: bool = False) -> list[str]:
    if not isinstance(value, list) or not all(type(item) is str for item in value):
        raise ValueError(f"{what} must be a list of text.")
    if distinct and len(set(value)) != len(value):
        raise ValueError(f"{what} repeat a name.")
    return value


def _floats(value: Any, what: str) -> np.ndarray:
    """A JSON list of finite numbers (not true / false) as float64."""
    if not isinstance(value, list) or not all(type(item) in (int, float) for item in value):
        raise ValueError(f"{what} must be a list of numbers.")
    try:
        array = np.array(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{what} hold a number too large for a float.") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} hold a value that is not finite.")
    return array


def _params(data: Any) -> dict:
    params = _object(data, "The params object of the preprocessor", _PARAM_KEYS)
    try:
        check_n_bins(params["n_bins"])
    except ValueError as exc:
        raise ValueError(f"The preprocessor's {exc}") from None
    if params["missing"] not in ("impute", "category"):
        raise ValueError("The preprocessor's missing must be 'impute' or 'category'.")
    if params["categorical"] is not None:
        _texts(params["categorical"], "The preprocessor's categorical names")
    return params


def _index(data: Any, what: str) -> tuple[pd.Index, str]:
    """A categorical feature's categories as the encoder's Index, and its ``numeric``."""
    data = _object(data, what, {"kind", "values"})
    kind, values = data["kind"], data["values"]
    if not isinstance(kind, str) or kind not in _NUMERIC_OF:  # a list or dict: unhashable
        raise ValueError(f"The kind of {what.lower()} must be 'int', 'float' or 'str'.")
    if not isinstance(values, list) or not values:
        raise ValueError(f"{what} must be a non-empty list.")
    if kind == "float":
        array = _floats(values, what)
    else:
        python_type = int if kind == "int" else str
        if not all(type(value) is python_type for value in values):
            raise ValueError(f"{what}, of kind {kind!r}, must all be {kind} values.")
        array = np.array(values, dtype=object)
    if array.size > 1 and not np.all(array[1:] > array[:-1]):
        raise ValueError(f"{what} must be distinct and in increasing order.")
    return pd.Index(array), _NUMERIC_OF[kind]


def _feature(data: Any, position: int, missing: str) -> tuple[dict, list[str], np.ndarray | None]:
    """One feature's encoder, labels and (numeric) bin edges."""
    where = f"Feature {position} of the preprocessor"
    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in _FEATURE_KEYS:  # a list or dict: unhashable
        raise ValueError(f"{where} must be an object of kind 'categorical' or 'numeric'.")
    data = _object(data, where, _FEATURE_KEYS[kind], optional={"time"})
    name = data["name"]
    if type(name) is not str:
        raise ValueError(f"The name of feature {position} of the preprocessor must be text.")
    feature = f"feature {_quote(name)}"
    labels = _texts(data["labels"], f"The labels of {feature}")
    fill = _count(data["fill"], f"The fill code of {feature}")
    edges = None
    if kind == "categorical":
        index, numeric = _index(data["categories"], f"The categories of {feature}")
        encoder = {"kind": kind, "numeric": numeric, "index": index}
        width = index.size
    else:
        cuts = _floats(data["cuts"], f"The cut points of {feature}")
        if cuts.size > 1 and not np.all(np.diff(cuts) > 0):
            raise ValueError(f"The cut points of {feature} must be in increasing order.")
        low_high = _floats(data["range"], f"The range of {feature}")
        edges = np.concatenate((low_high[:1], cuts, low_high[1:]))
        if low_high.size != 2 or np.any(np.diff(edges) < 0):
            raise ValueError(f"The range of {feature} must be [min, max] around its cut points.")
        time = data.get("time", "")
        if time not in ("datetime", "timedelta", ""):
            raise ValueError(f"The time of {feature} must be 'datetime' or 'timedelta'.")
        encoder = {"kind": kind, "cuts": cuts, "time": time}
        width = cuts.size + 1
    # impute: the fill is one of the categories; category: the code after them, labelled
    # "(missing)" when training rows were missing
    if missing == "impute" and not (fill < width and len(labels) == width):
        raise ValueError(f"The fill code or the labels of {feature} do not fit its categories.")
    if missing == "category" and not (fill == width and len(labels) in (width, width + 1)):
        raise ValueError(f"The fill code or the labels of {feature} do not fit its categories.")
    encoder.update(fill=fill, imputed=missing == "impute", n=len(labels))
    return encoder, labels, edges


def _id_like(data: Any, categorical: set[str]) -> dict:
    """``id_like_imputed_``: ID-like categorical columns whose missing rows were imputed."""
    out = {}
    where = "The preprocessor's id_like_imputed"
    for name, entry in _object(data, where, categorical, categorical).items():
        what = f"The id_like_imputed entry of {_quote(name)}"
        entry = _object(entry, what, _ID_LIKE_KEYS)
        if type(entry["mode"]) is not str:
            raise ValueError(f"{what} must give its mode as text.")
        for key in _ID_LIKE_KEYS - {"mode"}:
            _count(entry[key], f"{what} ({key})")
        order = ("missing", "mode", "mode_rows", "categories", "observed")  # as fit writes
        out[name] = {key: entry[key] for key in order}
    return out


def _columns(data: dict) -> tuple[list[str], list[str]]:
    """The input columns in order and the dropped ones, checked against each other."""
    columns = _texts(data["columns"], "The preprocessor's columns", distinct=True)
    dropped = _texts(data["dropped"], "The preprocessor's dropped columns", distinct=True)
    if not set(dropped) <= set(columns):
        raise ValueError("The preprocessor drops a column that is not among its columns.")
    if _count(data["n_features_in"], "The preprocessor's n_features_in") != len(columns):
        raise ValueError("The preprocessor's n_features_in must be its number of columns.")
    if "feature_names_in" in data and data["feature_names_in"] != columns:
        raise ValueError("The preprocessor's feature_names_in must be its columns.")
    return columns, dropped


def _impute_values(data: Any, names: list[str], parts: list, missing: str) -> dict:
    """``impute_values_``: every feature's with ``missing="impute"``, none otherwise."""
    impute = _object(data, "The preprocessor's impute_values", set(names), set(names))
    if missing == "impute" and set(impute) != set(names):
        raise ValueError("The preprocessor imputes, so every feature needs an impute value.")
    if missing == "category" and impute:
        raise ValueError("The preprocessor keeps missing values as a category: it imputes none.")
    if not all(type(value) is str for value in impute.values()):
        raise ValueError("The preprocessor's impute values must be text.")
    for name, (encoder, labels, _) in zip(names, parts, strict=True):
        if encoder["kind"] == "categorical" and name in impute:
            if impute[name] != labels[encoder["fill"]]:
                raise ValueError(
                    f"The impute value of {_quote(name)} must be the label of its fill code."
                )
    return {name: impute[name] for name in names if name in impute}


def from_dict(data: Any) -> Preprocessor:
    """A fitted Preprocessor from :func:`to_dict`'s section, every field checked."""
    data = _object(data, "The model file's preprocessor", _TOP_KEYS, _OPTIONAL)
    params = _params(data["params"])
    columns, dropped = _columns(data)
    entries = data["features"]
    if not isinstance(entries, list) or not entries:
        raise ValueError("The preprocessor's features must be a non-empty list.")
    parts = [_feature(entry, f, params["missing"]) for f, entry in enumerate(entries)]
    names = [entry["name"] for entry in entries]
    if names != [name for name in columns if name not in set(dropped)]:
        raise ValueError("The preprocessor's features must be its columns, less the dropped.")
    impute = _impute_values(data["impute_values"], names, parts, params["missing"])
    categorical = {name for name, part in zip(names, parts, strict=True) if part[2] is None}

    pre = Preprocessor(params["n_bins"], params["missing"], params["categorical"])
    pre.n_features_in_ = len(columns)
    if "feature_names_in" in data:
        pre.feature_names_in_ = np.array(columns, dtype=object)
    pre._columns_in = list(columns)
    pre.kinds_ = {name: part[0]["kind"] for name, part in zip(names, parts, strict=True)}
    pre.bin_edges_ = {
        name: part[2] for name, part in zip(names, parts, strict=True) if part[2] is not None
    }
    pre.impute_values_ = impute
    pre.id_like_imputed_ = _id_like(data["id_like_imputed"], categorical if impute else set())
    pre.feature_names_out_ = list(names)
    pre.categories_ = [part[1] for part in parts]
    pre.dropped_ = list(dropped)
    pre._encoders = [part[0] for part in parts]
    pre.n_categories_ = np.array([len(part[1]) for part in parts], dtype=np.int64)
    return pre
