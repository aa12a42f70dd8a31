"""Datasets for HEB Explorer: the paper's catalogue, OpenML, uploads, shared copies, built-ins.

Every loader returns a :class:`Dataset`: the feature columns ``X`` as a DataFrame, the
target ``y`` (rows with a missing target already dropped), the columns declared
categorical, and notes for the user. Every problem a user can cause raises
:class:`DataError`, whose message is one sentence the app shows as is (plain text: the
app escapes it before display).

One module per job:

- :mod:`~heb.data.dataset`: ``Dataset``, ``DataError``, the checks and notes every loader shares;
- :mod:`~heb.data.catalogue`: the paper's 31 datasets;
- :mod:`~heb.data.builtins`: offline defaults (``"zip-codes"``, the app's default, a
  known-truth Naive Bayes sample, scikit-learn's bundled sets);
- :mod:`~heb.data.shared`: the benchmark copies in ``../shared/datasets`` (``HEB_DATASETS_DIR``);
- :mod:`~heb.data.readers`, :mod:`~heb.data.parquet`, :mod:`~heb.data.arff`: uploads
  (CSV / TSV with delimiter and encoding detected, gzip, parquet, ARFF);
- :mod:`~heb.data.openml`: OpenML by integer id from a local cache (``data_cache/openml``)
  that a failed call never wipes;
- :mod:`~heb.data.specs`: ``load_dataset`` (one string to a Dataset; ``allow_paths=False``
  for names that come from a URL);
- :mod:`~heb.data.preprocess`: from a DataFrame to the integer codes the engine counts;
- :mod:`~heb.data.category_lookup`: text categories found again when given as numbers;
- :mod:`~heb.data.code_signal`: whole-number columns whose quantile bins hide what their
  values tell the target (the app's note and ``heb bench``'s lines);
- :mod:`~heb.data.pipeline_io` (with :mod:`~heb.data.preprocessor_io`): a fitted
  ``make_model`` pipeline saved as one JSON file and loaded back (``docs/model_json.md``);
- :mod:`~heb.data.folds`: class codes, the 20,000-row subsample, a safe fold count.
"""

from __future__ import annotations

from heb.data.builtins import BUILTIN_DATASETS, DEFAULT_DATASET, load_builtin
from heb.data.catalogue import CATALOGUE, GROUPS, CatalogueEntry, catalogue_frame
from heb.data.dataset import (
    DEFAULT_MAX_BYTES,
    MAX_CLASSES,
    MAX_COLUMNS,
    DataError,
    Dataset,
    default_target,
    id_like_columns,
    is_id_like_name,
)
from heb.data.folds import encode_target, safe_n_splits, stratified_subsample, subsample_rows
from heb.data.openml import DEFAULT_OPENML_SERVER, load_openml, parse_openml_id
from heb.data.preprocess import MISSING_LABEL, Preprocessor, make_model
from heb.data.readers import read_table
from heb.data.shared import load_shared, shared_dataset_names
from heb.data.specs import load_dataset
from heb.data.uploads import dataset_from_table, load_upload

__all__ = [
    "DataError",
    "Dataset",
    "CatalogueEntry",
    "CATALOGUE",
    "GROUPS",
    "catalogue_frame",
    "BUILTIN_DATASETS",
    "DEFAULT_DATASET",
    "load_builtin",
    "shared_dataset_names",
    "load_shared",
    "load_openml",
    "parse_openml_id",
    "load_upload",
    "read_table",
    "dataset_from_table",
    "default_target",
    "load_dataset",
    "is_id_like_name",
    "id_like_columns",
    "DEFAULT_MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_CLASSES",
    "DEFAULT_OPENML_SERVER",
    "MISSING_LABEL",
    "Preprocessor",
    "encode_target",
    "make_model",
    "safe_n_splits",
    "stratified_subsample",
    "subsample_rows",
]
