"""Comparing methods over datasets: ranks, Friedman, Nemenyi, Wilcoxon, Holm (SPEC section 6).

``scores`` is always an ``(n_datasets, k_methods)`` array of one metric;
``higher_is_better`` says which direction wins (True for accuracy, F1, AUC; False for
log-loss, Brier, ECE). Rank 1 is the best method of a dataset; ties share the average rank.

Degenerate cases never give NaN:
- Friedman with every dataset a complete tie: chi2 = 0, F = 0, both p-values 1.
- Friedman with every dataset ranking the methods identically: the Iman-Davenport
  denominator N (k - 1) - chi2 vanishes; F is ``inf`` and its p-value 0.
- Wilcoxon with all differences zero: statistic 0, p-value 1.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import stats as sps

__all__ = [
    "friedman",
    "holm",
    "nemenyi_cd",
    "nemenyi_groups",
    "nemenyi_pvalues",
    "nemenyi_q",
    "rank_scores",
    "wilcoxon",
]

#: slack when comparing a rank difference with the critical difference (round-off of means)
_CD_TOL = 1e-9


#: scores are compared to this many decimals: two fits of the same model (HEB-H without a
#: hierarchy and HEB-M) differ by floating-point noise of 1e-15 - 1e-12, which must tie,
#: not rank one above the other or count as a Wilcoxon difference
SCORE_DECIMALS = 10


def _as_scores(scores: np.ndarray, min_datasets: int = 1, min_methods: int = 1) -> np.ndarray:
    """Check a (n_datasets, k_methods) score matrix and return it as float64, rounded to
    :data:`SCORE_DECIMALS`."""
    arr = np.asarray(scores)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"scores must be a numeric array, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 2:
        raise ValueError(f"scores must be a 2-D (datasets, methods) array, got {arr.ndim}-D.")
    n_datasets, k_methods = arr.shape
    if n_datasets < min_datasets:
        raise ValueError(f"Need at least {min_datasets} datasets (rows), got {n_datasets}.")
    if k_methods < min_methods:
        raise ValueError(f"Need at least {min_methods} methods (columns), got {k_methods}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError("scores contain NaN or infinite values; fill or drop them first.")
    return np.round(arr, SCORE_DECIMALS)


def _check_direction(higher_is_better: bool) -> bool:
    if not isinstance(higher_is_better, bool | np.bool_):
        raise ValueError(f"higher_is_better must be True or False, got {higher_is_better!r}.")
    return bool(higher_is_better)


def rank_scores(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Rank the methods within each dataset: 1 = best, ties get the average rank.

    Parameters
    ----------
    scores : ndarray (n_datasets, k_methods)
        One metric per dataset and method.
    higher_is_better : bool
        True when a larger score is better.

    Returns
    -------
    ndarray (n_datasets, k_methods) of float
    """
    arr = _as_scores(scores)
    oriented = -arr if _check_direction(higher_is_better) else arr
    return sps.rankdata(oriented, method="average", axis=1).astype(np.float64)


def _tie_sum(scores: np.ndarray) -> float:
    """sum over datasets and tie groups of t (t^2 - 1), t the size of the tie group."""
    group_size = (scores[:, :, None] == scores[:, None, :]).sum(axis=2)  # t of each entry
    return float(np.sum(group_size**2 - 1))  # each group of size t contributes t (t^2 - 1)


