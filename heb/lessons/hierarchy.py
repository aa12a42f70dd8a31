"""Lesson 7: borrowing along a hierarchy: a sparse ZIP code under Laplace, HEB-M and HEB-H.

A known truth from :mod:`heb.synthetic_hierarchy`: ZIP-like codes hang in a tree
region -> prefix -> code, and each class's PMF splits every node among its children by a
Dirichlet with a known concentration per level. Rows are sampled per class, the three
smoothers fit the same counts, and the lesson reads off one sparse code's estimate (a
code with at most one row in class 0, the likeliest such code in the truth), the l1 error
over every code, and the concentration HEB-H learned at each level next to the true one.

Entry point: :func:`hierarchy_lesson`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.counts import CountTable, category_offsets
from heb.hierarchy import fit_nested
from heb.lessons.common import M_MAX, format_m, smoother_label
from heb.smoothing import smooth
from heb.synthetic_hierarchy import SCENARIOS, tree_pmfs, zip_levels

__all__ = [
    "LEVEL_NAMES",
    "SHAPE",
    "SMOOTHERS",
    "clamp_text",
    "code_labels",
    "weight_text",
    "format_probability",
    "hierarchy_lesson",
]

#: the tree's shape: regions, prefixes per region, codes per prefix (K = 200 codes)
SHAPE = (4, 5, 10)
#: the smoothers compared, by registry name
SMOOTHERS = ("laplace", "heb-m", "heb-h")
#: level names, leaves first (the engine's level 0, 1, 2)
LEVEL_NAMES = ("code", "prefix", "region")


def code_labels(shape: tuple[int, int, int] = SHAPE) -> list[str]:
    """ZIP-like labels: region digit, prefix digit, then the code's two digits (``1204``)."""
    n_regions, prefixes, codes = shape
    return [
        f"{r + 1}{p}{c:02d}"
        for r in range(n_regions)
        for p in range(prefixes)
        for c in range(codes)
    ]


#: the smallest probability written out in plain decimals
SMALLEST_SHOWN = 1e-6


def format_probability(p: float) -> str:
    """A probability in plain decimals to three significant figures (0.0151, 0.00348,
    0.0000230): a small estimate never reads as 0.0000; an exact 0 is ``"0"``, and below
    :data:`SMALLEST_SHOWN` it is ``"under 0.000001"``."""
    if p == 0:
        return "0"
    if abs(p) < SMALLEST_SHOWN:
        return "under 0.000001"
    rounded = float(f"{p:.2e}")  # three significant figures, a carry included (0.01195)
    decimals = max(2 - int(np.floor(np.log10(abs(rounded)))), 0)
    return f"{rounded:.{decimals}f}"


def _estimates(table: CountTable, levels: list[np.ndarray]) -> tuple[dict, dict]:
    """Each smoother's (C, K) estimates (codes without rows: 0 under HEB), HEB-H's fit."""
    counts, n_c = table.counts, table.class_feature_totals()[:, 0]
    K = counts.shape[1]
    out = {"laplace": (counts + 1.0) / (n_c[:, None] + K)}
    smoothed = smooth(table, "heb-m")
    out["heb-m"] = np.where(smoothed.seen, np.exp(smoothed.log_theta), 0.0)
    fit = fit_nested(table, {0: levels})
    out["heb-h"] = fit.theta
    return out, fit.levels


def _sparse_leaf(counts: np.ndarray, theta: np.ndarray) -> int:
    """The likeliest code (class 0's truth) with at most one class-0 row and a row somewhere."""
    candidates = (counts[0] <= 1) & (counts.sum(axis=0) > 0)
    if not candidates.any():
        candidates = counts[0] == counts[0].min()
    return int(np.flatnonzero(candidates)[np.argmax(theta[0, candidates])])


def clamp_text(concentrations: pd.DataFrame) -> str:
    """The code level's largest learned m, and which levels' m reached the clamp M_MAX
    (``concentrations``: the :func:`hierarchy_lesson` table), in words. A fixed "at the
    code level m reaches X (the clamp when the classes share the split exactly)" called
    8.03 a clamp (the flat scenario, whose region level is the one at the clamp)."""
    code = concentrations[concentrations["level"] == LEVEL_NAMES[0]]
    text = f"At the code level m reaches {format_m(float(code['learned m'].max()))}"
    at_clamp = concentrations[concentrations["learned m"] >= M_MAX]
    levels = [name for name in reversed(LEVEL_NAMES) if name in set(at_clamp["level"])]
    if not levels:
        return f"{text}; no level reaches the clamp, {format_m(M_MAX)}."
    classes = sorted(set(at_clamp["class"]))
    who = f"class {classes[0]}" if len(classes) == 1 else f"{len(classes)} classes"
    if len(classes) == concentrations["class"].nunique() == 2:
        who = "both classes"
    where = " and ".join(levels)
    if levels == [LEVEL_NAMES[0]]:
        return (
            f"{text}, the clamp ({who}): there the split follows the pooled one as far as "
            "the data tell."
        )
    return (
        f"{text}; the clamp, {format_m(M_MAX)}, is reached at the {where} level"
        f"{'s' if len(levels) > 1 else ''} ({who}): there the split follows the pooled one "
        "as far as the data tell."
    )


