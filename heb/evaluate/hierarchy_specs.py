"""Declared category hierarchies of a run: their text form and their levels on a fold.

A declaration names a feature column and either its chain of parent columns (each
coarser than the one before, e.g. ``ROLE_ROLLUP_2 -> ROLE_ROLLUP_1``) or the prefix
lengths of its labels, finest first (ZIP ``02139 -> 021 -> 0`` is ``prefix=(3, 1)``).
The declarations travel as one canonical JSON text (:func:`hierarchies_text`): it is a
field of :class:`~heb.evaluate.RunSettings` (so it enters the cache key of the methods
that read it, and the URL), and each training fold turns it into the levels
:class:`heb.nb.NaiveBayes` reads (:func:`fold_hierarchies`), from that fold's own codes:
a parent column by its most frequent value per child code
(:func:`heb.hierarchy_sources.levels_from_chain`), a prefix rule from the labels of the
fold's categories (:func:`heb.hierarchy_sources.prefix_levels`). A declaration whose
columns a fold lacks (or a prefix rule on a binned numeric column) is left out there.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from heb import registry
from heb.hierarchy import NESTED_RULE
from heb.hierarchy_sources import levels_from_chain, prefix_levels

__all__ = [
    "Declared",
    "HIERARCHY_PARAM",
    "MAX_DECLARED",
    "attach_hierarchies",
    "binned_columns",
    "command_line_options",
    "flat_declarations",
    "flat_levels",
    "fold_hierarchies",
    "hierarchies_text",
    "left_out_notes",
    "hierarchy_notes",
    "parse_hierarchies",
    "resolve_levels",
    "takes_hierarchies",
    "untypable",
    "with_fold_hierarchies",
]

#: the key of a method spec's params that holds the declarations (replaced per fold)
HIERARCHY_PARAM = "hierarchy_declared"
#: declarations one run may hold (a URL stays short)
MAX_DECLARED = 16
_MISSING_LABEL = "(missing)"
#: a step of :meth:`Declared.describe` that is a prefix length
_PREFIX_STEP = re.compile(r"prefix\s+(\d+)", re.IGNORECASE)
#: a step that starts as a prefix length does ("prefix two", "prefix 3.5", "Prefix-2")
_PREFIX_WORD = re.compile(r"prefix[\s:=-]+\S", re.IGNORECASE)


@dataclass(frozen=True)
class Declared:
    """One declared hierarchy: ``feature`` with its parent columns or prefix lengths."""

    feature: str
    parents: tuple[str, ...] = ()
    prefix: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "feature", str(self.feature))
        set_(self, "parents", tuple(str(p) for p in self.parents))
        if not self.feature:
            raise ValueError("A hierarchy needs the name of its feature column.")
        if bool(self.parents) == bool(self.prefix):
            raise ValueError(
                f"The hierarchy of {self.feature!r} needs either parent columns or prefix lengths."
            )
        if self.feature in self.parents or len(set(self.parents)) != len(self.parents):
            raise ValueError(
                f"The parent columns of {self.feature!r} must be other, distinct columns."
            )
        lengths = []
        for value in self.prefix:
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"Prefix lengths of {self.feature!r} must be whole numbers.")
            lengths.append(int(value))
        if lengths and (min(lengths) < 1 or np.any(np.diff(lengths) >= 0)):
            raise ValueError(
                f"Prefix lengths of {self.feature!r} must be positive and strictly decreasing."
            )
        set_(self, "prefix", tuple(lengths))

    def as_dict(self) -> dict:
        """The JSON form: ``{"feature": ..., "parents": [...]}`` or ``{..., "prefix": [...]}``."""
        if self.parents:
            return {"feature": self.feature, "parents": list(self.parents)}
        return {"feature": self.feature, "prefix": list(self.prefix)}

    def describe(self) -> str:
        """``zip_code -> prefix 3 -> prefix 1`` or ``A -> B -> C``."""
        steps = self.parents or tuple(f"prefix {n}" for n in self.prefix)
        return " -> ".join((self.feature, *steps))

    @classmethod
    def from_text(cls, text: str) -> Declared:
        """The declaration :meth:`describe` writes: ``A -> B -> C`` (parent columns,
        finest first) or ``zip_code -> prefix 3 -> prefix 1`` (prefix lengths); ``>``
        may stand for ``->`` in a text without ``->`` (so a name holding ``>`` is
        declared with ``->``: ``a>b -> c``).

        Raises
        ------
        ValueError
            With one sentence saying what is malformed.
        """
        text = str(text)
        steps = [s.strip() for s in text.split("->" if "->" in text else ">")]
        if len(steps) < 2 or not all(steps):
            raise ValueError(
                f"A hierarchy reads 'column -> parent -> ...' or 'column -> prefix 3 -> "
                f"prefix 1', not {text!r}."
            )
        feature, rest = steps[0], steps[1:]
        typo = next(
            (s for s in rest if _PREFIX_WORD.match(s) and not _PREFIX_STEP.fullmatch(s)), None
        )
        if typo is not None:  # read as a parent column, refused as "no column 'prefix two'"
            raise ValueError(
                f"{typo!r} in the hierarchy {str(text)!r} is no prefix length; write a whole "
                "number of characters, such as 'prefix 3'."
            )
        lengths = [_PREFIX_STEP.fullmatch(s) for s in rest]
        if all(lengths):
            return cls(feature, prefix=tuple(int(m.group(1)) for m in lengths))
        if any(lengths):
            raise ValueError(
                f"The hierarchy {text!r} mixes parent columns and prefix lengths; "
                "give one or the other."
            )
        return cls(feature, parents=tuple(rest))


def binned_columns(
    item: Declared, names: Sequence[str], labels_of: Callable[[int], Sequence | None]
) -> list[str]:
    """The columns of a parent chain that are binned numbers on this encoding
    (``labels_of`` gives None, as for :func:`resolve_levels`): the chain then groups
    quantile bins, not the values (the amazon file's role codes, read as numbers)."""
    position = {str(name): f for f, name in enumerate(names)}
    columns = (item.feature, *item.parents) if item.parents else ()
    if any(c not in position for c in columns):  # left out here: resolve_levels says why
        return []
    return [c for c in columns if labels_of(position[c]) is None]


def flat_levels(levels: Sequence[np.ndarray]) -> str | None:
    """Why a hierarchy's levels (:func:`resolve_levels`' for one feature) make no groups,
    or None: at every level each node is a group of its own or all share one (a prefix as
    long as the labels, a prefix every label shares), so HEB-H is HEB-M on it."""
    sizes = [(len(level), int(np.unique(level).size)) for level in levels]
    if not sizes or any(1 < out < n for n, out in sizes):
        return None
    if all(out == n for n, out in sizes):
        return "each value is a group of its own"
    if all(out == 1 for _, out in sizes):
        return "every value falls in one group"
    return "its groups are single values or all of them"


def command_line_options(declared: Iterable[Declared]) -> list[str]:
    """Each declaration as the ``--hierarchy`` option of ``heb bench`` / ``heb fit``, quoted
    for a shell: ``--hierarchy 'zip_code -> prefix 2'``; those :func:`untypable` left out."""
    return [f"--hierarchy {shlex.quote(d.describe())}" for d in declared if _typable(d)]


def untypable(declared: Iterable[Declared]) -> list[Declared]:
    """The declarations whose text (:meth:`Declared.describe`) reads back as another or
    none (:meth:`Declared.from_text`): a column name holding ``->`` or beginning
    ``prefix``, which the app can declare and ``--hierarchy`` cannot type."""
    return [item for item in declared if not _typable(item)]


def _typable(item: Declared) -> bool:
    """Whether ``item``'s text reads back as ``item`` (:func:`untypable`)."""
    try:
        return Declared.from_text(item.describe()) == item
    except ValueError:
        return False


def flat_declarations(
    declared: Iterable[Declared], levels: dict[int, list[np.ndarray]], names: Sequence
) -> list[tuple[Declared, str]]:
    """Each declaration whose levels (:func:`resolve_levels`' on the encoding whose
    columns are ``names``) make no groups, and why (:func:`flat_levels`): HEB-H is HEB-M
    on its column."""
    position = {str(name): f for f, name in enumerate(names)}
    out = []
    for item in declared:
        f = position.get(item.feature)
        why = flat_levels(levels[f]) if f in levels else None
        if why:
            out.append((item, why))
    return out


def parse_hierarchies(text: str | None) -> tuple[Declared, ...]:
    """The declarations of a :func:`hierarchies_text` (empty text: none).

    Raises
    ------
    ValueError
        With one sentence saying what is malformed.
    """
    if not text:
        return ()
    try:
        items = json.loads(text)
    except (TypeError, ValueError):
        raise ValueError("The hierarchies must be a JSON list of declarations.") from None
    if not isinstance(items, list) or len(items) > MAX_DECLARED:
        raise ValueError(f"The hierarchies must be a JSON list of at most {MAX_DECLARED} items.")
    out = []
    for item in items:
        if not isinstance(item, dict) or set(item) - {"feature", "parents", "prefix"}:
            raise ValueError(
                "Each hierarchy must read {'feature': ..., 'parents' or 'prefix': [...]}."
            )
        parents, prefix = item.get("parents", []), item.get("prefix", [])
        if not isinstance(parents, list) or not isinstance(prefix, list):
            raise ValueError("A hierarchy's parents and prefix must be lists.")
        out.append(Declared(item.get("feature", ""), tuple(parents), tuple(prefix)))
    return tuple(out)


def hierarchies_text(declared: Iterable[Declared]) -> str:
    """The canonical text of declarations: one per feature (the last given wins), sorted."""
    by_feature = {d.feature: d for d in declared}
    if len(by_feature) > MAX_DECLARED:
        raise ValueError(f"At most {MAX_DECLARED} hierarchies can be declared.")
    if not by_feature:
        return ""
    items = [by_feature[name].as_dict() for name in sorted(by_feature)]
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


def resolve_levels(
    declared: Sequence[Declared],
    names: Sequence[str],
    codes: np.ndarray,
    labels_of: Callable[[int], Sequence | None],
) -> tuple[dict[int, list[np.ndarray]], list[str]]:
    """Levels per feature index on one encoding, and a note per declaration left out.

    Parameters
    ----------
    declared : sequence of Declared
    names : sequence of str
        The encoded columns' names (the order of ``codes``' columns).
    codes : ndarray (n, F)
        Training codes (parent chains take each child code's most frequent parent).
    labels_of : callable
        ``labels_of(f)``: the label of every code of column f, or None when its codes are
        not labels (binned numbers: no prefix rule).
    """
    position = {str(name): f for f, name in enumerate(names)}
    gone = left_out_notes(declared, names, labels_of)
    out = {}
    for item in declared:
        if item in gone:
            continue
        f = position[item.feature]
        if item.parents:
            out[f] = levels_from_chain(codes, f, [position[p] for p in item.parents])
        else:
            out[f] = prefix_levels([str(label) for label in labels_of(f)], item.prefix)
    return out, [gone[item] for item in declared if item in gone]


def left_out_notes(
    declared: Sequence[Declared], names: Sequence[str], labels_of: Callable[[int], Sequence | None]
) -> dict[Declared, str]:
    """The declarations :func:`resolve_levels` leaves out on an encoding, each with its
    note (a column not there, a prefix of binned numbers), without building any levels."""
    position = {str(name): f for f, name in enumerate(names)}
    out = {}
    for item in declared:
        missing = [c for c in (item.feature, *item.parents) if c not in position]
        if missing:
            out[item] = f"{item.describe()}: no column {missing[0]!r} here, left out."
        elif not item.parents and labels_of(position[item.feature]) is None:
            out[item] = f"{item.describe()}: {item.feature!r} is binned, not labelled; left out."
    return out


def _fold_labels(fold, f: int) -> np.ndarray | None:
    """The label of each of the fold's codes of column f (None for binned numbers)."""
    fitted = fold.encoding.fitted[f]
    column = fold.codes.columns[fitted.position]
    if fitted.table is None or column.labels is None:
        return None
    out = np.full(fitted.n, _MISSING_LABEL, dtype=object)
    code = fitted.table[: column.n_values]
    present = code < fitted.n
    out[code[present]] = column.labels[present]
    return out


def fold_hierarchies(text: str, fold) -> dict[int, list[np.ndarray]]:
    """The levels of ``text``'s declarations on one prepared fold's training codes."""
    declared = parse_hierarchies(text)
    if not declared:
        return {}
    names = fold.encoding.feature_names_out_
    needs_codes = any(d.parents for d in declared)
    codes = fold.train_codes if needs_codes else np.zeros((0, len(names)), dtype=np.int64)
    return resolve_levels(declared, names, codes, lambda f: _fold_labels(fold, f))[0]


def takes_hierarchies(method: str) -> bool:
    """Whether the registry method ``method`` reads a category hierarchy (HEB-H)."""
    entry = registry.method(method)
    return _reads_hierarchy(entry.family, entry.params)


def _reads_hierarchy(family: str, params: dict) -> bool:
    """Whether a method of ``family`` with ``params`` (a registry entry's, a spec's) has a
    smoother that reads a category hierarchy."""
    smoother = params.get("smoother") if family == "nb" else None
    return smoother is not None and registry.smoother(smoother).rule == NESTED_RULE


def attach_hierarchies(specs: dict[str, dict], text: str) -> dict[str, dict]:
    """Method specs with the declarations added to those whose smoother takes a hierarchy
    (so they enter those methods' cache keys, and no other's)."""
    if not text:
        return specs
    out = {}
    for name, spec in specs.items():
        if _reads_hierarchy(spec["model"], spec["params"]):
            spec = {**spec, "params": {**spec["params"], HIERARCHY_PARAM: text}}
        out[name] = spec
    return out


def hierarchy_notes(specs: dict[str, dict]) -> list[str]:
    """One sentence per method whose smoother takes a hierarchy but was given none: it
    runs as HEB-M, so the two score alike, which reads as a mistake unless said.

    Parameters
    ----------
    specs : dict of str -> dict
        Method name -> spec, after :func:`attach_hierarchies`.

    Returns
    -------
    list of str
    """
    notes = []
    for name, spec in specs.items():
        if not _reads_hierarchy(spec["model"], spec["params"]):
            continue
        if HIERARCHY_PARAM not in spec["params"] and not spec["params"].get("hierarchies"):
            notes.append(
                f"{name} was given no category hierarchy, so it ran as HEB-M (the same "
                "numbers): declare one (on the app's Dataset page, --hierarchy on the "
                "command line, RunSettings(hierarchies=...) in Python) for it to borrow along."
            )
    return notes


def with_fold_hierarchies(params: dict, fold) -> dict:
    """``params`` with the declarations replaced by their levels on ``fold``."""
    if HIERARCHY_PARAM not in params:
        return params
    params = dict(params)
    return params | {"hierarchies": fold_hierarchies(params.pop(HIERARCHY_PARAM), fold)}
