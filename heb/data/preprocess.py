"""From a DataFrame to the integer codes the engine counts (SPEC section 1).

:class:`Preprocessor` is an sklearn transformer fitted on the training fold only:

- column typing: declared categorical columns (OpenML metadata, the manifest), text /
  category / bool columns and integer columns with an ID-like name are categorical; every
  other column is numeric and cut into ``n_bins`` quantile bins;
- categories are the distinct training values in sorted order, coded ``0..K_f - 1``; a
  category first met at transform time gets code ``K_f`` (the engine's "unseen");
- bin edges are the unique training quantiles; a bin that holds no training row is merged
  into its right-hand neighbour, and values beyond the training range land in the end bins;
  a column with at most ``n_bins`` distinct training values gets one bin per value
  (:mod:`heb.data.binning`: quantiles cannot split a 0/1 flag with 16 % ones), and the
  bins of two whole numbers are labelled by them ("0", "1": a flag's values);
- missing values are imputed (mode / median of the training fold) or, with
  ``missing="category"``, get a category of their own; columns empty in every training row
  are dropped. Imputing an ID-like column's mode makes that ID look frequent: such columns
  are listed in ``id_like_imputed_`` (the app recommends ``missing="category"``).

How a column's values are read (floats, exact ints, text) and which kind a column is
live in :mod:`heb.data.column_values`. :meth:`Preprocessor.get_feature_names_out` names
the encoded columns as scikit-learn transformers do (``input_features``, as a Pipeline or
ColumnTransformer passes them, must be the fitted columns). :func:`make_model` chains
preprocessing and a classifier into one sklearn Pipeline.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from heb.data.binning import MAX_BINS, check_n_bins, one_bin_message, quantile_cuts
from heb.data.category_lookup import text_codes_of_numbers
from heb.data.column_values import (  # noqa: F401 (importable from here, as before)
    as_fitted_time,
    bin_labels,
    category_values,
    column_kind,
    dates_as_times,
    flag_labels,
    format_number,
    format_time,
    integer_values,
    number_kind,
    numeric_values,
    text_values,
    time_kind,
)
from heb.data.dataset import DataError, column_names

#: the former private names of two helpers now in :mod:`heb.data.column_values`
_format_number, _bin_labels, _category_values = format_number, bin_labels, category_values

__all__ = [
    "Preprocessor",
    "make_model",
    "MISSING_LABEL",
    "ID_LIKE_MIN_CATEGORIES",
    "ID_LIKE_ROWS_PER_CATEGORY",
    "is_id_like_counts",
    "MAX_BINS",
    "check_n_bins",
]

#: label of the category that holds missing values when ``missing="category"``
MISSING_LABEL = "(missing)"
#: a column name that says code (ZIP, postal code, SKU): with more than CODE_MIN_VALUES
#: whole numbers it is likely a code read as numbers, whose quantile bins mix codes
CODE_NAME = re.compile(r"zip|postal|post_?code|\bcode\b|_code|code_|sku", re.IGNORECASE)
CODE_MIN_VALUES = 100
_MISSING_MODES = ("impute", "category")
#: ID-like: at least ID_LIKE_MIN_CATEGORIES categories, fewer observed rows per category
#: than ID_LIKE_ROWS_PER_CATEGORY (its mode is one ID among many; imputed, it looks frequent)
ID_LIKE_ROWS_PER_CATEGORY, ID_LIKE_MIN_CATEGORIES = 5.0, 20


def is_id_like_counts(n_observed: int, n_categories: int) -> bool:
    """Whether a categorical column of ``n_observed`` non-missing rows in ``n_categories``
    categories is ID-like: many categories (:data:`ID_LIKE_MIN_CATEGORIES`), each with few
    rows (fewer than :data:`ID_LIKE_ROWS_PER_CATEGORY` on average)."""
    many = n_categories >= ID_LIKE_MIN_CATEGORIES
    return many and n_observed < ID_LIKE_ROWS_PER_CATEGORY * n_categories


class Preprocessor(TransformerMixin, BaseEstimator):
    """Encode a DataFrame's columns as integer category codes, fitted on training rows only.

    Parameters
    ----------
    n_bins : int, default 10
        Quantile bins per numeric column.
    missing : {"impute", "category"}
        Impute the training mode (categorical) / median (numeric), or give missing values a
        category ``"(missing)"`` of their own (added when the training rows have any).
    categorical : list of str or str, optional
        Columns declared categorical (e.g. ``Dataset.categorical``; one name alone is one
        column); text, category and bool columns and integer columns with an ID-like name
        are categorical anyway. An array's columns are named ``x0, x1, ...``; an object
        array's (``frame.to_numpy()`` of mixed columns, an imputer's output) are typed
        as a DataFrame's would be: a column of numbers is binned, not read as categories.

    Attributes
    ----------
    feature_names_out_ : list of str
        The encoded columns (all-missing columns dropped).
    kinds_ : dict
        Column -> ``"categorical"`` or ``"numeric"``.
    categories_ : list of list of str
        Per output feature: the category labels, or the bin intervals like ``"[1.5, 3.2)"``.
    bin_edges_ : dict
        Numeric column -> ndarray ``[training min, interior cuts..., training max]``.
    dropped_ : list of str
        Columns left out (empty in every training row).
    n_categories_ : ndarray of int
        K_f per output feature.
    impute_values_ : dict
        Column -> the label missing values are imputed with (``missing="impute"``).
    id_like_imputed_ : dict
        ID-like categorical column (:func:`is_id_like_counts`) whose missing training rows
        were imputed with its mode -> ``{"missing": rows imputed, "mode": the label,
        "mode_rows": its own rows, "categories": K_f, "observed": non-missing rows}``.
        Empty with ``missing="category"``, which gives those rows a category of their own.
    """

    def __init__(self, n_bins: int = 10, missing: str = "impute", categorical=None):
        self.n_bins = n_bins
        self.missing = missing
        self.categorical = categorical

    # ------------------------------------------------------------------ fit
    def _check_params(self) -> None:
        check_n_bins(self.n_bins)
        if self.missing not in _MISSING_MODES:
            raise ValueError(f"missing must be 'impute' or 'category', got {self.missing!r}.")

    def _kind(self, name, column: pd.Series, declared: set) -> str:
        return column_kind(name, column, declared)

    def fit(self, X, y=None):
        """Learn column kinds, categories, bin edges and imputation values from ``X``."""
        self._check_params()
        for attribute in ("feature_names_in_", "n_features_in_"):
            self.__dict__.pop(attribute, None)
        frame = self._as_frame(X, reset=True)
        columns = list(frame.columns)
        if len(set(columns)) != len(columns):
            raise DataError("Two columns have the same name; give each column a unique name.")
        declared = set(column_names(self.categorical))  # one name alone is one column
        unknown = sorted(declared - {str(c) for c in columns})
        if unknown:  # a misspelt name would leave its column binned as a number
            names = ", ".join(repr(name) for name in unknown[:5])
            warnings.warn(
                f"categorical names {len(unknown)} column{'s' * (len(unknown) > 1)} not in "
                f"the table: {names}{', ...' * (len(unknown) > 5)}.",
                stacklevel=2,
            )
        self._columns_in = columns
        self.kinds_, self.bin_edges_, self.impute_values_ = {}, {}, {}
        self.id_like_imputed_ = {}
        self.feature_names_out_, self.categories_, self.dropped_ = [], [], []
        self._encoders = []
        for name in columns:
            column = frame[name] if name in declared else dates_as_times(frame[name])
            kind = self._kind(name, column, declared)
            fit = self._fit_numeric if kind == "numeric" else self._fit_categorical
            fitted = None if column.isna().all() else fit(name, column)
            if fitted is None:  # nothing observed (missing, or only infinities)
                self.dropped_.append(name)
                continue
            labels, encoder = fitted
            self.kinds_[name] = kind
            self.feature_names_out_.append(name)
            self.categories_.append(labels)
            self._encoders.append(encoder)
        if not self.feature_names_out_:
            raise DataError(
                "No usable feature column is left: every feature is empty in the training rows."
            )
        self.n_categories_ = np.array([len(c) for c in self.categories_], dtype=np.int64)
        return self

    def _missing_code(
        self, name, codes: np.ndarray, missing: np.ndarray, absent: np.ndarray, n_seen: int
    ):
        """The code for missing values and whether a missing category was added (when the
        ``absent`` rows hold any; ``missing`` also marks numbers that cannot be read, such
        as infinities, left out of the mode)."""
        if self.missing == "category":
            if absent.any():
                return n_seen, True
            return n_seen, False  # no missing in training: missing at transform is unseen
        counts = np.bincount(codes[~missing], minlength=n_seen)
        return int(np.argmax(counts)), False

    def _fit_categorical(self, name, column: pd.Series):
        numeric = number_kind(column)
        values = category_values(column, numeric)
        missing = pd.isna(values)
        if missing.all():
            return None
        categories = np.sort(pd.unique(values[~missing]))  # hash, then sort only K values
        index = pd.Index(categories)
        codes = index.get_indexer(values)
        if numeric == "integer":
            labels = [str(int(v)) for v in categories]
        else:
            labels = [format_number(v) for v in categories] if numeric else list(categories)
        # a missing category only for missing rows: an infinity (missing in ``values``) is
        # unseen when encoded, so a category made for it would hold no training row
        absent = column.isna().to_numpy()
        fill, add_missing = self._missing_code(name, codes, missing, absent, categories.size)
        if add_missing:
            labels.append(MISSING_LABEL)
        elif self.missing == "impute":
            self.impute_values_[name] = labels[fill]
            self._note_id_like(name, codes, missing, fill, labels)
        encoder = {
            "kind": "categorical",
            "numeric": numeric,
            "index": index,
            "fill": fill,
            "imputed": self.missing == "impute",
            "n": len(labels),
        }
        return labels, encoder

    def _note_id_like(self, name, codes: np.ndarray, missing: np.ndarray, fill: int, labels):
        """Record an ID-like column whose missing rows the mode imputation piles into one ID."""
        n_missing = int(missing.sum())
        n_observed = missing.size - n_missing
        if n_missing and is_id_like_counts(n_observed, len(labels)):
            own = int(np.count_nonzero(codes == fill))
            self.id_like_imputed_[name] = dict(
                missing=n_missing, mode=labels[fill], mode_rows=own, categories=len(labels),
                observed=n_observed,
            )  # fmt: skip

    def _fit_numeric(self, name, column: pd.Series):
        values = numeric_values(column)
        missing = np.isnan(values)
        if missing.all():
            return None
        observed = values[~missing]
        if CODE_NAME.search(name) and np.all(observed == np.round(observed)):
            distinct = np.unique(observed).size
            if distinct > CODE_MIN_VALUES:  # the app asks; the API warns
                warnings.warn(
                    f"Column {name!r} holds {distinct:,} whole numbers and its name says "
                    "code: binned as a number here; if it is a code (a ZIP code, a product "
                    f"code), pass categorical=[{name!r}], or read it as text (pandas "
                    "loses a leading 0: read_csv(..., dtype=str), or heb.data.load_upload).",
                    stacklevel=3,
                )
        cuts = quantile_cuts(observed, self.n_bins)
        if not cuts.size and observed.min() < observed.max():  # its quantiles all tie
            warnings.warn(one_bin_message(name, observed, self.n_bins), stacklevel=3)
        kind = time_kind(column)  # "" (numbers), "datetime" or "timedelta"
        flag = flag_labels(observed, kind)  # a 0/1 column: its bins "0" and "1"
        labels = flag or bin_labels(cuts, kind)
        zone = " UTC" if isinstance(column.dtype, pd.DatetimeTZDtype) else ""
        labels = [f"{label}{zone}" for label in labels]  # zoned times are cut in UTC
        self.bin_edges_[name] = np.concatenate(([observed.min()], cuts, [observed.max()]))
        if self.missing == "category" and missing.any():
            fill = len(labels)
            labels.append(MISSING_LABEL)
        elif self.missing == "category":
            fill = len(labels)
        else:
            median = float(np.median(observed))
            fill = int(np.searchsorted(cuts, median, side="right"))
            self.impute_values_[name] = labels[fill] if flag else format_time(median, kind) + zone
        encoder = {
            "kind": "numeric",
            "cuts": cuts,
            "time": kind,
            "fill": fill,
            "imputed": self.missing == "impute",
            "n": len(labels),
        }
        return labels, encoder

    def _as_frame(self, X, reset: bool) -> pd.DataFrame:
        """A DataFrame with string column names; arrays are validated the sklearn way."""
        if isinstance(X, pd.DataFrame):
            if X.shape[0] == 0:
                raise DataError("There are no rows: a table needs at least one row.")
            if X.shape[1] == 0:
                raise DataError(
                    f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                    "required."
                )
            names = [str(c) for c in X.columns]
            if reset:
                self.n_features_in_ = X.shape[1]
                if all(isinstance(c, str) for c in X.columns):
                    self.feature_names_in_ = np.array(names, dtype=object)
            return X.set_axis(names, axis=1)
        array = validate_data(
            self, X, reset=reset, dtype=None, ensure_all_finite=False, accept_sparse=False
        )
        if reset or len(self._columns_in) != array.shape[1]:
            names = [f"x{i}" for i in range(array.shape[1])]
        else:
            names = self._columns_in  # an array in the fitted column order
        frame = pd.DataFrame(array, columns=names)  # an object array's numbers stay numbers
        return frame.infer_objects() if array.dtype == object else frame

    # ------------------------------------------------------------------ transform
    def fit_transform(self, X, y=None, **fit_params) -> np.ndarray:
        """Fit, then encode the training rows, imputing their missing values.

        Only the training rows are imputed (the paper's mode / median imputation);
        :meth:`transform` leaves a later row's missing value missing (-1), which the
        estimators treat as absent evidence (SPEC section 1).
        """
        return self.fit(X)._transform(X, impute=True)

    def transform(self, X) -> np.ndarray:
        """Integer codes, shape (n, len(feature_names_out_)).

        A category never seen in training gets K_f and a missing value -1 (with
        ``missing="category"``, the missing category's code when training had one): both
        are absent evidence to the estimators.
        """
        return self._transform(X, impute=False)

    def _transform(self, X, impute: bool) -> np.ndarray:
        check_is_fitted(self, "n_categories_")
        frame = self._as_frame(X, reset=False)
        absent = [c for c in self.feature_names_out_ if c not in frame.columns]
        if absent:
            raise DataError(f"The data lacks column {absent[0]!r}, which the model was trained on.")
        out = np.empty((frame.shape[0], len(self.feature_names_out_)), dtype=np.int64)
        for j, (name, encoder) in enumerate(
            zip(self.feature_names_out_, self._encoders, strict=True)
        ):
            out[:, j] = self._encode(frame[name], encoder, impute)
        return out

    @staticmethod
    def _encode(column: pd.Series, encoder: dict, impute: bool) -> np.ndarray:
        fill = encoder["fill"] if impute or not encoder["imputed"] else -1
        if encoder["kind"] == "numeric":
            values = numeric_values(as_fitted_time(column, encoder["time"]))
            missing = np.isnan(values)
            codes = np.searchsorted(encoder["cuts"], values, side="right")
            return np.where(missing, fill, codes)
        raw_missing = column.isna().to_numpy()
        numeric = encoder["numeric"]
        if numeric and number_kind(column) == "":  # numbers as text (JSON, a CSV read as text)
            column = pd.to_numeric(column, errors="coerce")  # "12" is 12; "x" is unseen
        if numeric == "integer" and not pd.api.types.is_integer_dtype(column.dtype):
            numeric = "float" if pd.api.types.is_numeric_dtype(column.dtype) else ""
        values = category_values(column, numeric)
        codes = encoder["index"].get_indexer(values)
        if not numeric and number_kind(column):  # text learned, numbers given: by value
            codes = text_codes_of_numbers(encoder["index"], numeric_values(column), codes)
        unseen = encoder["n"] if encoder["fill"] < encoder["n"] else encoder["fill"]
        codes = np.where(codes < 0, unseen, codes)
        # values that are missing (not merely unreadable as a number) take the fill code
        return np.where(raw_missing, fill, codes)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the encoded columns (the input columns less those dropped as empty).

        Parameters
        ----------
        input_features : array-like of str, optional
            The input column names, as scikit-learn passes them (a ColumnTransformer or
            Pipeline over arrays): one per input column, equal to ``feature_names_in_``
            when the Preprocessor was fitted on named columns. The kept ones are returned;
            default the fitted names (``x0, x1, ...`` for an array).

        Returns
        -------
        ndarray of object (str), one name per column of :meth:`transform`'s output.
        """
        check_is_fitted(self, "n_categories_")
        if input_features is None:
            return np.array(self.feature_names_out_, dtype=object)
        names = np.asarray(input_features, dtype=object)
        fitted = getattr(self, "feature_names_in_", None)
        if names.ndim != 1 or names.size != self.n_features_in_:
            raise ValueError(
                f"input_features must name the {self.n_features_in_} columns the "
                f"Preprocessor was fitted on, got {names.size}."
            )
        if fitted is not None and not np.array_equal(names, fitted):
            raise ValueError(
                "input_features must equal the column names the Preprocessor was fitted on "
                f"(feature_names_in_), in order: {list(fitted)[:5]}."
            )
        position = {name: i for i, name in enumerate(self._columns_in)}
        return names[[position[name] for name in self.feature_names_out_]]

    def summary(self) -> pd.DataFrame:
        """One row per input column: kind, K_f, a preview of the categories, handling."""
        check_is_fitted(self, "n_categories_")
        rows = []
        for name, labels in zip(self.feature_names_out_, self.categories_, strict=True):
            preview = ", ".join(labels[:5]) + (", ..." if len(labels) > 5 else "")
            rows.append(
                {
                    "feature": name,
                    "kind": self.kinds_[name],
                    "n_categories": len(labels),
                    "categories": preview,
                    "impute_value": self.impute_values_.get(name),
                }
            )
        rows += [
            {
                "feature": name,
                "kind": "dropped (empty)",
                "n_categories": 0,
                "categories": "",
                "impute_value": None,
            }
            for name in self.dropped_
        ]
        return pd.DataFrame(rows)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags


def make_model(
    smoother: str = "heb-m",
    n_bins: int = 10,
    missing: str = "impute",
    categorical=None,
    estimator=None,
    **nb_params,
) -> Pipeline:
    """Preprocessing + classifier as one sklearn Pipeline that fits a raw DataFrame.

    Parameters
    ----------
    smoother : str
        The :class:`heb.nb.NaiveBayes` smoother (ignored when ``estimator`` is given).
    n_bins, missing, categorical
        :class:`Preprocessor` settings.
    estimator : sklearn classifier, optional
        A classifier of the Preprocessor's codes (unseen = K_f, missing at predict = -1,
        as heb's classifiers read them; default ``NaiveBayes(smoother, **nb_params)``).
        scikit-learn's ``CategoricalNB`` reads neither (IndexError on the first unseen
        category); ``NaiveBayes("laplace")`` equals it on categories seen in training.
    **nb_params
        Further :class:`~heb.nb.NaiveBayes` arguments (``alpha``, ``weighting``,
        ``hierarchies``, ...); refused beside ``estimator``.

    Returns
    -------
    Pipeline
        Steps ``"preprocess"`` (:class:`Preprocessor`) and ``"classifier"``; unfitted.
    """
    if estimator is None:
        from heb.nb import NaiveBayes

        if "aode" in str(smoother).lower():  # a model, not a smoother: said at fit, unclearly
            raise ValueError(
                f"{smoother!r} is a model, not a Naive Bayes smoother: pass "
                "estimator=heb.aode.AODE() (AODE(smoother='heb') for HEB-AODE)."
            )
        if _method_family(smoother) == "tan":  # "tan" too failed only at fit, in each CV fold
            raise ValueError(
                f"{smoother!r} is a model, not a Naive Bayes smoother: pass "
                "estimator=heb.TAN() (TAN(smoother='heb') for HEB-TAN)."
            )
        estimator = NaiveBayes(smoother=smoother, **nb_params)
    elif nb_params:
        raise ValueError("Pass classifier settings to the estimator itself when giving one.")
    return Pipeline(
        [
            ("preprocess", Preprocessor(n_bins=n_bins, missing=missing, categorical=categorical)),
            ("classifier", estimator),
        ]
    )


def _method_family(name) -> str | None:
    """The family of the app's method called ``name`` ("nb", "aode", "tan", ...), if any."""
    from heb import registry

    try:
        return registry.method(registry.resolve_method_name(str(name))).family
    except ValueError:
        return None
