"""The SQL the engines run, generated once for DuckDB and Spark SQL alike.

Every engine registers the data as a view ``heb_rows`` holding the source columns plus
``__heb_file`` and ``__heb_row`` (which file, which row in it: the row key the folds hash).
The project's counting is then one query:

    SELECT __fold, __y, f_1, ..., f_F, <set id>, count(*)
    FROM rows GROUP BY GROUPING SETS ((__fold, __y, f_1), ..., (__fold, __y, f_F))

the per-fold histogram of every feature's raw values by class (one scan; the engine
aggregates, only the tiny histogram comes back). The set id, sum_f (f + 1) GROUPING(f)
complemented, says which feature a result row counts, so a missing value (NULL) of one
feature is never confused with the other features' NULLs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "VIEW",
    "Dialect",
    "DUCKDB",
    "SPARK",
    "rows_query",
    "histogram_query",
    "pair_histogram_query",
    "floor_query",
    "fold_query",
    "bin_expression",
]

#: the view every engine registers over the source
VIEW = "heb_rows"


@dataclass(frozen=True)
class Dialect:
    """What differs between the engines' SQL: identifier quotes and the row hash."""

    name: str
    quote_char: str
    #: format with {file}, {row}, {seed}: a non-negative 64-bit hash of the row key
    row_hash: str

    def quote(self, name: str) -> str:
        """A quoted identifier (embedded quote characters doubled)."""
        q = self.quote_char
        return q + str(name).replace(q, q + q) + q

    def fold(self, n_folds: int, seed: int) -> str:
        """The fold of a row: its seeded key hash modulo ``n_folds``."""
        hashed = self.row_hash.format(file="__heb_file", row="__heb_row", seed=int(seed))
        return f"({hashed} % {int(n_folds)})"


DUCKDB = Dialect("duckdb", '"', "hash({file}, {row}, {seed})")
# xxhash64 is signed: shift into 0..2^63-1 before the modulo, as DuckDB's unsigned hash
SPARK = Dialect("spark", "`", "(xxhash64({file}, {row}, {seed}) & 9223372036854775807)")


def rows_query(
    dialect: Dialect,
    target: str,
    columns: Sequence[str],
    n_folds: int,
    seed: int,
    folds: Sequence[int] | None = None,
) -> str:
    """Fold, target and the given columns of every row with a target (of ``folds`` only)."""
    q = dialect.quote
    cols = "".join(f", {q(c)}" for c in columns)
    fold = dialect.fold(n_folds, seed)
    where = f"{q(target)} IS NOT NULL"
    if folds is not None and len(folds) < n_folds:
        where += f" AND {fold} IN ({', '.join(str(int(k)) for k in folds)})"
    return f"SELECT {fold} AS __fold, {q(target)} AS __y{cols} FROM {VIEW} WHERE {where}"


def _set_id(dialect: Dialect, groups: Sequence[str]) -> str:
    terms = " + ".join(f"{i + 1} * (1 - GROUPING({g}))" for i, g in enumerate(groups))
    return f"({terms}) - 1"


def histogram_query(
    dialect: Dialect, target: str, features: Sequence[str], n_folds: int, seed: int
) -> str:
    """Rows per (fold, class, raw value) of every feature, in one GROUPING SETS scan.

    Result columns: ``__fold``, ``__y``, one column per feature (its value in the rows of
    its own set, NULL elsewhere), ``__set`` (the feature's index) and ``__n``.
    """
    q = dialect.quote
    names = [q(f) for f in features]
    sets = ", ".join(f"(__fold, __y, {name})" for name in names)
    inner = rows_query(dialect, target, features, n_folds, seed)
    return (
        f"SELECT __fold, __y, {', '.join(names)}, {_set_id(dialect, names)} AS __set, "
        f"count(*) AS __n FROM ({inner}) AS r GROUP BY GROUPING SETS ({sets})"
    )


def bin_expression(dialect: Dialect, column: str, cuts: Sequence[float]) -> str:
    """SQL for the number of ``cuts`` <= the column's value (searchsorted, side right).

    NULL, NaN and infinities give NULL (all read as missing, as ``_numeric_values`` does).
    Cuts are written as exact decimal strings (shortest round-trip repr) cast to DOUBLE.
    """
    q = dialect.quote(column)
    value = f"CAST({q} AS DOUBLE)"
    missing = f"{value} IS NULL OR isnan({value}) OR abs({value}) = CAST('Infinity' AS DOUBLE)"
    whens = " ".join(
        f"WHEN {value} < CAST('{float(c)!r}' AS DOUBLE) THEN {i}" for i, c in enumerate(cuts)
    )
    return f"CASE WHEN {missing} THEN NULL {whens} ELSE {len(cuts)} END"


def pair_histogram_query(
    dialect: Dialect,
    target: str,
    expressions: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    n_folds: int,
    seed: int,
) -> str:
    """Rows per (fold, class, a_i, a_j) of each feature pair (i, j), one GROUPING SETS scan.

    ``expressions[f]`` is the SQL of feature f's grouping value (its raw column, or its bin).
    Result columns: ``__fold``, ``__y``, ``__a<f>`` per feature in a pair, ``__s1``, ``__s2`` (sum
    and sum of squares of i + 1 and j + 1, which identify the pair) and ``__n``.
    """
    q = dialect.quote
    used = sorted({f for pair in pairs for f in pair})  # GROUPING() takes grouped columns only
    aliases = {f: f"__a{f}" for f in used}
    select = ", ".join(f"{expressions[f]} AS {aliases[f]}" for f in used)
    inner = (
        f"SELECT {dialect.fold(n_folds, seed)} AS __fold, {q(target)} AS __y, {select} "
        f"FROM {VIEW} WHERE {q(target)} IS NOT NULL"
    )
    sets = ", ".join(f"(__fold, __y, {aliases[i]}, {aliases[j]})" for i, j in pairs)
    # the two grouped features i, j of a row's set: s1 = (i+1) + (j+1), s2 = (i+1)^2 + (j+1)^2
    s1 = " + ".join(f"(1 - GROUPING({a})) * {f + 1}" for f, a in aliases.items())
    s2 = " + ".join(f"(1 - GROUPING({a})) * {(f + 1) ** 2}" for f, a in aliases.items())
    return (
        f"SELECT __fold, __y, {', '.join(aliases.values())}, ({s1}) AS __s1, ({s2}) AS __s2, "
        f"count(*) AS __n FROM ({inner}) AS r GROUP BY GROUPING SETS ({sets})"
    )


def floor_query(dialect: Dialect, target: str, features: Sequence[str]) -> str:
    """The counting floor: bare ``count(*)`` per (class, raw value) of every feature."""
    q = dialect.quote
    names = [q(f) for f in features]
    sets = ", ".join(f"({q(target)}, {name})" for name in names)
    return (
        f"SELECT {q(target)}, {', '.join(names)}, count(*) AS __n FROM {VIEW} "
        f"GROUP BY GROUPING SETS ({sets})"
    )


def fold_query(dialect: Dialect, target: str, n_folds: int, seed: int) -> str:
    """Each row's fold in the source's row order (for comparisons with in-memory runs)."""
    return (
        f"SELECT {dialect.fold(n_folds, seed)} AS __fold FROM {VIEW} "
        f"WHERE {dialect.quote(target)} IS NOT NULL ORDER BY __heb_file, __heb_row"
    )
