"""The paper's Tables 1-8, and Table 9 (HEB against reference models), from a long
benchmark frame (one row per dataset, method, fold).

The frame is :func:`heb.evaluate.run_benchmark`'s with a ``variant`` column (``"main"``,
``"Lidstone(a)"`` or ``"bins=b"``), as ``python -m heb bench`` collects it. Metric labels
and directions come from :mod:`heb.registry`; each table lists the methods it compares.
"""

from __future__ import annotations

import re
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
    "HIGH_CARDINALITY_K_MAX",
    "dataset_groups",
    "dataset_k_max",
    "is_high_cardinality",
    "format_ms",
    "method_label",
    "format_p",
    "summary_table",
    "table_markdown",
    "summary_markdown",
    "ranks_table",
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
#: outside the catalogue, a dataset is high-cardinality when its largest feature has at least
#: this many values after preprocessing (the paper's low-cardinality datasets have K_max <= 30)
HIGH_CARDINALITY_K_MAX = 100
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


def method_label(method: str) -> str:
    """A method's row label in the markdown tables: says which Lidstone run it is.

    The main run's ``Lidstone`` uses the registry's default alpha; the alpha sweep's
    ``Lidstone(a)`` runs (Table 6) are labelled as such, so that ``Lidstone`` and
    ``Lidstone(0.1)`` (identical scores) do not look like one method twice.
    """
    from heb import registry

    if method == "Lidstone":
        alpha = registry.smoother("lidstone").defaults()["alpha"]
        return f"Lidstone (α={alpha:g}, default)"
    if method.startswith("Lidstone(") and method.endswith(")"):
        return f"Lidstone α={method[len('Lidstone(') : -1]} (sweep)"
    return method


def format_p(value: float) -> str:
    """A p-value as text: three decimals, ``<0.001`` below that, ``—`` when undefined."""
    if not np.isfinite(value):
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def format_ms(seconds: float, like: float | None = None) -> str:
    """A time in seconds as milliseconds with three significant digits, no exponent;
    with ``like``, as many decimals as ``like`` gets (a mean's spread reads "12.1 ± 4.0",
    not "12.1 ± 3.99")."""
    if not np.isfinite(seconds):
        return "—"
    ms = seconds * 1000.0
    return f"{ms:,.{_ms_decimals(seconds if like is None else like)}f}"


def _ms_decimals(seconds: float) -> int:
    """Decimals that give a time in milliseconds three significant digits (0 to 4)."""
    ms = seconds * 1000.0 if np.isfinite(seconds) else 0.0
    digits = 0 if ms >= 100 else 2 - int(np.floor(np.log10(ms))) if ms > 0 else 2
    return min(max(digits, 0), 4)


#: markdown decimals of a metric (all in [0, 1] or a log-loss of a few units)
_METRIC_DECIMALS = 4
_RANK_DECIMALS = 2


def _column_kind(table: str | None, column: str) -> str:
    """How a column of a paper table is shown: ``p``, ``ms``, ``rank``, ``pct``, ``ratio``
    or ``metric``."""
    name = str(column)
    lower = name.lower()
    if lower in ("p_value", "holm_p", "friedman_p") or lower.endswith("_p"):
        return "p"
    if table == "table8" or lower in ("fit_time", "fit s per fold") or "fit time (s)" in lower:
        return "ms"
    if lower.endswith("%"):
        return "pct"
    if lower == "w":
        return "stat"
    if "/ heb-m" in lower or lower.startswith("x "):
        return "ratio"
    if table in ("table1", "table6", "table9") or lower in ("avg_rank", "cd"):
        return "rank"
    return "metric"


def _shown_name(table: str | None, column: str) -> str:
    """The markdown header of a column: times say their unit (ms)."""
    if _column_kind(table, column) == "ms" and table != "table8":
        return "fit time per fold (ms)"
    return str(column)


#: characters of a dataset's name (a file's name: the user's text) that markdown would read
#: as a table's cell border, HTML, a link, emphasis or code
_MARKDOWN_SPECIAL = re.compile(r"([\\|<>\[\]*_`])")


