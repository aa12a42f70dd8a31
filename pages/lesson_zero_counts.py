"""Lesson 1: zero counts, underflow and log-sum-exp (textbook sections 18.2 and 18.3.4)."""

from __future__ import annotations

import streamlit as st

from explorer.display import show_figure
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import keep_setting, page_setting
from heb.figures.lessons import zero_counts as figures
from heb.lessons import zero_counts as lesson

ensure_entry_point()
ALPHA_CHOICES = [0.0, 0.01, 0.1, 0.5, 1.0, 2.0]
COPY_CHOICES = range(1, 201)
steps = lesson_header(
    __file__,
    ["Zero counts veto a class", "Underflow and log-sum-exp"],
    about="Why Naive Bayes smooths its counts",
)


@st.cache_resource(max_entries=64, show_spinner=False)
def probabilities_figure(message: tuple[str, ...], alpha: float):
    """The word-probability bars (figure, data), built once per e-mail and alpha; shared
    read-only by every session."""
    corpus = lesson.toy_spam()
    theta, _ = lesson.word_probabilities(corpus, alpha)
    return figures.zero_counts_figure(corpus.vocabulary, corpus.classes, theta, message, alpha)


@st.cache_resource(max_entries=64, show_spinner=False)
def underflow_figure(message: tuple[str, ...], alpha: float, copies: int):
    """The underflow curves (figure, data) at ``copies`` repeats, built once per setting."""
    corpus = lesson.toy_spam()
    curve = lesson.underflow_curve(corpus, list(message), alpha, max_copies=200)
    return figures.underflow_figure(curve, corpus.classes, int(curve["n_words"][copies - 1]))


def explanation() -> None:
    """The rule and the zero counts (step 1), underflow and log-sum-exp (step 2)."""
    corpus = lesson.toy_spam()
    ham = corpus.classes.index("ham")
    unseen = int(corpus.word_counts[ham, corpus.vocabulary.index("unsubscribe")])
    ham_words = int(corpus.word_counts[ham].sum())
    if steps.show(1):
        st.markdown("Naive Bayes multiplies one factor per word:")
        # two lines: on one the rule was cut at "P(w" in a 230 px column (1280 px with
        # the sidebar, the presenter's at 1024 px); the product's limit beside it, not
        # under it, keeps the presenter's step 1 within a 900 px screen
        st.latex(
            r"\begin{aligned} &P(c \mid x) \propto P(c) \\"
            r" &\quad \times \prod\nolimits_{w \in x} P(w \mid c) \end{aligned}"
        )
        st.markdown(
            f"**Zero counts.** Unsmoothed, P(*unsubscribe* | ham) = {unseen} / {ham_words} = 0, "
            "and one zero factor sends the whole product to 0: a single unseen word vetoes *ham*, "
            "whatever the other words say. Adding α phantom occurrences of every word "
            "fixes it:"
        )
        st.latex(r"\hat P(w \mid c) = \frac{N_{cw} + \alpha}{N_c + \alpha V}")
    if steps.show(2):
        st.markdown(
            "**Underflow.** A product of many factors below 1 falls under the smallest "
            "float64 (about 4.9 × 10⁻³²⁴) and becomes exactly 0; then P(c | x) = 0 / 0. "
            "Summing logs and normalising with log-sum-exp never underflows:"
        )
        st.latex(
            r"\begin{aligned} s_c &= \log P(c) \\"
            r" &\quad + \sum_{w \in x} \log P(w \mid c) \end{aligned}"
        )
        st.latex(r"P(c \mid x) = \frac{e^{\,s_c - s^*}}{\sum_{c'} e^{\,s_{c'} - s^*}}")
        st.latex(r"s^* = \max_{c'} s_{c'}")


