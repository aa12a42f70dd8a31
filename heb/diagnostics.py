"""A fitted model's learned concentrations as a table, with class labels and feature names.

``model.concentrations_`` holds one array per column and numbers the classes and features
(positions in ``classes_`` and in the model's input). :func:`concentration_table` turns
that into a :class:`pandas.DataFrame` a reader can sort and filter: the numbers stay, and
the class label and feature name stand beside them. It takes a :class:`~heb.nb.NaiveBayes`,
an :class:`~heb.aode.AODE` / :class:`~heb.tan.TAN` with HEB smoothing, or a scikit-learn
``Pipeline`` ending in one of them (``heb.data.make_model``), whose
:class:`~heb.data.preprocess.Preprocessor` supplies the feature names.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

__all__ = ["concentration_table", "name_pairs"]

#: the ``parent name`` of a TAN factor with no feature parent (``parent == -1``)
NO_PARENT = "(class only)"
#: the diagnostics' columns holding a feature number (NB: feature; AODE / TAN: parent, child)
FEATURE_COLUMNS = ("feature", "parent", "child")


def name_pairs(
    diagnostics: dict, class_names: Sequence, feature_names: Sequence[str]
) -> pd.DataFrame:
    """Per-pair diagnostics as a table, a ``class name`` and ``<column> name`` added.

    Parameters
    ----------
    diagnostics : dict of ndarray
        A model's ``concentrations_``.
    class_names : sequence
        The label of each class number (``classes_``).
    feature_names : sequence of str
        The name of each feature number.
    """
    frame = pd.DataFrame(diagnostics)
    numbers = [np.asarray(frame[c]) for c in FEATURE_COLUMNS if c in frame]
    needed = 1 + max((int(n.max(initial=-1)) for n in numbers), default=-1)
    if len(feature_names) < needed:
        raise ValueError(
            f"{len(feature_names)} feature names were given for a model of at least "
            f"{needed} features."
        )
    frame.insert(0, "class name", [class_names[c] for c in frame["class"]])
    named = [column for column in FEATURE_COLUMNS if column in frame]
    for place, column in enumerate(named, start=1):
        # a TAN factor with parent -1 is P(x_child | y) alone: no feature is its parent
        names = [feature_names[f] if f >= 0 else NO_PARENT for f in frame[column]]
        frame.insert(place, f"{column} name", names)
    return frame


def _model_and_names(model, feature_names: Sequence[str] | None):
    """The smoothing model of ``model`` (a Pipeline's last step, a search's best
    estimator) and its feature names."""
    best = getattr(model, "best_estimator_", None)  # GridSearchCV / RandomizedSearchCV
    if best is not None:
        model = best
    elif hasattr(model, "param_grid") or hasattr(model, "param_distributions"):
        raise TypeError(
            f"This {type(model).__name__} has no best estimator: fit it first (with "
            "refit=True, its default), then its best model's concentrations are given."
        )
    if isinstance(model, Pipeline):
        steps = model[:-1]
        final = model[-1]
        if feature_names is None and len(steps):
            check_is_fitted(steps[-1])
            names = getattr(steps[-1], "feature_names_out_", None)
            if names is None and hasattr(steps[-1], "get_feature_names_out"):
                names = steps[-1].get_feature_names_out()
            feature_names = names
        model = final
    if not hasattr(type(model), "concentrations_"):  # a property: the class has it
        raise TypeError(
            f"A {type(model).__name__} has no learned concentrations: give a fitted "
            "NaiveBayes, AODE or TAN, or a Pipeline ending in one."
        )
    check_is_fitted(model)
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{f}" for f in range(model.n_features_in_)]
    elif len(feature_names) != model.n_features_in_:
        # more names than features would label each pair with a shifted name, silently
        # (the columns of a table whose Preprocessor dropped an empty one, say)
        raise ValueError(
            f"{len(feature_names)} feature names were given for a model of "
            f"{model.n_features_in_} features; give one name per feature (a make_model "
            "pipeline names its features itself: concentration_table(pipe))."
        )
    return model, [str(name) for name in feature_names]


def concentration_table(model, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """The learned Dirichlet concentrations of a fitted model, one row per (class, feature).

    Parameters
    ----------
    model : NaiveBayes, AODE, TAN or Pipeline
        Fitted; a Pipeline's last step is the model and the step before it names the
        features (``feature_names_out_`` or ``get_feature_names_out()``). A fitted
        ``GridSearchCV`` (or another search with ``best_estimator_``) gives its best model's.
    feature_names : sequence of str, optional
        The name of each input column; default the pipeline's, the model's
        ``feature_names_in_``, else ``x0, x1, ...``.

    Returns
    -------
    DataFrame
        ``class name`` and ``feature name`` (AODE / TAN: ``parent name``, ``child name``)
        beside every column of ``concentrations_``: N_c, K_f, m, rho = m / (N_c + m),
        iterations, converged, clamped, log_evidence, fallback.

    Raises
    ------
    ValueError
        Where the smoother learns no concentration (TE, or Laplace-smoothed AODE / TAN).
    """
    fitted, names = _model_and_names(model, feature_names)
    diagnostics = fitted.concentrations_
    if diagnostics is None:
        smoother = getattr(fitted, "smoother", "this smoother")
        raise ValueError(
            f"The {type(fitted).__name__} with smoother={smoother!r} learns no "
            "concentration; HEB smoothing does (smoother='heb-m' or 'heb-u' for NaiveBayes, "
            "'heb' for AODE and TAN)."
        )
    return name_pairs(diagnostics, list(fitted.classes_), names)
