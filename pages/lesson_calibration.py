"""Lesson 5: double counting and calibration (textbook 18.4.1; paper section 5.4)."""

from __future__ import annotations

import streamlit as st

from explorer.display import show_figure, show_table
from explorer.errors import escape, show_error
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import keep_setting, label_settings, page_setting
from heb.figures import MIN_BIN_ROWS, metric_title
from heb.figures.lessons import calibration as figures
from heb.lessons import calibration as lesson

ensure_entry_point()

#: metrics the remedies are compared on (lower is better for each)
COMPARED = ("ece", "log_loss", "brier")
#: the figures' tabs (lazy: only the open one is built)
TABS = ("Double counting", "Remedies side by side")
#: the remedies table's columns (its frame's, the CSV's, are the metrics' titles): short
#: headers (the full title in the tooltip: "ECE (top-1, 10 bins)" pushed accuracy past
#: the column's edge at 1280 px) and the verdict's 3 decimals in each
SHORT_HEADERS = {"ece": "ECE", "log_loss": "log-loss", "brier": "Brier"}
TABLE_COLUMNS = {
    "method": st.column_config.TextColumn("method", pinned=True),
    **{
        metric_title(metric): st.column_config.NumberColumn(
            SHORT_HEADERS[metric], format="%.3f", help=metric_title(metric)
        )
        for metric in COMPARED
    },
    "accuracy": st.column_config.NumberColumn("accuracy", format="%.3f"),
}


@st.cache_data(max_entries=8, show_spinner="Loading the data...")
def dataset(name: str):
    """Codes, labels and names of a lesson dataset, and its most informative feature."""
    data = lesson.calibration_data(name)
    data["best_feature"] = lesson.most_informative_feature(data["codes"], data["y"])
    return data


@st.cache_data(max_entries=64, show_spinner=False)
def sweep(name: str, feature: int):
    data = dataset(name)
    return lesson.double_counting_sweep(data["codes"], data["y"], feature, max_copies=10)


@st.cache_data(max_entries=64, show_spinner=False)
def comparison(name: str, feature: int, copies: int):
    data = dataset(name)
    return lesson.calibration_comparison(data["codes"], data["y"], feature, copies)


@st.cache_resource(max_entries=64, show_spinner=False)
def lesson_figure(which: str, name: str, feature: int, copies: int, metric: str = ""):
    """One of the page's figures (figure, data), built once per setting and shared
    read-only by every session: ``"double-counting"``, ``"reliability-copies"``,
    ``"remedies"`` (on ``metric``) or ``"reliability-remedies"`` (the verdict's on ``metric``)."""
    if which == "double-counting":
        return figures.double_counting_figure(sweep(name, feature), copies)
    if which == "reliability-copies":
        reliability = sweep(name, feature)["reliability"]
        curves = {"1 copy": reliability[1]}
        if copies > 1:
            curves[f"{copies} copies"] = reliability[copies]
        return figures.reliability_figure(curves, "Reliability diagram, Laplace smoothing")
    compared = comparison(name, feature, copies)
    if which == "remedies":
        return figures.calibration_bars_figure(compared["table"], metric)
    verdict = lesson.complementarity(compared, metric)
    # the methods the verdict beside it names: Laplace and the best of each kind of fix
    chosen = ["Laplace", *(verdict[kind][0] for kind in ("upstream", "post_hoc", "combined"))]
    return figures.reliability_figure(
        {m: compared["reliability"][m] for m in dict.fromkeys(chosen)},
        f"Reliability with {copies} copies: Laplace and the verdict's best fixes",
    )


