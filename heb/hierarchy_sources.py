"""Where category hierarchies come from: a parent column, a rule on labels, detected FDs.

Every helper returns the levels :mod:`heb.hierarchy` reads (``levels[0][v]``: the level-1
code of leaf code v; ``levels[j][g]``: the level-(j + 1) code of level-j code g).

- :func:`levels_from_parent_column`: a declared parent column (codes of both columns);
- :func:`levels_from_labels`: functions of a category's label, finest first (a ZIP
  prefix, a path's first segments, a domain's suffix); :func:`prefix_levels` for prefixes;
- :func:`functional_dependencies`: pairs of columns where every value of A maps to one
  value of B (B coarser), exactly or up to a share of violating rows, and
  :func:`dependency_chains` / :func:`levels_from_chain` to turn them into hierarchies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from heb.counts import as_codes

__all__ = [
    "Dependency",
    "dependency_chains",
    "functional_dependencies",
    "levels_from_chain",
    "levels_from_labels",
    "levels_from_parent_column",
    "prefix_levels",
]


def _pair_table(child: np.ndarray, parent: np.ndarray):
    """Distinct (child, parent) pairs of the rows where both are observed, with counts.

    Returns child codes, parent codes and row counts of each pair, sorted by child then
    by decreasing count (so the first pair of each child is its most frequent parent;
    ties go to the smallest parent code).
    """
    both = (child >= 0) & (parent >= 0)
    c, p = child[both], parent[both]
    width = int(p.max(initial=0)) + 1
    pairs, counts = np.unique(c * width + p, return_counts=True)
    pc, pp = pairs // width, pairs % width
    order = np.lexsort((pp, -counts, pc))
    return pc[order], pp[order], counts[order]


def levels_from_parent_column(
    child_codes, parent_codes, n_child: int | None = None, *, strict: bool = False
) -> np.ndarray:
    """The level array mapping each child code to its parent code (the most frequent one).

    Parameters
    ----------
    child_codes, parent_codes : array-like (n,)
        Integer codes of the two columns (negative = missing).
    n_child : int, optional
        Number of child codes to cover (default: max child code + 1).
    strict : bool
        Raise if a child value appears with more than one parent value.

    Returns
    -------
    ndarray (n_child,) of int64
        A child never seen with an observed parent gets a group of its own, numbered after
        the parent column's codes.
    """
    child = as_codes(np.asarray(child_codes).reshape(-1, 1), name="child_codes").ravel()
    parent = as_codes(np.asarray(parent_codes).reshape(-1, 1), name="parent_codes").ravel()
    if child.shape != parent.shape:
        raise ValueError("child_codes and parent_codes must have the same length.")
    n_child = int(child.max(initial=-1)) + 1 if n_child is None else int(n_child)
    pc, pp, _ = _pair_table(child, parent)
    first = np.ones(pc.size, dtype=bool)
    first[1:] = pc[1:] != pc[:-1]
    if strict and not first.all():
        bad = np.unique(pc[~first])
        raise ValueError(
            f"{bad.size} child categories (codes {bad[:5].tolist()}...) appear with more "
            "than one parent: the parent column is not a function of the child column."
        )
    out = np.full(n_child, -1, dtype=np.int64)
    keep = first & (pc < n_child)
    out[pc[keep]] = pp[keep]
    orphans = np.flatnonzero(out < 0)
    out[orphans] = int(parent.max(initial=-1)) + 1 + np.arange(orphans.size)
    return out


def levels_from_labels(labels: Sequence, keys: Sequence[Callable]) -> list[np.ndarray]:
    """Levels from functions of the category labels, finest first.

    Parameters
    ----------
    labels : sequence
        The label of each leaf code, in code order.
    keys : sequence of callables
        ``keys[j](label)`` is the level-(j + 1) group of a leaf (for example
        ``lambda z: z[:3]`` then ``lambda z: z[:1]``). Groups are coded in sorted order.
        Each level must nest in the next: leaves of one group share the coarser key.

    Returns
    -------
    list of int64 arrays
    """
    if not keys:
        raise ValueError("levels_from_labels needs at least one key function.")
    if not len(labels):
        raise ValueError("levels_from_labels needs at least one category label.")
    keyed = [np.array([str(key(label)) for label in labels]) for key in keys]
    levels, below = [], np.arange(len(labels))
    for j, key_values in enumerate(keyed):
        codes = np.unique(key_values, return_inverse=True)[1]
        if j == 0:
            levels.append(codes.astype(np.int64))
        else:
            # the parent of each level-j node: its members must agree
            node_parent = np.full(int(below.max()) + 1, -1, dtype=np.int64)
            node_parent[below] = codes
            if np.any(node_parent[below] != codes):
                raise ValueError(f"Level {j + 1} does not nest in level {j + 2}: a group splits.")
            levels.append(node_parent)
        below = codes
    return levels


def prefix_levels(labels: Sequence, lengths: Sequence[int]) -> list[np.ndarray]:
    """Levels from string prefixes of decreasing ``lengths`` (ZIP 02139 -> 021 -> 0)."""
    lengths = [int(n) for n in lengths]
    if min(lengths, default=0) < 1 or np.any(np.diff(lengths) >= 0):
        raise ValueError("prefix lengths must be positive and strictly decreasing.")
    return levels_from_labels(labels, [lambda s, n=n: str(s)[:n] for n in lengths])


@dataclass(frozen=True)
class Dependency:
    """Column ``child`` determines column ``parent`` (up to ``violating_rows``)."""

    child: int
    parent: int
    child_name: str
    parent_name: str
    n_child: int
    n_parent: int
    violating_categories: int
    violating_rows: int
    share: float

    def __str__(self) -> str:
        exact = "exact" if self.violating_rows == 0 else f"{self.share:.2%} rows violate"
        return (
            f"{self.child_name} ({self.n_child}) -> {self.parent_name} ({self.n_parent}), {exact}"
        )


def functional_dependencies(
    codes,
    names: Sequence[str] | None = None,
    tolerance: float = 0.0,
    min_rows_per_value: float = 2.0,
) -> list[Dependency]:
    """Pairs (A, B) of columns where B is a function of A and coarser.

    Over the rows where both are observed, a row *violates* when its B differs from the
    most frequent B of its A value. A -> B holds when the violating rows are at most
    ``tolerance`` times those of the best guess knowing nothing of A (the rows off B's
    most frequent value), i.e. Goodman and Kruskal's lambda of B given A is at least
    ``1 - tolerance``; 0 asks for an exact dependency. B must have at least two distinct
    values and fewer than A, and A at least ``min_rows_per_value`` rows per value (an
    ID-like column, one row per value, determines every other column trivially). One
    :func:`numpy.unique` per ordered pair of columns.

    Returns
    -------
    list of Dependency, sorted by child column, then finest parent first.
    """
    X = as_codes(codes, name="codes")
    F = X.shape[1]
    names = [str(i) for i in range(F)] if names is None else [str(s) for s in names]
    if len(names) != F:
        raise ValueError(f"names needs one name per column ({F}).")
    if not 0 <= tolerance < 1:
        raise ValueError("tolerance must lie in [0, 1).")
    observed = X >= 0
    distinct = np.array([np.unique(X[observed[:, f], f]).size for f in range(F)])
    found = []
    for a in range(F):
        if observed[:, a].sum() < min_rows_per_value * distinct[a]:
            continue
        for b in range(F):
            if a == b or not 2 <= distinct[b] < distinct[a]:
                continue
            pc, pp, counts = _pair_table(X[:, a], X[:, b])
            first = np.ones(pc.size, dtype=bool)
            first[1:] = pc[1:] != pc[:-1]
            rows = int(counts.sum())
            violating = rows - int(counts[first].sum())
            blind = rows - int(np.bincount(pp, counts).max(initial=0))
            if blind > 0 and violating <= tolerance * blind:
                found.append(
                    Dependency(
                        a, b, names[a], names[b], int(distinct[a]), int(distinct[b]),
                        int(np.unique(pc[~first]).size), violating, violating / rows,
                    )
                )  # fmt: skip
    return sorted(found, key=lambda d: (d.child, -d.n_parent))


def dependency_chains(dependencies: Sequence[Dependency]) -> dict[int, list[int]]:
    """For each child column, its chain of ever coarser parents.

    From a column, the next parent is its finest dependent column (most distinct values);
    the chain follows the dependencies of that parent in turn.
    """
    finest = {}
    for dep in dependencies:
        best = finest.get(dep.child)
        if best is None or dep.n_parent > best.n_parent:
            finest[dep.child] = dep
    chains = {}
    for child in finest:
        chain, node = [], child
        while node in finest and finest[node].parent not in chain:
            node = finest[node].parent
            chain.append(node)
        chains[child] = chain
    return chains


def levels_from_chain(codes, child: int, chain: Sequence[int]) -> list[np.ndarray]:
    """The levels of column ``child`` from its parent chain (codes of every column).

    Level 1 maps the child's codes to the first parent's codes, level 2 the first
    parent's codes to the second's, and so on (most frequent parent, orphans alone).
    """
    X = as_codes(codes, name="codes")
    columns = [child, *chain]
    levels = []
    for below, above in zip(columns[:-1], columns[1:], strict=True):
        n_below = int(X[:, below].max(initial=-1)) + 1
        if levels:
            n_below = max(n_below, int(levels[-1].max()) + 1)
        levels.append(levels_from_parent_column(X[:, below], X[:, above], n_below))
    return levels
