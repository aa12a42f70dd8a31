"""CountTable and as_codes: counting is the model, so it is checked against a plain loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heb.counts import MAX_TABLE_CELLS, CountTable, as_codes, block_starts, column_max


def _loop_counts(X, y, n_classes, n_categories):
    """N_cfv by a plain Python loop (the slow reference)."""
    offsets = np.concatenate(([0], np.cumsum(n_categories)))
    counts = np.zeros((n_classes, offsets[-1]))
    for row, label in zip(X, y, strict=True):
        for f, code in enumerate(row):
            if 0 <= code < n_categories[f]:
                counts[label, offsets[f] + code] += 1
    return counts


def test_from_codes_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    X = rng.integers(-1, 6, size=(300, 4))
    y = rng.integers(0, 3, size=300)
    table = CountTable.from_codes(X, y, 3)
    k = X.max(axis=0) + 1
    np.testing.assert_array_equal(table.n_categories, k)
    np.testing.assert_array_equal(table.counts, _loop_counts(X, y, 3, k))
    np.testing.assert_array_equal(table.class_counts, np.bincount(y, minlength=3))
    assert table.n_samples == 300
    assert table.n_classes == 3 and table.n_features == 4


def test_missing_codes_are_not_counted_and_shrink_the_denominator():
    X = np.array([[0, 1], [-1, 0], [1, -1], [0, 0]])
    y = np.array([0, 0, 0, 1])
    table = CountTable.from_codes(X, y, 2)
    # class 0 has 3 rows, but feature 0 is observed in 2 of them and feature 1 in 2
    np.testing.assert_array_equal(table.class_counts, [3, 1])
    np.testing.assert_array_equal(table.class_feature_totals(), [[2, 2], [1, 1]])
    np.testing.assert_array_equal(table.feature_totals(), [3, 3])
    np.testing.assert_array_equal(table.category_totals(), [2, 1, 2, 1])


def test_codes_beyond_declared_categories_are_ignored():
    X = np.array([[0], [1], [5]])
    table = CountTable.from_codes(X, np.zeros(3, int), 1, n_categories=np.array([2]))
    np.testing.assert_array_equal(table.counts, [[1, 1]])


def test_feature_of_column_and_offsets():
    table = CountTable.empty(2, np.array([2, 3, 1]))
    np.testing.assert_array_equal(table.offsets, [0, 2, 5, 6])
    np.testing.assert_array_equal(table.feature_of_column, [0, 0, 1, 1, 1, 2])
    assert table.counts.shape == (2, 6)


def test_adding_tables_equals_counting_all_rows_and_widens():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(200, 3))
    y = rng.integers(0, 2, size=200)
    X[:100, 0] = np.minimum(X[:100, 0], 2)  # the first chunk sees fewer categories
    whole = CountTable.from_codes(X, y, 2)
    parts = CountTable.from_codes(X[:100], y[:100], 2) + CountTable.from_codes(X[100:], y[100:], 2)
    np.testing.assert_array_equal(parts.offsets, whole.offsets)
    np.testing.assert_array_equal(parts.counts, whole.counts)
    np.testing.assert_array_equal(parts.class_counts, whole.class_counts)


def test_adding_mismatched_tables_raises():
    a = CountTable.empty(2, np.array([2]))
    b = CountTable.empty(3, np.array([2]))
    with pytest.raises(ValueError, match="different classes"):
        a + b


def test_huge_codes_are_refused_with_a_clear_message():
    X = np.array([[0], [MAX_TABLE_CELLS]])
    with pytest.raises(ValueError, match="too large"):
        CountTable.from_codes(X, np.array([0, 1]), 2)


def test_as_codes_missing_and_integer_forms():
    codes = as_codes(np.array([[1.0, np.nan], [-3.0, 2.0]]))
    np.testing.assert_array_equal(codes, [[1, -1], [-1, 2]])
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(as_codes(np.array([[True, False]])), [[1, 0]])
    np.testing.assert_array_equal(as_codes(np.array([[-7, 3]], dtype=np.int8)), [[-1, 3]])
    np.testing.assert_array_equal(as_codes(np.array([["1", "2"]])), [[1, 2]])


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.array([[0.5, 1.0]]), "fractional"),
        (np.array([[np.inf, 1.0]]), "infinite"),
        (np.array([["a", "b"]]), "non-numeric"),
        (np.array([1, 2]), "2-D"),
        (np.array([[1 + 1j]]), "unsupported dtype"),
    ],
)
def test_as_codes_rejects_what_is_not_a_code(bad, message):
    with pytest.raises(ValueError, match=message):
        as_codes(bad)


@pytest.mark.parametrize("n_rows", [3, 2000])  # float bincount (few rows) and int bincount
def test_both_counting_paths_match_a_plain_loop(n_rows):
    rng = np.random.default_rng(n_rows)
    k = np.array([40, 3, 7])
    X = np.column_stack([rng.integers(-2, kf + 3, n_rows) for kf in k])
    y = rng.integers(0, 2, n_rows)
    table = CountTable.from_codes(X, y, 2, n_categories=k)
    assert table.counts.dtype == np.float64
    np.testing.assert_array_equal(table.counts, _loop_counts(X, y, 2, k))


def test_as_codes_keeps_non_negative_integers_and_marks_negatives():
    codes = np.array([[0, 3], [2, 1]])
    assert as_codes(codes) is codes
    np.testing.assert_array_equal(as_codes(np.array([[-5, 3], [2, -1]])), [[-1, 3], [2, -1]])


@pytest.mark.parametrize("n_rows", [40, 400])  # positive cells by sorting codes / by a scan
@pytest.mark.parametrize("complete", [False, True])  # codes left out (N_cf < N_c) or none
def test_sums_of_a_large_few_row_table_come_from_the_rows(n_rows, complete):
    rng = np.random.default_rng(7)
    k = np.array([500, 2, 900])
    low, over = (0, 0) if complete else (-1, 2)
    X = np.column_stack([rng.integers(low, kf + over, n_rows) for kf in k])
    y = rng.integers(0, 3, n_rows)
    table = CountTable.from_codes(X, y, 3, n_categories=k)
    dense = _loop_counts(X, y, 3, k)
    np.testing.assert_array_equal(table.counts, dense)
    np.testing.assert_array_equal(table.category_totals(), dense.sum(axis=0))
    np.testing.assert_array_equal(
        table.class_feature_totals(), np.add.reduceat(dense, table.offsets[:-1], axis=1)
    )
    if complete:
        assert np.all(table.class_feature_totals() == table.class_counts[:, None])
    else:
        assert np.any(table.class_feature_totals() < table.class_counts[:, None])
    np.testing.assert_array_equal(table.positive_cells(), np.flatnonzero(dense))
    cells = table.positive_cells()
    np.testing.assert_array_equal(table.positive_counts(cells), dense.ravel()[cells])
    with pytest.raises(ValueError, match="read-only"):  # the kept sums cannot go stale
        table.counts[0, 0] += 1


@pytest.mark.parametrize(
    "shape, order", [((0, 3), "C"), ((5, 3), "C"), ((10_007, 7), "C"), ((3_000, 4), "F")]
)
def test_column_max_is_numpys_per_column_maximum(shape, order):
    X = np.asarray(np.random.default_rng(3).integers(-1, 1_000, shape), order=order)
    np.testing.assert_array_equal(column_max(X), X.max(axis=0, initial=-1))
    np.testing.assert_array_equal(column_max(X[::2]), X[::2].max(axis=0, initial=-1))


def test_block_starts_are_the_flat_starts_of_class_feature_blocks():
    offsets = np.array([0, 2, 5])  # K = 2, 3
    np.testing.assert_array_equal(block_starts(2, 5, offsets), [0, 2, 5, 7, 10])


def test_codes_below_k_counts_as_the_checked_path():
    rng = np.random.default_rng(11)
    X = rng.integers(-1, 4, size=(200, 3))
    y = rng.integers(0, 2, 200)
    k = np.array([4, 6, 5])
    trusted = CountTable.from_codes(X, y, 2, k, codes_below_k=True)
    np.testing.assert_array_equal(trusted.counts, _loop_counts(X, y, 2, k))


@pytest.mark.parametrize("n_features", [1, 2, 7])
def test_column_max_reads_a_lone_remainder_row(n_features):
    """One row past the whole row blocks holds every column's maximum: it must count."""
    block = 8192 // n_features  # heb.counts._MAX_BLOCK rows-of-features per block
    X = np.zeros((block + 1, n_features), dtype=np.int64)
    X[-1] = np.arange(3, 3 + n_features)
    np.testing.assert_array_equal(column_max(X), np.arange(3, 3 + n_features))


