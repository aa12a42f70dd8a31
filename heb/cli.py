"""Headless runs: ``python -m heb bench``, ``synthetic`` and ``make-data``.

``bench`` cross-validates methods on datasets and writes the paper's Tables 1-8, Table 9
(HEB against reference models; CSV and markdown) and its CD and reliability diagrams
(PNG and SVG) to an output folder;
``synthetic`` writes the Theorem 1 study (Figure 2). Every run is keyed on a sha256 of
its inputs and settings and served from the result cache when repeated.
``bench FILE --engine duckdb|spark`` counts every row of a parquet / CSV file or folder on
that engine (:mod:`heb.cli_scale`); ``make-data clicks`` writes a generated parquet file.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import re
import shlex
import signal
import stat
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from heb import __version__
from heb.cli_columns import split_columns
from heb.cli_hierarchies import (
    add_hierarchy_option,
    cannot_apply,
    categorical_hint,
    checked_levels,
    hierarchies_option,
    is_file_data,
)
from heb.cli_params import (
    PARAM_EXAMPLE,
    add_param_option,
    param_labels,
    param_notes,
    param_overrides,
)
from heb.cli_scale import (
    DATA_SUFFIXES,
    ENGINES,
    BadInput,
    check_categorical,
    collect_on_engine,
    data_stem,
    distinct_name,
    engine_identity,
    make_data,
)
from heb.cli_terminal import terminal_safe_streams
from heb.data.spreadsheet import neutralise_formulas
from heb.evaluate.cache import ResultCache, cache_key
from heb.evaluate.folds import is_subsample_note
from heb.evaluate.paper import (
    ALL_TABLES,
    BIN_COUNTS,
    HIGH_CARDINALITY_K_MAX,
    LIDSTONE_ALPHAS,
    NEEDS_DATASETS,
    TABLE7_DATASETS,
    TABLE_METHODS,
    dataset_k_max,
    is_high_cardinality,
    ranks_table,
    summary_markdown,
    summary_table,
    table1,
    table2,
    table3,
    table4,
    table5,
    table6,
    table7,
    table8,
    table9,
    table_markdown,
)
from heb.evaluate.settings import RunSettings
from heb.paths import cache_dir, user_path
from heb.registry import METRIC_LABELS, METRICS, TABLE1_METHODS, resolve_method_name
from heb.registry import method as registry_method
from heb.text import first_sentence
from heb.whole_files import copy_whole, whole_file

#: the per-method mean ± sd table, written for any number of datasets
SUMMARY = ("summary_mean_sd", "Mean ± sd over folds, per dataset and method")
#: ``--methods`` on 2+ datasets: Table 1's ranks of the chosen methods
RANKS = ("methods_mean_ranks", "Mean Friedman ranks of the chosen methods over the datasets")
#: ``--folds`` etc. name these RunSettings fields in its messages
_SETTING_OPTIONS = {
    "n_splits": "--folds",
    "n_bins": "--n-bins",
    "max_rows": "--max-rows",
    "seed": "--seed",
    "missing": "--missing",
}


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _StoreGiven(argparse.Action):
    """``store``, and ``<dest>_given`` set: the option was typed, not left at its default
    (``--max-rows`` with ``--engine`` is then said not to apply)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


