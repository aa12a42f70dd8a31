"""HEB-H: class-conditional estimates that borrow strength along a category hierarchy.

A feature's categories (the leaves, level 0) may be grouped into parents (level 1), the
parents into grandparents (level 2), and so on. ``hierarchies`` maps a feature index to
its list of levels: ``levels[0][v]`` is the level-1 code of leaf code v,
``levels[1][g]`` the level-2 code of level-1 code g, ... (the last level's nodes hang
from the feature's root). Every level's counts N_c,node are the sums of the leaf counts
below the node; ``w(node) = N_node / N_parent`` is the node's pooled (over classes) share
of its parent, uniform over the parent's children where the parent has no row.

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

Model selection (``select=True``, tree form): both HEB-M's flat Dirichlet and the tree
give an exact marginal likelihood of the same leaf counts, so per (class, feature) pair
the hierarchy is kept only where its evidence, less a BIC penalty of (1/2) log N_cf per
extra concentration, beats HEB-M's; elsewhere, and for pairs below n0 rows, the pair is
HEB-M. Where the hierarchy carries no signal HEB-H therefore stays at HEB-M.

Identities (tests/test_hierarchy.py): a feature with no hierarchy, or one group holding
every category, is HEB-M exactly in both forms; in the tree form one group per category
(or any level that maps its nodes one-to-one) changes nothing, so it is HEB-M too; in the
prior-mean form, the parents' concentration fixed at infinity gives bar = the pooled
marginal, hence HEB-M for any grouping. Categories without training rows keep
est = 0 and a log column of 0: absent evidence, as under every other smoother.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from heb.concentration import (
    CLAMP_NONE,
    M_MAX,
    M_MIN,
    ConcentrationFit,
    fit_concentration_segments,
)
from heb.counts import CountTable
from heb.smoothing import SeenColumnLog, SmoothedTable

__all__ = [
    "FORMS",
    "NESTED_RULE",
    "NestedFit",
    "check_hierarchies",
    "pad_levels",
    "fit_nested",
    "nested_dirichlet_rule",
]

FORMS = ("tree", "prior-mean")
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
class _Nodes:
    """Every node of every level of every feature, ordered by step from the root.

    Step s holds level ``L_f - s`` of each feature with ``L_f >= s`` (step 0: the top
    levels; a feature without a hierarchy has its leaves at step 0).
    """

    feature: np.ndarray  # (G,)
    level: np.ndarray  # (G,)
    parent: np.ndarray  # (G,) global id, -1 under the root
    step_bounds: np.ndarray  # (n_steps + 1,)
    leaf: np.ndarray  # (V,) global id of each table column
    depth: np.ndarray  # (F,) L_f, the leaves' step

    @classmethod
    def build(cls, table: CountTable, levels: dict[int, list]) -> _Nodes:
        F = table.n_features
        depth = np.array([len(levels.get(f, ())) for f in range(F)], dtype=np.int64)
        sizes = [
            [int(table.n_categories[f])] + [lv.size for lv in levels.get(f, [])[1:]]
            + ([int(levels[f][-1].max(initial=-1)) + 1] if f in levels else [])
            for f in range(F)
        ]  # fmt: skip
        start = {}  # (f, level) -> global id of the first node
        feature, level, bounds = [], [], [0]
        for s in range(int(depth.max(initial=0)) + 1):
            position = bounds[-1]
            for f in np.flatnonzero(depth >= s):
                lv = int(depth[f]) - s
                start[f, lv] = position
                position += sizes[f][lv]
                feature.append(np.full(sizes[f][lv], f))
                level.append(np.full(sizes[f][lv], lv))
            bounds.append(position)
        parent = np.full(bounds[-1], -1, dtype=np.int64)
        for (f, lv), first in start.items():
            if lv < depth[f]:
                parent[first : first + sizes[f][lv]] = start[f, lv + 1] + levels[f][lv]
        leaf = np.concatenate([start[f, 0] + np.arange(sizes[f][0]) for f in range(F)])
        return cls(
            np.concatenate(feature),
            np.concatenate(level),
            parent,
            np.asarray(bounds, dtype=np.int64),
            leaf.astype(np.int64),
            depth,
        )

    def aggregate(self, leaf_counts: np.ndarray) -> np.ndarray:
        """(C, G) counts of every node: the sums of the leaf counts below it."""
        C, G = leaf_counts.shape[0], self.feature.size
        counts = np.zeros((C, G))
        counts[:, self.leaf] = leaf_counts
        rows = np.arange(C)[:, None] * G
        for h in range(1, int(self.depth.max(initial=0)) + 1):
            child = np.flatnonzero((self.level == h - 1) & (self.depth[self.feature] >= h))
            index = (rows + self.parent[child]).ravel()
            counts += np.bincount(index, counts[:, child].ravel(), C * G).reshape(C, G)
        return counts


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
        ``clamped`` (-1 / 0 / 1), ``iterations``, ``converged``, ``hierarchy_used``
        (the pair kept the hierarchy; otherwise its estimate is HEB-M's).
    """

    theta: np.ndarray
    smoothed: SmoothedTable
    levels: dict[str, np.ndarray]


