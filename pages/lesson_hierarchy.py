"""Lesson 7: borrowing along a hierarchy (HEB-H): a sparse ZIP code under three smoothers."""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from explorer.display import show_figure, show_table
from explorer.errors import escape
from explorer.presenter import lesson_header
from explorer.routing import ensure_entry_point, page_footer
from explorer.state import page_setting
from heb.figures.lessons import hierarchy as figures
from heb.lessons import hierarchy as lesson
from heb.synthetic_hierarchy import SCENARIOS as SYNTHETIC_SCENARIOS
from heb.text import and_list

ensure_entry_point()

ROW_CHOICES = [50, 100, 200, 500, 1000, 2000]
SCENARIOS = {
    "hierarchy": "Classes differ along the tree (regions, prefixes)",
    "flat": "No signal in the tree (HEB-M's own model)",
}
SEEDS = list(range(10))
#: the figures' tabs (lazy: only the open one is built)
TABS = ("The sparse code", "The hierarchy", "Concentration per level")
#: one format per column of the concentrations table (m beside the Concentrations page's:
#: "1796.914" stood beside "10000" and "15.008")
CONCENTRATION_COLUMNS = {
    "nodes": st.column_config.NumberColumn(format="%,d"),
    "learned m": st.column_config.NumberColumn(format="%,.2f"),
    "true concentration": st.column_config.NumberColumn(format="%,.2f"),
    "tree's weight": st.column_config.NumberColumn(format="%.3f"),
}
#: the prefix table's whole rows
ROWS_COLUMN = {"rows (class 0)": st.column_config.NumberColumn(format="%,d")}


@st.cache_data(max_entries=64, show_spinner="Sampling and fitting...")
def study(n_per_class: int, scenario: str, seed: int) -> dict:
    """Every number of the page, cached per control state."""
    return lesson.hierarchy_lesson(n_per_class=n_per_class, scenario=scenario, seed=seed)


@st.cache_resource(max_entries=64, show_spinner=False)
def lesson_figure(which: str, setting: tuple):
    """One of the page's figures (figure, data), built once per ``setting`` (the arguments
    of :func:`study`) and shared read-only by every session: ``"leaf"``, ``"prefix"``,
    ``"tree"`` or ``"concentrations"``."""
    out = study(*setting)
    if which == "leaf":
        return figures.leaf_figure(out["leaf_table"], out["labels"][out["leaf"]])
    if which == "prefix":
        return figures.prefix_figure(out["prefix_table"])
    if which == "tree":
        return figures.tree_figure(out)
    return figures.concentration_figure(out["concentrations"])


def explanation(unseen: list[str]) -> None:
    """How HEB-H borrows from a code's parent, against HEB-M and Laplace (step 2);
    ``unseen``: the prefix's codes with no row in any class (HEB-M's exact 0s)."""
    if not steps.show(2):
        return
    st.markdown(
        "HEB-H goes down the tree: node n's class-c share of its parent p has a Dirichlet "
        "prior around w, n's pooled share of p shrunk to an even split; m is learned per "
        "class and level ℓ by Type-II ML:"
    )
    st.latex(
        r"\hat\theta_{c,n} = \hat\theta_{c,p}\,\frac{N_{c,n} + m_\ell\, w_n}{N_{c,p} + m_\ell}"
    )
    st.markdown(
        # not "times its share w": the factor is m w / (N_c,p + m), far below w where m is
        # small against the prefix's rows (the flat scenario's code level)
        "A code with no row of class c still gets its prefix's class-c estimate times "
        "m_ℓ w / (N_c,p + m_ℓ): nearly w if m_ℓ is large against N_c,p, far less if "
        "small. HEB-M gives it"
    )
    st.latex(r"\hat\theta_{c,v} = \frac{N_{c,v} + m\, \bar t_v}{N_c + m}")
    st.markdown(
        # "every code" read as every code, where Laplace gives a code of N_c,v rows
        # (N_c,v + 1) / (N_c + K): 1 / (N_c + K) is the unseen code's alone
        "with t̄ the flat pooled marginal, and Laplace gives each such code 1 / (N_c + K). "
        "HEB-H averages the tree and HEB-M per class by their posterior weights."
        # the presenter's figure drew HEB-M at exactly 0 with no word of why (outside the
        # presenter mode the caption under the figure says it, unseen_note)
        + (f" {zero_sentence(unseen)}" if unseen and steps.presenting else "")
    )


