"""Lesson 6: known truth: sample from a Naive Bayes model, fit every smoother, compare.

Entry point: :func:`known_truth_study`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import log_softmax

from heb import registry
from heb.counts import CountTable, category_offsets
from heb.lessons.common import format_m, smoother_label
from heb.metrics import all_metrics, reliability_curve
from heb.nb import NaiveBayes, score_codes
from heb.text import and_list

__all__ = [
    "KNOWN_TRUTH_POOL",
    "estimated_pmfs",
    "known_truth_study",
    "paper_smoothers",
    "posterior_range",
    "blur_text",
    "blurred",
    "smallest",
]


def estimated_pmfs(model: NaiveBayes) -> np.ndarray:
    """The estimated (C, V) PMFs of every feature, unseen categories included.

    The engine stores 0 in the log column of a category with no training row (absent
    evidence at predict time); the mass a smoother gives such categories is what the
    seen ones leave, shared equally (m t_v / (N + m) with uniform t; 0 with a marginal t).
    """
    table = model.count_table_
    starts = table.offsets[:-1]
    col_f = table.feature_of_column
    seen = table.category_totals() > 0
    theta = np.where(seen[None, :], np.exp(model.feature_log_prob_), 0.0)
    left = np.clip(1.0 - np.add.reduceat(theta, starts, axis=1), 0.0, 1.0)  # (C, F)
    n_unseen = np.maximum(np.add.reduceat((~seen).astype(float), starts), 1.0)  # (F,)
    return np.where(seen[None, :], theta, (left / n_unseen)[:, col_f])


def paper_smoothers() -> tuple[str, ...]:
    """The registry's smoothers of the paper's Table 1 (``Smoother.paper``), in its order.

    The lesson's default: its truths have no category hierarchy, where HEB-H is HEB-M
    (an added non-paper smoother is studied when passed as ``smoothers``).
    """
    return tuple(name for name, entry in registry.SMOOTHERS.items() if entry.paper)


#: training rows are the first ``n_train`` of this many, so the truth never depends on n_train
KNOWN_TRUTH_POOL = 5000


def known_truth_study(
    n_train: int = 500,
    n_categories: int = 50,
    n_features: int = 6,
    n_classes: int = 2,
    alpha_dir: float = 0.5,
    seed: int = 0,
    n_test: int = 20000,
    preset: str | None = None,
    smoothers: Sequence[str] | None = None,
) -> dict:
    """Sample from a known Naive Bayes model, fit each smoother, compare with the truth.

    One call of :func:`heb.synthetic.sample_naive_bayes` (theta_cf ~ Dirichlet(alpha_dir))
    or, with ``preset="high-cardinality"``, of :func:`heb.synthetic.high_cardinality_preset`
    (ID-like features around a shared Zipf marginal; ``n_categories``, ``n_features``,
    ``n_classes`` and ``alpha_dir`` are then ignored) draws ``KNOWN_TRUTH_POOL + n_test``
    rows from one true model: the first ``n_train`` train, the last ``n_test`` are scored
    against the exact posteriors of the truth. ``smoothers`` (registry names) default to
    :func:`paper_smoothers`.

    Returns
    -------
    dict
        ``pmf_errors`` DataFrame (smoother, label, class, feature, l1): the exact l1
        error of every estimated class-conditional PMF; ``summary`` DataFrame, one row per
        smoother (smoother, label, mean_l1, true_ece, sample_ece, posterior_l1,
        log_loss, accuracy); ``true_log_loss`` and ``true_accuracy`` of the true model
        (the floor); ``posteriors`` dict label -> (n_test, C) estimated posteriors,
        ``true_posterior`` (n_test, C), ``y_test``; ``reliability_true`` dict label ->
        reliability dict whose accuracy is the true probability that the prediction is
        right (no label noise); ``n_categories`` (F,).
    """
    from heb.synthetic import high_cardinality_preset, sample_naive_bayes

    if not 2 <= n_train <= KNOWN_TRUTH_POOL:
        raise ValueError(f"Train on 2 to {KNOWN_TRUTH_POOL:,} rows.")
    if n_test < 2:
        raise ValueError("Score at least two test rows.")
    total = KNOWN_TRUTH_POOL + n_test
    if preset == "high-cardinality":
        codes, y, truth = high_cardinality_preset(n_samples=total, seed=seed)
        n_classes = len(truth["class_prior"])
    elif preset is None:
        codes, y, truth = sample_naive_bayes(
            total,
            [int(n_categories)] * int(n_features),
            n_classes=n_classes,
            alpha_dir=alpha_dir,
            seed=seed,
        )
    else:
        raise ValueError(f"Unknown preset {preset!r}; use None or 'high-cardinality'.")
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    theta_true = np.concatenate([np.asarray(t, dtype=np.float64) for t in truth["theta"]], axis=1)
    k_f = np.array([np.asarray(t).shape[1] for t in truth["theta"]])
    offsets = category_offsets(k_f)
    tiny = np.finfo(float).tiny  # a true probability of exactly 0 (Dirichlet underflow)
    log_prior_true = np.log(np.maximum(np.asarray(truth["class_prior"], dtype=float), tiny))
    x_train, y_train = codes[:n_train], y[:n_train]
    x_test, y_test = codes[-n_test:], y[-n_test:]
    true_joint = score_codes(np.log(np.maximum(theta_true, tiny)), offsets, x_test)
    true_post = np.exp(log_softmax(true_joint + log_prior_true, axis=1))
    true_metrics = all_metrics(y_test, true_post)
    table = CountTable.from_codes(x_train, y_train, n_classes, n_categories=k_f)
    classes = np.arange(n_classes)

    errors, summary, posteriors, curves, largest_m = [], [], {}, {}, {}
    rows = np.arange(y_test.size)
    if smoothers is None:
        smoothers = paper_smoothers()
    for smoother in smoothers:  # every smoother of the same counts
        label = smoother_label(smoother)
        model = NaiveBayes(smoother=smoother).fit_counts(table, classes)
        if model.concentrations_ is not None:
            largest_m[label] = float(np.max(model.concentrations_["m"]))
        diff = np.abs(estimated_pmfs(model) - theta_true)
        l1 = np.add.reduceat(diff, offsets[:-1], axis=1)  # (C, F)
        cls, feat = np.indices(l1.shape)
        errors.append(
            pd.DataFrame(
                {
                    "smoother": smoother,
                    "label": label,
                    "class": cls.ravel(),
                    "feature": feat.ravel(),
                    "l1": l1.ravel(),
                }
            )
        )
        proba = model.predict_proba(x_test)
        pred = proba.argmax(axis=1)
        true_curve = reliability_curve(true_post[rows, pred], proba[rows, pred], 10, "uniform")
        metrics = all_metrics(y_test, proba)
        posteriors[label] = proba
        curves[label] = true_curve
        summary.append(
            {
                "smoother": smoother,
                "label": label,
                "mean_l1": float(l1.mean()),
                "true_ece": float(true_curve["ece"]),
                "sample_ece": metrics["ece"],
                "posterior_l1": float(np.abs(proba - true_post).sum(axis=1).mean()),
                "log_loss": metrics["log_loss"],
                "accuracy": metrics["accuracy"],
            }
        )
    return {
        "pmf_errors": pd.concat(errors, ignore_index=True),
        "summary": pd.DataFrame(summary),
        "true_log_loss": true_metrics["log_loss"],
        "true_accuracy": true_metrics["accuracy"],
        "posteriors": posteriors,
        "true_posterior": true_post,
        "y_test": y_test,
        "reliability_true": curves,
        "n_categories": k_f,
        "largest_m": largest_m,
    }


#: the share of test rows :func:`posterior_range` spans (from 5% to 95%)
RANGE_QUANTILES = (5.0, 95.0)
#: a smoother's posteriors are a "flat band" when they span less than this share of the
#: true posteriors' range
FLAT_BAND = 0.25
#: a true P(class 1 | x) spanning less than this (90% of the test rows) hardly separates
#: the classes: there is no spread for a smoother to blur
SEPARATES = 0.05
#: a spread of P(class 1 | x) at least this share of the truth's is no blur
CLEAR_BAND = 0.8
#: the smoother a flat band is held against: is the blur the learned m's, or every one's?
BASELINE = "Laplace"


def posterior_range(posterior: np.ndarray) -> tuple[float, float]:
    """The 5th and 95th percentiles of P(class 1 | x) over the test rows (two classes)."""
    low, high = np.percentile(np.asarray(posterior)[:, 1], RANGE_QUANTILES)
    return float(low), float(high)


def blur_text(study: dict, label: str = "HEB-M", where: str = "in the posteriors") -> str:
    """Whether ``label``'s posteriors blur the classes together on this study, in numbers:
    its largest learned m and the range of its P(class 1 | x) on 90% of the test rows
    against the truth's; "a flat band ``where``" when it spans under :data:`FLAT_BAND` of
    the truth's range, saying so when :data:`BASELINE`'s posteriors are a flat band too.
    A fixed sentence said the ID-like preset undoes the blur: at its 200 rows HEB-M spans
    0.11 to 0.35 where the truth spans 0.00 to 1.00."""
    ranges = _ranges(study, label)
    if ranges is None:
        return ""
    low, high, true_low, true_high = ranges
    m = study["largest_m"].get(label)
    largest = f"its largest m is {format_m(m)} and " if m is not None else ""
    text = (
        f"Here {largest}its P(class 1 | x) spans {low:.2f} to {high:.2f} on 90% of the test "
        f"rows, the truth's {true_low:.2f} to {true_high:.2f}"
    )
    if true_high - true_low < SEPARATES:  # a truth that hardly separates the classes
        return f"{text}: the truth itself barely tells the classes apart, so nothing blurs."
    if high - low < FLAT_BAND * (true_high - true_low):
        # the ID-like preset at 200 rows: HEB-M spans 0.11 to 0.35, Laplace 0.00 to 0.25;
        # the blur was told as HEB-M's alone beside HEB-M's best log-loss
        other = _ranges(study, BASELINE) if label != BASELINE else None
        if other is not None and other[1] - other[0] < FLAT_BAND * (true_high - true_low):
            return (
                f"{text}: a flat band {where}, but so is {BASELINE}'s ({other[0]:.2f} to "
                f"{other[1]:.2f}): at these counts the blur is not {label}'s alone."
            )
        return f"{text}: a flat band {where}."
    if high - low >= CLEAR_BAND * (true_high - true_low):
        return f"{text}: about the truth's spread, no blur here."
    return f"{text}."


def blurred(study: dict, label: str = "HEB-M") -> bool:
    """Whether ``label``'s posteriors are a flat band on this study (two classes, a truth
    that separates them): :func:`blur_text`'s "a flat band"."""
    ranges = _ranges(study, label)
    if ranges is None:
        return False
    low, high, true_low, true_high = ranges
    spread = true_high - true_low
    return spread >= SEPARATES and high - low < FLAT_BAND * spread


def _ranges(study: dict, label: str) -> tuple[float, float, float, float] | None:
    """:func:`posterior_range` of ``label``'s posteriors and of the truth's; None unless
    the study has two classes and ``label``."""
    if label not in study["posteriors"] or study["true_posterior"].shape[1] != 2:
        return None
    return (*posterior_range(study["posteriors"][label]), *posterior_range(study["true_posterior"]))


def smallest(summary, column: str, title: str, decimals: int = 3) -> tuple[str, str]:
    """A metric's (label, value) naming the smoother with the smallest ``column`` of
    ``summary`` (columns ``label`` and ``column``), or every smoother tied with it at the
    ``decimals`` shown (one name said three tied at 0.000 as if it alone were best)."""
    values = summary[column].round(decimals)
    tied = summary.loc[values == values.min(), "label"].tolist()
    if len(tied) == 1:
        names = tied[0]
    else:
        names = f"{and_list(tied) if len(tied) <= 3 else f'{len(tied)} smoothers'} (tied)"
    return f"{title}: {names}", f"{values.min():.{decimals}f}"
