"""``--hierarchy`` of ``heb bench`` and ``heb fit``: HEB-H's category hierarchies typed on
the command line, as the app's Dataset page declares them.

A hierarchy is written as the app shows it (:meth:`Declared.describe`): a column and its
parent columns, finest first (``--hierarchy "ROLE_ROLLUP_2 -> ROLE_ROLLUP_1"``), or a
column and the prefix lengths of its labels (``--hierarchy "zip -> prefix 3 -> prefix 1"``);
``>`` may stand for ``->`` in a text without ``->``. Without one HEB-H is HEB-M, which the
run says; one that cannot apply, groups bins of numbers or makes no groups is said too.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Sequence

import numpy as np

from heb import registry
from heb.cli_columns import column_list
from heb.evaluate.hierarchy_model import code_labels
from heb.evaluate.hierarchy_specs import (
    Declared,
    binned_columns,
    flat_declarations,
    hierarchies_text,
    parse_hierarchies,
    resolve_levels,
    takes_hierarchies,
)

__all__ = [
    "add_hierarchy_option",
    "binned_notes",
    "checked_levels",
    "flat_notes",
    "cannot_apply",
    "hierarchies_option",
    "hierarchy_levels",
    "is_file_data",
    "reads_back_as_column",
    "takes_hierarchies",
]

_HELP = (
    "a category hierarchy for HEB-H, as the app writes it: 'COLUMN -> PARENT [-> ...]' "
    "(parent columns, finest first) or 'COLUMN -> prefix 3 -> prefix 1' (prefixes of its "
    "labels); repeatable, one per column (without one HEB-H is HEB-M)"
)


def add_hierarchy_option(parser: argparse.ArgumentParser) -> None:
    """Add the repeatable ``--hierarchy`` option to a subcommand's parser."""
    parser.add_argument(
        "--hierarchy", action="append", default=[], metavar="'COL -> PARENT'", help=_HELP
    )


def hierarchies_option(values: Sequence[str], methods: Sequence[str]) -> str:
    """The canonical text (:func:`hierarchies_text`) of the ``--hierarchy`` values, ``""``
    for none.

    Raises
    ------
    ValueError
        A malformed value, or values given while none of ``methods`` takes a hierarchy
        (they would change nothing).
    """
    if not values:
        return ""
    if not any(takes_hierarchies(m) for m in methods):
        taking = [m.name for m in registry.METHODS.values() if takes_hierarchies(m.name)]
        raise ValueError(
            f"--hierarchy is read by {' and '.join(taking)} alone, not by "
            f"{', '.join(registry.method(m).name for m in methods)}; choose it or leave "
            "--hierarchy out."
        )
    declared = [Declared.from_text(value) for value in values]
    for i, item in enumerate(declared):  # the canonical text keeps one: the last given
        again = next(
            (d for d in declared[i + 1 :] if d.feature == item.feature and d != item), None
        )
        if again is not None:
            raise ValueError(
                f"--hierarchy gives {item.feature!r} two hierarchies ({item.describe()!r} and "
                f"{again.describe()!r}); give one per column."
            )
    return hierarchies_text(declared)


def hierarchy_levels(
    text: str, preprocessor, X, target: str | None = None
) -> tuple[dict[int, list[np.ndarray]], list[tuple[str, str]]]:
    """The levels of ``text``'s declarations on the codes of a fitted ``preprocessor``
    (:class:`heb.data.Preprocessor`) for ``NaiveBayes(hierarchies=...)``, and for each
    declaration that cannot apply its text and why (the ``target`` column, a column the
    data lacks or the encoding left out, a prefix rule on a binned number)."""
    names = list(preprocessor.feature_names_out_)
    codes = preprocessor.transform(X)
    levels, left_out = {}, []
    for item in parse_hierarchies(text):
        if target is not None and str(target) in (item.feature, *item.parents):
            # not "no column here": the file has it, as the class to predict
            left_out.append((item.describe(), f"{str(target)!r} is the target, not a feature"))
            continue
        found, notes = resolve_levels([item], names, codes, code_labels(preprocessor))
        levels.update(found)
        if notes:  # "<the declaration>: <why>, left out."
            why = notes[0][len(item.describe()) + 2 :]
            left_out.append((item.describe(), re.sub(r"[,;] left out\.$", "", why)))
    return levels, left_out


