"""The SQL the engines run, generated once for DuckDB and Spark SQL alike.

Every engine registers the data as a view ``heb_rows`` holding the source columns plus
``__heb_file`` and ``__heb_row`` (which file, which row in it: the row key the folds hash).
The project's counting is then one query:

    SELECT __heb_fold, __heb_y, __heb_f0, ..., __heb_f<F-1>, <set id>, count(*)
    FROM rows GROUP BY GROUPING SETS ((__heb_fold, __heb_y, __heb_f0), ...)

the per-fold histogram of every feature's raw values by class (one scan; the engine
aggregates, only the tiny histogram comes back). The set id, sum_f (f + 1) GROUPING(f)
complemented, says which feature a result row counts, so a missing value (NULL) of one
feature is never confused with the other features' NULLs.

Source columns are only ever *read* by name (:meth:`Dialect.quote`); every result column
is an alias of its own with the reserved prefix ``__heb`` (features by position), so a
column named like an alias (``__y``, ``__fold``, ``__n``) cannot clash with one. A
dialect bound to a source (:meth:`Dialect.bound`) also knows which view identifier holds a
column whose name the engine cannot tell apart from another (DuckDB: ``A`` and ``a``) and
which columns are floats, whose NaN is a missing value like NULL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from heb.data import DataError

__all__ = [
    "VIEW",
    "RESERVED_PREFIX",
    "FOLD",
    "TARGET",
    "Dialect",
    "DUCKDB",
    "SPARK",
    "rows_query",
    "histogram_query",
    "pair_histogram_query",
    "floor_query",
    "fold_query",
    "target_values_query",
    "partition_file_key",
    "raw_time_alias",
    "seconds_of_micros",
    "bin_expression",
    "feature_alias",
]

#: the view every engine registers over the source
VIEW = "heb_rows"
#: names the generated SQL keeps for itself (source columns starting so are not read)
RESERVED_PREFIX = "__heb"
#: result columns of :func:`rows_query` holding a row's fold and its target
FOLD, TARGET = "__fold", "__y"


def seconds_of_micros(micros: str) -> str:
    """SQL of seconds from the SQL ``micros`` of whole microseconds since 1970: their
    double over 10^6 in doubles, the in-memory reader's ``micros / 1e6`` bit for bit (a
    decimal literal would make it decimal arithmetic)."""
    return f"CAST({micros} AS DOUBLE) / CAST(1000000 AS DOUBLE)"


def raw_time_alias(index: int) -> str:
    """The view column holding time column ``index``'s own values (dates, time stamps),
    beside the column itself, which the view holds as seconds since 1970: a target of
    dates is read as dates."""
    return f"{RESERVED_PREFIX}_raw{int(index)}"


def feature_alias(index: int) -> str:
    """The result column of feature ``index`` in :func:`histogram_query`."""
    return f"{RESERVED_PREFIX}_f{int(index)}"


@dataclass(frozen=True)
class Dialect:
    """What differs between the engines' SQL: identifier quotes and the row hash.

    ``renamed`` and ``floats`` describe the registered source (:meth:`bound`); an unbound
    dialect reads every column under its own name and treats no value as NaN.
    """

    name: str
    quote_char: str
    #: format with {file}, {row}, {seed}: a non-negative 64-bit hash of the row key
    row_hash: str
    #: (column, identifier in the view) of the columns the view holds under another name
    renamed: tuple[tuple[str, str], ...] = ()
    #: the float columns (a NaN in them is a missing value)
    floats: frozenset[str] = frozenset()
    #: (column, view identifier of its own values) of the time columns, which the view
    #: holds as seconds (:func:`raw_time_alias`)
    raw: tuple[tuple[str, str], ...] = ()

    def bound(
        self,
        columns: Iterable[tuple[str, str]],
        renamed: dict | None = None,
        raw: dict | None = None,
    ) -> Dialect:
        """This dialect for a source of (column, type family) ``columns``.

        ``renamed`` maps a column to the identifier the view holds it under, where the
        two differ; ``raw`` a time column to the view column of its own values.
        """
        floats = frozenset(name for name, family in columns if family == "float")
        return replace(
            self,
            renamed=tuple((renamed or {}).items()),
            floats=floats,
            raw=tuple((raw or {}).items()),
        )

    def identifier(self, name: str) -> str:
        """A quoted identifier or alias, as written (embedded quote characters doubled)."""
        q = self.quote_char
        return q + str(name).replace(q, q + q) + q

    def quote(self, name: str) -> str:
        """The quoted view column holding the source column ``name``."""
        return self.identifier(dict(self.renamed).get(str(name), name))

    def target(self, name: str) -> str:
        """The quoted view column holding the values of ``name`` as the target's classes:
        a time column's own values (dates, not seconds), any other column itself."""
        raw = dict(self.raw)
        return self.identifier(raw[name]) if name in raw else self.quote(name)

    def present(self, name: str) -> str:
        """SQL true where the source column ``name`` holds a value (not NULL, not NaN)."""
        column = self.quote(name)
        if name in self.floats:
            return f"({column} IS NOT NULL AND NOT isnan(CAST({column} AS DOUBLE)))"
        return f"{column} IS NOT NULL"

    def fold(self, n_folds: int, seed: int) -> str:
        """The fold of a row: its seeded key hash modulo ``n_folds``."""
        hashed = self.row_hash.format(file="__heb_file", row="__heb_row", seed=int(seed))
        return f"({hashed} % {int(n_folds)})"


