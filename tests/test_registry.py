"""The registry is the one place to add a smoother or a metric: a toy of each, added in
two places, reaches smoothing, NaiveBayes, the CV results, the CLI tables and the labels."""

from __future__ import annotations

import numpy as np
import pytest

from heb import cli, registry, smoothing
from heb.counts import CountTable
from heb.evaluate import ResultCache, benchmark_tables, cross_validate, run_benchmark
from heb.metrics import all_metrics
from heb.nb import NaiveBayes

TOY_ALPHA = registry.Param("alpha", 3.0, 0.5, 8.0, "toy's alpha", (1.0, 3.0))


def toy_rule(table: CountTable, prior: np.ndarray, params: dict) -> tuple:
    """A rule no built-in smoother uses: m_cf = alpha sqrt(K_f)."""
    m_cf = np.broadcast_to(
        params["alpha"] * np.sqrt(table.n_categories), (table.n_classes, table.n_features)
    )
    col = table.feature_of_column
    n_cf = table.class_feature_totals()
    theta = (table.counts + m_cf[:, col] * prior) / (n_cf[:, col] + m_cf[:, col])
    return theta, m_cf.copy(), None, None


def rows_in_fold(y, proba) -> float:
    """A toy metric: the size of the test fold."""
    return float(len(y))


@pytest.fixture()
def toys():
    # a smoother: place 1, its formula; place 2, its entry (its NB method follows)
    smoothing.register_rule("toy-sqrt", toy_rule)
    registry.register_smoother(
        registry.Smoother(
            "toy", "Toy", "toy-sqrt", "marginal", "#123456", "toy", params=(TOY_ALPHA,)
        )
    )
    # a metric: place 1, its function (above); place 2, its entry
    registry.register_metric(
        registry.Metric("rows", "Rows", "Rows per fold", False, rows_in_fold, "test rows")
    )
    yield
    registry.unregister("smoother", "toy")
    registry.unregister("metric", "rows")
    smoothing.unregister_rule("toy-sqrt")


@pytest.fixture()
def cache(tmp_path) -> ResultCache:
    return ResultCache(tmp_path / "results")


def _table() -> CountTable:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(60, 3))
    return CountTable.from_codes(codes, rng.integers(0, 2, size=60), 2)


def test_a_toy_smoother_reaches_smooth_and_naive_bayes(toys):
    table = _table()
    theta = np.exp(smoothing.smooth(table, "toy", alpha=2.0).log_theta)
    # by hand: (N_cfv + 2 sqrt(4) tbar_v) / (N_cf + 2 sqrt(4)), tbar the pooled marginal
    n_fv = table.category_totals()
    tbar = n_fv / np.repeat(np.add.reduceat(n_fv, table.offsets[:-1]), 4)
    n_cf = table.class_feature_totals()[:, table.feature_of_column]
    np.testing.assert_allclose(theta, (table.counts + 4 * tbar) / (n_cf + 4), rtol=1e-12)
    default = np.exp(smoothing.smooth(table, "toy").log_theta)  # alpha defaults to 3
    np.testing.assert_allclose(default, (table.counts + 6 * tbar) / (n_cf + 6), rtol=1e-12)
    model = NaiveBayes("toy", alpha=2.0).fit_counts(table)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), theta, rtol=1e-12)
    with pytest.raises(ValueError, match=r"alpha must lie in \[0.5, 8\]"):
        NaiveBayes("toy", alpha=0.1).fit_counts(table)
    with pytest.raises(ValueError, match="toy does not use m"):
        NaiveBayes("toy", m=2.0).fit_counts(table)
    assert registry.method_of_smoother("toy").name == "Toy"
    assert "toy" in smoothing.SMOOTHERS


def test_toys_reach_the_cv_results(toys, cache):
    from heb.data import load_builtin

    result = cross_validate(load_builtin("iris"), ["Laplace", "Toy"], n_splits=3, cache=cache)
    assert list(result.folds["method"].unique()) == ["Laplace", "Toy"]
    # the toy metric is a column; its fold sizes add up to every row, per method
    assert result.folds.groupby("method")["rows"].sum().tolist() == [150.0, 150.0]
    assert "rows_mean" in result.summary().columns
    np.testing.assert_allclose(result.oof_proba["Toy"].sum(axis=1), 1.0)
    assert not np.allclose(result.oof_proba["Toy"], result.oof_proba["Laplace"])
    # the toy's what-if parameter travels through the overrides and changes the result
    other = cross_validate(
        load_builtin("iris"), ["Toy"], params={"Toy": {"alpha": 8.0}}, n_splits=3, cache=cache
    )
    assert not np.allclose(other.oof_proba["Toy"], result.oof_proba["Toy"])


