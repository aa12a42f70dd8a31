"""One self-contained HTML file of a comparison: settings, tables and figures.

The report is what an analyst attaches to an email: it opens offline in any browser.
Figures are interactive plotly with plotly.js inlined once (``include_plotlyjs=True`` on
the first figure only), or static SVG text; nothing is loaded from the network. Every
piece of user text (dataset name, class and method names, notes) is HTML-escaped, and
plotly's own JSON escapes ``<`` inside figures.

Layer 3: figures come in as objects with ``to_html`` (plotly) or as SVG text; this module
builds none.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from heb import registry
from heb.evaluate.cv import CVResult
from heb.evaluate.settings import RunSettings

__all__ = ["comparison_report", "oof_frame"]

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.note { color: #555; }
figure { margin: 1em 0; } figcaption { color: #555; }
"""


def oof_frame(result: CVResult) -> pd.DataFrame:
    """The out-of-fold predictions per evaluated row: its fold, true class, and per method
    the predicted class and the probability of every class.

    ``row`` is each evaluated row's place among the loaded table's data rows (0 = the
    first data row, as ``pandas.read_csv(file).iloc[row]``): rows without a target and
    those left out of a subsample do not appear. ``fold`` is the fold that predicted the
    row (0 = the first, as in the per-fold scores), where the result knows it.
    """
    classes = [str(label) for label in result.classes]
    columns: dict[str, object] = {
        "row": range(result.y.size) if result.rows is None else result.rows
    }
    if result.test_fold is not None:
        columns["fold"] = result.test_fold
    columns["true class"] = [classes[i] for i in result.y]
    for method in result.methods:
        proba = result.oof_proba[method]
        columns[f"{method}: predicted"] = [classes[i] for i in proba.argmax(axis=1)]
        for index, label in enumerate(classes):
            columns[f"{method}: P({label})"] = proba[:, index]
    return pd.DataFrame(columns)


#: decimals of a float column whose values are all below 100 in size (metrics, shares)
CELL_DECIMALS = 3


def _column_cells(values: pd.Series) -> list[str]:
    """One column's cells as text: a float column with fixed decimals for the whole column
    (:data:`CELL_DECIMALS` below 100 in size, one above; none where every value is whole
    and one exceeds 1, e.g. counts), so a column reads 1.000 / 0.941 / 0.050 rather than
    1 / 0.9412 / 0.05; whole numbers with thousands separators, as the app shows them;
    anything else as its text; a missing or infinite number as an em dash.

    A share column of only 0 and 1 (the recall of a method predicting one class for every
    row) keeps its decimals: it read 0 / 0 / 1 beside precision's 0.000 / 0.000 / 0.849."""
    if pd.api.types.is_integer_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return [f"{value:,}" for value in values]
    if not pd.api.types.is_float_dtype(values):
        return [str(value) for value in values]
    numbers = values.to_numpy(dtype=np.float64)
    finite = numbers[np.isfinite(numbers)]
    whole = finite.size and np.all(finite == np.round(finite))
    if whole and np.abs(finite).max() > 1:
        decimals = 0
    elif finite.size and np.abs(finite).max() >= 100:
        decimals = 1
    else:
        decimals = CELL_DECIMALS
    return ["—" if not np.isfinite(v) else f"{v:,.{decimals}f}" for v in numbers]


def _table(frame: pd.DataFrame) -> str:
    """An HTML table of ``frame`` with every cell and header escaped."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    columns = [_column_cells(frame.iloc[:, i]) for i in range(frame.shape[1])]
    rows = []
    for values in zip(*columns, strict=True):
        cells = "".join(f"<td>{html.escape(value)}</td>" for value in values)
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _figure_html(figure: object, first: bool) -> str:
    if isinstance(figure, str):  # SVG text, already safe markup made by plotly's exporter
        return figure
    return figure.to_html(
        full_html=False,
        include_plotlyjs=first,  # inline plotly.js once: the file works offline
        config={"displaylogo": False, "responsive": True},
    )


def comparison_report(
    result: CVResult,
    settings: RunSettings,
    *,
    dataset: str,
    figures: Mapping[str, object] | None = None,
    tables: Mapping[str, pd.DataFrame] | None = None,
    code: str | None = None,
    title: str = "HEB Explorer: comparison report",
    target: str = "",
    notes: Sequence[str] = (),
    columns: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """The comparison as one self-contained HTML page.

    Parameters
    ----------
    result : CVResult
    settings : RunSettings
        The run's settings (shown as a table).
    dataset : str
        The dataset's name (user text: escaped).
    figures : mapping of caption to figure
        plotly figures (or SVG text), in order.
    tables : mapping of caption to DataFrame
        The tables to show (the metrics table first); default the mean of every metric.
    code : str, optional
        Python that reproduces the run (shown verbatim, escaped).
    title : str
        The page's title and first heading.
    target : str
        The column predicted (user text: escaped); a settings row when given.
    notes : sequence of str
        Sentences shown under the settings, after the run's own notes (escaped), e.g. which
        method the per-class tables and figures show.
    columns : mapping of str to sequence of str, optional
        Settings rows naming columns (user text: escaped), e.g. ``{"columns left out":
        ["customer_id"]}``; an empty list adds no row.
    """
    query = {key: value for key, value in settings.to_query().items() if key != "dataset"}
    settings_frame = pd.DataFrame(
        [
            ("dataset", dataset),
            *([("target", target)] if target else []),
            *(
                (name, ", ".join(map(str, names)))
                for name, names in (columns or {}).items()
                if names
            ),
            ("methods", ", ".join(result.methods)),
            *query.items(),
        ],
        columns=["setting", "value"],
    )
    if not tables:
        metrics = [f"{name}_mean" for name in registry.METRICS]
        tables = {"Metrics, mean over folds": result.summary()[["method", *metrics]]}
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="note">Dataset <b>{html.escape(dataset)}</b>, {result.y.size:,} rows, '
        f"{result.classes.size} classes, {result.n_splits}-fold stratified cross-validation. "
        f"Made {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.</p>",
        "<h2>Settings</h2>",
        _table(settings_frame),
    ]
    shown = [*result.notes, *notes]
    parts += [f'<p class="note">{html.escape(note)}</p>' for note in shown]
    for caption, frame in (tables or {}).items():
        parts += [f"<h2>{html.escape(caption)}</h2>", _table(frame)]
    for index, (caption, figure) in enumerate((figures or {}).items()):
        parts.append(
            f"<figure>{_figure_html(figure, index == 0)}"
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    if code:
        parts += ["<h2>Reproduce with heb</h2>", f"<pre><code>{html.escape(code)}</code></pre>"]
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )
