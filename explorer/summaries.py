"""The Dataset page's numbers: per-feature summary, class counts, one feature's counts.

Everything here reads the counts already made (:class:`explorer.loading.WorkingData`);
nothing is refitted. Plain pandas: tested without a running app.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.loading import WorkingData
from heb.data import Dataset, code_signal
from heb.data.code_signal import BinnedSignal, SignalCheck
from heb.data.dataset import one_value_per_row, quote
from heb.data.preprocess import CODE_MIN_VALUES, CODE_NAME  # the Preprocessor warns alike
from heb.expected_mi import expected_mutual_information
from heb.figures.dataset import class_series
from heb.smoothing import mutual_information

__all__ = [
    "SPARSE_CELL",
    "binned_signal_columns",
    "TOP_CATEGORIES",
    "class_counts",
    "conditional_counts",
    "dataset_notes",
    "feature_table",
    "id_columns",
    "id_like_imputation_notes",
    "lens_table",
    "looks_like_code",
    "code_note",
    "numeric_code_columns",
    "numeric_code_lines",
    "numeric_code_notes",
    "numeric_code_texts",
    "per_row_codes",
    "PER_ROW_ADVICE",
    "rows_per_category",
    "zero_cells",
]

#: categories drawn in the class-conditional chart of one feature (the table has them all)
TOP_CATEGORIES = 30
#: average rows per category below which the smoother decides much of each estimate
SPARSE_CELL = 5.0


def dataset_notes(dataset: Dataset, work: WorkingData) -> list[str]:
    """The loader's notes, plus the subsample and the columns dropped by the encoder."""
    notes = list(dataset.notes)
    kept = work.codes.shape[0]
    if work.n_rows_total > kept:
        notes.append(f"Stratified subsample of {kept:,} of {work.n_rows_total:,} rows (seed 42).")
    dropped = list(getattr(work.preprocessor, "dropped_", []) or [])
    # a column empty in the whole file has the loader's note already ("... is empty in every
    # row and will be left out"): only a column emptied by the subsample is news
    dropped = [c for c in dropped if c not in dataset.X or not dataset.X[c].isna().all()]
    if dropped:
        notes.append(f"Dropped (entirely missing): {', '.join(map(str, dropped))}.")
    return notes


def id_like_imputation_notes(work: WorkingData) -> list[str]:
    """Per ID-like column whose missing rows the mode imputation piled into one ID
    (:attr:`heb.data.Preprocessor.id_like_imputed_`): what it did, and what to choose."""
    piles = getattr(work.preprocessor, "id_like_imputed_", {})
    return [id_like_note(name, pile) for name, pile in piles.items()]


def id_columns(dataset: Dataset, work: WorkingData) -> list[str]:
    """The feature columns an ID warning names: ID-like columns whose missing rows the mode
    imputation piled into one ID (:func:`id_like_imputation_notes`), then columns with a
    value per row (the loader's note). Each may be a row identifier, to leave out."""
    piles = list(getattr(work.preprocessor, "id_like_imputed_", {}))
    unique = one_value_per_row(dataset.X, dataset.categorical)
    names = [str(name) for name in [*piles, *unique] if name in dataset.X.columns]
    return list(dict.fromkeys(names))


def id_like_note(name: str, pile: dict) -> str:
    """What imputing an ID-like column's mode did (``pile`` as
    :attr:`heb.data.Preprocessor.id_like_imputed_` holds it), and what to choose."""
    mode, own, missing = pile["mode"], pile["mode_rows"], pile["missing"]
    return (
        f"{name} looks like an ID ({pile['categories']:,} categories in "
        f"{pile['observed']:,} rows): imputing its mode put its {missing:,} missing rows "
        f"into {mode!r}, which now looks frequent ({own + missing:,} rows instead of "
        f"{own:,}). Missing as its own category keeps them apart."
    )


#: the numeric-code rule (:func:`numeric_code_columns`): a whole-number column with more
#: distinct values than CODE_MIN_VALUES (more than the 100 of an age, a percentage or a
#: score out of 100, which are measurements however small the table; from
#: heb.data.preprocess, as CODE_NAME)... that are at least this share of its non-missing
#: rows (most values once or twice, as customer numbers, ZIP codes and product codes are
#: in a table of customers or products)
CODE_DISTINCT_SHARE = 0.5
#: the most rows the rules count (drawn at random, seed 42, from a larger table: the signal
#: rule's own sample, :data:`heb.data.code_signal.SAMPLE_ROWS`)
CODE_SAMPLE_ROWS = code_signal.SAMPLE_ROWS
# a name that says the column holds codes (CODE_NAME: ZIP / postal codes, product codes,
# SKUs): such a column is listed above CODE_MIN_VALUES distinct values whatever their
# share, since a ZIP code repeats over the many customers who share it