def zero_sentence(unseen: list[str]) -> str:
    """Why HEB-M's line drops to exactly 0 (the presenter's step 2, beside the figure):
    the codes with no row in any class (named up to three), whose t̄ is 0."""
    if len(unseen) <= 3:
        named = and_list([escape(code) for code in unseen])
        where = f"code {named}" if len(unseen) == 1 else f"codes {named}"
    else:
        where = f"{len(unseen)} of these codes"
    return (
        f"HEB-M is 0 at {where}: no row in any class, so t̄ = 0 there (a classifier "
        "skips such a code: no veto)."
    )


def probability_formats(table) -> dict:
    """The prefix table's probabilities (truth and each smoother's estimate) to three
    significant figures (:func:`heb.lessons.hierarchy.format_probability`: four
    decimals read HEB-M's 0.00003 as 0.0000); the cells keep their numbers."""
    return {name: lesson.format_probability for name in table.columns[2:]}


def unseen_note(unseen: list[str]) -> str:
    """Why HEB-M's estimate of a code with no row in any class is exactly 0."""
    codes = and_list([escape(code) for code in unseen])
    one = len(unseen) == 1
    subject, it = ("code", "it") if one else ("codes", "them")
    has = "it has" if one else "they have"
    # the classifier leaves an unseen code out under HEB-H too (a log column of 0,
    # heb.hierarchy): "HEB-H still gives it a share" read as if HEB-H's classifier used it
    return (
        f"HEB-M gives {subject} {codes} exactly 0: {has} no row in any class, so the "
        f"pooled marginal t̄ is 0 there. HEB-H's estimate still gives {it} a share of the "
        "prefix; a classifier, under either smoother, leaves such a code out of a "
        "prediction (absent evidence)."
    )


def concentrations_view(conc, setting: tuple, notes) -> None:
    """The learned concentration per level of the tree, and what it says (in ``notes``:
    beside the figure in the presenter mode)."""
    fig, data = steps.fitted(lesson_figure("concentrations", setting))
    show_figure(fig, data, "hierarchy-concentrations")
    with notes:
        weight = lesson.weight_text(conc)
        st.markdown(
            "Small m: the classes split that level differently (signal); large m: they "
            f"share the pooled split. {lesson.clamp_text(conc)}"
            + (f" {weight}" if weight else "")
            # the table it explains is drawn outside the presenter's steps only
            + (
                ""
                if steps.presenting
                else " 'tree's weight': the tree's share of the estimate; HEB-M has the rest."
            )
        )
    if not steps.presenting:  # the table of every number: outside the presenter's steps
        # the flat truth has no concentration per level: its column read "None" six times
        shown = conc.dropna(axis=1, how="all").round(3)
        config = {k: v for k, v in CONCENTRATION_COLUMNS.items() if k in shown.columns}
        show_table(shown, column_config=config, key="hier_conc_table")