DUCKDB = Dialect("duckdb", '"', "hash({file}, {row}, {seed})")
# xxhash64 is signed: shift into 0..2^63-1 before the modulo, as DuckDB's unsigned hash
SPARK = Dialect("spark", "`", "(xxhash64({file}, {row}, {seed}) & 9223372036854775807)")


def _rows(
    dialect: Dialect,
    target: str,
    selected: Sequence[tuple[str, str]],
    n_folds: int,
    seed: int,
    folds: Sequence[int] | None = None,
    fold_alias: str = f"{RESERVED_PREFIX}_fold",
    target_alias: str = f"{RESERVED_PREFIX}_y",
) -> str:
    """Fold, target and (expression, alias) ``selected`` of every row with a target."""
    ident = dialect.identifier
    cols = "".join(f", {expression} AS {ident(alias)}" for expression, alias in selected)
    fold = dialect.fold(n_folds, seed)
    where = dialect.present(target)
    if folds is not None and len(folds) < n_folds:
        where += f" AND {fold} IN ({', '.join(str(int(k)) for k in folds)})"
    return (
        f"SELECT {fold} AS {ident(fold_alias)}, {dialect.target(target)} AS {ident(target_alias)}"
        f"{cols} FROM {VIEW} WHERE {where}"
    )


def rows_query(
    dialect: Dialect,
    target: str,
    columns: Sequence[str],
    n_folds: int,
    seed: int,
    folds: Sequence[int] | None = None,
) -> str:
    """Fold (``__fold``), target (``__y``) and the given columns (under their own names) of
    every row with a target (of ``folds`` only).

    Raises
    ------
    DataError
        A column is named ``__fold`` or ``__y``, the result's own columns.
    """
    clash = [c for c in columns if str(c) in (FOLD, TARGET)]
    if clash:
        raise DataError(
            f"The feature column {clash[0]!r} has a name the large-data path keeps for itself; "
            "rename the column or leave it out of the features."
        )
    selected = [(dialect.quote(c), str(c)) for c in columns]
    return _rows(dialect, target, selected, n_folds, seed, folds, FOLD, TARGET)


def _set_id(groups: Sequence[str]) -> str:
    terms = " + ".join(f"{i + 1} * (1 - GROUPING({g}))" for i, g in enumerate(groups))
    return f"({terms}) - 1"


