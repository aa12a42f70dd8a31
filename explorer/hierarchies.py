"""Category hierarchies in the app: detected on the Dataset page, declared there, used by HEB-H.

Detected hierarchies are functional dependencies A -> B between encoded columns (every
value of A with one value of B, up to a share of violating rows:
:func:`heb.hierarchy_sources.functional_dependencies` on the working codes). The user
confirms one, or declares a parent column or a prefix rule on a labelled column. The
declarations of the current dataset live in ``st.session_state["hierarchies"]`` (dataset
spec -> canonical text) and, through :func:`explorer.state.run_settings`, in the URL and
in :class:`heb.evaluate.RunSettings`; every HEB-H run of the app (Compare, the CV cache,
Concentrations) reads them from there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer import state
from explorer.commands import UNTYPABLE, bench_command, draw_command
from explorer.display import show_table
from explorer.errors import escape, show_error
from explorer.loading import WorkingData
from heb.evaluate.hierarchy_specs import (
    MAX_DECLARED,
    Declared,
    binned_columns,
    command_line_options,
    flat_declarations,
    hierarchies_text,
    left_out_notes,
    parse_hierarchies,
    resolve_levels,
    untypable,
)
from heb.hierarchical_nb import level_concentrations
from heb.hierarchy_sources import dependency_chains, functional_dependencies
from heb.nb import NaiveBayes

__all__ = [
    "BINNED_CHAIN",
    "COMMAND_LINE",
    "READ_AS_CATEGORIES",
    "SELF_PARENT",
    "TOLERANCES",
    "binned_chain_notes",
    "concentration_hierarchies",
    "flat_notes",
    "declare",
    "declared",
    "dependency_frame",
    "detected",
    "labels_of",
    "level_frame",
    "level_names",
    "levels_summary",
    "parse_lengths",
    "remove",
    "show_hierarchies",
    "work_hierarchies",
]

#: said of a parent chain over binned numbers: its groups are bins, not values
BINNED_CHAIN = "{declared}: {columns} binned as numbers, so this hierarchy groups bins, not values."
#: what an upload's reader adds to a note on binned numbers (its Categorical columns)
READ_AS_CATEGORIES = (
    " Read {them} as categories (the button below, or Categorical columns above) to use "
    "{its} values."
)
#: says what the command under it does (the code box below it)
COMMAND_LINE = (
    "HEB-M against HEB-H with these hierarchies on the command line, on this data with the "
    "bins, missing values and rows set here and Compare's folds (`heb fit --method heb-h` "
    "takes the same `--hierarchy` options):"
)
#: the violating-row tolerances offered (Goodman-Kruskal lambda >= 1 - tolerance)
TOLERANCES = (0.0, 0.01, 0.05, 0.1)
#: the refusal of a column declared as its own parent (said before the engine's rule runs)
SELF_PARENT = "A column cannot be its own parent: pick another parent column for {feature!r}."


# --------------------------------------------------------------------------- logic
@st.cache_data(max_entries=16, show_spinner="Looking for functional dependencies...")
def detected(key: str, tolerance: float, _work: WorkingData) -> list:
    """The functional dependencies of the working codes (cached on the data key)."""
    return functional_dependencies(_work.codes, _work.feature_names, tolerance=tolerance)


def dependency_frame(dependencies: list, chosen: tuple[Declared, ...] = ()) -> pd.DataFrame:
    """One row per dependency: child, parent, their K, violating share, whether in use."""
    used = {(d.feature, d.parents[0]) for d in chosen if d.parents}
    return pd.DataFrame(
        {
            "child A": [d.child_name for d in dependencies],
            "parent B": [d.parent_name for d in dependencies],
            "K of A": [d.n_child for d in dependencies],
            "K of B": [d.n_parent for d in dependencies],
            "violating rows": [d.violating_rows for d in dependencies],
            "violating share": [d.share for d in dependencies],
            "in use": [(d.child_name, d.parent_name) in used for d in dependencies],
        }
    )


def declared(spec: str | None = None) -> tuple[Declared, ...]:
    """The hierarchies declared for dataset ``spec`` (default: the current one)."""
    spec = spec or st.session_state["data_spec"]
    return parse_hierarchies(st.session_state.setdefault("hierarchies", {}).get(spec, ""))


def _store(items: tuple[Declared, ...] | list[Declared]) -> None:
    spec = st.session_state["data_spec"]
    st.session_state.setdefault("hierarchies", {})[spec] = hierarchies_text(items)


def declare(item: Declared) -> None:
    """Add (or replace, for its feature) a declaration of the current dataset."""
    current = [d for d in declared() if d.feature != item.feature]
    if len(current) >= MAX_DECLARED:
        raise ValueError(f"At most {MAX_DECLARED} hierarchies can be declared.")
    _store([*current, item])


def remove(feature: str) -> None:
    """Forget the declaration of ``feature`` (a widget callback)."""
    _store([d for d in declared() if d.feature != feature])


def labels_of(work: WorkingData, f: int) -> list | None:
    """The labels of column f's codes, or None when they are bins of a number."""
    pre = work.preprocessor
    name = pre.feature_names_out_[f]
    return list(pre.categories_[f]) if pre.kinds_.get(name) != "numeric" else None


