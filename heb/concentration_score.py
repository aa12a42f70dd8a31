"""The score l'(m), its curvature and the evidence l(m) of many groups of weighted counts.

Each group's data is a set of items (prior mean t, count n, weight w: w identical
non-zero counts) and documents (total N, weight w). An integer count n <=
:data:`SMALL_COUNT` is expanded into the exact rational terms of
``t [psi(m t + n) - psi(m t)] = 1 / m + sum_{k=1}^{n-1} 1 / (m + k / t)``; sums over
groups are ``np.add.reduceat`` over runs of terms sorted by group. Larger or fractional
counts use digamma. Item terms count positively, document terms (prior mean 1) negatively.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "SMALL_COUNT",
    "Runs",
    "RationalTerms",
    "Score",
    "polygamma_1_2",
    "group_bounds",
    "ragged_arange",
]

#: counts up to this value are expanded into exact rational terms
SMALL_COUNT = 16
#: terms evaluated per pass of a chunk (a 128 KB row: small temporaries reuse memory)
CHUNK_TERMS = 16_384


def group_bounds(group: np.ndarray, n_groups: int) -> np.ndarray:
    """``bounds[g]:bounds[g + 1]`` are the entries of group g in a sorted id array."""
    return np.searchsorted(group, np.arange(n_groups + 1))


def ragged_arange(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(starts[r], starts[r] + lengths[r])`` over r.

    Costs the entries it returns only (an arange shifted run by run), never an array as
    long as the one the runs index.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if lengths.size else 0
    shift = np.asarray(starts, dtype=np.int64) - ends + lengths
    return np.arange(total) + np.repeat(shift, lengths)


def polygamma_1_2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


class Runs:
    """Per-group sums over terms stored in contiguous runs, one run per group (reduceat)."""

    def __init__(self, present: np.ndarray, sizes: np.ndarray, n_groups: int):
        keep = sizes > 0
        self.present, self.sizes, self.n_groups = present[keep], sizes[keep], n_groups
        self.starts = np.cumsum(self.sizes) - self.sizes
        self.size = int(self.sizes.sum())

    @classmethod
    def of_sorted(cls, group: np.ndarray, n_groups: int) -> Runs:
        """The runs of a non-decreasing array of group ids."""
        return cls(np.arange(n_groups), np.diff(group_bounds(group, n_groups)), n_groups)

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
        runs = Runs(new_id[self.present[sel]], self.sizes[sel], n_new)
        return runs, np.flatnonzero(np.repeat(sel, self.sizes))


def _scatter_terms(t, reps, ends, total, weight):
    """The terms k / t (and weights) of :meth:`RationalTerms.expand`, item-major, built
    one k at a time: k = 1 .. max(reps) <= SMALL_COUNT slices of the items with reps >= k.

    ``numpy.repeat`` pays per item, which dominates when most items repeat once or twice;
    a stable 8-bit argsort of the items with terms and one scatter per k do not. The
    values equal repeat's.
    """
    # only the items with terms (most items of a large-K table have a count of one)
    some = np.flatnonzero(reps)
    reps = reps.take(some)
    order = some.take(np.argsort(reps.astype(np.int8), kind="stable"))  # reps < 128
    first = np.concatenate(([0], np.cumsum(np.bincount(reps, minlength=SMALL_COUNT + 1))))
    at, t_sorted = ends.take(order), t.take(order)
    # each item's first term: its end less its reps (the sorted reps are runs of 0 .. 16)
    at -= np.repeat(np.arange(SMALL_COUNT + 1, dtype=np.int8), np.diff(first))
    a = np.empty(total)
    w = None if weight is None else np.empty(total)
    w_sorted = None if weight is None else weight.take(order)
    # one index and one value buffer for every k: fresh temporaries per k cost page faults
    index_buffer, value_buffer = np.empty(at.size, dtype=at.dtype), np.empty(at.size)
    for k in range(1, int(reps.max()) + 1):  # at most SMALL_COUNT values, not items
        lo = int(first[k])  # the items with reps >= k
        index = np.add(at[lo:], k - 1, out=index_buffer[: at.size - lo])
        a[index] = np.divide(k, t_sorted[lo:], out=value_buffer[: at.size - lo])
        if w is not None:
            w[index] = w_sorted[lo:]
    return a, w


class RationalTerms:
    """The terms w / (m + a), a = k / t, k = 1 .. n - 1, of small integer counts n.

    ``weight`` is None where every term has weight one.
    """

    def __init__(self, runs: Runs, a: np.ndarray, weight: np.ndarray | None):
        self.runs, self.a, self.weight = runs, a, weight
        self._chunk_list: list[tuple[int, int, int, int]] | None = None

    @classmethod
    def expand(cls, t, reps, bounds, weight=None) -> RationalTerms:
        """Expand items sorted by group into ``reps`` = n - 1 terms each (0: none).

        ``bounds[g]:bounds[g + 1]`` are the items of group g; ``weight`` (optional) the
        multiplicity of each item.
        """
        ends = np.cumsum(reps)
        total = int(ends[-1]) if reps.size else 0
        # terms before each group's first item (no item-long concatenation)
        before = ends.take(np.maximum(bounds - 1, 0)) if reps.size else np.zeros(bounds.size)
        sizes = np.diff(np.where(bounds > 0, before, 0))
        n_groups = bounds.size - 1
        runs = Runs(np.arange(n_groups), sizes, n_groups)
        if total and reps.max() <= SMALL_COUNT:
            return cls(runs, *_scatter_terms(t, reps, ends, total, weight))
        k = np.arange(1.0, total + 1.0)
        k -= np.repeat(ends - reps, reps)
        w = None if weight is None else np.repeat(weight, reps)
        return cls(runs, k / np.repeat(t, reps), w)

    @classmethod
    def expand_shared(cls, group, t, reps, weight, n_groups) -> RationalTerms:
        """Like :meth:`expand`, but adjacent items of equal (group, t) share their terms.

        Their terms k / t, k = 1 .. max(reps), are stored once, each weighted by the
        summed weight of the items with reps >= k (a difference array, exact for integer
        weights). Items must be sorted by group; sorting by t within a group shares more.
        """
        if not group.size:
            return cls.empty(n_groups)
        new_block = np.ones(group.size, dtype=bool)
        new_block[1:] = (group[1:] != group[:-1]) | (t[1:] != t[:-1])
        first = np.flatnonzero(new_block)
        length = np.maximum.reduceat(reps, first)
        starts = np.cumsum(length) - length
        total = int(length.sum())
        start_of_item = np.repeat(starts, np.diff(np.append(first, group.size)))
        change = np.bincount(start_of_item, weight, total + 1)
        change -= np.bincount(start_of_item + reps, weight, total + 1)
        k = np.arange(1.0, total + 1.0) - np.repeat(starts, length)
        sizes = np.bincount(group[first], length, n_groups).astype(np.int64)
        runs = Runs(np.arange(n_groups), sizes, n_groups)
        return cls(runs, k / np.repeat(t[first], length), np.cumsum(change)[:total])

    @classmethod
    def empty(cls, n_groups: int) -> RationalTerms:
        return cls(Runs(np.arange(0), np.arange(0), n_groups), np.zeros(0), None)

    def restrict(self, keep, new_id, n_new) -> RationalTerms:
        runs, mask = self.runs.restrict(keep, new_id, n_new)
        weight = None if self.weight is None else self.weight.take(mask)
        return RationalTerms(runs, self.a.take(mask), weight)

    def _chunks(self) -> list[tuple[int, int, int, int]]:
        """(first term, end term, first run, end run) of consecutive runs of at most
        :data:`CHUNK_TERMS` terms together (a longer run is a chunk of its own)."""
        if self._chunk_list is None:
            ends = self.runs.starts + self.runs.sizes
            bounds, run = [0], 0
            while run < ends.size:
                base = self.runs.starts[run]
                nxt = int(np.searchsorted(ends, base + CHUNK_TERMS, side="right"))
                run = max(nxt, run + 1)
                bounds.append(run)
            starts = np.append(self.runs.starts, self.runs.size)
            self._chunk_list = [
                (int(starts[lo]), int(starts[hi]), lo, hi)
                for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
            ]
        return self._chunk_list

    def _run_sums(self, m: np.ndarray, n_rows: int, fill) -> np.ndarray:
        """Per-group sums of ``n_rows`` functions of the terms, a chunk at a time.

        ``fill(work)`` turns ``work[0]`` (m + a of terms lo:hi) into the rows of
        ``work`` in place. Reusing one chunk-sized buffer keeps every temporary small,
        so no call touches fresh pages (a fresh multi-megabyte temporary costs more
        page faults than the arithmetic itself).
        """
        runs = self.runs
        m_runs = m[runs.present]
        sums = np.empty((n_rows, runs.present.size))
        chunks = self._chunks()
        widest = max(hi - lo for lo, hi, _, _ in chunks)
        buffer = np.empty((n_rows, widest))
        for lo, hi, run_lo, run_hi in chunks:
            work = buffer[:, : hi - lo]
            np.add(np.repeat(m_runs[run_lo:run_hi], runs.sizes[run_lo:run_hi]), self.a[lo:hi],
                   out=work[0])  # fmt: skip
            fill(work)
            if self.weight is not None:
                work *= self.weight[lo:hi]
            sums[:, run_lo:run_hi] = np.add.reduceat(work, runs.starts[run_lo:run_hi] - lo, axis=1)
        out = np.zeros((n_rows, runs.n_groups))
        out[:, runs.present] = sums
        return out

    def derivatives(self, m: np.ndarray):
        """Sums of w / (m + a), -w / (m + a)^2 and 2 w / (m + a)^3 per group, shape (3, G)."""
        if not self.runs.size:
            return 0.0

        def powers(work):
            np.divide(1.0, work[0], out=work[0])
            np.multiply(work[0], work[0], out=work[1])
            np.multiply(work[1], work[0], out=work[2])

        sums = self._run_sums(m, 3, powers)
        sums[1] *= -1.0
        sums[2] *= 2.0
        return sums

    def first_sum(self, m: np.ndarray) -> np.ndarray | float:
        """Sum of w / (m + a) per group (the first row of :meth:`derivatives`)."""
        if not self.runs.size:
            return 0.0
        return self._run_sums(m, 1, lambda work: np.divide(1.0, work[0], out=work[0]))[0]

    def log_sum(self, m: np.ndarray) -> np.ndarray | float:
        """Sum of w log(m + a) per group."""
        if not self.runs.size:
            return 0.0
        return self._run_sums(m, 1, lambda work: np.log(work[0], out=work[0]))[0]


def _group_sums(bounds: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per-group sums of ``values`` sorted by group with ``bounds`` (G + 1,)."""
    return np.diff(np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))[bounds])


