"""Tests added by mutation testing (session 31): each guards against one hand-made bug in
the Dataset page's summaries and the numerical core that the suite let through."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from explorer import summaries


def test_no_subsample_note_when_every_row_is_kept():
    """dataset_notes: a table counted whole (kept rows == total rows) is no subsample
    (guards against ``n_rows_total >= kept``)."""
    X = pd.DataFrame({"a": [1, 2, 3]})
    dataset = SimpleNamespace(notes=["loaded"], X=X)
    work = SimpleNamespace(codes=np.zeros((3, 1)), n_rows_total=3, preprocessor=None)
    assert summaries.dataset_notes(dataset, work) == ["loaded"]
    work = SimpleNamespace(codes=np.zeros((3, 1)), n_rows_total=4, preprocessor=None)
    assert summaries.dataset_notes(dataset, work)[-1].startswith("Stratified subsample of 3 of 4")


def test_id_columns_name_only_columns_of_the_table():
    """id_columns: a piled ID-like name that is not a column of the table (renamed or
    left out) is not offered for dropping (guards against removing the ``in X.columns``
    filter)."""
    X = pd.DataFrame({"user": ["u1"] * 6 + ["u2"] * 6, "id": [f"r{i}" for i in range(12)]})
    dataset = SimpleNamespace(X=X, categorical=["user", "id"])
    pre = SimpleNamespace(id_like_imputed_={"ghost": {}, "user": {}})
    work = SimpleNamespace(preprocessor=pre)
    assert summaries.id_columns(dataset, work) == ["user", "id"]


def test_code_rule_counts_a_share_of_exactly_one_half():
    """looks_like_code: distinct values equal to CODE_DISTINCT_SHARE of the rows are
    enough (guards against ``>`` in place of ``>=``)."""
    rows = 2 * (summaries.CODE_MIN_VALUES + 1)
    assert summaries.looks_like_code("amount", rows // 2, rows)
    assert not summaries.looks_like_code("amount", rows // 2 - 1, rows)


def test_mi_above_chance_is_never_negative():
    """feature_table: a feature independent of the target has plug-in MI 0, below its
    chance level; 'MI above chance' shows 0, not a negative number (guards against
    dropping the ``np.maximum(..., 0)``)."""
    from heb.counts import CountTable

    codes = np.array([[0], [1], [0], [1]] * 5)
    y = np.array([0, 0, 1, 1] * 5)
    table = CountTable.from_codes(codes, y, 2)
    work = SimpleNamespace(
        table=table, feature_names=["f"], preprocessor=SimpleNamespace(kinds_={"f": "categorical"})
    )
    dataset = SimpleNamespace(X=pd.DataFrame({"f": codes[:, 0]}))
    row = summaries.feature_table(dataset, work).iloc[0]
    assert row["MI with target (nats)"] == 0.0
    assert row[summaries.MI_CHANCE] > 0.0
    assert row[summaries.MI_ABOVE] == 0.0


def test_conditional_counts_put_the_largest_class_first():
    """conditional_counts: class columns run largest class first, as the lens figure's
    legend (guards against sorting the classes smallest first)."""
    from heb.counts import CountTable

    codes = np.array([[0], [1], [1], [0], [1], [0]])
    y = np.array([0, 1, 1, 1, 2, 2])  # class b has 3 rows, c 2, a 1
    work = SimpleNamespace(
        table=CountTable.from_codes(codes, y, 3),
        preprocessor=SimpleNamespace(categories_=[["x", "y"]]),
        class_names=["a", "b", "c"],
    )
    frame = summaries.conditional_counts(work, 0)
    assert list(frame.columns) == ["category", "N(class=b)", "N(class=c)", "N(class=a)", "total"]
    assert frame["N(class=b)"].tolist() == [1, 2]
    assert frame["total"].tolist() == [3, 3]


def test_lens_table_sums_the_other_classes():
    """lens_table: the 'N(k other classes)' column is the sum of the classes not drawn on
    their own, as the figure's grey series (guards against another reduction)."""
    from heb.figures.dataset import MAX_CLASS_SERIES

    n = MAX_CLASS_SERIES + 3
    data = {"category": ["x", "y"]}
    for c in range(n):
        data[f"N(class={c})"] = [10 * (n - c), 1 + c]
    counts = pd.DataFrame(data)
    counts["total"] = counts.iloc[:, 1:].sum(axis=1)
    table = summaries.lens_table(counts)
    rest = [f"N(class={c})" for c in range(MAX_CLASS_SERIES, n)]
    assert table["N(3 other classes)"].tolist() == counts[rest].sum(axis=1).tolist()


