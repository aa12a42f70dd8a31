"""Reference models: what an analyst would pick instead of NB, on the same folds and codes.

Three scikit-learn models take a fold's integer codes (the CV's encoding: code -1 is a
missing value, a test code >= the training K_f a category unseen in training) and are
scored with the same metrics and timed the same way as the NB family:

- ``CategoricalNB`` (alpha = 1): a missing or unseen code becomes one extra category
  per feature (code K_f), which CategoricalNB smooths like any other; NB itself leaves
  such a feature out (absent evidence), CategoricalNB cannot.
- ``TargetEncoder`` (smooth="auto", its own internal cross fitting: stratified 5 folds,
  shuffled with seed 0) followed by ``LogisticRegression``: -1 is one more category; an unseen test
  category gets the target mean, as TargetEncoder does.
- ``HistGradientBoostingClassifier`` (seed 0) with every feature native categorical: it
  takes at most 255 categories per feature (``max_bins``), so codes >= 254 are folded
  into one 'other' category 254; -1 and unseen test codes are missing values (scikit-
  learn's treatment of unknown categories). Its early stopping (on by default past
  10,000 rows) holds out a stratified tenth, which needs two rows of every class: where
  a class has one, it is off (nursery's class of 2 rows stopped the whole bench).

Each fits and predicts on one thread (OpenMP and BLAS limited with threadpoolctl): on
a 2-core machine with anything else running, HistGradientBoosting's two OpenMP threads
spin-wait for each other and its fit took 10-40x the CPU of one thread (0.27 s against
4.0 s on 100 rows; 5.6 s against 57 s on 200,000 rows x 20 features, load 5), and the
app's cross-validation workers already run side by side.

Each is an entry of :data:`heb.registry.METHODS` (``family="reference"``,
``reference=True``, params ``{"model": name}``); :data:`heb.evaluate.cv.FAMILY_ESTIMATORS`
builds them from here. This module is above the engine: it imports scikit-learn's models.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import TargetEncoder
from threadpoolctl import threadpool_limits

__all__ = ["HGB_OTHER", "REFERENCE_MODELS", "ReferenceModel", "reference_codes"]

#: HistGradientBoosting's 'other' category (max_bins = 255 allows codes 0..254)
HGB_OTHER = 254
#: TargetEncoder's cross-fitting folds (fewer where a class has fewer training rows)
ENCODER_FOLDS = 5


def _categorical_nb(n_categories: np.ndarray):
    return CategoricalNB(alpha=1.0, min_categories=n_categories + 1)


def _target_encoder_lr(n_categories: np.ndarray):
    return make_pipeline(
        TargetEncoder(
            smooth="auto", cv=StratifiedKFold(ENCODER_FOLDS, shuffle=True, random_state=0)
        ),
        LogisticRegression(max_iter=1000),
    )


def _encoder_folds(y) -> StratifiedKFold | KFold:
    """TargetEncoder's cross-fitting folds: stratified 5-fold, or, where a class has fewer
    than 5 training rows (a tiny file), plain folds as many as the rows allow (2-5)."""
    if _rarest_class(y) >= ENCODER_FOLDS:
        return StratifiedKFold(ENCODER_FOLDS, shuffle=True, random_state=0)
    return KFold(max(2, min(ENCODER_FOLDS, len(y))), shuffle=True, random_state=0)


def _rarest_class(y) -> int:
    """Rows of the rarest class of ``y``."""
    return int(np.unique(np.asarray(y), return_counts=True)[1].min())


def _hist_gradient_boosting(n_categories: np.ndarray):
    return HistGradientBoostingClassifier(
        categorical_features=np.ones(n_categories.size, dtype=bool), random_state=0
    )


#: model name -> builder from the training K_f of every feature
REFERENCE_MODELS = {
    "CategoricalNB": _categorical_nb,
    "TargetEncoder+LR": _target_encoder_lr,
    "HistGradientBoosting": _hist_gradient_boosting,
}


def reference_codes(model: str, codes: np.ndarray, n_categories: np.ndarray) -> np.ndarray:
    """The codes ``model`` is given (see the module docstring for each model's rule)."""
    codes = np.asarray(codes, dtype=np.int64)
    absent = (codes < 0) | (codes >= n_categories)
    if model == "HistGradientBoosting":
        return np.where(absent, -1, np.minimum(codes, HGB_OTHER))
    if model == "CategoricalNB":
        return np.where(absent, n_categories, codes)
    return codes


class ReferenceModel(ClassifierMixin, BaseEstimator):
    """A reference model fitted on integer codes, its probabilities over all CV classes.

    Parameters
    ----------
    model : str
        A key of :data:`REFERENCE_MODELS`.
    """

    def __init__(self, model: str = "CategoricalNB"):
        self.model = model

    def fit(self, X, y, classes=None):
        """Fit on codes ``X`` (n, F) and labels ``y``; ``classes`` are every label of the CV."""
        if self.model not in REFERENCE_MODELS:
            raise ValueError(f"Unknown reference model {self.model!r}.")
        X = np.asarray(X, dtype=np.int64)
        self.classes_ = np.unique(y) if classes is None else np.asarray(classes)
        self.n_categories_ = np.maximum(X.max(axis=0, initial=-1) + 1, 1)
        self.estimator_ = REFERENCE_MODELS[self.model](self.n_categories_)
        if self.model == "TargetEncoder+LR":
            self.estimator_.set_params(targetencoder__cv=_encoder_folds(y))
        if self.model == "HistGradientBoosting" and _rarest_class(y) < 2:
            self.estimator_.set_params(early_stopping=False)  # no stratified hold-out
        with threadpool_limits(limits=1):  # see the module docstring
            self.estimator_.fit(reference_codes(self.model, X, self.n_categories_), y)
        return self

    def predict_proba(self, X) -> np.ndarray:
        """P(class | codes) over ``classes_`` (0 for a class absent from the training rows)."""
        codes = reference_codes(self.model, X, self.n_categories_)
        with threadpool_limits(limits=1):
            proba = self.estimator_.predict_proba(codes)
        out = np.zeros((proba.shape[0], self.classes_.size))
        out[:, np.searchsorted(self.classes_, self.estimator_.classes_)] = proba
        return out

    def predict(self, X) -> np.ndarray:
        """The most probable class."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
