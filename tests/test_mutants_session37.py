"""Checks that mutation testing of session 37 found missing.

Each test kills hand-written mutants of ``heb/hierarchy_sources.py`` (where category
hierarchies come from), ``heb/synthetic_hierarchy.py`` (the known truth of HEB-H's l1
study) or ``explorer/hierarchies.py`` (the app's hierarchy logic) that the rest of the
suite let live. Every expected value is worked by hand in the test's docstring or comments.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import heb.synthetic_hierarchy as synthetic_hierarchy
from heb.counts import CountTable, category_offsets
from heb.hierarchy import fit_nested
from heb.hierarchy_sources import (
    functional_dependencies,
    levels_from_chain,
    levels_from_parent_column,
    prefix_levels,
)
from heb.synthetic_hierarchy import hierarchy_l1_study, tree_pmfs, zip_levels


# ------------------------------------------------------------------ hierarchy_sources
def test_rows_with_a_missing_parent_do_not_vote_for_any_parent():
    """Child 0 is seen with parent 0 twice and parent 1 once: its parent is 0. Child 1 has
    one row with parent 0 and three with a missing parent (-1), which must not be counted:
    coded as child * 2 + parent they would read as three more (0, 1) rows and flip child 0
    to parent 1."""
    child = np.array([0, 0, 0, 1, 1, 1, 1])
    parent = np.array([0, 0, 1, 0, -1, -1, -1])
    np.testing.assert_array_equal(levels_from_parent_column(child, parent), [0, 0])


def test_a_tie_between_parents_goes_to_the_smallest_parent_code():
    """Child 0 is seen once with parent 2 and once with parent 1: the docstring's tie rule
    gives it 1."""
    levels = levels_from_parent_column(np.array([0, 0, 1]), np.array([2, 1, 0]))
    np.testing.assert_array_equal(levels, [1, 0])


def test_n_child_below_the_largest_child_code_cuts_the_level():
    """With n_child=2, child code 2 (parent 1) is outside the level: [0, 0], no error."""
    levels = levels_from_parent_column(np.array([0, 1, 2]), np.array([0, 0, 1]), 2)
    np.testing.assert_array_equal(levels, [0, 0])


def test_strict_counts_each_child_with_several_parents_once():
    """Child 0 meets three parents (0, 1, 2): one child category breaks the rule, not two."""
    child = np.array([0, 0, 0, 1])
    parent = np.array([0, 1, 2, 0])
    with pytest.raises(ValueError, match=r"^1 child categories \(codes \[0\]"):
        levels_from_parent_column(child, parent, strict=True)


@pytest.mark.parametrize("lengths", [[3, 3], [2, 0]])
def test_prefix_lengths_must_be_positive_and_strictly_decreasing(lengths):
    with pytest.raises(ValueError, match="positive and strictly decreasing"):
        prefix_levels(["02139", "02140"], lengths)


def test_a_tolerance_of_one_is_refused():
    X = np.array([[0, 0], [1, 0], [2, 1], [0, 0], [1, 0], [2, 1]])
    with pytest.raises(ValueError, match=r"tolerance must lie in \[0, 1\)"):
        functional_dependencies(X, tolerance=1.0)


def test_two_rows_per_value_is_enough_for_a_child():
    """A has 3 values over 6 rows: exactly min_rows_per_value (2) rows per value, kept.
    B = (0, 0, 0, 0, 1, 1) is a function of A and coarser: A -> B, exact."""
    X = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [2, 1], [2, 1]])
    deps = functional_dependencies(X, ["A", "B"])
    assert [(d.child, d.parent, d.violating_rows) for d in deps] == [(0, 1, 0)]


def test_missing_values_are_not_a_value_of_a_column():
    """A has two observed values (and two missing rows), as many as B: B is not coarser,
    so no dependency (counting -1 as a third value of A would find A -> B)."""
    X = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [-1, 0], [-1, 1]])
    assert functional_dependencies(X, ["A", "B"]) == []


def test_a_parent_constant_where_the_child_is_observed_is_not_a_dependency():
    """B's second value appears only where A is missing: on the rows where both are
    observed B is constant, a blind guess makes no error, and A -> B says nothing."""
    X = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [2, 0], [2, 0], [-1, 1]])
    assert functional_dependencies(X, ["A", "B"]) == []


def test_violations_counted_by_hand():
    """A value 0 meets B = 0 (3 rows), 1 and 2 (one row each): 2 violating rows, 1
    violating category, share 2 / 13 rows. B's counts are 0: 3, 1: 4, 2: 6, so a blind
    guess (B = 2) misses 7 rows: A -> B holds when 2 <= tolerance * 7, i.e. at 0.3 and
    not at 0.25 (the largest pair count, 3, would give 10 blind misses and accept 0.25)."""
    A = [0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]
    B = [0, 0, 0, 1, 2, 1, 1, 1, 2, 2, 2, 2, 2]
    X = np.column_stack([A, B])
    assert functional_dependencies(X, ["A", "B"], tolerance=0.25) == []
    (dep,) = functional_dependencies(X, ["A", "B"], tolerance=0.3)
    assert (dep.n_child, dep.n_parent) == (4, 3)
    assert (dep.violating_rows, dep.violating_categories) == (2, 1)
    assert dep.share == pytest.approx(2 / 13, abs=1e-15)


def test_dependencies_of_one_child_list_the_finest_parent_first():
    """leaf (6 values) -> pair = leaf // 2 (3 values) -> half = pair // 2 (2 values)."""
    leaf = np.repeat(np.arange(6), 2)
    X = np.column_stack([leaf, leaf // 2, leaf // 4])
    deps = functional_dependencies(X, ["leaf", "pair", "half"])
    assert [(d.child_name, d.parent_name) for d in deps] == [
        ("leaf", "pair"),
        ("leaf", "half"),
        ("pair", "half"),
    ]


def test_a_chain_covers_the_orphan_groups_of_the_level_below():
    """Leaf 2 has no observed parent, so level 1 gives it a group of its own, code 1 (after
    the parent column's only code 0). Level 2 must map both groups: group 0 -> 0 (the
    grandparent of parent 0), the orphan group alone after the grandparent codes -> 2."""
    X = np.array([[0, 0, 0], [1, 0, 0], [2, -1, 1]])
    levels = levels_from_chain(X, 0, [1, 2])
    np.testing.assert_array_equal(levels[0], [0, 0, 1])
    np.testing.assert_array_equal(levels[1], [0, 2])


# ------------------------------------------------------------------ synthetic_hierarchy
def test_zip_levels_refuses_an_empty_level():
    with pytest.raises(ValueError, match="at least one node"):
        zip_levels(2, 0, 3)


def test_tree_pmfs_survive_shapes_whose_gamma_draws_underflow():
    """Gamma(1e-320) draws are 0: floored, the base splits evenly instead of 0 / 0."""
    base, theta = tree_pmfs(
        zip_levels(1, 1, 3), 2, concentrations=(1.0, 1.0, 1.0), base_alpha=1e-320,
        rng=np.random.default_rng(0),
    )  # fmt: skip
    np.testing.assert_allclose(base, [1 / 3, 1 / 3, 1 / 3])
    assert np.isfinite(theta).all()
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def test_tree_pmfs_refuse_too_many_concentrations_in_one_sentence():
    with pytest.raises(ValueError, match="one value per level \\(3\\)"):
        tree_pmfs(zip_levels(1, 1, 2), 1, concentrations=(1.0, 1.0, 1.0, 1.0))


def test_the_study_needs_one_repetition():
    with pytest.raises(ValueError, match="reps must be a whole number >= 1"):
        hierarchy_l1_study(K_values=[(1, 1, 2)], N_values=[10], reps=0)


def _point_mass_truth(monkeypatch, shape, leaves, base):
    """Replace the drawn truth: class c puts all its mass on leaf ``leaves[c]``, so the
    N = 1000 rows of each class are certain."""

    def fake(levels, n_draws, rng=None, **_):
        assert n_draws == len(leaves)
        return np.asarray(base, dtype=float), np.eye(len(base))[leaves]

    monkeypatch.setattr(synthetic_hierarchy, "tree_pmfs", fake)
    return {"K_values": [shape], "N_values": [1000], "n_classes": len(leaves), "reps": 1}


def test_study_rows_by_hand_under_a_point_mass_truth(monkeypatch):
    """Two leaves under one prefix under one region, base (0.2, 0.8), class 0 on leaf 0,
    class 1 on leaf 1. Laplace: class 0 counts (1000, 0) -> (1001, 1) / 1002, l1 error
    2 / 1002; class 1 the same. Oracle with m = (1000, 10, 5): the prefix and region
    splits are 1, a leaf's estimate is (n_v + 1000 b_v) / (1000 + 1000): class 0
    (0.6, 0.4), error 0.8; class 1 (0.1, 0.9), error 0.2; mean 0.5, sample std
    0.3 sqrt(2). K / N = 2 / 1000."""
    kwargs = _point_mass_truth(monkeypatch, (1, 1, 2), [0, 1], [0.2, 0.8])
    rows = hierarchy_l1_study(smoothers=("laplace", "oracle"), **kwargs)
    by = {r["smoother"]: r for r in rows}
    assert by["laplace"]["mean"] == pytest.approx(2 / 1002, rel=1e-12)
    assert by["laplace"]["std"] == pytest.approx(0.0, abs=1e-15)
    assert by["oracle"]["mean"] == pytest.approx(0.5, rel=1e-12)
    assert by["oracle"]["std"] == pytest.approx(0.3 * np.sqrt(2), rel=1e-12)
    assert by["oracle"]["K_over_N"] == pytest.approx(0.002, rel=1e-15)
    assert (by["oracle"]["K"], by["oracle"]["N"], by["oracle"]["unseen_mass"]) == (2, 1000, 0.0)


def test_study_prior_mean_row_is_the_prior_mean_form(monkeypatch):
    """Two prefixes of two leaves; class 0 on leaf 0, class 1 on leaf 3. The
    "heb-h-prior-mean" row is the l1 error of fit_nested's prior-mean form on those
    counts, the "heb-h" row the tree form's; here they differ (about 2e-10 and 1e-5)."""
    kwargs = _point_mass_truth(monkeypatch, (1, 2, 2), [0, 3], [0.25] * 4)
    rows = hierarchy_l1_study(smoothers=("heb-h", "heb-h-prior-mean"), **kwargs)
    by = {r["smoother"]: r["mean"] for r in rows}
    counts = np.array([[1000.0, 0, 0, 0], [0, 0, 0, 1000.0]])
    table = CountTable(np.full(2, 1000.0), counts, category_offsets([4]))
    levels = {0: zip_levels(1, 2, 2)}
    for form, name in (("prior-mean", "heb-h-prior-mean"), ("tree", "heb-h")):
        theta = fit_nested(table, levels, form=form).theta
        assert by[name] == pytest.approx(
            np.abs(theta - counts / 1000).sum(axis=1).mean(), rel=1e-9, abs=1e-18
        )
    assert by["heb-h-prior-mean"] < 0.1 * by["heb-h"]


# ------------------------------------------------------------------ explorer.hierarchies
@pytest.fixture
def session(monkeypatch):
    """A plain dict as the app's session state, on dataset spec "builtin:test"."""
    from explorer import hierarchies

    state = {"data_spec": "builtin:test"}
    monkeypatch.setattr(hierarchies.st, "session_state", state)
    return state


def _work(codes, names, kinds=None, key="session37"):
    """The parts of a WorkingData the hierarchy logic reads, labels "a0", "a1", ..."""
    codes = np.asarray(codes, dtype=np.int64)
    k = codes.max(axis=0) + 1
    pre = SimpleNamespace(
        feature_names_out_=list(names),
        categories_=[[f"{name}{v}" for v in range(n)] for name, n in zip(names, k, strict=True)],
        kinds_=dict(kinds or {}),
    )
    table = SimpleNamespace(n_categories=k)
    return SimpleNamespace(
        codes=codes, feature_names=list(names), preprocessor=pre, table=table, key=key
    )


def test_redeclaring_a_feature_at_the_limit_replaces_it(session):
    """With MAX_DECLARED features declared, declaring one of them again replaces it (the
    limit counts the others), and the declaration kept is the new one."""
    from explorer.hierarchies import declare, declared
    from heb.evaluate.hierarchy_specs import MAX_DECLARED, Declared

    for i in range(MAX_DECLARED):
        declare(Declared(f"f{i}", parents=("p",)))
    declare(Declared("f0", parents=("q",)))
    items = {d.feature: d for d in declared()}
    assert len(items) == MAX_DECLARED and items["f0"].parents == ("q",)
    with pytest.raises(ValueError, match=f"At most {MAX_DECLARED}"):
        declare(Declared("new", parents=("p",)))


def test_numeric_columns_have_no_labels():
    from explorer.hierarchies import labels_of

    work = _work([[0, 1], [1, 0]], ["a", "b"], kinds={"a": "numeric", "b": "categorical"})
    assert labels_of(work, 0) is None
    assert labels_of(work, 1) == ["b0", "b1"]


def test_levels_summary_says_which_declarations_are_used():
    """Leaf a (3 codes) -> parent b (a // 2: 2 codes) is used, "3 -> 2"; a prefix on the
    numeric column c has no labels, is left out: its leaves only, not used."""
    from explorer.hierarchies import levels_summary
    from heb.evaluate.hierarchy_specs import Declared

    codes = [[0, 0, 0], [1, 0, 1], [2, 1, 0], [0, 0, 1]]
    work = _work(codes, ["a", "b", "c"], kinds={"c": "numeric"})
    items = (Declared("a", parents=("b",)), Declared("c", prefix=(1,)))
    frame = levels_summary(work, items)
    assert frame["nodes per level (leaves first)"].tolist() == ["3 -> 2", "2"]
    assert frame["used"].tolist() == [True, False]


@pytest.mark.parametrize(("text", "expected"), [("3; 1", (3, 1)), (" 4 ,2;1 ", (4, 2, 1))])
def test_prefix_lengths_accept_commas_and_semicolons(text, expected):
    from explorer.hierarchies import parse_lengths

    assert parse_lengths(text) == expected


@pytest.mark.parametrize("text", ["", " , ; "])
def test_no_prefix_length_is_refused(text):
    from explorer.hierarchies import parse_lengths

    with pytest.raises(ValueError, match="whole numbers"):
        parse_lengths(text)


def test_a_chain_cut_short_names_its_levels_by_number_from_one():
    """A prefix rule of two lengths resolved to one level on these codes: the level is
    "zip level 1", not "zip prefix 3"."""
    from explorer.hierarchies import level_names
    from heb.evaluate.hierarchy_specs import Declared

    names = level_names(Declared("zip", prefix=(3, 1)), 1)
    assert names == ["zip given zip level 1", "zip level 1 (top level of zip)"]


def test_concentrations_use_exact_dependencies_unless_a_tolerance_was_chosen(session):
    """300 rows: A = 0, 1, 2 (100 each), B = 0 for A 0 and 1 but one row of A 1, 1 for A 2.
    One violating row against 101 a blind guess misses: A -> B at 1 %, not exactly. With no
    tolerance chosen the exact default finds none."""
    from explorer.hierarchies import concentration_hierarchies

    a = np.repeat([0, 1, 2], 100)
    b = (a == 2).astype(int)
    b[100] = 1
    work = _work(np.column_stack([a, b]), ["A", "B"], key="session37-tolerance")
    assert concentration_hierarchies(work) == ((), "none")
    session["fd_tolerance"] = 0.01
    found, source = concentration_hierarchies(work)
    assert source == "detected" and [(d.feature, d.parents) for d in found] == [("A", ("B",))]


def test_after_a_dataset_switch_the_parent_default_is_not_the_shown_feature(session):
    """The feature kept from the last dataset ("old") is not a column here, so the picker
    shows the first column, "a": the parent default must be another column, "b"."""
    from explorer.hierarchies import _parent_default

    session.update({"hier_feature": "old", "hier_parent": "gone"})
    _parent_default(["a", "b", "c"])
    assert session["hier_parent"] == "b"


# ------------------------------------------------------------------ heb.data.builtins
def test_zip_codes_keeps_one_label_per_category_and_buying_is_the_minority():
    """The dataset relabels the high-cardinality preset's codes (n_samples=5000, seed=0):
    distinct codes must stay distinct labels (ZIPs and IP hashes drawn without
    replacement, product ids 500000 + 7 code), and "yes" is the preset's class 1, the
    15 % minority."""
    from heb.data.builtins import load_builtin
    from heb.synthetic import high_cardinality_preset

    codes, y, truth = high_cardinality_preset(n_samples=5000, seed=0)
    data = load_builtin("zip-codes")
    for name in ("zip_code", "ip_hash", "product_id", "user_id"):
        f = truth["feature_names"].index(name)
        assert data.X[name].nunique() == np.unique(codes[:, f]).size, name
    assert (np.asarray(data.y) == "yes").sum() == (y == 1).sum()
    assert (y == 1).mean() < 0.2


def test_known_truth_is_the_sample_its_description_states():
    """3 classes weighted 0.5 / 0.3 / 0.2, Dirichlet(0.5) conditionals, seed 0, 3000 rows."""
    from heb.data.builtins import load_builtin
    from heb.synthetic import sample_naive_bayes

    _, y, truth = sample_naive_bayes(
        3000, (2, 3, 5, 10, 25, 50, 100, 250), n_classes=3, alpha_dir=0.5,
        class_weights=(0.5, 0.3, 0.2), seed=0,
    )  # fmt: skip
    data = load_builtin("known-truth")
    np.testing.assert_allclose(data.truth["class_prior"], [0.5, 0.3, 0.2])
    for got, want in zip(data.truth["theta"], truth["theta"], strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(data.y), np.array(["A", "B", "C"])[y])


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("breast-cancer", {"malignant": 212, "benign": 357}),
        ("wine", {"class_0": 59, "class_1": 71, "class_2": 48}),
    ],
)
def test_sklearn_targets_are_named_as_in_their_documentation(name, counts):
    """scikit-learn's documentation: 212 malignant and 357 benign tumours; 59, 71 and 48
    wines of cultivars 0, 1 and 2."""
    import pandas as pd

    from heb.data.builtins import load_builtin

    assert pd.Series(load_builtin(name).y).value_counts().to_dict() == counts