def work_hierarchies(work: WorkingData, items: tuple[Declared, ...] | None = None):
    """The declarations' levels on the working codes, and a note per one left out."""
    items = declared() if items is None else items
    return resolve_levels(items, work.feature_names, work.codes, lambda f: labels_of(work, f))


def left_out(work: WorkingData, items: tuple[Declared, ...]) -> dict[Declared, str]:
    """The declarations that make no levels on the working codes (a column left out or
    not there, the target, a prefix of binned numbers), each with its note: the command
    line refuses them, so its command leaves them out (:func:`explorer.commands.bench_command`)."""
    return left_out_notes(items, work.feature_names, lambda f: labels_of(work, f))


def levels_summary(
    work: WorkingData, items: tuple[Declared, ...], levels: dict | None = None
) -> pd.DataFrame:
    """Per declaration: the number of nodes at each level, leaves first (``levels``: the
    declarations' :func:`work_hierarchies`, when the caller has them)."""
    levels = work_hierarchies(work, items)[0] if levels is None else levels
    rows = []
    for item in items:
        if item.feature not in work.feature_names:
            continue
        f = work.feature_names.index(item.feature)
        found = levels.get(f)
        sizes = [int(work.table.n_categories[f])]
        sizes += [int(np.unique(level).size) for level in found or []]
        rows.append(
            {
                "hierarchy": item.describe(),
                "nodes per level (leaves first)": " -> ".join(f"{n:,}" for n in sizes),
                "used": found is not None,
            }
        )
    return pd.DataFrame(rows, columns=["hierarchy", "nodes per level (leaves first)", "used"])


def binned_chain_notes(
    work: WorkingData, items: tuple[Declared, ...], upload: bool = False
) -> list[str]:
    """A note per parent chain that groups binned numbers (:data:`BINNED_CHAIN`), with
    the upload's Categorical columns that read them as values (``upload``)."""
    notes = []
    for item in items:
        binned = binned_columns(item, work.feature_names, lambda f: labels_of(work, f))
        if binned:
            one = len(binned) == 1
            them, its = ("it", "its") if one else ("them", "their")
            columns = " and ".join(repr(c) for c in binned) + (" is" if one else " are")
            notes.append(
                BINNED_CHAIN.format(declared=item.describe(), columns=columns)
                + (READ_AS_CATEGORIES.format(them=them, its=its) if upload else "")
            )
    return notes


def binned_declared_columns(work: WorkingData, items: tuple[Declared, ...]) -> list[str]:
    """The columns the declarations read as labels that are binned numbers here (a
    prefix's feature, a parent chain's binned columns), each once, in declaration order:
    what the upload's Categorical columns would read as values."""
    position = {str(name): f for f, name in enumerate(work.feature_names)}
    out: list[str] = []
    for item in items:
        if item.prefix:
            f = position.get(item.feature)
            columns = [item.feature] if f is not None and labels_of(work, f) is None else []
        else:
            columns = binned_columns(item, work.feature_names, lambda f: labels_of(work, f))
        out += [c for c in columns if c not in out]
    return out


