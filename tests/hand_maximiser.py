"""An independent clamped maximiser of a concentration's evidence, for hand-derived tests
(it calls no heb code): every root of the slope on a geometric grid, and both clamp ends."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize


def clamped_maximiser(
    slope: Callable[[float], float],
    evidence: Callable[[float], float],
    lo: float,
    hi: float,
    points: int = 301,
    tol: float = 1e-14,
) -> float:
    """The m in [lo, hi] of the highest ``evidence``: the clamp ends and each peak, a sign
    change of ``slope`` from + to - between two grid points, refined by brentq."""
    grid = np.geomspace(lo, hi, points)
    slopes = [slope(m) for m in grid]
    candidates = [lo, hi]
    for a, b, sa, sb in zip(grid[:-1], grid[1:], slopes[:-1], slopes[1:], strict=True):
        if sa > 0 >= sb:
            candidates.append(optimize.brentq(slope, a, b, xtol=tol, rtol=tol))
    return max(candidates, key=evidence)
