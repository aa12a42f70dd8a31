"""The Benchmark page's work: many datasets x methods, then the paper's rank tables."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from explorer import state
from explorer.comparison import BEST_STYLE
from explorer.errors import escape
from explorer.loading import session_dataset, upload_variant
from explorer.state import UPLOAD_PREFIX
from heb import figures, registry
from heb.data import BUILTIN_DATASETS, DataError, shared_dataset_names
from heb.evaluate import (
    RunSettings,
    benchmark_tables,
    cache_key,
    run_benchmark,
    wilcoxon_table,
)
from heb.evaluate.cv import method_spec
from heb.evaluate.hierarchy_specs import hierarchy_notes
from heb.stats import rank_scores, wilcoxon
from heb.text import and_list, first_sentence

__all__ = [
    "has_target",
    "what_if_phrases",
    "BENCHMARK_FOLDS",
    "QUICK_DATASETS",
    "SCORE_DECIMALS",
    "name_width",
    "needs_target_uploads",
    "benchmark_footer",
    "benchmark_key",
    "compare_settings_note",
    "dataset_choices",
    "default_datasets",
    "few_datasets_note",
    "friedman_nemenyi_note",
    "link_uploads_note",
    "smallest_wilcoxon_p",
    "metric_views",
    "run",
    "rank_ties_note",
    "run_or_recall",
    "score_table",
    "take_in_upload",
    "wilcoxon_frame",
]

#: the folds of every benchmark (:class:`heb.evaluate.RunSettings`' default, the paper's)
BENCHMARK_FOLDS = RunSettings().n_splits

#: small paper datasets that run in seconds: the default selection when present
QUICK_DATASETS = (
    "car",
    "tic-tac-toe",
    "monks-problems-2",
    "vote",
    "hayes-roth",
    "cmc",
    "credit-g",
    "soybean",
)
_WILCOXON_COLUMNS = {
    "holm_p": "Holm p",
    "median_diff": "median diff.",
    "p_value": "p",
    "n_nonzero": "datasets (non-zero)",
    "statistic": "W",
}


def dataset_choices() -> dict[str, str]:
    """Spec -> label: the paper's local copies, the built-in datasets, then this
    session's uploads."""
    choices = {f"shared:{name}": name for name in shared_dataset_names()}
    choices.update({f"builtin:{name}": f"{name} (built-in)" for name in BUILTIN_DATASETS})
    for spec, upload in st.session_state.get("uploads", {}).items():
        usable = has_target(upload)
        choices[spec] = f"{upload['filename']} (upload{'' if usable else ', no target yet'})"
    return choices


def has_target(upload: dict | None) -> bool:
    """Whether an upload's record can load: a target chosen, or its default one usable
    (``needs_target``: no column read as classes, the Dataset page asks for one)."""
    return upload is None or not (upload.get("needs_target") and upload.get("target") is None)


def needs_target_uploads(specs: list[str]) -> list[str]:
    """The file names of the chosen uploads that have no target yet (a run skips them)."""
    uploads = st.session_state.get("uploads", {})
    return [
        uploads[spec]["filename"]
        for spec in specs
        if spec in uploads and not has_target(uploads[spec])
    ]


def default_datasets(choices: dict[str, str], current: str | None = None) -> list[str]:
    """The quick paper datasets present, else the first four built-in ones; the sidebar's
    dataset first when it is an upload of this session (with the target chosen for it on
    the Dataset page: what the user came to benchmark)."""
    quick = [f"shared:{name}" for name in QUICK_DATASETS if f"shared:{name}" in choices]
    base = quick or [spec for spec in choices if spec.startswith("builtin:")][:4]
    upload = _current_upload(choices, current)
    return [upload, *base] if upload else base


#: session name of the uploads the Benchmark's dataset choice has taken in once
_UPLOADS_TAKEN = "_bench_uploads_taken"


def _current_upload(choices: dict[str, str], current: str | None) -> str | None:
    """The sidebar's dataset when it is an upload of this session that can load (one
    still waiting for its target is offered, not chosen: it would stop a run)."""
    if not (current and current.startswith(UPLOAD_PREFIX) and current in choices):
        return None
    return current if has_target(st.session_state.get("uploads", {}).get(current)) else None


