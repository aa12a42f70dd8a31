"""Save and load fitted models as a documented JSON file of their counts (never pickle).

The model is its counts (ARCHITECTURE): a file holds the class labels, the constructor
parameters and the sufficient statistics; loading re-smooths those counts with the same
deterministic code, so a loaded model predicts exactly as the saved one. A
:class:`~heb.nb.NaiveBayes` file also carries its smoothed tables (log priors, log
theta, feature weights) so that another program can score rows without heb; on load they
must agree with the re-smoothed tables. A
:class:`~heb.hierarchical_nb.HierarchicalNaiveBayes` file holds the hierarchies and parent
features it used (detected or given) as its parameters, so loading detects nothing; an
:class:`~heb.aode.AODE` file carries its joint counts, a :class:`~heb.tan.TAN` file its
pair counts (its tree is learned again from them, as ``fit`` learns it). The format is
described in ``docs/model_json.md``.

A fitted :func:`heb.data.make_model` pipeline (a ``Preprocessor``, then any of these) is
saved by :mod:`heb.data.pipeline_io` (the data layer, above this one) as its
classifier's file plus a ``preprocessor`` section; this module reads and writes the
classifier part and points a pipeline or a pipeline's file there.

Only :func:`json.loads` ever reads a file: no code, no pickle. Anything malformed (wrong
types or shapes, negative or non-finite counts, unknown keys or parameters, duplicate
keys, NaN / Infinity, a file over the size bound) is one ``ValueError`` sentence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from heb.aode import AODE
from heb.counts import MAX_TABLE_CELLS, CountTable, category_offsets
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.hierarchy_io import (
    hierarchies_from_json,
    hierarchies_to_json,
    parents_from_json,
    parents_to_json,
)
from heb.joint_counts import JointCounts
from heb.nb import NaiveBayes
from heb.tan import TAN
from heb.tan_structure import PairCounts

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "PREPROCESSOR_KEY",
    "MAX_BYTES",
    "to_dict",
    "from_dict",
    "dumps",
    "loads",
    "json_text",
    "parse",
    "save",
    "load",
]

#: a model a file holds
Model = NaiveBayes | HierarchicalNaiveBayes | AODE | TAN
#: the ``format`` field of every file
FORMAT = "heb-model"
#: bumped when the layout changes; a file of another version is refused with its number
SCHEMA_VERSION = 1
#: the largest file :func:`loads` / :func:`load` accept (bytes)
MAX_BYTES = 64 * 1024 * 1024
#: stored tables must equal the re-smoothed ones to this relative tolerance
TABLE_RTOL = 1e-9
_KINDS = {
    "NaiveBayes": NaiveBayes,
    "HierarchicalNaiveBayes": HierarchicalNaiveBayes,
    "AODE": AODE,
    "TAN": TAN,
}
#: the pair counts of a model that holds them, and their class
_JOINTS = {"AODE": ("joint_counts_", JointCounts), "TAN": ("pair_counts_", PairCounts)}
_TOP_KEYS = {"format", "schema_version", "model", "params", "classes", "n_categories",
             "class_counts", "counts", "feature_names", "tables", "joint",
             "preprocessor"}  # fmt: skip
#: the section a pipeline's file adds (:mod:`heb.data.pipeline_io`)
PREPROCESSOR_KEY = "preprocessor"
#: the parameters that are no scalar: HEB-H's levels and HierarchicalNaiveBayes' parent
#: features, and how a file holds them (:mod:`heb.hierarchy_io`)
_STRUCTURE = {
    "hierarchies": (hierarchies_to_json, hierarchies_from_json),
    "parents": (parents_to_json, parents_from_json),
}


# --------------------------------------------------------------------------- writing
def _labels(classes: np.ndarray) -> dict:
    """Class labels as JSON with their kind (``int``, ``float``, ``bool`` or ``str``)."""
    kind = {"i": "int", "u": "int", "f": "float", "b": "bool"}.get(classes.dtype.kind, "str")
    values = classes.tolist() if kind != "str" else [str(label) for label in classes]
    return {"kind": kind, "values": values}


def _sparse(counts: np.ndarray) -> dict:
    """Non-zero cells of a (C, V) count matrix as (class, column, count) lists."""
    rows, columns = np.nonzero(counts)
    return {
        "class": rows.tolist(),
        "column": columns.tolist(),
        "count": counts[rows, columns].tolist(),
    }


def to_dict(model: Model) -> dict[str, Any]:
    """The JSON-ready description of a fitted model (see ``docs/model_json.md``)."""
    if type(model).__name__ == "Pipeline":
        raise ValueError(
            "A make_model pipeline holds its Preprocessor too: save it with "
            "heb.data.pipeline_io.save (or dumps), which writes both."
        )
    return _model_dict(model)


def _model_dict(model: Model) -> dict[str, Any]:
    """:func:`to_dict` of a NaiveBayes, HierarchicalNaiveBayes, AODE or TAN."""
    kind = type(model).__name__
    if kind not in _KINDS:
        raise ValueError(
            f"Only a fitted heb NaiveBayes, HierarchicalNaiveBayes, AODE or TAN can be saved, "
            f"not a {kind}; a make_model pipeline may hold any of them as its classifier."
        )
    if not hasattr(model, "count_table_"):
        raise ValueError(f"The {kind} is not fitted yet; fit it before saving it.")
    params = {key: _plain(value) for key, value in model.get_params().items()}
    if isinstance(model, HierarchicalNaiveBayes):  # the structure it used, detected or given
        params["hierarchies"], params["parents"] = model.hierarchies_, model.parents_
    for key, (to_json, _) in _STRUCTURE.items():
        if params.get(key) is not None:
            params[key] = to_json(params[key])
    for key, value in params.items():
        if not _scalar(value) and key not in _STRUCTURE:
            raise ValueError(
                f"The model's parameter {key!r} is not a number, text or null, so the model "
                "cannot be saved as JSON (docs/model_json.md holds such parameters only)."
            )
    table = model.count_table_
    out: dict[str, Any] = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "model": kind,
        "params": params,
        "classes": _labels(np.asarray(model.classes_)),
        "n_categories": table.n_categories.tolist(),
        "class_counts": table.class_counts.tolist(),
        "counts": _sparse(table.counts),
    }
    if hasattr(model, "feature_names_in_"):
        out["feature_names"] = [str(name) for name in model.feature_names_in_]
    if isinstance(model, NaiveBayes):
        out["tables"] = {
            "class_log_prior": model.class_log_prior_.tolist(),
            "feature_log_prob": model.feature_log_prob_.tolist(),
            "feature_weights": model.feature_weights_.tolist(),
        }
    else:  # AODE's joint counts, TAN's pair counts
        joint = getattr(model, _JOINTS[kind][0])
        out["joint"] = {
            "parent": joint.parent.tolist(),
            "child": joint.child.tolist(),
            "keys": joint.keys.tolist(),
            "counts": joint.counts.tolist(),
        }
    return out


def _scalar(value: Any) -> bool:
    """Whether a parameter is one the format holds: a number, text or null."""
    return value is None or isinstance(value, (str, int, float))


def _plain(value: Any) -> Any:
    """A parameter as a JSON scalar (numpy numbers become Python ones)."""
    return value.item() if isinstance(value, np.generic) else value


def dumps(model: Model) -> str:
    """The model as JSON text."""
    return json_text(to_dict(model))


def json_text(document: dict[str, Any]) -> str:
    """A model file's description as its compact JSON text (no NaN / Infinity)."""
    return json.dumps(document, allow_nan=False, separators=(",", ":"))