def _read_as_categories(spec: str, columns: list[str]) -> None:
    """Callback: add ``columns`` to the upload's Categorical columns (every page, the link)."""
    upload = st.session_state["uploads"][spec]
    kept = [c for c in upload.get("categorical", []) if c not in columns]
    upload["categorical"] = [*kept, *columns]


def read_as_categories_label(columns: list[str]) -> str:
    """The button's label naming ``columns`` (escaped); every name in quotes when one holds
    a comma, so ``x,y`` does not read as two columns."""
    names = [escape(c, limit=40) for c in columns]
    if any("," in c for c in columns):
        names = [f"“{name}”" for name in names]
    return f"Read {', '.join(names)} as categories"


def _read_as_categories_button(work: WorkingData, items: tuple[Declared, ...]) -> None:
    """On an upload: one button reading every binned column of the declarations as
    categories, where the notes above said to add them to Categorical columns."""
    spec = str(st.session_state.get("data_spec", ""))
    columns = binned_declared_columns(work, items)
    if not columns or spec not in st.session_state.get("uploads", {}):
        return
    st.button(
        read_as_categories_label(columns),
        key="hier_read_categories",
        on_click=_read_as_categories,
        args=(spec, columns),
        icon=":material/label:",
        help="Adds them to Categorical columns above (each value its own category, not "
        "binned), for every page and in the link.",
    )


def flat_notes(
    work: WorkingData, items: tuple[Declared, ...], levels: dict | None = None
) -> list[str]:
    """A note per declaration whose levels make no groups (:func:`flat_declarations`):
    HEB-H is HEB-M on that column, which the table's node counts alone left to be worked
    out (``levels``: the declarations' :func:`work_hierarchies`, when the caller has them)."""
    levels = work_hierarchies(work, items)[0] if levels is None else levels
    return [
        f"{item.describe()}: no groups ({why}), so HEB-H is HEB-M on it."
        for item, why in flat_declarations(items, levels, work.feature_names)
    ]


def parse_lengths(text: str) -> tuple[int, ...]:
    """Prefix lengths typed as ``"3"`` or ``"3, 1"``; a ValueError in one sentence."""
    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise ValueError("Type the prefix lengths as whole numbers, finest first: 3 or 3, 1.")
    return tuple(int(p) for p in parts)


def concentration_hierarchies(work: WorkingData) -> tuple[tuple[Declared, ...], str]:
    """The hierarchies to show HEB-H's concentrations on, and where they come from.

    The declared (or confirmed) ones if any, ``"declared"``; else the chains of the
    dependencies detected at the Dataset page's tolerance, ``"detected"``; else
    ``((), "none")``.
    """
    items = declared()
    if items:
        return items, "declared"
    tolerance = float(st.session_state.get("fd_tolerance", TOLERANCES[0]))
    chains = dependency_chains(detected(work.key, tolerance, work))
    names = work.feature_names
    found = tuple(
        Declared(names[child], parents=tuple(names[p] for p in chain))
        for child, chain in chains.items()
    )
    return found, ("detected" if found else "none")


def level_names(item: Declared, depth: int) -> list[str]:
    """What each level's concentration is about, leaves first: ``"A given B"``, ...,
    ``"C (top level of A)"`` (the class's split over the top groups)."""
    steps = item.parents or [f"{item.feature} prefix {n}" for n in item.prefix]
    if len(steps) != depth:  # a chain cut short on these codes: levels by number
        steps = [f"{item.feature} level {j}" for j in range(1, depth + 1)]
    chain = [item.feature, *steps]
    below = [f"{chain[j]} given {chain[j + 1]}" for j in range(depth)]
    return [*below, f"{chain[depth]} (top level of {item.feature})"]


@st.cache_resource(max_entries=8, show_spinner=False)
def _fitted_levels(key: str, text: str, _work: WorkingData, _levels: dict) -> dict:
    model = NaiveBayes(smoother="heb-h", hierarchies=_levels).fit_counts(_work.table)
    return level_concentrations(model)