def take_in_upload(choices: dict[str, str], current: str | None, name: str) -> None:
    """Add the sidebar's dataset, an upload, to a dataset choice kept in the session under
    ``name`` (a choice made before the upload) the first time the page sees it; a user who
    then leaves it out is not overruled."""
    upload = _current_upload(choices, current)
    if upload is None:
        return
    taken = st.session_state.setdefault(_UPLOADS_TAKEN, [])
    if upload in taken:
        return
    taken.append(upload)
    chosen = st.session_state.get(name)
    if isinstance(chosen, list) and upload not in chosen:
        st.session_state[name] = [upload, *chosen]


def link_uploads_note(choices: dict[str, str], name: str = "bench_datasets") -> str | None:
    """The note for a link whose dataset choice (``name``) named uploads this session does
    not hold: they were left out (an upload stays in the sender's session), so the ranks
    may differ from the sender's; None when the link named none (or all are here)."""
    text = state.link_value(name) or ""
    missing = {
        item for item in text.split(",") if item.startswith(UPLOAD_PREFIX) and item not in choices
    }
    if not missing:
        return None
    one = len(missing) == 1
    return (
        f"The link's benchmark also had {'an upload' if one else f'{len(missing)} uploads'}, "
        f"left out here: an upload stays in the sender's session (upload "
        f"{'the file' if one else 'the files'} on the Dataset page to add "
        f"{'it' if one else 'them'}), so these ranks may differ from the sender's."
    )


def benchmark_footer(frame: pd.DataFrame, settings: dict) -> str:
    """The exported figures' footer of a benchmark: its own datasets, methods and settings
    (the view's URL holds the sidebar dataset and Compare's folds and what-if values, which
    a benchmark does not use)."""
    from explorer.report import footer_text

    return footer_text(
        [
            "benchmark",
            "datasets=" + ", ".join(str(d) for d in dict.fromkeys(frame["dataset"])),
            "methods=" + ", ".join(str(m) for m in dict.fromkeys(frame["method"])),
            f"folds={frame['fold'].nunique()}",
            *(f"{key}={value}" for key, value in settings.items()),
        ]
    )


def what_if_phrases(overrides: dict[str, dict[str, float]]) -> tuple[list[str], list[str]]:
    """Compare's what-if values (method -> {name: value}) as phrases ("m-estimate's m =
    20"), and each knob's default beside them ("m-estimate's m = 2"), for the notes naming
    the values a page does not use."""
    used, defaults = [], []
    for method, values in overrides.items():
        knob = registry.method(method).knob
        for value in values.values():
            used.append(f"{knob.label} = {value:g}")
            defaults.append(f"{knob.label} = {knob.default:g}")
    return used, defaults


def compare_settings_note(folds: int, overrides: dict[str, dict[str, float]]) -> str | None:
    """What a benchmark leaves of Compare's settings, said where they differ from the
    defaults (the session and the link keep them, so "Lidstone" looked like Compare's
    what-if value), else None.

    ``folds``: Compare's folds; ``overrides``: its what-if values (method -> {name: value},
    as :func:`explorer.state.run_settings`). A benchmark runs the default folds of
    :func:`heb.evaluate.run_benchmark` with every method at its default.
    """
    used = []
    if folds != BENCHMARK_FOLDS:
        used.append(f"{folds} folds")
    turned, defaults = what_if_phrases(overrides)
    used += turned
    if not used:
        return None
    return (
        f"Not used here, from Compare: {and_list(used)}. A benchmark runs "
        f"{BENCHMARK_FOLDS} folds, every method at its default"
        + (f" ({and_list(defaults)})." if defaults else ".")
    )


