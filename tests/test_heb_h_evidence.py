"""HEB-H's pairs report the log evidence of the m they use: a fallback pair (fewer than
n0 rows) and a level given a fixed m reported the evidence at the m the solver learned
and the pair does not use (a flat feature's fallback pair read HEB-M's learned-m
evidence, not the evidence at m = K_f that HEB-M itself reports)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import heb.hierarchy as hierarchy
from heb import NaiveBayes
from heb.concentration import grouped_log_evidence
from heb.counts import CountTable

RNG = np.random.default_rng(3)
X_FLAT = RNG.integers(0, 5, (300, 3))
Y_FLAT = (X_FLAT[:, 0] + RNG.integers(0, 3, 300) > 4).astype(int)
LEAF = RNG.integers(0, 12, 600)
X_TREE = np.c_[LEAF, RNG.integers(0, 3, 600)]
Y_TREE = (LEAF // 4 + RNG.integers(0, 2, 600) > 1).astype(int)
TREE = {0: [np.arange(12) // 4]}


@pytest.mark.filterwarnings(r"ignore:NaiveBayes\('heb-h'\) was given no hierarchies")  # on purpose
def test_a_flat_features_fallback_pairs_report_heb_ms_evidence_at_k():
    heb_m = NaiveBayes("heb-m", n0=1000).fit(X_FLAT, Y_FLAT).concentrations_
    heb_h = NaiveBayes("heb-h", n0=1000).fit(X_FLAT, Y_FLAT).concentrations_
    assert np.all(heb_h["fallback"]) and np.array_equal(heb_h["m"], heb_m["m"])
    np.testing.assert_allclose(heb_h["log_evidence"], heb_m["log_evidence"], rtol=1e-12)
    # by hand, class 0 and feature 0: Dirichlet(5 t) with t the pooled marginal
    counts = np.bincount(X_FLAT[Y_FLAT == 0, 0], minlength=5)
    t = np.bincount(X_FLAT[:, 0], minlength=5) / len(X_FLAT)
    hand = (
        special.gammaln(5)
        - special.gammaln(counts.sum() + 5)
        + np.sum(special.gammaln(5 * t + counts) - special.gammaln(5 * t))
    )
    assert heb_h["log_evidence"][0] == pytest.approx(hand, rel=1e-12)


def test_the_level_evidence_equals_the_solvers_at_the_learned_m(monkeypatch):
    """:func:`heb.concentration.grouped_log_evidence` at each level's learned m is the solver's
    own evidence, in both forms: the formula the fallback pairs get is the solver's."""
    calls = []
    solve = hierarchy._fit_level

    def recorded(block, prior, doc_key, totals, f_col, F, m_min, m_max):
        fit = solve(block, prior, doc_key, totals, f_col, F, m_min, m_max)
        calls.append((block, prior, doc_key, totals, f_col, F, fit))
        return fit

    monkeypatch.setattr(hierarchy, "_fit_level", recorded)
    table = CountTable.from_codes(X_TREE, Y_TREE, 2)
    for form in ("tree", "prior-mean"):
        hierarchy.fit_nested(table, TREE, form=form, select=None)
    assert len(calls) == 4  # two levels of feature 0 (feature 1 at the leaf step), two forms
    for block, prior, doc_key, totals, f_col, F, fit in calls:
        C = block.shape[0]
        m_col = fit.m.reshape(C, F)[:, f_col]
        used = grouped_log_evidence(block, prior, doc_key, totals, f_col, m_col, F)
        pairs = np.unique((np.arange(C)[:, None] * F + f_col).ravel())
        np.testing.assert_allclose(used[pairs], fit.log_evidence[pairs], rtol=1e-10)


def test_a_tree_falls_back_to_children_per_parent_and_reports_that_evidence():
    fitted = NaiveBayes("heb-h", n0=10_000, hierarchies=TREE).fit(X_TREE, Y_TREE)
    diag = fitted.concentrations_
    learned = NaiveBayes("heb-h", n0=1, hierarchies=TREE).fit(X_TREE, Y_TREE).concentrations_
    assert np.all(diag["fallback"])
    assert np.all(np.isfinite(diag["log_evidence"])) and np.all(diag["log_evidence"] < 0)
    # the leaf level of feature 0 uses m = 4 (children per parent), not the learned m
    assert not np.allclose(diag["log_evidence"], learned["log_evidence"])


def test_a_fixed_level_reports_the_evidence_at_its_fixed_m():
    table = CountTable.from_codes(X_TREE, Y_TREE, 2)
    learned = hierarchy.fit_nested(table, TREE, select=None)
    m_leaf = learned.smoothed.concentration[:, 0]
    evidence = learned.smoothed.fit.log_evidence.reshape(2, 2)[:, 0]
    other = hierarchy.fit_nested(table, TREE, select=None, fixed={(0, 0): 3.0})
    moved = other.smoothed.fit.log_evidence.reshape(2, 2)[:, 0]
    assert not np.allclose(m_leaf, 3.0) and not np.allclose(moved, evidence)
    at_inf = hierarchy.fit_nested(table, TREE, select=None, fixed={(0, 0): np.inf})
    assert np.all(np.isfinite(at_inf.smoothed.fit.log_evidence))
