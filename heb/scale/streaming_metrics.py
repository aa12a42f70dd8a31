"""Every metric of :mod:`heb.metrics` from sufficient statistics accumulated batch by batch.

Scoring billions of rows cannot keep the probabilities, so each (method, fold) keeps sums
that add over batches and over Spark partitions: the confusion counts (accuracy, F1-macro),
the log-loss and Brier sums, the top-1 ECE bin counts and sums, and per class the rows of
each distinct score value (AUC by the Mann-Whitney formula with ties counting 1/2, as
:func:`heb.metrics.auc_ovr`). Sums are of the same terms as in memory, in another order,
so metrics agree to ~1e-15 relative.

AUC is exact while a class's distinct scores number at most ``max_distinct``; beyond
that they are merged into 2^16 bins of equal width in logit(p) on [-50, 50] (monotone, so
the ranking between bins is kept) and :meth:`MetricSums.result` states the bound:
|AUC - exact AUC| <= ``auc_bound`` = mean over classes of pairs tied in a bin / (2 P N).
"""

from __future__ import annotations

import numpy as np

from heb.metrics import LOG_LOSS_EPS, reliability_from_sums
from heb.registry import METRICS as METRIC_NAMES  # metric names, in order

__all__ = ["MetricSums", "AUC_GRID_BINS", "ECE_EDGES"]

AUC_GRID_BINS = 1 << 16
_LOGIT_RANGE = 50.0
_ECE_BINS = 10
#: the top-1 ECE's uniform bin edges, as :func:`heb.metrics.reliability` draws them
ECE_EDGES = np.arange(_ECE_BINS + 1, dtype=np.float64) / _ECE_BINS


def _to_grid(scores: np.ndarray) -> np.ndarray:
    """Bin index of each score on the logit grid (as float, for a common dtype)."""
    p = np.clip(scores, 1e-300, 1.0)
    with np.errstate(divide="ignore"):
        z = np.log(p) - np.log1p(-np.minimum(p, 1.0 - 1e-17))
    z = np.clip(np.nan_to_num(z, posinf=_LOGIT_RANGE), -_LOGIT_RANGE, _LOGIT_RANGE)
    index = np.floor((z + _LOGIT_RANGE) / (2 * _LOGIT_RANGE) * AUC_GRID_BINS)
    return np.minimum(index, AUC_GRID_BINS - 1)


def _merge_hist(values: np.ndarray, pos: np.ndarray, neg: np.ndarray):
    unique, inverse = np.unique(values, return_inverse=True)
    return (
        unique,
        np.bincount(inverse, weights=pos, minlength=unique.size),
        np.bincount(inverse, weights=neg, minlength=unique.size),
    )


