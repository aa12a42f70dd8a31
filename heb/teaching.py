"""The computations behind the six classroom lessons (``pages/lesson_*.py``).

Pages hold no formula: every number a lesson shows is computed here, from the engine
(:mod:`heb.smoothing`, :mod:`heb.concentration`, :mod:`heb.nb`, :mod:`heb.synthetic`,
:mod:`heb.metrics`) wherever the engine already has it. Inputs are small (a toy corpus,
one count vector, a few thousand synthetic rows), so each call answers in milliseconds.

Lessons and their entry points:

1. Zero counts: :func:`toy_spam`, :func:`score_message`, :func:`underflow_curve`.
2. Laplace is a Dirichlet posterior mean: :func:`dirichlet_example`,
   :func:`dirichlet_posterior_mean`, :func:`dirichlet_view`, :func:`alpha_sweep`.
3. The evidence curve: :func:`parse_counts`, :func:`pair_counts`, :func:`showcase_pair`,
   :func:`evidence_lesson` (:func:`evidence_curve`, :func:`pmf_comparison`,
   :func:`heldout_log_loss_curve`).
4. High cardinality: :func:`theorem1_grid`, :func:`theorem1_reduction`,
   :func:`vertex_errors`, :func:`laplace_vertex_bias`.
5. Calibration and double counting: :func:`calibration_data`, :func:`duplicate_feature`,
   :func:`double_counting_sweep`, :func:`calibration_comparison` (Platt and isotonic
   through scikit-learn, :func:`fit_temperature`), :func:`complementarity`.
6. Known truth: :func:`known_truth_study`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from heb.concentration import M_MAX, M_MIN, fit_concentration_rows, log_evidence
from heb.counts import CountTable, category_offsets
from heb.metrics import all_metrics, reliability, reliability_curve
from heb.nb import NaiveBayes, score_codes
from heb.smoothing import SMOOTHERS, learn_concentrations, mutual_information, prior_mean
from heb.synthetic import l1_error_study, single_pmf_estimates

__all__ = [
    "SMOOTHER_LABELS",
    "ToySpam",
    "toy_spam",
    "word_probabilities",
    "score_message",
    "underflow_curve",
    "dirichlet_example",
    "dirichlet_posterior_mean",
    "prior_weight",
    "dirichlet_view",
    "alpha_sweep",
    "EXAMPLE_COUNTS",
    "parse_counts",
    "pair_counts",
    "showcase_pair",
    "EvidenceCurve",
    "evidence_curve",
    "format_m",
    "pmf_comparison",
    "heldout_log_loss_curve",
    "M_WHATIF_CHOICES",
    "evidence_lesson",
    "THEOREM1_K",
    "THEOREM1_N",
    "theorem1_grid",
    "theorem1_reduction",
    "laplace_vertex_bias",
    "vertex_errors",
    "duplicate_feature",
    "feature_scores",
    "feature_log_odds",
    "double_counting_sweep",
    "temperature_scale",
    "fit_temperature",
    "calibration_comparison",
    "calibration_data",
    "most_informative_feature",
    "complementarity",
    "CALIBRATION_MODELS",
    "POST_HOC",
    "known_truth_study",
]

#: display names of the engine's smoothers (and of the unsmoothed estimate)
SMOOTHER_LABELS = {
    "unsmoothed": "unsmoothed",
    "laplace": "Laplace",
    "lidstone": "Lidstone",
    "kt": "KT",
    "m-estimate": "m-estimate",
    "te": "TE",
    "heb-u": "HEB-U",
    "heb-m": "HEB-M",
}


# =====================================================================================
# Lesson 1: zero counts, underflow and log-sum-exp
# =====================================================================================


@dataclass(frozen=True)
class ToySpam:
    """A tiny word-count corpus: how often each word appeared in each class's e-mails.

    Attributes
    ----------
    vocabulary : tuple of str
        The V words.
    classes : tuple of str
        ``("spam", "ham")``.
    word_counts : ndarray (C, V)
        Word occurrences over all training e-mails of each class.
    email_counts : ndarray (C,)
        Training e-mails per class (for the class prior).
    """

    vocabulary: tuple[str, ...]
    classes: tuple[str, ...]
    word_counts: np.ndarray
    email_counts: np.ndarray

    @property
    def table(self) -> CountTable:
        """The corpus as a one-feature count table (the feature is "which word")."""
        return CountTable(
            self.email_counts.astype(float),
            self.word_counts.astype(float),
            np.array([0, len(self.vocabulary)]),
        )


def toy_spam() -> ToySpam:
    """The lesson's corpus: "unsubscribe" never occurs in ham, "agenda" never in spam."""
    vocabulary = (
        "free",
        "winner",
        "money",
        "click",
        "offer",
        "meeting",
        "project",
        "agenda",
        "report",
        "unsubscribe",
    )
    spam = [30, 18, 25, 22, 20, 2, 1, 0, 3, 15]
    ham = [4, 0, 6, 3, 5, 28, 35, 14, 22, 0]
    return ToySpam(vocabulary, ("spam", "ham"), np.array([spam, ham]), np.array([40, 60]))


def _message_codes(corpus: ToySpam, message: Sequence[str]) -> np.ndarray:
    index = {word: i for i, word in enumerate(corpus.vocabulary)}
    unknown = [word for word in message if word not in index]
    if unknown:
        raise ValueError(f"The word {unknown[0]!r} is not in the toy vocabulary.")
    if not message:
        raise ValueError("The message is empty: pick at least one word.")
    return np.array([index[word] for word in message], dtype=np.int64)


