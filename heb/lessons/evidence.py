"""Lesson 3: the Type-II ML evidence curve of one (class, feature) pair (paper eq. 5).

Entry points: :func:`parse_counts`, :func:`pair_counts`, :func:`showcase_pair`, and
:func:`evidence_lesson`, which bundles :func:`evidence_curve`, :func:`pmf_comparison`,
:func:`heldout_log_loss_curve` and the held-out check in numbers and words
(:func:`heldout_comparison`, :func:`heldout_verdict`: who wins, by how much against the
noise, and why the learned m need not win).

One name, one estimator: "Laplace" is always (n + 1) / (N + K), the uniform prior mean
with m = K, whatever prior mean the lesson's HEB uses; the HEB series is named after the
smoother whose prior mean it uses (HEB-M: pooled marginal, HEB-U: uniform).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from heb.concentration import fit_concentration_rows, log_evidence
from heb.counts import CountTable
from heb.lessons import paired_noise
from heb.lessons.common import (
    M_MAX,
    M_MIN,
    N0,
    dirichlet_posterior_mean,
    format_decimals,
    format_m,
)
from heb.lessons.paired_noise import NOISE_SE
from heb.smoothing import learn_concentrations, prior_mean
from heb.synthetic import single_pmf_estimates

__all__ = [
    "EXAMPLE_COUNTS",
    "M_WHATIF_CHOICES",
    "HELDOUT_GRID",
    "LAPLACE",
    "parse_counts",
    "pair_counts",
    "pair_prominence",
    "SHOWCASE_RULE",
    "showcase_pair",
    "EvidenceCurve",
    "evidence_curve",
    "heb_name",
    "is_uniform",
    "pmf_comparison",
    "heldout_prior",
    "heldout_log_loss_curve",
    "NOISE_SE",
    "NEGLIGIBLE",
    "heldout_comparison",
    "difference_kind",
    "heldout_verdict",
    "format_loss",
    "evidence_lesson",
    "category_ranks",
    "bar_order",
]

#: a hand-made count vector: a few frequent categories and a long tail of zeros
EXAMPLE_COUNTS = np.array([14, 9, 5, 3, 2, 1, 1, 0, 0, 0, 0, 0], dtype=float)


#: the most rows hand-typed counts may add up to: the held-out check shuffles every row
#: (``1e9, 1`` took the server's whole memory)
MAX_TYPED_ROWS = 1_000_000


def parse_counts(text: str) -> np.ndarray:
    """Read a count vector typed as ``"3, 0, 1, 7"`` (commas, spaces or semicolons), at
    most :data:`MAX_TYPED_ROWS` rows in all."""
    parts = [p for p in re.split(r"[,\s;]+", text.strip()) if p]
    if not parts:
        raise ValueError("Type at least two counts, for example: 3, 0, 1, 7.")
    try:
        values = np.array([float(p) for p in parts])
    except ValueError:
        raise ValueError(
            "Counts must be whole numbers separated by commas, for example: 3, 0, 1, 7."
        ) from None
    if values.size < 2:
        raise ValueError("A PMF needs at least two categories: type two or more counts.")
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values != np.round(values)):
        raise ValueError("Counts must be whole numbers, zero or more.")
    if values.sum() == 0:
        raise ValueError("All counts are zero: there is nothing to learn from.")
    if values.size > 5000:
        raise ValueError("Keep the hand-typed vector under 5,000 categories.")
    if values.sum() > MAX_TYPED_ROWS:
        raise ValueError(
            f"Keep the hand-typed counts to {MAX_TYPED_ROWS:,} rows in all (these add up to "
            f"{values.sum():,.0f})."
        )
    return values


def pair_counts(
    table: CountTable, class_index: int, feature_index: int, prior: str = "marginal"
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """N_cfv of one (class, feature) pair with its prior mean, from the engine's table.

    Parameters
    ----------
    table : CountTable
    class_index, feature_index : int
    prior : {"marginal", "uniform"}
        HEB-M's pooled marginal N_fv / S_f or HEB-U's 1 / K_f
        (:func:`heb.smoothing.prior_mean`).

    Returns
    -------
    counts : ndarray (K_f,)
    prior_mean : ndarray (K_f,)
    pooled : ndarray (K_f,) or None
        N_fv over all classes (marginal prior only), so a held-out split can refit it.
    """
    if not 0 <= feature_index < table.n_features:
        raise ValueError(f"There is no feature number {feature_index}.")
    if not 0 <= class_index < table.n_classes:
        raise ValueError(f"There is no class number {class_index}.")
    columns = slice(table.offsets[feature_index], table.offsets[feature_index + 1])
    mean = prior_mean(table, prior)[columns]
    pooled = table.category_totals()[columns] if prior == "marginal" else None
    return table.counts[class_index, columns].copy(), mean, pooled


def _pairs_log_evidence(
    table: CountTable, prior: np.ndarray, m: np.ndarray, n_cf: np.ndarray
) -> np.ndarray:
    """l(m) (paper eq. 5) of every (class, feature) pair at once, ``m`` (C, F) one
    concentration per pair, ``prior`` (V,) the prior mean over the table's columns."""
    col_f = table.feature_of_column
    x = m[:, col_f] * prior[None, :]  # (C, V): m_cf t_v
    n = table.counts
    seen = n > 0  # a zero count adds log G(m t) - log G(m t) = 0 (and t may be 0 there)
    safe = np.where(seen, x, 1.0)
    terms = np.where(seen, gammaln(n + safe) - gammaln(safe), 0.0)
    return gammaln(m) - gammaln(n_cf + m) + np.add.reduceat(terms, table.offsets[:-1], axis=1)