def save(model: Model, path: str | Path) -> None:
    """Write the model's JSON to ``path``."""
    Path(path).write_text(dumps(model), encoding="utf-8")


# --------------------------------------------------------------------------- reading
def _refuse_constant(name: str):
    raise ValueError(f"The model file holds {name}, which is not a JSON number.")


def _no_duplicates(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("The model file repeats a key in one object.")
    return out


def loads(text: str | bytes, *, max_bytes: int = MAX_BYTES) -> Model:
    """A fitted model from :func:`dumps`' JSON text (at most ``max_bytes``, in UTF-8)."""
    return from_dict(parse(text, max_bytes=max_bytes))


def parse(text: str | bytes, *, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON document of a model file, read safely: at most ``max_bytes`` in UTF-8, no
    NaN / Infinity, no key repeated in an object, not nested past Python's recursion
    limit; its fields are checked by :func:`from_dict`.

    Raises
    ------
    ValueError
        One sentence saying what is wrong.
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ValueError(f"The model file is larger than {max_bytes:,} bytes.")
    try:
        data = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_bounded_int,
            object_pairs_hook=_no_duplicates,
        )
    except RecursionError:
        raise ValueError("The model file is nested too deeply to be a heb model.") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError("The model file is not valid UTF-8 JSON.") from exc
    return data


#: the most digits of an integer in a model file: below Python's 4,300-digit limit, whose
#: own error advised sys.set_int_max_str_digits
MAX_INT_DIGITS = 4000


def _bounded_int(digits: str) -> int:
    """``json.loads``' integer parser, refusing a number too long to be read."""
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError("The model file holds a number too long to be a heb model's.")
    return int(digits)


def load(path: str | Path, *, max_bytes: int = MAX_BYTES) -> Model:
    """A fitted model from a JSON file written by :func:`save` (read up to ``max_bytes``)."""
    with open(path, "rb") as handle:
        text = handle.read(max_bytes + 1)
    return loads(text, max_bytes=max_bytes)


def _field(data: dict, key: str, kind: type | tuple, where: str = "the model file") -> Any:
    if key not in data:
        raise ValueError(f"{where} lacks the field {key!r}.")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ValueError(f"The field {key!r} of {where} has the wrong type.")
    return value


def _holds_bool(value: list, ndim: int) -> bool:
    """Whether a list of numbers (``ndim`` 1 or 2 deep) holds a JSON true or false, which
    numpy would read as 1 or 0 beside numbers."""
    if ndim == 1:
        return any(type(item) is bool for item in value)
    return any(type(item) is bool for row in value for item in row)


def _numbers(
    value: Any, name: str, *, shape: tuple | None = None, integer: bool = False
) -> np.ndarray:
    """A JSON list of numbers as a finite float (or int64) array, or a ValueError."""
    if not isinstance(value, list):
        raise ValueError(f"{name} must be a list of numbers.")
    try:
        array = np.array(value)
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a list of numbers of one shape.") from None
    if array.size == 0:
        array = array.astype(np.float64).reshape(shape if shape is not None else (0,))
    if array.dtype.kind not in "if" or _holds_bool(value, array.ndim):
        raise ValueError(f"{name} must hold numbers only.")
    if shape is not None and array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} holds a value that is not finite.")
    if integer:
        if not np.array_equal(array, np.round(array)) or np.abs(array).max(initial=0) > 2**62:
            raise ValueError(f"{name} must hold whole numbers.")
        return array.astype(np.int64)
    return array.astype(np.float64)


