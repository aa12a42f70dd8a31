"""AODE and HEB-AODE over integer category codes (SPEC section 4; paper eq. 7-12, Algorithm 2).

AODE (Webb et al. 2005) averages one-dependence estimators: every feature i whose value
was seen in training (``N_i(x_i) >= frequency_limit``) acts in turn as a *super-parent*::

    P(y | x)  ~  sum_i P(y, x_i) prod_{j != i} P(x_j | y, x_i)

``AODE(smoother="laplace")`` is vanilla AODE (what Weka's ``weka.classifiers.bayes.AODE``
computes); ``AODE(smoother="heb")`` is HEB-AODE: each child conditional is smoothed toward
the child's pooled marginal with a concentration per (class, parent, child) triple, shared
over the parent's values and learned by multi-document Type-II ML (paper eq. 11-12, solved
for every group at once by :func:`heb.pair_smoothing.fit_pair_concentrations`).

The model is its counts: a :class:`~heb.counts.CountTable` (class and single-feature
counts) and a :class:`~heb.joint_counts.JointCounts` (the non-zero joint counts
N_{y, x_i = u, x_j = v} of every (parent, child) pair the caps allow). Counting, smoothing
and scoring are vectorised over all pairs at once, in blocks of bounded memory (no Python
loop per pair or per value).
Scoring happens in log space with a log-sum-exp over the super-parents, so many features
never underflow.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from heb.concentration import M_MAX, M_MIN
from heb.concentration_score import ragged_arange
from heb.counts import CountTable, category_offsets
from heb.estimator import CategoricalClassifier, check_clamp, check_non_negative
from heb.joint_counts import JointCounts, parent_features
from heb.nb import NaiveBayes, score_codes
from heb.pair_smoothing import count_log_conditionals, fit_pair_concentrations, log_denominators
from heb.smoothing import prior_mean

__all__ = ["AODE", "AODE_SMOOTHERS"]

AODE_SMOOTHERS = ("laplace", "heb")
_NB_SMOOTHER = {"laplace": "laplace", "heb": "heb-m"}
#: bound on the (parent, child, row) slots of one scoring block (small: cache-resident)
_SCORE_SLOTS = 1 << 18


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
    log_den = log_denominators(joint, totals, m)  # (R, C)
    shift = (-log_den if prior is None else np.log(m[pair_of_row]) - log_den).T  # (C, R)
    by_child = np.argsort(joint.child, kind="stable")
    row_order = ragged_arange(rows[:-1][by_child], np.diff(rows)[by_child])
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
        pair, cls_idx, u, v, value = count_log_conditionals(
            joint, part, log_den, m, prior, col_offsets
        )
        out[cls_idx, start[pair] + u * (k[joint.child[pair]] + 1) + v] = value


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
        HEB with learned m only, built on first access (its evidence is diagnostics): one
        entry per (class, pair) group (columns class, parent, child, K_child,
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
    def _smoother_key(self) -> str:
        """``smoother`` as the lower-case key it names ("HEB" is "heb")."""
        return self.smoother.lower() if isinstance(self.smoother, str) else self.smoother

    def _validate_params_(self) -> None:
        if self._smoother_key() not in AODE_SMOOTHERS:  # any case
            raise ValueError(f"Unknown AODE smoother {self.smoother!r}; choose 'laplace' or 'heb'.")
        for name in (
            "frequency_limit",
            "max_parent_cardinality",
            "max_joint_cells",
            "max_pairs",
            "n0",
        ):
            check_non_negative(name, getattr(self, name))
        check_clamp(self.m_min, self.m_max)

    @property
    def _caps(self) -> tuple[float, float, float]:
        return (self.max_parent_cardinality, self.max_joint_cells, self.max_pairs)

    def _count(self, codes, y_idx, n_classes, n_categories):
        table = CountTable.from_codes(codes, y_idx, n_classes, n_categories)
        joint = JointCounts.from_codes(codes, y_idx, n_classes, table.n_categories, *self._caps)
        return table, joint

    def _fitted_counts(self) -> tuple[CountTable, JointCounts]:
        return self.count_table_, self.joint_counts_

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
        joint.check_fits(table, classes, self._caps, "joint counts")
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
        is_parent = parent_features(k, self.max_parent_cardinality, self.max_pairs)
        self.parents_ = np.flatnonzero(is_parent)
        self.skipped_parents_ = np.flatnonzero(~is_parent)
        self.notes_ = []
        if F * (F - 1) > self.max_pairs:
            self.notes_.append(
                f"AODE over {F} features would score {F * (F - 1):,} (parent, child) pairs, "
                f"more than max_pairs = {self.max_pairs:g}: it is the NB posterior instead."
            )
            warnings.warn(self.notes_[-1], stacklevel=3)
        elif F > 1 and not self.parents_.size:
            self.notes_.append(
                f"No feature has at most max_parent_cardinality = "
                f"{self.max_parent_cardinality:g} categories, so none can be a super-parent: "
                "this AODE is the NB posterior (Laplace, or HEB-M for HEB-AODE)."
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
            smoother=_NB_SMOOTHER[self._smoother_key()],
            n0=self.n0,
            m_min=self.m_min,
            m_max=self.m_max,
        ).fit_counts(table, classes)

        # log P(y, x_i = u) = log (N_{y,i,u} + 1) / (S_i + C K_i)
        s_i = table.feature_totals()
        denominator = (s_i + C * k)[table.feature_of_column]
        self.parent_log_prob_ = np.log(table.counts + 1.0) - np.log(denominator)

        totals = joint.parent_totals()
        self._learned, self._diagnostics_cache = None, None
        if self._smoother_key() == "laplace":
            m = np.broadcast_to(k[joint.child].astype(np.float64)[:, None], (joint.n_pairs, C))
            prior_t = None
        else:
            prior_t = prior_mean(table, prior)
            if concentration is None:
                learned = fit_pair_concentrations(
                    joint, totals, prior_t, table.offsets, self.n0, self.m_min, self.m_max
                )
                m = learned.m
                self._learned = learned
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
    def concentrations_(self) -> dict[str, np.ndarray] | None:
        """HEB: per (class, pair) diagnostics, built on first access (see class doc)."""
        check_is_fitted(self, "count_table_")
        if self._diagnostics_cache is None and self._learned is not None:
            self._diagnostics_cache = self._learned.diagnostics(self.joint_counts_)
        return self._diagnostics_cache

    @property
    def conditional_log_prob_(self) -> np.ndarray:
        """log P(x_j = v | y, x_i = u) of the pairs held, cell layout of ``joint_counts_``."""
        joint = self.joint_counts_
        k_child = self.n_categories_[joint.child]
        pair = np.repeat(np.arange(joint.n_pairs), np.diff(joint.offsets))
        u, v = np.divmod(np.arange(joint.n_cells) - joint.offsets[pair], k_child[pair])
        at = _score_starts(joint)[pair] + u * (k_child[pair] + 1) + v
        return self._score_table[:, at].T

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
