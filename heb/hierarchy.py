"""HEB-H: class-conditional estimates that borrow strength along a category hierarchy.

A feature's categories (the leaves, level 0) may be grouped into parents (level 1), the
parents into grandparents (level 2), and so on. ``hierarchies`` maps a feature index to
its list of levels: ``levels[0][v]`` is the level-1 code of leaf code v,
``levels[1][g]`` the level-2 code of level-1 code g, ... (the last level's nodes hang
from the feature's root). Every level's counts N_c,node are the sums of the leaf counts
below the node; ``w(node)`` is the node's share of its parent in the pooled (over classes)
counts: under the root N_node / S_f (HEB-M's marginal), below it learned by Type-II ML
around an even split of the parent (``base="learned"``, the default, our extension beyond
the paper: the third layer of the nested Dirichlet, :mod:`heb.hierarchy_nodes`), or the
empirical N_node / N_parent (``base="pooled"``).

The estimate is computed top-down, one level at a time, starting from est(c, root) = 1.
Two forms are offered (``form``); both are nested Dirichlet priors in the spirit of
MacKay and Peto (1995): each level's class-conditional distribution is drawn around a
mean built from the level above, with a concentration learned by Type-II ML with the
batched solver of :mod:`heb.concentration` (one solver call per level for every class and
feature), with HEB-M's fallback m = K for a pair with N_cf < n0.

``"tree"`` (default; a Dirichlet tree): within each parent, the class-c split over the
children is Dirichlet(m_cf,l w) and independent across parents and levels, so::

    est(c, node) = est(c, parent) * (N_c,node + m w(node)) / (N_c,parent + m)

The evidence of the leaf counts factorises exactly over parents and levels, so m_cf,l is
the exact Type-II ML maximiser of a multi-document Dirichlet-multinomial evidence (the
parents are the documents, as in HEB-AODE). Fallback pairs use m = the parent's number of
children (Laplace-like within each parent).

``"prior-mean"``: the class-c distribution over a level's nodes is Dirichlet(m_cf,l bar)
with prior mean bar(c, node) = est(c, parent) w(node), so::

    est(c, node) = (N_c,node + m bar(c, node)) / (N_cf + m)

with m learned from the pair's single count vector against bar (a plug-in: bar already
used the same counts at the level above). Fallback pairs use m = K of the level.

Model averaging (``select="average"``, tree form): the tree and a flat Dirichlet(m t)
around the same leaf base t (the product of the w down to each leaf) both give an exact
marginal likelihood of a pair's leaf counts at their Type-II ML concentrations. Less a BIC
penalty of (1/2) log N_cf per extra concentration, their difference is the log posterior
odds of the tree (equal prior odds), and the pair's estimate is the average of the
tree's and HEB-M's by those posterior weights (Bayesian model averaging, the Bayes
estimate of a distribution under model uncertainty; SPEC is silent on HEB-H, so this is
our rule). ``select="best"`` keeps the likelier model per pair instead (HEB-H's rule
before the learned base) and ``None`` keeps the tree. Pairs below n0 rows are HEB-M.
Where the hierarchy carries no signal the tree's weight is small and HEB-H stays near
HEB-M.

Identities (tests/test_hierarchy.py, tests/test_hierarchy_base.py): a feature with no
hierarchy, or one group holding every category (a level of one node is the root itself,
:func:`heb.hierarchy_nodes.without_root_levels`), is HEB-M exactly in both forms; in the
tree form one group per category (or any level that maps its nodes one-to-one) changes
nothing, so it is HEB-M too; in the prior-mean form, the parents' concentration fixed at
infinity gives bar = the leaf base, hence HEB-M's rule around that base (HEB-M itself
with ``base="pooled"``, whose leaf base is the pooled marginal). A category without
training rows gets the share of its parent that the learned base leaves it (0 under the
pooled base, and where it hangs directly from the root) and a log column of 0: absent
evidence at scoring, as under every other smoother.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from heb.concentration import (
    CLAMP_NONE,
    M_MAX,
    M_MIN,
    ConcentrationFit,
    fit_concentration_segments,
    grouped_log_evidence,
)
from heb.counts import CountTable
from heb.hierarchy_nodes import HierarchyNodes, base_shares, without_root_levels
from heb.smoothing import SeenColumnLog, SmoothedTable

__all__ = [
    "FORMS",
    "SELECTIONS",
    "NESTED_RULE",
    "NestedFit",
    "check_hierarchies",
    "pad_levels",
    "fit_nested",
    "nested_dirichlet_rule",
]

FORMS = ("tree", "prior-mean")
#: how the evidence weighs the tree against HEB-M per pair (None: the tree, always)
SELECTIONS = ("average", "best", None)
#: the rule name of HEB-H in :mod:`heb.registry` / ``heb.smoothing.register_rule``
NESTED_RULE = "nested-type-ii-ml"

Hierarchies = Mapping[int, Sequence[np.ndarray]]


def check_hierarchies(hierarchies: Hierarchies | None, n_categories) -> dict[int, list]:  # noqa: C901 -- one check per kind of malformed level, each its own message
    """Validated levels per feature, the first level cut to the table's K_f leaves.

    Parameters
    ----------
    hierarchies : mapping of int -> sequence of 1-D int arrays, or None
        ``levels[0]`` gives the level-1 code of every leaf code (entries beyond K_f,
        categories not seen in training, are dropped; leaves it does not name hang alone
        under new nodes, see :func:`pad_levels`); ``levels[j]`` the level-(j + 1) code of
        every level-j code, with one entry per level-j node.
    n_categories : array-like (F,)
        K_f of the count table.

    Returns
    -------
    dict of int -> list of int64 arrays

    Raises
    ------
    ValueError
        With one sentence saying what is wrong.
    """
    k = np.asarray(n_categories, dtype=np.int64)
    if hierarchies is None:
        return {}
    if not isinstance(hierarchies, Mapping):
        raise ValueError("hierarchies must map a feature index to its list of levels.")
    out = {}
    for key, levels in hierarchies.items():
        if isinstance(key, bool) or not isinstance(key, int | np.integer) or not 0 <= key < k.size:
            raise ValueError(f"hierarchies: feature {key!r} is not an index in 0..{k.size - 1}.")
        f = int(key)
        if isinstance(levels, np.ndarray) and levels.ndim == 1:
            levels = [levels]
        if not isinstance(levels, Sequence | np.ndarray) or isinstance(levels, str | bytes):
            raise ValueError(f"hierarchies: feature {f} must hold a list of levels.")
        arrays = [np.asarray(level) for level in levels]
        if not arrays:
            raise ValueError(f"hierarchies: feature {f} has an empty list of levels.")
        for j, arr in enumerate(arrays):
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise ValueError(f"hierarchies: level {j + 1} of feature {f} must be 1-D integers.")
            if arr.size and arr.min() < 0:
                raise ValueError(f"hierarchies: level {j + 1} of feature {f} has a negative code.")
        for j in range(len(arrays) - 1):
            if arrays[j].size and arrays[j].max() >= arrays[j + 1].size:
                raise ValueError(
                    f"hierarchies: level {j + 1} of feature {f} names parent "
                    f"{int(arrays[j].max())}, but level {j + 2} lists {arrays[j + 1].size} nodes."
                )
        arrays[0] = arrays[0][: k[f]]
        out[f] = pad_levels([a.astype(np.int64) for a in arrays], int(k[f]))
    return out


def pad_levels(levels: list[np.ndarray], n_leaves: int) -> list[np.ndarray]:
    """The levels with leaves ``len(levels[0])..n_leaves - 1`` added, each alone under a
    new node at every level (categories the hierarchy does not name, e.g. first met in a
    later ``partial_fit`` chunk: HEB-M-like, never an error)."""
    extra = n_leaves - levels[0].size
    if extra <= 0:
        return levels
    out = []
    for j, level in enumerate(levels):
        above = levels[j + 1].size if j + 1 < len(levels) else int(level.max(initial=-1)) + 1
        out.append(np.concatenate([level, above + np.arange(extra)]))
    return out


@dataclass(frozen=True)
class NestedFit:
    """HEB-H's estimate and the concentrations learned at every level.

    Attributes
    ----------
    theta : ndarray (C, V)
        est(c, leaf) over the table's columns; 0 for categories without training rows.
    smoothed : SmoothedTable
        The log table for scoring; its concentration, fit and fallback are the leaf
        level's, per (class, feature) pair (tree-form fallback pairs report the mean
        number of children per parent).
    levels : dict of ndarray
        One entry per (step, class, feature) fitted: ``class``, ``feature``, ``level``
        (0 = leaves), ``n_nodes``, ``m``, ``rho`` (m / (N_cf + m)), ``fallback``,
        ``clamped`` (-1 / 0 / 1), ``iterations``, ``converged``, ``hierarchy_weight``
        (the tree's weight in the pair's estimate, the rest HEB-M's) and
        ``hierarchy_used`` (that weight is above 1/2).
    base : dict of ndarray
        The base concentration of every level below a feature's top one:
        :meth:`heb.hierarchy_nodes.BaseShares.records`.
    """

    theta: np.ndarray
    smoothed: SmoothedTable
    levels: dict[str, np.ndarray]
    base: dict[str, np.ndarray]


def _fixed_concentrations(fixed, levels: dict, n_features: int) -> dict[tuple[int, int], float]:
    out = {}
    for (f, lv), value in dict(fixed or {}).items():
        if not (0 <= f < n_features and 0 <= lv <= len(levels.get(f, ()))):
            raise ValueError(f"fixed concentration for feature {f}, level {lv}: no such level.")
        if not float(value) > 0:
            raise ValueError(f"fixed concentration for feature {f}, level {lv} must be > 0.")
        out[int(f), int(lv)] = float(value)
    return out


def fit_nested(
    table: CountTable,
    hierarchies: Hierarchies | None = None,
    *,
    form: str = "tree",
    select: str | None = "average",
    base: str = "learned",
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
    fixed: Mapping[tuple[int, int], float] | None = None,
) -> NestedFit:
    """HEB-H: learn every level's concentrations and the leaf estimates (module doc).

    Parameters
    ----------
    table : CountTable
    hierarchies : mapping of feature -> levels, optional
        See :func:`check_hierarchies`; a feature without one is smoothed as HEB-M.
    form : {"tree", "prior-mean"}
    select : {"average", "best"} or None, default "average"
        Tree form, nothing ``fixed``: per (class, feature) pair, the tree's evidence less
        a BIC penalty of (1/2) log N_cf per extra concentration against a flat Dirichlet's
        around the same leaf base gives the tree a posterior weight; "average" mixes the
        tree's and HEB-M's estimates by it, "best" keeps the likelier one, None keeps
        the tree. Pairs below ``n0`` rows are HEB-M.
    base : {"learned", "pooled"}, default "learned"
        Each node's share of its parent (:mod:`heb.hierarchy_nodes`).
    n0, m_min, m_max : float
        HEB's low-count threshold and the concentration clamp (every level).
    fixed : mapping of (feature, level) -> float, optional
        Concentrations to use instead of learning them (``np.inf`` allowed: the level's
        estimate is then its prior mean).

    Returns
    -------
    NestedFit
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}.")
    if select not in SELECTIONS:
        raise ValueError(f"select must be one of {SELECTIONS}, got {select!r}.")
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    checked = check_hierarchies(hierarchies, table.n_categories)
    fixed = _fixed_concentrations(fixed, checked, table.n_features)
    nodes = HierarchyNodes.build(table, without_root_levels(checked))
    settings = (n0, m_min, m_max)
    shares = base_shares(nodes, nodes.aggregate(table.counts).sum(axis=0), base, *settings)
    theta, level_m, fits, records = _fit_pass(table, nodes, shares.share, form, settings, fixed)
    n_cf = table.class_feature_totals()
    fallback = n_cf < n0
    smoothed = _leaf_table(theta, table, nodes, level_m, fits, fallback)
    weight = np.broadcast_to(nodes.depth > 0, fallback.shape).astype(np.float64)
    if select is not None and form == "tree" and not fixed and weight.any():
        flat_nodes = HierarchyNodes.build(table, {})
        flat_share = base_shares(flat_nodes, table.category_totals(), "pooled").share
        flat = _fit_pass(table, flat_nodes, flat_share, "tree", settings, {})
        tree_evidence = sum(fit.log_evidence.reshape(n_cf.shape) for fit in fits)
        penalty = 0.5 * nodes.depth * np.log(np.maximum(n_cf, 1.0))
        leaf_base = nodes.down(shares.share)[nodes.leaf]
        flat_evidence = _flat_evidence(table, leaf_base, m_min, m_max).reshape(n_cf.shape)
        log_odds = tree_evidence - penalty - flat_evidence
        tree_weight = special.expit(log_odds) if select == "average" else log_odds > 0
        weight = np.where(fallback, 0.0, weight * tree_weight)
        col_weight = weight[:, table.feature_of_column]
        theta = col_weight * theta + (1.0 - col_weight) * flat[0]
        flat_table = _leaf_table(flat[0], table, flat_nodes, flat[1], flat[2], fallback)
        smoothed = _merge(weight > 0.5, theta, smoothed, flat_table)
    for record in records:
        record["hierarchy_weight"] = weight[record["class"], record["feature"]]
        record["hierarchy_used"] = record["hierarchy_weight"] > 0.5
    return NestedFit(theta, smoothed, _concat(records), shares.records(nodes))