def test_toys_reach_the_cli_tables_and_the_labels(toys, cache, monkeypatch, tmp_path):
    from heb.data import load_builtin

    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    datasets = [load_builtin("iris"), load_builtin("wine")]
    methods = [*registry.TABLE1_METHODS, "Toy"]
    frame = run_benchmark(datasets, methods, n_splits=3).assign(variant="main")
    table1 = cli.table1(frame)
    assert "Rows" in set(table1["metric"])  # a row per registered metric, by its label
    times = cli.table8(frame)
    assert "Toy" in times.columns
    # direction and label come from the registry entry
    assert registry.METRIC_LABELS["rows"] == "Rows"
    assert registry.HIGHER_IS_BETTER["rows"] is False
    ranks = benchmark_tables(frame, "rows")["avg_ranks"]
    assert ranks.notna().all()
    from heb.figures import style

    assert style.method_color("Toy") == "#123456"
    assert style.method_color("toy") == "#123456"  # the smoother's name is an alias
    assert style.metric_title("rows") == "Rows per fold"


def test_unregistering_removes_the_toys(toys):
    registry.unregister("smoother", "toy")
    registry.unregister("metric", "rows")
    smoothing.unregister_rule("toy-sqrt")
    assert "Toy" not in registry.METHODS and "rows" not in registry.METRICS
    with pytest.raises(ValueError, match="Unknown smoother"):
        NaiveBayes("toy").fit_counts(_table())
    smoothing.unregister_rule("additive")  # the built-in rules stay
    assert "additive" in smoothing.RULES


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("TAN", "heb.TAN(smoother='laplace')"),
        ("heb-aode", "heb.AODE(smoother='heb')"),
        ("HEB-M+GR", "NaiveBayes(smoother='heb-m', weighting='sqrt-mi')"),
        ("CategoricalNB", "reference model"),
    ],
)
def test_a_method_given_as_a_smoother_says_what_to_write(name, says):
    """NaiveBayes(smoother="TAN") / ("HEB-M+GR"), names from the app's method list, said
    only "Unknown smoother ...; choose one of laplace, ...", nothing of TAN or weighting."""
    with pytest.raises(ValueError, match="Unknown smoother") as caught:
        NaiveBayes(smoother=name).fit(np.array([[0], [1]]), [0, 1])
    assert says in str(caught.value)


def test_registering_twice_is_refused():
    with pytest.raises(ValueError, match="registered already"):
        smoothing.register_rule("additive", toy_rule)
    with pytest.raises(ValueError, match="registered already"):
        registry.register_metric(registry.metric("accuracy"))
    with pytest.raises(ValueError, match="family must be one of"):
        registry.register_method(registry.Method("X", "forest", {}, "#000000", "x"))


def test_a_smoother_naming_no_rule_is_a_clear_error():
    registry.register_smoother(
        registry.Smoother("ghost", "Ghost", "no-such-rule", "uniform", "#000000", "ghost")
    )
    try:
        with pytest.raises(ValueError, match="no smoothing rule named 'no-such-rule'"):
            smoothing.smooth(_table(), "ghost")
    finally:
        registry.unregister("smoother", "ghost")


def test_compute_metrics_fast_path_equals_each_metric():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=40)
    y = rng.integers(0, 3, size=40)
    out = registry.compute_metrics(y, proba)
    assert list(out) == list(registry.METRICS)
    for name, entry in registry.METRICS.items():
        assert out[name] == pytest.approx(entry.compute(y, proba), rel=1e-12, abs=1e-15)
    assert set(all_metrics(y, proba)) == set(out)


def test_a_replaced_builtin_metric_is_computed_by_its_new_function():
    original = registry.metric("accuracy")
    registry.unregister("metric", "accuracy")
    try:
        registry.register_metric(
            registry.Metric("accuracy", "Acc", "Acc", True, lambda y, p: -1.0, "replaced")
        )
        y, proba = np.array([0, 1]), np.array([[0.9, 0.1], [0.2, 0.8]])
        assert registry.compute_metrics(y, proba)["accuracy"] == -1.0
    finally:
        registry.unregister("metric", "accuracy")
        registry.register_metric(original)
        # registry order is display order: put accuracy back first
        rest = [registry.metric(n) for n in list(registry.METRICS) if n != "accuracy"]
        for entry in rest:
            registry.unregister("metric", entry.name)
            registry.register_metric(entry)
    assert list(registry.METRICS)[0] == "accuracy"


def test_method_names_resolve_through_aliases():
    assert registry.resolve_method_name("heb-m") == "HEB-M"
    assert registry.resolve_method_name("Laplace GR") == "Laplace+GR"
    with pytest.raises(ValueError, match="Unknown method"):
        registry.resolve_method_name("magic")
