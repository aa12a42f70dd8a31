"""Checks of the Type-II ML core that its mutation testing found missing.

Each test kills a mutant of ``heb/concentration*.py``, ``heb/log_tables.py``,
``heb/smoothing.py`` or ``heb/pair_smoothing.py`` that the rest of the suite let live; the
references are independent of the solver: the evidence written with
``scipy.special.gammaln`` and maximised on a dense log grid refined by
``scipy.optimize.minimize_scalar``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special

import heb.concentration_solver as solver
from heb.aode import AODE
from heb.concentration import (
    M_MAX,
    M_MIN,
    ConcentrationProblem,
    fit_concentration,
    fit_concentration_rows,
    fit_concentration_segments,
)
from heb.concentration_solver import WeightedItems, halley_log_m
from heb.counts import CountTable
from heb.log_tables import TableSums
from heb.smoothing import smooth
from heb.tan import TAN


# ----------------------------------------------------------------------------- reference
def pooled_evidence(m: float, documents: list[np.ndarray], prior: np.ndarray) -> float:
    """l(m) of one group of documents sharing one concentration (paper eq. 11), gammaln only."""
    total = 0.0
    for counts in documents:
        seen = counts > 0
        x = m * prior[seen]
        total += special.gammaln(m) - special.gammaln(m + counts.sum())
        total += np.sum(special.gammaln(x + counts[seen]) - special.gammaln(x))
    return float(total)


def pooled_slope(m: float, documents: list[np.ndarray], prior: np.ndarray) -> float:
    """l'(m) of :func:`pooled_evidence`, digamma only."""
    total = 0.0
    for counts in documents:
        seen = counts > 0
        x = m * prior[seen]
        total -= special.digamma(m + counts.sum()) - special.digamma(m)
        total += np.sum(prior[seen] * (special.digamma(x + counts[seen]) - special.digamma(x)))
    return float(total)


def global_maximiser(documents, prior, m_min=M_MIN, m_max=M_MAX) -> float:
    """The clamped global maximiser of :func:`pooled_evidence`: the best of a 0.0015-decade
    grid, refined by a root of l'(m) (Brent's method) between its neighbours."""
    grid = np.geomspace(m_min, m_max, 4001)
    values = np.array([pooled_evidence(m, documents, prior) for m in grid])
    best = int(values.argmax())
    if best in (0, grid.size - 1):
        return float(grid[best])
    return float(
        optimize.brentq(
            pooled_slope, grid[best - 1], grid[best + 1], args=(documents, prior), rtol=1e-13
        )
    )


def as_segments(documents: list[np.ndarray], prior: np.ndarray, group: int = 0):
    """Items (group, count, prior) and documents (group, total) of one group's documents."""
    items = [(group, counts[v], prior[v]) for counts in documents for v in np.flatnonzero(counts)]
    item_group, item_count, item_prior = (np.array(c) for c in zip(*items, strict=True))
    totals = np.array([counts.sum() for counts in documents], dtype=float)
    return item_group, item_count.astype(float), item_prior, np.full(totals.size, group), totals


# A group of two documents whose evidence peaks near m = 1.65, dips, and climbs again
# toward m -> infinity without getting back to the peak: l'(m_max) > 0, yet the
# maximiser is inside.
DIP_PRIOR = np.array([1 / 3, 2 / 3])
DIP_DOCUMENTS = [np.array([0.0, 10.0]), np.array([31.0, 60.0])]


# ----------------------------------------------------------------------------- solver
def test_an_interior_peak_beats_a_rising_top_clamp():
    """Kills a start of log m raised by 4.5 (``start_log_m``'s ``+ 0.5`` made ``+ 5``).

    The evidence rises again toward m_max (l'(m_max) > 0) but stays below its interior
    peak: a solver that starts at the top clamps there and loses 0.5 nats.
    """
    prior, documents = DIP_PRIOR, DIP_DOCUMENTS
    m_ref = global_maximiser(documents, prior)
    ev_top = pooled_evidence(M_MAX, documents, prior)
    assert ev_top < pooled_evidence(M_MAX * 0.999, documents, prior) + 1e-3  # still rising
    assert pooled_evidence(m_ref, documents, prior) > ev_top + 0.5
    fit = fit_concentration_segments(*as_segments(documents, prior), 1)
    assert fit.clamped[0] == 0
    np.testing.assert_allclose(fit.m[0], m_ref, rtol=1e-6)
    np.testing.assert_allclose(fit.log_evidence[0], pooled_evidence(m_ref, documents, prior))


