"""Tests written from a mutation-testing session (session 31b): each kills a mutant that
survived the existing suite in the scale layer, the evaluation protocol, Explain or AODE."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from heb.data import DataError
from heb.metrics import auc_ovr
from heb.scale.counting import describe
from heb.scale.cv import cross_validate
from heb.scale.sql import DUCKDB, FOLD, TARGET, rows_query
from heb.scale.streaming_metrics import MetricSums


def _rows(n, n_classes, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    logits = rng.normal(size=(n, n_classes)) + 1.5 * np.eye(n_classes)[y]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, proba


def test_merging_a_gridded_partition_into_an_exact_one_grids_both():
    """Merging a partition already on the AUC logit grid must grid the receiver too.

    Guards against ``merge`` passing ``grid=False`` for a gridded partition: its bin indices
    were then mixed with raw probabilities and the AUC was nonsense.
    """
    y1, p1 = _rows(400, 2, 1)
    y2, p2 = _rows(50, 2, 2)
    gridded = MetricSums(2, max_distinct=100).update(y1, p1)
    assert gridded.state["auc_grid"][0] == 1.0
    exact = MetricSums(2, max_distinct=100).update(y2, p2)
    assert exact.state["auc_grid"][0] == 0.0
    merged = exact.merge(gridded).result()
    y, proba = np.concatenate([y2, y1]), np.vstack([p2, p1])
    assert merged["auc_bound"] < 0.01
    assert abs(merged["auc"] - auc_ovr(y, proba)) <= merged["auc_bound"] + 1e-12


@pytest.fixture
def small_engine(tmp_path):
    pytest.importorskip("duckdb")
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source

    frame = pd.DataFrame(
        {
            "a": ["x", "y", "z", "x"] * 30,
            "b": np.arange(120, dtype=np.float64),
            "label": ["p", "q", "q"] * 40,
        }
    )
    frame.to_parquet(tmp_path / "small.parquet", index=False)
    engine = DuckDBEngine(memory_limit="256MB", threads=1)
    engine.register(open_source("small.parquet", root=tmp_path))
    try:
        yield engine
    finally:
        engine.close()


def test_rows_query_of_some_folds_returns_only_their_rows(small_engine):
    """``rows_query(..., folds=[1])`` must keep the rows of fold 1 only.

    Guards against dropping the ``WHERE fold IN (...)`` filter: every grouped scan then
    read (and shipped to the workers) all the rows, not its folds'.
    """
    dialect = small_engine.dialect
    every = small_engine.table(rows_query(dialect, "label", ["a"], 3, 42)).to_pandas()
    assert set(every[FOLD]) == {0, 1, 2}
    some = small_engine.table(rows_query(dialect, "label", ["a"], 3, 42, folds=[1])).to_pandas()
    assert len(some) == int((every[FOLD] == 1).sum()) > 0
    assert set(some[FOLD]) == {1}


def test_k_max_counts_a_numeric_feature_at_most_its_bins(small_engine):
    """K_max caps a numeric feature at ``n_bins`` values (as ``dataset_k_max`` in memory).

    Guards against counting a numeric column's raw distinct values (120 here), which put
    any dataset with a continuous column into Table 3's high-cardinality group.
    """
    result = cross_validate(small_engine, "label", ["Laplace"], n_splits=3, n_bins=10)
    assert result.k_max == 10


def test_one_fold_is_refused_before_any_scan(small_engine):
    """``n_splits=1`` is refused with the sentence that names the rule.

    Guards against the bound ``n_splits < 2`` slipping to ``< 1``.
    """
    with pytest.raises(ValueError, match="n_splits must be at least 2, got 1"):
        cross_validate(small_engine, "label", ["Laplace"], n_splits=1)


def test_a_float_id_column_without_a_finite_value_stays_numeric(tmp_path):
    """An ID-named float column needs at least one finite whole number to be categorical.

    Guards against ``_whole_numbers`` answering True when it saw no finite value (only NaN
    and infinities): the column then became categorical, its infinities categories.
    """
    pytest.importorskip("duckdb")
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source

    frame = pd.DataFrame(
        {
            "row_id": [np.inf, -np.inf, np.nan, np.inf] * 10,
            "whole_id": [1.0, 2.0, 3.0, np.nan] * 10,
            "label": ["p", "q"] * 20,
        }
    )
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    engine = DuckDBEngine(memory_limit="256MB", threads=1)
    try:
        engine.register(open_source("ids.parquet", root=tmp_path))
        columns = describe(engine, "label")
    finally:
        engine.close()
    kinds = dict(zip(columns.features, columns.kinds, strict=True))
    assert kinds == {"row_id": "numeric", "whole_id": "categorical"}


@pytest.mark.parametrize("name", [FOLD, TARGET])
def test_rows_query_refuses_a_feature_named_like_its_own_columns(name):
    """A feature named ``__fold`` or ``__y`` would be a second result column of that name.

    Guards against dropping the clash check of ``rows_query``.
    """
    with pytest.raises(DataError, match="keeps for itself"):
        rows_query(DUCKDB, "label", ["colour", name], 3, 42)


@pytest.fixture(scope="module")
def iris():
    from heb.data import load_builtin

    return load_builtin("iris")


def test_fit_time_of_a_count_fitted_method_includes_the_fold_counting(iris):
    """NB's fit time re-smooths one count table, so it adds the fold's counting time.

    Guards against ``_fit_fold`` returning the smoothing time alone, which made every NB
    method look nearly free in Table 8 next to AODE and TAN (which count themselves).
    """
    from heb.evaluate.cv import FAMILY_ESTIMATORS, _fit_fold, method_spec
    from heb.evaluate.folds import prepare_folds
    from heb.evaluate.settings import RunSettings

    prepared = prepare_folds(iris, RunSettings(n_splits=3))
    fold = dataclasses.replace(prepared.folds[0], count_time=5.0)
    spec = method_spec("Laplace")
    _, fit_time = _fit_fold(FAMILY_ESTIMATORS[spec["model"]], spec["params"], fold, 3)
    assert 5.0 <= fit_time < 6.0


def test_a_run_of_every_row_has_no_subsample_note(iris):
    """Only a run that left rows out says it used a subsample.

    Guards against ``len(X) <= len(dataset.X)``: every run then claimed "Used a stratified
    subsample of 150 of 150 rows".
    """
    from heb.evaluate.folds import is_subsample_note, prepare_folds
    from heb.evaluate.settings import RunSettings

    every = prepare_folds(iris, RunSettings(n_splits=3, max_rows=None))
    assert not any(is_subsample_note(note) for note in every.notes)
    some = prepare_folds(iris, RunSettings(n_splits=3, max_rows=60))
    assert any(is_subsample_note(note) for note in some.notes)


def test_storing_a_key_again_counts_its_bytes_once(iris):
    """Replacing a stored run must take the old run's bytes off the store's total.

    Guards against ``FoldStore.put`` forgetting to subtract them: the total then grew with
    every re-store until the byte bound evicted everything.
    """
    from heb.evaluate.folds import FoldStore, prepare_folds
    from heb.evaluate.settings import RunSettings

    prepared = prepare_folds(iris, RunSettings(n_splits=3))
    store = FoldStore(max_entries=4, max_bytes=3 * prepared.nbytes)
    for _ in range(4):
        store.put("run", prepared)
    assert store.nbytes == prepared.nbytes
    assert store.get("run") is prepared


def _bench_frame(seed=0, datasets=5, methods=("Laplace", "KT", "HEB-M")):
    rng = np.random.default_rng(seed)
    rows = [
        {"dataset": f"d{d}", "method": m, "fold": f, "log_loss": rng.random() + i}
        for d in range(datasets)
        for i, m in enumerate(methods)
        for f in range(2)
    ]
    return pd.DataFrame(rows)


def test_benchmark_tables_rank_only_the_datasets_where_every_method_ran():
    """A dataset missing one method's scores is left out of the ranks, not ranked as NaN.

    Guards against dropping ``dropna()`` in ``benchmark_tables``.
    """
    from heb.evaluate import benchmark_tables

    frame = _bench_frame()
    frame = frame[~((frame["dataset"] == "d4") & (frame["method"] == "KT"))]
    tables = benchmark_tables(frame, "log_loss")
    assert list(tables["scores"].index) == ["d0", "d1", "d2", "d3"]
    assert np.isfinite(tables["avg_ranks"]).all()
    assert list(tables["avg_ranks"]) == [1.0, 2.0, 3.0]  # lower log-loss ranks first


def test_benchmark_tables_refuse_a_single_method():
    """The statistics compare methods: one method is refused in one sentence.

    Guards against the bound on methods slipping from 2 to 1.
    """
    from heb.evaluate import benchmark_tables

    with pytest.raises(ValueError, match="two datasets and two methods"):
        benchmark_tables(_bench_frame(methods=("Laplace",)), "log_loss")


def test_benchmark_tables_rank_the_fastest_fit_first():
    """``fit_time`` is not a registry metric: lower is better, so the fastest ranks 1.

    Guards against ranking unknown columns as higher-is-better.
    """
    from heb.evaluate import benchmark_tables

    frame = _bench_frame().rename(columns={"log_loss": "fit_time"})
    ranks = benchmark_tables(frame, "fit_time")["avg_ranks"]
    assert list(ranks) == [1.0, 2.0, 3.0]


def _table3_frame():
    scores = {"AODE": 1.0, "HEB-AODE": 0.8, "TAN": 2.0, "HEB-TAN": 2.5}
    rows = [
        {"dataset": d, "method": m, "variant": "main", "log_loss": v, "k_max": k}
        for d, k in (("my-wide-data", 100), ("my-narrow-data", 99))
        for m, v in scores.items()
    ]
    return pd.DataFrame(rows)


def test_table3_reduction_is_positive_when_heb_lowers_the_log_loss():
    """Table 3's ``reduction_%`` is 100 (1 - HEB / base): +20 when HEB-AODE cuts AODE's
    log-loss from 1.0 to 0.8, -25 when HEB-TAN raises TAN's from 2.0 to 2.5.

    Guards against the sign flip ``100 (HEB / base - 1)``.
    """
    from heb.evaluate.paper import table3

    table = table3(_table3_frame()).set_index("dataset")
    assert table.loc["my-wide-data", "HEB-AODE_reduction_%"] == pytest.approx(20.0)
    assert table.loc["my-wide-data", "HEB-TAN_reduction_%"] == pytest.approx(-25.0)


def test_k_max_of_exactly_100_is_high_cardinality_outside_the_catalogue():
    """Outside the catalogue, K_max >= 100 is high-cardinality: 100 is in, 99 is out.

    Guards against the bound becoming ``k_max > 100``.
    """
    from heb.evaluate.paper import is_high_cardinality, table3

    assert is_high_cardinality("my-wide-data", 100)
    assert not is_high_cardinality("my-wide-data", 99)
    assert list(table3(_table3_frame())["dataset"]) == ["my-wide-data"]


def test_table4_lists_the_high_cardinality_datasets_first():
    """Table 4 shows the high-cardinality group first, the others after (stable order).

    Guards against the sort key being inverted (high-cardinality last).
    """
    from heb.evaluate.paper import table4

    rows = [
        {"dataset": d, "method": m, "variant": "main", "ece": e}
        for d in ("mushroom", "nomao", "nursery", "click-prediction")
        for m, e in (("Laplace", 0.1), ("HEB-M+GR", 0.05))
    ]
    table = table4(pd.DataFrame(rows))
    assert list(table["group"])[:2] == ["high-cardinality"] * 2
    assert set(table["dataset"][:2]) == {"nomao", "click-prediction"}
    assert table["HEB-M+GR_vs_Laplace_change_%"].to_numpy() == pytest.approx([-50.0] * 4)


def test_table2_counts_a_win_in_each_metrics_own_direction():
    """HEB-M better than AODE on every dataset (higher accuracy, lower log-loss, ...) wins
    all of them on every metric.

    Guards against inverting the direction of ``wins`` (a lower accuracy counted a win).
    """
    from heb.evaluate.paper import table2
    from heb.registry import HIGHER_IS_BETTER, METRICS

    rows = []
    for d in range(4):
        for method, better in (("HEB-M", True), ("AODE", False)):
            row = {"dataset": f"d{d}", "method": method, "variant": "main"}
            for metric in METRICS:
                good = 0.5 + 0.1 * d if better else 0.4 + 0.05 * d
                row[metric] = good if HIGHER_IS_BETTER[metric] else 2.0 - good
            rows.append(row)
    table = table2(pd.DataFrame(rows))
    assert (table["wins"] == 4).all() and (table["datasets"] == 4).all()


def test_table4_reads_the_main_variant_only():
    """Rows of another variant (a bin-count sweep) under the same method name stay out of
    Table 4's means.

    Guards against dropping the ``variant == "main"`` filter.
    """
    from heb.evaluate.paper import table4

    rows = [
        {"dataset": "nomao", "method": "Laplace", "variant": variant, "ece": ece}
        for variant, ece in (("main", 0.1), ("bins=5", 0.5))
    ]
    table = table4(pd.DataFrame(rows))
    assert table["Laplace"].tolist() == [pytest.approx(0.1)]


def _table9_frame(fit_times):
    from heb.evaluate.paper import TABLE9_METRICS, TABLE_METHODS

    rows = []
    for d, times in enumerate(fit_times):
        for i, method in enumerate(TABLE_METHODS[9]):
            row = {"dataset": f"d{d}", "method": method, "variant": "main"}
            row |= {metric: 0.1 + 0.01 * i for metric in TABLE9_METRICS}
            row["fit_time"] = times.get(method, 1.0)
            rows.append(row)
    return pd.DataFrame(rows)


def test_table9_fit_time_ratio_is_a_geometric_mean():
    """Table 9's fit-time ratio is the geometric mean over datasets of time / HEB-M's.

    Guards against the arithmetic mean of the ratios (2.5 instead of 2 for ratios 4 and 1).
    """
    from heb.evaluate.paper import table9

    table = table9(_table9_frame([{"HEB-AODE": 4.0}, {"HEB-AODE": 1.0}])).set_index("method")
    assert table.loc["HEB-AODE", "fit time / HEB-M"] == pytest.approx(2.0)
    assert table.loc["HEB-M", "fit time / HEB-M"] == pytest.approx(1.0)


def test_table9_uses_only_datasets_where_every_method_ran():
    """A dataset missing one Table 9 method is not counted among Table 9's datasets.

    Guards against ``complete`` accepting any dataset with at least one method.
    """
    from heb.evaluate.paper import table9

    frame = _table9_frame([{}, {"HEB-AODE": 8.0}])
    frame = frame[~((frame["dataset"] == "d1") & (frame["method"] == "HistGradientBoosting"))]
    table = table9(frame).set_index("method")
    assert (table["datasets"] == 1).all()
    assert table.loc["HEB-AODE", "fit time / HEB-M"] == pytest.approx(1.0)


def test_table8_ratio_row_is_each_method_over_laplace():
    """Table 8's ``x Laplace`` row is a method's mean fit time over Laplace's (2 when it
    takes twice as long).

    Guards against the inverted ratio Laplace / method.
    """
    from heb.evaluate.paper import table8

    rows = [
        {"dataset": d, "method": m, "variant": "main", "fit_time": t}
        for d in ("a", "b")
        for m, t in (("Laplace", 1.0), ("HEB-M", 2.0))
    ]
    table = table8(pd.DataFrame(rows)).set_index("dataset")
    assert table.loc["x Laplace", "HEB-M"] == pytest.approx(2.0)
    assert table.loc["x Laplace", "Laplace"] == pytest.approx(1.0)


def test_cross_validate_refuses_a_setting_given_twice(iris):
    """``settings`` replaces n_splits & co: a changed one beside it is refused, not ignored.

    Guards against dropping the check of the arguments moved from their defaults.
    """
    from heb.evaluate import cross_validate as cv_in_memory
    from heb.evaluate.settings import RunSettings

    with pytest.raises(ValueError, match="n_splits in settings or as arguments"):
        cv_in_memory(iris, ["Laplace"], settings=RunSettings(), n_splits=5, use_cache=False)


def _toy_models():
    from heb.nb import NaiveBayes

    X = np.array([[0, 0], [0, 1], [1, 0], [2, 1], [2, 1], [1, 1], [0, 0], [2, 0]])
    y = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    return X, {name: NaiveBayes(name).fit(X, y) for name in ("laplace", "te")}


def test_a_reference_equal_to_the_target_is_replaced_by_the_runner_up():
    """Asking to explain a class against itself picks the most probable other class.

    Guards against keeping ``reference == target``, which made ``explain`` refuse the row.
    """
    from explorer.explain import Fitted

    X, models = _toy_models()
    fitted = Fitted(models, {name: m.predict(X) for name, m in models.items()})
    row = X[3]
    joint = models["te"].predict_joint_log_proba(row[None, :])[0]
    runner_up = int(np.argsort(-joint, kind="stable")[1])
    top = int(np.argmax(joint))
    assert fitted.classes_to_explain(row, top, top) == (top, runner_up)
    assert fitted.classes_to_explain(row, None, None) == (top, runner_up)


def test_decision_table_p_predicted_is_the_predicted_class_probability():
    """``P(predicted)`` is the probability of the predicted class, also when the explained
    target is another class.

    Guards against reading the target's probability there.
    """
    from explorer.explain import decision_table
    from heb.explain import explain_smoothers

    X, models = _toy_models()
    row = X[3:4]
    predicted = int(models["laplace"].predict(row)[0])
    target = (predicted + 1) % 3
    reference = (predicted + 2) % 3
    out = explain_smoothers({"laplace": models["laplace"]}, row, target, reference)
    table = decision_table(out, ["a", "b", "c"], true_class=predicted)
    proba = models["laplace"].predict_proba(row)[0]
    assert table.loc[0, "predicts"] == "abc"[predicted]
    assert table.loc[0, "P(predicted)"] == pytest.approx(proba[predicted])
    assert table.loc[0, "P(predicted)"] > table.loc[0, f"P({'abc'[target]})"]


def test_row_values_show_a_missing_code_as_missing():
    """A negative code is a missing value, shown ``(missing)``, never a category.

    Guards against dropping ``0 <=``: code -1 then read the feature's last label.
    """
    from types import SimpleNamespace

    from explorer.explain import row_values

    work = SimpleNamespace(
        preprocessor=SimpleNamespace(categories_=[["red", "blue"], ["low", "high"]]),
        codes=np.array([[-1, 1], [0, 2]]),
    )
    assert row_values(work, 0) == ["(missing)", "high"]
    assert row_values(work, 1) == ["red", "(missing)"]


def test_a_loaded_model_of_other_feature_names_gets_no_accuracy():
    """A model whose named features are not the page's gets no accuracy, even when the
    counts of features agree.

    Guards against dropping the feature-name check of ``accuracy_on``.
    """
    from types import SimpleNamespace

    from explorer.explain import accuracy_on
    from heb.nb import NaiveBayes

    X, _ = _toy_models()
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    model = NaiveBayes("laplace").fit(X, np.array(["no", "yes"])[y])
    work = SimpleNamespace(class_names=["no", "yes"], y=y, codes=X, feature_names=["a", "b"])
    model.feature_names_in_ = np.array(["a", "b"], dtype=object)
    assert 0.0 <= accuracy_on(model, work) <= 1.0
    model.feature_names_in_ = np.array(["b", "c"], dtype=object)
    assert accuracy_on(model, work) is None


def test_loaded_summary_escapes_the_smoother_name_from_the_file():
    """A loaded file's smoother name is shown as text: markdown in it cannot form a link.

    Guards against interpolating the smoother unescaped into the page's markdown.
    """
    from explorer.explain import loaded_summary
    from heb.nb import NaiveBayes

    X, _ = _toy_models()
    model = NaiveBayes("laplace").fit(X, np.array([0, 0, 0, 1, 1, 1, 1, 0]))
    model.smoother = "[click](https://example.org)"
    summary = loaded_summary(model)
    assert "[click](" not in summary
    assert r"\[click\]\(https\:" in summary


def test_a_loaded_model_of_another_feature_count_gets_no_accuracy():
    """A model of two features on a page of three gets no accuracy (None), not an error.

    Guards against dropping the ``n_features_in_`` check of ``accuracy_on``.
    """
    from types import SimpleNamespace

    from explorer.explain import accuracy_on
    from heb.nb import NaiveBayes

    X, _ = _toy_models()
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    model = NaiveBayes("laplace").fit(X, np.array(["no", "yes"])[y])
    assert getattr(model, "feature_names_in_", None) is None
    wider = np.column_stack([X, X[:, 0]])
    names = ["a", "b", "c"]
    work = SimpleNamespace(class_names=["no", "yes"], y=y, codes=wider, feature_names=names)
    assert accuracy_on(model, work) is None


def test_joint_counts_skip_codes_beyond_a_features_categories():
    """A code >= K_f is not counted (as a missing value), not spilled into other cells.

    Guards against clipping only negative codes before the joint counting's combined
    index: a code of 5 for K = 2 then landed in another parent value's or pair's cells.
    """
    from heb.joint_counts import JointCounts

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3))
    y = rng.integers(0, 2, size=60)
    wild = X.copy()
    wild[::7, 0] = 5
    wild[3::11, 2] = 9
    clean = X.copy()
    clean[::7, 0] = -1
    clean[3::11, 2] = -1
    k = np.array([2, 2, 2])
    got = JointCounts.from_codes(wild, y, 2, k)
    expected = JointCounts.from_codes(clean, y, 2, k)
    np.testing.assert_array_equal(got.keys, expected.keys)
    np.testing.assert_array_equal(got.counts, expected.counts)


def _aode_counts(caps=(200, 5e7, 2e4)):
    from heb.counts import CountTable
    from heb.joint_counts import JointCounts

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 3))  # value 2 of every feature never occurs
    y = (X[:, 0] + rng.integers(0, 2, size=80) > 1).astype(int)
    table = CountTable.from_codes(X, y, 2, n_categories=[3, 3, 3])
    joint = JointCounts.from_codes(X, y, 2, table.n_categories, *caps)
    return table, joint


def test_aode_refuses_joint_counts_built_with_other_caps():
    """Joint counts carry the caps they were built with; a model of other caps refuses them.

    Guards against dropping that check of ``fit_counts``.
    """
    from heb.aode import AODE

    table, joint = _aode_counts(caps=(2, 5e7, 2e4))
    with pytest.raises(ValueError, match="other caps"):
        AODE("laplace").fit_counts(table, joint)


def test_a_pair_of_exactly_max_joint_cells_gets_a_joint_table():
    """The joint cap holds a pair with C K_i K_j <= max_joint_cells: 2 * 2 * 3 = 12 <= 12.

    Guards against the cap becoming strict (``<``), which sent such pairs to the NB factor.
    """
    from heb.joint_counts import JointCounts

    parent, child, offsets = JointCounts.layout(np.array([2, 3]), 2, 200, 12, 2e4)
    assert sorted(zip(parent.tolist(), child.tolist(), strict=True)) == [(0, 1), (1, 0)]
    assert offsets[-1] == 12
    parent, _, _ = JointCounts.layout(np.array([2, 3]), 2, 200, 11.9, 2e4)
    assert parent.size == 0


def test_joint_counts_of_other_caps_do_not_merge():
    """Adding joint counts built under other caps is refused: their pairs differ.

    Guards against dropping the caps comparison of ``JointCounts.__add__``.
    """
    from heb.joint_counts import JointCounts

    X = np.array([[0, 1, 2], [1, 0, 2], [2, 2, 0], [0, 0, 1]])
    y = np.array([0, 1, 0, 1])
    a = JointCounts.from_codes(X, y, 2, np.array([3, 3, 3]))
    b = JointCounts.from_codes(X, y, 2, np.array([3, 3, 3]), max_joint_cells=1e6)
    with pytest.raises(ValueError, match="cannot merge"):
        a + b
