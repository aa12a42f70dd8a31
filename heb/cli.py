"""Headless runs: ``python -m heb bench`` and ``python -m heb synthetic``.

``bench`` cross-validates methods on datasets and writes the paper's Tables 1-8 (CSV and
markdown) and its CD and reliability diagrams (PNG and SVG) to an output folder;
``synthetic`` writes the Theorem 1 study (Figure 2). Every run is keyed on a sha256 of
its inputs and settings and served from the result cache when repeated.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from heb import __version__
from heb.cache import ResultCache, cache_key
from heb.paths import cache_dir
from heb.registry import HIGHER_IS_BETTER, METRIC_LABELS, METRICS, TABLE1_METHODS

ALL_TABLES = (1, 2, 3, 4, 5, 6, 7, 8)
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
    2: ("HEB-M", "AODE", "HEB-AODE"),
    3: ("AODE", "HEB-AODE"),
    4: ("Laplace", "HEB-M", "HEB-M+GR"),
    5: ("Laplace", "Laplace+GR", "HEB-M", "HEB-M+GR"),
    6: ("HEB-M",),
    7: ("Laplace", "Laplace+GR", "AODE", "HEB-M"),
    8: TABLE1_METHODS,
}


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- datasets
def _resolve_dataset_specs(names: Sequence[str]) -> list[str]:
    """Expand ``shared`` / ``all`` into every shared dataset; bare names mean shared copies."""
    from heb.data import shared_dataset_names

    specs: list[str] = []
    for name in names:
        if name in ("shared", "all"):
            specs.extend(f"shared:{n}" for n in shared_dataset_names())
        elif ":" in name or Path(name).exists():
            specs.append(name)
        else:
            specs.append(f"shared:{name}")
    return list(dict.fromkeys(specs))


def _spec_identity(spec: str) -> str:
    """A cheap identity of a dataset spec: the file's sha256 where there is a file.

    Shared copies also hash the manifest, whose categorical / dropped columns change
    how a file is read.
    """
    from heb.paths import datasets_dir

    if spec.startswith("shared:"):
        path = datasets_dir() / f"{spec.split(':', 1)[1]}.csv.gz"
        manifest = datasets_dir() / "manifest.json"
    elif ":" not in spec:
        path, manifest = Path(spec), None
    else:
        return spec
    if not path.exists():
        return spec
    digest = hashlib.sha256(path.read_bytes())
    if manifest is not None and manifest.exists():
        digest.update(manifest.read_bytes())
    return f"{spec}:{digest.hexdigest()}"


# --------------------------------------------------------------------------- running
def _collect(
    specs: Sequence[str],
    tables: Sequence[int],
    settings: dict,
    report: Callable[[str], None],
) -> pd.DataFrame:
    """Run every (dataset, method, setting) the chosen tables need; one long frame."""
    from heb.data import DataError, load_dataset
    from heb.evaluate import cross_validate

    base = list(dict.fromkeys(m for t in tables for m in TABLE_METHODS[t]))
    names = {spec.split(":", 1)[-1] for spec in specs}
    table7_subset = bool(names & set(TABLE7_DATASETS))
    frames = []
    for index, spec in enumerate(specs):
        started = time.perf_counter()
        try:
            dataset = load_dataset(spec)
        except DataError as exc:
            report(f"[{index + 1}/{len(specs)}] {spec}: skipped ({exc})")
            continue
        runs: list[tuple[str, dict, dict]] = [("", {}, {})]
        if 6 in tables:
            runs += [(f"Lidstone({a:g})", {"Lidstone": {"alpha": a}}, {}) for a in LIDSTONE_ALPHAS]
        if 7 in tables and (dataset.name in TABLE7_DATASETS or not table7_subset):
            runs += [
                (f"bins={b}", {}, {"n_bins": b}) for b in BIN_COUNTS if b != settings["n_bins"]
            ]
        for label, params, override in runs:
            if label.startswith("Lidstone"):
                methods = ["Lidstone"]
            elif label.startswith("bins="):
                methods = list(TABLE_METHODS[7])
            else:
                methods = base
            result = cross_validate(dataset, methods, params=params, **{**settings, **override})
            frame = result.folds.assign(dataset=dataset.name, variant=label or "main")
            if label.startswith("Lidstone"):
                frame["method"] = label
            elif label.startswith("bins="):
                frame["method"] = frame["method"] + f" [{label}]"
            frames.append(frame)
        report(
            f"[{index + 1}/{len(specs)}] {dataset.name}: {len(dataset.X):,} rows, "
            f"{dataset.X.shape[1]} features, {time.perf_counter() - started:.1f} s"
        )
    if not frames:
        raise SystemExit("No dataset could be loaded.")
    return pd.concat(frames, ignore_index=True)


def _dataset_groups() -> dict[str, str]:
    from heb.data import CATALOGUE

    return {entry.name: entry.group for entry in CATALOGUE}


# --------------------------------------------------------------------------- tables
def _mean_scores(frame: pd.DataFrame, methods: Sequence[str], metric: str) -> pd.DataFrame:
    sub = frame[frame["method"].isin(methods)]
    table = sub.pivot_table(index="dataset", columns="method", values=metric, aggfunc="mean")
    return table[[m for m in methods if m in table.columns]]


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean Friedman ranks of the seven smoothers per metric, with the Friedman p-value."""
    from heb.evaluate import benchmark_tables

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
    """Wilcoxon signed-rank over datasets: HEB-M vs AODE and HEB-AODE vs AODE."""
    from heb.stats import wilcoxon

    rows = []
    main = frame[frame["variant"] == "main"]
    for a, b in (("HEB-M", "AODE"), ("HEB-AODE", "AODE")):
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
    return pd.DataFrame(rows)