def _fit_pass(table, nodes, share, form, settings, fixed):
    """Every level top-down: leaf estimates (C, V), (steps, C, F) m, fits and records."""
    n0, m_min, m_max = settings
    C, F = table.n_classes, table.n_features
    counts = nodes.aggregate(table.counts)
    n_cf = table.class_feature_totals()
    # per node: the class counts of its parent (the root: N_cf)
    under_root = nodes.parent < 0
    parent_ix = np.where(under_root, 0, nodes.parent)
    parent_counts = np.where(under_root, n_cf[:, nodes.feature], counts[:, parent_ix])
    parent_key, siblings = nodes.parent_key, nodes.siblings
    est = np.ones_like(counts)
    level_m = np.zeros((nodes.step_bounds.size - 1, C, F))
    fits, records = [], []
    fallback = n_cf < n0
    for s in range(nodes.step_bounds.size - 1):
        cols = np.arange(nodes.step_bounds[s], nodes.step_bounds[s + 1])
        f_col = nodes.feature[cols]
        above = np.where(under_root[cols], 1.0, est[:, parent_ix[cols]])
        block = counts[:, cols]
        if form == "tree":
            prior = np.broadcast_to(share[cols], block.shape)
            doc_key = parent_key[cols]
            totals = parent_counts[:, cols]
            fallback_m = siblings[cols]
        else:
            prior = above * share[cols]
            doc_key = f_col
            totals = n_cf[:, f_col]
            fallback_m = np.bincount(f_col, minlength=F)[f_col].astype(np.float64)
        fit = _fit_level(block, prior, doc_key, totals, f_col, F, m_min, m_max)
        m_pair = fit.m.reshape(C, F)
        m_col = np.where(fallback[:, f_col], fallback_m, m_pair[:, f_col])
        for (f, lv), value in fixed.items():
            if nodes.depth[f] - lv == s:
                m_col[:, f_col == f] = value
        summary = _children_per_parent(f_col, doc_key, F)
        level_m[s] = np.where(fallback, summary, m_pair)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = 1.0 / (1.0 + totals / m_col)
            empirical = np.where(totals > 0, block / totals, 0.0)
        step_est = (1.0 - rho) * empirical + rho * prior
        est[:, cols] = above * step_est if form == "tree" else step_est
        changed = fallback.copy()  # pairs whose m is not the solver's: their evidence too
        for f, lv in fixed:
            changed[:, f] |= nodes.depth[f] - lv == s
        if changed.any():
            used = (block, prior, doc_key, totals, f_col, m_col, F)
            fit = fit.replace(log_evidence=_evidence_where(fit, changed, used))
        fits.append(_with_fallback(fit, fallback))
        records.append(_level_records(s, nodes, fits[-1], level_m[s], fallback, n_cf, fixed))
    return est[:, nodes.leaf], level_m, fits, records