def word_probabilities(corpus: ToySpam, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """P(word | class) with pseudo-count ``alpha`` and the log class prior.

    ``alpha = 0`` is the unsmoothed estimate N_cw / N_c (zeros stay zeros); ``alpha > 0``
    is the engine's Lidstone smoother, (N_cw + alpha) / (N_c + alpha V).

    Returns
    -------
    theta : ndarray (C, V)
    log_prior : ndarray (C,)
        log (N_c + 1) / (S + C), as the engine's Naive Bayes.
    """
    if not (np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"The pseudo-count must be 0 or positive, got {alpha}.")
    table = corpus.table
    # the class prior does not depend on the smoother; alpha = 0 has no engine smoother
    model = NaiveBayes(smoother="lidstone", alpha=alpha if alpha > 0 else 1.0).fit_counts(table)
    if alpha == 0:
        theta = table.counts / table.counts.sum(axis=1, keepdims=True)
    else:
        theta = np.exp(model.feature_log_prob_)
    return theta, model.class_log_prior_


def score_message(corpus: ToySpam, message: Sequence[str], alpha: float) -> dict:
    """Score one message in log space; a class with a zero factor is *vetoed*.

    Returns
    -------
    dict
        ``factors`` (C, W) P(word | class) of each message word; ``vetoed`` (C,) bool, a
        zero factor sends the class's product to 0 (its log score is -inf);
        ``log_score`` (C,) log prior + sum of log factors for the classes not vetoed
        (vetoed entries hold 0.0: read ``vetoed``); ``posterior`` (C,) by log-sum-exp,
        or ``None`` when every class is vetoed (0 / 0: no answer at all).
    """
    codes = _message_codes(corpus, message)
    theta, log_prior = word_probabilities(corpus, alpha)
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)
    joint = score_codes(log_theta, corpus.table.offsets, codes[:, None]).sum(axis=0) + log_prior
    vetoed = ~np.isfinite(joint)
    posterior = None if vetoed.all() else np.exp(joint - logsumexp(joint))
    return {
        "factors": theta[:, codes],
        "vetoed": vetoed,
        "log_score": np.where(vetoed, 0.0, joint),
        "posterior": posterior,
    }


def underflow_curve(
    corpus: ToySpam, message: Sequence[str], alpha: float, max_copies: int = 200
) -> dict:
    """The message repeated 1..max_copies times: direct products against log space.

    The direct product multiplies the factors in float64, as a naive implementation
    would, and underflows to exactly 0 once it drops below ~4.9e-324; the log-space
    score stays finite and log-sum-exp still gives the posterior.

    Returns
    -------
    dict
        ``n_words`` (L,) message length; ``vetoed`` (C,) a zero factor (see
        :func:`score_message`); ``log10_likelihood`` (C, L) log10 of prior x product from
        logs (0.0 for vetoed classes); ``direct`` (C, L) the float64 product;
        ``underflow`` (C, L) bool, direct product 0 although the exact value is positive;
        ``direct_defined`` (L,) the direct posterior is not 0 / 0; ``direct_posterior``
        (C, L) where defined (uniform placeholder elsewhere); ``posterior`` (C, L) by
        log-sum-exp, or ``None`` when every class is vetoed.
    """
    if max_copies < 1:
        raise ValueError("The message must be repeated at least once.")
    codes = _message_codes(corpus, message)
    theta, log_prior = word_probabilities(corpus, alpha)
    copies = np.arange(1, max_copies + 1)
    sequence = np.tile(theta[:, codes], (1, max_copies))  # (C, L * W), multiplied in order
    direct = np.exp(log_prior)[:, None] * np.cumprod(sequence, axis=1)[:, copies * codes.size - 1]
    with np.errstate(divide="ignore"):
        log_message = np.log(theta[:, codes]).sum(axis=1)
    vetoed = ~np.isfinite(log_message)
    joint = log_prior[:, None] + np.where(vetoed, 0.0, log_message)[:, None] * copies[None, :]
    total = direct.sum(axis=0)
    defined = total > 0
    direct_posterior = np.where(
        defined, direct / np.where(defined, total, 1.0), 1 / direct.shape[0]
    )
    posterior = None
    if not vetoed.all():
        live = np.where(vetoed[:, None], -np.inf, joint)
        posterior = np.exp(live - logsumexp(live, axis=0))
    return {
        "n_words": copies * codes.size,
        "vetoed": vetoed,
        "log10_likelihood": np.where(vetoed[:, None], 0.0, joint / np.log(10.0)),
        "direct": direct,
        "underflow": (direct == 0) & ~vetoed[:, None],
        "direct_defined": defined,
        "direct_posterior": direct_posterior,
        "posterior": posterior,
    }


# =====================================================================================
# Lesson 2: Laplace is a Dirichlet posterior mean
# =====================================================================================


