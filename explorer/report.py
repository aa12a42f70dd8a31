"""What leaves the app besides a figure: reproducing code, out-of-fold CSV, the HTML report,
and the footer every exported figure carries.

The code a "Show code" box prints is built from the same state the page reads (dataset
spec, run settings, methods), with every user value written as a Python literal by
``repr`` (a file name cannot break out of its string).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from explorer import state
from explorer.code_lines import wrap_long_lines
from explorer.commands import BenchCommand, show_command
from explorer.exports import csv_bytes
from explorer.lazy_sections import lazy_expander
from heb.data.readers import without_data_suffixes
from heb.evaluate import CVResult, RunSettings
from heb.evaluate.hierarchy_specs import (
    command_line_options,
    parse_hierarchies,
    takes_hierarchies,
)
from heb.evaluate.report import comparison_report, oof_frame
from heb.text import shorten

__all__ = [
    "dataset_line",
    "compare_code",
    "explain_code",
    "footer_text",
    "view_footer",
    "show_code",
    "comparison_downloads",
    "file_slug",
]

#: keys of the URL left out of a figure's footer (not settings of a number)
_FOOTER_SKIP = ("present",)
MAX_FOOTER_CHARS = 600


def dataset_line(spec: str, upload: dict | None = None) -> str:
    """``dataset = load_dataset(...)`` for a spec, or for an upload by its file name."""
    if upload is not None:
        target, declared = upload.get("target"), sorted(upload.get("categorical") or ())
        dropped = sorted(upload.get("drop") or ())
        extra = f", target={target!r}" if target else ""
        extra += f", categorical={declared!r}" if declared else ""
        extra += f", drop={dropped!r}" if dropped else ""
        return f"dataset = load_dataset({upload['filename']!r}{extra})  # your file"
    return f"dataset = load_dataset({spec!r})"


def _settings_line(settings: RunSettings) -> str:
    words = {
        "n_bins": settings.n_bins,
        "missing": settings.missing,
        "max_rows": settings.max_rows,
        "n_splits": settings.n_splits,
        "seed": settings.seed,
    }
    if settings.overrides:
        words["overrides"] = settings.params()
    if settings.hierarchies:  # without them HEB-H runs as HEB-M: other numbers than the page's
        words["hierarchies"] = settings.hierarchies
    return "settings = RunSettings(" + ", ".join(f"{k}={v!r}" for k, v in words.items()) + ")"


def _hierarchy_comment(settings: RunSettings) -> list[str]:
    """A comment naming the declared hierarchies as ``heb bench --hierarchy`` takes them."""
    options = command_line_options(parse_hierarchies(settings.hierarchies))
    return (
        ["# HEB-H's hierarchies; on the command line:", *(f"#   {o}" for o in options)]
        if options
        else []
    )


def compare_code(data_line: str, methods: list[str], settings: RunSettings) -> str:
    """Python that reruns the Compare page's cross-validation and prints its table (lines
    broken to fit the code box, :func:`~explorer.code_lines.wrap_long_lines`); the declared
    hierarchies only where a method reads them (HEB-H), as they change no other's numbers."""
    if not any(takes_hierarchies(name) for name in methods):
        settings = settings.replace(hierarchies="")
    return wrap_long_lines(
        "\n".join(
            [
                "from heb.data import load_dataset",
                "from heb.evaluate import RunSettings, cross_validate",
                "",
                data_line,
                *_hierarchy_comment(settings),
                _settings_line(settings),
                f"result = cross_validate(dataset, {list(methods)!r}, settings=settings)",
                "print(result.summary().to_string())",
            ]
        )
    )


def explain_code(
    data_line: str,
    settings: dict,
    smoothers: list[str],
    row: int,
    target: int,
    reference: int,
    table_row: int | None = None,
    hierarchies: str = "",
) -> str:
    """Python that refits the Explain page's models and prints the row's contributions
    (``row``: its index among the codes; ``table_row``: its number in the table, noted
    where they differ; ``hierarchies``: the declarations HEB-H fits with, as text); lines
    broken to fit the code box."""
    cap = settings["max_rows"]
    with_levels = bool(hierarchies) and "heb-h" in smoothers
    levels_arg = ", hierarchies=levels if s == 'heb-h' else None" if with_levels else ""
    where = (
        [f"# row {int(table_row)} of the table is row {int(row)} of these codes"]
        if table_row is not None and int(table_row) != int(row)
        else []
    )
    subsample = [
        f"if len(X) > {cap!r}:  # the app's row cap",
        f"    X, y_raw = stratified_subsample(X, y_raw, max_rows={cap!r})",
    ]
    lines = [
        "from heb import NaiveBayes",
        "from heb.counts import CountTable",
        "from heb.data import Preprocessor, encode_target, load_dataset, stratified_subsample",
        "from heb.explain import explain_smoothers",
        "",
        data_line,
        "X, y_raw = dataset.X, dataset.y",
        *(subsample if cap else []),
        "y, classes = encode_target(y_raw)",
        f"pre = Preprocessor(n_bins={settings['n_bins']!r}, missing={settings['missing']!r}, "
        "categorical=dataset.categorical)",
        "codes = pre.fit_transform(X)",
        "table = CountTable.from_codes(codes, y, len(classes), pre.n_categories_)",
        *(_hierarchy_lines(hierarchies) if with_levels else []),
        f"models = {{s: NaiveBayes(s{levels_arg}).fit_counts(table) for s in {list(smoothers)!r}}}",
        *where,
        f"out = explain_smoothers(models, codes[[{int(row)}]], "
        f"target={int(target)}, reference={int(reference)})",
        "for name, e in out.items():",
        "    print(name, e.prior, e.contributions[0].round(4).tolist(), e.log_odds[0])",
    ]
    return wrap_long_lines("\n".join(lines))