class Score:
    """l'(m), l''(m), l'''(m) and l(m) of many groups of weighted items, vectorised.

    Items and documents must be sorted by group; a weight of None means all ones. The
    k = 0 rational term of a small count is w / m, counted in ``coef0``.
    """

    def __init__(self, items, docs, n_groups):
        item_group, item_t, item_n, item_w = items
        doc_group, doc_n, doc_w = docs
        self.n_groups = n_groups
        # the counts as 8-bit integers (SMALL_COUNT + 1 for larger ones): at millions of
        # items every 64-bit temporary costs page faults
        capped = np.minimum(item_n, SMALL_COUNT + 1.0)
        count8 = capped.astype(np.int8)
        small = (count8 <= SMALL_COUNT) & (count8 == capped)  # integer counts <= 16
        del capped
        small_doc = (doc_n <= SMALL_COUNT) & (doc_n == np.rint(doc_n))
        item_bounds = group_bounds(item_group, n_groups)
        doc_bounds = group_bounds(doc_group, n_groups)
        ones_i = small if item_w is None else np.where(small, item_w, 0.0)
        ones_d = small_doc if doc_w is None else np.where(small_doc, doc_w, 0.0)
        big, big_doc = np.flatnonzero(~small), np.flatnonzero(~small_doc)
        if item_w is None:  # small items per group: all but the (few) big ones, exactly
            small_items = np.diff(item_bounds) - np.bincount(item_group.take(big), None, n_groups)
        else:
            small_items = _group_sums(item_bounds, ones_i)
        # rational k = 0 terms and log(m) terms of the evidence: items minus documents
        self.coef0 = small_items - _group_sums(doc_bounds, ones_d)
        reps = np.where(small, count8 - np.int8(1), np.int8(0))  # n - 1 terms, int8
        if item_w is None:
            self.items = RationalTerms.expand(item_t, reps, item_bounds)
        else:  # merged items: equal (group, t) recur with different counts
            reps = reps.astype(np.int64)
            self.items = RationalTerms.expand_shared(item_group, item_t, reps, item_w, n_groups)
        if small_doc.any():
            doc_reps = np.where(small_doc, doc_n - 1.0, 0.0).astype(np.int64)
            ones = np.ones(doc_n.size)
            if doc_w is None:
                self.docs = RationalTerms.expand(ones, doc_reps, doc_bounds)
            else:
                self.docs = RationalTerms.expand_shared(doc_group, ones, doc_reps, doc_w, n_groups)
        else:
            self.docs = RationalTerms.empty(n_groups)
        # the evidence's constant sum over small counts of w n log t
        self._log_t = (item_bounds, item_t, item_n, ones_i)
        self._log_t_sum = None
        w_big = np.ones(big.size) if item_w is None else item_w.take(big)
        w_doc = np.ones(big_doc.size) if doc_w is None else doc_w.take(big_doc)
        self._set_digamma(
            np.concatenate([item_group.take(big), doc_group.take(big_doc)]),
            np.concatenate([item_t.take(big), np.ones(big_doc.size)]),
            np.concatenate([item_n.take(big), doc_n.take(big_doc)]),
            np.concatenate([w_big, -w_doc]),
        )

    def _set_digamma(self, group, t, n, sign):
        """Digamma terms: ``sign`` is the signed weight (+w items, -w documents)."""
        self.d_group, self.d_t, self.d_n, self.d_sign = group, t, n, sign
        self.d_st = sign * t
        self.d_stt = self.d_st * t
        self.d_sttt = self.d_stt * t

    @property
    def size(self) -> int:
        """Number of terms evaluated per call."""
        return self.items.a.size + self.docs.a.size + self.d_n.size

    def restrict(self, keep: np.ndarray) -> Score:
        """The same score over the groups where ``keep`` is true, renumbered 0..A-1.

        The copy evaluates derivatives only (no evidence).
        """
        out = object.__new__(Score)
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
            x_n = x + self.d_n
            group, n_groups = self.d_group, self.n_groups
            out[0] += np.bincount(group, self.d_st * (special.digamma(x_n) - special.digamma(x)),
                                  n_groups)  # fmt: skip
            tri_n, tetra_n = polygamma_1_2(x_n)
            tri, tetra = polygamma_1_2(x)
            out[1] += np.bincount(group, self.d_stt * (tri_n - tri), n_groups)
            out[2] += np.bincount(group, self.d_sttt * (tetra_n - tetra), n_groups)
        return out

    def first_derivative(self, m: np.ndarray) -> np.ndarray:
        """l'(m) alone (exact), for per-group m, shape (G,): the clamp tests' one pass."""
        out = self.coef0 / m
        out += self.items.first_sum(m)
        out -= self.docs.first_sum(m)
        if self.d_n.size:
            x = m[self.d_group] * self.d_t
            dig = special.digamma(x + self.d_n) - special.digamma(x)
            out += np.bincount(self.d_group, self.d_st * dig, self.n_groups)
        return out

    def evidence(self, m) -> np.ndarray:
        """l(m) for every group (m scalar or per group).

        For a small count, log G(m t + n) - log G(m t) = n log t + log m
        + sum_{k=1}^{n-1} log(m + k / t).
        """
        m = np.broadcast_to(np.asarray(m, dtype=np.float64), (self.n_groups,))
        if self._log_t_sum is None:
            bounds, t, n, w = self._log_t
            runs = Runs(np.arange(self.n_groups), np.diff(bounds), self.n_groups)
            self._log_t_sum = runs.sum(w * n * np.log(t))
        out = self._log_t_sum + self.coef0 * np.log(m)
        out += self.items.log_sum(m) - self.docs.log_sum(m)
        if self.d_n.size:
            x = m[self.d_group] * self.d_t
            terms = self.d_sign * (special.gammaln(x + self.d_n) - special.gammaln(x))
            out += np.bincount(self.d_group, terms, self.n_groups)
        return out
