"""The nodes of feature hierarchies, and HEB-H's base: each node's pooled share of its parent.

:class:`HierarchyNodes` lays out every node of every level of every feature in one
array, ordered by step from the root, so that HEB-H fits each level of all features at
once. :func:`base_shares` gives w(node), the share of its parent a node has in the
pooled (over classes) counts, which HEB-H's class-conditional splits shrink toward:

- ``"pooled"``: the empirical share N_node / N_parent (uniform over the parent's
  children where the parent has no row); a child with no row gets 0;
- ``"learned"`` (HEB-H's default): a node under the root keeps N_node / S_f, HEB-M's
  pooled-marginal plug-in; below, the pooled split of a parent among its n children has a
  symmetric Dirichlet(b / n, ..., b / n) prior, b learned per (feature, level) by
  Type-II ML over the pooled counts with the parents as documents (the solver of
  :mod:`heb.concentration`, as HEB-AODE's multi-document fit), and w is its posterior mean
  ``(N_node + b / n) / (N_parent + b)``. This is the third layer of the nested Dirichlet
  (MacKay and Peto 1995) and our extension beyond the paper (SPEC is silent): a parent
  seen in a few rows no longer hands its whole mass to the one or two children those rows
  show, and children with no row share ``b / (N_parent + b)`` of it. Where a feature has
  fewer than n0 rows, or flat evidence (every parent with at most one row), b = n
  (Laplace within each parent). A child alone under its parent always gets w = 1.

A level with a single node is the feature's root itself and adds nothing:
:func:`without_root_levels` drops it (and any level above it), so a hierarchy with one
group holding every category is no hierarchy at all (HEB-M).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heb.concentration import fit_concentration_segments
from heb.counts import CountTable

__all__ = ["BASES", "BaseShares", "HierarchyNodes", "base_shares", "without_root_levels"]

BASES = ("learned", "pooled")


def without_root_levels(levels: dict[int, list]) -> dict[int, list]:
    """The levels of each feature cut below its first level of a single node.

    A feature left with no level (its level 1 is one group holding every category) is
    dropped: HEB-H smooths it as HEB-M.
    """
    out = {}
    for f, chain in levels.items():
        n_nodes = [lv.size for lv in chain[1:]] + [int(chain[-1].max(initial=-1)) + 1]
        keep = next((j for j, n in enumerate(n_nodes) if n <= 1), len(chain))
        if keep:
            out[f] = chain[:keep]
    return out


@dataclass(frozen=True)
class HierarchyNodes:
    """Every node of every level of every feature, ordered by step from the root.

    Step s holds level ``L_f - s`` of each feature with ``L_f >= s`` (step 0: the top
    levels; a feature without a hierarchy has its leaves at step 0).
    """

    feature: np.ndarray  # (G,)
    level: np.ndarray  # (G,)
    parent: np.ndarray  # (G,) global id, -1 under the root
    step_bounds: np.ndarray  # (n_steps + 1,)
    leaf: np.ndarray  # (V,) global id of each table column
    depth: np.ndarray  # (F,) L_f, the leaves' step

    @classmethod
    def build(cls, table: CountTable, levels: dict[int, list]) -> HierarchyNodes:
        """The nodes of ``table``'s features under checked ``levels`` (feature -> levels)."""
        F = table.n_features
        depth = np.array([len(levels.get(f, ())) for f in range(F)], dtype=np.int64)
        sizes = [
            [int(table.n_categories[f])] + [lv.size for lv in levels.get(f, [])[1:]]
            + ([int(levels[f][-1].max(initial=-1)) + 1] if f in levels else [])
            for f in range(F)
        ]  # fmt: skip
        start = {}  # (f, level) -> global id of the first node
        feature, level, bounds = [], [], [0]
        for s in range(int(depth.max(initial=0)) + 1):
            position = bounds[-1]
            for f in np.flatnonzero(depth >= s):
                lv = int(depth[f]) - s
                start[f, lv] = position
                position += sizes[f][lv]
                feature.append(np.full(sizes[f][lv], f))
                level.append(np.full(sizes[f][lv], lv))
            bounds.append(position)
        parent = np.full(bounds[-1], -1, dtype=np.int64)
        for (f, lv), first in start.items():
            if lv < depth[f]:
                parent[first : first + sizes[f][lv]] = start[f, lv + 1] + levels[f][lv]
        leaf = np.concatenate([start[f, 0] + np.arange(sizes[f][0]) for f in range(F)])
        return cls(
            np.concatenate(feature),
            np.concatenate(level),
            parent,
            np.asarray(bounds, dtype=np.int64),
            leaf.astype(np.int64),
            depth,
        )

    @property
    def step(self) -> np.ndarray:
        """(G,) the step of every node."""
        return np.repeat(np.arange(self.step_bounds.size - 1), np.diff(self.step_bounds))

    @property
    def parent_key(self) -> np.ndarray:
        """(G,) one key per parent: its global id, or G + f for feature f's root."""
        return np.where(self.parent < 0, self.feature.size + self.feature, self.parent)

    @property
    def siblings(self) -> np.ndarray:
        """(G,) the number of children of every node's parent, the node included."""
        key = self.parent_key
        return np.bincount(key)[key].astype(np.float64)

    def aggregate(self, leaf_counts: np.ndarray) -> np.ndarray:
        """(C, G) counts of every node: the sums of the leaf counts below it."""
        C, G = leaf_counts.shape[0], self.feature.size
        counts = np.zeros((C, G))
        counts[:, self.leaf] = leaf_counts
        rows = np.arange(C)[:, None] * G
        for h in range(1, int(self.depth.max(initial=0)) + 1):
            child = np.flatnonzero((self.level == h - 1) & (self.depth[self.feature] >= h))
            index = (rows + self.parent[child]).ravel()
            counts += np.bincount(index, counts[:, child].ravel(), C * G).reshape(C, G)
        return counts

    def down(self, share: np.ndarray) -> np.ndarray:
        """(..., G) products of ``share`` from the root down to every node."""
        out = np.ones_like(share)
        for s in range(self.step_bounds.size - 1):
            cols = np.arange(self.step_bounds[s], self.step_bounds[s + 1])
            above = np.where(self.parent[cols] < 0, 1.0, out[..., np.maximum(self.parent[cols], 0)])
            out[..., cols] = above * share[..., cols]
        return out


