"""``heb fit`` and ``heb score``: a model file (docs/model_json.md) from the command line.

``heb fit DATA --method heb-m -o model.json`` fits one method on every row of a dataset
(a file, ``builtin:``, ``shared:`` or ``openml:``) with the app's preprocessing and
writes the make_model pipeline as JSON (:mod:`heb.data.pipeline_io`); ``heb score
model.json ROWS.csv -o scored.csv`` reads raw rows of a table with the model's columns
and writes each row's predicted class and class probabilities, with the metrics against
``--target`` where the rows hold their true class. Files are written whole or not at all
(a temporary file renamed into place).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from heb.cli_hierarchies import (
    add_hierarchy_option,
    cannot_apply,
    checked_levels,
    hierarchies_option,
    is_file_data,
    takes_hierarchies,
)
from heb.cli_params import add_param_option, param_notes, param_overrides
from heb.data.spreadsheet import neutralise_formulas
from heb.nb import FLAT_HEB_H
from heb.paths import user_path

__all__ = ["add_model_commands", "fit_command", "score_command", "scored_rows"]

#: the method families a model file holds (a reference model is scikit-learn's own)
SAVED_FAMILIES = ("nb", "aode", "tan")


#: the reader's notes on column names (heb.data.dataset), which say which column score
#: reads under a model's name: a repeated name's first copy, a blank one named by position
_NAME_NOTES = ("Column name ", "Columns without a name")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _write_whole(path: Path, text: str) -> None:
    """``text`` written to ``path`` (its folder made) whole or not at all
    (:func:`heb.whole_files.whole_file`), with the permissions of any new file."""
    from heb.whole_files import whole_file

    path.parent.mkdir(parents=True, exist_ok=True)
    with whole_file(path) as temporary:
        temporary.write_text(text, encoding="utf-8", newline="")


def _output_file(text: str) -> Path:
    """The file ``-o`` names, refused (before any work) when it names a folder: empty,
    ending in a separator (``out/``, which Path reads as the file ``out``) or a folder
    that is there."""
    from heb.cli import UsageError

    path = user_path(text)
    if text == "-":  # score's standard output; fit wrote a file named '-'
        raise UsageError("heb: fit writes its model to a file: -o - (standard output) is none.")
    if not text or text.endswith(("/", os.sep)) or path.is_dir():
        raise UsageError(f"heb: -o {text!r} names no file to write (a folder, or nothing).")
    return path


def _program() -> str:
    """The command as the user typed it: ``heb`` (``pip install .``) or ``python -m heb``."""
    return "heb" if Path(sys.argv[0]).name == "heb" else "python -m heb"


def _estimator(method: str, param: Sequence[str] = ()):
    """The unfitted estimator of a registry method a model file can hold, at its
    ``--param`` values."""
    from heb import registry
    from heb.cli import UsageError
    from heb.evaluate.cv import FAMILY_ESTIMATORS, method_spec

    try:
        name = registry.resolve_method_name(method)
        entry = registry.method(name)
    except (KeyError, ValueError):
        entry = None
    if entry is None or entry.family not in SAVED_FAMILIES:
        saved = [m.name for m in registry.METHODS.values() if m.family in SAVED_FAMILIES]
        what = "a reference model, which a model file cannot hold" if entry else "no method"
        raise UsageError(f"heb: --method {method!r} is {what}; choose one of {', '.join(saved)}.")
    try:
        overrides = param_overrides(param, [entry.name])
    except ValueError as exc:
        raise UsageError(f"heb: {exc}") from None
    for line in param_notes(overrides):
        _say(f"heb: note: {line}")
    spec = method_spec(entry.name, overrides.get(entry.name))
    return entry.name, FAMILY_ESTIMATORS[spec["model"]].make(spec["params"])


def fit_command(args: argparse.Namespace) -> int:
    """``heb fit``: fit one method on every row (or ``--max-rows``' subsample) and write
    its pipeline file."""
    from heb.cli import UsageError, load_one
    from heb.data import make_model, pipeline_io

    name, estimator = _estimator(args.method, args.param)
    try:
        hierarchies = hierarchies_option(args.hierarchy, [name])
    except ValueError as exc:
        raise UsageError(f"heb: {exc}") from None
    out = _output_file(args.output)
    if user_path(args.data).is_dir():  # bench's message names --engine, fit has none
        raise UsageError(f"heb: {args.data!r} is a folder: fit reads one table file.")
    dataset = load_one(args.data, args.target, args.drop, args.categorical, _say)
    for note in dataset.notes:  # what reading changed (renames, rows dropped), as bench
        _say(f"  {dataset.name}: {note}")
    X, y = dataset.X, dataset.y
    if args.max_rows and len(y) > args.max_rows:  # the app's rows: Explain's saved model
        from heb.evaluate.folds import evaluated_data

        try:
            X, y = evaluated_data(dataset, args.max_rows)[:2]
        except ValueError as exc:  # fewer rows than classes: said of the option
            raise UsageError(f"heb: {exc}".replace("max_rows", "--max-rows")) from None
    of = (
        f" of {len(dataset.y):,} (a stratified subsample, --max-rows)"
        if len(y) < len(dataset.y)
        else ""
    )
    pipe = make_model(
        estimator=estimator,
        n_bins=args.n_bins,
        missing=args.missing,
        categorical=dataset.categorical,
    )
    along = ""
    if takes_hierarchies(name):
        levels = _levels(hierarchies, pipe[0], dataset, X)
        pipe.set_params(**{f"{pipe.steps[-1][0]}__hierarchies": levels or None})
        if levels:
            along = f", hierarchies over {len(levels)} column{'s' * (len(levels) != 1)}"
        else:
            _say(
                f"  {name} was given no category hierarchy, so it is HEB-M (the same "
                "numbers): pass --hierarchy 'COLUMN -> PARENT' or 'COLUMN -> prefix 3'."
            )
    with warnings.catch_warnings():  # the line above said it in the command's words
        warnings.filterwarnings("ignore", message=re.escape(FLAT_HEB_H), category=UserWarning)
        pipe.fit(X, y)
    _write_whole(out, pipeline_io.dumps(pipe))
    used = len(pipe[0].feature_names_out_)  # a column empty in training is left out
    _say(
        f"Fitted {name} on {len(X):,} rows{of} of {dataset.name} ({used} "
        f"column{'s' * (used != 1)}, target {dataset.target!r}, {pipe.classes_.size} "
        f"classes{along}); wrote {out} "
        f"({out.stat().st_size:,} bytes). Score rows with: {_program()} score {out} ROWS.csv"
    )
    return 0


def _levels(hierarchies: str, encoder, dataset, X: pd.DataFrame) -> dict:
    """The ``--hierarchy`` levels on the codes ``encoder`` (the pipeline's unfitted
    preprocessing, fitted here on a copy) gives ``dataset``; one that cannot apply is
    refused, as HEB-H would silently be HEB-M on that column."""
    from sklearn.base import clone

    from heb.cli import UsageError

    if not hierarchies:
        return {}
    fitted = clone(encoder).fit(X)
    levels, lines, left_out = checked_levels(hierarchies, fitted, X, dataset)
    for declared, why in left_out:
        raise UsageError(cannot_apply(declared, why, dataset.name, is_file_data(dataset)))
    for line in lines:
        _say(line)
    return levels


def _read_rows(path: Path) -> pd.DataFrame:
    """The rows of a table file, read as ``heb bench`` and the app read a file."""
    from heb.data import read_table
    from heb.data.budget import read_local_file
    from heb.data.dataset import DEFAULT_MAX_BYTES

    return read_table(read_local_file(path, DEFAULT_MAX_BYTES), path.name, DEFAULT_MAX_BYTES)


def scored_rows(model, rows: pd.DataFrame) -> pd.DataFrame:
    """Each row's number (0 = the first data row), predicted class and probability of
    every class (``p(<class>)``) under a loaded pipeline ``model``; its ``attrs``'
    ``heb_notes`` name the cells it could not read as numbers and the categories it never
    saw (:mod:`heb.data.unreadable`).

    Raises
    ------
    ValueError
        Naming the model's columns the rows lack.
    """
    from sklearn.pipeline import Pipeline

    from heb.data.unreadable import preprocessor_columns, scoring_notes

    if not isinstance(model, Pipeline):
        raise ValueError(
            "The model file holds no preprocessing (a model of integer codes): score raw "
            "rows with a file heb fit or the Explain page wrote."
        )
    # the columns it reads (a column empty in training was left out: not needed)
    columns = [str(c) for c in model[0].feature_names_out_]
    have = {str(c) for c in rows.columns}
    lacking = [c for c in columns if c not in have]
    if lacking:
        more = f" and {len(lacking) - 5} more" if len(lacking) > 5 else ""
        shown = ", ".join(repr(c) for c in lacking[:5]) + more
        raise ValueError(f"The rows lack {len(lacking)} of the model's columns: {shown}.")
    X = preprocessor_columns(model[0], rows)
    codes = model[0].transform(X)  # once, for the probabilities and the notes
    proba = model[1:].predict_proba(codes)
    classes = [str(c) for c in model.classes_]
    out = pd.DataFrame(
        {"row": np.arange(len(X)), "predicted": np.asarray(classes)[proba.argmax(1)]}
    )
    for j, label in enumerate(classes):
        out[f"p({label})"] = proba[:, j]
    out.attrs["heb_notes"] = scoring_notes(model[0], X, codes)
    return out


def _metrics_line(model, rows: pd.DataFrame, target: str, proba: np.ndarray) -> str:
    """The metrics of the predictions against the rows' ``target`` column, in one line."""
    from heb.data.dataset import labels_as_text
    from heb.metrics import all_metrics

    column = rows.rename(columns=str)[target]
    present = column.notna().to_numpy()
    classes = np.array([str(c) for c in model.classes_], dtype=object)
    truth = column.astype(str).to_numpy(dtype=object)
    # a whole-number label read as a float (its column has an empty cell: 1.0) is the
    # class 1, as the loader reads a target column
    truth = np.where(np.isin(truth, classes), truth, labels_as_text(column.to_numpy()))
    known = present & np.isin(truth, classes)
    if not known.any():
        return f"No row's {target!r} is one of the model's classes; no metric computed."
    index = {label: j for j, label in enumerate(classes)}
    y = pd.Series(truth[known]).map(index).to_numpy(dtype=np.int64)
    scores = all_metrics(y, proba[known])
    shown = ", ".join(f"{k} {v:.4f}" for k, v in scores.items() if np.isfinite(v))
    other, empty = int((present & ~known).sum()), int((~present).sum())
    left = [f"{_rows(other)} of another class"] if other else []
    left += [f"{_rows(empty)} without a class"] if empty else []
    out = f" ({' and '.join(left)} left out)" if left else ""
    return f"Against {target!r} on {_rows(int(known.sum()))}{out}: {shown}."


def _rows(n: int) -> str:
    """``1 row``, ``2,000 rows``."""
    return f"{n:,} row{'s' * (n != 1)}"


def score_command(args: argparse.Namespace) -> int:
    """``heb score``: predicted classes and probabilities of a table's rows, as CSV."""
    from heb.cli import UsageError, check_file
    from heb.data import pipeline_io

    check_file(args.rows)
    out = None if args.output == "-" else _output_file(args.output)
    if Path(args.rows).suffix.lower() == ".json":
        raise UsageError(f"heb: {args.rows!r} is a JSON file, not a table of rows to score.")
    model_path = user_path(args.model)
    if not model_path.is_file():
        raise UsageError(f"heb: No model file {str(model_path)!r}.")
    model = pipeline_io.load(model_path)
    rows = _read_rows(user_path(args.rows))
    for note in rows.attrs.get("heb_notes", []):
        if note.startswith(_NAME_NOTES):  # the rows' other notes: the model's encoding decides
            _say(f"  {Path(args.rows).name}: {note}")
    if args.target is not None and args.target not in {str(c) for c in rows.columns}:
        raise ValueError(f"The rows have no column {args.target!r} to score against.")
    scored = scored_rows(model, rows)
    for note in scored.attrs["heb_notes"]:  # numbers not read, categories never seen
        _say(f"  {Path(args.rows).name}: {note}")
    # the class names are the data's text: one that starts a formula is quoted, as in the
    # app's out-of-fold CSV (heb.data.spreadsheet)
    text = neutralise_formulas(scored, ["predicted"]).to_csv(index=False, lineterminator="\n")
    if out is None:
        sys.stdout.write(text)
    else:
        _write_whole(out, text)
        _say(f"Scored {_rows(len(scored))}; wrote {args.output}.")
    if args.target is not None:
        proba = scored.iloc[:, 2:].to_numpy()  # after row and predicted: p(class) in order
        _say(_metrics_line(model, rows, args.target, proba))
    return 0


def add_model_commands(sub, whole_number) -> None:
    """Add ``fit`` and ``score`` to the command line's subparsers ``sub``."""
    f = sub.add_parser("fit", help="fit one method on every row; write its model file (JSON)")
    f.add_argument("data", help="a data file, or builtin:NAME, shared:NAME, openml:ID")
    f.add_argument(
        "-o", "--output", default="model.json", help="the model file (default: %(default)s)"
    )
    f.add_argument(
        "--method",
        default="HEB-M",
        metavar="M",
        help="a method of heb.registry, any case (default: %(default)s; e.g. laplace, "
        "heb-m-gr, heb-aode, heb-tan)",
    )
    f.add_argument("--target", default=None, metavar="COLUMN", help="a file's class column")
    for option, what in (("--categorical", "read as categories"), ("--drop", "leave out")):
        f.add_argument(
            option,
            action="append",
            default=[],
            metavar="COL[,COL...]",
            help=f"a file's columns to {what} (repeatable; a name holding a comma in double "
            "quotes: '\"role,2\",zip')",
        )
    f.add_argument(
        "--n-bins",
        type=whole_number(2),
        default=10,
        metavar="B",
        help="quantile bins of numeric columns (default: %(default)s)",
    )
    f.add_argument(
        "--missing",
        choices=("impute", "category"),
        default="impute",
        help="missing values: imputed, or a category of their own (default: %(default)s)",
    )
    f.add_argument(
        "--max-rows",
        type=whole_number(0),
        default=0,
        metavar="N",
        help="fit a stratified subsample of N rows, the rows the app's Explain page fits "
        "under its row cap (default: 0, every row)",
    )
    add_hierarchy_option(f)
    add_param_option(f, "the --method")
    f.set_defaults(func=fit_command)
    s = sub.add_parser("score", help="predict a table's rows with a model file; write CSV")
    s.add_argument("model", help="a model file heb fit or the Explain page wrote")
    s.add_argument("rows", help="a table file with the model's columns")
    s.add_argument("-o", "--output", default="-", help="CSV file (default: standard output)")
    s.add_argument(
        "--target", default=None, metavar="COLUMN", help="the rows' true class: print metrics"
    )
    s.set_defaults(func=score_command)
