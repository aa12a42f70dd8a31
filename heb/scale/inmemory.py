"""The in-memory protocol on given folds: the reference the engine path must equal.

Per fold, :class:`heb.preprocess.Preprocessor` is fitted on the training rows, the codes
are counted (``CountTable.from_codes``, and AODE's ``JointCounts.from_codes``, with the
Preprocessor's K_f) and :func:`heb.metrics.all_metrics` scores the
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
from heb.data import Preprocessor, encode_target
from heb.joint_counts import JointCounts
from heb.metrics import all_metrics
from heb.nb import NaiveBayes
from heb.scale.sql import fold_query

__all__ = ["fold_assignment", "cross_validate_in_memory", "example_frame"]


def fold_assignment(engine, target: str, n_splits: int, seed: int) -> np.ndarray:
    """Each row's engine fold, in the source's row order (rows with a target only)."""
    table = engine.table(fold_query(engine.dialect, target, n_splits, seed))
    return table.column("__heb_fold").to_numpy().astype(np.int64)


def _fold_models(methods, table, train_codes, y_train, n_classes, params):
    """Every method fitted on the fold's counts, K_f the Preprocessor's (``table``'s).

    AODE's joint counts are counted from the codes with those K_f: a training code K_f (a
    value read as missing but not missing, e.g. an infinity in a categorical float column,
    which ``Preprocessor`` codes as unseen) is left out of the counts (SPEC section 1), as
    NB leaves it out; ``AODE.partial_fit`` would take K_f = max code + 1 and count it as a
    category of its own.
    """
    for name in methods:
        entry = registry.method(name)
        kwargs = {**entry.params, **params.get(entry.name, {})}
        if entry.family == "nb":
            yield name, NaiveBayes(**kwargs).fit_counts(table, np.arange(n_classes))
        else:
            model = AODE(**kwargs)
            caps = (model.max_parent_cardinality, model.max_joint_cells, model.max_pairs)
            joint = JointCounts.from_codes(
                train_codes, y_train, n_classes, table.n_categories, *caps
            )
            yield name, model.fit_counts(table, joint, np.arange(n_classes))


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
    params : dict, optional
        Per-method settings keyed by method name or alias, as
        :func:`heb.evaluate.cross_validate` takes them; a method not in ``methods`` is a
        ValueError.

    Returns
    -------
    DataFrame (method, fold, metrics...), and with ``return_proba`` also a dict
    (method, fold) -> test probabilities and a list of per-fold CountTables.
    """
    # aliases reach their method; values for a method not run are refused, not dropped
    params = registry.overrides_of_run(params, registry.method_names(methods))
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


def example_frame(rows: int = 1_500, seed: int = 0) -> pd.DataFrame:
    """A small frame with every kind of column the engine path encodes (tests, docs).

    Columns: ``colour`` (text with missing), ``shop_id`` (integer ID), ``user_id`` (an ID
    stored as floats, with missing), ``price`` (floats with ties, NaN and an infinity),
    ``visits`` (integers, binned), ``member`` (bool), ``empty`` (all missing) and the
    target ``label`` (three classes, one row without a target).
    """
    rng = np.random.default_rng(seed)
    label = rng.choice(["buy", "leave", "wait"], size=rows, p=[0.3, 0.5, 0.2])
    shift = (label == "buy").astype(int) + 2 * (label == "wait")
    colour = rng.choice(["red", "green", "blue", "Black", "é"], size=rows).astype(object)
    colour[rng.random(rows) < 0.05] = None
    user = (rng.zipf(1.6, rows) % 40 + 5 * shift).astype(np.float64)
    user[rng.random(rows) < 0.04] = np.nan
    price = np.round(rng.gamma(2.0 + shift, 3.0), 1)
    price[rng.random(rows) < 0.03] = np.nan
    price[rng.integers(rows)] = np.inf
    frame = pd.DataFrame(
        {
            "colour": colour,
            "shop_id": rng.integers(0, 25, rows) * 3 + shift,
            "user_id": user,
            "price": price,
            "visits": rng.poisson(2 + shift),
            "member": rng.random(rows) < 0.3 + 0.2 * (shift == 1),
            "empty": np.full(rows, np.nan),
            "label": label.astype(object),
        }
    )
    frame.loc[rng.integers(rows), "label"] = None
    return frame