def _classes(data: dict) -> np.ndarray:
    labels = _field(data, "classes", dict)
    kind = _field(labels, "kind", str, "classes")
    values = _field(labels, "values", list, "classes")
    if not values:
        raise ValueError("The model file has no classes.")
    if kind == "str":
        if not all(isinstance(v, str) for v in values):
            raise ValueError("The class labels of kind 'str' must all be text.")
        classes = np.array(values, dtype=str)
    elif kind == "bool":
        if not all(isinstance(v, bool) for v in values):
            raise ValueError("The class labels of kind 'bool' must all be true or false.")
        classes = np.array(values, dtype=bool)
    elif kind in ("int", "float"):
        classes = _numbers(values, "the class labels", integer=kind == "int")
    else:
        raise ValueError(f"The class labels' kind must be int, float, bool or str, got {kind!r}.")
    ordered = np.unique(classes)
    if ordered.size != classes.size:
        raise ValueError("The class labels must be distinct.")
    if not np.array_equal(ordered, classes):  # partial_fit finds a label by searchsorted
        raise ValueError(
            "The class labels must be listed in increasing order (classes_ order, which "
            "the class counts, counts and tables follow)."
        )
    return classes


def _count_table(data: dict, n_classes: int) -> CountTable:
    k = _numbers(_field(data, "n_categories", list), "n_categories", integer=True)
    if k.ndim != 1 or k.size == 0 or k.min() < 1:
        raise ValueError("n_categories must list at least one positive whole number.")
    offsets = category_offsets(k)
    width = int(offsets[-1])
    if n_classes * width > MAX_TABLE_CELLS:
        raise ValueError(f"The model's count table would need {n_classes * width:,} cells.")
    class_counts = _numbers(_field(data, "class_counts", list), "class_counts", shape=(n_classes,))
    sparse = _field(data, "counts", dict)
    n = len(_field(sparse, "count", list, "counts"))
    rows = _numbers(
        _field(sparse, "class", list, "counts"), "counts.class", shape=(n,), integer=True
    )
    cols = _numbers(
        _field(sparse, "column", list, "counts"), "counts.column", shape=(n,), integer=True
    )
    values = _numbers(sparse["count"], "counts.count", shape=(n,))
    if n and (rows.min() < 0 or rows.max() >= n_classes or cols.min() < 0 or cols.max() >= width):
        raise ValueError("A count of the model file lies outside its table.")
    if np.any(values < 0) or np.any(class_counts < 0):
        raise ValueError("Counts must not be negative.")
    counts = np.zeros((n_classes, width))
    np.add.at(counts, (rows, cols), values)
    if np.unique(rows * width + cols).size != n:
        raise ValueError("The model file lists a count cell twice.")
    return CountTable(class_counts, counts, offsets)