def test_single_row_documents_do_not_move_the_maximiser():
    """A document of one row adds log t_v to l(m), whatever m, so it cannot change the
    maximiser. 2,000 of them pushed the closed-form start to m_max, and l'(m_max) >= 0
    clamped the group there, 0.52 nats below the interior peak."""
    prior, documents = DIP_PRIOR, DIP_DOCUMENTS
    ones = [np.eye(2)[v % 2] for v in range(2000)]
    for one in ones[:2]:
        for m in (0.05, 5.0, 5e3):
            expected = np.log(prior[one.argmax()])
            assert pooled_evidence(m, [one], prior) == pytest.approx(expected, abs=1e-9)
    fit = fit_concentration_segments(*as_segments(documents + ones, prior), 1)
    np.testing.assert_allclose(fit.m[0], global_maximiser(documents, prior), rtol=1e-6)


def test_unsorted_items_fit_as_the_sorted_ones():
    """Kills ``_sorted`` never reordering (its ``not np.any(...)`` inverted).

    ``fit_concentration_segments`` takes items in any order ("sorted is fastest"): the
    same groups shuffled give the same m, each against the brute-force maximiser.
    """
    rng = np.random.default_rng(19)
    k, n_groups = 6, 8
    prior = rng.dirichlet(np.full(k, 2.0))
    documents = [
        rng.multinomial(int(rng.integers(20, 200)), rng.dirichlet(s * prior)).astype(float)
        for s in np.geomspace(0.3, 300, n_groups)
    ]
    parts = [as_segments([d], prior, g) for g, d in enumerate(documents)]
    group, count, t, doc_group, total = (np.concatenate(a) for a in zip(*parts, strict=True))
    order, doc_order = rng.permutation(group.size), rng.permutation(n_groups)
    sorted_fit = fit_concentration_segments(group, count, t, doc_group, total, n_groups)
    shuffled = fit_concentration_segments(
        group[order], count[order], t[order], doc_group[doc_order], total[doc_order], n_groups
    )
    np.testing.assert_allclose(shuffled.m, sorted_fit.m, rtol=1e-9)  # summation order
    reference = [global_maximiser([d], prior) for d in documents]
    np.testing.assert_allclose(shuffled.m, reference, rtol=1e-6)


def test_an_iteration_budget_returns_the_last_iterate_not_the_start(monkeypatch):
    """Kills dropping the ``for ... else`` that copies unfinished groups' last iterate.

    With two iterations allowed, Halley is not done but has moved from its start toward
    the root: it must return where it got to, unconverged, with the budget as its count.
    """
    prior = np.full(4, 0.25)
    counts = np.array([30.0, 2.0, 1.0, 9.0])
    items = WeightedItems(
        np.zeros(4, int), counts, prior, np.zeros(1, int), counts.sum(keepdims=True), 1
    )
    lo, hi = np.full(1, np.log(M_MIN)), np.full(1, np.log(M_MAX))
    root = np.log(global_maximiser([counts], prior))
    start = np.full(1, np.log(M_MAX) - 0.5)
    monkeypatch.setattr(solver, "MAX_ITER", 2)
    x, converged, iterations = halley_log_m(items.score(), start, lo, hi)
    assert not converged[0] and iterations[0] == 2
    assert abs(x[0] - root) < 0.5 * abs(start[0] - root)


class LinearSlope:
    """A score whose g(x) = m l'(m) is ``top - x`` in x = log m: zero exactly at the top."""

    size = 1

    def __init__(self, top: float):
        self.top = top

    def derivatives(self, m: np.ndarray) -> np.ndarray:
        x = np.log(m)
        g, dg, ddg = self.top - x, -np.ones_like(x), np.zeros_like(x)
        curve = dg - g  # halley_log_m: dg = g + l'' m^2, ddg = dg + 2 l'' m^2 + l''' m^3
        return np.stack([g / m, curve / m**2, (ddg - dg - 2.0 * curve) / m**3])


