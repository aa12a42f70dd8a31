"""Lesson 5: double counting and calibration (upstream fixes against post-hoc calibration).

Entry points: :func:`calibration_data`, :func:`most_informative_feature`,
:func:`duplicate_feature`, :func:`double_counting_sweep`, :func:`calibration_comparison`,
:func:`complementarity`. The post-hoc calibrators are :mod:`heb.lessons.calibrators`'.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from heb.counts import CountTable
from heb.lessons.calibrators import LogOddsView, fit_temperature, temperature_scale
from heb.lessons.paired_noise import (
    difference_kind,
    format_gap,
    format_small,
    paired_difference_se,
)
from heb.metrics import all_metrics, reliability
from heb.nb import NaiveBayes, score_codes
from heb.smoothing import mutual_information

__all__ = [
    "CALIBRATION_DATASETS",
    "CALIBRATION_MODELS",
    "POST_HOC",
    "calibration_data",
    "duplicate_feature",
    "feature_scores",
    "feature_log_odds",
    "double_counting_sweep",
    "calibration_comparison",
    "most_informative_feature",
    "complementarity",
    "verdict_text",
    "temperature_text",
    "double_counting_text",
    "reliability_text",
]

#: the lesson's datasets, by bare name: the select box in its text column (230 px at
#: 1280 px with the sidebar open) cut "synthetic (NB assumption ho..."; calibration_data's
#: "description" says the rest under it
CALIBRATION_DATASETS = ("synthetic", "breast-cancer", "known-truth", "zip-codes")
#: what the synthetic data is (a built-in dataset's own description says what it is)
SYNTHETIC_DESCRIPTION = (
    "4,000 rows sampled from a Naive Bayes model with 8 features: its assumption holds, "
    "so only the copies break it."
)


def duplicate_feature(codes: np.ndarray, feature: int, copies: int) -> np.ndarray:
    """The codes with feature ``feature`` present ``copies`` times in total (appended)."""
    codes = np.asarray(codes)
    if copies < 1:
        raise ValueError("A feature is present at least once (copies >= 1).")
    if not 0 <= feature < codes.shape[1]:
        raise ValueError(f"There is no feature number {feature}.")
    extra = np.repeat(codes[:, [feature]], copies - 1, axis=1)
    return np.concatenate([codes, extra], axis=1)


def feature_scores(model: NaiveBayes, codes: np.ndarray, features: Sequence[int]) -> np.ndarray:
    """The given features' summed (weighted) log-likelihoods per row and class, (n, C)."""
    codes = np.asarray(codes)
    keep = np.zeros(codes.shape[1], dtype=bool)
    keep[list(features)] = True
    masked = np.where(keep[None, :], codes, -1)  # the other features become absent evidence
    return score_codes(
        model.feature_log_prob_, model.count_table_.offsets, masked, model.feature_weights_
    )


def feature_log_odds(model: NaiveBayes, codes: np.ndarray, features: Sequence[int]) -> np.ndarray:
    """Contribution of ``features`` to the log-odds log P(1 | x) - log P(0 | x), per row.

    Binary models only: sum over the given features of w_f (log theta_1 - log theta_0).
    """
    if model.classes_.size != 2:
        raise ValueError("Log-odds need exactly two classes.")
    scores = feature_scores(model, codes, features)
    return scores[:, 1] - scores[:, 0]


