"""Lesson 6: known truth: sample from a Naive Bayes model, fit every smoother, compare."""

from __future__ import annotations

import streamlit as st

from explorer.display import show_figure, show_table
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import keep_setting, page_setting
from heb.figures.lessons import known_truth as figures
from heb.lessons import known_truth as lesson
from heb.lessons.common import SPARSITY_HELP

ensure_entry_point()

DIRICHLET = "Dirichlet(α_dir) PMFs"
PRESET = "ID-like features (ZIP codes, user IDs)"
N_CHOICES = [20, 50, 100, 200, 500, 1000, 2000, 5000]
K_CHOICES = [2, 5, 10, 20, 50, 100, 200, 500, 1000]
ALPHA_DIR_CHOICES = [0.1, 0.3, 0.5, 1.0, 2.0]
KINDS = [DIRICHLET, PRESET]
FEATURES = range(1, 13)
#: test rows scored against the true posteriors
N_TEST = 10_000
#: the figures' tabs, and the posteriors tab's pick of smoothers (its setting and default)
TABS = ("PMF error", "Posteriors", "Calibration")
PICK, DEFAULT_PICK = "truth_pick", ("Laplace", "HEB-M")


def _number(label: str, meaning: str) -> st.column_config.NumberColumn:
    """A number column at 3 decimals with a short header and its meaning as help."""
    return st.column_config.NumberColumn(label, format="%.3f", help=meaning)


#: the summary table's columns: short headers (the meaning in each one's tooltip), so all
#: of them fit the figure's column at 1280 px with the sidebar open (the long ones pushed
#: log-loss and accuracy past its edge), and 3 decimals in every number column (the house
#: style of metrics, heb.evaluate.report.CELL_DECIMALS: 0.065 stood beside 0.0679)
SUMMARY_COLUMNS = {
    "label": st.column_config.TextColumn("smoother", pinned=True),
    "mean_l1": _number(
        "PMF l1", "Mean l1 error ‖θ̂_cf − θ_cf‖₁ of the estimated class-conditional PMFs."
    ),
    "true_ece": _number(
        "true ECE", "Calibration error against the true probability that the prediction is right."
    ),
    "sample_ece": _number(
        "label ECE",
        "Calibration error against the test rows' sampled labels (all real data has).",
    ),
    "posterior_l1": _number(
        "post. l1", "Mean l1 distance between the estimated and the true posterior of a test row."
    ),
    "log_loss": _number("log-loss", f"Log-loss on {N_TEST:,} fresh test rows."),
    "accuracy": _number("acc.", f"Accuracy on {N_TEST:,} fresh test rows."),
}


@st.cache_data(max_entries=64, show_spinner="Sampling and fitting every smoother...")
def study(n_train: int, K: int, n_features: int, alpha_dir: float, preset: str | None):
    """Every number of the page, cached per slider state."""
    return lesson.known_truth_study(
        n_train=n_train,
        n_categories=K,
        n_features=n_features,
        alpha_dir=alpha_dir,
        preset=preset,
        n_test=N_TEST,
    )


@st.cache_resource(max_entries=64, show_spinner=False)
def lesson_figure(which: str, setting: tuple, labels: tuple[str, ...] = ()):
    """One of the page's figures (figure, data), built once per ``setting`` (the arguments
    of :func:`study`) and shared read-only by every session: ``"pmf-error"``,
    ``"posteriors"`` (of the smoothers ``labels``) or ``"calibration"``."""
    out = study(*setting)
    if which == "pmf-error":
        return figures.pmf_error_figure(out["pmf_errors"])
    if which == "posteriors":
        return figures.posterior_scatter_figure(
            out["true_posterior"], out["posteriors"], list(labels)
        )
    return figures.true_calibration_figure(out["summary"])


def explanation(out: dict, setting: tuple) -> None:
    """What only a known truth shows, step by step: PMF error, posteriors (HEB-M's blur
    on ``out``, the study of ``setting``, in numbers), calibration."""
    if steps.show(1):
        st.markdown(
            "What only a known truth can show:\n\n"
            "- the exact l1 error of every estimated class-conditional PMF, "
            "‖θ̂_cf − θ_cf‖₁;\n"
            "- estimated against **true** posteriors on fresh test rows;\n"
            "- the **true** calibration error."
        )
    if steps.show(2):
        st.markdown(
            "Which prior mean is right depends on the truth. With Dirichlet(α_dir) PMFs drawn "
            "independently per class, nothing is shared between classes: the uniform mean "
            "(HEB-U) fits. The ID-like preset draws every class's PMF around one shared "
            "Zipf marginal, HEB-M's hierarchical model: there the pooled marginal wins."
        )
        # the presenter mode has no tabs: there the figure is beside this text
        where = "in the figure" if steps.presenting else "in the *Posteriors* tab"
        # computed: a fixed sentence said the preset undoes the blur (it does not at 200
        # rows) and named the Posteriors tab, which the presenter mode does not have
        st.markdown(
            "Watch HEB-M: its prior mean is the marginal pooled from the *same* rows "
            "(empirical Bayes, paper Remark 1). With few rows per class and category, each "
            "class's counts can look like draws from that marginal: Type-II ML then picks a "
            "huge m, and the classes blur together. "
            + lesson.blur_text(out, "HEB-M", where)
            + (
                " With Dirichlet PMFs, more rows (try 5,000) undo it."
                if lesson.blurred(out) and setting[4] is None and setting[0] < max(N_CHOICES)
                else ""
            )
        )
    if steps.show(3):
        st.markdown(
            "The **true** calibration error: in each confidence bin, compare the mean "
            "confidence with the true probability that the prediction is right, "
            "P(Y = ŷ | x), instead of with noisy 0/1 labels."
        )
        st.latex(r"\mathrm{ECE}_{\mathrm{true}} = \sum_b \frac{|I_b|}{n}")
        st.latex(r"\times\,\Big|\,\overline{P(Y=\hat y \mid x)}_b - \overline{\hat q}_b\Big|")