def binned_notes(text: str, preprocessor, dataset: str, from_file: bool) -> list[str]:
    """A line per ``--hierarchy`` parent chain over binned numbers (the amazon file's role
    codes read as numbers): it runs, but groups quantile bins, not the values; for a file
    (``from_file``), with the ``--categorical`` that reads them as categories."""
    names = list(preprocessor.feature_names_out_)
    lines = []
    for item in parse_hierarchies(text):
        binned = binned_columns(item, names, code_labels(preprocessor))
        if binned:
            hint = f" ({categorical_hint(binned)})" if from_file else ""
            lines.append(
                f"  {dataset}: --hierarchy {item.describe()!r} groups the bins of "
                f"{' and '.join(repr(c) for c in binned)}, not their values{hint}."
            )
    return lines


def reads_back_as_column(name: str) -> bool:
    """Whether ``--categorical`` / ``--drop`` read ``name`` back as itself, as
    :func:`heb.cli_columns.column_list` writes it (a name holding a comma or spaces at its
    ends in double quotes): every name but an empty one, which they leave out."""
    return bool(name)


def categorical_hint(names: Sequence[str]) -> str:
    """ "pass --categorical a,b to read them as categories" for the names the option reads
    back as themselves, a name holding a comma quoted (``--categorical '"x,y"'``: unquoted,
    it read columns x and y); an empty name is said apart, with what reads it."""
    typable = [n for n in names if reads_back_as_column(n)]
    others = [n for n in names if n not in typable]
    parts = []
    if typable:
        them = "it" if len(typable) == 1 else "them"
        option = shlex.quote(column_list(typable))
        parts.append(f"pass --categorical {option} to read {them} as categories")
    if others:
        parts.append(
            "'' cannot be named by --categorical (a column without a name); in Python, "
            "load_dataset(..., categorical=[...]) reads it as categories"
        )
    return "; ".join(parts)


def is_file_data(dataset) -> bool:
    """Whether ``dataset`` was read from a file, where ``--categorical`` applies (a named
    dataset's columns are read as its source declares)."""
    return str(dataset.source).startswith("upload:")


def flat_notes(text: str, levels: dict[int, list[np.ndarray]], names, dataset: str) -> list[str]:
    """A line per ``--hierarchy`` whose levels make no groups (:func:`flat_declarations`: a
    prefix as long as the labels, or one every label shares): HEB-H is HEB-M on it."""
    return [
        f"  {dataset}: --hierarchy {item.describe()!r} makes no groups ({why}), so "
        f"HEB-H is HEB-M on {item.feature!r}."
        for item, why in flat_declarations(parse_hierarchies(text), levels, names)
    ]


def checked_levels(
    text: str, preprocessor, X, dataset
) -> tuple[dict[int, list[np.ndarray]], list[str], list[tuple[str, str]]]:
    """``bench``'s and ``fit``'s look at ``--hierarchy`` on one dataset's encoding: the
    levels (:func:`hierarchy_levels`), the lines to say (chains over binned numbers,
    hierarchies that make no groups) and the declarations that cannot apply, with why."""
    levels, left_out = hierarchy_levels(text, preprocessor, X, dataset.target)
    lines = binned_notes(text, preprocessor, dataset.name, is_file_data(dataset))
    lines += flat_notes(text, levels, preprocessor.feature_names_out_, dataset.name)
    return levels, lines, left_out


def cannot_apply(declared: str, why: str, dataset: str, from_file: bool) -> str:
    """The sentence refusing a declaration (:func:`hierarchy_levels`' ``left_out``) on
    the one dataset of a run; ``from_file``: --categorical applies to it (a named
    dataset's columns are read as its source declares, so the hint would not help)."""
    binned = "is binned" in why and from_file
    hint = " (pass --categorical to read it as categories)" if binned else ""
    return f"heb: --hierarchy {declared!r} cannot apply to {dataset}: {why}{hint}."