def _params(data: dict, kind: type) -> dict:
    params = _field(data, "params", dict)
    known = set(kind().get_params())
    unknown = set(params) - known
    if unknown:
        raise ValueError(f"Unknown parameters for {kind.__name__}: {', '.join(sorted(unknown))}.")
    out = {}
    for key, value in params.items():
        if key in _STRUCTURE and value is not None:
            out[key] = _STRUCTURE[key][1](value)
        elif _scalar(value):
            out[key] = value
        else:
            raise ValueError(f"The parameter {key!r} must be a number, text or null.")
    return out


def _joint(data: dict, model: AODE | TAN, table: CountTable) -> JointCounts:
    """The joint counts of an AODE file (a TAN file's pair counts), in this heb's layout
    for the file's caps.

    The file names its pairs (``parent``, ``child``); a file whose pairs are not the
    layout this heb builds (another version's order) is refused rather than misread.
    """
    joint = _field(data, "joint", dict)
    C = table.n_classes
    k = table.n_categories
    caps = model._caps
    counts_class = _JOINTS[type(model).__name__][1]
    parent, child, offsets = counts_class.layout(k, C, *caps)
    for name, expected in (("parent", parent), ("child", child)):
        stored = _field(joint, name, list, "joint")
        if not np.array_equal(_numbers(stored, f"joint.{name}", integer=True), expected):
            raise ValueError("The AODE file's pairs are not in this heb's layout; refit and save.")
    n = len(_field(joint, "keys", list, "joint"))
    keys = _numbers(joint["keys"], "joint.keys", shape=(n,), integer=True)
    counts = _numbers(_field(joint, "counts", list, "joint"), "joint.counts", shape=(n,))
    if n and (keys.min() < 0 or keys.max() >= int(offsets[-1]) * C or np.any(np.diff(keys) <= 0)):
        raise ValueError("The joint counts' keys must be increasing and inside the layout.")
    if np.any(counts <= 0):
        raise ValueError("The joint counts must be positive (only non-zero cells are stored).")
    joint_counts = counts_class(C, k, *caps, parent, child, offsets, keys, counts)
    _check_joint(joint_counts, table)
    return joint_counts


