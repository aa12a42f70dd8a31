"""Why a Naive Bayes model predicts what it does: per-feature log-odds contributions.

Naive Bayes scores are sums, so the log posterior odds of two classes a and b for a row
x split exactly into a prior term and one term per feature (Orange's nomogram)::

    log P(a | x) - log P(b | x) = [log pi_a - log pi_b]
                                  + sum_f w_f [log theta_{a,f,x_f} - log theta_{b,f,x_f}]

A missing value or a category never seen in training is absent evidence (SPEC section 1):
its term is exactly 0. Fitting one :class:`~heb.nb.NaiveBayes` per smoother on the same
counts and explaining the same row side by side shows which smoothing moved the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from heb.nb import NaiveBayes, column_numbers

__all__ = ["Explanation", "explain", "explain_smoothers", "decisive_features"]


@dataclass(frozen=True)
class Explanation:
    """The log-odds of class ``target`` against ``reference`` for some rows, split by feature.

    Attributes
    ----------
    target, reference : int
        Class indices (columns of ``classes_``) whose log posterior odds are explained.
    prior : float
        log pi_target - log pi_reference.
    contributions : ndarray (n, F)
        w_f (log theta_{target,f,x_f} - log theta_{reference,f,x_f}); 0 where absent.
    absent : ndarray (n, F) of bool
        Where the value is missing or was never seen in training (no evidence).
    log_proba : ndarray (n, C)
        The model's log posteriors of the rows.
    """

    target: int
    reference: int
    prior: float
    contributions: np.ndarray
    absent: np.ndarray
    log_proba: np.ndarray

    @property
    def log_odds(self) -> np.ndarray:
        """prior + the sum of the contributions, per row (n,)."""
        return self.prior + self.contributions.sum(axis=1)

    @property
    def predicted(self) -> np.ndarray:
        """The most probable class index of each row over all classes (n,)."""
        return np.argmax(self.log_proba, axis=1)


def _class_index(model: NaiveBayes, value: int, name: str) -> int:
    n_classes = model.classes_.size
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        # a label ("p") or a fraction (1.7) is not a position: say which index a label has
        matches = np.flatnonzero(model.classes_ == value) if np.ndim(value) == 0 else []
        hint = f"; the label {value!r} is index {matches[0]}" if len(matches) else ""
        raise ValueError(
            f"{name} must be a class index in 0..{n_classes - 1} (a position in classes_, "
            f"not a label), got {value!r}{hint}."
        )
    index = int(value)
    if not 0 <= index < n_classes:
        raise ValueError(f"{name} must be a class index in 0..{n_classes - 1}, got {value}.")
    return index


def explain(model: NaiveBayes, X, target: int, reference: int) -> Explanation:
    """Split the log posterior odds of ``target`` against ``reference`` by feature.

    Parameters
    ----------
    model : NaiveBayes
        A fitted model (a :class:`~heb.hierarchical_nb.HierarchicalNaiveBayes` too: a
        child scored given its parent feature has the within-group term).
    X : array-like (n, F)
        Integer codes of the rows to explain (negative = missing).
    target, reference : int
        Class indices (positions in ``model.classes_``), different.

    Returns
    -------
    Explanation
        ``prior + contributions.sum(axis=1)`` equals
        ``log_proba[:, target] - log_proba[:, reference]`` up to rounding.
    """
    # duck-typed: a model cached across a module reload is another class object's instance
    fitted = all(hasattr(model, name) for name in ("count_table_", "class_log_prior_"))
    if not (fitted and hasattr(model, "feature_log_prob_")):
        if hasattr(model, "steps"):  # a make_model pipeline: its last step, on its codes
            raise ValueError(
                "explain needs a fitted heb NaiveBayes model, not a pipeline: give it the "
                "pipeline's model and codes, explain(pipe[-1], pipe[:-1].transform(rows), ...)."
            )
        raise ValueError("explain needs a fitted heb NaiveBayes model.")
    target = _class_index(model, target, "target")
    reference = _class_index(model, reference, "reference")
    if target == reference:
        raise ValueError("target and reference must be two different classes.")
    codes = model._codes_for_predict(X)
    log_table = model.feature_log_prob_
    width = log_table.shape[1]
    columns = column_numbers(model.count_table_.offsets, codes, width)
    seen = model.count_table_.category_totals() > 0
    absent = columns == width
    absent[~absent] = ~seen[columns[~absent]]
    # one extra zero column: absent evidence gathers exactly 0
    difference = np.append(log_table[target] - log_table[reference], 0.0)
    contributions = difference[np.where(absent, width, columns)] * model.feature_weights_
    # HierarchicalNaiveBayes scores a child given its parent: theta(a) / phi(g(a))
    for a, rows, terms in getattr(model, "conditional_terms", lambda _: ())(codes):
        contributions[rows, a] -= terms[:, target] - terms[:, reference]
    prior = float(model.class_log_prior_[target] - model.class_log_prior_[reference])
    return Explanation(
        target=target,
        reference=reference,
        prior=prior,
        contributions=contributions,
        absent=absent,
        log_proba=model.predict_log_proba(codes),
    )


def explain_smoothers(
    models: Mapping[str, NaiveBayes], X, target: int, reference: int
) -> dict[str, Explanation]:
    """:func:`explain` of the same rows and classes under several fitted models, by name."""
    return {name: explain(model, X, target, reference) for name, model in models.items()}


def decisive_features(explanations: Mapping[str, Explanation], row: int = 0) -> np.ndarray:
    """Per feature, the spread (max - min) of its contribution over the models, for one row.

    The features with the largest spread are where the choice of smoother moved the
    log-odds most; shape (F,).
    """
    if not explanations:
        raise ValueError("Give at least one explanation.")
    n_rows = min(e.contributions.shape[0] for e in explanations.values())
    if isinstance(row, bool) or not isinstance(row, int | np.integer) or not 0 <= row < n_rows:
        raise ValueError(f"row must be a row number in 0..{n_rows - 1}, got {row!r}.")
    stacked = np.stack([e.contributions[row] for e in explanations.values()])
    return stacked.max(axis=0) - stacked.min(axis=0)