def dirichlet_example(
    n_categories: int, n_samples: int, truth: str = "sparse", seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A hidden PMF over K categories (sorted, largest first) and N draws from it.

    ``truth="sparse"`` draws p* ~ Dirichlet(0.3) (a few categories hold most mass),
    ``"flat"`` draws p* ~ Dirichlet(5) (close to uniform).

    Returns
    -------
    p_true : ndarray (K,)
    counts : ndarray (K,) of float
    """
    if n_categories < 2:
        raise ValueError("A PMF needs at least K = 2 categories.")
    if n_samples < 0:
        raise ValueError("The number of observations N cannot be negative.")
    concentration = {"sparse": 0.3, "flat": 5.0}.get(truth)
    if concentration is None:
        raise ValueError("The true PMF is either 'sparse' or 'flat'.")
    rng = np.random.default_rng([seed, n_categories])
    p_true = np.sort(rng.dirichlet(np.full(n_categories, concentration)))[::-1]
    counts = np.random.default_rng([seed, n_categories, n_samples]).multinomial(n_samples, p_true)
    return p_true, counts.astype(float)


def dirichlet_posterior_mean(counts: np.ndarray, prior: np.ndarray, m) -> np.ndarray:
    """Posterior mean (n_v + m t_v) / (N + m) of Dirichlet(m t) after counts n.

    ``m`` may be a scalar or an array of shape (M,); the result is (K,) or (M, K). With
    ``t`` uniform and ``m = alpha K`` it is Lidstone's rule (Laplace at alpha = 1), as
    :func:`heb.synthetic.single_pmf_estimates` and :func:`heb.smoothing.smooth` compute it.
    ``m = 0`` gives the unsmoothed n / N (uniform when N = 0).
    """
    counts = np.asarray(counts, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if np.any(m < 0):
        raise ValueError("The concentration m cannot be negative.")
    total = counts.sum()
    mm = m[..., None]
    if total == 0:
        return np.broadcast_to(
            np.where(mm > 0, prior, 1.0 / counts.size), mm.shape[:-1] + prior.shape
        ).copy()
    return (counts + mm * prior) / (total + mm)


def prior_weight(n_categories: int, n_samples: float, alpha) -> np.ndarray:
    """Share of the prior in the posterior mean: K alpha / (N + K alpha)."""
    alpha = np.asarray(alpha, dtype=np.float64)
    strength = n_categories * alpha
    return strength / (n_samples + strength)


def dirichlet_view(p_true: np.ndarray, counts: np.ndarray, alpha: float) -> dict:
    """The Dirichlet(alpha) posterior mean of one sample and how far it is from p*.

    Returns
    -------
    dict
        ``estimate`` (K,), ``prior_share`` K alpha / (N + K alpha), ``l1`` ||estimate - p*||_1.
    """
    p_true = np.asarray(p_true, dtype=np.float64)
    K = p_true.size
    estimate = dirichlet_posterior_mean(counts, np.full(K, 1.0 / K), alpha * K)
    return {
        "estimate": estimate,
        "prior_share": float(prior_weight(K, float(np.sum(counts)), alpha)),
        "l1": float(np.abs(estimate - p_true).sum()),
    }


def alpha_sweep(
    p_true: np.ndarray,
    n_samples: int,
    alphas: np.ndarray,
    reps: int = 300,
    seed: int = 0,
) -> dict:
    """Bias and expected l1 error of the Dirichlet(alpha) posterior mean over alpha.

    The bias is exact: E[theta_hat] - p* = K alpha / (N + K alpha) (1/K - p*). The
    expected l1 error is a Monte-Carlo mean over ``reps`` fresh samples of size N.

    Returns
    -------
    dict
        ``alpha`` (A,), ``bias_l1`` (A,), ``expected_l1`` (A,), ``unsmoothed_l1`` float.
    """
    p_true = np.asarray(p_true, dtype=np.float64)
    alphas = np.asarray(alphas, dtype=np.float64)
    K = p_true.size
    rng = np.random.default_rng([seed, K, n_samples])
    samples = rng.multinomial(n_samples, p_true, size=reps).astype(float)
    expected = np.array(
        [
            np.abs(single_pmf_estimates(samples, "lidstone", alpha=a) - p_true).sum(axis=1).mean()
            for a in alphas
        ]
    )
    unsmoothed = np.abs(single_pmf_estimates(samples, "unsmoothed") - p_true).sum(axis=1).mean()
    bias = prior_weight(K, n_samples, alphas) * np.abs(1.0 / K - p_true).sum()
    return {
        "alpha": alphas,
        "bias_l1": bias,
        "expected_l1": expected,
        "unsmoothed_l1": float(unsmoothed),
    }


# =====================================================================================
# Lesson 3: the evidence curve of one (class, feature) pair
# =====================================================================================

#: a hand-made count vector: a few frequent categories and a long tail of zeros
EXAMPLE_COUNTS = np.array([14, 9, 5, 3, 2, 1, 1, 0, 0, 0, 0, 0], dtype=float)


def parse_counts(text: str) -> np.ndarray:
    """Read a count vector typed as ``"3, 0, 1, 7"`` (commas, spaces or semicolons)."""
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


def showcase_pair(table: CountTable, n0: float = 10, max_width: int = 60) -> tuple[int, int]:
    """A (class, feature) pair worth opening the lesson on: an interior HEB-M maximiser.

    Among the pairs HEB-M fits by Type-II ML (N_cf >= n0) whose maximiser is not clamped,
    the one with the most categories per row K_f / N_cf (where smoothing matters most),
    preferring features of at most ``max_width`` categories (readable bars); (0, 0) when
    every pair is clamped or falls back.
    """
    diag = NaiveBayes(smoother="heb-m", n0=n0).fit_counts(table).concentrations_
    ok = (diag["clamped"] == "none") & ~diag["fallback"]
    readable = ok & (diag["K_f"] <= max_width)
    pool = readable if readable.any() else ok
    if not pool.any():
        return 0, 0
    ratio = diag["K_f"] / np.maximum(diag["N_c"], 1.0)
    best = np.flatnonzero(pool)[np.argmax(ratio[pool])]
    return int(diag["class"][best]), int(diag["feature"][best])


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
    n0: float = 10,
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


def format_m(m: float) -> str:
    """A concentration as people read it: 0.01, 4.45, 13.3, 1,000, 10,000."""
    return f"{m:,.0f}" if m >= 1000 else f"{m:.3g}"


def pmf_comparison(
    counts: np.ndarray, prior: np.ndarray, m_hat: float, m_whatif: float | None = None
) -> dict[str, np.ndarray]:
    """The smoothed PMFs of one pair: unsmoothed, Laplace, HEB (m_hat), prior mean, what-if.

    Laplace is (n + 1) / (N + K) (uniform prior, m = K); HEB and the what-if use the
    given prior mean t with concentration ``m_hat`` / ``m_whatif``.
    """
    counts, prior = _check_vector(counts, prior)
    out = {
        "unsmoothed": single_pmf_estimates(counts[None, :], "unsmoothed")[0],
        "Laplace": single_pmf_estimates(counts[None, :], "laplace")[0],
        "HEB": dirichlet_posterior_mean(counts, prior, m_hat),
        "prior mean": prior.copy(),
    }
    if m_whatif is not None:
        out[f"what-if m = {format_m(m_whatif)}"] = dirichlet_posterior_mean(counts, prior, m_whatif)
    return out


def heldout_log_loss_curve(
    counts: np.ndarray,
    prior: np.ndarray,
    m_grid: np.ndarray,
    n_folds: int = 5,
    seed: int = 0,
    pooled: np.ndarray | None = None,
    eps: float = 1e-15,
) -> dict:
    """K-fold held-out log-loss of the posterior mean (n + m t) / (N + m) for each m.

    The pair's N rows (one per count) are shuffled into ``n_folds`` folds; each fold's
    rows are scored by the PMF smoothed from the other folds' counts. With ``pooled``
    (N_fv over all classes), the marginal prior is recomputed without the held-out rows
    (no leakage); otherwise the prior ``t`` is held fixed.

    Returns
    -------
    dict
        ``m`` (M,), ``log_loss`` (M,) mean over all held-out rows (probabilities clipped
        at ``eps`` as the metrics do), ``n_folds`` int, ``n_rows`` int.
    """
    counts, prior = _check_vector(counts, prior)
    m_grid = np.asarray(m_grid, dtype=np.float64)
    N = int(counts.sum())
    if N < 2:
        raise ValueError("Held-out log-loss needs at least two rows in this pair.")
    n_folds = int(min(max(n_folds, 2), N))
    K = counts.size
    rows = np.repeat(np.arange(K), counts.astype(np.int64))
    rows = np.random.default_rng(seed).permutation(rows)
    fold = np.arange(N) % n_folds
    test = np.bincount(fold * K + rows, minlength=n_folds * K).reshape(n_folds, K).astype(float)
    train = counts[None, :] - test
    if pooled is None:
        priors = np.broadcast_to(prior, (n_folds, K))
    else:
        pooled_train = np.asarray(pooled, dtype=np.float64)[None, :] - test
        priors = pooled_train / pooled_train.sum(axis=1, keepdims=True)
    fold_i, cat_i = np.nonzero(test)  # held-out cells with at least one row
    weight = test[fold_i, cat_i]
    n_train = train.sum(axis=1)
    mm = m_grid[:, None]
    theta = (train[fold_i, cat_i][None, :] + mm * priors[fold_i, cat_i][None, :]) / (
        n_train[fold_i][None, :] + mm
    )
    loss = -(weight[None, :] * np.log(np.clip(theta, eps, 1.0))).sum(axis=1) / N
    return {"m": m_grid, "log_loss": loss, "n_folds": n_folds, "n_rows": N}


#: the what-if slider's concentrations (the clamp's ends included)
M_WHATIF_CHOICES = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1e3, 3e3, 1e4)


def evidence_lesson(
    counts: np.ndarray,
    prior: np.ndarray | None,
    m_whatif: float,
    pooled: np.ndarray | None = None,
    max_bars: int = 30,
    n0: float = 10,
) -> dict:
    """Everything lesson 3 shows for one count vector, in one call.

    ``prior=None`` is the uniform prior mean 1/K (HEB-U).

    Returns
    -------
    dict
        ``curve`` (:class:`EvidenceCurve`), ``rho`` = m_hat / (N + m_hat), ``pmfs``
        (:func:`pmf_comparison`), ``shown`` indices of the (at most ``max_bars``) most
        frequent categories, in category order; ``heldout`` (:func:`heldout_log_loss_curve`
        on a grid, ``None`` when N < 2) and ``marks`` name -> (m, held-out log-loss) for
        the what-if m, m = K and HEB's m (same folds).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if prior is None:
        prior = np.full(counts.size, 1.0 / max(counts.size, 1))
    counts, prior = _check_vector(counts, prior)
    curve = evidence_curve(counts, prior, n0=n0)
    heldout, marks = None, {}
    if curve.n_samples >= 2:
        heldout = heldout_log_loss_curve(counts, prior, np.logspace(-3, 5, 161), pooled=pooled)
        named = {
            "what-if m": float(m_whatif),
            "m = K (Laplace)": float(counts.size),
            "HEB's m": curve.m_hat,
        }
        at = heldout_log_loss_curve(counts, prior, np.array(list(named.values())), pooled=pooled)
        losses = at["log_loss"].tolist()
        marks = {name: (m, loss) for (name, m), loss in zip(named.items(), losses, strict=True)}
    shown = np.sort(np.argsort(-counts, kind="stable")[:max_bars])
    return {
        "curve": curve,
        "rho": curve.m_hat / (curve.n_samples + curve.m_hat),
        "pmfs": pmf_comparison(counts, prior, curve.m_hat, m_whatif),
        "shown": shown,
        "heldout": heldout,
        "marks": marks,
    }


# =====================================================================================
# Lesson 4: high cardinality (Theorem 1, Corollary 1)
# =====================================================================================

#: the paper's grid (section 5.2)
THEOREM1_K = (10, 50, 100, 500)
THEOREM1_N = (50, 200, 1000, 5000)
_GRID_SMOOTHERS = ("laplace", "kt", "m-estimate", "heb-u")


def theorem1_grid(
    alpha_dir: float = 0.3,
    reps: int = 200,
    K_values: Sequence[int] = THEOREM1_K,
    N_values: Sequence[int] = THEOREM1_N,
    seed: int = 0,
) -> pd.DataFrame:
    """The paper's Figure 2 numbers: mean l1 error per (K, N, smoother), with K/N.

    Returns
    -------
    DataFrame
        Columns K, N, smoother, mean, std, K_over_N, label (display name), sorted by
        K/N. From :func:`heb.synthetic.l1_error_study`.
    """
    rows = l1_error_study(
        K_values, N_values, alpha_dir, reps=reps, seed=seed, smoothers=_GRID_SMOOTHERS
    )
    frame = pd.DataFrame(rows)
    frame["K_over_N"] = frame["K"] / frame["N"]
    frame["label"] = frame["smoother"].map(SMOOTHER_LABELS)
    return frame.sort_values(["K_over_N", "K", "smoother"], ignore_index=True)


def theorem1_reduction(grid: pd.DataFrame) -> pd.DataFrame:
    """HEB-U against Laplace per (K, N) of a :func:`theorem1_grid` frame.

    Returns
    -------
    DataFrame
        Columns K, N, K_over_N, laplace, heb_u, reduction (1 - HEB-U / Laplace), sorted
        by K/N.
    """
    wide = grid.pivot_table(index=["K", "N"], columns="smoother", values="mean").reset_index()
    out = pd.DataFrame(
        {
            "K": wide["K"],
            "N": wide["N"],
            "K_over_N": wide["K"] / wide["N"],
            "laplace": wide["laplace"],
            "heb_u": wide["heb-u"],
        }
    )
    out["reduction"] = 1.0 - out["heb_u"] / out["laplace"]
    return out.sort_values(["K_over_N", "K"], ignore_index=True)


def laplace_vertex_bias(n_categories, n_samples) -> np.ndarray:
    """Laplace's l1 error at the vertex p* = e1: 2 (K - 1) / (N + K) (Theorem 2)."""
    K = np.asarray(n_categories, dtype=np.float64)
    return 2.0 * (K - 1.0) / (n_samples + K)


def vertex_errors(K_values: Sequence[int], n_samples: int, n0: float = 10) -> pd.DataFrame:
    """Corollary 1 computed: every draw lands on category 1 (p* = e1, n = (N, 0, ..., 0)).

    For each K, Laplace's and HEB-U's estimates (the engine's) are compared with e1;
    HEB-U's concentration is the engine's Type-II ML choice (m_min when N >= n0, since
    l(m) decreases everywhere; K by the low-count fallback otherwise).

    Returns
    -------
    DataFrame
        Columns K, N, K_over_N, laplace_l1, heb_l1, heb_m, laplace_formula
        (2 (K - 1) / (N + K)), heb_formula (2 m (1 - 1/K) / (N + m)).
    """
    if n_samples < 1:
        raise ValueError("The vertex case needs at least one observation.")
    out = []
    for K in (int(k) for k in K_values):  # one count vector per K: the lengths differ
        counts = np.zeros((1, K))
        counts[0, 0] = n_samples
        truth = np.eye(1, K)[0]
        uniform = np.full(K, 1.0 / K)
        table = CountTable(np.array([float(n_samples)]), counts, np.array([0, K]))
        m = float(learn_concentrations(table, uniform, n0=n0)[0][0, 0])
        laplace = single_pmf_estimates(counts, "laplace", n0=n0)[0]
        heb = single_pmf_estimates(counts, "heb-u", n0=n0)[0]
        out.append(
            {
                "K": K,
                "N": int(n_samples),
                "K_over_N": K / n_samples,
                "laplace_l1": float(np.abs(laplace - truth).sum()),
                "heb_l1": float(np.abs(heb - truth).sum()),
                "heb_m": m,
                "laplace_formula": float(laplace_vertex_bias(K, n_samples)),
                "heb_formula": 2 * m * (1 - 1 / K) / (n_samples + m),
            }
        )
    return pd.DataFrame(out)


# =====================================================================================
# Lesson 5: double counting and calibration
# =====================================================================================


def duplicate_feature(codes: np.ndarray, feature: int, copies: int) -> np.ndarray:
    """The codes with feature ``feature`` present ``copies`` times in total (appended)."""
    codes = np.asarray(codes)
    if copies < 1:
        raise ValueError("A feature is present at least once (copies >= 1).")
    if not 0 <= feature < codes.shape[1]:
        raise ValueError(f"There is no feature number {feature}.")
    extra = np.repeat(codes[:, [feature]], copies - 1, axis=1)
    return np.concatenate([codes, extra], axis=1)


def feature_scores(model: NaiveBayes, codes: np.ndarray, features: Sequence[int]) -> np.ndarray:
    """The given features' summed (weighted) log-likelihoods per row and class, (n, C)."""
    codes = np.asarray(codes)
    keep = np.zeros(codes.shape[1], dtype=bool)
    keep[list(features)] = True
    masked = np.where(keep[None, :], codes, -1)  # the other features become absent evidence
    return score_codes(
        model.feature_log_prob_, model.count_table_.offsets, masked, model.feature_weights_
    )


def feature_log_odds(model: NaiveBayes, codes: np.ndarray, features: Sequence[int]) -> np.ndarray:
    """Contribution of ``features`` to the log-odds log P(1 | x) - log P(0 | x), per row.

    Binary models only: sum over the given features of w_f (log theta_1 - log theta_0).
    """
    if model.classes_.size != 2:
        raise ValueError("Log-odds need exactly two classes.")
    scores = feature_scores(model, codes, features)
    return scores[:, 1] - scores[:, 0]


class _LogOddsView(ClassifierMixin, BaseEstimator):
    """A fitted model seen through its log-posteriors (Platt and isotonic read these).

    ``decision_function`` returns the log-odds (binary) or the log-posteriors (C > 2):
    Platt scaling is a logistic regression on the log-odds, as Platt intended.
    """

    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y):  # pragma: no cover - frozen, never refitted
        return self

    @property
    def classes_(self):
        return self.model.classes_

    def decision_function(self, X):
        log_proba = self.model.predict_log_proba(X)
        if log_proba.shape[1] == 2:
            return log_proba[:, 1] - log_proba[:, 0]
        return log_proba

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def predict(self, X):
        return self.model.predict(X)

    def __sklearn_is_fitted__(self):
        return True


