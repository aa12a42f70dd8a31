"""Type-II maximum likelihood of Dirichlet concentrations, for many groups at once.

For a group (a (class, feature) pair of Naive Bayes, or a (class, parent, child) triple
of HEB-AODE) with prior mean ``t`` and one or more count vectors ("documents") ``n_u``,
the Dirichlet-multinomial evidence is (paper eq. 5, eq. 11)::

    l(m) = sum_u [ log G(m) - log G(N_u + m) + sum_v log G(n_uv + m t_v) - log G(m t_v) ]

and the concentration is its maximiser clamped to ``[m_min, m_max]``. Minka's fixed point
(paper eq. 6 / eq. 12) is the reference algorithm; this module returns the same clamped
maximiser (to about 1e-9 relative; tests check 1e-6 against an independent search):

1. The clamps are decided first: l'(m_min) > 0 is certain for most groups from a bound
   (every observed category counts at least one "table" of the Polya urn), and l'(m_max)
   is evaluated exactly, at once, for the groups whose closed-form start (step 2) is at
   m_max or above, without expanding any count (a count of one contributes exactly
   1 / m, counts up to six closed forms, others digamma): the groups it clamps (every
   feature independent of the class) never pay for a score.
2. The remaining groups run a safeguarded Halley iteration in ``x = log m`` on
   g(x) = m l'(m), kept inside the sign-change bracket, from a closed-form start (a
   Chinese-restaurant estimate and, for single documents, the method of moments); two
   to four iterations. Where l'(m_max) was not evaluated, a step leaving the bracket's
   top from where g > 0 tries m_max itself. An integer count n <= ``SMALL_COUNT`` (of
   :mod:`heb.concentration_score`) is expanded into the exact rational terms of
   ``psi(x + n) - psi(x) = sum_{k<n} 1 / (x + k)``, and sums over groups are
   ``np.add.reduceat`` over runs of terms sorted by group.
3. Where a group pools several documents (HEB-AODE, HEB-TAN, HEB-H) l can have more than
   one peak, so neither a clamp's slope nor Halley's start settles the answer: l' is read
   on a grid of m, every peak found is solved, and the one of highest evidence wins (the
   maximiser SPEC asks for; Minka's fixed point from m = 1 stops at the first peak it
   meets, which is the same wherever l has one peak, as one document's l always has).
4. The evidence l(m) is diagnostics only: a fit computes it on first access.

Zero counts contribute nothing, so only non-zero counts are stored ("items"). Where
groups pool many documents, identical (group, prior, count) items and (group, total)
documents are merged once into weights before the iterations (every sum is linear in
them); :class:`ConcentrationProblem` takes the items a part at a time to bound memory.
The solver lives in :mod:`heb.concentration_solver` and :mod:`heb.concentration_score`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heb.concentration_solver import (
    WeightedItems,
    halley_log_m,
    merge_duplicates,
    start_log_m,
)

__all__ = [
    "ConcentrationFit",
    "ConcentrationProblem",
    "fit_concentration",
    "fit_concentration_rows",
    "fit_concentration_segments",
    "fit_segments",
    "grouped_log_evidence",
    "log_evidence",
    "M_MIN",
    "M_MAX",
]

#: l'(m_max) is evaluated on all items when the groups to check hold this share of them
SUBSET_BELOW = 0.5
#: l' is read this many times a decade of m to find every peak of a group that pools
#: documents (:func:`_take_better_peaks`)
PEAKS_PER_DECADE = 4
#: another peak replaces the fitted m where its evidence is higher by more than this
#: relative margin (the fitted peak itself, solved again, differs by rounding)
PEAK_MARGIN = 1e-9
#: values of m times items that one grid evaluation of l' holds at most
GRID_CELLS = 2**22
M_MIN = 1e-2
M_MAX = 1e4
CLAMP_LOW, CLAMP_NONE, CLAMP_HIGH = -1, 0, 1


class ConcentrationFit:
    """Per-group result of the Type-II ML fit.

    Attributes
    ----------
    m : ndarray (G,)
        Clamped maximiser of the evidence.
    iterations : ndarray (G,) of int
        Solver iterations used (0 where the answer needed none).
    converged : ndarray (G,) of bool
    clamped : ndarray (G,) of int8
        -1 at ``m_min``, +1 at ``m_max``, 0 inside.
    log_evidence : ndarray (G,)
        l(m) at the returned m. The solver never needs it, so a fit computes it on first
        access (it is diagnostics only); an array, or a function computing it on first
        access, may also be passed in.
    flat : ndarray (G,) of bool
        Evidence constant in m (every document has N <= 1, or K = 1): m is the Minka
        starting value 1 (clamped).
    """

    def __init__(self, m, iterations, converged, clamped, log_evidence, flat):
        self.m = m
        self.iterations = iterations
        self.converged = converged
        self.clamped = clamped
        self._log_evidence = log_evidence
        self.flat = flat

    @property
    def log_evidence(self) -> np.ndarray:
        """l(m) per group, computed on first access."""
        if callable(self._log_evidence):  # deferred: _DeferredEvidence, or a caller's
            self._log_evidence = self._log_evidence()
        return self._log_evidence

    def replace(self, **changes) -> ConcentrationFit:
        """A copy with some attributes replaced (a deferred evidence stays deferred)."""
        fields = {
            "m": self.m,
            "iterations": self.iterations,
            "converged": self.converged,
            "clamped": self.clamped,
            "log_evidence": self._log_evidence,
            "flat": self.flat,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"ConcentrationFit has no attribute(s) {sorted(unknown)}.")
        fields.update(changes)
        return ConcentrationFit(**fields)

    def __repr__(self) -> str:
        return f"ConcentrationFit(groups={np.size(self.m)}, m={self.m!r})"


class _DeferredEvidence:
    """l(m) of a fit's groups, evaluated when first asked for."""

    def __init__(self, items: WeightedItems, m: np.ndarray):
        self.items, self.m = items, m.copy()

    def __call__(self) -> np.ndarray:
        return self.items.score().evidence(self.m)


