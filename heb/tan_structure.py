"""The structure of tree-augmented Naive Bayes: pair counts, conditional MI, the tree.

Friedman, Geiger and Goldszmidt (1997) give every feature the class and at most one
feature parent, the feature tree being a maximum spanning tree over the conditional
mutual information I(X_i; X_j | Y) of the training counts. This module holds the three
steps that find it:

- :class:`PairCounts`: the non-zero joint counts N_{y, x_i = u, x_j = v} of every feature
  pair i < j the memory caps allow (one table per unordered pair, in the layout of
  :class:`heb.joint_counts.JointCounts`, whose counting, merging and decoding it reuses);
- :func:`arc_gains`: the log-likelihood gain N I(X_i; X_j | Y) of every arc the caps allow;
- :func:`spanning_tree`: the tree, grown and oriented exactly as Weka 3.6's TAN search
  (``weka.classifiers.bayes.net.search.local.TAN``) grows and orients it, or re-rooted at
  a chosen feature.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from heb.counts import CountTable, category_offsets
from heb.joint_counts import JointCounts, check_total_cells

__all__ = ["PairCounts", "arc_gains", "spanning_tree", "tree_pair_counts"]

#: cells of one zero-padded block of :func:`_sequential_sums`
_SUM_BLOCK = 1 << 22


class PairCounts(JointCounts):
    """Joint counts of the unordered feature pairs (i < j) a TAN may link.

    Pair p stores N_{c, x_i = u, x_j = v} with ``parent[p] = i < child[p] = j`` (the
    names are the layout's: the tree's orientation is decided later). A pair is held when
    C K_i K_j <= ``max_joint_cells`` and at least one of the two features may be a tree
    parent (K <= ``max_parent_cardinality``); none is when the F (F - 1) ordered pairs
    exceed ``max_pairs`` (AODE's pair cap: the TAN is then Naive Bayes). Adding two
    tables (``partial_fit``) and widening the categories keep this layout.
    """

    @staticmethod
    def layout(n_categories, n_classes, max_parent_cardinality, max_joint_cells, max_pairs):
        """The pairs the caps allow, as (lower feature, higher feature, cell offsets)."""
        k = np.asarray(n_categories, dtype=np.int64)
        low, high = np.triu_indices(k.size, 1)
        cells = k[low] * k[high]
        keep = (np.minimum(k[low], k[high]) <= max_parent_cardinality) & (
            n_classes * cells.astype(np.float64) <= max_joint_cells
        )
        keep &= k.size * (k.size - 1) <= max_pairs
        low, high = low[keep], high[keep]
        offsets = category_offsets(cells[keep])
        check_total_cells(n_classes * float(offsets[-1]), "TAN")
        return low.astype(np.int64), high.astype(np.int64), offsets

    @classmethod
    def _of(cls, joint: JointCounts) -> PairCounts:
        return cls(*(getattr(joint, f.name) for f in fields(joint)))

    def relayout(self, n_categories) -> PairCounts:
        """The same counts in the layout of wider ``n_categories``."""
        return self._of(JointCounts.relayout(self, n_categories))

    def __add__(self, other: PairCounts) -> PairCounts:
        if not isinstance(other, PairCounts):
            return NotImplemented
        return self._of(JointCounts.__add__(self, other))


def _sequential_sums(segment: np.ndarray, terms: np.ndarray, n_segments: int) -> np.ndarray:
    """Left-to-right float sum of each segment's terms (``segment`` sorted), as Java sums.

    Each segment's terms go into one row of a zero-padded block whose running sum
    (``np.cumsum``, strictly sequential, unlike ``np.sum``'s pairwise summation) ends in
    the last column; blocks of rows bound the memory.
    """
    out = np.zeros(n_segments)
    if terms.size == 0:
        return out
    sizes = np.bincount(segment, minlength=n_segments)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    width = int(sizes.max())
    position = np.arange(terms.size) - starts[segment]
    rows_per_block = max(1, _SUM_BLOCK // width)
    for lo in range(0, n_segments, rows_per_block):
        hi = min(lo + rows_per_block, n_segments)
        pick = slice(starts[lo], starts[hi - 1] + sizes[hi - 1])
        block = np.zeros((hi - lo, width))
        block[segment[pick] - lo, position[pick]] = terms[pick]
        out[lo:hi] = np.cumsum(block, axis=1)[:, -1]
    return out


def _ordered_log_likelihood(pair, order_key, counts, config_total, n_pairs):
    """Per pair, sum n log(n / N_config) with the terms added in ``order_key`` order."""
    order = np.argsort(order_key)
    n = counts[order]
    terms = n * np.log(n / config_total[order])
    return _sequential_sums(pair[order], terms, n_pairs)


def _class_only_log_likelihood(n_pcx, rows, k, n_classes):
    """Per pair, sum n log(n / N_c) over (class, value) in that order, Weka's base score.

    ``n_pcx[(rows[p] + x) * C + c]`` counts the rows of pair p with class c and value x.
    """
    n_pairs = k.size
    cells = k * n_classes
    pair = np.repeat(np.arange(n_pairs), cells)
    within = np.arange(int(cells.sum())) - np.repeat(np.cumsum(cells) - cells, cells)
    cls, x = np.divmod(within, k[pair])
    n = n_pcx[(rows[pair] + x) * n_classes + cls]
    class_total = np.bincount(pair * n_classes + cls, n, n_pairs * n_classes)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(n > 0, n * np.log(n / class_total[pair * n_classes + cls]), 0.0)
    return _sequential_sums(pair, terms, n_pairs)


def arc_gains(pairs: PairCounts) -> tuple[np.ndarray, np.ndarray]:
    """Log-likelihood gain of every arc b -> a, and the rows it is counted on.

    ``gain[a, b]`` = LL(X_a | Y, X_b) - LL(X_a | Y) over the ``rows[a, b]`` training rows
    where both features are observed: ``rows * I(X_a; X_b | Y)``, the conditional mutual
    information of those rows. Each log-likelihood is summed term by term in the order
    of Weka's ``ENTROPY`` score (parent configurations class-major, then the node's
    values), so that arcs of equal information compare as in Weka (the two directions of
    one pair differ in the last bits). Pairs not held (over a cap) and the diagonal are NaN.

    Returns
    -------
    gain, rows : ndarray (F, F)
    """
    C, F, P = pairs.n_classes, pairs.n_categories.size, pairs.n_pairs
    gain, rows = np.full((F, F), np.nan), np.full((F, F), np.nan)
    if pairs.keys.size == 0:
        rows[pairs.parent, pairs.child] = rows[pairs.child, pairs.parent] = 0.0
        gain[pairs.parent, pairs.child] = gain[pairs.child, pairs.parent] = 0.0
        return gain, rows
    pair, cls_idx, u, v = pairs.decode()  # u: value of the lower feature, v: the higher's
    n = pairs.counts
    k = pairs.n_categories
    k_lo, k_hi = k[pairs.parent], k[pairs.child]
    rows_lo, rows_hi = category_offsets(k_lo), category_offsets(k_hi)
    at_u = (rows_lo[pair] + u) * C + cls_idx
    at_v = (rows_hi[pair] + v) * C + cls_idx
    n_pcu = np.bincount(at_u, n, int(rows_lo[-1]) * C)
    n_pcv = np.bincount(at_v, n, int(rows_hi[-1]) * C)
    # each pair's cells renumbered class-major: (c, parent value, node value)
    start = pairs.offsets[pair] * C + cls_idx * (k_lo * k_hi)[pair]
    hi_given_lo = _ordered_log_likelihood(pair, start + u * k_hi[pair] + v, n, n_pcu[at_u], P)
    lo_given_hi = _ordered_log_likelihood(pair, start + v * k_lo[pair] + u, n, n_pcv[at_v], P)
    hi_alone = _class_only_log_likelihood(n_pcv, rows_hi, k_hi, C)
    lo_alone = _class_only_log_likelihood(n_pcu, rows_lo, k_lo, C)
    gain[pairs.child, pairs.parent] = hi_given_lo - hi_alone
    gain[pairs.parent, pairs.child] = lo_given_hi - lo_alone
    n_rows = np.bincount(pair, n, P)
    rows[pairs.child, pairs.parent] = n_rows
    rows[pairs.parent, pairs.child] = n_rows
    return gain, rows


def _weka_links(weights: np.ndarray, nodes: np.ndarray) -> list[tuple[int, int]]:
    """Weka's TAN links among ``nodes``, in its order, as (link1, link2) pairs.

    Weka's search first takes the strongest arc, then repeatedly the strongest arc joining
    a linked feature to an unlinked one, scanning ordered pairs (a, b) row-major and
    keeping the first maximum; it records the pair as (link1, link2) = (b, a). Where
    the caps leave no arc out of the linked set, a new component starts from the
    strongest arc among the unlinked features.
    """
    usable = np.zeros(weights.shape, dtype=bool)
    usable[np.ix_(nodes, nodes)] = True
    usable &= ~np.isnan(weights)
    linked = np.zeros(weights.shape[0], dtype=bool)
    links = []
    for _ in range(max(nodes.size - 1, 0)):
        candidates = usable & (linked[:, None] ^ linked[None, :])
        if not candidates.any():
            candidates = usable & ~linked[:, None] & ~linked[None, :]
            if not candidates.any():
                break
        a, b = np.unravel_index(np.argmax(np.where(candidates, weights, -np.inf)), weights.shape)
        links.append((int(b), int(a)))
        linked[[a, b]] = True
    return links


def spanning_tree(
    weights: np.ndarray, can_parent: np.ndarray, root: int | None = None
) -> np.ndarray:
    """Each feature's tree parent (-1: none) from a maximum spanning tree of ``weights``.

    Parameters
    ----------
    weights : ndarray (F, F)
        Symmetric arc weights (conditional MI); NaN marks a pair that cannot be linked.
    can_parent : ndarray (F,) of bool
        Features allowed to be a parent. The others are attached as leaves, each to the
        linkable parent-capable feature of largest weight (none: no feature parent).
    root : int, optional
        ``None``: Weka's orientation. Weka links the ordered pairs (a, b) in the order of
        :func:`_weka_links` and records each as (b, a); then, link by link, b takes a as
        parent unless b has a parent already, in which case a takes b. The tree is thus
        rooted at a of the first (strongest) link, and the root moves to a feature c
        whenever a later link is found as the ordered pair (c, root). An int: the tree
        containing that feature is re-rooted there (it must be parent-capable).

    Returns
    -------
    ndarray (F,) of int
    """
    n_features = weights.shape[0]
    parent = np.full(n_features, -1, dtype=np.int64)
    core = np.flatnonzero(can_parent)
    for first, second in _weka_links(weights, core):
        if parent[first] < 0:
            parent[first] = second
        else:
            parent[second] = first
    leaves = np.flatnonzero(~can_parent)
    if leaves.size and core.size:
        options = weights[np.ix_(leaves, core)]
        linkable = ~np.isnan(options)
        best = np.argmax(np.where(linkable, options, -np.inf), axis=1)
        parent[leaves] = np.where(linkable.any(axis=1), core[best], -1)
    if root is not None:
        path = [int(root)]
        while parent[path[-1]] >= 0:
            path.append(int(parent[path[-1]]))
        for child, new_parent in zip(path[1:], path[:-1], strict=True):
            parent[child] = new_parent
        parent[root] = -1
    return parent


def tree_pair_counts(pairs: PairCounts, parent: np.ndarray, table: CountTable) -> JointCounts:
    """The counts of every factor of the model as arcs (parent, child) of a JointCounts.

    First an arc (``parent[j]``, j) for every feature j with a tree parent, in feature
    order, cells (u, v) = (parent value, child value), u-major; then one *class-only*
    arc per feature, from a virtual constant feature F (K = 1) appended to the
    categories, holding N_{c, j = v}: its table is the Naive Bayes factor P(x_j | y), and
    its cells lie where ``table``'s columns do, shifted by the tree arcs' cells. One
    smoothing pass (one Type-II ML solve for HEB) then serves every factor.
    """
    C = pairs.n_classes
    k = pairs.n_categories
    n_features = k.size
    child = np.flatnonzero(parent >= 0)
    arc_parent = parent[child]
    arc_cells = k[arc_parent] * k[child]
    offsets = category_offsets(np.concatenate([arc_cells, k]))
    arc_of = np.full((n_features, n_features), -1, dtype=np.int64)
    arc_of[arc_parent, child] = np.arange(child.size)
    pair, cls_idx, u, v = pairs.decode()
    low, high = pairs.parent[pair], pairs.child[pair]
    down = arc_of[low, high]  # the stored pair read as (parent = low, child = high)
    up = arc_of[high, low]  # ... or as (parent = high, child = low)
    arc = np.where(down >= 0, down, up)
    kept = arc >= 0
    arc, cls_idx = arc[kept], cls_idx[kept]
    u_par = np.where(down[kept] >= 0, u[kept], v[kept])
    v_chi = np.where(down[kept] >= 0, v[kept], u[kept])
    keys = (offsets[arc] + u_par * k[child[arc]] + v_chi) * C + cls_idx
    order = np.argsort(keys, kind="stable")
    single = table.counts.T.ravel()  # (column, class) order: sorted keys past the arcs
    single_keys = np.flatnonzero(single)
    return JointCounts(
        C,
        np.append(k, 1),
        pairs.max_parent_cardinality,
        pairs.max_joint_cells,
        pairs.max_pairs,
        np.append(arc_parent, np.full(n_features, n_features)),
        np.append(child, np.arange(n_features)),
        offsets,
        np.concatenate([keys[order], single_keys + int(offsets[child.size]) * C]),
        np.concatenate([pairs.counts[kept][order], single[single_keys]]),
    )
