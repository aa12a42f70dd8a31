"""HEB-H against HEB-M and Laplace: a known truth, detected hierarchies and real data.

Three parts, run from the repository root::

    python3 benchmarks/hierarchy_study.py synthetic   # l1 error vs K/N (heb.synthetic_hierarchy)
    python3 benchmarks/hierarchy_study.py budget      # where HEB-H's error goes at few rows
    python3 benchmarks/hierarchy_study.py detect      # functional dependencies of the shared data
    python3 benchmarks/hierarchy_study.py cv          # 10-fold CV: log-loss, ECE, Brier, ...
    python3 benchmarks/hierarchy_study.py timing      # fit CPU time of HEB-H / HEB-M
    python3 benchmarks/hierarchy_study.py all

``cv`` runs the paper protocol (stratified 20,000-row subsample, seed 42; stratified
10-fold CV, shuffled, seed 42; every fold encoded by heb.data.Preprocessor fitted on
its training rows) on amazon-employee-access and on the shared datasets where a
hierarchy between categorical columns is detected. In every training fold, the
dependencies are detected on the training codes only (exactly, and with a Goodman-Kruskal
tolerance of 5 %), turned into chains of ever coarser parents, and given to
``NaiveBayes(smoother="heb-h", hierarchies=...)``; ``HierarchicalNaiveBayes`` (HEB-M or
HEB-H) detects the same structure and scores each child feature given its parent feature.
Datasets come from ``heb.paths``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heb.counts import CountTable, category_offsets  # noqa: E402
from heb.data import Preprocessor, encode_target, stratified_subsample  # noqa: E402
from heb.hierarchical_nb import HierarchicalNaiveBayes  # noqa: E402
from heb.hierarchy import fit_nested  # noqa: E402
from heb.hierarchy_sources import (  # noqa: E402
    dependency_chains,
    functional_dependencies,
    levels_from_chain,
)
from heb.nb import NaiveBayes  # noqa: E402
from heb.paths import datasets_dir  # noqa: E402
from heb.registry import METRICS, compute_metrics, smoother  # noqa: E402
from heb.smoothing import smooth  # noqa: E402
from heb.synthetic_hierarchy import (  # noqa: E402
    BUDGET_ESTIMATES,
    SCENARIOS,
    STUDY_SMOOTHERS,
    hierarchy_l1_study,
    tree_pmfs,
    zip_levels,
)

SEED = 42
TOLERANCES = (0.0, 0.05)
#: CV datasets beyond amazon, with columns to treat as categorical (a calendar date
#: determines the weekday: declared so that the date is not binned)
EXTRA_CV = {"soybean": None, "electricity": ["date", "day"]}


def label(name: str) -> str:
    """A smoother's display label, from the registry."""
    return smoother(name).label


def _manifest() -> dict[str, dict]:
    entries = json.loads((datasets_dir() / "manifest.json").read_text())
    return {e["name"]: e for e in entries}


def _load(name: str, entry: dict) -> tuple[pd.DataFrame, pd.Series]:
    df = pd.read_csv(datasets_dir() / f"{name}.csv.gz")
    return df.drop(columns=[entry["target"]]), df[entry["target"]]


