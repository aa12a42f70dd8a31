"""Where a reference model beats every HEB / NB method, said in a computed sentence.

The Compare and Benchmark pages show the reference models (scikit-learn's CategoricalNB,
TargetEncoder+LR, HistGradientBoosting; ``reference=True`` in :data:`heb.registry.METHODS`)
beside the smoothing methods. The explorer is not an advertisement: where the best
reference scores better than the best non-reference method, the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from heb import registry

__all__ = ["compare_sentences", "rank_sentences", "reference_wins"]


def _is_reference(name: str) -> bool:
    return name in registry.METHODS and registry.METHODS[name].reference


def reference_wins(scores: Mapping[str, float], lower_is_better: bool, what: str) -> str | None:
    """One sentence when the best reference beats the best other method on ``scores``.

    ``what`` names the score (``"mean log-loss"``, ``"average rank on Brier"``); None when
    no reference is present, no other method is, or the best other method is as good.
    """
    scores = {m: float(v) for m, v in scores.items() if pd.notna(v)}
    refs = {m: v for m, v in scores.items() if _is_reference(m)}
    others = {m: v for m, v in scores.items() if not _is_reference(m)}
    if not refs or not others:
        return None
    pick = min if lower_is_better else max
    ref, own = pick(refs, key=refs.get), pick(others, key=others.get)
    beaten = refs[ref] < others[own] if lower_is_better else refs[ref] > others[own]
    if not beaten:
        return None
    return (
        f"Here a reference model wins on {what}: {ref} ({refs[ref]:.4g}) against the best "
        f"smoothing method, {own} ({others[own]:.4g})."
    )


def compare_sentences(summary: pd.DataFrame) -> list[str]:
    """Sentences for the Compare page from a :meth:`CVResult.summary` frame, one per metric."""
    out = []
    for name, metric in registry.METRICS.items():
        column = f"{name}_mean"
        if column not in summary:
            continue
        scores = dict(zip(summary["method"], summary[column], strict=True))
        what = f"mean {metric.label}"
        sentence = reference_wins(scores, not metric.higher_is_better, what)
        if sentence:
            out.append(sentence)
    return out


def rank_sentences(ranks: pd.Series, metric: str) -> list[str]:
    """The Benchmark page's sentence for one metric's average ranks (lower is better)."""
    what = f"average rank on {registry.metric(metric).label}"
    sentence = reference_wins(ranks.to_dict(), True, what)
    return [sentence] if sentence else []