def table3(frame: pd.DataFrame) -> pd.DataFrame:
    """Log-loss of AODE and HEB-AODE on the high-cardinality datasets."""
    groups = _dataset_groups()
    main = frame[frame["variant"] == "main"]
    scores = _mean_scores(main, ("AODE", "HEB-AODE"), "log_loss")
    scores = scores[[groups.get(d) == "high-cardinality" for d in scores.index]]
    if scores.shape[1] == 2:
        scores["reduction_%"] = 100 * (1 - scores["HEB-AODE"] / scores["AODE"])
    return scores.reset_index()


def table4(frame: pd.DataFrame) -> pd.DataFrame:
    """Top-1 ECE of Laplace, HEB-M and HEB-M+GR per dataset (high-cardinality first)."""
    groups = _dataset_groups()
    main = frame[frame["variant"] == "main"]
    scores = _mean_scores(main, ("Laplace", "HEB-M", "HEB-M+GR"), "ece")
    if "Laplace" in scores and "HEB-M+GR" in scores:
        scores["HEB-M+GR_vs_Laplace_%"] = 100 * (scores["HEB-M+GR"] / scores["Laplace"] - 1)
    scores.insert(0, "group", [groups.get(d, "") for d in scores.index])
    return scores.sort_values("group", key=lambda s: s != "high-cardinality").reset_index()


def table5(frame: pd.DataFrame) -> pd.DataFrame:
    """2 x 2 smoothing x weighting: mean score and mean rank per metric."""
    from heb.evaluate import benchmark_tables

    methods = TABLE_METHODS[5]
    main = frame[frame["variant"] == "main"]
    rows = []
    for metric in METRICS:
        scores = _mean_scores(main, methods, metric).dropna()
        if scores.shape[1] < len(methods) or len(scores) < 2:
            continue
        out = benchmark_tables(main[main["method"].isin(methods)], metric)
        for method in methods:
            rows.append(
                {
                    "metric": METRIC_LABELS[metric],
                    "method": method,
                    "smoothing": "HEB-M" if method.startswith("HEB") else "Laplace",
                    "weighting": "sqrt-MI" if method.endswith("+GR") else "none",
                    "mean": scores[method].mean(),
                    "avg_rank": out["avg_ranks"][method],
                }
            )
    return pd.DataFrame(rows)


