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
   is evaluated exactly for all groups at once, without expanding any count (a count of
   one contributes exactly 1 / m, counts of two and three closed forms, others digamma).
2. The remaining groups run a safeguarded Halley iteration in ``x = log m`` on
   g(x) = m l'(m), kept inside the sign-change bracket, from a closed-form start (a
   Chinese-restaurant estimate and, for single documents, the method of moments); two
   to four iterations. There, an integer count n <= ``_SMALL_COUNT`` is expanded into the
   exact rational terms of ``psi(x + n) - psi(x) = sum_{k<n} 1 / (x + k)``, and sums
   over groups are ``np.add.reduceat`` over runs of terms sorted by group.
3. The evidence l(m) is diagnostics only: a fit computes it on first access.

Zero counts contribute nothing, so only non-zero counts are stored ("items").
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "ConcentrationFit",
    "fit_concentration",
    "fit_concentration_rows",
    "fit_concentration_segments",
    "fit_segments",
    "log_evidence",
    "M_MIN",
    "M_MAX",
]

M_MIN = 1e-2
M_MAX = 1e4
#: counts up to this value are expanded into exact rational terms
_SMALL_COUNT = 16
#: Halley stops after a step below this in log m (the error after it is ~ step**3)
_STEP_TOL = 1e-4
#: bisection stops when the bracket in log m is this narrow
_BRACKET_TOL = 1e-12
_MAX_ITER = 100
#: the solver drops finished groups from a score of more terms than this
_RESTRICT_TERMS = 50_000

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
        access (it is diagnostics only); an array may also be passed in directly.
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
        if isinstance(self._log_evidence, _DeferredEvidence):
            self._log_evidence = self._log_evidence.compute()
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

    def __init__(self, items: _Items, m: np.ndarray):
        self.items, self.m = items, m.copy()

    def compute(self) -> np.ndarray:
        return self.items.score().evidence(self.m)


def _polygamma_1_2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """psi'(x) and psi''(x) for x > 0 to about 1e-5 relative (two recurrence steps, then
    the asymptotic series).

    Only the solver's curvature terms use them (the root is set by the exact score), so
    this short form replaces ``scipy.special.polygamma``, which is about 15 times slower.
    """
    r0 = 1.0 / x
    r1 = 1.0 / (x + 1.0)
    z = 1.0 / (x + 2.0)
    z2 = z * z
    r0_2, r1_2 = r0 * r0, r1 * r1
    tri = r0_2 + r1_2 + z + z2 * (0.5 + z * (1.0 / 6.0 + z2 * (-1.0 / 30.0 + z2 / 42.0)))
    tetra = -2.0 * (r0_2 * r0 + r1_2 * r1) - z2 * (
        1.0 + z * (1.0 + z * (0.5 + z2 * (-1.0 / 6.0 + z2 / 6.0)))
    )
    return tri, tetra


