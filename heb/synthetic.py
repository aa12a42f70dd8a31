"""Synthetic studies with a known truth.

``l1_error_study`` is the paper's check of Theorem 1 (section 5.2, SPEC section 7): the
l1 error of each smoother's estimate of a single Dirichlet-drawn PMF.
``sample_naive_bayes`` draws a dataset from a known Naive Bayes model and
``high_cardinality_preset`` one with ID / ZIP-code-like features of thousands of
Zipf-distributed categories, where learned smoothing matters most.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from heb.concentration import M_MAX, M_MIN, fit_concentration_rows
from heb.estimator import is_number

__all__ = [
    "l1_error_study",
    "single_pmf_estimates",
    "PMF_SMOOTHERS",
    "sample_naive_bayes",
    "high_cardinality_preset",
    "zipf_pmf",
    "HIGH_CARDINALITY_FEATURES",
    "whole_numbers",
]

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


def whole_numbers(values: Iterable, name: str, minimum: int) -> list[int]:
    """``values`` as Python ints, or a one-sentence ValueError naming the first bad one."""
    scalar = isinstance(values, str) or (np.ndim(values) == 0 and not isinstance(values, Iterable))
    values = [values] if scalar else values
    must = "be a whole number" if scalar else "hold whole numbers"
    out = []
    for value in values:  # a handful of grid values, not rows
        if not (
            is_number(value)
            and np.isfinite(value)
            and float(value).is_integer()
            and value >= minimum
        ):
            shown = value.item() if isinstance(value, np.generic) else value  # 2.7, not np.float64
            raise ValueError(f"{name} must {must} >= {minimum}, got {shown!r}.")
        out.append(int(value))
    return out


def _check_alpha_dir(alpha_dir) -> None:
    """A finite positive Dirichlet parameter, or a one-sentence ValueError."""
    if not (is_number(alpha_dir) and np.isfinite(alpha_dir) and alpha_dir > 0):
        raise ValueError(f"alpha_dir must be a positive number, got {alpha_dir!r}.")


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

    Parameters
    ----------
    K_values, N_values : iterable of int
        The grid: whole numbers, K >= 1 and N >= 0 (N = 0 gives each smoother's prior).
    alpha_dir : float
        The truths' Dirichlet parameter (> 0).
    reps : int
        Repetitions per (K, N), at least 1.
    seed : int
        Seed of each (K, N) cell's generator, so a cell does not depend on the grid.
    smoothers : sequence of str
        Names of :data:`PMF_SMOOTHERS` (case and ``-`` / ``_`` do not matter; one name
        alone is one smoother).

    Returns
    -------
    list of dict
        One per (K, N, smoother) with keys ``K``, ``N``, ``smoother``, ``mean``, ``std``
        (of ||theta_hat - p*||_1 over repetitions).
    """
    _check_alpha_dir(alpha_dir)
    (reps,) = whole_numbers(reps, "reps", 1)
    K_values = whole_numbers(K_values, "K_values", 1)
    N_values = whole_numbers(N_values, "N_values", 0)
    if isinstance(smoothers, str):  # one name, not its letters
        smoothers = (smoothers,)
    smoothers = [str(name).strip().lower().replace("_", "-") for name in smoothers]
    unknown = [name for name in smoothers if name not in PMF_SMOOTHERS]
    if unknown:
        raise ValueError(
            f"{unknown[0]!r} does not estimate a single PMF; choose from "
            f"{', '.join(PMF_SMOOTHERS)}."
        )
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


# ---------------------------------------------------------------------------- generators
def _class_prior(n_classes: int, class_weights: Sequence[float] | None) -> np.ndarray:
    if n_classes < 1:
        raise ValueError("n_classes must be at least 1.")
    if class_weights is None:
        return np.full(n_classes, 1.0 / n_classes)
    weights = np.asarray(class_weights, dtype=np.float64)
    if weights.shape != (n_classes,):
        raise ValueError(f"class_weights needs one weight per class ({n_classes}).")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError("class_weights must be non-negative numbers with a positive sum.")
    return weights / weights.sum()


