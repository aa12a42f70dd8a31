"""The seven smoothers: from a :class:`~heb.counts.CountTable` to log-probability tables.

Every smoother maps the same counts to theta_{c,f,v} (SPEC section 3); re-smoothing with
another smoother never recounts. Denominators count only the rows where the feature is
observed (N_cf = sum_v N_cfv). A class with no observed rows gets the prior mean.
Categories with no training row at all are *unseen*: their column of the log table is 0,
so they leave the score unchanged (absent evidence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from heb.concentration import (
    CLAMP_NONE,
    M_MAX,
    M_MIN,
    ConcentrationFit,
    _fit_segments,
)
from heb.counts import CountTable

__all__ = [
    "SMOOTHERS",
    "EXTRA_SMOOTHERS",
    "DEFAULT_PARAMS",
    "SmoothedTable",
    "prior_mean",
    "smooth",
    "mutual_information",
    "resolve_params",
]

SMOOTHERS = ("laplace", "lidstone", "kt", "m-estimate", "te", "heb-u", "heb-m")
#: beyond the paper's seven: HEB-H (heb.hierarchy; HEB-M for features without a hierarchy)
EXTRA_SMOOTHERS = ("heb-h",)
#: default hyper-parameters of the smoothers that have one
DEFAULT_PARAMS = {"lidstone": {"alpha": 0.1}, "m-estimate": {"m": 2.0}, "te": {"k0": 10.0}}
_UNIFORM = {"laplace", "lidstone", "kt", "heb-u"}


@dataclass(frozen=True)
class SmoothedTable:
    """Smoothed class-conditional log-probabilities, ready to score.

    Attributes
    ----------
    log_theta : ndarray (C, V)
        log theta_{c,f,v}; 0 in the columns of unseen categories.
    seen : ndarray (V,) of bool
        Category has at least one training row.
    concentration : ndarray (C, F)
        The Dirichlet concentration m_cf behind theta (learned for HEB, implied for
        Laplace / Lidstone / KT / m-estimate); ``None`` for TE, which has none.
    fit : ConcentrationFit or None
        The Type-II ML diagnostics of the pairs that were fitted (HEB only), as a fit
        over all C * F pairs in row-major (class, feature) order.
    fallback : ndarray (C, F) of bool
        N_cf < n0: the concentration was set to K_f instead of learned (HEB only).
    """

    log_theta: np.ndarray
    seen: np.ndarray
    concentration: np.ndarray | None
    fit: ConcentrationFit | None = None
    fallback: np.ndarray | None = field(default=None)


def resolve_params(
    smoother: str, alpha: float | None = None, m: float | None = None, k0: float | None = None
) -> dict[str, float]:
    """The hyper-parameters a smoother uses, with defaults filled in and checked."""
    if smoother not in SMOOTHERS + EXTRA_SMOOTHERS:
        raise ValueError(f"Unknown smoother {smoother!r}; choose one of {', '.join(SMOOTHERS)}.")
    given = {"alpha": alpha, "m": m, "k0": k0}
    params = dict(DEFAULT_PARAMS.get(smoother, {}))
    for key in params:
        if given[key] is not None:
            params[key] = float(given[key])
    for key, value in params.items():
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{smoother}: {key} must be a positive number, got {value}.")
    return params


def prior_mean(table: CountTable, kind: str) -> np.ndarray:
    """The prior mean tbar_fv over the V columns: ``"uniform"`` 1/K_f or ``"marginal"``.

    The marginal is N_fv / S_f; a feature never observed gets the uniform mean.
    """
    k = table.n_categories
    if kind == "uniform":
        return np.repeat(1.0 / k, k)
    if kind != "marginal":
        raise ValueError(f"prior kind must be 'uniform' or 'marginal', got {kind!r}.")
    n_fv = table.category_totals()
    s_f = np.add.reduceat(n_fv, table.offsets[:-1])
    marginal = n_fv / np.repeat(np.where(s_f > 0, s_f, 1.0), k)
    if np.any(s_f == 0):  # a feature never observed gets the uniform mean
        marginal = np.where(np.repeat(s_f == 0, k), np.repeat(1.0 / k, k), marginal)
    return marginal


def _log(theta: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """log theta, in place (theta is a temporary), with unseen columns set to 0."""
    with np.errstate(divide="ignore"):
        out = np.log(theta, out=theta)
    if not seen.all():
        out[:, ~seen] = 0.0
    return out


def _dirichlet_theta(table, n_cf, m_cf, prior):
    """(N_cfv + m_cf t_v) / (N_cf + m_cf), m_cf broadcast over the feature's columns."""
    col_f = table.feature_of_column
    m_col = m_cf[:, col_f]
    theta = m_col * prior
    theta += table.counts
    m_col += n_cf[:, col_f]
    theta /= m_col
    return theta


def _target_encoding_theta(table, n_cf, k0, prior):
    col_f = table.feature_of_column
    n_fv = table.category_totals()
    s_f = table.feature_totals()
    lam = n_fv / (n_fv + k0)
    with np.errstate(invalid="ignore", divide="ignore"):
        class_share = np.where(s_f > 0, n_cf / s_f, 0.0)[:, col_f]
        # lambda_v N_cfv / N_fv * N_fv + (1 - lambda_v) N_c/S * N_fv
        mass = lam * table.counts + (1 - lam) * class_share * n_fv
    denom = np.add.reduceat(mass, table.offsets[:-1], axis=1)[:, col_f]
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = mass / denom
    return np.where(denom > 0, theta, prior[None, :])


