"""Whole-number columns whose quantile bins hide what their values tell about the target.

A column of whole numbers is binned as a number (SPEC section 1) unless declared
categorical. When its numbers are codes (a product, a department, a manager) their order
means nothing and each bin mixes unrelated values; when one value fills most rows (a count
that is 0 for 92 % of them) every quantile ties and the bins are one. Either way the values,
counted one by one, tell the target more than the bins do. This module measures both on the
same rows, each against its exact chance level (the plug-in MI's expectation with the
labels shuffled, :func:`heb.expected_mi.expected_mutual_information`), so that a column of
many values does not win by chance. The app's Dataset page and ``heb bench`` name such
columns; nothing here changes how a column is encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from heb.counts import CountTable
from heb.data.dataset import is_integer_like
from heb.data.preprocess import MISSING_LABEL
from heb.expected_mi import expected_mutual_information
from heb.smoothing import mutual_information

__all__ = [
    "SAMPLE_ROWS",
    "SIGNAL_RATIO",
    "SIGNAL_P",
    "SIGNAL_SDS",
    "SIGNAL_TERMS",
    "BinnedSignal",
    "SignalCheck",
    "binned_signal_columns",
    "chance_cost",
    "counted_positions",
    "null_mi_margin",
    "null_mi_sd",
    "value_bins",
    "whole_number_bins",
]

#: the most rows counted (drawn at random, seed 42, from a larger table: counting the
#: distinct values of ten 2-million-row columns took 3 s)
SAMPLE_ROWS = 20_000
#: a whole-number column is named when, counted value by value, its plug-in MI with the
#: target above chance is at least SIGNAL_RATIO times its bins' and exceeds theirs by
#: SIGNAL_SDS standard deviations of the value-by-value MI under shuffled labels. On the
#: benchmark files the amazon file's codes (RESOURCE, ROLE_*) gain 2.8-13.6x and adult's
#: capital-gain, whose 10 quantile bins tie into one, goes from 0 to 0.08 nats; most smooth
#: measurements (pen digits' 101 values, page-blocks' areas, segment's centroids) gain
#: 1.1-1.9x and are not named. A measurement of few values can pass too (letter's 'high',
#: 16 values in 8 bins, gains 5x): the rule weighs what the bins lose, not whether the
#: numbers are codes, and the notes say so
SIGNAL_RATIO = 2.0
SIGNAL_SDS = 4.0
#: and by at least the chi-square's own excess at this tail probability: 2 N MI is skewed
#: where (K - 1)(C - 1) is small (a mostly-zero count), so 4 sd alone let about 1 in 600
#: unrelated such columns through (a review's 5 of 3,000)
SIGNAL_P = 1e-5
#: the most work (:func:`chance_cost`: terms and cells, 0.1-0.2 us each) the chance levels
#: may take: the amazon file's 8 codes take 0.3 million (45 ms in all), letter's 16
#: columns 3 million (0.4 s); 30 codes of 5,000 values over 50 classes would take 40
#: million (4 s), of which the cheapest are weighed
SIGNAL_TERMS = 4_000_000


@dataclass(frozen=True)
class BinnedSignal:
    """What a whole-number column tells about the target, in its bins and value by value.

    Attributes
    ----------
    distinct, rows : int
        Distinct values and non-missing rows among the rows counted.
    bins : int
        K_f: the bins the encoder made (ties can merge them into fewer than ``n_bins``).
    in_bins, by_value : float
        Plug-in MI above its chance level (nats), of the bins and of the values.
    """

    distinct: int
    rows: int
    bins: int
    in_bins: float
    by_value: float


@dataclass(frozen=True)
class SignalCheck:
    """The outcome of :func:`binned_signal_columns`.

    Attributes
    ----------
    found : dict
        Column name -> :class:`BinnedSignal`, in feature order: the columns whose bins hide
        what their values tell.
    unweighed : list of str
        Whole-number columns left unweighed, past the :data:`SIGNAL_TERMS` budget.
    """

    found: dict[str, BinnedSignal]
    unweighed: list[str]


def null_mi_sd(n_values: int, n_classes: int, rows: int) -> float:
    """Standard deviation of the plug-in MI (nats) of ``n_values`` categories unrelated to
    ``n_classes`` classes over ``rows`` rows: ``2 N MI`` is about chi-square with
    ``(K - 1)(C - 1)`` degrees of freedom, so its sd is ``sqrt(2 (K-1)(C-1)) / (2 N)``."""
    freedom = max(n_values - 1, 0) * max(n_classes - 1, 0)
    return float(np.sqrt(2.0 * freedom) / (2.0 * max(rows, 1)))


def null_mi_margin(n_values: int, n_classes: int, rows: int) -> float:
    """How far above its chance level the plug-in MI (nats) of ``n_values`` categories must
    be to count: :data:`SIGNAL_SDS` null sd (:func:`null_mi_sd`), and at least the
    chi-square quantile's excess over its mean at :data:`SIGNAL_P`,
    ``(chi2.isf(p, df) - df) / (2 N)``, which the skew makes larger for small df."""
    freedom = max(n_values - 1, 0) * max(n_classes - 1, 0)
    if freedom == 0:
        return 0.0
    excess = (stats.chi2.isf(SIGNAL_P, freedom) - freedom) / (2.0 * max(rows, 1))
    return float(max(SIGNAL_SDS * null_mi_sd(n_values, n_classes, rows), excess))


def chance_cost(category_rows: np.ndarray, class_rows: np.ndarray) -> int:
    """The work of one column's exact chance level
    (:func:`heb.expected_mi.expected_mutual_information`), known before it is paid: a term
    per possible count ``max(1, a + b - N)..min(a, b)`` of every (value, class) cell, plus
    one per cell for its constant part (as many log-gammas as a term)."""
    rows = category_rows.sum()
    a, b = category_rows[:, None], class_rows[None, :]
    terms = np.maximum(np.minimum(a, b) - np.maximum(1, a + b - rows) + 1, 0)
    return int(terms.sum() + np.count_nonzero(terms))


def counted_positions(n_rows: int, sample_rows: int = SAMPLE_ROWS) -> np.ndarray | None:
    """The rows counted: None for all, else the sorted positions of ``sample_rows`` rows
    drawn at random (seed 42)."""
    if n_rows <= sample_rows:
        return None
    return np.sort(np.random.default_rng(42).choice(n_rows, sample_rows, replace=False))


def whole_number_bins(X: pd.DataFrame, kinds: dict, names: Sequence[str]) -> list[str]:
    """Of the features ``names``, those the encoder bins as numbers (``kinds[name]`` is
    ``"numeric"``, as a fitted :class:`~heb.data.Preprocessor`'s ``kinds_``) whose values
    are all whole numbers (every row)."""
    columns = {str(c): c for c in X.columns}  # integer column names are read as text
    names = [str(n) for n in names if kinds.get(str(n)) == "numeric" and str(n) in columns]
    return [name for name in names if is_integer_like(X[columns[name]])]


def value_bins(preprocessor) -> dict[str, int]:
    """Feature name -> the bins its values fall in: ``n_categories_`` less the
    ``"(missing)"`` category a ``missing="category"`` encoder adds (missing rows are not
    counted here)."""
    return {
        str(name): int(len(labels)) - int(bool(labels) and labels[-1] == MISSING_LABEL)
        for name, labels in zip(
            preprocessor.feature_names_out_, preprocessor.categories_, strict=True
        )
    }


def binned_signal_columns(
    X: pd.DataFrame,
    y: pd.Series,
    preprocessor,
    names: Sequence[str] | None = None,
    sample_rows: int = SAMPLE_ROWS,
) -> SignalCheck:
    """Whole-number columns binned as numbers whose bins hide what their values tell.

    Parameters
    ----------
    X, y : DataFrame, Series
        The features and the target (no missing target), row for row.
    preprocessor : heb.data.Preprocessor
        Fitted on these features: its bins are the ones weighed.
    names : sequence of str, optional
        The columns to weigh; default :func:`whole_number_bins` of every feature. Those
        with no more values than bins are skipped (their bins are their values).
    sample_rows : int
        Past this many rows, a random sample (seed 42, :func:`counted_positions`).

    Returns
    -------
    SignalCheck
        A column is found when its values tell at least :data:`SIGNAL_RATIO` times what
        its bins tell and :data:`SIGNAL_SDS` null standard deviations more. The chance
        levels cost a term per possible cell count (:func:`chance_cost`): columns are
        weighed cheapest first, up to :data:`SIGNAL_TERMS` in all, the rest unweighed.
    """
    features = [str(n) for n in preprocessor.feature_names_out_]
    if names is None:
        names = whole_number_bins(X, preprocessor.kinds_, features)
    n_categories = value_bins(preprocessor)
    picked = counted_positions(len(X), sample_rows)
    counted = X if picked is None else X.iloc[picked]
    counted = counted.set_axis([str(c) for c in counted.columns], axis=1)
    names = [str(n) for n in names]
    names = [n for n in names if counted[n].nunique(dropna=True) > n_categories[n]]
    if not names:
        return SignalCheck({}, [])
    labels = pd.factorize(y if picked is None else y.iloc[picked])[0]
    binned = preprocessor.transform(counted)  # missing -> -1: not counted
    position = {name: j for j, name in enumerate(features)}
    columns = {}
    for name in names:
        # the same rows for both codings: a value the bins cannot code (inf) is left out
        observed = counted[name].notna().to_numpy() & (labels >= 0)
        observed &= binned[:, position[name]] >= 0
        values = pd.factorize(counted[name][observed])[0]
        kept = labels[observed]
        class_rows = np.bincount(kept)
        classes = np.count_nonzero(class_rows)
        if classes < 2:
            continue
        cost = chance_cost(np.bincount(values), class_rows[class_rows > 0])
        columns[name] = (cost, observed, values, kept, classes)
    weighed, spent = [], 0
    for name in sorted(columns, key=lambda n: columns[n][0]):
        spent += columns[name][0]
        if spent > SIGNAL_TERMS:
            break
        weighed.append(name)
    found = {}
    for name in [n for n in names if n in weighed]:  # feature order
        _, observed, values, kept, classes = columns[name]
        codes = np.column_stack((binned[observed, position[name]], values))
        table = CountTable.from_codes(codes, kept, int(kept.max()) + 1)
        in_bins, by_value = mutual_information(table) - expected_mutual_information(table)
        distinct, rows = int(values.max()) + 1, int(observed.sum())
        margin = null_mi_margin(distinct, int(classes), rows)
        if by_value >= SIGNAL_RATIO * in_bins and by_value - in_bins >= margin:
            found[name] = BinnedSignal(
                distinct, rows, int(n_categories[name]), float(in_bins), float(by_value)
            )
    return SignalCheck(found, [n for n in names if n in columns and n not in weighed])