def _fixed_concentrations(fixed, nodes: _Nodes) -> dict[tuple[int, int], float]:
    out = {}
    for (f, lv), value in dict(fixed or {}).items():
        if not (0 <= f < nodes.depth.size and 0 <= lv <= nodes.depth[f]):
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
    select: bool = True,
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
    select : bool, default True
        Tree form, nothing ``fixed``: per (class, feature) pair, keep the hierarchy only
        where its evidence (the product over levels and parents, an exact marginal
        likelihood of the leaf counts) beats HEB-M's flat Dirichlet evidence by more than
        a BIC penalty of (1/2) log N_cf per extra concentration; else the pair is HEB-M.
        Pairs below ``n0`` rows are HEB-M.
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
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    nodes = _Nodes.build(table, check_hierarchies(hierarchies, table.n_categories))
    fixed = _fixed_concentrations(fixed, nodes)
    settings = (n0, m_min, m_max)
    theta, level_m, fits, records = _fit_pass(table, nodes, form, settings, fixed)
    n_cf = table.class_feature_totals()
    fallback = n_cf < n0
    smoothed = _leaf_table(theta, table, nodes, level_m, fits, fallback)
    use = np.broadcast_to(nodes.depth > 0, fallback.shape)
    if select and form == "tree" and not fixed and use.any():
        flat_nodes = _Nodes.build(table, {})
        flat = _fit_pass(table, flat_nodes, "tree", settings, {})
        tree_evidence = sum(fit.log_evidence.reshape(n_cf.shape) for fit in fits)
        penalty = 0.5 * nodes.depth * np.log(np.maximum(n_cf, 1.0))
        better = tree_evidence - penalty > flat[2][0].log_evidence.reshape(n_cf.shape)
        use = use & better & ~fallback
        col_use = use[:, table.feature_of_column]
        theta = np.where(col_use, theta, flat[0])
        flat_table = _leaf_table(flat[0], table, flat_nodes, flat[1], flat[2], fallback)
        smoothed = _merge(use, col_use, smoothed, flat_table)
    for record in records:
        record["hierarchy_used"] = use[record["class"], record["feature"]]
    return NestedFit(theta, smoothed, _concat(records))


def _fit_pass(table, nodes, form, settings, fixed):
    """Every level top-down: leaf estimates (C, V), (steps, C, F) m, fits and records."""
    n0, m_min, m_max = settings
    C, F = table.n_classes, table.n_features
    counts = nodes.aggregate(table.counts)
    n_cf = table.class_feature_totals()
    # per node: the class counts and pooled count of its parent (the root: N_cf, S_f)
    under_root = nodes.parent < 0
    parent_ix = np.where(under_root, 0, nodes.parent)
    parent_counts = np.where(under_root, n_cf[:, nodes.feature], counts[:, parent_ix])
    pooled = counts.sum(axis=0)
    pooled_parent = parent_counts.sum(axis=0)
    # siblings: children of the same parent (the root's are the feature's top nodes)
    parent_key = np.where(under_root, counts.shape[1] + nodes.feature, nodes.parent)
    siblings = np.bincount(parent_key)[parent_key].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(pooled_parent > 0, pooled / pooled_parent, 1.0 / siblings)
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
        fits.append(_with_fallback(fit, fallback))
        records.append(_level_records(s, nodes, fits[-1], level_m[s], fallback, n_cf, fixed))
    return est[:, nodes.leaf], level_m, fits, records


def _merge(use, col_use, tree: SmoothedTable, flat: SmoothedTable) -> SmoothedTable:
    """Per (class, feature) pair, the tree's table where ``use`` holds, else the flat one."""
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
    log_theta = np.where(col_use, tree.log_theta, flat.log_theta)
    return SmoothedTable(
        SeenColumnLog(log_theta, None, log_theta.shape[1]),
        tree.seen,
        np.where(use, tree.concentration, flat.concentration),
        fit,
        tree.fallback,
    )


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
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)
    log_theta[:, ~seen] = 0.0
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
    columns = SeenColumnLog(log_theta, None, log_theta.shape[1])
    return SmoothedTable(columns, seen, m_leaf, leaf_fit, fallback)


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
