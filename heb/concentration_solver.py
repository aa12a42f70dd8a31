"""The batched Type-II ML solver behind :mod:`heb.concentration`.

:class:`WeightedItems` holds the non-zero counts ("items") and document totals of many
groups sorted by group, optionally merged into unique (group, prior, count) triples with
multiplicities (:func:`merge_duplicates`): the evidence, its score and every sum of the
solver are linear in the items, so a triple of weight w stands exactly for w items.
:func:`start_log_m` gives a closed-form start and :func:`halley_log_m` the safeguarded
Halley iteration in log m; :mod:`heb.concentration_score` evaluates the derivatives.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from heb.concentration_score import Runs, Score, group_bounds, ragged_arange

__all__ = ["WeightedItems", "merge_duplicates", "start_log_m", "halley_log_m"]

#: Halley stops after a step (and a Newton step) below this in log m: the error after
#: it is ~ C step**3 (C about 0.5 on the benchmark grid: 6e-10 relative in m; SPEC allows
#: 1e-6 against Minka's fixed point, which the tests check). 3e-3 would do for SPEC, but
#: HEB-H without a hierarchy must equal HEB-M's log table to 1e-9 along another path.
STEP_TOL = 1e-3
#: :meth:`WeightedItems.d1_at` sums the terms of counts up to this one, not digamma
CLOSED_COUNT = 6
#: bisection stops when the bracket in log m is this narrow
BRACKET_TOL = 1e-12
MAX_ITER = 100
#: the solver drops finished groups from a score of more terms than this
RESTRICT_TERMS = 50_000
_KEY_LIMIT = 2**62


def _codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of ``values`` and the table they index (no sort for small integers)."""
    if values.size and values.max() < 2**31 and np.all(values == np.rint(values)):
        return values.astype(np.int64), np.arange(float(values.max()) + 1.0)
    table = np.unique(values)
    return np.searchsorted(table, values), table


def merge_duplicates(group, prior_id, count, n_groups, n_priors, weight=None):
    """Unique (group, prior id, count) triples, sorted, and their summed weights.

    ``weight`` None counts each entry once. Returns None if the combined key would
    overflow (the caller then keeps the entries as they are).
    """
    count_id, count_values = _codes(count)
    n_counts = max(count_values.size, 1)
    if max(n_groups, 1) * max(n_priors, 1) * n_counts >= _KEY_LIMIT:
        return None
    key = (group * n_priors + prior_id) * n_counts + count_id
    if weight is None:
        keys, summed = np.unique(key, return_counts=True)
        summed = summed.astype(np.float64)
    else:  # parts arrive as sorted runs, which a stable sort (timsort) merges
        order = np.argsort(key, kind="stable")
        key = key[order]
        first = np.flatnonzero(np.diff(key, prepend=-1))  # keys are non-negative
        keys = key[first]
        summed = np.add.reduceat(weight[order], first) if first.size else np.zeros(0)
    keys, count_id = np.divmod(keys, n_counts)
    group, prior_id = np.divmod(keys, n_priors)
    return group, prior_id, count_values[count_id], summed


def _sorted(group: np.ndarray, *arrays):
    """``group`` and ``arrays`` (None allowed) reordered so that ``group`` is non-decreasing."""
    if group.size < 2 or not np.any(group[1:] < group[:-1]):
        return group, arrays
    order = np.argsort(group, kind="stable")
    return group[order], tuple(None if a is None else a[order] for a in arrays)


