"""A known truth for HEB-H: class-conditional PMFs over ZIP-like codes drawn level by level.

Codes hang in a three-level tree, region -> prefix -> code (:func:`zip_levels`). A shared
base PMF splits each node among its children by Dirichlet(base_alpha 1) draws; each
class's PMF then splits every node among its children by Dirichlet(a_l x the base split),
with a known concentration a_l per level (a Dirichlet tree):

- ``"hierarchy"`` scenario: classes differ at the regions and prefixes (small a) and
  share the split of a prefix among its codes (large a): a sparse code's class
  probability is predictable from its prefix's;
- ``"flat"`` scenario: no signal in the hierarchy, theta_c ~ Dirichlet(a base) over the
  codes directly (the model behind HEB-M).

:func:`hierarchy_l1_study` is the ``l1_error_study`` of this truth: the mean l1 error of
Laplace, HEB-M and HEB-H (both forms) over classes and repetitions, against K / N.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from heb.counts import CountTable, category_offsets
from heb.hierarchy import fit_nested
from heb.smoothing import smooth
from heb.synthetic import whole_numbers

__all__ = [
    "BUDGET_ESTIMATES",
    "BUDGET_VARIANTS",
    "SCENARIOS",
    "STUDY_SMOOTHERS",
    "oracle_tree_estimate",
    "zip_levels",
    "tree_pmfs",
    "hierarchy_l1_study",
]

#: per-level class concentrations (code, prefix, region) of each scenario; "flat" is one a
SCENARIOS = {
    "hierarchy": {"concentrations": (1000.0, 10.0, 5.0)},
    "flat": {"concentration": 20.0},
}
STUDY_SMOOTHERS = ("laplace", "heb-m", "heb-h", "heb-h-prior-mean")
#: an error budget of HEB-H under the "hierarchy" truth: HEB-H's variants
#: (:data:`BUDGET_VARIANTS`), at the true concentrations (learned base, no selection),
#: the true base splits among the codes seen in training (unseen codes 0, as HEB-M) and
#: the oracle (the true base splits of every code); the last two with the true
#: concentrations
BUDGET_ESTIMATES = (
    "heb-m", "heb-h-pooled-base", "heb-h", "heb-h-best", "heb-h-no-select", "heb-h-true-m",
    "oracle-seen", "oracle",
)  # fmt: skip
#: the budget's HEB-H variants: the empirical base with the best-model selection (HEB-H
#: before the learned base), the learned base with that selection, and with none
BUDGET_VARIANTS = {
    "heb-h-pooled-base": {"base": "pooled", "select": "best"},
    "heb-h-best": {"select": "best"},
    "heb-h-no-select": {"select": None},
}


def zip_levels(n_regions: int, prefixes: int, codes: int) -> list[np.ndarray]:
    """Levels of a balanced tree: ``codes`` per prefix, ``prefixes`` per region.

    Returns ``[code -> prefix, prefix -> region]`` for K = n_regions prefixes codes codes.
    """
    if min(n_regions, prefixes, codes) < 1:
        raise ValueError("Every level needs at least one node per parent.")
    n_prefix = n_regions * prefixes
    return [np.arange(n_prefix * codes) // codes, np.arange(n_prefix) // prefixes]


def _split(parent: np.ndarray, shape: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Dirichlet(shape) split of every parent among its children, for rows at once.

    ``shape`` (R, n) are the Dirichlet parameters of the n children, ``parent`` (n,) the
    parent of each child; normalised Gamma draws (floored: tiny shapes underflow).
    """
    draws = np.maximum(rng.gamma(shape), 1e-300)
    rows = shape.shape[0]
    n_parents = int(parent.max()) + 1
    index = (np.arange(rows)[:, None] * n_parents + parent[None, :]).ravel()
    sums = np.bincount(index, draws.ravel(), rows * n_parents).reshape(rows, n_parents)
    return draws / sums[:, parent]


def _tree_product(levels, splits) -> np.ndarray:
    """Leaf PMFs from each level's within-parent splits (splits[0]: codes, top last)."""
    pmf = splits[-1]
    for j in range(len(levels) - 1, -1, -1):
        pmf = pmf[:, levels[j]] * splits[j]
    return pmf


