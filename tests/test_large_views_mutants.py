"""Tests pinning the large-file views where mutants of their code survived: per-class bins
at a bin's edge and at P = 1, the bins a scan returns kept apart from later batches, the
engine bench's reliability curves per method (and none without Table 4), and the
large-file Compare's per-class tab, what-if rescans and links, against the in-memory
views of the same out-of-fold predictions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import (
    _benchmarked,
    assert_clean,
    decode,
    figures,
    open_app,
    shown_text,
    titled,
    unescape,
    url,
)

from heb.cli import main
from heb.data import encode_target
from heb.data.parquet import read_parquet
from heb.figures.diagnostics import class_reliability, confusion_counts, confusion_scores
from heb.metrics import all_metrics, reliability, reliability_from_sums
from heb.scale import DATA_ROOT_ENV, DuckDBEngine, open_source
from heb.scale.inmemory import cross_validate_in_memory, fold_assignment
from heb.scale.streaming_metrics import ECE_EDGES, MetricSums

FILE = "three.parquet"
TARGET = "colour"
SEED = 42  # the page's and the engine's fold seed


def _three_class_rows(n: int = 1_500, seed: int = 5) -> pd.DataFrame:
    """Three classes, two informative columns and a noise one: a confusion matrix with
    every cell filled and per-class reliability over several bins."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["red", "green", "blue"], size=n, p=[0.5, 0.3, 0.2])
    code = {"red": 0, "green": 1, "blue": 2}
    a = np.array([code[v] for v in y]) * 3 + rng.integers(0, 4, size=n)
    b = np.where(rng.random(n) < 0.6, np.array([code[v] for v in y]), rng.integers(0, 3, n))
    return pd.DataFrame(
        {"a": a.astype(np.int64), "b": b.astype(np.int64), "c": rng.integers(0, 5, n), TARGET: y}
    )


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("large_views_mutants")
    _three_class_rows().to_parquet(root / FILE, index=False)
    return root


@pytest.fixture
def rooted(data_root, monkeypatch):
    monkeypatch.setenv(DATA_ROOT_ENV, str(data_root))
    return data_root


def _pooled_in_memory(root, methods: list[str], k: int) -> tuple[np.ndarray, dict]:
    """Every row's true class and each method's out-of-fold probabilities, pooled over
    the engine's hash folds, from the in-memory path."""
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(FILE, root))
    rows = read_parquet(root / FILE, max_columns=100)
    folds = fold_assignment(engine, TARGET, k, SEED)
    _, probas, _ = cross_validate_in_memory(rows, TARGET, folds, methods, return_proba=True)
    y = encode_target(rows[TARGET])[0]
    pooled_y = np.concatenate([y[folds == f] for f in range(k)])
    pooled = {m: np.vstack([probas[(m, f)] for f in range(k)]) for m in methods}
    return pooled_y, pooled


# --------------------------------------------------------------------------- sums
def _edge_batch() -> tuple[np.ndarray, np.ndarray]:
    """Rows whose probabilities sit on the bins' edges (0.3, 0.5, 0.7, 1 and 0), where a
    bin one off or a last bin past P = 1 would differ from the in-memory bins."""
    proba = np.array(
        [
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
            [0.5, 0.5, 0.0],
            [0.3, 0.7, 0.0],
            [0.2, 0.3, 0.5],
            [0.1, 0.2, 0.7],
            [0.6, 0.1, 0.3],
        ]
    )
    return np.array([0, 2, 0, 1, 1, 2, 0, 2]), proba


