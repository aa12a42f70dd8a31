"""Categorical Naive Bayes with a choice of smoother, scikit-learn compatible.

``NaiveBayes(smoother="heb-m")`` is HEB-NB with the pooled-marginal prior mean;
``weighting="sqrt-mi"`` adds the sqrt-mutual-information feature weights (HEB-M+GR).
Input is a 2-D array of integer category codes; a negative code or NaN is missing and a
code never seen in training is unseen: both are absent evidence (SPEC section 1).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse
from sklearn.utils.validation import check_is_fitted

from heb import registry
from heb.concentration import M_MAX, M_MIN, grouped_log_evidence
from heb.counts import CountTable
from heb.estimator import CategoricalClassifier, check_clamp, check_non_negative
from heb.smoothing import (
    SeenColumnLog,
    mutual_information,
    prior_mean,
    resolve_params,
    smooth,
)

__all__ = ["FLAT_HEB_H", "NaiveBayes", "WEIGHTINGS", "pair_log_evidence", "score_codes"]

WEIGHTINGS = (None, "sqrt-mi")
#: how the warning of a fit of HEB-H without hierarchies begins (a filter's message)
FLAT_HEB_H = "NaiveBayes('heb-h') was given no hierarchies, so it fits HEB-M"
_CLAMP_NAMES = np.array(["low", "none", "high"])
#: codes per sparse block of :func:`sum_columns` (about 50 MB of index and weights)
_CODES_PER_BLOCK = 1 << 22


def score_codes(
    log_theta: np.ndarray,
    offsets: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Sum of (weighted) log-probabilities of each row's codes, shape (n, C).

    Codes that are negative, ``>= K_f`` or of unseen categories (log table column 0)
    contribute nothing.
    """
    return sum_columns(log_theta, column_numbers(offsets, codes, log_theta.shape[1]), weights)


def column_numbers(offsets: np.ndarray, codes: np.ndarray, absent: int) -> np.ndarray:
    """Table column of each code, shape (n, F); ``absent`` where a code is outside 0..K_f-1."""
    valid = (codes >= 0) & (codes < np.diff(offsets))
    if valid.all():
        return offsets[:-1] + codes
    return np.where(valid, offsets[:-1] + codes, absent)