def _binned_whole_numbers(dataset: Dataset, work: WorkingData) -> list[str]:
    """:func:`heb.data.code_signal.whole_number_bins` of the working data's features."""
    kinds = getattr(work.preprocessor, "kinds_", {})
    return code_signal.whole_number_bins(dataset.X, kinds, work.feature_names)


def looks_like_code(name: str, distinct: int, rows: int) -> bool:
    """The count rule of one whole-number column: more than :data:`CODE_MIN_VALUES`
    distinct values, at least :data:`CODE_DISTINCT_SHARE` of its non-missing ``rows`` or
    any share when its name says code (:data:`CODE_NAME`). The in-memory and large-file
    notes share it."""
    spread = distinct >= CODE_DISTINCT_SHARE * rows or CODE_NAME.search(str(name))
    return bool(distinct > CODE_MIN_VALUES and spread)


def numeric_code_columns(dataset: Dataset, work: WorkingData) -> dict[str, tuple[int, int]]:
    """Numeric-typed columns that may be codes: name -> (distinct values, non-missing rows)
    among the rows counted (all, or :data:`CODE_SAMPLE_ROWS` drawn at random).

    A column is listed when the encoder bins it as a number (``kinds_`` is ``"numeric"``),
    its values are all whole numbers, and among the rows counted it has more than
    :data:`CODE_MIN_VALUES` distinct values that are at least :data:`CODE_DISTINCT_SHARE`
    of its non-missing rows. Its quantile bins then each hold many unrelated values if it
    is a code; a measurement recorded in whole numbers (an amount, a weight) can pass the
    rule too, so the app only asks. A code repeated over many rows (2,000 ZIP codes in
    20,000 rows) looks like a measurement by its counts: it is listed when its name says
    it is a code (:data:`CODE_NAME`: zip, postal, code, sku). The notes also name a
    column whose values tell more than its bins (:func:`binned_signal_columns`).

    A column the file wrote with thousands separators (``852``, ``1,275``:
    :attr:`heb.data.Dataset.amounts`) is an amount as a spreadsheet formats one, never a
    code (no one writes a ZIP or customer number ``12,400``), and is not listed.
    """
    amounts = set(getattr(dataset, "amounts", ()))  # a stand-in with X alone has none
    names = [n for n in _binned_whole_numbers(dataset, work) if n not in amounts]
    if not names:
        return {}
    picked = code_signal.counted_positions(len(dataset.X), CODE_SAMPLE_ROWS)  # rows first
    counted = dataset.X if picked is None else dataset.X.iloc[picked]
    found = {}
    for name in names:
        rows = int(counted[name].notna().sum())
        distinct = int(counted[name].nunique(dropna=True))
        if looks_like_code(name, distinct, rows):
            found[name] = (distinct, rows)
    return found


def binned_signal_columns(dataset: Dataset, work: WorkingData) -> SignalCheck:
    """:func:`heb.data.code_signal.binned_signal_columns` of the current data: the
    whole-number columns whose bins hide what their values tell, counted on the rows the
    count rule counts (all, or :data:`CODE_SAMPLE_ROWS` drawn at random)."""
    return code_signal.binned_signal_columns(
        dataset.X,
        dataset.y,
        work.preprocessor,
        _binned_whole_numbers(dataset, work),
        sample_rows=CODE_SAMPLE_ROWS,
    )


def _code_figures(
    dataset: Dataset, work: WorkingData, signal: dict[str, BinnedSignal] | None
) -> tuple[dict[str, tuple[int, int, BinnedSignal | None]], str, str]:
    """(name -> (distinct, rows, signal or None) in feature order, the bins as words, the
    sample as words) of the columns :func:`numeric_code_notes` speaks of."""
    n_bins = getattr(work.preprocessor, "n_bins", None)
    bins = f"{n_bins} quantile bins" if n_bins else "quantile bins"
    total = len(dataset.X)
    sample = f" drawn at random from the {total:,}" if total > CODE_SAMPLE_ROWS else ""
    signal = signal or {}
    counted = numeric_code_columns(dataset, work)
    figures = {}
    for name in [n for n in work.feature_names if n in counted or n in signal]:
        found = signal.get(name)
        figures[name] = (found.distinct, found.rows, found) if found else (*counted[name], None)
    return figures, bins, sample


