"""HEB-H's ``hierarchies`` parameter as JSON, for model files (:mod:`heb.model_io`), and
:class:`~heb.hierarchical_nb.HierarchicalNaiveBayes`' ``parents`` (feature -> the feature
its first level is made of), an object of feature indices ``{"0": 1}``.

In JSON a hierarchy is an object from a feature index, written as decimal digits (JSON
keys are text), to its list of levels, each a list of whole non-negative numbers: the
parent code of every code of the level below (:mod:`heb.hierarchy`)::

    {"0": [[0, 0, 1, 1], [0, 0]]}

The levels are written as the model was given them (a first level that also names
categories not yet seen keeps them, for a later ``partial_fit``); on reading, the shapes
are checked here and the structure by :func:`heb.hierarchy.check_hierarchies`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from heb.hierarchy import Hierarchies

__all__ = ["hierarchies_to_json", "hierarchies_from_json", "parents_to_json", "parents_from_json"]


def hierarchies_to_json(hierarchies: Hierarchies) -> dict[str, list[list[int]]]:
    """``hierarchies`` (feature index -> levels) as a JSON-ready object.

    Raises
    ------
    ValueError
        A key that is not a feature index, or a level that is not 1-D whole numbers.
    """
    out: dict[str, list[list[int]]] = {}
    for key, levels in hierarchies.items():
        if isinstance(key, bool) or not isinstance(key, int | np.integer):
            raise ValueError(f"hierarchies: feature {key!r} is not an index.")
        if isinstance(levels, np.ndarray) and levels.ndim == 1:
            levels = [levels]
        written = []
        for level in levels:
            array = np.asarray(level)
            if array.ndim != 1 or array.dtype.kind not in "iu":
                raise ValueError(f"hierarchies: a level of feature {int(key)} is not 1-D integers.")
            written.append(array.astype(np.int64).tolist())
        out[str(int(key))] = written
    return out


def _feature_index(key: str, what: str) -> int:
    """A JSON key as a feature index: ASCII digits without a leading zero, or one
    ValueError sentence naming ``what`` (the parameter)."""
    if not (key.isascii() and key.isdigit()) or (len(key) > 1 and key[0] == "0"):
        raise ValueError(f"{what}: the key {key[:20]!r} is not a feature index.")
    return int(key)


def hierarchies_from_json(value: Any) -> dict[int, list[np.ndarray]]:
    """The ``hierarchies`` parameter from its JSON object (:func:`hierarchies_to_json`).

    Raises
    ------
    ValueError
        One sentence saying what is malformed (the levels' structure against the model's
        categories is checked when the model is fitted from its counts).
    """
    if not isinstance(value, dict):
        raise ValueError("The parameter 'hierarchies' must be an object or null.")
    out: dict[int, list[np.ndarray]] = {}
    for key, levels in value.items():
        feature = _feature_index(key, "hierarchies")
        if not isinstance(levels, list) or not levels:
            raise ValueError(f"hierarchies: feature {key} must hold a list of levels.")
        arrays = []
        for level in levels:
            if not isinstance(level, list) or not all(
                type(code) is int and 0 <= code < 2**62 for code in level
            ):
                raise ValueError(
                    f"hierarchies: each level of feature {key} must list whole numbers >= 0."
                )
            arrays.append(np.array(level, dtype=np.int64))
        out[feature] = arrays
    return out


def parents_to_json(parents: dict) -> dict[str, int]:
    """``parents`` (child feature -> parent feature) as a JSON-ready object."""
    return {str(int(child)): int(parent) for child, parent in parents.items()}


def parents_from_json(value: Any) -> dict[int, int]:
    """The ``parents`` parameter from its JSON object (:func:`parents_to_json`).

    Raises
    ------
    ValueError
        A key that is not a feature index, or a parent that is not a whole number >= 0.
    """
    if not isinstance(value, dict):
        raise ValueError("The parameter 'parents' must be an object or null.")
    out: dict[int, int] = {}
    for key, parent in value.items():
        feature = _feature_index(key, "parents")
        if type(parent) is not int or not 0 <= parent < 2**62:
            raise ValueError(f"parents: the parent of feature {key} must be a feature index.")
        out[feature] = parent
    return out
