"""Large data: counting pushed down to DuckDB (default) or Spark, the same numbers as in memory.

A :class:`~heb.counts.CountTable` is a sufficient statistic, so the engine only has to
count: one GROUPING SETS query returns every feature's raw-value histogram per (fold,
class), and everything else (SPEC section 1 encodings, the smoothers' fits, AODE's layout)
is computed here from those small tables with the in-memory code's own formulas. The
engine modules (``heb.counts``, ``heb.nb``, ...) never import duckdb or pyspark.

Typical use (the app's "Large file" source and ``heb bench --engine`` call these)::

    from heb.scale import DuckDBEngine, open_source, cross_validate, fit_counts

    engine = DuckDBEngine()                       # or SparkEngine(session) on a cluster
    engine.register(open_source("clicks.parquet"))   # a path under HEB_DATA_ROOT
    result = cross_validate(engine, "click", n_splits=10, progress=callback)
    result.summary()                              # as heb.evaluate.CVResult.summary()
    fitted = fit_counts(engine, "click")          # CountTable + encodings of every row

Imports are lazy: ``import heb.scale`` loads neither duckdb nor pyspark.
"""

from __future__ import annotations

from importlib import import_module

__all__ = [
    "DATA_ROOT_ENV",
    "DuckDBEngine",
    "EngineError",
    "ScaleCVResult",
    "SparkEngine",
    "cross_validate",
    "data_root",
    "describe_source",
    "fit_counts",
    "summarise_source",
    "open_source",
    "resolve_data_path",
    "write_clicks",
]

_LAZY = {
    "DATA_ROOT_ENV": "heb.scale.source",
    "data_root": "heb.scale.source",
    "open_source": "heb.scale.source",
    "resolve_data_path": "heb.scale.source",
    "DuckDBEngine": "heb.scale.duckdb_engine",
    "SparkEngine": "heb.scale.spark_engine",
    "EngineError": "heb.scale.spark_engine",
    "ScaleCVResult": "heb.scale.cv",
    "cross_validate": "heb.scale.cv",
    "fit_counts": "heb.scale.profile",
    "describe_source": "heb.scale.profile",
    "summarise_source": "heb.scale.profile",
    "write_clicks": "heb.scale.clicks",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'heb.scale' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazy names beside the loaded ones, so ``dir(heb.scale)`` and completion list them."""
    return sorted(set(globals()) | set(__all__))
