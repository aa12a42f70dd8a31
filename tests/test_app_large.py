"""The Dataset page's "Large file" source under AppTest: the engine's numbers, a guarded root."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import assert_clean, open_app, unescape, uploader

from explorer.large_files import CONFIGURE_HELP, Cancelled, list_sources, progress_reporter
from heb.scale import (
    DATA_ROOT_ENV,
    DuckDBEngine,
    cross_validate,
    describe_source,
    fit_counts,
    open_source,
    summarise_source,
    write_clicks,
)

PAGE = "pages/dataset.py"
PICKER = "File or folder under the data root"


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("large_root")
    write_clicks(root / "small.parquet", 2_000, seed=2, n_features=3)
    (root / "events").mkdir()
    write_clicks(root / "events" / "part-0.parquet", 500, seed=3, n_features=3)
    (root / "notes.docx").write_text("not data")
    return root


@pytest.fixture
def rooted(data_root, monkeypatch):
    monkeypatch.setenv(DATA_ROOT_ENV, str(data_root))
    return data_root


def _open(**query: str) -> AppTest:
    return open_app(PAGE, clean=False, **query)


def _frame_with(at: AppTest, column: str) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(frames) == 1, [list(d.value.columns) for d in at.dataframe]
    return frames[0]


def _engine(root, name: str) -> DuckDBEngine:
    engine = DuckDBEngine(threads=1)
    engine.register(open_source(name, root))
    return engine


def test_the_source_lists_parquet_files_and_folders_only(rooted):
    assert list_sources(rooted) == ["events/", "small.parquet"]
    at = _open()
    assert_clean(at)
    options = at.selectbox(key="w_large_file").options  # as shown: the empty choice explained
    assert options[1:] == ["events/", "small.parquet"] and options[0].startswith("(choose")


def test_describe_numbers_are_the_engine_s(rooted):
    at = _open(large_file="small.parquet")
    assert_clean(at)
    shown = _frame_with(at, "missing_share")
    expected = describe_source(_engine(rooted, "small.parquet"), "click")
    # the file's distinct values, and K_f: the categories counted with the page's bins
    summary = summarise_source(_engine(rooted, "small.parquet"), "click")
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), summary.features, check_dtype=False)
    pd.testing.assert_frame_equal(
        shown.drop(columns="K_f").reset_index(drop=True), expected, check_dtype=False
    )
    fitted = fit_counts(_engine(rooted, "small.parquet"), "click")
    assert shown["K_f"].tolist() == fitted.table.n_categories.tolist()  # as Concentrations
    assert "2,000" in " ".join(m.value for m in at.metric)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../../etc/passwd", "lies outside the data root"),
        ("/etc/passwd", "is not a path relative to the data root"),
        ("notes.docx", "neither parquet nor delimited text"),
    ],
)
def test_a_link_outside_the_root_is_refused_with_a_message(rooted, name, message):
    at = _open(large_file=name)
    assert not at.exception
    assert any(message in unescape(e.value) for e in at.error), [e.value for e in at.error]
    assert at.selectbox(key="w_large_file").value == ""
    assert not [d for d in at.dataframe if "missing_share" in d.value.columns]


def test_without_a_root_the_source_says_how_to_configure(monkeypatch):
    monkeypatch.delenv(DATA_ROOT_ENV, raising=False)
    at = _open()
    assert_clean(at)
    infos = [unescape(i.value) for i in at.info]
    assert any(DATA_ROOT_ENV in i and "secrets.toml" in i for i in infos), infos
    assert CONFIGURE_HELP.startswith("No data root is configured")


def test_a_root_that_is_no_folder_is_said_so_not_called_unconfigured(tmp_path, monkeypatch):
    """HEB_DATA_ROOT set with a typo: the Dataset page said "No data root is configured.
    Set the environment variable HEB_DATA_ROOT ..." to an analyst who had set it, and a
    link's large file was refused as "no data root is configured"."""
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path / "no-such-folder"))
    at = _open()
    assert_clean(at)
    infos = " ".join(unescape(i.value) for i in at.info)
    assert "No data root is configured" not in infos
    assert f"The data root set by the environment variable {DATA_ROOT_ENV}" in infos
    assert "'no-such-folder', is not a folder that exists" in infos
    assert str(tmp_path) not in infos  # the server's path stays its own
    linked = _open(large_file="small.parquet")
    errors = " ".join(unescape(e.value) for e in linked.error)
    assert "no data root is configured" not in errors
    assert "the data root configured is not a folder that exists" in errors


