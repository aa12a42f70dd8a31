"""The paper's Tables 1-8, and Table 9 (HEB against reference models), from a long
benchmark frame (one row per dataset, method, fold).

The frame is :func:`heb.evaluate.run_benchmark`'s with a ``variant`` column (``"main"``,
``"Lidstone(a)"`` or ``"bins=b"``), as ``python -m heb bench`` collects it. Metric labels
and directions come from :mod:`heb.registry`; each table lists the methods it compares.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from heb.evaluate.tables import benchmark_tables
from heb.registry import HIGHER_IS_BETTER, METRIC_LABELS, METRICS, TABLE1_METHODS
from heb.stats import rank_scores, wilcoxon

__all__ = [
    "ALL_TABLES",
    "BIN_COUNTS",
    "LIDSTONE_ALPHAS",
    "TABLE7_DATASETS",
    "TABLE_METHODS",
    "dataset_groups",
    "summary_table",
    "summary_markdown",
    "table1",
    "table2",
    "table3",
    "table4",
    "table5",
    "table6",
    "table7",
    "table8",
    "table9",
]

ALL_TABLES = (1, 2, 3, 4, 5, 6, 7, 8, 9)
LIDSTONE_ALPHAS = (0.001, 0.01, 0.1, 0.5, 1.0, 2.0)
#: the paper's "representative subset" of the discretisation ablation (section 5.5.2)
TABLE7_DATASETS = (
    "adult",
    "bank-marketing",
    "nomao",
    "click-prediction",
    "optdigits",
    "pendigits",
    "connect-4",
)
BIN_COUNTS = (5, 10, 20)
#: the methods each table needs (on top of Table 1's seven smoothers)
TABLE_METHODS = {
    1: TABLE1_METHODS,
    2: ("HEB-M", "AODE", "HEB-AODE", "TAN", "HEB-TAN"),
    3: ("AODE", "HEB-AODE", "TAN", "HEB-TAN"),
    4: ("Laplace", "HEB-M", "HEB-M+GR"),
    5: ("Laplace", "Laplace+GR", "HEB-M", "HEB-M+GR"),
    6: ("HEB-M",),
    7: ("Laplace", "Laplace+GR", "AODE", "HEB-M"),
    8: TABLE1_METHODS,
    9: (
        "HEB-M",
        "HEB-M+GR",
        "HEB-AODE",
        "HEB-TAN",
        "HEB-H",
        "CategoricalNB",
        "TargetEncoder+LR",
        "HistGradientBoosting",
    ),
}
#: Table 9 ranks on these metrics
TABLE9_METRICS = ("log_loss", "brier", "ece", "accuracy")


def dataset_groups() -> dict[str, str]:
    """Catalogue dataset name -> its group (``"high-cardinality"``, ...)."""
    from heb.data import CATALOGUE

    return {entry.name: entry.group for entry in CATALOGUE}


def _mean_scores(frame: pd.DataFrame, methods: Sequence[str], metric: str) -> pd.DataFrame:
    sub = frame[frame["method"].isin(methods)]
    table = sub.pivot_table(index="dataset", columns="method", values=metric, aggfunc="mean")
    return table[[m for m in methods if m in table.columns]]


#: why the significance tables need several datasets (the reason a skipped table gives)
NEEDS_DATASETS = "Friedman / Nemenyi need 2+ datasets"
NEEDS_DATASETS_WILCOXON = "the Wilcoxon signed-rank test over datasets needs 2+ datasets"


def _n_datasets(frame: pd.DataFrame) -> int:
    return int(frame["dataset"].nunique()) if "dataset" in frame else 0


def _need_datasets(frame: pd.DataFrame, reason: str) -> None:
    """A ValueError naming ``reason`` and the count when the frame has fewer than 2 datasets."""
    n = _n_datasets(frame)
    if n < 2:
        raise ValueError(f"{reason} (got {n}).")


def _mean_ranks(scores: pd.DataFrame, metric: str) -> pd.Series:
    """Mean rank (1 = best, ties averaged) of each method over the rows of ``scores``.

    Defined from one dataset on (then it is the rank on that dataset); the same numbers as
    the Friedman test's ``avg_ranks`` on two or more.
    """
    ranks = rank_scores(scores.to_numpy(dtype=np.float64), HIGHER_IS_BETTER.get(metric, False))
    return pd.Series(ranks.mean(axis=0), index=scores.columns)


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation over folds of every metric, per dataset and method.

    Variants (``Lidstone(a)``, ``... [bins=b]``) are rows of their own; defined for one
    dataset, where the rank tables are not. Columns ``<metric>_mean`` / ``<metric>_sd``,
    ``fit_time_mean`` / ``fit_time_sd`` and ``folds``.
    """
    metrics = [m for m in (*METRICS, "fit_time") if m in frame]
    order = list(dict.fromkeys(frame["method"]))
    grouped = frame.groupby(["dataset", "method"], sort=False)[metrics]
    stats = grouped.agg(["mean", "std"])
    stats.columns = [f"{m}_{'sd' if s == 'std' else s}" for m, s in stats.columns]
    stats["folds"] = grouped.size()
    stats = stats.reset_index()
    stats["_order"] = stats["method"].map({m: i for i, m in enumerate(order)})
    return stats.sort_values(["dataset", "_order"], kind="stable").drop(columns="_order")