def test_per_class_bins_at_an_edge_and_at_one_equal_the_in_memory_ones():
    y, proba = _edge_batch()
    assert np.all(np.isin([0.3, 0.5, 0.7, 1.0], ECE_EDGES))  # the rows sit on edges
    sums = MetricSums(3).update(y, proba).class_bins()
    np.testing.assert_array_equal(sums["confusion"], confusion_counts(y, proba))
    for c, want in enumerate(class_reliability(y, proba)):
        got = reliability_from_sums(
            ECE_EDGES, sums["rows"][c], sums["prob_sum"][c], sums["hit_sum"][c]
        )
        np.testing.assert_array_equal(got["count"], want["count"])
        for key in ("confidence", "accuracy", "ece"):
            np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "y, proba",
    [  # one side of [0, 1] only: a round-off above one, then one below zero
        ([0, 1, 1, 0], [[0.0, 1.0 + 2.2e-16], [0.0, 1.0], [0.7, 0.3], [0.2, 0.8]]),
        (
            [0, 1, 2, 0],
            [[0.0, 0.5, 0.5], [-2.2e-16, 0.6, 0.4 + 2.2e-16], [0.7, 0.2, 0.1], [0.1, 0.1, 0.8]],
        ),
    ],
    ids=["above-one", "below-zero"],
)
def test_round_off_on_one_side_of_the_unit_interval_is_clipped_as_in_memory(y, proba):
    y, proba = np.array(y), np.array(proba)
    got = MetricSums(proba.shape[1]).update(y, proba).result()
    for name, value in all_metrics(y, proba).items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_the_bins_a_scan_hands_over_are_not_changed_by_later_batches():
    """A fold's bins go into the result while the accumulator may still be added to (a
    merge of a later partition): what was handed over stays as it was."""
    rng = np.random.default_rng(3)
    first = MetricSums(3).update(*_edge_batch())
    top1, per_class = first.reliability_bins(), first.class_bins()
    frozen = [{k: v.copy() for k, v in d.items()} for d in (top1, per_class)]
    proba = rng.dirichlet(np.ones(3), size=50)
    first.update(rng.integers(0, 3, size=50), proba)
    for handed, kept in zip((top1, per_class), frozen, strict=True):
        for key, value in kept.items():
            np.testing.assert_array_equal(handed[key], value, err_msg=key)


# --------------------------------------------------------------------------- CLI
def _bench(tmp_path, tables: str, monkeypatch) -> dict:
    """``bench --engine duckdb`` on the three-class file; the curves its figures got."""
    import heb.cli as cli

    drawn: dict = {}

    def capture(curves, out, report):
        drawn.update(curves)
        return {}

    monkeypatch.setattr(cli, "_reliability_figures", capture)
    argv = ["bench", str(tmp_path / FILE), "--engine", "duckdb", "--tables", tables]
    argv += ["--folds", "3", "--target", TARGET, "-o", str(tmp_path / "o"), "--no-cache"]
    assert main(argv) == 0
    return drawn


def test_engine_bench_draws_each_method_s_own_pooled_curve(tmp_path, monkeypatch):
    _three_class_rows().to_parquet(tmp_path / FILE, index=False)
    drawn = _bench(tmp_path, "4", monkeypatch)
    curves = drawn["three"]
    y, pooled = _pooled_in_memory(tmp_path, list(curves), 3)
    assert len(curves) == 3
    for method, got in curves.items():
        want = reliability(y, pooled[method])
        np.testing.assert_array_equal(got["count"], want["count"], err_msg=method)
        for key in ("confidence", "accuracy", "ece"):
            np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-12, err_msg=method)


def test_engine_bench_without_table_4_draws_no_reliability_diagram(tmp_path, monkeypatch):
    """As in memory (Table 4 asks for them): a Table 8 run of the same methods draws none."""
    _three_class_rows().to_parquet(tmp_path / FILE, index=False)
    assert _bench(tmp_path, "8", monkeypatch) == {}


def test_engine_bench_names_each_bin_count_s_run_for_table_7(tmp_path):
    """Table 7's runs at other bin counts carry their count in the method name, so the
    table reads each count's own folds (cross-validated on the engine at that count)."""
    from heb.scale import cross_validate

    _three_class_rows().to_parquet(tmp_path / FILE, index=False)
    argv = ["bench", str(tmp_path / FILE), "--engine", "duckdb", "--tables", "7", "--folds", "2"]
    argv += ["--target", TARGET, "-o", str(tmp_path / "o"), "--no-cache", "--no-figures"]
    assert main(argv) == 0
    folds = pd.read_csv(tmp_path / "o" / "folds.csv")
    main_methods = set(folds.loc[folds["variant"] == "main", "method"])
    assert "HEB-M" in main_methods
    for variant, rows in folds[folds["variant"] != "main"].groupby("variant"):
        assert variant.startswith("bins=")
        assert set(rows["method"]) == {f"{m} [{variant}]" for m in main_methods}
    table = pd.read_csv(tmp_path / "o" / "table7_bins.csv")
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(FILE, tmp_path))
    for n_bins in (5, 10):
        want = cross_validate(engine, TARGET, ["HEB-M"], n_splits=2, seed=SEED, n_bins=n_bins)
        got = table.loc[(table["n_bins"] == n_bins) & (table["method"] == "HEB-M"), "log_loss"]
        assert got.item() == pytest.approx(want.folds["log_loss"].mean(), abs=1e-12), n_bins


# --------------------------------------------------------------------------- page
def _compared(methods: str, **query: str):
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods=methods, **query)
    at.button(key="large_go").click().run()
    assert_clean(at)
    return at