def level_frame(work: WorkingData, items: tuple[Declared, ...]) -> tuple[pd.DataFrame, list[str]]:
    """HEB-H's learned concentration at every level of every hierarchy, per class.

    Returns the table (one row per class, feature and level; ``row`` numbers the
    (feature, level) rows of the heatmap, ``level name`` says which) and the notes of the
    declarations left out.
    """
    levels, notes = work_hierarchies(work, items)
    columns = [
        "class name", "feature name", "level", "level name", "n_nodes", "N_c", "m", "rho",
        "hierarchy_used", "hierarchy_weight", "fallback", "clamped", "iterations", "converged",
        "row",
    ]  # fmt: skip
    if not levels:
        return pd.DataFrame(columns=columns), notes
    diag = _fitted_levels(work.key, hierarchies_text(items), work, levels)
    frame = pd.DataFrame(diag)
    by_feature = {work.feature_names.index(d.feature): d for d in items}
    depth = {f: len(levels[f]) for f in levels}
    names = {f: level_names(by_feature[f], depth[f]) for f in levels}
    frame["class name"] = [work.class_names[c] for c in frame["class"]]
    frame["feature name"] = [work.feature_names[f] for f in frame["feature"]]
    pairs = list(zip(frame["feature"], frame["level"], strict=True))
    frame["level name"] = [names[f][lv] for f, lv in pairs]
    frame["row"] = pd.factorize(pd.Series(pairs))[0]
    return frame[["class", "feature", *columns]], notes


# --------------------------------------------------------------------------- widgets
def _confirm(dependencies: list) -> None:
    picked = st.session_state.get("fd_pick")
    found = [dep for dep in dependencies if str(dep) == picked]
    if found:
        item = Declared(found[0].child_name, parents=(found[0].parent_name,))
        _try(lambda: declare(item))


def _declare_from_form(names: list[str]) -> None:
    feature = st.session_state.get("hier_feature")
    if st.session_state.get("hier_kind") == "parent column":
        parent = st.session_state.get("hier_parent")
        if parent == feature:
            st.session_state["hier_error"] = ValueError(SELF_PARENT.format(feature=feature))
            return
        _try(lambda: declare(Declared(feature, parents=(parent,))))
    else:
        _try(lambda: declare(Declared(feature, prefix=parse_lengths(st.session_state["hier_L"]))))


def _try(action) -> None:
    try:
        action()
    except ValueError as exc:
        st.session_state["hier_error"] = exc


#: said when no dependency is found: which columns the search leaves out, and why (an
#: ID determines every other column trivially, a single value parents nothing)
NO_DEPENDENCY = (
    "No column here is a function of another at that tolerance. Left out of the search: "
    "a column with fewer than 2 rows per value as the child (an ID-like column determines "
    "every other one trivially, so it tells nothing) and a column of a single value as "
    "the parent."
)


def _detected_view(work: WorkingData) -> None:
    tolerance = st.select_slider(
        "Violating rows allowed (share of the rows a blind guess of B gets wrong)",
        TOLERANCES,
        format_func=lambda t: f"{t:.0%}",
        **state.page_setting("fd_tolerance", 0.0, TOLERANCES),
    )
    dependencies = detected(work.key, float(tolerance), work)
    if not dependencies:
        st.markdown(NO_DEPENDENCY)
        return
    show_table(
        dependency_frame(dependencies, declared()),
        column_config={
            "violating share": st.column_config.NumberColumn(format="percent"),
        },
        key="fd_table",
    )
    left, right = st.columns([3, 1])
    left.selectbox(
        "A detected hierarchy", [str(d) for d in dependencies], key="fd_pick",
        label_visibility="collapsed",
    )  # fmt: skip
    right.button(
        "Use it for HEB-H", on_click=_confirm, args=(dependencies,), key="fd_confirm",
        icon=":material/account_tree:",
    )  # fmt: skip


