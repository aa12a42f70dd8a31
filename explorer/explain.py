"""The Explain page's work: one NB per smoother on the current counts, and a row's nomogram.

The models are fitted once per (data, settings, smoother) on the whole working data's
count table (re-smoothing, no recount) and kept in a small process-wide cache; the
predictions of every row are kept with them, so picking a row only gathers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from sklearn.pipeline import Pipeline

from explorer.benchmarking import what_if_phrases
from explorer.errors import escape
from explorer.loading import WorkingData
from explorer.state import current_settings
from heb import model_io, registry
from heb.data import Dataset, pipeline_io
from heb.data.preprocessor_io import make_pipeline
from heb.data.unreadable import scoring_notes as data_scoring_notes
from heb.evaluate.folds import evaluated_data
from heb.evaluate.hierarchy_specs import hierarchies_text
from heb.explain import Explanation, explain_smoothers
from heb.nb import NaiveBayes
from heb.text import and_list, shorten

__all__ = [
    "Fitted",
    "SCORE_COMMAND",
    "fitted_rows_note",
    "DEFAULT_SMOOTHERS",
    "LOG_ODDS",
    "default_smoothers",
    "fitted_models",
    "decision_table",
    "disagreeing_rows",
    "row_values",
    "model_json",
    "accuracy_on",
    "raw_rows",
    "missing_columns",
    "loaded_summary",
]

#: the smoother that takes the Dataset page's hierarchies
HIERARCHICAL = "heb-h"
#: the smoothers compared by default: a fixed, a marginal-prior fixed and both learned ones
DEFAULT_SMOOTHERS = ("laplace", "m-estimate", "heb-u", "heb-m")
#: the decision table's column of ln P(target | x) - ln P(reference | x): the page calls
#: the two classes "the odds of class A against class B", and so does this name
LOG_ODDS = "log-odds (A against B)"


def default_smoothers(methods: list[str]) -> list[str]:
    """The smoothers of the chosen methods that Explain can show: each plain Naive Bayes
    method's smoother, in the methods' order (a weighted one, AODE, TAN and the reference
    models have no per-feature log-odds of one smoother); :data:`DEFAULT_SMOOTHERS` when
    the methods hold none.

    Parameters
    ----------
    methods : list of str
        Method names (the sidebar's choice); unknown names are skipped.
    """
    chosen = []
    for name in methods:
        try:
            method = registry.method(name)
        except ValueError:
            continue
        params = dict(method.params)
        if method.family == "nb" and set(params) == {"smoother"}:
            smoother = str(params["smoother"])
            if smoother not in chosen:
                chosen.append(smoother)
    return chosen or list(DEFAULT_SMOOTHERS)


def compare_values_note(smoothers: list[str], overrides: dict[str, dict[str, float]]) -> str | None:
    """The caption naming Compare's what-if values (method -> {name: value}, as
    :func:`explorer.state.run_settings`) of the shown ``smoothers``, which this page does
    not use: it fits each at its default, so m-estimate's bars at m = 2 sat under a link
    whose Compare ran m = 20, without a word. None when no shown smoother has one."""
    shown = {}
    for method, values in overrides.items():
        try:
            entry = registry.method(method)
        except ValueError:
            continue
        params = dict(entry.params)
        if entry.family != "nb" or set(params) != {"smoother"} or entry.knob is None:
            continue
        if str(params["smoother"]) in smoothers:
            shown[method] = values
    used, defaults = what_if_phrases(shown)
    if not used:
        return None
    return (
        f"Not used here, from Compare: {and_list(used)}. This page fits every smoother at "
        f"its default ({and_list(defaults)})."
    )


class Fitted:
    """Fitted models by smoother name and every row's predicted class under each."""

    def __init__(self, models: dict[str, NaiveBayes], predicted: dict[str, np.ndarray]):
        self.models = models
        self.predicted = predicted

    def explain(self, codes_row: np.ndarray, target: int, reference: int) -> dict[str, Explanation]:
        """:func:`heb.explain.explain_smoothers` of one row (codes of shape (F,))."""
        return explain_smoothers(self.models, codes_row[None, :], target, reference)

    def classes_to_explain(
        self, codes_row: np.ndarray, target: int | None, reference: int | None
    ) -> tuple[int, int]:
        """Target and reference classes; ``None`` picks the last model's top two for the row
        (the reference: the most probable class other than the target)."""
        last = list(self.models.values())[-1]
        ranked = np.argsort(-last.predict_joint_log_proba(codes_row[None, :])[0], kind="stable")
        target = int(ranked[0]) if target is None else int(target)
        others = [int(c) for c in ranked if c != target]
        if reference is None or reference == target:
            reference = others[0]
        return target, int(reference)