def summary_markdown(summary: pd.DataFrame) -> str:
    """:func:`summary_table` as markdown: one ``mean ± sd`` cell per metric."""
    metrics = [c[: -len("_mean")] for c in summary.columns if c.endswith("_mean")]
    shown = summary[["dataset", "method"]].copy()
    for metric in metrics:
        label = METRIC_LABELS.get(metric, "fit time (s)" if metric == "fit_time" else metric)
        mean, sd = summary[f"{metric}_mean"], summary[f"{metric}_sd"].fillna(0.0)
        shown[label] = [f"{a:.4g} ± {b:.2g}" for a, b in zip(mean, sd, strict=True)]
    shown["folds"] = summary["folds"]
    return shown.to_markdown(index=False) if len(shown) else "(no rows)"


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean Friedman ranks of the seven smoothers per metric, with the Friedman p-value."""
    _need_datasets(frame, NEEDS_DATASETS)
    rows = []
    for metric in METRICS:
        main = frame[frame["variant"] == "main"]
        out = benchmark_tables(main[main["method"].isin(TABLE1_METHODS)], metric)
        row = {"metric": METRIC_LABELS[metric], **out["avg_ranks"].round(3).to_dict()}
        row["friedman_p"] = out["friedman"]["p_value"]
        row["CD"] = round(out["cd"], 3)
        rows.append(row)
    return pd.DataFrame(rows)


def table2(frame: pd.DataFrame) -> pd.DataFrame:
    """Wilcoxon signed-rank over datasets: HEB-M vs AODE, HEB-AODE vs AODE, HEB-TAN vs TAN."""
    _need_datasets(frame, NEEDS_DATASETS_WILCOXON)
    rows = []
    main = frame[frame["variant"] == "main"]
    for a, b in (("HEB-M", "AODE"), ("HEB-AODE", "AODE"), ("HEB-TAN", "TAN")):
        for metric in METRICS:
            scores = _mean_scores(main, (a, b), metric).dropna()
            if scores.shape[1] < 2 or len(scores) < 2:
                continue
            test = wilcoxon(scores[a].to_numpy(), scores[b].to_numpy())
            better = (
                (scores[a] > scores[b]) if HIGHER_IS_BETTER[metric] else (scores[a] < scores[b])
            )
            rows.append(
                {
                    "comparison": f"{a} vs {b}",
                    "metric": METRIC_LABELS[metric],
                    "wins": int(better.sum()),
                    "datasets": len(scores),
                    "median_diff": test["median_diff"],
                    "W": test["statistic"],
                    "p_value": test["p_value"],
                }
            )
    if not rows:
        raise ValueError("no two of its paired methods ran on the same 2+ datasets.")
    return pd.DataFrame(rows)


def table3(frame: pd.DataFrame) -> pd.DataFrame:
    """Log-loss of AODE, HEB-AODE, TAN and HEB-TAN on the high-cardinality datasets."""
    groups = dataset_groups()
    main = frame[frame["variant"] == "main"]
    scores = _mean_scores(main, TABLE_METHODS[3], "log_loss")
    scores = scores[[groups.get(d) == "high-cardinality" for d in scores.index]]
    if scores.empty:
        raise ValueError(
            "none of the datasets is in the catalogue's high-cardinality group "
            "(summary_mean_sd has every method's log-loss)."
        )
    for base, heb in (("AODE", "HEB-AODE"), ("TAN", "HEB-TAN")):
        if base in scores and heb in scores:
            scores[f"{heb}_reduction_%"] = 100 * (1 - scores[heb] / scores[base])
    return scores.reset_index()


def table4(frame: pd.DataFrame) -> pd.DataFrame:
    """Top-1 ECE of Laplace, HEB-M and HEB-M+GR per dataset (high-cardinality first).

    ``HEB-M+GR_vs_Laplace_change_%`` is the paper's "Reduction" column: the relative change of
    the mean ECE, 100 (ECE(HEB-M+GR) / ECE(Laplace) - 1), negative when HEB-M+GR is better
    calibrated (the paper's -41% .. -70%); ``HEB-M+GR_minus_Laplace`` is the absolute
    difference, which a tiny Laplace ECE cannot inflate. Datasets outside the catalogue
    have the group ``"not in catalogue"``.
    """
    groups = dataset_groups()
    main = frame[frame["variant"] == "main"]
    scores = _mean_scores(main, ("Laplace", "HEB-M", "HEB-M+GR"), "ece")
    if scores.empty:
        raise ValueError("it needs Laplace, HEB-M or HEB-M+GR in the run.")
    if "Laplace" in scores and "HEB-M+GR" in scores:
        scores["HEB-M+GR_vs_Laplace_change_%"] = 100 * (scores["HEB-M+GR"] / scores["Laplace"] - 1)
        scores["HEB-M+GR_minus_Laplace"] = scores["HEB-M+GR"] - scores["Laplace"]
    scores.insert(0, "group", [groups.get(d, "not in catalogue") for d in scores.index])
    return scores.sort_values("group", key=lambda s: s != "high-cardinality").reset_index()


def table5(frame: pd.DataFrame) -> pd.DataFrame:
    """2 x 2 smoothing x weighting: mean score and mean rank per metric."""
    methods = TABLE_METHODS[5]
    main = frame[frame["variant"] == "main"]
    rows = []
    for metric in METRICS:
        scores = _mean_scores(main, methods, metric).dropna()
        if scores.shape[1] < len(methods) or scores.empty:
            continue
        ranks = _mean_ranks(scores, metric)
        for method in methods:
            rows.append(
                {
                    "metric": METRIC_LABELS[metric],
                    "method": method,
                    "smoothing": "HEB-M" if method.startswith("HEB") else "Laplace",
                    "weighting": "sqrt-MI" if method.endswith("+GR") else "none",
                    "mean": scores[method].mean(),
                    "avg_rank": ranks[method],
                    "datasets": len(scores),
                }
            )
    if not rows:
        raise ValueError(f"it needs all of {', '.join(methods)} on one dataset at least.")
    return pd.DataFrame(rows)


def table6(frame: pd.DataFrame) -> pd.DataFrame:
    """Lidstone alpha sweep against HEB-M: mean rank among the seven per metric.

    Ranks over the datasets where all seven ran (on one dataset: its ranks).
    """
    methods = [*(f"Lidstone({a:g})" for a in LIDSTONE_ALPHAS), "HEB-M"]
    sub = frame[frame["method"].isin(methods) & (frame["variant"] != "bins")]
    sub = sub[~sub["method"].str.contains("bins=")]
    rows = {m: {"method": m} for m in methods}
    for metric in ("accuracy", "f1_macro", "log_loss", "brier"):
        scores = _mean_scores(sub, methods, metric).dropna()
        if scores.shape[1] < len(methods) or scores.empty:
            raise ValueError("it needs the Lidstone runs and HEB-M on one dataset at least.")
        ranks = _mean_ranks(scores, metric)
        for m in methods:
            rows[m][METRIC_LABELS[metric]] = round(float(ranks[m]), 3)
    return pd.DataFrame([{**row, "datasets": len(scores)} for row in rows.values()])


def table7(frame: pd.DataFrame, default_bins: int) -> pd.DataFrame:
    """Discretisation ablation: mean accuracy (and log-loss) at 5 / 10 / 20 bins."""
    labelled = frame[frame["method"].str.contains("bins=")]
    datasets = set(labelled["dataset"])
    rows = []
    for bins in BIN_COUNTS:
        for method in TABLE_METHODS[7]:
            name = method if bins == default_bins else f"{method} [bins={bins}]"
            sub = frame[(frame["method"] == name) & frame["dataset"].isin(datasets)]
            if bins == default_bins:
                sub = sub[sub["variant"] == "main"]
            if sub.empty:
                continue
            per_dataset = sub.groupby("dataset")[["accuracy", "log_loss"]].mean()
            rows.append(
                {
                    "n_bins": bins,
                    "method": method,
                    "datasets": len(per_dataset),
                    **per_dataset.mean().to_dict(),
                }
            )
    return pd.DataFrame(rows)


def table8(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean fit time per fold (seconds) of every method on every dataset."""
    main = frame[frame["variant"] == "main"]
    times = main.pivot_table(index="dataset", columns="method", values="fit_time", aggfunc="mean")
    times.loc["mean"] = times.mean()
    if "Laplace" in times:
        ratio = (times.loc["mean"] / times.loc["mean", "Laplace"]).rename("x Laplace")
        times = pd.concat([times, ratio.to_frame().T])
    return times.reset_index(names="dataset")


def table9(frame: pd.DataFrame) -> pd.DataFrame:
    """HEB methods against the reference models: mean rank per metric, fit-time ratio.

    Ranks over the datasets where every Table 9 method ran (on one dataset: its ranks);
    the fit-time ratio is the
    geometric mean over datasets of a method's mean fit time per fold over HEB-M's.
    """
    methods = list(TABLE_METHODS[9])
    main = frame[frame["variant"] == "main"] if "variant" in frame else frame
    main = main[main["method"].isin(methods)]
    complete = main.groupby("dataset")["method"].nunique() == len(methods)
    main = main[main["dataset"].isin(complete[complete].index)]
    if not complete.any():
        raise ValueError(
            f"no dataset has all of {', '.join(methods)} (the reference models run in memory only)."
        )
    ranks = {m: _mean_ranks(_mean_scores(main, methods, m).dropna(), m) for m in TABLE9_METRICS}
    out = pd.DataFrame({METRIC_LABELS[m]: ranks[m].reindex(methods) for m in TABLE9_METRICS})
    times = main.pivot_table(index="dataset", columns="method", values="fit_time", aggfunc="mean")
    log_ratio = np.log(times.clip(lower=1e-9)).sub(np.log(times["HEB-M"].clip(lower=1e-9)), axis=0)
    out["fit time / HEB-M"] = np.exp(log_ratio.mean()).reindex(methods)
    out["fit s per fold"] = times.mean().reindex(methods)
    out["datasets"] = int(complete.sum())
    return out.reset_index(names="method")