def pair_prominence(table: CountTable, n0: float = N0) -> np.ndarray:
    """How clearly each pair's HEB-M evidence prefers its learned m, in nats (C, F).

    l(m_hat) minus the highest of l(K_f) (Laplace's strength m = K_f), l(M_MIN) and
    l(M_MAX) (the clamp's ends): the log of how many times more probable the pair's counts
    are under the learned m than under the nearest of those three. NaN where HEB-M does not
    fit an interior maximum (a fallback below ``n0`` rows, a clamped or flat evidence).
    """
    prior = prior_mean(table, "marginal")
    m_hat, fit, fallback = learn_concentrations(table, prior, n0=n0)
    C, F = m_hat.shape
    interior = ~fallback & (np.asarray(fit.clamped).reshape(C, F) == 0)
    interior &= ~np.asarray(fit.flat).reshape(C, F)
    n_cf = table.class_feature_totals()
    K = np.broadcast_to(table.n_categories.astype(np.float64), (C, F))
    peak = _pairs_log_evidence(table, prior, m_hat, n_cf)
    rivals = np.maximum.reduce(
        [
            _pairs_log_evidence(table, prior, np.asarray(K), n_cf),
            _pairs_log_evidence(table, prior, np.full((C, F), M_MIN), n_cf),
            _pairs_log_evidence(table, prior, np.full((C, F), M_MAX), n_cf),
        ]
    )
    return np.where(interior, peak - rivals, np.nan)


#: the rule :func:`showcase_pair` opens the lesson by, in words (the page says it)
SHOWCASE_RULE = (
    "the pair whose evidence peak stands highest above its evidence at m = K (Laplace's "
    "strength) and at both ends of the clamp (HEB-M, an interior maximum)"
)


def showcase_pair(table: CountTable, n0: float = N0, max_width: int = 60) -> tuple[int, int]:
    """A (class, feature) pair worth opening the lesson on (:data:`SHOWCASE_RULE`).

    Among the pairs whose HEB-M evidence has an interior maximum, the one of largest
    :func:`pair_prominence`: a clear peak, away from Laplace's m = K_f and from the
    clamp, so the curve shows what Type-II ML adds to a fixed rule. Features of at most
    ``max_width`` categories are preferred (readable bars); (0, 0) when no pair has an
    interior maximum.
    """
    margin = pair_prominence(table, n0)
    ok = np.isfinite(margin)
    readable = ok & (table.n_categories <= max_width)[None, :]
    pool = readable if readable.any() else ok
    if not pool.any():
        return 0, 0
    c, f = np.unravel_index(np.argmax(np.where(pool, margin, -np.inf)), margin.shape)
    return int(c), int(f)


