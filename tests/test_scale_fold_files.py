"""Per-fold slot files: each row's slots (coded once, from Arrow) come back in its fold's file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from heb.scale.encoding import FeatureValues
from heb.scale.fold_files import FoldFiles


def _values(name: str, kind: str, numeric: bool, seen: pd.Series) -> FeatureValues:
    n = len(seen)
    zeros = np.zeros(n, dtype=np.int64)
    return FeatureValues.from_histogram(name, kind, numeric, seen, zeros, zeros, np.ones(n))


TEXT = _values("colour", "categorical", False, pd.Series(["red", "blue", None, "green"]))
IDS = _values("shop_id", "categorical", True, pd.Series([7.0, 3.0, np.nan, 11.0]))
PRICE = _values("price", "numeric", True, pd.Series([1.5, np.inf, 2.25, None]))


@pytest.mark.parametrize(
    ("values", "array"),
    [
        (TEXT, pa.array(["blue", None, "red", "pink", "red", "green"])),
        (TEXT, pa.array(["blue", None, "red", "pink"]).dictionary_encode()),
        (IDS, pa.array([3, None, 11, 5, 7, 3], type=pa.int64())),
        (PRICE, pa.array([2.25, float("nan"), None, float("-inf"), 1.5, 9.0])),
    ],
)
def test_arrow_slots_equal_the_pandas_slots(values, array):
    expected = values.slots_of(pa.chunked_array([array]).to_pandas())
    assert np.array_equal(values.slots_of_arrow(array), expected)
    assert len(set(expected.tolist())) > 2  # known, missing and unseen values all occur


def test_rows_come_back_in_their_folds_files_in_order():
    rng = np.random.default_rng(0)
    n = 1_000
    colour = rng.choice(np.array(["red", "blue", "green", "pink", None], dtype=object), n)
    shop = rng.choice([3, 7, 11, 5], n)
    fold = rng.integers(0, 4, n)
    y = rng.choice(["no", "yes"], n)
    table = pa.table(
        {"__fold": fold, "__y": y, "colour": colour, "shop_id": pa.array(shop, type=pa.int64())}
    )
    with FoldFiles([TEXT, IDS], np.array(["no", "yes"]), 5) as files:
        files.write(table.to_batches(max_chunksize=170))
        assert files.rows.tolist() == np.bincount(fold, minlength=5).tolist()
        for k in range(5):
            parts = list(files.chunks(k, chunk_rows=60))
            rows = fold == k
            if not rows.any():
                assert parts == []
                continue
            slots = np.concatenate([p[0] for p in parts])
            labels = np.concatenate([p[1] for p in parts])
            assert np.array_equal(slots[:, 0], TEXT.slots_of(pd.Series(colour[rows])))
            assert np.array_equal(slots[:, 1], IDS.slots_of(pd.Series(shop[rows])))
            assert np.array_equal(labels, (y[rows] == "yes").astype(int))
        folder = files.folder
    assert not folder.exists()
