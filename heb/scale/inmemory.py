"""The in-memory protocol on given folds: the reference the engine path must equal.

Per fold, :class:`heb.preprocess.Preprocessor` is fitted on the training rows, the codes
are counted (``CountTable.from_codes``; AODE by ``partial_fit``, as
:func:`heb.evaluate.cross_validate` does) and :func:`heb.metrics.all_metrics` scores the
test rows. Only the folds differ from ``heb.evaluate``: here they are given (e.g. the
engine's hash folds from :func:`fold_assignment`), so both paths see the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from heb import registry
from heb.aode import AODE
from heb.counts import CountTable
from heb.metrics import all_metrics
from heb.nb import NaiveBayes
from heb.preprocess import Preprocessor, encode_target
from heb.scale.sql import fold_query

__all__ = ["fold_assignment", "cross_validate_in_memory"]


def fold_assignment(engine, target: str, n_splits: int, seed: int) -> np.ndarray:
    """Each row's engine fold, in the source's row order (rows with a target only)."""
    table = engine.table(fold_query(engine.dialect, target, n_splits, seed))
    return table.column("__fold").to_numpy().astype(np.int64)


def _fold_models(methods, table, train_codes, y_train, n_classes, params):
    for name in methods:
        entry = registry.method(name)
        kwargs = {**entry.params, **((params or {}).get(name) or {})}
        if entry.family == "nb":
            yield name, NaiveBayes(**kwargs).fit_counts(table, np.arange(n_classes))
        else:
            model = AODE(**kwargs)
            yield name, model.partial_fit(train_codes, y_train, classes=np.arange(n_classes))


def cross_validate_in_memory(
    frame: pd.DataFrame,
    target: str,
    folds: np.ndarray,
    methods: Sequence[str] = registry.TABLE1_METHODS,
    *,
    params: dict | None = None,
    n_bins: int = 10,
    missing: str = "impute",
    categorical=None,
    return_proba: bool = False,
):
    """Per-fold metrics of the in-memory path on the given folds.

    Parameters
    ----------
    frame : DataFrame
        Features and target (rows with a missing target already dropped).
    folds : ndarray (n,)
        Fold of each row (0..k-1).

    Returns
    -------
    DataFrame (method, fold, metrics...), and with ``return_proba`` also a dict
    (method, fold) -> test probabilities and a list of per-fold CountTables.
    """
    y, classes = encode_target(frame[target])
    X = frame.drop(columns=[target])
    rows, probas, tables = [], {}, []
    for fold in range(int(folds.max()) + 1):
        train, test = folds != fold, folds == fold
        pre = Preprocessor(n_bins=n_bins, missing=missing, categorical=categorical)
        train_codes = pre.fit_transform(X[train])
        test_codes = pre.transform(X[test])
        table = CountTable.from_codes(
            train_codes, y[train], classes.size, n_categories=pre.n_categories_
        )
        tables.append(table)
        models = _fold_models(methods, table, train_codes, y[train], classes.size, params)
        for name, model in models:
            proba = model.predict_proba(test_codes)
            probas[(name, fold)] = proba
            rows.append({"method": name, "fold": fold, **all_metrics(y[test], proba)})
    result = pd.DataFrame(rows)
    return (result, probas, tables) if return_proba else result