def test_a_zero_slope_at_the_open_top_returns_exactly_the_top():
    """Kills the ``(g == 0) & (x >= top)`` case dropped from the bracket's lower end.

    ``halley_log_m`` promises that g(hi) >= 0 at an open top returns exactly ``hi`` (the
    caller then reports the clamp); g = 0 there must not start a bisection away from it.
    """
    top = np.log(M_MAX)
    x, converged, iterations = halley_log_m(
        LinearSlope(top),
        np.full(1, top),
        np.full(1, np.log(M_MIN)),
        np.full(1, top),
        np.ones(1, dtype=bool),
    )
    assert x[0] == top and converged[0] and iterations[0] == 1


# ----------------------------------------------------------------------------- clamps
def test_an_equal_clamp_pins_m():
    """Kills ``0 < m_min <= m_max`` made strict: [a, a] is a valid clamp that fixes m = a."""
    counts, prior = np.array([30.0, 10.0, 5.0, 0.0, 2.0]), np.full(5, 0.2)
    free = fit_concentration(counts, prior)
    for pinned in (free / 3, free, 3 * free):
        assert fit_concentration(counts, prior, m_min=pinned, m_max=pinned) == pinned


def test_a_flat_group_at_a_clamp_of_one_is_not_reported_clamped():
    """Kills ``m_min > 1`` made ``>=`` in the flat groups' clamp report.

    Flat evidence returns Minka's start m = 1; a clamp whose end is exactly 1 does not
    move it, so the group is not clamped.
    """
    fit = fit_concentration_rows(np.array([[0.0, 1.0, 0.0]]), np.full(3, 1 / 3), 1.0, 5.0)
    assert fit.flat[0] and fit.m[0] == 1.0 and fit.clamped[0] == 0
    fit = fit_concentration_rows(np.array([[0.0, 1.0, 0.0]]), np.full(3, 1 / 3), 0.5, 1.0)
    assert fit.flat[0] and fit.m[0] == 1.0 and fit.clamped[0] == 0


def test_a_problem_group_of_single_row_documents_is_flat():
    """Kills ConcentrationProblem counting one-row documents as informative (``>= 1``).

    Every document of one row contributes log G(m) - log G(m + 1) + log G(m t + 1) -
    log G(m t) = log t, constant in m: the evidence is flat and m is Minka's start 1,
    as ``fit_concentration_segments`` says for the same data.
    """
    prior = np.array([0.2, 0.3, 0.5])
    category = np.array([0, 1, 2, 2, 1])
    problem = ConcentrationProblem(2, prior)
    problem.add_items(
        np.r_[np.zeros(5, int), [1, 1]], np.r_[category, [0, 2]], np.r_[np.ones(5), 4.0, 7.0]
    )
    problem.add_documents([0, 0, 0, 0, 0, 1], [1.0, 1.0, 1.0, 1.0, 1.0, 11.0])
    fit = problem.fit()
    ev = [pooled_evidence(m, [np.eye(3)[c] for c in category], prior) for m in (0.1, 10.0)]
    assert ev[0] == pytest.approx(ev[1], abs=1e-12)
    assert fit.flat.tolist() == [True, False] and fit.m[0] == 1.0 and fit.clamped[0] == 0
    reference = global_maximiser([np.array([4.0, 0.0, 7.0])], prior)
    np.testing.assert_allclose(fit.m[1], reference, rtol=1e-6)


# ----------------------------------------------------------------------------- tables
def test_a_feature_never_observed_has_zero_totals_and_takes_the_fallback():
    """Kills ``TableSums`` dropping its empty-feature guard (``np.where(empty, 0, sums)``).

    With under half the columns seen, N_cf is summed over the seen columns only; a
    feature (not the last) with no observed row must get N_cf = 0, as the whole table
    says, hence HEB's fallback m = K_f (Algorithm 1, step 8), not a fit of no counts.
    """
    rng = np.random.default_rng(0)
    n_rows = 150
    X = np.column_stack([np.full(n_rows, -1), rng.integers(0, 10, n_rows)])
    y = rng.integers(0, 2, n_rows)
    table = CountTable.from_codes(X, y, 2, np.array([5, 100]))
    sums = TableSums(table)
    assert 2 * sums.seen_cols.size < sums.seen.size  # the seen-columns path
    np.testing.assert_array_equal(sums.n_cf, table.class_feature_totals())
    assert np.all(sums.n_cf[:, 0] == 0)
    smoothed = smooth(table, "heb-m")
    assert smoothed.fallback[:, 0].all() and np.all(smoothed.concentration[:, 0] == 5.0)


