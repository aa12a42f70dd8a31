"""The click-log generator: chunked parquet, known truth, deterministic per seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from heb.scale.clicks import clicks_truth, main, write_clicks


def test_chunks_make_one_file_with_the_truths_shares(tmp_path):
    path = write_clicks(tmp_path / "c.parquet", 30_000, seed=2, n_features=20, chunk_rows=7_000)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == 30_000 and meta.num_row_groups == 5
    frame = pd.read_parquet(path)
    truth = clicks_truth(2, 20)
    assert list(frame.columns) == [f.name for f in truth.features] + ["click"]
    assert frame["click"].mean() == pytest.approx(truth.prior[1], abs=0.01)
    assert frame["user_id"].isna().mean() == pytest.approx(0.02, abs=0.005)
    # a low-cardinality feature follows its class-conditional truth (3 sigma per cell)
    device = truth.features[11]
    labels = sorted(frame["device_type"].astype(str).unique())
    for c in (0, 1):
        rows = frame.loc[frame["click"] == c, "device_type"].astype(str)
        observed = rows.value_counts(normalize=True).reindex(labels, fill_value=0).to_numpy()
        expected = device.theta[c][: len(labels)]
        sigma = np.sqrt(expected * (1 - expected) / len(rows))
        assert np.all(np.abs(observed - expected) <= 3 * sigma + 1e-3)


def test_truth_is_seeded_and_normalised():
    a, b, c = clicks_truth(1), clicks_truth(1), clicks_truth(2)
    assert np.array_equal(a.features[0].theta, b.features[0].theta)
    assert not np.array_equal(a.features[0].theta, c.features[0].theta)
    for feature in a.features:
        np.testing.assert_allclose(feature.theta.sum(axis=1), 1.0)
        assert feature.theta.shape == (2, feature.base.size)
    assert max(f.base.size for f in a.features) == 1_000_000


def test_main_writes_the_requested_rows(tmp_path, capsys):
    out = tmp_path / "m.parquet"
    assert main(["--rows", "2_500", "-o", str(out), "--features", "4", "--seed", "3"]) == 0
    assert pq.ParquetFile(out).metadata.num_rows == 2_500
    assert "2,500 rows" in capsys.readouterr().out
    same = write_clicks(tmp_path / "n.parquet", 2_500, 3, n_features=4)
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(same))


@pytest.mark.parametrize("kwargs", [{"rows": 0}, {"rows": 5, "missing_share": 1.0}])
def test_bad_arguments_are_refused(tmp_path, kwargs):
    with pytest.raises(ValueError):
        write_clicks(tmp_path / "x.parquet", seed=0, **kwargs)


def test_true_concentrations_are_positive_and_clamps_are_where_they_lie_past_m_max():
    """The truth is HEB-M's limit toward the pooled marginal, per class; it may lie past the
    fit's clamp (S14: the old truths were one m per feature, all inside the range, but toward
    a base that was not the pooled marginal HEB-M shrinks toward)."""
    from heb.concentration import M_MAX

    truth = clicks_truth(0)
    m = np.array([f.m for f in truth.features])
    assert m.shape == (20, 2) and np.all(m > 0)
    assert np.all(m[:, 0] > m[:, 1])  # the majority class sits nearer the marginal
    assert np.sum(m[:, 1] < M_MAX) >= 8  # some truths the fit can reach


def test_type2_ml_recovers_the_true_concentrations():
    """The evidence fit toward the pooled marginal, on 10^6 draws of a class PMF, finds m
    within 15 % where m lies inside the range, and stops at the clamp where it lies past it."""
    from heb.concentration import M_MAX, fit_concentration

    truth = clicks_truth(3, n_features=14)
    rng = np.random.default_rng(3)
    inside = 0
    for feature in truth.features:  # K = 5 .. 10^6
        counts = rng.multinomial(1_000_000, feature.theta[1]).astype(float)
        fitted = fit_concentration(counts, feature.base)
        if feature.m[1] < M_MAX / 2:
            inside += 1
            assert fitted == pytest.approx(feature.m[1], rel=0.15), feature.name
        elif feature.m[1] > 2 * M_MAX:
            assert fitted == M_MAX, feature.name
    assert inside >= 3


class _Stopped(BaseException):
    """Ctrl-C and SIGTERM as the running code sees them (a KeyboardInterrupt, which a
    pytest-xdist worker would take for its own)."""


@pytest.mark.parametrize("stop", [_Stopped, MemoryError])
def test_a_stopped_write_leaves_no_file_that_looks_whole(tmp_path, monkeypatch, stop):
    """make-data stopped half-way (Ctrl-C, SIGTERM, out of memory) closed its parquet
    writer in a ``finally``: a valid file of the chunks so far (2.6 million rows of the 20
    million asked for) stood at the path asked for, read by ``bench`` as if whole. An
    earlier file at that path is kept, as it was."""
    import heb.scale.clicks as clicks

    made = []
    chunk = clicks._chunk_table

    def stopping(*args, **kwargs):
        if len(made) == 2:
            raise stop
        made.append(1)
        return chunk(*args, **kwargs)

    monkeypatch.setattr(clicks, "_chunk_table", stopping)
    path = tmp_path / "clicks.parquet"
    with pytest.raises(stop):
        write_clicks(path, 500, seed=1, n_features=2, chunk_rows=100)
    assert list(tmp_path.iterdir()) == []
    made.clear()
    earlier = write_clicks(tmp_path / "kept.parquet", 50, seed=2, n_features=2)  # one chunk
    made.clear()
    with pytest.raises(stop):
        write_clicks(earlier, 500, seed=1, n_features=2, chunk_rows=100)
    assert [p.name for p in tmp_path.iterdir()] == ["kept.parquet"]
    assert pq.ParquetFile(earlier).metadata.num_rows == 50
