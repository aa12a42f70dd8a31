"""Post-hoc calibration of a fitted Naive Bayes: a scikit-learn adaptor and temperature.

:class:`LogOddsView` lets scikit-learn's ``CalibratedClassifierCV`` (Platt, isotonic)
calibrate an engine model on held-out rows; :func:`fit_temperature` and
:func:`temperature_scale` are temperature scaling (Guo et al. 2017).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin

__all__ = ["LogOddsView", "temperature_scale", "fit_temperature"]


class LogOddsView(ClassifierMixin, BaseEstimator):
    """A fitted model seen through its log-posteriors (Platt and isotonic read these).

    ``decision_function`` returns the log-odds (binary) or the log-posteriors (C > 2):
    Platt scaling is a logistic regression on the log-odds, as Platt intended.
    """

    def __init__(self, model=None):
        self.model = model

    def fit(self, X, y):  # pragma: no cover - frozen, never refitted
        return self

    @property
    def classes_(self):
        return self.model.classes_

    def decision_function(self, X):
        log_proba = self.model.predict_log_proba(X)
        if log_proba.shape[1] == 2:
            return log_proba[:, 1] - log_proba[:, 0]
        return log_proba

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def predict(self, X):
        return self.model.predict(X)

    def __sklearn_is_fitted__(self):
        return True


def temperature_scale(log_proba: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(log p / T): T > 1 softens over-confident posteriors; T = 1 is the identity."""
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"The temperature must be a positive number, got {temperature}.")
    return np.exp(log_softmax(np.asarray(log_proba, dtype=np.float64) / temperature, axis=1))


def fit_temperature(log_proba: np.ndarray, y: np.ndarray) -> float:
    """The T minimising the log-loss of softmax(log p / T) on held-out rows (Guo et al.)."""
    log_proba = np.asarray(log_proba, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    rows = np.arange(y.size)

    def nll(log_t: float) -> float:
        return float(-log_softmax(log_proba / np.exp(log_t), axis=1)[rows, y].mean())

    result = minimize_scalar(
        nll, bounds=(np.log(1e-2), np.log(1e3)), method="bounded", options={"xatol": 1e-8}
    )
    return float(np.exp(result.x))
