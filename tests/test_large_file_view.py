"""A large file as part of the view: it carries across pages and links, Cancel stops
DuckDB's query, and the Compare / Concentrations pages show the engine's numbers."""

from __future__ import annotations

import json
import re
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_app import (
    assert_clean,
    decode,
    figures,
    offered_csvs,
    open_app,
    titled,
    unescape,
    url,
)

from explorer import comparison as cmp
from explorer import large_files as lf
from explorer.state import DEFAULT_METHODS
from heb.nb import NaiveBayes
from heb.scale import (
    DATA_ROOT_ENV,
    DuckDBEngine,
    cross_validate,
    fit_counts,
    open_source,
    summarise_source,
    write_clicks,
)

FILE = "small.parquet"
#: a DuckDB query of minutes (10^12 rows summed) unless it is interrupted
SLOW_QUERY = "SELECT sum(i * random()) AS s FROM range(1000000000000) t(i)"


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("large_root_view")
    write_clicks(root / FILE, 2_000, seed=2, n_features=3)
    return root


@pytest.fixture
def rooted(data_root, monkeypatch):
    monkeypatch.setenv(DATA_ROOT_ENV, str(data_root))
    return data_root


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temporary folder of this test alone (fold files land there)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _engine(root, name: str = FILE) -> DuckDBEngine:
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(name, root))
    return engine


def _texts(elements) -> str:
    return " ".join(unescape(e.value) for e in elements)


# --------------------------------------------------------------------------- Cancel
def test_cancel_interrupts_a_running_query_within_seconds(rooted):
    scan = lf.Scan("slow", lambda engine, report: engine.table(SLOW_QUERY), FILE, str(rooted))
    time.sleep(1.0)
    assert not scan.done.is_set()  # the query runs
    start = time.perf_counter()
    scan.cancel()
    assert scan.done.wait(5.0), "the interrupted query did not stop within 5 s"
    assert time.perf_counter() - start < 5.0
    assert scan.was_cancelled and scan.result is None


def test_the_bar_shows_duckdb_s_progress_of_a_running_query(rooted):
    begun = threading.Event()

    def work(engine, report):
        begun.set()
        return engine.table(SLOW_QUERY)

    scan = lf.Scan("slow", work, FILE, str(rooted))
    try:
        # the readings start with the query: the file's opening runs queries of its own, whose
        # progress the bar shows before it (a loaded machine read 80% of one, then the query's 0%)
        assert begun.wait(60.0)
        # at least 4 s of readings, then until DuckDB reports progress: on a loaded machine
        # its first report came after the 4 s the test used to wait (2 runs in 3 failed)
        seen, deadline = [], time.monotonic() + 120
        while len(seen) < 40 or (seen[-1][0] == 0.0 and time.monotonic() < deadline):
            time.sleep(0.1)
            seen.append(scan.view())
        fractions = [f for f, _ in seen]
        assert fractions == sorted(fractions)  # never goes back
        assert fractions[-1] > 0.0, seen[-1]
        assert re.search(r"\b\d+:\d\d\b", seen[-1][1]), seen[-1]  # the time it has run
    finally:
        scan.cancel()
        assert scan.done.wait(5.0)


def test_cancel_during_the_spill_leaves_no_fold_files(rooted, private_tmp):
    box, named = {}, threading.Event()

    def work(engine, report):
        def progress(fraction, message):
            if message.startswith("Encoded"):
                # on a loaded machine the scan's thread may get here before Scan() has
                # returned and the box holds it (a KeyError, not a cancel): a full run
                # failed so once; the error is now shown if it fails again
                assert named.wait(30.0)
                box["scan"].cancel()  # as a click on Cancel while rows are spilled
            report(fraction, message)

        settings = {"n_splits": 5, "seed": 42, "n_bins": 10, "missing": "impute"}
        return lf.run_compare(engine, "click", ["Laplace", "AODE"], settings, progress)

    box["scan"] = scan = lf.Scan("spill", lambda e, r: work(e, r), FILE, str(rooted))
    named.set()
    assert scan.done.wait(60.0)
    assert scan.was_cancelled and isinstance(scan.error, lf.Cancelled), repr(scan.error)
    assert not list(private_tmp.glob("heb_folds_*")), list(private_tmp.iterdir())


def test_a_scan_that_finishes_keeps_its_result(rooted):
    settings = {"n_splits": 3, "seed": 42, "n_bins": 10, "missing": "impute"}
    scan = lf.Scan(
        "ok",
        lambda engine, report: lf.run_compare(engine, "click", ["HEB-M"], settings, report),
        FILE,
        str(rooted),
        lf._COMPARE_STEPS[False],
    )
    assert scan.done.wait(60.0) and scan.error is None
    assert scan.result.n_rows == 2_000 and not scan.was_cancelled
    assert scan.view()[0] == pytest.approx(1.0)