def learn_concentrations(
    table: CountTable,
    prior: np.ndarray,
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> tuple[np.ndarray, ConcentrationFit, np.ndarray]:
    """Type-II ML m_cf for every (class, feature) pair, with the N_cf < n0 fallback m = K_f.

    Returns the (C, F) concentrations, the fit diagnostics over all C * F pairs
    (fallback pairs report 0 iterations) and the (C, F) fallback mask.
    """
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    C, F = table.n_classes, table.n_features
    n_cf = table.class_feature_totals()
    fallback = n_cf < n0
    solve = ~fallback.ravel()
    # non-zero counts in row-major order, so their (class, feature) pair ids are sorted
    flat_counts = table.counts.ravel()
    nonzero = np.flatnonzero(flat_counts > 0)
    pair_of_cell = (np.arange(C)[:, None] * F + table.feature_of_column).ravel()
    item_pair = pair_of_cell.take(nonzero)
    item_count = flat_counts.take(nonzero)
    item_prior = prior.take(nonzero % table.counts.shape[1])
    if not solve.all():
        keep = np.flatnonzero(solve[item_pair])
        item_pair, item_count, item_prior = (
            item_pair.take(keep),
            item_count.take(keep),
            item_prior.take(keep),
        )
    docs = np.flatnonzero(solve & (n_cf.ravel() > 0))
    # flat evidence: fewer than two observed rows, or a feature whose observed rows all
    # hold one category of prior mean 1 (fallback pairs are not solved at all)
    certain = np.maximum.reduceat(prior, table.offsets[:-1]) >= 1.0 - 1e-15
    flat = ((n_cf < 2) | certain[None, :]).ravel() | fallback.ravel()
    if item_prior.size and item_prior.min() <= 0:
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    # categories of positive prior mean per pair (the marginal is 0 for unseen ones)
    positive = np.add.reduceat(prior > 0, table.offsets[:-1])
    fit = _fit_segments(
        item_pair,
        item_count,
        item_prior,
        docs,
        n_cf.ravel()[docs],
        C * F,
        m_min,
        m_max,
        flat,
        n_categories=np.broadcast_to(positive, (C, F)).ravel(),
    )
    k_f = np.broadcast_to(table.n_categories.astype(float), (C, F))
    m_cf = np.where(fallback, k_f, fit.m.reshape(C, F))
    fb = fallback.ravel()
    fit = fit.replace(
        m=m_cf.ravel().copy(),
        iterations=np.where(fb, 0, fit.iterations),
        converged=np.where(fb, True, fit.converged),
        clamped=np.where(fb, CLAMP_NONE, fit.clamped).astype(np.int8),
        flat=np.where(fb, False, fit.flat),
    )
    return m_cf, fit, fallback


def smooth(
    table: CountTable,
    smoother: str = "heb-m",
    *,
    alpha: float | None = None,
    m: float | None = None,
    k0: float | None = None,
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
    hierarchies=None,
) -> SmoothedTable:
    """Smooth a count table with one of :data:`SMOOTHERS`.

    Parameters
    ----------
    table : CountTable
        The counts (left untouched).
    smoother : str
        ``"laplace"``, ``"lidstone"`` (alpha, default 0.1), ``"kt"``, ``"m-estimate"``
        (m, default 2), ``"te"`` (k0, default 10), ``"heb-u"`` or ``"heb-m"``.
    alpha, m, k0 : float, optional
        Hyper-parameters of Lidstone, m-estimate and TE; ignored by the others.
    n0, m_min, m_max : float
        HEB's low-count threshold and clamp.
    hierarchies : mapping, optional
        ``"heb-h"`` only: feature -> levels (:mod:`heb.hierarchy`); none gives HEB-M.

    Returns
    -------
    SmoothedTable
    """
    params = resolve_params(smoother, alpha=alpha, m=m, k0=k0)
    if smoother == "heb-h":  # the nested-Dirichlet rule (HEB-H) lives in heb.hierarchy
        from heb.hierarchy import nested_dirichlet_rule

        return nested_dirichlet_rule(
            table, hierarchies=hierarchies, n0=n0, m_min=m_min, m_max=m_max
        )
    if hierarchies:
        raise ValueError(f"hierarchies apply to the smoother 'heb-h' only, not {smoother!r}.")
    C, F = table.n_classes, table.n_features
    k_f = np.broadcast_to(table.n_categories.astype(float), (C, F))
    prior = prior_mean(table, "uniform" if smoother in _UNIFORM else "marginal")
    n_cf = table.class_feature_totals()
    seen = table.category_totals() > 0
    fit = fallback = None
    if smoother == "te":
        theta = _target_encoding_theta(table, n_cf, params["k0"], prior)
        return SmoothedTable(_log(theta, seen), seen, None)
    if smoother == "laplace":
        m_cf = k_f.copy()
    elif smoother == "kt":
        m_cf = 0.5 * k_f
    elif smoother == "lidstone":
        m_cf = params["alpha"] * k_f
    elif smoother == "m-estimate":
        m_cf = np.full((C, F), params["m"])
    else:
        m_cf, fit, fallback = learn_concentrations(table, prior, n0, m_min, m_max)
    theta = _dirichlet_theta(table, n_cf, m_cf, prior)
    return SmoothedTable(_log(theta, seen), seen, m_cf, fit, fallback)


def mutual_information(table: CountTable) -> np.ndarray:
    """Plug-in MI(X_f; Y) in nats from the joint counts, per feature, shape (F,)."""
    n_cf = table.class_feature_totals()
    s_f = n_cf.sum(axis=0)
    col_f = table.feature_of_column
    n_fv = table.category_totals()
    joint = table.counts
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = joint * s_f[col_f] / (n_cf[:, col_f] * n_fv)
        terms = np.where(joint > 0, joint * np.log(ratio), 0.0)
    per_feature = np.add.reduceat(terms.sum(axis=0), table.offsets[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        mi = np.where(s_f > 0, per_feature / s_f, 0.0)
    return np.maximum(mi, 0.0)