@st.cache_resource(max_entries=16, show_spinner=False)
def _fit(
    key: str, smoother: str, hierarchies: str, _work: WorkingData, _levels: dict | None
) -> tuple[NaiveBayes, np.ndarray]:
    model = NaiveBayes(smoother, hierarchies=_levels or None)
    model.fit_counts(_work.table, np.arange(_work.n_classes))
    return model, model.predict(_work.codes)


def fitted_models(work: WorkingData, smoothers: list[str]) -> Fitted:
    """One NaiveBayes per smoother on the working data's counts (cached on its key); HEB-H
    with the hierarchies declared on the Dataset page, as Compare runs it (none: HEB-M)."""
    from explorer.hierarchies import declared, work_hierarchies

    text, levels = "", None
    if HIERARCHICAL in smoothers and (items := declared()):
        text, levels = hierarchies_text(items), work_hierarchies(work, items)[0]
    models, predicted = {}, {}
    for name in smoothers:
        nested = name == HIERARCHICAL
        fitted = _fit(work.key, name, text if nested else "", work, levels if nested else None)
        models[name], predicted[name] = fitted
    return Fitted(models, predicted)


def label(smoother: str) -> str:
    """A smoother's display label from the registry."""
    return registry.smoother(smoother).label


def disagreeing_rows(fitted: Fitted) -> np.ndarray:
    """Rows whose predicted class differs between at least two of the smoothers."""
    stacked = np.stack(list(fitted.predicted.values()))
    return np.flatnonzero((stacked != stacked[0]).any(axis=0))


def decision_table(
    explanations: dict[str, Explanation], class_names: list[str], true_class: int
) -> pd.DataFrame:
    """Per smoother: its predicted class, P(predicted), P(target) and P(reference) in the
    classes' order (they swapped places from row to row with the automatic target), the
    log-odds of target against reference (column :data:`LOG_ODDS`), and whether it gets
    the row right."""
    rows = []
    for name, e in explanations.items():
        proba = np.exp(e.log_proba[0])
        predicted = int(e.predicted[0])
        pair = sorted({e.target, e.reference})
        rows.append(
            {
                "smoother": label(name),
                "predicts": class_names[predicted],
                "P(predicted)": proba[predicted],
                **{f"P({class_names[c]})": proba[c] for c in pair},
                LOG_ODDS: float(e.log_odds[0]),
                "right": predicted == true_class,
            }
        )
    return pd.DataFrame(rows)


def row_values(work: WorkingData, row: int) -> list[str]:
    """The row's category (or bin) label per feature; ``(missing)`` for a missing code."""
    labels = work.preprocessor.categories_
    codes = work.codes[row]
    return [labels[f][c] if 0 <= c < len(labels[f]) else "(missing)" for f, c in enumerate(codes)]


def raw_rows(dataset: Dataset, work: WorkingData) -> pd.DataFrame:
    """The working rows' raw features (Compare's rows, in the order of ``work.y``), which a
    loaded pipeline encodes itself."""
    rows = evaluated_data(dataset, current_settings()["max_rows"])[0]
    if len(rows) != len(work.y):  # the settings moved since ``work`` was built
        raise ValueError("The dataset's rows changed while scoring; load the file again.")
    return rows


def missing_columns(pipeline: Pipeline, rows: pd.DataFrame) -> list[str]:
    """The columns a loaded pipeline encodes that ``rows`` lacks."""
    present = {str(name) for name in rows.columns}
    return [name for name in pipeline[0].feature_names_out_ if name not in present]


def accuracy_on(model, work: WorkingData, rows: pd.DataFrame | None = None) -> float | None:
    """A loaded model's accuracy on the working rows (None when its features do not fit).

    A pipeline (a file with a preprocessor) scores ``rows``, the working rows' raw
    features (:func:`raw_rows`), encoding them with its own preprocessor; a model alone
    scores the page's codes ``work.codes``.
    """
    truth = np.asarray(work.class_names)[work.y]
    if isinstance(model, Pipeline):
        if rows is None or missing_columns(model, rows):
            return None
        return float(np.mean(model.predict(rows).astype(str) == truth))
    if model_mismatch(model, work):
        return None  # other features: an accuracy would mean nothing
    names = getattr(model, "feature_names_in_", None)
    rows = work.codes if names is None else pd.DataFrame(work.codes, columns=list(names))
    return float(np.mean(model.predict(rows).astype(str) == truth))