def test_per_class_tab_shows_the_chosen_method_s_in_memory_views(rooted):
    at = _compared("Laplace,HEB-M", folds="3")
    at.session_state["large_compare_tab"] = "Per class"
    at.run()
    at.selectbox(key="w_diag_method").select("HEB-M").run()  # not the first method
    assert_clean(at)
    y, pooled = _pooled_in_memory(rooted, ["Laplace", "HEB-M"], 3)
    matrix = confusion_counts(y, pooled["HEB-M"])
    assert not np.array_equal(matrix, matrix.T)  # a transposed matrix reads otherwise
    heat = titled(figures(at), "Confusion matrix: HEB-M")["data"][0]
    np.testing.assert_array_equal(decode(heat["customdata"]), matrix)
    scores = next(d for d in at.dataframe if "recall" in d.value.columns).value
    names = ["blue", "green", "red"]  # encode_target's order
    want = confusion_scores(matrix, names)
    assert list(scores["rows"]) == list(want["rows"])
    for column in ("precision", "recall", "F1"):
        np.testing.assert_allclose(scores[column], want[column], rtol=0, atol=1e-12)
    lines = titled(figures(at), "One-vs-rest reliability: HEB-M")["data"][1:]
    expected = class_reliability(y, pooled["HEB-M"])
    other = class_reliability(y, pooled["Laplace"])
    assert any(a["ece"] != b["ece"] for a, b in zip(expected, other, strict=True))
    assert len(lines) == 3
    for line in lines:
        c = names.index(line["name"].split(" (ECE")[0])
        keep = expected[c]["count"] >= 5
        assert line["name"] == f"{names[c]} (ECE {expected[c]['ece']:.3f})"
        np.testing.assert_allclose(decode(line["x"]), expected[c]["confidence"][keep], atol=1e-12)
        np.testing.assert_allclose(decode(line["y"]), expected[c]["accuracy"][keep], atol=1e-12)


def test_a_linked_method_of_the_closed_per_class_tab_stays_in_the_link(rooted):
    at = _compared("Laplace,HEB-M", folds="3", diag_method="HEB-M")
    assert not [f for f in figures(at) if "Confusion" in str(f["layout"]["title"])]
    assert url(at, "diag_method") == "HEB-M"


def test_the_large_file_s_what_if_note_says_a_change_scores_that_smoother_on_every_row(rooted):
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods="Laplace,Lidstone")
    assert_clean(at)
    notes = " ".join(unescape(m.value) for m in at.markdown)
    assert "only that smoother is scored again, on every row" in notes
    assert "re-smoothed, from the fold" not in notes


def test_a_folds_change_after_a_comparison_waits_for_the_button(rooted):
    """Only a what-if knob rescans by itself: new folds wait for the button, as before the
    first comparison (a scan of every row is not started by a change of the data's folds)."""
    at = _compared("Laplace,Lidstone", folds="3")
    assert [d for d in at.dataframe if "method" in d.value.columns]
    at.segmented_control(key="w_folds").set_value(5).run()
    assert_clean(at)
    assert not [d for d in at.dataframe if "method" in d.value.columns]
    at.segmented_control(key="w_whatif_alpha").set_value(0.01).run()  # no comparison of 5
    assert not [d for d in at.dataframe if "method" in d.value.columns]


def test_nemenyi_p_values_below_a_thousandth_read_as_the_cli_writes_them(monkeypatch):
    """Three built-in datasets give no Nemenyi p below 0.001; with one there, the page
    writes it "<0.001" as the CLI's tables do (a fixed "{:.3f}" wrote 0.000)."""
    from explorer import benchmarking
    from heb.evaluate.paper import format_p

    computed = benchmarking.metric_views

    def with_a_tiny_p(key, metric, frame, presenting=False):
        tables, fig = computed(key, metric, frame, presenting)
        pvalues = tables["pvalues"].copy()
        pvalues.iloc[0, 1] = pvalues.iloc[1, 0] = 2e-5
        return {**tables, "pvalues": pvalues}, fig

    monkeypatch.setattr(benchmarking, "metric_views", with_a_tiny_p)
    at = _benchmarked()
    nemenyi = next(t for t in at.dataframe if list(t.value.index) == list(t.value.columns))
    text = shown_text(nemenyi).to_numpy()
    assert text[0, 1] == "<0.001"
    expected = np.vectorize(format_p)(nemenyi.value.to_numpy(dtype=float))
    np.testing.assert_array_equal(text, expected)
