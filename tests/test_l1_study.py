"""l1 error studies: the synthetic check of Theorem 1 (paper section 5.2, SPEC section 7) on
the default grid, and HEB-H's known hierarchy truth (heb.synthetic_hierarchy)."""

from __future__ import annotations

import numpy as np
import pytest

from heb.synthetic import l1_error_study
from heb.synthetic_hierarchy import (
    BUDGET_ESTIMATES,
    hierarchy_l1_study,
    oracle_tree_estimate,
    tree_pmfs,
    zip_levels,
)


def _means(alpha_dir: float) -> dict[tuple[int, int], dict[str, float]]:
    rows = l1_error_study(alpha_dir=alpha_dir, smoothers=("laplace", "heb-u"))
    out: dict[tuple[int, int], dict[str, float]] = {}
    for row in rows:
        out.setdefault((row["K"], row["N"]), {})[row["smoother"]] = row["mean"]
    return out


def test_heb_u_beats_laplace_at_large_k_over_n_on_skewed_pmfs():
    """alpha_dir = 0.3: HEB-U's mean l1 error is below Laplace's at every K/N >= 0.1."""
    means = _means(0.3)
    assert len(means) == 16
    large = {key: m for key, m in means.items() if key[0] / key[1] >= 0.1}
    assert len(large) == 10
    for (k, n), m in large.items():
        assert m["heb-u"] < m["laplace"], f"K={k}, N={n}: {m}"
    # the separation the paper reports (12 % at K/N = 0.1 up to about 20 %) is there
    reduction = {key: 1 - m["heb-u"] / m["laplace"] for key, m in large.items()}
    assert min(reduction[k] for k in reduction if 0.1 <= k[0] / k[1] <= 2.5) > 0.10
    assert max(reduction.values()) > 0.18


def test_reductions_by_k_over_n_are_the_papers_section_5_2():
    """alpha_dir = 0.3, the default grid (200 reps): HEB-U's l1 reduction over Laplace per
    K/N, against the paper's 6 % (0.05), 12 % (0.1), 16 % (0.25), 18-20 % (0.5 to 2.5).

    Measured: 7.2-7.7 %, 11.1-11.6 %, 16.0 %, 19.3-20.0 % at 0.5 and 1, 16.1 % at 2.5. The
    gaps at 0.05 and 2.5 are not the solver's: the posterior mean at the truth's own
    concentration m = 0.3 K gives the same figures (7.8 % and 16.9 % with 2000 reps), so
    the bands below allow 2.5 points around the paper's numbers.
    """
    means = _means(0.3)
    reduction = {(k, n): 1 - m["heb-u"] / m["laplace"] for (k, n), m in means.items()}
    bands = {0.05: (0.035, 0.085), 0.1: (0.095, 0.145), 0.25: (0.135, 0.185)}
    bands.update({r: (0.155, 0.225) for r in (0.5, 1.0, 2.5)})
    for ratio, (low, high) in bands.items():
        cells = [v for (k, n), v in reduction.items() if k / n == ratio]
        assert cells, ratio
        assert all(low <= v <= high for v in cells), (ratio, cells)
    # the separation grows with K/N up to 0.5 (Theorem 1's Laplace bias K / (N + K))
    by_ratio = sorted((k / n, v) for (k, n), v in reduction.items() if k / n <= 0.5)
    ratios = sorted({r for r, _ in by_ratio})
    lows = [min(v for r, v in by_ratio if r == q) for q in ratios]
    highs = [max(v for r, v in by_ratio if r == q) for q in ratios]
    assert all(h < lo for h, lo in zip(highs[:-1], lows[1:], strict=True)), by_ratio


def test_heb_u_matches_laplace_on_uniform_dirichlet_pmfs():
    """alpha_dir = 1 (Laplace's own prior): HEB-U stays within 5 % of Laplace everywhere."""
    for (k, n), m in _means(1.0).items():
        assert m["heb-u"] == pytest.approx(m["laplace"], rel=0.05), f"K={k}, N={n}: {m}"


