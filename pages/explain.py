"""Explain a prediction: one row's log-odds, feature by feature, under each smoother."""

from __future__ import annotations

import numpy as np
import streamlit as st
from sklearn.pipeline import Pipeline

from explorer import commands, loading, report, state
from explorer import explain as ex
from explorer.display import show_figure, show_table
from explorer.errors import escape, guard, show_error, show_info
from explorer.hierarchies import declared, left_out
from explorer.lazy_sections import lazy_expander
from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header
from heb import registry
from heb.data import pipeline_io
from heb.data.preprocess import MISSING_LABEL
from heb.evaluate.hierarchy_specs import hierarchies_text, takes_hierarchies
from heb.figures.explain import contribution_figure, contribution_frame, contribution_min_width
from heb.figures.style import escape as figure_escape

ensure_entry_point()
AUTO = "(automatic)"
#: session name of a row number the row box refused (said once, on the next run)
REFUSED_ROW = "_explain_refused_row"
#: session key of the model files' expander (built only while open)
MODEL_FILES_OPEN = "model_files_open"
SMOOTHER_LABELS = {name: entry.label for name, entry in registry.SMOOTHERS.items()}


def _next_disagreement(rows: np.ndarray) -> None:
    """Callback: jump to the next row (after the current one) the smoothers disagree on
    (``rows``: their numbers in the table, ascending)."""
    current = int(st.session_state.get("explain_row", 0))
    later = rows[rows > current]
    st.session_state["explain_row"] = int(later[0] if later.size else rows[0])


def _take_row(widget: str, last: int) -> None:
    """Callback of the row box: keep a row number of the table; refuse any other, putting
    the box back to the row explained (a box with bounds kept showing the refused number
    while the page explained another row)."""
    asked = st.session_state[widget]
    if asked is not None and 0 <= asked <= last:
        st.session_state["explain_row"] = int(asked)
    else:
        st.session_state[REFUSED_ROW] = "" if asked is None else f"{asked:,}"
        st.session_state[widget] = st.session_state["explain_row"]


def pick_row(work: loading.WorkingData, fitted: ex.Fitted) -> tuple[int, int]:
    """The row to explain: its number in the table (the out-of-fold CSV's ``row``), which
    the visitor types, and its index among the working rows."""
    table_rows = work.table_rows
    # every row of the table can be asked for, a row outside the subsample too (it is
    # said so below): "There is no row 49,999" was refused of a 50,000-row file
    n_rows, last = table_rows.size, work.last_row
    row_args = state.page_setting("explain_row", int(table_rows[0]))
    if not 0 <= st.session_state["explain_row"] <= last:  # a link or another dataset's row
        st.session_state["explain_row"] = st.session_state[row_args["key"]] = int(table_rows[0])
    refused = st.session_state.pop(REFUSED_ROW, None)
    if refused is not None:
        st.error(
            (f"There is no row {refused}" if refused else "Type a row number")
            + f": the table's rows are numbered 0 to {last:,}. Still explaining row "
            f"{st.session_state['explain_row']:,}.",
            icon=":material/error:",
        )
    disagree = ex.disagreeing_rows(fitted)
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    row_args.update(on_change=_take_row, args=(row_args["key"], last))
    left.number_input(f"Row of the table (0 to {last:,})", step=1, **row_args)
    if disagree.size:
        right.button(
            "Next row where the smoothers disagree",
            on_click=_next_disagreement,
            args=(table_rows[disagree],),
            icon=":material/skip_next:",
            key="explain_next_disagreement",
        )
    # "rows get a different class from at least two of the chosen smoothers" read as two
    # smoothers differing from something else (the true class?)
    st.caption(
        f"On {disagree.size:,} of {n_rows:,} rows the chosen smoothers do not all predict "
        "the same class. The models are fitted on every row (this one included)."
    )
    asked = int(st.session_state["explain_row"])
    index = int(np.searchsorted(table_rows, asked))
    after = index == n_rows  # past the last row used: the last one is shown
    index = min(index, n_rows - 1)
    if int(table_rows[index]) != asked:
        shown = int(table_rows[index])
        show_info(
            f"Row {asked:,} of the table is not among the {n_rows:,} rows used here (rows "
            "without a target are left out, and so are those outside the stratified "
            f"subsample of a larger table); showing row {shown:,}, the "
            f"{'last' if after else 'next'} one that is."
        )
    return int(table_rows[index]), index


