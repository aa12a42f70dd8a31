"""Lesson 3: the Type-II ML evidence curve of one (class, feature) pair (paper eq. 5)."""

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

DATASET = "A pair of the current dataset"
TYPED = "Counts I type"
MARGINAL = "pooled marginal (HEB-M)"
UNIFORM = "uniform (HEB-U)"
#: bars per PMF in the grouped chart (5 series each: wider bars read on a projector)
MAX_BARS = 20
DEFAULT_TEXT = ", ".join(str(int(v)) for v in teaching.EXAMPLE_COUNTS)


def working_data():
    """The current dataset's codes from the app's shared state, or None without the app."""
    try:
        from pages import common
    except ImportError:
        return None
    common.init_state()
    return common.current_codes()


def _array(values: tuple | None):
    return None if values is None else np.array(values)


@st.cache_data(max_entries=128, show_spinner=False)
def lesson(counts: tuple, prior: tuple | None, m_whatif: float, pooled: tuple | None):
    """Everything the page shows, cached on the (small) inputs."""
    return teaching.evidence_lesson(
        _array(counts), _array(prior), m_whatif, _array(pooled), max_bars=MAX_BARS
    )


@st.cache_data(max_entries=16, show_spinner=False)
def showcase(key: str, _table) -> tuple[int, int]:
    """The pair to open on, per dataset (``key``: the dataset's sha256 and settings)."""
    return teaching.showcase_pair(_table)


def _tuple(values) -> tuple | None:
    return None if values is None else tuple(values.tolist())


st.set_page_config(layout="wide")
st.title("Lesson 3 · The evidence curve")
left, right = st.columns([1, 2], gap="large")

pair = st.session_state.get("evidence_pair")
with left:
    source = st.radio("Counts from", [DATASET, TYPED], horizontal=True, key="evidence_source")
    data = working_data() if source == DATASET else None
    if source == DATASET and data is None:
        st.info("The dataset pages are not available here: type a count vector instead.")
        source = TYPED
    if source == DATASET:
        if pair is not None and pair != st.session_state.get("_evidence_pair_seen"):
            st.session_state["_evidence_pair_seen"] = pair  # a pair sent by Concentrations
            if 0 <= pair.get("class", -1) < data.n_classes:
                st.session_state["evidence_class"] = pair["class"]
            if 0 <= pair.get("feature", -1) < len(data.feature_names):
                st.session_state["evidence_feature"] = pair["feature"]
        classes = list(range(data.n_classes))
        features = list(range(len(data.feature_names)))
        valid = (
            st.session_state.get("evidence_class") in classes
            and st.session_state.get("evidence_feature") in features
        )
        if not valid:  # first visit or another dataset: open on an interior maximiser
            c0, f0 = showcase(data.key, data.table)
            st.session_state["evidence_class"], st.session_state["evidence_feature"] = c0, f0
        c = st.selectbox(
            "Class", classes, format_func=lambda i: data.class_names[i], key="evidence_class"
        )
        f = st.selectbox(
            "Feature",
            features,
            format_func=lambda i: f"{data.feature_names[i]} (K = {data.table.n_categories[i]})",
            key="evidence_feature",
        )
        prior_kind = st.radio("Prior mean t", [MARGINAL, UNIFORM], horizontal=True)
        counts, prior, pooled = teaching.pair_counts(
            data.table, c, f, "marginal" if prior_kind == MARGINAL else "uniform"
        )
        labels = [str(v) for v in data.preprocessor.categories_[f]]
        what = f"class **{data.class_names[c]}**, feature **{data.feature_names[f]}**"
    else:
        text = st.text_input("Counts n₁, …, n_K", DEFAULT_TEXT, help="Whole numbers.")
        try:
            counts = teaching.parse_counts(text)
        except ValueError as exc:
            st.error(str(exc))
            st.stop()
        labels = [f"v{v + 1}" for v in range(counts.size)]
        prior, pooled = None, None  # uniform
        what = "your counts, uniform prior mean (HEB-U)"
    m_whatif = st.select_slider(
        "What-if concentration m",
        teaching.M_WHATIF_CHOICES,
        value=1000.0,
        help="Smooth with this m instead of HEB's and watch the held-out log-loss move.",
        format_func=teaching.format_m,
    )
    st.markdown(
        "HEB gives each (class, feature) pair a Dirichlet(m t) prior with mean t and "
        "concentration m, and learns m by **Type-II maximum likelihood**: the m under "
        "which the observed counts are most probable once θ is integrated out (paper eq. 5):"
    )
    st.latex(
        r"\begin{aligned}\ell(m) ={}& \log\frac{\Gamma(m)}{\Gamma(N + m)} \\"
        r"&+ \sum_{v=1}^{K} \log\frac{\Gamma(n_v + m t_v)}{\Gamma(m t_v)}\end{aligned}"
    )
    st.latex(r"\hat\theta_v = \frac{n_v + \hat m\, t_v}{N + \hat m}")
    st.markdown(
        "m → 0 gives the unsmoothed n / N, m → ∞ the prior mean t; with t uniform, m = K "
        "is Laplace. The maximiser is clamped to [10⁻², 10⁴], and a pair with N < 10 rows "
        "uses m = K (Algorithm 1, step 8). The held-out curve checks the choice: smooth "
        "with m on some of the pair's rows, score the rest."
    )
    st.caption("Paper section 3.1 (eq. 5-6, Algorithm 1); Minka (2000).")

with right:
    try:
        out = lesson(_tuple(counts), _tuple(prior), float(m_whatif), _tuple(pooled))
    except ValueError as exc:
        st.error(str(exc))
        st.stop()
    curve = out["curve"]
    st.markdown(f"Counts of {what}: N = {curve.n_samples:,} rows over K = {curve.n_categories:,}.")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("HEB's m", teaching.format_m(curve.m_hat))
    c2.metric("Shrinkage ρ = m/(N+m)", f"{out['rho']:.2f}")
    c3.metric("Laplace's m = K", f"{curve.n_categories:,}")
    note = {"low": "at 10⁻²", "high": "at 10⁴", "none": "no"}
    c4.metric("Clamped?", note[curve.clamped] if not curve.flat else "flat l(m)")
    if curve.fallback:
        st.warning(
            f"N = {curve.n_samples} < 10 rows: HEB uses m = K = {curve.n_categories} "
            f"(the evidence's own maximiser would be {teaching.format_m(curve.m_argmax)})."
        )
    st.plotly_chart(tfig.evidence_figure(curve, float(m_whatif)), key="evidence_curve")
    shown = out["shown"]
    pmfs = {name: values[shown] for name, values in out["pmfs"].items()}
    st.plotly_chart(tfig.pmf_bars_figure(pmfs, [labels[i] for i in shown]), key="evidence_pmfs")
    if shown.size < curve.n_categories:
        st.caption(f"Showing the {shown.size} most frequent of {curve.n_categories:,} categories.")
    if out["heldout"] is None:
        st.info("The held-out curve needs at least two rows in this pair.")
    else:
        st.plotly_chart(tfig.heldout_figure(out["heldout"], out["marks"]), key="evidence_heldout")
        marks = out["marks"]
        move = marks["what-if m"][1] - marks["HEB's m"][1]
        st.markdown(
            f"Moving m from HEB's {teaching.format_m(curve.m_hat)} to "
            f"{teaching.format_m(m_whatif)} changes the held-out "
            f"log-loss by **{move:+.3g}** nats per row"
            + (
                " (the prior mean is refitted without the held-out rows)."
                if pooled is not None
                else "."
            )
        )