def table6(frame: pd.DataFrame) -> pd.DataFrame:
    """Lidstone alpha sweep against HEB-M: mean rank among the seven per metric."""
    from heb.evaluate import benchmark_tables

    methods = [*(f"Lidstone({a:g})" for a in LIDSTONE_ALPHAS), "HEB-M"]
    sub = frame[frame["method"].isin(methods) & (frame["variant"] != "bins")]
    sub = sub[~sub["method"].str.contains("bins=")]
    rows = {m: {"method": m} for m in methods}
    for metric in ("accuracy", "f1_macro", "log_loss", "brier"):
        out = benchmark_tables(sub, metric)
        for m in methods:
            rows[m][METRIC_LABELS[metric]] = round(float(out["avg_ranks"][m]), 3)
    return pd.DataFrame(list(rows.values()))


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


# --------------------------------------------------------------------------- output
def _write_table(out: Path, name: str, table: pd.DataFrame, title: str) -> None:
    table.to_csv(out / f"{name}.csv", index=False)
    text = table.to_markdown(index=False, floatfmt=".4g") if len(table) else "(no rows)"
    (out / f"{name}.md").write_text(f"# {title}\n\n{text}\n")


def _export_figure(fig, path_stem: Path, report: Callable[[str], None]) -> dict[str, str]:
    """Write PNG and SVG, re-using identical figures from the cache (export is slow).

    Returns the written file names mapped to their copies in the figure cache.
    """
    from heb.figures import to_image_bytes

    written: dict[str, str] = {}
    spec = fig.to_json()
    for fmt in ("png", "svg"):
        digest = hashlib.sha256(f"{fmt}:{spec}".encode()).hexdigest()
        cached = cache_dir() / "figures" / f"{digest}.{fmt}"
        target = path_stem.parent / f"{path_stem.name}.{fmt}"
        if not cached.exists():
            try:
                data = to_image_bytes(fig, fmt=fmt)
            except RuntimeError as exc:
                report(f"  {target.name}: not exported ({exc}); writing HTML instead")
                fig.write_html(path_stem.parent / f"{path_stem.name}.html", include_plotlyjs="cdn")
                return written
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_suffix(f".{fmt}.{uuid.uuid4().hex}.tmp")
            tmp.write_bytes(data)
            tmp.replace(cached)
        shutil.copyfile(cached, target)
        written[target.name] = cached.name
    return written


def _figures(frame: pd.DataFrame, out: Path, tables: Sequence[int], report) -> dict[str, str]:
    from heb.evaluate import benchmark_tables
    from heb.figures import cd_diagram

    written: dict[str, str] = {}
    main = frame[frame["variant"] == "main"]
    if 1 in tables:
        for metric in METRICS:
            sub = main[main["method"].isin(TABLE1_METHODS)]
            res = benchmark_tables(sub, metric)
            fig = cd_diagram(
                res["avg_ranks"].to_dict(),
                res["cd"],
                groups=res["groups"],
                title=f"{METRIC_LABELS[metric]}: mean ranks over {len(res['scores'])} datasets",
            )
            written |= _export_figure(fig, out / f"cd_{metric}", report)
    return written


def _reliability_figures(
    reliability: dict[str, dict[str, dict]], out: Path, report: Callable[[str], None]
) -> dict[str, str]:
    from heb.figures import reliability_diagram

    written: dict[str, str] = {}
    for dataset, curves in reliability.items():
        fig = reliability_diagram(curves, title=f"Reliability: {dataset}")
        written |= _export_figure(fig, out / f"reliability_{dataset}", report)
    return written