# ---------------------------------------------------------------------------- synthetic
def synthetic(reps: int) -> None:
    print(f"\n## Known truth: mean l1 error over classes and {reps} repetitions (3 classes)\n")
    smoothers = (*STUDY_SMOOTHERS, "heb-h-pooled-base")
    for scenario in ("hierarchy", "flat"):
        rows = hierarchy_l1_study(
            K_values=((4, 5, 10), (10, 10, 10)),
            N_values=(50, 200, 1000, 5000),
            scenario=scenario,
            reps=reps,
            smoothers=smoothers,
        )
        table = defaultdict(dict)
        for r in rows:
            table[r["K"], r["N"]][r["smoother"]] = r["mean"]
            table[r["K"], r["N"]]["unseen"] = r["unseen_mass"]
        print(f"scenario {scenario!r}")
        laplace, hebm, hebh = (label(n) for n in ("laplace", "heb-m", "heb-h"))
        print(f"| K | N | K/N | {laplace} | {hebm} | {hebh} | {hebh} (prior-mean) | "
              f"{hebh} (pooled base, best model) | H / M | pooled base / M | "
              "unseen mass |")  # fmt: skip
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (K, N), v in table.items():
            print(
                f"| {K} | {N} | {K / N:.2f} | {v['laplace']:.4f} | {v['heb-m']:.4f} | "
                f"{v['heb-h']:.4f} | {v['heb-h-prior-mean']:.4f} | "
                f"{v['heb-h-pooled-base']:.4f} | {v['heb-h'] / v['heb-m']:.3f} | "
                f"{v['heb-h-pooled-base'] / v['heb-m']:.3f} | {v['unseen']:.4f} |"
            )
        print()


# ---------------------------------------------------------------------------- error budget
def _learned_levels(shape, N: int, reps: int, n_classes: int = 3, seed: int = 1) -> dict:
    """HEB-H's learned m and base b per level on one draw of the "hierarchy" truth:
    medians, the share of m clamped high, and the mean weight of the tree."""
    levels = zip_levels(*shape)
    K = levels[0].size
    rng = np.random.default_rng([seed, K, N])
    truth = SCENARIOS["hierarchy"]
    theta = np.stack([tree_pmfs(levels, n_classes, rng=rng, **truth)[1] for _ in range(reps)], 1)
    counts = rng.multinomial(N, theta).reshape(n_classes, reps * K).astype(np.float64)
    table = CountTable(np.full(n_classes, float(N)), counts, category_offsets(np.full(reps, K)))
    fit = fit_nested(table, dict.fromkeys(range(reps), levels))
    found = fit.levels
    out = {"weight": found["hierarchy_weight"][found["level"] == 0].mean()}
    for lv, true_m in enumerate(truth["concentrations"]):
        mine = found["level"] == lv
        out[lv] = (true_m, np.median(found["m"][mine]), (found["clamped"][mine] == 1).mean())
    for lv in (0, 1):  # a Dirichlet(1, ..., 1) split: b = the number of children
        b = fit.base["b"][fit.base["level"] == lv]
        out["b", lv] = (shape[2 - lv], np.nanmedian(b) if np.isfinite(b).any() else np.nan)
    return out


def budget(reps: int) -> None:
    print(f"\n## Error budget of HEB-H, 'hierarchy' truth ({reps} repetitions, 3 classes)\n")
    names = {
        "heb-m": "HEB-M", "heb-h-pooled-base": "pooled base, best model (before)",
        "heb-h": "HEB-H", "heb-h-best": "best model", "heb-h-no-select": "tree only",
        "heb-h-true-m": "tree, true m", "oracle-seen": "true m, true splits of the seen codes",
        "oracle": "oracle",
    }  # fmt: skip
    print("| K | N | K/N | " + " | ".join(names[n] for n in BUDGET_ESTIMATES)
          + " | unseen mass | H / M | best model / M | tree / M | seen oracle / M |")  # fmt: skip
    print("|---:|---:|---:|" + "---:|" * (len(BUDGET_ESTIMATES) + 5))
    shapes = ((4, 5, 10), (10, 10, 10))
    for shape in shapes:
        rows = hierarchy_l1_study((shape,), (50, 200, 1000), reps=reps, smoothers=BUDGET_ESTIMATES)
        table = defaultdict(dict)
        for r in rows:
            table[r["K"], r["N"]][r["smoother"]] = r["mean"]
            table[r["K"], r["N"]]["unseen"] = r["unseen_mass"]
        for (K, N), v in table.items():
            cells = " | ".join(f"{v[name]:.4f}" for name in (*BUDGET_ESTIMATES, "unseen"))
            ratios = (v["heb-h"], v["heb-h-best"], v["heb-h-no-select"], v["oracle-seen"])
            print(f"| {K} | {N} | {K / N:.2f} | {cells} | "
                  + " | ".join(f"{x / v['heb-m']:.3f}" for x in ratios) + " |")  # fmt: skip
    print("\nLearned m per level (median, share clamped at m_max) against the truth, the")
    print("learned base b (median; the truth's is the number of children) and the tree's")
    print("mean weight at the leaves:\n")
    print("| K | N | tree weight | codes: true / median / clamped | prefixes | regions | "
          "b codes: true / median | b prefixes |")  # fmt: skip
    print("|---:|---:|---:|---|---|---|---|---|")
    for shape in shapes:
        for N in (50, 200, 1000):
            out = _learned_levels(shape, N, reps)
            cells = " | ".join(
                f"{true_m:g} / {median:.3g} / {clamped:.0%}"
                for true_m, median, clamped in (out[lv] for lv in range(3))
            )
            bases = " | ".join(
                f"{true_b} / {b:.3g}" for true_b, b in (out["b", lv] for lv in (0, 1))
            )
            print(f"| {int(np.prod(shape))} | {N} | {out['weight']:.2f} | {cells} | {bases} |")


