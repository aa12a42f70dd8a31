"""Scoring streamed rows: each row coded once, scored by its own fold's models.

:class:`StackedNB` scores several fitted :class:`~heb.nb.NaiveBayes` models of one fold in
one gather per feature: their log-probability tables share the fold's columns, so they
are stacked side by side into one (V + 1, M * C) table (the last row zeros: absent
evidence). The arithmetic is :func:`heb.nb.score_codes` and
``CategoricalClassifier.predict_proba`` term by term in the same order (a weight of 1.0
multiplies exactly), so the probabilities are bit-identical to ``model.predict_proba``.

:class:`FoldScorer` is the function a scan maps over batches of rows (``__fold``, ``__y``
and the feature columns); it returns :class:`~heb.scale.streaming_metrics.MetricSums`
per (method, fold). It holds only dictionaries, encodings and fitted tables, so Spark
can ship it to its workers.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from heb.nb import NaiveBayes
from heb.scale.counting import FittedFold, Histograms, class_codes
from heb.scale.sql import FOLD, TARGET
from heb.scale.streaming_metrics import MetricSums

__all__ = ["StackedNB", "FoldModels", "FoldScorer", "merge_sums"]


class StackedNB:
    """Several NaiveBayes models fitted on the same fold's columns, scored together.

    Parameters
    ----------
    models : list of NaiveBayes
        Fitted on count tables with identical offsets.
    """

    def __init__(self, models: list[NaiveBayes]):
        first = models[0].count_table_.offsets
        for model in models:
            if not np.array_equal(model.count_table_.offsets, first):
                raise ValueError("Stacked models must share their count table's columns.")
        self.offsets = first
        n_models, n_classes = len(models), models[0].class_log_prior_.size
        width = int(first[-1])
        table = np.zeros((width + 1, n_models, n_classes))
        for m, model in enumerate(models):
            table[:-1, m, :] = model.dense_log_prob().T
        self.table = table.reshape(width + 1, n_models * n_classes)
        self.weights = np.stack([model.feature_weights_ for model in models])  # (M, F)
        self.class_log_prior = np.stack([model.class_log_prior_ for model in models])
        self.shape = (n_models, n_classes)

    def predict_proba(self, codes: np.ndarray) -> list[np.ndarray]:
        """Probabilities (n, C) of each stacked model, in order."""
        n_models, n_classes = self.shape
        n_rows, n_features = codes.shape
        width = self.table.shape[0] - 1
        valid = (codes >= 0) & (codes < np.diff(self.offsets))
        index = np.where(valid, self.offsets[:-1] + codes, width)
        out = np.zeros((n_rows, n_models * n_classes))
        gathered = np.empty_like(out)
        unweighted = np.all(self.weights == 1.0, axis=0)  # 1.0 * x == x: skip the product
        for f in range(n_features):
            self.table.take(index[:, f], axis=0, out=gathered)
            if unweighted[f]:
                out += gathered
            else:
                weights = np.repeat(self.weights[:, f], n_classes)
                out += weights * gathered
        out = out.reshape(n_rows, n_models, n_classes)
        probas = []
        for m in range(n_models):
            joint = out[:, m, :] + self.class_log_prior[m]
            proba = np.exp(joint - joint.max(axis=1, keepdims=True))
            proba /= proba.sum(axis=1, keepdims=True)
            probas.append(proba)
        return probas


class FoldModels:
    """The fitted models of one fold: NaiveBayes ones stacked, others (AODE) as they are.

    Parameters
    ----------
    models : list of (name, estimator)
    """

    def __init__(self, models: list[tuple[str, object]]):
        nb = [(name, model) for name, model in models if isinstance(model, NaiveBayes)]
        self.nb_names = [name for name, _ in nb]
        self.stacked = StackedNB([m for _, m in nb]) if nb else None
        self.others = [(n, m) for n, m in models if not isinstance(m, NaiveBayes)]

    def predict_proba(self, codes: np.ndarray) -> list[tuple[str, np.ndarray, float]]:
        """(method, probabilities (n, C), seconds) of every model on scoring codes (n, F)."""
        timed = []
        if self.stacked is not None:
            start = time.perf_counter()
            probas = self.stacked.predict_proba(codes)
            share = (time.perf_counter() - start) / len(probas)
            timed += [(name, p, share) for name, p in zip(self.nb_names, probas, strict=True)]
        for name, model in self.others:
            start = time.perf_counter()
            proba = model.predict_proba(codes)
            timed.append((name, proba, time.perf_counter() - start))
        return timed


class FoldScorer:
    """Scores batches of rows of some folds with their fitted models.

    Parameters
    ----------
    histograms : Histograms
        Source of the feature dictionaries (the histograms themselves are not kept).
    fitted : list of FittedFold
        The folds this scorer handles.
    models : dict
        (method, fold) -> fitted estimator, for the folds in ``fitted``.
    """

    def __init__(self, histograms: Histograms, fitted: list[FittedFold], models: dict):
        self.n_classes = histograms.classes.size
        self.class_index = pd.Index(histograms.classes)
        used = sorted({int(i) for f in fitted for i in f.features})
        self.values = {i: histograms.values[i].dictionary_only() for i in used}
        self.folds = {f.fold: (f.features, f.encodings) for f in fitted}
        self.models = {
            fold: FoldModels([(name, m) for (name, k), m in models.items() if k == fold])
            for fold in self.folds
        }

    def __call__(self, frame: pd.DataFrame) -> dict:
        """MetricSums per (method, fold) of one batch."""
        y_all = class_codes(self.class_index, frame[TARGET].to_numpy())
        fold_all = frame[FOLD].to_numpy()
        row_keys = {i: v.row_keys(frame[v.name]) for i, v in self.values.items()}
        out: dict = {}
        for fold in np.unique(fold_all):
            fold = int(fold)
            if fold not in self.folds:
                continue
            rows = fold_all == fold
            features, encodings = self.folds[fold]
            codes = np.empty((int(rows.sum()), features.size), dtype=np.int64)
            for j, (index, encoding) in enumerate(zip(features, encodings, strict=True)):
                codes[:, j] = encoding.codes_of(row_keys[int(index)][rows])
            y = y_all[rows]
            for name, proba, seconds in self.models[fold].predict_proba(codes):
                sums = MetricSums(self.n_classes).update(y, proba)
                sums.state["seconds"] += seconds
                out[(name, fold)] = sums
        return out


def merge_sums(a: dict, b: dict) -> dict:
    """Add two dicts of MetricSums key by key (``a`` is updated and returned)."""
    for key, sums in b.items():
        if key in a:
            a[key].merge(sums)
        else:
            a[key] = sums
    return a
