"""HEB-H in the app: hierarchies detected and declared on the Dataset page, carried in the
run settings and the URL, resolved on each fold, used by HEB-H on Compare; lesson 7."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer.errors import escape
from heb import data as hdata
from heb.data import Preprocessor
from heb.evaluate import RunSettings, cross_validate, method_spec
from heb.evaluate.folds import prepare_folds
from heb.evaluate.hierarchy_specs import (
    Declared,
    attach_hierarchies,
    fold_hierarchies,
    hierarchies_text,
    parse_hierarchies,
)
from heb.hierarchy_sources import levels_from_parent_column, prefix_levels
from heb.lessons.hierarchy import hierarchy_lesson

APP = Path(__file__).resolve().parents[1] / "app.py"
TIMEOUT = 120
ZIP_PREFIX = '[{"feature":"zip_code","prefix":[2]}]'


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Results go to a temporary cache, never to the repository's data_cache/."""
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "heb_cache"))


def open_app(page: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def url(at: AppTest, key: str) -> str | None:
    if key not in at.query_params:
        return None
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    hits = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert len(hits) == 1, [list(frame.value.columns) for frame in at.dataframe]
    return hits[0]


# --------------------------------------------------------------------------- declarations
def test_declarations_round_trip_and_refuse_bad_text():
    items = parse_hierarchies(
        '[{"feature":"b","parents":["c","d"]},{"feature":"a","prefix":[3,1]}]'
    )
    assert items == (Declared("b", parents=("c", "d")), Declared("a", prefix=(3, 1)))
    text = hierarchies_text(items)
    assert text == '[{"feature":"a","prefix":[3,1]},{"feature":"b","parents":["c","d"]}]'
    assert parse_hierarchies(text) == tuple(sorted(items, key=lambda d: d.feature))
    assert RunSettings(hierarchies=text).hierarchies == text
    for bad in (
        "not json",
        '{"feature":"a"}',
        '[{"feature":"a"}]',
        '[{"feature":"a","prefix":[1,3]}]',
        '[{"feature":"a","prefix":[0]}]',
        '[{"feature":"a","parents":["a"]}]',
        '[{"feature":"a","prefix":[2],"parents":["b"]}]',
        '[{"feature":"a","prefix":["2"]}]',
    ):
        with pytest.raises(ValueError):
            parse_hierarchies(bad)


def test_hierarchies_key_heb_h_only_and_travel_in_the_url():
    plain = RunSettings(dataset="builtin:zip-codes")
    declared = plain.replace(hierarchies=ZIP_PREFIX)
    assert declared.data_key() == plain.data_key()  # the folds are shared
    assert declared.key("x") != plain.key("x")
    assert plain.key("x") == RunSettings(dataset="builtin:zip-codes").key("x")
    specs = {name: method_spec(name) for name in ("HEB-M", "HEB-H")}
    attached = attach_hierarchies(specs, declared.hierarchies)
    assert attached["HEB-M"] == specs["HEB-M"]
    assert attached["HEB-H"] != specs["HEB-H"]
    assert declared.method_key(attached["HEB-M"]) == plain.method_key(specs["HEB-M"])
    query = declared.to_query()
    assert query["hierarchies"] == ZIP_PREFIX
    assert RunSettings.from_query(query) == declared
    assert "hierarchies" not in plain.to_query()


def test_fold_levels_equal_a_preprocessor_on_the_training_rows():
    dataset = hdata.load_builtin("zip-codes")
    text = hierarchies_text(
        [Declared("zip_code", prefix=(2, 1)), Declared("user_id", parents=("store_id",))]
    )
    prepared = prepare_folds(dataset, RunSettings(n_splits=3))
    fold = prepared.folds[1]
    levels = fold_hierarchies(text, fold)
    pre = Preprocessor(categorical=dataset.categorical)
    train_codes = pre.fit_transform(dataset.X.iloc[fold.train_index])
    names = pre.feature_names_out_
    z, u, s = (names.index(n) for n in ("zip_code", "user_id", "store_id"))
    expected = prefix_levels(pre.categories_[z], (2, 1))
    assert len(levels[z]) == 2
    for got, want in zip(levels[z], expected, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        levels[u][0],
        levels_from_parent_column(train_codes[:, u], train_codes[:, s], pre.n_categories_[u]),
    )
    # the prefix groups are the labels' first characters
    labels = np.array(pre.categories_[z])
    for group in np.unique(levels[z][0])[:5]:
        assert len({label[:2] for label in labels[levels[z][0] == group]}) == 1


# --------------------------------------------------------------------------- Dataset page
def test_dataset_page_lists_the_amazon_dependencies(datasets_dir):
    at = open_app(dataset="shared:amazon-employee-access")
    shown = table_with(at, "violating share")
    pairs = set(zip(shown["child A"], shown["parent B"], strict=True))
    assert {("ROLE_TITLE", "ROLE_FAMILY"), ("ROLE_CODE", "ROLE_FAMILY")} <= pairs
    assert (shown["violating rows"] == 0).all()  # exact dependencies at tolerance 0
    at.select_slider(key="w_fd_tolerance").set_value(0.05).run()
    assert_clean(at)
    shown = table_with(at, "violating share").set_index(["child A", "parent B"])
    rollup = shown.loc[("ROLE_ROLLUP_2", "ROLE_ROLLUP_1")]
    assert 0 < rollup["violating share"] < 0.05
    assert url(at, "fd_tolerance") == "0.05"
    # confirm it: in use for HEB-H, in the session and the URL
    pick = [o for o in at.selectbox(key="fd_pick").options if o.startswith("ROLE_ROLLUP_2 (")]
    at.selectbox(key="fd_pick").set_value(pick[0])
    at.button(key="fd_confirm").click().run()
    assert_clean(at)
    wanted = '[{"feature":"ROLE_ROLLUP_2","parents":["ROLE_ROLLUP_1"]}]'
    assert at.session_state["hierarchies"]["shared:amazon-employee-access"] == wanted
    assert url(at, "hierarchies") == wanted
    assert (
        table_with(at, "violating share")
        .set_index(["child A", "parent B"])
        .loc[("ROLE_ROLLUP_2", "ROLE_ROLLUP_1"), "in use"]
    )


def test_declared_prefix_on_zip_codes():
    at = open_app()
    at.selectbox(key="hier_feature").set_value("zip_code")
    at.radio(key="hier_kind").set_value("prefix of the label")
    at.text_input(key="hier_L").set_value("2, 1")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    wanted = '[{"feature":"zip_code","prefix":[2,1]}]'
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == wanted
    assert url(at, "hierarchies") == wanted
    zips = hdata.load_builtin("zip-codes").X["zip_code"].astype(str)
    sizes = [zips.nunique(), zips.str[:2].nunique(), zips.str[:1].nunique()]
    row = table_with(at, "nodes per level (leaves first)").iloc[0]
    assert row["nodes per level (leaves first)"] == " -> ".join(f"{n:,}" for n in sizes)
    assert row["used"]
    # a bad length is one message, nothing stored
    at.text_input(key="hier_L").set_value("1, 2")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert [e.value for e in at.error] and not at.exception
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == wanted
    # removed again
    at.button(key="hier_remove").click().run()
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == ""
    assert url(at, "hierarchies") is None


def test_user_text_in_a_declaration_is_escaped():
    name = "[click](https://example.com) **bold** <b>x</b>"
    text = json.dumps([{"feature": name, "prefix": [2]}])
    at = open_app(hierarchies=text)
    note = f"{name} -> prefix 2: no column {name!r} here, left out."
    captions = [c.value for c in at.caption]
    assert escape(note) in captions
    assert not any("](https://" in c for c in captions)


# --------------------------------------------------------------------------- Compare
def test_heb_h_on_compare_uses_the_declared_hierarchy():
    query = {"methods": "HEB-M,HEB-H", "folds": "3"}
    plain = table_with(open_app("pages/compare.py", **query), "ECE ↓").set_index("method")
    at = open_app("pages/compare.py", hierarchies=ZIP_PREFIX, **query)
    shown = table_with(at, "ECE ↓").set_index("method")
    assert shown.loc["HEB-M"].drop("fit time (ms)").equals(plain.loc["HEB-M"].drop("fit time (ms)"))
    assert shown.loc["HEB-H", "Log-loss ↓"] != plain.loc["HEB-H", "Log-loss ↓"]
    # the numbers are heb.evaluate's with the same declaration
    expected = (
        cross_validate(
            hdata.load_builtin("zip-codes"),
            ["HEB-M", "HEB-H"],
            settings=RunSettings(dataset="builtin:zip-codes", n_splits=3, hierarchies=ZIP_PREFIX),
            use_cache=False,
        )
        .summary()
        .set_index("method")
    )
    row = expected.loc["HEB-H"]
    assert (
        shown.loc["HEB-H", "Log-loss ↓"]
        == f"{row['log_loss_mean']:.4f} ± {row['log_loss_std']:.4f}"
    )
    assert url(at, "hierarchies") == ZIP_PREFIX


# --------------------------------------------------------------------------- lesson
def _l1_metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric if "mean l1 error" in m.label}