def test_cancel_stops_the_engine_scan(rooted):
    seen: list[float] = []
    progress = progress_reporter(lambda f, m: seen.append(f), lambda: len(seen) >= 2)
    with pytest.raises(Cancelled):
        cross_validate(_engine(rooted, "small.parquet"), "click", ["Laplace"], progress=progress)
    assert len(seen) == 2 and seen == sorted(seen)


def test_the_large_file_list_leaves_out_links_that_lead_out_of_the_root(tmp_path):
    """A link to a file outside the data root was listed, then refused when chosen."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.csv").write_bytes(b"x,y\n1,2\n")
    (root / "inside.csv").write_bytes(b"x,y\n1,2\n")
    (root / "link_out.csv").symlink_to(outside / "secret.csv")
    (root / "link_in.csv").symlink_to(root / "inside.csv")
    assert list_sources(root.resolve()) == ["inside.csv", "link_in.csv"]


def test_listing_a_partitioned_root_touches_no_file_of_its_folders_one_by_one(
    tmp_path, resolved_paths
):
    """The Dataset page lists the root on every run; rglob resolved and tested every path
    of the tree, 1.4 s for 50 partition folders of 400 parquet files each. Only links
    (which may lead out) need resolving: here, none."""
    root = tmp_path / "root"
    for day in range(3):
        part = root / "events" / f"day={day}"
        part.mkdir(parents=True)
        for k in range(200):
            (part / f"part-{k}.parquet").touch()
    (root / "clicks.parquet").touch()
    root = root.resolve()
    resolved_paths.clear()
    names = list_sources(root)
    assert names == [
        "clicks.parquet",
        "events/",  # the partitioned table, then each partition
        "events/day=0/",
        "events/day=1/",
        "events/day=2/",
    ]
    assert len(resolved_paths) < 10, len(resolved_paths)


def test_a_data_error_of_a_scan_says_where_to_change_the_target(tmp_path, monkeypatch):
    """A one-valued target gave its error and a "Count again" button only, which repeats
    the same failure; the way on is another target (or file) on the Dataset page. On the
    page's next run the error itself was gone, leaving the bare button."""
    from explorer.large_files import DATA_ERROR_NOTE

    # "a" holds decimals: no column reads as classes, so the Dataset page takes none for "y"
    frame = pd.DataFrame({"a": [0.5, 1.25, 2.5, 3.75], "y": ["p"] * 4})
    frame.to_parquet(tmp_path / "one.parquet")
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    for page in (PAGE, "pages/concentrations.py"):
        at = open_app(page, clean=False, large_file="one.parquet")
        # twice: the first run says it, and so must the next (a sidebar change, any widget),
        # which showed a bare "Count again" button with no word of why
        for run in range(2):
            errors = " ".join(unescape(e.value) for e in at.error)
            assert "has only one class ('p')" in errors, (page, run)
            assert DATA_ERROR_NOTE in [unescape(c.value) for c in at.caption], (page, run)
            assert [b.label for b in at.button].count("Count again") == 1
            at.run()


def _count_scans(monkeypatch) -> list:
    """The targets of every whole-file scan (heb.scale.profile's one count of every row)
    from here on, appended as each starts."""
    import heb.scale.profile

    calls = []
    real = heb.scale.profile._whole

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(heb.scale.profile, "_whole", counting)
    return calls


def test_changing_the_concentrations_model_re_smooths_without_a_new_scan(rooted, monkeypatch):
    """On a large file, switching the Concentrations page's model from HEB-M to HEB-U ran
    the whole scan again (51 s on a 3-million-row CSV) although the smoother only
    re-smooths the counts one scan made ("counts are the model")."""
    calls = _count_scans(monkeypatch)
    at = open_app("pages/concentrations.py", large_file="small.parquet")
    opened = len(calls)
    model = next(r for r in at.radio if r.label == "Model")
    m_shown = {}
    for choice in ("HEB-U", "HEB-M", "HEB-U"):
        model.set_value(choice)
        at.run()
        assert_clean(at)
        model = next(r for r in at.radio if r.label == "Model")
        m_shown[choice] = _frame_with(at, "rho")["m"].to_numpy()
    assert len(calls) == opened, calls  # no scan for a change of model
    from heb import NaiveBayes

    table = fit_counts(_engine(rooted, "small.parquet"), "click").table
    for choice, smoother in (("HEB-M", "heb-m"), ("HEB-U", "heb-u")):
        expected = NaiveBayes(smoother=smoother).fit_counts(table).concentrations_["m"]
        assert m_shown[choice] == pytest.approx(expected, rel=1e-9), choice
    assert not (m_shown["HEB-M"] == pytest.approx(m_shown["HEB-U"]))  # the choice shows