class _Runs:
    """Per-group sums over terms stored in contiguous runs, one run per group (reduceat)."""

    def __init__(self, present: np.ndarray, sizes: np.ndarray, n_groups: int):
        keep = sizes > 0
        self.present, self.sizes, self.n_groups = present[keep], sizes[keep], n_groups
        self.starts = np.cumsum(self.sizes) - self.sizes
        self.size = int(self.sizes.sum())

    @classmethod
    def of_sorted(cls, group: np.ndarray, n_groups: int) -> _Runs:
        """The runs of a non-decreasing array of group ids."""
        bounds = np.searchsorted(group, np.arange(n_groups + 1))
        return cls(np.arange(n_groups), np.diff(bounds), n_groups)

    def spread(self, per_group: np.ndarray) -> np.ndarray:
        """A per-group array repeated onto the terms."""
        return np.repeat(per_group[self.present], self.sizes)

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per-group sums of ``values`` (terms on the last axis), shape (..., G)."""
        out = np.zeros(values.shape[:-1] + (self.n_groups,))
        if self.size:
            out[..., self.present] = np.add.reduceat(values, self.starts, axis=-1)
        return out

    def restrict(self, keep: np.ndarray, new_id: np.ndarray, n_new: int):
        """The runs of the groups where ``keep`` is true (renumbered) and a term mask."""
        sel = keep[self.present]
        runs = _Runs(new_id[self.present[sel]], self.sizes[sel], n_new)
        return runs, np.flatnonzero(np.repeat(sel, self.sizes))


class _Rational:
    """The terms 1 / (m + a), a = k / t, k = 1 .. n - 1, of small integer counts n.

    ``t [psi(m t + n) - psi(m t)] = 1 / m + sum_{k=1}^{n-1} 1 / (m + k / t)`` exactly.
    """

    def __init__(self, runs: _Runs, a: np.ndarray):
        self.runs, self.a = runs, a

    @classmethod
    def expand(cls, t: np.ndarray, reps: np.ndarray, bounds: np.ndarray):
        """Expand items sorted by group into ``reps`` = n - 1 terms each (0: none).

        ``bounds[g]:bounds[g + 1]`` are the items of group g.
        """
        ends = np.cumsum(reps)
        total = int(ends[-1]) if reps.size else 0
        k = np.arange(1.0, total + 1.0)
        k -= np.repeat(ends - reps, reps)
        sizes = np.diff(np.concatenate(([0], ends))[bounds])
        n_groups = bounds.size - 1
        return cls(_Runs(np.arange(n_groups), sizes, n_groups), k / np.repeat(t, reps))

    def restrict(self, keep, new_id, n_new) -> _Rational:
        runs, mask = self.runs.restrict(keep, new_id, n_new)
        return _Rational(runs, self.a.take(mask))

    def derivatives(self, m: np.ndarray):
        """Sums of 1 / (m + a), -1 / (m + a)^2 and 2 / (m + a)^3 per group, shape (3, G)."""
        if not self.runs.size:
            return 0.0
        q = np.empty((3, self.a.size))
        np.divide(1.0, self.runs.spread(m) + self.a, out=q[0])
        np.multiply(q[0], q[0], out=q[1])
        np.multiply(q[1], q[0], out=q[2])
        sums = self.runs.sum(q)
        sums[1] *= -1.0
        sums[2] *= 2.0
        return sums

    def log_sum(self, m: np.ndarray) -> np.ndarray | float:
        """Sum of log(m + a) per group."""
        if not self.runs.size:
            return 0.0
        return self.runs.sum(np.log(self.runs.spread(m) + self.a))


class _Score:
    """The score l'(m), curvature l''(m) and evidence l(m) of many groups, vectorised.

    An integer count n <= ``_SMALL_COUNT`` contributes exact rational terms (its k = 0
    term is 1 / m, counted once per item in ``coef0``); larger or fractional counts use
    digamma. Item terms count positively, document-total terms (prior mean 1) negatively.
    """

    def __init__(self, item_group, item_t, item_n, doc_group, doc_n, n_groups):
        self.n_groups = n_groups
        item_group, (item_t, item_n) = _sorted(item_group, item_t, item_n)
        doc_group, (doc_n,) = _sorted(doc_group, doc_n)
        small = (item_n <= _SMALL_COUNT) & (item_n == np.rint(item_n))
        small_doc = (doc_n <= _SMALL_COUNT) & (doc_n == np.rint(doc_n))
        item_bounds = np.searchsorted(item_group, np.arange(n_groups + 1))
        doc_bounds = np.searchsorted(doc_group, np.arange(n_groups + 1))
        # rational k = 0 terms and log(m) terms of the evidence: items minus documents
        self.coef0 = np.diff(np.concatenate(([0], np.cumsum(small)))[item_bounds]) - np.diff(
            np.concatenate(([0], np.cumsum(small_doc)))[doc_bounds]
        ).astype(np.float64)
        self.items = _Rational.expand(
            item_t, np.where(small, item_n - 1.0, 0.0).astype(np.int64), item_bounds
        )
        if small_doc.any():
            doc_reps = np.where(small_doc, doc_n - 1.0, 0.0).astype(np.int64)
            self.docs = _Rational.expand(np.ones(doc_n.size), doc_reps, doc_bounds)
        else:
            self.docs = _Rational(_Runs(np.arange(0), np.arange(0), n_groups), np.zeros(0))
        # the evidence's constant sum over small counts of n log t
        self.item_runs = _Runs(np.arange(n_groups), np.diff(item_bounds), n_groups)
        self.item_t, self.item_n, self.small = item_t, item_n, small
        self._log_t_sum = None
        big, big_doc = np.flatnonzero(~small), np.flatnonzero(~small_doc)
        self._set_digamma(
            np.concatenate([item_group.take(big), doc_group.take(big_doc)]),
            np.concatenate([item_t.take(big), np.ones(big_doc.size)]),
            np.concatenate([item_n.take(big), doc_n.take(big_doc)]),
            np.concatenate([np.ones(big.size), -np.ones(big_doc.size)]),
        )

    def _set_digamma(self, group, t, n, sign):
        self.d_group, self.d_t, self.d_n, self.d_sign = group, t, n, sign
        self.d_st = sign * t
        self.d_stt = self.d_st * t
        self.d_sttt = self.d_stt * t
        self.d_group3 = np.concatenate([group, group + self.n_groups, group + 2 * self.n_groups])

    @property
    def size(self) -> int:
        """Number of terms evaluated per call."""
        return self.items.a.size + self.docs.a.size + self.d_n.size

    def restrict(self, keep: np.ndarray) -> _Score:
        """The same score over the groups where ``keep`` is true, renumbered 0..A-1.

        The copy evaluates derivatives only (no evidence).
        """
        out = object.__new__(_Score)
        n_new = int(keep.sum())
        new_id = np.cumsum(keep) - 1
        out.n_groups = n_new
        out.coef0 = self.coef0[keep]
        out.items = self.items.restrict(keep, new_id, n_new)
        out.docs = self.docs.restrict(keep, new_id, n_new) if self.docs.runs.size else self.docs
        d = np.flatnonzero(keep[self.d_group])
        out._set_digamma(
            new_id[self.d_group.take(d)], self.d_t.take(d), self.d_n.take(d), self.d_sign.take(d)
        )
        return out

    def derivatives(self, m: np.ndarray) -> np.ndarray:
        """First (exact), second and third (to about 1e-5) derivatives of l, shape (3, G)."""
        inv = 1.0 / m
        out = np.empty((3, self.n_groups))
        np.multiply(self.coef0, inv, out=out[0])
        np.multiply(out[0], -inv, out=out[1])
        np.multiply(out[1], -2.0 * inv, out=out[2])
        out += self.items.derivatives(m)
        out -= self.docs.derivatives(m)
        if self.d_n.size:
            x = m[self.d_group] * self.d_t
            both = np.concatenate([x + self.d_n, x])
            half = x.size
            dig = special.digamma(both)
            tri, tetra = _polygamma_1_2(both)
            weights = np.concatenate(
                [
                    self.d_st * (dig[:half] - dig[half:]),
                    self.d_stt * (tri[:half] - tri[half:]),
                    self.d_sttt * (tetra[:half] - tetra[half:]),
                ]
            )
            out += np.bincount(self.d_group3, weights, 3 * self.n_groups).reshape(3, -1)
        return out

    def evidence(self, m) -> np.ndarray:
        """l(m) for every group (m scalar or per group).

        For a small count, log G(m t + n) - log G(m t) = n log t + log m
        + sum_{k=1}^{n-1} log(m + k / t).
        """
        m = np.broadcast_to(np.asarray(m, dtype=np.float64), (self.n_groups,))
        if self._log_t_sum is None:
            self._log_t_sum = self.item_runs.sum(
                np.where(self.small, self.item_n * np.log(self.item_t), 0.0)
            )
        out = self._log_t_sum + self.coef0 * np.log(m)
        out += self.items.log_sum(m) - self.docs.log_sum(m)
        if self.d_n.size:
            x = m[self.d_group] * self.d_t
            terms = self.d_sign * (special.gammaln(x + self.d_n) - special.gammaln(x))
            out += np.bincount(self.d_group, terms, self.n_groups)
        return out


def _sorted(group: np.ndarray, *arrays: np.ndarray):
    """``group`` and ``arrays`` reordered so that ``group`` is non-decreasing (stable)."""
    if group.size < 2 or not np.any(group[1:] < group[:-1]):
        return group, arrays
    order = np.argsort(group, kind="stable")
    return group[order], tuple(a[order] for a in arrays)


def _start(sub: _Items, lo: np.ndarray, hi: np.ndarray, n_categories=None) -> np.ndarray:
    """A starting log m per group, from two closed-form estimates.

    1. Every observed category is at least one "table" of the Polya urn, so the
       maximiser lies at or above roughly the m where a Chinese restaurant with N
       customers fills D (distinct observed categories) tables: m log(1 + N / m) = D,
       solved with Lambert's W (plus a half, as it is a lower estimate).
    2. With K_f known (single-document groups), the method of moments: X^2 =
       sum_v n_v^2 / (N t_v) - N has mean (K - 1)(N + m) / (1 + m).
    The larger of the two is taken; the solver only needs a good start, not a bound.
    """
    distinct, total = sub.distinct(), sub.totals()
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.clip(distinct / total, 1e-12, 1.0 - 1e-9)
        w = -special.lambertw(-ratio * np.exp(-ratio), k=-1).real / ratio
        x = np.log(total / (w - 1.0)) + 0.5
        if n_categories is not None:
            terms = sub.item_count * sub.item_count / sub.item_prior
            chi2 = np.bincount(sub.item_group, terms, sub.n_groups) / total - total
            r = chi2 / (n_categories - 1.0)
            moments = np.log(np.where(r > 1.0, (total - r) / (r - 1.0), np.inf))
            x = np.fmax(x, moments)
    return np.clip(np.where(np.isnan(x), hi, x), lo, hi)


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
    if not 0 < m_min <= m_max:
        raise ValueError(f"Need 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")
    item_group = np.asarray(item_group, dtype=np.int64)
    item_count = np.asarray(item_count, dtype=np.float64)
    item_prior = np.asarray(item_prior, dtype=np.float64)
    doc_group = np.asarray(doc_group, dtype=np.int64)
    doc_total = np.asarray(doc_total, dtype=np.float64)
    shapes = {item_group.shape, item_count.shape, item_prior.shape}
    if len(shapes) != 1 or item_group.ndim != 1 or doc_group.shape != doc_total.shape:
        raise ValueError("Item arrays and document arrays must be 1-D and of matching lengths.")
    for ids in (item_group, doc_group):
        if ids.size and (ids.min() < 0 or ids.max() >= n_groups):
            raise ValueError(f"Group ids must lie in 0..{n_groups - 1}.")
    if not np.all(np.isfinite(item_prior)):
        raise ValueError("The prior mean must be finite.")
    if np.any(item_prior <= 0):
        raise ValueError("A category with a positive count has prior mean 0: the evidence is -inf.")
    if not (np.all(item_count > 0) and np.all(np.isfinite(item_count))):
        raise ValueError("Item counts must be positive and finite (store non-zero counts only).")
    if not (np.all(doc_total > 0) and np.all(np.isfinite(doc_total))):
        raise ValueError("Document totals must be positive and finite.")
    # Flat evidence: every document has N <= 1, or all its mass sits on a category
    # whose prior mean is 1 (K = 1); each such document's score is identically zero.
    informative_docs = np.bincount(doc_group[doc_total >= 2], minlength=n_groups)
    degenerate = (item_prior >= 1.0 - 1e-15) & (item_count >= 2)
    flat = informative_docs <= np.bincount(item_group[degenerate], minlength=n_groups)
    return fit_segments(
        item_group, item_count, item_prior, doc_group, doc_total, n_groups, m_min, m_max, flat
    )


class _Items:
    """The non-zero counts ("items") and document totals of many groups, sorted by group."""

    def __init__(self, item_group, item_count, item_prior, doc_group, doc_total, n_groups):
        self.item_group, (self.item_count, self.item_prior) = _sorted(
            item_group, item_count, item_prior
        )
        self.doc_group, (self.doc_total,) = _sorted(doc_group, doc_total)
        self.n_groups = n_groups
        self.item_bounds = np.searchsorted(self.item_group, np.arange(n_groups + 1))

    def distinct(self) -> np.ndarray:
        """Items per group, shape (G,)."""
        return np.diff(self.item_bounds).astype(np.float64)

    def totals(self) -> np.ndarray:
        """Sum of the document totals per group, shape (G,)."""
        return np.bincount(self.doc_group, self.doc_total, self.n_groups)

    def subset(self, keep: np.ndarray) -> _Items:
        """The items and documents of the groups where ``keep`` is true, renumbered."""
        new_id = np.cumsum(keep) - 1
        items = np.flatnonzero(np.repeat(keep, np.diff(self.item_bounds)))
        docs = np.flatnonzero(keep[self.doc_group])
        out = object.__new__(_Items)
        out.item_group = new_id.take(self.item_group.take(items))
        out.item_count = self.item_count.take(items)
        out.item_prior = self.item_prior.take(items)
        out.doc_group = new_id.take(self.doc_group.take(docs))
        out.doc_total = self.doc_total.take(docs)
        out.n_groups = int(keep.sum())
        out.item_bounds = np.searchsorted(out.item_group, np.arange(out.n_groups + 1))
        return out

    def score(self) -> _Score:
        """The score of these groups, for derivatives at per-group m and the evidence."""
        return _Score(
            self.item_group,
            self.item_prior,
            self.item_count,
            self.doc_group,
            self.doc_total,
            self.n_groups,
        )

    def d1_at(self, m: float) -> np.ndarray:
        """Exact l'(m) of every group at one common m, without expanding any count.

        Every item's k = 0 term is t / (m t) = 1 / m; counts of 2 and 3 add the closed
        forms t / (m t + 1) and t / (m t + 2); the others use digamma.
        """
        out = self.distinct() / m
        count = self.item_count
        small = (count == 2.0) | (count == 3.0)
        few = np.flatnonzero(small)
        if few.size:
            t = self.item_prior.take(few)
            x = m * t
            terms = t / (x + 1.0) + (count.take(few) - 2.0) * t / (x + 2.0)
            out += self._group_sums(few, terms)
        many = np.flatnonzero(~small & (count != 1.0))
        if many.size:
            t = self.item_prior.take(many)
            n = count.take(many)
            x = m * t
            terms = t * (special.digamma(x + n) - special.digamma(x)) - 1.0 / m
            out += self._group_sums(many, terms)
        docs = special.digamma(m + self.doc_total) - special.digamma(m)
        return out - np.bincount(self.doc_group, docs, self.n_groups)

    def _group_sums(self, index: np.ndarray, terms: np.ndarray) -> np.ndarray:
        """Per-group sums of ``terms`` of the items ``index`` (increasing), shape (G,)."""
        runs = _Runs.of_sorted(self.item_group.take(index), self.n_groups)
        out = np.zeros(self.n_groups)
        out[runs.present] = np.add.reduceat(terms, runs.starts)
        return out


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
) -> ConcentrationFit:
    """The solver behind :func:`fit_concentration_segments`, on input already validated.

    Callers that build the segments themselves (:func:`heb.smoothing.learn_concentrations`)
    call it directly and skip the checks.

    ``flat`` (G,) marks the groups whose evidence is constant in m. ``n_categories``
    (G,), the number of categories of positive prior mean, may be given for groups of
    one document each: it sharpens the solver's starting point.
    """
    items = _Items(item_group, item_count, item_prior, doc_group, doc_total, n_groups)
    m = np.ones(n_groups)
    clamped = np.zeros(n_groups, dtype=np.int8)
    iterations = np.zeros(n_groups, dtype=np.int64)
    converged = np.ones(n_groups, dtype=bool)

    # l'(m_min) > 0 is certain where every item counting one table outweighs the
    # documents' tables (m l'(m) = sum_items E(m t, n) - sum_docs E(m, N), with
    # E(c, n) = c [psi(c + n) - psi(c)] >= 1); elsewhere l'(m_min) is computed.
    doc_tables = m_min * (special.digamma(m_min + items.doc_total) - special.digamma(m_min))
    low_bound = items.distinct() - np.bincount(items.doc_group, doc_tables, n_groups)
    unsure = ~flat & (low_bound <= 0)
    d1_lo = np.ones(n_groups)
    if unsure.any():
        d1_lo[unsure] = items.subset(unsure).d1_at(m_min)
    d1_hi = items.d1_at(m_max)
    at_low = ~flat & (d1_lo <= 0)
    at_high = ~flat & (d1_hi >= 0)
    both = at_low & at_high  # a dip inside: the better end wins
    if both.any():
        score = items.subset(both).score()
        ev_lo, ev_hi = score.evidence(m_min), score.evidence(m_max)
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
        sub = items.subset(solved)
        lo = np.full(idx.size, np.log(m_min))
        hi = np.full(idx.size, np.log(m_max))
        k = None if n_categories is None else np.asarray(n_categories, dtype=float)[idx]
        x0 = _start(sub, lo, hi, k)
        x, converged[idx], iterations[idx] = _halley_log_m(sub.score(), x0, lo, hi)
        m[idx] = np.clip(np.exp(x), m_min, m_max)

    return ConcentrationFit(m, iterations, converged, clamped, _DeferredEvidence(items, m), flat)


def _halley_log_m(score: _Score, x: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Safeguarded Halley iteration on g(x) = m l'(m), x = log m, for every group.

    Every group has g(lo) > 0 > g(hi). A step leaving the bracket [lo, hi] (kept
    updated from the sign of g) is replaced by bisection. Halley's cubic convergence
    needs about one iteration fewer than Newton's. A group is done after a step below
    ``_STEP_TOL`` (g = 0 gives a zero step) or once its bracket is narrower than
    ``_BRACKET_TOL``. Returns x, converged and iterations per group.
    """
    n_groups = x.size
    x_out = x.copy()
    converged = np.zeros(n_groups, dtype=bool)
    iterations = np.full(n_groups, _MAX_ITER, dtype=np.int64)
    live = np.arange(n_groups)  # index into the output of each group of ``score``
    running = np.ones(n_groups, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for iteration in range(1, _MAX_ITER + 1):
            mm = np.exp(x)
            d = score.derivatives(mm)
            # g = m l'(m) and its first two derivatives in x = log m
            g = d[0] * mm
            curve = d[1] * (mm * mm)
            dg = g + curve
            ddg = dg + 2.0 * curve + d[2] * (mm * mm * mm)
            lo = np.where(g > 0, x, lo)
            hi = np.where(g < 0, x, hi)
            step = 2.0 * g * dg / (2.0 * dg * dg - g * ddg)
            x_new = x - step
            ok = (x_new > lo) & (x_new < hi)
            x_new = np.where(ok, x_new, 0.5 * (lo + hi))
            done = running & ((ok & (np.abs(step) < _STEP_TOL)) | (hi - lo < _BRACKET_TOL))
            x = np.where(running, x_new, x)
            if done.any():
                finished = live[done]
                x_out[finished] = x[done]
                converged[finished] = True
                iterations[finished] = iteration
                running &= ~done
                n_running = int(running.sum())
                if n_running == 0:
                    break
                # restricting costs about one evaluation: only worth it for big scores
                if 2 * n_running <= running.size and score.size > _RESTRICT_TERMS:
                    live, x, lo, hi = live[running], x[running], lo[running], hi[running]
                    score = score.restrict(running)
                    running = np.ones(n_running, dtype=bool)
        else:
            x_out[live[running]] = x[running]
    return x_out, converged, iterations


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