def numeric_code_notes(
    dataset: Dataset, work: WorkingData, signal: dict[str, BinnedSignal] | None = None
) -> dict[str, str]:
    """Per column of :func:`numeric_code_columns` and of ``signal`` (from
    :func:`binned_signal_columns`), in feature order: what the encoder does with it, what
    its values tell that its bins do not, and what to do if it is a code (plain text; the
    page escapes it)."""
    return numeric_code_texts(dataset, work, signal)[0]


def numeric_code_lines(
    dataset: Dataset, work: WorkingData, signal: dict[str, BinnedSignal] | None = None
) -> tuple[dict[str, str], str]:
    """The columns of :func:`numeric_code_notes` as one short line each (plain text), and
    the rows counted as words ("3,000 rows", "20,000 rows drawn at random from the ..."):
    the page lists several such columns in one note rather than a note each."""
    return numeric_code_texts(dataset, work, signal)[1:3]


def per_row_codes(
    dataset: Dataset, work: WorkingData, signal: dict[str, BinnedSignal] | None = None
) -> list[str]:
    """The columns of :func:`numeric_code_notes` with a number of their own in every row
    counted, in feature order: the page offers to leave them out (:data:`PER_ROW_ADVICE`)."""
    return numeric_code_texts(dataset, work, signal)[3]


def numeric_code_texts(
    dataset: Dataset, work: WorkingData, signal: dict[str, BinnedSignal] | None = None
) -> tuple[dict[str, str], dict[str, str], str, list[str]]:
    """:func:`numeric_code_notes`, :func:`numeric_code_lines` and :func:`per_row_codes`
    from one count of the columns (the page shows the notes or the lines)."""
    figures, bins, sample = _code_figures(dataset, work, signal)
    notes, lines, per_row = {}, {}, []
    for name, (distinct, rows, found) in figures.items():
        notes[name] = code_note(name, distinct, rows, bins, sample, found)
        if found is None:
            lines[name] = f"{quote(name)}: {distinct:,} values in {rows:,} rows, mixed in {bins}."
            if every_row_its_own(distinct, rows):
                lines[name] += " A number per row: if it numbers the rows, leave it out."
                per_row.append(name)
        else:
            made = "1 bin" if found.bins == 1 else f"{found.bins} bins"
            lines[name] = (
                f"{quote(name)}: {distinct:,} values in {made}; value by value "
                f"{found.by_value:.3f} nats above chance, in its bins {found.in_bins:.3f}."
            )
    return notes, lines, f"{min(len(dataset.X), CODE_SAMPLE_ROWS):,} rows{sample}", per_row


def code_note(
    name: str,
    distinct: int,
    rows: int,
    bins: str,
    sample: str = "",
    signal: BinnedSignal | None = None,
) -> str:
    """What the encoder does with a whole-number column that may be a code, what its values
    tell that its bins do not (``signal``), and what to do if it is a code (plain text;
    the page escapes it). ``bins`` reads like "10 quantile bins"."""
    said = f"{quote(name)} holds {distinct:,} different whole numbers in {rows:,} rows{sample}: "
    if signal is None:
        said += f"it is binned as a number, into {bins} that each mix many of its values."
    else:
        made = "a single bin (its quantiles tie)" if signal.bins == 1 else f"{signal.bins} bins"
        said += (
            f"it is binned as a number, into {made}. Counted value by value it tells "
            f"{signal.by_value:.3f} nats about the target beyond chance, in its bins "
            f"{signal.in_bins:.3f}: the bins hide what its values say. Treated as "
            "categorical, each value counts on its own: what a code needs (a customer "
            "number, a ZIP code, a product code), and worth a comparison on Compare for a "
            "measurement of few values."
        )
        return said
    said += (
        " If it is a code (a customer number, a ZIP code, a product code), treat "
        "it as categorical, so that each value counts on its own."
    )
    if every_row_its_own(distinct, rows):
        said += PER_ROW_ADVICE
    return said


#: what a code note adds of a column with a different number in every row counted: as
#: categories each value is seen once (in cross-validation never in training), so a row
#: or customer number tells nothing either way (trial Z: the note only said to treat such
#: a column as categorical)
PER_ROW_ADVICE = (
    " Here every row has a number of its own: if it numbers the rows (or the customers of "
    "a table of customers), each category would be seen once and tell nothing; leave it "
    "out instead."
)


