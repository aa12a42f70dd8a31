"""Another target for a large source whose last column cannot be one.

The in-memory rule (:func:`heb.data.targets.fallback_targets`) looks at the columns left of
a table's last for one that reads as classes; this is the same rule on the engine: the
nearest :data:`~heb.data.targets.TARGET_CANDIDATES` columns of text or whole numbers (an
integer column, or floats holding only whole numbers: a 0/1 flag with missing values is
stored as floats by pandas, and in memory it is ``is_integer_like``), with 2 to
:data:`~heb.data.targets.FEW_CLASSES` distinct values (NaN is no value, as NULL), text
first. Their distinct values are counted in two scans of those columns alone: an
approximate count (HyperLogLog, cheap whatever the column) screens out IDs and
measurements, then an exact one of the few columns left; a float column left is then
checked for fractions (a scan of that column alone).
"""

from __future__ import annotations

from heb.data.targets import FEW_CLASSES, TARGET_CANDIDATES
from heb.scale.counting import whole_numbers
from heb.scale.sql import VIEW, Dialect

#: an approximate distinct count above this screens a column out (HyperLogLog's error at a
#: few dozen values is far below this margin, so no column of FEW_CLASSES values is lost)
_SCREEN_ABOVE = 4 * FEW_CLASSES

#: each engine family's kind of value, as the in-memory rule names it (a float column is
#: one of whole numbers only if it holds no fraction: :func:`fallback_targets` checks)
_KINDS = {"text": "text", "integer": "whole numbers", "float": "whole numbers"}


def candidate_columns(columns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(column, kind) of the :data:`TARGET_CANDIDATES` columns left of the last, from the
    right, whose engine family can hold classes (text, integers, or floats: whole numbers
    if they hold no fraction, which :func:`fallback_targets` checks)."""
    nearest = columns[-2::-1][:TARGET_CANDIDATES]
    return [(name, _KINDS[family]) for name, family in nearest if family in _KINDS]


def distinct_query(dialect: Dialect, names: list[str], approximate: bool) -> str:
    """One row: the distinct non-missing values of each of ``names`` (``__heb_<i>``; a float
    column's NaN is missing, as in memory), approximate (HyperLogLog, both engines'
    ``approx_count_distinct``) or exact."""
    count = "approx_count_distinct({})" if approximate else "count(DISTINCT {})"
    parts = ", ".join(
        f"{count.format(_present_value(dialect, name))} AS __heb_{i}"
        for i, name in enumerate(names)
    )
    return f"SELECT {parts} FROM {VIEW}"


def _present_value(dialect: Dialect, name: str) -> str:
    """The column's value where it holds one (:meth:`Dialect.present`), else NULL."""
    if name not in dialect.floats:
        return dialect.quote(name)
    return f"CASE WHEN {dialect.present(name)} THEN {dialect.quote(name)} END"


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
    columns = engine.columns()
    candidates = candidate_columns(columns)
    rough = _distinct(engine, [name for name, _ in candidates], approximate=True)
    screened = [c for c, n in zip(candidates, rough, strict=True) if 2 <= n <= _SCREEN_ABOVE]
    exact = _distinct(engine, [name for name, _ in screened], approximate=False)
    floats = {name for name, family in columns if family == "float"}
    found = {"text": [], "whole numbers": []}
    for (name, kind), distinct in zip(screened, exact, strict=True):
        if 2 <= distinct <= FEW_CLASSES and (name not in floats or whole_numbers(engine, name)):
            found[kind].append((name, kind, distinct))
    return found["text"] + found["whole numbers"]