def remedies(name: str, feature: int, copies: int, n_classes: int) -> None:
    """What the reliability diagram shows (step 2, where its points lie counted), the three
    remedies in words (step 3; Platt's input as it is for ``n_classes``), and how they are
    compared (step 4)."""
    if steps.show(2):
        curve = sweep(name, feature)["reliability"][copies]
        st.markdown(
            "The **reliability diagram** bins the test rows by their confidence and plots "
            "each bin's accuracy against it. A calibrated model sits on the diagonal; a "
            "point below it is surer than it is right. "
            + lesson.reliability_text(curve, copies, MIN_BIN_ROWS)
        )
    if steps.show(3):
        st.markdown(
            "Three remedies act at different places:\n\n"
            "- **HEB-M** learns the smoothing of each PMF (the estimator itself);\n"
            "- **sqrt-MI weights** scale each feature's log-ratio by "
            "$w_f = \\sqrt{\\mathrm{MI}(X_f; Y)}$ (HEB-M+GR);\n"
            "- **post-hoc calibration** refits the output on held-out rows: Platt "
            + (
                "σ(a·s + b) on the log-odds s"
                if n_classes == 2
                # s_c in LaTeX: as plain text it read "s_c", its underscore on screen
                else "σ(a·$s_c$ + b) on each class's log-posterior $s_c$, one class against "
                "the rest, then renormalised"
            )
            + ", isotonic regression, or temperature softmax(log p / T)."
        )
    if steps.show(4):
        # the presenter mode has no tabs: there the verdict is over the diagram
        where = "over the diagram" if steps.presenting else f"atop the tab *{TABS[1]}*"
        st.markdown(
            f"The paper calls smoothing and calibration *complementary*. The verdict ({where}) "
            "is computed on the data at hand: train on half the rows, calibrate on a "
            "quarter, score the last quarter; its diagram draws Laplace and the best fix of "
            "each kind."
        )


def double_counting_view(name: str, feature: int, copies: int) -> None:
    """ECE, accuracy and confidence over the copies, and the reliability diagram."""
    result = sweep(name, int(feature))
    at = copies - 1
    c1, c2, c3 = st.columns(3)
    c1.metric(
        "ECE with k copies",
        f"{result['ece'][at]:.3f}",
        # short enough for a presenter's 1024 px screen ("vs 1 copy" and the arrow were cut);
        # none at k = 1 (a red "+0.000" compared one copy with itself)
        f"{result['ece'][at] - result['ece'][0]:+.3f} vs k=1" if copies > 1 else None,
        delta_color="inverse",
        delta_arrow="off",
    )
    c2.metric("Accuracy", f"{result['accuracy'][at]:.3f}")
    c3.metric("Mean confidence", f"{result['mean_confidence'][at]:.3f}")
    if steps.show(1):
        fig, frame = steps.fitted(lesson_figure("double-counting", name, int(feature), copies))
        show_figure(fig, frame, "calibration-double-counting")
    if not steps.show(2):
        return
    fig, frame = steps.fitted(lesson_figure("reliability-copies", name, int(feature), copies))
    show_figure(fig, frame, "calibration-reliability-copies")


def remedies_view(name: str, feature: int, copies: int, notes) -> None:
    """The remedies compared on one metric, their reliability, the verdict (the metric's
    choice among the presenter's settings, the temperatures in ``notes``)."""
    compared = comparison(name, int(feature), int(copies))
    table = compared["table"]
    with steps.controls():
        metric = st.radio(
            "Compare on",
            COMPARED,
            format_func=metric_title,
            horizontal=True,
            **page_setting("calib_metric", COMPARED[0], COMPARED),
        )
    verdict = lesson.complementarity(compared, metric)
    # mid-sentence: "Laplace log-loss 0.244", not the title's "Laplace Log-loss 0.244"
    label = metric_title(metric).replace("Log-loss", "log-loss")
    st.markdown(lesson.verdict_text(verdict, label, copies))
    if steps.show(3):
        fig, frame = steps.fitted(
            lesson_figure("remedies", name, int(feature), int(copies), metric)
        )
        show_figure(fig, frame, "calibration-remedies")
    if not steps.show(4):
        return
    fig, frame = steps.fitted(
        lesson_figure("reliability-remedies", name, int(feature), int(copies), metric)
    )
    show_figure(fig, frame, "calibration-reliability-remedies")
    with notes:  # in the presenter mode, beside the figure
        st.caption(lesson.temperature_text(table))
    if not steps.presenting:  # the table of every number: outside the presenter's steps
        # every row in view (the default height hid the last ones behind a scroll)
        shown = table.drop(columns=["model", "calibration", "temperature"])
        shown = shown.rename(columns={metric: metric_title(metric) for metric in COMPARED})
        show_table(shown, column_config=TABLE_COLUMNS, height="content")


