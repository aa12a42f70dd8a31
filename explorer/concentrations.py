"""The Concentrations page's numbers: HEB's learned m per pair, from the counts made once.

The fits are cached per process on the working data's key; the page only lays them out.
Clamp and fallback thresholds are read from the engine, never restated.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.loading import WorkingData
from heb.aode import AODE
from heb.concentration import M_MAX, M_MIN
from heb.diagnostics import name_pairs
from heb.figures.style import escape as escape_label
from heb.figures.style import wrap_title
from heb.nb import NaiveBayes

__all__ = [
    "CLAMP_HELP",
    "CONVERGED_HELP",
    "ITERATIONS_HELP",
    "FALLBACK_HELP",
    "SMOOTHER",
    "aode_concentrations",
    "aode_grid",
    "level_tick_labels",
    "nb_concentrations",
    "pair_column_config",
    "pair_frame",
    "summary_numbers",
]

#: the page's model choices and their NaiveBayes smoothers
SMOOTHER = {"HEB-M": "heb-m", "HEB-U": "heb-u"}
_N0 = NaiveBayes().get_params()["n0"]
CLAMP_HELP = f"m hit the clamp [{M_MIN:g}, {M_MAX:,.0f}]: the evidence kept rising past it."
#: the iterations' and convergence's help: a clamped pair reads 0 iterations, converged
#: (the trial: "clamped at 10,000 with 0 iterations and converged ticked" looked wrong)
ITERATIONS_HELP = (
    "Iterations of the pair's fit; 0 where m is clamped (the evidence's slope at the "
    "clamp settles it, no iteration needed) or falls back."
)
CONVERGED_HELP = (
    "Whether the fit reached the evidence's maximum in [m_min, m_max]: the iterations met "
    "their tolerance, or the slope at a clamp showed the maximum is there (0 iterations)."
)
FALLBACK_HELP = f"Fewer than {_N0:g} observed rows: m is set to K_f (Laplace's strength)."


def pair_column_config() -> dict:
    """Column settings of a table of per-pair diagnostics (in memory or a large file):
    short headers with their meaning as help, one format per column (m as 10,000.00 /
    526.58 / 0.01; %.4g gave 10000 and 4.154e+04 beside 526.6), and the class and feature
    names pinned, so the pair stays in view where the grid scrolls sideways (1024 px)."""
    return {
        "class name": st.column_config.TextColumn("class", pinned=True),
        "feature name": st.column_config.TextColumn("feature", pinned=True),
        "parent name": st.column_config.TextColumn("parent"),
        "child name": st.column_config.TextColumn("child"),
        "level name": st.column_config.TextColumn("level"),
        "m": st.column_config.NumberColumn(format="%,.2f"),
        "rho": st.column_config.NumberColumn(format="%.3f"),
        "N_c": st.column_config.NumberColumn(format="%,d"),
        "K_f": st.column_config.NumberColumn(format="%,d"),
        "iterations": st.column_config.NumberColumn("iter.", help=ITERATIONS_HELP),
        "converged": st.column_config.CheckboxColumn("conv.", help=CONVERGED_HELP),
        "log_evidence": st.column_config.NumberColumn(
            "log ev.", help="The pair's log evidence at its m.", format="%,.2f"
        ),
        "fallback": st.column_config.CheckboxColumn("fallback", help=FALLBACK_HELP),
        "n_nodes": st.column_config.NumberColumn("nodes"),
        "hierarchy_used": st.column_config.CheckboxColumn("kept the hierarchy"),
        "hierarchy_weight": st.column_config.NumberColumn("tree's weight", format="%.3f"),
    }


@st.cache_resource(max_entries=16, show_spinner=False)
def nb_concentrations(key: str, smoother: str, _work: WorkingData) -> dict:
    """HEB's per-pair diagnostics, from the counts already made (no recount)."""
    return NaiveBayes(smoother=smoother).fit_counts(_work.table).concentrations_


@st.cache_resource(max_entries=4, show_spinner=False)
def aode_concentrations(key: str, _work: WorkingData) -> dict:
    """HEB-AODE's per-(class, parent, child) diagnostics on the working rows."""
    return AODE(smoother="heb").fit(_work.codes, _work.y).concentrations_


def pair_frame(diag: dict, work: WorkingData) -> pd.DataFrame:
    """The diagnostics with class and feature names (:func:`heb.diagnostics.name_pairs`)."""
    return name_pairs(diag, work.class_names, work.feature_names)


def _number(value: float) -> str:
    """A concentration for display: 12,000 / 81.7 / 0.034."""
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def summary_numbers(frame: pd.DataFrame) -> dict[str, str]:
    """Pairs, median m, clamped low / high, fallbacks, max iterations and non-converged."""
    return {
        "Pairs": f"{len(frame):,}",
        "Median m": _number(frame["m"].median()),
        "Clamped low / high": (
            f"{(frame['clamped'] == 'low').sum()} / {(frame['clamped'] == 'high').sum()}"
        ),
        "Fallback m = K_f": f"{int(frame['fallback'].sum())}",
        "Max iterations": f"{int(frame['iterations'].max())}",
        "not converged": f"{int((~frame['converged'].astype(bool)).sum())}",
    }


def aode_grid(frame: pd.DataFrame, class_index: int) -> pd.DataFrame:
    """HEB-AODE's m of one class as a (super-parent x child) table."""
    chosen = frame[frame["class"] == class_index]
    return chosen.pivot_table(
        index="parent name", columns="child name", values="m", aggfunc="first"
    )


#: characters of a level's tick label that share the heatmap's width (about 650 px for
#: the plot beside the sidebar at 1280 px, 7 px a character)
LEVEL_TICK_CHARS = 90


def level_tick_labels(names: list[str]) -> list[str]:
    """HEB-H's level names as the heatmap's x ticks (escaped): "A<br>given B", "C<br>(top
    level of A)", each line wrapped to its column's share of the width (on amazon's four
    levels "(top level of ROLE_TITLE)" ran into its neighbour)."""
    width = max(10, LEVEL_TICK_CHARS // max(len(names), 1))
    return [
        wrap_title(
            escape_label(name).replace(" given ", "<br>given ").replace(" (top", "<br>(top"),
            width,
        )
        for name in names
    ]