def test_one_observed_row_is_flat_evidence_when_n0_lets_it_be_solved():
    """Kills HEB's flat test ``N_cf < 2`` made ``N_cf < 1``.

    With n0 = 1 a class of one observed row is solved: l(m) = log t_v for every m, flat,
    so m is Minka's start 1 (not a clamp the solver's rounding picks).
    """
    X = np.array([[0], [1], [0], [1], [1], [0], [2]])
    y = np.array([0, 0, 0, 0, 0, 0, 1])
    prior = np.array([3, 3, 1]) / 7
    assert pooled_evidence(0.02, [np.eye(3)[2]], prior) == pytest.approx(np.log(1 / 7))
    assert pooled_evidence(900.0, [np.eye(3)[2]], prior) == pytest.approx(np.log(1 / 7))
    smoothed = smooth(CountTable.from_codes(X, y, 2), "heb-m", n0=1)
    assert not smoothed.fallback[1, 0]
    assert smoothed.concentration[1, 0] == 1.0 and smoothed.fit.flat[1]
    assert smoothed.fit.clamped[1] == 0


def test_target_encoding_counts_each_features_own_observed_rows():
    """Kills TE's class share N_c / S read with another feature's S (``s_f.max()``).

    SPEC 1 and 3: with missing values, N_c and S of feature f count the rows where f is
    observed. theta written out from SPEC's TE formula, one feature at a time.
    """
    rng = np.random.default_rng(4)
    n_rows, k = 80, np.array([3, 4])
    X = np.column_stack([rng.integers(0, 3, n_rows), rng.integers(0, 4, n_rows)])
    X[rng.random(n_rows) < 0.4, 1] = -1  # feature 1 observed on about 60 % of the rows
    y = rng.integers(0, 2, n_rows)
    k0 = 10.0
    theta = np.exp(smooth(CountTable.from_codes(X, y, 2), "te", k0=k0).log_theta)
    expected = []
    for f in range(2):
        observed = X[:, f] >= 0
        x, c = X[observed, f], y[observed]
        n_cv = np.array([[np.sum((c == cl) & (x == v)) for v in range(k[f])] for cl in (0, 1)])
        n_v, n_c, s = n_cv.sum(axis=0), n_cv.sum(axis=1), observed.sum()
        lam = n_v / (n_v + k0)
        p_c_given_v = lam * n_cv / n_v + (1 - lam) * (n_c / s)[:, None]
        mass = p_c_given_v * n_v
        expected.append(mass / mass.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(theta, np.hstack(expected), rtol=1e-12)


def test_fallback_pairs_report_no_clamp_whatever_the_clamp():
    """Kills the fallback pairs' clamp report left as the flat solve's (``CLAMP_NONE`` dropped).

    N_cf < n0 sets m = K_f without a fit (Algorithm 1, step 8): with a clamp [2, 50] that
    excludes the flat value 1, such a pair is still not clamped, and its m is K_f = 3.
    """
    X = np.array([[0], [1], [2], [0], [1]] * 3 + [[2], [2], [1]])
    y = np.array([0] * 15 + [1] * 3)
    smoothed = smooth(CountTable.from_codes(X, y, 2), "heb-u", m_min=2.0, m_max=50.0)
    assert smoothed.fallback[:, 0].tolist() == [False, True]
    assert smoothed.concentration[1, 0] == 3.0 and smoothed.fit.clamped[1] == 0
    assert smoothed.fit.converged[1] and smoothed.fit.iterations[1] == 0


# ----------------------------------------------------------------------------- HEB-AODE
def test_heb_aode_diagnostics_are_the_shrinkage_of_each_parent_value():
    """Kills the pair diagnostics' rho written N / (N + m) instead of m / (N + m).

    Per (class, parent i, child j) group: rho is m / (N_{c,u} + m) averaged over the
    parent values u seen with the class, N sums N_{c,u}, and the log evidence is eq. 11's
    pooled l(m) over those documents with the child's marginal as prior mean.
    """
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (300, 3))
    y = (X[:, 0] + rng.integers(0, 2, 300)) % 2
    diagnostics = AODE(smoother="heb").fit(X, y).concentrations_
    for row in range(diagnostics["m"].size):
        c, i, j, m = (diagnostics[key][row] for key in ("class", "parent", "child", "m"))
        prior = np.bincount(X[:, j], minlength=3) / X.shape[0]
        documents = [
            np.bincount(X[(y == c) & (X[:, i] == u), j], minlength=3).astype(float)
            for u in range(3)
        ]
        documents = [d for d in documents if d.sum() > 0]
        n_cu = np.array([d.sum() for d in documents])
        assert diagnostics["N"][row] == n_cu.sum()
        assert diagnostics["rho"][row] == pytest.approx(np.mean(m / (n_cu + m)), rel=1e-12)
        assert diagnostics["log_evidence"][row] == pytest.approx(
            pooled_evidence(m, documents, prior), rel=1e-10
        )


