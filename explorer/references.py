"""Where a reference model beats every HEB / NB method, said in a computed sentence.

The Compare and Benchmark pages show the reference models (scikit-learn's CategoricalNB,
TargetEncoder+LR, HistGradientBoosting; ``reference=True`` in :data:`heb.registry.METHODS`)
beside the smoothing methods. The explorer is not an advertisement: where the best
reference scores better than the best non-reference method, the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from explorer.errors import escape
from heb import registry

__all__ = ["compare_note", "rank_sentences", "reference_wins"]


def _is_reference(name: str) -> bool:
    return name in registry.METHODS and registry.METHODS[name].reference


def _best_pair(
    scores: Mapping[str, float], lower_is_better: bool, decimals: int | None = None
) -> tuple[str, float, str, float] | None:
    """(best reference, its score, best other method, its score) when the reference is
    better; None otherwise. ``decimals``: compare the scores as shown, rounded (a tie
    there is no win)."""
    scores = {m: float(v) for m, v in scores.items() if pd.notna(v)}
    if decimals is not None:
        scores = {m: round(v, decimals) for m, v in scores.items()}
    refs = {m: v for m, v in scores.items() if _is_reference(m)}
    others = {m: v for m, v in scores.items() if not _is_reference(m)}
    if not refs or not others:
        return None
    pick = min if lower_is_better else max
    ref, own = pick(refs, key=refs.get), pick(others, key=others.get)
    beaten = refs[ref] < others[own] if lower_is_better else refs[ref] > others[own]
    return (ref, refs[ref], own, others[own]) if beaten else None


def reference_wins(scores: Mapping[str, float], lower_is_better: bool, what: str) -> str | None:
    """One sentence when the best reference beats the best other method on ``scores``.

    ``what`` names the score (``"mean log-loss"``, ``"average rank on Brier"``); None when
    no reference is present, no other method is, or the best other method is as good.
    """
    pair = _best_pair(scores, lower_is_better)
    if pair is None:
        return None
    ref, ref_score, own, own_score = pair
    return (
        f"Here a reference model wins on {what}: {ref} ({ref_score:.4g}) against the best "
        f"smoothing method, {own} ({own_score:.4g})."
    )


def compare_note(summary: pd.DataFrame, decimals: int | Mapping[str, int]) -> str | None:
    """The Compare page's one note (markdown, names escaped) listing every metric whose
    best mean, rounded to the table's ``decimals`` (one number, or one per metric), is a
    reference model's; None if none.

    ``summary`` is a :meth:`CVResult.summary` frame. One line per metric in one box, each
    score as the table shows it (a box per metric, at 4 digits, repeated the table at
    another precision)."""
    lines = []
    for name, metric in registry.METRICS.items():
        column = f"{name}_mean"
        if column not in summary:
            continue
        scores = dict(zip(summary["method"], summary[column], strict=True))
        places = decimals if isinstance(decimals, int) else decimals[name]
        pair = _best_pair(scores, not metric.higher_is_better, places)
        if pair is not None:
            ref, ref_score, own, own_score = pair
            lines.append(
                f"- {escape(metric.label)}: {escape(ref)} {ref_score:.{places}f}, "
                f"best smoothing method {escape(own)} {own_score:.{places}f}"
            )
    if not lines:
        return None
    count = "one metric" if len(lines) == 1 else f"{len(lines)} metrics"
    return (
        f"Here a reference model beats every smoothing method on {count} (mean over "
        "folds):\n\n" + "\n".join(lines)
    )


def rank_sentences(ranks: pd.Series, metric: str) -> list[str]:
    """The Benchmark page's sentence for one metric's average ranks (lower is better)."""
    what = f"average rank on {registry.metric(metric).label}"
    sentence = reference_wins(ranks.to_dict(), True, what)
    return [sentence] if sentence else []
