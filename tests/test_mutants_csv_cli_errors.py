"""Tests from the mutation pass on the changes for large CSV files (CSV on DuckDB, folder
schemas, the evidence lesson's held-out verdict, the CLI's one-line errors): each fails on a
plausible slip in those lines that the other tests let through."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_scale_csv import _assert_same

from heb.data.readers import read_table
from heb.scale.duckdb_engine import DuckDBEngine
from heb.scale.source import open_source
from tests.engine_agreement import assert_same

pytest.importorskip("duckdb")


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source(name, root=root))
    return engine


# ------------------------------------------------------------------ CSV integers at the edges
@pytest.mark.parametrize(
    "data",
    [
        # 2**64 is one past uint64: pandas keeps it as text (a mutant casting it to UBIGINT
        # fails in DuckDB with a conversion error)
        b"x,y\n18446744073709551616,a\n2,b\n",
        # a zero beside uint64's largest value is still uint64, not text
        b"x,y\n18446744073709551615,a\n0,b\n",
        # in a ';' file, a column of NA tokens with spaces after them (missing only once
        # stripped) and no number is text, as in memory, not a numeric decimal-comma column
        b"x;y\nNA ;1\n NA;2\n",
        # a negative integer past -2**53 beside a missing cell stays exact (Int64), not float
        b"x,y\n-9007199254740993,a\n,b\n5,c\n",
        # a row whose first cell is spaces but which has other values is a row, not a blank
        # line (its first cell is missing)
        b"x,y\n1,a\n   ,b\n2,c\n",
    ],
    ids=[
        "two_pow_64_is_text",
        "uint64_with_a_zero",
        "semicolon_stripped_na_only_is_text",
        "negative_past_2_53_beside_missing",
        "spaces_in_the_first_cell_only",
    ],
)
def test_csv_edge_columns_read_as_in_memory(tmp_path, data):
    _assert_same(tmp_path, data)


# ------------------------------------------------------------------ CSV names equal but for case
def test_csv_columns_equal_but_for_case_are_counted_by_their_own_values(tmp_path):
    """DuckDB resolves identifiers regardless of case: without the view's positional
    aliases, counting 'Colour' would count 'colour' (the positional read alone cannot see it).
    The lower-case name comes first: a later name is compared case-folded."""
    rng = np.random.default_rng(14)
    n = 240
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["r", "g"], n),
            "Colour": rng.choice(["x", "y", "z"], n),
            "COLOUR": rng.choice(["u", "v"], n),
            "Y": rng.choice(["p", "q"], n),
            "y": rng.choice(["s", "t"], n),
        }
    )
    data = frame.to_csv(index=False).encode()
    (tmp_path / "case.csv").write_bytes(data)
    engine = _engine(tmp_path, "case.csv")
    assert [name for name, _ in engine.columns()] == list(frame.columns)
    colour = engine.table(
        f"SELECT {engine.dialect.quote('Colour')} AS v FROM heb_rows ORDER BY __heb_row"
    ).column(0)
    assert colour.to_pylist() == frame["Colour"].tolist()
    rows = read_table(data, "case.csv")
    assert_same(engine, rows, "y", methods=["Laplace", "HEB-M"])


# ------------------------------------------------------------------ float ID columns
def test_float_id_columns_with_fractions_or_no_finite_value_are_numbers_as_in_memory(tmp_path):
    """A float column named like an ID is categorical only when it holds whole numbers and
    at least one finite value (``is_integer_like``): fractions are binned, and a column of
    infinities and NaN alone is no ID either."""
    rng = np.random.default_rng(41)
    n = 240
    inf_nan = rng.choice([np.inf, -np.inf, np.nan], n)
    frame = pd.DataFrame(
        {
            "price_id": rng.choice([0.5, 1.25, 2.75, 3.5], n) + rng.integers(0, 3, n),
            "odd_id": inf_nan,
            "x": rng.choice(["u", "v"], n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    engine = _engine(tmp_path, "ids.parquet")
    from heb.scale.counting import describe

    columns = dict(zip(describe(engine, "y").features, describe(engine, "y").kinds, strict=True))
    assert columns["price_id"] == "numeric" and columns["odd_id"] == "numeric", columns
    assert_same(engine, frame, "y", methods=["Laplace", "HEB-M"])


# ------------------------------------------------------------------ the evidence lesson's verdict
def test_an_exact_tie_is_noise_not_a_negligible_difference():
    """Two smoothers scoring every held-out row alike (difference 0, standard error 0) are
    within noise; "too little to matter" is for a difference beyond the noise."""
    from heb.lessons.evidence import NOISE_SE, difference_kind

    assert difference_kind(0.0, 0.0) == "noise"
    assert difference_kind(NOISE_SE * 1e-3, 1e-3) == "noise"


# ------------------------------------------ engine CV: before and after counting
def _alternating(tmp_path, n: int) -> DuckDBEngine:
    frame = pd.DataFrame({"x": (["a", "b"] * n)[:n], "y": (["p", "q"] * n)[:n]})
    frame.to_parquet(tmp_path / f"t{n}.parquet", index=False)
    return _engine(tmp_path, f"t{n}.parquet")


@pytest.mark.parametrize("n_rows, n_splits", [(4, 4), (6, 5), (4, 3)])
def test_empty_folds_are_all_named_with_their_number_of_folds(tmp_path, n_rows, n_splits):
    """Right after counting, every fold without a row is named, counted from 1 as the
    progress counts them ("Fold 1 of 4", "Folds 3, 4 and 5 of 5"; a trial read "Folds 0,
    2, 5, 7 and 8 of 10" beside the progress's "fold 1 of 10"), not only the first one the
    scoring scan misses."""
    from heb.data import DataError
    from heb.scale.cv import cross_validate
    from heb.scale.inmemory import fold_assignment

    engine = _alternating(tmp_path, n_rows)
    empty = sorted(
        set(range(n_splits)) - {int(k) for k in fold_assignment(engine, "y", n_splits, 42)}
    )
    assert empty, "the case needs a fold without rows"
    names = [str(k + 1) for k in empty]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    word = "Fold" if len(empty) == 1 else "Folds"
    with pytest.raises(DataError) as info:
        cross_validate(engine, "y", ["Laplace"], n_splits=n_splits)
    assert str(info.value) == (
        f"{word} {listed} of {n_splits} received no rows; use fewer folds for {n_rows} rows."
    )


def _no_counting(monkeypatch):
    import heb.scale.cv

    def refuse(*args, **kwargs):
        raise AssertionError("the source was scanned")

    monkeypatch.setattr(heb.scale.cv, "count_histograms", refuse)


def test_hierarchies_are_refused_before_any_scan(tmp_path, monkeypatch):
    from heb.scale.cv import cross_validate

    engine = _alternating(tmp_path, 8)
    _no_counting(monkeypatch)
    with pytest.raises(ValueError, match="HEB-H: category hierarchies are not available"):
        cross_validate(
            engine, "y", ["HEB-H"], params={"HEB-H": {"hierarchies": {0: [[0, 0]]}}}, n_splits=2
        )


def test_two_refused_methods_are_named_in_one_plural_sentence(tmp_path, monkeypatch):
    from heb.scale.cv import cross_validate

    engine = _alternating(tmp_path, 8)
    _no_counting(monkeypatch)
    with pytest.raises(ValueError) as info:
        cross_validate(engine, "y", ["Laplace", "TAN", "HEB-TAN"], n_splits=2)
    message = str(info.value)
    assert message.startswith(
        "TAN and HEB-TAN are tree-augmented (TAN) methods, which the engine path"
    ), message
    assert "leave them out or run in memory." in message, message


# ------------------------------------------------------------------ heldout_verdict's sentences
def _comparison(**changes) -> dict:
    base = {
        "heb": 1.20010,
        "laplace": 1.20000,
        "best": 1.19990,
        "best_m": 30.0,
        "diff": 0.00010,
        "se": 0.00100,
        "best_diff": 0.00020,
        "best_se": 0.00100,
        "n_rows": 10_000,
    }
    return {**base, **changes}


def test_the_counts_outweigh_either_prior_only_when_both_weights_are_small():
    from heb.lessons.evidence import heldout_verdict

    many = heldout_verdict(_comparison(), "HEB-M", 20.0, False, 7, rho=20.0 / 10_020)
    assert "No winner between HEB-M's m and Laplace here." in many
    assert "With 10,000 rows over K = 7 categories the counts outweigh either prior." in many
    few = heldout_verdict(_comparison(n_rows=30), "HEB-M", 20.0, False, 20, rho=0.4)
    assert "No winner" in few and "outweigh" not in few


def test_laplaces_m_with_another_prior_mean_is_not_the_same_estimate():
    """m = K is Laplace only with the uniform prior mean; HEB-M's m = K toward the pooled
    marginal is another estimate, judged on its scores."""
    from heb.lessons.evidence import heldout_verdict

    text = heldout_verdict(_comparison(), "HEB-M", 7.0, False, 7, rho=7.0 / 10_007)
    assert "the same estimate" not in text and "No winner" in text
    same = heldout_verdict(_comparison(), "HEB-U", 7.0, True, 7, rho=7.0 / 10_007)
    assert "the same estimate, the same score" in same


def test_a_negligible_gap_to_the_curves_lowest_point_is_within_noise():
    from heb.lessons.evidence import NEGLIGIBLE, heldout_verdict

    gap = NEGLIGIBLE / 2
    c = _comparison(best_diff=gap, best_se=gap / 10)  # beyond the noise, but negligible
    text = heldout_verdict(c, "HEB-M", 20.0, False, 7, rho=0.002)
    assert "within noise of this curve's lowest" in text and "above this curve" not in text


def test_the_prior_mean_is_blamed_only_when_the_curves_lowest_is_above_laplace():
    from heb.lessons.evidence import heldout_verdict

    ahead = {"diff": 0.05, "se": 0.001, "heb": 1.25, "laplace": 1.20}
    below = heldout_verdict(_comparison(**ahead, best=1.19), "HEB-M", 20.0, False, 7, 0.002)
    assert "**Laplace beats HEB-M's m on this pair.**" in below
    assert "prior mean t, not m" not in below
    above = heldout_verdict(_comparison(**ahead, best=1.21), "HEB-M", 20.0, False, 7, 0.002)
    assert "prior mean t, not m" in above


def test_a_small_gap_is_written_as_its_digits_not_as_under_a_ten_thousandth():
    from heb.lessons.evidence import heldout_verdict

    c = _comparison(diff=0.0003, se=0.0007)
    text = heldout_verdict(c, "HEB-M", 20.0, False, 7, rho=0.002)
    assert "a gap of 0.0003 (standard error 0.0007)" in text, text
    tiny = heldout_verdict(_comparison(diff=0.00003), "HEB-M", 20.0, False, 7, rho=0.002)
    assert "a gap of under 0.0001" in tiny, tiny


# ------------------------------------------------------------------ folders and paper tables
def test_a_column_only_the_first_file_has_is_named_with_the_file_holding_it(tmp_path):
    from heb.data import DataError

    folder = tmp_path / "parts"
    folder.mkdir()
    frame = pd.DataFrame({"x": ["a", "b"], "y": ["p", "q"]})
    frame.assign(extra=[1, 2]).to_parquet(folder / "p0.parquet", index=False)
    frame.to_parquet(folder / "p1.parquet", index=False)
    with pytest.raises(DataError) as info:
        open_source("parts", root=tmp_path)
    assert "Column 'extra' is in 'p0.parquet' but not in 'p1.parquet'" in str(info.value)


def test_table2_without_any_paired_methods_says_why():
    """Two datasets but none of table 2's pairs: a reason the CLI prints, not an empty table."""
    from heb.evaluate.paper import table2

    frame = pd.DataFrame(
        {
            "dataset": ["d1", "d1", "d2", "d2"],
            "method": ["Laplace", "HEB-M", "Laplace", "HEB-M"],
            "fold": 0,
            "variant": "main",
        }
    )
    for metric in ("accuracy", "f1_macro", "log_loss", "brier", "auc", "ece"):
        frame[metric] = [0.5, 0.6, 0.4, 0.3]
    with pytest.raises(ValueError, match="no two of its paired methods ran on the same 2"):
        table2(frame)


def test_a_score_at_the_curves_lowest_point_is_not_within_noise_of_itself():
    """A user_id pair of zip-codes: every fold's m and the lowest point clamped at 10,000;
    the text read '6.0614 (within noise of this curve's lowest inside the clamp, 6.0614 at
    m = 10,000)', a gap to itself."""
    from heb.lessons.evidence import heldout_verdict

    same = _comparison(heb=6.0614, best=6.0614, best_m=10_000.0, best_diff=0.0, best_se=0.0)
    text = heldout_verdict(same, "HEB-M", 10_000.0, False, 1_333, rho=0.93)
    assert "(this curve's lowest inside the clamp, at m = 10,000)" in text
    assert "within noise" not in text