def calibration_data(name: str = "synthetic", seed: int = 0) -> dict:
    """A dataset for the calibration lesson as integer codes.

    ``"synthetic"`` samples 4,000 rows of 8 features from a known Naive Bayes model with
    Dirichlet(2) conditionals (the independence assumption holds, so only the duplication
    breaks it; about 88% accuracy, so confidences spread over the bins); any other name is
    a built-in dataset of :mod:`heb.data`, encoded with :class:`heb.data.Preprocessor`.

    Returns
    -------
    dict
        ``codes`` (n, F), ``y`` (n,), ``feature_names``, ``class_names`` and
        ``description`` (one sentence: what the data is).
    """
    if name == "synthetic":
        from heb.synthetic import sample_naive_bayes

        codes, y, _ = sample_naive_bayes(
            4000, [6, 4, 8, 5, 3, 10, 6, 4], n_classes=2, alpha_dir=2.0, seed=seed
        )
        return {
            "codes": np.asarray(codes),
            "y": np.asarray(y),
            "feature_names": [f"x{i + 1}" for i in range(np.asarray(codes).shape[1])],
            "class_names": ["class 0", "class 1"],
            "description": SYNTHETIC_DESCRIPTION,
        }
    from heb.data import Preprocessor, encode_target, load_builtin

    dataset = load_builtin(name)
    pre = Preprocessor(categorical=dataset.categorical)
    codes = pre.fit_transform(dataset.X)
    y, classes = encode_target(dataset.y)
    return {
        "codes": np.asarray(codes),
        "y": np.asarray(y),
        "feature_names": list(pre.feature_names_out_),
        "class_names": [str(c) for c in classes],
        "description": dataset.description,
    }


def _split(codes: np.ndarray, y: np.ndarray, seed: int):
    """Stratified 50 / 25 / 25 split: train, calibration, test."""
    idx = np.arange(y.size)
    train, rest = train_test_split(idx, test_size=0.5, stratify=y, random_state=seed)
    calib, test = train_test_split(rest, test_size=0.5, stratify=y[rest], random_state=seed)
    return train, calib, test


def _fit(codes, y, classes, n_categories, **params) -> NaiveBayes:
    table = CountTable.from_codes(codes, y, classes.size, n_categories=n_categories)
    return NaiveBayes(**params).fit_counts(table, classes)


def double_counting_sweep(
    codes: np.ndarray,
    y: np.ndarray,
    feature: int,
    max_copies: int = 10,
    smoother: str = "laplace",
    seed: int = 0,
) -> dict:
    """Duplicate one feature 1..max_copies times; watch the log-odds scale and the ECE.

    The model is trained on half the rows and scored on a quarter (the same test rows
    as :func:`calibration_comparison`).

    Returns
    -------
    dict
        ``copies`` (k,), ``ece``, ``log_loss``, ``accuracy``, ``brier`` (k,) on the test
        rows; ``log_odds_scale`` (k,) the mean over test rows of the spread (max - min over
        classes) of the copies' summed log-likelihoods: |log-odds| of the feature for two
        classes, exactly k times that of one copy; ``mean_confidence`` (k,);
        ``reliability`` dict copies -> reliability dict; ``y_test`` (n,) the test rows'
        classes and ``proba`` dict copies -> their probabilities (n, C), for the noise of
        a difference (:mod:`heb.lessons.paired_noise`); ``n_classes``.
    """
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.int64)
    if max_copies < 1:
        raise ValueError("max_copies must be at least 1.")
    classes = np.arange(int(y.max()) + 1)
    train, _, test = _split(codes, y, seed)
    out = {
        k: [] for k in ("ece", "log_loss", "accuracy", "brier", "log_odds_scale", "mean_confidence")
    }
    curves, probas = {}, {}
    copies = np.arange(1, max_copies + 1)
    for k in copies:  # one model per number of copies
        dup = duplicate_feature(codes, feature, int(k))
        model = _fit(dup[train], y[train], classes, dup.max(axis=0) + 1, smoother=smoother)
        proba = model.predict_proba(dup[test])
        metrics = all_metrics(y[test], proba)
        for key in ("ece", "log_loss", "accuracy", "brier"):
            out[key].append(metrics[key])
        out["mean_confidence"].append(float(proba.max(axis=1).mean()))
        dup_features = [feature, *range(codes.shape[1], dup.shape[1])]
        scores = feature_scores(model, dup[test], dup_features)
        out["log_odds_scale"].append(float(np.ptp(scores, axis=1).mean()))
        curves[int(k)] = reliability(y[test], proba)
        probas[int(k)] = proba
    result = {key: np.array(values) for key, values in out.items()}
    result["copies"] = copies
    result["reliability"] = curves
    result["y_test"] = y[test]
    result["proba"] = probas
    result["n_classes"] = int(classes.size)
    return result


