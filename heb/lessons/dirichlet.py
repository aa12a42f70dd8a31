"""Lesson 2: Laplace is a Dirichlet posterior mean (bias, variance and the best alpha).

Entry points: :func:`dirichlet_example`, :func:`dirichlet_view`, :func:`alpha_sweep`,
:func:`best_alpha`, all at once :func:`dirichlet_lesson`; the posterior mean itself
is :func:`heb.lessons.common.dirichlet_posterior_mean`.
"""

from __future__ import annotations

import numpy as np

from heb.lessons.common import dirichlet_posterior_mean, format_decimals
from heb.synthetic import single_pmf_estimates

__all__ = [
    "NAMED_ALPHAS",
    "TRUTH_CONCENTRATION",
    "dirichlet_example",
    "prior_weight",
    "dirichlet_view",
    "alpha_sweep",
    "best_alpha",
    "best_alpha_text",
    "BEST_ALPHA_LABEL",
    "max_bias_l1",
    "bias_text",
    "format_l1",
    "format_share",
    "ALPHA_CHOICES",
    "NOTATION",
    "SWEEP_ALPHAS",
    "SWEEP_REPS",
    "dirichlet_lesson",
]

#: pseudo-counts with a name, by smoother (Lidstone's default, Krichevsky-Trofimov, Laplace)
NAMED_ALPHAS = {"Lidstone": 0.1, "KT": 0.5, "Laplace": 1.0}
#: the Dirichlet concentration each kind of hidden PMF is drawn with
TRUTH_CONCENTRATION = {"sparse": 0.3, "flat": 5.0}
#: the pseudo-counts the lesson's slider offers
ALPHA_CHOICES = (0.001, 0.01, 0.03, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: the sweep's grid holds every slider value, so the slider's point lies on the curve
SWEEP_ALPHAS = np.unique(np.concatenate([np.logspace(-3, 1, 41), ALPHA_CHOICES]))
#: fresh samples per alpha in the sweep's Monte-Carlo mean
SWEEP_REPS = 300
#: step 1's link to the later lessons' symbols (the evidence curve's Dirichlet(m t), its
#: "Shrinkage ρ = m / (N + m)" metric, the Concentrations page's m): an instructor found
#: the lesson never said that Kα is m nor that its prior's share is ρ
NOTATION = (
    "Later lessons write this prior Dirichlet(m t): **concentration m = Kα**, prior mean "
    "t = 1/K; the prior's share Kα / (N + Kα) is their **shrinkage ρ = m / (N + m)**."
)


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
    concentration = TRUTH_CONCENTRATION.get(truth)
    if concentration is None:
        raise ValueError("The true PMF is either 'sparse' or 'flat'.")
    rng = np.random.default_rng([seed, n_categories])
    p_true = np.sort(rng.dirichlet(np.full(n_categories, concentration)))[::-1]
    counts = np.random.default_rng([seed, n_categories, n_samples]).multinomial(n_samples, p_true)
    return p_true, counts.astype(float)


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


def best_alpha(sweep: dict, rtol: float = 1e-9) -> float | None:
    """The alpha of smallest expected l1 error in a sweep, or ``None`` when none is best.

    With N = 0 every alpha gives the same estimate (the uniform 1/K), so the expected
    error is flat and naming a "best" alpha would be a claim about rounding noise.
    """
    expected = np.asarray(sweep["expected_l1"], dtype=np.float64)
    if np.ptp(expected) <= rtol * max(float(np.abs(expected).max()), 1e-300):
        return None
    return float(np.asarray(sweep["alpha"])[int(np.argmin(expected))])


#: the metric's label: "Best α (expected l1)" beside two l1 errors read as an error (an
#: analyst's trial); 24 characters fit a third of the presenter's 1024 px figure column
BEST_ALPHA_LABEL = "α minimising expected l1"


def best_alpha_text(sweep: dict, best: float | None) -> tuple[str, str | None, str]:
    """The "Best α" metric's value, its note (``None`` unless at the grid's end) and help.

    A minimum at the end of the swept range is no minimum: the curve may fall further past
    it. "Best α 10" was shown while the expected error still fell at α = 10 (K = 2, N = 5,
    a flat truth); it reads "≥ 10", noted as the edge of the range (and "≤ 0.001" at the
    low end).
    """
    if best is None:
        return "none", None, "With N = 0 every α gives 1/K."
    alphas = np.asarray(sweep["alpha"], dtype=np.float64)
    low, high = float(alphas.min()), float(alphas.max())
    if np.isclose(best, high):
        return (
            f"≥ {high:g}",
            "edge of the range",
            f"The expected l1 error still falls at α = {high:g}, the largest α swept: the "
            f"best α for this K and N is {high:g} or more.",
        )
    if np.isclose(best, low):
        return (
            f"≤ {low:g}",
            "edge of the range",
            f"The expected l1 error still falls at α = {low:g}, the smallest α swept: the "
            f"best α for this K and N is {low:g} or less.",
        )
    return (
        f"{best:.3g}",
        None,
        "The α whose expected l1 error is smallest for this K and N (not an error itself).",
    )


def max_bias_l1(n_categories: int, n_samples: float, alpha: float) -> float:
    """The largest l1 bias of the Dirichlet(alpha) posterior mean over all p*:
    K alpha / (N + K alpha) * 2 (K - 1) / K = 2 alpha (K - 1) / (N + K alpha), reached
    when p* puts all its mass on one category (Laplace, alpha = 1: 2 (K - 1) / (N + K))."""
    K = float(n_categories)
    return float(prior_weight(n_categories, n_samples, alpha) * 2.0 * (K - 1.0) / K)


def format_l1(value: float) -> str:
    """An l1 distance in prose: three decimals (0.609), or two significant figures below
    0.01 (0.0004, 0.000021), so a positive value never reads 0.000."""
    return format_decimals(value, 3, trim=True)


def format_share(share: float) -> str:
    """A prior's share as a percentage: 4%, 50%; below 1% and above 99% to the figures
    that keep it off 0% and 100% (0.02%, 99.75%) unless it is exactly 0 or 1."""
    share = float(share)
    if share in (0.0, 1.0) or 0.01 <= share <= 0.99:
        return f"{share:.0%}"
    if share < 0.01:
        return (
            np.format_float_positional(
                100 * share, precision=1, unique=False, fractional=False, trim="-"
            )
            + "%"
        )
    decimals = 1  # 99.8%, 99.99%: as many decimals as keep it below 100%
    while f"{100 * share:.{decimals}f}".startswith("100"):
        decimals += 1
    return f"{100 * share:.{decimals}f}%"


def bias_text(n_categories: int, n_samples: int, alpha: float, bias_l1: float) -> str:
    """Step 2's sentence on the prior's weight and the bias at the chosen alpha, its numbers
    computed for this K, N and alpha (``bias_l1``: this p*'s l1 bias at ``alpha``, from
    :func:`alpha_sweep`); Laplace's weight only as a comparison, named as such.

    A fixed sentence said "the bias reaches 2(K-1)/(N+K)" (0.98 at K = N = 50) beside a
    figure and caption reading 0.609: the ceiling is reached only by a p* on one category.
    Then "Laplace adds K = 2 phantom counts to N = 5 observations: 29% of its estimate is
    prior" stood beside the metric's 4% at α = 0.1, and the bias of α = 0.1 followed in
    the same sentence: the share is now the chosen α's, the metric's.
    """
    K, N = int(n_categories), int(n_samples)
    share = format_share(prior_weight(K, N, alpha))
    if np.isclose(alpha, 1.0):
        prior = f"At α = 1 (Laplace) the prior adds K = {K:,} phantom counts"
        laplace = ""
    else:
        prior = f"At α = {alpha:g} the prior adds Kα = {K * alpha:,.4g} phantom counts"
        laplace = (
            f" (for comparison, Laplace's α = 1 would add K = {K:,}: "
            f"{format_share(prior_weight(K, N, 1.0))})"
        )
    ceiling = max_bias_l1(K, N, alpha)
    return (
        f"{prior} to N = {N:,} observations: {share} of the estimate is prior{laplace}. "
        f"The l1 bias is largest, 2α(K−1)/(N+Kα) = {format_l1(ceiling)} at α = {alpha:g}, "
        f"when p* puts all its mass on one category; for this p* it is {format_l1(bias_l1)}."
    )


def dirichlet_lesson(K: int, N: int, truth: str, alpha: float, seed: int = 0) -> dict:
    """Everything lesson 2 shows for one slider state, in one call.

    Returns
    -------
    dict
        ``p_true``, ``counts`` (:func:`dirichlet_example`), ``view``
        (:func:`dirichlet_view` at ``alpha``), ``sweep`` (:func:`alpha_sweep` over
        :data:`SWEEP_ALPHAS`), ``at`` the sweep's index of ``alpha``, ``best`` the
        :func:`best_alpha` (``None`` when every alpha gives the same estimate).
    """
    p_true, counts = dirichlet_example(K, N, truth, seed=seed)
    sweep = alpha_sweep(p_true, N, SWEEP_ALPHAS, reps=SWEEP_REPS, seed=seed)
    matches = np.flatnonzero(np.isclose(SWEEP_ALPHAS, alpha))
    if not matches.size:
        raise ValueError(f"Pick alpha among {', '.join(f'{a:g}' for a in ALPHA_CHOICES)}.")
    return {
        "p_true": p_true,
        "counts": counts,
        "view": dirichlet_view(p_true, counts, alpha),
        "sweep": sweep,
        "at": int(matches[0]),
        "best": best_alpha(sweep),
    }
