"""Joint counts of feature pairs within each class, for AODE and TAN.

A :class:`JointCounts` holds the non-zero counts N_{y, x_i = u, x_j = v} of every (parent
i, child j) pair the memory caps allow, sorted by a key per (pair, u, v, class); it
counts them from integer codes (one ``bincount`` per block of pairs and rows), decodes
them, totals them per parent value, widens their layout and merges two of them
(``partial_fit``). :mod:`heb.aode` holds one over every ordered pair; :mod:`heb.tan`
one over the unordered pairs (:class:`heb.tan_structure.PairCounts`) and one over its
tree's arcs. Smoothing them is :mod:`heb.pair_smoothing`'s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from heb.counts import category_offsets

__all__ = ["MAX_TOTAL_CELLS", "JointCounts", "check_total_cells", "parent_features"]

#: bound on the entries of one block of stored counts (:meth:`JointCounts.parts`)
_BLOCK_ENTRIES = 1 << 22
#: bound on the (pairs x rows) index entries of one counting block
_COUNT_ENTRIES = 1 << 18
_COUNT_REGION = 1 << 16
#: bound on the dense count region (cells x classes) of one block of pairs
_DENSE_REGION = 1 << 23
#: refuse layouts whose joint tables together exceed this many cells (3.2 GB as float64)
MAX_TOTAL_CELLS = 4e8


def _runs(sorted_values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Run r of each sorted value, ``starts[r] <= value < starts[r + 1]`` (no division)."""
    counts = np.diff(np.searchsorted(sorted_values, starts))
    return np.repeat(np.arange(starts.size - 1), counts)


def _block_bounds(sizes: np.ndarray, budget: int) -> np.ndarray:
    """Bounds of consecutive blocks of items, each summing to under ``budget`` + its last item."""
    sizes = np.asarray(sizes, dtype=np.int64)
    start_block = (np.cumsum(sizes) - sizes) // max(1, budget)
    inner = np.flatnonzero(np.diff(start_block)) + 1
    return np.unique(np.concatenate(([0], inner, [sizes.size])).astype(np.int64))


def check_total_cells(n_cells: float, model: str) -> None:
    """Refuse a layout of more than :data:`MAX_TOTAL_CELLS` joint-table cells, in one sentence."""
    if n_cells > MAX_TOTAL_CELLS:
        raise ValueError(
            f"{model} would hold {n_cells:.3g} joint-table cells, more than "
            f"{MAX_TOTAL_CELLS:.0e}; lower max_parent_cardinality or max_joint_cells "
            "(or bin the features more coarsely)."
        )


def parent_features(k: np.ndarray, max_parent_cardinality: float, max_pairs: float) -> np.ndarray:
    """Which features may be a parent under the caps (bool, F): K_i within
    ``max_parent_cardinality``, and F (F - 1) ordered pairs within ``max_pairs``."""
    n_features = k.size
    return (k <= max_parent_cardinality) & (n_features * (n_features - 1) <= max_pairs)