# ---------------------------------------------------------------------------- detection
def _factorised(X: pd.DataFrame) -> np.ndarray:
    return np.column_stack([pd.factorize(X[c])[0] for c in X.columns])


def detect() -> None:
    print("\n## Functional dependencies between columns (raw values, all rows)\n")
    for name, entry in _manifest().items():
        X, _ = _load(name, entry)
        codes = _factorised(X)
        for tol in TOLERANCES:
            found = functional_dependencies(codes, list(X.columns), tolerance=tol)
            declared = set(entry.get("categorical_features") or [])
            for dep in found:
                kind = "categorical" if {dep.child_name, dep.parent_name} <= declared else "other"
                print(f"{name:24s} tol {tol:.2f}  {dep}  [{kind} columns]")


# ---------------------------------------------------------------------------- CV
def _fold_hierarchies(codes: np.ndarray, tol: float) -> tuple[dict, list[str]]:
    deps = functional_dependencies(codes, tolerance=tol)
    chains = dependency_chains(deps)
    hierarchies = {child: levels_from_chain(codes, child, chain) for child, chain in chains.items()}
    return hierarchies, chains


def cross_validate(dataset: str, X: pd.DataFrame, y: pd.Series, categorical) -> None:
    X, y = stratified_subsample(X, y, 20_000, SEED)
    y_idx, classes = encode_target(y)
    folds = StratifiedKFold(10, shuffle=True, random_state=SEED)
    scores = defaultdict(lambda: defaultdict(list))
    used_share, chains_seen = defaultdict(list), {}
    for train, test in folds.split(X, y_idx):
        prep = Preprocessor(categorical=categorical)
        tr = prep.fit_transform(X.iloc[train])
        te = prep.transform(X.iloc[test])
        names = prep.feature_names_out_
        models = {label(n): NaiveBayes(n) for n in ("laplace", "heb-m")}
        for tol in TOLERANCES:
            hierarchies, chains = _fold_hierarchies(tr, tol)
            chains_seen[tol] = {names[c]: [names[p] for p in ch] for c, ch in chains.items()}
            models[f"{label('heb-h')} (FD tol {tol:.2f})"] = NaiveBayes(
                "heb-h", hierarchies=hierarchies
            )
            for base in ("heb-m", "heb-h"):
                given = f"{label(base)}, child given parent (FD tol {tol:.2f})"
                models[given] = HierarchicalNaiveBayes(base, fd_tolerance=tol)
        for model_name, model in models.items():
            start = time.perf_counter()
            model.fit(tr, y_idx[train])
            scores[model_name]["fit_ms"].append(1e3 * (time.perf_counter() - start))
            proba = np.zeros((test.size, classes.size))
            proba[:, model.classes_] = model.predict_proba(te)
            for metric, value in compute_metrics(y_idx[test], proba).items():
                scores[model_name][metric].append(value)
            hierarchies = getattr(model, "hierarchies_", model.hierarchies)
            if hierarchies and model.smoother == "heb-h":  # diagnostics, outside the timing
                levels = fit_nested(model.count_table_, hierarchies).levels
                mine = (levels["level"] == 0) & np.isin(levels["feature"], list(hierarchies))
                used = levels["hierarchy_used"][mine]
                used_share[model_name].append(used.mean() if used.size else np.nan)
    print(f"\n### {dataset}: {len(y)} rows, {classes.size} classes, 10-fold CV (seed {SEED})\n")
    for tol, chains in chains_seen.items():
        shown = "; ".join(f"{c} -> {' -> '.join(p)}" for c, p in chains.items()) or "none"
        print(f"- hierarchies (FD tol {tol:.2f}, last fold): {shown}")
    metric_names = ["log_loss", "brier", "ece", "accuracy", "auc"]
    header = " | ".join(METRICS[m].label for m in metric_names)
    print(f"\n| model | {header} | fit ms | pairs using the hierarchy |")
    print("|---|" + "---:|" * (len(metric_names) + 2))
    for model_name, values in scores.items():
        cells = " | ".join(
            f"{np.mean(values[m]):.4f} ± {np.std(values[m], ddof=1):.4f}" for m in metric_names
        )
        used = used_share.get(model_name)
        share = f"{np.nanmean(used):.0%}" if used else "-"
        print(f"| {model_name} | {cells} | {np.median(values['fit_ms']):.1f} | {share} |")


