"""The seven smoothers: from a :class:`~heb.counts.CountTable` to log-probability tables.

Every smoother maps the same counts to theta_{c,f,v} (SPEC section 3); re-smoothing with
another smoother never recounts. Denominators count only the rows where the feature is
observed (N_cf = sum_v N_cfv). A class with no observed rows gets the prior mean.
Categories with no training row at all are *unseen*: their column of the log table is 0,
so they leave the score unchanged (absent evidence).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np

from heb import registry
from heb.concentration import (
    CLAMP_NONE,
    M_MAX,
    M_MIN,
    ConcentrationFit,
    fit_segments,
    fractional_groups,
)
from heb.counts import CountTable
from heb.log_tables import (
    PriorSummary,
    SeenColumnLog,
    SeenPrior,
    TableSums,
    dense_prior,
    dirichlet_log_theta,
    log_seen,
    prior_at_cells,
    prior_summary,
)
from heb.log_tables import dirichlet_theta as _dirichlet_theta  # noqa: F401 (tests)

__all__ = [
    "SMOOTHERS",
    "RULES",
    "SmoothedTable",
    "SeenColumnLog",
    "prior_mean",
    "smooth",
    "learn_concentrations",
    "mutual_information",
    "resolve_params",
    "register_rule",
    "unregister_rule",
]

#: the registered smoothers by name (a live, read-only view of :data:`heb.registry.SMOOTHERS`)
SMOOTHERS = registry.SMOOTHERS
#: HEB's options, accepted by every rule (only the Type-II ML rule reads them)
HEB_OPTIONS = ("n0", "m_min", "m_max")
#: the nested-Dirichlet rule of HEB-H (:mod:`heb.hierarchy`), which takes a hierarchy
NESTED_RULE = "nested-type-ii-ml"


@dataclass(frozen=True)
class SmoothedTable:
    """Smoothed class-conditional log-probabilities, ready to score.

    Attributes
    ----------
    log_theta : ndarray (C, V)
        log theta_{c,f,v}; 0 in the columns of unseen categories. Built on first access
        from ``log_columns``, which holds the seen columns only (scoring reads those).
    log_columns : SeenColumnLog
        The same table, its seen columns only.
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

    log_columns: SeenColumnLog
    seen: np.ndarray
    concentration: np.ndarray | None
    fit: ConcentrationFit | None = None
    fallback: np.ndarray | None = field(default=None)

    @cached_property
    def log_theta(self) -> np.ndarray:
        """log theta over all V columns (0 for unseen categories), shape (C, V)."""
        return self.log_columns.dense()


def resolve_params(smoother: str, **given: float | None) -> dict[str, float]:
    """The hyper-parameters a smoother uses, defaults filled in and ranges checked.

    ``given`` maps parameter names to values (``None`` means "use the default"). A
    parameter the smoother does not use is a ValueError, never silently ignored.
    """
    entry = registry.smoother(smoother)
    own = {p.name: p for p in entry.params}
    unused = sorted(k for k, v in given.items() if v is not None and k not in own)
    if unused:
        takes = ", ".join(own) if own else "no parameter"
        raise ValueError(f"{smoother} does not use {', '.join(unused)} (it takes {takes}).")
    return {
        name: p.default if given.get(name) is None else p.check(given[name], smoother)
        for name, p in own.items()
    }