def scoring_notes(model: Pipeline, rows: pd.DataFrame) -> list[str]:
    """A loaded pipeline's notes on the ``rows``' cells that add no evidence: numbers its
    numeric features cannot read (scored as missing values), categories it never saw
    (:mod:`heb.data.unreadable`), as ``heb score`` says them."""
    return data_scoring_notes(model[0], rows)


def model_mismatch(model, work: WorkingData) -> str:
    """Why a loaded model alone (no preprocessing) cannot score the working rows, as one
    plain sentence (escape it to show it), or "" when it can: another number of features,
    or features of other names (a user trial saw only "Loaded NaiveBayes (heb-m), 2
    classes, 3 features.")."""
    n_model, n_data = int(model.n_features_in_), int(work.codes.shape[1])
    if n_model != n_data:
        return (
            f"The file's model reads {n_model:,} features and the current dataset has "
            f"{n_data:,}, so it cannot score its rows: load a model saved on this dataset."
        )
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return ""
    ours = [str(n) for n in work.feature_names]
    other = next((i for i, name in enumerate(names) if str(name) != ours[i]), None)
    if other is None:
        return ""
    return (
        f"The file's model reads other features than the current dataset (its feature "
        f"{other + 1} is {shorten(str(names[other]), 60)}, the dataset's "
        f"{shorten(ours[other], 60)}), so it "
        "cannot score its rows."
    )


def loaded_summary(model) -> str:
    """What a loaded file holds, as markdown (its values escaped)."""
    classifier = model[-1] if isinstance(model, Pipeline) else model
    smoother = escape(classifier.get_params().get("smoother"))
    levels = classifier.get_params().get("hierarchies")
    along = f", hierarchies over {len(levels)} of them" if levels else ""
    what = (
        f"**{escape(type(classifier).__name__)}** ({smoother}), "
        f"{classifier.classes_.size} classes, {classifier.n_features_in_} features{along}"
    )
    if not isinstance(model, Pipeline):
        return f"Loaded {what}."
    pre = model[0]
    dropped = f", {len(pre.dropped_)} of them left out as empty" if pre.dropped_ else ""
    return (
        f"Loaded a pipeline: its preprocessing of {pre.n_features_in_} columns{dropped}, "
        f"then {what}. It reads raw rows of a table with its columns, encoding them itself."
    )


def model_json(
    fitted: Fitted,
    smoother: str,
    feature_names: list[str],
    classes: list[str],
    preprocessor=None,
) -> bytes:
    """The fitted model of one smoother as the documented JSON file (docs/model_json.md);
    with the ``preprocessor`` that coded its rows, the make_model pipeline of the two, whose
    file scores raw rows."""
    source = fitted.models[smoother]
    model = NaiveBayes(smoother, hierarchies=source.hierarchies)  # HEB-H's declared levels
    model.fit_counts(source.count_table_, np.asarray(classes))
    if preprocessor is not None:  # the pipeline's classifier reads codes, as make_model's
        return pipeline_io.dumps(make_pipeline(preprocessor, model)).encode("utf-8")
    model.feature_names_in_ = np.asarray(feature_names, dtype=object)
    return model_io.dumps(model).encode("utf-8")


#: the command that scores a table with a downloaded model file (its default file name)
SCORE_COMMAND = "python -m heb score nb-{}.json ROWS.csv --target COLUMN"


def fitted_rows_note(used: int, total: int) -> str:
    """Said of a saved model fitted on ``used`` rows, a stratified subsample of ``total``
    (the app's row cap): ``heb fit --max-rows`` fits the same rows, ``heb fit`` every row."""
    if used >= total:
        return ""
    return (
        f" It is fitted on the {used:,} rows of the stratified subsample of {total:,} "
        '(choose "Use every row" under Rows on the Dataset page for all of them); '
        f"`heb fit --max-rows {used}` fits the same rows of a file, `heb fit` alone every row."
    )
