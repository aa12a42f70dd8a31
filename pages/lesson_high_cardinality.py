"""Lesson 4: high cardinality, Theorem 1 and Corollary 1 (paper sections 4 and 5.2)."""

from __future__ import annotations

import streamlit as st

from explorer.display import show_figure, show_table
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import page_setting
from heb.figures.lessons import high_cardinality as figures
from heb.lessons import high_cardinality as lesson
from heb.lessons.common import M_MIN, SPARSITY_HELP, format_m

ensure_entry_point()

ALPHA_DIR_CHOICES = [0.1, 0.3, 0.5, 1.0, 2.0]
K_CHOICES = [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
N_CHOICES = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
REPS = {"200 (as the paper)": 200, "50 (faster)": 50}


@st.cache_data(max_entries=16, show_spinner="Simulating the paper's grid...")
def grid(alpha_dir: float, reps: int):
    """The paper's 4 x 4 grid of (K, N), cached per alpha_dir and repetitions."""
    return lesson.theorem1_grid(alpha_dir, reps=reps)


@st.cache_data(max_entries=128, show_spinner=False)
def chosen(K: int, N: int, alpha_dir: float, reps: int):
    """The chosen (K, N) alone."""
    return lesson.theorem1_grid(alpha_dir, reps=reps, K_values=[K], N_values=[N])


@st.cache_data(max_entries=32, show_spinner=False)
def vertex(N: int):
    """Corollary 1 over K for the chosen N."""
    return lesson.vertex_errors(K_CHOICES, N)


@st.cache_resource(max_entries=64, show_spinner=False)
def grid_figure(K: int, N: int, alpha_dir: float, reps: int):
    """The paper's grid with your (K, N) (figure, data), built once per setting and shared
    read-only by every session."""
    return figures.theorem1_figure(grid(alpha_dir, reps), chosen(K, N, alpha_dir, reps))


#: the height of step 2's two side-by-side figures (pixels) outside the presenter mode:
#: each is about 240 px wide, where both legends wrap to two rows
PAIR_HEIGHT = 460
#: their height in the presenter mode: half the figure column wide (about 240 px at
#: 1024), their two-line titles, wrapped legends and turned K/N labels take more than
#: :func:`explorer.presenter.presenter_height` allows for a whole column: at 400 px the
#: plots kept 190 and 141 px at 1024; 520 put the step's footer 98 px below a 1440 x 900
#: screen; 420 is the most that keeps it on the screen
PRESENTER_PAIR_HEIGHT = 420


@st.cache_resource(max_entries=16, show_spinner=False)
def reduction_figure(alpha_dir: float, reps: int, height: int = PAIR_HEIGHT):
    """HEB-U's reduction over the grid (figure, data): your K and N do not change it."""
    reduction = lesson.theorem1_reduction(grid(alpha_dir, reps))
    return figures.reduction_figure(reduction, height)


@st.cache_resource(max_entries=32, show_spinner=False)
def vertex_figure(N: int, height: int = PAIR_HEIGHT):
    """Corollary 1 over K for your N (figure, data): your K does not change it."""
    return figures.vertex_figure(vertex(N), height)


steps = lesson_header(
    __file__,
    ["Theorem 1: one variance, two biases", "Corollary 1 and the grid"],
    about="Theorem 1 and Corollary 1",
)


@st.fragment
def lesson_view() -> None:
    """High cardinality's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()

    with left:
        notes = steps.notes()
        with notes:
            if steps.show(1):
                st.markdown(
                    "The paper's synthetic study (section 5.2): draw a PMF p* ~ Dirichlet(α_dir) "
                    "over K categories, observe N draws, smooth, and measure ‖θ̂ − p*‖₁. Small "
                    "α_dir makes p* **sparse**: a few categories hold the mass, as ZIP codes or "
                    "IDs do."
                )
        with steps.controls():
            alpha_dir = st.select_slider(
                "Sparsity of the truth α_dir",
                ALPHA_DIR_CHOICES,
                help=SPARSITY_HELP,
                format_func="{:g}".format,  # α_dir = 2 as the caption writes it, not "2.0"
                **page_setting("cardinality_alpha_dir", 0.3, ALPHA_DIR_CHOICES),
            )
            K = st.select_slider(
                "Your K (categories)", K_CHOICES, **page_setting("cardinality_K", 500, K_CHOICES)
            )
            N = st.select_slider(
                "Your N (observations)", N_CHOICES, **page_setting("cardinality_N", 200, N_CHOICES)
            )
            reps = st.radio(
                "Repetitions",
                list(REPS.values()),
                format_func={n: label for label, n in REPS.items()}.get,
                horizontal=True,
                **page_setting("cardinality_reps", 200, list(REPS.values())),
            )
        with notes:
            if steps.show(1):
                st.markdown(
                    "**Theorem 1.** Both estimators pay the same sampling term and differ in bias:"
                )
                st.latex(  # two lines: on one it was cut at "+ b" in a 230 px column
                    r"\begin{aligned} \mathbb{E}\,\|\hat\theta - p^*\|_1"
                    r" &\le \sqrt{\tfrac{K-1}{N}} \\ &\quad + \text{bias} \end{aligned}"
                )
                st.latex(r"\text{bias}_{\mathrm{HEB}} = \rho_N\, \|\bar\theta - p^*\|_1")
                st.latex(r"\text{bias}_{\mathrm{Lap}} = \frac{2(K-1)}{N+K}")
                st.markdown(  # ρ_N is an expectation: what the data set is m̂
                    "ρ_N = E[m̂/(N+m̂)], where m̂ is Type-II ML's concentration from the "
                    "counts: HEB's bias adapts to the data. Laplace's is fixed by K and N and "
                    "reaches order 1 once K ≈ N."
                )
            if steps.show(2):
                st.markdown(
                    "**Corollary 1**: if every draw lands in one category "
                    f"(p* = e₁), l(m) decreases for all m, Type-II ML returns m_min = "
                    f"{format_m(M_MIN)}, and HEB's error 2m_min(1 − 1/K)/(N + m_min) is tiny while "
                    "Laplace's is 2(K − 1)/(N + K)."
                )
        if steps.show(2):  # the grid's pattern: with the grid (step 2)
            # the paper's pattern, then the bars' own numbers: a fixed caption described
            # alpha_dir = 0.3 and 1 only, whatever alpha_dir the bars were drawn for
            reduction = lesson.theorem1_reduction(grid(float(alpha_dir), reps))
            st.caption(
                "Paper: Theorem 1, Theorem 2, Corollary 1, Figure 2; it reports HEB-U "
                f"separating from Laplace from K/N ≈ {lesson.SEPARATION:g} at α_dir = 0.3 "
                "and the two overlapping at α_dir = 1. "
                + lesson.separation_text(reduction, float(alpha_dir))
            )

    with right:
        setting = (int(K), int(N), float(alpha_dir), int(reps))
        full = grid(float(alpha_dir), reps)
        mine = chosen(*setting)
        mine_wide = lesson.theorem1_reduction(mine).iloc[0]
        c1, c2, c3 = st.columns(3)
        # three significant digits: 0.003 beside 0.002 read as a 33 % cut, not the 6 % shown
        # "Laplace, K = 500, N = 200" and "HEB-U" named no measure ("0.867 of what?") and,
        # one label on two lines beside one on one, set the values at two heights on a
        # 1024 px projector: the measure in each label, your (K, N) in its help
        where = f"at your K = {K}, N = {N} (the stars in the figure), over {reps} draws of p*"
        c1.metric(
            "Laplace: mean l1 error",
            lesson.format_error(mine_wide["laplace"]),
            help=f"Laplace's mean l1 error ‖θ̂ − p*‖₁ {where}.",
        )
        c2.metric(
            "HEB-U: mean l1 error",
            lesson.format_error(mine_wide["heb_u"]),
            help=f"HEB-U's mean l1 error ‖θ̂ − p*‖₁ {where}.",
        )
        c3.metric("HEB-U's reduction", lesson.format_reduction(mine_wide["reduction"]))
        K_grid = ", ".join(str(k) for k in lesson.THEOREM1_K)
        N_grid = ", ".join(str(n) for n in lesson.THEOREM1_N)
        if steps.show(1):
            fig, data = steps.fitted(grid_figure(*setting))
            show_figure(fig, data, "theorem1-grid")
            st.caption(
                f"Lines: the paper's grid K ∈ {{{K_grid}}} × N ∈ {{{N_grid}}}, {reps} "
                "repetitions per cell; stars: your (K, N)."
            )
        if not steps.show(2):
            return
        # drawn at their own height, presenter mode included (not steps.fitted's, which
        # sizes a figure for the whole column)
        height = PRESENTER_PAIR_HEIGHT if steps.presenting else PAIR_HEIGHT
        col_a, col_b = st.columns(2)
        with col_a:
            fig, data = reduction_figure(*setting[2:], height)
            show_figure(fig, data, "theorem1-reduction")
        with col_b:
            fig, data = vertex_figure(setting[1], height)
            show_figure(fig, data, "corollary1-vertex")
        with st.expander("The grid's numbers: HEB-U against Laplace"):
            # the errors at 3 decimals (0.08 stood under 0.084); a format for every
            # number column: a Styler shows any other at 6 decimals (0.002000)
            formats = {"K/N": "{:g}", "Laplace": "{:.3f}", "HEB-U": "{:.3f}"}
            show_table(
                lesson.reduction_table(lesson.theorem1_reduction(full)),
                number_format=formats | {"reduction %": "{:.1f}"},
            )


lesson_view()
page_footer(__file__, settings=True)
