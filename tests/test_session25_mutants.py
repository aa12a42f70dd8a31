"""Tests that kill mutants of session 25's changes which the session's own tests let live.

Each test names the behaviour it pins: leading-zero codes in uploads and on the DuckDB
engine, the pipeline file's checks, and the other session-25 modules further down.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heb.data import make_model, pipeline_io, preprocessor_io
from heb.data.readers import read_table

sys.path.insert(0, str(Path(__file__).parent))


# ---------------------------------------------------------------- leading-zero codes (uploads)
def _read(data: bytes, name: str = "t.csv") -> pd.DataFrame:
    return read_table(data, name)


@pytest.mark.parametrize(
    "data",
    [
        b'zip,class\n"02134",a\n10001,b\n',  # the only zero after a quote
        b"zip,class\n 02134,a\n10001,b\n",  # ... after a space pandas skips
        b"class,zip\na,02134\nb,10001\n",  # ... after the delimiter
        b"zip,class\r02134,a\r10001,b\r",  # ... after a lone carriage return
        b"zip,class\n\t02134,a\n10001,b\n",  # ... after a tab in a comma-separated file
        b"zip,class\n00501 ,a\n10001,b\n",  # a code with a trailing space
        b"zip,class\n0,a\n02134,b\n10001,c\n",  # a lone 0 among codes is a code too
    ],
)
def test_a_zip_column_is_text_wherever_its_leading_zero_sits(data):
    frame = _read(data)
    assert not pd.api.types.is_numeric_dtype(frame["zip"].dtype), frame["zip"].tolist()
    assert any("leading zero" in note for note in frame.attrs["heb_notes"])


@pytest.mark.parametrize("column", ["05\n5.0\n10\n", "05\n+5\n10\n"])
def test_a_number_written_otherwise_beside_a_leading_zero_keeps_the_column_numeric(column):
    frame = _read(("x\n" + column).encode())
    assert pd.api.types.is_numeric_dtype(frame["x"].dtype), frame["x"].tolist()


def test_a_lone_zero_is_no_leading_zero_in_another_column():
    frame = _read(b"x,zip,class\n0,02134,a\n5,10001,b\n10,00501,c\n")
    assert frame["x"].tolist() == [0, 5, 10]
    assert frame["zip"].tolist() == ["02134", "10001", "00501"]


def test_the_code_note_quotes_a_value_with_its_leading_zero():
    frame = _read(b"zip,class\n10001,a\n02134,b\n")
    (note,) = [n for n in frame.attrs["heb_notes"] if "leading zero" in n]
    assert "such as '02134'" in note


def test_the_code_note_counts_the_other_code_columns():
    frame = _read(b"zip,zip2,zip3,class\n02134,00501,01001,a\n10001,10002,10003,b\n")
    (note,) = [n for n in frame.attrs["heb_notes"] if "leading zero" in n]
    assert note.startswith("Column 'zip' (and 2 more columns) holds codes")


# ---------------------------------------------------------------- leading-zero codes (DuckDB)
@pytest.mark.parametrize(
    "data",
    [
        b"x,y\n0123,a\n1234567890123456,b\n",  # a code beside an integer of 16 digits
        b"x,y\n01234567890123456789,a\n-5,b\n,c\n",  # signed: numbers, exact beside a gap
        b"x,y\n 02134 ,a\n12345,b\n",  # the only code has spaces around it
        b"x,y\n02134,a\n NA,b\n12345,c\n",  # a missing cell pandas finds after its space
    ],
)
def test_the_engine_reads_leading_zero_columns_as_the_uploads_do(tmp_path, data):
    pytest.importorskip("duckdb")
    from test_scale_csv import _assert_same

    _assert_same(tmp_path, data)


# ---------------------------------------------------------------- the pipeline file's checks
def _section(missing: str = "impute") -> dict:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 60), "age": rng.normal(40, 10, 60)})
    pipe = make_model("laplace", n_bins=3, missing=missing).fit(frame, rng.choice(["a", "b"], 60))
    return json.loads(pipeline_io.dumps(pipe))["preprocessor"]


def _refused(section: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        preprocessor_io.from_dict(section)


def test_the_section_read_back_is_accepted():
    for missing in ("impute", "category"):
        preprocessor_io.from_dict(_section(missing))


def test_two_categories_in_the_wrong_order_are_refused():
    section = _section()
    sex = section["features"][0]
    sex["categories"]["values"] = sex["categories"]["values"][::-1]
    _refused(section, "increasing order")


@pytest.mark.parametrize("extra", [[1e6], []])
def test_a_range_of_other_than_two_numbers_is_refused(extra):
    section = _section()
    age = section["features"][1]
    age["range"] = age["range"] + extra if extra else age["range"][:1]
    _refused(section, r"must be \[min, max\]")


def test_an_infinite_cut_point_is_refused():
    section = _section()
    section["features"][1]["cuts"][-1] = float("inf")
    _refused(section, "not finite")


def test_a_fill_code_past_the_categories_is_refused_when_imputing():
    section = _section()
    section["features"][0]["fill"] = 2  # two categories: codes 0 and 1
    _refused(section, "do not fit its categories")


def test_more_labels_than_categories_and_missing_are_refused():
    section = _section("category")
    section["features"][0]["labels"] += ["(missing)", "extra"]
    _refused(section, "do not fit its categories")


def test_load_refuses_a_file_one_byte_too_large(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"c": rng.choice(["u", "v"], 40)})
    path = tmp_path / "m.json"
    pipeline_io.save(make_model("laplace").fit(frame, rng.choice(["a", "b"], 40)), path)
    size = path.stat().st_size
    assert isinstance(pipeline_io.load(path, max_bytes=size), type(make_model()))
    with pytest.raises(ValueError, match="larger than"):
        pipeline_io.load(path, max_bytes=size - 1)


def test_a_set_of_categorical_names_is_written_sorted():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({3: rng.choice([1, 2], 40), 20: rng.choice([5, 7], 40)})
    pipe = make_model("laplace", categorical={3, 20}).fit(frame, rng.choice(["a", "b"], 40))
    assert list({3, 20}) == [3, 20]  # the set's own order differs from the sorted one
    assert json.loads(pipeline_io.dumps(pipe))["preprocessor"]["params"]["categorical"] == [
        "20",
        "3",
    ]


# ---------------------------------------------------------------- HEB-H without a hierarchy
def test_hierarchy_notes_speak_of_naive_bayes_methods_given_no_hierarchy_only():
    from heb.evaluate.hierarchy_specs import HIERARCHY_PARAM, hierarchy_notes

    def nb(**params):
        return {"model": "nb", "params": {"smoother": "heb-h", **params}}

    assert len(hierarchy_notes({"heb-h": nb()})) == 1
    assert len(hierarchy_notes({"heb-h": nb(hierarchies={})})) == 1  # an empty one: none
    assert hierarchy_notes({"heb-h": nb(**{HIERARCHY_PARAM: "zip: prefix 3"})}) == []
    assert hierarchy_notes({"heb-h": nb(hierarchies={0: [np.zeros(3, dtype=int)]})}) == []
    # as attach_hierarchies, only a naive Bayes method takes a hierarchy
    assert hierarchy_notes({"x": {"model": "aode", "params": {"smoother": "heb-h"}}}) == []
    assert hierarchy_notes({"heb-m": {"model": "nb", "params": {"smoother": "heb-m"}}}) == []


def test_a_stored_heb_h_run_keeps_its_note_after_the_datas(tmp_path):
    from heb.data import load_builtin
    from heb.evaluate import RunSettings, cached_cross_validation, cross_validate
    from heb.evaluate.cache import ResultCache

    data = load_builtin("breast-cancer")
    settings = RunSettings(n_splits=3, max_rows=100)
    cache = ResultCache(tmp_path / "results")
    computed = cross_validate(data, ["heb-h"], settings=settings, cache=cache)
    assert computed.notes[0].startswith("Used a stratified subsample of 100")
    assert computed.notes[1].startswith("HEB-H was given no category hierarchy")  # its name
    read = cached_cross_validation(data, ["heb-h"], settings=settings, cache=cache)
    assert read is not None and read.notes == computed.notes


# ---------------------------------------------------------------- engine sources
@pytest.mark.parametrize("name", ["t.arff.gz", "T.ARFF"])
def test_an_arff_file_of_any_case_or_gzipped_is_sent_to_the_uploads(tmp_path, name):
    from heb.data import DataError
    from heb.scale.source import open_source

    (tmp_path / name).write_bytes(b"@relation t\n")
    with pytest.raises(DataError, match="ARFF, which is read in memory only"):
        open_source(name, root=tmp_path)


def test_the_large_file_list_offers_every_file_an_engine_opens(tmp_path):
    from explorer.large_files import list_sources

    for name in ("a.tab", "b.txt", "c.tsv.gz", "d.csv.gz", "e.arff", "f.json"):
        (tmp_path / name).write_bytes(b"x\n1\n")
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "p0.PARQUET").write_bytes(b"")
    assert list_sources(tmp_path) == ["a.tab", "b.txt", "c.tsv.gz", "d.csv.gz", "parts/"]


# ---------------------------------------------------------------- the CD diagram's layout
def _cd(ranks: dict, cd: float = 1.0, groups=None):
    from heb.figures import cd_diagram

    return cd_diagram(ranks, cd, groups=groups)


def _ranks_of(k: int) -> dict[str, float]:
    return {f"M{i}": float(i) for i in range(1, k + 1)}


def test_ranks_are_numbered_each_up_to_ten_methods_and_every_other_past():
    numbers = {
        k: [n.text for n in _cd(_ranks_of(k)).layout.annotations if n.text.isdigit()]
        for k in (10, 11)
    }
    assert numbers[10] == [str(i) for i in range(1, 11)]
    assert numbers[11] == [str(i) for i in range(1, 12, 2)]


def test_half_rank_ticks_up_to_ten_methods_short_where_unnumbered():
    def ticks(k):
        return [s for s in _cd(_ranks_of(k)).layout.shapes if s.name == "tick"]

    assert len(ticks(11)) == 11 and len(ticks(10)) == 19
    sizes = {float(s.x0): s.y1 for s in ticks(4)}
    assert sizes[2.0] > sizes[1.5] > 0


def test_bars_on_one_level_leave_a_gap_and_labels_sit_below_every_bar():
    fig = _cd({"A": 1.0, "B": 2.0, "C": 2.05, "D": 3.0}, groups=[("A", "B"), ("C", "D")])
    bars = [s for s in fig.layout.shapes if s.name.startswith("group")]
    for one in bars:
        for other in bars:
            if one is not other and one.y0 == other.y0:
                assert one.x1 < other.x0 or other.x1 < one.x0, (one.name, other.name)
    ranks = {c: float(i) for i, c in enumerate("ABCDEF", start=1)}
    fig = _cd(ranks, groups=[("A", "B", "C"), ("B", "C", "D"), ("C", "D", "E")])
    lowest_bar = min(s.y0 for s in fig.layout.shapes if s.name.startswith("group"))
    assert lowest_bar < -22  # three levels of bars
    assert max(trace.y[1] for trace in fig.data) <= lowest_bar - 18


def test_a_group_of_one_method_named_twice_gets_no_bar():
    fig = _cd(_ranks_of(3), groups=[("M1", "M1")])
    assert not [s for s in fig.layout.shapes if s.name.startswith("group")]


def test_a_cd_longer_than_the_axis_is_drawn_whole():
    fig = _cd(_ranks_of(3), cd=4.0)
    (bracket,) = [s for s in fig.layout.shapes if s.name == "cd" and s.y0 == s.y1]
    assert bracket.x1 == pytest.approx(5.0)
    assert fig.layout.xaxis.range[1] >= 5.0


def test_the_better_half_and_the_middle_method_are_labelled_on_the_left():
    fig = _cd(_ranks_of(5))
    left = [n.text for n in fig.layout.annotations if n.xanchor == "right"]
    assert [text.split(" ")[0] for text in left] == ["M1", "M2", "M3"]


def test_very_long_names_keep_the_exported_width_at_most_1400_px():
    fig = _cd({f"{'x' * 80}{i}": float(i) for i in range(1, 7)})
    assert fig.layout.width == 1400


# ---------------------------------------------------------------- Figure 5 strips
def test_five_shared_x_values_still_make_a_strip_six_do_not():
    from heb.figures.concentrations import MAX_STRIP_XS, strip_positions

    assert MAX_STRIP_XS == 5
    assert strip_positions(np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], 2)) is not None
    assert strip_positions(np.repeat([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2)) is None


def test_strip_columns_never_meet_when_the_gaps_between_values_differ():
    from heb.figures.concentrations import strip_positions

    x = np.repeat([1.0, 2.0, 100.0], 200)
    drawn, values = strip_positions(x)
    columns = [drawn[x == value] for value in values]
    for left, right in zip(columns, columns[1:], strict=False):
        assert left.max() < right.min()


def test_a_strip_with_pairs_left_off_the_log_axis():
    """K_f = 1 puts a pair at x = 0 (not on a log axis) beside a strip of two x values: the
    strip is drawn from the placeable pairs, and both notes get room below the axis."""
    from test_concentration_strip import _diag

    from heb.figures import concentration_scatters

    diag = _diag(2, 8, k_f=np.array([1, 2, 2, 2, 2, 2, 2, 2]))
    fig = concentration_scatters(diag, [f"f{j}" for j in range(8)])[0]
    title = fig.layout.xaxis.title.text
    assert "spread sideways" in title and "2 pair(s)" in title
    assert fig.layout.margin.b == 115
    assert len(fig.layout.xaxis.tickvals) == 2


# ---------------------------------------------------------------- reliability accuracy axis
def _curve(accuracy, count) -> dict:
    edges = np.linspace(0.0, 1.0, 11)
    confidence = np.array([np.nan] * 5 + [0.55, 0.65, 0.75, 0.85, 0.95])
    return {
        "edges": edges,
        "confidence": confidence,
        "accuracy": np.asarray(accuracy, dtype=float),
        "count": np.asarray(count, dtype=float),
        "ece": 0.05,
    }


def test_the_accuracy_axis_ignores_empty_or_unplaced_bins():
    from heb.figures.reliability import accuracy_axis_start

    nan = np.nan
    # an empty bin's accuracy and a bin with no confidence are not drawn: they do not count
    curve = _curve([0.1, nan, nan, nan, nan, 0.6, 0.7, 0.8, 0.9, 0.95], [9] + [0] * 4 + [9] * 5)
    assert accuracy_axis_start({"a": curve}, 0.5) == 0.5
    curve = _curve([nan] * 5 + [0.6, 0.1, 0.8, 0.9, 0.95], [0] * 5 + [9, 0, 9, 9, 9])
    assert accuracy_axis_start({"a": curve}, 0.5) == 0.5


def test_the_accuracy_axis_starts_at_the_tenth_below_despite_rounding():
    from heb.figures.reliability import accuracy_axis_start

    nan = np.nan
    low = 0.39999999999999997  # 0.4 as a sum of floats may come out
    curve = _curve([nan] * 5 + [low, 0.7, 0.8, 0.9, 0.95], [0] * 5 + [9] * 5)
    assert accuracy_axis_start({"a": curve}, 0.5) == pytest.approx(0.4)


# ---------------------------------------------------------------- Friedman beside Nemenyi
def _pvalues(off: float, diagonal: float = 1.0) -> pd.DataFrame:
    values = np.full((3, 3), off)
    np.fill_diagonal(values, diagonal)
    names = ["A", "B", "C"]
    return pd.DataFrame(values, index=names, columns=names)


def test_the_friedman_note_at_the_boundaries_of_alpha():
    from explorer.benchmarking import friedman_nemenyi_note

    rejects = {"p_value": 0.01, "iman_davenport_p": 0.01}
    # a Nemenyi p of exactly alpha is no rejection: the note is due
    assert friedman_nemenyi_note(rejects, _pvalues(0.05)) is not None
    # a Friedman p of exactly alpha is no rejection either: nothing to explain
    assert friedman_nemenyi_note({"p_value": 0.05, "iman_davenport_p": 0.05}, _pvalues(0.5)) is None
    # the diagonal (a method against itself) is never a pair
    assert friedman_nemenyi_note(rejects, _pvalues(0.5, diagonal=0.0)) is not None
    assert "(3 here)" in friedman_nemenyi_note(rejects, _pvalues(0.5))


# ---------------------------------------------------------------- the Benchmark's upload
def test_only_an_upload_of_this_session_leads_the_default_datasets():
    from explorer.benchmarking import default_datasets

    choices = {"builtin:iris": "iris", "builtin:zoo": "zoo", "upload:abc": "t.csv (upload)"}
    base = default_datasets(choices)
    assert "upload:abc" not in base
    assert default_datasets(choices, "upload:abc") == ["upload:abc", *base]
    assert default_datasets(choices, "builtin:zoo") == base  # the sidebar's built-in one
    assert default_datasets(choices, "upload:gone") == base  # an upload no longer held


def test_an_upload_already_chosen_is_not_added_twice(monkeypatch):
    from explorer import benchmarking

    monkeypatch.setattr(benchmarking.st, "session_state", {"w": ["upload:abc", "builtin:iris"]})
    choices = {"builtin:iris": "iris", "upload:abc": "t.csv (upload)"}
    benchmarking.take_in_upload(choices, "upload:abc", "w")
    assert benchmarking.st.session_state["w"] == ["upload:abc", "builtin:iris"]


# ---------------------------------------------------------------- the fallback target
def test_the_fallback_target_bounds():
    from explorer.loading import FEW_CLASSES, TARGET_CANDIDATES, fallback_targets

    n = 126
    gappy = [*map(float, range(1, FEW_CLASSES + 1)), np.nan] * (n // (FEW_CLASSES + 1))
    frame = pd.DataFrame(
        {
            "far": ["a", "b"] * (n // 2),  # 11th column left of the last: not looked at
            "edge": ["c", "d"] * (n // 2),  # 10th: looked at
            **{f"m{i}": np.linspace(0, 1, n) for i in range(TARGET_CANDIDATES - 5)},
            "twenty": [f"v{i % FEW_CLASSES}" for i in range(n)],  # the most classes taken
            "halves": np.arange(n) % 3 + 0.5,  # three decimals: a measurement still
            "gappy": gappy,  # 20 whole numbers and gaps: a gap is no class
            "constant": "k",  # one value: no classes
            "label": ["x", "y", "z"] * (n // 3),  # the last column: never its own fallback
        }
    )
    assert list(frame.columns).index("far") == frame.shape[1] - 2 - TARGET_CANDIDATES
    assert fallback_targets(frame) == [
        ("twenty", "text", 20),
        ("edge", "text", 2),
        ("gappy", "whole numbers", 20),
    ]


def test_an_upload_with_no_possible_target_is_refused():
    from test_app import open_app, uploader

    at = open_app()
    frame = pd.DataFrame({"a": ["k"] * 30, "churn": ["no"] * 30})
    uploader(at).upload("one.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert not at.session_state["data_spec"].startswith("upload:")
    assert any("only one class" in error.value for error in at.error)


# ---------------------------------------------------------------- the default-dataset note
@pytest.mark.parametrize("page", [None, "pages/references.py"])
def test_pages_without_the_sidebars_dataset_say_nothing_of_the_default(page):
    """The root (where every first visit starts) and a page that draws no dataset, opened
    by their plain address: no note that the default dataset was opened."""
    from streamlit.testing.v1 import AppTest
    from test_app import APP, TIMEOUT

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if page is not None:
        at.switch_page(page)
    at.run()
    assert not at.exception
    assert not [c for c in at.sidebar.caption if "the address named no dataset" in c.value]
    assert not at.toast


# ---------------------------------------------------------------- the evidence lesson's pair
def _awkward_table():
    """Pairs of every kind: interior peaks near and far from the clamp, pairs clamped at
    M_MAX (a class split as the pooled one), a class of 6 rows (the N0 fallback), a flat
    evidence (a feature of one value) and a category no row has."""
    from heb.counts import CountTable

    rng = np.random.default_rng(0)
    codes, y = [], []
    for c, rows in enumerate((600, 600, 6)):
        f0 = rng.choice(4, rows, p=[0.4, 0.3, 0.2, 0.1])
        p1 = np.array([0.3, 0.2, 0.2, 0.1, 0.1, 0.1]) + (0.04 if c == 1 else 0) * np.array(
            [1, -1, 0, 0, 0, 0]
        )
        f1 = rng.choice(6, rows, p=p1)
        f2 = rng.choice(4, rows, p=[0.5, 0.2, 0.2, 0.1] if c == 0 else [0.1, 0.2, 0.2, 0.5])
        codes.append(np.stack([f0, f1, f2, np.zeros(rows, dtype=int)], axis=1))
        y.append(np.full(rows, c))
    codes, y = np.concatenate(codes), np.concatenate(y)
    return CountTable.from_codes(codes, y, 3, n_categories=np.array([4, 6, 5, 3]))


def test_prominence_agrees_with_each_pairs_curve_on_clamped_fallback_and_flat_pairs():
    from test_lesson_evidence_showcase import _by_hand

    from heb.lessons import evidence

    table = _awkward_table()
    margin = evidence.pair_prominence(table)
    expected = _by_hand(table)
    assert np.isnan(expected).sum() >= 6 and np.isfinite(expected).sum() >= 3
    np.testing.assert_allclose(margin, expected, rtol=1e-9)


def test_the_showcase_prefers_readable_features_up_to_their_width():
    from heb.lessons import evidence

    table = _awkward_table()
    margin = evidence.pair_prominence(table)
    best = np.unravel_index(np.nanargmax(margin), margin.shape)
    width = int(table.n_categories[best[1]])
    assert evidence.showcase_pair(table, max_width=width) == tuple(map(int, best))
    # narrower features only: the best of them, not the best of all
    narrow = table.n_categories < width
    among = np.where(narrow[None, :], margin, np.nan)
    expected = np.unravel_index(np.nanargmax(among), margin.shape)
    assert evidence.showcase_pair(table, max_width=width - 1) == tuple(map(int, expected))


# ---------------------------------------------------------------- the lessons' computed text
def _sweep(acc, conf, ece) -> dict:
    """A sweep of two copy counts whose test probabilities are the same (no noise)."""
    proba = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    return {
        "accuracy": acc,
        "mean_confidence": conf,
        "ece": ece,
        "y_test": np.array([0, 1, 1]),
        "proba": {1: proba, 2: proba},
    }


def test_double_counting_text_in_each_case():
    from heb.lessons.calibration import double_counting_text

    falls = _sweep([0.9, 0.8], [0.95, 0.951], [0.05, 0.15])
    assert "the confidence stays while the accuracy falls, **the ECE grows**" in (
        double_counting_text(falls, 2)
    )
    grows = _sweep([0.9, 0.9], [0.90, 0.903], [0.05, 0.15])  # confidence +0.003: stays
    assert double_counting_text(grows, 2).endswith(": **the ECE grows**.")
    better = _sweep([0.9, 0.9], [0.8, 0.85], [0.1, 0.05])
    assert double_counting_text(better, 2).endswith(": here the ECE falls.")
    same = _sweep([0.9, 0.9], [0.99, 0.99], [0.01, 0.012])
    assert "barely moves here. With one copy the confidence is already 0.990." in (
        double_counting_text(same, 2)
    )


def test_reliability_text_one_bin_below_and_temperature_one():
    from heb.lessons.calibration import reliability_text, temperature_text

    curve = {
        "count": np.array([4, 5]),
        "confidence": np.array([0.6, 0.8]),
        "accuracy": np.array([0.5, 0.9]),
    }
    assert reliability_text(curve, 1).startswith("With 1 copy, 1 of the 2 occupied bins lies ")
    frame = pd.DataFrame({"model": ["Laplace"], "temperature": [1.0]})
    assert "T < 1" not in temperature_text(frame)


def test_the_bias_text_weighs_the_chosen_alphas_prior_and_laplaces_only_as_a_comparison():
    from heb.lessons import dirichlet

    text = dirichlet.bias_text(50, 50, 0.5, 0.2)
    assert "At α = 0.5 the prior adds Kα = 25 phantom counts to N = 50 observations: 33% " in (text)
    assert "(for comparison, Laplace's α = 1 would add K = 50: 50%)" in text
    assert f"= {dirichlet.max_bias_l1(50, 50, 0.5):.3f} at α = 0.5" in text


def _levels(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["class", "level", "learned m"])


def test_clamp_text_names_the_levels_and_classes_at_the_clamp():
    from heb.lessons.common import M_MAX, format_m
    from heb.lessons.hierarchy import clamp_text

    big = M_MAX
    none = _levels([(0, "code", 8.0), (0, "prefix", 3.0), (1, "code", 9.0)])
    assert clamp_text(none) == (
        f"At the code level m reaches {format_m(9.0)}; no level reaches the clamp, "
        f"{format_m(M_MAX)}."
    )
    both = _levels([(0, "code", 8.0), (0, "region", big), (1, "prefix", big), (1, "code", 2.0)])
    assert "is reached at the region and prefix levels (both classes):" in clamp_text(both)
    one = _levels([(0, "code", 8.0), (0, "region", big), (1, "code", 2.0)])
    assert "is reached at the region level (class 0):" in clamp_text(one)
    three = _levels([(c, "region", big) for c in range(3)] + [(0, "code", 1.0)])
    assert "(3 classes)" in clamp_text(three)


def test_blur_text_bounds():
    from heb.lessons import known_truth

    assert known_truth.posterior_range(
        np.stack([1 - np.arange(101) / 100, np.arange(101) / 100], axis=1)
    ) == pytest.approx((0.05, 0.95))
    truth = np.linspace(0, 1, 101)
    band = 0.3 + 0.3 * truth  # spans 0.3 of the truth's range: no flat band
    study = {
        "posteriors": {"HEB-M": np.stack([1 - band, band], axis=1)},
        "true_posterior": np.stack([1 - truth, truth], axis=1),
        "largest_m": {},
    }
    assert "flat band" not in known_truth.blur_text(study)
    three = {**study, "true_posterior": np.full((101, 3), 1 / 3)}
    assert known_truth.blur_text(three) == ""


def test_the_largest_m_is_the_largest_concentration_heb_m_learned():
    from heb.counts import CountTable
    from heb.lessons import known_truth
    from heb.nb import NaiveBayes
    from heb.synthetic import sample_naive_bayes

    study = known_truth.known_truth_study(
        n_train=300, n_categories=20, n_features=3, n_test=50, smoothers=["heb-m"]
    )
    codes, y, _ = sample_naive_bayes(
        known_truth.KNOWN_TRUTH_POOL + 50, [20] * 3, n_classes=2, alpha_dir=0.5, seed=0
    )
    table = CountTable.from_codes(
        np.asarray(codes)[:300], np.asarray(y)[:300], 2, n_categories=np.full(3, 20)
    )
    m = NaiveBayes(smoother="heb-m").fit_counts(table, np.arange(2)).concentrations_["m"]
    assert study["largest_m"]["HEB-M"] == pytest.approx(float(np.max(m)))


# ---------------------------------------------------------------- Explain's loaded pipelines
def _fitted_pipe(frame: pd.DataFrame, y):
    return make_model("laplace").fit(frame, y)


def test_a_pipeline_lacking_a_column_has_no_accuracy_and_says_what_it_left_out():
    from types import SimpleNamespace

    from explorer.explain import accuracy_on, loaded_summary

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"a": rng.choice(["u", "v"], 40), "b": rng.normal(size=40), "empty": np.nan}
    )
    y = rng.choice(["p", "q"], 40)
    pipe = _fitted_pipe(frame, y)
    work = SimpleNamespace(class_names=["p", "q"], y=(y == "q").astype(int))
    assert accuracy_on(pipe, work, frame) is not None
    assert accuracy_on(pipe, work, frame.drop(columns="b")) is None
    assert ", 1 of them left out as empty, then" in loaded_summary(pipe)


def test_raw_rows_refuse_rows_that_moved_since_the_page_coded_them(monkeypatch):
    from types import SimpleNamespace

    from explorer import explain
    from heb.data import load_builtin

    dataset = load_builtin("iris")
    monkeypatch.setattr(explain, "current_settings", lambda: {"max_rows": None})
    work = SimpleNamespace(y=np.zeros(len(dataset.y)))
    assert len(explain.raw_rows(dataset, work)) == len(dataset.y)
    with pytest.raises(ValueError, match="rows changed while scoring"):
        explain.raw_rows(dataset, SimpleNamespace(y=np.zeros(len(dataset.y) - 1)))


def test_the_code_notes_example_is_a_code_with_a_leading_zero_not_a_lone_zero():
    """The note quoted '0' for a column 0, 02134, 10001 (the example was picked by a
    leading 0 alone, not by the rule that found the codes)."""
    from heb.data.readers import read_table

    frame = read_table(b"zip,y\n0,a\n02134,b\n10001,c\n", "t.csv")
    notes = frame.attrs["heb_notes"]
    assert any("such as '02134'" in note for note in notes), notes