def histogram_query(
    dialect: Dialect, target: str, features: Sequence[str], n_folds: int, seed: int
) -> str:
    """Rows per (fold, class, raw value) of every feature, in one GROUPING SETS scan.

    Result columns: ``__heb_fold``, ``__heb_y``, ``__heb_f<i>`` per feature i (its value in
    the rows of its own set, NULL elsewhere), ``__heb_set`` (the feature's index) and
    ``__heb_n``.
    """
    names = [feature_alias(i) for i in range(len(features))]
    selected = [(dialect.quote(f), name) for f, name in zip(features, names, strict=True)]
    inner = _rows(dialect, target, selected, n_folds, seed)
    sets = ", ".join(f"(__heb_fold, __heb_y, {name})" for name in names)
    return (
        f"SELECT __heb_fold, __heb_y, {', '.join(names)}, {_set_id(names)} AS __heb_set, "
        f"count(*) AS __heb_n FROM ({inner}) AS r GROUP BY GROUPING SETS ({sets})"
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
    Result columns: ``__heb_fold``, ``__heb_y``, ``__heb_a<f>`` per feature in a pair,
    ``__heb_s1``, ``__heb_s2`` (sum and sum of squares of i + 1 and j + 1, which identify
    the pair) and ``__heb_n``.
    """
    used = sorted({f for pair in pairs for f in pair})  # GROUPING() takes grouped columns only
    aliases = {f: f"__heb_a{f}" for f in used}
    inner = _rows(dialect, target, [(expressions[f], aliases[f]) for f in used], n_folds, seed)
    sets = ", ".join(f"(__heb_fold, __heb_y, {aliases[i]}, {aliases[j]})" for i, j in pairs)
    # the two grouped features i, j of a row's set: s1 = (i+1) + (j+1), s2 = (i+1)^2 + (j+1)^2
    s1 = " + ".join(f"(1 - GROUPING({a})) * {f + 1}" for f, a in aliases.items())
    s2 = " + ".join(f"(1 - GROUPING({a})) * {(f + 1) ** 2}" for f, a in aliases.items())
    return (
        f"SELECT __heb_fold, __heb_y, {', '.join(aliases.values())}, ({s1}) AS __heb_s1, "
        f"({s2}) AS __heb_s2, count(*) AS __heb_n FROM ({inner}) AS r "
        f"GROUP BY GROUPING SETS ({sets})"
    )


def partition_file_key(dialect: Dialect, keys: Sequence[str], file_name: str) -> str:
    """The row key's file in a partitioned table: its partition values and ``file_name``
    (an expression giving the file's name), joined by ``/``.

    Both engines read the values decoded from the folder names, so the key is the same
    on DuckDB and Spark; the file name alone repeats across partitions (``part-0.parquet``
    in each), which would give rows of different partitions one row key. A value's ``%``
    and ``/`` are escaped again (a folder ``a%2Fb`` holds the value ``a/b``), so two
    partitions never join to one key; a null partition (Hive's default one) is an empty
    value, which no other folder has.
    """
    values = [
        f"replace(replace(coalesce(CAST({dialect.identifier(key)} AS STRING), ''), '%', '%25'), "
        "'/', '%2F')"
        for key in keys
    ]
    return f"concat_ws('/', {', '.join([*values, file_name])})"


def floor_query(dialect: Dialect, target: str, features: Sequence[str]) -> str:
    """The counting floor: bare ``count(*)`` per (class, raw value) of every feature."""
    q = dialect.quote
    names = [q(f) for f in features]
    y = dialect.target(target)
    sets = ", ".join(f"({y}, {name})" for name in names)
    return (
        f"SELECT {y}, {', '.join(names)}, count(*) AS __heb_n FROM {VIEW} "
        f"GROUP BY GROUPING SETS ({sets})"
    )


def target_values_query(dialect: Dialect, target: str) -> str:
    """The number of different values (``__heb_n``) of the target in rows with one, and the
    least of them (``__heb_min``, the value of a one-valued target): a scan of that column
    alone."""
    q = dialect.target(target)
    return (
        f"SELECT count(DISTINCT {q}) AS __heb_n, min({q}) AS __heb_min FROM {VIEW} "
        f"WHERE {dialect.present(target)}"
    )


def fold_query(dialect: Dialect, target: str, n_folds: int, seed: int) -> str:
    """Each row's fold (``__heb_fold``) in the source's row order (rows with a target; for
    comparisons with in-memory runs)."""
    return (
        f"SELECT {dialect.fold(n_folds, seed)} AS __heb_fold FROM {VIEW} "
        f"WHERE {dialect.present(target)} ORDER BY __heb_file, __heb_row"
    )