class MetricSums:
    """Sufficient statistics of the fold metrics for one (method, fold).

    Parameters
    ----------
    n_classes : int
    max_distinct : int
        Distinct score values kept per class before AUC moves to the logit grid.
    """

    def __init__(self, n_classes: int, max_distinct: int = 1 << 20):
        self.n_classes = int(n_classes)
        self.max_distinct = int(max_distinct)
        C = self.n_classes
        self.state: dict[str, np.ndarray] = {
            "n": np.zeros(1),
            "true_count": np.zeros(C),
            "pred_count": np.zeros(C),
            "true_pos": np.zeros(C),
            "log_loss": np.zeros(1),
            "brier": np.zeros(1),
            "ece_count": np.zeros(_ECE_BINS),
            "ece_confidence": np.zeros(_ECE_BINS),
            "ece_correct": np.zeros(_ECE_BINS),
            # per-class views: the confusion counts (true * C + predicted) and, per
            # (class, bin) of P(class), the rows, their P(class) sum and how many are it
            "confusion": np.zeros(C * C),
            "class_rows": np.zeros(C * _ECE_BINS),
            "class_prob": np.zeros(C * _ECE_BINS),
            "class_hits": np.zeros(C * _ECE_BINS),
            "auc_grid": np.zeros(1),
            "seconds": np.zeros(1),  # time spent scoring (for predict_time)
        }
        for c in self._auc_classes():
            for part in ("values", "pos", "neg"):
                self.state[f"auc{c}_{part}"] = np.zeros(0)

    def _auc_classes(self) -> range:
        return range(1, 2) if self.n_classes == 2 else range(self.n_classes)

    # ---------------------------------------------------------------- accumulate
    def update(self, y: np.ndarray, proba: np.ndarray) -> MetricSums:
        """Add a batch: class indices (n,) and probability rows (n, C)."""
        s, C, n = self.state, self.n_classes, y.shape[0]
        if n == 0:
            return self
        if proba.min() < 0.0 or proba.max() > 1.0:  # round-off: clipped as heb.metrics does
            proba = np.clip(proba, 0.0, 1.0)
        rows = np.arange(n)
        pred = np.argmax(proba, axis=1)
        confidence = proba[rows, pred]
        correct = pred == y
        s["n"] += n
        s["true_count"] += np.bincount(y, minlength=C)
        s["pred_count"] += np.bincount(pred, minlength=C)
        s["true_pos"] += np.bincount(y[correct], minlength=C)
        s["log_loss"] -= np.sum(np.log(np.clip(proba[rows, y], LOG_LOSS_EPS, 1.0)))
        residual = proba.copy()
        residual[rows, y] -= 1.0
        s["brier"] += np.sum(residual**2)
        index = np.clip(np.searchsorted(ECE_EDGES, confidence, side="right") - 1, 0, _ECE_BINS - 1)
        s["ece_count"] += np.bincount(index, minlength=_ECE_BINS)
        s["ece_confidence"] += np.bincount(index, weights=confidence, minlength=_ECE_BINS)
        s["ece_correct"] += np.bincount(index, weights=correct.astype(float), minlength=_ECE_BINS)
        s["confusion"] += np.bincount(y * C + pred, minlength=C * C)
        self._add_class_bins(y, proba)
        batch = {}
        for c in self._auc_classes():
            positive = (y == c).astype(np.float64)
            batch[f"auc{c}_values"] = proba[:, c]
            batch[f"auc{c}_pos"] = positive
            batch[f"auc{c}_neg"] = 1.0 - positive
        self._merge_auc(batch, grid=False)
        return self

    def _add_class_bins(self, y: np.ndarray, proba: np.ndarray) -> None:
        """One-vs-rest reliability sums of every class, as
        :func:`heb.metrics.class_reliability` bins P(class) (uniform bins)."""
        s, C = self.state, self.n_classes
        index = np.searchsorted(ECE_EDGES, proba, side="right") - 1
        np.clip(index, 0, _ECE_BINS - 1, out=index)
        index += np.arange(C) * _ECE_BINS  # (n, C): class c's bins at c * B
        size = C * _ECE_BINS
        s["class_rows"] += np.bincount(index.ravel(), minlength=size)
        s["class_prob"] += np.bincount(index.ravel(), weights=proba.ravel(), minlength=size)
        is_class = (y[:, None] == np.arange(C)).astype(np.float64)
        s["class_hits"] += np.bincount(index.ravel(), weights=is_class.ravel(), minlength=size)

    def merge(self, other: MetricSums) -> MetricSums:
        """Add another accumulator of the same (method, fold), e.g. another partition's."""
        for key, value in other.state.items():
            if not key.startswith("auc"):
                self.state[key] = self.state[key] + value
        self._merge_auc(other.state, grid=bool(other.state["auc_grid"][0]))
        return self

    def _merge_auc(self, part: dict[str, np.ndarray], grid: bool) -> None:
        s = self.state
        to_grid = grid or bool(s["auc_grid"][0])
        for c in self._auc_classes():
            mine, theirs = s[f"auc{c}_values"], part[f"auc{c}_values"]
            if to_grid and not s["auc_grid"][0]:
                mine = _to_grid(mine)
            if to_grid and not grid:
                theirs = _to_grid(theirs)
            merged = _merge_hist(
                np.concatenate([mine, theirs]),
                np.concatenate([s[f"auc{c}_pos"], part[f"auc{c}_pos"]]),
                np.concatenate([s[f"auc{c}_neg"], part[f"auc{c}_neg"]]),
            )
            s[f"auc{c}_values"], s[f"auc{c}_pos"], s[f"auc{c}_neg"] = merged
        s["auc_grid"] = np.array([float(to_grid)])
        if not to_grid and any(
            s[f"auc{c}_values"].size > self.max_distinct for c in self._auc_classes()
        ):
            self._merge_auc({k: np.zeros(0) for k in s if k.startswith("auc") and "_" in k}, True)

    # ---------------------------------------------------------------- results
    def _auc(self) -> tuple[float, float]:
        aucs, bounds = [], []
        for c in self._auc_classes():
            pos, neg = self.state[f"auc{c}_pos"], self.state[f"auc{c}_neg"]
            n_pos, n_neg = pos.sum(), neg.sum()
            if n_pos == 0 or n_neg == 0:
                continue
            below = np.cumsum(neg) - neg  # negatives with a strictly lower score
            aucs.append(float(np.sum(pos * (below + 0.5 * neg)) / (n_pos * n_neg)))
            tied = float(np.sum(pos * neg)) / (2 * n_pos * n_neg)
            bounds.append(tied if self.state["auc_grid"][0] else 0.0)
        if not aucs:
            return 0.5, 0.0
        return float(np.mean(aucs)), float(np.mean(bounds))

    def reliability_bins(self) -> dict[str, np.ndarray]:
        """Per ECE bin: ``rows``, ``confidence_sum`` and ``correct_sum`` (they add over folds)."""
        s = self.state
        return {
            "rows": s["ece_count"].copy(),
            "confidence_sum": s["ece_confidence"].copy(),
            "correct_sum": s["ece_correct"].copy(),
        }

    def class_bins(self) -> dict[str, np.ndarray]:
        """The per-class sums: ``confusion`` (C, C) counts (true class per row) and, per
        (class, bin) of the one-vs-rest reliability, ``rows``, ``prob_sum``, ``hit_sum``."""
        s, C = self.state, self.n_classes
        return {
            "confusion": s["confusion"].reshape(C, C).copy(),
            "rows": s["class_rows"].reshape(C, _ECE_BINS).copy(),
            "prob_sum": s["class_prob"].reshape(C, _ECE_BINS).copy(),
            "hit_sum": s["class_hits"].reshape(C, _ECE_BINS).copy(),
        }

    def reliability(self) -> dict[str, np.ndarray | float]:
        """The reliability diagram of the rows added, as :func:`heb.metrics.reliability`."""
        bins = self.reliability_bins()
        return reliability_from_sums(
            ECE_EDGES, bins["rows"], bins["confidence_sum"], bins["correct_sum"]
        )

    def result(self) -> dict[str, float]:
        """The metrics of :data:`heb.metrics.METRIC_NAMES` plus ``auc_bound`` (0 when exact)."""
        s, C = self.state, self.n_classes
        n = float(s["n"][0])
        if n == 0:
            raise ValueError("A test fold has no rows; it cannot be scored.")
        denominator = s["true_count"] + s["pred_count"]
        f1 = np.divide(2.0 * s["true_pos"], denominator, out=np.zeros(C), where=denominator > 0)
        auc, bound = self._auc()
        out = {
            "accuracy": float(s["true_pos"].sum() / n),
            "f1_macro": float(np.mean(f1)),
            "log_loss": float(s["log_loss"][0] / n),
            "brier": float(s["brier"][0] / (n * C)),
            "auc": auc,
            "ece": float(np.sum(np.abs(s["ece_correct"] - s["ece_confidence"])) / n),
        }
        return {name: out[name] for name in METRIC_NAMES} | {"auc_bound": bound}