# --------------------------------------------------------------------------- methods
def test_methods_the_engine_cannot_run_are_named_with_why():
    chosen = ["Laplace", "HEB-H", "AODE", "TAN", "HEB-TAN", "CategoricalNB"]
    assert lf.engine_methods(chosen) == ["Laplace", "AODE"]
    left = lf.left_out_methods(chosen)
    assert list(left) == ["HEB-H", "TAN", "HEB-TAN", "CategoricalNB"]
    assert "hierarchies" in left["HEB-H"] and "mutual information" in left["TAN"]
    assert "in memory" in left["CategoricalNB"]


# --------------------------------------------------------------------------- pages
def test_the_large_file_carries_to_every_page_and_its_link(rooted):
    at = open_app("pages/dataset.py", clean=False, large_file=FILE)
    assert_clean(at)
    assert url(at, "large_file") == FILE
    for page in ("pages/concentrations.py", "pages/compare.py", "pages/dataset.py"):
        at.switch_page(page)
        at.run()
        assert_clean(at)
        assert url(at, "large_file") == FILE, page
        assert FILE in _texts(at.sidebar.markdown), page


def test_dataset_page_header_describes_the_large_file(rooted):
    at = open_app("pages/dataset.py", clean=False, large_file=FILE)
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows with a target"] == "2,000"
    assert metrics["Engine"] == "DuckDB" and metrics["Target"] == "click"
    assert metrics["Classes"] == "2"
    # the in-memory dataset's overview is not drawn (its table has the MI columns)
    assert not [d for d in at.dataframe if "MI with target (nats)" in d.value.columns]
    # the class balance, counted by the engine: every row in one of the classes
    summary = summarise_source(_engine(rooted), "click")
    said = _texts(at.caption)
    for name, count in zip(summary.classes, summary.class_counts, strict=True):
        assert f"{name}: {count:,}" in said  # "0 165,779, 1 34,221" read as one list
    assert summary.class_counts.sum() == 2_000
    # the rows counted are those with a target (a file with rows missing it said "all")
    assert "over the 2,000 rows with a target (one scan)" in said


def test_an_id_like_column_with_missing_rows_is_warned_about_as_in_memory(tmp_path, monkeypatch):
    """The upload of a file warned that imputing user_id's mode piles its missing rows into
    one ID; the same file as a large file said nothing."""
    rng = np.random.default_rng(4)
    n = 3_000
    user = rng.integers(0, 1_500, n).astype("float64")
    user[rng.random(n) < 0.05] = np.nan
    frame = pd.DataFrame(
        {"user_id": pd.array(user, dtype="Int64"), "colour": rng.choice(["r", "g"], n),
         "y": rng.choice(["a", "b"], n)}
    )  # fmt: skip
    frame.to_parquet(tmp_path / "users.parquet", index=False)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    at = open_app("pages/dataset.py", clean=False, large_file="users.parquet")
    assert_clean(at)
    warned = [w.value for w in at.warning if "looks like an ID" in w.value]
    # the in-memory warning, word for word
    from heb.data import Preprocessor

    pre = Preprocessor().fit(frame.drop(columns="y"))
    from explorer.summaries import id_like_note

    expected = id_like_note("user_id", pre.id_like_imputed_["user_id"])
    assert [unescape(w) for w in warned] == [expected]
    at.button(key="large_missing_as_category").click().run()
    assert_clean(at)
    assert at.session_state["missing"] == "category"
    assert not [w for w in at.warning if "looks like an ID" in w.value]


def test_concentrations_page_counts_the_large_file(rooted):
    at = open_app("pages/concentrations.py", clean=False, large_file=FILE)
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rows counted"] == "2,000"
    grid = next(d for d in at.dataframe if "feature name" in d.value.columns)
    shown = grid.value
    # m as on the in-memory page, one format down the column (%.4g gave 10000 beside 526.6)
    assert '"format":"%,.2f"' in grid.proto.columns.replace(" ", "")
    fitted = fit_counts(_engine(rooted), "click")
    expected = pd.DataFrame(NaiveBayes(smoother="heb-m").fit_counts(fitted.table).concentrations_)
    # the in-memory page's figures and formats (the trial saw "5.91e+03" and no clamps)
    from explorer.concentrations import summary_numbers

    wanted = summary_numbers(expected)
    for label in ("Pairs", "Median m", "Clamped low / high", "Fallback m = K_f"):
        assert metrics[label] == wanted[label], label
    assert "e+" not in metrics["Median m"]
    np.testing.assert_allclose(shown["m"].to_numpy(), expected["m"].to_numpy(), rtol=1e-12)
    offered = at.radio(key="w_conc_model").options  # HEB-H and HEB-AODE need the rows
    assert [o.split(":")[0] for o in offered] == ["HEB-M", "HEB-U"]