def tabs_view(out: dict, setting: tuple, label: str, notes) -> None:
    """The figures, one tab each."""
    # lazy tabs: only the open one is built (a rows step redrew every tab's figures,
    # two tabs of them out of sight: 1.0-1.5 s a step)
    tab_leaf, tab_tree, tab_m = steps.tabs(list(TABS), "hier_tab")
    if steps.is_open(tab_leaf):
        with tab_leaf:
            if steps.show(1):
                fig, data = steps.fitted(lesson_figure("leaf", setting))
                show_figure(fig, data, "hierarchy-leaf")
            if steps.show(2):
                fig, data = steps.fitted(lesson_figure("prefix", setting))
                show_figure(fig, data, "hierarchy-prefix")
                # not in the presenter mode: under the figure or in the text column it put
                # the step's footer 70 - 95 px below a 1440 x 900 screen
                if out["unseen"] and not steps.presenting:
                    st.caption(unseen_note(out["unseen"]))
                if not steps.presenting:
                    show_table(
                        out["prefix_table"],
                        number_format=probability_formats(out["prefix_table"]),
                        column_config=ROWS_COLUMN,
                        key="hier_prefix_table",
                    )
    if steps.is_open(tab_tree):
        with tab_tree:
            if steps.show(3):
                fig, data = steps.fitted(lesson_figure("tree", setting))
                show_figure(fig, data, "hierarchy-tree")
                with notes:
                    st.markdown(
                        f"Click a region or a prefix to zoom in; code {label}'s path is "
                        "in colour. Every code's class PMF is the product of the splits "
                        "along its path: region of the root, prefix of the region, code "
                        "of the prefix."
                    )
    if steps.is_open(tab_m):
        with tab_m:
            if steps.show(4):
                concentrations_view(out["concentrations"], setting, notes)


steps = lesson_header(
    __file__,
    [
        "One sparse code",
        "From the parent",
        "The hierarchy",
        "m per level",
    ],
    about="beyond the paper (its section 5.6)",
)


@st.fragment
def lesson_view() -> None:
    """The hierarchy lesson's controls and figures: a control reruns this fragment alone."""
    left, right = steps.columns()
    with left:
        notes = steps.notes()
        with notes:
            if steps.show(1):
                st.markdown(
                    "HEB-M shrinks every category toward one flat pool, the marginal over all "
                    "categories. When categories carry a **hierarchy** (a ZIP code sits in a "
                    "prefix, the prefix in a region) a sparse code can borrow from its own "
                    "**parent** instead: codes of one prefix behave alike, codes far apart need "
                    "not."
                )
        with steps.controls():
            scenario = st.radio(
                "True model",
                list(SCENARIOS),
                format_func=SCENARIOS.get,
                **page_setting("hier_scenario", "hierarchy", list(SCENARIOS)),
            )
            n_rows = st.select_slider(
                "Rows per class", ROW_CHOICES, **page_setting("hier_rows", 200, ROW_CHOICES)
            )
            seed = st.select_slider("Random draw", SEEDS, **page_setting("hier_seed", 0, SEEDS))
        setting = (int(n_rows), str(scenario), int(seed))
        with notes:
            explanation(study(*setting)["unseen"])
        if not steps.presenting:  # the source: outside the presenter's screen
            truth = SYNTHETIC_SCENARIOS[scenario]
            known = (
                "known per-level concentrations"
                if "concentrations" in truth
                else f"one known concentration, {truth['concentration']:g}, over the codes"
            )
            st.caption(
                "Generator: heb.synthetic_hierarchy (4 regions × 5 prefixes × 10 codes, "
                f"{known}); estimator: heb.hierarchy.fit_nested, a nested Dirichlet "
                "prior as in MacKay and Peto (1995), which the paper's section 5.6.3 "
                "points to."
            )

    with right:
        out = study(*setting)
        label = out["labels"][out["leaf"]]
        l1 = out["l1"].set_index("smoother")["mean l1 error"]
        cols = st.columns(len(l1))
        for col, (name, value) in zip(cols, l1.items(), strict=True):
            col.metric(f"{name}: mean l1 error", f"{value:.3f}")
        # in the presenter mode beside the figure (but on step 2, whose text fills that column)
        with notes if not steps.show(2) else nullcontext():
            st.markdown(
                f"The sparse code is **{label}**: the likeliest code (class 0) with at most one "
                f"class-0 row. The l1 error above is over all {len(out['labels'])} codes."
            )
        tabs_view(out, setting, label, notes)


lesson_view()
page_footer(__file__, settings=True)
