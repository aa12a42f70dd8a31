"""Lesson 2: Laplace smoothing is a Dirichlet posterior mean (textbook 18.3.4.1)."""

from __future__ import annotations

import streamlit as st

from explorer.display import show_figure
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import page_setting
from heb.figures.lessons import dirichlet as figures
from heb.lessons import dirichlet as lesson

ensure_entry_point()
K_CHOICES = [2, 5, 10, 20, 50, 100, 200]
N_CHOICES = [0, 5, 10, 20, 50, 100, 200, 500, 1000]
TRUTHS = list(lesson.TRUTH_CONCENTRATION)


@st.cache_data(max_entries=64, show_spinner=False)
def numbers(K: int, N: int, truth: str, alpha: float) -> dict:
    """Everything the page shows, cached per slider state."""
    return lesson.dirichlet_lesson(K, N, truth, alpha)


@st.cache_resource(max_entries=64, show_spinner=False)
def posterior_figure(K: int, N: int, truth: str, alpha: float):
    """The truth, counts and estimate (figure, data), built once per slider state and
    shared read-only by every session."""
    out = numbers(K, N, truth, alpha)
    return figures.dirichlet_figure(out["p_true"], out["counts"], out["view"]["estimate"], alpha)


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep_figure(K: int, N: int, truth: str, alpha: float):
    """The expected l1 error over alpha (figure, data), built once per slider state."""
    out = numbers(K, N, truth, alpha)
    return figures.alpha_sweep_figure(out["sweep"], alpha, lesson.NAMED_ALPHAS, out["best"])


steps = lesson_header(
    __file__,
    ["Laplace is a Dirichlet posterior mean", "The bias toward uniform"],
    about="Laplace is a Dirichlet posterior mean",
)


@st.fragment
def lesson_view() -> None:
    """The Dirichlet prior's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with notes:
            if steps.show(1):
                st.markdown(
                    "A feature with **K** categories has an unknown PMF $p^*$. We see **N** "
                    "draws, counts $n_1, \\dots, n_K$, and put a symmetric Dirichlet(α, …, α) "
                    "prior on $p^*$: α phantom observations of every category. Conjugacy gives "
                    "a Dirichlet posterior with parameters $n_v + \\alpha$, whose mean is the "
                    "smoothed estimate:"
                )
                st.latex(  # two lines: one is wider than a 230 px column (1280 px, sidebar)
                    r"\begin{aligned} \hat p_v &= \mathbb{E}[p_v \mid n] \\"
                    r" &= \frac{n_v + \alpha}{N + K\alpha} \end{aligned}"
                )
                st.markdown(
                    "α = 1 is **Laplace**, α = ½ is **KT** (Krichevsky–Trofimov), α = 0.1 is "
                    "**Lidstone**'s usual choice; α → 0 is the unsmoothed n / N, α → ∞ the "
                    "uniform 1/K. " + lesson.NOTATION  # one paragraph: step 1 fits 900 px
                )
        with steps.controls():
            K = st.select_slider(
                "Categories K", K_CHOICES, **page_setting("dirichlet_K", 50, K_CHOICES)
            )
            N = st.select_slider(
                "Observations N", N_CHOICES, **page_setting("dirichlet_N", 50, N_CHOICES)
            )
            alpha = st.select_slider(
                "Pseudo-count α",
                lesson.ALPHA_CHOICES,
                format_func="{:g}".format,  # α = 10 as the text writes it, not "10.0"
                **page_setting("dirichlet_alpha", 1.0, lesson.ALPHA_CHOICES),
            )
            sparse, flat = (f"{lesson.TRUTH_CONCENTRATION[kind]:g}" for kind in ("sparse", "flat"))
            truth = st.radio(
                "The true PMF",
                TRUTHS,
                horizontal=True,
                **page_setting("dirichlet_truth", TRUTHS[0], TRUTHS),
                help=f"sparse: drawn from Dirichlet({sparse}), a few categories hold most mass; "
                f"flat: from Dirichlet({flat}), close to uniform.",
            )
        setting = (int(K), int(N), truth, float(alpha))
        out = numbers(*setting)
        view, sweep, at = out["view"], out["sweep"], out["at"]
        with notes:
            if steps.show(2):
                st.markdown(
                    "The prior's share of the estimate is Kα / (N + Kα), and the estimate is "
                    "biased toward uniform by"
                )
                st.latex(r"\mathbb{E}[\hat p] - p^* = \frac{K\alpha}{N + K\alpha}")
                st.latex(r"\times \left(\tfrac{1}{K} - p^*\right)")
                # computed: a fixed "the bias reaches 2(K-1)/(N+K)" read 0.98 beside 0.609
                st.markdown(lesson.bias_text(K, N, alpha, float(sweep["bias_l1"][at])))
        st.caption("Textbook section 18.3.4.1; paper section 4 (Theorem 2).")

    with right:
        c1, c2, c3 = st.columns(3)
        c1.metric(
            "Prior's share Kα/(N+Kα)",
            lesson.format_share(view["prior_share"]),
            help="The shrinkage ρ = m / (N + m) of the next lessons, with m = Kα.",
        )
        c2.metric("l1 error of this estimate", lesson.format_l1(view["l1"]))
        best, edge, about = lesson.best_alpha_text(sweep, out["best"])
        c3.metric(lesson.BEST_ALPHA_LABEL, best, edge, "off", help=about, delta_arrow="off")
        if steps.show(1):
            fig, data = steps.fitted(posterior_figure(*setting))
            show_figure(fig, data, "dirichlet-posterior-mean")
        if steps.show(2):
            fig, data = steps.fitted(sweep_figure(*setting))
            show_figure(fig, data, "dirichlet-alpha-sweep")
            with notes:  # in the presenter mode, beside the figure: the footer stays on screen
                expected, bias = (
                    lesson.format_l1(sweep[k][at]) for k in ("expected_l1", "bias_l1")
                )
                st.caption(
                    f"Expected l1 error over {lesson.SWEEP_REPS} fresh samples of N = {N}: at "
                    f"α = {alpha:g} it is {expected}; the l1 size of the bias alone is {bias}."
                )


lesson_view()
page_footer(__file__, settings=True)