def temperature_scale(log_proba: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(log p / T): T > 1 softens over-confident posteriors; T = 1 is the identity."""
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"The temperature must be a positive number, got {temperature}.")
    return np.exp(log_softmax(np.asarray(log_proba, dtype=np.float64) / temperature, axis=1))


def fit_temperature(log_proba: np.ndarray, y: np.ndarray) -> float:
    """The T minimising the log-loss of softmax(log p / T) on held-out rows (Guo et al.)."""
    log_proba = np.asarray(log_proba, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    rows = np.arange(y.size)

    def nll(log_t: float) -> float:
        return float(-log_softmax(log_proba / np.exp(log_t), axis=1)[rows, y].mean())

    result = minimize_scalar(
        nll, bounds=(np.log(1e-2), np.log(1e3)), method="bounded", options={"xatol": 1e-8}
    )
    return float(np.exp(result.x))


def calibration_data(name: str = "synthetic", seed: int = 0) -> dict:
    """A dataset for the calibration lesson as integer codes.

    ``"synthetic"`` samples 4,000 rows of 8 features from a known Naive Bayes model with
    Dirichlet(2) conditionals (the independence assumption holds, so only the duplication
    breaks it; about 88% accuracy, so confidences spread over the bins); any other name is
    a built-in dataset of :mod:`heb.data`, encoded with :class:`heb.preprocess.Preprocessor`.

    Returns
    -------
    dict
        ``codes`` (n, F), ``y`` (n,), ``feature_names``, ``class_names``.
    """
    if name == "synthetic":
        from heb.synthetic import sample_naive_bayes

        codes, y, _ = sample_naive_bayes(
            4000, [6, 4, 8, 5, 3, 10, 6, 4], n_classes=2, alpha_dir=2.0, seed=seed
        )
        return {
            "codes": np.asarray(codes),
            "y": np.asarray(y),
            "feature_names": [f"x{i + 1}" for i in range(np.asarray(codes).shape[1])],
            "class_names": ["class 0", "class 1"],
        }
    from heb.data import load_builtin
    from heb.data import Preprocessor, encode_target

    dataset = load_builtin(name)
    pre = Preprocessor(categorical=dataset.categorical)
    codes = pre.fit_transform(dataset.X)
    y, classes = encode_target(dataset.y)
    return {
        "codes": np.asarray(codes),
        "y": np.asarray(y),
        "feature_names": list(pre.feature_names_out_),
        "class_names": [str(c) for c in classes],
    }


def _split(codes: np.ndarray, y: np.ndarray, seed: int):
    """Stratified 50 / 25 / 25 split: train, calibration, test."""
    idx = np.arange(y.size)
    train, rest = train_test_split(idx, test_size=0.5, stratify=y, random_state=seed)
    calib, test = train_test_split(rest, test_size=0.5, stratify=y[rest], random_state=seed)
    return train, calib, test


def _fit(codes, y, classes, n_categories, **params) -> NaiveBayes:
    table = CountTable.from_codes(codes, y, classes.size, n_categories=n_categories)
    return NaiveBayes(**params).fit_counts(table, classes)


def double_counting_sweep(
    codes: np.ndarray,
    y: np.ndarray,
    feature: int,
    max_copies: int = 10,
    smoother: str = "laplace",
    seed: int = 0,
) -> dict:
    """Duplicate one feature 1..max_copies times; watch the log-odds scale and the ECE.

    The model is trained on half the rows and scored on a quarter (the same test rows
    as :func:`calibration_comparison`).

    Returns
    -------
    dict
        ``copies`` (k,), ``ece``, ``log_loss``, ``accuracy``, ``brier`` (k,) on the test
        rows; ``log_odds_scale`` (k,) the mean over test rows of the spread (max - min over
        classes) of the copies' summed log-likelihoods: |log-odds| of the feature for two
        classes, exactly k times that of one copy; ``mean_confidence`` (k,);
        ``reliability`` dict copies -> reliability dict.
    """
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    if max_copies < 1:
        raise ValueError("max_copies must be at least 1.")
    classes = np.arange(int(y.max()) + 1)
    train, _, test = _split(codes, y, seed)
    out = {
        k: [] for k in ("ece", "log_loss", "accuracy", "brier", "log_odds_scale", "mean_confidence")
    }
    curves = {}
    copies = np.arange(1, max_copies + 1)
    for k in copies:  # one model per number of copies
        dup = duplicate_feature(codes, feature, int(k))
        model = _fit(dup[train], y[train], classes, dup.max(axis=0) + 1, smoother=smoother)
        proba = model.predict_proba(dup[test])
        metrics = all_metrics(y[test], proba)
        for key in ("ece", "log_loss", "accuracy", "brier"):
            out[key].append(metrics[key])
        out["mean_confidence"].append(float(proba.max(axis=1).mean()))
        dup_features = [feature, *range(codes.shape[1], dup.shape[1])]
        scores = feature_scores(model, dup[test], dup_features)
        out["log_odds_scale"].append(float(np.ptp(scores, axis=1).mean()))
        curves[int(k)] = reliability(y[test], proba)
    result = {key: np.array(values) for key, values in out.items()}
    result["copies"] = copies
    result["reliability"] = curves
    return result


#: upstream models compared in lesson 5: display name -> NaiveBayes parameters
CALIBRATION_MODELS = {
    "Laplace": {"smoother": "laplace"},
    "HEB-M": {"smoother": "heb-m"},
    "HEB-M+GR": {"smoother": "heb-m", "weighting": "sqrt-mi"},
}
#: post-hoc calibrations compared in lesson 5
POST_HOC = ("none", "Platt", "isotonic", "temperature")


def calibration_comparison(
    codes: np.ndarray, y: np.ndarray, feature: int, copies: int, seed: int = 0
) -> dict:
    """Upstream fixes (HEB-M, sqrt-MI weights) against post-hoc calibration, and both.

    Train on half the rows, fit each post-hoc calibrator on a quarter (Platt and isotonic
    through scikit-learn's ``CalibratedClassifierCV`` on a frozen model; temperature by
    :func:`fit_temperature`), score on the last quarter.

    Returns
    -------
    dict
        ``table`` DataFrame (model, calibration, method, ece, log_loss, brier, accuracy,
        temperature); ``reliability`` dict method -> reliability dict, method names like
        ``"HEB-M + temperature"``.
    """
    codes = duplicate_feature(np.asarray(codes), feature, copies)
    y = np.asarray(y, dtype=np.int64)
    with threadpool_limits(limits=1):  # tiny L-BFGS problems: BLAS threads only add overhead
        return _compare_calibrations(codes, y, seed)


def _compare_calibrations(codes: np.ndarray, y: np.ndarray, seed: int) -> dict:
    classes = np.arange(int(y.max()) + 1)
    train, calib, test = _split(codes, y, seed)
    rows, curves = [], {}
    for model_name, params in CALIBRATION_MODELS.items():
        model = _fit(codes[train], y[train], classes, codes.max(axis=0) + 1, **params)
        view = _LogOddsView(model)
        temperature = fit_temperature(model.predict_log_proba(codes[calib]), y[calib])
        for post in POST_HOC:
            if post == "none":
                proba = model.predict_proba(codes[test])
            elif post == "temperature":
                proba = temperature_scale(model.predict_log_proba(codes[test]), temperature)
            else:
                method = "sigmoid" if post == "Platt" else "isotonic"
                calibrated = CalibratedClassifierCV(FrozenEstimator(view), method=method)
                calibrated.fit(codes[calib], y[calib])
                proba = calibrated.predict_proba(codes[test])
            label = model_name if post == "none" else f"{model_name} + {post}"
            metrics = all_metrics(y[test], proba)
            rows.append(
                {
                    "model": model_name,
                    "calibration": post,
                    "method": label,
                    "ece": metrics["ece"],
                    "log_loss": metrics["log_loss"],
                    "brier": metrics["brier"],
                    "accuracy": metrics["accuracy"],
                    "temperature": temperature if post == "temperature" else np.nan,
                }
            )
            curves[label] = reliability(y[test], proba)
    return {"table": pd.DataFrame(rows), "reliability": curves}


def most_informative_feature(codes: np.ndarray, y: np.ndarray) -> int:
    """The feature with the largest plug-in MI(X_f; Y), from the engine's estimate."""
    y = np.asarray(y, dtype=np.int64)
    table = CountTable.from_codes(np.asarray(codes), y, int(y.max()) + 1)
    return int(np.argmax(mutual_information(table)))


def complementarity(table: pd.DataFrame, metric: str = "ece") -> dict:
    """Do the upstream fixes and post-hoc calibration add up, on these data?

    Parameters
    ----------
    table : DataFrame
        The ``table`` of :func:`calibration_comparison`.
    metric : str
        A column where lower is better (``"ece"``, ``"log_loss"``, ``"brier"``).

    Returns
    -------
    dict
        ``laplace`` the plain Laplace value; ``upstream``, ``post_hoc``, ``combined``:
        (method, value) of the best upstream fix alone (HEB-M or HEB-M+GR, no post-hoc),
        the best post-hoc calibration of Laplace, and the best upstream fix followed by a
        post-hoc calibration; ``complementary``: the combination beats both alone.
    """
    frame = table.set_index("method")
    upstream_rows = frame[(frame["model"] != "Laplace") & (frame["calibration"] == "none")]
    post_rows = frame[(frame["model"] == "Laplace") & (frame["calibration"] != "none")]
    both_rows = frame[(frame["model"] != "Laplace") & (frame["calibration"] != "none")]

    def best(rows: pd.DataFrame) -> tuple[str, float]:
        name = rows[metric].idxmin()
        return str(name), float(rows.loc[name, metric])

    upstream, post_hoc, combined = best(upstream_rows), best(post_rows), best(both_rows)
    return {
        "laplace": float(frame.loc["Laplace", metric]),
        "upstream": upstream,
        "post_hoc": post_hoc,
        "combined": combined,
        "complementary": combined[1] < min(upstream[1], post_hoc[1]),
    }


# =====================================================================================
# Lesson 6: known truth
# =====================================================================================


def _estimated_pmfs(model: NaiveBayes) -> np.ndarray:
    """The estimated (C, V) PMFs of every feature, unseen categories included.

    The engine stores 0 in the log column of a category with no training row (absent
    evidence at predict time); the mass a smoother gives such categories is what the
    seen ones leave, shared equally (m t_v / (N + m) with uniform t; 0 with a marginal t).
    """
    table = model.count_table_
    starts = table.offsets[:-1]
    col_f = table.feature_of_column
    seen = table.category_totals() > 0
    theta = np.where(seen[None, :], np.exp(model.feature_log_prob_), 0.0)
    left = np.clip(1.0 - np.add.reduceat(theta, starts, axis=1), 0.0, 1.0)  # (C, F)
    n_unseen = np.maximum(np.add.reduceat((~seen).astype(float), starts), 1.0)  # (F,)
    return np.where(seen[None, :], theta, (left / n_unseen)[:, col_f])


#: training rows are the first ``n_train`` of this many, so the truth never depends on n_train
KNOWN_TRUTH_POOL = 5000


def known_truth_study(
    n_train: int = 500,
    n_categories: int = 50,
    n_features: int = 6,
    n_classes: int = 2,
    alpha_dir: float = 0.5,
    seed: int = 0,
    n_test: int = 20000,
    preset: str | None = None,
    smoothers: Sequence[str] = SMOOTHERS,
) -> dict:
    """Sample from a known Naive Bayes model, fit every smoother, compare with the truth.

    One call of :func:`heb.synthetic.sample_naive_bayes` (theta_cf ~ Dirichlet(alpha_dir))
    or, with ``preset="high-cardinality"``, of :func:`heb.synthetic.high_cardinality_preset`
    (ID-like features around a shared Zipf marginal; ``n_categories``, ``n_features``,
    ``n_classes`` and ``alpha_dir`` are then ignored) draws ``KNOWN_TRUTH_POOL + n_test``
    rows from one true model: the first ``n_train`` train, the last ``n_test`` are scored
    against the exact posteriors of the truth.

    Returns
    -------
    dict
        ``pmf_errors`` DataFrame (smoother, label, class, feature, l1): the exact l1
        error of every estimated class-conditional PMF; ``summary`` DataFrame, one row per
        smoother (smoother, label, mean_l1, true_ece, sample_ece, posterior_l1,
        log_loss, accuracy); ``true_log_loss`` and ``true_accuracy`` of the true model
        (the floor); ``posteriors`` dict label -> (n_test, C) estimated posteriors,
        ``true_posterior`` (n_test, C), ``y_test``; ``reliability_true`` dict label ->
        reliability dict whose accuracy is the true probability that the prediction is
        right (no label noise); ``n_categories`` (F,).
    """
    from heb.synthetic import high_cardinality_preset, sample_naive_bayes

    if not 2 <= n_train <= KNOWN_TRUTH_POOL:
        raise ValueError(f"Train on 2 to {KNOWN_TRUTH_POOL:,} rows.")
    if n_test < 2:
        raise ValueError("Score at least two test rows.")
    total = KNOWN_TRUTH_POOL + n_test
    if preset == "high-cardinality":
        codes, y, truth = high_cardinality_preset(n_samples=total, seed=seed)
        n_classes = len(truth["class_prior"])
    elif preset is None:
        codes, y, truth = sample_naive_bayes(
            total,
            [int(n_categories)] * int(n_features),
            n_classes=n_classes,
            alpha_dir=alpha_dir,
            seed=seed,
        )
    else:
        raise ValueError(f"Unknown preset {preset!r}; use None or 'high-cardinality'.")
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    theta_true = np.concatenate([np.asarray(t, dtype=np.float64) for t in truth["theta"]], axis=1)
    k_f = np.array([np.asarray(t).shape[1] for t in truth["theta"]])
    offsets = category_offsets(k_f)
    tiny = np.finfo(float).tiny  # a true probability of exactly 0 (Dirichlet underflow)
    log_prior_true = np.log(np.maximum(np.asarray(truth["class_prior"], dtype=float), tiny))
    x_train, y_train = codes[:n_train], y[:n_train]
    x_test, y_test = codes[-n_test:], y[-n_test:]
    true_joint = score_codes(np.log(np.maximum(theta_true, tiny)), offsets, x_test)
    true_post = np.exp(log_softmax(true_joint + log_prior_true, axis=1))
    true_metrics = all_metrics(y_test, true_post)
    table = CountTable.from_codes(x_train, y_train, n_classes, n_categories=k_f)
    classes = np.arange(n_classes)

    errors, summary, posteriors, curves = [], [], {}, {}
    rows = np.arange(y_test.size)
    for smoother in smoothers:  # seven smoothers of the same counts
        label = SMOOTHER_LABELS[smoother]
        model = NaiveBayes(smoother=smoother).fit_counts(table, classes)
        diff = np.abs(_estimated_pmfs(model) - theta_true)
        l1 = np.add.reduceat(diff, offsets[:-1], axis=1)  # (C, F)
        cls, feat = np.indices(l1.shape)
        errors.append(
            pd.DataFrame(
                {
                    "smoother": smoother,
                    "label": label,
                    "class": cls.ravel(),
                    "feature": feat.ravel(),
                    "l1": l1.ravel(),
                }
            )
        )
        proba = model.predict_proba(x_test)
        pred = proba.argmax(axis=1)
        true_curve = reliability_curve(true_post[rows, pred], proba[rows, pred], 10, "uniform")
        metrics = all_metrics(y_test, proba)
        posteriors[label] = proba
        curves[label] = true_curve
        summary.append(
            {
                "smoother": smoother,
                "label": label,
                "mean_l1": float(l1.mean()),
                "true_ece": float(true_curve["ece"]),
                "sample_ece": metrics["ece"],
                "posterior_l1": float(np.abs(proba - true_post).sum(axis=1).mean()),
                "log_loss": metrics["log_loss"],
                "accuracy": metrics["accuracy"],
            }
        )
    return {
        "pmf_errors": pd.concat(errors, ignore_index=True),
        "summary": pd.DataFrame(summary),
        "true_log_loss": true_metrics["log_loss"],
        "true_accuracy": true_metrics["accuracy"],
        "posteriors": posteriors,
        "true_posterior": true_post,
        "y_test": y_test,
        "reliability_true": curves,
        "n_categories": k_f,
    }