def _serve_outputs(cache: ResultCache, key: str, out: Path) -> bool:
    """Write a previous run's tables and figures from the cache; False if any piece is gone."""
    manifest = cache.get_json(cache_key("bench-outputs", key))
    if manifest is None:
        return False
    frames = {}
    for name in [*manifest["tables"], "folds"]:
        frames[name] = cache.get_frame(cache_key("bench-table", key, name))
        if frames[name] is None:
            return False
    figures = {t: cache_dir() / "figures" / c for t, c in manifest["figures"].items()}
    if not all(path.exists() for path in figures.values()):
        return False
    frames.pop("folds").to_csv(out / "folds.csv", index=False)
    for name, frame in frames.items():
        _write_table(out, name, frame, manifest["tables"][name])
    for target, cached in figures.items():
        shutil.copyfile(cached, out / target)
    return True


def bench(args: argparse.Namespace) -> int:
    """The ``bench`` command."""
    started = time.perf_counter()
    tables = sorted({int(t) for t in args.tables.split(",")}) if args.tables else list(ALL_TABLES)
    unknown = set(tables) - set(ALL_TABLES)
    if unknown:
        raise SystemExit(f"Unknown table(s): {sorted(unknown)}; choose from 1-8.")
    specs = _resolve_dataset_specs(args.datasets)
    if not specs:
        raise SystemExit("No datasets: the shared folder is absent and none were named.")
    settings = {
        "n_splits": args.folds,
        "seed": args.seed,
        "n_bins": args.n_bins,
        "missing": args.missing,
        "max_rows": args.max_rows,
    }
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    cache = ResultCache()
    key = cache_key(
        "bench", [_spec_identity(s) for s in specs], tables, settings, not args.no_figures
    )
    if not args.no_cache and _serve_outputs(cache, key, out):
        _log(f"Served {len(specs)} datasets from the cache.")
        _log(f"Wrote tables and figures to {out} in {time.perf_counter() - started:.1f} s.")
        return 0
    frame = _collect(specs, tables, settings, _log)
    builders = {
        1: ("table1_mean_ranks", "Table 1: mean Friedman ranks of the seven smoothers", table1),
        2: ("table2_wilcoxon", "Table 2: Wilcoxon signed-rank tests over datasets", table2),
        3: ("table3_high_cardinality_logloss", "Table 3: high-cardinality log-loss", table3),
        4: ("table4_ece", "Table 4: top-1 ECE", table4),
        5: ("table5_smoothing_x_weighting", "Table 5: smoothing x weighting", table5),
        6: (
            "table6_lidstone_sweep",
            "Table 6: Lidstone alpha sweep vs HEB-M (mean ranks among the seven)",
            table6,
        ),
        7: (
            "table7_bins",
            "Table 7: discretisation ablation",
            lambda f: table7(f, args.n_bins),
        ),
        8: ("table8_fit_times", "Table 8: fit time per fold (s)", table8),
    }
    frame.to_csv(out / "folds.csv", index=False)
    written_tables: dict[str, str] = {}
    for number in tables:
        name, title, build = builders[number]
        try:
            table = build(frame)
        except ValueError as exc:
            _log(f"Table {number} skipped: {exc}")
            continue
        _write_table(out, name, table, title)
        cache.put_frame(cache_key("bench-table", key, name), table)
        written_tables[name] = title
    figures: dict[str, str] = {}
    if not args.no_figures:
        try:
            figures |= _figures(frame, out, tables, _log)
        except ValueError as exc:
            _log(f"CD diagrams skipped: {exc}")
        figures |= _reliability_figures(_collect_reliability(specs, settings, tables), out, _log)
    cache.put_frame(cache_key("bench-table", key, "folds"), frame)
    cache.put_json(cache_key("bench-outputs", key), {"tables": written_tables, "figures": figures})
    _log(f"Wrote tables and figures to {out} in {time.perf_counter() - started:.1f} s.")
    return 0