def pick_classes(work: loading.WorkingData, fitted: ex.Fitted, row: int) -> tuple[int, int]:
    """Target and reference classes: by default the last smoother's top two for the row."""
    names = work.class_names
    options = [AUTO, *names]
    left, right = st.columns(2)
    target_name = left.selectbox(
        "Explain the odds of class (A)",
        options,
        **state.page_setting("explain_target", AUTO, options),
    )
    # B offers every class but A: A against itself would be no comparison (a B equal to
    # the A just chosen falls back to automatic, the likeliest other class)
    others = [name for name in options if name != target_name or name == AUTO]
    reference_name = right.selectbox(
        "against class (B)", others, **state.page_setting("explain_reference", AUTO, others)
    )
    target = None if target_name == AUTO else names.index(target_name)
    reference = None if reference_name == AUTO else names.index(reference_name)
    chosen = fitted.classes_to_explain(work.codes[row], target, reference)
    automatic = [
        f"{role} = **{escape(names[c])}**"
        for role, c, asked in zip("AB", chosen, (target, reference), strict=True)
        if asked is None
    ]
    if automatic:  # "(automatic)" names no class: the table's A and B would be unknown
        last = ex.label(list(fitted.models)[-1])
        st.caption(
            f"Automatic: {' and '.join(automatic)}, by {escape(last)}'s probabilities for "
            "this row (A its likeliest class, B the likeliest other)."
        )
    return chosen


def verdict(explanations: dict, frame, class_names: list[str]) -> str:
    """One sentence: do the smoothers agree, and which feature moved the decision most."""
    predicted = {ex.label(n): class_names[int(e.predicted[0])] for n, e in explanations.items()}
    features = frame.iloc[1:]
    top = features.loc[features["spread"].idxmax()] if len(features) else None
    where = (
        f" The feature the smoothers disagree on most is **{escape(top['feature'])} = "
        f"{escape(top['value'])}** (its contribution spans {top['spread']:.2f} nats)."
        if top is not None and top["spread"] > 0
        else ""
    )
    if len(set(predicted.values())) == 1:
        only = escape(next(iter(predicted.values())))
        return f"Every chosen smoother predicts **{only}**: smoothing did not change it.{where}"
    parts = ", ".join(f"{escape(m)} → **{escape(c)}**" for m, c in predicted.items())
    return f"**Smoothing moved the decision**: {parts}.{where}"


def fit_command(work: loading.WorkingData, smoother: str) -> None:
    """The ``heb fit`` command writing the model the download saves (its default values)."""
    spec = st.session_state["data_spec"]
    upload = st.session_state.get("uploads", {}).get(spec)
    settings = state.run_settings()
    gone = left_out(work, declared()) if takes_hierarchies(smoother) else {}
    rows = (work.codes.shape[0], work.n_rows_total)
    commands.draw_fit_command(commands.fit_command(spec, upload, smoother, settings, rows, gone))


def model_files(fitted: ex.Fitted, work: loading.WorkingData, dataset) -> None:
    """Save a fitted model with this page's preprocessing as JSON; load a file back and
    score the current rows with it (a pipeline file encodes their raw values itself)."""
    section = lazy_expander(
        "Save or load a fitted model (JSON, no pickle)", MODEL_FILES_OPEN, icon=":material/save:"
    )
    if section is None:
        return
    with section:
        choice = st.selectbox(
            "Model to save", list(fitted.models), format_func=ex.label, key="explain_save"
        )
        st.download_button(
            "Download the fitted model (JSON)",
            lambda: ex.model_json(
                fitted, choice, work.feature_names, work.class_names, work.preprocessor
            ),
            file_name=f"nb-{choice}.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
            key="explain_save_json",
        )
        st.caption(
            "The counts, parameters and smoothed tables, with this page's preprocessing "
            "(column kinds, categories, bin cut points, missing-value handling), documented "
            "in docs/model_json.md. `heb.data.pipeline_io.load(path)` gives back a scikit-learn "
            "pipeline that scores raw rows of a table like this one: "
            "`pipe.predict_proba(frame)`; on the command line, "
            f"`{ex.SCORE_COMMAND.format(choice)}`."
            + ex.fitted_rows_note(work.codes.shape[0], work.n_rows_total)
        )
        fit_command(work, choice)
        file = st.file_uploader("Load a model file", type=["json"], key="explain_load")
        if file is not None:
            try:
                model = pipeline_io.loads(file.getvalue())
            except ValueError as exc:
                show_error(exc, "reading the model file")
                return
            st.markdown(ex.loaded_summary(model))
            rows, accuracy = None, None
            if isinstance(model, Pipeline):
                with guard("reading the dataset's rows"):
                    rows = ex.raw_rows(dataset, work)
                if rows is None:
                    return
                if absent := ex.missing_columns(model, rows):
                    show_info(
                        f"The file's pipeline reads {len(absent):,} column(s) the current "
                        f"dataset lacks (the first: {absent[0]}), so it cannot score its rows."
                    )
                    return
            elif reason := ex.model_mismatch(model, work):
                show_info(reason)
                return
            with guard("scoring the rows with the loaded model"):
                accuracy = ex.accuracy_on(model, work, rows)
            if accuracy is not None:
                st.metric("Accuracy on the current dataset's rows", f"{accuracy:.3f}")
                st.caption(
                    "On rows the model may have been fitted on (a model saved here was fitted "
                    "on every row): a training accuracy, above what Compare's "
                    "cross-validation measures on held-out rows."
                )
                with guard("scoring the rows with the loaded model"):  # not "fitting"
                    for note in ex.scoring_notes(model, rows) if rows is not None else []:
                        show_info(note)


