"""Mutation pass over session 47's change (the quoted column lists of ``--categorical`` /
``--drop``, a note on several columns said again for those kept, a fixed smoother's log
evidence, ...): each test here kills a mutant the change's own tests let live, and the
round trips and the evidence are checked beyond the examples those tests give."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heb.cli import _column_names
from heb.cli_columns import column_list, column_word, split_columns
from heb.data.column_notes import ColumnsNote, kept_notes, mixed_note, note_about_one_of

#: names built from the characters that matter to a column list: quotes, commas, spaces
_TRICKY = st.text(alphabet=st.sampled_from(list("a\"b, \t'é")), min_size=1, max_size=8)
_NAMES = st.one_of(_TRICKY, st.text(min_size=1, max_size=8))
#: fast functions: many examples, no deadline on a shared, loaded machine
PROPERTY = settings(max_examples=300, deadline=None)


@PROPERTY
@given(st.lists(_NAMES, max_size=6))
def test_any_names_read_back_from_their_column_list(names):
    """``column_list`` writes what ``split_columns`` reads back as the same names, in order,
    for every name but the empty one (quotes, commas, spaces at either end included)."""
    assert split_columns(column_list(names)) == names
    # and through a shell, as the app's commands and the command line's hints give it
    assert split_columns(shlex.split(shlex.quote(column_list(names)))[0]) == names


@PROPERTY
@given(st.lists(_NAMES, min_size=1, max_size=6))
def test_each_word_is_one_name_and_a_plain_name_is_written_as_itself(names):
    for name in names:
        assert split_columns(column_word(name)) == [name]
        if "," not in name and name == name.strip() and not name.startswith('"'):
            assert column_word(name) == name


@PROPERTY
@given(st.text(alphabet=st.sampled_from(list('a",  ')), max_size=12))
def test_any_value_is_names_or_one_value_error(value):
    """No value fails other than in one sentence, and a name read is never empty."""
    try:
        names = split_columns(value)
    except ValueError as exc:
        assert "quote" in str(exc)
    else:
        assert all(names)


def test_the_columns_of_repeated_options_are_named_once_in_their_order():
    assert _column_names(["b,a", "a", '"b",c']) == ["b", "a", "c"]


def test_the_categorical_hint_quotes_a_name_holding_a_comma():
    from heb.cli_hierarchies import categorical_hint

    hint = categorical_hint(["role,2", "zip"])
    value = hint.removeprefix("pass --categorical ").split(" to read")[0]
    assert split_columns(shlex.split(value)[0]) == ["role,2", "zip"], hint


def test_a_large_files_command_says_what_each_option_does_with_the_unnamed_column():
    from explorer.commands import _column_options

    categorical, drop = [], []
    _column_options("--categorical", ["", "a"], categorical, large=True)
    _column_options("--drop", ["", "a"], drop, large=True)
    assert "bins it as numbers" in categorical[0] and "feature" not in categorical[0]
    assert "keeps it as a feature" in drop[0] and "bins" not in drop[0]


def test_a_plain_note_on_several_columns_is_not_about_its_first_alone():
    """A note naming a column and counting others (text read back from a file, a
    cached result) is not dropped with its first column: the others are still there."""
    several = mixed_note("a", "x", 2)
    assert not note_about_one_of(several, ["a"])
    assert note_about_one_of(mixed_note("a", "x"), ["a"])
    assert kept_notes([several], ["a"]) == [several]


def test_a_note_leaves_out_columns_named_by_number_or_given_once_as_an_iterator():
    note = ColumnsNote(mixed_note, [("1", "x"), ("2", "y")])
    assert note.without([1]) == mixed_note("2", "y")
    by_number = ColumnsNote(mixed_note, [(1, "x"), (2, "y")])
    assert by_number.without(["1"]) == mixed_note(2, "y")
    alone = mixed_note("c", "z")
    assert kept_notes([note, alone], iter(["1", "c"])) == [mixed_note("2", "y")]


def _code_frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = 120
    return pd.DataFrame(
        {
            "zip": rng.choice(["01234", "02345", "03456"], rows),
            "branch": rng.choice(["0771", "0882"], rows),
            "y": rng.choice(["yes", "no"], rows),
        }
    )


def test_an_uploads_code_note_quotes_the_kept_columns_own_example():
    from heb.data import load_upload

    data = _code_frame().to_csv(index=False).encode()
    notes = load_upload(data, "c.csv", drop=["zip"]).notes
    (note,) = [n for n in notes if "leading zero" in n]
    assert note.startswith("Column 'branch' holds codes written with a leading zero such as '0")
    assert "'0771'" in note or "'0882'" in note, note


def _engine_notes(tmp_path, frame: pd.DataFrame) -> list[str]:
    pytest.importorskip("duckdb")
    from heb.scale.duckdb_engine import DuckDBEngine
    from heb.scale.source import open_source

    frame.to_csv(tmp_path / "f.csv", index=False)
    engine = DuckDBEngine(memory_limit="512MB", threads=1)
    engine.register(open_source("f.csv", root=tmp_path))
    return list(engine.notes)


def test_an_engines_code_note_names_the_second_code_column_once_the_first_is_left_out(
    tmp_path,
):
    notes = kept_notes(_engine_notes(tmp_path, _code_frame()), ["zip"])
    (note,) = [n for n in notes if "leading zero" in n]
    assert note.startswith("Column 'branch' holds codes written with a leading zero"), note


def test_an_engines_date_note_counts_the_kept_columns_own_dates(tmp_path):
    rng = np.random.default_rng(6)
    rows = 300
    start = pd.Timestamp("2024-01-01")
    frame = pd.DataFrame(
        {
            "ordered": (start + pd.to_timedelta(rng.integers(0, 30, rows), unit="D")).strftime(
                "%Y-%m-%d"
            ),
            "shipped": (start + pd.to_timedelta(np.arange(rows) % 90, unit="D")).strftime(
                "%Y-%m-%d"
            ),
            "y": rng.choice(["yes", "no"], rows),
        }
    )
    notes = kept_notes(_engine_notes(tmp_path, frame), ["ordered"])
    (note,) = [n for n in notes if "holds dates" in n]
    assert note.startswith("Column 'shipped' holds dates") and "each of its 90 dates" in note


def _laplace_pair_model():
    """One feature of three codes; class 0's counts are [2, 0, 1], class 1's [0, 3, 0]."""
    from heb import NaiveBayes

    X = np.array([[0], [0], [2], [1], [1], [1]])
    y = np.array([0, 0, 0, 1, 1, 1])
    return NaiveBayes("laplace").fit(X, y)


def test_laplaces_evidence_of_one_pair_is_the_hand_computed_one():
    """Laplace on counts [2, 0, 1], K = 3 (m = 3, prior 1/3 each):
    log G(3) - log G(6) + log G(3) + log G(2) = log(2 / 120 * 2) = log(1 / 30)."""
    from heb.concentration import log_evidence
    from heb.nb import pair_log_evidence
    from heb.smoothing import prior_mean

    model = _laplace_pair_model()
    diag = model.concentrations_
    assert diag["m"].tolist() == [3.0, 3.0]
    assert diag["log_evidence"][0] == pytest.approx(np.log(1 / 30), rel=1e-12)
    # class 1: [0, 3, 0]: log G(3) - log G(6) + log G(4) = log(2 * 6 / 120) = log(1 / 10)
    assert diag["log_evidence"][1] == pytest.approx(np.log(1 / 10), rel=1e-12)
    table = model.count_table_
    ours = pair_log_evidence(table, prior_mean(table, "uniform"), np.array([3.0, 0.5]))
    uniform = np.full(3, 1 / 3)
    expected = [log_evidence(table.counts[c], uniform, m) for c, m in ((0, 3.0), (1, 0.5))]
    np.testing.assert_allclose(ours, expected, rtol=1e-12)


def test_pair_log_evidence_agrees_with_log_evidence_pair_by_pair():
    """Several features of different K (a category never seen), classes in row-major
    (class, feature) order, each m its own."""
    from heb import NaiveBayes
    from heb.concentration import log_evidence
    from heb.nb import pair_log_evidence
    from heb.smoothing import prior_mean

    rng = np.random.default_rng(11)
    X = np.column_stack([rng.integers(0, k, 90) for k in (2, 5, 3)])
    X[:, 1] = np.where(X[:, 1] == 3, 4, X[:, 1])  # code 3 never seen: K_f = 5 counts it
    y = rng.integers(0, 3, 90)
    table = NaiveBayes("laplace").fit(X, y).count_table_
    m = rng.uniform(0.2, 9.0, table.n_classes * table.n_features)
    for prior_name in ("uniform", "marginal"):
        prior = prior_mean(table, prior_name)
        ours = pair_log_evidence(table, prior, m)
        for pair in range(m.size):
            c, f = divmod(pair, table.n_features)
            cols = slice(table.offsets[f], table.offsets[f + 1])
            counts = table.counts[c, cols]
            mean = prior[cols]
            expected = log_evidence(counts, mean, m[pair])
            assert ours[pair] == pytest.approx(expected, rel=1e-12), (prior_name, pair)


def _grouped_frame() -> pd.DataFrame:
    rng = np.random.default_rng(8)
    rows = 120
    return pd.DataFrame(
        {
            "share": rng.choice(["12%", "30%", "45%"], rows),
            "rate": rng.choice(["5%", "7%"], rows),
            "price": rng.choice(["1,234,567", "2,500,100", "12,000,000"], rows),
            "salary": rng.choice(["1,000,000", "2,500,000"], rows),
            "device": rng.choice(["Mobile", "mobile", "desktop"], rows),
            "colour": rng.choice(["Red", "red", "blue"], rows),
            "y": rng.choice(["yes", "no"], rows),
        }
    )


@pytest.mark.parametrize("first", ["share", "price", "device"])
def test_an_uploads_note_on_two_columns_names_the_second_once_the_first_is_left_out(first):
    from heb.data import load_upload

    frame = _grouped_frame()
    data = frame.to_csv(index=False).encode()

    def column_notes(notes):
        return [note for note in notes if note.startswith("Column")]

    kept = column_notes(load_upload(data, "g.csv", drop=[first]).notes)
    without = frame.drop(columns=[first]).to_csv(index=False).encode()
    assert kept == column_notes(load_upload(without, "g.csv").notes)
    assert len(kept) == 3 and not any(repr(first) in note for note in kept), kept


def test_a_parquet_uploads_date_note_names_the_second_column_once_the_first_is_left_out():
    import io

    from heb.data import load_upload

    rows = 120
    start = pd.Timestamp("2024-01-01")
    days = start + pd.to_timedelta(np.arange(rows) % 60, unit="D")
    frame = pd.DataFrame(
        {
            "ordered": days.strftime("%Y-%m-%d"),
            "shipped": (days + pd.Timedelta("3D")).strftime("%Y-%m-%d"),
            "y": np.where(np.arange(rows) % 3, "yes", "no"),
        }
    )
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    notes = load_upload(buffer.getvalue(), "d.parquet", drop=["ordered"]).notes
    dated = [note for note in notes if "holds dates" in note]
    assert len(dated) == 1 and dated[0].startswith("Column 'shipped' holds dates"), notes


def test_a_fallback_pair_beside_learned_ones_reports_its_evidence_at_k():
    """HEB-U with some pairs under n0 (fallback m = K_f) and some learned: the fallback
    pairs report Laplace's evidence (m = K_f, uniform prior), the learned their own."""
    from heb import NaiveBayes

    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(300, 3))
    y = (X[:, 0] + rng.integers(0, 3, 300) > 4).astype(int)
    laplace = NaiveBayes("laplace").fit(X, y).concentrations_["log_evidence"]
    diag = NaiveBayes("heb-u", n0=120).fit(X, y).concentrations_
    fallback = np.asarray(diag["fallback"], dtype=bool)
    assert fallback.any() and not fallback.all()
    np.testing.assert_allclose(diag["log_evidence"][fallback], laplace[fallback], rtol=1e-12)
    assert np.all(diag["log_evidence"][~fallback] >= laplace[~fallback] - 1e-9)