def timing(repeats: int = 7) -> None:
    """CPU time of the HEB-H rules against HEB-M's on amazon's count table, same process."""
    name = "amazon-employee-access"
    entry = _manifest()[name]
    X, y = _load(name, entry)
    X, y = stratified_subsample(X, y, 20_000, SEED)
    codes = Preprocessor(categorical=entry.get("categorical_features")).fit_transform(X)
    y_idx, classes = encode_target(y)
    table = CountTable.from_codes(codes, y_idx, classes.size)
    print(f"\n## Fit CPU time on {name} (20,000 rows): best of {repeats}, ratio to HEB-M\n")
    print("| hierarchies | HEB-M ms | HEB-H ms | H / M | pooled base, best model: ms | H / M |")
    print("|---|---:|---:|---:|---:|---:|")

    def cpu_ms(run) -> float:
        times = []
        for _ in range(repeats):
            start = time.process_time()
            run()
            times.append(1e3 * (time.process_time() - start))
        return min(times)

    for tol in TOLERANCES:
        hierarchies, _ = _fold_hierarchies(codes, tol)
        hebm = cpu_ms(lambda: smooth(table, "heb-m"))
        hebh = cpu_ms(lambda h=hierarchies: fit_nested(table, h))
        before = cpu_ms(lambda h=hierarchies: fit_nested(table, h, base="pooled", select="best"))
        print(f"| FD tol {tol:.2f} ({len(hierarchies)} features) | {hebm:.1f} | {hebh:.1f} | "
              f"{hebh / hebm:.2f} | {before:.1f} | {before / hebm:.2f} |")  # fmt: skip


def cv() -> None:
    manifest = _manifest()
    for name in ("amazon-employee-access", *EXTRA_CV):
        entry = manifest[name]
        X, y = _load(name, entry)
        categorical = EXTRA_CV.get(name) or entry.get("categorical_features") or None
        cross_validate(name, X, y, categorical)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("synthetic", "budget", "detect", "cv", "timing", "all"))
    parser.add_argument("--reps", type=int, default=200, help="synthetic repetitions")
    args = parser.parse_args()
    if args.part in ("synthetic", "all"):
        synthetic(args.reps)
    if args.part in ("budget", "all"):
        budget(args.reps)
    if args.part in ("detect", "all"):
        detect()
    if args.part in ("cv", "all"):
        cv()
    if args.part in ("timing", "all"):
        timing()


if __name__ == "__main__":
    main()