def test_heb_aode_groups_without_a_fit_and_unseen_child_values():
    """Kills three mutants of ``heb/pair_smoothing.py`` the AODE tests let live:

    - the fallback groups: a group under n0 is not fitted, and its log evidence is its
      documents' at m = K_child (below 0 where it has rows, 0 for a class with none);
    - rho of a class never seen set to 0: with no document, theta is the prior mean, a
      shrinkage rho = m / (0 + m) = 1;
    - an unseen child value's cells not zeroed: it is absent evidence (SPEC 1), log 1 = 0,
      never log(m * 0) = -inf from its zero marginal.
    """
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, (200, 3))
    X[:, 2] = np.where(X[:, 2] == 1, 2, X[:, 2])  # feature 2 never takes its value 1
    y = rng.integers(0, 2, 200)
    y[:6] = 2  # class 2: six rows, under n0 = 10 (fallback); class 3: none
    model = AODE(smoother="heb").partial_fit(X, y, classes=[0, 1, 2, 3])
    diagnostics = model.concentrations_
    cls, fallback = diagnostics["class"], diagnostics["fallback"]
    assert fallback[cls >= 2].all() and not fallback[cls < 2].any()
    assert np.all(diagnostics["log_evidence"][cls == 2] < 0.0)  # six rows, m = K_child
    assert np.all(diagnostics["log_evidence"][cls == 3] == 0.0)  # no row: log 1
    assert np.all(diagnostics["m"][fallback] == model.n_categories_[diagnostics["child"]][fallback])
    assert np.all(diagnostics["log_evidence"][~fallback] < 0.0)
    assert np.all(diagnostics["rho"][cls == 3] == 1.0) and np.all(
        diagnostics["n_values"][cls == 3] == 0
    )
    joint = model.joint_counts_
    log_prob = model.conditional_log_prob_
    for p in np.flatnonzero(joint.child == 2):
        cells = joint.offsets[p] + np.arange(joint.offsets[p + 1] - joint.offsets[p])
        unseen = cells[(cells - joint.offsets[p]) % 3 == 1]
        assert np.all(log_prob[unseen] == 0.0)
    row = X[:1].copy()
    row[0, 2] = 1  # the unseen value scores as a missing one
    missing = X[:1].copy()
    missing[0, 2] = -1
    np.testing.assert_allclose(model.predict_proba(row), model.predict_proba(missing), rtol=1e-12)


def test_heb_tan_scores_an_unseen_child_value_as_missing():
    """Kills ``conditional_log_probs`` leaving an unseen child value's cells at log(m * 0).

    SPEC 1: a category never seen in training is absent evidence, like a missing value:
    its cells of the public table hold log 1 = 0 (its marginal prior is 0), and a row
    holding it scores as the row with that value missing.
    """
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (200, 3))
    X[:, 2] = np.where(X[:, 2] == 1, 2, X[:, 2])  # feature 2 never takes its value 1
    X[:, 1] = (X[:, 2] + rng.integers(0, 2, 200)) % 3  # a dependence for the tree
    y = rng.integers(0, 2, 200)
    model = TAN(smoother="heb").fit(X, y)
    assert np.all(np.isfinite(model.conditional_log_prob_))
    row, missing = X[:5].copy(), X[:5].copy()
    row[:, 2], missing[:, 2] = 1, -1
    proba = model.predict_proba(row)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba, model.predict_proba(missing), rtol=1e-12)
