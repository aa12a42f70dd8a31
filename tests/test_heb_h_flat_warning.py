"""NaiveBayes("heb-h") without hierarchies says that it fits HEB-M.

A student comparing HEB-H with HEB-M in Python got the same numbers and no word why; the
app, cross_validate and the command line already said it in their notes. ``fit`` and a
first ``partial_fit`` now warn once; ``fit_counts`` (the counts path those callers use,
once per fold) stays quiet, and ``heb fit`` says it in its own words alone.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from heb import NaiveBayes
from heb.counts import CountTable
from heb.data import Dataset, make_model
from heb.evaluate import cross_validate
from heb.hierarchical_nb import HierarchicalNaiveBayes
from heb.nb import FLAT_HEB_H

RNG = np.random.default_rng(11)
X = RNG.integers(0, 6, size=(240, 3))
Y = RNG.integers(0, 2, size=240)
LEVELS = {0: [np.arange(6) // 2]}


def _said(fit) -> list[str]:
    """The warnings ``fit()`` gives, each time it gives one."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_fit_of_heb_h_without_hierarchies_warns_once_that_it_is_heb_m():
    said = _said(lambda: NaiveBayes("heb-h").fit(X, Y))
    assert said == [
        "NaiveBayes('heb-h') was given no hierarchies, so it fits HEB-M (the same numbers): "
        "pass hierarchies={feature index: levels} (heb.hierarchy_sources builds levels from "
        "a parent column or label prefixes) to borrow along them, or use 'heb-m'."
    ]
    assert said[0].startswith(FLAT_HEB_H)
    assert len(_said(lambda: NaiveBayes("HEB-H", hierarchies={}).fit(X, Y))) == 1  # a label
    with pytest.warns(UserWarning, match="so it fits HEB-M") as record:
        flat = NaiveBayes("heb-h").fit(X, Y)
    assert record[0].filename == __file__  # points at the caller's line, not the engine's
    np.testing.assert_allclose(
        flat.predict_proba(X), NaiveBayes("heb-m").fit(X, Y).predict_proba(X), atol=1e-9
    )


def test_a_fit_that_borrows_or_another_smoother_says_nothing():
    assert _said(lambda: NaiveBayes("heb-h", hierarchies=LEVELS).fit(X, Y)) == []
    assert _said(lambda: NaiveBayes("heb-m").fit(X, Y)) == []
    assert _said(lambda: HierarchicalNaiveBayes().fit(X, Y)) == []  # detects its own
    assert _said(lambda: HierarchicalNaiveBayes().partial_fit(X, Y, classes=[0, 1])) == []


def test_partial_fit_warns_on_its_first_chunk_alone():
    model = NaiveBayes("heb-h")
    assert len(_said(lambda: model.partial_fit(X[:100], Y[:100], classes=[0, 1]))) == 1
    assert _said(lambda: model.partial_fit(X[100:], Y[100:])) == []
    with pytest.raises(ValueError):  # a fit that fails says nothing of HEB-M
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            NaiveBayes("heb-h").partial_fit(X, Y)  # no classes on the first call


def test_a_pipeline_of_make_model_warns_as_the_python_api():
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).astype(str)
    pipe = make_model("heb-h", categorical=["a", "b", "c"])
    assert len(_said(lambda: pipe.fit(frame, Y))) == 1


def test_the_counts_path_and_cross_validate_say_it_in_their_notes_not_a_warning():
    table = CountTable.from_codes(X, Y, 2)
    assert _said(lambda: NaiveBayes("heb-h").fit_counts(table)) == []
    dataset = Dataset(
        name="toy",
        X=pd.DataFrame(X, columns=["a", "b", "c"]).astype(str),
        y=pd.Series(Y, name="y"),
        categorical=["a", "b", "c"],
        source="test:toy",
    )
    result = None

    def run():
        nonlocal result
        result = cross_validate(dataset, ["HEB-M", "HEB-H"], n_splits=3, use_cache=False)

    assert _said(run) == []
    assert any(
        "HEB-H was given no category hierarchy, so it ran as HEB-M" in n for n in result.notes
    )
