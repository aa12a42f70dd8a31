"""AODE and HEB-AODE over integer category codes (SPEC section 4; paper eq. 7-12, Algorithm 2).

AODE (Webb et al. 2005) averages one-dependence estimators: every feature i whose value
was seen in training (``N_i(x_i) >= frequency_limit``) acts in turn as a *super-parent*::

    P(y | x)  ~  sum_i P(y, x_i) prod_{j != i} P(x_j | y, x_i)

``AODE(smoother="laplace")`` is vanilla AODE (what Weka's ``weka.classifiers.bayes.AODE``
computes); ``AODE(smoother="heb")`` is HEB-AODE: each child conditional is smoothed toward
the child's pooled marginal with a concentration per (class, parent, child) triple, shared
over the parent's values and learned by multi-document Type-II ML (paper eq. 11-12, solved
for every group at once by :func:`heb.concentration.fit_concentration_segments`).

The model is its counts: a :class:`~heb.counts.CountTable` (class and single-feature
counts) and a :class:`JointCounts` (the non-zero joint counts N_{y, x_i = u, x_j = v} of
every (parent, child) pair the caps allow). Counting, smoothing and scoring are vectorised
over all pairs at once, in blocks of bounded memory (no Python loop per pair or per value).
Scoring happens in log space with a log-sum-exp over the super-parents, so many features
never underflow.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np

from heb.concentration import CLAMP_NONE, M_MAX, M_MIN, fit_concentration_segments
from heb.counts import CountTable, category_offsets
from heb.estimator import CategoricalClassifier
from heb.nb import NaiveBayes, score_codes
from heb.smoothing import prior_mean

__all__ = ["AODE", "AODE_SMOOTHERS", "JointCounts", "MAX_TOTAL_CELLS"]

AODE_SMOOTHERS = ("laplace", "heb")
_NB_SMOOTHER = {"laplace": "laplace", "heb": "heb-m"}
_CLAMP_NAMES = np.array(["low", "none", "high"])
#: bound on the entries of one block of stored counts or score-table cells
_BLOCK_ENTRIES = 1 << 22
#: bound on the (parent, child, row) slots of one scoring block (small: cache-resident)
_SCORE_SLOTS = 1 << 18
#: bound on the (pairs x rows) index entries of one counting block
_COUNT_ENTRIES = 1 << 18
_COUNT_REGION = 1 << 16
#: bound on the dense count region (cells x classes) of one block of pairs
_DENSE_REGION = 1 << 23
#: refuse layouts whose joint tables together exceed this many cells (3.2 GB as float64)
MAX_TOTAL_CELLS = 4e8


def _ragged_arange(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(starts[r], starts[r] + lengths[r])`` over r."""
    lengths = np.asarray(lengths, dtype=np.int64)
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if lengths.size else 0
    shift = np.asarray(starts, dtype=np.int64) - ends + lengths
    return np.arange(total) + np.repeat(shift, lengths)


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


def _parent_features(k: np.ndarray, max_parent_cardinality: float, max_pairs: float) -> np.ndarray:
    """Which features may act as super-parents under the caps (bool, F)."""
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
        is_parent = _parent_features(k, max_parent_cardinality, max_pairs)
        # ordered by unordered pair {a < b}: (a, b) then (b, a), as counting writes them
        a, b = np.triu_indices(k.size, 1) if is_parent.any() else (np.zeros(0, int),) * 2
        fits = n_classes * (k[a] * k[b]).astype(np.float64) <= max_joint_cells
        held = np.column_stack([is_parent[a] & fits, is_parent[b] & fits])
        parent = np.column_stack([a, b])[held]
        child = np.column_stack([b, a])[held]
        offsets = category_offsets(k[parent] * k[child])  # blocks of K_i K_j cells
        if n_classes * float(offsets[-1]) > MAX_TOTAL_CELLS:
            raise ValueError(
                f"AODE would hold {n_classes * float(offsets[-1]):.3g} joint-table cells, "
                f"more than {MAX_TOTAL_CELLS:.0e}; lower max_parent_cardinality or "
                "max_joint_cells (or bin the features more coarsely)."
            )
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