def test_the_study_is_seeded():
    a = l1_error_study(K_values=(20,), N_values=(40,), reps=30, seed=3)
    b = l1_error_study(K_values=(20,), N_values=(40,), reps=30, seed=3)
    assert a == b
    assert all(np.isfinite(r["mean"]) and r["mean"] > 0 for r in a)


# ---------------------------------------------------------------------------- known truth
def test_tree_pmfs_are_distributions_near_the_base_when_concentrated():
    rng = np.random.default_rng(7)
    levels = zip_levels(3, 4, 5)
    base, theta = tree_pmfs(levels, 4, concentrations=(1e9, 1e9, 1e9), rng=rng)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_allclose(theta, np.broadcast_to(base, theta.shape), rtol=1e-3)
    with pytest.raises(ValueError, match="either"):
        tree_pmfs(levels, 2, rng=rng)


@pytest.mark.parametrize("N", [50, 200])
def test_hierarchy_study_meets_its_targets_on_a_small_grid(N):
    """HEB-H at least 20 % below HEB-M at K/N = 4 and 1 with a hierarchy, within 2 %
    without."""
    kwargs = {"K_values": [(4, 5, 10)], "N_values": [N], "reps": 60}
    signal = {r["smoother"]: r["mean"] for r in hierarchy_l1_study(scenario="hierarchy", **kwargs)}
    none = {r["smoother"]: r["mean"] for r in hierarchy_l1_study(scenario="flat", **kwargs)}
    assert signal["heb-h"] <= 0.8 * signal["heb-m"] < signal["laplace"]
    assert none["heb-h"] <= 1.02 * none["heb-m"]


def test_oracle_tree_estimate_by_hand():
    """Leaves 0, 1 under group 0, leaf 2 under group 1; base (0.2, 0.3, 0.5)."""
    levels = [np.array([0, 0, 1])]
    counts = np.array([[3.0, 1.0, 0.0]])
    base = np.array([0.2, 0.3, 0.5])
    est = oracle_tree_estimate(counts, base, levels, (2.0, 5.0))
    # top: group 0 = (4 + 5 * 0.5) / (4 + 5), group 1 = 2.5 / 9; leaves within group 0
    top = np.array([6.5 / 9, 2.5 / 9])
    expected = [top[0] * (3 + 2 * 0.4) / 6, top[0] * (1 + 2 * 0.6) / 6, top[1] * (0 + 2) / 2]
    np.testing.assert_allclose(est[0], expected)
    np.testing.assert_allclose(est.sum(), 1.0)
    # a leaf given base 0 keeps only its counts' share; the base renormalises above it
    est = oracle_tree_estimate(counts, base * [1, 0, 1], levels, (2.0, 5.0))
    group0 = (4 + 5 * 0.2 / 0.7) / 9
    np.testing.assert_allclose(est[0], [group0 * 5 / 6, group0 * 1 / 6, 1 - group0])
    with pytest.raises(ValueError, match="one value per level"):
        oracle_tree_estimate(counts, base, levels, (1.0,))


def test_error_budget_is_ordered_and_estimates_that_give_unseen_codes_0_pay_twice_their_mass():
    """The oracle (true base and m) bounds HEB-H at the true m (learned base, which gives
    codes without rows some mass); an estimate giving them 0 has an l1 error of at least
    twice their true mass (sum over unseen U, over the seen |1 - (1 - U)|); the budget
    needs a tree truth."""
    kwargs = {"K_values": [(4, 5, 10)], "N_values": [50], "reps": 20}
    rows = hierarchy_l1_study(smoothers=BUDGET_ESTIMATES, **kwargs)
    err = {r["smoother"]: r["mean"] for r in rows}
    assert err["oracle"] < err["heb-h-true-m"] < err["heb-h"] < err["heb-m"]
    unseen = rows[0]["unseen_mass"]
    for name in ("oracle-seen", "heb-h-pooled-base", "heb-m"):
        assert err[name] >= 2 * unseen
    with pytest.raises(ValueError, match="tree truth"):
        hierarchy_l1_study(scenario="flat", smoothers=("oracle",), **kwargs)