class WeightedItems:
    """Items (group, count, prior mean, weight) and documents (group, total, weight) of
    many groups, sorted by group; a weight of None means one per entry."""

    def __init__(self, item_group, item_count, item_prior, doc_group, doc_total, n_groups,
                 item_weight=None, doc_weight=None):  # fmt: skip
        self.item_group, (self.item_count, self.item_prior, self.item_weight) = _sorted(
            item_group, item_count, item_prior, item_weight
        )
        self.doc_group, (self.doc_total, self.doc_weight) = _sorted(
            doc_group, doc_total, doc_weight
        )
        self.n_groups = n_groups
        self.item_bounds = group_bounds(self.item_group, n_groups)

    @classmethod
    def merged(cls, item_group, item_count, item_prior, doc_group, doc_total, n_groups):
        """The same data with identical items and documents merged into weights.

        Pays where groups pool many documents (HEB-AODE's parent values): the same
        (prior, count) item and the same document total recur across them.
        """
        # few distinct priors: a sort of them and a search is cheaper than an argsort
        prior_values = np.unique(item_prior)
        prior_id = np.searchsorted(prior_values, item_prior)
        items = merge_duplicates(item_group, prior_id, item_count, n_groups, prior_values.size)
        zeros = np.zeros(doc_group.size, dtype=np.int64)
        docs = merge_duplicates(doc_group, zeros, doc_total, n_groups, 1)
        if items is None or docs is None:
            return cls(item_group, item_count, item_prior, doc_group, doc_total, n_groups)
        group, pid, count, weight = items
        return cls(group, count, prior_values[pid], docs[0], docs[2], n_groups, weight, docs[3])

    def _item_sums(self, values=None) -> np.ndarray:
        """Per-group sums of w * values over the items (values None: of w)."""
        w = self.item_weight
        if values is None:
            values = np.ones(self.item_group.size) if w is None else w
        elif w is not None:
            values = values * w
        return Runs(np.arange(self.n_groups), np.diff(self.item_bounds), self.n_groups).sum(values)

    def distinct(self) -> np.ndarray:
        """Items per group (weighted), shape (G,)."""
        if self.item_weight is None:
            return np.diff(self.item_bounds).astype(np.float64)
        return self._item_sums()

    def totals(self) -> np.ndarray:
        """Sum of the document totals per group, shape (G,)."""
        w = self.doc_total if self.doc_weight is None else self.doc_total * self.doc_weight
        return np.bincount(self.doc_group, w, self.n_groups)

    def doc_sums(self, values: np.ndarray) -> np.ndarray:
        """Per-group sums of w * values over the documents (on the last axis of
        ``values``), shape (..., G)."""
        w = values if self.doc_weight is None else values * self.doc_weight
        if w.ndim == 1:
            return np.bincount(self.doc_group, w, self.n_groups)
        return Runs.of_sorted(self.doc_group, self.n_groups).sum(w)

    def kept_share(self, keep: np.ndarray) -> float:
        """The share of the items that belong to the groups where ``keep`` is true."""
        sizes = np.diff(self.item_bounds)
        return float(sizes[keep].sum()) / max(int(self.item_bounds[-1]), 1)

    def subset(self, keep: np.ndarray) -> WeightedItems:
        """The items and documents of the groups where ``keep`` is true, renumbered."""
        return self.take_groups(np.flatnonzero(keep))

    def take_groups(self, index: np.ndarray) -> WeightedItems:
        """The items and documents of the groups ``index`` (repeats allowed), the r-th
        of them renumbered r."""
        index = np.asarray(index, dtype=np.int64)
        renumbered = np.arange(index.size)
        out = object.__new__(WeightedItems)
        starts = self.item_bounds[index]
        sizes = self.item_bounds[index + 1] - starts
        items = ragged_arange(starts, sizes)
        out.item_group = np.repeat(renumbered, sizes)
        out.item_bounds = np.concatenate(([0], np.cumsum(sizes)))
        out.item_count = self.item_count.take(items)
        out.item_prior = self.item_prior.take(items)
        out.item_weight = None if self.item_weight is None else self.item_weight.take(items)
        doc_bounds = group_bounds(self.doc_group, self.n_groups)
        starts = doc_bounds[index]
        sizes = doc_bounds[index + 1] - starts
        docs = ragged_arange(starts, sizes)
        out.doc_group = np.repeat(renumbered, sizes)
        out.doc_total = self.doc_total.take(docs)
        out.doc_weight = None if self.doc_weight is None else self.doc_weight.take(docs)
        out.n_groups = int(index.size)
        return out

    def documents(self) -> np.ndarray:
        """Documents per group (weighted), shape (G,)."""
        return np.bincount(self.doc_group, self.doc_weight, self.n_groups)

    def score(self) -> Score:
        """The score of these groups, for derivatives at per-group m and the evidence."""
        return Score(
            (self.item_group, self.item_prior, self.item_count, self.item_weight),
            (self.doc_group, self.doc_total, self.doc_weight),
            self.n_groups,
        )

    def d1_at(self, m) -> np.ndarray:
        """Exact l'(m) of every group at one common m, shape (G,), or at each value of a
        1-D ``m``, shape (len(m), G), without expanding any count.

        Every item's k = 0 term is t / (m t) = 1 / m; counts 2 .. :data:`CLOSED_COUNT`
        add the closed forms t / (m t + k), k < n, the others use digamma.
        """
        values = np.asarray(m, dtype=np.float64)
        grid = values.reshape(-1, 1)  # one row per m
        out = self.distinct() / grid
        # most items of a large table have a count of one: only the others add terms
        multi = np.flatnonzero(self.item_count != 1.0)
        if multi.size:
            n = self.item_count.take(multi)
            t = self.item_prior.take(multi)
            x = grid * t
            closed = (n <= CLOSED_COUNT) & (n == np.rint(n))  # integers 2 .. CLOSED_COUNT
            terms = np.empty(x.shape)
            few = np.flatnonzero(closed)
            t_few, x_few, n_few = t.take(few), x[:, few], n.take(few)
            sums = t_few / (x_few + 1.0)
            for k in range(2, CLOSED_COUNT):
                sums += np.where(n_few > k, t_few, 0.0) / (x_few + k)
            terms[:, few] = sums
            many = np.flatnonzero(~closed)
            t, n, x = t.take(many), n.take(many), x[:, many]
            terms[:, many] = t * (special.digamma(x + n) - special.digamma(x)) - 1.0 / grid
            out += self._group_sums(multi, terms)
        docs = special.digamma(grid + self.doc_total) - special.digamma(grid)
        out -= self.doc_sums(docs)
        return out if values.ndim else out[0]

    def _group_sums(self, index: np.ndarray, terms: np.ndarray) -> np.ndarray:
        """Per-group sums of w * ``terms`` of the items ``index`` (increasing), shape (G,)."""
        if self.item_weight is not None:
            terms = terms * self.item_weight.take(index)
        runs = Runs.of_sorted(self.item_group.take(index), self.n_groups)
        return runs.sum(terms)