def test_exactly_sparse_cell_rows_per_category_is_not_sparse():
    """rows_per_category: a pair with exactly SPARSE_CELL rows per category is not counted
    as sparse, one below it is (guards against ``<=``)."""
    from heb.counts import CountTable

    per = int(summaries.SPARSE_CELL)
    codes = np.array([[0], [1]] * per + [[0], [1]] * (per - 1))
    y = np.array([0] * (2 * per) + [1] * (2 * per - 2))
    per_cell, sparse = summaries.rows_per_category(
        SimpleNamespace(table=CountTable.from_codes(codes, y, 2))
    )
    assert per_cell[:, 0].tolist() == [per, per - 1]
    assert sparse == 1


# ---------------------------------------------------------------- heb/counts.py


def test_a_feature_without_codes_still_gets_one_column():
    """CountTable.from_codes: K_f is at least 1 even when a feature has no counted code
    (guards against dropping ``np.maximum(..., 1)``)."""
    from heb.counts import CountTable

    X = np.array([[-1, 0], [-1, 1]])
    table = CountTable.from_codes(X, np.array([0, 1]), 2, n_categories=[0, 2])
    assert table.n_categories.tolist() == [1, 2]
    assert table.counts.tolist() == [[0, 1, 0], [0, 0, 1]]


def test_a_code_equal_to_k_is_not_counted():
    """CountTable.from_codes: a code equal to the given K_f is out of range and is not
    counted (guards against ``column_max(X) <= n_categories``, which let it spill into the
    next feature's first column)."""
    from heb.counts import CountTable

    X = np.array([[2, 0], [1, 1]])
    table = CountTable.from_codes(X, np.array([0, 0]), 1, n_categories=[2, 2])
    assert table.counts.tolist() == [[0, 1, 1, 1]]
    assert table.class_feature_totals().tolist() == [[1, 2]]


def test_rows_per_category_divides_by_each_features_own_k():
    """CountTable.rows_per_category: N_cf / K_f per feature (guards against one K for all)."""
    from heb.counts import CountTable

    X = np.array([[0, 0], [1, 3], [0, 2], [1, 1]])
    table = CountTable.from_codes(X, np.array([0, 0, 1, 1]), 2)
    assert table.rows_per_category().tolist() == [[1.0, 0.5], [1.0, 0.5]]


def test_widen_never_narrows_a_table():
    """CountTable.widen: asking for fewer columns keeps the table as it is (guards against
    taking the requested K_f in place of the larger one)."""
    from heb.counts import CountTable

    table = CountTable.from_codes(np.array([[2], [0]]), np.array([0, 1]), 2)
    assert table.widen(np.array([1])) is table
    wider = table.widen(np.array([4]))
    assert wider.n_categories.tolist() == [4]
    assert wider.counts[:, :3].tolist() == table.counts.tolist()


def test_tables_of_different_features_do_not_add():
    """CountTable.__add__: tables with different numbers of features are refused with the
    merge message (guards against dropping the feature check)."""
    import pytest

    from heb.counts import CountTable

    two = CountTable.from_codes(np.array([[0, 1]]), np.array([0]), 2)
    three = CountTable.from_codes(np.array([[0, 1, 0]]), np.array([0]), 2)
    with pytest.raises(ValueError, match="cannot be merged"):
        two + three


# ---------------------------------------------------------------- concentration solver


def _items():
    """Two groups: items (group, count, prior mean) and documents (group, total)."""
    from heb.concentration_solver import WeightedItems

    return WeightedItems(
        np.array([0, 0, 0, 1, 1]),
        np.array([3.0, 1.0, 2.0, 4.0, 1.0]),
        np.array([0.5, 0.3, 0.2, 0.6, 0.4]),
        np.array([0, 0, 1]),
        np.array([4.0, 2.0, 5.0]),
        2,
    )


def test_the_quick_score_equals_the_full_score():
    """Score.first_derivative equals the first row of Score.derivatives, documents
    counting negatively (guards against adding the documents' terms)."""
    score = _items().score()
    m = np.array([0.7, 3.0])
    np.testing.assert_allclose(score.first_derivative(m), score.derivatives(m)[0], rtol=1e-12)


def test_items_given_in_decreasing_group_order_are_sorted():
    """WeightedItems: entries in decreasing group order are sorted by group (guards against
    testing ``>`` in place of ``<`` before sorting)."""
    from heb.concentration_solver import WeightedItems

    items = WeightedItems(
        np.array([1, 0]), np.array([2.0, 5.0]), np.array([0.5, 0.25]),
        np.array([1, 0]), np.array([2.0, 5.0]), 2,
    )  # fmt: skip
    assert items.item_group.tolist() == [0, 1]
    assert items.item_count.tolist() == [5.0, 2.0]
    assert items.item_bounds.tolist() == [0, 1, 2]
    assert items.doc_total.tolist() == [5.0, 2.0]