#: upstream models compared in lesson 5: display name -> NaiveBayes parameters
CALIBRATION_MODELS = {
    "Laplace": {"smoother": "laplace"},
    "HEB-M": {"smoother": "heb-m"},
    "HEB-M+GR": {"smoother": "heb-m", "weighting": "sqrt-mi"},
}
#: post-hoc calibrations compared in lesson 5
POST_HOC = ("none", "Platt", "isotonic", "temperature")


def calibration_comparison(
    codes: np.ndarray, y: np.ndarray, feature: int, copies: int, seed: int = 0
) -> dict:
    """Upstream fixes (HEB-M, sqrt-MI weights) against post-hoc calibration, and both.

    Train on half the rows, fit each post-hoc calibrator on a quarter (Platt and isotonic
    through scikit-learn's ``CalibratedClassifierCV`` on a frozen model; temperature by
    :func:`fit_temperature`), score on the last quarter.

    Returns
    -------
    dict
        ``table`` DataFrame (model, calibration, method, ece, log_loss, brier, accuracy,
        temperature); ``reliability`` dict method -> reliability dict, method names like
        ``"HEB-M + temperature"``; ``y_test`` (n,) the test rows' classes and ``proba``
        dict method -> their probabilities (n, C).
    """
    codes = duplicate_feature(np.asarray(codes), feature, copies)
    y = np.asarray(y, dtype=np.int64)
    with threadpool_limits(limits=1):  # tiny L-BFGS problems: BLAS threads only add overhead
        return _compare_calibrations(codes, y, seed)


def _compare_calibrations(codes: np.ndarray, y: np.ndarray, seed: int) -> dict:
    classes = np.arange(int(y.max()) + 1)
    train, calib, test = _split(codes, y, seed)
    rows, curves, probas = [], {}, {}
    for model_name, params in CALIBRATION_MODELS.items():
        model = _fit(codes[train], y[train], classes, codes.max(axis=0) + 1, **params)
        view = LogOddsView(model)
        temperature = fit_temperature(model.predict_log_proba(codes[calib]), y[calib])
        for post in POST_HOC:
            if post == "none":
                proba = model.predict_proba(codes[test])
            elif post == "temperature":
                proba = temperature_scale(model.predict_log_proba(codes[test]), temperature)
            else:
                method = "sigmoid" if post == "Platt" else "isotonic"
                calibrated = CalibratedClassifierCV(FrozenEstimator(view), method=method)
                calibrated.fit(codes[calib], y[calib])
                proba = calibrated.predict_proba(codes[test])
            label = model_name if post == "none" else f"{model_name} + {post}"
            metrics = all_metrics(y[test], proba)
            rows.append(
                {
                    "model": model_name,
                    "calibration": post,
                    "method": label,
                    "ece": metrics["ece"],
                    "log_loss": metrics["log_loss"],
                    "brier": metrics["brier"],
                    "accuracy": metrics["accuracy"],
                    "temperature": temperature if post == "temperature" else np.nan,
                }
            )
            curves[label] = reliability(y[test], proba)
            probas[label] = proba
    return {"table": pd.DataFrame(rows), "reliability": curves, "y_test": y[test], "proba": probas}


def most_informative_feature(codes: np.ndarray, y: np.ndarray) -> int:
    """The feature with the largest plug-in MI(X_f; Y), from the engine's estimate."""
    y = np.asarray(y, dtype=np.int64)
    table = CountTable.from_codes(np.asarray(codes), y, int(y.max()) + 1)
    return int(np.argmax(mutual_information(table)))


#: a difference smaller than this is shown as 0.000 by the verdict's three decimals
SHOWN_AS_ZERO = 5e-4


