"""Type-II maximum likelihood of Dirichlet concentrations, for many groups at once.

For a group (a (class, feature) pair of Naive Bayes, or a (class, parent, child) triple
of HEB-AODE) with prior mean ``t`` and one or more count vectors ("documents") ``n_u``,
the Dirichlet-multinomial evidence is (paper eq. 5, eq. 11)::

    l(m) = sum_u [ log G(m) - log G(N_u + m) + sum_v log G(n_uv + m t_v) - log G(m t_v) ]

and the concentration is its maximiser clamped to ``[m_min, m_max]``. Minka's fixed point
(paper eq. 6 / eq. 12) is the reference algorithm; here a safeguarded Newton iteration in
``x = log m`` on the score, kept inside a sign-change bracket, returns the same clamped
maximiser in a handful of iterations for every group at once.

Zero counts contribute nothing, so only non-zero counts are stored ("items"). For an
integer count n, ``psi(n + x) - psi(x) = sum_{k<n} 1 / (x + k)``: small counts are
expanded into exact rational terms (no special function at all), large ones use digamma.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = [
    "ConcentrationFit",
    "fit_concentration",
    "fit_concentration_rows",
    "fit_concentration_segments",
    "log_evidence",
    "M_MIN",
    "M_MAX",
]

M_MIN = 1e-2
M_MAX = 1e4
#: counts up to this value are expanded into exact rational terms
_SMALL_COUNT = 16
_TOL = 1e-11
_MAX_ITER = 100

CLAMP_LOW, CLAMP_NONE, CLAMP_HIGH = -1, 0, 1


@dataclass(frozen=True)
class ConcentrationFit:
    """Per-group result of the Type-II ML fit.

    Attributes
    ----------
    m : ndarray (G,)
        Clamped maximiser of the evidence.
    iterations : ndarray (G,) of int
        Newton iterations used (0 where the answer needed none).
    converged : ndarray (G,) of bool
    clamped : ndarray (G,) of int8
        -1 at ``m_min``, +1 at ``m_max``, 0 inside.
    log_evidence : ndarray (G,)
        l(m) at the returned m.
    flat : ndarray (G,) of bool
        Evidence constant in m (every document has N <= 1, or K = 1): m is the Minka
        starting value 1 (clamped).
    """

    m: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    clamped: np.ndarray
    log_evidence: np.ndarray
    flat: np.ndarray


class _Score:
    """Evaluates the score l'(m) and curvature l''(m) of all groups, vectorised.

    Items are (group, scale t, count n, sign s): count vectors' non-zero entries carry
    s = +1 and their prior mean t; documents' totals carry s = -1 and t = 1.
    """

    def __init__(self, group, t, n, sign, n_groups):
        self.n_groups = n_groups
        integral = n == np.round(n)
        small = integral & (n <= _SMALL_COUNT)
        # k = 0 terms are t / (m t) = 1 / m exactly: one coefficient per group.
        self.coef0 = np.bincount(group[small], weights=sign[small], minlength=n_groups)
        reps = (n[small] - 1).astype(np.int64)
        idx = np.repeat(np.flatnonzero(small), reps)
        starts = np.cumsum(reps) - reps
        k = np.arange(idx.size) - np.repeat(starts, reps) + 1.0
        self.r_group, self.r_t, self.r_sign, self.r_k = group[idx], t[idx], sign[idx], k
        big = ~small
        self.d_group, self.d_t, self.d_n, self.d_sign = group[big], t[big], n[big], sign[big]

    def __call__(self, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """l'(m) and l''(m) for every group (m has one entry per group)."""
        G = self.n_groups
        d1 = self.coef0 / m
        d2 = -self.coef0 / m**2
        if self.r_k.size:
            x = m[self.r_group] * self.r_t + self.r_k
            q = self.r_t / x
            d1 = d1 + np.bincount(self.r_group, weights=self.r_sign * q, minlength=G)
            d2 = d2 - np.bincount(self.r_group, weights=self.r_sign * q * q, minlength=G)
        if self.d_n.size:
            x = m[self.d_group] * self.d_t
            st = self.d_sign * self.d_t
            dig = special.digamma(x + self.d_n) - special.digamma(x)
            tri = special.polygamma(1, x + self.d_n) - special.polygamma(1, x)
            d1 = d1 + np.bincount(self.d_group, weights=st * dig, minlength=G)
            d2 = d2 + np.bincount(self.d_group, weights=st * self.d_t * tri, minlength=G)
        return d1, d2