def _fit_pair_concentrations(
    joint: JointCounts,
    totals: np.ndarray,
    prior: np.ndarray,
    column_offsets: np.ndarray,
    n0: float,
    m_min: float,
    m_max: float,
):
    """Multi-document Type-II ML m_{c,i,j} for every (pair, class) group (paper eq. 11-12).

    Documents are the parent values u with N_{c,u} > 0; items the non-zero N_{c,u,v} with
    the child's prior mean. A group whose largest document has fewer than ``n0`` rows gets
    m = K_j (Algorithm 2, step 7). All groups go to one batched solve. Returns m (P, C),
    the fit over the P * C groups in (pair, class) order, the fallback mask (P, C) and
    the documents (group, total).
    """
    C, P = joint.n_classes, joint.n_pairs
    rows = joint.parent_offsets
    doc_pair = np.repeat(np.arange(P), np.diff(rows))
    # every pair has K_i >= 1 rows in ``totals``, so reduceat sees no empty segment
    largest = np.maximum.reduceat(totals, rows[:-1], axis=0) if P else np.zeros((0, C))
    fallback = largest < n0
    solve = ~fallback.ravel()

    groups, counts, priors = [], [], []
    for part in joint.parts():  # the items of the groups solved, a bounded part at a time
        pair, cls_idx, _, v = joint.decode(part)
        item_group = pair * C + cls_idx
        keep = np.flatnonzero(solve[item_group])
        groups.append(item_group[keep])
        counts.append(joint.counts[part][keep])
        priors.append(prior[column_offsets[joint.child[pair[keep]]] + v[keep]])
    doc_row, doc_cls = np.nonzero(totals)
    doc_group = doc_pair[doc_row] * C + doc_cls
    doc_keep = solve[doc_group]
    fit = fit_concentration_segments(
        np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64),
        np.concatenate(counts) if counts else np.zeros(0),
        np.concatenate(priors) if priors else np.zeros(0),
        doc_group[doc_keep],
        totals[doc_row[doc_keep], doc_cls[doc_keep]],
        P * C,
        m_min,
        m_max,
    )
    k_child = joint.n_categories[joint.child].astype(np.float64)
    m = np.where(fallback, k_child[:, None], fit.m.reshape(P, C))
    return m, fit, fallback, (doc_group, totals[doc_row, doc_cls])


def _score_starts(joint: JointCounts) -> np.ndarray:
    """Where each pair's K_i x (K_j + 1) block starts in the score table (pairs by child)."""
    k = joint.n_categories
    size = k[joint.parent] * (k[joint.child] + 1)
    order = np.argsort(joint.child, kind="stable")
    start = np.empty(joint.n_pairs, dtype=np.int64)
    start[order] = np.cumsum(size[order]) - size[order]
    return start


def _fill_pair_scores(out, joint, totals, m, prior, seen) -> None:
    """Write log P(x_j = v | y, x_i = u) of every pair held into ``out`` (C, sum_p K_i (K_j + 1)).

    Pair p owns K_i rows (its parent values u) of K_j + 1 cells (its child values v, the
    last for an absent child) from ``_score_starts``, the pairs of one child j side by
    side; a cell holds log (N_{c,u,v} + a_v) - log (N_{c,u} + m), with a_v = m t_v (HEB)
    or 1 (Laplace), and 0 where v is absent or unseen (never scored). Each child's block
    of all its parents' rows gets the zero-count value in one broadcast; the non-zero
    counts are then written by blocks.
    """
    k, n_features = joint.n_categories, joint.n_categories.size
    rows = joint.parent_offsets
    pair_of_row = np.repeat(np.arange(joint.n_pairs), np.diff(rows))
    m_row = m[pair_of_row]  # (R, C)
    log_den = np.log(totals + m_row)
    shift = (-log_den if prior is None else np.log(m_row) - log_den).T  # (C, R)
    by_child = np.argsort(joint.child, kind="stable")
    row_order = _ragged_arange(rows[:-1][by_child], np.diff(rows)[by_child])
    child_pairs = np.searchsorted(joint.child[by_child], np.arange(n_features + 1))
    child_rows = category_offsets(np.diff(rows)[by_child])[child_pairs]
    col_offsets = category_offsets(k)
    log_t = np.zeros(seen.size) if prior is None else np.log(np.where(seen, prior, 1.0))
    cell = 0
    for j in np.flatnonzero(np.diff(child_pairs)).tolist():  # one broadcast per child
        n_rows = int(child_rows[j + 1] - child_rows[j])
        block = out[:, cell : cell + n_rows * (k[j] + 1)].reshape(-1, n_rows, k[j] + 1)
        values = block[:, :, : k[j]]
        values[:] = shift[:, row_order[child_rows[j] : child_rows[j + 1]], None]
        if prior is not None:
            values += log_t[col_offsets[j] : col_offsets[j + 1]]
        values[:, :, ~seen[col_offsets[j] : col_offsets[j + 1]]] = 0.0
        block[:, :, k[j]] = 0.0  # an absent child is never scored
        cell += block.shape[1] * block.shape[2]
    start = _score_starts(joint)
    for part in joint.parts():  # the non-zero counts
        pair, cls_idx, u, v = joint.decode(part)
        row = rows[pair] + u
        j = joint.child[pair]
        pseudo = 1.0 if prior is None else m[pair, cls_idx] * prior[col_offsets[j] + v]
        value = np.log(joint.counts[part] + pseudo) - log_den[row, cls_idx]
        out[cls_idx, start[pair] + u * (k[j] + 1) + v] = value