def posteriors_view(out: dict, setting: tuple) -> None:
    """Estimated against true posteriors, for the smoothers picked (the pick among the
    presenter's settings)."""
    with steps.controls():
        labels = st.multiselect(
            "Smoothers",
            list(out["posteriors"]),
            **page_setting(PICK, list(DEFAULT_PICK), list(out["posteriors"])),
        )
    fig, data = steps.fitted(lesson_figure("posteriors", setting, tuple(labels)))
    show_figure(fig, data, "known-truth-posteriors")


steps = lesson_header(
    __file__,
    ["Each estimate against the truth", "Posteriors: the prior mean matters", "True calibration"],
    about="Smoothers scored against the true PMFs",
)


@st.fragment
def lesson_view() -> None:
    """The known-truth lesson's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with notes:
            if steps.show(1):
                st.markdown(
                    "On real data the true PMFs are unknown, so smoothers are compared by proxies"
                    " (log-loss, accuracy). Here we **choose** a Naive Bayes model — class prior "
                    "π and every θ_cf — sample a training set from it, fit every smoother to the "
                    "same counts, and compare each estimate with the truth."
                )
        with steps.controls():
            kind = st.radio(
                "True model", [DIRICHLET, PRESET], **page_setting("truth_kind", DIRICHLET, KINDS)
            )
            # presenting, the sliders pair up: one above the other, the Settings popover
            # outgrew a 1280 x 720 screen (626 px of controls in a 502 px box, scrolled)
            first, second = steps.control_pair()
            n_train = first.select_slider(
                "Training rows", N_CHOICES, **page_setting("truth_rows", 200, N_CHOICES)
            )
            preset = "high-cardinality" if kind == PRESET else None
            K = second.select_slider(
                "Categories per feature K",
                K_CHOICES,
                disabled=bool(preset),
                **page_setting("truth_K", 50, K_CHOICES),
            )
            n_features = first.slider(
                "Features",
                1,
                12,
                disabled=bool(preset),
                **page_setting("truth_features", 4, FEATURES),
            )
            alpha_dir = second.select_slider(
                "Sparsity α_dir of each θ_cf",
                ALPHA_DIR_CHOICES,
                help=SPARSITY_HELP,
                disabled=bool(preset),
                **page_setting("truth_alpha_dir", 2.0, ALPHA_DIR_CHOICES),
            )
        setting = (int(n_train), int(K), int(n_features), float(alpha_dir), preset)
        out = study(*setting)
        with notes:
            explanation(out, setting)
        if not steps.presenting:  # the source: outside the presenter's screen
            st.caption("Generator: heb.synthetic; paper section 4.3 (Theorem 3) for calibration.")

    with right:
        summary = out["summary"]
        c1, c2, c3 = st.columns(3)
        # the method in the label: "HEB-U: 0.385" as a value broke after its colon
        c1.metric(*lesson.smallest(summary, "mean_l1", "Smallest mean l1 error"))
        c2.metric(*lesson.smallest(summary, "true_ece", "Smallest true ECE"))
        c3.metric("Log-loss floor (truth)", f"{out['true_log_loss']:.3f}")
        # only the open tab is built: a control redrew all three figures, two out of sight
        tab_pmf, tab_post, tab_cal = steps.tabs(list(TABS), "truth_tab")
        if steps.is_open(tab_pmf):
            with tab_pmf:
                if steps.show(1):
                    fig, data = steps.fitted(lesson_figure("pmf-error", setting))
                    show_figure(fig, data, "known-truth-pmf-error")
        if steps.is_open(tab_post):
            with tab_post:
                if steps.show(2):
                    posteriors_view(out, setting)
        else:  # the closed tab's pick stays in the session and in a copied link
            keep_setting(PICK, list(DEFAULT_PICK), list(out["posteriors"]))
        if steps.is_open(tab_cal):
            with tab_cal:
                if steps.show(3):
                    fig, data = steps.fitted(lesson_figure("calibration", setting))
                    show_figure(fig, data, "known-truth-calibration")
        if steps.presenting:
            return  # the table of every number: outside the presenter's steps
        show_table(summary, column_config=SUMMARY_COLUMNS, column_order=list(SUMMARY_COLUMNS))


lesson_view()
page_footer(__file__, settings=True)