def complementarity(compared: dict, metric: str = "ece") -> dict:
    """Do the upstream fixes and post-hoc calibration add up, on these data, beyond noise?

    Parameters
    ----------
    compared : dict
        The result of :func:`calibration_comparison` (its table and test probabilities).
    metric : str
        A column where lower is better (``"ece"``, ``"log_loss"``, ``"brier"``).

    Returns
    -------
    dict
        ``laplace`` the plain Laplace value; ``upstream``, ``post_hoc``, ``combined``:
        (method, value) of the best upstream fix alone (HEB-M or HEB-M+GR, no post-hoc),
        the best post-hoc calibration of Laplace, and the best upstream fix followed by a
        post-hoc calibration; ``single`` the better of the first two; ``diff`` combined
        minus single and ``se`` its paired bootstrap standard error on the test rows
        (:func:`heb.lessons.paired_noise.paired_difference_se`); ``kind`` ``"lower"``
        (the combination beats both alone beyond noise), ``"noise"``, ``"negligible"``
        (under :data:`SHOWN_AS_ZERO`) or ``"higher"``; ``complementary`` ``kind ==
        "lower"``; ``n_test`` the test rows.
    """
    frame = compared["table"].set_index("method")
    upstream_rows = frame[(frame["model"] != "Laplace") & (frame["calibration"] == "none")]
    post_rows = frame[(frame["model"] == "Laplace") & (frame["calibration"] != "none")]
    both_rows = frame[(frame["model"] != "Laplace") & (frame["calibration"] != "none")]

    def best(rows: pd.DataFrame) -> tuple[str, float]:
        name = rows[metric].idxmin()
        return str(name), float(rows.loc[name, metric])

    upstream, post_hoc, combined = best(upstream_rows), best(post_rows), best(both_rows)
    single = min(upstream, post_hoc, key=lambda entry: entry[1])
    y_test, proba = compared["y_test"], compared["proba"]
    diff = combined[1] - single[1]
    se = paired_difference_se(y_test, proba[combined[0]], proba[single[0]], metric)
    kind = difference_kind(diff, se, SHOWN_AS_ZERO)
    return {
        "laplace": float(frame.loc["Laplace", metric]),
        "upstream": upstream,
        "post_hoc": post_hoc,
        "combined": combined,
        "single": single,
        "diff": diff,
        "se": se,
        "kind": kind,
        "complementary": kind == "lower",
        "n_test": int(np.asarray(y_test).shape[0]),
    }


def verdict_text(verdict: dict, label: str, copies: int) -> str:
    """The :func:`complementarity` verdict as one markdown paragraph (``label``: the metric)."""
    upstream, post_hoc, combined = verdict["upstream"], verdict["post_hoc"], verdict["combined"]
    diff, se = verdict["diff"], verdict["se"]
    size = format_small(diff)
    # the values to the difference's decimals (three at least), one more where the two
    # compared would not subtract to the difference said: at three, "Best post-hoc: Laplace
    # + Platt 0.402. Both: HEB-M + Platt 0.406" stood beside "0.0031 higher", and ECE
    # 0.039 and 0.029 beside "0.011"
    decimals = max(3, len(size.rpartition(".")[2]))
    single = verdict["single"][1]
    if format_small(round(combined[1], decimals) - round(single, decimals)) != size:
        decimals += 1  # one more: the rounded values' own difference rounds to the one said
    copies_said = "1 copy" if copies == 1 else f"{copies} copies"
    summary = (
        f"**With {copies_said}:** Laplace {label} {verdict['laplace']:.{decimals}f}. Best "
        f"upstream fix: {upstream[0]} {upstream[1]:.{decimals}f}. Best post-hoc: "
        f"{post_hoc[0]} {post_hoc[1]:.{decimals}f}. Both: {combined[0]} "
        f"{combined[1]:.{decimals}f}. "
    )
    side = "lower" if diff < 0 else "higher"
    against = (
        f"than the best single remedy, {verdict['single'][0]} (standard error {format_small(se)})"
    )
    rows = f"{verdict['n_test']:,} test rows"
    if verdict["kind"] == "lower":
        return summary + f"**Complementary here**: the combination is {size} lower {against}."
    if verdict["kind"] == "higher":
        return summary + (
            f"**Not complementary here**: the combination is {size} higher {against}."
        )
    if verdict["kind"] == "negligible":
        return summary + (
            f"**No gain worth having here**: the combination is {size} {side} {against} on {rows}."
        )
    return summary + (
        f"**Within noise here**: the combination is {size} {side} {against}, too little "
        f"to call on {rows}."
    )