def _check_joint(joint: JointCounts, table: CountTable) -> None:
    """The joint counts must be counts of the rows the feature counts count (a file edited
    by hand is not): per pair, class and parent value they add up to at most the parent
    value's count (rows missing the child are not in them), and a pair held both ways
    holds the same counts both ways."""
    rows = joint.parent_offsets
    pair_of_row = np.repeat(np.arange(joint.n_pairs), np.diff(rows))
    column = table.offsets[joint.parent[pair_of_row]] + np.arange(rows[-1]) - rows[pair_of_row]
    marginal = table.counts[:, column].T  # (sum_p K_parent, C), as parent_totals
    if np.any(joint.parent_totals() > marginal * (1 + 1e-9) + 1e-9):
        raise ValueError(
            "The AODE file's joint counts exceed its feature counts: they are not counts "
            "of the same rows; refit and save."
        )
    pair, cls_idx, u, v = joint.decode()
    n_features = joint.n_categories.size
    index = np.full(n_features * n_features, -1, dtype=np.int64)
    index[joint.parent * n_features + joint.child] = np.arange(joint.n_pairs)
    reverse = index[joint.child[pair] * n_features + joint.parent[pair]]
    both = reverse >= 0  # a pair whose child may not be a parent is held one way only
    back = reverse[both]  # N_{c,u,v} of (i, j) is stored as N_{c,v,u} of (j, i)
    cell = joint.offsets[back] + v[both] * joint.n_categories[joint.child[back]] + u[both]
    mirrored = cell * joint.n_classes + cls_idx[both]
    order = np.argsort(mirrored, kind="stable")
    if not (
        np.array_equal(mirrored[order], joint.keys[both])
        and np.allclose(joint.counts[both][order], joint.counts[both], rtol=1e-12, atol=0)
    ):
        raise ValueError(
            "The AODE file's joint counts of a pair differ from those of its reverse: they "
            "are not counts of the same rows; refit and save."
        )


def _check_tables(data: dict, model: NaiveBayes) -> None:
    """The stored smoothed tables must be the re-smoothed ones (a file edited by hand is not)."""
    tables = _field(data, "tables", dict)
    C, V = model.feature_log_prob_.shape
    for key, expected in (
        ("class_log_prior", model.class_log_prior_),
        ("feature_log_prob", model.feature_log_prob_),
        ("feature_weights", model.feature_weights_),
    ):
        stored = _numbers(
            _field(tables, key, list, "tables"), f"tables.{key}", shape=expected.shape
        )
        if not np.allclose(stored, expected, rtol=TABLE_RTOL, atol=1e-12):
            raise ValueError(f"The stored {key} does not match the model's counts and parameters.")


def _header(data: Any) -> type:
    """The model class a file describes, after checking its format, version and keys."""
    if not isinstance(data, dict):
        raise ValueError("A model file must hold one JSON object.")
    if data.get("format") != FORMAT:
        raise ValueError(f"This is not a heb model file (its format must be {FORMAT!r}).")
    version = data.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:  # true and 1.0 equal 1
        shown = json.dumps(version)  # as the file spells it: true, not True
        shown = shown if len(shown) <= 20 else f"{shown[:19]}…"
        said = "names no schema_version" if version is None else f"has schema version {shown}"
        raise ValueError(f"The model file {said}; this heb reads version {SCHEMA_VERSION}.")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ValueError(
            f"The model file has unknown fields: {', '.join(sorted(map(str, unknown)))}."
        )
    name = _field(data, "model", str)
    if name not in _KINDS:
        raise ValueError(f"The model must be one of {', '.join(_KINDS)}, got {name!r}.")
    return _KINDS[name]


def _feature_names(data: dict, n_features: int) -> np.ndarray:
    names = _field(data, "feature_names", list)
    if len(names) != n_features or not all(isinstance(n, str) for n in names):
        raise ValueError("feature_names must hold one text per feature.")
    return np.array(names, dtype=object)


def from_dict(data: Any) -> Model:
    """A fitted model from :func:`to_dict`'s description, every field checked."""
    kind = _header(data)
    if PREPROCESSOR_KEY in data:
        raise ValueError(
            "This file holds a make_model pipeline (a preprocessor section): load it with "
            "heb.data.pipeline_io.load (or loads)."
        )
    model = kind(**_params(data, kind))
    classes = _classes(data)
    table = _count_table(data, classes.size)
    try:
        if isinstance(model, NaiveBayes):
            model.fit_counts(table, classes)
        else:
            model.fit_counts(table, _joint(data, model, table), classes)
    except TypeError:
        raise ValueError("A parameter of the model file has the wrong type.") from None
    if "feature_names" in data:
        model.feature_names_in_ = _feature_names(data, table.n_features)
    if isinstance(model, NaiveBayes):
        _check_tables(data, model)
    return model