def _markdown_text(name: object) -> str:
    """``name`` as literal text in a markdown table cell: its markdown characters
    backslash-escaped (a '|' split the cell, ``<img ...>`` drew an image) and its line
    breaks and tabs as spaces (a cell is one line)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", re.sub(r"[\r\n\t]", " ", str(name)))


def table_markdown(table: pd.DataFrame, name: str | None = None) -> str:
    """A paper table as markdown with fixed decimals per kind of column.

    Metrics (log-loss, Brier, ECE, accuracy, F1, AUC, differences) 4 decimals, mean ranks
    and CD 2, p-values 3 (``<0.001`` below), percentages 1, ratios 2, fit times in
    milliseconds with three significant digits (the header says ``ms``). Integers (counts)
    and text are shown as they are. The CSV written next to it keeps full precision.

    Parameters
    ----------
    table : DataFrame
        One of :func:`table1` .. :func:`table9`'s outputs.
    name : str, optional
        ``"table1"`` .. ``"table9"`` (or the file stem, e.g. ``"table8_fit_times"``): tells
        rank and time tables apart from metric tables.
    """
    if not len(table):
        return "(no rows)"
    key = name.split("_")[0] if name else None
    shown = pd.DataFrame(index=table.index)
    ratio_rows = (
        table.iloc[:, 0].astype(str).str.startswith("x ")
        if key == "table8"
        else pd.Series(False, index=table.index)
    )
    for column in table.columns:
        values = table[column]
        header = method_label(_shown_name(key, column))
        if not pd.api.types.is_float_dtype(values):
            text = values.astype(str)
            if column in ("method", "against"):
                text = text.map(method_label)
            elif column == "dataset":
                text = text.map(_markdown_text)
            shown[header] = text
            continue
        kind = _column_kind(key, column)
        if kind == "p":
            cells = [format_p(v) for v in values]
        elif kind == "ms":
            cells = [
                "—" if not np.isfinite(v) else f"{v:.2f}" if ratio else format_ms(v)
                for v, ratio in zip(values, ratio_rows, strict=True)
            ]
        else:
            decimals = {"rank": _RANK_DECIMALS, "pct": 1, "ratio": 2, "stat": 1}.get(
                kind, _METRIC_DECIMALS
            )
            cells = ["—" if not np.isfinite(v) else f"{v:.{decimals}f}" for v in values]
        shown[header] = cells
    align = ["right" if pd.api.types.is_numeric_dtype(table[c]) else "left" for c in table]
    text = shown.to_markdown(index=False, disable_numparse=True, colalign=align)
    if key == "table8":
        text = "Fit time per fold in milliseconds (ms); the `x Laplace` row is a ratio.\n\n" + text
    return text


def summary_markdown(summary: pd.DataFrame) -> str:
    """:func:`summary_table` as markdown: one ``mean ± sd`` cell per metric.

    Metrics with 4 decimals, fit time in milliseconds (three significant digits).
    """
    metrics = [c[: -len("_mean")] for c in summary.columns if c.endswith("_mean")]
    shown = summary[["dataset", "method"]].copy()
    shown["dataset"] = shown["dataset"].map(_markdown_text)
    shown["method"] = shown["method"].map(method_label)
    for metric in metrics:
        mean, sd = summary[f"{metric}_mean"], summary[f"{metric}_sd"].fillna(0.0)
        if metric == "fit_time":
            label = "fit time per fold (ms)"
            cells = [
                f"{format_ms(a)} ± {format_ms(b, like=a)}" for a, b in zip(mean, sd, strict=True)
            ]
        else:
            label = METRIC_LABELS.get(metric, metric)
            cells = [f"{a:.4f} ± {b:.4f}" for a, b in zip(mean, sd, strict=True)]
        shown[label] = cells
    shown["folds"] = summary["folds"]
    return shown.to_markdown(index=False) if len(shown) else "(no rows)"


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean Friedman ranks of the seven smoothers per metric, with the Friedman p-value."""
    return ranks_table(frame, TABLE1_METHODS)


def ranks_table(frame: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """Table 1's form for any ``methods``: their mean Friedman ranks over the datasets per
    metric, the Friedman p-value and Nemenyi's critical difference (``heb bench
    --methods`` on 2+ datasets, as the app's Benchmark page ranks them)."""
    _need_datasets(frame, NEEDS_DATASETS)
    rows = []
    for metric in METRICS:
        main = frame[frame["variant"] == "main"]
        out = benchmark_tables(main[main["method"].isin(methods)], metric)
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


def dataset_k_max(dataset: object, n_bins: int) -> int:
    """K_max of a dataset after preprocessing: the most values of one feature.

    A categorical column counts its distinct values; a numeric column is cut into at most
    ``n_bins`` quantile bins, so it counts ``min(distinct values, n_bins)``.
    """
    X = dataset.X  # type: ignore[attr-defined]
    categorical = set(getattr(dataset, "categorical", ()))
    sizes = [
        int(X[c].nunique()) if c in categorical else min(int(X[c].nunique()), n_bins)
        for c in X.columns
    ]
    return max(sizes, default=0)


def is_high_cardinality(name: str, k_max: int) -> bool:
    """In the catalogue's high-cardinality group, or, for data outside the catalogue,
    ``k_max >= HIGH_CARDINALITY_K_MAX`` (Table 3's and the reliability figures' rule)."""
    groups = dataset_groups()
    if name in groups:
        return groups[name] == "high-cardinality"
    return k_max >= HIGH_CARDINALITY_K_MAX


def _high_cardinality(frame: pd.DataFrame, datasets: Sequence[str]) -> list[bool]:
    """Per dataset: :func:`is_high_cardinality` with K_max from the frame's ``k_max``."""
    k_max = frame.groupby("dataset")["k_max"].max() if "k_max" in frame else pd.Series()
    return [is_high_cardinality(d, int(k_max.get(d, 0))) for d in datasets]


def table3(frame: pd.DataFrame) -> pd.DataFrame:
    """Log-loss of AODE, HEB-AODE, TAN and HEB-TAN on the high-cardinality datasets.

    A catalogue dataset is high-cardinality when the catalogue's group says so (the paper's
    grouping); any other dataset when its K_max (the most values of one feature after
    preprocessing, the frame's ``k_max`` column, see :func:`dataset_k_max`) is at least
    :data:`HIGH_CARDINALITY_K_MAX` = 100. The ``K_max`` column shows it where known.
    """
    main = frame[frame["variant"] == "main"]
    scores = _mean_scores(main, TABLE_METHODS[3], "log_loss")
    scores = scores[_high_cardinality(frame, list(scores.index))]
    if scores.empty:
        raise ValueError(
            "none of the datasets is high-cardinality (the catalogue's group, or K_max >= "
            f"{HIGH_CARDINALITY_K_MAX} outside the catalogue; summary_mean_sd has every "
            "method's log-loss)."
        )
    if "k_max" in frame:
        k_max = frame.groupby("dataset")["k_max"].max()
        scores.insert(0, "K_max", [k_max.get(d, pd.NA) for d in scores.index])
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
    if not datasets:
        raise ValueError(
            "no dataset has a numeric column to bin, so the bin counts would change nothing."
        )
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