def _evidence_where(fit: ConcentrationFit, changed: np.ndarray, used: tuple):
    """The deferred evidence of a level's fit, at the m each pair used where ``changed``
    (a fallback pair's children per parent, a fixed value), one document per parent
    (:func:`heb.concentration.grouped_log_evidence`): the solver's is at the m it
    learned, which such a pair does not use."""

    def compute() -> np.ndarray:
        return np.where(changed.ravel(), grouped_log_evidence(*used), fit.log_evidence)

    return compute


def _flat_evidence(table: CountTable, leaf_base: np.ndarray, m_min, m_max) -> np.ndarray:
    """Type-II ML evidence (C F,) of a flat Dirichlet(m leaf_base) over each pair's leaves."""
    C, F = table.n_classes, table.n_features
    rows, cols = np.nonzero(table.counts)
    group = rows * F + table.feature_of_column[cols]
    n_cf = table.class_feature_totals().ravel()
    docs = np.flatnonzero(n_cf > 0)
    fit = fit_concentration_segments(
        group, table.counts[rows, cols], leaf_base[cols], docs, n_cf[docs], C * F, m_min, m_max
    )
    return fit.log_evidence


def _merge(use, theta, tree: SmoothedTable, flat: SmoothedTable) -> SmoothedTable:
    """The log table of ``theta``; per (class, feature) pair, the tree's diagnostics where
    ``use`` holds, else the flat ones."""
    pick = use.ravel()

    def either(attr):
        return np.where(pick, getattr(tree.fit, attr), getattr(flat.fit, attr))

    fit = ConcentrationFit(
        either("m"),
        either("iterations"),
        either("converged"),
        either("clamped").astype(np.int8),
        either("log_evidence"),
        either("flat"),
    )
    return SmoothedTable(
        _log_columns(theta, tree.seen),
        tree.seen,
        np.where(use, tree.concentration, flat.concentration),
        fit,
        tree.fallback,
    )


