"""The evaluation layer: the paper's CV protocol, its statistics and the result cache.

Above the engine (it reads datasets through :mod:`heb.data` and returns pandas frames):

- :mod:`heb.evaluate.settings`: :class:`RunSettings`, the one frozen description of a run
  (its cache key and its URL form);
- :mod:`heb.evaluate.folds`: prepared folds and their bounded, thread-safe store;
- :mod:`heb.evaluate.cv`: :func:`cross_validate`, :func:`run_benchmark`, the model families;
- :mod:`heb.evaluate.tables`: Friedman / Nemenyi / Wilcoxon tables;
- :mod:`heb.evaluate.cache`: the checksummed on-disk :class:`ResultCache`;
- :mod:`heb.evaluate.hierarchy_model`: :func:`make_hierarchy_model`, a raw-DataFrame
  pipeline whose HEB-H hierarchies are declared by column (levels built on each fit).
"""

from __future__ import annotations

from heb.evaluate.cache import KINDS, ResultCache, cached_frame
from heb.evaluate.cv import (
    FAMILY_ESTIMATORS,
    CVResult,
    Family,
    cached_cross_validation,
    cross_validate,
    fold_columns,
    method_spec,
    run_benchmark,
)
from heb.evaluate.folds import FOLD_STORE, FoldStore, PreparedFolds, prepare_folds
from heb.evaluate.hierarchy_model import HierarchyPipeline, make_hierarchy_model
from heb.evaluate.keys import cache_key, engine_revision
from heb.evaluate.settings import RunSettings
from heb.evaluate.tables import benchmark_tables, wilcoxon_table
from heb.registry import HIGHER_IS_BETTER, METHODS, METRIC_LABELS, METRICS, TABLE1_METHODS

__all__ = [
    "CVResult",
    "FAMILY_ESTIMATORS",
    "FOLD_STORE",
    "Family",
    "FoldStore",
    "HIGHER_IS_BETTER",
    "HierarchyPipeline",
    "KINDS",
    "METHODS",
    "METRICS",
    "METRIC_LABELS",
    "PreparedFolds",
    "ResultCache",
    "RunSettings",
    "TABLE1_METHODS",
    "benchmark_tables",
    "cache_key",
    "cached_cross_validation",
    "cached_frame",
    "cross_validate",
    "engine_revision",
    "fold_columns",
    "make_hierarchy_model",
    "method_spec",
    "prepare_folds",
    "run_benchmark",
    "wilcoxon_table",
]
