"""AODE and HEB-AODE over integer category codes (SPEC section 4; paper eq. 7-12, Algorithm 2).

AODE (Webb et al. 2005) averages one-dependence estimators: every feature i whose value
was seen in training (``N_i(x_i) >= frequency_limit``) acts in turn as a *super-parent*::

    P(y | x)  ~  sum_i P(y, x_i) prod_{j != i} P(x_j | y, x_i)

``AODE(smoother="laplace")`` is vanilla AODE (what Weka's ``weka.classifiers.bayes.AODE``
computes); ``AODE(smoother="heb")`` is HEB-AODE: each child conditional is smoothed toward
the child's pooled marginal with a concentration per (class, parent, child) triple, shared
over the parent's values and learned by multi-document Type-II ML (paper eq. 11-12, solved
by :func:`heb.concentration.fit_concentration_segments`).

The model is its counts: a :class:`~heb.counts.CountTable` (class and single-feature
counts) and a :class:`JointCounts` (the non-zero joint counts N_{y, x_i = u, x_j = v} of
every (parent, child) pair the caps allow). Scoring happens in log space with a
log-sum-exp over the super-parents, so many features never underflow.
"""

from __future__ import annotations

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
#: bound on the (rows x pairs) index entries and dense (cells x classes) counts per batch
_BATCH_ENTRIES = 1 << 22
#: bound on the (rows, slots, classes) gather of one prediction block
_BLOCK_CELLS = 1 << 22
#: refuse layouts whose joint tables together exceed this many cells (3.2 GB as float64)
MAX_TOTAL_CELLS = 4e8