@st.fragment
def lesson_view() -> None:
    """Zero counts' controls and figures: a control reruns this fragment alone."""
    corpus = lesson.toy_spam()
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with notes:
            if steps.show(1):
                spam, ham = (int(n) for n in corpus.email_counts)
                never = [
                    ", ".join(
                        f"*{w}*" for w, n in zip(corpus.vocabulary, row, strict=True) if n == 0
                    )
                    for row in corpus.word_counts
                ]  # computed: the chart beside it shows every zero
                st.markdown(
                    f"A spam filter counted words in **{spam} spam** and **{ham} ham** "
                    f"(legitimate) e-mails. Never in ham: {never[1]}; never in spam: {never[0]}."
                )
        with steps.controls():
            # pills on several rows, not a multiselect: every word stays in view in the column
            message = st.pills(
                "The new e-mail's words",
                corpus.vocabulary,
                selection_mode="multi",
                wrap=True,
                help="Click a word to add or remove it. Try 'agenda' and 'winner' together.",
                **page_setting(
                    "zero_words", ["meeting", "project", "report", "unsubscribe"], corpus.vocabulary
                ),
            )
            alpha = st.select_slider(
                "Pseudo-count α",
                options=ALPHA_CHOICES,
                help="0 = no smoothing. 1 = Laplace.",
                **page_setting("zero_alpha", 0.0, ALPHA_CHOICES),
            )
            if steps.show(2):  # only step 2's underflow figure and note use it
                copies = st.slider(
                    "Repeat the e-mail (times)",
                    1,
                    200,
                    help="A longer document.",
                    **page_setting("zero_copies", 60, COPY_CHOICES),
                )
            else:  # the presenter's step 1: kept in the session and a copied link
                keep_setting("zero_copies", 60, COPY_CHOICES)
        with notes:
            explanation()
        if steps.show(1):  # the sources of step 1's rule and smoothing
            st.caption("Textbook sections 18.2 (the decision rule) and 18.3.4 (Laplace smoothing).")

    with right:
        if not message:
            st.info("Pick at least one word for the e-mail.")
            return
        score = lesson.score_message(corpus, message, alpha)
        curve = lesson.underflow_curve(corpus, message, alpha, max_copies=200)
        columns = st.columns(len(corpus.classes) + 1)
        for c, name in enumerate(corpus.classes):
            if score["posterior"] is None:
                columns[c].metric(f"P({name} | e-mail)", "0 / 0")
            else:
                columns[c].metric(
                    f"P({name} | e-mail)",
                    f"{score['posterior'][c]:.4f}",
                    "vetoed by a 0" if score["vetoed"][c] else None,  # fits a 1024 px presenter
                    delta_color="inverse",
                    delta_arrow="off",
                )
        columns[-1].metric("Words in the e-mail", len(message))
        if score["posterior"] is None:
            st.error(
                "Every class has a zero factor: Naive Bayes cannot answer at all (0 / 0). "
                "Raise α above 0."
            )
        if steps.show(1):
            fig, data = steps.fitted(probabilities_figure(tuple(message), alpha))
            show_figure(fig, data, "zero-counts-word-probabilities")
        if steps.show(2):
            at = copies - 1
            n_words = int(curve["n_words"][at])
            fig, data = steps.fitted(underflow_figure(tuple(message), alpha, int(copies)))
            show_figure(fig, data, "zero-counts-underflow")
            with notes:  # in the presenter mode, beside the figure: the footer stays on screen
                # the metrics above score the e-mail once: say so beside 60 copies' numbers
                # (short line heads: the clause kept the presenter's step 2 within 900 px,
                # and "Log-sum-exp:" one line where the direct products name an underflow)
                once = "" if copies == 1 else "; the metrics above score it once"
                st.markdown(
                    f"**The e-mail {'as it is' if copies == 1 else f'repeated {copies} times'} "
                    f"({n_words} words)**{once}.  \n"
                    f"Direct products: {lesson.direct_summary(curve, corpus, at)}.  \n"
                    f"Log-sum-exp: {lesson.logspace_summary(curve, corpus, at)}."
                )


lesson_view()
page_footer(__file__, settings=True)