class AODE(CategoricalClassifier):
    """Averaged one-dependence estimators, vanilla (Laplace) or HEB-AODE, over integer codes.

    Parameters
    ----------
    smoother : {"laplace", "heb"}, default "laplace"
        ``"laplace"``: Webb et al.'s AODE, child conditionals (N + 1) / (N_{y,u} + K_j).
        ``"heb"``: HEB-AODE, (N + m t_v) / (N_{y,u} + m) with t the child's pooled marginal
        and m learned per (class, parent, child) by Type-II ML.
    frequency_limit : float, default 1
        A super-parent value u qualifies for a row when its training count N_i(u) is at
        least this (and positive: an unseen value never qualifies).
    max_parent_cardinality : float, default 200
        A feature with more categories is never a super-parent.
    max_joint_cells : float, default 5e7
        A pair with C K_i K_j above this builds no joint table; it uses the NB factor
        P(x_j | y), smoothed as the model smooths (Laplace, or HEB-M for HEB-AODE).
    max_pairs : float, default 2e4
        The pair cap: with F features, a model whose F (F - 1) ordered (parent, child)
        pairs exceed this (more than 141 features at the default) has no super-parent,
        holds no joint table and is the NB posterior (Laplace, or HEB-M for HEB-AODE);
        ``notes_`` says so and a warning is issued. This bounds the counting and scoring
        work per row to ``max_pairs`` pairs.
    n0 : float, default 10
        HEB: a (class, parent, child) group whose best-populated parent value has fewer
        rows uses m = K_j.
    m_min, m_max : float
        HEB: the clamp of the learned concentration.

    Attributes
    ----------
    classes_ : ndarray (C,)
    n_features_in_ : int
    n_categories_ : ndarray (F,)
    count_table_ : CountTable
        Class and single-feature counts.
    joint_counts_ : JointCounts
        Non-zero joint counts of the pairs held.
    parents_ : ndarray
        Features that may act as super-parents (K_i <= ``max_parent_cardinality``, and
        the pair cap not reached).
    skipped_parents_ : ndarray
        Features never used as super-parents.
    joint_pairs_ : ndarray (P, 2)
        (parent, child) pairs with a joint table.
    fallback_pairs_ : ndarray (R, 2)
        (parent, child) pairs over the joint cap, scored with the NB factor.
    memory_cells_ : int
        Cells of the joint tables held, C * sum K_i K_j.
    notes_ : list of str
        What a cap changed about the model (empty when no note applies).
    parent_log_prob_ : ndarray (C, V)
        log P(y, x_i = u) = log (N_{y,i,u} + 1) / (S_i + C K_i) over every feature's values.
    conditional_log_prob_ : ndarray (cells, C)
        log P(x_j = v | y, x_i = u) of the pairs held, cell layout of ``joint_counts_``.
    pair_concentration_ : ndarray (P, C)
        m of each pair and class (K_j for Laplace).
    nb_ : NaiveBayes
        The NB model behind the fallback factors and rows with no qualifying parent.
    concentrations_ : dict of ndarray or None
        HEB only: one entry per (class, pair) group (columns class, parent, child, K_child,
        N, n_values, m, rho, iterations, converged, clamped, log_evidence, fallback); rho is
        m / (N_{c,u} + m) averaged over the parent values u seen with class c.
    """

    def __init__(
        self,
        smoother: str = "laplace",
        frequency_limit: float = 1,
        max_parent_cardinality: float = 200,
        max_joint_cells: float = 5e7,
        max_pairs: float = 2e4,
        n0: float = 10,
        m_min: float = M_MIN,
        m_max: float = M_MAX,
    ):
        self.smoother = smoother
        self.frequency_limit = frequency_limit
        self.max_parent_cardinality = max_parent_cardinality
        self.max_joint_cells = max_joint_cells
        self.max_pairs = max_pairs
        self.n0 = n0
        self.m_min = m_min
        self.m_max = m_max

    # ------------------------------------------------------------------ fitting
    def _validate_params_(self) -> None:
        if self.smoother not in AODE_SMOOTHERS:
            raise ValueError(f"Unknown AODE smoother {self.smoother!r}; choose 'laplace' or 'heb'.")
        for name in (
            "frequency_limit",
            "max_parent_cardinality",
            "max_joint_cells",
            "max_pairs",
            "n0",
        ):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.number)) or np.isnan(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
        if not 0 < self.m_min <= self.m_max:
            raise ValueError("Need 0 < m_min <= m_max.")

    @property
    def _caps(self) -> tuple[float, float, float]:
        return (self.max_parent_cardinality, self.max_joint_cells, self.max_pairs)

    def _count(self, codes, y_idx, n_classes, n_categories):
        table = CountTable.from_codes(codes, y_idx, n_classes, n_categories)
        joint = JointCounts.from_codes(codes, y_idx, n_classes, table.n_categories, *self._caps)
        return table, joint

    def fit(self, X, y):
        """Count the training rows (single and pairwise) and smooth.

        Parameters
        ----------
        X : array-like (n, F) of integer codes (negative / NaN = missing)
        y : array-like (n,) of class labels
        """
        codes, y_idx, classes = self._fit_input(X, y)
        n_categories = np.maximum(codes.max(axis=0, initial=-1) + 1, 1)
        table, joint = self._count(codes, y_idx, classes.size, n_categories)
        return self._set_counts(table, joint, classes)

    def partial_fit(self, X, y, classes=None):
        """Add a chunk of rows to the counts and re-smooth.

        ``classes`` (all labels that will ever be seen) is required on the first call.
        """
        codes, y_idx, all_classes, first = self._partial_fit_input(X, y, classes)
        n_categories = np.maximum(codes.max(axis=0, initial=-1) + 1, 1)
        if not first:
            n_categories = np.maximum(n_categories, self.n_categories_)
        table, joint = self._count(codes, y_idx, all_classes.size, n_categories)
        if not first:
            table = self.count_table_ + table
            joint = self.joint_counts_ + joint
        return self._set_counts(table, joint, all_classes)

    def fit_counts(
        self,
        table: CountTable,
        joint: JointCounts,
        classes=None,
        *,
        concentration: np.ndarray | None = None,
        prior: str = "marginal",
    ):
        """Smooth precomputed counts (no recounting: the what-if path).

        Parameters
        ----------
        table : CountTable
        joint : JointCounts
            Built with this model's caps and ``table``'s categories.
        classes : array-like (C,), optional
            Labels of the classes; default ``0..C-1``.
        concentration : ndarray (P, C), optional
            HEB only: fixed concentrations m instead of learned ones.
        prior : {"marginal", "uniform"}
            HEB only: the prior mean of the child conditionals. With ``concentration`` = K_j
            and ``"uniform"`` the pair conditionals are Laplace's (the paper's limit case).
        """
        self._validate_params_()
        classes = np.arange(table.n_classes) if classes is None else np.asarray(classes)
        if classes.shape != (table.n_classes,) or joint.n_classes != table.n_classes:
            raise ValueError("classes, table and joint counts must have the same classes.")
        if not np.array_equal(joint.n_categories, table.n_categories):
            raise ValueError("The joint counts were built for other category counts.")
        if joint.caps != self._caps:
            raise ValueError("The joint counts were built with other caps than this model's.")
        if prior not in ("marginal", "uniform"):
            raise ValueError(f"prior must be 'marginal' or 'uniform', got {prior!r}.")
        return self._set_counts(table, joint, classes, concentration, prior)

    def _set_counts(self, table, joint, classes, concentration=None, prior="marginal"):
        C, F = table.n_classes, table.n_features
        k = table.n_categories
        self.classes_ = classes
        self.n_features_in_ = F
        self.n_categories_ = k
        self.count_table_ = table
        self.joint_counts_ = joint
        is_parent = _parent_features(k, self.max_parent_cardinality, self.max_pairs)
        self.parents_ = np.flatnonzero(is_parent)
        self.skipped_parents_ = np.flatnonzero(~is_parent)
        self.notes_ = []
        if F * (F - 1) > self.max_pairs:
            self.notes_.append(
                f"AODE over {F} features would score {F * (F - 1):,} (parent, child) pairs, "
                f"more than max_pairs = {self.max_pairs:g}: it is the NB posterior instead."
            )
            warnings.warn(self.notes_[-1], stacklevel=3)
        self.joint_pairs_ = np.column_stack([joint.parent, joint.child])
        pair_index = np.full((F, F), -1, dtype=np.int64)
        pair_index[joint.parent, joint.child] = np.arange(joint.n_pairs)
        par_grid, chi_grid = np.nonzero((pair_index < 0) & is_parent[:, None])
        off_diagonal = par_grid != chi_grid
        self.fallback_pairs_ = np.column_stack([par_grid[off_diagonal], chi_grid[off_diagonal]])
        self.memory_cells_ = int(joint.n_cells * C)

        self.nb_ = NaiveBayes(
            smoother=_NB_SMOOTHER[self.smoother], n0=self.n0, m_min=self.m_min, m_max=self.m_max
        ).fit_counts(table, classes)

        # log P(y, x_i = u) = log (N_{y,i,u} + 1) / (S_i + C K_i)
        s_i = table.feature_totals()
        denominator = (s_i + C * k)[table.feature_of_column]
        self.parent_log_prob_ = np.log(table.counts + 1.0) - np.log(denominator)

        totals = joint.parent_totals()
        self.concentrations_ = None
        if self.smoother == "laplace":
            m = np.broadcast_to(k[joint.child].astype(np.float64)[:, None], (joint.n_pairs, C))
            prior_t = None
        else:
            prior_t = prior_mean(table, prior)
            if concentration is None:
                m, fit, fb, docs = _fit_pair_concentrations(
                    joint, totals, prior_t, table.offsets, self.n0, self.m_min, self.m_max
                )
                self.concentrations_ = self._diagnostics(joint, totals, m, fit, fb, docs)
            else:
                m = np.asarray(concentration, dtype=np.float64)
                if m.shape != (joint.n_pairs, C) or not np.all(np.isfinite(m) & (m > 0)):
                    raise ValueError("concentration must be positive and of shape (pairs, C).")
        self.pair_concentration_ = np.array(m, dtype=np.float64)
        self._seen = table.category_totals() > 0
        self._build_score_table(joint, totals, prior_t, pair_index)
        return self

    def _build_score_table(self, joint, totals, prior, pair_index) -> None:
        """One (C, cells) table for every log factor a row can gather, and each slot's place.

        Regions: the pairs' conditionals (:func:`_fill_pair_scores`), the NB factors of
        each feature (K_j + 1 cells, the last 0) and a run of zeros for the slot j = i.
        Slot (parent i, child j) of a row gathers ``base[i, j] + x_i stride[i, j] + x_j``
        with x_j = K_j for an absent child.
        """
        table, k, C = self.count_table_, self.n_categories_, joint.n_classes
        ext_offsets = category_offsets(k + 1)
        nb_base = joint.n_cells + int(joint.parent_offsets[-1])  # K_i (K_j + 1) per pair
        zero_base = nb_base + int(ext_offsets[-1])
        score = np.zeros((C, zero_base + int(k.max()) + 1))
        _fill_pair_scores(
            score[:, :nb_base], joint, totals, self.pair_concentration_, prior, self._seen
        )
        score[:, nb_base + np.arange(table.offsets[-1]) + table.feature_of_column] = (
            self.nb_.feature_log_prob_
        )
        # the last entry is what slot -1 (no pair) reads before ``np.where`` replaces it
        pair_start = np.append(_score_starts(joint), 0)
        slots = pair_index[self.parents_]  # (n_par, F)
        held = slots >= 0
        base = np.where(held, pair_start[slots], nb_base + ext_offsets[:-1])
        stride = np.where(held, k + 1, 0)
        diagonal = (np.arange(self.parents_.size), self.parents_)
        base[diagonal], stride[diagonal] = zero_base, 0
        self._score_table = score
        self._slot_base, self._slot_stride = base, stride

    @property
    def conditional_log_prob_(self) -> np.ndarray:
        """log P(x_j = v | y, x_i = u) of the pairs held, cell layout of ``joint_counts_``."""
        joint = self.joint_counts_
        k_child = self.n_categories_[joint.child]
        pair = np.repeat(np.arange(joint.n_pairs), np.diff(joint.offsets))
        u, v = np.divmod(np.arange(joint.n_cells) - joint.offsets[pair], k_child[pair])
        at = _score_starts(joint)[pair] + u * (k_child[pair] + 1) + v
        return self._score_table[:, at].T

    @staticmethod
    def _diagnostics(joint, totals, m, fit, fallback, docs) -> dict[str, np.ndarray]:
        C, P = joint.n_classes, joint.n_pairs
        doc_group, doc_total = docs
        m_flat = m.ravel()
        n_values = np.bincount(doc_group, minlength=P * C)
        shrink = np.bincount(
            doc_group, weights=m_flat[doc_group] / (doc_total + m_flat[doc_group]), minlength=P * C
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = np.where(n_values > 0, shrink / np.maximum(n_values, 1), 1.0)
        fb = fallback.ravel()
        return {
            "class": np.tile(np.arange(C), P),
            "parent": np.repeat(joint.parent, C),
            "child": np.repeat(joint.child, C),
            "K_child": np.repeat(joint.n_categories[joint.child], C),
            "N": np.bincount(doc_group, weights=doc_total, minlength=P * C),
            "n_values": n_values,
            "m": m_flat.copy(),
            "rho": rho,
            "iterations": np.where(fb, 0, fit.iterations),
            "converged": np.where(fb, True, fit.converged),
            "clamped": _CLAMP_NAMES[np.where(fb, CLAMP_NONE, fit.clamped) + 1],
            "log_evidence": fit.log_evidence,  # 0 for fallback groups (not fitted)
            "fallback": fb,
        }

    # ------------------------------------------------------------------ scoring
    def _joint_log_scores(self, codes: np.ndarray) -> np.ndarray:
        """log P(y, x): log of the mean over qualifying parents' estimates, else NB; (n, C).

        Rows go in blocks; in each, every (parent, child, row) slot's index into the score
        table is formed by broadcasting and gathered once per class.
        """
        table = self.count_table_
        k, C, F = table.n_categories, table.n_classes, table.n_features
        col_offsets = table.offsets[:-1]
        parents = self.parents_
        out = score_codes(self.nb_.feature_log_prob_, table.offsets, codes)
        out += self.nb_.class_log_prior_
        if parents.size == 0:
            return out
        frequency = table.category_totals()
        limit = max(float(self.frequency_limit), np.nextafter(0.0, 1.0))
        base = self._slot_base[:, :, None]
        stride = self._slot_stride[:, :, None]
        parent_columns = col_offsets[parents][:, None]
        block = max(1, _SCORE_SLOTS // (parents.size * F))
        for start in range(0, codes.shape[0], block):
            x = codes[start : start + block].T  # (F, b)
            in_range = (x >= 0) & (x < k[:, None])
            col = np.where(in_range, col_offsets[:, None] + x, 0)
            child_code = np.where(in_range & self._seen[col], x, k[:, None])
            qualifies = (in_range & (frequency[col] >= limit))[parents]  # (n_par, b)
            parent_code = np.where(qualifies, x[parents], 0)
            index = parent_code[:, None, :] * stride
            index += base
            index += child_code[None]
            parent_col = parent_columns + parent_code
            scores = np.empty((C, parents.size, x.shape[1]))
            for c in range(C):  # one gather of every (parent, child, row) slot per class
                np.sum(self._score_table[c].take(index), axis=1, out=scores[c])
                scores[c] += self.parent_log_prob_[c].take(parent_col)
            scores[:, ~qualifies] = -np.inf
            any_parent = qualifies.any(axis=0)
            top = np.where(any_parent, scores.max(axis=1), 0.0)  # (C, b)
            n_qualifying = np.maximum(qualifies.sum(axis=0), 1)
            with np.errstate(divide="ignore"):  # the mean of the one-dependence estimates
                lse = top + np.log(np.exp(scores - top[:, None, :]).sum(axis=1) / n_qualifying)
            rows = out[start : start + block]
            rows[any_parent] = lse.T[any_parent]
        return out

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y, x), the mean of the super-parents' estimates (NB without one); (n, C)."""
        return self._joint_log_scores(self._codes_for_predict(X))