def _batches(sizes: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive index ranges whose ``sizes`` sum to at most ``budget`` (at least one each)."""
    bounds = []
    start, total = 0, 0
    for k, size in enumerate(sizes.tolist()):
        if k > start and total + size > budget:
            bounds.append((start, k))
            start, total = k, 0
        total += size
    if start < sizes.size:
        bounds.append((start, int(sizes.size)))
    return bounds


def _sparse_count(keys: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys in ``0..n_keys-1`` and how often each occurs."""
    if n_keys <= 8 * keys.size + 4096:
        dense = np.bincount(keys, minlength=n_keys)
        nonzero = np.flatnonzero(dense)
        return nonzero, dense[nonzero].astype(np.float64)
    unique, counts = np.unique(keys, return_counts=True)
    return unique, counts.astype(np.float64)


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
    max_parent_cardinality, max_joint_cells : float
        The caps the layout was built with.
    parent, child : ndarray (P,)
        The pairs held: every parent with K_i <= ``max_parent_cardinality`` and child
        j != i with C K_i K_j <= ``max_joint_cells``.
    offsets : ndarray (P + 1,)
        Cell offsets of each pair's block.
    keys, counts : ndarray (nnz,)
        The non-zero counts.
    """

    n_classes: int
    n_categories: np.ndarray
    max_parent_cardinality: float
    max_joint_cells: float
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
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs the caps allow, as (parent, child, cell offsets)."""
        k = np.asarray(n_categories, dtype=np.int64)
        n_features = k.size
        parent, child = np.meshgrid(np.arange(n_features), np.arange(n_features), indexing="ij")
        parent, child = parent.ravel(), child.ravel()
        cells = k[parent] * k[child]
        keep = (
            (parent != child)
            & (k[parent] <= max_parent_cardinality)
            & (n_classes * cells.astype(np.float64) <= max_joint_cells)
        )
        parent, child = parent[keep], child[keep]
        offsets = category_offsets(cells[keep])  # blocks of K_i K_j cells
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
    ) -> JointCounts:
        """Count the joint codes of every allowed pair, in batches of vectorised bincounts.

        Parameters
        ----------
        X : ndarray (n, F) of int
            Codes from :func:`heb.counts.as_codes`; negative or ``>= K_f`` is not counted.
        y : ndarray (n,) of int
            Class indices ``0..n_classes - 1``.
        n_classes : int
        n_categories : ndarray (F,)
            K_f of the layout.
        max_parent_cardinality, max_joint_cells : float
            The caps (SPEC section 4).
        """
        X = np.asarray(X, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        k = np.maximum(np.asarray(n_categories, dtype=np.int64), 1)
        parent, child, offsets = cls.layout(k, n_classes, max_parent_cardinality, max_joint_cells)
        n_rows = X.shape[0]
        sizes = np.maximum(np.diff(offsets) * n_classes, n_rows)
        keys, counts = [], []
        for lo, hi in _batches(sizes, _BATCH_ENTRIES):
            par, chi = parent[lo:hi], child[lo:hi]
            x_parent, x_child = X[:, par], X[:, chi]
            k_child = k[chi]
            observed = (x_parent >= 0) & (x_parent < k[par]) & (x_child >= 0) & (x_child < k_child)
            cell = (offsets[lo:hi] - offsets[lo]) + x_parent * k_child + x_child
            local = (cell * n_classes + y[:, None])[observed]
            batch_keys, batch_counts = _sparse_count(
                local, int(offsets[hi] - offsets[lo]) * n_classes
            )
            keys.append(batch_keys + offsets[lo] * n_classes)
            counts.append(batch_counts)
        return cls(
            n_classes,
            k,
            max_parent_cardinality,
            max_joint_cells,
            parent,
            child,
            offsets,
            np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64),
            np.concatenate(counts) if counts else np.zeros(0),
        )

    # ---------------------------------------------------------------- shape
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

    def decode(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(pair, class, parent value u, child value v) of every stored count."""
        cls_idx = self.keys % self.n_classes
        cell = self.keys // self.n_classes
        pair = np.searchsorted(self.offsets, cell, side="right") - 1
        k_child = self.n_categories[self.child[pair]]
        within = cell - self.offsets[pair]
        return pair, cls_idx, within // k_child, within % k_child

    def parent_totals(self) -> np.ndarray:
        """N^{(i,j)}_{c,u}: rows of class c with parent = u and the child observed.

        Shape (sum_p K_{parent p}, C); pair p owns rows ``parent_offsets[p]:[p + 1]``.
        """
        pair, cls_idx, u, _ = self.decode()
        rows = self.parent_offsets
        flat = (rows[pair] + u) * self.n_classes + cls_idx
        totals = np.bincount(flat, weights=self.counts, minlength=int(rows[-1]) * self.n_classes)
        return totals.reshape(-1, self.n_classes)

    # ---------------------------------------------------------------- merging
    def relayout(self, n_categories: np.ndarray) -> JointCounts:
        """The same counts in the layout of wider ``n_categories`` (pairs now over a cap drop)."""
        k = np.maximum(self.n_categories, np.asarray(n_categories, dtype=np.int64))
        if np.array_equal(k, self.n_categories):
            return self
        parent, child, offsets = self.layout(
            k, self.n_classes, self.max_parent_cardinality, self.max_joint_cells
        )
        n_features = k.size
        new_pair = np.full(n_features * n_features, -1, dtype=np.int64)
        new_pair[parent * n_features + child] = np.arange(parent.size)
        pair, cls_idx, u, v = self.decode()
        target = new_pair[self.parent[pair] * n_features + self.child[pair]]
        kept = target >= 0
        target = target[kept]
        keys = (offsets[target] + u[kept] * k[child[target]] + v[kept]) * self.n_classes + cls_idx[
            kept
        ]
        order = np.argsort(keys, kind="stable")
        return JointCounts(
            self.n_classes,
            k,
            self.max_parent_cardinality,
            self.max_joint_cells,
            parent,
            child,
            offsets,
            keys[order],
            self.counts[kept][order],
        )

    def __add__(self, other: JointCounts) -> JointCounts:
        if not isinstance(other, JointCounts):
            return NotImplemented
        if (
            other.n_classes != self.n_classes
            or other.n_categories.size != self.n_categories.size
            or other.max_parent_cardinality != self.max_parent_cardinality
            or other.max_joint_cells != self.max_joint_cells
        ):
            raise ValueError("Joint counts of different classes, features or caps cannot merge.")
        k = np.maximum(self.n_categories, other.n_categories)
        a, b = self.relayout(k), other.relayout(k)
        keys, inverse = np.unique(np.concatenate([a.keys, b.keys]), return_inverse=True)
        counts = np.bincount(
            inverse, weights=np.concatenate([a.counts, b.counts]), minlength=keys.size
        )
        return JointCounts(
            a.n_classes,
            k,
            a.max_parent_cardinality,
            a.max_joint_cells,
            a.parent,
            a.child,
            a.offsets,
            keys,
            counts,
        )


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
    m = K_j (Algorithm 2, step 7). Returns m (P, C), the fit over the P * C groups in
    (pair, class) order, the fallback mask (P, C) and the documents (group, total).
    """
    C, P = joint.n_classes, joint.n_pairs
    rows = joint.parent_offsets
    doc_pair = np.repeat(np.arange(P), np.diff(rows))
    # every pair has K_i >= 1 rows in ``totals``, so reduceat sees no empty segment
    largest = np.maximum.reduceat(totals, rows[:-1], axis=0) if P else np.zeros((0, C))
    fallback = largest < n0
    solve = ~fallback.ravel()

    pair, cls_idx, _, v = joint.decode()
    item_group = pair * C + cls_idx
    keep = solve[item_group]
    item_prior = prior[column_offsets[joint.child[pair]] + v]
    doc_row, doc_cls = np.nonzero(totals)
    doc_group = doc_pair[doc_row] * C + doc_cls
    doc_keep = solve[doc_group]
    fit = fit_concentration_segments(
        item_group[keep],
        joint.counts[keep],
        item_prior[keep],
        doc_group[doc_keep],
        totals[doc_row[doc_keep], doc_cls[doc_keep]],
        P * C,
        m_min,
        m_max,
    )
    k_child = joint.n_categories[joint.child].astype(np.float64)
    m = np.where(fallback, k_child[:, None], fit.m.reshape(P, C))
    return m, fit, fallback, (doc_group, totals[doc_row, doc_cls])


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
        least this (and positive).
    max_parent_cardinality : float, default 200
        A feature with more categories is never a super-parent.
    max_joint_cells : float, default 5e7
        A pair with C K_i K_j above this builds no joint table; it uses the NB factor
        P(x_j | y), smoothed as the model smooths (Laplace, or HEB-M for HEB-AODE).
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
        Features that may act as super-parents (K_i <= ``max_parent_cardinality``).
    skipped_parents_ : ndarray
        Features never used as super-parents.
    joint_pairs_ : ndarray (P, 2)
        (parent, child) pairs with a joint table.
    fallback_pairs_ : ndarray (R, 2)
        (parent, child) pairs over the joint cap, scored with the NB factor.
    memory_cells_ : int
        Cells of the joint tables held, C * sum K_i K_j.
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
        n0: float = 10,
        m_min: float = M_MIN,
        m_max: float = M_MAX,
    ):
        self.smoother = smoother
        self.frequency_limit = frequency_limit
        self.max_parent_cardinality = max_parent_cardinality
        self.max_joint_cells = max_joint_cells
        self.n0 = n0
        self.m_min = m_min
        self.m_max = m_max

    # ------------------------------------------------------------------ fitting
    def _validate_params_(self) -> None:
        if self.smoother not in AODE_SMOOTHERS:
            raise ValueError(f"Unknown AODE smoother {self.smoother!r}; choose 'laplace' or 'heb'.")
        for name in ("frequency_limit", "max_parent_cardinality", "max_joint_cells", "n0"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.number)) or np.isnan(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
        if not 0 < self.m_min <= self.m_max:
            raise ValueError("Need 0 < m_min <= m_max.")

    def _count(self, codes, y_idx, n_classes, n_categories):
        table = CountTable.from_codes(codes, y_idx, n_classes, n_categories)
        joint = JointCounts.from_codes(
            codes,
            y_idx,
            n_classes,
            table.n_categories,
            self.max_parent_cardinality,
            self.max_joint_cells,
        )
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
        if (joint.max_parent_cardinality, joint.max_joint_cells) != (
            self.max_parent_cardinality,
            self.max_joint_cells,
        ):
            raise ValueError("The joint counts were built with other caps than this model's.")
        if prior not in ("marginal", "uniform"):
            raise ValueError(f"prior must be 'marginal' or 'uniform', got {prior!r}.")
        return self._set_counts(table, joint, classes, concentration, prior)

    def _set_counts(self, table, joint, classes, concentration=None, prior="marginal"):
        C, F = table.n_classes, table.n_features
        k = table.n_categories
        col_offsets = table.offsets
        self.classes_ = classes
        self.n_features_in_ = F
        self.n_categories_ = k
        self.count_table_ = table
        self.joint_counts_ = joint
        is_parent = k <= self.max_parent_cardinality
        self.parents_ = np.flatnonzero(is_parent)
        self.skipped_parents_ = np.flatnonzero(~is_parent)
        self.joint_pairs_ = np.column_stack([joint.parent, joint.child])
        pair_index = np.full((F, F), -1, dtype=np.int64)
        pair_index[joint.parent, joint.child] = np.arange(joint.n_pairs)
        self._pair_index = pair_index
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
                    joint, totals, prior_t, col_offsets, self.n0, self.m_min, self.m_max
                )
                self.concentrations_ = self._diagnostics(joint, totals, m, fit, fb, docs)
            else:
                m = np.asarray(concentration, dtype=np.float64)
                if m.shape != (joint.n_pairs, C) or not np.all(np.isfinite(m) & (m > 0)):
                    raise ValueError("concentration must be positive and of shape (pairs, C).")
        self.pair_concentration_ = np.array(m, dtype=np.float64)

        seen = table.category_totals() > 0
        score_table = np.empty((joint.n_cells + table.counts.shape[1] + 1, C))
        self._fill_conditionals(score_table, joint, totals, self.pair_concentration_, prior_t, seen)
        score_table[joint.n_cells : -1] = self.nb_.feature_log_prob_.T
        score_table[-1] = 0.0  # the sentinel: absent evidence adds nothing
        self._score_table = score_table
        self.conditional_log_prob_ = score_table[: joint.n_cells]
        self._seen = seen
        self._parent_table = np.concatenate([self.parent_log_prob_.T, np.zeros((1, C))])
        return self

    @staticmethod
    def _fill_conditionals(out, joint, totals, m, prior, seen):
        """log (N_{c,u,v} + a) / (N_{c,u} + m) into ``out[:cells]``; a = m t_v, or 1 (Laplace).

        Every pair's (K_i, K_j, C) block is first filled with its zero-count value in one
        broadcast (log a_v - log (N_{c,u} + m)); the non-zero counts are then written in one
        vectorised pass over all pairs.
        """
        C = joint.n_classes
        k = joint.n_categories
        col_offsets = category_offsets(k)
        rows = joint.parent_offsets
        pair_of_row = np.repeat(np.arange(joint.n_pairs), np.diff(rows))
        log_den = np.log(totals + m[pair_of_row])  # (sum_p K_i, C)
        has_unseen = np.add.reduceat(~seen, col_offsets[:-1]) > 0
        for p in range(joint.n_pairs):  # per-pair work is one broadcast over (u, v, class)
            j = joint.child[p]
            block = out[joint.offsets[p] : joint.offsets[p + 1]].reshape(-1, k[j], C)
            den = log_den[rows[p] : rows[p + 1], None, :]
            if prior is None:
                np.negative(den, out=block)
            else:
                with np.errstate(divide="ignore"):
                    log_pseudo = np.log(prior[col_offsets[j] : col_offsets[j + 1], None] * m[p])
                np.subtract(log_pseudo[None], den, out=block)
            if has_unseen[j]:  # unseen child categories are never scored: keep them at 0
                block[:, ~seen[col_offsets[j] : col_offsets[j + 1]]] = 0.0
        if joint.keys.size == 0:
            return
        pair, cls_idx, u, v = joint.decode()
        den = totals[rows[pair] + u, cls_idx] + m[pair, cls_idx]
        if prior is None:
            pseudo = 1.0
        else:
            pseudo = m[pair, cls_idx] * prior[col_offsets[joint.child[pair]] + v]
        out[joint.keys // C, cls_idx] = np.log(joint.counts + pseudo) - np.log(den)

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
        """log P(y, x): log of the mean over qualifying parents' estimates, else NB; (n, C)."""
        table = self.count_table_
        k = table.n_categories
        col_offsets = table.offsets[:-1]
        C, F = table.n_classes, table.n_features
        parents = self.parents_
        n_par = parents.size
        slot_parent = np.repeat(parents, F)
        slot_child = np.tile(np.arange(F), n_par)
        real = slot_parent != slot_child
        slot_parent, slot_child = slot_parent[real], slot_child[real]
        slot_pair = self._pair_index[slot_parent, slot_child]
        built = slot_pair >= 0
        slot_start = np.where(built, self.joint_counts_.offsets[np.maximum(slot_pair, 0)], 0)
        nb_start = self.joint_counts_.n_cells + col_offsets[slot_child]
        sentinel = self._score_table.shape[0] - 1
        parent_sentinel = self._parent_table.shape[0] - 1
        frequency = table.category_totals()
        limit = max(float(self.frequency_limit), np.nextafter(0.0, 1.0))
        n_slots_per_parent = F - 1

        n_rows = codes.shape[0]
        nb_joint = (
            score_codes(self.nb_.feature_log_prob_, table.offsets, codes)
            + self.nb_.class_log_prior_
        )
        out = np.empty((n_rows, C))
        block = max(1, _BLOCK_CELLS // max(1, slot_parent.size * C, n_par * C))
        for start in range(0, n_rows, block):
            x = codes[start : start + block]
            in_range = (x >= 0) & (x < k)
            col = np.where(in_range, col_offsets + x, 0)
            child_ok = in_range & self._seen[col]
            parent_col = col[:, parents]
            qualifies = in_range[:, parents] & (frequency[parent_col] >= limit)
            # children of every (row, parent): pair cell, NB column or nothing
            xi, xj = x[:, slot_parent], x[:, slot_child]
            pair_cell = slot_start + xi * k[slot_child] + xj
            index = np.where(built, pair_cell, nb_start + xj)
            use = child_ok[:, slot_child] & np.repeat(qualifies, n_slots_per_parent, axis=1)
            index = np.where(use, index, sentinel)
            gathered = self._score_table[index]  # (b, slots, C)
            child_sum = gathered.reshape(x.shape[0], n_par, n_slots_per_parent, C).sum(axis=2)
            parent_index = np.where(qualifies, parent_col, parent_sentinel)
            scores = self._parent_table[parent_index] + child_sum  # (b, n_par, C)
            scores = np.where(qualifies[:, :, None], scores, -np.inf)
            top = scores.max(axis=1, initial=-np.inf)
            any_parent = qualifies.any(axis=1)
            top = np.where(any_parent[:, None], top, 0.0)
            n_qualifying = np.maximum(qualifies.sum(axis=1, keepdims=True), 1)
            with np.errstate(divide="ignore"):  # the mean of the one-dependence estimates
                lse = top + np.log(np.exp(scores - top[:, None, :]).sum(axis=1) / n_qualifying)
            out[start : start + block] = np.where(
                any_parent[:, None], lse, nb_joint[start : start + block]
            )
        return out

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y, x), the mean of the super-parents' estimates (NB without one); (n, C)."""
        return self._joint_log_scores(self._codes_for_predict(X))
