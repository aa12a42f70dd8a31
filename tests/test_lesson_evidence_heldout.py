"""The evidence lesson's held-out check is correct and honest, and every
lesson's metric deltas fit a presenter's screen.

A new user found step 3 plotting Laplace on HEB-M's held-out curve (Laplace has the
uniform prior mean: it is a point of that curve only when HEB's mean is uniform too), and
on the default pair Laplace's 1.9161 beating HEB-M's 1.9162 without a word. In the
presenter mode at 1024 px the calibration lesson's delta read "↑ +0.087 vs 1 …".
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from heb.counts import CountTable
from heb.data import Preprocessor, encode_target, load_builtin
from heb.lessons import evidence
from tests.test_presenter import LESSON_STEPS

PAGES = Path(__file__).resolve().parents[1] / "pages"
TIMEOUT = 120


@pytest.fixture(scope="module")
def zip_codes() -> tuple[CountTable, list[str], list[str]]:
    """The app's default dataset encoded with the app's default settings."""
    data = load_builtin("zip-codes")
    pre = Preprocessor(n_bins=10, missing="impute", categorical=data.categorical)
    codes = np.asarray(pre.fit_transform(data.X))
    y, classes = encode_target(data.y)
    table = CountTable.from_codes(
        codes, np.asarray(y), len(classes), n_categories=pre.n_categories_
    )
    return table, [str(c) for c in classes], list(pre.feature_names_out_)


def _pair(zip_codes, cls: str, feature: str, prior: str = "marginal") -> dict:
    table, classes, features = zip_codes
    counts, mean, pooled = evidence.pair_counts(
        table, classes.index(cls), features.index(feature), prior
    )
    return evidence.evidence_lesson(counts, mean, 1000.0, pooled)


def _by_hand(counts, prior, m, pooled=None, n_folds=5, seed=0) -> np.ndarray:
    """Each held-out row's -log theta, one row at a time (no cells, no weights); ``m`` one
    value or one per fold."""
    K = counts.size
    rows = np.random.default_rng(seed).permutation(np.repeat(np.arange(K), counts.astype(int)))
    fold = np.arange(rows.size) % n_folds
    if pooled is not None:  # the other classes' rows, dealt into folds as well (stratified)
        other = (pooled - counts).astype(int)
        other_rows = np.random.default_rng(seed + 1).permutation(np.repeat(np.arange(K), other))
        other_fold = np.arange(other_rows.size) % n_folds
    losses = np.empty(rows.size)
    for i, (v, k) in enumerate(zip(rows, fold, strict=True)):
        train = np.bincount(rows[fold != k], minlength=K).astype(float)
        t = prior
        if pooled is not None:
            rest = pooled - np.bincount(rows[fold == k], minlength=K)
            rest = rest - np.bincount(other_rows[other_fold == k], minlength=K)
            t = (rest + 1) / (rest.sum() + K)
        mk = np.broadcast_to(np.asarray(m, dtype=float), (n_folds,))[k]
        losses[i] = -np.log((train[v] + mk * t[v]) / (train.sum() + mk))
    return losses


def test_comparison_matches_a_row_by_row_computation():
    counts = np.array([9.0, 4, 2, 1, 1, 0, 0])
    pooled = counts + np.array([3.0, 8, 0, 2, 5, 1, 1])
    prior = pooled / pooled.sum()
    m_hat = 3.7
    got = evidence.heldout_comparison(counts, prior, m_hat, pooled)
    K = counts.size
    # HEB's m is refitted per fold (tests/test_lesson_evidence_refit.py checks
    # the refit); m_hat fitted on all rows is kept as heb_all_rows
    heb = _by_hand(counts, prior, got["m_folds"], pooled)
    assert got["heb_all_rows"] == pytest.approx(_by_hand(counts, prior, m_hat, pooled).mean())
    laplace = _by_hand(counts, np.full(K, 1 / K), float(K))
    d = heb - laplace
    assert got["heb"] == pytest.approx(heb.mean(), rel=1e-12)
    assert got["laplace"] == pytest.approx(laplace.mean(), rel=1e-12)
    assert got["diff"] == pytest.approx(d.mean(), rel=1e-10)
    assert got["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=1e-10)
    curve = evidence.heldout_log_loss_curve(counts, prior, evidence.HELDOUT_GRID, pooled=pooled)
    assert got["best"] == pytest.approx(curve["log_loss"].min(), rel=1e-12)
    assert got["best_m"] == evidence.HELDOUT_GRID[np.argmin(curve["log_loss"])]
    assert got["n_rows"] == counts.sum()


def test_default_pair_the_tie_the_user_found_is_called_noise_with_its_reason(zip_codes):
    out = _pair(zip_codes, "yes", "weekday")
    heb, laplace = out["marks"]["HEB-M's m"][1], out["marks"]["Laplace"][1]
    # the user's numbers: Laplace 1.9161 below HEB-M's 1.9162
    assert f"{heb:.4f}" == "1.9162" and f"{laplace:.4f}" == "1.9161"
    c = out["comparison"]
    # the verdict scores m refitted per fold; the mark (m_hat on the curve)
    # is kept as heb_all_rows
    assert c["heb_all_rows"] == pytest.approx(heb) and c["laplace"] == pytest.approx(laplace)
    assert 0 < c["diff"] < 2 * c["se"]  # Laplace ahead, by less than the noise
    text = out["verdict"]
    assert "No winner between HEB-M's m and Laplace" in text and "noise" in text
    assert f"{c['heb']:.4f}" in text and "1.9161" in text
    # why the learned m need not win: it maximises the evidence, not the held-out score
    assert "training counts" in text and "not the held-out score" in text
    assert "beats" not in text


def test_laplace_ahead_by_more_than_noise_is_said_with_the_cause(zip_codes):
    out = _pair(zip_codes, "yes", "zip_code")
    c = out["comparison"]
    assert c["diff"] > evidence.NOISE_SE * c["se"] and c["diff"] > evidence.NEGLIGIBLE
    text = out["verdict"]
    assert text.count("**Laplace beats HEB-M's m on this pair.**") == 1
    assert "not the held-out score" in text
    # even the best m on HEB-M's (pooled-marginal) curve loses: the prior mean is the cause
    assert c["best"] > c["laplace"] and "prior mean t, not m" in text


def test_a_clear_win_of_the_learned_m_is_said(zip_codes):
    out = _pair(zip_codes, "yes", "store_id", "uniform")
    c = out["comparison"]
    assert -c["diff"] > evidence.NOISE_SE * c["se"]
    assert "**HEB-U's m beats Laplace on this pair.**" in out["verdict"]
    assert "need not win" not in out["verdict"]


def test_a_fallback_to_laplaces_m_is_the_same_estimate():
    out = evidence.evidence_lesson(np.array([3.0, 1, 0, 0]), None, 10.0)  # N = 4 < N0
    assert out["curve"].fallback and out["comparison"]["diff"] == 0.0
    assert "the same estimate, the same score" in out["verdict"]


def test_differences_are_sorted_by_their_noise():
    assert evidence.difference_kind(0.01, 0.006) == "noise"
    assert evidence.difference_kind(-0.0005, 0.0001) == "negligible"
    assert evidence.difference_kind(-0.05, 0.01) == "lower"
    assert evidence.difference_kind(0.05, 0.01) == "higher"


def _figure(out: dict):
    from heb.figures.lessons.evidence import heldout_figure

    fig, data = heldout_figure(out["heldout"], out["marks"], out["heb"], out["heldout_uniform"])
    return {trace.name: trace for trace in fig.data}, data


def _on(trace, m: float, y: float, rel: float = 2e-3) -> bool:
    """Whether (m, y) lies on a curve trace (log-m interpolation of its grid)."""
    at = np.interp(np.log(m), np.log(np.asarray(trace.x)), np.asarray(trace.y))
    return bool(abs(at - y) <= rel * abs(y))


@pytest.mark.parametrize(("feature", "prior"), [("weekday", "marginal"), ("zip_code", "marginal")])
def test_laplace_sits_on_its_own_uniform_curve_not_on_heb_ms(zip_codes, feature, prior):
    out = _pair(zip_codes, "yes", feature, prior)
    traces, data = _figure(out)
    laplace = next(t for name, t in traces.items() if name.startswith("Laplace, m = K"))
    heb = next(t for name, t in traces.items() if name.startswith("HEB-M's m: loss "))
    main = traces["held-out, HEB-M's t"]
    uniform = next(t for name, t in traces.items() if name.startswith("held-out, uniform t"))
    m, y = laplace.x[0], laplace.y[0]
    assert m == out["curve"].n_categories
    assert _on(uniform, m, y)  # Laplace: uniform t, m = K
    assert _on(main, heb.x[0], heb.y[0])  # HEB-M: its own t
    np.testing.assert_allclose(uniform.y, out["heldout_uniform"]["log_loss"])
    assert "heldout_log_loss_uniform_t" in data
    if feature == "zip_code":  # the two means differ: Laplace is off HEB-M's curve
        assert not _on(main, m, y, rel=5e-3)


def test_with_a_uniform_prior_laplace_is_a_point_of_the_one_curve(zip_codes):
    out = _pair(zip_codes, "yes", "store_id", "uniform")
    assert out["heldout_uniform"] is None
    traces, _ = _figure(out)
    assert not [name for name in traces if name.startswith("held-out, uniform t")]
    laplace = next(t for name, t in traces.items() if name.startswith("Laplace, m = K"))
    assert _on(traces["held-out, HEB-U's t"], laplace.x[0], laplace.y[0])


# ------------------------------------------------------------------ the page (AppTest)
def _open(name: str, state: dict | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_says_where_laplace_is_and_who_wins():
    at = _open("lesson_evidence")
    texts = [m.value for m in at.markdown]
    assert not [t for t in texts if "on every chart of this page" in t]  # not true under HEB-M
    assert [t for t in texts if "point m = K of its own dashed curve" in t]
    assert [t for t in texts if "No winner between HEB-M's m and Laplace" in t]
    heldout = json.loads(at.get("plotly_chart")[2].proto.spec)
    names = [trace.get("name", "") for trace in heldout["data"]]
    assert "held-out, uniform t" in names
    at.radio[1].set_value("uniform (HEB-U)").run()
    texts = [m.value for m in at.markdown]
    assert [t for t in texts if "Laplace is this curve's point m = K" in t]
    names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[2].proto.spec)["data"]]
    assert "held-out, uniform t" not in names


def test_three_metrics_whether_m_is_clamped_is_the_first_ones_delta():
    at = _open("lesson_evidence", {"evidence_source": "Counts I type"})
    assert [m.label for m in at.metric] == ["HEB-U's m", "Shrinkage ρ", "Laplace's m = K"]
    assert not at.metric[0].proto.delta  # the example's maximiser is interior
    at.text_input[0].set_value("40, 0, 0, 0").run()  # the vertex: clamped at m_min
    assert at.metric[0].proto.delta == "clamped"
    at.text_input[0].set_value("3, 1, 0").run()  # N = 4 < N0: m = K
    assert at.metric[0].value == "3" and at.metric[0].proto.delta == "m = K"


def test_presenter_step_3_shows_the_verdict_beside_the_figure():
    at = _open("lesson_evidence", present="1", step="3")
    assert [m for m in at.markdown if "No winner between HEB-M's m and Laplace" in m.value]
    assert len(at.get("plotly_chart")) == 1


#: a metric delta's room in the presenter mode at 1024 px (measured in Chromium: a metric
#: 153 px wide, its delta's type 20.5 px, about 8.6 px a character; the delta's chip takes
#: 17 px, 36 with its arrow): 14 characters without the arrow, 11 with it
DELTA_CHARS = {"arrow": 11, "no arrow": 14}


@pytest.mark.parametrize(("name", "n_steps"), LESSON_STEPS.items())
def test_every_metric_delta_fits_a_presenter_at_1024(name, n_steps):
    from streamlit.proto.Metric_pb2 import Metric

    deltas = []
    for step in range(1, n_steps + 1):
        at = _open(name, present="1", step=str(step))
        for metric in at.metric:
            if metric.proto.delta:
                arrow = metric.proto.direction != Metric.MetricDirection.NONE
                deltas.append((metric.proto.delta, "arrow" if arrow else "no arrow"))
    for text, arrow in deltas:
        assert len(text) <= DELTA_CHARS[arrow], (name, text, arrow)
    if name == "lesson_calibration":
        assert any(text.endswith(" vs k=1") for text, _ in deltas), deltas
    if name == "lesson_zero_counts":
        assert ("vetoed by a 0", "no arrow") in deltas


def test_more_folds_than_rows_are_clipped_to_the_rows_and_said():
    counts, prior = np.array([2, 1, 0]), np.full(3, 1 / 3)
    curve = evidence.heldout_log_loss_curve(counts, prior, np.array([1.0, 2.0]), n_folds=10)
    assert curve["n_folds"] == 3 and curve["n_rows"] == 3
    train, priors, m = evidence.heldout_refit(counts, prior, n_folds=10)
    assert train.shape == priors.shape == (3, 3) and m.shape == (3,)
    np.testing.assert_array_equal(train.sum(axis=1), [2, 2, 2])  # one row held out per fold
