"""Type-II ML m against an independent maximiser, to SPEC 3's 1e-6 relative, on weighted
(fractional) counts, ties and custom clamps.

The other concentration tests compare integer counts with a bisection of l' and fractional
counts with a grid of l at the default clamp; here each m is the best of the clamp's ends
and every root of l'(m) = psi(m) - psi(N + m) + sum_v t_v (psi(n_v + m t_v) - psi(m t_v))
that a grid brackets and brentq solves, under [1e-2, 1e4], [0.3, 40] and [2, 500].
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from heb.concentration import fit_concentration
from tests.hand_maximiser import clamped_maximiser


def _evidence(n, t, m):
    nz = n > 0
    cells = special.gammaln(n[nz] + m * t[nz]) - special.gammaln(m * t[nz])
    return special.gammaln(m) - special.gammaln(n.sum() + m) + cells.sum()


def _slope(n, t, m):
    nz = n > 0
    cells = t[nz] * (special.digamma(n[nz] + m * t[nz]) - special.digamma(m * t[nz]))
    return special.digamma(m) - special.digamma(n.sum() + m) + cells.sum()


def _maximiser(n, t, lo, hi):
    return clamped_maximiser(lambda m: _slope(n, t, m), lambda m: _evidence(n, t, m), lo, hi)


@pytest.mark.parametrize("clamp", [(1e-2, 1e4), (0.3, 40.0), (2.0, 500.0)])
def test_fractional_and_tied_counts_match_an_independent_maximiser(clamp):
    rng = np.random.default_rng(int(clamp[1]))
    lo, hi = clamp
    checked = 0
    for trial in range(60):
        k = int(rng.integers(2, 7))
        n = np.round(rng.uniform(0, 6, k) * (rng.random(k) < 0.8), 2)
        if trial % 4 == 0:
            n = np.full(k, n.max())  # ties: proportional to the uniform prior, m = hi
        if n.sum() == 0:
            continue
        uniform = trial % 2 or trial % 4 == 0
        t = np.full(k, 1 / k) if uniform else rng.dirichlet(np.ones(k))
        expected = _maximiser(n, t, lo, hi)
        got = fit_concentration(n, t, lo, hi)
        assert abs(got - expected) <= 1e-6 * expected, (n, t, got, expected)
        checked += 1
    assert checked >= 50