def _log_columns(theta: np.ndarray, seen: np.ndarray) -> SeenColumnLog:
    """log theta for scoring, 0 in the columns of categories without training rows."""
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)
    log_theta[:, ~seen] = 0.0
    return SeenColumnLog(log_theta, None, log_theta.shape[1])


def _fit_level(block, prior, doc_key, doc_totals, f_col, F, m_min, m_max) -> ConcentrationFit:
    """One solver call for every (class, feature) pair of a level; group = c F + f."""
    C = block.shape[0]
    group_of = np.arange(C)[:, None] * F + f_col[None, :]
    rows, cols = np.nonzero(block)
    # one document per (class, distinct doc key) with a positive total
    first = np.unique(doc_key, return_index=True)[1]
    doc_tot = doc_totals[:, first]
    doc_grp = group_of[:, first]
    pos = doc_tot > 0
    return fit_concentration_segments(
        group_of[rows, cols],
        block[rows, cols],
        prior[rows, cols],
        doc_grp[pos],
        doc_tot[pos],
        C * F,
        m_min,
        m_max,
    )


def _children_per_parent(f_col, doc_key, F) -> np.ndarray:
    """Mean number of children per parent for each feature of the step, shape (F,)."""
    nodes = np.bincount(f_col, minlength=F).astype(np.float64)
    first = np.unique(doc_key, return_index=True)[1]
    parents = np.bincount(f_col[first], minlength=F)
    return np.where(parents > 0, nodes / np.maximum(parents, 1), 1.0)


