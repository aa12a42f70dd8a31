"""Naive Bayes over features that form hierarchies among themselves (HEB-H, FD-aware).

When feature A determines feature B (every value of A has one parent value in B, as
ROLE_TITLE -> ROLE_FAMILY on amazon-employee-access), plain Naive Bayes multiplies
P(a | c) P(b | c) and counts B's evidence twice, since P(a | c) = P(b | c) P(a | b, c).
:class:`HierarchicalNaiveBayes` smooths A with HEB-H along its hierarchy (B's values as
A's level-1 groups) and scores A *given its parent feature*: its factor is the
within-group conditional psi_c(a) = theta_c(a) / phi_c(g(a)), phi_c(g) = sum over the
group's leaves of theta_c, so that P(a, b | c) = P(b | c) psi_c(a) exactly when b = g(a).
Where the row's B is missing, unseen or not A's group (an approximate dependency), A's
factor is the full theta_c(a), as in Naive Bayes.

Hierarchies are detected in ``fit`` from the training codes
(:func:`heb.hierarchy_sources.functional_dependencies` with ``fd_tolerance``), or given
(``hierarchies`` with ``parents``, the feature each child's level 1 is made of).
``partial_fit`` detects on its first chunk only and keeps that structure (a category first
met in a later chunk hangs alone under new nodes and is scored as in Naive Bayes).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.utils.validation import check_is_fitted

from heb import registry
from heb.concentration import M_MAX, M_MIN
from heb.counts import CountTable
from heb.estimator import is_number
from heb.hierarchy import check_hierarchies, fit_nested
from heb.hierarchy_sources import dependency_chains, functional_dependencies, levels_from_chain
from heb.nb import NaiveBayes

__all__ = ["HierarchicalNaiveBayes", "detect_hierarchies", "level_concentrations"]


def detect_hierarchies(codes: np.ndarray, tolerance: float) -> tuple[dict, dict]:
    """Hierarchies among the columns of ``codes`` and each child's parent column.

    Returns ``(hierarchies, parents)``: feature -> levels (from its chain of ever coarser
    dependent columns) and feature -> the column its level 1 is made of.
    """
    chains = dependency_chains(functional_dependencies(codes, tolerance=tolerance))
    hierarchies = {a: levels_from_chain(codes, a, chain) for a, chain in chains.items()}
    return hierarchies, {a: chain[0] for a, chain in chains.items()}


_CLAMP_NAMES = np.array(["low", "none", "high"])


def level_concentrations(model: NaiveBayes) -> dict[str, np.ndarray]:
    """Every level's learned concentration of a fitted HEB-H model, per (class, feature).

    The leaf level of a pair is what ``model.concentrations_`` reports for it where the
    tree has most of the pair's weight (elsewhere ``concentrations_`` has HEB-M's m; the
    estimate averages the two, :func:`heb.hierarchy.fit_nested`); the upper levels are
    fitted again from ``model.count_table_`` with the model's settings
    (:func:`heb.hierarchy.fit_nested`, the rule the model ran).

    Parameters
    ----------
    model : NaiveBayes or HierarchicalNaiveBayes
        Fitted with ``smoother="heb-h"``.

    Returns
    -------
    dict of ndarray
        One entry per (class, feature with a hierarchy, level): ``class``, ``feature``,
        ``level`` (0 = the leaves given their level-1 group), ``n_nodes``, ``N_c``, ``m``,
        ``rho``, ``hierarchy_weight``, ``hierarchy_used``, ``fallback``, ``clamped``
        ("low" / "none" / "high"), ``iterations``, ``converged``; sorted by feature,
        level, class.
    """
    check_is_fitted(model, "count_table_")
    if registry.smoother(model.smoother).name != "heb-h":
        raise ValueError(f"Level concentrations belong to HEB-H, not {model.smoother!r}.")
    table = model.count_table_
    hierarchies = getattr(model, "hierarchies_", model.hierarchies) or {}
    fit = fit_nested(table, hierarchies, n0=model.n0, m_min=model.m_min, m_max=model.m_max)
    levels = fit.levels
    keep = np.isin(levels["feature"], [int(f) for f in hierarchies])
    order = np.lexsort((levels["class"][keep], levels["level"][keep], levels["feature"][keep]))
    out = {name: values[keep][order] for name, values in levels.items()}
    out["N_c"] = table.class_feature_totals()[out["class"], out["feature"]]
    out["clamped"] = _CLAMP_NAMES[out["clamped"].astype(int) + 1]
    return out


class HierarchicalNaiveBayes(NaiveBayes):
    """HEB-H Naive Bayes scoring each child feature given its parent feature (module doc).

    Parameters
    ----------
    smoother, alpha, m, k0, weighting, n0, m_min, m_max
        As :class:`heb.nb.NaiveBayes` (default ``"heb-h"``).
    hierarchies : dict, optional
        Feature -> levels; ``None`` detects them in ``fit``.
    parents : dict, optional
        Feature -> the feature whose codes make its level 1 (scored conditionally);
        with given ``hierarchies`` and no ``parents``, nothing is scored conditionally.
    fd_tolerance : float, default 0.05
        Detection's tolerance (Goodman-Kruskal lambda of the parent given the child at
        least ``1 - fd_tolerance``; 0: exact dependencies only).
    condition_on_parent : bool, default True
        Score a child given its parent feature; False: plain Naive Bayes factors.

    Attributes
    ----------
    hierarchies_, parents_ : dict
        The structure used (detected or given).
    group_log_prob_ : dict of int -> ndarray (C, G)
        log phi_c(g) of each conditionally scored child's level-1 groups.
    """

    def __init__(
        self,
        smoother: str = "heb-h",
        alpha: float | None = None,
        m: float | None = None,
        k0: float | None = None,
        weighting: str | None = None,
        n0: float = 10,
        m_min: float = M_MIN,
        m_max: float = M_MAX,
        hierarchies: dict | None = None,
        parents: dict | None = None,
        fd_tolerance: float = 0.05,
        condition_on_parent: bool = True,
    ):
        super().__init__(smoother, alpha, m, k0, weighting, n0, m_min, m_max, hierarchies)
        self.parents = parents
        self.fd_tolerance = fd_tolerance
        self.condition_on_parent = condition_on_parent

    def fit(self, X, y, **fit_params):
        """Detect (or take) the hierarchies and fit; ``sample_weight`` is refused in one
        sentence (the detection reads rows, not weights)."""
        self._refuse_fit_params(fit_params)
        return self._fit(X, y)

    def partial_fit(self, X, y, classes=None, **fit_params):
        """As :meth:`heb.nb.NaiveBayes.partial_fit`, without ``sample_weight``."""
        self._refuse_fit_params(fit_params)
        return self._partial_fit(X, y, classes)

    def fit_counts(self, table: CountTable, classes=None):
        """Smooth a precomputed :class:`CountTable` along the given ``hierarchies`` and
        ``parents`` (a model file's structure, :mod:`heb.model_io`).

        Raises
        ------
        ValueError
            Without ``hierarchies``: detection reads rows, which a count table has not.
        """
        if self.hierarchies is None:
            raise ValueError(
                "HierarchicalNaiveBayes detects its hierarchies in rows, which a count table "
                "has not: give hierarchies (and parents) to fit it from counts."
            )
        self._validate_params_()
        self._learn_structure(None)
        return super().fit_counts(table, classes)

    def _validate_params_(self) -> None:
        super()._validate_params_()
        for name, value in (("hierarchies", "list of levels"), ("parents", "parent feature")):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), Mapping):
                raise ValueError(f"{name} must map a feature index to its {value}.")
        if not is_number(self.fd_tolerance) or not 0 <= self.fd_tolerance < 1:
            raise ValueError(f"fd_tolerance must lie in [0, 1), got {self.fd_tolerance!r}.")

    def _learn_structure(self, codes: np.ndarray) -> None:
        """Detect (or take) the hierarchies; on the first chunk only, then kept."""
        if self.hierarchies is None:
            self.hierarchies_, self.parents_ = detect_hierarchies(codes, self.fd_tolerance)
        else:
            self.hierarchies_ = dict(self.hierarchies)
            self.parents_ = dict(self.parents or {})
        own = [a for a, b in self.parents_.items() if a == b]
        if own:
            raise ValueError(f"parents names features {own} as their own parents.")
        bad = [a for a in self.parents_ if a not in self.hierarchies_]
        if bad:
            raise ValueError(f"parents names features {bad} without a hierarchy of their own.")

    def _smooth(self, table: CountTable):
        outside = [b for b in self.parents_.values() if not 0 <= b < table.n_features]
        if outside:  # given (a model file's): scoring would index a column that is not
            raise ValueError(
                f"parents names feature {outside[0]}, not an index in 0..{table.n_features - 1}."
            )
        # categories first met in a later partial_fit chunk hang alone under new nodes
        self._levels = check_hierarchies(self.hierarchies_, table.n_categories)
        # other smoothers take no hierarchy; their children are still scored conditionally
        own = registry.smoother(self.smoother).name == "heb-h"  # "HEB-H" too
        smoothed = super()._smooth(table, self._levels if own else {})
        conditional = self.condition_on_parent
        self.group_log_prob_ = self._group_tables(table, smoothed) if conditional else {}
        return smoothed

    def _group_tables(self, table: CountTable, smoothed) -> dict[int, np.ndarray]:
        """log phi_c(g) = log sum over the group's leaves of theta_c, per child feature."""
        out = {}
        for a in self.parents_:
            cols = slice(table.offsets[a], table.offsets[a + 1])
            theta = np.where(smoothed.seen[cols], np.exp(smoothed.log_theta[:, cols]), 0.0)
            groups = self._levels[a][0][: theta.shape[1]]
            C, G = theta.shape[0], int(groups.max()) + 1
            index = (np.arange(C)[:, None] * G + groups[None, :]).ravel()
            phi = np.bincount(index, theta.ravel(), C * G).reshape(C, G)
            with np.errstate(divide="ignore"):
                out[a] = np.log(phi)
        return out

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log pi_c + sum_f w_f log theta_{c,f,x_f}, children given their parent feature."""
        scores = super().predict_joint_log_proba(X)  # the plain NB sum, class prior included
        for _, rows, terms in self.conditional_terms(self._codes_for_predict(X)):
            scores[rows] -= terms
        return scores

    def conditional_terms(self, codes: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """What scoring a child given its parent takes off the plain Naive Bayes sum.

        For each conditionally scored child feature ``a``: ``(a, rows, terms)``, the rows
        (of validated ``codes``) whose parent value is the group of their ``a`` value, and
        ``w_a log phi_c(g)`` of each (shape (len(rows), C)): the row's factor of ``a`` is
        ``theta_c(a) / phi_c(g)``. :func:`heb.explain.explain` takes them off ``a``'s term.
        """
        weights = None if self.weighting is None else self.feature_weights_
        table = self.count_table_
        seen = table.category_totals() > 0
        k = table.n_categories
        out = []
        for a, log_phi in self.group_log_prob_.items():
            b = self.parents_[a]
            xa, xb = codes[:, a], codes[:, b]
            # codes of the detection's chunk only (later ones have no parent group)
            ok = (xa >= 0) & (xa < min(k[a], self.hierarchies_[a][0].size))
            ok[ok] &= seen[table.offsets[a] + xa[ok]]
            group = np.where(ok, self.hierarchies_[a][0][np.where(ok, xa, 0)], -1)
            ok &= (xb == group) & (xb < k[b])
            ok[ok] &= seen[table.offsets[b] + xb[ok]]
            rows = np.flatnonzero(ok)
            w = 1.0 if weights is None else weights[a]
            out.append((a, rows, w * log_phi[:, group[rows]].T))
        return out
