"""The paper's protocol on a real dataset, rebuilt from SPEC without the engine's encoding or
smoothers: stratified 10-fold CV (shuffled, seed 42); per training fold, the mode imputes a
missing value and the categories are the distinct training values; a missing or unseen
value at test time is absent evidence; pi_c = (N_c + 1) / (S + C); Laplace, the m-estimate
(m = 2, pooled marginal) and TE (k0 = 10) by SPEC 3's formulas; log-loss clipped at 1e-15.
The vote dataset has missing cells in most columns.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from heb.data.shared import load_shared
from heb.evaluate.cv import cross_validate

METHODS = ("Laplace", "m-estimate", "TE")


def _theta(counts, method):
    n_c = counts.sum(axis=1, keepdims=True)
    n_v = counts.sum(axis=0)
    s = n_v.sum()
    if method == "Laplace":
        return (counts + 1) / (n_c + counts.shape[1])
    if method == "m-estimate":
        return (counts + 2 * n_v / s) / (n_c + 2)
    lam = n_v / (n_v + 10)  # TE
    mass = (lam * counts / n_v + (1 - lam) * n_c / s) * n_v
    return mass / mass.sum(axis=1, keepdims=True)


def _fold_scores(X_train, y_train, X_test, C):
    scores = {
        m: np.tile(
            np.log((np.bincount(y_train, minlength=C) + 1) / (len(y_train) + C)), (len(X_test), 1)
        )
        for m in METHODS
    }
    for column in X_train.columns:
        train = X_train[column].astype(object)
        if train.isna().all():
            continue
        counts_by_value = train.dropna().astype(str).value_counts().sort_index()
        mode = counts_by_value.idxmax()
        train = train.where(train.notna(), mode).astype(str).to_numpy()
        categories = np.unique(train)
        counts = np.zeros((C, categories.size))
        np.add.at(counts, (y_train, np.searchsorted(categories, train)), 1.0)
        test = X_test[column].astype(object)
        known = test.notna().to_numpy() & test.astype(str).isin(categories).to_numpy()
        codes = np.searchsorted(categories, test[known].astype(str).to_numpy())
        for method in METHODS:
            scores[method][known] += np.log(_theta(counts, method))[:, codes].T
    return scores


def test_vote_cross_validation_is_specs_protocol(datasets_dir):
    dataset = load_shared("vote", datasets_dir)
    assert set(dataset.categorical) == set(dataset.X.columns)
    assert dataset.X.isna().any().sum() >= 10
    folds = cross_validate(dataset, list(METHODS), use_cache=False).folds
    classes, y = np.unique(np.asarray(dataset.y), return_inverse=True)
    splitter = StratifiedKFold(10, shuffle=True, random_state=42)
    for k, (train, test) in enumerate(splitter.split(np.zeros(y.size), y)):
        scores = _fold_scores(dataset.X.iloc[train], y[train], dataset.X.iloc[test], classes.size)
        for method, score in scores.items():
            proba = np.exp(score - score.max(axis=1, keepdims=True))
            proba /= proba.sum(axis=1, keepdims=True)
            truth = proba[np.arange(test.size), y[test]]
            row = folds[(folds["method"] == method) & (folds["fold"] == k)].iloc[0]
            assert row["log_loss"] == pytest.approx(
                np.mean(-np.log(np.clip(truth, 1e-15, 1))), abs=1e-12
            )
            assert row["accuracy"] == np.mean(proba.argmax(axis=1) == y[test])