def test_kept_sums_count_the_first_cell_of_the_table():
    """Class 0's code 0 of feature 0 is flat cell 0: the sort path must count its run."""
    k = np.array([500, 2, 900])
    X = np.array([[0, 0, 0], [0, 1, 7], [3, 0, 899], [-1, 1, 0]])
    y = np.array([0, 0, 2, 1])
    table = CountTable.from_codes(X, y, 3, n_categories=k)
    dense = _loop_counts(X, y, 3, k)
    assert dense[0, 0] == 2.0
    np.testing.assert_array_equal(table.positive_cells(), np.flatnonzero(dense))
    cells = table.positive_cells()
    np.testing.assert_array_equal(table.positive_counts(cells), dense.ravel()[cells])
    np.testing.assert_array_equal(
        table.class_feature_totals(), np.add.reduceat(dense, table.offsets[:-1], axis=1)
    )
    np.testing.assert_array_equal(table.category_totals(), dense.sum(axis=0))


#: codes no table can hold, in the forms a caller may pass them: int64's largest value (a
#: "missing" sentinel), uint64 hashes past int64 (pandas' hash_pandas_object) and floats
HUGE_CODES = {
    "int64 max": np.array([[np.iinfo(np.int64).max, 0], [1, 1]], dtype=np.int64),
    "uint64 past int64": np.array([[2**63 + 5, 0], [1, 1]], dtype=np.uint64),
    "float past int64": np.array([[1e19, 0.0], [1.0, 1.0]]),
}


@pytest.mark.parametrize("name", list(HUGE_CODES))
def test_codes_past_any_table_are_too_large_to_fit_and_unseen_to_score(name):
    """Such a code was read as missing (uint64 and float wrapped negative, with numpy's
    cast warning) and fitted silently without its rows; int64's maximum made K_f = max + 1
    wrap to 1 and the count wrote outside its table ("double free or corruption", the
    interpreter killed): run in a subprocess so that the old crash is a failure here."""
    import subprocess
    import sys

    script = f"""
import warnings
import numpy as np
from heb.nb import NaiveBayes
from tests.test_counts import HUGE_CODES
warnings.simplefilter("error")  # numpy's "invalid value encountered in cast" included
X = HUGE_CODES[{name!r}]
try:
    NaiveBayes("laplace").fit(X, [0, 1])
except ValueError as exc:
    print("refused:", exc)
model = NaiveBayes("laplace").fit(np.array([[0, 0], [1, 1]]), [0, 1])
unseen = np.array([[2, 0], [1, 1]])  # 2 was never seen: absent evidence, as missing is not
print("unseen:", np.array_equal(model.predict_proba(X), model.predict_proba(unseen)))
"""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-500:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: The category codes are too large"), done.stdout
    assert lines[1] == "unseen: True"