def friedman_nemenyi_note(
    friedman: dict, pvalues: pd.DataFrame, alpha: float = 0.05, too_few: bool = False
) -> str | None:
    """Why the Friedman test can reject while no Nemenyi pair does: the sentences shown
    exactly then (either Friedman p below ``alpha``, every pair's Nemenyi p at or above
    it), else None.

    Parameters
    ----------
    friedman : dict
        :func:`heb.stats.friedman`'s result (``p_value``, ``iman_davenport_p``).
    pvalues : DataFrame
        Nemenyi p-values, method x method (its diagonal is ignored).
    alpha : float
    too_few : bool
        The datasets are too few for the tests (:func:`few_datasets_note` warned): the
        note then does not conclude that the methods differ (a trial read a warning to
        add datasets, then "Here the methods differ overall").
    """
    tests = {"Friedman": friedman["p_value"], "Iman-Davenport": friedman["iman_davenport_p"]}
    rejecting = [name for name, p in tests.items() if p < alpha]
    values = pvalues.to_numpy(dtype=float)
    pairs = values[~np.eye(len(values), dtype=bool)]
    if not rejecting or (pairs < alpha).any():
        return None
    which = " and ".join(rejecting) + (" tests ask" if len(rejecting) == 2 else " test asks")
    n_pairs = len(values) * (len(values) - 1) // 2
    return (
        f"Not a contradiction: the {which} one question of all the methods at once"
        f" (are their ranks all equal? no, p < {alpha:g}), while Nemenyi's test asks "
        f"one per pair ({n_pairs} here) and guards them together, so it is more "
        "conservative and needs a gap of at least the CD in average rank. "
        + (
            "With this few datasets (see the warning above) even the overall test is a "
            "weak guide; more datasets shrink the CD."
            if too_few
            else "Here the methods differ overall, but no single pair by that much; more "
            "datasets shrink the CD."
        )
    )


def smallest_wilcoxon_p(n_datasets: int) -> float:
    """The smallest two-sided p-value the Wilcoxon signed-rank test of the page
    (:func:`heb.stats.wilcoxon`) can give on ``n_datasets`` paired scores: its p when every
    difference has the same sign and all differ."""
    if n_datasets < 1:
        return 1.0
    extreme = np.arange(1.0, n_datasets + 1.0)  # n distinct differences, all positive
    return float(wilcoxon(extreme, np.zeros(n_datasets))["p_value"])


def few_datasets_note(
    n_datasets: int, n_methods: int, cd: float, alpha: float = 0.05
) -> str | None:
    """A warning when the datasets are too few for the tests to find anything: the
    smallest possible Wilcoxon p at or above ``alpha``, or Nemenyi's CD wider than the
    range of the average ranks (k - 1); None otherwise."""
    sentences = []
    smallest = smallest_wilcoxon_p(n_datasets)
    if smallest >= alpha:
        sentences.append(
            f"With {n_datasets} datasets the smallest two-sided Wilcoxon p possible is "
            f"{smallest:.4g}: no pair can be significant at {alpha:g}."
        )
    span = n_methods - 1
    if cd > span:
        sentences.append(
            f"The CD ({cd:.2f}) is wider than the whole range of average ranks (1 to "
            f"{n_methods}, {span} apart): no Nemenyi pair can differ"
            + (" either." if sentences else ".")
        )
    if not sentences:
        return None
    sentences.append(
        "Demšar (2006) gives N > 10 datasets (and k > 5 methods) as the rule of thumb "
        "for the Friedman test's chi² approximation: add datasets before reading these "
        "tests."
    )
    return " ".join(sentences)


def unhierarchical_methods(methods: list[str]) -> list[str]:
    """The chosen methods whose smoother borrows along a category hierarchy (HEB-H): the
    benchmark gives them none (a declaration belongs to one dataset's columns), so they
    score as HEB-M, which the page says."""
    return [m for m in methods if hierarchy_notes({m: method_spec(m)})]


def benchmark_key(specs: list[str], methods: list[str], settings: dict) -> str:
    """A key saying which selection a stored benchmark answers."""
    return cache_key("benchmark", sorted(upload_variant(spec) for spec in specs), methods, settings)


def _too_few(count: str, skipped: list[str]) -> None:
    """Stop a run that has fewer than two datasets (``count`` says how many of how many),
    each skipped one's note shown above the error, in the failed progress box."""
    for line in skipped:
        st.warning(line)
    raise DataError(f"{count}; the benchmark needs at least two.")