def _evidence(group, t, n, sign, n_groups, m):
    x = m[group] * t
    terms = sign * (special.gammaln(x + n) - special.gammaln(x))
    return np.bincount(group, weights=terms, minlength=n_groups)


def fit_concentration_segments(
    item_group: np.ndarray,
    item_count: np.ndarray,
    item_prior: np.ndarray,
    doc_group: np.ndarray,
    doc_total: np.ndarray,
    n_groups: int,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> ConcentrationFit:
    """Fit the concentration of many groups of count vectors at once.

    Parameters
    ----------
    item_group, item_count, item_prior : ndarray (I,)
        The non-zero counts of every document: its group, the count n_uv > 0 and the
        prior mean t_v > 0 of its category.
    doc_group, doc_total : ndarray (D,)
        Every document with a positive total: its group and N_u = sum_v n_uv.
    n_groups : int
        Number of groups G (a group with no document has flat evidence).
    m_min, m_max : float
        The clamp.

    Returns
    -------
    ConcentrationFit
    """
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    item_group = np.asarray(item_group, dtype=np.int64)
    item_count = np.asarray(item_count, dtype=np.float64)
    item_prior = np.asarray(item_prior, dtype=np.float64)
    doc_group = np.asarray(doc_group, dtype=np.int64)
    doc_total = np.asarray(doc_total, dtype=np.float64)
    if np.any(item_prior <= 0):
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")

    # Flat evidence: every document has N <= 1, or all its mass sits on a category
    # whose prior mean is 1 (K = 1); each such document's score is identically zero.
    informative_docs = np.bincount(doc_group[doc_total >= 2], minlength=n_groups)
    degenerate = (item_prior >= 1.0 - 1e-15) & (item_count >= 2)
    flat = informative_docs <= np.bincount(item_group[degenerate], minlength=n_groups)

    group = np.concatenate([item_group, doc_group])
    t = np.concatenate([item_prior, np.ones(doc_total.size)])
    n = np.concatenate([item_count, doc_total])
    sign = np.concatenate([np.ones(item_count.size), -np.ones(doc_total.size)])
    score = _Score(group, t, n, sign, n_groups)

    lo = np.full(n_groups, np.log(m_min))
    hi = np.full(n_groups, np.log(m_max))
    g_lo = score(np.exp(lo))[0]
    g_hi = score(np.exp(hi))[0]
    m = np.ones(n_groups)
    clamped = np.zeros(n_groups, dtype=np.int8)
    iterations = np.zeros(n_groups, dtype=np.int64)
    converged = np.ones(n_groups, dtype=bool)

    at_low = ~flat & (g_lo <= 0)
    at_high = ~flat & (g_hi >= 0)
    both = at_low & at_high  # a dip inside: the better end wins
    if both.any():
        ev_lo = _evidence(group, t, n, sign, n_groups, np.full(n_groups, m_min))
        ev_hi = _evidence(group, t, n, sign, n_groups, np.full(n_groups, m_max))
        at_low = at_low & ~(both & (ev_hi > ev_lo))
        at_high = at_high & ~(both & (ev_hi <= ev_lo))
    m[at_low], clamped[at_low] = m_min, CLAMP_LOW
    m[at_high], clamped[at_high] = m_max, CLAMP_HIGH
    m[flat] = min(max(1.0, m_min), m_max)
    clamped[flat & (m_min > 1.0)] = CLAMP_LOW
    clamped[flat & (m_max < 1.0)] = CLAMP_HIGH

    active = ~flat & ~at_low & ~at_high
    if active.any():
        x = np.clip(np.zeros(n_groups), lo, hi)
        converged[active] = False
        for _ in range(_MAX_ITER):
            idx = np.flatnonzero(active)
            if idx.size == 0:
                break
            mm = np.exp(x)
            d1, d2 = score(mm)
            g = mm * d1
            dg = g + mm * mm * d2
            lo = np.where(active & (g > 0), x, lo)
            hi = np.where(active & (g <= 0), x, hi)
            with np.errstate(divide="ignore", invalid="ignore"):
                newton = x - g / dg
            ok = (dg < 0) & (newton > lo) & (newton < hi)
            x_new = np.where(g == 0, x, np.where(ok, newton, 0.5 * (lo + hi)))
            step = np.abs(x_new - x)
            x = np.where(active, x_new, x)
            iterations += active
            done = active & ((step < _TOL) | (hi - lo < _TOL) | (g == 0))
            converged |= done
            active &= ~done
        solved = ~flat & ~at_low & ~at_high
        m[solved] = np.clip(np.exp(x[solved]), m_min, m_max)

    log_ev = _evidence(group, t, n, sign, n_groups, m)
    return ConcentrationFit(m, iterations, converged, clamped, log_ev, flat)


def _rows_to_items(counts: np.ndarray, prior: np.ndarray):
    rows, cols = np.nonzero(counts)
    item_prior = prior[rows, cols] if prior.ndim == 2 else prior[cols]
    totals = counts.sum(axis=1)
    docs = np.flatnonzero(totals > 0)
    return rows, counts[rows, cols], item_prior, docs, totals[docs]


def _check_counts_prior(counts: np.ndarray, prior: np.ndarray) -> None:
    if counts.size == 0:
        raise ValueError("The count vector is empty (K = 0).")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("Counts must be finite and non-negative.")
    if not np.all(np.isfinite(prior)) or np.any(prior < 0):
        raise ValueError("The prior mean must be finite and non-negative.")
    sums = prior.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        raise ValueError("The prior mean must sum to 1.")


def fit_concentration_rows(
    counts: np.ndarray,
    prior_mean: np.ndarray,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> ConcentrationFit:
    """Fit one concentration per row of a (G, K) count matrix.

    Parameters
    ----------
    counts : ndarray (G, K)
        One count vector per row.
    prior_mean : ndarray (K,) or (G, K)
        The prior mean, shared or per row; each sums to 1.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    prior = np.asarray(prior_mean, dtype=np.float64)
    if prior.shape not in (counts.shape[1:], counts.shape):
        raise ValueError("prior_mean must have shape (K,) or (G, K) matching counts.")
    _check_counts_prior(counts, prior)
    rows, n, t, docs, totals = _rows_to_items(counts, prior)
    return fit_concentration_segments(rows, n, t, docs, totals, counts.shape[0], m_min, m_max)


def fit_concentration(
    counts: np.ndarray,
    prior_mean: np.ndarray,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> float:
    """Type-II ML concentration of one count vector toward ``prior_mean``, clamped.

    Parameters
    ----------
    counts : ndarray (K,)
        Non-negative counts n_v.
    prior_mean : ndarray (K,)
        Prior mean t_v (sums to 1; positive wherever a count is positive).
    m_min, m_max : float
        The clamp, default ``[1e-2, 1e4]``.

    Returns
    -------
    float
        The maximiser of l(m) in ``[m_min, m_max]``. Flat evidence (N <= 1, K = 1)
        returns Minka's starting value 1, clamped. No N0 fallback here.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1:
        raise ValueError("counts must be 1-D; use fit_concentration_rows for many vectors.")
    prior = np.asarray(prior_mean, dtype=np.float64)
    if prior.shape != counts.shape:
        raise ValueError("counts and prior_mean must have the same length.")
    return float(fit_concentration_rows(counts[None, :], prior, m_min, m_max).m[0])


def log_evidence(counts: np.ndarray, prior_mean: np.ndarray, m) -> np.ndarray:
    """The Dirichlet-multinomial log evidence l(m) of one count vector (paper eq. 5).

    ``m`` may be a scalar or an array; the result has its shape.
    """
    counts = np.asarray(counts, dtype=np.float64)
    prior = np.asarray(prior_mean, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    nz = counts > 0
    x = m[..., None] * prior[nz]
    total = counts.sum()
    return (
        special.gammaln(m)
        - special.gammaln(total + m)
        + (special.gammaln(x + counts[nz]) - special.gammaln(x)).sum(axis=-1)
    )