def missing_sentence(missing: str) -> str:
    """What a missing value does to this page's bars under the Dataset page's setting
    (the rows explained here are training rows: they hold no unseen category)."""
    if missing == "category":
        return (
            f"A missing value is a category of its own, {MISSING_LABEL}, with a bar like "
            "any other; a category never seen in training would add nothing."
        )
    return (
        "A missing value was imputed before counting (the column's most frequent "
        "category, or the median's bin), so its bar is that category's; a category never "
        "seen in training would add nothing."
    )


# --------------------------------------------------------------------------- page
page_header(
    page_title(__file__),
    "Naive Bayes adds one log-odds term per feature, so a prediction can be read off "
    "feature by feature (Orange's nomogram). Here each smoother's terms stand side by "
    "side: where they differ, the smoothing, not the data, decides.",
)
dataset = loading.current_dataset()
work = loading.current_codes(dataset)
# by default the sidebar's Naive Bayes methods: the page explains the comparison in view
smoothers = st.multiselect(
    "Smoothers side by side",
    list(SMOOTHER_LABELS),
    format_func=SMOOTHER_LABELS.get,
    help="At first the smoothers of the sidebar's Naive Bayes methods (AODE, TAN and "
    "weighted methods have no per-feature terms of one smoother).",
    **state.page_setting(
        "explain_smoothers",
        ex.default_smoothers(st.session_state.get("methods") or []),
        list(SMOOTHER_LABELS),
    ),
)
if not smoothers:
    show_info("Choose at least one smoother.")
    st.stop()
unused = ex.compare_values_note(smoothers, state.run_settings().params())
if unused:
    st.caption(escape(unused))
with guard("fitting the models and explaining the row"):
    fitted = ex.fitted_models(work, smoothers)
    shown_row, row = pick_row(work, fitted)
    target, reference = pick_classes(work, fitted, row)
    explanations = fitted.explain(work.codes[row], target, reference)
    names = work.class_names
    frame = contribution_frame(explanations, work.feature_names, ex.row_values(work, row))
    st.markdown(
        f"Row {shown_row:,}: true class **{escape(names[int(work.y[row])])}**. "
        + verdict(explanations, frame, names)
    )
    decisions = ex.decision_table(explanations, names, int(work.y[row]))
    # probabilities to six decimals, every one alike (a 0.999998 showed as "1" beside
    # 0.000002): their columns are named after the classes
    formats = {c: st.column_config.NumberColumn(format="%.6f") for c in decisions if c[:2] == "P("}
    target_name, reference_name = names[target], names[reference]
    formats[ex.LOG_ODDS] = st.column_config.NumberColumn(
        format="%.3f",
        help=f"ln P({escape(target_name)}) - ln P({escape(reference_name)}): above 0 the "
        f"row leans to {escape(target_name)}, below 0 to {escape(reference_name)}",
    )
    formats["right"] = st.column_config.CheckboxColumn(
        help=f"ticked where the smoother predicts the row's true class, "
        f"{escape(names[int(work.y[row])])}"
    )
    # the presenter draws it as an HTML table in its large type (a column_config kept the
    # grid's small type on a projector), the same decimals given as the Styler's formats
    decimals = {c: "{:.6f}" for c in decisions if c[:2] == "P("} | {ex.LOG_ODDS: "{:.3f}"}
    decimals["right"] = lambda right: "✓" if right else "✗"  # the grid's tick, not "True"
    show_table(
        decisions,
        number_format=decimals if state.presenting() else None,
        grid_config=formats,
        key="explain_decisions",
    )
    # class names are user text: escaped for plotly, which renders some HTML in a title
    title = (
        f"Row {shown_row}: log-odds of {figure_escape(target_name)} against "
        f"{figure_escape(reference_name)}"
    )
    fig = contribution_figure(frame, smoothers, title, target_name=target_name)
    shown = frame.rename(columns={s: SMOOTHER_LABELS[s] for s in smoothers})
    show_figure(
        fig,
        shown,
        f"explain-row-{shown_row}",
        key="explain_fig",
        min_width=contribution_min_width(fig),  # its labels and bars, scrolling on a phone
    )
    st.caption(
        f"The odds of **{escape(target_name)}** (A) against **{escape(reference_name)}** (B): "
        "a bar right of 0 favours A, left of 0 favours B. The prior row is "
        "ln pi(A) - ln pi(B); the prior plus one smoother's bars is its log-odds, the "
        f'table\'s "{ex.LOG_ODDS}" column. ' + missing_sentence(work.preprocessor.missing)
    )
    model_files(fitted, work, dataset)
    spec = st.session_state["data_spec"]
    upload = st.session_state.get("uploads", {}).get(spec)
    report.show_code(
        report.explain_code(
            report.dataset_line(spec, upload),
            state.current_settings(),
            smoothers,
            row,
            target,
            reference,
            table_row=shown_row,
            hierarchies=hierarchies_text(declared()),
        )
    )

page_footer(__file__, settings=True)