def test_concentrations_after_the_dataset_page_read_no_row_again(rooted, monkeypatch):
    """The Dataset page's scan of a large file counts every (class, feature, value), the
    very counts the Concentrations page smooths; opening Concentrations next scanned the
    whole file again (56 s on a 3-million-row CSV after the Dataset page's 60 s)."""
    scans = _count_scans(monkeypatch)
    at = open_app(PAGE, large_file="small.parquet")
    assert len(scans) == 1
    at.switch_page("pages/concentrations.py")
    at.run()
    assert_clean(at)
    assert len(scans) == 1, scans  # the Dataset page's counts were smoothed
    from heb import NaiveBayes

    table = fit_counts(_engine(rooted, "small.parquet"), "click").table
    expected = NaiveBayes(smoother="heb-m").fit_counts(table).concentrations_["m"]
    assert _frame_with(at, "rho")["m"].to_numpy() == pytest.approx(expected, rel=1e-9)
    assert "2,000" in " ".join(m.value for m in at.metric)  # rows counted, as scanned


@pytest.mark.parametrize("with_root", [True, False])
def test_an_upload_over_the_cell_limit_names_the_large_file_source(
    with_root, data_root, monkeypatch
):
    """A 197 MB CSV of 6 million rows was refused with "...; use a sample of the rows."
    alone, although the Large file source on the same page counts every row of such a
    file (the command line names --engine for it)."""
    from explorer import loading
    from heb.data import DataError
    from heb.data.dataset import TooManyCells

    if with_root:
        monkeypatch.setenv(DATA_ROOT_ENV, str(data_root))
    else:
        monkeypatch.delenv(DATA_ROOT_ENV, raising=False)

    def too_many(payload, name):
        raise TooManyCells(
            "The table has at least 3,360,189 rows x 6 columns, more than the 20,000,000 "
            "cells this app loads; use a sample of the rows."
        )

    monkeypatch.setattr(loading, "upload_dataset", too_many)
    at = open_app(PAGE)
    uploader(at).upload("big.csv", b"a,b\n1,2\n", "text/csv").run()
    assert not at.exception and len(at.error) == 1
    said = next(unescape(c.value) for c in at.caption if "was not read" in c.value)
    assert "big.csv was not read" in said
    assert "Large file" in said and "every row" in said, said
    if with_root:
        assert "data root" in said and DATA_ROOT_ENV not in said
    else:
        assert DATA_ROOT_ENV in said, said

    # any other refusal says nothing of it: the large-file route is for size alone
    def empty(payload, name):
        raise DataError("The file is empty.")

    monkeypatch.setattr(loading, "upload_dataset", empty)
    uploader(at).upload("empty.csv", b"", "text/csv").run()
    said = next(unescape(c.value) for c in at.caption if "was not read" in c.value)
    assert "empty.csv was not read" in said and "Large file" not in said


def test_a_large_file_s_empty_and_single_valued_columns_are_said_as_in_memory(
    tmp_path, monkeypatch
):
    """The same CSV read as an upload said "Columns 'notes', 'fax' are empty in every row
    and will be left out." and counted 3 features; as a large file the Dataset page said
    nothing of them and counted 5, while its Concentrations page learned 3 features' pairs.
    A column of one value was named in memory only."""
    from heb.data import load_upload

    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "state": rng.choice(["NY", "MA", "CA"], n),
            "notes": [""] * n,
            "fax": [""] * n,
            "country": ["US"] * n,
            "age": rng.integers(18, 80, n),
            "churned": rng.choice(["yes", "no"], n),
        }
    )
    payload = frame.to_csv(index=False).encode()
    (tmp_path / "crm.csv").write_bytes(payload)
    monkeypatch.setenv(DATA_ROOT_ENV, str(tmp_path))
    in_memory = load_upload(payload, "crm.csv")
    assert int(in_memory.X.notna().any().sum()) == 3  # state, country, age: the page's count
    at = open_app(PAGE, large_file="crm.csv")
    said = [unescape(i.value) for i in at.info]
    for note in in_memory.notes:
        assert note in said, (note, said)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Features"] == "3", metrics
    at.switch_page("pages/concentrations.py")
    at.run()
    assert_clean(at)
    pairs = {m.label: m.value for m in at.metric}["Pairs"]
    assert pairs == str(3 * 2)  # the same 3 features, 2 classes