def test_compare_page_runs_on_the_large_file_with_the_in_memory_table(rooted):
    methods = ",".join([*DEFAULT_METHODS, "TAN"])
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods=methods, folds="5")
    assert_clean(at)
    assert "TAN, because" in _texts(at.info)  # said, not dropped silently
    at.button(key="large_go").click().run()
    assert_clean(at)
    grid = next(d for d in at.dataframe if "method" in d.value.columns)
    shown = grid.value
    # the in-memory Compare's column settings: its short "fit ms" header, pinned names
    config = json.loads(grid.proto.columns)
    assert config["fit time (ms)"]["label"] == cmp.FIT_TIME_HEADER
    assert config["method"]["pinned"] is True
    expected = cross_validate(_engine(rooted), "click", DEFAULT_METHODS, n_splits=5, seed=42)
    table, summary = cmp.metrics_table(expected)
    assert list(shown.columns) == list(table.columns)  # "Accuracy ↑", not accuracy_mean
    metric_columns = [c for c in table.columns if "±" in str(table[c].iloc[0])]
    assert len(metric_columns) == 6
    pd.testing.assert_frame_equal(
        shown[["method", *metric_columns]].reset_index(drop=True),
        table[["method", *metric_columns]].reset_index(drop=True),
    )
    captions = _texts(at.caption)
    assert "Engine: DuckDB; 2,000 rows seen; 5 folds" in captions
    assert "duckdb" not in captions and "Best mean of each metric" in captions
    assert "Folds: the Folds choice above (5, seed 42)" in captions
    # the numbers behind the table are the engine's, to the last bit
    kept = [r.result for r in at.session_state["_large_results"].values() if hasattr(r, "result")]
    assert len(kept) == 1
    got, want = kept[0].summary(), expected.summary()
    numbers = [c for c in want.columns if c.endswith(("_mean", "_std")) and "time" not in c]
    assert got["method"].tolist() == list(DEFAULT_METHODS)
    np.testing.assert_allclose(got[numbers], want[numbers], rtol=1e-12)
    # the in-memory Compare's views: the pooled reliability diagram, then the folds' spread
    drawn = {t.get("name") for t in titled(figures(at), "pooled out-of-fold")["data"]}
    assert {"HEB-M", "Laplace"} <= drawn
    for method in DEFAULT_METHODS:
        np.testing.assert_array_equal(
            kept[0].reliability(method)["count"], expected.reliability(method)["count"]
        )
    assert not [f for f in figures(at) if "per fold" in str(f["layout"]["title"])]  # closed tab
    at.session_state["large_compare_tab"] = "Spread over folds"
    at.run()
    assert_clean(at)
    assert url(at, "large_compare_tab") == "Spread over folds"  # a link keeps the tab
    boxes = titled(figures(at), "per fold")["data"]
    assert [box["name"] for box in boxes] == list(DEFAULT_METHODS)
    for box in boxes:
        folds = expected.folds
        values = folds.loc[folds["method"] == box["name"], "accuracy"].to_numpy()
        np.testing.assert_allclose(decode(box["y"]), values, rtol=1e-12)
    # per class: the confusion matrix, per-class reliability and precision / recall of
    # the chosen method, from the scan's sums; no ROC (it would need every row's score)
    at.session_state["large_compare_tab"] = "Per class"
    at.run()
    at.selectbox(key="w_diag_method").select("HEB-M").run()
    assert_clean(at)
    heat = titled(figures(at), "Confusion matrix: HEB-M")["data"][0]
    np.testing.assert_array_equal(decode(heat["customdata"]), expected.confusion("HEB-M"))
    assert titled(figures(at), "One-vs-rest reliability: HEB-M")
    scores = next(d for d in at.dataframe if "recall" in d.value.columns).value
    matrix = expected.confusion("HEB-M")
    np.testing.assert_allclose(scores["recall"], np.diag(matrix) / matrix.sum(axis=1))
    assert list(scores["rows"]) == list(matrix.sum(axis=1))
    assert not [f for f in figures(at) if "ROC" in str(f["layout"]["title"])]
    assert "No ROC curves here" in _texts(at.caption)


