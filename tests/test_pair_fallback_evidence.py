"""HEB-AODE's and HEB-TAN's fallback groups report their documents' log evidence at the
m they use (K_child), not the 0 the solver gives groups it never saw: 0 reads as an
evidence of probability 1, above every learned group's."""

from __future__ import annotations

import numpy as np
import pytest

from heb.aode import AODE
from heb.concentration import log_evidence
from heb.smoothing import prior_mean
from heb.tan import TAN


def _codes(seed: int, n: int = 300, ks=(3, 5, 4, 6), n_classes: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = np.column_stack([(rng.integers(0, k, n) + y * (j % 2)) % k for j, k in enumerate(ks)])
    return X, y


def _by_hand(model, X, y, diag) -> np.ndarray:
    """Per diagnostics row: the sum over the parent's values u (the class alone for a
    class-only factor) of the child's count vector's evidence at the row's m."""
    table = model.count_table_
    prior = prior_mean(table, "marginal")
    out = []
    for c, i, j, m in zip(diag["class"], diag["parent"], diag["child"], diag["m"], strict=True):
        t = prior[table.offsets[j] : table.offsets[j + 1]]
        rows = y == c
        parents = [None] if i < 0 else np.unique(X[rows, i])
        total = 0.0
        for u in parents:
            chosen = rows if u is None else rows & (X[:, i] == u)
            counts = np.bincount(X[chosen, j], minlength=t.size).astype(float)
            total += log_evidence(counts, t, m)
        out.append(total)
    return np.array(out)


@pytest.mark.parametrize("estimator", [AODE, TAN], ids=["aode", "tan"])
def test_every_groups_log_evidence_is_its_documents_at_its_m(estimator):
    X, y = _codes(3)
    model = estimator(smoother="heb", n0=25).fit(X, y)  # some groups fall back, some not
    diag = model.concentrations_
    fallback = np.asarray(diag["fallback"], dtype=bool)
    assert fallback.any() and not fallback.all()
    hand = _by_hand(model, X, y, diag)
    np.testing.assert_allclose(diag["log_evidence"], hand, rtol=1e-10)  # learned ones too
    k_child = model.n_categories_[diag["child"]]
    np.testing.assert_array_equal(diag["m"][fallback], k_child[fallback])
    assert np.all(diag["log_evidence"][fallback] < 0)


def test_a_fallback_groups_evidence_is_below_its_learned_m_s():
    """The same counts, once under the fallback (n0 above every document) and once learned
    (n0 = 0): the learned m maximises the evidence, so its value is at least K_child's."""
    X, y = _codes(5, n=600)
    fell = AODE(smoother="heb", n0=10_000).fit(X, y).concentrations_
    learned = AODE(smoother="heb", n0=0).fit(X, y).concentrations_
    assert np.asarray(fell["fallback"]).all() and not np.asarray(learned["fallback"]).any()
    assert np.all(learned["log_evidence"] >= fell["log_evidence"] - 1e-9)
    assert np.any(learned["log_evidence"] > fell["log_evidence"] + 1e-6)