@dataclass(frozen=True)
class EvidenceCurve:
    """The Type-II ML evidence l(m) of one count vector and its clamped maximiser.

    Attributes
    ----------
    m : ndarray (M,)
        The grid of concentrations.
    log_evidence : ndarray (M,)
        l(m) on the grid (paper eq. 5).
    m_hat : float
        The m HEB uses: the clamped maximiser, or K when N < n0 (Algorithm 1, step 8).
    m_argmax : float
        The clamped maximiser itself.
    clamped : str
        ``"low"``, ``"high"`` or ``"none"``.
    fallback : bool
        N < n0: HEB uses m = K (Laplace's strength) instead of the maximiser.
    flat : bool
        The evidence does not depend on m (N <= 1).
    n_samples, n_categories : int
    m_min, m_max : float
        The clamp.
    counts, prior : ndarray (K,)
        The count vector and prior mean the curve was computed from.
    """

    m: np.ndarray
    log_evidence: np.ndarray
    m_hat: float
    m_argmax: float
    clamped: str
    fallback: bool
    flat: bool
    n_samples: int
    n_categories: int
    m_min: float
    m_max: float
    counts: np.ndarray
    prior: np.ndarray

    def log_evidence_at(self, m: float) -> float:
        """l(m) at one m (not necessarily on the grid)."""
        return float(log_evidence(self.counts, self.prior, float(m)))