def every_row_its_own(distinct: int, rows: int) -> bool:
    """Whether a column's ``distinct`` values in ``rows`` rows are one per row (of at
    least 10 rows, as :func:`heb.data.dataset.one_value_per_row` asks of a text column)."""
    return rows >= 10 and distinct == rows


#: column names of the plug-in MI's chance level and of the MI above it
MI_CHANCE, MI_ABOVE = "chance MI (shuffled labels)", "MI above chance"


def feature_table(dataset: Dataset, work: WorkingData) -> pd.DataFrame:
    """Per feature: type, K_f, missing share, mutual information with the target (nats),
    its chance level and the MI above it.

    The chance level is the plug-in MI's exact expectation with the labels shuffled
    (:func:`heb.expected_mi.expected_mutual_information`): an ID column with a category
    per few rows scores high by chance alone, one with a category per row H(Y).

    The missing share is that of the rows counted, as K_f and the MI are (a subsample's
    rows of a large table; every row's share was shown beside the subsample's counts).
    """
    missing = getattr(work, "missing_share", None)
    missing = dataset.X.isna().mean() if missing is None else missing
    mi = mutual_information(work.table)
    chance = expected_mutual_information(work.table)
    return pd.DataFrame(
        {
            "feature": work.feature_names,
            "type": [work.preprocessor.kinds_.get(name, "") for name in work.feature_names],
            "K_f": work.table.n_categories,
            "missing share": [missing.get(name, 0.0) for name in work.feature_names],
            "MI with target (nats)": mi,
            MI_CHANCE: chance,
            MI_ABOVE: np.maximum(mi - chance, 0.0),
        }
    )


def class_entropy(work: WorkingData) -> float:
    """H(Y) in nats: the most mutual information any feature can have with the target."""
    shares = work.table.class_counts / max(float(work.table.class_counts.sum()), 1.0)
    shares = shares[shares > 0]
    return float(-(shares * np.log(shares)).sum())


def class_counts(work: WorkingData) -> pd.DataFrame:
    """Rows per class N_c."""
    counts = work.table.class_counts.astype(np.int64)
    return pd.DataFrame({"class": work.class_names, "rows (N_c)": counts})


def conditional_counts(work: WorkingData, feature: int) -> pd.DataFrame:
    """The class-conditional counts N_cfv of one feature: ``category``, one column per
    class, largest class first (the order of the lens figure's legend), then ``total``."""
    start, stop = work.table.offsets[feature], work.table.offsets[feature + 1]
    labels = [str(label) for label in work.preprocessor.categories_[feature]]
    block = work.table.counts[:, start:stop].astype(np.int64)
    order = np.argsort(-block.sum(axis=1), kind="stable")  # as the figure sorts its traces
    block = block[order].T
    names = [f"N(class={work.class_names[c]})" for c in order]
    frame = pd.DataFrame(block, columns=names)
    frame.insert(0, "category", labels[: len(frame)])
    frame["total"] = block.sum(axis=1)
    return frame


def lens_table(counts: pd.DataFrame) -> pd.DataFrame:
    """The on-screen form of :func:`conditional_counts`, narrow enough to read whole.

    ``category``, then ``total``, then the classes the lens figure draws in their own
    colour (:func:`~heb.figures.dataset.class_series`: the largest, largest first), then
    one column ``N(k other classes)`` summing the rest, as the figure's grey series does.
    With 21 classes the full table was 23 columns wide and its ``total`` was cut off at
    1440 px; the download keeps every class.
    """
    own, rest = class_series(counts)  # the figure's split
    table = counts[["category", "total", *own]].copy()
    if rest:
        table[f"N({len(rest)} other classes)"] = counts[rest].sum(axis=1)
    return table


def zero_cells(counts: pd.DataFrame) -> tuple[int, int]:
    """How many (category, class) cells of :func:`conditional_counts` hold zero rows, of all."""
    cells = counts.iloc[:, 1:-1].to_numpy()
    return int((cells == 0).sum()), int(cells.size)


def rows_per_category(work: WorkingData) -> tuple[np.ndarray, int]:
    """N_c / K_f per (class, feature), and how many pairs fall below :data:`SPARSE_CELL`."""
    per_cell = work.table.rows_per_category()
    return per_cell, int((per_cell < SPARSE_CELL).sum())