def test_the_presenter_sees_the_large_files_table_in_large_type(rooted):
    """As the in-memory Compare's: an HTML table that follows the presenter's type (the
    grid draws its cells in a fixed small font)."""
    at = open_app(
        "pages/compare.py", clean=False, large_file=FILE, methods="Laplace,HEB-M", present="1"
    )
    at.button(key="large_go").click().run()
    assert_clean(at)
    assert not [d for d in at.dataframe if "method" in d.value.columns]
    tables = [t.value for t in at.table if "method" in t.value.columns]
    assert len(tables) == 1 and list(tables[0]["method"]) == ["Laplace", "HEB-M"]


def test_a_what_if_change_after_a_first_comparison_scans_again_with_it(rooted, monkeypatch):
    from explorer import large_files

    frames = offered_csvs(monkeypatch, large_files)  # they name each what-if's setting
    methods = "Laplace,Lidstone"
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods=methods, folds="3")
    assert not at.dataframe  # nothing scanned before the button
    at.segmented_control(key="w_whatif_alpha").set_value(2.0).run()
    assert_clean(at)
    assert not at.dataframe  # a knob alone does not start the first scan
    at.button(key="large_go").click().run()
    first = next(d for d in at.dataframe if "method" in d.value.columns).value
    at.segmented_control(key="w_whatif_alpha").set_value(0.01).run()
    assert_clean(at)
    shown = next(d for d in at.dataframe if "method" in d.value.columns).value
    engine = _engine(rooted)
    expected = cross_validate(
        engine, "click", ["Laplace", "Lidstone"], n_splits=3, params={"Lidstone": {"alpha": 0.01}}
    )
    table, _ = cmp.metrics_table(expected)
    assert shown.loc[1, "Log-loss ↓"] == table.loc[1, "Log-loss ↓"]
    assert shown.loc[1, "Log-loss ↓"] != first.loc[1, "Log-loss ↓"]  # alpha 2 gave another
    assert shown.loc[0, "Log-loss ↓"] == first.loc[0, "Log-loss ↓"]  # Laplace unchanged
    assert "Lidstone" in url(at, "params") and "0.01" in url(at, "params")  # a link keeps it
    # only Lidstone was scored again (a pass per changed method), and the page says so
    assert "This scan re-scored Lidstone only, for the what-if" in _texts(at.info)
    assert frames["large-file-cv-folds:dataset"] == FILE  # small.parquet -> ...-small.csv
    settings = frames["large-file-cv-folds"].groupby("method")["setting"].unique()
    assert {m: list(v) for m, v in settings.items()} == {
        "Laplace": [""],
        "Lidstone": ["alpha = 0.01"],
    }
    at.segmented_control(key="w_whatif_alpha").set_value(0.3).run()
    assert _texts(at.info).count("re-scored") == 1  # this scan's note, not the last one's
    expected = cross_validate(
        engine, "click", ["Laplace", "Lidstone"], n_splits=3, params={"Lidstone": {"alpha": 0.3}}
    )
    shown = next(d for d in at.dataframe if "method" in d.value.columns).value
    wanted = cmp.metrics_table(expected)[0]
    timed = [c for c in wanted.columns if "time" in c]
    pd.testing.assert_frame_equal(shown.drop(columns=timed), wanted.drop(columns=timed))


def test_a_what_if_rescans_one_method_while_another_keeps_its_own_value(rooted):
    """Lidstone at alpha 2, then m-estimate's m changed: the rescan of m-estimate alone
    handed heb.scale Lidstone's value too, which it now refuses for a method not run."""
    methods = "Laplace,Lidstone,m-estimate"
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods=methods, folds="3")
    at.segmented_control(key="w_whatif_alpha").set_value(2.0).run()
    at.button(key="large_go").click().run()
    at.segmented_control(key="w_whatif_m").set_value(20.0).run()
    assert_clean(at)
    assert "This scan re-scored m-estimate only, for the what-if" in _texts(at.info)
    expected = cross_validate(
        _engine(rooted),
        "click",
        ["Laplace", "Lidstone", "m-estimate"],
        n_splits=3,
        params={"Lidstone": {"alpha": 2.0}, "m-estimate": {"m": 20.0}},
    )
    shown = next(d for d in at.dataframe if "method" in d.value.columns).value
    wanted = cmp.metrics_table(expected)[0]
    timed = [c for c in wanted.columns if "time" in c]
    pd.testing.assert_frame_equal(shown.drop(columns=timed), wanted.drop(columns=timed))