def _hierarchy_lines(hierarchies: str) -> list[str]:
    """Lines that turn the declared hierarchies (text) into HEB-H's levels on ``codes``."""
    return [
        "from heb.evaluate.hierarchy_model import code_labels",
        "from heb.evaluate.hierarchy_specs import parse_hierarchies, resolve_levels",
        "",
        f"declared = parse_hierarchies({hierarchies!r})",
        "levels, _ = resolve_levels(declared, pre.feature_names_out_, codes, code_labels(pre))",
    ]


#: session key of the "Show code" expander (one per page)
CODE_OPEN = "show_code_open"


def show_code(code: str, command: BenchCommand | None = None) -> None:
    """A closed "Show code" box with the Python that reproduces the view (built only while
    open: the code box's highlighter is a sizeable download for a first visit), and under
    it the ``heb bench`` ``command`` that reruns it, where given."""
    section = lazy_expander(
        "Show code: reproduce this view with heb", CODE_OPEN, icon=":material/code:"
    )
    if section is None:
        return
    with section:
        st.code(code, language="python")
        st.caption(
            "Runs as is where `heb` is importable: pasted into `python` started at the root "
            "of a HEB Explorer clone, or saved there as a file (after `pip install -r "
            "requirements.txt`); saved elsewhere, first `pip install .` the clone (Python "
            "looks for `heb` beside the file, not in the folder you run it from)."
        )
        if command is not None:
            show_command(command)


#: the run settings a lesson drawing from the app's dataset names in its footer
_LESSON_DATASET_KEYS = ("dataset", "n_bins", "missing", "max_rows")


def view_footer() -> str:
    """The footer of an exported figure: the dataset and every setting of the view's URL;
    for a lesson, the lesson and every one of its settings (defaults too, each index
    followed by what it stands for: :func:`explorer.state.label_settings`), and the
    dataset only when the lesson draws from it."""
    page = state.current_page()
    if page.startswith("lesson_"):
        shown = _LESSON_DATASET_KEYS if state.lesson_dataset_used() else ()
        parts = [f"lesson={page.removeprefix('lesson_')}"]
        parts += [f"{key}={st.query_params.get(key)}" for key in shown if key in st.query_params]
        labels = state.setting_labels()
        parts += [
            f"{key}={value}" + (f" ({labels[key]})" if key in labels else "")
            for key, value in state.page_settings_text().items()
        ]
    else:
        parts = [
            f"{key}={st.query_params.get(key)}"
            for key in st.query_params
            if key not in _FOOTER_SKIP
        ]
    return footer_text(parts)


def footer_text(parts) -> str:
    """An exported figure's footer: "HEB Explorer · " and ``parts`` joined by " · ", cut
    to :data:`MAX_FOOTER_CHARS`."""
    text = "HEB Explorer · " + " · ".join(parts)
    return shorten(text, MAX_FOOTER_CHARS)


def file_slug(name: str, limit: int = 60) -> str:
    """A dataset's name as part of a file name: without a data file's suffixes (an upload
    is named after its file), letters, digits, '.', '-' and '_' only (an upload's name is
    the visitor's text), at most ``limit`` characters, never empty."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", without_data_suffixes(str(name)))
    slug = slug.strip(".-_")[:limit]
    return slug or "dataset"


def comparison_downloads(
    result: CVResult,
    settings: RunSettings,
    dataset: str,
    contents: Callable[[], tuple[dict, dict]],
    code: str,
    target: str = "",
    notes: Callable[[], list[str]] = list,
    upload: dict | None = None,
) -> None:
    """Out-of-fold predictions as CSV and the comparison as one HTML report (made on click).

    ``contents`` returns the report's (tables, figures) by title: called on the click, so
    a view that does not show them (the per-class tab closed) does not build them.
    ``notes`` returns the report's sentences under its settings (read on the click too);
    an ``upload``'s declared categorical and left-out columns are settings rows.
    """
    row = st.container(horizontal=True, gap="small")
    row.download_button(
        "Out-of-fold predictions (CSV)",
        lambda: csv_bytes(oof_frame(result)),
        file_name=f"out-of-fold-predictions-{file_slug(dataset)}.csv",
        mime="text/csv",
        key="dl_oof_csv",
        on_click="ignore",
        icon=":material/download:",
        help="One line per evaluated row: its place in the table (row 0 is the first data "
        "row), the fold that held it out (0 is the first, as in every fold's scores), its "
        "true class and, per method, the predicted class and every class probability from "
        "that fold's model.",
    )

    def report_bytes() -> bytes:
        tables, figures = contents()
        return comparison_report(
            result,
            settings,
            dataset=dataset,
            tables=tables,
            figures=figures,
            code=code,
            target=target,
            notes=notes(),
            columns={
                "read as categories": sorted((upload or {}).get("categorical") or ()),
                "columns left out": sorted((upload or {}).get("drop") or ()),
            },
        ).encode("utf-8")

    row.download_button(
        "Report (HTML)",
        report_bytes,
        file_name=f"comparison-report-{file_slug(dataset)}.html",
        mime="text/html",
        key="dl_report_html",
        on_click="ignore",
        icon=":material/description:",
        help="One file with the settings, tables and interactive figures; opens offline.",
    )