def friedman(scores: np.ndarray, higher_is_better: bool) -> dict[str, float | int | np.ndarray]:
    """Friedman test with the tie correction, and the Iman-Davenport F refinement.

    chi2 is the tie-corrected statistic of :func:`scipy.stats.friedmanchisquare`:
    ``(12 / (N k (k+1)) sum_j R_j^2 - 3 N (k+1)) / (1 - sum t (t^2-1) / (N k (k^2-1)))``
    with R_j the rank sum of method j and t the sizes of tie groups; without ties it is
    Demsar's chi2_F. Iman-Davenport: ``F = (N-1) chi2 / (N (k-1) - chi2)`` on
    ``(k-1, (k-1)(N-1))`` degrees of freedom.

    Parameters
    ----------
    scores : ndarray (n_datasets, k_methods)
        At least 2 datasets and 2 methods.
    higher_is_better : bool
        Direction of the metric (sets the orientation of ``avg_ranks`` only).

    Returns
    -------
    dict
        ``avg_ranks`` (k,), ``chi2``, ``p_value``, ``iman_davenport_F``,
        ``iman_davenport_p``, ``n_datasets``, ``k``.
    """
    arr = _as_scores(scores, min_datasets=2, min_methods=2)
    ranks = rank_scores(arr, higher_is_better)
    n, k = arr.shape
    avg_ranks = ranks.mean(axis=0)
    tie_correction = 1.0 - _tie_sum(arr) / (k * (k * k - 1) * n)
    if tie_correction <= 1e-12:  # every dataset is a complete tie: no evidence at all
        chi2, p_value, f_stat, f_p = 0.0, 1.0, 0.0, 1.0
    else:
        rank_sum_sq = float(np.sum(ranks.sum(axis=0) ** 2))
        chi2 = (12.0 / (k * n * (k + 1)) * rank_sum_sq - 3 * n * (k + 1)) / tie_correction
        chi2 = max(chi2, 0.0)
        p_value = float(sps.chi2.sf(chi2, k - 1))
        denominator = n * (k - 1) - chi2
        if denominator <= 1e-12 * n * (k - 1):  # all datasets agree on the ranking
            f_stat, f_p = float("inf"), 0.0
        else:
            f_stat = (n - 1) * chi2 / denominator
            f_p = float(sps.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))
    return {
        "avg_ranks": avg_ranks,
        "chi2": float(chi2),
        "p_value": float(p_value),
        "iman_davenport_F": float(f_stat),
        "iman_davenport_p": float(f_p),
        "n_datasets": int(n),
        "k": int(k),
    }


@lru_cache(maxsize=256)
def _nemenyi_q(k: int, alpha: float) -> float:
    return float(sps.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}.")
    return alpha


def _check_count(value: int, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi critical value q_alpha: studentized range quantile (df = inf) / sqrt(2).

    Computed with :func:`scipy.stats.studentized_range`, not a table; for alpha = 0.05 and
    k = 2..10 it agrees with Demsar's table (1.960 ... 3.164) within 0.001.
    """
    return _nemenyi_q(_check_count(k, "k", 2), _check_alpha(alpha))


def nemenyi_cd(k: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference ``q_alpha sqrt(k (k+1) / (6 N))`` of average ranks.

    Parameters
    ----------
    k : int
        Number of methods (>= 2).
    n_datasets : int
        Number of datasets N (>= 1).
    alpha : float
        Family-wise significance level.
    """
    k = _check_count(k, "k", 2)
    n_datasets = _check_count(n_datasets, "n_datasets", 1)
    return float(nemenyi_q(k, alpha) * np.sqrt(k * (k + 1) / (6.0 * n_datasets)))


def nemenyi_pvalues(scores: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Pairwise Nemenyi p-values of the average ranks (the post-hoc test after Friedman).

    ``p_ij = P(Q > |R_i - R_j| sqrt(2) / sqrt(k (k+1) / (6 N)))`` for the studentized
    range Q with k groups and infinite degrees of freedom, as scikit-posthocs'
    ``posthoc_nemenyi_friedman`` (rows = datasets = blocks, columns = methods = groups).

    Returns
    -------
    ndarray (k, k)
        Symmetric, ones on the diagonal.
    """
    arr = _as_scores(scores, min_datasets=2, min_methods=2)
    avg_ranks = rank_scores(arr, higher_is_better).mean(axis=0)
    n, k = arr.shape
    upper = np.triu_indices(k, 1)
    q_values = np.abs(avg_ranks[upper[0]] - avg_ranks[upper[1]]) / np.sqrt(
        k * (k + 1.0) / (6.0 * n)
    )
    p_upper = np.clip(sps.studentized_range.sf(q_values * np.sqrt(2.0), k, np.inf), 0.0, 1.0)
    p_values = np.ones((k, k))
    p_values[upper] = p_upper
    p_values[upper[1], upper[0]] = p_upper
    return p_values


def nemenyi_groups(avg_ranks: np.ndarray, cd: float) -> list[tuple[int, ...]]:
    """Maximal groups of methods whose average ranks lie within ``cd`` of each other.

    Methods are sorted by average rank (stable for ties); for each start i the group runs
    to the last method j with ``rank_j - rank_i <= cd``. Groups contained in another one
    and single methods are dropped, so a diagram draws one bar per returned group.

    Parameters
    ----------
    avg_ranks : ndarray (k,)
        Average rank of each method.
    cd : float
        Critical difference (>= 0).

    Returns
    -------
    list of tuple of int
        Method indices of each group in rank order; groups ordered left (best) to right.
    """
    ranks = np.asarray(avg_ranks, dtype=np.float64)
    if ranks.ndim != 1:
        raise ValueError(f"avg_ranks must be a 1-D array, got {ranks.ndim}-D.")
    if not np.all(np.isfinite(ranks)):
        raise ValueError("avg_ranks contain NaN or infinite values.")
    cd = float(cd)
    if not (np.isfinite(cd) and cd >= 0.0):
        raise ValueError(f"cd must be a finite non-negative number, got {cd}.")
    if ranks.size < 2:
        return []
    order = np.argsort(ranks, kind="stable")
    sorted_ranks = ranks[order]
    # last index of each group: the last method within cd of the start
    last = np.searchsorted(sorted_ranks, sorted_ranks + cd + _CD_TOL, side="right") - 1
    start = np.arange(ranks.size)
    # `last` is non-decreasing: group i is inside group i - 1 exactly when both end alike
    maximal = np.concatenate([[True], last[1:] > last[:-1]]) & (last > start)
    return [tuple(int(m) for m in order[i : last[i] + 1]) for i in np.flatnonzero(maximal)]


def wilcoxon(a: np.ndarray, b: np.ndarray) -> dict[str, float | int]:
    """Two-sided Wilcoxon signed-rank test of paired scores, zero differences dropped
    (scores equal to :data:`SCORE_DECIMALS` decimals differ by zero).

    The statistic and p-value are those of
    ``scipy.stats.wilcoxon(a, b, zero_method="wilcox")`` (the smaller of the positive and
    negative rank sums; exact or normal p-value as scipy chooses). When every difference
    is zero there is nothing to test: statistic 0.0 and p-value 1.0.

    Returns
    -------
    dict
        ``statistic``, ``p_value``, ``n_nonzero`` (pairs that differ) and
        ``median_diff`` (median of ``a - b`` over all pairs).
    """
    a_arr = np.asarray(a, dtype=np.float64)
    b_arr = np.asarray(b, dtype=np.float64)
    if a_arr.ndim != 1 or b_arr.ndim != 1:
        raise ValueError("a and b must be 1-D arrays of paired scores.")
    if a_arr.shape != b_arr.shape:
        raise ValueError(f"a and b must have the same length, got {a_arr.size} and {b_arr.size}.")
    if a_arr.size == 0:
        raise ValueError("a and b are empty; the test needs at least one pair.")
    if not (np.all(np.isfinite(a_arr)) and np.all(np.isfinite(b_arr))):
        raise ValueError("a and b contain NaN or infinite values.")
    diff = np.round(a_arr - b_arr, SCORE_DECIMALS) + 0.0  # + 0.0: no -0.0
    n_nonzero = int(np.count_nonzero(diff))
    median_diff = float(np.median(diff))
    if n_nonzero == 0:
        statistic, p_value = 0.0, 1.0
    else:
        result = sps.wilcoxon(diff, zero_method="wilcox", alternative="two-sided")
        statistic, p_value = float(result.statistic), float(min(1.0, result.pvalue))
    return {
        "statistic": statistic,
        "p_value": p_value,
        "n_nonzero": n_nonzero,
        "median_diff": median_diff,
    }


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values: monotone in the raw p-values and capped at 1.

    The i-th smallest of m p-values becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))``.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be a 1-D array, got {p.ndim}-D.")
    if not np.all(np.isfinite(p)) or np.any((p < 0.0) | (p > 1.0)):
        raise ValueError("p_values must be numbers in [0, 1].")
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted_sorted = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = adjusted_sorted
    return adjusted
