"""The scikit-learn face shared by the classifiers over integer category codes.

:class:`CategoricalClassifier` holds what :class:`heb.nb.NaiveBayes`, :class:`heb.aode.AODE`
and :class:`heb.tan.TAN` have in common: input validation (2-D integer codes, negative or
NaN = missing), ``fit`` and ``partial_fit`` (count the chunk, add it to the counts so far,
smooth: the counts are the model; ``sample_weight`` where a subclass takes it, refused in
one sentence where it does not), the posterior family (``predict_log_proba``,
``predict_proba``, ``predict``) derived from one ``predict_joint_log_proba``, and the
estimator tags.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from heb.counts import as_codes, categories_of

__all__ = ["CategoricalClassifier", "check_clamp", "check_non_negative", "is_number"]

#: integer labels spanning fewer values than this are indexed by a bincount, not a sort
_LABEL_SPAN_FOR_BINCOUNT = 1 << 20


def _label_indices(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)``, without sorting the rows for integer labels."""
    if y.ndim == 1 and y.size and y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < _LABEL_SPAN_FOR_BINCOUNT and -(2**62) < lo <= hi < 2**62:
            shifted = y.astype(np.int64) - np.int64(lo)
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            classes = (np.flatnonzero(present) + lo).astype(y.dtype)
            position = np.cumsum(present) - 1
            return classes, position[shifted]
    return np.unique(y, return_inverse=True)


def _mixed_types_error(labels: np.ndarray, name: str = "y") -> ValueError:
    """The one sentence for class labels of types that cannot be ordered together, or
    (one type) for labels that are bytes, which scikit-learn refuses with a TypeError."""
    kinds = sorted({type(value).__name__ for value in labels.ravel().tolist()})
    if kinds == ["bytes"]:
        return ValueError(
            f"{name} holds class labels as bytes, which scikit-learn does not take; decode "
            "them to text first (for example [label.decode() for label in y])."
        )
    return ValueError(
        f"{name} mixes class labels of different types ({', '.join(kinds)}), such as '1' and 1, "
        "which cannot be ordered; give every label one type (for example y.astype(str))."
    )


def _object_labels_error(labels: np.ndarray) -> ValueError:
    """The one sentence for object labels scikit-learn calls of an "unknown" type (the
    first is not text): labels of mixed types (1 beside '1'), or numbers held as objects
    (a pandas column of dtype object), which it does not take either."""
    kinds = sorted({type(value).__name__ for value in labels.ravel().tolist()})
    if len(kinds) > 1:
        return _mixed_types_error(labels)
    return ValueError(
        f"Unknown label type: y holds its class labels ({kinds[0]}) in an array of dtype "
        "object, which scikit-learn does not take; give them their own type (for example "
        "y.astype(int) or y.astype(str))."
    )