def _with_fallback(fit: ConcentrationFit, fallback: np.ndarray) -> ConcentrationFit:
    fb = fallback.ravel()
    return fit.replace(
        iterations=np.where(fb, 0, fit.iterations),
        converged=np.where(fb, True, fit.converged),
        clamped=np.where(fb, CLAMP_NONE, fit.clamped).astype(np.int8),
        flat=np.where(fb, False, fit.flat),
    )


def _level_records(s, nodes, fit, m_summary, fallback, n_cf, fixed) -> dict[str, np.ndarray]:
    """Diagnostics of the (class, feature) pairs of one step."""
    C, F = m_summary.shape
    feats = np.flatnonzero(nodes.depth >= s)
    lv = nodes.depth[feats] - s
    m = m_summary[:, feats].copy()
    for (f, level), value in fixed.items():
        if nodes.depth[f] - level == s:
            m[:, feats == f] = value
    n_nodes = np.bincount(
        nodes.feature[nodes.step_bounds[s] : nodes.step_bounds[s + 1]], minlength=F
    )
    pick = (np.arange(C)[:, None] * F + feats[None, :]).ravel()
    n = n_cf[:, feats]
    with np.errstate(invalid="ignore"):
        rho = np.where(np.isinf(m), 1.0, m / (n + m))
    return {
        "class": np.repeat(np.arange(C), feats.size),
        "feature": np.tile(feats, C),
        "level": np.tile(lv, C),
        "n_nodes": np.tile(n_nodes[feats], C),
        "m": m.ravel(),
        "rho": rho.ravel(),
        "fallback": fallback[:, feats].ravel(),
        "clamped": fit.clamped[pick],
        "iterations": fit.iterations[pick],
        "converged": fit.converged[pick],
    }


