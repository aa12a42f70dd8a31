"""The DuckDB path gives the in-memory numbers: identical CountTables, probabilities to
1e-12 and metrics to 1e-9, for the seven smoothers, HEB-M+GR, AODE and HEB-AODE."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.counts import CountTable
from heb.data import Preprocessor, encode_target
from heb.joint_counts import JointCounts
from heb.registry import METHODS as REGISTERED
from heb.scale.counting import count_histograms, describe
from heb.scale.cv import caps_of_methods, cross_validate, make_models
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.inmemory import cross_validate_in_memory, example_frame, fold_assignment
from heb.scale.joint import count_joints
from heb.scale.source import open_source

pytest.importorskip("duckdb")

# every registered NB method (HEB-H without hierarchies is HEB-M), AODE and HEB-AODE
METHODS = [name for name, m in REGISTERED.items() if m.family in ("nb", "aode")]
METRICS = ["accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"]
N_SPLITS = 4


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    frame = example_frame(1_200, seed=3)
    frame.to_parquet(root / "mixed.parquet", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=2)
    engine.register(open_source("mixed.parquet", root=root))
    rows = frame[frame["label"].notna()].reset_index(drop=True)
    folds = fold_assignment(engine, "label", N_SPLITS, 42)
    return engine, rows, folds, root


def _reference_fold(rows, folds, k, missing="impute"):
    y, _ = encode_target(rows["label"])
    X = rows.drop(columns=["label"])
    pre = Preprocessor(missing=missing)
    train = pre.fit_transform(X[folds != k])
    return pre, train, y[folds != k], pre.transform(X[folds == k])


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_count_tables_are_identical_integers(data, missing):
    engine, rows, folds, _ = data
    histograms = count_histograms(engine, describe(engine, "label"), N_SPLITS, 42)
    assert np.array_equal(histograms.fold_class_counts.sum(axis=1), np.bincount(folds))
    for k in range(N_SPLITS):
        fitted = histograms.fit_fold(k, missing=missing)
        pre, train, y_train, _ = _reference_fold(rows, folds, k, missing)
        ref = CountTable.from_codes(train, y_train, 3, n_categories=pre.n_categories_)
        assert np.array_equal(fitted.table.offsets, ref.offsets)
        assert np.array_equal(fitted.table.counts, ref.counts)
        assert np.array_equal(fitted.table.class_counts, ref.class_counts)
        names = [histograms.columns.features[i] for i in fitted.features]
        assert names == pre.feature_names_out_  # "empty" dropped in both


def test_whole_data_fit_equals_preprocessor_on_every_row(data):
    engine, rows, _, _ = data
    histograms = count_histograms(engine, describe(engine, "label"), 1, 0)
    fitted = histograms.fit_fold(None)
    pre = Preprocessor()
    codes = pre.fit_transform(rows.drop(columns=["label"]))
    y, classes = encode_target(rows["label"])
    assert list(histograms.classes) == list(classes)
    assert np.array_equal(fitted.table.counts, pre_counts(codes, y, pre))
    X = rows.drop(columns=["label"])
    assert np.array_equal(histograms.test_codes(fitted, rows), pre.transform(X))


def test_probabilities_equal_in_memory(data):
    engine, rows, folds, _ = data
    histograms = count_histograms(engine, describe(engine, "label"), N_SPLITS, 42)
    fitted = [histograms.fit_fold(k) for k in range(N_SPLITS)]
    caps = caps_of_methods(["AODE"], None)[0]  # AODE's defaults, in JointCounts.caps order
    joints = count_joints(engine, histograms, fitted, [caps])
    _, probas, _ = cross_validate_in_memory(rows, "label", folds, METHODS, return_proba=True)
    for fold in fitted:
        test_rows = rows[folds == fold.fold]
        codes = histograms.test_codes(fold, test_rows)
        _, train, y_train, ref_codes = _reference_fold(rows, folds, fold.fold)
        assert np.array_equal(codes, ref_codes)
        ref_joint = JointCounts.from_codes(train, y_train, 3, fold.table.n_categories)
        mine = joints[(caps, fold.fold)]
        assert mine.caps == ref_joint.caps
        for part in ("parent", "child", "offsets", "keys", "counts"):
            assert np.array_equal(getattr(mine, part), getattr(ref_joint, part)), part
        for name in METHODS:
            model = make_models(name, fold, histograms.classes, mine)
            np.testing.assert_allclose(
                model.predict_proba(codes), probas[(name, fold.fold)], rtol=0, atol=1e-12
            )


@pytest.mark.parametrize("missing", ["impute", "category"])
def test_cross_validation_metrics_equal_in_memory(data, missing):
    engine, rows, folds, _ = data
    result = cross_validate(
        engine, "label", METHODS, n_splits=N_SPLITS, missing=missing, batch_rows=97
    )
    reference = cross_validate_in_memory(rows, "label", folds, METHODS, missing=missing)
    merged = result.folds.merge(reference, on=["method", "fold"], suffixes=("", "_ref"))
    assert len(merged) == len(METHODS) * N_SPLITS
    for metric in METRICS:
        np.testing.assert_allclose(merged[metric], merged[f"{metric}_ref"], rtol=0, atol=1e-9)
    assert (result.folds["auc_bound"] == 0).all()  # exact AUC at this size
    assert result.n_rows == len(rows) and result.engine == "duckdb"
    summary = result.summary()
    assert list(summary["method"]) == METHODS


def test_fold_files_and_budgeted_scans_give_the_same_numbers(data):
    """DuckDB scores from per-fold slot files; the scan-per-group path (Spark's) on the same
    engine, with a budget of one fold per scan, gives the same metrics."""
    engine, _, _, _ = data
    spilled = cross_validate(engine, "label", ["HEB-M", "TE"], n_splits=N_SPLITS)
    assert not spilled.notes and spilled.timings["spill"] > 0
    engine.in_process = False  # as an engine whose rows stay on its workers
    try:
        split = cross_validate(engine, "label", ["HEB-M", "TE"], n_splits=N_SPLITS, model_budget=1)
    finally:
        del engine.in_process
    assert split.notes and "4 scans" in split.notes[0] and "spill" not in split.timings
    pd.testing.assert_frame_equal(
        spilled.folds[["method", "fold", *METRICS]],
        split.folds[["method", "fold", *METRICS]],
        check_exact=False,
        rtol=1e-12,
        atol=1e-12,
    )


def test_folder_of_parquet_files_and_csv_give_the_same_counts(tmp_path):
    frame = example_frame(600, seed=5).drop(columns=["empty"])
    frame = frame[frame["label"].notna()].reset_index(drop=True)
    folder = tmp_path / "parts"
    folder.mkdir()
    frame.iloc[:250].to_parquet(folder / "a.parquet", index=False)
    frame.iloc[250:].to_parquet(folder / "b.parquet", index=False)
    text = frame[["colour", "shop_id", "visits", "label"]]
    text.to_csv(tmp_path / "rows.csv", index=False)
    engine = DuckDBEngine(threads=1)
    engine.register(open_source("parts", root=tmp_path))
    folded = count_histograms(engine, describe(engine, "label"), 1, 0).fit_fold(None)
    pre = Preprocessor()
    codes = pre.fit_transform(frame.drop(columns=["label"]))
    y, _ = encode_target(frame["label"])
    assert np.array_equal(folded.table.counts, pre_counts(codes, y, pre))
    engine.register(open_source("rows.csv", root=tmp_path))
    from_csv = count_histograms(engine, describe(engine, "label"), 1, 0).fit_fold(None)
    pre = Preprocessor()
    codes = pre.fit_transform(pd.read_csv(tmp_path / "rows.csv").drop(columns=["label"]))
    assert np.array_equal(from_csv.table.counts, pre_counts(codes, y, pre))


def pre_counts(codes, y, pre):
    """The in-memory count table of encoded rows."""
    return CountTable.from_codes(codes, y, 3, n_categories=pre.n_categories_).counts


def test_kinds_follow_spec_section_1(data):
    engine, _, _, _ = data
    columns = describe(engine, "label", categorical=["visits"])
    kinds = dict(zip(columns.features, columns.kinds, strict=True))
    assert kinds == {
        "colour": "categorical",
        "shop_id": "categorical",  # integer, ID-like name
        "user_id": "categorical",  # whole floats, ID-like name
        "price": "numeric",
        "visits": "categorical",  # declared
        "member": "categorical",  # bool
        "empty": "numeric",
    }


def test_describe_source_and_fit_counts_summarise_every_row(data):
    from heb.scale import describe_source, fit_counts

    engine, rows, _, _ = data
    summary = describe_source(engine, "label").set_index("feature")
    assert summary.loc["colour", "K"] == rows["colour"].nunique()
    assert summary.loc["user_id", "K"] == rows["user_id"].nunique()
    price = rows["price"]
    assert summary.loc["price", "missing_share"] == pytest.approx(
        (price.isna() | np.isinf(price)).mean()  # an infinity reads as missing (SPEC 1)
    )
    assert summary.loc["empty", "missing_share"] == 1.0
    assert (summary["rows"] == len(rows)).all()
    fitted = fit_counts(engine, "label")
    pre = Preprocessor()
    codes = pre.fit_transform(rows.drop(columns=["label"]))
    y, _ = encode_target(rows["label"])
    assert fitted.features == pre.feature_names_out_
    assert np.array_equal(fitted.table.counts, pre_counts(codes, y, pre))
    assert fitted.n_rows == len(rows) and fitted.engine == "duckdb"


def test_raising_from_progress_cancels_the_run(data):
    engine, _, _, _ = data
    seen = []

    class Cancelled(Exception):
        pass

    def progress(fraction, message):
        seen.append(message)
        if fraction >= 0.1:
            raise Cancelled

    with pytest.raises(Cancelled):
        cross_validate(engine, "label", ["Laplace"], n_splits=N_SPLITS, progress=progress)
    assert seen[0].startswith("Counting values on duckdb")


def test_progress_moves_during_the_scoring_scan(data):
    engine, rows, _, _ = data
    seen = []
    cross_validate(
        engine,
        "label",
        ["Laplace"],
        n_splits=N_SPLITS,
        batch_rows=200,
        progress=lambda fraction, message: seen.append((fraction, message)),
    )
    scanned = [f for f, m in seen if m.startswith("Encoded")]  # the scan spilling the folds
    assert len(scanned) >= len(rows) // 200  # one report per batch
    assert scanned == sorted(scanned) and 0.1 < scanned[0] < scanned[-1] <= 0.5
    folds = [f for f, m in seen if m.startswith("Fitting fold")]
    assert len(folds) == N_SPLITS and folds == sorted(folds) and folds[0] >= scanned[-1]
    # each fold's scoring moves the bar batch by batch, to the fold's end: the app showed
    # "fold 1 of 3" through a long first fold
    scoring = [(f, m) for f, m in seen if m.startswith("Scoring fold")]
    assert len(scoring) >= len(rows) // 200
    assert [f for f, _ in scoring] == sorted(f for f, _ in scoring)
    for k in range(N_SPLITS):
        mine = [m for _, m in scoring if m.startswith(f"Scoring fold {k + 1} of {N_SPLITS}:")]
        assert mine, k
        done, total = mine[-1].split(": ")[1].removesuffix(" rows").split(" of ")
        assert done == total  # the fold's last batch reports all its rows
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and seen[-1] == (1.0, "Done")


def test_scoring_by_scans_names_its_folds_from_one_as_the_fold_files_do(data):
    """Spark's path (scans of fold groups, here DuckDB taken through it) reported "Fitting
    and scoring folds [0, 1, 2, 3]", a Python list counted from 0, where DuckDB's reports
    read "Fitting fold 1 of 4"."""
    root = data[3]
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("mixed.parquet", root=root))
    engine.in_process = False  # the scans of Spark's path, not the fold files
    seen = []
    progress = lambda fraction, message: seen.append(message)  # noqa: E731
    cross_validate(engine, "label", ["Laplace"], n_splits=N_SPLITS, progress=progress)
    assert f"Fitting and scoring folds 1 - {N_SPLITS} of {N_SPLITS}" in seen
    assert not any("[" in m for m in seen)
    assert any(m.endswith(f"rows of folds 1 - {N_SPLITS} of {N_SPLITS}") for m in seen)


def test_folds_are_named_from_one():
    from heb.scale.cv import folds_text

    assert folds_text([2], 10) == "fold 3 of 10"
    assert folds_text([0, 1, 2], 10) == "folds 1 - 3 of 10"
    assert folds_text([0, 3], 10) == "folds 1, 4 of 10"


def test_stacked_scoring_is_bit_identical_to_predict_proba(data):
    from heb.scale.scoring import StackedNB

    engine, rows, folds, _ = data
    histograms = count_histograms(engine, describe(engine, "label"), N_SPLITS, 42)
    fold = histograms.fit_fold(1)
    names = [name for name in METHODS if REGISTERED[name].family == "nb"]
    models = [make_models(name, fold, histograms.classes) for name in names]
    codes = histograms.test_codes(fold, rows[folds == 1])
    codes[::7, 2] = -1  # absent evidence
    codes[::11, 0] = 10_000  # a code beyond K: unseen
    for model, proba in zip(models, StackedNB(models).predict_proba(codes), strict=True):
        assert np.array_equal(proba, model.predict_proba(codes))


def test_hierarchies_are_refused_on_the_engine_path(data):
    engine, _, _, _ = data
    fold = count_histograms(engine, describe(engine, "label"), N_SPLITS, 42).fit_fold(0)
    with pytest.raises(ValueError, match="hierarchies are not available"):
        make_models("HEB-H", fold, np.arange(3), overrides={"hierarchies": {0: [[0, 0]]}})


@pytest.mark.filterwarnings("ignore:AODE over")
def test_pair_cap_override_gives_the_in_memory_numbers(data):
    engine, rows, folds, _ = data
    # 6 kept features score 30 (parent, child) pairs: a cap of 29 makes AODE the NB posterior
    params = {"AODE": {"max_pairs": 29}, "HEB-AODE": {"max_parent_cardinality": 6}}
    names = ["AODE", "HEB-AODE"]
    result = cross_validate(engine, "label", names, params=params, n_splits=N_SPLITS)
    reference = cross_validate_in_memory(rows, "label", folds, names, params=params)
    merged = result.folds.merge(reference, on=["method", "fold"], suffixes=("", "_ref"))
    assert len(merged) == len(names) * N_SPLITS
    for metric in METRICS:
        np.testing.assert_allclose(merged[metric], merged[f"{metric}_ref"], rtol=0, atol=1e-9)
    nb = cross_validate(engine, "label", ["Laplace"], n_splits=N_SPLITS).folds
    capped = result.folds[result.folds["method"] == "AODE"]
    np.testing.assert_allclose(capped["log_loss"], nb["log_loss"], rtol=0, atol=1e-12)


def test_scoring_chunks_keep_their_working_arrays_in_budget():
    from heb.scale.cv import _chunk_rows

    rows = _chunk_rows(20, 7, 2)  # the click log's study
    assert rows * (16 * 20 + 16 * 7 * 2) <= 64e6 < (rows + 1) * (16 * 20 + 16 * 7 * 2)
    assert _chunk_rows(5000, 9, 100) == 16_384  # never fewer rows than that: numpy's overhead
    assert _chunk_rows(2, 1, 2, budget=4e6) == 4e6 // 64


def test_more_folds_than_int16_holds_are_refused_before_any_scan():
    from heb.scale.cv import MAX_FOLDS

    with pytest.raises(ValueError, match="n_splits must be at most 32,767, got 32768"):
        cross_validate(None, "label", ["Laplace"], n_splits=MAX_FOLDS + 1)
