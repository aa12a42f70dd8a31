"""Synthetic studies with a known truth.

``l1_error_study`` is the paper's check of Theorem 1 (section 5.2, SPEC section 7): the
l1 error of each smoother's estimate of a single Dirichlet-drawn PMF.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from heb.concentration import M_MAX, M_MIN, fit_concentration_rows

__all__ = ["l1_error_study", "single_pmf_estimates", "PMF_SMOOTHERS"]

#: smoothers that estimate a single PMF (uniform prior mean, no classes to pool over)
PMF_SMOOTHERS = ("unsmoothed", "laplace", "lidstone", "kt", "m-estimate", "heb-u")


def single_pmf_estimates(
    counts: np.ndarray,
    smoother: str,
    *,
    alpha: float = 0.1,
    m: float = 2.0,
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> np.ndarray:
    """Estimate a PMF from each row of ``counts`` (R, K) with a uniform prior mean.

    Parameters
    ----------
    counts : ndarray (R, K)
        One count vector per row.
    smoother : str
        One of :data:`PMF_SMOOTHERS`.
    alpha, m : float
        Lidstone's pseudo-count and the m-estimate's concentration.
    n0, m_min, m_max : float
        HEB-U's low-count threshold and clamp.

    Returns
    -------
    ndarray (R, K), rows summing to 1.
    """
    counts = np.asarray(counts, dtype=np.float64)
    K = counts.shape[1]
    N = counts.sum(axis=1, keepdims=True)
    if smoother == "unsmoothed":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(N > 0, counts / N, 1.0 / K)
    if smoother == "laplace":
        conc = np.full_like(N, K)
    elif smoother == "lidstone":
        conc = np.full_like(N, alpha * K)
    elif smoother == "kt":
        conc = np.full_like(N, 0.5 * K)
    elif smoother == "m-estimate":
        conc = np.full_like(N, m)
    elif smoother == "heb-u":
        fit = fit_concentration_rows(counts, np.full(K, 1.0 / K), m_min, m_max)
        conc = np.where(N < n0, K, fit.m[:, None])
    else:
        raise ValueError(
            f"{smoother!r} does not estimate a single PMF; choose one of {PMF_SMOOTHERS}."
        )
    return (counts + conc / K) / (N + conc)


def l1_error_study(
    K_values: Iterable[int] = (10, 50, 100, 500),
    N_values: Iterable[int] = (50, 200, 1000, 5000),
    alpha_dir: float = 0.3,
    reps: int = 200,
    seed: int = 0,
    smoothers: Sequence[str] = ("laplace", "kt", "m-estimate", "heb-u"),
) -> list[dict]:
    """Mean l1 error of each smoother on PMFs drawn from Dirichlet(alpha_dir 1_K).

    For every (K, N): ``reps`` truths p* ~ Dirichlet(alpha_dir 1_K), counts
    n ~ Multinomial(N, p*), and each smoother's estimate from the same counts.

    Returns
    -------
    list of dict
        One per (K, N, smoother) with keys ``K``, ``N``, ``smoother``, ``mean``, ``std``
        (of ||theta_hat - p*||_1 over repetitions).
    """
    if alpha_dir <= 0:
        raise ValueError("alpha_dir must be positive.")
    if reps < 1:
        raise ValueError("reps must be at least 1.")
    rows = []
    for K in K_values:
        for N in N_values:
            rng = np.random.default_rng([seed, int(K), int(N)])
            truth = rng.dirichlet(np.full(int(K), float(alpha_dir)), size=reps)
            counts = rng.multinomial(int(N), truth)
            for name in smoothers:
                theta = single_pmf_estimates(counts, name)
                err = np.abs(theta - truth).sum(axis=1)
                rows.append(
                    {
                        "K": int(K),
                        "N": int(N),
                        "smoother": name,
                        "mean": float(err.mean()),
                        "std": float(err.std(ddof=1)) if reps > 1 else 0.0,
                    }
                )
    return rows