steps = lesson_header(
    __file__,
    [
        "Double counting inflates confidence",
        "Confidence runs ahead of accuracy",
        "Three remedies side by side",
        "Complementary: reliability after each remedy",
    ],
    about="Double counting and calibration",
)


@st.fragment
def lesson_view() -> None:
    """Double counting's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with steps.controls():
            names = list(lesson.CALIBRATION_DATASETS)
            name = st.selectbox("Data", names, **page_setting("calib_data", names[0], names))
            try:
                data = dataset(name)
            except Exception as exc:  # noqa: BLE001 - a loader error becomes a message
                show_error(exc, "loading the lesson's data")
                return
            st.caption(escape(data["description"]))
            features = list(range(len(data["feature_names"])))
            feature = st.selectbox(
                "Feature to duplicate",
                features,
                format_func=lambda f: data["feature_names"][f],
                help="Default: the feature with the largest mutual information with the class.",
                **page_setting(f"calib_feature_{name}", int(data["best_feature"]), features),
            )
            # a slide's figure names the feature ("calib_feature_synthetic=1 (x2)")
            label_settings({f"calib_feature_{name}": data["feature_names"][feature]})
            copies = st.slider(
                "Copies k of that feature", 1, 10, **page_setting("calib_copies", 4, range(1, 11))
            )
        n_classes = int(data["y"].max()) + 1
        with notes:
            if steps.show(1):
                if n_classes == 2:
                    st.markdown(
                        "Naive Bayes adds one log-likelihood ratio per feature. Copy a feature "
                        "$x_j$ k times and its evidence is counted k times (textbook 18.4.1):"
                    )
                    st.latex(r"\log\frac{P(1\mid x)}{P(0\mid x)} = \log\frac{P(1)}{P(0)}")
                    st.latex(r"+\; k\,\log\frac{P(x_j\mid 1)}{P(x_j\mid 0)} + \cdots")
                else:  # no single log-odds: each class's log-posterior gains k times the term
                    st.markdown(
                        "Naive Bayes adds one log-likelihood per feature to each class's score. "
                        "Copy a feature $x_j$ k times and its evidence is counted k times "
                        "(textbook 18.4.1):"
                    )
                    # short lines, as the binary rule's (one line was cut at 1280 px)
                    st.latex(r"\log P(c\mid x) = \log P(c)")
                    st.latex(r"+\; k\,\log P(x_j\mid c) + \cdots")
                    st.latex(r"-\; \log Z(x)")
                # computed: a fixed "the confidence inflates: the ECE grows" was false on
                # breast-cancer (confidence 0.99 with one copy)
                st.markdown(
                    "The **expected calibration error** (ECE) is the gap between confidence "
                    "and accuracy over 10 bins. "
                    + lesson.double_counting_text(sweep(name, int(feature)), int(copies))
                )
            remedies(name, int(feature), int(copies), n_classes)
        st.caption("Textbook 18.4 and 18.4.1; paper sections 2 (calibration of NB) and 5.4.")

    with right:
        # only the open tab is built: a control redrew (and the remedies tab recomputed)
        # four figures, two out of sight
        tab_double, tab_fixes = steps.tabs(list(TABS), "calib_tab")
        if steps.is_open(tab_double):
            with tab_double:
                if steps.show(1) or steps.show(2):
                    double_counting_view(name, int(feature), int(copies))
        if steps.is_open(tab_fixes):
            with tab_fixes:
                if steps.show(3) or steps.show(4):
                    remedies_view(name, int(feature), int(copies), notes)
        else:  # the closed tab's metric stays in the session and in a copied link
            keep_setting("calib_metric", COMPARED[0], COMPARED)


lesson_view()
page_footer(__file__, settings=True)