class UsageError(SystemExit):
    """A bad option value: ``str(exc)`` is one sentence, the exit code is 2 (argparse's).

    :func:`main` prints it on stderr (a bare ``SystemExit(2)`` prints nothing).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = 2


class NoUsableData(UsageError):
    """No dataset named could be used: exit code 2, as for bad large-data input.

    The same data refused in memory or on an engine gives the same exit code; code 1 is
    left to the system (an output folder that cannot be written, an unexpected error).
    """


def _one_line(message: str) -> str:
    """An argparse error message as one sentence naming the option and the fix."""
    found = re.match(r"argument (\S+): (.*)", message, re.S)
    if found:
        name, rest = found[1].split("/")[-1], found[2].strip()
        name = f"the {name.lower()}" if name.isupper() else name  # KIND, COMMAND
        choice = re.match(r"invalid choice: (.+?) \(choose from (.+)\)$", rest, re.S)
        if choice:
            options = ", ".join(c.strip().strip("'") for c in choice[2].split(","))
            return f"{name} must be one of {options} (got {choice[1]})."
        typed = re.match(r"invalid (\w+) value: (.+)$", rest, re.S)
        if typed:
            kind = "a whole number" if typed[1] == "int" else "a number"
            return f"{name} must be {kind} (got {typed[2]})."
        if rest.startswith("expected"):
            return f"{name} needs a value."
        return f"{name} {rest.rstrip('.')}."
    required = re.match(r"the following arguments are required: (.+)$", message, re.S)
    if required:
        names = required[1].strip()
        return f"{names} {'are' if ',' in names else 'is'} required; see --help."
    unknown = re.match(r"unrecognized arguments: (.+)$", message, re.S)
    if unknown:
        return f"unknown argument(s) {unknown[1].strip()}; see --help."
    return f"{message.strip().rstrip('.')}."


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors on stderr, exit code 2:
    ``heb bench: --engine must be one of duckdb, spark (got 'nonsense').``"""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one sentence prefixed by the command, exit with 2."""
        command = self.prog.removeprefix("python -m ")
        self.exit(2, f"{command}: {_one_line(message)}\n")


def _positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (a Dirichlet concentration)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number above 0 (got {text!r})")
    return value


def _whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an int in [low, high] (underscores allowed: 50_000_000)."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds} (got {text!r})")
        return value

    return whole_number


# --------------------------------------------------------------------------- datasets
def _looks_like_path(name: str) -> bool:
    """Whether a dataset argument names a file: a data suffix (``.csv``, ``.parquet``,
    ``.gz`` ...) or a folder separator; no shared or catalogue name has either."""
    return "/" in name or "\\" in name or Path(name).suffix.lower() in DATA_SUFFIXES


def _resolve_dataset_specs(names: Sequence[str]) -> list[str]:
    """Expand ``shared`` / ``all`` into every shared dataset; bare names mean shared copies,
    or a built-in dataset that no shared copy is called (``bench zip-codes``, the app's
    default, was refused); names that look like file paths are kept as given for
    :func:`_check_files`."""
    from heb.data import BUILTIN_DATASETS, shared_dataset_names

    shared = shared_dataset_names()
    specs: list[str] = []
    for name in names:
        if name in ("shared", "all"):
            specs.extend(f"shared:{n}" for n in shared)
        elif ":" in name or Path(name).exists() or _looks_like_path(name):
            specs.append(name)
        elif name in BUILTIN_DATASETS and name not in shared:
            specs.append(f"builtin:{name}")
        else:
            specs.append(f"shared:{name}")
    return list(dict.fromkeys(specs))


def _check_files(specs: Sequence[str]) -> None:
    """Refuse a file path that is not there, in one sentence, before any work (``bench
    nosuch.csv`` spoke of the shared folder's names)."""
    for spec in specs:
        kind, sep, rest = spec.partition(":")
        named = rest if sep and kind.lower() in ("file", "upload") else None
        if named is None and (sep or not _looks_like_path(spec)):
            continue  # a dataset name: its loader says what it lacks
        path = user_path(named if named is not None else spec)
        if not path.exists():
            where = "" if path.is_absolute() else f" (looked in {Path.cwd()})"
            raise UsageError(f"heb: No file {str(path)!r}{where}.")
        if path.is_dir():
            raise UsageError(
                f"heb: {str(path)!r} is a folder: a folder of parquet files (or a partitioned "
                "table) is read with --engine duckdb (or spark); in memory, name its files."
            )


def _no_datasets_sentence(named: Sequence[str] = ()) -> str:
    """Why ``bench`` has no datasets: where it looked and the variable to set (``named``:
    the names given, ``shared`` among them)."""
    import os

    from heb.paths import datasets_dir

    if os.environ.get("HEB_DATASETS_DIR"):
        fix = "HEB_DATASETS_DIR to the folder of the copies"
    else:
        fix = "HEB_SHARED_DIR to the shared folder (the one holding datasets/)"
    said = "'shared' was named" if named else "none were named"
    return (
        f"No datasets: {said} and there are no shared copies in {datasets_dir()}; "
        f"name files or builtin:NAME, or set {fix}."
    )


def _size_hint(spec: str, error: Exception | None = None) -> str:
    """For a file past the in-memory size or cell limit (:class:`TooManyCells`): the engine
    that reads it (a 205 MB CSV, or a 1e6 x 21 parquet file, was refused with no way
    forward)."""
    from heb.data.dataset import DEFAULT_MAX_BYTES, TooManyCells

    path = user_path(_spec_path(spec))
    if not path.is_file():
        return ""
    if isinstance(error, TooManyCells) or path.stat().st_size > DEFAULT_MAX_BYTES:
        return "--engine duckdb counts a file of any size (NB and AODE methods)"
    return ""


def _target_hint(reason: str, target: str | None, spec: str) -> str:
    """For a file whose default target (the last column) cannot be one: the option that
    names another (a file with a ``target`` column elsewhere was refused with no way out),
    with the columns that read as classes, as the engine path names them
    (:func:`heb.data.targets.fallback_targets`; the file is read again only here)."""
    if target is not None or "target" not in reason.lower():
        return ""
    from heb.data import DataError, read_table
    from heb.data.budget import read_local_file
    from heb.data.dataset import DEFAULT_MAX_BYTES
    from heb.data.targets import fallback_targets, target_option_hint

    path = Path(_spec_path(spec))
    try:
        table = read_table(read_local_file(path, DEFAULT_MAX_BYTES), path.name, DEFAULT_MAX_BYTES)
    except (DataError, OSError):
        return target_option_hint([])
    return target_option_hint(fallback_targets(table))


def _openml_hint(spec: str) -> str:
    """For a shared copy that could not be read: its OpenML name where the catalogue has
    one, else what names a dataset (``bench nosuch`` spoke only of the shared folder)."""
    from heb.data.catalogue import CATALOGUE_BY_NAME

    kind, _, name = spec.partition(":")
    if kind != "shared":
        return ""
    entry = CATALOGUE_BY_NAME.get(name)
    if entry is None:
        return (
            f"{name!r} is not in the paper's catalogue either; name a file, builtin:NAME or "
            "openml:ID"
        )
    if entry.openml_id is None:
        return ""
    return f"{name} is also openml:{entry.openml_id}, read from OpenML or its local cache"


def _spec_identity(spec: str) -> str:
    """A cheap identity of a dataset spec: the file's sha256 where there is a file.

    Shared copies also hash the manifest, whose categorical / dropped columns change
    how a file is read.
    """
    from heb.paths import datasets_dir

    if spec.startswith("shared:"):
        path = datasets_dir() / f"{spec.split(':', 1)[1]}.csv.gz"
        manifest = datasets_dir() / "manifest.json"
    elif ":" not in spec:
        path, manifest = Path(spec), None
    else:
        return spec
    try:
        info = path.stat()
    except (OSError, ValueError):  # absent, unreadable, a NUL in the name
        return spec
    # only a regular file with bytes: read_bytes() of a FIFO blocked forever, of /dev/zero
    # never ended (the loader refuses them, and a system file whose size says 0, later)
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        return spec
    with path.open("rb") as handle:  # in pieces: hashing never holds a large file whole
        digest = hashlib.file_digest(handle, "sha256")
    if manifest is not None and manifest.exists():
        digest.update(manifest.read_bytes())
    return f"{spec}:{digest.hexdigest()}"


# --------------------------------------------------------------------------- running
def _variants(
    tables: Sequence[int],
    base: list[str],
    n_bins: int,
    with_bins: bool,
    overrides: dict | None = None,
) -> list[tuple[str, list[str], dict, dict]]:
    """(label, methods, overrides, settings changes) of every run one dataset needs.

    ``"main"`` runs the tables' methods (with ``--methods``, at the ``--param``
    ``overrides``); Table 6 adds a Lidstone run per alpha and Table 7 (when
    ``with_bins``) the discretisation ablation at the other bin counts.
    """
    runs = [("main", base, dict(overrides or {}), {})]
    if 6 in tables:
        runs += [
            (f"Lidstone({a:g})", ["Lidstone"], {"Lidstone": {"alpha": a}}, {})
            for a in LIDSTONE_ALPHAS
        ]
    if with_bins:
        methods = list(TABLE_METHODS[7])
        runs += [(f"bins={b}", methods, {}, {"n_bins": b}) for b in BIN_COUNTS if b != n_bins]
    return runs


def _base_methods(tables: Sequence[int], leave_out: Sequence[str] = ()) -> list[str]:
    """The methods the chosen tables compare, each once (but those in ``leave_out``)."""
    methods = (m for t in tables for m in TABLE_METHODS[t] if m not in leave_out)
    return list(dict.fromkeys(methods))


def _engine_plan(tables: Sequence[int], explicit: bool) -> tuple[list[int], list[str], str]:
    """(tables, methods left out, one line saying so) of a run on the engine path.

    The engine fits NB and AODE from counts: a table that ranks reference models (Table 9)
    cannot be built, a TAN method is left out of the tables that list it. Raises
    :class:`BadInput` when ``--tables`` names a table the engine cannot build (before any
    scan).
    """
    from heb.scale.cv import unsupported_methods

    refused = {
        t: [m for m in TABLE_METHODS[t] if registry_method(m).family == "reference"] for t in tables
    }
    refused = {t: names for t, names in refused.items() if names}
    if refused and explicit:
        t, names = next(iter(refused.items()))
        raise BadInput(
            f"Table {t} ranks reference models ({', '.join(names)}) that the engine path "
            f"cannot fit; leave {t} out of --tables or run without --engine."
        )
    kept = [t for t in tables if t not in refused]
    left_out = unsupported_methods(_base_methods(kept))
    parts = []
    if refused:
        numbers = ", ".join(str(t) for t in refused)
        plural = "s" * (len(refused) > 1)
        parts.append(f"Table{plural} {numbers} (reference models need the rows in memory)")
    if left_out:
        where = [str(t) for t in kept if set(TABLE_METHODS[t]) & set(left_out)]
        plural = "s" * (len(where) > 1)
        parts.append(f"{', '.join(left_out)} from Table{plural} {', '.join(where)}")
    line = ""
    if parts:
        line = (
            f"Left out on the engine path: {' and '.join(parts)}; it fits NB and AODE from "
            "counts (run in memory for the rest)."
        )
    return kept, left_out, line


def _column_names(values: Sequence[str], option: str = "--categorical") -> list[str]:
    """``--categorical`` or ``--drop`` values (repeatable, comma-separated, a name holding
    a comma in double quotes: :mod:`heb.cli_columns`) as column names, each once."""
    try:
        names = [name for value in values for name in split_columns(str(value))]
    except ValueError as exc:
        raise UsageError(f"heb: {option}: {exc}") from None
    return list(dict.fromkeys(names))


def declare_categorical(dataset, categorical: Sequence[str], strict: bool = True):
    """``dataset`` with the ``categorical`` feature columns declared categorical.

    Raises :class:`BadInput` naming the columns there are when a name is not a feature
    column (the target named is refused too). With ``strict=False`` (several files on
    one command line, each with its own columns) a name the dataset lacks is passed over.
    """
    import dataclasses

    if not categorical:
        return dataset
    features = [str(c) for c in dataset.X.columns]
    if not strict:
        categorical = [c for c in categorical if c in features or c == str(dataset.target)]
    check_categorical(categorical, features, str(dataset.target), dataset.name)
    wanted = [*dataset.categorical, *(c for c in dataset.X.columns if str(c) in categorical)]
    return dataclasses.replace(dataset, categorical=list(dict.fromkeys(wanted)))


def _is_file_spec(spec: str) -> bool:
    """Whether a resolved dataset spec names a local file (not a shared, built-in or
    OpenML dataset)."""
    return spec.lower().startswith(("file:", "upload:")) or Path(spec).exists()


def _spec_path(spec: str) -> str:
    """The path a file spec names (``file:PATH``, ``upload:PATH``, the scheme in any case,
    as :func:`heb.data.load_dataset` reads it); any other spec as given."""
    kind, sep, rest = spec.partition(":")
    return rest.strip() if sep and kind.lower() in ("file", "upload") else spec


def _load(
    spec: str,
    target: str | None = None,
    drop: Sequence[str] = (),
    strict: bool = True,
    report: Callable[[str], None] = lambda _: None,
):
    """The dataset ``spec`` names; ``target`` (a file's class column) where given, ``drop``
    the file's columns to leave out. A file's dataset is named by the file without its data
    suffixes (``churn.csv.gz``: ``churn``), as on the engine path, in the tables and the
    figure file names alike.

    A ``drop`` name that is the target, or not a column of the file, is a :class:`BadInput`
    naming the columns there are; with ``strict=False`` (several files on one command line,
    each with its own columns) a name the file lacks is passed over and ``report`` says so.
    """
    import dataclasses

    from heb.data import load_dataset

    if not (drop and _is_file_spec(spec)):
        dataset = load_dataset(spec) if target is None else load_dataset(spec, target=target)
        if not _is_file_spec(spec):
            return dataset
        return dataclasses.replace(dataset, name=data_stem(_spec_path(spec)))
    from heb.data import dataset_from_table, read_table
    from heb.data.budget import read_local_file
    from heb.data.dataset import DEFAULT_MAX_BYTES, default_target

    path = Path(_spec_path(spec))
    table = read_table(read_local_file(path, DEFAULT_MAX_BYTES), path.name, DEFAULT_MAX_BYTES)
    columns = [str(c) for c in table.columns]
    name = data_stem(str(path))
    present = list(drop) if strict else [c for c in drop if c in columns]
    if len(present) < len(drop):
        lacking = ", ".join(repr(c) for c in drop if c not in present)
        report(f"{name}: no column {lacking} to leave out.")
    column = default_target(columns) if target is None else str(target)
    check_categorical(present, columns, column, repr(path.name), option="--drop")
    dataset = dataset_from_table(table, path.name, target, drop=present)
    return dataclasses.replace(dataset, name=name)


def load_one(
    name: str,
    target: str | None = None,
    drop: Sequence[str] = (),
    categorical: Sequence[str] = (),
    report: Callable[[str], None] = _log,
):
    """The one dataset ``name`` names on the command line (a file, ``builtin:``,
    ``shared:``, ``openml:``), read as ``bench`` reads it: a file's ``--target``,
    ``--drop`` and ``--categorical`` (repeatable, comma-separated) applied.

    Raises :class:`UsageError` for a file that is not there or a ``--target`` given for a
    named dataset, and the loaders' ValueError for data that cannot be used.
    """
    from heb.data import DataError

    (spec,) = _resolve_dataset_specs([name])
    _check_files([spec])
    _check_target([spec], target)
    try:
        dataset = _load(spec, target, _column_names(drop, "--drop"), report=report)
    except DataError as exc:  # a file's unusable last column: the --target way out, as bench
        hint = _target_hint(str(exc), target, spec) if _is_file_spec(spec) else ""
        if not hint:
            raise
        raise DataError(f"{str(exc).rstrip('.')}; {hint}.") from None
    return _declared(dataset, spec, _column_names(categorical), True, report)


def check_file(path: str) -> None:
    """Refuse a file path that is not there (or a folder), as ``bench`` does."""
    _check_files([path])


def _check_target(specs: Sequence[str], target: str | None) -> None:
    """Refuse ``--target`` for a named dataset (it has its own class column), before any work."""
    named = [spec for spec in specs if not _is_file_spec(spec)]
    if target is not None and named:
        raise UsageError(
            f"heb: --target names the class column of a data file, and {named[0]!r} is a "
            "named dataset with its own target; name files only, or leave out --target."
        )


def _declared(dataset, spec: str, categorical: Sequence[str], strict: bool, report):
    """``dataset`` with ``--categorical`` applied where ``spec`` is a file path, saying what
    was not applied; the tables and the reliability figures read the same columns."""
    if categorical and _is_file_spec(spec):
        dataset = declare_categorical(dataset, categorical, strict=strict)
        lacking = [c for c in categorical if c not in dataset.categorical]
        if lacking:
            report(
                f"{dataset.name}: no column {', '.join(map(repr, lacking))} to read as categories."
            )
    elif categorical:
        report(f"{spec}: --categorical applies to file paths; read as its source declares.")
    return dataset


def _code_signal_notes(dataset, settings: dict) -> list[str]:
    """The whole-number columns of a file whose quantile bins hide what their values tell
    the target (:func:`heb.data.code_signal.binned_signal_columns`), a line each, and the
    option that reads them as categories; none when there are none. The bins are fitted on
    the rows the run evaluates (``--max-rows``), with its ``--n-bins`` and ``--missing``,
    as the app's Dataset page fits them."""

    from heb.data import Preprocessor
    from heb.data.code_signal import binned_signal_columns
    from heb.data.dataset import quote
    from heb.evaluate.folds import evaluated_data

    X = evaluated_data(dataset, settings.get("max_rows"))[0]
    with warnings.catch_warnings():  # a code-named column's warning: the lines below say more
        warnings.simplefilter("ignore", UserWarning)
        encoder = Preprocessor(
            n_bins=settings["n_bins"],
            missing=settings.get("missing", "impute"),
            categorical=dataset.categorical,
        ).fit(X)
    found = binned_signal_columns(dataset.X, dataset.y, encoder).found
    lines = [
        f"{quote(name)} ({signal.distinct:,} different whole numbers) tells the target "
        f"{signal.by_value:.3f} nats above chance value by value, "
        f"{signal.in_bins:.3f} in its {signal.bins} bin{'s' * (signal.bins != 1)}."
        for name, signal in found.items()
    ]
    # the warning silenced above, said here: a sku of 1,049 numbers was binned in silence
    named = _code_named_columns(X, encoder, [*found, *getattr(dataset, "amounts", ())])
    lines += [
        f"{quote(name)} ({distinct:,} different whole numbers) is named like a code but "
        f"binned as a number, {settings['n_bins']} quantile bins."
        for name, distinct in named.items()
    ]
    if found or named:
        lines.append(f"{categorical_hint([*found, *named])}.")
    return lines


def _code_named_columns(X, encoder, said) -> dict[str, int]:
    """The binned whole-number columns the Preprocessor warns of (their name says code:
    zip, postal, code, sku; more than CODE_MIN_VALUES values), less those ``said``: name ->
    their number of values."""
    from heb.data.code_signal import whole_number_bins
    from heb.data.preprocess import CODE_MIN_VALUES, CODE_NAME

    names = whole_number_bins(X, encoder.kinds_, encoder.feature_names_out_)
    columns = {str(c): c for c in X.columns}
    counts = {n: int(X[columns[n]].nunique()) for n in names if n not in set(said)}
    return {n: k for n, k in counts.items() if CODE_NAME.search(n) and k > CODE_MIN_VALUES}


def _say_data_notes(dataset, spec: str, settings: dict, report) -> None:
    """What reading the file changed (renames, dropped rows...) and, for a file, the
    whole-number columns its bins would blur (:func:`_code_signal_notes`)."""
    notes = list(dataset.notes)
    if _is_file_spec(spec):  # catalogue and OpenML data are typed by their metadata
        notes += _code_signal_notes(dataset, settings)
    for note in notes:
        report(f"  {dataset.name}: {note}")


def _with_bins(dataset, tables: Sequence[int], table7_subset: bool, report) -> bool:
    """Whether ``dataset`` runs Table 7's other bin counts: the table is asked for, the
    dataset is in its subset (when the run names one) and it has a column to bin."""
    from heb.data.preprocess import column_kind

    if 7 not in tables or (table7_subset and dataset.name not in TABLE7_DATASETS):
        return False
    declared = {str(c) for c in dataset.categorical}
    if any(column_kind(str(c), dataset.X[c], declared) == "numeric" for c in dataset.X):
        return True
    report(f"  {dataset.name}: no numeric column to bin; left out of Table 7.")
    return False


def _collect(
    specs: Sequence[str],
    tables: Sequence[int],
    settings: dict,
    report: Callable[[str], None],
    categorical: Sequence[str] = (),
    target: str | None = None,
    drop: Sequence[str] = (),
    methods: Sequence[str] = (),
    failed: list[str] | None = None,
    overrides: dict | None = None,
) -> pd.DataFrame:
    """Run every (dataset, method, setting) the chosen tables need; one long frame.

    ``categorical`` declares columns categorical in the datasets given as file paths;
    ``target`` is their class column (default: the last column); ``drop`` names their
    columns to leave out; ``methods`` (``--methods``) replaces the tables' methods, at
    the ``overrides`` of ``--param``. A
    dataset that loads but whose cross-validation fails (out of memory, say) is skipped
    with a line saying why, as the app's Benchmark does, and its spec appended to
    ``failed``.
    """
    from heb.data import DataError

    base = list(methods) or _base_methods(tables)
    names = {spec.split(":", 1)[-1] for spec in specs}
    table7_subset = bool(names & set(TABLE7_DATASETS))
    frames, taken = [], set()
    for index, spec in enumerate(specs):
        started = time.perf_counter()
        if drop and not _is_file_spec(spec):
            report(f"{spec}: --drop applies to file paths; read with every column.")
        try:
            dataset = _load(spec, target, drop, len(specs) == 1, report)
        except DataError as exc:
            hint = _openml_hint(spec) or _size_hint(spec, exc)
            hint = hint or (_target_hint(str(exc), target, spec) if _is_file_spec(spec) else "")
            reason = f"{str(exc).rstrip('.')}; {hint}" if hint else exc
            report(f"[{index + 1}/{len(specs)}] {spec}: skipped ({reason})")
            continue
        dataset = _declared(dataset, spec, categorical, len(specs) == 1, report)
        dataset.name = distinct_name(dataset.name, spec, taken)
        _say_data_notes(dataset, spec, settings, report)
        _check_hierarchies(dataset, settings, len(specs) == 1, report)
        k_max = dataset_k_max(dataset, settings["n_bins"])  # Table 3 outside the catalogue
        with_bins = _with_bins(dataset, tables, table7_subset, report)
        runs = _variants(tables, base, settings["n_bins"], with_bins, overrides)
        try:  # every variant of the dataset, or none of them
            dataset_frames, notes = _cross_validated(dataset, runs, settings, k_max)
        except Exception as exc:  # noqa: BLE001 - one dataset's failure must not stop the rest
            if failed is not None:
                failed.append(spec)
            report(
                f"[{index + 1}/{len(specs)}] {dataset.name}: skipped (cross-validation "
                f"failed: {first_sentence(exc)})"
            )
            continue
        frames.extend(dataset_frames)
        said_target = f", target {str(dataset.target)!r}" if _is_file_spec(spec) else ""
        n_rows, cap = len(dataset.X), settings.get("max_rows") or 0
        subsample = f" ({cap:,} evaluated, --max-rows)" if cap and n_rows > cap else ""
        # the features counted, as the app's: a column empty in every row is left out
        features = int(dataset.X.notna().any().sum())
        report(
            f"[{index + 1}/{len(specs)}] {dataset.name}: {n_rows:,} rows{subsample}, "
            f"{features} feature{'' if features == 1 else 's'}{said_target}, "
            f"{time.perf_counter() - started:.1f} s"
        )
        for note in notes:  # fewer folds than asked, ... (the subsample is said above)
            report(f"  {dataset.name}: {note}")
    if not frames:
        if failed:
            raise NoUsableData("heb: No dataset could be cross-validated (the reasons are above).")
        raise NoUsableData("heb: No dataset could be loaded (the reasons are above).")
    return pd.concat(frames, ignore_index=True)


def _cross_validated(
    dataset, runs, settings: dict, k_max: int
) -> tuple[list[pd.DataFrame], list[str]]:
    """The per-fold frames of ``dataset`` under every (label, methods, params, override)
    of ``runs``, and the notes of their results (the subsample note left to the progress
    line, which says "(N evaluated, --max-rows)")."""
    from heb.evaluate import cross_validate

    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    for label, methods, params, override in runs:
        result = cross_validate(dataset, methods, settings=_run_of(settings, params, override))
        notes += [n for n in result.notes if n not in notes and not is_subsample_note(n)]
        frame = result.folds.assign(dataset=dataset.name, variant=label, k_max=k_max)
        if label.startswith("Lidstone"):
            frame["method"] = label
        elif label.startswith("bins="):
            frame["method"] = frame["method"] + f" [{label}]"
        frames.append(frame)
    return frames, notes


def _run_of(settings: dict, params: dict | None = None, override: dict | None = None):
    """The :class:`RunSettings` of bench's ``settings`` with a variant's method ``params``
    and setting ``override`` (Table 7's bin counts)."""
    return RunSettings(**{**settings, **(override or {})}, overrides=params or {})


# --------------------------------------------------------------------------- output
#: the table whose CSV holds times: its rows say their unit in a column of their own
TIMES_TABLE = "table8_fit_times"
#: markdown headers of Tables 3 and 4's derived columns (the CSVs keep the column names)
MARKDOWN_HEADERS = {
    "HEB-AODE_reduction_%": "HEB-AODE vs AODE, reduction %",
    "HEB-TAN_reduction_%": "HEB-TAN vs TAN, reduction %",
    "HEB-M+GR_vs_Laplace_change_%": "HEB-M+GR vs Laplace, change %",
    "HEB-M+GR_minus_Laplace": "HEB-M+GR − Laplace",
}


def _with_units(table: pd.DataFrame) -> pd.DataFrame:
    """Table 8 with a ``unit`` column after ``dataset``: seconds per fold, or the ratio of
    its ``x Laplace`` row (the CSV held seconds beside a markdown in ms, and said neither)."""
    unit = np.where(table["dataset"] == "x Laplace", "ratio to Laplace", "seconds per fold")
    return table.assign(unit=unit)[["dataset", "unit", *table.columns[1:]]]


def _spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` whose dataset names (a file's name: the user's text) cannot start a
    spreadsheet formula (:mod:`heb.data.spreadsheet`); the numbers and method names as they are."""
    return neutralise_formulas(table, [c for c in ("dataset",) if c in table.columns])


def _write_table(out: Path, name: str, table: pd.DataFrame, title: str) -> None:
    """``name.csv`` and ``name.md`` (the summary's markdown shows ``mean ± sd`` cells)."""
    with whole_file(out / f"{name}.csv") as temp:
        _spreadsheet_safe(_with_units(table) if name == TIMES_TABLE else table).to_csv(
            temp, index=False
        )
    if name == SUMMARY[0]:
        text = summary_markdown(table)
    else:
        shown = table.rename(columns=MARKDOWN_HEADERS)  # a "%" header stays a percentage
        text = table_markdown(shown, name) if len(table) else "(no rows)"
    with whole_file(out / f"{name}.md") as temp:
        temp.write_text(f"# {title}\n\n{text}\n", encoding="utf-8")


def _keep_figure(cached: Path, data: bytes) -> bool:
    """Store an exported figure in the figure cache; False (and a warning) when unwritable."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with whole_file(cached) as temp:  # Ctrl-C too: no temporary file is left
            temp.write_bytes(data)
    except OSError as exc:
        warnings.warn(f"Figure not cached ({exc}); it will be exported again.", stacklevel=2)
        return False
    return True


def _export_figure(fig, path_stem: Path, report: Callable[[str], None]) -> dict[str, str]:
    """Write PNG and SVG, re-using identical figures from the cache (export is slow).

    Returns the written file names mapped to their copies in the figure cache.
    """
    from heb.figures import to_image_bytes

    written: dict[str, str] = {}
    spec = fig.to_json()
    for fmt in ("png", "svg"):
        digest = hashlib.sha256(f"{fmt}:{spec}".encode()).hexdigest()
        cached = cache_dir() / "figures" / f"{digest}.{fmt}"
        target = path_stem.parent / f"{path_stem.name}.{fmt}"
        if not cached.exists():
            try:
                data = to_image_bytes(fig, fmt=fmt, keep_browser=True)
            except RuntimeError as exc:
                report(f"  {target.name}: not exported ({exc}); writing HTML instead")
                with whole_file(path_stem.parent / f"{path_stem.name}.html") as temp:
                    fig.write_html(temp, include_plotlyjs="cdn")
                return written
            if not _keep_figure(cached, data):  # no figure cache: write the file alone
                with whole_file(target) as temp:
                    temp.write_bytes(data)
                continue
        copy_whole(cached, target)
        written[target.name] = cached.name
    return written


def _figures(
    frame: pd.DataFrame, out: Path, tables: Sequence[int], report, methods: Sequence[str] = ()
) -> dict[str, str]:
    """Table 1's CD diagrams, or with ``methods`` (``--methods``) theirs."""
    from heb.evaluate import benchmark_tables
    from heb.figures import cd_diagram

    written: dict[str, str] = {}
    main = frame[frame["variant"] == "main"]
    ranked = methods if methods else TABLE1_METHODS if 1 in tables else ()
    if methods and (main["dataset"].nunique() < 2 or len(methods) < 2):
        return written  # a comparison on one dataset (or of one method) has no ranks
    if ranked:
        n_datasets = main["dataset"].nunique()
        if n_datasets < 2:
            raise ValueError(f"{NEEDS_DATASETS} (got {n_datasets}).")
        for metric in METRICS:
            sub = main[main["method"].isin(ranked)]
            res = benchmark_tables(sub, metric)
            fig = cd_diagram(
                res["avg_ranks"].to_dict(),
                res["cd"],
                groups=res["groups"],
                title=f"{METRIC_LABELS[metric]}: mean ranks over {len(res['scores'])} datasets",
            )
            written |= _export_figure(fig, out / f"cd_{metric}", report)
    return written


def _reliability_figures(
    reliability: dict[str, dict[str, dict]], out: Path, report: Callable[[str], None]
) -> dict[str, str]:
    from heb.figures import reliability_diagram

    written: dict[str, str] = {}
    for dataset, curves in reliability.items():
        # no ECE in the legend: that of the pooled predictions differs from Table 4's mean
        # over folds (the app's Compare page draws it so too)
        title = f"{dataset}: reliability of the pooled out-of-fold predictions"
        fig = reliability_diagram(curves, title=title, show_ece=False)
        written |= _export_figure(fig, out / f"reliability_{dataset}", report)
    return written


def _serve_outputs(cache: ResultCache, key: str, out: Path) -> dict | None:
    """Write a previous run's tables and figures from the cache; its manifest (``tables``,
    ``figures``, ``skipped``), or None if any piece is gone."""
    manifest = cache.get_json(cache_key("bench-outputs", key))
    if manifest is None or "skipped" not in manifest:
        return None
    frames = {}
    for name in [*manifest["tables"], "folds"]:
        frames[name] = cache.get_frame(cache_key("bench-table", key, name))
        if frames[name] is None:
            return None
    figures = {t: cache_dir() / "figures" / c for t, c in manifest["figures"].items()}
    if not all(path.exists() for path in figures.values()):
        return None
    with whole_file(out / "folds.csv") as temp:
        _spreadsheet_safe(frames.pop("folds")).to_csv(temp, index=False)
    for name, frame in frames.items():
        _write_table(out, name, frame, manifest["tables"][name])
    for target, cached in figures.items():
        copy_whole(cached, out / target)
    return manifest


def _output_folder(path: str) -> Path:
    """The output folder, created; a folder that cannot be made is a one-line exit."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc
        raise SystemExit(f"heb: Cannot write the output folder {out}: {reason}.") from None
    return out


def _bench_specs(args: argparse.Namespace) -> list[str]:
    """The inputs of ``bench``: paths as given with ``--engine``, else dataset specs (none
    named: every shared copy)."""
    if not args.engine:
        return _resolve_dataset_specs(args.datasets or ["shared"])
    specs = list(dict.fromkeys(args.datasets or ["shared"]))
    if specs == ["shared"]:
        raise BadInput(f"--engine {args.engine} needs a parquet / CSV file or folder path.")
    return specs


def _bench_frame(
    args: argparse.Namespace,
    specs,
    tables,
    settings,
    leave_out: Sequence[str] = (),
    note: str = "",
    methods: Sequence[str] = (),
    failed: list[str] | None = None,
    report: Callable[[str], None] = _log,
    overrides: dict | None = None,
) -> tuple[pd.DataFrame, dict[str, dict[str, dict]] | None]:
    """The long per-fold frame: on the engine (every row) or in memory (as before, each
    dataset whose cross-validation failed appended to ``failed``); and on the engine, the
    reliability data of Table 4's methods per input (in memory it is collected with the
    figures, :func:`_collect_reliability`)."""
    categorical = _column_names(args.categorical)
    drop = _column_names(args.drop, "--drop")
    if not args.engine:
        frame = _collect(
            specs, tables, settings, report, categorical, args.target, drop, methods, failed,
            overrides,
        )  # fmt: skip
        return frame, None
    base = list(methods) or _base_methods(tables, leave_out)
    curves: dict[str, dict[str, dict]] = {}

    def keep_reliability(name: str, label: str, result) -> None:
        drawn = [m for m in TABLE_METHODS[4] if m in result.methods]
        if label == "main" and 4 in tables and drawn:
            curves[name] = {m: result.reliability(m) for m in drawn}

    frame = collect_on_engine(
        specs,
        args.engine,
        lambda name: _variants(tables, base, settings["n_bins"], 7 in tables, overrides),
        settings,
        report,
        target=args.target,
        master=args.spark_master or "local[*]",
        note=note,
        categorical=categorical,
        on_result=keep_reliability,
        drop=drop,
    )
    return frame, curves


def _table_range() -> str:
    """The table numbers ``--tables`` accepts, as the user types them."""
    return f"{min(ALL_TABLES)}-{max(ALL_TABLES)}"


def _methods(args: argparse.Namespace) -> list[str]:
    """The methods ``--methods`` names, as the registry names them (none: the tables')."""
    if args.methods is None:
        return []
    if args.tables is not None:
        raise UsageError(
            "heb: --methods and --tables each choose what to compare; give one of them."
        )
    names = [name.strip() for name in args.methods.split(",") if name.strip()]
    if not names:  # an empty shell variable ran every table of the paper instead
        raise UsageError(
            "heb: --methods names no method; give names such as laplace,heb-m,aode, "
            "or leave it out for the paper's tables."
        )
    try:
        return list(dict.fromkeys(resolve_method_name(name) for name in names))
    except ValueError as exc:
        raise UsageError(f"heb: --methods: {exc}") from None


def _overrides(args: argparse.Namespace, methods: Sequence[str]) -> dict:
    """The run's ``--param`` values as per-method overrides, checked before any work."""
    if args.param and not methods:
        raise UsageError(
            "heb: --param sets a value of a method named in --methods (e.g. --methods "
            f"laplace,m-estimate --param {PARAM_EXAMPLE})."
        )
    try:
        overrides = param_overrides(args.param, methods)
    except ValueError as exc:
        raise UsageError(f"heb: {exc}") from None
    for line in param_notes(overrides):
        _log(f"heb: note: {line}")
    return overrides


def _hierarchies(args: argparse.Namespace, methods: Sequence[str]) -> str:
    """The run's ``--hierarchy`` declarations as their canonical text ("" for none),
    checked before any work."""
    if args.hierarchy and args.engine:
        raise UsageError(
            "heb: --hierarchy runs in memory: category hierarchies are not available on the "
            "large-data path (--engine)."
        )
    if args.hierarchy and not methods:
        raise UsageError(
            "heb: --hierarchy is read by HEB-H, which no table of the paper runs; name it in "
            "--methods (e.g. --methods heb-m,heb-h)."
        )
    try:
        return hierarchies_option(args.hierarchy, methods)
    except ValueError as exc:
        raise UsageError(f"heb: {exc}") from None


def _check_hierarchies(dataset, settings: dict, strict: bool, report) -> None:
    """Say (or, for the one dataset of a run, refuse) a ``--hierarchy`` that cannot apply
    to ``dataset``: HEB-H would run as HEB-M there without a word."""
    if not settings.get("hierarchies"):
        return
    from heb.data import Preprocessor

    with warnings.catch_warnings():  # the code-signal lines above already spoke of them
        warnings.simplefilter("ignore", UserWarning)
        encoder = Preprocessor(
            n_bins=settings["n_bins"], missing=settings["missing"], categorical=dataset.categorical
        ).fit(dataset.X)
    _, lines, left_out = checked_levels(settings["hierarchies"], encoder, dataset.X, dataset)
    for line in lines:
        report(line)
    for declared, why in left_out:
        if not strict:
            report(f"  {dataset.name}: --hierarchy {declared!r} left out ({why}).")
            continue
        raise UsageError(cannot_apply(declared, why, dataset.name, is_file_data(dataset)))


def _tables(args: argparse.Namespace) -> list[int]:
    """The tables ``--tables`` names (default: all), checked."""
    if args.tables is None:
        return list(ALL_TABLES)
    if not args.tables.strip(", "):
        raise UsageError(
            f"heb: --tables names no table; give numbers {_table_range()} separated by "
            "commas, or leave it out for all of them."
        )
    try:
        tables = sorted({int(t) for t in args.tables.split(",")})
    except ValueError:
        message = (
            f"heb: --tables takes numbers {_table_range()} separated by commas, "
            f"not {args.tables!r}."
        )
        raise UsageError(message) from None
    unknown = set(tables) - set(ALL_TABLES)
    if unknown:
        listed = ", ".join(str(t) for t in sorted(unknown))
        plural = "s" * (len(unknown) > 1)
        raise UsageError(f"heb: Unknown table{plural} {listed}; choose from {_table_range()}.")
    return tables


def _run_settings(args: argparse.Namespace) -> RunSettings:
    """The run's settings, checked before any work; a bad value names its option."""
    try:
        return RunSettings(
            n_bins=args.n_bins,
            missing=args.missing,
            max_rows=args.max_rows,
            n_splits=args.folds,
            seed=args.seed,
        )
    except ValueError as exc:
        message = str(exc).rstrip(".")
        field_name = message.split(" ", 1)[0]
        option = _SETTING_OPTIONS.get(field_name)
        if option:  # the user's option, not the settings field behind it
            message = option + message[len(field_name) :]
        raise UsageError(f"heb: {message}.") from None


def _builders(n_bins: int) -> dict[int, tuple[str, str, Callable[[pd.DataFrame], pd.DataFrame]]]:
    """Table number -> (file name, title, builder)."""
    return {
        1: ("table1_mean_ranks", "Table 1: mean Friedman ranks of the seven smoothers", table1),
        2: ("table2_wilcoxon", "Table 2: Wilcoxon signed-rank tests over datasets", table2),
        3: (
            "table3_high_cardinality_logloss",
            "Table 3: high-cardinality log-loss (the catalogue's group; other data: "
            f"K_max >= {HIGH_CARDINALITY_K_MAX})",
            table3,
        ),
        4: (
            "table4_ece",
            "Table 4: top-1 ECE (change % < 0: HEB-M+GR is better calibrated than Laplace)",
            table4,
        ),
        5: ("table5_smoothing_x_weighting", "Table 5: smoothing x weighting", table5),
        6: (
            "table6_lidstone_sweep",
            "Table 6: Lidstone alpha sweep vs HEB-M (mean ranks among the seven)",
            table6,
        ),
        7: ("table7_bins", "Table 7: discretisation ablation", lambda f: table7(f, n_bins)),
        8: ("table8_fit_times", "Table 8: fit time per fold", table8),
        9: (
            "table9_references",
            "Table 9: HEB methods vs reference models (mean rank per metric, 1 = best; fit "
            "time as a ratio to HEB-M)",
            table9,
        ),
    }


def _bench_figures(
    args,
    frame,
    out: Path,
    tables,
    specs,
    settings,
    curves=None,
    failed: Sequence[str] = (),
    methods: Sequence[str] = (),
) -> dict[str, str]:
    """CD diagrams (Table 1's, or those of ``methods``, ``--methods``' on 2+ datasets) and
    reliability diagrams: in memory those of the high-cardinality datasets but the
    ``failed`` ones (whose cross-validation failed), on the engine ``curves`` (every
    input, from its bins)."""
    figures: dict[str, str] = {}
    try:
        figures |= _figures(frame, out, tables, _log, methods)
    except ValueError as exc:
        _log(f"CD diagrams skipped: {exc}")
    if curves is None:
        categorical = _column_names(args.categorical)
        drop = _column_names(args.drop, "--drop")
        curves = _collect_reliability(
            specs, settings, tables, categorical, args.target, drop, skip=failed
        )
        if 4 in tables and not curves:
            _log(
                "Reliability diagrams skipped: in memory they are drawn for the "
                "high-cardinality inputs (K_max >= 100, as Table 3), and none is."
            )
    figures |= _reliability_figures(curves, out, _log)
    return figures


def _written_line(out: Path, tables: dict[str, str], skipped: dict, figures: dict, seconds):
    """The closing line: what was written where, and which tables were skipped."""
    numbers = [title.split(":", 1)[0].removeprefix("Table ") for title in tables.values()]
    numbers = [n for n in numbers if n.isdigit()]
    pieces = ["folds.csv", f"{SUMMARY[0]} (mean ± sd per method)"]
    if RANKS[0] in tables:
        pieces.append(f"{RANKS[0]} (mean ranks, Friedman p, CD per metric)")
    if numbers:
        pieces.append(f"Table{'s' * (len(numbers) > 1)} {', '.join(numbers)}")
    if figures:
        pieces.append(f"{len(figures)} figure files")
    # "; " between the pieces: after "Tables 1, 2, 9" a ", 12 figure files" read as Table 12
    line = f"Wrote {'; '.join(pieces)} to {out} in {seconds:.1f} s"
    if skipped:
        gone = ", ".join(str(t) for t in skipped)
        line += f"; skipped Table{'s' * (len(skipped) > 1)} {gone} (reasons above)"
    return line + "."


def _write_tables(
    frame: pd.DataFrame,
    tables: Sequence[int],
    out: Path,
    cache: ResultCache,
    key: str,
    n_bins,
    methods: Sequence[str] = (),
) -> tuple[dict[str, str], dict[str, str]]:
    """Write the summary, with ``methods`` (``--methods``, 2+ of them on 2+ datasets) their
    mean ranks, and every table that can be built; (written name -> title, skipped table
    number -> reason), each skip logged with its reason."""
    summary = summary_table(frame)
    _write_table(out, SUMMARY[0], summary, SUMMARY[1])
    cache.store("frame", cache_key("bench-table", key, SUMMARY[0]), summary)
    written_tables: dict[str, str] = {SUMMARY[0]: SUMMARY[1]}
    skipped: dict[str, str] = {}
    if methods and frame["dataset"].nunique() >= 2 and len(methods) >= 2:
        ranks = ranks_table(frame, methods)
        _write_table(out, RANKS[0], ranks, RANKS[1])
        cache.store("frame", cache_key("bench-table", key, RANKS[0]), ranks)
        written_tables[RANKS[0]] = RANKS[1]
    builders = _builders(n_bins)
    for number in tables:
        name, title, build = builders[number]
        try:
            table = build(frame)
        except ValueError as exc:
            reason = str(exc)
            skipped[str(number)] = reason[:1].upper() + reason[1:]
            _log(f"Table {number} skipped: {skipped[str(number)]}")
            continue
        _write_table(out, name, table, title)
        cache.store("frame", cache_key("bench-table", key, name), table)
        written_tables[name] = title
    return written_tables, skipped


#: a dataset ``bench`` could not load: "[3/3] openml:31: skipped (...)"
_SKIPPED_LINE = re.compile(r"\[\d+/\d+\] .*: skipped \(")
#: a progress line of an engine's scan: "  small · main: Scoring fold 1 of 3 (67%, 1 s)"
_PROGRESS_LINE = re.compile(r"\(\d+%, \d+ s\)$")


def _said_of_the_data(lines: list[str]) -> Callable[[str], None]:
    """A reporter that prints each line and keeps, in ``lines``, what a cached run must
    say again: skipped datasets and the notes on the data (fewer folds than asked, ...).
    A rerun said "Served 3 datasets" of three named, one of them skipped, and no note."""

    def report(message: str) -> None:
        _log(message)
        if _SKIPPED_LINE.match(message) or (
            not message.startswith("[") and not _PROGRESS_LINE.search(message)
        ):
            lines.append(message)

    return report


def _serve(
    cache: ResultCache, key: str, out: Path, n_specs: int, started: float, note
) -> dict | None:
    """Serve a previous run from the cache, with its notes and skip reasons; its manifest,
    or None when absent."""
    served = _serve_outputs(cache, key, out)
    if served is None:
        return None
    said = served.get("said", [])  # a run cached before the notes were kept has none
    n_served = n_specs - sum(bool(_SKIPPED_LINE.match(line)) for line in said)
    _log(f"Served {n_served} dataset{'s' * (n_served != 1)} from the cache.")
    if note:
        _log(note)
    for line in said:
        if line != note:  # an engine's plan note is said once, above
            _log(line)
    for number, reason in served["skipped"].items():
        _log(f"Table {number} skipped: {reason}")
    seconds = time.perf_counter() - started
    _log(_written_line(out, served["tables"], served["skipped"], served["figures"], seconds))
    return served


def _drop_earlier_outputs(out: Path, tables: dict[str, str], figures: dict, n_bins) -> None:
    """Remove the tables and figures an earlier run left in ``out`` that this run did not
    write (``tables``, ``figures``: its written ones): a run ranking 2+ datasets, then one
    on a single dataset to the same folder, left the first's methods_mean_ranks and CD
    diagrams beside the second's files, as if they were its own."""
    kept = {f"{name}.{ext}" for name in tables for ext in ("csv", "md")} | set(figures)
    names = [SUMMARY[0], RANKS[0], *(built[0] for built in _builders(n_bins).values())]
    outputs = [out / f"{name}.{ext}" for name in names for ext in ("csv", "md")]
    for pattern in ("cd_*.png", "cd_*.svg", "reliability_*.png", "reliability_*.svg"):
        outputs += out.glob(pattern)
    for path in outputs:
        if path.name not in kept and path.is_file():
            path.unlink(missing_ok=True)


def _check_drop(args: argparse.Namespace) -> None:
    """Refuse a column both left out (``--drop``) and read as categories (``--categorical``)."""
    both = set(_column_names(args.drop, "--drop")) & set(_column_names(args.categorical))
    if both:
        names = ", ".join(repr(name) for name in sorted(both))
        raise UsageError(
            f"heb: {names} is named by both --drop and --categorical; a column left out is "
            "not read at all, so name it in one of them."
        )


def _check_engine_options(args: argparse.Namespace) -> None:
    """Refuse --spark-master without --engine spark; say that a typed --max-rows does not
    apply on an engine (it counts every row)."""
    if args.spark_master and args.engine != "spark":
        raise UsageError("heb: --spark-master is the master of --engine spark; add that option.")
    if args.engine and getattr(args, "max_rows_given", False):
        _log("heb: note: --max-rows applies in memory; the engine counts every row.")


def bench(args: argparse.Namespace) -> int:
    """The ``bench`` command."""
    started = time.perf_counter()
    methods = _methods(args)  # --methods replaces the paper's tables
    tables = [] if methods else _tables(args)
    specs = _bench_specs(args)
    if not specs:
        raise NoUsableData(f"heb: {_no_datasets_sentence(args.datasets)}")
    if not args.engine:
        _check_files(specs)
        _check_target(specs, args.target)
    _check_drop(args)
    _check_engine_options(args)
    run = _run_settings(args)  # checks every setting before any work
    settings = {
        "n_splits": run.n_splits,
        "seed": run.seed,
        "n_bins": run.n_bins,
        "missing": run.missing,
        "max_rows": run.max_rows,
    }
    hierarchies = _hierarchies(args, methods)
    if hierarchies:  # only then: a run without one keeps its cache key
        settings["hierarchies"] = hierarchies
    overrides = _overrides(args, methods)
    leave_out, note = [], ""
    if args.engine:  # methods and tables checked before the engine scans a row
        tables, leave_out, note = _engine_plan(tables, explicit=bool(args.tables))
        _check_engine_methods(methods)
    out = _output_folder(args.output)
    if (out / "folds.csv").exists():  # two runs to the default folder: the second replaces
        _log(f"heb: note: {out} holds an earlier run's files; this run replaces them (-o DIR "
             "keeps runs apart).")  # fmt: skip
    cache = ResultCache()
    identity = engine_identity if args.engine else _spec_identity
    key = cache_key(
        "bench",
        [identity(s) for s in specs],
        tables,
        settings,
        not args.no_figures,
        *([args.engine] if args.engine else []),
        *([{"categorical": sorted(_column_names(args.categorical))}] if args.categorical else []),
        *([{"target": args.target}] if args.target is not None else []),
        *([{"drop": sorted(_column_names(args.drop, "--drop"))}] if args.drop else []),
        *([{"methods": methods, "ranks": 1}] if methods else []),  # runs before: no ranks
        *([{"params": overrides}] if overrides else []),
    )
    served = None if args.no_cache else _serve(cache, key, out, len(specs), started, note)
    if served is not None:
        _drop_earlier_outputs(out, served["tables"], served["figures"], args.n_bins)
        if methods:
            _print_summary(out, served["tables"])
        return 0
    failed: list[str] = []  # datasets whose cross-validation failed: the run is not cached
    said: list[str] = []
    frame, curves = _bench_frame(
        args, specs, tables, settings, leave_out, note, methods, failed, _said_of_the_data(said),
        overrides,
    )  # fmt: skip
    frame = frame.assign(method=frame["method"].replace(param_labels(overrides)))
    with whole_file(out / "folds.csv") as temp:
        _spreadsheet_safe(frame).to_csv(temp, index=False)
    ranked = list(dict.fromkeys(frame["method"])) if methods else []
    written_tables, skipped = _write_tables(frame, tables, out, cache, key, args.n_bins, ranked)
    figures = (
        {}
        if args.no_figures
        else _bench_figures(args, frame, out, tables, specs, settings, curves, failed, ranked)
    )
    cache.store("frame", cache_key("bench-table", key, "folds"), frame)
    manifest = {"tables": written_tables, "figures": figures, "skipped": skipped, "said": said}
    if failed:  # a failure can pass (memory freed): the next run tries the dataset again
        _log("heb: note: this run is not cached, as a dataset's cross-validation failed.")
    else:
        cache.store("json", cache_key("bench-outputs", key), manifest)
    _drop_earlier_outputs(out, written_tables, figures, args.n_bins)
    seconds = time.perf_counter() - started
    _log(_written_line(out, written_tables, skipped, figures, seconds))
    if methods:
        _print_summary(out, written_tables)
    return 0


def _check_engine_methods(methods: Sequence[str]) -> None:
    """Refuse (one sentence, before the output folder or a scan) a ``--methods`` choice
    the engine path cannot fit."""
    from heb.scale.cv import check_methods

    try:
        check_methods(methods)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _print_summary(out: Path, tables: dict[str, str]) -> None:
    """``--methods``: the mean ± sd table on standard output, as written to ``out``, and
    the methods' mean ranks where the run wrote them (``tables``: its written tables)."""
    print((out / f"{SUMMARY[0]}.md").read_text().rstrip())
    if RANKS[0] in tables:
        print()
        print((out / f"{RANKS[0]}.md").read_text().rstrip())


def _collect_reliability(
    specs,
    settings,
    tables,
    categorical: Sequence[str] = (),
    target: str | None = None,
    drop: Sequence[str] = (),
    skip: Sequence[str] = (),
) -> dict[str, dict[str, dict]]:
    """Reliability data of Table 4's methods on the high-cardinality datasets (the
    catalogue's group, or K_max >= 100 outside it: :func:`is_high_cardinality`), each read
    with ``categorical`` declared, ``target`` as its class column and ``drop`` left out,
    as the tables read it
    (:func:`_declared`, notes said once already by the tables' pass); the specs in
    ``skip`` (their cross-validation failed in the tables' pass) are not run again."""
    from heb.data import DataError
    from heb.evaluate import cross_validate

    if 4 not in tables:
        return {}
    curves: dict[str, dict[str, dict]] = {}
    for spec in specs:
        if spec in skip:
            continue
        try:
            dataset = _load(spec, target, drop, len(specs) == 1)
        except DataError:
            continue
        dataset = _declared(dataset, spec, categorical, len(specs) == 1, lambda _: None)
        if not is_high_cardinality(dataset.name, dataset_k_max(dataset, settings["n_bins"])):
            continue
        result = cross_validate(dataset, TABLE_METHODS[4], settings=_run_of(settings))
        curves[dataset.name] = {m: result.reliability(m) for m in TABLE_METHODS[4]}
    return curves


def synthetic(args: argparse.Namespace) -> int:
    """The ``synthetic`` command: the Theorem 1 study (paper Figure 2)."""
    from heb.synthetic import l1_error_study

    out = _output_folder(args.output)
    cache = ResultCache()
    frames = []
    for alpha in args.alpha_dir:
        key = cache_key("l1-study", alpha, args.reps, args.seed)
        frame = cache.get_frame(key)
        if frame is None:
            _log(f"alpha_dir = {alpha}: {args.reps} repetitions per (K, N)")
            frame = pd.DataFrame(l1_error_study(alpha_dir=alpha, reps=args.reps, seed=args.seed))
            cache.store("frame", key, frame)
        frames.append(frame.assign(alpha_dir=alpha))
        if not args.no_figures:
            from heb.figures import l1_error_figure

            fig = l1_error_figure(
                frame.to_dict("records"), title=f"Mean l1 error against K/N, alpha_dir = {alpha:g}"
            )
            _export_figure(fig, out / f"figure2_alpha{alpha:g}", _log)
    table = pd.concat(frames, ignore_index=True)
    wide = table.pivot_table(index=["alpha_dir", "K", "N"], columns="smoother", values="mean")
    if {"laplace", "heb-u"} <= set(wide.columns):
        wide["heb_vs_laplace_%"] = 100 * (1 - wide["heb-u"] / wide["laplace"])
    wide = wide.reset_index()
    wide.insert(3, "K/N", wide["K"] / wide["N"])
    _write_table(out, "figure2_l1_errors", wide, "Figure 2: mean l1 error (Theorem 1 study)")
    _log(f"Wrote the synthetic study to {out}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (one-line errors, exit code 2: :class:`_Parser`)."""
    # ``pip install .`` adds a ``heb`` command; its usage lines should name it.
    program = "heb" if Path(sys.argv[0]).name == "heb" else "python -m heb"
    parser = _Parser(
        prog=program, description="HEB Explorer: reproduce the paper's tables headless."
    )
    parser.add_argument("--version", action="version", version=f"heb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    b = sub.add_parser(
        "bench",
        help="cross-validate methods on datasets; write Tables 1-9",
        description="Cross-validate the paper's methods on datasets and write its tables "
        "(CSV and markdown), a mean ± sd table per method and the CD / reliability "
        "diagrams. Tables that need 2+ datasets are skipped, with the reason, on one.",
    )
    b.add_argument(
        "datasets",
        nargs="*",
        default=[],
        help="'shared' (every shared copy), shared or built-in names, openml:ID, builtin:NAME "
        "or file paths",
    )
    b.add_argument("-o", "--output", default="results", help="output folder (default: %(default)s)")
    b.add_argument(
        "--tables",
        default=None,
        metavar="N,N,...",
        help=f"comma-separated table numbers {_table_range()} (default: all)",
    )
    b.add_argument(
        "--methods",
        default=None,
        metavar="M,M,...",
        help="compare these methods instead of the paper's tables: a mean ± sd table, "
        "printed and written, and on 2+ datasets their mean ranks (Friedman p, Nemenyi CD) "
        "and CD diagrams (names as in heb.registry, any case, e.g. laplace,heb-m,aode)",
    )
    b.add_argument(
        "--folds",
        type=int,
        default=10,
        metavar="K",
        help="cross-validation folds, 2 or more (default: %(default)s)",
    )
    b.add_argument("--seed", type=int, default=42, help="seed of the folds (default: %(default)s)")
    b.add_argument(
        "--n-bins",
        type=int,
        default=10,
        metavar="B",
        help="quantile bins of numeric columns, 2 or more (default: %(default)s)",
    )
    b.add_argument(
        "--missing",
        choices=("impute", "category"),
        default="impute",
        help="missing values: imputed, or a category of their own (default: %(default)s)",
    )
    b.add_argument(
        "--max-rows",
        type=int,
        action=_StoreGiven,
        default=20_000,
        metavar="N",
        help="in memory: stratified subsample per dataset, 0 keeps every row "
        "(default: %(default)s)",
    )
    b.add_argument("--no-cache", action="store_true", help="recompute everything")
    b.add_argument("--no-figures", action="store_true", help="skip PNG/SVG export")
    b.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="count every row of parquet / CSV files, folders of parquet files or Hive-style "
        "partitioned tables on this engine, NB and AODE methods only (default: in memory, "
        "subsampled to --max-rows)",
    )
    b.add_argument(
        "--target",
        default=None,
        metavar="COLUMN",
        help="class column of the data files, in memory or with --engine (default: the last "
        "column); named datasets (shared, builtin:, openml:) keep their own",
    )
    b.add_argument(
        "--categorical",
        action="append",
        default=[],
        metavar="COL[,COL...]",
        help="read these numeric columns as categories, each value its own category, not "
        "binned (codes such as ZIP codes); for file paths and --engine inputs; repeatable "
        "(text and ID-like columns are categorical already); a name holding a comma in "
        "double quotes: '\"role,2\",zip'",
    )
    b.add_argument(
        "--drop",
        action="append",
        default=[],
        metavar="COL[,COL...]",
        help="leave these columns of the data files out (a row identifier, a column that "
        "leaks the target); for file paths and --engine inputs, never the target; repeatable; "
        "a name holding a comma in double quotes, as for --categorical",
    )
    add_hierarchy_option(b)
    add_param_option(b, "a method of --methods")
    b.add_argument(
        "--spark-master",
        default=None,
        help="Spark master with --engine spark (default: local[*])",
    )
    b.set_defaults(func=bench)
    d = sub.add_parser(
        "make-data",
        help="write a generated dataset of any size (parquet)",
        description="Write a generated dataset of any size to one parquet file, chunk by "
        "chunk (memory stays flat in the rows).",
    )
    kinds = d.add_subparsers(dest="kind", required=True, metavar="KIND", title="kinds")
    c = kinds.add_parser(
        "clicks",
        help="a click log with a known truth (target 'click', up to 20 features)",
        description="A click log with a known truth: Zipf ID-like features with 10^3 to "
        "10^6 values, low-cardinality text and numeric features, per-value click rates "
        "around 17 %, and the binary target 'click'.",
    )
    c.add_argument(
        "--rows",
        type=_whole_number(1),
        required=True,
        metavar="N",
        help="rows to write (50_000_000 is fine)",
    )
    c.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="parquet file to write, ending in .parquet (its folder must exist)",
    )
    c.add_argument(
        "--seed",
        type=_whole_number(0),
        default=0,
        metavar="S",
        help="seed of the truth and the rows (default: %(default)s)",
    )
    c.add_argument(
        "--features",
        type=_whole_number(1, 20),
        default=20,
        metavar="F",
        help="number of features, 1-20 (default: %(default)s)",
    )
    c.add_argument(
        "--chunk-rows",
        type=_whole_number(1),
        default=1_000_000,
        metavar="N",
        help="rows per chunk, one parquet row group; memory grows with it (default: 1_000_000)",
    )
    c.set_defaults(
        func=lambda a: make_data(
            a.kind, a.rows, a.output, seed=a.seed, features=a.features, chunk_rows=a.chunk_rows
        )
    )
    s = sub.add_parser(
        "synthetic",
        help="the Theorem 1 study (Figure 2)",
        description="The Theorem 1 study: mean l1 error of each smoother against K/N "
        "(paper Figure 2).",
    )
    s.add_argument("-o", "--output", default="results", help="output folder (default: %(default)s)")
    s.add_argument(
        "--alpha-dir",
        type=_positive_number,
        nargs="+",
        default=[0.3, 1.0],
        metavar="A",
        help="Dirichlet concentration(s) of the true PMFs (default: 0.3 1.0)",
    )
    s.add_argument(
        "--reps",
        type=_whole_number(1),
        default=200,
        metavar="R",
        help="repetitions per (K, N) (default: %(default)s)",
    )
    s.add_argument(
        "--seed", type=_whole_number(0), default=0, help="seed of the study (default: %(default)s)"
    )
    s.add_argument("--no-figures", action="store_true", help="skip PNG/SVG export")
    s.set_defaults(func=synthetic)
    from heb.cli_models import add_model_commands

    add_model_commands(sub, _whole_number)
    return parser


def _note_printer() -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints a warning as ``heb: note: ...`` (a model's
    note, e.g. an AODE with no super-parent), each text once per command (a model warns
    on every fold)."""
    seen: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if str(message) not in seen:
            seen.add(str(message))
            print(f"heb: note: {command_line_words(str(message))}", file=file or sys.stderr)

    return show


#: the Python API's advice in a data warning, and what the command line says instead
_API_CATEGORICAL = re.compile(r"categorical=(\[[^\]]*\])")
_API_READ_AS_TEXT = (
    ", or read it as text (pandas loses a leading 0: read_csv(..., dtype=str), or "
    "heb.data.load_upload)"
)


def command_line_words(message: str) -> str:
    """A data warning of the Python API in the command line's words: ``categorical=['c']``
    is ``--categorical c``, and the advice to read a file with pandas is left out (the
    command line reads it as the app does, a leading 0 kept)."""

    def option(found: re.Match) -> str:
        try:
            names = ast.literal_eval(found.group(1))
        except (ValueError, SyntaxError):
            return found.group(0)
        return "--categorical " + shlex.quote(",".join(map(str, names)))

    return _API_CATEGORICAL.sub(option, message.replace(_API_READ_AS_TEXT, ""))


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a batch system's timeout) raised in the running code, so that
    it ends the run as Ctrl-C does: ``finally`` blocks run (an engine run's temporary fold
    files, gigabytes on a large file, are removed; the engine is closed)."""


#: the signals the running command received, in order: DuckDB turns the exception a handler
#: raises inside its query into RuntimeError('Query interrupted'), which says neither
_SIGNALS_SEEN: list[int] = []
#: DuckDB's message for a query a signal (Ctrl-C, SIGTERM) stopped
_QUERY_INTERRUPTED = "Query interrupted"


def _raise_terminated(signum, frame) -> NoReturn:
    """The SIGTERM handler of :func:`_sigterm_as_interrupt`."""
    _SIGNALS_SEEN.append(signal.SIGTERM)
    raise Terminated


def _raise_interrupted(signum, frame) -> NoReturn:
    """The SIGINT handler of :func:`_sigterm_as_interrupt`: Python's own, remembered."""
    _SIGNALS_SEEN.append(signal.SIGINT)
    raise KeyboardInterrupt


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM raises :class:`Terminated` inside the block (main thread only, where Python
    runs signal handlers); the previous handler is restored after it."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: leave the default action alone
        yield
        return
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    interrupt = signal.signal(signal.SIGINT, _raise_interrupted) if ours else None
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if ours:
            signal.signal(signal.SIGINT, interrupt)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m heb``.

    Bad options and input the user can fix (a file that cannot be read, data that cannot
    be used, in memory or on an engine) are one sentence on stderr and exit code 2
    (argparse's convention); exit code 1 is the system's (an output folder that cannot be
    written, a disk that fills up, said in one line; an unexpected error); Ctrl-C and
    SIGTERM end the run through its ``finally`` blocks (temporary files removed) with one
    line and exit code 130 / 143.
    """
    with terminal_safe_streams():  # an ESC in a file's name stays text on a terminal
        return _run(build_parser().parse_args(argv))


def _run(args: argparse.Namespace) -> int:
    """:func:`main` for parsed ``args``: its exit code, each refusal one line on stderr."""
    _SIGNALS_SEEN.clear()
    try:
        with warnings.catch_warnings(), _sigterm_as_interrupt():
            warnings.showwarning = _note_printer()  # a model's note as one line
            try:
                return int(args.func(args))
            except RuntimeError as exc:  # a DuckDB query a signal stopped: that signal's line
                if str(exc) != _QUERY_INTERRUPTED or not _SIGNALS_SEEN:
                    raise
                raise (
                    Terminated if _SIGNALS_SEEN[-1] == signal.SIGTERM else KeyboardInterrupt
                )() from None
    except UsageError as exc:  # a bad option value: printed here, exit code 2
        print(exc, file=sys.stderr)
        raise
    except BadInput as exc:  # large-data input: one sentence, exit code 2
        print(f"heb: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # bad data: one sentence, not a traceback, exit code 2
        print(f"heb: {exc}", file=sys.stderr)
        return 2
    except Terminated:  # SIGTERM: the run's finally blocks have run
        print("heb: Terminated.", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:  # Ctrl-C: a line, not the traceback of wherever it was
        print("heb: Interrupted.", file=sys.stderr)
        return 128 + signal.SIGINT
    except OSError as exc:  # the system's (a full disk while writing): one line, exit 1
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"heb: {exc.strerror or exc}{where}.", file=sys.stderr)
        return 1
