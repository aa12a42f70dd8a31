"""Reference models through cross_validate equal scikit-learn run by hand on the same folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import TargetEncoder
from threadpoolctl import threadpool_info, threadpool_limits

from heb import registry
from heb.data import load_builtin
from heb.evaluate import RunSettings, cross_validate, prepare_folds, references
from heb.evaluate.references import ReferenceModel
from heb.metrics import accuracy, log_loss

SETTINGS = {"n_splits": 3, "max_rows": 300, "seed": 42}


def by_hand(name: str, train: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    """The documented recipe of each reference, written out again."""
    k = train.max(axis=0) + 1
    if name == "CategoricalNB":
        fold = lambda X: np.where((X < 0) | (X >= k), k, X)  # noqa: E731
        model = CategoricalNB(alpha=1.0, min_categories=k + 1)
    elif name == "TargetEncoder+LR":
        fold = lambda X: X  # noqa: E731
        model = make_pipeline(
            TargetEncoder(smooth="auto", cv=StratifiedKFold(5, shuffle=True, random_state=0)),
            LogisticRegression(max_iter=1000),
        )
    else:
        fold = lambda X: np.where((X < 0) | (X >= k), -1, np.minimum(X, 254))  # noqa: E731
        model = HistGradientBoostingClassifier(
            categorical_features=np.ones(k.size, dtype=bool), random_state=0
        )
    with threadpool_limits(limits=1):  # as ReferenceModel does: same numbers, less waiting
        return model.fit(fold(train), y).predict_proba(fold(test))


@pytest.mark.parametrize("name", ["CategoricalNB", "TargetEncoder+LR", "HistGradientBoosting"])
def test_reference_through_cv_equals_sklearn_by_hand(name):
    dataset = load_builtin("known-truth")
    result = cross_validate(dataset, [name], use_cache=False, **SETTINGS)
    prepared = prepare_folds(dataset, RunSettings(**SETTINGS))
    assert registry.method(name).reference and registry.method(name).family == "reference"
    got = result.folds.set_index("fold")
    for index, fold in enumerate(prepared.folds):
        proba = by_hand(name, fold.train_codes, fold.y_train, fold.test_codes)
        y_test = prepared.y[fold.test_index]
        assert got.loc[index, "log_loss"] == pytest.approx(log_loss(y_test, proba), abs=1e-12)
        assert got.loc[index, "accuracy"] == pytest.approx(accuracy(y_test, proba), abs=1e-12)
        np.testing.assert_allclose(result.oof_proba[name][fold.test_index], proba, atol=1e-12)
        assert got.loc[index, "fit_time"] > 0


class _ThreadCounter(CategoricalNB):
    """CategoricalNB that records the OpenMP / BLAS thread counts it runs under."""

    seen: list[int] = []

    def fit(self, X, y):
        _ThreadCounter.seen += [pool["num_threads"] for pool in threadpool_info()]
        return super().fit(X, y)

    def predict_proba(self, X):
        _ThreadCounter.seen += [pool["num_threads"] for pool in threadpool_info()]
        return super().predict_proba(X)


def test_references_fit_and_predict_on_one_thread(monkeypatch):
    """Two OpenMP threads on a busy 2-core machine spin-wait: HistGradientBoosting took
    10-40x the CPU of one thread, so each reference runs on one."""
    assert threadpool_info(), "scikit-learn loads OpenMP / BLAS pools to limit"
    monkeypatch.setitem(
        references.REFERENCE_MODELS, "CategoricalNB", lambda k: _ThreadCounter(min_categories=k + 1)
    )
    _ThreadCounter.seen = []
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    model = ReferenceModel("CategoricalNB").fit(X, np.array([0, 1, 1, 0]))
    model.predict_proba(X)
    assert _ThreadCounter.seen and set(_ThreadCounter.seen) == {1}


def test_reference_codes_cover_missing_unseen_and_wide_columns():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 400, 600), rng.integers(-1, 3, 600)])
    y = (X[:, 0] % 2 + (X[:, 1] == 2)).clip(0, 1)
    X_test = np.array([[399, -1], [999, 5], [3, 2]])  # missing, unseen, ordinary
    for name in ("CategoricalNB", "TargetEncoder+LR", "HistGradientBoosting"):
        model = ReferenceModel(name).fit(X, y, classes=np.array([0, 1, 2]))
        proba = model.predict_proba(X_test)
        assert proba.shape == (3, 3) and np.all(proba[:, 2] == 0)  # class 2 never trained
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="Unknown reference model"):
        ReferenceModel("SVM").fit(X, y)


def test_pages_say_where_a_reference_wins():
    from explorer.references import compare_note, rank_sentences

    ranks = pd.Series({"HEB-M": 2.5, "HistGradientBoosting": 1.5, "CategoricalNB": 2.0})
    (sentence,) = rank_sentences(ranks, "log_loss")
    assert "HistGradientBoosting (1.5)" in sentence and "HEB-M (2.5)" in sentence
    assert rank_sentences(ranks.drop("HistGradientBoosting").replace(2.0, 3.0), "brier") == []
    summary = pd.DataFrame(
        {"method": ["HEB-M", "CategoricalNB"], "accuracy_mean": [0.8, 0.9], "ece_mean": [0.01, 0.2]}
    )
    note = compare_note(summary, 3)  # accuracy: the reference wins; ECE: HEB-M does
    assert note is not None and "on one metric" in note
    assert "- Accuracy: CategoricalNB 0.900, best smoothing method HEB\\-M 0.800" in note
    assert "ECE" not in note


def test_compare_note_is_one_box_at_the_tables_precision():
    """Compare showed one box per metric a reference won, each at 4 digits beside a table
    at 3 decimals: 0.8916 against 0.8894. Now one note, a line per metric, each score as
    the table shows it, and a win the table cannot show (a tie at 3 decimals) is none."""
    from explorer.references import compare_note

    summary = pd.DataFrame(
        {
            "method": ["HEB-M", "Laplace", "TargetEncoder+LR", "HistGradientBoosting"],
            "accuracy_mean": [0.8894, 0.85, 0.89162, 0.80],
            "log_loss_mean": [0.2936, 0.4, 0.27982, 0.35],
            "brier_mean": [0.0876, 0.1, 0.08795, 0.09],  # 0.088 both: a tie, no win
            "auc_mean": [0.9, 0.8, 0.85, 0.95],
        }
    )
    note = compare_note(summary, 3)
    lines = [line for line in note.splitlines() if line.startswith("- ")]
    assert note.startswith("Here a reference model beats every smoothing method on 3 metrics")
    assert lines == [
        "- Accuracy: TargetEncoder\\+LR 0.892, best smoothing method HEB\\-M 0.889",
        "- Log\\-loss: TargetEncoder\\+LR 0.280, best smoothing method HEB\\-M 0.294",
        "- AUC: HistGradientBoosting 0.950, best smoothing method HEB\\-M 0.900",
    ]
    assert compare_note(summary.iloc[:2], 3) is None  # no reference: nothing to say
    assert compare_note(summary.assign(brier_mean=[0.0876, 0.1, 0.0874, 0.09]), 4).count("- ") == 4


def test_target_encoder_on_a_tiny_file_uses_the_folds_its_rows_allow():
    """A 6-row CSV with --folds 2 ended the whole bench with scikit-learn's 'Cannot have
    number of splits n_splits=5 greater than the number of samples: n_samples=3': the
    encoder's inner folds were fixed at 5. With fewer than 5 rows in a class they are plain
    folds, as many as the rows allow; with enough rows, stratified 5-fold as before."""
    from heb.evaluate.references import ReferenceModel

    X = np.array([[0, 1], [1, 0], [0, 2]])
    y = np.array(["p", "q", "p"])
    model = ReferenceModel("TargetEncoder+LR").fit(X, y)
    folds = model.estimator_.named_steps["targetencoder"].cv
    assert type(folds).__name__ == "KFold" and folds.n_splits == 3
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    rng = np.random.default_rng(0)
    big = ReferenceModel("TargetEncoder+LR").fit(rng.integers(0, 3, (40, 2)), np.repeat([0, 1], 20))
    folds = big.estimator_.named_steps["targetencoder"].cv
    assert isinstance(folds, StratifiedKFold) and folds.n_splits == 5


def test_hist_gradient_boosting_fits_past_10000_rows_with_a_class_of_one_row():
    """Its early stopping holds out a stratified tenth: a class of one training row (nursery's
    'recommend' has 2 rows in all) stopped the whole bench with scikit-learn's error."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(12_000, 3))
    y = rng.integers(0, 2, size=12_000)
    y[0] = 2  # one row of class 2
    model = ReferenceModel("HistGradientBoosting").fit(X, y)
    assert model.estimator_.early_stopping is False
    proba = model.predict_proba(X[:5])
    assert proba.shape == (5, 3) and np.allclose(proba.sum(axis=1), 1.0)
    y[1] = 2  # two rows: the default, early stopping on its stratified hold-out
    assert ReferenceModel("HistGradientBoosting").fit(X, y).estimator_.early_stopping == "auto"