def test_heb_hs_levels_keep_the_evidence_they_report():
    """HEB-H's leaf-level evidence is against the level above, not the pooled marginal:
    it is not replaced by the flat evidence at its m."""
    from heb import NaiveBayes

    rng = np.random.default_rng(0)
    n = 400
    group, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    first = group * 3 + rng.integers(0, 3, n) * (rng.random(n) < 0.3)
    first = np.where(y == 1, (first // 3) * 3 + 2, first)
    X = np.column_stack([first, rng.integers(0, 4, n)])
    model = NaiveBayes("heb-h", hierarchies={0: [np.arange(6) // 3]}).fit(X, y)
    solver = NaiveBayes._diagnostics(*model._diagnostics_source)["log_evidence"]
    np.testing.assert_array_equal(model.concentrations_["log_evidence"], solver)


def test_a_results_repr_says_which_methods_came_from_the_cache():
    import dataclasses

    from heb.evaluate import CVResult

    result = CVResult(
        folds=pd.DataFrame({"method": ["HEB-M"], "fold": [0]}),
        oof_proba={},
        y=np.zeros(3),
        classes=np.array([0, 1]),
    )
    cached = dataclasses.replace(result, cached=["HEB-M"], notes=["a note"])
    text = repr(cached)
    assert "notes=['a note'], cached=['HEB-M']" in text, text


def test_wilcoxon_table_names_an_unknown_reference_in_its_own_sentence():
    from heb.evaluate import wilcoxon_table

    scores = pd.DataFrame({"HEB-M": [0.3, 0.4, 0.5], "Laplace": [0.35, 0.45, 0.52]})
    with pytest.raises(ValueError, match=r"^'nonesuch' is not among the benchmarked methods\.$"):
        wilcoxon_table(scores, "nonesuch")


def test_names_given_to_a_concentration_figure_win_over_the_tables_own():
    from heb import NaiveBayes
    from heb.diagnostics import concentration_table
    from heb.figures import concentration_heatmap

    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(80, 2))
    y = rng.integers(0, 2, 80)
    table = concentration_table(NaiveBayes("heb-m").fit(X, y), ["a", "b"])
    figure = concentration_heatmap(table, ["first", "second"], ["no", "yes"])
    assert list(figure.layout.xaxis.ticktext) == ["first", "second"]


@pytest.mark.parametrize("wrap", [bytearray, memoryview])
def test_load_upload_takes_a_bytearray_or_memoryview_as_bytes(wrap):
    from heb.data import load_upload

    data = b"a,b,y\nx,p,yes\nz,q,no\nx,q,yes\nz,p,no\n"
    assert load_upload(wrap(data), "m.csv").target == "y"


@pytest.mark.parametrize("observed", [[0.0, 1.5, 0.0], [0.5, 2.0, 2.0]])
def test_two_numbers_not_both_whole_are_not_a_flag(observed):
    from heb.data.column_values import flag_labels

    assert flag_labels(np.array(observed)) is None
    assert flag_labels(np.array([0.0, 1.0, 0.0])) == ["0", "1"]


def test_no_observed_value_is_no_flag():
    from heb.data.column_values import flag_labels

    assert flag_labels(np.array([], dtype=np.float64)) is None


def test_a_class_name_of_exactly_the_limit_is_shown_whole():
    from heb.figures.explain import MAX_FAVOURED, _favoured

    assert _favoured("n" * MAX_FAVOURED) == "'" + "n" * MAX_FAVOURED + "'"
    assert _favoured("n" * (MAX_FAVOURED + 1)) == "'" + "n" * (MAX_FAVOURED - 1) + "…'"
