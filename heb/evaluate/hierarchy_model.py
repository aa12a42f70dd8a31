"""A raw-DataFrame pipeline whose HEB-H hierarchies are declared by column, not by code.

``NaiveBayes(smoother="heb-h", hierarchies=...)`` reads levels in one encoding's codes.
In a :func:`heb.data.make_model` pipeline those codes belong to the Preprocessor fitted
when the levels were built, and scikit-learn's ``cross_val_score`` / ``GridSearchCV``
refit it on every fold: a fold short of some categories shifts every later code, and
the levels then name the wrong parents without an error. :class:`HierarchyPipeline`
holds the declarations instead (``"zip -> prefix 3 -> prefix 1"``, ``"ROLE_2 ->
ROLE_1"``: the app's and ``--hierarchy``'s form) and builds their levels on the codes of
each fit, as :func:`heb.evaluate.cross_validate` does on each fold::

    from heb.evaluate.hierarchy_model import make_hierarchy_model

    model = make_hierarchy_model(["zip -> prefix 3 -> prefix 1"])
    cross_val_score(model, frame, y, scoring="neg_log_loss")   # levels per fold
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.pipeline import Pipeline

from heb import registry
from heb.data.preprocess import Preprocessor, make_model
from heb.evaluate.hierarchy_specs import (
    Declared,
    binned_columns,
    left_out_notes,
    parse_hierarchies,
    resolve_levels,
)
from heb.hierarchy import NESTED_RULE

__all__ = ["HierarchyPipeline", "code_labels", "declarations", "make_hierarchy_model"]


def declarations(hierarchies) -> tuple[Declared, ...]:
    """The declarations ``hierarchies`` gives, one per feature.

    Parameters
    ----------
    hierarchies : str, Declared or iterable of them
        ``"zip -> prefix 3 -> prefix 1"`` / ``"ROLE_2 -> ROLE_1"`` (:meth:`Declared.from_text`),
        a :func:`~heb.evaluate.hierarchy_specs.hierarchies_text` JSON list, a
        :class:`Declared`, or several of these; None or empty: none.

    Raises
    ------
    ValueError
        A malformed declaration, or two for one feature.
    """
    if hierarchies is None:
        return ()
    if isinstance(hierarchies, str | Declared):
        hierarchies = [hierarchies]
    out: list[Declared] = []
    for item in hierarchies:
        if isinstance(item, Declared):
            out.append(item)
        elif isinstance(item, str) and item.lstrip().startswith("["):
            out.extend(parse_hierarchies(item))
        elif isinstance(item, str):
            out.append(Declared.from_text(item))
        else:
            raise ValueError(
                "A hierarchy is declared as text ('zip -> prefix 3 -> prefix 1', 'A -> B') or "
                f"a Declared, not a {type(item).__name__}."
            )
    features = [item.feature for item in out]
    twice = next((f for f in features if features.count(f) > 1), None)
    if twice is not None:
        raise ValueError(f"{twice!r} is given two hierarchies; declare one per column.")
    return tuple(out)


class HierarchyPipeline(Pipeline):
    """A :func:`~heb.data.make_model` pipeline that builds its classifier's HEB-H levels
    from ``hierarchies`` (declared by column) on the codes of every fit.

    Parameters
    ----------
    steps : list of (str, estimator)
        As :class:`sklearn.pipeline.Pipeline`'s; the step before the classifier is a
        :class:`heb.data.Preprocessor`, the classifier takes ``hierarchies`` (``NaiveBayes``,
        ``HierarchicalNaiveBayes``).
    hierarchies : str, Declared or iterable of them
        The declarations (:func:`declarations`). A classifier whose smoother reads no
        hierarchy (HEB-M in a grid over smoothers) is fitted without them.
    transform_input, memory, verbose
        As :class:`sklearn.pipeline.Pipeline`'s.

    Notes
    -----
    With declarations its classifier reads, ``fit`` fits the preprocessing, builds the
    levels on its codes (a parent column by its most frequent value per child, a prefix
    from the labels) and fits the classifier on those codes, taking fit parameters for the
    classifier alone (``classifier__sample_weight``); otherwise it is ``Pipeline.fit``. A
    fitted one saves with :mod:`heb.data.pipeline_io` as any ``make_model`` pipeline, its
    levels in the classifier.
    """

    def __init__(
        self, steps, *, hierarchies=(), transform_input=None, memory=None, verbose=False
    ) -> None:
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)
        self.hierarchies = hierarchies

    def fit(self, X, y=None, **params) -> HierarchyPipeline:
        """Build the declarations' levels on this fit's codes, then fit the classifier."""
        declared = declarations(self.hierarchies)
        classifier = self._final_estimator
        if "hierarchies" not in classifier.get_params(deep=False):
            kind = type(classifier).__name__
            raise ValueError(f"The classifier {kind} takes no category hierarchies.")
        if not (declared and _reads(classifier)):
            classifier.set_params(hierarchies=None)
            return super().fit(X, y, **params)
        before = self.steps[-2][1] if len(self) > 1 else None
        if not isinstance(before, Preprocessor):
            raise ValueError(
                "The step before the classifier must be a heb Preprocessor, not "
                f"{type(before).__name__ if before is not None else 'none'}: its labels give "
                "the hierarchies' levels."
            )
        prefix = f"{self.steps[-1][0]}__"
        own = {k.removeprefix(prefix): v for k, v in params.items() if k.startswith(prefix)}
        others = sorted(k for k in params if not k.startswith(prefix))
        if others:
            raise ValueError(
                "HierarchyPipeline.fit takes parameters of its classifier alone "
                f"('{prefix}sample_weight'), not {others}."
            )
        codes = self[:-1].fit_transform(X, y)  # the steps themselves, as Pipeline.fit
        classifier.set_params(hierarchies=self._levels(declared, before, codes) or None)
        classifier.fit(codes, y, **own)
        return self

    def _levels(
        self, declared: tuple[Declared, ...], preprocessor: Preprocessor, codes: np.ndarray
    ) -> dict[int, list[np.ndarray]]:
        """The levels of ``declared`` on a fitted ``preprocessor``'s ``codes``."""
        names = list(preprocessor.feature_names_out_)
        labels_of = code_labels(preprocessor)
        gone = left_out_notes(declared, names, labels_of)
        if gone:  # "<declaration>: no column 'x' here, left out." / "...: 'x' is binned, ..."
            item, note = next(iter(gone.items()))
            why = re.sub(r"[,;] left out\.$", "", note[len(item.describe()) + 2 :])
            hint = f" (categorical=[{item.feature!r}] reads it as categories)" * ("binned" in why)
            raise ValueError(f"The hierarchy {item.describe()!r} cannot apply: {why}{hint}.")
        for item in declared:  # a chain of binned numbers runs, but groups bins, not values
            binned = binned_columns(item, names, labels_of)
            if binned:
                them = " and ".join(repr(c) for c in binned)
                warnings.warn(
                    f"The hierarchy {item.describe()!r} groups the bins of {them}, not their "
                    f"values (categorical={binned!r} reads them as categories).",
                    UserWarning,
                    stacklevel=3,
                )
        return resolve_levels(declared, names, codes, labels_of)[0]


