"""Lesson 3: the Type-II ML evidence curve of one (class, feature) pair (paper eq. 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer.display import show_figure
from explorer.errors import escape
from explorer.loading import current_codes, current_dataset
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import init_state, label_settings, lesson_uses_dataset, page_setting
from heb.figures.lessons import evidence as figures
from heb.lessons import evidence as lesson
from heb.lessons.common import M_MAX, M_MIN, N0, format_decimals, format_m

ensure_entry_point()

DATASET = "A pair of the current dataset"
TYPED = "Counts I type"
MARGINAL = "pooled marginal (HEB-M)"
UNIFORM = "uniform (HEB-U)"
#: bars per PMF in the grouped chart (5 series each: wider bars read on a projector)
MAX_BARS = 20
#: under the summary when HEB-M's pooled marginal is the uniform 1/K
SAME_AS_UNIFORM = (
    "Here the pooled marginal is uniform: every value of this feature has as many rows over "
    "all classes (an ID column has one each), so HEB-M's prior mean is HEB-U's and the two "
    "give the same m."
)
DEFAULT_TEXT = ", ".join(str(int(v)) for v in lesson.EXAMPLE_COUNTS)
SOURCES = [DATASET, TYPED]
PRIORS = [MARGINAL, UNIFORM]
#: the longest counts text typed (and read from a link)
MAX_TEXT = 300


def _array(values: tuple | None):
    return None if values is None else np.array(values)


def _tuple(values) -> tuple | None:
    return None if values is None else tuple(values.tolist())


@st.cache_data(max_entries=128, show_spinner=False)
def numbers(counts: tuple, prior: tuple | None, m_whatif: float, pooled: tuple | None, heb: str):
    """Everything the page shows, cached on the (small) inputs; ``heb`` is the smoother
    whose prior mean was chosen (HEB-M's pooled marginal may happen to be uniform)."""
    return lesson.evidence_lesson(
        _array(counts), _array(prior), m_whatif, _array(pooled), max_bars=MAX_BARS, heb=heb
    )


@st.cache_resource(max_entries=64, show_spinner=False)
def lesson_figure(
    which: str, inputs: tuple, labels: tuple[str, ...] = (), ranks: tuple[int, ...] = ()
):
    """One of the page's figures (figure, data), built once per ``inputs`` (the arguments
    of :func:`numbers`) and shared read-only by every session: ``"evidence"``, ``"pmfs"``
    (bars labelled by ``labels``, in the column's own order when ``ranks`` states one:
    :func:`heb.lessons.evidence.category_ranks`) or ``"held-out"``."""
    out = numbers(*inputs)
    if which == "evidence":
        return figures.evidence_figure(out["curve"], out["heb"], out["uniform_prior"], inputs[2])
    if which == "pmfs":
        shown = lesson.bar_order(out["shown"], ranks)
        pmfs = {name: values[shown] for name, values in out["pmfs"].items()}
        return figures.pmf_bars_figure(pmfs, [labels[i] for i in shown])
    return figures.heldout_figure(out["heldout"], out["marks"], out["heb"], out["heldout_uniform"])


@st.cache_data(max_entries=16, show_spinner=False)
def showcase(key: str, _table) -> tuple[int, int, float]:
    """The pair to open on (:data:`heb.lessons.evidence.SHOWCASE_RULE`) and its peak's
    margin in nats (NaN when no pair has an interior maximum), per dataset (``key``: the
    dataset's sha256 and settings)."""
    c, f = lesson.showcase_pair(_table)
    return c, f, float(lesson.pair_prominence(_table)[c, f])


def stated_order(feature: str, labels: list[str]) -> tuple[int, ...]:
    """The bars' order a dataset's column states (an ordered pandas Categorical, as the
    built-in zip-codes' weekday), or ``()``: the encoder's sorted order stays."""
    X = current_dataset().X
    dtype = X[feature].dtype if feature in X.columns else None
    if not isinstance(dtype, pd.CategoricalDtype):
        return ()
    return lesson.category_ranks(labels, dtype.categories, bool(dtype.ordered))


def choose_pair(data) -> tuple[int, int]:
    """Class and feature selectboxes, opened on a pair sent by Concentrations or a showcase
    (side by side when presenting, without the showcase's caption: the Settings popover
    then fits a 1280 x 720 screen; the boxes' help still says how the pair was chosen)."""
    state = st.session_state
    pair = state.get("evidence_pair")
    if pair is not None and pair != state.get("_evidence_pair_seen"):
        state["_evidence_pair_seen"] = pair  # a pair sent by the Concentrations page
        if 0 <= pair.get("class", -1) < data.n_classes:
            state["evidence_class"] = pair["class"]
        if 0 <= pair.get("feature", -1) < len(data.feature_names):
            state["evidence_feature"] = pair["feature"]
    classes = list(range(data.n_classes))
    features = list(range(len(data.feature_names)))
    first_class, first_feature, margin = showcase(data.key, data.table)
    rule = f"The page opens on {lesson.SHOWCASE_RULE}."
    left, right = steps.control_pair()
    c = left.selectbox(
        "Class",
        classes,
        format_func=lambda i: data.class_names[i],
        help=rule,
        **page_setting("evidence_class", first_class, classes),
    )
    f = right.selectbox(
        "Feature",
        features,
        format_func=lambda i: f"{data.feature_names[i]} (K = {data.table.n_categories[i]})",
        help=rule,
        **page_setting("evidence_feature", first_feature, features),
    )
    if (c, f) == (first_class, first_feature) and np.isfinite(margin) and not steps.presenting:
        st.caption(
            f"The dataset's clearest peak: HEB-M's evidence at its learned m is at least "
            f"{margin:.1f} nats above its evidence at m = K (Laplace's strength, with this "
            "curve's mean) and at both ends of the clamp."
        )
    return c, f


def explanation(uniform_prior: bool) -> None:
    """The lesson's text, step by step: the evidence, the estimate, the held-out check
    (where Laplace is drawn depends on whether the prior mean is ``uniform_prior``)."""
    if steps.show(1):
        st.markdown(
            "HEB gives each (class, feature) pair a Dirichlet(m t) prior with mean t and "
            "concentration m, and learns m by **Type-II maximum likelihood**: the m under "
            "which the observed counts are most probable once θ is integrated out "
            "(paper eq. 5):"
        )
        st.latex(r"\ell(m) = \log\frac{\Gamma(m)}{\Gamma(N + m)}")
        st.latex(r"+ \sum_{v=1}^{K} \log\frac{\Gamma(n_v + m t_v)}{\Gamma(m t_v)}")
    if steps.show(2):
        st.latex(r"\hat\theta_v = \frac{n_v + \hat m\, t_v}{N + \hat m}")
        st.markdown(
            "m → 0 gives the unsmoothed n / N, m → ∞ the prior mean t. **Laplace** is "
            "(n + 1) / (N + K): the uniform t with m = K, whatever t HEB uses. "
            f"The maximiser is clamped to [{format_m(M_MIN)}, {format_m(M_MAX)}], and a "
            f"pair with N < {format_m(N0)} rows uses m = K (Algorithm 1, step 8)."
        )
    if steps.show(3):
        laplace = (
            "Laplace is this curve's point m = K (the same uniform t)."
            if uniform_prior
            else "Laplace keeps its uniform t: the point m = K of its own dashed curve."
        )
        # a uniform t is 1 / K on every fold: only the pooled marginal is refitted
        and_t, and_pooled_t = ("", "") if uniform_prior else (" (and t)", " (and a pooled t)")
        if steps.presenting:  # two lines shorter (the legend says where Laplace is): with
            # the verdict under it, the step's footer fell 53 px below a 1440 x 900 screen
            st.markdown(
                "The held-out curve checks the choice: each fold is scored by the PMF of the "
                f"other folds, where HEB refits m{and_t}."
            )
            return
        st.markdown(
            "The held-out curve checks the choice: each fold of the pair's rows is scored "
            "by the PMF smoothed from the other folds' counts, one m for all folds. "
            f"HEB's own score refits m{and_pooled_t} on the other folds alone, as "
            f"cross-validation would. {laplace}"
        )


def held_out_view(out: dict, inputs: tuple, refitted: bool, notes) -> None:
    """The held-out log-loss over m, who wins on it and what the what-if m changes (the
    sentences in ``notes``: beside the figure in the presenter mode; a uniform guess's
    log K is in the figure's legend)."""
    heb, m_whatif = out["heb"], inputs[2]
    if out["heldout"] is None:
        st.info("The held-out curve needs at least two rows in this pair.")
        return
    fig, data_frame = steps.fitted(lesson_figure("held-out", inputs))
    show_figure(fig, data_frame, "evidence-held-out")
    refit = " (t refitted without the held-out rows)" if refitted else ""
    # plain and signed, as the verdict writes a gap (0.00012), never 3.32e-05 on a projector
    delta = out["whatif_change"]
    change = (
        f"**{'-' if delta < 0 else '+'}{format_decimals(abs(delta), 4, trim=True)}** nats per row"
    )
    with notes:
        verdict = out["verdict"]
        if steps.presenting and lesson.NOT_THE_CLASSIFIER in verdict:
            # the caveat in the verdict's tooltip: a step fits a 1440 x 900 screen
            verdict = verdict.replace(lesson.NOT_THE_CLASSIFIER, "")
            st.markdown(verdict, help=lesson.NOT_THE_CLASSIFIER.strip())
        else:
            st.markdown(verdict)
        if steps.presenting:  # one line shorter: the step fits a 1440 x 900 screen
            st.markdown(f"What-if m = {format_m(m_whatif)}: {change} vs {heb}'s m.")
        else:
            st.markdown(
                f"Against {heb}'s m, the what-if m = {format_m(m_whatif)} changes the held-out "
                f"log-loss by {change}{refit}."
            )


def summary(out: dict, what: str, pair_line) -> None:
    """The pair's line (``what``, N and K: in ``pair_line`` at the top of the presenter's
    text column, else here), HEB's m, the shrinkage and Laplace's m, and the fallback."""
    curve, heb = out["curve"], out["heb"]
    if pair_line is None:
        rows = "row" if curve.n_samples == 1 else "rows"
        st.markdown(f"{what}: N = {curve.n_samples:,} {rows} over K = {curve.n_categories:,}.")
    else:  # one line of the presenter's text column
        short = what.replace("Counts of class", "Class")
        pair_line.markdown(f"{short}: N = {curve.n_samples:,}, K = {curve.n_categories:,}.")
    # three metrics, short labels: at a presenter's 1024 px four columns broke a label
    # mid-word ("Shrinkag / e ρ"); whether m is clamped is the first one's delta
    c1, c2, c3 = st.columns(3)
    note = None if curve.clamped == "none" else "clamped"
    note = "flat l(m)" if curve.flat else "m = K" if curve.fallback else note
    c1.metric(
        f"{heb}'s m",
        format_m(curve.m_hat),
        note,
        delta_color="off",
        delta_arrow="off",
        help=f"The evidence's maximiser, clamped to [{format_m(M_MIN)}, {format_m(M_MAX)}].",
    )
    c2.metric("Shrinkage ρ", f"{out['rho']:.2f}", help="ρ = m / (N + m)")
    c3.metric("Laplace's m = K", f"{curve.n_categories:,}")
    if curve.fallback:
        own = (
            "the evidence is flat here: these counts are as probable under every m"
            if curve.flat
            else f"the evidence's own maximiser would be {format_m(curve.m_argmax)}"
        )
        st.warning(
            f"N = {curve.n_samples} < {format_m(N0)} rows: {heb} uses m = K = "
            f"{curve.n_categories} ({own})."
        )


steps = lesson_header(
    __file__,
    ["The evidence curve and its peak", "The smoothed PMFs", "The held-out check"],
    about="Type-II maximum likelihood",
)


#: the lesson's sources
PAPER_NOTE = "Paper section 3.1 (eq. 5-6, Algorithm 1); Minka (2000)."


def sources_note() -> None:
    """The lesson's sources, under its text; not on the presenter's held-out step, whose
    text is the longest (with them its footer fell 43 px below a 1440 x 900 screen)."""
    if not (steps.presenting and steps.show(3)):
        st.caption(PAPER_NOTE)


@st.fragment
def lesson_view() -> None:
    """The evidence curve's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with notes:  # the pair's line leads the presenter's text (the figure's column
            # was the taller one: step 3's footer fell below a 1440 x 900 screen)
            pair_line = st.empty() if steps.presenting else None
        with steps.controls():
            # presenting, the two radios share a row (742 px of controls in a 502 px box)
            first, second = steps.control_pair()
            source = first.radio(
                "Counts from",
                SOURCES,
                horizontal=True,
                **page_setting("evidence_source", DATASET, SOURCES),
            )
            lesson_uses_dataset(source == DATASET)  # an exported figure's footer names it
            if source == DATASET:
                init_state()
                data = current_codes()
                c, f = choose_pair(data)
                prior_kind = second.radio(
                    "Prior mean t",
                    PRIORS,
                    horizontal=True,
                    **page_setting("evidence_prior", MARGINAL, PRIORS),
                )
                counts, prior, pooled = lesson.pair_counts(
                    data.table, c, f, "marginal" if prior_kind == MARGINAL else "uniform"
                )
                heb = "HEB-M" if prior_kind == MARGINAL else "HEB-U"
                labels = [str(v) for v in data.preprocessor.categories_[f]]
                ranks = stated_order(data.feature_names[f], labels)
                class_name, feature_name = (
                    escape(data.class_names[c]),
                    escape(data.feature_names[f]),
                )
                what = f"Counts of class **{class_name}**, feature **{feature_name}**"
                # a slide's figure names its pair ("evidence_class=0 (no)"), not indices
                label_settings(
                    {
                        "evidence_class": data.class_names[c],
                        "evidence_feature": data.feature_names[f],
                    }
                )
            else:
                text = st.text_input(
                    "Counts n₁, …, n_K",
                    help="Whole numbers.",
                    max_chars=MAX_TEXT,
                    **page_setting("evidence_counts", DEFAULT_TEXT),
                )
                try:
                    counts = lesson.parse_counts(text)
                except ValueError as exc:
                    st.error(str(exc))
                    return
                labels, ranks = [f"v{v + 1}" for v in range(counts.size)], ()
                prior, pooled, heb = None, None, "HEB-U"  # uniform
                what = "Your counts, uniform prior mean (HEB-U)"
                label_settings({})
            m_whatif = st.select_slider(
                "What-if concentration m",
                lesson.M_WHATIF_CHOICES,
                **page_setting("evidence_m", 1000.0, lesson.M_WHATIF_CHOICES),
                help="Smooth with this m instead of HEB's and watch the held-out log-loss move.",
                format_func=format_m,
            )
        with notes:
            explanation(prior is None or lesson.is_uniform(prior))
        sources_note()

    with right:
        inputs = (_tuple(counts), _tuple(prior), float(m_whatif), _tuple(pooled), heb)
        try:
            out = numbers(*inputs)
        except ValueError as exc:
            st.error(str(exc))
            return
        curve = out["curve"]
        summary(out, what, pair_line)
        if heb == "HEB-M" and out["uniform_prior"]:
            st.caption(SAME_AS_UNIFORM)
        if steps.show(1):
            fig, data_frame = steps.fitted(lesson_figure("evidence", inputs))
            show_figure(fig, data_frame, "evidence-curve")
            if not out["uniform_prior"]:
                with notes:  # in the presenter mode, beside the figure
                    st.caption(
                        "Laplace is not on this curve: its prior mean is uniform, this curve's "
                        "is the pooled marginal."
                    )
        if steps.show(2):
            fig, data_frame = steps.fitted(lesson_figure("pmfs", inputs, tuple(labels), ranks))
            show_figure(fig, data_frame, "evidence-smoothed-pmfs")
            shown = out["shown"]
            if shown.size < curve.n_categories:
                st.caption(
                    f"Showing the {shown.size} most frequent of {curve.n_categories:,} categories."
                )
        if steps.show(3):
            held_out_view(out, inputs, pooled is not None, notes)


lesson_view()
page_footer(__file__, settings=True)