def _count_pairs(X, y, n_classes, k, parent, child, offsets) -> tuple[np.ndarray, np.ndarray]:
    """Sorted non-zero (key, count) of every pair's joint codes (see :class:`JointCounts`).

    N_{c,u,v} of (i, j) is N_{c,v,u} of (j, i), so each unordered pair {a < b} is counted
    once and written in both directions. While counting, {a, b} owns (K_a + 1)(K_b + 1) C
    cells, code K_f standing for a missing or out-of-range value, so a block of pairs and
    rows is counted by one ``bincount`` over combined indices (a sort where the block's
    cells are too many); the missing row and column are dropped afterwards.
    """
    C, n_rows, n_features = n_classes, X.shape[0], k.size
    if parent.size == 0 or n_rows == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    pair_index = np.full((n_features, n_features), -1, dtype=np.int64)
    pair_index[parent, child] = np.arange(parent.size)
    low, high = np.minimum(parent, child), np.maximum(parent, child)
    first, second = np.divmod(np.unique(low * n_features + high), n_features)
    forward, backward = pair_index[first, second], pair_index[second, first]
    codes = np.where((X >= 0) & (X < k), X, k).T.copy()  # (F, n)
    child_term = codes * C + y  # (F, n): the (v, c) offset inside a parent value's row
    width = (k[second] + 1) * C
    size = (k[first] + 1) * width
    keys, counts = [], []
    bounds = _block_bounds(size, _COUNT_REGION)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        base = category_offsets(size[lo:hi])
        region = int(base[-1])
        dense = np.zeros(region, dtype=np.int64) if region <= _DENSE_REGION else None
        sparse = []
        step = max(1, _COUNT_ENTRIES // (hi - lo))
        for start in range(0, n_rows, step):
            local = codes[first[lo:hi], start : start + step] * width[lo:hi, None]
            local += base[:-1, None]
            local += child_term[second[lo:hi], start : start + step]
            if dense is not None:
                dense += np.bincount(local.ravel(), minlength=region)
            else:
                sparse.append(np.unique(local, return_counts=True))
        if dense is not None:
            found = np.flatnonzero(dense)
            found_counts = dense[found]
        else:
            found, inverse = np.unique(np.concatenate([s[0] for s in sparse]), return_inverse=True)
            found_counts = np.bincount(inverse, weights=np.concatenate([s[1] for s in sparse]))
        # rows of the region: (q, u) for u = 0..K_a, each of width (K_b + 1) C
        row_q = np.repeat(np.arange(hi - lo), k[first[lo:hi]] + 1)
        row_u = np.arange(row_q.size) - (category_offsets(k[first[lo:hi]] + 1)[:-1])[row_q]
        row_start = base[row_q] + row_u * width[lo:hi][row_q]
        row = _runs(found, np.append(row_start, region))  # ``found`` is sorted
        q, u = row_q[row], row_u[row]
        v = (found - row_start[row]) // C
        cls_idx = found - row_start[row] - v * C
        k_a, k_b = k[first[lo:hi]][q], k[second[lo:hi]][q]
        keep = (u < k_a) & (v < k_b)
        to_ab, to_ba = forward[lo:hi][q], backward[lo:hi][q]
        ab, ba = np.flatnonzero(keep & (to_ab >= 0)), np.flatnonzero(keep & (to_ba >= 0))
        ab_keys = (offsets[to_ab[ab]] + u[ab] * k_b[ab] + v[ab]) * C + cls_idx[ab]  # sorted
        ba_keys = (offsets[to_ba[ba]] + v[ba] * k_a[ba] + u[ba]) * C + cls_idx[ba]
        ba_order = np.argsort(ba_keys)
        ba = ba[ba_order]
        # pair (a, b) directly precedes (b, a): interleave the two sorted runs by q
        n_ab = np.bincount(q[ab], minlength=hi - lo)
        n_ba = np.bincount(q[ba], minlength=hi - lo)
        block_keys = np.empty(ab.size + ba.size, dtype=np.int64)
        block_counts = np.empty(block_keys.size)
        at_ab = np.arange(ab.size) + (np.cumsum(n_ba) - n_ba)[q[ab]]
        at_ba = np.arange(ba.size) + np.cumsum(n_ab)[q[ba]]
        block_keys[at_ab], block_counts[at_ab] = ab_keys, found_counts[ab]
        block_keys[at_ba], block_counts[at_ba] = ba_keys[ba_order], found_counts[ba]
        keys.append(block_keys)
        counts.append(block_counts)
    return np.concatenate(keys), np.concatenate(counts)


@dataclass(frozen=True)
class JointCounts:
    """Non-zero joint counts N_{c, u, v} of the (parent i, child j) pairs a model holds.

    Pair p = (``parent[p]``, ``child[p]``) owns the cells ``offsets[p]:offsets[p + 1]``, one
    per (u, v) in u-major order (K_i K_j cells). A count is stored under the key
    ``cell * C + c``; ``keys`` is sorted and holds only non-zero counts. Rows where the
    parent or the child is missing are not counted (SPEC section 1).

    Attributes
    ----------
    n_classes : int
        C.
    n_categories : ndarray (F,)
        K_f of the layout.
    max_parent_cardinality, max_joint_cells, max_pairs : float
        The caps the layout was built with.
    parent, child : ndarray (P,)
        The pairs held: none when F (F - 1) > ``max_pairs``; else every parent with
        K_i <= ``max_parent_cardinality`` and child j != i with C K_i K_j <= ``max_joint_cells``.
    offsets : ndarray (P + 1,)
        Cell offsets of each pair's block.
    keys, counts : ndarray (nnz,)
        The non-zero counts.
    """

    n_classes: int
    n_categories: np.ndarray
    max_parent_cardinality: float
    max_joint_cells: float
    max_pairs: float
    parent: np.ndarray
    child: np.ndarray
    offsets: np.ndarray
    keys: np.ndarray
    counts: np.ndarray

    # ---------------------------------------------------------------- layout
    @staticmethod
    def layout(
        n_categories: np.ndarray,
        n_classes: int,
        max_parent_cardinality: float,
        max_joint_cells: float,
        max_pairs: float,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs the caps allow, as (parent, child, cell offsets)."""
        k = np.asarray(n_categories, dtype=np.int64)
        is_parent = parent_features(k, max_parent_cardinality, max_pairs)
        # ordered by unordered pair {a < b}: (a, b) then (b, a), as counting writes them
        a, b = np.triu_indices(k.size, 1) if is_parent.any() else (np.zeros(0, int),) * 2
        fits = n_classes * (k[a] * k[b]).astype(np.float64) <= max_joint_cells
        held = np.column_stack([is_parent[a] & fits, is_parent[b] & fits])
        parent = np.column_stack([a, b])[held]
        child = np.column_stack([b, a])[held]
        offsets = category_offsets(k[parent] * k[child])  # blocks of K_i K_j cells
        check_total_cells(n_classes * float(offsets[-1]), "AODE")
        return parent, child, offsets

    @classmethod
    def from_codes(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        n_categories: np.ndarray,
        max_parent_cardinality: float = 200,
        max_joint_cells: float = 5e7,
        max_pairs: float = 2e4,
    ) -> JointCounts:
        """Count the joint codes of every allowed pair, one bincount per block of pairs and rows.

        Parameters
        ----------
        X : ndarray (n, F) of int
            Codes from :func:`heb.counts.as_codes`; negative or ``>= K_f`` is not counted.
        y : ndarray (n,) of int
            Class indices ``0..n_classes - 1``.
        n_classes : int
        n_categories : ndarray (F,)
            K_f of the layout.
        max_parent_cardinality, max_joint_cells, max_pairs : float
            The caps (SPEC section 4).
        """
        X = np.asarray(X, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        k = np.maximum(np.asarray(n_categories, dtype=np.int64), 1)
        caps = (max_parent_cardinality, max_joint_cells, max_pairs)
        parent, child, offsets = cls.layout(k, n_classes, *caps)
        keys, counts = _count_pairs(X, y, n_classes, k, parent, child, offsets)
        return cls(n_classes, k, *caps, parent, child, offsets, keys, counts)

    # ---------------------------------------------------------------- shape
    @property
    def caps(self) -> tuple[float, float, float]:
        """(max_parent_cardinality, max_joint_cells, max_pairs)."""
        return (self.max_parent_cardinality, self.max_joint_cells, self.max_pairs)

    def check_fits(self, table, classes: np.ndarray, caps: tuple, what: str) -> None:
        """Refuse, in one sentence naming these counts ``what``, counts of other classes,
        categories or caps than a model fitted from ``table`` with ``classes`` and
        ``caps`` (a model's ``fit_counts``)."""
        if classes.shape != (table.n_classes,) or self.n_classes != table.n_classes:
            raise ValueError(f"classes, table and {what} must have the same classes.")
        if not np.array_equal(self.n_categories, table.n_categories):
            raise ValueError(f"The {what} were built for other category counts.")
        if self.caps != caps:
            raise ValueError(f"The {what} were built with other caps than this model's.")

    @property
    def n_pairs(self) -> int:
        """P, the number of pairs held."""
        return self.parent.size

    @property
    def n_cells(self) -> int:
        """Cells per class over all pairs held (sum of K_i K_j)."""
        return int(self.offsets[-1])

    @property
    def parent_offsets(self) -> np.ndarray:
        """Row offsets of each pair's parent values in :meth:`parent_totals` (P + 1,)."""
        return category_offsets(self.n_categories[self.parent])

    def decode(self, part: slice = slice(None)) -> tuple[np.ndarray, ...]:
        """(pair, class, parent value u, child value v) of the stored counts ``part``."""
        keys = self.keys[part]
        rows = self.parent_offsets
        row_pair = np.repeat(np.arange(self.n_pairs), np.diff(rows))
        row_u = np.arange(row_pair.size) - rows[row_pair]
        row_cell = self.offsets[row_pair] + row_u * self.n_categories[self.child[row_pair]]
        row = _runs(keys, np.append(row_cell, self.offsets[-1]) * self.n_classes)  # sorted keys
        cell = keys // self.n_classes
        pair = row_pair[row]
        return pair, keys - cell * self.n_classes, row_u[row], cell - row_cell[row]

    def parts(self) -> list[slice]:
        """Consecutive slices of the stored counts, each of bounded size."""
        return [slice(s, s + _BLOCK_ENTRIES) for s in range(0, self.keys.size, _BLOCK_ENTRIES)]

    def parent_totals(self) -> np.ndarray:
        """N^{(i,j)}_{c,u}: rows of class c with parent = u and the child observed.

        Shape (sum_p K_{parent p}, C); pair p owns rows ``parent_offsets[p]:[p + 1]``.
        """
        rows = self.parent_offsets
        totals = np.zeros(int(rows[-1]) * self.n_classes)
        for part in self.parts():
            pair, cls_idx, u, _ = self.decode(part)
            flat = (rows[pair] + u) * self.n_classes + cls_idx
            totals += np.bincount(flat, weights=self.counts[part], minlength=totals.size)
        return totals.reshape(-1, self.n_classes)

    # ---------------------------------------------------------------- merging
    def relayout(self, n_categories: np.ndarray) -> JointCounts:
        """The same counts in the layout of wider ``n_categories`` (pairs now over a cap drop)."""
        k = np.maximum(self.n_categories, np.asarray(n_categories, dtype=np.int64))
        if np.array_equal(k, self.n_categories):
            return self
        parent, child, offsets = self.layout(k, self.n_classes, *self.caps)
        n_features = k.size
        new_pair = np.full(n_features * n_features, -1, dtype=np.int64)
        new_pair[parent * n_features + child] = np.arange(parent.size)
        pair, cls_idx, u, v = self.decode()
        target = new_pair[self.parent[pair] * n_features + self.child[pair]]
        kept = target >= 0
        target = target[kept]
        cell = offsets[target] + u[kept] * k[child[target]] + v[kept]
        keys = cell * self.n_classes + cls_idx[kept]
        order = np.argsort(keys, kind="stable")
        return dataclasses.replace(
            self,
            n_categories=k,
            parent=parent,
            child=child,
            offsets=offsets,
            keys=keys[order],
            counts=self.counts[kept][order],
        )

    def __add__(self, other: JointCounts) -> JointCounts:
        if not isinstance(other, JointCounts):
            return NotImplemented
        if (
            other.n_classes != self.n_classes
            or other.n_categories.size != self.n_categories.size
            or other.caps != self.caps
        ):
            raise ValueError("Joint counts of different classes, features or caps cannot merge.")
        k = np.maximum(self.n_categories, other.n_categories)
        a, b = self.relayout(k), other.relayout(k)
        keys, inverse = np.unique(np.concatenate([a.keys, b.keys]), return_inverse=True)
        counts = np.bincount(
            inverse, weights=np.concatenate([a.counts, b.counts]), minlength=keys.size
        )
        return dataclasses.replace(a, keys=keys, counts=counts)