def _sample_codes(theta: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One code per row from the row's class-conditional PMF ``theta[y]`` (inverse CDF).

    The C cumulative PMFs are stacked as ``c + cdf_c`` so one ``searchsorted`` over the
    flattened (C K,) array serves every row at once.
    """
    n_classes, n_cat = theta.shape
    cdf = np.cumsum(theta, axis=1)
    cdf[:, -1] = 1.0
    stacked = (cdf + np.arange(n_classes)[:, None]).ravel()
    position = np.searchsorted(stacked, rng.random(y.size) + y, side="right")
    return np.clip(position - y * n_cat, 0, n_cat - 1)


def sample_naive_bayes(
    n_samples: int,
    n_categories: Sequence[int],
    n_classes: int = 2,
    alpha_dir: float = 1.0,
    class_weights: Sequence[float] | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Draw a dataset from a Naive Bayes model with known parameters.

    theta_{c,f} ~ Dirichlet(alpha_dir 1_{K_f}) for every class c and feature f; y ~ the
    class prior; each feature independently given the class.

    Parameters
    ----------
    n_samples : int
        Rows to draw.
    n_categories : sequence of int
        K_f for each feature (at least 1 each).
    n_classes : int, default 2
        C.
    alpha_dir : float, default 1.0
        Dirichlet concentration per category (small = sparse, peaked PMFs).
    class_weights : sequence of float, optional
        Relative class frequencies (class imbalance); default equal.
    seed : int
        Seed of the generator.

    Returns
    -------
    codes : ndarray (n, F) of int64
        Category codes ``0..K_f - 1``.
    y : ndarray (n,) of int64
        Class indices ``0..C - 1``.
    truth : dict
        ``class_prior`` (C,), ``theta`` (list of (C, K_f) arrays), ``n_categories`` (F,).
    """
    (n_samples,) = whole_numbers(n_samples, "n_samples", 1)
    (n_classes,) = whole_numbers(n_classes, "n_classes", 1)
    n_cat = np.asarray(whole_numbers(np.ravel(n_categories), "n_categories", 1), dtype=np.int64)
    if n_cat.size == 0:
        raise ValueError("n_categories needs at least one feature, each with K_f >= 1.")
    _check_alpha_dir(alpha_dir)
    prior = _class_prior(n_classes, class_weights)
    rng = np.random.default_rng(seed)
    y = rng.choice(prior.size, size=int(n_samples), p=prior).astype(np.int64)
    theta = [rng.dirichlet(np.full(int(k), float(alpha_dir)), size=prior.size) for k in n_cat]
    codes = np.empty((y.size, n_cat.size), dtype=np.int64)
    for f, theta_f in enumerate(theta):
        codes[:, f] = _sample_codes(theta_f, y, rng)
    return codes, y, {"class_prior": prior, "theta": theta, "n_categories": n_cat}


def zipf_pmf(n_categories: int, exponent: float = 1.1) -> np.ndarray:
    """The Zipf PMF p_v proportional to 1 / v^exponent over ranks v = 1..K."""
    ranks = np.arange(1, int(n_categories) + 1, dtype=np.float64)
    weights = ranks**-exponent
    return weights / weights.sum()


#: the features of :func:`high_cardinality_preset`: (name, K_f, kind)
#: true concentrations m_f of the preset's ID-like features, from class-specific (300)
#: to nearly shared (50,000, beyond the clamp): the learned m should track them
PRESET_CONCENTRATIONS = (1000.0, 10000.0, 300.0, 3000.0, 50000.0)

HIGH_CARDINALITY_FEATURES = (
    ("zip_code", 4000, "zipf"),
    ("user_id", 5000, "zipf"),
    ("store_id", 1000, "zipf"),
    ("product_id", 3000, "zipf"),
    ("ip_hash", 2000, "zipf"),
    ("weekday", 7, "uniform"),
    ("channel", 4, "uniform"),
    ("device", 3, "uniform"),
)


def high_cardinality_preset(
    n_samples: int = 5000,
    seed: int = 0,
    class_weights: Sequence[float] = (0.85, 0.15),
    zipf_exponent: float = 1.0,
    concentration: float | Sequence[float] = PRESET_CONCENTRATIONS,
    low_alpha: float = 5.0,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """A two-class dataset with ID / ZIP-code-like features, where smoothing matters most.

    Five high-cardinality features (:data:`HIGH_CARDINALITY_FEATURES`: ZIP code, user,
    store, product, IP hash; K_f from 1,000 to 5,000) and three low-cardinality ones, an
    85 / 15 class imbalance. Each high-cardinality feature has a Zipf-distributed
    marginal ``base`` over its categories (randomly permuted ranks); each class's PMF is
    theta_c ~ Dirichlet(m_f base) with a true concentration m_f per feature (the
    ``concentration`` sequence, one per high-cardinality feature; a single number c means
    m_f = c K_f), so classes differ around a shared heavy-tailed marginal: exactly the
    hierarchical model behind HEB-M, with a known m to compare the learned one against.
    Compare it on the minority class: HEB-M's prior mean is the pooled empirical marginal,
    85 % of which is the majority class's own rows, so that class's PMF sits close to its
    prior mean and its learned m runs up to the clamp (``m_max``), whatever the true m_f.
    Most categories are rare, many are never seen in a training fold, and Laplace's K_f
    pseudo-counts swamp N_c.
    Three low-cardinality features (weekday, channel, device) have
    theta_c ~ Dirichlet(low_alpha 1_K).

    Returns
    -------
    codes : ndarray (n, 8) of int64
    y : ndarray (n,) of int64
    truth : dict
        ``class_prior``, ``theta`` (list of (2, K_f)), ``n_categories``, ``base`` (list:
        the Zipf marginal of each high-cardinality feature, ``None`` for the others),
        ``concentration`` (list: the true m_f, ``None`` for the others), ``feature_names``.
    """
    (n_samples,) = whole_numbers(n_samples, "n_samples", 1)
    zipf_features = [k for _, k, kind in HIGH_CARDINALITY_FEATURES if kind == "zipf"]
    if np.ndim(concentration) == 0:
        true_m = [float(concentration) * k for k in zipf_features]
    else:
        true_m = [float(c) for c in concentration]
        if len(true_m) != len(zipf_features):
            raise ValueError(
                f"concentration needs one value per high-cardinality feature "
                f"({len(zipf_features)}), got {len(true_m)}."
            )
    if not (zipf_exponent > 0 and min(true_m) > 0 and low_alpha > 0):
        raise ValueError("zipf_exponent, concentration and low_alpha must be positive.")
    prior = _class_prior(len(class_weights), class_weights)
    rng = np.random.default_rng(seed)
    y = rng.choice(prior.size, size=int(n_samples), p=prior).astype(np.int64)
    codes = np.empty((y.size, len(HIGH_CARDINALITY_FEATURES)), dtype=np.int64)
    theta, bases, masses = [], [], []
    zipf_m = iter(true_m)
    for f, (_, n_cat, kind) in enumerate(HIGH_CARDINALITY_FEATURES):
        mass = next(zipf_m) if kind == "zipf" else None
        masses.append(mass)
        if kind == "zipf":
            base = zipf_pmf(n_cat, zipf_exponent)[rng.permutation(n_cat)]
            theta_f = rng.dirichlet(mass * base, size=prior.size)
            # Dirichlet draws with tiny parameters can underflow to exact zeros
            theta_f = np.maximum(theta_f, 1e-300)
            theta_f /= theta_f.sum(axis=1, keepdims=True)
        else:
            base = None
            theta_f = rng.dirichlet(np.full(n_cat, low_alpha), size=prior.size)
        codes[:, f] = _sample_codes(theta_f, y, rng)
        theta.append(theta_f)
        bases.append(base)
    truth = {
        "class_prior": prior,
        "theta": theta,
        "n_categories": np.array([k for _, k, _ in HIGH_CARDINALITY_FEATURES]),
        "base": bases,
        "concentration": masses,
        "feature_names": [name for name, _, _ in HIGH_CARDINALITY_FEATURES],
    }
    return codes, y, truth