def _check_vector(counts: np.ndarray, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(counts, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    if counts.ndim != 1 or counts.size < 2:
        raise ValueError("The count vector needs at least two categories.")
    if prior.shape != counts.shape:
        raise ValueError("The prior mean needs one value per category.")
    if np.any(counts < 0) or not np.all(np.isfinite(counts)):
        raise ValueError("Counts must be finite and non-negative.")
    if np.any((prior <= 0) & (counts > 0)):
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    return counts, prior


def evidence_curve(
    counts: np.ndarray,
    prior: np.ndarray,
    m_grid: np.ndarray | None = None,
    n0: float = N0,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> EvidenceCurve:
    """l(m) on a log grid, with the engine's clamped maximiser and the N0 fallback.

    Parameters
    ----------
    counts : ndarray (K,)
        N_cfv of the pair.
    prior : ndarray (K,)
        The prior mean t (uniform for HEB-U, pooled marginal for HEB-M).
    m_grid : ndarray (M,), optional
        Default: 241 points from 1e-3 to 1e5 (one decade past each clamp end).
    n0, m_min, m_max : float
        Algorithm 1's low-count threshold and clamp.
    """
    counts, prior = _check_vector(counts, prior)
    if m_grid is None:
        m_grid = np.logspace(-3, 5, 241)
    m_grid = np.asarray(m_grid, dtype=np.float64)
    K = counts.size
    table = CountTable(np.array([counts.sum()]), counts[None, :], np.array([0, K]))
    m_cf, fit, fallback = learn_concentrations(table, prior, n0=n0, m_min=m_min, m_max=m_max)
    # a fallback pair skips the fit: fit it anyway to show where the maximiser would be
    raw = fit_concentration_rows(counts[None, :], prior, m_min, m_max) if fallback[0, 0] else fit
    clamp_names = {-1: "low", 0: "none", 1: "high"}
    return EvidenceCurve(
        m=m_grid,
        log_evidence=log_evidence(counts, prior, m_grid),
        m_hat=float(m_cf[0, 0]),
        m_argmax=float(raw.m[0]),
        clamped=clamp_names[int(raw.clamped[0])],
        fallback=bool(fallback[0, 0]),
        flat=bool(raw.flat[0]),
        n_samples=int(counts.sum()),
        n_categories=K,
        m_min=m_min,
        m_max=m_max,
        counts=counts,
        prior=prior,
    )


#: the held-out curve's grid of concentrations (a decade past each end of the clamp)
HELDOUT_GRID = np.logspace(-3, 5, 161)
#: the what-if slider's concentrations (the clamp's ends included)
M_WHATIF_CHOICES = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1e3, 3e3, 1e4)
#: the name of (n + 1) / (N + K) everywhere in the lesson
LAPLACE = "Laplace"


def is_uniform(prior: np.ndarray) -> bool:
    """Whether a prior mean is the uniform 1/K."""
    prior = np.asarray(prior, dtype=np.float64)
    return bool(np.allclose(prior, 1.0 / prior.size, rtol=1e-12, atol=0.0))


def heb_name(prior: np.ndarray) -> str:
    """The smoother a learned m with this prior mean is: ``"HEB-U"`` (uniform) or ``"HEB-M"``."""
    return "HEB-U" if is_uniform(prior) else "HEB-M"


def pmf_comparison(
    counts: np.ndarray,
    prior: np.ndarray,
    m_hat: float,
    m_whatif: float | None = None,
    heb: str | None = None,
) -> dict[str, np.ndarray]:
    """The smoothed PMFs of one pair: unsmoothed, Laplace, HEB (m_hat), prior mean, what-if.

    Laplace is (n + 1) / (N + K) (uniform prior, m = K) whatever ``prior`` is; HEB (named
    ``heb``, by default :func:`heb_name`) and the what-if use the given prior mean t with
    concentration ``m_hat`` / ``m_whatif``.
    """
    counts, prior = _check_vector(counts, prior)
    out = {
        "unsmoothed": single_pmf_estimates(counts[None, :], "unsmoothed")[0],
        LAPLACE: single_pmf_estimates(counts[None, :], "laplace")[0],
        heb or heb_name(prior): dirichlet_posterior_mean(counts, prior, m_hat),
        "prior mean": prior.copy(),
    }
    if m_whatif is not None:
        out[f"what-if m = {format_m(m_whatif)}"] = dirichlet_posterior_mean(counts, prior, m_whatif)
    return out


def _fold_counts(counts: np.ndarray, n_folds: int, seed: int) -> np.ndarray:
    """(n_folds, K) counts of the pair's rows shuffled into folds."""
    K = counts.size
    rows = np.repeat(np.arange(K), counts.astype(np.int64))
    rows = np.random.default_rng(seed).permutation(rows)
    fold = np.arange(rows.size) % n_folds
    return np.bincount(fold * K + rows, minlength=n_folds * K).reshape(n_folds, K).astype(float)


#: the other classes' rows are dealt into folds with the stream ``seed + OTHER_STREAM``
OTHER_STREAM = 1


def _pooled_test(
    counts: np.ndarray, pooled: np.ndarray, test: np.ndarray, n_folds: int, seed: int
) -> np.ndarray:
    """(folds, K) held-out rows of every class: the pair's ``test`` plus the feature's other
    classes' rows (``pooled - counts``) dealt into the same folds, as a stratified fold
    holds out a share of every class. Held out from the pair alone, a fold's marginal would
    keep all the other classes' rows and lean toward them (every refitted m then fell
    below the m fitted on all rows: 329 to 398 against 527 on zip-codes' weekday)."""
    other = np.clip(np.asarray(pooled, dtype=np.float64) - counts, 0.0, None)
    return test + _fold_counts(other, n_folds, seed + OTHER_STREAM)


def heldout_prior(pooled_train: np.ndarray) -> np.ndarray:
    """The pooled marginal refitted on a training part, every category kept positive.

    (N_fv + 1) / (S + K) per row of ``pooled_train`` (folds, K): a category whose every
    row is held out keeps a positive prior mean, so its smoothed probability
    m t_v / (N + m) is never ~0 (the engine's categories always hold a training row).
    """
    pooled_train = np.asarray(pooled_train, dtype=np.float64)
    K = pooled_train.shape[-1]
    return (pooled_train + 1.0) / (pooled_train.sum(axis=-1, keepdims=True) + K)


def _fold_split(
    counts: np.ndarray, prior: np.ndarray, n_folds: int, seed: int, pooled: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pair's rows dealt into folds: ``test`` and ``train`` (folds, K) counts and each
    fold's prior mean (``prior``, or with ``pooled`` the marginal without the fold's
    held-out rows of every class, :func:`_pooled_test` and :func:`heldout_prior`).
    ``n_folds`` is clipped to 2..N."""
    N = int(counts.sum())
    if N < 2:
        raise ValueError("Held-out log-loss needs at least two rows in this pair.")
    n_folds = int(min(max(n_folds, 2), N))
    test = _fold_counts(counts, n_folds, seed)
    train = counts[None, :] - test
    if pooled is None:
        priors = np.broadcast_to(prior, test.shape).copy()
    else:
        pooled = np.asarray(pooled, dtype=np.float64)
        priors = heldout_prior(pooled[None, :] - _pooled_test(counts, pooled, test, n_folds, seed))
    return test, train, priors


def _heldout_cells(
    counts: np.ndarray,
    prior: np.ndarray,
    m_grid: np.ndarray,
    n_folds: int,
    seed: int,
    pooled: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per held-out cell (fold, category with a held-out row): its rows and log-loss.

    Returns ``weight`` (cells,) the held-out rows of each cell, ``loss`` (M, cells) each
    row's -log theta under each m of ``m_grid`` ((M,), or (M, folds) for one m per fold),
    and the number of folds used. The cells
    depend on ``counts``, ``n_folds`` and ``seed`` only: two calls with other priors or
    grids score the same rows in the same order (paired).
    """
    counts, prior = _check_vector(counts, prior)
    m_grid = np.asarray(m_grid, dtype=np.float64)
    if np.any(m_grid <= 0) or not np.all(np.isfinite(m_grid)):
        raise ValueError("Held-out concentrations m must be positive and finite.")
    if pooled is None and np.any(prior <= 0):
        raise ValueError("A held-out score needs a positive prior mean for every category.")
    test, train, priors = _fold_split(counts, prior, n_folds, seed, pooled)
    fold_i, cat_i = np.nonzero(test)  # held-out cells with at least one row
    weight = test[fold_i, cat_i]
    n_train = train.sum(axis=1)
    if m_grid.ndim == 2:  # (M, folds): one m per fold (a refit), gathered per cell
        mm = m_grid[:, fold_i]
    else:
        mm = m_grid[:, None]
    theta = (train[fold_i, cat_i][None, :] + mm * priors[fold_i, cat_i][None, :]) / (
        n_train[fold_i][None, :] + mm
    )
    return weight, -np.log(theta), test.shape[0]


def heldout_refit(
    counts: np.ndarray,
    prior: np.ndarray,
    n_folds: int = 5,
    seed: int = 0,
    pooled: np.ndarray | None = None,
    n0: float = N0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """HEB's m refitted on each fold's training rows, as the engine would fit it there.

    Per fold: the training counts, the prior mean (``prior``, or with ``pooled`` the
    marginal without the fold's held-out rows of every class, :func:`heldout_prior`) and
    Type-II ML
    m on them, clamped, with Algorithm 1's fallback m = K below ``n0`` training rows.
    No held-out row enters any of the three.

    Returns
    -------
    tuple of ndarray
        ``train`` (folds, K) counts, ``priors`` (folds, K), ``m`` (folds,).
    """
    counts, prior = _check_vector(counts, prior)
    _, train, priors = _fold_split(counts, prior, n_folds, seed, pooled)
    m = fit_concentration_rows(train, priors, M_MIN, M_MAX).m.astype(np.float64)
    m = np.where(train.sum(axis=1) < n0, float(counts.size), m)
    return train, priors, m


def heldout_log_loss_curve(
    counts: np.ndarray,
    prior: np.ndarray,
    m_grid: np.ndarray,
    n_folds: int = 5,
    seed: int = 0,
    pooled: np.ndarray | None = None,
) -> dict:
    """K-fold held-out log-loss of the posterior mean (n + m t) / (N + m) for each m.

    The pair's N rows (one per count) are shuffled into ``n_folds`` folds; each fold's
    rows are scored by the PMF smoothed from the other folds' counts. With ``pooled``
    (N_fv over all classes), the marginal prior is refitted without the fold's held-out
    rows, the pair's and a fold's share of every other class's, as a stratified fold
    holds out (no leakage), by :func:`heldout_prior`; otherwise the prior ``t`` is held fixed. A
    held-out category unseen in the training part gets its smoothed probability
    m t_v / (N + m) > 0, never a clipped 0: every score is finite, and as m grows the
    score tends to the prior mean's (log K for the uniform prior: a uniform guess).

    Returns
    -------
    dict
        ``m`` (M,), ``log_loss`` (M,) mean over all held-out rows in nats, ``n_folds``
        int, ``n_rows`` int, ``uniform_log_loss`` log K (a uniform guess).
    """
    weight, loss, n_folds = _heldout_cells(counts, prior, m_grid, n_folds, seed, pooled)
    N = float(weight.sum())
    return {
        "m": np.asarray(m_grid, dtype=np.float64),
        "log_loss": loss @ weight / N,
        "n_folds": n_folds,
        "n_rows": int(N),
        "uniform_log_loss": float(np.log(np.asarray(counts).size)),
    }


#: a held-out difference smaller than this (nats per row) is too small to matter
NEGLIGIBLE = 1e-3


def _paired(weight: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean of a - b over the held-out rows and its standard error (rows paired)."""
    d = a - b
    N = float(weight.sum())
    mean = float(weight @ d / N)
    var = float(weight @ (d - mean) ** 2 / max(N - 1.0, 1.0))
    return mean, float(np.sqrt(var / N))


def heldout_comparison(
    counts: np.ndarray,
    prior: np.ndarray,
    m_hat: float,
    pooled: np.ndarray | None = None,
    m_grid: np.ndarray = HELDOUT_GRID,
    n_folds: int = 5,
    seed: int = 0,
    n0: float = N0,
) -> dict:
    """HEB against Laplace and against its own held-out curve's lowest point, paired.

    The lowest point is sought among the grid's m inside the clamp [M_MIN, M_MAX] (the
    m HEB can take; the figure's grid runs a decade past each end).

    Every score is on the same held-out rows (:func:`heldout_log_loss_curve`'s folds).
    HEB is scored as the engine would be: m refitted on each fold's training rows toward
    the prior mean of those rows (:func:`heldout_refit`), so no held-out row chooses
    its m or its prior mean. Laplace has m = K and the uniform prior mean. "best" is the
    grid m of lowest held-out loss under ``prior`` (chosen with the held-out rows: an
    optimistic yardstick no fitted m is expected to reach). ``m_hat`` (fitted on all the
    pair's rows) is scored too, as ``heb_all_rows``, for reference only.

    Returns
    -------
    dict
        ``heb``, ``laplace``, ``best`` held-out log-loss (nats per row); ``best_m``;
        ``m_folds`` HEB's m per fold; ``diff`` = heb - laplace and ``se`` its standard
        error over the paired rows; ``best_diff`` = heb - best and ``best_se``;
        ``heb_all_rows`` the score of ``m_hat``; ``n_rows``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    K = counts.size
    m_grid = np.asarray(m_grid, dtype=np.float64)
    _, _, m_folds = heldout_refit(counts, prior, n_folds, seed, pooled, n0)
    weight, heb_grid, _ = _heldout_cells(
        counts, prior, np.append(m_grid, float(m_hat)), n_folds, seed, pooled
    )
    _, heb, _ = _heldout_cells(counts, prior, m_folds[None, :], n_folds, seed, pooled)
    _, laplace, _ = _heldout_cells(
        counts, np.full(K, 1.0 / K), np.array([float(K)]), n_folds, seed, None
    )
    N = float(weight.sum())
    curve_loss = heb_grid[:-1] @ weight / N
    inside = np.flatnonzero((m_grid >= M_MIN) & (m_grid <= M_MAX))
    if inside.size == 0:
        raise ValueError(f"The held-out grid has no m inside [{M_MIN}, {M_MAX}].")
    best = int(inside[np.argmin(curve_loss[inside])])
    diff, se = _paired(weight, heb[0], laplace[0])
    best_diff, best_se = _paired(weight, heb[0], heb_grid[best])
    return {
        "heb": float(heb[0] @ weight / N),
        "laplace": float(laplace[0] @ weight / N),
        "best": float(curve_loss[best]),
        "best_m": float(m_grid[best]),
        "m_folds": m_folds,
        "diff": diff,
        "se": se,
        "best_diff": best_diff,
        "best_se": best_se,
        "heb_all_rows": float(heb_grid[-1] @ weight / N),
        "n_rows": int(N),
    }


def difference_kind(diff: float, se: float) -> str:
    """``"noise"`` (within :data:`NOISE_SE` standard errors), ``"negligible"`` (beyond
    them but under :data:`NEGLIGIBLE` nats per row), else ``"lower"`` / ``"higher"``
    (the sign of ``diff``)."""
    return paired_noise.difference_kind(diff, se, NEGLIGIBLE)


def format_loss(value: float) -> str:
    """A held-out log-loss in nats, one rounding for the text and the figure's legend:
    four decimals (1.9162), two significant figures below 0.001 (0.00021, never 0.0000
    for a positive loss)."""
    return format_decimals(value, 4)


#: what the per-pair check is not: the classifier's score, on the Compare page
NOT_THE_CLASSIFIER = (
    " This scores one PMF of one pair. The Compare page scores the classifier on all"
    " pairs at once; the two can rank the smoothers differently."
)


def heldout_verdict(
    comparison: dict,
    heb: str,
    m_hat: float,
    uniform_prior: bool,
    n_categories: int,
    rho: float,
) -> str:
    """The held-out check in words: who wins, HEB (m refitted per fold) against Laplace
    with the difference's standard error, and against its own curve's lowest point.

    ``comparison`` is :func:`heldout_comparison`'s, ``heb`` the smoother's name
    (:func:`heb_name`), ``rho`` = m_hat / (N + m_hat). A loss is not explained beyond
    what the numbers show: the check scores one pair, not the classifier.
    """
    c = comparison
    K = n_categories
    best = f"{format_loss(c['best'])} at m = {format_m(c['best_m'])}"
    near = difference_kind(c["best_diff"], c["best_se"])
    if abs(c["best_diff"]) <= 1e-12:  # every fold's m is the lowest point's (both clamped)
        lowest = f"this curve's lowest inside the clamp, at m = {format_m(c['best_m'])}"
    elif near in ("noise", "negligible"):
        lowest = f"within noise of this curve's lowest inside the clamp, {best}"
    else:
        lowest = (
            f"{paired_noise.format_small(c['best_diff'])} above this curve's lowest inside "
            f"the clamp, {best}, found with the held-out rows themselves"
        )
    m_folds = np.asarray(c.get("m_folds", [m_hat]), dtype=np.float64)
    if np.ptp(m_folds) <= 1e-9 * max(float(m_folds.max()), 1.0):
        fitted = f"m = {format_m(float(m_folds[0]))}"
    else:
        fitted = f"m = {format_m(float(m_folds.min()))} to {format_m(float(m_folds.max()))}"
    scores = (
        f"{heb}'s m, refitted on each fold's training rows ({fitted}), scores "
        f"{format_loss(c['heb'])} nats per held-out row ({lowest}); "
        f"Laplace {format_loss(c['laplace'])}"
    )
    return _heldout_verdict_text(c, heb, scores, m_folds, uniform_prior, K, rho) + _figure_point(
        c, heb, m_hat
    )


def _figure_point(comparison: dict, heb: str, m_hat: float) -> str:
    """Why the figure's HEB point reads another score than the text, where it does: it
    is m_hat fitted on all the pair's rows (held-out ones too), the text's m is refitted
    per fold; empty when the two round alike."""
    shown, scored = comparison.get("heb_all_rows"), comparison["heb"]
    if shown is None or format_loss(shown) == format_loss(scored):
        return ""
    # one short sentence: a longer one put the presenter's footer below a 900 px screen
    return (
        f" The figure's {heb} point, {format_loss(shown)}, is m = {format_m(m_hat)} fitted on all "
        f"{comparison['n_rows']:,} rows, held-out ones too."
    )


def _heldout_verdict_text(
    c: dict,
    heb: str,
    scores: str,
    m_folds: np.ndarray,
    uniform_prior: bool,
    K: int,
    rho: float,
) -> str:
    """:func:`heldout_verdict`'s verdict, from its sentence ``scores``."""
    N = c["n_rows"]
    if uniform_prior and np.all(m_folds == float(K)):
        return f"**{heb} uses Laplace's m = K here: the same estimate, the same score.** {scores}."
    gap = f"a gap of {paired_noise.format_gap(c['diff'], c['se'])}"
    why = (
        " Type-II ML maximises the evidence of the training counts, not the held-out "
        "score: it need not win."
    )
    kind = difference_kind(c["diff"], c["se"])
    if kind in ("noise", "negligible"):
        text = (
            f"**No winner between {heb}'s m and Laplace here.** {scores}: {gap}, "
            f"{'noise' if kind == 'noise' else 'too little to matter'}."
        )
        if max(rho, K / (N + K)) < 0.1:
            text += f" With {N:,} rows over K = {K:,} categories the counts outweigh either prior."
        return text + (why if c["diff"] > 0 else "")  # Laplace ahead, if only by noise
    if kind == "lower":
        return f"**{heb}'s m beats Laplace on this pair.** {scores}: {gap} nats per row."
    text = f"**Laplace beats {heb}'s m on this pair.** {scores}: {gap} nats per row.{why}"
    if not uniform_prior and c["best"] > c["laplace"]:
        text += (
            " Even this curve's lowest point is above Laplace: the prior mean t, not m, "
            "makes the difference."
        )
    if not uniform_prior:
        text += NOT_THE_CLASSIFIER
    return text


def evidence_lesson(
    counts: np.ndarray,
    prior: np.ndarray | None,
    m_whatif: float,
    pooled: np.ndarray | None = None,
    max_bars: int = 30,
    n0: float = N0,
    heb: str | None = None,
) -> dict:
    """Everything lesson 3 shows for one count vector, in one call.

    ``prior=None`` is the uniform prior mean 1/K (HEB-U). ``heb`` names the smoother the
    prior mean was chosen for; by default :func:`heb_name` tells it from the prior, which
    calls a pooled marginal that happens to be uniform (an ID column: one row per value)
    HEB-U where the user chose HEB-M's.

    Returns
    -------
    dict
        ``curve`` (:class:`EvidenceCurve`), ``heb`` the HEB smoother's name (:func:`heb_name`),
        ``rho`` = m_hat / (N + m_hat), ``pmfs`` (:func:`pmf_comparison`), ``shown``
        indices of the (at most ``max_bars``) most frequent categories, in category order;
        ``heldout`` (:func:`heldout_log_loss_curve` on :data:`HELDOUT_GRID`, ``None`` when
        N < 2) and ``marks`` name -> (m, held-out log-loss) on the same folds for the
        what-if m and HEB's m (the lesson's prior mean) and Laplace (m = K with the
        uniform prior mean, as everywhere); ``heldout_uniform`` Laplace's own held-out
        curve (the uniform prior mean, same folds) when the lesson's prior mean is not
        uniform, else ``None`` (Laplace is then a point of ``heldout``); ``comparison``
        (:func:`heldout_comparison`) and ``verdict`` (:func:`heldout_verdict`), ``None``
        when N < 2; ``whatif_change`` the held-out log-loss of the what-if m minus HEB's
        (``None`` when N < 2).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if prior is None:
        prior = np.full(counts.size, 1.0 / max(counts.size, 1))
    counts, prior = _check_vector(counts, prior)
    curve = evidence_curve(counts, prior, n0=n0)
    heb = heb or heb_name(prior)
    uniform_prior = is_uniform(prior)
    rho = curve.m_hat / (curve.n_samples + curve.m_hat)
    heldout, heldout_uniform, marks, comparison, verdict = None, None, {}, None, None
    if curve.n_samples >= 2:
        heldout = heldout_log_loss_curve(counts, prior, HELDOUT_GRID, pooled=pooled)
        at = heldout_log_loss_curve(
            counts, prior, np.array([float(m_whatif), curve.m_hat]), pooled=pooled
        )["log_loss"]
        K = float(counts.size)
        uniform = np.full(counts.size, 1.0 / K)
        laplace = heldout_log_loss_curve(counts, uniform, np.array([K]))["log_loss"][0]
        if not uniform_prior:
            heldout_uniform = heldout_log_loss_curve(counts, uniform, HELDOUT_GRID)
        marks = {
            "what-if m": (float(m_whatif), float(at[0])),
            f"{heb}'s m": (curve.m_hat, float(at[1])),
            LAPLACE: (K, float(laplace)),
        }
        comparison = heldout_comparison(counts, prior, curve.m_hat, pooled)
        verdict = heldout_verdict(comparison, heb, curve.m_hat, uniform_prior, counts.size, rho)
    shown = np.sort(np.argsort(-counts, kind="stable")[:max_bars])
    change = marks["what-if m"][1] - marks[f"{heb}'s m"][1] if marks else None
    return {
        "whatif_change": change,
        "curve": curve,
        "heb": heb,
        "uniform_prior": uniform_prior,
        "rho": rho,
        "pmfs": pmf_comparison(counts, prior, curve.m_hat, m_whatif, heb),
        "shown": shown,
        "heldout": heldout,
        "heldout_uniform": heldout_uniform,
        "marks": marks,
        "comparison": comparison,
        "verdict": verdict,
    }


def category_ranks(labels, categories, ordered: bool) -> tuple[int, ...]:
    """Each label's place in a column's stated order, or ``()`` when it states none.

    The encoder codes a column's values in sorted order, so a weekday's bars read Fri, Mon,
    Sat, ... (an analyst's trial). An ordered pandas Categorical states its order
    (``categories``, ``ordered``): the labels found in it take their place there, any other
    (the "(missing)" category) after them. An unordered column states none: its bars keep
    the sorted order, as the app does not guess an order from the labels' text.
    """
    if not ordered:
        return ()
    place = {str(value): i for i, value in enumerate(categories)}
    return tuple(place.get(str(label), len(place)) for label in labels)


def bar_order(shown: np.ndarray, ranks: tuple[int, ...] = ()) -> np.ndarray:
    """The shown categories (indices, ascending) in the order of ``ranks``
    (:func:`category_ranks`; ``()`` keeps them as they are)."""
    shown = np.asarray(shown)
    if not ranks:
        return shown
    return shown[np.argsort(np.asarray(ranks)[shown], kind="stable")]
