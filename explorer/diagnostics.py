"""Compare page, per class: confusion matrix, precision / recall, one-vs-rest reliability
and ROC curves of the out-of-fold predictions; then the downloads and the code box.

Everything is drawn from the comparison's :class:`heb.evaluate.CVResult` (no refit).
Figures of one method are built once per comparison and kept on it.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import commands, hierarchies, loading, report, state
from explorer.comparison import TABLE_DECIMALS, Comparison
from explorer.display import show_figure, show_table
from explorer.errors import escape
from heb.data import Dataset
from heb.evaluate.hierarchy_specs import parse_hierarchies, takes_hierarchies
from heb.figures import diagnostics as dg

__all__ = [
    "show_diagnostics",
    "show_large_per_class",
    "method_figures",
    "roc_for_class",
    "undrawn_note",
    "class_reliability_frame",
    "roc_frame",
]


def method_figures(comparison: Comparison, method: str) -> dict:
    """The confusion matrix, per-class scores and one-vs-rest reliability of one method."""
    if not hasattr(comparison, "_diagnostics"):
        comparison._diagnostics = {}  # built once per comparison, kept with it
    cache = comparison._diagnostics
    if method not in cache:
        result = comparison.result
        names = [str(c) for c in result.classes]
        # in memory from every row's prediction; on a large file from the scan's sums
        matrix, curves = result.confusion(method), result.class_reliability(method)
        cache[method] = {
            "confusion": dg.confusion_figure(matrix, names, f"Confusion matrix: {method}"),
            "matrix": matrix,
            "scores": dg.confusion_scores(matrix, names),
            # short: on a 390 px phone "Per-class reliability (one-vs-rest): Laplace" was
            # cut at the figure's right edge
            "reliability": dg.class_reliability_figure(
                curves, names, f"One-vs-rest reliability: {method}"
            ),
            "undrawn": undrawn_note(curves, names),
            "reliability_frame": class_reliability_frame(curves, names),
        }
    return cache[method]


def class_reliability_frame(curves: list[dict], names: list[str]) -> pd.DataFrame:
    """The numbers of the one-vs-rest reliability figure (its CSV), one row per (class,
    bin), every class's, drawn or not: the figure's text alternative.

    Columns: class, bin_low, bin_high, rows, predicted (mean predicted probability of the
    class), observed (share of the class), ece (the class's one-vs-rest ECE).
    """
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "class": name,
                    "bin_low": curve["edges"][:-1],
                    "bin_high": curve["edges"][1:],
                    "rows": curve["count"],
                    "predicted": curve["confidence"],
                    "observed": curve["accuracy"],
                    "ece": curve["ece"],
                }
            )
            for name, curve in zip(names, curves, strict=True)
        ],
        ignore_index=True,
    )


def roc_frame(curves: dict) -> pd.DataFrame:
    """The points of the ROC figure (its CSV): method, fpr, tpr and the method's AUC."""
    return pd.concat(
        [
            pd.DataFrame({"method": method, "fpr": c["fpr"], "tpr": c["tpr"], "auc": c["auc"]})
            for method, c in curves.items()
        ],
        ignore_index=True,
    )


def undrawn_note(curves: list[dict], names: list[str]) -> str | None:
    """The sentence naming the classes the one-vs-rest reliability figure leaves out (it
    draws :data:`~heb.figures.diagnostics.MAX_CLASS_CURVES`, the largest), else None."""
    drawn = set(dg.drawn_classes(curves).tolist())
    left_out = [name for index, name in enumerate(names) if index not in drawn]
    if not left_out:
        return None
    return (
        f"One-vs-rest reliability: the {len(drawn)} classes with the most rows are drawn; "
        f"not drawn, {len(left_out)}: {', '.join(left_out)} (their predictions are in the "
        "out-of-fold CSV)."
    )


def roc_for_class(comparison: Comparison, positive: int):
    """ROC curves of every method for one class (one-vs-rest), and their points (built
    once per class and comparison, kept with it like :func:`method_figures`)."""
    if not hasattr(comparison, "_roc"):
        comparison._roc = {}
    if positive not in comparison._roc:
        result = comparison.result
        curves = {m: dg.roc_curve(result.y, result.oof_proba[m], positive) for m in result.methods}
        name = str(result.classes[positive])
        fig = dg.roc_figure(curves, f"ROC, class {name} against the rest")
        comparison._roc[positive] = (fig, curves)
    return comparison._roc[positive]


def _frame(matrix, names: list[str]) -> pd.DataFrame:
    """The confusion matrix as a table (true class per row)."""
    out = pd.DataFrame(matrix, columns=[f"predicted {n}" for n in names])
    out.insert(0, "true class", names)
    return out


#: the most classes whose confusion matrix is drawn beside the per-class reliability
WIDE_CONFUSION = 8


def _method_section(comparison: Comparison, names: list[str], methods_run) -> tuple:
    """The chosen method's confusion matrix, per-class reliability and precision / recall
    table: (method, its figures)."""
    method = st.selectbox(
        "Method", methods_run, **state.page_setting("diag_method", methods_run[0], methods_run)
    )
    views = method_figures(comparison, method)
    # side by side up to WIDE_CONFUSION classes; more take the page's width one under the
    # other (soybean's 19 classes drew cells 8 px wide and every third label in half of it)
    wide = len(names) > WIDE_CONFUSION
    left, right = (st.container(), st.container()) if wide else st.columns(2)
    with left:
        show_figure(views["confusion"], _frame(views["matrix"], names), "confusion", key="cm_fig")
    with right:
        show_figure(
            views["reliability"],
            views["reliability_frame"],
            "class-reliability",
            key="class_rel_fig",
        )
        if views["undrawn"]:  # said, not dropped silently (19 soybean classes drew 8)
            st.caption(escape(views["undrawn"]))
    # the metrics table's decimals, counts with separators (it read 0.8523 beside
    # Compare's 0.852, and 4261 beside the Dataset page's 4,261)
    share = st.column_config.NumberColumn(format=f"%.{TABLE_DECIMALS}f")
    count = st.column_config.NumberColumn(format="%,d")
    formats = {"rows": count, "predicted": count} | dict.fromkeys(
        ["precision", "recall", "F1"], share
    )
    show_table(views["scores"], number_format=None, key="class_scores", grid_config=formats)
    return method, views


def _per_class_section(
    comparison: Comparison, names: list[str], methods_run, classes, roc_default: int
):
    """Confusion, per-class reliability, precision / recall and ROC of the chosen method:
    (method, its figures, the ROC figure)."""
    st.header("Per class: confusion, precision / recall, reliability, ROC")
    st.caption(
        "All from the pooled out-of-fold predictions: every row scored by the model that "
        "did not see it. So the AUC in the ROC legend is that of the pooled rows, which "
        "can differ in its third decimal from the table's, a mean over the folds."
    )
    method, views = _method_section(comparison, names, methods_run)
    positive = st.selectbox(
        "ROC of class (against the rest)",
        classes,
        format_func=lambda i: names[i],
        **state.page_setting("roc_class", roc_default, classes),
    )
    roc, curves = roc_for_class(comparison, positive)
    show_figure(roc, roc_frame(curves), "roc", key="roc_fig")
    return method, views, roc


def show_large_per_class(comparison: Comparison) -> None:
    """The per-class section of a large file's comparison: confusion, precision / recall
    and per-class reliability, from the sums its scan kept; no ROC (it needs every row's
    score)."""
    result = comparison.result
    names = [str(c) for c in result.classes]
    st.header("Per class: confusion, precision / recall, reliability")
    st.caption(
        "All from the pooled out-of-fold predictions: every row scored by the model that "
        "did not see it, counted as the scan went. No ROC curves here: they need every "
        "row's score, which a scan of a large file does not keep (the table gives each "
        "method's AUC)."
    )
    _method_section(comparison, names, list(result.methods))


def per_class_note(method: str, positive: str, n_methods: int) -> str:
    """The report's sentence on its per-class part: the method and the ROC's class are the
    ones chosen on the Per class tab (user text, escaped by the report)."""
    choice = (
        f"{method}, the method chosen on the Per class tab (pick another there before "
        "downloading for its report)"
        if n_methods > 1
        else method
    )
    return (
        f"The per-class table, confusion matrix and per-class reliability are those of "
        f"{choice}; the ROC curves are of class '{positive}' against the rest, for every method."
    )


def show_diagnostics(
    comparison: Comparison, dataset: Dataset, methods: list[str], per_class=None
) -> None:
    """The per-class section, drawn in the container ``per_class`` (an open tab; None: not
    drawn), then the out-of-fold / report downloads and the code box, whose report carries
    the per-class view of the method and class last chosen either way."""
    result = comparison.result
    names = [str(c) for c in result.classes]
    methods_run = list(result.methods)
    classes = list(range(len(names)))
    roc_default = 1 if len(names) == 2 else 0  # two classes: the positive one
    if per_class is not None:
        with per_class:
            method, views, roc = _per_class_section(
                comparison, names, methods_run, classes, roc_default
            )
    else:  # the closed tab's settings stay in the session and in a copied link; its
        # figures are built only if the report asks for them
        state.keep_setting("diag_method", methods_run[0], methods_run)
        state.keep_setting("roc_class", roc_default, classes)
        method, views, roc = st.session_state["diag_method"], None, None
    positive = st.session_state["roc_class"]

    def contents() -> tuple[dict, dict]:
        """The report's tables and figures, the per-class ones of the chosen method and
        class (built now if the tab did not build them)."""
        shown = views or method_figures(comparison, method)
        curves = roc or roc_for_class(comparison, positive)[0]
        tables = {
            "Metrics, mean ± standard deviation over folds": comparison.table,
            f"Per class: {method}": shown["scores"],
        }
        figures = {
            "Reliability (pooled out-of-fold, top-1)": comparison.reliability_fig,
            f"Confusion matrix: {method}": shown["confusion"],
            f"Per-class reliability: {method}": shown["reliability"],
            "ROC curves": curves,
        }
        return tables, figures

    def notes() -> list[str]:
        """Why the report's per-class part shows one method and one class."""
        shown = views or method_figures(comparison, method)
        undrawn = [shown["undrawn"]] if shown["undrawn"] else []
        return [per_class_note(method, names[positive], len(methods_run)), *undrawn]

    spec = st.session_state["data_spec"]
    upload = st.session_state.get("uploads", {}).get(spec)
    settings = state.run_settings()
    code = report.compare_code(report.dataset_line(spec, upload), list(methods), settings)
    report.comparison_downloads(
        result, settings, dataset.name, contents, code, dataset.target, notes, upload
    )
    gone = {}
    if settings.hierarchies and any(takes_hierarchies(m) for m in methods):
        # heb bench refuses a declaration the page leaves out: the command does too
        gone = hierarchies.left_out(
            loading.current_codes(dataset), parse_hierarchies(settings.hierarchies)
        )
    command = commands.bench_command(spec, upload, list(methods), settings, gone)
    report.show_code(code, command)