def start_log_m(sub: WeightedItems, lo, hi, n_categories=None) -> np.ndarray:
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
            terms = np.square(sub.item_count)
            terms /= sub.item_prior  # in place: one item-long temporary
            chi2 = sub._item_sums(terms) / total - total  # items sorted: runs, no bincount
            r = chi2 / (n_categories - 1.0)
            moments = np.log(np.where(r > 1.0, (total - r) / (r - 1.0), np.inf))
            x = np.fmax(x, moments)
    return np.clip(np.where(np.isnan(x), hi, x), lo, hi)


def halley_log_m(score: Score, x: np.ndarray, lo: np.ndarray, hi: np.ndarray, top_open=None):
    """Safeguarded Halley iteration on g(x) = m l'(m), x = log m, for every group.

    Every group has g(lo) > 0 > g(hi), except that where ``top_open`` is true the sign
    of g at the initial ``hi`` (the clamp m_max) is not known: a step beyond it from
    where g > 0 goes to it instead, and g(hi) >= 0 there returns exactly ``hi`` (the
    caller's clamp). A step leaving the bracket [lo, hi] (kept updated from the sign of
    g) is otherwise replaced by bisection. Halley's cubic convergence
    needs about one iteration fewer than Newton's. A group is done after a step below
    ``STEP_TOL`` whose Newton step g / g' is below it too (so a small Halley step far
    from the root, where its denominator is large, cannot stop it; g = 0 gives a zero
    step) or once its bracket is narrower than ``BRACKET_TOL``. Returns x, converged and
    iterations per group.
    """
    n_groups = x.size
    x_out = x.copy()
    converged = np.zeros(n_groups, dtype=bool)
    iterations = np.full(n_groups, MAX_ITER, dtype=np.int64)
    live = np.arange(n_groups)  # index into the output of each group of ``score``
    running = np.ones(n_groups, dtype=bool)
    top = hi.copy()
    top_open = np.zeros(n_groups, dtype=bool) if top_open is None else top_open.copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for iteration in range(1, MAX_ITER + 1):
            mm = np.exp(x)
            d = score.derivatives(mm)
            # g = m l'(m) and its first two derivatives in x = log m
            g = d[0] * mm
            curve = d[1] * (mm * mm)
            dg = g + curve
            ddg = dg + 2.0 * curve + d[2] * (mm * mm * mm)
            lo = np.where((g > 0) | ((g == 0) & (x >= top)), x, lo)  # at the top: done
            hi = np.where(g < 0, x, hi)
            step = 2.0 * g * dg / (2.0 * dg * dg - g * ddg)
            x_new = x - step
            ok = (x_new > lo) & (x_new < hi)
            jump = ~ok & top_open & (x_new >= hi) & (hi >= top)  # try the top itself
            top_open &= ~jump
            x_new = np.where(ok, x_new, np.where(jump, top, 0.5 * (lo + hi)))
            small = (np.abs(step) < STEP_TOL) & (np.abs(g) < STEP_TOL * np.abs(dg))
            done = running & ((ok & small) | (hi - lo < BRACKET_TOL))
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
                if 2 * n_running <= running.size and score.size > RESTRICT_TERMS:
                    live, x, lo, hi = live[running], x[running], lo[running], hi[running]
                    top, top_open = top[running], top_open[running]
                    score = score.restrict(running)
                    running = np.ones(n_running, dtype=bool)
        else:
            x_out[live[running]] = x[running]
    return x_out, converged, iterations