def _concat(records: list[dict]) -> dict[str, np.ndarray]:
    return {key: np.concatenate([r[key] for r in records]) for key in records[0]}


def _leaf_table(theta, table, nodes, level_m, fits, fallback) -> SmoothedTable:
    """The scoring table with the leaf level's per-pair diagnostics (step L_f of f)."""
    C, F = table.n_classes, table.n_features
    seen = table.category_totals() > 0
    feats = np.arange(F)
    m_leaf = level_m[nodes.depth, :, feats].T  # (C, F)
    pick = (np.arange(C)[:, None] * F + feats[None, :]).ravel()
    steps = np.broadcast_to(nodes.depth, (C, F)).ravel()

    def gather(attr):
        return np.stack([getattr(fit, attr) for fit in fits])[steps, pick]

    leaf_fit = ConcentrationFit(
        m_leaf.ravel().copy(),
        gather("iterations"),
        gather("converged"),
        gather("clamped").astype(np.int8),
        np.stack([fit.log_evidence for fit in fits])[steps, pick],
        gather("flat"),
    )
    return SmoothedTable(_log_columns(theta, seen), seen, m_leaf, leaf_fit, fallback)


def nested_dirichlet_rule(
    table: CountTable,
    *,
    hierarchies: Hierarchies | None = None,
    form: str = "tree",
    n0: float = 10,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
    **_unused,
) -> SmoothedTable:
    """The HEB-H smoothing rule: counts to a :class:`SmoothedTable` (see :func:`fit_nested`).

    Other smoothers' keyword arguments (alpha, m, k0) are accepted and ignored, so the
    rule can be called as every rule of :mod:`heb.smoothing` is.
    """
    return fit_nested(table, hierarchies, form=form, n0=n0, m_min=m_min, m_max=m_max).smoothed
