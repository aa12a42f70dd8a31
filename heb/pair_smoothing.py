"""Smoothing of joint counts: pair concentrations by Type-II ML and conditional log tables.

A child's table under a parent, P(x_j = v | y, x_i = u), is smoothed as
(N_{y,u,v} + a_v) / (N_{y,u} + m): Laplace-style with a_v = 1 (AODE), or toward a prior
mean t with a_v = m t_v and m per (pair, class) shared over the parent's values u and
learned by the multi-document Type-II ML of the paper's eq. 11-12 (HEB-AODE, HEB-TAN).
:mod:`heb.aode` and :mod:`heb.tan` both smooth their :class:`~heb.joint_counts.JointCounts`
through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heb.concentration import CLAMP_NONE, ConcentrationFit, ConcentrationProblem
from heb.counts import category_offsets
from heb.joint_counts import JointCounts

__all__ = [
    "PairConcentrations",
    "count_log_conditionals",
    "conditional_log_probs",
    "fit_pair_concentrations",
    "log_denominators",
]

_CLAMP_NAMES = np.array(["low", "none", "high"])
#: counts up to this are merged into weights by a bincount per part (the others by a sort)
_DENSE_COUNT = 64
#: bound on that bincount's bins per stored count of the part
_BINS_PER_COUNT = 4


@dataclass(frozen=True)
class PairConcentrations:
    """The learned m of every (pair, class) group and what the solve saw.

    Attributes
    ----------
    m : ndarray (P, C)
        The concentration of each group (K_child where the fallback applies).
    fit : ConcentrationFit
        The solver's result over the P * C groups in (pair, class) order.
    fallback : ndarray (P, C) of bool
        Groups whose best-populated parent value has fewer than ``n0`` rows.
    doc_group, doc_total : ndarray (D,)
        Every document (parent value u with N_{c,u} > 0): its group and its total.
    prior, column_offsets : ndarray
        The prior mean t of every category and where each child's categories start in it.
    """

    m: np.ndarray
    fit: ConcentrationFit
    fallback: np.ndarray
    doc_group: np.ndarray
    doc_total: np.ndarray
    prior: np.ndarray
    column_offsets: np.ndarray

    def diagnostics(self, joint: JointCounts) -> dict[str, np.ndarray]:
        """One entry per (pair, class) group: class, parent, child, K_child, N, n_values, m,
        rho (m / (N_{c,u} + m) averaged over the parent values seen), iterations, converged,
        clamped, log_evidence and fallback.

        A fallback group's log evidence is its documents' at the m = K_child and the
        prior mean it uses (:meth:`fallback_log_evidence`); the solver, which never saw
        its counts, reports 0 for it, which would read as an evidence of probability 1."""
        C, P = joint.n_classes, joint.n_pairs
        m_flat = self.m.ravel()
        group = self.doc_group
        n_values = np.bincount(group, minlength=P * C)
        shrink = np.bincount(
            group, weights=m_flat[group] / (self.doc_total + m_flat[group]), minlength=P * C
        )
        rho = np.where(n_values > 0, shrink / np.maximum(n_values, 1), 1.0)
        fb = self.fallback.ravel()
        fit = self.fit
        return {
            "class": np.tile(np.arange(C), P),
            "parent": np.repeat(joint.parent, C),
            "child": np.repeat(joint.child, C),
            "K_child": np.repeat(joint.n_categories[joint.child], C),
            "N": np.bincount(group, weights=self.doc_total, minlength=P * C),
            "n_values": n_values,
            "m": m_flat.copy(),
            "rho": rho,
            "iterations": np.where(fb, 0, fit.iterations),
            "converged": np.where(fb, True, fit.converged),
            "clamped": _CLAMP_NAMES[np.where(fb, CLAMP_NONE, fit.clamped) + 1],
            "log_evidence": np.where(fb, self.fallback_log_evidence(joint), fit.log_evidence),
            "fallback": fb,
        }

    def fallback_log_evidence(self, joint: JointCounts) -> np.ndarray:
        """The log evidence l(m) (paper eq. 5) of every fallback group at its m, summed over
        its documents u (each its counts N_{c,u,v} over the child's values); 0 for the
        groups the solver fitted. Shape (P * C,), (pair, class) order.

        The fallback groups' counts and documents go to a problem of their own, a part of
        the counts at a time as the fit's did, whose evidence at the set m is the solver's.
        """
        fb = self.fallback.ravel()
        if not fb.any():
            return np.zeros(fb.size)
        problem = ConcentrationProblem(fb.size, self.prior)
        for part in joint.parts():
            _add_part_items(problem, joint, part, fb, self.column_offsets)
        docs = fb[self.doc_group]
        problem.add_documents(self.doc_group[docs], self.doc_total[docs])
        return np.where(fb, problem.evidence(self.m.ravel()), 0.0)


def fit_pair_concentrations(
    joint: JointCounts,
    totals: np.ndarray,
    prior: np.ndarray,
    column_offsets: np.ndarray,
    n0: float,
    m_min: float,
    m_max: float,
) -> PairConcentrations:
    """Multi-document Type-II ML m_{c,i,j} for every (pair, class) group (paper eq. 11-12).

    Parameters
    ----------
    joint : JointCounts
    totals : ndarray (sum_p K_parent, C)
        ``joint.parent_totals()``.
    prior : ndarray (V,)
        The prior mean t of every category, in the columns of ``column_offsets``.
    column_offsets : ndarray (F + 1,)
        Where each child feature's categories start in ``prior``.
    n0, m_min, m_max : float
        A group whose largest document has fewer than ``n0`` rows gets m = K_j
        (Algorithm 2, step 7); the others are clamped to [m_min, m_max].

    Documents are the parent values u with N_{c,u} > 0; items the non-zero N_{c,u,v} with
    the child's prior mean. The items go to one :class:`~heb.concentration.ConcentrationProblem`
    a part of the stored counts at a time, merged into weights as they come, and all
    groups are solved at once.
    """
    C, P = joint.n_classes, joint.n_pairs
    rows = joint.parent_offsets
    doc_pair = np.repeat(np.arange(P), np.diff(rows))
    # every pair has K_i >= 1 rows in ``totals``, so reduceat sees no empty segment
    largest = np.maximum.reduceat(totals, rows[:-1], axis=0) if P else np.zeros((0, C))
    fallback = largest < n0
    solve = ~fallback.ravel()

    problem = ConcentrationProblem(P * C, prior)
    for part in joint.parts():  # the items of the groups solved, a bounded part at a time
        _add_part_items(problem, joint, part, solve, column_offsets)
    doc_row, doc_cls = np.nonzero(totals)
    doc_group = doc_pair[doc_row] * C + doc_cls
    doc_total = totals[doc_row, doc_cls]
    doc_keep = solve[doc_group]
    problem.add_documents(doc_group[doc_keep], doc_total[doc_keep])
    fit = problem.fit(m_min, m_max)
    k_child = joint.n_categories[joint.child].astype(np.float64)
    m = np.where(fallback, k_child[:, None], fit.m.reshape(P, C))
    return PairConcentrations(
        m, fit, fallback, doc_group, doc_total, np.asarray(prior), np.asarray(column_offsets)
    )


def _add_part_items(
    problem: ConcentrationProblem,
    joint: JointCounts,
    part: slice,
    solve: np.ndarray,
    column_offsets: np.ndarray,
) -> None:
    """Add the stored counts ``part`` of the groups ``solve`` as (group, category, count) items.

    A part's pairs are consecutive, so its counts up to a bound (most of them) are merged
    into weights by one ``bincount`` over (pair, class, child value, count) of the pairs
    it spans, bins bounded by a few per stored count; larger counts (and a part with a
    fractional count) are added one by one, for the problem to merge by a sort.
    """
    C = joint.n_classes
    pair, cls_idx, _, v = joint.decode(part)
    if pair.size == 0:
        return
    count = joint.counts[part]
    first = int(pair[0])
    k_spanned = joint.n_categories[joint.child[first : int(pair[-1]) + 1]]
    block = category_offsets(k_spanned * C)  # each spanned pair: C runs of K_child bins
    top = min(_DENSE_COUNT, _BINS_PER_COUNT * count.size // max(int(block[-1]), 1) - 1)
    whole = count.astype(np.int64)
    if top < 1 or not np.array_equal(whole, count):
        kept = np.flatnonzero(solve[pair * C + cls_idx])
        _add_items(problem, joint, pair[kept], cls_idx[kept], v[kept], count[kept], column_offsets)
        return
    # bin (pair, class, v) x count 1..top, and one more bin for every count above top
    local = pair - first
    key = k_spanned.take(local)
    key *= cls_idx
    key += block.take(local)
    key += v
    key *= top + 1
    key += np.minimum(whole, top + 1)
    key -= 1
    weight = np.bincount(key)
    found = np.flatnonzero(weight)
    bin_of, n_minus_one = np.divmod(found, top + 1)
    at = np.searchsorted(block, bin_of, side="right") - 1
    cls_found, v_found = np.divmod(bin_of - block[at], k_spanned[at])
    at += first
    merged = (n_minus_one < top) & solve[at * C + cls_found]
    problem.add_items(
        at[merged] * C + cls_found[merged],
        column_offsets[joint.child[at[merged]]] + v_found[merged],
        n_minus_one[merged] + 1.0,
        weight[found[merged]],
    )
    large = np.flatnonzero(whole > top)
    large = large[solve[pair[large] * C + cls_idx[large]]]
    _add_items(problem, joint, pair[large], cls_idx[large], v[large], count[large], column_offsets)


def _add_items(problem, joint, pair, cls_idx, v, count, column_offsets) -> None:
    """Add items one by one (the problem merges them)."""
    if pair.size:
        group = pair * joint.n_classes + cls_idx
        problem.add_items(group, column_offsets[joint.child[pair]] + v, count)


def log_denominators(joint: JointCounts, totals: np.ndarray, m: np.ndarray) -> np.ndarray:
    """log (N_{c,u} + m_{p,c}) of every parent value row of ``totals``, shape (rows, C)."""
    pair_of_row = np.repeat(np.arange(joint.n_pairs), np.diff(joint.parent_offsets))
    return np.log(totals + m[pair_of_row])


def count_log_conditionals(
    joint: JointCounts,
    part: slice,
    log_den: np.ndarray,
    m: np.ndarray,
    prior: np.ndarray | None,
    column_offsets: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """log (N_{c,u,v} + a_v) - log (N_{c,u} + m) of the stored counts ``part``.

    ``a_v`` is ``m t_v`` with ``t = prior`` (``column_offsets`` places each child's
    categories in it), or 1 where ``prior`` is None (Laplace). Returns (pair, class,
    parent value u, child value v, log value), as :meth:`JointCounts.decode` plus the value.
    """
    pair, cls_idx, u, v = joint.decode(part)
    row = joint.parent_offsets[pair] + u
    if prior is None:
        pseudo = 1.0
    else:
        pseudo = m[pair, cls_idx] * prior[column_offsets[joint.child[pair]] + v]
    value = np.log(joint.counts[part] + pseudo) - log_den[row, cls_idx]
    return pair, cls_idx, u, v, value


def conditional_log_probs(
    joint: JointCounts,
    totals: np.ndarray,
    m: np.ndarray,
    prior: np.ndarray | None,
    seen: np.ndarray,
) -> np.ndarray:
    """log P(x_j = v | y, x_i = u) of every cell of ``joint``, shape (cells, C).

    Cell ``offsets[p] + u K_j + v`` of pair p holds log (N_{c,u,v} + a_v) - log (N_{c,u} +
    m_{p,c}) with a_v = m t_v (``prior`` t over every category, columns in feature order) or
    1 (``prior`` None); a child category that is not ``seen`` (never scored) holds 0.
    """
    P, k = joint.n_pairs, joint.n_categories
    column_offsets = category_offsets(k)
    log_den = log_denominators(joint, totals, m)
    pair = np.repeat(np.arange(P), np.diff(joint.offsets))
    child = joint.child[pair]
    u, v = np.divmod(np.arange(joint.n_cells) - joint.offsets[pair], k[child])
    column = column_offsets[child] + v
    out = -log_den[joint.parent_offsets[pair] + u]  # (cells, C): the zero-count value
    if prior is not None:
        with np.errstate(divide="ignore"):
            out += np.log(m[pair] * prior[column][:, None])
    out[~seen[column]] = 0.0
    for part in joint.parts():  # the non-zero counts
        pair_n, cls_idx, u_n, v_n, value = count_log_conditionals(
            joint, part, log_den, m, prior, column_offsets
        )
        out[joint.offsets[pair_n] + u_n * k[joint.child[pair_n]] + v_n, cls_idx] = value
    return out