def make_hierarchy_model(
    hierarchies,
    smoother: str = "heb-h",
    n_bins: int = 10,
    missing: str = "impute",
    categorical=None,
    **nb_params,
) -> HierarchyPipeline:
    """:func:`heb.data.make_model`'s pipeline with hierarchies declared by column.

    Parameters
    ----------
    hierarchies : str, Declared or iterable of them
        ``"zip -> prefix 3 -> prefix 1"``, ``"ROLE_2 -> ROLE_1"``, ... (:func:`declarations`).
    smoother, n_bins, missing, categorical, **nb_params
        As :func:`heb.data.make_model` (``smoother`` "heb-h" by default).

    Returns
    -------
    HierarchyPipeline
        Steps ``"preprocess"`` and ``"classifier"``; unfitted.
    """
    declarations(hierarchies)  # a malformed declaration is refused here, not in a fold
    pipe = make_model(
        smoother, n_bins=n_bins, missing=missing, categorical=categorical, **nb_params
    )
    return HierarchyPipeline(pipe.steps, hierarchies=hierarchies)


def _reads(classifier) -> bool:
    """Whether ``classifier``'s smoother reads a hierarchy (HEB-H; HierarchicalNaiveBayes's
    default "heb-h" does); a classifier of hierarchies without a ``smoother`` always does."""
    smoother = classifier.get_params(deep=False).get("smoother")
    return smoother is None or registry.smoother(smoother).rule == NESTED_RULE


def code_labels(preprocessor: Preprocessor) -> Callable[[int], list | None]:
    """``labels_of(f)`` of a fitted ``preprocessor``: the labels of its output column f's
    codes, None for binned numbers (the ``labels_of`` of
    :func:`~heb.evaluate.hierarchy_specs.resolve_levels`)."""

    def labels_of(f: int) -> list | None:
        name = preprocessor.feature_names_out_[f]
        numeric = preprocessor.kinds_.get(name) == "numeric"
        return None if numeric else list(preprocessor.categories_[f])

    return labels_of
