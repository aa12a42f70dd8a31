"""Lesson 5: double counting and calibration (textbook 18.4.1; paper section 5.4)."""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # `streamlit run pages/...`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamlit as st

try:  # inside the app: route a direct visit to this URL through app.py
    from pages.common import ensure_entry_point
except ImportError:  # run on its own, without the app
    pass
else:
    ensure_entry_point()

from heb import teaching
from heb import teaching_figures as tfig

DATASETS = {
    "synthetic": "Synthetic: the Naive Bayes assumption holds",
    "breast-cancer": "breast-cancer (built-in)",
    "known-truth": "known-truth (built-in, 3 classes)",
    "zip-codes": "zip-codes (built-in, IDs and ZIP codes)",
}
METRICS = {"ece": "ECE", "log_loss": "log-loss", "brier": "Brier"}


@st.cache_data(max_entries=8, show_spinner="Loading the data...")
def dataset(name: str):
    """Codes, labels and names of a lesson dataset, and its most informative feature."""
    data = teaching.calibration_data(name)
    data["best_feature"] = teaching.most_informative_feature(data["codes"], data["y"])
    return data


@st.cache_data(max_entries=64, show_spinner=False)
def sweep(name: str, feature: int):
    data = dataset(name)
    return teaching.double_counting_sweep(data["codes"], data["y"], feature, max_copies=10)


@st.cache_data(max_entries=64, show_spinner=False)
def comparison(name: str, feature: int, copies: int):
    data = dataset(name)
    return teaching.calibration_comparison(data["codes"], data["y"], feature, copies)


st.set_page_config(layout="wide")
st.title("Lesson 5 · Calibration and double counting")
left, right = st.columns([1, 2], gap="large")

with left:
    name = st.selectbox("Data", list(DATASETS), format_func=DATASETS.get)
    try:
        data = dataset(name)
    except Exception as exc:  # noqa: BLE001 - a loader error becomes a message
        st.error(f"This dataset could not be loaded: {exc}")
        st.stop()
    features = list(range(len(data["feature_names"])))
    feature = st.selectbox(
        "Feature to duplicate",
        features,
        index=data["best_feature"],
        format_func=lambda f: data["feature_names"][f],
        key=f"calibration_feature_{name}",
        help="Default: the feature with the largest mutual information with the class.",
    )
    copies = st.slider("Copies k of that feature", 1, 10, 4)
    st.markdown(
        "Naive Bayes adds one log-likelihood ratio per feature. Copy a feature k times and "
        "its evidence is counted k times (textbook 18.4.1):"
    )
    st.latex(
        r"\begin{aligned}\log\frac{P(1\mid x)}{P(0\mid x)} ={}& \log\frac{P(1)}{P(0)} \\"
        r"&+ k\,\log\frac{P(x_1\mid 1)}{P(x_1\mid 0)} + \cdots\end{aligned}"
    )
    st.markdown(
        "The predicted class rarely flips, but the confidence inflates: the **expected "
        "calibration error** (ECE, the gap between confidence and accuracy over 10 bins) "
        "grows. Three remedies act at different places:"
    )
    st.markdown(
        "- **HEB-M** learns the smoothing of each PMF (the estimator itself);\n"
        "- **sqrt-MI weights** scale each feature's log-ratio by "
        "$w_f = \\sqrt{\\mathrm{MI}(X_f; Y)}$ "
        "(HEB-M+GR);\n"
        "- **post-hoc calibration** refits the output on held-out rows: Platt "
        "σ(a·s + b) on the log-odds s, isotonic regression, or temperature "
        "softmax(log p / T)."
    )
    st.markdown(
        "The paper calls smoothing and calibration *complementary*. The verdict on the "
        "right is computed on the data at hand: train on half the rows, calibrate on a "
        "quarter, score the last quarter."
    )
    st.caption("Textbook 18.4 and 18.4.1; paper sections 2 (calibration of NB) and 5.4.")

with right:
    tab_double, tab_fixes = st.tabs(["Double counting", "Remedies side by side"])
    with tab_double:
        result = sweep(name, int(feature))
        at = copies - 1
        c1, c2, c3 = st.columns(3)
        c1.metric(
            "ECE with k copies",
            f"{result['ece'][at]:.3f}",
            f"{result['ece'][at] - result['ece'][0]:+.3f} vs 1 copy",
            delta_color="inverse",
        )
        c2.metric("Accuracy", f"{result['accuracy'][at]:.3f}")
        c3.metric("Mean confidence", f"{result['mean_confidence'][at]:.3f}")
        st.plotly_chart(tfig.double_counting_figure(result, copies), key="calibration_double")
        curves = {"1 copy": result["reliability"][1]}
        if copies > 1:
            curves[f"{copies} copies"] = result["reliability"][copies]
        st.plotly_chart(
            tfig.reliability_figure(curves, "Reliability diagram, Laplace smoothing"),
            key="calibration_reliability",
        )
    with tab_fixes:
        compared = comparison(name, int(feature), int(copies))
        table = compared["table"]
        metric = st.radio("Compare on", list(METRICS), format_func=METRICS.get, horizontal=True)
        verdict = teaching.complementarity(table, metric)
        label = METRICS[metric]
        st.markdown(
            f"**With {copies} copies:** Laplace {label} {verdict['laplace']:.3f}. Best "
            f"upstream fix: {verdict['upstream'][0]} {verdict['upstream'][1]:.3f}. Best "
            f"post-hoc: {verdict['post_hoc'][0]} {verdict['post_hoc'][1]:.3f}. Both: "
            f"{verdict['combined'][0]} {verdict['combined'][1]:.3f}. "
            + (
                "**Complementary here**: the combination beats either alone."
                if verdict["complementary"]
                else "**Not complementary here**: combining them does not beat the best "
                "single remedy."
            )
        )
        st.plotly_chart(tfig.calibration_bars_figure(table, metric), key="calibration_bars")
        chosen = ["Laplace", "HEB-M+GR", "Laplace + temperature", verdict["combined"][0]]
        st.plotly_chart(
            tfig.reliability_figure(
                {m: compared["reliability"][m] for m in dict.fromkeys(chosen)},
                f"Reliability with {copies} copies",
            ),
            key="calibration_fix_reliability",
        )
        temperatures = table.dropna(subset=["temperature"])
        st.caption(
            "Fitted temperatures: "
            + ", ".join(
                f"{m} T = {t:.2f}"
                for m, t in zip(temperatures["model"], temperatures["temperature"], strict=True)
            )
            + " (T > 1 softens over-confident posteriors)."
        )
        st.dataframe(
            table.drop(columns=["model", "calibration", "temperature"]).style.format(
                {c: "{:.4f}" for c in ("ece", "log_loss", "brier", "accuracy")}
            ),
            hide_index=True,
        )