def run(
    specs: list[str], methods: list[str], settings: dict, labels: dict[str, str] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Load the datasets and cross-validate every method on each, with a progress bar.

    A dataset that does not load (an upload without a usable target, say) or whose
    cross-validation fails is skipped: the second value holds one escaped markdown line
    per skipped dataset, naming it by its label (``labels``: spec -> the name the page
    shows). Fewer than two datasets loaded or cross-validated raise
    :class:`~heb.data.DataError` (the progress box then shows failed).
    """
    labels = labels or {}
    start = time.perf_counter()
    with st.status(
        f"Benchmark: {len(methods)} methods on {len(specs)} datasets...", expanded=True
    ) as status:
        try:
            bar = st.progress(0.0, text="Loading the datasets")
            datasets, skipped = [], []
            for index, spec in enumerate(specs):
                name = labels.get(spec, spec.split(":", 1)[1])
                bar.progress(0.2 * index / len(specs), text=f"Loading {escape(name)}")
                try:
                    datasets.append((name, session_dataset(spec)))
                except Exception as exc:  # noqa: BLE001 - one bad dataset must not stop the rest
                    skipped.append(f"Skipped {escape(name)}: {escape(first_sentence(exc))}")
            if len(datasets) < 2:
                _too_few(f"Only {len(datasets)} of the {len(specs)} datasets loaded", skipped)
            frames = []
            for index, (name, dataset) in enumerate(datasets):
                bar.progress(
                    0.2 + 0.8 * index / len(datasets), text=f"Cross-validating {escape(name)}"
                )
                try:
                    frames.append(run_benchmark([dataset], methods, **settings))
                except Exception as exc:  # noqa: BLE001 - as a dataset that does not load
                    skipped.append(
                        f"Skipped {escape(name)}, whose cross-validation failed: "
                        f"{escape(first_sentence(exc))}"
                    )
            if len(frames) < 2:
                _too_few(
                    f"Only {len(frames)} of the {len(specs)} datasets could be cross-validated",
                    skipped,
                )
            frame = pd.concat(frames, ignore_index=True)
        except Exception:
            status.update(label="Benchmark failed", state="error", expanded=True)
            raise
        elapsed = time.perf_counter() - start
        done = f"Benchmark done in {elapsed:.1f} s" + (
            f" ({len(skipped)} skipped)" if skipped else ""
        )
        status.update(label=done, state="complete", expanded=False)
    return frame, skipped


#: finished benchmarks kept in memory (each a few thousand rows)
KEPT_BENCHMARKS = 8


@st.cache_resource(show_spinner=False)
def _finished() -> tuple[OrderedDict, threading.Lock]:
    """Benchmark frames by :func:`benchmark_key`, shared by every session, and their lock."""
    return OrderedDict(), threading.Lock()


def run_or_recall(
    key: str,
    specs: list[str],
    methods: list[str],
    settings: dict,
    labels: dict[str, str] | None = None,
) -> tuple[pd.DataFrame, bool, list[str]]:
    """The benchmark of this selection: from memory when one ran already (True), else run;
    with :func:`run`'s notes of the datasets skipped."""
    store, lock = _finished()
    with lock:
        if key in store:
            store.move_to_end(key)
            frame, skipped = store[key]
            return frame, True, skipped
    frame, skipped = run(specs, methods, settings, labels)
    with lock:
        store[key] = (frame, skipped)
        while len(store) > KEPT_BENCHMARKS:
            store.popitem(last=False)
    return frame, False, skipped


#: the CD diagram's type in the presenter mode, times its usual size: its labels read
#: 20 px, the figure title's size, near the presenter's 22 px body text (16 px in a trial;
#: at 22 they outgrew the title)
PRESENTER_CD_SCALE = 1.25


@st.cache_resource(max_entries=64, show_spinner=False)
def metric_views(
    key: str, metric: str, _frame: pd.DataFrame, presenting: bool = False
) -> tuple[dict, object]:
    """The rank tables of one metric and its critical-difference diagram, built once per
    benchmark (``key``) and view (``presenting``: the diagram in the presenter's larger
    type, :data:`PRESENTER_CD_SCALE`) and shared: nothing may change them."""
    tables = benchmark_tables(_frame, metric)
    title = f"{registry.metric(metric).title}: average ranks (CD = {tables['cd']:.2f})"
    fig = figures.cd_diagram(
        tables["avg_ranks"].to_dict(),
        tables["cd"],
        groups=tables["groups"],
        title=title,
        font_scale=PRESENTER_CD_SCALE if presenting else 1.0,
    )
    return tables, fig


#: decimals of the per-dataset score table and of its average ranks
SCORE_DECIMALS = 4


def name_width(names) -> int:
    """Pixels of a grid column that shows every one of ``names`` whole (about 8 px a
    character of the grid's font and a cell's padding), at most 240."""
    return min(240, 24 + 8 * max((len(str(name)) for name in names), default=0))


def score_table(scores: pd.DataFrame, ranks: pd.Series, metric: str):
    """Mean score per dataset with the average rank as last row, and its Styler function."""
    table = scores.copy()
    table.loc["average rank"] = ranks
    # ties as the table shows them: two ranks of 19/6 differ in their last bit, and only
    # one of the two 3.1667 was bold
    shown = table.round(SCORE_DECIMALS)
    rows = shown.iloc[:-1]
    best = rows.max(axis=1) if registry.metric(metric).higher_is_better else rows.min(axis=1)
    winners = rows.eq(best, axis=0)  # every method tied at the best mean
    best_rank = shown.loc["average rank"].eq(shown.loc["average rank"].min())

    def bold_best(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        out.iloc[:-1] = winners.map(lambda won: BEST_STYLE if won else "").to_numpy()
        out.loc["average rank", best_rank[best_rank].index] = BEST_STYLE
        return out

    return table, bold_best


#: the most datasets :func:`rank_ties_note` names
TIES_NAMED = 3


def _separating_decimals(values: np.ndarray, start: int) -> int:
    """The fewest decimals (from ``start``, at most 10) that show ``values`` apart."""
    for decimals in range(start, 11):
        if len(set(np.round(values, decimals))) == len(values):
            return decimals
    return 10


def rank_ties_note(scores: pd.DataFrame, metric: str) -> str | None:
    """What the score table's rounding hides: methods whose means show the same at
    :data:`SCORE_DECIMALS` decimals on a dataset, yet rank apart there (the ranks, and the
    Friedman test, use the unrounded means). Markdown (names escaped); None when none do.
    """
    higher = registry.metric(metric).higher_is_better
    ranks = rank_scores(scores.to_numpy(dtype=float), higher_is_better=higher)
    cases = []
    for row, (dataset, means) in enumerate(scores.iterrows()):
        shown = means.round(SCORE_DECIMALS)
        for value in dict.fromkeys(shown):
            tied = np.flatnonzero(shown.to_numpy() == value)
            row_ranks = ranks[row, tied]
            if len(tied) < 2 or len(set(row_ranks)) < 2:
                continue
            exact = means.to_numpy()[tied]
            decimals = _separating_decimals(exact, SCORE_DECIMALS + 1)
            named = [
                f"{escape(scores.columns[i])} ({exact[j]:.{decimals}f})" for j, i in enumerate(tied)
            ]
            cases.append(
                f"on {escape(dataset)}, {and_list(named)} "
                f"{'both' if len(tied) == 2 else 'all'} show "
                f"{value:.{SCORE_DECIMALS}f} but rank " + and_list([f"{r:g}" for r in row_ranks])
            )
    if not cases:
        return None
    more = len(cases) - TIES_NAMED
    listed = "; ".join(cases[:TIES_NAMED]) + (f"; and {more} more" if more > 0 else "")
    return (
        "Ranks (and the Friedman test) use the unrounded means, so equal-looking means "
        f"can rank apart: {listed}."
    )


def wilcoxon_frame(scores: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Wilcoxon signed-rank of the reference against every other method, Holm-adjusted."""
    return wilcoxon_table(scores, reference).rename(columns=_WILCOXON_COLUMNS)