def tree_pmfs(
    levels: Sequence[np.ndarray],
    n_draws: int,
    concentrations: Sequence[float] | None = None,
    concentration: float | None = None,
    base_alpha: float = 1.0,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """A shared base PMF over the leaves and ``n_draws`` PMFs around it.

    Parameters
    ----------
    levels : list of int arrays
        As :func:`zip_levels` returns (leaf -> level 1 -> ... ).
    n_draws : int
        PMFs to draw (classes x repetitions).
    concentrations : sequence of float, optional
        One per split, leaves first (the top level's split of the root last): a Dirichlet
        tree around the base.
    concentration : float, optional
        Instead: theta ~ Dirichlet(concentration base) over the leaves (flat).
    base_alpha : float
        Symmetric Dirichlet parameter of the base's splits.

    Returns
    -------
    base : ndarray (K,)
    theta : ndarray (n_draws, K)
    """
    rng = np.random.default_rng() if rng is None else rng
    parents = [np.asarray(lv) for lv in levels] + [np.zeros(int(levels[-1].max()) + 1, int)]
    base_splits = [_split(p, np.full((1, p.size), base_alpha), rng) for p in parents]
    base = _tree_product(levels, base_splits)[0]
    if (concentrations is None) == (concentration is None):
        raise ValueError("Give either concentrations (one per level) or one concentration.")
    if concentration is not None:
        theta = rng.dirichlet(np.maximum(concentration * base, 1e-300), size=n_draws)
        theta = np.maximum(theta, 1e-300)
        return base, theta / theta.sum(axis=1, keepdims=True)
    if len(concentrations) != len(parents):
        raise ValueError(f"concentrations needs one value per level ({len(parents)}).")
    splits = [
        _split(p, np.broadcast_to(a * s, (n_draws, p.size)), rng)
        for p, a, s in zip(parents, concentrations, base_splits, strict=True)
    ]
    return base, _tree_product(levels, splits)


def oracle_tree_estimate(
    counts: np.ndarray, base: np.ndarray, levels: Sequence[np.ndarray], concentrations
) -> np.ndarray:
    """The tree-form estimate with the true base splits and the true concentrations.

    est(c, leaf) = product over the levels of (N_c,node + a_l w(node)) / (N_c,parent + a_l),
    w(node) = base(node) / base(parent) from the true base PMF: what HEB-H would reach if
    it knew the pooled splits and every level's concentration (an error bound, not an
    estimator).

    Parameters
    ----------
    counts : ndarray (..., K)
        Leaf counts of each PMF to estimate.
    base : ndarray (..., K)
        The true base PMF over the leaves, broadcastable against ``counts`` (leaves
        given 0 get 0, their siblings share their parent's base).
    levels : list of int arrays
        As :func:`zip_levels` returns.
    concentrations : sequence of float
        One per split, leaves first (``len(levels) + 1``).
    """
    if len(concentrations) != len(levels) + 1:
        raise ValueError(f"concentrations needs one value per level ({len(levels) + 1}).")
    up = [np.arange(levels[0].size)]  # up[j][leaf]: the leaf's node at level j
    for level in levels:
        up.append(level[up[-1]])
    up.append(np.zeros_like(up[0]))  # the root

    def node_sums(values: np.ndarray, j: int) -> np.ndarray:
        """Sums over each leaf's level-j node, read back per leaf (..., K)."""
        onehot = np.zeros((up[0].size, int(up[j].max()) + 1))
        onehot[up[0], up[j]] = 1.0
        return (values @ onehot)[..., up[j]]

    n = [node_sums(counts.astype(np.float64), j) for j in range(len(up))]
    b = [node_sums(np.asarray(base, dtype=np.float64), j) for j in range(len(up))]
    est = np.ones(np.broadcast_shapes(counts.shape, np.shape(base)))
    for j, a in enumerate(concentrations):
        share = np.divide(b[j], b[j + 1], out=np.zeros_like(b[j]), where=b[j + 1] > 0)
        est = est * (n[j] + a * share) / (n[j + 1] + a)
    return est


def _estimates(table: CountTable, hierarchies: dict, smoother: str, truth=None) -> np.ndarray:
    """Each smoother's PMF estimates (C, V), unseen categories included (not log 0).

    ``truth`` (the budget's true-m and oracle rows): ``(base (reps, K), concentrations,
    counts (C, reps, K), levels)``.
    """
    counts, n_cf = table.counts, table.class_feature_totals()
    col_f = table.feature_of_column
    if smoother == "laplace":
        return (counts + 1.0) / (n_cf[:, col_f] + table.n_categories[col_f])
    if smoother == "heb-m":
        smoothed = smooth(table, "heb-m")
        return np.where(smoothed.seen, np.exp(smoothed.log_theta), 0.0)
    if smoother in BUDGET_VARIANTS:
        return fit_nested(table, hierarchies, **BUDGET_VARIANTS[smoother]).theta
    if smoother in ("heb-h-true-m", "oracle", "oracle-seen"):
        base, concentrations, counts, levels = truth
        if smoother == "oracle-seen":  # unseen codes get 0, as under HEB-M and HEB-H
            base = base * (counts.sum(axis=0) > 0)
        if smoother.startswith("oracle"):
            return oracle_tree_estimate(counts, base[None], levels, concentrations)
        fixed = {(f, lv): a for f in hierarchies for lv, a in enumerate(concentrations)}
        return fit_nested(table, hierarchies, fixed=fixed).theta
    form = "prior-mean" if smoother == "heb-h-prior-mean" else "tree"
    return fit_nested(table, hierarchies, form=form).theta


def hierarchy_l1_study(
    K_values: Iterable[tuple[int, int, int]] = ((4, 5, 10), (10, 10, 10)),
    N_values: Iterable[int] = (50, 200, 1000, 5000),
    scenario: str = "hierarchy",
    n_classes: int = 3,
    reps: int = 200,
    seed: int = 0,
    smoothers: Sequence[str] = STUDY_SMOOTHERS,
) -> list[dict]:
    """Mean l1 error of each smoother's class-conditional PMFs under a known hierarchy.

    For every tree shape (regions, prefixes per region, codes per prefix) and every N:
    ``reps`` repetitions, each with its own base and ``n_classes`` PMFs from the
    ``scenario`` (:data:`SCENARIOS`), N rows per class. The repetitions are the features
    of one count table, so every smoother runs once per (shape, N) for all of them.
    ``smoothers`` may also name the :data:`BUDGET_ESTIMATES` ("hierarchy" scenario only).
    Every N, ``reps`` and ``n_classes`` is a whole number of at least 1 (else a
    one-sentence ValueError naming it).

    Returns
    -------
    list of dict
        One per (K, N, smoother): ``K``, ``N``, ``K_over_N``, ``scenario``, ``smoother``,
        ``mean`` and ``std`` of sum_v |theta_hat - theta| over classes and repetitions,
        and ``unseen_mass``, the mean true mass of codes with no row in any class (an
        error floor HEB-M and HEB-H share: both give such codes 0).
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {tuple(SCENARIOS)}, got {scenario!r}.")
    # whole numbers, as l1_error_study's: N = 0 has no K / N, 2.5 rows would be drawn as 2
    (reps,) = whole_numbers(reps, "reps", 1)
    (n_classes,) = whole_numbers(n_classes, "n_classes", 1)
    N_values = whole_numbers(N_values, "N_values", 1)
    rows = []
    for shape in K_values:
        levels = zip_levels(*shape)
        K = levels[0].size
        for N in N_values:
            rng = np.random.default_rng([seed, K, int(N), len(scenario)])
            drawn = [
                tree_pmfs(levels, n_classes, rng=rng, **SCENARIOS[scenario]) for _ in range(reps)
            ]
            theta = np.stack([t for _, t in drawn], axis=1)  # (C, reps, K)
            counts = rng.multinomial(int(N), theta)
            table = CountTable(
                np.full(n_classes, float(N)),
                counts.reshape(n_classes, reps * K).astype(np.float64),
                category_offsets(np.full(reps, K)),
            )
            hierarchies = dict.fromkeys(range(reps), levels)
            unseen = (counts.sum(axis=0) == 0)[None] * theta
            true_m = SCENARIOS[scenario].get("concentrations")
            truth = (np.stack([b for b, _ in drawn]), true_m, counts, levels)
            for name in smoothers:
                if name in ("heb-h-true-m", "oracle", "oracle-seen") and true_m is None:
                    raise ValueError(f"{name!r} needs per-level concentrations (a tree truth).")
                est = _estimates(table, hierarchies, name, truth).reshape(n_classes, reps, K)
                err = np.abs(est - theta).sum(axis=2).ravel()
                rows.append(
                    {
                        "K": K,
                        "N": int(N),
                        "K_over_N": K / int(N),
                        "scenario": scenario,
                        "smoother": name,
                        "mean": float(err.mean()),
                        "std": float(err.std(ddof=1)) if err.size > 1 else 0.0,
                        "unseen_mass": float(unseen.sum(axis=2).mean()),
                    }
                )
    return rows