@dataclass(frozen=True)
class BaseShares:
    """w(node) of every node and the base concentration b of every (step, feature).

    Attributes
    ----------
    share : ndarray (G,)
    concentration : ndarray (n_steps, F)
        b learned for the split of each feature's parents at that step; NaN where nothing
        was learned (no parent below the root, the ``"pooled"`` base) or b = n was used
        (``fallback``).
    fallback : ndarray (n_steps, F) of bool
    """

    share: np.ndarray
    concentration: np.ndarray
    fallback: np.ndarray

    def records(self, nodes: HierarchyNodes) -> dict[str, np.ndarray]:
        """One entry per (feature, level) whose nodes hang from parents below the root:
        ``feature``, ``level`` (0 = leaves), ``b`` (NaN where the fallback b = n was used,
        or for the "pooled" base) and ``fallback``."""
        step, feature = np.nonzero(
            nodes.depth[None, :] >= np.arange(1, self.fallback.shape[0])[:, None]
        )
        step += 1
        return {
            "feature": feature,
            "level": nodes.depth[feature] - step,
            "b": self.concentration[step, feature],
            "fallback": self.fallback[step, feature],
        }


def base_shares(
    nodes: HierarchyNodes,
    pooled: np.ndarray,
    base: str = "learned",
    n0: float = 10,
    m_min: float = 1e-2,
    m_max: float = 1e4,
) -> BaseShares:
    """Every node's share of its parent in the pooled counts (module doc).

    Parameters
    ----------
    nodes : HierarchyNodes
    pooled : ndarray (G,)
        Every node's count summed over classes.
    base : {"learned", "pooled"}
    n0, m_min, m_max : float
        The low-count threshold and the clamp of b.

    Returns
    -------
    BaseShares
    """
    if base not in BASES:
        raise ValueError(f"base must be one of {BASES}, got {base!r}.")
    F, n_steps = nodes.depth.size, nodes.step_bounds.size - 1
    below = nodes.parent >= 0
    totals = np.bincount(nodes.feature[~below], pooled[~below], F)
    pooled_parent = np.where(below, pooled[np.maximum(nodes.parent, 0)], totals[nodes.feature])
    siblings = nodes.siblings
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(pooled_parent > 0, pooled / pooled_parent, 1.0 / siblings)
    none = np.full((n_steps, F), np.nan)
    if base == "pooled" or not below.any():
        return BaseShares(share, none, np.zeros((n_steps, F), dtype=bool))
    group = nodes.step * F + nodes.feature
    items = np.flatnonzero(below & (pooled > 0))
    first = np.unique(nodes.parent_key, return_index=True)[1]
    docs = first[below[first] & (pooled_parent[first] > 0)]
    fit = fit_concentration_segments(
        group[items], pooled[items], 1.0 / siblings[items],
        group[docs], pooled_parent[docs], n_steps * F, m_min, m_max,
    )  # fmt: skip
    has_parents = np.bincount(group[below], minlength=n_steps * F) > 0
    fallback = has_parents & ((np.tile(totals, n_steps) < n0) | fit.flat)
    b = np.where(fallback[group], siblings, fit.m[group])
    learned = (pooled + b / siblings) / (pooled_parent + b)
    concentration = np.where(has_parents & ~fallback, fit.m, np.nan).reshape(n_steps, F)
    return BaseShares(np.where(below, learned, share), concentration, fallback.reshape(n_steps, F))