def test_lesson_matches_its_computation_and_keeps_its_settings():
    at = open_app("pages/lesson_hierarchy.py")
    expected = hierarchy_lesson(200, "hierarchy", seed=0)
    assert _l1_metrics(at) == {
        f"{r.smoother}: mean l1 error": f"{r._2:.3f}" for r in expected["l1"].itertuples()
    }
    label = expected["labels"][expected["leaf"]]
    assert any(f"**{label}**" in m.value for m in at.markdown)
    conc = table_with(at, "learned m")
    np.testing.assert_allclose(
        conc["learned m"], expected["concentrations"]["learned m"].round(3), rtol=1e-12
    )
    at.select_slider(key="w_hier_rows").set_value(1000).run()
    at.radio(key="w_hier_scenario").set_value("flat").run()
    assert_clean(at)
    flat = hierarchy_lesson(1000, "flat", seed=0)
    assert _l1_metrics(at) == {
        f"{r.smoother}: mean l1 error": f"{r._2:.3f}" for r in flat["l1"].itertuples()
    }
    assert url(at, "hier_rows") == "1000" and url(at, "hier_scenario") == "flat"
    fresh = open_app("pages/lesson_hierarchy.py", hier_rows="1000", hier_scenario="flat")
    assert _l1_metrics(fresh) == _l1_metrics(at)


def test_lesson_hierarchy_learns_the_tree_where_it_carries_signal():
    out = hierarchy_lesson(1000, "hierarchy", seed=0)
    l1 = out["l1"].set_index("smoother")["mean l1 error"]
    assert l1["HEB-H"] < l1["HEB-M"] < l1["Laplace"]
    table = out["leaf_table"]
    assert np.allclose(table["error"], table["estimate"] - table["truth"])
    # Laplace's estimate of the sparse code is (n + 1) / (N + K) by hand
    laplace = table[table["smoother"] == "Laplace"]
    n = out["counts"][laplace["class"], out["leaf"]]
    np.testing.assert_allclose(laplace["estimate"], (n + 1) / (1000 + 200))
    with pytest.raises(ValueError):
        hierarchy_lesson(10, "nope")