def prior_mean(
    table: CountTable, kind: str, *, _category_totals: np.ndarray | None = None
) -> np.ndarray:
    """The prior mean tbar_fv over the V columns: ``"uniform"`` 1/K_f or ``"marginal"``.

    The marginal is N_fv / S_f; a feature never observed gets the uniform mean.
    """
    k = table.n_categories
    if kind == "uniform":
        if k.size and np.all(k == k[0]):  # one value: a fill, not a repeat
            return np.full(int(k.sum()), 1.0 / k[0])
        return np.repeat(1.0 / k, k)
    if kind != "marginal":
        raise ValueError(f"prior kind must be 'uniform' or 'marginal', got {kind!r}.")
    n_fv = table.category_totals() if _category_totals is None else _category_totals
    s_f = np.add.reduceat(n_fv, table.offsets[:-1])
    divisor = np.where(s_f > 0, s_f, 1.0)
    if k.size and np.all(k == k[0]):  # one K: divide per feature row, no V-long repeat
        marginal = (n_fv.reshape(k.size, k[0]) / divisor[:, None]).ravel()
    else:
        marginal = n_fv / np.repeat(divisor, k)
    if np.any(s_f == 0):  # a feature never observed gets the uniform mean
        marginal = np.where(np.repeat(s_f == 0, k), np.repeat(1.0 / k, k), marginal)
    return marginal


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
    prior: np.ndarray | SeenPrior,
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
    *,
    _totals: TableSums | None = None,
) -> tuple[np.ndarray, ConcentrationFit, np.ndarray]:
    """Type-II ML m_cf for every (class, feature) pair, with the N_cf < n0 fallback m = K_f.

    Returns the (C, F) concentrations, the fit diagnostics over all C * F pairs
    (fallback pairs report 0 iterations) and the (C, F) fallback mask.
    """
    if not (np.isfinite(m_min) and np.isfinite(m_max) and 0 < m_min <= m_max):
        raise ValueError(f"Need finite 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    totals = TableSums(table) if _totals is None else _totals
    C, F = table.n_classes, table.n_features
    n_cf = totals.n_cf
    fallback = n_cf < n0
    solve = ~fallback.ravel()
    # non-zero counts in row-major order, so their (class, feature) pair ids are sorted
    item_pair = totals.cell_pair
    item_count = totals.positive_counts
    item_prior = prior_at_cells(prior, totals)
    if not solve.all():
        keep = np.flatnonzero(solve[item_pair])
        item_pair, item_count, item_prior = (
            item_pair.take(keep),
            item_count.take(keep),
            item_prior.take(keep),
        )
    docs = np.flatnonzero(solve & (n_cf.ravel() > 0))
    if item_prior.size and item_prior.min() <= 0:
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    # counts of weighted rows (sample_weight): fractional pairs are searched for every peak
    fractional = fractional_groups(item_pair, item_count, item_prior, C * F)
    # flat evidence: fewer than two observed rows (whole ones: a total under 2 of fractional
    # counts is not flat), or a feature whose observed rows all hold one category of prior
    # mean 1 (fallback pairs are not solved at all)
    few = n_cf < 2
    if fractional is not None:
        few = few & ~fractional.reshape(C, F)
    summary = totals.prior_summary or prior_summary(prior, table)
    certain = summary.maximum >= 1.0 - 1e-15
    flat = (few | certain[None, :]).ravel() | fallback.ravel()
    # categories of positive prior mean per pair (the marginal is 0 for unseen ones)
    positive = summary.positive
    fit = fit_segments(
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
        fractional=fractional,
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


def _additive_rule(table: CountTable, prior: np.ndarray, params: dict, totals=None) -> tuple:
    """alpha pseudo-counts per category: m_cf = alpha K_f (Laplace, Lidstone, KT)."""
    totals = TableSums(table) if totals is None else totals
    k_f = table.n_categories.astype(float)
    m_cf = np.broadcast_to(params["alpha"] * k_f, (table.n_classes, table.n_features)).copy()
    return dirichlet_log_theta(totals, m_cf, prior), m_cf, None, None


def _fixed_m_rule(table: CountTable, prior: np.ndarray, params: dict, totals=None) -> tuple:
    """m virtual rows spread as the prior mean: m_cf = m (the m-estimate)."""
    totals = TableSums(table) if totals is None else totals
    m_cf = np.full((table.n_classes, table.n_features), params["m"])
    return dirichlet_log_theta(totals, m_cf, prior), m_cf, None, None


def _target_encoding_rule(table: CountTable, prior: np.ndarray, params: dict, totals=None) -> tuple:
    """Target-encoding shrinkage with strength k0 (no Dirichlet concentration)."""
    n_cf = table.class_feature_totals() if totals is None else totals.n_cf
    prior = prior if totals is None else dense_prior(prior, totals)
    theta = _target_encoding_theta(table, n_cf, params["k0"], prior)
    return theta, None, None, None


def _type_ii_ml_rule(table: CountTable, prior: np.ndarray, params: dict, totals=None) -> tuple:
    """Learned m_cf by Type-II ML (HEB), with the N_cf < n0 fallback m = K_f."""
    totals = TableSums(table) if totals is None else totals
    m_cf, fit, fallback = learn_concentrations(
        table, prior, params["n0"], params["m_min"], params["m_max"], _totals=totals
    )
    return dirichlet_log_theta(totals, m_cf, prior), m_cf, fit, fallback


#: rule name -> ``rule(table, prior, params) -> (theta, concentration, fit, fallback)``
_RULES: dict[str, Callable[[CountTable, np.ndarray, dict], tuple]] = {
    "additive": _additive_rule,
    "fixed-m": _fixed_m_rule,
    "target-encoding": _target_encoding_rule,
    "type-ii-ml": _type_ii_ml_rule,
}
_BUILTIN_RULES = frozenset(_RULES)
#: the smoothing rules by name (a read-only view; add one with :func:`register_rule`)
RULES = MappingProxyType(_RULES)


def register_rule(name: str, rule: Callable[[CountTable, np.ndarray, dict], tuple]) -> None:
    """Add a smoothing rule a :class:`heb.registry.Smoother` can name.

    Parameters
    ----------
    name : str
        The rule's name (new).
    rule : callable
        ``rule(table, prior, params)`` with the prior mean (V,) and a dict of the
        smoother's parameters, fixed values and HEB's options; returns ``(theta,
        concentration, fit, fallback)``: theta (C, V) probabilities, the (C, F)
        concentration or None, and HEB's diagnostics or None.
    """
    if name in _RULES:
        raise ValueError(f"A smoothing rule named {name!r} is registered already.")
    if not callable(rule):
        raise ValueError(f"The rule {name!r} must be a function.")
    _RULES[name] = rule


def unregister_rule(name: str) -> None:
    """Remove a rule added by :func:`register_rule` (the built-in four stay)."""
    if name not in _BUILTIN_RULES:
        _RULES.pop(name, None)


def smooth(
    table: CountTable,
    smoother: str = "heb-m",
    *,
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
    hierarchies=None,
    **params: float | None,
) -> SmoothedTable:
    """Smooth a count table with one of the registered :data:`SMOOTHERS`.

    Parameters
    ----------
    table : CountTable
        The counts (left untouched).
    smoother : str
        A name of :data:`heb.registry.SMOOTHERS`: ``"laplace"``, ``"lidstone"`` (alpha,
        default 0.1), ``"kt"``, ``"m-estimate"`` (m, default 2), ``"te"`` (k0, default
        10), ``"heb-u"``, ``"heb-m"``.
    n0, m_min, m_max : float
        HEB's low-count threshold and clamp (read by the Type-II ML rule only).
    hierarchies : mapping, optional
        HEB-H (``"heb-h"``) only: feature -> levels (:mod:`heb.hierarchy`); none gives HEB-M.
    **params : float or None
        The smoother's own hyper-parameters (``None``: its default); one it does not
        use is a ValueError.

    Returns
    -------
    SmoothedTable
    """
    entry = registry.smoother(smoother)
    if entry.rule == NESTED_RULE:  # structure, not a number: the rule lives in heb.hierarchy
        from heb.hierarchy import nested_dirichlet_rule

        resolve_params(smoother, **params)
        return nested_dirichlet_rule(
            table, hierarchies=hierarchies, n0=n0, m_min=m_min, m_max=m_max
        )
    if hierarchies:
        raise ValueError(f"hierarchies apply to the smoother 'heb-h' only, not {smoother!r}.")
    values = {**entry.fixed, **resolve_params(smoother, **params)}
    values.update(n0=n0, m_min=m_min, m_max=m_max)
    try:
        rule = _RULES[entry.rule]
    except KeyError:
        raise ValueError(f"{smoother}: no smoothing rule named {entry.rule!r}.") from None
    totals = TableSums(table)
    totals.uniform_prior = entry.prior == "uniform"
    k = table.n_categories
    if totals.uniform_prior and k.size and np.all(k == k[0]):
        # one value 1/K: a read-only view of it, not a V-long array
        prior = np.broadcast_to(1.0 / k[0], (table.counts.shape[1],))
        totals.prior_summary = PriorSummary(
            np.full(k.size, 1.0 / k[0]), np.full(k.size, 1.0 / k[0]), k
        )
    elif entry.prior in ("uniform", "marginal") and getattr(table, "_sums", None) is not None:
        # few rows: the prior at the seen columns only, no V-long array
        seen_prior = totals.seen_uniform if totals.uniform_prior else totals.seen_marginal
        prior, totals.prior_summary = seen_prior()
    else:
        n_fv = None if totals.uniform_prior else totals.n_fv
        prior = prior_mean(table, entry.prior, _category_totals=n_fv)
    if entry.rule in _BUILTIN_RULES:  # they share the table's sums computed once
        theta, concentration, fit, fallback = rule(table, prior, values, totals)
    else:  # a registered rule gets a (V,) prior of its own
        theta, concentration, fit, fallback = rule(
            table, np.array(dense_prior(prior, totals)), values
        )
    if not isinstance(theta, SeenColumnLog):  # a rule's probabilities
        theta = SeenColumnLog(log_seen(theta, totals.seen), None, theta.shape[1])
    return SmoothedTable(theta, totals.seen, concentration, fit, fallback)


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