def _parent_default(names: list[str]) -> None:
    """The parent picker's value: kept while it is another column of this dataset, else the
    first column other than the feature (a form does not rerun on a pick, so a self-parent
    chosen by hand is refused when declared; a dataset switch kept the old value)."""
    feature = st.session_state.get("hier_feature")
    feature = feature if feature in names else names[0]
    parent = st.session_state.get("hier_parent")
    if parent not in names or parent == feature:
        others = [name for name in names if name != feature]
        st.session_state["hier_parent"] = others[0] if others else feature


def _declare_view(work: WorkingData) -> None:
    names = work.feature_names
    with st.form("hier_form", border=True):
        st.markdown("**Declare a hierarchy**")
        left, middle, right = st.columns(3)
        left.selectbox("Feature (the leaves)", names, key="hier_feature")
        middle.radio("Its parent is", ["parent column", "prefix of the label"], key="hier_kind")
        _parent_default(names)
        # a form sends its widgets together, so both stay shown: each says which choice
        # reads it (the prefix box beside "parent column" looked like part of it)
        right.selectbox("Parent column (if a parent column)", names, key="hier_parent")
        right.text_input(
            "Prefix lengths, finest first (if a prefix)", "3", key="hier_L",
            help="ZIP 02139 with lengths 3, 1: 02139 -> 021 -> 0. Read only when the "
            "parent is a prefix of the label.",
        )  # fmt: skip
        st.form_submit_button("Declare", on_click=_declare_from_form, args=(names,))


def _in_use_view(work: WorkingData) -> None:
    items = declared()
    if not items:
        st.markdown("No hierarchy declared: HEB-H runs as HEB-M on this dataset until one is.")
        return
    levels, notes = work_hierarchies(work, items)
    show_table(levels_summary(work, items, levels), key="hier_in_use")
    upload = str(st.session_state.get("data_spec", "")).startswith("upload:")
    if upload:  # a prefix refused on a binned number: the upload's reader can label it
        hint = READ_AS_CATEGORIES.format(them="it", its="its")
        notes = [note + hint if "is binned, not labelled" in note else note for note in notes]
    binned = binned_chain_notes(work, items, upload)
    for note in [*notes, *binned, *flat_notes(work, items, levels)]:
        st.caption(escape(note))
    if upload:
        _read_as_categories_button(work, items)
    spec = st.session_state["data_spec"]
    record = st.session_state.get("uploads", {}).get(spec)
    gone = left_out(work, items)
    command = bench_command(spec, record, ["HEB-M", "HEB-H"], state.run_settings(), gone)
    # else the command would run HEB-H as HEB-M
    if command_line_options([item for item in items if item not in gone]):
        st.caption(COMMAND_LINE)
        draw_command(command)
    else:
        for item in untypable(items):
            st.caption(escape(UNTYPABLE.format(item.describe())))
    left, right = st.columns([3, 2])
    left.selectbox(  # its label is hidden: a screen reader's name for what Remove removes
        "Declared hierarchy to remove", [d.feature for d in items], key="hier_remove_pick",
        label_visibility="collapsed",
    )  # fmt: skip
    right.button(
        "Remove", key="hier_remove", icon=":material/delete:",
        on_click=lambda: remove(st.session_state.get("hier_remove_pick")),
    )  # fmt: skip


def show_hierarchies(work: WorkingData) -> None:
    """The Dataset page's section: detected hierarchies, declaring one, those in use."""
    st.header("Category hierarchies (for HEB-H)")
    st.markdown(
        "HEB-H borrows a category's prior mean from its **parent group** instead of the "
        "flat pooled marginal: a ZIP code from its prefix, a role from its role family. "
        "Below: column pairs where every value of A comes with one value of B "
        "(a functional dependency A → B, B coarser), found in the encoded rows, with the "
        "share of rows that break it. Use one, or declare your own; HEB-H on the Compare "
        "page (and in a copied link) uses those in use."
    )
    if "hier_error" in st.session_state:
        show_error(st.session_state.pop("hier_error"), "declaring the hierarchy")
    _detected_view(work)
    # the form takes the page's width: in half of it, its three columns cut the feature
    # picker to "zip_coc" and wrapped every label
    _declare_view(work)
    st.markdown("**In use for HEB-H**")
    _in_use_view(work)
