"""The paper's statistics over a benchmark: mean ranks, Friedman, Nemenyi, Wilcoxon-Holm.

Directions (higher or lower is better) come from :data:`heb.registry.METRICS`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb import registry
from heb.stats import friedman, holm, nemenyi_cd, nemenyi_groups, nemenyi_pvalues, wilcoxon

__all__ = ["benchmark_tables", "wilcoxon_table"]


def benchmark_tables(frame: pd.DataFrame, metric: str, alpha: float = 0.05) -> dict:
    """Mean scores, Friedman test, Nemenyi CD / p-values / groups for one metric.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`heb.evaluate.run_benchmark`.
    metric : str
        A name of :data:`heb.registry.METRICS`, or ``"fit_time"`` (lower is better).

    Returns
    -------
    dict with ``scores`` (dataset x method means), ``avg_ranks`` (Series), ``friedman``
    (dict), ``cd`` (float), ``pvalues`` (method x method DataFrame) and ``groups``
    (list of tuples of method names).
    """
    if metric != "fit_time":
        registry.metric(metric)  # an unknown name is one sentence naming the metrics
    lacking = [c for c in ("dataset", "method") if c not in frame.columns]
    if lacking:  # a dataset x method table, or a frame of one's own, failed on a KeyError
        raise ValueError(
            f"The benchmark frame has no column {lacking[0]!r}: benchmark_tables takes "
            f"one row per dataset, method (and fold), with a column {metric!r}, as "
            "run_benchmark returns."
        )
    if metric not in frame.columns:
        raise ValueError(f"The benchmark frame has no column {metric!r}.")
    higher = registry.metric(metric).higher_is_better if metric in registry.METRICS else False
    scores = frame.pivot_table(index="dataset", columns="method", values=metric, aggfunc="mean")
    methods = [m for m in dict.fromkeys(frame["method"]) if m in scores.columns]
    scores = scores[methods].dropna()
    if scores.shape[0] < 2 or scores.shape[1] < 2:
        raise ValueError("The statistics need at least two datasets and two methods.")
    values = scores.to_numpy()
    result = friedman(values, higher_is_better=higher)
    cd = nemenyi_cd(len(methods), values.shape[0], alpha=alpha)
    ranks = np.asarray(result["avg_ranks"])
    groups = [tuple(methods[i] for i in g) for g in nemenyi_groups(ranks, cd)]
    pvalues = pd.DataFrame(
        nemenyi_pvalues(values, higher_is_better=higher), index=methods, columns=methods
    )
    return {
        "scores": scores,
        "avg_ranks": pd.Series(ranks, index=methods, name="avg_rank"),
        "friedman": result,
        "cd": cd,
        "pvalues": pvalues,
        "groups": groups,
    }


def wilcoxon_table(scores: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Wilcoxon signed-rank of one method against every other, with Holm-adjusted p.

    Parameters
    ----------
    scores : DataFrame
        Dataset x method mean scores (``benchmark_tables(...)["scores"]``).
    reference : str
        The method compared with each other column (an alias or another case is resolved
        as in :func:`heb.registry.resolve_method_name`).

    Returns
    -------
    DataFrame with columns ``against``, ``statistic``, ``p_value``, ``n_nonzero``,
    ``median_diff`` (reference minus other) and ``holm_p``.
    """
    if "method" in scores.columns and "fold" in scores.columns:
        raise ValueError(
            "wilcoxon_table takes the dataset x method scores, not run_benchmark's rows: "
            "pass benchmark_tables(frame, metric)['scores']."
        )
    if reference not in scores.columns:
        try:  # an alias or another case, as method names are taken elsewhere ("heb-m")
            reference = registry.resolve_method_name(reference)
        except ValueError:
            pass
    if reference not in scores.columns:
        raise ValueError(f"{reference!r} is not among the benchmarked methods.")
    others = [method for method in scores.columns if method != reference]
    rows = [wilcoxon(scores[reference].to_numpy(), scores[o].to_numpy()) for o in others]
    frame = pd.DataFrame(rows, columns=["statistic", "p_value", "n_nonzero", "median_diff"])
    frame.insert(0, "against", others)
    frame["holm_p"] = holm(frame["p_value"].to_numpy()) if len(frame) else []
    return frame