def temperature_text(table: pd.DataFrame) -> str:
    """The fitted temperatures of a :func:`calibration_comparison` table, as a sentence
    (what T > 1 and, where one was fitted, T < 1 do)."""
    fitted = table.dropna(subset=["temperature"])
    listed = ", ".join(
        f"{model} T = {t:.2f}"
        for model, t in zip(fitted["model"], fitted["temperature"], strict=True)
    )
    meaning = "T > 1 softens over-confident posteriors"
    if (fitted["temperature"] < 1).any():
        meaning += ", T < 1 sharpens under-confident ones"
    return f"Fitted temperatures: {listed} ({meaning})."


#: an ECE change smaller than this (beyond noise) "barely moves" in
#: :func:`double_counting_text`; a confidence change smaller than this "stays"
ECE_CHANGE = 0.005


def double_counting_text(sweep: dict, copies: int) -> str:
    """What the :func:`double_counting_sweep` shows from 1 to ``copies`` copies, in words
    with its numbers: accuracy, mean confidence and ECE at both ends, and whether the
    over-confidence grows beyond the noise of the test rows (a fixed "the confidence
    inflates: the ECE grows" was false on breast-cancer, whose confidence is 0.99 with
    one copy; "the ECE grows" was then said of +0.005 on 143 test rows)."""
    k = int(copies)
    if k == 1:
        return (
            "With one copy nothing is counted twice yet: raise k to count the feature's "
            "evidence k times."
        )
    at = k - 1
    acc, conf, ece = (sweep[key] for key in ("accuracy", "mean_confidence", "ece"))
    numbers = (
        f"From 1 to {k} copies accuracy goes {acc[0]:.3f} → {acc[at]:.3f}, mean confidence "
        f"{conf[0]:.3f} → {conf[at]:.3f}, ECE {ece[0]:.3f} → {ece[at]:.3f}"
    )
    y_test = sweep["y_test"]
    diff = float(ece[at] - ece[0])
    se = paired_difference_se(y_test, sweep["proba"][k], sweep["proba"][1], "ece")
    kind = difference_kind(diff, se, ECE_CHANGE)
    if kind == "higher":
        if conf[at] - conf[0] >= ECE_CHANGE:
            return f"{numbers}: the confidence inflates, **the ECE grows**."
        if acc[at] < acc[0]:
            return f"{numbers}: the confidence stays while the accuracy falls, **the ECE grows**."
        return f"{numbers}: **the ECE grows**."
    if kind == "lower":
        return f"{numbers}: here the ECE falls."
    already = f" With one copy the confidence is already {conf[0]:.3f}." if conf[0] >= 0.9 else ""
    if kind == "noise":
        return (
            f"{numbers}: the ECE's change, {format_gap(diff, se)}, is within noise on "
            f"{y_test.shape[0]:,} test rows.{already}"
        )
    return f"{numbers}: the ECE barely moves here.{already}"


def reliability_text(curve: dict, copies: int, min_rows: int = 0) -> str:
    """Where the reliability diagram's points lie at ``copies`` copies: how many of its
    occupied bins fall below the diagonal (over-confident) and above it, and how many are
    drawn as grey hollow points off the curve, having fewer than ``min_rows`` rows (the
    figure's rule; unexplained, they puzzled a trial's reader)."""
    count = np.asarray(curve["count"])
    rows = count > 0
    gap = np.asarray(curve["accuracy"])[rows] - np.asarray(curve["confidence"])[rows]
    below, above = int((gap < 0).sum()), int((gap > 0).sum())
    k = f"{int(copies)} {'copy' if int(copies) == 1 else 'copies'}"
    verb = "lies" if below == 1 else "lie"
    text = (
        f"With {k}, {below} of the {int(rows.sum())} occupied bins {verb} below the "
        f"diagonal (surer than right) and {above} above it."
    )
    small = int((rows & (count < min_rows)).sum())
    if small:
        points = (
            "grey hollow point is a bin" if small == 1 else f"{small} grey hollow points are bins"
        )
        text += f" The {points} of fewer than {min_rows} rows, off the curve."
    return text