def _missing_label(value) -> bool:
    """Whether one object label is missing: None, a NaN, or pandas' NA / NaT (known by their
    type's name: the engine does not import pandas)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)  # a float or numpy NaN
    except (TypeError, ValueError):  # an object whose comparison is not a truth value
        return False


_is_missing_label = np.vectorize(_missing_label, otypes=[bool])


def _check_no_missing_labels(y) -> None:
    """Refuse class labels that are missing (NaN, None, pandas' NA) in one sentence.

    scikit-learn's own checks say "Input contains NaN" (object labels) or fail sorting
    ``None`` beside text with a TypeError; neither names ``y`` or the row.
    """
    labels = np.asarray(y).ravel()
    if labels.dtype.kind in "fc":
        missing = np.flatnonzero(np.isnan(labels))
    elif labels.dtype.kind == "O":  # one call per label, as sklearn's own type checks
        missing = np.flatnonzero(_is_missing_label(labels))
    else:  # integer, bool and text arrays hold no NaN / None
        return
    if missing.size:
        raise ValueError(
            f"y holds {missing.size} missing class label{'s' * (missing.size > 1)} (NaN or "
            f"None, the first at row {missing[0]}); drop those rows or give them a class."
        )


def is_number(value) -> bool:
    """Whether ``value`` is a real number (NaN included): not text, None or a boolean
    (``True`` is no count of 1)."""
    return isinstance(value, int | float | np.number) and not isinstance(value, bool)


def check_non_negative(name: str, value) -> None:
    """Refuse a parameter that is not a number >= 0 (NaN, text or a boolean) in one sentence."""
    if not is_number(value) or np.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}.")


def check_clamp(m_min, m_max) -> None:
    """Refuse a clamp of the learned concentration that is not finite 0 < m_min <= m_max
    (text, None, NaN or infinity included) in one sentence; shared by every classifier."""
    if not (is_number(m_min) and is_number(m_max)):
        raise ValueError(f"m_min and m_max must be numbers, got m_min={m_min!r}, m_max={m_max!r}.")
    if not (np.isfinite(m_min) and np.isfinite(m_max) and 0 < m_min <= m_max):
        raise ValueError(f"Need finite 0 < m_min <= m_max, got m_min={m_min}, m_max={m_max}.")


class CategoricalClassifier(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Base of the classifiers over integer category codes (not an estimator by itself).

    A subclass defines ``__init__`` (its parameters, for ``get_params``),
    ``_validate_params_``, what it counts (``_count`` and ``_fitted_counts``, a tuple of
    count objects that add with ``+``), how it smooths them (``_set_counts``, which sets
    ``classes_``, ``n_categories_`` and ``count_table_``) and
    ``predict_joint_log_proba``; this class supplies the rest.
    """

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _validate_params_(self) -> None:
        """Raise ``ValueError`` on a bad constructor parameter."""

    @abstractmethod
    def _count(
        self, codes: np.ndarray, y_idx: np.ndarray, n_classes: int, n_categories: np.ndarray
    ) -> tuple:
        """The counts of a chunk of rows, as the tuple ``_set_counts`` takes first.

        A subclass whose ``fit`` takes ``sample_weight`` (:class:`heb.nb.NaiveBayes`) also
        takes the rows' validated weights as a fifth argument; codes ``>= K_f`` (of rows
        weighing 0) are then not counted.
        """

    @abstractmethod
    def _fitted_counts(self) -> tuple:
        """The counts of everything fitted so far, in ``_count``'s order."""

    @abstractmethod
    def _set_counts(self, *counts_and_classes):
        """Smooth ``(*counts, classes)`` into the fitted model; return ``self``."""

    def _learn_structure(self, codes: np.ndarray) -> None:
        """Learn what the counts do not hold, from the first chunk (default: nothing)."""

    @abstractmethod
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(y, x) up to a constant per row, shape (n, C)."""

    # ------------------------------------------------------------------ input
    def _check_xy(self, X, y, reset: bool) -> tuple[np.ndarray, np.ndarray]:
        """Validated codes (int64, missing = -1) and class labels of a training chunk."""
        if y is not None:
            _check_no_missing_labels(y)
        X, y = validate_data(
            self, X, y, reset=reset, dtype=None, ensure_all_finite="allow-nan", accept_sparse=False
        )
        if not (y.ndim == 1 and y.dtype.kind in "iub"):  # integer labels always classify
            try:
                check_classification_targets(y)
            except TypeError:  # numpy's "'<' not supported between 'int' and 'str'",
                raise _mixed_types_error(y) from None  # or sklearn's refusal of bytes
            except ValueError:  # sklearn reads object labels whose first is no text as
                if y.dtype.kind != "O":  # "unknown", whatever the others are
                    raise
                raise _object_labels_error(y) from None
        return as_codes(X), y

    def _fit_input(self, X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validate parameters and input of ``fit``.

        Returns
        -------
        codes : ndarray (n, F) of int64
        y_idx : ndarray (n,) of int
            Class index of each row in ``classes``.
        classes : ndarray (C,)
            The sorted distinct labels of ``y``.
        """
        self._validate_params_()
        codes, y = self._check_xy(X, y, reset=True)
        classes, y_idx = _label_indices(y)
        return codes, y_idx, classes

    def _partial_fit_input(
        self, X, y, classes=None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """Validate parameters and input of ``partial_fit``, and keep the classes fixed.

        ``classes`` (all labels that will ever be seen) is required on the first call and,
        if passed later, must equal the first call's.

        Returns
        -------
        codes, y_idx, all_classes : ndarray
            As from :meth:`_fit_input`, the classes being the first call's sorted labels.
        first : bool
            Whether this is the first call (nothing fitted yet).
        """
        self._validate_params_()
        first = not hasattr(self, "count_table_")
        codes, y = self._check_xy(X, y, reset=first)
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            try:
                all_classes = np.unique(np.asarray(classes))
            except TypeError:
                raise _mixed_types_error(np.asarray(classes), "classes") from None
        else:
            all_classes = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes), all_classes):
                raise ValueError("classes differ from those of the first partial_fit call.")
        unknown = np.setdiff1d(y, all_classes)
        if unknown.size:
            raise ValueError(f"y holds labels not in classes: {unknown[:5].tolist()}.")
        return codes, np.searchsorted(all_classes, y), all_classes, first

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, **fit_params):
        """Count the training rows and smooth.

        Parameters
        ----------
        X : array-like (n, F) of integer codes (negative / NaN = missing)
        y : array-like (n,) of class labels
        **fit_params
            None is taken: ``sample_weight`` belongs to :class:`heb.nb.NaiveBayes` only,
            and is refused here in one sentence.
        """
        self._refuse_fit_params(fit_params)
        return self._fit(X, y)

    def partial_fit(self, X, y, classes=None, **fit_params):
        """Add a chunk of rows to the counts and re-smooth.

        ``classes`` (all labels that will ever be seen) is required on the first call;
        what the counts do not hold (a structure) is learnt from the first chunk and kept.
        """
        self._refuse_fit_params(fit_params)
        return self._partial_fit(X, y, classes)

    def _refuse_fit_params(self, fit_params: dict) -> None:
        """Refuse ``fit`` keywords this classifier does not take, in one sentence."""
        name = type(self).__name__
        if "sample_weight" in fit_params:
            raise ValueError(
                f"{name} does not take sample_weight (NaiveBayes does): repeat each row as "
                "many times as its whole-number weight instead."
            )
        if fit_params:
            raise ValueError(f"{name}.fit takes no parameter named {sorted(fit_params)[0]!r}.")

    def _fit(self, X, y, sample_weight=None):
        """:meth:`fit`, with the rows weighted by ``sample_weight`` where one is given."""
        codes, y_idx, classes = self._fit_input(X, y)
        n_categories, extra = self._counted_categories(codes, sample_weight, first=True)
        self._learn_structure(codes)
        counts = self._count(codes, y_idx, classes.size, n_categories, *extra)
        return self._set_counts(*counts, classes)

    def _partial_fit(self, X, y, classes=None, sample_weight=None):
        """:meth:`partial_fit`, with the rows weighted by ``sample_weight`` where given."""
        codes, y_idx, all_classes, first = self._partial_fit_input(X, y, classes)
        n_categories, extra = self._counted_categories(codes, sample_weight, first)
        if first:
            self._learn_structure(codes)
        else:
            n_categories = np.maximum(n_categories, self.n_categories_)
        counts = self._count(codes, y_idx, all_classes.size, n_categories, *extra)
        if not first:
            counts = tuple(
                old + new for old, new in zip(self._fitted_counts(), counts, strict=True)
            )
        return self._set_counts(*counts, all_classes)

    def _counted_categories(self, codes: np.ndarray, sample_weight, first: bool):
        """(K_f of the rows counted, ``_count``'s extra arguments): without weights, every
        row's codes and none; with them, the codes of rows of positive weight and the
        validated weights. A class whose rows all weigh 0 stays in ``classes_`` with no
        counts, as a class named to partial_fit before any of its rows came
        (BaggingClassifier's bootstrap weights leave a rare class out so)."""
        if sample_weight is None:
            return categories_of(codes), ()
        weights = self._check_sample_weight(sample_weight, codes.shape[0], first=first)
        return categories_of(codes if weights.all() else codes[weights > 0]), (weights,)

    def _check_sample_weight(self, sample_weight, n_rows: int, first: bool) -> np.ndarray:
        """Validated per-row weights (float64), or a one-sentence ValueError.

        A weight is a finite number >= 0, one per row; ``first`` (a fit, or the first
        ``partial_fit`` call) also refuses weights that are all 0 (nothing to learn).
        """
        weights = np.asarray(sample_weight)
        if weights.ndim == 0 and is_number(weights.item()):  # one number for every row
            weights = np.full(n_rows, weights.item())
        if weights.dtype.kind not in "biuf":
            try:
                weights = weights.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError("sample_weight must hold numbers, one per row.") from None
        if weights.shape != (n_rows,):
            raise ValueError(
                f"sample_weight must hold one number per row: X has {n_rows} rows, "
                f"sample_weight has shape {weights.shape}."
            )
        weights = weights.astype(np.float64)  # a copy: the caller's array is never changed
        bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
        if bad.size:
            raise ValueError(
                "sample_weight must hold finite numbers >= 0, got "
                f"{weights[bad[0]].item()!r} at row {bad[0]}."
            )
        if first and not weights.any():
            raise ValueError(
                "sample_weight is zero for every row: at least one row needs a positive weight."
            )
        return weights

    def _codes_for_predict(self, X) -> np.ndarray:
        """Validated codes (int64, missing = -1) of rows to score, after the fit check."""
        check_is_fitted(self, "count_table_")
        X = validate_data(
            self, X, reset=False, dtype=None, ensure_all_finite="allow-nan", accept_sparse=False
        )
        return as_codes(X)

    # ------------------------------------------------------------------ posteriors
    def predict_log_proba(self, X) -> np.ndarray:
        """Log posteriors by log-sum-exp, shape (n, C); always finite."""
        joint = self.predict_joint_log_proba(X)
        joint -= joint.max(axis=1, keepdims=True)
        return joint - np.log(np.exp(joint).sum(axis=1, keepdims=True))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior probabilities, shape (n, C), rows summing to 1."""
        joint = self.predict_joint_log_proba(X)
        proba = np.exp(joint - joint.max(axis=1, keepdims=True))
        proba /= proba.sum(axis=1, keepdims=True)
        return proba

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row."""
        best = np.argmax(self.predict_joint_log_proba(X), axis=1)
        return self.classes_[best]

    def __sklearn_tags__(self):
        # sklearn's check_positive_only_tag_during_fit does not apply (declared in
        # tests/test_estimator_checks.py): it fits on X - mean, fractional values that are
        # not category codes; negative codes mean missing and fractional codes are refused
        # with a ValueError, so no positive-only tag is set.
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = False
        return tags