def test_a_what_if_of_the_only_method_is_a_whole_new_scan(rooted):
    """Nothing of the earlier scan is kept when every method changed: no merge, no note."""
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods="Lidstone", folds="3")
    at.button(key="large_go").click().run()
    at.segmented_control(key="w_whatif_alpha").set_value(0.01).run()
    assert_clean(at)
    assert "re-scored" not in _texts(at.info)
    shown = next(d for d in at.dataframe if "method" in d.value.columns).value
    assert list(shown["method"]) == ["Lidstone"]


def test_a_link_naming_a_path_outside_the_root_is_refused_on_any_page(rooted):
    at = open_app("pages/concentrations.py", clean=False, large_file="../../etc/passwd")
    assert not at.exception
    assert any("outside the data root" in unescape(e.value) for e in at.error)
    assert url(at, "large_file") is None  # dropped from the view and its link


def test_a_refused_file_says_what_the_pages_use_and_goes_with_a_dataset_choice(rooted):
    """The trial saw a refused file's error stay on Compare, which had quietly gone back to
    the sidebar's dataset: the error says so, and a sidebar choice dismisses it."""
    at = open_app("pages/compare.py", clean=False, large_file="../../etc/passwd")
    assert any("outside the data root" in unescape(e.value) for e in at.error)
    assert "So the pages use the sidebar's dataset" in _texts(at.caption)
    at.sidebar.selectbox(key="w_data_spec").select("builtin:iris").run()
    assert_clean(at)
    assert not [e for e in at.error if "outside the data root" in unescape(e.value)]


def test_choosing_a_dataset_in_the_sidebar_leaves_the_large_file(rooted):
    at = open_app("pages/dataset.py", clean=False, large_file=FILE)
    at.sidebar.selectbox(key="w_data_spec").select("builtin:iris").run()
    assert_clean(at)
    assert url(at, "large_file") is None and at.session_state["large_file"] == ""


def test_the_target_chosen_travels_in_the_link(rooted):
    at = open_app("pages/dataset.py", clean=False, large_file=FILE)
    box = at.selectbox(key=f"large_target:{FILE}")
    other = next(c for c in box.options if c != "click")
    box.select(other).run()
    assert url(at, "large_target") == other
    again = open_app("pages/dataset.py", clean=False, large_file=FILE, large_target=other)
    assert again.selectbox(key=f"large_target:{FILE}").value == other
    assert Path(FILE).name in _texts(again.caption)


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.0, "0 ms"), (0.043, "43 ms"), (0.1, "0.1 s"), (12.34, "12.3 s")]
)
def test_a_scans_time_reads_in_milliseconds_below_a_tenth_of_a_second(seconds, text):
    """A small file's counting and scoring read "0.0 s" each."""
    from explorer.large_files import _duration

    assert _duration(seconds) == text


def test_the_metrics_caption_gives_the_scan_s_whole_time_and_every_phase(rooted):
    """The caption said "counting 1.6 s, scoring 2.1 s" of a comparison that took 13 s:
    encoding, the fold files and fitting were left out, so the two figures read as the
    whole. It now gives the total and each phase the scan ran, summing to the total."""
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods="Laplace,AODE")
    at.button(key="large_go").click().run()
    assert_clean(at)
    caption = next(t for t in map(unescape, (c.value for c in at.caption)) if "Engine:" in t)
    kept = [r.result for r in at.session_state["_large_results"].values() if hasattr(r, "result")]
    timings = kept[0].timings
    assert lf.phases_text(timings) in caption
    for label in ("in all: counting", "encoding", "counting pairs", "writing fold files"):
        assert label in caption, label
    assert "fitting" in caption and "scoring" in caption


def test_the_phases_text_sums_the_phases_it_names():
    timings = {"count": 2.0, "count_cpu": 9.0, "fit": 0.04, "score": 1.0}
    assert lf.phases_text(timings) == "3.0 s in all: counting 2.0 s, fitting 40 ms, scoring 1.0 s"


def test_aode_on_a_large_file_is_preceded_by_its_memory_cost(rooted):
    """The pair scan of AODE / HEB-AODE grows with the rows (3 GB for 10^5 click-log rows,
    6 - 11 GB for 10^6, on the server); the README says to keep it to such files, but the
    page offered the button on any file without a word."""
    at = open_app("pages/compare.py", clean=False, large_file=FILE, methods="Laplace,HEB-AODE")
    assert_clean(at)
    assert lf.AODE_MEMORY_NOTE in _texts(at.info)
    assert "3 GB" in lf.AODE_MEMORY_NOTE and "NB smoothers alone" in lf.AODE_MEMORY_NOTE
    plain = open_app("pages/compare.py", clean=False, large_file=FILE, methods="Laplace,TE")
    assert "pair of features" not in _texts(plain.info)