def fit_concentration_segments(
    item_group: np.ndarray,
    item_count: np.ndarray,
    item_prior: np.ndarray,
    doc_group: np.ndarray,
    doc_total: np.ndarray,
    n_groups: int,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> ConcentrationFit:
    """Fit the concentration of many groups of count vectors at once.

    Parameters
    ----------
    item_group, item_count, item_prior : ndarray (I,)
        The non-zero counts of every document: its group, the count n_uv > 0 and the
        prior mean t_v > 0 of its category. Sorted by group is fastest.
    doc_group, doc_total : ndarray (D,)
        Every document with a positive total: its group and N_u = sum_v n_uv.
    n_groups : int
        Number of groups G (a group with no document has flat evidence).
    m_min, m_max : float
        The clamp.

    Returns
    -------
    ConcentrationFit
    """
    _check_clamp(m_min, m_max)
    item_group, item_count, item_prior = _check_items(item_group, item_count, item_prior, n_groups)
    doc_group, doc_total = _check_documents(doc_group, doc_total, n_groups)
    # Flat evidence: every document has N <= 1, or all its mass sits on a category
    # whose prior mean is 1 (K = 1); each such document's score is identically zero.
    informative_docs = np.bincount(doc_group[doc_total >= 2], minlength=n_groups)
    degenerate = (item_prior >= 1.0 - 1e-15) & (item_count >= 2)
    flat = informative_docs <= np.bincount(item_group[degenerate], minlength=n_groups)
    fractional = fractional_groups(item_group, item_count, item_prior, n_groups)
    if fractional is not None:  # a total under 2 of fractional counts is not flat
        flat &= ~fractional
    return fit_segments(
        item_group,
        item_count,
        item_prior,
        doc_group,
        doc_total,
        n_groups,
        m_min,
        m_max,
        flat,
        fractional=fractional,
    )


def fractional_groups(item_group, item_count, item_prior, n_groups) -> np.ndarray | None:
    """(G,) the groups holding a fractional count under a prior mean below 1 (None when
    no count is fractional: the counts of rows). Their l can have several peaks, and the
    bounds that settle whole counts (a category counts one table at least; a total under
    2 is flat) do not hold for them."""
    whole = np.rint(item_count)  # rint: 20x faster than % 1 (a fit's hot path)
    if np.array_equal(whole, item_count):
        return None
    odd = (whole != item_count) & (item_prior < 1.0 - 1e-15)
    if not odd.any():
        return None
    return np.bincount(item_group[odd], minlength=n_groups) > 0


def _check_clamp(m_min: float, m_max: float) -> None:
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")


def _check_group_ids(ids: np.ndarray, n_groups: int) -> None:
    if ids.size and (ids.min() < 0 or ids.max() >= n_groups):
        raise ValueError(f"Group ids must lie in 0..{n_groups - 1}.")


def _check_items(item_group, item_count, item_prior, n_groups):
    """The item arrays as int64 / float64, or a ValueError naming what is wrong."""
    item_group = np.asarray(item_group, dtype=np.int64)
    item_count = np.asarray(item_count, dtype=np.float64)
    item_prior = np.asarray(item_prior, dtype=np.float64)
    if not item_group.ndim == 1 or not item_group.shape == item_count.shape == item_prior.shape:
        raise ValueError("Item arrays and document arrays must be 1-D and of matching lengths.")
    _check_group_ids(item_group, n_groups)
    if not np.all(np.isfinite(item_prior)):
        raise ValueError("The prior mean must be finite.")
    if np.any(item_prior <= 0):
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    if not (np.all(item_count > 0) and np.all(np.isfinite(item_count))):
        raise ValueError("Item counts must be positive and finite (store non-zero counts only).")
    return item_group, item_count, item_prior


def _check_documents(doc_group, doc_total, n_groups):
    """The document arrays as int64 / float64, or a ValueError naming what is wrong."""
    doc_group = np.asarray(doc_group, dtype=np.int64)
    doc_total = np.asarray(doc_total, dtype=np.float64)
    if doc_group.ndim != 1 or doc_group.shape != doc_total.shape:
        raise ValueError("Item arrays and document arrays must be 1-D and of matching lengths.")
    _check_group_ids(doc_group, n_groups)
    if not (np.all(doc_total > 0) and np.all(np.isfinite(doc_total))):
        raise ValueError("Document totals must be positive and finite.")
    return doc_group, doc_total


def fit_segments(
    item_group,
    item_count,
    item_prior,
    doc_group,
    doc_total,
    n_groups,
    m_min,
    m_max,
    flat,
    n_categories=None,
    fractional=None,
) -> ConcentrationFit:
    """The solver behind :func:`fit_concentration_segments`, on input already validated.

    Callers that build the segments themselves (:func:`heb.smoothing.learn_concentrations`)
    call it directly and skip the checks.

    ``flat`` (G,) marks the groups whose evidence is constant in m. ``n_categories``
    (G,), the number of categories of positive prior mean, may be given for groups of
    one document each: it sharpens the solver's starting point. ``fractional`` (G,) marks
    the groups holding fractional counts (None: none does), searched as pooled ones.
    """
    pooled = doc_group.size >= 2 * max(np.count_nonzero(np.bincount(doc_group)), 1)
    build = WeightedItems.merged if pooled else WeightedItems
    items = build(item_group, item_count, item_prior, doc_group, doc_total, n_groups)
    return solve_weighted(items, m_min, m_max, flat, n_categories, fractional)


def solve_weighted(
    items, m_min, m_max, flat, n_categories=None, fractional=None
) -> ConcentrationFit:
    """The clamps, then Halley, on :class:`~heb.concentration_solver.WeightedItems`;
    ``fractional`` groups (see :func:`fit_segments`) are checked for every peak."""
    n_groups = items.n_groups
    m = np.ones(n_groups)
    clamped = np.zeros(n_groups, dtype=np.int8)
    iterations = np.zeros(n_groups, dtype=np.int64)
    converged = np.ones(n_groups, dtype=bool)

    # l'(m_min) > 0 is certain where every item counting one table outweighs the
    # documents' tables (m l'(m) = sum_items E(m t, n) - sum_docs E(m, N), with
    # E(c, n) = c [psi(c + n) - psi(c)] >= 1); elsewhere l'(m_min) is computed.
    doc_tables = m_min * (special.digamma(m_min + items.doc_total) - special.digamma(m_min))
    low_bound = items.distinct() - items.doc_sums(doc_tables)
    unsure = ~flat & (low_bound <= 0)
    if fractional is not None:  # a count under one counts less than a table
        unsure |= ~flat & fractional
    d1_lo = np.ones(n_groups)
    if unsure.any():
        d1_lo[unsure] = items.subset(unsure).d1_at(m_min)
    # every group's start: where it says m_max or above (often most groups: every
    # feature independent of the class), l'(m_max) without expanding any count, and
    # the groups it clamps never pay for a score; elsewhere Halley tries m_max itself
    # if its steps leave the top of the bracket (``top_open``)
    top = np.log(m_max)
    k = None if n_categories is None else np.asarray(n_categories, dtype=float)
    x0 = start_log_m(items, np.log(m_min), top, k)
    check_hi = ~flat & ((x0 >= top) | (d1_lo <= 0))
    d1_hi = np.full(n_groups, -1.0)  # unknown: not clamped unless Halley finds it so
    if check_hi.any():
        # most items to check: all of them, read off where checked (a subset costs
        # about what the unchecked rest does)
        if items.kept_share(check_hi) >= SUBSET_BELOW:
            d1_hi = np.where(check_hi, items.d1_at(m_max), d1_hi)
        else:
            d1_hi[check_hi] = items.subset(check_hi).d1_at(m_max)
    at_low = ~flat & (d1_lo <= 0)
    at_high = ~flat & (d1_hi >= 0)
    both = at_low & at_high  # a dip inside: the better end wins
    if both.any():
        dip = items.subset(both).score()
        ev_lo, ev_hi = dip.evidence(m_min), dip.evidence(m_max)
        high_wins = np.zeros(n_groups, dtype=bool)
        high_wins[both] = ev_hi > ev_lo
        at_low &= ~(both & high_wins)
        at_high &= ~(both & ~high_wins)
    m[at_low], clamped[at_low] = m_min, CLAMP_LOW
    m[at_high], clamped[at_high] = m_max, CLAMP_HIGH
    m[flat] = min(max(1.0, m_min), m_max)
    clamped[flat & (m_min > 1.0)] = CLAMP_LOW
    clamped[flat & (m_max < 1.0)] = CLAMP_HIGH

    solved = ~flat & ~at_low & ~at_high
    if solved.any():
        idx = np.flatnonzero(solved)
        lo = np.full(idx.size, np.log(m_min))
        hi = np.full(idx.size, top)
        sub = items if idx.size == n_groups else items.subset(solved)
        top_open = ~check_hi[idx]
        x, converged[idx], iterations[idx] = halley_log_m(sub.score(), x0[idx], lo, hi, top_open)
        m[idx] = np.clip(np.exp(x), m_min, m_max)
        reached = idx[x >= top]  # l'(m_max) >= 0 found by Halley
        m[reached], clamped[reached] = m_max, CLAMP_HIGH

    # pooled documents can give l several peaks (one document's l has one at most): the
    # clamps' slopes and Halley's start then pick one of them, the best must win
    several = items.documents() > 1.0
    if fractional is not None:
        several |= fractional
    pooled = np.flatnonzero(~flat & several)
    if pooled.size:
        _take_better_peaks(items, pooled, m_min, m_max, (m, clamped, iterations, converged))

    return ConcentrationFit(m, iterations, converged, clamped, _DeferredEvidence(items, m), flat)


def _take_better_peaks(items, groups, m_min, m_max, fit) -> None:
    """Where a peak of l, or an end l rises to, has more evidence than a group's fitted m,
    that m.

    For ``groups`` whose l can have several peaks (several documents, fractional counts):
    l' is read on a grid of :data:`PEAKS_PER_DECADE` points a decade of m (exactly, at one
    m for all the groups: no score); each cell where it turns from positive to negative
    holds a peak, solved by Halley inside the cell, and an end where l' still points to it
    (positive at m_max, negative at m_min) is a candidate too; the group takes its best
    candidate where that has more evidence than its m (a clamp, or the peak Halley found
    from its start). ``fit`` is (m, clamped, iterations, converged), updated in place. A
    peak and a dip both inside one cell are not seen (l' has the same sign at both ends
    of the cell).
    """
    m, clamped, iterations, converged = fit
    ratio = m_max / m_min  # a clamp as wide as 1e-3 .. 1e308 overflows: its decades from logs
    decades = np.log10(ratio) if np.isfinite(ratio) else np.log10(m_max) - np.log10(m_min)
    n_cells = max(1, int(np.ceil(PEAKS_PER_DECADE * decades)))
    grid = np.linspace(np.log(m_min), np.log(m_max), n_cells + 1)
    sub = items.take_groups(groups)
    per_call = max(1, GRID_CELLS // max(sub.item_count.size, 1))  # bounds the memory
    slopes = np.concatenate(
        [sub.d1_at(np.exp(grid[i : i + per_call])) for i in range(0, grid.size, per_call)]
    ).T
    rows, cells = np.nonzero((slopes[:, :-1] > 0) & (slopes[:, 1:] < 0))
    fitted = m[groups]
    top = np.flatnonzero((slopes[:, -1] > 0) & (fitted < m_max))
    bottom = np.flatnonzero((slopes[:, 0] < 0) & (fitted > m_min))
    # (rows, m, clamp flag, iterations, converged, its evidence, the fitted m's evidence)
    # of every candidate, each part's evidence read off its own score
    parts = []
    if rows.size:
        score = sub.take_groups(rows).score()
        lo, hi = grid[cells], grid[cells + 1]
        x, done, steps = halley_log_m(score, 0.5 * (lo + hi), lo, hi)
        peak_m = np.clip(np.exp(x), m_min, m_max)
        flags = np.full(rows.size, CLAMP_NONE, dtype=np.int8)
        evidence = score.evidence(peak_m), score.evidence(fitted[rows])
        parts.append((rows, peak_m, flags, steps, done, *evidence))
    ends = np.concatenate((top, bottom))
    if ends.size:
        end_m = np.r_[np.full(top.size, m_max), np.full(bottom.size, m_min)]
        flags = np.repeat(np.array([CLAMP_HIGH, CLAMP_LOW], dtype=np.int8), [top.size, bottom.size])
        score = sub.take_groups(ends).score()
        evidence = score.evidence(end_m), score.evidence(fitted[ends])
        no_steps, settled = np.zeros(ends.size, dtype=np.int64), np.ones(ends.size, dtype=bool)
        parts.append((ends, end_m, flags, no_steps, settled, *evidence))
    if not parts:
        return
    rows, peak_m, flags, steps, done, peak_evidence, fitted_evidence = (
        np.concatenate(p) for p in zip(*parts, strict=True)
    )
    # each group's best candidate, against the evidence at its fitted m
    order = np.lexsort((-peak_evidence, rows))
    best = order[np.flatnonzero(np.diff(rows[order], prepend=-1))]
    owners = groups[rows[best]]
    # a peak the fit already holds differs from it by rounding only: kept as fitted
    margin = PEAK_MARGIN * np.maximum(1.0, np.abs(fitted_evidence[best]))
    wins = peak_evidence[best] > fitted_evidence[best] + margin
    owners, best = owners[wins], best[wins]
    m[owners], clamped[owners] = peak_m[best], flags[best]
    iterations[owners], converged[owners] = steps[best], done[best]


class ConcentrationProblem:
    """The Type-II ML problem of many groups, gathered a part at a time.

    For callers whose items do not fit in memory at once (HEB-AODE): each part added is
    merged at once into unique (group, category, count) triples with multiplicities, so
    the memory held is that of the distinct triples, not of the items. The fit equals
    :func:`fit_concentration_segments` on all parts concatenated (to rounding).

    Parameters
    ----------
    n_groups : int
        Number of groups G.
    prior : ndarray (V,)
        Prior mean of every category id used by :meth:`add_items` (positive where used).

    Examples
    --------
    >>> problem = ConcentrationProblem(2, np.array([0.5, 0.5]))
    >>> problem.add_items([0, 0, 1], [0, 1, 1], [3.0, 1.0, 2.0])
    >>> problem.add_documents([0, 1], [4.0, 2.0])
    >>> fit = problem.fit()
    """

    def __init__(self, n_groups: int, prior: np.ndarray):
        self.n_groups = int(n_groups)
        self.prior = np.asarray(prior, dtype=np.float64)
        if self.prior.ndim != 1 or not np.all(np.isfinite(self.prior)):
            raise ValueError("The prior must be a 1-D array of finite prior means.")
        self._items: list[tuple] = []
        self._docs: list[tuple] = []
        self._premerged = False  # a part given with weights, not merged by add_items

    def add_items(self, item_group, item_category, item_count, item_weight=None) -> None:
        """Add non-zero counts: group, category id (index into ``prior``) and count > 0.

        ``item_weight`` (positive integers), if given, says how many identical items each
        entry stands for: the caller has merged the part already, and it is kept as it
        is until :meth:`fit` merges all parts (no sort here).
        """
        category = np.asarray(item_category, dtype=np.int64)
        if category.size and (category.min() < 0 or category.max() >= self.prior.size):
            raise ValueError(f"Category ids must lie in 0..{self.prior.size - 1}.")
        group, count, _ = _check_items(item_group, item_count, self.prior[category], self.n_groups)
        if category.shape != group.shape:
            raise ValueError("Item arrays and document arrays must be 1-D and of matching lengths.")
        if item_weight is None:
            merged = merge_duplicates(group, category, count, self.n_groups, self.prior.size)
        else:
            weight = np.asarray(item_weight, dtype=np.float64)
            if weight.shape != group.shape or not np.all((weight >= 1) & np.isfinite(weight)):
                raise ValueError("Item weights must be finite counts >= 1, one per item.")
            merged = (group, category, count, weight)
            self._premerged = True
        self._items.append(merged)

    def add_documents(self, doc_group, doc_total) -> None:
        """Add documents: group and total N_u > 0 (each document once over all parts)."""
        group, total = _check_documents(doc_group, doc_total, self.n_groups)
        zeros = np.zeros(group.size, dtype=np.int64)
        self._docs.append(merge_duplicates(group, zeros, total, self.n_groups, 1))

    @staticmethod
    def _merged(parts, n_groups, n_ids, premerged=False):
        """All parts as one set of unique (group, id, value) entries and their weights."""
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0), np.zeros(0)
        if len(parts) == 1 and not premerged:
            return parts[0]
        group, ids, values, weight = (np.concatenate(a) for a in zip(*parts, strict=True))
        merged = merge_duplicates(group, ids, values, n_groups, n_ids, weight)
        return (group, ids, values, weight) if merged is None else merged

    def _weighted_items(self) -> WeightedItems:
        """Every part added, merged into one :class:`WeightedItems` (weights always set)."""
        if any(part is None for part in self._items + self._docs):
            raise ValueError("Too many groups, categories and counts for one problem.")
        group, category, count, weight = self._merged(
            self._items, self.n_groups, self.prior.size, self._premerged
        )
        doc_group, _, doc_total, doc_weight = self._merged(self._docs, self.n_groups, 1)
        return WeightedItems(
            group, count, self.prior[category], doc_group, doc_total, self.n_groups, weight,
            doc_weight,
        )  # fmt: skip

    def fit(self, m_min: float = M_MIN, m_max: float = M_MAX) -> ConcentrationFit:
        """The clamped maximiser of every group's evidence (as fit_concentration_segments)."""
        _check_clamp(m_min, m_max)
        items = self._weighted_items()
        informative = items.doc_sums((items.doc_total >= 2).astype(np.float64))
        prior, count = items.item_prior, items.item_count
        degenerate = np.where((prior >= 1.0 - 1e-15) & (count >= 2), items.item_weight, 0.0)
        flat = informative <= np.bincount(items.item_group, degenerate, self.n_groups)
        return solve_weighted(items, m_min, m_max, flat)

    def evidence(self, m) -> np.ndarray:
        """l(m) of every group at ``m`` (scalar or per group), shape (G,): for groups whose
        m is set, not fitted, with the solver's own evidence."""
        return self._weighted_items().score().evidence(m)


def _rows_to_items(counts: np.ndarray, prior: np.ndarray):
    rows, cols = np.nonzero(counts)
    item_prior = prior[rows, cols] if prior.ndim == 2 else prior[cols]
    totals = counts.sum(axis=1)
    docs = np.flatnonzero(totals > 0)
    return rows, counts[rows, cols], item_prior, docs, totals[docs]


def _check_counts_prior(counts: np.ndarray, prior: np.ndarray) -> None:
    if counts.size == 0:
        raise ValueError("The count vector is empty (K = 0).")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("Counts must be finite and non-negative.")
    if not np.all(np.isfinite(prior)) or np.any(prior < 0):
        raise ValueError("The prior mean must be finite and non-negative.")
    sums = prior.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        raise ValueError("The prior mean must sum to 1.")


def fit_concentration_rows(
    counts: np.ndarray,
    prior_mean: np.ndarray,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> ConcentrationFit:
    """Fit one concentration per row of a (G, K) count matrix.

    Parameters
    ----------
    counts : ndarray (G, K)
        One count vector per row.
    prior_mean : ndarray (K,) or (G, K)
        The prior mean, shared or per row; each sums to 1.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    prior = np.asarray(prior_mean, dtype=np.float64)
    if prior.shape not in (counts.shape[1:], counts.shape):
        raise ValueError("prior_mean must have shape (K,) or (G, K) matching counts.")
    _check_counts_prior(counts, prior)
    rows, n, t, docs, totals = _rows_to_items(counts, prior)
    return fit_concentration_segments(rows, n, t, docs, totals, counts.shape[0], m_min, m_max)


def fit_concentration(
    counts: np.ndarray,
    prior_mean: np.ndarray,
    m_min: float = M_MIN,
    m_max: float = M_MAX,
) -> float:
    """Type-II ML concentration of one count vector toward ``prior_mean``, clamped.

    Parameters
    ----------
    counts : ndarray (K,)
        Non-negative counts n_v.
    prior_mean : ndarray (K,)
        Prior mean t_v (sums to 1; positive wherever a count is positive).
    m_min, m_max : float
        The clamp, default ``[1e-2, 1e4]``.

    Returns
    -------
    float
        The maximiser of l(m) in ``[m_min, m_max]``. Flat evidence (N <= 1, K = 1)
        returns Minka's starting value 1, clamped. No N0 fallback here.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1:
        raise ValueError("counts must be 1-D; use fit_concentration_rows for many vectors.")
    prior = np.asarray(prior_mean, dtype=np.float64)
    if prior.shape != counts.shape:
        raise ValueError("counts and prior_mean must have the same length.")
    return float(fit_concentration_rows(counts[None, :], prior, m_min, m_max).m[0])


def log_evidence(counts: np.ndarray, prior_mean: np.ndarray, m) -> np.ndarray:
    """The Dirichlet-multinomial log evidence l(m) of one count vector (paper eq. 5).

    ``m`` may be a scalar or an array; the result has its shape.
    """
    counts = np.asarray(counts, dtype=np.float64)
    prior = np.asarray(prior_mean, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if counts.ndim != 1 or prior.shape != counts.shape:
        raise ValueError("counts and prior_mean must be 1-D and of the same length.")
    if np.any(prior[counts > 0] <= 0):
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    if np.any(m <= 0):
        raise ValueError("The concentration m must be positive.")
    nz = counts > 0
    x = m[..., None] * prior[nz]
    total = counts.sum()
    return (
        special.gammaln(m)
        - special.gammaln(total + m)
        + (special.gammaln(x + counts[nz]) - special.gammaln(x)).sum(axis=-1)
    )


def grouped_log_evidence(counts, prior, doc_key, doc_totals, group_col, m_col, n_groups):
    """The log evidence l(m) (paper eq. 5) of many groups of documents at once, at the m
    each document used; shape (C * n_groups,), row-major (class, group).

    ``counts`` (C, J) holds every document's count vectors side by side: column j is a
    category of the document ``doc_key[j]`` of group ``group_col[j]``, whose class-wise
    total is ``doc_totals[:, j]``, prior mean ``prior`` (broadcast to ``counts``) and
    concentration ``m_col[:, j]`` (one value per document). A group's evidence is the sum
    over its documents; m = inf is its limit, sum n log t. One document per (class,
    feature) gives :func:`log_evidence` of every pair (:func:`heb.nb.pair_log_evidence`);
    one per parent node, a hierarchy level's (:mod:`heb.hierarchy`).
    """
    C = counts.shape[0]
    prior = np.broadcast_to(prior, counts.shape)
    x = m_col * prior
    with np.errstate(divide="ignore", invalid="ignore"):  # x = 0 where a prior mean is 0
        finite = special.gammaln(x + counts) - special.gammaln(x)
        item = np.where(np.isinf(m_col), counts * np.log(prior), finite)
    item = np.where(counts > 0, item, 0.0)
    first = np.unique(doc_key, return_index=True)[1]
    m_doc, n_doc = m_col[:, first], doc_totals[:, first]
    with np.errstate(invalid="ignore"):
        doc = special.gammaln(m_doc) - special.gammaln(n_doc + m_doc)
    doc = np.where((n_doc > 0) & np.isfinite(m_doc), doc, 0.0)
    rows = np.arange(C)[:, None] * n_groups
    out = np.bincount((rows + group_col).ravel(), item.ravel(), C * n_groups)
    return out + np.bincount((rows + group_col[first]).ravel(), doc.ravel(), C * n_groups)