def weight_text(concentrations: pd.DataFrame) -> str:
    """Which classes' estimates the tree hardly shapes (its posterior weight against HEB-M
    under one half; ``concentrations``: the :func:`hierarchy_lesson` table), in words, or
    ``""`` when the tree has most of the weight in every class. Without it the flat
    scenario's m per level read as signal (a prefix m of 5.5) where HEB-H was HEB-M."""
    weights = concentrations.drop_duplicates("class").set_index("class")["tree's weight"]
    low = weights[weights < 0.5]
    if low.empty:
        return ""
    if len(low) == len(weights) == 2:
        who = "both classes"
    elif len(low) == 1:
        who = f"class {low.index[0]}"
    else:
        who = "classes " + ", ".join(str(c) for c in low.index)
    values = " and ".join(f"{w:.3f}" for w in low)
    return (
        f"The evidence gives the tree under half the weight for {who} ({values}): there "
        "HEB-H is mostly HEB-M, and these m hardly shape its estimate."
    )


def hierarchy_lesson(
    n_per_class: int = 200, scenario: str = "hierarchy", n_classes: int = 2, seed: int = 0
) -> dict:
    """Every number of the lesson for one setting.

    Parameters
    ----------
    n_per_class : int
        Rows sampled per class.
    scenario : {"hierarchy", "flat"}
        :data:`heb.synthetic_hierarchy.SCENARIOS`: classes that differ along the tree, or
        no signal in the tree (HEB-M's own model).
    n_classes, seed : int

    Returns
    -------
    dict
        ``labels`` (K,) code labels; ``levels`` the tree; ``theta`` (C, K) truth;
        ``counts`` (C, K); ``estimates`` smoother -> (C, K); ``leaf`` the sparse code;
        ``leaf_table`` (one row per class and smoother: estimate, truth, error);
        ``prefix_table`` (class 0's codes of the leaf's prefix: counts, truth, each
        estimate); ``unseen`` the labels of that prefix's codes with no row in any class
        (HEB-M's pooled prior mean, so its estimate, is exactly 0 there); ``l1`` (mean
        l1 error over classes per smoother); ``concentrations``
        (one row per class and level: learned m, true concentration, the tree's
        posterior weight against HEB-M in the class's estimate).
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {tuple(SCENARIOS)}, got {scenario!r}.")
    if int(n_per_class) < 1 or int(n_classes) < 2:
        raise ValueError("Need at least one row per class and two classes.")
    levels = zip_levels(*SHAPE)
    K = levels[0].size
    rng = np.random.default_rng([int(seed), int(n_classes), len(scenario)])
    _, theta = tree_pmfs(levels, int(n_classes), rng=rng, **SCENARIOS[scenario])
    counts = rng.multinomial(int(n_per_class), theta).astype(np.float64)
    table = CountTable(
        np.full(int(n_classes), float(n_per_class)), counts, category_offsets(np.array([K]))
    )
    estimates, records = _estimates(table, levels)
    leaf = _sparse_leaf(counts, theta)
    labels = code_labels()
    names = {s: smoother_label(s) for s in SMOOTHERS}
    leaf_rows = [
        {
            "class": c,
            "smoother": names[s],
            "estimate": float(estimates[s][c, leaf]),
            "truth": float(theta[c, leaf]),
            "rows of the code": int(counts[c, leaf]),
        }
        for c in range(int(n_classes))
        for s in SMOOTHERS
    ]
    leaf_table = pd.DataFrame(leaf_rows)
    leaf_table["error"] = leaf_table["estimate"] - leaf_table["truth"]
    siblings = np.flatnonzero(levels[0] == levels[0][leaf])
    prefix_table = pd.DataFrame(
        {
            "code": [labels[v] for v in siblings],
            "rows (class 0)": counts[0, siblings].astype(int),
            "truth": theta[0, siblings],
            **{names[s]: estimates[s][0, siblings] for s in SMOOTHERS},
        }
    )
    l1 = pd.DataFrame(
        {
            "smoother": [names[s] for s in SMOOTHERS],
            "mean l1 error": [
                float(np.abs(estimates[s] - theta).sum(axis=1).mean()) for s in SMOOTHERS
            ],
        }
    )
    true_m = SCENARIOS[scenario].get("concentrations")
    concentrations = pd.DataFrame(
        {
            "class": records["class"],
            "level": [LEVEL_NAMES[lv] for lv in records["level"]],
            "nodes": records["n_nodes"],
            "learned m": records["m"],
            "true concentration": [
                float(true_m[lv]) if true_m else np.nan for lv in records["level"]
            ],
            "tree's weight": records["hierarchy_weight"],
        }
    ).sort_values(["class", "nodes"], ignore_index=True)
    return {
        "labels": labels,
        "levels": levels,
        "theta": theta,
        "counts": counts,
        "estimates": estimates,
        "leaf": leaf,
        "leaf_table": leaf_table,
        "prefix_table": prefix_table,
        "unseen": [labels[v] for v in siblings if counts[:, v].sum() == 0],
        "l1": l1,
        "concentrations": concentrations,
    }
