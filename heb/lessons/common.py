"""What several lessons share: engine constants, smoother names, the Dirichlet posterior mean.

Lesson pages quote these instead of writing numbers down: the clamp of the learned
concentration and the low-count threshold N0 come from the engine.
"""

from __future__ import annotations

import numpy as np

from heb import registry
from heb.concentration import M_MAX, M_MIN
from heb.nb import NaiveBayes

__all__ = [
    "M_MIN",
    "M_MAX",
    "N0",
    "SPARSITY_HELP",
    "UNSMOOTHED",
    "smoother_label",
    "format_m",
    "format_number",
    "format_decimals",
    "dirichlet_posterior_mean",
]

#: the engine's low-count threshold: a pair with fewer rows uses m = K_f (Algorithm 1)
N0: float = NaiveBayes().n0
#: the help of a lesson's α_dir slider: its values rise as the truth grows less sparse
SPARSITY_HELP = (
    "The Dirichlet(α_dir) the true PMFs are drawn from. Small α_dir (left): sparse, a few "
    "categories hold most of the mass, as ZIP codes or IDs do. Large α_dir (right): "
    "nearer uniform; at 1 every PMF is equally likely."
)
#: the name of the estimate n / N without smoothing (not a registered smoother)
UNSMOOTHED = "unsmoothed"


def smoother_label(name: str) -> str:
    """The registry's display name of a smoother (``"heb-u"`` -> ``"HEB-U"``).

    ``"unsmoothed"`` (n / N, no smoother) keeps its own name.
    """
    return UNSMOOTHED if name == UNSMOOTHED else registry.smoother(name).label


def format_m(m: float) -> str:
    """A concentration as people read it: 0.01, 4.45, 13.3, 1,000, 10,000."""
    return f"{m:,.0f}" if m >= 1000 else f"{m:.3g}"


def format_number(value: float) -> str:
    """An engine constant in prose: 10, 0.01, 10,000 (as :func:`format_m`)."""
    return format_m(float(value))


def format_decimals(value: float, decimals: int, trim: bool = False) -> str:
    """``value`` to ``decimals`` decimals, or two significant figures below
    10**-(decimals - 1), so that a positive value never reads 0.000 (``trim``: a trailing
    zero of those figures cut, 0.0004 not 0.00040)."""
    value = float(value)
    if value == 0 or abs(value) >= 10.0 ** -(decimals - 1):
        return f"{value:.{decimals}f}"
    return np.format_float_positional(
        value, precision=2, unique=False, fractional=False, trim="-" if trim else "k"
    )


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
