"""Another target for a large source whose last column cannot be one.

The in-memory rule (:func:`heb.data.targets.fallback_targets`) looks at the columns left of
a table's last for one that reads as classes; this is the same rule on the engine: the
nearest :data:`~heb.data.dataset.TARGET_CANDIDATES` columns of text or whole numbers, with
2 to :data:`~heb.data.dataset.FEW_CLASSES` distinct values, text first. Their distinct
values are counted in two scans of those columns alone: an approximate count (HyperLogLog,
cheap whatever the column) screens out IDs and measurements, then an exact one of the few
columns left.
"""

from __future__ import annotations

from heb.data.targets import FEW_CLASSES, TARGET_CANDIDATES
from heb.scale.sql import VIEW, Dialect

#: an approximate distinct count above this screens a column out (HyperLogLog's error at a
#: few dozen values is far below this margin, so no column of FEW_CLASSES values is lost)
_SCREEN_ABOVE = 4 * FEW_CLASSES

#: each engine family's kind of value, as the in-memory rule names it
_KINDS = {"text": "text", "integer": "whole numbers"}


def candidate_columns(columns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(column, kind) of the :data:`TARGET_CANDIDATES` columns left of the last, from the
    right, whose engine family can hold classes (text or whole numbers)."""
    nearest = columns[-2::-1][:TARGET_CANDIDATES]
    return [(name, _KINDS[family]) for name, family in nearest if family in _KINDS]


def distinct_query(dialect: Dialect, names: list[str], approximate: bool) -> str:
    """One row: the distinct non-missing values of each of ``names`` (``__heb_<i>``),
    approximate (HyperLogLog, both engines' ``approx_count_distinct``) or exact."""
    count = "approx_count_distinct({})" if approximate else "count(DISTINCT {})"
    parts = ", ".join(
        f"{count.format(dialect.quote(name))} AS __heb_{i}" for i, name in enumerate(names)
    )
    return f"SELECT {parts} FROM {VIEW}"


def _distinct(engine, names: list[str], approximate: bool) -> list[int]:
    """Each column's distinct values by :func:`distinct_query`, in order."""
    if not names:
        return []
    row = engine.table(distinct_query(engine.dialect, names, approximate)).to_pylist()[0]
    return [int(row[f"__heb_{i}"]) for i in range(len(names))]


def fallback_targets(engine) -> list[tuple[str, str, int]]:
    """The columns of the registered source that could stand in for its last column as the
    target, best first: (name, ``"text"`` or ``"whole numbers"``, distinct values).

    The in-memory rule (:func:`heb.data.targets.fallback_targets`) on the engine, in two scans
    of the candidate columns alone (none when no column is a candidate).
    """
    candidates = candidate_columns(engine.columns())
    rough = _distinct(engine, [name for name, _ in candidates], approximate=True)
    screened = [c for c, n in zip(candidates, rough, strict=True) if 2 <= n <= _SCREEN_ABOVE]
    exact = _distinct(engine, [name for name, _ in screened], approximate=False)
    found = {"text": [], "whole numbers": []}
    for (name, kind), distinct in zip(screened, exact, strict=True):
        if 2 <= distinct <= FEW_CLASSES:
            found[kind].append((name, kind, distinct))
    return found["text"] + found["whole numbers"]