def _collect_reliability(specs, settings, tables) -> dict[str, dict[str, dict]]:
    """Reliability data of Table 4's methods on the high-cardinality datasets."""
    from heb.data import DataError, load_dataset
    from heb.evaluate import cross_validate

    if 4 not in tables:
        return {}
    groups = _dataset_groups()
    curves: dict[str, dict[str, dict]] = {}
    for spec in specs:
        try:
            dataset = load_dataset(spec)
        except DataError:
            continue
        if groups.get(dataset.name) != "high-cardinality":
            continue
        result = cross_validate(dataset, TABLE_METHODS[4], **settings)
        curves[dataset.name] = {m: result.reliability(m) for m in TABLE_METHODS[4]}
    return curves


def synthetic(args: argparse.Namespace) -> int:
    """The ``synthetic`` command: the Theorem 1 study (paper Figure 2)."""
    from heb.synthetic import l1_error_study

    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    cache = ResultCache()
    frames = []
    for alpha in args.alpha_dir:
        key = cache_key("l1-study", alpha, args.reps, args.seed)
        frame = cache.get_frame(key)
        if frame is None:
            _log(f"alpha_dir = {alpha}: {args.reps} repetitions per (K, N)")
            frame = pd.DataFrame(l1_error_study(alpha_dir=alpha, reps=args.reps, seed=args.seed))
            cache.put_frame(key, frame)
        frames.append(frame.assign(alpha_dir=alpha))
        if not args.no_figures:
            from heb.figures import l1_error_figure

            fig = l1_error_figure(
                frame.to_dict("records"), title=f"Mean l1 error against K/N, alpha_dir = {alpha:g}"
            )
            _export_figure(fig, out / f"figure2_alpha{alpha:g}", _log)
    table = pd.concat(frames, ignore_index=True)
    wide = table.pivot_table(index=["alpha_dir", "K", "N"], columns="smoother", values="mean")
    if {"laplace", "heb-u"} <= set(wide.columns):
        wide["heb_vs_laplace_%"] = 100 * (1 - wide["heb-u"] / wide["laplace"])
    wide = wide.reset_index()
    wide.insert(3, "K/N", wide["K"] / wide["N"])
    _write_table(out, "figure2_l1_errors", wide, "Figure 2: mean l1 error (Theorem 1 study)")
    _log(f"Wrote the synthetic study to {out}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(
        prog="python -m heb", description="HEB Explorer: reproduce the paper's tables headless."
    )
    parser.add_argument("--version", action="version", version=f"heb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench", help="cross-validate methods on datasets; write Tables 1-8")
    b.add_argument(
        "datasets",
        nargs="*",
        default=["shared"],
        help="'shared' (default: every shared copy), shared names, "
        "openml:ID, builtin:NAME or file paths",
    )
    b.add_argument("-o", "--output", default="results", help="output folder")
    b.add_argument("--tables", default=None, help="comma-separated table numbers (default all)")
    b.add_argument("--folds", type=int, default=10)
    b.add_argument("--seed", type=int, default=42)
    b.add_argument("--n-bins", type=int, default=10)
    b.add_argument("--missing", choices=("impute", "category"), default="impute")
    b.add_argument("--max-rows", type=int, default=20_000)
    b.add_argument("--no-cache", action="store_true", help="recompute everything")
    b.add_argument("--no-figures", action="store_true", help="skip PNG/SVG export")
    b.set_defaults(func=bench)
    s = sub.add_parser("synthetic", help="the Theorem 1 study (Figure 2)")
    s.add_argument("-o", "--output", default="results")
    s.add_argument("--alpha-dir", type=float, nargs="+", default=[0.3, 1.0])
    s.add_argument("--reps", type=int, default=200)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--no-figures", action="store_true", help="skip PNG/SVG export")
    s.set_defaults(func=synthetic)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m heb``."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))