def test_merged_documents_keep_their_count_and_totals():
    """WeightedItems.merged: merging identical documents into weights leaves the documents
    per group and their summed totals unchanged (guards against ignoring doc weights)."""
    from heb.concentration_solver import WeightedItems

    args = (
        np.array([0, 0, 0, 1]), np.array([2.0, 2.0, 1.0, 3.0]), np.array([0.5, 0.5, 0.5, 1.0]),
        np.array([0, 0, 0, 1]), np.array([3.0, 3.0, 3.0, 3.0]), 2,
    )  # fmt: skip
    plain, merged = WeightedItems(*args), WeightedItems.merged(*args)
    assert merged.doc_weight is not None
    assert merged.documents().tolist() == plain.documents().tolist() == [3.0, 1.0]
    assert merged.totals().tolist() == plain.totals().tolist() == [9.0, 3.0]


# ---------------------------------------------------------------- heb/metrics.py


def test_a_negative_probability_is_refused():
    """metrics: a row with a clearly negative probability is an error even when the row
    sums to 1 and no value exceeds 1 (guards against checking the upper bound only)."""
    import pytest

    from heb import metrics

    with pytest.raises(ValueError, match="must lie in"):
        metrics.accuracy(np.array([1]), np.array([[-0.1, 0.6, 0.5]]))


def test_check_rows_refuses_a_class_index_equal_to_c():
    """metrics.check_rows: class index C (one past the last column) is refused (guards
    against ``>`` in place of ``>=``)."""
    import pytest

    from heb import metrics

    with pytest.raises(ValueError, match="0..C-1"):
        metrics.check_rows(np.array([0, 2]), np.array([[0.5, 0.5], [0.2, 0.8]]))


# ---------------------------------------------------------------- heb/stats.py


def test_scores_equal_to_rounding_noise_tie():
    """stats.rank_scores: scores differing by floating-point noise (1e-13) share the
    average rank (guards against dropping the rounding to SCORE_DECIMALS)."""
    from heb import stats

    ranks = stats.rank_scores(np.array([[0.8, 0.8 + 1e-13, 0.5]]), higher_is_better=True)
    assert ranks.tolist() == [[1.5, 1.5, 3.0]]


class _LinearScore:
    """A one-group score whose g(x) = m l'(m) is r - x (x = log m), with a curvature the
    caller sets at one point: the solver's curvature terms are approximations (about
    1e-5 relative), so a step from a poor curvature must not end the iteration."""

    size = 0

    def __init__(self, root: float, at: float, ddg: float):
        self.root, self.at, self.ddg = root, at, ddg

    def derivatives(self, m: np.ndarray) -> np.ndarray:
        x = np.log(m)
        g, dg = self.root - x, -np.ones_like(x)
        ddg = np.where(np.abs(x - self.at) < 1e-12, self.ddg, 0.0)
        curve = dg - g
        return np.stack([g / m, curve / m**2, (ddg - dg - 2.0 * curve) / m**3])


def test_halley_does_not_stop_on_a_small_step_far_from_the_root():
    """At x = r - 1 a curvature of -2e4 makes Halley's step 1e-4, under STEP_TOL, while
    g = 1: only the Newton test (|g| < STEP_TOL |g'|) keeps the solver going (guards
    against dropping it from the stopping rule)."""
    from heb.concentration_solver import halley_log_m

    root = 2.0
    score = _LinearScore(root, root - 1.0, -2e4)
    x, converged, _ = halley_log_m(score, np.array([root - 1.0]), np.array([-5.0]), np.array([9.0]))
    assert converged[0] and abs(x[0] - root) < 1e-9


def test_halley_does_not_stop_on_a_step_that_left_the_bracket():
    """At x = r - 1e-5 (g > 0, so the bracket's low end moves to x) a curvature of 1e6
    turns Halley's tiny step backwards, out of the bracket: bisection replaces it, and
    that midpoint is no converged value (guards against ``done = small`` without ``ok``)."""
    from heb.concentration_solver import halley_log_m

    root, start = 2.0, 2.0 - 1e-5
    score = _LinearScore(root, start, 1e6)
    x, converged, _ = halley_log_m(score, np.array([start]), np.array([-5.0]), np.array([9.0]))
    assert converged[0] and abs(x[0] - root) < 1e-9
