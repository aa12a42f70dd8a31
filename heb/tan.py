"""Tree-augmented Naive Bayes (TAN) and HEB-TAN over integer category codes.

TAN (Friedman, Geiger and Goldszmidt 1997) gives every feature the class and at most one
feature parent; the feature tree is a maximum spanning tree over the conditional mutual
information I(X_i; X_j | Y) of the training counts (:mod:`heb.tan_structure`)::

    P(y | x)  ~  P(y) P(x_root | y) prod_{j != root} P(x_j | y, x_parent(j))

``TAN(smoother="laplace")`` smooths every table as Weka's ``SimpleEstimator`` does,
(N + alpha) / (N_parent + alpha K), and equals Weka 3.6's ``BayesNet -Q
weka.classifiers.bayes.net.search.local.TAN -- -S ENTROPY -E
weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A alpha`` (tree, root, tables and
posteriors; ``tests/test_tan.py``). The ``ENTROPY`` score is needed: its arc gain is
N I(X_i; X_j | Y), Friedman et al.'s criterion, while Weka's default ``BAYES`` score (a
Dirichlet marginal likelihood) penalises wide tables and can pick another tree.

``TAN(smoother="heb")`` is HEB-TAN: each child table is smoothed toward the child's
pooled marginal with a concentration per (class, child) shared over the parent's values
and learned by the multi-document Type-II ML of HEB-AODE (paper eq. 11-12); the
class-only factors (a feature without a feature parent) are HEB-M's. All concentrations
come from one batched solve.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from heb.concentration import M_MAX, M_MIN
from heb.counts import CountTable
from heb.estimator import CategoricalClassifier, check_clamp, check_non_negative, is_number
from heb.pair_smoothing import conditional_log_probs, fit_pair_concentrations
from heb.smoothing import prior_mean
from heb.tan_structure import PairCounts, arc_gains, spanning_tree, tree_pair_counts

__all__ = ["TAN", "TAN_SMOOTHERS"]

TAN_SMOOTHERS = ("laplace", "heb")
#: bound on the (rows, features, classes) gather of one prediction block
_BLOCK_CELLS = 1 << 22


class TAN(CategoricalClassifier):
    """Tree-augmented Naive Bayes, Laplace-style (Weka's) or HEB-TAN, over integer codes.

    Parameters
    ----------
    smoother : {"laplace", "heb"}, default "laplace"
        ``"laplace"``: every conditional is (N + alpha) / (N_parent + alpha K), Weka's
        ``SimpleEstimator``. ``"heb"``: a child's table is (N_{y,u,v} + m t_v) /
        (N_{y,u} + m) with t the child's pooled marginal and m learned per (class, child)
        over the parent's values u; features without a feature parent use HEB-M.
    root : int, optional
        The feature the tree is rooted at. ``None`` (default) roots it as Weka 3.6's TAN
        search does: at feature a of the ordered pair (a, b) of largest arc gain
        ``arc_gain_[a, b]`` (the strongest pair of conditional mutual information; its two
        directions differ by rounding alone, and Weka's arithmetic is reproduced so that
        such near-ties fall as in Weka), the root then moving to any feature c that the
        tree-growing links to it through the ordered pair (c, root) (see
        :func:`heb.tan_structure.spanning_tree`). An int re-roots the same tree there.
    alpha : float, default 0.5
        The pseudo-count of the Laplace-style tables (Weka's default 0.5) and, under both
        smoothers, of the class prior P(y) = (N_y + alpha) / (S + alpha C).
    max_parent_cardinality : float, default 200
        A feature with more categories is never a tree parent (it is attached as a leaf).
    max_joint_cells : float, default 5e7
        A pair with C K_i K_j above this is never linked. A feature left with no linkable
        partner keeps the class as its only parent: its factor is Naive Bayes's P(x_j | y).
    max_pairs : float, default 2e4
        AODE's pair cap: with F features, a model whose F (F - 1) ordered pairs exceed this
        (more than 141 features at the default) counts no pair, links no feature and is
        Naive Bayes (Lidstone with alpha, or HEB-M); ``notes_`` says so and a warning is
        issued. This bounds the counting work per row.
    n0 : float, default 10
        HEB: a (class, child) group whose best-populated parent value has fewer rows uses
        m = K_j (SPEC section 4).
    m_min, m_max : float
        HEB: the clamp of the learned concentration.

    Attributes
    ----------
    classes_ : ndarray (C,)
    n_features_in_ : int
    n_categories_ : ndarray (F,)
    count_table_ : CountTable
        Class and single-feature counts.
    pair_counts_ : PairCounts
        Joint counts of every pair the caps allow (what ``partial_fit`` adds to).
    arc_gain_ : ndarray (F, F)
        The tree's arc weights: ``arc_gain_[a, b]`` is the log-likelihood gain of giving
        feature a the parent b, N_ab I(X_a; X_b | Y) over the N_ab rows where both are
        observed (see :func:`heb.tan_structure.arc_gains`); NaN on the diagonal and for
        pairs over a cap.
    conditional_mutual_info_ : ndarray (F, F)
        I(X_a; X_b | Y) in nats (``arc_gain_ / N_ab``); NaN where ``arc_gain_`` is.
    parents_ : ndarray (F,)
        Each feature's tree parent, -1 for none (the root, and features over the caps).
    root_ : int
        The root of the tree; when the caps split it into several trees, the lowest
        numbered of their roots (a feature the caps leave unlinked is a tree of its own).
    notes_ : list of str
        What a cap changed about the model (empty when no note applies).
    factor_counts_ : JointCounts
        The counts of every factor, as arcs (parent, child): first the tree's arcs, in
        feature order, then one class-only arc per feature from a virtual constant parent
        (feature index F), whose table is the Naive Bayes factor P(x_j | y).
    class_log_prior_ : ndarray (C,)
    conditional_log_prob_ : ndarray (cells, C)
        log P(x_j = v | y, x_parent = u) of the tree's arcs, cell layout of
        ``factor_counts_``.
    feature_log_prob_ : ndarray (C, V)
        log P(x_j = v | y), the class-only factors over all features' categories (0 for
        unseen categories): the factor of a feature without a feature parent, and of a
        child whose parent value is missing or unseen. Lidstone with alpha, or HEB-M
        (for HEB-TAN).
    arc_concentration_ : ndarray (arcs + F, C)
        m of each arc (tree arcs, then class-only) and class (alpha K_j for Laplace).
    concentrations_ : dict of ndarray or None
        HEB only: one entry per (class, arc) group, as HEB-AODE's ``concentrations_``
        (parent, child, m, rho, ...), parent -1 for the class-only factors; built on
        first access.

    Notes
    -----
    Missing or unseen values are absent evidence: a feature's factor is left out; a child
    whose parent value is missing or was never seen in training uses its NB factor.
    ``partial_fit`` adds the chunk to the single and pairwise counts and re-learns the tree
    and every table from all counts so far, so any split into chunks gives ``fit``'s model.
    """

    def __init__(
        self,
        smoother: str = "laplace",
        root: int | None = None,
        alpha: float = 0.5,
        max_parent_cardinality: float = 200,
        max_joint_cells: float = 5e7,
        max_pairs: float = 2e4,
        n0: float = 10,
        m_min: float = M_MIN,
        m_max: float = M_MAX,
    ):
        self.smoother = smoother
        self.root = root
        self.alpha = alpha
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
        if self._smoother_key() not in TAN_SMOOTHERS:  # any case
            raise ValueError(f"Unknown TAN smoother {self.smoother!r}; choose 'laplace' or 'heb'.")
        for name in ("max_parent_cardinality", "max_joint_cells", "max_pairs", "n0"):
            check_non_negative(name, getattr(self, name))
        if not is_number(self.alpha) or not 0 < self.alpha < np.inf:
            raise ValueError(f"alpha must be a positive number, got {self.alpha!r}.")
        if self.root is not None and (
            isinstance(self.root, bool) or not isinstance(self.root, int | np.integer)
        ):
            raise ValueError(f"root must be None or a feature index, got {self.root!r}.")
        check_clamp(self.m_min, self.m_max)

    def _count(self, codes, y_idx, n_classes, n_categories):
        table = CountTable.from_codes(codes, y_idx, n_classes, n_categories)
        pairs = PairCounts.from_codes(
            codes,
            y_idx,
            n_classes,
            table.n_categories,
            self.max_parent_cardinality,
            self.max_joint_cells,
            self.max_pairs,
        )
        return table, pairs

    def _fitted_counts(self) -> tuple[CountTable, PairCounts]:
        return self.count_table_, self.pair_counts_

    @property
    def _caps(self) -> tuple[float, float, float]:
        return (self.max_parent_cardinality, self.max_joint_cells, self.max_pairs)

    def fit_counts(self, table: CountTable, pairs: PairCounts, classes=None):
        """Learn the tree and smooth it from precomputed counts (no recounting; a model
        file's counts, :mod:`heb.model_io`).

        Parameters
        ----------
        table : CountTable
        pairs : PairCounts
            Built with this model's caps and ``table``'s categories.
        classes : array-like (C,), optional
            Labels of the classes; default ``0..C-1``.
        """
        self._validate_params_()
        classes = np.arange(table.n_classes) if classes is None else np.asarray(classes)
        pairs.check_fits(table, classes, self._caps, "pair counts")
        return self._set_counts(table, pairs, classes)

    def _set_counts(self, table: CountTable, pairs: PairCounts, classes: np.ndarray):
        C, F = table.n_classes, table.n_features
        k = table.n_categories
        can_parent = k <= self.max_parent_cardinality
        if self.root is not None:
            if not 0 <= self.root < F:
                raise ValueError(f"root must be a feature index in 0..{F - 1}, got {self.root}.")
            if not can_parent[self.root]:
                raise ValueError(
                    f"root feature {self.root} has {k[self.root]} categories, more than "
                    f"max_parent_cardinality ({self.max_parent_cardinality:g}); it cannot "
                    "be a parent."
                )
        self.classes_ = classes
        self.n_features_in_ = F
        self.n_categories_ = k
        self.count_table_ = table
        self.pair_counts_ = pairs
        self.notes_ = []
        if F * (F - 1) > self.max_pairs:
            self.notes_.append(
                f"TAN over {F} features would weigh {F * (F - 1):,} (parent, child) pairs, "
                f"more than max_pairs = {self.max_pairs:g}: it is Naive Bayes instead."
            )
            warnings.warn(self.notes_[-1], stacklevel=3)
        elif F > 1 and not can_parent.any():
            self.notes_.append(
                f"No feature has at most max_parent_cardinality = "
                f"{self.max_parent_cardinality:g} categories, so none can be a parent: this "
                "TAN is Naive Bayes (Lidstone, or HEB-M for HEB-TAN)."
            )
            warnings.warn(self.notes_[-1], stacklevel=3)
        self.arc_gain_, rows = arc_gains(pairs)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.conditional_mutual_info_ = np.where(rows > 0, self.arc_gain_ / rows, 0.0)
        self.conditional_mutual_info_[np.isnan(rows)] = np.nan
        parents = spanning_tree(self.arc_gain_, can_parent, self.root)
        self.parents_ = parents
        roots = np.flatnonzero((parents < 0) & can_parent)
        self.root_ = int(self.root if self.root is not None else (roots[0] if roots.size else 0))
        factors = tree_pair_counts(pairs, parents, table)
        self.factor_counts_ = factors
        n_arcs = int((parents >= 0).sum())
        self.class_log_prior_ = np.log(table.class_counts + self.alpha) - np.log(
            table.n_samples + self.alpha * C
        )

        totals = factors.parent_totals()
        self._learned = None
        if self._smoother_key() == "laplace":
            k_child = factors.n_categories[factors.child].astype(np.float64)
            m = np.repeat(self.alpha * k_child[:, None], C, axis=1)
            prior = prior_mean(table, "uniform")
        else:
            prior = prior_mean(table, "marginal")
            self._learned = fit_pair_concentrations(
                factors, totals, prior, table.offsets, self.n0, self.m_min, self.m_max
            )
            m = self._learned.m
        self._diagnostics_cache = None
        self.arc_concentration_ = m

        seen = table.category_totals() > 0
        conditionals = conditional_log_probs(factors, totals, m, prior, seen)
        score_table = np.vstack([conditionals, np.zeros((1, C))])  # absent evidence adds 0
        self._score_table = score_table
        single_start = int(factors.offsets[n_arcs])
        self.conditional_log_prob_ = score_table[:single_start]
        self.feature_log_prob_ = score_table[single_start:-1].T
        self._single_start = single_start
        self._seen = seen
        arc_start = np.full(F, -1, dtype=np.int64)
        arc_start[factors.child[:n_arcs]] = factors.offsets[:n_arcs]
        self._arc_start = arc_start
        return self

    @property
    def concentrations_(self) -> dict[str, np.ndarray] | None:
        """HEB: per (class, arc) diagnostics, built on first access (see class doc)."""
        check_is_fitted(self, "count_table_")
        if self._diagnostics_cache is None and self._learned is not None:
            diagnostics = self._learned.diagnostics(self.factor_counts_)
            class_only = diagnostics["parent"] == self.n_features_in_
            diagnostics["parent"] = np.where(class_only, -1, diagnostics["parent"])
            self._diagnostics_cache = diagnostics
        return self._diagnostics_cache

    # ------------------------------------------------------------------ scoring
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y) + the log of every observed feature's factor, shape (n, C)."""
        codes = self._codes_for_predict(X)
        table = self.count_table_
        k = table.n_categories
        C, F = table.n_classes, table.n_features
        col_offsets = table.offsets[:-1]
        has_parent = self.parents_ >= 0
        parent = np.where(has_parent, self.parents_, 0)
        nb_start = self._single_start + col_offsets
        sentinel = self._score_table.shape[0] - 1
        out = np.empty((codes.shape[0], C))
        block = max(1, _BLOCK_CELLS // max(1, F * C))
        for start in range(0, codes.shape[0], block):
            x = codes[start : start + block]
            in_range = (x >= 0) & (x < k)
            observed = in_range & self._seen[np.where(in_range, col_offsets + x, 0)]
            x_parent = x[:, parent]
            use_arc = has_parent & observed[:, parent]
            arc_cell = self._arc_start + x_parent * k + x
            index = np.where(use_arc, arc_cell, nb_start + x)
            index = np.where(observed, index, sentinel)
            out[start : start + block] = self._score_table[index].sum(axis=1)
        return out + self.class_log_prior_
