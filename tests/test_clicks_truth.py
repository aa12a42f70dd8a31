"""The click-log generator's truth is what HEB-M estimates, on a realistic task."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from heb.concentration import M_MAX
from heb.nb import NaiveBayes
from heb.scale.clicks import clicks_truth, limit_concentration, write_clicks

ROWS, TRAIN = 200_000, 160_000


def test_the_pooled_marginal_is_the_base_and_the_click_rate_exact():
    truth = clicks_truth(4, click_rate=0.05)
    for feature in truth.features:
        # what HEB-M shrinks toward (the prior-weighted mixture) is the generator's base
        np.testing.assert_allclose(truth.prior @ feature.theta, feature.base, rtol=1e-9)
        assert feature.base @ feature.ctr == pytest.approx(0.05, rel=1e-9)
        assert np.all((feature.ctr > 0) & (feature.ctr < 1))  # no ID always or never clicks
        if feature.base.size <= 10_000:  # (the bigger ones' m take seconds)
            assert feature.m[0] > feature.m[1] > 0  # the majority sits nearer the marginal


def test_signal_zero_makes_every_feature_uninformative():
    truth = clicks_truth(1, n_features=3, signal=0.0)
    for feature in truth.features:
        np.testing.assert_allclose(feature.theta, np.vstack([feature.base] * 2), rtol=1e-9)
    with pytest.raises(ValueError):
        clicks_truth(1, signal=-1.0)


def test_limit_concentration_recovers_a_dirichlet_draw():
    rng = np.random.default_rng(0)
    for k, m in ((50, 20.0), (20_000, 3_000.0), (20_000, 1e5)):  # m t_v >~ 0.05: no zeros
        base = rng.dirichlet(np.full(k, 5.0))
        theta = rng.dirichlet(m * base)
        assert limit_concentration(theta, base) == pytest.approx(m, rel=0.3 if k == 50 else 0.1)
    assert limit_concentration(base, base) >= 1e11  # theta = base: beyond any clamp


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """200k rows as raw codes, Laplace and HEB-M fitted on 160k, scored on 40k."""
    path = write_clicks(tmp_path_factory.mktemp("s14") / "c.parquet", ROWS, seed=0)
    frame = pd.read_parquet(path)
    y = frame.pop("click").to_numpy()
    codes = np.column_stack([pd.factorize(frame[c], use_na_sentinel=True)[0] for c in frame])
    models, scores = {}, {}
    for smoother in ("laplace", "heb-m"):
        model = NaiveBayes(smoother).fit(codes[:TRAIN], y[:TRAIN])
        test = np.where(codes[TRAIN:] < model.n_categories_, codes[TRAIN:], -1)
        models[smoother], scores[smoother] = model, model.predict_proba(test)[:, 1]
    return clicks_truth(0), codes, y, models, scores


def test_fitted_concentrations_agree_with_the_truth(fitted):
    truth, _, _, models, _ = fitted
    table = models["heb-m"].concentrations_
    n_features = len(truth.features)
    true_m = np.concatenate([[f.m[c] for f in truth.features] for c in (0, 1)])
    fit_m, clamped = table["m"], np.asarray(table["clamped"]).astype(str)
    assert fit_m.shape == true_m.shape == (2 * n_features,)
    inside = (true_m < M_MAX) & (clamped == "none")
    assert inside.sum() >= 8  # the low-cardinality features of class 1, at least
    assert 0.7 <= np.median(fit_m[inside] / true_m[inside]) <= 1.4
    assert np.all(np.abs(np.log(fit_m[inside] / true_m[inside])) < np.log(1.6))
    # a truth far past the clamp is fitted at the clamp: the class PMF is the marginal's
    beyond = true_m > 2 * M_MAX
    assert beyond.sum() >= n_features and np.all(clamped[beyond] == "high")


def test_the_task_is_realistic(fitted):
    """A click log, not a near-separable toy: AUC ~0.8, accuracy a few points above the
    majority's 0.83, and every smoother's log-loss finite and near the prior's."""
    _, codes, y, models, scores = fitted
    test_y = y[TRAIN:]
    assert y.mean() == pytest.approx(0.17, abs=0.005)
    prior_loss = log_loss(test_y, np.full(test_y.size, y[:TRAIN].mean()))
    for smoother in ("laplace", "heb-m"):
        auc = roc_auc_score(test_y, scores[smoother])
        accuracy = np.mean((scores[smoother] > 0.5) == test_y)
        loss = log_loss(test_y, scores[smoother])
        assert 0.75 <= auc <= 0.88 and 0.82 <= accuracy <= 0.9, (smoother, auc, accuracy)
        assert loss < prior_loss, (smoother, loss, prior_loss)
    # the IDs carry the signal: user_id alone is far better than chance, hour alone is not
    for column, low, high in ((6, 0.65, 0.8), (17, 0.5, 0.56)):
        model = NaiveBayes("heb-m").fit(codes[:TRAIN, [column]], y[:TRAIN])
        test = codes[TRAIN:, [column]]
        test = np.where(test < model.n_categories_, test, -1)
        assert low <= roc_auc_score(test_y, model.predict_proba(test)[:, 1]) <= high
