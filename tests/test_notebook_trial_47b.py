"""An instructor's trial of the Python API in a Jupyter notebook (session 47b).

Each test is a call a student made from the README and what went wrong:

- ``cross_validate(frame, ...)`` (a DataFrame, an ``(X, y)`` pair or a dataset's name in
  place of a ``Dataset``) failed deep inside with ``AttributeError: 'DataFrame' object has
  no attribute 'fingerprint'``; it is one sentence now, as ``run_benchmark``'s.
- ``cd_diagram(tables["avg_ranks"], tables["cd"])``, ``benchmark_tables``' own Series,
  raised ``KeyError: 2.333...`` from pandas (a Series iterates its values); it is drawn.
  The whole ``benchmark_tables`` dict passed as the ranks is one sentence naming its parts.
- ``reliability_diagram(result)`` (a CVResult), ``reliability_diagram(curve)`` (one curve)
  and ``reliability_diagram({"x": proba})`` failed with an AttributeError, a sentence
  naming the curve's own keys as missing curves, and ``unhashable type``; each is one
  sentence saying what to pass.
- ``wilcoxon_table(scores, "heb-m")`` refused the lower-case name every other call takes,
  and ``wilcoxon_table(run_benchmark(...), "HEB-M")`` said HEB-M was not benchmarked.
- ``concentration_table(GridSearchCV(...).fit(...))`` said a GridSearchCV has no learned
  concentrations; it gives its best estimator's.
- Typing ``data`` in a notebook cell printed the whole table and target (pages of text)
  in ``Dataset``'s repr.
- Typing ``result`` (a ``CVResult``) printed every out-of-fold probability: 842 lines for
  400 rows. Its repr is one line naming the methods, folds, rows and ``.summary()``.
- ``concentration_table(NaiveBayes("laplace").fit(...))`` gave every pair a
  ``log_evidence`` of 0.0 (probability 1, above every learned pair's), and so did HEB's
  fallback pairs: a student ranking smoothers by evidence put Laplace first. Each is now
  the pair's Dirichlet-multinomial evidence at its m.
- ``concentration_heatmap(concentration_table(pipe))`` was a TypeError (feature and class
  names required) though the frame names both; the heatmap and the Figure 5 scatters take
  a concentration table's own names.
- ``load_upload("marks.csv", ...)`` (a path), a file's text, an open file or a DataFrame
  were all "The upload must be the bytes of a file."; each now names the call that takes
  it (``load_dataset(path)``, ``'rb'``, ``f.read()``, ``dataset_from_table``).
- ``NaiveBayes("heb")`` (AODE's and TAN's spelling) was "Unknown smoother 'heb'" with the
  list; it now says NaiveBayes names the prior mean, 'heb-m' or 'heb-u'.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import Dataset, load_dataset


def _tiny() -> Dataset:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.choice(list("xyz"), 60), "b": rng.choice(list("pq"), 60)})
    y = pd.Series(np.where(X["a"] == "x", "yes", "no"), name="y")
    return Dataset(name="tiny", X=X, y=y, categorical=["a", "b"], source="t", target="y")


@pytest.mark.parametrize("given", ["frame", "pair", "name"])
def test_cross_validate_refuses_what_is_not_a_dataset_in_one_sentence(given):
    from heb.evaluate import cross_validate

    data = _tiny()
    value = {"frame": data.X, "pair": (data.X, data.y), "name": "builtin:iris"}[given]
    kind = {"frame": "DataFrame", "pair": "tuple", "name": "str"}[given]
    with pytest.raises(ValueError, match=rf"^cross_validate takes a Dataset .*got a {kind}\.$"):
        cross_validate(value, ["Laplace"], n_splits=3, use_cache=False)


def test_cached_cross_validation_refuses_what_is_not_a_dataset():
    from heb.evaluate import RunSettings, cached_cross_validation

    with pytest.raises(ValueError, match=r"^cached_cross_validation takes a Dataset"):
        cached_cross_validation(_tiny().X, ["Laplace"], settings=RunSettings())


def test_cd_diagram_draws_benchmark_tables_own_series_of_ranks():
    from heb.figures import cd_diagram

    ranks = pd.Series([2.5, 1.5, 2.0], index=["Laplace", "HEB-M", "KT"], name="avg_rank")
    fig = cd_diagram(ranks, 1.0)
    as_dict = cd_diagram(ranks.to_dict(), 1.0)
    texts = [note.text for note in fig.layout.annotations]
    assert texts == [note.text for note in as_dict.layout.annotations]
    assert any(text.startswith("HEB-M (1.50)") for text in texts), texts


def test_cd_diagram_names_the_parts_of_a_whole_benchmark_tables_dict():
    from heb.figures import cd_diagram

    tables = {"avg_ranks": pd.Series([1.0, 2.0], index=["a", "b"]), "cd": 1.0, "groups": []}
    with pytest.raises(ValueError, match=r"tables\['avg_ranks'\], tables\['cd'\]"):
        cd_diagram(tables, 1.0)
    with pytest.raises(ValueError, match=r"must map each method to its average rank"):
        cd_diagram([1.0, 2.0], 1.0)


def _curve() -> dict:
    from heb.metrics import reliability

    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    return reliability(np.array([0, 1, 1, 1]), proba, n_bins=5)


def test_reliability_diagram_says_what_to_pass_for_a_result_or_one_curve():
    from heb.evaluate import CVResult
    from heb.figures import reliability_diagram, reliability_frame

    result = CVResult(folds=pd.DataFrame(), oof_proba={}, y=np.zeros(1), classes=np.zeros(1))
    for build in (reliability_diagram, reliability_frame):
        with pytest.raises(ValueError, match=r"^curves must be a dict, got a CVResult: give"):
            build(result)
        with pytest.raises(ValueError, match=r"^curves is one reliability curve, not a dict"):
            build(_curve())
    with pytest.raises(ValueError, match=r"^Reliability curve 'x' is a ndarray, not the dict"):
        reliability_diagram({"x": np.full((4, 2), 0.5)})
    assert len(reliability_diagram({"HEB-M": _curve()}).data) > 1  # still drawn


def test_wilcoxon_table_takes_an_alias_and_names_the_frame_it_needs():
    from heb.evaluate import wilcoxon_table

    scores = pd.DataFrame(
        {"HEB-M": [0.3, 0.4, 0.5, 0.2], "Laplace": [0.35, 0.45, 0.52, 0.3]},
        index=pd.Index(["a", "b", "c", "d"], name="dataset"),
    )
    assert wilcoxon_table(scores, "heb-m").equals(wilcoxon_table(scores, "HEB-M"))
    long = pd.DataFrame({"dataset": ["a"], "method": ["HEB-M"], "fold": [0], "log_loss": [0.3]})
    with pytest.raises(ValueError, match=r"benchmark_tables\(frame, metric\)\['scores'\]"):
        wilcoxon_table(long, "HEB-M")
    with pytest.raises(ValueError, match=r"^'AODE' is not among the benchmarked methods\.$"):
        wilcoxon_table(scores, "AODE")


def test_concentration_table_of_a_grid_search_is_its_best_models():
    from sklearn.model_selection import GridSearchCV

    from heb import NaiveBayes
    from heb.diagnostics import concentration_table

    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(120, 2))
    y = (X[:, 0] + rng.integers(0, 2, 120) > 2).astype(int)
    search = GridSearchCV(NaiveBayes("heb-m"), {"n0": [1, 50]}, cv=3).fit(X, y)
    pd.testing.assert_frame_equal(
        concentration_table(search), concentration_table(search.best_estimator_)
    )


def test_a_datasets_repr_leaves_its_table_out():
    text = repr(load_dataset("builtin:iris"))
    assert text.startswith("Dataset(name='iris', categorical=")
    assert "sepal" not in text and len(text) < 400, text
    data = _tiny()
    assert "X=" not in repr(data) and "y=" not in repr(data)


def test_a_cross_validation_results_repr_is_one_line_not_every_probability():
    from heb.evaluate import cross_validate

    data = load_dataset("builtin:iris")
    result = cross_validate(data, ["Laplace", "heb-m"], n_splits=3, use_cache=False)
    text = repr(result)
    assert text == (
        "CVResult(methods=['Laplace', 'HEB-M'], n_splits=3, rows=150, "
        "classes=['setosa', 'versicolor', 'virginica'], notes=[], cached=[]; "
        "the table: .summary())"
    )


def _codes_and_labels():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(300, 3))
    X[:40, 2] = 7  # feature 2's codes 5 and 6 are never seen; K_f = 8 counts them
    y = (X[:, 0] + rng.integers(0, 3, 300) > 4).astype(int)
    return X, y


def test_a_fixed_smoothers_log_evidence_is_its_pairs_evidence_not_zero():
    from heb import NaiveBayes
    from heb.concentration import log_evidence

    X, y = _codes_and_labels()
    for smoother, params in (("laplace", {}), ("lidstone", {"alpha": 0.3}), ("kt", {})):
        model = NaiveBayes(smoother, **params).fit(X, y)
        diag = model.concentrations_
        table = model.count_table_
        for pair in range(diag["m"].size):
            c, f = diag["class"][pair], diag["feature"][pair]
            counts = table.counts[c, table.offsets[f] : table.offsets[f + 1]]
            uniform = np.full(counts.size, 1.0 / counts.size)
            expected = log_evidence(counts, uniform, diag["m"][pair])
            assert diag["log_evidence"][pair] == pytest.approx(expected, rel=1e-12), smoother
    # the m-estimate's prior mean is the pooled marginal
    model = NaiveBayes("m-estimate", m=3).fit(X, y)
    table = model.count_table_
    marginal = table.counts[:, : table.offsets[1]].sum(axis=0) / table.counts[:, :5].sum()
    first = log_evidence(table.counts[0, : table.offsets[1]], marginal, 3.0)
    assert model.concentrations_["log_evidence"][0] == pytest.approx(first, rel=1e-12)


def test_heb_u_learns_at_least_laplaces_evidence_and_its_fallback_pairs_report_theirs():
    from heb import NaiveBayes

    X, y = _codes_and_labels()
    laplace = NaiveBayes("laplace").fit(X, y).concentrations_["log_evidence"]
    learned = NaiveBayes("heb-u").fit(X, y).concentrations_
    assert not learned["fallback"].any()
    assert np.all(learned["log_evidence"] >= laplace - 1e-9)  # m = K_f is one candidate
    assert np.any(learned["log_evidence"] > laplace + 1e-6)
    every_pair_falls_back = NaiveBayes("heb-u", n0=10_000).fit(X, y).concentrations_
    assert every_pair_falls_back["fallback"].all()
    np.testing.assert_allclose(every_pair_falls_back["log_evidence"], laplace, rtol=1e-12)


def test_pair_log_evidence_equals_the_solvers_evidence_of_the_fitted_pairs():
    from heb import NaiveBayes
    from heb.nb import pair_log_evidence
    from heb.smoothing import prior_mean

    X, y = _codes_and_labels()
    model = NaiveBayes("heb-m").fit(X, y)
    diag = model.concentrations_
    ours = pair_log_evidence(
        model.count_table_, prior_mean(model.count_table_, "marginal"), diag["m"]
    )
    np.testing.assert_allclose(ours, diag["log_evidence"], rtol=1e-10)


def test_the_concentration_figures_take_names_from_a_concentration_table():
    from heb.data import make_model
    from heb.diagnostics import concentration_table
    from heb.figures import concentration_heatmap, concentration_scatters

    data = _tiny()
    pipe = make_model("heb-m").fit(data.X, data.y)
    table = concentration_table(pipe)
    named = concentration_heatmap(table, value="rho")
    given = concentration_heatmap(pipe[-1].concentrations_, ["a", "b"], ["no", "yes"], "rho")
    assert named.to_json() == given.to_json()
    assert list(named.layout.xaxis.ticktext) == ["a", "b"]
    m_figure, _ = concentration_scatters(table)
    points = [trace.customdata for trace in m_figure.data if trace.customdata is not None]
    hovered = {tuple(point[:2]) for data in points for point in data}
    assert hovered <= {(c, f) for c in ("no", "yes") for f in ("a", "b")} and hovered
    with pytest.raises(ValueError, match=r"^Give feature_names and class_names, or pass"):
        concentration_heatmap(pipe[-1].concentrations_)


@pytest.mark.parametrize(
    ("given", "hint"),
    [
        ("path", r"got a str: to read a file by its path, call load_dataset\(path\)\.$"),
        ("text", r"got a str: open the file with 'rb', or pass text\.encode\(\)\.$"),
        ("file", r"got a BufferedReader: pass the open file's content, f\.read\(\)"),
        ("frame", r"got a DataFrame: a DataFrame becomes a Dataset with dataset_from_table"),
    ],
)
def test_load_upload_names_the_call_for_a_path_text_an_open_file_or_a_frame(tmp_path, given, hint):
    from heb.data import DataError, load_upload

    path = tmp_path / "marks.csv"
    path.write_text("a,b,y\nx,p,yes\nz,q,no\nx,q,yes\n", encoding="utf-8")
    with open(path, "rb") as handle:
        value = {
            "path": str(path),
            "text": path.read_text(encoding="utf-8"),
            "file": handle,
            "frame": pd.read_csv(path),
        }[given]
        with pytest.raises(DataError, match=r"^load_upload takes the bytes of a file, " + hint):
            load_upload(value, "marks.csv")
    assert load_upload(path.read_bytes(), "marks.csv").target == "y"


def test_naive_bayes_smoother_heb_says_which_heb_to_write():
    from heb import NaiveBayes

    with pytest.raises(ValueError, match=r"'heb' is AODE's and TAN's name of HEB smoothing; a "):
        NaiveBayes("HEB").fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match=r"choose one of laplace, .*, heb-h\.$"):
        NaiveBayes("hbe").fit([[0], [1]], [0, 1])  # no hint for a name that is nothing


def test_a_metric_given_labels_says_how_to_turn_them_into_indices():
    """``log_loss(y_test, proba)`` with string labels said the dtype alone; the student
    then needs the index of each label among the model's ``classes_``."""
    from heb import NaiveBayes
    from heb.metrics import log_loss

    model = NaiveBayes("laplace").fit([[0], [1], [0], [1]], ["no", "yes", "no", "no"])
    y = np.array(["yes", "no"])
    proba = model.predict_proba([[1], [0]])
    with pytest.raises(ValueError, match=r"np\.searchsorted\(model\.classes_, y\)"):
        log_loss(y, proba)
    indices = np.searchsorted(model.classes_, y)  # the hint, followed
    assert log_loss(indices, proba) == pytest.approx(-np.mean(np.log(proba[[0, 1], [1, 0]])))


def test_an_unfitted_or_unrefitted_search_says_to_fit_it():
    """An unfitted GridSearchCV was "a GridSearchCV has no learned concentrations", as if
    no search could give any (a fitted one gives its best estimator's)."""
    from sklearn.model_selection import GridSearchCV

    from heb import NaiveBayes
    from heb.diagnostics import concentration_table

    search = GridSearchCV(NaiveBayes("lidstone"), {"alpha": [0.5, 1.0]}, cv=2)
    with pytest.raises(TypeError, match=r"^This GridSearchCV has no best estimator: fit it"):
        concentration_table(search)
    X, y = [[0], [1], [0], [1], [0], [1]], [0, 1, 0, 1, 0, 0]
    search.set_params(refit=False).fit(X, y)
    with pytest.raises(TypeError, match=r"refit=True, its default"):
        concentration_table(search)
    assert len(concentration_table(search.set_params(refit=True).fit(X, y))) == 2