def sum_columns(
    table: np.ndarray, index: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Sum over features of ``weights[f] * table[:, index[:, f]]``, shape (n, C).

    An index equal to the table's width contributes nothing. When the rows' codes
    outnumber the table's columns: a sparse (n, V + 1) matrix of the codes (one weight
    each) times a transposed copy of the table, a block of rows at a time (scipy adds a
    row's terms in feature order, so the sums equal a loop over features). Else one
    vectorised gather per feature of columns of the table itself (never copied).
    """
    n_rows, n_features = index.shape
    C, V = table.shape
    if n_rows * n_features < V:
        absent = index == V
        any_absent = bool(absent.any())
        out_t = np.zeros((C, n_rows))
        gathered = np.empty((C, n_rows))  # one buffer for every feature's gather
        if any_absent:
            index = np.minimum(index, V - 1)
        for f in range(n_features):
            table.take(index[:, f], axis=1, out=gathered)
            if any_absent:
                gathered[:, absent[:, f]] = 0.0
            if weights is not None:
                gathered *= weights[f]
            out_t += gathered
        return np.ascontiguousarray(out_t.T)
    if not n_features:
        return np.zeros((n_rows, C))
    # (V + 1, C): one row per column, the last (all zeros) for absent evidence
    rows = np.zeros((V + 1, C))
    rows[:-1] = table.T
    # each block of rows is a sparse (rows, V + 1) matrix of one weight per code, times
    # ``rows``: scipy adds each row's features in order, as a loop over features would
    block = max(1, min(n_rows, _CODES_PER_BLOCK // n_features))  # no bigger than the rows
    kind = np.int32 if max(V + 1, block * n_features) < 2**31 else np.int64
    data = np.ones(block * n_features) if weights is None else np.tile(weights, block)
    indptr = np.arange(0, block * n_features + 1, n_features, dtype=kind)
    out = np.empty((n_rows, C))
    for start in range(0, n_rows, block):  # blocks bound the sparse matrix's memory
        part = index[start : start + block]
        n_part = part.shape[0]
        columns = part.ravel().astype(kind, copy=False)
        codes = sparse.csr_matrix(
            (data[: n_part * n_features], columns, indptr[: n_part + 1]),
            shape=(n_part, V + 1),
        )
        out[start : start + n_part] = codes @ rows
    return out


def pair_log_evidence(table: CountTable, prior: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The Dirichlet-multinomial log evidence (paper eq. 5) of every (class, feature)
    pair's counts at its concentration ``m`` (C * F, row-major) and ``prior`` (V,), as
    :func:`heb.concentration.log_evidence` gives for one pair; shape (C * F,)."""
    C, F = table.n_classes, table.n_features
    m = np.asarray(m, dtype=np.float64).reshape(C, F)
    f = table.feature_of_column  # one document per (class, feature): the pair's counts
    n_cf = table.class_feature_totals()
    return grouped_log_evidence(table.counts, prior, f, n_cf[:, f], f, m[:, f], F)


class NaiveBayes(CategoricalClassifier):
    """Categorical Naive Bayes over integer codes with a named smoother.

    Codes of feature f are 0..K_f-1 with K_f the largest training code + 1 (a count
    table's own in :meth:`fit_counts`), as scikit-learn's CategoricalNB reads them: a code
    no training row has still counts in K_f. SPEC's codes (the distinct values seen,
    0..K_f-1) are what :class:`heb.data.Preprocessor` and :func:`heb.data.make_model` give.

    Parameters
    ----------
    smoother : str, default "heb-m"
        A name of :data:`heb.registry.SMOOTHERS`: ``"laplace"``, ``"lidstone"``, ``"kt"``,
        ``"m-estimate"``, ``"te"``, ``"heb-u"``, ``"heb-m"``, ``"heb-h"``.
    alpha : float, optional
        Lidstone's pseudo-count (default 0.1).
    m : float, optional
        The m-estimate's concentration (default 2).
    k0 : float, optional
        Target-encoding shrinkage strength (default 10). For ``alpha``, ``m`` and ``k0``
        the defaults and accepted ranges come from the registry; one the chosen smoother
        does not use (``NaiveBayes("laplace", alpha=0.5)``) is a ValueError in ``fit``.
    weighting : {None, "sqrt-mi"}
        Feature weights w_f = sqrt(MI(X_f; Y)) in nats, from the training counts.
    n0 : float, default 10
        HEB: a (class, feature) pair with fewer observed rows uses m = K_f.
    m_min, m_max : float
        HEB: the clamp of the learned concentration.
    hierarchies : dict, optional
        HEB-H only: feature index -> list of levels, each the parent code of every code of
        the level below (:mod:`heb.hierarchy`; helpers in :mod:`heb.hierarchy_sources`).
        ``None``: HEB-H is HEB-M, which :meth:`fit` and a first :meth:`partial_fit` say
        in a UserWarning (:meth:`fit_counts`, the counts path of cross-validation and the
        app, does not: their results say it in their notes).

    Attributes
    ----------
    classes_ : ndarray (C,)
    n_features_in_ : int
    n_categories_ : ndarray (F,)
        K_f, the width of each feature's table.
    count_table_ : CountTable
        The sufficient statistics (what ``partial_fit`` adds to).
    class_log_prior_ : ndarray (C,)
        log (N_c + 1) / (S + C) (N_c and S summed weights under ``sample_weight``).
    feature_log_prob_ : ndarray (C, V)
        Smoothed log theta over all features' categories (0 for unseen categories).
    feature_weights_ : ndarray (F,)
        All ones unless ``weighting="sqrt-mi"``.
    concentrations_ : dict of ndarray or None
        One entry per (class, feature) pair (columns: class, feature, N_c, K_f, m, rho,
        iterations, converged, clamped, log_evidence, fallback); ``None`` for TE. Built on
        first access: the evidence is diagnostics only and fitting does not need it.
        ``log_evidence`` is the Dirichlet-multinomial log evidence of the pair's counts at
        its m and the smoother's prior mean (paper eq. 5), whether m was learned or set
        (a fixed smoother, a fallback pair): Laplace's is HEB-U's evidence at m = K_f.
    """

    def __init__(
        self,
        smoother: str = "heb-m",
        alpha: float | None = None,
        m: float | None = None,
        k0: float | None = None,
        weighting: str | None = None,
        n0: float = 10,
        m_min: float = M_MIN,
        m_max: float = M_MAX,
        hierarchies: dict | None = None,
    ):
        self.smoother = smoother
        self.alpha = alpha
        self.m = m
        self.k0 = k0
        self.weighting = weighting
        self.n0 = n0
        self.m_min = m_min
        self.m_max = m_max
        self.hierarchies = hierarchies

    # ------------------------------------------------------------------ fitting
    def _hyper_params(self) -> dict[str, float | None]:
        """The smoother hyper-parameters given to the constructor (``None``: default)."""
        return {"alpha": self.alpha, "m": self.m, "k0": self.k0}

    def _validate_params_(self) -> None:
        # the registry knows the smoother, the parameters it uses and their ranges
        resolve_params(self.smoother, **self._hyper_params())
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be None or 'sqrt-mi', got {self.weighting!r}.")
        check_non_negative("n0", self.n0)  # as AODE and TAN check theirs
        check_clamp(self.m_min, self.m_max)

    def fit(self, X, y, sample_weight=None):
        """Count the training rows (weighted, if given) and smooth.

        Parameters
        ----------
        X : array-like (n, F) of integer codes (negative / NaN = missing)
        y : array-like (n,) of class labels
        sample_weight : array-like (n,) of float, optional
            Each row counts this much (finite, >= 0) in the class counts and the count
            table, so a whole-number weight equals repeating the row and a weight of 0
            equals leaving it out (K_f comes from the rows of positive weight). A class
            whose rows all weigh 0 stays in ``classes_`` with N_c = 0, as a class named
            to :meth:`partial_fit` before any of its rows: prior 1 / (S + C), its
            tables the smoother's prior mean (CategoricalNB gives it a log prior of -inf).
            The HEB smoothers take fractional weights too: their evidence over
            fractional counts can have several peaks, and the solver searches them all
            (:func:`heb.concentration.fractional_groups`), at every level of HEB-H.

        Warns
        -----
        UserWarning
            Smoother ``"heb-h"`` without ``hierarchies``: the fit is HEB-M's.
        """
        self._fit(X, y, sample_weight)
        self._say_if_flat()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows (weighted, if given: see :meth:`fit`) and re-smooth.

        ``classes`` (all labels that will ever be seen) is required on the first call.
        The first call warns as :meth:`fit` does of HEB-H without hierarchies.
        """
        first = not hasattr(self, "count_table_")
        self._partial_fit(X, y, classes, sample_weight)
        if first:
            self._say_if_flat()
        return self

    def _say_if_flat(self) -> None:
        """Warn (once per fit) when HEB-H has no hierarchy: a student comparing it with
        HEB-M got the same numbers and no word why."""
        if not self.hierarchies and registry.smoother(self.smoother).name == "heb-h":
            warnings.warn(
                f"{FLAT_HEB_H} (the same numbers): pass hierarchies={{feature index: levels}} "
                "(heb.hierarchy_sources builds levels from a parent column or label prefixes) "
                "to borrow along them, or use 'heb-m'.",
                UserWarning,
                stacklevel=3,
            )

    def _count(self, codes, y_idx, n_classes, n_categories, weights=None) -> tuple[CountTable]:
        if weights is None:  # CategoricalClassifier passes K_f >= these codes' maximum + 1
            table = CountTable.from_codes(codes, y_idx, n_classes, n_categories, codes_below_k=True)
        else:  # a row of weight 0 may hold a code >= K_f
            table = CountTable.from_codes(codes, y_idx, n_classes, n_categories, weights=weights)
        return (table,)

    def _fitted_counts(self) -> tuple[CountTable]:
        return (self.count_table_,)

    def fit_counts(self, table: CountTable, classes=None):
        """Smooth a precomputed :class:`CountTable` (no recounting: the what-if path).

        Parameters
        ----------
        table : CountTable
        classes : array-like (C,), optional
            Labels of the table's classes; default ``0..C-1``.
        """
        self._validate_params_()
        classes = np.arange(table.n_classes) if classes is None else np.asarray(classes)
        if classes.shape != (table.n_classes,):
            raise ValueError("classes must have one label per class of the table.")
        return self._set_counts(table, classes)

    def _smooth(self, table: CountTable, hierarchies: dict | None = None):
        """The smoothed table; ``hierarchies`` (a subclass's own) overrides the parameter."""
        return smooth(
            table,
            self.smoother,
            n0=self.n0,
            m_min=self.m_min,
            m_max=self.m_max,
            hierarchies=self.hierarchies if hierarchies is None else hierarchies,
            **self._hyper_params(),
        )

    def _set_counts(self, table: CountTable, classes: np.ndarray):
        smoothed = self._smooth(table)
        C = table.n_classes
        self.classes_ = classes
        self.n_features_in_ = table.n_features
        self.n_categories_ = table.n_categories
        self.count_table_ = table
        self.class_log_prior_ = np.log(table.class_counts + 1.0) - np.log(table.n_samples + C)
        self._log_columns = smoothed.log_columns
        self._feature_log_prob = None  # the dense table is built on first access
        if self.weighting == "sqrt-mi":
            self.feature_weights_ = np.sqrt(mutual_information(table))
        else:
            self.feature_weights_ = np.ones(table.n_features)
        # the per-pair diagnostics are built on first access of ``concentrations_``
        self._diagnostics_source = (table, smoothed)
        self._diagnostics_cache = None
        return self

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """Smoothed log theta (C, V), 0 for unseen categories (see class doc)."""
        if not hasattr(self, "_log_columns"):
            raise AttributeError("feature_log_prob_ is set by fit.")
        if self._feature_log_prob is None:
            self._feature_log_prob = self._log_columns.dense()
        return self._feature_log_prob

    def dense_log_prob(self) -> np.ndarray:
        """:attr:`feature_log_prob_` built afresh and not kept on the model (a caller that
        stacks many models' tables would otherwise hold every one twice)."""
        if not hasattr(self, "_log_columns"):
            raise AttributeError("dense_log_prob is set by fit.")
        if self._feature_log_prob is not None:
            return self._feature_log_prob
        return self._log_columns.dense()

    @feature_log_prob_.setter
    def feature_log_prob_(self, value: np.ndarray) -> None:
        value = np.asarray(value, dtype=float)
        self._log_columns = SeenColumnLog(value, None, value.shape[1])
        self._feature_log_prob = value

    @property
    def concentrations_(self) -> dict[str, np.ndarray] | None:
        """Per (class, feature) pair diagnostics, built on first access (see class doc)."""
        check_is_fitted(self, "count_table_")
        if self._diagnostics_cache is None:
            table, smoothed = self._diagnostics_source
            diagnostics = self._diagnostics(table, smoothed)
            if diagnostics is not None:
                self._fill_unfitted_evidence(diagnostics, table)
            self._diagnostics_cache = diagnostics
        return self._diagnostics_cache

    def _fill_unfitted_evidence(self, diagnostics: dict, table: CountTable) -> None:
        """The log evidence of the pairs whose m was set, not fitted: every pair of a fixed
        smoother (Laplace, Lidstone, KT, m-estimate) and HEB-U's / HEB-M's fallback pairs.

        The solver reports 0 for them, which reads as an evidence of probability 1, the
        highest of all; the Dirichlet-multinomial evidence (paper eq. 5) at their m and
        the smoother's prior mean is what the fitted pairs report at theirs.
        """
        entry = registry.smoother(self.smoother)
        if entry.rule == "type-ii-ml":
            unfitted = np.asarray(diagnostics["fallback"], dtype=bool)
        elif entry.rule in ("additive", "fixed-m"):
            unfitted = np.ones(diagnostics["m"].size, dtype=bool)
        else:  # HEB-H's levels (and a registered rule) report their own
            return
        if unfitted.any():
            evidence = pair_log_evidence(table, prior_mean(table, entry.prior), diagnostics["m"])
            diagnostics["log_evidence"] = np.where(unfitted, evidence, diagnostics["log_evidence"])

    @staticmethod
    def _diagnostics(table: CountTable, smoothed) -> dict[str, np.ndarray] | None:
        if smoothed.concentration is None:
            return None
        C, F = table.n_classes, table.n_features
        n_cf = table.class_feature_totals().ravel()
        m = smoothed.concentration.ravel()
        fit = smoothed.fit
        pairs = C * F
        return {
            "class": np.repeat(np.arange(C), F),
            "feature": np.tile(np.arange(F), C),
            "N_c": n_cf,
            "K_f": np.tile(table.n_categories, C),
            "m": m,
            "rho": m / (n_cf + m),
            "iterations": fit.iterations if fit else np.zeros(pairs, dtype=int),
            "converged": fit.converged if fit else np.ones(pairs, dtype=bool),
            "clamped": _CLAMP_NAMES[(fit.clamped + 1) if fit else np.ones(pairs, dtype=int)],
            "log_evidence": fit.log_evidence if fit else np.zeros(pairs),
            "fallback": smoothed.fallback.ravel() if fit else np.zeros(pairs, dtype=bool),
        }

    # ------------------------------------------------------------------ scoring
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log pi_c + sum_f w_f log theta_{c,f,x_f} for each row, shape (n, C)."""
        codes = self._codes_for_predict(X)
        weights = None if self.weighting is None else self.feature_weights_
        table = self._log_columns
        # only the seen columns are read: a large-K table is never materialised to score
        index = table.position(column_numbers(self.count_table_.offsets, codes, table.width))
        return sum_columns(table.values, index, weights) + self.class_log_prior_
