"""The Concentrations table's help on iterations and convergence says what a clamped pair
shows: 0 iterations and converged (the trial read "clamped at 10,000, 0 iterations,
converged" as a contradiction). The engine's numbers are checked against the help."""

from __future__ import annotations

import numpy as np

from explorer.concentrations import CONVERGED_HELP, ITERATIONS_HELP, pair_column_config
from heb.diagnostics import concentration_table
from heb.nb import NaiveBayes


def test_a_clamped_pair_has_no_iteration_and_converged_as_the_help_says():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 300)
    free = rng.integers(0, 5, 600)  # independent of the class: the evidence rises to the clamp
    tied = np.where(rng.random(600) < 0.8, y * 3, rng.integers(0, 5, 600))  # a real m
    model = NaiveBayes("heb-m").fit(np.column_stack([free, tied]), y)
    table = concentration_table(model, ["free", "tied"])
    free_rows = table[table["feature name"] == "free"]
    assert len(free_rows) == 2 and (free_rows["clamped"] == "high").all()
    assert (free_rows["iterations"] == 0).all() and free_rows["converged"].all()
    solved = table[table["feature name"] == "tied"]
    assert (solved["clamped"] == "none").all() and (solved["iterations"] > 0).all()
    assert "0 where m is clamped" in ITERATIONS_HELP
    assert "0 iterations" in CONVERGED_HELP
    config = pair_column_config()
    assert config["iterations"]["help"] == ITERATIONS_HELP
    assert config["converged"]["help"] == CONVERGED_HELP
