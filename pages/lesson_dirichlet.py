"""Lesson 2: Laplace smoothing is a Dirichlet posterior mean (textbook 18.3.4.1)."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # `streamlit run pages/...`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import streamlit as st

try:  # inside the app: route a direct visit to this URL through app.py
    from pages.common import ensure_entry_point
except ImportError:  # run on its own, without the app
    pass
else:
    ensure_entry_point()

from heb import teaching
from heb import teaching_figures as tfig

#: pseudo-counts with a name (Lidstone's default, Krichevsky-Trofimov, Laplace)
NAMED_ALPHAS = {"Lidstone": 0.1, "KT": 0.5, "Laplace": 1.0}
ALPHA_CHOICES = [0.001, 0.01, 0.03, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
#: the sweep's grid holds every slider value, so the slider's point lies on the curve
SWEEP_ALPHAS = np.unique(np.concatenate([np.logspace(-3, 1, 41), ALPHA_CHOICES]))


@st.cache_data(max_entries=64, show_spinner=False)
def example(K: int, N: int, truth: str):
    """The hidden PMF, one sample of counts, and the alpha sweep (cached per slider state)."""
    p_true, counts = teaching.dirichlet_example(K, N, truth)
    sweep = teaching.alpha_sweep(p_true, N, SWEEP_ALPHAS, reps=300)
    return p_true, counts, sweep


st.set_page_config(layout="wide")
st.title("Lesson 2 · Laplace is a Dirichlet posterior mean")
left, right = st.columns([1, 2], gap="large")

with left:
    st.markdown(
        "A feature with **K** categories has an unknown PMF $p^*$. We see **N** draws, "
        "counts $n_1, \\dots, n_K$, and put a symmetric Dirichlet(α, …, α) prior on $p^*$: "
        "α phantom observations of every category. Conjugacy gives a Dirichlet posterior "
        "with parameters $n_v + \\alpha$, whose mean is the smoothed estimate:"
    )
    st.latex(r"\hat p_v = \mathbb{E}[p_v \mid n] = \frac{n_v + \alpha}{N + K\alpha}")
    st.markdown(
        "α = 1 is **Laplace**, α = ½ is **KT** (Krichevsky–Trofimov), α = 0.1 is "
        "**Lidstone**'s usual choice; α → 0 is the unsmoothed n / N, α → ∞ the uniform 1/K."
    )
    K = st.select_slider("Categories K", [2, 5, 10, 20, 50, 100, 200], value=50)
    N = st.select_slider("Observations N", [0, 5, 10, 20, 50, 100, 200, 500, 1000], value=50)
    alpha = st.select_slider("Pseudo-count α", ALPHA_CHOICES, value=1.0)
    truth = st.radio(
        "The true PMF",
        ["sparse", "flat"],
        horizontal=True,
        help="sparse: drawn from Dirichlet(0.3), a few categories hold most mass; "
        "flat: from Dirichlet(5), close to uniform.",
    )
    st.markdown(
        "The prior's share of the estimate is Kα / (N + Kα), and the estimate is biased "
        "toward uniform by"
    )
    st.latex(
        r"\mathbb{E}[\hat p] - p^* = \frac{K\alpha}{N + K\alpha}\left(\tfrac{1}{K} - p^*\right)"
    )
    st.markdown(
        "With K comparable to N, Laplace's K phantom counts outweigh the data: on a "
        "sparse truth the bias reaches 2(K−1)/(N+K) in l1."
    )
    st.caption("Textbook section 18.3.4.1; paper section 4 (Theorem 2).")

with right:
    p_true, counts, sweep = example(K, N, truth)
    view = teaching.dirichlet_view(p_true, counts, alpha)
    at = int(np.flatnonzero(np.isclose(SWEEP_ALPHAS, alpha))[0])
    c1, c2, c3 = st.columns(3)
    c1.metric("Prior's share Kα/(N+Kα)", f"{view['prior_share']:.0%}")
    c2.metric("l1 error of this estimate", f"{view['l1']:.3f}")
    c3.metric(
        "Best α for this K, N (expected l1)",
        f"{SWEEP_ALPHAS[int(np.argmin(sweep['expected_l1']))]:.3g}",
    )
    st.plotly_chart(
        tfig.dirichlet_figure(p_true, counts, view["estimate"], alpha), key="dirichlet_bars"
    )
    st.plotly_chart(tfig.alpha_sweep_figure(sweep, alpha, NAMED_ALPHAS), key="dirichlet_sweep")
    st.caption(
        f"Expected l1 error over 300 fresh samples of N = {N}: at α = {alpha:g} it is "
        f"{sweep['expected_l1'][at]:.3f}; the l1 size of the bias alone is "
        f"{sweep['bias_l1'][at]:.3f}."
    )
