"""The bench's reliability diagrams follow Table 3's rule for what is high-cardinality:
the catalogue's group, or K_max >= 100 for data outside it (a CSV of ZIP codes got
Table 3 rows but no reliability diagram)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.cli import _collect_reliability
from heb.evaluate.paper import HIGH_CARDINALITY_K_MAX, TABLE_METHODS, is_high_cardinality

SETTINGS = {"n_splits": 2, "seed": 0, "n_bins": 10, "missing": "impute", "max_rows": 20_000}


def _csv(path, n_codes: int) -> str:
    rng = np.random.default_rng(0)
    rows = 400
    frame = pd.DataFrame(
        {
            "zip": [f"z{code}" for code in rng.integers(0, n_codes, rows)],
            "colour": rng.choice(["r", "g", "b"], rows),
            "y": rng.integers(0, 2, rows),
        }
    )
    frame.to_csv(path, index=False)
    return str(path)


def test_the_rule_is_the_catalogue_first_then_k_max():
    assert is_high_cardinality("amazon-employee-access", 2)  # the catalogue says so
    assert not is_high_cardinality("mushroom", 10_000)  # the catalogue says not
    assert is_high_cardinality("my-upload", HIGH_CARDINALITY_K_MAX)
    assert not is_high_cardinality("my-upload", HIGH_CARDINALITY_K_MAX - 1)


def test_a_file_outside_the_catalogue_gets_reliability_curves_when_k_max_is_high(tmp_path):
    many = _csv(tmp_path / "zips.csv", 300)
    few = _csv(tmp_path / "few.csv", 20)
    curves = _collect_reliability([many, few], SETTINGS, {4})
    assert list(curves) == ["zips"]
    assert set(curves["zips"]) == set(TABLE_METHODS[4])
    assert _collect_reliability([many], SETTINGS, {1}) == {}  # Table 4 not asked for


def test_the_reliability_figures_read_categorical_columns_as_the_tables_do(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "codes.csv"
    pd.DataFrame({"zip": rng.integers(10_000, 10_300, 400), "y": rng.integers(0, 2, 400)}).to_csv(
        path, index=False
    )
    assert _collect_reliability([str(path)], SETTINGS, {4}) == {}  # binned: K_max 10
    curves = _collect_reliability([str(path)], SETTINGS, {4}, ["zip"])
    assert list(curves) == ["codes"]
